"""H-TCP paper: the positive-matrix model against hand-computed truths, the
cwnd-series event detection on constructed series, and a quick end-to-end
run of every htcp-* experiment."""

import math

import numpy as np
import pytest
from conftest import assert_conserved

from ccsim import Results
from ccsim.experiments import htcp as H
from ccsim.experiments._kit import analysis as A
from ccsim.models import htcp as M
from ccsim.models.aimd import sawtooth_utilization

# -- eq. 6 and Theorem 2.1 --------------------------------------------------------


def test_two_flow_matrix_by_hand():
    # alpha = (1, 2), beta = (0.5, 0.25): A = diag(beta) + alpha (1-beta)^T / 3
    A = M.network_matrix([1, 2], [0.5, 0.25])
    want = np.array([[0.5 + 0.5 / 3, 0.75 / 3],
                     [2 * 0.5 / 3, 0.25 + 2 * 0.75 / 3]])
    np.testing.assert_allclose(A, want)
    # column-stochastic: total window conserved (eq. 1)
    np.testing.assert_allclose(A.sum(axis=0), [1.0, 1.0])


@pytest.mark.parametrize("a1,b1,a2,b2", [(1, 0.5, 1, 0.5), (1, 0.5, 1.5, 0.25), (1, 0.5, 0.4, 0.8),
                                         (3, 0.7, 1, 0.2), (1, 0.9, 10, 0.1)])
def test_two_flow_lambda2_closed_form(a1, b1, a2, b2):
    lam = M.second_eigenvalue([a1, a2], [b1, b2])
    # eigenvalues 1 and det A = (a1 b2 + a2 b1) / (a1 + a2)
    assert lam == pytest.approx((a1 * b2 + a2 * b1) / (a1 + a2), abs=1e-12)
    assert lam == pytest.approx(M.two_flow_lambda2(a1, b1, a2, b2), abs=1e-12)
    assert lam == pytest.approx(np.linalg.det(M.network_matrix([a1, a2], [b1, b2])), abs=1e-12)
    ev = M.eigenvalues([a1, a2], [b1, b2])
    assert ev[0] == pytest.approx(1.0, abs=1e-12)
    # [4]: eigenvalues lie in [min beta, max beta] apart from the Perron root
    assert min(b1, b2) - 1e-12 <= lam <= max(b1, b2) + 1e-12


def test_perron_vector_is_the_unit_eigenvector_and_normalised():
    alpha, beta = [1, 2, 1, 1.5], [0.5, 0.5, 0.75, 0.25]
    x = M.perron_vector(alpha, beta)
    # alpha/(1-beta) = 2, 4, 4, 2 -> shares 1/6, 1/3, 1/3, 1/6
    np.testing.assert_allclose(x, [1 / 6, 1 / 3, 1 / 3, 1 / 6])
    assert x.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(M.network_matrix(alpha, beta) @ x, x, atol=1e-12)
    # scaled by eq. 1: sum = P + sum(alpha)
    w = M.fixed_point(alpha, beta, pipe_pkts=160)
    assert w.sum() == pytest.approx(160 + 5.5)
    np.testing.assert_allclose(w / w.sum(), x)


def test_equal_backoff_eigenvalues():
    # beta_i = beta for all i: A = beta I + (1-beta) alpha 1^T / sum(alpha),
    # a rank-one update: eigenvalues 1 and beta (n-1 times)
    ev = M.eigenvalues([1, 2, 3, 4], [0.6] * 4)
    np.testing.assert_allclose(ev, [1, 0.6, 0.6, 0.6], atol=1e-12)


def test_rise_time_and_the_printed_formula():
    # beta = 0.5: 95% of the way means 0.5^n = 0.05
    assert M.rise_time(0.5) == pytest.approx(math.log(0.05) / math.log(0.5))
    assert M.rise_time(0.5) == pytest.approx(4.3219, abs=1e-4)
    assert M.rise_time_printed(0.5) == pytest.approx(0.0740, abs=1e-4)
    with pytest.raises(ValueError):
        M.rise_time(1.0)


