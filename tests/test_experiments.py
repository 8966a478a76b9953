"""Paper experiments: the models they rely on, and a quick end-to-end run."""

import pytest
from conftest import assert_conserved

from ccsim import Results

from ccsim.experiments import REGISTRY
from ccsim.models.aimd import mathis_throughput_bps, sawtooth_utilization
from ccsim.models.ltcp import claim_speedup, layer_window, recovery_speedup


def test_sawtooth_limits():
    # B << W: the window swings between W/2 and W, the classical 3/4
    assert sawtooth_utilization(1e5, 0) == pytest.approx(0.75, abs=1e-3)
    # buffer at least the BDP: the link never idles
    assert sawtooth_utilization(100, 100) == pytest.approx(1.0)
    # monotone in the buffer
    assert sawtooth_utilization(1000, 20) < sawtooth_utilization(1000, 200)


def test_mathis_formula():
    assert mathis_throughput_bps(1000, 0.1, 1e-4) == pytest.approx(1.22 * 8000 / (0.1 * 0.01))


def test_ltcp_layer_model_closed_forms():
    # eq. 10 and eq. 14 closed form against the summation
    assert [layer_window(k) for k in (1, 2, 3, 15)] == [0, 50, 200, 28000]
    for k in range(3, 26):
        closed = (layer_window(k) - 50) / ((k - 2) * (k + 3) / 4 * 50)
        assert claim_speedup(k) == pytest.approx(closed)
        assert recovery_speedup(k) == pytest.approx((k - 1) / 0.3)


@pytest.mark.parametrize("exp_id", ["etcp-fig6-baselines", "ltcp-fig6", "ltcp-table2"])
def test_reproduce_quick_gives_checks(tmp_path, exp_id):
    exp = REGISTRY[exp_id]
    checks = exp.run(tmp_path, True, 1)
    assert checks, "an experiment states at least one number"
    for c in checks:
        d = c.to_dict()
        assert set(d) >= {"quantity", "paper", "ccsim", "deviation", "tolerance", "ok"}
    # every run the experiment made conserves packets
    for f in (tmp_path / "runs").glob("*.json"):
        assert_conserved(Results.load(f))
    if exp_id == "etcp-fig6-baselines":
        assert (tmp_path / "etcp-fig6-baselines.png").exists()
        ok = {c.quantity: c.ok for c in checks}
        assert all(ok.values()), ok
    if exp_id == "ltcp-table2":
        assert all(c.ok for c in checks)
