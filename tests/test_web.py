"""The web-user workload from Python: ``app = "web"`` entries, the
``transfers`` table as a DataFrame, ``ccsim list applications`` and the W1
bench row."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

import ccsim
from ccsim.scenario import DropTail, Dumbbell, Flow, Scenario

from conftest import assert_conserved

TRANSFER_COLUMNS = [
    "flow", "entry", "user", "page", "page_objects", "objects", "persistent", "transport", "cc", "rtt_prop_s",
    "start_s", "bytes", "delivered_bytes", "completed_s", "fct_s", "retransmits", "timeouts",
]


def web_scenario(**params) -> Scenario:
    """100 web users on a 20 Mb/s dumbbell for 10 s (well under a second)."""
    return Scenario(
        name="web",
        duration_s=10.0,
        sample_interval_s=0.5,
        topology=Dumbbell(bottleneck_rate_bps=20e6, bottleneck_delay_s=0.001,
                          bottleneck_queue=DropTail(limit_pkts=20)),
        flows=[Flow(count=100, app="web", rtt_range_s=[0.01, 0.15], rtt_step_s=0.001,
                    app_params={"think_mean_s": 1.0, "size_factor": 4.0, **params})],
    )


def test_transfers_table_is_a_dataframe():
    res = ccsim.run(web_scenario())
    assert_conserved(res)
    t = res.transfers
    assert isinstance(t, pd.DataFrame)
    assert list(t.columns) == TRANSFER_COLUMNS
    ft = res.flow_table
    assert len(t) == ft["transfers"] > 100
    assert ft["live_max"] <= 100 and ft["live_end"] <= ft["live_max"]
    assert t["flow"].is_monotonic_increasing and t["user"].between(0, 99).all()
    assert (t["transport"] == "tcp").all() and (t["cc"] == "reno").all()
    # unfinished transfers have NaN completion, the others their FCT
    assert t["fct_s"].dtype == float and t["completed_s"].isna().sum() == t["fct_s"].isna().sum() >= 1
    done = t.dropna(subset=["fct_s"])
    assert ((done["completed_s"] - done["start_s"] - done["fct_s"]).abs() < 1e-9).all()
    assert (done["delivered_bytes"] == done["bytes"]).all()
    assert set(t.loc[~t["persistent"], "objects"]) == {1}
    # transfers are not flows: no flow rows, no flow series
    assert res.flows.empty and res.flow_series.empty
    assert "transfers" not in res.summary and "transfers" in repr(res) and "transfers (" in res.table()


def test_transfers_written_and_absent_without_a_workload(tmp_path, small):
    res = ccsim.run(web_scenario())
    written = {p.name for p in res.write(tmp_path / "w", csv=True)}
    assert {"transfers.parquet", "transfers.csv", "summary.json"} <= written
    back = pd.read_parquet(tmp_path / "w" / "transfers.parquet")
    pd.testing.assert_frame_equal(back, res.transfers)
    summary = json.loads((tmp_path / "w" / "summary.json").read_text())
    assert "transfers" not in summary and summary["flow_table"] == res.flow_table
    # a run without transfers has neither key, and an empty table
    plain = ccsim.run(small)
    assert "transfers" not in plain.raw and "flow_table" not in plain.raw
    assert plain.transfers.empty and plain.flow_table == {}
    assert "transfers.parquet" not in {p.name for p in plain.write(tmp_path / "p")}


def test_same_seed_same_transfers_and_normalised_parameters():
    a, b = ccsim.run(web_scenario()), ccsim.run(web_scenario())
    pd.testing.assert_frame_equal(a.transfers, b.transfers)
    c = ccsim.run(web_scenario().replace(seed=2))
    assert not a.transfers["bytes"].equals(c.transfers["bytes"])
    norm = web_scenario(persistent=0.5).normalized()["flows"][0]["app_params"]
    assert norm["persistent"] == 0.5 and norm["think_mean_s"] == 1.0 and norm["objects_p1"] == 0.69


def test_web_errors_name_the_field():
    with pytest.raises(ccsim.UserError, match=r"flows\[0\]\.app_params\.think_mean_s: -1"):
        ccsim.run(web_scenario(think_mean_s=-1))
    with pytest.raises(ccsim.UserError, match=r"flows\[0\]\.app: unknown value \"webb\""):
        ccsim.run(web_scenario().replace({"flows.0.app": "webb"}))


def test_list_applications():
    proc = subprocess.run([sys.executable, "-m", "ccsim", "list", "applications"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "applications:" in proc.stdout and "  web  - closed-loop web users" in proc.stdout
    for p in ("think_mean_s = 20.0", "size_factor = 1.0", "persistent = 0.15", "object_dist = \"pareto2\""):
        assert p in proc.stdout


def test_bench_w1_row():
    from ccsim.bench import BENCHMARKS, ROW_TCP, run_one, scenario

    d = scenario("W1").to_dict()
    f = d["flows"][0]
    assert f["app"] == "web" and f["count"] == 1500 and f["app_params"] == {"size_factor": 60.0}
    assert f["rtt_range_s"] == [0.01, 0.15] and f["rtt_step_s"] == 0.001 and "rtt_s" not in f
    assert d["topology"]["bottleneck_rate_bps"] == 622e6 and d["topology"]["bottleneck_queue"]["limit_pkts"] == 20
    assert BENCHMARKS["W1"].duration_s == 100.0
    # W1-etcp: the same users, E-TCP transfers
    e = scenario("W1-etcp").to_dict()["flows"][0]
    assert e.pop("transport") == "etcp" and "cc" not in e and "recovery" not in e
    assert e == {k: v for k, v in f.items() if k not in ("cc", "recovery", *ROW_TCP)}
    row = run_one("W1", quick=True)
    assert row["transfers"] > 2 * row["live_flows_max"] > 0  # 10 s (quick): users still ramping up
    assert row["events"] > 0 and row["peak_rss_mb"] > 0
