"""The short-flow workload from Python (``app = "shortflow"``, paced-XCP
paper Fig 3): its files in the ``transfers`` table, its named errors and
defaults, ``ccsim list applications``; and the XCP feedback columns of the
flow series."""

from __future__ import annotations

import subprocess
import sys

import pytest

import ccsim
from ccsim.scenario import DropTail, Dumbbell, Flow, Scenario

from conftest import assert_conserved


def shortflow_scenario(**params) -> Scenario:
    """50 short-flow nodes with XCP routers and paced XCP senders, 6 s."""
    q = DropTail(limit_pkts=200)
    q.xcp = {"params": "conservative"}
    return Scenario(
        name="shortflow", duration_s=6.0, sample_interval_s=0.1,
        topology=Dumbbell(bottleneck_rate_bps=50e6, bottleneck_delay_s=0.005, bottleneck_queue=q),
        flows=[Flow(count=2, cc="xcp", pacing="token_bucket", rtt_s=0.04),
               Flow(count=50, app="shortflow", cc="xcp", pacing="token_bucket", rtt_range_s=[0.02, 0.06],
                    start_spread_s=1.0, app_params=dict(params))],
    )


def test_files_in_transfers_one_at_a_time_per_node():
    res = ccsim.run(shortflow_scenario())
    assert_conserved(res)
    t = res.transfers
    assert len(t) > 200 and set(t["entry"]) == {1} and t["user"].between(0, 49).all()
    assert (t["bytes"] % 1000 == 0).all() and (t["bytes"] >= 8000).all(), "whole packets, at least 8 (x_m 7.78)"
    assert (t["cc"] == "xcp").all() and (t["objects"] == 1).all() and not t["persistent"].any()
    for _, node in t.sort_values("page").groupby("user"):
        assert list(node["page"]) == list(range(len(node)))
        # the next file starts after the previous one completed
        assert (node["start_s"].values[1:] > node["completed_s"].values[:-1]).all()
    done = t.dropna(subset=["fct_s"])
    assert (done["delivered_bytes"] == done["bytes"]).all()
    # the two long flows keep their rows; their series carry XCP's feedback
    fs = res.flow_series
    assert sorted(fs["flow"].unique()) == [0, 1]
    assert {"xcp_feedback_bytes_per_s", "xcp_delta_cwnd_pkts"} <= set(fs.columns)
    late = fs[fs["time_s"] > 1.0]
    assert late["xcp_feedback_bytes_per_s"].notna().all() and (late["xcp_delta_cwnd_pkts"] != 0).any()


def test_same_seed_same_files_and_normalised_parameters():
    a, b = ccsim.run(shortflow_scenario()), ccsim.run(shortflow_scenario())
    assert a.transfers.equals(b.transfers)
    c = ccsim.run(shortflow_scenario().replace(seed=2))
    assert not a.transfers["bytes"].equals(c.transfers["bytes"])
    p = shortflow_scenario(off_mean_s=0.5).normalized()["flows"][1]["app_params"]
    assert p == {"size_dist": "pareto", "size_shape": 1.35, "size_mean_pkts": 30.0, "off_mean_s": 0.5}


def test_shortflow_errors_name_the_field():
    with pytest.raises(ccsim.UserError, match=r"flows\[1\]\.app_params\.off_mean_s: 0 is not allowed"):
        ccsim.run(shortflow_scenario(off_mean_s=0))
    with pytest.raises(ccsim.UserError, match=r"flows\[1\]\.app_params\.size_dist: unknown value \"exp\""):
        ccsim.run(shortflow_scenario(size_dist="exp"))


def test_list_applications_shows_shortflow():
    proc = subprocess.run([sys.executable, "-m", "ccsim", "list", "applications"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "  shortflow  - short-flow nodes" in proc.stdout and "off_mean_s = 0.2" in proc.stdout
    apps = {a["name"]: a for a in ccsim.catalog()["applications"]}
    assert {p["name"]: p["default"] for p in apps["shortflow"]["params"]} == {
        "size_dist": "pareto", "size_shape": 1.35, "size_mean_pkts": 30.0, "off_mean_s": 0.2}
