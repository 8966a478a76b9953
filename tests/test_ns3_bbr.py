"""validation/ns3_bbr.py: the BBR scenarios and their mapping onto ns-3 and
ccsim, the measurement helpers, the report, and (when ns-3 3.44 is
installed) one short case run in both."""

import json
import sys
from pathlib import Path

import pytest

import ccsim
from ccsim._native import validate
from conftest import needs_ns3, ns3_arg, ns3_quick_case

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from validation import ns3_bbr as bbr  # noqa: E402
from validation import ns3_suite  # noqa: E402
from validation import run as driver  # noqa: E402



# ---- the scenario set: BBR alone and against CUBIC -----------------------------


def test_scenarios_cover_bbr_alone_and_against_cubic_at_four_buffers():
    sc = bbr.SCENARIOS
    ids = [s.id for s in sc]
    assert len(set(ids)) == len(ids) and bbr.QUICK.id not in ids
    for ctls in (("bbr",), ("bbr", "cubic")):
        rows = [s for s in sc if s.controllers == ctls and s.rate_bps == 100e6]
        assert sorted(s.bdp_mult for s in rows) == [0.5, 1.0, 2.0, 8.0], ctls
        for s in rows:
            # the buffer is that many BDPs of 1502-byte packets at 100 Mb/s, 40 ms
            assert s.buffer_pkts == round(s.bdp_mult * 100e6 * 0.04 / (8 * 1502))
            assert s.rtt_s == 0.04 and 20 <= s.duration_s <= 30
    ex = next(s for s in sc if s.rate_bps == 10e6)
    # ns-3's examples/tcp/tcp-bbr-example.cc: 10 Mb/s, 10 ms, 1 Gb/s / 5 ms access links, 100 packets
    assert (ex.bneck_delay_s, ex.edge_rate, ex.buffer_pkts, ex.rtt_s) == (0.01, 1e9, 100, 0.04)
    assert (ex.rtt_s / 2 - ex.bneck_delay_s) / 2 == pytest.approx(0.005)


@pytest.mark.parametrize("s", bbr.SCENARIOS + [bbr.QUICK], ids=lambda s: s.id)
def test_both_sides_map_the_same_scenario(s):
    d = s.ccsim_scenario()
    validate(d)
    args = s.ns3_args()
    topo = d["topology"]
    assert float(ns3_arg(args, "rate")) == topo["bottleneck_rate_bps"] == s.rate_bps
    assert float(ns3_arg(args, "bneckDelay")) == topo["bottleneck_delay_s"]
    assert float(ns3_arg(args, "edgeRate")) == topo["edge_rate_bps"]
    # no queue disc: the device DropTail holds the buffer, as ccsim's droptail
    assert ns3_arg(args, "qdisc") is None and int(ns3_arg(args, "buffer")) == topo["bottleneck_queue"]["limit_pkts"]
    assert topo["bottleneck_queue"]["kind"] == "droptail"
    assert [float(x) for x in ns3_arg(args, "rtts").split(",")] == [f["rtt_s"] for f in d["flows"]]
    assert [float(x) for x in ns3_arg(args, "starts").split(",")] == [f["start_s"] for f in d["flows"]]
    assert float(ns3_arg(args, "warmup")) == d["warmup_s"] and float(ns3_arg(args, "duration")) == d["duration_s"]
    types = ns3_arg(args, "types").split(",")
    assert len(types) == len(d["flows"]) == len(s.controllers)
    for c, t, f in zip(s.controllers, types, d["flows"]):
        ctl = bbr.CONTROLLERS[c]
        assert t == ctl["ns3"] and f["cc"] == ctl["cc"] and f["pacing"] == ctl["pacing"]
        assert f.get("cc_params", {}) == ctl["cc_params"]
        assert f["mss_bytes"] == int(ns3_arg(args, "ns3::TcpSocket::SegmentSize")) == 1448
        assert f["header_bytes"] == 54
        assert f["init_cwnd_pkts"] == int(ns3_arg(args, "ns3::TcpSocket::InitialCwnd")) == 10
        assert f["min_rto_s"] == 0.2 and ns3_arg(args, "ns3::TcpSocketBase::MinRto") == "200ms"
        assert f["delayed_ack"] is False and ns3_arg(args, "ns3::TcpSocket::DelAckCount") == "1"
        assert f["recovery"] == "sack" and ns3_arg(args, "ns3::TcpSocketBase::Sack") == "true"
    assert ns3_arg(args, "ns3::TcpL4Protocol::RecoveryType") == "ns3::TcpClassicRecovery"
    assert ns3_arg(args, "queueStats") == "1" and ns3_arg(args, "cwndStats") == "1"
    assert topo["bottleneck_queue"]["ties"] == topo["edge_queue"]["ties"] == "arrival_first"
    if "cubic" in s.controllers:
        assert ns3_arg(args, "ns3::TcpCubic::HyStart") == "false"


