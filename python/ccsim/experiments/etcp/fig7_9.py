"""``etcp-fig7-9``: E-TCP paper Figs 7, 8 and 9, 50 flows through the Fig 4
dumbbell (§VI-C; setup: :mod:`ccsim.experiments.etcp`). Supersedes
``etcp-fig8-baselines``: its runs, table rows and checks are here unchanged.

Setting (§VI-C): 50 identical flows whose start times "distribute uniformly
in the first 100ms" (``count = 50``, ``start_spread_s = 0.1``), the same
20-packet DropTail buffer (§VI-A makes it the default and §VI-C changes
only the flows), bottleneck 1, 2.5 and 5 Gb/s, RTT 50/100/200 ms, 300 s
(§VI-C does not restate the duration; §VI-B's 300 s is assumed).
Utilisation = total goodput / capacity.

* Fig 7 (1 Gb/s, 100 ms): "the average delay bandwidth product for each
  connection is approximately 240 packets and we would expect the loss
  rate at the bottleneck link to be p = p0 + 2/W ~ 0.018", and each window
  "stabilizes at 240 and the packet loss rate at 0.018". Checked on the
  steady state (the last two thirds of the run; the loss as drops /
  arrivals summed over it, :func:`ccsim.experiments.etcp.steady_loss`): the mean over flows of
  each flow's mean W against 240 (5%, as for Fig 5's "close to"), the
  bottleneck loss against 0.018 (3%: the value is stated to two digits,
  ±2.8%), and both against the M/D/1/20 equilibrium model of 50
  exponentially paced flows (:func:`ccsim.experiments.etcp.model`: W =
  236.7, loss 0.0181; 2%), plus the loss against the controller's law at
  the measured W. The plot shows three flows (0, 17 and 34; the paper's
  are "randomly selected"), the bottleneck queue and the loss rate per
  sample and cumulated.
* Fig 8 (2.5 and 5 Gb/s, every protocol): E-TCP "obtains higher link
  utilization than the other protocols in all the settings" (now checked
  against the simulated E-TCP), and the baseline checks of
  ``etcp-fig8-baselines``: the caption's "the two curves of NewReno and
  HSTCP overlap" (|difference| <= 0.03); every baseline below E-TCP's design
  utilisation 0.88 (§III); FAST not high (< 0.5, §IX); utilisation falling
  from 2.5 to 5 Gb/s (§II eq. 4, §IX) for the four loss-based baselines.
  E-TCP's steady goodput (the last two thirds) against the model (3%, as
  in ``etcp-fig6``).
* Fig 9 (1 Gb/s / 50 ms and 5 Gb/s / 200 ms): Jain's index of the flows'
  throughput over the past second (``fairness_window_s = 1``, sampled every
  0.1 s): "E-TCP converges to a fair state" (the mean index over the last
  third of the run at least 0.95, our reading of "fair"), and "as the
  bottleneck bandwidth and the round trip propagation delay increases, the
  convergence time to the fair state becomes longer" (the first time the
  index reaches 0.95 and stays there for 5 s, later at 5 Gb/s / 200 ms).

Sampling: every 0.1 s at the three settings the figures show, every 1 s
elsewhere (steady-state windows only).

``--quick``: 1 Gb/s, RTT 50 ms, 10 s: E-TCP and the five baselines (the
Fig 8 checks then compare at 1 Gb/s, which Fig 8 does not show; Fig 7's
checks at 50 ms instead of 100 ms use the model only, and Fig 9's ordering
is not checked).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import List, Tuple

import numpy as np
import pandas as pd

from ...models.etcp import loss_at_window
from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.analysis import bottleneck_series, falls_pairwise, sequence
from .._kit.figures import STYLE, grid, save, style_axes
from . import (ETCP_STYLE, MODEL_QUEUE, PROTOCOLS, SOURCE as _SOURCE, base_scenario, etcp_flow, etcp_point,
               etcp_scenario, frame, model, point, steady_loss)

ID = "etcp-fig7-9"
SOURCE = f"{_SOURCE}, Figs 7-9"
#: an ns-2 figure: its baselines run in ns-2 mode (package docstring)
NS2_FIGURE = True
DESCRIPTION = ("50 flows, 1/2.5/5 Gb/s, 50-200 ms: E-TCP's window ~240 and loss ~0.018 (Fig 7), utilisation "
               "of E-TCP and five baselines (Fig 8), Jain's index over time (Fig 9)")

PAPER = {
    "window": 240, "loss": 0.018,          # §VI-C, Fig 7 (1 Gb/s, 100 ms)
    "overlap": ("NewReno", "HSTCP"),       # Fig 8 caption: their curves overlap
    "fast_below": 0.5,                     # §IX: FAST not high (below one half, as in Fig 6)
    "trend": "decreasing",                 # §II eq. 4, §IX: utilisation falls as c grows
    "fair": 0.95,                          # Fig 9: "converges to a fair state" (read as J >= 0.95)
}

N_FLOWS = 50
FIG7 = (1e9, 0.1)
FIG9 = ((1e9, 0.05), (5e9, 0.2))
SHOWN = (0, 17, 34)
FAIR_HOLD_S = 5.0


def duration(quick: bool) -> float:
    return 10.0 if quick else 300.0


def settings(quick: bool) -> Tuple[List[float], List[float], List[float]]:
    """(E-TCP rates, baseline rates, RTTs)."""
    if quick:
        return [1e9], [1e9], [0.05]
    return [1e9, 2.5e9, 5e9], [2.5e9, 5e9], [0.05, 0.1, 0.2]


def featured(quick: bool) -> List[Tuple[float, float]]:
    """Settings drawn in Figs 7 and 9 (sampled finely)."""
    return [(1e9, 0.05)] if quick else [FIG7, *FIG9]


def scenarios(quick: bool) -> List[Sweep]:
    dur = duration(quick)
    e_rates, b_rates, rtts = settings(quick)
    # the baselines exactly as etcp-fig8-baselines ran them (same cache keys)
    base = base_scenario("etcp-fig8", dur)
    base["flows"][0].update({"count": N_FLOWS, "start_s": 0.0, "start_spread_s": 0.1})
    points, names = [], []
    for rate in b_rates:
        for rtt in rtts:
            for proto in PROTOCOLS:
                points.append(point(proto, rate, rtt))
                names.append(proto)
    ebase = etcp_scenario("etcp-fig7-9", dur, 1e9, 0.1,
                          [etcp_flow("E-TCP", count=N_FLOWS, start_s=0.0, start_spread_s=0.1)],
                          sample_interval_s=1.0, fairness_window_s=1.0)
    epoints = []
    for rate in e_rates:
        for rtt in rtts:
            p = etcp_point(rate, rtt)
            if (rate, rtt) in featured(quick):
                p["sample_interval_s"] = 0.1
            epoints.append(p)
    return [Sweep(base, points, names), Sweep(ebase, epoints, ["E-TCP"] * len(epoints))]


def _fair_from(fair: pd.DataFrame, level: float, hold_s: float) -> float:
    """First time from which Jain's index stays >= level for hold_s (NaN: never)."""
    t, j = fair["time_s"].to_numpy(), fair["jain"].to_numpy()
    ok = j >= level
    for i in range(len(t)):
        if not ok[i]:
            continue
        end = np.searchsorted(t, t[i] + hold_s, side="right")
        if end <= len(t) and ok[i:end].all() and t[min(end, len(t)) - 1] >= t[i] + hold_s - 1e-9:
            return float(t[i])
    return math.nan


