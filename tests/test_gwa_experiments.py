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
    assert (q["kind"], q["limit_pkts"], q["min_th_pkts"], q["max_th_pkts"], q["max_p"], q["gentle"]) == \
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
    # a buffer of B kB is ns-2's queue-limit B: its DropTail (the FCFS
    # routers) holds B - 1 waiting, its RED B (drop-tail.cc, red.cc)
    assert gwa.queue("GWA-FCFS", 60) == {"kind": "droptail", "limit_pkts": 59, "gwa": "fcfs"}
    assert gwa.queue("BA-FCFS", 60) == {"kind": "droptail", "limit_pkts": 59, "gwa": "ba"}
    assert gwa.queue("DropTail", 60) == {"kind": "droptail", "limit_pkts": 59}
    assert gwa.queue("RED", 60)["limit_pkts"] == 60 and gwa.queue("ECN", 60)["limit_pkts"] == 60
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


def test_agents_run_ns2s_tcp_rules():
    # The authors' ns-2: windowInit_ 1, tcp.cc's RTT estimator at the 0.1 s
    # tick, and TcpAgent's ECN (ECT retransmissions, integer halving to 0).
    a = gwa.agent("DropTail", 64)
    assert (a["init_cwnd_pkts"], a["rtt_estimator"], a["min_rto_s"], a["init_rto_s"]) == (1, "ns2", 0.2, 3.0)
    assert "ecn_response" not in a
    e = gwa.agent("ECN", 64)
    assert (e["ecn"], e["ecn_retransmit_ect"], e["ecn_response"]) == (True, True, "ns2")


def test_ns2_ecn_agents_negotiate_on_segment_0(tmp_path):
    # ns-2's ECN agent sends segment 0 (the SYN) Not-ECT with ECN-Echo and
    # the sink answers it with ECN-Echo (tcp.cc `output`, tcp-sink.cc
    # `ack`), read from the ns-2 traces a user writes: the SYN and its ACK
    # carry C, the next ACKs only after a mark.
    import ccsim
    from ccsim.experiments.gwa.ns2 import SETTINGS, buffer_pkts, scenario

    st = dict(SETTINGS["gwa-lan"], telnet=False, dur=0.05, warm=0.025)
    fwd, rev = tmp_path / "fwd.tr", tmp_path / "rev.tr"
    ccsim.run(scenario(st, "ecn", buffer_pkts(30), 1), trace={"r0->r1": str(fwd), "r1->r0": str(rev)})

    def first(path, kind, seq):
        for line in path.read_text().split("\n"):
            w = line.split()
            if w and w[0] == "+" and w[4] == kind and w[10] == seq:
                return w
        raise AssertionError(f"no {kind} {seq} in {path}")

    syn = first(fwd, "tcp", "0")
    assert (syn[5], syn[6]) == ("40", "C------"), syn  # header only, ECE, not ECT
    assert first(fwd, "tcp", "1")[6] == "------N"
    assert first(rev, "ack", "0")[6] == "C------"
    assert first(rev, "ack", "1")[6] == "-------"


# --- gwa-ns2: the recorded ns-2.35 rows ---------------------------------

from ccsim.experiments import Check  # noqa: E402
from ccsim.experiments._kit import Analysis  # noqa: E402
from ccsim.experiments.gwa import ns2  # noqa: E402


def test_ns2_record_matches_the_scenarios_built_here():
    ref = ns2.reference()
    assert not ref["quick"] and ref["source"] == "ns-2" and ref["seeds"] == [1, 2, 3]
    assert {(r["setting"], r["scheme"]) for r in ref["rows"]} == \
        {(s, m) for s in ns2.SETTINGS for m in ns2.SCHEMES}
    # one run per recorded row and seed; every scenario validates
    sweeps = ns2.scenarios(quick=True)
    assert len(sweeps) == len(ref["rows"]) * 3
    for s in sweeps[:3] + sweeps[-3:]:
        validate(s.base)
    # the seed draws the access delays and start times, so seeds differ in them
    a, b = (s.base for s in sweeps[-3:-1])
    assert a["seed"] != b["seed"] and a["flows"][0]["start_s"] != b["flows"][0]["start_s"]


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(quick=True), "recorded with --quick"),
    (lambda d: d["settings"]["gwa-lan"].update(dur=8.0), "setting 'gwa-lan' was recorded as"),
])
def test_ns2_record_that_does_not_fit_is_refused(tmp_path, monkeypatch, change, message):
    import json
    from ccsim._native import UserError
    doc = json.loads(ns2.REFERENCE.read_text())
    change(doc)
    path = tmp_path / "ref.json"
    path.write_text(json.dumps(doc))
    monkeypatch.setattr(ns2, "REFERENCE", path)
    with pytest.raises(UserError, match=message):
        ns2.reference()
    monkeypatch.setattr(ns2, "REFERENCE", tmp_path / "missing.json")
    with pytest.raises(UserError, match="cannot read the recorded ns-2 run"):
        ns2.reference()


def _table(**over):
    row = {"setting": "gwa-lan", "scheme": "ecn", "buffer_kb": 240, "seeds": 3}
    for k in ns2.METRICS:
        row.update({f"ns2_{k}": 1.0, f"ccsim_{k}": 1.0, f"recorded_ccsim_{k}": 1.0})
    row.update(over)
    import pandas as pd
    return Analysis(table=pd.DataFrame([row]))


def test_ns2_checks_tolerance_zero_and_staleness():
    c = {x.quantity.split(": ")[1].split(" ")[0]: x for x in ns2.checks(_table(), True) if x.source == "ns-2"}
    assert set(c) == set(ns2.CHECKED) and all(x.ok for x in c.values())
    # 10% relative: 1.09 passes, 1.11 does not
    assert [x.ok for x in ns2.checks(_table(ccsim_goodput_avg=1.09), True)][0]
    assert not [x.ok for x in ns2.checks(_table(ccsim_goodput_avg=1.11), True)][0]
    # ns-2 lost nothing: ccsim must lose nothing
    zero = [x for x in ns2.checks(_table(ns2_drop_prob=0.0, ccsim_drop_prob=1e-6), True) if "drop_prob" in x.quantity]
    assert not zero[0].ok
    # the consistency check flags a record made with another engine
    cons = [x for x in ns2.checks(_table(recorded_ccsim_marks=2.0), True) if x.source == "consistency"]
    assert len(cons) == 1 and not cons[0].ok and isinstance(cons[0], Check)
