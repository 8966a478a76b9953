"""Run the XCP dumbbell in ns-2.35 and in ccsim and print both side by side.

    python validation/xcp_compare.py [N ...]      (default: 2 10)

Needs `ns` (ns-2.35) on PATH and the ccsim package. Measures, over the
second half of the run on the forward bottleneck: utilisation (bytes sent
/ capacity), maximum queue in packets and bytes (over the whole run), and
each flow's throughput (bytes it sent over the bottleneck). Not shipped in
the wheel; see docs/validation.md.
"""
import os
import subprocess
import sys
import tempfile

import pandas as pd

import ccsim

RATE, DUR = 20e6, 20.0


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


def ccsim_scenario(n):
    flows = "".join(
        f'[[flows]]\ncc = "xcp"\nrecovery = "reno"\ndelayed_ack = false\nheader_bytes = 50\nstart_s = {i * 0.5 / n!r}\n'
        for i in range(n)
    )
    return (
        f'name = "xcp-ns2-{n}"\nduration_s = {DUR}\nwarmup_s = {DUR / 2}\nsample_interval_s = 0.0\n'
        f'[topology]\nkind = "dumbbell"\nbottleneck_rate_bps = {RATE}\nbottleneck_delay_s = 0.01\n'
        f"bottleneck_queue = {{ limit_pkts = 200, xcp = true }}\nedge_rate_bps = 100e6\nedge_delay_s = 0.005\n"
        + flows
    )



def main(ns):
    for n in ns:
        with tempfile.TemporaryDirectory() as d:
            tr = os.path.join(d, "q.tr")
            subprocess.run(["ns", os.path.join(os.path.dirname(__file__), "xcp_dumbbell.tcl"), str(n), str(DUR), tr],
                           check=True, capture_output=True)
            a = parse_ns2(tr, n)
            sc = os.path.join(d, "s.toml")
            with open(sc, "w") as f:
                f.write(ccsim_scenario(n))
            subprocess.run(["ccsim", "run", sc, "--out", d, "--no-plots", "--no-progress"], check=True,
                           capture_output=True)
            # the full tables: summary.json lists rows inline only up to 1000 per table
            r = {t: pd.read_parquet(os.path.join(d, f"{t}.parquet")).to_dict("records") for t in ("flows", "links")}
        link = r["links"][0]
        b = {
            "utilization": link["utilization"],
            "max_queue_pkts": link["max_queue_pkts"],
            "max_queue_bytes": link.get("max_queue_bytes"),
            "flow_mbps": [fl["throughput_bps"] / 1e6 for fl in r["flows"]],
            "drops": link["drops"],
        }
        print(f"N = {n}")
        for k in ("utilization", "max_queue_pkts", "max_queue_bytes", "drops"):
            print(f"  {k:16s} ns-2 {a[k]!s:>10}   ccsim {b[k]!s:>10}")
        fa, fb = a["flow_mbps"], b["flow_mbps"]
        print("  flow Mb/s        ns-2 " + " ".join(f"{x:.2f}" for x in fa))
        print("                   ccsim " + " ".join(f"{x:.2f}" for x in fb))


if __name__ == "__main__":
    main([int(x) for x in sys.argv[1:]] or [2, 10])
