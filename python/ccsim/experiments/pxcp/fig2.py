"""``pxcp-fig2``: bottleneck utilisation of paced and non-paced Reno,
NewReno, HSTCP with SACK and XCP (C.P.) with the bottleneck buffer set to
paced XCP's (C.P.) maximum occupancy (paced-XCP paper §4.2.2, Fig 2(a);
setup: :mod:`ccsim.experiments.pxcp`).

The paper sets "the buffer limit of bottleneck link to those maximum
buffer occupancy values [of Fig 1(a)] ... with corresponding number of
flows" and states two of them: 23,360 bytes at 100 flows (§4.2.1) and
124,040 bytes at 800 flows (§4.2.2). Those are the two flow counts run
here, with the paper's buffers (the other points of Fig 1(a) are not
stated, and ccsim's own Fig 1(a) maxima are compared with the paper's in
``pxcp-fig1``). Access queues stay at the rule of thumb. Utilisation over
[40, 100] s of the forward bottleneck.

Checks (paper, §4.2.2 text): P. XCP C.P. "always gave a utilization around
the value of capacity parameter 90%"; "all P. TCP versions achieved over
80% utilization"; the N.P. TCP versions are over 90% at 800 flows and "very
low ... unless there are large number of flows" (lower at 100 than at 800
flows); P. NewReno second best (below P. XCP), "marginally higher than P.
HSTCP", P. Reno last; among N.P. TCP, HSTCP best, NewReno "marginally
lower", Reno worst (orderings on the mean over the flow counts).
``--quick``: 100 flows only, 15 s runs measured after 10 s.
"""

from __future__ import annotations

from pathlib import Path
from typing import List

import pandas as pd

from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.analysis import sequence
from .._kit.figures import grid, save, style_axes
from . import CAPACITY, PACING, SOURCE as _SOURCE, bottleneck_stats, label, long_flow_sweep

ID = "pxcp-fig2"
SOURCE = f"{_SOURCE}, Fig 2(a) (§4.2.2)"
#: an ns-2 (2.28) figure: every agent runs in ns-2 mode with timestamps (package docstring)
NS2_FIGURE = True
DESCRIPTION = "utilisation of P./N.P. Reno, NewReno, HSTCP-SACK, XCP C.P. with buffers at P. XCP's max occupancy"

#: Bottleneck buffer (bytes) per flow count, as the paper states them.
PAPER = {"buffer_bytes": {100: 23_360, 800: 124_040}, "pcp_utilization": 0.9, "p_tcp_min": 0.8,
         "np_tcp_min_at_800": 0.9}
PROTOS = ("Reno", "NewReno", "HSTCP", "XCP")
TCPS = PROTOS[:3]
#: "around the value of capacity parameter": 0.03 absolute (as pxcp-fig1).
TOL_UTIL = 0.03


def setting(quick: bool):
    """(flow counts per direction, duration, measured from)."""
    if quick:
        return [100], 15.0, 10.0
    return [100, 800], 100.0, 40.0


def scenarios(quick: bool) -> List[Sweep]:
    ns, dur, warm = setting(quick)
    buffers = PAPER["buffer_bytes"]
    return [long_flow_sweep(f"{ID}-{pacing}-{proto}", proto, pacing, "C.P." if proto == "XCP" else None, ns,
                            buffers, dur, warm)
            for pacing in PACING for proto in PROTOS]


def analyse(runs: Runs, quick: bool) -> Analysis:
    rows = []
    for s, frame in zip(runs.sweeps, runs.frames):
        for (variant, n), key in zip(s.labels, frame["key"]):
            rows.append({"variant": variant, "pacing": variant.split()[0], "protocol": variant.split()[1],
                         "flows": n, "buffer_bytes": PAPER["buffer_bytes"][n], **bottleneck_stats(runs.load(key))})
    return Analysis(table=pd.DataFrame(rows))


def _mean_util(t: pd.DataFrame, pacing: str, proto: str) -> float:
    return float(t[(t["pacing"] == pacing) & (t["protocol"] == proto)]["utilization"].mean())


def checks(a: Analysis, quick: bool) -> List[Check]:
    t = a.table
    ns = sorted(t["flows"].unique())
    u = {(r.pacing, r.protocol, r.flows): float(r.utilization) for r in t.itertuples()}
    pcp = label("P.", "XCP", "C.P.")
    out: List[Check] = []
    for n in ns:
        out.append(Check(f"{pcp}, {n} flows: utilisation around the capacity parameter (absolute)",
                         paper=CAPACITY["C.P."], ccsim=round(u[("P.", "XCP", n)], 4), relative=False,
                         tolerance=TOL_UTIL, source="paper"))
        for p in TCPS:
            v = u[("P.", p, n)]
            out.append(Check(f"P. {p}, {n} flows: utilisation over 80%", paper="> 0.8", ccsim=round(v, 4),
                             ok=bool(v > PAPER["p_tcp_min"]), source="paper"))
    if 800 in ns:
        for p in TCPS:
            v = u[("N.P.", p, 800)]
            out.append(Check(f"N.P. {p}, 800 flows: utilisation over 90%", paper="> 0.9", ccsim=round(v, 4),
                             ok=bool(v > PAPER["np_tcp_min_at_800"]), source="paper"))
            lo = u[("N.P.", p, ns[0])]
            out.append(Check(f"N.P. {p}: utilisation lower with {ns[0]} flows than with 800", paper=True,
                             ccsim=f"{lo:.3f} < {v:.3f}", ok=bool(lo < v), source="paper"))
    order = ["XCP", "NewReno", "HSTCP", "Reno"]
    m = [_mean_util(t, "P.", p) for p in order]
    out.append(Check("paced, mean utilisation over the flow counts: XCP > NewReno > HSTCP > Reno", paper=True,
                     ccsim=sequence(m), ok=bool(all(x > y for x, y in zip(m, m[1:]))), source="paper"))
    order = ["HSTCP", "NewReno", "Reno"]
    m = [_mean_util(t, "N.P.", p) for p in order]
    out.append(Check("non-paced TCP, mean utilisation over the flow counts: HSTCP > NewReno > Reno", paper=True,
                     ccsim=sequence(m), ok=bool(all(x > y for x, y in zip(m, m[1:]))), source="paper"))
    return out


STYLE = {"Reno": "v", "NewReno": "o", "HSTCP": "^", "XCP": "s"}
COLOR = {"Reno": "C0", "NewReno": "C1", "HSTCP": "C2", "XCP": "C3"}


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    t = a.table
    fig, axes = grid(1, 1, figsize=(6.5, 4.2))
    ax = axes[0][0]
    for pacing, ls in (("P.", "-"), ("N.P.", "--")):
        for p, m in STYLE.items():
            d = t[(t["pacing"] == pacing) & (t["protocol"] == p)].sort_values("flows")
            ax.plot(d["flows"], d["utilization"], m + ls, color=COLOR[p],
                    label=label(pacing, p, "C.P." if p == "XCP" else None))
    ax.axhline(CAPACITY["C.P."], color="grey", lw=0.8, ls=":")
    ax.set_ylim(0, 1.05)
    style_axes(ax, "long flows per direction (buffer: paper's P. XCP C.P. max occupancy)", "bottleneck utilisation",
               xlog=True)
    fig.suptitle("Paced-XCP paper Fig 2(a): small buffers" + (" (quick)" if quick else ""))
    return save(fig, out_dir, ID)
