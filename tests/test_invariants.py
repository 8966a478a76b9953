"""Invariants over random scenarios (ccsim.fuzz; docs/reliability.md,
"Invariants over random scenarios").

Three parts: each invariant's checker fed a fabricated result that breaks
it (so every invariant can fail, and says so), the generator's
reproducibility and coverage, and a CI-sized fuzz run with its CLI.

Budget: ``CCSIM_INVARIANT_CASES`` scenarios (default 300, about 30 s on
one core) of seed ``CCSIM_INVARIANT_SEED`` (default 1);
``ccsim fuzz --cases 10000`` is the long run.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import ccsim
from ccsim import cli, fuzz
from ccsim._native import core, validate
from ccsim.results import Results

CASES = int(os.environ.get("CCSIM_INVARIANT_CASES", "300"))
SEED = int(os.environ.get("CCSIM_INVARIANT_SEED", "1"))

# --------------------------------------------------------------------------
# fabricated results
# --------------------------------------------------------------------------

DT = 0.1
RATE = 10e6


def dumbbell(queue=None, flows=None, **top):
    return {
        "duration_s": 10.0,
        "sample_interval_s": DT,
        "topology": {"kind": "dumbbell", "bottleneck_rate_bps": RATE, "bottleneck_delay_s": 0.01,
                     "bottleneck_queue": queue or {"kind": "droptail", "limit_pkts": 50}, **top},
        "flows": flows or [{"count": 2, "cc": "reno", "rtt_s": 0.1}],
    }


def flow_row(i, entry=0, **kw):
    row = {"id": i, "entry": entry, "transport": "tcp", "cc": "reno", "recovery": "newreno", "pacing": "none",
           "rtt_prop_s": 0.1, "start_s": 0.0, "goodput_bps": 4.5e6, "retransmits": 0, "timeouts": 0}
    row.update(kw)
    return row


def link_row(name, **kw):
    row = {"name": name, "drops": 0, "random_losses": 0, "marks": 0, "max_queue_bytes": 0,
           "monitored": name in ("r0->r1", "r1->r0")}
    row.update(kw)
    return row


def fake(flows=None, links=None, conservation=None, cwnd=None):
    """A healthy two-flow result unless told otherwise. ``cwnd``: flow id ->
    list of cwnd samples (others sample 10 for 100 samples)."""
    flows = flows or [flow_row(0), flow_row(1)]
    links = links or [link_row("r0->r1"), link_row("r1->r0"), link_row("s0->r0")]
    cons = {"created": 100, "delivered": 90, "dropped": sum(l["drops"] + l["random_losses"] for l in links),
            "in_flight": 10, "live_in_pool": 10}
    cons["delivered"] = 90 - cons["dropped"]
    cons.update(conservation or {})
    series = {"time_s": [], "flow": [], "cwnd": [], "ssthresh": [], "srtt_s": [], "goodput_bps": []}
    for f in flows:
        samples = (cwnd or {}).get(f["id"], [10.0] * 100)
        for k, c in enumerate(samples):
            series["time_s"].append(round((k + 1) * DT, 6))
            series["flow"].append(f["id"])
            series["cwnd"].append(c)
            series["ssthresh"].append(20.0)
            series["srtt_s"].append(0.1)
            series["goodput_bps"].append(1e6)
    return Results({"flows": flows, "links": links, "conservation": cons, "series": {"flows": series}})


def names(violations):
    return [v.invariant for v in violations]


def test_the_healthy_fabrication_breaks_nothing():
    assert fuzz.check(dumbbell(), fake()) == []


# --------------------------------------------------------------------------
# each invariant can fail
# --------------------------------------------------------------------------


def test_cwnd_stall_without_timeouts_is_reported():
    res = fake(cwnd={0: [10.0] * 50 + [1.0] * 30 + [2.0] * 20})  # 3 s at one segment, no timeout
    found = fuzz.check(dumbbell(), res)
    assert names(found) == ["cwnd_stall"] and found[0].flow == 0, found
    assert "3.00 s" in found[0].detail and "0 timeouts" in found[0].detail


def test_cwnd_stall_longer_than_its_timeouts_can_hold_is_reported():
    # One timeout holds cwnd at 1 for at most one backed-off RTO (2 x 1 s
    # initial RTO) plus a sample either side: 2.2 s, less than 3 s.
    res = fake(flows=[flow_row(0, timeouts=1), flow_row(1)], cwnd={0: [10.0] * 50 + [1.0] * 30 + [2.0] * 20})
    assert names(fuzz.check(dumbbell(), res)) == ["cwnd_stall"]


def test_cwnd_stall_explained_by_backed_off_timeouts_is_not():
    res = fake(flows=[flow_row(0, timeouts=3), flow_row(1)], cwnd={0: [10.0] * 50 + [1.0] * 30 + [2.0] * 20})
    assert fuzz.check(dumbbell(), res) == []


@pytest.mark.parametrize("ecn, ece_acks, reported", [
    (True, 30, False),   # an ECE per RTO of the 3 s: the echoes held it (RFC 3168 §6.1.2)
    (True, 5, True),     # too few echoes to have held it that long
    (False, 30, True),   # no ECN: the echoes count for nothing
], ids=["ece-held", "few-echoes", "no-ecn"])
def test_cwnd_stall_held_by_ecn_echoes_is_not_reported(ecn, ece_acks, reported):
    sc = dumbbell(flows=[{"count": 2, "cc": "reno", "rtt_s": 0.1, "ecn": ecn}],
                  queue={"kind": "red", "limit_pkts": 50, "ecn": True})
    res = fake(flows=[flow_row(0, ece_acks=ece_acks), flow_row(1)], cwnd={0: [10.0] * 50 + [1.0] * 30 + [2.0] * 20})
    assert names(fuzz.check(sc, res)) == (["cwnd_stall"] if reported else [])


def test_short_cwnd_stall_is_not_reported():
    res = fake(cwnd={0: [10.0] * 50 + [1.0] * 15 + [2.0] * 35})  # 1.5 s < max(20 RTTs, 2 s)
    assert fuzz.check(dumbbell(), res) == []


def test_retransmission_without_loss_or_timeout_is_reported():
    res = fake(flows=[flow_row(0, retransmits=7), flow_row(1)])
    found = fuzz.check(dumbbell(), res)
    assert names(found) == ["spurious_retransmit"] and found[0].flow == 0
    assert "7 retransmissions" in found[0].detail


@pytest.mark.parametrize("ect, mask, hops, reported", [
    ("ect0", None, [0, 1], False),        # CE packets join the L queue at the next link: reordering
    ("ect0", "any_ect", [0, 1], True),    # ECT(0) and CE share the L queue
    ("ect1", None, [0, 1], True),         # ECT(1) and CE share the L queue
    ("ect1", "cla_ect", [0, 1], False),   # ECT(1) in C, CE in L
    ("ect0", None, [1, 1], True),         # one DualPI2 link: nothing to overtake
])
def test_retransmission_on_a_parking_lot_of_dualpi2_links(ect, mask, hops, reported):
    queue = {"kind": "dualpi2", "limit_pkts": 100, **({"ecn_mask": mask} if mask else {})}
    sc = {"duration_s": 10.0, "sample_interval_s": DT,
          "topology": {"kind": "parking_lot", "n_links": 2, "link_rate_bps": RATE, "link_queue": queue},
          "flows": [{"count": 2, "cc": "reno", "rtt_s": 0.1, "ecn": True, "ect": ect, "hops": hops}]}
    res = fake(flows=[flow_row(0, retransmits=7), flow_row(1)])
    assert fuzz._dualq_reorders(validate(sc)) is not reported
    assert names(fuzz.check(sc, res)) == (["spurious_retransmit"] if reported else [])


def test_dualpi2_reorders_ce_marked_classic_packets_on_a_parking_lot():
    # Why the rule above exists, on a real run: 30 ECN Reno flows load the
    # first DualPI2 link (drop_overload off: marks, no drops), 4 the second;
    # two ECT(0) flows cross both. Their packets marked CE at the first
    # link join the second link's L queue and overtake their unmarked ones
    # in its C queue: fast retransmits with no timeout, more of them than
    # drops (a retransmission goes Not-ECT, RFC 3168 §6.1.5, and the C
    # queue may drop it: such drops follow retransmissions, they do not
    # cause them). With ECT(0) and CE in one queue (any_ect) nothing is
    # reordered: no retransmission and no drop.
    tcp = {"cc": "reno", "ecn": True, "rtt_s": 0.02, "min_rto_s": 10.0, "init_rto_s": 10.0}
    retx = {}
    for mask in ("l4s_ect", "any_ect"):
        sc = {"seed": 2, "duration_s": 5.0, "sample_interval_s": 0.1,
              "topology": {"kind": "parking_lot", "n_links": 2, "link_rate_bps": 10e6, "link_delay_s": 0.002,
                           "link_queue": {"kind": "dualpi2", "limit_pkts": 5000, "drop_overload": False,
                                          "ecn_mask": mask}},
              "flows": [{**tcp, "count": 2, "hops": [0, 1]}, {**tcp, "count": 30, "hops": [0, 0]},
                        {**tcp, "count": 4, "hops": [1, 1]}]}
        res = ccsim.run(sc)
        drops, retx[mask] = int(res.links["drops"].sum()), int(res.flows["retransmits"].sum())
        assert int(res.flows["timeouts"].sum()) == 0, mask
        assert drops < retx[mask] if mask == "l4s_ect" else drops == 0, (mask, drops, retx[mask])
        assert fuzz._dualq_reorders(validate(sc)) is (mask == "l4s_ect")
        assert "spurious_retransmit" not in names(fuzz.check(sc, res)), mask
    assert retx["l4s_ect"] > 0 and retx["any_ect"] == 0, retx


@pytest.mark.parametrize("why", ["drop", "random_loss", "timeout", "configured_loss"])
def test_retransmission_with_a_cause_is_not_reported(why):
    links = [link_row("r0->r1", drops=int(why == "drop"), random_losses=int(why == "random_loss")),
             link_row("r1->r0")]
    res = fake(flows=[flow_row(0, retransmits=7, timeouts=int(why == "timeout")), flow_row(1)], links=links)
    sc = dumbbell(bottleneck_loss=0.01) if why == "configured_loss" else dumbbell()
    assert "spurious_retransmit" not in names(fuzz.check(sc, res))


@pytest.mark.parametrize("broken, says", [
    ({"created": 101}, "created 101"),
    ({"live_in_pool": 11}, "live in the packet pool"),
    ({"dropped": 3, "delivered": 87}, "links dropped or lost 0"),
])
def test_conservation_breaks_are_reported(broken, says):
    found = fuzz.check(dumbbell(), fake(conservation=broken))
    assert names(found) == ["conservation"] and says in found[0].detail, found


def test_flows_ce_marks_that_are_not_the_links_marks_are_reported():
    res = fake(flows=[flow_row(0, ce_marks=3), flow_row(1, ce_marks=1)], links=[link_row("r0->r1", marks=5)])
    found = fuzz.check(dumbbell(), res)
    assert names(found) == ["conservation"] and "CE marks (4) are not the links' marks (5)" in found[0].detail
    res = fake(flows=[flow_row(0, ce_marks=4), flow_row(1, ce_marks=1)], links=[link_row("r0->r1", marks=5)])
    assert fuzz.check(dumbbell(), res) == []


QD = {"qdelay_p50_s": 0.001, "qdelay_p90_s": 0.002, "qdelay_p99_s": 0.003, "qdelay_p999_s": 0.004,
      "qdelay_max_s": 0.005, "qdelay_mean_s": 0.0015}
NO_QD = dict.fromkeys(QD)


@pytest.mark.parametrize("link, says", [
    (dict(QD, qdelay_p99_s=0.0045), "p50, p90, p99, p99.9, max, mean"),
    (dict(QD, qdelay_mean_s=0.006), "p50, p90, p99, p99.9, max, mean"),
    (dict(QD, qdelay_p50_s=-1e-9), "p50, p90, p99, p99.9, max, mean"),
    (dict(NO_QD), "with 10 packets sent"),
    (dict(QD, qdelay_p90_s=None), "with 10 packets sent"),
    ({}, "missing with qdelay = true"),
])
def test_disordered_or_missing_queueing_delays_are_reported(link, says):
    res = fake(links=[link_row("r0->r1", tx_pkts=10, **link)])
    found = fuzz.check(dict(dumbbell(), qdelay=True), res)
    assert names(found) == ["qdelay"] and says in found[0].detail, found
    # without qdelay the figures are not looked at
    assert fuzz.check(dumbbell(), res) == []


def test_ordered_queueing_delays_and_an_idle_link_are_not():
    res = fake(links=[link_row("r0->r1", tx_pkts=10, **QD), link_row("r1->r0", tx_pkts=0, **NO_QD)])
    assert fuzz.check(dict(dumbbell(), qdelay=True), res) == []


def _classes(**c):
    """DualPI2-like classes of the QD link's 10 packets: L 4 packets, C 6,
    consistent with QD (max 5 ms in C, means 0.75 and 2 ms weighing to
    1.5 ms); ``c`` replaces fields of class C."""
    l = {"class": "l", "pkts": 4, "p50_s": 0.0005, "p90_s": 0.001, "p99_s": 0.001, "p999_s": 0.001,
         "max_s": 0.001, "mean_s": 0.00075}
    cc = {"class": "c", "pkts": 6, "p50_s": 0.002, "p90_s": 0.004, "p99_s": 0.005, "p999_s": 0.005,
          "max_s": 0.005, "mean_s": 0.002}
    cc.update(c)
    return [l, cc]


@pytest.mark.parametrize("classes, says", [
    (_classes(p90_s=0.0001), "class c: p50, p90, p99, p99.9, max, mean"),
    (_classes(p50_s=None), "class c: delays"),
    (_classes(pkts=5), "its classes' packets (9) are not its tx_pkts (10)"),
    (_classes(max_s=0.0049, p999_s=0.0049, p99_s=0.0049), "against its classes' max 0.0049"),
    (_classes(mean_s=0.0021), "weighted mean"),
])
def test_classes_that_disagree_with_their_link_are_reported(classes, says):
    res = fake(links=[link_row("r0->r1", tx_pkts=10, qdelay_classes=classes, **QD)])
    found = fuzz.check(dict(dumbbell(), qdelay=True), res)
    assert names(found) == ["qdelay"] and says in found[0].detail, found


def test_classes_that_add_up_to_their_link_are_not():
    res = fake(links=[link_row("r0->r1", tx_pkts=10, qdelay_classes=_classes(), **QD)])
    assert fuzz.check(dict(dumbbell(), qdelay=True), res) == []
    # a class that sent nothing has null figures
    idle_c = _classes(pkts=0, **dict.fromkeys(("p50_s", "p90_s", "p99_s", "p999_s", "max_s", "mean_s")))
    idle_c[0].update(pkts=10, max_s=0.005, p999_s=0.005, p99_s=0.005, mean_s=0.0015, p90_s=0.002, p50_s=0.001)
    res = fake(links=[link_row("r0->r1", tx_pkts=10, qdelay_classes=idle_c, **QD)])
    assert fuzz.check(dict(dumbbell(), qdelay=True), res) == []


def test_starved_flow_of_a_homogeneous_scenario_is_reported():
    fair = RATE * 1000 / 1040 / 2
    res = fake(flows=[flow_row(0, goodput_bps=0.01 * fair), flow_row(1, goodput_bps=0.99 * fair)])
    found = fuzz.check(dumbbell(), res)
    assert names(found) == ["fair_share"] and found[0].flow == 0


def test_starved_flow_that_waited_on_its_timers_for_most_of_the_run_is_not():
    # Six of its ten seconds at one segment, explained by three timeouts:
    # four seconds with an open window are not long enough to claim a share.
    fair = RATE * 1000 / 1040 / 2
    res = fake(flows=[flow_row(0, goodput_bps=0.01 * fair, timeouts=3), flow_row(1, goodput_bps=0.99 * fair)],
               cwnd={0: [10.0] * 40 + [1.0] * 60})
    assert fuzz.check(dumbbell(), res) == []


def test_starved_flow_of_a_mixed_scenario_is_not():
    sc = dumbbell(flows=[{"cc": "reno", "rtt_s": 0.1}, {"cc": "cubic", "rtt_s": 0.1}])
    res = fake(flows=[flow_row(0, goodput_bps=1e3), flow_row(1, entry=1, cc="cubic")])
    assert fuzz.check(sc, res) == []


@pytest.mark.parametrize("change, homogeneous", [
    ({}, True),
    ({"flows": [{"count": 9, "cc": "reno", "rtt_s": 0.1}]}, False),                    # > 8 flows
    ({"flows": [{"count": 2, "cc": "reno", "rtt_s": [0.1, 0.2]}]}, False),             # two RTTs
    ({"flows": [{"count": 2, "cc": "reno", "rtt_s": 0.1, "bytes": 10**6}]}, False),    # finite
    ({"flows": [{"count": 2, "cc": "reno", "rtt_s": 0.1, "start_spread_s": 2}]}, False),
    ({"flows": [{"count": 2, "cc": "reno", "rtt_s": 0.1, "direction": "reverse"}]}, False),
    ({"flows": [{"cc": "reno", "rtt_s": 0.1}, {"cc": "reno", "rtt_s": 0.1, "start_s": 0.5}]}, True),
    ({"queue": {"kind": "droptail", "limit_pkts": 19}}, False),                        # small buffer
    ({"duration_s": 4.0}, False),                                                      # too short
])
def test_homogeneous_means_one_tcp_one_rtt_few_long_flows_and_a_buffer(change, homogeneous):
    sc = dumbbell(queue=change.get("queue"), flows=change.get("flows"))
    sc["duration_s"] = change.get("duration_s", sc["duration_s"])
    assert fuzz.is_homogeneous(validate(sc)) is homogeneous


ECN = dumbbell(queue={"kind": "red", "limit_pkts": 100, "ecn": True},
               flows=[{"count": 1, "cc": "reno", "ecn": True, "rtt_s": 0.1}])


def traces(tmp_path, data, acks):
    """Traces of the forward (data) and reverse (ACK) bottleneck of flow 0
    from (event, time, flags, seq[, pktid]) tuples (pktid: the row's index
    unless given), read back as ccsim.fuzz reads a run's traces."""
    out = {}
    for name, rows, kind, size, ends in (("bottleneck", data, "tcp", 1040, "0 1"),
                                         ("bottleneck-rev", acks, "ack", 40, "1 0")):
        path = tmp_path / f"{name}.tr"
        path.write_text("".join(f"{ev} {t} {ends} {kind} {size} {flags} 0 2.0 3.0 {seq} {row[4] if row[4:] else k}\n"
                                for k, row in enumerate(rows) for ev, t, flags, seq in [row[:4]]))
        out[name] = fuzz.read_trace(path)
    return out


