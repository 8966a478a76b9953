"""Deterministic AIMD sawtooth of one Reno flow through a DropTail buffer.

The textbook model behind the E-TCP paper's Fig 1 argument and the LTCP
paper's Fig 6: in congestion avoidance the window grows by one packet per
round trip; the buffer overflows when cwnd exceeds the pipe plus the buffer,
``W + B`` (W = bandwidth-delay product in packets), and the window halves.
While ``cwnd < W`` the link is busy a fraction ``cwnd / W`` of the time; above
W it is saturated and the extra packets stretch the round trip to
``cwnd / W`` propagation RTTs. Averaging over a cycle gives the link
utilisation, which tends to 3/4 for ``B << W`` and to 1 for ``B >= W``.
"""

from __future__ import annotations

import math


def bdp_packets(rate_bps: float, rtt_s: float, packet_bytes: int) -> float:
    """Bandwidth-delay product in packets."""
    return rate_bps * rtt_s / (8.0 * packet_bytes)


def sawtooth_utilization(bdp_pkts: float, buffer_pkts: float) -> float:
    """Time-averaged link utilisation of the steady-state Reno sawtooth.

    Steps the window one packet per round trip from ``(W+B)/2`` to ``W+B``;
    each step lasts ``max(1, w/W)`` propagation RTTs and carries ``w``
    packets, of which the link can serve ``W`` per propagation RTT.
    """
    W, B = float(bdp_pkts), float(buffer_pkts)
    if W <= 0:
        raise ValueError(f"bdp_pkts must be > 0, got {bdp_pkts}")
    hi = W + B
    w = hi / 2.0
    busy = total = 0.0
    while w <= hi:
        step = max(1.0, w / W)  # round trips stretch once the queue builds
        total += step
        busy += min(w, W) / W * step if w < W else step
        w += 1.0
    return busy / total if total else 1.0


def cycle_rtts(bdp_pkts: float, buffer_pkts: float) -> float:
    """Round trips per congestion cycle (from (W+B)/2 to W+B)."""
    return (bdp_pkts + buffer_pkts) / 2.0


def mathis_throughput_bps(mss_bytes: int, rtt_s: float, p: float) -> float:
    """Mathis et al.: 1.22 * MSS / (RTT * sqrt(p)), in bits per second."""
    return 1.22 * mss_bytes * 8.0 / (rtt_s * math.sqrt(p))
