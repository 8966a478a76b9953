"""``ccsim.run``: one scenario through the engine, with optional progress.

The engine advances in chunks of about 1% of simulated time rather than one
``finish()`` call, for two reasons: a progress bar can show simulated seconds,
and Ctrl-C is honoured between chunks (``run_until`` releases the GIL but
Python only handles signals when it regains control).
"""

from __future__ import annotations

import math
import os
import shutil
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Tuple, Union

from ._native import UserError, core, dumps
from .results import Results
from .scenario import Scenario, as_scenario_dict

__all__ = ["run"]

#: Fraction of the duration simulated per ``run_until`` call.
CHUNK_FRACTION = 0.01
#: Seconds of wall time before a bar appears: short runs stay silent.
PROGRESS_DELAY_S = 1.0


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
    shows a tqdm bar of simulated seconds on a terminal (it is suppressed
    when stderr is not a TTY, and for runs shorter than about a second);
    ``None`` means "only on a TTY".

    ``pcap`` and ``trace`` map link names (as ``Results.links`` lists them,
    e.g. ``"r0->r1"``, or ``"bottleneck"`` / ``"bottleneck-rev"`` on a
    dumbbell or parking lot) to files: a pcap of the packets leaving that
    link direction and an ns-2 format trace of its ``+ - d r`` events
    (docs/cli.md, "Packet captures and ns-2 traces"). Files stream to disk;
    taps never change the simulation's results.

    ``_out = (directory, csv)`` (``ccsim run``) first checks that the results
    files will fit on that directory's disk (:func:`check_output_space`).
    """
    if _out is not None:
        scenario = as_scenario_dict(scenario)
    sim = simulation(scenario)
    if _out is not None:
        check_output_space(sim, scenario, *_out)
    _attach(sim, pcap, "pcap", _fields[0])
    _attach(sim, trace, "trace", _fields[1])
    duration = float(sim.duration_s)
    step = max(duration * CHUNK_FRACTION, 1e-9)
    bar = None
    if progress is not False:
        from tqdm.auto import tqdm

        bar = tqdm(
            total=duration,
            unit="sim-s",
            desc="simulating",
            # disable=None: tqdm switches itself off when not on a TTY.
            disable=None,
            delay=PROGRESS_DELAY_S,
            bar_format="{l_bar}{bar}| {n:.3g}/{total:.3g} sim-s [{elapsed}<{remaining}]",
        )
    try:
        t = float(sim.now_s)
        while t < duration:
            target = min(duration, t + step)
            sim.run_until(target)
            now = float(sim.now_s)
            if bar is not None:
                bar.update(now - t)
            # Guard against an engine that stops short of the target (for
            # example when the event queue empties): finish() completes it.
            if now <= t:
                break
            t = now
        try:
            raw = sim.finish()
        except OSError as exc:
            raise UserError(str(exc)) from exc
        return Results(raw)
    finally:
        if bar is not None:
            bar.close()
