"""What a figure module hands the driver and gets back.

``scenarios(quick)`` returns :class:`Sweep` objects (a base scenario, its
points and one label per point); the driver runs them through
:func:`ccsim.sweep.sweep` (or, for ``--replot``, reads them from the cache
only) and gives ``analyse`` a :class:`Runs`; ``analyse`` returns an
:class:`Analysis` whose ``table`` is written as ``ID.csv``/``ID.parquet``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict, List, Mapping, Optional, Sequence

import pandas as pd

from ...results import Results
from ...sweep import MissingRuns, describe_run, load_run, sweep


@dataclass
class Sweep:
    """One :func:`ccsim.sweep.sweep` call: ``base`` scenario, ``points``
    (dotted-path override dicts; ``[{}]`` = the base alone) and ``labels``
    (any value per point, handed back with its row)."""

    base: Mapping[str, Any]
    points: Sequence[Mapping[str, Any]] = field(default_factory=lambda: [{}])
    labels: Optional[Sequence[Any]] = None

    def __post_init__(self) -> None:
        self.points = [dict(p) for p in self.points]
        if self.labels is None:
            self.labels = list(range(len(self.points)))
        self.labels = list(self.labels)
        if len(self.labels) != len(self.points):
            raise ValueError(f"{len(self.labels)} labels for {len(self.points)} points")


class Runs:
    """The sweeps' rows (``frames[i]`` for ``sweeps[i]``; ``df`` is the
    first) and their cached :class:`~ccsim.results.Results`."""

    def __init__(self, out_dir: Path, sweeps: List[Sweep], frames: List[pd.DataFrame]):
        self.out_dir, self.sweeps, self.frames = Path(out_dir), sweeps, frames
        self._cache: Dict[str, Results] = {}

    @property
    def df(self) -> pd.DataFrame:
        return self.frames[0]

    def load(self, key: str) -> Results:
        """Full results (series included) of one run; each file read once."""
        if key not in self._cache:
            self._cache[key] = load_run(self.out_dir, key)
        return self._cache[key]

    def results(self, i: int = 0) -> List[Results]:
        """Results of every point of sweep ``i``, in point order."""
        return [self.load(k) for k in self.frames[i]["key"]]

    @classmethod
    def collect(cls, sweeps: List[Sweep], out_dir: Path, workers: Optional[int], run: bool = True) -> "Runs":
        """Run (or with ``run=False`` only read) every sweep. Missing runs
        of all sweeps are gathered into one :class:`~ccsim.sweep.MissingRuns`."""
        frames: List[pd.DataFrame] = []
        missing, total = [], 0
        for s in sweeps:
            try:
                frames.append(sweep(s.base, s.points, out_dir, workers=workers, run=run))
            except MissingRuns as exc:
                missing += exc.missing
                total += exc.total
                continue
            total += len(s.points)
        if missing:
            raise MissingRuns(Path(out_dir), missing, total)
        return cls(out_dir, sweeps, frames)


class Analysis(SimpleNamespace):
    """``analyse``'s result: ``table`` (a DataFrame, written as ``ID.csv``
    and ``ID.parquet``) and whatever else ``checks`` and ``plot`` read."""

    table: pd.DataFrame


__all__ = ["Sweep", "Runs", "Analysis", "MissingRuns", "describe_run"]