def one_flow():
    return fake(flows=[flow_row(0)], links=[link_row("r0->r1"), link_row("r1->r0")])


def test_ece_echoed_long_after_the_cwr_arrived_is_reported(tmp_path):
    data = [("r", 0.40, "----E-N", 9), ("+", 0.50, "---A--N", 10), ("r", 0.51, "---A--N", 10)]
    acks = [("r", 2.0, "C------", 10)]
    found = fuzz.check(ECN, one_flow(), traces(tmp_path, data, acks))
    assert names(found) == ["ece_echo"] and "no CE mark since" in found[0].detail, found


@pytest.mark.parametrize("kind, reported",
                         [("red", True), ("codel", True), ("pie", True), ("fq_codel", False), ("dualpi2", False)])
def test_ece_echo_allows_a_per_flow_queue_its_longest_wait(tmp_path, kind, reported):
    # The ECE ACK waited 1.5 s in the reverse bottleneck (its + and - lines)
    # though the links' largest backlogs are 0: a FIFO cannot have held it
    # (the FIFO bound stands and the echo 1.49 s after the CWR is a breach);
    # FQ-CoDel can, serving other flows' later packets first, and so can
    # DualPI2 (its L queue's later packets first), so their round trip
    # counts the wait and the ACK may have left before the CWR came.
    data = [("r", 0.40, "----E-N", 9), ("+", 0.50, "---A--N", 10), ("r", 0.51, "---A--N", 10)]
    acks = [("+", 0.45, "C------", 10, 99), ("-", 1.95, "C------", 10, 99), ("r", 2.0, "C------", 10, 99)]
    queue = {"kind": kind, "limit_pkts": 100, **({} if kind == "dualpi2" else {"ecn": True})}
    sc = dict(ECN, topology={**ECN["topology"], "bottleneck_queue": queue})
    found = fuzz.check(sc, one_flow(), traces(tmp_path, data, acks))
    assert names(found) == (["ece_echo"] if reported else []), found


