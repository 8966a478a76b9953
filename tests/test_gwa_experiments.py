"""GWA paper reproductions: the §6 setup they share (gwa/__init__.py).

The quick runs themselves are checked by test_experiments.py (outputs,
conservation, snapshots); here the scenario pieces are held to the
paper's settings, independently of any run.
"""

import pytest

from ccsim._native import validate
from ccsim.experiments import gwa


def test_red_and_ecn_queues_follow_section_6():
    # "lower and upper thresholds ... 1/12-th and 3/12-th the buffer size",
    # p_b linear to 0.1, probability 1 above the upper threshold (not gentle)
    q = gwa.queue("RED", 120)
    assert (q["kind"], q["limit_pkts"], q["min_th"], q["max_th"], q["max_p"], q["gentle"]) == \
        ("red", 120, pytest.approx(10), pytest.approx(30), 0.1, False)
    assert "ecn" not in q
    e = gwa.queue("ECN", 120)
    # footnote 7: ECN routers mark above the upper threshold too
    assert e["ecn"] is True and e["ecn_mark_above_max"] is True
    assert {k: v for k, v in e.items() if k not in ("ecn", "ecn_mark_above_max")} == q


def test_gwa_queues_and_agents():
    rr = gwa.queue("GWA-RR", 60)
    # per-flow queues served one packet per visit (plain round robin)
    assert rr == {"kind": "drr", "limit_pkts": 60, "gwa": "rr", "quantum_bytes": 1040}
    assert gwa.queue("GWA-FCFS", 60) == {"kind": "droptail", "limit_pkts": 60, "gwa": "fcfs"}
    assert gwa.queue("BA-FCFS", 60) == {"kind": "droptail", "limit_pkts": 60, "gwa": "ba"}
    caps = {s: {k for k in ("ecn", "gwa", "ba") if gwa.agent(s, 64).get(k)} for s in gwa.SCHEMES}
    assert caps == {"DropTail": set(), "RED": set(), "ECN": {"ecn"}, "GWA-RR": {"gwa"}, "GWA-FCFS": {"gwa"},
                    "BA-FCFS": {"ba"}}
    a = gwa.agent("DropTail", 64)
    assert (a["cc"], a["recovery"], a["mss_bytes"], a["clock_granularity_s"], a["rwnd_pkts"]) == \
        ("reno", "reno", 1000, 0.1, 64)
    with pytest.raises(ValueError, match="unknown GWA-paper scheme 'WFQ'; allowed: DropTail"):
        gwa.queue("WFQ", 60)


@pytest.mark.parametrize("scheme", gwa.SCHEMES)
def test_fig3_scenarios_validate(scheme):
    # Fig 3: every host runs one FTP and one Telnet over its own access
    # link; the engine accepts every scheme's scenario
    sc = validate(gwa.LAN.scenario("t", scheme, 30))
    flows = sc["flows"]
    assert len(flows) == 20
    assert [f.get("app") for f in flows[10:]] == ["telnet"] * 10
    assert all(f["app_params"]["interval_s"] == 0.1 for f in flows[10:])
    assert flows[3]["route"] == flows[13]["route"] == ["s3", "r1", "r2", "d3"]
    bneck = sc["topology"]["links"][gwa.BOTTLENECK]
    assert (bneck["from"], bneck["to"], bneck["rate_bps"], bneck["delay_s"]) == ("r1", "r2", 100e6, 40e-6)


def test_wan_access_delays_are_uniform_on_1_10_ms_and_fixed():
    assert gwa.WAN.tau_i == tuple(gwa.access_delays(10, 1e-3, 10e-3))
    assert all(1e-3 <= t <= 10e-3 for t in gwa.MANY.tau_i) and len(gwa.MANY.tau_i) == 100
    assert not gwa.MANY.telnet and gwa.MANY.n == 100 and gwa.MANY.bottleneck_bps == gwa.MANY.access_bps == 10e6
