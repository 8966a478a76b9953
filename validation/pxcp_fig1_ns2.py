"""``pxcp-fig1``'s two-flow non-paced XCP case in ns-2.35 and in ccsim, on
exactly the scenario the experiment runs (notes: /work/notes/pxcp-fig1.md).

    python -m validation.pxcp_fig1_ns2 [--seeds 1 2 3] [--edge-queue rot|PKTS ...]
                                       [--params O.P.|C.P.] [--capacity 0.9] [--duration 100] [--warmup 40]
                                       [--no-ns2] [--json FILE]

ccsim's side is the experiment's own scenario: ``pxcp.fig1.scenarios()``'s
``N.P. XCP O.P.`` sweep at its 2-flow point (2 flows per direction, two-way
traffic, 622 Mb/s 30 ms bottleneck with 6,375,500-byte byte-limited
Queue/XCP both ways, 2.4 Gb/s access links with 6,375,500-byte drop-tail
queues, 960 + 40-byte data packets, 40-byte ACKs, RTTs uniform on
[64, 100] ms and starts uniform on [0, 10] s drawn from the scenario seed,
ns-2 mode with timestamps and 2.28's ``init_rto_s`` 6 s), run twice: as
the experiment runs it (warm-up 40 s: utilisation and post-warm-up drops)
and with warm-up 0 (whole-run drops and timeouts, 1 s series).

ns-2.35's side gets the same network built from ccsim's run: each flow's
drawn start time and the delay of its two access links (as ccsim built
them), ``Agent/TCP/Reno/XCP`` + ``Agent/TCPSink/XCPSink`` + FTP,
``packetSize_`` 950 (950 + 40 TCP/IP + 10 timestamp option = 1000 bytes
on the wire; ACKs 40 bytes, XCPSink's default), ``timestamps_ true``,
``tcpTick_`` 0.1 ms, ``rtxcur_init_`` 6 s (2.28's default, as ccsim's
``init_rto_s``), ``window_`` 10^7; ``duplex-link ... XCP`` with the XCP
sub-queue (``vq_(0)``) limited to the same bytes and ``set-link-capacity``
rate x capacity; access links DropTail in byte mode with the same bytes.
XCP's gains are ns-2.35's compile-time constants (xcpq.cc: ALPHA_ 0.4,
BETA_ 0.226, GAMMA_ 0.1), i.e. O.P.; ``--capacity 0.9`` gives both sides
O.P.'s gains with C.P.'s capacity (a half-C.P. that ns-2.35 can express;
full C.P. needs xcpq.cc patched and ns-2 rebuilt).

``--params C.P.`` runs ccsim's side alone (the experiment's C.P. row).

``--edge-queue PKTS`` replaces the access queues by PKTS-packet ones in
both (ns-2 ``queue-limit PKTS``, packet mode; ccsim ``limit_pkts`` PKTS - 1,
ns-2's DropTail holding PKTS - 1 waiting plus the one in service:
``ns2ref.droptail_waiting``); ``rot`` (default) is the experiment's.

Reported per (access queue, seed): forward-bottleneck utilisation over
[warm-up, end] (bytes starting transmission, ACKs included), its maximum
queue (bytes and packets waiting, whole run; ns-2's utilisation and
maximum queue from its trace-queue lines read through a FIFO: its queue
monitor's ``bdepartures_`` is a C int that wraps every 2^31 bytes, 27.6 s
at 622 Mb/s, so the monitor's difference over [40, 100] s is wrong;
kept as ``utilization_monitor_raw``), drops on the forward and reverse bottleneck and
on all access links (whole run and after the warm-up), each flow's timeouts
(ns-2 ``nrexmit_``, ccsim ``timeouts``) and retransmitted packets, and 1 s
series of utilisation, queue and each flow's cwnd. One simulation at a time.
Needs ``ns`` (ns-2.35) on PATH unless ``--no-ns2``.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import ccsim
from ccsim.experiments import pxcp
from ccsim.experiments.pxcp import fig1
from ccsim.experiments._kit.ns2ref import droptail_waiting

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "pxcp" / "fig1-ns2.json"
N_FLOWS = 2          # per direction: the experiment's smallest point
SERIES_DT = 1.0
NS2_PSIZE = 950      # + 40 TCP/IP + 10 timestamp option = 1000 on the wire
ACK_BYTES = 40

TCL = r"""
# written by validation/pxcp_fig1_ns2.py
set params [open [lindex $argv 0] r]
gets $params line
close $params
foreach {rate delay qbytes cap erate eq_mode eq psize asize dur warm dt rto_init} $line {}
set ns [new Simulator]
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
set tf [open [lindex $argv 2] w]
$ns trace-queue $r0 $r1 $tf
set qmf [$ns monitor-queue $r0 $r1 [open /dev/null w] 1.0]
set qmr [$ns monitor-queue $r1 $r0 [open /dev/null w] 1.0]

