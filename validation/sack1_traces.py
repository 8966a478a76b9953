"""ccsim's ``recovery = "sack1"`` against ns-2.35's ``Agent/TCP/Sack1`` itself:
one flow, chosen segments dropped, every transmission compared.

    python -m validation.sack1_traces [--case NAME ...] [--json OUT] [--show N]

Each case runs one Sack1 flow over a dumbbell (one source, routers r0 and
r1, one sink) in ns-2 (``Agent/TCP/Sack1`` with ``Agent/TCPSink/Sack1``)
and in ccsim (``recovery = "sack1"`` in ns-2 mode: ``rtt_estimator =
"ns2"``, ``ns2_bugfix``, ``halve_on_repeated_rto``, Limited Transmit, an
initial window of 2), with the case's segments lost at the head of the
bottleneck r0 -> r1. Both sides write ns-2's trace format for the source's
link s -> r0; its ``+`` events are the agent's transmissions (time and
segment number), and the two lists must agree one for one: the same
segment at the same time (within :data:`TOL`).

The mapping, chosen so nothing but the agents can differ:

* losses: ccsim's ``drop_list = {flow = 0, segments = [...]}`` on the
  bottleneck queue (a segment listed twice loses its first retransmission
  too); ns-2's ``ErrorModel/List`` (``$ns lossmodel``, before the queue)
  counts packets, so the script finds the arrival numbers of those
  transmissions by running ns-2 once per drop, each run adding the next
  one (arrival order at r0 is the order of the source's ``+`` events);
* packets: ns-2 without ``syn_`` sends segment 0 without its 40-byte
  header (``TcpAgent::output`` adds ``headersize()`` only to ``seqno >
  0``), so both sides carry no header (``useHeaders_ false``,
  ``header_bytes = 0``): data are 1000 bytes, ACKs 1 byte (ns-2 sink
  ``packetSize_ 1``; ccsim sends a header-less ACK as 1 byte) plus 8 per
  SACK block on both;
* start: ``syn_ false`` and ``delay_growth_ false``, so ns-2 starts with 2
  data segments at time 0 as ccsim does (its default models a SYN first);
* RTT timing: ns-2 quantises each RTT sample from a random tick phase
  (``boot_time_``, drawn by ``TcpAgent::reset`` when the agent is created
  and again when ``$ns run`` resets it: the second number of the seeded
  RNG); the script draws those two numbers in Tcl before the agent exists,
  seeds again so the agent draws the same, and gives the second to ccsim
  as ``ns2_boot_time_s``: both estimators see the same ticks and compute
  the same RTOs (a 13 µs race between an RTO and an ACK in
  ``scattered-large`` depends on it);
* no queue overflow: the bottleneck buffer holds every window the cases
  reach, so the listed segments are the only losses.

Needs ``ns`` (``apt-get install ns2``; ``python -m validation.run --peer
ns2 --only sack1`` installs it).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import ccsim

#: Two transmissions are the same if their times differ by at most this:
#: ns-2 writes trace times rounded to the microsecond (``BaseTrace::round``,
#: ``PRECISION`` 1e6 in trace/basetrace.h), ccsim exactly.
TOL = 0.5e-6 + 1e-9
RATE = 10e6
BDELAY = 0.01
RTT = 0.04
MSS = 1000
#: ccsim's HighSpeed as ns-2's ``windowOption_ 8`` runs it: the first
#: decrease halves (``slowdown``), and the response line starts at ns-2's
#: ``low_p = 1.5 / low_window_^2`` (tcp.cc ``TcpAgent::reset``), not at
#: ccsim's default 1e-3 (RFC 3649's rounded value).
HSTCP_NS2 = {"ns2_first_decrease": True, "low_window": 38, "low_p": 1.5 / 38 ** 2, "lss": "ns2"}


@dataclass(frozen=True)
class Case:
    name: str
    doc: str
    #: Segments lost at the bottleneck; a number listed k times loses its
    #: first k transmissions.
    segments: Tuple[int, ...]
    rwnd: int = 40
    duration_s: float = 4.0
    buffer_pkts: int = 1000
    cc: str = "reno"
    #: ns-2's default start-up (``syn_``, ``delay_growth_``; ccsim ``syn =
    #: "ns2"``) with headers on both sides: the SYN is 40 bytes
    #: (``tcpip_base_hdr_size_``) and every data segment gets
    #: ``headersize()``, so no header quirk needs mapping.
    syn: bool = False
    #: HighSpeed's ``max_ssthresh_`` (ccsim ``cc_params.max_ssthresh``).
    max_ssthresh: int = 0
    #: ``numdupacksFrac_`` (ccsim ``dupthresh_frac``); 0: ns-2.35's -1, off.
    numdupacks_frac: int = 0


CASES = [
    Case("single", "one loss in congestion avoidance (window 40)", (100,)),
    Case("three-in-window", "three losses in one window", (100, 103, 107)),
    Case("adjacent", "two adjacent losses and one a window later", (120, 121, 160)),
    Case("lost-retransmission", "a lost fast retransmission: RTO, then go-back-N", (100, 100)),
    Case("repeated-rto", "the retransmission after the RTO lost too: backed-off RTO", (100, 100, 100)),
    Case("slow-start-burst", "16 consecutive losses in slow start at a window of ~256: the exit burst",
         tuple(range(300, 316)), rwnd=100_000, duration_s=5.0),
    Case("scattered-large", "every 5th segment of 600..700 lost at a window of ~512",
         tuple(range(600, 700, 5)), rwnd=100_000, duration_s=5.0),
    Case("rto-large", "a burst and a lost retransmission at a large window: RTO, go-back-N over SACKed data",
         tuple(range(300, 310)) + (305,), rwnd=100_000, duration_s=6.0),
    Case("hstcp", "HighSpeed (windowOption_ 8): a slow-start loss (halved) and two later HighSpeed decreases",
         (300, 2500, 2502, 5000), rwnd=100_000, duration_s=8.0, cc="hstcp"),
    Case("syn", "ns-2's SYN start-up (syn_, delay_growth_): a 40-byte SYN alone, then the window of 2; one loss",
         (100,), syn=True),
    Case("syn-lost", "the SYN lost: resent at the initial RTO (3 s), then a window of one (bugfix_ss_)",
         (0,), duration_s=6.0, syn=True),
    Case("hstcp-lss", "HighSpeed with max_ssthresh_ 100 and a SYN: Limited Slow-Start from cwnd 100 (opencwnd), "
         "a lost fast retransmission, Limited Slow-Start again after the timeout",
         (600, 600, 4000), rwnd=100_000, duration_s=8.0, buffer_pkts=100_000, cc="hstcp", syn=True,
         max_ssthresh=100),
    Case("numdupacks-frac", "numdupacksFrac_ 50 (ns-2.26-2.29 had 100) at a window of ~500: fast retransmit after "
         "int(cwnd)/50 duplicates, pipe less that many; then three losses in one window",
         (600, 1500, 1504, 1508), rwnd=100_000, duration_s=6.0, numdupacks_frac=50),
]
CASE_NAMES = [c.name for c in CASES]


def edge_delay() -> float:
    return (RTT / 2 - BDELAY) / 2


TCL = r"""
set ns [new Simulator]
global defaultRNG
$defaultRNG seed {seed}
{start}set s [$ns node]
set r0 [$ns node]
set r1 [$ns node]
set d [$ns node]
$ns duplex-link $s $r0 100e9bps {edelay}s DropTail
$ns duplex-link $r0 $r1 {rate}bps {bdelay}s DropTail
$ns duplex-link $r1 $d 100e9bps {edelay}s DropTail
foreach {{a b}} [list $s $r0 $r0 $s $r0 $r1 $r1 $r0 $r1 $d $d $r1] {{ $ns queue-limit $a $b {limit} }}
{loss}# TcpAgent::reset draws boot_time_ when the agent is created and again when
# the run resets every node: the second number after seeding. Draw both
# here, print the second, and seed again so the agent draws the same two.
$defaultRNG uniform 0 1
set boot [$defaultRNG uniform 0 [Agent/TCP set tcpTick_]]
puts "boot_time $boot"
$defaultRNG seed {seed}
set tcp [new Agent/TCP/Sack1]
$tcp set packetSize_ {mss}
$tcp set window_ {rwnd}
$tcp set windowInit_ 2
{extra}set sink [new Agent/TCPSink/Sack1]
$ns attach-agent $s $tcp
$ns attach-agent $d $sink
$ns connect $tcp $sink
set f [open {trace} w]
$ns trace-queue $s $r0 $f
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.0 "$ftp start"
$ns at {duration} "close $f; exit 0"
$ns run
"""


def tcl(case: Case, arrivals: List[int], trace: str, seed: int = 1) -> str:
    loss = ""
    if arrivals:
        loss = ("set em [new ErrorModel/List]\n$em unit pkt\n"
                f"$em droplist {{{' '.join(str(a) for a in sorted(arrivals))}}}\n$ns lossmodel $em $r0 $r1\n")
    extra = ""
    if case.cc == "hstcp":
        extra = f"$tcp set windowOption_ 8\n$tcp set max_ssthresh_ {case.max_ssthresh}\n"
    if case.numdupacks_frac:
        extra += f"$tcp set numdupacksFrac_ {case.numdupacks_frac}\n"
    start = "" if case.syn else NO_SYN
    return TCL.format(seed=seed, edelay=repr(edge_delay()), rate=repr(RATE), bdelay=repr(BDELAY), limit=case.buffer_pkts + 1,
                      loss=loss, mss=MSS, rwnd=case.rwnd, extra=extra, trace=trace, duration=case.duration_s,
                      start=start)


#: Without a SYN: data from time 0 with the window of 2, and no headers
#: (see the mapping).
NO_SYN = """Agent/TCP set syn_ false
Agent/TCP set delay_growth_ false
Agent/TCP set useHeaders_ false
Agent/TCPSink set packetSize_ 1
"""


def sends(path: Path) -> List[Tuple[float, int]]:
    """The ``+`` events of data in an ns-2-format trace: (time, segment)."""
    out = []
    for line in path.read_text().splitlines():
        p = line.split()
        if len(p) >= 11 and p[0] == "+" and p[4] == "tcp":
            out.append((float(p[1]), int(p[10])))
    return out


def to_arrivals(tx: List[Tuple[float, int]], segments: Tuple[int, ...], have: List[int]) -> Optional[int]:
    """The arrival number of the first transmission the case loses that is
    not in ``have`` yet (``None``: all found)."""
    left = Counter(segments)
    for i, (_, seq) in enumerate(tx):
        if left[seq] > 0:
            left[seq] -= 1
            if i not in have:
                return i
    return None


def run_ns2(case: Case, ns: str, seed: int = 1) -> Tuple[List[Tuple[float, int]], List[int], float]:
    """ns-2's transmissions, the arrival numbers it dropped and its agent's
    ``boot_time_``."""
    arrivals: List[int] = []
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "s.tr"
        for _ in range(len(case.segments) + 1):
            script = Path(tmp) / "case.tcl"
            script.write_text(tcl(case, arrivals, str(trace), seed))
            r = subprocess.run([ns, str(script)], capture_output=True, text=True, cwd=tmp)
            if r.returncode != 0:
                raise RuntimeError(f"ns failed ({r.returncode}) on case {case.name}: {r.stderr[-1500:]}")
            tx = sends(trace)
            boot = float(next(ln.split()[1] for ln in r.stdout.splitlines() if ln.startswith("boot_time ")))
            nxt = to_arrivals(tx, case.segments, arrivals)
            if nxt is None:
                return tx, arrivals, boot
            arrivals.append(nxt)
    raise RuntimeError(f"case {case.name}: the listed transmissions were not all found in ns-2's trace")


def scenario(case: Case, boot_time: float) -> Dict[str, Any]:
    return {
        "name": f"sack1-{case.name}", "duration_s": case.duration_s, "seed": 1,
        "topology": {"kind": "dumbbell", "bottleneck_rate_bps": RATE, "bottleneck_delay_s": BDELAY,
                     "bottleneck_queue": {"kind": "droptail", "limit_pkts": case.buffer_pkts,
                                          "drop_list": {"flow": 0, "segments": list(case.segments)}},
                     "edge_rate_bps": 100e9, "edge_queue": {"kind": "droptail", "limit_pkts": case.buffer_pkts}},
        "flows": [{"cc": case.cc, "recovery": "sack1", "rtt_s": RTT, "mss_bytes": MSS,
                   "header_bytes": 40 if case.syn else 0, "syn": "ns2" if case.syn else "none",
                   "rwnd_pkts": case.rwnd, "init_cwnd_pkts": 2, "limited_transmit": True, "delayed_ack": False,
                   "rtt_estimator": "ns2", "ns2_bugfix": True, "halve_on_repeated_rto": True,
                   "ns2_boot_time_s": boot_time,
                   **({"dupthresh_frac": case.numdupacks_frac} if case.numdupacks_frac else {}),
                   **({"cc_params": dict(HSTCP_NS2, max_ssthresh=case.max_ssthresh)} if case.cc == "hstcp" else {})}],
    }


def run_ccsim(case: Case, boot_time: float) -> Tuple[List[Tuple[float, int]], Dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "s.tr"
        res = ccsim.run(scenario(case, boot_time), trace={"s0->r0": str(trace)})
        return sends(trace), res.raw["flows"][0]


def compare(a: List[Tuple[float, int]], b: List[Tuple[float, int]]) -> Dict[str, Any]:
    """Transmissions identical in segment and time, from the first on; the
    first difference, if any."""
    same, max_dt = 0, 0.0
    for (ta, sa), (tb, sb) in zip(a, b):
        if sa != sb or abs(ta - tb) > TOL:
            break
        same += 1
        max_dt = max(max_dt, abs(ta - tb))
    first = None
    if same < max(len(a), len(b)):
        first = {"index": same, "ns2": a[same] if same < len(a) else None,
                 "ccsim": b[same] if same < len(b) else None}
    return {"ns2_sends": len(a), "ccsim_sends": len(b), "identical": same, "max_dt_s": max_dt,
            "match": first is None, "first_difference": first}


def run_case(case: Case, ns: str, seed: int = 1) -> Dict[str, Any]:
    a, arrivals, boot = run_ns2(case, ns, seed)
    b, flow = run_ccsim(case, boot)
    res = compare(a, b)
    retx = len(a) - len({s for _, s in a})
    res.update(case=case.name, seed=seed, boot_time_s=boot, doc=case.doc, segments=list(case.segments), ns2_drop_arrivals=arrivals,
               ns2_retransmissions=retx, ccsim_retransmits=flow["retransmits"], ccsim_timeouts=flow["timeouts"],
               ccsim_fast_recoveries=flow["fast_recoveries"])
    return res


def line(r: Dict[str, Any]) -> str:
    verdict = "identical" if r["match"] else f"differ at #{r['first_difference']['index']}"
    return (f"{r['case']:20} seed {r['seed']} {r['identical']:5}/{r['ns2_sends']:<5} ns-2 sends identical in segment and time "
            f"(ccsim {r['ccsim_sends']}); retx {r['ns2_retransmissions']}/{r['ccsim_retransmits']}, "
            f"RTOs {r['ccsim_timeouts']}: {verdict}")


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", nargs="+", metavar="NAME", help=f"cases to run (default all: {', '.join(CASE_NAMES)})")
    ap.add_argument("--seeds", type=int, default=1, help="ns-2 seeds 1..N (each a different boot_time_)")
    ap.add_argument("--effect", metavar="OUT", nargs="?", const="-",
                    help="instead: run the Sack1 baseline rows in ccsim with recovery = \"sack1\" beside their "
                         "recorded ns-2 and ccsim numbers (no ns-2 needed); OUT: also write JSON")
    ap.add_argument("--json", metavar="OUT", help="write the results as JSON")
    ap.add_argument("--show", type=int, default=0, metavar="N",
                    help="print N transmissions of both around the first difference")
    a = ap.parse_args(argv)
    if a.effect:
        rows = effect()
        if a.effect != "-":
            Path(a.effect).write_text(json.dumps({"rows": rows}, indent=1) + "\n")
        return 0
    if a.seeds < 1:
        ap.error(f"--seeds: {a.seeds}; allowed: 1 or more")
    bad = [c for c in a.case or [] if c not in CASE_NAMES]
    if bad:
        ap.error(f"--case: unknown {', '.join(bad)}; allowed: {', '.join(CASE_NAMES)}")
    ns = shutil.which("ns")
    if ns is None:
        print("error: ns-2.35 not found (apt-get install ns2, or python -m validation.run --peer ns2)",
              file=sys.stderr)
        return 2
    results = []
    for case, seed in ((c, s) for s in range(1, a.seeds + 1) for c in CASES):
        if a.case and case.name not in a.case:
            continue
        r = run_case(case, ns, seed)
        results.append(r)
        print(line(r), flush=True)
        if not r["match"] and a.show:
            na, _, boot = run_ns2(case, ns, seed)
            nb, _ = run_ccsim(case, boot)
            i = r["first_difference"]["index"]
            for j in range(max(0, i - a.show), i + a.show):
                print(f"  #{j}: ns-2 {na[j] if j < len(na) else '-'}   ccsim {nb[j] if j < len(nb) else '-'}")
    if a.json:
        Path(a.json).write_text(json.dumps({"tolerance_s": TOL, "cases": results}, indent=1) + "\n")
    return 0 if all(r["match"] for r in results) else 1



# --------------------------------------------------------------------------
# the effect on the ns-2 baseline rows
# --------------------------------------------------------------------------

#: Baseline rows whose ns-2 agent is Sack1 (ccsim runs them with
#: ``recovery = "sack"`` today), as (experiment, row id).
EFFECT_ROWS = [
    ("etcp", "fig6 HSTCP 1000 Mb/s 50 ms"),
    ("etcp", "fig6 HSTCP 1000 Mb/s 100 ms"),
    ("etcp", "fig6 HSTCP 1000 Mb/s 200 ms"),
    ("etcp", "fig8 HSTCP 50 flows 2500 Mb/s 100 ms"),
    ("etcp", "fig6 HSTCP 10 Mb/s 100 ms"),
    ("etcp", "fig6 HSTCP 100 Mb/s 100 ms"),
    ("ltcp", "fig8 10 TCP 100 Mb/s"),
    ("ltcp", "fig8 10 TCP 500 Mb/s"),
    ("ltcp", "fig8 10 TCP 1000 Mb/s"),
    ("ltcp", "fig6 TCP 10 Mb/s"),
]


def effect(rows=EFFECT_ROWS, seed: int = 1) -> List[Dict[str, Any]]:
    """Each row's recorded ns-2 and ccsim (``sack``) numbers beside a fresh
    ccsim run with ``recovery = "sack1"`` (the experiments are unchanged)."""
    import time

    from ccsim.experiments._kit import ns2ref
    from ccsim.experiments.etcp import ns2 as etcp_ns2
    from ccsim.experiments.ltcp import ns2 as ltcp_ns2

    mods = {"etcp": etcp_ns2, "ltcp": ltcp_ns2}
    out = []
    for exp, rid in rows:
        mod = mods[exp]
        row = next(r for r in mod.ROWS if r.id == rid)
        ref = next(r for r in json.loads(Path(mod.REFERENCE).read_text())["rows"] if r["row"]["id"] == rid)
        sc = mod.scenario(row, seed)
        for f in sc["flows"]:
            if f.get("recovery") == "sack":
                f["recovery"] = "sack1"
        t0 = time.perf_counter()
        m = ns2ref.measure(ccsim.run(sc).raw, row.rate_bps)
        out.append({"experiment": mod.ID, "row": rid, "ns2": ref["ns2"], "ccsim_sack": ref["ccsim"], "ccsim_sack1": m,
                    "wall_s": time.perf_counter() - t0})
        r = out[-1]
        print(f"{mod.ID} {rid}: " + "; ".join(
            f"{k} {r['ns2'][k]:.4g} / {r['ccsim_sack'][k]:.4g} / {m[k]:.4g}" for k in ns2ref.METRICS)
            + f" (ns-2 / ccsim sack / ccsim sack1; {r['wall_s']:.0f} s)", flush=True)
    return out


if __name__ == "__main__":
    sys.exit(main())
