"""``etcp-fig15``: E-TCP paper Fig 15, two-way traffic (§VI-G; setup:
:mod:`ccsim.experiments.etcp`).

Setting (§VI-G): the Fig 4 dumbbell, RTT 50 ms, bottleneck 50 Mb/s to
1 Gb/s; 25 connections from the "R" side to the "S" side
(``direction = "reverse"``: their data share the reverse bottleneck queue
with the forward ACKs, and their ACKs the forward queue) and M = 1, 25 or
50 connections from S to R; E-TCP, NewReno and NewReno with pacing (both
directions run the same protocol; the paper does not say otherwise).
Utilisation = the M forward connections' total goodput / capacity.
Where the paper is silent: rates 50, 100, 250, 500 and 1000 Mb/s, starts
uniform in the first 100 ms (as §VI-C), 300 s (§VI-B's duration).

The paper: "When M=1, the single E-TCP connection maintains 80% link
utilization. When M=25 or M=50, the throughput of forward E-TCP
connections increases to more than 90% of the bottleneck link bandwidth";
"the performance of TCP NewReno drops quickly to less than 30% utilization
with increasing bottleneck bandwidth"; "this impact on E-TCP is the
smallest". Checks: E-TCP M = 1 at every rate against 0.80 (5%, as the
papers' goodputs elsewhere); E-TCP M = 25, 50 above 0.90 at every rate;
NewReno below 0.30 at 1 Gb/s for every M; E-TCP above paced NewReno (the
best of the TCPs in Fig 15) at every (M, rate).

``--quick``: 50 Mb/s, M = 1 and 25, E-TCP and paced NewReno, 10 s.

Why E-TCP's forward utilisation with M = 25, 50 falls with the rate
(:func:`two_way_model`, docs/decisions/2026-11-25-etcp-two-way-utilisation.md): each flow holds the loss
p = (p0 + 2/W)/(1 + p0 + 2/W) of its window, and W per flow grows with the
rate, so p falls towards p0 and the bottleneck is run less hard (one way
too: 25 flows, 0.959 -> 0.932 from 100 Mb/s to 1 Gb/s in the one-way
model). Two ways, each 20-packet queue also holds the other direction's
40-byte ACKs, one per data packet: they take 3.5% of the capacity and,
counted as packets, about half the places, so a queue reaches a given loss
at a lower data load. Near saturation (small windows, p of 8-21%) the
places hardly matter; as p nears p0 they do, and the forward share falls
towards the two-way value at p0, ~0.83, where one flow (M = 1) already is.
The model's values are in the table (``model_*``), not checked.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np
import pandas as pd

from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.figures import STYLE, grid, save, style_axes
from .._kit.ns2ref import figure_flow
from .._kit.setups import HEADER, MSS, PKT_BYTES, flow
from . import ETCP_P0, ETCP_STYLE, QUEUE_K, SOURCE as _SOURCE, capacity_pps, etcp_flow, etcp_point, etcp_scenario

ID = "etcp-fig15"
SOURCE = f"{_SOURCE}, Fig 15"
#: an ns-2 figure: its baselines run in ns-2 mode (package docstring)
NS2_FIGURE = True
DESCRIPTION = "two-way traffic: M = 1/25/50 forward flows against 25 reverse flows, 50 ms, 50 Mb/s-1 Gb/s"

PAPER = {"etcp_m1": 0.80, "etcp_many_above": 0.90, "newreno_below": 0.30}

RTT = 0.05
N_REVERSE = 25


def _arrivals_in_service(ld: float, la: float, ack_service: float):
    """P(j arrivals during one service) of a queue fed by Poisson data at
    ``ld`` and Poisson ACKs at ``la`` (per data service time), a service
    being a data packet's (1) or an ACK's (``ack_service``) in proportion."""
    total = ld + la

    def a(n: int) -> np.ndarray:
        j = np.arange(n)
        lg = np.array([math.lgamma(x + 1.0) for x in j])

        def pois(mu: float) -> np.ndarray:
            return np.exp(-mu + j * math.log(mu) - lg) if mu > 0 else (j == 0).astype(float)
        return (ld / total) * pois(total) + (la / total) * pois(total * ack_service)
    return a


def _direction(cap_pps: float, n: int, ack_rate: float, rtt_s: float, k: int, p0: float,
               ack_service: float) -> Tuple[float, float]:
    """One bottleneck direction of :func:`two_way_model`: the data rate (per
    data service time) at which ``n`` E-TCP flows' offered load gives back
    the loss that holds their window, with the other direction's ACKs
    arriving at ``ack_rate``. Returns (data rate, loss)."""
    from ...models.etcp import mg1k_state, window_at_loss

    def state(ld: float):
        rho = ld + ack_rate * ack_service
        st = mg1k_state(rho, k, _arrivals_in_service(ld, ack_rate, ack_service))
        return st, float(st[-1])

    if n == 0:
        return 0.0, state(0.0)[1] if ack_rate > 0 else 0.0
    lo, hi = 0.0, 10.0
    for _ in range(60):  # offered(ld) - ld is decreasing in ld
        ld = 0.5 * (lo + hi)
        st, p = state(ld)
        queued = float((st * np.arange(k + 1)).sum())
        sojourn = queued / (cap_pps * (ld + ack_rate) * (1.0 - p))  # Little, accepted packets
        offered = n * window_at_loss(p, p0) / (rtt_s + sojourn) / cap_pps
        lo, hi = (ld, hi) if offered > ld else (lo, ld)
    ld = 0.5 * (lo + hi)
    return ld, state(ld)[1]


def two_way_model(rate_bps: float, m: int, n_reverse: int = N_REVERSE, rtt_s: float = RTT,
                  k: int = QUEUE_K, p0: float = ETCP_P0) -> Dict[str, float]:
    """Equilibrium of ``m`` forward and ``n_reverse`` reverse E-TCP flows
    (window variant, ccsim's per-packet law, every flow of a direction at one
    window) on the two directions of a ``k``-place DropTail bottleneck that
    counts packets, as :func:`ccsim.models.etcp.equilibrium` one way. Each
    direction's queue is fed by its own data (Poisson, exponential pacing;
    service PKT_BYTES) and by the other direction's ACKs (HEADER bytes, one
    per data packet delivered there; taken as Poisson too, an approximation:
    in ccsim they are smoother and lose about half the data's rate), so it is
    an M/G/1/K queue with a two-point service time whose K places ACKs and
    data share. The two directions are solved in turn to a fixed point.
    Returns each direction's goodput utilisation (carried data x payload
    share) and loss. With ``n_reverse = 0`` the forward direction is the
    one-way M/D/1/K equilibrium."""
    cap = capacity_pps(rate_bps)
    ack_service = HEADER / PKT_BYTES
    fwd = rev = (0.0, 0.0)
    for _ in range(200):
        f = _direction(cap, m, rev[0] * (1.0 - rev[1]), rtt_s, k, p0, ack_service)
        r = _direction(cap, n_reverse, f[0] * (1.0 - f[1]), rtt_s, k, p0, ack_service)
        done = abs(f[0] - fwd[0]) < 1e-10 and abs(r[0] - rev[0]) < 1e-10
        fwd, rev = f, r
        if done:
            break
    share = MSS / PKT_BYTES
    return {"goodput_utilization": fwd[0] * (1.0 - fwd[1]) * share, "loss": fwd[1],
            "reverse_goodput_utilization": rev[0] * (1.0 - rev[1]) * share, "reverse_loss": rev[1]}


def settings(quick: bool):
    if quick:
        return [5e7], [1, 25], ["E-TCP", "NewReno+pacing"]
    return [5e7, 1e8, 2.5e8, 5e8, 1e9], [1, 25, 50], ["E-TCP", "NewReno", "NewReno+pacing"]


def duration(quick: bool) -> float:
    return 10.0 if quick else 300.0


def _flows(proto: str, m: int):
    spread = dict(start_s=0.0, start_spread_s=0.1)
    if proto == "E-TCP":
        return [etcp_flow("E-TCP", count=m, **spread), etcp_flow("E-TCP", count=N_REVERSE, direction="reverse", **spread)]
    # NewReno and paced NewReno in ns-2 mode, as every baseline (package docstring)
    return [figure_flow(flow(proto, count=m, rwnd_pkts=10_000_000, **spread)),
            figure_flow(flow(proto, count=N_REVERSE, direction="reverse", rwnd_pkts=10_000_000, **spread))]


def scenarios(quick: bool) -> List[Sweep]:
    rates, ms, protos = settings(quick)
    out = []
    for proto in protos:
        for m in ms:
            base = etcp_scenario("etcp-fig15", duration(quick), rates[0], RTT, _flows(proto, m))
            out.append(Sweep(base, [etcp_point(r, RTT) for r in rates], [(proto, m, r) for r in rates]))
    return out


def _model_columns(proto: str, m: int, rate: float) -> Dict[str, float]:
    """:func:`two_way_model`'s values for an E-TCP row (NaN for the others)."""
    keys = ("goodput_utilization", "reverse_goodput_utilization", "loss")
    mod = two_way_model(rate, m) if proto == "E-TCP" else {}
    return {f"model_{x}": float(mod.get(x, math.nan)) for x in keys}


