"""ccsim's BBR v1 against ns-3 3.44's ``TcpBbr``: BBR alone and BBR against
CUBIC on drop-tail buffers of 0.5, 1, 2 and 8 BDP, side by side.

Called by the validation driver (``python -m validation.run --peer
ns3-bbr``) like :mod:`validation.ns3_aqm`, whose installation, build and
measurement helpers it reuses (the same ``validation/ns3/dumbbell.cc``, run
with ``--types`` for each flow's TCP, ``--queueStats`` for the bottleneck
queue's per-packet wait and ``--cwndStats`` for each flow's window). Every
setting of both sides is mapped in :data:`DEFAULTS` (one row per item,
saying which side moved) and :data:`CONTROLLERS`, so the tables in
docs/validation.md are generated from the data the runs use.

The network is the ns-3 suites' dumbbell (flows 1/N s apart, 1448-byte
segments, 54 bytes of headers, 1000-packet access buffers) at 100 Mb/s with
a 5 ms bottleneck and access links 10x the bottleneck, RTT 40 ms (a BDP of
333 packets); plus ns-3's own ``examples/tcp/tcp-bbr-example.cc`` path (10
Mb/s, 10 ms bottleneck, 1 Gb/s access links of 5 ms, RTT 40 ms, a
100-packet buffer). The bottleneck buffer is a drop-tail of B packets on
both sides: in ns-3 the device's DropTail queue with no queue disc above it
(as :mod:`validation.ns3_suite`; B packets wait, the one being serialised is
not counted: ccsim's ``limit_pkts``). Both sides count over ``[warmup_s,
duration_s]`` (the last two thirds):

* utilisation: wire bytes whose serialisation started x 8 / (rate x window);
* BBR's share: its in-order delivered bytes over all flows'; Jain's index;
* loss: packets dropped at the full buffer / packets offered to it;
* retransmitted segments and retransmission timeouts, all flows;
* queue delay, median and p99, over the packets whose transmission started
  in the window (ns-3: the device queue's enqueue to dequeue, which is the
  start of transmission; ccsim: ``+`` to ``-`` in the bottleneck's ns-2
  trace), and the time-average number waiting;
* BBR's window: its time-average over the window in segments, and its
  ProbeRTT dips over the whole run: the intervals during which cwnd stayed
  at 4 segments or below for at least :data:`PROBE_RTT_MIN_S` (ProbeRTT
  holds it at 4 for 200 ms and a round; a timeout's window of 1 grows back
  within a round or two and is not counted) (ns-3: its ``CongestionWindow``
  trace, a value counted once held; ccsim: the flow series' ``cwnd`` every
  5 ms).
"""
from __future__ import annotations

import json
import pathlib
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from validation import ns3_aqm, ns3_suite
from validation.ns3_suite import (  # the same peer, installation, build and helpers
    HEADER_BYTES,
    MSS,
    PKT_BYTES,
    TOLERANCE,
    Default,
    _rate,
    _write,
    install,
    installed,
    jain,
    rel_diff,
)

__all__ = ["NAME", "installed", "install", "run", "markdown", "defaults_markdown", "SCENARIOS", "QUICK"]

NAME = "ns3-bbr"
RESULTS = "ns3-bbr.json"
EDGE_BUFFER_PKTS = ns3_suite.EDGE_BUFFER_PKTS
#: ccsim's flow series interval for the window (ProbeRTT lasts 200 ms and more)
CWND_SAMPLE_S = 0.005
#: the least time at 4 segments or below that counts as a ProbeRTT dip
#: (ProbeRTT holds cwnd at 4 for at least 200 ms; a start-up recovery's
#: dips last up to about 100 ms, a timeout's a round or two)
PROBE_RTT_MIN_S = 0.2
#: ccsim's seeds: each draws BBR's ProbeBW entry phases anew (seed 1 is the
#: compared run); ns-3's one draw is its UniformRandomVariable stream 4
SEEDS = tuple(range(1, 9))
#: The experimental ns-3 (validation/ns3/bbr_linux.cc) and its three
#: behaviours of Linux's BBR, each an environment variable
LINUX_SOURCE = pathlib.Path(__file__).resolve().parent / "ns3" / "bbr_linux.cc"
LINUX_BEHAVIOURS = {
    "NS3BBR_RATE_SAMPLE": "a delivery-rate sample per ACK from that ACK's own newest delivered segment",
    "NS3BBR_MINRTT_LT": "RTprop renewed only by a lower RTT sample (`<`)",
    "NS3BBR_RESTORE": "the saved cwnd restored when fast recovery ends",
}

#: Linux's Startup gain, 739/256 (``bbr_high_gain``); ns-3's ``HighGain``
#: attribute is set to it, and ccsim's Drain gain to ns-3's 1/HighGain.
HIGH_GAIN = 739 / 256

CONTROLLERS: Dict[str, dict] = {
    "bbr": {
        "ns3": "ns3::TcpBbr",
        "cc": "bbr",
        # ns-3 drains at 1/HighGain (TcpBbr::EnterDrain), ccsim (Linux) at
        # 88/256 = 0.344; ns-3 has no attribute for it, so ccsim moves.
        # ns-3's TcpBbr has no policer detection (Linux's long-term
        # bandwidth sampling): ccsim turns its own off.
        "cc_params": {"drain_gain": 1 / HIGH_GAIN, "lt_bw": False},
        # ns-3's HighGain is 2.89; Linux's (and ccsim's) 739/256 = 2.8867.
        "ns3_attrs": {"ns3::TcpBbr::HighGain": repr(HIGH_GAIN)},
        "pacing": "rate",
    },
    # CUBIC as the AQM comparison maps it (HyStart off in ns-3, RFC 8312's
    # W_est and segment counting in ccsim), unpaced on both sides.
    "cubic": dict(ns3_aqm.CONTROLLERS["cubic"], pacing="none"),
}

