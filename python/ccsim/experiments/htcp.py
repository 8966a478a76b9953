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
* Packets: ns-2 defaults, 1000-byte payload plus 40 bytes of header (1040 on
  the wire); one ACK per segment; initial window 2.
* Loss recovery: SACK (``recovery = "sack"``, RFC 6675); the paper does
  not name its ns-2 TCP agent. SACK sets cwnd to ssthresh at the start of
  recovery with no inflation, so the cwnd series shows each backoff as one
  clean drop.
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

Experiments:

``htcp-fig2``: two AIMD sources with ``alpha = 2 (1 - beta)``, 10 Mb/s,
100 ms, 40-packet queue. The text does not give the two sources' (alpha,
beta) (the figure legend is not part of it), so two pairs are run: standard
TCP (1, 0.5) against (1.5, 0.25), which keeps the §2 assumption
``alpha_i >= 1``, and against (0.4, 0.8), H-TCP's largest backoff factor
(§3.4 Comment 1). The second source starts at 20 s; statistics use events
after 60 s of a 400 s run.

``htcp-model``: eq. 6 and the rise time. (A) Fig 3: two AIMD(1, 0.5)
sources, 10 Mb/s, 100 ms, 40 packets; the second starts at 30 s directly in
congestion avoidance (``init_ssthresh_pkts = 2``) so that the transient is
the pure AIMD map the model describes, not a slow-start overshoot; 300 s. (B)
Theorem 2.1 with four sources of different (alpha, beta) on the same
network: (1, 0.5), (2, 0.5), (1, 0.75), (1.5, 0.25), whose Perron shares are
1/6, 1/3, 1/3, 1/6. (C) Figs 6-7, the unsynchronised model (13): the Fig 5 topology is
not described in the text; three standard TCP flows (``cc = "reno"``) with
round-trip times 100, 150, 200 ms share the Fig 3 bottleneck, so the
effective increase rates ``alpha_bar_i ~ alpha_i / T_i`` differ and drops are
not synchronised. "Analytic prediction" (o) is the Perron vector with
``alpha_bar_i = 1 / T_i`` (§2.1's small-buffer simplification); the
"unsynchronised model" (.) is the Perron vector of the expected matrix
``E[A]`` with each flow's measured drop frequency and
``alpha_bar_i = 1 / mean(srtt_i)``. (B) and (C) start all flows within the
first second, run 400 s and 600 s, and average the events after 60 s.

``htcp-fig10``: two H-TCP flows, 500 Mb/s, 100 ms, 500 packets, second
starting at 30 s of 120 s. The caption compares with "the rise-time
analysis for beta_i = 0.5" and the figure precedes adaptive backoff (§3.2),
so both flows use beta = 0.5 (``adaptive_backoff = false``).

``htcp-fig11``: H-TCP and standard TCP (``cc = "reno"``), 5 Mb/s, 100 ms,
44 packets, H-TCP parameters from the caption: alpha_L = 1, beta = 0.5,
Delta_L = 19, alpha_H = 20. The controller implements §3.4, whose alpha_H
is eq. 17, not a constant 20; that parameter is not expressible. The caption
gives no unit for Delta_L = 19; §3.4 measures Delta in seconds, which is
what is run (primary). The run then checks that no H-TCP epoch reaches
19 s, i.e. the high-speed mode (where alpha_H would matter) is never
entered. Two sensitivity runs, not paper claims, are tabulated: Delta_L =
1.9 s (19 RTTs) and 1 s (the Linux and controller default). TCP starts 1 s
after H-TCP; 600 s, the first 60 s excluded.

``htcp-fig12-13``: the captions give no network; the text's setting is "a
small queue", and the same section's Fig 14 uses 20 Mb/s, 100 ms, 50
packets (a fifth of the BDP), used here. Two H-TCP flows (second at 10 s),
beta = 0.5 fixed (Fig 12) vs the full §3.4 algorithm (Fig 13); 300 s, the
first 60 s excluded. The fluid model
:func:`ccsim.models.htcp.sync_htcp_epoch` predicts each utilisation.

``htcp-fig14``: the full §3.4 H-TCP (adaptive backoff and reset), 20 Mb/s,
100 ms, 50 packets; flow 1 alone until flow 2 starts at 40 s of 120 s. The
backoff factor comes from the cwnd series as above.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from ..models import htcp as model
from ..plots import pyplot, save_figure
from ..results import Results
from ..sweep import load_run, sweep, write_table
from . import Check, register

PAPER = "H-TCP (Leith & Shorten, PFLDnet 2004)"
MSS, HDR = 1000, 40
PKT_BYTES = MSS + HDR
EDGE_BPS = 100e9
SAMPLE_S = 0.01
SETTLE = 0.95  # rise time: 95% of the way to the fixed point (paper §2 (ii))


# -- scenarios -----------------------------------------------------------------

def dumbbell(name: str, rate_bps: float, queue_pkts: int, duration_s: float, flows: List[dict],
             warmup_s: float = 0.0) -> dict:
    return {
        "name": name,
        "duration_s": duration_s,
        "warmup_s": warmup_s,
        "sample_interval_s": SAMPLE_S,
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate_bps": rate_bps,
            "bottleneck_queue": {"kind": "droptail", "limit_pkts": queue_pkts},
            "edge_rate_bps": EDGE_BPS,
        },
        "flows": flows,
    }


def base_rtt_s(rtt_s: float, rate_bps: float) -> float:
    """Empty-queue RTT: propagation plus serialisation of a data packet and
    its ACK on the bottleneck and on the two edge links each way."""
    per_bit = 1.0 / rate_bps + 2.0 / EDGE_BPS
    return rtt_s + (PKT_BYTES + HDR) * 8.0 * per_bit


def bdp_pkts(rate_bps: float, rtt_s: float) -> float:
    return rate_bps * rtt_s / (8.0 * PKT_BYTES)


