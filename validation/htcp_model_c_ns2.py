"""``htcp-model`` (C), Figs 6-7 (three standard TCP flows, RTT 100, 150 and
200 ms, on the 10 Mb/s, 40-packet DropTail bottleneck, with ns-2's
``overhead_`` send jitter of 0.832 ms; 600 s, events after 60 s) in ccsim
and in ns-2.35, over seeds: the shares of the mean window at congestion
events, each flow's drop frequency (fraction of network congestion events
in which it backs off), its mean srtt, and the Perron shares of the
analytic prediction (alpha_bar = 1/T, every flow hit alike), of model (13)
with the measured drop frequencies (alpha_bar = 1/T and = 1/mean srtt) and
of alpha_bar = 1/mean srtt with every flow hit alike.

    python -m validation.htcp_model_c_ns2 [--ccsim-seeds 1 ... 10] [--ns2-seeds 1 ... 6]
                                          [--json validation/results/htcp/model-c-ns2.json]

ccsim's side is the experiment's own scenario (``htcp.model.scenarios(False)[2]``)
with the scenario seed set. ns-2.35's side: the same dumbbell as
``validation/htcp_fig2_ns2.py`` (``duplex-link`` 10Mb 10ms DropTail,
``queue-limit`` 40 = ccsim's 39 waiting + 1; 100Gb edges whose delays make
each flow's round-trip propagation 100/150/200 ms), ``Agent/TCP/Sack1`` +
``Agent/TCPSink/Sack1`` + FTP started at 0, 0.5 and 1 s, ``packetSize_``
1000, ``window_`` 100000, ``overhead_`` 0.000832 (what ccsim's
``send_jitter_s`` reproduces), every other default of 2.35; the
``defaultRNG`` seed sets the jitter's draws. cwnd, ssthresh and srtt of the
three agents are sampled every 10 ms and analysed by the experiment's own
functions (``backoffs``, ``congestion_events`` with its gap of two
full-queue RTTs). One simulation at a time, ns-2 under ``nice``.
"""
from __future__ import annotations

import argparse
import copy
import datetime
import json
import subprocess
import tempfile
from pathlib import Path
from typing import Dict

import numpy as np
import pandas as pd

import ccsim
from ccsim.models import htcp as M
from ccsim.experiments.htcp import drops, full_rtt_s, model as H, windows
from ccsim.experiments._kit.analysis import backoffs, congestion_events
from ccsim.sweep import plan

OUT = Path(__file__).resolve().parent / "results" / "htcp" / "model-c-ns2.json"
STARTS = [0.0, 0.5, 1.0]
T_STATS = 60.0

TCL = r"""
foreach {seed dur dt out} $argv {}
global defaultRNG
$defaultRNG seed $seed
set ns [new Simulator]
Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 100000
Agent/TCP set overhead_ 0.000832
set r0 [$ns node]
set r1 [$ns node]
$ns duplex-link $r0 $r1 10Mb 10ms DropTail
$ns queue-limit $r0 $r1 40
$ns queue-limit $r1 $r0 40
set params [list [list 0.1 0.0] [list 0.15 0.5] [list 0.2 1.0]]
for {set i 0} {$i < 3} {incr i} {
    foreach {rtt st} [lindex $params $i] {}
    set e [expr {($rtt / 2.0 - 0.01) / 2.0}]
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r0 100Gb ${e}s DropTail
    $ns duplex-link $r1 $d($i) 100Gb ${e}s DropTail
    foreach {x y} [list $s($i) $r0 $r0 $s($i) $r1 $d($i) $d($i) $r1] { $ns queue-limit $x $y 100000 }
    set tcp($i) [new Agent/TCP/Sack1]
    $tcp($i) set fid_ $i
    set sink($i) [new Agent/TCPSink/Sack1]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at $st "$ftp($i) start"
}
set f [open $out w]
proc sample {} {
    global ns tcp f dt
    set t [$ns now]
    for {set i 0} {$i < 3} {incr i} {
        puts $f "$t $i [$tcp($i) set cwnd_] [$tcp($i) set ssthresh_] [expr {[$tcp($i) set srtt_] / 8.0 * [$tcp($i) set tcpTick_]}]"
    }
    $ns at [expr {$t + $dt}] "sample"
}
$ns at $dt "sample"
proc finish {} {
    global f
    close $f
    exit 0
}
$ns at $dur "finish"
$ns run
"""


class _Series:
    def __init__(self, fs: pd.DataFrame):
        self.flow_series = fs


def analyse(res, simulator: str, seed: int) -> Dict:
    n = len(H.MODEL_C_RTTS)
    gap = 2 * full_rtt_s(max(H.MODEL_C_RTTS), H.RATE, H.QUEUE)
    bo = backoffs(res, gap)
    ev = congestion_events(res, bo, STARTS, gap)
    e = ev[ev.time_s > T_STATS]
    w, d = windows(e, n), drops(e, n)
    share = w.mean(axis=0) / w.mean(axis=0).sum()
    p = d.mean(axis=0)
    fs = res.flow_series
    srtt = np.array([fs[(fs.flow == i) & (fs.time_s > T_STATS)].srtt_s.mean() for i in range(n)])
    inv_t, half = 1.0 / np.array(H.MODEL_C_RTTS), np.full(n, 0.5)
    r = lambda v: [round(float(x), 4) for x in v]
    return {"simulator": simulator, "seed": seed, "events": int(len(e)), "share": r(share), "drop_freq": r(p),
            "mean_srtt_s": r(srtt), "analytic_1/T_equal_hits": r(M.perron_vector(inv_t, half)),
            "model13_1/T_measured_hits": r(M.unsync_fixed_point_shares(inv_t, half, p)),
            "model13_1/srtt_measured_hits": r(M.unsync_fixed_point_shares(1.0 / srtt, half, p)),
            "1/srtt_equal_hits": r(M.perron_vector(1.0 / srtt, half))}


def run_ccsim(seed: int) -> Dict:
    sc = copy.deepcopy(plan(H.scenarios(False)[2].base, [{"seed": seed}])[0].scenario)
    return analyse(ccsim.run(sc), "ccsim", seed)


def run_ns2(seed: int) -> Dict:
    with tempfile.TemporaryDirectory() as td:
        tcl, out = Path(td) / "c.tcl", Path(td) / "cwnd.txt"
        tcl.write_text(TCL)
        subprocess.run(["nice", "ns", str(tcl), str(seed), "600", "0.01", str(out)], check=True, capture_output=True)
        fs = pd.read_csv(out, sep=" ", names=["time_s", "flow", "cwnd", "ssthresh", "srtt_s"])
    return analyse(_Series(fs), "ns-2.35", seed)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ccsim-seeds", type=int, nargs="*", default=list(range(1, 11)))
    ap.add_argument("--ns2-seeds", type=int, nargs="*", default=list(range(1, 7)))
    ap.add_argument("--json", type=Path, default=OUT)
    a = ap.parse_args()
    rows = []
    for sim, seeds, fn in (("ccsim", a.ccsim_seeds, run_ccsim), ("ns-2.35", a.ns2_seeds, run_ns2)):
        for seed in seeds:
            rows.append(fn(seed))
            print(json.dumps(rows[-1]), flush=True)
            a.json.parent.mkdir(parents=True, exist_ok=True)
            a.json.write_text(json.dumps({"date": datetime.date.today().isoformat(), "ccsim_version": ccsim.__version__,
                                          "command": "python -m validation.htcp_model_c_ns2", "rows": rows},
                                         indent=1) + "\n")


if __name__ == "__main__":
    main()
