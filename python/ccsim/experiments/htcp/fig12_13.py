"""``htcp-fig12-13``: the captions give no network; the text's setting is "a
small queue", and the same section's Fig 14 uses 20 Mb/s, 100 ms, 50
packets (a fifth of the BDP), used here. Two H-TCP flows (second at 10 s),
beta = 0.5 fixed (Fig 12) vs the full §3.4 algorithm (Fig 13); 300 s, the
first 60 s excluded. The fluid model
:func:`ccsim.models.htcp.sync_htcp_epoch` predicts each utilisation.

Common setup, event detection and convergence: :mod:`ccsim.experiments.htcp`.
"""

from __future__ import annotations

from pathlib import Path
from typing import List

import numpy as np
import pandas as pd

from ...models import htcp as M
from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.ns2ref import droptail_waiting
from .._kit.analysis import backoffs, bottleneck_series
from .._kit.figures import grid, plot_cwnd, save
from . import SOURCE as _SOURCE, bdp_pkts, dumbbell, full_rtt_s, tcp_flow

ID = "htcp-fig12-13"
SOURCE = f"{_SOURCE}, Figs 12 and 13"
#: ns-2 figures: every flow runs in ns-2 mode (package docstring)
NS2_FIGURE = True
DESCRIPTION = "link utilisation with beta = 0.5 vs adaptive backoff, 20 Mb/s, 100 ms, 50-pkt queue"

PAPER = {
    # §3.2: backing off by 0.5 "can lead to the queue being empty for a
    # significant period of time" (significant read as > 10% of the time)
    "dry_fraction_above": 0.1,
    # eq. 21: the buffer just empties and "the link remains operating at capacity"
    "adaptive_utilisation": 1.0,
}

RATE, RTT, QUEUE = 20e6, 0.1, droptail_waiting(50)
VARIANTS = {"fixed beta 0.5 (Fig 12)": {"adaptive_backoff": False, "fixed_beta": 0.5},
            "adaptive backoff (Fig 13)": {"adaptive_backoff": True, "adaptive_reset": True}}


def setting(quick: bool):
    """(duration, statistics from)."""
    return (100.0, 30.0) if quick else (300.0, 60.0)


def scenarios(quick: bool) -> List[Sweep]:
    dur, warm = setting(quick)
    base = dumbbell("htcp-fig12-13", RATE, QUEUE, dur, [tcp_flow("htcp", 0.0, RTT), tcp_flow("htcp", 10.0, RTT)],
                    warmup_s=warm)
    names = list(VARIANTS)
    return [Sweep(base, [{"flows.*.cc_params": VARIANTS[n]} for n in names], names)]


def analyse(runs: Runs, quick: bool) -> Analysis:
    _, warm = setting(quick)
    names = runs.sweeps[0].labels
    res_list = runs.results()
    gap = 2 * full_rtt_s(RTT, RATE, QUEUE)
    bdp = bdp_pkts(RATE, RTT)
    beta_adaptive = float(np.clip(RTT / full_rtt_s(RTT, RATE, QUEUE), 0.5, 0.8))  # eq. 21 + Comment 1
    rows = []
    for name, res in zip(names, res_list):
        b = res.bottleneck()
        ls = bottleneck_series(res)
        ls = ls[ls.time_s > warm]
        bo = backoffs(res, gap)
        ca = bo[~bo.slow_start & (bo.time_s > warm)]
        beta_model = 0.5 if "fixed" in name else beta_adaptive
        fl = M.sync_htcp_epoch(2, beta_model, bdp, QUEUE, RTT)
        rows.append({"variant": name, "utilization": b["utilization"],
                     "queue_dry_frac": float((ls.utilization < 0.95).mean()),
                     "beta_measured": ca.beta.mean(), "beta_model": beta_model, "model_utilization": fl["utilization"],
                     "goodput_total_bps": float(res.flows.goodput_bps.sum()), "loss_rate": b["loss_rate"]})
    return Analysis(table=pd.DataFrame(rows), names=names, runs=res_list, beta_adaptive=beta_adaptive, warm=warm)


def checks(a: Analysis, quick: bool) -> List[Check]:
    fx, ad = a.table.iloc[0], a.table.iloc[1]
    dry = PAPER["dry_fraction_above"]
    out = [
        # The queue ran dry in a 10 ms sample when the link was idle for more
        # than 5% of it (queue_pkts itself often shows the one packet of a
        # two-packet burst waiting behind the other, on an otherwise idle link).
        Check("beta 0.5: fraction of 10 ms samples with the queue run dry (paper: significant)", paper=f"> {dry}",
              ccsim=round(float(fx.queue_dry_frac), 4), ok=bool(fx.queue_dry_frac > dry), source="paper"),
        Check("adaptive backoff utilises the link better than beta 0.5 (Figs 12 vs 13)",
              paper="higher", ccsim=f"{fx.utilization:.4f} -> {ad.utilization:.4f}",
              ok=bool(ad.utilization > fx.utilization), source="paper", read_from="Figs 12-13"),
        # The clamp at 0.8 (< T_d/RTT_max = 0.83) leaves <1% idle.
        Check("adaptive backoff: link utilisation (paper: at capacity)", paper=PAPER["adaptive_utilisation"],
              ccsim=round(float(ad.utilization), 4), tolerance=0.01, source="paper"),
        # beta from the cwnd series vs eq. 21 with the [0.5, 0.8] clamp;
        # 0.02: the 10 ms sample before the drop misses < 1% of the window.
        Check("adaptive backoff: measured beta vs clamp(RTT_min/RTT_max)", paper=round(a.beta_adaptive, 4),
              ccsim=round(float(ad.beta_measured), 4), relative=False, tolerance=0.02, source="model"),
    ]
    # Synchronised fluid model of the same network (not a number in the
    # paper). 0.03: the model has no recovery RTT, no slow start and no
    # packet granularity. Only for beta 0.5: for adaptive backoff the model
    # predicts full use, 1.0, the paper's number checked above to 0.01, so
    # the model check would be the same comparison with a looser tolerance.
    for r in (fx,):
        out.append(Check(f"{r.variant}: utilisation vs synchronised fluid model",
                         paper=round(float(r.model_utilization), 4), ccsim=round(float(r.utilization), 4),
                         relative=False, tolerance=0.03, source="model"))
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    fig, axes = grid(2, 2, figsize=(11, 6), sharex="col")
    t_range = (a.warm, a.warm + 20)
    for j, (name, res) in enumerate(zip(a.names, a.runs)):
        plot_cwnd(axes[0][j], res, ["flow 1", "flow 2"], t_range=t_range)
        axes[0][j].set_title(f"{name}: utilisation {a.table.iloc[j].utilization:.3f}", fontsize=9)
        ls = bottleneck_series(res)
        ls = ls[(ls.time_s >= t_range[0]) & (ls.time_s <= t_range[1])]
        axes[1][j].plot(ls.time_s, ls.queue_pkts, lw=0.8)
        axes[1][j].set_xlabel("time (s)")
        axes[1][j].set_ylabel("queue (packets)")
        axes[1][j].grid(True, alpha=0.3)
    fig.suptitle("H-TCP paper Figs 12-13: 20 Mb/s, 100 ms, 50-packet queue")
    return save(fig, out_dir, ID)