def tcp_flow(cc: str = "htcp", start_s: float = 0.0, rtt_s: float = 0.1, **cc_params) -> dict:
    f = {"cc": cc, "recovery": "sack", "mss_bytes": MSS, "header_bytes": HDR, "rtt_s": rtt_s,
         "start_s": start_s}
    if cc_params:
        f["cc_params"] = cc_params
    return f


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


def _run(base: dict, out_dir: Path, workers: Optional[int], points: Optional[List[dict]] = None):
    """Sweep (cached in out_dir/runs); returns (rows, [Results per point])."""
    df = sweep(base, points or [{}], out_dir, workers=workers)
    return df, [load_run(out_dir, k) for k in df["key"]]


# -- congestion events from the cwnd series --------------------------------------

def _series(res: Results) -> Dict[int, Tuple[np.ndarray, np.ndarray, np.ndarray]]:
    fs = res.flow_series
    return {int(f): (g["time_s"].to_numpy(), g["cwnd"].to_numpy(), g["ssthresh"].to_numpy())
            for f, g in fs.sort_values("time_s").groupby("flow")}


def flow_backoffs(res: Results, merge_s: float) -> pd.DataFrame:
    """One row per backoff of every flow (module docstring): time_s,
    w_before, w_after (= ssthresh set), beta, slow_start."""
    rows = []
    for flow, (t, cw, ss) in _series(res).items():
        drops = np.nonzero(cw[1:] < cw[:-1] - 1e-9)[0] + 1
        last = -math.inf
        for j in drops:
            if t[j] - last <= merge_s:
                continue
            last = t[j]
            rows.append({"flow": flow, "time_s": float(t[j]), "w_before": float(cw[j - 1]),
                         "w_after": float(ss[j]), "beta": float(ss[j] / cw[j - 1]),
                         "slow_start": bool(cw[j - 1] < ss[j - 1])})
    cols = ["flow", "time_s", "w_before", "w_after", "beta", "slow_start"]
    return pd.DataFrame(rows, columns=cols).sort_values(["time_s", "flow"]).reset_index(drop=True)


def congestion_events(res: Results, backoffs: pd.DataFrame, starts: Sequence[float], gap_s: float) -> pd.DataFrame:
    """Network congestion events: clusters of backoffs within ``gap_s``.
    Columns k, time_s, w<i> (window before the event), drop<i> (backed off),
    n_drops; w<i> is NaN for a flow that has not started."""
    series = _series(res)
    clusters: List[List[dict]] = []
    for r in backoffs.to_dict("records"):
        if clusters and r["time_s"] - clusters[-1][0]["time_s"] <= gap_s:
            clusters[-1].append(r)
        else:
            clusters.append([r])
    rows = []
    for k, c in enumerate(clusters):
        t0 = c[0]["time_s"]
        row = {"k": k, "time_s": t0}
        for i, start in enumerate(starts):
            mine = [r for r in c if r["flow"] == i]
            if mine:
                row[f"w{i}"], row[f"drop{i}"] = mine[0]["w_before"], True
            elif start >= t0:
                row[f"w{i}"], row[f"drop{i}"] = math.nan, False
            else:
                t, cw, _ = series[i]
                j = int(np.searchsorted(t, t0, side="left")) - 1
                row[f"w{i}"], row[f"drop{i}"] = (float(cw[j]) if j >= 0 else math.nan), False
        row["n_drops"] = sum(row[f"drop{i}"] for i in range(len(starts)))
        rows.append(row)
    return pd.DataFrame(rows)


def windows(ev: pd.DataFrame, n: int) -> np.ndarray:
    return ev[[f"w{i}" for i in range(n)]].to_numpy(dtype=float)


def drops(ev: pd.DataFrame, n: int) -> np.ndarray:
    return ev[[f"drop{i}" for i in range(n)]].to_numpy(dtype=bool)


def full_rtt_s(rtt_s: float, rate_bps: float, queue_pkts: int) -> float:
    return base_rtt_s(rtt_s, rate_bps) + queue_pkts * PKT_BYTES * 8.0 / rate_bps


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
    k = model.epochs_to_converge(w, final, SETTLE)
    # Contraction per epoch over the first part of the decay only (down to
    # 20% of d(0)), where d is far above the run's residual wobble.
    k20 = model.epochs_to_converge(w, final, 0.8)
    lam = (d[k20] / d[0]) ** (1.0 / k20) if k20 and d[0] > 0 and d[k20] > 0 else math.nan
    return {"epochs": k, "lambda_hat": lam, "d": d, "w0": w[0], "t0": float(e["time_s"].iloc[0]),
            "times": e["time_s"].to_numpy(), "final": final}


# -- plotting helpers ----------------------------------------------------------------

def _plot_cwnd(ax, res: Results, labels: Sequence[str], t_range: Optional[Tuple[float, float]] = None,
               ev: Optional[pd.DataFrame] = None):
    for f, (t, cw, _) in _series(res).items():
        m = slice(None) if t_range is None else (t >= t_range[0]) & (t <= t_range[1])
        ax.plot(t[m], cw[m], lw=0.8, label=labels[f] if f < len(labels) else f"flow {f}")
    if ev is not None:
        for i in range(len(labels)):
            if f"w{i}" in ev:
                e = ev if t_range is None else ev[(ev.time_s >= t_range[0]) & (ev.time_s <= t_range[1])]
                ax.plot(e["time_s"], e[f"w{i}"], "k.", ms=2)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (packets)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)


# -- htcp-fig2 -------------------------------------------------------------------

FIG2_NET = dict(rate_bps=10e6, rtt_s=0.1, queue_pkts=40)
FIG2_PAIRS = [(1.5, 0.25), (0.4, 0.8)]  # second source; the first is (1, 0.5)
RATIO_TOL = 0.10


