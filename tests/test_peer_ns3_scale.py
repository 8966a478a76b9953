"""benches/peer_ns3.py's S1 (the bench row of 1,000 CUBIC flows at 10 Gb/s): its
ns-3 mapping (validation/ns3_scale.py) is the bench row, per flow the
delays and start times ccsim simulates; and (when ns-3 3.44 is installed)
a short cut of it runs in ns-3."""
import dataclasses
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ccsim._native import core, dumps, validate
from ccsim.bench import BENCHMARKS, scale_buffer_pkts, scenario
from conftest import needs_ns3, ns3_arg

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("peer_ns3", ROOT / "benches" / "peer_ns3.py")
peer = importlib.util.module_from_spec(_spec)
sys.modules["peer_ns3"] = peer
_spec.loader.exec_module(peer)
from validation import ns3_scale, ns3_suite  # noqa: E402  (peer_ns3 put ROOT on the path)


def _ccsim_flows(d):
    """Per flow of scenario ``d`` as ccsim builds it: (sender's access delay,
    receiver's access delay, start, RTT)."""
    out = json.loads(core().Simulation(dumps(dict(d, duration_s=1e-9))).finish())
    links = {(l["from"], l["to"]): l["delay_s"] for l in out["links"]}
    return [(links[(f"s{f['id']}", "r0")], links[("r1", f"d{f['id']}")], f["start_s"], f["rtt_prop_s"])
            for f in out["flows"]]


@pytest.mark.parametrize("quick", [False, True])
def test_s1_is_the_bench_row(quick):
    d = scenario("S1", quick).to_dict()
    validate(d)
    peer.check_same("S1", quick)  # raises on any difference
    sc = peer.validation_scenario("S1", quick)
    assert sc.duration_s == d["duration_s"] == (0.5 if quick else 5.0)
    assert sc.buffer_pkts == scale_buffer_pkts(10e9, 1000) == BENCHMARKS["S1"].buffer_pkts == 1581
    assert "S1" in ns3_scale.ROWS and "S1" not in peer.ROWS  # run by name, not by default


def test_s1_gives_ns3_ccsims_flows():
    args = peer.ns3_args("S1")
    d = scenario("S1").to_dict()
    assert int(ns3_arg(args, "flows")) == 1000 and float(ns3_arg(args, "rate")) == 10e9
    assert float(ns3_arg(args, "edgeRate")) == 100e9 and float(ns3_arg(args, "bneckDelay")) == 0.005
    assert int(ns3_arg(args, "buffer")) == 1581 and int(ns3_arg(args, "edgeBuffer")) == 1000
    assert float(ns3_arg(args, "duration")) == 5.0 and ns3_arg(args, "warmup") == "0"
    assert ns3_arg(args, "lean") == "1" and ns3_arg(args, "sendSize") == "1460"
    rtts = [float(x) for x in ns3_arg(args, "rtts").split(",")]
    starts = [float(x) for x in ns3_arg(args, "starts").split(",")]
    flows = _ccsim_flows(d)
    assert len(rtts) == len(starts) == len(flows) == 1000
    for i, ((e_src, e_dst, start, rtt), r, s) in enumerate(zip(flows, rtts, starts)):
        # dumbbell.cc splits the RTT as ccsim's builder does: each access
        # link gets ccsim's delay for it (to far below ns-3's 1 ns)
        assert (r / 2 - 0.005) / 2 == pytest.approx(e_src, abs=1e-15) and e_src == e_dst, i
        assert r == pytest.approx(rtt, abs=1e-11) and 0.020 <= r <= 0.100
        assert s == start and 0.0 <= s <= 1.0, i
    assert min(rtts) < 0.025 and max(rtts) > 0.095 and len(set(starts)) == 1000
    # ns-3's TCP: CUBIC without HyStart, SACK, the segment and window S1's
    for k, v in (("ns3::TcpL4Protocol::SocketType", "ns3::TcpCubic"), ("ns3::TcpCubic::HyStart", "false"),
                 ("ns3::TcpSocketBase::Sack", "true"), ("ns3::TcpSocket::SegmentSize", "1460"),
                 ("ns3::TcpSocket::InitialCwnd", "10"), ("ns3::TcpSocket::DelAckCount", "2"),
                 ("ns3::TcpSocket::DelAckTimeout", "40ms"), ("ns3::TcpSocketBase::Timestamp", "false"),
                 ("ns3::TcpSocketBase::MinRto", "200ms")):
        assert ns3_arg(args, k) == v, k
    # cut short: only the duration changes
    short = peer.ns3_args("S1", duration_s=1.0)
    assert float(ns3_arg(short, "duration")) == 1.0
    assert [a for a in short if not a.startswith("--duration=")] == [a for a in args if not a.startswith("--duration=")]


def test_a_drifted_s1_is_refused(monkeypatch):
    b = BENCHMARKS["S1"]
    # another RTT range: the draws, hence every flow's delays, would differ
    monkeypatch.setitem(BENCHMARKS, "S1", dataclasses.replace(b, rtt_range_s=(0.030, 0.100)))
    with pytest.raises(ValueError, match=r"flows\.0\.rtt_range_s: bench \[0\.03, 0\.1\], ns-3 mapping \[0\.02, 0\.1\]"):
        peer.check_same("S1")
    # NewReno is not what the ns-3 side runs
    monkeypatch.setitem(BENCHMARKS, "S1", dataclasses.replace(b, cc="reno", recovery="newreno"))
    with pytest.raises(ValueError, match=r"flows\.0\.cc: bench 'reno', ns-3 mapping 'cubic'"):
        peer.check_same("S1")
    # another buffer or rate
    monkeypatch.setitem(BENCHMARKS, "S1", dataclasses.replace(b, buffer_pkts=1000))
    with pytest.raises(ValueError, match="topology.bottleneck_queue.limit_pkts"):
        peer.check_same("S1")
    monkeypatch.setitem(BENCHMARKS, "S1", b)
    peer.check_same("S1")
    # the seed draws the RTTs and starts: a mapping with another is refused
    monkeypatch.setitem(ns3_scale.SCENARIOS, "S1", dataclasses.replace(ns3_scale.S1, seed=2))
    with pytest.raises(ValueError, match="seed: bench 1, ns-3 mapping 2"):
        peer.check_same("S1")


def test_s1_is_named_on_the_command_line(capsys):
    with pytest.raises(SystemExit):
        peer.main(["S9"])
    err = capsys.readouterr().err
    assert "unknown row(s) S9" in err and "S1" in err.split("allowed: ")[1]


@needs_ns3("ns3")
def test_s1_cut_short_runs_in_ns3():
    # 50 ms of S1 in ns-3: the first flows (those ccsim starts before
    # 50 ms) send; the bottleneck carries their first windows
    exe = ns3_suite.build()
    args = peer.ns3_args("S1", duration_s=0.05)
    p = subprocess.run([str(exe)] + args, capture_output=True, text=True, check=True)
    raw = json.loads(p.stdout.strip().splitlines()[-1])
    early = {i for i, f in enumerate(_ccsim_flows(scenario("S1").to_dict())) if f[2] < 0.05}
    assert len(early) > 10 and len(raw["flows"]) == 1000 and raw["bottleneck"]["tx_pkts"] > 0
    delivered = {i for i, f in enumerate(raw["flows"]) if f["rx_bytes"] > 0}
    assert delivered and delivered <= early