def test_bbr_gains_are_mapped_both_ways():
    # ns-3's HighGain moves to Linux's 739/256; ccsim's Drain moves to ns-3's 1/HighGain
    ctl = bbr.CONTROLLERS["bbr"]
    assert float(ctl["ns3_attrs"]["ns3::TcpBbr::HighGain"]) == 739 / 256
    assert ctl["cc_params"]["drain_gain"] * 739 / 256 == pytest.approx(1.0)
    assert bbr.CONTROLLERS["cubic"]["pacing"] == "none" and bbr.CONTROLLERS["bbr"]["pacing"] == "rate"


def test_the_driver_knows_the_peer():
    assert driver.suite("ns3-bbr") is bbr
    assert "ns3-bbr" in driver.NS3_PEERS
    with pytest.raises(ValueError, match="unknown ns3-bbr scenario"):
        bbr._select(False, ["nope"])
    assert bbr._select(True, None) == [bbr.QUICK]


# ---- measurement helpers and the report -----------------------------------


def test_low_window_intervals_from_samples():
    t = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]
    c = [10, 10, 4, 4, 4, 20, 1, 30]
    assert bbr.low_cwnd(t, c, 1.0) == [(0.2, 0.5), (0.6, 0.7)]
    # a first value at or below 4 (the start) is not a dip; an open one ends with the run
    assert bbr.low_cwnd([0.0, 0.1, 0.2], [2, 10, 3], 1.0) == [(0.2, 1.0)]
    # ProbeRTT holds 4 segments at least 200 ms; a start-up recovery's dip of 100 ms is not one
    assert bbr.probe_rtt([(0.2, 0.5), (0.6, 0.7), (1.0, 1.104)]) == [(0.2, 0.5)]


def _fake_results():
    s1 = next(x for x in bbr.SCENARIOS if x.controllers == ("bbr",))
    s2 = next(x for x in bbr.SCENARIOS if x.controllers == ("bbr", "cubic"))
    rows = []
    for s in (s1, s2):
        m = {k: {"ns3": 1.0, "ccsim": 1.0, "ns3_linux": 1.0} for k in bbr.METRICS}
        m["bbr_share"] = {"ns3": 0.50, "ccsim": 0.60, "ns3_linux": 0.59}
        del m["probe_rtt_dips"]  # counted from low_cwnd_s when the table is written
        m["loss_rate"] = {"ns3": 0.001, "ccsim": 0.001, "ns3_linux": 0.003}
        m.update(drops={"ns3": 10, "ccsim": 10, "ns3_linux": 30}, timeouts={"ns3": 0, "ccsim": 1, "ns3_linux": 0},
                 goodput_mbps={"ns3": 90.0, "ccsim": 91.0, "ns3_linux": 91.0},
                 low_cwnd_s={"ns3": [[1.0, 1.05]], "ccsim": [[10.0, 10.24], [20.0, 20.3]],
                             "ns3_linux": [[10.0, 10.25], [20.0, 20.25]]})
        seeds = {k: [m[k]["ccsim"]] * 8 for k in bbr.SEED_METRICS}
        seeds["low_cwnd_s"] = [[[10.0, 10.24]]] + [m["low_cwnd_s"]["ccsim"]] * 7
        seeds["drops"] = [10, 12, 8, 20, 15, 9, 11, 10]
        seeds["bbr_share"] = [0.60, 0.55, 0.62, 0.58, 0.61, 0.59, 0.57, 0.60]
        rows.append({"id": s.id, "description": s.description, "params": s.params(), "metrics": m,
                     "ccsim_seeds": seeds, "wall_s": {"ns3": 10.0, "ccsim": 0.5, "ns3_linux": 11.0}})
        if s.n_flows > 1:
            one = {k: m[k]["ccsim"] for k in bbr.ATTRIBUTION_METRICS}
            rows[-1]["attribution"] = {"ns3": {k: dict(one, drops=d) for k, d in zip(bbr.LINUX_BEHAVIOURS, (11, 12, 13))},
                                       "ccsim_no_aggregation": dict(one, bbr_share=0.3)}
    return {"peer": bbr.NAME, "peer_version": "3.44.post0", "ccsim_version": ccsim.__version__,
            "date": "2026-01-01T00:00:00Z", "seeds": list(bbr.SEEDS), "scenarios": rows}


