"""Today's congestion control beside the papers': reproductions
of what the literature and the RFCs established about BBR v1, DCTCP and
L4S (TCP Prague over DualPI2), run with ccsim's ``bbr``, ``dctcp`` and
``prague`` controllers and its ``dualpi2`` queue.

Unlike the other subpackages this group is not one paper: each experiment
names the papers (and, where one applies, the published model) it checks
against in its ``SOURCE`` and ``PAPER``. Its checks' sources: ``paper`` (a
claim or number the cited paper states), ``model`` (a closed form from the
cited paper, implemented in :mod:`ccsim.models.bbr`,
:mod:`ccsim.models.dctcp` and :mod:`ccsim.models.l4s`), ``consistency`` (ccsim against ccsim).

Common setting, the same for every experiment unless it says otherwise:

* Packets: 1500 bytes on the wire, 1460 of payload (``mss_bytes = 1460``,
  ``header_bytes = 40``), the Ethernet MTU the cited papers' testbeds
  and Linux use; buffers, windows and BDPs count these packets.
* TCP: today's, the ``rfc`` personality with its defaults written out
  (:data:`TODAY_TCP`: SACK recovery, an initial window of 10, Linux's
  delayed ACKs), so that the driver's paper TCP (``_kit.setups.PAPER_TCP``,
  NewReno, IW 2, one ACK per segment, for the 2003-2008 papers) does not
  apply to these flows.
* Topology: ccsim's dumbbell; each flow's ``rtt_s`` is its round-trip
  propagation delay, access links 100 Gb/s (never the bottleneck).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

SOURCE = "Today's congestion control (BBR v1, DCTCP, L4S)"

#: Payload, header and wire size of a packet (bytes).
MSS = 1460
HEADER = 40
PKT_BYTES = MSS + HEADER

#: The rfc personality's defaults, spelled out (see the module docstring).
TODAY_TCP: Dict[str, Any] = {"tcp_model": "rfc", "recovery": "sack", "init_cwnd_pkts": 10,
                             "delayed_ack": True, "delack_model": "linux"}


def bdp_packets(rate_bps: float, rtt_s: float) -> float:
    """The bandwidth-delay product in packets of :data:`PKT_BYTES`."""
    return rate_bps * rtt_s / (8.0 * PKT_BYTES)


def flow(cc: str, rtt_s: float, count: int = 1, **fields: Any) -> Dict[str, Any]:
    """A ``[[flows]]`` table: ``count`` bulk flows of controller ``cc`` with
    today's TCP (:data:`TODAY_TCP`), then ``fields``."""
    return {"count": count, "cc": cc, "rtt_s": rtt_s, "mss_bytes": MSS, "header_bytes": HEADER,
            **TODAY_TCP, **fields}


def scenario(name: str, rate_bps: float, bottleneck_delay_s: float, queue: Dict[str, Any],
             flows: List[Dict[str, Any]], duration_s: float, warmup_s: float, sample_interval_s: float,
             seed: int = 1, edge_queue: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """A dumbbell scenario dict."""
    topo: Dict[str, Any] = {"kind": "dumbbell", "bottleneck_rate_bps": rate_bps,
                            "bottleneck_delay_s": bottleneck_delay_s, "bottleneck_queue": queue}
    if edge_queue is not None:
        topo["edge_queue"] = edge_queue
    return {"name": name, "seed": seed, "duration_s": duration_s, "warmup_s": warmup_s,
            "sample_interval_s": sample_interval_s, "topology": topo, "flows": flows}


def window_means(res: Any, t0: float, t1: float, column: str = "goodput_bps") -> Dict[int, float]:
    """Each flow's mean of ``column`` over the samples in ``(t0, t1]`` of its
    flow series (goodput samples are rates over their interval, so the mean
    is the rate over the window)."""
    fs = res.flow_series
    fs = fs[(fs["time_s"] > t0 + 1e-9) & (fs["time_s"] <= t1 + 1e-9)]
    return {int(f): float(g[column].mean()) for f, g in fs.groupby("flow")}


def bottleneck_queue(res: Any, t0: float) -> Any:
    """The forward bottleneck's sampled queue (packets) after ``t0``, a numpy array."""
    from .._kit.analysis import bottleneck_series

    ls = bottleneck_series(res)
    return ls.loc[ls["time_s"] > t0 + 1e-9, "queue_pkts"].to_numpy(dtype=float)


__all__ = ["SOURCE", "MSS", "HEADER", "PKT_BYTES", "TODAY_TCP", "bdp_packets", "flow", "scenario", "window_means",
           "bottleneck_queue"]
