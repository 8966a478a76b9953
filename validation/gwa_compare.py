"""The GWA paper's DropTail, RED and ECN rows in ns-2.35 and in ccsim, side by side.

    python -m validation.gwa_compare [--seeds K] [--quick] [--setting NAME ...]
                                     [--out python/ccsim/experiments/gwa/ns2_reference.json]
    python -m validation.gwa_compare --setting gwa-lan --seeds 24 --spread droptail 30 OUT.json

Gerla, Weng, Lo Cigno (§6): the Fig 3 network, N hosts each joined to
router r0 by a link of delay tau_i, the bottleneck r0 -> r1 (tau_B), and
r1 joined to host i's destination by a link of delay tau_r. Two settings:

- ``gwa-lan`` (§6.1, Figs 4-5): N = 10, every link 100 Mb/s, tau_i = tau_r
  = 30 us, tau_B = 40 us, receiver window 64 kB (64 segments), one FTP and
  one Telnet per host (one MSS segment at exponential intervals of mean
  0.1 s), 25 s, measured after 5 s.
- ``gwa-many-flows`` (§6.3, Fig 10): N = 100 FTP, every link 10 Mb/s,
  tau_B = tau_r = 5 ms, tau_i uniform on [1, 10] ms (§6.2), window 512 kB
  (§6.2's window scale), no Telnet, 100 s, measured after 10 s.

Schemes: ``droptail``; ``red`` (thresholds 1/12 and 3/12 of the buffer,
max_p 0.1, drop with probability 1 above max_th); ``ecn`` (the same RED
marking ECN-capable packets, above max_th too: the paper's footnote 7;
ns-2 ``mark_p_ 2``, ccsim ``ecn_mark_above_max``). TCP Reno senders, one
ACK per segment, 1000-byte segments (1040 on the wire), 0.1 s timer tick.
validation/gwa_topology.tcl documents the ns-2 side and every choice the
paper leaves open; ``ccsim.experiments.gwa.ns2.scenario`` builds the same network for ccsim
(a custom topology; shared with the ``gwa-ns2`` experiment, which re-runs
the ccsim side against the recorded ns-2 numbers). Per seed, both sides get the same tau_i and FTP start
times (uniform on [0, START_SPREAD_S], drawn here); each simulator's own
generator draws the Telnet intervals.

Measured over the window after the warm-up, both sides the same way:
each FTP's goodput (payload acknowledged: ns-2 ``ack_`` at the warm-up and
at the end, ccsim ``goodput_bps``) normalised to the bottleneck rate, its
average, minimum and maximum over the FTPs; the bottleneck's drop
probability (drops / arrivals), CE marks, time-average queue (packets
waiting); the maximum queue over the whole run (ccsim's ``max_queue_pkts``);
timeouts after the warm-up (ns-2 ``nrexmit_`` at the end minus at the
warm-up, FTP and Telnet agents).
ns-2's come from its trace-queue file through validation/red_compare.py's
``trace_queue_stats``; ccsim's are its own link and flow results.
Each number is the mean over the seeds. Needs ``ns`` (skips with a message
without it) and the ccsim package; see docs/validation.md, "GWA paper
rows".

The JSON written to --out (``gwa-ns2`` reads it and refuses one whose
settings differ from the scenarios it builds): ``source`` ("ns-2"),
``ns2_version``, ``ccsim_version``, ``date``, ``seeds``, ``quick``,
``settings`` (name -> n, rate_b, rate_a [b/s], tau_b, tau_r, tau_i [lo, hi]
[s], window [segments], telnet, rto_diag (whether the ``ccsim_rfc6298``
column was run), dur, warm [s], buffers_kb), ``schemes``, ``metrics``, and
``rows``: one per setting x buffer x scheme with ``setting``, ``scheme``,
``buffer_kb``, ``buffer_pkts``, ``ns2`` and ``ccsim`` (metric -> mean over
seeds: goodput_avg, goodput_min, goodput_max as fractions of the
bottleneck rate, drop_prob, marks, avg_queue_pkts, max_queue_pkts,
timeouts), ``ratio`` (ccsim / ns-2, 1 when both are 0, inf when only
ns-2's is 0) and, for gwa-lan, ``ccsim_rfc6298`` (ccsim with
``rtt_estimator = "rfc6298"``, same metrics).
"""
import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile

import ccsim

from ccsim.experiments.gwa.ns2 import (MSS, QUICK, REFERENCE, SCHEMES, SETTINGS, TELNET_INTERVAL_S, buffer_pkts,
                                       draw, mean, measure, scenario, summarise, METRICS)

try:
    from validation.red_compare import trace_queue_stats
    from validation.seed_stats import compare as seed_compare
except ImportError:  # run as a script from validation/
    from red_compare import trace_queue_stats
    from seed_stats import compare as seed_compare

