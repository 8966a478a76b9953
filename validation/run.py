"""Validate ccsim against a peer simulator: install the peer if needed, run
the same scenarios in both, write the results and docs/validation.md's
generated section for that peer.

    python -m validation.run --peer ns2|ns3|ns3-aqm [--quick] [--only PART ...] [--no-install] [--no-docs] [--ccsim-only]

Peers (one module each, same interface: ``NAME``, ``installed()``,
``install()``, ``run(quick, out, only)``, ``markdown(results)``):

* ``ns2``: ns-2.35, the simulator of the E-TCP, LTCP, paced-XCP and GWA
  papers (``apt-get install ns2``): :mod:`validation.ns2_suite`;
* ``ns3``: ns-3.44 from PyPI (``pip install ns3``):
  :mod:`validation.ns3_suite`;
* ``ns3-aqm``: the same ns-3, its CoDel, FQ-CoDel, PIE and RED queue discs
  and TcpDctcp against ccsim's AQMs and DCTCP: :mod:`validation.ns3_aqm`.

Results go to ``validation/results/PEER/`` (checked in: the last full
run). A full run rewrites the block between ``<!-- BEGIN generated: PEER
-->`` and ``<!-- END generated: PEER -->`` in docs/validation.md; the
hand-written analysis of each difference stays outside it. ``--quick`` is
the one short case CI runs when the peer is installed; it writes its
results under ``validation/results/PEER-quick/`` and leaves the docs alone.

Installing a peer is this driver's job, never ccsim's: ccsim does not
depend on either simulator.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import List, Optional

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "validation.md"
PEERS = {"ns2": "validation.ns2_suite", "ns3": "validation.ns3_suite", "ns3-aqm": "validation.ns3_aqm"}


def suite(peer: str) -> ModuleType:
    if peer not in PEERS:
        raise ValueError(f"--peer: {peer!r}; allowed: {', '.join(PEERS)}")
    return importlib.import_module(PEERS[peer])


def results_dir(peer: str, quick: bool) -> Path:
    return ROOT / "validation" / "results" / (f"{peer}-quick" if quick else peer)


def update_doc(peer: str, body: str, doc: Path = DOC) -> None:
    """Replace (or append) the generated block of ``peer`` in ``doc``."""
    begin, end = f"<!-- BEGIN generated: {peer} -->", f"<!-- END generated: {peer} -->"
    block = f"{begin}\n{body.rstrip()}\n{end}"
    text = doc.read_text(encoding="utf-8")
    pat = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if pat.search(text):
        text = pat.sub(lambda _: block, text)
    else:
        text = text.rstrip() + f"\n\n## Last validation run against {peer}\n\n{block}\n"
    doc.write_text(text, encoding="utf-8")


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peer", required=True, help=f"the peer simulator: {', '.join(PEERS)}")
    ap.add_argument("--quick", action="store_true", help="the one short case CI runs")
    ap.add_argument("--only", nargs="+", metavar="PART", help="run only these parts of the peer's suite")
    ap.add_argument("--no-install", action="store_true", help="fail instead of installing a missing peer")
    ap.add_argument("--no-docs", action="store_true", help="do not rewrite docs/validation.md")
    ap.add_argument("--ccsim-only", action="store_true",
                    help="ns3, ns3-aqm: re-run ccsim's side against the recorded ns-3 run "
                    "(ns2: see validation.ns2_baselines)")
    a = ap.parse_args(argv)
    if a.ccsim_only and a.peer not in ("ns3", "ns3-aqm"):
        ap.error("--ccsim-only: only with --peer ns3 or ns3-aqm (for ns2, python -m validation.ns2_baselines "
                 "--ccsim-only)")
    try:
        mod = suite(a.peer)
    except ValueError as e:
        ap.error(str(e))
    if not mod.installed() and not a.ccsim_only:
        if a.no_install:
            print(f"error: {a.peer} is not installed (run without --no-install to install it)", file=sys.stderr)
            return 2
        print(f"[{a.peer}] installing ...", flush=True)
        try:
            mod.install()
        except RuntimeError as e:
            print(f"error: installing {a.peer}: {e}", file=sys.stderr)
            return 2
    out = results_dir(a.peer, a.quick)
    try:
        res = mod.run(a.quick, out, a.only, ccsim_only=True) if a.ccsim_only else mod.run(a.quick, out, a.only)
    except ValueError as e:
        ap.error(str(e))
    md = mod.markdown(res)
    print(md)
    if not a.quick and not a.no_docs and (a.only is None or res.get("merged")):
        update_doc(a.peer, md)
        print(f"[{a.peer}] wrote {out} and the generated block of {DOC.relative_to(ROOT)}")
    else:
        print(f"[{a.peer}] wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
