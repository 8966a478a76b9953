"""The row of many flows (``ccsim bench``'s S1) as ns-3 3.44 runs it,
for the speed comparison of ``benches/peer_ns3.py``.

S1 is not one of the ns-3 comparisons' scenarios (validation/ns3_aqm.py,
ns3_bbr.py): it is ccsim's own user scenario, with the ``rfc``
personality's TCP (1460-byte segments, delayed ACKs, RFC 6675 SACK) and
RTTs and starts drawn from the seed. So the mapping is written here, once,
in :class:`ScaleScenario`: the workload's numbers are fixed in it (not read
from the bench row), :meth:`ScaleScenario.ccsim_scenario` is the ccsim
scenario they make, which ``peer_ns3.check_same`` compares with the bench
row field by field (a row that drifts, a changed RTT range say, is
refused), and :meth:`ScaleScenario.ns3_args` runs the same dumbbell in
``validation/ns3/dumbbell.cc``.

The network, as ccsim's dumbbell builder makes it (net/topology.rs): one
sender and one receiver per flow, each on its own access link of 10x the
bottleneck's rate (100 Gb/s), DropTail 1000 packets; the bottleneck 10 Gb/s
and 5 ms, a DropTail of 1581 waiting packets (BDP/sqrt(N) at the 60 ms mean
RTT, ``ccsim.bench.scale_buffer_pkts``), in ns-3 the device queue without a
queue disc (as ns3_suite). Each flow's RTT and start time are ccsim's own
draws from the scenario's seed, read from a run of the scenario to 1 ns
(:func:`draws`): the delay ccsim gives the flow's access links (in whole
picoseconds) and its start. dumbbell.cc takes RTTs and splits them as
ccsim's builder does (``(rtt/2 - bottleneck delay)/2`` per access link), so
each flow is given ``2 (2 e + d)`` for its access delay ``e``; ns-3 keeps
time in nanoseconds, so delays and starts are ccsim's to the nanosecond.

The TCP (:data:`TCP`, ns-3 attributes beside the ccsim fields they stand
for; ccsim's side is S1's flows as the bench row writes them, everything
else the ``rfc`` personality's defaults):

* segments 1460 bytes, 40 bytes of IP and TCP headers: ns-3's timestamps
  are turned off (``TcpSocketBase::Timestamp`` false), so its packets are
  1460 + 40 + 2 (PPP) = 1502 bytes on the wire against ccsim's 1500; the
  RTT is then sampled per ACK from ns-3's record of sent segments, as
  ccsim samples it (``rtt_estimator = "rfc6298"``);
* IW 10, a 0.2 s minimum RTO, 10 ms clock granularity, SACK, Limited
  Transmit, duplicate-ACK threshold 3, 1000 RTO retries (no flow gives up);
* loss recovery: ns-3's ``TcpClassicRecovery`` (cwnd = ssthresh on entry,
  pipe-limited sending with SACK) for ccsim's RFC 6675 (`prr = false`), as in
  the ns-3 comparisons;
* delayed ACKs: ns-3 ACKs every second segment (``DelAckCount`` 2, its
  default) with a 40 ms timer (``DelAckTimeout``), Linux's minimum and
  where ccsim's ``delack_model = "linux"`` starts; ccsim also sends its
  first 16 ACKs of a flow at once (quick ACKs) and adapts its timer
  (40-200 ms). (With ns-3's 200 ms default and a 0.2 s minimum RTO, a
  flow can lock at one segment per timeout: validation/ns3_aqm.py.)
* CUBIC: ns-3's ``TcpCubic`` with HyStart off (ccsim's S1 runs without:
  ``hystart = false``, its default), C 0.4 and β 0.7 as ccsim's. It differs in two rules ccsim's S1 keeps at its
  defaults: ns-3 counts acknowledged segments (with delayed ACKs its slow
  start doubles per RTT; ccsim's ``abc = false`` counts ACKs, 1.5x), is
  RFC 8312's CUBIC (ccsim's ``alpha_switch = true``, RFC 9438), and before
  the first loss grows at least 5% per RTT (``CntClamp`` 20; ccsim's
  ``cnt_clamp`` is off);
* send and receive buffers 8 MiB (5,745 segments per flow; ccsim has no
  limit, and its largest window in S1, sampled every 5 ms, is 2,592
  segments, an early flow's slow start; a flow's share of the path's BDP
  and buffer at the longest RTT is 85); BulkSend writes of 1460 bytes;
* ns-3 opens each connection with a three-way handshake (its data start one
  RTT after the application); ccsim sends at its start time. ns-3 orders a
  tied arrival and departure arrival first, ccsim's S rows in event order
  (their default, ``ties = "event_order"``).
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Dict, List, Tuple

from validation import ns3_suite

#: The rows of many flows measured against ns-3.
ROWS = ("S1",)
#: ns-3's packet on the wire: payload + 20 IPv4 + 20 TCP (no timestamps) + 2 PPP.
MSS = 1460
WIRE_BYTES = MSS + 40 + 2
#: ns-3's socket buffers (bytes): far above any flow's window in S1.
SOCKET_BUFFER_BYTES = 8 << 20

#: ns-3 attributes of S1's TCP, with the ccsim flow fields they stand for
#: (ccsim's side: the bench row's fields and the ``rfc`` personality's
#: defaults; see the module doc for what differs).
TCP: Dict[str, str] = {
    "ns3::TcpL4Protocol::SocketType": "ns3::TcpCubic",  # cc = "cubic"
    "ns3::TcpCubic::HyStart": "false",  # ccsim's hystart default: off
    "ns3::TcpSocket::SegmentSize": str(MSS),  # mss_bytes
    "ns3::TcpSocketBase::Timestamp": "false",  # header_bytes 40 (1502 B with PPP)
    "ns3::TcpSocket::InitialCwnd": "10",  # init_cwnd_pkts
    "ns3::TcpSocketBase::MinRto": "200ms",  # min_rto_s default
    "ns3::TcpSocketBase::ClockGranularity": "10ms",  # clock_granularity_s default
    "ns3::TcpSocket::DataRetries": "1000",  # ccsim never gives up
    "ns3::TcpSocket::DelAckCount": "2",  # delayed_ack default
    "ns3::TcpSocket::DelAckTimeout": "40ms",  # delack_model "linux": 40 ms start
    "ns3::TcpL4Protocol::RecoveryType": "ns3::TcpClassicRecovery",  # recovery "sack": RFC 6675, prr = false
    "ns3::TcpSocketBase::Sack": "true",
    "ns3::TcpSocketBase::LimitedTransmit": "true",  # limited_transmit default
    "ns3::TcpSocket::SndBufSize": str(SOCKET_BUFFER_BYTES),
    "ns3::TcpSocket::RcvBufSize": str(SOCKET_BUFFER_BYTES),
}


@dataclass(frozen=True)
class ScaleScenario:
    """A dumbbell of ``n_flows`` long-lived CUBIC flows with SACK, as
    ``ccsim bench``'s S rows build it (``ccsim.bench._scale_scenario``);
    every number is the mapping's own."""

    id: str
    description: str
    n_flows: int
    rate_bps: float
    buffer_pkts: int
    duration_s: float
    rtt_range_s: Tuple[float, float] = (0.020, 0.100)
    start_spread_s: float = 1.0
    bneck_delay_s: float = 0.005
    edge_buffer_pkts: int = 1000
    seed: int = 1

    @property
    def edge_rate_bps(self) -> float:
        return 10 * self.rate_bps

    def ccsim_scenario(self) -> dict:
        """The ccsim scenario this mapping is of (what the bench row must be)."""
        return {
            "name": f"bench-{self.id}",
            "seed": self.seed,
            "duration_s": self.duration_s,
            "sample_interval_s": 0,
            "topology": {
                "kind": "dumbbell",
                "bottleneck_rate_bps": self.rate_bps,
                "bottleneck_queue": {"kind": "droptail", "limit_pkts": self.buffer_pkts},
                "bottleneck_delay_s": self.bneck_delay_s,
                "edge_rate_bps": self.edge_rate_bps,
                "edge_queue": {"kind": "droptail", "limit_pkts": self.edge_buffer_pkts},
            },
            "flows": [{"count": self.n_flows, "cc": "cubic", "recovery": "sack", "mss_bytes": MSS,
                       "header_bytes": 40, "init_cwnd_pkts": 10, "start_spread_s": self.start_spread_s,
                       "rtt_range_s": list(self.rtt_range_s)}],
        }

    def flows(self) -> List[Tuple[float, float]]:
        """Each flow's (RTT to give dumbbell.cc, start s): ccsim's draws."""
        return [(2 * (2 * e + self.bneck_delay_s), s) for e, s in draws(self.ccsim_scenario())]

    def ns3_args(self) -> List[str]:
        rtts, starts = zip(*self.flows())
        args = ns3_suite.dumbbell_ns3_args(self.rate_bps, self.edge_rate_bps, self.bneck_delay_s, self.buffer_pkts,
                                           rtts, starts, self.duration_s, 0.0, TCP)
        # 1460-byte writes (dumbbell_ns3_args writes the comparisons' 1448)
        return [f"--sendSize={MSS}" if a.startswith("--sendSize=") else a for a in args]


