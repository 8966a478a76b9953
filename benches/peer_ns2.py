"""ccsim against ns-2.35 on the same benchmark scenarios, in one run.

    python benches/peer_ns2.py [--quick] [--json OUT.json] [NAME ...]

For every row (``ccsim bench``'s B1-B5, the long B2 variant B2L, and the
HighSpeed rows B2-hstcp and B2L-hstcp) it runs the ccsim scenario and the same dumbbell in
ns-2.35 (the papers' own simulator, the ``ns`` command of the distribution's
``ns2`` package: ``apt-get install ns2``; this script never installs it),
and reports both wall times and the ratio of bottleneck packets per
wall-second. ns-2 is a peer to measure against, not a dependency: without
``ns`` the ccsim column is still reported and the peer's says why not.

Mapping (ccsim -> ns-2), the same on every row:

* dumbbell: one source and one sink node per flow, two routers; edge links
  at ``edge_rate_bps`` with the delay that gives the flow's RTT
  (``(rtt/2 - bottleneck_delay) / 2`` each side, as ccsim's builder does);
  the bottleneck duplex at its rate and 1 ms, DropTail holding
  ``limit_pkts`` waiting packets in each direction: ns-2's DropTail drops
  when ``length() + 1 >= qlim_`` (drop-tail.cc ``enque``), so its
  ``queue-limit`` is ``limit_pkts + 1``; edge queues 1000.
* packets: ns-2's ``packetSize_`` is the payload (``TcpAgent::output``
  adds the 40-byte ``headersize()``), so ccsim's 1000-byte payload plus 40
  bytes of headers is ``packetSize_ 1000``, 1040 bytes on the wire; ACKs
  are 40 bytes on both sides. (Before 2026-11-23 this mapping had
  ``packetSize_ 1040`` and ``queue-limit`` = ``limit_pkts``: ns-2 sent
  1080-byte packets into a queue one packet shorter.)
* agents: NewReno is ``Agent/TCP/Newreno`` with ``Agent/TCPSink``; SACK is
  ``Agent/TCP/Sack1`` with ``Agent/TCPSink/Sack1`` (ns-2's own SACK, not
  RFC 6675, so the B5 rows simulate slightly different recoveries);
  ``window_`` 10,000,000 and ``windowInit_ 2`` (ccsim's ``rwnd_pkts`` and
  ``init_cwnd_pkts``); every other ns-2 default as shipped. HighSpeed
  (B2-hstcp, B2L-hstcp) is ns-2's ``windowOption_ 8`` on that NewReno agent with
  ns-2's defaults (``low_window_`` 38, ``high_window_`` 83000, ``high_p_``
  1e-7, ``high_decrease_`` 0.1, the same as ccsim's ``hstcp``, except that
  ns-2 derives its Low_P as 1.5/38² = 1.04e-3 where ccsim's default is
  RFC 3649's 1e-3), against ccsim's default ``hstcp`` (RFC 3649; its
  ns-2-mode rules, ``ns2_first_decrease`` and the like, are off, as in
  ``ccsim bench``).
* all flows start at 0 (ccsim starts them at ``start_s = 0``).
* bottleneck packets: departures from the forward bottleneck queue (ns-2
  ``monitor-queue``; ccsim ``links[bottleneck].tx_pkts``), divided by the
  simulator's wall time (ns-2: the ``ns`` process, which includes its Tcl
  set-up, about 0.1 s; ccsim: the engine run with its scenario parse and
  build, as ``ccsim bench`` reports it). Both sides repeat a short row
  until 1 s of wall time is spent and keep the fastest repeat. ``ratio``
  times ns-2's whole process; ``ratio_run_only`` takes off ns-2's set-up
  (the same program stopped at time 0), the fairer figure for short rows.

The rows of the protocols ns-2 cannot express as NewReno, Sack1 or
HighSpeed on DropTail (E1: E-TCP; X1: XCP routers; R1: RED/ECN; G1: DRR
with GWA) run in ccsim only, with a note in the ns-2 column, so that one
run lists every row the engine-speed targets name.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from ccsim.bench import MAX_REPEATS, MIN_TOTAL_S, run_isolated, scenario

TCL = r"""
set ns [new Simulator]
set n {n}
set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 {rate}bps 1ms DropTail
$ns queue-limit $r1 $r2 {limit}
$ns queue-limit $r2 $r1 {limit}
set qmon [$ns monitor-queue $r1 $r2 [open /dev/null w] 1.0]
for {{set i 0}} {{$i < $n}} {{incr i}} {{
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r1 {edge_rate}bps {edge_delay}s DropTail
    $ns duplex-link $r2 $d($i) {edge_rate}bps {edge_delay}s DropTail
    $ns queue-limit $s($i) $r1 1000
    $ns queue-limit $r1 $s($i) 1000
    $ns queue-limit $r2 $d($i) 1000
    $ns queue-limit $d($i) $r2 1000
    set tcp($i) [new {agent}]{agent_opts}
    $tcp($i) set packetSize_ 1000
    $tcp($i) set window_ 10000000
    $tcp($i) set windowInit_ 2
    set sink($i) [new {sink}]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at 0.0 "$ftp($i) start"
}}
proc finish {{}} {{
    global qmon tcp n
    puts "departures [$qmon set pdepartures_] drops [$qmon set pdrops_] arrivals [$qmon set parrivals_]"
    # per flow: highest cumulative ACK (segments), RTOs, retransmitted packets
    for {{set i 0}} {{$i < $n}} {{incr i}} {{
        puts "flow $i [$tcp($i) set ack_] [$tcp($i) set nrexmit_] [$tcp($i) set nrexmitpack_]"
    }}
    exit 0
}}
$ns at {duration} "finish"
$ns run
"""

AGENTS = {"newreno": ("Agent/TCP/Newreno", "Agent/TCPSink"), "sack": ("Agent/TCP/Sack1", "Agent/TCPSink/Sack1")}
#: ccsim controller -> the ns-2 agent settings that select it.
CONTROLLERS = {"reno": "", "hstcp": "\n    $tcp($i) set windowOption_ 8"}


@dataclass
class Row:
    name: str
    ccsim_wall_s: float
    ccsim_pkts: int
    events_per_pkt: float = float("nan")
    ns2_wall_s: Optional[float] = None
    ns2_pkts: Optional[int] = None
    ns2_setup_s: Optional[float] = None
    note: str = ""

    @property
    def ratio(self) -> Optional[float]:
        """ccsim's bottleneck packets per wall-second over ns-2's, ns-2's
        whole process timed."""
        if not self.ns2_wall_s or not self.ns2_pkts:
            return None
        return (self.ccsim_pkts / self.ccsim_wall_s) / (self.ns2_pkts / self.ns2_wall_s)

    @property
    def ratio_run_only(self) -> Optional[float]:
        """The same with ns-2's set-up (``ns2_setup_s``) taken off its wall
        time, as ccsim's column has no process start-up in it: the fairer
        figure on short rows."""
        if not self.ns2_wall_s or not self.ns2_pkts or self.ns2_setup_s is None:
            return None
        run = self.ns2_wall_s - self.ns2_setup_s
        return (self.ccsim_pkts / self.ccsim_wall_s) / (self.ns2_pkts / run) if run > 0 else None


def ns2_script(d: dict, rng_seed: Optional[int] = None) -> str:
    """The Tcl program of a ccsim dumbbell scenario dict (see the mapping).
    ``rng_seed``: seed ns-2's default stream (``$defaultRNG seed``), from
    which its agents draw their tick phases (``boot_time_``); without it
    ns-2 runs with the stream's built-in seed, as the bench rows do."""
    topo, flow = d["topology"], d["flows"][0]
    if (topo["kind"] != "dumbbell" or len(d["flows"]) != 1 or flow.get("transport", "tcp") != "tcp"
            or flow.get("cc", "reno") not in CONTROLLERS or flow.get("cc_params")):
        raise ValueError("ns-2 peer: only one-entry Reno and HighSpeed dumbbells are mapped")
    agent, sink = AGENTS[flow.get("recovery", "newreno")]
    bdelay = topo.get("bottleneck_delay_s", 0.01)
    edge_delay = (flow["rtt_s"] / 2 - bdelay) / 2
    tcl = TCL.format(n=flow.get("count", 1), rate=repr(topo["bottleneck_rate_bps"]),
                     limit=topo["bottleneck_queue"]["limit_pkts"] + 1, edge_rate=repr(topo.get("edge_rate_bps", 100e9)),
                     edge_delay=repr(edge_delay), agent=agent, agent_opts=CONTROLLERS[flow.get("cc", "reno")],
                     sink=sink, duration=d["duration_s"])
    if rng_seed is not None:
        return tcl.replace("set ns [new Simulator]\n", f"set ns [new Simulator]\n$defaultRNG seed {int(rng_seed)}\n", 1)
    return tcl