DEFAULTS: List[Default] = [
    ns3_suite.LINUX_TCP_ROWS["segment"],
    Default("header and framing bytes per data packet", "20 IPv4 + 20 TCP + 12 timestamps + 2 PPP = 54 B",
            "40 B (`header_bytes`)", "54 B", "ccsim", {}, {"header_bytes": HEADER_BYTES}),
    ns3_suite.LINUX_TCP_ROWS["iw"],
    ns3_suite.LINUX_TCP_ROWS["min_rto"],
    ns3_suite.LINUX_TCP_ROWS["clock"],
    ns3_suite.LINUX_TCP_ROWS["retries"],
    # As in the other ns-3 comparisons: with ns-3's delayed ACKs and a
    # 0.2 s minimum RTO, ns-3 3.44 can lock a (CUBIC) flow at one segment
    # per timeout (docs/validation.md, "ns-3: AQMs and DCTCP"); every
    # segment is ACKed on both sides.
    Default("delayed ACKs", "every 2nd segment, 200 ms timer (`DelAckCount` 2)",
            "every 2nd segment, each at once for the first 16 and while the receive window grows,"
            " adaptive 40-200 ms timer (`delack_model = \"linux\"`)",
            "every segment (ns-3 `DelAckCount` 1, ccsim `delayed_ack = false`): no ACK carries two "
            "segments, so BBR's delivery samples and ACK-aggregation estimate see no ACK compression",
            "both", {"ns3::TcpSocket::DelAckCount": "1"}, {"delayed_ack": False}),
    Default("SACK, loss recovery", "SACK on, PRR (`TcpPrrRecovery`)", "RFC 6675 SACK (`recovery = \"sack\"`), PRR off (`prr = false`)",
            "SACK; ns-3 `TcpClassicRecovery` (CUBIC: cwnd = ssthresh on entry, as ccsim). BBR sets cwnd itself "
            "on both sides (Linux `cong_control`: ns-3 calls no recovery algorithm for it) but ns-3 still sets "
            "cwnd = ssthresh when fast recovery ends (below, cause 3)", "ns-3",
            {"ns3::TcpL4Protocol::RecoveryType": "ns3::TcpClassicRecovery", "ns3::TcpSocketBase::Sack": "true"},
            {"recovery": "sack"}),
    ns3_suite.LINUX_TCP_ROWS["limited_transmit"],
    Default("RTT samples (BBR's RTprop, the RTO)",
            "from timestamps in whole milliseconds (`TcpOptionTS::NowToTsValue`): 40 or 41 ms on an empty "
            "40.2 ms path; `TcpBbr` renews RTprop on a sample **equal** to it (`<=`)",
            "exact (picoseconds); `bbr` renews RTprop only on a lower sample (`<`, Linux)", "as is",
            "neither (ns-3 cannot be set finer)", {}, {"rtt_estimator": "rfc6298"}),
    Default("pacing", "`TcpSocketState::EnablePacing` false; `TcpBbr` turns it on for its own socket; the first "
            "10 segments unpaced (`PaceInitialWindow` false); one segment per pacing-timer expiry, the timer "
            "from the payload size at the pacing rate; `MaxPacingRate` 4 Gb/s",
            "`pacing = \"rate\"` for `bbr` (Linux's earliest departure time with half a segment of credit; the "
            "first 9 segments unpaced), none for `cubic`",
            "BBR paced, CUBIC not, on both sides (4 Gb/s is never reached)", "none (same)"),
    Default("BBR's gains", "`HighGain` 2.89 (Startup, and Drain at 1/2.89 = 0.346); ProbeBW 1.25, 0.75, 1 x 6",
            "`high_gain` 739/256 = 2.8867, `drain_gain` 88/256 = 0.3438 (Linux)",
            "2.8867 and 1/2.8867 = 0.3464", "both (ns-3 `HighGain`; ccsim `drain_gain`)"),
    Default("BBR's quantization budget", "3 segments (a send quantum of 1), +2 in the 1.25 phase, in bytes",
            "3 segments rounded up to even (Linux, for delayed ACKs), +2 in the 1.25 phase", "as is",
            "neither (a named difference, below)"),
    Default("BBR's ACK-aggregation allowance", "`AckEpochAckedResetThresh` 4096 bytes: the epoch restarts "
            "every third ACK, so the allowance is at most 2 segments", "Linux's: epochs reset at 2^20 "
            "segments, the allowance up to BtlBw x 100 ms", "as is", "neither (a named difference, below)"),
    Default("BBR's policer detection", "none", "Linux's long-term bandwidth sampling (`bbr_lt_bw_sampling`): two "
            "consistent intervals with 20% of their deliveries lost pin the bandwidth to their rate for 48 rounds",
            "none", "ccsim (`cc_params.lt_bw = false`)"),
    Default("BBR's random start of ProbeBW", "`UniformRandomVariable` stream 4 (`TcpBbr::Stream`): phase 3-7 "
            "or 0", "the flow's controller stream (seed 1): phase 2-7 or 0 (Linux)", "as is",
            "neither (another draw)"),
    ns3_suite.LINUX_TCP_ROWS["cubic"],
    Default("bottleneck buffer", "pfifo_fast queue disc (1000 packets) above a 100-packet DropTail device queue",
            "one DropTail of `limit_pkts` waiting packets, the one in service not counted",
            "no queue disc (`TrafficControlHelper::Uninstall`), device DropTail of B packets (B wait); "
            "tcp-bbr-example's row: 100 (the example: a 100-packet FIFO disc above a 1-packet device queue, "
            "101 places)", "ns-3"),
    ns3_suite.LINUX_TCP_ROWS["ties"],
    Default("connection set-up", "three-way handshake; the SYN's RTT seeds BBR's first pacing rate and (ns-3) its "
            "bandwidth filter with 10 segments / 40 ms", "no handshake: data at `start_s`; the first ACK's RTT "
            "seeds the pacing rate, the filter starts empty (Linux)", "as is", "neither (differs)"),
    ns3_suite.LINUX_TCP_ROWS["buffers"],
    ns3_suite.LINUX_TCP_ROWS["application"],
]

COMMON_NS3_ARGS, COMMON_CCSIM_FIELDS = ns3_suite.mapped(DEFAULTS)

#: The TCP of docs/decisions/2026-11-27-bbr-share-against-ware-model.md, for
#: the long runs' second set: ns-3's defaults for ACKs, recovery and the RTO
#: (a delayed ACK every 2nd segment or after 200 ms, PRR, a 1 s minimum RTO:
#: with delayed ACKs and 0.2 s ns-3 3.44 can lock CUBIC at one segment per
#: timeout, "ns-3: AQMs and DCTCP") and ccsim's Linux delayed ACKs
#: (modern-bbr-buffer's ``TODAY_TCP``; its minimum RTO 0.2 s).
DELACK = {"ns3": {"ns3::TcpSocket::DelAckCount": "2", "ns3::TcpL4Protocol::RecoveryType": "ns3::TcpPrrRecovery",
                  "ns3::TcpSocketBase::MinRto": "1s"},
          "ccsim": {"delayed_ack": True, "delack_model": "linux"}}


def bdp_pkts(rate_bps: float, rtt_s: float) -> float:
    """The bandwidth-delay product in full-size packets (1502 bytes), unrounded."""
    return rate_bps * rtt_s / (8 * PKT_BYTES)


