"""Compare two engine builds on one bench row, in pairs run at the same time.

    python benches/pair_ab.py OLD_RUN NEW_RUN ROW [--duration S] [--pairs N] [--json OUT]

``OLD_RUN`` and ``NEW_RUN`` are the engine's ``run`` example of two builds
(``cargo build --release -p ccsim-core --example run`` in two worktrees:
``target/release/examples/run``); ``ROW`` is a ``ccsim bench`` row
(:func:`ccsim.bench.scenario`) or a scenario file (``.toml`` or
``.json``, validated first), cut to ``--duration`` simulated seconds.

Why pairs: on a shared host one binary's wall time wanders by tens of per
cent from run to run (docs/decisions/2026-11-26-paired-timing.md), far more
than most engine changes move it, and interleaving runs one after the
other does not remove a slowdown that lasts a few seconds. Here the two
builds run *at the same time*, each pinned to a core of its own, and
swap cores at every pair, so whatever slows the host meanwhile slows
both; the figure of merit is the median over pairs of new wall / old
wall. With it come a 95% confidence interval for that median (from the
order statistics, distribution-free; six pairs or more) and the sign
test's p-value against "no change" (the median ratio is 1), both from
``scipy.stats.quantile_test``: a change whose interval holds 1 is below
what these pairs can resolve. The interval takes the pairs as
independent; a host's slow spells can span several pairs, so an
interval from a short batch that excludes 1 still wants a second
batch. The script also says whether the two builds' results are the
same (the summary without ``wall_s`` and ``events``): a change meant
to be a pure speed-up must leave them byte-identical.

``--one-core``: each pair's two runs one after the other on one core, the
order alternating. A row that is sensitive to the shared caches (G1, with
megabytes of packets and 50 flows' state touched in turn) can be slowed
by its own twin on the other core more than by the host; then sequential
pairs resolve what simultaneous ones cannot
(docs/decisions/2026-11-27-drr-without-context.md), at the price of the host changing between the two
runs of a pair.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence


def _start(binary: str, scenario_path: str, core: int) -> subprocess.Popen:
    return subprocess.Popen(
        [binary, scenario_path],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: os.sched_setaffinity(0, {core}),
    )


def _finish(p: subprocess.Popen, binary: str) -> Dict[str, Any]:
    out, err = p.communicate()
    if p.returncode != 0:
        raise RuntimeError(f"{binary} exited with {p.returncode}: {err.strip()[-500:]}")
    try:
        return json.loads(out)
    except json.JSONDecodeError as e:
        raise RuntimeError(f"{binary} did not print a JSON summary ({e})") from None


def _comparable(summary: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in summary.items() if k not in ("wall_s", "events")}


def summarize(ratios: Sequence[float]) -> Dict[str, Any]:
    """Median, range, the median's 95% confidence interval (None below six
    pairs, too few for one) and the sign test's p-value for a median of 1."""
    from scipy.stats import quantile_test

    t = quantile_test(list(ratios), q=1.0, p=0.5)
    ci = t.confidence_interval(0.95)
    return {
        "median_ratio": statistics.median(ratios),
        "min_ratio": min(ratios),
        "max_ratio": max(ratios),
        "median_ci95": None if math.isnan(ci.low) else [float(ci.low), float(ci.high)],
        "sign_test_p": float(t.pvalue),
    }


