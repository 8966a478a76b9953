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


def run(
    scenario: Union[Scenario, Mapping[str, Any], str, os.PathLike],
    progress: Optional[bool] = False,
) -> Results:
    """Run one scenario to completion and return its :class:`Results`.

    ``scenario`` is a :class:`Scenario`, a plain dict in the schema of
    docs/scenario.md, or a path to a .toml/.json file. ``progress=True``
    shows a tqdm bar of simulated seconds on a terminal (it is suppressed
    when stderr is not a TTY, and for runs shorter than about a second);
    ``None`` means "only on a TTY".
    """
    sim = simulation(scenario)
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
        return Results(sim.finish())
    finally:
        if bar is not None:
            bar.close()
