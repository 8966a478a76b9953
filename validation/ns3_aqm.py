"""ccsim's AQMs and DCTCP against ns-3 3.44: CoDel, FQ-CoDel and PIE under
CUBIC and NewReno, DCTCP over a step-marking RED, side by side.

Called by the validation driver (``python -m validation.run --peer
ns3-aqm``) like :mod:`validation.ns3_suite`, whose installation and build it
reuses (:func:`installed`, :func:`install`, ``ns3_suite.build``: the same
``validation/ns3/dumbbell.cc``, run with ``--qdisc``). Every parameter of
both sides is mapped in :data:`DEFAULTS` (one row per item, saying which
side moved) and :func:`queue_map` (per discipline: ns-3 attributes beside
ccsim's fields), so the tables in docs/validation.md are generated from the
same data the runs use.

The network is ns3_suite's dumbbell (access links 10x the bottleneck,
DropTail 1000 packets, flows 1/N s apart, 1448-byte segments, 54 bytes of
headers), with the bottleneck r0 -> r1 carrying the queue discipline: in
ns-3 an ns-3 queue disc in the traffic-control layer above a one-packet
device queue (so the disc holds the buffer; while the link is busy the next
packet waits in the device), in ccsim the queue kind itself. Both sides
count over ``[warmup_s, duration_s]`` (the last two thirds):

* utilisation: wire bytes whose serialisation started x 8 / (rate x window);
* Jain's index over the flows' in-order delivered bytes;
* loss: packets the discipline dropped (full buffer, early or at dequeue)
  / packets offered to it;
* marks: packets it CE-marked (ns-3 ``QueueDisc`` "Mark" trace; ccsim
  ``marks``);
* queue delay, median and p99 over the packets whose transmission started
  in the window, and the time-average number of packets waiting (the one
  being serialised not counted). ccsim has one queue: ``+`` to ``-`` in
  the bottleneck's ns-2 trace, and ``avg_queue_pkts``. ns-3 has two: the
  disc, and below it the device queue where, while the link is busy, the
  next packet waits about one transmission time. For CoDel, FQ-CoDel and
  PIE ccsim is compared with the disc (the sojourn there is what those
  AQMs measure and control: the disc's dequeue time minus the item's time
  stamp, the value of its "SojournTime" trace); for RED's step, which is
  mapped on the packets in disc and device together, with the whole wait
  (enqueue in the disc to the start of transmission). The other ns-3 view
  is reported beside, not compared (:attr:`QueueMap.ns3_view`);
* DCTCP: the mean of alpha (ns-3: over the flows' ``CongestionEstimate``
  updates in the window; ccsim: the flow series' ``dctcp_alpha`` every
  RTT/4).

Beside the rows, a full run also takes DCTCP's alpha on ns-3's own
``dctcp-10ms`` case (examples/tcp/tcp-validation.cc) with that case's
bottleneck device layer varied (:data:`ALPHA_VARIANTS`, :func:`run_alpha`;
part ``dctcp-alpha``), and :func:`run_seeds` runs rows over start phases.
"""
from __future__ import annotations

import dataclasses
import json
import pathlib
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from validation import ns3_suite
from validation.ns3_suite import (  # the same peer, installation, build and helpers
    HEADER_BYTES,
    MSS,
    PKT_BYTES,
    TOLERANCE,
    Default,
    _peer_version,
    _rate,
    _write,
    install,
    installed,
    jain,
    rel_diff,
)

__all__ = ["NAME", "installed", "install", "run", "markdown", "defaults_markdown", "SCENARIOS", "QUICK"]

NAME = "ns3-aqm"
RESULTS = "ns3-aqm.json"
EDGE_BUFFER_PKTS = ns3_suite.EDGE_BUFFER_PKTS
BNECK_DELAY_S = ns3_suite.BNECK_DELAY_S
#: ns-3's bottleneck device queue under the disc (packets).
DEVICE_QUEUE_PKTS = 1

METRICS = ["utilization", "jain", "loss_rate", "marks", "qdelay_p50_ms", "qdelay_p99_ms", "avg_queue_pkts"]
METRIC_LABELS = {
    "utilization": "utilisation",
    "jain": "Jain's index",
    "loss_rate": "loss (drops/offered)",
    "marks": "CE marks",
    "qdelay_p50_ms": "queue delay p50 (ms)",
    "qdelay_p99_ms": "queue delay p99 (ms)",
    "avg_queue_pkts": "mean queue (pkts)",
    "alpha": "DCTCP α (mean)",
}

# --------------------------------------------------------------------------
# Controllers
# --------------------------------------------------------------------------

CONTROLLERS: Dict[str, dict] = {
    # ns-3's TcpLinuxReno is Linux's Reno (segments counted, as ccsim's
    # abc); its TcpNewReno adds MSS²/cwnd bytes per ACK whatever the ACK
    # covers (half the growth under delayed ACKs) truncated to whole bytes
    # (docs/validation.md, ns-3 cause 2). Loss recovery is the socket's
    # (SACK, RFC 6675) on both sides.
    "newreno": {"ns3": "ns3::TcpLinuxReno", "cc": "reno", "cc_params": {"abc": True}, "ns3_attrs": {}},
    "cubic": {
        "ns3": "ns3::TcpCubic",
        "cc": "cubic",
        # ns-3 counts segments (slow start and congestion avoidance) and is
        # RFC 8312's CUBIC: W_est's alpha never switches to 1.
        "cc_params": {"abc": True, "alpha_switch": False},
        "ns3_attrs": {"ns3::TcpCubic::HyStart": "false"},
    },
    "dctcp": {"ns3": "ns3::TcpDctcp", "cc": "dctcp", "cc_params": {}, "ns3_attrs": {}},
}

# --------------------------------------------------------------------------
# Defaults that differ between ns-3 3.44 and ccsim, and what is run.
# --------------------------------------------------------------------------

