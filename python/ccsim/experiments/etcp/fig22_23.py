"""``etcp-fig22-23``: E-TCP paper Figs 22 and 23, rate-based E-TCP with
large buffers (§VIII; setup: :mod:`ccsim.experiments.etcp`).

Setting (§VIII): the Fig 4 dumbbell with the bottleneck buffer "equal to
the delay bandwidth product" ("which is 12000 packets" at 1 Gb/s and
100 ms, 24000 at 200 ms: the BDP in 1040-byte packets to two significant
digits, the rule used at every rate; read, like the 20-packet buffer, as
ns-2's ``queue-limit B``: B - 1 waiting behind the one being sent),
b = 1.25 x buffer, p0 = 0.01, the rate variant, one flow, 300 s.

* Fig 22 (1 Gb/s, 100 ms): "The large buffer in this case caused a huge
  delay in the congestion feedback, which lead to a big over shoot and
  large number of packet losses after the slow start phase. However, we
  still see that the system tends to a stable state after that. Both the
  sending rate and the packet loss rate converge to the expected
  equilibrium states." Checks: the overshoot (the highest 0.1 s sending
  rate at least 1.5 times the steady rate, our reading of "a big over
  shoot"); the steady rate and loss (last two thirds) against the
  large-buffer equilibrium (:func:`ccsim.models.etcp.equilibrium` with
  ``queue="overflow"``: with thousands of places the queue is either
  nearly empty and loses nothing or full and loses the excess, p = 1 -
  1/rho; the rate law then gives x = 121,396 packets/s and p = 0.00992;
  2%).
* Fig 23 (10 Mb/s to 1 Gb/s, RTT 100 and 200 ms): "in all the cases, rate
  based E-TCP makes almost full use of the link bandwidth" (bottleneck
  utilisation at least 0.95); "when the network bandwidth and the buffer
  size is not so large, the reliable mechanism works fine. However, in a
  large bandwidth and large buffer network ... the current reliable
  mechanism is not yet able to recover these lost packets in time"
  (goodput / payload share of the link throughput at least 0.95 at
  10 Mb/s; lower at 1 Gb/s than at 10 Mb/s for each RTT).

``--quick``: Fig 22 at 100 Mb/s (buffer 1200, b 1500) for 20 s; Fig 23 at
10 Mb/s and 100 ms for 30 s.
"""

from __future__ import annotations

from pathlib import Path
from typing import List

import pandas as pd

from ...models.etcp import equilibrium
from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.analysis import bottleneck_series, falls_pairwise, flow_series, sequence
from .._kit.figures import grid, save, style_axes
from .._kit.ns2ref import droptail_waiting
from .._kit.setups import MSS
from . import PKT_BYTES, SOURCE as _SOURCE, bdp_pkts, capacity_pps, etcp_flow, etcp_scenario, steady_loss, steady_mean

ID = "etcp-fig22-23"
SOURCE = f"{_SOURCE}, Figs 22-23"
DESCRIPTION = "rate-based E-TCP with buffer = BDP, b = 1.25 x buffer: overshoot then convergence; utilisation"

PAPER = {"buffer_1g_100ms": 12000, "buffer_1g_200ms": 24000, "overshoot": 1.5, "full": 0.95, "reliable_ok": 0.95}

FIG22 = (1e9, 0.1)


def buffer_pkts(rate: float, rtt: float) -> int:
    """The BDP in 1040-byte packets to two significant digits (12000, 24000)."""
    return int(float(f"{bdp_pkts(rate, rtt):.2g}"))


def _flow(rate: float, rtt: float) -> dict:
    return etcp_flow("E-TCP rate", b=1.25 * buffer_pkts(rate, rtt))


def _scenario(name: str, dur: float, rate: float, rtt: float, sample: float) -> dict:
    """The paper's buffer B read as ns-2's ``queue-limit B`` (as the
    20-packet buffer of :data:`.BUFFER`): B - 1 waiting behind the one
    being sent."""
    return etcp_scenario(name, dur, rate, rtt, [_flow(rate, rtt)], sample_interval_s=sample,
                         buffer_pkts=droptail_waiting(buffer_pkts(rate, rtt)))


def settings(quick: bool):
    """(Fig 22 setting and duration, Fig 23 settings and duration)."""
    if quick:
        return (1e8, 0.1), 20.0, [(1e7, 0.1)], 30.0
    return FIG22, 300.0, [(r, t) for t in (0.1, 0.2) for r in (1e7, 1e8, 1e9)], 300.0


def scenarios(quick: bool) -> List[Sweep]:
    s22, d22, s23, d23 = settings(quick)
    out = [Sweep(_scenario("etcp-fig22", d22, *s22, 0.1))]
    for rate, rtt in s23:
        out.append(Sweep(_scenario("etcp-fig23", d23, rate, rtt, 0.0), labels=[(rate, rtt)]))
    return out


def model(rate: float, rtt: float) -> dict:
    """Large-buffer equilibrium with K = B places (B - 1 waiting plus the one in service)."""
    return equilibrium(capacity_pps(rate), [rtt], buffer_pkts(rate, rtt), variant="rate", queue="overflow")


