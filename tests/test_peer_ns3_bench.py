"""benches/peer_ns3.py: `ccsim bench`'s M rows are the ns-3 comparisons'
scenarios, mapped onto ns-3's lean speed run, or (M-prague-dualpi2) a
labelled stand-in that differs from the row only where it says; and (when
ns-3 3.44 is installed) one short row runs in both, and the stand-in sends
ECT(1) that FQ-CoDel's L4S mode marks."""
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ccsim._native import validate
from ccsim.bench import BENCHMARKS, NS3_TCP, scenario
from conftest import needs_ns3, ns3_arg

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("peer_ns3", ROOT / "benches" / "peer_ns3.py")
peer = importlib.util.module_from_spec(_spec)
sys.modules["peer_ns3"] = peer
_spec.loader.exec_module(peer)
from validation import ns3_aqm, ns3_bbr, ns3_suite  # noqa: E402  (peer_ns3 put ROOT on the path)



#: The rows whose ccsim side runs a built-in (the -py rows run its Python twin).
BASE_ROWS = tuple(n for n in peer.ROWS if n not in peer.PY_M_ROWS)


def test_the_rows_are_exactly_the_bench_rows_for_ns3():
    assert set(peer.ROWS) == {n for n, b in BENCHMARKS.items() if b.ns3}
    assert {BENCHMARKS[n].cc for n in BASE_ROWS} == {"bbr", "dctcp", "cubic", "prague"}
    assert BENCHMARKS["M-dctcp-red"].queue_kind == "red" and BENCHMARKS["M-cubic-fqcodel"].queue_kind == "fq_codel"
    assert BENCHMARKS["M-prague-dualpi2"].queue_kind == "dualpi2"
    # every row runs; Prague over DualPI2 against a stand-in, and only it
    assert not peer.MISSING and set(peer.STAND_INS) == set(peer.BY_DESIGN) == {"M-prague-dualpi2"}


@pytest.mark.parametrize("name", sorted(peer.PY_M_ROWS))
def test_a_python_twin_row_is_its_base_row_but_for_the_controllers_name(name):
    base, cc = peer.PY_M_ROWS[name]
    d, b = scenario(name).to_dict(), scenario(base).to_dict()
    assert [f.pop("cc") for f in d["flows"]] == [cc] * len(d["flows"]) and ":" in cc
    assert [f.pop("cc") for f in b["flows"]] == [BENCHMARKS[base].cc] * len(b["flows"])
    d.pop("name"), b.pop("name")
    assert d == b and BENCHMARKS[name].base == base
    validate(scenario(name).to_dict())


@pytest.mark.parametrize("quick", [False, True])
@pytest.mark.parametrize("name", BASE_ROWS)
def test_bench_rows_are_the_ns3_comparisons_scenarios(name, quick):
    d = scenario(name, quick).to_dict()
    validate(d)
    by_design = peer.check_same(name, quick)  # raises on any other difference
    assert bool(by_design) == (name in peer.STAND_INS)
    for f in d["flows"]:
        assert {k: f[k] for k in NS3_TCP} == NS3_TCP
    # the shared TCP is the comparisons' mapping, field for field
    assert {k: v for k, v in ns3_bbr.COMMON_CCSIM_FIELDS.items()} == {
        k: v for k, v in ns3_aqm.COMMON_CCSIM_FIELDS.items()} == NS3_TCP
    args = peer.ns3_args(name, quick)
    assert ns3_arg(args, "lean") == "1" and ns3_arg(args, "warmup") == "0"
    assert float(ns3_arg(peer.ns3_args(name, quick, 1.5), "duration")) == 1.5  # a row cut short
    assert ns3_arg(args, "queueStats") is None and ns3_arg(args, "cwndStats") is None
    assert float(ns3_arg(args, "duration")) == d["duration_s"]
    assert int(ns3_arg(args, "flows")) == len(d["flows"]) == BENCHMARKS[name].flows


def test_a_drifted_row_is_refused(monkeypatch):
    import dataclasses

    b = BENCHMARKS["M-cubic-fqcodel"]
    monkeypatch.setitem(BENCHMARKS, "M-cubic-fqcodel", dataclasses.replace(b, cc_params=(("abc", False),)))
    with pytest.raises(ValueError, match="flows.0.cc_params"):
        peer.check_same("M-cubic-fqcodel")
    # (sizes, rates and RTTs are read from the row by both sides; its TCP and
    # queue parameters must be the comparison's)
    q = dict(b.queue_params, target_s=0.01)
    monkeypatch.setitem(BENCHMARKS, "M-cubic-fqcodel", dataclasses.replace(b, queue_params=tuple(q.items())))
    with pytest.raises(ValueError, match="bottleneck_queue.target_s"):
        peer.check_same("M-cubic-fqcodel")


