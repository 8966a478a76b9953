"""``ccsim reproduce --all``: every experiment of the five papers, and of the
group of today's congestion control, in one command.

How it runs, and why:

1. **Plan.** Every selected experiment's first-stage sweeps are planned
   (validated, not run) into the run cache of its own directory
   ``OUT/<id>/runs/``: the same directories and cache keys ``ccsim reproduce
   ID --out OUT/<id>`` uses, so the two commands share their runs and either
   resumes the other.
2. **Run.** The runs not yet cached go to one pool (local processes, or a
   Dask cluster with ``--dask``) under one progress bar with ETA. One pool
   over all experiments keeps every core busy where experiment by
   experiment a one-run figure would leave the others idle. The longest runs
   (simulated time x link rate) start first, so the last minutes are not one
   long run on one core.
3. **Analyse.** Each experiment is driven as ``ccsim reproduce ID`` does
   (its table, checks and figure), finding its first stage in the cache;
   a second stage that depends on the first one's results
   (``scenarios_after``) runs then, its runs joining the same bar. An
   experiment that fails is reported and the others go on.
4. **Report.** ``ccsim report OUT`` (per paper: its experiments with checks
   by source and open deviations; one page per experiment with figures and
   the paper's numbers), and ``OUT/reproduce-all.json``: wall time, runs
   computed and cached, the counts per paper and source.

Interrupted at any point, every finished run is in its cache; the same
command resumes with the rest.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ._native import UserError, dumps

__all__ = ["PAPERS", "paper_of", "select", "reproduce_all", "Outcome"]

#: The papers, by their experiments' subpackage, in the order the docs list
#: them; ``modern`` is the group of today's congestion control (BBR, DCTCP),
#: whose experiments each cite their own papers.
PAPERS = ("etcp", "ltcp", "htcp", "pxcp", "gwa", "modern")


def paper_of(exp: Any) -> str:
    """The paper key of an experiment: its subpackage (``etcp`` for
    ``ccsim.experiments.etcp.fig5``), else the id's prefix."""
    parts = (exp.module or "").split(".")
    if len(parts) >= 4 and parts[:2] == ["ccsim", "experiments"]:
        return parts[2]
    return exp.id.split("-", 1)[0]


def select(papers: Optional[Sequence[str]] = None) -> List[Any]:
    """The registered experiments of ``papers`` (all when None), paper by
    paper in :data:`PAPERS` order, by id within a paper."""
    from .experiments import REGISTRY

    if papers:
        unknown = [p for p in papers if p not in PAPERS]
        if unknown:
            raise UserError(f"--paper {unknown[0]!r} is not a paper; allowed: {', '.join(PAPERS)}")
    order = {p: i for i, p in enumerate(PAPERS)}
    chosen = [e for e in REGISTRY.values() if not papers or paper_of(e) in papers]
    # fig2 before fig10: digits compare as numbers
    return sorted(chosen, key=lambda e: (order.get(paper_of(e), len(order)),
                                         [(0, int(t), "") if t.isdigit() else (1, 0, t)
                                          for t in re.split(r"(\d+)", e.id)]))


@dataclass
class Outcome:
    """What ``reproduce_all`` did: per experiment its checks (or the
    error that stopped it), the runs computed and found cached, wall time."""

    quick: bool
    checks: Dict[str, List[Any]] = field(default_factory=dict)
    errors: Dict[str, str] = field(default_factory=dict)
    papers: Dict[str, str] = field(default_factory=dict)
    runs_computed: int = 0
    runs_cached: int = 0
    wall_s: float = 0.0
    #: CPU time of the experiments' runs, whenever they were computed (each
    #: run once, from the ``runs.log`` of each experiment's directory; runs
    #: of an engine older than CPU timing count as 0), and how many of them
    #: were timed: ``run_cpu_s`` over the cores is the wall time a pool with
    #: every core busy would take, whatever the host's load was meanwhile.
    run_cpu_s: float = 0.0
    runs_timed: int = 0
    #: the report's index.html, when one was written
    report: Optional[Path] = None

    def counts(self) -> Dict[str, Dict[str, Dict[str, int]]]:
        """Per paper (and ``"all"``), per check source: ``{"ok", "total"}``
        (:func:`ccsim.experiments.summary` of their checks)."""
        from .experiments import summary

        by_paper: Dict[str, List[Any]] = {}
        for exp_id, checks in self.checks.items():
            by_paper.setdefault(self.papers[exp_id], []).extend(checks)
        out = {paper: summary(checks) for paper, checks in by_paper.items()}
        out["all"] = summary(c for checks in self.checks.values() for c in checks)
        return out

    def document(self) -> Dict[str, Any]:
        """``reproduce-all.json``."""
        return {
            "quick": self.quick,
            "wall_s": round(self.wall_s, 3),
            "run_cpu_s": round(self.run_cpu_s, 3),
            "runs_timed": self.runs_timed,
            "runs_computed": self.runs_computed,
            "runs_cached": self.runs_cached,
            "experiments": {i: {"paper": self.papers[i],
                                "ok": sum(bool(c.ok) for c in self.checks.get(i, [])),
                                "total": len(self.checks.get(i, [])),
                                **({"error": self.errors[i]} if i in self.errors else {})}
                            for i in self.papers},
            "counts": self.counts(),
        }


