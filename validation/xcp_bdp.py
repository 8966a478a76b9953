"""XCP with few flows at high bandwidth-delay products: ns-2.35 beside
ccsim's ``ns2`` and ``rfc`` personalities (docs/validation.md, "XCP at
high bandwidth-delay products").

    python -m validation.xcp_bdp [--flows 1-10] [--rtt-ms 20 80 200] [--rate-mbps 20 100 1000]
                                 [--edge-queue 50] [--models ns2 rfc] [--buffers grid|katabi]
                                 [--jobs 2] [--json FILE] [--markdown]

The network (validation/xcp_bdp.tcl in ns-2, the same dumbbell in ccsim):
Queue/XCP on every link; bottleneck C with a 1000-packet buffer and a
one-way delay of 3/8 RTT, edges max(1 Gb/s, 10 C) with RTT/16 each (the
issue's 100 Mb/s, 30 ms, 1 Gb/s, 5 ms edges at 80 ms) and ns-2's default
50-packet queue (``--edge-queue``); 1000-byte segments (1050 on the wire),
flow i starts at 0.1 i s, 20 s simulated, measured over [10, 20] s (the
result is steady there: a link that XCP fills is full within a few
RTTs, a collapsed flow stays collapsed). ns-2: ``Agent/TCP/Reno/XCP``
with ``window_ 100000`` and its defaults (``timestamps_ true``,
``tcpTick_ 0.01``), ``Agent/TCPSink/XCPSink``. ccsim ``ns2``: ``cc =
"xcp"`` with ns-2's agent (:func:`ns2ref.ns2_mode` with timestamps,
Reno recovery); ccsim ``rfc``: ``cc = "xcp"`` with the RFC personality's
defaults. Per cell, over [10, 20] s: the bottleneck's utilisation, its
drops and the drops on the senders' access links (ns-2's queue monitors;
ccsim's other links).
Needs ``ns`` (ns-2.35) on PATH and the ccsim package; ``--models rfc``
runs ccsim's ``rfc`` column alone and takes the ns-2 and ccsim ``ns2``
columns from the recorded cells (``RESULTS``), so it needs no ns-2.

``--buffers katabi`` (with ``--models rfc``) runs the ``rfc`` column in
Katabi et al.'s network instead: every buffer, the bottleneck's and the
access links', one bandwidth-delay product (C · RTT in 1050-byte packets),
as Katabi's ns-2 script does (tcl/ex/xcp/xcp-tcp.tcl, ``create-topology2``:
``queue-limit $qsize`` on the bottleneck and on every side link, ``qsize``
the pipe size); the rates and delays stay the grid's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Dict, List, Optional

import ccsim
from ccsim.experiments._kit.ns2ref import ns2_mode

HERE = Path(__file__).resolve().parent
DUR, WARM, SPACING, QLIM, TICK, PKT = 20.0, 10.0, 0.1, 1000, 0.01, 1050
#: The recorded grid (ns-2 and both ccsim columns) and the ``rfc`` column
#: in Katabi et al.'s buffers.
RESULTS = HERE / "results" / "xcp-bdp" / "xcp-bdp.json"
KATABI_RESULTS = HERE / "results" / "xcp-bdp" / "xcp-bdp-katabi.json"


def bdp_pkts(rate_bps: float, rtt_s: float) -> int:
    """One bandwidth-delay product in the grid's 1050-byte packets."""
    return round(rate_bps * rtt_s / (8 * PKT))


def topology(rate_bps: float, rtt_s: float) -> Dict[str, float]:
    return {"rate": rate_bps, "delay": 3 * rtt_s / 8, "edge_rate": max(1e9, 10 * rate_bps), "edge_delay": rtt_s / 16}


def run_ns2(n: int, rate_bps: float, rtt_s: float, edge_q: int, seed: Optional[int] = None) -> Dict[str, Any]:
    t = topology(rate_bps, rtt_s)
    args = [n, t["rate"], t["delay"], QLIM, t["edge_rate"], t["edge_delay"], SPACING, DUR, WARM, 1, edge_q, TICK]
    args += [] if seed is None else [seed]
    out = subprocess.run(["ns", str(HERE / "xcp_bdp.tcl"), *map(str, args)], check=True, capture_output=True,
                         text=True).stdout.split()
    return {"utilization": int(out[0]) * 8 / (rate_bps * (DUR - WARM)), "drops": int(out[1]),
            "edge_drops": int(out[2]), "timeouts": [int(x) for x in out[3:]]}


def flow(model: str) -> Dict[str, Any]:
    base = {"cc": "xcp", "header_bytes": PKT - 1000}
    return ns2_mode(dict(base, recovery="reno"), timestamps=True) if model == "ns2" else base


