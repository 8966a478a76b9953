"""Parameter sweeps: many runs, cached, on all cores or a Dask cluster.

Design choices, and why:

* **Cache key = sha256 of the engine-normalised scenario** (sorted-key JSON of
  ``_core.validate``). Two grids that spell the same run differently (a value
  given explicitly vs left to its default) share one result, and changing any
  parameter, default included, changes the key.
* **One file per run** (``out_dir/runs/<key>.json``), written to a temporary
  name and renamed, so a sweep killed at any moment leaves only complete
  files and a rerun skips exactly the finished runs.
* **Workers compute, the parent writes.** A worker returns the results JSON
  and the calling process stores it. Only one process touches ``out_dir``, so
  a Dask cluster without a shared filesystem works the same as a local pool.
* **Cache files are self-checking.** Each holds a sha256 of its results;
  a file that does not parse, lacks a field or fails its checksum (a disk
  error, a hand edit, a copy cut short) is named on stderr and recomputed,
  never silently used. Files are made ``0644`` under the usual umask (not
  ``mkstemp``'s ``0600``) so a sweep can be shared with a group.
* **A log of computed runs** (``out_dir/runs.log``, one JSON line per run
  stored) shows what each invocation computed, so resume can be audited: a
  finished run never appears twice.
* **Pool workers die with their parent.** A SIGKILLed sweep must not leave
  workers blocked on a dead pipe: each worker asks the kernel for SIGKILL
  when its parent dies (``prctl(PR_SET_PDEATHSIG)`` on Linux) and also
  watches its parent pid from a thread (every platform).
* **Everything is validated before anything runs**, so a bad grid value fails
  in a second, not after hours of other runs.
* **Controllers are not averaged together.** A run that mixes TCP
  controllers (BBR and CUBIC) can be tabulated one row per controller
  (``group_by``, by any flow field): a mean over both describes neither.
  The Python default stays one row per run, which experiments index by
  point; ``ccsim sweep`` splits mixed sweeps by default.
* **A remote scheduler is reached over mutual TLS** when given
  certificates (``security``), and its workers must run this client's
  engine (asked before anything is submitted): a Dask scheduler runs any
  task that reaches its port, and a result is filed under the client's
  engine version.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import itertools
import json
import math
import os
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import pandas as pd

from ._native import UserError, core, dumps, validate
from .results import Results
from .scenario import Scenario, as_scenario_dict, with_overrides

__all__ = ["sweep", "execute", "progress_into", "expand_grid", "run_key", "load_run", "write_table", "summarise", "t_quantile_975",
           "group_rows", "dask_security", "RunSpec", "MissingRuns", "BACKENDS", "GROUP_FLOW_FIELDS"]

#: ``inprocess`` runs in the calling process (debuggers work), ``process``
#: on a local process pool, ``dask`` on a ``dask.distributed`` cluster.
BACKENDS = ("process", "inprocess", "dask")

#: Version of the cache file layout (``format`` field).
CACHE_FORMAT = 2

Grid = Union[Mapping[str, Sequence[Any]], Sequence[Mapping[str, Any]]]


@dataclass
class RunSpec:
    """One point of a sweep: its overrides, normalised scenario and key."""

    overrides: Dict[str, Any]
    scenario: Dict[str, Any]
    key: str


class MissingRuns(UserError):
    """``sweep(..., run=False)`` found points with no cached result.

    ``missing`` holds their :class:`RunSpec` (overrides and key), ``total``
    the number of points in the sweep.
    """

    def __init__(self, out_dir: Path, missing: List[RunSpec], total: int):
        self.out_dir, self.missing, self.total = out_dir, missing, total
        super().__init__(f"{len(missing)} of {total} runs are not in {out_dir / 'runs'} "
                         f"(first: {describe_run(missing[0])})")


def describe_run(spec: RunSpec) -> str:
    """``key12 (path=value, ...)``: how error messages name one run."""
    shown = ", ".join(f"{k}={v!r}" for k, v in spec.overrides.items())
    return f"{spec.key[:12]} ({shown or 'base scenario'})"


def expand_grid(grid: Grid) -> List[Dict[str, Any]]:
    """Dotted-path override dicts for a grid.

    A mapping ``{path: [values...]}`` gives the cartesian product (first key
    varies slowest); a list of mappings is taken as explicit runs, for
    designs that are not a full product (paired parameters).
    """
    if isinstance(grid, Mapping):
        keys = list(grid)
        values = []
        for k in keys:
            v = grid[k]
            if isinstance(v, (str, bytes)) or not isinstance(v, Iterable):
                raise UserError(f"grid {k!r}: expected a list of values, got {v!r}")
            values.append(list(v))
        return [dict(zip(keys, combo)) for combo in itertools.product(*values)]
    return [dict(point) for point in grid]


def run_key(normalised: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON of an engine-normalised scenario, and
    of the source of each Python controller it names (an edited controller
    is a new run, not a cached one)."""
    code = python_controllers(normalised)
    keyed = dict(normalised, python_controllers=code) if code else normalised
    return hashlib.sha256(dumps(keyed, canonical=True).encode("utf-8")).hexdigest()


def python_controllers(normalised: Mapping[str, Any]) -> Dict[str, Optional[str]]:
    """{name: sha256 of its source file, or None} of the Python controllers
    (``ccsim.Controller`` classes) the scenario's flows name."""
    from .controller import _REGISTERED, fingerprint

    names = {f.get("cc") for f in normalised.get("flows", []) if isinstance(f.get("cc"), str)}
    return {n: fingerprint(n) for n in sorted(names) if n in _REGISTERED or ":" in n}


_CONTROLLERS: Optional[Dict[str, List[str]]] = None


def _controllers() -> Dict[str, List[str]]:
    """Controller name -> its ``cc_params`` names, from the engine catalog."""
    global _CONTROLLERS
    if _CONTROLLERS is None:
        cat = json.loads(core().catalog())
        _CONTROLLERS = {c["name"]: [p["name"] for p in c.get("params") or []]
                        for c in cat.get("controllers", [])}
    return _CONTROLLERS


