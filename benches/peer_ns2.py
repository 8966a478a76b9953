"""ccsim against ns-2.35 on the same benchmark scenarios, in one run.

    python benches/peer_ns2.py [--quick] [--json OUT.json] [NAME ...]

For every row (``ccsim bench``'s B1-B5, the long B2 variant B2L, the
HighSpeed rows B2-hstcp and B2L-hstcp, the router-mechanism rows ns-2
can run: R1, X1u, X1u-dt, G1-drr, G1-dt, the many-flows row of 1,000
flows, S1 and S1-newreno, and B2-py and B3-py, B2 and B3 with the Python
Reno of examples/controllers/, against ns-2's B2 and B3) it runs the ccsim scenario and the same dumbbell in
ns-2.35 (the papers' own simulator, the ``ns`` command of the distribution's
``ns2`` package: ``apt-get install ns2``; this script never installs it),
and reports both wall times and the ratio of bottleneck packets per
wall-second. ns-2 is a peer to measure against, not a dependency: without
``ns`` the ccsim column is still reported and the peer's says why not.

Mapping (ccsim -> ns-2), the same on every row:

* dumbbell: one source and one sink node per flow, two routers; edge links
  at ``edge_rate_bps`` with the delay that gives the flow's RTT
  (``(rtt/2 - bottleneck_delay) / 2`` each side, as ccsim's builder does);
  the bottleneck duplex at its rate and delay (1 ms; S1: 5 ms), DropTail holding
  ``limit_pkts`` waiting packets in each direction: ns-2's DropTail drops
  when ``length() + 1 >= qlim_`` (drop-tail.cc ``enque``), so its
  ``queue-limit`` is ``limit_pkts + 1``; edge queues 1000.
* packets: ns-2's ``packetSize_`` is the payload (``TcpAgent::output``
  adds the 40-byte ``headersize()``), so ccsim's 1000-byte payload plus 40
  bytes of headers is ``packetSize_ 1000``, 1040 bytes on the wire (S1:
  ``packetSize_ 1460``, 1500 bytes); ACKs are 40 bytes on both sides
  (docs/decisions/2026-11-23-ns2-packet-size-and-queue-limit.md).
* agents: NewReno is ``Agent/TCP/Newreno`` with ``Agent/TCPSink``; SACK is
  ``Agent/TCP/Sack1`` with ``Agent/TCPSink/Sack1`` (ns-2's own SACK, not
  RFC 6675, so the B5 rows simulate slightly different recoveries);
  ``window_`` 10,000,000 and ``windowInit_`` ccsim's ``init_cwnd_pkts``
  (2 on the B rows, 10 on S1; ``rwnd_pkts`` is ccsim's 10,000,000); every
  other ns-2 default as shipped (its ``syn_`` start-up included). HighSpeed
  (B2-hstcp, B2L-hstcp) is ns-2's ``windowOption_ 8`` on that NewReno agent with
  ns-2's defaults (``low_window_`` 38, ``high_window_`` 83000, ``high_p_``
  1e-7, ``high_decrease_`` 0.1, the same as ccsim's ``hstcp``, except that
  ns-2 derives its Low_P as 1.5/38² = 1.04e-3 where ccsim's default is
  RFC 3649's 1e-3), against ccsim's default ``hstcp`` (RFC 3649; its
  ns-2-mode rules, ``ns2_first_decrease`` and the like, are off, as in
  ``ccsim bench``).
* all flows start at 0 (ccsim starts them at ``start_s = 0``), except
  where the row draws starts and RTTs (X1u, S1: below).
* ACKs: one per segment (``Agent/TCPSink``, ``Agent/TCPSink/Sack1``)
  where the row says ``delayed_ack = false`` (every B row); with ccsim's
  delayed ACKs (the ``rfc`` personality's default: S1) ns-2's delayed-ACK
  sinks (below).
* bottleneck packets: departures from the forward bottleneck queue (ns-2
  ``monitor-queue``; ccsim ``links[bottleneck].tx_pkts``), divided by the
  simulator's wall time (ns-2: the ``ns`` process, which includes its Tcl
  set-up, about 0.1 s; ccsim: the engine run with its scenario parse and
  build, as ``ccsim bench`` reports it). Both sides repeat a short row
  until 1 s of wall time is spent and keep the fastest repeat. ``ratio``
  times ns-2's whole process; ``ratio_run_only`` takes off ns-2's set-up
  (the same program stopped at time 0), the fairer figure for short rows.

Router-mechanism rows (ns-2.35's own queues and agents, each row's
``limit_pkts`` on both bottleneck directions):

* RED (R1): ``Queue/RED`` with ccsim's parameters as ns-2's (``bytes_``
  and ``queue_in_bytes_``, ``thresh_``, ``maxthresh_``, ``q_weight_``,
  ``linterm_`` = 1/max_p, ``setbit_`` for ``ecn``; the rest ns-2's
  defaults, which are ccsim's), ``queue-limit`` = ``limit_pkts`` (RED's
  limit counts the waiting places as ccsim's, validation/red_compare.py);
  ECN flows are the NewReno agent with ``ecn_ 1``.
* XCP (X1u): ``Queue/XCP`` on both directions, ``set-link-capacity`` the
  link rate after ``queue-limit`` (xcp.cc copies the limit into its XCP
  sub-queue, a DropTail), ``Agent/TCP/Reno/XCP`` with
  ``Agent/TCPSink/XCPSink``, timestamps and a 0.1-ms tick as in the XCP
  validation (validation/xcp_chain.tcl; 10 more header bytes per
  segment). ns-2.35 has only the original parameters and no pacing, so
  X1 itself (paced, conservative) is not mapped.
* DRR (G1-drr): ``Queue/DRR`` with ``blimit_`` = ``limit_pkts`` full-size
  packets in bytes, ``quantum_`` 1500 (ccsim's default) and 1024
  ``buckets_`` (``DRR_BUCKETS``); a run in which ns-2 reports a hash
  collision (drr.cc ``enque``) is refused. GWA is not in ns-2.
* Per-flow RTTs and start times (X1u, X1u-dt: RTT uniform on [64, 100]
  ms, starts over 10 s) are ccsim's own draws from the scenario's seed,
  read from the scenario run to 1 ns, written into the Tcl program as
  each flow's edge delay and start: the delay ccsim gives the flow's
  access links and its start time, both in whole picoseconds as ccsim
  simulates them (ns-2 takes them as the same doubles).

Rows of many flows (S1: 1,000 long-lived flows, 10 Gb/s, 5 ms,
a BDP/sqrt(N) DropTail of 1581 packets, 100 Gb/s access links, RTTs drawn
over 20-100 ms and starts over 1 s as above, 1460-byte segments, IW 10,
delayed ACKs, 5 s; S1-newreno the same with NewReno):

* CUBIC with SACK (S1) is ns-2.35's Linux agent, its only CUBIC:
  ``Agent/TCP/Linux`` with ``select_ca cubic``, which runs Linux
  2.6.22's ``tcp_cubic.c`` (CUBIC v2.1) through ns-2's copy of Linux's
  congestion-control interface, with its own SACK scoreboard and recovery
  (``ScoreBoard1``; a cwnd cut to ssthresh with "rate halving" of the
  in-flight count, not RFC 6675), so it is mapped only for ``recovery =
  "sack"``, against ns-2's SACK sink; timestamps on and echoed as RFC 1323
  (``ts_echo_rfc1323_``), as the agent's documentation sets it up, with
  the option's 10 bytes taken off the wire (``ts_option_size_ 0``) so
  both sides send 1500-byte packets. What differs from ccsim's S1 (the
  ``rfc`` personality's RFC 9438 CUBIC, RFC 6675 SACK): ns-2's CUBIC is
  Linux 2.6.22's, with β = 819/1024 (0.8, ccsim 0.7, precomputed by the
  module: not settable per run), Linux's integer ``cnt`` arithmetic and
  its TCP-friendly estimate with α of β 0.8 (ccsim: RFC 9438's, switching
  α to 1), no HyStart on either side; slow start adds one segment per
  ACK on both, a delayed ACK's second segment not counted (ns-2's
  ``sysctl_tcp_abc`` 1, ccsim's ``abc = false``). Its RTO: a
  1 ms tick (the agent sets ``tcpTick_``), minimum 0.2 s as ccsim's,
  ``maxrto_`` 120 s (ccsim 60 s), 3 s before the first sample (ccsim 1 s).
* NewReno (S1-newreno) is ``Agent/TCP/Newreno`` as on the B rows (ns-2's
  own estimator: no timestamps, one segment timed per RTT, 10 ms ticks;
  ccsim samples every ACK) against ccsim's RFC 6582 NewReno.
* delayed ACKs: ``Agent/TCPSink/Sack1/DelAck`` (S1) and
  ``Agent/TCPSink/DelAck`` (S1-newreno): an ACK for every second in-order
  segment, at once for a segment out of order or filling a hole (ns-2's
  ``RFC2581_immediate_ack_``, as ccsim), else after ``interval_`` 40 ms,
  Linux's minimum delayed-ACK timeout (``TCP_DELACK_MIN``), where ccsim's
  ``delack_model = "linux"`` timer starts. ccsim's timer then adapts
  (40-200 ms) and its first 16 ACKs of a flow go at once (quick ACKs);
  ns-2's does neither.
* ccsim's S rows order a tied arrival and departure in event order (their
  default, ``ties = "event_order"``); ns-2 runs the arrival first.
* both sides carry comparable work: each side's bottleneck utilisation
  over the run is reported beside the packet counts (ns-2: bytes departed
  from the forward queue, ``bdepartures_``, a 32-bit count unwrapped).
  ns-2 takes about 41 s of CPU to build S1's 2,002 nodes and 1,000 agents
  and routes, three-quarters of its process (its set-up grows faster than
  the flows: 125, 250 and 500 flows took 1.6, 4.4 and 17 s), so S1's
  ``ratio`` includes that set-up and ``ratio_run_only`` does not; ns-2's
  set-up is timed within ``SETUP_BUDGET_S``.
* ns-2's and ccsim's CPU seconds are reported beside the wall times
  (``ns2_cpu_s``, ``ns2_setup_cpu_s``, ``ccsim_cpu_s``; ccsim's is its
  child process's, interpreter start included, when the row ran once
  there), with the ratios by CPU time (``ratio_cpu``,
  ``ratio_cpu_run_only``): on a shared machine a pinned run's wall time
  includes the other processes' share of its core, and ns-2's long set-up
  and run are timed minutes apart from ccsim's few seconds.

With B3 in the run, each row's bottleneck packets per wall-second is also
given against B3's in the same simulator (``of_b3``, ``of_B3`` in the
JSON): how far a row is from B3 in ns-2 says how much of its distance in
ccsim belongs to the scenario rather than to ccsim.

The rows ns-2.35 cannot express (E1: E-TCP; X1 and X1-dt: token-bucket
pacing, XCP's conservative parameters; G1: GWA) run in ccsim only, with a
note in the ns-2 column, so that one run lists every row the engine-speed
targets name.
"""
from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from ccsim.bench import BENCHMARKS, MAX_REPEATS, MIN_TOTAL_S, fastest_of_rounds, run_isolated, scenario

