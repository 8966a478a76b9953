"""validation/ns3_suite.py: the ns-3 scenario list and its mapping onto both
simulators, and (when ns-3 3.44 is installed) one short case run in both."""

import json
import sys
from pathlib import Path

import pytest

import ccsim
from ccsim._native import validate
from conftest import needs_ns3, ns3_arg, ns3_quick_case

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from validation import ns3_suite as suite  # noqa: E402



# ---- the scenario list: at least sixteen dumbbells ----------------------


def test_at_least_sixteen_scenarios_with_unique_ids():
    ids = [s.id for s in suite.SCENARIOS]
    assert len(ids) >= 16
    assert len(set(ids)) == len(ids)
    assert suite.QUICK.id not in ids


def test_every_controller_and_newreno_with_and_without_sack():
    pairs = {(s.controller, s.sack) for s in suite.SCENARIOS}
    assert ("newreno", True) in pairs and ("newreno", False) in pairs
    for cc in ["cubic", "highspeed", "scalable", "htcp", "bic", "vegas"]:
        assert any(c == cc for c, _ in pairs), cc


def test_flow_counts_rtts_buffers_rates_durations():
    sc = suite.SCENARIOS
    assert {1, 10, 50} <= {s.n_flows for s in sc}
    multi = [s for s in sc if s.n_flows > 1]
    assert any(s.rtt_s[0] == s.rtt_s[1] for s in multi), "equal RTTs"
    assert any(s.rtt_s[0] < s.rtt_s[1] for s in multi), "spread RTTs"
    assert min(s.buffer_pkts for s in sc) == 20
    # some buffer reaches the bandwidth-delay product of its own path
    assert any(s.buffer_pkts >= suite.bdp_pkts(s.rate_bps, max(s.rtts())) for s in sc)
    rates = {s.rate_bps for s in sc}
    assert min(rates) == 100e6 and max(rates) == 1e9
    assert all(30 <= s.duration_s <= 60 for s in sc)
    assert {30, 60} <= {s.duration_s for s in sc}


def test_spread_rtts_are_even_and_starts_staggered():
    s = next(s for s in suite.SCENARIOS if s.id == "newreno-sack-10-spread")
    r = s.rtts()
    assert len(r) == 10 and r[0] == pytest.approx(0.02) and r[-1] == pytest.approx(0.2)
    steps = {round(b - a, 9) for a, b in zip(r, r[1:])}
    assert len(steps) == 1
    st = s.starts()
    assert st[0] == 0 and all(b > a for a, b in zip(st, st[1:])) and st[-1] < s.warmup_s


# ---- both sides get the same network and the mapped defaults ------------


@pytest.mark.parametrize("s", suite.SCENARIOS, ids=lambda s: s.id)
def test_both_sides_map_the_same_scenario(s):
    d = s.ccsim_scenario()
    validate(d)  # the engine accepts it
    args = s.ns3_args()
    topo = d["topology"]
    assert float(ns3_arg(args, "rate")) == topo["bottleneck_rate_bps"] == s.rate_bps
    assert float(ns3_arg(args, "edgeRate")) == topo["edge_rate_bps"]
    assert float(ns3_arg(args, "bneckDelay")) == topo["bottleneck_delay_s"]
    assert int(ns3_arg(args, "buffer")) == topo["bottleneck_queue"]["limit_pkts"] == s.buffer_pkts
    assert int(ns3_arg(args, "edgeBuffer")) == topo["edge_queue"]["limit_pkts"]
    assert int(ns3_arg(args, "flows")) == len(d["flows"]) == s.n_flows
    assert [float(x) for x in ns3_arg(args, "rtts").split(",")] == [f["rtt_s"] for f in d["flows"]]
    assert [float(x) for x in ns3_arg(args, "starts").split(",")] == [f["start_s"] for f in d["flows"]]
    assert float(ns3_arg(args, "duration")) == d["duration_s"]
    assert float(ns3_arg(args, "warmup")) == d["warmup_s"] > 0
    ctl = suite.CONTROLLERS[s.controller]
    assert ns3_arg(args, "ns3::TcpL4Protocol::SocketType") == ctl["ns3"]
    assert ns3_arg(args, "ns3::TcpSocketBase::Sack") == ("true" if s.sack else "false")
    for f in d["flows"]:
        assert f["cc"] == ctl["cc"]
        assert f["recovery"] == ("sack" if s.sack else "newreno")
        assert f["mss_bytes"] == int(ns3_arg(args, "ns3::TcpSocket::SegmentSize")) == 1448
        assert f["header_bytes"] == 54
        assert f["init_cwnd_pkts"] == int(ns3_arg(args, "ns3::TcpSocket::InitialCwnd"))
        assert f["delayed_ack"] is False and ns3_arg(args, "ns3::TcpSocket::DelAckCount") == "1"
        assert f["min_rto_s"] == 0.2 and ns3_arg(args, "ns3::TcpSocketBase::MinRto") == "200ms"
        assert f["clock_granularity_s"] == 0.01
        assert ns3_arg(args, "ns3::TcpSocketBase::ClockGranularity") == "10ms"
    assert ns3_arg(args, "ns3::TcpL4Protocol::RecoveryType") == "ns3::TcpClassicRecovery"
    # ns-3's send/receive buffers never bound the window
    need = (suite.bdp_pkts(s.rate_bps, max(s.rtts())) + s.buffer_pkts) * suite.PKT_BYTES
    assert int(ns3_arg(args, "ns3::TcpSocket::SndBufSize")) >= 2 * need
    assert int(ns3_arg(args, "ns3::TcpSocket::RcvBufSize")) >= 2 * need