DEFAULTS: List[Default] = [
    ns3_suite.LINUX_TCP_ROWS["segment"],
    Default("header and framing bytes per data packet",
            "20 IPv4 + 20 TCP + 12 timestamps + 2 PPP = 54 B; a queue disc counts the 1500-byte IP packet",
            "40 B (`header_bytes`); the queue counts the whole 1502 bytes", "54 B", "ccsim",
            {}, {"header_bytes": HEADER_BYTES}),
    Default("MTU rules (CoDel's no-drop backlog, FQ-CoDel's quantum)",
            "`MinBytes` 1500, drop only if more than that remains (`<`); quantum = device MTU 1500",
            "`mtu_bytes` 1500 (`≤`), `quantum_bytes` 1500",
            "as is: with 1500-byte (ns-3) and 1502-byte (ccsim) packets both allow a drop only "
            "when another packet waits; the quantum is one packet on both", "none (same)"),
    ns3_suite.LINUX_TCP_ROWS["iw"],
    ns3_suite.LINUX_TCP_ROWS["min_rto"],
    ns3_suite.LINUX_TCP_ROWS["clock"],
    ns3_suite.LINUX_TCP_ROWS["retries"],
    # Not ns-3's delayed ACKs: with them and a 0.2 s minimum RTO, ns-3 3.44
    # locks a flow at one segment per timeout (after an RTO with one segment
    # out, the ACK ending CA_LOSS covers nothing above m_recover, so
    # TcpSocketBase::ProcessAck grows cwnd by (ackNumber - m_recover) / MSS =
    # 0; the one new segment waits for the 200 ms delayed ACK and the timer
    # fires first, for ever); and with a 1 s minimum RTO instead, ccsim's RFC
    # 6675 recovery waits a whole second on a lost retransmission, which ns-3
    # resends at the next partial ACK. Both are TCP differences, not the
    # queues' (docs/validation.md, "ns-3: AQMs and DCTCP"), so every segment
    # is ACKed, as in ns3_suite.
    Default("delayed ACKs", "every 2nd segment, 200 ms timer (`DelAckCount` 2)",
            "every 2nd segment, each at once for the first 16 and while the receive window grows,"
            " adaptive 40-200 ms timer (`delack_model = \"linux\"`)",
            "every segment (ns-3 `DelAckCount` 1, ccsim `delayed_ack = false`)", "both",
            {"ns3::TcpSocket::DelAckCount": "1"}, {"delayed_ack": False}),
    Default("loss recovery", "PRR (`TcpPrrRecovery`), SACK on",
            "RFC 6675 SACK (`recovery = \"sack\"`), PRR off (`prr = false`)",
            "SACK; ns-3 `TcpClassicRecovery` (cwnd = ssthresh on entry)", "ns-3",
            {"ns3::TcpL4Protocol::RecoveryType": "ns3::TcpClassicRecovery", "ns3::TcpSocketBase::Sack": "true"},
            {"recovery": "sack"}),
    ns3_suite.LINUX_TCP_ROWS["limited_transmit"],
    Default("RTT estimator", "`RttMeanDeviation` (1/8, 1/4), a sample per ACK, whole milliseconds",
            "`rfc6298`, a sample per ACK of new data, exact", "as is", "neither (ns-3's ms resolution)",
            {}, {"rtt_estimator": "rfc6298"}),
    Default("NewReno rows", "`TcpNewReno`: MSS²/cwnd bytes per ACK, truncated", "`reno` with `abc = false`",
            "ns-3 `TcpLinuxReno`, ccsim `reno` with `abc = true` (Linux's Reno: segments counted)", "both"),
    dataclasses.replace(ns3_suite.LINUX_TCP_ROWS["cubic"], item="CUBIC rows"),
    Default("DCTCP rows", "`TcpDctcp`: g 1/16, α₀ 1, ECT(0), ECN forced on; no loss response (RFC 8257 §3.5)",
            "`dctcp`: g 1/16, α₀ 1, ECN on; loss halves", "as is (no loss in these rows)", "none (same)"),
    Default("ECN (CUBIC, NewReno)", "off (`TcpSocketBase::UseEcn`)", "off (`ecn`)", "off", "none (same)"),
    Default("queue disc placement", "a root disc on the device, above a 100-packet device DropTail",
            "the queue discipline is the link's only queue",
            f"ns-3 device queue {DEVICE_QUEUE_PKTS} packet (no BQL): one packet waits below the disc while "
            "the link is busy", "ns-3"),
    ns3_suite.LINUX_TCP_ROWS["ties"],
    ns3_suite.LINUX_TCP_ROWS["buffers"],
    ns3_suite.LINUX_TCP_ROWS["application"],
]

COMMON_NS3_ARGS, COMMON_CCSIM_FIELDS = ns3_suite.mapped(DEFAULTS)


@dataclass(frozen=True)
class QueueMap:
    """One queue discipline on both sides: (parameter, ns-3 attribute and
    default, ccsim field and default, value used)."""

    ns3_type: str
    ccsim_kind: str
    #: which of ns-3's queues matches ccsim's: "disc" for the delay-based
    #: AQMs (they measure and control the sojourn in the disc), "total" for
    #: RED's step (mapped on the packets in disc and device together)
    ns3_view: str
    rows: List[Tuple[str, str, str, str]]  # (parameter, ns-3 default, ccsim default, used)
    ns3_attrs: Dict[str, str]
    ccsim_fields: Dict[str, object]