def test_ece_echoing_a_mark_after_the_cwr_is_not(tmp_path):
    data = [("+", 0.50, "---A--N", 10), ("r", 0.51, "---A--N", 10), ("r", 1.5, "----E-N", 20)]
    acks = [("r", 2.0, "C------", 20)]
    assert fuzz.check(ECN, one_flow(), traces(tmp_path, data, acks)) == []


def test_ece_answered_by_new_data_without_cwr_is_reported(tmp_path):
    data = [("+", 0.1 * k, "------N", k) for k in range(1, 6)] + [("+", 1.5, "------N", 6)]
    acks = [("r", 1.0, "C------", 3)]
    found = fuzz.check(ECN, one_flow(), traces(tmp_path, data, acks))
    assert names(found) == ["ece_echo"] and "answers no CWR" in found[0].detail, found


@pytest.mark.parametrize("why", ["cwr", "echo", "recovery"])
def test_ece_with_cwr_sent_or_owed_elsewhere_is_not(tmp_path, why):
    data = [("+", 0.1 * k, "---A--N" if why == "echo" and k == 4 else "------N", k) for k in range(1, 6)]
    if why == "recovery":
        data.append(("+", 0.9, "-------", 2))  # a retransmission: recovery until 5 is acknowledged
    data.append(("+", 1.5, "---A--N" if why == "cwr" else "------N", 6))
    acks = [("r", 1.0, "C------", 3)]
    assert fuzz.check(ECN, one_flow(), traces(tmp_path, data, acks)) == []