HERE = os.path.dirname(os.path.abspath(__file__))
# ccsim runs ns-2's own RTT estimator (rtt_estimator = "ns2": one timed
# segment per RTT, samples in whole 0.1 s ticks, tcp.cc rtt_update), as the
# paper's ns-2 agents did (timestamps off, the 1999 default). With 0.1 s
# ticks every LAN sample is one tick and t_rtxcur_ = (8 + (2 << 3)) >> 3 =
# 3 ticks, where RFC 6298's float estimator gives max(0.2, srtt + 0.1). The
# LAN rows also run ccsim with "rfc6298" as a diagnostic column, to show
# what the estimator alone changes.
DIAG_ESTIMATOR = "rfc6298"


def run_ccsim(st, scheme, buf, seed, estimator="ns2"):
    return measure(ccsim.run(scenario(st, scheme, buf, seed, estimator)).raw, st)


def tcl_params(st, scheme, buf, seed, trace):
    taus, starts = draw(st, seed)
    lines = [f"set N {st['n']}", f"set dur {st['dur']!r}", f"set warm {st['warm']!r}",
             f"set rate_b {st['rate_b'] / 1e6!r}", f"set rate_a {st['rate_a'] / 1e6!r}",
             f"set tauB {st['tau_b']!r}", f"set taur {st['tau_r']!r}", f"set buf {buf}", f"set scheme {scheme}",
             f"set window {st['window']}", f"set telnet {int(st['telnet'])}",
             f"set interval {TELNET_INTERVAL_S!r}", f"set seed {seed}", f"set tracefile {{{trace}}}"]
    lines += [f"set tau({i}) {t!r}" for i, t in enumerate(taus)]
    lines += [f"set start({i}) {t!r}" for i, t in enumerate(starts)]
    return "\n".join(lines) + "\n"


def run_ns2(st, scheme, buf, seed, d):
    trace = os.path.join(d, "q.tr")
    params = os.path.join(d, "params.tcl")
    with open(params, "w") as f:
        f.write(tcl_params(st, scheme, buf, seed, trace))
    out = subprocess.run(["ns", os.path.join(HERE, "gwa_topology.tcl"), params],
                         check=True, capture_output=True, text=True).stdout
    acks = {"warm": {}, "end": {}}
    timeouts = 0
    for line in out.splitlines():
        w = line.split()
        if w and w[0] == "ack" and w[2] == "ftp":
            acks[w[1]][int(w[3])] = int(w[4])
        elif w and w[0] == "stat":
            # Timeouts after the warm-up, as ccsim's flow counters.
            timeouts += int(w[4]) * (1 if w[1] == "end" else -1)
    q = trace_queue_stats(trace, st["warm"], st["dur"])
    os.remove(trace)
    span = st["dur"] - st["warm"]
    # ack_ counts segments from 0 (the first is seqno 0), so deliveries are ack_ differences.
    good = [(acks["end"][i] - acks["warm"][i]) * MSS * 8 / span / st["rate_b"] for i in range(st["n"])]
    return {"goodput": good, "arrivals": q["arrivals"], "drops": q["drops"], "marks": q["marks"],
            "avg_queue_pkts": q["avg_queue_pkts"], "max_queue_pkts": q["max_held_pkts_all"], "timeouts": timeouts}


def ratio(a, b):
    return b / a if a else (1.0 if b == 0 else float("inf"))


def compare(names, seeds, quick):
    rows = []
    for name in names:
        st = dict(SETTINGS[name], **(QUICK[name] if quick else {}))
        for kb in st["buffers_kb"]:
            buf = buffer_pkts(kb)
            for scheme in SCHEMES:
                with tempfile.TemporaryDirectory() as d:
                    a = mean([summarise(run_ns2(st, scheme, buf, s, d)) for s in seeds])
                b = mean([summarise(run_ccsim(st, scheme, buf, s)) for s in seeds])
                row = {"setting": name, "scheme": scheme, "buffer_kb": kb, "buffer_pkts": buf, "ns2": a, "ccsim": b,
                       "ratio": {k: ratio(a[k], b[k]) for k in METRICS}}
                if st["rto_diag"]:
                    row["ccsim_rfc6298"] = mean([summarise(run_ccsim(st, scheme, buf, s, DIAG_ESTIMATOR)) for s in seeds])
                rows.append(row)
                print_row(row)
    return rows


