"""``gwa-ns2``: the GWA paper's DropTail, RED and ECN rows in ccsim against
a recorded ns-2.35 run of the same scenarios (checks of source ``ns-2``).

The paper ran ns-2 (§6); GWA itself is not in ns-2.35, but the traditional
schemes it compared against are. ``validation/gwa_compare.py`` runs them in
ns-2.35 (``validation/gwa_topology.tcl``) and in ccsim and records both in
``ns2_reference.json`` beside this module (docs/validation.md, "GWA paper
rows", has the schema and the settings). This experiment re-runs the ccsim
side of every recorded row, the same scenarios (built here, by
:func:`scenario`, which the driver also uses) and the same seeds, and
compares with the recorded ns-2 numbers; CI has no ns-2, so ns-2's side is
read from the file (its date and versions are in it).

Settings (:data:`SETTINGS`): ``gwa-lan`` (§6.1) 10 hosts, 100 Mb/s
everywhere, LAN delays, 64-segment windows, an FTP and a Telnet per host,
25 s measured after 5 s, buffers 30-240 kB; ``gwa-many-flows`` (§6.3) 100
FTPs, 10 Mb/s everywhere, WAN delays, 512-segment windows, 100 s measured
after 10 s, buffers 200-800 kB. TCP is configured as the authors' ns-2 had
it (``windowInit_`` 1, 0.1 s tick with ns-2's RTT estimator, no delayed
ACKs, Reno) and ECN as ns-2's ``TcpAgent`` does it (ECT on
retransmissions, ECE halving the window unrounded, below one segment from under two).
The run is as close to ns-2's own as ccsim can make it: Reno's window as
ns-2's ``RenoTcpAgent`` keeps it (``ns2_dupwnd``), its retransmit timer
restarted at every ACK, which restarts an idle Telnet's window at one
segment (``ns2_idle_restart``), every link in ns-2's
event order (``ties = "ns2"``: arrivals and resumes scheduled at
transmission starts, so simultaneous arrivals from different hosts, which
the LAN's equal delays make frequent, run in ns-2's order), and RED's and
Telnet's draws from ns-2's default random stream seeded with the row's
seed (``rng = "ns2"``, with the agents' ``boot_time_`` draws before them),
so a seed's first events are ns-2's own (docs/validation.md).

Checks, per setting, scheme and buffer, on the mean over the recorded seeds
(1-3): average FTP goodput, drop probability, time-average queue and
maximum queue, each within 10% of ns-2's (relative; where ns-2's is 0,
ccsim's must be 0). Minimum and maximum goodput over flows, CE marks and
timeouts are in the table, not checked: extremes of 10 or 100 flows vary
strongly between seeds, and ns-2's ``nrexmit_`` does not count a timeout
with nothing outstanding or in an ECN recovery as ccsim's ``timeouts``
does. ``--quick`` runs the same rows (the whole experiment takes about
15 s: 63 runs).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Dict, List

import pandas as pd

from ..._native import UserError
from .. import Check
from .._kit import Analysis, Runs, Sweep, ns2ref
from .._kit.figures import grid, save, style_axes

ID = "gwa-ns2"
SOURCE = "GWA (generalized window advertising), §6 DropTail/RED/ECN rows vs ns-2.35"
DESCRIPTION = ("gwa-lan and gwa-many-flows DropTail, RED and ECN rows in ccsim against a recorded ns-2.35 run "
               "of the same scenarios: goodput, drop probability, average and maximum queue")

REFERENCE = Path(__file__).with_name("ns2_reference.json")
MSS, HDR = 1000, 40
#: FTP start times uniform on [0, START_SPREAD_S]: the paper starts them "at the beginning".
START_SPREAD_S = 0.1
TELNET_INTERVAL_S = 0.1
SETTINGS: Dict[str, Dict[str, Any]] = {
    "gwa-lan": dict(n=10, rate_b=100e6, rate_a=100e6, tau_b=40e-6, tau_r=30e-6, tau_i=(30e-6, 30e-6),
                    window=64, telnet=True, rto_diag=True, dur=25.0, warm=5.0, buffers_kb=[30, 60, 120, 240]),
    "gwa-many-flows": dict(n=100, rate_b=10e6, rate_a=10e6, tau_b=5e-3, tau_r=5e-3, tau_i=(1e-3, 10e-3),
                           window=512, telnet=False, rto_diag=False, dur=100.0, warm=10.0,
                           buffers_kb=[200, 400, 800]),
}
#: ``validation/gwa_compare.py --quick``: one short row per setting.
QUICK = {"gwa-lan": dict(dur=8.0, warm=3.0, buffers_kb=[60]),
         "gwa-many-flows": dict(dur=30.0, warm=10.0, buffers_kb=[200])}
SCHEMES = ["droptail", "red", "ecn"]
METRICS = ["goodput_avg", "goodput_min", "goodput_max", "drop_prob", "marks", "avg_queue_pkts",
           "max_queue_pkts", "timeouts"]
#: The metrics checked, and the tolerance (relative to ns-2's value).
CHECKED = ("goodput_avg", "drop_prob", "avg_queue_pkts", "max_queue_pkts")
TOL = 0.10
PAPER = {"reference": str(REFERENCE.name), "checked": CHECKED, "tolerance": TOL}


def buffer_pkts(kb: float) -> int:
    """A buffer of B kbytes holds B MSS packets (§6: sizes in kbytes, MSS
    1000 bytes; the queues of 1999's ns-2 count packets)."""
    return int(kb)


def draw(st: Dict[str, Any], seed: int):
    """Per-host access delays tau_i and FTP start times, shared by ns-2 and ccsim."""
    rng = random.Random(seed)
    lo, hi = st["tau_i"]
    taus = [rng.uniform(lo, hi) for _ in range(st["n"])]
    starts = [rng.uniform(0.0, START_SPREAD_S) for _ in range(st["n"])]
    return taus, starts


def queue(scheme: str, buf: int) -> Dict[str, Any]:
    """The bottleneck queue: DropTail, or RED with thresholds 1/12 and 3/12
    of the buffer, max_p 0.1, not gentle, w_q 0.002, packet mode (the 1999
    ns-2 RED), marking ECT packets above max_th too for ECN (footnote 7)."""
    if scheme == "droptail":
        return {"kind": "droptail", "limit_pkts": buf}
    ecn = scheme == "ecn"
    return {"kind": "red", "limit_pkts": buf, "min_th_pkts": buf / 12, "max_th_pkts": 3 * buf / 12, "max_p": 0.1,
            "w_q": 0.002, "gentle": False, "wait": True, "bytes": False, "mean_pktsize": 500,
            "ecn": ecn, "ecn_mark_above_max": ecn}


def scenario(st: Dict[str, Any], scheme: str, buf: int, seed: int, estimator: str = "ns2") -> Dict[str, Any]:
    """Fig 3's network as a custom topology, as validation/gwa_topology.tcl
    builds it in ns-2: hosts s_i -> r0 (tau_i), r0 -> r1 (the scheme's
    queue, tau_B), r1 -> d_i (tau_r); FTPs first, then Telnets. Every queue
    runs its events in ns-2's order (``ties = "ns2"``), RED and Telnet
    draw from ns-2's random stream (``rng = "ns2"``), and each agent gets
    the tick phase ns-2 drew for it from that stream, DropTail rows too
    (``ns2_boot_order`` in ns-2's node reset order,
    :func:`.._kit.ns2ref.boot_order`: on host s_i the FTP agent, then the
    Telnet agent, as attached)."""
    taus, starts = draw(st, seed)
    n = st["n"]
    edge = {"kind": "droptail", "limit_pkts": 1000}
    bneck = queue(scheme, buf)
    if bneck["kind"] == "red":
        bneck["rng"] = "ns2"
    links = [{"from": "r0", "to": "r1", "rate_bps": st["rate_b"], "delay_s": st["tau_b"],
              "queue": bneck, "monitor": True}]
    flows, tel = [], []
    tcp = {"cc": "reno", "recovery": "reno", "delayed_ack": False, "mss_bytes": MSS, "header_bytes": HDR,
           "init_cwnd_pkts": 1, "rwnd_pkts": st["window"], "clock_granularity_s": 0.1, "min_rto_s": 0.2,
           "init_rto_s": 3.0, "rtt_estimator": estimator, "ecn": scheme == "ecn",
           "ns2_bugfix": True, "halve_on_repeated_rto": True, "syn": "ns2", "ns2_idle_restart": True,
           # tcp.cc opencwnd: +1 per ACK below ssthresh_, passing it
           "cc_params": {"slow_start": "ns2"},
           # ns-2's RenoTcpAgent: Limited Transmit after a timeout too
           # (singledup_, tcp-reno.cc send_one; limited transmit is on, as
           # singledup_ 1 in ns-2.35), unrounded halving, dupwnd_ kept
           # apart and dropped (not deflated) at the first new ACK
           **ns2ref.NS2_RENO}
    if scheme == "ecn":
        # ns-2's TcpAgent: ECT on every data packet (output), its own ECE halving (ecn)
        tcp.update(ecn_retransmit_ect=True, ecn_response="ns2")
    for i in range(n):
        links.append({"from": f"s{i}", "to": "r0", "rate_bps": st["rate_a"], "delay_s": taus[i], "queue": edge})
        links.append({"from": "r1", "to": f"d{i}", "rate_bps": st["rate_a"], "delay_s": st["tau_r"], "queue": edge})
        route = [f"s{i}", "r0", "r1", f"d{i}"]
        flows.append(dict(tcp, route=route, start_s=starts[i]))
        if st["telnet"]:
            tel.append(dict(tcp, route=route, start_s=0.0, app="telnet",
                            app_params={"interval_s": TELNET_INTERVAL_S, "rng": "ns2"}))
    nodes = ["r0", "r1"] + [f"s{i}" for i in range(n)] + [f"d{i}" for i in range(n)]
    sc = {"name": f"gwa-ns2-{scheme}-{buf}", "seed": seed, "duration_s": st["dur"], "warmup_s": st["warm"],
          "sample_interval_s": 0.0,
          "topology": ns2_order(ns2ref.ns2_topology({"kind": "custom", "nodes": nodes, "links": links})),
          "flows": flows + tel}
    # every agent's tick phase from ns-2's stream, in ns-2's order (on a
    # DropTail row without Telnets these are the stream's only draws)
    sc["ns2_boot_order"] = ns2ref.boot_order(n, 2 if st["telnet"] else 1)
    # ties broken by ns-2's floating-point clock, not by scheduling order
    sc["ns2_clock"] = True
    return sc


def ns2_order(topo: Dict[str, Any]) -> Dict[str, Any]:
    """``topo`` (a custom topology) with every queue in ns-2's own event
    order, ``ties = "ns2"``."""
    return dict(topo, links=[dict(l, queue={**l["queue"], "ties": "ns2"}) for l in topo["links"]])


def measure(raw: Dict[str, Any], st: Dict[str, Any]) -> Dict[str, Any]:
    """A run's raw counters: FTP goodputs (fractions of the bottleneck
    rate), the r0 -> r1 link's arrivals, drops, marks, average and maximum
    queue, and every agent's timeouts."""
    link = next(x for x in raw["links"] if x["from"] == "r0" and x["to"] == "r1")
    ftp = raw["flows"][: st["n"]]
    return {"goodput": [f["goodput_bps"] / st["rate_b"] for f in ftp], "arrivals": link["arrivals"],
            "drops": link["drops"], "marks": link["marks"], "avg_queue_pkts": link["avg_queue_pkts"],
            "max_queue_pkts": link["max_queue_pkts"], "timeouts": sum(f["timeouts"] for f in raw["flows"])}


def summarise(x: Dict[str, Any]) -> Dict[str, float]:
    """:data:`METRICS` of one run's counters (either simulator's)."""
    g = x["goodput"]
    return {"goodput_avg": sum(g) / len(g), "goodput_min": min(g), "goodput_max": max(g),
            "drop_prob": x["drops"] / max(x["arrivals"], 1), "marks": x["marks"],
            "avg_queue_pkts": x["avg_queue_pkts"], "max_queue_pkts": x["max_queue_pkts"],
            "timeouts": x["timeouts"]}


def mean(rows: List[Dict[str, float]]) -> Dict[str, float]:
    return {k: sum(r[k] for r in rows) / len(rows) for k in METRICS}


def reference() -> Dict[str, Any]:
    """The recorded run; a named error when it is missing, quick, or was
    recorded with other settings than :data:`SETTINGS` (then its scenarios
    are not the ones this module builds)."""
    try:
        ref = json.loads(REFERENCE.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise UserError(f"{REFERENCE}: cannot read the recorded ns-2 run ({e}); "
                        "re-record it with python -m validation.gwa_compare --out "
                        f"{REFERENCE}") from None
    if ref.get("quick"):
        raise UserError(f"{REFERENCE}: recorded with --quick; gwa-ns2 compares with the full rows")
    for name, st in ref.get("settings", {}).items():
        mine = json.loads(json.dumps(SETTINGS.get(name)))
        if st != mine:
            raise UserError(f"{REFERENCE}: setting {name!r} was recorded as {st}, but this module builds {mine}; "
                            "re-record it with python -m validation.gwa_compare")
    return ref


def _rows(quick: bool) -> List[Dict[str, Any]]:
    """The recorded rows (quick or not: all of them, ~10 s of runs)."""
    return list(reference()["rows"])


def scenarios(quick: bool) -> List[Sweep]:
    # One sweep per seed: the seed also draws the tau_i and start times
    # that scenario() writes into the topology and flows.
    seeds = reference()["seeds"]
    return [Sweep(scenario(SETTINGS[r["setting"]], r["scheme"], r["buffer_pkts"], s), [{}],
                  [(r["setting"], r["scheme"], r["buffer_kb"], s)]) for r in _rows(quick) for s in seeds]


def analyse(runs: Runs, quick: bool) -> Analysis:
    ref = {(r["setting"], r["scheme"], r["buffer_kb"]): r for r in _rows(quick)}
    per_row: Dict[tuple, List[Dict[str, float]]] = {}
    for s, frame in zip(runs.sweeps, runs.frames):
        for (setting, scheme, kb, _), key in zip(s.labels, frame["key"]):
            m = summarise(measure(runs.load(key).raw, SETTINGS[setting]))
            per_row.setdefault((setting, scheme, kb), []).append(m)
    rows = []
    for (setting, scheme, kb), per_seed in per_row.items():
        ccsim = mean(per_seed)
        rec = ref[(setting, scheme, kb)]
        row: Dict[str, Any] = {"setting": setting, "scheme": scheme, "buffer_kb": kb, "seeds": len(per_seed)}
        for k in METRICS:
            row[f"ns2_{k}"] = rec["ns2"][k]
            row[f"ccsim_{k}"] = ccsim[k]
            row[f"recorded_ccsim_{k}"] = rec["ccsim"][k]
        rows.append(row)
    return Analysis(table=pd.DataFrame(rows))


def checks(a: Analysis, quick: bool) -> List[Check]:
    out = []
    for r in a.table.itertuples(index=False):
        for k in CHECKED:
            ns2, mine = float(getattr(r, f"ns2_{k}")), float(getattr(r, f"ccsim_{k}"))
            out.append(Check(f"{r.setting} {r.scheme} {int(r.buffer_kb)} kB: {k} (mean of {r.seeds} seeds)",
                             paper=ns2ref.sig6(ns2), ccsim=ns2ref.sig6(mine), tolerance=TOL, source="ns-2"))
    # The record's own ccsim column came from the same scenarios: if this
    # run differs, the engine changed since ns-2's side was recorded and
    # the comparison should be re-recorded (validation/gwa_compare.py).
    t = a.table
    worst = max(abs(t[f"ccsim_{k}"] - t[f"recorded_ccsim_{k}"]).div(t[f"recorded_ccsim_{k}"].abs().where(
        t[f"recorded_ccsim_{k}"] != 0, 1.0)).max() for k in METRICS)
    out.append(Check("ccsim now vs the ccsim column recorded beside ns-2 (largest relative difference over rows "
                     "and metrics; 0 = the record is current)", paper=0.0, ccsim=float(worst), relative=False,
                     tolerance=1e-9, source="consistency"))
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    t = a.table
    fig, axes = grid(1, len(CHECKED), figsize=(4 * len(CHECKED), 4.2))
    marker = {"droptail": "o", "red": "s", "ecn": "^"}
    colour = {"gwa-lan": "C0", "gwa-many-flows": "C3"}
    for ax, k in zip(axes[0], CHECKED):
        for (setting, scheme), d in t.groupby(["setting", "scheme"]):
            ax.plot(d[f"ns2_{k}"], d[f"ccsim_{k}"], marker[scheme], color=colour[setting], mfc="none",
                    label=f"{setting[4:]} {scheme}")
        lo = min(t[f"ns2_{k}"].min(), t[f"ccsim_{k}"].min())
        hi = max(t[f"ns2_{k}"].max(), t[f"ccsim_{k}"].max())
        ax.plot([lo, hi], [lo, hi], "k-", lw=0.5)
        ax.fill_between([lo, hi], [lo * (1 - TOL), hi * (1 - TOL)], [lo * (1 + TOL), hi * (1 + TOL)],
                        color="0.9", zorder=0)
        log = k == "avg_queue_pkts" and lo > 0
        style_axes(ax, f"ns-2.35: {k}", f"ccsim: {k}", xlog=log, ylog=log, title=k,
                   legend=7 if k == CHECKED[0] else None)
    fig.suptitle("GWA paper DropTail / RED / ECN rows: ccsim vs ns-2.35 (grey: ±10%)")
    return save(fig, out_dir, ID)
