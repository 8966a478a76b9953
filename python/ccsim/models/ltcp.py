"""LTCP layer model (LTCP paper §IV): layer windows, speedups, response function."""

from __future__ import annotations

import math


def layer_window(k: int, w_t: float = 50.0) -> float:
    """W_K = K(K+1)(K-1)/6 * W_T (eq. 10): the window at which layer K starts."""
    return k * (k + 1) * (k - 1) / 6.0 * w_t


def claim_rtts(k: int, w_t: float = 50.0) -> float:
    """RTTs for LTCP to grow from W_T (layer 2) to W_K: the sum of delta_j / j
    for j = 2..K-1, which eq. 14 gives in closed form as (K-2)(K+3)/4 W_T."""
    return sum((layer_window(j + 1, w_t) - layer_window(j, w_t)) / j for j in range(2, k))


def claim_speedup(k: int, w_t: float = 50.0) -> float:
    """Speedup in claiming bandwidth vs TCP (+1 per RTT from W_T to W_K), with
    slow start ending at W_T, as the paper assumes for its Fig 2 table."""
    if k <= 2:
        return 1.0  # W_2 = W_T: at the threshold LTCP is TCP
    return (layer_window(k, w_t) - w_t) / claim_rtts(k, w_t)


def recovery_speedup(k: int, beta: float = 0.15) -> float:
    """Speedup in loss-recovery time: TCP needs W/2 RTTs, LTCP beta*W/(K-1)
    (after a drop it keeps at least K-1 layers)."""
    if k <= 2:
        return 1.0  # the drop takes a layer-2 flow to layer 1, i.e. TCP
    return (k - 1) / (2.0 * beta)


def response_bps(k_eff: float, beta: float, rtt_s: float, p: float, mss_bytes: int) -> float:
    """Eq. 18: BW = sqrt(K'/beta (1 - beta/2)) / (RTT sqrt(p)), in packets per
    second times the packet payload, as bits per second."""
    return math.sqrt(k_eff / beta * (1 - beta / 2)) / (rtt_s * math.sqrt(p)) * mss_bytes * 8
