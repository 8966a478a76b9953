"""``pxcp-fig4-table1``'s non-paced TCPs in ns-2.35 and in ccsim on the same
parking lot and the same per-flow draws: Jain's index of the forward flows'
goodput and the middle links' utilisation (Table 1 / Fig 4 of the paced-XCP
paper; /work/notes/pxcp-fig4.md).

    python -m validation.pxcp_fig4_ns2 [Reno] [NewReno] [HSTCP] [--duration S] [--warmup S]
                                       [--seed K] [--json FILE]

ccsim side: the experiment's own scenario for ``N.P. <proto>`` at the
10,200-byte middle buffers as ``ccsim reproduce`` runs it
(``ccsim.experiments.first_stage``: ns-2's tie order, the papers' TCP
defaults), seed 1 (the default; ``--seed``), only ``duration_s`` and
``warmup_s`` replaced by the options (the experiment's are 100 and 40). Its
per-flow RTT and start draws (``rtt_prop_s``, ``start_s`` of the result)
are handed to ns-2, so both simulators see the same flows.

ns-2.35 side: ``validation/xcp_chain.py``'s chain (r0 -> r1 -> r2 -> r3,
622 Mb/s, 10 ms; each flow on its own two 2.4 Gb/s edge links whose delays
make up its RTT, ``xcp_chain.edge_delay``), with DropTail middle queues of
10,200 bytes (byte mode, as ``xcp_chain.tcl``'s ``bytelimit``) and edge
queues at the rule of thumb; agents ``Agent/TCP/Reno``,
``Agent/TCP/Newreno`` (``TCPSink``) or HSTCP as ns-2 runs it
(``Agent/TCP/Sack1`` with ``windowOption_ 8``, low window 38, high window
83,000, high_p 1e-7, ``TCPSink/Sack1``), timestamps on, ``tcpTick_``
0.1 ms, ``ssthresh_`` 64, ``windowInit_`` 2, no window limit, and 2.28's
``rtxcur_init_`` 6 and ``numdupacksFrac_`` 100 (the experiment's
``release="2.28"``). Data packets 1000 bytes on the wire (``packetSize_``
950 + 40 header + 10 timestamp option; ccsim 960 + 40), ACKs 40 bytes.
The Tcl is written to a temporary directory from this file.

Measured as the experiment does: utilisation of the forward direction of
each middle link over [warm-up, end] (ns-2: from the trace of the middle
links, ``xcp_chain.parse_trace``), the maximum queue over both directions,
and Jain's index of the 30 forward flows' goodputs (ns-2: the senders'
cumulative ``ack_`` at the warm-up and at the end, in segments). Not like
for like: ns-2's drops, retransmissions (``nrexmitpack_``) and maximum
queue are over the whole run, and parse_trace's maximum counts an arrival
before its ``d`` line (so it can exceed the limit by one packet); ccsim's
drops are after the warm-up.
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
from pathlib import Path
from typing import Any, Dict, List

import ccsim
from ccsim.experiments import first_stage, pxcp
from ccsim.experiments.pxcp import fig4_table1 as fig4

from .xcp_chain import case, edge_delay, jain, parse_trace

PAYLOAD_NS2 = 950  # + 40 header + 10 timestamp option = 1000 bytes

TCL = r"""
set params [open [lindex $argv 0] r]
gets $params line
close $params
foreach {nl rate delay qbytes erate eqbytes psize dur warm proto} $line {}
set ns [new Simulator]
Agent/TCP set packetSize_ $psize
Agent/TCP set window_ 10000000
Agent/TCP set timestamps_ true
Agent/TCP set tcpTick_ 0.0001
Agent/TCP set ssthresh_ 64
Agent/TCP set windowInit_ 2
Agent/TCP set rtxcur_init_ 6.0
Agent/TCP set numdupacksFrac_ 100
if {$proto == "HSTCP"} {
    Agent/TCP set windowOption_ 8
    Agent/TCP set low_window_ 38
    Agent/TCP set high_window_ 83000
    Agent/TCP set high_p_ 0.0000001
}
proc bytelimit {q bytes} {
    $q set queue_in_bytes_ true
    $q set mean_pktsize_ 1
    $q set limit_ $bytes
}
for {set i 0} {$i <= $nl} {incr i} { set r($i) [$ns node] }
set tf [open [lindex $argv 2] w]
for {set i 0} {$i < $nl} {incr i} {
    set j [expr $i + 1]
    $ns duplex-link $r($i) $r($j) $rate ${delay}s DropTail
    foreach {a b} [list $r($i) $r($j) $r($j) $r($i)] {
        bytelimit [[$ns link $a $b] queue] $qbytes
        $ns trace-queue $a $b $tf
    }
}
set fids {}
set f [open [lindex $argv 1] r]
while {[gets $f line] >= 0} {
    foreach {fid dir first last edel start} $line {}
    lappend fids $fid
    set s($fid) [$ns node]
    set d($fid) [$ns node]
    if {$dir == 0} {
        set in $r($first); set out $r([expr $last + 1])
    } else {
        set in $r([expr $last + 1]); set out $r($first)
    }
    $ns duplex-link $s($fid) $in $erate ${edel}s DropTail
    $ns duplex-link $out $d($fid) $erate ${edel}s DropTail
    foreach {a b} [list $s($fid) $in $in $s($fid) $out $d($fid) $d($fid) $out] {
        bytelimit [[$ns link $a $b] queue] $eqbytes
    }
    if {$proto == "Reno"} {
        set tcp($fid) [new Agent/TCP/Reno]; set sink($fid) [new Agent/TCPSink]
    } elseif {$proto == "NewReno"} {
        set tcp($fid) [new Agent/TCP/Newreno]; set sink($fid) [new Agent/TCPSink]
    } else {
        set tcp($fid) [new Agent/TCP/Sack1]; set sink($fid) [new Agent/TCPSink/Sack1]
    }
    $tcp($fid) set fid_ $fid
    $ns attach-agent $s($fid) $tcp($fid)
    $ns attach-agent $d($fid) $sink($fid)
    $ns connect $tcp($fid) $sink($fid)
    set ftp($fid) [new Application/FTP]
    $ftp($fid) attach-agent $tcp($fid)
    $ns at $start "$ftp($fid) start"
}
close $f
proc dump {tag} {
    global tcp fids
    foreach fid $fids {
        puts "$tag $fid [$tcp($fid) set ack_] [$tcp($fid) set nrexmitpack_] [$tcp($fid) set ndatapack_]"
    }
    flush stdout
}
$ns at $warm "dump W"
$ns at $dur "dump E; close $tf; exit 0"
$ns run
"""


def ccsim_run(proto: str, duration: float, warmup: float, seed: int = 1) -> Dict[str, Any]:
    """The experiment's N.P. ``proto`` scenario (10,200-byte middle buffers), shortened."""
    sw = [s for s in first_stage(fig4, False) if s.labels[0][:2] == ("N.P.", proto)][0]
    sc = dict(sw.base, duration_s=duration, warmup_s=warmup, seed=seed)
    t0 = time.perf_counter()
    r = ccsim.run(sc)
    wall = time.perf_counter() - t0
    links = {l["name"]: l for l in r.raw["links"] if l["monitored"]}
    fwd = [f for f in r.raw["flows"] if f["entry"] % 2 == 0]
    return {"wall_s": wall, "scenario": sc["name"], "buffer_bytes": sc["topology"]["link_queue"]["limit_bytes"],
            "util": [float(links[f"r{i}->r{i + 1}"]["utilization"]) for i in range(fig4.N_LINKS)],
            "max_queue_bytes": max(int(l["max_queue_bytes"]) for l in links.values()),
            "middle_drops": {n: int(l["drops"]) for n, l in links.items()},
            "goodput_mbps": [f["goodput_bps"] / 1e6 for f in fwd],
            "jain": jain([f["goodput_bps"] for f in fwd]),
            "timeouts": int(sum(f["timeouts"] for f in r.raw["flows"])),
            "retransmits": int(sum(f["retransmits"] for f in r.raw["flows"])),
            "draws": [(f["entry"], f["rtt_prop_s"], f["start_s"]) for f in r.raw["flows"]]}


