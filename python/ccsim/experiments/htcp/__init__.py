"""H-TCP paper (Leith & Shorten, "H-TCP: TCP for high-speed and
long-distance networks", PFLDnet 2004) experiments.

The paper's figures are ns-2 time histories; its text states the network
(bottleneck rate, "delay", queue), the protocol parameters, and what each
figure shows. Everything else is a choice made here, the same for all six
experiments unless stated:

* **"100ms delay"** is read as the round-trip propagation delay (``rtt_s``
  of each flow, the paper's ``T_d``): §2 measures time in RTTs and calls
  ``T_d`` "the round-trip time when the queue is empty". (The other reading,
  100 ms one way, would double every BDP; it is not run.)
* **"queue 40 packets"** (each caption's queue) is ns-2's DropTail
  ``queue-limit 40``: 39 waiting behind the one being sent
  (:func:`.._kit.ns2ref.droptail_waiting`;
  docs/decisions/2026-11-26-papers-buffers-as-ns2-queue-limit.md). The models (full-queue RTT, ``T_d + q_max/C``, the window at
  overflow, BDP + q_max) take the waiting count, the queue ccsim runs.
* Packets: ns-2 defaults, 1000-byte payload plus 40 bytes of header (1040 on
  the wire); one ACK per segment; initial window 2 (both also part of ns-2
  mode, below).
* Loss recovery: SACK; the paper does not name its ns-2 TCP agent, and
  ns-2's SACK agent is ``TCP/Sack1`` (``recovery = "sack1"`` in ns-2 mode,
  below). It sets cwnd to ssthresh at the start of recovery with no
  inflation, so the cwnd series shows each backoff as one clean drop.
* ns-2 mode (:func:`tcp_flow`, i.e. :func:`.._kit.ns2ref.figure_flow`):
  every figure is an ns-2 simulation ("NS simulation" in the captions of
  Figs 2, 3, 10 and 11, "NS packet-level simulation" in Fig 3's, "NS
  simulation result" in Fig 6's key, "network simulation parameters" in
  Fig 14's; Figs 12-13 run Fig 14's network), so every flow, H-TCP and
  standard TCP alike (H-TCP changes only the window's increase and
  backoff, §3.4 "minor modifications to the existing TCP congestion control
  algorithm"), runs with ns-2.35's RTT estimator and RTO, its SYN
  start-up, ``windowInit_ 2``, Limited Transmit, ``bugFix_``, the
  repeated-timeout halving and ``TCP/Sack1``'s recovery.
* Sampling: flow series every 10 ms (at most 1/10 of an RTT).
* Fixed AIMD(alpha, beta) sources (Figs 2, 3, 6) are the ``htcp``
  controller with ``adaptive_backoff = false``, ``fixed_beta = beta`` and
  ``delta_l_s = 1e6`` (Delta never reaches Delta_L, so alpha_H = 1): it then
  adds ``alpha = 2 (1 - beta)`` packets per RTT (eq. 24), exactly the
  TCP-friendly AIMD of §2 (i). Where an alpha other than ``2 (1 - beta)`` is
  needed, ``rtt_scaling = true`` multiplies it by ``RTT_min / rtt_ref_s``;
  ``rtt_ref_s`` is set to the flow's empty-queue RTT (propagation plus
  serialisation) divided by the wanted factor, and every such flow starts
  on an empty queue so that its RTT_min is that RTT.

Congestion events are measured from the cwnd series, as the engine does not
report them: a **backoff** of a flow is a sample whose cwnd is below the
previous sample's (drops within two full-queue RTTs are one backoff, e.g.
a timeout during recovery). The window before it, ``w_i``, is the previous
sample; the backoff factor is ``beta = ssthresh / w_i`` (the ssthresh the
controller set, which with SACK is the cwnd right after the drop, i.e.
"cwnd after / cwnd before"). Backoffs that end slow start (cwnd < ssthresh
before the drop) are marked: there cwnd doubles per RTT, so a 10 ms sample
can miss up to a quarter of the window and their beta is not used. A
**network congestion event** ``k`` is a cluster of backoffs (of any flows)
within two full-queue RTTs; ``w_i(k)`` is flow ``i``'s window just before
its own backoff, or just before the event if it did not back off.
**Epochs to converge** are counted as in :mod:`ccsim.models.htcp`: from the
first event after the newest flow has left slow start (``k = 0``), the first
``k`` with the L1 distance of the window shares to the final shares at most
5% of its value at ``k = 0`` (95% of the way to "the final network state",
the paper's rise time). The final shares are the Perron vector for the
model and, for a simulation, the mean shares over the last third of its
events.

Experiments, one module each: :mod:`.fig2` (``htcp-fig2``), :mod:`.model`
(``htcp-model``), :mod:`.fig10`, :mod:`.fig11`, :mod:`.fig12_13`
(``htcp-fig12-13``) and :mod:`.fig14`. Backoffs and congestion events are
:func:`ccsim.experiments._kit.analysis.backoffs` and
:func:`~ccsim.experiments._kit.analysis.congestion_events`.
"""