def _is_per_controller(params: Any) -> bool:
    """``cc_params = {hstcp = {...}, htcp = {...}}``: every value a table.
    Plain ``cc_params`` hold scalars, so a table value is unambiguous."""
    return isinstance(params, Mapping) and bool(params) and all(isinstance(v, Mapping) for v in params.values())


def resolve_cc_params(d: Dict[str, Any]) -> Dict[str, Any]:
    """Resolve the sweep-only controller forms of each flow entry, in place.

    Sweeping ``cc`` over controllers with different parameters needs one
    parameter table per controller, so a sweep accepts two extra forms:

    * per-controller tables, ``cc_params = {hstcp = {low_window = 31},
      htcp = {delta_l = 1.0}}``: the flow's ``cc`` picks its table (none: the
      controller's defaults). Every table is checked against its controller,
      for every point, so a misplaced parameter is an error even in points
      that do not use it;
    * a bundle as a ``cc`` value, ``{cc = "hstcp", cc_params = {...}}``
      (a grid value of ``flows.N.cc``), setting both at once (a bundle
      without ``cc_params`` means the controller's defaults).
    """
    flows = d.get("flows")
    if not isinstance(flows, list):
        return d
    known = None
    for i, flow in enumerate(flows):
        if not isinstance(flow, dict):
            continue
        where = f"flows[{i}]"
        cc = flow.get("cc")
        if isinstance(cc, Mapping):
            extra = sorted(set(cc) - {"cc", "cc_params"})
            if "cc" not in cc or extra:
                raise UserError(f"{where}.cc: a controller bundle is {{cc = NAME, cc_params = {{...}}}}; got "
                                f"{dict(cc)!r}" + (f" (unknown keys: {', '.join(extra)})" if extra else ""))
            flow["cc"] = cc["cc"]
            # The bundle describes the controller whole: no cc_params = its defaults.
            flow["cc_params"] = _plain_dict(cc.get("cc_params", {}), f"{where}.cc.cc_params")
            cc = flow["cc"]
        params = flow.get("cc_params")
        if not _is_per_controller(params):
            continue
        known = known or _controllers()
        for name, table in params.items():
            if name not in known:
                raise UserError(f"{where}.cc_params.{name}: per-controller parameter tables are keyed by "
                                f"controller name; {name!r} is not one (controllers: {', '.join(sorted(known))})")
            for k in table:
                if k not in known[name]:
                    allowed = ", ".join(known[name]) or "none"
                    raise UserError(f"{where}.cc_params.{name}.{k}: {k!r} is not a parameter of controller "
                                    f"{name!r}; its parameters: {allowed}")
        chosen = cc if isinstance(cc, str) else "reno"
        flow["cc_params"] = dict(params.get(chosen, {}))
    return d


def _plain_dict(v: Any, where: str) -> Dict[str, Any]:
    if not isinstance(v, Mapping):
        raise UserError(f"{where}: expected a table of controller parameters, got {v!r}")
    return dict(v)


def plan(base: Union[Scenario, Mapping[str, Any], str, os.PathLike], grid: Grid) -> List[RunSpec]:
    """Expand and validate a sweep without running it."""
    base_d = as_scenario_dict(base)
    specs = []
    for overrides in expand_grid(grid):
        d = with_overrides(base_d, overrides)
        try:
            resolve_cc_params(d)
            norm = validate(d)
        except UserError as exc:
            shown = ", ".join(f"{k}={v!r}" for k, v in overrides.items())
            raise UserError(f"{exc} (in sweep point {shown or 'base scenario'})") from None
        specs.append(RunSpec(overrides, norm, run_key(norm)))
    return specs


def _upload_controllers(client: Any, payloads: Iterable[str]) -> None:
    """Send the source file of every Python controller the runs name to
    the cluster's workers (``Client.upload_file``), so a worker without the
    client's files imports it; a class registered by name with no file is
    refused, as no worker could build it."""
    from .controller import _REGISTERED, source_file

    names = {f.get("cc") for p in payloads for f in json.loads(p).get("flows", []) if isinstance(f.get("cc"), str)}
    for name in sorted(n for n in names if n in _REGISTERED or ":" in n):
        if name in _REGISTERED and ":" not in name:
            raise UserError(f"controller {name!r} is registered in this process only, which Dask workers do not "
                            "share: name it as \"module:Class\" or \"file.py:Class\" in the scenario")
        path = source_file(name)
        if path is None or not os.path.isfile(path):
            raise UserError(f"controller {name!r}: no source file found to send to the Dask workers")
        client.upload_file(path)


def _run_json(scenario_json: str) -> str:
    """Worker entry point: run one scenario, return its results JSON.

    Module-level and taking/returning plain strings so it pickles for both
    ProcessPoolExecutor and Dask.
    """
    from ccsim._native import core as _core_mod

    return _core_mod().Simulation(scenario_json).finish()


# --------------------------------------------------------------------------
# pool workers that do not outlive the sweep
# --------------------------------------------------------------------------

_PR_SET_PDEATHSIG = 1


def _worker_init(parent_pid: int) -> None:
    """Pool initializer: make this worker exit when the sweep parent dies.

    A parent killed with SIGKILL runs no cleanup, and its workers would sit
    blocked on the task pipe (or finish a long run nobody will read). Two
    independent guards: the kernel's parent-death signal on Linux (fires
    even while the worker is inside the engine), and a daemon thread that
    polls the parent pid (every platform; the engine releases the GIL while
    it runs, so the thread gets to look).
    """
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - exotic libc
            pass
    if os.getppid() != parent_pid:  # parent died before prctl took effect
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(0.25)
            if os.getppid() != parent_pid:
                os._exit(1)

    threading.Thread(target=watch, name="ccsim-parent-watch", daemon=True).start()


# --------------------------------------------------------------------------
# the run cache
# --------------------------------------------------------------------------


def _cache_path(out_dir: Path, key: str) -> Path:
    return out_dir / "runs" / f"{key}.json"


def _engine_version() -> str:
    """The engine build a cached run belongs to: its version and its
    sources' digest (``engine_id``), so a run cached by an engine since
    changed is recomputed, not reused."""
    try:
        return core().engine_id()
    except Exception:  # pragma: no cover - version() is part of the contract
        return "unknown"