def test_trajectory_converges_at_lambda2():
    alpha, beta = [1, 1], [0.5, 0.5]
    traj = M.trajectory(alpha, beta, [160, 2], 40)
    # total conserved, shares converge to the Perron vector
    np.testing.assert_allclose(traj.sum(axis=1), 162)
    np.testing.assert_allclose(traj[-1] / 162, [0.5, 0.5], atol=1e-9)
    # distance to the fixed point halves every epoch exactly
    d = np.abs(traj[:, 0] - 81)
    np.testing.assert_allclose(d[1:] / d[:-1], 0.5)
    # 95%: first k with 0.5^k <= 0.05 is 5 = ceil(4.32)
    assert M.epochs_to_converge(traj, [0.5, 0.5]) == math.ceil(M.rise_time(0.5))


def test_unsynchronised_expected_matrix():
    # equal drop probabilities leave the fixed point unchanged
    np.testing.assert_allclose(M.unsync_fixed_point_shares([1, 2], [0.5, 0.5], [0.6, 0.6]),
                               M.perron_vector([1, 2], [0.5, 0.5]))
    # alpha_bar = (1, 1), beta = 0.5, p = (1, 0.5): 1/(1*0.5) : 1/(0.5*0.5) = 1 : 2
    np.testing.assert_allclose(M.unsync_fixed_point_shares([1, 1], [0.5, 0.5], [1.0, 0.5]), [1 / 3, 2 / 3])
    np.testing.assert_allclose(M.expected_beta([0.5, 0.8], [1.0, 0.5]), [0.5, 0.9])
    # with only the synchronised pattern the random product is eq. 5
    run = M.random_product_mean([1, 2], [0.5, 0.25], [[True, True]], [100, 10], 20)
    traj = M.trajectory([1, 2], [0.5, 0.25], [100, 10], 20)[1:]
    np.testing.assert_allclose(run[-1], traj.mean(axis=0))
    # and its empirical mean goes to the expected-matrix fixed point
    pats = [[True, False], [False, True], [True, True]]
    m = M.random_product_mean([1, 1], [0.5, 0.5], pats, [80, 80], 20000, seed=3)[-1]
    p = np.array([2 / 3, 2 / 3])  # each flow drops in 2 of the 3 equally likely patterns
    np.testing.assert_allclose(m / m.sum(), M.unsync_fixed_point_shares([1, 1], [0.5, 0.5], p), atol=0.01)


def test_htcp_increase_and_fluid_epoch():
    assert M.htcp_alpha_h(0.5) == 1.0
    assert M.htcp_alpha_h(2.0) == pytest.approx(11.25)
    assert M.htcp_alpha_h(5.0) == pytest.approx(45.0)
    # buffer = BDP: beta 0.5 never takes the window below the BDP
    assert M.sync_htcp_epoch(1, 0.5, 100, 100, 0.1, delta_l_s=1e6)["utilization"] == pytest.approx(1.0)
    # no buffer, standard TCP (alpha 1 forever): the classical 3/4 sawtooth
    u = M.sync_htcp_epoch(1, 0.5, 1000, 0, 0.1, delta_l_s=1e6)["utilization"]
    assert u == pytest.approx(sawtooth_utilization(1000, 0), abs=0.01)


# -- congestion events from constructed series ---------------------------------------------


def _fake(series_by_flow):
    cols = {"time_s": [], "flow": [], "cwnd": [], "ssthresh": [], "srtt_s": [], "goodput_bps": []}
    for f, (t, cw, ss) in series_by_flow.items():
        cols["time_s"] += list(t)
        cols["flow"] += [f] * len(t)
        cols["cwnd"] += list(cw)
        cols["ssthresh"] += list(ss)
        cols["srtt_s"] += [0.1] * len(t)
        cols["goodput_bps"] += [0.0] * len(t)
    return Results({"flows": [], "links": [], "series": {"flows": cols}})


