"""Output bounded by what the machine holds (docs/reliability.md): a run of many flows
writes its per-flow and per-link rows as Parquet with a small summary.json,
and a run whose files cannot fit on the disk is refused before it runs,
naming the field and the figures."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

import ccsim
from ccsim import UserError
from ccsim.cli import main
from ccsim.results import SUMMARY_MAX_ROWS
from ccsim.runner import check_output_space, output_estimate, simulation

from conftest import assert_conserved

MANY = 20_000


def _many(count: int = MANY, **top) -> dict:
    """``count`` Reno flows on a 1 Gb/s dumbbell for 0.3 s: cheap to run
    (most flows send only their first window), large to write."""
    d = {"name": "many", "seed": 1, "duration_s": 0.3, "sample_interval_s": 0.1,
         "topology": {"kind": "dumbbell", "bottleneck_rate_bps": 1e9, "bottleneck_delay_s": 0.01,
                      "bottleneck_queue": {"kind": "droptail", "limit_pkts": 100}},
         "flows": [{"count": 1, "cc": "reno", "rtt_s": 0.05}, {"count": count, "cc": "reno", "rtt_s": 0.05}]}
    d.update(top)
    return d


def test_many_flows_write_parquet_tables_and_a_small_summary(tmp_path, capsys):
    scenario = tmp_path / "many.json"
    scenario.write_text(json.dumps(_many()))
    est = output_estimate(simulation(_many()))
    out = tmp_path / "out"
    code = main(["run", str(scenario), "--out", str(out), "--no-plots", "--no-progress"])
    stdout, err = capsys.readouterr()
    assert code == 0, err
    n_flows, n_links = MANY + 1, 2 + 4 * (MANY + 1)  # a dumbbell: two host links each way per flow

    summary = json.loads((out / "summary.json").read_text())
    assert_conserved(summary)
    # the rows are in Parquet, the summary points at them and aggregates them
    assert "flows" not in summary and "links" not in summary
    assert summary["flows_file"] == "flows.parquet" and summary["links_file"] == "links.parquet"
    flows = pd.read_parquet(out / summary["flows_file"])
    links = pd.read_parquet(out / summary["links_file"])
    assert len(flows) == summary["flows_aggregate"]["rows"] == n_flows
    assert len(links) == summary["links_aggregate"]["rows"] == n_links
    assert list(flows["id"]) == list(range(n_flows))
    g = summary["flows_aggregate"]["goodput_bps"]
    assert g["count"] == n_flows
    assert (g["min"], g["max"], g["sum"]) == (flows["goodput_bps"].min(), flows["goodput_bps"].max(),
                                              flows["goodput_bps"].sum())
    assert summary["flows_aggregate"]["retransmits"]["sum"] == flows["retransmits"].sum()
    assert summary["links_aggregate"]["drops"]["sum"] == links["drops"].sum()
    # the bottleneck's two directions stay inline
    assert [l["name"] for l in summary["monitored_links"]] == list(links[links["monitored"]]["name"])
    assert len(summary["monitored_links"]) == 2
    # the summary's size does not grow with the flows: aggregates only
    assert (out / "summary.json").stat().st_size < 20_000
    # the estimate made before running bounds what was written
    written = sum((out / f).stat().st_size for f in
                  ("summary.json", "flows.parquet", "links.parquet", "flow_series.parquet",
                   "link_series.parquet", "fairness_series.parquet"))
    assert est["flows"] == n_flows and est["links"] == n_links and est["monitored"] == 2
    assert written <= est["tables"] + est["series"], (written, est)
    # the printed table is shortened, not 20,001 lines
    assert len(stdout.splitlines()) < 40 and f"{MANY - 9} more flows" in stdout


def test_small_run_keeps_its_rows_inline_and_writes_the_same_tables(tmp_path, small):
    res = ccsim.run(small)
    res.write(tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["flows"] == res.raw["flows"] and summary["links"] == res.raw["links"]
    assert not any(k.endswith(("_file", "_aggregate")) for k in summary)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "flows.parquet"), res.flows)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "links.parquet"), res.links)


def test_tables_beyond_the_limit_become_a_pointer_and_aggregates(small):
    res = ccsim.run(small)
    assert SUMMARY_MAX_ROWS >= 100
    inline = res.file_summary()
    assert inline == res.summary
    fs = res.file_summary(max_rows=1)  # 2 flows, 2 + 8 links: both over
    assert "flows" not in fs and "links" not in fs
    agg = fs["flows_aggregate"]
    goodputs = [f["goodput_bps"] for f in res.raw["flows"]]
    assert agg["rows"] == 2
    assert agg["goodput_bps"] == {"count": 2, "min": min(goodputs), "max": max(goodputs),
                                  "mean": sum(goodputs) / 2, "sum": sum(goodputs)}
    # labels and strings are not aggregated; columns with no value say so
    assert not {"id", "entry", "cc", "recovery"} & set(agg)
    assert agg["fct_s"] == {"count": 0, "min": None, "mean": None, "max": None, "sum": None}
    # two monitored links (more than max_rows = 1) are not listed inline
    assert "monitored_links" not in fs
    assert [l["name"] for l in res.file_summary(max_rows=2)["monitored_links"]] == ["r0->r1", "r1->r0"]
    json.dumps(fs, allow_nan=False)  # plain JSON: no NaN


def test_flows_that_cannot_fit_on_disk_are_refused_before_running(tmp_path, monkeypatch, capsys):
    scenario = tmp_path / "many.json"
    scenario.write_text(json.dumps(_many(2000, sample_interval_s=0)))
    out = tmp_path / "out"
    monkeypatch.setattr("ccsim.runner.free_bytes", lambda _out: 1e5)
    code = main(["run", str(scenario), "--out", str(out), "--no-plots", "--no-progress"])
    _, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in err
    # the largest entry is named, with the estimate and the free space
    m = re.search(r"error: scenario\.flows\[1\]\.count: 2000 is too many for the disk: 2001 flows and "
                  r"8006 link directions make about ([0-9.]+) GB of Parquet tables .* \(its file system has "
                  r"0\.000 GB free\)", err)
    assert m, err
    assert float(m.group(1)) > 0
    assert not (out / "summary.json").exists()
    assert not out.exists(), "a refused run leaves no empty directory behind"
    # --csv counts the CSV copies too
    sim = simulation(_many(2000, sample_interval_s=0))
    assert output_estimate(sim, csv=True)["tables"] > output_estimate(sim)["tables"]


def test_series_that_cannot_fit_on_disk_name_the_interval_that_would(small):
    d = small.to_dict()
    d["sample_interval_s"] = 1e-5
    sim = simulation(d)
    est = output_estimate(sim)
    # 3 s / 1e-5 s + 1 samples of 2 flows, 2 monitored links and Jain's index
    assert est["samples"] == 300_001 and est["sample_bytes"] == (4 * 6 + 2) * 8
    free = est["tables"] + est["series"] / 10
    with pytest.raises(UserError) as exc:
        check_output_space(sim, d, "out", free=free)
    msg = str(exc.value)
    assert msg.startswith("scenario.sample_interval_s: 1e-05 s gives 300001 samples x 5 series rows"), msg
    assert f"about {est['series'] / 1e9:.3f} GB of Parquet series" in msg
    hint = float(re.search(r">= ([0-9.e-]+) s", msg).group(1))
    assert hint > 1e-5
    # the interval it suggests fits
    d["sample_interval_s"] = hint
    check_output_space(simulation(d), d, "out", free=free)
    # and this machine's disk holds the original
    d["sample_interval_s"] = 1e-5
    check_output_space(simulation(d), d, "out")


def test_tables_that_leave_no_room_for_one_sample_name_the_count(small):
    """The sample at time 0 alone does not fit beside the tables: no
    interval helps, so the flows are named (the engine's memory check had
    the same fault, found by the Rust fuzz: validate.rs)."""
    d = small.to_dict()
    d["sample_interval_s"] = 1.0
    sim = simulation(d)
    est = output_estimate(sim)
    free = est["tables"] + 0.5 * est["sample_bytes"]
    with pytest.raises(UserError) as exc:
        check_output_space(sim, d, "out", free=free)
    assert re.match(r"scenario\.flows\[\d+\]\.count: \d+ is too many for the disk", str(exc.value)), exc.value
    # room for two samples: the interval is named and its hint fits
    free = est["tables"] + 2.5 * est["sample_bytes"]
    with pytest.raises(UserError) as exc:
        check_output_space(sim, d, "out", free=free)
    hint = float(re.search(r">= ([0-9.e-]+) s", str(exc.value)).group(1))
    assert hint > 1.0
    d["sample_interval_s"] = hint
    check_output_space(simulation(d), d, "out", free=free)