@dataclass(frozen=True)
class Scenario:
    id: str
    description: str
    #: each flow's controller, in start order (1/N s apart)
    controllers: Tuple[str, ...]
    rate_bps: float
    rtt_s: float
    buffer_pkts: int
    duration_s: float
    bneck_delay_s: float = ns3_suite.BNECK_DELAY_S
    #: access links; None: 10 x the bottleneck
    edge_rate_bps: Optional[float] = None
    #: the buffer in BDPs the row is named for (None: given in packets)
    bdp_mult: Optional[float] = None
    #: the decision record's ACKs and recovery instead of the mapping's
    #: (:data:`DELACK`: ns-3's delayed ACKs and PRR, ccsim's Linux delayed
    #: ACKs; the long runs only)
    delack: bool = False

    @property
    def warmup_s(self) -> float:
        return round(self.duration_s / 3.0, 6)

    @property
    def edge_rate(self) -> float:
        return self.edge_rate_bps if self.edge_rate_bps is not None else 10 * self.rate_bps

    @property
    def n_flows(self) -> int:
        return len(self.controllers)

    def starts(self) -> List[float]:
        return ns3_suite.staggered_starts(self.n_flows)

    def params(self) -> dict:
        return {"controllers": list(self.controllers), "rate_bps": self.rate_bps, "rtt_s": self.rtt_s,
                "buffer_pkts": self.buffer_pkts, "duration_s": self.duration_s, "warmup_s": self.warmup_s,
                "bottleneck_delay_s": self.bneck_delay_s, "edge_rate_bps": self.edge_rate,
                "mss_bytes": MSS, "header_bytes": HEADER_BYTES, **({"delack": True} if self.delack else {})}

    # ---- the ns-3 side ------------------------------------------------
    def ns3_args(self) -> List[str]:
        buf = ns3_suite.socket_buffer_bytes(self.rate_bps, self.rtt_s, self.buffer_pkts)
        attrs = dict(COMMON_NS3_ARGS)
        attrs.update({"ns3::TcpSocket::SndBufSize": str(buf), "ns3::TcpSocket::RcvBufSize": str(buf)})
        for c in dict.fromkeys(self.controllers):
            attrs.update(CONTROLLERS[c]["ns3_attrs"])
        if self.delack:
            attrs.update(DELACK["ns3"])
        return ns3_suite.dumbbell_ns3_args(
            self.rate_bps, self.edge_rate, self.bneck_delay_s, self.buffer_pkts, [self.rtt_s] * self.n_flows,
            self.starts(), self.duration_s, self.warmup_s, attrs,
            ["--types=" + ",".join(CONTROLLERS[c]["ns3"] for c in self.controllers), "--queueStats=1",
             "--cwndStats=1"])

    # ---- the ccsim side -----------------------------------------------
    def ccsim_scenario(self) -> dict:
        more = DELACK["ccsim"] if self.delack else {}
        flows = [ns3_suite.ccsim_flow(COMMON_CCSIM_FIELDS, CONTROLLERS[c]["cc"], CONTROLLERS[c]["cc_params"],
                                      self.rtt_s, start, pacing=CONTROLLERS[c]["pacing"], **more)
                 for c, start in zip(self.controllers, self.starts())]
        return ns3_suite.dumbbell_ccsim(
            f"ns3-bbr-{self.id}", self.duration_s, self.warmup_s, self.rate_bps, self.edge_rate, self.bneck_delay_s,
            {"kind": "droptail", "limit_pkts": self.buffer_pkts}, flows, sample_interval_s=CWND_SAMPLE_S)

M10, M100, RTT = 10e6, 100e6, 0.04
BDP100 = bdp_pkts(M100, RTT)  # 332.9 packets
BUFFERS = (0.5, 1.0, 2.0, 8.0)


def _row(ctls: Tuple[str, ...], mult: float) -> Scenario:
    who = "BBR alone" if ctls == ("bbr",) else "BBR against CUBIC"
    tag = "bbr" if ctls == ("bbr",) else "bbr-cubic"
    return Scenario(f"{tag}-{mult:g}bdp", f"{who}, {mult:g} BDP", ctls, M100, RTT, round(mult * BDP100), 30.0,
                    bdp_mult=mult)


SCENARIOS: List[Scenario] = (
    [_row(("bbr",), m) for m in BUFFERS]
    + [_row(("bbr", "cubic"), m) for m in BUFFERS]
    # examples/tcp/tcp-bbr-example.cc's path (its Linux comparison in ns-3's
    # TCP documentation): 10 Mb/s, 10 ms, 1 Gb/s access links of 5 ms
    + [Scenario("bbr-10m-example", "BBR alone, tcp-bbr-example's path (10 Mb/s, 100 packets = 3 BDP)", ("bbr",),
                M10, RTT, 100, 30.0, bneck_delay_s=0.01, edge_rate_bps=1e9)]
)

QUICK = Scenario("quick-bbr-cubic-10m", "BBR against CUBIC, 10 Mb/s, 1 BDP, 6 s (quick check)", ("bbr", "cubic"),
                 M10, RTT, round(bdp_pkts(M10, RTT)), 6.0)

# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------

METRICS = ["utilization", "bbr_share", "jain", "loss_rate", "retransmits", "qdelay_p50_ms", "qdelay_p99_ms",
           "avg_queue_pkts", "bbr_cwnd_avg", "probe_rtt_dips"]
METRIC_LABELS = {
    "utilization": "utilisation",
    "bbr_share": "BBR's share",
    "jain": "Jain's index",
    "loss_rate": "loss (drops/offered)",
    "retransmits": "retransmissions",
    "qdelay_p50_ms": "queue delay p50 (ms)",
    "qdelay_p99_ms": "queue delay p99 (ms)",
    "avg_queue_pkts": "mean queue (pkts)",
    "bbr_cwnd_avg": "BBR's cwnd (segments, mean)",
    "probe_rtt_dips": "ProbeRTT dips (count)",
}
#: compared only where a row has more than one flow
MULTI_FLOW = ("bbr_share", "jain")
#: the attribution runs of the two-flow rows: ns-3 with each of
#: LINUX_BEHAVIOURS alone, and ccsim without BBR's ACK-aggregation allowance
#: (the nearest to ns-3's, at most 2 segments)
ATTRIBUTION_METRICS = ("bbr_share", "bbr_cwnd_avg", "drops", "qdelay_p50_ms")
NO_AGGREGATION = {"extra_acked_gain": 0.0}
#: recorded for every ccsim seed: the metrics ProbeBW's phase moves
SEED_METRICS = ("utilization", "bbr_share", "loss_rate", "drops", "retransmits", "qdelay_p50_ms", "qdelay_p99_ms",
                "avg_queue_pkts", "bbr_cwnd_avg", "low_cwnd_s")
#: derived when the tables are written, from the recorded intervals
#: (``low_cwnd_s``), so that PROBE_RTT_MIN_S applies to every recorded run
DERIVED = ("probe_rtt_dips",)


def _metrics(sc: Scenario, tx_bytes: int, arrivals: int, drops: int, delivered: List[int], retransmits: int,
             timeouts: int, waits_s: Tuple[float, float], avg_queue: float, bbr_cwnd: float,
             lows: List[Tuple[float, float]]) -> dict:
    window = sc.duration_s - sc.warmup_s
    bbr = [d for d, c in zip(delivered, sc.controllers) if c == "bbr"]
    m = {
        "drops": drops,
        "timeouts": timeouts,
        "utilization": tx_bytes * 8 / (sc.rate_bps * window),
        "goodput_mbps": sum(delivered) * 8 / window / 1e6,
        "bbr_share": sum(bbr) / sum(delivered) if sum(delivered) else float("nan"),
        "jain": jain([float(d) for d in delivered]),
        "loss_rate": drops / arrivals if arrivals else 0.0,
        "retransmits": retransmits,
        "qdelay_p50_ms": waits_s[0] * 1e3,
        "qdelay_p99_ms": waits_s[1] * 1e3,
        "avg_queue_pkts": avg_queue,
        "bbr_cwnd_avg": bbr_cwnd,
        "low_cwnd_s": [[round(a, 4), round(b, 4)] for a, b in lows],
    }
    return m


