"""``etcp-fig22-23``'s Fig 22 (rate E-TCP, 1 Gb/s, 100 ms, buffer 12000,
b = 15000) over seeds: how far the rate still is from the large-buffer
equilibrium when the experiment's steady window (100 s on) starts, and
the loss over the second and the last third.

    python -m validation.etcp_fig22_tail [--seeds 1 2 3] [--json validation/results/etcp/fig22-tail.json]

The run is the experiment's own scenario (``fig22_23._scenario`` with
``FIG22``, 300 s, samples every 0.1 s) with the scenario seed set. Per seed:
the steady rate and loss as the experiment measures them (``steady_mean``,
``steady_loss``) over 100-300 s, 100-200 s and 200-300 s; the 10 s mean
rate from 90 to 300 s; and the time constant of x - x* (x* the model's
rate) fitted to the 10 s means over 100-200 s, against the linearised law's
b tau p0 (module docstring of :mod:`ccsim.models.etcp`: with the overflow
loss p = 1 - C/x, dx/dt ~ -(x - x*) / (b tau p0) near x*; tau the
full-queue RTT, 0.2 s).
"""
from __future__ import annotations

import argparse
import copy
import datetime
import json
from pathlib import Path
from typing import Dict

import numpy as np

import ccsim
from ccsim.experiments.etcp import ETCP_P0, fig22_23 as F, steady_loss, steady_mean
from ccsim.experiments._kit.analysis import bottleneck_series, flow_series
from ccsim.sweep import plan

OUT = Path(__file__).resolve().parent / "results" / "etcp" / "fig22-tail.json"
DURATION = 300.0


def run(seed: int) -> Dict:
    sc = F._scenario("etcp-fig22", DURATION, *F.FIG22, 0.1)
    sc = copy.deepcopy(plan(sc, [{"seed": seed}])[0].scenario)
    res = ccsim.run(sc)
    return {"fs": flow_series(res, 0), "ls": bottleneck_series(res)}


def summary(d: Dict, seed: int) -> Dict:
    fs, ls = d["fs"], d["ls"]
    m = F.model(*F.FIG22)
    xs = float(m["rate_pps"])
    rate, rtt = F.FIG22
    b = 1.25 * F.buffer_pkts(rate, rtt)
    tau = rtt + F.buffer_pkts(rate, rtt) / (rate / (8.0 * 1040))
    ten = {a: steady_mean(fs, "rate_pps", a, a + 10) for a in range(90, 300, 10)}
    t = np.arange(100, 200, 10) + 5.0
    k = np.polyfit(t, np.log([ten[a] - xs for a in range(100, 200, 10)]), 1)[0]
    return {"seed": seed, "model_rate_pps": xs, "model_loss": float(m["loss"]),
            "windows": {f"{a:g}-{c:g} s": {"rate_pps": steady_mean(fs, "rate_pps", a, c), "loss": steady_loss(ls, a, c)}
                        for a, c in ((100, 300), (100, 200), (200, 300))},
            "peak_rate_pps": float(fs.rate_pps.max()), "rate_10s_means": {str(a): v for a, v in ten.items()},
            "fitted_time_constant_s": float(-1.0 / k), "b_tau_p0_s": b * tau * ETCP_P0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--json", type=Path, default=OUT)
    a = ap.parse_args()
    rows = []
    for seed in a.seeds:
        rows.append(summary(run(seed), seed))
        w = rows[-1]["windows"]
        print(f"seed {seed}: loss 100-300 {w['100-300 s']['loss']:.5f}, 100-200 {w['100-200 s']['loss']:.5f}, "
              f"200-300 {w['200-300 s']['loss']:.5f}; time constant {rows[-1]['fitted_time_constant_s']:.1f} s",
              flush=True)
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps({"date": datetime.date.today().isoformat(), "ccsim_version": ccsim.__version__,
                                      "command": "python -m validation.etcp_fig22_tail", "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
