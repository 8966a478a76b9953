"""``etcp-fig18-21``: E-TCP paper Figs 18-21, the rate-based variant (§VII;
setup: :mod:`ccsim.experiments.etcp`).

The rate controller (§VII-A): per acknowledged congestion sequence number
x <- x + 1/(b tau_r), per lost one x <- x - x/(b tau_r (2 + p0 x)), x in
packets/s, b = 25, p0 = 0.01; equilibrium x* = 2/(p - p0) whatever the RTT.

* Fig 18 (§VII-C-1): the heterogeneous-RTT setting of Fig 10 (50 flows,
  RTT 50-295 ms, 500 Mb/s; see ``etcp-fig10``) with the rate variant:
  "the sending rates of all connections converge to the same speed".
  Checks: the 50 ms flow's mean rate over the 200 ms flow's (paper 1; 10%)
  and over the 100 ms flow's; the mean rate and the loss against the
  M/D/1/20 equilibrium of 50 rate-controlled flows (2%).
* Fig 19 (§VII-C-2): one flow at 1 Gb/s, 100 ms: "We expect the sending
  rate to be stable at 120200 packets per second and the packet loss rate a
  little above 0.01". Checks: the steady rate against 120,200 (5%, as Fig
  5's window), the loss "a little above" p0, and both against the model
  (rate 115,614 packets/s, loss 0.00992; 2%). The per-packet rule puts the
  loss at (p0 + 2/x)/(1 + p0 + 2/x), just *below* p0 once x is large: the
  paper's "a little above" is its fluid law p0 + 2/x.
* Fig 20 (§VII-C-2): utilisation of the rate and the window variants, one
  flow, 100 kb/s to 5 Gb/s, RTT 50/100/200 ms (the grid of Fig 6): "the
  link utilization of rate based E-TCP congestion controller is smaller
  than the window based E-TCP congestion controller in small bottleneck
  bandwidth networks" (checked at 1 and 10 Mb/s) and "as the network
  bandwidth increases, the rate based E-TCP has similar link utilization"
  (|difference| <= 0.03 at >= 1 Gb/s, a marker on the 0-1 axis as in
  ``etcp-fig6``); the rate variant's goodput against the model (3%, where
  the equilibrium is >= 100 packets per RTT and slow start takes at most
  2% of the run, as in ``etcp-fig6``).
* Fig 21 (§VII-C-3): the multi-branch topology of Fig 13 (see
  ``etcp-fig14``) with the rate variant: "the system can still get to a
  stable state". Checks as ``etcp-fig14``: connections 1 and 2's mean
  rates and the second link's loss over the second third against the last
  third (5%), and against the network equilibrium model (5% for the rates,
  2% for the loss).

Steady state: the last two thirds of a run. Samples every 0.1 s (Fig 19:
0.01 s, as Fig 5).

``--quick``: Fig 18 for 20 s, Fig 19 for 10 s, Fig 20 at 1 and 100 Mb/s,
RTT 100 ms, 30 s, Fig 21 for 3 s (a smoke test: nothing has converged).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import List

import pandas as pd

from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.analysis import bottleneck_series, flow_series
from .._kit.figures import grid, save, style_axes
from . import (ETCP, ETCP_P0, ETCP_STYLE, MB_SHOWN_LINK, MODEL_QUEUE, SOURCE as _SOURCE, chain_links, etcp_flow,
               etcp_point, etcp_scenario, frame, model, multibranch_model, multibranch_scenario, steady_loss, steady_mean)
from .fig10 import RTTS as HET_RTTS, RATE as HET_RATE, SHOWN as HET_SHOWN

ID = "etcp-fig18-21"
SOURCE = f"{_SOURCE}, Figs 18-21"
DESCRIPTION = ("rate-based E-TCP: RTT-friendly rates (Fig 18), 120200 pkt/s at 1 Gb/s (Fig 19), utilisation vs "
               "the window variant (Fig 20), multiple bottlenecks (Fig 21)")

PAPER = {"rate_ratio": 1.0, "rate_pps": 120200, "p0": ETCP_P0, "similar": 0.03, "stable": "no drift"}

FIG19 = (1e9, 0.1)
VARIANTS = ("E-TCP", "E-TCP rate")
MODEL_MIN_WINDOW = 100.0


def durations(quick: bool):
    """(Fig 18, Fig 19, Fig 20, Fig 21) run lengths."""
    return (20.0, 10.0, 30.0, 3.0) if quick else (300.0, 300.0, 300.0, 300.0)


def fig20_grid(quick: bool):
    if quick:
        return [1e6, 1e8], [0.1]
    return [1e5, 1e6, 1e7, 1e8, 1e9, 2.5e9, 5e9], [0.05, 0.1, 0.2]


def scenarios(quick: bool) -> List[Sweep]:
    d18, d19, d20, d21 = durations(quick)
    rate = etcp_flow("E-TCP rate")
    het = dict(rate, count=len(HET_RTTS), rtt_s=HET_RTTS, start_s=0.0, start_spread_s=0.1)
    s18 = Sweep(etcp_scenario("etcp-fig18", d18, HET_RATE, 0.05, [het], sample_interval_s=0.1))
    s19 = Sweep(etcp_scenario("etcp-fig19", d19, FIG19[0], FIG19[1], [rate], sample_interval_s=0.01))
    rates, rtts = fig20_grid(quick)
    points, names = [], []
    for rtt in rtts:
        for v in VARIANTS:
            for r in rates:
                p = etcp_point(r, rtt)
                p["flows.0.variant"] = ETCP[v]["variant"]
                points.append(p)
                names.append(v)
    s20 = Sweep(etcp_scenario("etcp-fig20", d20, 1e9, 0.1, [rate]), points, names)
    s21 = Sweep(multibranch_scenario("etcp-fig21", d21, rate))
    return [s18, s19, s20, s21]


def _thirds(d: float):
    return (d / 3, 2 * d / 3), (2 * d / 3, d)


def analyse(runs: Runs, quick: bool) -> Analysis:
    d18, d19, d20, d21 = durations(quick)
    # Fig 18
    (r18,) = runs.results(0)
    t0 = d18 / 2 if quick else d18 / 3
    fs18 = r18.flow_series
    x18 = fs18[fs18["time_s"] > t0 + 1e-9].groupby("flow")["rate_pps"].mean()
    ls18 = bottleneck_series(r18)
    m18 = model(HET_RATE, HET_RTTS, "rate")
    fig18 = {"rates": x18, "loss": steady_loss(ls18, t0), "model": m18, "fs": fs18, "t0": t0}
    # Fig 19
    (r19,) = runs.results(1)
    t19 = d19 / 2 if quick else d19 / 3
    fs19, ls19 = flow_series(r19, 0), bottleneck_series(r19)
    fig19 = {"rate": steady_mean(fs19, "rate_pps", t19), "loss": steady_loss(ls19, t19),
             "model": model(*FIG19, "rate"), "fs": fs19, "ls": ls19, "t0": t19}
    # Fig 20
    e = frame(runs.frames[2], runs.sweeps[2].labels)
    e["duration_s"] = d20
    for col in ("model_goodput_utilization", "model_window"):
        e[col] = math.nan
    for j, r in e.iterrows():
        m = model(r.rate_bps, r.rtt_s, "window" if r.protocol == "E-TCP" else "rate")
        e.at[j, "model_goodput_utilization"] = m["goodput_utilisation"]
        # packets per RTT at equilibrium (the rate variant's x tau)
        e.at[j, "model_window"] = m["window"] if r.protocol == "E-TCP" else m["rate_pps"] * r.rtt_s
    # Fig 21
    (r21,) = runs.results(3)
    fs21, ls21 = r21.flow_series, r21.link_series
    lk = ls21[ls21["link"] == chain_links(r21)[MB_SHOWN_LINK]]
    (a1, b1), (a2, b2) = ((d21 / 2, 3 * d21 / 4), (3 * d21 / 4, d21)) if quick else _thirds(d21)
    m21 = multibranch_model("rate")
    fig21 = {"win": ((a1, b1), (a2, b2)), "model": m21, "fs": fs21, "lk": lk,
             "loss": (steady_loss(lk, a1, b1), steady_loss(lk, a2, b2)),
             "rates": {f: (steady_mean(fs21[fs21["flow"] == f], "rate_pps", a1, b1),
                           steady_mean(fs21[fs21["flow"] == f], "rate_pps", a2, b2)) for f in (0, 1)}}
    rows = [{"figure": "18", "quantity": f"mean rate, RTT {HET_RTTS[int(f)] * 1000:.0f} ms", "value": float(v)}
            for f, v in x18.items()]
    rows += [{"figure": "18", "quantity": "steady loss", "value": fig18["loss"]},
             {"figure": "19", "quantity": "steady rate (pkt/s)", "value": fig19["rate"]},
             {"figure": "19", "quantity": "steady loss", "value": fig19["loss"]}]
    rows += [{"figure": "20", "quantity": f"{r.protocol}, {r.rate_bps:g} b/s, RTT {r.rtt_s:g} s: goodput utilisation",
              "value": float(r.goodput_utilization)} for _, r in e.iterrows()]
    rows += [{"figure": "21", "quantity": f"connection {f + 1} rate, last third", "value": v[1]}
             for f, v in fig21["rates"].items()]
    return Analysis(table=pd.DataFrame(rows), fig18=fig18, fig19=fig19, fig20=e, fig21=fig21)


def checks(a: Analysis, quick: bool) -> List[Check]:
    out: List[Check] = []
    f18 = a.fig18
    x = f18["rates"]
    tag = f"steady state ({f18['t0']:g} s on)"
    out.append(Check(f"Fig 18: rate of the 50 ms flow / rate of the 200 ms flow, {tag} (same speed)",
                     paper=PAPER["rate_ratio"], ccsim=round(float(x[HET_SHOWN[0]] / x[HET_SHOWN[2]]), 4),
                     tolerance=0.10, source="paper"))
    out.append(Check(f"Fig 18: rate of the 50 ms flow / rate of the 100 ms flow, {tag} (same speed)",
                     paper=PAPER["rate_ratio"], ccsim=round(float(x[HET_SHOWN[0]] / x[HET_SHOWN[1]]), 4),
                     tolerance=0.10, source="paper"))
    out.append(Check(f"Fig 18: mean rate over the 50 flows (pkt/s) vs {MODEL_QUEUE} equilibrium model, {tag}",
                     paper=round(float(f18["model"]["rate_pps"]), 1), ccsim=round(float(x.mean()), 1),
                     tolerance=0.02, source="model"))
    out.append(Check(f"Fig 18: bottleneck loss vs {MODEL_QUEUE} equilibrium model, {tag}",
                     paper=round(f18["model"]["loss"], 5), ccsim=round(f18["loss"], 5), tolerance=0.02, source="model"))
    f19 = a.fig19
    tag = f"steady state ({f19['t0']:g} s on)"
    out.append(Check(f"Fig 19: sending rate (pkt/s), {tag}", paper=PAPER["rate_pps"], ccsim=round(f19["rate"], 1),
                     tolerance=0.05, source="paper"))
    out.append(Check(f"Fig 19: bottleneck loss a little above p0, {tag}", paper=f"> {PAPER['p0']}",
                     ccsim=round(f19["loss"], 6), ok=bool(f19["loss"] > PAPER["p0"]), source="paper"))
    out.append(Check(f"Fig 19: sending rate vs {MODEL_QUEUE} equilibrium model, {tag}",
                     paper=round(float(f19["model"]["rate_pps"]), 1), ccsim=round(f19["rate"], 1), tolerance=0.02, source="model"))
    out.append(Check(f"Fig 19: bottleneck loss vs {MODEL_QUEUE} equilibrium model, {tag}",
                     paper=round(f19["model"]["loss"], 6), ccsim=round(f19["loss"], 6), tolerance=0.02, source="model"))
    e = a.fig20
    u = e.set_index(["protocol", "rtt_s", "rate_bps"])["goodput_utilization"]
    for (rtt, rate), g in e.groupby(["rtt_s", "rate_bps"]):
        if ("E-TCP", rtt, rate) not in u.index or ("E-TCP rate", rtt, rate) not in u.index:
            continue
        w, r = float(u[("E-TCP", rtt, rate)]), float(u[("E-TCP rate", rtt, rate)])
        tag = f"Fig 20, RTT {rtt * 1000:.0f} ms, {rate / 1e6:g} Mb/s"
        if rate in (1e6, 1e7):
            out.append(Check(f"{tag}: rate variant below window variant (small bandwidth)", paper=f"< {w:.4f}",
                             ccsim=round(r, 4), ok=bool(r < w), source="paper"))
        if rate >= 1e9:
            out.append(Check(f"{tag}: rate minus window variant, goodput utilisation (similar)", paper=0.0,
                             ccsim=round(r - w, 4), relative=False, tolerance=PAPER["similar"], source="consistency"))
        row = e[(e["protocol"] == "E-TCP rate") & (e["rtt_s"] == rtt) & (e["rate_bps"] == rate)].iloc[0]
        startup = (math.log2(max(row.model_window, 2.0) / 2.0) + 2.0) * rtt / row.duration_s
        if row.model_window >= MODEL_MIN_WINDOW and startup <= 0.02:
            out.append(Check(f"{tag}: rate variant goodput utilisation vs {MODEL_QUEUE} equilibrium model",
                             paper=round(float(row.model_goodput_utilization), 4), ccsim=round(r, 4), tolerance=0.03, source="model"))
    f21 = a.fig21
    (a1, b1), (a2, b2) = f21["win"]
    for f, (mid, last) in f21["rates"].items():
        out.append(Check(f"Fig 21: connection {f + 1} mean rate {a2:g}-{b2:g} s vs {a1:g}-{b1:g} s (stable state)",
                         paper=round(mid, 2), ccsim=round(last, 2), tolerance=0.05, source="consistency"))
    out.append(Check(f"Fig 21: second link loss rate {a2:g}-{b2:g} s vs {a1:g}-{b1:g} s (stable state)",
                     paper=round(f21["loss"][0], 5), ccsim=round(f21["loss"][1], 5), tolerance=0.05, source="consistency"))
    for f, (mid, last) in f21["rates"].items():
        out.append(Check(f"Fig 21: connection {f + 1} mean rate {a2:g}-{b2:g} s vs network equilibrium model",
                         paper=round(f21["model"]["rate_pps"][f], 2), ccsim=round(last, 2), tolerance=0.05, source="model"))
    out.append(Check(f"Fig 21: second link loss rate {a2:g}-{b2:g} s vs network equilibrium model",
                     paper=round(f21["model"]["link_loss"][MB_SHOWN_LINK], 5), ccsim=round(f21["loss"][1], 5),
                     tolerance=0.02, source="model"))
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    fig, axes = grid(2, 3, figsize=(15, 7.5))
    ax = axes[0][0]
    fs = a.fig18["fs"]
    for f in HET_SHOWN:
        g = fs[fs["flow"] == f]
        ax.plot(g["time_s"], g["rate_pps"], lw=0.6, label=f"RTT {HET_RTTS[f] * 1000:.0f} ms")
    ax.axhline(a.fig18["model"]["rate_pps"], color="gray", ls=":", lw=0.8, label="model")
    style_axes(ax, "time (s)", "rate (pkt/s)", title="Fig 18: 50 flows, RTT 50-295 ms, 500 Mb/s")
    ax = axes[0][1]
    f19 = a.fig19
    ax.plot(f19["fs"]["time_s"], f19["fs"]["rate_pps"], lw=0.5, label="rate x")
    ax.axhline(PAPER["rate_pps"], color="k", ls="--", lw=0.8, label="paper: 120200")
    ax.axhline(f19["model"]["rate_pps"], color="gray", ls=":", lw=0.8, label="model")
    style_axes(ax, "time (s)", "rate (pkt/s)", title="Fig 19: one flow, 1 Gb/s, 100 ms")
    ax = axes[0][2]
    ax.plot(f19["ls"]["time_s"], f19["ls"]["loss_rate"], lw=0.3, label="per 10 ms")
    ax.plot(f19["ls"]["time_s"], f19["ls"]["cum_loss_rate"], lw=1.2, label="cumulative")
    ax.axhline(PAPER["p0"], color="k", ls="--", lw=0.8, label="p0")
    ax.set_ylim(0, 0.05)
    style_axes(ax, "time (s)", "bottleneck loss rate", title="Fig 19: loss")
    ax = axes[1][0]
    e = a.fig20
    for (v, rtt), g in e.groupby(["protocol", "rtt_s"]):
        g = g.sort_values("rate_bps")
        ax.plot(g["rate_bps"], g["goodput_utilization"], ETCP_STYLE[v], ms=4, label=f"{v}, {rtt * 1000:.0f} ms")
    ax.set_ylim(0, 1.05)
    style_axes(ax, "bottleneck (b/s)", "goodput / capacity", xlog=True, legend=6, title="Fig 20: rate vs window")
    ax = axes[1][1]
    f21 = a.fig21
    for f in (0, 1):
        g = f21["fs"][f21["fs"]["flow"] == f]
        ax.plot(g["time_s"], g["rate_pps"], lw=0.6, label=f"connection {f + 1}")
        ax.axhline(f21["model"]["rate_pps"][f], color="gray", ls=":", lw=0.8)
    style_axes(ax, "time (s)", "rate (pkt/s)", title="Fig 21: multi-branch (dotted: model)")
    ax = axes[1][2]
    ax.plot(f21["lk"]["time_s"], f21["lk"]["loss_rate"], lw=0.4, label="per 0.1 s")
    ax.plot(f21["lk"]["time_s"], f21["lk"]["cum_loss_rate"], lw=1.2, label="cumulative")
    ax.axhline(f21["model"]["link_loss"][MB_SHOWN_LINK], color="gray", ls=":", lw=0.8, label="model")
    ax.set_ylim(0, 0.05)
    style_axes(ax, "time (s)", "loss, second link", title="Fig 21: loss")
    fig.suptitle("E-TCP paper Figs 18-21: rate-based E-TCP")
    return save(fig, out_dir, ID)
