"""LTCP paper reproductions: the models they use, and each --quick variant.

Every experiment's quick run is checked for its outputs and packet
conservation by test_experiments.py; whether a quick check is within
tolerance is asserted here only where the quick setting is enough (quick
runs are too short for several of the paper's claims).
"""

import math

import pytest
from ccsim.models.ltcp import (climb_time_s, layer_of, layer_window, mixed_equilibrium,
                               random_loss_window, response_bps, response_pkts_per_s, response_window)

def test_layer_of_inverts_layer_window():
    for k in range(1, 20):
        assert layer_of(layer_window(k)) == max(k, 1)
        if k >= 2:
            assert layer_of(layer_window(k) - 1e-6) == k - 1


def test_response_window_is_self_consistent_eq17():
    for p in (1e-3, 1e-4, 1e-5, 1e-6, 1e-7):
        w, k, beta = response_window(p)
        assert beta == 0.15
        # eq. 17 with the K' it returns, and K' = layer after the cut
        assert w == pytest.approx(math.sqrt(k / (beta * (1 - beta / 2) * p)))
        assert k == layer_of(0.85 * w)
        # eq. 18 (response_bps) and eq. 16 agree
        assert response_pkts_per_s(p, 0.07) * 8000 == pytest.approx(response_bps(k, beta, 0.07, p, 1000))
    # below W_T LTCP is TCP: eq. 18 with K' = 1, beta = 1/2 is Mathis' sqrt(3/2)
    w, k, beta = response_window(1e-2)
    assert (k, beta) == (1, 0.5)
    assert w * 0.75 == pytest.approx(math.sqrt(1.5 / 1e-2))


def test_random_loss_fluid_model_near_periodic_model():
    # random losses raise the mean window a little above the periodic sawtooth
    for ltcp in (True, False):
        fluid = random_loss_window(1e-4, ltcp=ltcp, cycles=500)
        det = response_pkts_per_s(1e-4, 1.0) if ltcp else math.sqrt(1.5 / 1e-4)
        assert 0.9 < fluid / det < 1.15


def test_climb_time_and_mixed_equilibrium():
    w, bdp = 14413.0, 8413.0
    # TCP from W/2 to W at 1 per RTT, RTT 70 ms stretched by the queue: > 600 s
    tcp = climb_time_s(w / 2, w, bdp, 0.07, lambda x: 1.0)
    assert 640 < tcp < 670
    assert climb_time_s(0.85 * w, w, bdp, 0.07) < 30
    # without queueing it is (w1 - w0) / K RTTs
    assert climb_time_s(100, 200, 1e9, 0.1, lambda x: 2.0) == pytest.approx(5.0)
    t, k, share = mixed_equilibrium(10, w)
    assert k == layer_of(0.85 * k * t / 0.15)
    assert 10 * 2 * t + k * t / 0.15 == pytest.approx(w)
    assert 0 < share < 1


def test_ltcp_quick_claims_the_quick_setting_shows(quick_run):
    # Outputs, check keys and packet conservation of every LTCP experiment
    # are covered by test_experiments.py; here, the claims a quick run is
    # long enough to show.
    # (model checks only: paper checks are snapshotted, never asserted)
    _, checks = quick_run("ltcp-fig5")
    ok = {c.quantity: c.ok for c in checks if c.source != "paper"}
    # the layer climb and the x0.85 cut show within the quick run
    assert all(v for q, v in ok.items() if q.startswith("LTCP")), ok
    _, checks = quick_run("ltcp-response")
    ok = {c.quantity: c.ok for c in checks if c.source != "paper"}
    # LTCP against eq. 18 and the fluid model
    assert all(v for q, v in ok.items() if q.startswith("LTCP")), ok
