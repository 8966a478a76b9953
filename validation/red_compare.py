"""Run the RED/ECN dumbbell in ns-2.35 and in ccsim and print both side by side.

    python validation/red_compare.py [SEEDS]      (default 3 seeds per side)

MODE: red (RED drops), ecn (RED marks ECT packets while p_b < mark_p = 0.1,
ns-2's stock ECN) or gwa (every RED decision on an ECT packet is a mark, the
GWA paper's ECN routers; ns-2 mark_p_ 2, ccsim ecn_mark_above_max = true).
NewReno flows with RTTs 40-76 ms; two settings: A, 10 flows on 100 Mb/s with
a 600-packet RED buffer (60 s); B, 30 flows on 10 Mb/s with 120 packets
(40 s), where the average queue reaches max_th. RED thresholds 1/12 and 3/12
of the buffer, max_p 0.1, not gentle (the GWA paper's settings), packet
mode, automatic w_q (validation/red_dumbbell.tcl has the ns-2 side). Each
side runs SEEDS seeds (ns-2: defaultRNG seed; ccsim: scenario seed); the
table shows the mean and, in brackets, the standard deviation over seeds.

Both sides are measured the same way from the bottleneck's + - d events
over the second half of the run: arrivals, drops (drop probability =
drops / arrivals), CE marks (counted at dequeue), time-average and maximum
waiting queue. ns-2's come from its trace-queue file; ccsim's from a tap
in crates/ccsim-core/examples/queue_trace.rs (ccsim's link results report
no mark count or average queue of their own yet). Timeouts and
retransmitted packets are whole-run totals (ns-2 nrexmit_, nrexmitpack_).
Goodput is each flow's
payload delivered over the second half (ns-2: its ack_ at DUR/2 and DUR).
Needs `ns` and cargo; not shipped in the wheel; see docs/validation.md.
"""
import json
import os
import subprocess
import sys
import tempfile

SEG = 1000
# (name, flows, duration s, buffer pkts, rate Mb/s, modes)
SETTINGS = [("A", 10, 60.0, 600, 100, ["red", "ecn", "gwa"]), ("B", 30, 40.0, 120, 10, ["red", "ecn", "gwa"])]
N = DUR = BUF = RATE = None
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def rtts():
    return [0.040 + 0.036 * i / (N - 1) for i in range(N)]


def trace_queue_stats(trace, t0, t_end):
    """Queue statistics of one link from its ns-2 trace-queue file (+ - d
    events; the count is the packets waiting, as ns-2's "-" is the start of
    transmission), over [t0, t_end]: arrivals, drops, CE marks (at dequeue),
    time-average and maximum queue, and the maximum over the whole run.
    ns-2 traces every arrival "+" before the queue decides, so a packet
    dropped on arrival passes through one count above what the queue held:
    ``max_queue_pkts_all`` includes that passage (as ccsim's tap, which
    emits Enqueue before Drop too), ``max_held_pkts_all`` does not (as
    ccsim's link result ``max_queue_pkts``)."""
    q = 0
    last = t0
    area = 0.0
    arrivals = drops = marks = 0
    max_q = max_q_all = max_held = 0
    pending = None  # (uid, count) of the last "+", committed unless dropped at once
    with open(trace) as f:
        for line in f:
            w = line.split()
            ev, t, size, flags = w[0], float(w[1]), int(w[5]), w[6]
            if ev not in "+-d":
                continue
            if pending is not None and not (ev == "d" and w[11] == pending[0]):
                max_held = max(max_held, pending[1])
            pending = None
            if t > t0:
                area += (t - max(last, t0)) * q
            last = t
            after = t >= t0
            if ev == "+":
                q += 1
                arrivals += after
                pending = (w[11], q)
            else:
                q -= 1
                if ev == "d":
                    drops += after
                elif flags[4] == "E":
                    marks += after
            max_held = max(max_held, q) if ev != "+" else max_held
            max_q_all = max(max_q_all, q)
            if after:
                max_q = max(max_q, q)
    if pending is not None:
        max_held = max(max_held, pending[1])
    if t_end > last:
        area += (t_end - max(last, t0)) * q
    return {
        "arrivals": arrivals,
        "drops": drops,
        "marks": marks,
        "avg_queue_pkts": area / (t_end - t0),
        "max_queue_pkts": max_q,
        "max_queue_pkts_all": max_q_all,
        "max_held_pkts_all": max_held,
    }


def parse_ns2(trace, acks):
    half = DUR / 2
    r = trace_queue_stats(trace, half, DUR)
    del r["max_held_pkts_all"]
    r["goodput_bps"] = [(acks["end"][i] - acks["half"][i]) * SEG * 8 / half for i in range(N)]
    return r


