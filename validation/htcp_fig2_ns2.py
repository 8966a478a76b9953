"""``htcp-fig2`` (two AIMD sources, alpha = 2 (1 - beta)) in ns-2.35 and in
ccsim, on exactly the scenario the experiment runs (notes:
/work/notes/htcp-fig2.md).

    python -m validation.htcp_fig2_ns2 [--pairs 0.4,0.8 1.5,0.25] [--t2 20 21 ...] [--quick]
                                       [--no-ns2] [--no-ccsim] [--json FILE]

ccsim's side is the experiment's own scenario (``htcp.fig2.scenarios()``,
the sweep point of the pair: 10 Mb/s DropTail bottleneck, ``limit_pkts``
39, 10 ms one way; 100 Gb/s edge links whose delay makes each flow's
round-trip propagation 100 ms, i.e. 20 ms one way each; 1000 + 40-byte
packets; flow 0 AIMD(1, 0.5) from 0 s, flow 1 AIMD(alpha, beta) from 20 s;
htcp controller with fixed beta in ns-2 mode, ``recovery = "sack"`` i.e.
ns-2's Sack1; cwnd sampled every 10 ms; 400 s, statistics after 60 s).

ns-2.35's side: the same dumbbell (``duplex-link`` 10Mb 10ms DropTail,
``queue-limit`` 40 = ccsim's 39 waiting + 1; edges 100Gb 20ms with
queue-limit 100000), ``Agent/TCP/Sack1`` + ``Agent/TCPSink/Sack1`` + FTP,
``packetSize_`` 1000, ``window_`` 100000 (ccsim has no receive window),
every other TcpAgent default of 2.35 (``windowOption_`` 1,
``precisionReduce_`` true, ``windowInit_`` 2, ``bugFix_`` true); the AIMD
parameters are TcpAgent's generic ones: ``increase_num_`` alpha (window
option 1 adds increase_num_/cwnd per ACK) and ``decrease_num_`` beta
(``slowdown``: cwnd = decrease_num_ * cwnd, ssthresh its integer part; the
first decrease and any in slow start halve). cwnd_ and ssthresh_ of both
agents are sampled every 10 ms by a Tcl loop, and the series is analysed
by the experiment's own functions (``backoffs``, ``congestion_events``
with its gap of two full-queue RTTs): mean windows at congestion events
after 60 s, ratio w2/w1, events each flow backed off in, measured beta.

``--t2`` re-runs both with the second flow starting at other times (the
runs are deterministic; the start sets the phase of the two flows'
congestion epochs). One simulation at a time, under ``nice``. Needs ``ns`` on PATH unless
``--no-ns2``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

import pandas as pd

import ccsim
from ccsim.experiments.htcp import fig2, full_rtt_s
from ccsim.experiments import first_stage
from ccsim.experiments._kit.analysis import backoffs, congestion_events
from ccsim.experiments._kit.ns2ref import ns2_clock_scenario

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "htcp" / "fig2-ns2.json"

TCL = r"""
# written by validation/htcp_fig2_ns2.py
foreach {a2 b2 dur t2 dt out} $argv {}
set ns [new Simulator]
Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 100000
set r0 [$ns node]
set r1 [$ns node]
$ns duplex-link $r0 $r1 10Mb 10ms DropTail
$ns queue-limit $r0 $r1 40
$ns queue-limit $r1 $r0 40
set params [list [list 1.0 0.5 0.0] [list $a2 $b2 $t2]]
for {set i 0} {$i < 2} {incr i} {
    foreach {a b st} [lindex $params $i] {}
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r0 100Gb 20ms DropTail
    $ns duplex-link $r1 $d($i) 100Gb 20ms DropTail
    foreach {x y} [list $s($i) $r0 $r0 $s($i) $r1 $d($i) $d($i) $r1] { $ns queue-limit $x $y 100000 }
    set tcp($i) [new Agent/TCP/Sack1]
    $tcp($i) set fid_ $i
    $tcp($i) set increase_num_ $a
    $tcp($i) set decrease_num_ $b
    set sink($i) [new Agent/TCPSink/Sack1]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at $st "$ftp($i) start"
}
set qm [$ns monitor-queue $r0 $r1 [open /dev/null w] 1.0]
set f [open $out w]
proc sample {} {
    global ns tcp f dt
    set t [$ns now]
    for {set i 0} {$i < 2} {incr i} {
        puts $f "$t $i [$tcp($i) set cwnd_] [$tcp($i) set ssthresh_]"
    }
    $ns at [expr {$t + $dt}] "sample"
}
$ns at $dt "sample"
proc finish {} {
    global f qm tcp
    close $f
    puts "DROPS [$qm set pdrops_]"
    for {set i 0} {$i < 2} {incr i} { puts "TCP $i [$tcp($i) set nrexmit_] [$tcp($i) set nrexmitpack_] [$tcp($i) set ack_]" }
    exit 0
}
$ns at $dur "finish"
$ns run
"""


class _Series:
    """What the experiment's analysis reads of a result: ``flow_series``."""

    def __init__(self, fs: pd.DataFrame):
        self.flow_series = fs