TCL = r"""
set ns [new Simulator]{globals}
set n {n}{flow_arrays}
set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 {rate}bps {bdelay} {qtype}
$ns queue-limit $r1 $r2 {limit}
$ns queue-limit $r2 $r1 {limit}{qsetup}
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
    $tcp($i) set packetSize_ {mss}
    $tcp($i) set window_ 10000000
    $tcp($i) set windowInit_ {iw}{agent_post}
    set sink($i) [new {sink}]{sink_opts}
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at {start} "$ftp($i) start"
}}
proc finish {{}} {{
    global qmon tcp n
    puts -nonewline "departures [$qmon set pdepartures_] drops [$qmon set pdrops_] "
    puts "arrivals [$qmon set parrivals_] bytes [$qmon set bdepartures_]"
    # per flow: highest cumulative ACK (segments), RTOs, retransmitted packets
    for {{set i 0}} {{$i < $n}} {{incr i}} {{
        puts "flow $i [$tcp($i) set ack_] [$tcp($i) set nrexmit_] [$tcp($i) set nrexmitpack_]"
    }}
    exit 0
}}
$ns at {duration} "finish"
$ns run
"""

AGENTS = {"newreno": ("Agent/TCP/Newreno", "Agent/TCPSink"), "sack": ("Agent/TCP/Sack1", "Agent/TCPSink/Sack1"),
          "reno": ("Agent/TCP/Reno", "Agent/TCPSink")}
