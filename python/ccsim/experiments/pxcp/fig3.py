"""``pxcp-fig3``: long flows with dynamic short flows (paced-XCP paper §4.3,
"Dumbbell Topology Simulations with Web-like Traffic", Fig 3).

Setup (§4.2 and §4.3): a 622 Mb/s bottleneck with 30 ms delay, 2.4 Gb/s
extension links, per source-destination RTT uniform on [64, 100] ms; 40
long FTP flows and N short-flow nodes on each side (two-way traffic: the
reverse direction carries the same), N from 0 to 400; every source starts
at a random time in [0, 10] s; 50 s runs, utilisation averaged over
[20, 50] s. Short flows are ccsim's ``app = "shortflow"`` with the
paper's values (Pareto files of shape 1.35 and mean 30 packets, one at a
time per node, an exponential off time of mean 0.2 s after each file;
docs/scenario.md "Short-flow nodes": the off time runs from the file's
completion). The short flows use the protocol under test.

The common readings are those of the paper's other dumbbell experiments
(``pxcp-fig1``, ``pxcp-fig2``): 1000-byte packets including headers
(960-byte payload, 40-byte header), fine timers (clock granularity
0.1 ms), TCP's ssthresh 64 packets, byte-limited drop-tail queues, the
rule-of-thumb buffer RTT x BW at the 82 ms mean RTT (6,375,500 bytes) on
every link, XCP routers with the conservative parameter set (C.P.) and ACK
bytes counted on both bottleneck directions (none on the access links),
XCP windows driven by the routers' feedback alone
(``reno_increase = false``, §2's ``cwnd = max(cwnd + H_feedback, s)``;
docs/decisions/2026-11-24-xcp-end-system-as-ns2.md for why), Reno recovery
for XCP, HSTCP with SACK and ns-2's Low_P; they come from
``pxcp/__init__`` (:func:`.flow`, :func:`.dumbbell`, :data:`.PROTOCOLS`).

Two stages, as the paper: (a) P. XCP C.P. with rule-of-thumb buffers gives
the maximum bottleneck occupancy for each N (Fig 3(a), the forward
direction's); (b) every protocol (paced and non-paced XCP C.P., Reno,
NewReno, HSTCP) runs with the bottleneck buffer (both directions) set to
ccsim's stage-(a) maximum for the same N, the larger of the two
directions' (the reverse carries the same traffic; with the forward
maximum alone the reverse queue would drop what it held in stage (a)).
The paper's Fig 3(a) values are not stated in its text.

N: 0, 50, 100, 200, 300, 400 (the figure's points are not in the text;
"N is between [0-400]"). ``--quick``: N = 0 and 100, 8 s runs measured
after 4 s with starts in [0, 2] s (a smoke test of the pipeline; the
flows have not converged).

Checks (paper, §4.3 text): the maximum occupancy "do[es] not show a big
change" with N (read as: largest over smallest below 2); short flows
inject "less than 30% of bottleneck link utilization"; P. XCP's
utilisation falls as N grows; P. TCP and N.P. TCP utilisation rises with
N (last point above N = 0); P. Reno "generally" below P. NewReno and P.
HSTCP (mean over N); P. HSTCP above P. NewReno "at some points"; N.P.
NewReno and HSTCP "almost the same" (mean over N, 0.03 absolute) and N.P.
Reno the worst; P. XCP C.P. with no short flows around the capacity
parameter 0.9 (§4.2.2, 0.03 absolute). Consistency: P. XCP run again with
the buffer at its own maximum occupancy drops nothing and repeats its
utilisation; the mean time from a file's completion to the node's next
file is the configured 0.2 s off time (the closed loop of one file at a
time, then an off time; 5%).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import pandas as pd

from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.analysis import falls_pairwise, sequence
from .._kit.figures import grid, save, style_axes
from . import HEADER, MSS, PACING, RATE, ROT_BUFFER, dumbbell, flow, scenario
from . import label as _label

ID = "pxcp-fig3"
SOURCE = "Paced XCP/TCP in small buffers (Alparslan, Arakawa, Murata), Fig 3 (§4.3)"
#: an ns-2 (2.28) figure: every agent runs in ns-2 mode with timestamps (package docstring)
NS2_FIGURE = True
DESCRIPTION = ("40 long flows plus 0-400 short-flow nodes per direction: P. XCP C.P. maximum occupancy (a), "
               "utilisation of P./N.P. XCP C.P., Reno, NewReno, HSTCP with those buffers (b)")

LONG_FLOWS = 40
OFF_MEAN_S = 0.2

#: The paper's protocols in Fig 3's order (:data:`.PROTOCOLS` has their settings).
PROTOCOLS = ("XCP", "Reno", "NewReno", "HSTCP")
TCPS = ("Reno", "NewReno", "HSTCP")

PAPER = {"n_short": (0, 400), "long_flows": LONG_FLOWS, "short_share_max": 0.30, "pcp_utilization": 0.9,
         "max_occupancy_change_factor": 2.0}
#: "around the value of capacity parameter", "almost the same": 0.03 absolute.
TOL_UTIL = 0.03


def setting(quick: bool):
    """(N values, duration, measured from, start spread)."""
    if quick:
        return [0, 100], 8.0, 4.0, 2.0
    return [0, 50, 100, 200, 300, 400], 50.0, 20.0, 10.0


def label(pacing: str, proto: str) -> str:
    """Fig 3's name of a variant: XCP always runs the conservative set."""
    return _label(pacing, proto, "C.P." if proto == "XCP" else None)


