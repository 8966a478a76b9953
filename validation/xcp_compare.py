"""Run the XCP dumbbell in ns-2.35 and in ccsim and print both side by side.

    python -m validation.xcp_compare [N ...] [--seeds K] [--json FILE]      (default: 2 10 100)

``--seeds K`` also runs seeds 1..K in both (ns-2's default RNG, ccsim's
scenario seed; they draw only the XCP routers' first timer expiries) and
prints the range of the start-up maximum queue.

The paced-XCP paper's networks (622 Mb/s dumbbell, 3-link parking lot) are
:mod:`validation.xcp_chain`.

Its record (``--json``) is the ``pxcp-ns2`` experiment's reference
(python/ccsim/experiments/pxcp/ns2_reference.json); ccsim's scenario is
that experiment's. Needs `ns` (ns-2.35) on PATH and the ccsim package. Measures, over the
second half of the run on the forward bottleneck: utilisation (bytes sent
/ capacity), maximum queue in packets and bytes (over the whole run), and
each flow's throughput (bytes it sent over the bottleneck). Not shipped in
the wheel; see docs/validation.md.
"""
import json
import os
import subprocess
import sys
import tempfile

import pandas as pd

import ccsim
from ccsim.experiments.pxcp import ns2 as pxcp_ns2

RATE, DUR = pxcp_ns2.RATE, pxcp_ns2.DURATION


def parse_ns2(path, n):
    q_pkts = q_bytes = max_pkts = max_bytes = 0
    sent = [0] * n
    drops = 0
    with open(path) as f:
        for line in f:
            ev, t, _a, _b, _ty, size, _fl, fid = line.split()[:8]
            t, size, fid = float(t), int(size), int(fid)
            if ev == "+":
                q_pkts += 1
                q_bytes += size
                max_pkts, max_bytes = max(max_pkts, q_pkts), max(max_bytes, q_bytes)
            elif ev in "-d":
                q_pkts -= 1
                q_bytes -= size
                if ev == "d":
                    drops += 1
                elif t >= DUR / 2:
                    sent[fid] += size
    # "+" is the enqueue and "-" the start of transmission, so the count
    # is the waiting packets, as ccsim's max_queue (sampled after arrivals).
    return {
        "utilization": sum(sent) * 8 / (RATE * DUR / 2),
        "max_queue_pkts": max_pkts,
        "max_queue_bytes": max_bytes,
        "flow_mbps": [b * 8 / (DUR / 2) / 1e6 for b in sent],
        "drops": drops,
    }


def ccsim_scenario(n, seed=None):
    """ccsim's side: the ``pxcp-ns2`` experiment's scenario (one definition
    for both, so the recorded comparison and the experiment cannot drift)."""
    return json.dumps(pxcp_ns2.scenario(n, seed))


def one(n, seed=None):
    """(ns-2, ccsim) measurements of the N-flow dumbbell; ``seed``: ns-2's
    default RNG seed and ccsim's scenario seed (each draws only the
    routers' first timer expiries here), default: neither set."""
    with tempfile.TemporaryDirectory() as d:
        tr = os.path.join(d, "q.tr")
        subprocess.run(["ns", os.path.join(os.path.dirname(__file__), "xcp_dumbbell.tcl"), str(n), str(DUR), tr]
                       + ([str(seed)] if seed is not None else []), check=True, capture_output=True)
        a = parse_ns2(tr, n)
        sc = os.path.join(d, "s.json")
        with open(sc, "w") as f:
            f.write(ccsim_scenario(n, seed))
        subprocess.run(["ccsim", "run", sc, "--out", d, "--no-plots", "--no-progress"], check=True,
                       capture_output=True)
        # the full tables: summary.json lists rows inline only up to 1000 per table
        r = {t: pd.read_parquet(os.path.join(d, f"{t}.parquet")).to_dict("records") for t in ("flows", "links")}
    link = r["links"][0]
    b = {
        "utilization": float(link["utilization"]),
        "max_queue_pkts": int(link["max_queue_pkts"]),
        "max_queue_bytes": int(link["max_queue_bytes"]),
        "flow_mbps": [float(fl["throughput_bps"]) / 1e6 for fl in r["flows"]],
        "drops": int(link["drops"]),
    }
    return a, b


def main(ns, json_out=None, seeds=()):
    recs = []
    for n in ns:
        a, b = one(n)
        print(f"N = {n}")
        for k in ("utilization", "max_queue_pkts", "max_queue_bytes", "drops"):
            print(f"  {k:16s} ns-2 {a[k]!s:>10}   ccsim {b[k]!s:>10}")
        fa, fb = a["flow_mbps"], b["flow_mbps"]
        print("  flow Mb/s        ns-2 " + " ".join(f"{x:.2f}" for x in fa))
        print("                   ccsim " + " ".join(f"{x:.2f}" for x in fb))
        rec = {"flows": n, "duration": DUR, "ns2": a, "ccsim": b}
        if seeds:
            # the start-up maximum queue over seeds of the routers' timer draws
            per = {s: one(n, s) for s in seeds}
            rec["seeds"] = {str(s): {"ns2_max_queue_pkts": x["max_queue_pkts"], "ccsim_max_queue_pkts": y["max_queue_pkts"],
                                     "ns2_utilization": x["utilization"], "ccsim_utilization": y["utilization"]}
                            for s, (x, y) in per.items()}
            for who, k in (("ns-2", 0), ("ccsim", 1)):
                q = [per[s][k]["max_queue_pkts"] for s in seeds]
                print(f"  max queue, seeds {seeds[0]}-{seeds[-1]}: {who:5s} {min(q)}-{max(q)} ({' '.join(map(str, q))})")
        recs.append(rec)
    if json_out:
        with open(json_out, "w") as f:
            json.dump(recs, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    args = sys.argv[1:]
    out = None
    if "--json" in args:
        i = args.index("--json")
        out = args[i + 1]
        del args[i:i + 2]
    seeds = []
    if "--seeds" in args:
        i = args.index("--seeds")
        seeds = list(range(1, int(args[i + 1]) + 1))
        del args[i:i + 2]
    main([int(x) for x in args] or [2, 10, 100], out, seeds)