#: ccsim controller -> the ns-2 agent settings that select it.
CONTROLLERS = {"reno": "", "hstcp": "\n    $tcp($i) set windowOption_ 8"}
#: ns-2.35's one CUBIC: Linux 2.6.22's module (CUBIC v2.1) run by the Linux
#: agent (tcp-linux.cc), which does its own SACK recovery (ScoreBoard1),
#: hence mapped for ``recovery = "sack"`` only, with ns-2's SACK sink. The
#: agent is used as its documentation says (timestamps on, the sink
#: echoing them as RFC 1323), with the option's 10 bytes taken off the
#: wire (``ts_option_size_ 0``): ccsim's per-ACK RTT samples cost no
#: header bytes, so both send 1500-byte packets.
LINUX_CC = {"cubic": ("Agent/TCP/Linux", "Agent/TCPSink/Sack1")}
LINUX_OPTS = "\n    $tcp($i) set timestamps_ true\n    $tcp($i) set ts_option_size_ 0"
#: ns-2's delayed-ACK sinks (an ACK for every second in-order segment, at
#: once for one out of order or filling a hole, ``RFC2581_immediate_ack_``),
#: for flows with ``delayed_ack`` (the ``rfc`` personality's default).
DELACK_SINKS = {"Agent/TCPSink": "Agent/TCPSink/DelAck", "Agent/TCPSink/Sack1": "Agent/TCPSink/Sack1/DelAck"}
#: Their timer (``interval_``) for ccsim's ``delack_model = "linux"``: the
#: 40 ms that Linux's adaptive timeout starts from (``TCP_DELACK_MIN``),
#: ccsim's first delayed-ACK timeout too; ns-2's timer does not adapt.
DELACK_LINUX_INTERVAL_S = 0.04
#: XCP end systems (ns-2.35 xcp-end-sys.cc), Reno recovery as ccsim's xcp rows.
XCP_AGENTS = ("Agent/TCP/Reno/XCP", "Agent/TCPSink/XCPSink")
#: ns-2's XCP agents read their RTT from timestamps at a fine tick, as in
#: the XCP validation scripts (validation/xcp_chain.tcl); this adds ns-2's
#: 10-byte timestamp option to every segment (1050 bytes on the wire).
XCP_GLOBALS = "\nAgent/TCP set timestamps_ true\nAgent/TCP set tcpTick_ 0.0001"
#: ns-2's Queue/DRR hashes a packet's source address into ``buckets_``
#: queues (drr.cc ``DRR::hash``); with 1024 buckets the dumbbell's sources
#: (node addresses 2 .. 2n+1) land in distinct ones for n up to 500
#: (``test_drr_buckets_keep_the_flows_apart``), ccsim's one queue per flow.
DRR_BUCKETS = 1024
#: Queue keys each mapping reads (besides ``kind`` and ``limit_pkts``);
#: ``ties`` orders tied events and has no ns-2 counterpart to set.
_RED_KEYS = {"bytes": "bytes_ {v}\nQueue/RED set queue_in_bytes_ {v}", "min_th_pkts": "thresh_ {v}",
             "max_th_pkts": "maxthresh_ {v}", "w_q": "q_weight_ {v}", "max_p": "linterm_ {inv}", "ecn": "setbit_ {v}",
             "gentle": "gentle_ {v}", "wait": "wait_ {v}", "mean_pktsize": "mean_pktsize_ {v}",
             "mark_p": "mark_p_ {v}"}


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
    #: the forward bottleneck's utilisation over the run in each simulator
    #: (ns-2: bytes departed x 8 / (rate x duration)), to show that both
    #: moved comparable work
    ccsim_utilization: Optional[float] = None
    ns2_utilization: Optional[float] = None
    #: CPU seconds (user + system) beside the wall times, for a machine
    #: shared while the row ran: ns-2's process (set-up included) in its
    #: fastest repeat; ccsim's child process (``ccsim bench --one``, its
    #: interpreter start included), given only when the row ran once there
    ccsim_cpu_s: Optional[float] = None
    ns2_cpu_s: Optional[float] = None
    #: ns-2's set-up in CPU seconds (the least of its timed repeats)
    ns2_setup_cpu_s: Optional[float] = None

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

    @property
    def ratio_cpu(self) -> Optional[float]:
        """``ratio`` by CPU seconds (``ccsim_cpu_s``, ``ns2_cpu_s``), which
        the other processes of a shared machine hardly move."""
        if not self.ccsim_cpu_s or not self.ns2_cpu_s or not self.ns2_pkts:
            return None
        return (self.ccsim_pkts / self.ccsim_cpu_s) / (self.ns2_pkts / self.ns2_cpu_s)

    @property
    def ratio_cpu_run_only(self) -> Optional[float]:
        """``ratio_run_only`` by CPU seconds (ns-2's set-up CPU taken off)."""
        if self.ratio_cpu is None or self.ns2_setup_cpu_s is None:
            return None
        run = self.ns2_cpu_s - self.ns2_setup_cpu_s
        return (self.ccsim_pkts / self.ccsim_cpu_s) / (self.ns2_pkts / run) if run > 0 else None


