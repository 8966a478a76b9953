"""GWA paper (Gerla, Lo Cigno, Mascolo, Weng, "Generalized Window
Advertising for TCP Congestion Control") experiments, §6.

Common setting (§6, Fig 3): N hosts, each running one greedy FTP and one
Telnet source over its own access link (delay tau_i) into router R1; the
bottleneck R1 -> R2 (delay tau_B) carries the scheme's queue; R2 reaches
destination i over its own link (delay tau_r), so source-to-destination
propagation is tau_i + tau_B + tau_r. Links are duplex; the reverse path
carries ACKs only. TCP MSS 1000 bytes (ns-2 packets of 1040 bytes), TCP
tick 0.1 s, Telnet: MSS packets at exponential intervals of mean 0.1 s.

The six schemes (§6 list), each "TCP-Reno" (ns-2 ``TCP/Reno``):

* ``DropTail``: FCFS tail-drop router.
* ``RED``: RED router, thresholds 1/12 and 3/12 of the buffer, p_b rising
  linearly to max_p = 0.1 between them, "above the upper threshold, RED
  drops an incoming packet with probability = 1" (so ``gentle = false``).
* ``ECN``: ECN-capable Reno and the same RED router marking instead of
  dropping, also above the upper threshold (footnote 7:
  ``ecn_mark_above_max``); only a full buffer drops.
* ``GWA-RR``: GWA Reno (``gwa = true``) and per-flow queues served round
  robin (``drr``) with the §5 RR stamp B_t/n_f - q_i.
* ``GWA-FCFS``: GWA Reno and an FCFS tail-drop router stamping
  (B_t - q)/n_f.
* ``BA-FCFS``: BA-TCP Reno (``ba = true``) and an FCFS tail-drop router
  measuring the available bandwidth per flow (``gwa = "ba"``).

n_f: eq. 9 with alpha = 0.9, tau = 0.1 s (§5's choice, the engine's
default). Every TCP agent of a scheme (FTP and Telnet) has its
capabilities: the paper counts the Telnet connections in n_f (§6.1).

Choices where the paper is silent (docs/experiments.md, "GWA paper"):

* Buffers are given in kbytes; ns-2 queue limits count packets, so a
  buffer of B kbytes is ns-2's ``queue-limit B`` (one 1000-byte MSS per
  kbyte, as the receiver's 64 kbytes are ns-2's ``window_ 64``). In ccsim's
  terms (packets waiting behind the one being sent) that is B - 1 for the
  "standard FCFS queuing" routers of DropTail, GWA-FCFS and BA-FCFS (ns-2's
  DropTail drops at ``length() + 1 >= qlim_``:
  :func:`.._kit.ns2ref.droptail_waiting`) and B for RED and ECN (red.cc
  drops at ``qlen >= qlim`` before queueing the arrival) and for GWA-RR's
  per-flow queues (the authors' RR router is not available; ns-2's DRR
  limits the bytes waiting;
  docs/decisions/2026-11-26-papers-buffers-as-ns2-queue-limit.md).
  GWA's B_t is the queue's limit x 1040 bytes on the wire
  (``gwa_pkt_bytes``), what the router can hold.
* RED in packet mode with ns-2's defaults of the time (ns-2.1b,
  1999-2000): ``bytes_ false``, ``q_weight_ 0.002``, ``wait_ true``,
  ``mean_pktsize_ 500``; thresholds may be fractional (30 kB: 2.5 and 7.5).
* Only the bottleneck router runs the scheme (and its GWA/BA stage); both
  directions of the R1-R2 link get the same queue, as ns-2's
  ``duplex-link``. Access and destination links have DropTail queues of
  10,000 packets (never the limit: each carries one host's window).
* TCP: Reno without limited transmit (RFC 3042 postdates the paper), no
  delayed ACKs (ns-2 ``TCPSink``), initial window 1 (ns-2 ``windowInit_``
  until 5/2001; the paper's ns-2 came from the 1999-2000 VINT site), RTO
  floor 0.2 s (two 0.1 s ticks: "only a timeout can halt transmissions for
  more than 0.2 s", §6.1), initial RTO 3 s (ns-2 ``rtxcur_init_``), and
  ns-2's own RTT estimator (``rtt_estimator = "ns2"``: one timed segment
  per RTT in 0.1 s ticks, the backoff kept until a timed segment is
  acknowledged; docs/validation.md "RTT estimator"), and ns-2's idle
  timer (``ns2_idle_restart``: the timer restarted at every ACK, whose
  expiry with nothing outstanding restarts the window at one segment,
  ``slow_start_restart_`` and ``restart_bugfix_``, both on by default
  since 1997 per ns-2's CHANGES; it is what an idle Telnet meets).
* ECN agents as ns-2's ``TcpAgent``: retransmissions leave ECT too
  (``ecn_retransmit_ect``, tcp.cc ``output``) and an ECE halves the window
  unrounded, below one segment from under two, which closes it
  (``ecn_response = "ns2"``, tcp.cc ``ecn``, ns-2.35's ``precisionReduce_``);
  RFC 3168 floors the window at 2 and sends retransmissions Not-ECT.
* Start times: every FTP and Telnet source starts at t = 0 (the figures'
  transients start from time 0 with all flows); the first Telnet write is
  one exponential interval later.
* WAN tau_i: drawn once, uniformly on [1, 10] ms, from a fixed seed
  (:func:`access_delays`), and listed in the experiments' tables.

Experiments: :mod:`.lan` (``gwa-lan``, Figs 4-6), :mod:`.wan`
(``gwa-wan``, Figs 7-9), :mod:`.many_flows` (``gwa-many-flows``, Fig 10).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from ...results import Results
from .. import Check
from .._kit import Sweep
from .._kit.analysis import jain
from .._kit.ns2ref import droptail_waiting
from .._kit.setups import PKT_BYTES, flow, scenario

SOURCE = "GWA (generalized window advertising)"

#: The §6 schemes, in the paper's order.
SCHEMES = ("DropTail", "RED", "ECN", "GWA-RR", "GWA-FCFS", "BA-FCFS")
#: The schemes with router feedback that the paper finds loss-free at steady state.
LOSS_FREE = ("ECN", "GWA-RR", "GWA-FCFS", "BA-FCFS")
GWA_SCHEMES = ("GWA-RR", "GWA-FCFS", "BA-FCFS")

#: RED (§6): thresholds as fractions of the buffer, max_p.
RED_MIN_FRACTION, RED_MAX_FRACTION, RED_MAX_P = 1 / 12, 3 / 12, 0.1
#: ns-2 (1999-2000) RED default EWMA weight (``q_weight_``).
RED_W_Q = 0.002
TELNET_INTERVAL_S = 0.1
TCP_TICK_S = 0.1
#: access and destination link queues: never the limit.
HOST_QUEUE_PKTS = 10_000
#: "full utilization": bottleneck utilisation within 2% of 1.
FULL_UTILISATION_TOL = 0.02
#: sampling of the transient runs (Figs 6, 8); their queue is averaged
#: over 0.01 s as the paper's.
SAMPLE_S, QUEUE_AVERAGE_S = 0.001, 0.01
#: Figs 6 and 8: the first 3 s (Fig 8's span is not stated; Fig 6's is used).
TRANSIENT_SPAN_S = 3.0

STYLE = {"DropTail": "o-", "RED": "s-", "ECN": "^-", "GWA-RR": "v-", "GWA-FCFS": "D-", "BA-FCFS": "x-"}


def queue(scheme: str, buffer_kb: float) -> Dict[str, Any]:
    """The bottleneck queue table of ``scheme`` with a buffer of
    ``buffer_kb`` kbytes (ns-2's ``queue-limit``, see the package docstring)."""
    limit = int(round(buffer_kb))
    if scheme in ("DropTail", "GWA-FCFS", "BA-FCFS"):
        q: Dict[str, Any] = {"kind": "droptail", "limit_pkts": droptail_waiting(limit)}
        if scheme == "GWA-FCFS":
            q["gwa"] = "fcfs"
        elif scheme == "BA-FCFS":
            q["gwa"] = "ba"
        return q
    if scheme in ("RED", "ECN"):
        q = {"kind": "red", "limit_pkts": limit, "min_th_pkts": RED_MIN_FRACTION * limit,
             "max_th_pkts": RED_MAX_FRACTION * limit, "max_p": RED_MAX_P, "gentle": False, "bytes": False,
             "w_q": RED_W_Q, "wait": True}
        if scheme == "ECN":
            q.update(ecn=True, ecn_mark_above_max=True)
        return q
    if scheme == "GWA-RR":
        return {"kind": "drr", "limit_pkts": limit, "gwa": "rr", "quantum_bytes": PKT_BYTES}
    raise ValueError(f"unknown GWA-paper scheme {scheme!r}; allowed: {', '.join(SCHEMES)}")


def agent(scheme: str, rwnd_pkts: int, **fields: Any) -> Dict[str, Any]:
    """A ``[[flows]]`` dict: ns-2 TCP/Reno as §6 configures it, with the
    scheme's end-host capability (``ecn``, ``gwa`` or ``ba``)."""
    extra: Dict[str, Any] = {}
    if scheme == "ECN":
        # ns-2's TcpAgent: ECT on retransmissions too (output), its own
        # window halving on ECE (ecn, below one segment from under two)
        extra.update(ecn=True, ecn_retransmit_ect=True, ecn_response="ns2")
    elif scheme in ("GWA-RR", "GWA-FCFS"):
        extra["gwa"] = True
    elif scheme == "BA-FCFS":
        extra["ba"] = True
    return flow("Reno", rwnd_pkts=int(rwnd_pkts), clock_granularity_s=TCP_TICK_S, min_rto_s=2 * TCP_TICK_S,
                init_rto_s=3.0, rtt_estimator="ns2", init_cwnd_pkts=1, limited_transmit=False, delayed_ack=False,
                ns2_idle_restart=True, **extra,
                **fields)


def access_delays(n: int, lo_s: float, hi_s: float, seed: int = 1) -> List[float]:
    """tau_i of ``n`` hosts uniform on [lo, hi] (§6.2), rounded to 1 us,
    from a fixed seed so every scheme sees the same delays."""
    rng = random.Random(seed)
    return [round(rng.uniform(lo_s, hi_s), 6) for _ in range(n)]


BOTTLENECK = 0
"""Index of the R1-R2 link in :func:`fig3_topology`'s ``links``."""


def fig3_topology(scheme: str, buffer_kb: float, tau_i: Sequence[float], tau_b: float, tau_r: float,
                  bottleneck_bps: float, access_bps: float) -> Dict[str, Any]:
    """Fig 3: hosts s0.. each on its own access link into r1, the
    bottleneck r1 -> r2 (monitored), r2 to destinations d0.. ."""
    n = len(tau_i)
    host_q = {"kind": "droptail", "limit_pkts": HOST_QUEUE_PKTS}
    links = [{"from": "r1", "to": "r2", "rate_bps": bottleneck_bps, "delay_s": tau_b,
              "queue": queue(scheme, buffer_kb), "monitor": True}]
    for i in range(n):
        links.append({"from": f"s{i}", "to": "r1", "rate_bps": access_bps, "delay_s": tau_i[i], "queue": host_q})
        links.append({"from": "r2", "to": f"d{i}", "rate_bps": access_bps, "delay_s": tau_r, "queue": host_q})
    nodes = [f"s{i}" for i in range(n)] + ["r1", "r2"] + [f"d{i}" for i in range(n)]
    return {"kind": "custom", "nodes": nodes, "links": links}


def fig3_flows(scheme: str, n: int, rwnd_pkts: int, telnet: bool = True) -> List[Dict[str, Any]]:
    """One FTP per host (flow ids 0..n-1), then one Telnet per host
    (ids n..2n-1) on the same route."""
    route = lambda i: ["s%d" % i, "r1", "r2", "d%d" % i]  # noqa: E731
    flows = [agent(scheme, rwnd_pkts, route=route(i)) for i in range(n)]
    if telnet:
        flows += [agent(scheme, rwnd_pkts, route=route(i), app="telnet",
                        app_params={"interval_s": TELNET_INTERVAL_S}) for i in range(n)]
    return flows


@dataclass(frozen=True)
class Setting:
    """One §6 environment: Fig 3 with ``n`` hosts, its delays, rates,
    receiver window (packets of 1000 bytes), run length and warm-up."""

    n: int
    tau_i: Tuple[float, ...]
    tau_b: float
    tau_r: float
    bottleneck_bps: float
    access_bps: float
    rwnd_pkts: int
    duration_s: float
    warmup_s: float
    telnet: bool = True

    def scenario(self, name: str, scheme: str, buffer_kb: float, *, duration_s: Optional[float] = None,
                 warmup_s: Optional[float] = None, sample_interval_s: float = 0.0) -> Dict[str, Any]:
        """A whole run of ``scheme`` at ``buffer_kb`` kbytes (the setting's
        length unless ``duration_s``/``warmup_s`` are given)."""
        topo = fig3_topology(scheme, buffer_kb, self.tau_i, self.tau_b, self.tau_r, self.bottleneck_bps,
                             self.access_bps)
        return scenario(name, self.duration_s if duration_s is None else duration_s, topo,
                        fig3_flows(scheme, self.n, self.rwnd_pkts, self.telnet),
                        warmup_s=self.warmup_s if warmup_s is None else warmup_s,
                        sample_interval_s=sample_interval_s)


#: §6.1: 10 hosts, 100 Mb/s everywhere, tau_i = 30 us, tau_B = 40 us,
#: tau_r = 30 us, receiver buffer 64 kbytes, 25 s with the first 5 s discarded.
LAN = Setting(n=10, tau_i=(30e-6,) * 10, tau_b=40e-6, tau_r=30e-6, bottleneck_bps=100e6, access_bps=100e6,
              rwnd_pkts=64, duration_s=25.0, warmup_s=5.0)
#: §6.2: 155 Mb/s bottleneck, 100 Mb/s access, tau_B = tau_r = 5 ms, tau_i
#: uniform on [1, 10] ms, windows of 512 kbytes; 25 s, first 5 s discarded.
WAN = Setting(n=10, tau_i=tuple(access_delays(10, 1e-3, 10e-3)), tau_b=5e-3, tau_r=5e-3, bottleneck_bps=155e6,
              access_bps=100e6, rwnd_pkts=512, duration_s=25.0, warmup_s=5.0)
#: §6.3: N = 100 FTP connections, every link 10 Mb/s, the §6.2 delays (and
#: windows), no Telnet, 100 s with the first 10 s discarded.
MANY = Setting(n=100, tau_i=tuple(access_delays(100, 1e-3, 10e-3)), tau_b=5e-3, tau_r=5e-3, bottleneck_bps=10e6,
               access_bps=10e6, rwnd_pkts=512, duration_s=100.0, warmup_s=10.0, telnet=False)


def buffer_point(scheme: str, buffer_kb: float) -> Dict[str, Any]:
    """Sweep override: the bottleneck queue of ``scheme`` at ``buffer_kb``."""
    return {f"topology.links.{BOTTLENECK}.queue": queue(scheme, buffer_kb)}


def steady_sweeps(exp_id: str, setting: Setting, schemes: Sequence[str], buffers: Sequence[float]) -> List[Sweep]:
    """One sweep per scheme (named ``exp_id/scheme``) over the buffers
    (kbytes, the labels)."""
    return [Sweep(setting.scenario(f"{exp_id}/{s}", s, buffers[0]), [buffer_point(s, b) for b in buffers],
                  list(buffers)) for s in schemes]


def transient_sweeps(exp_id: str, setting: Setting, schemes: Sequence[str], buffer_kb: float, span_s: float,
                     sample_s: float) -> List[Sweep]:
    """Figs 6/8: one run per scheme over the first ``span_s`` seconds
    (no warm-up; the same run as the steady one up to ``span_s``),
    sampled every ``sample_s``."""
    return [Sweep(setting.scenario(f"{exp_id}-transient/{s}", s, buffer_kb, duration_s=span_s, warmup_s=0.0,
                                   sample_interval_s=sample_s), [{}], [buffer_kb]) for s in schemes]


# -- analysis ---------------------------------------------------------------------


def scenarios_with_transients(exp_id: str, setting: Setting, buffers: Sequence[float],
                              transient_kb: float) -> List[Sweep]:
    """Every scheme over ``buffers``, then every scheme's transient run at
    ``transient_kb`` (what ``gwa-lan`` and ``gwa-wan`` run)."""
    return (steady_sweeps(exp_id, setting, SCHEMES, buffers)
            + transient_sweeps(exp_id, setting, SCHEMES, transient_kb, TRANSIENT_SPAN_S, SAMPLE_S))


def analyse_with_transients(runs, exp_id: str, setting: Setting):
    """The steady table and FTP 0's transients (see :func:`transients`)."""
    from .._kit import Analysis

    return Analysis(table=steady_table(runs, setting, exp_id), trans=transients(runs, 0, QUEUE_AVERAGE_S))


def steady_row(res: Results, n_ftp: int, rate_bps: float) -> Dict[str, Any]:
    """The steady-state measures of Figs 4/5/7/9/10 from one run:
    normalised FTP goodput min/avg/max (goodput / bottleneck rate, §6.1),
    Jain's index of the FTP goodputs, the bottleneck's drop probability,
    marks, average queue, and the Telnet delays (mean over all Telnet
    segments, maximum over all)."""
    flows = res.raw["flows"]
    ftp = [f["goodput_bps"] / rate_bps for f in flows[:n_ftp]]
    tel = [f for f in flows[n_ftp:] if f.get("app_delay_count")]
    count = sum(f["app_delay_count"] for f in tel)
    link = res.bottleneck()
    drops_all = sum(l["drops"] for l in res.raw["links"])
    return {
        "goodput_min": min(ftp), "goodput_avg": float(np.mean(ftp)), "goodput_max": max(ftp),
        "goodput_sum": float(np.sum(ftp)), "ftp_jain": jain(ftp),
        "min_over_max": min(ftp) / max(ftp) if max(ftp) > 0 else math.nan,
        "drop_prob": link["loss_rate"], "drops": link["drops"], "marks": link["marks"],
        "other_link_drops": drops_all - link["drops"],
        "utilization": link["utilization"], "avg_queue_pkts": link["avg_queue_pkts"],
        "max_queue_pkts": link["max_queue_pkts"],
        "telnet_delay_mean_s": (sum(f["app_delay_mean_s"] * f["app_delay_count"] for f in tel) / count
                                if count else math.nan),
        "telnet_delay_max_s": max((f["app_delay_max_s"] for f in tel), default=math.nan),
        "telnet_segments": count,
        "timeouts": sum(f["timeouts"] for f in flows[:n_ftp]),
    }


def _scheme(sweep: Sweep) -> str:
    return str(sweep.base["name"]).split("/")[-1]


def steady_table(runs, setting: Setting, exp_id: str) -> pd.DataFrame:
    """One row per (scheme, buffer) of the :func:`steady_sweeps` named
    ``exp_id`` (with the setting's tau_i listed, so the table says which
    delays were drawn)."""
    rows = []
    for i, s in enumerate(runs.sweeps):
        if not str(s.base["name"]).startswith(f"{exp_id}/"):
            continue
        for buf, res in zip(s.labels, runs.results(i)):
            rows.append({"scheme": _scheme(s), "buffer_kb": buf,
                         **steady_row(res, setting.n, setting.bottleneck_bps)})
    df = pd.DataFrame(rows)
    df["tau_i_ms"] = (" ".join(f"{t * 1e3:.3f}" for t in setting.tau_i) if setting.n <= 10 else
                      f"{setting.n} values on [{min(setting.tau_i) * 1e3:.2f}, {max(setting.tau_i) * 1e3:.2f}]")
    return df


def transients(runs, flow: int, bin_s: float) -> Dict[str, Dict[str, Any]]:
    """Every :func:`transient_sweeps` run by scheme: FTP ``flow``'s window
    series (``cwnd``, ``awnd_pkts`` for GWA/BA agents, and ``window`` =
    min(cwnd, W_a or the receiver window)), the bottleneck queue averaged over ``bin_s`` intervals
    (the series' samples in each interval, i.e. the time average at the
    sampling resolution), the bottleneck's drops and the flow's timeouts."""
    out: Dict[str, Dict[str, Any]] = {}
    for i, s in enumerate(runs.sweeps):
        if "-transient/" not in str(s.base["name"]):
            continue
        res = runs.results(i)[0]
        fs = res.flow_series
        w = fs[fs["flow"] == flow].sort_values("time_s")
        w = w[["time_s", "cwnd"] + (["awnd_pkts"] if "awnd_pkts" in w else [])].reset_index(drop=True)
        # eq. 1's window: min(cwnd, W_a), W_a the receiver window for plain agents
        rwnd = float(s.base["flows"][flow]["rwnd_pkts"])
        w["window"] = np.minimum(w[["cwnd", "awnd_pkts"]].min(axis=1) if "awnd_pkts" in w else w["cwnd"], rwnd)
        ls = res.link_series
        q = ls[ls["link"] == res.bottleneck()["id"]]
        b = np.ceil(q["time_s"].to_numpy() / bin_s - 1e-9) * bin_s
        qa = q.groupby(b)["queue_pkts"].mean().rename_axis("time_s").reset_index()
        out[_scheme(s)] = {"window": w, "queue": qa, "drops": int(res.bottleneck()["drops"]),
                           "timeouts": int(res.raw["flows"][flow]["timeouts"]), "buffer_kb": s.labels[0]}
    return out


# -- checks -------------------------------------------------------------------------


def loss_free_checks(table: pd.DataFrame, schemes: Sequence[str], where: str) -> List[Check]:
    """§6.1/§6.2/§6.3: GWA (every variant) and ECN lose nothing at steady
    state: the largest drop probability over the buffers is 0."""
    out = []
    for s in schemes:
        d = table[table["scheme"] == s]
        out.append(Check(f"{s}: largest steady-state drop probability over buffers ({where})", paper=0.0,
                         ccsim=float(d["drop_prob"].max()), tolerance=0.0, relative=False, source="paper"))
    return out


def fairness_checks(table: pd.DataFrame, schemes: Sequence[str], where: str) -> List[Check]:
    """"Perfect fairness": Jain's index of the FTP goodputs at least 0.99
    and min/max at least 0.9 at every buffer (both stated beside the
    check)."""
    out = []
    for s in schemes:
        d = table[table["scheme"] == s]
        out.append(Check(f"{s}: lowest Jain index of FTP goodputs over buffers ({where}; perfect fairness)",
                         paper=1.0, ccsim=round(float(d["ftp_jain"].min()), 4), tolerance=0.01, source="paper"))
        out.append(Check(f"{s}: lowest min/max FTP goodput over buffers ({where}; perfect fairness)",
                         paper=1.0, ccsim=round(float(d["min_over_max"].min()), 4), tolerance=0.1,
                         source="paper"))
    return out


def near_empty_check(table: pd.DataFrame, where: str, scheme: str = "BA-FCFS") -> List[Check]:
    """§5/§6.1: BA-TCP drives the buffer occupancy to (close to) zero:
    the average queue at most 5% of the buffer at every buffer size."""
    d = table[table["scheme"] == scheme]
    frac = (d["avg_queue_pkts"] / d["buffer_kb"]).max()
    return [Check(f"{scheme}: largest average queue / buffer over buffers ({where}; near-empty buffer)",
                  paper=0.0, ccsim=round(float(frac), 4), tolerance=0.05, relative=False, source="paper")]


def transient_loss_free_checks(trans: Dict[str, Dict[str, Any]], buffer_kb: float) -> List[Check]:
    """§6.1: "GWA schemes exhibit very stable behavior, without packet
    drops even during the initial transient": bottleneck drops of the
    transient runs (no warm-up) are 0."""
    return [Check(f"{s}: bottleneck drops in the first {TRANSIENT_SPAN_S:g} s at {buffer_kb:g} kB "
                  "(no drop in the transient)", paper=0, ccsim=trans[s]["drops"], tolerance=0, relative=False,
                  source="paper") for s in GWA_SCHEMES]


def decade_check(quantity: str, paper: float, ccsim: float, decades: float = 0.5, **kw: Any) -> Check:
    """A rate whose order of magnitude the paper states: deviation is
    |log10(ccsim / paper)|, within ``decades``."""
    dev = abs(math.log10(ccsim / paper)) if ccsim > 0 else math.inf
    return Check(quantity, paper=paper, ccsim=ccsim, deviation=dev, tolerance=decades, relative=False,
                 ok=dev <= decades, **{"source": "paper", **kw})


def plot_steady(axes_row, table: pd.DataFrame, schemes: Sequence[str], rate_label: str = "") -> None:
    """Goodput min/avg/max per scheme (first len(schemes) axes)."""
    from .._kit.figures import style_axes

    for ax, s in zip(axes_row, schemes):
        d = table[table["scheme"] == s].sort_values("buffer_kb")
        ax.plot(d["buffer_kb"], d["goodput_avg"], "o-", label="avg")
        ax.plot(d["buffer_kb"], d["goodput_max"], "^--", label="max")
        ax.plot(d["buffer_kb"], d["goodput_min"], "v--", label="min")
        ax.set_ylim(0, 1.2 * max(float(d["goodput_max"].max()), 1e-9))
        style_axes(ax, "buffer (kbytes)", "goodput / link rate", title=f"{s}{rate_label}")


def plot_loss_delay(axes, table: pd.DataFrame, schemes: Sequence[str], telnet: bool = True) -> None:
    """Fig 5/9: drop probability, Telnet mean and max delay against the buffer."""
    from .._kit.figures import style_axes

    cols = [("drop_prob", "drop probability")]
    if telnet:
        cols += [("telnet_delay_mean_s", "Telnet mean delay (s)"), ("telnet_delay_max_s", "Telnet max delay (s)")]
    for ax, (col, lab) in zip(axes, cols):
        for s in schemes:
            d = table[table["scheme"] == s].sort_values("buffer_kb")
            y = d[col].to_numpy(dtype=float)
            if col == "drop_prob":
                y = np.where(y > 0, y, np.nan)  # zero loss has no place on a log axis
            ax.plot(d["buffer_kb"], y, STYLE[s], label=s, ms=4)
        style_axes(ax, "buffer (kbytes)", lab, ylog=True)


def plot_transients(ax_window, ax_queue, trans: Dict[str, Dict[str, Any]], schemes: Sequence[str],
                    t_max: Optional[float] = None) -> None:
    """Figs 6/8: FTP 0's window min(cwnd, W_a) (W_a the receiver window
    for plain agents) and the averaged bottleneck queue of ``schemes``, over
    [0, ``t_max``] (all of the run if None)."""
    from .._kit.figures import style_axes

    for s in schemes:
        w, q = trans[s]["window"], trans[s]["queue"]
        y = w["window"]
        mw = w["time_s"] <= (t_max or math.inf)
        mq = q["time_s"] <= (t_max or math.inf)
        if ax_window is not None:
            ax_window.plot(w["time_s"][mw], y[mw], lw=0.7, label=s)
        if ax_queue is not None:
            ax_queue.plot(q["time_s"][mq], q["queue_pkts"][mq], lw=0.8, label=s)
    if ax_window is not None:
        style_axes(ax_window, "time (s)", "FTP 0 window min(cwnd, W_a) (pkts)")
    if ax_queue is not None:
        style_axes(ax_queue, "time (s)", "bottleneck queue (pkts, averaged)")


def plot_six_schemes(a, out_dir, exp_id: str, title: str, insert_s: float, log_x: bool = False):
    """The LAN/WAN figure: goodput per scheme (rows 1-2, Figs 4/7), drop
    probability and Telnet delays (row 3, Figs 5/9), windows and queues of
    the transients (rows 4-5, Figs 6/8) with the first ``insert_s`` seconds
    and BA-FCFS's queue magnified."""
    from .._kit.figures import grid, save

    t = a.table
    fig, axes = grid(5, 3, figsize=(13, 17))
    plot_steady(list(axes[0]) + list(axes[1]), t, SCHEMES)
    plot_loss_delay(axes[2], t, SCHEMES)
    if log_x:
        for ax in list(axes[0]) + list(axes[1]) + list(axes[2]):
            ax.set_xscale("log", base=2)
    plot_transients(axes[3][0], axes[4][0], a.trans, SCHEMES[:3])
    plot_transients(axes[3][1], axes[4][1], a.trans, SCHEMES[3:])
    plot_transients(axes[3][2], None, a.trans, SCHEMES, t_max=insert_s)
    plot_transients(None, axes[4][2], a.trans, ("BA-FCFS",))
    axes[3][2].set_title(f"first {insert_s:g} s", fontsize=9)
    axes[4][2].set_title("BA-FCFS queue, magnified", fontsize=9)
    fig.suptitle(title)
    return save(fig, out_dir, exp_id)


__all__ = ["SOURCE", "SCHEMES", "LOSS_FREE", "GWA_SCHEMES", "FULL_UTILISATION_TOL", "Setting", "LAN", "WAN",
           "MANY", "queue", "agent", "access_delays", "fig3_topology", "fig3_flows", "buffer_point", "steady_sweeps",
           "transient_sweeps", "scenarios_with_transients", "analyse_with_transients", "steady_row", "steady_table",
           "transients", "loss_free_checks", "fairness_checks", "near_empty_check", "transient_loss_free_checks",
           "decade_check", "plot_steady", "plot_loss_delay", "plot_transients", "plot_six_schemes"]