@register("htcp-fig2", paper=f"{PAPER}, Fig 2",
          description="window fairness of two AIMD sources with alpha = 2(1 - beta), 10 Mb/s, 100 ms, 40 pkts")
def fig2(out_dir: Path, quick: bool, workers: Optional[int]) -> List[Check]:
    net = FIG2_NET
    dur, t2, t_stats = (150.0, 20.0, 40.0) if quick else (400.0, 20.0, 60.0)
    base = dumbbell("htcp-fig2", net["rate_bps"], net["queue_pkts"], dur,
                    [aimd_flow(1.0, 0.5, net["rate_bps"]), aimd_flow(1.0, 0.5, net["rate_bps"], start_s=t2)],
                    warmup_s=t_stats)
    points = [{"flows.1": aimd_flow(a, b, net["rate_bps"], start_s=t2)} for a, b in FIG2_PAIRS]
    _, runs = _run(base, out_dir, workers, points)
    gap = 2 * full_rtt_s(net["rtt_s"], net["rate_bps"], net["queue_pkts"])
    rows, checks, plotted = [], [], []
    for (a2, b2), res in zip(FIG2_PAIRS, runs):
        bo = flow_backoffs(res, gap)
        ev = congestion_events(res, bo, [0.0, t2], gap)
        e = ev[ev.time_s > t_stats]
        w, dr = windows(e, 2), drops(e, 2)
        mean_w = w.mean(axis=0)
        p = dr.mean(axis=0)
        alpha, beta = np.array([1.0, a2]), np.array([0.5, b2])
        sync = model.perron_vector(alpha, beta)
        unsync = model.unsync_fixed_point_shares(alpha, beta, p)
        ca = bo[~bo.slow_start & (bo.time_s > t_stats)]
        row = {"alpha2": a2, "beta2": b2, "events": len(e), "w1_mean": mean_w[0], "w2_mean": mean_w[1],
               "ratio_w2_w1": mean_w[1] / mean_w[0], "sync_model_ratio": sync[1] / sync[0],
               "drop_freq1": p[0], "drop_freq2": p[1], "unsync_model_ratio": unsync[1] / unsync[0],
               "beta1_measured": ca[ca.flow == 0].beta.mean(), "beta2_measured": ca[ca.flow == 1].beta.mean(),
               "goodput1_bps": res.flows.goodput_bps[0], "goodput2_bps": res.flows.goodput_bps[1],
               "sum_w_mean": w.sum(axis=1).mean()}
        rows.append(row)
        plotted.append((res, ev, f"(1, 0.5) vs ({a2:g}, {b2:g})"))
        tag = f"(1, 0.5) vs ({a2:g}, {b2:g})"
        # Eq. 6 / Theorem 2.1: alpha_i/(1-beta_i) equal -> equal windows at
        # congestion. 10%: over >= 50 events the mean of windows measured to
        # about one packet in ~80 is known to well under 1%; anything beyond
        # 10% is a systematic effect, not noise.
        checks.append(Check(f"{tag}: mean window ratio w2/w1 at congestion events (eq. 6: fair)",
                            paper=1.0, ccsim=round(row["ratio_w2_w1"], 4), tolerance=RATIO_TOL))
        # The unsynchronised model (13) with the drop frequencies ccsim saw;
        # it neglects the correlation between a flow's window and its chance
        # of losing a packet, hence the same 10%.
        checks.append(Check(f"{tag}: ratio from model (13) with measured drop frequencies "
                            f"({p[0]:.2f}, {p[1]:.2f}) vs ccsim",
                            paper=round(row["unsync_model_ratio"], 4), ccsim=round(row["ratio_w2_w1"], 4),
                            tolerance=RATIO_TOL))
    df = pd.DataFrame(rows)
    write_table(df, out_dir, "htcp-fig2")

    plt = pyplot()
    fig, axes = plt.subplots(1, len(plotted), figsize=(5.2 * len(plotted), 3.6), squeeze=False)
    for ax, (res, ev, title) in zip(axes[0], plotted):
        _plot_cwnd(ax, res, ["source 1 (1, 0.5)", "source 2"], ev=ev)
        ax.set_title(title, fontsize=9)
    fig.suptitle("H-TCP paper Fig 2: AIMD with alpha = 2(1-beta), 10 Mb/s, 100 ms, 40 pkts")
    save_figure(fig, out_dir / "htcp-fig2.png")
    return checks


# -- htcp-model ------------------------------------------------------------------

MODEL_B = [(1.0, 0.5), (2.0, 0.5), (1.0, 0.75), (1.5, 0.25)]
MODEL_C_RTTS = [0.10, 0.15, 0.20]


@register("htcp-model", paper=f"{PAPER}, eq. 6, Theorem 2.1, Figs 3, 6, 7",
          description="positive-matrix model: Perron eigenvector, rise time, unsynchronised model vs ccsim")
