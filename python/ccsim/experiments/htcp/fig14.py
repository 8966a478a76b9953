"""``htcp-fig14``: the full §3.4 H-TCP (adaptive backoff and reset), 20 Mb/s,
100 ms, 50 packets; flow 1 alone until flow 2 starts at 40 s of 120 s. The
backoff factor comes from the cwnd series as above.

Common setup, event detection and convergence: :mod:`ccsim.experiments.htcp`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import List

import numpy as np

from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.ns2ref import droptail_waiting
from .._kit.figures import grid, plot_cwnd, save
from . import plot_distance, second_flow_events, SOURCE as _SOURCE, convergence, dumbbell, full_rtt_s, tcp_flow

ID = "htcp-fig14"
SOURCE = f"{_SOURCE}, Fig 14"
#: ns-2 figures: every flow runs in ns-2 mode (package docstring)
NS2_FIGURE = True
DESCRIPTION = "adaptive reset of beta when a second flow starts, 20 Mb/s, 100 ms, 50 pkts"

PAPER = {
    "reset_beta": 0.5,       # §3.4: beta reset to 0.5 when the throughput moves
    "reset_change": 0.2,     # eq. 25: ... by more than 20% between events
    "epochs": 4,             # convergence in about 4 epochs with beta = 0.5
}

RATE, RTT, QUEUE = 20e6, 0.1, droptail_waiting(50)


def setting(quick: bool):
    """(second flow's start, duration)."""
    return (20.0, 60.0) if quick else (40.0, 120.0)


def scenarios(quick: bool) -> List[Sweep]:
    t2, dur = setting(quick)
    return [Sweep(dumbbell("htcp-fig14", RATE, QUEUE, dur, [tcp_flow("htcp", 0.0, RTT), tcp_flow("htcp", t2, RTT)]))]


def analyse(runs: Runs, quick: bool) -> Analysis:
    t2, dur = setting(quick)
    (res,) = runs.results()
    bo, ev, after = second_flow_events(res, t2, RTT, RATE, QUEUE)
    conv = convergence(ev, 2, after)
    beta_adaptive = float(np.clip(RTT / full_rtt_s(RTT, RATE, QUEUE), 0.5, 0.8))
    ca = bo[~bo.slow_start]
    f1 = ca[ca.flow == 0]
    before = f1[(f1.time_s < t2) & (f1.time_s > 5.0)]  # past flow 1's own start-up events
    after_start = f1[f1.time_s >= t2]
    reset_window = after_start.iloc[:6]  # flow 1's events while the flows converge
    k = conv["epochs"]
    tail = ca[ca.time_s > (conv["times"][k] if k is not None else dur)]
    # Eq. 25 compares B- (throughput just before an event) between
    # consecutive events. The queue is full at every event, so all RTTs are
    # RTT_max and B- = w / RTT_max: consecutive window ratios are B- ratios.
    seq = np.concatenate([before.w_before.to_numpy()[-1:], after_start.w_before.to_numpy()])
    max_change = float(np.max(np.abs(np.diff(seq) / seq[:-1]))) if len(seq) > 1 else math.nan
    return Analysis(table=bo.copy(), res=res, ev=ev, ca=ca, conv=conv, t2=t2, beta_adaptive=beta_adaptive,
                    before=before, reset_window=reset_window, tail=tail, max_change=max_change)


def checks(a: Analysis, quick: bool) -> List[Check]:
    ba = a.beta_adaptive
    out = [
        # beta from cwnd: 0.02 as in htcp-fig12-13.
        Check("flow 1 alone: beta vs clamp(RTT_min/RTT_max) (adaptive backoff)", paper=round(ba, 4),
              ccsim=round(float(a.before.beta.mean()), 4), relative=False, tolerance=0.02, source="model"),
        Check("flow 1: beta reset to 0.5 at an event after flow 2 starts (min beta of its next 6 events)",
              paper=PAPER["reset_beta"], ccsim=round(float(a.reset_window.beta.min()), 4), relative=False,
              tolerance=0.02, source="paper"),
        Check("epochs to converge to fairness (95%) after flow 2 leaves slow start", paper=PAPER["epochs"],
              ccsim=a.conv["epochs"], relative=False, tolerance=1, source="paper"),
        Check("after convergence: both flows back at the adaptive beta", paper=round(ba, 4),
              ccsim=round(float(a.tail.beta.mean()), 4) if len(a.tail) else None, relative=False, tolerance=0.02, source="model"),
    ]
    lim = PAPER["reset_change"]
    out.append(Check("flow 1: largest event-to-event change of B- (= w/RTT_max) after flow 2 starts "
                     f"(a reset, eq. 25, needs > {lim})",
                     paper=f"> {lim}", ccsim=round(a.max_change, 4), ok=bool(a.max_change > lim), source="model"))
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    fig, axes = grid(1, 3, figsize=(14, 3.8))
    axes = axes[0]
    plot_cwnd(axes[0], a.res, ["flow 1", "flow 2"], events=a.ev)
    axes[0].axvline(a.t2, color="gray", lw=0.8)
    axes[0].set_title("Fig 14: adaptive H-TCP, 20 Mb/s, 100 ms, 50 pkts", fontsize=9)
    for f, g in a.ca.groupby("flow"):
        axes[1].plot(g.time_s, g.beta, "o-", ms=3, label=f"flow {f + 1}")
    axes[1].axvline(a.t2, color="gray", lw=0.8)
    axes[1].set_ylim(0.4, 0.9)
    axes[1].set_xlabel("time (s)")
    axes[1].set_ylabel("beta = cwnd after / cwnd before")
    axes[1].grid(True, alpha=0.3)
    axes[1].legend(fontsize=8)
    plot_distance(axes[2], a.conv["d"], [(0.5, "k--", "0.5^k (beta reset to 0.5)"),
                               (a.beta_adaptive, "k:", f"{a.beta_adaptive:g}^k (no reset)")])
    return save(fig, out_dir, ID)
