"""ccsim against ns-3 3.44 on the same benchmark scenarios, in one run.

    python benches/peer_ns3.py [--quick] [--duration S] [--rounds N] [--json OUT.json] [NAME ...]

For each row measured against ns-3 (``ccsim bench``'s M rows: ``M-bbr``,
``M-dctcp-red``, ``M-cubic-fqcodel``; issue 51 also names TCP Prague over
DualPI2: ccsim has both, ns-3 3.44 neither) it runs
the ccsim row (``ccsim bench``'s child process: the engine's wall time,
building the simulation and running it) and the same dumbbell in ns-3 3.44
(``validation/ns3/dumbbell.cc``, the program of the ns-3 comparisons, built
by ``validation.ns3_suite.build``), and reports both wall times and the
ratio of bottleneck packets per wall-second. Issue 51's target is at least
100x.

The scenario comes from the ns-3 comparisons' mapping, not from a second
one: each row is a :class:`validation.ns3_bbr.Scenario` (BBR) or
:class:`validation.ns3_aqm.Scenario` (DCTCP over RED's step, CUBIC over
FQ-CoDel), whose ``ns3_args()`` give ns-3's side; the bench row's ccsim
scenario must equal that scenario's ``ccsim_scenario()`` in topology and
flows (:func:`check_same`), or the row is refused.

ns-3's time is ``Simulator::Run`` alone, as the ns-3 suites measure it, run
with ``--lean=1``: only the bottleneck's transmissions are counted (one
trace callback per packet), with no per-packet queue, window or socket
traces, and warm-up 0 (both sides count every packet of the run). ns-3 is
the pip wheel ``ns3==3.44.post0`` (a release build with logging and asserts
compiled in); ns-3 runs once per round, ccsim as ``ccsim bench`` does
(short rows repeated up to 1 s, the fastest kept). ns-3's CPU time (user
and system, of the whole process: set-up included) is reported beside its
wall time: on a shared machine the wall time grows and the CPU time
hardly.

Issue 54's S1 (1,000 CUBIC flows with SACK at 10 Gb/s, RTTs over 20-100 ms
and starts over 1 s as ccsim draws them, delayed ACKs: ``ccsim bench``'s
row, not an ns-3 comparison's) is run by name, with its own mapping
(:mod:`validation.ns3_scale`: every ns-3 attribute and what differs) under
the same :func:`check_same`, the seed included. At 10 Gb/s ns-3 needs
hours for its 5 s; ``--duration`` cuts both sides short.
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ccsim.bench import BENCHMARKS, QUICK_FACTOR, fastest_of_rounds, run_isolated, scenario  # noqa: E402
from validation import ns3_aqm, ns3_bbr, ns3_scale, ns3_suite  # noqa: E402

#: The rows, in the order issue 51 names them.
ROWS = ("M-bbr", "M-dctcp-red", "M-cubic-fqcodel")
#: Rows issue 51 names that cannot run yet.
MISSING = {"M-prague-dualpi2": "TCP Prague over DualPI2: ccsim has both (cc = \"prague\", dualpi2); ns-3 3.44 has "
                                "neither"}
#: Measurement options of the ns-3 program a speed run leaves out.
MEASURE_ONLY = ("--queueStats=", "--cwndStats=", "--warmup=")


def validation_scenario(name: str, quick: bool = False):
    """The ns-3 comparison scenario that row ``name`` is (its duration and
    warm-up set for a speed run: the whole run counted)."""
    b = BENCHMARKS[name]
    dur = b.duration_s / QUICK_FACTOR if quick else b.duration_s
    if name == "M-bbr":
        return ns3_bbr.Scenario(name, b.description, ("bbr",) * b.flows, b.rate_bps, b.rtt_s, b.buffer_pkts, dur,
                                edge_rate_bps=b.edge_rate_bps)
    if name == "M-dctcp-red":
        k = dict(b.queue_params)["min_th_pkts"]
        return ns3_aqm.Scenario(name, b.description, "dctcp", "red", b.flows, (b.rtt_s, b.rtt_s), b.rate_bps, dur,
                                b.buffer_pkts, k=k)
    if name == "M-cubic-fqcodel":
        return ns3_aqm.Scenario(name, b.description, "cubic", "fq_codel", b.flows, (b.rtt_s, b.rtt_s), b.rate_bps,
                                dur, b.buffer_pkts)
    if name in ns3_scale.ROWS:  # issue 54's S1: its own mapping (validation/ns3_scale.py), seed included
        return ns3_scale.scenario(name, quick, QUICK_FACTOR)
    raise ValueError(f"row {name!r} is not measured against ns-3; allowed: {', '.join(ROWS)}")


def check_same(name: str, quick: bool = False) -> None:
    """Raise ValueError unless the bench row's ccsim scenario is the ns-3
    comparison's in topology and flows (every field the comparison sets)."""
    bench = scenario(name, quick).to_dict()
    val = validation_scenario(name, quick).ccsim_scenario()
    diffs = []
    for k, v in val["topology"].items():
        if k in ("bottleneck_queue", "edge_queue"):
            for q, x in v.items():
                if bench["topology"][k].get(q) != x:
                    diffs.append(f"topology.{k}.{q}: bench {bench['topology'][k].get(q)!r}, ns-3 mapping {x!r}")
        elif bench["topology"].get(k) != v:
            diffs.append(f"topology.{k}: bench {bench['topology'].get(k)!r}, ns-3 mapping {v!r}")
    if len(bench["flows"]) != len(val["flows"]):
        diffs.append(f"flows: bench {len(bench['flows'])} entries, ns-3 mapping {len(val['flows'])}")
    for i, (bf, vf) in enumerate(zip(bench["flows"], val["flows"])):
        for k, v in vf.items():
            if bf.get(k) != v:
                diffs.append(f"flows.{i}.{k}: bench {bf.get(k)!r}, ns-3 mapping {v!r}")
        for k in sorted(set(bf) - set(vf)):
            diffs.append(f"flows.{i}.{k}: bench {bf[k]!r}, not in the ns-3 mapping")
    if bench["duration_s"] != val["duration_s"]:
        diffs.append(f"duration_s: bench {bench['duration_s']}, ns-3 mapping {val['duration_s']}")
    if bench.get("seed") != val.get("seed"):  # the RTTs and starts drawn from it (S1)
        diffs.append(f"seed: bench {bench.get('seed')!r}, ns-3 mapping {val.get('seed')!r}")
    if diffs:
        raise ValueError(f"{name}: the bench row is not the ns-3 comparison's scenario: " + "; ".join(diffs))


