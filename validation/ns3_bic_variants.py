"""Which part of ns-3's BIC makes its 10-flow row lose less than ccsim's
(docs/validation.md, ns-3 cause 7): ``bic-10-equal`` over start-phase seeds
1-5 (``ns3_suite.run_seeds``' phases) with BIC's two search rules set alike
on both sides, one at a time:

* ``as-run``: the suite's mapping (ns-3 `TcpBic` defaults: search step a
  quarter of the gap, `BinarySearchCoefficient` 4; fast convergence to
  β·W = 0.8 W in `TcpBic::GetSsThresh`; ccsim: the paper's half of the gap,
  fast convergence to (1 + β)/2 · W);
* ``b2``: ns-3 with `BinarySearchCoefficient` 2 (the paper's half);
* ``b2-nofc``: also fast convergence off on both sides.

    python -m validation.ns3_bic_variants               # about 3 minutes; writes results/ns3/bic-variants.json
    python -m validation.ns3_bic_variants --ccsim-only  # ccsim against the recorded ns-3 runs
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics as st

from validation import ns3_suite as suite

VARIANTS = {
    "as-run": ({}, {}),
    "b2": ({"ns3::TcpBic::BinarySearchCoefficient": "2"}, {}),
    "b2-nofc": ({"ns3::TcpBic::BinarySearchCoefficient": "2", "ns3::TcpBic::FastConvergence": "false"},
                {"fast_convergence": False}),
}
SEEDS = [1, 2, 3, 4, 5]


def _recorded(path) -> dict:
    """ns-3's metrics per (variant, seed) from the recorded runs (ns-3 is deterministic)."""
    if not path.exists():
        raise ValueError(f"--ccsim-only: no recorded runs at {path}; run with ns-3 first")
    rec = json.loads(path.read_text(encoding="utf-8"))
    if rec["seeds"] != SEEDS or rec["variants"] != {k: {"ns3_attrs": v[0], "cc_params": v[1]}
                                                     for k, v in VARIANTS.items()}:
        raise ValueError(f"--ccsim-only: {path} was recorded with other seeds or variants; run with ns-3")
    return {(name, k): r["ns3"] for name, runs in rec["runs"].items() for k, r in zip(SEEDS, runs)}


def main(ccsim_only: bool = False) -> None:
    """Run the variants in ns-3 and ccsim (``ccsim_only``: ccsim against
    the ns-3 side recorded in results/ns3/bic-variants.json)."""
    base = next(s for s in suite.SCENARIOS if s.id == "bic-10-equal")
    path = suite.HERE / "results" / "ns3" / "bic-variants.json"
    ns3 = _recorded(path) if ccsim_only else None
    exe = None if ccsim_only else suite.build()
    ctl = suite.CONTROLLERS["bic"]
    out = {}
    for name, (ns3_attrs, cc_params) in VARIANTS.items():
        suite.CONTROLLERS["bic"] = dict(ctl, ns3_attrs={**ctl["ns3_attrs"], **ns3_attrs},
                                        cc_params={**(ctl["cc_params"] or {}), **cc_params})
        runs = []
        for k in SEEDS:
            sc = dataclasses.replace(base, seed=k)
            n = ns3[(name, k)] if ns3 is not None else suite.run_ns3(sc, exe)["metrics"]
            runs.append({"ns3": n, "ccsim": suite.run_ccsim(sc)["metrics"]})
        out[name] = runs
        for m in ("loss_rate", "jain", "retransmits"):
            a = [r["ns3"][m] for r in runs]
            b = [r["ccsim"][m] for r in runs]
            print(f"{name:8s} {m:12s} ns-3 {st.fmean(a):.5g} ± {st.stdev(a) / len(a) ** 0.5:.2g}"
                  f"  ccsim {st.fmean(b):.5g} ± {st.stdev(b) / len(b) ** 0.5:.2g}", flush=True)
    suite.CONTROLLERS["bic"] = ctl
    path.write_text(json.dumps({"seeds": SEEDS, "variants": {k: {"ns3_attrs": v[0], "cc_params": v[1]}
                                                              for k, v in VARIANTS.items()}, "runs": out},
                               indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="BIC's search rules in ns-3 and ccsim, bic-10-equal over seeds")
    ap.add_argument("--ccsim-only", action="store_true", help="re-run ccsim against the recorded ns-3 runs")
    main(ap.parse_args().ccsim_only)
