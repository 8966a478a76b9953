"""Environment steps per second of ``ccsim.gym`` (one step: one monitor
interval of simulated time, the agent's action applied and the observation
made), for a few scenario ranges, one environment in this process and a
vector of one per core in worker processes.

    python benches/gym_steps.py [--seconds S] [--json OUT]

Each case runs whole episodes for about ``--seconds`` of wall time under a
fixed delay-based policy (grow the window by 2^0.2 per interval while the
latency ratio is below 1.2, else shrink it by as much), so that one
environment and each of a vector's do the same kind of work per step, and
reports steps per wall-second and simulated seconds per wall-second.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from typing import Any, Dict, List, Optional

import numpy as np

import ccsim
import ccsim.gym as cgym

CASES = {
    "10M-alone": cgym.ScenarioRanges(rate_bps=(10e6, 10e6), rtt_s=(0.04, 0.04), cross_flows=(0, 0), duration_s=10.0),
    "100M-2cross": cgym.ScenarioRanges(rate_bps=(100e6, 100e6), rtt_s=(0.04, 0.04), cross_flows=(2, 2),
                                       cross_cc=("cubic",), duration_s=10.0),
    "default-ranges": cgym.ScenarioRanges(),
    "1G-4cross": cgym.ScenarioRanges(rate_bps=(1e9, 1e9), rtt_s=(0.04, 0.04), cross_flows=(4, 4),
                                     cross_cc=("cubic",), duration_s=10.0),
}


def one(name: str, seconds: float, vector: int) -> Dict[str, Any]:
    ranges = CASES[name]
    if vector > 1:
        env = cgym.make_vec(vector, ranges=ranges)
        env.reset(seed=1)
        n = env.num_envs
    else:
        env = cgym.CcEnv(ranges=ranges)
        env.reset(seed=1)
        n = 1
    obs = np.ones((n, 1, cgym.N_FEATURES), dtype=np.float32)
    steps, sim_s, t0 = 0, 0.0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        a = np.where(obs.reshape(n, -1, cgym.N_FEATURES)[:, -1, 1] < 1.2, 0.2, -0.2).reshape(n, 1).astype(np.float32)
        if vector > 1:
            obs, _, term, trunc, info = env.step(a)
            sim_s += float(np.sum(info.get("interval_s", 0.0)))  # absent at an autoreset
        else:
            o, _, term, trunc, info = env.step(a[0])
            obs = o[None]
            sim_s += info["interval_s"]
            if term:
                env.reset()
        steps += n
    wall = time.perf_counter() - t0
    env.close()
    return {"case": name, "envs": n, "steps": steps, "wall_s": wall, "steps_per_s": steps / wall,
            "sim_s_per_wall_s": sim_s / wall}


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="wall seconds per case (default 10)")
    ap.add_argument("--json", metavar="OUT", help="write the rows as JSON")
    a = ap.parse_args(argv)
    rows = []
    cores = os.cpu_count() or 1
    print(f"{'case':16} {'envs':>4} {'steps/s':>10} {'sim s/wall s':>13}")
    for name in CASES:
        for vector in (1, cores):
            if vector == 1 or cores > 1:
                r = one(name, a.seconds, vector)
                rows.append(r)
                print(f"{r['case']:16} {r['envs']:4d} {r['steps_per_s']:10,.0f} {r['sim_s_per_wall_s']:13.1f}",
                      flush=True)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"ccsim": ccsim.__version__, "python": sys.version.split()[0], "machine": platform.machine(),
                       "cpus": cores, "rows": rows}, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