def analyse(runs: Runs, quick: bool) -> Analysis:
    dur = duration(quick)
    t0 = dur / 3.0
    df = frame(runs.frames[0], runs.sweeps[0].labels)
    e = frame(runs.frames[1], runs.sweeps[1].labels)
    rows, detail = [], {}
    for _, r in e.iterrows():
        res = runs.load(r.key)
        fs = res.flow_series
        steady = fs[fs["time_s"] > t0 + 1e-9]
        w_flow = steady.groupby("flow")["cwnd"].mean()
        ls = bottleneck_series(res)
        lss = ls[ls["time_s"] > t0 + 1e-9]
        fair = res.fairness_series
        fl = res.flows
        m = model(r.rate_bps, [r.rtt_s] * N_FLOWS)
        row = {
            "key": r.key, "window_mean": float(w_flow.mean()), "window_min": float(w_flow.min()),
            "window_max": float(w_flow.max()), "steady_loss": steady_loss(ls, t0),
            "steady_goodput_utilization": float(steady.groupby("time_s")["goodput_bps"].sum().mean()) / r.rate_bps,
            "queue_mean_pkts": float(lss["queue_pkts"].mean()),
            "loss_est_mean": float(fl["loss_est"].mean()) if "loss_est" in fl else math.nan,
            "jain_steady": float(fair.loc[fair["time_s"] > t0 + 1e-9, "jain"].mean()) if len(fair) else math.nan,
            "fair_from_s": _fair_from(fair, PAPER["fair"], FAIR_HOLD_S) if len(fair) else math.nan,
            "retransmits": int(fl["retransmits"].sum()), "timeouts": int(fl["timeouts"].sum()),
            "model_window": m["window"], "model_loss": m["loss"],
            "model_goodput_utilization": m["goodput_utilisation"],
        }
        rows.append(row)
        if (r.rate_bps, r.rtt_s) in featured(quick):
            detail[(r.rate_bps, r.rtt_s)] = {"fs": fs, "ls": ls, "fair": fair}
    e = e.merge(pd.DataFrame(rows), on="key")
    e["steady_from_s"] = t0
    both = pd.concat([df, e], ignore_index=True, sort=False)
    table = both[["protocol", "rate_bps", "rtt_s", "goodput_utilization", "utilization", "loss_rate",
                  "jain_index", "window_mean", "window_min", "window_max", "steady_loss", "steady_goodput_utilization",
                  "queue_mean_pkts",
                  "loss_est_mean", "jain_steady", "fair_from_s", "retransmits", "timeouts", "model_window",
                  "model_loss", "model_goodput_utilization", "events", "wall_s"]].sort_values(
        ["protocol", "rate_bps", "rtt_s"])
    return Analysis(table=table, df=df, e=e, detail=detail, t0=t0, duration=dur)


