"""``etcp-lossy-reverse``: E-TCP with a lossy reverse path (E-TCP paper
§III-B, §VI; setup: :mod:`ccsim.experiments.etcp`).

§VI lists "lossy reverse paths" among the settings studied but shows no
figure. The claim to test is §III-B's: every acknowledgement carries the
highest congestion sequence number received and a 32-bit bitmap of the 32
before it, so with independent Bernoulli losses "of less than 0.05" on the
forward and reverse paths a received sequence number goes unacknowledged
with probability below 1e-33. Lost ACKs must then not be taken for lost
data: the sender's loss estimate, and with it the window, should not move.

Setting (ours): the Fig 4 dumbbell at 100 Mb/s, RTT 100 ms (BDP 1,202
packets), one reliable E-TCP flow as in §VI-B, 300 s; independent
Bernoulli loss on the reverse bottleneck (``bottleneck_reverse_loss``, the
ACKs) of 0, 1%, 2% and 5%, the bound §III-B assumes. Steady state: the
last two thirds.

Checks (ccsim against ccsim):

* the sender's loss estimate against the forward bottleneck's loss rate at
  every reverse loss (2%): the estimate counts data losses only;
* the steady window, the forward loss and the goodput at each reverse loss
  against the lossless run (2%). Were every lost ACK read as a data loss,
  5% ACK loss would add 0.05 to the estimate (x6) and pull W from ~1,170
  to ~35, so 2% separates the outcomes by far; it allows the run-to-run
  noise of a 200 s mean of a window that relaxes within ~1 s.
* reliability: retransmissions per data packet sent against the forward
  loss rate (5%): a spurious retransmission per lost ACK would add up to
  5 points.

``--quick``: 20 s (steady state from 10 s), reverse loss 0 and 5%.
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
from . import SOURCE as _SOURCE, etcp_flow, etcp_scenario, steady_loss, steady_mean

ID = "etcp-lossy-reverse"
SOURCE = f"{_SOURCE}, §III-B / §VI (lossy reverse path)"
DESCRIPTION = "one E-TCP flow, 100 Mb/s, 100 ms, ACK loss 0-5%: loss estimate and window unaffected"

PAPER = {"max_reverse_loss": 0.05}  # §III-B: Bernoulli loss "of less than 0.05"

RATE, RTT = 100e6, 0.1


def duration(quick: bool) -> float:
    return 20.0 if quick else 300.0


def reverse_losses(quick: bool) -> List[float]:
    return [0.0, 0.05] if quick else [0.0, 0.01, 0.02, 0.05]


def scenarios(quick: bool) -> List[Sweep]:
    base = etcp_scenario("etcp-lossy-reverse", duration(quick), RATE, RTT, [etcp_flow("E-TCP")], sample_interval_s=0.1)
    losses = reverse_losses(quick)
    return [Sweep(base, [{"topology.bottleneck_reverse_loss": r} for r in losses], losses)]


def analyse(runs: Runs, quick: bool) -> Analysis:
    dur = duration(quick)
    t0 = dur / 2.0 if quick else dur / 3.0
    rows, series = [], {}
    for r, key in zip(runs.sweeps[0].labels, runs.df["key"]):
        res = runs.load(key)
        fs, ls = flow_series(res, 0), bottleneck_series(res)
        f = res.flows.iloc[0]
        rows.append({"reverse_loss": r, "window_mean": steady_mean(fs, "cwnd", t0),
                     "forward_loss": steady_loss(ls, t0),
                     "forward_loss_run": float(res.bottleneck()["loss_rate"]),
                     "loss_est": float(f.get("loss_est", math.nan)),
                     "goodput_bps": float(f["goodput_bps"]), "data_pkts_sent": int(f["data_pkts_sent"]),
                     "retransmits": int(f["retransmits"]), "timeouts": int(f["timeouts"])})
        series[r] = (fs, ls)
    table = pd.DataFrame(rows)
    table["retransmit_ratio"] = table["retransmits"] / table["data_pkts_sent"]
    return Analysis(table=table, series=series, t0=t0)


def checks(a: Analysis, quick: bool) -> List[Check]:
    t = a.table.set_index("reverse_loss")
    ref = t.loc[0.0]
    out: List[Check] = []
    for r, row in t.iterrows():
        tag = f"ACK loss {r:.0%}"
        out.append(Check(f"{tag}: sender's loss estimate vs forward bottleneck loss (whole run)",
                         paper=round(row.forward_loss_run, 6), ccsim=round(row.loss_est, 6), tolerance=0.02, source="consistency"))
        out.append(Check(f"{tag}: retransmissions per data packet vs forward bottleneck loss (whole run)",
                         paper=round(row.forward_loss_run, 6), ccsim=round(row.retransmit_ratio, 6), tolerance=0.05, source="consistency"))
        if r == 0.0:
            continue
        out.append(Check(f"{tag}: steady window vs lossless reverse path ({a.t0:g} s on)",
                         paper=round(ref.window_mean, 1), ccsim=round(row.window_mean, 1), tolerance=0.02, source="consistency"))
        out.append(Check(f"{tag}: steady forward loss vs lossless reverse path ({a.t0:g} s on)",
                         paper=round(ref.forward_loss, 6), ccsim=round(row.forward_loss, 6), tolerance=0.02, source="consistency"))
        out.append(Check(f"{tag}: goodput (Mb/s) vs lossless reverse path",
                         paper=round(ref.goodput_bps / 1e6, 3), ccsim=round(row.goodput_bps / 1e6, 3), tolerance=0.02, source="consistency"))
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    fig, axes = grid(1, 2, figsize=(12, 4))
    for r, (fs, ls) in a.series.items():
        axes[0][0].plot(fs["time_s"], fs["cwnd"], lw=0.6, label=f"ACK loss {r:.0%}")
        axes[0][1].plot(ls["time_s"], ls["cum_loss_rate"], lw=1.0, label=f"ACK loss {r:.0%}")
    style_axes(axes[0][0], "time (s)", "window (packets)", title="E-TCP, 100 Mb/s, 100 ms, lossy reverse path")
    axes[0][1].set_ylim(0, 0.05)
    style_axes(axes[0][1], "time (s)", "forward bottleneck loss, cumulative", title="forward loss")
    return save(fig, out_dir, ID)
