"""validation/ns3_aqm.py: the AQM and DCTCP scenarios and their mapping onto
ns-3 and ccsim, the report, and (when ns-3 3.44 is installed) one short case
run in both."""

import json
import sys
from pathlib import Path

import pytest

import ccsim
from ccsim._native import validate
from conftest import needs_ns3, ns3_arg, ns3_quick_case

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from validation import ns3_aqm as aqm  # noqa: E402
from validation import ns3_suite  # noqa: E402



# ---- the scenario set: AQMs and DCTCP, kept small -------------------------


def test_scenarios_cover_the_issue_with_few_short_runs():
    sc = aqm.SCENARIOS
    ids = [s.id for s in sc]
    assert 12 <= len(ids) <= 16 and len(set(ids)) == len(ids) and aqm.QUICK.id not in ids
    for q in ("codel", "fq_codel", "pie"):
        for cc in ("cubic", "newreno"):
            assert any(s.aqm == q and s.controller == cc for s in sc), (q, cc)
        assert {10e6, 100e6} <= {s.rate_bps for s in sc if s.aqm == q}, q
    assert {0.01, 0.05, 0.2} <= {r for s in sc for r in s.rtts()}
    assert {1, 4} == {s.n_flows for s in sc}
    dctcp = [s for s in sc if s.controller == "dctcp"]
    assert {(s.k, s.n_flows) for s in dctcp} == {(20, 1), (20, 4), (65, 1), (65, 4)}
    assert all(s.aqm == "red" and s.rate_bps == 100e6 for s in dctcp)
    assert all(s.duration_s <= 30 for s in sc)


# ---- both sides get the same network and every parameter mapped ----------


@pytest.mark.parametrize("s", aqm.SCENARIOS, ids=lambda s: s.id)
def test_both_sides_map_the_same_scenario(s):
    d = s.ccsim_scenario()
    validate(d)  # the engine accepts it
    args = s.ns3_args()
    q, topo = s.queue(), d["topology"]
    assert ns3_arg(args, "qdisc") == s.aqm and topo["bottleneck_queue"]["kind"] == q.ccsim_kind == s.aqm
    assert int(ns3_arg(args, "deviceQueue")) == aqm.DEVICE_QUEUE_PKTS == 1
    assert float(ns3_arg(args, "rate")) == topo["bottleneck_rate_bps"] == s.rate_bps
    assert float(ns3_arg(args, "bneckDelay")) == topo["bottleneck_delay_s"]
    assert float(ns3_arg(args, "edgeRate")) == topo["edge_rate_bps"]
    assert [float(x) for x in ns3_arg(args, "rtts").split(",")] == [f["rtt_s"] for f in d["flows"]]
    assert [float(x) for x in ns3_arg(args, "starts").split(",")] == [f["start_s"] for f in d["flows"]]
    assert float(ns3_arg(args, "warmup")) == d["warmup_s"] and float(ns3_arg(args, "duration")) == d["duration_s"]
    # the buffer: ns-3's MaxSize in packets is ccsim's limit_pkts
    assert ns3_arg(args, f"{q.ns3_type}::MaxSize") == f"{topo['bottleneck_queue']['limit_pkts']}p"
    ctl = aqm.CONTROLLERS[s.controller]
    assert ns3_arg(args, "ns3::TcpL4Protocol::SocketType") == ctl["ns3"]
    for f in d["flows"]:
        assert f["cc"] == ctl["cc"]
        assert f["mss_bytes"] == int(ns3_arg(args, "ns3::TcpSocket::SegmentSize")) == 1448
        assert f["header_bytes"] == 54
        assert f["init_cwnd_pkts"] == int(ns3_arg(args, "ns3::TcpSocket::InitialCwnd")) == 10
        assert f["min_rto_s"] == 0.2 and ns3_arg(args, "ns3::TcpSocketBase::MinRto") == "200ms"
        assert f["delayed_ack"] is False and ns3_arg(args, "ns3::TcpSocket::DelAckCount") == "1"
        assert f["recovery"] == "sack" and ns3_arg(args, "ns3::TcpSocketBase::Sack") == "true"
    assert ns3_arg(args, "ns3::TcpL4Protocol::RecoveryType") == "ns3::TcpClassicRecovery"
    assert topo["bottleneck_queue"]["ties"] == topo["edge_queue"]["ties"] == "arrival_first"