def _tag(rate: float, rtt: float) -> str:
    return f"{rate / 1e9:g} Gb/s, RTT {rtt * 1000:.0f} ms"


def checks(a: Analysis, quick: bool) -> List[Check]:
    return fig7_checks(a, quick) + fig8_checks(a) + fig9_checks(a, quick)


def fig7_checks(a: Analysis, quick: bool) -> List[Check]:
    out: List[Check] = []
    ev = a.e.set_index(["rate_bps", "rtt_s"])
    for (rate, rtt), r in ev.iterrows():
        tag = f"E-TCP, {_tag(rate, rtt)}, steady state ({a.t0:g} s on)"
        if (rate, rtt) == FIG7:
            out.append(Check(f"{tag}: mean window per flow (Fig 7)", paper=PAPER["window"],
                             ccsim=round(r.window_mean, 2), tolerance=0.05, source="paper"))
            out.append(Check(f"{tag}: bottleneck loss rate (Fig 7)", paper=PAPER["loss"],
                             ccsim=round(r.steady_loss, 5), tolerance=0.03, source="paper"))
        if (rate, rtt) in featured(quick):
            out.append(Check(f"{tag}: mean window per flow vs {MODEL_QUEUE} equilibrium of 50 flows",
                             paper=round(r.model_window, 2), ccsim=round(r.window_mean, 2), tolerance=0.02, source="model"))
            out.append(Check(f"{tag}: bottleneck loss vs {MODEL_QUEUE} equilibrium of 50 flows",
                             paper=round(r.model_loss, 5), ccsim=round(r.steady_loss, 5), tolerance=0.02, source="model"))
            out.append(Check(f"{tag}: loss vs the controller's law at the measured W, (p0 + 2/W)/(1 + p0 + 2/W)",
                             paper=round(loss_at_window(r.window_mean), 5), ccsim=round(r.steady_loss, 5),
                             tolerance=0.02, source="model"))
    return out