@pytest.mark.parametrize("queue, traced", [
    ({"kind": "red", "limit_pkts": 100, "ecn": True}, True),
    ({"kind": "red", "limit_pkts": 100}, False),
    ({"kind": "codel", "ecn": True}, True),
    ({"kind": "codel"}, False),                     # CoDel's ECN is off by default
    ({"kind": "pie", "ecn": True}, True),
    ({"kind": "fq_codel"}, True),                   # FQ-CoDel's is on
    ({"kind": "fq_codel", "ecn": False}, False),
    ({"kind": "drr", "limit_pkts": 100}, False),
    ({"kind": "dualpi2"}, True),                    # DualPI2 always marks
])
def test_the_ece_invariant_traces_every_marking_queue(queue, traced):
    sc = validate(dumbbell(queue=queue, flows=[{"count": 1, "cc": "reno", "ecn": True, "rtt_s": 0.1}]))
    assert fuzz.needs_trace(sc) is traced
    assert fuzz._queue_label(sc).startswith(queue["kind"] + ("+ecn" if traced else "") + "(")
    no_ecn_flow = validate(dumbbell(queue=queue, flows=[{"count": 1, "cc": "reno", "rtt_s": 0.1}]))
    assert not fuzz.needs_trace(no_ecn_flow)


def test_generator_draws_the_aqms_as_researchers_set_them():
    seen = set()
    for i in range(CASES):
        sc = fuzz.scenario(SEED, i)
        q = fuzz._bottleneck_queue(sc)
        kind = q["kind"]
        if kind not in fuzz.AQMS:
            continue
        seen.add(kind)
        assert q["limit_pkts"] >= 5
        if kind == "dualpi2":
            assert "ecn" not in q and set(q) <= {"kind", "limit_pkts", "target_s", "tupdate_s", "coupling_factor",
                                                 "c_protection", "drop_overload", "ecn_mask", "step_thresh_s",
                                                 "step_thresh_pkts"}
            if "target_s" in q:
                assert 0.005 <= q["target_s"] <= 0.03 and q["tupdate_s"] in (0.016, 0.032)
                assert q["coupling_factor"] in (1, 2, 4) and 5 <= q["c_protection"] <= 50
                assert 0.0005 <= q.get("step_thresh_s", 0.001) <= 0.005 and 2 <= q.get("step_thresh_pkts", 2) <= 10
            continue
        assert isinstance(q["ecn"], bool)
        if kind == "codel" or "interval_s" in q:
            assert 0.001 <= q["target_s"] <= 0.02 and 0.05 <= q["interval_s"] <= 0.2
        if kind == "pie":
            assert 0.005 <= q["target_s"] <= 0.03 and q["tupdate_s"] in (0.015, 0.03)
        if kind == "fq_codel":
            assert set(q) <= {"kind", "limit_pkts", "ecn", "target_s", "interval_s", "exact_flows"}
    assert seen == set(fuzz.AQMS)


