"""ns-2.35 as a validation peer: every ns-2 comparison in one suite, for
``python -m validation.run --peer ns2``.

Parts (each also runs on its own; docs/validation.md describes each):

* ``baselines``: the E-TCP and LTCP papers' TCP rows
  (:mod:`validation.ns2_baselines`), recorded into the ``etcp-ns2`` and
  ``ltcp-ns2`` experiments' reference files by a full run;
* ``rto``: ns-2's RTT estimator against ccsim's two on B3
  (:mod:`validation.rto_compare`);
* ``gwa``: the GWA paper's DropTail/RED/ECN rows
  (:mod:`validation.gwa_compare`; a full run re-records ``gwa-ns2``'s file);
* ``red``: RED and ECN on the dumbbell (:mod:`validation.red_compare`);
* ``xcp``: XCP routers and end systems on the 20 Mb/s dumbbell, 2, 10 and
  100 flows (:mod:`validation.xcp_compare`; a full run re-records
  ``pxcp-ns2``'s file);
* ``xcp-pxcp``: XCP on the paced-XCP paper's networks, a non-paced
  ``pxcp-fig1`` row and the ``pxcp-fig4-table1`` parking lot
  (:mod:`validation.xcp_chain`; ns-2 takes about 15 minutes);
* ``sack1``: ccsim's ``recovery = "sack1"`` against ns-2's ``TCP/Sack1`` on
  constructed loss patterns, every transmission compared
  (:mod:`validation.sack1_traces`, 3 seeds);
* ``speed``: the benchmark dumbbells in both, bottleneck packets per
  wall-second (``benches/peer_ns2.py``).

``--quick`` is the CI case: one short baseline row (``fig6 NewReno 10
Mb/s``, under a second in each simulator), recorded nowhere but the
results file.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import ccsim
from ccsim.experiments._kit import ns2ref

from . import ns2_baselines

NAME = "ns2"
ROOT = Path(__file__).resolve().parents[1]
QUICK_ROW = "fig6 NewReno 10 Mb/s 100 ms"
#: Text-only parts: their command (run from the repository root).
COMMANDS = {
    "rto": [sys.executable, "-m", "validation.rto_compare", "--json", "{out}/rto.json"],
    "gwa": [sys.executable, "-m", "validation.gwa_compare",
            "--out", str(ROOT / "python/ccsim/experiments/gwa/ns2_reference.json")],
    "red": [sys.executable, "-m", "validation.red_compare", "3"],
    "xcp": [sys.executable, "-m", "validation.xcp_compare", "2", "10", "100", "--seeds", "6", "--json",
            str(ROOT / "python/ccsim/experiments/pxcp/ns2_reference.json")],
    "xcp-pxcp": [sys.executable, "-m", "validation.xcp_chain", "fig1", "fig4", "--flows", "10", "--duration", "40",
                 "--warmup", "20", "--json", "{out}/xcp-pxcp.json"],
    "sack1": [sys.executable, "-m", "validation.sack1_traces", "--seeds", "3", "--json", "{out}/sack1.json"],
    "speed": [sys.executable, str(ROOT / "benches/peer_ns2.py"), "--json", "{out}/speed.json"],
}
PARTS = ("baselines",) + tuple(COMMANDS)


def installed() -> bool:
    return shutil.which("ns") is not None


def install() -> None:
    """``apt-get install ns2`` (through sudo when not root)."""
    if installed():
        return
    if shutil.which("apt-get") is None:
        raise RuntimeError("ns-2.35 is not installed and there is no apt-get here; install the distribution's ns2 "
                           "package by hand")
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for cmd in (sudo + ["apt-get", "update", "-qq"], sudo + ["apt-get", "install", "-y", "-qq", "ns2"]):
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()[-800:]}")
    if not installed():
        raise RuntimeError("apt-get install ns2 succeeded but `ns` is not on PATH")


def _baselines(quick: bool) -> Dict[str, Any]:
    ns = shutil.which("ns")
    if quick:
        etcp = ns2_baselines.EXPERIMENTS["etcp"]
        row = next(r for r in etcp.ROWS if r.id == QUICK_ROW)
        sc = etcp.scenario(row, 1)
        peer, peer_wall = ns2_baselines.run_ns2(sc, row.rate_bps, ns)
        mine, wall = ns2_baselines.run_ccsim(sc, row.rate_bps)
        return {"rows": [{"experiment": "etcp-ns2", "row": row.id, "ns2": peer, "ccsim": mine,
                          "ns2_wall_s": peer_wall, "ccsim_wall_s": wall}]}
    rows = []
    for name, mod in ns2_baselines.EXPERIMENTS.items():
        rec = ns2_baselines.record(name, [1], None, ns, show=True)
        rows += [{"experiment": mod.ID, "row": r["row"]["id"], "ns2": r["ns2"], "ccsim": r["ccsim"],
                  "ns2_wall_s": r["ns2_wall_s"], "ccsim_wall_s": r["ccsim_wall_s"]} for r in rec["rows"]]
    return {"rows": rows}


def _command(part: str, out: Path) -> Dict[str, Any]:
    cmd = [c.replace("{out}", str(out)) for c in COMMANDS[part]]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    (out / f"{part}.txt").write_text(r.stdout + (f"\n--- stderr ---\n{r.stderr}" if r.stderr.strip() else ""))
    res: Dict[str, Any] = {"command": " ".join(Path(c).name if c == sys.executable else c for c in COMMANDS[part]),
                           "date": _dt.date.today().isoformat(), "returncode": r.returncode, "wall_s": time.perf_counter() - t0,
                           "output": f"{part}.txt"}
    js = out / f"{part}.json"
    if js.exists():
        res["json"] = js.name
    return res


def run(quick: bool, out: Path, only: Optional[List[str]] = None) -> Dict[str, Any]:
    """Run the parts (``only``: a subset of :data:`PARTS`; ``quick``: the
    CI case) and write ``out/ns2.json``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    parts = ["baselines"] if quick else list(only or PARTS)
    bad = [p for p in parts if p not in PARTS]
    if bad:
        raise ValueError(f"--only: unknown part(s) {', '.join(bad)}; allowed: {', '.join(PARTS)}")
    res: Dict[str, Any] = {"peer": NAME, "peer_version": "2.35", "ccsim_version": ccsim.__version__,
                           "date": _dt.date.today().isoformat(), "quick": quick, "parts": {}}
    for p in parts:
        print(f"[ns2] {p} ...", flush=True)
        res["parts"][p] = _baselines(quick) if p == "baselines" else _command(p, out)
    prev_path = out / "ns2.json"
    if only and not quick and prev_path.exists():
        # A partial run replaces its own parts and keeps the others' last
        # results, so the file (and the generated docs) stay whole.
        prev = json.loads(prev_path.read_text())
        res["parts"] = {**prev.get("parts", {}), **res["parts"]}
        res["merged"] = True
        if "baselines" not in parts:
            # the baselines' provenance stays theirs; command parts carry their own dates
            res["date"] = prev.get("date", res["date"])
            if "baselines_ccsim_rerun" in prev:
                res["baselines_ccsim_rerun"] = prev["baselines_ccsim_rerun"]
    prev_path.write_text(json.dumps(res, indent=1) + "\n")
    return res


