"""``ltcp-fig7``'s full-run scenario over seeds and arrival offsets.

    python -m validation.ltcp_fig7_seeds [--seeds 1 2 3 4 5] [--offsets 0] [--duration 600] [--out FILE.json]

The scenario is the experiment's own (``ccsim.experiments.first_stage`` of
``ltcp-fig7``, full run: 1 Gb/s, 6000-packet DropTail, flows in ns-2 mode),
cut at ``--duration`` (600 s covers the 2- and 3-flow phases, whose
second-half Jain indices miss). ``--seeds`` changes only what the seed
draws (each ns-2-mode flow's tick phase, ``boot_time_``); ``--offsets``
shifts the 2nd, 3rd and 4th arrivals (and their phases) by that many
seconds, which moves where in the first flow's ~15-20 s loss cycle each
newcomer arrives (the paper's arrival times fix it once for its run).
Each phase is analysed as ``ltcp-fig7`` does: the mean goodput of every
active flow over the phase's second half, Jain's index over those.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

import ccsim
from ccsim.experiments import first_stage
from ccsim.experiments._kit.analysis import jain
from ccsim.experiments.ltcp import fig7


def scenario(seed: int, offset: float, duration: float) -> Dict[str, Any]:
    sc = copy.deepcopy(dict(first_stage(fig7, False)[0].base))
    sc["seed"] = seed
    sc["duration_s"] = duration
    for f in sc["flows"][1:]:
        f["start_s"] += offset
        if f.get("stop_s") is not None:
            f["stop_s"] += offset
    return sc


def phases(res, offset: float, duration: float) -> List[Dict[str, Any]]:
    gp = res.flow_series.pivot(index="time_s", columns="flow", values="goodput_bps") / 1e6
    starts = [0.0] + [s + offset for s in fig7.PAPER["starts_s"][1:]]
    bounds = [b for b in starts if b < duration] + [duration]
    out = []
    for n, (a, b) in enumerate(zip(bounds, bounds[1:]), start=1):
        win = gp[(gp.index > a + 0.5 * (b - a)) & (gp.index <= b)]
        means = [float(win[i].mean()) for i in range(n)]
        out.append({"phase_start_s": a, "phase_end_s": b, "flows": n, "jain": jain(means), "means_mbps": means})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    ap.add_argument("--offsets", type=float, nargs="+", default=[0.0])
    ap.add_argument("--duration", type=float, default=600.0)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    rows = []
    for off in args.offsets:
        for seed in args.seeds:
            t0 = time.perf_counter()
            res = ccsim.run(scenario(seed, off, args.duration))
            ph = phases(res, off, args.duration)
            rows.append({"seed": seed, "offset_s": off, "phases": ph, "wall_s": time.perf_counter() - t0})
            print(f"offset {off:4.1f} s, seed {seed}: " + "; ".join(
                f"{p['flows']} flows Jain {p['jain']:.4f} ({' '.join(f'{m:.0f}' for m in p['means_mbps'])})"
                for p in ph if p["flows"] > 1), flush=True)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
