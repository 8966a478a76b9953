"""``etcp-fig1``: E-TCP paper Fig 1, TCP's and E-TCP's link utilisation as
the per-connection throughput grows (§II, §III; no simulation).

The figure is the evolutionary model itself (:mod:`ccsim.models.etcp`):
1000-byte packets, RTT 100 ms, loss ``P_B(rho)`` of an M/M/1/B queue with
B = 20. A flow of throughput ``T`` packets/s holds ``W = T tau``; TCP
(``W = sqrt(2/p)``) needs ``P_B(rho) = 2/W^2`` and E-TCP (``W = 2/(p - p0)``,
p0 = 0.01) ``P_B(rho) = p0 + 2/W``. Solving each for ``rho`` gives the two
curves. ``rho`` is the offered load ``T g / c`` of eq. 3, as in the paper
(at p = p0 the carried load is ``rho (1 - p0)``, 0.871).

The paper's x-axis range is not given; the curves are drawn from 1 Mb/s to
10 Gb/s of throughput (the experiments of §VI span 100 kb/s to 5 Gb/s of
capacity), where TCP's window runs from 12.5 to 125,000 packets.

Checks (all of them model against paper text; nothing is simulated):

* Fig 1 / §III: E-TCP's utilisation "converges to 88%": the limit
  ``P_B^-1(p0)``, and the model at 10 Gb/s; tolerance 0.005, half the
  percent the paper rounds to.
* §III: "a link utilization of 90% implies a packet loss probability of
  0.01": ``P_B(0.9)``, tolerance 0.005, half of the one significant digit
  stated.
* Fig 1: TCP's utilisation "quickly drops under 50% as its throughput
  increases": at 1 Gb/s (§VI's headline rate), and the throughput at which
  it crosses 50% is tabulated.

``--quick`` is the same computation.
"""

from __future__ import annotations

from pathlib import Path
from typing import List

import numpy as np
import pandas as pd

from ...models.etcp import FIG1_BUFFER, P0, invert_loss, mm1k_loss, tcp_window, utilisation_for_throughput
from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.figures import grid, save, style_axes
from . import SOURCE as _SOURCE

ID = "etcp-fig1"
SOURCE = f"{_SOURCE}, Fig 1"
DESCRIPTION = "M/M/1/B model (B = 20): TCP's utilisation falls as throughput grows, E-TCP's converges to 88%"

PAPER = {
    "etcp_limit": 0.88,      # Fig 1 caption, §III: "converges to 88%"
    "tcp_below": 0.5,        # Fig 1 caption, §III: "quickly drops under 50%"
    "rho_90_loss": 0.01,     # §III: utilisation 90% implies loss 0.01 (B = 20)
}

PACKET_BYTES = 1000  # Fig 1: "the packet size is 1000 byte"
RTT_S = 0.1
#: Throughputs drawn (b/s per connection).
THROUGHPUTS = np.logspace(6, 10, 81)


def scenarios(quick: bool) -> List[Sweep]:
    return []


def _rho(t_bps: float, protocol: str) -> float:
    return utilisation_for_throughput(t_bps / (8.0 * PACKET_BYTES), RTT_S, protocol, buffer=FIG1_BUFFER,
                                      loss=lambda r: mm1k_loss(r, FIG1_BUFFER))


def analyse(runs: Runs, quick: bool) -> Analysis:
    rows = []
    for t in THROUGHPUTS:
        w = t / (8.0 * PACKET_BYTES) * RTT_S
        rows.append({"throughput_bps": float(t), "window_pkts": w, "rho_tcp": _rho(t, "tcp"),
                     "rho_etcp": _rho(t, "etcp"), "loss_tcp": 2.0 / (w * w), "loss_etcp": P0 + 2.0 / w})
    table = pd.DataFrame(rows)
    limit = invert_loss(P0, lambda r: mm1k_loss(r, FIG1_BUFFER))
    # TCP crosses 50% where P_B(0.5) = 2 / W^2
    w_half = tcp_window(mm1k_loss(0.5, FIG1_BUFFER))
    return Analysis(table=table, etcp_limit=limit, etcp_top=_rho(THROUGHPUTS[-1], "etcp"),
                    tcp_gigabit=_rho(1e9, "tcp"), tcp_half_bps=w_half / RTT_S * 8.0 * PACKET_BYTES,
                    loss_at_90=mm1k_loss(0.9, FIG1_BUFFER))


def checks(a: Analysis, quick: bool) -> List[Check]:
    return [
        Check("E-TCP utilisation limit as throughput grows, P_B^-1(p0) (model vs Fig 1)",
              paper=PAPER["etcp_limit"], ccsim=round(a.etcp_limit, 4), relative=False, tolerance=0.005, source="paper"),
        Check(f"E-TCP utilisation at {THROUGHPUTS[-1] / 1e9:g} Gb/s per connection (model vs Fig 1)",
              paper=PAPER["etcp_limit"], ccsim=round(a.etcp_top, 4), relative=False, tolerance=0.005, source="paper"),
        Check("loss P_B(0.9) of the M/M/1/B queue, B = 20 (model vs §III)",
              paper=PAPER["rho_90_loss"], ccsim=round(a.loss_at_90, 5), relative=False, tolerance=0.005, source="paper"),
        Check(f"TCP utilisation at 1 Gb/s per connection below 50% (model vs Fig 1; crosses 50% at "
              f"{a.tcp_half_bps / 1e6:.0f} Mb/s)",
              paper=f"< {PAPER['tcp_below']}", ccsim=round(a.tcp_gigabit, 4), ok=a.tcp_gigabit < PAPER["tcp_below"], source="paper"),
    ]


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    fig, axes = grid(1, 1, panel=(6.0, 4.2))
    ax = axes[0][0]
    t = a.table
    ax.plot(t["throughput_bps"], t["rho_tcp"], "-", label="TCP, W = sqrt(2/p)")
    ax.plot(t["throughput_bps"], t["rho_etcp"], "-", label="E-TCP, W = 2/(p - p0)")
    ax.axhline(a.etcp_limit, color="gray", ls=":", lw=0.8, label=f"P_B^-1(p0) = {a.etcp_limit:.3f}")
    ax.axhline(PAPER["etcp_limit"], color="C1", ls="--", lw=0.6, label="paper: 88%")
    ax.axhline(PAPER["tcp_below"], color="C0", ls="--", lw=0.6, label="paper: under 50%")
    ax.set_ylim(0, 1.05)
    style_axes(ax, "throughput per connection (b/s)", "link utilisation rho", xlog=True,
               title="Fig 1: M/M/1/B (B = 20), 1000 B packets, RTT 100 ms")
    return save(fig, out_dir, ID)
