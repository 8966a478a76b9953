"""``etcp-fig8-baselines``: E-TCP paper Fig 8, 50 flows starting uniformly
in the first 100 ms (§VI-C), bottleneck 2.5 and 5 Gb/s, RTT 50/100/200 ms,
the same buffer and agents as Fig 6 (setup: :mod:`ccsim.experiments.etcp`).

The text states that E-TCP beats every baseline in every setting, and the
caption that the NewReno and HSTCP curves overlap; §II's model predicts
falling utilisation as c/g grows and §IX says FAST does not reach high
utilisation. Loss rate and Jain's index (over whole-run goodputs) are
tabulated; the paper states no baseline numbers for them.

``--quick``: 1 Gb/s (the lowest rate §VI-C runs; Fig 8 shows 2.5 and
5 Gb/s) and RTT 50 ms only, with a 10 s run (200 RTTs).
"""

from __future__ import annotations

from pathlib import Path
from typing import List

from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.figures import STYLE, grid, save
from . import ETCP_UTILISATION, PROTOCOLS, SOURCE as _SOURCE, base_scenario, frame, point

ID = "etcp-fig8-baselines"
SOURCE = f"{_SOURCE}, Fig 8"
DESCRIPTION = ("utilisation, loss and Jain index of NewReno, paced NewReno, HSTCP, STCP, FAST; "
               "50 flows at 2.5/5 Gb/s, 20-packet buffer")

PAPER = {
    "overlap": ("NewReno", "HSTCP"),     # Fig 8 caption: their curves overlap
    "etcp_utilisation": ETCP_UTILISATION,  # §VI-C with §III: E-TCP beats every baseline
    "fast_below": 0.5,                   # §IX: FAST not high (below one half, as in Fig 6)
    "trend": "decreasing",               # §II eq. 4, §IX: utilisation falls as c grows
}

N_FLOWS = 50


def scenarios(quick: bool) -> List[Sweep]:
    duration = 10.0 if quick else 300.0
    rates = [1e9] if quick else [2.5e9, 5e9]
    rtts = [0.05] if quick else [0.05, 0.1, 0.2]
    base = base_scenario("etcp-fig8", duration)
    base["flows"][0].update({"count": N_FLOWS, "start_s": 0.0, "start_spread_s": 0.1})
    points, names = [], []
    for rate in rates:
        for rtt in rtts:
            for proto in PROTOCOLS:
                points.append(point(proto, rate, rtt))
                names.append(proto)
    return [Sweep(base, points, names)]


def analyse(runs: Runs, quick: bool) -> Analysis:
    df = frame(runs.df, runs.sweeps[0].labels)
    table = df[["protocol", "rate_bps", "rtt_s", "goodput_utilization", "utilization", "loss_rate",
                "jain_index", "events", "wall_s"]].sort_values(["protocol", "rate_bps", "rtt_s"])
    return Analysis(table=table, df=df)


def checks(a: Analysis, quick: bool) -> List[Check]:
    df = a.df
    out: List[Check] = []
    key = ["rate_bps", "rtt_s"]
    u = df.set_index(["protocol"] + key)["goodput_utilization"]
    settings = sorted({(r, t) for r, t in df[key].itertuples(index=False)})

    def tag(rate, rtt):
        return f"{rate / 1e9:g} Gb/s, RTT {rtt * 1000:.0f} ms"

    # Fig 8 caption: "the two curves of NewReno and HSTCP overlap". Curves
    # on a 0-1 utilisation axis are indistinguishable when they differ by
    # less than a marker, read as 0.03.
    p1, p2 = PAPER["overlap"]
    for rate, rtt in settings:
        x, y = float(u[(p1, rate, rtt)]), float(u[(p2, rate, rtt)])
        out.append(Check(f"{tag(rate, rtt)}: NewReno and HSTCP curves overlap (Fig 8 caption)",
                         paper=0.0, ccsim=round(y - x, 4), relative=False, tolerance=0.03))
    # §VI-C: E-TCP "obtains higher link utilization than the other
    # protocols in all the settings"; E-TCP's utilisation with B = 20 and
    # p0 = 0.01 is 0.88 (§III, Fig 1), so every baseline should be below it.
    etcp = PAPER["etcp_utilisation"]
    for proto in PROTOCOLS:
        best = df[df["protocol"] == proto].sort_values("goodput_utilization").iloc[-1]
        out.append(Check(
            f"{proto}: utilisation below E-TCP's 0.88 in every setting (§VI-C with §III); "
            f"max at {tag(best.rate_bps, best.rtt_s)}",
            paper=f"< {etcp}", ccsim=round(float(best.goodput_utilization), 4),
            ok=float(best.goodput_utilization) < etcp))
    # §IX: FAST "will not achieve high utilization" (below one half, as in Fig 6).
    worst = float(df[df["protocol"] == "FAST"]["goodput_utilization"].max())
    out.append(Check("FAST: utilisation not high, below 50%, in every setting (§IX)",
                     paper=f"< {PAPER['fast_below']}", ccsim=round(worst, 4), ok=worst < PAPER["fast_below"]))
    # §II eq. 4 / §IX: with g fixed, utilisation falls as the capacity c
    # grows (rho^2 P_B(rho) = 2 (g / (tau c))^2 for TCP; the same holds for
    # HSTCP and STCP). Not for FAST, which is not loss-driven.
    for proto in ("NewReno", "NewReno+pacing", "HSTCP", "STCP"):
        for rtt in sorted(df["rtt_s"].unique()):
            rates = sorted(r for (p, r, t) in u.index if p == proto and t == rtt)
            if len(rates) > 1:
                ua, ub = float(u[(proto, rates[0], rtt)]), float(u[(proto, rates[-1], rtt)])
                out.append(Check(
                    f"{proto}, RTT {rtt * 1000:.0f} ms: utilisation falls from {rates[0] / 1e9:g} to "
                    f"{rates[-1] / 1e9:g} Gb/s (§II eq. 4, §IX)",
                    paper=PAPER["trend"], ccsim=f"{ua:.3f} -> {ub:.3f}", ok=ub < ua))
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    df = a.df.sort_values(["rate_bps", "rtt_s"])
    settings = [f"{r / 1e9:g}G/{t * 1000:.0f}ms" for r, t in
                df[["rate_bps", "rtt_s"]].drop_duplicates().itertuples(index=False)]
    fig, axes = grid(1, 3, figsize=(13, 3.8))
    axes = axes[0]
    for proto in PROTOCOLS:
        s = df[df["protocol"] == proto]
        x = range(len(s))
        axes[0].plot(x, s["goodput_utilization"], STYLE[proto], label=proto, ms=5)
        axes[1].plot(x, s["loss_rate"], STYLE[proto], label=proto, ms=5)
        axes[2].plot(x, s["jain_index"], STYLE[proto], label=proto, ms=5)
    for ax, title in zip(axes, ("link utilisation (goodput / capacity)", "bottleneck loss rate",
                                "Jain index (whole-run goodput)")):
        ax.set_xticks(range(len(settings)))
        ax.set_xticklabels(settings, rotation=30, fontsize=8)
        ax.set_title(title, fontsize=10)
        ax.grid(True, alpha=0.3)
    axes[0].set_ylim(0, 1.05)
    axes[1].set_yscale("log")
    axes[2].set_ylim(0, 1.05)
    axes[0].legend(fontsize=7, loc="best")
    fig.suptitle("E-TCP paper Fig 8 baselines: 50 flows, 20-packet DropTail")
    return save(fig, out_dir, ID)
