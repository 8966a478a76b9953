"""``modern-l4s``: L4S coexistence. One TCP Prague flow (ECT(1), AccECN)
and one CUBIC flow (Not-ECT) share a 100 Mb/s dumbbell whose bottleneck
runs DualPI2 (RFC 9332) with Linux ``sch_dualpi2``'s defaults (target
15 ms, tupdate 16 ms, step 1 ms, k = 2, the classic queue's 10% weight),
at base round trips of 10 to 80 ms; and Prague alone on the same link.

What RFC 9332 states, and what is checked:

* The L queue's delay stays around its step threshold (1 ms, §2.5.1.1 and
  Linux's default): a scalable sender fills the link with a queue of about
  a millisecond. Checked: the L queue's median sojourn below the step, for
  Prague alone and beside CUBIC, at every round trip (``paper``).
* The PI controller holds the classic queue at its target (15 ms):
  checked as the PI's operating region, the C queue's mean sojourn
  between half the target and the target (``paper``; the integral rests
  at p' = 0 for part of each CUBIC cycle, so the mean stays below the
  target rather than on it, docs/scenario.md "DualPI2").
* The coupling (§2.1, §2.4): the L queue marks with probability
  p_L = k·p' and the classic queue drops with p_C = p'², so
  p_C = (p_L/k)² for a constant p'; as p' varies, E[p'²] >= E[p']²
  (Jensen). Checked: CUBIC's drop rate at least (p_L/2)² from Prague's
  marked fraction (``model``, :mod:`ccsim.models.l4s`), where the L queue
  stays below its step (its own marks then add nothing); the table gives
  the ratio.
* k = 2 gives "roughly equal" rates to a scalable and a Reno-like classic
  flow of equal RTT (§2.1): checked at the longest round trip, where the
  C queue adds least to CUBIC's RTT, as a rate ratio between 1/2 and 2
  (``paper``, the reading of "roughly"); and the model of the ratio,
  (W_L/W_C)·(R + q_C)/(R + q_L) with W_L = 2/p_L (DCTCP/Prague) and
  W_C = 1.22/√p_C (Reno) at the measured queues, whose RTT factor makes
  the L flow's advantage fall as the base RTT R grows: checked as the
  measured ratio falling with R (``model``).

* The L4S service keeps the queue short "without compromising link
  utilization" (RFC 9331, abstract): Prague alone fills the link
  (utilisation at least 0.95 after the warm-up, ``paper``).

Runs: full 120 s measured from 40 s, seeds 1-3, base RTTs 10, 20, 40 and
80 ms (Prague alone at 10, 20 and 40 ms); ``--quick`` 80 s from 40 s,
seed 1, 20 and 80 ms (alone: 20 ms). The long warm-up is Prague's start:
its initial window's burst is CE-marked at the 1 ms step, α starts at 1,
so the first mark halves W and ends slow start near the initial window;
from there it grows by a segment per round trip (the pipe of 667 packets
at 80 ms takes about 50 s). Flows start at t = 0 (Prague flow 0), today's
TCP (SACK, IW 10, Linux's delayed ACKs); 1500-byte packets. Per-queue delays come from the link's ``qdelay``
classes (``l``, ``c``), marks per flow from ``ce_marks``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Dict, List

import numpy as np
import pandas as pd

from ...models import l4s as M
from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.figures import grid, save, style_axes
from . import SOURCE as _SOURCE, flow, scenario, window_means

ID = "modern-l4s"
SOURCE = f"{_SOURCE}, L4S coexistence: TCP Prague and CUBIC over DualPI2 (RFC 9332)"
DESCRIPTION = ("TCP Prague + CUBIC over DualPI2 (Linux defaults), 100 Mb/s, base RTT 10-80 ms: per-queue delay, "
               "the coupling p_C = (p_L/2)^2, rate balance; Prague alone: the L queue at the 1 ms step")

RATE, BNECK_DELAY = 100e6, 0.001

#: What RFC 9332 states (claims as data; Linux sch_dualpi2's defaults).
PAPER = {
    "step_thresh_s": 0.001,
    "target_s": 0.015,
    "k": 2.0,
    "window_ratio": "W_L/W_C = 2/(1.22 k), 0.82 at k = 2 (scalable 2/p_L, Reno 1.22/sqrt(p_C))",
    "coupling": "p_L = k p', p_C = p'^2 (RFC 9332 §2.1, §2.4)",
    "rough_balance": "k = 2 gives roughly equal rates to scalable and Reno-like flows at equal RTT (§2.1)",
}

#: "Roughly equal": within a factor 2 either way.
ROUGH_FACTOR = 2.0
#: A full link (RFC 9331: L4S keeps queues short "without compromising
#: link utilization").
FULL_LINK = 0.95


def setting(quick: bool) -> Dict[str, object]:
    if quick:
        return dict(rtts=[0.02, 0.08], alone=[0.02], seeds=[1], duration=80.0, measure_from=40.0)
    return dict(rtts=[0.01, 0.02, 0.04, 0.08], alone=[0.01, 0.02, 0.04], seeds=[1, 2, 3], duration=120.0,
                measure_from=40.0)


def _base(name: str, flows: List[dict], s: Dict[str, object]) -> dict:
    sc = scenario(name, RATE, BNECK_DELAY, {"kind": "dualpi2"}, flows, s["duration"], s["measure_from"], 0.5)
    sc["qdelay"] = True
    return sc


def scenarios(quick: bool) -> List[Sweep]:
    s = setting(quick)
    rtt0 = s["rtts"][0]
    pair = _base(f"{ID}-prague-cubic", [flow("prague", rtt0), flow("cubic", rtt0)], s)
    alone = _base(f"{ID}-prague-alone", [flow("prague", rtt0)], s)
    pts, labels = [], []
    for r in s["rtts"]:
        for seed in s["seeds"]:
            pts.append({"flows.0.rtt_s": r, "flows.1.rtt_s": r, "seed": seed})
            labels.append(("pair", r, seed))
    apts = [{"flows.0.rtt_s": r} for r in s["alone"]]
    return [Sweep(pair, pts, labels), Sweep(alone, apts, [("alone", r, 1) for r in s["alone"]])]


def _classes(res) -> Dict[str, dict]:
    """The forward bottleneck's per-queue delays, by class (``l``, ``c``)."""
    qc = res.qdelay_classes
    link = res.bottleneck()
    rows = qc[qc["link"] == link["id"]] if "link" in qc.columns else qc
    return {str(r["class"]): dict(r) for _, r in rows.iterrows()}


