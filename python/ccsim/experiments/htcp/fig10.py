"""``htcp-fig10``: two H-TCP flows, 500 Mb/s, 100 ms, 500 packets, second
starting at 30 s of 120 s. The caption compares with "the rise-time
analysis for beta_i = 0.5" and the figure precedes adaptive backoff (§3.2),
so both flows use beta = 0.5 (``adaptive_backoff = false``).

Common setup, event detection and convergence: :mod:`ccsim.experiments.htcp`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import List

import numpy as np

from ...models import htcp as M
from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.ns2ref import droptail_waiting
from .._kit.figures import grid, plot_cwnd, save
from . import plot_distance, second_flow_events, SOURCE as _SOURCE, bdp_pkts, convergence, dumbbell, tcp_flow, windows

ID = "htcp-fig10"
SOURCE = f"{_SOURCE}, Fig 10"
#: ns-2 figures: every flow runs in ns-2 mode (package docstring)
NS2_FIGURE = True
DESCRIPTION = "two H-TCP flows (beta 0.5) converge to fairness in ~4 epochs, 500 Mb/s, 100 ms, 500 pkts"

#: Fig 10: flow 2 converges to fairness in "approximately 4" congestion epochs.
PAPER = {"epochs": 4, "fair_share": 0.5}

RATE, RTT, QUEUE = 500e6, 0.1, droptail_waiting(500)


def setting(quick: bool):
    """(second flow's start, duration)."""
    return (30.0, 90.0) if quick else (30.0, 120.0)


def scenarios(quick: bool) -> List[Sweep]:
    t2, dur = setting(quick)
    htcp = dict(adaptive_backoff=False, fixed_beta=0.5)
    return [Sweep(dumbbell("htcp-fig10", RATE, QUEUE, dur, [tcp_flow("htcp", 0.0, RTT, **htcp),
                                                          tcp_flow("htcp", t2, RTT, **htcp)]))]


def analyse(runs: Runs, quick: bool) -> Analysis:
    t2, _ = setting(quick)
    (res,) = runs.results()
    bo, ev, after = second_flow_events(res, t2, RTT, RATE, QUEUE)
    conv = convergence(ev, 2, after)
    k = conv["epochs"]
    late = ev[ev.time_s > after].iloc[(k or 0) + 1:]
    wl = windows(late, 2)
    share2 = float((wl[:, 1] / wl.sum(axis=1)).mean()) if len(wl) else math.nan
    fl = M.sync_htcp_epoch(2, 0.5, bdp_pkts(RATE, RTT), QUEUE, RTT)
    t_ev = ev[ev.time_s > after].time_s.to_numpy()
    epoch_sim = float(np.diff(t_ev).mean()) if len(t_ev) > 1 else math.nan
    table = ev.copy()
    table["share2"] = table.w1 / (table.w0 + table.w1)
    return Analysis(table=table, res=res, ev=ev, conv=conv, lam2=M.second_eigenvalue([1, 1], [0.5, 0.5]),
                    share2=share2, fluid=fl, epoch_sim=epoch_sim)


def checks(a: Analysis, quick: bool) -> List[Check]:
    return [
        # "approximately 4": one epoch either way (the first passage is an
        # integer; the model's is ceil(4.32) = 5).
        Check("epochs for flow 2 to converge to fairness (95%)", paper=PAPER["epochs"], ccsim=a.conv["epochs"],
              relative=False, tolerance=1, source="paper"),
        Check("contraction per epoch vs lambda_2 for beta = 0.5", paper=round(a.lam2, 4),
              ccsim=round(a.conv["lambda_hat"], 4), relative=False, tolerance=0.1, source="model"),
        # 0.02 absolute share: ~130 packets of 6600, 8% of a flow's increase per epoch.
        Check("share of flow 2 in the window at congestion after convergence", paper=PAPER["fair_share"],
              ccsim=round(a.share2, 4), relative=False, tolerance=0.02, source="paper"),
        # Not a number in the paper: the fluid model of the same network
        # (sync_htcp_epoch), 10% (it ignores the RTT of recovery without growth).
        Check("epoch length after convergence vs synchronised fluid model (s)", paper=round(a.fluid["epoch_s"], 3),
              ccsim=round(a.epoch_sim, 3), tolerance=0.10, source="model"),
    ]


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    fig, axes = grid(1, 2, figsize=(11, 3.8))
    axes = axes[0]
    plot_cwnd(axes[0], a.res, ["flow 1", "flow 2"], events=a.ev)
    axes[0].set_title("Fig 10: two H-TCP flows (beta 0.5), 500 Mb/s, 100 ms, 500 pkts", fontsize=9)
    plot_distance(axes[1], a.conv["d"], [(a.lam2, "k--", "lambda_2^k (eq. 6)")])
    return save(fig, out_dir, ID)
