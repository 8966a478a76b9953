"""Which rule makes ccsim's CUBIC lose more than ns-3's in ``cubic-50-1g``
(docs/validation.md, ns-3 cause 7): the CUBIC rows over the start-phase seeds
already run in ns-3 (``results/ns3/ns3-seeds.json``, ``ns3_suite.run_seeds``'
phases), with ccsim's CUBIC rules switched one at a time to ns-3 3.44's:

* ``as-run``: the suite's mapping (ccsim's RFC 9438 CUBIC);
* ``no-alpha-switch``: ``alpha_switch = false``: the Reno-friendly estimate
  W_est keeps α_cubic = 3(1 − β)/(1 + β) after it reaches cwnd_prior, as
  RFC 8312 §4.2, Linux's ``tcp_cwnd`` and ns-3's ``TcpCubic::Update``
  (``m_tcpCwnd``: one segment per ⌊15·cwnd/8⌋ ACKed segments, throughout)
  do; RFC 9438 §4.3 switches it to 1.

Only ccsim is re-run (ns-3's rules are not changed, so its stored runs
stand): a few seconds per run.

    python -m validation.ns3_cubic_variants   # writes results/ns3/cubic-variants.json
"""

from __future__ import annotations

import dataclasses
import json
import statistics as st

from validation import ns3_suite as suite

VARIANTS = {
    "as-run": {},
    "no-alpha-switch": {"alpha_switch": False},
}
ROWS = ["cubic-10-spread", "cubic-50-1g"]
METRICS = ["loss_rate", "utilization", "jain", "retransmits", "timeouts"]


def _stored() -> dict:
    """ns-3's metrics per (row, seed) from the phase runs."""
    runs = json.loads((suite.HERE / "results" / "ns3" / "ns3-seeds.json").read_text(encoding="utf-8"))["runs"]
    return {(r["id"], r["params"]["seed"]): {m: v["ns3"] for m, v in r["metrics"].items()} for r in runs}


def _mean_se(xs: list) -> tuple:
    return st.fmean(xs), (st.stdev(xs) / len(xs) ** 0.5 if len(xs) > 1 else 0.0)


def main() -> None:
    ns3 = _stored()
    ctl = suite.CONTROLLERS["cubic"]
    out: dict = {}
    try:
        for name, cc_params in VARIANTS.items():
            suite.CONTROLLERS["cubic"] = dict(ctl, cc_params={**(ctl["cc_params"] or {}), **cc_params})
            for row in ROWS:
                base = next(s for s in suite.SCENARIOS if s.id == row)
                seeds = sorted(k for (r, k) in ns3 if r == row)
                runs = [{"seed": k, "ns3": ns3[(row, k)], "ccsim": suite.run_ccsim(dataclasses.replace(base, seed=k))["metrics"]}
                        for k in seeds]
                out.setdefault(name, {})[row] = runs
                for m in METRICS:
                    a, sa = _mean_se([r["ns3"][m] for r in runs])
                    b, sb = _mean_se([r["ccsim"][m] for r in runs])
                    t = (b - a) / (sa * sa + sb * sb) ** 0.5 if sa or sb else 0.0
                    rel = f"{b / a - 1:+.1%}" if a else "-"
                    print(f"{name:16s} {row:16s} {m:12s} ns-3 {a:.5g} ± {sa:.2g}  ccsim {b:.5g} ± {sb:.2g}"
                          f"  {rel}  t {t:+.1f}", flush=True)
    finally:
        suite.CONTROLLERS["cubic"] = ctl
    path = suite.HERE / "results" / "ns3" / "cubic-variants.json"
    path.write_text(json.dumps({"variants": VARIANTS, "runs": out}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
