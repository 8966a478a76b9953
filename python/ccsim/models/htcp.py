"""Positive-matrix model of AIMD networks (Leith & Shorten, H-TCP paper §2).

Synchronised model (eq. 4-6). ``n`` AIMD sources with increase ``alpha_i``
(packets per RTT) and backoff ``beta_i`` share a drop-tail bottleneck; every
source sees a drop at every congestion event and all have the same RTT.
With ``w_i(k)`` the window of source ``i`` just before the k-th event,

    W(k+1) = A W(k),   A = diag(beta) + alpha (1 - beta)^T / sum(alpha)   (eq. 6)

``A`` is column-stochastic (every column sums to 1), so the total window is
conserved from one event to the next (eq. 1: sum w_i = P + sum alpha_i, with
P the pipe, BDP plus buffer). Theorem 2.1 / Corollary 2.1:

* the Perron eigenvalue is 1 with eigenvector ``x_p = alpha_i / (1 - beta_i)``;
  the network converges to ``W_ss = Theta x_p`` (``Theta`` fixed by eq. 1);
* the other eigenvalues are real, in ``[min beta, 1)``, and the second
  largest, ``lambda_2``, sets the convergence rate: the distance to the fixed
  point shrinks at least as ``lambda_2^k``.

Rise time. The paper defines ``n_r`` as the number of congestion epochs
"until the network dynamics have converged to 95% of the final network
state", and prints ``n_r = log(0.95) / log(lambda_2)``, adding that
``n_r ~ 4`` for ``beta_i = 0.5``. The two statements disagree: with
``lambda_2 = 0.5`` the printed formula gives 0.074 epochs, while 95% of the
way to the fixed point means the residual ``lambda_2^k`` has fallen to 5%,
``n_r = log(0.05) / log(lambda_2) = 4.32``, which is the paper's "~4".
:func:`rise_time` implements the definition (``settle = 0.95`` -> residual
0.05); :func:`rise_time_printed` is the formula as printed, kept so the
discrepancy can be shown rather than silently corrected.

Two sources (used in the tests as an independent closed form): ``A`` has
eigenvalues 1 and ``det A``, so

    lambda_2 = (alpha_1 beta_2 + alpha_2 beta_1) / (alpha_1 + alpha_2).

Unsynchronised model (eq. 11-13). At each event source ``i`` backs off with
probability ``p_i`` (else ``beta_i`` is replaced by 1); the increase is the
average rate over the epoch, ``alpha_bar_i``. ``A`` is linear in the
backoff factors, so the expected matrix is eq. 6 with
``beta_i -> E[beta_bar_i] = 1 - p_i (1 - beta_i)``, and if the drop pattern is
independent of ``k`` the empirical mean of ``W(k)`` converges to the Perron
vector of that expected matrix,

    E[W] ~ alpha_bar_i / (p_i (1 - beta_i)),

which reduces to ``x_p`` when every source sees every drop (``p_i = 1``) or
when all ``p_i`` are equal. :func:`random_product_mean` iterates the random
product itself (the paper's Fig 7: convergence of the empirical mean).
"""

from __future__ import annotations

import math
from typing import Optional, Sequence, Tuple

import numpy as np

__all__ = [
    "network_matrix",
    "perron_vector",
    "eigenvalues",
    "second_eigenvalue",
    "two_flow_lambda2",
    "rise_time",
    "rise_time_printed",
    "fixed_point",
    "trajectory",
    "epochs_to_converge",
    "expected_beta",
    "unsync_fixed_point_shares",
    "random_product_mean",
    "random_product_share_spread",
    "htcp_alpha_h",
    "sync_htcp_epoch",
]


def _arrays(alpha: Sequence[float], beta: Sequence[float]) -> Tuple[np.ndarray, np.ndarray]:
    a = np.asarray(alpha, dtype=float).ravel()
    b = np.asarray(beta, dtype=float).ravel()
    if a.shape != b.shape or a.size == 0:
        raise ValueError(f"alpha and beta must be non-empty and of equal length, got {a.size} and {b.size}")
    if np.any(a <= 0):
        raise ValueError(f"alpha must be > 0, got {a.tolist()}")
    if np.any((b <= 0) | (b > 1)):
        raise ValueError(f"beta must be in (0, 1], got {b.tolist()}")
    return a, b


def network_matrix(alpha: Sequence[float], beta: Sequence[float]) -> np.ndarray:
    """The matrix ``A`` of eq. 6 (``beta_i = 1`` allowed: a source without a drop)."""
    a, b = _arrays(alpha, beta)
    return np.diag(b) + np.outer(a, 1.0 - b) / a.sum()