def run_ns2(mode, d, seed):
    tr = os.path.join(d, f"{mode}.tr")
    out = subprocess.run(
        ["ns", os.path.join(HERE, "red_dumbbell.tcl"), str(N), str(DUR), str(BUF), mode, tr, str(RATE), str(seed)],
        check=True, capture_output=True, text=True,
    ).stdout
    acks = {"half": [0] * N, "end": [0] * N}
    timeouts = retransmits = 0
    for line in out.splitlines():
        w = line.split()
        if w and w[0] == "ack":
            acks[w[1]][int(w[2])] = int(w[3])
        elif w and w[0] == "stat":
            # Second half only, as ccsim's flow counters after the warm-up.
            sign = 1 if w[1] == "end" else -1
            timeouts += sign * int(w[3])
            retransmits += sign * int(w[4])
    r = parse_ns2(tr, acks)
    r["timeouts"], r["retransmits"] = timeouts, retransmits
    return r


def scenario(mode, seed):
    ecn = mode != "red"
    q = (
        f'{{ kind = "red", limit_pkts = {BUF}, min_th_pkts = {BUF / 12}, max_th_pkts = {3 * BUF / 12}, max_p = 0.1, '
        f"gentle = false, bytes = false, ecn = {str(ecn).lower()}, "
        f"ecn_mark_above_max = {str(mode == 'gwa').lower()} }}"
    )
    flows = "".join(
        f'[[flows]]\ncc = "reno"\nrecovery = "newreno"\ndelayed_ack = false\nmss_bytes = {SEG}\n'
        f"header_bytes = 40\nrwnd_pkts = 100000\nrtt_s = {r!r}\nstart_s = {i * 0.5 / N!r}\n"
        f"ecn = {str(ecn).lower()}\n"
        for i, r in enumerate(rtts())
    )
    return (
        f'name = "red-ns2-{mode}"\nseed = {seed}\nduration_s = {DUR}\nwarmup_s = {DUR / 2}\nsample_interval_s = 0.0\n'
        f'[topology]\nkind = "dumbbell"\nbottleneck_rate_bps = {RATE * 1e6}\nbottleneck_delay_s = 0.01\n'
        f"bottleneck_queue = {q}\nedge_rate_bps = 100e6\n" + flows
    )


def run_ccsim(mode, d, seed):
    sc = os.path.join(d, f"{mode}.toml")
    with open(sc, "w") as f:
        f.write(scenario(mode, seed))
    out = subprocess.run(
        ["cargo", "run", "-q", "--release", "-p", "ccsim-core", "--example", "queue_trace", "--", sc, str(DUR / 2)],
        check=True, capture_output=True, text=True, cwd=ROOT,
    ).stdout
    return json.loads(out)


def metrics(x):
    arr = max(x["arrivals"], 1)
    return {
        "goodput Mb/s": sum(x["goodput_bps"]) / 1e6,
        "arrivals": x["arrivals"],
        "drops": x["drops"],
        "drop prob": x["drops"] / arr,
        "marks": x["marks"],
        "mark prob": x["marks"] / arr,
        "avg queue pkts": x["avg_queue_pkts"],
        "max queue pkts": x["max_queue_pkts"],
        "max queue (all run)": x["max_queue_pkts_all"],
        "timeouts": x["timeouts"],
        "retransmits": x["retransmits"],
    }


def stats(runs):
    out = {}
    for k in runs[0]:
        v = [r[k] for r in runs]
        m = sum(v) / len(v)
        sd = (sum((y - m) ** 2 for y in v) / (len(v) - 1)) ** 0.5 if len(v) > 1 else 0.0
        out[k] = (m, sd)
    return out


def fmt(m, sd):
    return f"{m:.4g} ({sd:.2g})"


def main(seeds):
    global N, DUR, BUF, RATE
    with tempfile.TemporaryDirectory() as d:
        for name, N, DUR, BUF, RATE, modes in SETTINGS:
            for mode in modes:
                a = stats([metrics(run_ns2(mode, d, s)) for s in range(1, seeds + 1)])
                b = stats([metrics(run_ccsim(mode, d, s)) for s in range(1, seeds + 1)])
                print(f"{name} {mode}: {N} flows, {RATE} Mb/s, {BUF}-pkt buffer, second half of {DUR:g} s, {seeds} seeds")
                print(f"  {'':20s} {'ns-2':>18} {'ccsim':>18}  ccsim/ns-2")
                for k in a:
                    r = b[k][0] / a[k][0] if a[k][0] else float("nan")
                    print(f"  {k:20s} {fmt(*a[k]):>18} {fmt(*b[k]):>18}  {r:.3f}")
                sys.stdout.flush()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