def _scenario(proto: str, pacing: str, n: int, buffer_bytes: int, quick: bool) -> Dict[str, Any]:
    """40 long flows and ``n`` short-flow nodes, each direction; flows 0, 1
    long (forward, reverse), 2, 3 short (forward, reverse)."""
    _, dur, warm, spread = setting(quick)
    topo = dumbbell(buffer_bytes, "C.P." if proto == "XCP" else None)
    flows = [flow(proto, pacing, LONG_FLOWS, start_spread_s=spread),
             flow(proto, pacing, LONG_FLOWS, start_spread_s=spread, direction="reverse")]
    if n:
        short = {"app": "shortflow", "app_params": {"off_mean_s": OFF_MEAN_S}}
        flows += [flow(proto, pacing, n, start_spread_s=spread, **short),
                  flow(proto, pacing, n, start_spread_s=spread, direction="reverse", **short)]
    return scenario(f"{ID}-{label(pacing, proto)}-{n}", topo, flows, dur, warm)


def scenarios(quick: bool) -> List[Sweep]:
    """Stage (a): P. XCP C.P. with rule-of-thumb buffers, per N."""
    ns = setting(quick)[0]
    return [Sweep(_scenario("XCP", "P.", n, ROT_BUFFER, quick), [{}], [("a", "P.", "XCP", n, ROT_BUFFER)])
            for n in ns]


def _max_queues(res) -> List[int]:
    """Maximum queue (bytes) of the bottleneck's directions, forward first."""
    return [int(link["max_queue_bytes"]) for link in res.raw["links"] if link["monitored"]]


def _stage_a_max(runs: Runs) -> Dict[int, int]:
    """Per N, stage (a)'s largest bottleneck occupancy over both directions
    (the buffer is set on the link, both ways; the reverse direction carries
    the same traffic and its maximum may be the larger one)."""
    out = {}
    for s, frame in zip(runs.sweeps, runs.frames):
        for lab, key in zip(s.labels, frame["key"]):
            if lab[0] == "a":
                out[lab[3]] = max(_max_queues(runs.load(key)))
    return out


def scenarios_after(runs: Runs, quick: bool) -> List[Sweep]:
    """Stage (b): every protocol with the bottleneck buffer at stage (a)'s
    maximum occupancy for the same N."""
    occ = _stage_a_max(runs)
    return [Sweep(_scenario(proto, pacing, n, max(occ[n], 1), quick), [{}], [("b", pacing, proto, n, occ[n])])
            for pacing in PACING for proto in PROTOCOLS for n in setting(quick)[0]]


