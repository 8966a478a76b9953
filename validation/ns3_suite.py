"""ccsim against ns-3 3.44: the same dumbbell scenarios run in both, side by side.

Called by the validation driver (``python -m validation.run --peer ns3``),
which installs the peer with :func:`install` when :func:`installed` is false,
then calls :func:`run` and puts :func:`markdown`'s text into
docs/validation.md. ns-3 is a peer to measure against, never a ccsim
dependency: nothing under ``python/ccsim`` imports it.

ns-3 comes from the Python package index (``ns3==3.44.post0``), which ships
ns-3's headers and shared libraries beside its cppyy bindings. The scenario
program, ``validation/ns3/dumbbell.cc``, is compiled once with the system's
C++ compiler against them (rpath to the wheel's ``lib64``) into
``validation/ns3/build/`` and reused: cppyy's JIT start-up would cost more
than most of the runs themselves.

Every difference between ns-3's defaults and ccsim's is set explicitly, in
:data:`DEFAULTS` (one row per default, saying which side was changed); the
ns-3 side is given to the program as ns-3's own ``--ns3::Class::Attr=value``
command-line defaults, the ccsim side as scenario fields. Both sides are
measured the same way from raw counters over ``[warmup_s, duration_s]``:

* utilisation: bytes whose serialisation onto the forward bottleneck started
  in the window x 8 / (rate x window) (ns-3 ``PhyTxBegin``; ccsim
  ``tx_bytes``), wire bytes including headers (and ns-3's PPP header);
* loss rate: bottleneck queue drops / packets offered to the bottleneck;
* goodput: payload bytes delivered in order to the receiving applications
  (ns-3 ``PacketSink`` ``Rx``; ccsim ``delivered_bytes``), Mb/s, all flows;
* Jain's index over the flows' delivered bytes in the window;
* retransmissions: retransmitted data segments (ns-3 ``TcpSocketBase``
  ``Retransmission`` trace; ccsim ``retransmits``), all flows;
* timeouts: retransmission-timer expiries (ns-3: ``ReTxTimeout``'s doubling
  of ``m_rto``; ccsim ``timeouts``), all flows;
* wall time: the simulation loop only (ns-3 ``Simulator::Run``; ccsim's
  engine ``wall_s``), so ns-3's program start-up and topology building and
  ccsim's scenario validation are both left out.
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import importlib.metadata
import json
import os
import pathlib
import random
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

NAME = "ns3"
PEER_PACKAGE = "ns3"
PEER_VERSION = "3.44.post0"

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = HERE / "ns3" / "dumbbell.cc"
BUILD_DIR = HERE / "ns3" / "build"

MSS = 1448
# ns-3's data packet on a point-to-point link: 20 B IPv4 + 20 B TCP + 12 B
# for the timestamp option (10 B, padded to a multiple of 4; ns-3 sends it on
# every segment by default, as Linux) + 2 B PPP header, which the device
# serialises at the link rate. ccsim's header_bytes is all of it.
HEADER_BYTES = 20 + 20 + 12 + 2
PKT_BYTES = MSS + HEADER_BYTES
EDGE_BUFFER_PKTS = 1000  # ccsim's default edge_queue
BNECK_DELAY_S = 0.005

METRICS = ["utilization", "loss_rate", "goodput_mbps", "jain", "retransmits", "timeouts"]
METRIC_LABELS = {
    "utilization": "utilisation",
    "loss_rate": "loss rate",
    "goodput_mbps": "goodput (Mb/s)",
    "jain": "Jain's index",
    "retransmits": "retransmissions",
    "timeouts": "timeouts",
}
TOLERANCE = 0.05

# --------------------------------------------------------------------------
# Controllers: ns-3 TypeId, ccsim cc and the parameters that make them agree.
# --------------------------------------------------------------------------

CONTROLLERS: Dict[str, dict] = {
    "newreno": {"ns3": "ns3::TcpNewReno", "cc": "reno", "cc_params": {}, "ns3_attrs": {}},
    "cubic": {
        "ns3": "ns3::TcpCubic",
        "cc": "cubic",
        "cc_params": {},
        # HyStart is on by default in ns-3 (tcp-cubic.cc); ccsim's cubic has
        # it as an option, off by default (`hystart`), so ns-3's is turned off.
        "ns3_attrs": {"ns3::TcpCubic::HyStart": "false"},
    },
    "highspeed": {
        "ns3": "ns3::TcpHighSpeed",
        "cc": "hstcp",
        # ns-3's TcpHighSpeed looks a(w), b(w) up in RFC 3649's Appendix B
        # table (tcp-highspeed.cc TableLookupA/B); ccsim's default is the
        # continuous formula, so ccsim is set to the table.
        "cc_params": {"a_b": "table"},
        "ns3_attrs": {},
    },
    "scalable": {
        "ns3": "ns3::TcpScalable",
        "cc": "stcp",
        "cc_params": {},
        # ns-3 adds one segment per min(cwnd, AIFactor) ACKs; its default 50
        # is a = 0.02. Kelly's and ccsim's (and Linux's) a = 0.01 is 100.
        "ns3_attrs": {"ns3::TcpScalable::AIFactor": "100"},
    },
    "htcp": {"ns3": "ns3::TcpHtcp", "cc": "htcp", "cc_params": {}, "ns3_attrs": {}},
    "bic": {
        "ns3": "ns3::TcpBic",
        "cc": "bic",
        "cc_params": {},
        # ns-3's Beta is 0.8; ccsim's (Linux's) 819/1024.
        "ns3_attrs": {"ns3::TcpBic::Beta": "0.7998046875"},
    },
    "vegas": {"ns3": "ns3::TcpVegas", "cc": "vegas", "cc_params": {}, "ns3_attrs": {}},
}

# --------------------------------------------------------------------------
# Defaults that differ between ns-3 3.44 and ccsim, and what is run.
# (item, ns-3 default, ccsim default, value used, side changed, ns-3 args)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Default:
    item: str
    ns3: str
    ccsim: str
    used: str
    changed: str  # "ns-3", "ccsim", "both", "none (same)", "neither (differs)"
    ns3_args: Dict[str, str] = field(default_factory=dict)
    ccsim_fields: Dict[str, object] = field(default_factory=dict)


DEFAULTS: List[Default] = [
    Default(
        "segment size (payload)",
        "536 B (`TcpSocket::SegmentSize`)",
        "1000 B (`mss_bytes`)",
        "1448 B",
        "both",
        {"ns3::TcpSocket::SegmentSize": str(MSS)},
        {"mss_bytes": MSS},
    ),
    Default(
        "header and framing bytes per data packet",
        "20 IPv4 + 20 TCP + 12 timestamp option + 2 PPP = 54 B (fixed by the stack)",
        "40 B (`header_bytes`)",
        "54 B",
        "ccsim",
        {},
        {"header_bytes": HEADER_BYTES},
    ),
    Default(
        "ACK size without SACK blocks",
        "54 B, as a data packet's headers",
        "`header_bytes`",
        "54 B",
        "ccsim (`header_bytes`)",
    ),
    Default(
        "SACK blocks on an ACK",
        "while holes are open, up to 3 (`TcpSocketBase::AddOptionSack`: the 40 option bytes less the "
        "10-byte timestamp, 2 + 8 per block): the block holding the segment that triggered the ACK first, "
        "then the most recently reported ones (RFC 2018 §4, `TcpRxBuffer::UpdateSackList`); 8 B each "
        "(`TcpOptionSack` is 2 + 8n B, and `TcpHeader` pads the options to 4-byte words)",
        "the same rule (up to 3, RFC 2018 §4's order); no bytes for them (`sack_option = \"none\"`)",
        "8 B per block (`sack_option = \"ns3\"`) in the SACK rows",
        "ccsim",
        {},
        {"sack_option": "ns3"},
    ),
    Default(
        "initial window",
        "10 segments (`TcpSocket::InitialCwnd`)",
        "10 segments (`init_cwnd_pkts`)",
        "2 segments (the settings the comparison was recorded with)",
        "both",
        {"ns3::TcpSocket::InitialCwnd": "2"},
    ),
    Default(
        "initial ssthresh",
        "UINT32_MAX bytes (`InitialSlowStartThreshold`)",
        "1e9 segments",
        "as is (both unbounded)",
        "none (same)",
    ),
    Default(
        "minimum RTO",
        "1 s (`TcpSocketBase::MinRto`)",
        "0.2 s (`min_rto_s`)",
        "0.2 s",
        "ns-3",
        {"ns3::TcpSocketBase::MinRto": "200ms"},
    ),
    Default(
        "clock granularity G in RTO = SRTT + max(G, 4 RTTVAR)",
        "1 ms (`TcpSocketBase::ClockGranularity`)",
        "10 ms (`clock_granularity_s`)",
        "10 ms",
        "ns-3",
        {"ns3::TcpSocketBase::ClockGranularity": "10ms"},
    ),
    Default(
        "RTT estimator",
        "`RttMeanDeviation`, α 1/8, β 1/4, a sample per ACK from timestamps",
        "`rtt_estimator = \"rfc6298\"`: the same gains, a sample per ACK of new data",
        "as is",
        "none (same)",
    ),
    Default(
        "initial RTO",
        "1 s (`RttEstimator::InitialEstimation`), but the SYN/SYN-ACK gives a sample first",
        "1 s (`init_rto_s`), no handshake",
        "as is",
        "none (the handshake differs, below)",
    ),
    Default(
        "RTO retries before the connection is dropped",
        "6 (`TcpSocket::DataRetries`)",
        "never dropped",
        "1000 (so no ns-3 flow gives up in a many-flow, small-buffer run)",
        "ns-3",
        {"ns3::TcpSocket::DataRetries": "1000"},
    ),
    Default(
        "ACK ratio (delayed ACKs)",
        "every 2nd segment, 200 ms timer (`TcpSocket::DelAckCount` 2)",
        "every 2nd segment, each at once for the first 16 and while the receive window grows,"
        " an adaptive 40-200 ms timer (`delayed_ack`, `delack_model = \"linux\"`)",
        "every segment (`delayed_ack = false`)",
        "both",
        {"ns3::TcpSocket::DelAckCount": "1"},
    ),
    Default(
        "loss recovery",
        "PRR, RFC 6937 (`TcpL4Protocol::RecoveryType` = `TcpPrrRecovery`)",
        "RFC 6675 with `recovery = \"sack\"`, RFC 6582 with `\"newreno\"`; PRR (RFC 9937) off (`prr = false`)",
        "ns-3 `TcpClassicRecovery` (cwnd = ssthresh on entry; with SACK, pipe-limited sending)",
        "ns-3",
        {"ns3::TcpL4Protocol::RecoveryType": "ns3::TcpClassicRecovery"},
    ),
    Default(
        "SACK",
        "on (`TcpSocketBase::Sack`)",
        "on (`recovery = \"sack\"`)",
        "per scenario: ns-3 `Sack` true with ccsim `recovery = \"sack\"`, false with `\"newreno\"`",
        "both, per scenario",
    ),
    Default(
        "Limited Transmit (RFC 3042)",
        "on (`TcpSocketBase::LimitedTransmit`)",
        "on (`limited_transmit`)",
        "on",
        "none (same)",
    ),
    Default(
        "duplicate-ACK threshold",
        "3 (`TcpSocketBase::ReTxThreshold`)",
        "3 (`dupthresh`)",
        "3",
        "none (same)",
    ),
    Default(
        "HyStart (CUBIC)",
        "on (`TcpCubic::HyStart`)",
        "off by default (`cc_params.hystart`, ns-3's rules)",
        "off",
        "ns-3",
    ),
    Default(
        "HighSpeed a(w), b(w)",
        "RFC 3649 Appendix B table",
        "continuous formula (`a_b = \"formula\"`)",
        "table",
        "ccsim",
    ),
    Default(
        "Scalable TCP additive increase",
        "+1 segment per min(cwnd, 50) ACKs (`TcpScalable::AIFactor` 50)",
        "a = 0.01 per ACK above `legacy_window` 16",
        "ns-3 AIFactor 100 (a = 0.01)",
        "ns-3",
    ),
    Default(
        "BIC β",
        "0.8 (`TcpBic::Beta`)",
        "819/1024 = 0.7998 (`beta`)",
        "0.7998",
        "ns-3",
    ),
    Default(
        "bottleneck queue",
        "pfifo_fast queue disc (1000 packets) in the traffic-control layer in front of a "
        "100-packet DropTail device queue",
        "one DropTail of `limit_pkts` waiting packets, the one in service not counted",
        "no queue disc (`TrafficControlHelper::Uninstall`), device DropTail queue of B packets: "
        "B wait, the one being serialised is not in the queue",
        "ns-3",
    ),
    Default(
        "order of a packet's arrival at a queue and the departure at the same instant",
        "arrival first: `PointToPointNetDevice::TransmitStart` schedules the far end's `Receive` "
        "(`PointToPointChannel::TransmitStart`, transmission plus propagation ahead) when a "
        "transmission starts, the device's `TransmitComplete` one transmission time ahead, and the "
        "scheduler runs equal times in insertion order (`Scheduler::EventKey` `operator<`: `m_ts`, "
        "then `m_uid`), so an arrival scheduled a hop earlier runs before the departure; as ns-2",
        "`ties = \"event_order\"` (the departure's `LinkFree` first)",
        "`ties = \"arrival_first\"` on every queue",
        "ccsim",
    ),
    Default(
        "access (edge) links",
        "as configured",
        "100 Gb/s, DropTail 1000 packets",
        "10 x the bottleneck rate, DropTail 1000 packets, no queue disc",
        "both",
    ),
    Default(
        "send and receive buffers",
        "128 KiB each (`SndBufSize`, `RcvBufSize`): caps the window at ~90 segments",
        "unlimited (`rwnd_pkts` 1e7)",
        "4 x (largest BDP + buffer) bytes, at least 4 MiB (never the limit)",
        "ns-3",
    ),
    Default(
        "connection set-up",
        "three-way handshake: data start one RTT after the application",
        "no handshake: data at `start_s`",
        "as is (all flows start before the warm-up ends)",
        "neither (differs)",
    ),
    Default(
        "window scaling, timestamps",
        "on, on",
        "not modelled (no window limit), timestamps implied by the per-ACK RTT sample",
        "as is",
        "none (same behaviour)",
    ),
    Default(
        "RTT sample resolution",
        "whole milliseconds: timestamp values are `Simulator::Now().GetMilliSeconds()` "
        "(`TcpOptionTS::NowToTsValue`), so each sample is an integer number of ms",
        "exact (the simulator clock, picoseconds)",
        "as is (ns-3 cannot be set finer; ccsim has no coarser mode for this estimator)",
        "neither (differs; see cause 4 below)",
    ),
    Default(
        "pacing, ECN",
        "off, off",
        "`pacing = \"none\"`, `ecn = false`",
        "off",
        "none (same)",
    ),
    Default(
        "application",
        "BulkSend, 512-byte writes (`SendSize`)",
        "infinite FTP (`app = \"bulk\"`)",
        "BulkSend with 1448-byte writes, unlimited",
        "ns-3",
    ),
]

#: Mapping rows shared by the comparisons run with Linux's TCP settings
#: (1448-byte segments, IW 10, a 0.2 s minimum RTO, every segment ACKed:
#: validation/ns3_aqm.py, validation/ns3_bbr.py), each written once here.
LINUX_TCP_ROWS: Dict[str, Default] = {
    "segment": Default("segment size (payload)", "536 B (`TcpSocket::SegmentSize`)", "1000 B (`mss_bytes`)",
                       "1448 B", "both", {"ns3::TcpSocket::SegmentSize": str(MSS)}, {"mss_bytes": MSS}),
    "iw": Default("initial window", "10 segments", "10 segments", "10", "none (same)",
                  {"ns3::TcpSocket::InitialCwnd": "10"}, {"init_cwnd_pkts": 10}),
    "min_rto": Default("minimum RTO", "1 s (`TcpSocketBase::MinRto`)", "0.2 s (`min_rto_s`)", "0.2 s (Linux's)",
                       "ns-3", {"ns3::TcpSocketBase::MinRto": "200ms"}, {"min_rto_s": 0.2}),
    "clock": Default("clock granularity in the RTO", "1 ms", "10 ms (`clock_granularity_s`)", "10 ms", "ns-3",
                     {"ns3::TcpSocketBase::ClockGranularity": "10ms"}, {"clock_granularity_s": 0.01}),
    "retries": Default("RTO retries", "6 (`TcpSocket::DataRetries`)", "never given up", "1000", "ns-3",
                       {"ns3::TcpSocket::DataRetries": "1000"}),
    "limited_transmit": Default("Limited Transmit, duplicate-ACK threshold", "on, 3", "on, 3", "on, 3",
                                "none (same)", {}, {"limited_transmit": True, "dupthresh": 3}),
    "cubic": Default("CUBIC", "`TcpCubic`: HyStart on; RFC 8312 (no W_est switch); segments counted",
                     "`cubic`: HyStart off (`hystart`); RFC 9438 (`alpha_switch = true`); `abc = false`",
                     "HyStart off; `alpha_switch = false`; `abc = true`", "both"),
    "ties": Default("order of a tied arrival and departure", "arrival first", "`ties = \"event_order\"`",
                    "`ties = \"arrival_first\"` on every queue", "ccsim"),
    "buffers": Default("send and receive buffers", "128 KiB", "unlimited", "at least 4 MiB (never the limit)",
                       "ns-3"),
    "application": Default("application", "BulkSend, 512-byte writes", "infinite FTP",
                           "BulkSend, 1448-byte writes", "ns-3"),
}

COMMON_NS3_ARGS: Dict[str, str] = {}
for _d in DEFAULTS:
    COMMON_NS3_ARGS.update(_d.ns3_args)
COMMON_CCSIM_FIELDS: Dict[str, object] = {
    "mss_bytes": MSS,
    "header_bytes": HEADER_BYTES,
    "init_cwnd_pkts": 2,
    "min_rto_s": 0.2,
    "clock_granularity_s": 0.01,
    "delayed_ack": False,
    "limited_transmit": True,
    "dupthresh": 3,
    "rtt_estimator": "rfc6298",
}
#: The ccsim fields of the rows with SACK (ccsim's `sack_option` needs `recovery = "sack"`).
SACK_CCSIM_FIELDS: Dict[str, object] = next(d.ccsim_fields for d in DEFAULTS if d.item == "SACK blocks on an ACK")

# --------------------------------------------------------------------------
# Scenarios
# --------------------------------------------------------------------------


def bdp_pkts(rate_bps: float, rtt_s: float) -> int:
    """Bandwidth-delay product in full-size packets (payload + headers)."""
    return max(1, round(rate_bps * rtt_s / (8 * PKT_BYTES)))


# The dumbbell both sides build, shared by the ns-3 comparisons
# (validation/ns3_aqm.py, validation/ns3_bbr.py, benches/peer_ns3.py): one
# place for the program's arguments and the ccsim scenario around them.


def mapped(defaults: Sequence["Default"]) -> Tuple[Dict[str, str], Dict[str, object]]:
    """The ns-3 attributes and the ccsim flow fields of a mapping's rows."""
    ns3: Dict[str, str] = {}
    ccsim: Dict[str, object] = {}
    for d in defaults:
        ns3.update(d.ns3_args)
        ccsim.update(d.ccsim_fields)
    return ns3, ccsim