def queue_map(aqm: str, limit_pkts: int, k: int = 0) -> QueueMap:
    """The mapping of ``aqm`` with buffer ``limit_pkts`` (and step ``k``)."""
    if aqm == "codel":
        return QueueMap(
            "ns3::CoDelQueueDisc", "codel", "disc",
            [("buffer", "`MaxSize` 1500000 B", "`limit_pkts` 1000", f"{limit_pkts} packets (ns-3 moved)"),
             ("target, interval", "`Target` 5 ms, `Interval` 100 ms", "`target_s` 0.005, `interval_s` 0.1", "5 ms, 100 ms"),
             ("no-drop backlog", "`MinBytes` 1500", "`mtu_bytes` 1500", "1500 B"),
             ("ECN", "`UseEcn` false", "`ecn` false", "off (the flows are not ECN-capable)")],
            {"ns3::CoDelQueueDisc::MaxSize": f"{limit_pkts}p", "ns3::CoDelQueueDisc::Target": "5ms",
             "ns3::CoDelQueueDisc::Interval": "100ms", "ns3::CoDelQueueDisc::MinBytes": "1500",
             "ns3::CoDelQueueDisc::UseEcn": "false"},
            {"kind": "codel", "limit_pkts": limit_pkts, "target_s": 0.005, "interval_s": 0.1, "mtu_bytes": 1500,
             "ecn": False},
        )
    if aqm == "fq_codel":
        return QueueMap(
            "ns3::FqCoDelQueueDisc", "fq_codel", "disc",
            [("buffer", "`MaxSize` 10240p", "`limit_pkts` 10240", f"{limit_pkts} packets"),
             ("flow queues, hash", "`Flows` 1024, 5-tuple hash, `Perturbation` 0",
              "`flows` 1024, flow-id hash, `perturbation` 0", "1024 (the hashes differ: which flows collide)"),
             ("quantum, drop batch", "device MTU 1500, `DropBatchSize` 64", "`quantum_bytes` 1500, `drop_batch` 64", "1500, 64"),
             ("CoDel", "`Target` 5 ms, `Interval` 100 ms, per-queue `MinBytes` 1500",
              "`target_s` 0.005, `interval_s` 0.1, `mtu_bytes` 1500 over the whole backlog", "5 ms, 100 ms"),
             ("ECN", "`UseEcn` true", "`ecn` true", "on (the flows are not ECN-capable: drops)")],
            {"ns3::FqCoDelQueueDisc::MaxSize": f"{limit_pkts}p", "ns3::FqCoDelQueueDisc::Flows": "1024",
             "ns3::FqCoDelQueueDisc::DropBatchSize": "64", "ns3::FqCoDelQueueDisc::Target": "5ms",
             "ns3::FqCoDelQueueDisc::Interval": "100ms", "ns3::FqCoDelQueueDisc::UseEcn": "true"},
            {"kind": "fq_codel", "limit_pkts": limit_pkts, "flows": 1024, "quantum_bytes": 1500, "drop_batch": 64,
             "target_s": 0.005, "interval_s": 0.1, "mtu_bytes": 1500, "ecn": True},
        )
    if aqm == "pie":
        return QueueMap(
            "ns3::PieQueueDisc", "pie", "disc",
            [("buffer", "`MaxSize` 25p", "`limit_pkts` 1000",
              "25 packets at 10 Mb/s (ns-3's default: 30 ms); 250 at 100 Mb/s (the same 30 ms)"),
             ("target, update period", "`QueueDelayReference` 15 ms, `Tupdate` 15 ms", "`target_s`, `tupdate_s` 0.015", "15 ms, 15 ms"),
             ("gains", "`A` 0.125, `B` 1.25", "`alpha` 0.125, `beta` 1.25", "0.125, 1.25 Hz"),
             ("burst allowance", "`MaxBurstAllowance` 150 ms (ns-3's arming and re-arming)",
              "`max_burst_s` 0.15 (RFC 8033, Linux)", "150 ms; the rules differ (docs/scenario.md, PIE)"),
             ("derandomisation", "`UseDerandomization` false", "`derandomize` true", "off (ccsim moved)"),
             ("delay estimator, cap", "time stamps, `UseCapDropAdjustment` true",
              "`estimator = \"timestamp\"`, `cap_drop_adjustment` true", "time stamps, on"),
             ("ECN", "`UseEcn` false", "`ecn` false", "off")],
            {"ns3::PieQueueDisc::MaxSize": f"{limit_pkts}p", "ns3::PieQueueDisc::QueueDelayReference": "15ms",
             "ns3::PieQueueDisc::Tupdate": "15ms", "ns3::PieQueueDisc::A": "0.125", "ns3::PieQueueDisc::B": "1.25",
             "ns3::PieQueueDisc::MaxBurstAllowance": "150ms", "ns3::PieQueueDisc::UseDerandomization": "false",
             "ns3::PieQueueDisc::UseDequeueRateEstimator": "false", "ns3::PieQueueDisc::UseCapDropAdjustment": "true",
             "ns3::PieQueueDisc::UseEcn": "false"},
            {"kind": "pie", "limit_pkts": limit_pkts, "target_s": 0.015, "tupdate_s": 0.015, "alpha": 0.125,
             "beta": 1.25, "max_burst_s": 0.15, "derandomize": False, "estimator": "timestamp",
             "cap_drop_adjustment": True, "ecn": False},
        )
    if aqm == "red":
        # A step at K: ns-3's RED with MinTh = MaxTh = K, QW = 1 (the
        # instantaneous queue), Gentle off and UseHardDrop off marks an
        # ECN-capable arrival that finds K or more packets in the disc
        # (red-queue-disc.cc DoEnqueue: qAvg >= MaxTh, a forced mark); with
        # the one packet waiting in the device below it, that is more than K
        # waiting. ccsim's RED with min_th K, max_th K + 1, w_q 1, max_p 1 and
        # ecn_mark_above_max marks an arrival that finds more than K waiting.
        return QueueMap(
            "ns3::RedQueueDisc", "red", "total",
            [("buffer", "`MaxSize` 25p", "(required)", f"{limit_pkts} packets"),
             ("step at K", f"`MinTh` = `MaxTh` = K (defaults 5, 15)", "`min_th_pkts` K, `max_th_pkts` K + 1",
              "mark an arrival finding more than K packets waiting (ns-3: K in the disc + 1 in the device)"),
             ("average", "`QW` 0.002", "`w_q` automatic", "1 (the instantaneous queue)"),
             ("above the step", "`Gentle` true, `UseHardDrop` true, `LInterm` 50",
              "`gentle` true, `max_p` 0.1", "`Gentle` false, `UseHardDrop` false / `gentle` false, `max_p` 1, "
              "`ecn_mark_above_max` true: mark, never drop early"),
             ("ECN", "`UseEcn` false", "`ecn` false", "on")],
            {"ns3::RedQueueDisc::MaxSize": f"{limit_pkts}p", "ns3::RedQueueDisc::MinTh": str(k),
             "ns3::RedQueueDisc::MaxTh": str(k), "ns3::RedQueueDisc::QW": "1", "ns3::RedQueueDisc::Gentle": "false",
             "ns3::RedQueueDisc::UseHardDrop": "false", "ns3::RedQueueDisc::UseEcn": "true",
             "ns3::RedQueueDisc::MeanPktSize": "1500"},
            {"kind": "red", "limit_pkts": limit_pkts, "min_th_pkts": k, "max_th_pkts": k + 1, "w_q": 1.0,
             "max_p": 1.0, "gentle": False, "ecn": True, "ecn_mark_above_max": True},
        )
    raise ValueError(f"aqm: {aqm!r}; allowed: codel, fq_codel, pie, red")


# --------------------------------------------------------------------------
# Scenarios
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    id: str
    description: str
    controller: str
    aqm: str
    n_flows: int
    rtt_s: tuple  # (lo, hi): equal when lo == hi, else evenly spread
    rate_bps: float
    duration_s: float
    limit_pkts: int
    k: int = 0  # RED's step (DCTCP rows)
    #: 0: the fixed start times; k > 0: each flow's start moved within its
    #: slot by ``random.Random(k)``, the same on both sides (:func:`run_seeds`)
    seed: int = 0

    @property
    def warmup_s(self) -> float:
        return round(self.duration_s / 3.0, 6)

    def rtts(self) -> List[float]:
        return ns3_suite.spread_rtts(self.rtt_s, self.n_flows)

    def starts(self) -> List[float]:
        return ns3_suite.staggered_starts(self.n_flows, self.seed)

    def queue(self) -> QueueMap:
        return queue_map(self.aqm, self.limit_pkts, self.k)

    def params(self) -> dict:
        return {
            "controller": self.controller, "aqm": self.aqm, "flows": self.n_flows, "rtt_s": list(self.rtt_s),
            "rate_bps": self.rate_bps, "duration_s": self.duration_s, "warmup_s": self.warmup_s,
            "limit_pkts": self.limit_pkts, **({"k": self.k} if self.aqm == "red" else {}),
            "bottleneck_delay_s": BNECK_DELAY_S, "mss_bytes": MSS, "header_bytes": HEADER_BYTES,
            "device_queue_pkts": DEVICE_QUEUE_PKTS,
            **({"seed": self.seed} if self.seed else {}),
        }

    # ---- the ns-3 side ------------------------------------------------
    def ns3_args(self) -> List[str]:
        ctl = CONTROLLERS[self.controller]
        buf = ns3_suite.socket_buffer_bytes(self.rate_bps, max(self.rtts()), self.limit_pkts)
        attrs = dict(COMMON_NS3_ARGS)
        attrs.update({
            "ns3::TcpL4Protocol::SocketType": ctl["ns3"],
            "ns3::TcpSocket::SndBufSize": str(buf),
            "ns3::TcpSocket::RcvBufSize": str(buf),
        })
        attrs.update(ctl["ns3_attrs"])
        attrs.update(self.queue().ns3_attrs)
        # (--buffer: the reverse (ACK) direction keeps a device DropTail of the same size)
        return ns3_suite.dumbbell_ns3_args(
            self.rate_bps, 10 * self.rate_bps, BNECK_DELAY_S, self.limit_pkts, self.rtts(), self.starts(),
            self.duration_s, self.warmup_s, attrs, [f"--qdisc={self.aqm}", f"--deviceQueue={DEVICE_QUEUE_PKTS}"])

    # ---- the ccsim side -----------------------------------------------
    def ccsim_scenario(self) -> dict:
        ctl = CONTROLLERS[self.controller]
        flows = [ns3_suite.ccsim_flow(COMMON_CCSIM_FIELDS, ctl["cc"], ctl["cc_params"], rtt, start)
                 for rtt, start in zip(self.rtts(), self.starts())]
        # the flow series only for DCTCP's alpha, every quarter of the shortest RTT
        return ns3_suite.dumbbell_ccsim(
            f"ns3-aqm-{self.id}", self.duration_s, self.warmup_s, self.rate_bps, 10 * self.rate_bps, BNECK_DELAY_S,
            self.queue().ccsim_fields, flows,
            sample_interval_s=min(self.rtts()) / 4 if self.controller == "dctcp" else 0)

