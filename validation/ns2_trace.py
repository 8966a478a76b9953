"""A benchmark dumbbell in ns-2.35 and in ccsim's ns-2 mode, compared event
by event at the bottleneck: where do the two runs first differ?

    python -m validation.ns2_trace [--row B3] [--duration 60] [--seed 1]
        [--clock | --no-clock] [--out DIR]

ns-2 runs ``benches/peer_ns2.py``'s program of the row (Agent/TCP/Newreno
or Sack1, ``$defaultRNG seed SEED``) with ``trace-queue`` on r1 -> r2;
ccsim runs the same scenario with every flow in ns-2 mode
(:func:`ccsim.experiments._kit.ns2ref.ns2_mode`), each agent's tick phase
drawn from ns-2's stream for the seed (``ns2_phases``) and, with
``--clock`` (the default), ns-2's event order down to its floating-point
clock (``ties = "ns2"`` on every queue, ``ns2_clock = true``: events tied
on one picosecond run in the order of the ``double`` times ns-2 gives
them). Both traces are read as (event, time to 1 us, flow, segment),
sorted within each microsecond, and compared; prints the number of
identical events and the events around the first difference
(docs/validation.md, "ns-2's floating-point clock").

Needs ``ns`` (apt-get install ns2).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Tuple

import ccsim
from ccsim.bench import scenario as bench_scenario
from ccsim.experiments._kit import ns2ref

from .gwa_trace import Event, first_difference, load, traced

HERE = Path(__file__).resolve().parent


def peer():
    """benches/peer_ns2.py (the ns-2 program of a benchmark row)."""
    spec = importlib.util.spec_from_file_location("peer_ns2", HERE.parent / "benches" / "peer_ns2.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["peer_ns2"] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def ns2_mode_scenario(d: dict, clock: bool = True) -> dict:
    """Benchmark dumbbell ``d`` as ns-2 runs it: one flow entry per host in
    ns-2 mode, each agent's tick phase drawn as ns-2 draws it, and the
    queues in ns-2's event order: with ``clock`` down to its floating-point
    clock (:func:`ns2ref.ns2_clock_topology`), else ``arrival_first``
    (:func:`ns2ref.ns2_topology`)."""
    d = json.loads(json.dumps(d))
    flows = [dict(ns2ref.ns2_mode(f), count=1) for f in d["flows"] for _ in range(f.get("count", 1))]
    sc = dict(d, flows=flows)
    sc = ns2ref.ns2_clock_scenario(sc) if clock else dict(sc, topology=ns2ref.ns2_topology(sc["topology"]))
    return ns2ref.ns2_phases(sc)


def compare(row: str, duration: float, seed: int, clock: bool, workdir: str) -> Tuple[int, List[Event], List[Event]]:
    """Run both; (events identical from the start, ns-2's, ccsim's)."""
    d = bench_scenario(row).to_dict()
    d.update(duration_s=duration, seed=seed)
    ns_tr, cc_tr, prog = (os.path.join(workdir, n) for n in ("ns2.tr", "ccsim.tr", "row.tcl"))
    tcl = peer().ns2_script(d, rng_seed=seed)
    tcl = tcl.replace("set qmon", f"$ns trace-queue $r1 $r2 [open {ns_tr} w]\nset qmon", 1)
    Path(prog).write_text(tcl)
    subprocess.run(["ns", prog], check=True, capture_output=True, cwd=workdir)
    ccsim.run(ns2_mode_scenario(d, clock), trace={"r0->r1": cc_tr})
    # both number the hosts as ns-2's script does: r0, r1, then s_i, d_i
    a, b = load(ns_tr, True), load(cc_tr, True)
    return first_difference(a, b), a, b


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--row", default="B3", help="a benchmark row ns-2 can run (B1, B2, B3, B5, ...)")
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--clock", action=argparse.BooleanOptionalAction, default=True,
                    help="ns-2's floating-point clock in ccsim (default on)")
    ap.add_argument("--out", help="keep the traces and the Tcl program here")
    a = ap.parse_args(argv)
    res = traced(a.out, lambda d: compare(a.row, a.duration, a.seed, a.clock, d))
    if res is None:
        return 2
    same, ns2, cc = res
    return 0 if same == len(ns2) == len(cc) else 1


if __name__ == "__main__":
    sys.exit(main())
