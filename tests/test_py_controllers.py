"""Controllers written in Python (``ccsim.Controller``).

The exactness check: examples/controllers/ holds Reno, CUBIC and DCTCP
written in Python with the engine's own window arithmetic; run in place of
the built-ins on every golden scenario that uses them, they must give
results identical to the built-ins', event for event (the event count,
every flow and link figure, every series sample). Then the interface as a
user meets it: registration, ``"module:Class"`` and ``"file.py:Class"``
names, declared parameters and ECN needs, ``ccsim list``, errors that name
the flow, time and hook.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import ccsim
from ccsim._native import UserError, core

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "crates" / "ccsim-core" / "tests" / "golden"
EXAMPLES = ROOT / "examples" / "controllers"
#: Built-in name -> the Python class that copies it.
PYTHON_TWINS = {
    "reno": f"{EXAMPLES / 'reno.py'}:Reno",
    "cubic": f"{EXAMPLES / 'cubic.py'}:Cubic",
    "dctcp": f"{EXAMPLES / 'dctcp.py'}:Dctcp",
}


def _result(d: dict) -> dict:
    r = json.loads(core().Simulation(json.dumps(d)).finish())
    for k in ("wall_s", "cpu_s"):
        r.pop(k)
    return r


def _declared(name: str) -> set:
    return {p["name"] for e in ccsim.catalog()["controllers"] if e["name"] == name for p in e["params"]}


#: Flows of the ``linux`` personality keep their built-in controller: the
#: personality gives a built-in its Linux parameters (CUBIC's kernel
#: variant in integers and jiffies, ``abc``; transport/tcp/personality.rs
#: ``fill_linux``), which a Python twin, an external controller, does not
#: take, so the two would run different controllers.
LINUX_KEPT = "tcp_model = linux"


def _twin_cases():
    """(golden file, scenario with the Python twins in place of the built-ins)."""
    out = []
    for path in sorted(GOLDEN.glob("*.toml")):
        d = ccsim.load_scenario(str(path)).to_dict()
        changed = False
        for f in d.get("flows", []):
            twin = PYTHON_TWINS.get(f.get("cc", ""))
            if twin is None or f.get("transport", "tcp") != "tcp" or f.get("tcp_model") == "linux":
                continue  # (the linux personality: see LINUX_KEPT)
            if not set(f.get("cc_params") or {}) <= _declared(f["cc"]) - {"hystart"} or any(
                k.startswith("hystart") for k in f.get("cc_params") or {}
            ):
                continue
            f["cc"] = twin
            changed = True
        if changed:
            out.append(pytest.param(path.name, d, id=path.stem))
    return out


def _strip_names(r: dict) -> dict:
    for f in r["flows"]:
        f.pop("cc")
    return r


@pytest.mark.parametrize("golden,twin", _twin_cases())
def test_python_twins_give_the_builtins_results_event_for_event(golden, twin):
    builtin = json.loads(json.dumps(twin))
    by_twin = {v: k for k, v in PYTHON_TWINS.items()}
    for f in builtin["flows"]:
        f["cc"] = by_twin.get(f.get("cc"), f.get("cc"))
    want, got = _result(builtin), _result(twin)
    assert got["events"] == want["events"], golden
    assert _strip_names(got) == _strip_names(want), golden


def test_the_twins_cover_reno_cubic_and_dctcp():
    used = {f.get("cc") for p in _twin_cases() for f in p.values[1]["flows"]}
    assert set(PYTHON_TWINS.values()) <= used


def _dumbbell(cc: str, **flow) -> dict:
    return {
        "duration_s": 3.0,
        "topology": {"kind": "dumbbell", "bottleneck_rate_bps": 1e7, "bottleneck_delay_s": 0.01,
                     "bottleneck_queue": {"kind": "droptail", "limit_pkts": 20}},
        "flows": [{"cc": cc, "count": 2, **flow}],
    }


class Fixed(ccsim.Controller):
    """A fixed window of ``w`` segments."""

    params = {"w": (4.0, "the window, segments")}

    def cong_avoid(self, s, acked):
        s.cwnd = self.w

    def ssthresh(self, s):
        return self.w


def test_a_registered_class_runs_sees_its_parameters_and_is_listed():
    ccsim.register_controller("test-fixed", Fixed)
    r = ccsim.run(_dumbbell("test-fixed", cc_params={"w": 6}))
    assert (r.flows["final_cwnd"] == 6).all()
    entry = next(e for e in ccsim.catalog()["controllers"] if e["name"] == "test-fixed")
    assert entry["origin"] == "python" and entry["doc"] == "A fixed window of ``w`` segments."
    assert entry["params"] == [{"name": "w", "default": 4.0, "doc": "the window, segments"}]
    assert entry["pacing_rate"] is False and entry["ecn"] is None


def test_bad_parameters_and_names_are_refused_by_field():
    ccsim.register_controller("test-fixed", Fixed)
    with pytest.raises(UserError, match=r"flows\[0\]\.cc_params\.x.*unknown parameter.*allowed: w"):
        ccsim.run(_dumbbell("test-fixed", cc_params={"x": 1}))
    with pytest.raises(UserError, match=r"flows\[0\]\.cc_params\.w.*must be of the default's type"):
        ccsim.run(_dumbbell("test-fixed", cc_params={"w": "big"}))
    with pytest.raises(UserError, match="built-in controller's name"):
        ccsim.register_controller("cubic", Fixed)
    with pytest.raises(UserError, match="subclass of ccsim.Controller"):
        ccsim.register_controller("x", object)

    class NoSsthresh(ccsim.Controller):
        def cong_avoid(self, s, acked):
            pass

    with pytest.raises(UserError, match="must define ssthresh"):
        ccsim.register_controller("x", NoSsthresh)
    with pytest.raises(UserError, match=r"flows\[0\]\.cc.*no_such_module"):
        ccsim.run(_dumbbell("no_such_module:Cc"))
    with pytest.raises(UserError, match=r"flows\[0\]\.cc.*unknown value \"nope\".*reno"):
        ccsim.run(_dumbbell("nope"))


def test_an_exception_stops_the_run_naming_flow_time_and_hook():
    class Breaks(Fixed):
        def ssthresh(self, s):
            raise KeyError("boom")

    ccsim.register_controller("test-breaks", Breaks)
    with pytest.raises(ccsim.ControllerError) as ei:
        ccsim.run(_dumbbell("test-breaks", cc_params={"w": 100}))
    msg = str(ei.value)
    assert msg.startswith('controller "test-breaks" of flow ') and " raised in ssthresh at t = " in msg
    assert "KeyError: 'boom'" in msg
    assert isinstance(ei.value.__cause__, KeyError) and ei.value.__cause__.__traceback__ is not None


def test_a_hook_returning_a_non_number_is_an_error():
    class Nan(Fixed):
        def ssthresh(self, s):
            return None

    ccsim.register_controller("test-nan", Nan)
    with pytest.raises(ccsim.ControllerError, match="ssthresh must return a finite number"):
        ccsim.run(_dumbbell("test-nan", cc_params={"w": 100}))


def test_declared_ecn_sets_the_flows_ecn_and_is_enforced():
    sys.path.insert(0, str(EXAMPLES))
    try:
        from dctcp import Dctcp
    finally:
        sys.path.remove(str(EXAMPLES))
    ccsim.register_controller("test-dctcp", Dctcp)
    d = json.loads(core().validate(json.dumps(_dumbbell("test-dctcp"))))
    assert d["flows"][0]["ecn"] is True and d["flows"][0]["ecn_feedback"] == "dctcp"
    with pytest.raises(UserError, match=r"flows\[0\]\.ecn.*false is not allowed with cc = \"test-dctcp\""):
        ccsim.run(_dumbbell("test-dctcp", ecn=False))


def test_a_rate_paced_controller_gets_rate_pacing_and_its_samples():
    seen = []

    class Rate(ccsim.Controller):
        def cong_control(self, s, rs):
            seen.append((rs.ca_state, rs.delivered, rs.rate_pkts_per_s()))
            s.cwnd = 20.0
            s.pacing_rate = 5e5
            return False

    ccsim.register_controller("test-rate", Rate)
    d = json.loads(core().validate(json.dumps(_dumbbell("test-rate"))))
    assert d["flows"][0]["pacing"] == "rate"
    r = ccsim.run(_dumbbell("test-rate"))
    assert seen and {c for c, _, _ in seen} <= {"open", "recovery", "loss"}
    # each flow is held to the rate it set: 0.5 MB/s of payload at most,
    # and not far below it (the first RTT has no rate yet)
    for g in r.flows["goodput_bps"]:
        assert 0.9 * 4e6 < g <= 4e6


def test_a_module_named_in_the_scenario_runs_in_a_fresh_process(tmp_path):
    (tmp_path / "mymod.py").write_text(
        "import ccsim\n"
        "class Half(ccsim.Controller):\n"
        "    def cong_avoid(self, s, acked):\n"
        "        s.cwnd += acked / s.cwnd\n"
        "    def ssthresh(self, s):\n"
        "        return max(s.cwnd / 2, 2.0)\n"
    )
    sc = tmp_path / "sc.json"
    sc.write_text(json.dumps(_dumbbell("mymod:Half")))
    out = subprocess.run([sys.executable, "-m", "ccsim", "run", str(sc), "--out", str(tmp_path / "out")],
                         cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    flows = json.loads((tmp_path / "out" / "summary.json").read_text())["flows"]
    assert [f["cc"] for f in flows] == ["mymod:Half", "mymod:Half"]
    assert all(f["goodput_bps"] > 1e6 for f in flows)


def test_the_fuzz_draws_a_python_controller_by_its_declaration(tmp_path):
    from ccsim import fuzz

    twin = PYTHON_TWINS["dctcp"]
    for i in range(30):
        sc = fuzz.scenario(1, i, [twin])
        for f in sc["flows"]:
            if f.get("transport", "tcp") == "tcp" and "cc" in f:
                assert f["cc"] == twin
                # declared an ECN scheme: ECN on, never Sack1 (which takes no ECN)
                assert f["ecn"] is True and f["recovery"] != "sack1"
    out = subprocess.run([sys.executable, "-m", "ccsim", "fuzz", "--cases", "3", "--cc", PYTHON_TWINS["reno"],
                          "--out", str(tmp_path), "--quiet"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "fuzz: 3 cases (seed 1), 0 failing" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "ccsim", "fuzz", "--cases", "1", "--cc", "nope"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "--cc: unknown controller 'nope'" in bad.stderr and "Traceback" not in bad.stderr


def test_ccsim_run_prints_the_controllers_error_and_its_traceback(tmp_path):
    (tmp_path / "brk.py").write_text(
        "import ccsim\n"
        "class Brk(ccsim.Controller):\n"
        "    def cong_avoid(self, s, acked):\n"
        "        s.cwnd += (1 / 0) if s.now_s > 1.0 else 1.0 / s.cwnd\n"
        "    def ssthresh(self, s):\n"
        "        return 2.0\n"
    )
    (tmp_path / "sc.json").write_text(json.dumps(_dumbbell("brk:Brk")))
    r = subprocess.run([sys.executable, "-m", "ccsim", "run", "sc.json", "--out", "o"], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode == 1
    lines = r.stderr.splitlines()
    assert lines[0].startswith('error: controller "brk:Brk" of flow ') and "raised in cong_avoid at t = 1.0" in lines[0]
    assert lines[0].endswith("ZeroDivisionError: division by zero")
    assert lines[1] == "the controller's traceback (most recent call last):"
    assert 'brk.py", line 4, in cong_avoid' in r.stderr and "ccsim/" not in r.stderr


def test_python_twins_match_the_builtins_on_random_scenarios():
    """The fuzz's random scenarios (ECN and AccECN, PRR, pacing, delayed
    ACKs, every recovery, AQMs, random loss, finite transfers) with Reno,
    CUBIC and DCTCP, run again with their Python twins: identical. One
    pairing is left out, by design: ns-2's Sack1 agent halves the window
    itself for the built-in ``reno`` (ns-2's ``slowdown`` of window option
    1, sack1.rs ``sack1_slowdown``), where it asks any other controller's
    ``ssthresh``. Flows of the ``linux`` personality keep their built-in
    (:data:`LINUX_KEPT`)."""
    from ccsim import fuzz

    compared = 0
    for i in range(60):
        sc = fuzz.scenario(7, i, ["reno", "cubic", "dctcp"])
        twin = json.loads(json.dumps(sc))
        for f in twin["flows"]:
            sack1_reno = f.get("cc") == "reno" and f.get("recovery") == "sack1"
            if f.get("cc") in PYTHON_TWINS and not sack1_reno and f.get("tcp_model") != "linux":
                f["cc"] = PYTHON_TWINS[f["cc"]]
        if twin == sc:
            continue
        want, got = _result(sc), _result(twin)
        assert got["events"] == want["events"], i
        assert _strip_names(got) == _strip_names(want), i
        compared += 1
    assert compared >= 50