def run_ns3(sc: Scenario, exe: pathlib.Path, env: Optional[Dict[str, str]] = None, rng_run: int = 0) -> dict:
    """Run ``sc`` in ns-3 (``env``: bbr_linux.cc's variables for the
    experimental build; ``rng_run`` > 0: ns-3's ``RngRun``, another draw of
    its random streams, of which these runs use only TcpBbr's)."""
    raw, err = ns3_suite.run_program(exe, sc.ns3_args() + ([f"--RngRun={rng_run}"] if rng_run else []), sc.id, env)
    if env and sum(v == "1" for v in env.values()) != err.count("bbr_linux: _ZN"):
        raise RuntimeError(f"ns-3 run {sc.id}: bbr_linux.cc did not patch every behaviour asked for:\n{err[:500]}")
    b, flows = raw["bottleneck"], raw["flows"]
    bbr = flows[sc.controllers.index("bbr")]
    m = _metrics(sc, b["tx_bytes"], b["arrivals"], b["drops"], [f["rx_bytes"] for f in flows],
                 sum(f["retransmits"] for f in flows), sum(f["timeouts"] for f in flows),
                 (b["wait_p50_s"], b["wait_p99_s"]), b["avg_queue_pkts"], bbr["cwnd_avg_segments"],
                 [tuple(x) for x in bbr["cwnd_low_s"]])
    m["max_queue_pkts"] = b["max_queue_pkts"]
    return {"metrics": m, "wall_s": raw["wall_s"]}


def low_cwnd(times: List[float], cwnd: List[float], end_s: float) -> List[Tuple[float, float]]:
    """From cwnd samples: the intervals [first sample at 4 segments or below
    after one above, first sample above again) (the run's end if none)."""
    out: List[Tuple[float, float]] = []
    low = True  # as ns-3's side: a first value at or below 4 is not a dip
    for t, c in zip(times, cwnd):
        if c <= 4 and not low:
            out.append((t, end_s))
        elif c > 4 and low and out and out[-1][1] == end_s:
            out[-1] = (out[-1][0], t)
        low = c <= 4
    return out


def probe_rtt(lows: List[Tuple[float, float]]) -> List[Tuple[float, float]]:
    """The low-window intervals long enough to be ProbeRTT's."""
    return [(a, b) for a, b in lows if b - a >= PROBE_RTT_MIN_S]


def run_ccsim(sc: Scenario, seed: int = 1, bbr_params: Optional[Dict[str, object]] = None,
              waits: bool = True) -> dict:
    """Run ``sc`` in ccsim; ``seed`` draws BBR's ProbeBW entry phases (the
    scenarios' only random draw); ``bbr_params``: more ``cc_params`` for the
    BBR flows (the attribution runs); ``waits``: the per-packet queue delays
    from the bottleneck's trace (else n/a: the long runs)."""
    import ccsim

    d = dict(sc.ccsim_scenario(), seed=seed)
    if bbr_params:
        d["flows"] = [dict(f, cc_params={**f.get("cc_params", {}), **bbr_params}) if f["cc"] == "bbr" else f
                      for f in d["flows"]]
    with tempfile.TemporaryDirectory() as tmp:
        tr = pathlib.Path(tmp) / "bottleneck.tr"
        t0 = time.perf_counter()
        res = ccsim.run(d, trace={"bottleneck": str(tr)} if waits else None)
        wall = time.perf_counter() - t0
        waits_s, qmax = ns3_aqm.ccsim_sojourns(tr, sc.warmup_s) if waits else ([], float("nan"))
    raw = res.raw
    link = next(link for link in raw["links"] if link["from"] == "r0" and link["to"] == "r1")
    s = raw["series"]["flows"]
    i_bbr = sc.controllers.index("bbr")
    rows = [i for i, f in enumerate(s["flow"]) if f == i_bbr]
    times, cwnd = [s["time_s"][i] for i in rows], [s["cwnd"][i] for i in rows]
    in_window = [c for t, c in zip(times, cwnd) if t > sc.warmup_s]
    m = _metrics(sc, link["tx_bytes"], link["arrivals"], link["drops"],
                 [f["delivered_bytes"] for f in raw["flows"]], sum(f["retransmits"] for f in raw["flows"]),
                 sum(f["timeouts"] for f in raw["flows"]),
                 (ns3_aqm.percentile(waits_s, 0.5), ns3_aqm.percentile(waits_s, 0.99)), link["avg_queue_pkts"],
                 statistics.fmean(in_window), low_cwnd(times, cwnd, sc.duration_s))
    m["max_queue_pkts"] = qmax
    return {"metrics": m, "wall_s": raw.get("wall_s", wall)}


def _select(quick: bool, only: Optional[List[str]]) -> List[Scenario]:
    return ns3_suite.select(SCENARIOS, QUICK, quick, only, "ns3-bbr")


def _recorded(out: pathlib.Path) -> dict:
    return ns3_suite.recorded_run(out, RESULTS)


def _merged(recorded: Dict[str, dict], done: Dict[str, dict]) -> List[dict]:
    rows = dict(recorded)
    rows.update(done)
    order = [s.id for s in SCENARIOS]
    return sorted(rows.values(), key=lambda r: order.index(r["id"]) if r["id"] in order else len(order))