def _checksum(results: Any) -> str:
    """sha256 of the canonical JSON of a run's results (what a cache file
    must reproduce when read back)."""
    text = json.dumps(results, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _umask() -> int:
    """The process umask: from /proc on Linux (no side effect); elsewhere
    reading it means setting it, so it is set straight back."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that no reader ever sees part of it:
    a temporary file in the same directory (same filesystem, so the rename
    is atomic), fsync, ``os.replace``, then fsync the directory so the
    rename itself survives a power cut. The temporary name carries our pid,
    so a later sweep can tell an abandoned one from a live one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp creates 0600; a result file is an ordinary file (0666 & ~umask).
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:
        dfd = os.open(path.parent, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. platforms without directory fds
        return
    try:
        os.fsync(dfd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(dfd)


def _clean_stale_tmp(out_dir: Path) -> None:
    """Remove temporary files left by sweeps that were killed mid-write
    (their pid is gone); leave those of a live concurrent sweep alone."""
    runs = out_dir / "runs"
    if not runs.is_dir():
        return
    for tmp in runs.glob(".*.tmp"):
        parts = tmp.name.split(".")
        try:
            pid = int(parts[2])
        except (IndexError, ValueError):
            pid = -1
        if pid > 0:
            try:
                os.kill(pid, 0)
                continue  # still alive
            except ProcessLookupError:
                pass
            except PermissionError:
                continue
        try:
            tmp.unlink()
        except OSError:
            pass


def _store(out_dir: Path, spec: RunSpec, results_json: str, version: str) -> Dict[str, Any]:
    """Write one run's cache file atomically, log it; return the results."""
    results = json.loads(results_json)
    doc = {
        "format": CACHE_FORMAT,
        "key": spec.key,
        "engine_version": version,
        "checksum": _checksum(results),
        "overrides": spec.overrides,
        "scenario": spec.scenario,
        "results": results,
    }
    _atomic_write(_cache_path(out_dir, spec.key), json.dumps(doc, default=str))
    _log_computed(out_dir, spec, results)
    return results


def _log_computed(out_dir: Path, spec: RunSpec, results: Mapping[str, Any]) -> None:
    """Append one line to ``runs.log`` (after the cache file is in place, so
    a line always names a stored run; a kill between the two loses a line,
    never adds one)."""
    line = json.dumps({"key": spec.key, "time": time.time(), "pid": os.getpid(),
                       "wall_s": results.get("wall_s"), "cpu_s": results.get("cpu_s"), "overrides": spec.overrides}, default=str)
    with open(out_dir / "runs.log", "a", encoding="utf-8") as fh:
        fh.write(line + "\n")


class CacheProblem(Exception):
    """A cache file that exists but cannot be used; ``reason`` says why."""


def _read_cache(path: Path, key: str, version: str) -> Optional[Dict[str, Any]]:
    """Results in ``path``; None if there is no file or it was made by
    another engine version (a different run, not a damaged one);
    :class:`CacheProblem` if it is damaged (not JSON, truncated, missing a
    field, wrong key, checksum mismatch)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CacheProblem(f"unreadable ({exc.strerror or exc})") from None
    try:
        doc = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise CacheProblem("not UTF-8 text") from None
    except ValueError as exc:
        raise CacheProblem(f"not valid JSON (truncated or overwritten?): {exc}") from None
    if not isinstance(doc, dict):
        raise CacheProblem("not a JSON object")
    if not isinstance(doc.get("engine_version"), str):
        raise CacheProblem("field 'engine_version' missing or not a str")
    if doc["engine_version"] != version:
        return None
    for field, kind in (("key", str), ("results", dict)):
        if not isinstance(doc.get(field), kind):
            raise CacheProblem(f"field {field!r} missing or not a {kind.__name__}")
    if doc["key"] != key:
        raise CacheProblem(f"holds run {doc['key'][:12]}, not {key[:12]}")
    results = doc["results"]
    if not isinstance(results.get("flows"), list) or "conservation" not in results:
        raise CacheProblem("results lack 'flows' or 'conservation'")
    if "checksum" in doc:  # files from before format 2 have none
        if _checksum(results) != doc["checksum"]:
            raise CacheProblem("checksum mismatch (results changed after they were written)")
    return results


def _load_cached(out_dir: Path, key: str, version: str) -> Optional[Dict[str, Any]]:
    """Cached results for ``key``, or None (absent, other engine version, or
    damaged; a damaged file is named on stderr so it is never silent)."""
    path = _cache_path(out_dir, key)
    try:
        return _read_cache(path, key, version)
    except CacheProblem as exc:
        print(f"warning: sweep cache file {path} is damaged: {exc}; recomputing that run", file=sys.stderr)
        return None


def load_run(out_dir: Union[str, os.PathLike], key: str) -> Results:
    """The full :class:`Results` (series included) of one cached sweep run."""
    return Results.load(_cache_path(Path(out_dir), key))


# --------------------------------------------------------------------------
# the table
# --------------------------------------------------------------------------

#: Flow classes whose goodput a sweep averages separately: each transport,
#: with XCP (a TCP flow whose controller is ``xcp``, needing router support)
#: apart from end-to-end TCP.
GOODPUT_CLASSES = ("tcp", "xcp", "etcp", "udp")


def _flow_class(flow: Mapping[str, Any]) -> str:
    transport = str(flow.get("transport") or "tcp")
    if transport == "tcp" and str(flow.get("cc", "")).lower() == "xcp":
        return "xcp"
    return transport


def headline(results: Mapping[str, Any]) -> Dict[str, Any]:
    """The numbers a sweep tabulates per run.

    Goodput is averaged per flow class (``goodput_mean_<class>_bps`` for
    tcp, xcp, etcp, udp, present when the run has such flows), never over
    a mix: a constant-rate UDP source and a TCP flow averaged together
    describe neither. ``goodput_mean_bps`` is the mean over all flows when
    they are all one class, and NaN when classes are mixed.
    """
    row = Results(dict(results)).headline()
    by: Dict[str, List[float]] = {}
    for f in results.get("flows", []):
        by.setdefault(_flow_class(f), []).append(float(f.get("goodput_bps", 0.0)))
    for cls in sorted(by, key=lambda c: (GOODPUT_CLASSES.index(c) if c in GOODPUT_CLASSES else 99, c)):
        g = by[cls]
        row[f"goodput_mean_{cls}_bps"] = sum(g) / len(g)
        row[f"flows_{cls}"] = len(g)
    if len(by) > 1:
        row["goodput_mean_bps"] = float("nan")
    return row


def _row(spec: RunSpec, results: Mapping[str, Any], cached: bool) -> Dict[str, Any]:
    row: Dict[str, Any] = dict(spec.overrides)
    row.update(headline(results))
    row["key"] = spec.key
    row["cached"] = cached
    return row


# --------------------------------------------------------------------------
# one row per group of flows (--group-by)
# --------------------------------------------------------------------------

#: Fields of a flow's results record that describe the flow (not what it
#: did), so a sweep can group by them; any field of a ``[[flows]]`` entry of
#: the normalised scenario (``mss_bytes``, ``ecn``, ``tcp_model``, ...) can
#: be grouped by too.
GROUP_FLOW_FIELDS = ("cc", "transport", "recovery", "pacing", "entry", "id", "rtt_prop_s", "start_s", "stop_s")

#: ``group_by`` values that are not a field: ``auto`` groups by ``cc`` when
#: a run mixes TCP controllers, ``none`` keeps one row per run.
GROUP_MODES = ("auto", "none")


def check_group_by(group_by: Optional[str], specs: Sequence[RunSpec], option: str = "group_by") -> Optional[str]:
    """``None`` (one row per run), ``"auto"`` or the flow field to group
    by; an unknown name is a :class:`UserError` listing the allowed ones
    (``option`` is how the message names the setting)."""
    if group_by is None or group_by == "none":
        return None
    if not isinstance(group_by, str) or not group_by:
        raise UserError(f"{option} {group_by!r}: expected a flow field name, 'auto' or 'none'")
    entry_fields = sorted({k for spec in specs for f in spec.scenario.get("flows") or [] if isinstance(f, Mapping)
                           for k in f} - set(GROUP_FLOW_FIELDS))
    if group_by == "auto" or group_by in GROUP_FLOW_FIELDS or group_by in entry_fields:
        column = "cc" if group_by == "auto" else group_by
        if any(column in spec.overrides for spec in specs):
            raise UserError(f"{option} {group_by!r}: the grid has a column {column!r} already; "
                            f"group by another field or give {option} none")
        return group_by
    hint = ""
    if group_by.startswith("flows."):
        hint = f" (give the field's own name, e.g. {group_by.rsplit('.', 1)[-1]!r}, not a path)"
    raise UserError(f"{option} {group_by!r} is not a field of the sweep's flows{hint}; allowed: "
                    f"{', '.join(GROUP_MODES)}, {', '.join(GROUP_FLOW_FIELDS)}, or a [[flows]] field: "
                    f"{', '.join(entry_fields)}")


def _flow_value(flow: Mapping[str, Any], scenario: Mapping[str, Any], field: str) -> Any:
    """A flow's value of ``field``: its results record's, else its
    ``[[flows]]`` entry's in the normalised scenario (lists and tables as
    JSON text, so they group). A UDP flow's controller (``"none"``) is
    named by its transport, ``udp``."""
    if field == "cc" and flow.get("cc") in (None, "none"):
        return flow.get("transport") or "none"
    v = flow.get(field)
    if v is None and field not in GROUP_FLOW_FIELDS:
        entries = scenario.get("flows") or []
        e = flow.get("entry")
        if isinstance(e, int) and 0 <= e < len(entries) and isinstance(entries[e], Mapping):
            v = entries[e].get(field)
    if isinstance(v, (list, dict)):
        return json.dumps(v, sort_keys=True)
    return v


def mixes_controllers(results: Mapping[str, Any]) -> bool:
    """Whether a run's TCP flows use more than one controller."""
    return len({str(f.get("cc")) for f in results.get("flows", []) if (f.get("transport") or "tcp") == "tcp"}) > 1


