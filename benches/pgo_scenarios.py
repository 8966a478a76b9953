"""Write the training scenarios of the profile-guided build (``benches/pgo/``).

    python benches/pgo_scenarios.py [OUT_DIR]

``build_backend/ccsim_build.py`` builds an instrumented engine, runs every
scenario in ``benches/pgo/`` and the Rust golden scenarios
(``crates/ccsim-core/tests/golden/*.toml``) with it, and compiles the
engine again with the measured profile. The files here are ``ccsim
bench``'s rows (:func:`ccsim.bench.scenario`) cut to the durations below,
so the profile weighs the code as the benchmarks run it; the golden
scenarios add every other feature's paths (taps, queues, stages,
applications), so none of them is laid out as never run. The build
cannot import ccsim (it is building it), hence checked-in files;
``tests/test_pgo.py`` checks that they are still these rows.
"""
from __future__ import annotations

import sys
from pathlib import Path

from ccsim.bench import scenario

#: Bench row -> training duration in simulated seconds: about half a
#: second of the instrumented engine each, on a 2-core machine.
ROWS = {"B2L": 200.0, "B2L-hstcp": 60.0, "B3": 60.0, "B4": 5.0, "B5": 15.0, "E1": 10.0,
        "X1": 10.0, "G1": 8.0, "R1": 60.0, "W1": 20.0}

OUT = Path(__file__).resolve().parent / "pgo"


def training_scenario(name: str):
    """Bench row ``name`` at its training duration."""
    return scenario(name).replace(duration_s=ROWS[name])


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0]) if argv else OUT
    out.mkdir(parents=True, exist_ok=True)
    for name in ROWS:
        (out / f"{name}.toml").write_text(training_scenario(name).to_toml())
    return 0


if __name__ == "__main__":
    sys.exit(main())