class _Counted:
    """A progress bar that also counts what it is advanced by (a disabled
    tqdm bar counts nothing), for the runs a second stage computes."""

    def __init__(self, bar: Any):
        self.bar, self.done = bar, 0

    @property
    def total(self) -> Any:
        return self.bar.total

    @total.setter
    def total(self, value: Any) -> None:
        self.bar.total = value

    def refresh(self) -> None:
        self.bar.refresh()

    def update(self, n: int = 1) -> None:
        self.done += n
        self.bar.update(n)


def _cost(scenario: Dict[str, Any]) -> float:
    """A run's rough cost, for ordering only: simulated seconds times the
    sum of the topology's link rates (about the packets it carries)."""
    rate = 0.0

    def walk(x: Any) -> None:
        nonlocal rate
        if isinstance(x, dict):
            for k, v in x.items():
                if isinstance(k, str) and k.endswith("rate_bps") and isinstance(v, (int, float)):
                    rate += float(v)
                else:
                    walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(scenario.get("topology"))
    return float(scenario.get("duration_s") or 0.0) * max(rate, 1.0)


def reproduce_all(out: Path, quick: bool, experiments: Optional[Sequence[Any]] = None,
                  workers: Optional[int] = None, backend: str = "process", address: Optional[str] = None,
                  progress: Optional[bool] = None, report: bool = True,
                  on_experiment: Optional[Callable[[str, Optional[List[Any]], Optional[str]], None]] = None
                  ) -> Outcome:
    """Plan, run and analyse ``experiments`` (default: all) into
    ``out/<id>/`` as described in the module docstring; return the
    :class:`Outcome` and write ``out/reproduce-all.json``; with ``report``
    also the HTML report in ``out/report`` (:func:`ccsim.report.build_report`).

    ``on_experiment(id, checks, error)`` is called as each experiment's
    analysis ends. ``progress``: None = a bar on a terminal, True always,
    False never.
    """
    from tqdm.auto import tqdm

    from .experiments import first_stage, write_checks
    from .sweep import _clean_stale_tmp, _engine_version, _load_cached, _store, execute, plan, progress_into

    start = time.perf_counter()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    exps = list(experiments) if experiments is not None else select()
    outcome = Outcome(quick=quick, papers={e.id: paper_of(e) for e in exps})
    version = _engine_version()

    # 1. plan: every first-stage run not yet in its experiment's cache
    todo: Dict[Tuple[str, str], Tuple[Path, Any]] = {}
    for exp in exps:
        if exp.figure is None:
            continue  # a plain function plans nothing; it runs in step 3
        d = out / exp.id
        try:
            specs = [spec for s in first_stage(exp.figure, quick) for spec in plan(s.base, s.points)]
        except UserError as exc:
            outcome.errors[exp.id] = str(exc)
            continue
        _clean_stale_tmp(d)
        for spec in specs:
            if (exp.id, spec.key) in todo:
                continue
            if _load_cached(d, spec.key, version) is not None:
                outcome.runs_cached += 1
            else:
                todo[(exp.id, spec.key)] = (d, spec)

    bar = tqdm(total=outcome.runs_cached + len(todo), initial=outcome.runs_cached, unit="run",
               desc="reproduce", disable=None if progress is None else not progress, file=sys.stderr,
               dynamic_ncols=True)
    if outcome.runs_cached:
        bar.set_postfix_str(f"{outcome.runs_cached} cached", refresh=False)
    try:
        # 2. run: one pool, longest first
        order = sorted(todo, key=lambda t: -_cost(todo[t][1].scenario))
        payloads = {t: dumps(todo[t][1].scenario) for t in order}

        def collect(tag: Tuple[str, str], get: Callable[[], str]) -> None:
            d, spec = todo[tag]
            try:
                res = get()
            except Exception as exc:
                outcome.errors.setdefault(tag[0], f"run {spec.key[:12]} failed: {exc}")
                bar.update(1)
                return
            _store(d, spec, res, version)
            outcome.runs_computed += 1
            bar.update(1)

        execute(payloads, collect, workers=workers, backend=backend, address=address)

        # 3. analyse each experiment from its cache (second stages run here)
        counted = _Counted(bar)
        for k, exp in enumerate(exps):
            if exp.id in outcome.errors:
                checks, error = None, outcome.errors[exp.id]
            else:
                bar.set_postfix_str(f"analysing {exp.id} ({k + 1}/{len(exps)})", refresh=True)
                before = counted.done
                try:
                    with progress_into(counted):
                        checks = list(exp.run(out / exp.id, quick, workers) or [])
                    write_checks(out / exp.id, checks, exp.agents())
                    error = None
                except UserError as exc:
                    checks, error = None, str(exc)
                except Exception as exc:  # an experiment's bug must not lose the others' results
                    checks, error = None, f"{type(exc).__name__}: {exc}"
                outcome.runs_computed += counted.done - before
            if checks is not None:
                outcome.checks[exp.id] = checks
            else:
                outcome.errors[exp.id] = error or "failed"
            if on_experiment is not None:
                on_experiment(exp.id, checks, error)
    finally:
        bar.close()
        _record(outcome, out, start)  # an interrupted run keeps its record too
    if report:
        from .report import build_report

        outcome.report = build_report(out, out / "report", progress=progress)
        _record(outcome, out, start)
    return outcome


