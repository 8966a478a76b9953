"""Seed spread of the GWA paper's LAN fairness at one buffer (``gwa-lan``,
§6.1): ccsim only (GWA is not in ns-2.35).

    python -m validation.gwa_lan_seeds [--schemes GWA-RR GWA-FCFS] [--buffer 60] [--seeds 10]
                                       [--series SEED ...] [--out validation/results/gwa/lan-fairness-seeds.json]

Runs the ``gwa-lan`` experiment's own scenario of each scheme at the
buffer, as its driver builds it (``first_stage``: the sweep's base with
the buffer's override, flows completed by ``paper_tcp``), with the
scenario's ``seed`` set to 1..N (the experiment runs the engine default,
seed 1; the seed moves RED/Telnet draws, the agents' tick phases, and so
every tie after them). Per run: the FTP goodputs (fractions of the
bottleneck rate), Jain's index, min/max, and whether the experiment's
"perfect fairness" checks would pass on this run alone
(:func:`ccsim.experiments.gwa.fairness_checks`: round(Jain, 4) >= 0.99 and
round(min/max, 4) >= 0.9); bottleneck drops, utilisation, average queue,
FTP timeouts, each FTP's retransmits and last advertised window.

``--series SEED``: also rerun that seed of each scheme with 1 ms samples
and report, per FTP over the measured window (after the warm-up), the
time-average of its window (min(cwnd, W_a)), the share of time at each
whole W_a, and its goodput in 1 s slices (whether a flow's deficit is
held over the run or moves from flow to flow).
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import sys
import time

import numpy as np

import ccsim
from ccsim.experiments import first_stage
from ccsim.experiments.gwa import LAN, lan
from ccsim.sweep import plan

DEFAULT_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "gwa", "lan-fairness-seeds.json")


def jain(xs):
    s, q = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * q) if q > 0 else math.nan


def experiment_scenario(scheme: str, kb: float, seed: int, sample_s: float = 0.0) -> dict:
    for sw in first_stage(lan, False):
        if sw.base["name"] == f"{lan.ID}/{scheme}":
            i = list(sw.labels).index(kb)
            sc = dict(sw.base, seed=seed)
            if sample_s:
                sc["sample_interval_s"] = sample_s
            return plan(sc, [sw.points[i]])[0].scenario
    raise KeyError(f"{lan.ID}/{scheme}")


def summarise(res) -> dict:
    flows = res.raw["flows"]
    ftp = flows[: LAN.n]
    good = [f["goodput_bps"] / LAN.bottleneck_bps for f in ftp]
    j, mm = jain(good), min(good) / max(good)
    link = res.bottleneck()
    return {"jain": j, "min_over_max": mm, "min": min(good), "max": max(good),
            "passes_jain": round(j, 4) >= 0.99, "passes_min_over_max": round(mm, 4) >= 0.9,
            "goodput": [round(g, 6) for g in good],
            "drops": link["drops"], "utilization": link["utilization"], "avg_queue_pkts": link["avg_queue_pkts"],
            "ftp_timeouts": sum(f["timeouts"] for f in ftp),
            "ftp_retransmits": [f.get("retransmits") for f in ftp],
            "ftp_last_awnd_pkts": [f.get("awnd_pkts") for f in ftp]}


def series(res, warm: float, dur: float) -> dict:
    """Per FTP: time-average window, share of samples at each whole W_a,
    goodput in 1 s slices (from the delivered-bytes column if present)."""
    fs = res.flow_series
    fs = fs[(fs["flow"] < LAN.n) & (fs["time_s"] > warm)]
    out = {"columns": list(res.flow_series.columns), "flows": []}
    for i in range(LAN.n):
        d = fs[fs["flow"] == i].sort_values("time_s")
        w = np.minimum(d["cwnd"].to_numpy(), d["awnd_pkts"].to_numpy())
        aw = d["awnd_pkts"].to_numpy()
        vals, cnt = np.unique(aw, return_counts=True)
        rec = {"flow": i, "window_mean": float(np.mean(w)), "cwnd_mean": float(d["cwnd"].mean()),
               "awnd_mean": float(np.mean(aw)),
               "awnd_share": {str(int(v)) if float(v).is_integer() else str(v): round(c / len(aw), 4)
                              for v, c in zip(vals, cnt)}}
        for col in ("delivered_bytes", "acked_bytes", "bytes_acked", "goodput_bps", "throughput_bps"):
            if col in d:
                t = d["time_s"].to_numpy()
                x = d[col].to_numpy(dtype=float)
                edges = np.arange(math.ceil(warm), math.floor(dur) + 1)
                if col.endswith("_bytes"):
                    at = np.interp(edges, t, x)
                    rec[f"slices_1s_mbps_from_{col}"] = [round(v, 2) for v in (np.diff(at) * 8 / 1e6)]
                else:
                    idx = np.digitize(t, edges)
                    rec[f"slices_1s_mbps_from_{col}"] = [round(float(np.mean(x[idx == k])) / 1e6, 2)
                                                         for k in range(1, len(edges))]
                break
        out["flows"].append(rec)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--schemes", nargs="+", default=["GWA-RR", "GWA-FCFS"])
    ap.add_argument("--buffer", type=int, default=60)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--series", type=int, nargs="*", default=[], metavar="SEED")
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    doc = {"source": "ccsim", "ccsim_version": ccsim.__version__, "date": datetime.date.today().isoformat(),
           "experiment": lan.ID, "buffer_kb": args.buffer, "seeds": list(range(1, args.seeds + 1)),
           "command": "python -m validation.gwa_lan_seeds " + " ".join(argv if argv is not None else sys.argv[1:]),
           "pass_condition": "fairness_checks: round(Jain, 4) >= 0.99 and round(min/max, 4) >= 0.9",
           "runs": [], "series": []}

    def save():
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")

    for scheme in args.schemes:
        for s in doc["seeds"]:
            t0 = time.time()
            r = summarise(ccsim.run(experiment_scenario(scheme, args.buffer, s)))
            doc["runs"].append({"scheme": scheme, "seed": s, **r, "wall_s": round(time.time() - t0, 1)})
            print(f"{scheme:8s} {args.buffer} kB seed {s:2d}: Jain {r['jain']:.4f} min/max {r['min_over_max']:.4f} "
                  f"pass {r['passes_jain'] and r['passes_min_over_max']}  drops {r['drops']} "
                  f"goodput {' '.join(f'{g:.4f}' for g in r['goodput'])}  [{time.time() - t0:.1f} s]", flush=True)
            save()
        for s in args.series:
            res = ccsim.run(experiment_scenario(scheme, args.buffer, s, sample_s=0.001))
            r = summarise(res)
            sr = series(res, LAN.warmup_s, LAN.duration_s)
            doc["series"].append({"scheme": scheme, "seed": s, "jain": r["jain"], "min_over_max": r["min_over_max"],
                                  "goodput": r["goodput"], **sr})
            print(f"{scheme} seed {s} sampled: Jain {r['jain']:.4f} min/max {r['min_over_max']:.4f}")
            for fr in sr["flows"]:
                sl = next((v for k, v in fr.items() if k.startswith("slices_")), None)
                print(f"  ftp {fr['flow']}: goodput {r['goodput'][fr['flow']]:.4f} window {fr['window_mean']:.3f} "
                      f"cwnd {fr['cwnd_mean']:.2f} W_a {fr['awnd_mean']:.3f} {fr['awnd_share']}"
                      + (f" 1 s slices {sl}" if sl else ""), flush=True)
            save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