def spread_rtts(rtt_s: Tuple[float, float], n_flows: int) -> List[float]:
    """``n_flows`` RTTs from ``rtt_s = (lo, hi)``: equal when lo == hi, else evenly spread."""
    lo, hi = rtt_s
    if n_flows == 1 or lo == hi:
        return [float(lo)] * n_flows
    step = (hi - lo) / (n_flows - 1)
    return [round(lo + i * step, 9) for i in range(n_flows)]


def staggered_starts(n_flows: int, seed: int = 0) -> List[float]:
    """Start times staggered over the first second, in flow order, the same
    on both sides; ``seed`` > 0 moves each within its 1/n slot by a uniform
    draw from ``random.Random(seed)``."""
    base = [i * 1.0 / n_flows for i in range(n_flows)]
    if seed:
        rng = random.Random(seed)
        base = [b + rng.uniform(0.0, 1.0 / n_flows) for b in base]
    return [round(b, 9) for b in base]


def socket_buffer_bytes(rate_bps: float, max_rtt_s: float, buffer_pkts: int) -> int:
    """ns-3's send and receive buffers: four windows of BDP + buffer, at least
    4 MiB (never the limit)."""
    return max(4 << 20, 4 * (bdp_pkts(rate_bps, max_rtt_s) + buffer_pkts) * PKT_BYTES)