def model_experiment(out_dir: Path, quick: bool, workers: Optional[int]) -> List[Check]:
    rate, rtt, q = 10e6, 0.1, 40
    gap = 2 * full_rtt_s(max(MODEL_C_RTTS), rate, q)
    pipe = bdp_pkts(rate, rtt) + q
    checks: List[Check] = []
    tables = []

    # (A) Fig 3: rise time of two AIMD(1, 0.5) sources.
    dur_a, t2 = (150.0, 30.0) if quick else (300.0, 30.0)
    second = aimd_flow(1.0, 0.5, rate, start_s=t2)
    second["init_ssthresh_pkts"] = 2
    base_a = dumbbell("htcp-model-a", rate, q, dur_a, [aimd_flow(1.0, 0.5, rate), second])
    _, (res_a,) = _run(base_a, out_dir, workers)
    bo_a = flow_backoffs(res_a, gap)
    ev_a = congestion_events(res_a, bo_a, [0.0, t2], gap)
    lam2 = model.second_eigenvalue([1, 1], [0.5, 0.5])
    n_r = model.rise_time(lam2, SETTLE)
    conv = convergence(ev_a, 2, t2)
    traj = model.trajectory([1, 1], [0.5, 0.5], conv["w0"], 30) if conv["w0"] is not None else None
    k_model = model.epochs_to_converge(traj, [0.5, 0.5], SETTLE) if traj is not None else None
    late = ev_a[ev_a.time_s > t2].iloc[max(0, (conv["epochs"] or 0) + 1):]
    w_late = windows(late, 2)
    checks += [
        # "n_r ~ 4" for beta = 0.5: 0.5 absolute is the rounding in "~4".
        Check("rise time n_r = log(0.05)/log(lambda_2), beta = 0.5 (epochs)", paper=4, ccsim=round(n_r, 3),
              relative=False, tolerance=0.5),
        Check("rise time as printed, log(0.95)/log(lambda_2) (epochs; see docs)", paper=4,
              ccsim=round(model.rise_time_printed(lam2), 4), relative=False, tolerance=0.5),
        # One epoch: the first passage is an integer and one packet of
        # sampling error in ~160 can move it by one event.
        Check("Fig 3: epochs to 95% of fairness, ccsim vs model trajectory from the same W(0)",
              paper=k_model, ccsim=conv["epochs"], relative=False, tolerance=1),
        # 0.1: lambda_hat is a ratio of two distances measured to ~1 packet.
        Check("Fig 3: contraction per epoch (d(K)/d(0))^(1/K), d(K) <= 0.2 d(0), vs lambda_2", paper=round(lam2, 4),
              ccsim=round(conv["lambda_hat"], 4), relative=False, tolerance=0.1),
        # Eq. 1: sum of windows = P + sum alpha. 3%: the pipe also holds the
        # packet in service and the serialisation delays (~1%).
        Check("Fig 3: total window at congestion vs P + sum(alpha) (eq. 1, packets)",
              paper=round(pipe + 2, 2), ccsim=round(float(w_late.sum(axis=1).mean()), 2), tolerance=0.03),
        # Share of source 2 after convergence: 0.02 absolute is ~3 packets.
        Check("Fig 3: share of source 2 after convergence (Perron: 0.5)", paper=0.5,
              ccsim=round(float((w_late[:, 1] / w_late.sum(axis=1)).mean()), 4), relative=False, tolerance=0.02),
    ]
    tables.append(pd.DataFrame([{"part": "A", "quantity": "lambda_2", "model": lam2, "ccsim": conv["lambda_hat"]},
                                {"part": "A", "quantity": "epochs_to_95pct", "model": k_model,
                                 "ccsim": conv["epochs"]},
                                {"part": "A", "quantity": "n_r", "model": n_r, "ccsim": math.nan}]))

    # (B) Theorem 2.1: Perron eigenvector with four different sources.
    dur_b, t_b = (150.0, 40.0) if quick else (400.0, 60.0)
    base_b = dumbbell("htcp-model-b", rate, q, dur_b,
                      [aimd_flow(a, b, rate, start_s=0.1 * i) for i, (a, b) in enumerate(MODEL_B)])
    _, (res_b,) = _run(base_b, out_dir, workers)
    nb = len(MODEL_B)
    bo_b = flow_backoffs(res_b, gap)
    ev_b = congestion_events(res_b, bo_b, [0.1 * i for i in range(nb)], gap)
    e_b = ev_b[ev_b.time_s > t_b]
    w_b = windows(e_b, nb)
    share_b = w_b.mean(axis=0) / w_b.mean(axis=0).sum()
    ab, bb = np.array(MODEL_B).T
    perron_b = model.perron_vector(ab, bb)
    p_b = drops(e_b, nb).mean(axis=0)
    for i, (a, b) in enumerate(MODEL_B):
        # 5%: about one packet of a ~30-60 packet mean window, plus the
        # packet-level detail the map ignores (growth stops during recovery).
        checks.append(Check(f"Theorem 2.1: share of source ({a:g}, {b:g}) in the mean window at congestion",
                            paper=round(float(perron_b[i]), 4), ccsim=round(float(share_b[i]), 4),
                            tolerance=0.05))
    tables.append(pd.DataFrame({"part": "B", "quantity": [f"share ({a:g},{b:g})" for a, b in MODEL_B],
                                "model": perron_b, "ccsim": share_b, "drop_freq": p_b}))

    # (C) Figs 6-7: unsynchronised network (different RTTs).
    dur_c, t_c = (200.0, 40.0) if quick else (600.0, 60.0)
    nc = len(MODEL_C_RTTS)
    starts_c = [0.5 * i for i in range(nc)]
    base_c = dumbbell("htcp-model-c", rate, q, dur_c,
                      [tcp_flow("reno", s, r) for s, r in zip(starts_c, MODEL_C_RTTS)])
    _, (res_c,) = _run(base_c, out_dir, workers)
    bo_c = flow_backoffs(res_c, gap)
    ev_c = congestion_events(res_c, bo_c, starts_c, gap)
    e_c = ev_c[ev_c.time_s > t_c]
    w_c, d_c = windows(e_c, nc), drops(e_c, nc)
    mean_c = w_c.mean(axis=0)
    share_c = mean_c / mean_c.sum()
    p_c = d_c.mean(axis=0)
    fs = res_c.flow_series
    srtt = np.array([fs[(fs.flow == i) & (fs.time_s > t_c)].srtt_s.mean() for i in range(nc)])
    analytic = model.perron_vector(1.0 / np.array(MODEL_C_RTTS), np.full(nc, 0.5))
    unsync = model.unsync_fixed_point_shares(1.0 / srtt, np.full(nc, 0.5), p_c)
    running = np.cumsum(w_c, axis=0) / np.arange(1, len(w_c) + 1)[:, None]
    half = running[len(running) // 2 - 1]
    pats = d_c[d_c.any(axis=1)]
    spread = model.random_product_share_spread(1.0 / srtt, np.full(nc, 0.5), pats, w_c[0], len(w_c))
    for i, r in enumerate(MODEL_C_RTTS):
        tag = f"Fig 6, RTT {r * 1000:.0f} ms"
        # Tolerance: 3 standard deviations of the share in the empirical
        # mean of model (13) itself over the same number of events (200
        # seeded realisations with ccsim's drop patterns): an empirical
        # mean over ~100-200 events of an unsynchronised network scatters
        # that much even when the model holds exactly.
        tol = round(3.0 * float(spread[i]), 4)
        checks.append(Check(f"{tag}: share, unsynchronised model (13) with measured drop frequency "
                            f"{p_c[i]:.2f} vs ccsim", paper=round(float(unsync[i]), 4),
                            ccsim=round(float(share_c[i]), 4), relative=False, tolerance=tol))
        checks.append(Check(f"{tag}: share, analytic prediction alpha_bar = 1/T (synchronised) vs ccsim",
                            paper=round(float(analytic[i]), 4), ccsim=round(float(share_c[i]), 4),
                            relative=False, tolerance=tol))
        # Fig 7: the empirical mean converges; half-way vs final within 5%.
        checks.append(Check(f"Fig 7, RTT {r * 1000:.0f} ms: empirical mean window at half the events vs at the end",
                            paper=round(float(running[-1, i]), 3), ccsim=round(float(half[i]), 3),
                            tolerance=0.05))
    tables.append(pd.DataFrame({"part": "C", "quantity": [f"share RTT {r:g}" for r in MODEL_C_RTTS],
                                "model": unsync, "analytic": analytic, "ccsim": share_c, "drop_freq": p_c,
                                "mean_srtt_s": srtt, "mean_window": mean_c, "model_share_std": spread}))
    write_table(pd.concat(tables, ignore_index=True), out_dir, "htcp-model")

    # Random-product model (13) with the drop patterns ccsim produced, for Fig 7.
    model_run = model.random_product_mean(1.0 / srtt, np.full(nc, 0.5), pats, w_c[0], len(w_c), seed=1)
    # A is column-stochastic: the model keeps sum W(0); scale to ccsim's mean total.
    model_run *= w_c.sum(axis=1).mean() / w_c[0].sum()

    plt = pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(10.5, 7.5))
    ax = axes[0][0]
    _plot_cwnd(ax, res_a, ["source 1", "source 2"], ev=ev_a)
    if traj is not None:
        times = conv["times"]
        kk = min(len(times), len(traj))
        ax.plot(times[:kk], traj[:kk, 1], "rx", ms=4, label="model W(k), source 2")
        ax.legend(fontsize=7)
    ax.set_title(f"Fig 3: AIMD(1, 0.5) x 2; rise time {n_r:.2f} epochs", fontsize=9)
    ax = axes[0][1]
    x = np.arange(nb)
    ax.bar(x - 0.2, perron_b, 0.4, label="Perron eigenvector (eq. 6)")
    ax.bar(x + 0.2, share_b, 0.4, label="ccsim mean window share")
    ax.set_xticks(x, [f"({a:g}, {b:g})" for a, b in MODEL_B])
    ax.set_xlabel("source (alpha, beta)")
    ax.set_ylabel("share of total window at congestion")
    ax.set_title("Theorem 2.1: four AIMD sources, same RTT", fontsize=9)
    ax.legend(fontsize=7)
    ax = axes[1][0]
    x = np.arange(nc)
    ax.plot(x, mean_c, "k+", ms=10, label="ccsim")
    ax.plot(x, unsync * mean_c.sum(), "b.", ms=10, label="unsynchronised model (13)")
    ax.plot(x, analytic * mean_c.sum(), "ro", mfc="none", label="analytic (alpha/T)")
    ax.set_xticks(x, [f"{r * 1000:.0f} ms" for r in MODEL_C_RTTS])
    ax.set_ylabel("empirical mean of w_i(k) (packets)")
    ax.set_title("Fig 6: three TCP flows, different RTTs", fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(True, alpha=0.3)
    ax = axes[1][1]
    for i, r in enumerate(MODEL_C_RTTS):
        line, = ax.plot(np.arange(1, len(running) + 1), running[:, i], label=f"ccsim, {r * 1000:.0f} ms")
        ax.plot(np.arange(1, len(model_run) + 1), model_run[:, i], ":", color=line.get_color())
    ax.set_xlabel("congestion event k")
    ax.set_ylabel("running mean of w_i(k)")
    ax.set_title("Fig 7: convergence of the empirical mean (dotted: model (13))", fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(True, alpha=0.3)
    fig.suptitle("H-TCP paper §2: positive-matrix model vs ccsim (10 Mb/s, 40 pkts)")
    save_figure(fig, out_dir / "htcp-model.png")
    return checks


# -- htcp-fig10 ------------------------------------------------------------------------

@register("htcp-fig10", paper=f"{PAPER}, Fig 10",
          description="two H-TCP flows (beta 0.5) converge to fairness in ~4 epochs, 500 Mb/s, 100 ms, 500 pkts")
def fig10(out_dir: Path, quick: bool, workers: Optional[int]) -> List[Check]:
    rate, rtt, q = 500e6, 0.1, 500
    t2, dur = (30.0, 90.0) if quick else (30.0, 120.0)
    htcp = dict(adaptive_backoff=False, fixed_beta=0.5)
    base = dumbbell("htcp-fig10", rate, q, dur, [tcp_flow("htcp", 0.0, rtt, **htcp),
                                                tcp_flow("htcp", t2, rtt, **htcp)])
    _, (res,) = _run(base, out_dir, workers)
    gap = 2 * full_rtt_s(rtt, rate, q)
    bo = flow_backoffs(res, gap)
    ev = congestion_events(res, bo, [0.0, t2], gap)
    ss_exit = bo[(bo.flow == 1) & bo.slow_start].time_s
    after = float(ss_exit.iloc[0]) if len(ss_exit) else t2
    conv = convergence(ev, 2, after)
    lam2 = model.second_eigenvalue([1, 1], [0.5, 0.5])
    k = conv["epochs"]
    late = ev[ev.time_s > after].iloc[(k or 0) + 1:]
    wl = windows(late, 2)
    share2 = float((wl[:, 1] / wl.sum(axis=1)).mean()) if len(wl) else math.nan
    fl = model.sync_htcp_epoch(2, 0.5, bdp_pkts(rate, rtt), q, rtt)
    t_ev = ev[ev.time_s > after].time_s.to_numpy()
    epoch_sim = float(np.diff(t_ev).mean()) if len(t_ev) > 1 else math.nan
    table = ev.copy()
    table["share2"] = table.w1 / (table.w0 + table.w1)
    write_table(table, out_dir, "htcp-fig10")
    checks = [
        # "approximately 4": one epoch either way (the first passage is an
        # integer; the model's is ceil(4.32) = 5).
        Check("epochs for flow 2 to converge to fairness (95%)", paper=4, ccsim=k, relative=False, tolerance=1),
        Check("contraction per epoch vs lambda_2 for beta = 0.5", paper=round(lam2, 4),
              ccsim=round(conv["lambda_hat"], 4), relative=False, tolerance=0.1),
        # 0.02 absolute share: ~130 packets of 6600, 8% of a flow's increase per epoch.
        Check("share of flow 2 in the window at congestion after convergence", paper=0.5,
              ccsim=round(share2, 4), relative=False, tolerance=0.02),
        # Not a number in the paper: the fluid model of the same network
        # (sync_htcp_epoch), 10% (it ignores the RTT of recovery without growth).
        Check("epoch length after convergence vs synchronised fluid model (s)", paper=round(fl["epoch_s"], 3),
              ccsim=round(epoch_sim, 3), tolerance=0.10),
    ]
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    _plot_cwnd(axes[0], res, ["flow 1", "flow 2"], ev=ev)
    axes[0].set_title("Fig 10: two H-TCP flows (beta 0.5), 500 Mb/s, 100 ms, 500 pkts", fontsize=9)
    d = conv["d"]
    if len(d):
        kk = np.arange(len(d))
        axes[1].semilogy(kk, d / d[0], "o-", label="ccsim")
        axes[1].semilogy(kk, lam2 ** kk, "k--", label="lambda_2^k (eq. 6)")
        axes[1].axhline(1 - SETTLE, color="gray", lw=0.8)
    axes[1].set_xlabel("congestion epoch k after flow 2 leaves slow start")
    axes[1].set_ylabel("distance to fair shares / initial")
    axes[1].grid(True, alpha=0.3)
    axes[1].legend(fontsize=8)
    save_figure(fig, out_dir / "htcp-fig10.png")
    return checks


# -- htcp-fig11 ---------------------------------------------------------------------

FIG11_DELTA_L = [19.0, 1.9, 1.0]  # primary (caption, seconds), then sensitivity


@register("htcp-fig11", paper=f"{PAPER}, Fig 11",
          description="H-TCP and standard TCP co-existing on 5 Mb/s, 100 ms, 44 pkts")
def fig11(out_dir: Path, quick: bool, workers: Optional[int]) -> List[Check]:
    rate, rtt, q = 5e6, 0.1, 44
    dur, warm = (200.0, 40.0) if quick else (600.0, 60.0)
    base = dumbbell("htcp-fig11", rate, q, dur,
                    [tcp_flow("htcp", 0.0, rtt, adaptive_backoff=False, fixed_beta=0.5, delta_l_s=19.0),
                     tcp_flow("reno", 1.0, rtt)], warmup_s=warm)
    points = [{"flows.0.cc_params.delta_l_s": d} for d in FIG11_DELTA_L]
    _, runs = _run(base, out_dir, workers, points)
    gap = 2 * full_rtt_s(rtt, rate, q)
    rows = []
    for dl, res in zip(FIG11_DELTA_L, runs):
        bo = flow_backoffs(res, gap)
        ev = congestion_events(res, bo, [0.0, 1.0], gap)
        e = ev[ev.time_s > warm]
        w = windows(e, 2)
        h = bo[(bo.flow == 0) & (bo.time_s > warm)].time_s.to_numpy()
        g = res.flows.goodput_bps.to_numpy()
        rows.append({"delta_l_s": dl, "goodput_htcp_bps": g[0], "goodput_tcp_bps": g[1],
                     "goodput_ratio": g[0] / g[1], "window_ratio": w[:, 0].mean() / w[:, 1].mean(),
                     "events": len(e), "max_htcp_epoch_s": float(np.diff(h).max()) if len(h) > 1 else math.nan,
                     "utilization": res.bottleneck()["utilization"], "primary": dl == FIG11_DELTA_L[0]})
    df = pd.DataFrame(rows)
    write_table(df, out_dir, "htcp-fig11")
    p = df.iloc[0]
    checks = [
        # "co-existing": H-TCP in its low-speed mode is standard TCP, so the
        # shares should be equal; read as neither flow getting more than
        # 1.2x the other's goodput (the paper gives no number).
        Check("Delta_L = 19 s: goodput ratio H-TCP / TCP", paper=1.0, ccsim=round(float(p.goodput_ratio), 4),
              tolerance=0.2),
        Check("Delta_L = 19 s: mean window ratio at congestion events H-TCP / TCP", paper=1.0,
              ccsim=round(float(p.window_ratio), 4), tolerance=RATIO_TOL),
        Check("Delta_L = 19 s: longest H-TCP epoch below Delta_L (low-speed mode only, alpha_H unused) (s)",
              paper="< 19", ccsim=round(float(p.max_htcp_epoch_s), 3), ok=bool(p.max_htcp_epoch_s < 19.0)),
    ]
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), gridspec_kw={"width_ratios": [2, 1]})
    _plot_cwnd(axes[0], runs[0], ["H-TCP (beta 0.5, Delta_L 19 s)", "standard TCP"], t_range=(warm, warm + 60))
    axes[0].set_title("Fig 11: H-TCP and TCP, 5 Mb/s, 100 ms, 44 pkts", fontsize=9)
    axes[1].bar([f"{d:g} s" for d in df.delta_l_s], df.goodput_ratio)
    axes[1].axhline(1.0, color="k", lw=0.8)
    axes[1].set_xlabel("Delta_L")
    axes[1].set_ylabel("goodput H-TCP / TCP")
    axes[1].grid(True, alpha=0.3)
    save_figure(fig, out_dir / "htcp-fig11.png")
    return checks