def test_controller_specific_settings():
    by = {s.controller: s for s in suite.SCENARIOS}
    assert ns3_arg(by["cubic"].ns3_args(), "ns3::TcpCubic::HyStart") == "false"
    assert ns3_arg(by["scalable"].ns3_args(), "ns3::TcpScalable::AIFactor") == "100"
    assert float(ns3_arg(by["bic"].ns3_args(), "ns3::TcpBic::Beta")) == pytest.approx(819 / 1024)
    assert by["highspeed"].ccsim_scenario()["flows"][0]["cc_params"] == {"a_b": "table"}
    # the ccsim side keeps its own defaults for these (no cc_params)
    for cc in ["cubic", "scalable", "bic", "htcp", "vegas", "newreno"]:
        assert "cc_params" not in by[cc].ccsim_scenario()["flows"][0], cc


def test_only_rejects_unknown_ids():
    with pytest.raises(ValueError, match="only: unknown ns-3 scenario.*nope.*allowed"):
        suite._select(False, ["nope"])
    assert [s.id for s in suite._select(False, ["cubic-10-spread"])] == ["cubic-10-spread"]
    assert suite._select(True, None) == [suite.QUICK]


# ---- metrics, flags and the report --------------------------------------


def test_jain_and_relative_differences():
    assert suite.jain([1, 1, 1, 1]) == pytest.approx(1.0)
    assert suite.jain([1, 0, 0, 0]) == pytest.approx(0.25)
    assert suite.rel_diff(100, 104) == pytest.approx(0.04)
    assert not suite.flagged(100, 104.9)
    assert suite.flagged(100, 105.1) and suite.flagged(100, 94)
    assert suite.rel_diff(0, 0) == 0 and not suite.flagged(0, 0)
    assert suite.rel_diff(0, 3) is None and suite.flagged(0, 3)


def _fake_results():
    m = {k: {"ns3": 1.0, "ccsim": 1.0} for k in suite.METRICS}
    m["goodput_mbps"] = {"ns3": 90.0, "ccsim": 80.0}
    m["timeouts"] = {"ns3": 0, "ccsim": 2}
    s = suite.SCENARIOS[0]
    return {
        "peer": "ns3", "peer_version": "3.44.post0", "ccsim_version": ccsim.__version__,
        "date": "2026-01-01T00:00:00Z",
        "scenarios": [{"id": s.id, "description": s.description, "params": s.params(),
                       "metrics": m, "wall_s": {"ns3": 10.0, "ccsim": 0.5}}],
    }