def dumbbell_ns3_args(rate_bps: float, edge_rate_bps: float, bneck_delay_s: float, buffer_pkts: int,
                      rtts: Sequence[float], starts: Sequence[float], duration_s: float, warmup_s: float,
                      attrs: Dict[str, str], extra: Sequence[str] = ()) -> List[str]:
    """dumbbell.cc's arguments: the network, the flows, 1448-byte writes,
    then ``extra`` options and the ns-3 attributes ``attrs`` (``--NAME=VALUE``)."""
    args = [
        f"--flows={len(rtts)}",
        f"--rate={rate_bps!r}",
        f"--edgeRate={edge_rate_bps!r}",
        f"--bneckDelay={bneck_delay_s!r}",
        f"--buffer={buffer_pkts}",
        f"--edgeBuffer={EDGE_BUFFER_PKTS}",
        "--rtts=" + ",".join(repr(r) for r in rtts),
        "--starts=" + ",".join(repr(s) for s in starts),
        f"--duration={duration_s!r}",
        f"--warmup={warmup_s!r}",
        f"--sendSize={MSS}",
    ]
    return args + list(extra) + [f"--{k}={v}" for k, v in attrs.items()]


def ccsim_flow(common: Dict[str, object], cc: str, cc_params: Optional[Dict[str, object]], rtt_s: float,
               start_s: float, **more: object) -> dict:
    """One ccsim flow entry: a mapping's common fields, the controller, ``more`` fields."""
    f = dict(common)
    f.update({"cc": cc, **more, "rtt_s": rtt_s, "start_s": start_s})
    if cc_params:
        f["cc_params"] = dict(cc_params)
    return f


