"""The paced-XCP paper's networks in ns-2.35 and in ccsim, side by side
(docs/validation.md, "XCP").

    python -m validation.xcp_chain fig1 [fig4] [--flows N] [--duration S] [--warmup S] [--json FILE]

Cases (both non-paced XCP with the original parameters, the only set
ns-2.35 has: xcpq.cc fixes ALPHA_, BETA_, GAMMA_ as constants):

* ``fig1``: one row of ``pxcp-fig1`` (N.P. XCP O.P.): the 622 Mb/s, 30 ms
  dumbbell, 2.4 Gb/s access links, rule-of-thumb byte buffers everywhere,
  ``--flows`` flows per direction (two-way traffic), RTTs uniform on
  [64, 100] ms, starts uniform on [0, 10] s;
* ``fig4``: ``pxcp-fig4-table1``'s 3-link parking lot (622 Mb/s, 10 ms
  links), 10 long flows (RTT [64, 100] ms) and 10 short flows on each of
  links 1 and 2 (RTT [24, 60] ms), each set mirrored in reverse, rule-of-
  thumb buffers.

Both simulators get the same network and the same per-flow draws (RTT and
start time, from ``random.Random(SEED)`` here, written out per flow for
``xcp_chain.tcl`` and as ``rtt_s``/``start_s`` for ccsim). Packets are
1000 bytes on the wire: ns-2's ``packetSize_`` 950 plus its 40-byte TCP/IP
header and 10-byte timestamp option, ccsim's ``mss_bytes`` 950 and
``header_bytes`` 50; ACKs 50 bytes in both (``Agent/TCPSink set
packetSize_ 50``; ns-2's default is 40). ccsim runs ns-2.35's end system:
``cc = "xcp"`` with its defaults (no Reno increase, as the pxcp
experiments; whole-segment window in the header) and ns-2's start
(``syn = "ns2"``: a SYN, then ``windowInit_`` 2, so the first data carry
an RTT sample). ns-2's trace of every middle link is parsed as it is
written (a FIFO, no file). ``--seed K`` seeds ns-2's default RNG and
ccsim's scenario: there they draw only the XCP routers' first timer
expiries (xcpq.cc ``XCPQueue::setupTimers``), which move the start-up
maximum queue.

Measured (forward direction of each middle link unless said): utilisation
over [warm-up, end], maximum queue (packets and bytes waiting, whole run,
both directions), drops; each flow's throughput (data bytes, headers
included, over its first middle link in ns-2, at its receiver in ccsim,
after the warm-up) and Jain's index of the forward flows' throughputs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import ccsim
from ccsim.experiments import pxcp
from ccsim.experiments.pxcp import fig4_table1 as fig4

HERE = Path(__file__).resolve().parent
SEED = 1
PSIZE, HDR, ACK = 1000, 50, 50


def jain(x: List[float]) -> float:
    return sum(x) ** 2 / (len(x) * sum(v * v for v in x)) if x and any(x) else 0.0


def case(name: str, flows: int, duration: float, warmup: float) -> Dict[str, Any]:
    """The network and per-flow draws of a case: n_links, link delay, and a
    list of flows (dir 0/1, first, last, rtt, start)."""
    rnd = random.Random(SEED)
    fl: List[Dict[str, Any]] = []
    if name == "fig1":
        n_links, delay = 1, pxcp.BOTTLENECK_DELAY
        sets = [(flows, [0, 0], pxcp.RTT_RANGE)]
    elif name == "fig4":
        n_links, delay = fig4.N_LINKS, fig4.LINK_DELAY
        sets = [(fig4.PER_SET, hops, rtts) for _, hops, rtts in fig4.SETS]
    else:
        raise ValueError(f"case {name!r}: allowed fig1, fig4")
    for count, hops, (lo, hi) in sets:
        for d in (0, 1):  # each set, then its mirror (as pxcp.two_way)
            for _ in range(count):
                rtt = lo + rnd.random() * (hi - lo)
                start = rnd.random() * pxcp.START_SPREAD
                fl.append({"dir": d, "first": hops[0], "last": hops[1], "rtt": rtt, "start": start})
    return {"name": name, "n_links": n_links, "delay": delay, "flows": fl, "duration": duration,
            "warmup": warmup, "buffer": pxcp.ROT_BUFFER, "capacity": pxcp.CAPACITY["O.P."]}


def edge_delay(c: Dict[str, Any], f: Dict[str, Any]) -> float:
    """As ccsim's topology builder: the two edge links make up the RTT."""
    return (f["rtt"] / 2 - c["delay"] * (f["last"] - f["first"] + 1)) / 2


