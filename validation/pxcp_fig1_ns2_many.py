"""``pxcp-fig1``'s non-paced XCP at many flows (for the 800-flow
maximum occupancy) in ns-2.35 and in ccsim, with the maximum bottleneck
queue split into the start-up (before ``--after`` s) and the part after it.

    python -m validation.pxcp_fig1_ns2_many [--flows 800] [--seed 1] [--capacity 0.9]
                                            [--duration 30] [--warmup 15] [--after 15]
                                            [--no-ns2] [--json FILE]

ccsim's side is the experiment's own scenario as ``ccsim reproduce`` runs it
(``first_stage(fig1, False)``: ns-2 tie order, the papers' TCP), the
``N.P. XCP O.P.`` sweep at its ``--flows`` point (per direction, two-way),
with the routers' capacity set to ``--capacity`` of the link rate (0.9:
C.P.'s capacity with O.P.'s gains, the C.P. half that ns-2.35 can run:
its gains are compile-time constants in xcpq.cc) and the run shortened to
``--duration`` (the start-up is over by 15 s: flows start in [0, 10] s).
It runs with ``qdelay`` and a 0.1 s series: per interval, the largest
queueing delay of a packet served on the forward bottleneck times the link
rate is the largest backlog a packet found then (bytes ahead of it, the
residue of the packet in service included).

ns-2.35's side is :mod:`validation.pxcp_fig1_ns2`'s network built from
ccsim's run (each flow's drawn start and access-link delay; Queue/XCP both
ways in byte mode at 6,375,500 bytes with ``set-link-capacity`` rate x
capacity; 2.4 Gb/s access links with 6,375,500-byte DropTail in byte mode;
Agent/TCP/Reno/XCP + XCPSink, ``packetSize_`` 950 = 1000 bytes on the wire
with the timestamp option, 40-byte ACKs, ``timestamps_``, ``tcpTick_``
0.1 ms, ``rtxcur_init_`` 6 s, ``window_`` 1e7), without the per-access-link
monitors (no access queue can fill: 6.4 MB each), with manual routes
(``rtproto Manual``: each access node's default route to its router, each
router's route to its own access nodes and a default over the bottleneck;
static routing computes all pairs of the 3,202 nodes of 800 flows per
direction first, about 9 minutes here; a dumbbell has one path per pair,
so the paths are the same). The forward bottleneck's
``trace-queue`` is read through a FIFO: its queue in bytes (packets
enqueued, not yet dequeued, the arriving one included) at every arrival;
utilisation from the dequeued bytes after the warm-up.

Reported: utilisation over [warm-up, end], the maximum queue over the run
and after ``--after`` s (bytes), bottleneck drops both ways, the flows'
timeouts, and each second's largest backlog after ``--after``. One
simulation at a time (ns-2 at ``nice 5``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, Optional

import ccsim
from ccsim.experiments import pxcp

from validation.pxcp_fig1_ns2 import ACK_BYTES, NS2_PSIZE
from validation.pxcp_fig1_peak import scenario as fig1_scenario

TCL = r"""
# written by validation/pxcp_fig1_ns2_many.py
set params [open [lindex $argv 0] r]
gets $params line
close $params
foreach {rate delay qbytes cap erate eq psize asize dur rto_init} $line {}
set ns [new Simulator]
# manual routes (a dumbbell has one path per pair): static routing would
# compute all pairs of the 3,202 nodes of 800 flows per direction first
$ns rtproto Manual
proc route {n args} { eval [list [$n get-module "Manual"] add-route-to-adj-node] $args }
if {$argc > 3} { $defaultRNG seed [lindex $argv 3] }
Agent/TCP set packetSize_ $psize
Agent/TCPSink set packetSize_ $asize
Agent/TCP set window_ 10000000
Agent/TCP set timestamps_ true
Agent/TCP set tcpTick_ 0.0001
Agent/TCP set rtxcur_init_ $rto_init