def dumbbell_ccsim(name: str, duration_s: float, warmup_s: float, rate_bps: float, edge_rate_bps: float,
                   bneck_delay_s: float, bottleneck_queue: Dict[str, object], flows: List[dict],
                   sample_interval_s: float = 0) -> dict:
    """The ccsim scenario of the same dumbbell: seed 1, ns-3's order of a tied
    arrival and departure on every queue (``ties = "arrival_first"``),
    1000-packet access queues."""
    return {
        "name": name,
        "seed": 1,
        "duration_s": duration_s,
        "warmup_s": warmup_s,
        "sample_interval_s": sample_interval_s,
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate_bps": rate_bps,
            "bottleneck_delay_s": bneck_delay_s,
            "bottleneck_queue": dict(bottleneck_queue, ties="arrival_first"),
            "edge_rate_bps": edge_rate_bps,
            "edge_queue": {"kind": "droptail", "limit_pkts": EDGE_BUFFER_PKTS, "ties": "arrival_first"},
        },
        "flows": flows,
    }


@dataclass(frozen=True)
class Scenario:
    id: str
    description: str
    controller: str
    sack: bool
    n_flows: int
    rtt_s: tuple  # (lo, hi): equal when lo == hi, else evenly spread
    buffer_pkts: int
    rate_bps: float
    duration_s: float
    #: 0: the suite's fixed start times; k > 0: each flow's start moved by a
    #: uniform draw in [0, 1/n) s from ``random.Random(k)``, the same on both
    #: sides (:func:`run_seeds`: the spread of a row over start phases).
    seed: int = 0

    @property
    def warmup_s(self) -> float:
        # The first third of the run is start-up; both sides measure after it.
        return round(self.duration_s / 3.0, 6)

    def rtts(self) -> List[float]:
        return spread_rtts(self.rtt_s, self.n_flows)

    def starts(self) -> List[float]:
        return staggered_starts(self.n_flows, self.seed)

    def params(self) -> dict:
        return {
            "controller": self.controller,
            "sack": self.sack,
            "flows": self.n_flows,
            "rtt_s": list(self.rtt_s),
            "buffer_pkts": self.buffer_pkts,
            "rate_bps": self.rate_bps,
            "duration_s": self.duration_s,
            "warmup_s": self.warmup_s,
            "bottleneck_delay_s": BNECK_DELAY_S,
            "mss_bytes": MSS,
            "header_bytes": HEADER_BYTES,
            **({"seed": self.seed} if self.seed else {}),
        }

    # ---- the ns-3 side ------------------------------------------------
    def ns3_args(self) -> List[str]:
        ctl = CONTROLLERS[self.controller]
        buf = socket_buffer_bytes(self.rate_bps, max(self.rtts()), self.buffer_pkts)
        attrs = dict(COMMON_NS3_ARGS)
        attrs.update(
            {
                "ns3::TcpL4Protocol::SocketType": ctl["ns3"],
                "ns3::TcpSocketBase::Sack": "true" if self.sack else "false",
                "ns3::TcpSocket::SndBufSize": str(buf),
                "ns3::TcpSocket::RcvBufSize": str(buf),
            }
        )
        attrs.update(ctl["ns3_attrs"])
        return dumbbell_ns3_args(self.rate_bps, 10 * self.rate_bps, BNECK_DELAY_S, self.buffer_pkts, self.rtts(),
                                 self.starts(), self.duration_s, self.warmup_s, attrs)

    # ---- the ccsim side -----------------------------------------------
    def ccsim_scenario(self) -> dict:
        ctl = CONTROLLERS[self.controller]
        # ns-3's ACKs carry their SACK blocks' bytes (DEFAULTS, "SACK blocks
        # on an ACK"); without SACK there are none to count.
        more = {"recovery": "sack", **SACK_CCSIM_FIELDS} if self.sack else {"recovery": "newreno"}
        flows = [ccsim_flow(COMMON_CCSIM_FIELDS, ctl["cc"], ctl["cc_params"], rtt, start, **more)
                 for rtt, start in zip(self.rtts(), self.starts())]
        return dumbbell_ccsim(f"ns3-{self.id}", self.duration_s, self.warmup_s, self.rate_bps, 10 * self.rate_bps,
                              BNECK_DELAY_S, {"kind": "droptail", "limit_pkts": self.buffer_pkts}, flows)