def ccsim_scenario(c: Dict[str, Any]) -> Dict[str, Any]:
    """The same network as ccsim builds it for the experiments (pxcp's
    helpers), one flow entry per flow with its drawn RTT and start."""
    if c["n_links"] == 1:
        topo = pxcp.dumbbell(c["buffer"], "O.P.")
    else:
        topo = fig4.topology(c["buffer"], True)  # C.P. routers: set to O.P. below
        topo["link_queue"]["xcp"] = {"params": pxcp.XCP_PARAMS["O.P."], "count_acks": True}
    flows = []
    for f in c["flows"]:
        d = pxcp.flow("XCP", "N.P.", 1, mss_bytes=PSIZE - HDR, header_bytes=HDR, rtt_s=f["rtt"], start_s=f["start"],
                      start_spread_s=0.0, cc_params={}, syn="ns2")
        d.pop("rtt_range_s", None)
        if c["n_links"] > 1:
            d["hops"] = [f["first"], f["last"]]
        if f["dir"]:
            d["direction"] = "reverse"
        flows.append(d)
    return pxcp.scenario(f"xcp-ns2-{c['name']}", topo, flows, c["duration"], c["warmup"])


def parse_trace(path: str, c: Dict[str, Any]) -> Dict[str, Any]:
    """Read trace-queue lines of the middle links (from a FIFO) as they come."""
    nl, warm = c["n_links"], c["warmup"]
    links = {}
    for i in range(nl):
        for a, b in ((i, i + 1), (i + 1, i)):
            links[(str(a), str(b))] = {"q": 0, "qb": 0, "max": 0, "maxb": 0, "tx": 0, "drops": 0, "flow": {}}
    with open(path) as fh:
        for line in fh:
            ev = line[0]
            if ev == "r":
                continue
            p = line.split(None, 8)
            L = links[(p[2], p[3])]
            size = int(p[5])
            if ev == "+":
                L["q"] += 1
                L["qb"] += size
                if L["q"] > L["max"]:
                    L["max"] = L["q"]
                if L["qb"] > L["maxb"]:
                    L["maxb"] = L["qb"]
            else:
                L["q"] -= 1
                L["qb"] -= size
                if ev == "d":
                    L["drops"] += 1
                elif float(p[1]) >= warm:
                    L["tx"] += size
                    if p[4] != "ack":
                        fid = int(p[7])
                        L["flow"][fid] = L["flow"].get(fid, 0) + size
    return links


def run_ns2(c: Dict[str, Any], d: str, seed: Optional[int] = None) -> Dict[str, Any]:
    rate = pxcp.RATE
    with open(os.path.join(d, "params"), "w") as f:
        f.write(f"{c['n_links']} {rate:.0f} {c['delay']} {c['buffer']} {rate * c['capacity']:.0f} "
                f"{pxcp.EDGE_RATE:.0f} 0.005 {pxcp.ROT_BUFFER} {PSIZE - HDR} {ACK} {c['duration']}\n")
    with open(os.path.join(d, "flows"), "w") as f:
        for i, fl in enumerate(c["flows"]):
            f.write(f"{i} {fl['dir']} {fl['first']} {fl['last']} {edge_delay(c, fl)!r} {fl['start']!r}\n")
    fifo = os.path.join(d, "trace")
    os.mkfifo(fifo)
    t0 = time.perf_counter()
    proc = subprocess.Popen(["nice", "-n", "10", "ns", str(HERE / "xcp_chain.tcl"), os.path.join(d, "params"),
                             os.path.join(d, "flows"), fifo] + ([str(seed)] if seed is not None else []),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    links = parse_trace(fifo, c)
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"ns failed ({proc.returncode}): {err.decode()[-800:]}")
    wall = time.perf_counter() - t0
    span = c["duration"] - c["warmup"]
    res: Dict[str, Any] = {"wall_s": wall, "links": {}, "flow_mbps": []}
    for (a, b), L in links.items():
        res["links"][f"r{a}->r{b}"] = {"utilization": L["tx"] * 8 / (rate * span), "max_queue_pkts": L["max"],
                                       "max_queue_bytes": L["maxb"], "drops": L["drops"]}
    for i, fl in enumerate(c["flows"]):
        a, b = (fl["first"], fl["first"] + 1) if fl["dir"] == 0 else (fl["last"] + 1, fl["last"])
        res["flow_mbps"].append(links[(str(a), str(b))]["flow"].get(i, 0) * 8 / span / 1e6)
    return res


