"""Python API: run(), Results, plots, determinism, the experiments registry."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import ccsim
from ccsim import _native, experiments
from ccsim.experiments import Check, print_checks, register, summary_line, write_checks
from ccsim.plots import PLOT_FILES, plot_all

from conftest import assert_conserved, example_scenarios, small_scenario


def _comparable(res):
    raw = dict(res.raw)
    raw.pop("wall_s", None)
    raw.pop("cpu_s", None)
    return raw


def test_run_returns_results(small):
    res = ccsim.run(small)
    assert_conserved(res)
    assert isinstance(res, ccsim.Results)
    assert len(res.flows) == 2
    assert {"goodput_bps", "cc", "retransmits"} <= set(res.flows.columns)
    assert res.flows["goodput_bps"].gt(0).all()
    b = res.bottleneck()
    assert b is not None and 0 < b["utilization"] <= 1.0
    assert res.raw["events"] > 0
    assert {"time_s", "flow", "cwnd"} <= set(res.flow_series.columns)
    assert {"time_s", "link", "queue_pkts", "loss_rate", "cum_loss_rate"} <= set(res.link_series.columns)
    assert {"time_s", "jain"} <= set(res.fairness_series.columns)
    assert sorted(res.flow_series["flow"].unique()) == [0, 1]
    assert "series" not in res.summary
    assert "goodput_Mbps" in res.table()


def test_flow_series_carry_bbrs_model_beside_other_controllers():
    """A BBR flow's rows carry its model (the kernel's TCP_CC_INFO fields:
    bandwidth estimate, RTprop, gains): alone on a 10 Mb/s link, BtlBw is
    the link's payload rate and RTprop the path's 50 ms; beside it a CUBIC
    flow's rows are NaN; a run without BBR has no such columns."""
    spec = {"duration_s": 2.0, "topology": {"kind": "dumbbell", "bottleneck_rate_bps": 1e7,
                                            "bottleneck_queue": {"limit_pkts": 20}},
            "flows": [{"cc": "bbr", "rtt_s": 0.05}]}
    cols = ["bbr_bw_bytes_per_s", "bbr_min_rtt_s", "bbr_pacing_gain", "bbr_cwnd_gain"]
    fs = ccsim.run(spec).flow_series
    bbr = fs[fs.time_s > 1.0]
    payload = 1e7 / 8 * 1460 / 1500  # mss 1460 of 1500 bytes on the wire
    assert bbr.bbr_bw_bytes_per_s.between(0.98 * payload, 1.02 * payload).all()
    assert bbr.bbr_min_rtt_s.between(0.05, 0.051).all()
    assert set(bbr.bbr_pacing_gain.round(2)) <= {0.75, 1.0, 1.25} and set(bbr.bbr_cwnd_gain) == {2.0}
    spec["flows"].append({"cc": "cubic", "rtt_s": 0.05})
    fs = ccsim.run(spec).flow_series
    assert fs[fs.flow == 1][cols].isna().all().all() and fs[fs.flow == 0][cols].notna().any().all()
    spec["flows"] = [{"cc": "cubic", "rtt_s": 0.05}]
    assert not set(cols) & set(ccsim.run(spec).flow_series.columns)


@pytest.mark.parametrize("sc", example_scenarios(), ids=lambda s: s.name)
def test_every_topology_runs_and_conserves(sc):
    res = ccsim.run(sc)
    assert_conserved(res)
    n_flows = sum(f.count or 1 for f in sc.flows)
    assert len(res.flows) == n_flows
    assert res.flows["delivered_bytes"].gt(0).all()
    assert not res.monitored_links.empty


def test_run_accepts_dict_and_path(tmp_path, small):
    a = ccsim.run(small.to_dict())
    b = ccsim.run(small.save(tmp_path / "s.json"))
    c = ccsim.run(str(small.save(tmp_path / "s.toml")))
    for r in (a, b, c):
        assert_conserved(r)
    assert _comparable(a) == _comparable(b) == _comparable(c)


def test_chunked_progress_run_matches_single_finish(small):
    """Advancing in 1% chunks (with a progress bar) must not change results."""
    chunked = ccsim.run(small, progress=True)
    whole = ccsim.Results(_native.core().Simulation(small.to_json()).finish())
    assert_conserved(chunked)
    assert_conserved(whole)
    assert _comparable(chunked) == _comparable(whole)


def test_same_seed_identical():
    sc = small_scenario(seed=5).replace({"topology.bottleneck_loss": 0.01})
    a, b = ccsim.run(sc), ccsim.run(sc)
    assert_conserved(a)
    assert_conserved(b)
    assert _comparable(a) == _comparable(b)


