"""``etcp-fig11-12``: E-TCP paper Figs 11 and 12, response to new
connections (§VI-E; setup: :mod:`ccsim.experiments.etcp`).

Setting (§VI-E): the Fig 4 dumbbell at 10 Mb/s, 100 Mb/s and 1 Gb/s, RTT
50 ms (Fig 11) and 100 ms (Fig 12), three E-TCP flows: the first from 0 to
300 s, the second from 60 to 240 s, the third from 120 to 180 s; 300 s.
Samples every 0.5 s; Jain's index over the flows active in the past second
(``fairness_window_s = 1``).

The paper: "when new E-TCP connections start up, existing E-TCP connections
would response by decreasing its throughput and converge to an equilibrium
where fairness is preserved"; at 1 Gb/s the throughputs stay different
within the run ("caused by the small number of connections in the system and
the lack of randomness in a purely simulated environment. However, if the
simulation runs long enough, the competing connections will finally have
fair throughput"); and "as the delay bandwidth product increases, it needs
more time to converge to the fair state".

Checks, per setting:

* the first flow's goodput falls when the second starts (its mean over
  40-60 s against 100-120 s);
* fairness at 10 and 100 Mb/s: Jain's index of the active flows' goodputs
  over the last 20 s of each period with two or three flows (100-120,
  160-180, 220-240 s) at least 0.95 (the reading of "fair" used for Fig 9);
  at 1 Gb/s the same numbers are tabulated, not checked (the paper expects
  them below 1 within 300 s);
* convergence time: from 60 s until the two flows' index (1 s window)
  reaches 0.95 and stays there for 5 s; longer at 100 ms than at 50 ms for
  each rate, and longer at 1 Gb/s than at 10 Mb/s for each RTT.

``--quick``: 10 Mb/s, both RTTs, the full 300 s timeline (10 Mb/s is
cheap); the 1 Gb/s orderings are not checked.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import List

import numpy as np
import pandas as pd

from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.analysis import jain
from .._kit.figures import grid, save, style_axes
from . import SOURCE as _SOURCE, etcp_flow, etcp_point, etcp_scenario

ID = "etcp-fig11-12"
SOURCE = f"{_SOURCE}, Figs 11-12"
DESCRIPTION = "three E-TCP flows starting at 0/60/120 s and stopping at 300/240/180 s: response and fairness"

PAPER = {"fair": 0.95, "slower": "longer convergence at larger delay-bandwidth product"}

TIMES = ((0.0, 300.0), (60.0, 240.0), (120.0, 180.0))
#: last 20 s of each period with several flows: (start, end, active flows)
WINDOWS = ((100.0, 120.0, (0, 1)), (160.0, 180.0, (0, 1, 2)), (220.0, 240.0, (0, 1)))
HOLD_S = 5.0
DURATION = 300.0


def grid_settings(quick: bool):
    rates = [1e7] if quick else [1e7, 1e8, 1e9]
    return [(r, t) for t in (0.05, 0.1) for r in rates]


def scenarios(quick: bool) -> List[Sweep]:
    flows = [etcp_flow("E-TCP", start_s=a, stop_s=b) for a, b in TIMES]
    base = etcp_scenario("etcp-fig11-12", DURATION, 1e7, 0.05, flows, sample_interval_s=0.5, fairness_window_s=1.0)
    settings = grid_settings(quick)
    return [Sweep(base, [etcp_point(r, t) for r, t in settings], settings)]


def _converged_from(fs: pd.DataFrame, t_start: float, flows=(0, 1)) -> float:
    """First sample time from t_start at which the flows' per-sample goodputs
    have Jain's index >= 0.95 and keep it for HOLD_S."""
    g = fs[fs["flow"].isin(flows) & (fs["time_s"] > t_start)].pivot_table(index="time_s", columns="flow",
                                                                           values="goodput_bps")
    g = g.dropna()
    if g.empty:
        return math.nan
    # smooth over 1 s like the paper's fairness windows
    step = float(np.median(np.diff(g.index))) if len(g) > 1 else 1.0
    roll = g.rolling(max(1, int(round(1.0 / step))), min_periods=1).mean()
    j = np.array([jain(r) for r in roll.to_numpy()])
    t = roll.index.to_numpy()
    ok = j >= PAPER["fair"]
    for i in range(len(t)):
        end = np.searchsorted(t, t[i] + HOLD_S, side="right")
        if ok[i:end].all() and t[end - 1] >= t[i] + HOLD_S - step - 1e-9:
            return float(t[i] - t_start)
    return math.nan


