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


def layer_of(w: float, w_t: float = 50.0) -> int:
    """The layer of window ``w``: the largest K with W_K <= w (K = 1 below W_T)."""
    k = 1
    while layer_window(k + 1, w_t) <= w:
        k += 1
    return k


def response_window(p: float, w_t: float = 50.0, beta: float = 0.15):
    """Eq. 17 solved for the window just before a loss, ``W''``, at loss rate ``p``.

    Eq. 17, ``W'' = sqrt(K'/(beta (1 - beta/2) p))``, holds K' (the layer
    after the cut) fixed, but K' itself depends on W'': K' =
    layer_of((1 - beta) W''), as the §IV-B pseudo-code sets it. The
    right-hand side is a non-decreasing step function of W'', so iterating
    it from the layer-1 value climbs monotonically to its smallest fixed
    point. Below W_T an LTCP flow is TCP (halving, +1 per RTT): there the
    same formula with K' = 1 and beta = 1/2 is used, which is Mathis'
    sqrt(3/2) = 1.22 law. Returns ``(W'', K', beta_eff)``.
    """
    if not 0 < p < 1:
        raise ValueError(f"p must be in (0, 1), got {p}")

    def w_of(k: int, b: float) -> float:
        return math.sqrt(k / (b * (1 - b / 2) * p))

    w_tcp = w_of(1, 0.5)
    if w_tcp < w_t and w_of(1, beta) < w_t:
        return w_tcp, 1, 0.5
    w = w_of(1, beta)
    for _ in range(1000):
        k = max(1, layer_of((1 - beta) * w, w_t))
        nxt = w_of(k, beta)
        if abs(nxt - w) <= 1e-9 * w:
            return nxt, k, beta
        w = nxt
    return w, max(1, layer_of((1 - beta) * w, w_t)), beta


def response_pkts_per_s(p: float, rtt_s: float, w_t: float = 50.0, beta: float = 0.15) -> float:
    """Eq. 16/18 with the self-consistent K' of :func:`response_window`:
    ``W''/RTT (1 - beta/2)`` packets per second."""
    w, _, b = response_window(p, w_t, beta)
    return w / rtt_s * (1 - b / 2)


def climb_time_s(w_from: float, w_to: float, bdp_pkts: float, rtt_s: float, per_rtt=None,
                 step: float = 1.0) -> float:
    """Seconds for a window to grow from ``w_from`` to ``w_to`` when it gains
    ``per_rtt(w)`` packets per round trip (default: LTCP's K = layer_of(w);
    pass ``lambda w: 1`` for TCP) and the round trip is stretched by the
    queue: ``rtt_s * max(1, w / bdp_pkts)`` (the window beyond the pipe sits
    in the bottleneck queue). Integrated in steps of ``step`` packets."""
    rate = per_rtt or layer_of
    t, w = 0.0, float(w_from)
    while w < w_to:
        dw = min(step, w_to - w)
        t += dw / rate(w) * rtt_s * max(1.0, w / bdp_pkts)
        w += dw
    return t


def mixed_equilibrium(n_tcp: int, w_max_pkts: float, w_t: float = 50.0, beta: float = 0.15):
    """Synchronised-loss AIMD equilibrium of one LTCP flow and ``n_tcp`` TCP flows.

    Every congestion event (the pipe plus buffer, ``w_max_pkts``, is full)
    cuts every flow: TCP halves and regains its loss in T round trips at +1
    per RTT, so its peak is 2T; LTCP gives up beta w_L and regains it at K'
    per RTT, so its peak is K'T/beta, with K' = layer_of((1 - beta) w_L).
    The peaks add up to ``w_max_pkts``. Average windows over a cycle are
    3/4 of the TCP peak and (1 - beta/2) of the LTCP peak. Returns
    ``(T, K', tcp_share)``: cycle length in RTTs, LTCP's layer after a cut,
    and the TCP flows' share of the packets sent.
    """
    k = 1
    for _ in range(100):
        t = w_max_pkts / (2.0 * n_tcp + k / beta)
        w_l = k * t / beta
        k_new = max(1, layer_of((1 - beta) * w_l, w_t))
        if k_new == k:
            break
        k = k_new
    tcp = n_tcp * 0.75 * 2 * t
    ltcp = (1 - beta / 2) * k * t / beta
    return t, k, tcp / (tcp + ltcp)


def random_loss_window(p: float, ltcp: bool = True, w_t: float = 50.0, beta: float = 0.15,
                       cycles: int = 2000, seed: int = 1) -> float:
    """Mean packets per RTT of a per-RTT fluid model under Bernoulli loss ``p``.

    Eq. 18 assumes periodic losses (a deterministic sawtooth). With
    independent per-packet losses the loss intervals are random; this model
    keeps everything else of eq. 15-18: each round trip sends w packets; if
    any is lost (probability 1 - (1-p)^w) the window is cut once (SACK: one
    reduction per window) by beta (LTCP, at most one layer dropped, §IV-B
    pseudo-code; TCP rules below W_T) or by half (TCP); otherwise it grows
    by K (LTCP) or 1 (TCP). Returns the time-average of w over ``cycles``
    loss events after a warm-up of 50.
    """
    import random

    rng = random.Random(seed)
    w = response_window(p, w_t, beta)[0] if ltcp else math.sqrt(1.5 / p)
    k = layer_of(w, w_t) if ltcp else 1
    total = n = 0.0
    events = 0
    log1mp = math.log1p(-p)
    while events < cycles + 50:
        # round trips until the next loss: geometric in the number of packets
        lost = rng.random() >= math.exp(w * log1mp)
        if events >= 50:
            total += w
            n += 1
        if lost:
            events += 1
            if ltcp and k >= 2:
                w *= 1 - beta
                if w < layer_window(k, w_t):
                    k -= 1
            else:
                w /= 2
            w = max(w, 1.0)
        else:
            w += k if ltcp else 1
            if ltcp and w >= layer_window(k + 1, w_t):
                k += 1
    return total / n