M10, M100 = 10e6, 100e6

SCENARIOS: List[Scenario] = [
    Scenario("codel-cubic-1-10m-50ms", "CUBIC, 1 flow, CoDel", "cubic", "codel", 1, (0.05, 0.05), M10, 30, 1000),
    Scenario("codel-newreno-4-10m-200ms", "NewReno, 4 flows, CoDel", "newreno", "codel", 4, (0.2, 0.2), M10, 30, 1000),
    Scenario("codel-cubic-4-100m-10ms", "CUBIC, 4 flows, CoDel", "cubic", "codel", 4, (0.01, 0.01), M100, 20, 1000),
    Scenario("codel-newreno-1-100m-50ms", "NewReno, 1 flow, CoDel", "newreno", "codel", 1, (0.05, 0.05), M100, 20, 1000),
    Scenario("fqcodel-newreno-1-10m-10ms", "NewReno, 1 flow, FQ-CoDel", "newreno", "fq_codel", 1, (0.01, 0.01), M10, 30, 10240),
    Scenario("fqcodel-cubic-4-10m-50ms", "CUBIC, 4 flows, FQ-CoDel", "cubic", "fq_codel", 4, (0.05, 0.05), M10, 30, 10240),
    Scenario("fqcodel-cubic-4-100m-10-200ms", "CUBIC, 4 flows, RTTs 10-200 ms, FQ-CoDel", "cubic", "fq_codel", 4,
             (0.01, 0.2), M100, 20, 10240),
    Scenario("fqcodel-newreno-4-100m-50ms", "NewReno, 4 flows, FQ-CoDel", "newreno", "fq_codel", 4, (0.05, 0.05), M100, 20, 10240),
    Scenario("pie-cubic-1-10m-50ms", "CUBIC, 1 flow, PIE (ns-3's 25 packets)", "cubic", "pie", 1, (0.05, 0.05), M10, 30, 25),
    Scenario("pie-newreno-4-10m-10ms", "NewReno, 4 flows, PIE (ns-3's 25 packets)", "newreno", "pie", 4, (0.01, 0.01), M10, 30, 25),
    Scenario("pie-newreno-1-10m-200ms", "NewReno, 1 flow, PIE (ns-3's 25 packets)", "newreno", "pie", 1, (0.2, 0.2), M10, 30, 25),
    # 250 packets: 30 ms at 100 Mb/s, ns-3's 25 packets at 10 Mb/s (its 25 would
    # hold 3 ms, under PIE's 15 ms target: a drop-tail)
    Scenario("pie-cubic-4-100m-50ms", "CUBIC, 4 flows, PIE (250 packets, 30 ms)", "cubic", "pie", 4, (0.05, 0.05), M100, 20, 250),
    Scenario("dctcp-red-k20-1", "DCTCP, 1 flow, step at K = 20", "dctcp", "red", 1, (0.01, 0.01), M100, 20, 1000, 20),
    Scenario("dctcp-red-k20-4", "DCTCP, 4 flows, step at K = 20", "dctcp", "red", 4, (0.01, 0.01), M100, 20, 1000, 20),
    Scenario("dctcp-red-k65-1", "DCTCP, 1 flow, step at K = 65", "dctcp", "red", 1, (0.01, 0.01), M100, 20, 1000, 65),
    Scenario("dctcp-red-k65-4", "DCTCP, 4 flows, step at K = 65", "dctcp", "red", 4, (0.01, 0.01), M100, 20, 1000, 65),
]

QUICK = Scenario("quick-codel-cubic-2", "CUBIC, 2 flows, CoDel, 6 s (quick check)", "cubic", "codel", 2,
                 (0.02, 0.04), M10, 6, 1000)

# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------


def percentile(xs: List[float], q: float) -> float:
    """Nearest rank (the value at rank ceil(q n)), as dumbbell.cc computes it."""
    import math

    if not xs:
        return float("nan")
    s = sorted(xs)
    r = min(len(s), max(1, math.ceil(q * len(s))))
    return s[r - 1]


def _metrics(sc: Scenario, tx_bytes: int, arrivals: int, drops: int, marks: int, delivered: List[int],
             p50_s: float, p99_s: float, avg_queue: float, alpha: Optional[float],
             retransmits: int, timeouts: int) -> dict:
    window = sc.duration_s - sc.warmup_s
    m = {
        # beside the compared metrics: the counts behind the loss rate, and
        # the senders' repairs (where TCP rather than the queue differs)
        "drops": drops,
        "retransmits": retransmits,
        "timeouts": timeouts,
        "utilization": tx_bytes * 8 / (sc.rate_bps * window),
        "jain": jain([float(d) for d in delivered]),
        "loss_rate": drops / arrivals if arrivals else 0.0,
        "marks": marks,
        "qdelay_p50_ms": p50_s * 1e3,
        "qdelay_p99_ms": p99_s * 1e3,
        "avg_queue_pkts": avg_queue,
        "goodput_mbps": sum(delivered) * 8 / window / 1e6,
    }
    if alpha is not None:
        m["alpha"] = alpha
    return m


def run_ns3(sc: Scenario, exe: pathlib.Path) -> dict:
    raw, _ = ns3_suite.run_program(exe, sc.ns3_args(), sc.id)
    b, flows = raw["bottleneck"], raw["flows"]
    alphas = [f["dctcp_alpha_mean"] for f in flows if "dctcp_alpha_mean" in f]
    nan = float("nan")
    views = {
        "disc": (b.get("sojourn_p50_s", nan), b.get("sojourn_p99_s", nan), b["avg_qdisc_pkts"], b["max_qdisc_pkts"]),
        "total": (b.get("wait_p50_s", nan), b.get("wait_p99_s", nan), b["avg_queue_pkts"], b["max_queue_pkts"]),
    }
    view = sc.queue().ns3_view
    p50, p99, avg_q, max_q = views[view]
    m = _metrics(sc, b["tx_bytes"], b["arrivals"], b["drops"], b["marks"], [f["rx_bytes"] for f in flows],
                 p50, p99, avg_q, statistics.fmean(alphas) if alphas else None,
                 sum(f["retransmits"] for f in flows), sum(f["timeouts"] for f in flows))
    m["max_queue_pkts"] = max_q
    # the other view, reported beside the comparison (ns3_only)
    other = "total" if view == "disc" else "disc"
    o50, o99, o_avg, _ = views[other]
    m.update({f"{other}_p50_ms": o50 * 1e3, f"{other}_p99_ms": o99 * 1e3, f"{other}_avg_queue_pkts": o_avg})
    return {"metrics": m, "wall_s": raw["wall_s"]}


