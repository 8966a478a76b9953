"""``pxcp-fig4-table1``: the 3-link parking lot, per-link utilisation (Fig 4)
and Jain's fairness index of goodput (Table 1) of paced and non-paced
Reno, NewReno, HSTCP with SACK and XCP (C.P.) (paced-XCP paper §4.4;
setup: :mod:`ccsim.experiments.pxcp`).

§4.4: three middle links of 622 Mb/s, 10 ms each, access links 2.4 Gb/s;
10 long flows over all three middle links (RTT uniform on [64, 100] ms),
10 short flows over the first and 10 over the second (RTT [24, 60] ms);
the third carries the long flows only. Two-way traffic (each set
mirrored). 100 s, averages over [40, 100] s. First P. XCP C.P. runs with
rule-of-thumb buffers (6,375,500 bytes, RTT x BW at the long flows' mean
82 ms, as the dumbbell) and its maximum occupancy is taken (the paper:
10,200 bytes); then every protocol runs with that buffer on all middle
links, the paper's 10,200 bytes (access queues stay at the rule of thumb).
Fig 4's utilisation is the forward direction of each middle link; the
maximum occupancy is the largest over the middle links, both directions.
Jain's index is over the 30 forward flows' goodputs ("among long and short
flows"; the reverse flows mirror them).

Checks (paper): the 10,200-byte maximum; Table 1's eight indices (0.05
absolute); on links 1 and 2 P. XCP > P. NewReno > P. HSTCP > P. Reno; on
link 3 P. XCP > P. Reno > P. NewReno > P. HSTCP; N.P. Reno lowest of the
N.P. TCPs on every link; N.P. XCP "less than 0.5% utilization".
``--quick``: 10 s runs measured after 6 s, of P. XCP at the rule of thumb
and P./N.P. XCP and NewReno at 10,200 bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import pandas as pd

from .. import Check
from .._kit import Analysis, Runs, Sweep
from .._kit.analysis import jain, sequence
from .._kit.figures import grid, save, style_axes
from ...scenario import DropTail, ParkingLot
from . import EDGE_RATE, PACING, RATE, ROT_BUFFER, SOURCE as _SOURCE, flow, queue, scenario, two_way

ID = "pxcp-fig4-table1"
SOURCE = f"{_SOURCE}, Fig 4 and Table 1 (§4.4)"
#: an ns-2 (2.28) figure: every agent runs in ns-2 mode with timestamps (package docstring)
NS2_FIGURE = True
DESCRIPTION = "3-link parking lot: per-link utilisation and Jain's index of P./N.P. Reno, NewReno, HSTCP, XCP C.P."

PAPER: Dict[str, Any] = {
    "max_queue_bytes": 10_200,
    "jain": {"P. XCP": 1.0, "P. Reno": 0.78, "P. NewReno": 0.76, "P. HSTCP": 0.44,
             "N.P. XCP": 0.76, "N.P. Reno": 0.72, "N.P. NewReno": 0.74, "N.P. HSTCP": 0.73},
    "np_xcp_util_below": 0.005,
}
N_LINKS = 3
LINK_DELAY = 0.010
#: (hops, RTT range) of the three flow sets: long, short over link 1, short over link 2.
SETS = (("long", [0, 2], [0.064, 0.100]), ("short1", [0, 0], [0.024, 0.060]), ("short2", [1, 1], [0.024, 0.060]))
PER_SET = 10
PROTOS = ("Reno", "NewReno", "HSTCP", "XCP")
#: Maximum occupancy: as pxcp-fig1 (extreme of one run's contention).
TOL_MAX_QUEUE = 0.25
#: Jain's index of 30 goodputs over one 60 s window: 0.05 absolute.
TOL_JAIN = 0.05


def setting(quick: bool):
    """(variants (pacing, protocol) at the small buffer, duration, measured from)."""
    if quick:
        return [(p, q) for p in PACING for q in ("NewReno", "XCP")], 10.0, 6.0
    return [(p, q) for p in PACING for q in PROTOS], 100.0, 40.0


def topology(buffer_bytes: int, xcp: bool) -> Dict[str, Any]:
    """§4.4's parking lot; XCP routers (C.P.) on the middle links if ``xcp``."""
    return ParkingLot(n_links=N_LINKS, link_rate_bps=RATE, link_delay_s=LINK_DELAY,
                      link_queue=queue(buffer_bytes, "C.P." if xcp else None), edge_rate_bps=EDGE_RATE,
                      edge_queue=DropTail(limit_bytes=ROT_BUFFER)).to_dict()


def flows(proto: str, pacing: str) -> List[Dict[str, Any]]:
    out: List[Dict[str, Any]] = []
    for _, hops, rtts in SETS:
        out += two_way(flow(proto, pacing, PER_SET, hops=hops, rtt_range_s=rtts))
    return out


def scenarios(quick: bool) -> List[Sweep]:
    variants, dur, warm = setting(quick)
    rot = scenario(f"{ID}-rot", topology(ROT_BUFFER, True), flows("XCP", "P."), dur, warm)
    out = [Sweep(rot, [{}], [("P.", "XCP", ROT_BUFFER)])]
    for pacing, proto in variants:
        base = scenario(f"{ID}-{pacing}-{proto}", topology(PAPER["max_queue_bytes"], proto == "XCP"),
                        flows(proto, pacing), dur, warm)
        out.append(Sweep(base, [{}], [(pacing, proto, PAPER["max_queue_bytes"])]))
    return out