def test_prague_over_dualpi2_runs_against_a_labelled_stand_in():
    d = scenario("M-prague-dualpi2").to_dict()
    q = d["topology"]["bottleneck_queue"]
    assert q["kind"] == "dualpi2" and q["limit_pkts"] == 10240
    # Linux sch_dualpi2's defaults, spelled out
    assert {k: q[k] for k in ("target_s", "tupdate_s", "step_thresh_s", "coupling_factor", "c_protection")} == {
        "target_s": 0.015, "tupdate_s": 0.016, "step_thresh_s": 0.001, "coupling_factor": 2, "c_protection": 10}
    for f in d["flows"]:
        assert (f["cc"], f["ecn"], f["ect"], f["ecn_feedback"], f["pacing"]) == ("prague", True, "ect1", "accecn",
                                                                                 "rate")
    # the stand-in is ns-3's DCTCP (ECT(1)) over FQ-CoDel's L4S mode, 1 ms
    args = peer.ns3_args("M-prague-dualpi2", quick=True)
    assert ns3_arg(args, "ns3::TcpL4Protocol::SocketType") == "ns3::TcpDctcp"
    assert ns3_arg(args, "ns3::TcpDctcp::UseEct0") == "false" and ns3_arg(args, "qdisc") == "fq_codel"
    assert ns3_arg(args, "ns3::FqCoDelQueueDisc::UseL4s") == "true"
    assert ns3_arg(args, "ns3::FqCoDelQueueDisc::CeThreshold") == "1ms"
    assert ns3_arg(args, "ns3::FqCoDelQueueDisc::MaxSize") == "10240p"
    # the fields that differ by design, named; the ECN codepoint is not one
    by_design = peer.check_same("M-prague-dualpi2")
    assert [x.split(":")[0] for x in by_design] == ["topology.bottleneck_queue", "flows.*.cc",
                                                    "flows.*.ecn_feedback", "flows.*.pacing"]
    assert "bench 'prague', ns-3 stand-in 'dctcp'" in by_design[1]
    assert "'dualpi2'" in by_design[0] and "'fq_codel'" in by_design[0]


@pytest.mark.parametrize("change, field", [
    ({"rate_bps": 2e9}, "topology.bottleneck_rate_bps"),
    ({"edge_rate_bps": 100e9}, "topology.edge_rate_bps"),
    ({"buffer_pkts": 10000}, "topology.bottleneck_queue.limit_pkts"),
    ({"rtt_s": 0.010}, "flows.0.rtt_s"),
    ({"flows": 5}, "flows: bench 5 entries"),
    ({"duration_s": 40.0}, "duration_s"),
    ({"flow_params": (("ecn", True), ("ect", "ect0"), ("ecn_feedback", "accecn"))}, "flows.0.ect"),
])
def test_the_stand_in_row_refuses_any_other_difference(monkeypatch, change, field):
    import dataclasses

    b = BENCHMARKS["M-prague-dualpi2"]
    monkeypatch.setitem(BENCHMARKS, "M-prague-dualpi2", dataclasses.replace(b, **change))
    with pytest.raises(ValueError, match=re.escape(field)):
        peer.check_same("M-prague-dualpi2")


def test_a_stand_in_row_says_so(monkeypatch, capsys):
    fake = {"wall_s": 0.1, "bottleneck_pkts_per_s": 3e6, "events_per_bottleneck_pkt": 5.0, "utilization": 0.9}
    monkeypatch.setattr(peer, "run_isolated", lambda name, quick, duration_s: fake)
    row = peer.measure("M-prague-dualpi2", True, None)
    assert row.stand_in.startswith("STAND-IN: DCTCP ECT(1) over FQ-CoDel L4S")
    assert "STAND-IN, not the same algorithms" in row.note and "ns-3 not installed" in row.note
    assert len(row.by_design) == 4
    peer.print_row(row)
    out = capsys.readouterr().out
    assert "ns-3 STAND-IN" in out and out.count("differs by design") == 4
    plain = peer.measure("M-dctcp-red", True, None)
    assert plain.stand_in == "" and plain.by_design == [] and "STAND-IN" not in plain.note


