"""E-TCP paper (small-buffer high-speed congestion control) experiments.

Both experiments reproduce the *baseline* curves of the paper's utilisation
figures (ccsim has no E-TCP controller). Setup shared by both (§VI-A): the
dumbbell of Fig 4, a 20-packet DropTail bottleneck, edge links of 100 Gb/s,
5 ms and 1000 packets, 1040-byte packets (1000-byte payload), TCP window
limit 10,000,000, round-trip propagation 50/100/200 ms, 300 s runs,
utilisation = receiver goodput / bottleneck rate. The baselines, as §VI-A
configures its ns-2 agents:

* NewReno: ns-2 defaults (``recovery="newreno"``).
* NewReno with packet pacing: at least srtt/cwnd between packets
  (``pacing="interval"``).
* HSTCP: ``TCP/SACK1`` with ``windowOption_ 8`` and Limited Slow-Start
  ``max_ssthresh_ 100``: ``cc="hstcp"``, ``recovery="sack"``,
  ``max_ssthresh=100`` and ns-2's ``low_p = 1.5/38^2`` (ns-2's HSTCP
  evaluates the RFC 3649 formulas with that Low_P).
* STCP: the NCSU ns-2 implementation with ``max_ssthresh_ 100`` and Kelly's
  a = 0.01, b = 0.125. The paper does not name the agent's loss recovery;
  we assume it is SACK1-based like the paper's HSTCP, so ``recovery="sack"``
  (with NewReno recovery STCP ends its slow start in timeouts: at 100 Mb/s
  its 60 s utilisation falls from 0.63 to 0.17).
* FAST: the CUBINlab module with alpha = 1000 (the paper sets it once, for all
  runs, "so that alpha/C is at least 5 times greater than mi_threshold_",
  mi_threshold_ = 0.00075 s); gamma is not stated, ccsim's default 0.5
  is used. Loss recovery is not stated: ``recovery="sack"``, as for the
  other two high-speed agents.

Experiments: :mod:`.fig6` (``etcp-fig6-baselines``, one flow) and
:mod:`.fig8` (``etcp-fig8-baselines``, 50 flows). The train-overflow
sawtooth model that ``etcp-fig6-baselines`` checks HSTCP and STCP against is
in :mod:`.overflow`.
"""

from __future__ import annotations

from typing import Dict

from .._kit.setups import PKT_BYTES, dumbbell, flow, protocol_fields, scenario

SOURCE = "E-TCP (small-buffer high-speed CC)"

BUFFER = 20
#: ns-2 HSTCP (windowOption_ 8) sets Low_P = 1.5 / Low_Window^2.
HSTCP_LOW_WINDOW, HSTCP_HIGH_WINDOW, HSTCP_HIGH_P, HSTCP_HIGH_DECREASE = 38.0, 83000.0, 1e-7, 0.1
HSTCP_LOW_P = 1.5 / HSTCP_LOW_WINDOW ** 2
STCP_A, STCP_B, STCP_LEGACY = 0.01, 0.125, 16.0
FAST_ALPHA = 1000.0
FAST_MI_THRESHOLD_S = 0.00075
#: Above this capacity B full packets queue for less than mi_threshold_.
FAST_MI_RATE_BPS = BUFFER * PKT_BYTES * 8 / FAST_MI_THRESHOLD_S
#: E-TCP's design utilisation with B = 20 and p0 = 0.01 (§III, Fig 1).
ETCP_UTILISATION = 0.88

#: flows.0 fields of each baseline (§VI-A; see the module docstring).
PROTOCOLS: Dict[str, dict] = {
    "NewReno": protocol_fields("NewReno"),
    "NewReno+pacing": protocol_fields("NewReno+pacing"),
    "HSTCP": protocol_fields("HSTCP", max_ssthresh=100.0, low_p=HSTCP_LOW_P),
    "STCP": protocol_fields("STCP", max_ssthresh=100.0, a=STCP_A, b=STCP_B),
    "FAST": protocol_fields("FAST", alpha=FAST_ALPHA, gamma=0.5, mi_threshold_s=FAST_MI_THRESHOLD_S),
}
TCP = ("NewReno", "NewReno+pacing")


def base_scenario(name: str, duration_s: float) -> dict:
    """Fig 4 dumbbell with one NewReno flow; the sweeps set rate, delay, protocol."""
    topo = dumbbell(1e9, BUFFER, delay_s=0.04, edge_rate_bps=100e9, edge_delay_s=0.005, edge_buffer_pkts=1000)
    # ns-2 window_ (E-TCP §VI-A sets the TCP window limit to 10,000,000)
    return scenario(name, duration_s, topo, [flow("NewReno", rwnd_pkts=10_000_000)])


def point(proto: str, rate: float, rtt: float) -> dict:
    """Sweep point: bottleneck rate, RTT and the protocol's flows.0 fields."""
    p = {"topology.bottleneck_rate_bps": rate,
         # edge links add 2 x 5 ms each way: RTT = 2 (0.01 + d)
         "topology.bottleneck_delay_s": round(rtt / 2 - 0.01, 9)}
    p.update({f"flows.0.{k}": v for k, v in PROTOCOLS[proto].items()})
    return p


def frame(df, names):
    """Sweep rows with protocol, rate, RTT and goodput utilisation columns."""
    df["protocol"] = names
    df["rate_bps"] = df["topology.bottleneck_rate_bps"]
    df["rtt_s"] = (2 * (df["topology.bottleneck_delay_s"] + 0.01)).round(6)
    df["goodput_utilization"] = df["goodput_total_bps"] / df["rate_bps"]
    return df
