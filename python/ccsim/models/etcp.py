"""E-TCP paper models: the evolutionary M/M/1/B argument (§II, §III, Fig 1)
and the equilibrium of E-TCP flows at a small-buffer bottleneck.

Loss of a finite queue fed by Poisson arrivals
----------------------------------------------
``K`` is the number of packets the system holds, the one in service
included. The paper's ``P_B`` (eq. 1) is the M/M/1/K blocking probability
with ``K = B``:

    P_B(rho) = (1 - rho) rho^B / (1 - rho^(B+1))              (:func:`mm1k_loss`)

A router serving fixed-size packets is an M/D/1/K queue when its arrivals
are Poisson, as they are at a bottleneck fed by E-TCP's exponential pacing
(§III-C: "the resulting packet process at a bottleneck link is approximately
Poisson"; exactly Poisson for one or many exponentially paced senders at a
fixed rate). :func:`mg1k_loss` solves any M/G/1/K queue through the chain
embedded at departures (Gross & Harris, §5.1.6): with ``a_j`` the
probability of ``j`` arrivals during one service, the number left behind by
a departure is a Markov chain on 0..K-1, and with its stationary law ``pi``
the time-average (= arrival, by PASTA) probability of a full system is

    P_K = 1 - 1 / (pi_0 + rho).

:func:`md1k_loss` is that with a deterministic service. ccsim's DropTail
``limit_pkts`` (and ns-2's ``limit_``) counts the packets waiting behind the
one being serialised, so a 20-packet buffer is K = 21.

Evolutionary model (§II, §III, Fig 1)
------------------------------------
``g`` homogeneous flows share capacity ``c`` with utilisation ``rho``;
each sends ``T = rho c / g`` packets per second at window ``W* = T tau``,
and the loss is ``p = P_B(rho)``. TCP's ``W* = sqrt(2/p)`` gives
``P_B(rho) = 2 / (T tau)^2`` (eq. 4), so ``rho -> 0`` as ``T`` grows; E-TCP's
``W* = 2/(p - p0)`` (eq. 5) gives ``P_B(rho) = p0 + 2/(T tau)``, so
``rho -> P_B^-1(p0)`` (:func:`utilisation_for_throughput`).

E-TCP equilibrium
-----------------
The controller (§III-A) adds ``1/b`` to ``W`` per acknowledged congestion
sequence number and subtracts ``W/(b(2 + p0 W))`` per lost one. With a
fraction ``p`` of packets lost, the drift per packet is zero when
``(1 - p)/b = p W / (b (2 + p0 W))``:

    W = 2 (1 - p) / (p - p0 (1 - p))                          (:func:`window_at_loss`)

which is the paper's fluid ``W* = 2/(p - p0)`` (eq. 5; the fluid model lets
every packet count as a success) up to terms of order ``p^2``; inverted,
``p = (p0 + 2/W) / (1 + p0 + 2/W)`` (:func:`loss_at_window`; the paper's
``p0 + 2/W``, §VI-B). The rate variant (§VII-A) has the same law for the
rate ``x`` in packets per second (``x* = 2/(p - p0)``, eq. 11). Flows whose
loss is set by a shared queue of capacity ``C`` packets/s then sit where
the load they offer gives back the loss that holds them there
(:func:`equilibrium`): ``rho C = sum_i W / tau_i`` (window variant; every
flow has the same ``W``, whatever its RTT) or ``n x`` (rate variant), with
``p = P(rho)``.
"""

from __future__ import annotations

import math
from typing import Callable, Dict, Optional, Sequence

import numpy as np

__all__ = ["mm1k_loss", "mg1k_loss", "md1k_loss", "md1k_state", "tcp_window", "etcp_window_fluid", "network_equilibrium",
           "window_at_loss", "loss_at_window", "utilisation_for_throughput", "invert_loss", "equilibrium",
           "P0", "B_PARAM", "FIG1_BUFFER"]

#: §III-A: p0 = 0.01, b = 25 (for a 20-packet buffer).
P0, B_PARAM = 0.01, 25.0
#: Fig 1: the M/M/1/B model with B = 20.
FIG1_BUFFER = 20


# -- finite queues ------------------------------------------------------------------


