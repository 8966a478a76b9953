"""NewReno dumbbells whose flows all start at t = 0, in ns-2.35 and in
ccsim's ns-2 mode: both sides' metrics and the first event at which the
two bottleneck traces differ (docs/validation.md, "ns-2 mode with many
simultaneous starts").

    python -m validation.ns2_many_starts [CASE ...] [--seed 1]
        [--ccsim plain|phases|clock ...] [--trace-s T] [--out DIR] [--json OUT]

Cases (``CASES``, the issue's; a value the issue leaves out is the case
before's): N flows, bottleneck rate, ns-2 ``queue-limit`` B, duration.
"100 ms" is read as the round trip, as in the benchmark rows B1/B3/B4
these cases follow (with ns-2's 441 timeouts for 50 flows the issue
quotes: 428 here, 63 with a 100 ms one-way bottleneck): per-flow 100
Gb/s 5 ms access links (ccsim's dumbbell defaults) and a 40 ms bottleneck
(``--delay`` changes it), 1000-byte payloads (1040-byte packets), one
ACK per segment, ``window_`` 10,000,000:

* ``1``: 1 flow, 100 Mb/s, B 20, 60 s;
* ``10``: 10 flows, 100 Mb/s, B 50, 60 s;
* ``50``: 50 flows, 1 Gb/s, B 20, 60 s;
* ``500``: 500 flows, 1 Gb/s, B 200, 20 s.

ns-2 runs the Tcl that :func:`validation.ns2_baselines.tcl` writes from
ccsim's own scenario (``Agent/TCP/Newreno``, ``Agent/TCPSink``, ns-2's
defaults otherwise, ``queue-limit`` = ccsim's ``limit_pkts`` + 1), with
``trace-queue`` on r0 -> r1. ccsim runs the same scenario, every flow in
ns-2 mode (``ns2ref.ns2_mode``), in one of three set-ups (``--ccsim``):

* ``plain``: ns-2 mode and ``ties = "arrival_first"`` on every queue, the
  agents' tick phases ccsim's own draws;
* ``phases``: ``plain`` with each agent's ``boot_time_`` tick phase drawn
  from ns-2's random stream in the order ns-2 resets its nodes
  (``ns2_boot_order``; the order is read from ``ns`` itself,
  :func:`validation.ns2_node_order.measure`, so any flow count works);
* ``clock``: ``phases`` with ns-2's floating-point clock (``ties =
  "ns2"``, ``ns2_clock = true``; docs/validation.md, "ns-2's
  floating-point clock").

Metrics, over the whole run, the same way on both sides:

* ``goodput``: payload delivered in order at the receivers over the link
  rate (ns-2: each sink's ``bytes_`` in whole 1040-byte packets, which
  leaves out the 40-byte first segment of its ``syn_`` start-up; ccsim:
  ``delivered_bytes``); ns-2's senders' ``ack_``, what
  :mod:`validation.ns2_baselines` measures, trails it by the ACKs in
  flight and is printed beside it;
* ``link``: bytes sent on the bottleneck, headers and retransmissions
  included (ns-2: ``monitor-queue``'s ``bdepartures_``, ccsim:
  ``tx_bytes``) over the link rate: what ccsim's ``utilization`` of a
  link reports;
* bottleneck arrivals and drops, retransmitted packets
  (``nrexmitpack_``) and timeouts (``nrexmit_``).

The traces (``+ - d r`` of r0 -> r1, the whole run or the first
``--trace-s`` seconds) are read as (event, time to 1 us, kind, flow, segment), sorted within each
microsecond, and the first difference is printed with its neighbours
(:mod:`validation.gwa_trace`). Exits 1 when the ``clock`` set-up is not
ns-2's run (a counter or the trace differs). Needs ``ns`` (``apt-get
install ns2``). All four cases, three set-ups, whole-run traces: about 3
minutes (results: validation/results/ns2/many-starts.txt and .json;
docs/validation.md, "ns-2 mode with many simultaneous starts").
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import ccsim
from ccsim.experiments._kit import ns2ref

from . import gwa_trace
from .gwa_trace import Event, first_difference
from .ns2_baselines import tcl
from .ns2_node_order import measure as node_order

#: one-way; RTT 2 * (0.040 + 2 * 0.005) = 100 ms
BOTTLENECK_DELAY_S = 0.040
EDGE_RATE_BPS = 100e9
EDGE_DELAY_S = 0.005
MSS = 1000
HEADER = 40


@dataclass(frozen=True)
class Case:
    flows: int
    rate_bps: float
    queue_limit: int  # ns-2's queue-limit B
    duration_s: float


CASES: Dict[str, Case] = {
    "1": Case(1, 100e6, 20, 60.0),
    "10": Case(10, 100e6, 50, 60.0),
    "50": Case(50, 1e9, 20, 60.0),
    "500": Case(500, 1e9, 200, 20.0),
}
SETUPS = ("plain", "phases", "clock")


def scenario(case: Case, seed: int, delay_s: float = BOTTLENECK_DELAY_S) -> Dict[str, Any]:
    """ccsim's scenario of ``case`` in ns-2 mode, ``arrival_first``."""
    flow = ns2ref.ns2_mode({"cc": "reno", "recovery": "newreno", "mss_bytes": MSS, "header_bytes": HEADER,
                            "rwnd_pkts": 10_000_000, "start_s": 0.0})
    topo = {"kind": "dumbbell", "bottleneck_rate_bps": case.rate_bps, "bottleneck_delay_s": delay_s,
            "edge_rate_bps": EDGE_RATE_BPS, "edge_delay_s": EDGE_DELAY_S,
            "bottleneck_queue": {"kind": "droptail", "limit_pkts": ns2ref.droptail_waiting(case.queue_limit)},
            "edge_queue": {"kind": "droptail", "limit_pkts": 100_000}}
    return {"duration_s": case.duration_s, "seed": seed, "topology": ns2ref.ns2_topology(topo),
            "flows": [dict(flow, count=1) for _ in range(case.flows)]}


