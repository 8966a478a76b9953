"""Run the E-TCP and LTCP papers' TCP baseline rows in ns-2.35 and ccsim and
record both (the reference files of ``etcp-ns2`` and ``ltcp-ns2``).

    python -m validation.ns2_baselines [etcp|ltcp ...] [--seeds N] [--only TEXT] [--ccsim-only]
    python -m validation.ns2_baselines etcp --only fig8 --stats

Needs ``ns`` (``apt-get install ns2``; ``python -m validation.run --peer
ns2`` installs it). The rows and ccsim's scenarios come from the
experiments (``ROWS`` and ``scenario(row, seed)`` in
``ccsim.experiments.etcp.ns2`` and ``ccsim.experiments.ltcp.ns2``); this
module writes the same network in Tcl (:func:`tcl`) from ccsim's scenario
dict, so the two cannot drift apart:

* dumbbell: one source and one sink node per flow, routers r0 and r1; the
  bottleneck duplex at its rate and delay with a DropTail each way;
  edge links at
  ``edge_rate_bps`` with ``edge_delay_s`` or, without it, the delay that
  gives the flow's RTT (``(rtt/2 - bottleneck_delay)/2``, as ccsim's
  builder does), edge queues of ``edge_queue.limit_pkts`` (ccsim's default
  100,000 otherwise). Queue limits: ccsim's ``limit_pkts`` counts the
  packets waiting; ns-2's DropTail drops when ``length() + 1 >= qlim_``
  (drop-tail.cc ``enque``), so ``queue-limit B`` holds B - 1 waiting and
  the Tcl gets ``limit_pkts + 1``: both hold B waiting plus the one being
  sent.
* packets: ns-2's ``packetSize_`` is the payload: ``TcpAgent::output``
  adds ``headersize()`` (40 bytes without timestamps, tcp.cc) to it on the
  wire, so ``packetSize_`` is ccsim's ``mss_bytes`` and ``header_bytes``
  must be 40; ACKs are 40 bytes on both sides.
* agents: ``recovery = "newreno"`` is ``Agent/TCP/Newreno`` with
  ``Agent/TCPSink``; ``"sack"`` is ``Agent/TCP/Sack1`` with
  ``Agent/TCPSink/Sack1`` (so is ``"sack1"``, ccsim's model of that
  agent); ``cc = "hstcp"`` adds ``windowOption_ 8`` with
  ``max_ssthresh_`` and ``low_window_`` from ``cc_params`` (and needs
  ``lss = "ns2"``, ns-2's Limited Slow-Start). ``window_`` is
  ``rwnd_pkts``, ``windowInit_`` is ``init_cwnd_pkts``; ``syn = "ns2"`` is
  ns-2's default start-up (``syn_``, ``delay_growth_`` true: nothing
  written), ``"none"`` writes ``syn_ false`` and ``delay_growth_ false``,
  ``"ns2_no_delay_growth"`` ``delay_growth_ false``; everything else is
  ns-2's default (which ccsim's ns-2 mode follows: ``ns2ref.NS2_TCP``).
* start times: each flow's ``start_s``; seed: ``$defaultRNG seed`` (it
  draws each agent's ``boot_time_`` tick phase, as ccsim's seed does).
* measured: from ``warmup_s`` to ``duration_s``: goodput from the change
  of each agent's ``ack_`` (1000-byte payloads), arrivals and drops at the
  forward bottleneck (``monitor-queue``), retransmitted packets
  (``nrexmitpack_``) and timeouts (``nrexmit_``).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import hashlib
import json
import math
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import ccsim
from ccsim.experiments._kit import ns2ref
from ccsim.experiments._kit.analysis import jain
from ccsim.experiments.etcp import ns2 as etcp_ns2
from ccsim.experiments.ltcp import ns2 as ltcp_ns2

from .seed_stats import compare

EXPERIMENTS = {"etcp": etcp_ns2, "ltcp": ltcp_ns2}
EDGE_QUEUE_DEFAULT = 100_000

HEAD = r"""
set ns [new Simulator]
global defaultRNG
$defaultRNG seed {seed}
set r0 [$ns node]
set r1 [$ns node]
$ns duplex-link $r0 $r1 {rate}bps {bdelay}s DropTail
$ns queue-limit $r0 $r1 {limit}
$ns queue-limit $r1 $r0 {limit}
set qmon [$ns monitor-queue $r0 $r1 [open /dev/null w] 1.0]
set n {n}
"""
FLOW = r"""
set s({i}) [$ns node]
set d({i}) [$ns node]
$ns duplex-link $s({i}) $r0 {edge_rate}bps {edge_delay}s DropTail
$ns duplex-link $r1 $d({i}) {edge_rate}bps {edge_delay}s DropTail
foreach {{a b}} [list $s({i}) $r0 $r0 $s({i}) $r1 $d({i}) $d({i}) $r1] {{ $ns queue-limit $a $b {edge_limit} }}
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
    global qmon tcp n
    puts "$tag link [$qmon set parrivals_] [$qmon set pdrops_]"
    for {{set i 0}} {{$i < $n}} {{incr i}} {{
        puts "$tag flow $i [$tcp($i) set ack_] [$tcp($i) set nrexmitpack_] [$tcp($i) set nrexmit_]"
    }}
}}
$ns at {warmup} "snap w"
$ns at {duration} "snap e; exit 0"
$ns run
"""


def agent(f: Dict[str, Any]) -> tuple:
    """(agent class, sink class, extra Tcl) of one ccsim flow dict."""
    sinks = {"newreno": ("Agent/TCP/Newreno", "Agent/TCPSink"), "sack": ("Agent/TCP/Sack1", "Agent/TCPSink/Sack1"),
             "sack1": ("Agent/TCP/Sack1", "Agent/TCPSink/Sack1")}
    rec = f.get("recovery", "newreno")
    if rec not in sinks or f.get("cc", "reno") not in ("reno", "hstcp") or f.get("transport", "tcp") != "tcp":
        raise ValueError(f"no ns-2.35 agent for cc={f.get('cc')!r} recovery={rec!r}")
    if f.get("delayed_ack"):
        raise ValueError("delayed ACKs are not mapped (the papers' sinks ACK every segment)")
    syn = {"ns2": "", "none": "$tcp({i}) set syn_ false\n$tcp({i}) set delay_growth_ false\n",
           "ns2_no_delay_growth": "$tcp({i}) set delay_growth_ false\n"}
    if f.get("syn", "none") not in syn:
        raise ValueError(f"syn = {f.get('syn')!r} is not mapped; allowed: {', '.join(syn)}")
    extra = syn[f.get("syn", "none")]
    if f.get("cc") == "hstcp":
        p = f.get("cc_params") or {}
        if p.get("lss") != "ns2":
            raise ValueError("cc = \"hstcp\" needs cc_params.lss = \"ns2\" (ns-2's Limited Slow-Start)")
        low_window = round(math.sqrt(1.5 / p["low_p"])) if "low_p" in p else 38
        extra += (f"$tcp({{i}}) set windowOption_ 8\n$tcp({{i}}) set low_window_ {low_window}\n"
                 f"$tcp({{i}}) set max_ssthresh_ {int(p.get('max_ssthresh', 0))}\n")
    return sinks[rec][0], sinks[rec][1], extra


def tcl(sc: Dict[str, Any]) -> str:
    """The Tcl program of a ccsim dumbbell scenario dict (see the mapping)."""
    topo = sc["topology"]
    if topo["kind"] != "dumbbell":
        raise ValueError("only dumbbells are mapped")
    bdelay = topo.get("bottleneck_delay_s", 0.01)
    # + 1: ns-2's queue-limit counts the packet being sent (see the mapping)
    edge_limit = (topo.get("edge_queue") or {}).get("limit_pkts", EDGE_QUEUE_DEFAULT) + 1
    out = [HEAD.format(seed=sc.get("seed", 1), rate=repr(topo["bottleneck_rate_bps"]), bdelay=repr(bdelay),
                       limit=topo["bottleneck_queue"]["limit_pkts"] + 1, n=len(sc["flows"]))]
    for i, f in enumerate(sc["flows"]):
        if f.get("count", 1) != 1:
            raise ValueError("flows must be expanded to one entry each (ns2ref.expand)")
        f = ns2ref.engine_flow(f)  # the personality's fields, spelled out
        edge_delay = topo.get("edge_delay_s")
        if edge_delay is None:
            edge_delay = (f["rtt_s"] / 2 - bdelay) / 2
        if f["header_bytes"] != 40:
            raise ValueError(f"header_bytes {f['header_bytes']}: ns-2 without timestamps adds 40")
        a, s, extra = agent(f)
        out.append(FLOW.format(i=i, edge_rate=repr(topo.get("edge_rate_bps", 100e9)), edge_delay=repr(edge_delay),
                               edge_limit=edge_limit, agent=a, sink=s, pkt=f["mss_bytes"],
                               window=f.get("rwnd_pkts", 10_000_000), init=f.get("init_cwnd_pkts", 2),
                               extra=extra.replace("{i}", str(i)), start=f.get("start_s", 0.0)))
    out.append(TAIL.format(warmup=sc.get("warmup_s", 0.0) or 1e-9, duration=sc["duration_s"]))
    return "".join(out)


def parse(stdout: str, sc: Dict[str, Any], rate_bps: float) -> Dict[str, float]:
    """ns-2's counters at warm-up and end -> :data:`ns2ref.METRICS`."""
    snap: Dict[str, Dict[str, Any]] = {"w": {"flows": {}}, "e": {"flows": {}}}
    for line in stdout.splitlines():
        p = line.split()
        if len(p) >= 4 and p[0] in snap and p[1] == "link":
            snap[p[0]]["link"] = (int(float(p[2])), int(float(p[3])))
        elif len(p) >= 6 and p[0] in snap and p[1] == "flow":
            snap[p[0]]["flows"][int(p[2])] = (int(float(p[3])), int(float(p[4])), int(float(p[5])))
    w, e = snap["w"], snap["e"]
    if "link" not in e or len(e["flows"]) != len(sc["flows"]):
        raise RuntimeError(f"ns-2 printed no final counters:\n{stdout[-2000:]}")
    span = sc["duration_s"] - sc.get("warmup_s", 0.0)
    mss = [f["mss_bytes"] for f in sc["flows"]]
    # ack_ (highest cumulative ACK, in segments) is -1 before the first
    # ACK, so the difference counts segments delivered in order
    g = [8 * mss[i] * (e["flows"][i][0] - w["flows"][i][0]) / span for i in range(len(mss))]
    arrivals = e["link"][0] - w["link"][0]
    drops = e["link"][1] - w["link"][1]
    return {"utilisation": sum(g) / rate_bps, "loss_rate": drops / max(arrivals, 1),
            "retransmits": float(sum(e["flows"][i][1] - w["flows"][i][1] for i in range(len(mss)))),
            "timeouts": float(sum(e["flows"][i][2] - w["flows"][i][2] for i in range(len(mss)))), "jain": jain(g)}


