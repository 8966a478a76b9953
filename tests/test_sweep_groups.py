"""Sweep tables split by a flow field (``ccsim sweep --group-by``): a
scenario that mixes controllers (examples/bbr3-vs-cubic.toml) gets one row
per controller of each run instead of one goodput mean over BBR and CUBIC
flows together, ``ccsim plot --hue cc`` draws them apart, and
single-controller sweeps keep the table they always had."""

from __future__ import annotations

import math
import re
import shlex
from pathlib import Path

import pandas as pd
import pytest

import ccsim
from ccsim.cli import main
from ccsim.scenario import load_scenario
from ccsim.sweep import load_run, summarise, sweep
from ccsim.sweep_plot import plot_sweep

from conftest import assert_conserved, small_scenario

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "bbr3-vs-cubic.toml"
QUEUE = "topology.bottleneck_queue.kind"
# 3 simulated seconds instead of 30, no series: the example as a tiny sweep
SHORT = ["--grid", "duration_s=3", "--grid", "warmup_s=1", "--grid", "sample_interval_s=0"]


def _cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _documented_sweep() -> list:
    """The sweep command the example's header comment gives."""
    lines = [ln.lstrip("# ").strip() for ln in EXAMPLE.read_text().splitlines() if ln.startswith("#")]
    cmd = next(ln for ln in lines if ln.startswith("ccsim sweep "))
    return shlex.split(cmd)[1:]


@pytest.fixture(scope="module")
def example_sweep(tmp_path_factory):
    """The example's own sweep line (droptail vs fq_codel), shortened, run
    from the command line as a newcomer would."""
    d = tmp_path_factory.mktemp("groups")
    argv = _documented_sweep()
    assert argv[:2] == ["sweep", "examples/bbr3-vs-cubic.toml"] and "--grid" in argv
    argv[1] = str(EXAMPLE)
    argv[argv.index("--out") + 1] = str(d / "sw")
    assert main(argv + SHORT + ["--workers", "1", "--quiet"]) == 0
    return d / "sw"


def test_example_is_one_bdp_of_droptail_for_bbr3_and_cubic():
    sc = load_scenario(EXAMPLE).to_dict()
    topo, flows = sc["topology"], sc["flows"]
    assert [f["cc"] for f in flows] == ["bbr3", "cubic"]
    assert topo["bottleneck_rate_bps"] == 100e6 and topo["bottleneck_queue"]["kind"] == "droptail"
    assert all(f["rtt_s"] == 0.04 for f in flows)
    pkt = {f.get("mss_bytes", 1000) + f.get("header_bytes", 40) for f in flows}
    assert pkt == {1500}
    bdp_pkts = 100e6 * 0.040 / 8 / 1500
    assert topo["bottleneck_queue"]["limit_pkts"] == int(bdp_pkts) == 333
    assert "333 packets of 1500 B" in EXAMPLE.read_text()


def test_table_has_one_row_per_controller_of_each_run(example_sweep):
    df = pd.read_csv(example_sweep / "sweep.csv")
    assert len(df) == 4 and df["key"].nunique() == 2
    fields = list(df.columns[: list(df.columns).index("goodput_mean_bps")])
    assert fields[-1] == "cc" and QUEUE in fields
    assert list(df["cc"]) == ["bbr3", "cubic", "bbr3", "cubic"]
    assert list(df[QUEUE]) == ["droptail", "droptail", "fq_codel", "fq_codel"]
    assert (df["flows"] == 1).all()
    for key, rows in df.groupby("key", sort=False):
        res = load_run(example_sweep, key).raw
        assert_conserved(example_sweep / "runs" / f"{key}.json")
        by_cc = {f["cc"]: f["goodput_bps"] for f in res["flows"]}
        assert set(by_cc) == {"bbr3", "cubic"}
        for _, r in rows.iterrows():
            # the controller's own goodput, never a mean over BBR and CUBIC
            assert r["goodput_mean_bps"] == pytest.approx(by_cc[r["cc"]])
            assert r["goodput_total_bps"] == pytest.approx(by_cc[r["cc"]])
        assert rows["goodput_share"].sum() == pytest.approx(1.0)
        # run-level columns are the run's, the same on both rows
        for col in ("utilization", "loss_rate", "jain_index", "events"):
            assert rows[col].nunique() == 1, col
    bbr, cubic = (df[df["cc"] == cc].set_index(QUEUE)["goodput_mean_bps"] for cc in ("bbr3", "cubic"))
    assert (bbr != cubic).all(), "BBR and CUBIC rows carry different numbers"
    assert all(0 < v < 100e6 for v in df["goodput_mean_bps"])


