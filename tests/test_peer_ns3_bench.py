"""benches/peer_ns3.py: `ccsim bench`'s M rows are the ns-3 comparisons'
scenarios, mapped onto ns-3's lean speed run; and (when ns-3 3.44 is
installed) one short row runs in both."""
import importlib.util
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



def test_the_rows_are_issue_51s_and_exactly_the_bench_rows_for_ns3():
    assert set(peer.ROWS) == {n for n, b in BENCHMARKS.items() if b.ns3}
    assert {BENCHMARKS[n].cc for n in peer.ROWS} == {"bbr", "dctcp", "cubic"}
    assert BENCHMARKS["M-dctcp-red"].queue_kind == "red" and BENCHMARKS["M-cubic-fqcodel"].queue_kind == "fq_codel"
    assert "M-prague-dualpi2" in peer.MISSING


@pytest.mark.parametrize("quick", [False, True])
@pytest.mark.parametrize("name", peer.ROWS)
def test_bench_rows_are_the_ns3_comparisons_scenarios(name, quick):
    d = scenario(name, quick).to_dict()
    validate(d)
    peer.check_same(name, quick)  # raises on any difference
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


def test_prague_over_dualpi2_is_named_and_not_run(capsys):
    assert peer.main(["M-prague-dualpi2"]) == 0
    out = capsys.readouterr().out
    assert "M-prague-dualpi2: not run" in out and "Prague" in out


def test_a_record_of_a_run_gives_the_ratio_and_both_times():
    sys.path.insert(0, str(ROOT / "tools"))
    import docs_tables

    row = dict(peer.Row("M-dctcp-red", 0.05, 250_000, 5.0, 0.99, 10.0, 250_000, ns3_cpu_s=9.5).__dict__, ratio=200.0,
               simulated_s=4.0)
    cols, (cells,) = docs_tables.peer_ns3_rows([row])
    got = dict(zip(cols, cells))
    assert got["ccsim / ns-3 (target ≥ 100x)"] == "200x" and got["ns-3 CPU (s)"] == "9.5"
    assert got["simulated (s)"] == "4"
    assert got["ccsim kpkt/s"] == "5,000" and got["ns-3 kpkt/s"] == "25.0"


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
