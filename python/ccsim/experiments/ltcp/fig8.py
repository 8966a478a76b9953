"""``ltcp-fig8``: one LTCP flow with a head start against ten TCP flows at
several link rates (LTCP paper Fig 8; setup: :mod:`ccsim.experiments.ltcp`).

Aggregate goodput of the ten TCP flows over [300, 600] s next to the LTCP
flow's. Model: synchronised-loss AIMD equilibrium
(:func:`ccsim.models.ltcp.mixed_equilibrium`: every overflow cuts every
flow, TCP x0.5, +1/RTT, LTCP x0.85, +K'/RTT). Checks: the paper's two
numbers (20%, see :func:`checks`), the paper's two trends (TCP aggregate
grows, TCP's share falls with the link rate). Ten TCP flows alone over the
same period are run for context. ``--quick``: 100 and 500 Mb/s, 60 s head
start and 60 s measured, no TCP-alone runs.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import List

import pandas as pd

from ...models.aimd import bdp_packets
from ...models.ltcp import mixed_equilibrium
from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.ns2ref import droptail_waiting
from .._kit.figures import grid, save
from . import (BETA, DEFAULT_BUFFER, EDGE_RATE, PAYLOAD, PKT_BYTES, RTT, SOURCE as _SOURCE, W_T, dumbbell, flow,
               scenario)

ID = "ltcp-fig8"
SOURCE = f"{_SOURCE}, Fig 8"
#: an ns-2 figure (§V-A): its TCP and LTCP flows run in ns-2 mode (package docstring)
NS2_FIGURE = True
DESCRIPTION = "one LTCP flow (300 s head start) vs ten TCP flows at several link rates"

PAPER = {500e6: 101.25, 1e9: 185.64}  # aggregate goodput of the ten TCP flows, Mb/s (read from Fig 8)
N_TCP = 10


def setting(quick: bool):
    """(rates, head start = measured period)."""
    return ([100e6, 500e6], 60.0) if quick else ([100e6, 500e6, 1e9, 2.4e9], 300.0)


def scenarios(quick: bool) -> List[Sweep]:
    rates, head = setting(quick)
    base = scenario("ltcp-fig8", 2 * head, dumbbell(1e9, droptail_waiting(DEFAULT_BUFFER)), [flow("LTCP")], warmup=head)
    mixes = {"LTCP+10TCP": [flow("LTCP"), flow("TCP", count=N_TCP, start_s=head)]}
    if not quick:
        mixes["10TCP alone"] = [flow("TCP", count=N_TCP, start_s=head)]
    points, labels = [], []
    for r in rates:
        for m, flows in mixes.items():
            pt = {"topology.bottleneck_rate_bps": r, "flows": flows}
            if r >= EDGE_RATE:
                # access link as slow as the bottleneck: the LTCP flow's
                # queue forms there (alone for 300 s), so it gets the
                # routers' default 6000 packets, not an unlimited queue
                pt["topology.edge_queue.limit_pkts"] = droptail_waiting(DEFAULT_BUFFER)
            points.append(pt)
            labels.append((r, m))
    return [Sweep(base, points, labels)]


def analyse(runs: Runs, quick: bool) -> Analysis:
    rows = []
    for (r, m), res in zip(runs.sweeps[0].labels, runs.results()):
        fl = res.flows
        tcp = fl[fl["cc"] == "reno"]["goodput_bps"].sum() / 1e6
        lt = fl[fl["cc"] == "ltcp"]["goodput_bps"].sum() / 1e6
        cap = r * PAYLOAD / 1e6
        _, k, share = mixed_equilibrium(N_TCP, bdp_packets(r, RTT, PKT_BYTES) + DEFAULT_BUFFER, W_T, BETA)
        rows.append({"rate_bps": r, "mix": m, "tcp_aggregate_mbps": tcp, "ltcp_mbps": lt,
                     "tcp_share": tcp / cap,
                     "paper_tcp_aggregate_mbps": PAPER.get(r, math.nan) if m != "10TCP alone" else math.nan,
                     "model_tcp_aggregate_mbps": share * cap if m != "10TCP alone" else math.nan,
                     "model_ltcp_layer_after_cut": k if m != "10TCP alone" else math.nan})
    t = pd.DataFrame(rows)
    return Analysis(table=t, mix=t[t["mix"] == "LTCP+10TCP"].sort_values("rate_bps"),
                    alone=t[t["mix"] == "10TCP alone"].sort_values("rate_bps"))


def checks(a: Analysis, quick: bool) -> List[Check]:
    mix = a.mix
    out: List[Check] = []
    for _, r in mix.iterrows():
        if r.rate_bps in PAPER:
            # 20%: the paper reports one run, averaged over 300 s that start
            # with ten simultaneous slow starts into a 6000-packet buffer; how
            # deep that first overflow cuts the TCP flows (and whether ns-2's
            # Sack1 times out) moves the 300 s average by tens of percent.
            out.append(Check(f"{r.rate_bps / 1e6:g} Mb/s: aggregate TCP goodput (Mb/s)",
                             paper=r.paper_tcp_aggregate_mbps, ccsim=round(r.tcp_aggregate_mbps, 2),
                             tolerance=0.20, source="paper", read_from="Fig 8"))
            # ccsim against the synchronised-AIMD model (the model against the
            # paper's number would be arithmetic on constants, unable to fail
            # for a reason in ccsim): same tolerance, same reasons
            out.append(Check(f"{r.rate_bps / 1e6:g} Mb/s: aggregate TCP goodput vs synchronised-AIMD model (Mb/s)",
                             paper=round(r.model_tcp_aggregate_mbps, 2), ccsim=round(r.tcp_aggregate_mbps, 2),
                             tolerance=0.20, source="model"))
    grows = bool((mix["tcp_aggregate_mbps"].diff().dropna() > 0).all())
    falls = bool((mix["tcp_share"].diff().dropna() < 0).all())
    out.append(Check("aggregate TCP goodput grows with the link rate", paper=True, ccsim=grows, ok=grows, source="paper"))
    out.append(Check("TCP share of the link falls as the link rate grows", paper=True, ccsim=falls, ok=falls, source="paper"))
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    mix, alone = a.mix, a.alone
    fig, axes = grid(1, 1, figsize=(6, 3.8))
    ax = axes[0][0]
    x = mix["rate_bps"] / 1e6
    ax.plot(x, mix["tcp_aggregate_mbps"], "o-", label="10 TCP (with LTCP), ccsim")
    ax.plot(x, mix["ltcp_mbps"], "s-", label="1 LTCP, ccsim")
    ax.plot(x, mix["model_tcp_aggregate_mbps"], ":", color="C0", label="10 TCP, sync. AIMD model")
    if len(alone):
        ax.plot(alone["rate_bps"] / 1e6, alone["tcp_aggregate_mbps"], "x--", color="grey", label="10 TCP alone")
    ax.plot([k / 1e6 for k in PAPER], list(PAPER.values()), "k^", label="paper, 10 TCP")
    ax.set_xlabel("bottleneck (Mb/s)")
    ax.set_ylabel("goodput over [head, 2 head] s (Mb/s)")
    ax.set_title("LTCP paper Fig 8: one LTCP vs ten TCP")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    return save(fig, out_dir, ID)
