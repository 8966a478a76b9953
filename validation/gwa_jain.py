"""Jain's index of the FTP goodputs in the GWA paper's gwa-many-flows rows,
ns-2.35 against ccsim (the ``gwa-many-flows`` check "RED: best Jain index
over buffers below the GWA schemes' worst (unfair)").

    python -m validation.gwa_jain [--seeds 3] [--schemes droptail red ecn]
                                  [--buffers 200 400 800] [--no-experiment]
                                  [--out validation/results/gwa/many-flows-jain.json]

Per scheme, buffer and seed, three runs of 100 FTPs:

- ``ns2``: ns-2.35 on validation/gwa_topology.tcl, as ``gwa_compare`` runs
  it (its ``run_ns2``: same tau_i and start times per seed);
- ``ccsim``: ccsim on the same scenario (``gwa_compare.run_ccsim``, i.e.
  :func:`ccsim.experiments.gwa.ns2.scenario`, ns-2's tie order, RNG and
  agent details);
- ``experiment`` (unless ``--no-experiment``): ccsim on the
  ``gwa-many-flows`` experiment's own scenario (``gwa.MANY``, the queue of
  :func:`ccsim.experiments.gwa.queue`, flows completed by the driver's
  ``paper_tcp``), with the scenario's ``seed`` set to the seed (the
  experiment itself leaves it at the engine's default, 1). Its tau_i are
  fixed (drawn from seed 1) and every FTP starts at 0: see the
  ``differences`` list in the output.

Each run's goodputs are measured as gwa_compare measures them (payload
acknowledged after the warm-up / bottleneck rate); recorded per run:
Jain's index, min, max, mean, min/max, and the number of FTPs below a
tenth of the fair share. ns-2's DropTail waits ``buf`` packets (queue-limit
buf + 1), the experiment's ``buf - 1`` (queue-limit buf): as the two
scripts build them.
The JSON is rewritten after every run, so a partial file is readable.
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import shutil
import statistics
import sys
import tempfile
import time

import ccsim
from ccsim.experiments.gwa import MANY
from ccsim.experiments.gwa import many_flows
from ccsim.experiments.gwa.ns2 import SETTINGS, buffer_pkts

try:
    from validation.gwa_compare import run_ccsim, run_ns2
except ImportError:  # run as a script from validation/
    from gwa_compare import run_ccsim, run_ns2

SETTING = "gwa-many-flows"
#: gwa_compare's scheme names -> the experiment's
EXP_SCHEME = {"droptail": "DropTail", "red": "RED", "ecn": "ECN"}
DEFAULT_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "gwa", "many-flows-jain.json")


def jain(xs):
    s, q = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * q) if q > 0 else math.nan


def stats(good):
    n = len(good)
    mx = max(good)
    return {"jain": jain(good), "min": min(good), "max": mx, "avg": sum(good) / n,
            "min_over_max": min(good) / mx if mx > 0 else math.nan,
            "below_tenth_fair_share": sum(g < 0.1 / n for g in good),
            "goodput": [round(g, 6) for g in good]}


def experiment_scenario(scheme: str, kb: float, seed: int) -> dict:
    """The gwa-many-flows experiment's run of ``scheme`` at ``kb`` kbytes,
    as its driver runs it (first_stage: the sweep's base with the buffer's
    override, flows completed by paper_tcp), with ``seed``."""
    from ccsim.experiments import first_stage
    from ccsim.sweep import plan

    for sw in first_stage(many_flows, False):
        if sw.base["name"] == f"{many_flows.ID}/{scheme}":
            i = list(sw.labels).index(kb)
            sc = dict(sw.base, seed=seed)
            return plan(sc, [sw.points[i]])[0].scenario
    raise KeyError(f"{many_flows.ID}/{scheme}")


def run_experiment(scheme: str, kb: float, seed: int):
    res = ccsim.run(experiment_scenario(EXP_SCHEME[scheme], kb, seed))
    return [f["goodput_bps"] / MANY.bottleneck_bps for f in res.raw["flows"][: MANY.n]]


DIFFERENCES = [
    "start times: experiment every FTP at t = 0; gwa_compare uniform on [0, 0.1 s] per seed",
    "tau_i: experiment one fixed draw (access_delays(100, 1 ms, 10 ms), seed 1, rounded to 1 us) for every "
    "seed; gwa_compare a new draw per seed (its seed-1 draw equals the experiment's up to the rounding)",
    "tie order: experiment ccsim's own; gwa_compare ties = 'ns2' on every queue and ns2_clock",
    "random streams: experiment ccsim's per-component streams from the scenario seed (RED drops, tick "
    "phases); gwa_compare rng = 'ns2' for RED and ns2_boot_order tick phases (ns-2's default stream)",
    "TCP: experiment limited_transmit false and ccsim's Reno window bookkeeping; gwa_compare ns-2.35's "
    "RenoTcpAgent details (ns2_dupwnd, ns2_singledup, i.e. Limited Transmit as ns-2.35's singledup_ 1), "
    "ns2_bugfix, halve_on_repeated_rto, syn 'ns2' (40-byte SYN as the first segment), slow_start 'ns2'",
    "DropTail bottleneck: experiment holds buffer - 1 waiting (ns-2 queue-limit = buffer); gwa_compare "
    "holds buffer waiting (its ns-2 run sets queue-limit buffer + 1)",
    "RED: experiment leaves mean_pktsize at the engine default; gwa_compare sets 500 (ns-2's), only used for "
    "the idle-time decay of the average",
    "host queues: experiment 10000 packets, gwa_compare 1000 (neither is ever reached)",
    "buffers: the full experiment also runs 600 kB (here 200, 400, 800 as gwa_compare's setting)",
]


def summary(rows, side):
    out = {}
    for r in rows:
        key = f"{r['scheme']} {r['buffer_kb']}"
        out.setdefault(key, []).append(r[side]["jain"])
    return {k: {"mean": statistics.fmean(v), "min": min(v), "max": max(v)} for k, v in out.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--schemes", nargs="+", default=["red", "droptail", "ecn"], choices=sorted(EXP_SCHEME))
    ap.add_argument("--buffers", nargs="+", type=int, default=[200, 400, 800])
    ap.add_argument("--no-experiment", action="store_true", help="skip the experiment's own scenario")
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    have_ns = shutil.which("ns") is not None
    if not have_ns:
        print("gwa_jain: ns-2.35 is not installed (`ns` not on PATH); ccsim sides only")
    st = SETTINGS[SETTING]
    seeds = list(range(1, args.seeds + 1))
    doc = {"source": "ns-2", "ns2_version": "2.35" if have_ns else None, "ccsim_version": ccsim.__version__,
           "date": datetime.date.today().isoformat(), "setting": SETTING, "seeds": seeds,
           "command": "python -m validation.gwa_jain " + " ".join(argv if argv is not None else sys.argv[1:]),
           "settings": st, "experiment_differences": DIFFERENCES,
           "sides": {"ns2": "ns-2.35, validation/gwa_topology.tcl (gwa_compare.run_ns2)",
                     "ccsim": "ccsim, gwa_compare's scenario (ccsim.experiments.gwa.ns2.scenario)",
                     "experiment": "ccsim, the gwa-many-flows experiment's own scenario with seed set"},
           "rows": []}
    for scheme in args.schemes:
        for kb in args.buffers:
            buf = buffer_pkts(kb)
            for s in seeds:
                row = {"scheme": scheme, "buffer_kb": kb, "seed": s}
                t0 = time.time()
                if have_ns:
                    with tempfile.TemporaryDirectory() as d:
                        row["ns2"] = stats(run_ns2(st, scheme, buf, s, d)["goodput"])
                t1 = time.time()
                row["ccsim"] = stats(run_ccsim(st, scheme, buf, s)["goodput"])
                t2 = time.time()
                if not args.no_experiment:
                    row["experiment"] = stats(run_experiment(scheme, kb, s))
                t3 = time.time()
                row["wall_s"] = {"ns2": round(t1 - t0, 1), "ccsim": round(t2 - t1, 1),
                                 "experiment": round(t3 - t2, 1)}
                doc["rows"].append(row)
                print(f"{scheme:8s} {kb:4d} kB seed {s}: Jain " + "  ".join(
                    f"{k} {row[k]['jain']:.4f} (min/max {row[k]['min_over_max']:.3f})"
                    for k in ("ns2", "ccsim", "experiment") if k in row) + f"  [{row['wall_s']}]", flush=True)
                doc["summary"] = {k: summary(doc["rows"], k) for k in ("ns2", "ccsim", "experiment")
                                  if k in doc["rows"][0]}
                with open(args.out, "w") as f:
                    json.dump(doc, f, indent=1)
                    f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
