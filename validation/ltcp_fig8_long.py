"""``ltcp-fig8``'s LTCP + ten TCP runs measured over later 300 s windows too
(for the trend check "TCP share of the link falls as the link rate
grows").

    python -m validation.ltcp_fig8_long [--rates 1e8 5e8 1e9 2.4e9] [--duration 1200] [--edge-rate BPS] [--ns2-clock] [--out FILE.json]

The scenarios are the experiment's own (``first_stage`` of ``ltcp-fig8``,
full run, the ``LTCP+10TCP`` points), with 1 s samples and the run
continued to ``--duration``. For each rate: the ten TCP flows' aggregate
goodput and share of the payload capacity over [300, 600] s (the
experiment's, the paper's "after another 300 seconds") and over each later
300 s window, next to the synchronised-AIMD equilibrium
(``models.ltcp.mixed_equilibrium``) the experiment's model check uses.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path

import ccsim
from ccsim.experiments import first_stage
from ccsim.experiments._kit import ns2ref
from ccsim.experiments.ltcp import BETA, DEFAULT_BUFFER, PAYLOAD, PKT_BYTES, RTT, W_T, fig8
from ccsim.models.aimd import bdp_packets
from ccsim.models.ltcp import mixed_equilibrium


def scenario(rate: float, duration: float, edge_rate=None, ns2_clock: bool = False):
    sw = first_stage(fig8, False)[0]
    (i,) = [k for k, (r, m) in enumerate(sw.labels) if r == rate and m == "LTCP+10TCP"]
    sc = copy.deepcopy(dict(sw.base))
    for key, v in sw.points[i].items():
        node = sc
        *path, last = key.split(".")
        for p in path:
            node = node[p]
        node[last] = copy.deepcopy(v)
    sc.update(duration_s=duration, warmup_s=0.0, sample_interval_s=1.0)
    if edge_rate is not None:
        # what-if only: access links faster than the bottleneck (the paper's are 2.4 Gb/s)
        sc["topology"]["edge_rate_bps"] = edge_rate
    if ns2_clock:
        # every queue in ns-2's full event order (ties = "ns2", ns-2's floating-point clock), as the
        # *-ns2 comparisons run, instead of the figures' arrival_first order
        sc = ns2ref.ns2_clock_scenario(sc)
    return sc


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rates", type=float, nargs="+", default=[1e8, 5e8, 1e9, 2.4e9])
    ap.add_argument("--duration", type=float, default=1200.0)
    ap.add_argument("--edge-rate", type=float, default=None,
                    help="what-if: access links at this rate (b/s) instead of the paper's 2.4 Gb/s")
    ap.add_argument("--ns2-clock", action="store_true",
                    help="run in ns-2's full event order (ns2ref.ns2_clock_scenario)")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    out = []
    for rate in args.rates:
        res = ccsim.run(scenario(rate, args.duration, args.edge_rate, args.ns2_clock))
        gp = res.flow_series.pivot(index="time_s", columns="flow", values="goodput_bps") / 1e6
        cap = rate * PAYLOAD / 1e6
        _, k, share = mixed_equilibrium(fig8.N_TCP, bdp_packets(rate, RTT, PKT_BYTES) + DEFAULT_BUFFER, W_T, BETA)
        row = {"rate_bps": rate, "model_tcp_share": share, "model_layer": k, "windows": []}
        tcp_cols = [c for c in gp.columns if c != 0]
        for a in range(300, int(args.duration), 300):
            w = gp[(gp.index > a) & (gp.index <= a + 300)]
            tcp = float(w[tcp_cols].sum(axis=1).mean())
            row["windows"].append({"from_s": a, "to_s": a + 300, "tcp_aggregate_mbps": tcp, "tcp_share": tcp / cap,
                                   "ltcp_mbps": float(w[0].mean())})
        # the TCP aggregate's 10 s means over the first measured 300 s (the transient)
        agg = gp[tcp_cols].sum(axis=1)
        row["tcp_10s_means_300_600"] = [float(agg[(agg.index > t) & (agg.index <= t + 10)].mean())
                                        for t in range(300, 600, 10)]
        out.append(row)
        print(f"{rate / 1e6:g} Mb/s (model share {share:.4f}, K' {k}): " + "; ".join(
            f"[{w['from_s']}, {w['to_s']}] TCP {w['tcp_aggregate_mbps']:.1f} Mb/s share {w['tcp_share']:.4f}"
            for w in row["windows"]), flush=True)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