def test_ratio_and_rounds():
    r = peer.Row("M-bbr", 2.0, 4_000_000, 4.5, 0.98, 200.0, 4_000_000, ns3_cpu_s=205.0)
    assert r.ratio == pytest.approx(100.0)
    faster = peer.Row("M-bbr", 1.5, 4_000_000, 4.5, 0.98, 210.0, 4_000_000, ns3_cpu_s=201.0)
    best = peer.keep_fastest(r, faster)
    assert (best.ccsim_wall_s, best.ns3_wall_s, best.ns3_cpu_s) == (1.5, 200.0, 201.0)
    with pytest.raises(RuntimeError, match="different packets"):
        peer.keep_fastest(r, peer.Row("M-bbr", 1.0, 3, 4.5, 0.98, 1.0, 3))
    assert peer.Row("M-bbr", 1.0, 10, 4.0).ratio is None


def test_unknown_rows_are_named(capsys):
    with pytest.raises(SystemExit):
        peer.main(["M-nope"])
    assert "unknown row(s) M-nope" in capsys.readouterr().err


def test_a_record_of_a_run_gives_the_ratio_and_both_times():
    sys.path.insert(0, str(ROOT / "tools"))
    import docs_tables

    row = dict(peer.Row("M-dctcp-red", 0.05, 250_000, 5.0, 0.99, 10.0, 250_000, ns3_cpu_s=9.5,
                        ns3_utilization=0.985).__dict__, ratio=200.0, simulated_s=4.0)
    stand_in = dict(peer.Row("M-prague-dualpi2", 0.1, 300_000, 4.9, 0.735, 7.0, 200_000, ns3_utilization=0.409,
                             stand_in=peer.L4sStandIn.SHORT).__dict__, ratio=100.0, simulated_s=6.0)
    cols, (cells, sub) = docs_tables.peer_ns3_rows([row, stand_in])
    got = dict(zip(cols, cells))
    assert got["ccsim / ns-3 (target ≥ 100x)"] == "200x" and got["ns-3 CPU (s)"] == "9.5"
    assert got["simulated (s)"] == "4"
    assert got["ccsim kpkt/s"] == "5,000" and got["ns-3 kpkt/s"] == "25.0"
    assert got["util. ccsim / ns-3"] == "0.990 / 0.985" and got["ns-3 side"] == "the same scenario"
    got = dict(zip(cols, sub))
    assert got["ns-3 side"].startswith("STAND-IN: DCTCP ECT(1)") and got["util. ccsim / ns-3"] == "0.735 / 0.409"


@needs_ns3("ns3")
def test_lean_ns3_run_counts_the_bottleneck_packets():
    exe = ns3_suite.build()
    args = [a for a in peer.ns3_args("M-dctcp-red", quick=True) if not a.startswith("--duration=")]
    p = subprocess.run([str(exe)] + args + ["--duration=0.5"], capture_output=True, text=True, check=True)
    import json

    raw = json.loads(p.stdout.strip().splitlines()[-1])
    # 0.5 s of four DCTCP flows over 1 Gb/s: tens of thousands of packets,
    # none of the measurement traces connected (no arrivals or drops counted)
    assert 10_000 < raw["bottleneck"]["tx_pkts"] < 0.5 * 1e9 / (8 * 1502) + 1
    assert raw["bottleneck"]["arrivals"] == 0 and raw["wall_s"] > 0
    assert sum(f["rx_bytes"] for f in raw["flows"]) > 0


@needs_ns3("ns3")
def test_the_stand_in_sends_ect1_and_fq_codel_marks_it_at_the_threshold():
    exe = ns3_suite.build()
    args = [a for a in peer.ns3_args("M-prague-dualpi2", quick=True)
            if not a.startswith(("--duration=", "--warmup=", "--lean="))]
    p = subprocess.run([str(exe)] + args + ["--duration=1.5", "--warmup=0.5", "--ecnStats=1"], capture_output=True,
                       text=True, check=True)
    import json

    b = json.loads(p.stdout.strip().splitlines()[-1])["bottleneck"]
    # every data packet the disc received left ECT(1) (none retransmitted
    # Not-ECT in this loss-free second), and every mark is the L4S step's
    e = b["ecn_arrivals"]
    assert e["ect1"] > 10_000 and e["ect0"] == 0 and e["not_ect"] == 0
    assert b["marks"] > 0 and set(b["marks_by_reason"]) == {"(Marked by child queue disc) CE threshold exceeded mark"}
    assert b["drops"] == 0
    # --ecnStats needs the disc's traces
    bad = subprocess.run([str(exe)] + args + ["--duration=0.1", "--lean=1", "--ecnStats=1"], capture_output=True,
                         text=True)
    assert bad.returncode != 0 and "--ecnStats needs --qdisc and not --lean" in bad.stderr
