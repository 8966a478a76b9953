"""``modern-l4s``'s Prague/classic rate ratio with the classic flow as
CUBIC (the experiment) and as Reno (the classic flow the window-balance
model assumes: W_C = 1.22/sqrt(p_C)), each with Prague's RTT independence
(``rtt_scaling = "rate"``, the experiment's) and without it (``none``),
side by side on the experiment's own scenario, per base RTT and seed.

    python -m validation.l4s_classic [--seeds 1 2 3] [--rtts 0.01 0.02 0.04 0.08] [--variants ...]
                                     [--json validation/results/modern/l4s-classic.json]

The check "the L flow's advantage falls as the base RTT grows" compares
the measured ratio with the model's trend (``ccsim.models.l4s.rate_ratio``
at the measured queues). This tells whether the model's Reno premise is
what separates them: each point is the experiment's ``pair`` sweep point
(:func:`ccsim.experiments.modern.l4s.scenarios`, full setting), run once
as it is and once with flow 1's ``cc`` set to ``reno``; the ratio and the
model's ratio are computed as the experiment's ``analyse`` computes them.
"""
from __future__ import annotations

import argparse
import copy
import datetime
import json
import math
import time
from pathlib import Path

import ccsim
from ccsim.experiments.modern import l4s as L
from ccsim.experiments.modern import window_means
from ccsim.models import l4s as M
from ccsim.experiments.modern import MSS
from ccsim.sweep import plan

OUT = Path(__file__).resolve().parent / "results" / "modern" / "l4s-classic.json"


#: variant -> (classic flow's cc, Prague's rtt_scaling)
VARIANTS = {"cubic": ("cubic", "rate"), "reno": ("reno", "rate"),
            "cubic, no RTT independence": ("cubic", "none"), "reno, no RTT independence": ("reno", "none")}


def point(variant: str, rtt: float, seed: int) -> dict:
    classic, scaling = VARIANTS[variant]
    s = L.setting(False)
    pair = L.scenarios(False)[0]
    overrides = {"flows.0.rtt_s": rtt, "flows.1.rtt_s": rtt, "seed": seed, "flows.1.cc": classic,
                 "flows.0.cc_params": {"rtt_scaling": scaling}}
    sc = copy.deepcopy(plan(pair.base, [overrides])[0].scenario)
    sc["name"] = f"{L.ID}-prague-{classic}"
    t0 = time.perf_counter()
    res = ccsim.run(sc)
    q = L._classes(res)
    g = window_means(res, s["measure_from"], s["duration"])
    prague, other = g.get(0, 0.0) / 1e6, g.get(1, 0.0) / 1e6
    c_mean, l_mean = float(q["c"]["mean_s"]), float(q["l"]["mean_s"])
    link, flows = res.bottleneck(), res.flows
    p_l = float(flows.iloc[0]["ce_marks"]) / float(q["l"]["pkts"])
    p_c = float(link["drops"]) / (float(q["c"]["pkts"]) + float(link["drops"]))
    pkt_bits = 8.0 * MSS  # goodput is payload: segments of MSS bytes
    return {"variant": variant, "rtt_s": rtt, "seed": seed, "prague_mbps": prague, "classic_mbps": other,
            "ratio": prague / other if other > 0 else math.nan,
            "model_ratio": M.rate_ratio(rtt, c_mean, l_mean, k=L.PAPER["k"]),
            "c_mean_s": c_mean, "l_mean_s": l_mean, "p_l": p_l, "p_c": p_c,
            # windows in packets: the measured rate times the measured round trip, and the model's
            "w_l": prague * 1e6 * (rtt + l_mean) / pkt_bits, "w_l_model": 2.0 / p_l if p_l > 0 else math.nan,
            "w_c": other * 1e6 * (rtt + c_mean) / pkt_bits,
            "w_c_model": 1.22 / math.sqrt(p_c) if p_c > 0 else math.nan, "wall_s": round(time.perf_counter() - t0, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--rtts", type=float, nargs="+", default=L.setting(False)["rtts"])
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    ap.add_argument("--json", type=Path, default=OUT)
    a = ap.parse_args()
    rows = []
    for variant in a.variants:
        for rtt in a.rtts:
            for seed in a.seeds:
                rows.append(point(variant, rtt, seed))
                r = rows[-1]
                print(f"{variant}: {rtt * 1e3:3g} ms seed {seed}: ratio {r['ratio']:.3f} "
                      f"(model {r['model_ratio']:.3f}); W_L {r['w_l']:.1f} (2/p_L {r['w_l_model']:.1f}), "
                      f"W_C {r['w_c']:.1f} (1.22/sqrt(p_C) {r['w_c_model']:.1f}); {r['wall_s']} s", flush=True)
                a.json.parent.mkdir(parents=True, exist_ok=True)
                a.json.write_text(json.dumps({"date": datetime.date.today().isoformat(),
                                              "ccsim_version": ccsim.__version__,
                                              "command": "python -m validation.l4s_classic", "rows": rows},
                                             indent=1) + "\n")
    for variant in a.variants:
        for rtt in a.rtts:
            mine = [r for r in rows if r["variant"] == variant and r["rtt_s"] == rtt]
            m = sum(r["ratio"] for r in mine) / len(mine)
            mm = sum(r["model_ratio"] for r in mine) / len(mine)
            print(f"{variant}: {rtt * 1e3:3g} ms: mean ratio {m:.2f}, model {mm:.2f}")


if __name__ == "__main__":
    main()
