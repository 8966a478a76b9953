"""``etcp-fig14`` (window E-TCP) and ``etcp-fig18-21``'s Fig 21 (rate E-TCP) on
the multi-branch topology of Fig 13, over seeds and with the E-TCP
signalling timer pushed out: what moves connections 1 and 2 between the
second and the last third of a 300 s run, and away from the network
equilibrium model.

    python -m validation.etcp_multibranch_seeds --variant window|rate [--seeds 1 2 ...]
                                                [--min-rto S] [--duration 300]
                                                [--json validation/results/etcp/multibranch-seeds.json]

Each run is the experiments' own scenario (:func:`ccsim.experiments.etcp.multibranch_scenario`
with ``etcp_flow("E-TCP")`` or ``etcp_flow("E-TCP rate")``) with the scenario
seed set, and optionally ``min_rto_s`` on every flow (``--min-rto``): the
E-TCP signalling timer (``sender.rs`` ``on_sig_timer``, which declares every
unanswered congestion number lost after an RTO without an ACK advancing
``cc_ack``) and the retransmission timer both use that floor; only the
signalling timer acts on the controller. Per connection 1 and 2 a row
records, over each third: the mean window (or rate) as the experiments
measure it, the loss the controller *responded to* (from the cumulative
``loss_est`` and the integrated sending rate), the path loss (the links'
``steady_loss`` compounded over the connection's links), the per-packet law
at each of the two losses (:func:`ccsim.models.etcp.window_at_loss`), the
coefficient of variation of the window (or rate) after the first third, the
flow's timeouts (retransmission plus signalling timer) and packets sent.
Rows are keyed by (variant, seed, min_rto_s, duration) and replaced when run
again. One simulation at a time.
"""
from __future__ import annotations

import argparse
import copy
import datetime
import json
from pathlib import Path
from typing import Dict, Optional

import numpy as np

import ccsim
from ccsim.experiments.etcp import (MB_HOPS, chain_links, etcp_flow, multibranch_model, multibranch_scenario,
                                    steady_loss, steady_mean)
from ccsim.models.etcp import window_at_loss
from ccsim.sweep import plan

OUT = Path(__file__).resolve().parent / "results" / "etcp" / "multibranch-seeds.json"
NAMES = {"window": "E-TCP", "rate": "E-TCP rate"}


def run(variant: str, seed: int, duration: float, min_rto: Optional[float]) -> Dict:
    """One run; returns what :func:`summary` reads."""
    extra = {} if min_rto is None else {"min_rto_s": min_rto}
    sc = multibranch_scenario(f"mb-{variant}", duration, etcp_flow(NAMES[variant], **extra))
    sc = copy.deepcopy(plan(sc, [{"seed": seed}])[0].scenario)
    res = ccsim.run(sc)
    return {"fs": res.flow_series, "ls": res.link_series, "flows": res.flows, "chain": chain_links(res)}


def summary(d: Dict, variant: str, seed: int, duration: float, min_rto: Optional[float]) -> Dict:
    fs, ls, ch = d["fs"], d["ls"], d["chain"]
    col = "rate_pps" if variant == "rate" else "cwnd"
    model = multibranch_model(variant)
    ref = model["rate_pps"] if variant == "rate" else model["window"]
    thirds = [(0.0, duration / 3), (duration / 3, 2 * duration / 3), (2 * duration / 3, duration)]
    links = {i: ls[ls.link == l] for i, l in enumerate(ch)}
    row = {"variant": variant, "seed": seed, "min_rto_s": min_rto, "duration_s": duration}
    for f in (0, 1):
        g = fs[fs.flow == f].sort_values("time_s")
        t = g.time_s.to_numpy()
        x = np.nan_to_num(g.rate_pps.to_numpy())
        n = np.cumsum(x * np.diff(t, prepend=0.0))  # packets sent (integrated rate)
        lost = np.nan_to_num(g.loss_est.to_numpy()) * n  # numbers responded to as lost

        def responded(a: float, b: float) -> float:
            i, j = np.searchsorted(t, a), np.searchsorted(t, b) - 1
            return float((lost[j] - lost[i]) / (n[j] - n[i]))

        path = range(MB_HOPS[f][0], MB_HOPS[f][1] + 1)

        def path_loss(a: float, b: float) -> float:
            return float(1.0 - np.prod([1.0 - steady_loss(links[l], a, b) for l in path]))

        per = []
        for a, b in thirds:
            r, p = responded(a, b), path_loss(a, b)
            per.append({"from_s": a, "to_s": b, "mean": steady_mean(g, col, a, b), "responded_loss": r, "path_loss": p,
                        "law_at_responded": window_at_loss(r), "law_at_path": window_at_loss(p)})
        late = g[g.time_s > duration / 3][col]
        fl = d["flows"].iloc[f]
        row[f"connection {f + 1}"] = {
            "model": float(ref[f]), "thirds": per, "drift_last_vs_second": per[2]["mean"] / per[1]["mean"] - 1.0,
            "cv_after_first_third": float(late.std() / late.mean()), "timeouts": int(fl.timeouts),
            "data_pkts_sent": int(fl.data_pkts_sent), "retransmits": int(fl.retransmits),
            "loss_est_run": float(fl.loss_est)}
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", choices=sorted(NAMES), required=True)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    ap.add_argument("--min-rto", type=float, default=None)
    ap.add_argument("--duration", type=float, default=300.0)
    ap.add_argument("--json", type=Path, default=OUT)
    a = ap.parse_args()
    rec = json.loads(a.json.read_text()) if a.json.exists() else {"rows": []}
    for seed in a.seeds:
        row = summary(run(a.variant, seed, a.duration, a.min_rto), a.variant, seed, a.duration, a.min_rto)
        key = (a.variant, seed, a.min_rto, a.duration)
        rec["rows"] = [r for r in rec["rows"] if (r["variant"], r["seed"], r["min_rto_s"], r["duration_s"]) != key]
        rec["rows"].append(row)
        rec.update({"date": datetime.date.today().isoformat(), "ccsim_version": ccsim.__version__,
                    "command": "python -m validation.etcp_multibranch_seeds"})
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps(rec, indent=1) + "\n")
        c1, c2 = row["connection 1"], row["connection 2"]
        print(f"{a.variant} seed {seed} min_rto {a.min_rto}: c1 {c1['thirds'][1]['mean']:.2f} -> "
              f"{c1['thirds'][2]['mean']:.2f} ({c1['drift_last_vs_second']:+.1%}), c2 {c2['thirds'][1]['mean']:.2f} -> "
              f"{c2['thirds'][2]['mean']:.2f} ({c2['drift_last_vs_second']:+.1%})", flush=True)


if __name__ == "__main__":
    main()
