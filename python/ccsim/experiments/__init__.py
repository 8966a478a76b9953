"""Registry of paper experiments (``ccsim reproduce ID``).

Each figure or table of a paper is one *experiment*: a function that runs its
scenarios (usually through :func:`ccsim.sweep.sweep`), writes its data and
plot into ``out_dir``, and returns :class:`Check` objects comparing the
numbers the paper states with what ccsim measured.

Adding one: put a module in this package (e.g. ``etcp.py``) and decorate the
function::

    from ccsim.experiments import Check, register

    @register("etcp-fig5", paper="E-TCP (small buffers)", description="equilibrium window vs loss")
    def fig5(out_dir, quick, workers):
        ...
        return [Check("equilibrium window (pkts)", paper=12020, ccsim=w, tolerance=0.05)]

Every module in this package is imported when the package is, so the
decorator is the whole registration; there is no list to keep in sync.
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
from typing import Any, Callable, Dict, Iterable, List, Optional, TextIO, Union

__all__ = ["Check", "Experiment", "REGISTRY", "register", "write_checks", "print_checks", "summary_line"]

PathLike = Union[str, os.PathLike]


@dataclass
class Check:
    """One paper-vs-ccsim comparison.

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

    def __post_init__(self) -> None:
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
        }


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
    """A registered experiment; ``run(out_dir, quick, workers)`` returns checks."""

    id: str
    paper: str
    description: str
    run: Callable[[Path, bool, Optional[int]], List[Check]]
    module: str = ""


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


def get(id: str) -> Experiment:
    """Look up an experiment; unknown ids raise a UserError listing the known ones."""
    from .._native import UserError

    try:
        return REGISTRY[id]
    except KeyError:
        known = ", ".join(sorted(REGISTRY)) or "(none registered)"
        raise UserError(f"unknown experiment {id!r}; known: {known}") from None


def write_checks(out_dir: PathLike, checks: Iterable[Check]) -> Path:
    """Write ``checks.json`` (a list of check dicts) into ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "checks.json"
    path.write_text(json.dumps([c.to_dict() for c in checks], indent=2) + "\n", encoding="utf-8")
    return path


def _fmt(x: Any) -> str:
    if isinstance(x, bool) or x is None:
        return str(x)
    if _is_number(x):
        v = float(x)
        return f"{v:.4g}" if v != int(v) or abs(v) >= 1e6 else str(int(v))
    return str(x)


def summary_line(checks: List[Check]) -> str:
    return f"{sum(bool(c.ok) for c in checks)}/{len(checks)} checks within tolerance"


def print_checks(checks: List[Check], file: Optional[TextIO] = None, summary: bool = True) -> None:
    """Table of paper vs ccsim with deviation and verdict, then (unless
    ``summary=False``) the ``N/M checks within tolerance`` line."""
    file = file or sys.stdout
    header = ("quantity", "paper", "ccsim", "deviation", "tolerance", "ok")
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
        rows.append((c.quantity, _fmt(c.paper), _fmt(c.ccsim), dev_s, tol, "ok" if c.ok else "DEVIATES"))
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    for r in [header] + rows:
        print("  ".join(str(v).ljust(w) if i == 0 else str(v).rjust(w)
                        for i, (v, w) in enumerate(zip(r, widths))), file=file)
    if summary:
        print(summary_line(checks), file=file)


def _load_modules() -> None:
    """Import every module of this package so their @register calls run."""
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")


_load_modules()
