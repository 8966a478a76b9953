"""One baseline row in ns-2.35 and in ccsim with ccsim given ns-2's own
RTT tick phases (``boot_time_``), so the two differ only in their models.

    python -m validation.ns2_boot_replay etcp|ltcp ROW_ID [--seed N] [--duration S]

The baseline rows (``validation/ns2_baselines.py``) draw each agent's tick
phase independently in the two simulators (ns-2 from its RNG in
``TcpAgent::reset``, ccsim from the scenario seed), so a timer can fire one
``tcpTick_`` apart and the rows agree only statistically. As
``validation/sack1_traces.py`` does for one agent, this reads the draws from
ns-2's RNG in Tcl before any agent exists: each agent draws once when it is
created and once more when ``$ns run`` resets it, so with n agents the
second n draws after seeding are the phases they run with; the script
seeds again (so ns-2 runs exactly as recorded) and gives those phases to
ccsim as ``ns2_boot_time_s``. Prints both sides' metrics (ns-2's must
equal the row's record).

Needs ``ns``.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List, Optional

import ccsim
from ccsim.experiments._kit import ns2ref

from . import ns2_baselines


def draws_tcl(n: int, seed: int) -> str:
    """Tcl printing the phases n agents will run with, then reseeding."""
    return (f"for {{set k 0}} {{$k < {2 * n}}} {{incr k}} "
            "{ set bt($k) [$defaultRNG uniform 0 [Agent/TCP set tcpTick_]] }\n"
            f"for {{set k 0}} {{$k < {n}}} {{incr k}} {{ puts \"boot $k $bt([expr $k + {n}])\" }}\n"
            f"$defaultRNG seed {seed}\n")


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("experiment", choices=sorted(ns2_baselines.EXPERIMENTS))
    ap.add_argument("row", help="a row id of the experiment's ROWS")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--duration", type=float, help="shorter than the row's duration_s")
    a = ap.parse_args(argv)
    mod = ns2_baselines.EXPERIMENTS[a.experiment]
    rows = {r.id: r for r in mod.ROWS}
    if a.row not in rows:
        ap.error(f"unknown row {a.row!r}; allowed: {', '.join(rows)}")
    ns = shutil.which("ns")
    if ns is None:
        print("error: ns-2.35 not found (apt-get install ns2)", file=sys.stderr)
        return 2
    row = rows[a.row]
    sc = mod.scenario(row, a.seed)
    if a.duration:
        sc["duration_s"] = a.duration
    n = len(sc["flows"])
    tcl = ns2_baselines.tcl(sc).replace("set r0 [$ns node]\n", draws_tcl(n, sc["seed"]) + "set r0 [$ns node]\n", 1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "row.tcl"
        path.write_text(tcl)
        out = subprocess.run([ns, str(path)], capture_output=True, text=True, cwd=tmp)
    if out.returncode != 0:
        raise RuntimeError(f"ns failed ({out.returncode}): {out.stderr[-2000:]}")
    boots = {int(m.group(1)): float(m.group(2)) for m in re.finditer(r"^boot (\d+) (\S+)$", out.stdout, re.M)}
    peer = ns2_baselines.parse(out.stdout, sc, row.rate_bps)
    for i, f in enumerate(sc["flows"]):
        f["ns2_boot_time_s"] = boots[i]
    mine = ns2ref.measure(ccsim.run(sc).raw, row.rate_bps)
    for name, m in (("ns-2", peer), ("ccsim", mine)):
        print(f"{name:6} " + "; ".join(f"{k} {m[k]:.7g}" for k in ns2ref.METRICS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