set f [open [lindex $argv 1] r]
set ids {}
set em {}
while {[gets $f line] >= 0} {
    foreach {fid dir edel start} $line {}
    lappend ids $fid
    set s($fid) [$ns node]
    set d($fid) [$ns node]
    if {$dir == 0} { set in $r0; set out $r1 } else { set in $r1; set out $r0 }
    $ns duplex-link $s($fid) $in $erate ${edel}s DropTail
    $ns duplex-link $out $d($fid) $erate ${edel}s DropTail
    foreach {a b} [list $s($fid) $in $in $s($fid) $out $d($fid) $d($fid) $out] {
        if {$eq_mode == "bytes"} {
            bytelimit [[$ns link $a $b] queue] $eq
        } else {
            $ns queue-limit $a $b $eq
        }
        lappend em [$ns monitor-queue $a $b [open /dev/null w] 1.0]
    }
    set tcp($fid) [new Agent/TCP/Reno/XCP]
    $tcp($fid) set fid_ $fid
    set sink($fid) [new Agent/TCPSink/XCPSink]
    $ns attach-agent $s($fid) $tcp($fid)
    $ns attach-agent $d($fid) $sink($fid)
    $ns connect $tcp($fid) $sink($fid)
    set ftp($fid) [new Application/FTP]
    $ftp($fid) attach-agent $tcp($fid)
    $ns at $start "$ftp($fid) start"
}
close $f

