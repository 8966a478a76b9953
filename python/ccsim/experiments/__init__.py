"""Registry of paper experiments (``ccsim reproduce ID``).

Each figure or table of a paper is one *experiment*: it runs its scenarios
(through :func:`ccsim.sweep.sweep`, cached in ``OUT/runs/``), writes its
table and plot into ``OUT``, and returns :class:`Check` objects comparing
what ccsim measured with the numbers the paper states, with ccsim's models,
or with other ccsim runs (each check's ``source``).

Layout: one subpackage per paper (``etcp/``, ``ltcp/``, ``htcp/``, ``pxcp/``,
``gwa/``) whose ``__init__`` holds the paper's common setup, and one module per figure or
table; ``modern/`` is the group of today's congestion control (BBR, DCTCP),
each of its modules citing its own papers and published models; ``_kit/``
holds what the papers share (packet size, protocol table,
dumbbell builder, Jain's index, congestion events, steady-state windows,
figure helpers).

Adding an experiment: a module in a paper's subpackage defining

* ``ID``, ``SOURCE`` (paper and figure, shown by ``ccsim list``) and
  ``DESCRIPTION``;
* ``PAPER``: the numbers and claims the paper states, as data;
* ``scenarios(quick) -> list[_kit.Sweep]``: what to run;
* ``analyse(runs: _kit.Runs, quick) -> _kit.Analysis``: measurements, with
  ``table`` (written as ``ID.csv`` and ``ID.parquet``);
* ``checks(a, quick) -> list[Check]``: ccsim vs paper, model or ccsim
  (every Check names its ``source``);
* ``plot(a, out_dir, quick) -> Path``: ``ID.png`` from the analysis alone;

and optionally

* ``scenarios_after(runs: _kit.Runs, quick) -> list[_kit.Sweep]``: a second
  stage whose scenarios depend on the first stage's results (e.g. buffers
  set to a maximum occupancy measured in the first stage); ``analyse`` then
  gets both stages' sweeps, the first stage's first;
* ``NS2_FIGURE = True``: the module reproduces a figure the paper made in
  ns-2 and builds its TCP-family flows with
  :func:`._kit.ns2ref.figure_flow`; ``ccsim reproduce`` then prints how
  those flows run and ``checks.json`` records it (``agents``,
  :func:`Experiment.agents`).

Every module of every subpackage is imported with this package and each one
defining ``ID`` is registered by :func:`register_figure`; there is no list to
keep in sync. :func:`drive` runs such a module; with ``replot=True``
(``ccsim reproduce ID --replot``) it reads the runs from the cache instead of
running them, and fails with :class:`ccsim.sweep.MissingRuns` when some are
not there. A plain function ``fn(out_dir, quick, workers) -> list[Check]``
can still be registered with the :func:`register` decorator; it cannot be
replotted.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import pkgutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Dict, Iterable, List, Optional, TextIO, Union

__all__ = ["Check", "SOURCES", "Experiment", "REGISTRY", "register", "register_figure", "drive", "write_checks",
           "print_checks", "summary_line", "summary", "checks_document"]

PathLike = Union[str, os.PathLike]


#: Where the number a check compares ccsim against comes from.
SOURCES = ("paper", "model", "consistency", "ns-2")


@dataclass
class Check:
    """One comparison of a ccsim measurement against a reference.

    ``source`` (required) says what the reference in the ``paper`` column
    is: ``"paper"``, a number or claim the paper states (``read_from``,
    e.g. ``"Fig 6"``, when it is read off a plot rather than stated in the
    text; shown as ``paper (read from Fig 6)``); ``"model"``, a prediction
    of one of ccsim's analytic models (``ccsim.models``, the experiments'
    fluid and equilibrium models); ``"consistency"``, ccsim against ccsim
    (two runs, two variants, two halves of a run); ``"ns-2"``, a recorded
    run of ns-2.35, the papers' simulator, of the same scenario (the
    record's file, versions and date are named by the experiment).

    ``deviation`` is relative, ``|ccsim - paper| / |paper|``, unless
    ``relative=False`` (then absolute; use that when the paper's value is 0
    or the quantity is already a ratio such as a loss rate near 0). ``ok``
    is ``deviation <= tolerance`` unless given explicitly, for qualitative
    checks ("ordering of curves matches") where numbers do not apply.
    """

    quantity: str
    paper: Any
    ccsim: Any
    tolerance: Optional[float] = None
    relative: bool = True
    ok: Optional[bool] = None
    deviation: Optional[float] = field(default=None)
    source: Optional[str] = None
    read_from: Optional[str] = None

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ValueError(f"Check {self.quantity!r}: source must be one of "
                             f"{', '.join(repr(s) for s in SOURCES)}, not {self.source!r}")
        if self.read_from is not None and self.source != "paper":
            raise ValueError(f"Check {self.quantity!r}: read_from (a figure of the paper) needs source 'paper', "
                             f"not {self.source!r}")
        if self.deviation is None and _is_number(self.paper) and _is_number(self.ccsim):
            diff = abs(float(self.ccsim) - float(self.paper))
            if self.relative and float(self.paper) != 0.0:
                self.deviation = diff / abs(float(self.paper))
            elif self.relative:
                self.deviation = 0.0 if diff == 0.0 else math.inf
            else:
                self.deviation = diff
        if self.ok is None:
            self.ok = bool(
                self.tolerance is not None
                and self.deviation is not None
                and not math.isnan(self.deviation)
                and self.deviation <= self.tolerance
            )

    def to_dict(self) -> Dict[str, Any]:
        return {
            "quantity": self.quantity,
            "paper": _jsonable(self.paper),
            "ccsim": _jsonable(self.ccsim),
            "deviation": _jsonable(self.deviation),
            "tolerance": self.tolerance,
            "relative": self.relative,
            "ok": bool(self.ok),
            "source": self.source,
            "read_from": self.read_from,
        }

    @property
    def source_label(self) -> str:
        """``paper``, ``paper (read from Fig 6)``, ``model`` or ``consistency``."""
        if self.read_from:
            return f"{self.source} (read from {self.read_from})"
        return str(self.source)


def _is_number(x: Any) -> bool:
    try:
        return not isinstance(x, bool) and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def _jsonable(x: Any) -> Any:
    """numpy scalars -> Python; non-finite floats -> None (JSON has no inf)."""
    item = getattr(x, "item", None)
    if callable(item) and getattr(x, "ndim", None) == 0:
        x = item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


@dataclass
class Experiment:
    """A registered experiment; ``run(out_dir, quick, workers)`` returns
    checks. ``figure`` is the figure module (None for a plain function),
    which is what ``replot`` needs."""

    id: str
    paper: str
    description: str
    run: Callable[[Path, bool, Optional[int]], List[Check]]
    module: str = ""
    figure: Optional[ModuleType] = None

    def agents(self) -> Optional[str]:
        """How its TCP-family flows run (:func:`._kit.ns2ref.agents_note`)
        if it reproduces an ns-2 figure (``NS2_FIGURE``), else None."""
        if not getattr(self.figure, "NS2_FIGURE", False):
            return None
        from ._kit.ns2ref import agents_note

        return agents_note()

    def replot(self, out_dir: Path, quick: bool) -> List[Check]:
        """Analyse, check and plot again from the cached runs; nothing runs."""
        from .._native import UserError

        if self.figure is None:
            raise UserError(f"experiment {self.id!r} is a plain function, not a figure module; "
                            "it cannot --replot")
        return drive(self.figure, Path(out_dir), quick, None, replot=True)


#: id -> Experiment, filled by :func:`register` as experiment modules import.
REGISTRY: Dict[str, Experiment] = {}


def register(id: str, *, paper: str, description: str):
    """Decorator registering ``fn(out_dir: Path, quick: bool, workers) -> list[Check]``.

    ``quick`` asks for a smaller version (shorter runs, fewer points) for
    smoke tests; ``workers`` is passed on to sweeps (None = all cores).
    """

    def deco(fn: Callable[[Path, bool, Optional[int]], List[Check]]):
        if id in REGISTRY and REGISTRY[id].run is not fn:
            raise ValueError(f"experiment id {id!r} registered twice "
                             f"({REGISTRY[id].module} and {fn.__module__})")
        REGISTRY[id] = Experiment(id=id, paper=paper, description=description, run=fn,
                                  module=fn.__module__)
        return fn

    return deco


FIGURE_API = ("ID", "SOURCE", "DESCRIPTION", "PAPER", "scenarios", "analyse", "checks", "plot")


def register_figure(module: ModuleType) -> Experiment:
    """Register a figure module (see the package docstring for what it defines)."""
    missing = [name for name in FIGURE_API if not hasattr(module, name)]
    if missing:
        raise TypeError(f"figure module {module.__name__} lacks {', '.join(missing)}")
    exp_id = module.ID
    if exp_id in REGISTRY and REGISTRY[exp_id].figure is not module:
        raise ValueError(f"experiment id {exp_id!r} registered twice "
                         f"({REGISTRY[exp_id].module} and {module.__name__})")

    def run(out_dir: Path, quick: bool, workers: Optional[int]) -> List[Check]:
        return drive(module, Path(out_dir), quick, workers)

    REGISTRY[exp_id] = Experiment(id=exp_id, paper=module.SOURCE, description=module.DESCRIPTION, run=run,
                                  module=module.__name__, figure=module)
    return REGISTRY[exp_id]


def drive(module: ModuleType, out_dir: Path, quick: bool, workers: Optional[int],
          replot: bool = False) -> List[Check]:
    """Run a figure module: its sweeps (or, with ``replot``, their cached
    results only), ``analyse``, the table ``ID.csv``/``ID.parquet``,
    ``checks`` and ``plot``. Returns the checks (the caller writes
    ``checks.json``)."""
    from ..sweep import write_table
    from ._kit.runs import Runs

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    runs = Runs.collect(first_stage(module, quick), out_dir, workers, run=not replot)
    after = getattr(module, "scenarios_after", None)
    if after is not None:
        more = Runs.collect(_with_paper_tcp(_in_ns2_order(module, after(runs, quick))), out_dir, workers,
                            run=not replot)
        runs = Runs(out_dir, runs.sweeps + more.sweeps, runs.frames + more.frames)
    a = module.analyse(runs, quick)
    write_table(a.table, out_dir, module.ID)
    checks = list(module.checks(a, quick))
    module.plot(a, out_dir, quick)
    return checks


def first_stage(module: ModuleType, quick: bool) -> List[Any]:
    """The sweeps :func:`drive` runs first for a figure module: its
    ``scenarios(quick)``, with an ns-2 figure's links in ns-2's tie order
    (:func:`_in_ns2_order`) and the papers' TCP in what the flows leave out
    (:func:`_with_paper_tcp`). ``ccsim report`` plans them to tell a quick
    run's cache from a full one's."""
    return _with_paper_tcp(_in_ns2_order(module, module.scenarios(quick)))


def _with_paper_tcp(sweeps: Iterable[Any]) -> List[Any]:
    """Every sweep with the papers' TCP where its flows say nothing
    (:data:`._kit.setups.PAPER_TCP`), in its base and in the points that
    give whole flows (``flows`` or ``flows.N``), so that a change of the
    engine's defaults never moves a reproduction."""
    import re

    from ..scenario import as_scenario_dict
    from ._kit.runs import Sweep
    from ._kit.setups import paper_tcp

    def point(p: Dict[str, Any]) -> Dict[str, Any]:
        out = {}
        for k, v in p.items():
            if k == "flows" and isinstance(v, list):
                v = [paper_tcp(f) for f in v]
            elif re.fullmatch(r"flows\.\d+", k) and isinstance(v, dict):
                v = paper_tcp(v)
            out[k] = v
        return out

    out = []
    for s in sweeps:
        base = as_scenario_dict(s.base)
        base = {**base, "flows": [paper_tcp(f) for f in base.get("flows", [])]}
        out.append(Sweep(base, [point(p) for p in s.points], s.labels))
    return out