def ccsim_sojourns(trace: pathlib.Path, warmup_s: float) -> Tuple[List[float], int]:
    """Each data packet's wait in the bottleneck queue, ``+`` to ``-`` in its
    ns-2 trace, for the packets whose transmission started at or after
    ``warmup_s``; a packet dropped after being queued (CoDel's head drops) is
    left out, as in ns-3's count.

    Why a trace rather than the engine's ``qdelay = true`` figures: those
    describe the same packets (on every row of the suite their count is the
    link's ``tx_pkts``, as here, and their mean equals these waits' mean),
    but their percentiles are histogram bucket midpoints, within 1/128 of
    the exact ones (over the 16 rows p50 and p99 moved by up to 0.57%, e.g.
    codel-newreno-4-10m-200ms's p99 from 7.585 to 7.617 ms), while
    dumbbell.cc gives ns-3's side as exact nearest-rank percentiles of its
    per-packet sojourns: the trace keeps the comparison exact on both
    sides. It also gives the most packets waiting at once in the window
    (ccsim's own ``max_queue_pkts`` covers the whole run), which the DCTCP
    table reports. ``tests/test_ns3_aqm.py`` checks that the trace and the
    ``qdelay`` figures agree."""
    enq: Dict[str, float] = {}
    out: List[float] = []
    qmax = 0
    with open(trace, encoding="ascii") as fh:
        for line in fh:
            ev, t, _f, _t, ty, _sz, _fl, _fid, _src, _dst, _seq, pid = line.split()
            if ty != "tcp":
                continue
            if ev == "+":
                enq[pid] = float(t)
                if float(t) >= warmup_s:
                    qmax = max(qmax, len(enq))
            elif ev == "-":
                t0 = enq.pop(pid, None)
                tt = float(t)
                if t0 is not None and tt >= warmup_s:
                    out.append(tt - t0)
            elif ev == "d":
                enq.pop(pid, None)
    return out, qmax


def run_ccsim(sc: Scenario) -> dict:
    import ccsim

    with tempfile.TemporaryDirectory() as d:
        tr = pathlib.Path(d) / "bottleneck.tr"
        t0 = time.perf_counter()
        res = ccsim.run(sc.ccsim_scenario(), trace={"bottleneck": str(tr)})
        wall = time.perf_counter() - t0
        soj, qmax = ccsim_sojourns(tr, sc.warmup_s)
    raw = res.raw
    link = next(link for link in raw["links"] if link["from"] == "r0" and link["to"] == "r1")
    alpha = None
    if sc.controller == "dctcp":
        s = raw["series"]["flows"]
        a = [x for t, x in zip(s["time_s"], s["dctcp_alpha"]) if t > sc.warmup_s]
        alpha = statistics.fmean(a)
    m = _metrics(sc, link["tx_bytes"], link["arrivals"], link["drops"], link["marks"],
                 [f["delivered_bytes"] for f in raw["flows"]], percentile(soj, 0.5), percentile(soj, 0.99),
                 link["avg_queue_pkts"], alpha,
                 sum(f["retransmits"] for f in raw["flows"]), sum(f["timeouts"] for f in raw["flows"]))
    m["max_queue_pkts"] = qmax
    return {"metrics": m, "wall_s": raw.get("wall_s", wall)}


# --------------------------------------------------------------------------
# DCTCP's alpha on ns-3's own validation case (tcp-validation.cc, dctcp-10ms)
# --------------------------------------------------------------------------

ALPHA_ID = "dctcp-alpha"
ALPHA_DURATION_S, ALPHA_WARMUP_S = 10.0, 2.0
PRR, CLASSIC = "ns3::TcpPrrRecovery", "ns3::TcpClassicRecovery"
#: (label, device queue packets, BQL HoldTime or "", ns-3 recovery)
ALPHA_VARIANTS: List[Tuple[str, int, str, str]] = [
    ("tcp-validation's bottleneck: 3-packet device queue with BQL (1 ms), PRR", 3, "1ms", PRR),
    ("the same, classic recovery", 3, "1ms", CLASSIC),
    ("3-packet device queue, no BQL, PRR", 3, "", PRR),
    ("1-packet device queue, PRR", 1, "", PRR),
    ("1-packet device queue, classic recovery", 1, "", CLASSIC),
]


def alpha_ns3_args(device_queue: int, bql: str, recovery: str) -> List[str]:
    """ns-3's ``dctcp-10ms`` (examples/tcp/tcp-validation.cc) in dumbbell.cc:
    one TcpDctcp flow, 50 Mb/s, 10 ms, 1 Gb/s access links, CoDel with ECN
    and a 1 ms CE threshold on the bottleneck, tcp-validation's TCP settings
    (1448-byte segments, IW 10, 32 MB buffers, ns-3's other defaults:
    delayed ACKs every 2nd segment, SACK, 1 s minimum RTO), the flow from 0 s
    (tcp-validation: 5 s), measured over [2, 10] s (tcp-validation checks
    alpha after 7 s)."""
    args = [
        "--flows=1", "--rate=50000000.0", "--edgeRate=1000000000.0", f"--bneckDelay={BNECK_DELAY_S!r}",
        "--buffer=1000", "--edgeBuffer=1000", "--rtts=0.01", "--starts=0",
        f"--duration={ALPHA_DURATION_S!r}", f"--warmup={ALPHA_WARMUP_S!r}", "--sendSize=1448",
        "--qdisc=codel", f"--deviceQueue={device_queue}",
        "--ns3::TcpL4Protocol::SocketType=ns3::TcpDctcp", "--ns3::TcpSocket::SegmentSize=1448",
        "--ns3::TcpSocket::InitialCwnd=10", "--ns3::TcpSocket::SndBufSize=32768000",
        "--ns3::TcpSocket::RcvBufSize=32768000", f"--ns3::TcpL4Protocol::RecoveryType={recovery}",
        "--ns3::CoDelQueueDisc::UseEcn=true", "--ns3::CoDelQueueDisc::CeThreshold=1ms",
    ]
    if bql:
        args.append(f"--bql={bql}")
    return args


def alpha_ccsim_scenario() -> dict:
    """ccsim's side: crates/ccsim-core/tests/integration/dctcp.rs,
    ``ns3_dctcp_10ms_keeps_48_to_49_mbps_after_the_first_600_ms`` (one codel
    queue with ``ce_threshold_s = 0.001``, ns-3's delayed ACKs), over the same
    window, alpha sampled every 0.5 ms (each of its updates, ~11 ms apart)."""
    return {
        "name": "dctcp-10ms", "duration_s": ALPHA_DURATION_S, "warmup_s": ALPHA_WARMUP_S,
        "sample_interval_s": 0.0005,
        "topology": {"kind": "dumbbell", "bottleneck_rate_bps": 50e6, "bottleneck_delay_s": BNECK_DELAY_S,
                     "edge_rate_bps": 1e9,
                     "bottleneck_queue": {"kind": "codel", "ecn": True, "ce_threshold_s": 0.001}},
        "flows": [{"cc": "dctcp", "rtt_s": 0.01, "mss_bytes": 1448, "header_bytes": 54, "init_cwnd_pkts": 10,
                   "recovery": "sack", "delayed_ack": True, "delack_model": "fixed", "delack_timeout_s": 0.2}],
    }


