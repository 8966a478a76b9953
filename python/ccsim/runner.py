"""``ccsim.run``: one scenario through the engine, with optional progress.

The engine advances in chunks of simulated time rather than one
``finish_columns()`` call, for two reasons: a progress bar can show simulated
seconds, and Ctrl-C is honoured between chunks (``run_until`` releases the
GIL but Python only handles signals when it regains control). Each chunk
aims at :data:`CHUNK_WALL_S` of wall time (the first is tiny, and the next
is scaled by how long the last took), so the bar moves and Ctrl-C answers
within a fraction of a second however slow the scenario is; a chunk is at
most :data:`CHUNK_FRACTION` of the duration. Chunking does not change
results: ``run_until`` processes exactly the events up to its time.
"""

from __future__ import annotations

import contextlib
import math
import os
import shutil
import time
import warnings
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

from ._native import ScenarioWarning, UserError, core, dumps
from .results import Results
from .scenario import Scenario, as_scenario_dict

__all__ = ["run"]

#: Largest fraction of the duration simulated per ``run_until`` call.
CHUNK_FRACTION = 0.01
#: Fraction of the duration of the first ``run_until`` call.
FIRST_CHUNK_FRACTION = 1e-5
#: Wall seconds each later ``run_until`` call aims at.
CHUNK_WALL_S = 0.25
#: Seconds of wall time before the default bar (``progress=None``, on a
#: terminal) appears: runs shorter than that stay silent.
PROGRESS_DELAY_S = 2.0


#: Bytes of one cell of an output table on disk, at most: Parquet stores a
#: number in 8 bytes before compression (strings are dictionary-encoded, in
#: fewer), and CSV writes a float in at most 24 characters and a comma
#: (``-1.2345678901234567e-300,``). Parquet usually compresses well below
#: this (the 100,000-flow run of docs/reliability.md: 9.3 MB written for an
#: estimate of 132 MB), so the estimate is an upper bound on incompressible
#: results.
PARQUET_CELL_BYTES = 8
CSV_CELL_BYTES = 25
#: Columns of a row of each table (docs/scenario.md, "Results"): a flow's
#: and a link's summary row, and a flow's and a link's series row (the
#: base columns; E-TCP and XCP flows add up to five more).
FLOW_COLUMNS = 20
LINK_COLUMNS = 19
SERIES_COLUMNS = 6
#: ``summary.json`` lists at most ``results.SUMMARY_MAX_ROWS`` rows of a
#: table, each at most this many bytes indented.
SUMMARY_ROW_BYTES = 1000


def _gb(b: float) -> str:
    return f"{b / 1e9:.3f} GB"


def output_estimate(sim, csv: bool = False) -> Dict[str, float]:
    """What :meth:`Results.write` will put on disk for the simulation
    ``sim`` as built (an upper bound, in bytes): ``tables`` (summary.json,
    flows and links tables) and ``series`` (the three series), with the
    counts behind them. Workload transfers (web users) and taps are not
    counted: they depend on the run."""
    from .results import SUMMARY_MAX_ROWS

    cell = PARQUET_CELL_BYTES + (CSV_CELL_BYTES if csv else 0)
    flows, links, monitored = sim.flow_count, sim.link_count, sim.monitored_link_count
    interval = float(sim.sample_interval_s)
    samples = math.floor(float(sim.duration_s) / interval) + 1 if interval > 0 else 0
    # a flow's and a monitored link's row per sample, and Jain's index
    sample_bytes = ((flows + monitored) * SERIES_COLUMNS + 2) * cell
    summary = 2 * min(max(flows, links), SUMMARY_MAX_ROWS) * SUMMARY_ROW_BYTES
    return {
        "flows": flows, "links": links, "monitored": monitored, "samples": samples,
        "sample_bytes": sample_bytes,
        "tables": summary + (flows * FLOW_COLUMNS + links * LINK_COLUMNS) * cell,
        "series": samples * sample_bytes,
    }


def ensure_output_dir(out: Union[str, os.PathLike], field: str = "--out") -> Path:
    """Create the directory ``out`` (and its parents) and check that a file
    can be written in it; otherwise a :class:`UserError` naming ``field``,
    the directory and the operating system's reason."""
    import tempfile

    path = Path(out)
    try:
        if path.exists() and not path.is_dir():
            raise UserError(f"{field} {os.fspath(out)!r}: is a file, not a directory; give a directory to write into")
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise UserError(f"{field} {os.fspath(out)!r}: cannot create or write the output directory: "
                        f"{exc.strerror or exc}" + (f" ({exc.filename})" if exc.filename not in (None, os.fspath(out))
                                                    else "")) from None
    return path