def analyse(runs: Runs, quick: bool) -> Analysis:
    s22, d22, s23, d23 = settings(quick)
    (r22,) = runs.results(0)
    fs, ls = flow_series(r22, 0), bottleneck_series(r22)
    t0 = d22 / 3
    m22 = model(*s22)
    fig22 = {"setting": s22, "fs": fs, "ls": ls, "t0": t0, "model": m22, "rate": steady_mean(fs, "rate_pps", t0),
             "loss": steady_loss(ls, t0), "peak": float(fs["rate_pps"].max())}
    rows = []
    for i in range(1, len(runs.sweeps)):
        (res,) = runs.results(i)
        rate, rtt = runs.sweeps[i].labels[0]
        f = res.flows.iloc[0]
        b = res.bottleneck()
        util = float(b["utilization"])
        good = float(f["goodput_bps"]) / rate
        rows.append({"rate_bps": rate, "rtt_s": rtt, "buffer_pkts": buffer_pkts(rate, rtt),
                     "b": 1.25 * buffer_pkts(rate, rtt), "utilization": util, "goodput_utilization": good,
                     "goodput_share": good / (util * MSS / PKT_BYTES) if util > 0 else float("nan"),
                     "loss_rate": float(b["loss_rate"]), "retransmits": int(f["retransmits"]),
                     "timeouts": int(f["timeouts"])})
    return Analysis(table=pd.DataFrame(rows), fig22=fig22)


def checks(a: Analysis, quick: bool) -> List[Check]:
    f = a.fig22
    rate, rtt = f["setting"]
    tag = f"Fig 22, {rate / 1e6:g} Mb/s, {rtt * 1000:.0f} ms, buffer {buffer_pkts(rate, rtt)}"
    out = [
        Check(f"{tag}: peak sending rate / steady rate after slow start (a big overshoot)",
              paper=f">= {PAPER['overshoot']}", ccsim=round(f["peak"] / f["rate"], 3),
              ok=bool(f["peak"] >= PAPER["overshoot"] * f["rate"]), source="paper"),
        Check(f"{tag}: steady sending rate (pkt/s, {f['t0']:g} s on) vs large-buffer equilibrium",
              paper=round(float(f["model"]["rate_pps"]), 1), ccsim=round(f["rate"], 1), tolerance=0.02, source="model"),
        Check(f"{tag}: steady bottleneck loss ({f['t0']:g} s on) vs large-buffer equilibrium",
              paper=round(f["model"]["loss"], 6), ccsim=round(f["loss"], 6), tolerance=0.02, source="model"),
    ]
    t = a.table.set_index(["rate_bps", "rtt_s"])
    for (rate, rtt), r in t.iterrows():
        tag = f"Fig 23, {rate / 1e6:g} Mb/s, {rtt * 1000:.0f} ms"
        out.append(Check(f"{tag}: bottleneck utilisation, almost full use", paper=f">= {PAPER['full']}",
                         ccsim=round(float(r.utilization), 4), ok=bool(r.utilization >= PAPER["full"]), source="paper"))
        if rate == t.index.get_level_values(0).min():
            out.append(Check(f"{tag}: goodput / payload share of the link throughput (reliability works fine)",
                             paper=f">= {PAPER['reliable_ok']}", ccsim=round(float(r.goodput_share), 4),
                             ok=bool(r.goodput_share >= PAPER["reliable_ok"]), source="paper"))
    rates = sorted(t.index.get_level_values(0).unique())
    if len(rates) > 1:
        for rtt in sorted(t.index.get_level_values(1).unique()):
            shares = [float(t.loc[(r, rtt)].goodput_share) for r in rates]
            out.append(Check(f"Fig 23, {rtt * 1000:.0f} ms: goodput share lower at every step from "
                             f"{rates[0] / 1e6:g} to {rates[-1] / 1e6:g} Mb/s (losses not recovered in time)",
                             paper="lower", ccsim=sequence(shares, ".4f"), ok=falls_pairwise(shares),
                             source="paper"))
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    fig, axes = grid(2, 2, figsize=(12, 7))
    f = a.fig22
    ax = axes[0][0]
    ax.plot(f["fs"]["time_s"], f["fs"]["rate_pps"], lw=0.6, label="rate x")
    ax.axhline(f["model"]["rate_pps"], color="gray", ls=":", lw=0.8, label="large-buffer equilibrium")
    style_axes(ax, "time (s)", "rate (pkt/s)", title=f"Fig 22: {f['setting'][0] / 1e6:g} Mb/s, buffer = BDP")
    ax = axes[0][1]
    ax.plot(f["ls"]["time_s"], f["ls"]["queue_pkts"], lw=0.5)
    style_axes(ax, "time (s)", "queue (packets)", legend=None, title="Fig 22: queue")
    ax = axes[1][0]
    ax.plot(f["ls"]["time_s"], f["ls"]["loss_rate"], lw=0.4, label="per 0.1 s")
    ax.plot(f["ls"]["time_s"], f["ls"]["cum_loss_rate"], lw=1.2, label="cumulative")
    ax.axhline(f["model"]["loss"], color="gray", ls=":", lw=0.8, label="equilibrium")
    ax.set_yscale("log")
    style_axes(ax, "time (s)", "loss rate", title="Fig 22: loss")
    ax = axes[1][1]
    t = a.table
    for rtt, g in t.groupby("rtt_s"):
        g = g.sort_values("rate_bps")
        ax.plot(g["rate_bps"], g["utilization"], "o-", ms=4, label=f"link, {rtt * 1000:.0f} ms")
        ax.plot(g["rate_bps"], g["goodput_utilization"], "s--", ms=4, label=f"goodput, {rtt * 1000:.0f} ms")
    ax.set_ylim(0, 1.05)
    style_axes(ax, "bottleneck (b/s)", "utilisation", xlog=True, title="Fig 23")
    return save(fig, out_dir, ID)
