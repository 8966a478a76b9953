"""E-TCP paper Fig 15's NewReno point (two-way traffic, 1 Gb/s) in ns-2.35
and in ccsim's ns-2 mode on the same scenario: does ns-2.35's
``Agent/TCP/Newreno`` fall below the paper's 30% forward utilisation?

    python -m validation.etcp_fig15_ns2 [--m 1 25 50] [--duration 80] [--warmup 20]
        [--rate 1e9] [--seed 1] [--ns2-only | --ccsim-only] [--snap 10] [--json OUT]

ccsim's side is ``etcp-fig15``'s own scenario (the sweep point
``("NewReno", M, rate)`` of ``ccsim.experiments.first_stage(fig15)``: the
experiment's builder with the driver's paper TCP and ns-2 tie order),
with only ``duration_s`` and ``warmup_s`` changed: the Fig 4 dumbbell, RTT
50 ms (15 ms bottleneck, 100 Gb/s 5 ms edges with 1000-packet queues), a
20-packet DropTail bottleneck (ccsim 19 waiting), M forward and 25 reverse
NewReno flows in ns-2 mode, starts uniform in the first 100 ms.

ns-2's side is the same network in Tcl, written as
:func:`validation.ns2_baselines.tcl` writes the one-way dumbbell (its
mapping: ``queue-limit`` = ``limit_pkts`` + 1, ``packetSize_`` 1000 with
ns-2's 40-byte header, ``Agent/TCP/Newreno`` + ``Agent/TCPSink``, ns-2's
defaults otherwise, ``window_`` 10,000,000), plus the reverse flows: a
reverse flow's source hangs off r1 and its sink off r0, as ccsim's
builder places ``direction = "reverse"`` flows. Each flow starts at the
time ccsim drew for it (read from a 0.2 s ccsim run of the same scenario
and seed), so both sides start the flows identically; the agents' tick
phases are each simulator's own draws (the experiment does not use
``ns2_boot_order``).

Measured from ``warmup`` to ``duration``, the same way on both sides:
forward utilisation = the M forward flows' goodput (in-order payload:
ns-2 from ``ack_``, 1000 bytes a segment) / capacity; the reverse flows'
likewise; arrivals and drops on each bottleneck direction (r0 -> r1
carries forward data and reverse ACKs); retransmitted packets and
timeouts (ns-2 ``nrexmitpack_``, ``nrexmit_``) of the forward and of the
reverse flows. ns-2 also prints its counters every ``--snap`` seconds,
for the forward utilisation per window. Results go to
``validation/results/etcp/fig15-ns2.json`` (``--json`` to change).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import ccsim
from ccsim.experiments import first_stage
from ccsim.experiments._kit import ns2ref
from ccsim.experiments.etcp import fig15
from ccsim.scenario import with_overrides

from .ns2_baselines import EDGE_QUEUE_DEFAULT, agent, run_tcl

OUT = Path(__file__).resolve().parent / "results" / "etcp" / "fig15-ns2.json"

HEAD = r"""
set ns [new Simulator]
global defaultRNG
$defaultRNG seed {seed}
set r0 [$ns node]
set r1 [$ns node]
$ns duplex-link $r0 $r1 {rate}bps {bdelay}s DropTail
$ns queue-limit $r0 $r1 {limit}
$ns queue-limit $r1 $r0 {limit}
set qf [$ns monitor-queue $r0 $r1 [open /dev/null w] 1.0]
set qr [$ns monitor-queue $r1 $r0 [open /dev/null w] 1.0]
set n {n}
"""
FLOW = r"""
set s({i}) [$ns node]
set d({i}) [$ns node]
$ns duplex-link $s({i}) ${src_router} {edge_rate}bps {edge_delay}s DropTail
$ns duplex-link ${dst_router} $d({i}) {edge_rate}bps {edge_delay}s DropTail
foreach {{a b}} [list $s({i}) ${src_router} ${src_router} $s({i}) ${dst_router} $d({i}) $d({i}) ${dst_router}] {{ $ns queue-limit $a $b {edge_limit} }}
set tcp({i}) [new {agent}]
$tcp({i}) set packetSize_ {pkt}
$tcp({i}) set window_ {window}
$tcp({i}) set windowInit_ {init}
{extra}set sink({i}) [new {sink}]
$ns attach-agent $s({i}) $tcp({i})
$ns attach-agent $d({i}) $sink({i})
$ns connect $tcp({i}) $sink({i})
set ftp({i}) [new Application/FTP]
$ftp({i}) attach-agent $tcp({i})
$ns at {start} "$ftp({i}) start"
"""
TAIL = r"""
proc snap {{tag}} {{
    global qf qr tcp n
    puts "$tag link [$qf set parrivals_] [$qf set pdrops_] [$qr set parrivals_] [$qr set pdrops_]"
    for {{set i 0}} {{$i < $n}} {{incr i}} {{
        puts "$tag flow $i [$tcp($i) set ack_] [$tcp($i) set nrexmitpack_] [$tcp($i) set nrexmit_]"
    }}
}}
{snaps}$ns at {duration} "snap e; exit 0"
$ns run
"""


def scenario(m: int, rate_bps: float, duration_s: float, warmup_s: float, seed: int) -> Dict[str, Any]:
    """``etcp-fig15``'s NewReno scenario with M forward flows at ``rate_bps``,
    exactly as the experiment's driver runs it, with only the duration,
    warm-up and seed set here."""
    for s in first_stage(fig15, False):
        for point, label in zip(s.points, s.labels):
            if label == ("NewReno", m, rate_bps):
                return with_overrides(s.base, {**point, "duration_s": duration_s, "warmup_s": warmup_s,
                                               "seed": seed})
    raise SystemExit(f"etcp-fig15 has no point ('NewReno', {m}, {rate_bps:g})")


def starts(sc: Dict[str, Any]) -> List[float]:
    """Each flow's start time as ccsim draws it for this scenario and seed
    (flows in ccsim's order: the forward entry's, then the reverse)."""
    res = ccsim.run(dict(sc, duration_s=0.2, warmup_s=0.0))
    return [float(f["start_s"]) for f in res.raw["flows"]]


def tcl(sc: Dict[str, Any], start_times: List[float], snaps: List[float]) -> str:
    """The Tcl program of the two-way scenario (see the module docstring)."""
    topo = sc["topology"]
    out = [HEAD.format(seed=sc.get("seed", 1), rate=repr(topo["bottleneck_rate_bps"]),
                       bdelay=repr(topo["bottleneck_delay_s"]), limit=topo["bottleneck_queue"]["limit_pkts"] + 1,
                       n=len(start_times))]
    edge_limit = (topo.get("edge_queue") or {}).get("limit_pkts", EDGE_QUEUE_DEFAULT) + 1
    i = 0
    for entry in sc["flows"]:
        f = ns2ref.engine_flow(dict(entry, count=1))
        if f["header_bytes"] != 40 or f.get("rtt_s") is not None:
            raise ValueError("the mapping needs 40-byte headers and the topology's edge delay")
        a, s, extra = agent(f)
        rev = entry.get("direction", "forward") == "reverse"
        for _ in range(entry.get("count", 1)):
            out.append(FLOW.format(i=i, src_router="r1" if rev else "r0", dst_router="r0" if rev else "r1",
                                   edge_rate=repr(topo["edge_rate_bps"]), edge_delay=repr(topo["edge_delay_s"]),
                                   edge_limit=edge_limit, agent=a, sink=s, pkt=f["mss_bytes"],
                                   window=f.get("rwnd_pkts", 10_000_000), init=f.get("init_cwnd_pkts", 2),
                                   extra=extra.replace("{i}", str(i)), start=repr(start_times[i])))
            i += 1
    if i != len(start_times):
        raise ValueError(f"{i} flows but {len(start_times)} start times")
    lines = "".join(f'$ns at {t!r} "snap t{t:g}"\n' for t in snaps)
    out.append(TAIL.format(snaps=lines, duration=sc["duration_s"]))
    return "".join(out)


def parse_ns2(stdout: str) -> Dict[str, Dict[str, Any]]:
    """Every snapshot: tag -> {"link": (fwd arrivals, fwd drops, rev
    arrivals, rev drops), "flows": {i: (ack_, nrexmitpack_, nrexmit_)}}."""
    snaps: Dict[str, Dict[str, Any]] = {}
    for line in stdout.splitlines():
        p = line.split()
        if len(p) >= 6 and p[1] == "link":
            snaps.setdefault(p[0], {"flows": {}})["link"] = tuple(int(float(x)) for x in p[2:6])
        elif len(p) >= 6 and p[1] == "flow":
            snaps.setdefault(p[0], {"flows": {}})["flows"][int(p[2])] = tuple(int(float(x)) for x in p[3:6])
    return snaps


def ns2_metrics(snaps: Dict[str, Dict[str, Any]], t0: str, t1: str, span: float, m: int, rate_bps: float,
                mss: int) -> Dict[str, float]:
    a, b = snaps[t0], snaps[t1]
    n = len(b["flows"])
    d = {i: [b["flows"][i][k] - a["flows"][i][k] for k in range(3)] for i in range(n)}
    fwd, rev = range(m), range(m, n)
    return {"fwd_util": sum(8 * mss * d[i][0] for i in fwd) / span / rate_bps,
            "rev_util": sum(8 * mss * d[i][0] for i in rev) / span / rate_bps,
            "fwd_link_arrivals": b["link"][0] - a["link"][0], "fwd_link_drops": b["link"][1] - a["link"][1],
            "rev_link_arrivals": b["link"][2] - a["link"][2], "rev_link_drops": b["link"][3] - a["link"][3],
            "fwd_retransmits": sum(d[i][1] for i in fwd), "fwd_timeouts": sum(d[i][2] for i in fwd),
            "rev_retransmits": sum(d[i][1] for i in rev), "rev_timeouts": sum(d[i][2] for i in rev)}


def run_ns2(sc: Dict[str, Any], start_times: List[float], m: int, ns: str, snap_s: float) -> Dict[str, Any]:
    warm, dur = sc["warmup_s"], sc["duration_s"]
    snaps = sorted({round(k * snap_s, 9) for k in range(1, int(dur / snap_s) + 1) if k * snap_s < dur} | {warm})
    snaps = [t for t in snaps if t > 0]
    program = tcl(sc, start_times, snaps)
    stdout, wall = run_tcl(program, ns, "fig15.tcl")
    s = parse_ns2(stdout)
    if "e" not in s or len(s["e"]["flows"]) != len(start_times):
        raise RuntimeError(f"ns-2 printed no final counters:\n{stdout[-2000:]}")
    rate, mss = sc["topology"]["bottleneck_rate_bps"], sc["flows"][0]["mss_bytes"]
    s["t0"] = {"link": (0, 0, 0, 0), "flows": {i: (-1, 0, 0) for i in range(len(start_times))}}
    w = f"t{warm:g}" if warm > 0 else "t0"
    res = ns2_metrics(s, w, "e", dur - warm, m, rate, mss)
    # the forward utilisation in each snapshot window
    tags = ["t0"] + [f"t{t:g}" for t in snaps] + ["e"]
    times = [0.0] + snaps + [dur]
    res["fwd_util_windows"] = [[times[k], times[k + 1],
                                round(ns2_metrics(s, tags[k], tags[k + 1], times[k + 1] - times[k], m, rate,
                                                  mss)["fwd_util"], 5)] for k in range(len(tags) - 1)]
    res["wall_s"] = wall
    return res


def run_ccsim(sc: Dict[str, Any], m: int) -> Dict[str, Any]:
    t0 = time.perf_counter()
    res = ccsim.run(sc)
    wall = time.perf_counter() - t0
    rate = sc["topology"]["bottleneck_rate_bps"]
    fl = res.raw["flows"]
    fwd, rev = fl[:m], fl[m:]
    link = {(x["from"], x["to"]): x for x in res.raw["links"]}
    lf, lr = link[("r0", "r1")], link[("r1", "r0")]
    return {"fwd_util": sum(f["goodput_bps"] for f in fwd) / rate,
            "rev_util": sum(f["goodput_bps"] for f in rev) / rate,
            "fwd_link_arrivals": lf["arrivals"], "fwd_link_drops": lf["drops"],
            "rev_link_arrivals": lr["arrivals"], "rev_link_drops": lr["drops"],
            "fwd_retransmits": sum(f["retransmits"] for f in fwd), "fwd_timeouts": sum(f["timeouts"] for f in fwd),
            "rev_retransmits": sum(f["retransmits"] for f in rev), "rev_timeouts": sum(f["timeouts"] for f in rev),
            "wall_s": wall}


def show(m: int, side: str, r: Dict[str, Any]) -> None:
    print(f"M={m:3d} {side:6s} fwd util {r['fwd_util']:.4f}  rev util {r['rev_util']:.4f}  "
          f"fwd drops {r['fwd_link_drops']}/{r['fwd_link_arrivals']}  rev drops {r['rev_link_drops']}/"
          f"{r['rev_link_arrivals']}  fwd rexmit {r['fwd_retransmits']} fwd RTO {r['fwd_timeouts']}  "
          f"rev RTO {r['rev_timeouts']}  wall {r['wall_s']:.1f} s", flush=True)
    if "fwd_util_windows" in r:
        print("      windows: " + ", ".join(f"{a:g}-{b:g}: {u:.3f}" for a, b, u in r["fwd_util_windows"]), flush=True)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--m", type=int, nargs="+", default=[1, 25, 50], help="forward flow counts (1, 25, 50)")
    ap.add_argument("--rate", type=float, default=1e9, help="bottleneck rate, b/s (one of the experiment's)")
    ap.add_argument("--duration", type=float, default=80.0)
    ap.add_argument("--warmup", type=float, default=20.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--snap", type=float, default=10.0, help="ns-2 snapshot interval, s")
    side = ap.add_mutually_exclusive_group()
    side.add_argument("--ns2-only", action="store_true")
    side.add_argument("--ccsim-only", action="store_true")
    ap.add_argument("--json", type=Path, default=OUT, help=f"results file (default {OUT}); merged by key")
    ap.add_argument("--no-json", action="store_true", help="print only")
    a = ap.parse_args(argv)
    ns = shutil.which("ns")
    if not a.ccsim_only and ns is None:
        print("error: ns-2.35 not found (apt-get install ns2)", file=sys.stderr)
        return 2
    rec = json.loads(a.json.read_text()) if a.json.exists() else {"runs": {}}
    for m in a.m:
        sc = scenario(m, a.rate, a.duration, a.warmup, a.seed)
        st = starts(sc)
        key = f"M={m} rate={a.rate:g} dur={a.duration:g} warm={a.warmup:g} seed={a.seed}"
        row = rec["runs"].get(key, {})
        row.update({"m": m, "rate_bps": a.rate, "duration_s": a.duration, "warmup_s": a.warmup, "seed": a.seed,
                    "starts_s": st})
        if not a.ccsim_only:
            row["ns2"] = run_ns2(sc, st, m, ns, a.snap)
            row["ns2_date"] = _dt.date.today().isoformat()
            show(m, "ns-2", row["ns2"])
        if not a.ns2_only:
            row["ccsim"] = run_ccsim(sc, m)
            row["ccsim_version"] = ccsim.__version__
            show(m, "ccsim", row["ccsim"])
        rec["runs"][key] = row
        if not a.no_json:
            a.json.parent.mkdir(parents=True, exist_ok=True)
            a.json.write_text(json.dumps(rec, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
