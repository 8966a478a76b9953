"""``pxcp-fig1``'s maximum bottleneck occupancy of one variant at one flow
count, over scenario seeds, in ccsim (for P. XCP C.P. at 800 flows,
paper 124,040 bytes).

    python -m validation.pxcp_fig1_peak [--variant "P. XCP C.P."] [--flows 800] [--seeds 1 2 3]
                                        [--duration 100] [--pacing token_bucket|interval|none]
                                        [--bucket PKTS] [--detail] [--json FILE]

The scenario is the experiment's own: ``first_stage(fig1, False)`` (the
sweeps ``ccsim reproduce pxcp-fig1`` runs, ns-2 tie order and the papers'
TCP included), the sweep of ``--variant`` at its ``--flows`` point; the
seed (``scenario.seed``) draws every flow's RTT, start and the routers'
first timers. The run adds ``qdelay`` and a 1 s series, which change no
other result (docs/scenario.md), to tell when the maximum falls: per
second, the largest queueing delay of a packet served on the forward
bottleneck, times the link rate, is the largest backlog (bytes) any
packet found in that second. ``--pacing``/``--bucket`` replace the flows'
pacer (a sensitivity run, not the experiment). One run at a time.

``--detail`` samples every 0.1 s instead and adds, for [5, 15], [15, 40]
and [40, 100] s, the spread of the forward bottleneck's utilisation (0.1 s
samples, all bytes) and of the forward flows' summed cwnd and summed
whole-segment window floor(cwnd) (§4.2.2: "XCP and TCP's congestion window
is a real number. However, effective window size is an integer number of
MSS ... simultaneous oscillation of congestion window size of many flows
causes a big change in input traffic rate").

Reported per seed: the forward bottleneck's ``max_queue_bytes`` (whole
run, as the experiment), its utilisation over [40, 100] s, drops, the
second of the largest backlog, the largest backlog before and after 15 s
(§4.2.2: "In the first 15 seconds, window size of flows converge to their
fair share"), and the mean and range of the flows' cwnd at the end.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import ccsim
from ccsim.experiments import first_stage
from ccsim.experiments.pxcp import RATE, bottleneck_stats, fig1
from ccsim.scenario import with_overrides
from ccsim.sweep import plan


def scenario(variant: str, n: int, seed: Optional[int], duration: Optional[float] = None,
             pacing: Optional[str] = None, bucket: Optional[float] = None, series: bool = True) -> Dict[str, Any]:
    sw = next(s for s in first_stage(fig1, False) if s.labels[0][0] == variant)
    i = [lab[1] for lab in sw.labels].index(n)
    sc = with_overrides(copy.deepcopy(dict(sw.base)), sw.points[i])
    if seed is not None:
        sc["seed"] = seed
    if duration is not None:
        sc["duration_s"] = duration
        sc["warmup_s"] = min(sc["warmup_s"], duration / 2)
    if series:
        sc["sample_interval_s"] = 1.0
        sc["qdelay"] = True
    for f in sc["flows"]:
        if pacing is not None:
            f["pacing"] = pacing
        if bucket is not None:
            f["bucket_pkts"] = bucket
    return sc


def experiment_key(variant: str, n: int) -> str:
    """The run key of the experiment's own point (to find it in a cache)."""
    sw = next(s for s in first_stage(fig1, False) if s.labels[0][0] == variant)
    i = [lab[1] for lab in sw.labels].index(n)
    return plan(sw.base, [sw.points[i]])[0].key


def oscillation(res) -> Dict[str, Any]:
    """Spread of utilisation and of the forward flows' summed windows per phase."""
    import numpy as np

    b = res.bottleneck()
    ls = res.link_series
    ls = ls[ls["link"] == b["id"]]
    fs = res.flow_series
    fwd = [f["id"] for f in res.raw["flows"] if f["entry"] == 0]
    fs = fs[fs["flow"].isin(fwd)]
    w = fs.groupby("time_s")["cwnd"].sum()
    wi = fs.assign(w=np.floor(fs["cwnd"])).groupby("time_s")["w"].sum()
    out = {}
    for a, z in ((5.0, 15.0), (15.0, 40.0), (40.0, 100.0)):
        u = ls[(ls["time_s"] > a) & (ls["time_s"] <= z)]["utilization"]
        sel = (w.index > a) & (w.index <= z)
        out[f"{a:g}-{z:g}"] = {"util_mean": float(u.mean()), "util_std": float(u.std()), "util_min": float(u.min()),
                               "util_max": float(u.max()), "sum_cwnd_mean": float(w[sel].mean()),
                               "sum_cwnd_std": float(w[sel].std()), "sum_floor_cwnd_mean": float(wi[sel].mean()),
                               "sum_floor_cwnd_std": float(wi[sel].std()), "sum_floor_cwnd_min": float(wi[sel].min()),
                               "sum_floor_cwnd_max": float(wi[sel].max())}
    return out


