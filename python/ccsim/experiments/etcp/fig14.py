"""``etcp-fig14``: E-TCP paper Fig 14, eight E-TCP connections over the
multi-branch topology of Fig 13 (§VI-F; topology and our placement of the
connections: :func:`ccsim.experiments.etcp.multibranch_scenario`).

Five 600 Mb/s, 20 ms bottlenecks with 20-packet DropTail buffers;
connection 1 crosses all five, connection 2 three, the six others one each;
300 s. Fig 14 shows (a) the windows of connections 1 and 2, (b) the queue
of the second bottleneck from the left and (c) its loss rate, per interval
and cumulative; the text: "when E-TCP connections go through multiple
bottlenecks, they can still get to a stable state. This is confirmed by
both the dynamics of the congestion windows and the cumulative packet loss
rate". The paper gives no numbers.

Checks:

* stable state (paper): the mean window of connections 1 and 2 over the
  second third of the run against the last third (5%: a drift of the
  equilibrium, not its noise, would show), and the second link's loss rate
  likewise;
* model: the network equilibrium of the same topology
  (:func:`ccsim.models.etcp.network_equilibrium`: M/D/1/20 links fed by
  Poisson traffic, each connection's loss compounded over its links, its
  window the per-packet law at that loss): windows of connections 1 and 2
  (5%: their windows of ~45 and ~90 packets move by a few packets per
  loss) and the second link's loss (2%).

Samples every 0.1 s. ``--quick``: 3 s (the "thirds" become 1.5-2.25 and
2.25-3 s; five 600 Mb/s links are ~0.4 s of CPU per simulated second), far
from converged: a smoke test.
"""

from __future__ import annotations

from pathlib import Path
from typing import List

import pandas as pd

from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.figures import grid, save, style_axes
from . import (MB_SHOWN_LINK, SOURCE as _SOURCE, chain_links, etcp_flow, multibranch_model, multibranch_scenario,
               steady_loss)

ID = "etcp-fig14"
SOURCE = f"{_SOURCE}, Fig 14"
DESCRIPTION = "eight E-TCP connections over five 600 Mb/s bottlenecks (Fig 13): a stable state"

PAPER = {"stable": "no drift"}

SHOWN_FLOWS = (0, 1)


def duration(quick: bool) -> float:
    return 3.0 if quick else 300.0


def windows(quick: bool):
    d = duration(quick)
    return ((d / 2, 3 * d / 4), (3 * d / 4, d)) if quick else ((d / 3, 2 * d / 3), (2 * d / 3, d))


def scenarios(quick: bool) -> List[Sweep]:
    return [Sweep(multibranch_scenario("etcp-fig14", duration(quick), etcp_flow("E-TCP")))]


def _mean(df, col, a, b):
    m = (df["time_s"] > a + 1e-9) & (df["time_s"] <= b + 1e-9)
    return float(df.loc[m, col].mean())


def analyse(runs: Runs, quick: bool) -> Analysis:
    (res,) = runs.results()
    fs, ls = res.flow_series, res.link_series
    link = chain_links(res)[MB_SHOWN_LINK]
    lk = ls[ls["link"] == link]
    (a1, b1), (a2, b2) = windows(quick)
    m = multibranch_model("window")
    rows = []
    for f in sorted(fs["flow"].unique()):
        g = fs[fs["flow"] == f]
        rows.append({"flow": int(f), "window_mid": _mean(g, "cwnd", a1, b1), "window_last": _mean(g, "cwnd", a2, b2),
                     "model_window": m["window"][int(f)], "goodput_bps": float(res.flows.iloc[int(f)]["goodput_bps"]),
                     "model_rate_pps": m["rate_pps"][int(f)]})
    table = pd.DataFrame(rows)
    loss_mid, loss_last = steady_loss(lk, a1, b1), steady_loss(lk, a2, b2)
    return Analysis(table=table, fs=fs, lk=lk, m=m, loss_mid=loss_mid, loss_last=loss_last, win=windows(quick))


def checks(a: Analysis, quick: bool) -> List[Check]:
    t = a.table.set_index("flow")
    (a1, b1), (a2, b2) = a.win
    out: List[Check] = []
    for f in SHOWN_FLOWS:
        r = t.loc[f]
        out.append(Check(f"connection {f + 1}: mean window {a2:g}-{b2:g} s vs {a1:g}-{b1:g} s (stable state)",
                         paper=round(r.window_mid, 2), ccsim=round(r.window_last, 2), tolerance=0.05, source="consistency"))
    out.append(Check(f"second link: loss rate {a2:g}-{b2:g} s vs {a1:g}-{b1:g} s (stable state)",
                     paper=round(a.loss_mid, 5), ccsim=round(a.loss_last, 5), tolerance=0.05, source="consistency"))
    for f in SHOWN_FLOWS:
        r = t.loc[f]
        out.append(Check(f"connection {f + 1}: mean window {a2:g}-{b2:g} s vs network equilibrium model",
                         paper=round(r.model_window, 2), ccsim=round(r.window_last, 2), tolerance=0.05, source="model"))
    out.append(Check(f"second link: loss rate {a2:g}-{b2:g} s vs network equilibrium model",
                     paper=round(a.m["link_loss"][MB_SHOWN_LINK], 5), ccsim=round(a.loss_last, 5), tolerance=0.02, source="model"))
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    fig, axes = grid(3, 1, panel=(9.0, 2.6), sharex=True)
    ax = axes[0][0]
    for f in SHOWN_FLOWS:
        g = a.fs[a.fs["flow"] == f]
        ax.plot(g["time_s"], g["cwnd"], lw=0.6, label=f"connection {f + 1}")
        ax.axhline(a.m["window"][f], color="gray", ls=":", lw=0.8)
    style_axes(ax, None, "window (packets)", title="Fig 14: multi-branch topology, 5 x 600 Mb/s (dotted: model)")
    ax = axes[1][0]
    ax.plot(a.lk["time_s"], a.lk["queue_pkts"], lw=0.4)
    style_axes(ax, None, "queue, link 2 (packets)", legend=None)
    ax = axes[2][0]
    ax.plot(a.lk["time_s"], a.lk["loss_rate"], lw=0.4, label="per 0.1 s")
    ax.plot(a.lk["time_s"], a.lk["cum_loss_rate"], lw=1.2, label="cumulative")
    ax.axhline(a.m["link_loss"][MB_SHOWN_LINK], color="gray", ls=":", lw=0.8, label="model")
    ax.set_ylim(0, 0.05)
    style_axes(ax, "time (s)", "loss rate, link 2")
    return save(fig, out_dir, ID)
