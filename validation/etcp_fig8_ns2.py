"""E-TCP paper Fig 8's NewReno and HSTCP points (50 flows, 2.5 and 5 Gb/s,
RTT 50/100/200 ms) in ns-2.35 and in ccsim's ns-2 mode on the same
scenario: do ns-2.35's agents give the caption's overlap of the two curves
(|HSTCP - NewReno utilisation| <= 0.03, ``etcp-fig7-9``'s check), and does
their utilisation fall from 2.5 to 5 Gb/s at each RTT?

    python -m validation.etcp_fig8_ns2 [--settings 2.5e9:0.05 5e9:0.2 ...]
        [--protocols NewReno HSTCP] [--duration 300] [--warmup 0] [--seed 1]
        [--buffer 19] [--snap 50] [--ns2-only | --ccsim-only] [--json OUT]
    python -m validation.etcp_fig8_ns2 --settings 2.5e9:0.05 --protocols HSTCP --diverge 100
    python -m validation.etcp_fig8_ns2 --summary

Both sides are ``validation.ns2_baselines``'s Fig 8 row path, unchanged:
a :class:`ccsim.experiments._kit.ns2ref.Row` (``n = 50``,
``start_spread_s = 0.1``) at each setting, built into ccsim's scenario by
``ccsim.experiments.etcp.ns2.scenario(row, seed)`` (the Fig 4 dumbbell,
1040-byte packets, 100 Gb/s 5 ms edges with 1000-packet queues,
``window_`` 10,000,000, the flows in ns-2 mode with ns-2's tick phases and
clock) and written in Tcl by :func:`validation.ns2_baselines.tcl`
(NewReno = ``Agent/TCP/Newreno``; HSTCP = ``Agent/TCP/Sack1`` with
``windowOption_ 8``, ``low_window_ 38``, ``max_ssthresh_ 100``); ns-2 is
run and read by :func:`validation.ns2_baselines.run_ns2` (no seed cache)
and ccsim by :func:`validation.ns2_baselines.run_ccsim`. The seed pairs:
both sides start each flow at the same time and draw the same tick phases.

The bottleneck is ``--buffer`` packets waiting in ccsim's terms, default
19 = ns-2's ``queue-limit 20``, as ``etcp-fig7-9`` runs it
(``ccsim.experiments.etcp.BUFFER``); ``etcp-ns2``'s recorded rows use 20
(``queue-limit 21``).

Measured from ``--warmup`` to ``--duration`` (the machinery's metrics):
utilisation = the flows' in-order goodput / capacity (ns-2 from each
agent's ``ack_``), bottleneck loss rate, retransmitted packets, timeouts,
Jain's index of the flows' goodputs. ns-2 also prints its counters every
``--snap`` seconds (extra ``snap`` events that only read counters), for its
utilisation per window. Results go to
``validation/results/etcp/fig8-ns2.json`` after every run, keyed by
setting, protocol, duration, warm-up, buffer and seed (a finished run is
not re-run unless ``--force``). ``--diverge UNTIL_S`` runs both sides
for the first UNTIL_S seconds with a trace of the forward bottleneck
instead and records where their drops first differ (time, flow, segment).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import shutil
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import ccsim
from ccsim.experiments._kit.ns2ref import Row
from ccsim.experiments.etcp import BUFFER
from ccsim.experiments.etcp import ns2 as etcp_ns2

from .ns2_baselines import bottleneck_traces, parse, run_ccsim, run_tcl, tcl

OUT = Path(__file__).resolve().parent / "results" / "etcp" / "fig8-ns2.json"
#: the settings of Fig 8 that etcp-ns2 has not recorded in ns-2.35
DEFAULT_SETTINGS = [(2.5e9, 0.05), (2.5e9, 0.2), (5e9, 0.05), (5e9, 0.1), (5e9, 0.2)]


def row(proto: str, rate: float, rtt: float, buffer: int, duration: float, warmup: float) -> Row:
    return Row(f"fig8 {proto} 50 flows {rate / 1e6:g} Mb/s {rtt * 1e3:g} ms", "Fig 8", proto, rate, rtt, buffer,
               n=50, start_spread_s=0.1, duration_s=duration, warmup_s=warmup)


def run_ns2(sc: Dict[str, Any], rate: float, ns: str, snaps: List[float]) -> Tuple[Dict[str, float], List, float]:
    """:func:`validation.ns2_baselines.run_ns2` with extra counter snapshots
    at ``snaps``: (metrics over the measured period, utilisation per
    snapshot window, wall time)."""
    program = tcl(sc)
    end = f'$ns at {sc["duration_s"]} "snap e; exit 0"'
    assert end in program
    program = program.replace(end, "".join(f'$ns at {t!r} "snap t{k}"\n' for k, t in enumerate(snaps)) + end)
    stdout, wall = run_tcl(program, ns)
    metrics = parse(stdout, sc, rate)
    # goodput per window: the sum over flows of ack_ (at start: -1 each)
    acks: Dict[str, int] = {}
    n = len(sc["flows"])
    for line in stdout.splitlines():
        p = line.split()
        if len(p) >= 6 and p[1] == "flow":
            acks[p[0]] = acks.get(p[0], 0) + int(float(p[3]))
    times = [0.0] + list(snaps) + [sc["duration_s"]]
    tags = ["start"] + [f"t{k}" for k in range(len(snaps))] + ["e"]
    acks["start"] = -n
    mss = sc["flows"][0]["mss_bytes"]
    windows = [[times[k], times[k + 1],
                round(8 * mss * (acks[tags[k + 1]] - acks[tags[k]]) / (times[k + 1] - times[k]) / rate, 5)]
               for k in range(len(tags) - 1)]
    return metrics, windows, wall


def drops(sc: Dict[str, Any], ns: str, until_s: float) -> Dict[str, List[tuple]]:
    """(time, flow, segment) of every data packet each simulator drops at
    the forward bottleneck in the first ``until_s`` seconds of ``sc``, in
    order (the traces of :func:`validation.ns2_baselines.bottleneck_drops`,
    with the time kept)."""
    def read(path: Path, flow) -> List[tuple]:
        with path.open() as fh:  # streamed: a trace of seconds at Gb/s runs to gigabytes
            rows = (line.split() for line in fh if line.startswith("d "))
            return [(float(f[1]), flow(f), int(f[10])) for f in rows if f[4] == "tcp"]

    # the flow: ccsim's fid; ns-2's agents keep fid_ 0, so from the
    # source node (r0, r1, then s(i), d(i) per flow: node 2 + 2i)
    with bottleneck_traces(sc, ns, until_s) as (ns2_tr, cc_tr):
        return {"ns2": read(ns2_tr, lambda f: (int(f[8].split(".")[0]) - 2) // 2),
                "ccsim": read(cc_tr, lambda f: int(f[7]))}


def first_divergence(sc: Dict[str, Any], ns: str, until_s: float) -> Dict[str, Any]:
    """Where the two simulators' bottleneck drops first differ in the first
    ``until_s`` seconds: the index, each side's drop there (time, flow,
    segment), and the drops before it."""
    d = drops(sc, ns, until_s)
    a, b = d["ns2"], d["ccsim"]
    same = lambda x, y: x[1:] == y[1:] and abs(x[0] - y[0]) < 1e-6
    i = next((k for k in range(min(len(a), len(b))) if not same(a[k], b[k])), min(len(a), len(b)))
    return {"until_s": until_s, "ns2_drops": len(a), "ccsim_drops": len(b), "identical_before": i,
            "ns2_at": a[i] if i < len(a) else None, "ccsim_at": b[i] if i < len(b) else None,
            "ns2_next": a[i:i + 5], "ccsim_next": b[i:i + 5], "last_common": a[i - 1] if i else None}


def key(proto: str, rate: float, rtt: float, a: argparse.Namespace) -> str:
    return (f"{proto} {rate / 1e9:g} Gb/s {rtt * 1e3:g} ms dur={a.duration:g} warm={a.warmup:g} "
            f"buffer={a.buffer} seed={a.seed}")


def setting(text: str) -> Tuple[float, float]:
    r, t = text.split(":")
    return float(r), float(t)


def summary(rec: Dict[str, Any]) -> None:
    """Per setting: each side's HSTCP - NewReno, and the 2.5 -> 5 Gb/s trend."""
    runs = rec["runs"]
    by: Dict[tuple, Dict[str, Any]] = {}
    for r in runs.values():
        by.setdefault((r["duration_s"], r["warmup_s"], r["buffer_pkts"], r["seed"], r["rate_bps"], r["rtt_s"]),
                      {})[r["protocol"]] = r
    for k in sorted(by):
        d = by[k]
        if "NewReno" in d and "HSTCP" in d:
            cells = []
            for side in ("ns2", "ccsim"):
                if side in d["NewReno"] and side in d["HSTCP"]:
                    a, b = d["NewReno"][side]["utilisation"], d["HSTCP"][side]["utilisation"]
                    cells.append(f"{side}: NewReno {a:.4f} HSTCP {b:.4f} diff {b - a:+.4f}")
            print(f"{k[4] / 1e9:g} Gb/s {k[5] * 1e3:g} ms (dur {k[0]:g}, warm {k[1]:g}, buffer {k[2]}, seed {k[3]}): "
                  + "; ".join(cells))


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--settings", type=setting, nargs="+", default=DEFAULT_SETTINGS, metavar="RATE:RTT",
                    help="bottleneck b/s : RTT s (default the five Fig 8 settings etcp-ns2 has not recorded)")
    ap.add_argument("--protocols", nargs="+", default=["NewReno", "HSTCP"], choices=["NewReno", "HSTCP"])
    ap.add_argument("--duration", type=float, default=300.0)
    ap.add_argument("--warmup", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--buffer", type=int, default=BUFFER,
                    help=f"bottleneck packets waiting, ccsim's terms (default {BUFFER}: etcp-fig7-9's)")
    ap.add_argument("--snap", type=float, default=50.0, help="ns-2 snapshot interval, s")
    side = ap.add_mutually_exclusive_group()
    side.add_argument("--ns2-only", action="store_true")
    side.add_argument("--ccsim-only", action="store_true")
    ap.add_argument("--force", action="store_true", help="re-run sides already recorded")
    ap.add_argument("--json", type=Path, default=OUT, help=f"results file (default {OUT}); merged by key")
    ap.add_argument("--summary", action="store_true", help="print the recorded differences; runs nothing")
    ap.add_argument("--diverge", type=float, metavar="UNTIL_S",
                    help="instead of the runs: where ns-2's and ccsim's bottleneck drops first differ in the "
                         "first UNTIL_S seconds (recorded under the run's key, 'divergence')")
    a = ap.parse_args(argv)
    rec = json.loads(a.json.read_text()) if a.json.exists() else {"runs": {}}
    if a.summary:
        summary(rec)
        return 0
    ns = shutil.which("ns")
    if not a.ccsim_only and ns is None:
        print("error: ns-2.35 not found (apt-get install ns2)", file=sys.stderr)
        return 2

    def save() -> None:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        tmp = a.json.with_suffix(".tmp")
        tmp.write_text(json.dumps(rec, indent=1) + "\n")
        tmp.replace(a.json)

    snaps = [round(k * a.snap, 9) for k in range(1, int(a.duration / a.snap) + 1) if k * a.snap < a.duration]
    for rate, rtt in a.settings:
        for proto in a.protocols:
            rw = row(proto, rate, rtt, a.buffer, a.duration, a.warmup)
            sc = etcp_ns2.scenario(rw, a.seed)
            k = key(proto, rate, rtt, a)
            r = rec["runs"].setdefault(k, {})
            r.update({"protocol": proto, "rate_bps": rate, "rtt_s": rtt, "duration_s": a.duration,
                      "warmup_s": a.warmup, "buffer_pkts": a.buffer, "seed": a.seed, "n": 50,
                      "start_spread_s": 0.1})
            if a.diverge:
                r.setdefault("divergence", {})[f"{a.diverge:g}"] = dv = first_divergence(sc, ns, a.diverge)
                save()
                print(f"{k}: {json.dumps(dv)}", flush=True)
                continue
            if not a.ccsim_only and (a.force or "ns2" not in r):
                m, windows, wall = run_ns2(sc, rate, ns, snaps)
                r.update({"ns2": m, "ns2_windows": windows, "ns2_wall_s": wall,
                          "ns2_date": _dt.date.today().isoformat()})
                save()
                print(f"{k}: ns-2  " + " ".join(f"{x} {v:.5g}" for x, v in m.items()) + f"  wall {wall:.0f} s",
                      flush=True)
                print("    windows: " + ", ".join(f"{s:g}-{e:g}: {u:.3f}" for s, e, u in windows), flush=True)
            if not a.ns2_only and (a.force or "ccsim" not in r):
                m, wall = run_ccsim(sc, rate)
                r.update({"ccsim": m, "ccsim_wall_s": wall, "ccsim_version": ccsim.__version__,
                          "ccsim_date": _dt.date.today().isoformat()})
                save()
                print(f"{k}: ccsim " + " ".join(f"{x} {v:.5g}" for x, v in m.items()) + f"  wall {wall:.0f} s",
                      flush=True)
    summary(rec)
    return 0


if __name__ == "__main__":
    sys.exit(main())
