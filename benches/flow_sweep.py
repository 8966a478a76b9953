"""S2's dumbbell with the number of flows swept: where the cost per packet grows.

    python benches/flow_sweep.py [--flows 10,300,1000,...] [--duration S] [--json OUT]

Each point is the many-flows rows' scenario (``ccsim bench`` S0-S2:
CUBIC/SACK at 10 Gb/s, RTTs over 20-100 ms, starts over 1 s, a BDP/sqrt(N)
bottleneck buffer) with N flows, run in this process with the default
install's engine and measured as ``ccsim bench`` measures a row (a run
shorter than a second is repeated and its fastest kept). Reported per N: wall time of the run and its results,
bottleneck packets per wall-second, the ratio to the first point's (the
many-flows target reads S2 against S0, N = 10,000 against 10), events per
bottleneck packet, and the wall time per bottleneck packet with its
excess over the first point's in nanoseconds.

Why a sweep and not two rows: S2 against S0 says how much slower a packet
is with 10,000 flows, not why. Read against the machine's latency ladder
(``cargo run --release -p ccsim-core --example mem_latency``), the shape
says it: a step where the flows stop sharing the first caches, a plateau
while their state fits the cache the machine keeps close, then a climb as
more of each packet's per-flow state is first touched in memory
(docs/decisions/2026-11-29-s2-against-memory-latency.md).

Run it with nothing else on the machine and pinned to one core
(``taskset -c 1``): a point of a second or more is one run, timed once.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

DEFAULT_FLOWS = (10, 300, 1000, 2000, 3000, 5000, 7000, 10000, 14000, 20000)


def point(flows: int, duration_s: float) -> Dict[str, Any]:
    """One run of S2's scenario with ``flows`` flows for ``duration_s``,
    measured as ``ccsim bench`` measures its rows (:func:`ccsim.bench.measure`:
    the set-up, the run and its results timed; conservation checked)."""
    from ccsim.bench import BENCHMARKS, measure, scale_buffer_pkts

    s2 = BENCHMARKS["S2"]
    b = dataclasses.replace(s2, name=f"S2@{flows}", flows=flows,
                            buffer_pkts=scale_buffer_pkts(s2.rate_bps, flows), duration_s=duration_s)
    row = measure(b)
    pkts = round(row["bottleneck_pkts_per_s"] * row["wall_s"])
    return {
        "flows": flows,
        "buffer_pkts": b.buffer_pkts,
        "duration_s": duration_s,
        "wall_s": row["wall_s"],
        "bottleneck_pkts": pkts,
        "bottleneck_pkts_per_s": row["bottleneck_pkts_per_s"],
        "events_per_bottleneck_pkt": row["events_per_bottleneck_pkt"],
        "ns_per_bottleneck_pkt": 1e9 / row["bottleneck_pkts_per_s"],
        "loss_rate": row["loss_rate"],
    }


def sweep(flows: Sequence[int], duration_s: float) -> List[Dict[str, Any]]:
    rows: List[Dict[str, Any]] = []
    for n in flows:
        r = point(n, duration_s)
        first = rows[0] if rows else r
        r["vs_first_pkts"] = r["bottleneck_pkts_per_s"] / first["bottleneck_pkts_per_s"]
        r["extra_ns_per_pkt"] = r["ns_per_bottleneck_pkt"] - first["ns_per_bottleneck_pkt"]
        rows.append(r)
        print(f"{n:>7} flows  {r['wall_s']:7.3f} s  {r['bottleneck_pkts_per_s'] / 1e3:8,.0f} kpkt/s  "
              f"x{r['vs_first_pkts']:.2f}  {r['events_per_bottleneck_pkt']:.2f} ev/pkt  "
              f"{r['ns_per_bottleneck_pkt']:6.0f} ns/pkt (+{r['extra_ns_per_pkt']:.0f})", file=sys.stderr, flush=True)
    return rows


def _flows(text: str) -> List[int]:
    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of flow counts") from None
    if not out or any(n < 1 for n in out):
        raise argparse.ArgumentTypeError(f"{text!r}: flow counts must be whole numbers of at least 1")
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flows", type=_flows, default=list(DEFAULT_FLOWS),
                    help="flow counts, comma-separated; the first is the reference (default: "
                         + ",".join(map(str, DEFAULT_FLOWS)) + ")")
    ap.add_argument("--duration", type=float, default=5.0, help="simulated seconds per point (default 5, as S2)")
    ap.add_argument("--json", type=Path, default=None, help="write the points here")
    args = ap.parse_args(argv)
    if not args.duration > 0:
        ap.error(f"--duration: {args.duration} is not allowed; a positive number of seconds")
    rows = sweep(args.flows, args.duration)
    text = json.dumps(rows, indent=2)
    if args.json:
        args.json.write_text(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
