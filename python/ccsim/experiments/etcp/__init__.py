"""E-TCP paper (Gu, Towsley, Hollot, Zhang: congestion control for small
buffer high speed networks) experiments.

Setup shared by all (§VI-A): the dumbbell of Fig 4, a 20-packet DropTail
bottleneck (ns-2's ``queue-limit 20``: 19 waiting behind the one being
sent, :data:`BUFFER`), edge links of 100 Gb/s, 5 ms and 1000 packets, 1040-byte
packets (1000-byte payload), TCP window limit 10,000,000, round-trip
propagation 50/100/200 ms (bottleneck one-way delay RTT/2 - 10 ms), 300 s
runs, utilisation = receiver goodput / bottleneck rate.

E-TCP (``transport = "etcp"``): §III-A window controller (W += 1/b per
acknowledged congestion sequence number, W -= W/(b(2 + p0 W)) per lost one)
with b = 25 and p0 = 0.01, exponential pacing with mean srtt/W (§III-C),
slow start until the first loss (§V-A) and the §IV reliability ("All E-TCP
connections presented in this section provide reliable data delivery",
§VI-A). "E-TCP without exponential pacing" (§VI-B) is the same with
``exp_pacing = false`` (interval srtt/W). The rate variant (§VII) is
``variant = "rate"``. :func:`etcp_flow` builds these flows.

The baselines, as §VI-A configures its ns-2 agents:

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

Every baseline flow runs in ns-2 mode (:func:`baseline`, i.e.
:func:`.._kit.ns2ref.figure_flow`): §VI-A, "The experiments are performed
using the packet level network simulator ns-2", and its NewReno is "the
default TCP NewReno implementation in ns-2". So ns-2.35's RTT estimator and
RTO, ``windowInit_ 2``, Limited Transmit (``singledup_ 1``), ``bugFix_``,
the repeated-timeout halving, the SYN start-up, one ACK per segment,
HSTCP's first decrease and Limited Slow-Start as ns-2 runs them, and the
SACK agents as ``TCP/Sack1`` (``recovery = "sack1"``; STCP and FAST too,
read above as SACK1-based). Paced NewReno keeps NewReno recovery (no
change); nothing here is paced with SACK. E-TCP is its own transport and
keeps its own settings (docs/etcp.md).

Experiments: :mod:`.fig1` (``etcp-fig1``, the M/M/1/B model),
:mod:`.fig5` (one E-TCP flow's dynamics), :mod:`.fig6` (``etcp-fig6``, one
flow, every protocol), :mod:`.fig7_9` (50 flows: dynamics, utilisation of
every protocol, fairness), :mod:`.fig10` (heterogeneous RTTs),
:mod:`.lossy_reverse` (ACK loss). The models are in
:mod:`ccsim.models.etcp`; the train-overflow sawtooth model that
``etcp-fig6`` checks HSTCP and STCP against is in :mod:`.overflow`.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

import numpy as np

from .._kit.ns2ref import droptail_waiting, figure_flow
from .._kit.setups import HEADER, MSS, PKT_BYTES, dumbbell, flow, protocol_fields, scenario

SOURCE = "E-TCP (small-buffer high-speed CC)"

#: The bottleneck's DropTail limit in ccsim's terms (packets waiting behind
#: the one being sent). The paper's "20-packet buffer" (§VI-A) is ns-2's
#: ``queue-limit 20``, which drops when ``length() + 1 >= qlim_``
#: (drop-tail.cc): 19 waiting plus the one in service. The paper's own
#: loss model reads B the same way: §II's M/M/1/B, p = (1 - rho) rho^B /
#: (1 - rho^(B+1)), counts the packet in service in B = 20
#: (docs/validation.md, "Queue limit"). ``etcp-ns2`` keeps the limit of its
#: recorded ns-2 runs (``Row.buffer_pkts``).
BUFFER = droptail_waiting(20)
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
#: E-TCP's parameters (§III-A) and edge links (§VI-A).
ETCP_B, ETCP_P0 = 25.0, 0.01
EDGE_RATE_BPS, EDGE_DELAY_S, EDGE_BUFFER = 100e9, 0.005, 1000
#: Places in the bottleneck queue for the M/D/1/K model: the :data:`BUFFER`
#: waiting behind the packet being serialised, plus that one: K = 20, the
#: paper's B.
QUEUE_K = BUFFER + 1
#: The model's name in check names and labels.
MODEL_QUEUE = f"M/D/1/{QUEUE_K}"

#: flows.0 fields of each baseline (§VI-A; see the module docstring).
PROTOCOLS: Dict[str, dict] = {
    "NewReno": protocol_fields("NewReno"),
    "NewReno+pacing": protocol_fields("NewReno+pacing"),
    "HSTCP": protocol_fields("HSTCP", max_ssthresh=100.0, low_p=HSTCP_LOW_P),
    "STCP": protocol_fields("STCP", max_ssthresh=100.0, a=STCP_A, b=STCP_B),
    "FAST": protocol_fields("FAST", alpha=FAST_ALPHA, gamma=0.5, mi_threshold_s=FAST_MI_THRESHOLD_S),
}
TCP = ("NewReno", "NewReno+pacing")


def baseline(proto: str) -> Dict[str, Any]:
    """The fields of baseline ``proto`` (:data:`PROTOCOLS`) as the paper's
    ns-2 ran it: in ns-2 mode (:func:`.._kit.ns2ref.figure_flow`)."""
    return figure_flow(PROTOCOLS[proto])


def base_scenario(name: str, duration_s: float) -> dict:
    """Fig 4 dumbbell with one NewReno flow; the sweeps set rate, delay, protocol."""
    topo = dumbbell(1e9, BUFFER, delay_s=0.04, edge_rate_bps=100e9, edge_delay_s=0.005, edge_buffer_pkts=1000)
    # ns-2 window_ (E-TCP §VI-A sets the TCP window limit to 10,000,000)
    return scenario(name, duration_s, topo, [figure_flow(flow("NewReno", rwnd_pkts=10_000_000))])


def point(proto: str, rate: float, rtt: float) -> dict:
    """Sweep point: bottleneck rate, RTT and the protocol's flows.0 fields
    (:func:`baseline`: every field ns-2 mode sets, so no field of the base
    flow's NewReno is left over)."""
    p = {"topology.bottleneck_rate_bps": rate,
         # edge links add 2 x 5 ms each way: RTT = 2 (0.01 + d)
         "topology.bottleneck_delay_s": round(rtt / 2 - 0.01, 9)}
    p.update({f"flows.0.{k}": v for k, v in baseline(proto).items()})
    return p


def frame(df, names):
    """Sweep rows with protocol, rate, RTT and goodput utilisation columns."""
    df["protocol"] = names
    df["rate_bps"] = df["topology.bottleneck_rate_bps"]
    df["rtt_s"] = (2 * (df["topology.bottleneck_delay_s"] + 0.01)).round(6)
    df["goodput_utilization"] = df["goodput_total_bps"] / df["rate_bps"]
    return df


# -- E-TCP ---------------------------------------------------------------------------

#: Fields of each E-TCP flavour: the §III window controller with exponential
#: pacing (the paper's E-TCP), the same with deterministic intervals
#: srtt/W ("E-TCP without exponential pacing", §VI-B), and the §VII rate
#: controller. b, p0 and reliability are the paper's (§III-A, §VI-A) and
#: are written out so that a change of the engine's defaults cannot move
#: these experiments.
ETCP: Dict[str, Dict[str, Any]] = {
    "E-TCP": {"transport": "etcp", "variant": "window", "exp_pacing": True},
    "E-TCP (no exp. pacing)": {"transport": "etcp", "variant": "window", "exp_pacing": False},
    "E-TCP rate": {"transport": "etcp", "variant": "rate", "exp_pacing": True},
}
ETCP_STYLE = {"E-TCP": "D-", "E-TCP (no exp. pacing)": "d--", "E-TCP rate": "P-"}


def etcp_flow(name: str = "E-TCP", **fields: Any) -> Dict[str, Any]:
    """A ``[[flows]]`` dict of the E-TCP flavour ``name`` (:data:`ETCP`):
    ns-2 packets, b = 25, p0 = 0.01, reliable delivery, then ``fields``."""
    d: Dict[str, Any] = {"mss_bytes": MSS, "header_bytes": HEADER}
    d.update(ETCP[name])
    d.update({"b": ETCP_B, "p0": ETCP_P0, "reliable": True})
    d.update(fields)
    return d


def etcp_topology(rate_bps: float, rtt_s: float = 0.1, *, reverse_loss: Optional[float] = None,
                  buffer_pkts: int = BUFFER) -> dict:
    """The Fig 4 dumbbell (§VI-A) at ``rate_bps`` with round-trip
    propagation ``rtt_s`` for flows that do not set their own ``rtt_s``."""
    topo = dumbbell(rate_bps, buffer_pkts, delay_s=round(rtt_s / 2 - 2 * EDGE_DELAY_S, 9), edge_rate_bps=EDGE_RATE_BPS,
                    edge_delay_s=EDGE_DELAY_S, edge_buffer_pkts=EDGE_BUFFER)
    if reverse_loss is not None:
        topo["bottleneck_reverse_loss"] = reverse_loss
    return topo


def etcp_scenario(name: str, duration_s: float, rate_bps: float, rtt_s: float, flows: List[Dict[str, Any]], *,
                  sample_interval_s: float = 0.0, buffer_pkts: int = BUFFER, **extra: Any) -> dict:
    """A scenario on :func:`etcp_topology` (``extra``: top-level fields
    such as ``fairness_window_s``)."""
    sc = scenario(name, duration_s, etcp_topology(rate_bps, rtt_s, buffer_pkts=buffer_pkts), flows,
                  sample_interval_s=sample_interval_s)
    sc.update(extra)
    return sc


def etcp_point(rate: float, rtt: float) -> dict:
    """Sweep point of :func:`etcp_scenario`: bottleneck rate and RTT."""
    return {"topology.bottleneck_rate_bps": rate, "topology.bottleneck_delay_s": round(rtt / 2 - 0.01, 9)}


def capacity_pps(rate_bps: float) -> float:
    """Bottleneck capacity in 1040-byte packets per second."""
    return rate_bps / (8.0 * PKT_BYTES)


def bdp_pkts(rate_bps: float, rtt_s: float) -> float:
    """Bandwidth-delay product in 1040-byte packets (12,020 at 1 Gb/s, 100 ms)."""
    return capacity_pps(rate_bps) * rtt_s


def model(rate_bps: float, rtts_s, variant: str = "window", queue: str = "md1k") -> Dict[str, float]:
    """E-TCP's equilibrium at this bottleneck (:func:`ccsim.models.etcp.equilibrium`
    with the M/D/1/K loss of Poisson arrivals, K = :data:`QUEUE_K`), plus the
    goodput utilisation it implies (carried load x payload share, every
    carried packet new data)."""
    from ...models.etcp import equilibrium

    rtts = [rtts_s] if np.isscalar(rtts_s) else list(rtts_s)
    eq = equilibrium(capacity_pps(rate_bps), rtts, QUEUE_K, variant=variant, p0=ETCP_P0, queue=queue)
    eq["goodput_utilisation"] = eq["utilisation"] * MSS / PKT_BYTES
    return eq


def etcp_flows(res) -> "Any":
    """The E-TCP rows of a run's flow summary."""
    fl = res.flows
    return fl[fl["transport"] == "etcp"] if "transport" in fl else fl


def steady_mean(fs, col: str, t0: float, t1: float = math.inf) -> float:
    """Mean of a flow-series column over samples in (t0, t1]."""
    m = (fs["time_s"] > t0 + 1e-9) & (fs["time_s"] <= t1 + 1e-9)
    v = fs.loc[m, col]
    return float(v.mean()) if len(v) else math.nan


# -- multi-branch topology (Fig 13) ------------------------------------------------------

#: Fig 13 (§VI-F): five 600 Mb/s, 20 ms bottlenecks and eight connections:
#: connection 1 over all five, connection 2 over three, connection 3 and the
#: others over one each. The figure is not in our copy of the paper, so the
#: placement is ours: connection 2 over the first three links, connection 3
#: on the second link (whose queue Fig 14 shows), and one single-link
#: connection on each of the five links (connections 4-8). Links and flows
#: are 0-based in the scenario: flows[i] is connection i + 1.
MB_LINKS, MB_RATE_BPS, MB_DELAY_S = 5, 600e6, 0.02
MB_HOPS = [[0, 4], [0, 2], [1, 1], [0, 0], [1, 1], [2, 2], [3, 3], [4, 4]]
#: the link whose queue and loss Fig 14 (b, c) show: "the second bottleneck link from the left"
MB_SHOWN_LINK = 1


def multibranch_scenario(name: str, duration_s: float, flow: Dict[str, Any], *, sample_interval_s: float = 0.1) -> dict:
    """Fig 13 as a parking lot: :data:`MB_LINKS` links, edges as Fig 4
    (100 Gb/s, 5 ms, 1000 packets), the 20-packet DropTail of :data:`BUFFER`; one flow of the
    ``flow`` fields per entry of :data:`MB_HOPS`, all starting uniformly in
    the first 100 ms (as §VI-C; §VI-F does not say)."""
    topo = {"kind": "parking_lot", "n_links": MB_LINKS, "link_rate_bps": MB_RATE_BPS, "link_delay_s": MB_DELAY_S,
            "link_queue": {"kind": "droptail", "limit_pkts": BUFFER}, "edge_rate_bps": EDGE_RATE_BPS,
            "edge_delay_s": EDGE_DELAY_S, "edge_queue": {"kind": "droptail", "limit_pkts": EDGE_BUFFER}}
    flows = [dict(flow, hops=h, start_s=0.0, start_spread_s=0.1) for h in MB_HOPS]
    return scenario(name, duration_s, topo, flows, sample_interval_s=sample_interval_s)


def multibranch_rtts() -> List[float]:
    """Round-trip propagation of each Fig 13 connection (links + 2 edges each way)."""
    return [2 * ((h[1] - h[0] + 1) * MB_DELAY_S + 2 * EDGE_DELAY_S) for h in MB_HOPS]


def multibranch_model(variant: str = "window") -> Dict[str, list]:
    """:func:`ccsim.models.etcp.network_equilibrium` of Fig 13."""
    from ...models.etcp import network_equilibrium

    paths = [list(range(h[0], h[1] + 1)) for h in MB_HOPS]
    return network_equilibrium([capacity_pps(MB_RATE_BPS)] * MB_LINKS, paths, multibranch_rtts(), QUEUE_K,
                               variant=variant, p0=ETCP_P0)


def chain_links(res) -> List[int]:
    """Ids of the forward bottleneck links r0->r1, r1->r2, ... in order."""
    ln = res.links
    out = []
    i = 0
    while True:
        m = ln[(ln["from"] == f"r{i}") & (ln["to"] == f"r{i + 1}")]
        if m.empty:
            return out
        out.append(int(m.iloc[0]["id"]))
        i += 1


def steady_loss(ls, t0: float, t1: float = math.inf) -> float:
    """Bottleneck loss rate over samples in (t0, t1] as drops / arrivals
    summed over the interval, not the mean of the per-sample ratios (which
    weights a sample with few arrivals like one with many, and so reads low:
    losses come with the bursts). The link series has no arrival counts; a
    sample's arrivals are its packets sent, utilisation x capacity x
    interval, over 1 - its loss rate (all packets the same size, as on a
    one-way bottleneck: the capacity and interval cancel)."""
    m = (ls["time_s"] > t0 + 1e-9) & (ls["time_s"] <= t1 + 1e-9)
    u, l = ls.loc[m, "utilization"].to_numpy(), ls.loc[m, "loss_rate"].to_numpy()
    ok = l < 1.0
    a = u[ok] / (1.0 - l[ok])
    return float((a * l[ok]).sum() / a.sum()) if a.sum() > 0 else math.nan