def _alpha_row(label: str, alpha: List[float], f: List[float], marks: int, tx_bytes: int, p50: float, p99: float,
               avg_q: float) -> dict:
    window = ALPHA_DURATION_S - ALPHA_WARMUP_S
    return {"label": label, "alpha_mean": statistics.fmean(alpha), "alpha_min": min(alpha), "alpha_max": max(alpha),
            "f_mean": statistics.fmean(f), "updates": len(alpha), "marks": marks,
            "utilization": tx_bytes * 8 / (50e6 * window), "delay_p50_ms": p50 * 1e3, "delay_p99_ms": p99 * 1e3,
            "avg_queue_pkts": avg_q}


def run_alpha(exe: Optional[pathlib.Path], recorded: Optional[dict] = None) -> dict:
    """alpha, the marked fraction per window, marks and the queue in the
    ALPHA_VARIANTS of ns-3's bottleneck and in ccsim's test. ``recorded``:
    ns-3's rows from an earlier run (``--ccsim-only``)."""
    import ccsim

    if recorded is not None:
        rows = recorded["ns3"]
    else:
        rows = []
        for label, dq, bql, rec in ALPHA_VARIANTS:
            print(f"[ns3-aqm] {ALPHA_ID}: ns-3, {label} ...", file=sys.stderr, flush=True)
            raw, _ = ns3_suite.run_program(exe, alpha_ns3_args(dq, bql, rec), f"{ALPHA_ID} ({label})", nice=False)
            b, fl = raw["bottleneck"], raw["flows"][0]
            row = _alpha_row(label, [fl["dctcp_alpha_min"], fl["dctcp_alpha_max"]], [fl["dctcp_f_mean"]],
                             b["marks"], b["tx_bytes"], b["sojourn_p50_s"], b["sojourn_p99_s"], b["avg_qdisc_pkts"])
            row.update(alpha_mean=fl["dctcp_alpha_mean"], updates=fl["dctcp_alpha_updates"],
                       wait_p50_ms=b["wait_p50_s"] * 1e3, wait_p99_ms=b["wait_p99_s"] * 1e3,
                       avg_total_pkts=b["avg_queue_pkts"], device_queue_pkts=dq, bql=bql, recovery=rec)
            rows.append(row)
    print(f"[ns3-aqm] {ALPHA_ID}: ccsim ...", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory() as d:
        tr = pathlib.Path(d) / "bottleneck.tr"
        res = ccsim.run(alpha_ccsim_scenario(), trace={"bottleneck": str(tr)})
        soj, _ = ccsim_sojourns(tr, ALPHA_WARMUP_S)
    s, link = res.raw["series"]["flows"], res.raw["links"][0]
    g = 1.0 / 16
    alpha, f, prev = [], [], None
    for t, a in zip(s["time_s"], s["dctcp_alpha"]):
        if prev is not None and a != prev and t > ALPHA_WARMUP_S:
            alpha.append(a)
            f.append((a - (1 - g) * prev) / g)  # the window's marked fraction
        prev = a
    cc = _alpha_row("ccsim, crates/ccsim-core/tests/integration/dctcp.rs (one queue)", alpha, f, link["marks"], link["tx_bytes"],
                    percentile(soj, 0.5), percentile(soj, 0.99), link["avg_queue_pkts"])
    return {"ns3": rows, "ccsim": cc}


def alpha_markdown(res: dict) -> str:
    out = ["| run | α mean (min-max) | marked fraction per window | CE marks | utilisation | "
           "CoDel's sojourn p50 / p99 (ms) | whole wait p50 / p99 (ms) | mean queue, disc / whole (pkts) |",
           "|---|---|---|---|---|---|---|---|"]
    for r in res["ns3"] + [res["ccsim"]]:
        whole = (f"{r['wait_p50_ms']:.2f} / {r['wait_p99_ms']:.2f}" if "wait_p50_ms" in r
                 else f"{r['delay_p50_ms']:.2f} / {r['delay_p99_ms']:.2f}")
        q = (f"{r['avg_queue_pkts']:.2f} / {r['avg_total_pkts']:.2f}" if "avg_total_pkts" in r
             else f"{r['avg_queue_pkts']:.2f} / {r['avg_queue_pkts']:.2f}")
        name = r["label"] if "wait_p50_ms" not in r else f"ns-3, {r['label']}"
        out.append(f"| {name} | {r['alpha_mean']:.3f} ({r['alpha_min']:.3f}-{r['alpha_max']:.3f}) | "
                   f"{r['f_mean']:.3f} | {r['marks']:,} | {r['utilization']:.4f} | "
                   f"{r['delay_p50_ms']:.2f} / {r['delay_p99_ms']:.2f} | {whole} | {q} |")
    return "\n".join(out) + "\n"


def _select(quick: bool, only: Optional[List[str]]) -> List[Scenario]:
    return ns3_suite.select(SCENARIOS, QUICK, quick, only, "ns3-aqm", parts=[ALPHA_ID])


def _recorded(out: pathlib.Path) -> dict:
    return ns3_suite.recorded_run(out, RESULTS)


def run(quick: bool, out: pathlib.Path, only: Optional[List[str]] = None, ccsim_only: bool = False) -> dict:
    """Run the scenarios one at a time in ns-3 and ccsim; write ``out/ns3-aqm.json``.

    ``only``: these rows, merged into the recorded run (the other rows kept,
    ``merged`` set so the driver rewrites the docs). ``ccsim_only``: ns-3's
    column from the recorded run (deterministic), ccsim's re-run."""
    out = pathlib.Path(out)
    scenarios = _select(quick, only)
    do_alpha = not quick and (not only or ALPHA_ID in only)
    prev_path = out / RESULTS
    prev = json.loads(prev_path.read_text(encoding="utf-8")) if prev_path.exists() else {"scenarios": []}
    if ccsim_only:
        prev = _recorded(out)
    recorded = {s["id"]: s for s in prev.get("scenarios", [])}
    exe = None if ccsim_only else ns3_suite.build()
    results = ns3_suite.results_head(NAME, quick, prev, ccsim_only)
    done: Dict[str, dict] = {}
    for sc in scenarios:
        if ccsim_only:
            rec = ns3_suite.recorded_row(recorded, sc)
            n = {"metrics": {k: v["ns3"] for k, v in rec["metrics"].items()}, "wall_s": rec["wall_s"]["ns3"]}
        else:
            print(f"[ns3-aqm] {sc.id}: ns-3 ...", file=sys.stderr, flush=True)
            n = run_ns3(sc, exe)
        print(f"[ns3-aqm] {sc.id}: ccsim ...", file=sys.stderr, flush=True)
        c = run_ccsim(sc)
        keys = [k for k in n["metrics"] if k in c["metrics"]]
        done[sc.id] = {
            "id": sc.id,
            "description": sc.description,
            "params": sc.params(),
            "metrics": {k: {"ns3": n["metrics"][k], "ccsim": c["metrics"][k]} for k in keys},
            "ns3_only": {k: v for k, v in n["metrics"].items() if k not in c["metrics"]},
            "wall_s": {"ns3": n["wall_s"], "ccsim": c["wall_s"]},
        }
        if ccsim_only and "ns3_only" in recorded[sc.id]:
            done[sc.id]["ns3_only"] = recorded[sc.id]["ns3_only"]
        print(f"[ns3-aqm] {sc.id}: done (ns-3 {n['wall_s']:.1f} s, ccsim {c['wall_s']:.2f} s)",
              file=sys.stderr, flush=True)
        results["scenarios"] = _merged(recorded, done) if only and not quick else list(done.values())
        _write(out, results, RESULTS)
    results["scenarios"] = _merged(recorded, done) if only and not quick else list(done.values())
    if not quick:
        results["dctcp_alpha"] = prev.get("dctcp_alpha")
    if do_alpha:
        results["dctcp_alpha"] = run_alpha(exe, prev.get("dctcp_alpha") if ccsim_only else None)
    if only and not quick:
        results["merged"] = True
    _write(out, {k: v for k, v in results.items() if k != "merged"}, RESULTS)
    return results


def run_seeds(ids: List[str], seeds: List[int], out: pathlib.Path) -> dict:
    """Each row of ``ids`` with each start-phase seed in ns-3 and ccsim, into
    ``out/ns3-aqm-seeds.json`` (resumable: a recorded (id, seed) with the same
    parameters is not run again): how far a multi-flow row moves with the
    phase of its starts, which one deterministic run samples once."""
    import ccsim

    known = {s.id: s for s in SCENARIOS}
    bad = [i for i in ids if i not in known]
    if bad:
        raise ValueError(f"ids: unknown ns3-aqm scenario(s) {', '.join(bad)}")
    if not seeds or any(k < 1 for k in seeds):
        raise ValueError(f"seeds: {seeds}; allowed: one or more integers >= 1")
    path = pathlib.Path(out) / "ns3-aqm-seeds.json"
    res = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"runs": []}
    res.update(peer=NAME, peer_version=_peer_version(), ccsim_version=ccsim.__version__)
    exe = ns3_suite.build()
    for i in ids:
        for k in seeds:
            sc = dataclasses.replace(known[i], seed=k)
            if any(r["id"] == i and r["params"] == sc.params() for r in res["runs"]):
                continue
            print(f"[ns3-aqm] {i} seed {k} ...", file=sys.stderr, flush=True)
            n, c = run_ns3(sc, exe), run_ccsim(sc)
            res["runs"] = [r for r in res["runs"] if not (r["id"] == i and r["params"].get("seed") == k)]
            res["runs"].append({"id": i, "params": sc.params(),
                                "metrics": {m: {"ns3": n["metrics"][m], "ccsim": c["metrics"][m]} for m in METRICS}})
            _write(pathlib.Path(out), res, path.name)
    return res