def group_rows(spec: RunSpec, results: Mapping[str, Any], cached: bool, field: str) -> List[Dict[str, Any]]:
    """One table row per value of flow field ``field`` in a run, in the
    order the values first appear among the flows: the grid values, the
    group's value (column ``field``), then the group's ``goodput_mean_bps``
    (mean per flow), ``goodput_total_bps``, ``goodput_share`` (of all
    flows' goodput) and ``flows``, then the run's ``utilization``,
    ``loss_rate``, ``jain_index`` (over all its flows), ``events``,
    ``wall_s``, ``cpu_s``, ``key`` and ``cached``. A group that holds more
    than one flow class (TCP and UDP) gets NaN as ``goodput_mean_bps`` and
    the per-class columns, as :func:`headline` does for a run."""
    flows = results.get("flows", [])
    groups: Dict[str, Tuple[Any, List[Mapping[str, Any]]]] = {}
    for f in flows:
        v = _flow_value(f, spec.scenario, field)
        groups.setdefault(json.dumps(v, default=str), (v, []))[1].append(f)
    run = headline(results)
    total = float(sum(float(f.get("goodput_bps", 0.0)) for f in flows))
    out = []
    for value, members in groups.values():
        part = headline({"flows": members})
        row: Dict[str, Any] = dict(spec.overrides)
        row[field] = value
        row["goodput_mean_bps"] = part["goodput_mean_bps"]
        row["goodput_total_bps"] = part["goodput_total_bps"]
        row["goodput_share"] = part["goodput_total_bps"] / total if total > 0 else float("nan")
        row["flows"] = len(members)
        # the run's own numbers (utilization, loss_rate, jain_index, events, wall_s, cpu_s, ...)
        row.update({k: v for k, v in run.items() if not k.startswith(("goodput_", "flows_"))})
        if math.isnan(part["goodput_mean_bps"]):
            row.update({k: v for k, v in part.items() if k.startswith(("goodput_mean_", "flows_"))
                        and k != "goodput_mean_bps"})
        row["key"] = spec.key
        row["cached"] = cached
        out.append(row)
    return out


