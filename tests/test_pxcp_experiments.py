"""Paced-XCP paper experiments: the full-mode scenarios (CI runs only the
quick ones) are valid and hold the paper's setting, and the checks read
their tables as stated (each verdict able to go either way)."""

import pandas as pd
import pytest

from ccsim._native import UserError
from ccsim.experiments import pxcp
from ccsim.experiments._kit import Analysis
from ccsim.experiments.pxcp import fig1, fig1cf, fig2, fig4_table1
from ccsim.sweep import plan

MODULES = (fig1, fig1cf, fig2, fig4_table1)


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.ID)
def test_full_scenarios_valid_and_faithful(module):
    for s in module.scenarios(False):
        for spec in plan(s.base, s.points):
            sc = spec.scenario
            assert sc["duration_s"] == 100.0 and sc["warmup_s"] == 40.0
            topo = sc["topology"]
            assert topo["edge_rate_bps"] == 2.4e9
            assert topo.get("bottleneck_rate_bps", topo.get("link_rate_bps")) == 622e6
            flows = sc["flows"]
            # two-way traffic: every forward entry is followed by its mirror
            assert len(flows) % 2 == 0
            for fwd, rev in zip(flows[::2], flows[1::2]):
                assert (fwd["direction"], rev["direction"]) == ("forward", "reverse")
                assert fwd["count"] == rev["count"] and fwd["cc"] == rev["cc"]
            for f in flows:
                assert f["mss_bytes"] + f["header_bytes"] == 1000 and f["header_bytes"] == 40
                assert f["start_spread_s"] == 10.0
                if f["cc"] == "xcp":
                    assert f["cc_params"]["reno_increase"] is False
                else:
                    assert f["init_ssthresh_pkts"] == 64


def test_fig2_buffers_are_the_papers():
    (sw, *_) = fig2.scenarios(False)
    assert [p["topology.bottleneck_queue.limit_bytes"] for p in sw.points] == [23_360, 124_040]
    assert [p["flows.0.count"] for p in sw.points] == [100, 800]


def test_rule_of_thumb_buffer():
    # 82 ms x 622 Mb/s, "around 6.4MBytes" (§4.2.1)
    assert pxcp.ROT_BUFFER == 6_375_500


def test_flow_rejects_unknown_pacing():
    with pytest.raises(ValueError, match="pacing 'paced': allowed P., N.P."):
        pxcp.flow("XCP", "paced")


def test_parking_lot_placement():
    (rot, *_) = fig4_table1.scenarios(False)
    (spec,) = plan(rot.base, rot.points)
    hops = [(f["hops"], f["rtt_range_s"], f["count"]) for f in spec.scenario["flows"][::2]]
    assert hops == [([0, 2], [0.064, 0.1], 10), ([0, 0], [0.024, 0.06], 10), ([1, 1], [0.024, 0.06], 10)]
    assert spec.scenario["topology"]["link_delay_s"] == 0.010


def _fig1_table(max100: float) -> Analysis:
    rows = []
    for v in ("P. XCP C.P.", "P. XCP O.P.", "N.P. XCP C.P.", "N.P. XCP O.P."):
        for n in (2, 100):
            paced = v.startswith("P.")
            if v == "P. XCP C.P.":
                q = max100 if n == 100 else 1000
            else:
                q = 1e6 if paced else 1e7 / n
            rows.append({"variant": v, "flows": n, "utilization": 0.9 if paced else 0.5, "max_queue_bytes": q,
                         "drops_all": 0 if paced else 10})
    return Analysis(table=pd.DataFrame(rows))


def test_fig1_checks_follow_the_table():
    ok = {c.quantity: c.ok for c in fig1.checks(_fig1_table(23_360), True)}
    assert all(ok.values()), ok
    bad = {c.quantity: c.ok for c in fig1.checks(_fig1_table(2 * 23_360), True)}
    assert not bad["P. XCP C.P., 100 flows: maximum bottleneck occupancy (bytes)"]


def test_fig4_orderings_can_fail():
    rows = [{"variant": "P. XCP", "pacing": "P.", "protocol": "XCP", "buffer_bytes": pxcp.ROT_BUFFER,
             "max_queue_bytes": 10_200, "jain": 1.0, "util_link1": 0.9, "util_link2": 0.9, "util_link3": 0.45}]
    utils = {"XCP": 0.9, "NewReno": 0.86, "HSTCP": 0.83, "Reno": 0.81}
    for p, u in utils.items():
        rows.append({"variant": f"P. {p}", "pacing": "P.", "protocol": p, "buffer_bytes": 10_200,
                     "max_queue_bytes": 10_200, "jain": fig4_table1.PAPER["jain"][f"P. {p}"],
                     "util_link1": u, "util_link2": u, "util_link3": u / 2})
    a = Analysis(table=pd.DataFrame(rows))
    ok = {c.quantity: c.ok for c in fig4_table1.checks(a, False)}
    assert ok["link 1: utilisation P. XCP > P. NewReno > P. HSTCP > P. Reno"]
    # link 3 wants Reno above NewReno: halving everything keeps the link-1 order, so it fails
    assert not ok["link 3: utilisation P. XCP > P. Reno > P. NewReno > P. HSTCP"]
    assert ok["P. HSTCP: Jain's index of goodput (Table 1, absolute)"]


def test_bad_buffer_is_a_named_error():
    (sw, *_) = fig2.scenarios(True)
    with pytest.raises(UserError, match="limit_bytes"):
        plan(sw.base, [{"topology.bottleneck_queue.limit_bytes": 0}])


def test_pxcp_ns2_compares_each_row_with_the_record_and_queue_ranges_by_overlap():
    from ccsim.experiments.pxcp import ns2

    # the record holds the 2, 10 and 100-flow rows, each with seeds 1-6 on ns-2's side
    rec = ns2.reference()
    assert [r["flows"] for r in rec] == [2, 10, 100]
    assert all(sorted(r["seeds"]) == [str(s) for s in ns2.SEEDS] for r in rec)
    # the scenario is the Tcl's network: 20 Mb/s, 200 packets, XCP, i/2N starts
    sc = ns2.scenario(10, 3)
    assert sc["seed"] == 3 and sc["topology"]["bottleneck_queue"] == {"limit_pkts": 200, "xcp": True}
    assert [f["start_s"] for f in sc["flows"]][:3] == [0.0, 0.05, 0.1]
    row = {"flows": 2, "ns2_drops": 0, "ccsim_drops": 0, "ns2_q_lo": 39, "ns2_q_hi": 46}
    for k in ns2.METRICS:
        row.update({f"ns2_{k}": 1.0, f"ccsim_{k}": 1.0, f"recorded_ccsim_{k}": 1.0})

    def queue_check(lo, hi):
        t = pd.DataFrame([dict(row, ccsim_q_lo=lo, ccsim_q_hi=hi)])
        return next(c for c in ns2.checks(Analysis(table=t), False) if "maximum queue" in c.quantity)

    assert queue_check(42, 51).ok and queue_check(30, 39).ok
    assert not queue_check(47, 60).ok and not queue_check(20, 38).ok
