"""Sweeps: grid expansion, content-addressed cache, resume, backends."""

from __future__ import annotations


import pytest

import ccsim
from ccsim.sweep import expand_grid, load_run, plan, sweep, write_table

from conftest import assert_conserved, small_scenario

GRID = {"topology.bottleneck_rate_bps": [5e6, 10e6], "flows.0.count": [1, 2]}


def _base():
    return small_scenario(duration_s=2.0)


def _runs(out):
    return sorted((out / "runs").glob("*.json"))


def test_expand_grid():
    pts = expand_grid({"a": [1, 2], "b": ["x", "y", "z"]})
    assert len(pts) == 6 and pts[0] == {"a": 1, "b": "x"} and pts[-1] == {"a": 2, "b": "z"}
    assert expand_grid([{"a": 1}, {"a": 2, "b": 3}]) == [{"a": 1}, {"a": 2, "b": 3}]
    with pytest.raises(ccsim.UserError):
        expand_grid({"a": "notalist"})


def test_sweep_caches_and_resumes(tmp_path):
    out = tmp_path / "sw"
    df = sweep(_base(), GRID, out, workers=2, progress=False)
    assert len(df) == 4
    assert not df["cached"].any()
    assert list(df["flows.0.count"]) == [1, 2, 1, 2]
    assert {"goodput_mean_bps", "goodput_total_bps", "utilization", "loss_rate", "jain_index", "key"} <= set(df.columns)
    files = _runs(out)
    assert len(files) == 4 and {f.stem for f in files} == set(df["key"])
    for f in files:
        assert_conserved(f)
    # Every row matches its own cached run.
    for _, row in df.iterrows():
        res = load_run(out, row["key"])
        assert sum(f["goodput_bps"] for f in res.raw["flows"]) == pytest.approx(row["goodput_total_bps"])
        assert len(res.raw["flows"]) == row["flows.0.count"]
        assert res.bottleneck()["rate_bps"] == row["topology.bottleneck_rate_bps"]

    mtimes = {f: f.stat().st_mtime_ns for f in files}
    again = sweep(_base(), GRID, out, workers=2, progress=False)
    assert again["cached"].all(), "second sweep recomputed runs"
    assert {f: f.stat().st_mtime_ns for f in _runs(out)} == mtimes
    cols = [c for c in df.columns if c != "cached"]
    assert again[cols].equals(df[cols])

    # Simulate an interrupted sweep: one result missing, one half-written tmp.
    victim = files[1]
    victim.unlink()
    (out / "runs" / f".{victim.stem}.abc.tmp").write_text("{partial")
    third = sweep(_base(), GRID, out, workers=2, progress=False)
    assert int((~third["cached"]).sum()) == 1
    assert third.loc[~third["cached"], "key"].item() == victim.stem
    for f in files:
        if f != victim:
            assert f.stat().st_mtime_ns == mtimes[f]
    assert_conserved(victim)
    assert third[cols].drop(columns=["wall_s", "cpu_s"]).equals(df[cols].drop(columns=["wall_s", "cpu_s"]))


def test_key_is_canonical_normalised_scenario(tmp_path):
    """A value given explicitly at its default is the same run as omitting it."""
    base = _base()
    a = plan(base, [{}])[0]
    b = plan(base, [{"seed": 1, "flows.0.recovery": "sack"}])[0]
    c = plan(base, [{"seed": 2}])[0]
    assert a.key == b.key != c.key


def test_duplicate_points_run_once(tmp_path):
    out = tmp_path / "dup"
    df = sweep(_base(), {"seed": [1, 1, 3]}, out, workers=1, progress=False)
    assert len(df) == 3 and df["key"].nunique() == 2
    assert len(_runs(out)) == 2
    for f in _runs(out):
        assert_conserved(f)


def test_invalid_point_fails_before_running(tmp_path):
    out = tmp_path / "bad"
    with pytest.raises(ccsim.UserError) as err:
        sweep(_base(), {"flows.0.cc": ["reno", "nosuchcc"]}, out, workers=1, progress=False)
    assert "scenario.flows[0].cc" in str(err.value) and "nosuchcc" in str(err.value)
    assert not (out / "runs").exists() or not _runs(out)


def test_write_table(tmp_path):
    df = sweep(_base(), {"flows.0.rtt_s": [0.02, [0.03, 0.05]]}, tmp_path, workers=1, progress=False)
    for f in _runs(tmp_path):
        assert_conserved(f)
    csv, pq = write_table(df, tmp_path)
    assert csv.exists() and pq.exists()


def test_dask_backend(tmp_path):
    pytest.importorskip("dask.distributed")
    out = tmp_path / "dask"
    df = sweep(_base(), {"seed": [1, 2]}, out, workers=1, backend="dask", progress=False)
    assert len(df) == 2 and not df["cached"].any()
    for f in _runs(out):
        assert_conserved(f)
    local = sweep(_base(), {"seed": [1, 2]}, tmp_path / "local", workers=1, progress=False)
    assert list(local["key"]) == list(df["key"])
    assert local["goodput_total_bps"].tolist() == df["goodput_total_bps"].tolist()


def test_dask_missing_gives_clear_error(tmp_path, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *a, **k):
        if name.startswith("dask"):
            raise ImportError("no dask")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(ccsim.UserError, match=r"ccsim\[dask\]"):
        sweep(_base(), {"seed": [11]}, tmp_path, workers=1, backend="dask", progress=False)
