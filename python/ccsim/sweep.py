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
* **Everything is validated before anything runs**, so a bad grid value fails
  in a second, not after hours of other runs.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import tempfile
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

import pandas as pd

from ._native import UserError, core, dumps, validate
from .results import Results
from .scenario import Scenario, as_scenario_dict, with_overrides

__all__ = ["sweep", "expand_grid", "run_key", "load_run", "write_table", "RunSpec", "MissingRuns"]

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
    """sha256 of the canonical JSON of an engine-normalised scenario."""
    return hashlib.sha256(dumps(normalised, canonical=True).encode("utf-8")).hexdigest()


def plan(base: Union[Scenario, Mapping[str, Any], str, os.PathLike], grid: Grid) -> List[RunSpec]:
    """Expand and validate a sweep without running it."""
    base_d = as_scenario_dict(base)
    specs = []
    for overrides in expand_grid(grid):
        d = with_overrides(base_d, overrides)
        try:
            norm = validate(d)
        except UserError as exc:
            shown = ", ".join(f"{k}={v!r}" for k, v in overrides.items())
            raise UserError(f"{exc} (in sweep point {shown or 'base scenario'})") from None
        specs.append(RunSpec(overrides, norm, run_key(norm)))
    return specs


def _run_json(scenario_json: str) -> str:
    """Worker entry point: run one scenario, return its results JSON.

    Module-level and taking/returning plain strings so it pickles for both
    ProcessPoolExecutor and Dask.
    """
    from ccsim._native import core as _core_mod

    return _core_mod().Simulation(scenario_json).finish()


def _cache_path(out_dir: Path, key: str) -> Path:
    return out_dir / "runs" / f"{key}.json"


def _engine_version() -> str:
    try:
        return core().version()
    except Exception:  # pragma: no cover - version() is part of the contract
        return "unknown"


def _store(out_dir: Path, spec: RunSpec, results_json: str, version: str) -> Dict[str, Any]:
    """Write one run's cache file atomically; return the parsed results."""
    results = json.loads(results_json)
    doc = {
        "key": spec.key,
        "engine_version": version,
        "overrides": spec.overrides,
        "scenario": spec.scenario,
        "results": results,
    }
    path = _cache_path(out_dir, spec.key)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{spec.key}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, default=str)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return results


def _load_cached(out_dir: Path, key: str, version: str) -> Optional[Dict[str, Any]]:
    """Cached results for ``key``, or None if absent, unreadable, or made by
    another engine version (results would differ; rerun rather than mix)."""
    path = _cache_path(out_dir, key)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if doc.get("key") != key or doc.get("engine_version") != version or "results" not in doc:
        return None
    return doc["results"]


def load_run(out_dir: Union[str, os.PathLike], key: str) -> Results:
    """The full :class:`Results` (series included) of one cached sweep run."""
    return Results.load(_cache_path(Path(out_dir), key))


def _row(spec: RunSpec, results: Mapping[str, Any], cached: bool) -> Dict[str, Any]:
    row: Dict[str, Any] = dict(spec.overrides)
    row.update(Results(dict(results)).headline())
    row["key"] = spec.key
    row["cached"] = cached
    return row


def _dask_client(address: Optional[str], workers: Optional[int]):
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise UserError(
            "the dask backend needs dask.distributed: pip install 'ccsim[dask]'"
        ) from None
    if address:
        return Client(address), None
    cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                           processes=True, dashboard_address=None)
    return Client(cluster), cluster


def sweep(
    base_scenario: Union[Scenario, Mapping[str, Any], str, os.PathLike],
    grid: Grid,
    out_dir: Union[str, os.PathLike],
    workers: Optional[int] = None,
    backend: str = "process",
    progress: Optional[bool] = True,
    address: Optional[str] = None,
    run: bool = True,
) -> pd.DataFrame:
    """Run ``base_scenario`` at every point of ``grid``; return one row per run.

    ``grid`` maps dotted paths (``"topology.bottleneck_rate_bps"``,
    ``"flows.0.cc"``, ``"flows.*.rtt_s"``) to lists of values, or is a list
    of override dicts. Results are cached in ``out_dir/runs/<key>.json``;
    finished runs are never recomputed. ``workers`` defaults to all cores;
    ``backend="dask"`` uses a ``dask.distributed`` cluster at ``address``
    (or a local one). Columns: the grid paths, ``goodput_mean_bps``,
    ``goodput_total_bps``, ``utilization`` and ``loss_rate`` (first
    monitored link), ``jain_index``, ``events``, ``wall_s``, ``key`` and
    ``cached`` (True when the row came from the cache).

    ``run=False`` reads the cache only: if any point has no cached result
    (or one made by another engine version) nothing runs and
    :class:`MissingRuns` is raised, naming how many and which.
    """
    if backend not in ("process", "dask"):
        raise UserError(f"unknown sweep backend {backend!r}; allowed: process, dask")
    if workers is not None and workers < 1:
        raise UserError(f"workers must be >= 1, got {workers}")
    out = Path(out_dir)
    specs = plan(base_scenario, grid)
    version = _engine_version()

    rows: List[Optional[Dict[str, Any]]] = [None] * len(specs)
    todo: Dict[str, List[int]] = {}  # key -> indices (identical points run once)
    for i, spec in enumerate(specs):
        cached = _load_cached(out, spec.key, version)
        if cached is not None:
            rows[i] = _row(spec, cached, True)
        else:
            todo.setdefault(spec.key, []).append(i)
    if todo and not run:
        raise MissingRuns(out, [specs[idx[0]] for idx in todo.values()], len(specs))

    bar = None
    if progress is not False and todo:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(specs), initial=len(specs) - sum(map(len, todo.values())),
                   unit="run", desc="sweep", disable=None)

    def done(key: str, results_json: str) -> None:
        idx = todo[key]
        results = _store(out, specs[idx[0]], results_json, version)
        for i in idx:
            rows[i] = _row(specs[i], results, False)
        if bar is not None:
            bar.update(len(idx))

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
        n_workers = min(workers or os.cpu_count() or 1, max(len(payloads), 1))
        if not payloads:
            pass
        elif backend == "dask":
            client, cluster = _dask_client(address, workers)
            try:
                from dask.distributed import as_completed as dask_completed

                futures = {client.submit(_run_json, p, pure=False, key=f"ccsim-{k}"): k
                           for k, p in payloads.items()}
                for fut in dask_completed(futures):
                    collect(futures[fut], fut.result)
            finally:
                client.close()
                if cluster is not None:
                    cluster.close()
        elif n_workers == 1:
            # In-process: no pickling, and tracebacks/debuggers work as usual.
            for key, p in payloads.items():
                collect(key, lambda p=p: _run_json(p))
        else:
            with ProcessPoolExecutor(max_workers=n_workers) as pool:
                futures = {pool.submit(_run_json, p): k for k, p in payloads.items()}
                try:
                    for fut in as_completed(futures):
                        collect(futures[fut], fut.result)
                except BaseException:
                    # Interrupted or failed: keep what finished, drop the queue.
                    pool.shutdown(wait=False, cancel_futures=True)
                    raise
    finally:
        if bar is not None:
            bar.close()

    return pd.DataFrame(rows)


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