def _tcl_value(v) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else repr(v)


def ns2_queue(q: dict, rate_bps: float, wire_bytes: int) -> tuple:
    """ns-2's bottleneck for ccsim's bottleneck queue ``q``: (link type,
    global settings, per-link set-up, ``queue-limit``). DropTail (ns-2
    holds ``queue-limit`` - 1 waiting); DropTail with XCP (``Queue/XCP``,
    whose XCP sub-queue is a DropTail taking the link's ``queue-limit`` at
    ``set-link-capacity``, xcp.cc; ns-2.35 has only the original
    parameters, constants in xcpq.cc); RED (``Queue/RED``, its limit the
    same waiting places as ccsim's, validation/red_compare.py); DRR
    (``Queue/DRR``: ``blimit_`` in bytes, ``limit_pkts`` full-size packets).
    Anything else raises ValueError naming what ns-2 lacks."""
    extra = {k: v for k, v in q.items() if k not in ("kind", "limit_pkts", "ties")}
    kind, limit = q.get("kind", "droptail"), q.get("limit_pkts")
    if limit is None:
        raise ValueError("ns-2 peer: the bottleneck queue needs limit_pkts")
    if kind == "droptail" and not extra:
        return "DropTail", "", "", limit + 1
    if kind == "droptail" and set(extra) == {"xcp"}:
        xcp = extra["xcp"] if isinstance(extra["xcp"], dict) else {}
        if extra["xcp"] is not True and xcp != {"params": "original"}:
            raise ValueError(f"ns-2 peer: xcp = {extra['xcp']!r}; ns-2.35's Queue/XCP has only the original "
                             "parameters (xcp = true or {params = \"original\"})")
        setup = "".join(f"\n[[$ns link {a} {b}] queue] set-link-capacity {rate_bps!r}"
                        for a, b in (("$r1", "$r2"), ("$r2", "$r1")))
        return "XCP", XCP_GLOBALS, setup, limit + 1
    if kind == "red" and set(extra) <= set(_RED_KEYS):
        lines = ""
        for k, v in extra.items():
            inv = repr(1.0 / v) if k == "max_p" else ""  # ns-2's linterm_ is 1/max_p (max_p > 0 by validation)
            lines += "\nQueue/RED set " + _RED_KEYS[k].format(v=_tcl_value(v), inv=inv)
        return "RED", lines, "", limit
    if kind == "drr" and not extra:
        glob = (f"\nQueue/DRR set blimit_ {limit * wire_bytes}\nQueue/DRR set buckets_ {DRR_BUCKETS}"
                f"\nQueue/DRR set quantum_ 1500\nQueue/DRR set mask_ 0")
        return "DRR", glob, "", limit
    raise ValueError(f"ns-2 peer: bottleneck queue {q!r} is not mapped (DropTail, DropTail with original-parameter "
                     "XCP, RED, DRR without a stage)")


