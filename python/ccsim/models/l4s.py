"""The DualQ Coupled AQM's coupling and the rate balance it gives (RFC 9332
§2.1 and Appendix C; De Schepper, Briscoe et al., "PI2: A Linearized AQM
for both Classic and Scalable TCP", CoNEXT 2016).

DualPI2 computes one base probability p' from the classic queue's delay
and applies it twice:

* the L (scalable) queue marks with ``p_L = min(k·p', 1)`` (besides its own
  step marks, none while the L queue stays below the step);
* the classic queue drops (or marks) with ``p_C = p'^2``.

So ``p_C = (p_L/k)^2`` for a constant p'. Over a run p' varies and the
measured rates are packet averages, ``E[p'^2] >= E[p']^2`` (Jensen): a
classic flow's drop rate is at least ``(p_L/k)^2``.

Windows at those probabilities, for equal round trips R:

* a scalable sender (DCTCP, Prague: one segment per round trip, a cut by
  half the marked fraction once per round trip) ``W_L = 2 / p_L``;
* Reno ``W_C = sqrt(3/2) / sqrt(p_C)``, about ``1.22 / sqrt(p_C)``.

With the coupling, ``W_L / W_C = (2 / (k p')) / (1.22 / p') = 2 / (1.22 k)``,
0.82 at k = 2 (the value RFC 9332 chose for roughly equal rates). Each
flow's rate is its window over its own round trip, R plus its queue's
delay, so the rate ratio is ``(W_L/W_C)·(R + q_C)/(R + q_L)``: the L flow's
advantage falls as R grows against the classic queue's delay.
"""

from __future__ import annotations

import math

#: Reno's window constant, sqrt(3/2) (the square-root law).
RENO_C = math.sqrt(1.5)
#: A scalable sender's window constant (W = 2/p).
SCALABLE_C = 2.0


def classic_from_l4s(p_l: float, k: float = 2.0) -> float:
    """The classic probability the coupling gives for an L marking
    probability ``p_l``: ``(p_l/k)^2``."""
    if p_l is None or math.isnan(p_l):
        return math.nan
    return (min(p_l, 1.0) / k) ** 2


def window_ratio(k: float = 2.0) -> float:
    """W_L / W_C at one p' for a scalable and a Reno flow: 2 / (1.22 k)."""
    return SCALABLE_C / (RENO_C * k)


def rate_ratio(rtt_s: float, q_c_s: float, q_l_s: float, k: float = 2.0) -> float:
    """The L flow's rate over the classic flow's at base round trip
    ``rtt_s`` with the queues' delays ``q_c_s`` and ``q_l_s``."""
    if any(x is None or math.isnan(x) for x in (q_c_s, q_l_s)):
        return math.nan
    return window_ratio(k) * (rtt_s + q_c_s) / (rtt_s + q_l_s)


__all__ = ["RENO_C", "SCALABLE_C", "classic_from_l4s", "window_ratio", "rate_ratio"]