def rerun_ccsim(path):
    """Re-run ccsim's side of every row recorded in ``path`` (same
    settings and seeds), keep the recorded ns-2 side, rewrite the file."""
    with open(path) as f:
        doc = json.load(f)
    seeds = doc["seeds"]
    doc.pop("ns2_node_reset_order", None)  # now ns2ref's, shared by every ns-2 experiment
    for row in doc["rows"]:
        st = doc["settings"][row["setting"]]
        def run(est="ns2"):
            return mean([summarise(run_ccsim(st, row["scheme"], row["buffer_pkts"], s, est)) for s in seeds])

        row["ccsim"] = run()
        row["ratio"] = {k: ratio(row["ns2"][k], row["ccsim"][k]) for k in METRICS}
        if "ccsim_rfc6298" in row:
            row["ccsim_rfc6298"] = run(DIAG_ESTIMATOR)
        print_row(row)
    doc["ccsim_version"] = ccsim.__version__
    doc["ccsim_date"] = datetime.date.today().isoformat()
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def spread(name, scheme, kb, seeds):
    """Seed study of one row: each seed's metrics in both simulators, and
    per metric the means, seed standard deviations and Welch's t of the
    difference (ccsim - ns-2). A 3-seed mean of a row whose seeds fall
    into different regimes can sit far from either simulator's long-run
    mean; this tells a difference of implementation (|t| large with many
    seeds) from seed spread."""
    st = SETTINGS[name]
    buf = buffer_pkts(kb)
    per = {"ns2": [], "ccsim": []}
    for s in seeds:
        with tempfile.TemporaryDirectory() as d:
            per["ns2"].append(summarise(run_ns2(st, scheme, buf, s, d)))
        per["ccsim"].append(summarise(run_ccsim(st, scheme, buf, s)))
        print(f"seed {s}: " + "; ".join(f"{k} {per['ns2'][-1][k]:.4g}/{per['ccsim'][-1][k]:.4g}"
                                        for k in ("drop_prob", "avg_queue_pkts", "goodput_max", "timeouts")),
              flush=True)
    stats = {}
    for k in METRICS:
        c = seed_compare([x[k] for x in per["ns2"]], [x[k] for x in per["ccsim"]])
        c.pop("paired_t", None)  # each simulator draws the Telnet intervals from its own generator
        stats[k] = dict(c, ratio=ratio(c["ns2_mean"], c["ccsim_mean"]))
        print(f"  {k:16s} ns-2 {c['ns2_mean']:10.4g} ± {c['ns2_sd']:<9.2g} ccsim {c['ccsim_mean']:10.4g} ± "
              f"{c['ccsim_sd']:<9.2g} ratio {stats[k]['ratio']:6.3f}  t {c['welch_t']:+.2f}")
    return {"source": "ns-2", "ns2_version": "2.35", "ccsim_version": ccsim.__version__,
            "date": datetime.date.today().isoformat(), "setting": name, "scheme": scheme, "buffer_kb": kb,
            "buffer_pkts": buf, "seeds": list(seeds), "per_seed": per, "stats": stats}


def print_row(row):
    diag = row.get("ccsim_rfc6298")
    print(f"{row['setting']} {row['scheme']} {row['buffer_kb']} kB: ns-2, ccsim, ccsim/ns-2"
          + (f", ccsim with rtt_estimator {DIAG_ESTIMATOR}" if diag else ""))
    for k in METRICS:
        a, b, r = row["ns2"][k], row["ccsim"][k], row["ratio"][k]
        print(f"  {k:16s} {a:12.5g} {b:12.5g}  {r:6.3f}" + (f" {diag[k]:12.5g}" if diag else ""))
    sys.stdout.flush()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="one short row per setting (no --out default)")
    ap.add_argument("--setting", action="append", choices=sorted(SETTINGS))
    ap.add_argument("--out", default=None,
                    help=f"write the rows as JSON (this module's docstring has the schema; gwa-ns2 reads {REFERENCE})")
    ap.add_argument("--ccsim-only", metavar="FILE",
                    help=f"re-run ccsim's side of the rows recorded in FILE (e.g. {REFERENCE}), keeping ns-2's; "
                         "no ns needed")
    ap.add_argument("--spread", nargs=3, metavar=("SCHEME", "BUFFER_KB", "OUT"),
                    help="seed study of one row of the --setting (one): seeds 1..--seeds in both simulators, "
                         "per-seed metrics and Welch's t per metric written to OUT (JSON)")
    args = ap.parse_args(argv)
    if args.spread:
        scheme, kb, out = args.spread
        if scheme not in SCHEMES:
            ap.error(f"--spread SCHEME: {scheme!r}; allowed: {', '.join(SCHEMES)}")
        if not args.setting or len(args.setting) != 1:
            ap.error("--spread needs exactly one --setting")
        try:
            kb = int(kb)
        except ValueError:
            ap.error(f"--spread BUFFER_KB: {kb!r}; allowed: a whole number of kB")
        if shutil.which("ns") is None:
            print("gwa_compare: skipped, ns-2.35 is not installed (`ns` not on PATH; apt-get install ns2)")
            return 0
        doc = spread(args.setting[0], scheme, kb, range(1, args.seeds + 1))
        with open(out, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        return 0
    if args.ccsim_only:
        rerun_ccsim(args.ccsim_only)
        return 0
    if shutil.which("ns") is None:
        print("gwa_compare: skipped, ns-2.35 is not installed (`ns` not on PATH; apt-get install ns2)")
        return 0
    names = args.setting or list(SETTINGS)
    seeds = list(range(1, args.seeds + 1))
    rows = compare(names, seeds, args.quick)
    if args.out:
        doc = {"source": "ns-2", "ns2_version": "2.35", "ccsim_version": ccsim.__version__,
               "date": datetime.date.today().isoformat(), "seeds": seeds, "quick": args.quick,
               "settings": {n: dict(SETTINGS[n], **(QUICK[n] if args.quick else {})) for n in names},
               "schemes": SCHEMES, "metrics": METRICS, "rows": rows}
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
