"""Train a small learned congestion controller on ccsim's Gymnasium
environment, and plot its reward over the training steps.

The policy is linear-Gaussian over the last observations (``ccsim.gym``'s
Aurora-style features) and learns by REINFORCE with a running baseline
(Williams 1992), written with numpy alone so the example needs nothing
beyond ccsim and gymnasium (``pip install gymnasium``). It runs one
environment per core (``ccsim.gym.make_vec``). A few minutes teach it to
fill the pipe without a standing queue on the default scenario ranges;
``--steps 50`` is the quick check CI runs.

    python examples/gym_train.py --minutes 3 --out gym-train/
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

import ccsim.gym as cgym


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=3.0, help="training time (default 3)")
    ap.add_argument("--steps", type=int, default=None, help="stop after this many steps per environment instead")
    ap.add_argument("--envs", type=int, default=None, help="environments (default one per core)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lr", type=float, default=0.01, help="learning rate")
    ap.add_argument("--out", default="gym-train", help="where reward.png and reward.json go")
    a = ap.parse_args(argv)

    envs = cgym.make_vec(a.envs, ranges=cgym.ScenarioRanges(duration_s=5.0), history=4)
    n = envs.num_envs
    obs, _ = envs.reset(seed=a.seed)
    dim = obs[0].size
    rng = np.random.default_rng(a.seed)
    w = np.zeros(dim)  # the policy's mean action: tanh(w . obs)
    sigma, baseline = 0.3, 0.0
    steps, rewards, t0 = 0, [], time.time()
    grads = [np.zeros(dim) for _ in range(n)]
    returns = np.zeros(n)
    while True:
        x = obs.reshape(n, -1).astype(np.float64)
        mean = np.tanh(x @ w)
        act = np.clip(mean + sigma * rng.standard_normal(n), -1, 1)
        for i in range(n):  # d log pi / d w of a Gaussian around tanh(w.x)
            grads[i] += (act[i] - mean[i]) / sigma**2 * (1 - mean[i] ** 2) * x[i]
        obs, r, term, trunc, _ = envs.step(act.reshape(n, 1).astype(np.float32))
        returns += r
        rewards.append(float(np.mean(r)))
        steps += 1
        for i in np.flatnonzero(term | trunc):  # an episode ended: one policy-gradient step
            baseline = 0.9 * baseline + 0.1 * returns[i]
            w += a.lr * (returns[i] - baseline) * grads[i] / max(1, steps)
            grads[i][:] = 0
            returns[i] = 0
        if (a.steps is not None and steps >= a.steps) or (a.steps is None and time.time() - t0 > a.minutes * 60):
            break
    wall = time.time() - t0
    envs.close()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "reward.json").write_text(json.dumps({"steps": steps, "envs": n, "wall_s": wall,
                                                 "env_steps_per_s": steps * n / wall, "reward": rewards}))
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    k = max(1, len(rewards) // 100)
    smooth = np.convolve(rewards, np.ones(k) / k, mode="valid")
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(np.arange(len(rewards)), rewards, lw=0.5, alpha=0.4, label="mean over environments")
    ax.plot(np.arange(k - 1, len(rewards)), smooth, lw=1.5, label=f"moving mean of {k}")
    ax.set_xlabel("step (one monitor interval per environment)")
    ax.set_ylabel("reward")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "reward.png", dpi=120)
    print(f"{steps} steps x {n} environments in {wall:.1f} s ({steps * n / wall:,.0f} environment steps/s); "
          f"wrote {out / 'reward.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
