"""``ltcp-table2``: the LTCP paper's Fig 2 table (W_T = 50, beta = 0.15):
layer windows W_K and the speedups in claiming bandwidth and in loss
recovery, computed from the layer model (eq. 10, 11, 14; recovery
beta W / (K - 1), :mod:`ccsim.models.ltcp`). The table is pure analysis: no
simulation runs, and ``--quick`` changes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import List

import pandas as pd

from ...models.ltcp import claim_speedup, layer_window, recovery_speedup
from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.figures import grid, paper_points, save, style_axes
from . import SOURCE as _SOURCE

ID = "ltcp-table2"
SOURCE = f"{_SOURCE}, Fig 2 table"
DESCRIPTION = "layer windows W_K and speedups in claiming bandwidth and loss recovery (W_T=50, beta=0.15)"

# Fig 2 of the LTCP paper (W_T = 50, beta = 0.15): K, W_K, speedup in claiming
# bandwidth, speedup in packet-loss recovery time.
PAPER = [
    (2, 50, 1.00, 1.00), (3, 200, 2.00, 6.67), (4, 500, 2.57, 10.00), (5, 1000, 3.17, 13.33),
    (6, 1750, 3.78, 16.67), (7, 2800, 4.40, 20.00), (8, 4200, 5.03, 23.33), (9, 6000, 5.67, 26.67),
    (10, 8250, 6.31, 30.00), (11, 11000, 6.95, 33.33), (12, 14300, 7.60, 36.67), (13, 18200, 8.25, 40.00),
    (14, 22750, 8.90, 43.33), (15, 28000, 9.56, 46.67), (16, 34000, 10.21, 50.00), (17, 40800, 10.87, 53.33),
    (18, 48450, 11.52, 56.67), (19, 57000, 12.18, 60.00), (20, 66500, 12.84, 63.33), (21, 77000, 13.50, 66.67),
    (22, 88550, 14.16, 70.00), (23, 101200, 14.82, 73.33), (24, 115000, 15.48, 76.67), (25, 130000, 16.14, 80.00),
]


def scenarios(quick: bool) -> List[Sweep]:
    return []


def analyse(runs: Runs, quick: bool) -> Analysis:
    rows = []
    for k, wk, claim, recov in PAPER:
        rows.append({"K": k, "W_K": layer_window(k), "paper_W_K": wk, "claim_speedup": claim_speedup(k),
                     "paper_claim_speedup": claim, "recovery_speedup": recovery_speedup(k),
                     "paper_recovery_speedup": recov})
    return Analysis(table=pd.DataFrame(rows))


def checks(a: Analysis, quick: bool) -> List[Check]:
    out = []
    for r in a.table.itertuples():
        k = r.K
        out.append(Check(f"K={k}: W_K (packets)", paper=r.paper_W_K, ccsim=r.W_K, tolerance=0.0, source="paper"))
        # the paper prints two decimals: agreement to rounding is 0.005 absolute
        out.append(Check(f"K={k}: speedup in claiming bandwidth", paper=r.paper_claim_speedup,
                         ccsim=round(r.claim_speedup, 4), relative=False, tolerance=0.0051, source="paper"))
        out.append(Check(f"K={k}: speedup in loss recovery", paper=r.paper_recovery_speedup,
                         ccsim=round(r.recovery_speedup, 4), relative=False, tolerance=0.0051, source="paper"))
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    t = a.table
    fig, axes = grid(1, 2, panel=(4.6, 3.6))
    ax = axes[0][0]
    ax.plot(t["K"], t["W_K"], "-", label="layer model (eq. 10)")
    paper_points(ax, t["K"], t["paper_W_K"], "o")
    style_axes(ax, "layer K", "W_K (packets)", ylog=True)
    ax = axes[0][1]
    ax.plot(t["K"], t["claim_speedup"], "-", color="C0", label="claiming bandwidth (eq. 11)")
    ax.plot(t["K"], t["recovery_speedup"], "-", color="C1", label="loss recovery (eq. 14)")
    paper_points(ax, t["K"], t["paper_claim_speedup"], "o", color="C0")
    paper_points(ax, t["K"], t["paper_recovery_speedup"], "s", color="C1")
    style_axes(ax, "layer K", "speedup over TCP")
    fig.suptitle("LTCP paper Fig 2 table (W_T = 50, beta = 0.15): model lines, paper markers")
    return save(fig, out_dir, ID)