def free_bytes(out: Union[str, os.PathLike]) -> float:
    """Free bytes on the file system that will hold ``out`` (its nearest
    existing ancestor: ``out`` itself may not exist yet)."""
    p = Path(out).absolute()
    while not p.exists() and p != p.parent:
        p = p.parent
    return float(shutil.disk_usage(p).free)


def check_output_space(sim, scenario: Mapping[str, Any], out: Union[str, os.PathLike], csv: bool = False,
                       free: Optional[float] = None) -> None:
    """Refuse, before running, a run whose results files cannot fit on the
    disk under ``out`` (``free`` bytes; by default what the file system
    reports), naming the field that decides it with the figures: the
    largest ``flows[i].count`` when the per-flow and per-link tables alone
    do not fit, else ``sample_interval_s`` with the smallest interval that
    fits. Memory is checked by the engine when it builds the run
    (``BYTES_PER_FLOW``, ``BYTES_PER_SERIES_ROW`` in validate.rs)."""
    est = output_estimate(sim, csv)
    if free is None:
        free = free_bytes(out)
    if est["tables"] + est["series"] <= free:
        return
    fmt = "Parquet and CSV" if csv else "Parquet"
    where = f"{os.fspath(out)!r} (its file system has {_gb(free)} free)"
    # samples that fit beside the tables; with none (not even the one at
    # time 0) no interval helps and the flows are named instead
    room = math.floor((free - est["tables"]) / est["sample_bytes"]) if est["series"] > 0 else 0
    if room >= 1:
        # floor(d / i) + 1 <= room exactly when i > d / room (+1%)
        interval = float(sim.duration_s) / room * 1.01
        interval = math.ceil(interval * 1e6) / 1e6
        raise UserError(
            f"scenario.sample_interval_s: {sim.sample_interval_s:g} s gives {est['samples']} samples x "
            f"{est['flows'] + est['monitored'] + 1} series rows (flows, monitored links, fairness) = about "
            f"{_gb(est['series'])} of {fmt} series (up to {PARQUET_CELL_BYTES} B per value before compression) "
            f"beside {_gb(est['tables'])} of tables; that does not fit in {where}: use sample_interval_s >= "
            f"{interval:g} s, or 0 for no series, or free some space")
    entries = list(scenario.get("flows") or [{}])
    i = max(range(len(entries)), key=lambda k: entries[k].get("count", 1) if isinstance(entries[k], Mapping) else 1)
    count = entries[i].get("count", 1) if isinstance(entries[i], Mapping) else 1
    raise UserError(
        f"scenario.flows[{i}].count: {count} is too many for the disk: {est['flows']} flows and "
        f"{est['links']} link directions make about {_gb(est['tables'])} of {fmt} tables "
        f"(up to {PARQUET_CELL_BYTES} B per value before compression)"
        + (f" and {_gb(est['series'])} of series" if est["series"] else "")
        + f"; that does not fit in {where}")


def simulation(scenario: Union[Scenario, Mapping[str, Any], str, os.PathLike]):
    """Build an engine ``Simulation``; invalid input raises :class:`UserError`."""
    d = as_scenario_dict(scenario)
    try:
        return core().Simulation(dumps(d))
    except ValueError as exc:
        raise UserError(str(exc)) from exc


def late_starts(scenario: Mapping[str, Any], duration_s: float) -> List[str]:
    """A warning per ``[[flows]]`` entry of a valid ``scenario`` whose
    ``start_s`` is not before the end of the run: its flows never send.
    Such a scenario is valid (a sweep over ``duration_s`` may cut a late
    flow off), so it runs; its flows' rows show 0 goodput."""
    out = []
    for i, f in enumerate(scenario.get("flows") or []):
        start = f.get("start_s", 0.0) if isinstance(f, Mapping) else 0.0
        if isinstance(start, (int, float)) and not isinstance(start, bool) and start >= duration_s:
            n = f.get("count", 1)
            flows = ("its flow starts", "sends") if n == 1 else (f"its {n} flows start", "send")
            out.append(f"scenario.flows[{i}].start_s: {start:g} s is not before duration_s ({duration_s:g} s): "
                       f"{flows[0]} after the run ends and {flows[1]} nothing (0 goodput); start_s must be < "
                       f"{duration_s:g} for the flow to run")
    return out


Taps = Optional[Mapping[str, Union[str, os.PathLike]]]


def _attach(sim, taps: Taps, kind: str, field: str) -> None:
    """Attach ``{link: path}`` taps of ``kind`` (``pcap`` or ``trace``)."""
    if not taps:
        return
    if not isinstance(taps, Mapping):
        raise UserError(f"{field} must map link names to file paths, e.g. {{'bottleneck': 'b.pcap'}}; "
                        f"got {type(taps).__name__}")
    add = sim.add_pcap if kind == "pcap" else sim.add_trace
    for link, path in taps.items():
        try:
            add(str(link), os.fspath(path), field)
        except ValueError as exc:
            # Engine errors read "scenario.FIELD: ..."; an option is not a scenario field.
            msg = str(exc)
            raise UserError(msg[len("scenario."):] if field.startswith("-") else msg) from exc


