"""A controller written in a new Python file, as a newcomer meets it: named
in a scenario file as ``module:Class``, swept on a process pool of two
workers and on a real Dask cluster of two worker processes that do not
share the client's directory, with results identical to the in-process
runs; an edited controller is run again, not read from the cache."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from test_cluster import _start_cluster, _stop

CONTROLLER = '''import ccsim
from ccsim.controller import cong_avoid_ai, slow_start_units


class Aimd(ccsim.Controller):
    """AIMD(a, b): +a segments per RTT, keep 1 - b of the flight on loss."""

    params = {"a": (1.0, "segments per RTT"), "b": (B, "fraction removed on loss")}

    def cong_avoid(self, s, acked):
        n = slow_start_units(False, s, acked)
        if n:
            cong_avoid_ai(s, s.cwnd / self.a, n)

    def ssthresh(self, s):
        return max(s.flight * (1 - self.b), 2.0)
'''

BASE = """name = "py-cc-sweep"
seed = 1
duration_s = 5.0
sample_interval_s = 0
[topology]
kind = "dumbbell"
bottleneck_rate_bps = 50e6
bottleneck_queue = { kind = "droptail", limit_pkts = 60 }
[[flows]]
count = 3
cc = "mycc:Aimd"
rtt_range_s = [0.02, 0.08]
"""


def _sweep(cwd: Path, out: str, *extra: str) -> str:
    if extra == ("inprocess",):  # the library's in-process backend, as the reference
        cmd = [sys.executable, "-c", "from ccsim.sweep import sweep; "
               f"sweep('base.toml', {{'seed': [1, 2, 3, 4]}}, {out!r}, backend='inprocess', progress=False)"]
    else:
        cmd = [sys.executable, "-m", "ccsim", "sweep", "base.toml", "--grid", "seed=1,2,3,4", "--out", out,
               "--quiet", *extra]
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return r.stdout


def _results(out: Path):
    """{run key: results without the timings} of a sweep's run cache."""
    got = {}
    for f in sorted((out / "runs").glob("*.json")):
        d = json.loads(f.read_text())
        r = d["results"]
        r.pop("wall_s"), r.pop("cpu_s")
        got[d["key"]] = r
    return got


@pytest.fixture()
def project(tmp_path):
    (tmp_path / "mycc.py").write_text(CONTROLLER.replace("(B,", "(0.5,"))
    (tmp_path / "base.toml").write_text(BASE)
    return tmp_path


def test_a_python_controller_sweeps_on_two_workers_like_in_process(project):
    _sweep(project, "inproc", "inprocess")
    out = _sweep(project, "pool", "--workers", "2")
    assert "4 runs (0 from cache)" in out, out
    want = _results(project / "inproc")
    assert len(want) == 4 and _results(project / "pool") == want
    assert all(r["events"] > 0 and r["flows"][0]["cc"] == "mycc:Aimd" for r in want.values())
    assert "4 runs (4 from cache)" in _sweep(project, "pool", "--workers", "2")
    # the controller edited: its runs are new runs, with new results
    (project / "mycc.py").write_text(CONTROLLER.replace("(B,", "(0.2,"))
    out = _sweep(project, "pool", "--workers", "2")
    assert "4 runs (0 from cache)" in out, out
    edited = {k: v for k, v in _results(project / "pool").items() if k not in want}
    assert len(edited) == 4 and sorted(r["events"] for r in edited.values()) != sorted(
        r["events"] for r in want.values())


def test_a_python_controller_sweeps_on_a_dask_cluster_of_two_workers(project, tmp_path_factory):
    pytest.importorskip("dask.distributed")
    elsewhere = tmp_path_factory.mktemp("workers")  # the workers do not see mycc.py
    procs = []
    try:
        address = _start_cluster(elsewhere, procs)
        _sweep(project, "inproc", "inprocess")
        out = _sweep(project, "dask", "--dask", address)
        assert "4 runs (0 from cache)" in out, out
        assert _results(project / "dask") == _results(project / "inproc")
        logs = "".join((elsewhere / f"worker{i}.log").read_text() for i in range(2))
        assert "Traceback" not in logs
    finally:
        _stop(procs)
