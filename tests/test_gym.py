"""The Gymnasium environment (``ccsim.gym``): Gymnasium's own checker, the
determinism a seeded reset promises, the observation's meaning on a path
whose answer is known, the vectorised form with real worker processes, and
the training example as CI runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402

import ccsim.gym as cgym  # noqa: E402
from ccsim import UserError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def test_check_env_passes_for_both_actions():
    for action in ("cwnd", "rate"):
        check_env(cgym.CcEnv(action=action, ranges=cgym.ScenarioRanges(duration_s=2.0)), skip_render_check=True)


def _episode(env, seed, actions):
    obs, info = env.reset(seed=seed)
    out = [(obs.tolist(), None)]
    sc = json.loads(json.dumps(info["scenario"]))
    sc["flows"][0].pop("cc_params")  # names the environment object
    for a in actions:
        obs, r, term, trunc, _ = env.step(np.array([a], dtype=np.float32))
        out.append((obs.tolist(), r))
        if term:
            break
    return sc, out


def test_a_seeded_reset_and_the_same_actions_give_the_same_episode():
    env = cgym.CcEnv(ranges=cgym.ScenarioRanges(duration_s=3.0))
    acts = np.random.default_rng(0).uniform(-1, 1, 200)
    a = _episode(env, 11, acts)
    b = _episode(cgym.CcEnv(ranges=cgym.ScenarioRanges(duration_s=3.0)), 11, acts)
    assert a == b
    c = _episode(env, 12, acts)
    assert c[0] != a[0], "another seed draws another scenario"


def test_the_drawn_scenario_stays_in_its_ranges():
    r = cgym.ScenarioRanges(rate_bps=(2e7, 4e7), rtt_s=(0.03, 0.05), buffer_bdp=(1, 1), cross_flows=(1, 3),
                            cross_cc=("cubic",), duration_s=1.0)
    env = cgym.CcEnv(ranges=r)
    for seed in range(20):
        _, info = env.reset(seed=seed)
        sc = info["scenario"]
        assert 2e7 <= sc["topology"]["bottleneck_rate_bps"] <= 4e7
        assert 1 <= len(sc["flows"]) - 1 <= 3 and {f["cc"] for f in sc["flows"][1:]} == {"cubic"}
        assert all(0.03 <= f["rtt_s"] <= 0.05 for f in sc["flows"])


def test_a_rate_controlled_flow_alone_delivers_its_rate_without_a_queue():
    # alone on a 20 Mb/s path, paced at 10 Mb/s (absolute action 0 of
    # [0, 20 Mb/s]): it delivers its rate, never loses, and its RTT stays
    # at the base RTT (gradient 0) but for the receiver's delayed ACK,
    # which holds the first of two segments one packet gap at the paced
    # rate (1500 B at 10 Mb/s: 1.2 ms of the 40 ms)
    r = cgym.ScenarioRanges(rate_bps=(2e7, 2e7), rtt_s=(0.04, 0.04), cross_flows=(0, 0), duration_s=4.0)
    env = cgym.CcEnv(ranges=r, action="rate", action_scale="absolute", rate_range_bps=(1.0, 2e7 - 1.0),
                     monitor_interval=0.2)
    env.reset(seed=0)
    infos = []
    for _ in range(20):
        obs, rew, term, _, info = env.step(np.array([0.0], dtype=np.float32))
        infos.append(info)
    late = infos[5:]
    assert all(i["lost_pkts"] == 0 for i in infos)
    goodput = np.mean([i["delivery_rate_bps"] for i in late])
    assert goodput == pytest.approx(1e7, rel=0.03)
    gap_s = 1500 * 8 / 1e7
    assert 1.0 <= obs[-1][1] <= 1.0 + gap_s / 0.04 + 0.002 and abs(obs[-1][0]) < 0.01
    assert obs[-1][2] == pytest.approx(1.0, abs=0.05), "as much sent as delivered"


def test_a_window_far_above_the_path_fills_the_queue_and_loses():
    r = cgym.ScenarioRanges(rate_bps=(1e7, 1e7), rtt_s=(0.04, 0.04), buffer_bdp=(1, 1), cross_flows=(0, 0),
                            duration_s=4.0)
    env = cgym.CcEnv(ranges=r, action="cwnd", action_scale="absolute", cwnd_range_pkts=(2, 400),
                     monitor_interval=0.2)
    env.reset(seed=0)
    lost, ratios = 0, []
    for _ in range(20):
        obs, rew, term, _, info = env.step(np.array([1.0], dtype=np.float32))
        lost += info["lost_pkts"]
        ratios.append(obs[-1][1])
    assert lost > 0 and max(ratios) > 1.5, "a standing queue doubles the RTT and overflows"


def test_bad_settings_are_refused_by_name():
    with pytest.raises(UserError, match="action: 'window'"):
        cgym.CcEnv(action="window")
    with pytest.raises(UserError, match=r"ScenarioRanges.rtt_s"):
        cgym.CcEnv(ranges=cgym.ScenarioRanges(rtt_s=(0.1, 0.01)))
    with pytest.raises(UserError, match="monitor_interval"):
        cgym.CcEnv(monitor_interval=-1)


def test_gymnasium_make_and_the_vector_form_with_worker_processes():
    env = gymnasium.make("ccsim/CongestionControl-v0", ranges=cgym.ScenarioRanges(duration_s=1.0))
    env.reset(seed=1)
    env.close()
    vec = cgym.make_vec(2, ranges=cgym.ScenarioRanges(duration_s=1.0))
    try:
        obs, _ = vec.reset(seed=5)
        assert obs.shape == (2, 10, cgym.N_FEATURES)
        for _ in range(5):
            obs, r, term, trunc, _ = vec.step(np.zeros((2, 1), dtype=np.float32))
        assert r.shape == (2,) and np.isfinite(r).all()
    finally:
        vec.close()


def test_the_training_example_runs_a_few_steps(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "gym_train.py"), "--steps", "30",
                          "--out", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    rec = json.loads((tmp_path / "reward.json").read_text())
    assert rec["steps"] >= 30 and len(rec["generations"]) == 1 and len(rec["held_out"]) == 2
    assert (tmp_path / "reward.png").stat().st_size > 1000