def flow_draws(d: dict) -> Optional[List[tuple]]:
    """Each flow's (edge delay s, start s) as ccsim draws them from the
    scenario's seed (RTT spread, start spread): read from a run of the
    scenario to 1 ns, the delay of the flow's own access links as the
    dumbbell builder set it (``(rtt/2 - bottleneck delay)/2``, in whole
    picoseconds as ccsim simulates it; both of a flow's links have it) and
    its start time (picoseconds too). None when every flow has the entry's
    one RTT and starts at 0."""
    flow = d["flows"][0]
    if flow.get("rtt_range_s") is None and not flow.get("start_spread_s") and not flow.get("start_s"):
        return None
    from ccsim._native import core, dumps

    bdelay = d["topology"].get("bottleneck_delay_s", 0.01)
    out = json.loads(core().Simulation(dumps(dict(d, duration_s=1e-9))).finish())
    edge = {l["from"]: l["delay_s"] for l in out["links"] if l["to"] == "r0" and l["from"].startswith("s")}
    draws = []
    for f in out["flows"]:
        e = edge[f"s{f['id']}"]
        if abs(e - (f["rtt_prop_s"] / 2 - bdelay) / 2) > 1e-12:  # the builder's split, to the picosecond
            raise RuntimeError(f"flow {f['id']}: access delay {e} is not the split of its RTT {f['rtt_prop_s']}")
        draws.append((e, f["start_s"]))
    return draws


def _tcl_delay(s: float) -> str:
    """A link delay for Tcl: whole milliseconds as ``Nms`` (``1ms``, ``5ms``), else seconds."""
    ms = s * 1e3
    return f"{round(ms)}ms" if ms == round(ms) and round(ms) / 1e3 == s else f"{s!r}s"


def ns2_sink(flow: dict, sink: str) -> tuple:
    """(sink class, per-sink Tcl) for ``flow``'s receiver: ``sink`` as it
    is without delayed ACKs, else its delayed-ACK variant with the timer of
    ccsim's ``delack_model`` (``linux``: Linux's 40 ms start,
    ``DELACK_LINUX_INTERVAL_S``; ``fixed``: ``delack_timeout_s``, ns-2's
    own ``interval_``). ``delayed_ack`` defaults as ccsim's personalities
    do (``rfc``: on, ``ns2``: off)."""
    ns2_model = flow.get("tcp_model", "rfc") == "ns2"
    if not flow.get("delayed_ack", not ns2_model):
        return sink, ""
    if sink not in DELACK_SINKS:
        raise ValueError(f"ns-2 peer: delayed ACKs with {sink}: ns-2.35 has no delayed-ACK variant of it")
    if flow.get("delack_model", "fixed" if ns2_model else "linux") == "linux":
        interval = DELACK_LINUX_INTERVAL_S
    else:
        interval = flow.get("delack_timeout_s", 0.1)
    return DELACK_SINKS[sink], f"\n    $sink($i) set interval_ {interval!r}"


