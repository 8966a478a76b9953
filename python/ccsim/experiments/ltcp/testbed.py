"""``ltcp-testbed``: the LTCP paper's Linux testbed tables (Fig 9 single
flow, Fig 10 two to ten flows) re-run in simulation (setup:
:mod:`ccsim.experiments.ltcp`).

The testbed: two PCs, the PCI bus limiting throughput to "around 750
Mb/s", a packet-delay qdisc setting the RTT, txqueuelen and backlog 1000,
iperf with 32 MB socket buffers, Linux 2.4 TCP-SACK (LTCP patched in),
900 s runs repeated four times. Modelled with the bottleneck where the
testbed had it (:func:`ccsim.experiments.ltcp.tb_topology`): the sending PC's
interface, drained at 750 Mb/s (the PCI bus; wire rate, 1448-byte payloads
in 1500-byte packets, so a payload capacity of 724 Mb/s), whose transmit
queue holds txqueuelen = 1000 packets and, as in Linux 2.4, never loses a
TCP segment: one that does not fit stays in the sender, which enters CWR
(``txqueuelen_pkts``); then a 1 Gb/s wire carrying the RTT. SACK
recovery, delayed ACKs (Linux receivers ACK every second segment and
Linux 2.4 counts ACKs, not bytes), receiver window 32 MB. The "Total
Bytes (GBytes)" column is iperf's, in units of 2^30 bytes (75.40 GB in
900 s is 719.6 Mb/s, the table's 719.25). Several flows start within
0.1 s of each other (real hosts never start them in the same
picosecond, and identical synchronised flows phase-lock in a
deterministic simulator). One run per point, not four; the standard
deviation reported is across the flows of that run. ``--quick``: RTT 25
and 150 ms, 1 and 4 flows, 30 s.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import List

import pandas as pd

from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.analysis import jain
from .._kit.figures import PAPER_MARK, grid, save
from . import PAPER_LTCP_MIN_JAIN, PROTOS, SOURCE as _SOURCE, scenario, tb_flow, tb_topology

ID = "ltcp-testbed"
SOURCE = f"{_SOURCE}, Figs 9-10 (Linux testbed)"
DESCRIPTION = "testbed tables re-run in simulation: 750 Mb/s, RTT 25/70/150 ms, 1 to 10 flows, 900 s"

TB_RTTS = {"Low RTT": 0.025, "Moderate RTT": 0.070, "High RTT": 0.150}

PAPER = {
    # Fig 9 (paper's table label; the text calls it Fig 10): rtt label ->
    # proto -> (GBytes (2^30) in 900 s, rate Mb/s).
    "fig9": {
        "Low RTT": {"TCP": (75.40, 719.25), "LTCP": (77.85, 742.75)},
        "Moderate RTT": {"TCP": (50.33, 480.25), "LTCP": (71.38, 681.50)},
        "High RTT": {"TCP": (17.20, 164.00), "LTCP": (48.85, 466.00)},
    },
    # Fig 10 (labelled Fig 10; the text says Fig 11): rtt label -> flows ->
    # ((TCP per-flow goodput Mb/s, std, Jain), (LTCP ...)).
    "fig10": {
        "Low RTT": {2: ((373.50, 50.20, 0.991), (373.00, 12.73, 0.999)),
                    4: ((186.25, 24.98, 0.987), (186.50, 8.81, 0.998)),
                    6: ((124.00, 12.63, 0.991), (124.17, 2.32, 1.000)),
                    8: ((92.93, 3.26, 0.999), (92.96, 2.05, 1.000)),
                    10: ((74.26, 4.13, 0.997), (74.28, 2.69, 0.999))},
        "Moderate RTT": {2: ((299.50, 64.35, 0.977), (353.50, 9.19, 1.000)),
                         4: ((175.50, 12.01, 0.996), (181.75, 4.86, 0.999)),
                         6: ((116.77, 20.40, 0.975), (121.50, 6.53, 0.998)),
                         8: ((89.35, 23.03, 0.945), (91.31, 1.90, 1.000)),
                         10: ((70.53, 10.33, 0.981), (73.04, 4.66, 0.996))},
        "High RTT": {2: ((128.50, 37.48, 0.959), (286.50, 26.16, 0.996)),
                     4: ((123.73, 30.21, 0.957), (166.00, 7.53, 0.998)),
                     6: ((103.85, 17.98, 0.976), (113.62, 16.58, 0.983)),
                     8: ((78.06, 39.80, 0.815), (86.68, 8.72, 0.991)),
                     10: ((66.06, 21.02, 0.916), (69.61, 6.76, 0.992))},
    },
    "min_ltcp_jain": PAPER_LTCP_MIN_JAIN,
}


def setting(quick: bool):
    """(rtts by label, flow counts, duration)."""
    if quick:
        return {k: v for k, v in TB_RTTS.items() if k != "Moderate RTT"}, [1, 4], 30.0
    return TB_RTTS, [1, 2, 4, 6, 8, 10], 900.0


def scenarios(quick: bool) -> List[Sweep]:
    rtts, ns, duration = setting(quick)
    base = scenario("ltcp-testbed", duration, tb_topology(0.07), [tb_flow("TCP", 1)])
    points, labels = [], []
    for lab, rtt in rtts.items():
        for n in ns:
            for p in PROTOS:
                points.append({"topology": tb_topology(rtt), "flows": [tb_flow(p, n)]})
                labels.append((lab, rtt, n, p))
    return [Sweep(base, points, labels)]


def analyse(runs: Runs, quick: bool) -> Analysis:
    rtts, _, duration = setting(quick)
    fig9, fig10 = PAPER["fig9"], PAPER["fig10"]
    rows = []
    for (lab, rtt, n, p), res in zip(runs.sweeps[0].labels, runs.results()):
        g = res.flows["goodput_bps"] / 1e6
        mean = float(g.mean())
        std = float(g.std(ddof=1)) if n > 1 else 0.0
        paper_f9 = fig9[lab][p] if n == 1 else (math.nan, math.nan)
        paper_f10 = fig10[lab][n][PROTOS.index(p)] if n > 1 and n in fig10[lab] else (math.nan,) * 3
        rows.append({"rtt": lab, "rtt_s": rtt, "flows": n, "protocol": p, "per_flow_mbps": mean,
                     "std_mbps": std, "jain": jain(g), "gbytes": mean * 1e6 * duration / 8 / 2**30,
                     "paper_gbytes": paper_f9[0], "paper_per_flow_mbps": paper_f9[1] if n == 1 else paper_f10[0],
                     "paper_std_mbps": paper_f10[1], "paper_jain": paper_f10[2]})
    return Analysis(table=pd.DataFrame(rows), rtts=rtts)


def checks(a: Analysis, quick: bool) -> List[Check]:
    t, rtts = a.table, a.rtts
    out: List[Check] = []
    for _, r in t.iterrows():
        tag = f"{r.rtt} ({r.rtt_s * 1e3:g} ms), {r.flows} flow{'s' if r.flows > 1 else ''}, {r.protocol}"
        # 10%: the testbed's capacity is only "around 750 Mb/s" (ccsim's
        # payload capacity is 724 Mb/s, 2.5% under the paper's best 742.75),
        # and the paper's own run-to-run deviation reaches 11% (TCP, 70 ms).
        if not math.isnan(r.paper_per_flow_mbps):
            out.append(Check(f"{tag}: {'rate' if r.flows == 1 else 'per-flow goodput'} (Mb/s)",
                             paper=r.paper_per_flow_mbps, ccsim=round(r.per_flow_mbps, 2), tolerance=0.10, source="paper"))
        # Jain, absolute 0.03: the spread of the paper's own LTCP values
        # (0.983-1.000) across rows that should be alike.
        if not math.isnan(r.paper_jain):
            out.append(Check(f"{tag}: Jain index (absolute)", paper=r.paper_jain, ccsim=round(r.jain, 4),
                             relative=False, tolerance=0.03, source="paper"))
    one = t[t["flows"] == 1].set_index(["rtt", "protocol"])["per_flow_mbps"]
    for lab in rtts:
        ok = bool(one[(lab, "LTCP")] >= one[(lab, "TCP")])
        out.append(Check(f"{lab}: one LTCP flow at least as fast as one TCP flow", paper=True, ccsim=ok, ok=ok, source="paper"))
    lo, hi = "Low RTT", "High RTT"
    if lo in rtts and hi in rtts:
        ok = bool(one[(hi, "LTCP")] / one[(lo, "LTCP")] > one[(hi, "TCP")] / one[(lo, "TCP")])
        out.append(Check("LTCP's rate degrades more gracefully than TCP's from 25 to 150 ms",
                         paper=True, ccsim=ok, ok=ok, source="paper"))
        # 15%: from the paper's run-to-run deviations (TCP 17.20 +- 1.47 GB,
        # LTCP 48.85 +- 1.24 GB: about 9% on the ratio).
        gb = PAPER["fig9"][hi]
        out.append(Check("High RTT: LTCP/TCP bytes in 900 s ('almost a factor of 3')",
                         paper=round(gb["LTCP"][0] / gb["TCP"][0], 3),
                         ccsim=round(one[(hi, "LTCP")] / one[(hi, "TCP")], 3), tolerance=0.15, source="paper"))
    multi = t[t["flows"] > 1]
    if len(multi):
        lt = multi[multi["protocol"] == "LTCP"]
        ok = bool((lt["jain"] >= PAPER["min_ltcp_jain"]).all())
        out.append(Check("LTCP Jain index high for every RTT and flow count (>= paper's min 0.983)",
                         paper=PAPER["min_ltcp_jain"], ccsim=round(float(lt["jain"].min()), 4), ok=ok, source="paper"))
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    t = a.table
    fig, axes = grid(1, 2, figsize=(10, 3.8))
    axes = axes[0]
    for i, lab in enumerate(a.rtts):
        for p, mk in zip(PROTOS, ("o", "s")):
            d = t[(t["rtt"] == lab) & (t["protocol"] == p)].sort_values("flows")
            axes[0].plot(d["flows"], d["per_flow_mbps"] * d["flows"], mk + ("-" if p == "LTCP" else "--"),
                         color=f"C{i}", label=f"{p} {lab}")
            dm = d[d["flows"] > 1]
            axes[1].plot(dm["flows"], dm["jain"], mk + ("-" if p == "LTCP" else "--"), color=f"C{i}",
                         label=f"{p} {lab}")
            axes[1].plot(dm["flows"], dm["paper_jain"], mk, color=f"C{i}", **PAPER_MARK)
    axes[0].set_ylabel("aggregate goodput (Mb/s)")
    axes[1].set_ylabel("Jain index (open: paper)")
    for ax in axes:
        ax.set_xlabel("flows")
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=6)
    fig.suptitle("LTCP paper testbed (Figs 9-10) in ccsim: 750 Mb/s, txqueuelen 1000")
    return save(fig, out_dir, ID)