def scenario(n: int, rate_bps: float, rtt_s: float, edge_q: int, model: str,
             seed: Optional[int] = None, qlim: int = QLIM) -> Dict[str, Any]:
    t = topology(rate_bps, rtt_s)
    f = flow(model)
    sc = {"name": f"xcp-bdp-{model}-{n}", "duration_s": DUR, "warmup_s": WARM, "sample_interval_s": 0.0,
            "topology": {"kind": "dumbbell", "bottleneck_rate_bps": rate_bps, "bottleneck_delay_s": t["delay"],
                         "bottleneck_queue": {"limit_pkts": qlim, "xcp": True},
                         "edge_rate_bps": t["edge_rate"], "edge_delay_s": t["edge_delay"],
                         "edge_queue": {"limit_pkts": edge_q, "xcp": True}},
            "flows": [dict(f, start_s=i * SPACING) for i in range(n)]}
    if seed is not None:
        sc["seed"] = seed
    return sc


def run_ccsim(n: int, rate_bps: float, rtt_s: float, edge_q: int, model: str,
              seed: Optional[int] = None, qlim: int = QLIM) -> Dict[str, Any]:
    r = ccsim.run(scenario(n, rate_bps, rtt_s, edge_q, model, seed, qlim=qlim))
    b = r.bottleneck()
    total = sum(int(link.get("drops", 0)) for link in r.raw["links"])
    return {"utilization": float(b["utilization"]), "drops": int(b["drops"]), "edge_drops": total - int(b["drops"])}


#: The ``rfc`` personality's one flow on the grid's cells where it stays
#: below 0.9, with what the grid fixes changed: the sender paced
#: (``pacing = "interval"``), access buffers of 25,000 packets or one BDP
#: (``None``), and the bottleneck buffer one BDP (Katabi et al.'s
#: simulations): (flow fields, bottleneck one BDP, access buffer).
RFC_VARIANTS = {"paced": ({"pacing": "interval"}, False, 50), "edges 25000": ({}, False, 25000),
                "buffer BDP": ({}, True, 50), "buffer BDP, edges 25000": ({}, True, 25000),
                "buffer BDP, paced": ({"pacing": "interval"}, True, 50), "buffers BDP": ({}, True, None)}


def rfc_variant(key) -> Dict[str, Any]:
    rate, rtt, name = key
    extra, bdp, edge_q = RFC_VARIANTS[name]
    qlim = bdp_pkts(rate, rtt) if bdp else QLIM
    sc = scenario(1, rate, rtt, bdp_pkts(rate, rtt) if edge_q is None else edge_q, "rfc", qlim=qlim)
    for f in sc["flows"]:
        f.update(extra)
    r = ccsim.run(sc)
    b = r.bottleneck()
    total = sum(int(link.get("drops", 0)) for link in r.raw["links"])
    return {"rate_mbps": rate / 1e6, "rtt_ms": round(rtt * 1e3), "variant": name, "buffer_pkts": qlim,
            "utilization": float(b["utilization"]), "drops": int(b["drops"]), "edge_drops": total - int(b["drops"])}


def cell(key) -> Dict[str, Any]:
    n, rate, rtt, edge_q, seed = key
    r = {"flows": n, "rate_mbps": rate / 1e6, "rtt_ms": round(rtt * 1e3), "ns2": run_ns2(n, rate, rtt, edge_q, seed),
         "ccsim_ns2": run_ccsim(n, rate, rtt, edge_q, "ns2", seed),
         "ccsim_rfc": run_ccsim(n, rate, rtt, edge_q, "rfc", seed)}
    if seed is not None:
        r["seed"] = seed
    return r


def rfc_cell(key) -> Dict[str, Any]:
    """The ``rfc`` column alone: in the grid's buffers (``edge_q``,
    1000 packets), or with ``katabi`` every buffer one BDP."""
    n, rate, rtt, edge_q, seed, katabi = key
    if katabi:
        edge_q = qlim = bdp_pkts(rate, rtt)
    else:
        qlim = QLIM
    r = {"flows": n, "rate_mbps": rate / 1e6, "rtt_ms": round(rtt * 1e3),
         "ccsim_rfc": run_ccsim(n, rate, rtt, edge_q, "rfc", seed, qlim=qlim)}
    if katabi:
        r["buffer_pkts"] = qlim
    if seed is not None:
        r["seed"] = seed
    return r


