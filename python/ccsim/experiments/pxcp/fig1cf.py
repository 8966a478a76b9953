"""``pxcp-fig1cf``: transient bottleneck utilisation and congestion window of
one flow, non-paced and paced XCP with the original parameters (O.P.), two
long flows per direction ("two flows (four flows including the reverse
flows)"), rule-of-thumb buffers, 100 s (paced-XCP paper §4.2.1, Fig 1(c),
(d) N.P. and (e), (f) P.; setup: :mod:`ccsim.experiments.pxcp`).

Series every 0.1 s; the plotted window is flow 0's (the forward flow that
the paper calls "one of the P. and N.P. XCP flows"); steadiness is measured
over [40, 100] s, the paper's averaging interval.

Checks: N.P. XCP "cause[s] many packet drops and timeouts" (paper);
P. XCP's window "stays almost constant with very small oscillations"
(paper: its coefficient of variation below N.P.'s, and its utilisation
series steadier than N.P.'s) around its fair share (model: flow 0's
window against the equal-throughput share of the link, below).
``--quick``: 20 s, measured after 10 s.
"""

from __future__ import annotations

from pathlib import Path
from typing import List

import numpy as np
import pandas as pd

from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.analysis import bottleneck_series, flow_series, within
from .._kit.figures import grid, save, style_axes
from . import (HEADER, PKT_BYTES, RATE, ROT_BUFFER, SOURCE as _SOURCE, bottleneck_stats, label,
               long_flow_sweep)

ID = "pxcp-fig1cf"
SOURCE = f"{_SOURCE}, Fig 1(c)-(f) (§4.2.1)"
#: an ns-2 (2.28) figure: every agent runs in ns-2 mode with timestamps (package docstring)
NS2_FIGURE = True
DESCRIPTION = "transient utilisation and cwnd of N.P. and P. XCP (O.P.), 2 flows per direction, rule-of-thumb buffers"

PAPER = {"flows": 2, "np_drops_and_timeouts": True, "p_window_almost_constant": True}
SAMPLE = 0.1
#: Flow 0's mean window within 10% of its share: XCP's fairness controller
#: equalises throughput, so the share is exact only once shuffling has
#: evened the start-up (gamma y per interval), and the window also holds the
#: packets queued at the bottleneck.
TOL_SHARE = 0.10
VARIANTS = ("N.P.", "P.")


def setting(quick: bool):
    """(duration, steady from)."""
    return (20.0, 10.0) if quick else (100.0, 40.0)


def scenarios(quick: bool) -> List[Sweep]:
    dur, warm = setting(quick)
    n = PAPER["flows"]
    return [long_flow_sweep(f"{ID}-{p}", "XCP", p, "O.P.", [n], {n: ROT_BUFFER}, dur, warm, SAMPLE)
            for p in VARIANTS]


def fair_share_pkts(rtt_s: float) -> float:
    """A forward flow's window at the equal-throughput share (model): the
    router's input counts the reverse flows' ACKs (HEADER bytes per
    PKT_BYTES of their data, as much data as forward), so the forward data
    fill C / (1 + HEADER/PKT_BYTES), split between the two flows; window =
    rate x round-trip propagation delay (empty queue)."""
    data_bps = RATE / (1 + HEADER / PKT_BYTES) / PAPER["flows"]
    return data_bps * rtt_s / (8 * PKT_BYTES)


def analyse(runs: Runs, quick: bool) -> Analysis:
    _, warm = setting(quick)
    rows, series = [], {}
    for variant, frame in zip(VARIANTS, runs.frames):
        res = runs.load(frame["key"].iloc[0])
        ls = bottleneck_series(res)
        fs = flow_series(res, 0)
        series[variant] = (ls, fs)
        ls_m, fs_m = within(ls, warm, res.raw["duration_s"], SAMPLE), within(fs, warm, res.raw["duration_s"], SAMPLE)
        f0 = res.raw["flows"][0]
        cw = fs_m["cwnd"].to_numpy()
        rows.append({"variant": variant, **bottleneck_stats(res), "flow0_rtt_s": f0["rtt_prop_s"],
                     "flow0_timeouts": f0["timeouts"], "flow0_cwnd_mean": float(cw.mean()),
                     "flow0_cwnd_cov": float(cw.std() / cw.mean()) if cw.mean() > 0 else np.nan,
                     "flow0_share_pkts": fair_share_pkts(f0["rtt_prop_s"]),
                     "util_series_std": float(ls_m["utilization"].std())})
    return Analysis(table=pd.DataFrame(rows), series=series)


def checks(a: Analysis, quick: bool) -> List[Check]:
    t = a.table.set_index("variant")
    npo, po = t.loc["N.P."], t.loc["P."]
    npl, pl = label("N.P.", "XCP", "O.P."), label("P.", "XCP", "O.P.")
    out = [
        Check(f"{npl}, 2 flows: packet drops in the run", paper="> 0", ccsim=int(npo.drops_all),
              ok=bool(npo.drops_all > 0), source="paper"),
        Check(f"{npl}, 2 flows: timeouts in the run", paper="> 0", ccsim=int(npo.timeouts),
              ok=bool(npo.timeouts > 0), source="paper"),
        Check(f"flow 0's cwnd coefficient of variation (steady part): {pl} < {npl}", paper=True,
              ccsim=f"{po.flow0_cwnd_cov:.3f} < {npo.flow0_cwnd_cov:.3f}",
              ok=bool(po.flow0_cwnd_cov < npo.flow0_cwnd_cov), source="paper"),
        Check(f"bottleneck utilisation series std (steady part): {pl} < {npl}", paper=True,
              ccsim=f"{po.util_series_std:.3f} < {npo.util_series_std:.3f}",
              ok=bool(po.util_series_std < npo.util_series_std), source="paper"),
        Check(f"{pl}: flow 0's mean cwnd (packets) at the equal-throughput share", paper=round(po.flow0_share_pkts, 1),
              ccsim=round(po.flow0_cwnd_mean, 1), tolerance=TOL_SHARE, source="model"),
    ]
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    fig, axes = grid(2, 2, figsize=(10, 6.5))
    for col, (variant, panels) in enumerate(zip(VARIANTS, (("c", "d"), ("e", "f")))):
        ls, fs = a.series[variant]
        ax_u, ax_w = axes[0][col], axes[1][col]
        ax_u.plot(ls["time_s"], ls["utilization"], lw=0.7)
        ax_u.set_ylim(0, 1.05)
        style_axes(ax_u, "time (s)", "bottleneck utilisation", legend=None,
                   title=f"({panels[0]}) {label(variant, 'XCP', 'O.P.')}")
        ax_w.plot(fs["time_s"], fs["cwnd"], lw=0.7, label="flow 0")
        share = float(a.table.set_index("variant").loc[variant, "flow0_share_pkts"])
        ax_w.axhline(share, color="grey", ls=":", lw=0.8, label="equal-throughput share")
        style_axes(ax_w, "time (s)", "cwnd (packets)", title=f"({panels[1]}) {label(variant, 'XCP', 'O.P.')}")
    fig.suptitle("Paced-XCP paper Fig 1(c)-(f): 2 flows per direction" + (" (quick)" if quick else ""))
    return save(fig, out_dir, ID)