def test_a_refused_scenario_is_a_finding():
    case = fuzz.run_case(0, 0, {"duration_s": 1, "topology": {"kind": "dumbbell"}, "flows": []})
    assert names(case.violations) == ["rejected"]


# --------------------------------------------------------------------------
# the generator
# --------------------------------------------------------------------------


def test_generator_draws_every_registered_controller_and_recovery():
    catalog = json.loads(core().catalog())
    builtin = [e["name"] for e in catalog["controllers"] if e["origin"] == "built-in"]
    # every built-in but those that need a router stage on the path (XCP)
    assert fuzz.controllers() == tuple(n for n in builtin if n != "xcp")
    assert set(fuzz.RECOVERIES) == {e["name"] for e in catalog["recoveries"]}


def test_generator_is_reproducible_and_valid():
    for i in range(100):
        sc = fuzz.scenario(SEED, i)
        assert sc == fuzz.scenario(SEED, i)
        validate(sc)
    assert fuzz.scenario(SEED, 0) != fuzz.scenario(SEED + 1, 0)


def test_generator_covers_every_dimension():
    seen = {}

    def see(key, value):
        seen.setdefault(key, set()).add(json.dumps(value) if isinstance(value, (list, dict)) else value)

    for i in range(CASES):
        sc = validate(fuzz.scenario(SEED, i))
        topo = sc["topology"]
        q = topo.get("bottleneck_queue") or topo["link_queue"]
        see("topology", topo["kind"])
        see("queue", q["kind"] + ("+ecn" if fuzz._marks(q) else ""))
        see("random_loss", any(v for k, v in topo.items() if k.endswith("loss")))
        see("homogeneous", fuzz.is_homogeneous(sc))
        see("traced", fuzz.needs_trace(sc))
        see("qdelay", bool(sc.get("qdelay")))
        if fuzz.needs_trace(sc):
            see("traced_queue", q["kind"])
        see("entries", min(len(sc["flows"]), 2))
        for f in sc["flows"]:
            for key in ("cc", "recovery", "ecn", "pacing", "delayed_ack", "init_cwnd_pkts", "direction"):
                see(key, f[key])
            if f["ecn"]:
                see("ect", f["ect"])
            see("finite", f.get("bytes") is not None)
            see("staggered", f["start_s"] > 0 or f["start_spread_s"] > 0)
            see("rtt", "rtt_range_s" if "rtt_range_s" in f else "list" if isinstance(f.get("rtt_s"), list) else
                "one")
    assert seen["cc"] == set(fuzz.controllers())
    assert seen["recovery"] == set(fuzz.RECOVERIES)
    assert seen["pacing"] == {"none", "interval", "token_bucket", "rate"}
    # (DualPI2 has no ecn switch: it always marks)
    assert seen["queue"] == {"droptail", "drr"} | {k + e for k in fuzz.MARKING_QUEUES for e in ("", "+ecn")
                                                   if k != "dualpi2" or e}
    assert seen["ect"] == {"ect0", "ect1"}
    assert seen["traced_queue"] == set(fuzz.MARKING_QUEUES)
    assert seen["topology"] == {"dumbbell", "parking_lot"}
    assert seen["direction"] == {"forward", "reverse"}
    assert seen["init_cwnd_pkts"] == {2.0, 10.0}
    assert seen["rtt"] == {"one", "list", "rtt_range_s"}
    for key in ("ecn", "delayed_ack", "finite", "staggered", "random_loss", "homogeneous", "traced", "qdelay"):
        assert seen[key] == {False, True}, key
    assert seen["entries"] == {1, 2}


