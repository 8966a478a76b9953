"""``pxcp-ns2``: ccsim's XCP (routers and end systems) against ns-2.35's,
the implementation the paced-XCP paper ran, on the 20 Mb/s dumbbell with
2, 10 and 100 flows (checks of source ``ns-2``).

``python -m validation.xcp_compare 2 10 100 --seeds 6 --json FILE`` runs
each row in ns-2.35 (``Queue/XCP`` on both bottleneck directions,
``Agent/TCP/Reno/XCP`` with ``Agent/TCPSink/XCPSink``; validation/
xcp_dumbbell.tcl) and in ccsim; its record is this experiment's
:data:`REFERENCE` (CI has no ns-2, so ns-2's side is read from it). The
network and ccsim's side are :func:`scenario`: bottleneck 20 Mb/s and
10 ms, edges 100 Mb/s and 5 ms (RTT 40 ms), 200-packet buffer with an
XCP router, 1000-byte segments (1050 bytes on the wire: ns-2's TCP/IP
header and timestamp option), flow i starting at i/2N s, ns-2's SYN
start-up, 20 s measured over the second half (docs/validation.md, "XCP").

Checks, each row: utilisation, the flows' mean, smallest and largest
throughput and Jain's index within 5% of ns-2's (:data:`TOL`), and no
drop where ns-2 has none. The maximum queue is a start-up transient set
by where the routers' first control-interval timers fall (xcpq.cc
``XCPQueue::setupTimers`` draws them at random), so it is compared as
ranges over seeds 1-6 on both sides (ns-2's default RNG seed, ccsim's
scenario seed): the check is that the two ranges overlap. One consistency
check: the record's ccsim column is what ccsim gives now.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional

import pandas as pd

from .. import Check
from .._kit import Analysis, Runs, Sweep, ns2ref
from .._kit.analysis import jain
from .._kit.figures import grid, save, style_axes
from . import SOURCE as _SOURCE

ID = "pxcp-ns2"
SOURCE = f"{_SOURCE}: its XCP against ns-2.35's (the paper's simulator)"
DESCRIPTION = "XCP on a 20 Mb/s dumbbell, 2/10/100 flows: ccsim vs the recorded ns-2.35 run"

REFERENCE = Path(__file__).with_name("ns2_reference.json")
RECORDER = "python -m validation.xcp_compare 2 10 100 --seeds 6 --json python/ccsim/experiments/pxcp/ns2_reference.json"
#: Relative tolerance of the ns-2 checks (above it a difference's cause is traced).
TOL = 0.05
RATE, DURATION = 20e6, 20.0
SEEDS = range(1, 7)
METRICS = ("utilization", "mean_mbps", "min_mbps", "max_mbps", "jain")
PAPER = {"reference": REFERENCE.name, "metrics": METRICS, "tolerance": TOL}


def scenario(n: int, seed: Optional[int] = None) -> Dict[str, Any]:
    """The N-flow dumbbell as validation/xcp_dumbbell.tcl builds it in
    ns-2; ``seed`` None leaves the scenario's default seed (ns-2's run
    without ``$defaultRNG seed``)."""
    sc = {"name": f"{ID}-{n}", "duration_s": DURATION, "warmup_s": DURATION / 2, "sample_interval_s": 0.0,
          "topology": {"kind": "dumbbell", "bottleneck_rate_bps": RATE, "bottleneck_delay_s": 0.01,
                       "bottleneck_queue": {"limit_pkts": 200, "xcp": True},
                       "edge_rate_bps": 100e6, "edge_delay_s": 0.005},
          # Agent/TCP/Reno/XCP is a RenoTcpAgent: its window (ns2ref.NS2_RENO)
          "flows": [{"cc": "xcp", "recovery": "reno", "delayed_ack": False, "header_bytes": 50, "syn": "ns2",
                     **ns2ref.NS2_RENO, "start_s": i * 0.5 / n} for i in range(n)]}
    if seed is not None:
        sc["seed"] = seed
    return sc


def reference() -> List[Dict[str, Any]]:
    return json.loads(REFERENCE.read_text(encoding="utf-8"))


def _rows(quick: bool) -> List[Dict[str, Any]]:
    return [r for r in reference() if not quick or r["flows"] <= 10]


def scenarios(quick: bool) -> List[Sweep]:
    out = []
    for r in _rows(quick):
        n = r["flows"]
        out.append(Sweep(scenario(n), [{}], [(n, None)]))
        out += [Sweep(scenario(n, s), [{}], [(n, s)]) for s in SEEDS]
    return out


def _measure(res) -> Dict[str, Any]:
    b = res.bottleneck()
    mbps = [float(x) / 1e6 for x in res.flows.sort_values("id")["throughput_bps"]]
    return {"utilization": float(b["utilization"]), "max_queue_pkts": int(b["max_queue_pkts"]),
            "drops": int(b["drops"]), "flow_mbps": mbps}


def _summary(m: Dict[str, Any]) -> Dict[str, float]:
    f = m["flow_mbps"]
    return {"utilization": m["utilization"], "mean_mbps": sum(f) / len(f), "min_mbps": min(f),
            "max_mbps": max(f), "jain": jain(f), "drops": m["drops"]}


def analyse(runs: Runs, quick: bool) -> Analysis:
    ref = {r["flows"]: r for r in reference()}
    mine: Dict[int, Dict[Any, Dict[str, Any]]] = {}
    for s, frame in zip(runs.sweeps, runs.frames):
        for (n, seed), key in zip(s.labels, frame["key"]):
            mine.setdefault(n, {})[seed] = _measure(runs.load(key))
    rows = []
    for n, per in sorted(mine.items()):
        r = ref[n]
        row: Dict[str, Any] = {"flows": n}
        for side, m in (("ns2", _summary(r["ns2"])), ("ccsim", _summary(per[None])),
                        ("recorded_ccsim", _summary(r["ccsim"]))):
            row.update({f"{side}_{k}": v for k, v in m.items()})
        row["ns2_max_queue_pkts"] = r["ns2"]["max_queue_pkts"]
        row["ccsim_max_queue_pkts"] = per[None]["max_queue_pkts"]
        ns2_q = [v["ns2_max_queue_pkts"] for v in r["seeds"].values()]
        cc_q = [per[s]["max_queue_pkts"] for s in SEEDS]
        row.update(ns2_q_lo=min(ns2_q), ns2_q_hi=max(ns2_q), ccsim_q_lo=min(cc_q), ccsim_q_hi=max(cc_q))
        rows.append(row)
    return Analysis(table=pd.DataFrame(rows))



def checks(a: Analysis, quick: bool) -> List[Check]:
    out = []
    for r in a.table.itertuples(index=False):
        tag = f"{r.flows} flows"
        for k in METRICS:
            out.append(Check(f"{tag}: {k}", paper=round(float(getattr(r, f"ns2_{k}")), 6),
                             ccsim=round(float(getattr(r, f"ccsim_{k}")), 6), tolerance=TOL, source="ns-2"))
        out.append(Check(f"{tag}: drops at the bottleneck", paper=int(r.ns2_drops), ccsim=int(r.ccsim_drops),
                         relative=False, tolerance=0, source="ns-2"))
        overlap = r.ccsim_q_lo <= r.ns2_q_hi and r.ns2_q_lo <= r.ccsim_q_hi
        out.append(Check(f"{tag}: maximum queue (pkts), range over seeds 1-6 overlaps ns-2's",
                         paper=f"{r.ns2_q_lo}-{r.ns2_q_hi}", ccsim=f"{r.ccsim_q_lo}-{r.ccsim_q_hi}", ok=bool(overlap),
                         source="ns-2"))
    t = a.table
    worst = 0.0
    for k in METRICS:
        rec = t[f"recorded_ccsim_{k}"]
        worst = max(worst, float((t[f"ccsim_{k}"] - rec).abs().div(rec.abs()).max()))
    out.append(Check("ccsim now vs the ccsim column recorded beside ns-2 (largest relative difference; "
                     "0 = the record is current)", paper=0.0, ccsim=worst, relative=False, tolerance=1e-9,
                     source="consistency"))
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    """Per-flow-count ratios ccsim / ns-2 of each checked metric (grey: ±5%)."""
    fig, axes = grid(1, 1, figsize=(6.5, 3.6))
    ax = axes[0][0]
    t = a.table
    for i, k in enumerate(METRICS):
        ax.plot(t["flows"], t[f"ccsim_{k}"] / t[f"ns2_{k}"], marker="o", label=k, zorder=3 + i)
    ax.axhspan(1 - TOL, 1 + TOL, color="0.9", zorder=1)
    style_axes(ax, "flows", "ccsim / ns-2", xlog=True, title="XCP on a 20 Mb/s dumbbell: ccsim vs ns-2.35")
    return save(fig, out_dir, ID)