def _record(outcome: Outcome, out: Path, start: float) -> None:
    outcome.wall_s = time.perf_counter() - start
    outcome.run_cpu_s, outcome.runs_timed = run_cpu_time(out / i for i in outcome.papers)
    (out / "reproduce-all.json").write_text(json.dumps(outcome.document(), indent=2) + "\n", encoding="utf-8")


def run_cpu_time(dirs: Any) -> Tuple[float, int]:
    """CPU seconds of the runs logged in the ``runs.log`` files in and under
    each directory (a run logged twice, once), and how many had a CPU time."""
    total, timed = 0.0, 0
    for log in (f for d in dirs if Path(d).is_dir() for f in Path(d).rglob("runs.log")):
        cpu: Dict[str, float] = {}
        try:
            lines = log.read_text(encoding="utf-8").splitlines()
        except OSError:
            continue
        for line in lines:
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # a line cut by a kill
            if isinstance(rec, dict) and isinstance(rec.get("cpu_s"), (int, float)) and rec.get("key"):
                cpu[rec["key"]] = float(rec["cpu_s"])
        total += sum(cpu.values())
        timed += len(cpu)
    return total, timed


def format_counts(outcome: Outcome) -> List[str]:
    """The headline lines: per paper and in total, ``ok/total`` per source."""
    from .experiments import SOURCES

    counts = outcome.counts()
    rows = [("paper", "experiments") + SOURCES]
    for key in list(PAPERS) + sorted(set(outcome.papers.values()) - set(PAPERS)) + ["all"]:
        if key == "all":
            n_exp = len(outcome.papers)
        else:
            n_exp = sum(p == key for p in outcome.papers.values())
        if not n_exp:
            continue
        by = counts.get(key, {})
        rows.append((key if key != "all" else "total", str(n_exp))
                    + tuple(f"{by[s]['ok']}/{by[s]['total']}" if s in by else "-" for s in SOURCES))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(r, widths)))
            for r in rows]


def hms(seconds: float) -> str:
    """``1 h 02 min 03 s`` / ``4 min 05 s`` / ``6.2 s``."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    m, s = divmod(int(round(seconds)), 60)
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min {s:02d} s" if h else f"{m} min {s:02d} s"


def workers_default(workers: Optional[int]) -> int:
    """What ``--workers`` means when not given: every core."""
    return workers or os.cpu_count() or 1