def seeds_markdown(res: dict) -> str:
    """Mean, standard error and range over the seeds, per row and metric."""
    def se(x: List[float]) -> float:
        return statistics.stdev(x) / len(x) ** 0.5 if len(x) > 1 else float("nan")

    rows = ["| row | seeds | metric | ns-3 mean ± s.e. (range) | ccsim mean ± s.e. (range) | difference |",
            "|---|---|---|---|---|---|"]
    for i in sorted({r["id"] for r in res["runs"]}, key=[s.id for s in SCENARIOS].index):
        runs = [r for r in res["runs"] if r["id"] == i]
        for m in METRICS:
            a = [r["metrics"][m]["ns3"] for r in runs]
            b = [r["metrics"][m]["ccsim"] for r in runs]
            ma, mb = statistics.fmean(a), statistics.fmean(b)
            d = rel_diff(ma, mb)
            rows.append(f"| {i} | {len(runs)} | {METRIC_LABELS[m]} | {ma:.4g} ± {se(a):.2g} ({min(a):.4g}-{max(a):.4g}) "
                        f"| {mb:.4g} ± {se(b):.2g} ({min(b):.4g}-{max(b):.4g}) | "
                        + ("n/a" if d is None else f"{d:+.1%}") + " |")
    return "\n".join(rows) + "\n"


def _merged(recorded: Dict[str, dict], done: Dict[str, dict]) -> List[dict]:
    """The recorded rows with ``done`` replacing theirs, in SCENARIOS order."""
    rows = dict(recorded)
    rows.update(done)
    order = [s.id for s in SCENARIOS]
    return sorted(rows.values(), key=lambda r: order.index(r["id"]) if r["id"] in order else len(order))


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------


def flagged(metric: str, ns3: float, cc: float) -> bool:
    d = rel_diff(ns3, cc)
    return d is None or abs(d) > TOLERANCE


def _fmt(metric: str, x: float) -> str:
    if x != x:
        return "n/a"
    if metric == "marks":
        return f"{int(x):,}"
    if metric == "loss_rate":
        return f"{x:.2e}" if 0 < x < 1e-3 else f"{x:.4f}"
    if metric in ("qdelay_p50_ms", "qdelay_p99_ms"):
        return f"{x:.2f}"
    if metric in ("avg_queue_pkts", "alpha"):
        return f"{x:.3g}" if metric == "alpha" else f"{x:.1f}"
    return f"{x:.4f}"


def defaults_markdown() -> str:
    """The mapping of both sides (docs/validation.md): the TCP settings, then each queue."""
    lines = [ns3_suite.defaults_markdown(DEFAULTS)]
    lines += ["", "| queue | parameter | ns-3 3.44 (`" + "`, `".join(
        sorted({queue_map(a, 1, 1).ns3_type for a in ('codel', 'fq_codel', 'pie', 'red')})) + "`) | ccsim | used |",
        "|---|---|---|---|---|"]
    for aqm, limit in (("codel", 1000), ("fq_codel", 10240), ("pie", 25), ("red", 1000)):
        q = queue_map(aqm, limit, 20)
        for item, ns3, cc, used in q.rows:
            lines.append(f"| `{q.ccsim_kind}` | {item} | {ns3} | {cc} | {used} |")
    return "\n".join(lines)