# Two-sided 95% Student t quantiles t_{0.975, df} for df = 1..30.
_T975 = (12.7062047, 4.3026527, 3.1824463, 2.7764451, 2.5705818, 2.4469119, 2.3646243, 2.3060041,
         2.2621572, 2.2281389, 2.2009852, 2.1788128, 2.1603687, 2.1447867, 2.1314495, 2.1199053,
         2.1098155, 2.1009220, 2.0930241, 2.0859634, 2.0796138, 2.0738731, 2.0686576, 2.0638986,
         2.0595386, 2.0555294, 2.0518305, 2.0484071, 2.0452296, 2.0422725)


def t_quantile_975(df: int) -> float:
    """Student t quantile at 0.975 with ``df`` degrees of freedom (the
    factor of a two-sided 95% confidence interval). A table up to 30, then
    the Cornish-Fisher expansion around the normal quantile (error < 1e-5),
    so scipy is not needed."""
    if df < 1:
        return float("nan")
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959963984540054
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    return z + g1 / df + g2 / df ** 2 + g3 / df ** 3


#: Metrics :func:`summarise` aggregates (plus every ``goodput_mean_*``).
SUMMARY_METRICS = ("goodput_mean_bps", "goodput_total_bps", "goodput_share", "utilization", "loss_rate", "jain_index")


def summarise(df: pd.DataFrame, over: str = "seed") -> pd.DataFrame:
    """One row per sweep point with replications over ``over`` merged.

    For each metric ``m``: ``m_mean``, ``m_std`` (sample standard
    deviation) and ``m_ci95``, the half-width of the two-sided 95%
    Student-t confidence interval of the mean (``t * std / sqrt(n)``, NaN
    for n < 2); ``n`` is the number of replications. Rows stay in first-
    appearance order so the table reads like the grid.
    """
    metrics, by, groups = _replications(df, over)
    out = []
    for g in groups:
        row: Dict[str, Any] = {c: g[c].iloc[0] for c in by}
        n = len(g)
        row["n"] = n
        for m in metrics:
            vals = pd.to_numeric(g[m], errors="coerce").dropna()
            k = len(vals)
            mean = float(vals.mean()) if k else float("nan")
            std = float(vals.std(ddof=1)) if k > 1 else float("nan")
            row[f"{m}_mean"] = mean
            row[f"{m}_std"] = std
            row[f"{m}_ci95"] = t_quantile_975(k - 1) * std / math.sqrt(k) if k > 1 else float("nan")
        out.append(row)
    return pd.DataFrame(out)


def _replications(df: pd.DataFrame, over: str) -> Tuple[List[str], List[str], List[pd.DataFrame]]:
    """The metric columns of ``df``, the columns that identify a sweep
    point, and the rows of each point (its replications over ``over``)."""
    metrics = [m for m in SUMMARY_METRICS if m in df.columns]
    metrics += sorted(c for c in df.columns if c.startswith("goodput_mean_") and c not in metrics)
    skip = set(metrics) | {over, "key", "cached", "events", "wall_s", "cpu_s", "flows"} | {
        c for c in df.columns if c.startswith("flows_")}
    by = [c for c in df.columns if c not in skip]
    if not by:
        return metrics, by, [df]
    keyed = df[by].apply(lambda r: json.dumps(list(r), default=str), axis=1)
    return metrics, by, [df[keyed == k] for k in dict.fromkeys(keyed)]


def identical_replications(df: pd.DataFrame, over: str = "seed") -> Tuple[int, int]:
    """How many sweep points ran two or more replications over ``over``
    whose metrics are all identical, and how many ran two or more: a
    scenario with no random component gives the same run for every seed."""
    metrics, _, groups = _replications(df, over)
    replicated = [g for g in groups if len(g) >= 2]
    if not metrics:
        return 0, len(replicated)
    same = sum(all(g[m].astype(str).nunique() == 1 for m in metrics) for g in replicated)
    return same, len(replicated)


#: Files of a TLS client's :func:`dask_security`: the CA certificate that
#: signed the scheduler's, this client's certificate and its private key.
TLS_FILES = ("ca_file", "cert", "key")


def _pem_kind(path: Path) -> str:
    """What a PEM file holds: "certificate", "key", "both" or "" (none)."""
    try:
        text = path.read_text(encoding="ascii", errors="replace")
    except OSError:
        return ""
    cert, key = "-----BEGIN CERTIFICATE-----" in text, "PRIVATE KEY-----" in text
    return "both" if cert and key else "certificate" if cert else "key" if key else ""


def dask_security(ca_file: Optional[Union[str, os.PathLike]] = None,
                  cert: Optional[Union[str, os.PathLike]] = None,
                  key: Optional[Union[str, os.PathLike]] = None,
                  options: Sequence[str] = ("ca_file", "cert", "key")):
    """A ``distributed.security.Security`` for a mutual-TLS client
    (``require_encryption=True``): ``ca_file`` is the CA certificate that
    signed the scheduler's (and the workers') certificates, ``cert`` and
    ``key`` this client's certificate and private key, all PEM files
    (``key`` may be left out when ``cert`` holds the key too). Each file is
    checked first, and a problem is a :class:`UserError` naming the
    setting (``options`` gives the names to use: the CLI passes its
    ``--tls-*`` flags), the value and what is allowed."""
    given = dict(zip(TLS_FILES, (ca_file, cert, key)))
    names = dict(zip(TLS_FILES, options))
    for what in ("ca_file", "cert"):
        if given[what] is None:
            other = ", ".join(names[w] for w in TLS_FILES if given[w] is not None)
            raise UserError(f"{names[what]} is missing: a TLS connection to the Dask scheduler needs "
                            f"{names['ca_file']} (the CA certificate that signed the scheduler's), "
                            f"{names['cert']} and {names['key']} (this client's certificate and key, "
                            f"signed by the same CA)" + (f"; only {other} given" if other else ""))
    wants = {"ca_file": ("certificate", "both"), "cert": ("certificate", "both"), "key": ("key", "both")}
    what_is = {"ca_file": "a PEM CA certificate (-----BEGIN CERTIFICATE-----)",
               "cert": "a PEM certificate (-----BEGIN CERTIFICATE-----)",
               "key": "a PEM private key (-----BEGIN ... PRIVATE KEY-----)"}
    paths: Dict[str, Optional[str]] = {}
    for what in TLS_FILES:
        v = given[what]
        if v is None:
            paths[what] = None
            continue
        path = Path(v)
        if not path.is_file():
            why = "is a directory" if path.is_dir() else "no such file"
            raise UserError(f"{names[what]} {str(v)!r}: {why}; expected {what_is[what]}")
        if not os.access(path, os.R_OK):
            raise UserError(f"{names[what]} {str(v)!r}: not readable by this user; expected {what_is[what]}")
        if _pem_kind(path) not in wants[what]:
            raise UserError(f"{names[what]} {str(v)!r}: not {what_is[what]}")
        paths[what] = str(path)
    if paths["key"] is None and _pem_kind(Path(paths["cert"])) != "both":
        raise UserError(f"{names['key']} is missing: {names['cert']} {str(cert)!r} holds no private key; give "
                        f"the key file that goes with it")
    try:
        from distributed.security import Security
    except ImportError:
        raise UserError(
            "the dask backend needs dask.distributed: pip install 'dask[distributed]' (docs/cluster.md)"
        ) from None
    try:
        return Security(tls_ca_file=paths["ca_file"], tls_client_cert=paths["cert"],
                        tls_client_key=paths["key"], require_encryption=True)
    except Exception as exc:  # an old OpenSSL, a bad setting
        raise UserError(f"cannot set up TLS for the Dask client: {exc}") from None


