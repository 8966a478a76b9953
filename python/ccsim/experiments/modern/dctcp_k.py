"""``modern-dctcp-k``: DCTCP over a queue that marks above K packets (a
RED step: ``w_q = 1``, ``max_th = min_th + 1``, ECN, marking above max, as
ns-3's DCTCP examples and crates/ccsim-core/tests/integration/dctcp.rs configure it),
queue and throughput against K for N = 1, 2 and 10 flows, against the
steady-state analysis of Alizadeh et al., "Data Center TCP (DCTCP)",
SIGCOMM 2010, §3.3 (:mod:`ccsim.models.dctcp`).

Settings (all with a pipe of C·RTT = 83.3 packets of 1500 bytes, so the
analysis gives the same packets and round trips):

* the sweep: 100 Mb/s, 10 ms round trip, K from 2 to 65 packets
  (``--quick``: 4, 20, 40), N = 1, 2, 10;
* the paper's own setting for its analysis (§3.3 compares it with ns-2 at
  10 Gb/s, a 100 us round trip, K = 40, N = 2 and 10): the same, run at
  10 Gb/s and 100 us;
* one flow with one ACK per segment (``delayed_ack = false``, the ACK
  clock the analysis assumes) at 100 Mb/s, K = 40.

The flows are today's TCP (SACK, IW 10, Linux's delayed ACKs; the DCTCP
receiver of RFC 8257 §3.2 ACKs at once when the CE state changes), all
starting at t = 0 with equal round trips; the buffer (1000 packets) is
never reached. Runs: 6 s measured from 2 s at 100 Mb/s (600 round trips
from 200), 0.12 s from 0.04 s at 10 Gb/s (1200 from 400); ``--quick`` 4 s
from 2 s and 0.08 s from 0.03 s. The queue is sampled every RTT/10; the
sawtooth is cut into cycles (:func:`sawtooth`), and the model's Q_max and
A are compared with the mean peak and the mean peak-to-trough of the
cycles. α is the flows' ``dctcp_alpha`` averaged over the samples.

Checks (``model``, the analysis; tolerances by each constant):

* where the analysis keeps the queue from emptying (Q_min > 0): the peak
  against Q_max = K + N (2 packets: a delayed ACK releases two segments
  at once, which the one-packet-per-round increase of the analysis does
  not), and the swing against A = 1/2 sqrt(2N(C·RTT + K)) (20%: the
  closed form replaces the marked fraction by sqrt(2/W*), 8% off its own
  root at N = 10, and assumes synchronised sawtooths);
* the link is full (utilisation within 0.001 of 1; ccsim's full links read
  0.9999-1 here) exactly where Q_min > 0, and idles where Q_min < 0; at
  K > C·RTT/7, the paper's guideline, for every N;
* with one ACK per segment: α against sqrt(2/W*) (5%: the closed form's
  own approximation, 1% at W* = 123) and the swing against A (20%).

``consistency``: the queue at 10 Gb/s and 100 us equals the queue at
100 Mb/s and 10 ms at the same K and N (peak, trough and mean within 1
packet: the analysis is in packets and round trips; the ACK timers, which
do not scale, are the only difference).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np
import pandas as pd

from ...models import dctcp as M
from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.analysis import bottleneck_series
from .._kit.figures import grid, save, style_axes
from . import SOURCE as _SOURCE, PKT_BYTES, bottleneck_queue, flow, scenario

ID = "modern-dctcp-k"
SOURCE = f"{_SOURCE}, DCTCP queue and throughput against K (Alizadeh et al., SIGCOMM 2010, §3.3)"
DESCRIPTION = ("DCTCP over a step marker at K, N = 1, 2, 10 flows, 100 Mb/s 10 ms and 10 Gb/s 100 us: queue "
               "peak and swing, full link against K (Q_max = K + N, A, K > C·RTT/7)")

#: The settings: (rate, round trip); both a pipe of 83.3 packets.
SWEEP = (100e6, 0.010)
PAPER_SETTING = (10e9, 100e-6)
C_RTT = M.pipe_packets(SWEEP[0], SWEEP[1], PKT_BYTES)
BUFFER = 1000

#: §3.3's analysis and guideline, and its own setting (as data).
PAPER = {
    "q_max": "K + N",
    "amplitude": "1/2 sqrt(2 N (C·RTT + K))",
    "alpha": "sqrt(2 / W*), W* = (C·RTT + K) / N",
    "k_min": "K > C·RTT / 7",
    "c_rtt_pkts": round(C_RTT, 3),
    "setting": {"rate_bps": PAPER_SETTING[0], "rtt_s": PAPER_SETTING[1], "K": 40, "N": [2, 10]},
    "g": 1 / 16,
}

TOL_QMAX_PKTS = 2.0
TOL_AMPLITUDE = 0.20
TOL_FULL = 0.001
TOL_ALPHA = 0.05
TOL_SAME_PKTS = 1.0
NS = (1, 2, 10)


def setting(quick: bool) -> Dict[str, object]:
    if quick:
        return dict(ks=[4, 20, 40], duration=4.0, warmup=2.0, paper_duration=0.08, paper_warmup=0.03)
    return dict(ks=[2, 4, 8, 12, 16, 20, 30, 40, 65], duration=6.0, warmup=2.0, paper_duration=0.12,
                paper_warmup=0.04)


def _step(k: int) -> Dict[str, object]:
    return {"kind": "red", "limit_pkts": BUFFER, "min_th_pkts": k, "max_th_pkts": k + 1, "w_q": 1.0, "max_p": 1.0,
            "gentle": False, "ecn": True, "ecn_mark_above_max": True}


def _run(name: str, rate: float, rtt: float, n: int, k: int, duration: float, warmup: float,
         **fields: object) -> Dict[str, object]:
    return scenario(name, rate, rtt / 5, _step(k), [flow("dctcp", rtt, count=n, **fields)], duration, warmup,
                    rtt / 10)


def scenarios(quick: bool) -> List[Sweep]:
    s = setting(quick)
    rate, rtt = SWEEP
    base = _run(f"{ID}-sweep", rate, rtt, 1, 20, s["duration"], s["warmup"])
    points, labels = [], []
    for n in NS:
        for k in s["ks"]:
            points.append({"flows.0.count": n, "topology.bottleneck_queue": _step(k)})
            labels.append(("sweep", n, k))
    ack = _run(f"{ID}-ack-per-segment", rate, rtt, 1, 40, s["duration"], s["warmup"], delayed_ack=False)
    rate, rtt = PAPER_SETTING
    fast = _run(f"{ID}-10g", rate, rtt, 2, 40, s["paper_duration"], s["paper_warmup"])
    return [Sweep(base, points, labels),
            Sweep(fast, [{"flows.0.count": n} for n in (2, 10)], [("10g", n, 40) for n in (2, 10)]),
            Sweep(ack, [{}], [("ack-per-segment", 1, 40)])]


def sawtooth(q: np.ndarray) -> Tuple[float, float, int]:
    """(mean peak, mean trough, cycles) of a sampled sawtooth: a cycle rises
    above the middle of the 5th-95th percentile range by a quarter of that
    range and falls below it by as much (hysteresis against the packet-level
    noise); its peak is its highest sample, its trough the lowest before
    the next rise."""
    q = np.asarray(q, dtype=float)
    if len(q) == 0:
        return math.nan, math.nan, 0
    lo, hi = np.percentile(q, 5), np.percentile(q, 95)
    mid, h = (lo + hi) / 2.0, max(0.5, 0.25 * (hi - lo))
    peaks, troughs = [], []
    state, ext = None, 0.0
    for x in q:
        if state != "up" and x > mid + h:
            if state == "down":
                troughs.append(ext)
            state, ext = "up", x
        elif state != "down" and x < mid - h:
            if state == "up":
                peaks.append(ext)
            state, ext = "down", x
        elif state == "up":
            ext = max(ext, x)
        elif state == "down":
            ext = min(ext, x)
    n = min(len(peaks), len(troughs))
    if n == 0:
        return math.nan, math.nan, 0
    return float(np.mean(peaks)), float(np.mean(troughs)), n


def analyse(runs: Runs, quick: bool) -> Analysis:
    s = setting(quick)
    rows = []
    for sw, frame in zip(runs.sweeps, runs.frames):
        warm = float(sw.base["warmup_s"])
        for (kind, n, k), key in zip(sw.labels, frame["key"]):
            res = runs.load(key)
            link = res.bottleneck()
            q = bottleneck_queue(res, warm)
            peak, trough, cycles = sawtooth(q)
            fs = res.raw["series"]["flows"]
            t = np.asarray(fs["time_s"])
            alpha = np.asarray(fs.get("dctcp_alpha", []), dtype=float)
            alpha = float(np.nanmean(alpha[t > warm])) if len(alpha) else math.nan
            w = M.window_star(C_RTT, k, n)
            rows.append({"run": kind, "N": n, "K": k, "utilization": float(link["utilization"]),
                         "drops": int(link["drops"]), "marks": int(link["marks"]),
                         "peak_pkts": peak, "trough_pkts": trough, "swing_pkts": peak - trough, "cycles": cycles,
                         "mean_queue_pkts": float(q.mean()), "min_queue_pkts": float(q.min()),
                         "alpha": alpha, "model_q_max": M.q_max(k, n), "model_amplitude": M.amplitude(C_RTT, k, n),
                         "model_q_min": M.q_min(C_RTT, k, n), "model_alpha": M.alpha_approx(w),
                         "model_full": M.full_link(C_RTT, k, n)})
    table = pd.DataFrame(rows)
    # one run's queue for the plot: N = 2 at the largest K of the sweep, and the same at 10 Gb/s
    traces = {}
    for sw, frame in zip(runs.sweeps, runs.frames):
        for lab, key in zip(sw.labels, frame["key"]):
            if lab[0] in ("sweep", "10g") and lab[1] == 2 and lab[2] == 40:
                ls = bottleneck_series(runs.load(key))
                rtt = SWEEP[1] if lab[0] == "sweep" else PAPER_SETTING[1]
                t0 = float(sw.base["warmup_s"])
                ls = ls[(ls["time_s"] > t0) & (ls["time_s"] <= t0 + 20 * rtt)]
                traces[lab[0]] = ((ls["time_s"].to_numpy() - t0) / rtt, ls["queue_pkts"].to_numpy())
    return Analysis(table=table, traces=traces, ks=s["ks"])


def _row(t: pd.DataFrame, run: str, n: int, k: int) -> pd.Series:
    return t[(t["run"] == run) & (t["N"] == n) & (t["K"] == k)].iloc[0]


def checks(a: Analysis, quick: bool) -> List[Check]:
    t = a.table
    out: List[Check] = []
    for run, where in (("sweep", "100 Mb/s"), ("10g", "10 Gb/s")):
        for _, r in t[t["run"] == run].iterrows():
            n, k = int(r["N"]), int(r["K"])
            tag = f"{where}, N = {n}, K = {k}"
            if r["model_full"]:
                out.append(Check(f"{tag}: queue peak vs Q_max = K + N (packets, absolute)", paper=r["model_q_max"],
                                 ccsim=round(r["peak_pkts"], 3), relative=False, tolerance=TOL_QMAX_PKTS,
                                 source="model"))
                out.append(Check(f"{tag}: queue swing vs A = 1/2 sqrt(2N(C·RTT + K)) (packets)",
                                 paper=round(r["model_amplitude"], 3), ccsim=round(r["swing_pkts"], 3),
                                 tolerance=TOL_AMPLITUDE, source="model"))
            if run == "sweep":
                full = r["utilization"] >= 1.0 - TOL_FULL
                want = "full" if r["model_full"] else "idles"
                guide = "K > C·RTT/7, " if k > M.k_min(C_RTT) else ""
                out.append(Check(f"{tag}: link {want} ({guide}Q_min = {r['model_q_min']:.1f}; utilisation)",
                                 paper=want, ccsim=round(r["utilization"], 4), ok=bool(full == r["model_full"]),
                                 source="model"))
    r = _row(t, "ack-per-segment", 1, 40)
    out.append(Check("100 Mb/s, N = 1, K = 40, one ACK per segment: alpha vs sqrt(2/W*)",
                     paper=round(r["model_alpha"], 4), ccsim=round(r["alpha"], 4), tolerance=TOL_ALPHA,
                     source="model"))
    out.append(Check("100 Mb/s, N = 1, K = 40, one ACK per segment: queue swing vs A (packets)",
                     paper=round(r["model_amplitude"], 3), ccsim=round(r["swing_pkts"], 3), tolerance=TOL_AMPLITUDE,
                     source="model"))
    for n in (2, 10):
        sl, fa = _row(t, "sweep", n, 40), _row(t, "10g", n, 40)
        for col, what in (("peak_pkts", "peak"), ("trough_pkts", "trough"), ("mean_queue_pkts", "mean")):
            out.append(Check(f"N = {n}, K = 40: queue {what} at 10 Gb/s, 100 us as at 100 Mb/s, 10 ms (packets, "
                             "absolute)", paper=round(sl[col], 3), ccsim=round(fa[col], 3), relative=False,
                             tolerance=TOL_SAME_PKTS, source="consistency"))
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    t = a.table
    fig, axes = grid(1, 3, figsize=(15, 4.2))
    ax1, ax2, ax3 = axes[0]
    sweep = t[t["run"] == "sweep"]
    ks = np.linspace(min(a.ks), max(a.ks), 100)
    for i, n in enumerate(NS):
        d = sweep[sweep["N"] == n].sort_values("K")
        c = f"C{i}"
        ax1.plot(d["K"], d["peak_pkts"], "o", color=c, label=f"N = {n} peak")
        ax1.plot(d["K"], d["trough_pkts"], "v", color=c, mfc="none", label=f"N = {n} trough")
        ax1.plot(ks, [M.q_max(k, n) for k in ks], "-", color=c, lw=0.8)
        ax1.plot(ks, [max(0.0, M.q_min(C_RTT, k, n)) for k in ks], "--", color=c, lw=0.8)
        ax2.plot(d["K"], d["utilization"], "o-", color=c, label=f"N = {n}")
    ax2.axvline(M.k_min(C_RTT), color="grey", ls=":", lw=0.8, label="K = C·RTT/7")
    style_axes(ax1, "K (packets)", "queue (packets)", title="cycle peaks and troughs; lines: K + N, K + N - A")
    style_axes(ax2, "K (packets)", "bottleneck utilisation", title="100 Mb/s, 10 ms (C·RTT = 83 packets)")
    for name, (x, q) in a.traces.items():
        ax3.plot(x, q, lw=0.8, label="100 Mb/s, 10 ms" if name == "sweep" else "10 Gb/s, 100 us")
    ax3.axhline(M.q_max(40, 2), color="k", lw=0.8, ls="--", label="K + N")
    ax3.axhline(M.q_min(C_RTT, 40, 2), color="k", lw=0.8, ls=":", label="K + N - A")
    style_axes(ax3, "time (round trips)", "queue (packets)", title="N = 2, K = 40")
    fig.suptitle("Today's CC: DCTCP against K (Alizadeh et al. §3.3)" + (" (quick)" if quick else ""))
    return save(fig, out_dir, ID)