def _in_ns2_order(module: ModuleType, sweeps: Iterable[Any]) -> List[Any]:
    """A module reproducing an ns-2 figure (``NS2_FIGURE``) runs its links
    in ns-2's order of tied events (:func:`._kit.ns2ref.figure_scenario`);
    other modules' sweeps are returned as they are."""
    sweeps = list(sweeps)
    if not getattr(module, "NS2_FIGURE", False):
        return sweeps
    from ._kit.ns2ref import figure_scenario
    from ._kit.runs import Sweep

    return [Sweep(figure_scenario(s.base), s.points, s.labels) for s in sweeps]


def get(id: str) -> Experiment:
    """Look up an experiment; unknown ids raise a UserError listing the known ones."""
    from .._native import UserError

    try:
        return REGISTRY[id]
    except KeyError:
        known = ", ".join(sorted(REGISTRY)) or "(none registered)"
        raise UserError(f"unknown experiment {id!r}; known: {known}") from None


def summary(checks: Iterable[Check]) -> Dict[str, Dict[str, int]]:
    """Per source (in the order of :data:`SOURCES`, sources without checks
    left out): ``{"ok": N, "total": M}``."""
    out: Dict[str, Dict[str, int]] = {}
    checks = list(checks)
    for src in SOURCES:
        mine = [c for c in checks if c.source == src]
        if mine:
            out[src] = {"ok": sum(bool(c.ok) for c in mine), "total": len(mine)}
    return out


