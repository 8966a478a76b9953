"""Train-overflow sawtooth model of one unpaced HSTCP, STCP or Reno flow
with a small buffer (E-TCP paper, checked by ``etcp-fig6``).

An unpaced, ACK-clocked flow whose window w is below the pipe W sends each
round as a train at the bottleneck rate; every window increment inside the
round is an extra packet that cannot drain before the train ends, so the
queue peaks at the round's increase Delta(w) (a(w) for HSTCP, 0.01 w for
STCP, 1 for Reno). The buffer therefore overflows when Delta(w) reaches B,
long before w reaches W + B once the per-round increase is large: STCP
stalls near w = B/a = 2000 packets and HSTCP near a(w) = 20 (w ~ 4740),
whatever the bottleneck rate. The cycle then runs from (1 - b) w_peak to
w_peak, w_peak = w_hi + Delta(w_hi) (the loss is seen one round after the
first drop), growing Delta(w) per round; averaging min(w, W)/W over time
gives the utilisation.
"""

from __future__ import annotations

import math
from typing import Callable, Dict, Tuple

import numpy as np

from . import (BUFFER, HSTCP_HIGH_DECREASE, HSTCP_HIGH_P, HSTCP_HIGH_WINDOW, HSTCP_LOW_P, HSTCP_LOW_WINDOW,
               STCP_A, STCP_B, STCP_LEGACY)


def hstcp_b(w):
    """RFC 3649 §5 decrease fraction b(w) (0.5 at or below Low_Window, held above High_Window)."""
    w = np.asarray(w, dtype=float)
    lw, hw = math.log(HSTCP_LOW_WINDOW), math.log(HSTCP_HIGH_WINDOW)
    x = (np.log(np.minimum(w, HSTCP_HIGH_WINDOW)) - lw) / (hw - lw)
    return np.where(w <= HSTCP_LOW_WINDOW, 0.5, (HSTCP_HIGH_DECREASE - 0.5) * x + 0.5)


def hstcp_a(w):
    """RFC 3649 §5 increase a(w) in segments per round, floored at 1 (standard TCP)."""
    w = np.asarray(w, dtype=float)
    we = np.clip(w, HSTCP_LOW_WINDOW, HSTCP_HIGH_WINDOW)
    lw, hw = math.log(HSTCP_LOW_WINDOW), math.log(HSTCP_HIGH_WINDOW)
    lp, hp = math.log(HSTCP_LOW_P), math.log(HSTCP_HIGH_P)
    p = np.exp(lp + (np.log(we) - lw) * (hp - lp) / (hw - lw))
    b = hstcp_b(we)
    a = np.maximum(we * we * p * 2.0 * b / (2.0 - b), 1.0)
    return np.where(w <= HSTCP_LOW_WINDOW, 1.0, a)


#: protocol -> (increase per round Delta(w), fraction removed on loss b(w))
RULES: Dict[str, Tuple[Callable, Callable]] = {
    "NewReno": (lambda w: np.ones_like(np.asarray(w, dtype=float)),
                lambda w: np.full_like(np.asarray(w, dtype=float), 0.5)),
    "STCP": (lambda w: np.where(np.asarray(w) <= STCP_LEGACY, 1.0, STCP_A * np.asarray(w, dtype=float)),
             lambda w: np.where(np.asarray(w) <= STCP_LEGACY, 0.5, STCP_B)),
    "HSTCP": (hstcp_a, hstcp_b),
}


def overflow_window(proto: str, bdp: float, buffer: float = BUFFER) -> float:
    """Window at which the buffer first overflows: the round's increase
    Delta(w) reaches B (train overflow, w < W) or the standing queue w - W
    reaches B (pipe overflow), whichever comes first."""
    inc = RULES[proto][0]
    cap = bdp + buffer
    if float(inc(cap)) < buffer:
        return cap
    # Delta(w) < B below ~100 packets for all three rules and grows after, so
    # "Delta(w) >= B" is false then true on [1, cap]: bisect.
    lo, hi = 1.0, cap
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if float(inc(mid)) >= buffer:
            hi = mid
        else:
            lo = mid
    return hi


def _integrals(proto: str, bdp: float, w0: float, w1: float) -> Tuple[float, float]:
    """(busy, total) time in propagation RTTs while w grows from w0 to w1 at
    Delta(w) per round; a round lasts max(1, w/W) RTTs once a queue stands."""
    if w1 <= w0:
        return 0.0, 0.0
    w = np.geomspace(w0, w1, 4001)
    inc = RULES[proto][0](w)
    total = np.maximum(1.0, w / bdp) / inc
    busy = np.minimum(w, bdp) / bdp * np.maximum(1.0, w / bdp) / inc
    return float(np.trapezoid(busy, w)), float(np.trapezoid(total, w))


def steady_cycle(proto: str, bdp: float, buffer: float = BUFFER) -> Dict[str, float]:
    """Steady-state cycle of one unpaced flow (see the module docstring):
    w_hi, w_peak, w_lo, utilisation of the bottleneck, cycle length in RTTs,
    and whether the train or the pipe limits the window."""
    inc, dec = RULES[proto]
    w_hi = overflow_window(proto, bdp, buffer)
    w_peak = w_hi + float(inc(w_hi))
    w_lo = (1.0 - float(dec(w_peak))) * w_peak
    busy, total = _integrals(proto, bdp, w_lo, w_peak)
    return {"w_hi": w_hi, "w_peak": w_peak, "w_lo": w_lo, "utilization": busy / total if total else 1.0,
            "cycle_rtts": total, "regime": "pipe" if w_hi >= bdp + buffer - 1e-9 else "train"}


def climb_rtts(proto: str, bdp: float, w0: float, w1: float) -> float:
    """Propagation RTTs for the window to grow from w0 to w1 without loss."""
    return _integrals(proto, bdp, w0, w1)[1]