from __future__ import annotations

import math
from typing import List, Optional, Sequence

import numpy as np
import pandas as pd

from ...models import htcp as M
from .._kit.ns2ref import figure_flow
from .._kit.setups import HEADER as HDR, PKT_BYTES, dumbbell as _dumbbell, flow as _flow, scenario

SOURCE = "H-TCP (Leith & Shorten, PFLDnet 2004)"
EDGE_BPS = 100e9
SAMPLE_S = 0.01
SETTLE = 0.95  # rise time: 95% of the way to the fixed point (paper §2 (ii))
#: controller -> the kit's protocol table (standard TCP is Reno + SACK)
AGENT = {"htcp": "H-TCP", "reno": "Sack1"}


def dumbbell(name: str, rate_bps: float, queue_pkts: int, duration_s: float, flows: List[dict],
             warmup_s: float = 0.0) -> dict:
    """One bottleneck, 100 Gb/s edge links, flow series every 10 ms."""
    return scenario(name, duration_s, _dumbbell(rate_bps, queue_pkts, edge_rate_bps=EDGE_BPS), flows,
                    warmup_s=warmup_s, sample_interval_s=SAMPLE_S)


def base_rtt_s(rtt_s: float, rate_bps: float) -> float:
    """Empty-queue RTT: propagation plus serialisation of a data packet and
    its ACK on the bottleneck and on the two edge links each way."""
    per_bit = 1.0 / rate_bps + 2.0 / EDGE_BPS
    return rtt_s + (PKT_BYTES + HDR) * 8.0 * per_bit


def bdp_pkts(rate_bps: float, rtt_s: float) -> float:
    return rate_bps * rtt_s / (8.0 * PKT_BYTES)


def full_rtt_s(rtt_s: float, rate_bps: float, queue_pkts: int) -> float:
    return base_rtt_s(rtt_s, rate_bps) + queue_pkts * PKT_BYTES * 8.0 / rate_bps


def tcp_flow(cc: str = "htcp", start_s: float = 0.0, rtt_s: float = 0.1, **cc_params) -> dict:
    """An H-TCP (``cc="htcp"``) or standard TCP (``cc="reno"``) flow with
    SACK, in ns-2 mode (module docstring)."""
    return figure_flow(_flow(AGENT[cc], cc_params or None, rtt_s=rtt_s, start_s=start_s))


def aimd_flow(alpha: float, beta: float, rate_bps: float, start_s: float = 0.0, rtt_s: float = 0.1) -> dict:
    """A fixed AIMD(alpha, beta) source from the htcp controller (module
    docstring): alpha = 2 (1 - beta) m, m from RTT scaling when m != 1."""
    m = alpha / (2.0 * (1.0 - beta))
    params = {"delta_l_s": 1e6, "adaptive_backoff": False, "fixed_beta": beta}
    if abs(m - 1.0) > 1e-12:
        if not 0.5 <= m <= 10.0:
            raise ValueError(f"AIMD({alpha}, {beta}) needs an RTT-scaling factor {m:.3g} outside [0.5, 10]")
        params.update(rtt_scaling=True, rtt_ref_s=base_rtt_s(rtt_s, rate_bps) / m)
    return tcp_flow("htcp", start_s, rtt_s, **params)