def test_different_seed_differs_on_lossy_link():
    sc = small_scenario().replace({"topology.bottleneck_loss": 0.01})
    a = ccsim.run(sc.replace(seed=1))
    b = ccsim.run(sc.replace(seed=2))
    assert_conserved(a)
    assert_conserved(b)
    assert a.bottleneck()["random_losses"] > 0
    assert _comparable(a) != _comparable(b)


def test_results_write_and_reload(tmp_path, small):
    res = ccsim.run(small)
    assert_conserved(res)
    written = res.write(tmp_path / "out", csv=True)
    names = {p.name for p in written}
    assert {"summary.json", "flow_series.parquet", "link_series.parquet", "fairness_series.parquet",
            "flow_series.csv", "flows.csv", "links.csv"} <= names
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["flows"] == res.raw["flows"]
    assert_conserved(summary)
    fs = pd.read_parquet(tmp_path / "out" / "flow_series.parquet")
    pd.testing.assert_frame_equal(fs, res.flow_series)
    res.to_json(tmp_path / "full.json")
    again = ccsim.Results.load(tmp_path / "full.json")
    assert again.raw == res.raw


def test_no_series_when_sampling_off(tmp_path, small):
    res = ccsim.run(small.replace(sample_interval_s=0))
    assert_conserved(res)
    assert res.flow_series.empty
    # no plot against time; the bar charts of the run totals remain
    assert [p.name for p in plot_all(res, tmp_path)] == ["flow_loss.png", "link_drops.png"]
    res.write(tmp_path / "o")  # empty series still produce (empty) files
    assert (tmp_path / "o" / "flow_series.parquet").exists()


def test_plots(tmp_path, small):
    res = ccsim.run(small)
    assert_conserved(res)
    made = plot_all(res, tmp_path)
    # two infinite Reno flows, no recorded queueing delay: everything but
    # the FCT CDF and the delay plot
    assert {p.name for p in made} == set(PLOT_FILES) - {"fct.png", "qdelay.png"}
    for p in made:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_queueing_delay_and_ecn_fields_reach_every_output(tmp_path, small):
    """qdelay = true: the links' qdelay_* fields, the link series'
    qdelay_mean_s/qdelay_max_s, and the flows' ce_marks/ece_acks (marks
    adding up to the links'), in the DataFrames, the written tables, the
    CLI table and the delay plot; without it, no delay field anywhere."""
    red = {"kind": "red", "limit_pkts": 40, "min_th_pkts": 3, "max_th_pkts": 9, "ecn": True}
    sc = small.replace({"topology.bottleneck_queue": red, "flows.0.ecn": True}, qdelay=True, warmup_s=0.5)
    res = ccsim.run(sc)
    assert_conserved(res)
    q = ["qdelay_p50_s", "qdelay_p90_s", "qdelay_p99_s", "qdelay_p999_s", "qdelay_mean_s", "qdelay_max_s"]
    b = res.links.loc[0]
    assert set(q) <= set(res.links.columns) and "qdelay_classes" not in res.links.columns
    assert 0 < b["qdelay_p50_s"] <= b["qdelay_p90_s"] <= b["qdelay_p99_s"] <= b["qdelay_p999_s"] <= b["qdelay_max_s"]
    assert 0 < b["qdelay_mean_s"] <= b["qdelay_max_s"]
    assert res.qdelay_classes.empty  # RED reports one class
    s = res.link_series
    assert {"qdelay_mean_s", "qdelay_max_s"} <= set(s.columns)
    fwd = s[s["link"] == 0]
    assert (fwd["qdelay_max_s"] <= b["qdelay_max_s"] + 1e-12)[fwd["time_s"] > 0.5].all()
    assert {"ce_marks", "ece_acks"} <= set(res.flows.columns)
    assert res.flows["ce_marks"].sum() == res.links["marks"].sum() > 0
    assert (res.flows["ece_acks"] > 0).all()
    table = res.table()
    assert "ce_marks" in table and "ece_acks" in table and "qd_p50_ms" in table and "qd_p99_ms" in table
    res.write(tmp_path / "o", csv=True)
    links = pd.read_parquet(tmp_path / "o" / "links.parquet")
    assert links["qdelay_p99_s"].tolist() == res.links["qdelay_p99_s"].tolist()
    assert {"qdelay_mean_s", "qdelay_max_s"} <= set(pd.read_csv(tmp_path / "o" / "link_series.csv").columns)
    assert {"ce_marks", "ece_acks"} <= set(pd.read_csv(tmp_path / "o" / "flows.csv").columns)
    assert not (tmp_path / "o" / "qdelay_classes.parquet").exists()
    assert "qdelay.png" in {p.name for p in plot_all(res, tmp_path / "p")}
    # off by default: no delay field, no series column, no plot, the CLI table as before
    off = ccsim.run(small)
    assert not [c for c in off.links.columns if c.startswith("qdelay")]
    assert not [c for c in off.link_series.columns if c.startswith("qdelay")]
    assert "qd_p50_ms" not in off.table() and "ce_marks" not in off.table()
    assert (off.flows["ce_marks"] == 0).all() and (off.flows["ece_acks"] == 0).all()
    assert "qdelay.png" not in {p.name for p in plot_all(off, tmp_path / "q")}


