"""How the order of exactly tied arrivals moves the GWA LAN rows (docs/validation.md,
"GWA paper rows"): ccsim's side of every ``gwa-lan`` DropTail, RED and ECN row
over the recorded seeds as ``gwa-ns2`` runs it (``as_run``: every queue
with ``ties = "ns2"``) and with the
exact ties between hosts broken by offsetting host i's access delay by
(i + 1) x 10 ps (and, ``offsets-rev``, by (N - i) x 10 ps), the ties rule
unchanged, against the recorded ns-2.35 numbers. ccsim only (about a minute); no ns-2 needed.

    python -m validation.gwa_ties
    python -m validation.gwa_ties --capture droptail 30 --seeds 24 \
        [--ns2 validation/results/gwa/spread-lan-droptail-30kB.json]

``--capture``: over seeds 1..N of one LAN row, in how many one FTP takes
more than ``CAPTURE`` of the link (three times its fair share) with the
scenario as ``gwa-ns2`` builds it and with the two offset variants, and,
from a ``gwa_compare --spread`` file, in how many ns-2 does.
"""
from __future__ import annotations

import argparse
import json
import statistics as st

import ccsim
from ccsim.experiments.gwa.ns2 import SETTINGS, measure, reference, scenario, summarise

METRICS = ("drop_prob", "avg_queue_pkts", "goodput_avg", "timeouts")
#: An FTP above this share of the link holds three times its fair share.
CAPTURE = 0.3


def variant(sc: dict, name: str) -> dict:
    """``sc`` as built (``as_run``) or with host i's access delay offset."""
    links = sc["topology"]["links"]
    hosts = [x for x in links if x["to"] == "r0"]
    for i, link in enumerate(hosts):
        if name == "as_run":
            break
        if name == "offsets":
            link["delay_s"] += (i + 1) * 1e-11
        elif name == "offsets-rev":
            link["delay_s"] += (len(hosts) - i) * 1e-11
    return sc


def capture(scheme: str, kb: int, seeds: int, ns2_file: str | None) -> None:
    from ccsim.experiments.gwa.ns2 import buffer_pkts
    st_lan = SETTINGS["gwa-lan"]

    def line(name: str, runs: list) -> None:
        n = sum(r["goodput_max"] > CAPTURE for r in runs)
        print(f"{name:14s} capture in {n:2d} of {len(runs)} seeds; drop_prob {st.fmean(r['drop_prob'] for r in runs):.4g}, "
              f"avg queue {st.fmean(r['avg_queue_pkts'] for r in runs):.3g}, "
              f"largest FTP share {max(r['goodput_max'] for r in runs):.3f}")

    print(f"gwa-lan {scheme} {kb} kB, seeds 1-{seeds}: one FTP above {CAPTURE} of the link")
    if ns2_file:
        doc = json.load(open(ns2_file))
        if (doc["scheme"], doc["buffer_kb"]) != (scheme, kb):
            raise SystemExit(f"error: --ns2 {ns2_file} holds {doc['scheme']} {doc['buffer_kb']} kB, not {scheme} {kb} kB")
        line("ns-2.35", doc["per_seed"]["ns2"][:seeds])
    for name in ("as_run", "offsets", "offsets-rev"):
        line(name, [summarise(measure(ccsim.run(variant(scenario(st_lan, scheme, buffer_pkts(kb), s), name)).raw, st_lan))
                    for s in range(1, seeds + 1)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--capture", nargs=2, metavar=("SCHEME", "BUFFER_KB"))
    ap.add_argument("--seeds", type=int, default=24)
    ap.add_argument("--ns2", metavar="FILE", help="a gwa_compare --spread file of the same row")
    a = ap.parse_args()
    if a.capture:
        try:
            kb = int(a.capture[1])
        except ValueError:
            ap.error(f"--capture BUFFER_KB: {a.capture[1]!r}; allowed: a whole number of kB")
        if a.seeds < 1:
            ap.error(f"--seeds: {a.seeds}; allowed: 1 or more")
        return capture(a.capture[0], kb, a.seeds, a.ns2)
    ref = reference()
    st_lan = SETTINGS["gwa-lan"]
    print("row: metric ns-2 | as gwa-ns2 runs it | offsets | offsets-rev (ccsim / ns-2)")
    for row in (r for r in ref["rows"] if r["setting"] == "gwa-lan"):
        out = {}
        for name in ("as_run", "offsets", "offsets-rev"):
            runs = [summarise(measure(ccsim.run(variant(scenario(st_lan, row["scheme"], row["buffer_pkts"], s), name)).raw,
                                      st_lan)) for s in ref["seeds"]]
            out[name] = {m: st.fmean(r[m] for r in runs) for m in METRICS}
        for m in METRICS:
            n = row["ns2"][m]
            cells = " | ".join(f"{out[v][m]:.4g} ({out[v][m] / n:.2f}x)" if n else f"{out[v][m]:.4g}" for v in out)
            print(f"{row['scheme']} {row['buffer_kb']} kB: {m} {n:.4g} | {cells}")


if __name__ == "__main__":
    main()