def analyse(runs: Runs, quick: bool) -> Analysis:
    s = setting(quick)
    rows = []
    for sw, frame in zip(runs.sweeps, runs.frames):
        for (kind, rtt, seed), key in zip(sw.labels, frame["key"]):
            res = runs.load(key)
            link = res.bottleneck()
            q = _classes(res)
            l, c = q.get("l", {}), q.get("c", {})
            flows = res.flows
            g = window_means(res, s["measure_from"], s["duration"])
            marks_l = float(flows.iloc[0]["ce_marks"])
            pkts_l = float(l.get("pkts", 0) or 0)
            row = {"run": kind, "rtt_s": rtt, "seed": seed, "utilization": float(link["utilization"]),
                   "drops": int(link["drops"]), "marks": int(link["marks"]),
                   "l_p50_s": l.get("p50_s", math.nan), "l_p99_s": l.get("p99_s", math.nan),
                   "l_mean_s": l.get("mean_s", math.nan), "l_pkts": pkts_l,
                   "prague_mbps": g.get(0, 0.0) / 1e6, "p_l": marks_l / pkts_l if pkts_l else math.nan}
            if kind == "pair":
                pkts_c = float(c.get("pkts", 0) or 0)
                drops = float(link["drops"])
                row.update(c_p50_s=c.get("p50_s", math.nan), c_mean_s=c.get("mean_s", math.nan), c_pkts=pkts_c,
                           cubic_mbps=g.get(1, 0.0) / 1e6,
                           p_c=drops / (pkts_c + drops) if pkts_c + drops > 0 else math.nan)
                row["ratio"] = row["prague_mbps"] / row["cubic_mbps"] if row["cubic_mbps"] > 0 else math.nan
                row["model_ratio"] = M.rate_ratio(rtt, row["c_mean_s"], row["l_mean_s"], k=PAPER["k"])
                row["p_c_coupled"] = M.classic_from_l4s(row["p_l"], PAPER["k"])
            rows.append(row)
    table = pd.DataFrame(rows)
    pair = table[table["run"] == "pair"]
    by_rtt = pair.groupby("rtt_s")[["ratio", "model_ratio", "p_l", "p_c", "p_c_coupled", "l_p50_s", "c_mean_s",
                                     "prague_mbps", "cubic_mbps"]].mean()
    return Analysis(table=table, by_rtt=by_rtt)


