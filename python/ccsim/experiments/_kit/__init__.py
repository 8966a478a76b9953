"""Shared kit of the paper experiments: setups, runs, analysis, figures.

* :mod:`.setups`: the packet size, the protocol table (as
  :class:`ccsim.scenario.Flow` values) and the dumbbell/scenario builders
  every paper uses.
* :mod:`.runs`: :class:`Sweep` (what ``scenarios(quick)`` returns),
  :class:`Runs` (what ``analyse`` receives) and :class:`Analysis`.
* :mod:`.analysis`: Jain's index, congestion events from cwnd series,
  steady-state windows of a series.
* :mod:`.figures`: panel grids, protocol styles, paper overlays, saving.
"""

from .runs import Analysis, Runs, Sweep

__all__ = ["Analysis", "Runs", "Sweep"]
