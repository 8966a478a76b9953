"""The published models the ``modern-*`` experiments check against, held to
their closed forms and worked numbers: DCTCP's steady-state analysis
(Alizadeh et al., SIGCOMM 2010, §3.3; :mod:`ccsim.models.dctcp`) and Ware
et al.'s model of BBR v1 against loss-based flows (IMC 2019;
:mod:`ccsim.models.bbr`); DualPI2's coupling and the rate balance it
gives (RFC 9332 §2.1; :mod:`ccsim.models.l4s`)."""

from __future__ import annotations

import math

import pytest

from ccsim.models import bbr as B
from ccsim.models import dctcp as D
from ccsim.models import l4s as L


# -- DCTCP's analysis (Alizadeh et al. 2010, §3.3) -----------------------------------------


def test_dctcp_closed_forms():
    c = D.pipe_packets(100e6, 0.01, 1500)
    assert c == pytest.approx(250 / 3)
    assert D.pipe_packets(10e9, 100e-6, 1500) == pytest.approx(c)  # the paper's own setting, same pipe
    assert D.q_max(40, 2) == 42
    assert D.window_star(c, 40, 2) == pytest.approx((250 / 3 + 40) / 2)
    assert D.amplitude(c, 40, 2) == pytest.approx(0.5 * math.sqrt(4 * (250 / 3 + 40)))
    assert D.q_min(c, 40, 2) == pytest.approx(42 - D.amplitude(c, 40, 2))
    assert D.period_rtts(c, 40, 2) == pytest.approx(D.amplitude(c, 40, 2) / 2)  # T_C = D = A / N


def test_dctcp_alpha_root_and_its_approximation():
    for w in (5.0, 12.3, 123.3, 1000.0):
        a = D.alpha_exact(w)
        assert a * a * (1 - a / 4) == pytest.approx((2 * w + 1) / (w + 1) ** 2, rel=1e-9)
    # sqrt(2/W*) is the paper's large-window approximation, low by about alpha/8:
    # 1.1% at W* = 123, 0.5% at 1000, 0.02% at 10^6
    assert D.alpha_approx(123.3) == pytest.approx(D.alpha_exact(123.3), rel=0.012)
    assert D.alpha_approx(1000) == pytest.approx(D.alpha_exact(1000), rel=0.006)
    assert D.alpha_approx(1e6) == pytest.approx(D.alpha_exact(1e6), rel=2e-4)
    # the closed-form A is N (W* + 1) alpha / 2 with alpha approximated: 7.5% low at N = 10, K = 40
    c = 250 / 3
    assert D.amplitude_exact(c, 40, 10) / D.amplitude(c, 40, 10) == pytest.approx(1.075, abs=0.002)
    assert D.amplitude_exact(c, 1e6, 1) / D.amplitude(c, 1e6, 1) == pytest.approx(1.0, abs=1e-3)


def test_dctcp_k_guideline_is_the_worst_n():
    """K > C·RTT/7 keeps Q_min > 0 for every N; just below it some N
    (about (C·RTT + K)/8) empties the queue."""
    c = 250 / 3
    k = D.k_min(c)
    assert k == pytest.approx(c / 7)
    assert all(D.full_link(c, k + 0.05, n) for n in range(1, 500))
    worst = [n for n in range(1, 500) if not D.full_link(c, k - 0.05, n)]
    assert worst and all(abs(n - (c + k) / 8) < 1.5 for n in worst)


# -- Ware et al.'s model of BBR against loss-based flows (IMC 2019) ----------------------


def test_ware_worked_numbers():
    m = B.ware_share(100e6, 0.04, 8.0)
    bdp = 100e6 * 0.04 / 12000
    assert m.bdp_pkts == pytest.approx(bdp) and m.queue_pkts == pytest.approx(8 * bdp)
    p = 0.5 - 1 / 16 - 4 / (8 * bdp)                      # eq. (9)
    assert m.loss_share == pytest.approx(p) and m.bbr_cap_share == pytest.approx(1 - p)
    probe = (8 * 0.04 + 0.2 + 0.04) / 10                  # eq. (11) over d
    assert m.probe_fraction == pytest.approx(probe)
    assert m.bbr_share == pytest.approx((1 - p) * (1 - probe))  # eq. (10)
    assert round(m.bbr_share, 4) == 0.5324


def test_ware_limits():
    # the simple model: one BBR flow, a queue far deeper than the BDP -> half the link before ProbeRTT
    assert B.ware_share(100e6, 0.04, 1e4).bbr_cap_share == pytest.approx(0.5, abs=1e-3)
    # at most a BDP of buffer the cap exceeds the pipe and the queue: p < 0 is clipped, BBR takes it all
    assert B.ware_share(100e6, 0.04, 1.0).loss_share == 0.0
    # more BBR flows: more packets queued in ProbeRTT, a larger cap, a larger share
    assert B.ware_share(10e6, 0.04, 8, n_bbr=4).bbr_cap_share > B.ware_share(10e6, 0.04, 8).bbr_cap_share
    # the share falls as the buffer deepens (the probe time grows with q)
    shares = [B.ware_share(100e6, 0.04, x).bbr_share for x in (2, 4, 8, 16, 32)]
    assert all(b < a for a, b in zip(shares, shares[1:]))
    with pytest.raises(ValueError):
        B.ware_share(100e6, 0.04, 0.0)


def test_ware_premise_and_lone_flow_forms():
    # at 2 BDP the model's loss-based flows hold 0.73 BDP in flight: the queue empties in ProbeRTT
    assert not B.queue_persists(B.ware_share(100e6, 0.04, 2.0))
    assert B.queue_persists(B.ware_share(100e6, 0.04, 4.0))
    assert B.probe_rtt_utilisation(0.04) == pytest.approx(1 - 0.24 / 10)
    assert B.probe_queue_bdp() == pytest.approx(0.25)


# -- DualPI2's coupling (RFC 9332 §2.1) -------------------------------------------------------


def test_coupling_and_window_balance():
    # p' = 0.05: the L queue marks 0.1, the classic queue drops 0.0025
    assert L.classic_from_l4s(0.1, 2.0) == pytest.approx(0.0025)
    assert L.classic_from_l4s(1.5, 2.0) == pytest.approx(0.25)  # p_L saturates at 1
    assert math.isnan(L.classic_from_l4s(math.nan))
    # W_L = 2/p_L = 2/(k p'), W_C = 1.22/sqrt(p_C) = 1.22/p': ratio 2/(1.22 k)
    p = 0.05
    w_l, w_c = 2 / (2 * p), math.sqrt(1.5) / math.sqrt(p * p)
    assert L.window_ratio(2.0) == pytest.approx(w_l / w_c)
    assert L.window_ratio(2.0) == pytest.approx(0.8165, abs=1e-4)
    # k = 2/1.22 would give equal windows
    assert L.window_ratio(2 / math.sqrt(1.5)) == pytest.approx(1.0)


def test_rate_ratio_falls_with_the_base_rtt():
    # the C queue at 15 ms, the L queue at 0.1 ms
    r = [L.rate_ratio(x, 0.015, 0.0001) for x in (0.005, 0.01, 0.02, 0.04, 0.08, 0.5)]
    assert all(a > b for a, b in zip(r, r[1:]))
    assert r[-1] == pytest.approx(L.window_ratio() * 0.515 / 0.5001)
    assert L.rate_ratio(0.02, 0.0, 0.0) == pytest.approx(L.window_ratio())
    assert math.isnan(L.rate_ratio(0.02, math.nan, 0.0))
