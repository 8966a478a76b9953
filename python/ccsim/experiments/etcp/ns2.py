"""``etcp-ns2``: the E-TCP paper's NewReno and HSTCP baselines (Figs 6 and
8) in ccsim against a recorded ns-2.35 run of the same scenarios (checks of
source ``ns-2``; the machinery is :mod:`.._kit.ns2ref`).

The paper ran its baselines in ns-2 (§VI-A): ``Agent/TCP/Newreno`` and
HSTCP as ``TCP/SACK1`` with ``windowOption_ 8`` and ``max_ssthresh_ 100``,
on the Fig 4 dumbbell (20-packet DropTail bottleneck, 100 Gb/s 5 ms edges
with 1000-packet queues, 1040-byte packets, ``window_`` 10,000,000).
``validation/ns2_baselines.py etcp`` runs :data:`ROWS` in ns-2.35 and in
ccsim (ns-2 mode: :func:`.._kit.ns2ref.ns2_mode`) and records both in
``ns2_reference.json`` beside this module; this experiment re-runs ccsim's
side and checks each metric within 5% of ns-2's.

Rows: Fig 6's single flow, 300 s, at 10 Mb/s, 100 Mb/s and 1 Gb/s with
RTT 100 ms, and 1 Gb/s with 50 and 200 ms; Fig 8's 50 flows starting in
the first 100 ms at 2.5 Gb/s, 100 ms, 300 s. Paced NewReno has no ns-2.35
agent (the paper's pacing patch is not in the distribution), STCP and FAST
are external modules: none of the three is compared. Fig 8's 5 Gb/s rows
are left out for ns-2's run time (about 10 minutes each). ``--quick``
re-runs the 10 and 100 Mb/s rows.

Queue limit: each row's ``buffer_pkts`` (20 waiting, so ns-2's
``queue-limit 21``: the mapping of docs/validation.md, "Queue limit") is
the one its ns-2 runs were recorded with, one place more than the
reproductions' :data:`.BUFFER` (ns-2's ``queue-limit 20``). The comparison
is of the two simulators on one scenario, which that place does not
change; re-recording would take ns-2's hours for no new evidence.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

from .._kit import ns2ref
from .._kit.ns2ref import Row
from . import PROTOCOLS, etcp_scenario
from .._kit.setups import flow

ID = "etcp-ns2"
SOURCE = "E-TCP (small-buffer high-speed CC), Figs 6 and 8 NewReno/HSTCP rows vs ns-2.35"
DESCRIPTION = ("E-TCP Fig 6 (one flow) and Fig 8 (50 flows) NewReno and HSTCP baselines in ccsim against a "
               "recorded ns-2.35 run: utilisation, loss rate, retransmissions, timeouts, Jain's index")

REFERENCE = Path(__file__).with_name("ns2_reference.json")
PROTOS = ("NewReno", "HSTCP")
ROWS: List[Row] = (
    [Row(f"fig6 {p} {r / 1e6:g} Mb/s {t * 1e3:g} ms", "Fig 6", p, r, t, 20, quick=r <= 100e6)
     for p in PROTOS for r, t in [(10e6, 0.1), (100e6, 0.1), (1e9, 0.1), (1e9, 0.05), (1e9, 0.2)]]
    + [Row(f"fig8 {p} 50 flows 2500 Mb/s 100 ms", "Fig 8", p, 2.5e9, 0.1, 20, n=50, start_spread_s=0.1)
       for p in PROTOS])
REF = ns2ref.Reference(REFERENCE, ROWS, "python -m validation.ns2_baselines etcp")
PAPER = {"reference": REFERENCE.name, "metrics": ns2ref.METRICS, "tolerance": ns2ref.TOL}


def scenario(row: Row, seed: int) -> Dict[str, Any]:
    """The row's Fig 4 dumbbell with its flows in ns-2 mode, each with the
    tick phase ns-2 draws for it (``ns2_phases``), and the events in ns-2's
    order down to its floating-point clock (``ns2_clock_scenario``: with
    it each Fig 8 seed is ns-2's run of that seed; docs/validation.md)."""
    f = flow(row.protocol, rwnd_pkts=10_000_000)
    f.update(PROTOCOLS[row.protocol])
    sc = etcp_scenario(f"{ID}-{row.id}", row.duration_s, row.rate_bps, row.rtt_s, ns2ref.expand(f, row, seed),
                       buffer_pkts=row.buffer_pkts)
    sc.update(seed=seed, warmup_s=row.warmup_s)
    return ns2ref.ns2_phases(ns2ref.ns2_clock_scenario(sc))


scenarios, analyse, checks, plot = ns2ref.hooks(REF, scenario, ID, "E-TCP paper NewReno / HSTCP baselines: ccsim vs ns-2.35 (grey: ±5%)")