def test_dualpi2_reports_its_l_and_c_queues_as_classes(tmp_path, small):
    """DualPI2 names its two queues: with qdelay = true its link has an
    ``l`` and a ``c`` row in ``qdelay_classes``, their packets adding up to
    the link's, the L queue (an ECT(1) DCTCP flow) waiting less than the C
    queue (a Not-ECT CUBIC flow); every CE mark is some flow's."""
    flows = [ccsim.Flow(cc="dctcp", ect="ect1", rtt_s=0.04), ccsim.Flow(cc="cubic", rtt_s=0.04)]
    sc = small.replace({"topology.bottleneck_queue": ccsim.DualPI2()}, flows=flows, qdelay=True, duration_s=4.0,
                       warmup_s=1.0)
    res = ccsim.run(sc)
    assert_conserved(res)
    c = res.qdelay_classes
    fwd = c[c["link"] == 0]
    assert list(fwd["class"]) == ["l", "c"]
    assert fwd["pkts"].sum() == res.links.loc[0, "tx_pkts"]
    l_q, c_q = fwd.iloc[0], fwd.iloc[1]
    assert l_q["pkts"] > 0 and c_q["pkts"] > 0
    assert l_q["p50_s"] < c_q["p50_s"], (l_q["p50_s"], c_q["p50_s"])
    assert res.links.loc[0, "qdelay_max_s"] == fwd["max_s"].max()
    assert res.flows["ce_marks"].sum() == res.links["marks"].sum() > 0
    assert res.flows.loc[1, "ce_marks"] == 0  # CUBIC's packets are Not-ECT
    res.write(tmp_path)
    assert (tmp_path / "qdelay_classes.parquet").exists()


def test_qdelay_classes_frame_from_a_multi_class_link(tmp_path):
    """A link whose discipline names several classes (DualPI2's L and C
    queues) reports each in ``qdelay_classes``: its own DataFrame and
    file, kept out of the links table."""
    raw = {"name": "c", "flows": [], "links": [
        {"id": 0, "name": "a", "tx_pkts": 3, "qdelay_p50_s": 0.001, "qdelay_classes": [
            {"class": "l", "pkts": 1, "p50_s": 0.0, "p90_s": 0.0, "p99_s": 0.0, "p999_s": 0.0, "mean_s": 0.0,
             "max_s": 0.0},
            {"class": "c", "pkts": 2, "p50_s": 0.001, "p90_s": 0.002, "p99_s": 0.002, "p999_s": 0.002,
             "mean_s": 0.0015, "max_s": 0.002}]},
        {"id": 1, "name": "b", "tx_pkts": 0, "qdelay_p50_s": None}]}
    res = ccsim.Results(raw)
    assert "qdelay_classes" not in res.links.columns and len(res.links) == 2
    c = res.qdelay_classes
    assert list(c["link"]) == [0, 0] and list(c["class"]) == ["l", "c"] and list(c["pkts"]) == [1, 2]
    res.write(tmp_path, csv=True)
    back = pd.read_parquet(tmp_path / "qdelay_classes.parquet")
    pd.testing.assert_frame_equal(back, c)
    assert (tmp_path / "qdelay_classes.csv").exists()


def test_catalog_lists_engine_components():
    cat = ccsim.catalog()
    assert "reno" in [c["name"] for c in cat["controllers"]]
    assert "droptail" in [q["name"] for q in cat["queues"]]
    assert {"recoveries", "pacing", "topologies"} <= set(cat)


def test_version():
    assert isinstance(ccsim.__version__, str) and ccsim.__version__


