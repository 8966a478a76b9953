"""Access to the compiled engine (`ccsim._core`).

The import is deferred to first use so that the parts of the package that do
not simulate (``ccsim list experiments``, reading saved results, plotting)
keep working, and so that a missing or stale build produces one actionable
message instead of an ImportError deep inside some other module.
"""

from __future__ import annotations

import json
import math
from types import ModuleType
from typing import Any, Optional

_core: Optional[ModuleType] = None


class UserError(ValueError):
    """A problem with the user's input (file, scenario, grid, name).

    The CLI prints these as ``error: <message>`` and exits with status 2;
    everything else is a bug and keeps its traceback.
    """


def core() -> ModuleType:
    """Return the compiled engine module, importing it on first use."""
    global _core
    if _core is None:
        try:
            from ccsim import _core as mod  # type: ignore[attr-defined]
        except ImportError as exc:  # pragma: no cover - depends on the build
            raise ImportError(
                "the ccsim engine (ccsim._core) is not built; run "
                "`pip install -e .` or `maturin develop --release` in the "
                f"ccsim checkout ({exc})"
            ) from exc
        _core = mod
    return _core


def _default(obj: Any) -> Any:
    """JSON fallback for numpy scalars/arrays, which sweeps produce easily
    (``np.linspace`` grids) and the stdlib encoder rejects."""
    item = getattr(obj, "item", None)
    if callable(item) and getattr(obj, "ndim", None) == 0:
        return item()
    tolist = getattr(obj, "tolist", None)
    if callable(tolist):
        return tolist()
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    raise TypeError(f"{type(obj).__name__} is not JSON serialisable")


def _non_finite(obj: Any, path: str = "") -> Optional[tuple]:
    """The first NaN or infinite number in ``obj`` as ``(path, value)``, the
    path in the engine's form (``flows[0].rtt_s``)."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return path, obj
    if isinstance(obj, dict):
        items = ((f"{path}.{k}" if path else str(k), v) for k, v in obj.items())
    elif isinstance(obj, (list, tuple)):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(obj))
    else:
        return None
    for p, v in items:
        hit = _non_finite(v, p)
        if hit:
            return hit
    return None


def dumps(obj: Any, canonical: bool = False) -> str:
    """Serialise a scenario dict for the engine.

    ``canonical=True`` gives the byte-stable form used for cache keys
    (sorted keys, no whitespace). NaN and infinities have no JSON form: they
    are a :class:`UserError` naming the field (as the engine names them in
    a TOML file, which can hold them).
    """
    hit = _non_finite(obj)
    if hit:
        raise UserError(f"scenario.{hit[0]}: {hit[1]} is not allowed; must be a finite number")
    if canonical:
        return json.dumps(obj, default=_default, sort_keys=True, separators=(",", ":"))
    return json.dumps(obj, default=_default)


def validate(scenario: dict) -> dict:
    """Normalise a scenario through the engine (defaults filled in).

    Raises :class:`UserError` with the engine's message (which names the
    field path, the value and what is allowed) when the scenario is invalid.
    """
    try:
        return json.loads(core().validate(dumps(scenario)))
    except ValueError as exc:
        if isinstance(exc, UserError):
            raise
        raise UserError(str(exc)) from exc