#: each ns-2 run's numbers, keyed by the SHA-256 of its Tcl program: the
#: program (with ns-2.35 itself) fixes the run, so a cached result is the
#: run's own, and a sweep interrupted halfway (a 2.5 Gb/s Fig 8 seed takes
#: 6-11 minutes of ns-2) keeps every finished seed and resumes
SEED_CACHE = Path(__file__).resolve().parent / "results" / "ns2" / "seeds"


def cache_path(program: str) -> Path:
    return SEED_CACHE / f"{hashlib.sha256(program.encode()).hexdigest()[:20]}.json"


def run_tcl(program: str, ns: str, name: str = "row.tcl") -> tuple:
    """Run one Tcl program in ns-2 (in a scratch directory, as ``name``):
    its standard output and wall time; a failing ns raises with its stderr."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_text(program)
        t0 = time.perf_counter()
        out = subprocess.run([ns, str(path)], capture_output=True, text=True, cwd=tmp)
        wall = time.perf_counter() - t0
    if out.returncode != 0:
        raise RuntimeError(f"ns failed ({out.returncode}): {out.stderr[-2000:]}")
    return out.stdout, wall


def run_ns2(sc: Dict[str, Any], rate_bps: float, ns: str, row_id: str = "", cache: bool = False) -> tuple:
    """ns-2's metrics of one scenario and its wall time; with ``cache``,
    from (and into) :data:`SEED_CACHE` when this exact Tcl program has run
    before."""
    program = tcl(sc)
    cached = cache_path(program)
    if cache and cached.exists():
        c = json.loads(cached.read_text())
        return c["metrics"], c["wall_s"]
    stdout, wall = run_tcl(program, ns)
    metrics = parse(stdout, sc, rate_bps)
    if not cache:
        return metrics, wall
    SEED_CACHE.mkdir(parents=True, exist_ok=True)
    tmp_path = cached.with_suffix(".tmp")
    tmp_path.write_text(json.dumps({"row": row_id, "seed": sc.get("seed", 1), "metrics": metrics,
                                    "wall_s": wall, "date": _dt.date.today().isoformat()}, indent=1) + "\n")
    tmp_path.replace(cached)
    return metrics, wall


def run_ccsim(sc: Dict[str, Any], rate_bps: float) -> tuple:
    t0 = time.perf_counter()
    res = ccsim.run(sc)
    return ns2ref.measure(res.raw, rate_bps), time.perf_counter() - t0


@contextlib.contextmanager
def bottleneck_traces(sc: Dict[str, Any], ns: str, until_s: float) -> Iterator[tuple]:
    """Run the first ``until_s`` seconds of ``sc`` in both simulators with
    the forward bottleneck traced (ns-2's ``trace-queue`` of r0 -> r1,
    ccsim's ``trace=`` of the bottleneck, both in ns-2's trace format) and
    yield the two trace files' paths (ns-2's, ccsim's), which live until
    the block ends."""
    sc = dict(sc, duration_s=until_s, warmup_s=0.0)
    with tempfile.TemporaryDirectory() as tmp:
        ns2_tr, cc_tr = Path(tmp) / "ns2.tr", Path(tmp) / "ccsim.tr"
        src = tcl(sc).replace("set qmon [$ns monitor-queue $r0 $r1",
                              f"$ns trace-queue $r0 $r1 [open {ns2_tr} w]\nset qmon [$ns monitor-queue $r0 $r1", 1)
        run_tcl(src, ns)
        ccsim.run(sc, trace={"bottleneck": str(cc_tr)})
        yield ns2_tr, cc_tr


def bottleneck_drops(sc: Dict[str, Any], ns: str, until_s: float) -> Dict[str, List[tuple]]:
    """The (flow, segment) of every packet each simulator drops at the
    forward bottleneck in the first ``until_s`` seconds of ``sc``, in
    order (:func:`bottleneck_traces`)."""
    def drops(path: Path) -> List[tuple]:
        rows = (line.split() for line in path.read_text().splitlines())
        return [(int(f[7]), int(f[10])) for f in rows if f and f[0] == "d" and f[4] == "tcp"]

    with bottleneck_traces(sc, ns, until_s) as (ns2_tr, cc_tr):
        return {"ns2": drops(ns2_tr), "ccsim": drops(cc_tr)}


def mean(xs: List[Dict[str, float]]) -> Dict[str, float]:
    return {k: sum(x[k] for x in xs) / len(xs) for k in ns2ref.METRICS}


def record(name: str, seeds: List[int], only: Optional[str], ns: Optional[str], show: bool = True) -> Dict[str, Any]:
    """Run the experiment's rows in both simulators; write and return the
    record. ``ns`` None: re-run ccsim's side only, keeping each row's
    recorded ns-2 numbers and seeds (after a change on ccsim's side). A
    partial run (``only``) with other seeds than the record's records
    them on its rows (``"seeds"``), so the other rows keep theirs."""
    mod = EXPERIMENTS[name]
    rows = [r for r in mod.ROWS if only is None or only in r.id]
    ref_path = Path(mod.REFERENCE)
    keep = ref_path.exists() and (only is not None or ns is None)
    old = json.loads(ref_path.read_text()) if keep else {"rows": []}
    recs = {r["row"]["id"]: r for r in old.get("rows", [])}
    if ns is None:
        missing = [r.id for r in rows if r.id not in recs]
        if missing:
            raise SystemExit(f"error: --ccsim-only: no ns-2 record for {', '.join(missing)}; run with ns-2 first")
    default_seeds = old.get("seeds", seeds) if ns is None or only is not None else seeds
    for row in rows:
        per = {"ns2": [], "ccsim": []}
        walls = {"ns2": 0.0, "ccsim": 0.0}
        # a row recorded with its own seeds (--only ... --seeds N) keeps them
        row_seeds = seeds if ns is not None else recs[row.id].get("seeds", default_seeds)
        for s in row_seeds:
            sc = mod.scenario(row, s)
            if ns is not None:
                m, w = run_ns2(sc, row.rate_bps, ns, row.id, cache=True)
                per["ns2"].append(m)
                walls["ns2"] += w
            m, w = run_ccsim(sc, row.rate_bps)
            per["ccsim"].append(m)
            walls["ccsim"] += w
        prev = recs.get(row.id, {})
        ns2_side = mean(per["ns2"]) if ns is not None else prev["ns2"]
        ns2_wall = walls["ns2"] / len(seeds) if ns is not None else prev["ns2_wall_s"]
        rec = {"row": json.loads(json.dumps(asdict(row))), "ns2": ns2_side, "ccsim": mean(per["ccsim"]),
               "ns2_wall_s": ns2_wall, "ccsim_wall_s": walls["ccsim"] / len(row_seeds)}
        if row_seeds != default_seeds:
            rec["seeds"] = row_seeds
        # each seed's numbers, when there are several (the means' spread,
        # and the seed-by-seed pairs: both simulators draw the agents' tick
        # phases from ns-2's stream of the same seed, so their seeds pair up)
        if ns is not None and len(per["ns2"]) > 1:
            rec["ns2_seeds"] = per["ns2"]
        elif ns is None and "ns2_seeds" in prev:
            rec["ns2_seeds"] = prev["ns2_seeds"]
        if len(per["ccsim"]) > 1:
            rec["ccsim_seeds"] = per["ccsim"]
        recs[row.id] = rec
        if show:
            print_row(rec)
    order = [r.id for r in mod.ROWS]
    dates = {"date": _dt.date.today().isoformat()} if ns is not None else {
        "date": old.get("date"), "ccsim_date": _dt.date.today().isoformat()}
    out = {"source": "ns-2", "ns2_version": "2.35", "ccsim_version": ccsim.__version__, **dates,
           "seeds": default_seeds,
           "rows": sorted(recs.values(), key=lambda r: order.index(r["row"]["id"]) if r["row"]["id"] in order else 1e9)}
    ref_path.write_text(json.dumps(out, indent=1) + "\n")
    return out


def seed_stats(rec: Dict[str, Any]) -> Dict[str, Dict[str, float]]:
    """Per metric of a row recorded over several seeds on both sides: the
    means, seed standard deviations, Welch's t of ccsim - ns-2, and the
    paired t of the seed-by-seed differences (the same seed draws the same
    tick phases in both, so its two runs are not independent)."""
    a_runs, b_runs = rec.get("ns2_seeds") or [], rec.get("ccsim_seeds") or []
    if len(a_runs) < 2 or len(a_runs) != len(b_runs):
        return {}
    return {k: compare([x[k] for x in a_runs], [x[k] for x in b_runs]) for k in ns2ref.METRICS}


def print_stats(name: str, only: Optional[str]) -> None:
    """``--stats``: :func:`seed_stats` of every recorded row with seeds."""
    ref = json.loads(Path(EXPERIMENTS[name].REFERENCE).read_text())
    for rec in ref["rows"]:
        if only is not None and only not in rec["row"]["id"]:
            continue
        st = seed_stats(rec)
        if not st:
            continue
        print(f"{rec['row']['id']} ({len(rec['ns2_seeds'])} seeds a side): ns-2 mean ± sd, ccsim mean ± sd, "
              "difference, Welch's t, paired t")
        for k, v in st.items():
            print(f"  {k:12s} {v['ns2_mean']:10.4g} ± {v['ns2_sd']:<9.2g} {v['ccsim_mean']:10.4g} ± {v['ccsim_sd']:<9.2g} "
                  f"{(v['ccsim_mean'] - v['ns2_mean']) / v['ns2_mean']:+7.1%}  {v['welch_t']:+6.2f}  {v['paired_t']:+6.2f}")


def print_row(rec: Dict[str, Any]) -> None:
    cells = []
    for k in ns2ref.METRICS:
        a, b = rec["ns2"][k], rec["ccsim"][k]
        rel = f"{(b - a) / a:+.1%}" if a else ("=" if b == a else "n/a")
        cells.append(f"{k} {a:.4g}/{b:.4g} ({rel})")
    print(f"{rec['row']['id']:36} " + "; ".join(cells) +
          f"; wall {rec['ns2_wall_s']:.1f}/{rec['ccsim_wall_s']:.2f} s", flush=True)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("experiments", nargs="*", metavar="NAME",
                    help=f"which rows (default all: {', '.join(EXPERIMENTS)})")
    ap.add_argument("--seeds", type=int, default=1, help="seeds 1..N per row (default 1)")
    ap.add_argument("--only", metavar="TEXT", help="only rows whose id contains TEXT (others stay recorded)")
    ap.add_argument("--ccsim-only", action="store_true",
                    help="re-run ccsim's side only, keeping the recorded ns-2 numbers and seeds (no ns needed); "
                         "also refreshes validation/results/ns2/ns2.json and docs/validation.md's table")
    ap.add_argument("--stats", action="store_true",
                    help="print each recorded row's per-seed statistics (means, sd, Welch's and paired t); "
                         "runs nothing")
    a = ap.parse_args(argv)
    if a.stats:
        for name in a.experiments or list(EXPERIMENTS):
            print_stats(name, a.only)
        return 0
    ns = None if a.ccsim_only else shutil.which("ns")
    if ns is None and not a.ccsim_only:
        print("error: ns-2.35 not found (apt-get install ns2, or python -m validation.run --peer ns2)",
              file=sys.stderr)
        return 2
    bad = [n for n in a.experiments if n not in EXPERIMENTS]
    if bad:
        ap.error(f"unknown experiment(s) {', '.join(bad)}; allowed: {', '.join(EXPERIMENTS)}")
    if a.seeds < 1:
        ap.error(f"--seeds: {a.seeds}; allowed: 1 or more")
    for name in a.experiments or list(EXPERIMENTS):
        record(name, list(range(1, a.seeds + 1)), a.only, ns)
    if a.ccsim_only:
        # the suite's results file and docs/validation.md show the new column
        from .ns2_suite import refresh_baselines
        refresh_baselines()
    return 0


if __name__ == "__main__":
    sys.exit(main())