def mm1k_loss(rho: float, k: int) -> float:
    """M/M/1/K blocking probability (the paper's eq. 1 with B = K)."""
    rho, k = float(rho), int(k)
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if rho < 0:
        raise ValueError(f"rho must be >= 0, got {rho}")
    if abs(rho - 1.0) < 1e-9:
        return 1.0 / (k + 1)
    # (1 - rho) rho^K / (1 - rho^(K+1)), written to stay finite for rho > 1
    if rho > 1.0:
        r = 1.0 / rho
        return (1.0 - r) / (1.0 - r ** (k + 1))
    return (1.0 - rho) * rho ** k / (1.0 - rho ** (k + 1))


def _departure_chain(a: np.ndarray, k: int) -> np.ndarray:
    """Stationary law of the number left behind at departures (0..K-1) of an
    M/G/1/K queue; ``a[j]`` = P(j arrivals in one service), j = 0..K-1.

    A departure leaving ``i`` behind is followed by a service that starts
    with max(i, 1) in the system; of the ``j`` arrivals during it, those
    finding the system full are lost, so the next departure leaves
    min(max(i - 1, 0) + j, K - 1) behind."""
    n = k  # states 0..K-1
    P = np.zeros((n, n))
    for i in range(n):
        base = max(i - 1, 0)
        for dest in range(base, n - 1):
            P[i, dest] = a[dest - base]
        P[i, n - 1] = max(0.0, 1.0 - a[: n - 1 - base].sum())
    # solve pi P = pi, sum pi = 1
    A = P.T - np.eye(n)
    A[-1, :] = 1.0
    rhs = np.zeros(n)
    rhs[-1] = 1.0
    return np.linalg.solve(A, rhs)


def mg1k_state(rho: float, k: int, arrivals_in_service: Callable[[int], np.ndarray]) -> np.ndarray:
    """Time-average distribution of the number in an M/G/1/K system
    (0..K); ``arrivals_in_service(n)`` gives P(j arrivals during one
    service) for j = 0..n-1."""
    rho, k = float(rho), int(k)
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if rho <= 0:
        out = np.zeros(k + 1)
        out[0] = 1.0
        return out
    a = np.asarray(arrivals_in_service(k), dtype=float)
    pi = _departure_chain(a, k)
    norm = pi[0] + rho
    p = np.empty(k + 1)
    p[:k] = pi / norm
    p[k] = 1.0 - 1.0 / norm
    return p


def mg1k_loss(rho: float, k: int, arrivals_in_service: Callable[[int], np.ndarray]) -> float:
    """M/G/1/K loss probability (= P(system full), PASTA)."""
    return float(mg1k_state(rho, k, arrivals_in_service)[-1])


def _poisson(rho: float) -> Callable[[int], np.ndarray]:
    def a(n: int) -> np.ndarray:
        j = np.arange(n)
        return np.exp(-rho + j * math.log(rho) - np.array([math.lgamma(x + 1) for x in j]))
    return a


def md1k_state(rho: float, k: int) -> np.ndarray:
    """Time-average distribution of the number in an M/D/1/K system."""
    return mg1k_state(rho, k, _poisson(float(rho)) if rho > 0 else (lambda n: np.ones(n)))


def md1k_loss(rho: float, k: int) -> float:
    """M/D/1/K loss probability: Poisson arrivals at load ``rho``, fixed
    service time, ``k`` places (the one in service included)."""
    return float(md1k_state(rho, k)[-1])


def invert_loss(p: float, loss: Callable[[float], float], hi: float = 10.0) -> float:
    """The load ``rho`` at which ``loss(rho) = p`` (``loss`` increasing)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    lo, up = 0.0, hi
    for _ in range(200):
        mid = 0.5 * (lo + up)
        if loss(mid) < p:
            lo = mid
        else:
            up = mid
    return 0.5 * (lo + up)


# -- window laws -------------------------------------------------------------------------


def tcp_window(p: float) -> float:
    """TCP's steady-state window, sqrt(2/p) (§II)."""
    return math.sqrt(2.0 / p)


def etcp_window_fluid(p: float, p0: float = P0) -> float:
    """E-TCP's fluid equilibrium, 2/(p - p0) (eq. 5); inf for p <= p0."""
    return 2.0 / (p - p0) if p > p0 else math.inf