def ns2_case(draws, duration: float, warmup: float) -> Dict[str, Any]:
    """xcp_chain's fig4 case with ccsim's per-flow draws (entry 2k is set k
    forward, 2k+1 its mirror, as ``pxcp.two_way``)."""
    c = case("fig4", 0, duration, warmup)
    c["flows"] = [{"dir": e % 2, "first": fig4.SETS[e // 2][1][0], "last": fig4.SETS[e // 2][1][1], "rtt": rtt,
                   "start": st} for e, rtt, st in draws]
    c["buffer"] = fig4.PAPER["max_queue_bytes"]
    return c


def ns2_run(proto: str, c: Dict[str, Any]) -> Dict[str, Any]:
    with tempfile.TemporaryDirectory() as d:
        tcl = os.path.join(d, "fig4_tcp.tcl")
        Path(tcl).write_text(TCL)
        with open(os.path.join(d, "params"), "w") as f:
            f.write(f"{c['n_links']} {pxcp.RATE:.0f} {c['delay']} {c['buffer']} {pxcp.EDGE_RATE:.0f} "
                    f"{pxcp.ROT_BUFFER} {PAYLOAD_NS2} {c['duration']} {c['warmup']} {proto}\n")
        with open(os.path.join(d, "flows"), "w") as f:
            for i, fl in enumerate(c["flows"]):
                f.write(f"{i} {fl['dir']} {fl['first']} {fl['last']} {edge_delay(c, fl)!r} {fl['start']!r}\n")
        fifo = os.path.join(d, "trace")
        os.mkfifo(fifo)
        t0 = time.perf_counter()
        proc = subprocess.Popen(["nice", "-n", "10", "ns", tcl, os.path.join(d, "params"), os.path.join(d, "flows"),
                                 fifo], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        links = parse_trace(fifo, c)
        out, err = proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError(f"ns failed ({proc.returncode}): {err.decode()[-800:]}")
        wall = time.perf_counter() - t0
    span = c["duration"] - c["warmup"]
    acks: Dict[str, Dict[int, List[int]]] = {"W": {}, "E": {}}
    for line in out.decode().splitlines():
        p = line.split()
        if len(p) == 5 and p[0] in acks:
            acks[p[0]][int(p[1])] = [int(x) for x in p[2:]]
    fwd = [i for i, f in enumerate(c["flows"]) if f["dir"] == 0]
    good = [(acks["E"][i][0] - acks["W"][i][0]) * PAYLOAD_NS2 * 8 / span for i in fwd]
    return {"wall_s": wall, "util": [links[(str(i), str(i + 1))]["tx"] * 8 / (pxcp.RATE * span)
                                     for i in range(c["n_links"])],
            "max_queue_bytes": max(L["maxb"] for L in links.values()),
            "middle_drops": {f"r{a}->r{b}": L["drops"] for (a, b), L in links.items()},
            "goodput_mbps": [g / 1e6 for g in good], "jain": jain(good),
            "retransmits": int(sum(v[1] for v in acks["E"].values()))}


def set_means(g: List[float]) -> Dict[str, float]:
    """Mean goodput of each set's 10 forward flows (forward flows in set order)."""
    n = fig4.PER_SET
    return {name: sum(g[k * n:(k + 1) * n]) / n for k, (name, _, _) in enumerate(fig4.SETS)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("protos", nargs="*", default=["Reno", "NewReno"], help="Reno, NewReno, HSTCP")
    ap.add_argument("--duration", type=float, default=fig4.setting(False)[1])
    ap.add_argument("--warmup", type=float, default=fig4.setting(False)[2])
    ap.add_argument("--seed", type=int, default=1, help="ccsim's scenario seed, whose draws ns-2 gets (default 1)")
    ap.add_argument("--json", default=str(Path(__file__).resolve().parent / "results/pxcp/fig4-ns2.json"))
    a = ap.parse_args(argv)
    if shutil.which("ns") is None:
        print("error: ns (ns-2.35) is not on PATH", file=sys.stderr)
        return 2
    path = Path(a.json)
    recs = json.loads(path.read_text()) if path.exists() else []
    for proto in a.protos:
        cc = ccsim_run(proto, a.duration, a.warmup, a.seed)
        c = ns2_case(cc["draws"], a.duration, a.warmup)
        print(f"N.P. {proto} seed {a.seed}: ccsim jain {cc['jain']:.4f} util {[round(u, 4) for u in cc['util']]} "
              f"({cc['wall_s']:.0f} s wall); running ns-2 ...", flush=True)
        ns = ns2_run(proto, c)
        print(f"N.P. {proto} seed {a.seed}: ns-2  jain {ns['jain']:.4f} util {[round(u, 4) for u in ns['util']]} "
              f"({ns['wall_s']:.0f} s wall)", flush=True)
        for side in (cc, ns):
            side["set_mean_goodput_mbps"] = set_means(side["goodput_mbps"])
        rec = {"variant": f"N.P. {proto}", "duration_s": a.duration, "warmup_s": a.warmup, "seed": a.seed,
               "paper_jain": fig4.PAPER["jain"][f"N.P. {proto}"], "ccsim": {k: v for k, v in cc.items() if k != "draws"},
               "ns2": ns, "flows": c["flows"]}
        key = ("variant", "duration_s", "warmup_s", "seed")
        recs = [r for r in recs if tuple(r.get(k) for k in key) != tuple(rec[k] for k in key)] + [rec]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(recs, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