def draws(d: dict) -> List[Tuple[float, float]]:
    """Each flow's (access-link delay s, start s) as ccsim sets them for
    scenario ``d``: read from a run of it to 1 ns (the flows' start times
    and the delay of each sender's link to the first router, in whole
    picoseconds as ccsim simulates them)."""
    from ccsim._native import core, dumps

    out = json.loads(core().Simulation(dumps(dict(d, duration_s=1e-9))).finish())
    edge = {l["from"]: l["delay_s"] for l in out["links"] if l["to"] == "r0" and l["from"].startswith("s")}
    return [(edge[f"s{f['id']}"], f["start_s"]) for f in out["flows"]]


#: S1: 1,000 CUBIC flows, 10 Gb/s, BDP/sqrt(N) buffer (1581 packets), 5 s.
S1 = ScaleScenario("S1", "1,000 CUBIC flows with SACK, 10 Gb/s, RTT 20-100 ms, 1581 pkts, 5 s", 1000, 10e9,
                   1581, 5.0)
SCENARIOS = {"S1": S1}


def scenario(name: str, quick: bool = False, quick_factor: float = 10.0) -> ScaleScenario:
    """Row ``name``'s mapping (``quick``: its duration / ``quick_factor``)."""
    sc = SCENARIOS[name]
    return dataclasses.replace(sc, duration_s=sc.duration_s / quick_factor) if quick else sc
