"""DCTCP's steady-state analysis (Alizadeh et al., "Data Center TCP
(DCTCP)", SIGCOMM 2010, §3.3).

N long-lived flows with the same round-trip time share a link of capacity
C whose queue marks every packet that arrives above K packets. The
analysis assumes the flows' sawtooths are synchronised: each window grows
by one packet per round trip until the queue passes K, the marks reach the
senders a round trip later, and every window is cut by ``alpha/2``. With
``C·RTT`` the pipe in packets (the propagation round trip, no queue):

* the window at which the queue reaches K is ``W* = (C·RTT + K) / N``;
* the marked fraction solves ``alpha^2 (1 - alpha/4) = (2W* + 1)/(W* + 1)^2``,
  about ``sqrt(2 / W*)``;
* each window falls by ``D = (W* + 1) alpha / 2`` and the queue by
  ``A = N D``, about ``A = 1/2 sqrt(2 N (C·RTT + K))``, the paper's closed
  form;
* the queue peaks at ``Q_max = K + N`` (the last round's N one-packet
  increases) and falls to ``Q_min = Q_max - A``; a cycle lasts
  ``T_C = D`` round trips, about ``1/2 sqrt(2 (C·RTT + K) / N)``;
* the queue never empties, so the link stays full, when ``Q_min > 0``;
  the smallest ``Q_min`` over N is at ``N = (C·RTT + K)/8``, which gives
  the paper's guideline ``K > C·RTT / 7``.

Every quantity is in packets (or round trips); the functions take the pipe
``C·RTT`` in packets (:func:`pipe_packets`).
"""

from __future__ import annotations

import math


def pipe_packets(rate_bps: float, rtt_s: float, packet_bytes: int) -> float:
    """C·RTT in packets of ``packet_bytes`` on the wire."""
    return rate_bps * rtt_s / (8.0 * packet_bytes)


def window_star(c_rtt: float, k: float, n: int) -> float:
    """W* = (C·RTT + K) / N: each flow's window when the queue reaches K."""
    return (c_rtt + k) / n


def alpha_approx(w_star: float) -> float:
    """The paper's sqrt(2 / W*)."""
    return math.sqrt(2.0 / w_star)


def alpha_exact(w_star: float) -> float:
    """The root in (0, 1] of alpha^2 (1 - alpha/4) = (2W* + 1)/(W* + 1)^2,
    the marked fraction before the paper approximates it (bisection: the
    left side rises on (0, 1])."""
    rhs = (2.0 * w_star + 1.0) / (w_star + 1.0) ** 2
    lo, hi = 0.0, 1.0
    if hi * hi * (1.0 - hi / 4.0) <= rhs:
        return 1.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if mid * mid * (1.0 - mid / 4.0) < rhs:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def amplitude(c_rtt: float, k: float, n: int) -> float:
    """A = 1/2 sqrt(2 N (C·RTT + K)): the queue's swing (packets), the
    paper's closed form."""
    return 0.5 * math.sqrt(2.0 * n * (c_rtt + k))


def amplitude_exact(c_rtt: float, k: float, n: int) -> float:
    """A = N (W* + 1) alpha / 2 with the exact alpha (:func:`alpha_exact`)."""
    w = window_star(c_rtt, k, n)
    return n * (w + 1.0) * alpha_exact(w) / 2.0


def q_max(k: float, n: int) -> float:
    """Q_max = K + N."""
    return k + n


def q_min(c_rtt: float, k: float, n: int) -> float:
    """Q_min = K + N - A (negative: the queue empties and the link idles)."""
    return q_max(k, n) - amplitude(c_rtt, k, n)


def period_rtts(c_rtt: float, k: float, n: int) -> float:
    """T_C = 1/2 sqrt(2 (C·RTT + K) / N) round trips."""
    return 0.5 * math.sqrt(2.0 * (c_rtt + k) / n)


def k_min(c_rtt: float) -> float:
    """The paper's guideline: K > C·RTT / 7 keeps Q_min > 0 for every N."""
    return c_rtt / 7.0


def full_link(c_rtt: float, k: float, n: int) -> bool:
    """Does the analysis keep the queue from emptying (Q_min > 0)?"""
    return q_min(c_rtt, k, n) > 0.0


__all__ = ["pipe_packets", "window_star", "alpha_approx", "alpha_exact", "amplitude", "amplitude_exact", "q_max",
           "q_min", "period_rtts", "k_min", "full_link"]