def analyse(runs: Runs, quick: bool) -> Analysis:
    rows, series = [], {}
    for (rate, rtt), key in zip(runs.sweeps[0].labels, runs.df["key"]):
        res = runs.load(key)
        fs = res.flow_series
        row = {"rate_bps": rate, "rtt_s": rtt, "goodput_utilization": float(res.flows["goodput_bps"].sum()) / rate}
        g = lambda f, a, b: float(fs[(fs["flow"] == f) & (fs["time_s"] > a) & (fs["time_s"] <= b)]["goodput_bps"].mean())
        row["flow0_before_bps"] = g(0, 40.0, 60.0)
        row["flow0_after_bps"] = g(0, 100.0, 120.0)
        for a, b, active in WINDOWS:
            row[f"jain_{a:.0f}_{b:.0f}"] = jain([g(f, a, b) for f in active])
        row["converge_s"] = _converged_from(fs, TIMES[1][0])
        rows.append(row)
        series[(rate, rtt)] = (fs, res.fairness_series)
    return Analysis(table=pd.DataFrame(rows), series=series)


def _tag(rate, rtt):
    return f"{rate / 1e6:g} Mb/s, RTT {rtt * 1000:.0f} ms"


def checks(a: Analysis, quick: bool) -> List[Check]:
    out: List[Check] = []
    t = a.table.set_index(["rate_bps", "rtt_s"])
    for (rate, rtt), r in t.iterrows():
        out.append(Check(f"{_tag(rate, rtt)}: flow 1's goodput (Mb/s) falls when flow 2 starts, 40-60 s -> 100-120 s",
                         paper="decreases", ccsim=f"{r.flow0_before_bps / 1e6:.3f} -> {r.flow0_after_bps / 1e6:.3f}",
                         ok=bool(r.flow0_after_bps < r.flow0_before_bps), source="paper", read_from="Figs 11-12"))
        if rate < 1e9:
            for a_, b_, active in WINDOWS:
                j = r[f"jain_{a_:.0f}_{b_:.0f}"]
                out.append(Check(f"{_tag(rate, rtt)}: Jain's index of the {len(active)} active flows, {a_:.0f}-{b_:.0f} s",
                                 paper=f">= {PAPER['fair']}", ccsim=round(float(j), 4), ok=bool(j >= PAPER["fair"]), source="paper"))
    rates = sorted(t.index.get_level_values(0).unique())
    for rate in rates:
        if (rate, 0.05) in t.index and (rate, 0.1) in t.index:
            c1, c2 = t.loc[(rate, 0.05)].converge_s, t.loc[(rate, 0.1)].converge_s
            out.append(Check(f"{rate / 1e6:g} Mb/s: time for flows 1 and 2 to reach fairness longer at 100 ms than "
                             f"at 50 ms", paper="longer", ccsim=f"{c1:.1f} s -> {c2:.1f} s", ok=_longer(c1, c2), source="paper"))
    if len(rates) > 1:
        for rtt in (0.05, 0.1):
            cs = [float(t.loc[(r, rtt)].converge_s) for r in rates]
            out.append(Check(f"RTT {rtt * 1000:.0f} ms: time for flows 1 and 2 to reach fairness longer at every "
                             f"step from {rates[0] / 1e6:g} to {rates[-1] / 1e6:g} Mb/s", paper="longer",
                             ccsim=" -> ".join(f"{c:.1f} s" for c in cs),
                             ok=all(_longer(c1, c2) for c1, c2 in zip(cs, cs[1:])),
                             source="paper"))
    return out


def _longer(c1: float, c2: float) -> bool:
    """c2 longer than c1; never converging (NaN) counts as longest."""
    if math.isnan(c1):
        return False
    return math.isnan(c2) or c2 > c1


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    keys = sorted(a.series)
    fig, axes = grid(2, len(keys), panel=(4.4, 3.2))
    for i, k in enumerate(keys):
        fs, fair = a.series[k]
        ax = axes[0][i]
        for f in range(3):
            g = fs[fs["flow"] == f]
            ax.plot(g["time_s"], g["goodput_bps"] / 1e6, lw=0.6, label=f"flow {f + 1}")
        style_axes(ax, "time (s)", "goodput (Mb/s)", title=_tag(*k))
        ax = axes[1][i]
        ax.plot(fair["time_s"], fair["jain"], lw=0.6)
        ax.set_ylim(0, 1.02)
        style_axes(ax, "time (s)", "Jain's index (1 s)", legend=None)
    fig.suptitle("E-TCP paper Figs 11-12: response to new connections")
    return save(fig, out_dir, ID)
