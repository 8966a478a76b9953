"""``etcp-fig17``: E-TCP with finite, web-like flows (E-TCP paper §VI-H,
Figs 16-17; setup: :mod:`ccsim.experiments.etcp`).

§VI-H: a peering link between two networks carries web traffic from
closed-loop users (think, request a page of several objects, 15% of new
connections persistent), each flow's propagation delay uniform on the
integers 10..150 ms, 500 / 1000 / 1500 users, OC-3 (155 Mb/s) and OC-12
(622 Mb/s), object sizes multiplied by 15 (OC-3) or 60 and 120 (OC-12).
Fig 17 compares the throughput of E-TCP, NewReno and paced NewReno.

The workload is ccsim's ``app = "web"`` (docs/scenario.md, "Web users"):
the UNC model's published CDFs are not available, so its documented
parametric stand-ins are used unchanged (exponential think time of mean
20 s, PackMime objects per page, ParetoII object sizes of mean 10 kB and
shape 1.2, 15% persistent connections). The paper gives neither the run
length nor the buffer of this experiment; we keep §VI-A's 20-packet
DropTail bottleneck (edges 100 Gb/s) and run 200 s, measuring after a
60 s warm-up (three mean think times: users start by thinking).

Throughput is the bottleneck's utilisation after the warm-up (the
workload's carried load, as Fig 17 plots throughput). Every protocol sees
the same users' draws (one seed; each user has its own random stream), so
the comparison is paired; the load each run actually offered (requested
bytes of transfers started after the warm-up) is reported beside it,
because heavy-tailed sizes make it differ from the nominal load.

Checks (paper, §VI-H text): E-TCP's throughput over NewReno's and paced
NewReno's: +18% and +9% at 622/1000/60; +41% and +37% at 622/1000/120;
more than +20% over both at 622/1500/60; more than +10% over both at
155/1500/15; above both in every other setting. The gains are compared in
absolute percentage points with a tolerance of 5 points.

``--quick``: 155 Mb/s, 1000 users, size factor 15, 40 s with a 20 s
warm-up (a smoke run: the load is still building up).
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np
import pandas as pd

from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.figures import grid, save, style_axes
from .._kit.setups import dumbbell, scenario
from . import BUFFER, EDGE_BUFFER, EDGE_RATE_BPS, HEADER, MSS, SOURCE as _SOURCE, baseline, etcp_flow

ID = "etcp-fig17"
SOURCE = f"{_SOURCE}, Fig 17 (§VI-H)"
#: an ns-2 figure: its baselines run in ns-2 mode (package docstring)
NS2_FIGURE = True
DESCRIPTION = "web-like finite flows over OC-3/OC-12: throughput of E-TCP, NewReno, paced NewReno"

#: (link Mb/s, users, size factor) -> (gain over NewReno, over paced NewReno); §VI-H.
PAPER_GAINS: Dict[Tuple[int, int, int], Tuple[float, float]] = {
    (622, 1000, 60): (0.18, 0.09),
    (622, 1000, 120): (0.41, 0.37),
}
#: settings with a stated lower bound on both gains (§VI-H).
PAPER_AT_LEAST: Dict[Tuple[int, int, int], float] = {(622, 1500, 60): 0.20, (155, 1500, 15): 0.10}
PAPER = {"gains": PAPER_GAINS, "at_least": PAPER_AT_LEAST, "rtt_ms": (10, 150), "persistent": 0.15}

NAMES = ("E-TCP", "NewReno", "NewReno+pacing")
LINK_BPS = {155: 155e6, 622: 622e6}
TOL_POINTS = 0.05


def settings(quick: bool) -> List[Tuple[int, int, int]]:
    if quick:
        return [(155, 1000, 15)]
    return [(155, u, 15) for u in (500, 1000, 1500)] + [(622, u, f) for f in (60, 120) for u in (500, 1000, 1500)]


def timing(quick: bool) -> Tuple[float, float]:
    """(duration, warm-up) in seconds."""
    return (40.0, 20.0) if quick else (200.0, 60.0)


def web_flow(name: str, users: int, factor: int) -> dict:
    """One ``[[flows]]`` entry of ``users`` web users on protocol ``name``."""
    if name == "E-TCP":
        f = etcp_flow("E-TCP")
    else:
        # ns-2 mode, as every baseline (package docstring); with syn_ on
        # (ns-2.35's default) each connection starts with ns-2's SYN. Which
        # ns-2 web model and agents §VI-H used is not stated.
        f = {"mss_bytes": MSS, "header_bytes": HEADER, "rwnd_pkts": 10_000_000, **baseline(name)}
    f.update({"count": users, "app": "web", "app_params": {"size_factor": float(factor)},
              "rtt_range_s": [0.010, 0.150], "rtt_step_s": 0.001})
    return f


def scenarios(quick: bool) -> List[Sweep]:
    dur, warm = timing(quick)
    out = []
    for name in NAMES:
        points, labels = [], []
        for link, users, factor in settings(quick):
            points.append({"topology.bottleneck_rate_bps": LINK_BPS[link],
                           "flows.0.count": users, "flows.0.app_params.size_factor": float(factor)})
            labels.append((name, link, users, factor))
        # The bottleneck's own delay is 1 ms so per-user RTTs reach 10 ms.
        topo = dumbbell(622e6, BUFFER, delay_s=0.001, edge_rate_bps=EDGE_RATE_BPS, edge_buffer_pkts=EDGE_BUFFER)
        base = scenario(f"{ID}-{name}", dur, topo, [web_flow(name, 1000, 60)], sample_interval_s=0.0)
        base["warmup_s"] = warm
        out.append(Sweep(base, points, labels))
    return out


def analyse(runs: Runs, quick: bool) -> Analysis:
    dur, warm = timing(quick)
    rows = []
    for s, frame in zip(runs.sweeps, runs.frames):
        for (name, link, users, factor), key in zip(s.labels, frame["key"]):
            res = runs.load(key)
            b = res.bottleneck()
            tr = res.transfers
            late = tr[tr["start_s"] >= warm] if len(tr) else tr
            done = late[late["fct_s"].notna()] if len(late) else late
            rows.append({
                "protocol": name, "link_mbps": link, "users": users, "size_factor": factor,
                "setting": f"{link}/{users}/{factor}",
                "throughput_bps": float(b["utilization"]) * LINK_BPS[link],
                "utilization": float(b["utilization"]), "loss_rate": float(b["loss_rate"]),
                "offered_bps": float(late["bytes"].sum()) * 8.0 / (dur - warm) if len(late) else 0.0,
                "transfers": int(len(late)), "completed": int(len(done)),
                "mean_fct_s": float(done["fct_s"].mean()) if len(done) else np.nan,
                "median_fct_s": float(done["fct_s"].median()) if len(done) else np.nan,
            })
    table = pd.DataFrame(rows)
    wide = table.pivot(index="setting", columns="protocol", values="throughput_bps")
    gains = pd.DataFrame({"vs_newreno": wide["E-TCP"] / wide["NewReno"] - 1.0,
                          "vs_paced": wide["E-TCP"] / wide["NewReno+pacing"] - 1.0})
    return Analysis(table=table, gains=gains)


def checks(a: Analysis, quick: bool) -> List[Check]:
    out: List[Check] = []
    g = a.gains
    for (link, users, factor), (nr, paced) in PAPER_GAINS.items():
        key = f"{link}/{users}/{factor}"
        if key not in g.index:
            continue
        for label, paper, got in (("NewReno", nr, g.loc[key, "vs_newreno"]),
                                  ("paced NewReno", paced, g.loc[key, "vs_paced"])):
            out.append(Check(f"{key}: E-TCP throughput gain over {label} (paper §VI-H)",
                             paper=paper, ccsim=round(float(got), 4), tolerance=TOL_POINTS, relative=False, source="paper"))
    for (link, users, factor), bound in PAPER_AT_LEAST.items():
        key = f"{link}/{users}/{factor}"
        if key not in g.index:
            continue
        worst = float(min(g.loc[key, "vs_newreno"], g.loc[key, "vs_paced"]))
        out.append(Check(f"{key}: E-TCP gain over both NewRenos above {bound:.0%} (paper §VI-H)",
                         paper=f"> {bound}", ccsim=round(worst, 4), ok=worst > bound, source="paper"))
    for key, row in g.iterrows():
        worst = float(min(row["vs_newreno"], row["vs_paced"]))
        out.append(Check(f"{key}: E-TCP throughput above NewReno's and paced NewReno's (paper §VI-H, every setting)",
                         paper="> 0", ccsim=round(worst, 4), ok=worst > 0, source="paper"))
    # consistency: the paired comparison offered about the same load to each protocol
    t = a.table
    for key, grp in t.groupby("setting"):
        off = grp.set_index("protocol")["offered_bps"]
        if off.min() > 0:
            out.append(Check(f"{key}: load offered after the warm-up, E-TCP vs NewReno (consistency, Mb/s)",
                             paper=round(off["NewReno"] / 1e6, 2), ccsim=round(off["E-TCP"] / 1e6, 2),
                             tolerance=0.25, source="consistency"))
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    t = a.table
    keys = list(dict.fromkeys(t["setting"]))
    fig, axes = grid(1, 2, figsize=(13, 4.2))
    ax = axes[0][0]
    width = 0.8 / len(NAMES)
    x = np.arange(len(keys))
    for i, name in enumerate(NAMES):
        sub = t[t["protocol"] == name].set_index("setting").reindex(keys)
        ax.bar(x + i * width, sub["throughput_bps"] / 1e6, width, label=name)
    ax.set_xticks(x + width * (len(NAMES) - 1) / 2, keys, rotation=30, ha="right")
    style_axes(ax, "link Mb/s / users / size factor", "throughput (Mb/s)", title="Fig 17: web-like traffic")
    ax = axes[0][1]
    for i, name in enumerate(NAMES):
        sub = t[t["protocol"] == name].set_index("setting").reindex(keys)
        ax.bar(x + i * width, sub["mean_fct_s"], width, label=name)
    ax.set_xticks(x + width * (len(NAMES) - 1) / 2, keys, rotation=30, ha="right")
    style_axes(ax, "link Mb/s / users / size factor", "mean transfer completion time (s)",
               title="completion times (transfers after the warm-up)")
    return save(fig, out_dir, ID)