def measure(res, detail: bool = False) -> Dict[str, Any]:
    st = bottleneck_stats(res)
    b = res.bottleneck()
    ls = res.link_series
    ls = ls[ls["link"] == b["id"]]
    if detail:  # 0.1 s samples: the largest backlog of each second
        ls = ls.assign(sec=((ls["time_s"] * 10).round() - 1) // 10 + 1)
        ls = ls.groupby("sec", as_index=False).agg(time_s=("sec", "first"), qdelay_max_s=("qdelay_max_s", "max"))
    backlog = (ls["qdelay_max_s"].fillna(0.0) * RATE / 8).tolist()
    t = ls["time_s"].tolist()
    k = max(range(len(backlog)), key=lambda j: backlog[j])
    early = max((x for x, s in zip(backlog, t) if s <= 15.0), default=0.0)
    late = max((x for x, s in zip(backlog, t) if s > 15.0), default=0.0)
    cw = [float(f["final_cwnd"]) for f in res.raw["flows"] if "final_cwnd" in f]
    out = {**st, "peak_second": t[k], "backlog_max_by_second": [round(x) for x in backlog],
           "backlog_max_first_15s": round(early), "backlog_max_after_15s": round(late),
           "cwnd_mean_end": sum(cw) / len(cw) if cw else None,
           "cwnd_min_end": min(cw) if cw else None, "cwnd_max_end": max(cw) if cw else None}
    if detail:
        out["oscillation"] = oscillation(res)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="P. XCP C.P.")
    ap.add_argument("--flows", type=int, default=800)
    ap.add_argument("--seeds", type=int, nargs="+", default=[None])
    ap.add_argument("--duration", type=float, default=None)
    ap.add_argument("--pacing", default=None)
    ap.add_argument("--bucket", type=float, default=None)
    ap.add_argument("--detail", action="store_true", help="0.1 s series: utilisation and summed-window spread")
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    print(f"experiment key of {a.variant}, {a.flows} flows: {experiment_key(a.variant, a.flows)}", flush=True)
    recs: List[Dict[str, Any]] = []
    for seed in a.seeds:
        sc = scenario(a.variant, a.flows, seed, a.duration, a.pacing, a.bucket)
        if a.detail:
            sc["sample_interval_s"] = 0.1
        t0 = time.perf_counter()
        res = ccsim.run(sc)
        m = measure(res, a.detail)
        rec = {"variant": a.variant, "flows": a.flows, "seed": seed, "seed_used": res.raw.get("seed"),
               "duration_s": sc["duration_s"], "pacing": a.pacing, "bucket": a.bucket,
               "wall_s": round(time.perf_counter() - t0, 1), **m}
        recs.append(rec)
        print(f"seed {seed}: max queue {m['max_queue_bytes']} B ({m['max_queue_pkts']} pkts), "
              f"util {m['utilization']:.4f}, drops {m['drops_all']}, peak second {m['peak_second']:.0f}, "
              f"largest backlog <=15 s {m['backlog_max_first_15s']}, >15 s {m['backlog_max_after_15s']}, "
              f"cwnd end mean {m['cwnd_mean_end']:.2f}, wall {rec['wall_s']} s", flush=True)
        for ph, o in m.get("oscillation", {}).items():
            print(f"  {ph} s: util mean {o['util_mean']:.4f} sd {o['util_std']:.4f} range {o['util_min']:.3f}-"
                  f"{o['util_max']:.3f}; sum cwnd sd {o['sum_cwnd_std']:.1f}; sum floor(cwnd) mean "
                  f"{o['sum_floor_cwnd_mean']:.0f} sd {o['sum_floor_cwnd_std']:.1f} range "
                  f"{o['sum_floor_cwnd_min']:.0f}-{o['sum_floor_cwnd_max']:.0f}", flush=True)
        if a.json:
            Path(a.json).write_text(json.dumps(recs, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
