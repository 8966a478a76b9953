"""ccsim: fast packet-level network simulator for congestion-control research.

Python API on top of the Rust engine (``ccsim._core``)::

    import ccsim
    from ccsim.scenario import Dumbbell, DropTail, Flow

    sc = ccsim.Scenario(
        duration_s=30,
        topology=Dumbbell(bottleneck_rate_bps=100e6, bottleneck_queue=DropTail(limit_pkts=50)),
        flows=[Flow(count=2, cc="reno", rtt_s=0.05)],
    )
    res = ccsim.run(sc)
    res.flows[["id", "goodput_bps"]]

See docs/python-api.md and docs/scenario.md.
"""

from __future__ import annotations

from ._native import ScenarioWarning, UserError
from .controller import Controller, register_controller
from .results import Results
from .runner import run
from .scenario import (
    DRR,
    PIE,
    CoDel,
    CustomTopology,
    DropTail,
    DualPI2,
    FQCoDel,
    RED,
    Dumbbell,
    Flow,
    Link,
    ParkingLot,
    Queue,
    Scenario,
    load_scenario,
    with_overrides,
)


def _version() -> str:
    # Package metadata carries the Cargo version maturin stamped in; the
    # engine's own version() covers a plain source checkout on sys.path.
    try:
        from importlib.metadata import version

        return version("ccsim")
    except Exception:
        pass
    try:
        from ._native import core

        return core().version()
    except Exception:
        return "0+unknown"


__version__ = _version()


def __getattr__(name: str):
    # ControllerError is the compiled engine's, imported on first use.
    if name == "ControllerError":
        from ._native import core

        return core().ControllerError
    raise AttributeError(f"module 'ccsim' has no attribute {name!r}")


def catalog() -> dict:
    """Controllers, recoveries, pacing modes, queues and topologies the engine
    offers, with their parameters and defaults (``ccsim list``)."""
    import json

    from ._native import core

    return json.loads(core().catalog())


__all__ = [
    "Scenario",
    "Dumbbell",
    "ParkingLot",
    "CustomTopology",
    "Link",
    "Queue",
    "DropTail",
    "RED",
    "DRR",
    "CoDel",
    "PIE",
    "FQCoDel",
    "DualPI2",
    "Flow",
    "run",
    "load_scenario",
    "with_overrides",
    "Results",
    "UserError",
    "ScenarioWarning",
    "catalog",
    "Controller",
    "ControllerError",
    "register_controller",
    "__version__",
]