def test_markdown_compares_shares_only_with_two_flows_and_flags_differences():
    md = bbr.markdown(_fake_results())
    shipped = md.split("#### Metrics side by side")[1].split("####")[0]
    alone, mixed = [ln for ln in shipped.splitlines() if ln.startswith("| bbr")]
    assert "| — | — |" in alone
    assert "**0.5000 / 0.6000 (+20.0%)**" in mixed
    assert "**0 / 2**" in mixed
    # 8 metrics on the single-flow row (ProbeRTT flagged), 10 on the two-flow row (and BBR's share)
    assert "15 of 18 metric pairs agree within 5%" in shipped
    linux = md.split("#### ns-3 with Linux's three behaviours")[1].split("####")[0]
    assert "0.5900 / 0.6000 (+1.7%)" in linux
    assert "**0.0030 / 0.0010 (-66.7%, 30 / 10 drops)**" in linux
    assert "16 of 18 metric pairs agree within 5%" in linux
    seeds = md.split("#### ProbeBW's random phase")[1].split("####")[0]
    mixed_seeds = [ln for ln in seeds.splitlines() if ln.startswith("| bbr-cubic")][0]
    assert "0.5500-0.6200: 0.5000 **out**, 0.5900 in" in mixed_seeds
    assert "8-20: 10 in, 30 **out**" in mixed_seeds
    assert mixed_seeds.endswith("| 1-2: 0 **out**, 2 in |")  # ProbeRTT dips over the seeds
    assert "| none | 10.00 (250), 20.00 (250) | 10.00 (240), 20.00 (300) | 1 / 0 / 0 | 0 / 0 / 1 |" in md
    attr = md.split("#### What each difference moves")[1].split("####")[0]
    assert "| drops | 10 | 11 | 12 | 13 | 30 | 10 | 10 |" in attr
    assert "| BBR's share | 0.5000 | 0.6000 | 0.6000 | 0.6000 | 0.5900 | 0.6000 | 0.3000 |" in attr
    assert not any(ln.startswith("| bbr-0.5bdp") for ln in attr.splitlines())  # single-flow rows: none


def test_defaults_table_names_the_known_differences():
    md = bbr.defaults_markdown()
    for item in ("delayed ACKs", "pacing", "BBR's gains", "quantization budget", "ACK-aggregation",
                 "RTT samples", "bottleneck buffer", "HyStart"):
        assert item in md, item


def test_docs_hold_the_generated_blocks():
    doc = (ROOT / "docs" / "validation.md").read_text()
    assert "## ns-3: BBR" in doc
    assert bbr.defaults_markdown() in doc, "regenerate with python tools/docs_tables.py"


def test_checked_in_results_cover_the_suite():
    res = json.loads((ROOT / "validation" / "results" / bbr.NAME / bbr.RESULTS).read_text())
    assert res["peer"] == bbr.NAME and res["peer_version"].startswith("3.44")
    assert [s["id"] for s in res["scenarios"]] == [s.id for s in bbr.SCENARIOS]
    for s, sc in zip(res["scenarios"], bbr.SCENARIOS):
        assert s["params"] == sc.params(), sc.id
        assert set(bbr.METRICS) - set(bbr.DERIVED) <= set(s["metrics"])
        assert not set(bbr.DERIVED) & set(s["metrics"]), "derived when the tables are written"


# ---- the long runs: BBR's share against CUBIC (the decision record's question) --


def test_long_runs_are_the_decision_records_buffers_on_both_ack_mappings():
    assert [(s.bdp_mult, s.delack) for s in bbr.SHARE_SCENARIOS] == [(2.0, False), (4.0, False), (2.0, True),
                                                                     (4.0, True)]
    assert set(bbr.SHARE_BUFFERS) <= set(bbr.SHARE_RECORD)
    for s in bbr.SHARE_SCENARIOS:
        assert s.controllers == ("bbr", "cubic") and s.rate_bps == 100e6 and s.rtt_s == 0.04
        assert s.duration_s == 200.0 and s.buffer_pkts == round(s.bdp_mult * 100e6 * 0.04 / (8 * 1502))
        args, d = s.ns3_args(), s.ccsim_scenario()
        validate(d)
        if s.delack:  # the decision record's: ns-3's delayed ACKs, PRR, 1 s RTO; ccsim's Linux delayed ACKs
            assert ns3_arg(args, "ns3::TcpSocket::DelAckCount") == "2" and ns3_arg(args, "ns3::TcpSocketBase::MinRto") == "1s"
            assert ns3_arg(args, "ns3::TcpL4Protocol::RecoveryType") == "ns3::TcpPrrRecovery"
            assert all(f["delayed_ack"] is True and f["delack_model"] == "linux" for f in d["flows"])
        else:  # the comparison's own mapping
            assert ns3_arg(args, "ns3::TcpSocket::DelAckCount") == "1"
            assert ns3_arg(args, "ns3::TcpL4Protocol::RecoveryType") == "ns3::TcpClassicRecovery"
            assert all(f["delayed_ack"] is False for f in d["flows"]) and "delack" not in s.params()
    assert not {s.id for s in bbr.SHARE_SCENARIOS} & {s.id for s in bbr.SCENARIOS}


