"""E-TCP paper (small-buffer high-speed congestion control) experiments.

``etcp-fig6-baselines``: Fig 6 for the two TCP baselines, NewReno and
NewReno with packet pacing (at least srtt/cwnd between packets, §VI-A). One
flow through the dumbbell of Fig 4: a 20-packet DropTail bottleneck, edge
links of 100 Gb/s, 5 ms and 1000 packets, 1040-byte packets, round-trip
propagation 50/100/200 ms, bottleneck 100 kb/s to 5 Gb/s, 300 s runs, link
utilisation = receiver goodput / bottleneck rate (§VI-B).

Fig 6 is a plot, so the paper's text states trends, not numbers: the
baselines' utilisation decreases as the bottleneck grows (§VI-B), and TCP's
utilisation "quickly drops under 50%" as its throughput grows (§II, Fig 1).
Those are checked as stated. Where a run spans many congestion cycles, the
bottleneck utilisation is also checked against the closed-form AIMD sawtooth
(where the run holds at least 20 cycles)
(:mod:`ccsim.models.aimd`), an independent model of the same system.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

from ..models.aimd import bdp_packets, cycle_rtts, sawtooth_utilization
from ..plots import pyplot, save_figure
from ..sweep import sweep, write_table
from . import Check, register

PKT_BYTES = 1040
BUFFER = 20
PROTOCOLS = {"NewReno": "none", "NewReno+pacing": "interval"}
MIN_CYCLES = 20


def base_scenario(duration_s: float) -> dict:
    """Fig 4 dumbbell with one NewReno flow; the sweep sets rate, delay, pacing."""
    return {
        "name": "etcp-fig6",
        "duration_s": duration_s,
        "sample_interval_s": 0.0,
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate_bps": 1e9,
            "bottleneck_delay_s": 0.04,
            "bottleneck_queue": {"kind": "droptail", "limit_pkts": BUFFER},
            "edge_rate_bps": 100e9,
            "edge_delay_s": 0.005,
            "edge_queue": {"kind": "droptail", "limit_pkts": 1000},
        },
        "flows": [{
            "cc": "reno",
            "recovery": "newreno",
            "mss_bytes": 1000,
            "header_bytes": 40,
            # ns-2 window_ (E-TCP §VI-A sets the TCP window limit to 10,000,000)
            "rwnd_pkts": 10_000_000,
        }],
    }


def grid(quick: bool) -> List[dict]:
    rates = [1e6, 1e7, 1e8, 1e9] if quick else [1e5, 1e6, 1e7, 1e8, 1e9, 2.5e9, 5e9]
    rtts = [0.1] if quick else [0.05, 0.1, 0.2]
    points = []
    for rtt in rtts:
        for rate in rates:
            for name, pacing in PROTOCOLS.items():
                points.append({
                    "topology.bottleneck_rate_bps": rate,
                    # edge links add 2 x 5 ms each way: RTT = 2 (0.01 + d)
                    "topology.bottleneck_delay_s": round(rtt / 2 - 0.01, 9),
                    "flows.0.pacing": pacing,
                })
    return points


def _plot(df, out_dir: Path) -> Path:
    plt = pyplot()
    rtts = sorted(df["rtt_s"].unique())
    fig, axes = plt.subplots(1, len(rtts), figsize=(4.2 * len(rtts), 3.6), squeeze=False, sharey=True)
    for ax, rtt in zip(axes[0], rtts):
        sub = df[df["rtt_s"] == rtt]
        for proto, style in (("NewReno", "o-"), ("NewReno+pacing", "s--")):
            s = sub[sub["protocol"] == proto].sort_values("rate_bps")
            ax.plot(s["rate_bps"], s["goodput_utilization"], style, label=proto)
        m = sub[sub["protocol"] == "NewReno"].sort_values("rate_bps")
        ax.plot(m["rate_bps"], m["model_utilization"], ":", color="gray", label="AIMD sawtooth, steady state (link)")
        ax.set_xscale("log")
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("bottleneck bandwidth (b/s)")
        ax.set_title(f"RTT {rtt * 1000:.0f} ms")
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("link utilisation (goodput / capacity)")
    axes[0][0].legend(fontsize=8)
    fig.suptitle("E-TCP paper Fig 6 baselines: one flow, 20-packet DropTail")
    return save_figure(fig, out_dir / "etcp-fig6-baselines.png")


@register("etcp-fig6-baselines", paper="E-TCP (small-buffer high-speed CC), Fig 6",
          description="utilisation of NewReno and paced NewReno vs bottleneck bandwidth, 20-packet buffer")
def fig6_baselines(out_dir: Path, quick: bool, workers: Optional[int]) -> List[Check]:
    duration = 60.0 if quick else 300.0
    df = sweep(base_scenario(duration), grid(quick), out_dir, workers=workers)
    df["rate_bps"] = df["topology.bottleneck_rate_bps"]
    df["rtt_s"] = (2 * (df["topology.bottleneck_delay_s"] + 0.01)).round(6)
    df["protocol"] = df["flows.0.pacing"].map({v: k for k, v in PROTOCOLS.items()})
    df["goodput_utilization"] = df["goodput_total_bps"] / df["rate_bps"]
    bdp = bdp_packets(df["rate_bps"], df["rtt_s"], PKT_BYTES)
    df["model_utilization"] = [sawtooth_utilization(w, BUFFER) for w in bdp]
    df["cycles_in_run"] = duration / (cycle_rtts(bdp, BUFFER) * df["rtt_s"])
    table = df[["protocol", "rtt_s", "rate_bps", "goodput_utilization", "utilization", "loss_rate",
                "model_utilization", "cycles_in_run"]].sort_values(["protocol", "rtt_s", "rate_bps"])
    write_table(table, out_dir, "etcp-fig6-baselines")
    _plot(df, out_dir)

    checks: List[Check] = []
    for (proto, rtt), s in df.groupby(["protocol", "rtt_s"]):
        s = s.sort_values("rate_bps")
        lo, hi = s.iloc[0], s.iloc[-1]
        tag = f"{proto}, RTT {rtt * 1000:.0f} ms"
        checks.append(Check(
            f"{tag}: utilisation decreases from {lo.rate_bps:.0e} to {hi.rate_bps:.0e} b/s (§VI-B)",
            paper="decreasing", ccsim=f"{lo.goodput_utilization:.3f} -> {hi.goodput_utilization:.3f}",
            ok=bool(hi.goodput_utilization < lo.goodput_utilization)))
        giga = s[s["rate_bps"] >= 1e9]
        if len(giga):
            worst = float(giga["goodput_utilization"].max())
            checks.append(Check(
                f"{tag}: utilisation at >= 1 Gb/s below 50% (§II, Fig 1)",
                paper="< 0.5", ccsim=round(worst, 4), ok=worst < 0.5))
        # The closed-form sawtooth describes the steady state. A run of N
        # congestion cycles carries a start-up transient (slow start, the
        # overshoot's recovery, the climb from ssthresh) of about one cycle,
        # i.e. ~1/N of the run; comparing only where N >= 20 keeps that
        # below the 5% tolerance.
        steady = s[(s["cycles_in_run"] >= MIN_CYCLES) & (s["protocol"] == "NewReno")]
        for _, r in steady.iterrows():
            checks.append(Check(
                f"{tag}, {r.rate_bps:.0e} b/s: bottleneck utilisation vs AIMD sawtooth model",
                paper=round(float(r.model_utilization), 4), ccsim=round(float(r.utilization), 4), tolerance=0.05))
    return checks