M100, G1 = 100e6, 1e9
B100 = bdp_pkts(M100, 0.1)  # 832 packets
B200 = bdp_pkts(M100, 0.2)

SCENARIOS: List[Scenario] = [
    Scenario("newreno-1-bdp", "NewReno, 1 flow, buffer = BDP", "newreno", False, 1, (0.1, 0.1), B100, M100, 60),
    Scenario("newreno-sack-1-bdp4", "NewReno + SACK, 1 flow, buffer = BDP/4", "newreno", True, 1, (0.1, 0.1), B100 // 4, M100, 60),
    Scenario("newreno-10-equal", "NewReno, 10 flows, equal RTTs", "newreno", False, 10, (0.05, 0.05), 100, M100, 30),
    Scenario("newreno-sack-10-spread", "NewReno + SACK, 10 flows, RTTs 20-200 ms", "newreno", True, 10, (0.02, 0.2), 100, M100, 30),
    Scenario("newreno-50-b20", "NewReno, 50 flows, 20-packet buffer", "newreno", False, 50, (0.05, 0.05), 20, M100, 30),
    Scenario("newreno-sack-50-spread-b20", "NewReno + SACK, 50 flows, RTTs 20-200 ms, 20-packet buffer", "newreno", True, 50, (0.02, 0.2), 20, M100, 30),
    Scenario("newreno-sack-10-1g", "NewReno + SACK, 10 flows, 1 Gb/s", "newreno", True, 10, (0.04, 0.04), 1000, G1, 30),
    Scenario("cubic-1-bdp4", "CUBIC, 1 flow, buffer = BDP/4", "cubic", True, 1, (0.1, 0.1), B100 // 4, M100, 60),
    Scenario("cubic-10-spread", "CUBIC, 10 flows, RTTs 20-200 ms", "cubic", True, 10, (0.02, 0.2), 100, M100, 30),
    Scenario("cubic-50-1g", "CUBIC, 50 flows, RTTs 20-100 ms, 1 Gb/s", "cubic", True, 50, (0.02, 0.1), 500, G1, 30),
    Scenario("highspeed-1-200ms", "HighSpeed, 1 flow, RTT 200 ms, buffer = BDP/4", "highspeed", True, 1, (0.2, 0.2), B200 // 4, M100, 60),
    Scenario("highspeed-10-equal", "HighSpeed, 10 flows, equal RTTs", "highspeed", True, 10, (0.1, 0.1), 200, M100, 30),
    Scenario("scalable-1-200ms", "Scalable, 1 flow, RTT 200 ms, buffer = BDP/4", "scalable", True, 1, (0.2, 0.2), B200 // 4, M100, 60),
    Scenario("scalable-10-spread", "Scalable, 10 flows, RTTs 20-200 ms", "scalable", True, 10, (0.02, 0.2), 100, M100, 30),
    Scenario("htcp-1-bdp4", "H-TCP, 1 flow, buffer = BDP/4", "htcp", True, 1, (0.1, 0.1), B100 // 4, M100, 60),
    Scenario("htcp-10-spread", "H-TCP, 10 flows, RTTs 20-200 ms", "htcp", True, 10, (0.02, 0.2), 100, M100, 30),
    Scenario("bic-1-bdp4", "BIC, 1 flow, buffer = BDP/4", "bic", True, 1, (0.1, 0.1), B100 // 4, M100, 60),
    Scenario("bic-10-equal", "BIC, 10 flows, equal RTTs", "bic", True, 10, (0.05, 0.05), 100, M100, 30),
    Scenario("vegas-1-bdp", "Vegas, 1 flow, buffer = BDP", "vegas", True, 1, (0.1, 0.1), B100, M100, 30),
    Scenario("vegas-10-spread", "Vegas, 10 flows, RTTs 20-200 ms", "vegas", True, 10, (0.02, 0.2), 100, M100, 30),
]

QUICK = Scenario("quick-newreno-sack-2", "NewReno + SACK, 2 flows, 6 s (quick check)", "newreno", True, 2, (0.04, 0.08), 50, M100, 6)

# --------------------------------------------------------------------------
# Installation and build
# --------------------------------------------------------------------------


def _ns3_root() -> Optional[pathlib.Path]:
    """The wheel's ``ns3`` directory (include/, lib64/), or None."""
    try:
        dist = importlib.metadata.distribution(PEER_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return None
    root = pathlib.Path(str(dist.locate_file("ns3")))
    if (root / "include" / "ns3" / "core-module.h").exists() and (root / "lib64").is_dir():
        return root
    return None


def _peer_version() -> Optional[str]:
    try:
        return importlib.metadata.version(PEER_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return None


def _compiler() -> Optional[str]:
    return os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")


def installed() -> bool:
    """ns-3 3.44's headers and libraries are installed and a C++ compiler is present."""
    v = _peer_version()
    return bool(v and v.startswith("3.44") and _ns3_root() is not None and _compiler())


def install() -> None:
    """pip-install ns3==3.44.post0 into the running interpreter."""
    cmd = [sys.executable, "-m", "pip", "install", f"{PEER_PACKAGE}=={PEER_VERSION}"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise RuntimeError(f"could not run {' '.join(cmd)}: {e}") from e
    if p.returncode != 0:
        tail = "\n".join((p.stderr or p.stdout).strip().splitlines()[-15:])
        raise RuntimeError(
            f"installing ns-3 failed: `{' '.join(cmd)}` exited with {p.returncode}:\n{tail}"
        )
    importlib.invalidate_caches()
    if _ns3_root() is None:
        raise RuntimeError(
            f"{PEER_PACKAGE}=={PEER_VERSION} installed but its headers/libraries "
            "(site-packages/ns3/include, lib64) were not found"
        )
    if not _compiler():
        raise RuntimeError("ns-3 is installed, but no C++ compiler (g++ or $CXX) is on PATH")


NS3_LIBS = ["applications", "internet", "point-to-point", "traffic-control", "network", "core"]


def build(extra: Sequence[pathlib.Path] = ()) -> pathlib.Path:
    """Compile dumbbell.cc once per (source, ns-3 install); return the binary.

    ``extra``: more sources linked in (validation/ns3/bbr_linux.cc, the
    BBR comparison's experimental ns-3), built apart as
    ``dumbbell+NAME-HASH``."""
    root = _ns3_root()
    cxx = _compiler()
    if root is None or cxx is None:
        raise RuntimeError(
            "ns-3 3.44 is not usable: need the ns3 package "
            f"(pip install {PEER_PACKAGE}=={PEER_VERSION}) and a C++ compiler"
        )
    sources = [SOURCE] + [pathlib.Path(x) for x in extra]
    key = hashlib.sha256(b"".join(x.read_bytes() for x in sources) + str(root).encode()
                         + (_peer_version() or "").encode())
    prefix = "dumbbell" + "".join(f"+{x.stem}" for x in sources[1:])
    exe = BUILD_DIR / f"{prefix}-{key.hexdigest()[:12]}"
    if exe.exists():
        return exe
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    lib = root / "lib64"
    cmd = [cxx, "-std=c++20", "-O2", f"-I{root / 'include'}"] + [str(x) for x in sources] + [
        "-o", str(exe) + ".tmp", f"-L{lib}", f"-Wl,-rpath,{lib}"] + [f"-lns3.44-{m}" for m in NS3_LIBS]
    if extra:
        cmd.append("-ldl")
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"compiling {', '.join(x.name for x in sources)} failed:\n{p.stderr[-4000:]}")
    os.replace(str(exe) + ".tmp", exe)
    for stale in BUILD_DIR.glob(f"{prefix}-*"):  # builds of older sources
        if stale != exe:
            stale.unlink(missing_ok=True)
    return exe


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------


def jain(xs: List[float]) -> float:
    s, s2 = sum(xs), sum(x * x for x in xs)
    return (s * s) / (len(xs) * s2) if s2 > 0 else 1.0


def _metrics(rate_bps: float, window_s: float, tx_bytes: int, arrivals: int, drops: int,
             delivered: List[int], retransmits: int, timeouts: int) -> dict:
    return {
        "utilization": tx_bytes * 8 / (rate_bps * window_s),
        "loss_rate": drops / arrivals if arrivals else 0.0,
        "goodput_mbps": sum(delivered) * 8 / window_s / 1e6,
        "jain": jain([float(d) for d in delivered]),
        "retransmits": retransmits,
        "timeouts": timeouts,
    }


def run_program(exe: pathlib.Path, args: Sequence[str], what: str, env: Optional[Dict[str, str]] = None,
                nice: bool = True) -> Tuple[dict, str]:
    """Run the compiled dumbbell with ``args`` (``env``: more environment
    variables; ``nice``: at niceness 10, the validation runs' politeness on
    a shared machine; a speed run is not niced); return its JSON result line
    and its standard error."""
    preexec = None
    if nice:
        try:
            preexec = (lambda: os.nice(10)) if os.nice(0) < 10 else None
        except OSError:
            pass
    p = subprocess.run([str(exe)] + list(args), capture_output=True, text=True, preexec_fn=preexec,
                       env=dict(os.environ, **env) if env else None)
    if p.returncode != 0:
        raise RuntimeError(f"ns-3 run {what} failed ({p.returncode}):\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1]), p.stderr


def run_ns3(sc: Scenario, exe: pathlib.Path, cwnd_trace: Optional[pathlib.Path] = None) -> dict:
    """Run one scenario in ns-3; return (metrics, wall_s, raw output).
    ``cwnd_trace``: write flow 0's cwnd, ssthresh and state changes
    (``dumbbell --cwndTrace=1``) to this file."""
    args = sc.ns3_args() + (["--cwndTrace=1"] if cwnd_trace else [])
    raw, err = run_program(exe, args, sc.id)
    if cwnd_trace:
        pathlib.Path(cwnd_trace).write_text(err)
    b = raw["bottleneck"]
    window = sc.duration_s - sc.warmup_s
    m = _metrics(sc.rate_bps, window, b["tx_bytes"], b["arrivals"], b["drops"],
                 [f["rx_bytes"] for f in raw["flows"]],
                 sum(f["retransmits"] for f in raw["flows"]),
                 sum(f["timeouts"] for f in raw["flows"]))
    return {"metrics": m, "wall_s": raw["wall_s"], "raw": raw}


def run_ccsim(sc: Scenario, keep: bool = False) -> dict:
    """Run one scenario in ccsim; return (metrics, wall_s), and with
    ``keep`` the ccsim result as ``result``."""
    import ccsim

    t0 = time.perf_counter()
    res = ccsim.run(sc.ccsim_scenario())
    wall_total = time.perf_counter() - t0
    raw = res.raw
    link = next(link for link in raw["links"] if link["from"] == "r0" and link["to"] == "r1")
    window = sc.duration_s - sc.warmup_s
    flows = raw["flows"]
    m = _metrics(sc.rate_bps, window, link["tx_bytes"], link["arrivals"], link["drops"],
                 [f["delivered_bytes"] for f in flows],
                 sum(f["retransmits"] for f in flows),
                 sum(f["timeouts"] for f in flows))
    return {"metrics": m, "wall_s": raw.get("wall_s", wall_total), **({"result": res} if keep else {})}


def select(pool: Sequence, quick_sc, quick: bool, only: Optional[List[str]], peer: str,
           parts: Sequence[str] = ()) -> list:
    """The scenarios a run takes: ``only``'s (by id, from ``pool`` and the
    quick case ``quick_sc``), else the quick case or the whole pool.
    ``parts``: other names ``only`` may hold (a suite's extra measurements),
    left out of the list."""
    if not only:
        return [quick_sc] if quick else list(pool)
    known = {s.id: s for s in list(pool) + [quick_sc]}
    bad = [o for o in only if o not in known and o not in parts]
    if bad:
        raise ValueError(f"only: unknown {peer} scenario(s) {', '.join(bad)}; allowed: "
                         f"{', '.join(list(known) + list(parts))}")
    return [known[o] for o in only if o in known]


def _select(quick: bool, only: Optional[List[str]]) -> List[Scenario]:
    return select(SCENARIOS, QUICK, quick, only, "ns-3")


def recorded_run(out: pathlib.Path, name: str = "ns3.json") -> dict:
    """The run recorded in ``out/name`` (``--ccsim-only`` reuses its ns-3 side)."""
    path = pathlib.Path(out) / name
    if not path.exists():
        raise ValueError(f"--ccsim-only: no recorded ns-3 run at {path}; run the suite with ns-3 first")
    return json.loads(path.read_text(encoding="utf-8"))


def recorded_row(recorded: Dict[str, dict], sc) -> dict:
    """Scenario ``sc``'s row in a recorded run, which must have its parameters."""
    rec = recorded.get(sc.id)
    if rec is None or rec["params"] != sc.params():
        raise ValueError(f"--ccsim-only: scenario {sc.id} is not in the recorded ns-3 run "
                         "with these parameters; run it with ns-3")
    return rec


def results_head(peer: str, quick: bool, prev: dict, ccsim_only: bool, **more: object) -> dict:
    """A results file's header; with ``ccsim_only`` ns-3's version and date
    are the recorded run's (``ns3_recorded``)."""
    import ccsim

    res = {
        "peer": peer,
        # (ns-3's version is the recorded run's when its column is reused)
        "peer_version": prev.get("peer_version") if ccsim_only else _peer_version(),
        "ccsim_version": ccsim.__version__,
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "quick": quick,
        **more,
        "scenarios": [],
    }
    if ccsim_only:
        res["ns3_recorded"] = prev.get("ns3_recorded", prev["date"])
    return res


def run(quick: bool, out: pathlib.Path, only: Optional[List[str]] = None, ccsim_only: bool = False) -> dict:
    """Run the scenarios one at a time in ns-3 and ccsim; write out/ns3.json.

    ``ccsim_only``: re-run only ccsim's side, with ns-3's column (metrics
    and wall time) taken from the run recorded in ``out/ns3.json`` (ns-3's
    runs are deterministic: its column came out identical on each re-run);
    the scenarios' parameters must be the recorded ones."""
    scenarios = _select(quick, only)
    prev = recorded_run(out) if ccsim_only else {"scenarios": []}
    recorded = {s["id"]: s for s in prev["scenarios"]}
    exe = None if ccsim_only else build()
    results = results_head(NAME, quick, prev, ccsim_only)
    for sc in scenarios:
        if ccsim_only:
            rec = recorded_row(recorded, sc)
            n = {"metrics": {k: v["ns3"] for k, v in rec["metrics"].items()}, "wall_s": rec["wall_s"]["ns3"]}
        else:
            print(f"[ns3] {sc.id}: ns-3 ...", file=sys.stderr, flush=True)
            n = run_ns3(sc, exe)
        print(f"[ns3] {sc.id}: ccsim ...", file=sys.stderr, flush=True)
        c = run_ccsim(sc)
        results["scenarios"].append({
            "id": sc.id,
            "description": sc.description,
            "params": sc.params(),
            "metrics": {k: {"ns3": n["metrics"][k], "ccsim": c["metrics"][k]} for k in METRICS},
            "wall_s": {"ns3": n["wall_s"], "ccsim": c["wall_s"]},
        })
        print(f"[ns3] {sc.id}: done (ns-3 {n['wall_s']:.1f} s, ccsim {c['wall_s']:.2f} s)",
              file=sys.stderr, flush=True)
        # Written after every scenario, so an interrupted suite keeps what it ran.
        _write(out, results)
    _write(out, results)
    return results


def run_seeds(ids: List[str], seeds: List[int], out: pathlib.Path, ccsim_only: bool = False) -> dict:
    """Each row of ``ids`` with each start-phase seed (``Scenario.seed``) in
    ns-3 and ccsim; written to ``out/ns3-seeds.json`` after every run (an
    interrupted run keeps what it ran and resumes: a recorded (id, seed) with
    the same parameters is not run again). A single deterministic run of a
    drop-tail dumbbell is one sample of its phase; this measures how far the
    multi-flow rows move with it. ``ccsim_only``: re-run ccsim's side of the
    recorded (id, seed) runs against their recorded ns-3 side (ns-3 is
    deterministic; after a ccsim change only its side moves)."""
    import ccsim

    known = {s.id: s for s in SCENARIOS}
    bad = [i for i in ids if i not in known]
    if bad:
        raise ValueError(f"ids: unknown ns-3 scenario(s) {', '.join(bad)}; allowed: {', '.join(known)}")
    if not seeds or any(k < 1 for k in seeds):
        raise ValueError(f"seeds: {seeds}; allowed: one or more integers >= 1")
    path = out / "ns3-seeds.json"
    res = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"runs": []}
    if ccsim_only:
        for r in res["runs"]:
            if r["id"] in ids and r["params"].get("seed") in seeds:
                sc = dataclasses.replace(known[r["id"]], seed=r["params"]["seed"])
                print(f"[ns3] {r['id']} seed {sc.seed}: ccsim ...", file=sys.stderr, flush=True)
                c = run_ccsim(sc)
                for m in METRICS:
                    r["metrics"][m]["ccsim"] = c["metrics"][m]
                r["wall_s"]["ccsim"] = c["wall_s"]
        res["ccsim_version"] = ccsim.__version__
        _write(out, res, path.name)
        return res
    res.update(peer=NAME, peer_version=_peer_version(), ccsim_version=ccsim.__version__)
    exe = build()
    for i in ids:
        for k in seeds:
            sc = dataclasses.replace(known[i], seed=k)
            if any(r["id"] == i and r["params"] == sc.params() for r in res["runs"]):
                continue
            print(f"[ns3] {i} seed {k}: ns-3 ...", file=sys.stderr, flush=True)
            n = run_ns3(sc, exe)
            c = run_ccsim(sc)
            res["runs"] = [r for r in res["runs"] if not (r["id"] == i and r["params"].get("seed") == k)]
            res["runs"].append({"id": i, "params": sc.params(),
                                "metrics": {m: {"ns3": n["metrics"][m], "ccsim": c["metrics"][m]} for m in METRICS},
                                "wall_s": {"ns3": n["wall_s"], "ccsim": c["wall_s"]}})
            _write(out, res, path.name)
    return res


def seeds_markdown(res: dict) -> str:
    """Mean and standard error over the seeds, per row and metric, both sides."""
    import statistics as st

    def se(x: List[float]) -> float:
        return st.stdev(x) / len(x) ** 0.5 if len(x) > 1 else float("nan")

    rows = ["| row | seeds | metric | ns-3 mean ± s.e. | ccsim mean ± s.e. | difference | t |",
            "|---|---|---|---|---|---|---|"]
    ids = sorted({r["id"] for r in res["runs"]}, key=[s.id for s in SCENARIOS].index)
    for i in ids:
        runs = [r for r in res["runs"] if r["id"] == i]
        for m in METRICS:
            a = [r["metrics"][m]["ns3"] for r in runs]
            b = [r["metrics"][m]["ccsim"] for r in runs]
            ma, mb = st.fmean(a), st.fmean(b)
            diff = (mb - ma) / ma if ma else float("nan")
            den = (se(a) ** 2 + se(b) ** 2) ** 0.5
            t = (mb - ma) / den if den > 0 else float("nan")
            rows.append(f"| {i} | {len(runs)} | {m} | {ma:.4g} ± {se(a):.2g} | {mb:.4g} ± {se(b):.2g} | "
                        f"{diff:+.1%} | {t:+.2f} |")
    return "\n".join(rows) + "\n"


def _write(out: pathlib.Path, results: dict, name: str = "ns3.json") -> None:
    """``out/name``, replaced whole (an interrupted write leaves the last one)."""
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / f"{name}.tmp"
    tmp.write_text(json.dumps(results, indent=1) + "\n")
    os.replace(tmp, out / name)


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------


def rel_diff(ns3: float, cc: float) -> Optional[float]:
    """(ccsim - ns3) / ns3; None when ns-3's value is 0 (then any non-zero differs)."""
    if ns3 == 0:
        return 0.0 if cc == 0 else None
    return (cc - ns3) / abs(ns3)


def flagged(ns3: float, cc: float) -> bool:
    d = rel_diff(ns3, cc)
    return d is None or abs(d) > TOLERANCE


def _fmt(metric: str, x: float) -> str:
    if metric in ("retransmits", "timeouts"):
        return f"{int(x):,}"
    if metric == "loss_rate":
        return f"{x:.5f}"
    if metric == "goodput_mbps":
        return f"{x:.2f}"
    return f"{x:.4f}"


def _rate(bps: float) -> str:
    return f"{bps / 1e9:g} Gb/s" if bps >= 1e9 else f"{bps / 1e6:g} Mb/s"


def defaults_markdown(defaults: Optional[Sequence[Default]] = None) -> str:
    """The table of ns-3 defaults against ccsim's (docs/validation.md):
    this suite's, or another comparison's ``defaults``."""
    lines = [
        "| item | ns-3 3.44 default | ccsim default | used in the comparison | side changed |",
        "|---|---|---|---|---|",
    ]
    for d in DEFAULTS if defaults is None else defaults:
        lines.append(f"| {d.item} | {d.ns3} | {d.ccsim} | {d.used} | {d.changed} |")
    return "\n".join(lines)


def markdown(results: dict) -> str:
    """The generated part of docs/validation.md for ns-3."""
    out = []
    out.append(
        f"Generated by `python -m validation.run --peer ns3` on {results['date']}: "
        f"ns-3 {results['peer_version']}, ccsim {results['ccsim_version']}"
        + (" (quick run)" if results.get("quick") else "")
        + (f"; ns-3's column as recorded on {results['ns3_recorded']}, ccsim's re-run (`--ccsim-only`)"
           if results.get("ns3_recorded") else "")
        + f". Raw numbers: `validation/results/ns3/ns3.json`. Differences over "
        f"{TOLERANCE:.0%} are in **bold**; the window is the last two thirds of each run."
    )
    out.append("")
    out.append("#### Scenarios")
    out.append("")
    out.append("| id | description | cc | SACK | flows | RTT (ms) | buffer (pkts) | rate | duration (s) |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    for s in results["scenarios"]:
        p = s["params"]
        lo, hi = p["rtt_s"]
        rtt = f"{lo * 1e3:g}" if lo == hi else f"{lo * 1e3:g}-{hi * 1e3:g}"
        out.append(
            f"| {s['id']} | {s['description']} | {p['controller']} | {'yes' if p['sack'] else 'no'} "
            f"| {p['flows']} | {rtt} | {p['buffer_pkts']} | {_rate(p['rate_bps'])} | {p['duration_s']:g} |"
        )
    out.append("")
    out.append("#### Metrics side by side (ns-3 / ccsim)")
    out.append("")
    out.append("| id | " + " | ".join(METRIC_LABELS[m] for m in METRICS) + " |")
    out.append("|---|" + "---|" * len(METRICS))
    n_flag = 0
    n_all = 0
    for s in results["scenarios"]:
        cells = []
        for m in METRICS:
            v = s["metrics"][m]
            a, b = v["ns3"], v["ccsim"]
            d = rel_diff(a, b)
            n_all += 1
            txt = f"{_fmt(m, a)} / {_fmt(m, b)}"
            if d is not None and d != 0:
                txt += f" ({d:+.1%})"
            if flagged(a, b):
                n_flag += 1
                txt = f"**{txt}**"
            cells.append(txt)
        out.append(f"| {s['id']} | " + " | ".join(cells) + " |")
    out.append("")
    out.append(f"{n_all - n_flag} of {n_all} metric pairs agree within {TOLERANCE:.0%}.")
    out.append("")
    out.append("#### Wall time")
    out.append("")
    out.append("| id | ns-3 (s) | ccsim (s) | ns-3 / ccsim |")
    out.append("|---|---|---|---|")
    tn = tc = 0.0
    for s in results["scenarios"]:
        a, b = s["wall_s"]["ns3"], s["wall_s"]["ccsim"]
        tn += a
        tc += b
        out.append(f"| {s['id']} | {a:.2f} | {b:.3f} | {a / b:.1f}x |")
    if tc > 0:
        out.append(f"| all | {tn:.1f} | {tc:.2f} | {tn / tc:.1f}x |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":  # a convenience; the driver is validation/run.py
    import argparse

    ap = argparse.ArgumentParser(description="ccsim against ns-3 3.44")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", type=pathlib.Path, default=HERE / "results")
    ap.add_argument("--ccsim-only", action="store_true", help="re-run ccsim's side against the recorded ns-3 run")
    ap.add_argument("--seeds", type=int, nargs="+", help="run the named rows over these start-phase seeds")
    ap.add_argument("only", nargs="*")
    a = ap.parse_args()
    if a.seeds:
        print(seeds_markdown(run_seeds(a.only, a.seeds, a.out / "ns3", ccsim_only=a.ccsim_only)))
    else:
        r = run(a.quick, a.out, a.only or None, ccsim_only=a.ccsim_only)
        print(markdown(r))
