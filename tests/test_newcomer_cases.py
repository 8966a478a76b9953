"""Scenarios a researcher writes from the docs, outside the papers' setups:
each case here once gave a silent wrong result (probes by a newcomer). Each
test fails on the engine that had the fault.

* ECN over RED: a flow whose CWR segment was lost sat at cwnd 1 for the
  rest of the run while go-back-N resent, because every ACK echoed ECE
  (RFC 3168 §6.1.3) and an ECE held the window even in the slow start
  after a timeout.
* ``cc = "xcp"`` on a path without an XCP router ran with nothing to lower
  its window: cwnd 1e9 and millions of "retransmissions".
* RED thresholds written as bare numbers were read in bytes.
* A JSON scenario with a key written twice ran with the last value.
"""

from __future__ import annotations

import json

import pytest

import ccsim
from ccsim import UserError
from ccsim.scenario import load_scenario


def _dumbbell(queue, flows, duration_s=15.0, rate=10e6):
    return {"name": "newcomer", "seed": 1, "duration_s": duration_s, "sample_interval_s": 0.1,
            "topology": {"kind": "dumbbell", "bottleneck_rate_bps": rate, "bottleneck_delay_s": 0.005,
                         "bottleneck_queue": queue},
            "flows": flows}


def _util(res):
    """The bottleneck's forward utilisation."""
    return float(res.links.loc[res.links.name == "r0->r1", "utilization"].iloc[0])


def _longest_at_one_segment_s(res, fid):
    """The longest stretch of samples (s) a flow spent at cwnd <= 1."""
    s = res.flow_series
    x = s[s.flow == fid].sort_values("time_s")
    longest = run = 0
    for low in (x.cwnd <= 1.0):
        run = run + 1 if low else 0
        longest = max(longest, run)
    return longest * 0.1


#: Found by random small dumbbells: a CUBIC flow (Reno recovery, paced)
#: beside two SACK flows over a marking RED; it timed out once and then
#: stayed at one segment for 13.9 s of 15.
ECN_STALL = _dumbbell(
    {"kind": "red", "limit_pkts": 300, "min_th_pkts": 10, "max_th_pkts": 30, "ecn": True},
    [{"count": 1, "cc": "cubic", "recovery": "sack", "ecn": True, "rtt_s": 0.01, "delayed_ack": True,
      "start_s": 1.0},
     {"count": 1, "cc": "vegas", "recovery": "sack", "ecn": True, "rtt_s": 0.01, "init_cwnd_pkts": 10},
     {"count": 1, "cc": "cubic", "recovery": "reno", "ecn": True, "rtt_s": 0.04, "pacing": "interval"}])


def test_an_ecn_flow_leaves_one_segment_after_a_timeout():
    res = ccsim.run(ECN_STALL)
    for fid in res.flows.id:
        assert _longest_at_one_segment_s(res, fid) < 2.0, (fid, res.flows.loc[fid].to_dict())
    # the stalled flow had 0.6% of the link; it now has a share
    assert res.flows.goodput_bps.min() > 0.05 * 10e6


def test_ecn_over_red_in_packets_the_issues_setting():
    # CUBIC and Reno with ECN over RED 30/90 packets, 100 Mb/s, 40 ms
    sc = _dumbbell({"kind": "red", "limit_pkts": 200, "min_th_pkts": 30, "max_th_pkts": 90, "ecn": True},
                   [{"count": 1, "cc": "cubic", "ecn": True, "rtt_s": 0.04},
                    {"count": 1, "cc": "reno", "ecn": True, "rtt_s": 0.04}], duration_s=30.0, rate=100e6)
    res = ccsim.run(sc)
    for fid in res.flows.id:
        assert _longest_at_one_segment_s(res, fid) < 1.0
    assert _util(res) > 0.8
    assert res.flows.goodput_bps.min() > 0.2 * 100e6