def _as_security(security: Any):
    """``security`` as a ``Security`` object: one already, or a mapping of
    :data:`TLS_FILES` (passed to :func:`dask_security`), or None."""
    if security is None or not isinstance(security, Mapping):
        return security
    extra = sorted(set(security) - set(TLS_FILES))
    if extra:
        raise UserError(f"security: unknown keys {', '.join(map(repr, extra))}; allowed: {', '.join(TLS_FILES)} "
                        "(or a distributed.security.Security)")
    return dask_security(**{k: security.get(k) for k in TLS_FILES})


def _dask_tls_configured() -> bool:
    """Whether Dask's own configuration gives a client certificate
    (``DASK_DISTRIBUTED__COMM__TLS__CA_FILE`` and ``..._CLIENT__CERT``
    environment variables, or a dask config file), which a ``Client``
    without ``security`` then uses."""
    try:
        import dask.config
    except ImportError:
        return False
    get = dask.config.get
    return bool(get("distributed.comm.tls.ca-file", None) and get("distributed.comm.tls.client.cert", None))


def _check_dask_address(address: Optional[str], security: Any, options: Sequence[str]) -> Optional[str]:
    """The scheduler address to connect to; a tls:// address needs
    ``security`` and ``security`` needs a TLS address (a bare HOST:PORT
    becomes tls://HOST:PORT)."""
    opt_addr, opt_sec = options
    if not address:
        if security is not None:
            raise UserError(f"certificates ({opt_sec}) go with a TLS scheduler address ({opt_addr} "
                            "tls://HOST:PORT); a local Dask cluster (no address) needs none")
        return address
    scheme, sep, _ = address.partition("://")
    if security is None:
        if sep and scheme == "tls" and not _dask_tls_configured():
            raise UserError(f"{opt_addr} {address!r}: a tls:// scheduler needs certificates: give {opt_sec} "
                            "(docs/cluster.md, 'Keeping the scheduler private')")
        return address
    if not sep:
        return f"tls://{address}"
    if scheme != "tls":
        raise UserError(f"{opt_addr} {address!r}: certificates ({opt_sec}) need a tls:// address, not {scheme}://; "
                        f"allowed: tls://HOST:PORT or HOST:PORT")
    return address


def _dask_client(address: Optional[str], workers: Optional[int], security: Any = None):
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise UserError(
            "the dask backend needs dask.distributed: pip install 'dask[distributed]' (in a source "
            "checkout the extra 'ccsim[dask]', pip install '.[dask]', brings the same)"
        ) from None
    if address:
        kw = {} if security is None else {"security": security}
        try:
            return Client(address, **kw), None
        except ValueError as exc:  # an unknown scheme, a malformed address
            raise UserError(f"Dask scheduler address {address!r}: {exc}; allowed: tcp://HOST:PORT, "
                            "tls://HOST:PORT (with certificates) or HOST:PORT") from None
        except (OSError, TimeoutError) as exc:
            hint = ""
            if address.startswith("tls://"):
                hint = ("; with TLS, check that the scheduler runs with --tls-ca-file, --tls-cert and --tls-key "
                        "and that this client's certificate is signed by the CA the scheduler was given")
            raise UserError(f"cannot connect to the Dask scheduler at {address}: {exc}{hint}") from None
    cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                           processes=True, dashboard_address=None)
    return Client(cluster), cluster


def _seed_grid(base_d: Mapping[str, Any], grid: Grid, seeds: int) -> Grid:
    """Add a ``seed`` axis of ``seeds`` values (the base seed, +1, ...)."""
    if not isinstance(seeds, int) or isinstance(seeds, bool) or seeds < 1:
        raise UserError(f"seeds must be an integer >= 1, got {seeds!r}")
    first = base_d.get("seed", 1)
    if not isinstance(first, int) or isinstance(first, bool):
        raise UserError(f"seeds: the scenario's seed must be an integer to count from, got {first!r}")
    values = [first + i for i in range(seeds)]
    if isinstance(grid, Mapping):
        if "seed" in grid:
            raise UserError("seeds: the grid already sweeps 'seed'; give one or the other")
        return {**dict(grid), "seed": values}
    points = [dict(p) for p in grid]
    if any("seed" in p for p in points):
        raise UserError("seeds: a grid point already sets 'seed'; give one or the other")
    return [{**p, "seed": s} for p in points for s in values]


#: The progress setting of sweeps that are not given one (``progress=None``):
#: ``ccsim reproduce --quiet`` / ``--progress`` set it around an experiment,
#: whose sweeps are made deep inside its module (:func:`progress_default`).
_PROGRESS_DEFAULT: contextvars.ContextVar[Optional[bool]] = contextvars.ContextVar("progress", default=None)


@contextlib.contextmanager
def progress_default(progress: Optional[bool]):
    """Within this block, sweeps called with ``progress=None`` use
    ``progress`` (False: no bar; True: a bar even off a terminal; None:
    on a terminal only)."""
    token = _PROGRESS_DEFAULT.set(progress)
    try:
        yield
    finally:
        _PROGRESS_DEFAULT.reset(token)