def window_at_loss(p: float, p0: float = P0) -> float:
    """E-TCP's per-packet equilibrium window (or rate) at loss ``p``:
    2 (1 - p) / (p - p0 (1 - p)); inf where the window always grows."""
    d = p - p0 * (1.0 - p)
    return 2.0 * (1.0 - p) / d if d > 0 else math.inf


def loss_at_window(w: float, p0: float = P0) -> float:
    """The loss at which E-TCP holds window (or rate) ``w``: the inverse of
    :func:`window_at_loss`, (p0 + 2/w) / (1 + p0 + 2/w)."""
    q = p0 + 2.0 / w
    return q / (1.0 + q)


def utilisation_for_throughput(t_pkts: float, tau_s: float, protocol: str, buffer: int = FIG1_BUFFER,
                               p0: float = P0, loss: Optional[Callable[[float], float]] = None) -> float:
    """§II/§III evolutionary model: the utilisation ``rho`` at which a flow
    of throughput ``t_pkts`` (packets/s) at RTT ``tau_s`` is in equilibrium
    with the queue's loss ``P_B(rho)`` (default M/M/1/B, B = ``buffer``).
    ``protocol``: ``"tcp"`` (W = sqrt(2/p)) or ``"etcp"`` (W = 2/(p - p0))."""
    w = t_pkts * tau_s
    if protocol == "tcp":
        p = 2.0 / (w * w)
    elif protocol == "etcp":
        p = p0 + 2.0 / w
    else:
        raise ValueError(f"protocol must be 'tcp' or 'etcp', got {protocol!r}")
    if p >= 1.0:
        return math.nan  # no utilisation gives this loss (window below ~1.4 packets)
    f = loss or (lambda r: mm1k_loss(r, buffer))
    # offered loads above 1 are allowed (a finite queue loses the excess)
    return invert_loss(p, f, hi=10.0)


# -- E-TCP equilibrium at a shared queue -------------------------------------------------


def equilibrium(capacity_pkts: float, rtts_s: Sequence[float], k: int, variant: str = "window",
                p0: float = P0, queue: str = "md1k", packet_s: Optional[float] = None) -> Dict[str, float]:
    """Equilibrium of E-TCP flows (one per entry of ``rtts_s``) at a
    bottleneck of ``capacity_pkts`` packets/s holding ``k`` packets
    (service included), its loss that of an M/D/1/K (``queue="md1k"``) or
    M/M/1/K (``"mm1k"``) queue fed by the flows' Poisson traffic, or
    (``"overflow"``, for buffers of thousands of packets, §VIII) the limit
    of a large buffer: no loss below capacity, and above it the queue stays
    full and loses the excess, ``p = 1 - 1/rho``.

    Window variant: every flow holds the same window ``W`` and sends
    ``W / (tau_i + queueing delay)``; rate variant: the same rate ``x``.
    Returns rho (offered load), loss, window (NaN for the rate variant),
    rate_pps (per flow; window variant: of the flow with the first RTT),
    utilisation (carried load, rho (1 - loss)) and queue_pkts (mean number
    in the system)."""
    if variant not in ("window", "rate"):
        raise ValueError(f"variant must be 'window' or 'rate', got {variant!r}")
    state = {"md1k": md1k_state, "mm1k": _mm1k_state, "overflow": _overflow_state}[queue]
    svc = packet_s if packet_s is not None else 1.0 / capacity_pkts
    rtts = np.asarray(rtts_s, dtype=float)
    n = len(rtts)

    def offered(rho: float) -> float:
        st = state(rho, k)
        loss = float(st[-1])
        delay = _sojourn(st, rho, svc)
        w = window_at_loss(loss, p0)
        if variant == "window":
            return w * float((1.0 / (rtts + delay)).sum()) / capacity_pkts
        return n * w / capacity_pkts

    lo, hi = 1e-9, 100.0
    for _ in range(200):  # offered(rho) - rho is decreasing in rho
        mid = 0.5 * (lo + hi)
        if offered(mid) > mid:
            lo = mid
        else:
            hi = mid
    rho = 0.5 * (lo + hi)
    st = state(rho, k)
    loss = float(st[-1])
    w = window_at_loss(loss, p0)
    q = float((st * np.arange(k + 1)).sum())
    delay = _sojourn(st, rho, svc)
    return {"rho": rho, "loss": loss, "utilisation": rho * (1.0 - loss), "queue_pkts": q,
            "window": w if variant == "window" else math.nan,
            "rate_pps": w / (rtts[0] + delay) if variant == "window" else w}