def merge_recorded(rows: List[Dict[str, Any]], recorded: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Fresh ``rfc`` cells beside the recorded ns-2 and ccsim ``ns2``
    columns of the same (flows, rate, RTT, seed); a cell with no recorded
    peer keeps the ``rfc`` column alone."""
    def key(r: Dict[str, Any]) -> tuple:
        return r["flows"], r["rate_mbps"], r["rtt_ms"], r.get("seed")

    by = {key(r): r for r in recorded}
    out = []
    for r in rows:
        old = by.get(key(r), {})
        out.append(dict(r, **{k: old[k] for k in ("ns2", "ccsim_ns2") if k in old}))
    return out


def markdown_rfc(rows: List[Dict[str, Any]]) -> str:
    """One row per (rate, RTT) with its buffer, one column per flow count:
    the ``rfc`` column's utilisation; ``*`` where a buffer drops."""
    ns = sorted({r["flows"] for r in rows})
    keys = sorted({(r["rate_mbps"], r["rtt_ms"]) for r in rows})
    by = {(r["rate_mbps"], r["rtt_ms"], r["flows"]): r for r in rows}
    out = ["| C, RTT (buffers) | " + " | ".join(f"N={n}" for n in ns) + " |", "|---|" + "---|" * len(ns)]
    for rate, rtt in keys:
        cells, buf = [], ""
        for n in ns:
            r = by.get((rate, rtt, n))
            if r is None:
                cells.append("")
                continue
            buf = f" ({r['buffer_pkts']:,})" if "buffer_pkts" in r else ""
            c = r["ccsim_rfc"]
            cells.append(f"{c['utilization']:.2f}" + ("*" if c["drops"] + c["edge_drops"] > 0 else ""))
        out.append(f"| {rate:g} Mb/s, {rtt} ms{buf} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def markdown(rows: List[Dict[str, Any]]) -> str:
    """One row per (rate, RTT), one column per flow count: utilisation
    ns-2 / ccsim ns2 / ccsim rfc; ``*`` where ns-2 and ccsim ns2 differ
    in kind on drops (one side drops, at the bottleneck or on the access
    links, the other does not)."""
    ns = sorted({r["flows"] for r in rows})
    keys = sorted({(r["rate_mbps"], r["rtt_ms"]) for r in rows})
    by = {(r["rate_mbps"], r["rtt_ms"], r["flows"]): r for r in rows}
    out = ["| C, RTT | " + " | ".join(f"N={n}" for n in ns) + " |", "|---|" + "---|" * len(ns)]
    for rate, rtt in keys:
        cells = []
        for n in ns:
            r = by.get((rate, rtt, n))
            if r is None:
                cells.append("")
                continue
            u = [r[k]["utilization"] for k in ("ns2", "ccsim_ns2", "ccsim_rfc")]
            mark = "*" if any((r["ns2"][k] > 0) != (r["ccsim_ns2"][k] > 0) for k in ("drops", "edge_drops")) else ""
            cells.append("/".join(f"{x:.2f}" for x in u) + mark)
        out.append(f"| {rate:g} Mb/s, {rtt} ms | " + " | ".join(cells) + " |")
    return "\n".join(out)


def variants_markdown(rows: List[Dict[str, Any]]) -> str:
    """``--rfc-variants``: one row per (rate, RTT), one column per variant:
    utilisation, with the drops where there are any."""
    names = list(RFC_VARIANTS)
    keys = sorted({(r["rate_mbps"], r["rtt_ms"]) for r in rows})
    by = {(r["rate_mbps"], r["rtt_ms"], r["variant"]): r for r in rows}
    out = ["| C, RTT | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for rate, rtt in keys:
        cells = []
        for name in names:
            r = by[(rate, rtt, name)]
            drops = [f"{r[k]:,} {w}" for k, w in (("drops", "bottleneck"), ("edge_drops", "access")) if r.get(k)]
            cells.append(f"{r['utilization']:.3f}" + (f" ({', '.join(drops)} drops)" if drops else ""))
        rate_s = f"{rate / 1000:g} Gb/s" if rate >= 1000 else f"{rate:g} Mb/s"
        out.append(f"| {rate_s}, {rtt} ms | " + " | ".join(cells) + " |")
    return "\n".join(out)


def flow_counts(s: str) -> List[int]:
    lo, _, hi = s.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flows", default="1-10", help="flow counts, LO-HI (default 1-10)")
    ap.add_argument("--rtt-ms", type=float, nargs="+", default=[20, 80, 200])
    ap.add_argument("--rate-mbps", type=float, nargs="+", default=[20, 100, 1000])
    ap.add_argument("--edge-queue", type=int, default=50, help="access-link buffer, packets (ns-2's default 50)")
    ap.add_argument("--seeds", type=int, default=0,
                    help="also run seeds 1..K (ns-2's default RNG, ccsim's scenario seed: the routers' first timer "
                         "expiries), one row each")
    ap.add_argument("--rfc-variants", action="store_true",
                    help="instead: the rfc personality's one flow at 100 Mb/s 200 ms and 1 Gb/s 80 and 200 ms with "
                         "the sender paced, large or one-BDP access buffers, a one-BDP bottleneck buffer")
    ap.add_argument("--models", nargs="+", choices=["ns2", "rfc"], default=["ns2", "rfc"],
                    help="rfc alone: run ccsim's rfc column and take the ns-2 and ccsim ns2 columns from the "
                         "recorded cells (validation/results/xcp-bdp/xcp-bdp.json; no ns-2 needed)")
    ap.add_argument("--buffers", choices=["grid", "katabi"], default="grid",
                    help="katabi (rfc alone): every buffer, bottleneck and access, one bandwidth-delay product")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", help="write the cells here")
    ap.add_argument("--markdown", action="store_true", help="print the docs table")
    a = ap.parse_args(argv)
    if a.rfc_variants:
        keys = [(rate, rtt, v) for rate, rtt in ((100e6, 0.2), (1e9, 0.08), (1e9, 0.2)) for v in RFC_VARIANTS]
        with ProcessPoolExecutor(a.jobs) as ex:
            rows = list(ex.map(rfc_variant, keys))
        for r in rows:
            print(f"{r['rate_mbps']:g} Mb/s {r['rtt_ms']} ms, {r['variant']} ({r['buffer_pkts']} pkts): "
                  f"utilisation {r['utilization']:.3f}, {r['drops']} bottleneck drops, {r['edge_drops']} access")
        if a.json:
            Path(a.json).write_text(json.dumps(rows, indent=1) + "\n")
        return 0
    seeds = [None] + list(range(1, a.seeds + 1))
    keys = [(n, rate * 1e6, rtt / 1e3, a.edge_queue, s) for rate in a.rate_mbps for rtt in a.rtt_ms
            for n in flow_counts(a.flows) for s in seeds]
    if "rfc" not in a.models:
        ap.error("--models: the full grid is 'ns2 rfc'; 'rfc' alone runs the rfc column beside the recorded ns-2 ones")
    if set(a.models) == {"rfc"}:
        return main_rfc(a, keys)
    if a.buffers != "grid":
        ap.error("--buffers katabi runs the rfc column alone: add --models rfc")
    rows = []
    with ProcessPoolExecutor(a.jobs) as ex:
        for r in ex.map(cell, keys):
            rows.append(r)
            u = " ".join(f"{k} {r[k]['utilization']:.3f} ({r[k]['drops']}+{r[k]['edge_drops']} drops)"
                         for k in ("ns2", "ccsim_ns2", "ccsim_rfc"))
            seed = f" seed {r['seed']}" if "seed" in r else ""
            print(f"{r['rate_mbps']:g} Mb/s {r['rtt_ms']} ms N={r['flows']}{seed}: {u}", flush=True)
    if a.json:
        Path(a.json).write_text(json.dumps({"edge_queue_pkts": a.edge_queue, "duration_s": DUR, "warmup_s": WARM,
                                            "cells": rows}, indent=1) + "\n")
    if a.markdown:
        print(markdown([r for r in rows if "seed" not in r]))
    return 0


def main_rfc(a, keys) -> int:
    """``--models rfc``: the rfc column, beside the recorded ns-2 columns
    (grid buffers) or alone (``--buffers katabi``)."""
    katabi = a.buffers == "katabi"
    rows = []
    with ProcessPoolExecutor(a.jobs) as ex:
        for r in ex.map(rfc_cell, [k + (katabi,) for k in keys]):
            rows.append(r)
            c = r["ccsim_rfc"]
            seed = f" seed {r['seed']}" if "seed" in r else ""
            buf = f" buffers {r['buffer_pkts']}" if katabi else ""
            print(f"{r['rate_mbps']:g} Mb/s {r['rtt_ms']} ms N={r['flows']}{seed}{buf}: ccsim_rfc "
                  f"{c['utilization']:.3f} ({c['drops']}+{c['edge_drops']} drops)", flush=True)
    if not katabi:
        rows = merge_recorded(rows, json.loads(RESULTS.read_text())["cells"])
    if a.json:
        head = {"buffers": "one BDP, bottleneck and access"} if katabi else {"edge_queue_pkts": a.edge_queue}
        Path(a.json).write_text(json.dumps(dict(head, duration_s=DUR, warmup_s=WARM, cells=rows), indent=1) + "\n")
    if a.markdown:
        plain = [r for r in rows if "seed" not in r]
        print(markdown_rfc(plain) if katabi or any("ns2" not in r for r in plain) else markdown(plain))
    return 0


if __name__ == "__main__":
    sys.exit(main())