#: A progress bar that sweeps report into instead of drawing their own
#: (:func:`progress_into`).
_SHARED_BAR: contextvars.ContextVar[Optional[Any]] = contextvars.ContextVar("shared_bar", default=None)


@contextlib.contextmanager
def progress_into(bar: Any):
    """Within this block, every sweep adds its runs still to compute to
    ``bar``'s total and advances it as they finish, drawing no bar of its
    own: one bar over many sweeps (``ccsim reproduce --all``)."""
    token = _SHARED_BAR.set(bar)
    try:
        yield
    finally:
        _SHARED_BAR.reset(token)


def execute(payloads: Mapping[Any, str], collect, workers: Optional[int] = None, backend: str = "process",
            address: Optional[str] = None, security: Any = None) -> None:
    """Run every scenario JSON of ``payloads`` (tag -> scenario JSON) on
    ``backend`` and call ``collect(tag, get)`` as each finishes, where
    ``get()`` returns the results JSON or raises the run's error. Runs go
    to the workers in the order of ``payloads``. Interrupted (Ctrl-C, or
    ``collect`` raising), the queue is dropped and the workers stopped;
    what ``collect`` already stored stays. ``security`` (dask only) is a
    ``distributed.security.Security`` for a tls:// ``address``
    (:func:`dask_security`)."""
    if not payloads:
        return
    n_workers = min(workers or os.cpu_count() or 1, max(len(payloads), 1))
    if backend == "dask":
        client, cluster = _dask_client(address, workers, security)
        try:
            if cluster is None:
                _check_workers(client, address)
            from dask.distributed import as_completed as dask_completed

            _upload_controllers(client, payloads.values())
            futures = {client.submit(_run_json, p, pure=False, key=f"ccsim-{_tag_name(t)}"): t
                       for t, p in payloads.items()}
            for fut in dask_completed(futures):
                collect(futures[fut], fut.result)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    elif backend == "inprocess":
        # In-process: no pickling, and tracebacks/debuggers work as usual.
        for tag, p in payloads.items():
            collect(tag, lambda p=p: _run_json(p))
    else:
        with ProcessPoolExecutor(max_workers=n_workers, initializer=_worker_init,
                                 initargs=(os.getpid(),)) as pool:
            futures = {pool.submit(_run_json, p): t for t, p in payloads.items()}
            try:
                for fut in as_completed(futures):
                    collect(futures[fut], fut.result)
            except BaseException:
                # Interrupted or failed: keep what finished, drop the queue.
                pool.shutdown(wait=False, cancel_futures=True)
                raise


def _worker_engine() -> str:
    """Run on every Dask worker: the ccsim engine build it has."""
    from ccsim._native import core as _core_mod

    return _core_mod().engine_id()


def _check_workers(client: Any, address: Optional[str]) -> None:
    """Refuse a cluster whose workers run another ccsim than this client
    (a result is stored under this client's engine version, so a worker
    with another engine would fill the cache with runs labelled wrongly),
    or none at all. Workers that join later are not asked."""
    mine = _engine_version()
    try:
        theirs = client.run(_worker_engine)
    except Exception as exc:
        raise UserError(f"a worker of the Dask cluster at {address} cannot run ccsim ({type(exc).__name__}: "
                        f"{exc}); install the same ccsim wheel as this client's on every worker "
                        "(docs/cluster.md)") from None
    other = {w: v for w, v in theirs.items() if v != mine}
    if other:
        shown = ", ".join(f"{w} has {v}" for w, v in sorted(other.items())[:5])
        raise UserError(f"{len(other)} of {len(theirs)} workers of the Dask cluster at {address} run another "
                        f"ccsim engine than this client's {mine} ({shown}); install the same wheel everywhere "
                        "(docs/cluster.md)")


def _tag_name(tag: Any) -> str:
    """A Dask task key for a payload tag (a run key, or a tuple holding one)."""
    return "-".join(map(str, tag)) if isinstance(tag, tuple) else str(tag)