def analyse(runs: Runs, quick: bool) -> Analysis:
    rows = []
    for s, frame in zip(runs.sweeps, runs.frames):
        pacing, proto, buf = s.labels[0]
        res = runs.load(frame["key"].iloc[0])
        links = {l["name"]: l for l in res.raw["links"] if l["monitored"]}
        fwd = [links[f"r{i}->r{i + 1}"] for i in range(N_LINKS)]
        # forward flow entries are 0, 2, 4 (two_way puts each set's reverse after it)
        goodputs = [f["goodput_bps"] for f in res.raw["flows"] if f["entry"] % 2 == 0]
        row = {"variant": f"{pacing} {proto}", "pacing": pacing, "protocol": proto, "buffer_bytes": buf,
               "max_queue_bytes": max(l["max_queue_bytes"] for l in links.values()),
               "drops_all": int(res.raw["conservation"]["dropped"]), "jain": jain(goodputs)}
        for i, l in enumerate(fwd):
            row[f"util_link{i + 1}"] = float(l["utilization"])
        for (name, _, _), k in zip(SETS, range(0, 2 * len(SETS), 2)):
            g = [f["goodput_bps"] for f in res.raw["flows"] if f["entry"] == k]
            row[f"goodput_{name}_mbps"] = sum(g) / len(g) / 1e6
        rows.append(row)
    return Analysis(table=pd.DataFrame(rows))


def checks(a: Analysis, quick: bool) -> List[Check]:
    t = a.table
    rot = t[t["buffer_bytes"] == ROT_BUFFER].iloc[0]
    small = t[t["buffer_bytes"] != ROT_BUFFER].set_index("variant")
    out = [Check("P. XCP C.P., rule-of-thumb buffers: maximum middle-link occupancy (bytes)",
                 paper=PAPER["max_queue_bytes"], ccsim=int(rot.max_queue_bytes), tolerance=TOL_MAX_QUEUE,
                 source="paper")]
    for v, want in PAPER["jain"].items():
        if v in small.index:
            name = v + (" C.P." if v.endswith("XCP") else "")
            out.append(Check(f"{name}: Jain's index of goodput (Table 1, absolute)", paper=want,
                             ccsim=round(float(small.loc[v, "jain"]), 4), relative=False, tolerance=TOL_JAIN,
                             source="paper"))

    def ordered(names: List[str], link: int, quantity: str) -> None:
        if not all(n in small.index for n in names):
            return
        u = [float(small.loc[n, f"util_link{link}"]) for n in names]
        out.append(Check(f"link {link}: utilisation {quantity}", paper=True, ccsim=sequence(u),
                         ok=bool(all(x > y for x, y in zip(u, u[1:]))), source="paper"))

    for link in (1, 2):
        ordered(["P. XCP", "P. NewReno", "P. HSTCP", "P. Reno"], link, "P. XCP > P. NewReno > P. HSTCP > P. Reno")
    ordered(["P. XCP", "P. Reno", "P. NewReno", "P. HSTCP"], 3, "P. XCP > P. Reno > P. NewReno > P. HSTCP")
    if all(f"N.P. {p}" in small.index for p in ("Reno", "NewReno", "HSTCP")):
        for link in (1, 2, 3):
            r = float(small.loc["N.P. Reno", f"util_link{link}"])
            others = [float(small.loc[f"N.P. {p}", f"util_link{link}"]) for p in ("NewReno", "HSTCP")]
            out.append(Check(f"link {link}: N.P. Reno lowest of the N.P. TCPs", paper=True,
                             ccsim=f"Reno {r:.3f}, NewReno {others[0]:.3f}, HSTCP {others[1]:.3f}",
                             ok=bool(r < min(others)), source="paper"))
    if "N.P. XCP" in small.index:
        u = [float(small.loc["N.P. XCP", f"util_link{i}"]) for i in (1, 2, 3)]
        out.append(Check("N.P. XCP C.P.: utilisation of every middle link below 0.5%", paper="< 0.005",
                         ccsim=sequence(u), ok=bool(max(u) < PAPER["np_xcp_util_below"]), source="paper"))
    return out


def plot(a: Analysis, out_dir: Path, quick: bool) -> Path:
    t = a.table[a.table["buffer_bytes"] != ROT_BUFFER]
    fig, axes = grid(1, 2, figsize=(11, 4))
    ax, axj = axes[0]
    width = 0.8 / len(t)
    for k, r in enumerate(t.itertuples()):
        xs = [i + (k - len(t) / 2) * width for i in range(N_LINKS)]
        ax.bar(xs, [getattr(r, f"util_link{i + 1}") for i in range(N_LINKS)], width,
               label=r.variant + (" C.P." if r.protocol == "XCP" else ""), hatch="//" if r.pacing == "N.P." else None)
    ax.set_xticks(range(N_LINKS))
    ax.set_xticklabels([f"link {i + 1}" for i in range(N_LINKS)])
    ax.set_ylim(0, 1.05)
    style_axes(ax, "middle link", "utilisation (forward)", legend=6)
    names = list(t["variant"])
    axj.bar(range(len(names)), t["jain"], 0.4, label="ccsim")
    axj.bar([i + 0.4 for i in range(len(names))], [PAPER["jain"][n] for n in names], 0.4, label="paper Table 1",
            fill=False)
    axj.set_xticks([i + 0.2 for i in range(len(names))])
    axj.set_xticklabels(names, rotation=40, ha="right", fontsize=7)
    axj.set_ylim(0, 1.05)
    style_axes(axj, None, "Jain's index of goodput", legend=7)
    fig.suptitle(f"Paced-XCP paper Fig 4 / Table 1: parking lot, middle buffers {PAPER['max_queue_bytes']} bytes"
                 + (" (quick)" if quick else ""))
    return save(fig, out_dir, ID)