def analyse(runs: Runs, quick: bool) -> Analysis:
    rows = []
    for s, df in zip(runs.sweeps, runs.frames):
        for (proto, m, rate), key in zip(s.labels, df["key"]):
            res = runs.load(key)
            fl = res.flows
            fwd, rev = fl[fl["entry"] == 0], fl[fl["entry"] == 1]
            rows.append({"protocol": proto, "M": m, "rate_bps": rate,
                         "goodput_utilization": float(fwd["goodput_bps"].sum()) / rate,
                         "reverse_goodput_utilization": float(rev["goodput_bps"].sum()) / rate,
                         "utilization": float(res.bottleneck()["utilization"]),
                         "loss_rate": float(res.bottleneck()["loss_rate"]),
                         "retransmits": int(fwd["retransmits"].sum()), "timeouts": int(fwd["timeouts"].sum()),
                         **_model_columns(proto, m, rate)})
    return Analysis(table=pd.DataFrame(rows))


def checks(a: Analysis, quick: bool) -> List[Check]:
    t = a.table
    u = t.set_index(["protocol", "M", "rate_bps"])["goodput_utilization"]
    out: List[Check] = []
    for (proto, m, rate), x in u.items():
        tag = f"M = {m}, {rate / 1e6:g} Mb/s"
        if proto == "E-TCP" and m == 1:
            out.append(Check(f"E-TCP, {tag}: forward goodput utilisation (§VI-G: 80%)", paper=PAPER["etcp_m1"],
                             ccsim=round(float(x), 4), tolerance=0.05, source="paper"))
        if proto == "E-TCP" and m > 1:
            out.append(Check(f"E-TCP, {tag}: forward goodput utilisation above 90% (§VI-G)",
                             paper=f"> {PAPER['etcp_many_above']}", ccsim=round(float(x), 4),
                             ok=bool(x > PAPER["etcp_many_above"]), source="paper"))
        if proto == "NewReno" and rate == t["rate_bps"].max():
            out.append(Check(f"NewReno, {tag}: below 30% (§VI-G)", paper=f"< {PAPER['newreno_below']}",
                             ccsim=round(float(x), 4), ok=bool(x < PAPER["newreno_below"]), source="paper"))
        if proto == "E-TCP" and ("NewReno+pacing", m, rate) in u.index:
            y = float(u[("NewReno+pacing", m, rate)])
            out.append(Check(f"E-TCP, {tag}: above paced NewReno (§VI-G: the impact on E-TCP is the smallest)",
                             paper=f"> {y:.4f}", ccsim=round(float(x), 4), ok=bool(x > y), source="paper"))
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    t = a.table
    ms = sorted(t["M"].unique())
    fig, axes = grid(1, len(ms), sharey=True)
    for ax, m in zip(axes[0], ms):
        for proto in t["protocol"].unique():
            s = t[(t["protocol"] == proto) & (t["M"] == m)].sort_values("rate_bps")
            ax.plot(s["rate_bps"], s["goodput_utilization"], (ETCP_STYLE.get(proto) or STYLE[proto]), label=proto, ms=4)
            if proto == "E-TCP" and "model_goodput_utilization" in s:
                ax.plot(s["rate_bps"], s["model_goodput_utilization"], "k--", lw=0.8, label="two-way model (E-TCP)")
        ax.axhline(PAPER["etcp_m1"] if m == 1 else PAPER["etcp_many_above"], color="gray", ls=":", lw=0.8,
                   label="paper (E-TCP)")
        ax.set_ylim(0, 1.05)
        style_axes(ax, "bottleneck (b/s)", "forward goodput / capacity", xlog=True, title=f"M = {m}")
    fig.suptitle("E-TCP paper Fig 15: two-way traffic, 25 reverse flows, RTT 50 ms")
    return save(fig, out_dir, ID)