def test_queue_parameters_are_mapped_explicitly():
    by = {s.aqm: s for s in aqm.SCENARIOS}
    pie = by["pie"].queue()
    assert pie.ns3_attrs["ns3::PieQueueDisc::UseDerandomization"] == "false"
    assert pie.ccsim_fields["derandomize"] is False
    assert pie.ns3_attrs["ns3::PieQueueDisc::QueueDelayReference"] == "15ms" and pie.ccsim_fields["target_s"] == 0.015
    assert {s.limit_pkts for s in aqm.SCENARIOS if s.aqm == "pie" and s.rate_bps == 10e6} == {25}  # ns-3's
    codel = by["codel"].queue()
    assert codel.ns3_attrs["ns3::CoDelQueueDisc::Target"] == "5ms" and codel.ccsim_fields["target_s"] == 0.005
    assert codel.ns3_attrs["ns3::CoDelQueueDisc::MinBytes"] == "1500" and codel.ccsim_fields["mtu_bytes"] == 1500
    fq = by["fq_codel"].queue()
    assert fq.ns3_attrs["ns3::FqCoDelQueueDisc::Flows"] == str(fq.ccsim_fields["flows"]) == "1024"
    # DCTCP's step: ns-3 marks at K in the disc (one more waits in the
    # device), ccsim above K waiting
    red = aqm.queue_map("red", 1000, 20)
    assert red.ns3_attrs["ns3::RedQueueDisc::MinTh"] == red.ns3_attrs["ns3::RedQueueDisc::MaxTh"] == "20"
    assert red.ns3_attrs["ns3::RedQueueDisc::QW"] == "1" and red.ns3_attrs["ns3::RedQueueDisc::Gentle"] == "false"
    assert red.ns3_attrs["ns3::RedQueueDisc::UseHardDrop"] == "false"
    assert (red.ccsim_fields["min_th_pkts"], red.ccsim_fields["max_th_pkts"]) == (20, 21)
    assert red.ccsim_fields["ecn_mark_above_max"] and red.ccsim_fields["w_q"] == 1.0
    assert red.ns3_view == "total" and codel.ns3_view == fq.ns3_view == pie.ns3_view == "disc"
    with pytest.raises(ValueError, match="allowed"):
        aqm.queue_map("droptail", 10)


def test_select_and_the_alpha_study_part():
    assert [s.id for s in aqm._select(False, ["dctcp-red-k20-1", aqm.ALPHA_ID])] == ["dctcp-red-k20-1"]
    assert aqm._select(True, None) == [aqm.QUICK]
    with pytest.raises(ValueError, match="unknown ns3-aqm scenario"):
        aqm._select(False, ["nope"])
    args = aqm.alpha_ns3_args(3, "1ms", aqm.PRR)
    assert ns3_arg(args, "bql") == "1ms" and ns3_arg(args, "deviceQueue") == "3"
    assert ns3_arg(args, "ns3::CoDelQueueDisc::CeThreshold") == "1ms"
    assert ns3_arg(aqm.alpha_ns3_args(1, "", aqm.CLASSIC), "bql") is None
    validate(aqm.alpha_ccsim_scenario())


# ---- measurement helpers and the report -----------------------------------


def test_percentile_is_nearest_rank():
    xs = [float(i) for i in range(1, 101)]
    assert aqm.percentile(xs, 0.5) == 50.0 and aqm.percentile(xs, 0.99) == 99.0
    assert aqm.percentile([3.0], 0.99) == 3.0


def test_ccsim_sojourns_pair_enqueue_and_dequeue(tmp_path):
    tr = tmp_path / "b.tr"
    tr.write_text(
        "+ 0.5 0 1 tcp 1502 ------- 0 0.0 1.0 1 0\n"
        "- 0.5 0 1 tcp 1502 ------- 0 0.0 1.0 1 0\n"     # before the window
        "+ 1.0 0 1 tcp 1502 ------- 0 0.0 1.0 2 1\n"
        "+ 1.1 0 1 tcp 1502 ------- 0 0.0 1.0 3 2\n"
        "- 1.5 0 1 tcp 1502 ------- 0 0.0 1.0 2 1\n"
        "d 1.6 0 1 tcp 1502 ------- 0 0.0 1.0 3 2\n"     # a head drop: not counted
        "+ 2.0 0 1 ack 54 ------- 0 1.0 0.0 1 3\n")      # not data
    soj, qmax = aqm.ccsim_sojourns(tr, 1.0)
    assert soj == [pytest.approx(0.5)] and qmax == 2