def run(
    scenario: Union[Scenario, Mapping[str, Any], str, os.PathLike],
    progress: Optional[bool] = False,
    pcap: Taps = None,
    trace: Taps = None,
    *,
    _fields: tuple = ("pcap", "trace"),
    _out: Optional[Tuple[Union[str, os.PathLike], bool]] = None,
) -> Results:
    """Run one scenario to completion and return its :class:`Results`.

    ``scenario`` is a :class:`Scenario`, a plain dict in the schema of
    docs/scenario.md, or a path to a .toml/.json file. ``progress=True``
    shows a tqdm bar on stderr from the start, terminal or not: simulated
    seconds done and in total, events per second of wall time and the
    time left; ``None`` shows it only when stderr is a terminal and the
    run has lasted :data:`PROGRESS_DELAY_S` (about two seconds), so short
    runs stay silent; ``False`` never shows it.

    ``pcap`` and ``trace`` map link names (as ``Results.links`` lists them,
    e.g. ``"r0->r1"``, or ``"bottleneck"`` / ``"bottleneck-rev"`` on a
    dumbbell or parking lot) to files: a pcap of the packets leaving that
    link direction and an ns-2 format trace of its ``+ - d r`` events
    (docs/cli.md, "Packet captures and ns-2 traces"). Files stream to disk;
    taps never change the simulation's results.

    ``_out = (directory, csv)`` (``ccsim run``) first creates that directory
    and checks that it is writable (:func:`ensure_output_dir`) and that the
    results files will fit on its disk (:func:`check_output_space`).
    """
    scenario = as_scenario_dict(scenario)
    sim = simulation(scenario)
    for msg in late_starts(scenario, float(sim.duration_s)):
        warnings.warn(msg, ScenarioWarning, stacklevel=2)
    if _out is not None:
        existed = Path(_out[0]).exists()
        ensure_output_dir(_out[0])
        try:
            check_output_space(sim, scenario, *_out)
        except UserError:
            if not existed:  # a refused run leaves no empty directory behind
                with contextlib.suppress(OSError):
                    Path(_out[0]).rmdir()
            raise
    _attach(sim, pcap, "pcap", _fields[0])
    _attach(sim, trace, "trace", _fields[1])
    duration = float(sim.duration_s)
    bar = _progress_bar(duration, progress)
    try:
        t = float(sim.now_s)
        step = max(duration * FIRST_CHUNK_FRACTION, 1e-9)
        largest = max(duration * CHUNK_FRACTION, 1e-9)
        start, events0 = time.perf_counter(), int(sim.events)
        while t < duration:
            target = min(duration, t + step)
            began = time.perf_counter()
            sim.run_until(target)
            took = time.perf_counter() - began
            now = float(sim.now_s)
            if bar is not None:
                wall = time.perf_counter() - start
                if wall > 0:
                    bar.set_postfix_str(f"{_si((int(sim.events) - events0) / wall)} events/s", refresh=False)
                bar.update(now - t)
            # Guard against an engine that stops short of the target (for
            # example when the event queue empties): finish_columns() completes it.
            if now <= t:
                break
            t = now
            # the next chunk: about CHUNK_WALL_S of wall time at the pace of
            # this one (growing at most 4x a chunk)
            grow = CHUNK_WALL_S / took if took > 0 else 4.0
            step = min(largest, max(step * min(grow, 4.0), 1e-9))
        try:
            parts = sim.finish_columns()
        except OSError as exc:
            raise UserError(str(exc)) from exc
        return Results.from_engine(parts)
    finally:
        if bar is not None:
            bar.close()


def _progress_bar(duration: float, progress: Optional[bool]):
    """The bar of :func:`run` (see its ``progress``), or None."""
    if progress is False:
        return None
    import sys

    from tqdm.auto import tqdm

    return tqdm(
        total=duration,
        desc="simulating",
        file=sys.stderr,
        # disable=None: tqdm switches itself off when stderr is not a TTY.
        disable=None if progress is None else False,
        delay=PROGRESS_DELAY_S if progress is None else 0,
        bar_format="{l_bar}{bar}| {n:.4g}/{total:.4g} sim-s [{elapsed}<{remaining}{postfix}]",
    )


def _si(x: float) -> str:
    """``2.1M``: a rate with an SI prefix, three digits."""
    for div, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.3g}{prefix}"
    return f"{x:.3g}"