def test_check_deviation_and_ok():
    c = Check("w", paper=100.0, ccsim=104.0, tolerance=0.05, source="paper")
    assert c.deviation == pytest.approx(0.04) and c.ok
    c = Check("p", paper=0.01, ccsim=0.02, tolerance=0.005, relative=False, source="model")
    assert c.deviation == pytest.approx(0.01) and not c.ok
    c = Check("ordering", paper="A > B", ccsim="A > B", ok=True, source="paper")
    assert c.deviation is None and c.ok
    assert set(c.to_dict()) >= {"quantity", "paper", "ccsim", "deviation", "tolerance", "ok"}


def test_check_source_is_required_and_validated():
    with pytest.raises(ValueError, match="source must be one of 'paper', 'model', 'consistency', 'ns-2', not None"):
        Check("w", paper=1.0, ccsim=1.0, tolerance=0.1)
    with pytest.raises(ValueError, match="source must be one of 'paper', 'model', 'consistency', 'ns-2', not 'Paper'"):
        Check("w", paper=1.0, ccsim=1.0, tolerance=0.1, source="Paper")
    with pytest.raises(ValueError, match="read_from .* needs source 'paper'"):
        Check("w", paper=1.0, ccsim=1.0, tolerance=0.1, source="model", read_from="Fig 2")
    c = Check("w", paper=1.0, ccsim=1.0, tolerance=0.1, source="paper", read_from="Fig 6")
    assert c.source_label == "paper (read from Fig 6)"
    assert c.to_dict()["source"] == "paper" and c.to_dict()["read_from"] == "Fig 6"


def test_summary_per_source():
    checks = [Check("a", paper=1.0, ccsim=1.0, tolerance=0.1, source="paper"),
              Check("b", paper=1.0, ccsim=2.0, tolerance=0.1, source="paper", read_from="Fig 3"),
              Check("c", paper=1.0, ccsim=3.0, tolerance=0.1, source="model"),
              Check("d", paper=1.0, ccsim=1.0, tolerance=0.1, source="consistency"),
              Check("e", paper="x", ccsim="x", ok=True, source="consistency")]
    assert experiments.summary(checks) == {"paper": {"ok": 1, "total": 2}, "model": {"ok": 0, "total": 1},
                                           "consistency": {"ok": 2, "total": 2}}
    assert summary_line(checks) == "paper: 1/2 within tolerance; model: 0/1; consistency: 2/2"
    # a source without checks is left out
    assert summary_line(checks[2:3]) == "model: 0/1 within tolerance"
    doc = experiments.checks_document(checks)
    assert doc["summary"]["ok"] == 3 and doc["summary"]["total"] == 5
    assert [c["source"] for c in doc["checks"]] == ["paper", "paper", "model", "consistency", "consistency"]


def test_register_and_write_checks(tmp_path, capsys):
    @register("test-dummy", paper="none", description="registry test")
    def dummy(out_dir, quick, workers):
        return [Check("x", paper=1.0, ccsim=1.0, tolerance=0.1, source="consistency")]

    try:
        exp = experiments.get("test-dummy")
        checks = exp.run(tmp_path, True, 1)
        path = write_checks(tmp_path, checks)
        data = json.loads(path.read_text())
        assert data["checks"][0]["ok"] is True and data["checks"][0]["deviation"] == 0.0
        assert data["summary"]["by_source"] == {"consistency": {"ok": 1, "total": 1}}
        print_checks(checks)
        assert "consistency: 1/1 within tolerance" in capsys.readouterr().out
        with pytest.raises(ValueError, match="registered twice"):
            register("test-dummy", paper="p", description="d")(lambda o, q, w: [])
    finally:
        experiments.REGISTRY.pop("test-dummy", None)
    with pytest.raises(ccsim.UserError, match="unknown experiment"):
        experiments.get("test-dummy")


def test_summary_json_is_byte_identical_and_meta_holds_the_rest(tmp_path, small):
    """summary.json depends on the scenario alone; wall time goes to meta.json."""
    a, b = ccsim.run(small), ccsim.run(small)
    a.write(tmp_path / "a")
    b.write(tmp_path / "b")
    sa = (tmp_path / "a" / "summary.json").read_bytes()
    assert sa == (tmp_path / "b" / "summary.json").read_bytes()
    assert b"wall_s" not in sa
    meta = json.loads((tmp_path / "a" / "meta.json").read_text())
    assert meta["wall_s"] == a.raw["wall_s"] > 0
    assert meta["cpu_s"] == a.raw["cpu_s"] > 0
    assert meta["ccsim_version"] == ccsim.__version__
    assert meta["events_per_s"] == pytest.approx(a.raw["events"] / a.raw["wall_s"])