def ns2_script(d: dict, rng_seed: Optional[int] = None) -> str:
    """The Tcl program of a ccsim dumbbell scenario dict (see the mapping).
    ``rng_seed``: seed ns-2's default stream (``$defaultRNG seed``), from
    which its agents draw their tick phases (``boot_time_``); without it
    ns-2 runs with the stream's built-in seed, as the bench rows do."""
    topo, flow = d["topology"], d["flows"][0]
    cc = flow.get("cc", "reno")
    recovery = flow.get("recovery", "newreno")
    linux = cc in LINUX_CC and recovery == "sack"
    if (topo["kind"] != "dumbbell" or len(d["flows"]) != 1 or flow.get("transport", "tcp") != "tcp"
            or (cc not in CONTROLLERS and cc != "xcp" and not linux) or flow.get("cc_params") or flow.get("pacing")
            or flow.get("gwa") or flow.get("ba") or flow.get("app")):
        raise ValueError("ns-2 peer: only one-entry unpaced Reno, HighSpeed and XCP dumbbells, and CUBIC with SACK "
                         "(ns-2's Linux agent), are mapped")
    if cc == "xcp" and recovery != "reno":
        raise ValueError(f"ns-2 peer: xcp with recovery {recovery!r}; ns-2.35's XCP agent is Reno")
    if flow.get("header_bytes", 40) != 40:
        raise ValueError(f"ns-2 peer: header_bytes {flow['header_bytes']}; ns-2's TCP/IP header is 40 bytes")
    post = ""
    if linux:
        (agent, sink), opts = LINUX_CC[cc], LINUX_OPTS
        post = f"\n    $tcp($i) select_ca {cc}"
    else:
        agent, sink = XCP_AGENTS if cc == "xcp" else AGENTS[recovery]
        opts = "" if cc == "xcp" else CONTROLLERS[cc]
    if flow.get("ecn"):
        opts += "\n    $tcp($i) set ecn_ 1"
    sink, sink_opts = ns2_sink(flow, sink)
    if linux:
        sink_opts += "\n    $sink($i) set ts_echo_rfc1323_ true"
    mss = flow.get("mss_bytes", 1000)
    wire = mss + flow.get("header_bytes", 40)
    qtype, glob, qsetup, limit = ns2_queue(topo["bottleneck_queue"], topo["bottleneck_rate_bps"], wire)
    bdelay = topo.get("bottleneck_delay_s", 0.01)
    draws = flow_draws(d)
    if draws is None:
        edge_delay, start, arrays = repr((flow["rtt_s"] / 2 - bdelay) / 2), "0.0", ""
    else:
        edge_delay, start = "$edel($i)", "$start($i)"
        arrays = "".join(f"\nset edel({i}) {e!r}\nset start({i}) {s!r}" for i, (e, s) in enumerate(draws))
    tcl = TCL.format(n=flow.get("count", 1), rate=repr(topo["bottleneck_rate_bps"]), limit=limit,
                     bdelay=_tcl_delay(bdelay), edge_rate=repr(topo.get("edge_rate_bps", 100e9)),
                     edge_delay=edge_delay, start=start, flow_arrays=arrays, globals=glob, qtype=qtype, qsetup=qsetup,
                     agent=agent, agent_opts=opts, agent_post=post, mss=mss,
                     iw=_tcl_value(flow.get("init_cwnd_pkts", 10)), sink=sink, sink_opts=sink_opts, duration=d["duration_s"])
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
        wall = time.perf_counter() - t0
        if "Collisions between" in out.stderr:
            # Queue/DRR (drr.cc enque) reports sources hashed into one queue:
            # not the scenario, whose flows each have their own.
            raise RuntimeError(f"ns-2's DRR shared a queue between flows: {out.stderr.strip()[:200]}")
        return wall, out.stdout


def _children_cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def unwrap_bytes(nbytes: int, pkts: int, wire_bytes: int) -> int:
    """ns-2's byte count ``nbytes`` with its 32-bit wrap-arounds put back:
    QueueMonitor's ``bdepartures_`` is a C ``int``, which S1's 5 s at
    10 Gb/s (5.4 GB) overflows. The count is the one within 2^31 bytes of
    ``pkts`` full packets of ``wire_bytes`` (a run's few shorter packets,
    ns-2's header-only first segments, are far less)."""
    return nbytes + round((pkts * wire_bytes - nbytes) / 2**32) * 2**32


def run_ns2(d: dict, ns: str) -> tuple:
    """(wall seconds, bottleneck departures, bytes departed, CPU seconds)
    of ``d`` in ns-2. Short runs are repeated under ``ccsim bench``'s own
    rule (until MIN_TOTAL_S of wall time, at most MAX_REPEATS) and the
    fastest is kept (and the least CPU time), so both columns are measured
    alike; every repeat must move the same packets."""
    walls, cpus, moved = [], [], set()
    while True:
        cpu0 = _children_cpu_s()
        wall, out = run_ns2_stdout(d, ns)
        cpus.append(_children_cpu_s() - cpu0)
        fields = out.split()
        walls.append(wall)
        moved.add(tuple(int(float(fields[fields.index(k) + 1])) for k in ("departures", "bytes")))
        if sum(walls) >= MIN_TOTAL_S or len(walls) >= MAX_REPEATS:
            break
    if len(moved) != 1:
        raise RuntimeError(f"ns-2 repeats of one scenario moved different packet counts: {sorted(moved)}")
    pkts, nbytes = moved.pop()
    return min(walls), pkts, nbytes, min(cpus)


#: ns-2's set-up is timed at most this many times, and no more once the
#: repeats have taken SETUP_BUDGET_S (1,000 flows take ns-2 over 40 s to
#: build: a few repeats of that are as good as five).
SETUP_REPEATS = 5
SETUP_BUDGET_S = 60.0


def ns2_setup(d: dict, ns: str) -> tuple:
    """ns-2's fixed cost for ``d``, (wall s, CPU s): the same program
    stopped at time 0 (interpreter start, Tcl library, topology and agents
    built), fastest of five (single runs of it vary by half on this
    machine), or of those that fit in ``SETUP_BUDGET_S``; the least CPU
    time of the same runs."""
    d0 = dict(d, duration_s=0.0)
    walls: List[float] = []
    cpus: List[float] = []
    while len(walls) < SETUP_REPEATS and sum(walls) < SETUP_BUDGET_S:
        cpu0 = _children_cpu_s()
        walls.append(run_ns2_stdout(d0, ns)[0])
        cpus.append(_children_cpu_s() - cpu0)
    return min(walls), min(cpus)