def test_plot_hue_cc_draws_one_line_per_controller(example_sweep, capsys, tmp_path):
    out = tmp_path / "g.png"
    code, stdout, err = _cli(capsys, "plot", example_sweep, "--x", QUEUE, "--y", "goodput_mean_bps", "--hue", "cc",
                             "--out", out)
    assert code == 0, err
    assert out.read_bytes()[:4] == b"\x89PNG" and "4 points" in stdout
    drawn = plot_sweep(example_sweep, QUEUE, "goodput_share", hue="cc")
    assert [c.get_label() for c in drawn.ax.containers] == ["bbr3", "cubic"]
    assert drawn.ax.get_legend().get_title().get_text() == "congestion control"
    # without --hue the controllers would be averaged: refused, naming cc
    code, _, err = _cli(capsys, "plot", example_sweep, "--x", QUEUE, "--y", "goodput_mean_bps")
    assert code == 2 and "also varies cc = bbr3, cubic" in err


def test_rerun_takes_runs_from_cache_and_counts_runs_not_rows(example_sweep, capsys):
    argv = _documented_sweep()
    argv[1] = str(EXAMPLE)
    argv[argv.index("--out") + 1] = str(example_sweep)
    code, stdout, err = _cli(capsys, *argv, *SHORT, "--workers", "1", "--quiet")
    assert code == 0, err
    assert "2 runs (2 from cache), 4 rows: one per cc value of each run" in stdout


def test_group_by_none_keeps_one_pooled_row_per_run(example_sweep, capsys, tmp_path):
    code, stdout, err = _cli(capsys, "sweep", EXAMPLE, "--grid", f"{QUEUE}=droptail,fq_codel", *SHORT,
                             "--out", example_sweep, "--group-by", "none", "--quiet")
    assert code == 0, err
    df = pd.read_csv(example_sweep / "sweep.csv")
    assert len(df) == 2 and "cc" not in df and "goodput_share" not in df
    assert "2 runs (2 from cache); wrote" in stdout
    # the pooled mean is the mean over both controllers
    for _, r in df.iterrows():
        res = load_run(example_sweep, r["key"]).raw
        assert r["goodput_mean_bps"] == pytest.approx(sum(f["goodput_bps"] for f in res["flows"]) / 2)


def test_single_controller_sweep_keeps_its_table(tmp_path):
    base = small_scenario(duration_s=1.0)
    grid = {"topology.bottleneck_rate_bps": [5e6, 10e6], "flows.0.cc": ["reno", "cubic"]}
    auto = sweep(base, grid, tmp_path, workers=1, progress=False, group_by="auto")
    plain = sweep(base, grid, tmp_path, workers=1, progress=False)
    assert auto.attrs["group_by"] is None and plain.attrs["group_by"] is None
    cols = [c for c in plain.columns if c != "cached"]
    assert list(auto.columns) == list(plain.columns) and auto[cols].equals(plain[cols])
    assert len(auto) == 4 and "cc" not in auto and "flows" not in auto


def test_python_default_is_one_row_per_run(tmp_path):
    """Experiments read one row per point: the Python default stays so."""
    sc = load_scenario(EXAMPLE).to_dict()
    sc.update(duration_s=2.0, warmup_s=0.5, sample_interval_s=0)
    df = sweep(sc, [{}], tmp_path, workers=1, progress=False)
    assert len(df) == 1 and "cc" not in df
    split = sweep(sc, [{}], tmp_path, workers=1, progress=False, group_by="cc")
    assert list(split["cc"]) == ["bbr3", "cubic"] and split.attrs == {"runs": 1, "runs_cached": 1, "group_by": "cc"}
    assert split["goodput_total_bps"].sum() == pytest.approx(df["goodput_total_bps"].iloc[0])


