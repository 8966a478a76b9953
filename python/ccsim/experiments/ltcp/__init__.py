"""LTCP paper (Bhandarkar, Jain, Reddy, "LTCP: a layered congestion control
protocol for highspeed networks") experiments.

Common setting of the ns-2 section (§V-A, Fig 4): a dumbbell whose
bottleneck is 1 Gb/s unless stated, access links 2.4 Gb/s, end-to-end RTT
70 ms, DropTail routers with "the default queuesize of 6000 packets unless
specified otherwise", TCP = ns-2 ``TCP/Sack1`` (here Reno window rules with
RFC 6675 SACK recovery), LTCP = the same agent with the §IV-B layering,
W_T = 50, beta = 0.15, FTP (infinite) sources, a large receiver window.
A queue of B packets is ns-2's DropTail ``queue-limit B``: B - 1 waiting
behind the one being sent in ccsim's terms
(:func:`.._kit.ns2ref.droptail_waiting`;
docs/decisions/2026-11-26-papers-buffers-as-ns2-queue-limit.md), for the routers' 6000 and the BDP buffers of §V-A alike
(``ltcp-ns2`` keeps the limits its ns-2 runs were recorded with).
Packets: 1000-byte payloads in 1040-byte packets (ns-2 default); the
paper's utilisation figures are payload goodput (its LTCP figures are exactly
capacity x 1000/1040, e.g. 96.15 of 100 Mb/s).

The TCP and LTCP flows of the §V-A figures (``ltcp-fig5`` to
``ltcp-fig8``) run in ns-2 mode (:func:`flow`; "Results of the evaluation
of the chosen design using ns-2 simulations and emulation on a Linux
testbed are presented in Section V"): ``recovery = "sack1"``, ns-2's RTT
estimator and RTO, its SYN start-up and the other ns-2.35 defaults of
:data:`.._kit.ns2ref.NS2_TCP`. The testbed experiments (``ltcp-testbed``,
``ltcp-udp``) are Linux and keep ccsim's Linux-like settings
(:func:`tb_flow`); ``ltcp-response`` checks eq. 18, an analytic result,
and keeps ccsim's defaults (:func:`agent`).

Access-link queues are not described; ns-2 gives every link a queue, and we
read "routers have the default queuesize" as applying to them too only
where it matters: with a 2.4 Gb/s bottleneck the access link is as slow as
the bottleneck and a single sender's queue forms there, so at 2.4 Gb/s the
access queue gets the bottleneck's buffer (Fig 6: the BDP; Fig 8: 6000).
Elsewhere the access links are faster than the bottleneck, their queues
hold a few packets, and they are left at 100,000 (never the limit).

The Linux testbed of §V-B (Figs 9-10, and the UDP experiment) is modelled
once, here (:func:`tb_topology`, :func:`tb_flow` and the ``TB_*`` constants):
see :mod:`.testbed`. Its bottleneck is the sending PC's own transmit queue
(txqueuelen), drained at the PCI bus's ~750 Mb/s, where Linux 2.4 holds a
TCP segment that does not fit and enters CWR instead of losing it: the
flows' ``txqueuelen_pkts`` (docs/scenario.md).

Experiments (ids, one module each):

* ``ltcp-table2`` (:mod:`.table2`): the Fig 2 table of layer windows and
  speedups (analysis).
* ``ltcp-fig5`` (:mod:`.fig5`): cwnd of one LTCP flow and of one TCP flow
  (separate runs, as "the network consists of only one flow"), 1 Gb/s,
  6000-packet buffer.
* ``ltcp-fig6`` (:mod:`.fig6`): the Fig 6 table, TCP and LTCP, 10 Mb/s to
  2.4 Gb/s with buffer = BDP; throughput "calculated over a period of 2000
  seconds after the flow reaches steady state", read as a 300 s warm-up then
  2000 s.
* ``ltcp-fig7`` (:mod:`.fig7`): four LTCP flows starting at 0, 150, 350,
  550 s; the 2nd lasts 1250 s, the 3rd 850 s, the 4th 450 s (so they stop at
  1400, 1200, 1000 s); the first runs throughout. The run lasts 1600 s (the
  figure's length is not stated in the text; 1600 s leaves 200 s with the
  first flow alone after the second stops).
* ``ltcp-fig8`` (:mod:`.fig8`): one LTCP flow with a 300 s head start, then
  ten TCP flows; "the throughput is calculated for the flows after another
  300 seconds", read as the average over [300 s, 600 s]. The paper does not
  run ten TCP flows alone; we do, as context only (no check).
* ``ltcp-testbed`` (:mod:`.testbed`): the Linux testbed tables (Fig 9 single
  flow, Fig 10 2 to 10 flows) re-run in simulation.
* ``ltcp-udp`` (:mod:`.udp`): §V-B.3, one LTCP flow against on/off UDP on
  the simulated testbed.
* ``ltcp-response`` (:mod:`.response`): throughput against random loss rate
  vs eq. 18.
"""

from __future__ import annotations

import math
from typing import List

from ...models.aimd import bdp_packets
from .. import Check
from .._kit.ns2ref import figure_flow
from .._kit.setups import MSS, PKT_BYTES, dumbbell as _dumbbell, flow as _kit_flow, scenario as _scenario

SOURCE = "LTCP (layered TCP)"

PAYLOAD = MSS / PKT_BYTES
RTT = 0.07
W_T, BETA = 50.0, 0.15
DEFAULT_BUFFER = 6000
PROTOS = ("TCP", "LTCP")
EDGE_RATE = 2.4e9              # access links (§V-A)
#: the papers' names -> the kit's protocol table (TCP is ns-2 TCP/Sack1)
AGENT = {"TCP": "Sack1", "LTCP": "LTCP"}