proc counts {} {
    global qmf qmr em ids tcp
    set ed 0
    foreach m $em { incr ed [$m set pdrops_] }
    set out "[$qmf set bdepartures_] [$qmf set pdrops_] [$qmr set pdrops_] $ed"
    foreach i $ids { append out " [$tcp($i) set nrexmit_] [$tcp($i) set nrexmitpack_]" }
    return $out
}
set lastdep 0
proc sample {} {
    global ns qmf ids tcp dt lastdep
    set now [$ns now]
    set dep [$qmf set bdepartures_]
    set out "S $now [expr $dep - $lastdep] [$qmf set size_] [$qmf set pkts_]"
    set lastdep $dep
    foreach i $ids { append out " [$tcp($i) set cwnd_]" }
    puts $out
    $ns at [expr $now + $dt] sample
}
$ns at $dt sample
$ns at $warm {puts "W [counts]"}
$ns at $dur {puts "E [counts]"; close $tf; exit 0}
$ns run
"""


def scenario(seed: Optional[int], edge_queue: str, capacity: Optional[float], duration: float, warmup: float,
             sample: float = 0.0, params: str = "O.P.") -> Dict[str, Any]:
    """The experiment's N.P. XCP ``params`` scenario at its 2-flow point, as
    ``fig1.scenarios(quick=False)`` builds it and the Sweep sets the point;
    ``edge_queue`` ``"rot"`` keeps it, a packet count replaces the access
    queues; ``capacity`` (unless None: the set's) sets the routers' capacity."""
    sw = next(s for s in fig1.scenarios(False) if s.labels[0][0] == pxcp.label("N.P.", "XCP", params))
    i = [lab[1] for lab in sw.labels].index(N_FLOWS)
    sc = copy.deepcopy(sw.base)
    for path, v in sw.points[i].items():
        node = sc
        *head, last = path.split(".")
        for k in head:
            node = node[int(k)] if k.isdigit() else node[k]
        node[last] = v
    sc["duration_s"], sc["warmup_s"], sc["sample_interval_s"] = duration, warmup, sample
    if seed is not None:
        sc["seed"] = seed
    if edge_queue != "rot":
        sc["topology"]["edge_queue"] = {"kind": "droptail", "limit_pkts": droptail_waiting(int(edge_queue))}
    if capacity is not None:
        sc["topology"]["bottleneck_queue"]["xcp"]["capacity"] = capacity
    return sc


def run_ccsim(seed: Optional[int], edge_queue: str, capacity: Optional[float], duration: float,
              warmup: float, params: str = "O.P.") -> Dict[str, Any]:
    t0 = time.perf_counter()
    sc = scenario(seed, edge_queue, capacity, duration, warmup, params=params)
    r = ccsim.run(sc)
    st = pxcp.bottleneck_stats(r)
    links = r.raw["links"]
    access_warm = sum(int(l["drops"]) for l in links if not l["monitored"])
    # the whole run's counters (every counter but max_queue is post-warm-up)
    r0 = ccsim.run(scenario(seed, edge_queue, capacity, duration, 0.0, SERIES_DT, params))
    l0 = r0.raw["links"]
    fl, fl0 = r.raw["flows"], r0.raw["flows"]
    b0 = r0.bottleneck()
    ser = r0.raw["series"]
    out = {
        "scenario": sc, "seed_used": r.raw["seed"], "wall_s": time.perf_counter() - t0,
        "utilization": st["utilization"], "max_queue_bytes": st["max_queue_bytes"],
        "max_queue_pkts": st["max_queue_pkts"], "max_queue_bytes_run2": int(b0["max_queue_bytes"]),
        "bottleneck_drops": int(l0[0]["drops"]), "reverse_bottleneck_drops": int(l0[1]["drops"]),
        "access_drops": sum(int(l["drops"]) for l in l0 if not l["monitored"]),
        "bottleneck_drops_after_warmup": int(links[0]["drops"]),
        "reverse_bottleneck_drops_after_warmup": int(links[1]["drops"]),
        "access_drops_after_warmup": access_warm,
        "drops_all": int(r0.raw["conservation"]["dropped"]),
        "timeouts": [int(f["timeouts"]) for f in fl0], "retransmits": [int(f["retransmits"]) for f in fl0],
        "timeouts_after_warmup": [int(f["timeouts"]) for f in fl],
        "flows": [{"id": f["id"], "dir": int(f["entry"]), "rtt_prop_s": f["rtt_prop_s"], "start_s": f["start_s"],
                   "throughput_mbps": f["throughput_bps"] / 1e6} for f in fl],
        "edge_delay_s": {},
    }
    for f in fl:
        name = f"s{f['id']}->r{f['entry']}"
        out["edge_delay_s"][f["id"]] = next(l["delay_s"] for l in links if l["name"] == name)
    out["series"] = _ccsim_series(r0, ser)
    return out


def _ccsim_series(res, ser) -> Dict[str, Any]:
    """1 s series: forward bottleneck utilisation and queue, each flow's cwnd."""
    try:
        from ccsim.experiments._kit.analysis import bottleneck_series, flow_series
        ls = bottleneck_series(res)
        out = {"time_s": [float(x) for x in ls["time_s"]], "utilization": [float(x) for x in ls["utilization"]]}
        for c in ("queue_bytes", "queue_pkts"):
            if c in ls:
                out[c] = [float(x) for x in ls[c]]
        for i in range(len(res.raw["flows"])):
            fs = flow_series(res, i)
            out[f"cwnd_{i}"] = [float(x) for x in fs["cwnd"]]
        return out
    except Exception as e:  # the series are diagnostics only
        return {"error": repr(e)}


def run_ns2(c: Dict[str, Any], edge_queue: str, capacity: Optional[float], duration: float, warmup: float,
            seed: Optional[int]) -> Dict[str, Any]:
    rate, rot = pxcp.RATE, pxcp.ROT_BUFFER
    capacity = pxcp.CAPACITY["O.P."] if capacity is None else capacity
    eq_mode, eq = ("bytes", rot) if edge_queue == "rot" else ("pkts", int(edge_queue))
    with tempfile.TemporaryDirectory() as d:
        tcl = os.path.join(d, "fig1.tcl")
        Path(tcl).write_text(TCL)
        Path(d, "params").write_text(
            f"{rate:.0f} {pxcp.BOTTLENECK_DELAY} {rot} {rate * capacity:.0f} {pxcp.EDGE_RATE:.0f} {eq_mode} {eq} "
            f"{NS2_PSIZE} {ACK_BYTES} {duration} {warmup} {SERIES_DT} {pxcp.flow('XCP', 'N.P.')['init_rto_s']}\n")
        with open(os.path.join(d, "flows"), "w") as f:
            for fl in c["flows"]:
                f.write(f"{fl['id']} {fl['dir']} {c['edge_delay_s'][fl['id']]!r} {fl['start_s']!r}\n")
        fifo = os.path.join(d, "trace")
        os.mkfifo(fifo)
        t0 = time.perf_counter()
        proc = subprocess.Popen(["nice", "-n", "5", "ns", tcl, os.path.join(d, "params"), os.path.join(d, "flows"),
                                 fifo] + ([str(seed)] if seed is not None else []),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        q = qb = mq = mqb = 0
        sent = 0  # bytes starting transmission after the warm-up
        tmax = 0.0
        sizes = {"xcp": 0, "ack": 0}  # ns-2 traces XCP data as "xcp"
        with open(fifo) as fh:
            for line in fh:
                ev = line[0]
                if ev == "r":
                    continue
                p = line.split(" ", 6)
                size = int(p[5])
                if ev == "+":
                    q += 1
                    qb += size
                    if qb > mqb:
                        mqb, tmax = qb, float(p[1])
                    if q > mq:
                        mq = q
                    if p[4] in sizes and not sizes[p[4]]:
                        sizes[p[4]] = size
                else:
                    q -= 1
                    qb -= size
                    if ev == "-" and float(p[1]) >= warmup:
                        sent += size
        out, err = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"ns failed ({proc.returncode}): {err.decode()[-800:]}")
    lines = out.decode().splitlines()
    W = [float(x) for x in next(l for l in lines if l.startswith("W ")).split()[1:]]
    E = [float(x) for x in next(l for l in lines if l.startswith("E ")).split()[1:]]
    n = len(c["flows"])
    ser: Dict[str, List[float]] = {"time_s": [], "utilization": [], "queue_bytes": [], "queue_pkts": []}
    for l in lines:
        if l.startswith("S "):
            v = [float(x) for x in l.split()[1:]]
            ser["time_s"].append(v[0])
            # bdepartures_ is a C int: it wraps every 2^31 bytes (27.6 s at
            # 622 Mb/s), so each interval's difference is taken mod 2^32
            ser["utilization"].append((v[1] % 2**32) * 8 / (rate * SERIES_DT))
            ser["queue_bytes"].append(v[2])
            ser["queue_pkts"].append(v[3])
            for i in range(n):
                ser.setdefault(f"cwnd_{i}", []).append(v[4 + i])
    return {
        "wall_s": time.perf_counter() - t0,
        "utilization": sent * 8 / (rate * (duration - warmup)),
        # the queue monitor's count (a C int, wrapping at 2^31 bytes: 2^32 x k short over 60 s at 622 Mb/s)
        "utilization_monitor_raw": (E[0] - W[0]) * 8 / (rate * (duration - warmup)),
        "max_queue_bytes": mqb, "max_queue_pkts": mq, "max_queue_time_s": tmax,
        "wire_bytes": sizes,
        "bottleneck_drops": int(E[1]), "reverse_bottleneck_drops": int(E[2]), "access_drops": int(E[3]),
        "bottleneck_drops_after_warmup": int(E[1] - W[1]),
        "reverse_bottleneck_drops_after_warmup": int(E[2] - W[2]),
        "access_drops_after_warmup": int(E[3] - W[3]),
        "timeouts": [int(E[4 + 2 * i]) for i in range(n)],
        "retransmits": [int(E[5 + 2 * i]) for i in range(n)],
        "timeouts_after_warmup": [int(E[4 + 2 * i] - W[4 + 2 * i]) for i in range(n)],
        "series": ser,
    }


KEYS = ("utilization", "max_queue_bytes", "max_queue_pkts", "bottleneck_drops", "reverse_bottleneck_drops",
        "access_drops", "timeouts", "retransmits")


def show(rec: Dict[str, Any]) -> None:
    a, b = rec.get("ns2"), rec["ccsim"]
    print(f"{rec['params']}, access queue {rec['edge_queue']}, seed {rec['seed']}, capacity {rec['capacity'] or 'of the set'} "
          f"(ccsim {b['wall_s']:.0f} s" + (f", ns-2 {a['wall_s']:.0f} s wall)" if a else ")"))
    for k in KEYS:
        print(f"  {k:26s} ns-2 {a[k]!s:>22}   ccsim {b[k]!s:>22}" if a else f"  {k:26s} ccsim {b[k]!s:>22}")
    print("  flows (dir, RTT ms, start s): " + ", ".join(
        f"({f['dir']}, {f['rtt_prop_s'] * 1e3:.2f}, {f['start_s']:.3f})" for f in b["flows"]), flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[None],
                    help="scenario seeds (ccsim's draws; ns-2's default RNG seed); default: the experiment's")
    ap.add_argument("--edge-queue", nargs="+", default=["rot"],
                    help="access queues: rot (the experiment's 6,375,500 bytes) or a packet count")
    ap.add_argument("--capacity", type=float, default=None,
                    help="routers' capacity as a fraction of the link rate (both sides; default: the set's)")
    ap.add_argument("--params", choices=["O.P.", "C.P."], default="O.P.",
                    help="the experiment's parameter set; C.P. runs ccsim alone (ns-2.35's gains are constants)")
    ap.add_argument("--duration", type=float, default=pxcp.DURATION)
    ap.add_argument("--warmup", type=float, default=pxcp.MEASURE_FROM)
    ap.add_argument("--no-ns2", action="store_true", help="ccsim only")
    ap.add_argument("--json", help=f"write the records here (e.g. {RESULTS.relative_to(HERE.parent)})")
    a = ap.parse_args(argv)
    recs = []
    for eq in a.edge_queue:
        for seed in a.seeds:
            b = run_ccsim(seed, eq, a.capacity, a.duration, a.warmup, a.params)
            rec = {"edge_queue": eq, "seed": seed, "params": a.params, "capacity": a.capacity, "duration_s": a.duration,
                   "warmup_s": a.warmup, "ccsim": b}
            if not a.no_ns2 and a.params == "O.P.":
                rec["ns2"] = run_ns2(b, eq, a.capacity, a.duration, a.warmup, seed)
            show(rec)
            recs.append(rec)
            if a.json:
                Path(a.json).write_text(json.dumps(recs, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