def test_group_by_other_fields_and_mixed_classes(tmp_path):
    """Any flow field groups; a group holding TCP and UDP flows is not
    averaged (NaN, with the per-class columns), as a run's row is not."""
    sc = small_scenario(duration_s=1.0).to_dict()
    sc["flows"] = [{"count": 2, "cc": "reno", "rtt_s": 0.04},
                   {"count": 1, "cc": "cubic", "rtt_s": 0.08, "mss_bytes": 1460},
                   {"transport": "udp", "rate_bps": 1e6, "rtt_s": 0.04}]
    auto = sweep(sc, [{}], tmp_path, workers=1, progress=False, group_by="auto")
    assert list(auto["cc"]) == ["reno", "cubic", "udp"] and list(auto["flows"]) == [2, 1, 1]
    by_rtt = sweep(sc, [{}], tmp_path, workers=1, progress=False, group_by="rtt_prop_s")
    assert list(by_rtt["rtt_prop_s"]) == [0.04, 0.08] and list(by_rtt["flows"]) == [3, 1]
    mixed = by_rtt.iloc[0]
    assert math.isnan(mixed["goodput_mean_bps"]) and mixed["flows_tcp"] == 2 and mixed["flows_udp"] == 1
    assert not math.isnan(by_rtt.iloc[1]["goodput_mean_bps"])
    by_mss = sweep(sc, [{}], tmp_path, workers=1, progress=False, group_by="mss_bytes")  # a [[flows]] field
    assert list(by_mss["mss_bytes"]) == [1000, 1460] and list(by_mss["flows"]) == [3, 1]
    by_entry = sweep(sc, [{}], tmp_path, workers=1, progress=False, group_by="entry")
    assert list(by_entry["entry"]) == [0, 1, 2]


def test_seeds_summary_keeps_controllers_apart(tmp_path):
    sc = load_scenario(EXAMPLE).to_dict()
    sc.update(duration_s=2.0, warmup_s=0.5, sample_interval_s=0)
    for f in sc["flows"]:
        f["start_spread_s"] = 0.2  # the seed moves the starts
    df = sweep(sc, {QUEUE: ["droptail"]}, tmp_path, workers=1, progress=False, seeds=3, group_by="auto")
    assert len(df) == 6
    s = summarise(df)
    assert list(s["cc"]) == ["bbr3", "cubic"] and list(s["n"]) == [3, 3]
    for _, r in s.iterrows():
        vals = df.loc[df["cc"] == r["cc"], "goodput_mean_bps"]
        assert r["goodput_mean_bps_mean"] == pytest.approx(vals.mean())
        assert r["goodput_share_mean"] == pytest.approx(df.loc[df["cc"] == r["cc"], "goodput_share"].mean())


def test_bad_group_by_names_what_is_allowed(capsys, tmp_path):
    code, _, err = _cli(capsys, "sweep", EXAMPLE, *SHORT, "--out", tmp_path / "o", "--group-by", "colour")
    assert code == 2 and "Traceback" not in err
    assert re.search(r"--group-by 'colour' is not a field of the sweep's flows; allowed: auto, none, cc, "
                     r"transport, .*mss_bytes", err), err
    code, _, err = _cli(capsys, "sweep", EXAMPLE, *SHORT, "--out", tmp_path / "o", "--group-by", "flows.0.cc")
    assert code == 2 and "give the field's own name, e.g. 'cc'" in err
    assert not (tmp_path / "o" / "runs").exists(), "nothing runs before the name is checked"
    with pytest.raises(ccsim.UserError, match="group_by 'colour'"):
        sweep(small_scenario(duration_s=1.0), [{}], tmp_path, group_by="colour", progress=False)


def test_plot_hue_on_an_unsplit_table_says_how_to_split_it(tmp_path, capsys):
    sweep_dir = tmp_path / "sw"
    code, _, err = _cli(capsys, "sweep", EXAMPLE, *SHORT, "--grid", f"{QUEUE}=droptail,fq_codel", "--out", sweep_dir,
                        "--group-by", "none", "--quiet", "--workers", "1")
    assert code == 0, err
    code, _, err = _cli(capsys, "plot", sweep_dir, "--x", QUEUE, "--y", "goodput_mean_bps", "--hue", "cc")
    assert code == 2 and "unknown --hue field 'cc'" in err and "--group-by cc" in err