proc bytelimit {q bytes} {
    $q set queue_in_bytes_ true
    $q set mean_pktsize_ 1
    $q set limit_ $bytes
}
set r0 [$ns node]
set r1 [$ns node]
$ns duplex-link $r0 $r1 $rate ${delay}s XCP
foreach {a b} [list $r0 $r1 $r1 $r0] {
    set q [[$ns link $a $b] queue]
    bytelimit [$q set vq_(0)] $qbytes
    $q set-link-capacity $cap
}
route $r0 -default $r1
route $r1 -default $r0
set tf [open [lindex $argv 2] w]
$ns trace-queue $r0 $r1 $tf
set qmf [$ns monitor-queue $r0 $r1 [open /dev/null w] 1.0]
set qmr [$ns monitor-queue $r1 $r0 [open /dev/null w] 1.0]

set f [open [lindex $argv 1] r]
set ids {}
while {[gets $f line] >= 0} {
    foreach {fid dir edel start} $line {}
    lappend ids $fid
    set s [$ns node]
    set d [$ns node]
    if {$dir == 0} { set in $r0; set out $r1 } else { set in $r1; set out $r0 }
    $ns duplex-link $s $in $erate ${edel}s DropTail
    $ns duplex-link $out $d $erate ${edel}s DropTail
    foreach {a b} [list $s $in $in $s $out $d $d $out] {
        bytelimit [[$ns link $a $b] queue] $eq
    }
    route $s -default $in
    route $d -default $out
    route $in $s
    route $out $d
    set tcp($fid) [new Agent/TCP/Reno/XCP]
    $tcp($fid) set fid_ $fid
    set sink [new Agent/TCPSink/XCPSink]
    $ns attach-agent $s $tcp($fid)
    $ns attach-agent $d $sink
    $ns connect $tcp($fid) $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp($fid)
    $ns at $start "$ftp start"
}
close $f
puts "B [clock seconds]"
proc finish {} {
    global qmf qmr ids tcp tf
    set to 0
    foreach i $ids { incr to [$tcp($i) set nrexmit_] }
    puts "E [$qmf set pdrops_] [$qmr set pdrops_] $to"
    close $tf
    exit 0
}
$ns at $dur finish
$ns run
"""


def run_ccsim(n: int, seed: Optional[int], capacity: float, duration: float, warmup: float,
              after: float) -> Dict[str, Any]:
    sc = fig1_scenario("N.P. XCP O.P.", n, seed, duration)
    sc["warmup_s"] = warmup
    sc["sample_interval_s"] = 0.1
    sc["topology"]["bottleneck_queue"]["xcp"]["capacity"] = capacity
    t0 = time.perf_counter()
    r = ccsim.run(sc)
    b = r.bottleneck()
    ls = r.link_series
    ls = ls[ls["link"] == b["id"]]
    per_s: Dict[int, float] = {}
    for t, q in zip(ls["time_s"], ls["qdelay_max_s"].fillna(0.0)):
        k = int(round(t * 10 - 1)) // 10  # the interval (t - 0.1, t] lies in second k
        per_s[k] = max(per_s.get(k, 0.0), q * pxcp.RATE / 8)
    links = r.raw["links"]
    fl = r.raw["flows"]
    return {
        "scenario_seed": r.raw.get("seed"), "wall_s": round(time.perf_counter() - t0, 1),
        "utilization": float(b["utilization"]), "max_queue_bytes": int(b["max_queue_bytes"]),
        "max_backlog_after_bytes": round(max(v for k, v in per_s.items() if k >= after)),
        "backlog_by_second": {k: round(v) for k, v in sorted(per_s.items())},
        "bottleneck_drops": int(links[0]["drops"]), "reverse_bottleneck_drops": int(links[1]["drops"]),
        "drops_all": int(r.raw["conservation"]["dropped"]),
        "timeouts": int(sum(f["timeouts"] for f in fl)),
        "flows": [{"id": f["id"], "dir": int(f["entry"]), "start_s": f["start_s"], "rtt_prop_s": f["rtt_prop_s"],
                   "edge_delay_s": next(l["delay_s"] for l in links if l["name"] == f"s{f['id']}->r{f['entry']}")}
                  for f in fl],
    }


def run_ns2(c: Dict[str, Any], seed: Optional[int], capacity: float, duration: float, warmup: float,
            after: float) -> Dict[str, Any]:
    rate, rot = pxcp.RATE, pxcp.ROT_BUFFER
    init_rto = pxcp.flow("XCP", "N.P.")["init_rto_s"]
    with tempfile.TemporaryDirectory() as d:
        tcl = os.path.join(d, "many.tcl")
        Path(tcl).write_text(TCL)
        Path(d, "params").write_text(
            f"{rate:.0f} {pxcp.BOTTLENECK_DELAY} {rot} {rate * capacity:.0f} {pxcp.EDGE_RATE:.0f} {rot} "
            f"{NS2_PSIZE} {ACK_BYTES} {duration} {init_rto}\n")
        with open(os.path.join(d, "flows"), "w") as f:
            for fl in c["flows"]:
                f.write(f"{fl['id']} {fl['dir']} {fl['edge_delay_s']!r} {fl['start_s']!r}\n")
        fifo = os.path.join(d, "trace")
        os.mkfifo(fifo)
        t0 = time.perf_counter()
        proc = subprocess.Popen(["nice", "-n", "5", "ns", tcl, os.path.join(d, "params"), os.path.join(d, "flows"),
                                 fifo] + ([str(seed)] if seed is not None else []),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        qb = mqb = mqb_after = 0
        t_max = t_after = 0.0
        sent = 0
        per_s: Dict[int, int] = {}
        with open(fifo) as fh:
            for line in fh:
                ev = line[0]
                if ev == "r":
                    continue
                p = line.split(" ", 6)
                size = int(p[5])
                if ev == "+":
                    qb += size
                    t = float(p[1])
                    k = int(t)
                    if qb > per_s.get(k, 0):
                        per_s[k] = qb
                    if qb > mqb:
                        mqb, t_max = qb, t
                    if t >= after and qb > mqb_after:
                        mqb_after, t_after = qb, t
                else:
                    qb -= size
                    if ev == "-" and float(p[1]) >= warmup:
                        sent += size
        out, err = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"ns failed ({proc.returncode}): {err.decode()[-800:]}")
    lines = out.decode().splitlines()
    E = [int(x) for x in next(l for l in lines if l.startswith("E ")).split()[1:]]
    return {"wall_s": round(time.perf_counter() - t0, 1), "utilization": sent * 8 / (rate * (duration - warmup)),
            "max_queue_bytes": mqb, "max_queue_time_s": t_max, "max_backlog_after_bytes": mqb_after,
            "max_after_time_s": t_after, "backlog_by_second": {k: v for k, v in sorted(per_s.items())},
            "bottleneck_drops": E[0], "reverse_bottleneck_drops": E[1], "timeouts": E[2]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flows", type=int, default=800)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--capacity", type=float, default=0.9)
    ap.add_argument("--duration", type=float, default=30.0)
    ap.add_argument("--warmup", type=float, default=15.0)
    ap.add_argument("--after", type=float, default=15.0)
    ap.add_argument("--no-ns2", action="store_true")
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    c = run_ccsim(a.flows, a.seed, a.capacity, a.duration, a.warmup, a.after)
    rec: Dict[str, Any] = {"flows": a.flows, "seed": a.seed, "capacity": a.capacity, "duration_s": a.duration,
                           "warmup_s": a.warmup, "after_s": a.after, "ccsim": c}
    keys = ("utilization", "max_queue_bytes", "max_backlog_after_bytes", "bottleneck_drops",
            "reverse_bottleneck_drops", "timeouts", "wall_s")
    print("ccsim: " + ", ".join(f"{k} {c[k]}" for k in keys), flush=True)
    if a.json:
        Path(a.json).write_text(json.dumps(rec, indent=1) + "\n")
    if not a.no_ns2:
        n2 = run_ns2(c, a.seed, a.capacity, a.duration, a.warmup, a.after)
        rec["ns2"] = n2
        print("ns-2.35: " + ", ".join(f"{k} {n2[k]}" for k in keys) +
              f", max at {n2['max_queue_time_s']:.2f} s, after-{a.after:g} max at {n2['max_after_time_s']:.2f} s",
              flush=True)
        if a.json:
            Path(a.json).write_text(json.dumps(rec, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
