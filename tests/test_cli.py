"""The ccsim command: outputs, listings, and `error:` + exit 2 on bad input."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pandas as pd
import pytest

from ccsim import experiments
from ccsim.cli import main, parse_grid
from ccsim.experiments import Check, register

from conftest import assert_conserved


def _cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_run_writes_outputs(tmp_path, small_toml, capsys):
    out = tmp_path / "out"
    code, stdout, err = _cli(capsys, "run", str(small_toml), "--out", str(out), "--no-progress")
    assert code == 0, err
    for name in ("summary.json", "flow_series.parquet", "link_series.parquet",
                 "fairness_series.parquet", "cwnd.png", "queue.png", "loss.png"):
        assert (out / name).exists(), name
    assert not (out / "flows.csv").exists()
    assert_conserved(out / "summary.json")
    assert "goodput_Mbps" in stdout and "util" in stdout


def test_run_csv_no_plots(tmp_path, small_toml, capsys):
    out = tmp_path / "out"
    code, _, err = _cli(capsys, "run", str(small_toml), "--out", str(out), "--csv", "--no-plots")
    assert code == 0, err
    assert (out / "flow_series.csv").exists() and (out / "links.csv").exists()
    assert not (out / "cwnd.png").exists()
    assert_conserved(out / "summary.json")
    assert len(pd.read_csv(out / "flows.csv")) == 2


def test_list(capsys):
    code, out, _ = _cli(capsys, "list")
    assert code == 0
    assert "reno" in out and "droptail" in out and "experiments:" in out
    code, out, _ = _cli(capsys, "list", "queues")
    assert code == 0 and "droptail" in out and "reno" not in out.split("queues:")[1].split("\n")[1]


def test_sweep_cli(tmp_path, small_toml, capsys):
    out = tmp_path / "sw"
    argv = ["sweep", str(small_toml), "--grid", "flows.0.count=1,2", "--grid", "seed=1,2",
            "--out", str(out), "--workers", "2", "--no-progress"]
    code, stdout, err = _cli(capsys, *argv)
    assert code == 0, err
    df = pd.read_csv(out / "sweep.csv")
    assert len(df) == 4 and set(df["flows.0.count"]) == {1, 2}
    assert len(pd.read_parquet(out / "sweep.parquet")) == 4
    for f in (out / "runs").glob("*.json"):
        assert_conserved(f)
    code, stdout, _ = _cli(capsys, *argv)
    assert code == 0 and "4 from cache" in stdout


def test_parse_grid():
    g = parse_grid(["topology.bottleneck_rate_bps=1e8,1e9", "flows.0.cc=reno",
                    "flows.0.rtt_range_s=[0.01,0.1],[0.05,0.2]", "flows.0.delayed_ack=true,false"])
    assert g == {"topology.bottleneck_rate_bps": [1e8, 1e9], "flows.0.cc": ["reno"],
                 "flows.0.rtt_range_s": [[0.01, 0.1], [0.05, 0.2]],
                 "flows.0.delayed_ack": [True, False]}
    assert isinstance(parse_grid(["flows.0.count=3"])["flows.0.count"][0], int)


def test_reproduce_registered_experiment(tmp_path, capsys):
    @register("test-cli-dummy", paper="Nobody 2024", description="two checks, one off")
    def dummy(out_dir, quick, workers):
        (out_dir / "data.csv").write_text("x\n1\n")
        return [Check("a", paper=10.0, ccsim=10.5, tolerance=0.1, source="paper"),
                Check("b", paper=10.0, ccsim=20.0, tolerance=0.1, source="paper", read_from="Fig 1"),
                Check("c", paper=1.0, ccsim=1.0, tolerance=0.1, source="model")]

    try:
        code, out, err = _cli(capsys, "reproduce", "test-cli-dummy", "--quick", "--out", str(tmp_path / "r"))
        assert code == 0, err
        assert out.strip().splitlines()[-1] == "paper: 1/2 within tolerance; model: 1/1"
        assert "paper (read from Fig 1)" in out
        doc = json.loads((tmp_path / "r" / "checks.json").read_text())
        checks = doc["checks"]
        assert [c["ok"] for c in checks] == [True, False, True]
        assert [c["source"] for c in checks] == ["paper", "paper", "model"]
        assert {"quantity", "paper", "ccsim", "deviation", "tolerance", "ok", "source"} <= set(checks[0])
        assert doc["summary"]["by_source"] == {"paper": {"ok": 1, "total": 2}, "model": {"ok": 1, "total": 1}}
        assert doc["summary"]["headline"] == "paper: 1/2 within tolerance; model: 1/1"
        code, out, _ = _cli(capsys, "list", "experiments")
        assert "test-cli-dummy" in out and "Nobody 2024" in out
    finally:
        experiments.REGISTRY.pop("test-cli-dummy", None)


def _bad_inputs(tmp_path, small_toml):
    bad_toml = tmp_path / "bad.toml"
    bad_toml.write_text("duration_s = = 3\n")
    invalid = tmp_path / "invalid.toml"
    invalid.write_text(small_toml.read_text().replace('cc = "reno"', 'cc = "foo"'))
    huge = tmp_path / "huge.toml"
    huge.write_text(small_toml.read_text().replace("count = 2", "count = 4000000000", 1))
    dense = tmp_path / "dense.toml"
    dense.write_text(re.sub(r"(?m)^sample_interval_s = .*$", "sample_interval_s = 1e-9", small_toml.read_text()))
    nan_json = tmp_path / "nan.json"
    nan_json.write_text('{"duration_s": 1.0, "topology": {"kind": "dumbbell", "bottleneck_rate_bps": 1e7, '
                        '"bottleneck_queue": {"limit_pkts": 20}}, "flows": [{"rtt_s": [0.1, NaN], "count": 2}]}')
    latin1 = tmp_path / "latin1.toml"
    latin1.write_bytes(b'name = "ok"\n# caf\xe9\n')
    base = small_toml.read_text()
    dated = tmp_path / "dated.toml"
    dated.write_text(base.replace("count = 2", "count = 2\nstart_s = 1979-05-27", 1))
    stamped = tmp_path / "stamped.toml"
    stamped.write_text("name = 1979-05-27T07:32:00Z\n" + re.sub(r"(?m)^name = .*\n", "", base, count=1))
    timed = tmp_path / "timed.toml"
    timed.write_text("warmup_s = 07:32:00\n" + re.sub(r"(?m)^warmup_s = .*\n", "", base, count=1))
    deep_toml = tmp_path / "deep.toml"
    deep_toml.write_text("x = " + "[" * 600 + "]" * 600 + "\n" + base)
    deep_json = tmp_path / "deep.json"
    deep_json.write_text('{"duration_s": 1.0, "flows": [{"rtt_s": ' + "[" * 1200 + "]" * 1200 + "}]}")
    nested = tmp_path / "nested.json"
    nested.write_text('{"duration_s": 1.0, "x": ' + "[" * 100 + "]" * 100 + "}")
    return [
        (["run", str(tmp_path / "missing.toml"), "--out", str(tmp_path / "o")], "missing.toml"),
        (["run", str(bad_toml), "--out", str(tmp_path / "o")], "invalid TOML"),
        (["run", str(invalid), "--out", str(tmp_path / "o")], "scenario.flows[0].cc"),
        (["reproduce", "no-such-experiment"], "unknown experiment"),
        (["run", str(latin1), "--out", str(tmp_path / "o")], "line 2: byte 0xe9 is not UTF-8"),
        (["run", str(nan_json), "--out", str(tmp_path / "o")], "scenario.flows[0].rtt_s[1]: nan is not allowed"),
        (["run", str(huge), "--out", str(tmp_path / "o")], "scenario.flows[0].count: 4000000000 is too many"),
        (["run", str(dense), "--out", str(tmp_path / "o")], "scenario.sample_interval_s: 1e-9 s gives"),
        (["sweep", str(small_toml), "--grid", "flows.0.count", "--out", str(tmp_path / "o")], "bad --grid"),
        (["sweep", str(small_toml), "--grid", "flows.0.count=[1,2", "--out", str(tmp_path / "o")], "bad --grid"),
        (["sweep", str(small_toml), "--grid", "flows.5.count=1", "--out", str(tmp_path / "o")], "out of range"),
        (["bench", "B9"], "unknown benchmark"),
        (["bench", "B1", "--rounds", "0"], "--rounds: 0 is not allowed; must be 1 or more"),
        (["list", "bogus"], "invalid choice"),
        (["run"], "required"),
        (["run", str(dated), "--out", str(tmp_path / "o")],
         f"{dated}: scenario.flows[0].start_s: 1979-05-27 (a TOML date) is not allowed; scenarios hold no dates"),
        (["run", str(stamped), "--out", str(tmp_path / "o")],
         f"{stamped}: scenario.name: 1979-05-27T07:32:00+00:00 (a TOML date-time) is not allowed"),
        (["run", str(timed), "--out", str(tmp_path / "o")],
         f"{timed}: scenario.warmup_s: 07:32:00 (a TOML time) is not allowed; scenarios hold no dates or times"),
        (["run", str(deep_toml), "--out", str(tmp_path / "o")], "deep.toml: line 1 (in x): lists/tables nested more"),
        (["run", str(deep_json), "--out", str(tmp_path / "o")], "deep.json: line 1 (in rtt_s): lists/tables nested"),
        (["run", str(nested), "--out", str(tmp_path / "o")],
         f"{nested}: scenario.x" + "[0]" * 31 + ": lists/tables nested more"),
    ]


def test_bad_input_in_process(tmp_path, small_toml, capsys):
    for argv, needle in _bad_inputs(tmp_path, small_toml):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse usage errors
            code = exc.code
        _, err = capsys.readouterr()
        assert code == 2, (argv, err)
        assert "error: " in err and needle in err, (argv, err)
        assert "Traceback" not in err


def test_api_dates_and_deep_nesting_name_the_field():
    import datetime

    from ccsim import UserError
    from ccsim.runner import simulation

    deep = []
    for _ in range(900):
        deep = [deep]
    for v, needle in [(datetime.date(1979, 5, 27), "1979-05-27 (a TOML date) is not allowed"),
                      (datetime.time(7, 32), "07:32:00 (a TOML time) is not allowed"),
                      (deep, "[0]: lists/tables nested more than 32 levels deep")]:
        d = {"duration_s": 1.0, "flows": [{"rtt_s": 0.1, "start_s": v}],
             "topology": {"kind": "dumbbell", "bottleneck_rate_bps": 1e7, "bottleneck_queue": {"limit_pkts": 20}}}
        with pytest.raises(UserError) as exc:
            simulation(d)
        assert str(exc.value).startswith("scenario.flows[0].start_s") and needle in str(exc.value), exc.value


@pytest.mark.parametrize("which", [0, 2])
def test_bad_input_subprocess_no_traceback(tmp_path, small_toml, which):
    argv, needle = _bad_inputs(tmp_path, small_toml)[which]
    proc = subprocess.run([sys.executable, "-m", "ccsim", *argv], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and needle in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bench_quick_json():
    proc = subprocess.run([sys.executable, "-m", "ccsim", "bench", "--quick", "--json", "B1"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert [r["name"] for r in rows] == ["B1"]
    r = rows[0]
    assert set(r) == {"name", "wall_s", "repeats", "events", "events_per_s", "bottleneck_pkts_per_s",
                      "events_per_bottleneck_pkt", "peak_rss_mb", "utilization", "loss_rate", "pgo"}
    from ccsim._native import core
    assert r["pgo"] == core().build_info()["pgo"]  # the row names the build it measured
    assert r["events"] > 0 and r["bottleneck_pkts_per_s"] > 0 and r["peak_rss_mb"] > 0
    # hops are cut through and FIFO departures computed at arrival, but a
    # packet and its ACK each still reach their endpoint by an event
    assert 1.9 < r["events_per_bottleneck_pkt"] < 20.0
    assert 0.0 < r["utilization"] <= 1.0 and 0.0 <= r["loss_rate"] < 1.0


def test_bench_controller_rows_compare_with_b2():
    from ccsim.bench import BENCHMARKS, CONTROLLER_ROWS, scenario

    # every controller row is B2's scenario with only the controller changed
    b2 = scenario("B2").to_dict()
    for cc in CONTROLLER_ROWS:
        d = scenario(f"B2-{cc}").to_dict()
        assert d["flows"][0].pop("cc") == cc and b2["flows"][0]["cc"] == "reno"
        assert {**d, "name": "x", "flows": [{**d["flows"][0]}]} == {
            **b2, "name": "x", "flows": [{k: v for k, v in b2["flows"][0].items() if k != "cc"}]}
    assert {"B2-hstcp", "B2-stcp", "B2-htcp", "B2-ltcp", "B2-cubic"} <= set(BENCHMARKS)
    proc = subprocess.run([sys.executable, "-m", "ccsim", "bench", "--quick", "--json", "B2", "B2-ltcp"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert "vs_base" not in rows[0] and rows[1]["vs_base"] > 0
    assert abs(rows[1]["vs_base"] - rows[1]["events_per_s"] / rows[0]["events_per_s"]) < 1e-9


def test_bench_capped_rows_do_identical_work():
    # B2cap-<cc> is only a per-ACK cost comparison if every controller
    # produces exactly the same events as NewReno: loss-free, window capped
    from ccsim.bench import CONTROLLER_ROWS, run_one

    base = run_one("B2cap", quick=True)
    assert base["loss_rate"] == 0.0
    for cc in CONTROLLER_ROWS:
        assert run_one(f"B2cap-{cc}", quick=True)["events"] == base["events"], cc


@pytest.mark.parametrize("flag, bar", [("--progress", True), ("--quiet", False), ("--no-progress", False)])
def test_reproduce_progress_reaches_the_experiments_sweeps(tmp_path, small_toml, capsys, flag, bar):
    """An experiment's sweeps are made inside its module: --progress shows
    their bar (with ETA) off a terminal, --quiet/--no-progress hide it."""
    from ccsim.sweep import sweep

    @register("test-cli-progress", paper="Nobody 2024", description="one sweep of two runs")
    def prog(out_dir, quick, workers):
        df = sweep(str(small_toml), {"seed": [1, 2]}, out_dir, workers=1, backend="inprocess")
        return [Check("runs", paper=2.0, ccsim=float(len(df)), tolerance=0.0, source="model")]

    try:
        code, _, err = _cli(capsys, "reproduce", "test-cli-progress", "--out", str(tmp_path / "r"), flag)
        assert code == 0, err
        shown = re.search(r"sweep:\s+100%.*2/2 \[", err)
        assert bool(shown) == bar, err
    finally:
        experiments.REGISTRY.pop("test-cli-progress", None)
