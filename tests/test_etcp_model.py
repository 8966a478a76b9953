"""E-TCP paper models (ccsim.models.etcp) against independent truths."""

import math

import numpy as np
import pytest

from ccsim.models.etcp import (P0, equilibrium, etcp_window_fluid, invert_loss, loss_at_window, md1k_loss,
                               md1k_state, mg1k_loss, mm1k_loss, tcp_window, utilisation_for_throughput,
                               window_at_loss)


def test_mm1k_closed_form_limits():
    # one place: Erlang's loss formula rho / (1 + rho)
    for rho in (0.1, 0.9, 1.0, 3.0):
        assert mm1k_loss(rho, 1) == pytest.approx(rho / (1 + rho))
    # rho = 1: every state equally likely
    assert mm1k_loss(1.0, 20) == pytest.approx(1 / 21)
    assert mm1k_loss(1.0 + 1e-7, 20) == pytest.approx(1 / 21, rel=1e-5)
    # birth-death chain: pi_n proportional to rho^n, blocking = pi_K
    pi = 0.7 ** np.arange(21)
    assert mm1k_loss(0.7, 20) == pytest.approx(pi[-1] / pi.sum())
    # overload: the queue is nearly always full, loss -> 1 - 1/rho
    assert mm1k_loss(4.0, 20) == pytest.approx(0.75, rel=1e-9)


def test_embedded_chain_reproduces_mm1k():
    # M/G/1/K solved through departures, with exponential service
    # (arrivals in a service are geometric), equals the M/M/1/K closed form
    for rho in (0.3, 0.88, 1.0, 1.7):
        geometric = lambda n, r=rho: (1 / (1 + r)) * (r / (1 + r)) ** np.arange(n)
        for k in (1, 2, 5, 21):
            assert mg1k_loss(rho, k, geometric) == pytest.approx(mm1k_loss(rho, k), rel=1e-6, abs=1e-13)


def test_md1k_truths():
    # insensitivity of the one-place system: rho / (1 + rho) for any service
    for rho in (0.2, 1.0, 2.5):
        assert md1k_loss(rho, 1) == pytest.approx(rho / (1 + rho))
    # large K, rho < 1: the M/D/1 queue; idle 1 - rho and Pollaczek-Khinchine
    # mean number rho + rho^2 / (2 (1 - rho))
    st = md1k_state(0.5, 80)
    assert st[0] == pytest.approx(0.5, rel=1e-9)
    assert (st * np.arange(81)).sum() == pytest.approx(0.5 + 0.25 / (2 * 0.5), rel=1e-9)
    # deterministic service queues less than exponential: lower loss
    assert md1k_loss(0.95, 21) < mm1k_loss(0.95, 21)
    # balance: carried load rho (1 - P_K) equals the busy fraction 1 - P_0
    st = md1k_state(0.97, 21)
    assert 0.97 * (1 - st[-1]) == pytest.approx(1 - st[0], rel=1e-9)


def _erlang_service_loss(rho, k, m):
    """Loss of M/E_m/1/K from its continuous-time Markov chain (states:
    empty, or n in system with the server in phase 1..m of m exponential
    phases of mean 1/m each), solved directly."""
    index = {(n, ph): 1 + (n - 1) * m + ph for n in range(1, k + 1) for ph in range(m)}
    size = 1 + k * m
    q = np.zeros((size, size))
    q[0, index[(1, 0)]] = rho
    for (n, ph), s in index.items():
        if n < k:
            q[s, index[(n + 1, ph)]] += rho
        if ph < m - 1:
            q[s, index[(n, ph + 1)]] += m
        else:
            q[s, index[(n - 1, 0)] if n > 1 else 0] += m
    np.fill_diagonal(q, -q.sum(axis=1))
    a = q.T.copy()
    a[-1, :] = 1.0
    rhs = np.zeros(size)
    rhs[-1] = 1.0
    pi = np.linalg.solve(a, rhs)
    return sum(pi[index[(k, ph)]] for ph in range(m))


def test_md1k_is_the_limit_of_erlang_service():
    # an independent method: the CTMC of M/E_m/1/K, whose error is O(1/m);
    # Richardson-extrapolated from m = 25 and 50 to deterministic service
    # (the extrapolation leaves ~2e-4)
    assert _erlang_service_loss(0.9, 10, 1) == pytest.approx(mm1k_loss(0.9, 10), rel=1e-9)
    for rho, k in ((0.9, 10), (0.96, 21), (1.1, 21)):
        l25, l50 = _erlang_service_loss(rho, k, 25), _erlang_service_loss(rho, k, 50)
        assert 2 * l50 - l25 == pytest.approx(md1k_loss(rho, k), rel=1e-3)
        # below overload one place more or less is far outside that
        if rho < 1:
            assert abs(md1k_loss(rho, k + 1) / md1k_loss(rho, k) - 1) > 0.05


def test_window_laws():
    assert tcp_window(0.02) == pytest.approx(10.0)
    assert etcp_window_fluid(0.0102) == pytest.approx(10000.0)
    assert math.isinf(etcp_window_fluid(0.01))
    for p in (0.0101, 0.0102, 0.018, 0.05):
        assert loss_at_window(window_at_loss(p)) == pytest.approx(p, rel=1e-12)
        # the per-packet law is the fluid law once (1 - p) is dropped
        w = window_at_loss(p)
        assert 2 * (1 - p) / w == pytest.approx(p - P0 * (1 - p))
    # the window always grows at or below p0 / (1 + p0)
    assert math.isinf(window_at_loss(P0 / (1 + P0)))