# -- htcp-fig12-13 -----------------------------------------------------------------------

FIG12_VARIANTS = {"fixed beta 0.5 (Fig 12)": {"adaptive_backoff": False, "fixed_beta": 0.5},
                  "adaptive backoff (Fig 13)": {"adaptive_backoff": True, "adaptive_reset": True}}


@register("htcp-fig12-13", paper=f"{PAPER}, Figs 12 and 13",
          description="link utilisation with beta = 0.5 vs adaptive backoff, 20 Mb/s, 100 ms, 50-pkt queue")
def fig12_13(out_dir: Path, quick: bool, workers: Optional[int]) -> List[Check]:
    rate, rtt, q = 20e6, 0.1, 50
    dur, warm = (100.0, 30.0) if quick else (300.0, 60.0)
    base = dumbbell("htcp-fig12-13", rate, q, dur, [tcp_flow("htcp", 0.0, rtt), tcp_flow("htcp", 10.0, rtt)],
                    warmup_s=warm)
    names = list(FIG12_VARIANTS)
    points = [{"flows.*.cc_params": FIG12_VARIANTS[n]} for n in names]
    _, runs = _run(base, out_dir, workers, points)
    gap = 2 * full_rtt_s(rtt, rate, q)
    bdp = bdp_pkts(rate, rtt)
    beta_adaptive = float(np.clip(rtt / full_rtt_s(rtt, rate, q), 0.5, 0.8))  # eq. 21 + Comment 1
    rows = []
    for name, res in zip(names, runs):
        ls = res.link_series
        b = res.bottleneck()
        ls = ls[(ls.link == b["id"]) & (ls.time_s > warm)]
        bo = flow_backoffs(res, gap)
        ca = bo[~bo.slow_start & (bo.time_s > warm)]
        beta_model = 0.5 if "fixed" in name else beta_adaptive
        fl = model.sync_htcp_epoch(2, beta_model, bdp, q, rtt)
        rows.append({"variant": name, "utilization": b["utilization"],
                     "queue_dry_frac": float((ls.utilization < 0.95).mean()),
                     "beta_measured": ca.beta.mean(), "beta_model": beta_model, "model_utilization": fl["utilization"],
                     "goodput_total_bps": float(res.flows.goodput_bps.sum()), "loss_rate": b["loss_rate"]})
    df = pd.DataFrame(rows)
    write_table(df, out_dir, "htcp-fig12-13")
    fx, ad = df.iloc[0], df.iloc[1]
    checks = [
        # §3.2: "backing off by 0.5 can lead to the queue being empty for a
        # significant period of time": significant read as > 10% of the time.
        # The queue ran dry in a 10 ms sample when the link was idle for more
        # than 5% of it (queue_pkts itself often shows the one packet of a
        # two-packet burst waiting behind the other, on an otherwise idle link).
        Check("beta 0.5: fraction of 10 ms samples with the queue run dry (paper: significant)", paper="> 0.1",
              ccsim=round(float(fx.queue_dry_frac), 4), ok=bool(fx.queue_dry_frac > 0.1)),
        Check("adaptive backoff utilises the link better than beta 0.5 (Figs 12 vs 13)",
              paper="higher", ccsim=f"{fx.utilization:.4f} -> {ad.utilization:.4f}",
              ok=bool(ad.utilization > fx.utilization)),
        # Eq. 21: the buffer just empties and "the link remains operating at
        # capacity"; the clamp at 0.8 (< T_d/RTT_max = 0.83) leaves <1% idle.
        Check("adaptive backoff: link utilisation (paper: at capacity)", paper=1.0,
              ccsim=round(float(ad.utilization), 4), tolerance=0.01),
        # beta from the cwnd series vs eq. 21 with the [0.5, 0.8] clamp;
        # 0.02: the 10 ms sample before the drop misses < 1% of the window.
        Check("adaptive backoff: measured beta vs clamp(RTT_min/RTT_max)", paper=round(beta_adaptive, 4),
              ccsim=round(float(ad.beta_measured), 4), relative=False, tolerance=0.02),
    ]
    for r in (fx, ad):
        # Synchronised fluid model of the same network (not a number in the
        # paper). 0.03: the model has no recovery RTT, no slow start and no
        # packet granularity.
        checks.append(Check(f"{r.variant}: utilisation vs synchronised fluid model",
                            paper=round(float(r.model_utilization), 4), ccsim=round(float(r.utilization), 4),
                            relative=False, tolerance=0.03))
    plt = pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(11, 6), sharex="col")
    t_range = (warm, warm + 20)
    for j, (name, res) in enumerate(zip(names, runs)):
        _plot_cwnd(axes[0][j], res, ["flow 1", "flow 2"], t_range=t_range)
        axes[0][j].set_title(f"{name}: utilisation {df.iloc[j].utilization:.3f}", fontsize=9)
        ls = res.link_series
        ls = ls[(ls.link == res.bottleneck()["id"]) & (ls.time_s >= t_range[0]) & (ls.time_s <= t_range[1])]
        axes[1][j].plot(ls.time_s, ls.queue_pkts, lw=0.8)
        axes[1][j].set_xlabel("time (s)")
        axes[1][j].set_ylabel("queue (packets)")
        axes[1][j].grid(True, alpha=0.3)
    fig.suptitle("H-TCP paper Figs 12-13: 20 Mb/s, 100 ms, 50-packet queue")
    save_figure(fig, out_dir / "htcp-fig12-13.png")
    return checks


