"""``gwa-many-flows``: the GWA paper's many-flows experiment, §6.3, Fig 10
(setup: :mod:`ccsim.experiments.gwa`, :data:`~ccsim.experiments.gwa.MANY`).

N = 100 FTP connections (no Telnet), every link 10 Mb/s, the §6.2 delays,
buffers 200 to 800 kbytes, 100 s with the first 10 s discarded. Fig 10
has five throughput panels and names (c) ECN and (e) GWA-FCFS, so the five
schemes are DropTail, RED, ECN, GWA-RR and GWA-FCFS (no BA-FCFS).

"The drop rate for Drop-Tail and RED are nearly three orders of magnitude
higher than when only 10 FTP connections were present" compares with
§6.2's WAN experiment (Fig 9a), so DropTail and RED are also run in the
:data:`~ccsim.experiments.gwa.WAN` setting (10 FTP + 10 Telnet, 155 Mb/s)
at the same buffers, as the reference of that ratio.

Checks (the text): full utilisation in every scheme, loss-free GWA and
ECN, DropTail/RED drop rate ~10^3 times the 10-connection one, perfect
fairness for both GWA schemes, ECN grossly unfair with small buffers
("some of the connections never get a chance to transmit") and fairer with
large ones, DropTail and RED unfair. ``--quick``: 200 and 800 kbytes
(full: 200, 400, 600, 800), full-length runs.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import List

import numpy as np

from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.figures import grid, save, style_axes
from . import (FULL_UTILISATION_TOL, MANY, STYLE, WAN, decade_check, fairness_checks, loss_free_checks,
               plot_loss_delay, plot_steady, steady_sweeps, steady_table)

ID = "gwa-many-flows"
SOURCE = "GWA (generalized window advertising), §6.3 Fig 10"
DESCRIPTION = ("100 FTP flows, all links 10 Mb/s, WAN delays: goodput min/avg/max and drop rate vs buffer "
               "200-800 kB for DropTail, RED, ECN, GWA-RR, GWA-FCFS")

SCHEMES = ("DropTail", "RED", "ECN", "GWA-RR", "GWA-FCFS")
REF_ID = f"{ID}-10flows"
PAPER = {
    "drop_ratio_vs_10_flows": 1e3,   # "nearly three orders of magnitude higher"
    "in_flight_pkts": 50,            # "around 50" packets and ACKs in flight
}
#: "some of the connections never get a chance to transmit": the worst
#: connection below a tenth of the fair share.
STARVED = 0.1


def buffers(quick: bool) -> List[float]:
    return [200, 800] if quick else [200, 400, 600, 800]


def scenarios(quick: bool) -> List[Sweep]:
    return (steady_sweeps(ID, MANY, SCHEMES, buffers(quick))
            + steady_sweeps(REF_ID, WAN, ("DropTail", "RED"), buffers(quick)))


def analyse(runs: Runs, quick: bool) -> Analysis:
    t = steady_table(runs, MANY, ID)
    ref = steady_table(runs, WAN, REF_ID).set_index(["scheme", "buffer_kb"])["drop_prob"]
    t["drop_prob_10_flows"] = [ref.get((s, b), math.nan) for s, b in zip(t["scheme"], t["buffer_kb"])]
    t["drop_ratio_vs_10_flows"] = t["drop_prob"] / t["drop_prob_10_flows"]
    t["min_over_fair_share"] = t["goodput_min"] * MANY.n
    return Analysis(table=t)


def checks(a: Analysis, quick: bool) -> List[Check]:
    t = a.table
    by = {s: t[t["scheme"] == s].sort_values("buffer_kb") for s in SCHEMES}
    out: List[Check] = []
    for s in SCHEMES:
        out.append(Check(f"{s}: lowest bottleneck utilisation over buffers (full utilisation in all schemes)",
                         paper=1.0, ccsim=round(float(by[s]["utilization"].min()), 4),
                         tolerance=FULL_UTILISATION_TOL, source="paper"))
    out += loss_free_checks(t, ("ECN", "GWA-RR", "GWA-FCFS"), "100 flows")
    for s in ("DropTail", "RED"):
        r = by[s]["drop_ratio_vs_10_flows"].to_numpy(dtype=float)
        gm = float(np.exp(np.mean(np.log(r)))) if np.all(r > 0) else math.inf
        out.append(decade_check(f"{s}: drop probability / 10-flow WAN one (geometric mean over buffers; "
                                "within half a decade of 10^3)", PAPER["drop_ratio_vs_10_flows"], gm))
    out += fairness_checks(t, ("GWA-RR", "GWA-FCFS"), "100 flows")
    ecn = by["ECN"]
    lo, hi = ecn.iloc[0], ecn.iloc[-1]
    out.append(Check(f"ECN: worst connection / fair share at {int(lo.buffer_kb)} kB < {STARVED} (starved)",
                     paper=f"< {STARVED}", ccsim=round(float(lo.min_over_fair_share), 4),
                     ok=float(lo.min_over_fair_share) < STARVED, source="paper"))
    out.append(Check(f"ECN: Jain index higher at {int(hi.buffer_kb)} kB than at {int(lo.buffer_kb)} kB",
                     paper=True, ccsim=f"{lo.ftp_jain:.4f} -> {hi.ftp_jain:.4f}", ok=hi.ftp_jain > lo.ftp_jain,
                     source="paper"))
    gwa_min = min(float(by[s]["ftp_jain"].min()) for s in ("GWA-RR", "GWA-FCFS"))
    for s in ("DropTail", "RED"):
        j = float(by[s]["ftp_jain"].max())
        out.append(Check(f"{s}: best Jain index over buffers below the GWA schemes' worst (unfair)",
                         paper=f"< {gwa_min:.4f}", ccsim=round(j, 4), ok=j < gwa_min, source="paper"))
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    t = a.table
    fig, axes = grid(2, 3, figsize=(13, 7.5))
    panels = list(axes[0]) + list(axes[1])
    plot_steady(panels[:5], t, SCHEMES)
    for ax in panels[:5]:
        ax.axhline(1 / MANY.n, color="k", lw=0.5, ls=":")
    plot_loss_delay([panels[5]], t, SCHEMES, telnet=False)
    for s in ("DropTail", "RED"):
        d = t[t["scheme"] == s].sort_values("buffer_kb")
        panels[5].plot(d["buffer_kb"], d["drop_prob_10_flows"], STYLE[s].replace("-", ":"), mfc="none",
                       label=f"{s}, 10 flows (WAN)")
    style_axes(panels[5], "buffer (kbytes)", "drop probability", ylog=True, title="(f) drop rate")
    fig.suptitle("GWA paper §6.3 Fig 10: 100 FTP flows, 10 Mb/s" + (" [quick]" if quick else ""))
    return save(fig, out_dir, ID)
