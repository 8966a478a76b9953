"""Telnet delays of the GWA paper's LAN rows in ns-2.35 and in ccsim, side by side.

    python -m validation.gwa_telnet [--scheme droptail] [--kb 30] [--seeds 3] [--json OUT]

The GWA paper (§6.1, Fig 5) plots each scheme's Telnet delay, average and
maximum, against the buffer: the time from a Telnet write to the
segment's in-order arrival at the receiver, retransmissions included.
``gwa-lan`` reproduces it with ccsim's ``app_delay_*``; this script
measures the same quantity in ns-2.35 on the scenario of ``gwa-ns2``
(``ccsim.experiments.gwa.ns2.scenario``, validation/gwa_topology.tcl) and
sets the two side by side, per seed.

ns-2 side: validation/gwa_topology.tcl with ``telfile`` logs every Telnet
write (its Tcl driver makes the same draws and writes as
Application/Telnet, at times equal to the clock's last bits, so the run
is the same model and may part from Application/Telnet's only at a tie
such a bit decides; hence statistics over seeds) and every packet
arriving at each destination host. Write k of Telnet i is segment k: the
first write makes the agent send segment 0 as ns-2's 40-byte SYN
(``syn_``, as ccsim's ``syn = "ns2"``), and its data goes out as segment
1 when the SYN is acknowledged (traced: 225 writes, segments 0 to 225);
a segment is delivered in order when it and every
segment before it have arrived, and its delay is that time minus its
write. As ccsim counts them: writes at or after the warm-up, delivered by
the end of the run.

ccsim side: the same scenario (``rng = "ns2"``: the Telnets write at ns-2's
own draws, so both sides see the same write times), the Telnet flows'
``app_delay_count``, ``app_delay_mean_s`` and ``app_delay_max_s``.
Needs ``ns`` (skips with a message without it).
"""
import argparse
import bisect
import json
import os
import shutil
import subprocess
import sys
import tempfile
from typing import Dict, List, Tuple

import ccsim
from ccsim.experiments.gwa.ns2 import SETTINGS, buffer_pkts, scenario

try:
    from validation.gwa_compare import tcl_params
    from validation.seed_stats import compare as seed_compare
except ImportError:  # run as a script from validation/
    from gwa_compare import tcl_params
    from seed_stats import compare as seed_compare

HERE = os.path.dirname(os.path.abspath(__file__))


def telnet_delays(path: str, n: int, warm: float, dur: float, since: float = None) -> Tuple[List[List[float]], int]:
    """Per Telnet, the delays of its writes at or after ``since`` (default
    ``warm``) whose segment arrived in order by ``dur``, from a ``telfile``
    of validation/gwa_topology.tcl; and how many writes there were at or
    after ``since``, delivered or not."""
    since = warm if since is None else since
    writes: List[List[float]] = [[] for _ in range(n)]
    first: List[Dict[int, float]] = [{} for _ in range(n)]
    with open(path) as f:
        for line in f:
            w = line.split()
            if w[0] == "w":
                writes[int(w[1])].append(float(w[2]))
            elif w[0] == "r" and w[4] == "tcp":
                fid = int(w[7])
                if fid % 2 == 1:
                    first[fid // 2].setdefault(int(w[10]), float(w[1]))
    out = []
    written = sum(wt >= since for w in writes for wt in w)
    for i in range(n):
        delays = []
        deliv = first[i].get(0, float("inf"))
        for seq, wt in enumerate(writes[i], start=1):
            at = first[i].get(seq)
            if at is None or max(deliv, at) > dur:
                break  # this one and every later one are not delivered in order by the end
            deliv = max(deliv, at)
            if wt >= since:
                delays.append(deliv - wt)
        out.append(delays)
    return out, written


def run_ns2(st, scheme, buf, seed, d, since=None):
    params = os.path.join(d, "params.tcl")
    tel = os.path.join(d, "tel.tr")
    with open(params, "w") as f:
        f.write(tcl_params(st, scheme, buf, seed, os.path.join(d, "q.tr")) + f"set telfile {{{tel}}}\n")
    subprocess.run(["ns", os.path.join(HERE, "gwa_topology.tcl"), params], check=True, capture_output=True)
    return telnet_delays(tel, st["n"], st["warm"], st["dur"], since)


def run_ccsim(st, scheme, buf, seed):
    flows = ccsim.run(scenario(st, scheme, buf, seed)).raw["flows"]
    return [f for f in flows if f.get("app_delay_count") is not None]


def summary(measured: Tuple[List[List[float]], int]) -> Dict[str, float]:
    per_flow, written = measured
    alld = [x for d in per_flow for x in d]
    return {"written": written, "count": len(alld), "mean_s": sum(alld) / len(alld) if alld else 0.0,
            "max_s": max(alld, default=0.0)}


def ccsim_summary(flows) -> Dict[str, float]:
    count = sum(f["app_delay_count"] for f in flows)
    total = sum(f["app_delay_mean_s"] * f["app_delay_count"] for f in flows)
    return {"count": count, "mean_s": total / count if count else 0.0,
            "max_s": max(f["app_delay_max_s"] for f in flows)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scheme", default="droptail", choices=["droptail", "red", "ecn"])
    ap.add_argument("--kb", type=int, default=30, help="bottleneck buffer in kB (the paper's 30 to 240)")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--json", help="write the per-seed numbers here")
    args = ap.parse_args(argv)
    if shutil.which("ns") is None:
        print("gwa_telnet: skipped, ns-2.35 is not installed (`ns` not on PATH; apt-get install ns2)")
        return 0
    st = SETTINGS["gwa-lan"]
    buf = buffer_pkts(args.kb)
    rows = []
    print("seed  writes  delivered ns-2/ccsim  mean ms ns-2/ccsim  max s ns-2/ccsim  (ns-2 max from t = 0)")
    for seed in range(1, args.seeds + 1):
        with tempfile.TemporaryDirectory() as d:
            ns2 = run_ns2(st, args.scheme, buf, seed, d)
            ns2_all = telnet_delays(os.path.join(d, "tel.tr"), st["n"], st["warm"], st["dur"], since=0.0)
        row = {"seed": seed, "ns2": summary(ns2), "ns2_from_0": summary(ns2_all),
               "ccsim": ccsim_summary(run_ccsim(st, args.scheme, buf, seed))}
        rows.append(row)
        a, z, c = row["ns2"], row["ns2_from_0"], row["ccsim"]
        print(f"{seed:4d}  {a['written']:6d}  {a['count']:9d} / {c['count']:<6d}  {a['mean_s'] * 1e3:8.1f} / "
              f"{c['mean_s'] * 1e3:<8.1f}  {a['max_s']:6.3f} / {c['max_s']:<6.3f}  ({z['max_s']:.3f})", flush=True)
    stats = {}
    for k in ("mean_s", "max_s"):
        stats[k] = seed_compare([r["ns2"][k] for r in rows], [r["ccsim"][k] for r in rows])
        stats[k].pop("paired_t", None)  # the runs part after the first seconds
        c = stats[k]
        print(f"{k}: ns-2 {c['ns2_mean']:.4g} ± {c['ns2_sd']:.2g}, ccsim {c['ccsim_mean']:.4g} ± {c['ccsim_sd']:.2g}, "
              f"Welch t {c['welch_t']:+.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"source": "ns-2", "ns2_version": "2.35", "ccsim_version": ccsim.__version__,
                       "setting": "gwa-lan", "scheme": args.scheme, "buffer_kb": args.kb, "buffer_pkts": buf,
                       "seeds": args.seeds, "rows": rows, "stats": stats}, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
