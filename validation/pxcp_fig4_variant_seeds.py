"""One ``pxcp-fig4-table1`` variant over scenario seeds, exactly as
``ccsim reproduce pxcp-fig4-table1`` runs it (for P. HSTCP's Jain
index, paper 0.44).

    python -m validation.pxcp_fig4_variant_seeds [--variant "P. HSTCP"] [--seeds 1 2 ...]
                                                 [--set FIELD=VALUE ...] [--json FILE]

The scenario is the experiment's own sweep of ``--variant`` from
``first_stage(fig4_table1, False)`` (ns-2 tie order and the papers' TCP
included; 10,200-byte middle buffers, 100 s measured from 40 s) with
``scenario.seed`` set: the seed draws every flow's RTT (long flows
[64, 100] ms, short [24, 60] ms) and start ([0, 10] s). (validation/
pxcp_fig4_seeds.py builds its scenarios from ``F.scenario`` without
``first_stage``, so its runs are not the experiment's.) ``--set`` changes a
field of every flow (a sensitivity run, e.g. ``--set recovery=sack``;
JSON values).

Per seed: Jain's index of the 30 forward flows' goodputs (the experiment's
measure), the forward utilisation of middle links 1-3, each set's mean
goodput, the largest flow's goodput and RTT, the smallest RTT of each
short set, Jain's index without each short set's largest flow, and the
flows' timeouts. One run at a time.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics as st
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

import ccsim
from ccsim.experiments import first_stage
from ccsim.experiments._kit.analysis import jain
from ccsim.experiments.pxcp import fig4_table1 as F


def scenario(variant: str, seed: int, sets: Dict[str, Any]) -> Dict[str, Any]:
    pacing, proto = variant.split(" ", 1)
    sw = next(s for s in first_stage(F, False) if tuple(s.labels[0][:2]) == (pacing, proto)
              and s.labels[0][2] == F.PAPER["max_queue_bytes"])
    sc = copy.deepcopy(dict(sw.base))
    sc["seed"] = seed
    for f in sc["flows"]:
        f.update(sets)
    return sc


def measure(res) -> Dict[str, Any]:
    links = {l["name"]: l for l in res.raw["links"] if l["monitored"]}
    fwd = [f for f in res.raw["flows"] if f["entry"] % 2 == 0]
    out: Dict[str, Any] = {"jain": jain([f["goodput_bps"] for f in fwd]),
                           "util": [float(links[f"r{i}->r{i + 1}"]["utilization"]) for i in range(F.N_LINKS)],
                           "timeouts": int(sum(f["timeouts"] for f in fwd))}
    top = max(fwd, key=lambda f: f["goodput_bps"])
    out["top_mbps"], out["top_rtt_ms"], out["top_entry"] = top["goodput_bps"] / 1e6, top["rtt_prop_s"] * 1e3, top["entry"]
    drop_top = []
    for (name, _, _), k in zip(F.SETS, range(0, 2 * len(F.SETS), 2)):
        g = [f for f in fwd if f["entry"] == k]
        out[f"{name}_mbps"] = st.fmean(f["goodput_bps"] for f in g) / 1e6
        out[f"{name}_min_rtt_ms"] = min(f["rtt_prop_s"] for f in g) * 1e3
        if name != "long":
            drop_top.append(max(g, key=lambda f: f["goodput_bps"])["id"])
    out["jain_without_short_tops"] = jain([f["goodput_bps"] for f in fwd if f["id"] not in drop_top])
    out["goodputs_mbps"] = [round(f["goodput_bps"] / 1e6, 3) for f in fwd]
    out["rtts_ms"] = [round(f["rtt_prop_s"] * 1e3, 2) for f in fwd]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="P. HSTCP")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    ap.add_argument("--set", action="append", default=[], help="FIELD=JSON value for every flow")
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    sets = {k: json.loads(v) for k, v in (s.split("=", 1) for s in a.set)}
    rows: List[Dict[str, Any]] = []
    for seed in a.seeds:
        t0 = time.perf_counter()
        m = measure(ccsim.run(scenario(a.variant, seed, sets)))
        rows.append({"variant": a.variant, "seed": seed, "set": sets, "wall_s": round(time.perf_counter() - t0, 1), **m})
        print(f"seed {seed}: Jain {m['jain']:.4f} (without each short set's largest flow {m['jain_without_short_tops']:.4f}), "
              f"util {' '.join(f'{u:.3f}' for u in m['util'])}, mean Mb/s long {m['long_mbps']:.2f} "
              f"short1 {m['short1_mbps']:.2f} short2 {m['short2_mbps']:.2f}, largest {m['top_mbps']:.1f} Mb/s "
              f"at RTT {m['top_rtt_ms']:.1f} ms, timeouts {m['timeouts']}", flush=True)
        if a.json:
            Path(a.json).write_text(json.dumps(rows, indent=1) + "\n")
    js = [r["jain"] for r in rows]
    if len(js) > 1:
        print(f"{a.variant}: Jain mean {st.fmean(js):.4f}, sd {st.stdev(js):.4f}, range {min(js):.4f}-{max(js):.4f} "
              f"over seeds {', '.join(map(str, a.seeds))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