# -- htcp-fig14 ------------------------------------------------------------------------------

@register("htcp-fig14", paper=f"{PAPER}, Fig 14",
          description="adaptive reset of beta when a second flow starts, 20 Mb/s, 100 ms, 50 pkts")
def fig14(out_dir: Path, quick: bool, workers: Optional[int]) -> List[Check]:
    rate, rtt, q = 20e6, 0.1, 50
    t2, dur = (20.0, 60.0) if quick else (40.0, 120.0)
    base = dumbbell("htcp-fig14", rate, q, dur, [tcp_flow("htcp", 0.0, rtt), tcp_flow("htcp", t2, rtt)])
    _, (res,) = _run(base, out_dir, workers)
    gap = 2 * full_rtt_s(rtt, rate, q)
    bo = flow_backoffs(res, gap)
    ev = congestion_events(res, bo, [0.0, t2], gap)
    ss_exit = bo[(bo.flow == 1) & bo.slow_start].time_s
    after = float(ss_exit.iloc[0]) if len(ss_exit) else t2
    conv = convergence(ev, 2, after)
    beta_adaptive = float(np.clip(rtt / full_rtt_s(rtt, rate, q), 0.5, 0.8))
    ca = bo[~bo.slow_start]
    f1 = ca[ca.flow == 0]
    before = f1[(f1.time_s < t2) & (f1.time_s > 5.0)]  # past flow 1's own start-up events
    after_start = f1[f1.time_s >= t2]
    reset_window = after_start.iloc[:6]  # flow 1's events while the flows converge
    k = conv["epochs"]
    tail = ca[ca.time_s > (conv["times"][k] if k is not None else dur)]
    # Eq. 25 compares B- (throughput just before an event) between
    # consecutive events. The queue is full at every event, so all RTTs are
    # RTT_max and B- = w / RTT_max: consecutive window ratios are B- ratios.
    seq = np.concatenate([before.w_before.to_numpy()[-1:], after_start.w_before.to_numpy()])
    max_change = float(np.max(np.abs(np.diff(seq) / seq[:-1]))) if len(seq) > 1 else math.nan
    table = bo.copy()
    write_table(table, out_dir, "htcp-fig14")
    checks = [
        # beta from cwnd: 0.02 as in htcp-fig12-13.
        Check("flow 1 alone: beta vs clamp(RTT_min/RTT_max) (adaptive backoff)", paper=round(beta_adaptive, 4),
              ccsim=round(float(before.beta.mean()), 4), relative=False, tolerance=0.02),
        Check("flow 1: beta reset to 0.5 at an event after flow 2 starts (min beta of its next 6 events)",
              paper=0.5, ccsim=round(float(reset_window.beta.min()), 4), relative=False, tolerance=0.02),
        Check("epochs to converge to fairness (95%) after flow 2 leaves slow start", paper=4, ccsim=k,
              relative=False, tolerance=1),
        Check("after convergence: both flows back at the adaptive beta", paper=round(beta_adaptive, 4),
              ccsim=round(float(tail.beta.mean()), 4) if len(tail) else None, relative=False, tolerance=0.02),
    ]
    checks.append(Check("flow 1: largest event-to-event change of B- (= w/RTT_max) after flow 2 starts "
                        "(a reset, eq. 25, needs > 0.2)",
                        paper="> 0.2", ccsim=round(max_change, 4), ok=bool(max_change > 0.2)))
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(14, 3.8))
    _plot_cwnd(axes[0], res, ["flow 1", "flow 2"], ev=ev)
    axes[0].axvline(t2, color="gray", lw=0.8)
    axes[0].set_title("Fig 14: adaptive H-TCP, 20 Mb/s, 100 ms, 50 pkts", fontsize=9)
    for f, g in ca.groupby("flow"):
        axes[1].plot(g.time_s, g.beta, "o-", ms=3, label=f"flow {f + 1}")
    axes[1].axvline(t2, color="gray", lw=0.8)
    axes[1].set_ylim(0.4, 0.9)
    axes[1].set_xlabel("time (s)")
    axes[1].set_ylabel("beta = cwnd after / cwnd before")
    axes[1].grid(True, alpha=0.3)
    axes[1].legend(fontsize=8)
    d = conv["d"]
    if len(d):
        kk = np.arange(len(d))
        axes[2].semilogy(kk, d / d[0], "o-", label="ccsim")
        axes[2].semilogy(kk, 0.5 ** kk, "k--", label="0.5^k (beta reset to 0.5)")
        axes[2].semilogy(kk, beta_adaptive ** kk, "k:", label=f"{beta_adaptive:g}^k (no reset)")
        axes[2].axhline(1 - SETTLE, color="gray", lw=0.8)
    axes[2].set_xlabel("congestion epoch k after flow 2 leaves slow start")
    axes[2].set_ylabel("distance to fair shares / initial")
    axes[2].grid(True, alpha=0.3)
    axes[2].legend(fontsize=8)
    save_figure(fig, out_dir / "htcp-fig14.png")
    return checks