def test_red_thresholds_name_their_unit():
    q = {"kind": "red", "limit_pkts": 200, "min_th": 30, "max_th": 90, "ecn": True}
    sc = _dumbbell(q, [{"count": 1, "cc": "reno", "ecn": True, "rtt_s": 0.04}], duration_s=1.0)
    with pytest.raises(UserError, match=r"bottleneck_queue\.min_th: this field was renamed: use min_th_pkts"):
        ccsim.run(sc)
    both = {"kind": "red", "limit_pkts": 200, "min_th_pkts": 30, "max_th_bytes": 90000}
    with pytest.raises(UserError, match=r"min_th_bytes: give the thresholds in one unit"):
        ccsim.run(_dumbbell(both, sc["flows"], duration_s=1.0))
    contra = {"kind": "red", "limit_pkts": 200, "min_th_pkts": 30, "max_th_pkts": 90, "bytes": True}
    with pytest.raises(UserError, match=r"bottleneck_queue\.bytes: true contradicts min_th_pkts"):
        ccsim.run(_dumbbell(contra, sc["flows"], duration_s=1.0))


def test_red_thresholds_in_packets_are_packets():
    # 30/90 packets of 1040-byte segments: the queue builds to tens of
    # packets before the marks hold it; read as 30/90 bytes (the former
    # default) RED marks whenever more than one packet waits, and the link
    # runs at a fraction of its rate.
    flows = [{"count": 2, "cc": "reno", "ecn": True, "rtt_s": 0.04}]
    out = {}
    for unit in ("pkts", "bytes"):
        q = {"kind": "red", "limit_pkts": 200, f"min_th_{unit}": 30, f"max_th_{unit}": 90, "ecn": True}
        r = ccsim.run(_dumbbell(q, flows, duration_s=20.0, rate=100e6))
        s = r.link_series
        fwd = s[(s.link == 0) & (s.time_s > 5)]
        out[unit] = (fwd.queue_pkts.quantile(0.9), _util(r))
    assert out["pkts"][0] > 30 and out["bytes"][0] < 2, out
    assert out["pkts"][1] > out["bytes"][1] + 0.3, out


def test_xcp_needs_an_xcp_router_on_its_path():
    flows = [{"count": 1, "cc": "xcp", "rtt_s": 0.04}]
    with pytest.raises(UserError, match=r"flows\[0\]\.cc: \"xcp\" needs an XCP router"):
        ccsim.run(_dumbbell({"kind": "droptail", "limit_pkts": 100}, flows, duration_s=1.0))
    res = ccsim.run(_dumbbell({"kind": "droptail", "limit_pkts": 100, "xcp": True}, flows, duration_s=2.0))
    assert res.flows.retransmits.sum() == 0 and res.flows.final_cwnd.max() < 1e4


def test_a_key_written_twice_is_refused(tmp_path):
    doc = ('{"duration_s": 1, "topology": {"kind": "dumbbell", "bottleneck_rate_bps": 1e6, '
           '"bottleneck_queue": {"kind": "droptail", "limit_pkts": 5}}, '
           '"flows": [{"count": 1, "cc": "reno", "cc": "cubic"}]}')
    (tmp_path / "s.json").write_text(doc)
    with pytest.raises(UserError, match=r"scenario\.flows\[0\]\.cc: this key appears more than once"):
        load_scenario(tmp_path / "s.json")
    (tmp_path / "s.toml").write_text("duration_s = 1\nseed = 2\nseed = 3\n")
    with pytest.raises(UserError, match=r"key 'seed' is given more than once \(.*line 3"):
        load_scenario(tmp_path / "s.toml")
    # the same document without the repeat loads
    (tmp_path / "ok.json").write_text(doc.replace('"cc": "reno", ', ""))
    assert load_scenario(tmp_path / "ok.json").flows[0].cc == "cubic"
    json.loads(doc)  # plain json.loads would have kept "cubic" silently
