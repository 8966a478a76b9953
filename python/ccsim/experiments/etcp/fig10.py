"""``etcp-fig10``: E-TCP paper Fig 10, 50 E-TCP flows with round-trip
propagation delays from 50 to 295 ms in 5 ms steps through a 500 Mb/s
bottleneck (§VI-D; setup: :mod:`ccsim.experiments.etcp`).

The paper: "the congestion windows of all connections converge to the same
size, which is determined by the packet loss probability of the bottleneck
link" (W* = 2/(p - p0) has no RTT in it), and "the link utilization
calculated according to the sum of the goodput obtained at the receiver
applications is 94.7%". Its figure shows the windows of the 50, 100 and
200 ms flows, the average queue and the loss rate.

Setting: one ``[[flows]]`` entry of 50 flows with ``rtt_s`` the list
0.050, 0.055, ..., 0.295 s (flow i has 50 + 5i ms). Where the paper is
silent: start times as in §VI-C (uniform in the first 100 ms), 300 s
(§VI-B's duration), the bottleneck's one-way delay 15 ms (the 50 ms flow
then has the 5 ms edges of Fig 4; the other flows' edge links are longer).

Checks: goodput utilisation vs 94.7% (5%, the tolerance used for the
papers' goodputs); the ratio of the 50 ms flow's mean window to the 200 ms
flow's (paper: 1, "the same size"; 10%: a window per RTT-proportional
share, as TCP's, would give 0.25) and of the 100 ms flow's; the mean
window, loss and goodput against the M/D/1/20 equilibrium of 50 flows with
these RTTs (:func:`ccsim.experiments.etcp.model`: one window W for all with
sum_i W / tau_i = rho C; W = 163, loss 0.0218, goodput 0.934; 2%, 2%, 3%;
the goodput over the steady state, the loss as drops / arrivals summed
over it).
Steady state: the last two thirds of the run.

``--quick``: 20 s (steady state from 10 s).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import List

import pandas as pd

from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.analysis import bottleneck_series
from .._kit.figures import grid, save, style_axes
from . import MODEL_QUEUE, SOURCE as _SOURCE, etcp_flow, etcp_scenario, model, steady_loss

ID = "etcp-fig10"
SOURCE = f"{_SOURCE}, Fig 10"
DESCRIPTION = "50 E-TCP flows, RTT 50-295 ms, 500 Mb/s: windows converge to one size, utilisation 94.7%"

PAPER = {"utilisation": 0.947, "window_ratio": 1.0}

RATE = 500e6
N_FLOWS = 50
RTTS = [round(0.05 + 0.005 * i, 3) for i in range(N_FLOWS)]
#: flows drawn in the paper's figure: RTT 50, 100 and 200 ms
SHOWN = (0, 10, 30)


def duration(quick: bool) -> float:
    return 20.0 if quick else 300.0


def scenarios(quick: bool) -> List[Sweep]:
    f = etcp_flow("E-TCP", count=N_FLOWS, rtt_s=RTTS, start_s=0.0, start_spread_s=0.1)
    return [Sweep(etcp_scenario("etcp-fig10", duration(quick), RATE, 0.05, [f], sample_interval_s=0.1))]


def analyse(runs: Runs, quick: bool) -> Analysis:
    (res,) = runs.results()
    dur = duration(quick)
    t0 = dur / 2.0 if quick else dur / 3.0
    fs = res.flow_series
    steady = fs[fs["time_s"] > t0 + 1e-9]
    w = steady.groupby("flow")["cwnd"].mean()
    fl = res.flows
    ls = bottleneck_series(res)
    m = model(RATE, RTTS)
    table = pd.DataFrame({"flow": w.index, "rtt_s": [RTTS[int(i)] for i in w.index], "window_mean": w.values,
                          "goodput_bps": fl.set_index("id").loc[w.index, "goodput_bps"].values,
                          "loss_est": fl.set_index("id").loc[w.index, "loss_est"].values
                          if "loss_est" in fl else math.nan})
    return Analysis(table=table, fs=fs, ls=ls, w=w, t0=t0, m=m,
                    goodput_u=float(fl["goodput_bps"].sum()) / RATE, loss=steady_loss(ls, t0),
                    steady_goodput_u=float(steady.groupby("time_s")["goodput_bps"].sum().mean()) / RATE)


def checks(a: Analysis, quick: bool) -> List[Check]:
    w = a.w
    tag = f"steady state ({a.t0:g} s on)"
    r200 = float(w[SHOWN[0]] / w[SHOWN[2]])
    r100 = float(w[SHOWN[0]] / w[SHOWN[1]])
    return [
        Check("goodput utilisation (sum of the receivers' goodput / capacity)", paper=PAPER["utilisation"],
              ccsim=round(a.goodput_u, 4), tolerance=0.05, source="paper"),
        Check(f"window of the 50 ms flow / window of the 200 ms flow, {tag} (same size)", paper=PAPER["window_ratio"],
              ccsim=round(r200, 4), tolerance=0.10, source="paper"),
        Check(f"window of the 50 ms flow / window of the 100 ms flow, {tag} (same size)", paper=PAPER["window_ratio"],
              ccsim=round(r100, 4), tolerance=0.10, source="paper"),
        Check(f"mean window over the 50 flows vs {MODEL_QUEUE} equilibrium model, {tag}", paper=round(a.m["window"], 2),
              ccsim=round(float(w.mean()), 2), tolerance=0.02, source="model"),
        Check(f"bottleneck loss vs {MODEL_QUEUE} equilibrium model, {tag}", paper=round(a.m["loss"], 5),
              ccsim=round(a.loss, 5), tolerance=0.02, source="model"),
        Check(f"goodput utilisation, {tag}, vs {MODEL_QUEUE} equilibrium model",
              paper=round(a.m["goodput_utilisation"], 4), ccsim=round(a.steady_goodput_u, 4), tolerance=0.03, source="model"),
    ]


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    fig, axes = grid(2, 2, figsize=(12, 7))
    ax = axes[0][0]
    for f in SHOWN:
        g = a.fs[a.fs["flow"] == f]
        ax.plot(g["time_s"], g["cwnd"], lw=0.6, label=f"RTT {RTTS[f] * 1000:.0f} ms")
    ax.axhline(a.m["window"], color="gray", ls=":", lw=0.8, label=f"model: {a.m['window']:.0f}")
    style_axes(ax, "time (s)", "window (packets)", title="Fig 10: windows of three flows, 500 Mb/s")
    ax = axes[0][1]
    ax.plot([RTTS[int(i)] * 1000 for i in a.w.index], a.w.values, "o", ms=3, label="ccsim, steady mean")
    ax.axhline(a.m["window"], color="gray", ls=":", lw=0.8, label="model (one W for all)")
    ax.set_ylim(0, None)
    style_axes(ax, "round-trip propagation (ms)", "window (packets)", title="steady window per flow")
    ax = axes[1][0]
    ax.plot(a.ls["time_s"], a.ls["queue_pkts"], lw=0.4)
    style_axes(ax, "time (s)", "bottleneck queue (packets)", legend=None, title="queue (0.1 s samples)")
    ax = axes[1][1]
    ax.plot(a.ls["time_s"], a.ls["loss_rate"], lw=0.4, label="per 0.1 s")
    ax.plot(a.ls["time_s"], a.ls["cum_loss_rate"], lw=1.2, label="cumulative")
    ax.axhline(a.m["loss"], color="gray", ls=":", lw=0.8, label="model")
    ax.set_ylim(0, 0.08)
    style_axes(ax, "time (s)", "bottleneck loss rate", title="loss")
    return save(fig, out_dir, ID)