def checks_document(checks: Iterable[Check], agents: Optional[str] = None) -> Dict[str, Any]:
    """What ``checks.json`` holds: ``summary`` (per source, see
    :func:`summary`, and ``headline``, :func:`summary_line`) and ``checks``
    (the check dicts); with ``agents`` (:meth:`Experiment.agents`) also
    ``agents``, how the TCP-family flows ran."""
    checks = list(checks)
    doc: Dict[str, Any] = {"summary": {"by_source": summary(checks), "ok": sum(bool(c.ok) for c in checks),
                                       "total": len(checks), "headline": summary_line(checks)}}
    if agents is not None:
        doc["agents"] = agents
    doc["checks"] = [c.to_dict() for c in checks]
    return doc


def write_checks(out_dir: PathLike, checks: Iterable[Check], agents: Optional[str] = None) -> Path:
    """Write ``checks.json`` (see :func:`checks_document`) into ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "checks.json"
    path.write_text(json.dumps(checks_document(checks, agents), indent=2) + "\n", encoding="utf-8")
    return path


def _fmt(x: Any) -> str:
    if isinstance(x, bool) or x is None:
        return str(x)
    if _is_number(x):
        v = float(x)
        return f"{v:.4g}" if v != int(v) or abs(v) >= 1e6 else str(int(v))
    return str(x)


def summary_line(checks: List[Check]) -> str:
    """The headline per source, e.g. ``paper: 5/9 within tolerance; model:
    48/48; consistency: 3/3``."""
    parts = [f"{src}: {n['ok']}/{n['total']}" for src, n in summary(checks).items()]
    if not parts:
        return "no checks"
    parts[0] += " within tolerance"
    return "; ".join(parts)


def print_checks(checks: List[Check], file: Optional[TextIO] = None, summary: bool = True) -> None:
    """Table of reference (paper, model or ccsim, see ``source``) vs ccsim
    with deviation and verdict, then (unless ``summary=False``) the
    headline per source (:func:`summary_line`)."""
    file = file or sys.stdout
    header = ("quantity", "source", "reference", "ccsim", "deviation", "tolerance", "ok")
    rows = []
    for c in checks:
        dev = c.deviation
        if dev is None:
            dev_s = "-"
        elif c.relative:
            dev_s = f"{dev * 100:.2f}%" if math.isfinite(dev) else "inf"
        else:
            dev_s = _fmt(dev)
        tol = "-" if c.tolerance is None else (f"{c.tolerance * 100:.2f}%" if c.relative else _fmt(c.tolerance))
        rows.append((c.quantity, c.source_label, _fmt(c.paper), _fmt(c.ccsim), dev_s, tol, "ok" if c.ok else "DEVIATES"))
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    for r in [header] + rows:
        print("  ".join(str(v).ljust(w) if i == 0 else str(v).rjust(w)
                        for i, (v, w) in enumerate(zip(r, widths))), file=file)
    if summary:
        print(summary_line(checks), file=file)


def _load_modules() -> None:
    """Import every module of this package and of its paper subpackages
    (not ``_kit``); register each figure module (one defining ``ID``)."""
    for info in pkgutil.walk_packages(__path__, prefix=f"{__name__}."):
        if any(part.startswith("_") for part in info.name.split(".")[2:]):
            continue
        module = importlib.import_module(info.name)
        if not info.ispkg and hasattr(module, "ID"):
            register_figure(module)


_load_modules()
