"""validation/ns3_newuser.py: the three configurations of the HighSpeed
and CUBIC cases on both sides, and the cwnd comparison."""

import dataclasses
import sys
from pathlib import Path

from ccsim._native import validate

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from validation import ns3_newuser as nu  # noqa: E402
from validation import ns3_suite as suite  # noqa: E402


def run(case, config, tweak=""):
    return nu.Run(**dataclasses.asdict(nu.CASES[case]), config=config, tweak=tweak)


def attrs(r):
    return dict(a[2:].split("=", 1) for a in r.ns3_args() if a.startswith("--ns3::"))


def test_cases_are_the_issues():
    h, c = nu.CASES["H"], nu.CASES["C"]
    assert (h.controller, h.n_flows, h.rate_bps, h.buffer_pkts, h.duration_s, h.rtt_s) == (
        "highspeed", 2, 1e9, 200, 30, (0.1, 0.1))
    assert (c.controller, c.n_flows, c.rate_bps, c.buffer_pkts, c.duration_s, c.rtt_s) == (
        "cubic", 10, 100e6, 100, 30, (0.05, 0.05))


def test_defaults_set_only_the_tcp_type_on_ns3_and_only_cc_on_ccsim():
    r = run("C", "defaults")
    assert attrs(r) == {"ns3::TcpL4Protocol::SocketType": "ns3::TcpCubic"}
    assert r.ns3_args()[-2] == "--sendSize=512"  # after the suite's 1448, so it wins
    f = r.ccsim_scenario()["flows"][0]
    assert set(f) == {"cc", "rtt_s", "start_s"}
    assert r.mss() == 536


def test_mapped_is_the_suite_row_without_the_sack_bytes():
    r = run("H", "mapped")
    assert r.ns3_args() == suite.Scenario.ns3_args(r)
    flows = r.ccsim_scenario()["flows"]
    assert [f.pop("sack_option") for f in flows] == ["none", "none"]
    assert flows == [{k: v for k, v in f.items() if k != "sack_option"}
                     for f in suite.Scenario.ccsim_scenario(r)["flows"]]
    t = run("H", "mapped", nu.SACK_NS3)
    assert t.ns3_args() == r.ns3_args()
    assert t.ccsim_scenario()["flows"] == suite.Scenario.ccsim_scenario(r)["flows"]


def test_ns3_tcp_keeps_ns3s_tcp_defaults_and_sets_ccsim_to_them():
    a = attrs(run("C", "ns3-tcp"))
    for k in nu.NS3_OWN + ["ns3::TcpCubic::HyStart"]:
        assert k not in a, k
    assert a["ns3::TcpSocket::SegmentSize"] == "1448"
    f = run("C", "ns3-tcp").ccsim_scenario()["flows"][0]
    assert f["prr"] and f["delack_model"] == "ns3" and f["min_rto_s"] == 1.0 and f["init_cwnd_pkts"] == 10
    assert f["sack_option"] == "ns3"
    assert f["cc_params"] == nu.NS3_CUBIC
    h = run("H", "ns3-tcp").ccsim_scenario()["flows"][0]
    assert h["cc_params"] == {"a_b": "table", "abc": True}


def test_tweaks_change_one_rule_on_the_sides_they_name():
    base = run("C", "ns3-tcp")
    t = run("C", "ns3-tcp", "classic recovery")
    assert attrs(t)["ns3::TcpL4Protocol::RecoveryType"] == "ns3::TcpClassicRecovery"
    assert "ns3::TcpL4Protocol::RecoveryType" not in attrs(base)
    assert t.ccsim_scenario()["flows"][0]["prr"] is False
    v = run("H", "ns3-tcp", "ccsim per ACK (abc = false)")
    assert v.ns3_args() == run("H", "ns3-tcp").ns3_args()
    assert v.ccsim_scenario()["flows"][0]["cc_params"]["abc"] is False
    d = run("H", "defaults", nu.NS3_AS_DEFAULTS).ccsim_scenario()["flows"][0]
    assert (d["mss_bytes"], d["rwnd_pkts"], d["prr"]) == (536, 244, True)
    c = run("C", "defaults", "classic recovery")
    assert attrs(c) == {"ns3::TcpL4Protocol::SocketType": "ns3::TcpCubic",
                        "ns3::TcpL4Protocol::RecoveryType": "ns3::TcpClassicRecovery"}
    f = c.ccsim_scenario()["flows"][0]
    assert (f["mss_bytes"], f["prr"], f["cc_params"]) == (536, False, nu.NS3_CUBIC)


def test_every_scenario_validates():
    for case in nu.CASES:
        for config in nu.CONFIGS:
            validate(run(case, config).ccsim_scenario())
        for t in nu.TWEAKS[case]:
            validate(run(case, "ns3-tcp", t).ccsim_scenario())
        validate(run(case, "mapped", nu.SACK_NS3).ccsim_scenario())


def test_ns3_trace_shifts_by_the_handshake_and_finds_cuts(tmp_path):
    p = tmp_path / "t.txt"
    p.write_text("cwnd 0.1 0 2896\nssthresh 0.1 0 9\ncwnd 0.2 0 5792\ncwnd 0.2 1 99\ncwnd 0.3 0 4344\n")
    ts, ws, cuts = nu.ns3_trace(p, 1448, 0.1)
    assert ws == [2.0, 4.0, 3.0]
    assert abs(ts[0]) < 1e-12 and abs(cuts[0][0] - 0.2) < 1e-12 and cuts[0][1:] == (4.0, 3.0)


def test_first_divergence_needs_the_difference_to_hold():
    ns3 = ([0.0], [100.0], [])
    blip = ([0.0, 0.001, 0.002, 0.003], [100.0, 150.0, 100.0, 100.0], [])
    assert nu.first_divergence(ns3, blip, hold_s=0.002) is None
    held = ([0.0, 0.001, 0.002, 0.003, 0.004], [100.0, 150.0, 150.0, 150.0, 150.0], [])
    d = nu.first_divergence(ns3, held, hold_s=0.002)
    assert d == {"t": 0.001, "ns3": 100.0, "ccsim": 150.0}
    small = ([0.0, 0.001, 0.002, 0.003], [100.0, 101.5, 101.5, 101.5], [])
    assert nu.first_divergence(ns3, small, hold_s=0.001) is None  # under 2 segments


def test_episodes_group_a_recoverys_cuts():
    cuts = [(1.0, 10, 9), (1.01, 9, 8), (1.2, 8, 4), (3.5, 4, 2)]
    assert nu._episodes(cuts) == 2