def setup(sc: Dict[str, Any], how: str, ns: str) -> Dict[str, Any]:
    """``sc`` as ``--ccsim how`` runs it (module docstring)."""
    if how == "plain":
        return sc
    hosts = len(sc["flows"])
    order = node_order(2 + 2 * hosts, ns)
    boot = [(node - 2) // 2 for node in order if node >= 2 and node % 2 == 0]
    sc = dict(sc, ns2_boot_order=boot)
    return ns2ref.ns2_clock_scenario(sc) if how == "clock" else sc


def load(path: str) -> List[Event]:
    """A bottleneck trace as sorted events: both simulators number the
    hosts r0, r1, s0, d0, s1, d1, ... as ns-2's script does."""
    return gwa_trace.load(path, ns2=True)


def run_ns2(sc: Dict[str, Any], ns: str, workdir: str, trace_s: float) -> Dict[str, float]:
    """ns-2's counters over the run; its bottleneck trace to ``trace_s``
    in ``workdir``/ns2.tr (a second, shorter run when ``trace_s`` is less
    than the duration, so the metrics run writes no trace)."""
    prog = tcl(dict(sc, warmup_s=0.0))
    # ns-2's byte counters are C ints that wrap past 2^31: print them every
    # second (less than 2^31 bytes apart at any rate here) and unwrap
    probe = ("proc probe {} {\n    global ns qmon sink n\n    set l [list [$qmon set bdepartures_]]\n"
             "    for {set i 0} {$i < $n} {incr i} { lappend l [$sink($i) set bytes_] }\n"
             "    puts \"p $l\"\n    $ns at [expr [$ns now] + 1.0] probe\n}\n$ns at 0.0 probe\n")
    prog = prog.replace("$ns run", probe + "$ns at %r probe\n$ns run" % (sc["duration_s"] - 1e-9), 1)
    trace = f"$ns trace-queue $r0 $r1 [open {os.path.join(workdir, 'ns2.tr')} w]\nset qmon"
    full = trace_s >= sc["duration_s"]
    runs = [(prog.replace("set qmon", trace, 1) if full else prog, sc["duration_s"])]
    if not full:
        short = tcl(dict(sc, warmup_s=0.0, duration_s=trace_s))
        runs.append((short.replace("set qmon", trace, 1), trace_s))
    out = {}
    for i, (p, _) in enumerate(runs):
        path = os.path.join(workdir, f"run{i}.tcl")
        Path(path).write_text(p)
        t0 = time.perf_counter()
        r = subprocess.run([ns, path], capture_output=True, text=True, cwd=workdir)
        if r.returncode != 0:
            raise RuntimeError(f"ns failed ({r.returncode}): {r.stderr[-2000:]}")
        if i == 0:
            out = parse_ns2(r.stdout, sc)
            out["wall_s"] = time.perf_counter() - t0
    return out


def unwrap(samples: List[int]) -> int:
    """The last value of a C int counter read at least every 2^31 units."""
    total = 0
    for x, y in zip(samples, samples[1:]):
        total += (y - x) % 2**32
    return total + samples[0]


def parse_ns2(stdout: str, sc: Dict[str, Any]) -> Dict[str, float]:
    link, flows, probes = None, {}, []
    for line in stdout.splitlines():
        p = line.split()
        if p[:2] == ["e", "link"]:
            link = [int(float(x)) for x in p[2:4]]
        elif p[:2] == ["e", "flow"]:
            flows[int(p[2])] = [int(float(x)) for x in p[3:6]]
        elif p[:1] == ["p"]:
            probes.append([int(float(x)) for x in p[1:]])
    if link is None or len(flows) != len(sc["flows"]) or not probes:
        raise RuntimeError(f"ns-2 printed no final counters:\n{stdout[-2000:]}")
    rate, dur = sc["topology"]["bottleneck_rate_bps"], sc["duration_s"]
    cols = list(zip(*probes))
    sent_bytes = unwrap(list(cols[0]))
    # each sink's bytes_: packets delivered in order, headers included, and
    # the 40-byte header-only first segment of ns-2's syn_ start-up
    delivered = sum(unwrap(list(c)) // (MSS + HEADER) for c in cols[1:])
    # ack_: the highest segment the sender has seen acknowledged, -1 before any
    acked = sum(f[0] + 1 for f in flows.values())
    return {"goodput": 8 * MSS * delivered / (rate * dur), "goodput_acked": 8 * MSS * acked / (rate * dur),
            "link": 8 * sent_bytes / (rate * dur), "arrivals": link[0], "drops": link[1],
            "retransmits": sum(f[1] for f in flows.values()), "timeouts": sum(f[2] for f in flows.values())}


def run_ccsim(sc: Dict[str, Any], workdir: str, trace_s: float) -> Dict[str, float]:
    """ccsim's counters over the run and its trace to ``trace_s`` in
    ``workdir``/ccsim.tr (in the same run when it is the whole run)."""
    trace = {"r0->r1": os.path.join(workdir, "ccsim.tr")}
    full = trace_s >= sc["duration_s"]
    t0 = time.perf_counter()
    res = ccsim.run(sc, trace=trace if full else None).raw
    wall = time.perf_counter() - t0
    if not full:
        ccsim.run(dict(sc, duration_s=trace_s), trace=trace)
    link = next(x for x in res["links"] if x["from"] == "r0" and x["to"] == "r1")
    rate, dur = sc["topology"]["bottleneck_rate_bps"], sc["duration_s"]
    return {"goodput": 8 * sum(f["delivered_bytes"] for f in res["flows"]) / (rate * dur),
            "link": 8 * link["tx_bytes"] / (rate * dur),
            "arrivals": link["arrivals"], "drops": link["drops"],
            "retransmits": sum(f["retransmits"] for f in res["flows"]),
            "timeouts": sum(f["timeouts"] for f in res["flows"]), "wall_s": wall}


KEYS = ("goodput", "link", "arrivals", "drops", "retransmits", "timeouts")


def show(name: str, ns2: Dict[str, float], cc: Dict[str, Any]) -> None:
    print(f"case {name}: metric, ns-2, " + ", ".join(f"ccsim {k}" for k in cc))
    for k in KEYS:
        a = ns2[k]
        cells = []
        for m in cc.values():
            b = m[k]
            rel = f"{(b - a) / a:+.2%}" if a else ("=" if b == a else "n/a")
            cells.append(f"{b:.6g} ({rel})" if isinstance(b, float) else f"{b} ({rel})")
        print(f"  {k:12s} {a:.6g}  " + "  ".join(cells) if isinstance(a, float) else
              f"  {k:12s} {a}  " + "  ".join(cells))
    print(f"  (ns-2's goodput from the senders' ack_, as validation.ns2_baselines measures it: "
          f"{ns2['goodput_acked']:.6g}; ccsim's link utilisation over it: "
          + ", ".join(f"{m['link'] / ns2['goodput_acked'] - 1:+.2%}" for m in cc.values()) + ")")


def identical(ns2: Dict[str, float], cc: Dict[str, float], div: Dict[str, Any]) -> bool:
    """Whether a ccsim set-up is ns-2's run: every counter equal (the
    utilisations to 1e-9) and the trace identical."""
    return (all(abs(cc[k] - ns2[k]) <= 1e-9 * max(1.0, abs(ns2[k])) for k in KEYS)
            and div["identical"] == div["ns2_events"] == div["ccsim_events"])


def divergence(a: List[Event], b: List[Event]) -> Dict[str, Any]:
    same = first_difference(a, b)
    out: Dict[str, Any] = {"ns2_events": len(a), "ccsim_events": len(b), "identical": same}
    if same < min(len(a), len(b)):
        out["at_s"] = min(a[same][1], b[same][1]) / 1e6
        out["ns2"] = [list(e[:5]) for e in a[max(0, same - 3):same + 4]]
        out["ccsim"] = [list(e[:5]) for e in b[max(0, same - 3):same + 4]]
    return out


def report_divergence(how: str, d: Dict[str, Any], trace_s: float) -> None:
    print(f"  trace ({how}, first {trace_s:g} s): ns-2 {d['ns2_events']} events, ccsim {d['ccsim_events']}; "
          f"identical for the first {d['identical']}")
    if "at_s" in d:
        print(f"  first difference at {d['at_s']:.6f} s (event, us, kind, flow, segment): ns-2 | ccsim")
        for x, y in zip(d["ns2"], d["ccsim"]):
            print(f"    {tuple(x)} | {tuple(y)}{'' if x == y else '  <<'}")


def compare(base: Dict[str, Any], setups: List[str], ns: str, workdir: str, trace_s: float, keep: bool = False
            ) -> Tuple[Dict[str, float], Dict[str, Dict[str, float]], Dict[str, Dict[str, Any]]]:
    """Run ``base`` in ns-2 and in each ccsim set-up: (ns-2's counters,
    each set-up's, each set-up's :func:`divergence` from ns-2's trace of
    the first ``trace_s`` seconds). ``keep``: leave the traces in
    ``workdir`` (ccsim's as ``ccsim-SETUP.tr``)."""
    os.makedirs(workdir, exist_ok=True)
    ns2 = run_ns2(base, ns, workdir, trace_s)
    ns2_events = load(os.path.join(workdir, "ns2.tr"))
    cc, div = {}, {}
    for how in setups:
        cc[how] = run_ccsim(setup(base, how, ns), workdir, trace_s)
        div[how] = divergence(ns2_events, load(os.path.join(workdir, "ccsim.tr")))
        if keep:
            os.replace(os.path.join(workdir, "ccsim.tr"), os.path.join(workdir, f"ccsim-{how}.tr"))
    return ns2, cc, div


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cases", nargs="*", metavar="CASE", help=f"default all: {', '.join(CASES)}")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ccsim", nargs="+", choices=SETUPS, default=list(SETUPS),
                    help="ccsim set-ups to run (default all three; the trace is compared for each)")
    ap.add_argument("--trace-s", type=float,
                    help="trace and compare the first T seconds (default the whole run; the metrics are the whole "
                         "run's either way)")
    ap.add_argument("--delay", type=float, default=BOTTLENECK_DELAY_S,
                    help=f"the bottleneck's one-way delay, s (default {BOTTLENECK_DELAY_S})")
    ap.add_argument("--out", help="keep the traces and Tcl programs here (DIR/CASE/...)")
    ap.add_argument("--json", help="write every number here")
    a = ap.parse_args(argv)
    ns = shutil.which("ns")
    if ns is None:
        print("error: ns-2.35 not found (apt-get install ns2)", file=sys.stderr)
        return 2
    bad = [c for c in a.cases if c not in CASES]
    if bad:
        ap.error(f"unknown case(s) {', '.join(bad)}; allowed: {', '.join(CASES)}")
    failed: List[str] = []
    result: Dict[str, Any] = {"seed": a.seed, "bottleneck_delay_s": a.delay, "ccsim_version": ccsim.__version__,
                              "cases": {}}
    for name in a.cases or list(CASES):
        case = CASES[name]
        base = scenario(case, a.seed, a.delay)
        trace_s = case.duration_s if a.trace_s is None else min(a.trace_s, case.duration_s)
        with tempfile.TemporaryDirectory() as tmp:
            d = os.path.join(a.out, name) if a.out else tmp
            ns2, cc, div = compare(base, a.ccsim, ns, d, trace_s, keep=bool(a.out))
        show(name, ns2, cc)
        for how in a.ccsim:
            report_divergence(how, div[how], trace_s)
        sys.stdout.flush()
        result["cases"][name] = {"case": case.__dict__, "trace_s": trace_s, "ns2": ns2, "ccsim": cc,
                                 "divergence": div}
        if "clock" in cc and not identical(ns2, cc["clock"], div["clock"]):
            failed.append(name)
    if a.json:
        Path(a.json).write_text(json.dumps(result, indent=1) + "\n")
    if failed:
        print(f"ccsim's clock set-up is not ns-2's run on case(s) {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