def checks(a: Analysis, quick: bool) -> List[Check]:
    out: List[Check] = []
    t, by = a.table, a.by_rtt
    step, target = PAPER["step_thresh_s"], PAPER["target_s"]
    for _, r in t[t["run"] == "alone"].sort_values("rtt_s").iterrows():
        out.append(Check(f"Prague alone, RTT {r['rtt_s'] * 1e3:g} ms: it fills the link (utilisation)",
                         paper=f">= {FULL_LINK:g}", ccsim=round(float(r["utilization"]), 4),
                         ok=bool(r["utilization"] >= FULL_LINK), source="paper"))
    for _, r in t.sort_values(["run", "rtt_s", "seed"]).iterrows():
        who = "Prague alone" if r["run"] == "alone" else f"Prague + CUBIC, seed {r['seed']}"
        out.append(Check(f"{who}, RTT {r['rtt_s'] * 1e3:g} ms: L-queue median sojourn below the 1 ms step (ms)",
                         paper=f"< {step * 1e3:g}", ccsim=round(float(r["l_p50_s"]) * 1e3, 4),
                         ok=bool(r["l_p50_s"] < step), source="paper"))
    for rtt, r in by.iterrows():
        cm = float(r["c_mean_s"])
        out.append(Check(f"RTT {rtt * 1e3:g} ms: C-queue mean sojourn in the PI's region, target/2 to target (ms)",
                         paper=f"{target * 500:g}-{target * 1e3:g}", ccsim=round(cm * 1e3, 3),
                         ok=bool(target / 2 <= cm <= target), source="paper"))
        if r["l_p50_s"] < step and r["p_c"] > 0:
            out.append(Check(f"RTT {rtt * 1e3:g} ms: CUBIC's drop rate at least the coupling's (p_L/2)^2",
                             paper=f">= {float(r['p_c_coupled']):.3g}", ccsim=round(float(r["p_c"]), 7),
                             ok=bool(r["p_c"] >= r["p_c_coupled"]), source="model"))
    longest = max(by.index)
    ratio = float(by.loc[longest, "ratio"])
    out.append(Check(f"RTT {longest * 1e3:g} ms: Prague/CUBIC rate ratio roughly 1 (within a factor 2)",
                     paper=f"{1 / ROUGH_FACTOR:g}-{ROUGH_FACTOR:g}", ccsim=round(ratio, 3),
                     ok=bool(1 / ROUGH_FACTOR <= ratio <= ROUGH_FACTOR), source="paper"))
    if len(by) >= 2:
        r = by["ratio"].to_numpy(dtype=float)
        falling = bool(np.all(np.diff(r) < 0))
        out.append(Check("the L flow's advantage falls as the base RTT grows (ratio at each RTT, shortest first)",
                         paper="falling", ccsim=", ".join(f"{x:.3g}" for x in r), ok=falling, source="model"))
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    t, by = a.table, a.by_rtt
    fig, axes = grid(1, 3, figsize=(15, 4.2))
    ax1, ax2, ax3 = axes[0]
    ms = np.asarray(by.index, dtype=float) * 1e3
    pair = t[t["run"] == "pair"]
    ax1.plot(pair["rtt_s"] * 1e3, pair["ratio"], "o", ms=3, alpha=0.4, color="C0", label="ccsim (each seed)")
    ax1.plot(ms, by["ratio"], "o-", color="C0", label="ccsim Prague/CUBIC")
    ax1.plot(ms, by["model_ratio"], "k--", lw=1, label="window balance x RTT factor")
    ax1.axhline(1.0, color="grey", lw=0.8, ls=":")
    style_axes(ax1, "base RTT (ms)", "rate ratio Prague / CUBIC", xlog=True, title="rate balance, k = 2")
    alone = t[t["run"] == "alone"].sort_values("rtt_s")
    ax2.plot(alone["rtt_s"] * 1e3, alone["l_p50_s"] * 1e3, "o-", label="L median, Prague alone")
    ax2.plot(alone["rtt_s"] * 1e3, alone["l_p99_s"] * 1e3, "s:", label="L p99, Prague alone")
    ax2.plot(ms, by["l_p50_s"] * 1e3, "^-", label="L median, with CUBIC")
    ax2.plot(ms, by["c_mean_s"] * 1e3, "v-", label="C mean, with CUBIC")
    ax2.axhline(PAPER["step_thresh_s"] * 1e3, color="k", lw=0.8, ls="--", label="step 1 ms")
    ax2.axhline(PAPER["target_s"] * 1e3, color="C3", lw=0.8, ls="--", label="target 15 ms")
    style_axes(ax2, "base RTT (ms)", "queueing delay (ms)", xlog=True, ylog=True, title="per-queue delay")
    ax3.plot(by["p_l"], by["p_c"], "o", label="ccsim (p_L, p_C)")
    xs = np.geomspace(max(1e-4, float(np.nanmin(by["p_l"])) / 2), float(np.nanmax(by["p_l"])) * 2, 40)
    ax3.plot(xs, [M.classic_from_l4s(x, PAPER["k"]) for x in xs], "k--", lw=1, label="(p_L / 2)^2")
    style_axes(ax3, "Prague's marked fraction p_L", "CUBIC's drop rate p_C", xlog=True, ylog=True,
               title="the coupling")
    fig.suptitle("Today's CC: L4S coexistence over DualPI2" + (" (quick)" if quick else ""))
    return save(fig, out_dir, ID)
