"""Access to the compiled engine (`ccsim._core`).

The import is deferred to first use so that the parts of the package that do
not simulate (``ccsim list experiments``, reading saved results, plotting)
keep working, and so that a missing or stale build produces one actionable
message instead of an ImportError deep inside some other module.
"""

from __future__ import annotations

import datetime
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


class ScenarioWarning(UserWarning):
    """A scenario that runs but probably not as meant (a flow that starts
    after the run ends). The CLI prints these as ``warning: <message>`` on
    stderr; the message names the field and the value."""


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


#: Deepest nesting of lists/tables a scenario may have. No field nests more
#: than a few levels; the bound keeps Python's recursive walkers and the
#: engine's JSON reader (serde_json stops at 128) from failing without a
#: field name.
MAX_DEPTH = 32


def _describe(v: Any) -> Optional[str]:
    """Why ``v`` cannot be a scenario value, or None if it can be one."""
    if isinstance(v, float) and not math.isfinite(v):
        return f"{v} is not allowed; must be a finite number"
    if isinstance(v, (datetime.date, datetime.time)):  # datetime is a date
        kind = {datetime.datetime: "date-time", datetime.date: "date"}.get(type(v), "time")
        return (f"{v.isoformat()} (a TOML {kind}) is not allowed; scenarios hold no dates or "
                "times: must be a number, a string, a boolean, a list or a table, as the field "
                "takes (times are numbers of seconds)")
    return None


def check_values(obj: Any) -> None:
    """Raise :class:`UserError` naming the first value of ``obj`` the engine
    cannot take: NaN or an infinity (no JSON form), a TOML date or time, or
    lists/tables nested more than :data:`MAX_DEPTH` deep. The path is in the
    engine's form (``scenario.flows[0].rtt_s``). Iterative, so a deep
    document cannot exhaust Python's recursion limit here."""
    stack = [("", obj, 0)]
    while stack:
        path, v, depth = stack.pop()
        why = _describe(v)
        if why:
            raise UserError(f"scenario.{path}: {why}" if path else f"scenario: {why}")
        if isinstance(v, dict):
            items = [(f"{path}.{k}" if path else str(k), x) for k, x in v.items()]
        elif isinstance(v, (list, tuple)):
            items = [(f"{path}[{i}]", x) for i, x in enumerate(v)]
        else:
            continue
        if depth >= MAX_DEPTH and items:
            raise UserError(f"scenario.{path}: lists/tables nested more than {MAX_DEPTH} levels deep "
                            "are not allowed; no scenario field nests more than a few levels")
        stack.extend((p, x, depth + 1) for p, x in reversed(items))


def dumps(obj: Any, canonical: bool = False) -> str:
    """Serialise a scenario dict for the engine.

    ``canonical=True`` gives the byte-stable form used for cache keys
    (sorted keys, no whitespace). NaN and infinities have no JSON form, and
    TOML dates and times and very deep nesting no scenario meaning: they are
    a :class:`UserError` naming the field (:func:`check_values`).
    """
    check_values(obj)
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
