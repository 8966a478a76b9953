"""ns-2.35's RTT estimator against ccsim's two, on the many-flow small-buffer dumbbell.

    python validation/rto_compare.py [--quick] [--seeds N]

The scenario is ``ccsim bench``'s B3 (50 NewReno flows, 1 Gb/s, RTT 100 ms,
20-packet DropTail buffer, 60 s; ``--quick``: 20 s), mapped to ns-2 as
benches/peer_ns2.py maps it (Agent/TCP/Newreno, TCPSink, 1040-byte
packets). It is run in ns-2 and in ccsim six ways: with
``rtt_estimator = "rfc6298"`` (ccsim's default: every ACK timed, RFC 6298
gains in seconds) and ``"ns2"`` (tcp.cc's one timed segment per RTT in
tcpTick_ ticks, fixed-point SRTT/RTTVAR, backoff cleared only by the timed
segment; its rtxcur_init_ of 3 s), and ``"ns2"`` with
``halve_on_repeated_rto = true`` (ns-2's timeout() halving ssthresh on
every RTO, repeats included), that with ``ns2_bugfix``, and the whole
ns-2 mode of the reproductions (below). Printed per side: bottleneck
utilisation and drop rate, retransmission timeouts (ns-2 nrexmit_),
retransmitted packets (nrexmitpack_) and Jain's index of the per-flow
goodput (ns-2: ack_ x 1000 B over the run).

ccsim runs ``--seeds`` seeds (default 3; ccsim's seed moves only ns-2's
boot_time_ draws here, as every flow starts at 0 with equal RTTs) and
reports the mean with the range. ns-2 runs the same seeds
(``$defaultRNG seed``), which set its agents' tick phases; the whole ns-2
mode (``ccsim ns-2 mode``: every flow as the reproductions run it,
``ns2ref.ns2_mode``, with ns-2's tie order and each agent's tick phase
drawn from ns-2's stream for the seed) then runs each seed with ns-2's
own phases, and ``ccsim ns-2 mode + clock`` with ns-2's floating-point
clock too (``validation/ns2_trace.py``: then every seed is ns-2's run).
Needs ``ns`` (apt-get install ns2) and the ccsim package; see
docs/validation.md.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import ccsim
from ccsim.bench import scenario

HERE = Path(__file__).resolve().parent


def _trace():
    sys.path.insert(0, str(HERE.parent))
    from validation import ns2_trace

    return ns2_trace


def jain(xs):
    s, s2 = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * s2) if s2 else 1.0


def base(quick: bool) -> dict:
    d = scenario("B3").to_dict()
    if quick:
        d["duration_s"] = 20.0
    return d


def run_ns2(d: dict, ns: str, seed: int) -> dict:
    _, out = _trace().peer().run_ns2_stdout(d, ns, rng_seed=seed)
    w = out.split()
    dep, drops, arr = (int(float(w[w.index(k) + 1])) for k in ("departures", "drops", "arrivals"))
    flows = [ln.split()[1:] for ln in out.splitlines() if ln.startswith("flow ")]
    dur, rate = d["duration_s"], d["topology"]["bottleneck_rate_bps"]
    return {
        "utilization": dep * 1040 * 8 / (rate * dur),
        "loss_rate": drops / arr,
        "timeouts": sum(int(f[2]) for f in flows),
        "retransmits": sum(int(f[3]) for f in flows),
        "jain": jain([int(f[1]) for f in flows]),
    }


NS2_MODE = "ccsim ns-2 mode"
NS2_CLOCK = "ccsim ns-2 mode + clock"

#: ccsim variants: the label and the TCP fields that make it (a bool: the
#: whole ns-2 mode, with ns-2's clock or not,
#: :func:`validation.ns2_trace.ns2_mode_scenario`).
VARIANTS = {
    "ccsim rfc6298": {"rtt_estimator": "rfc6298"},
    "ccsim ns2": {"rtt_estimator": "ns2"},
    "ccsim ns2+halve": {"rtt_estimator": "ns2", "halve_on_repeated_rto": True},
    "ccsim ns2+halve+bugfix": {"rtt_estimator": "ns2", "halve_on_repeated_rto": True, "ns2_bugfix": True},
    # the reproductions' whole ns-2 mode: every flow through ns2ref.ns2_mode
    # (its window with the inflation apart, singledup_, the idle timer, the
    # initial window, opencwnd's slow start, ...), the queues in ns-2's tie
    # order and each flow's tick phase drawn as ns-2 draws it
    # (ns2_topology, ns2_phases); then with ns-2's floating-point clock too
    NS2_MODE: False,
    NS2_CLOCK: True,
}


def run_ccsim(d: dict, fields, seed: int) -> dict:
    d = json.loads(json.dumps(d))
    d["seed"] = seed
    if isinstance(fields, bool):
        d = _trace().ns2_mode_scenario(d, clock=fields)
    else:
        for f in d["flows"]:
            f.update(fields)
    r = ccsim.run(d).raw
    bn = next(link for link in r["links"] if link["monitored"] and link["from"] == "r0")
    return {
        "utilization": bn["utilization"],
        "loss_rate": bn["loss_rate"],
        "timeouts": sum(f["timeouts"] for f in r["flows"]),
        "retransmits": sum(f["retransmits"] for f in r["flows"]),
        "jain": r["jain_index"],
    }


KEYS = ("utilization", "loss_rate", "timeouts", "retransmits", "jain")


def summarise(runs):
    return {k: (sum(r[k] for r in runs) / len(runs), min(r[k] for r in runs), max(r[k] for r in runs)) for k in KEYS}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="20 s instead of 60 s")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--json", metavar="OUT", help="also write the table as JSON")
    a = ap.parse_args(argv)
    d = base(a.quick)
    table = {}
    ns = shutil.which("ns")
    if ns is None:
        print("ns-2 not installed (apt-get install ns2): ns-2 column skipped", file=sys.stderr)
    else:
        table["ns-2.35"] = summarise([run_ns2(d, ns, s) for s in range(1, a.seeds + 1)])
    for label, fields in VARIANTS.items():
        table[label] = summarise([run_ccsim(d, fields, s) for s in range(1, a.seeds + 1)])
    print(f"B3 dumbbell, {d['duration_s']:.0f} s: mean [min, max] over {a.seeds} ccsim seeds")
    print(f"{'side':24} " + " ".join(f"{k:>26}" for k in KEYS))
    for side, row in table.items():
        cells = []
        for k in KEYS:
            m, lo, hi = row[k]
            f = "{:.4g}"
            cells.append(f"{f.format(m)} [{f.format(lo)}, {f.format(hi)}]" if lo != hi else f.format(m))
        print(f"{side:24} " + " ".join(f"{c:>26}" for c in cells))
    if a.json:
        Path(a.json).write_text(json.dumps({"duration_s": d["duration_s"], "rows": table}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