def test_markdown_flags_every_difference_over_five_percent():
    md = suite.markdown(_fake_results())
    row = next(line for line in md.splitlines() if line.startswith(f"| {suite.SCENARIOS[0].id} | 1.0000"))
    assert "**90.00 / 80.00 (-11.1%)**" in row
    assert "**0 / 2**" in row
    assert "1.0000 / 1.0000 |" in row  # equal: not bold
    assert "4 of 6 metric pairs agree within 5%" in md
    assert "| 10.00 | 0.500 | 20.0x |" in md
    assert "100 Mb/s" in md and "| newreno | no | 1 | 100 |" in md


def test_docs_hold_the_current_defaults_table():
    doc = (ROOT / "docs" / "validation.md").read_text()
    assert "## ns-3 defaults against ccsim's" in doc
    assert suite.defaults_markdown() in doc, "regenerate the table with ns3_suite.defaults_markdown()"


def test_checked_in_results_cover_the_suite():
    path = ROOT / "validation" / "results" / "ns3" / "ns3.json"
    res = json.loads(path.read_text())
    assert res["peer"] == "ns3" and res["peer_version"].startswith("3.44")
    assert [s["id"] for s in res["scenarios"]] == [s.id for s in suite.SCENARIOS]
    for s in res["scenarios"]:
        assert set(s["metrics"]) == set(suite.METRICS)
        assert s["wall_s"]["ns3"] > 0 and s["wall_s"]["ccsim"] > 0


def test_ccsim_side_of_the_quick_case_measures_sanely():
    c = suite.run_ccsim(suite.QUICK)
    m = c["metrics"]
    assert 0.3 < m["utilization"] <= 1.001
    # payload goodput is the wire rate times mss / packet size, less
    # retransmissions; up to a queue and a pipe of packets serialised before
    # the window opens are delivered inside it (a few percent over 4 s)
    wire_payload = m["utilization"] * suite.QUICK.rate_bps / 1e6 * suite.MSS / suite.PKT_BYTES
    assert m["goodput_mbps"] <= wire_payload * 1.03
    assert m["goodput_mbps"] > 0.9 * wire_payload
    assert 0.5 <= m["jain"] <= 1.0
    assert c["wall_s"] > 0


# ---- one short case in both simulators ----------------------------------


@needs_ns3("ns3")
def test_quick_case_in_ns3_and_ccsim(tmp_path):
    res, sides = ns3_quick_case(suite, tmp_path, "ns3.json")
    assert res["peer"] == "ns3" and res["peer_version"].startswith("3.44")
    for side, m in sides.items():
        assert 0.3 < m["utilization"] <= 1.001, side
        wire_payload = m["utilization"] * suite.QUICK.rate_bps / 1e6 * suite.MSS / suite.PKT_BYTES
        assert 0.9 * wire_payload < m["goodput_mbps"] <= wire_payload * 1.03, side
        assert 0 <= m["loss_rate"] < 0.05, side
    assert suite.QUICK.id in suite.markdown(res)


def test_ns3_order_of_tied_events_is_mapped_on_every_queue():
    # ns-3 runs a tied arrival before the departure (DEFAULTS, "order of ...")
    topo = suite.SCENARIOS[0].ccsim_scenario()["topology"]
    assert topo["bottleneck_queue"]["ties"] == topo["edge_queue"]["ties"] == "arrival_first"


def test_start_phase_seeds_move_each_start_within_its_slot():
    import dataclasses

    base = next(s for s in suite.SCENARIOS if s.id == "cubic-10-spread")
    a, b = dataclasses.replace(base, seed=1), dataclasses.replace(base, seed=2)
    n = base.n_flows
    for s in (a, b):
        st = s.starts()
        assert all(i / n <= t < (i + 1) / n + 1e-9 for i, t in enumerate(st))
        assert s.params()["seed"] == s.seed and s.ccsim_scenario()["flows"][3]["start_s"] == st[3]
    assert a.starts() != b.starts() != base.starts() and "seed" not in base.params()
    with pytest.raises(ValueError, match="seeds"):
        suite.run_seeds(["cubic-10-spread"], [0], ROOT / "nonexistent")
    with pytest.raises(ValueError, match="unknown ns-3 scenario"):
        suite.run_seeds(["nope"], [1], ROOT / "nonexistent")


def test_ccsim_only_needs_the_recorded_run(tmp_path):
    with pytest.raises(ValueError, match="no recorded ns-3 run"):
        suite.run(False, tmp_path, ["cubic-10-spread"], ccsim_only=True)
