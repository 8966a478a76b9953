"""``ltcp-ns2``: the LTCP paper's TCP rows (Fig 6's TCP column, Fig 8's
ten TCP flows) in ccsim against a recorded ns-2.35 run of the same
scenarios (checks of source ``ns-2``; the machinery is
:mod:`.._kit.ns2ref`).

The paper's TCP is ns-2's ``TCP/Sack1`` (§V-A): here ``Agent/TCP/Sack1``
with ``Agent/TCPSink/Sack1`` on the Fig 4 dumbbell (1 ms bottleneck,
2.4 Gb/s access links, RTT 70 ms, 1040-byte packets). ccsim's side is
``recovery = "sack1"`` (ccsim's model of that agent) in ns-2 mode
(:func:`.._kit.ns2ref.ns2_mode`).
``validation/ns2_baselines.py ltcp`` records both sides in
``ns2_reference.json`` beside this module.

Rows: Fig 6 at 10 Mb/s, 100 Mb/s, 1 Gb/s and 2.4 Gb/s with a BDP buffer,
100 s warm-up and 300 s measured (``ltcp-fig6 --quick``'s period: the
paper's 2000 s would take ns-2 about an hour at 2.4 Gb/s); Fig 8's ten TCP
flows alone at 100 Mb/s, 500 Mb/s and 1 Gb/s with the 6000-packet buffer,
300 s (the reproduction's context runs; LTCP itself has no ns-2.35 agent).
``--quick`` re-runs the 10 and 100 Mb/s rows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

from .._kit import ns2ref
from .._kit.ns2ref import Row
from . import DEFAULT_BUFFER, EDGE_RATE, RTT, bdp_buffer, dumbbell, flow, scenario as _scenario

ID = "ltcp-ns2"
SOURCE = "LTCP (layered TCP), Fig 6 TCP column and Fig 8 TCP flows vs ns-2.35"
DESCRIPTION = ("LTCP Fig 6 TCP/Sack1 column and Fig 8's ten TCP flows in ccsim against a recorded ns-2.35 run: "
               "utilisation, loss rate, retransmissions, timeouts, Jain's index")

REFERENCE = Path(__file__).with_name("ns2_reference.json")
ROWS: List[Row] = (
    [Row(f"fig6 TCP {r / 1e6:g} Mb/s", "Fig 6", "TCP", r, RTT, bdp_buffer(r), duration_s=400.0, warmup_s=100.0,
         quick=r <= 100e6) for r in (10e6, 100e6, 1e9, 2.4e9)]
    + [Row(f"fig8 10 TCP {r / 1e6:g} Mb/s", "Fig 8", "TCP", r, RTT, DEFAULT_BUFFER, n=10, duration_s=300.0,
           quick=r <= 100e6) for r in (100e6, 500e6, 1e9)])
REF = ns2ref.Reference(REFERENCE, ROWS, "python -m validation.ns2_baselines ltcp")
PAPER = {"reference": REFERENCE.name, "metrics": ns2ref.METRICS, "tolerance": ns2ref.TOL}


def scenario(row: Row, seed: int) -> Dict[str, Any]:
    """The row's dumbbell (at 2.4 Gb/s the access queue gets the
    bottleneck's buffer, as in ``ltcp-fig6``) with its flows and queues in
    ns-2 mode, each flow with the tick phase ns-2 draws for it
    (``ns2_phases``)."""
    topo = dumbbell(row.rate_bps, row.buffer_pkts)
    if row.rate_bps >= EDGE_RATE:
        topo["edge_queue"]["limit_pkts"] = row.buffer_pkts
    sc = _scenario(f"{ID}-{row.id}", row.duration_s, ns2ref.ns2_topology(topo),
                   ns2ref.expand(flow(row.protocol), row, seed),
                   warmup=row.warmup_s)
    sc["seed"] = seed
    return ns2ref.ns2_phases(sc)


scenarios, analyse, checks, plot = ns2ref.hooks(REF, scenario, ID, "LTCP paper TCP (Sack1) rows: ccsim vs ns-2.35 (grey: ±5%)")
