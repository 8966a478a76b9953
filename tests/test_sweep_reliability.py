"""Sweeps that never lose or lie: kill-and-resume with real SIGKILLs, damaged
cache files, orphaned pool workers, file modes, per-controller parameters,
goodput per flow class, seed replications with confidence intervals,
progress, and identical results on every backend."""

from __future__ import annotations

import json
import math
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import ccsim
from ccsim.scenario import DropTail, Dumbbell, Flow, Scenario
from ccsim.sweep import _read_cache, _engine_version, plan, summarise, sweep, t_quantile_975

from conftest import assert_conserved, small_scenario

# 30 runs of 0.05-0.6 s each (400 simulated seconds: the engine has grown
# faster, and at 40 s the whole sweep took under a second, so it finished
# before a second kill): a few seconds on two workers, long enough to be
# killed in the middle several times.
KILL_GRID = ["topology.bottleneck_rate_bps=5e6,10e6,20e6,40e6,80e6", "flows.0.count=1,2,4", "seed=1,2"]
N_KILL_RUNS = 30
NONDETERMINISTIC = ("wall_s", "cpu_s", "cached")


def _cli(*args, **kw):
    return subprocess.Popen([sys.executable, "-m", "ccsim", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, **kw)


def _sweep_cmd(base, out, *extra):
    cmd = ["sweep", base, "--out", out, "--workers", "2", "--quiet", *extra]
    for g in KILL_GRID:
        cmd += ["--grid", g]
    return cmd


def _cache_files(out: Path):
    return sorted((out / "runs").glob("*.json"))


def _snapshot(out: Path):
    return {f.name: (f.stat().st_ino, f.stat().st_mtime_ns) for f in _cache_files(out)}


def _table(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / "sweep.csv").drop(columns=list(NONDETERMINISTIC))


@pytest.fixture
def kill_base(tmp_path) -> Path:
    return small_scenario(duration_s=400.0).save(tmp_path / "base.toml")


def test_kill_and_resume_loses_and_recomputes_nothing(tmp_path, kill_base):
    """SIGKILL the whole process group of a running ``ccsim sweep`` at
    seeded random points (after a random number of finished runs plus a
    random delay), four times, resuming after each; then compare with an
    uninterrupted sweep."""
    rng = random.Random(20261123)
    out = tmp_path / "killed"
    version = _engine_version()
    kills = 0
    for attempt in range(4):
        before = _snapshot(out) if (out / "runs").exists() else {}
        remaining = N_KILL_RUNS - len(before)
        if remaining < 3:
            break
        target = len(before) + rng.randint(1, max(1, remaining // 3))
        extra_delay = rng.uniform(0.0, 0.3)
        proc = _cli(*_sweep_cmd(kill_base, out))
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if (out / "runs").exists() and len(_cache_files(out)) >= target:
                break
            time.sleep(0.01)
        time.sleep(extra_delay)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            kills += 1
        proc.communicate(timeout=60)
        print(f"attempt {attempt}: target {target} runs + {extra_delay:.2f} s, "
              f"{len(_cache_files(out))} stored, temp files {len(list((out / 'runs').glob('.*.tmp')))}")
        # What survived a kill is whole: every cache file parses, has its
        # schema and matches its checksum; nothing finished was rewritten.
        for f in _cache_files(out):
            assert _read_cache(f, f.stem, version) is not None, f
        after = _snapshot(out)
        for name, stamp in before.items():
            assert after.get(name) == stamp, f"{name} was recomputed or rewritten on resume"
    assert kills >= 2, "the sweep finished before it could be killed; the test did not test resume"
    n_before_final = len(_cache_files(out))
    assert n_before_final > 0

    before = _snapshot(out)
    proc = _cli(*_sweep_cmd(kill_base, out))
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    assert f"{N_KILL_RUNS} runs ({n_before_final} from cache)" in stdout
    after = _snapshot(out)
    assert len(after) == N_KILL_RUNS
    for name, stamp in before.items():
        assert after[name] == stamp, f"{name} was recomputed on the final resume"
    assert not list((out / "runs").glob(".*.tmp")), "temporary files of killed sweeps were left behind"

    # The run log: no key was stored twice over all the attempts.
    logged = [json.loads(line)["key"] for line in (out / "runs.log").read_text().splitlines()]
    assert len(logged) == len(set(logged)), "a finished run was computed twice"
    keys = {f.stem for f in _cache_files(out)}
    assert set(logged) <= keys and len(logged) >= N_KILL_RUNS - kills
    for f in _cache_files(out):
        assert_conserved(f)

    clean = tmp_path / "clean"
    proc = _cli(*_sweep_cmd(kill_base, clean))
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    pd.testing.assert_frame_equal(_table(out), _table(clean))
    assert (pd.read_parquet(out / "sweep.parquet").drop(columns=list(NONDETERMINISTIC))
            .equals(pd.read_parquet(clean / "sweep.parquet").drop(columns=list(NONDETERMINISTIC))))


def _children(pid: int):
    kids = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid:
            kids.append(int(d.name))
    return kids


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has exited


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to find worker pids")
def test_pool_workers_exit_when_parent_is_killed(tmp_path):
    """SIGKILL only the sweep parent (not its group) while its workers are
    busy or waiting for work: they must exit, not linger blocked."""
    base = small_scenario(duration_s=300.0).save(tmp_path / "long.toml")
    proc = _cli("sweep", base, "--out", tmp_path / "o", "--workers", "2", "--quiet",
                "--grid", "seed=1,2,3,4,5,6")
    workers = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(workers) < 2:
        workers = _children(proc.pid)
        time.sleep(0.05)
    assert len(workers) == 2, f"expected 2 pool workers, found {workers}"
    time.sleep(0.3)  # let them pick up runs
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.05)
    left = [w for w in workers if _alive(w)]
    for w in left:  # do not leave them behind whatever happens
        os.kill(w, signal.SIGKILL)
    assert not left, f"pool workers {left} outlived their SIGKILLed parent"


def test_damaged_cache_files_are_named_and_recomputed(tmp_path, capfd):
    out = tmp_path / "d"
    base = small_scenario(duration_s=1.0)
    grid = {"seed": [1, 2, 3, 4, 5]}
    first = sweep(base, grid, out, workers=1, backend="inprocess", progress=False)
    files = {k: out / "runs" / f"{k}.json" for k in first["key"]}
    keys = list(first["key"])
    intact = files[keys[4]]
    stamp = intact.stat().st_mtime_ns
    text = files[keys[0]].read_text()
    files[keys[0]].write_text(text[: len(text) // 2])  # truncated
    doc = json.loads(files[keys[1]].read_text())
    doc["results"]["flows"][0]["goodput_bps"] *= 2  # silently altered number
    files[keys[1]].write_text(json.dumps(doc))
    files[keys[2]].write_bytes(b"\xff\xfe garbage")  # not text
    doc = json.loads(files[keys[3]].read_text())
    del doc["results"]
    files[keys[3]].write_text(json.dumps(doc))  # schema
    capfd.readouterr()

    again = sweep(base, grid, out, workers=1, backend="inprocess", progress=False)
    err = capfd.readouterr().err
    for k, why in zip(keys[:4], ("not valid JSON", "checksum mismatch", "not UTF-8", "'results' missing")):
        line = next((ln for ln in err.splitlines() if str(files[k]) in ln), None)
        assert line is not None, f"damaged {files[k].name} not reported:\n{err}"
        assert why in line and "recomputing" in line, line
    assert str(intact) not in err
    assert list(again["cached"]) == [False, False, False, False, True]
    assert intact.stat().st_mtime_ns == stamp
    for k in keys:
        assert_conserved(files[k])
        assert _read_cache(files[k], k, _engine_version()) is not None
    cols = [c for c in first.columns if c not in NONDETERMINISTIC]
    pd.testing.assert_frame_equal(again[cols], first[cols])


@pytest.mark.parametrize("mask", [0o022, 0o027])
def test_cache_files_respect_umask(tmp_path, mask):
    old = os.umask(mask)
    try:
        sweep(small_scenario(duration_s=0.5), {"seed": [1]}, tmp_path, workers=1, progress=False)
    finally:
        os.umask(old)
    for f in _cache_files(tmp_path):
        assert f.stat().st_mode & 0o777 == 0o666 & ~mask, oct(f.stat().st_mode)


# --------------------------------------------------------------------------
# per-controller parameters
# --------------------------------------------------------------------------

def _cc_base(cc_params):
    sc = small_scenario(duration_s=1.0).to_dict()
    sc["flows"][0]["cc"] = "hstcp"
    sc["flows"][0]["cc_params"] = cc_params
    return sc


def test_sweep_cc_with_per_controller_params(tmp_path):
    per_cc = {"hstcp": {"low_window": 20}, "cubic": {"beta": 0.8}}
    specs = plan(_cc_base(per_cc), {"flows.0.cc": ["hstcp", "cubic", "reno"]})
    got = [(s.scenario["flows"][0]["cc"], s.scenario["flows"][0]["cc_params"]) for s in specs]
    assert got[0][0] == "hstcp" and got[0][1]["low_window"] == 20
    assert got[1][0] == "cubic" and got[1][1]["beta"] == 0.8
    assert got[2][0] == "reno" and "beta" not in got[2][1]
    # Defaults elsewhere: hstcp's other parameters are untouched.
    plain = plan(_cc_base({}), [{}])[0].scenario["flows"][0]["cc_params"]
    assert {k: v for k, v in got[0][1].items() if k != "low_window"} == \
           {k: v for k, v in plain.items() if k != "low_window"}
    df = sweep(_cc_base(per_cc), {"flows.0.cc": ["hstcp", "cubic", "reno"]}, tmp_path, workers=1,
               progress=False)
    assert list(df["flows.0.cc"]) == ["hstcp", "cubic", "reno"] and df["key"].nunique() == 3


def test_plain_cc_params_with_cc_sweep_names_the_parameter(tmp_path):
    with pytest.raises(ccsim.UserError) as err:
        plan(_cc_base({"low_window": 20}), {"flows.0.cc": ["hstcp", "reno"]})
    assert "cc_params.low_window" in str(err.value) and "flows.0.cc='reno'" in str(err.value)


def test_per_controller_param_of_wrong_controller_is_named(tmp_path):
    with pytest.raises(ccsim.UserError) as err:
        plan(_cc_base({"hstcp": {"low_window": 20}, "cubic": {"low_window": 3}}), {"flows.0.cc": ["hstcp"]})
    msg = str(err.value)
    assert "flows[0].cc_params.cubic.low_window" in msg and "c, beta, fast_convergence" in msg
    with pytest.raises(ccsim.UserError, match=r"cc_params\.hsctp: .*'hsctp' is not one"):
        plan(_cc_base({"hsctp": {"low_window": 20}}), [{}])


def test_cc_bundle_grid_values(tmp_path):
    grid = {"flows.0.cc": [{"cc": "cubic", "cc_params": {"beta": 0.8}}, {"cc": "reno"}]}
    specs = plan(_cc_base({"low_window": 20}), grid)
    assert specs[0].scenario["flows"][0]["cc"] == "cubic" and specs[0].scenario["flows"][0]["cc_params"]["beta"] == 0.8
    with pytest.raises(ccsim.UserError, match="controller bundle"):
        plan(_cc_base({}), {"flows.0.cc": [{"cc_params": {}}]})


def test_cli_sweeps_cc_with_per_controller_table(tmp_path):
    sc = small_scenario(duration_s=0.5).to_dict()
    sc["flows"][0]["cc_params"] = {"hstcp": {"low_window": 20}, "htcp": {"delta_l_s": 0.5}}
    base = tmp_path / "cc.json"
    base.write_text(json.dumps(sc))
    r = subprocess.run([sys.executable, "-m", "ccsim", "sweep", str(base), "--out", str(tmp_path / "o"),
                        "--quiet", "--workers", "1", "--grid", "flows.0.cc=hstcp,htcp,reno"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "3 runs (0 from cache)" in r.stdout
    sc["flows"][0]["cc_params"]["htcp"] = {"low_window": 1}
    base.write_text(json.dumps(sc))
    r = subprocess.run([sys.executable, "-m", "ccsim", "sweep", str(base), "--out", str(tmp_path / "o"),
                        "--quiet", "--grid", "flows.0.cc=hstcp,htcp"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "flows[0].cc_params.htcp.low_window" in r.stderr and "controller 'htcp'" in r.stderr


# --------------------------------------------------------------------------
# the table: goodput per flow class, seeds and confidence intervals
# --------------------------------------------------------------------------

def test_goodput_is_averaged_per_transport(tmp_path):
    sc = Scenario(
        name="mix", duration_s=2.0, sample_interval_s=0.1,
        topology=Dumbbell(bottleneck_rate_bps=10e6, bottleneck_delay_s=0.005,
                          bottleneck_queue=DropTail(limit_pkts=20)),
        flows=[Flow(count=2, cc="reno", rtt_s=0.04), Flow(transport="udp", rate_bps=2e6, rtt_s=0.04)],
    )
    df = sweep(sc, [{}], tmp_path, workers=1, progress=False)
    row = df.iloc[0]
    flows = ccsim.sweep.load_run(tmp_path, row["key"]).raw["flows"]
    tcp = [f["goodput_bps"] for f in flows if f["transport"] == "tcp"]
    udp = [f["goodput_bps"] for f in flows if f["transport"] == "udp"]
    assert len(tcp) == 2 and len(udp) == 1
    assert row["goodput_mean_tcp_bps"] == pytest.approx(sum(tcp) / 2)
    assert row["goodput_mean_udp_bps"] == pytest.approx(udp[0])
    assert row["flows_tcp"] == 2 and row["flows_udp"] == 1
    assert math.isnan(row["goodput_mean_bps"]), "a mean over TCP and UDP flows mixed was reported"
    assert row["goodput_total_bps"] == pytest.approx(sum(tcp) + udp[0])
    # One class only: the overall mean is that class's mean.
    one = sweep(small_scenario(duration_s=1.0), [{}], tmp_path / "one", workers=1, progress=False).iloc[0]
    assert one["goodput_mean_bps"] == one["goodput_mean_tcp_bps"]


def test_xcp_is_its_own_class():
    from ccsim.sweep import headline

    res = {"flows": [{"transport": "tcp", "cc": "xcp", "goodput_bps": 4.0},
                     {"transport": "tcp", "cc": "reno", "goodput_bps": 2.0},
                     {"transport": "etcp", "goodput_bps": 1.0}], "conservation": {}}
    row = headline(res)
    assert (row["goodput_mean_xcp_bps"], row["goodput_mean_tcp_bps"], row["goodput_mean_etcp_bps"]) == (4.0, 2.0, 1.0)


def test_t_quantile_matches_scipy():
    stats = pytest.importorskip("scipy.stats")
    for df in list(range(1, 60)) + [100, 1000, 10**6]:
        assert t_quantile_975(df) == pytest.approx(stats.t.ppf(0.975, df), abs=2e-5), df


def _random_base(seed: int = 1) -> dict:
    """Two Reno flows whose RTTs and start times the seed draws, so
    replications differ."""
    d = small_scenario(duration_s=1.0, seed=seed).to_dict()
    flow = d["flows"][0]
    del flow["rtt_s"]
    flow.update(rtt_range_s=[0.02, 0.1], start_spread_s=0.3)
    return d


def test_seeds_give_mean_and_confidence_interval(tmp_path):
    base = _random_base(seed=5)
    df = sweep(base, {"flows.0.count": [1, 2]}, tmp_path, workers=1, progress=False, seeds=4)
    assert list(df["seed"]) == [5, 6, 7, 8] * 2 and df["key"].nunique() == 8
    s = summarise(df)
    assert list(s["flows.0.count"]) == [1, 2] and list(s["n"]) == [4, 4]
    for i, count in enumerate([1, 2]):
        vals = df.loc[df["flows.0.count"] == count, "goodput_total_bps"].astype(float)
        mean, std = vals.mean(), vals.std(ddof=1)
        assert s.loc[i, "goodput_total_bps_mean"] == pytest.approx(mean)
        assert std > 0, "the seeds did not change the runs"
        assert s.loc[i, "goodput_total_bps_ci95"] == pytest.approx(3.1824463 * std / 2)
    with pytest.raises(ccsim.UserError, match="already sweeps 'seed'"):
        sweep(base, {"seed": [1, 2]}, tmp_path, seeds=2, progress=False)
    with pytest.raises(ccsim.UserError, match="seeds must be an integer >= 1"):
        sweep(base, {"seed": [1]}, tmp_path, seeds=0, progress=False)


def test_cli_seeds_writes_summary(tmp_path, small_toml):
    out = tmp_path / "s"
    base = tmp_path / "random.json"
    base.write_text(json.dumps(_random_base()))
    r = subprocess.run([sys.executable, "-m", "ccsim", "sweep", str(base), "--out", str(out), "--quiet",
                        "--workers", "1", "--seeds", "3", "--grid", "topology.bottleneck_rate_bps=5e6,10e6"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    s = pd.read_csv(out / "sweep_summary.csv")
    assert len(s) == 2 and set(s["n"]) == {3}
    assert {"goodput_mean_tcp_bps_mean", "goodput_mean_tcp_bps_ci95", "utilization_ci95"} <= set(s.columns)
    assert (s["goodput_total_bps_ci95"] > 0).all()
    assert "95% confidence" in r.stdout
    r = subprocess.run([sys.executable, "-m", "ccsim", "sweep", str(small_toml), "--out", str(out),
                        "--seeds", "0", "--grid", "seed=1"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--seeds must be >= 1, got 0" in r.stderr


# --------------------------------------------------------------------------
# progress
# --------------------------------------------------------------------------

def test_progress_counts_cached_runs_and_quiet_hides_it(tmp_path, small_toml):
    out = tmp_path / "p"
    cmd = [sys.executable, "-m", "ccsim", "sweep", str(small_toml), "--out", str(out), "--workers", "1"]
    r = subprocess.run(cmd + ["--progress", "--grid", "seed=1,2"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "2/2" in r.stderr and "sweep" in r.stderr
    r = subprocess.run(cmd + ["--progress", "--grid", "seed=1,2,3,4"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    # Resumed: starts at 2 of 4 (the cached ones), ends at 4 of 4.
    assert "2/4" in r.stderr and "4/4" in r.stderr and "2 cached" in r.stderr
    r = subprocess.run(cmd + ["--quiet", "--progress", "--grid", "seed=5"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and r.stderr == "", r.stderr


# --------------------------------------------------------------------------
# determinism across backends
# --------------------------------------------------------------------------

def _results_without_wall(path: Path):
    doc = json.loads(path.read_text())["results"]
    doc.pop("wall_s", None)
    doc.pop("cpu_s", None)
    return doc


def test_backends_give_identical_results(tmp_path):
    base = small_scenario(duration_s=2.0)
    grid = {"topology.bottleneck_rate_bps": [5e6, 20e6], "flows.0.count": [1, 3], "flows.0.cc": ["reno", "cubic"]}
    runs = {"inprocess": dict(backend="inprocess"), "pool1": dict(backend="process", workers=1),
            "pool2": dict(backend="process", workers=2)}
    try:
        import dask.distributed  # noqa: F401

        runs["dask2"] = dict(backend="dask", workers=2)
    except ImportError:
        pass
    tables = {}
    for name, kw in runs.items():
        df = sweep(base, grid, tmp_path / name, progress=False, **kw)
        assert not df["cached"].any()
        tables[name] = df.drop(columns=list(NONDETERMINISTIC))
    ref = tables.pop("inprocess")
    for name, df in tables.items():
        pd.testing.assert_frame_equal(df, ref, check_exact=True, obj=name)
        for key in ref["key"]:
            a = _results_without_wall(tmp_path / "inprocess" / "runs" / f"{key}.json")
            b = _results_without_wall(tmp_path / name / "runs" / f"{key}.json")
            assert a == b, f"{name}: results of {key[:12]} differ from in-process"


def test_read_cache_rejects_objects_without_version(tmp_path):
    from ccsim.sweep import CacheProblem

    f = tmp_path / "x.json"
    f.write_text("{}")
    with pytest.raises(CacheProblem, match="engine_version"):
        _read_cache(f, "x", _engine_version())
    f.write_text("[1, 2]")
    with pytest.raises(CacheProblem, match="not a JSON object"):
        _read_cache(f, "x", _engine_version())
    assert _read_cache(tmp_path / "absent.json", "absent", _engine_version()) is None


def test_runs_cached_by_another_engine_build_are_recomputed(tmp_path):
    """The cache is filed under the engine build (its version and a digest
    of its sources, ``engine_id``), not the version alone, which stays the
    same through behaviour changes: a run cached by another build of the
    same version is recomputed, and the rewritten file carries this build's
    identity."""
    import re

    from ccsim._native import core

    me = _engine_version()
    assert re.fullmatch(re.escape(core().version()) + r"\+[0-9a-f]{16}", me), me
    sc = small_scenario()
    sweep(sc, {"seed": [1]}, out_dir=tmp_path, workers=1)
    (f,) = list((tmp_path / "runs").glob("*.json"))
    doc = json.loads(f.read_text())
    assert doc["engine_version"] == me
    doc["engine_version"] = core().version() + "+0000000000000000"
    f.write_text(json.dumps(doc))
    assert _read_cache(f, doc["key"], me) is None
    before = f.stat().st_mtime_ns
    time.sleep(0.01)
    df = sweep(sc, {"seed": [1]}, out_dir=tmp_path, workers=1)
    assert not df["cached"].any()
    assert json.loads(f.read_text())["engine_version"] == me and f.stat().st_mtime_ns != before
