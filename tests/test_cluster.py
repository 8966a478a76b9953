"""A sweep on a real Dask cluster, as docs/cluster.md sets one up: a
``dask scheduler`` and two ``dask worker`` processes started by the test
on localhost, the sweep sent to them with ``ccsim sweep --dask ADDRESS``,
and one worker killed (SIGKILL) while the sweep runs. The scheduler
re-runs what the dead worker held on the other one; every run ends in the
cache and in ``sweep.csv`` exactly once, and a second ``ccsim sweep`` takes
all of them from the cache."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("dask.distributed")

RUNS = 12
BASE = """name = "cluster-test"
seed = 1
duration_s = 20.0
sample_interval_s = 0
[topology]
kind = "dumbbell"
bottleneck_rate_bps = 200e6
bottleneck_queue = { kind = "droptail", limit_pkts = 100 }
[[flows]]
count = 20
cc = "cubic"
rtt_range_s = [0.02, 0.1]
start_spread_s = 1.0
"""


def _spawn(args, log: Path, cwd: Path = None) -> subprocess.Popen:
    return subprocess.Popen(args, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True, cwd=cwd)


def _start_cluster(where: Path, procs: list, workers: int = 2) -> str:
    """A ``dask scheduler`` on localhost and ``workers`` single-threaded
    ``dask worker`` processes, their logs and working directory in
    ``where``; appends them to ``procs`` (for :func:`_stop`) and returns
    the scheduler's address once every worker has joined."""
    sched_file = where / "scheduler.json"
    dask = [sys.executable, "-m", "dask"]
    procs.append(_spawn(dask + ["scheduler", "--scheduler-file", str(sched_file), "--host", "127.0.0.1",
                                "--port", "0", "--no-dashboard"], where / "scheduler.log", cwd=where))
    _wait(sched_file.exists, 60, "the scheduler's address file")
    address = json.loads(sched_file.read_text())["address"]
    for i in range(workers):
        procs.append(_spawn(dask + ["worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                                    "--name", f"w{i}"], where / f"worker{i}.log", cwd=where))
    _wait(lambda: _workers(address) == workers, 90, f"{workers} workers")
    return address


def _stop(procs: list) -> None:
    """SIGTERM every process still running, newest first; SIGKILL any that
    has not ended 20 s later."""
    for p in reversed(procs):
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()


def _wait(cond, timeout_s: float, what: str) -> None:
    end = time.monotonic() + timeout_s
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def _workers(address: str) -> int:
    from dask.distributed import Client

    with Client(address, timeout=10) as c:
        return len(c.scheduler_info()["workers"])


def test_sweep_on_a_real_cluster_survives_a_killed_worker(tmp_path):
    procs = []
    try:
        address = _start_cluster(tmp_path, procs)
        base = tmp_path / "base.toml"
        base.write_text(BASE)
        out = tmp_path / "sweep"
        seeds = ",".join(str(i) for i in range(1, RUNS + 1))
        cmd = [sys.executable, "-m", "ccsim", "sweep", str(base), "--grid", f"seed={seeds}", "--dask", address,
               "--out", str(out), "--quiet"]
        sweep = _spawn(cmd, tmp_path / "sweep.log")
        runs = out / "runs"
        _wait(lambda: runs.is_dir() and len(list(runs.glob("*.json"))) >= 2 or sweep.poll() is not None, 120,
              "the first results")
        done_at_kill = len(list(runs.glob("*.json")))
        assert sweep.poll() is None and done_at_kill < RUNS, (tmp_path / "sweep.log").read_text()[-2000:]
        victim = procs[1]
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait(timeout=10)
        assert sweep.wait(timeout=300) == 0, (tmp_path / "sweep.log").read_text()[-2000:]
        assert "Remove worker" in (tmp_path / "scheduler.log").read_text(), "the scheduler saw the worker go"

        with (out / "sweep.csv").open(newline="") as fh:
            rows = list(csv.DictReader(fh))
        keys = [r["key"] for r in rows]
        assert len(rows) == RUNS and len(set(keys)) == RUNS
        assert sorted(int(r["seed"]) for r in rows) == list(range(1, RUNS + 1))
        assert sorted(p.stem for p in runs.glob("*.json")) == sorted(keys), "one cache file per run"
        # again, with one worker left: everything comes from the cache
        again = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert again.returncode == 0, again.stderr[-2000:]
        with (out / "sweep.csv").open(newline="") as fh:
            assert all(r["cached"] == "True" for r in csv.DictReader(fh))
    finally:
        _stop(procs)


class _FakeClient:
    """What ``_check_workers`` asks of a ``dask.distributed.Client``."""

    def __init__(self, answer):
        self.answer = answer

    def run(self, fn):
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_workers_with_another_ccsim_are_refused():
    """A worker with another engine would store its runs under this
    client's engine version: the sweep refuses such a cluster up front."""
    import ccsim
    from ccsim.sweep import _check_workers, _engine_version, _worker_engine

    mine = _engine_version()
    assert _worker_engine() == mine
    _check_workers(_FakeClient({"tcp://a:1": mine, "tcp://b:1": mine}), "tcp://s:1")
    with pytest.raises(ccsim.UserError, match=r"1 of 2 workers of the Dask cluster at tcp://s:1 run another ccsim "
                                              r"engine than this client's .*tcp://b:1 has 0\.0\.0-other.*same wheel"):
        _check_workers(_FakeClient({"tcp://a:1": mine, "tcp://b:1": "0.0.0-other"}), "tcp://s:1")
    with pytest.raises(ccsim.UserError, match=r"cannot run ccsim \(ModuleNotFoundError: No module named 'ccsim'\); "
                                              r"install the same ccsim wheel"):
        _check_workers(_FakeClient(ModuleNotFoundError("No module named 'ccsim'")), "tcp://s:1")