def ns2_setup_s(d: dict, ns: str) -> float:
    """ns-2's set-up wall time for ``d`` (:func:`ns2_setup`)."""
    return ns2_setup(d, ns)[0]


#: The rows ns-2 can express, as ``ccsim bench`` defines them (B2L: B2 for
#: 600 s, the long single-flow run; B2-hstcp and B2L-hstcp: B2 and B2L with
#: HighSpeed). The 60-s single-flow rows (B1, B2, B2-hstcp) spend much of
#: their run in the first slow start and its recovery; the engine-speed
#: issue's single-flow target is on the 600-s run.
ROWS = ("B1", "B2", "B2L", "B3", "B4", "B5", "B2-hstcp", "B2L-hstcp")
#: The router-mechanism rows ns-2.35 can run (RED/ECN as R1 is; X1's XCP
#: unpaced and with the original parameters, X1u; G1's DRR without GWA,
#: G1-drr) with their own dumbbells: their bottleneck packets per
#: wall-second against B3's in each simulator (``of_B3``) show whether a
#: row's distance from B3 is ccsim's or the scenario's.
MECHANISM_ROWS = ("R1", "X1u", "X1u-dt", "G1-drr", "G1-dt")
#: The row of many flows side by side (1,000 long-lived flows at
#: 10 Gb/s): CUBIC with SACK on ns-2's Linux agent, and NewReno.
SCALE_ROWS = ("S1", "S1-newreno")
#: B2 and B3 with the Python Reno of examples/controllers/ (``ccsim bench``'s
#: ``-py`` rows): ns-2.35 runs their base row, the same scenario with its
#: own NewReno, as ccsim's Python Reno gives the built-in's results.
PY_ROWS = ("B2-py", "B3-py")
#: The rows ns-2 cannot run, ccsim only (see the module doc).
CCSIM_ONLY = {"E1": "E-TCP", "X1": "paced XCP, conservative parameters", "X1-dt": "token-bucket pacing",
              "G1": "GWA"}


def measure(name: str, quick: bool, ns: Optional[str]) -> Row:
    cpu0 = _children_cpu_s()
    r = run_isolated(name, quick)
    cpu = _children_cpu_s() - cpu0
    row = Row(name, r["wall_s"], int(round(r["bottleneck_pkts_per_s"] * r["wall_s"])),
              events_per_pkt=r["events_per_bottleneck_pkt"], ccsim_utilization=r.get("utilization"),
              ccsim_cpu_s=cpu if r.get("repeats") == 1 else None)
    if name in CCSIM_ONLY:
        row.note = f"ccsim only ({CCSIM_ONLY[name]}: not in ns-2.35)"
    elif ns is None:
        row.note = "ns not installed (apt-get install ns2)"
    else:
        d = scenario(BENCHMARKS[name].base if name in PY_ROWS else name, quick).to_dict()
        row.ns2_wall_s, row.ns2_pkts, nbytes, row.ns2_cpu_s = run_ns2(d, ns)
        flow = d["flows"][0]
        nbytes = unwrap_bytes(nbytes, row.ns2_pkts, flow.get("mss_bytes", 1000) + flow.get("header_bytes", 40))
        row.ns2_utilization = nbytes * 8 / (d["topology"]["bottleneck_rate_bps"] * d["duration_s"])
        row.ns2_setup_s, row.ns2_setup_cpu_s = ns2_setup(d, ns)
    return row


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    every = ROWS + PY_ROWS + MECHANISM_ROWS + SCALE_ROWS + tuple(CCSIM_ONLY)
    ap.add_argument("names", nargs="*", metavar="NAME", help=f"rows (default all: {', '.join(every)})")
    ap.add_argument("--quick", action="store_true", help="durations / 10")
    ap.add_argument("--json", metavar="OUT", help="write the rows as JSON")
    ap.add_argument("--rounds", type=int, default=1, metavar="N",
                    help="run the list N times, interleaved, and keep each row's fastest wall time in each "
                         "simulator (default 1): ratios between rows (of_B3) then compare runs from the same "
                         "stretch of the machine's load")
    a = ap.parse_args(argv)
    if a.rounds < 1:
        ap.error(f"--rounds: {a.rounds}; allowed: 1 or more")
    by_lower = {n.lower(): n for n in every}
    unknown = [n for n in a.names if n.lower() not in by_lower]
    if unknown:
        ap.error(f"unknown row(s) {', '.join(unknown)}; allowed: {', '.join(every)}")
    names = [by_lower[n.lower()] for n in a.names] or list(every)
    ns = shutil.which("ns")
    print(f"{'row':10} {'ccsim wall':>11} {'ns-2 wall':>10} {'ns-2 set-up':>12} {'ccsim pkts/s':>13} "
          f"{'ns-2 pkts/s':>12} {'ratio':>7} {'run only':>9} {'util c/ns-2':>11} {'CPU c/ns-2/set-up':>20} "
          f"{'by CPU, run only':>17}")
    rows = fastest_of_rounds(names, a.rounds, lambda n: measure(n, a.quick, ns), print_row, keep_fastest)
    rel = of_b3(rows)
    if rel:
        print("\nbottleneck packets per wall-second against B3's in the same simulator:")
        print(f"{'row':10} {'ccsim':>7} {'ns-2':>7}")
        for n, (c, s) in rel.items():
            print(f"{n:10} {c:7.2f} {s if s is None else f'{s:7.2f}':>7}")
    if a.json:
        Path(a.json).write_text(json.dumps(
            [dict(r.__dict__, ratio=r.ratio, ratio_run_only=r.ratio_run_only, ratio_cpu=r.ratio_cpu,
                  ratio_cpu_run_only=r.ratio_cpu_run_only,
                  of_B3=dict(zip(("ccsim", "ns2"), rel[r.name])) if r.name in rel else None) for r in rows], indent=2))
    return 0