def analyse(res, a2: float, b2: float, quick: bool) -> Dict:
    """The experiment's analysis of one pair (fig2.analyse), on any object
    with a ``flow_series``."""
    _, t2, t_stats = fig2.setting(quick)
    gap = 2 * full_rtt_s(fig2.NET["rtt_s"], fig2.NET["rate_bps"], fig2.NET["queue_pkts"])
    bo = backoffs(res, gap)
    ev = congestion_events(res, bo, [0.0, t2], gap)
    e = ev[ev.time_s > t_stats]
    w = e[["w0", "w1"]].to_numpy(dtype=float)
    dr = e[["drop0", "drop1"]].to_numpy(dtype=bool)
    ca = bo[~bo.slow_start & (bo.time_s > t_stats)]
    mw = w.mean(axis=0)
    return {"alpha2": a2, "beta2": b2, "events": int(len(e)),
            "backoffs1": int(dr[:, 0].sum()), "backoffs2": int(dr[:, 1].sum()), "both": int((dr[:, 0] & dr[:, 1]).sum()),
            "w1_mean": float(mw[0]), "w2_mean": float(mw[1]), "ratio_w2_w1": float(mw[1] / mw[0]),
            "drop_freq1": float(dr[:, 0].mean()), "drop_freq2": float(dr[:, 1].mean()),
            "beta1_measured": float(ca[ca.flow == 0].beta.mean()), "beta2_measured": float(ca[ca.flow == 1].beta.mean()),
            "sum_w_mean": float(w.sum(axis=1).mean())}


def scenario(a2: float, b2: float, quick: bool, clock: bool = False) -> dict:
    """The experiment's run of the pair as the driver gives it
    (``experiments.first_stage``: ns-2 tie order ``arrival_first`` on every
    queue, the papers' TCP defaults); ``clock``: also ns-2's
    floating-point event order (``ns2ref.ns2_clock_scenario``)."""
    sw = first_stage(fig2, quick)[0]
    i = [tuple(p) for p in sw.labels].index((a2, b2))
    sc = json.loads(json.dumps(sw.base))
    sc["flows"][1] = sw.points[i]["flows.1"]
    return ns2_clock_scenario(sc) if clock else sc


def run_ns2(a2: float, b2: float, quick: bool, t2: float = None) -> Dict:
    dur, t2_exp, _ = fig2.setting(quick)
    t2 = t2_exp if t2 is None else t2
    with tempfile.TemporaryDirectory() as td:
        tcl, out = Path(td) / "fig2.tcl", Path(td) / "cwnd.txt"
        tcl.write_text(TCL)
        t0 = time.time()
        p = subprocess.run(["nice", "ns", str(tcl), str(a2), str(b2), str(dur), str(t2), "0.01", str(out)],
                           capture_output=True, text=True, check=True)
        wall = time.time() - t0
        fs = pd.read_csv(out, sep=" ", names=["time_s", "flow", "cwnd", "ssthresh"])
    info = {"wall_s": round(wall, 1)}
    for line in p.stdout.splitlines():
        w = line.split()
        if w[0] == "DROPS":
            info["bottleneck_drops"] = int(w[1])
        elif w[0] == "TCP":
            info[f"flow{w[1]}"] = {"nrexmit": int(w[2]), "nrexmitpack": int(w[3]), "ack": int(w[4])}
    fs = fs[fs.time_s <= dur + 1e-9]
    return {**analyse(_Series(fs), a2, b2, quick), "ns2": info}