def markdown(results: dict) -> str:
    """The generated part of docs/validation.md for the AQM/DCTCP comparison."""
    out = [
        f"Generated by `python -m validation.run --peer ns3-aqm` on {results['date']}: "
        f"ns-3 {results['peer_version']}, ccsim {results['ccsim_version']}"
        + (" (quick run)" if results.get("quick") else "")
        + (f"; ns-3's column as recorded on {results['ns3_recorded']}, ccsim's re-run (`--ccsim-only`)"
           if results.get("ns3_recorded") else "")
        + f". Raw numbers: `validation/results/ns3-aqm/{RESULTS}`. Differences over {TOLERANCE:.0%} are in "
        "**bold**; the window is the last two thirds of each run.",
        "",
        "#### Scenarios",
        "",
        "| id | description | queue | cc | flows | RTT (ms) | rate | buffer (pkts) | duration (s) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s in results["scenarios"]:
        p = s["params"]
        lo, hi = p["rtt_s"]
        rtt = f"{lo * 1e3:g}" if lo == hi else f"{lo * 1e3:g}-{hi * 1e3:g}"
        q = p["aqm"] + (f" K={p['k']}" if p["aqm"] == "red" else "")
        out.append(f"| {s['id']} | {s['description']} | {q} | {p['controller']} | {p['flows']} | {rtt} | "
                   f"{_rate(p['rate_bps'])} | {p['limit_pkts']} | {p['duration_s']:g} |")
    out += ["", "#### Metrics side by side (ns-3 / ccsim)", "",
            "| id | " + " | ".join(METRIC_LABELS[m] for m in METRICS) + " |",
            "|---|" + "---|" * len(METRICS)]
    n_all = n_flag = 0
    for s in results["scenarios"]:
        cells = []
        for m in METRICS:
            v = s["metrics"].get(m)
            if v is None:
                cells.append("—")
                continue
            a, b = v["ns3"], v["ccsim"]
            d = rel_diff(a, b)
            txt = f"{_fmt(m, a)} / {_fmt(m, b)}"
            notes = []
            if d is not None and d != 0:
                notes.append(f"{d:+.1%}")
            if m in ("qdelay_p50_ms", "qdelay_p99_ms") and a == a and b == b:
                # delays come in steps of about one transmission time
                tx_ms = PKT_BYTES * 8 / s["params"]["rate_bps"] * 1e3
                k = (b - a) / tx_ms
                if abs(k) >= 0.5:
                    notes.append(f"{k:+.1f} tx")
            if m == "loss_rate":
                notes.append(f"{s['metrics']['drops']['ns3']:,} / {s['metrics']['drops']['ccsim']:,} drops")
            if notes:
                txt += " (" + ", ".join(notes) + ")"
            n_all += 1
            if flagged(m, a, b):
                n_flag += 1
                txt = f"**{txt}**"
            cells.append(txt)
        out.append(f"| {s['id']} | " + " | ".join(cells) + " |")
    out += ["", f"{n_all - n_flag} of {n_all} metric pairs agree within {TOLERANCE:.0%}.", ""]
    dctcp = [s for s in results["scenarios"] if s["params"]["controller"] == "dctcp"]
    if dctcp:
        out += ["#### DCTCP against the paper's analysis", "",
                "Alizadeh et al. (SIGCOMM 2010) §3.3, N synchronised flows, C·RTT in packets: each window "
                "peaks at W* = (C·RTT + K)/N, α ≈ √(2/W*), the queue peaks at Q_max = K + N and swings by "
                "A = ½·√(2N(C·RTT + K)), so it stays above K + N − A > 0.",
                "",
                "| id | K | N | C·RTT (pkts) | Q_max = K + N | A | goodput (Mb/s) ns-3 / ccsim | mean queue ns-3 / ccsim "
                "| max queue ns-3 / ccsim | √(2/W*) | α ns-3 / ccsim |",
                "|---|---|---|---|---|---|---|---|---|---|---|"]
        for s in dctcp:
            p = s["params"]
            c_rtt = p["rate_bps"] * p["rtt_s"][0] / (8 * PKT_BYTES)
            k, n = p["k"], p["flows"]
            amp = 0.5 * (2 * n * (c_rtt + k)) ** 0.5
            m = s["metrics"]
            out.append(
                f"| {s['id']} | {k} | {n} | {c_rtt:.1f} | {k + n} | {amp:.1f} | "
                f"{m['goodput_mbps']['ns3']:.2f} / {m['goodput_mbps']['ccsim']:.2f} | "
                f"{m['avg_queue_pkts']['ns3']:.1f} / {m['avg_queue_pkts']['ccsim']:.1f} | "
                f"{m['max_queue_pkts']['ns3']:g} / {m['max_queue_pkts']['ccsim']:g} | "
                f"{(2 * n / (c_rtt + k)) ** 0.5:.3f} | {m['alpha']['ns3']:.3f} / {m['alpha']['ccsim']:.3f} |")
        out.append("")
    out += ["#### ns-3's other view of the queue, and wall time", "",
            "The metrics above compare ccsim's queue with ns-3's disc for CoDel, FQ-CoDel and PIE (what they "
            "measure and control) and with disc + device queue for RED's step (what its threshold is mapped on); "
            "the other ns-3 view of each row:",
            "",
            "| id | ns-3 view | delay p50 / p99 (ms) | mean queue (pkts) | retransmissions ns-3 / ccsim "
            "| timeouts ns-3 / ccsim | ns-3 wall (s) | ccsim wall (s) | ns-3 / ccsim |",
            "|---|---|---|---|---|---|---|---|---|"]
    tn = tc = 0.0
    for s in results["scenarios"]:
        w = s.get("ns3_only", {})
        other = "total" if "total_p50_ms" in w else "disc"
        label = "disc + device" if other == "total" else "disc alone"
        a, b = s["wall_s"]["ns3"], s["wall_s"]["ccsim"]
        tn, tc = tn + a, tc + b
        rt, to = s["metrics"]["retransmits"], s["metrics"]["timeouts"]
        out.append(f"| {s['id']} | {label} | {w.get(other + '_p50_ms', float('nan')):.2f} / "
                   f"{w.get(other + '_p99_ms', float('nan')):.2f} | {w.get(other + '_avg_queue_pkts', float('nan')):.1f} "
                   f"| {rt['ns3']:,} / {rt['ccsim']:,} | {to['ns3']:,} / {to['ccsim']:,} "
                   f"| {a:.2f} | {b:.3f} | {a / b:.0f}x |")
    if tc > 0:
        out.append(f"| all | | | | | | {tn:.1f} | {tc:.2f} | {tn / tc:.0f}x |")
    if results.get("dctcp_alpha"):
        out += ["", "#### DCTCP's α on ns-3's `dctcp-10ms` bottleneck (`tcp-validation.cc`)", "",
                f"One DCTCP flow, 50 Mb/s, 10 ms, CoDel marking above 1 ms of sojourn, measured over "
                f"[{ALPHA_WARMUP_S:g}, {ALPHA_DURATION_S:g}] s; ns-3 in dumbbell.cc with tcp-validation's settings "
                "and the bottleneck's device layer varied (`ns3_aqm.ALPHA_VARIANTS`), ccsim in its test's scenario. "
                "α is the mean over its updates (once per window).", "",
                alpha_markdown(results["dctcp_alpha"]).rstrip()]
    return "\n".join(out) + "\n"


if __name__ == "__main__":  # a convenience; the driver is validation/run.py
    import argparse

    ap = argparse.ArgumentParser(description="ccsim's AQMs and DCTCP against ns-3 3.44")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent / "results" / NAME)
    ap.add_argument("--ccsim-only", action="store_true")
    ap.add_argument("--seeds", type=int, nargs="+", help="run the named rows over these start-phase seeds")
    ap.add_argument("only", nargs="*")
    a = ap.parse_args()
    if a.seeds:
        print(seeds_markdown(run_seeds(a.only, a.seeds, a.out)))
    else:
        print(markdown(run(a.quick, a.out, a.only or None, ccsim_only=a.ccsim_only)))