def test_share_table_gives_each_side_and_the_records_numbers():
    def one(share, dips):
        return {"bbr_share": share, "bbr_cwnd_avg": 500.0, "drops": 100, "avg_queue_pkts": 300.0, "timeouts": 0,
                "low_cwnd_s": [[10.0 * k, 10.0 * k + 0.25] for k in range(1, dips + 1)]}

    s = bbr.SHARE_SCENARIOS[1]  # 4 BDP
    row = {"id": s.id, "params": s.params(), "ns3": one(0.55, 0), "ns3_linux": one(0.45, 19),
           "ccsim_seeds": {k: [one(x, 19)[k] for x in (0.44, 0.40, 0.48)] for k in bbr.SHARE_METRICS},
           "wall_s": {"ns3": 100.0, "ns3_linux": 110.0, "ccsim": [1.0, 1.0, 1.0]}}
    md = bbr.share_markdown({"peer_version": "3.44.post0", "ccsim_version": ccsim.__version__,
                             "date": "2026-01-01T00:00:00Z", "seeds": [1, 2, 3], "rows": [row]})
    assert "| 4 | every segment | 0.550 | 0.450 | 0.440 (0.400-0.480) | 0.541 / 0.441 | 500 / 500 / 500 | " \
           "100 / 100 / 100 | 0 / 19 / 19-19 |" in md


def test_checked_in_long_runs_cover_the_buffers():
    res = json.loads((ROOT / "validation" / "results" / bbr.NAME / bbr.SHARE_RESULTS).read_text())
    assert [r["id"] for r in res["rows"]] == [s.id for s in bbr.SHARE_SCENARIOS]
    for r, sc in zip(res["rows"], bbr.SHARE_SCENARIOS):
        assert r["params"] == sc.params(), sc.id
        assert len(r["ccsim_seeds"]["bbr_share"]) == len(bbr.SHARE_SEEDS)
        for side in ("ns3", "ns3_linux"):
            assert 0 < r[side]["bbr_share"] < 1 and set(r[side]) == set(bbr.SHARE_METRICS)
    doc = (ROOT / "docs" / "validation.md").read_text()
    assert bbr.share_markdown(res) in doc, "regenerate with python tools/docs_tables.py"


def test_the_rng_run_is_another_draw_of_ns3s_streams(monkeypatch, tmp_path):
    seen = []

    class P:
        returncode, stderr = 0, ""
        stdout = json.dumps({"bottleneck": {"tx_bytes": 1, "arrivals": 1, "drops": 0, "wait_p50_s": 0.0,
                                            "wait_p99_s": 0.0, "avg_queue_pkts": 0.0, "max_queue_pkts": 0},
                             "flows": [{"rx_bytes": 1, "retransmits": 0, "timeouts": 0, "cwnd_avg_segments": 10.0,
                                        "cwnd_low_s": []}], "wall_s": 0.1})

    def fake(cmd, **kw):
        seen.append(cmd)
        return P()

    monkeypatch.setattr("subprocess.run", fake)
    s = bbr.SCENARIOS[0]
    bbr.run_ns3(s, tmp_path / "exe")
    bbr.run_ns3(s, tmp_path / "exe", rng_run=3)
    assert ns3_arg(seen[0], "RngRun") is None and ns3_arg(seen[1], "RngRun") == "3"
    assert seen[1][:-1] == seen[0]


def test_ns3_program_takes_the_bbr_options():
    src = ns3_suite.SOURCE.read_text()
    for opt in ('"types"', '"queueStats"', '"cwndStats"', '"lean"', '"CongestionWindow"'):
        assert opt in src, opt


# ---- one short case in both simulators --------------------------------------


@needs_ns3("ns3-bbr")
def test_quick_case_in_ns3_and_ccsim(tmp_path):
    _, sides = ns3_quick_case(bbr, tmp_path, bbr.RESULTS)
    for side, m in sides.items():
        assert 0.9 < m["utilization"] <= 1.001, side
        assert 0.5 < m["bbr_share"] < 1.0, side  # BBR takes most of a 1-BDP buffer from CUBIC
        assert 0 <= m["loss_rate"] < 0.1, side
        assert 0 <= m["qdelay_p50_ms"] <= m["qdelay_p99_ms"] < 100, side
        assert 4 < m["bbr_cwnd_avg"] < 200, side
