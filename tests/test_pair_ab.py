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


def test_summary_interval_and_sign_test_follow_the_binomial():
    # Twelve ratios: the 95% interval of the median is the 3rd and 10th of
    # them in order (P(Bin(12, 1/2) <= 2) = 79/4096 < 0.025 <
    # P(<= 3) = 299/4096), whatever their values.
    ratios = [1.10, 0.93, 0.95, 0.96, 0.97, 0.98, 0.99, 0.91, 1.01, 1.02, 1.05, 0.90]
    s = pair_ab.summarize(ratios)
    assert s["median_ci95"] == pytest.approx([0.93, 1.02])
    assert (s["median_ratio"], s["min_ratio"], s["max_ratio"]) == pytest.approx((0.975, 0.90, 1.10))
    # Sign test against a median of 1: 8 of 12 below, two-sided.
    from math import comb
    assert s["sign_test_p"] == pytest.approx(2 * sum(comb(12, k) for k in range(8, 13)) / 4096)
    # Six pairs all faster: p = 2 / 2^6, the interval the smallest and largest.
    s = pair_ab.summarize([0.70, 0.72, 0.71, 0.75, 0.74, 0.73])
    assert s["sign_test_p"] == pytest.approx(2 / 64) and s["median_ci95"] == pytest.approx([0.70, 0.75])
    # Fewer than six pairs cannot give a 95% interval.
    assert pair_ab.summarize([0.9, 0.8, 0.85])["median_ci95"] is None


@two_cores
def test_the_printed_line_has_the_interval(tmp_path, capsys):
    old = fake_engine(tmp_path, "old", 2.0, 0.5)
    new = fake_engine(tmp_path, "new", 1.0, 0.5)
    assert pair_ab.main([old, new, "B1", "--duration", "1", "--pairs", "6"]) == 0
    out = capsys.readouterr().out
    assert "median 0.500 [0.500, 0.500], 95% CI [0.500, 0.500], sign test p 0.031;" in out


def logging_engine(tmp_path: Path, name: str, wall: float) -> str:
    """A stand-in that appends (name, start, end, core set) to a shared log
    and takes a little time, so overlapping runs would show."""
    p = tmp_path / name
    log = tmp_path / "log.jsonl"
    p.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys, time\n"
        "t0 = time.monotonic(); time.sleep(0.05); t1 = time.monotonic()\n"
        f"open({str(log)!r}, 'a').write(json.dumps([{name!r}, t0, t1, sorted(os.sched_getaffinity(0))]) + '\\n')\n"
        f"print(json.dumps({{'wall_s': {wall}, 'events': 7}}))\n"
    )
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return str(p)


def test_one_core_runs_each_pair_in_turn_on_one_core(tmp_path):
    old = logging_engine(tmp_path, "old", 2.0)
    new = logging_engine(tmp_path, "new", 1.0)
    out = tmp_path / "r.json"
    assert pair_ab.main([old, new, "B1", "--duration", "1", "--pairs", "4", "--one-core", "--json", str(out)]) == 0
    r = json.loads(out.read_text())
    assert r["median_ratio"] == pytest.approx(0.5) and r["same_results"] is True
    runs = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    # old first in even pairs, new first in odd ones
    assert [n for n, *_ in runs] == ["old", "new", "new", "old", "old", "new", "new", "old"]
    # one after the other, never at the same time, all on one core
    for (_, _, end, _), (_, start, _, _) in zip(runs, runs[1:]):
        assert start >= end
    assert len({tuple(c) for *_, c in runs}) == 1 and len(runs[0][3]) == 1