def _short_stats(res, n: int, dur: float, warm: float) -> Dict[str, float]:
    """Forward short files started after the warm-up: count, load share of
    the bottleneck (payload on the wire with headers), completion times;
    and, over the whole run and both directions, the off periods: from a
    file's completion to the node's next file."""
    tr = res.transfers
    nan = float("nan")
    if n == 0 or len(tr) == 0:
        return {"files": 0, "short_share": 0.0, "mean_fct_s": nan, "median_fct_s": nan, "off_periods": 0,
                "mean_off_s": nan}
    fwd = tr[(tr["entry"] == 2) & (tr["start_s"] >= warm)]
    done = fwd[fwd["fct_s"].notna()]
    wire = fwd["delivered_bytes"].sum() * (MSS + HEADER) / MSS
    nodes = tr.sort_values(["entry", "user", "page"])
    same = (nodes["entry"] == nodes["entry"].shift()) & (nodes["user"] == nodes["user"].shift())
    off = (nodes["start_s"] - nodes["completed_s"].shift())[same]
    return {"files": int(len(fwd)), "short_share": float(wire * 8 / (RATE * (dur - warm))),
            "mean_fct_s": float(done["fct_s"].mean()) if len(done) else nan,
            "median_fct_s": float(done["fct_s"].median()) if len(done) else nan,
            "off_periods": int(len(off)), "mean_off_s": float(off.mean())}


def analyse(runs: Runs, quick: bool) -> Analysis:
    _, dur, warm, _ = setting(quick)
    rows = []
    for s, frame in zip(runs.sweeps, runs.frames):
        for (stage, pacing, proto, n, buf), key in zip(s.labels, frame["key"]):
            res = runs.load(key)
            b = res.bottleneck()
            rows.append({"stage": stage, "variant": label(pacing, proto), "pacing": pacing, "protocol": proto,
                         "n_short": n, "buffer_bytes": buf, "utilization": float(b["utilization"]),
                         "max_queue_bytes": int(b["max_queue_bytes"]),
                         "max_queue_bytes_rev": _max_queues(res)[1], "drops": int(b["drops"]),
                         "loss_rate": float(b["loss_rate"]), **_short_stats(res, n, dur, warm)})
    return Analysis(table=pd.DataFrame(rows))


def _util(t: pd.DataFrame, pacing: str, proto: str) -> pd.Series:
    d = t[(t["stage"] == "b") & (t["pacing"] == pacing) & (t["protocol"] == proto)]
    return d.set_index("n_short")["utilization"].sort_index()