def windows(ev: pd.DataFrame, n: int) -> np.ndarray:
    """w<i> columns of congestion events as an (events, n) array."""
    return ev[[f"w{i}" for i in range(n)]].to_numpy(dtype=float)


def drops(ev: pd.DataFrame, n: int) -> np.ndarray:
    """drop<i> columns of congestion events as an (events, n) bool array."""
    return ev[[f"drop{i}" for i in range(n)]].to_numpy(dtype=bool)


def second_flow_events(res, t2: float, rtt_s: float, rate_bps: float, queue_pkts: int):
    """Back-offs and congestion events of a two-flow run whose second flow
    starts at ``t2``, and when the second flow left slow start (``t2`` if it
    never backed off in slow start): ``(bo, ev, after_s)``."""
    from .._kit.analysis import backoffs, congestion_events

    gap = 2 * full_rtt_s(rtt_s, rate_bps, queue_pkts)
    bo = backoffs(res, gap)
    ev = congestion_events(res, bo, [0.0, t2], gap)
    ss_exit = bo[(bo.flow == 1) & bo.slow_start].time_s
    after = float(ss_exit.iloc[0]) if len(ss_exit) else t2
    return bo, ev, after


def plot_distance(ax, d, references) -> None:
    """Distance to the final shares per epoch, relative to the first, on a
    log axis, with reference decays ``(ratio, style, label)`` as ratio^k."""
    if len(d):
        kk = np.arange(len(d))
        ax.semilogy(kk, d / d[0], "o-", label="ccsim")
        for ratio, style, label in references:
            ax.semilogy(kk, ratio ** kk, style, label=label)
        ax.axhline(1 - SETTLE, color="gray", lw=0.8)
    ax.set_xlabel("congestion epoch k after flow 2 leaves slow start")
    ax.set_ylabel("distance to fair shares / initial")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)


def convergence(ev: pd.DataFrame, n: int, after_s: float, target: Optional[Sequence[float]] = None) -> dict:
    """Convergence after ``after_s`` (events strictly later, all flows
    present). The paper's rise time counts epochs "until the network
    dynamics have converged to 95% of the final network state"; the final
    state is ``target`` if given, else the mean shares over the last third of
    these events (a run settles at a share a little off the Perron vector,
    and measuring from that is what makes the count independent of it).
    Returns the share distance d(k), epochs to 95% (first passage, as
    :func:`ccsim.models.htcp.epochs_to_converge`), the mean contraction per
    epoch while d falls to 20% of d(0), (d(K)/d(0))^(1/K), and the final
    shares."""
    e = ev[(ev["time_s"] > after_s)].dropna(subset=[f"w{i}" for i in range(n)])
    w = windows(e, n)
    if len(w) < 3:
        return {"epochs": None, "lambda_hat": math.nan, "d": np.array([]), "w0": None, "t0": math.nan,
                "times": np.array([]), "final": None}
    s = w / w.sum(axis=1, keepdims=True)
    final = np.asarray(target, dtype=float) if target is not None else s[-max(1, len(s) // 3):].mean(axis=0)
    d = np.abs(s - final).sum(axis=1)
    k = M.epochs_to_converge(w, final, SETTLE)
    # Contraction per epoch over the first part of the decay only (down to
    # 20% of d(0)), where d is far above the run's residual wobble.
    k20 = M.epochs_to_converge(w, final, 0.8)
    lam = (d[k20] / d[0]) ** (1.0 / k20) if k20 and d[0] > 0 and d[k20] > 0 else math.nan
    return {"epochs": k, "lambda_hat": lam, "d": d, "w0": w[0], "t0": float(e["time_s"].iloc[0]),
            "times": e["time_s"].to_numpy(), "final": final}