def run_ccsim(c: Dict[str, Any], seed: Optional[int] = None) -> Dict[str, Any]:
    t0 = time.perf_counter()
    sc = ccsim_scenario(c)
    if seed is not None:
        sc["seed"] = seed
    r = ccsim.run(sc)
    wall = time.perf_counter() - t0
    res: Dict[str, Any] = {"wall_s": wall, "links": {}, "flow_mbps": []}
    for link in r.raw["links"]:
        if link["monitored"]:
            res["links"][link["name"]] = {k: link[k] for k in ("utilization", "max_queue_pkts", "max_queue_bytes",
                                                              "drops")}
    res["flow_mbps"] = [f["throughput_bps"] / 1e6 for f in r.raw["flows"]]
    res["dropped_all"] = int(r.raw["conservation"]["dropped"])
    return res


def summary(c: Dict[str, Any], r: Dict[str, Any]) -> Dict[str, Any]:
    fwd = [i for i, f in enumerate(c["flows"]) if f["dir"] == 0]
    out = {"jain_fwd": jain([r["flow_mbps"][i] for i in fwd])}
    if c["name"] == "fig4":
        for name, hops, _ in fig4.SETS:
            ids = [i for i in fwd if [c["flows"][i]["first"], c["flows"][i]["last"]] == hops]
            out[f"mean_{name}_mbps"] = sum(r["flow_mbps"][i] for i in ids) / len(ids)
    return out


def compare(name: str, flows: int, duration: float, warmup: float, ns2: Optional[Dict[str, Any]] = None,
            seed: Optional[int] = None) -> Dict[str, Any]:
    """Run a case in both (``ns2``: a recorded ns-2 side of the same case
    instead of running ns-2)."""
    c = case(name, flows, duration, warmup)
    if ns2 is None:
        with tempfile.TemporaryDirectory() as d:
            a = run_ns2(c, d, seed)
    else:
        a = dict(ns2)
    b = run_ccsim(c, seed)
    a.update(summary(c, a))
    b.update(summary(c, b))
    return {"case": {**{k: v for k, v in c.items() if k != "flows"}, "seed": seed}, "flows": c["flows"], "ns2": a,
            "ccsim": b}


def show(rec: Dict[str, Any]) -> None:
    c, a, b = rec["case"], rec["ns2"], rec["ccsim"]
    print(f"{c['name']}: {len(rec['flows'])} flows, {c['duration']} s measured after {c['warmup']} s "
          f"(ns-2 {a['wall_s']:.0f} s, ccsim {b['wall_s']:.1f} s wall)")
    for ln in a["links"]:
        la, lb = a["links"][ln], b["links"][ln]
        print(f"  {ln:8s} " + "  ".join(f"{k} {la[k]:.4g}/{lb[k]:.4g}" for k in la))
    for k in a:
        if k.startswith(("jain", "mean_")):
            print(f"  {k:16s} ns-2 {a[k]:.4f}  ccsim {b[k]:.4f}  ({(b[k] - a[k]) / a[k]:+.1%})")
    print("  flow Mb/s ns-2  " + " ".join(f"{x:.1f}" for x in a["flow_mbps"]))
    print("            ccsim " + " ".join(f"{x:.1f}" for x in b["flow_mbps"]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cases", nargs="+", choices=["fig1", "fig4"])
    ap.add_argument("--flows", type=int, default=10, help="fig1: flows per direction")
    ap.add_argument("--duration", type=float, default=30.0)
    ap.add_argument("--warmup", type=float, default=20.0)
    ap.add_argument("--seed", type=int, help="seed of ns-2's default RNG and of ccsim's scenario (default: unset)")
    ap.add_argument("--json", help="write the records here")
    ap.add_argument("--ns2-from", metavar="FILE",
                    help="take ns-2's side from this earlier --json output (same cases and settings); run ccsim only")
    a = ap.parse_args(argv)
    recorded = {}
    if a.ns2_from:
        for rec in json.loads(Path(a.ns2_from).read_text()):
            recorded[rec["case"]["name"]] = rec
    elif shutil.which("ns") is None:
        print("error: ns (ns-2.35) is not on PATH", file=sys.stderr)
        return 2
    recs = []
    for name in a.cases:
        old = recorded.get(name)
        if old is not None and (old["flows"] != case(name, a.flows, a.duration, a.warmup)["flows"]
                                or (old["case"]["duration"], old["case"]["warmup"], old["case"].get("seed"))
                                != (a.duration, a.warmup, a.seed)):
            ap.error(f"--ns2-from: {name} was recorded with other settings")
        if a.ns2_from and old is None:
            ap.error(f"--ns2-from: no {name} in {a.ns2_from}")
        rec = compare(name, a.flows, a.duration, a.warmup, old["ns2"] if old else None, a.seed)
        if old is not None:
            rec["ns2_recorded"] = True
        show(rec)
        recs.append(rec)
    if a.json:
        Path(a.json).write_text(json.dumps(recs, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