def perron_vector(alpha: Sequence[float], beta: Sequence[float], total: Optional[float] = None) -> np.ndarray:
    """``alpha_i / (1 - beta_i)`` (Theorem 2.1), scaled to sum to ``total``
    (default 1: the sources' shares of the pipe at a congestion event)."""
    a, b = _arrays(alpha, beta)
    if np.any(b >= 1):
        raise ValueError("the Perron vector needs every beta < 1")
    x = a / (1.0 - b)
    return x / x.sum() * (1.0 if total is None else float(total))


def eigenvalues(alpha: Sequence[float], beta: Sequence[float]) -> np.ndarray:
    """Eigenvalues of ``A``, largest first (real by [4]; tiny imaginary
    round-off is dropped)."""
    ev = np.linalg.eigvals(network_matrix(alpha, beta))
    return np.sort(ev.real)[::-1]


def second_eigenvalue(alpha: Sequence[float], beta: Sequence[float]) -> float:
    """``lambda_2``: the largest eigenvalue other than the Perron root 1."""
    ev = eigenvalues(alpha, beta)
    if ev.size < 2:
        raise ValueError("one source has no second eigenvalue")
    return float(ev[1])


def two_flow_lambda2(a1: float, b1: float, a2: float, b2: float) -> float:
    """Closed form of ``lambda_2`` for two sources (``det A``)."""
    return (a1 * b2 + a2 * b1) / (a1 + a2)


def rise_time(lam2: float, settle: float = 0.95) -> float:
    """Congestion epochs until ``settle`` of the way to the fixed point:
    ``log(1 - settle) / log(lambda_2)`` (4.32 for ``lambda_2 = 0.5``)."""
    if not 0.0 < lam2 < 1.0:
        raise ValueError(f"lambda_2 must be in (0, 1), got {lam2}")
    return math.log(1.0 - settle) / math.log(lam2)


def rise_time_printed(lam2: float) -> float:
    """The formula as printed in the paper, ``log(0.95) / log(lambda_2)``."""
    if not 0.0 < lam2 < 1.0:
        raise ValueError(f"lambda_2 must be in (0, 1), got {lam2}")
    return math.log(0.95) / math.log(lam2)


def fixed_point(alpha: Sequence[float], beta: Sequence[float], pipe_pkts: float) -> np.ndarray:
    """``W_ss = Theta x_p`` with ``sum W_ss = P + sum alpha`` (eq. 1)."""
    a, _ = _arrays(alpha, beta)
    return perron_vector(alpha, beta, total=float(pipe_pkts) + float(a.sum()))


def trajectory(alpha: Sequence[float], beta: Sequence[float], w0: Sequence[float], epochs: int) -> np.ndarray:
    """``W(0), ..., W(epochs)`` of eq. 5, one row per event."""
    A = network_matrix(alpha, beta)
    w = np.asarray(w0, dtype=float).ravel()
    out = [w]
    for _ in range(int(epochs)):
        w = A @ w
        out.append(w)
    return np.vstack(out)


def epochs_to_converge(w: np.ndarray, target_shares: Sequence[float], settle: float = 0.95) -> Optional[int]:
    """First event index ``k`` at which the window shares are ``settle`` of
    the way from ``W(0)`` to the target: ``||s(k) - s*||_1 <= (1 - settle)
    ||s(0) - s*||_1`` (``s = W / sum W``). ``None`` if never.

    The same measure is applied to model trajectories and simulated window
    series, so the two are compared like for like."""
    w = np.asarray(w, dtype=float)
    s = w / w.sum(axis=1, keepdims=True)
    t = np.asarray(target_shares, dtype=float)
    d = np.abs(s - t).sum(axis=1)
    if d[0] == 0:
        return 0
    hit = np.nonzero(d <= (1.0 - settle) * d[0])[0]
    return int(hit[0]) if hit.size else None


def expected_beta(beta: Sequence[float], drop_prob: Sequence[float]) -> np.ndarray:
    """``E[beta_bar_i] = 1 - p_i (1 - beta_i)`` (eq. 11 averaged)."""
    b = np.asarray(beta, dtype=float)
    p = np.asarray(drop_prob, dtype=float)
    if np.any((p <= 0) | (p > 1)):
        raise ValueError(f"drop probabilities must be in (0, 1], got {p.tolist()}")
    return 1.0 - p * (1.0 - b)


def unsync_fixed_point_shares(alpha_bar: Sequence[float], beta: Sequence[float],
                              drop_prob: Sequence[float]) -> np.ndarray:
    """Shares of the empirical-mean fixed point of the unsynchronised model:
    the Perron vector of ``E[A]``, ``alpha_bar_i / (p_i (1 - beta_i))``."""
    return perron_vector(alpha_bar, expected_beta(beta, drop_prob))


