"""Determinism of the snapshot (golden) scenarios across processes, sweep
backends and worker counts (docs/reliability.md).

The Rust golden test (crates/ccsim-core/tests/integration/golden.rs) pins every golden
scenario's results within one process. Here the same scenarios run as
separate ``ccsim run`` processes, in-process through ``ccsim.run``, and
through ``ccsim.sweep`` in-process (1 worker), on a process pool (2
workers) and on Dask (when installed): the deterministic results (every
field except the run's wall-clock and CPU time ``wall_s``, ``cpu_s``) must be byte-identical.
Across platforms, the engine must not call the C library's transcendental
functions (``test_engine_calls_no_platform_transcendentals``).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import ccsim
from ccsim.sweep import sweep

GOLDEN = Path(__file__).resolve().parents[1] / "crates" / "ccsim-core" / "tests" / "golden"
#: Short goldens with randomness (loss, start spread, RTT ranges) and
#: several controllers, transports, queues and topologies between them.
SCENARIOS = ["reno_random_loss", "parking_lot_two_way", "etcp_red_ecn", "drr_gwa", "apps_udp_onoff"]


def deterministic(results: dict) -> bytes:
    """The results JSON without run metadata (``wall_s``, ``cpu_s``), byte-stable."""
    r = dict(results)
    r.pop("wall_s", None)
    r.pop("cpu_s", None)
    return json.dumps(r, sort_keys=True, allow_nan=True).encode()


def cli_summary(scenario: Path, out: Path) -> dict:
    subprocess.run(
        [sys.executable, "-m", "ccsim", "run", str(scenario), "--out", str(out), "--no-plots", "--no-progress"],
        check=True, capture_output=True,
    )
    return json.loads((out / "summary.json").read_text())


@pytest.mark.parametrize("name", SCENARIOS)
def test_snapshot_identical_across_processes(tmp_path, name):
    toml = GOLDEN / f"{name}.toml"
    a = cli_summary(toml, tmp_path / "a")
    b = cli_summary(toml, tmp_path / "b")
    assert deterministic(a) == deterministic(b), f"{name}: two ccsim run processes differ"
    # and in this process, through the API (summary.json holds these keys;
    # series and transfers go to their own tables)
    here = ccsim.run(toml).raw
    c = {k: here[k] for k in a}
    assert deterministic(c) == deterministic(a), f"{name}: in-process run differs from the CLI's"


def test_summary_differs_only_in_wall_s(tmp_path):
    """What the byte-identity above excludes is exactly ``wall_s``."""
    toml = GOLDEN / "reno_random_loss.toml"
    subprocess.run([sys.executable, "-m", "ccsim", "run", str(toml), "--out", str(tmp_path / "x"), "--no-plots",
                    "--no-progress"], check=True, capture_output=True)
    subprocess.run([sys.executable, "-m", "ccsim", "run", str(toml), "--out", str(tmp_path / "y"), "--no-plots",
                    "--no-progress"], check=True, capture_output=True)
    x = json.loads((tmp_path / "x" / "summary.json").read_text())
    y = json.loads((tmp_path / "y" / "summary.json").read_text())
    differing = sorted(k for k in set(x) | set(y) if x.get(k) != y.get(k))
    assert set(differing) <= {"wall_s"}, differing


def _sweep_results(out: Path, **kw) -> dict:
    base = GOLDEN / "reno_random_loss.toml"
    grid = {"seed": [1, 2, 3], "flows.0.recovery": ["reno", "newreno"]}
    df = sweep(base, grid, out, progress=False, **kw)
    assert len(df) == 6 and not df["cached"].any()
    runs = {}
    for f in sorted((out / "runs").glob("*.json")):
        doc = json.loads(f.read_text())
        res = doc.get("results", doc)
        runs[f.stem] = deterministic(res)
    assert len(runs) == 6
    return runs


def test_sweep_in_process_and_process_pool_agree(tmp_path):
    one = _sweep_results(tmp_path / "inproc", workers=1)
    pool = _sweep_results(tmp_path / "pool", workers=2)
    assert one == pool, "in-process and process-pool sweeps differ"


def test_sweep_dask_agrees(tmp_path):
    pytest.importorskip("dask.distributed", reason="pip install 'ccsim[dask]' to compare the Dask backend")
    one = _sweep_results(tmp_path / "inproc", workers=1)
    dask = _sweep_results(tmp_path / "dask", workers=2, backend="dask")
    assert one == dask, "Dask sweep differs from the in-process one"


#: C math functions whose last-bit rounding differs between C libraries
#: (glibc, musl, macOS, Windows); `f64::exp` etc. compile to calls of these.
PLATFORM_MATH = re.compile(
    r"^(exp|exp2|exp10|expm1|log|log2|log10|log1p|pow|cbrt|hypot|sin|cos|tan|sincos|asin|acos|atan|atan2"
    r"|sinh|cosh|tanh|asinh|acosh|atanh|erf|erfc|lgamma|tgamma)f?$"
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the ELF dynamic symbol table")
def test_engine_calls_no_platform_transcendentals():
    """The compiled engine imports no transcendental function from the
    platform's C library: its `exp`, `ln`, `powf`, `cbrt`, `cos` are the
    pure-Rust `libm` crate's (`ccsim_core::sim::math`), so its results do not
    depend on the platform's rounding (docs/reliability.md, Determinism).
    clippy's `disallowed-methods` (clippy.toml) stops a std call in our
    source; this catches one anywhere in the linked module, dependencies
    included. Before `sim::math`, the module imported `cos`, `exp`, `log`
    and `pow` from glibc."""
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("nm (binutils) is not installed")
    from ccsim import _core

    out = subprocess.run([nm, "-D", "--undefined-only", _core.__file__], check=True, capture_output=True, text=True)
    imported = {line.split()[-1].split("@")[0] for line in out.stdout.splitlines() if line.strip()}
    assert imported, f"nm listed no imports of {_core.__file__}"
    bad = sorted(s for s in imported if PLATFORM_MATH.match(s))
    assert not bad, f"the engine calls the platform's C math library: {bad} (use ccsim_core::sim::math)"
