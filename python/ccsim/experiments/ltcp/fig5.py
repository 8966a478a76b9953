"""``ltcp-fig5``: cwnd of one LTCP flow vs one TCP flow, 1 Gb/s, RTT 70 ms,
6000-packet buffer (LTCP paper Fig 5; setup: :mod:`ccsim.experiments.ltcp`).

Fig 5 is a plot; the text states that after a loss TCP "takes over 600
seconds more than an LTCP flow to recover", because TCP halves and climbs
one packet per RTT while LTCP cuts by beta = 0.15 and climbs K per RTT.
Checked: LTCP's climb of K packets per RTT in each layer visited, the cuts
(x0.85 for LTCP, x0.5 for TCP), the window at each loss (= pipe + buffer),
recovery times against the layer model with the queue-stretched RTT
(:func:`ccsim.models.ltcp.climb_time_s`), and the 600 s statement.

Full: 1500 s (TCP's one-per-RTT climb from 7,200 to 14,400 packets takes
about 650 s, so two of its cuts fit); ``--quick``: 500 Mb/s, buffer 3000,
70 s (a few LTCP cycles; no TCP cut, so the TCP recovery checks show NaN).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Dict, List

import pandas as pd

from ...models.aimd import bdp_packets
from ...models.ltcp import climb_time_s, layer_of, layer_window
from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.ns2ref import droptail_waiting
from .._kit.analysis import flow_series, nanmedian, window_cuts
from .._kit.figures import grid, style_axes, save
from . import BETA, DEFAULT_BUFFER, PKT_BYTES, PROTOS, RTT, SOURCE as _SOURCE, W_T, dumbbell, flow, scenario

ID = "ltcp-fig5"
SOURCE = f"{_SOURCE}, Fig 5"
#: an ns-2 figure (§V-A): its TCP and LTCP flows run in ns-2 mode (package docstring)
NS2_FIGURE = True
DESCRIPTION = "cwnd of one LTCP flow vs one TCP flow, 1 Gb/s, RTT 70 ms, 6000-packet buffer"

PAPER = {"tcp_extra_recovery_s": 600}  # TCP "takes over 600 seconds more than an LTCP flow to recover"


def setting(quick: bool):
    """(rate, buffer, duration)."""
    return (500e6, 3000, 70.0) if quick else (1e9, DEFAULT_BUFFER, 1500.0)


def scenarios(quick: bool) -> List[Sweep]:
    rate, buf, duration = setting(quick)
    base = scenario("ltcp-fig5", duration, dumbbell(rate, droptail_waiting(buf)), [flow("TCP")], sample=0.1)
    return [Sweep(base, [{"flows": [flow(p)]} for p in PROTOS], PROTOS)]


def climb_rates(g, events: List[int], ltcp: bool) -> Dict[int, List[float]]:
    """Window growth per measured RTT between consecutive samples in
    congestion avoidance, grouped by the layer the window is in (TCP: 1):
    (cwnd[i+1] - cwnd[i]) / dt * srtt."""
    t, c, s, r = (g[k].to_numpy() for k in ("time_s", "cwnd", "ssthresh", "srtt_s"))
    near = set()
    for e in events:  # the recovery around a cut is not the climb
        near.update(range(e - 1, e + 3))
    out: Dict[int, List[float]] = {}
    for i in range(len(g) - 1):
        if i in near or i + 1 in near or s[i] != s[i + 1] or s[i] > 1e8 or c[i] < s[i] or c[i + 1] <= c[i]:
            continue
        k = layer_of(c[i], W_T) if ltcp else 1
        if ltcp and layer_of(c[i + 1], W_T) != k:
            continue
        out.setdefault(k, []).append((c[i + 1] - c[i]) / (t[i + 1] - t[i]) * 0.5 * (r[i] + r[i + 1]))
    return out


def recoveries(g, events: List[int]) -> List[float]:
    """Seconds from each cut until cwnd first regains its value before the
    cut. Successive losses come at windows a few packets apart (the overshoot
    in the RTT before a loss is detected), so "regains" means to within 0.1%
    (14 packets at 14,400: about one RTT of LTCP growth); otherwise a cycle
    whose peak is 5 packets under the previous one would count as not
    recovered until a later cycle."""
    t, c = g["time_s"].to_numpy(), g["cwnd"].to_numpy()
    out = []
    for e in events:
        peak = 0.999 * c[e - 1]
        j = next((j for j in range(e, len(c)) if c[j] >= peak), None)
        out.append(t[j] - t[e] if j is not None else math.nan)
    return out


def analyse(runs: Runs, quick: bool) -> Analysis:
    rate, buf, _ = setting(quick)
    bdp = bdp_packets(rate, RTT, PKT_BYTES)
    w_max = bdp + droptail_waiting(buf)  # the window at which the DropTail buffer overflows
    rows, series, rates = [], {}, {}
    for proto, res in zip(PROTOS, runs.results()):
        g = flow_series(res, 0)
        series[proto] = g
        ltcp = proto == "LTCP"
        ev = window_cuts(g)
        cut = [g["ssthresh"][e] / g["cwnd"][e - 1] for e in ev]
        peaks = [g["cwnd"][e - 1] for e in ev]
        rec = recoveries(g, ev)
        rates[proto] = climb_rates(g, ev, ltcp)
        beta = BETA if ltcp else 0.5
        model_rec = climb_time_s((1 - beta) * w_max, w_max, bdp, RTT,
                                 (lambda w: layer_of(w, W_T)) if ltcp else (lambda w: 1.0))
        rows.append({"protocol": proto, "cuts": len(ev), "median_cut_ratio": nanmedian(cut),
                     "median_peak_cwnd": nanmedian(peaks), "model_peak_cwnd": w_max,
                     "median_recovery_s": nanmedian(rec), "model_recovery_s": model_rec,
                     **{f"climb_per_rtt_K{k}": nanmedian(v) for k, v in sorted(rates[proto].items())}})
    return Analysis(table=pd.DataFrame(rows), rows=rows, rates=rates, series=series, w_max=w_max,
                    rate=rate, buf=buf)


def checks(a: Analysis, quick: bool) -> List[Check]:
    out = []
    for row in a.rows:
        proto = row["protocol"]
        beta = BETA if proto == "LTCP" else 0.5
        # Climb: per ACK +K/cwnd is exactly K per window of ACKs, and a window
        # of ACKs takes one RTT (the ACK clock); srtt lags a growing RTT by
        # well under 1%. 3% covers that and the floating-point sample steps.
        for k, v in sorted(a.rates[proto].items()):
            if len(v) >= 5:
                out.append(Check(f"{proto}: window growth per RTT in layer K={k} (model: K)",
                                 paper=k, ccsim=round(nanmedian(v), 3), tolerance=0.03, source="model"))
        # Cut: ssthresh / cwnd sampled <= 0.1 s (about one RTT, +K packets of
        # ~14,000) before the loss; 1% covers that.
        out.append(Check(f"{proto}: cwnd after a loss / before (1 - beta)", paper=1 - beta,
                         ccsim=round(row["median_cut_ratio"], 4), tolerance=0.01, source="model"))
        # Peak: the buffer overflows at pipe + buffer; the window overshoots by
        # the packets added in the RTT before the loss is detected (<= 2K).
        w_max = row["model_peak_cwnd"]
        out.append(Check(f"{proto}: cwnd at a loss vs pipe + buffer = {w_max:.0f} pkts", paper=round(w_max),
                         ccsim=round(row["median_peak_cwnd"], 1), tolerance=0.01, source="model"))
        # Recovery: the model integrates K(w) per RTT with RTT = 70 ms x
        # max(1, w/BDP); it ignores the ~1 RTT of fast recovery itself.
        out.append(Check(f"{proto}: recovery time after a loss, s (layer model, queue-stretched RTT)",
                         paper=round(row["model_recovery_s"], 1), ccsim=round(row["median_recovery_s"], 1),
                         tolerance=0.10, source="model"))
    by = {r["protocol"]: r for r in a.rows}
    diff = by["TCP"]["median_recovery_s"] - by["LTCP"]["median_recovery_s"]
    bound = PAPER["tcp_extra_recovery_s"]
    out.append(Check(f"TCP needs over {bound} s more than LTCP to recover from a loss (s)", paper=f"> {bound}",
                     ccsim=round(diff, 1) if not math.isnan(diff) else diff,
                     ok=bool(not math.isnan(diff) and diff > bound), source="paper"))
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    fig, axes = grid(1, 1, figsize=(7, 4))
    ax = axes[0][0]
    for proto, g in a.series.items():
        ax.plot(g["time_s"], g["cwnd"], lw=0.8, label=f"{proto} (ccsim)")
    for k in range(2, 14):
        if layer_window(k, W_T) <= a.w_max:
            ax.axhline(layer_window(k, W_T), color="grey", lw=0.4, ls=":")
    ax.axhline(a.w_max, color="k", lw=0.6, ls="--", label="pipe + buffer")
    style_axes(ax, "time (s)", "cwnd (packets)", title=f"LTCP paper Fig 5: {a.rate / 1e6:g} Mb/s, RTT 70 ms, buffer {a.buf} (dotted: layers W_K)", legend=8)
    return save(fig, out_dir, ID)