def run_ns2_stdout(d: dict, ns: str, rng_seed: Optional[int] = None) -> tuple:
    """Run the scenario dict ``d`` in ns-2: (wall seconds, stdout)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.tcl"
        path.write_text(ns2_script(d, rng_seed))
        t0 = time.perf_counter()
        out = subprocess.run([ns, str(path)], capture_output=True, text=True, check=True, cwd=tmp)
        return time.perf_counter() - t0, out.stdout


def run_ns2(d: dict, ns: str) -> tuple:
    """(wall seconds, bottleneck departures) of ``d`` in ns-2. Short runs
    are repeated under ``ccsim bench``'s own rule (until MIN_TOTAL_S of
    wall time, at most MAX_REPEATS) and the fastest is kept, so both
    columns are measured alike; every repeat must move the same packets."""
    walls, pkts = [], set()
    while True:
        wall, out = run_ns2_stdout(d, ns)
        fields = out.split()
        walls.append(wall)
        pkts.add(int(float(fields[fields.index("departures") + 1])))
        if sum(walls) >= MIN_TOTAL_S or len(walls) >= MAX_REPEATS:
            break
    if len(pkts) != 1:
        raise RuntimeError(f"ns-2 repeats of one scenario moved different packet counts: {sorted(pkts)}")
    return min(walls), pkts.pop()


def ns2_setup_s(d: dict, ns: str) -> float:
    """ns-2's fixed cost for ``d``: the same program stopped at time 0
    (interpreter start, Tcl library, topology and agents built), fastest
    of five (single runs of it vary by half on this machine)."""
    d0 = dict(d, duration_s=0.0)
    return min(run_ns2_stdout(d0, ns)[0] for _ in range(5))


#: The rows ns-2 can express, as ``ccsim bench`` defines them (B2L: B2 for
#: 600 s, the long single-flow run; B2-hstcp and B2L-hstcp: B2 and B2L with
#: HighSpeed). The 60-s single-flow rows (B1, B2, B2-hstcp) spend much of
#: their run in the first slow start and its recovery; the engine-speed
#: issue's single-flow target is on the 600-s run.
ROWS = ("B1", "B2", "B2L", "B3", "B4", "B5", "B2-hstcp", "B2L-hstcp")
#: The new protocols' rows, ccsim only (see the module doc).
CCSIM_ONLY = {"E1": "E-TCP", "X1": "XCP routers", "R1": "RED/ECN", "G1": "DRR with GWA"}


def measure(name: str, quick: bool, ns: Optional[str]) -> Row:
    r = run_isolated(name, quick)
    row = Row(name, r["wall_s"], int(round(r["bottleneck_pkts_per_s"] * r["wall_s"])),
              events_per_pkt=r["events_per_bottleneck_pkt"])
    if name in CCSIM_ONLY:
        row.note = f"ccsim only ({CCSIM_ONLY[name]}: not NewReno, Sack1 or HighSpeed on DropTail)"
    elif ns is None:
        row.note = "ns not installed (apt-get install ns2)"
    else:
        d = scenario(name, quick).to_dict()
        row.ns2_wall_s, row.ns2_pkts = run_ns2(d, ns)
        row.ns2_setup_s = ns2_setup_s(d, ns)
    return row


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    every = ROWS + tuple(CCSIM_ONLY)
    ap.add_argument("names", nargs="*", metavar="NAME", help=f"rows (default all: {', '.join(every)})")
    ap.add_argument("--quick", action="store_true", help="durations / 10")
    ap.add_argument("--json", metavar="OUT", help="write the rows as JSON")
    a = ap.parse_args(argv)
    by_lower = {n.lower(): n for n in every}
    unknown = [n for n in a.names if n.lower() not in by_lower]
    if unknown:
        ap.error(f"unknown row(s) {', '.join(unknown)}; allowed: {', '.join(every)}")
    names = [by_lower[n.lower()] for n in a.names] or list(every)
    ns = shutil.which("ns")
    rows = []
    print(f"{'row':8} {'ccsim wall':>11} {'ns-2 wall':>10} {'ns-2 set-up':>12} {'ccsim pkts/s':>13} "
          f"{'ns-2 pkts/s':>12} {'ratio':>7} {'run only':>9}")
    for n in names:
        r = measure(n, a.quick, ns)
        rows.append(r)
        ns_pps = f"{r.ns2_pkts / r.ns2_wall_s:12,.0f}" if r.ns2_wall_s else f"{'-':>12}"
        ratio = f"{r.ratio:6.1f}x" if r.ratio else f"{'-':>7}"
        ns_wall = f"{r.ns2_wall_s:9.2f}s" if r.ns2_wall_s else f"{'-':>10}"
        setup = f"{r.ns2_setup_s:11.3f}s" if r.ns2_setup_s is not None else f"{'-':>12}"
        run_only = f"{r.ratio_run_only:8.1f}x" if r.ratio_run_only else f"{'-':>9}"
        print(f"{n:8} {r.ccsim_wall_s:10.3f}s {ns_wall} {setup} {r.ccsim_pkts / r.ccsim_wall_s:13,.0f} {ns_pps} "
              f"{ratio} {run_only} {r.note}", flush=True)
    if a.json:
        Path(a.json).write_text(json.dumps(
            [dict(r.__dict__, ratio=r.ratio, ratio_run_only=r.ratio_run_only) for r in rows], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