def run(quick: bool, out: pathlib.Path, only: Optional[List[str]] = None, ccsim_only: bool = False) -> dict:
    """Run the scenarios one at a time in ns-3 (as shipped, then with
    :data:`LINUX_BEHAVIOURS`) and in ccsim (seed 1, then :data:`SEEDS`'
    others); write ``out/ns3-bbr.json``.

    ``only``: these rows, merged into the recorded run. ``ccsim_only``:
    both ns-3 columns from the recorded run (ns-3 is deterministic),
    ccsim's re-run."""
    out = pathlib.Path(out)
    scenarios = _select(quick, only)
    prev_path = out / RESULTS
    prev = json.loads(prev_path.read_text(encoding="utf-8")) if prev_path.exists() else {"scenarios": []}
    if ccsim_only:
        prev = _recorded(out)
    recorded = {s["id"]: s for s in prev.get("scenarios", [])}
    exe = exe_linux = None
    if not ccsim_only:
        exe, exe_linux = ns3_suite.build(), ns3_suite.build([LINUX_SOURCE])
    results = ns3_suite.results_head(NAME, quick, prev, ccsim_only, seeds=list(SEEDS))
    done: Dict[str, dict] = {}
    for sc in scenarios:
        if ccsim_only:
            rec = ns3_suite.recorded_row(recorded, sc)
            n, nl = ({"metrics": {k: v[side] for k, v in rec["metrics"].items()}, "wall_s": rec["wall_s"][side]}
                     for side in ("ns3", "ns3_linux"))
            singles = rec.get("attribution", {}).get("ns3", {})
            if sc.n_flows > 1 and set(singles) != set(LINUX_BEHAVIOURS):
                raise ValueError(f"--ccsim-only: scenario {sc.id} has no recorded attribution runs; run it with ns-3")
        else:
            print(f"[ns3-bbr] {sc.id}: ns-3 ...", file=sys.stderr, flush=True)
            n = run_ns3(sc, exe)
            print(f"[ns3-bbr] {sc.id}: ns-3 with Linux's behaviours ...", file=sys.stderr, flush=True)
            nl = run_ns3(sc, exe_linux, {k: "1" for k in LINUX_BEHAVIOURS})
            singles = {}
            if sc.n_flows > 1:
                for k in LINUX_BEHAVIOURS:
                    print(f"[ns3-bbr] {sc.id}: ns-3 with {k} alone ...", file=sys.stderr, flush=True)
                    singles[k] = {m: run_ns3(sc, exe_linux, {k: "1"})["metrics"][m] for m in ATTRIBUTION_METRICS}
        print(f"[ns3-bbr] {sc.id}: ccsim ...", file=sys.stderr, flush=True)
        c = run_ccsim(sc)
        seeds = [c["metrics"]] + [run_ccsim(sc, k)["metrics"] for k in SEEDS[1:]]
        no_aggr = run_ccsim(sc, 1, NO_AGGREGATION)["metrics"] if sc.n_flows > 1 else None
        done[sc.id] = {
            "id": sc.id,
            "description": sc.description,
            "params": sc.params(),
            "metrics": {k: {"ns3": n["metrics"][k], "ccsim": c["metrics"][k], "ns3_linux": nl["metrics"][k]}
                        for k in n["metrics"]},
            "ccsim_seeds": {k: [m[k] for m in seeds] for k in SEED_METRICS},
            **({"attribution": {"ns3": singles,
                                "ccsim_no_aggregation": {m: no_aggr[m] for m in ATTRIBUTION_METRICS}}}
               if no_aggr else {}),
            "wall_s": {"ns3": n["wall_s"], "ccsim": c["wall_s"], "ns3_linux": nl["wall_s"]},
        }
        print(f"[ns3-bbr] {sc.id}: done (ns-3 {n['wall_s']:.1f} s, {nl['wall_s']:.1f} s; ccsim {c['wall_s']:.2f} s)",
              file=sys.stderr, flush=True)
        results["scenarios"] = _merged(recorded, done) if only and not quick else list(done.values())
        _write(out, results, RESULTS)
    if only and not quick:
        results["merged"] = True
    _write(out, {k: v for k, v in results.items() if k != "merged"}, RESULTS)
    return results


def run_variant(flags: List[str], ids: List[str], out: pathlib.Path) -> str:
    """The experimental ns-3 with only ``flags`` of :data:`LINUX_BEHAVIOURS`
    on rows ``ids``, against ccsim's recorded column (nothing recorded):
    which behaviour moves which metric."""
    bad = [f for f in flags if f not in LINUX_BEHAVIOURS]
    if bad:
        raise ValueError(f"flags: {', '.join(bad)}; allowed: {', '.join(LINUX_BEHAVIOURS)}")
    rec = {s["id"]: s for s in _recorded(out)["scenarios"]}
    exe = ns3_suite.build([LINUX_SOURCE])
    lines = ["| id | " + " | ".join(METRIC_LABELS[m] for m in METRICS) + " |", "|---|" + "---|" * len(METRICS)]
    for sc in _select(False, ids):
        n = run_ns3(sc, exe, {k: "1" for k in flags})["metrics"]
        row = dict(rec[sc.id], metrics={k: {"ns3": n[k], "ccsim": v["ccsim"]} for k, v in rec[sc.id]["metrics"].items()})
        lines.append(_metrics_row(row)[0])
    return f"ns-3 with {', '.join(flags)} / ccsim (recorded):\n\n" + "\n".join(lines) + "\n"


def run_draws(ids: List[str], runs: List[int], out: pathlib.Path, shipped: bool = True) -> str:
    """Rows ``ids`` (the table's or the long runs') in ns-3 as shipped
    (unless not ``shipped``) and with :data:`LINUX_BEHAVIOURS`, each with
    ns-3's ``RngRun`` = each of ``runs`` (its own draws of ProbeBW's phase),
    against ccsim's recorded seeds (nothing recorded)."""
    long_ids = {s.id: s for s in SHARE_SCENARIOS}
    if ids and all(i in long_ids for i in ids):
        rows = [long_ids[i] for i in ids]
        res = json.loads((pathlib.Path(out) / SHARE_RESULTS).read_text(encoding="utf-8"))
        rec, ms = {r["id"]: r for r in res["rows"]}, ("bbr_share", "drops", "bbr_cwnd_avg")
    else:
        rows = _select(False, ids)
        rec = {s["id"]: s for s in _recorded(out)["scenarios"]}
        ms = ("bbr_share", "drops", "bbr_cwnd_avg", "qdelay_p50_ms")
    exe, exe_linux = ns3_suite.build(), ns3_suite.build([LINUX_SOURCE])
    lines = [f"ns-3's RngRun {runs[0]}-{runs[-1]} against ccsim's recorded seeds: range (median)", "",
             "| id | side | " + " | ".join(SEED_LABELS[m] for m in ms) + " |", "|---|---|" + "---|" * len(ms)]

    def cell(xs: List[float], m: str) -> str:
        f = (lambda x: f"{int(x):,}") if m == "drops" else (lambda x: _fmt(m, x))
        return f"{f(min(xs))}-{f(max(xs))} ({f(statistics.median(xs))})"

    sides = [("ns-3", exe, None)] if shipped else []
    sides.append(("ns-3, Linux's behaviours", exe_linux, {k: "1" for k in LINUX_BEHAVIOURS}))
    for sc in rows:
        for side, exe_, env in sides:
            got = [run_ns3(sc, exe_, env, k)["metrics"] for k in runs]
            lines.append(f"| {sc.id} | {side} | " + " | ".join(cell([g[m] for g in got], m) for m in ms) + " |")
        cs = rec[sc.id]["ccsim_seeds"]
        lines.append(f"| {sc.id} | ccsim | " + " | ".join(cell(cs[m], m) for m in ms) + " |")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# Long runs: BBR's share against CUBIC (docs/decisions/
# 2026-11-27-bbr-share-against-ware-model.md)
# --------------------------------------------------------------------------

#: The long runs' results (``python -m validation.ns3_bbr --share``)
SHARE_RESULTS = "ns3-bbr-share.json"
#: ccsim's seeds in the long runs
SHARE_SEEDS = (1, 2, 3)
#: What the decision record measured at 100 Mb/s (ns-3 3.44 as shipped with
#: its delayed ACKs and PRR, ccsim seeds 1-3, BBR's share over [50, 200] s)
SHARE_RECORD = {2.0: (0.601, 0.462), 4.0: (0.541, 0.441), 8.0: (0.478, 0.457), 16.0: (0.363, 0.436)}
SHARE_METRICS = ("bbr_share", "bbr_cwnd_avg", "drops", "avg_queue_pkts", "timeouts", "low_cwnd_s")


