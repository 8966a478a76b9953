"""Retransmission timeouts of one GWA row in ns-2.35 and ccsim, by agent
kind (FTP, Telnet) and by the branch of ns-2's ``TcpAgent::timeout``.

    python -m validation.gwa_timeouts [--setting gwa-lan] [--scheme ecn]
        [--kb 30] [--seeds 1-24] [--out FILE.json]

ns-2's ``nrexmit_`` (what ``gwa_compare`` counts) is incremented in one
of the three branches of ``TcpAgent::timeout`` (tcp.cc) only: an expiry
with nothing outstanding (``highest_ack_ == maxseq_``) calls
``slowdown(CLOSE_CWND_ONE|NO_OUTSTANDING_DATA)``, one in the recovery from
an ECN reduction (``highest_ack_ < recover_ && last_cwnd_action_ ==
CWND_ACTION_ECN``) ``slowdown(CLOSE_CWND_ONE)``, and only the third, every
other expiry, ``++nrexmit_``. ccsim's ``timeouts`` counts every expiry with
data outstanding, so the first branch on neither side, the second on
ccsim's only. This runs ns-2 with its event trace on
(``validation/gwa_topology.tcl`` ``eventfile``: one ``TIMEOUT`` line per
expiry, whichever branch) and its agents' ``ncwndcuts_`` and
``ncwndcuts1_`` (``slowdown`` counts every call in the first, all but the
``NO_OUTSTANDING_DATA`` and ``TCP_IDLE`` ones in the second; ``TCP_IDLE``
is QOption's, off here), so per agent after the warm-up:

- ``expiries``: TIMEOUT lines;
- ``no_outstanding``: ncwndcuts_ - ncwndcuts1_ (branch 1);
- ``nrexmit``: nrexmit_ (branch 3);
- ``ecn_recovery``: expiries - no_outstanding - nrexmit (branch 2);
- ``with_data``: expiries - no_outstanding, the count ccsim's
  ``timeouts`` keeps.

and ccsim's ``timeouts`` per flow, FTPs and Telnets apart. Prints each
seed and the means, and the Welch t of ccsim's ``timeouts`` against ns-2's
``with_data`` and ``nrexmit``. Needs ``ns``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from typing import Dict, List, Optional

import ccsim
from ccsim.experiments.gwa.ns2 import SETTINGS, buffer_pkts, scenario

from .gwa_compare import HERE, tcl_params
from .seed_stats import compare as seed_compare

KINDS = ("ftp", "tel")


def run_ns2(st, scheme: str, buf: int, seed: int, d: str) -> Dict[str, Dict[str, int]]:
    """ns-2's timeout counts after the warm-up, summed per agent kind."""
    ev, params = os.path.join(d, "ev.tr"), os.path.join(d, "params.tcl")
    with open(params, "w", encoding="utf-8") as f:
        f.write(tcl_params(st, scheme, buf, seed, os.path.join(d, "q.tr")) + f"set eventfile {{{ev}}}\n")
    out = subprocess.run(["ns", os.path.join(HERE, "gwa_topology.tcl"), params],
                         check=True, capture_output=True, text=True).stdout
    res = {k: dict(expiries=0, no_outstanding=0, nrexmit=0, ecn_responses=0) for k in KINDS}
    for line in out.splitlines():
        w = line.split()
        if w and w[0] == "stat":
            sign = 1 if w[1] == "end" else -1
            nrexmit, _, cuts, cuts1, necn = (int(x) for x in w[4:9])
            r = res[w[2]]
            r["nrexmit"] += sign * nrexmit
            r["no_outstanding"] += sign * (cuts - cuts1)
            r["ecn_responses"] += sign * necn
    with open(ev, encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if len(w) > 6 and w[5] == "TIMEOUT" and st["warm"] < float(w[1]) <= st["dur"]:
                res[KINDS[int(w[6]) % 2]]["expiries"] += 1
    for r in res.values():
        r["ecn_recovery"] = r["expiries"] - r["no_outstanding"] - r["nrexmit"]
        r["with_data"] = r["expiries"] - r["no_outstanding"]
    return res


def run_ccsim(st, scheme: str, buf: int, seed: int) -> Dict[str, Dict[str, int]]:
    flows = ccsim.run(scenario(st, scheme, buf, seed)).raw["flows"]
    n = st["n"]
    return {"ftp": {"timeouts": sum(f["timeouts"] for f in flows[:n])},
            "tel": {"timeouts": sum(f["timeouts"] for f in flows[n:])}}


def total(x: Dict[str, Dict[str, int]], key: str) -> int:
    return sum(x[k].get(key, 0) for k in KINDS)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--setting", choices=sorted(SETTINGS), default="gwa-lan")
    ap.add_argument("--scheme", choices=["droptail", "red", "ecn"], default="ecn")
    ap.add_argument("--kb", type=int, default=30)
    ap.add_argument("--seeds", default="1-24", help="A-B or a comma list")
    ap.add_argument("--out", help="write every seed's counts (JSON)")
    a = ap.parse_args(argv)
    if shutil.which("ns") is None:
        print("gwa_timeouts: skipped, ns-2.35 is not installed (`ns` not on PATH; apt-get install ns2)")
        return 0
    if "-" in a.seeds:
        lo, hi = a.seeds.split("-")
        seeds = list(range(int(lo), int(hi) + 1))
    else:
        seeds = [int(s) for s in a.seeds.split(",")]
    st = SETTINGS[a.setting]
    buf = buffer_pkts(a.kb)
    per = []
    print("seed | ns-2 ftp: nrexmit ecn_recovery no_outstanding | tel: same | ccsim timeouts ftp tel")
    for s in seeds:
        with tempfile.TemporaryDirectory() as d:
            ns = run_ns2(st, a.scheme, buf, s, d)
        cc = run_ccsim(st, a.scheme, buf, s)
        per.append({"seed": s, "ns2": ns, "ccsim": cc})
        f, t = ns["ftp"], ns["tel"]
        print(f"{s:4d} | {f['nrexmit']:4d} {f['ecn_recovery']:4d} {f['no_outstanding']:4d} | "
              f"{t['nrexmit']:4d} {t['ecn_recovery']:4d} {t['no_outstanding']:4d} | "
              f"{cc['ftp']['timeouts']:4d} {cc['tel']['timeouts']:4d}", flush=True)
    stats = {}
    cc_all = [total(p["ccsim"], "timeouts") for p in per]
    for key in ("nrexmit", "with_data"):
        c = seed_compare([total(p["ns2"], key) for p in per], cc_all)
        stats[f"ccsim timeouts vs ns-2 {key}"] = c
        print(f"ccsim timeouts {c['ccsim_mean']:.2f} ± {c['ccsim_sd']:.2f} against ns-2 {key} "
              f"{c['ns2_mean']:.2f} ± {c['ns2_sd']:.2f}: ratio {c['ccsim_mean'] / c['ns2_mean']:.3f}, "
              f"Welch t {c['welch_t']:+.2f}")
    for kind in KINDS:
        c = seed_compare([p["ns2"][kind]["with_data"] for p in per], [p["ccsim"][kind]["timeouts"] for p in per])
        stats[f"{kind}: ccsim timeouts vs ns-2 with_data"] = c
        print(f"  {kind}: ccsim {c['ccsim_mean']:.2f} ± {c['ccsim_sd']:.2f}, ns-2 with data outstanding "
              f"{c['ns2_mean']:.2f} ± {c['ns2_sd']:.2f} (nrexmit "
              f"{sum(p['ns2'][kind]['nrexmit'] for p in per) / len(per):.2f}), Welch t {c['welch_t']:+.2f}")
    if a.out:
        for c in stats.values():
            c.pop("paired_t", None)  # each simulator draws its own Telnet intervals and RED decisions
        with open(a.out, "w", encoding="utf-8") as f:
            json.dump({"source": "ns-2", "ns2_version": "2.35", "ccsim_version": ccsim.__version__,
                       "setting": a.setting, "scheme": a.scheme, "buffer_kb": a.kb, "seeds": seeds,
                       "per_seed": per, "stats": stats}, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