def ns3_args(name: str, quick: bool = False, duration_s: Optional[float] = None) -> List[str]:
    """ns-3's arguments for row ``name``: the comparison's, lean (only the
    bottleneck's transmissions counted), warm-up 0; ``duration_s``: the row
    cut short."""
    args = [a for a in validation_scenario(name, quick).ns3_args() if not a.startswith(MEASURE_ONLY)]
    if duration_s is not None:
        args = [a for a in args if not a.startswith("--duration=")] + [f"--duration={duration_s!r}"]
    return args + ["--warmup=0", "--lean=1"]


def run_ns3(name: str, exe: Path, quick: bool = False, duration_s: Optional[float] = None) -> dict:
    """Row ``name`` in ns-3: ``Simulator::Run``'s wall seconds, the
    process's CPU seconds (user + system, set-up included: on a loaded
    machine the wall time grows and this does not), bottleneck packets."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    raw, _ = ns3_suite.run_program(exe, ns3_args(name, quick, duration_s), name, nice=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": raw["wall_s"], "cpu_s": cpu, "pkts": raw["bottleneck"]["tx_pkts"],
            "goodput_bytes": sum(f["rx_bytes"] for f in raw["flows"])}


@dataclass
class Row:
    name: str
    ccsim_wall_s: float
    ccsim_pkts: int
    events_per_pkt: float
    ccsim_utilization: Optional[float] = None
    ns3_wall_s: Optional[float] = None
    ns3_pkts: Optional[int] = None
    note: str = ""
    ns3_cpu_s: Optional[float] = None
    #: simulated seconds when the row was cut short (``--duration``)
    duration_s: Optional[float] = None

    @property
    def ratio(self) -> Optional[float]:
        """ccsim's bottleneck packets per wall-second over ns-3's."""
        if not self.ns3_wall_s or not self.ns3_pkts:
            return None
        return (self.ccsim_pkts / self.ccsim_wall_s) / (self.ns3_pkts / self.ns3_wall_s)


def measure(name: str, quick: bool, exe: Optional[Path], duration_s: Optional[float] = None) -> Row:
    check_same(name, quick)
    r = run_isolated(name, quick, duration_s)
    row = Row(name, r["wall_s"], int(round(r["bottleneck_pkts_per_s"] * r["wall_s"])),
              r["events_per_bottleneck_pkt"], r.get("utilization"), duration_s=duration_s)
    if exe is None:
        row.note = "ns-3 not installed (python -m validation.run --peer ns3 installs it)"
    else:
        n = run_ns3(name, exe, quick, duration_s)
        row.ns3_wall_s, row.ns3_pkts, row.ns3_cpu_s = n["wall_s"], n["pkts"], n["cpu_s"]
    return row


def keep_fastest(old: Optional[Row], new: Row) -> Row:
    """Each simulator's fastest wall time over the rounds; both are
    deterministic, so every round must move the same packets."""
    if old is None:
        return new
    if (old.ccsim_pkts, old.ns3_pkts) != (new.ccsim_pkts, new.ns3_pkts):
        raise RuntimeError(f"{new.name}: rounds moved different packets: {(old.ccsim_pkts, old.ns3_pkts)} "
                           f"against {(new.ccsim_pkts, new.ns3_pkts)}")
    ns3 = [w for w in (old.ns3_wall_s, new.ns3_wall_s) if w]
    cpu = [c for c in (old.ns3_cpu_s, new.ns3_cpu_s) if c]
    return Row(new.name, min(old.ccsim_wall_s, new.ccsim_wall_s), new.ccsim_pkts, new.events_per_pkt,
               new.ccsim_utilization, min(ns3) if ns3 else None, new.ns3_pkts, new.note, min(cpu) if cpu else None,
               new.duration_s)


def print_row(r: Row) -> None:
    ns_pps = f"{r.ns3_pkts / r.ns3_wall_s:12,.0f}" if r.ns3_wall_s else f"{'-':>12}"
    ns_wall = f"{r.ns3_wall_s:9.2f}s" if r.ns3_wall_s else f"{'-':>10}"
    ratio = f"{r.ratio:7.1f}x" if r.ratio else f"{'-':>8}"
    cpu = f"{r.ns3_cpu_s:9.2f}s" if r.ns3_cpu_s else f"{'-':>10}"
    print(f"{r.name:16} {r.ccsim_wall_s:10.3f}s {ns_wall} {cpu} {r.ccsim_pkts / r.ccsim_wall_s:13,.0f} {ns_pps} "
          f"{ratio} {r.events_per_pkt:6.2f} {r.note}", flush=True)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", metavar="NAME", help=f"rows (default all: {', '.join(ROWS)}; also "
                    f"{', '.join(ns3_scale.ROWS)}, issue 54's, by name)")
    ap.add_argument("--quick", action="store_true", help="durations / 10")
    ap.add_argument("--duration", type=float, metavar="S",
                    help="each row cut to S simulated seconds on both sides (a row too long for ns-3)")
    ap.add_argument("--json", metavar="OUT", help="write the rows as JSON")
    ap.add_argument("--rounds", type=int, default=1, metavar="N",
                    help="run the list N times, interleaved, and keep each simulator's fastest (default 1)")
    a = ap.parse_args(argv)
    if a.rounds < 1:
        ap.error(f"--rounds: {a.rounds}; allowed: 1 or more")
    by_lower = {n.lower(): n for n in ROWS + ns3_scale.ROWS + tuple(MISSING)}
    unknown = [n for n in a.names if n.lower() not in by_lower]
    if unknown:
        ap.error(f"unknown row(s) {', '.join(unknown)}; allowed: {', '.join(ROWS + ns3_scale.ROWS)}")
    names = [by_lower[n.lower()] for n in a.names] or list(ROWS)
    missing = [n for n in names if n in MISSING]
    for n in missing:
        print(f"{n}: not run ({MISSING[n]})")
    names = [n for n in names if n not in MISSING]
    exe = ns3_suite.build() if names and ns3_suite.installed() else None
    print(f"{'row':16} {'ccsim wall':>11} {'ns-3 wall':>10} {'ns-3 CPU':>10} {'ccsim pkts/s':>13} {'ns-3 pkts/s':>12} "
          f"{'ratio':>8} {'ev/pkt':>6}")
    rows = fastest_of_rounds(names, a.rounds, lambda n: measure(n, a.quick, exe, a.duration), print_row,
                             keep_fastest)
    if a.json:
        Path(a.json).write_text(json.dumps([dict(r.__dict__, ratio=r.ratio, simulated_s=r.duration_s or validation_scenario(
            r.name, a.quick).duration_s) for r in rows], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
