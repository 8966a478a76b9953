"""Standard engine benchmarks (``ccsim bench``).

Each scenario runs in a fresh ``python -m ccsim.bench --one NAME`` process so
that its peak RSS is its own (a process's high-water mark never goes down, so
measuring several scenarios in one process would report the largest so far).
Series sampling is off (``sample_interval_s = 0``) so the numbers measure the
engine, not the metric collection; the wall time covers building the
simulation and running it, not Python start-up or reading the results.

All scenarios are dumbbells with 1040-byte packets (1000 B payload + 40 B
header) and 100 Gb/s edge links whose delays make up each flow's RTT (the
bottleneck's own delay is 1 ms). B1-B5 run NewReno (B5: SACK); ``B2L`` is
B2 run for 600 s, the long single-flow row of the ns-2 comparison
(``benches/peer_ns2.py``), and ``B2L-hstcp`` the same with HighSpeed. Every row reports ``events_per_bottleneck_pkt``.

Every queue of every row (bottleneck and edges, 1000-packet edge buffers
as the default) orders a packet arriving at the instant a transmission
ends as ns-2.35 does, the peer the rows are compared with (``ties =
"arrival_first"``, docs/scenario.md; ccsim's default is ``event_order``,
docs/decisions/2026-11-25-virtual-fifo.md). In that order a DropTail link without stages computes
its departures at arrival (a virtual FIFO), with no event per queued
departure.

E-TCP rows (target: at least 70% of B5's bottleneck packets per
wall-second, ``vs_B5_pkts``; E5 under 3 minutes):

- ``E1``: one E-TCP flow (window variant, exponential pacing, reliable),
  1 Gb/s, RTT 100 ms, 20-packet buffer, 60 s.
- ``E5``: the same at 5 Gb/s for 300 s (about 160 million packets).

Controller rows (target: within 15% of NewReno's events per second):

- ``B2-<cc>``: B2 with another congestion controller. The controller also
  changes the *work* (window sizes, losses, recoveries), so ``vs_base``
  (events/s over B2's) mixes the controller's own cost with that of a
  different event mix.
- ``B2cap-<cc>``: B2 with the window capped by the receiver (``rwnd_pkts``
  3000) and a 5000-packet buffer, so the run is loss-free and every
  controller produces the *same* event sequence (same event count); the
  controller still runs on every ACK, so ``vs_base`` (over ``B2cap``,
  NewReno) is the controller's own per-ACK cost.

Python-controller rows (no target: the cost of writing a controller in
Python, ``docs/adding-a-controller.md``):

- ``B2-py``, ``B3-py``: B2 and B3 with the Python Reno of
  ``examples/controllers/reno.py``, whose results are the built-in's event
  for event; ``vs_base`` (events/s over B2's or B3's) is the slowdown of
  calling Python (taking the GIL) for each hook. ``benches/peer_ns2.py``
  runs them against ns-2.35's B2 and B3.
- ``M-dctcp-red-py``, ``M-cubic-fqcodel-py``: those M rows with the
  Python DCTCP and CUBIC; ``benches/peer_ns3.py`` runs them against
  ns-3's run of the base row.

XCP row (target: at least 70% of B3's bottleneck packets per wall-second,
``vs_B3_pkts``):

- ``X1``: the paced-XCP paper's dumbbell: 100 paced XCP flows (token
  bucket), conservative router parameters on both bottleneck directions,
  622 Mb/s, RTT uniform on [64, 100] ms, rule-of-thumb buffer (BDP at the
  82 ms mean RTT, 6130 packets), 100 s.

RED row (target: at least 70% of B3's bottleneck packets per wall-second,
``vs_B3_pkts``):

- ``R1``: B3 with a RED bottleneck that marks (``kind = "red"``, packet
  mode, thresholds 1/12 and 3/12 of the 20-packet buffer as in the GWA
  paper, w_q 0.002, max_p 0.1, ``ecn = true``) and ECN-capable flows.

GWA row (target: at least 70% of B3's bottleneck packets per wall-second,
``vs_B3_pkts``):

- ``G1``: B3 (50 flows, 1 Gb/s, RTT 100 ms, 60 s) with GWA-RR: a DRR
  bottleneck (``kind = "drr"``) whose GWA stage stamps B_t/n_f - q_i, and
  ``gwa = true`` flows. GWA needs its buffer B_t near the bandwidth-delay
  product for full utilisation (Gerla et al. eq. 8), so the buffer is the
  BDP, 12020 packets (B3's 20 packets would give each flow under one
  packet of window); the run is loss-free.

The router mechanism's own cost (no target; ``vs_own_pkts``): each of X1,
G1 and R1 is also compared with its own network and flows with the
mechanism taken out, a DropTail bottleneck and Reno flows with the same
pacing, so that the issues' intent ("the per-packet router work must stay
cheap") is measured apart from the workload's shape, which B3 does not
share (one RTT, a third-full pipe: docs/performance.md):

- ``X1-dt``: X1's dumbbell (100 flows, RTT 64-100 ms, 622 Mb/s, 6130
  packets, token-bucket pacing) with paced Reno flows on DropTail: X1's
  ``vs_own_pkts`` is the cost of XCP's router and agent.
- ``G1-dt``: G1's dumbbell (50 flows, 1 Gb/s, RTT 100 ms, 12020 packets)
  with Reno flows on a DropTail FIFO: G1's ``vs_own_pkts`` is the cost of
  GWA-RR, its round robin included.
- R1's own dumbbell is B3 (``vs_own_pkts`` = ``vs_B3_pkts``).

The mechanism rows as ns-2.35 can run them (``benches/peer_ns2.py`` runs
them in both simulators and reports each against B3 in each; no target):

- ``X1u``: X1 with unpaced flows and XCP's original parameters (ns-2.35
  has no token-bucket pacing, and its ``Queue/XCP`` fixes alpha, beta and
  gamma); ``X1u-dt``, its own dumbbell: unpaced Reno on DropTail.
- ``G1-drr``: G1's DRR bottleneck without the GWA stage and Reno flows
  (ns-2.35 has ``Queue/DRR`` but no GWA); its own dumbbell is G1-dt.

Memory soak row (target: peak memory flat, within 5%, from 10^8 to 10^9
events):

- ``L1``: B3 (50 flows, 1 Gb/s, RTT 100 ms, 20-pkt buffer) for 1600 s,
  about 1.07·10^9 events. The run is stepped (``run_until``, 10 s of
  simulated time a step) and the process's peak RSS is read when the event
  count first reaches 10^8 (``rss_mb_at_checkpoint``, ``checkpoint_events``) and at the end
  (``rss_mb_at_end``, ``events`` ≥ 10^9); ``rss_growth`` is their ratio
  minus 1. Series are off, as in every row, so anything that grows with
  the run (a leak, an unbounded queue of events or packets) shows; with
  ``--quick`` the checkpoints are 10^7 and the end of 160 s.

Rows of many flows at line rate (the targets: S2 at least 0.7x
S0's bottleneck packets per wall-second, ``vs_S0_pkts``; at most 2 KB
per long-lived flow, ``bytes_per_flow``; S3 within a 4 GB address space).
Long-lived flows of 1460-byte segments (1500-byte packets), initial window
10, SACK, delayed ACKs as the ``rfc`` personality's defaults, RTTs spread
uniformly over 20-100 ms, starts spread over 1 s, ccsim's default tie
order (``event_order``: a user's scenario, not a peer's); a 5 ms
bottleneck, access links ten times its rate; the bottleneck buffer is
BDP/sqrt(N) at the mean RTT, 60 ms (the small-buffer rule of Appenzeller,
Keslassy and McKeown, SIGCOMM 2004), ``SCALE_*``:

- ``S0``: 10 CUBIC flows, 10 Gb/s, 5 s: the per-packet baseline.
- ``S1``: 1,000 CUBIC flows, 10 Gb/s, 5 s; ``S1-newreno``: NewReno.
- ``S2``: 10,000 CUBIC flows, 10 Gb/s, 5 s; ``S2-newreno``: NewReno.
- ``S3``: 100,000 CUBIC flows, 100 Gb/s, 2 s.
- ``S4``: a parking lot of three 10 Gb/s, 5 ms links with 10,000 CUBIC
  flows: 2,500 across all three, 2,500 on each link alone; RTTs over
  40-100 ms (the long flows' links alone take 30 ms).

``bytes_per_flow`` is the slope of the run's peak memory against flows,
from the row of the batch with the next fewer flows
(``bytes_per_flow_from``: S1 for S2 and S4, S2 for S3, S0 for S1), with
the packet slab's growth taken out (in-flight packets are the load's, not
the flows'): (RSS - RSS(base) - slots growth x slot size) / (flows -
flows(base)), RSS read when the run ends and before its results are built
(``run_peak_rss_mb``). The results (a row per link, four per flow on a
dumbbell, and one per flow, handed over as columns as ``ccsim.run``
receives them, ``ccsim.tables``) are built after the engine has freed
the flows' agents and its pending events, so they mostly take memory the
run gave back: ``results_bytes_per_flow`` is what they add beyond the
run's peak (below zero when they fit), and ``peak_bytes_per_flow``, the
slope of the whole process's peak (``peak_rss_mb``), is the two together,
what the target of 2 KB per flow measures. All are read on the
row's first repeat (S0, under a second, is repeated).

Rows measured against ns-3 (``benches/peer_ns3.py`` runs each in ccsim
and the same dumbbell in ns-3 3.44, the target: at least 100x ns-3's
bottleneck packets per wall-second). Each is one of the ns-3 comparisons'
scenarios (validation/ns3_bbr.py, validation/ns3_aqm.py) at 1 Gb/s, run
longer, or (M-prague-dualpi2) a labelled stand-in's network and flows:
their TCP (1448-byte segments, 54 bytes of headers, IW 10, SACK, every
segment ACKed, a 0.2 s minimum RTO: ``NS3_TCP``), 10 Gb/s access links, a
5 ms bottleneck, four flows started 1/4 s apart; the peer script checks
that the two scenarios are still the same (for the stand-in, the same but
for the fields it names as different by design):

- ``M-bbr``: four BBR flows (paced at their own rate), RTT 40 ms, a
  drop-tail of two BDPs (6658 packets): no loss after the start-up, about a
  BDP queued (four flows' cwnds of 2 BDP estimates; with one BDP of buffer
  the same flows lose 4% of their packets).
- ``M-dctcp-red``: four DCTCP flows over a RED step at K = 65 packets (the
  DCTCP paper's marking: the instantaneous queue, mark, never drop early),
  RTT 10 ms, 1000 packets.
- ``M-cubic-fqcodel``: four CUBIC flows over FQ-CoDel (RFC 8290's
  defaults: 5 ms, 100 ms, 1024 queues, 10240 packets), RTT 40 ms.

- ``M-prague-dualpi2``: four TCP Prague flows (``cc = "prague"`` and its
  defaults spelled out: ECT(1), AccECN feedback, rate pacing) over DualPI2
  with Linux sch_dualpi2's defaults (``DUALPI2_LINUX``: 1 ms step, 15 ms
  PI target, k = 2), RTT 40 ms (L4S's setting is the Internet; above
  Prague's 25 ms target RTT its RTT independence stays off, so it is the
  plain scalable controller), 10240 packets (the stand-in's FQ-CoDel
  buffer; Linux's DualPI2 default is 10000; neither fills). ns-3 3.44
  has no Prague, DualPI2 or AccECN: the peer script runs a labelled
  STAND-IN there, DCTCP sending ECT(1) over FQ-CoDel's L4S mode (CE
  threshold 1 ms), on the same network, flows, rates and duration, and
  names the fields that differ by design (controller, ECN feedback,
  pacing, the discipline).

Workload rows:

- ``W1``: the E-TCP paper's Fig 17 web workload at OC-12: 622 Mb/s,
  1500 closed-loop web users (``app = "web"``, size factor 60, default
  think/page/object laws), RTT discrete uniform on [10, 150] ms, 20-packet
  bottleneck buffer, NewReno transfers; 100 s. Thousands of finite
  transfers are created and freed during the run; the row adds
  ``transfers`` (made) and ``live_flows_max`` (most alive at once), so
  ``peak_rss_mb`` can be read against both.
- ``W1-etcp``: the same users with E-TCP transfers (``transport = "etcp"``).
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from .scenario import Dumbbell, Flow, ParkingLot, Queue, Scenario

__all__ = ["BENCHMARKS", "scenario", "run_one", "run_all", "main"]


@dataclass(frozen=True)
class Bench:
    name: str
    description: str
    flows: int
    rate_bps: float
    rtt_s: float
    buffer_pkts: int
    duration_s: float
    recovery: str = "newreno"
    edge_rate_bps: float = 100e9
    cc: str = "reno"
    rwnd_pkts: Optional[int] = None
    #: name of the NewReno benchmark this row is compared with (``vs_base``)
    base: Optional[str] = None
    transport: str = "tcp"
    #: workload rows: the application and its parameters (``flows`` is then
    #: the number of users), per-user RTTs from ``rtt_range_s``/``rtt_step_s``
    app: Optional[str] = None
    app_params: Optional[Tuple[Tuple[str, Any], ...]] = None
    rtt_range_s: Optional[Tuple[float, float]] = None
    rtt_step_s: Optional[float] = None
    pacing: Optional[str] = None
    #: the bottleneck queue's ``xcp`` value (XCP rows)
    xcp: Optional[Any] = None
    #: RED rows: the bottleneck's RED parameters (besides ``limit_pkts``);
    #: the flows are then ECN-capable when the queue marks
    red: Optional[Tuple[Tuple[str, Any], ...]] = None
    #: GWA rows: the bottleneck discipline and its GWA mode (flows get ``gwa = true``)
    queue_kind: str = "droptail"
    gwa: Optional[str] = None
    #: soak rows: the event count at which peak memory is first read (the
    #: second reading is at the end of the run)
    soak_checkpoint: Optional[int] = None
    #: router-mechanism rows (X1, G1, R1): the row of the same network,
    #: flow count and pacing with the mechanism taken out (a DropTail
    #: bottleneck, Reno flows), the mechanism's own cost (``vs_own_pkts``)
    own: Optional[str] = None
    #: rows measured against ns-3 (``M-...``): flows with ``NS3_TCP``, one
    #: entry each, started 1/N s apart, a 5 ms bottleneck; the bottleneck
    #: queue's parameters (besides ``limit_pkts``) and the flows' cc_params
    ns3: bool = False
    #: rows of many flows (``S...``): ``SCALE_TCP`` flows over ``links``
    #: bottlenecks (1: a dumbbell; more: a parking lot)
    scale: bool = False
    links: int = 1
    queue_params: Optional[Tuple[Tuple[str, Any], ...]] = None
    #: a TCP personality (``tcp_model``): its defaults, not ``ROW_TCP``'s
    #: ns-2-like ones, and ``cc`` and ``recovery`` left to it
    tcp_model: Optional[str] = None
    cc_params: Optional[Tuple[Tuple[str, Any], ...]] = None
    #: M rows: the flows' fields besides ``NS3_TCP``, cc, RTT, start,
    #: pacing and cc_params (the ECN set-up: ``ecn``, ``ect``, ``ecn_feedback``)
    flow_params: Optional[Tuple[Tuple[str, Any], ...]] = None


#: The flows of the rows of many flows (``S...``): long-lived, 1500-byte
#: packets, initial window 10, RTTs spread over 20-100 ms and starts over
#: 1 s; delayed ACKs and the rest as the ``rfc`` personality's defaults.
SCALE_TCP = {"mss_bytes": 1460, "header_bytes": 40, "init_cwnd_pkts": 10, "rtt_range_s": [0.020, 0.100],
             "start_spread_s": 1.0}
SCALE_BNECK_DELAY_S = 0.005
#: Their buffers: BDP/sqrt(N) at the mean RTT (Appenzeller et al. 2004).
SCALE_MEAN_RTT_S = 0.060
SCALE_PKT_BYTES = 1500
#: Bytes of the packet slab per slot (`net::packet::Slot`: arrival time,
#: wire link, the 88-byte packet), for ``bytes_per_flow``.
SLOT_BYTES = 104


def scale_buffer_pkts(rate_bps: float, flows: int) -> int:
    """BDP/sqrt(N) packets at the mean RTT: the buffer of a link that
    ``flows`` long-lived flows share (Appenzeller et al. 2004)."""
    return round(rate_bps * SCALE_MEAN_RTT_S / (8 * SCALE_PKT_BYTES) / math.sqrt(flows))


#: Linux sch_dualpi2's defaults (the ``dualpi2`` kind's own, spelled out
#: so that the row says what it runs; docs/scenario.md, DualPI2), the
#: buffer aside: M-prague-dualpi2 holds 10240 packets, its ns-3 stand-in's.
DUALPI2_LINUX = (("target_s", 0.015), ("tupdate_s", 0.016), ("alpha", 0.16015625), ("beta", 3.19921875),
                 ("step_thresh_s", 0.001), ("min_qlen_step", 0), ("coupling_factor", 2), ("c_protection", 10),
                 ("drop_overload", True), ("ecn_mask", "l4s_ect"), ("mtu_bytes", 1500))

#: The Python Reno of examples/controllers/ (identical results to the
#: built-in ``reno``, event for event), as the ``-py`` rows name it: a
#: source checkout's file.
_PY_EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "controllers"
PY_RENO = f"{_PY_EXAMPLES / 'reno.py'}:Reno"
#: The Python DCTCP and CUBIC (without HyStart) of examples/controllers/,
#: as the ``M-...-py`` rows name them.
PY_DCTCP = f"{_PY_EXAMPLES / 'dctcp.py'}:Dctcp"
PY_CUBIC = f"{_PY_EXAMPLES / 'cubic.py'}:Cubic"

#: Controllers benchmarked on B2's scenario (``B2-<cc>``).
CONTROLLER_ROWS = ("hstcp", "stcp", "htcp", "ltcp", "cubic")
_B2 = ("1 Gb/s, RTT 100 ms, 20-pkt buffer", 1, 1e9, 0.100, 20, 60.0)
_B2CAP = ("1 Gb/s, RTT 100 ms", 1, 1e9, 0.100, 5000, 60.0)


BENCHMARKS: Dict[str, Bench] = {
    b.name: b
    for b in [
        Bench("B1", "1 flow, 100 Mb/s, RTT 100 ms, 20-pkt buffer", 1, 100e6, 0.100, 20, 60.0),
        Bench("B2", f"1 flow, {_B2[0]}", *_B2[1:]),
        Bench("B2L", f"B2 for 600 s (the ns-2 peer's long run): 1 flow, {_B2[0]}", *_B2[1:5], 600.0),
        Bench("B2L-hstcp", f"B2L with cc = hstcp (the ns-2 peer's long HighSpeed run): 1 flow, {_B2[0]}",
              *_B2[1:5], 600.0, cc="hstcp"),
        Bench("B3", "50 flows, 1 Gb/s, RTT 100 ms, 20-pkt buffer", 50, 1e9, 0.100, 20, 60.0),
        Bench("B4", "500 flows, 1 Gb/s, RTT 100 ms, 200-pkt buffer", 500, 1e9, 0.100, 200, 20.0),
        Bench("B5", "SACK, 1 flow, 1 Gb/s, RTT 70 ms, 6000-pkt buffer, 2.4 Gb/s edges",
              1, 1e9, 0.070, 6000, 120.0, recovery="sack", edge_rate_bps=2.4e9),
    ]
    + [Bench("E1", "E-TCP, 1 flow, 1 Gb/s, RTT 100 ms, 20-pkt buffer", 1, 1e9, 0.100, 20, 60.0, transport="etcp"),
       Bench("E5", "E-TCP, 1 flow, 5 Gb/s, RTT 100 ms, 20-pkt buffer", 1, 5e9, 0.100, 20, 300.0, transport="etcp")]
    + [Bench(f"B2-{cc}", f"B2 with cc = {cc}: 1 flow, {_B2[0]}", *_B2[1:], cc=cc, base="B2") for cc in CONTROLLER_ROWS]
    + [Bench("B2-py", f"B2 with the Python Reno (examples/controllers/reno.py): 1 flow, {_B2[0]}", *_B2[1:],
             cc=PY_RENO, base="B2"),
       Bench("B3-py", "B3 with the Python Reno (examples/controllers/reno.py): 50 flows, 1 Gb/s, RTT 100 ms, "
             "20-pkt buffer", 50, 1e9, 0.100, 20, 60.0, cc=PY_RENO, base="B3"),
       Bench("B3-linux", "B3 with Linux's TCP (tcp_model = \"linux\": CUBIC, SACK with RACK-TLP and PRR, IW 10, "
             "delayed ACKs): 50 flows, 1 Gb/s, RTT 100 ms, 20-pkt buffer", 50, 1e9, 0.100, 20, 60.0,
             tcp_model="linux", base="B3")]
    + [Bench("B2cap", f"B2 capped: rwnd 3000, 5000-pkt buffer, loss-free, {_B2CAP[0]}", *_B2CAP[1:], rwnd_pkts=3000)]
    + [Bench(f"B2cap-{cc}", f"B2cap with cc = {cc} (same events as B2cap)", *_B2CAP[1:], cc=cc, rwnd_pkts=3000,
             base="B2cap") for cc in CONTROLLER_ROWS]
    + [Bench(f"W1{sfx}", f"E-TCP Fig 17 web workload{what}: 1500 users, size factor 60, 622 Mb/s, 20-pkt buffer, "
             "RTT 10-150 ms", 1500, 622e6, 0.0, 20, 100.0, transport=transport, app="web",
             app_params=(("size_factor", 60.0),), rtt_range_s=(0.010, 0.150), rtt_step_s=0.001)
       for sfx, what, transport in (("", "", "tcp"), ("-etcp", " over E-TCP", "etcp"))]
    + [Bench("X1", "100 paced XCP flows (conservative), 622 Mb/s, RTT 64-100 ms, BDP buffer (6130 pkts)",
             100, 622e6, 0.0, 6130, 100.0, cc="xcp", recovery="reno", rtt_range_s=(0.064, 0.100),
             pacing="token_bucket", xcp={"params": "conservative"}, own="X1-dt"),
       Bench("X1-dt", "X1's dumbbell without XCP: 100 paced Reno flows, DropTail, 622 Mb/s, RTT 64-100 ms, "
             "6130 pkts", 100, 622e6, 0.0, 6130, 100.0, cc="reno", recovery="reno", rtt_range_s=(0.064, 0.100),
             pacing="token_bucket")]
    # The mechanism rows as ns-2.35 can run them (benches/peer_ns2.py): its
    # XCP has no pacing and only the original parameters, and it has DRR
    # but no GWA.
    + [Bench("X1u", "X1 as ns-2.35 runs it: 100 unpaced XCP flows, original parameters, 622 Mb/s, RTT 64-100 ms, "
             "6130 pkts", 100, 622e6, 0.0, 6130, 100.0, cc="xcp", recovery="reno", rtt_range_s=(0.064, 0.100),
             xcp={"params": "original"}, own="X1u-dt"),
       Bench("X1u-dt", "X1u's dumbbell without XCP: 100 unpaced Reno flows, DropTail, 622 Mb/s, RTT 64-100 ms, "
             "6130 pkts", 100, 622e6, 0.0, 6130, 100.0, cc="reno", recovery="reno", rtt_range_s=(0.064, 0.100))]
    + [Bench("R1", "B3 with a marking RED bottleneck (thresholds 1/12, 3/12 of 20 pkts) and ECN flows", 50, 1e9,
             0.100, 20, 60.0, red=(("bytes", False), ("min_th_pkts", 20 / 12), ("max_th_pkts", 5.0), ("w_q", 0.002),
                                  ("max_p", 0.1), ("ecn", True)), own="B3")]
    + [Bench("L1", "memory soak: B3 for 1600 s (about 1.07e9 events), peak RSS at 1e8 events and at the end",
             50, 1e9, 0.100, 20, 1600.0, soak_checkpoint=10**8)]
    + [Bench(name, desc, n, rate, 0.0, scale_buffer_pkts(rate, n if links == 1 else 2 * n // (links + 1)), dur,
             cc=cc, recovery=rec, scale=True, edge_rate_bps=10 * rate, links=links,
             rtt_range_s=None if links == 1 else (0.040, 0.100))
       for name, desc, n, rate, dur, cc, rec, links in (
           ("S0", "10 CUBIC flows, 10 Gb/s, RTT 20-100 ms, BDP/sqrt(N) buffer (15811 pkts), 5 s", 10, 10e9, 5.0,
            "cubic", "sack", 1),
           ("S1", "1,000 CUBIC flows, 10 Gb/s, RTT 20-100 ms, BDP/sqrt(N) buffer (1581 pkts), 5 s", 1000, 10e9, 5.0,
            "cubic", "sack", 1),
           ("S1-newreno", "S1 with NewReno", 1000, 10e9, 5.0, "reno", "newreno", 1),
           ("S2", "10,000 CUBIC flows, 10 Gb/s, RTT 20-100 ms, BDP/sqrt(N) buffer (500 pkts), 5 s", 10000, 10e9,
            5.0, "cubic", "sack", 1),
           ("S2-newreno", "S2 with NewReno", 10000, 10e9, 5.0, "reno", "newreno", 1),
           ("S3", "100,000 CUBIC flows, 100 Gb/s, RTT 20-100 ms, BDP/sqrt(N) buffer (1581 pkts), 2 s", 100000,
            100e9, 2.0, "cubic", "sack", 1),
           ("S4", "parking lot, 3 x 10 Gb/s: 10,000 CUBIC flows (2,500 on all links, 2,500 on each), RTT 40-100 ms, "
            "BDP/sqrt(N) buffers (707 pkts), 5 s", 10000, 10e9, 5.0, "cubic", "sack", 3))]
    + [Bench("M-bbr", "4 BBR flows, 1 Gb/s, RTT 40 ms, 2-BDP drop-tail (6658 pkts), 1448-B segments (ns-3 peer)",
             4, 1e9, 0.040, 6658, 60.0, cc="bbr", recovery="sack", edge_rate_bps=10e9, pacing="rate",
             cc_params=(("drain_gain", 256 / 739), ("lt_bw", False)), ns3=True),
       Bench("M-dctcp-red", "4 DCTCP flows, RED step at K = 65, 1 Gb/s, RTT 10 ms, 1000 pkts, 1448-B segments "
             "(ns-3 peer)", 4, 1e9, 0.010, 1000, 40.0, cc="dctcp", recovery="sack", edge_rate_bps=10e9,
             queue_kind="red", queue_params=(("min_th_pkts", 65), ("max_th_pkts", 66), ("w_q", 1.0), ("max_p", 1.0),
                                             ("gentle", False), ("ecn", True), ("ecn_mark_above_max", True)),
             ns3=True),
       Bench("M-cubic-fqcodel", "4 CUBIC flows, FQ-CoDel, 1 Gb/s, RTT 40 ms, 10240 pkts, 1448-B segments (ns-3 peer)",
             4, 1e9, 0.040, 10240, 60.0, cc="cubic", recovery="sack", edge_rate_bps=10e9, queue_kind="fq_codel",
             queue_params=(("flows", 1024), ("quantum_bytes", 1500), ("drop_batch", 64), ("target_s", 0.005),
                           ("interval_s", 0.1), ("mtu_bytes", 1500), ("ecn", True)),
             cc_params=(("abc", True), ("alpha_switch", False)), ns3=True),
       # ns-3 has neither Prague nor DualPI2 nor AccECN: benches/peer_ns3.py
       # runs a labelled stand-in there (DCTCP sending ECT(1) over FQ-CoDel's
       # L4S mode) on the same network, flows and duration.
       Bench("M-prague-dualpi2", "4 TCP Prague flows (ECT(1), AccECN, paced), DualPI2 (Linux defaults), 1 Gb/s, "
             "RTT 40 ms, 10240 pkts, 1448-B segments (ns-3: a stand-in, DCTCP ECT(1) over FQ-CoDel L4S)",
             4, 1e9, 0.040, 10240, 60.0, cc="prague", recovery="sack", edge_rate_bps=10e9, pacing="rate",
             queue_kind="dualpi2", queue_params=DUALPI2_LINUX,
             flow_params=(("ecn", True), ("ect", "ect1"), ("ecn_feedback", "accecn")), ns3=True)]
    + [Bench("G1", "B3 with GWA-RR: 50 gwa flows, DRR bottleneck, 1 Gb/s, RTT 100 ms, BDP buffer (12020 pkts)",
             50, 1e9, 0.100, 12020, 60.0, queue_kind="drr", gwa="rr", own="G1-dt"),
       Bench("G1-dt", "G1's dumbbell without GWA-RR: 50 Reno flows, DropTail, 1 Gb/s, RTT 100 ms, 12020 pkts",
             50, 1e9, 0.100, 12020, 60.0),
       Bench("G1-drr", "G1 as ns-2.35 runs it (DRR, no GWA): 50 Reno flows, DRR bottleneck, 1 Gb/s, RTT 100 ms, "
             "12020 pkts", 50, 1e9, 0.100, 12020, 60.0, queue_kind="drr", own="G1-dt")]
}

#: Short benchmarks repeat until this much wall time is spent (best repeat reported).
MIN_TOTAL_S = 1.0
MAX_REPEATS = 25

#: How every bench queue orders a tied arrival and departure: ns-2.35's
#: order, that of the ns-2 peer (``benches/peer_ns2.py``).
TIES = "arrival_first"
#: The edge links' queue: the default buffer (1000 packets), in ``TIES``.
EDGE_QUEUE_PKTS = 1000

#: --quick divides every duration by this (CI smoke runs).
QUICK_FACTOR = 10.0


#: The rows' TCP besides cc and recovery: one ACK per segment and an
#: initial window of 2, as every row's recorded history (benches/results)
#: ran, whatever the ``rfc`` personality's defaults become.
ROW_TCP = {"init_cwnd_pkts": 2, "delayed_ack": False}

#: The TCP of the rows measured against ns-3 (``M-...``): the ns-3
#: comparisons' mapping (validation/ns3_bbr.py and ns3_aqm.py, ``DEFAULTS``);
#: ``benches/peer_ns3.py`` refuses to run a row that no longer matches it.
NS3_TCP = {"mss_bytes": 1448, "header_bytes": 54, "init_cwnd_pkts": 10, "min_rto_s": 0.2,
           "clock_granularity_s": 0.01, "delayed_ack": False, "recovery": "sack", "limited_transmit": True,
           "dupthresh": 3, "rtt_estimator": "rfc6298"}
#: M rows with the Python twin of their controller (``M-<row>-py``): the
#: same events and results, at the cost of calling Python per hook, beside
#: ns-3's run of the base row (``benches/peer_ns3.py``).
PY_M_ROWS = {"M-dctcp-red-py": ("M-dctcp-red", PY_DCTCP), "M-cubic-fqcodel-py": ("M-cubic-fqcodel", PY_CUBIC)}
for _name, (_base, _cc) in PY_M_ROWS.items():
    BENCHMARKS[_name] = replace(BENCHMARKS[_base], name=_name, cc=_cc, base=_base,
                                description=f"{_base} with the Python twin of its controller "
                                            f"(examples/controllers/{Path(_cc.rsplit(':', 1)[0]).name})")

#: Their bottleneck delay (the ns-3 comparisons' ``BNECK_DELAY_S``).
NS3_BNECK_DELAY_S = 0.005



def scenario(name: str, quick: bool = False) -> Scenario:
    """The benchmark scenario ``name`` (B1..B5, B2-<cc>, E1, E5, W1, W1-etcp)."""
    return scenario_of(BENCHMARKS[name], quick)


def scenario_of(b: Bench, quick: bool = False) -> Scenario:
    """The scenario of row ``b``, one of :data:`BENCHMARKS` or a variant of
    one (``dataclasses.replace``: ``benches/flow_sweep.py``'s S2 with N flows)."""
    if b.ns3:
        return _ns3_scenario(b, quick)
    if b.scale:
        return _scale_scenario(b, quick)
    if b.transport != "tcp":
        tcp: Dict[str, Any] = {"transport": b.transport}
    elif b.tcp_model:
        tcp = {"tcp_model": b.tcp_model}
    else:
        tcp = {"cc": b.cc, "recovery": b.recovery, **ROW_TCP}
    if b.app is not None:
        flow = Flow(count=b.flows, **tcp, mss_bytes=1000, header_bytes=40,
                    rtt_range_s=list(b.rtt_range_s) if b.rtt_range_s else None, rtt_step_s=b.rtt_step_s,
                    app=b.app, app_params=dict(b.app_params or ()))
    elif b.transport == "tcp" and b.rtt_range_s is not None:
        flow = Flow(count=b.flows, **tcp, mss_bytes=1000, header_bytes=40,
                    rtt_range_s=list(b.rtt_range_s), rwnd_pkts=b.rwnd_pkts, pacing=b.pacing, start_spread_s=10.0)
    elif b.transport == "tcp":
        ecn = True if b.red and dict(b.red).get("ecn") else None
        flow = Flow(count=b.flows, **tcp, mss_bytes=1000,
                    header_bytes=40, rtt_s=b.rtt_s, rwnd_pkts=b.rwnd_pkts, ecn=ecn,
                    gwa=True if b.gwa else None)
    else:
        flow = Flow(count=b.flows, transport=b.transport, mss_bytes=1000, header_bytes=40, rtt_s=b.rtt_s)
    return _dumbbell(b, quick, 0.001,
                     Queue(kind="red", limit_pkts=b.buffer_pkts, extra=dict(b.red, ties=TIES)) if b.red
                     else Queue(kind=b.queue_kind, limit_pkts=b.buffer_pkts, xcp=b.xcp,
                                extra=dict({"gwa": b.gwa} if b.gwa else {}, ties=TIES)),
                     [flow])


def _dumbbell(b: Bench, quick: bool, bneck_delay_s: float, bottleneck_queue: Queue, flows: List[Flow]) -> Scenario:
    """Row ``b``'s dumbbell: its rate, access links and duration (a tenth
    with ``quick``), DropTail access queues, seed 1, no flow series."""
    return Scenario(
        name=f"bench-{b.name}",
        seed=1,
        duration_s=b.duration_s / QUICK_FACTOR if quick else b.duration_s,
        sample_interval_s=0,
        topology=Dumbbell(
            bottleneck_rate_bps=b.rate_bps,
            bottleneck_delay_s=bneck_delay_s,
            bottleneck_queue=bottleneck_queue,
            edge_queue=Queue(kind="droptail", limit_pkts=EDGE_QUEUE_PKTS, extra={"ties": TIES}),
            edge_rate_bps=b.edge_rate_bps,
        ),
        flows=flows,
    )


def _ns3_scenario(b: Bench, quick: bool) -> Scenario:
    """A row measured against ns-3: ``flows`` entries of ``NS3_TCP``, one
    each, started 1/N s apart (as the ns-3 comparisons start them)."""
    flows = [Flow(cc=b.cc, rtt_s=b.rtt_s, start_s=round(i / b.flows, 9), pacing=b.pacing,
                  cc_params=dict(b.cc_params) if b.cc_params else None, **dict(b.flow_params or ()), **NS3_TCP)
             for i in range(b.flows)]
    return _dumbbell(b, quick, NS3_BNECK_DELAY_S,
                     Queue(kind=b.queue_kind, limit_pkts=b.buffer_pkts, extra=dict(b.queue_params or (), ties=TIES)),
                     flows)


def _scale_scenario(b: Bench, quick: bool) -> Scenario:
    """A row of many flows (``S...``): ``SCALE_TCP`` flows over a dumbbell,
    or a parking lot of ``b.links`` links with a quarter of the flows
    across all of them and a quarter on each link alone."""
    dur = b.duration_s / QUICK_FACTOR if quick else b.duration_s
    queue = Queue(kind="droptail", limit_pkts=b.buffer_pkts)
    edge = Queue(kind="droptail", limit_pkts=EDGE_QUEUE_PKTS)

    def flows(count: int, hops: Optional[List[int]] = None) -> Flow:
        tcp = dict(SCALE_TCP, rtt_range_s=list(b.rtt_range_s)) if b.rtt_range_s else SCALE_TCP
        return Flow(count=count, cc=b.cc, recovery=b.recovery, hops=hops, **tcp)

    if b.links == 1:
        topo: Any = Dumbbell(bottleneck_rate_bps=b.rate_bps, bottleneck_delay_s=SCALE_BNECK_DELAY_S,
                             bottleneck_queue=queue, edge_rate_bps=b.edge_rate_bps, edge_queue=edge)
        fl = [flows(b.flows)]
    else:
        topo = ParkingLot(n_links=b.links, link_rate_bps=b.rate_bps, link_delay_s=SCALE_BNECK_DELAY_S,
                          link_queue=queue, edge_rate_bps=b.edge_rate_bps, edge_queue=edge)
        per = b.flows // (b.links + 1)
        fl = [flows(per, [0, b.links - 1])] + [flows(per, [i, i]) for i in range(b.links)]
    return Scenario(name=f"bench-{b.name}", seed=1, duration_s=dur, sample_interval_s=0, topology=topo, flows=fl)


def _peak_rss_mb(usage: resource.struct_rusage) -> float:
    # ru_maxrss is KiB on Linux, bytes on macOS.
    scale = 1.0 if sys.platform == "darwin" else 1024.0
    return usage.ru_maxrss * scale / 2**20


def run_one(name: str, quick: bool = False, duration_s: Optional[float] = None) -> Dict[str, Any]:
    """Run one benchmark in *this* process and measure it (``duration_s``:
    the row cut short, for a peer too slow to run it whole)."""
    return measure(BENCHMARKS[name], quick, duration_s)


def measure(b: Bench, quick: bool = False, duration_s: Optional[float] = None) -> Dict[str, Any]:
    """:func:`run_one` for row ``b``, one of :data:`BENCHMARKS` or a variant."""
    from ._native import core, dumps

    name = b.name
    d = scenario_of(b, quick).to_dict()
    if duration_s is not None:
        d["duration_s"] = duration_s
    text = dumps(d)
    # Short runs are repeated (same seed, so identical work) until about
    # MIN_TOTAL_S of wall time has been spent, and the fastest repeat is
    # reported, as timeit does: the minimum is the run least disturbed by
    # other load on the machine. Long runs are measured once.
    walls = []
    soak: Dict[str, Any] = {}
    # A row of many flows reads its memory on its first repeat: a later
    # one builds its engine while the previous repeat's results (and
    # NumPy, imported for them) are held, and S0, repeated when it runs
    # under half a second, then read 12 MB more than S1, which is not.
    scale_rss: Optional[Tuple[float, float]] = None
    while True:
        t0 = time.perf_counter()
        sim = core().Simulation(text)
        if b.soak_checkpoint is not None:
            soak = _soak_to_checkpoint(sim, b.soak_checkpoint // (QUICK_FACTOR_EVENTS if quick else 1))
        if b.scale:
            # The run's own peak, before the results (a row per link and
            # per flow) are built and handed over.
            sim.run_until(sim.duration_s)
            run_peak = _peak_rss_mb(resource.getrusage(resource.RUSAGE_SELF))
        # The rows of many flows take their results as `ccsim.run` does, the
        # per-flow and per-link tables as columns (ccsim.tables; NumPy, about
        # 12 MB, is imported then, after `run_peak_rss_mb`); the others as
        # the JSON document, as their recorded peak memory always did.
        out = sim.finish_columns() if b.scale else sim.finish()
        if b.scale and not walls:
            scale_rss = (run_peak, _peak_rss_mb(resource.getrusage(resource.RUSAGE_SELF)))
        if soak:
            soak["packet_slots_at_end"] = int(sim.packet_slots)
        walls.append(time.perf_counter() - t0)
        if sum(walls) >= MIN_TOTAL_S or len(walls) >= MAX_REPEATS:
            break
    wall = min(walls)
    from .results import Results

    res = (Results.from_engine(out) if b.scale else Results(out)).raw
    c = res.get("conservation", {})
    if not (c.get("created") == c.get("delivered", 0) + c.get("dropped", 0) + c.get("in_flight", 0)
            and c.get("in_flight") == c.get("live_in_pool")):
        # A fast wrong answer is not a benchmark result.
        raise RuntimeError(f"benchmark {name}: packet conservation violated: {c}")
    bneck = next((l for l in res.get("links", []) if l.get("monitored")), {})
    events = int(res.get("events", 0))
    row = {
        "name": name,
        "wall_s": wall,
        "repeats": len(walls),
        "events": events,
        "events_per_s": events / wall if wall > 0 else float("nan"),
        "bottleneck_pkts_per_s": bneck.get("tx_pkts", 0) / wall if wall > 0 else float("nan"),
        # Engine work per unit of simulated work: a change that adds events
        # per packet shows here whatever the machine's speed.
        "events_per_bottleneck_pkt": events / bneck["tx_pkts"] if bneck.get("tx_pkts") else float("nan"),
        "peak_rss_mb": _peak_rss_mb(resource.getrusage(resource.RUSAGE_SELF)),
        "utilization": bneck.get("utilization"),
        "loss_rate": bneck.get("loss_rate"),
        # The engine's build: a profile-guided one (the default install,
        # build_backend/ccsim_build.py) runs 2-9% faster than without.
        "pgo": _pgo_profile(),
    }
    if b.scale:
        assert scale_rss is not None
        row["flows"] = b.flows
        row["packet_slots"] = int(sim.packet_slots)
        row["run_peak_rss_mb"], row["peak_rss_mb"] = scale_rss
    if soak:
        end = row["peak_rss_mb"]
        row.update(soak)
        row["rss_mb_at_end"] = end
        row["rss_growth"] = end / soak["rss_mb_at_checkpoint"] - 1.0
    ft = res.get("flow_table")
    if ft:
        # Workload rows: transfers made over the run against the most alive
        # at once (what the flow table's memory follows).
        row["transfers"] = ft["transfers"]
        row["live_flows_max"] = ft["live_max"]
    return row


def _pgo_profile() -> Optional[str]:
    """The profile the engine was compiled with (None: no PGO)."""
    from ._native import core
    info = getattr(core(), "build_info", None)
    return info()["pgo"] if info else None


#: --quick divides the soak checkpoint by this (a tenth of the run, a
#: tenth of the events).
QUICK_FACTOR_EVENTS = 10


def _soak_to_checkpoint(sim: Any, checkpoint: int, step_s: float = 10.0) -> Dict[str, Any]:
    """Step ``sim`` until it has processed ``checkpoint`` events (or ended)
    and read the process's peak RSS there."""
    t = sim.now_s
    while sim.events < checkpoint and t < sim.duration_s:
        t = min(t + step_s, sim.duration_s)
        sim.run_until(t)
    return {"checkpoint_events": int(sim.events), "checkpoint_time_s": float(sim.now_s),
            "rss_mb_at_checkpoint": _peak_rss_mb(resource.getrusage(resource.RUSAGE_SELF)),
            "packet_slots_at_checkpoint": int(sim.packet_slots)}


def run_isolated(name: str, quick: bool = False, duration_s: Optional[float] = None) -> Dict[str, Any]:
    """Run one benchmark in a fresh interpreter and return its measurements."""
    cmd = [sys.executable, "-m", "ccsim.bench", "--one", name] + (["--quick"] if quick else []) + (
        [f"--duration={duration_s!r}"] if duration_s is not None else [])
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark {name} failed (exit {proc.returncode}):\n{proc.stderr.strip()}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def fastest_of_rounds(names: List[str], rounds: int, measure: Callable[[str], Any], show: Callable[[Any], None],
                      keep: Callable[[Optional[Any], Any], Any]) -> List[Any]:
    """The peer scripts' rounds (benches/peer_ns2.py, peer_ns3.py): each of
    ``names`` measured ``rounds`` times, interleaved, each result printed
    with ``show``; per name the ``keep`` of its results (each simulator's
    fastest), printed again after several rounds."""
    best: Dict[str, Any] = {}
    for k in range(rounds):
        if rounds > 1:
            print(f"-- round {k + 1} of {rounds}", flush=True)
        for n in names:
            r = measure(n)
            show(r)
            best[n] = keep(best.get(n), r)
    rows = [best[n] for n in names]
    if rounds > 1:
        print(f"-- fastest of {rounds} rounds, each simulator apart")
        for r in rows:
            show(r)
    return rows


def run_all(names: Optional[List[str]] = None, quick: bool = False, progress=None,
            rounds: int = 1) -> List[Dict[str, Any]]:
    """Run the named (default: all) benchmarks, one subprocess each, in order.

    Sequential on purpose: concurrent runs would compete for cores and
    memory bandwidth and distort each other's numbers. With ``rounds`` > 1
    the whole list is run that many times, interleaved (B5, E1, B5, E1,
    ...), and each row keeps its fastest round, as a short row keeps its
    fastest repeat: a ratio of two rows (``vs_B5_pkts``, ``vs_B3_pkts``)
    then compares each row's least disturbed run, taken over the same
    stretch of the machine's load, rather than two single runs that a
    load swing between them can move by 30% (docs/performance.md). Such
    rows also carry ``rounds`` and every round's wall time
    (``round_walls_s``, fastest first).
    """
    if rounds < 1:
        raise ValueError(f"rounds: {rounds}; allowed: 1 or more")
    best: Dict[str, Dict[str, Any]] = {}
    order = names or list(BENCHMARKS)
    for r in range(rounds):
        for name in order:
            if progress:
                progress(name, "" if rounds == 1 else f" (round {r + 1}/{rounds})")
            row = run_isolated(name, quick)
            if rounds == 1:
                best[name] = row
                continue
            walls = [row["wall_s"]] + best.get(name, {}).get("round_walls_s", [])
            if name not in best or row["wall_s"] < best[name]["wall_s"]:
                best[name] = row
            best[name]["round_walls_s"] = sorted(walls)
            best[name]["rounds"] = rounds
    results = [best[n] for n in order]
    add_controller_ratios(results)
    return results


def add_controller_ratios(rows: List[Dict[str, Any]]) -> None:
    """Give each controller row ``vs_base`` = its events/s over its NewReno
    base row's (``B2`` or ``B2cap``), when the base ran in the same batch
    (target: >= 0.85); the E-TCP, XCP, RED and GWA rows their bottleneck
    packets/s over B5's or B3's (``vs_B5_pkts``, ``vs_B3_pkts``: the
    targets), and the router-mechanism rows over their own dumbbell's
    (``vs_own_pkts``, no target), each when that row ran too."""
    eps = {r["name"]: r["events_per_s"] for r in rows}
    pps = {r["name"]: r["bottleneck_pkts_per_s"] for r in rows}
    for r in rows:
        base = BENCHMARKS[r["name"]].base
        if base in eps:
            r["vs_base"] = r["events_per_s"] / eps[base]
        if BENCHMARKS[r["name"]].transport == "etcp" and "B5" in pps:
            r["vs_B5_pkts"] = r["bottleneck_pkts_per_s"] / pps["B5"]
        bn = BENCHMARKS[r["name"]]
        if (bn.cc == "xcp" or bn.red or bn.queue_kind != "droptail") and "B3" in pps:
            r["vs_B3_pkts"] = r["bottleneck_pkts_per_s"] / pps["B3"]
        if bn.own in pps:
            r["vs_own_pkts"] = r["bottleneck_pkts_per_s"] / pps[bn.own]
    add_scale_ratios(rows)


def add_scale_ratios(rows: List[Dict[str, Any]]) -> None:
    """Give each row of many flows (``S...``) its bottleneck packets/s
    over S0's (``vs_S0_pkts``, S2's target >= 0.7) when S0 ran in the same
    batch, and its memory per flow (``bytes_per_flow``, target <= 2048):
    the slope of peak RSS against flows from the row of the batch with the
    most flows fewer than this row's (``bytes_per_flow_from``), less the
    packet slab's growth (in-flight packets), read at the end of the run
    before the results are built (``run_peak_rss_mb``); what the results
    then add per flow is ``results_bytes_per_flow``, and the slope of the
    process's whole peak (``peak_rss_mb``, results included) is
    ``peak_bytes_per_flow``, the target's measure. The engine frees the
    flows' agents and its pending events before it builds the results
    (``Simulation.end``), so the results mostly fit in memory the run gave
    back and ``results_bytes_per_flow`` can be below zero. A slope between
    two rows leaves out what every run holds whatever its flows (the
    interpreter, the engine's tables), which S0, of 10 flows, hardly
    grows."""
    scale = [r for r in rows if BENCHMARKS[r["name"]].scale]
    s0 = next((r for r in scale if r["name"] == "S0"), None)
    for r in scale:
        n = BENCHMARKS[r["name"]].flows
        if s0 is not None and r is not s0:
            r["vs_S0_pkts"] = r["bottleneck_pkts_per_s"] / s0["bottleneck_pkts_per_s"]
        smaller = [o for o in scale if BENCHMARKS[o["name"]].flows < n]
        if not smaller:
            continue
        base = max(smaller, key=lambda o: BENCHMARKS[o["name"]].flows)
        slab = (r["packet_slots"] - base["packet_slots"]) * SLOT_BYTES
        dn = n - BENCHMARKS[base["name"]].flows
        r["bytes_per_flow"] = ((r["run_peak_rss_mb"] - base["run_peak_rss_mb"]) * 2**20 - slab) / dn
        # what the results add: a row per link (four per flow on a
        # dumbbell) and per flow, as columns (ccsim.tables)
        r["results_bytes_per_flow"] = ((r["peak_rss_mb"] - r["run_peak_rss_mb"])
                                       - (base["peak_rss_mb"] - base["run_peak_rss_mb"])) * 2**20 / dn
        r["peak_bytes_per_flow"] = r["bytes_per_flow"] + r["results_bytes_per_flow"]
        r["bytes_per_flow_from"] = base["name"]


def format_table(rows: List[Dict[str, Any]]) -> str:
    header = (f"{'name':<12} {'wall_s':>8} {'events':>12} {'Mev/s':>7} {'bneck_kpkt/s':>13} {'rss_MB':>8} "
              f"{'util':>7} {'loss':>9} {'ev/pkt':>6} {'vs_base':>7}")
    lines = [header]
    for r in rows:
        util, loss = r.get("utilization"), r.get("loss_rate")
        lines.append(
            f"{r['name']:<12} {r['wall_s']:>8.3f} {r['events']:>12} {r['events_per_s'] / 1e6:>7.2f} "
            f"{r['bottleneck_pkts_per_s'] / 1e3:>13.1f} {r['peak_rss_mb']:>8.1f} "
            f"{(util if util is not None else float('nan')):>7.4f} "
            f"{(loss if loss is not None else float('nan')):>9.2e} "
            f"{r.get('events_per_bottleneck_pkt', float('nan')):>6.2f}"
            + (f" {r['vs_base']:>7.2f}" if "vs_base" in r else "")
            + (f" vs B5 pkts/s {r['vs_B5_pkts']:.2f}" if "vs_B5_pkts" in r else "")
            + (f" vs B3 pkts/s {r['vs_B3_pkts']:.2f}" if "vs_B3_pkts" in r else "")
            + (f" vs {BENCHMARKS[r['name']].own} pkts/s {r['vs_own_pkts']:.2f}"
               if "vs_own_pkts" in r and BENCHMARKS[r["name"]].own != "B3" else "")
            + (f"  transfers={r['transfers']} live_max={r['live_flows_max']}" if "transfers" in r else "")
            + (f" vs S0 pkts/s {r['vs_S0_pkts']:.2f}" if "vs_S0_pkts" in r else "")
            + (f" bytes/flow at peak {r['peak_bytes_per_flow']:,.0f} (run {r['bytes_per_flow']:,.0f}, "
               f"results {r['results_bytes_per_flow']:,.0f}; from {r['bytes_per_flow_from']})"
               if "bytes_per_flow" in r else "")
        )
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    """``python -m ccsim.bench --one NAME`` (child mode) prints one JSON line."""
    ap = argparse.ArgumentParser(prog="python -m ccsim.bench")
    ap.add_argument("--one", metavar="NAME", choices=sorted(BENCHMARKS), help="run one benchmark in this process")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--duration", type=float, help="with --one: the row's simulated seconds instead of its own")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("names", nargs="*")
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(args.one, args.quick, args.duration)))
        return 0
    rows = run_all(args.names or None, args.quick, rounds=args.rounds)
    print(json.dumps(rows, indent=2) if args.json else format_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