def _share_row(mult: float, delack: bool) -> Scenario:
    acks = "delayed ACKs" if delack else "every segment ACKed"
    return Scenario(f"share-{mult:g}bdp" + ("-delack" if delack else ""), f"BBR against CUBIC, {mult:g} BDP, 200 s, "
                    f"{acks}", ("bbr", "cubic"), M100, RTT, round(mult * BDP100), 200.0, bdp_mult=mult, delack=delack)


#: The decision record's buffers where its two simulators differ most (2
#: and 4 BDP at 100 Mb/s: ns-3 0.10-0.14 above ccsim), 200 s each, on this
#: comparison's mapping and with the record's delayed ACKs and PRR
#: (:data:`DELACK`). 8 BDP (the record: within 0.02) and 16 BDP are not
#: run: ns-3 takes 10-30 minutes per 200-s run there.
SHARE_BUFFERS = (2.0, 4.0)
SHARE_SCENARIOS: List[Scenario] = [_share_row(m, d) for d in (False, True) for m in SHARE_BUFFERS]


def run_share(out: pathlib.Path, ids: Optional[List[str]] = None, ccsim_only: bool = False) -> dict:
    """The long runs ``ids`` (all when None) in ns-3 as shipped, ns-3 with
    :data:`LINUX_BEHAVIOURS` and ccsim (:data:`SHARE_SEEDS`), merged into
    ``out/ns3-bbr-share.json`` after each row (a recorded row with the same
    parameters is kept unless named). ``ccsim_only``: rerun ccsim's seeds
    of the recorded rows, keeping their ns-3 columns."""
    import ccsim

    out = pathlib.Path(out)
    known = {s.id: s for s in SHARE_SCENARIOS}
    bad = [i for i in ids or [] if i not in known]
    if bad:
        raise ValueError(f"unknown long run(s) {', '.join(bad)}; allowed: {', '.join(known)}")
    path = out / SHARE_RESULTS
    prev = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"rows": []}
    rows = {r["id"]: r for r in prev["rows"] if r["id"] in known and r["params"] == known[r["id"]].params()}
    if ccsim_only:
        for sc in [known[i] for i in ids] if ids else SHARE_SCENARIOS:
            if sc.id not in rows:
                raise ValueError(f"{sc.id}: not recorded; run it in ns-3 first (--share {sc.id})")
            cs = [run_ccsim(sc, k, waits=False) for k in SHARE_SEEDS]
            rows[sc.id]["ccsim_seeds"] = {m: [c["metrics"][m] for c in cs] for m in SHARE_METRICS}
            rows[sc.id]["wall_s"]["ccsim"] = [c["wall_s"] for c in cs]
        prev.update(ccsim_version=ccsim.__version__, rows=[rows[s.id] for s in SHARE_SCENARIOS if s.id in rows])
        _write(out, prev, SHARE_RESULTS)
        return json.loads(path.read_text(encoding="utf-8"))
    exe, exe_linux = ns3_suite.build(), ns3_suite.build([LINUX_SOURCE])
    for sc in [known[i] for i in ids] if ids else SHARE_SCENARIOS:
        if not ids and sc.id in rows:
            continue
        print(f"[ns3-bbr] {sc.id}: ns-3, ns-3 with Linux's behaviours, ccsim seeds "
              f"{SHARE_SEEDS[0]}-{SHARE_SEEDS[-1]} ...", file=sys.stderr, flush=True)
        n = run_ns3(sc, exe)
        nl = run_ns3(sc, exe_linux, {k: "1" for k in LINUX_BEHAVIOURS})
        cs = [run_ccsim(sc, k, waits=False) for k in SHARE_SEEDS]
        rows[sc.id] = {"id": sc.id, "params": sc.params(),
                       "ns3": {m: n["metrics"][m] for m in SHARE_METRICS},
                       "ns3_linux": {m: nl["metrics"][m] for m in SHARE_METRICS},
                       "ccsim_seeds": {m: [c["metrics"][m] for c in cs] for m in SHARE_METRICS},
                       "wall_s": {"ns3": n["wall_s"], "ns3_linux": nl["wall_s"], "ccsim": [c["wall_s"] for c in cs]}}
        res = {"peer": NAME, "peer_version": ns3_suite._peer_version(), "ccsim_version": ccsim.__version__,
               "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "seeds": list(SHARE_SEEDS),
               "rows": [rows[s.id] for s in SHARE_SCENARIOS if s.id in rows]}
        _write(out, res, SHARE_RESULTS)
        print(f"[ns3-bbr] {sc.id}: share ns-3 {n['metrics']['bbr_share']:.3f}, with Linux's behaviours "
              f"{nl['metrics']['bbr_share']:.3f}, ccsim " + ", ".join(f"{c['metrics']['bbr_share']:.3f}" for c in cs),
              file=sys.stderr, flush=True)
    return json.loads(path.read_text(encoding="utf-8"))


def run_share_variant(flags: List[str], ids: List[str]) -> str:
    """Long runs ``ids`` in the experimental ns-3 with only ``flags`` of
    :data:`LINUX_BEHAVIOURS` (nothing recorded): which rule moves the share."""
    bad = [f for f in flags if f not in LINUX_BEHAVIOURS]
    if bad:
        raise ValueError(f"flags: {', '.join(bad)}; allowed: {', '.join(LINUX_BEHAVIOURS)}")
    known = {s.id: s for s in SHARE_SCENARIOS}
    exe = ns3_suite.build([LINUX_SOURCE])
    lines = [f"ns-3 with {', '.join(flags) or 'none'}:", "", "| id | BBR's share | BBR's cwnd | drops | timeouts |",
             "|---|---|---|---|---|"]
    for i in ids:
        m = run_ns3(known[i], exe, {k: "1" for k in flags})["metrics"]
        lines.append(f"| {i} | {m['bbr_share']:.3f} | {m['bbr_cwnd_avg']:.0f} | {m['drops']:,} | {m['timeouts']:,} |")
    return "\n".join(lines) + "\n"


