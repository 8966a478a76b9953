"""How the order of exactly tied arrivals moves the GWA LAN rows (docs/validation.md,
"GWA paper rows"): ccsim's side of every ``gwa-lan`` DropTail, RED and ECN row
over the recorded seeds as ``gwa-ns2`` runs it (every queue ``ties =
"arrival_first"``) and with the exact ties between hosts broken by offsetting
host i's access delay by (i + 1) x 10 ps (and, ``offsets-rev``, by (N - i) x
10 ps), against the recorded ns-2.35 numbers. ccsim only (about a minute); no ns-2 needed.

    python -m validation.gwa_ties
"""
from __future__ import annotations

import statistics as st

import ccsim
from ccsim.experiments.gwa.ns2 import SETTINGS, measure, reference, scenario, summarise

METRICS = ("drop_prob", "avg_queue_pkts", "goodput_avg", "timeouts")


def variant(sc: dict, name: str) -> dict:
    links = sc["topology"]["links"]
    for link in links:
        for k in ("queue", "reverse_queue"):
            if link.get(k):
                link[k]["ties"] = "arrival_first"
    hosts = [x for x in links if x["to"] == "r0"]
    for i, link in enumerate(hosts):
        if name == "offsets":
            link["delay_s"] += (i + 1) * 1e-11
        elif name == "offsets-rev":
            link["delay_s"] += (len(hosts) - i) * 1e-11
    return sc


def main() -> None:
    ref = reference()
    st_lan = SETTINGS["gwa-lan"]
    print("row: metric ns-2 | arrival_first | offsets | offsets-rev (ccsim / ns-2)")
    for row in (r for r in ref["rows"] if r["setting"] == "gwa-lan"):
        out = {}
        for name in ("arrival_first", "offsets", "offsets-rev"):
            runs = [summarise(measure(ccsim.run(variant(scenario(st_lan, row["scheme"], row["buffer_pkts"], s), name)).raw,
                                      st_lan)) for s in ref["seeds"]]
            out[name] = {m: st.fmean(r[m] for r in runs) for m in METRICS}
        for m in METRICS:
            n = row["ns2"][m]
            cells = " | ".join(f"{out[v][m]:.4g} ({out[v][m] / n:.2f}x)" if n else f"{out[v][m]:.4g}" for v in out)
            print(f"{row['scheme']} {row['buffer_kb']} kB: {m} {n:.4g} | {cells}")


if __name__ == "__main__":
    main()