def test_trace_sojourns_are_the_engines_qdelay_packets(tmp_path):
    """The quick case's ccsim side, with ``qdelay = true`` beside the trace:
    the trace's waits are the packets the link's delay figures describe
    (as many as it sent, the same exact mean), and its exact nearest-rank
    p50 and p99 are within the histogram's 1/128 of the engine's. The
    suite keeps the trace's exact percentiles (``ccsim_sojourns``)."""
    d = aqm.QUICK.ccsim_scenario()
    d["qdelay"] = True
    tr = tmp_path / "b.tr"
    res = ccsim.run(d, trace={"bottleneck": str(tr)})
    soj, _ = aqm.ccsim_sojourns(tr, aqm.QUICK.warmup_s)
    link = next(link for link in res.raw["links"] if link["from"] == "r0" and link["to"] == "r1")
    assert len(soj) == link["tx_pkts"] > 1000
    assert sum(soj) / len(soj) == pytest.approx(link["qdelay_mean_s"], rel=1e-9)
    for q, key in ((0.5, "qdelay_p50_s"), (0.99, "qdelay_p99_s")):
        exact = aqm.percentile(soj, q)
        assert abs(link[key] - exact) <= exact / 128 + 1e-12, (key, link[key], exact)
    assert max(soj) == pytest.approx(link["qdelay_max_s"], rel=1e-12)


def _fake_results():
    s = next(x for x in aqm.SCENARIOS if x.aqm == "codel" and x.rate_bps == 10e6)
    m = {k: {"ns3": 1.0, "ccsim": 1.0} for k in aqm.METRICS}
    m["qdelay_p50_ms"] = {"ns3": 5.0, "ccsim": 6.2}  # one transmission time (1.2 ms) apart
    m["loss_rate"] = {"ns3": 0.01, "ccsim": 0.01}
    m.update(drops={"ns3": 10, "ccsim": 10}, retransmits={"ns3": 3, "ccsim": 4}, timeouts={"ns3": 0, "ccsim": 0})
    return {
        "peer": aqm.NAME, "peer_version": "3.44.post0", "ccsim_version": ccsim.__version__,
        "date": "2026-01-01T00:00:00Z",
        "scenarios": [{"id": s.id, "description": s.description, "params": s.params(), "metrics": m,
                       "ns3_only": {"total_p50_ms": 6.0, "total_p99_ms": 7.0, "total_avg_queue_pkts": 2.0},
                       "wall_s": {"ns3": 10.0, "ccsim": 0.5}}],
    }


def test_markdown_flags_differences_and_names_transmission_times():
    md = aqm.markdown(_fake_results())
    assert "**5.00 / 6.20 (+24.0%, +1.0 tx)**" in md
    assert "0.0100 / 0.0100 (10 / 10 drops)" in md
    assert "6 of 7 metric pairs agree within 5%" in md
    assert "| disc + device | 6.00 / 7.00 | 2.0 | 3 / 4 | 0 / 0 |" in md
    assert "DCTCP against" not in md  # no DCTCP row, no DCTCP table


def test_defaults_table_maps_every_queue():
    md = aqm.defaults_markdown()
    for kind in ("`codel`", "`fq_codel`", "`pie`", "`red`"):
        assert f"| {kind} |" in md
    assert "UseDerandomization" in md and "minimum RTO" in md and "delayed ACKs" in md


def test_docs_hold_the_generated_blocks():
    doc = (ROOT / "docs" / "validation.md").read_text()
    assert "## ns-3: AQMs and DCTCP" in doc
    assert aqm.defaults_markdown() in doc, "regenerate with python tools/docs_tables.py"


def test_checked_in_results_cover_the_suite():
    res = json.loads((ROOT / "validation" / "results" / aqm.NAME / aqm.RESULTS).read_text())
    assert res["peer"] == aqm.NAME and res["peer_version"].startswith("3.44")
    assert [s["id"] for s in res["scenarios"]] == [s.id for s in aqm.SCENARIOS]
    for s, sc in zip(res["scenarios"], aqm.SCENARIOS):
        assert s["params"] == sc.params(), sc.id
        assert set(aqm.METRICS) <= set(s["metrics"])
    a = res["dctcp_alpha"]
    assert [r["label"] for r in a["ns3"]] == [v[0] for v in aqm.ALPHA_VARIANTS]


def test_ns3_program_takes_the_queue_disc_options():
    src = ns3_suite.SOURCE.read_text()
    for opt in ('"qdisc"', '"deviceQueue"', '"bql"', '"SojournTime"', '"Mark"', '"CongestionEstimate"'):
        assert opt in src, opt


# ---- one short case in both simulators --------------------------------------


@needs_ns3("ns3-aqm")
def test_quick_case_in_ns3_and_ccsim(tmp_path):
    _, sides = ns3_quick_case(aqm, tmp_path, aqm.RESULTS)
    for side, m in sides.items():
        assert 0.5 < m["utilization"] <= 1.001, side
        assert 0 <= m["loss_rate"] < 0.05 and m["marks"] == 0, side
        assert 0 <= m["qdelay_p50_ms"] <= m["qdelay_p99_ms"] < 100, side