def test_per_packet_controller_settles_at_window_at_loss():
    # the §III-A rules with independent losses of probability p: mean W is
    # window_at_loss(p), not the fluid 2 / (p - p0)
    # (at p = 0.05: 46.9 vs 50; W relaxes over ~1500 packets with a standard
    # deviation of ~5, so 600,000 packets give the mean to within ~1)
    rng = np.random.default_rng(3)
    p, b = 0.05, 25.0
    lost = rng.random(600_000) < p
    w, acc, n = window_at_loss(p), 0.0, 0
    for i, l in enumerate(lost):
        w = w - w / (b * (2 + P0 * w)) if l else w + 1 / b
        if i >= 20_000:
            acc += w
            n += 1
    assert acc / n == pytest.approx(window_at_loss(p), rel=0.03)
    assert abs(acc / n - window_at_loss(p)) < abs(acc / n - etcp_window_fluid(p))


def test_evolutionary_model():
    # TCP at 50% utilisation: P_B(0.5) = 2 / (T tau)^2
    t_half = tcp_window(mm1k_loss(0.5, 20)) / 0.1
    assert utilisation_for_throughput(t_half, 0.1, "tcp") == pytest.approx(0.5, abs=1e-9)
    # TCP's utilisation -> 0 as the throughput grows; E-TCP's -> P_B^-1(p0)
    assert utilisation_for_throughput(1e9, 0.1, "tcp") < 0.2
    limit = invert_loss(P0, lambda r: mm1k_loss(r, 20))
    assert mm1k_loss(limit, 20) == pytest.approx(P0, rel=1e-9)
    assert utilisation_for_throughput(1e9, 0.1, "etcp") == pytest.approx(limit, abs=1e-5)
    with pytest.raises(ValueError):
        utilisation_for_throughput(1e6, 0.1, "cubic")


def test_equilibrium_is_consistent():
    c = 1e9 / 8320
    eq = equilibrium(c, [0.1], 21)
    # the loss is the queue's at the offered load, the window holds at that loss
    assert eq["loss"] == pytest.approx(md1k_loss(eq["rho"], 21), rel=1e-9)
    assert eq["window"] == pytest.approx(window_at_loss(eq["loss"]), rel=1e-9)
    # Little: an accepted packet spends L / (accepted rate) in the queue
    sojourn = eq["queue_pkts"] / (eq["rho"] * (1 - eq["loss"]) * c)
    assert eq["window"] / (0.1 + sojourn) == pytest.approx(eq["rho"] * c, rel=1e-6)
    # more flows, smaller windows, more loss
    eq50 = equilibrium(c, [0.1] * 50, 21)
    assert eq50["window"] < eq["window"] / 40 and eq50["loss"] > eq["loss"]
    # window variant: one window for every RTT; rate variant: one rate
    rtts = [0.05 + 0.005 * i for i in range(50)]
    c = 500e6 / 8320
    het = equilibrium(c, rtts, 21)
    sojourn = het["queue_pkts"] / (het["rho"] * (1 - het["loss"]) * c)
    assert het["window"] * sum(1 / (r + sojourn) for r in rtts) == pytest.approx(het["rho"] * c, rel=1e-6)
    rate = equilibrium(c, rtts, 21, variant="rate")
    assert math.isnan(rate["window"]) and rate["rate_pps"] * 50 == pytest.approx(rate["rho"] * c, rel=1e-6)


def test_network_equilibrium_reduces_to_one_link():
    from ccsim.models.etcp import network_equilibrium

    c = 600e6 / 8320
    one = equilibrium(c, [0.1, 0.2], 21)
    net = network_equilibrium([c], [[0], [0]], [0.1, 0.2], 21)
    assert net["rho"][0] == pytest.approx(one["rho"], rel=1e-6)
    assert net["window"][0] == pytest.approx(one["window"], rel=1e-6)
    # a long flow over links that carry their own one-hop flows sees the
    # links' losses compounded, and its law sets its window from that loss
    net = network_equilibrium([c] * 3, [[0, 1, 2], [0], [1], [2]], [0.2, 0.1, 0.1, 0.1], 21)
    lp = net["link_loss"]
    assert net["loss"][0] == pytest.approx(1 - (1 - lp[0]) * (1 - lp[1]) * (1 - lp[2]), rel=1e-12)
    assert net["window"][0] == pytest.approx(window_at_loss(net["loss"][0]), rel=1e-12)
    # each link's load is its flows' rates, the long flow thinned upstream
    x = net["rate_pps"]
    assert net["rho"][2] * c == pytest.approx(x[3] + x[0] * (1 - lp[0]) * (1 - lp[1]), rel=1e-6)
    # rate variant: one-hop flows on equally loaded links get equal rates
    rate = network_equilibrium([c] * 2, [[0, 1], [0], [1]], [0.2, 0.1, 0.3], 21, variant="rate")
    assert rate["rate_pps"][1] == pytest.approx(rate["rate_pps"][2], rel=1e-3)