def share_markdown(res: dict) -> str:
    """The long runs' table (docs/validation.md)."""
    seeds = res["seeds"]
    out = [f"Generated by `python -m validation.ns3_bbr --share` on {res['date']}: ns-3 {res['peer_version']}, "
           f"ccsim {res['ccsim_version']}. Raw numbers: `validation/results/ns3-bbr/{SHARE_RESULTS}`. BBR's share "
           "of the goodput over the last two thirds (from 66.7 s); ccsim: the mean over seeds "
           f"{seeds[0]}-{seeds[-1]} (range). ACKs: every segment ACKed and classic recovery (the mapping above), "
           "or delayed ACKs (ns-3's every 2nd segment or 200 ms, with PRR and a 1 s minimum RTO; ccsim's Linux "
           "model), as in the "
           "decision record, whose figures (ns-3 as shipped and ccsim, over [50, 200] s) are the record's column.",
           "",
           "| buffer (BDP) | ACKs | ns-3 as shipped | ns-3 with Linux's behaviours | ccsim | decision record: ns-3 / "
           "ccsim | BBR's cwnd (segments, mean) ns-3 / Linux's / ccsim | drops ns-3 / Linux's / ccsim "
           "| ProbeRTT dips ns-3 / Linux's / ccsim |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in res["rows"]:
        mult = r["params"]["buffer_pkts"] / BDP100
        key = min(SHARE_RECORD, key=lambda m: abs(m - mult))
        cs = r["ccsim_seeds"]

        def mean(m: str) -> float:
            return statistics.fmean(cs[m])

        dips = [len(probe_rtt(r[x]["low_cwnd_s"])) for x in ("ns3", "ns3_linux")]
        c_dips = [len(probe_rtt(x)) for x in cs["low_cwnd_s"]]
        out.append(
            f"| {key:g} | {'delayed' if r['params'].get('delack') else 'every segment'} | "
            f"{r['ns3']['bbr_share']:.3f} | {r['ns3_linux']['bbr_share']:.3f} | "
            f"{mean('bbr_share'):.3f} ({min(cs['bbr_share']):.3f}-{max(cs['bbr_share']):.3f}) | "
            f"{SHARE_RECORD[key][0]:.3f} / {SHARE_RECORD[key][1]:.3f} | "
            f"{r['ns3']['bbr_cwnd_avg']:.0f} / {r['ns3_linux']['bbr_cwnd_avg']:.0f} / {mean('bbr_cwnd_avg'):.0f} | "
            f"{r['ns3']['drops']:,} / {r['ns3_linux']['drops']:,} / {mean('drops'):,.0f} | "
            f"{dips[0]} / {dips[1]} / {min(c_dips)}-{max(c_dips)} |")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------


def _fmt(metric: str, x: float) -> str:
    if x != x:
        return "n/a"
    if metric in ("retransmits", "probe_rtt_dips"):
        return f"{int(x):,}"
    if metric == "loss_rate":
        return f"{x:.2e}" if 0 < x < 1e-3 else f"{x:.4f}"
    if metric in ("qdelay_p50_ms", "qdelay_p99_ms"):
        return f"{x:.2f}"
    if metric in ("avg_queue_pkts", "bbr_cwnd_avg"):
        return f"{x:.1f}"
    return f"{x:.4f}"


def compared(s: dict) -> List[str]:
    """The metrics compared on row ``s`` (shares only with several flows)."""
    multi = len(s["params"]["controllers"]) > 1
    return [m for m in METRICS if multi or m not in MULTI_FLOW]


def defaults_markdown() -> str:
    return ns3_suite.defaults_markdown(DEFAULTS)


def value(s: dict, m: str, side: str) -> float:
    """Metric ``m`` of row ``s`` on ``side`` (the ProbeRTT count from the
    recorded low-window intervals)."""
    if m == "probe_rtt_dips":
        return len(probe_rtt(s["metrics"]["low_cwnd_s"][side]))
    return s["metrics"][m][side]


def _metrics_row(s: dict, side: str = "ns3") -> Tuple[str, int, int]:
    """Row ``s``'s line of a metrics table, ns-3's column ``side`` against
    ccsim's, and how many pairs it compares and flags."""
    cells, n_all, n_flag = [], 0, 0
    for m in METRICS:
        if m not in compared(s):
            cells.append("—")
            continue
        a, b = value(s, m, side), value(s, m, "ccsim")
        d = rel_diff(a, b)
        txt = f"{_fmt(m, a)} / {_fmt(m, b)}"
        notes = []
        if d is not None and d != 0:
            notes.append(f"{d:+.1%}")
        if m == "loss_rate":
            notes.append(f"{s['metrics']['drops'][side]:,} / {s['metrics']['drops']['ccsim']:,} drops")
        if notes:
            txt += " (" + ", ".join(notes) + ")"
        n_all += 1
        if d is None or abs(d) > TOLERANCE:
            n_flag += 1
            txt = f"**{txt}**"
        cells.append(txt)
    return f"| {s['id']} | " + " | ".join(cells) + " |", n_all, n_flag


def _metrics_table(results: dict, side: str) -> List[str]:
    out = ["| id | " + " | ".join(METRIC_LABELS[m] for m in METRICS) + " |", "|---|" + "---|" * len(METRICS)]
    n_all = n_flag = 0
    for s in results["scenarios"]:
        if side not in s["metrics"]["utilization"]:
            continue
        line, a, f = _metrics_row(s, side)
        out.append(line)
        n_all, n_flag = n_all + a, n_flag + f
    out += ["", f"{n_all - n_flag} of {n_all} metric pairs agree within {TOLERANCE:.0%}."]
    return out


#: the seed table's metrics (those ProbeBW's phase moves most)
SEED_TABLE = ("bbr_share", "drops", "retransmits", "qdelay_p50_ms", "avg_queue_pkts", "bbr_cwnd_avg",
              "probe_rtt_dips")
SEED_LABELS = {"drops": "drops", **METRIC_LABELS}


def _seed_cell(s: dict, m: str) -> str:
    if m == "probe_rtt_dips":
        xs = [len(probe_rtt(lows)) for lows in s["ccsim_seeds"]["low_cwnd_s"]]
    else:
        xs = s["ccsim_seeds"][m]
    lo, hi = min(xs), max(xs)
    fmt = (lambda x: f"{int(x):,}") if m in ("drops", "retransmits", "probe_rtt_dips") else (lambda x: _fmt(m, x))

    def mark(x: float) -> str:
        return f"{fmt(x)} " + ("in" if lo <= x <= hi else "**out**")

    return f"{fmt(lo)}-{fmt(hi)}: {mark(value(s, m, 'ns3'))}, {mark(value(s, m, 'ns3_linux'))}"


def markdown(results: dict) -> str:
    """The generated part of docs/validation.md for the BBR comparison."""
    seeds = results.get("seeds", [1])
    out = [
        f"Generated by `python -m validation.run --peer ns3-bbr` on {results['date']}: "
        f"ns-3 {results['peer_version']}, ccsim {results['ccsim_version']}"
        + (" (quick run)" if results.get("quick") else "")
        + (f"; ns-3's columns as recorded on {results['ns3_recorded']}, ccsim's re-run (`--ccsim-only`)"
           if results.get("ns3_recorded") else "")
        + f". Raw numbers: `validation/results/ns3-bbr/{RESULTS}`. Differences over {TOLERANCE:.0%} are in "
        "**bold**; the window is the last two thirds of each run.",
        "",
        "#### Scenarios",
        "",
        "| id | description | flows | rate | RTT (ms) | bottleneck delay (ms) | access links | buffer (pkts) | "
        "duration (s) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s in results["scenarios"]:
        p = s["params"]
        out.append(f"| {s['id']} | {s['description']} | {' + '.join(p['controllers'])} | {_rate(p['rate_bps'])} | "
                   f"{p['rtt_s'] * 1e3:g} | {p['bottleneck_delay_s'] * 1e3:g} | {_rate(p['edge_rate_bps'])} | "
                   f"{p['buffer_pkts']} | {p['duration_s']:g} |")
    out += ["", "#### Metrics side by side (ns-3 3.44 as shipped / ccsim)", ""] + _metrics_table(results, "ns3")
    out += ["", "#### ns-3 with Linux's three behaviours / ccsim", "",
            "The same runs in an ns-3 built with `validation/ns3/bbr_linux.cc` and all three of its behaviours on: "
            + "; ".join(LINUX_BEHAVIOURS.values()) + ". Each is ccsim's (and current Linux's) rule where ns-3 3.44's "
            "differs (below).", ""] + _metrics_table(results, "ns3_linux")
    attr = [s for s in results["scenarios"] if s.get("attribution")]
    if attr:
        names = list(LINUX_BEHAVIOURS)
        out += ["", "#### What each difference moves (two-flow rows)", "",
                "ns-3 as shipped, with each of `bbr_linux.cc`'s behaviours alone and with all three; ccsim (seed 1), "
                "and ccsim without BBR's ACK-aggregation allowance (`extra_acked_gain = 0`: the nearest to ns-3's, "
                "at most 2 segments, below).",
                "",
                "| id | metric | ns-3 | + rate sample per ACK | + RTprop `<` | + cwnd restored | all three | ccsim "
                "| ccsim, no aggregation allowance |",
                "|---|---|---|---|---|---|---|---|---|"]
        for s in attr:
            a = s["attribution"]
            for m in ATTRIBUTION_METRICS:
                label = SEED_LABELS[m]
                cells = [s["metrics"][m]["ns3"]] + [a["ns3"][k][m] for k in names] + [
                    s["metrics"][m]["ns3_linux"], s["metrics"][m]["ccsim"], a["ccsim_no_aggregation"][m]]
                fmt = (lambda x: f"{int(x):,}") if m == "drops" else (lambda x, m=m: _fmt(m, x))
                out.append(f"| {s['id']} | {label} | " + " | ".join(fmt(x) for x in cells) + " |")
    out += ["", f"#### ProbeBW's random phase: ccsim over seeds {seeds[0]}-{seeds[-1]}", "",
            f"Each seed draws BBR's entry phases into ProbeBW anew (the scenarios' only random draw; ns-3's "
            f"one draw is `TcpBbr`'s stream 4). Per cell: ccsim's range over the {len(seeds)} seeds, then ns-3 as "
            "shipped and ns-3 with Linux's behaviours, each in or out of that range.",
            "",
            "| id | " + " | ".join(SEED_LABELS[m] for m in SEED_TABLE) + " |", "|---|" + "---|" * len(SEED_TABLE)]
    for s in results["scenarios"]:
        if "ccsim_seeds" in s:
            out.append(f"| {s['id']} | " + " | ".join(
                _seed_cell(s, m) if m in compared(s) or m not in MULTI_FLOW else "—" for m in SEED_TABLE) + " |")
    out += ["", "#### ProbeRTT, timeouts, wall time", "",
            f"ProbeRTT dips: when (s, whole run) BBR's cwnd went to 4 segments or below and stayed there at least "
            f"{PROBE_RTT_MIN_S * 1e3:g} ms, and for how long; shorter intervals at 4 or below (a timeout's window of 1 "
            "grows back within a round or two; a start-up's loss) are counted apart. Wall time: ns-3's "
            "`Simulator::Run`, ccsim's engine.",
            "",
            "| id | ns-3: ProbeRTT at (s), for (ms) | ns-3 with Linux's behaviours | ccsim | other cwnd ≤ 4, ns-3 / "
            "Linux's / ccsim | timeouts ns-3 / Linux's / ccsim | goodput (Mb/s) ns-3 / ccsim | ns-3 wall (s) "
            "| ccsim wall (s) | ns-3 / ccsim |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    tn = tc = 0.0
    for s in results["scenarios"]:
        m = s["metrics"]
        sides = [x for x in ("ns3", "ns3_linux", "ccsim") if x in m["low_cwnd_s"]]

        def times(side: str) -> str:
            if side not in m["low_cwnd_s"]:
                return "n/a"
            t = probe_rtt(m["low_cwnd_s"][side])
            return ", ".join(f"{a:.2f} ({(b - a) * 1e3:.0f})" for a, b in t) if t else "none"

        def others(side: str) -> str:
            return str(len(m["low_cwnd_s"][side]) - len(probe_rtt(m["low_cwnd_s"][side])))

        a, b = s["wall_s"]["ns3"], s["wall_s"]["ccsim"]
        tn, tc = tn + a, tc + b
        tos = " / ".join(f"{m['timeouts'][x]:,}" for x in sides)
        out.append(f"| {s['id']} | {times('ns3')} | {times('ns3_linux')} | {times('ccsim')} | "
                   f"{' / '.join(others(x) for x in sides)} | {tos} | "
                   f"{m['goodput_mbps']['ns3']:.2f} / {m['goodput_mbps']['ccsim']:.2f} "
                   f"| {a:.2f} | {b:.3f} | {a / b:.0f}x |")
    if tc > 0:
        out.append(f"| all | | | | | | | {tn:.1f} | {tc:.2f} | {tn / tc:.0f}x |")
    out.append("")
    out.append("ccsim's wall time here includes writing the bottleneck's ns-2 trace (for the queue delays) and the "
               "5-ms flow series; ns-3's its measurement callbacks. `ccsim bench`'s M rows time both simulators "
               "without them ([performance.md](performance.md#against-ns-235-and-ns-3)).")
    return "\n".join(out) + "\n"


if __name__ == "__main__":  # a convenience; the driver is validation/run.py
    import argparse

    ap = argparse.ArgumentParser(description="ccsim's BBR against ns-3 3.44's TcpBbr")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent / "results" / NAME)
    ap.add_argument("--ccsim-only", action="store_true",
                    help="rerun ccsim only, against the recorded ns-3 columns (with --share: the long runs' seeds)")
    ap.add_argument("--variant", metavar="FLAGS",
                    help="comma-separated NS3BBR_* behaviours: run the named rows in the experimental ns-3 with "
                         "only these, against the recorded ccsim column (nothing recorded)")
    ap.add_argument("--share", action="store_true",
                    help="the long runs (SHARE_SCENARIOS: BBR's share against CUBIC over 200 s), the named ones "
                         "or those not recorded yet; written to results/ns3-bbr/ns3-bbr-share.json")
    ap.add_argument("--rng-runs", metavar="A-B",
                    help="run the named rows in ns-3 (as shipped and with Linux's behaviours) with RngRun A..B "
                         "against ccsim's recorded seeds (nothing recorded)")
    ap.add_argument("--linux-only", action="store_true", help="with --rng-runs: only ns-3 with Linux's behaviours")
    ap.add_argument("only", nargs="*")
    a = ap.parse_args()
    if a.share and a.variant:
        print(run_share_variant(a.variant.split(","), a.only))
    elif a.rng_runs:
        lo, hi = (int(x) for x in a.rng_runs.split("-"))
        print(run_draws(a.only, list(range(lo, hi + 1)), a.out, shipped=not a.linux_only))
    elif a.share:
        print(share_markdown(run_share(a.out, a.only or None, ccsim_only=a.ccsim_only)))
    elif a.variant:
        print(run_variant(a.variant.split(","), a.only, a.out))
    else:
        print(markdown(run(a.quick, a.out, a.only or None, ccsim_only=a.ccsim_only)))