def run_ccsim(a2: float, b2: float, quick: bool, clock: bool = False, t2: float = None) -> Dict:
    t0 = time.time()
    sc = scenario(a2, b2, quick, clock)
    if t2 is not None:
        sc["flows"][1]["start_s"] = t2
    res = ccsim.run(sc)
    wall = time.time() - t0
    out = analyse(res, a2, b2, quick)
    fl = res.flows
    out["ccsim"] = {"wall_s": round(wall, 1), "bottleneck_drops": int(res.links.drops[0]),
                    "goodput_bps": [float(x) for x in fl.goodput_bps],
                    "retransmits": [int(x) for x in fl.retransmits] if "retransmits" in fl else None,
                    "timeouts": [int(x) for x in fl.timeouts] if "timeouts" in fl else None}
    return out


def main(argv: List[str] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", nargs="+", default=["0.4,0.8", "1.5,0.25"])
    ap.add_argument("--t2", type=float, nargs="+", default=[None],
                    help="second flow's start times (default: the experiment's 20 s); rows keyed by it")
    ap.add_argument("--quick", action="store_true", help="the experiment's quick setting (150 s)")
    ap.add_argument("--no-ns2", action="store_true")
    ap.add_argument("--no-ccsim", action="store_true")
    ap.add_argument("--json", type=Path, default=RESULTS)
    a = ap.parse_args(argv)
    rec = {"what": __doc__.splitlines()[0].strip(), "date": _dt.date.today().isoformat(),
           "quick": a.quick, "ccsim_version": getattr(ccsim, "__version__", None), "rows": []}
    if a.json.exists():
        try:
            old = json.loads(a.json.read_text())
            if old.get("quick") == a.quick:
                rec["rows"] = old.get("rows", [])
        except ValueError:
            pass
    a.json.parent.mkdir(parents=True, exist_ok=True)
    for pair in a.pairs:
        a2, b2 = (float(x) for x in pair.split(","))
        for t2, (sim, fn, skip) in ((t, s) for t in a.t2 for s in (
                ("ns-2.35", lambda x, y, q, t: run_ns2(x, y, q, t), a.no_ns2),
                ("ccsim", lambda x, y, q, t: run_ccsim(x, y, q, False, t), a.no_ccsim),
                ("ccsim-ns2clock", lambda x, y, q, t: run_ccsim(x, y, q, True, t), a.no_ccsim))):
            if skip:
                continue
            t2v = fig2.setting(a.quick)[1] if t2 is None else t2
            r = {"simulator": sim, "t2": t2v, **fn(a2, b2, a.quick, t2)}
            rec["rows"] = [x for x in rec["rows"] if not (x["simulator"] == sim and x["alpha2"] == a2
                                                          and x["beta2"] == b2 and x.get("t2") == t2v)] + [r]
            a.json.write_text(json.dumps(rec, indent=1))  # partial results as we go
            print(f"{sim:14s} t2 {t2v:g} (1,0.5) vs ({a2:g},{b2:g}): events {r['events']}, backoffs {r['backoffs1']}/"
                  f"{r['backoffs2']} (both {r['both']}), w1 {r['w1_mean']:.2f} w2 {r['w2_mean']:.2f} "
                  f"ratio {r['ratio_w2_w1']:.3f}, beta {r['beta1_measured']:.3f}/{r['beta2_measured']:.3f}",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
