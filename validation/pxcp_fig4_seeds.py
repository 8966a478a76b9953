"""``pxcp-fig4-table1``'s paced Reno, NewReno and HSTCP rows over seeds 1-5.

The experiment runs one seed (the scenario default, 1), which draws every
flow's RTT from its set's range; the paper gives one run too. This re-runs
the three rows whose order on link 3 and whose Jain indices are open
deviations (docs/experiments.md, ``pxcp-fig4-table1``) with seeds 1-5, to
tell a property of the protocols from one draw's:

    python -m validation.pxcp_fig4_seeds   # ~6 min; writes results/pxcp/fig4-seeds.json
"""

from __future__ import annotations

import json
import pathlib
import statistics as st

import ccsim
from ccsim.experiments._kit.analysis import jain
from ccsim.experiments.pxcp import fig4_table1 as F

SEEDS = [1, 2, 3, 4, 5]
PROTOS = ("Reno", "NewReno", "HSTCP")
OUT = pathlib.Path(__file__).resolve().parent / "results" / "pxcp" / "fig4-seeds.json"


def run(proto: str, seed: int) -> dict:
    sc = F.scenario(f"{F.ID}-P.-{proto}-seed{seed}", F.topology(F.PAPER["max_queue_bytes"], False),
                    F.flows(proto, "P."), 100.0, 40.0)
    sc["seed"] = seed
    res = ccsim.run(sc)
    links = {link["name"]: link for link in res.raw["links"] if link["monitored"]}
    fwd = [f for f in res.raw["flows"] if f["entry"] % 2 == 0]
    long_flows = [f["goodput_bps"] for f in fwd if f["entry"] == 0]
    return {"seed": seed, "protocol": f"P. {proto}",
            "util": [float(links[f"r{i}->r{i + 1}"]["utilization"]) for i in range(F.N_LINKS)],
            "jain": jain([f["goodput_bps"] for f in fwd]),
            "long_mbps": sum(long_flows) / len(long_flows) / 1e6}


def main() -> None:
    rows = []
    for seed in SEEDS:
        for proto in PROTOS:
            rows.append(run(proto, seed))
            print(json.dumps(rows[-1]), flush=True)
    for proto in [f"P. {p}" for p in PROTOS]:
        mine = [r for r in rows if r["protocol"] == proto]
        for name, xs in [("jain", [r["jain"] for r in mine])] + [
                (f"util link {i + 1}", [r["util"][i] for r in mine]) for i in range(F.N_LINKS)]:
            print(f"{proto:10s} {name:12s} {st.fmean(xs):.3f} ± {st.stdev(xs) / len(xs) ** 0.5:.3f}")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"seeds": SEEDS, "rows": rows}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