def refresh_baselines(out: Path = ROOT / "validation" / "results" / NAME, docs: bool = True) -> Dict[str, Any]:
    """After ``validation.ns2_baselines`` (``--ccsim-only`` or a seed
    sweep): take the baseline rows' ccsim columns from the experiments'
    reference files into ``out/ns2.json`` (the ns-2 columns, recorded with
    ns-2, stay, except that a row recorded over several seeds takes both
    columns' means from its record) and rewrite the generated section of
    docs/validation.md."""
    path = Path(out) / "ns2.json"
    res = json.loads(path.read_text())
    recs = {}
    for name, mod in ns2_baselines.EXPERIMENTS.items():
        for r in json.loads(Path(mod.REFERENCE).read_text())["rows"]:
            recs[(mod.ID, r["row"]["id"])] = r
    for row in res["parts"]["baselines"]["rows"]:
        r = recs[(row["experiment"], row["row"])]
        row["ccsim"], row["ccsim_wall_s"] = r["ccsim"], r["ccsim_wall_s"]
        if len(r.get("ns2_seeds", [])) > 1:
            # A row recorded over several seeds: both columns are the
            # record's means (a one-seed ns-2 column beside a many-seed
            # ccsim mean would compare unlike things).
            row["ns2"], row["ns2_wall_s"] = r["ns2"], r["ns2_wall_s"]
            row["seeds"] = len(r["ns2_seeds"])
    res["baselines_ccsim_rerun"] = _dt.date.today().isoformat()
    res["ccsim_version"] = ccsim.__version__
    path.write_text(json.dumps(res, indent=1) + "\n")
    if docs:
        from .run import update_doc
        update_doc(NAME, markdown(res))
    return res


def _rel(a: float, b: float) -> str:
    if a == 0:
        return "=" if b == 0 else "n/a"
    return f"{(b - a) / a:+.1%}"


def markdown(results: Dict[str, Any]) -> str:
    """The generated section: the baseline rows side by side (a † marks a
    difference above 5%), then each other part's command and status."""
    lines = [f"Last run: {results['date']}, ns-2 {results['peer_version']}, ccsim {results['ccsim_version']}"
             + (" (quick)" if results.get("quick") else "")
             + (f"; ccsim's baseline column re-run {results['baselines_ccsim_rerun']} "
                "(`validation.ns2_baselines --ccsim-only`)" if results.get("baselines_ccsim_rerun") else "")
             + ".", ""]
    base = results["parts"].get("baselines")
    if base:
        lines += ["| experiment | row | " + " | ".join(f"{k} ns-2 / ccsim" for k in ns2ref.METRICS)
                  + " | wall ns-2 / ccsim (s) |",
                  "|---|---|" + "---|" * (len(ns2ref.METRICS) + 1)]
        for r in base["rows"]:
            cells = []
            for k in ns2ref.METRICS:
                a, b = r["ns2"][k], r["ccsim"][k]
                off = abs(b - a) > ns2ref.TOL * abs(a) if a else b != 0
                cells.append(f"{a:.4g} / {b:.4g} ({_rel(a, b)}){' †' if off else ''}")
            label = r["row"] + (f" (mean of {r['seeds']} seeds)" if r.get("seeds", 1) > 1 else "")
            lines.append(f"| {r['experiment']} | {label} | " + " | ".join(cells)
                         + f" | {r['ns2_wall_s']:.1f} / {r['ccsim_wall_s']:.2f} |")
        lines.append("")
    other = {p: v for p, v in results["parts"].items() if p != "baselines"}
    if other:
        lines += ["| part | command | run | exit | wall (s) | output |", "|---|---|---|---|---|---|"]
        for p, v in other.items():
            outs = ", ".join(f"`validation/results/ns2/{x}`" for x in (v["output"], v.get("json")) if x)
            lines.append(f"| {p} | `{v['command']}` | {v.get('date', results['date'])} | {v['returncode']} "
                         f"| {v['wall_s']:.0f} | {outs} |")
        lines.append("")
    return "\n".join(lines)
