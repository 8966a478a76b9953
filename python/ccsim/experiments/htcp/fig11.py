"""``htcp-fig11``: H-TCP and standard TCP (``cc = "reno"``), 5 Mb/s, 100 ms,
44 packets, H-TCP parameters from the caption: alpha_L = 1, beta = 0.5,
Delta_L = 19, alpha_H = 20. The controller implements §3.4, whose alpha_H
is eq. 17, not a constant 20; that parameter is not expressible. The caption
gives no unit for Delta_L = 19; §3.4 measures Delta in seconds, which is
what is run (primary). The run then checks that no H-TCP epoch reaches
19 s, i.e. the high-speed mode (where alpha_H would matter) is never
entered. Two sensitivity runs, not paper claims, are tabulated: Delta_L =
1.9 s (19 RTTs) and 1 s (the Linux and controller default). TCP starts 1 s
after H-TCP; 600 s, the first 60 s excluded.

Common setup, event detection and convergence: :mod:`ccsim.experiments.htcp`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import List

import numpy as np
import pandas as pd

from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.ns2ref import droptail_waiting
from .._kit.analysis import backoffs, congestion_events
from .._kit.figures import grid, plot_cwnd, save
from . import SOURCE as _SOURCE, dumbbell, full_rtt_s, tcp_flow, windows

ID = "htcp-fig11"
SOURCE = f"{_SOURCE}, Fig 11"
#: ns-2 figures: every flow runs in ns-2 mode (package docstring)
NS2_FIGURE = True
DESCRIPTION = "H-TCP and standard TCP co-existing on 5 Mb/s, 100 ms, 44 pkts"

#: Caption: alpha_L = 1, beta = 0.5, Delta_L = 19 (s), alpha_H = 20; the
#: flows "co-exist" (no number: read as equal shares).
PAPER = {"delta_l_s": 19.0, "goodput_ratio": 1.0, "window_ratio": 1.0}

RATE, RTT, QUEUE = 5e6, 0.1, droptail_waiting(44)
DELTA_L = [PAPER["delta_l_s"], 1.9, 1.0]  # primary (caption, seconds), then sensitivity
RATIO_TOL = 0.10


def setting(quick: bool):
    """(duration, statistics from)."""
    return (200.0, 40.0) if quick else (600.0, 60.0)


def scenarios(quick: bool) -> List[Sweep]:
    dur, warm = setting(quick)
    base = dumbbell("htcp-fig11", RATE, QUEUE, dur,
                    [tcp_flow("htcp", 0.0, RTT, adaptive_backoff=False, fixed_beta=0.5, delta_l_s=19.0),
                     tcp_flow("reno", 1.0, RTT)], warmup_s=warm)
    return [Sweep(base, [{"flows.0.cc_params.delta_l_s": d} for d in DELTA_L], DELTA_L)]


def analyse(runs: Runs, quick: bool) -> Analysis:
    _, warm = setting(quick)
    gap = 2 * full_rtt_s(RTT, RATE, QUEUE)
    rows = []
    runs_ = runs.results()
    for dl, res in zip(DELTA_L, runs_):
        bo = backoffs(res, gap)
        ev = congestion_events(res, bo, [0.0, 1.0], gap)
        e = ev[ev.time_s > warm]
        w = windows(e, 2)
        h = bo[(bo.flow == 0) & (bo.time_s > warm)].time_s.to_numpy()
        g = res.flows.goodput_bps.to_numpy()
        rows.append({"delta_l_s": dl, "goodput_htcp_bps": g[0], "goodput_tcp_bps": g[1],
                     "goodput_ratio": g[0] / g[1], "window_ratio": w[:, 0].mean() / w[:, 1].mean(),
                     "events": len(e), "max_htcp_epoch_s": float(np.diff(h).max()) if len(h) > 1 else math.nan,
                     "utilization": res.bottleneck()["utilization"], "primary": dl == DELTA_L[0]})
    return Analysis(table=pd.DataFrame(rows), primary=runs_[0], warm=warm)


def checks(a: Analysis, quick: bool) -> List[Check]:
    p = a.table.iloc[0]
    dl = PAPER["delta_l_s"]
    return [
        # "co-existing": H-TCP in its low-speed mode is standard TCP, so the
        # shares should be equal; read as neither flow getting more than
        # 1.2x the other's goodput (the paper gives no number).
        Check(f"Delta_L = {dl:g} s: goodput ratio H-TCP / TCP", paper=PAPER["goodput_ratio"],
              ccsim=round(float(p.goodput_ratio), 4), tolerance=0.2, source="paper"),
        Check(f"Delta_L = {dl:g} s: mean window ratio at congestion events H-TCP / TCP", paper=PAPER["window_ratio"],
              ccsim=round(float(p.window_ratio), 4), tolerance=RATIO_TOL, source="paper"),
        Check(f"Delta_L = {dl:g} s: longest H-TCP epoch below Delta_L (low-speed mode only, alpha_H unused) (s)",
              paper=f"< {dl:g}", ccsim=round(float(p.max_htcp_epoch_s), 3), ok=bool(p.max_htcp_epoch_s < dl), source="model"),
    ]


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    df = a.table
    fig, axes = grid(1, 2, figsize=(11, 3.8), gridspec_kw={"width_ratios": [2, 1]})
    axes = axes[0]
    plot_cwnd(axes[0], a.primary, ["H-TCP (beta 0.5, Delta_L 19 s)", "standard TCP"],
              t_range=(a.warm, a.warm + 60))
    axes[0].set_title("Fig 11: H-TCP and TCP, 5 Mb/s, 100 ms, 44 pkts", fontsize=9)
    axes[1].bar([f"{d:g} s" for d in df.delta_l_s], df.goodput_ratio)
    axes[1].axhline(1.0, color="k", lw=0.8)
    axes[1].set_xlabel("Delta_L")
    axes[1].set_ylabel("goodput H-TCP / TCP")
    axes[1].grid(True, alpha=0.3)
    return save(fig, out_dir, ID)