def fig8_checks(a: Analysis) -> List[Check]:
    df, e = a.df, a.e
    out: List[Check] = []
    key = ["rate_bps", "rtt_s"]
    u = df.set_index(["protocol"] + key)["goodput_utilization"]
    eu = e.set_index(key)["goodput_utilization"]
    base_settings = sorted({(r, t) for r, t in df[key].itertuples(index=False)})
    # §VI-C: E-TCP "obtains higher link utilization than the other protocols
    # in all the settings"
    for rate, rtt in base_settings:
        if (rate, rtt) not in eu.index:
            continue
        b = df[(df.rate_bps == rate) & (df.rtt_s == rtt)].sort_values("goodput_utilization").iloc[-1]
        x = float(eu[(rate, rtt)])
        out.append(Check(f"E-TCP, {_tag(rate, rtt)}: utilisation above every baseline's (best: {b.protocol}) (§VI-C)",
                         paper=f"> {b.goodput_utilization:.4f}", ccsim=round(x, 4), ok=bool(x > b.goodput_utilization), source="paper"))
    for (rate, rtt), r in e.set_index(key).iterrows():
        out.append(Check(f"E-TCP, {_tag(rate, rtt)}: goodput utilisation, steady state ({a.t0:g} s on), vs {MODEL_QUEUE} "
                         "equilibrium of 50 flows", paper=round(r.model_goodput_utilization, 4),
                         ccsim=round(r.steady_goodput_utilization, 4), tolerance=0.03, source="model"))
    # Fig 8 caption: "the two curves of NewReno and HSTCP overlap". Curves
    # on a 0-1 utilisation axis are indistinguishable when they differ by
    # less than a marker, read as 0.03.
    p1, p2 = PAPER["overlap"]
    for rate, rtt in base_settings:
        x, y = float(u[(p1, rate, rtt)]), float(u[(p2, rate, rtt)])
        out.append(Check(f"{_tag(rate, rtt)}: NewReno and HSTCP curves overlap (Fig 8 caption)",
                         paper=0.0, ccsim=round(y - x, 4), relative=False, tolerance=0.03, source="paper"))
    # §IX: FAST "will not achieve high utilization" (below one half, as in Fig 6).
    worst = float(df[df["protocol"] == "FAST"]["goodput_utilization"].max())
    out.append(Check("FAST: utilisation not high, below 50%, in every setting (§IX)",
                     paper=f"< {PAPER['fast_below']}", ccsim=round(worst, 4), ok=worst < PAPER["fast_below"], source="paper"))
    # §II eq. 4 / §IX: with g fixed, utilisation falls as the capacity c
    # grows (rho^2 P_B(rho) = 2 (g / (tau c))^2 for TCP; the same holds for
    # HSTCP and STCP). Not for FAST, which is not loss-driven.
    for proto in ("NewReno", "NewReno+pacing", "HSTCP", "STCP"):
        for rtt in sorted(df["rtt_s"].unique()):
            rates = sorted(r for (p, r, t) in u.index if p == proto and t == rtt)
            if len(rates) > 1:
                us = [float(u[(proto, r, rtt)]) for r in rates]
                out.append(Check(
                    f"{proto}, RTT {rtt * 1000:.0f} ms: utilisation falls at every step from {rates[0] / 1e9:g} to "
                    f"{rates[-1] / 1e9:g} Gb/s (§II eq. 4, §IX)",
                    paper=PAPER["trend"], ccsim=sequence(us), ok=falls_pairwise(us), source="paper"))
    return out