def checks(a: Analysis, quick: bool) -> List[Check]:
    t = a.table
    st_a = t[t["stage"] == "a"].set_index("n_short").sort_index()
    ns = list(st_a.index)
    lo, hi = ns[0], ns[-1]
    out: List[Check] = []
    occ = st_a["max_queue_bytes"]
    ratio = float(occ.max() / max(occ.min(), 1))
    out.append(Check(f"P. XCP C.P. max occupancy over N = {lo}..{hi}: largest / smallest under 2 "
                     "(\"do not show a big change\")", paper="< 2", ccsim=f"{ratio:.2f} ({sequence(occ, '.0f')} B)",
                     ok=bool(ratio < PAPER["max_occupancy_change_factor"]), source="paper"))
    share = float(st_a.loc[hi, "short_share"])
    out.append(Check(f"P. XCP C.P., N = {hi}: short flows' share of the bottleneck under 30%", paper="< 0.3",
                     ccsim=round(share, 4), ok=bool(share < PAPER["short_share_max"]), source="paper"))
    u = _util(t, "P.", "XCP")
    out.append(Check("P. XCP C.P.: utilisation falls as N grows", paper=True, ccsim=sequence(u),
                     ok=falls_pairwise(u.values), source="paper"))
    out.append(Check("P. XCP C.P., no short flows: utilisation around the capacity parameter (§4.2.2, absolute)",
                     paper=PAPER["pcp_utilization"], ccsim=round(float(u.loc[lo]), 4), tolerance=TOL_UTIL,
                     relative=False, source="paper"))
    for pacing in PACING:
        for p in TCPS:
            v = _util(t, pacing, p)
            out.append(Check(f"{pacing} {p}: utilisation higher with N = {hi} than with N = {lo}", paper=True,
                             ccsim=sequence(v), ok=bool(v.loc[hi] > v.loc[lo]), source="paper"))
    m = {(pacing, p): float(_util(t, pacing, p).mean()) for pacing in PACING for p in TCPS}
    out.append(Check("P. Reno below P. NewReno and P. HSTCP (mean over N)", paper=True,
                     ccsim=f"Reno {m['P.', 'Reno']:.3f}, NewReno {m['P.', 'NewReno']:.3f}, "
                           f"HSTCP {m['P.', 'HSTCP']:.3f}",
                     ok=bool(m["P.", "Reno"] < min(m["P.", "NewReno"], m["P.", "HSTCP"])), source="paper"))
    gap = _util(t, "P.", "HSTCP") - _util(t, "P.", "NewReno")
    out.append(Check("P. HSTCP above P. NewReno at some N", paper=True, ccsim=f"HSTCP - NewReno: {sequence(gap)}",
                     ok=bool((gap > 0).any()), source="paper"))
    out.append(Check("N.P. NewReno and N.P. HSTCP almost the same (mean over N, absolute)",
                     paper=round(m["N.P.", "NewReno"], 4), ccsim=round(m["N.P.", "HSTCP"], 4), tolerance=TOL_UTIL,
                     relative=False, source="paper"))
    out.append(Check("N.P. Reno the lowest N.P. TCP (mean over N)", paper=True,
                     ccsim=f"Reno {m['N.P.', 'Reno']:.3f}, NewReno {m['N.P.', 'NewReno']:.3f}, "
                           f"HSTCP {m['N.P.', 'HSTCP']:.3f}",
                     ok=bool(m["N.P.", "Reno"] < min(m["N.P.", "NewReno"], m["N.P.", "HSTCP"])), source="paper"))
    # consistency: P. XCP again with the buffer at its own maximum occupancy
    b = t[(t["stage"] == "b") & (t["variant"] == label("P.", "XCP"))].set_index("n_short").sort_index()
    diff = float((b["utilization"] - st_a["utilization"]).abs().max())
    drops = int(b["drops"].sum())
    out.append(Check("P. XCP C.P. with the buffer at its own max occupancy: same utilisation, no drops "
                     "(largest |difference| over N)", paper=0.0, ccsim=f"{diff:.2e}, {drops} drops",
                     ok=bool(diff < 1e-3 and drops == 0), source="consistency"))
    # consistency: the closed loop of one file at a time and an off time after it
    if hi > 0:
        row = st_a.loc[hi]
        out.append(Check(f"P. XCP C.P., N = {hi}: mean time from a file's completion to the node's next file "
                         f"({int(row['off_periods'])} off periods) vs the configured mean off time (s)",
                         paper=OFF_MEAN_S, ccsim=round(float(row["mean_off_s"]), 4), tolerance=0.05,
                         source="consistency"))
    return out


STYLE = {"Reno": "v", "NewReno": "o", "HSTCP": "^", "XCP": "s"}


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    t = a.table
    fig, axes = grid(1, 3, figsize=(16, 4.4))
    st_a = t[t["stage"] == "a"].sort_values("n_short")
    ax = axes[0][0]
    ax.plot(st_a["n_short"], st_a["max_queue_bytes"], "s-", label="P. XCP C.P. (rule-of-thumb buffer)")
    ax.set_ylim(0, 1.1 * float(st_a["max_queue_bytes"].max()))
    style_axes(ax, "short-flow nodes per direction", "max bottleneck queue (bytes)", title="Fig 3(a)")
    for col, (ycol, ylabel, title) in enumerate((("utilization", "bottleneck utilisation", "Fig 3(b)"),
                                                ("mean_fct_s", "mean short-flow completion time (s)",
                                                 "short files started after the warm-up")), start=1):
        ax = axes[0][col]
        for pacing, ls in (("P.", "-"), ("N.P.", "--")):
            for p, m in STYLE.items():
                d = t[(t["stage"] == "b") & (t["pacing"] == pacing) & (t["protocol"] == p)].sort_values("n_short")
                ax.plot(d["n_short"], d[ycol], m + ls, label=label(pacing, p))
        if ycol == "utilization":
            ax.set_ylim(0, 1.05)
        style_axes(ax, "short-flow nodes per direction (buffer: P. XCP's max occupancy)", ylabel, title=title)
    fig.suptitle("Paced-XCP paper Fig 3: long and short flows" + (" (quick)" if quick else ""))
    return save(fig, out_dir, ID)