def compare(
    old: str, new: str, scenario_path: str, pairs: int, cores: Sequence[int] = (0, 1), one_core: bool = False
) -> Dict[str, Any]:
    """Run ``pairs`` pairs of the two binaries on the scenario file; the
    walls, the new/old ratio per pair and its median, the event counts,
    and whether the results are the same. ``one_core``: each pair's runs
    in turn on ``cores[0]``, the new build first in every other pair."""
    walls_old: List[float] = []
    walls_new: List[float] = []
    same = True
    events = (None, None)
    for i in range(pairs):
        if one_core:
            done = {}
            for k in (0, 1) if i % 2 == 0 else (1, 0):  # old first in even pairs
                binary = (old, new)[k]
                done[k] = _finish(_start(binary, scenario_path, cores[0]), binary)
            a, b = done[0], done[1]
        else:
            c_old, c_new = (cores[0], cores[1]) if i % 2 == 0 else (cores[1], cores[0])
            p_old = _start(old, scenario_path, c_old)
            p_new = _start(new, scenario_path, c_new)
            a, b = _finish(p_old, old), _finish(p_new, new)
        walls_old.append(a["wall_s"])
        walls_new.append(b["wall_s"])
        same = same and _comparable(a) == _comparable(b)
        events = (a.get("events"), b.get("events"))
    ratios = [n / o for n, o in zip(walls_new, walls_old)]
    return {
        "pairs": pairs,
        "wall_old_s": walls_old,
        "wall_new_s": walls_new,
        "ratio_new_over_old": ratios,
        **summarize(ratios),
        "events_old": events[0],
        "events_new": events[1],
        "same_results": same,
    }


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", help="the old build's run example (target/release/examples/run)")
    ap.add_argument("new", help="the new build's run example")
    ap.add_argument("row", help="a ccsim bench row (B3, X1, G1, ...) or a scenario file (.toml, .json)")
    ap.add_argument("--duration", type=float, default=None, help="simulated seconds (default: the row's)")
    ap.add_argument("--pairs", type=int, default=10, help="pairs to run (default 10)")
    ap.add_argument("--json", type=Path, default=None, help="write the comparison here")
    ap.add_argument(
        "--one-core",
        action="store_true",
        help="run each pair's two builds one after the other on one core, order alternating",
    )
    args = ap.parse_args(argv)

    from ccsim import UserError, load_scenario
    from ccsim.bench import BENCHMARKS, scenario

    is_file = args.row.endswith((".toml", ".json"))
    if not is_file and args.row not in BENCHMARKS:
        ap.error(
            f"row: unknown bench row {args.row!r}; allowed: {', '.join(BENCHMARKS)}, or a scenario file (.toml, .json)"
        )
    if args.pairs < 1:
        ap.error(f"--pairs: {args.pairs} is not allowed; at least 1")
    if args.duration is not None and not args.duration > 0:
        ap.error(f"--duration: {args.duration} is not allowed; a positive number of seconds")
    for name, path in (("old", args.old), ("new", args.new)):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            ap.error(f"{name}: {path!r} is not an executable file")
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2 and not args.one_core:
        ap.error(f"pairs need two cores to run on; this process may use {len(cores)} (or use --one-core)")

    try:
        sc = load_scenario(args.row) if is_file else scenario(args.row)
        if args.duration is not None:
            sc = sc.replace(duration_s=args.duration)
        sc.validate()
    except UserError as e:
        ap.error(f"row: {e}")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "scenario.json")
        Path(path).write_text(sc.to_json())
        try:
            r = compare(args.old, args.new, path, args.pairs, cores[:2], one_core=args.one_core)
        except RuntimeError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
    r["row"] = args.row if not is_file else os.path.basename(args.row)
    r["duration_s"] = sc.duration_s
    print(
        f"{r['row']} ({sc.duration_s:g} s), {args.pairs} pairs: new/old median {r['median_ratio']:.3f} "
        f"[{r['min_ratio']:.3f}, {r['max_ratio']:.3f}], 95% CI "
        + ("needs 6 pairs" if r["median_ci95"] is None else "[{:.3f}, {:.3f}]".format(*r["median_ci95"]))
        + f", sign test p {r['sign_test_p']:.2g}; old median {statistics.median(r['wall_old_s']):.3f} s, "
        f"new median {statistics.median(r['wall_new_s']):.3f} s; events {r['events_old']} -> {r['events_new']}; "
        f"results {'identical' if r['same_results'] else 'DIFFER'}"
    )
    if args.json:
        args.json.write_text(json.dumps(r, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
