"""ccsim against ns-3 3.44 on the same benchmark scenarios, in one run.

    python benches/peer_ns3.py [--quick] [--duration S] [--rounds N] [--json OUT.json] [NAME ...]

For each row measured against ns-3 (``ccsim bench``'s M rows: ``M-bbr``,
``M-dctcp-red``, ``M-cubic-fqcodel``, ``M-prague-dualpi2``, and
``M-dctcp-red-py``, ``M-cubic-fqcodel-py``, two of them with the Python
twin of their controller, against ns-3's run of the base row) it runs
the ccsim row (``ccsim bench``'s child process: the engine's wall time,
building the simulation and running it) and the same dumbbell in ns-3 3.44
(``validation/ns3/dumbbell.cc``, the program of the ns-3 comparisons, built
by ``validation.ns3_suite.build``), and reports both wall times and the
ratio of bottleneck packets per wall-second. The target is at least
100x.

The scenario comes from the ns-3 comparisons' mapping, not from a second
one: each row is a :class:`validation.ns3_bbr.Scenario` (BBR) or
:class:`validation.ns3_aqm.Scenario` (DCTCP over RED's step, CUBIC over
FQ-CoDel), whose ``ns3_args()`` give ns-3's side; the bench row's ccsim
scenario must equal that scenario's ``ccsim_scenario()`` in topology and
flows (:func:`check_same`), or the row is refused.

``M-prague-dualpi2`` (TCP Prague over DualPI2) is run against a
STAND-IN, not the same algorithms: ns-3 3.44 (and 3.48) has no TCP Prague,
no DualPI2 and no AccECN. Its ns-3 side is ns-3's closest L4S workload on
the same network, flows, rates and duration (:class:`L4sStandIn`): DCTCP
sending ECT(1) (``TcpDctcp::UseEct0`` false) with RFC 8257's ECE feedback,
unpaced, over ``FqCoDelQueueDisc`` in its L4S mode (``UseL4s`` true: an
ECT(1) or CE packet leaving its flow queue after more than ``CeThreshold``,
1 ms, is CE-marked and never meets CoDel's control law), against ccsim's
paced Prague with AccECN over DualPI2 (one shared L queue, a 1 ms step and
the coupled marks). :func:`check_same` still compares everything else (the
topology, the buffer, the flow count, rates, RTTs, segment size and TCP,
ECT(1), start times, duration) and names the fields that differ by design
(:data:`BY_DESIGN`); the output's note column, the JSON (``stand_in``,
``by_design``) and docs/performance.md say so.

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

The many-flows row S1 (1,000 CUBIC flows with SACK at 10 Gb/s, RTTs over 20-100 ms
and starts over 1 s as ccsim draws them, delayed ACKs: ``ccsim bench``'s
row, not an ns-3 comparison's) is run by name, with its own mapping
(:mod:`validation.ns3_scale`: every ns-3 attribute and what differs) under
the same :func:`check_same`, the seed included. At 10 Gb/s ns-3 needs
hours for its 5 s; ``--duration`` cuts both sides short.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ccsim.bench import BENCHMARKS, PY_M_ROWS, QUICK_FACTOR, fastest_of_rounds, run_isolated, scenario  # noqa: E402
from validation import ns3_aqm, ns3_bbr, ns3_scale, ns3_suite  # noqa: E402

#: The rows: BBR, DCTCP over RED, CUBIC over FQ-CoDel, Prague over DualPI2.
ROWS = ("M-bbr", "M-dctcp-red", "M-cubic-fqcodel", "M-prague-dualpi2", "M-dctcp-red-py", "M-cubic-fqcodel-py")
#: Rows that cannot run yet, with why (none since the L4S stand-in).
MISSING: Dict[str, str] = {}
#: Measurement options of the ns-3 program a speed run leaves out.
MEASURE_ONLY = ("--queueStats=", "--cwndStats=", "--warmup=")


@dataclass(frozen=True)
class L4sStandIn:
    """ns-3's closest workload to TCP Prague over DualPI2, which it does
    not have: DCTCP sending ECT(1) over FQ-CoDel's L4S mode.

    The network, TCP and queue are the ns-3 AQM comparison's DCTCP and
    FQ-CoDel mapping (:class:`validation.ns3_aqm.Scenario`, controller
    ``dctcp``, discipline ``fq_codel``: RFC 8290's defaults, ECN on), with
    three ns-3 attributes more (:meth:`ns3_attrs`, checked in ns-3 3.44's
    ``tcp-dctcp.cc``, ``fq-codel-queue-disc.cc`` and
    ``codel-queue-disc.cc``): ``TcpDctcp::UseEct0`` false (its data leave
    ECT(1)), ``FqCoDelQueueDisc::UseL4s`` true and ``CeThreshold`` 1 ms
    (each flow queue's CoDel CE-marks an ECT(1) or CE packet whose sojourn
    exceeds 1 ms and lets it pass without the control law; other packets
    meet CoDel as usual). The workload's own numbers are fixed here (not
    read from the bench row), so a bench row that drifts from them is
    refused by :func:`check_same`.

    :meth:`ccsim_scenario` is this workload in ccsim's words, for
    :func:`check_same` only: DCTCP flows with ``ecn``, ``ect = "ect1"``,
    ``ecn_feedback = "dctcp"`` over ``fq_codel`` with ``ce_threshold_s``
    (ccsim's FQ-CoDel has no L4S mode; the discipline differs from the
    row's by design, so only its buffer and tie order are compared)."""

    id: str
    description: str
    n_flows: int
    rtt_s: float
    rate_bps: float
    duration_s: float
    limit_pkts: int
    ce_threshold_s: float = 0.001

    #: What the stand-in is: in short (the JSON's ``stand_in``, the docs'
    #: "ns-3 side" column) and in the output's note column (``note``).
    SHORT = "STAND-IN: DCTCP ECT(1) over FQ-CoDel L4S (CeThreshold 1 ms)"
    LABEL = ("ns-3 STAND-IN, not the same algorithms: DCTCP sending ECT(1) over FQ-CoDel's L4S mode "
             "(CeThreshold 1 ms); ns-3 3.44 has no Prague, DualPI2 or AccECN")

    def base(self) -> "ns3_aqm.Scenario":
        return ns3_aqm.Scenario(self.id, self.description, "dctcp", "fq_codel", self.n_flows,
                                (self.rtt_s, self.rtt_s), self.rate_bps, self.duration_s, self.limit_pkts)

    def ns3_attrs(self) -> Dict[str, str]:
        return {"ns3::TcpDctcp::UseEct0": "false", "ns3::FqCoDelQueueDisc::UseL4s": "true",
                "ns3::FqCoDelQueueDisc::CeThreshold": f"{self.ce_threshold_s * 1e3:g}ms"}

    def ns3_args(self) -> List[str]:
        return self.base().ns3_args() + [f"--{k}={v}" for k, v in self.ns3_attrs().items()]

    def ccsim_scenario(self) -> dict:
        d = self.base().ccsim_scenario()
        for f in d["flows"]:
            f.update(ecn=True, ect="ect1", ecn_feedback="dctcp")
        d["topology"]["bottleneck_queue"]["ce_threshold_s"] = self.ce_threshold_s
        return d


#: Rows whose ns-3 side is a stand-in, with the stand-in's workload: the
#: same network, flows, rates and duration as the bench row (RTT 40 ms and
#: 10240 packets, M-cubic-fqcodel's; docs/performance.md says why).
STAND_INS = {"M-prague-dualpi2": L4sStandIn(
    "M-prague-dualpi2", "ns-3 stand-in for Prague over DualPI2: 4 DCTCP flows (ECT(1)) over FQ-CoDel's L4S mode",
    4, 0.040, 1e9, 60.0, 10240)}

#: The fields in which a stand-in row differs from its ns-3 side by design:
#: the flows' keys, and the bottleneck discipline (``queue``: its kind and
#: every parameter but :data:`QUEUE_SHARED`). Every other field must match.
BY_DESIGN = {"M-prague-dualpi2": {"flows": ("cc", "cc_params", "ecn_feedback", "pacing"), "queue": True}}
#: What a discipline that differs by design must still share with ns-3's.
QUEUE_SHARED = ("limit_pkts", "limit_bytes", "ties")


def validation_scenario(name: str, quick: bool = False):
    """The ns-3 comparison scenario that row ``name`` is (its duration and
    warm-up set for a speed run: the whole run counted); for a row with a
    stand-in, the stand-in (:data:`STAND_INS`); for a -py row, its base
    row's (:data:`ccsim.bench.PY_M_ROWS`)."""
    name = PY_M_ROWS[name][0] if name in PY_M_ROWS else name
    b = BENCHMARKS[name]
    if name in STAND_INS:
        sc = STAND_INS[name]
        return dataclasses.replace(sc, duration_s=sc.duration_s / QUICK_FACTOR if quick else sc.duration_s)
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
    if name in ns3_scale.ROWS:  # the many-flows S1: its own mapping (validation/ns3_scale.py), seed included
        return ns3_scale.scenario(name, quick, QUICK_FACTOR)
    raise ValueError(f"row {name!r} is not measured against ns-3; allowed: {', '.join(ROWS)}")


def check_same(name: str, quick: bool = False) -> List[str]:
    """Raise ValueError unless the bench row's ccsim scenario is the ns-3
    comparison's in topology and flows (every field the comparison sets).
    A row with a stand-in (:data:`STAND_INS`) may differ in the fields
    :data:`BY_DESIGN` names, and only there; those differences are
    returned, one line per field (empty for the other rows)."""
    bench = scenario(name, quick).to_dict()
    val = validation_scenario(name, quick).ccsim_scenario()
    design = BY_DESIGN.get(name, {})
    by_design: Dict[str, set] = {}
    diffs = []
    for k, v in val["topology"].items():
        if k in ("bottleneck_queue", "edge_queue"):
            bq = bench["topology"][k]
            keys = list(v) + [q for q in bq if q not in v]
            if k == "bottleneck_queue" and design.get("queue"):
                shared = [q for q in keys if q in QUEUE_SHARED]
                mine, theirs = ({q: x for q, x in d.items() if q not in QUEUE_SHARED} for d in (bq, v))
                if mine != theirs:
                    by_design.setdefault(f"topology.{k}", set()).add(
                        f"bench {_fmt_queue(mine)}, ns-3 stand-in {_fmt_queue(theirs)}")
                keys = shared
            for q in keys:
                if bq.get(q) != v.get(q):
                    diffs.append(f"topology.{k}.{q}: bench {bq.get(q)!r}, ns-3 mapping {v.get(q)!r}")
        elif bench["topology"].get(k) != v:
            diffs.append(f"topology.{k}: bench {bench['topology'].get(k)!r}, ns-3 mapping {v!r}")
    if len(bench["flows"]) != len(val["flows"]):
        diffs.append(f"flows: bench {len(bench['flows'])} entries, ns-3 mapping {len(val['flows'])}")
    free = design.get("flows", ())
    for i, (bf, vf) in enumerate(zip(bench["flows"], val["flows"])):
        for k in list(vf) + sorted(set(bf) - set(vf)):
            if bf.get(k) == vf.get(k):
                continue
            if k in free:
                by_design.setdefault(f"flows.*.{k}", set()).add(
                    f"bench {_fmt_value(bf, k)}, ns-3 stand-in {_fmt_value(vf, k)}")
            elif k in vf:
                diffs.append(f"flows.{i}.{k}: bench {bf.get(k)!r}, ns-3 mapping {vf[k]!r}")
            else:
                diffs.append(f"flows.{i}.{k}: bench {bf[k]!r}, not in the ns-3 mapping")
    if bench["duration_s"] != val["duration_s"]:
        diffs.append(f"duration_s: bench {bench['duration_s']}, ns-3 mapping {val['duration_s']}")
    if bench.get("seed") != val.get("seed"):  # the RTTs and starts drawn from it (S1)
        diffs.append(f"seed: bench {bench.get('seed')!r}, ns-3 mapping {val.get('seed')!r}")
    if diffs:
        raise ValueError(f"{name}: the bench row is not the ns-3 comparison's scenario: " + "; ".join(diffs))
    return [f"{k}: {'; '.join(sorted(v))}" for k, v in by_design.items()]


def _fmt_value(d: dict, k: str) -> str:
    return repr(d[k]) if k in d else "absent"


def _fmt_queue(q: dict) -> str:
    """A discipline in one line: its kind and parameters."""
    rest = ", ".join(f"{k} {v!r}" for k, v in q.items() if k != "kind")
    return f"{q.get('kind')!r} ({rest})"


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
    b = raw["bottleneck"]
    # over the whole run (warm-up 0), wire bytes as ccsim's utilisation counts them
    util = b["tx_bytes"] * 8 / (b["rate_bps"] * (raw["duration_s"] - raw["warmup_s"]))
    return {"wall_s": raw["wall_s"], "cpu_s": cpu, "pkts": b["tx_pkts"], "utilization": util,
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
    ns3_utilization: Optional[float] = None
    #: a row run against a stand-in: what ns-3 ran instead (``L4sStandIn.SHORT``)
    stand_in: str = ""
    #: the fields in which the two sides differ by design (:func:`check_same`)
    by_design: List[str] = dataclasses.field(default_factory=list)

    @property
    def ratio(self) -> Optional[float]:
        """ccsim's bottleneck packets per wall-second over ns-3's."""
        if not self.ns3_wall_s or not self.ns3_pkts:
            return None
        return (self.ccsim_pkts / self.ccsim_wall_s) / (self.ns3_pkts / self.ns3_wall_s)


#: ns-3's last run of each row (name, quick, duration) in this process: a
#: -py row reuses its base row's run instead of running ns-3 again.
_NS3_LAST: Dict[Tuple[str, bool, Optional[float]], dict] = {}


def measure(name: str, quick: bool, exe: Optional[Path], duration_s: Optional[float] = None) -> Row:
    # a -py row runs the Python twin of its base row's controller (the same
    # results, tests/test_py_controllers.py): ns-3 runs the base row
    base = PY_M_ROWS[name][0] if name in PY_M_ROWS else name
    by_design = check_same(base, quick)
    r = run_isolated(name, quick, duration_s)
    sub = STAND_INS.get(name)
    row = Row(name, r["wall_s"], int(round(r["bottleneck_pkts_per_s"] * r["wall_s"])),
              r["events_per_bottleneck_pkt"], r.get("utilization"), duration_s=duration_s,
              stand_in=sub.SHORT if sub else "", by_design=by_design, note=sub.LABEL if sub else "")
    if exe is None:
        row.note = "; ".join(x for x in (row.note, "ns-3 not installed (python -m validation.run --peer ns3 "
                                                   "installs it)") if x)
    else:
        key = (base, quick, duration_s)
        n = _NS3_LAST.get(key) if name != base else None
        if n is None:
            n = _NS3_LAST[key] = run_ns3(base, exe, quick, duration_s)
        row.ns3_wall_s, row.ns3_pkts, row.ns3_cpu_s = n["wall_s"], n["pkts"], n["cpu_s"]
        row.ns3_utilization = n["utilization"]
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
    return dataclasses.replace(new, ccsim_wall_s=min(old.ccsim_wall_s, new.ccsim_wall_s),
                               ns3_wall_s=min(ns3) if ns3 else None, ns3_cpu_s=min(cpu) if cpu else None)


def print_row(r: Row) -> None:
    ns_pps = f"{r.ns3_pkts / r.ns3_wall_s:12,.0f}" if r.ns3_wall_s else f"{'-':>12}"
    ns_wall = f"{r.ns3_wall_s:9.2f}s" if r.ns3_wall_s else f"{'-':>10}"
    ratio = f"{r.ratio:7.1f}x" if r.ratio else f"{'-':>8}"
    cpu = f"{r.ns3_cpu_s:9.2f}s" if r.ns3_cpu_s else f"{'-':>10}"
    util = "/".join(f"{u:.3f}" if u is not None else "-" for u in (r.ccsim_utilization, r.ns3_utilization))
    print(f"{r.name:16} {r.ccsim_wall_s:10.3f}s {ns_wall} {cpu} {r.ccsim_pkts / r.ccsim_wall_s:13,.0f} {ns_pps} "
          f"{ratio} {r.events_per_pkt:6.2f} {util:>11} {r.note}", flush=True)
    for d in r.by_design:
        print(f"{'':16} differs by design: {d}", flush=True)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", metavar="NAME", help=f"rows (default all: {', '.join(ROWS)}; also "
                    f"{', '.join(ns3_scale.ROWS)}, the many-flows rows, by name)")
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
          f"{'ratio':>8} {'ev/pkt':>6} {'util c/ns-3':>11} note")
    rows = fastest_of_rounds(names, a.rounds, lambda n: measure(n, a.quick, exe, a.duration), print_row,
                             keep_fastest)
    if a.json:
        Path(a.json).write_text(json.dumps([dict(r.__dict__, ratio=r.ratio, simulated_s=r.duration_s or validation_scenario(
            r.name, a.quick).duration_s) for r in rows], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