def sweep(
    base_scenario: Union[Scenario, Mapping[str, Any], str, os.PathLike],
    grid: Grid,
    out_dir: Union[str, os.PathLike],
    workers: Optional[int] = None,
    backend: str = "process",
    progress: Optional[bool] = None,
    address: Optional[str] = None,
    run: bool = True,
    seeds: Optional[int] = None,
    group_by: Optional[str] = None,
    security: Any = None,
    _options: Optional[Mapping[str, str]] = None,
) -> pd.DataFrame:
    """Run ``base_scenario`` at every point of ``grid``; return one row per
    run (or, with ``group_by``, per group of a run's flows).

    ``grid`` maps dotted paths (``"topology.bottleneck_rate_bps"``,
    ``"flows.0.cc"``, ``"flows.*.rtt_s"``) to lists of values, or is a list
    of override dicts. A flow's ``cc_params`` may hold one table per
    controller, and a ``cc`` value may bundle ``{cc, cc_params}``
    (:func:`resolve_cc_params`). ``seeds=N`` adds a ``seed`` axis of N
    values counting from the scenario's seed (:func:`summarise` then gives
    means and 95% confidence intervals).

    Results are cached in ``out_dir/runs/<key>.json``; finished runs are
    never recomputed. ``backend`` is ``"process"`` (a local process pool of
    ``workers``, default all cores), ``"inprocess"`` (always in this process) or
    ``"dask"`` (a ``dask.distributed`` cluster at ``address``, or a local
    one). Every backend gives identical results. Columns: the grid paths,
    ``goodput_mean_bps`` (NaN when flow classes are mixed),
    ``goodput_mean_<class>_bps`` and ``flows_<class>`` per flow class
    (tcp, xcp, etcp, udp), ``goodput_total_bps``, ``utilization`` and
    ``loss_rate`` (first monitored link), ``jain_index``, ``events``,
    ``wall_s`` and ``cpu_s`` (the run's wall and CPU time), ``key`` and
    ``cached`` (True when the row came from the cache).

    ``group_by`` splits each run's row by a flow field: ``"cc"`` gives one
    row per controller of the run (BBR and CUBIC flows of one run are not
    averaged together), with the field as a column after the grid values
    and the group's ``goodput_mean_bps``, ``goodput_total_bps``,
    ``goodput_share`` and ``flows`` (:func:`group_rows`); any field of the
    flows' results (:data:`GROUP_FLOW_FIELDS`) or of a ``[[flows]]`` entry
    can be given. ``"auto"`` groups by ``cc`` when some run's TCP flows mix
    controllers and keeps one row per run otherwise (``ccsim sweep``'s
    default); ``None`` (the default here, which experiments rely on) or
    ``"none"``: one row per run. ``df.attrs["runs"]``,
    ``df.attrs["runs_cached"]`` and ``df.attrs["group_by"]`` say how many
    runs the rows hold, how many came from the cache, and what split them
    (None: not split).

    ``security`` (dask with a ``tls://`` ``address``): a
    ``distributed.security.Security``, or a mapping ``{"ca_file": ...,
    "cert": ..., "key": ...}`` of PEM files (:func:`dask_security`); the
    client then talks to the scheduler over mutual TLS only.

    ``progress`` shows a bar with ETA on stderr, cached runs counting as
    done: ``None`` (default) only when stderr is a terminal, ``True``
    always, ``False`` never.

    ``run=False`` reads the cache only: if any point has no cached result
    (or one made by another engine version) nothing runs and
    :class:`MissingRuns` is raised, naming how many and which.
    """
    if backend not in BACKENDS:
        raise UserError(f"unknown sweep backend {backend!r}; allowed: {', '.join(BACKENDS)}")
    if workers is not None and workers < 1:
        raise UserError(f"workers must be >= 1, got {workers}")
    opt = {"group_by": "group_by", "address": "address", "security": "security", **(_options or {})}
    if security is not None and backend != "dask":
        raise UserError(f"{opt['security']} goes with the dask backend and a tls:// {opt['address']}; "
                        f"backend is {backend!r}")
    if backend == "dask":
        security = _as_security(security)
        address = _check_dask_address(address, security, (opt["address"], opt["security"]))
    out = Path(out_dir)
    if seeds is not None:
        grid = _seed_grid(as_scenario_dict(base_scenario), grid, seeds)
    specs = plan(base_scenario, grid)
    group = check_group_by(group_by, specs, opt["group_by"])
    version = _engine_version()
    if run:
        _clean_stale_tmp(out)

    rows: List[Optional[Dict[str, Any]]] = [None] * len(specs)
    split: List[Optional[List[Dict[str, Any]]]] = [None] * len(specs)  # rows per flow group
    mixed = [False]  # some run's TCP flows mix controllers (group_by "auto")
    field = "cc" if group == "auto" else group

    def tabulate(i: int, results: Mapping[str, Any], cached: bool) -> None:
        rows[i] = _row(specs[i], results, cached)
        if field is not None:
            split[i] = group_rows(specs[i], results, cached, field)
            mixed[0] = mixed[0] or mixes_controllers(results)

    todo: Dict[str, List[int]] = {}  # key -> indices (identical points run once)
    for i, spec in enumerate(specs):
        cached = _load_cached(out, spec.key, version)
        if cached is not None:
            tabulate(i, cached, True)
        else:
            todo.setdefault(spec.key, []).append(i)
    if todo and not run:
        raise MissingRuns(out, [specs[idx[0]] for idx in todo.values()], len(specs))

    bar, shared = None, _SHARED_BAR.get()
    if progress is None:
        progress = _PROGRESS_DEFAULT.get()
    if shared is not None and todo:
        # A caller's bar over more than this sweep (``ccsim reproduce --all``):
        # this sweep's new runs join its total.
        shared.total += len(todo)
        shared.refresh()
    elif progress is not False and todo:
        from tqdm.auto import tqdm

        n_cached = len(specs) - sum(map(len, todo.values()))
        bar = tqdm(total=len(specs), initial=n_cached, unit="run", desc="sweep",
                   disable=None if progress is None else False, file=sys.stderr)
        if n_cached:
            bar.set_postfix_str(f"{n_cached} cached", refresh=False)

    def done(key: str, results_json: str) -> None:
        idx = todo[key]
        results = _store(out, specs[idx[0]], results_json, version)
        for i in idx:
            tabulate(i, results, False)
        if bar is not None:
            bar.update(len(idx))
        elif shared is not None:
            shared.update(1)

    def failed(key: str, exc: BaseException) -> UserError:
        return UserError(f"sweep run {describe_run(specs[todo[key][0]])} failed: {exc}")

    def collect(key: str, get) -> None:
        """Store the result ``get()`` returns, naming the run if it failed."""
        try:
            res = get()
        except Exception as exc:
            raise failed(key, exc) from exc
        done(key, res)

    try:
        payloads = {key: dumps(specs[idx[0]].scenario) for key, idx in todo.items()}
        execute(payloads, collect, workers=workers, backend=backend, address=address, security=security)
    finally:
        if bar is not None:
            bar.close()

    if field is not None and (group != "auto" or mixed[0]):
        df = pd.DataFrame([r for part in split for r in part or []])
    else:
        df, field = pd.DataFrame(rows), None
    df.attrs["runs"] = len(specs)
    df.attrs["runs_cached"] = sum(bool(r and r["cached"]) for r in rows)
    df.attrs["group_by"] = field
    return df


def write_table(df: pd.DataFrame, out_dir: Union[str, os.PathLike], stem: str = "sweep") -> List[Path]:
    """Write ``<stem>.csv`` and ``<stem>.parquet``.

    Parquet needs one type per column; a grid mixing types (``[1, "auto"]``)
    or holding lists cannot always be stored, so those columns are written
    as JSON text in the Parquet file (CSV keeps them as they print).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    csv_path, pq_path = out / f"{stem}.csv", out / f"{stem}.parquet"
    df.to_csv(csv_path, index=False)
    try:
        df.to_parquet(pq_path, index=False)
    except Exception:
        fixed = df.copy()
        for col in fixed.columns:
            if fixed[col].dtype == object:
                fixed[col] = [json.dumps(v, default=str) for v in fixed[col]]
        fixed.to_parquet(pq_path, index=False)
    return [csv_path, pq_path]