# Lowest Jain index the paper reports for LTCP anywhere (Fig 10, 6 flows,
# RTT 150 ms): Fig 7 gives no number, so "all flows reach the fair
# utilization level" is held to the paper's own worst LTCP fairness.
PAPER_LTCP_MIN_JAIN = 0.983

# The Linux testbed (§V-B): see ltcp-testbed.
TB_RATE = 750e6
TB_MSS, TB_HDR = 1448, 52      # Linux with timestamps: 1448-byte segments in 1500-byte packets
TB_BUFFER = 1000               # txqueuelen = backlog = 1000 packets
TB_WIRE_RATE = 1e9             # Gigabit Ethernet between the two PCs
#: a testbed flow's path: the sending PC, its NIC, the receiving PC
TB_ROUTE = ["snd", "nic", "rcv"]


def agent(proto: str, **kw) -> dict:
    """One FTP flow of TCP (Reno + SACK) or LTCP with ccsim's own
    defaults: the testbed's Linux flows (:func:`tb_flow`) and the eq. 18
    runs (``ltcp-response``) start from it."""
    params = {"w_t": W_T, "beta": BETA} if proto == "LTCP" else None
    return _kit_flow(AGENT[proto], params, **{"rtt_s": RTT, "rwnd_pkts": 10_000_000, **kw})


def flow(proto: str, **kw) -> dict:
    """One flow of the §V-A ns-2 simulations: TCP/Sack1, or LTCP on the same
    agent ("The LTCP protocol is implemented by modifying the TCP/Sack1
    agent"), in ns-2 mode (:func:`.._kit.ns2ref.figure_flow`: ``recovery =
    "sack1"``, ns-2's RTT estimator and RTO, SYN, ``windowInit_ 2``, ...;
    LTCP changes only the window response, "The rest of the algorithms ...
    for RTT calculations, SACK processing, timer management etc, are not
    modified", §IV-B)."""
    return figure_flow(agent(proto, **kw))


def dumbbell(rate_bps: float, buffer_pkts: int, edge_rate_bps: float = EDGE_RATE) -> dict:
    """Fig 4: bottleneck of ``rate_bps`` with ``buffer_pkts``, 1 ms; access links
    at ``edge_rate_bps`` with 100,000-packet queues."""
    return _dumbbell(rate_bps, buffer_pkts, delay_s=0.001, edge_rate_bps=edge_rate_bps, edge_buffer_pkts=100000)


def scenario(name: str, duration: float, topology: dict, flows: List[dict], warmup: float = 0.0,
             sample: float = 0.0) -> dict:
    return _scenario(name, duration, topology, flows, warmup_s=warmup, sample_interval_s=sample)


def bdp_buffer(rate_bps: float) -> int:
    return max(1, round(bdp_packets(rate_bps, RTT, PKT_BYTES)))


def tb_topology(rtt: float, rate_bps: float = TB_RATE) -> dict:
    """The §V-B testbed's path, with its bottleneck where the paper puts it:
    the sending PC's interface (link ``snd -> nic``, no delay), drained at
    the ~750 Mb/s the 33 MHz PCI bus allows, whose transmit queue is the
    flows' ``txqueuelen_pkts`` (:func:`tb_flow`; this link's own 100,000
    is replaced by it); then the Gigabit wire (``nic -> rcv``, 1 Gb/s, never
    queues) carrying the delay qdisc's RTT, ``rtt/2`` each way (where the
    paper's delay qdisc sat is not stated; it only sets the RTT). The ACKs
    cross the same links back; the PCI bus shared by data and ACKs is not
    modelled. The interface link is the monitored one (the bottleneck)."""
    big = {"kind": "droptail", "limit_pkts": 100000}
    return {"kind": "custom", "nodes": list(TB_ROUTE), "links": [
        {"from": "snd", "to": "nic", "rate_bps": rate_bps, "delay_s": 0.0, "queue": big, "monitor": True},
        {"from": "nic", "to": "rcv", "rate_bps": TB_WIRE_RATE, "delay_s": rtt / 2, "queue": big},
    ]}


def tb_flow(proto: str, n: int, txqueuelen: int = TB_BUFFER) -> dict:
    """``n`` testbed flows on :func:`tb_topology`'s path: Linux packets, delayed
    ACKs, 32 MB windows, the sending PC's txqueuelen (Linux 2.4: a segment
    that does not fit stays in the socket and the sender enters CWR),
    starting within 0.1 s when several."""
    f = agent(proto, mss_bytes=TB_MSS, header_bytes=TB_HDR, delayed_ack=True,
             rwnd_pkts=32 * 2**20 // TB_MSS, count=n, route=list(TB_ROUTE), txqueuelen_pkts=int(txqueuelen))
    f.pop("rtt_s", None)  # the RTT is the path's (tb_topology())
    if n > 1:
        f["start_spread_s"] = 0.1
    return f


def log2_check(quantity: str, paper: float, ccsim: float) -> Check:
    """Loss rates: within a factor of 2 (deviation = |log2(ccsim/paper)| <= 1).
    A loss rate is set by a handful of drops per congestion cycle, so a factor
    of 2 is the resolution at which two simulators' DropTail overflows (how
    many packets a window overshoots by before the loss is detected) can be
    compared; it still separates a 1e-4 from a 1e-6 regime."""
    dev = abs(math.log2(ccsim / paper)) if ccsim > 0 else math.inf
    return Check(f"{quantity} (deviation = |log2 ratio|, within 2x)", paper=paper, ccsim=ccsim,
                 deviation=dev, relative=False, tolerance=1.0, source="paper")