def _sojourn(st: np.ndarray, rho: float, svc: float) -> float:
    """Mean time in the system of an accepted packet (Little: L / accepted rate)."""
    q = float((st * np.arange(len(st))).sum())
    return q * svc / (rho * (1.0 - float(st[-1]))) if rho > 0 else svc


def _overflow_state(rho: float, k: int) -> np.ndarray:
    """Large-buffer limit as a two-point law: full with the excess lost
    (rho > 1), or empty with no loss (rho <= 1; only the loss and, above
    capacity, the full queue's delay matter to the equilibrium)."""
    st = np.zeros(k + 1)
    loss = max(0.0, 1.0 - 1.0 / rho) if rho > 0 else 0.0
    if rho > 1.0:
        # the queue holds K (its last place is the one counted as "full")
        st[k] = loss
        st[k - 1] = 1.0 - loss
    else:
        st[0] = 1.0
    return st


def _mm1k_state(rho: float, k: int) -> np.ndarray:
    r = np.power(float(rho), np.arange(k + 1))
    return r / r.sum()


def network_equilibrium(capacities_pkts: Sequence[float], paths: Sequence[Sequence[int]], rtts_s: Sequence[float],
                        k: int, variant: str = "window", p0: float = P0, sweeps: int = 100) -> Dict[str, list]:
    """Equilibrium of E-TCP flows over several M/D/1/K links (multiple
    bottlenecks, §VI-F). Flow f crosses the links ``paths[f]`` in order;
    its loss is 1 - prod(1 - p_l) over them, its window (or rate) the
    per-packet law at that loss, its rate W / (tau_f + queueing) (window
    variant) or W (rate variant); a link's load is the sum of the rates of
    its flows, thinned by the losses of the links before it on their paths.
    Solved link by link (Gauss-Seidel, a bisection for each link's load
    given the others) until the loads stop moving.

    Returns per link: rho, loss, queue_pkts; per flow: loss, window (NaN for
    the rate variant), rate_pps."""
    caps = [float(c) for c in capacities_pkts]
    n_links = len(caps)
    rho = [0.9] * n_links

    def link_state(l: int, r: float):
        st = md1k_state(r, k)
        return float(st[-1]), _sojourn(st, r, 1.0 / caps[l]), float((st * np.arange(k + 1)).sum())

    def flow_rates(states):
        out = []
        for path, tau in zip(paths, rtts_s):
            q = 1.0 - float(np.prod([1.0 - states[l][0] for l in path]))
            w = window_at_loss(q, p0)
            if variant == "window":
                out.append((q, w, w / (tau + sum(states[l][1] for l in path))))
            else:
                out.append((q, math.nan, w))
        return out

    def load(l: int, states) -> float:
        total = 0.0
        for (q, w, x), path in zip(flow_rates(states), paths):
            if l in path:
                thin = 1.0
                for m in path[: list(path).index(l)]:
                    thin *= 1.0 - states[m][0]
                total += x * thin
        return total / caps[l]

    for _ in range(sweeps):
        before = list(rho)
        for l in range(n_links):
            states = [link_state(m, rho[m]) for m in range(n_links)]
            lo, hi = 1e-9, 100.0
            for _ in range(80):
                mid = 0.5 * (lo + hi)
                states[l] = link_state(l, mid)
                if load(l, states) > mid:
                    lo = mid
                else:
                    hi = mid
            rho[l] = 0.5 * (lo + hi)
        if max(abs(a - b) for a, b in zip(rho, before)) < 1e-10:
            break
    states = [link_state(m, rho[m]) for m in range(n_links)]
    flows = flow_rates(states)
    return {"rho": rho, "link_loss": [s[0] for s in states], "queue_pkts": [s[2] for s in states],
            "loss": [f[0] for f in flows], "window": [f[1] for f in flows], "rate_pps": [f[2] for f in flows]}
