"""``etcp-fig14``'s stable-state check over seeds: the drift of
connections 1 and 2's mean windows between the second and the last third
of the 300 s run, per scenario seed.

    python -m validation.etcp_fig14_seeds [--seeds 1 2 3 4 5 6]
                                          [--json validation/results/etcp/fig14-seeds.json]

The experiment runs one seed (the engine's default, 1); its check asks the
two thirds' means to be within 5%. This runs the experiment's own scenario
(:func:`ccsim.experiments.etcp.fig14.scenarios`, full) with other seeds
and measures the drift the way the experiment's ``analyse`` does, to tell
a drift of the equilibrium from one run's wander.
"""
from __future__ import annotations

import argparse
import copy
import datetime
import json
from pathlib import Path

import ccsim
from ccsim.experiments.etcp import fig14 as F
from ccsim.sweep import plan

OUT = Path(__file__).resolve().parent / "results" / "etcp" / "fig14-seeds.json"


def drift(seed: int) -> dict:
    sw = F.scenarios(False)[0]
    sc = copy.deepcopy(plan(sw.base, [{"seed": seed}])[0].scenario)
    res = ccsim.run(sc)
    fs = res.flow_series
    (a1, b1), (a2, b2) = F.windows(False)
    out = {"seed": seed}
    for f in F.SHOWN_FLOWS:
        df = fs[fs["flow"] == f]
        w1, w2 = F._mean(df, "cwnd", a1, b1), F._mean(df, "cwnd", a2, b2)
        out[f"connection {f + 1}"] = {"second_third": w1, "last_third": w2, "drift": w2 / w1 - 1}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5, 6])
    ap.add_argument("--json", type=Path, default=OUT)
    a = ap.parse_args()
    rows = []
    for seed in a.seeds:
        rows.append(drift(seed))
        print(json.dumps(rows[-1]), flush=True)
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps({"date": datetime.date.today().isoformat(), "ccsim_version": ccsim.__version__,
                                      "command": "python -m validation.etcp_fig14_seeds", "rows": rows},
                                     indent=1) + "\n")


if __name__ == "__main__":
    main()