def fig9_checks(a: Analysis, quick: bool) -> List[Check]:
    out: List[Check] = []
    ev = a.e.set_index(["rate_bps", "rtt_s"])
    shown = [s for s in FIG9 if s in ev.index] or featured(quick)
    for s in shown:
        r = ev.loc[s]
        out.append(Check(f"E-TCP, {_tag(*s)}: Jain's index (1 s window) over the last two thirds, fair (Fig 9)",
                         paper=f">= {PAPER['fair']}", ccsim=round(float(r.jain_steady), 4),
                         ok=bool(r.jain_steady >= PAPER["fair"]), source="paper"))
    if all(s in ev.index for s in FIG9):
        t1, t2 = float(ev.loc[FIG9[0]].fair_from_s), float(ev.loc[FIG9[1]].fair_from_s)
        out.append(Check(f"E-TCP: time to a fair state (J >= {PAPER['fair']} for {FAIR_HOLD_S:g} s) longer at "
                         f"{_tag(*FIG9[1])} than at {_tag(*FIG9[0])} (Fig 9)",
                         paper="longer", ccsim=f"{t1:.1f} s -> {t2:.1f} s",
                         ok=bool(t2 > t1) if not (math.isnan(t2) and math.isnan(t1)) else False, source="paper"))
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    fig, axes = grid(2, 3, figsize=(15, 7.5))
    # Fig 7: three flows' windows, queue, loss
    s7 = FIG7 if FIG7 in a.detail else next(iter(a.detail))
    d = a.detail[s7]
    ax = axes[0][0]
    for f in SHOWN:
        g = d["fs"][d["fs"]["flow"] == f]
        ax.plot(g["time_s"], g["cwnd"], lw=0.6, label=f"flow {f}")
    if s7 == FIG7:
        ax.axhline(PAPER["window"], color="k", ls="--", lw=0.8, label="paper: 240")
    m = a.e.set_index(["rate_bps", "rtt_s"]).loc[s7]
    ax.axhline(m.model_window, color="gray", ls=":", lw=0.8, label=f"model: {m.model_window:.0f}")
    style_axes(ax, "time (s)", "window (packets)", title=f"Fig 7: E-TCP windows, {_tag(*s7)}")
    ax = axes[0][1]
    ax.plot(d["ls"]["time_s"], d["ls"]["queue_pkts"], lw=0.4)
    style_axes(ax, "time (s)", "bottleneck queue (packets)", legend=None, title="Fig 7: queue (0.1 s samples)")
    ax = axes[0][2]
    ax.plot(d["ls"]["time_s"], d["ls"]["loss_rate"], lw=0.4, label="per 0.1 s")
    ax.plot(d["ls"]["time_s"], d["ls"]["cum_loss_rate"], lw=1.2, label="cumulative")
    if s7 == FIG7:
        ax.axhline(PAPER["loss"], color="k", ls="--", lw=0.8, label="paper: 0.018")
    ax.set_ylim(0, 0.06)
    style_axes(ax, "time (s)", "bottleneck loss rate", title="Fig 7: loss")
    # Fig 8: utilisation per setting
    ax = axes[1][0]
    df = a.df.sort_values(["rate_bps", "rtt_s"])
    labels = [f"{r / 1e9:g}G/{t * 1000:.0f}ms" for r, t in
              df[["rate_bps", "rtt_s"]].drop_duplicates().itertuples(index=False)]
    for proto in PROTOCOLS:
        s = df[df["protocol"] == proto]
        ax.plot(range(len(s)), s["goodput_utilization"], STYLE[proto], label=proto, ms=5)
    es = a.e.sort_values(["rate_bps", "rtt_s"])
    es = es[[(r, t) in set(zip(df.rate_bps, df.rtt_s)) for r, t in zip(es.rate_bps, es.rtt_s)]]
    ax.plot(range(len(es)), es["goodput_utilization"], ETCP_STYLE["E-TCP"], label="E-TCP", ms=5)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=30, fontsize=8)
    ax.set_ylim(0, 1.05)
    style_axes(ax, None, "goodput / capacity", title="Fig 8: utilisation, 50 flows")
    # Fig 9: Jain's index and three flows' throughput
    ax, ax2 = axes[1][1], axes[1][2]
    for s, d in a.detail.items():
        if s == FIG7 and s not in FIG9:
            continue
        ax.plot(d["fair"]["time_s"], d["fair"]["jain"], lw=0.8, label=_tag(*s))
        for f in SHOWN:
            g = d["fs"][d["fs"]["flow"] == f]
            ax2.plot(g["time_s"], g["goodput_bps"] / 1e6, lw=0.5, label=f"{_tag(*s)}, flow {f}")
    ax.axhline(PAPER["fair"], color="gray", ls=":", lw=0.8)
    ax.set_ylim(0, 1.02)
    style_axes(ax, "time (s)", "Jain's index (1 s window)", title="Fig 9: fairness")
    style_axes(ax2, "time (s)", "goodput per sample (Mb/s)", legend=6, title="Fig 9: three flows")
    fig.suptitle("E-TCP paper Figs 7-9: 50 flows, 20-packet DropTail")
    return save(fig, out_dir, ID)
