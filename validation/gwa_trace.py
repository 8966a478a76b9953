"""One GWA row in ns-2.35 and in ccsim, compared packet event by packet
event at the bottleneck: where do the two runs first differ?

    python -m validation.gwa_trace [--setting gwa-lan] [--scheme ecn]
        [--kb 30] [--seed 1] [--telnet] [--duration 25] [--out DIR]

Both sides trace the r0 -> r1 queue (`+ - r d`; ns-2 `trace-queue`,
ccsim `trace=`), and the events are compared as (event, time to 1 us,
flow, segment, CE mark), sorted within each microsecond (two links'
events of one instant are written in either order). ccsim runs the
`gwa-ns2` scenario (``ccsim.experiments.gwa.ns2.scenario``: ns-2's TCP
rules, its event order ``ties = "ns2"``, its random stream ``rng =
"ns2"``), so with one seed both simulators draw the same numbers and a
difference is a difference of models (docs/validation.md, "ns-2's own
random draws"). Prints the number of identical events and the events
around the first difference.

Needs ``ns``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from typing import Callable, List, Optional, Tuple

import ccsim
from ccsim.experiments.gwa.ns2 import SETTINGS, buffer_pkts, scenario

from .gwa_compare import HERE, tcl_params

Event = Tuple[str, int, str, int, str, bool]


def load(path: str, ns2: bool) -> List[Event]:
    """A bottleneck trace as sorted events. Hosts are numbered r0, r1,
    s0, d0, s1, ... in ns-2's script and r0, r1, s0..s9, d0..d9 in ccsim's
    topology; a data packet's flow is its source host's, an ACK's its
    destination's. A drop's CE flag is left out: ns-2 marks an arrival
    and then drops it for a full buffer, ccsim drops it unmarked."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if not w or w[0] not in "+-rd":
                continue
            host = int(float(w[8] if w[4] == "tcp" else w[9]))
            flow = (host - 2) // 2 if ns2 else host - 2
            out.append((w[0], round(float(w[1]) * 1e6), w[4], flow, w[10], w[0] != "d" and "E" in w[6]))
    return sorted(out, key=lambda e: (e[1], str(e)))


def compare(scheme: str, kb: int, seed: int, telnet: bool, duration: float,
            workdir: str, setting: str = "gwa-lan") -> Tuple[int, List[Event], List[Event]]:
    """Run both; (events identical from the start, ns-2's, ccsim's)."""
    st = dict(SETTINGS[setting], telnet=telnet, dur=duration, warm=min(5.0, duration / 2))
    buf = buffer_pkts(kb)
    ns_tr, cc_tr, params = (os.path.join(workdir, n) for n in ("ns2.tr", "ccsim.tr", "params.tcl"))
    sc = scenario(st, scheme, buf, seed)
    ccsim.run(sc, trace={"r0->r1": cc_tr})
    with open(params, "w", encoding="utf-8") as f:
        f.write(tcl_params(st, scheme, buf, seed, ns_tr))
    subprocess.run(["ns", os.path.join(HERE, "gwa_topology.tcl"), params], check=True, capture_output=True)
    a, b = load(ns_tr, True), load(cc_tr, False)
    return first_difference(a, b), a, b


def first_difference(a: List[Event], b: List[Event]) -> int:
    """How many events two sorted traces share from the start."""
    n = min(len(a), len(b))
    return next((i for i in range(n) if a[i] != b[i]), n)


def traced(out: Optional[str], run: Callable[[str], Tuple[int, List[Event], List[Event]]]
           ) -> Optional[Tuple[int, List[Event], List[Event]]]:
    """``run(workdir)`` (a ``compare``) in ``out`` or a temporary
    directory, then :func:`report`; None (with a message) without ``ns``."""
    if shutil.which("ns") is None:
        print("error: ns-2.35 not found (apt-get install ns2)", file=sys.stderr)
        return None
    with tempfile.TemporaryDirectory() as tmp:
        d = out or tmp
        os.makedirs(d, exist_ok=True)
        res = run(d)
    report(*res)
    return res


def report(same: int, ns2: List[Event], cc: List[Event]) -> None:
    """Print the count of identical events and those around the first
    difference, ns-2's beside ccsim's."""
    print(f"ns-2 {len(ns2)} events, ccsim {len(cc)}; identical for the first {same}")
    if same < min(len(ns2), len(cc)):
        print(f"first difference at {ns2[same][1] / 1e6} s (event, us, type, flow, segment, CE):")
        for i in range(max(0, same - 4), min(len(ns2), len(cc), same + 5)):
            print(f"  {ns2[i]} | {cc[i]}{'' if ns2[i] == cc[i] else '  <<'}")


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--setting", choices=sorted(SETTINGS), default="gwa-lan")
    ap.add_argument("--scheme", choices=["droptail", "red", "ecn"], default="ecn")
    ap.add_argument("--kb", type=int, default=30, help="bottleneck buffer (kB = packets)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--telnet", action="store_true", help="with the Telnets (the paper's row)")
    ap.add_argument("--duration", type=float, default=25.0)
    ap.add_argument("--out", help="keep the traces here")
    a = ap.parse_args(argv)
    res = traced(a.out, lambda d: compare(a.scheme, a.kb, a.seed, a.telnet, a.duration, d, a.setting))
    return 2 if res is None else 0


if __name__ == "__main__":
    sys.exit(main())
