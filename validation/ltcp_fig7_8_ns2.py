"""The LTCP paper's Fig 7 (four LTCP flows arriving and leaving) and Fig 8
(one LTCP flow with a 300 s head start, then ten TCP flows) in ns-2.35,
with LTCP written on ns-2's own ``Agent/TCP/Sack1`` (for the causes
of ``ltcp-fig7``'s and ``ltcp-fig8``'s full-run misses).

    python -m validation.ltcp_fig7_8_ns2 fig7 [--duration 600] [--seed 1] [--out FILE.json]
    python -m validation.ltcp_fig7_8_ns2 fig8 --rate 1e9 [--seed 1] [--out FILE.json]

ns-2.35 has no LTCP agent and the paper's patch of TCP/Sack1 is not public
("The LTCP protocol is implemented by modifying the TCP/Sack1 agent",
§V-A). The agent's own knobs carry LTCP's window rules (§IV-B pseudo-code)
without a C++ change:

* increase: with ``windowOption_ 1`` (the default) ``TcpAgent::opencwnd``
  adds ``increase_num_ / cwnd_`` per new ACK in congestion avoidance, which
  is LTCP's ``cwnd += K/cwnd`` when ``increase_num_`` is K;
* decrease: ``TcpAgent::slowdown`` (Sack1's ``dupack_action``: ``CLOSE_
  SSTHRESH_HALF|CLOSE_CWND_HALF``) sets ``cwnd_ = ssthresh_ =
  int(decrease_num_ * window())``, except on the agent's first decrease,
  in slow start and after a timeout, where it halves (LTCP's K = 1 is TCP,
  and a connection's first loss ends its slow start at K = 1);
* layers: a Tcl procedure run every ``--poll`` seconds (10 ms, a seventh
  of the 70 ms RTT) sets ``increase_num_`` to K = the largest K with
  W_K = K(K+1)(K-1)/6 * W_T <= cwnd_ (W_T = 50; K = 1 in slow start) and
  ``decrease_num_`` to 0.85 (beta = 0.15) for K >= 2, else 0.5. With
  beta < 3/(K+1) (K <= 19, eq. 13) the pseudo-code's K (+1 when cwnd
  reaches W_{K+1}, -1 when a cut leaves cwnd below W_K, set from cwnd when
  slow start ends) is exactly this function of cwnd; the poll only delays
  a layer change by up to 10 ms.

The network is the experiments' own (``ccsim.experiments.ltcp.fig7`` and
``fig8`` scenarios, full run), written in Tcl by
``validation.ns2_baselines.tcl`` (Fig 4's dumbbell, queue-limit = ccsim's
waiting limit + 1, Sack1 agents with ns-2's defaults; TCP flows of Fig 8
are the unmodified Sack1 agent). Output: per-flow ``ack_`` and ``cwnd_``
every second; the analysis is the experiments' (Fig 7: each phase's
second-half mean goodput per flow and Jain's index; Fig 8: aggregate
goodput of the ten TCP flows and of LTCP over [300, 600] s).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List

from ccsim.experiments import first_stage
from ccsim.experiments._kit.analysis import jain
from ccsim.experiments.ltcp import PAYLOAD, fig7, fig8

from .ns2_baselines import tcl

W_T, BETA = 50.0, 0.15

LTCP_TCL = r"""
proc ltcp_layer {{w}} {{
    set k 1
    while {{[expr {{($k + 1) * ($k + 2) * $k / 6.0 * {w_t}}}] <= $w}} {{ incr k }}
    return $k
}}
set ltcp_flows {{{ltcp}}}
proc ltcp_poll {{}} {{
    global ns tcp ltcp_flows
    foreach i $ltcp_flows {{
        set c [$tcp($i) set cwnd_]
        if {{$c < [$tcp($i) set ssthresh_]}} {{ set k 1 }} else {{ set k [ltcp_layer $c] }}
        $tcp($i) set increase_num_ $k
        if {{$k >= 2}} {{ $tcp($i) set decrease_num_ {dec} }} else {{ $tcp($i) set decrease_num_ 0.5 }}
    }}
    $ns at [expr {{[$ns now] + {poll}}}] "ltcp_poll"
}}
$ns at 0.0 "ltcp_poll"
proc sample {{}} {{
    global ns tcp n
    set t [$ns now]
    for {{set i 0}} {{$i < $n}} {{incr i}} {{
        puts "s $t $i [$tcp($i) set ack_] [$tcp($i) set cwnd_] [$tcp($i) set nrexmitpack_] [$tcp($i) set nrexmit_]"
    }}
    $ns at [expr {{$t + 1.0}}] "sample"
}}
$ns at 0.0 "sample"
{stops}$ns at {duration} "sample; exit 0"
$ns run
"""


def program(sc: Dict[str, Any], ltcp: List[int], poll: float) -> str:
    """Tcl of ``sc`` (flows as TCP/Sack1; those in ``ltcp`` with LTCP's rules)."""
    flows = []
    for f in sc["flows"]:
        g = dict(f)
        if g.get("cc") == "ltcp":
            g["cc"] = "reno"
            g.pop("cc_params", None)
        flows.append(g)
    head = tcl(dict(sc, flows=flows))
    head = head[:head.index("\nproc snap")]
    stops = "".join(f'$ns at {f["stop_s"]} "$ftp({i}) stop"\n' for i, f in enumerate(sc["flows"])
                    if f.get("stop_s") is not None and f["stop_s"] < sc["duration_s"])
    return head + LTCP_TCL.format(w_t=W_T, ltcp=" ".join(map(str, ltcp)), dec=1.0 - BETA, poll=poll,
                                  stops=stops, duration=sc["duration_s"])


def expand(sc: Dict[str, Any]) -> Dict[str, Any]:
    flows = []
    for f in sc["flows"]:
        for _ in range(int(f.get("count", 1))):
            flows.append({k: v for k, v in f.items() if k != "count"})
    return dict(sc, flows=flows)


def run_ns(prog: str) -> List[List[float]]:
    with tempfile.NamedTemporaryFile("w", suffix=".tcl", delete=False) as fh:
        fh.write(prog)
        path = fh.name
    out = subprocess.run(["ns", path], capture_output=True, text=True, check=True).stdout
    Path(path).unlink()
    return [[float(x) for x in line.split()[1:]] for line in out.splitlines() if line.startswith("s ")]


def series(rows: List[List[float]], n: int, mss: int) -> Dict[str, Any]:
    """Per flow: times, goodput over each second (Mb/s), cwnd."""
    by = {i: [] for i in range(n)}
    for t, i, ack, cwnd, rx, to in rows:
        by[int(i)].append((t, ack, cwnd, rx, to))
    out = {}
    for i, pts in by.items():
        pts = sorted({round(p[0], 6): p for p in pts}.values())  # the last sample is printed twice
        gp = [(t1, max(0.0, a1 - max(a0, -1.0)) * 8 * mss / (t1 - t0) / 1e6 if a1 >= 0 else 0.0)
              for (t0, a0, *_), (t1, a1, *_) in zip(pts, pts[1:])]
        out[i] = {"t": [p[0] for p in gp], "goodput_mbps": [p[1] for p in gp],
                  "cwnd": [p[2] for p in pts[1:]], "retransmits": pts[-1][3], "timeouts": pts[-1][4]}
    return out


def fig7_analysis(s: Dict[int, Dict[str, Any]], duration: float) -> List[Dict[str, Any]]:
    starts, lasts = fig7.PAPER["starts_s"], fig7.PAPER["lasts_s"]
    bounds = sorted({0.0, *starts, *((a + d) for a, d in zip(starts, lasts) if d is not None)})
    bounds = [b for b in bounds if b < duration] + [duration]
    rows = []
    for a, b in zip(bounds, bounds[1:]):
        active = [i for i, (st, d) in enumerate(zip(starts, lasts)) if st <= a and (d is None or st + d >= b)]
        means = []
        for i in active:
            v = [g for t, g in zip(s[i]["t"], s[i]["goodput_mbps"]) if a + 0.5 * (b - a) < t <= b]
            means.append(sum(v) / len(v))
        rows.append({"phase_start_s": a, "phase_end_s": b, "flows": len(active), "jain": jain(means),
                     "means_mbps": means, "aggregate_mbps": sum(means)})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("figure", choices=["fig7", "fig8"])
    ap.add_argument("--rate", type=float, default=1e9, help="fig8: bottleneck rate (b/s)")
    ap.add_argument("--duration", type=float, default=None, help="fig7: seconds simulated (default 600)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--poll", type=float, default=0.01)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--print-tcl", action="store_true")
    args = ap.parse_args(argv)

    if args.figure == "fig7":
        sc = dict(first_stage(fig7, False)[0].base)
        sc["duration_s"] = args.duration or 600.0
    else:
        sw = first_stage(fig8, False)[0]
        (i,) = [k for k, (r, m) in enumerate(sw.labels) if r == args.rate and m == "LTCP+10TCP"]
        sc = json.loads(json.dumps(sw.base))
        for key, v in sw.points[i].items():
            node = sc
            *path, last = key.split(".")
            for p in path:
                node = node[p]
            node[last] = v
    sc["seed"] = args.seed
    sc = expand(sc)
    ltcp = [i for i, f in enumerate(sc["flows"]) if f.get("cc") == "ltcp"]
    prog = program(sc, ltcp, args.poll)
    if args.print_tcl:
        print(prog)
        return 0
    t0 = time.perf_counter()
    rows = run_ns(prog)
    wall = time.perf_counter() - t0
    s = series(rows, len(sc["flows"]), sc["flows"][0]["mss_bytes"])
    rec: Dict[str, Any] = {"figure": args.figure, "seed": args.seed, "poll_s": args.poll,
                           "duration_s": sc["duration_s"], "ns2_wall_s": wall}
    if args.figure == "fig7":
        rec["phases"] = fig7_analysis(s, sc["duration_s"])
        for r in rec["phases"]:
            print(f"{r['phase_start_s']:g}-{r['phase_end_s']:g} s, {r['flows']} flows: Jain {r['jain']:.4f}, "
                  f"means {' '.join(f'{m:.1f}' for m in r['means_mbps'])} Mb/s, aggregate {r['aggregate_mbps']:.1f}")
    else:
        head = fig8.setting(False)[1]
        agg = {}
        for i, f in enumerate(sc["flows"]):
            v = [g for t, g in zip(s[i]["t"], s[i]["goodput_mbps"]) if head < t <= 2 * head]
            agg.setdefault(f["cc"], []).append(sum(v) / len(v))
        cap = args.rate * PAYLOAD / 1e6
        rec.update(rate_bps=args.rate, tcp_aggregate_mbps=sum(agg["reno"]), ltcp_mbps=sum(agg["ltcp"]),
                   tcp_share=sum(agg["reno"]) / cap, tcp_per_flow_mbps=agg["reno"],
                   tcp_jain=jain(agg["reno"]), retransmits=[s[i]["retransmits"] for i in s],
                   timeouts=[s[i]["timeouts"] for i in s])
        print(f"{args.rate / 1e6:g} Mb/s: TCP aggregate {rec['tcp_aggregate_mbps']:.2f} Mb/s "
              f"(share {rec['tcp_share']:.4f}), LTCP {rec['ltcp_mbps']:.2f} Mb/s, timeouts {sum(rec['timeouts']):g}")
    rec["series"] = {str(i): v for i, v in s.items()}
    print(f"ns-2 wall {wall:.0f} s")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(rec, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