def random_product_mean(alpha_bar: Sequence[float], beta: Sequence[float],
                        patterns: Sequence[Sequence[bool]], w0: Sequence[float], epochs: int,
                        seed: int = 1, weights: Optional[Sequence[float]] = None) -> np.ndarray:
    """Running empirical mean of ``W(k)`` under eq. 13: at each event one drop
    pattern (which sources back off) is drawn from ``patterns`` (with
    probabilities ``weights``, default uniform; pass the patterns observed in
    a simulation to use their empirical distribution). Returns one row per
    event: the mean of ``W(1..k)``."""
    a, b = _arrays(alpha_bar, beta)
    pats = np.asarray(patterns, dtype=bool)
    if pats.ndim != 2 or pats.shape[1] != a.size or not pats.any(axis=1).all():
        raise ValueError("patterns must be rows of n booleans with at least one True")
    rng = np.random.default_rng(seed)
    mats = [network_matrix(a, np.where(p, b, 1.0)) for p in pats]
    probs = None if weights is None else np.asarray(weights, dtype=float) / np.sum(weights)
    w = np.asarray(w0, dtype=float).ravel()
    total = np.zeros_like(w)
    out = np.empty((int(epochs), w.size))
    for k in range(int(epochs)):
        w = mats[rng.choice(len(mats), p=probs)] @ w
        total += w
        out[k] = total / (k + 1)
    return out


def random_product_share_spread(alpha_bar: Sequence[float], beta: Sequence[float],
                                patterns: Sequence[Sequence[bool]], w0: Sequence[float], epochs: int,
                                runs: int = 200, seed: int = 1) -> np.ndarray:
    """Standard deviation, over ``runs`` seeded realisations of eq. 13, of
    each source's share in the empirical mean of ``W(1..epochs)``: how far
    an empirical mean over that many events scatters around the fixed point
    even when the model holds exactly."""
    finals = []
    for r in range(int(runs)):
        m = random_product_mean(alpha_bar, beta, patterns, w0, epochs, seed=seed + r)[-1]
        finals.append(m / m.sum())
    return np.std(np.asarray(finals), axis=0)


# -- H-TCP in the synchronised fluid picture ----------------------------------

def htcp_alpha_h(delta_s: float, delta_l_s: float = 1.0) -> float:
    """Eq. 17/23: ``1`` up to ``Delta_L``, then ``1 + 10 d + (d/2)^2``."""
    if delta_s <= delta_l_s:
        return 1.0
    d = delta_s - delta_l_s
    return 1.0 + 10.0 * d + (d / 2.0) ** 2


def sync_htcp_epoch(n: int, beta: float, bdp_pkts: float, buffer_pkts: float, rtt_s: float,
                    delta_l_s: float = 1.0, dt_s: float = 1e-3, epochs: int = 20) -> dict:
    """Steady-state congestion epoch of ``n`` synchronised, identical H-TCP
    sources (§3.4 without RTT scaling) as a fluid, following the timing of
    §2 (Fig 1): after a backoff every source adds ``2 (1 - beta)
    alpha_H(Delta) / RTT`` packets per second, ``RTT = max(T_d, W / C)``
    (the queue holds what exceeds the BDP); the buffer overflows when the
    total window ``W`` reaches the pipe ``P = BDP + buffer`` (``t_b``) and the
    sources learn of it one full-queue RTT later (``t_c = t_b + T_d + q/C``,
    eq. 2-3), still growing, then back off to ``beta W(t_c)``. The link
    carries ``min(W / T_d, C)``. Epochs are iterated from ``W = P`` until the
    peak settles; returns the last epoch's length (s), the peak total window
    and the time-averaged utilisation.

    This is the model behind eq. 7-9 and §3.2: a backoff that takes the
    total window below the BDP leaves the link idle part of the epoch."""
    if n < 1 or not 0 < beta < 1 or bdp_pkts <= 0 or buffer_pkts < 0 or rtt_s <= 0:
        raise ValueError("need n >= 1, 0 < beta < 1, bdp > 0, buffer >= 0, rtt > 0")
    cap = bdp_pkts / rtt_s  # packets per second
    pipe = bdp_pkts + buffer_pkts
    rtt_full = rtt_s + buffer_pkts / cap
    peak = pipe
    out = {}
    for _ in range(int(epochs)):
        w = beta * peak
        t = busy = 0.0
        t_b = None
        while t_b is None or t < t_b + rtt_full:
            rtt = max(rtt_s, min(w, pipe) / cap)
            busy += min(w / bdp_pkts, 1.0) * dt_s
            w += n * 2.0 * (1.0 - beta) * htcp_alpha_h(t, delta_l_s) / rtt * dt_s
            t += dt_s
            if t_b is None and w >= pipe:
                t_b = t
            if t > 1e5:
                raise ValueError("epoch does not end (window cannot reach the pipe)")
        out = {"epoch_s": t, "peak_pkts": w, "utilization": busy / t}
        if abs(w - peak) < 1e-6 * pipe:
            break
        peak = w
    return out