# --------------------------------------------------------------------------
# the CI run and the CLI
# --------------------------------------------------------------------------


def test_random_scenarios_keep_the_invariants():
    failing = [c for c in fuzz.cases(CASES, SEED) if c.violations]
    assert not failing, f"{len(failing)} of {CASES} scenarios of seed {SEED} break invariants:\n" + "\n".join(
        f"  fuzz.scenario({c.seed}, {c.index}): {v}" for c in failing for v in c.violations)


def test_fuzz_cli_passes_and_writes_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(fuzz, "check", lambda sc, res, traces=None: [])
    assert cli.main(["fuzz", "--cases", "3", "--seed", "5", "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert "fuzz: 3 cases (seed 5), 0 failing" in capsys.readouterr().out
    assert not (tmp_path / "out").exists()


def test_fuzz_cli_writes_every_failing_scenario_for_ccsim_run(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(fuzz, "check",
                        lambda sc, res, traces=None: [fuzz.Violation("conservation", "forced")] if
                        sc["name"].endswith("-1") else [])
    out = tmp_path / "out"
    assert cli.main(["fuzz", "--cases", "3", "--seed", "5", "--out", str(out), "--quiet"]) == 1
    line = capsys.readouterr().out
    assert "3 cases (seed 5), 1 failing; violations by invariant: conservation 1" in line
    assert sorted(p.name for p in out.iterdir()) == ["fuzz-5-1.json", "violations.txt"]
    assert (out / "violations.txt").read_text() == "fuzz-5-1.json: conservation: forced\n"
    assert json.loads((out / "fuzz-5-1.json").read_text()) == fuzz.scenario(5, 1)
    assert cli.main(["run", str(out / "fuzz-5-1.json"), "--out", str(tmp_path / "run"), "--no-plots",
                     "--quiet"]) == 0


def exit_code(args):
    try:
        return cli.main(args)
    except SystemExit as exc:  # argparse's own usage errors
        return exc.code


@pytest.mark.parametrize("args, says", [
    (["--cases", "0"], "error: --cases must be >= 1, got 0"),
    (["--seed", "-1"], "error: --seed must be >= 0, got -1"),
    (["--cases", "many"], "error: argument --cases: invalid int value: 'many'"),
])
def test_fuzz_cli_refuses_bad_arguments(args, says, capsys, tmp_path):
    assert exit_code(["fuzz", "--out", str(tmp_path), *args]) == 2
    assert says in capsys.readouterr().err


def test_fair_share_leaves_out_bbr_v1_with_ecn():
    # BBR v1 ignores CE: over a marking AQM its Not-ECT retransmissions
    # are dropped at the AQM's saturated probability (fuzz seed 1, case 513)
    sc = dumbbell()
    starved = fake(flows=[flow_row(0, goodput_bps=0.0), flow_row(1)])
    assert names(fuzz.check(sc, starved)) == ["fair_share"]
    for f in sc["flows"]:
        f["cc"], f["ecn"] = "bbr", True
    assert fuzz.check(sc, starved) == []


@pytest.mark.parametrize("rack, reported", [(False, False), (True, True)], ids=["rfc6675", "rack"])
def test_fair_share_leaves_out_bbr_v1_without_rack(rack, reported):
    # RFC 6675 finds no lost retransmission: BBR v1's head waits on backed-off
    # timers while it keeps its rate (fuzz seed 1, case 6909); with RACK a
    # starved BBR flow is a finding
    sc = dumbbell()
    for f in sc["flows"]:
        f.update(cc="bbr", recovery="sack", rack=rack)
    starved = fake(flows=[flow_row(0, goodput_bps=0.0), flow_row(1)])
    assert names(fuzz.check(sc, starved)) == (["fair_share"] if reported else [])


#: fuzz seed 1, case 5000 (drawn 2026-11-29): a Linux-personality NewReno
#: flow (no SACK) among others behind RED with ECN. Linux's rearm of the
#: timer at each retransmission of the head (`tcp_xmit_retransmit_queue`),
#: applied to RFC 6582's recovery, kept its window at one segment for 4.3 s
#: without a timeout; without SACK the personality keeps the RFCs' timer.
LINUX_NEWRENO_STALL = json.loads(
    Path(__file__).with_name("data").joinpath("fuzz-1-5000-linux-newreno.json").read_text(encoding="utf-8"))


def test_linux_newreno_recovery_does_not_stall():
    case = fuzz.run_case(1, 5000, sc=json.loads(json.dumps(LINUX_NEWRENO_STALL)))
    assert case.violations == [], [str(v) for v in case.violations]
