"""The profile-guided build (build_backend/ccsim_build.py): its training
scenarios are the bench rows, the installed extension (built with or
without a profile) gives the Rust golden results to the bit, and the
backend's switch and fallback behave as documented."""
from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

from ccsim._native import core
from ccsim.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "crates" / "ccsim-core" / "tests" / "golden"


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


backend = _load(ROOT / "build_backend" / "ccsim_build.py", "ccsim_build_under_test")
pgo_scenarios = _load(ROOT / "benches" / "pgo_scenarios.py", "pgo_scenarios_under_test")


@pytest.mark.parametrize("name", sorted(pgo_scenarios.ROWS))
def test_training_scenario_is_the_bench_row(name):
    """benches/pgo/NAME.toml is `ccsim bench`'s row NAME at its training
    duration (regenerate with `python benches/pgo_scenarios.py`)."""
    path = ROOT / "benches" / "pgo" / f"{name}.toml"
    assert path.read_text() == pgo_scenarios.training_scenario(name).to_toml(), (
        f"{path} is stale: python benches/pgo_scenarios.py")
    load_scenario(path).validate()


def test_training_set_is_every_row_file_and_the_goldens():
    rows = {p.stem for p in (ROOT / "benches" / "pgo").glob("*.toml")}
    assert rows == set(pgo_scenarios.ROWS)
    got = backend.training_scenarios()
    assert [p.name for p in got[:len(rows)]] == sorted(f"{r}.toml" for r in rows)
    assert {p.name for p in got[len(rows):]} == {p.name for p in GOLDEN.glob("*.toml")}


@pytest.mark.parametrize("toml", sorted(GOLDEN.glob("*.toml")), ids=lambda p: p.stem)
def test_installed_extension_gives_the_golden_results(toml):
    """The extension pip built (profile-guided unless CCSIM_PGO=0) must give
    what the plain `cargo test` build gives: the golden file, every number."""
    sc = load_scenario(toml)
    sim = core().Simulation(sc.to_json())
    got = json.loads(sim.finish())
    want = json.loads((toml.with_suffix(".json")).read_text())
    for d in (got, want):
        d.pop("wall_s")
        d.pop("cpu_s", None)
        d.pop("series", None)
    assert got == want, f"{toml.stem}: the installed engine differs from the golden results"


def test_build_info_reports_the_profile():
    info = core().build_info()
    assert set(info) == {"pgo"}
    assert info["pgo"] is None or (info["pgo"].startswith("ccsim-") and info["pgo"].endswith(".profdata"))


def test_pgo_off_leaves_the_flags(monkeypatch):
    monkeypatch.setenv("CCSIM_PGO", "0")
    monkeypatch.setenv("RUSTFLAGS", "-Cfoo")
    monkeypatch.setattr(backend, "profile", lambda: pytest.fail("profile() called with CCSIM_PGO=0"))
    with backend.pgo_environment():
        assert os.environ["RUSTFLAGS"] == "-Cfoo"
        assert "CCSIM_BUILD_PGO" not in os.environ
    assert os.environ["RUSTFLAGS"] == "-Cfoo"


def test_pgo_failure_builds_without_it(monkeypatch, capsys):
    monkeypatch.delenv("CCSIM_PGO", raising=False)
    monkeypatch.delenv("RUSTFLAGS", raising=False)

    def broken():
        raise RuntimeError("no llvm-profdata here")
    monkeypatch.setattr(backend, "profile", broken)
    with backend.pgo_environment():
        assert "RUSTFLAGS" not in os.environ
    assert "skipped: no llvm-profdata here" in capsys.readouterr().err


def test_pgo_flags_are_added_and_restored(monkeypatch, tmp_path):
    prof = tmp_path / "ccsim-0123456789abcdef.profdata"
    monkeypatch.delenv("CCSIM_PGO", raising=False)
    monkeypatch.setenv("RUSTFLAGS", "-Cfoo")
    monkeypatch.setattr(backend, "profile", lambda: prof)
    with backend.pgo_environment():
        assert os.environ["RUSTFLAGS"] == f"-Cfoo -Cprofile-use={prof}"
        assert os.environ["CCSIM_BUILD_PGO"] == prof.name
    assert os.environ["RUSTFLAGS"] == "-Cfoo"
    assert "CCSIM_BUILD_PGO" not in os.environ


def test_bench_rows_name_the_build():
    from ccsim.bench import _pgo_profile
    assert _pgo_profile() == core().build_info()["pgo"]