def print_row(r: Row) -> None:
    ns_pps = f"{r.ns2_pkts / r.ns2_wall_s:12,.0f}" if r.ns2_wall_s else f"{'-':>12}"
    ratio = f"{r.ratio:6.1f}x" if r.ratio else f"{'-':>7}"
    ns_wall = f"{r.ns2_wall_s:9.2f}s" if r.ns2_wall_s else f"{'-':>10}"
    setup = f"{r.ns2_setup_s:11.3f}s" if r.ns2_setup_s is not None else f"{'-':>12}"
    run_only = f"{r.ratio_run_only:8.1f}x" if r.ratio_run_only else f"{'-':>9}"
    util = "/".join(f"{u:.3f}" if u is not None else "-" for u in (r.ccsim_utilization, r.ns2_utilization))
    cpu = "/".join(f"{c:.2f}" if c is not None else "-" for c in (r.ccsim_cpu_s, r.ns2_cpu_s, r.ns2_setup_cpu_s))
    by_cpu = ", ".join(f"{x:.1f}x" if x else "-" for x in (r.ratio_cpu, r.ratio_cpu_run_only))
    print(f"{r.name:10} {r.ccsim_wall_s:10.3f}s {ns_wall} {setup} {r.ccsim_pkts / r.ccsim_wall_s:13,.0f} {ns_pps} "
          f"{ratio} {run_only} {util:>11} {cpu:>20} {by_cpu:>17} {r.note}", flush=True)


def keep_fastest(old: Optional[Row], new: Row) -> Row:
    """One row from two measurements of it: each simulator's fastest wall
    time (and ns-2's fastest set-up); both moved the same packets (each
    simulator is deterministic), which is checked."""
    if old is None:
        return new
    if (old.ccsim_pkts, old.ns2_pkts) != (new.ccsim_pkts, new.ns2_pkts):
        raise RuntimeError(f"{new.name}: rounds moved different packets: {(old.ccsim_pkts, old.ns2_pkts)} "
                           f"against {(new.ccsim_pkts, new.ns2_pkts)}")

    def low(x: Optional[float], y: Optional[float]) -> Optional[float]:
        return y if x is None else x if y is None else min(x, y)

    return Row(new.name, min(old.ccsim_wall_s, new.ccsim_wall_s), new.ccsim_pkts, new.events_per_pkt,
               low(old.ns2_wall_s, new.ns2_wall_s), new.ns2_pkts, low(old.ns2_setup_s, new.ns2_setup_s), new.note,
               new.ccsim_utilization, new.ns2_utilization, low(old.ccsim_cpu_s, new.ccsim_cpu_s),
               low(old.ns2_cpu_s, new.ns2_cpu_s), low(old.ns2_setup_cpu_s, new.ns2_setup_cpu_s))


def of_b3(rows: List[Row]) -> dict:
    """Each non-B3 row's bottleneck packets per wall-second over B3's, in
    ccsim and in ns-2 (None where ns-2 did not run the row), when B3 is
    among ``rows``: {name: (ccsim, ns-2)}."""
    b3 = next((r for r in rows if r.name == "B3"), None)
    if b3 is None:
        return {}

    def pps(r: Row, ns2: bool) -> Optional[float]:
        if ns2:
            return r.ns2_pkts / r.ns2_wall_s if r.ns2_wall_s and r.ns2_pkts else None
        return r.ccsim_pkts / r.ccsim_wall_s

    out = {}
    for r in rows:
        if r is b3:
            continue
        ns_r, ns_b3 = pps(r, True), pps(b3, True)
        out[r.name] = (pps(r, False) / pps(b3, False), ns_r / ns_b3 if ns_r and ns_b3 else None)
    return out


if __name__ == "__main__":
    sys.exit(main())
