"""``ccsim.run``: one scenario through the engine, with optional progress.

The engine advances in chunks of about 1% of simulated time rather than one
``finish()`` call, for two reasons: a progress bar can show simulated seconds,
and Ctrl-C is honoured between chunks (``run_until`` releases the GIL but
Python only handles signals when it regains control).
"""

from __future__ import annotations

import os
from typing import Any, Mapping, Optional, Union

from ._native import UserError, core, dumps
from .results import Results
from .scenario import Scenario, as_scenario_dict

__all__ = ["run"]

#: Fraction of the duration simulated per ``run_until`` call.
CHUNK_FRACTION = 0.01
#: Seconds of wall time before a bar appears: short runs stay silent.
PROGRESS_DELAY_S = 1.0


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
    """
    sim = simulation(scenario)
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
