"""benches/pair_ab.py: paired runs of two builds, with stand-in engines
(scripts printing a summary the way the ``run`` example does)."""

import importlib.util
import json
import os
import stat
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[1] / "benches" / "pair_ab.py"
spec = importlib.util.spec_from_file_location("pair_ab", _PATH)
pair_ab = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pair_ab)

two_cores = pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="pairs need two cores")


def fake_engine(tmp_path: Path, name: str, wall: float, util: float) -> str:
    """A stand-in for the run example: checks it got a scenario file and
    prints a summary with the given wall time and utilisation."""
    p = tmp_path / name
    p.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        "sc = json.load(open(sys.argv[1]))\n"
        f"print(json.dumps({{'wall_s': {wall}, 'events': 7, 'name': sc['name'], 'util': {util}}}))\n"
    )
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return str(p)


@two_cores
def test_ratio_and_identical_results(tmp_path):
    old = fake_engine(tmp_path, "old", 2.0, 0.5)
    new = fake_engine(tmp_path, "new", 1.5, 0.5)
    out = tmp_path / "r.json"
    assert pair_ab.main([old, new, "B1", "--duration", "1", "--pairs", "3", "--json", str(out)]) == 0
    r = json.loads(out.read_text())
    assert r["pairs"] == 3 and r["row"] == "B1" and r["duration_s"] == 1
    assert r["median_ratio"] == pytest.approx(0.75)
    assert r["same_results"] is True


@two_cores
def test_different_results_are_reported(tmp_path, capsys):
    old = fake_engine(tmp_path, "old", 1.0, 0.5)
    new = fake_engine(tmp_path, "new", 1.0, 0.6)
    assert pair_ab.main([old, new, "B1", "--pairs", "2"]) == 0
    assert "results DIFFER" in capsys.readouterr().out


@two_cores
def test_bad_input_is_named(tmp_path, capsys):
    eng = fake_engine(tmp_path, "eng", 1.0, 0.5)
    with pytest.raises(SystemExit):
        pair_ab.main([eng, eng, "B9"])
    assert "unknown bench row 'B9'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        pair_ab.main([eng, str(tmp_path / "missing"), "B1"])
    assert "new:" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        pair_ab.main([eng, eng, "B1", "--pairs", "0"])
    assert "--pairs: 0" in capsys.readouterr().err
    broken = tmp_path / "broken"
    broken.write_text("#!/bin/sh\necho oops >&2\nexit 3\n")
    broken.chmod(0o755)
    assert pair_ab.main([eng, str(broken), "B1", "--pairs", "1"]) == 1
    assert "exited with 3" in capsys.readouterr().err


@two_cores
def test_a_scenario_file_is_a_row(tmp_path, capsys):
    # A scenario of one's own (here B1 with another name and RTT), run as
    # written but for --duration; a bad file is refused with its field.
    from ccsim.bench import scenario

    sc = scenario("B1").to_dict()
    sc["name"] = "mine"
    (tmp_path / "mine.json").write_text(json.dumps(sc))
    old = fake_engine(tmp_path, "old", 2.0, 0.5)
    new = fake_engine(tmp_path, "new", 1.0, 0.5)
    out = tmp_path / "r.json"
    args = [old, new, str(tmp_path / "mine.json"), "--duration", "2", "--pairs", "2", "--json", str(out)]
    assert pair_ab.main(args) == 0
    r = json.loads(out.read_text())
    assert (r["row"], r["duration_s"], r["median_ratio"]) == ("mine.json", 2, pytest.approx(0.5))
    assert "mine.json (2 s), 2 pairs" in capsys.readouterr().out
    sc["duration_s"] = -1
    (tmp_path / "bad.json").write_text(json.dumps(sc))
    with pytest.raises(SystemExit):
        pair_ab.main([old, new, str(tmp_path / "bad.json")])
    assert "duration_s: -1 is not allowed" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        pair_ab.main([old, new, str(tmp_path / "none.toml")])
    assert "none.toml: no such file" in capsys.readouterr().err
