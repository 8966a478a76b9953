"""Measurements every paper's analysis repeats, on a run's series.

* :func:`jain`: Jain's fairness index of a list of rates.
* :func:`nanmedian`: median ignoring NaN.
* Congestion events from the cwnd series (the engine does not report
  them): :func:`count_cuts` (every sample whose window fell by over 5%),
  :func:`window_cuts` (congestion-avoidance cuts of a sawtooth only),
  :func:`backoffs` (every flow's backoffs, drops within ``merge_s`` as one)
  and :func:`congestion_events` (backoffs of all flows clustered into
  network congestion events).
* Steady state: :func:`within` (samples of an interval),
  :func:`bottleneck_series`, :func:`steady_state` (bottleneck utilisation
  over a run's tail and the window a flow left slow start with).
"""

from __future__ import annotations

import math
import statistics
from typing import Dict, Iterable, List, Sequence, Tuple

import numpy as np
import pandas as pd

from ...results import Results

#: ssthresh above this is the engine's "not set yet" (still in the first slow start).
SSTHRESH_UNSET = 1e8


def jain(xs: Iterable[float]) -> float:
    """Jain's index (sum x)^2 / (n sum x^2); NaN when every x is 0."""
    xs = list(xs)
    s, q = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * q) if q > 0 else math.nan


def nanmedian(xs: Iterable[float]) -> float:
    """Median ignoring NaN; NaN when nothing is left."""
    xs = [x for x in xs if not math.isnan(x)]
    return statistics.median(xs) if xs else math.nan


# -- congestion events -----------------------------------------------------------


def count_cuts(cwnd: np.ndarray, keep: float = 0.95) -> int:
    """Samples whose cwnd is below ``keep`` x the previous one."""
    c = np.asarray(cwnd)
    return int((c[1:] < keep * c[:-1]).sum())


def window_cuts(g: pd.DataFrame, settle_s: float = 5.0) -> List[int]:
    """Sample indices at which a congestion-avoidance loss cut the window
    (one flow's series: time_s, cwnd, ssthresh): cwnd fell by over 5%
    (growth never lowers it) after growing above an unchanged ssthresh for
    at least ``settle_s``. Losses that end slow start, the recovery and
    timeout after an overshoot, and a slow start running into the buffer
    again are not cuts of the sawtooth. (A change of ssthresh is no marker:
    TCP's second cut sets the same value.)"""
    t, c, s = g["time_s"].to_numpy(), g["cwnd"].to_numpy(), g["ssthresh"].to_numpy()
    out = []
    for i in range(1, len(g)):
        if c[i] >= 0.95 * c[i - 1] or s[i - 1] > SSTHRESH_UNSET:
            continue
        j = i - 1
        while j > 0 and t[i - 1] - t[j] < settle_s and s[j - 1] == s[i - 1] and c[j - 1] > s[j - 1]:
            j -= 1
        if t[i - 1] - t[j] >= settle_s and c[i - 1] > s[i - 1]:
            out.append(i)
    return out


def cwnd_series(res: Results) -> Dict[int, Tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """flow id -> (time_s, cwnd, ssthresh) arrays, in time order."""
    fs = res.flow_series
    return {int(f): (g["time_s"].to_numpy(), g["cwnd"].to_numpy(), g["ssthresh"].to_numpy())
            for f, g in fs.sort_values("time_s").groupby("flow")}


def backoffs(res: Results, merge_s: float) -> pd.DataFrame:
    """One row per backoff of every flow: a sample whose cwnd is below the
    previous sample's, drops within ``merge_s`` of the last counted one
    merged into it (e.g. a timeout during recovery). Columns: flow, time_s,
    w_before (previous sample), w_after (the ssthresh set), beta
    (w_after / w_before), slow_start (cwnd < ssthresh before the drop)."""
    rows = []
    for flow, (t, cw, ss) in cwnd_series(res).items():
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
    """Network congestion events: clusters of ``backoffs`` within ``gap_s``.
    Columns k, time_s, w<i> (flow i's window just before its own backoff,
    or just before the event if it did not back off), drop<i> (backed off),
    n_drops; w<i> is NaN for a flow that has not started (``starts``)."""
    series = cwnd_series(res)
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


# -- steady state -------------------------------------------------------------------


def within(df: pd.DataFrame, a: float, b: float, dt: float) -> pd.DataFrame:
    """Samples whose interval (t - dt, t] lies inside [a, b] (each sample
    covers the interval ending at its time stamp)."""
    t = df["time_s"]
    return df[(t - dt >= a - 1e-9) & (t <= b + 1e-9)]


def bottleneck_series(res: Results) -> pd.DataFrame:
    """The link series of the bottleneck (first monitored link)."""
    ls = res.link_series
    return ls[ls["link"] == res.bottleneck()["id"]]


def flow_series(res: Results, flow: int) -> pd.DataFrame:
    """One flow's series, re-indexed from 0."""
    fs = res.flow_series
    return fs[fs["flow"] == flow].reset_index(drop=True)


def steady_state(res: Results, t0: float) -> Dict[str, float]:
    """Bottleneck utilisation after ``t0``, and the window the flow left
    slow start with (the first ssthresh set)."""
    ls = bottleneck_series(res)
    ls = ls[ls["time_s"] > t0 + 1e-9]
    fs = res.flow_series
    set_ss = fs.loc[fs["ssthresh"] < SSTHRESH_UNSET, "ssthresh"]
    return {"steady_utilization": float(ls["utilization"].mean()) if len(ls) else math.nan,
            "w_after_slow_start": float(set_ss.iloc[0]) if len(set_ss) else math.nan,
            "steady_from_s": t0}


__all__ = ["jain", "nanmedian", "count_cuts", "window_cuts", "cwnd_series", "backoffs", "congestion_events",
           "within", "bottleneck_series", "flow_series", "steady_state", "SSTHRESH_UNSET"]


def falls_pairwise(xs: Sequence[float]) -> bool:
    """Every consecutive pair strictly decreasing (not just the end points);
    a NaN anywhere fails. Fewer than two values: False (nothing shown)."""
    xs = [float(x) for x in xs]
    if len(xs) < 2 or any(math.isnan(x) for x in xs):
        return False
    return all(b < a for a, b in zip(xs, xs[1:]))


def sequence(xs: Sequence[float], fmt: str = ".3f") -> str:
    """``0.946 -> 0.958 -> 0.873``, for the ccsim column of a trend check."""
    return " -> ".join(format(float(x), fmt) for x in xs)