def test_backoffs_and_events_from_cwnd():
    t = np.round(np.arange(0, 10, 0.01), 2)
    # flow 0: slow start to 64 then backoff at 1.00 (to 32), CA backoffs at 4.00 and 7.00 (beta 0.8)
    cw0 = np.where(t < 1.0, np.minimum(2 ** (t * 10), 64), 32 + (t - 1.0) * 10)
    ss0 = np.where(t < 1.0, 1e9, 32.0)
    for tb in (4.0, 7.0):
        before = np.interp(tb - 0.01, t, cw0)
        cw0 = np.where(t >= tb, 0.8 * before + (t - tb) * 10, cw0)
        ss0 = np.where(t >= tb, 0.8 * before, ss0)
    # flow 1 starts at 2 s, backs off at 4.05 (same event) but not at 7.00
    cw1 = np.where(t < 4.05, 2 + np.maximum(t - 2, 0) * 10, 11.0 + (t - 4.05) * 10)
    ss1 = np.where(t < 2.5, 1e9, np.where(t < 4.05, 2.0, 11.0))
    res = _fake({0: (t, cw0, ss0), 1: (t, cw1, ss1)})
    bo = A.backoffs(res, merge_s=0.2)
    assert list(bo.flow) == [0, 0, 1, 0]
    assert list(bo.time_s) == [1.0, 4.0, 4.05, 7.0]
    assert bool(bo.slow_start.iloc[0]) and not bo.slow_start.iloc[1:].any()
    np.testing.assert_allclose(bo.beta.iloc[[1, 3]], 0.8, rtol=1e-9)
    ev = A.congestion_events(res, bo, [0.0, 2.0], gap_s=0.2)
    assert list(ev.k) == [0, 1, 2]
    assert math.isnan(ev.w1.iloc[0])  # flow 1 not started yet
    assert list(ev.n_drops) == [1, 2, 1]
    assert bool(ev.drop1.iloc[1]) and not bool(ev.drop1.iloc[2])
    assert ev.w1.iloc[1] == pytest.approx(22.4)  # just before its own backoff
    assert ev.w1.iloc[2] == pytest.approx(np.interp(6.99, t, cw1))  # just before the event


def test_aimd_flow_expresses_alpha():
    f = H.aimd_flow(1.0, 0.5, 10e6)
    assert f["cc_params"] == {"delta_l_s": 1e6, "adaptive_backoff": False, "fixed_beta": 0.5}
    f = H.aimd_flow(2.0, 0.5, 10e6, rtt_s=0.1)
    assert f["cc_params"]["rtt_scaling"] is True
    # RTT_min / rtt_ref = 2 when RTT_min is the empty-queue RTT
    assert H.base_rtt_s(0.1, 10e6) / f["cc_params"]["rtt_ref_s"] == pytest.approx(2.0)
    with pytest.raises(ValueError):
        H.aimd_flow(50.0, 0.5, 10e6)


# -- quick end-to-end runs -----------------------------------------------------------------

HTCP_IDS = ["htcp-fig2", "htcp-model", "htcp-fig10", "htcp-fig11", "htcp-fig12-13", "htcp-fig14"]


@pytest.mark.parametrize("exp_id", HTCP_IDS)
def test_htcp_quick_gives_checks(quick_run, exp_id):
    tmp_path, checks = quick_run(exp_id)
    assert checks
    for c in checks:
        d = c.to_dict()
        assert set(d) >= {"quantity", "paper", "ccsim", "deviation", "tolerance", "ok"}
        assert d["ccsim"] is not None, d
    runs = list((tmp_path / "runs").glob("*.json"))
    assert runs
    for f in runs:
        assert_conserved(Results.load(f))
    assert (tmp_path / f"{exp_id}.png").exists()
    assert (tmp_path / f"{exp_id}.csv").exists()
    # ccsim's models hold in these quick runs (paper checks are not asserted:
    # test_experiments.py snapshots every value instead)
    ok = {c.quantity: c.ok for c in checks if c.source != "paper"}
    # (htcp-fig10's contraction per epoch is fitted to the quick run's few
    # epochs: one changed drop moves it past its tolerance, as ns-2's tie
    # order did; the snapshot keeps its value instead.)
    if exp_id in ("htcp-fig11", "htcp-fig12-13"):
        assert all(ok.values()), ok
