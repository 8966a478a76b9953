"""benches/peer_ns2.py: the ns-2 mapping of the benchmark dumbbells, and
(when ns-2.35 is installed) one short row run in both simulators."""

import dataclasses
import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

from ccsim.bench import BENCHMARKS, scenario
from ccsim.experiments._kit import ns2ref

_PATH = Path(__file__).resolve().parents[1] / "benches" / "peer_ns2.py"
spec = importlib.util.spec_from_file_location("peer_ns2", _PATH)
peer = importlib.util.module_from_spec(spec)
sys.modules["peer_ns2"] = peer  # dataclasses look their module up
spec.loader.exec_module(peer)


def test_tcl_maps_the_dumbbell():
    tcl = peer.ns2_script(scenario("B3").to_dict())
    assert "set n 50" in tcl
    # RTT 100 ms with a 1 ms bottleneck: 24.5 ms on each edge link
    assert "0.0245s" in tcl
    # ns-2's DropTail holds queue-limit - 1 waiting; packetSize_ is the payload
    assert "$ns queue-limit $r1 $r2 21" in tcl
    assert "Agent/TCP/Newreno" in tcl and "packetSize_ 1000" in tcl
    sack = peer.ns2_script(scenario("B5").to_dict())
    assert "Agent/TCP/Sack1" in sack and "Agent/TCPSink/Sack1" in sack and "2400000000.0bps" in sack
    assert "windowOption_" not in tcl and "windowOption_" not in sack
    # HighSpeed: ns-2's windowOption_ 8 on the NewReno agent, once per flow
    hs = peer.ns2_script(scenario("B2-hstcp").to_dict())
    assert "Agent/TCP/Newreno" in hs and hs.count("$tcp($i) set windowOption_ 8") == 1


def test_a_papers_droptail_queue_limit_maps_back_to_itself():
    # droptail_waiting reads a paper's ns-2 "queue-limit B" as B - 1 waiting;
    # the peer's Tcl maps ccsim's waiting places back to ns-2's queue-limit
    from ccsim.experiments._kit.ns2ref import droptail_waiting

    for b in (2, 20, 40, 6000):
        sc = scenario("B3").to_dict()
        sc["topology"]["bottleneck_queue"]["limit_pkts"] = droptail_waiting(b)
        assert f"$ns queue-limit $r1 $r2 {b}\n" in peer.ns2_script(sc)
    for bad in (1, 0, 20.0, True):
        with pytest.raises(ValueError, match=f"queue_limit: {bad!r} is not allowed; must be an int >= 2"):
            droptail_waiting(bad)


def test_unmappable_scenarios_are_refused():
    d = scenario("E1").to_dict()
    with pytest.raises(ValueError, match="only one-entry unpaced Reno, HighSpeed and XCP dumbbells"):
        peer.ns2_script(d)
    # another controller, or HighSpeed with parameters ns-2 would not share
    for cc in ("cubic", "htcp"):
        with pytest.raises(ValueError, match="only one-entry unpaced Reno, HighSpeed and XCP"):
            peer.ns2_script(scenario(f"B2-{cc}").to_dict())
    d = scenario("B2-hstcp").to_dict()
    d["flows"][0]["cc_params"] = {"low_window": 30}
    with pytest.raises(ValueError, match="only one-entry unpaced Reno, HighSpeed and XCP"):
        peer.ns2_script(d)
    # ns-2.35 has no token-bucket pacing, no GWA, and only XCP's original parameters
    for row in ("X1", "X1-dt", "G1"):
        with pytest.raises(ValueError, match="only one-entry unpaced Reno, HighSpeed and XCP"):
            peer.ns2_script(scenario(row).to_dict())
    d = scenario("X1u").to_dict()
    d["topology"]["bottleneck_queue"]["xcp"] = {"params": "conservative"}
    with pytest.raises(ValueError, match="only the original parameters"):
        peer.ns2_script(d)
    d = scenario("G1-drr").to_dict()
    d["topology"]["bottleneck_queue"]["quantum_bytes"] = 250
    with pytest.raises(ValueError, match="is not mapped"):
        peer.ns2_script(d)
    d = scenario("X1u").to_dict()
    d["flows"][0]["recovery"] = "newreno"
    with pytest.raises(ValueError, match="ns-2.35's XCP agent is Reno"):
        peer.ns2_script(d)


def test_mechanism_rows_map_to_ns2s_queues_and_agents():
    red = peer.ns2_script(scenario("R1").to_dict())
    assert "1ms RED\n" in red and "$ns queue-limit $r1 $r2 20\n" in red  # RED's limit: the waiting places
    for line in ("bytes_ false", "queue_in_bytes_ false", "thresh_ 1.6666666666666667", "maxthresh_ 5.0",
                 "q_weight_ 0.002", "linterm_ 10.0", "setbit_ true"):
        assert f"\nQueue/RED set {line}\n" in red, line
    assert "$tcp($i) set ecn_ 1" in red and "Agent/TCP/Newreno" in red
    # XCP: the router's capacity on both directions after the limit it copies
    xcp = peer.ns2_script(scenario("X1u").to_dict())
    assert "1ms XCP\n" in xcp and "$ns queue-limit $r2 $r1 6131\n" in xcp
    assert xcp.count("set-link-capacity 622000000.0") == 2
    assert xcp.index("queue-limit $r2 $r1") < xcp.index("set-link-capacity")
    assert "Agent/TCP/Reno/XCP" in xcp and "Agent/TCPSink/XCPSink" in xcp and "timestamps_ true" in xcp
    # each flow's RTT and start as ccsim drew them from the seed: its access
    # links' delay as ccsim simulates it (whole picoseconds), the builder's
    # split of the RTT
    from ccsim._native import core, dumps
    d = scenario("X1u").to_dict()
    out = json.loads(core().Simulation(dumps(dict(d, duration_s=1e-9))).finish())
    flows, links = out["flows"], {(l["from"], l["to"]): l["delay_s"] for l in out["links"]}
    assert len(flows) == 100 and len({f["rtt_prop_s"] for f in flows}) == 100
    for i in (0, 57, 99):
        e = links[(f"s{i}", "r0")]
        assert e == links[("r1", f"d{i}")] == pytest.approx((flows[i]["rtt_prop_s"] / 2 - 0.001) / 2, abs=1e-12)
        assert f"\nset edel({i}) {e!r}\nset start({i}) {flows[i]['start_s']!r}\n" in xcp
        assert 0.064 <= flows[i]["rtt_prop_s"] <= 0.100 and 0 <= flows[i]["start_s"] <= 10
    assert "$edel($i)s DropTail" in xcp and '$ns at $start($i) "$ftp($i) start"' in xcp
    dt = peer.ns2_script(scenario("X1u-dt").to_dict())
    assert "1ms DropTail\n" in dt and "[new Agent/TCP/Reno]" in dt and "XCP" not in dt and "set edel(99)" in dt
    # DRR: a byte limit of limit_pkts full-size packets, ccsim's quantum
    drr = peer.ns2_script(scenario("G1-drr").to_dict())
    assert "1ms DRR\n" in drr and "Queue/DRR set blimit_ 12500800\n" in drr and "quantum_ 1500" in drr
    assert f"buckets_ {peer.DRR_BUCKETS}\n" in drr and "mask_ 0" in drr


def _s1_draws(name):
    """S1's flows as ccsim builds them: per flow (access-link delay, start),
    read from the engine's own run, and the flows' RTTs."""
    from ccsim._native import core, dumps

    out = json.loads(core().Simulation(dumps(dict(scenario(name).to_dict(), duration_s=1e-9))).finish())
    links = {(l["from"], l["to"]): l["delay_s"] for l in out["links"]}
    return [(links[(f"s{f['id']}", "r0")], links[("r1", f"d{f['id']}")], f["start_s"], f["rtt_prop_s"])
            for f in out["flows"]]


def test_s1_maps_1000_flows_with_ccsims_delays_and_starts():
    import re

    d = scenario("S1").to_dict()
    tcl = peer.ns2_script(d)
    # 1,000 flows, each its own pair of access links at 100 Gb/s; a 5 ms,
    # 10 Gb/s bottleneck holding S1's 1581 waiting packets (ns-2: limit + 1)
    assert "set n 1000\n" in tcl
    assert "$ns duplex-link $r1 $r2 10000000000.0bps 5ms DropTail\n" in tcl
    assert "$ns queue-limit $r1 $r2 1582\n" in tcl and "$ns queue-limit $r2 $r1 1582\n" in tcl
    assert "$ns duplex-link $s($i) $r1 100000000000.0bps $edel($i)s DropTail" in tcl
    assert "$ns duplex-link $r2 $d($i) 100000000000.0bps $edel($i)s DropTail" in tcl
    # every flow's delay and start exactly as ccsim simulates them (the Tcl
    # gives them as the same doubles), and nothing else
    edel = {int(i): float(v) for i, v in re.findall(r"\nset edel\((\d+)\) (\S+)", tcl)}
    start = {int(i): float(v) for i, v in re.findall(r"\nset start\((\d+)\) (\S+)", tcl)}
    flows = _s1_draws("S1")
    assert len(flows) == len(edel) == len(start) == 1000
    for i, (e_src, e_dst, s, rtt) in enumerate(flows):
        assert edel[i] == e_src == e_dst and start[i] == s, i
        # the RTT the edge delays make with the bottleneck: ccsim's draw in [20, 100] ms
        assert 2 * (2 * edel[i] + 0.005) == pytest.approx(rtt, abs=1e-11) and 0.020 <= rtt <= 0.100
        assert 0.0 <= s <= 1.0
    # spread as drawn, not a grid: RTTs over most of the range, distinct starts
    rtts = sorted(f[3] for f in flows)
    assert rtts[0] < 0.025 and rtts[-1] > 0.095 and len({f[2] for f in flows}) == 1000
    # CUBIC with SACK: ns-2.35's Linux agent running Linux's cubic module,
    # ns-2's SACK sink with delayed ACKs (Linux's 40 ms timer), timestamps
    # echoed as RFC 1323 with their 10 bytes off the wire; S1's segments
    # (1460 B + 40) and initial window 10
    assert tcl.count("[new Agent/TCP/Linux]") == 1 and "$tcp($i) select_ca cubic\n" in tcl
    assert "[new Agent/TCPSink/Sack1/DelAck]\n    $sink($i) set interval_ 0.04\n" in tcl
    assert "$sink($i) set ts_echo_rfc1323_ true" in tcl
    assert "$tcp($i) set timestamps_ true\n    $tcp($i) set ts_option_size_ 0\n" in tcl
    assert "packetSize_ 1460\n" in tcl and "windowInit_ 10\n" in tcl
    # select_ca after the segment size, which the agent reads into Linux's mss
    assert tcl.index("packetSize_ 1460") < tcl.index("select_ca")
    assert '$ns at $start($i) "$ftp($i) start"' in tcl and '$ns at 5.0 "finish"' in tcl


def test_s1_newreno_maps_to_ns2s_newreno_with_delayed_acks():
    tcl = peer.ns2_script(scenario("S1-newreno").to_dict())
    assert "set n 1000\n" in tcl and "[new Agent/TCP/Newreno]" in tcl and "Linux" not in tcl
    assert "[new Agent/TCPSink/DelAck]\n    $sink($i) set interval_ 0.04\n" in tcl
    assert "timestamps_" not in tcl and "packetSize_ 1460\n" in tcl and "windowInit_ 10\n" in tcl
    # the same draws as S1 (the same seed and entry)
    assert tcl.split("set r1")[0].split("set n 1000")[1] == peer.ns2_script(
        scenario("S1").to_dict()).split("set r1")[0].split("set n 1000")[1]
    # the B rows keep one ACK per segment (delayed_ack = false) and ns-2's own defaults
    b3 = peer.ns2_script(scenario("B3").to_dict())
    assert "[new Agent/TCPSink]\n" in b3 and "DelAck" not in b3 and "interval_" not in b3
    assert "windowInit_ 2\n" in b3 and "packetSize_ 1000\n" in b3 and "1ms DropTail" in b3


def test_scale_mappings_refuse_what_ns2_cannot_run():
    d = scenario("S1").to_dict()
    d["flows"][0]["recovery"] = "newreno"  # the Linux agent recovers with SACK only
    with pytest.raises(ValueError, match="CUBIC with SACK"):
        peer.ns2_script(d)
    d = scenario("S1").to_dict()
    d["flows"][0]["header_bytes"] = 54
    with pytest.raises(ValueError, match="40 bytes"):
        peer.ns2_script(d)
    # ns-2's delayed-ACK timer for ccsim's fixed model is ccsim's timeout
    d = scenario("S1-newreno").to_dict()
    d["flows"][0].update(delack_model="fixed", delack_timeout_s=0.15)
    assert "$sink($i) set interval_ 0.15\n" in peer.ns2_script(d)
    # XCP's sink has no delayed-ACK variant in ns-2.35
    d = scenario("X1u").to_dict()
    d["flows"][0]["delayed_ack"] = True
    with pytest.raises(ValueError, match="no delayed-ACK variant"):
        peer.ns2_script(d)


def test_drr_buckets_keep_the_flows_apart():
    # ns-2.35 drr.cc DRR::hash of a node address (mask_ 0), then % buckets_:
    # the dumbbell's data sources (s_i: 2, 4, ...) and ACK sources (d_i: 3,
    # 5, ...) each fall in distinct queues, as ccsim's one queue per flow
    def ns2_hash(i):
        k = i + (i >> 8) + ~(i >> 4)
        return (k - int(k / ((2 << 23) - 1)) * ((2 << 23) - 1)) + 1  # C's % truncates

    for n in (1, 50, 100, 500):
        for first in (2, 3):
            b = [ns2_hash(first + 2 * i) % peer.DRR_BUCKETS for i in range(n)]
            assert len(set(b)) == n, n
    # the sharing it would have with ns-2's default of 16 buckets
    assert len({ns2_hash(2 + 2 * i) % 16 for i in range(50)}) < 50


def test_new_protocol_rows_run_in_ccsim_only():
    row = peer.measure("X1", quick=True, ns=shutil.which("ns") or "/nonexistent/ns")
    assert row.ccsim_pkts > 0 and row.ns2_wall_s is None and row.ratio is None
    assert "ccsim only" in row.note and "paced XCP" in row.note
    assert set(peer.CCSIM_ONLY) == {"E1", "X1", "X1-dt", "G1"}
    # every row the peer names is a benchmark, each once
    every = peer.ROWS + peer.MECHANISM_ROWS + peer.SCALE_ROWS + tuple(peer.CCSIM_ONLY)
    assert len(set(every)) == len(every) and set(every) <= set(BENCHMARKS)


def test_rows_against_b3_in_each_simulator():
    rows = [peer.Row("B3", 1.0, 4000, ns2_wall_s=10.0, ns2_pkts=4000),
            peer.Row("X1u", 2.0, 4000, ns2_wall_s=40.0, ns2_pkts=8000),
            peer.Row("X1", 1.0, 1000)]
    rel = peer.of_b3(rows)
    assert rel["X1u"] == pytest.approx((0.5, 0.5)) and rel["X1"] == (0.25, None) and "B3" not in rel
    assert peer.of_b3(rows[1:]) == {}


def test_utilisation_of_both_sides_is_kept():
    a = peer.Row("S1", 3.0, 3_600_000, ns2_wall_s=100.0, ns2_pkts=3_500_000, ns2_setup_s=80.0,
                 ccsim_utilization=0.87, ns2_utilization=0.84)
    b = peer.Row("S1", 2.5, 3_600_000, ns2_wall_s=120.0, ns2_pkts=3_500_000, ns2_setup_s=70.0,
                 ccsim_utilization=0.87, ns2_utilization=0.84)
    k = peer.keep_fastest(a, b)
    assert (k.ccsim_wall_s, k.ns2_wall_s, k.ns2_setup_s) == (2.5, 100.0, 70.0)
    assert (k.ccsim_utilization, k.ns2_utilization) == (0.87, 0.84)
    assert k.ratio == pytest.approx((3.6e6 / 2.5) / (3.5e6 / 100.0))
    assert k.ratio_run_only == pytest.approx((3.6e6 / 2.5) / (3.5e6 / 30.0))
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import docs_tables

    cols, (cells,) = docs_tables.peer_rows([dict(k.__dict__, ratio=k.ratio, ratio_run_only=k.ratio_run_only)])
    got = dict(zip(cols, cells))
    assert got["util. ccsim / ns-2"] == "0.870 / 0.840" and got["CPU ccsim / ns-2 (s)"] == "—"
    assert k.ratio_cpu is None and got["by CPU: ccsim / ns-2, run only"] == "—"
    # by CPU seconds, which a shared machine's load hardly moves; ns-2's
    # set-up CPU taken off for the run only
    k.ccsim_cpu_s, k.ns2_cpu_s, k.ns2_setup_cpu_s = 1.8, 60.0, 40.0
    assert k.ratio_cpu == pytest.approx((3.6e6 / 1.8) / (3.5e6 / 60.0))
    assert k.ratio_cpu_run_only == pytest.approx((3.6e6 / 1.8) / (3.5e6 / 20.0))
    cols, (cells,) = docs_tables.peer_rows([dict(k.__dict__, ratio=k.ratio, ratio_run_only=k.ratio_run_only,
                                                 ratio_cpu=k.ratio_cpu, ratio_cpu_run_only=k.ratio_cpu_run_only)])
    got = dict(zip(cols, cells))
    assert got["CPU ccsim / ns-2 (s)"] == "1.80 / 60.0" and got["by CPU: ccsim / ns-2, run only"] == "34.3x, 11.4x"
    # rounds keep each side's least CPU time
    m = peer.keep_fastest(k, dataclasses.replace(k, ccsim_cpu_s=1.7, ns2_cpu_s=61.0, ns2_setup_cpu_s=39.0))
    assert (m.ccsim_cpu_s, m.ns2_cpu_s, m.ns2_setup_cpu_s) == (1.7, 60.0, 39.0)


def test_ns2s_32_bit_byte_count_is_unwrapped():
    # S1's 3.56 M departures of 1500 bytes are 5.34 GB: ns-2 printed
    # 5,340,000,000 - 2^32 (its QueueMonitor's bdepartures_ is an int)
    pkts, true = 3_560_000, 3_560_000 * 1500 - 1000 * 1460  # 1,000 header-only first segments
    assert peer.unwrap_bytes(true - 2**32, pkts, 1500) == true
    assert peer.unwrap_bytes(true - 2 * 2**32, pkts, 1500) == true
    assert peer.unwrap_bytes(123_456, 100, 1040) == 123_456  # no wrap: as printed


def test_rounds_keep_each_simulators_fastest_run():
    a = peer.Row("X1u", 2.0, 4000, ns2_wall_s=30.0, ns2_pkts=3900, ns2_setup_s=1.2)
    b = peer.Row("X1u", 2.5, 4000, ns2_wall_s=28.0, ns2_pkts=3900, ns2_setup_s=0.9)
    k = peer.keep_fastest(peer.keep_fastest(None, a), b)
    assert (k.ccsim_wall_s, k.ns2_wall_s, k.ns2_setup_s) == (2.0, 28.0, 0.9)
    assert (k.ccsim_pkts, k.ns2_pkts) == (4000, 3900)
    # ccsim-only rows have no ns-2 time to keep
    c = peer.keep_fastest(peer.Row("X1", 3.0, 10), peer.Row("X1", 2.0, 10))
    assert c.ccsim_wall_s == 2.0 and c.ns2_wall_s is None
    # both simulators are deterministic: a round that moved other packets is an error
    with pytest.raises(RuntimeError, match="rounds moved different packets"):
        peer.keep_fastest(a, peer.Row("X1u", 2.0, 4001, ns2_wall_s=30.0, ns2_pkts=3900))


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 not installed (apt-get install ns2)")
def test_short_row_in_both_simulators():
    row = peer.measure("B1", quick=True, ns=shutil.which("ns"))
    # Same scenario, same work: the bottleneck carried nearly the same
    # number of packets in both (the recoveries differ in detail).
    assert row.ns2_pkts > 0 and row.ccsim_pkts > 0
    assert abs(row.ccsim_pkts - row.ns2_pkts) / row.ns2_pkts < 0.1
    assert row.ratio > 0
    # ns-2's set-up is measured apart (on this quick row it is nearly all
    # of ns-2's time, so the run-only ratio may be undefined)
    assert row.ns2_setup_s > 0
    # (taking the set-up off ns-2's time makes it faster: a lower ratio)
    assert row.ratio_run_only is None or row.ratio_run_only < row.ratio


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 not installed (apt-get install ns2)")
def test_mechanism_rows_in_both_simulators(monkeypatch):
    # XCP: ns-2.35's Queue/XCP and XCP agents on X1u's dumbbell with
    # ccsim's drawn RTTs and starts move the same work as ccsim (as B1 above)
    row = peer.measure("X1u", quick=True, ns=shutil.which("ns"))
    assert row.ns2_pkts > 100_000 and abs(row.ccsim_pkts - row.ns2_pkts) / row.ns2_pkts < 0.1
    # DRR: ns-2's Queue/DRR ran with every flow in its own bucket (a
    # reported collision raises in run_ns2_stdout)
    row = peer.measure("G1-drr", quick=True, ns=shutil.which("ns"))
    assert row.ns2_pkts > 100_000 and row.ccsim_pkts > 100_000
    # ... which it does with ns-2's 16 default buckets: refused
    monkeypatch.setattr(peer, "DRR_BUCKETS", 16)
    d = dict(scenario("G1-drr").to_dict(), duration_s=0.3)
    with pytest.raises(RuntimeError, match="shared a queue between flows"):
        peer.run_ns2_stdout(d, shutil.which("ns"))


# validation/gwa_compare.py: the GWA paper's DropTail/RED/ECN rows in both.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from validation import gwa_compare  # noqa: E402


def test_gwa_rows_map_the_same_network_to_both_simulators():
    st = gwa_compare.SETTINGS["gwa-many-flows"]
    sc = gwa_compare.scenario(st, "ecn", 240, seed=2)
    bneck = sc["topology"]["links"][0]
    assert (bneck["from"], bneck["to"], bneck["rate_bps"]) == ("r0", "r1", 10e6)
    q = bneck["queue"]
    assert (q["min_th_pkts"], q["max_th_pkts"], q["max_p"], q["gentle"], q["ecn_mark_above_max"]) == (20, 60, 0.1, False, True)
    tcl = gwa_compare.tcl_params(st, "ecn", 240, 2, "/tmp/x.tr")
    taus, _ = gwa_compare.draw(st, 2)
    # the same tau_i on both sides, inside the paper's 1-10 ms
    assert all(0.001 <= t <= 0.01 for t in taus)
    assert [ln["delay_s"] for ln in sc["topology"]["links"][1::2]] == taus
    assert f"set tau(99) {taus[99]!r}" in tcl and "set buf 240" in tcl
    assert len(sc["flows"]) == 100 and all(f["ecn"] and f["rwnd_pkts"] == 512 for f in sc["flows"])


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 not installed (apt-get install ns2)")
def test_gwa_lan_ecn_trace_is_ns2s_with_ns2s_clock(tmp_path):
    # validation/gwa_trace.py: with ns-2's random stream, event order, Reno
    # window and floating-point clock, ccsim's bottleneck trace of the
    # ten-FTP LAN ECN 30 kB row (seed 1) is ns-2's, event for event, past
    # its early timeouts and ECN cuts (to 11.4 s of 25; it parted at 0.25 s
    # without the clock, at a tie ns-2's rounding broke, and at 0.32 s
    # without ns-2's third duplicate after a timeout and an ECE;
    # docs/validation.md, "ns-2's floating-point clock").
    from validation import gwa_trace
    same, ns2, cc = gwa_trace.compare("ecn", 30, 1, False, 1.0, str(tmp_path))
    assert len(ns2) > 25_000 and same == len(ns2) == len(cc), (same, len(ns2), len(cc))


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 not installed (apt-get install ns2)")
def test_gwa_traces_follow_ns2s_tick_phases_and_its_ece_rule(tmp_path):
    # The many-flows DropTail 400 kB trace is ns-2's for 9,794 events with
    # every agent's boot_time_ drawn in ns-2's node reset order (3,203 in
    # flow order: a spurious RTO at 0.58 s); the LAN ECN 30 kB trace with
    # Telnets for 2,366 with ns-2's `seqno > recover_` ECE rule (985 without:
    # a cut at the ACK ending a recovery). docs/validation.md, "GWA paper rows".
    from validation import gwa_trace
    same, ns2, cc = gwa_trace.compare("droptail", 400, 1, False, 2.5, str(tmp_path), "gwa-many-flows")
    assert same >= 9700, (same, ns2[same], cc[same])
    same, ns2, cc = gwa_trace.compare("ecn", 30, 1, True, 0.2, str(tmp_path))
    assert same >= 2300, (same, ns2[same], cc[same])


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 not installed (apt-get install ns2)")
def test_gwa_lan_droptail_short_row_in_both_simulators(tmp_path):
    st = dict(gwa_compare.SETTINGS["gwa-lan"], dur=6.0, warm=2.0)
    a = gwa_compare.summarise(gwa_compare.run_ns2(st, "droptail", 60, 1, str(tmp_path)))
    b = gwa_compare.summarise(gwa_compare.run_ccsim(st, "droptail", 60, 1))
    # Full link in both (10 FTPs x 64-segment windows over a 60-packet buffer),
    # the buffer filled in both; the drop rate differs (docs/validation.md).
    assert a["goodput_avg"] > 0.09 and abs(b["goodput_avg"] / a["goodput_avg"] - 1) < 0.03
    assert a["max_queue_pkts"] == b["max_queue_pkts"] == 60
    assert abs(b["avg_queue_pkts"] / a["avg_queue_pkts"] - 1) < 0.15


from validation import gwa_telnet  # noqa: E402


def test_telnet_delays_follow_in_order_delivery_and_the_measurement_window(tmp_path):
    # Telnet 0 (fid 1): the first write goes out as the SYN (segment 0) and
    # its data as segment 1; segment 2 is lost once and arrives after
    # segment 3, which is delivered with it; segment 4 never arrives, so
    # neither it nor segment 5 is delivered in order by the end. The FTP
    # (fid 0) is ignored, and so is a second copy of segment 3.
    w = [0.5, 1.0, 2.0, 3.0, 4.0]
    lines = [f"w 0 {t!r}" for t in w] + [
        "r 0.51 1 3 tcp 40 ------- 1 2.1 3.1 0 1",
        "r 0.52 1 3 tcp 1040 ------- 1 2.1 3.1 1 2",
        "r 1.01 1 3 tcp 1040 ------- 0 2.0 3.0 0 3",
        "r 2.05 1 3 tcp 1040 ------- 1 2.1 3.1 3 5",
        "r 2.40 1 3 tcp 1040 ------- 1 2.1 3.1 2 6",
        "r 2.90 1 3 tcp 1040 ------- 1 2.1 3.1 3 7",
    ]
    path = tmp_path / "tel.tr"
    path.write_text("\n".join(lines) + "\n")
    delays, written = gwa_telnet.telnet_delays(str(path), 1, warm=0.0, dur=10.0)
    assert delays == [[pytest.approx(0.02), pytest.approx(1.4), pytest.approx(0.4)]]
    assert written == 5
    # After the warm-up only; a write delivered after the end is not counted.
    delays, written = gwa_telnet.telnet_delays(str(path), 1, warm=1.5, dur=10.0)
    assert delays == [[pytest.approx(0.4)]] and written == 3
    delays, _ = gwa_telnet.telnet_delays(str(path), 1, warm=0.0, dur=2.2)
    assert delays == [[pytest.approx(0.02)]]
    s = gwa_telnet.summary(gwa_telnet.telnet_delays(str(path), 1, warm=0.0, dur=10.0))
    assert s == {"written": 5, "count": 3, "mean_s": pytest.approx(0.606666, rel=1e-5), "max_s": pytest.approx(1.4)}


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 not installed (apt-get install ns2)")
def test_telnet_writes_and_delays_in_ns2(tmp_path):
    # The Tcl Telnet driver writes at exponential intervals of mean 0.1 s
    # (ten Telnets for 6 s after a 2 s warm-up: about 600 writes) and the
    # delays come out as a write-to-delivery time: at least the path's
    # three 1040-byte transmissions at 100 Mb/s and 100 us of propagation,
    # 349.6 us, less the trace's 1 us resolution.
    st = dict(gwa_compare.SETTINGS["gwa-lan"], dur=8.0, warm=2.0)
    delays, written = gwa_telnet.run_ns2(st, "red", 30, 1, str(tmp_path))
    assert 480 < written < 720
    flat = [x for d in delays for x in d]
    assert len(flat) > 0.95 * written
    assert min(flat) > 349.6e-6 - 1e-6


# validation/ns2_baselines.py and the driver validation/run.py
from ccsim.experiments.etcp import ns2 as etcp_ns2  # noqa: E402
from ccsim.experiments.ltcp import ns2 as ltcp_ns2  # noqa: E402
from validation import ns2_baselines, ns2_suite  # noqa: E402
from validation import run as vrun  # noqa: E402


def test_baseline_rows_map_to_tcl_as_ccsim_builds_them():
    row = next(r for r in etcp_ns2.ROWS if r.protocol == "HSTCP" and r.n == 50)
    sc = etcp_ns2.scenario(row, 3)
    tcl = ns2_baselines.tcl(sc)
    # one agent per flow, each at its own drawn start time, ns-2 mode on ccsim's side
    assert tcl.count("new Agent/TCP/Sack1]") == 50 and "windowOption_ 8" in tcl and "max_ssthresh_ 100" in tcl
    for f in sc["flows"]:
        assert f'$ns at {f["start_s"]} "$ftp(' in tcl
        assert f["tcp_model"] == "ns2"
        f = ns2ref.engine_flow(f)  # the personality's fields, spelled out
        assert f["rtt_estimator"] == "ns2" and f["ns2_bugfix"] and f["cc_params"]["ns2_first_decrease"]
        # ns-2's defaults, which the recorded runs kept: its SYN start-up
        # and its Limited Slow-Start
        assert f["syn"] == "ns2" and f["cc_params"]["lss"] == "ns2"
    assert "syn_" not in tcl and "delay_growth_" not in tcl
    # ns-2's packetSize_ is the payload; its queue-limit counts the packet being sent
    assert "packetSize_ 1000" in tcl and "$ns queue-limit $r0 $r1 21" in tcl
    # LTCP at 2.4 Gb/s: the access queue gets the BDP buffer, as in ltcp-fig6
    row = next(r for r in ltcp_ns2.ROWS if r.rate_bps == 2.4e9)
    tcl = ns2_baselines.tcl(ltcp_ns2.scenario(row, 1))
    assert f"$ns queue-limit $a $b {row.buffer_pkts + 1}" in tcl
    assert "snap w\"" in tcl and '$ns at 100.0 "snap w"' in tcl


def test_ns2_mode_orders_tied_events_as_ns2_on_every_queue():
    # etcp-ns2 down to ns-2's floating-point clock; ltcp-ns2 (one flow or
    # ten, already ns-2's to 0.01%) in ns-2's order of exact ties
    for mod, ties, clock in ((etcp_ns2, "ns2", True), (ltcp_ns2, "arrival_first", None)):
        for row in mod.ROWS:
            sc = mod.scenario(row, 1)
            topo = sc["topology"]
            assert topo["bottleneck_queue"]["ties"] == topo["edge_queue"]["ties"] == ties, row.id
            assert sc.get("ns2_clock") is clock, row.id


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 not installed (apt-get install ns2)")
def test_the_first_overflows_drop_the_segments_ns2_drops():
    # HSTCP, 1 Gb/s, 200 ms, 20-packet buffer: every drop of the first
    # slow-start overflows is an arrival tied with a departure; ns-2 runs
    # the arrival first (docs/validation.md). ccsim's default order drops
    # the other segment of each pair.
    row = next(r for r in etcp_ns2.ROWS if r.id == "fig6 HSTCP 1000 Mb/s 200 ms")
    sc = etcp_ns2.scenario(row, 1)
    d = ns2_baselines.bottleneck_drops(sc, shutil.which("ns"), 3.0)
    assert len(d["ns2"]) >= 30 and d["ccsim"] == d["ns2"]
    sc.pop("ns2_clock")
    for q in ("bottleneck_queue", "edge_queue"):
        sc["topology"][q] = dict(sc["topology"][q], ties="event_order")
    other = ns2_baselines.bottleneck_drops(sc, shutil.which("ns"), 3.0)["ccsim"]
    assert len(other) == len(d["ns2"]) and other != d["ns2"]


def test_ns2_checks_compare_small_rates_to_six_significant_digits():
    import pandas as pd
    from ccsim.experiments._kit import Analysis, ns2ref

    row = {"row": "r", "n": 1, "seeds": 1}
    for k in ns2ref.METRICS:
        row.update({f"ns2_{k}": 1.0, f"ccsim_{k}": 1.0, f"recorded_ccsim_{k}": 1.0})
    # a loss rate 3.3% above ns-2's: six decimals made it 2e-06 against 3e-06
    row.update(ns2_loss_rate=2.46e-6, ccsim_loss_rate=2.54e-6)
    c = next(c for c in ns2ref.checks(Analysis(table=pd.DataFrame([row]))) if "loss_rate" in c.quantity)
    assert c.ok and c.deviation == pytest.approx(0.08 / 2.46, rel=1e-6)


def test_unmapped_agents_are_refused():
    row = etcp_ns2.ROWS[0]
    sc = etcp_ns2.scenario(row, 1)
    sc["flows"][0]["cc"] = "cubic"
    with pytest.raises(ValueError, match="no ns-2.35 agent"):
        ns2_baselines.tcl(sc)
    # HighSpeed maps only with ns-2's Limited Slow-Start
    row = next(r for r in etcp_ns2.ROWS if r.protocol == "HSTCP")
    sc = etcp_ns2.scenario(row, 1)
    sc["flows"][0]["cc_params"]["lss"] = "rfc3742"
    with pytest.raises(ValueError, match="lss"):
        ns2_baselines.tcl(sc)


def test_syn_maps_to_ns2s_start_up_switches():
    sc = etcp_ns2.scenario(etcp_ns2.ROWS[0], 1)
    sc["flows"][0]["syn"] = "none"
    assert "$tcp(0) set syn_ false\n$tcp(0) set delay_growth_ false\n" in ns2_baselines.tcl(sc)
    sc["flows"][0]["syn"] = "ns2_no_delay_growth"
    tcl = ns2_baselines.tcl(sc)
    assert "$tcp(0) set delay_growth_ false\n" in tcl and "syn_" not in tcl
    sc["flows"][0]["syn"] = "yes"
    with pytest.raises(ValueError, match='syn: "yes" is not allowed; allowed: "none", "ns2", "ns2_no_delay_growth"'):
        ns2_baselines.tcl(sc)


def test_parse_reads_both_snapshots():
    sc = etcp_ns2.scenario(etcp_ns2.ROWS[0], 1)
    out = "w link 10 1\nw flow 0 99 3 0\ne link 1010 11\ne flow 0 1099 13 2\n"
    m = ns2_baselines.parse(out, sc, 10e6)
    span = sc["duration_s"] - sc["warmup_s"]
    assert m["utilisation"] == pytest.approx(1000 * 8000 / span / 10e6)
    assert (m["loss_rate"], m["retransmits"], m["timeouts"]) == (10 / 1000, 10.0, 2.0)


def test_driver_rewrites_only_its_own_block(tmp_path):
    doc = tmp_path / "v.md"
    doc.write_text("# V\n\nhand-written\n")
    vrun.update_doc("ns2", "first", doc)
    vrun.update_doc("ns3", "other", doc)
    vrun.update_doc("ns2", "second", doc)
    text = doc.read_text()
    assert "hand-written" in text and "second" in text and "first" not in text and "other" in text
    assert text.count("<!-- BEGIN generated: ns2 -->") == 1


def test_driver_names_an_unknown_peer(capsys):
    with pytest.raises(SystemExit) as e:
        vrun.main(["--peer", "ns4"])
    assert e.value.code == 2
    assert "--peer: 'ns4'; allowed: ns2, ns3" in capsys.readouterr().err


@pytest.mark.skipif(not ns2_suite.installed(), reason="ns-2.35 not installed (python -m validation.run --peer ns2 "
                                                      "installs it)")
def test_quick_validation_case_in_both_simulators(tmp_path):
    res = ns2_suite.run(True, tmp_path)
    (row,) = res["parts"]["baselines"]["rows"]
    assert row["row"] == ns2_suite.QUICK_ROW
    a, b = row["ns2"], row["ccsim"]
    # the row is validated: one NewReno flow agrees with ns-2.35 within 5%
    # in utilisation (docs/validation.md, "E-TCP and LTCP baselines")
    assert abs(b["utilisation"] - a["utilisation"]) <= 0.05 * a["utilisation"]
    assert (tmp_path / "ns2.json").exists() and "fig6 NewReno" in ns2_suite.markdown(res)


# validation/sack1_traces.py: recovery = "sack1" against ns-2's TCP/Sack1.
from validation import sack1_traces  # noqa: E402


def test_sack1_cases_map_the_same_flow_to_both_simulators():
    case = next(c for c in sack1_traces.CASES if c.name == "lost-retransmission")
    tcl = sack1_traces.tcl(case, [7, 30], "/tmp/x.tr", seed=2)
    assert "Agent/TCP/Sack1" in tcl and "Agent/TCPSink/Sack1" in tcl
    assert "$em droplist {7 30}" in tcl and "$ns lossmodel $em $r0 $r1" in tcl
    assert "syn_ false" in tcl and "useHeaders_ false" in tcl and "$defaultRNG seed 2" in tcl
    sc = sack1_traces.scenario(case, 0.004)
    f = sc["flows"][0]
    assert (f["recovery"], f["header_bytes"], f["ns2_boot_time_s"], f["rtt_estimator"]) == ("sack1", 0, 0.004, "ns2")
    assert sc["topology"]["bottleneck_queue"]["drop_list"] == {"flow": 0, "segments": [100, 100]}
    # the SYN cases keep ns-2's start-up and headers on both sides
    case = next(c for c in sack1_traces.CASES if c.name == "hstcp-lss")
    tcl = sack1_traces.tcl(case, [], "/tmp/x.tr")
    assert "syn_" not in tcl and "useHeaders_" not in tcl and "max_ssthresh_ 100" in tcl
    f = sack1_traces.scenario(case, 0.004)["flows"][0]
    assert (f["syn"], f["header_bytes"], f["cc_params"]["lss"], f["cc_params"]["max_ssthresh"]) == ("ns2", 40, "ns2", 100)
    # the comparison stops at the first transmission that differs
    a = [(0.0, 0), (0.1, 1), (0.2, 2)]
    assert sack1_traces.compare(a, a)["match"]
    d = sack1_traces.compare(a, [(0.0, 0), (0.1, 1), (0.2, 3)])
    assert not d["match"] and d["identical"] == 2 and d["first_difference"]["ccsim"] == (0.2, 3)


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 not installed (apt-get install ns2)")
@pytest.mark.parametrize("name", ["three-in-window", "lost-retransmission", "slow-start-burst", "syn-lost"])
def test_sack1_sends_the_same_segments_at_the_same_times_as_ns2(name):
    case = next(c for c in sack1_traces.CASES if c.name == name)
    r = sack1_traces.run_case(case, shutil.which("ns"), seed=1)
    assert r["ns2_sends"] > 1000
    assert r["match"], r["first_difference"]
    assert r["ns2_retransmissions"] == r["ccsim_retransmits"]


# validation/xcp_compare.py and xcp_chain.py: XCP in both simulators.
from validation import xcp_chain, xcp_compare  # noqa: E402


def test_xcp_chain_maps_the_same_network_to_both_simulators():
    c = xcp_chain.case("fig4", 10, 0.02, 0.01)
    sc = xcp_chain.ccsim_scenario(c)
    assert len(c["flows"]) == len(sc["flows"]) == 60
    assert sc["topology"]["link_queue"]["xcp"] == {"params": "original", "count_acks": True}
    assert sc["topology"]["link_queue"]["limit_bytes"] == 6_375_500
    for f, d in zip(c["flows"], sc["flows"]):
        assert d["hops"] == [f["first"], f["last"]] and (d.get("direction") == "reverse") == bool(f["dir"])
        assert d["mss_bytes"] + d["header_bytes"] == 1000 and d["tcp_model"] == "ns2" and d["cc_params"] == {}
    import ccsim

    r = ccsim.run(sc)
    # the edge delays ns-2 is given make up the same round trip as ccsim's builder
    for f, fl in zip(c["flows"], r.raw["flows"]):
        hops = f["last"] - f["first"] + 1
        assert fl["rtt_prop_s"] == pytest.approx(2 * (2 * xcp_chain.edge_delay(c, f) + 0.01 * hops))
        assert fl["rtt_prop_s"] == pytest.approx(f["rtt"])


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 not installed (apt-get install ns2)")
def test_xcp_hundred_flows_in_both_simulators():
    # ns-2's XCP agent has no window increase of its own: every flow gets
    # C/N; ccsim with Reno's increase split them 0.07/0.14/0.41 Mb/s.
    a, b = xcp_compare.one(100)
    assert a["drops"] == b["drops"] == 0
    assert b["utilization"] == pytest.approx(a["utilization"], rel=0.005)
    for x, y in zip(a["flow_mbps"], b["flow_mbps"]):
        assert y == pytest.approx(x, rel=0.02)


# validation/xcp_bdp.py: XCP at high bandwidth-delay products.
from validation import xcp_bdp  # noqa: E402


def test_xcp_bdp_rfc_one_flow_fills_katabis_buffers_not_the_grids():
    """One unpaced ``rfc`` XCP flow at 1 Gb/s, 80 ms: the first feedback's
    burst (α·BDP back to back) overflows the grid's 50-packet access queue
    and the flow collapses; with every buffer one BDP (Katabi et al.'s
    simulations, ``--buffers katabi``) it fills without a drop."""
    grid = xcp_bdp.rfc_cell((1, 1e9, 0.08, 50, None, False))["ccsim_rfc"]
    assert grid["utilization"] < 0.1 and grid["edge_drops"] > 10_000
    katabi = xcp_bdp.rfc_cell((1, 1e9, 0.08, 50, None, True))
    assert katabi["buffer_pkts"] == xcp_bdp.bdp_pkts(1e9, 0.08) == 9524
    r = katabi["ccsim_rfc"]
    assert r["utilization"] >= 0.9 and r["drops"] == r["edge_drops"] == 0


def test_xcp_bdp_rfc_column_reruns_beside_the_recorded_ns2_columns():
    """``--models rfc`` reproduces the recorded rfc cell and keeps the
    recorded ns-2 and ccsim ns2 columns beside it (no ns-2 needed)."""
    recorded = json.loads(xcp_bdp.RESULTS.read_text())["cells"]
    old = next(r for r in recorded if (r["flows"], r["rate_mbps"], r["rtt_ms"]) == (1, 100.0, 200))
    rows = xcp_bdp.merge_recorded([xcp_bdp.rfc_cell((1, 100e6, 0.2, 50, None, False))], recorded)
    assert rows == [old]
    assert xcp_bdp.markdown(rows).splitlines()[2] == "| 100 Mb/s, 200 ms | 0.00/0.00/0.06 |"
    for argv in (["--models", "ns2"], ["--buffers", "katabi"]):  # the grid needs ns-2; katabi is rfc's alone
        with pytest.raises(SystemExit):
            xcp_bdp.main(argv)


def test_boot_order_puts_each_hosts_agents_in_ns2s_node_order():
    """ns2ref.boot_order: the recorded node order of 22 nodes (17, 0, 18,
    1, 20, ...) gives hosts s_7 (node 16 is d_7; node 18 is s_8), ...:
    the even nodes from 2 are the hosts, and a host's agents follow each
    other."""
    from ccsim.experiments._kit import ns2ref

    order = ns2ref.node_order(22)
    assert order[:5] == [17, 0, 18, 1, 20]
    hosts = [(n - 2) // 2 for n in order if n >= 2 and n % 2 == 0]
    assert ns2ref.boot_order(10) == hosts
    assert ns2ref.boot_order(10, per_host=2) == [f for h in hosts for f in (h, 10 + h)]
    assert sorted(ns2ref.boot_order(50)) == list(range(50))
    with pytest.raises(Exception, match="no ns-2 node order for 7 nodes"):
        ns2ref.node_order(7)


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 not installed (apt-get install ns2)")
def test_recorded_node_orders_are_what_ns_prints():
    from ccsim.experiments._kit import ns2ref
    from validation import ns2_node_order

    orders = json.loads(ns2ref.NODE_ORDERS.read_text())["orders"]
    for n, order in orders.items():
        assert ns2_node_order.measure(int(n), shutil.which("ns")) == order, n


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 not installed (apt-get install ns2)")
def test_ns2_runs_are_cached_by_their_program_and_read_back(tmp_path, monkeypatch):
    monkeypatch.setattr(ns2_baselines, "SEED_CACHE", tmp_path)
    row = next(r for r in etcp_ns2.ROWS if r.rate_bps == 10e6 and r.protocol == "NewReno")
    sc = dict(etcp_ns2.scenario(row, 1), duration_s=5.0, warmup_s=1.0)
    first, _ = ns2_baselines.run_ns2(sc, row.rate_bps, shutil.which("ns"), row.id, cache=True)
    files = list(tmp_path.glob("*.json"))
    assert len(files) == 1 and json.loads(files[0].read_text())["metrics"] == first
    # Read back without running ns (a missing binary would fail the run).
    again, _ = ns2_baselines.run_ns2(sc, row.rate_bps, "/nonexistent/ns", row.id, cache=True)
    assert again == first
    # Another program (here another seed) is another entry; cache=False never reads it.
    ns2_baselines.run_ns2(dict(sc, seed=2), row.rate_bps, shutil.which("ns"), row.id, cache=True)
    assert len(list(tmp_path.glob("*.json"))) == 2
    with pytest.raises(FileNotFoundError):
        ns2_baselines.run_ns2(sc, row.rate_bps, "/nonexistent/ns", row.id)


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 not installed (apt-get install ns2)")
def test_gwa_spread_reports_each_seed_and_welchs_t(monkeypatch):
    import math
    import statistics

    monkeypatch.setitem(gwa_compare.SETTINGS, "gwa-lan", dict(gwa_compare.SETTINGS["gwa-lan"], dur=4.0, warm=1.0))
    doc = gwa_compare.spread("gwa-lan", "droptail", 60, [1, 2, 3])
    assert doc["seeds"] == [1, 2, 3] and len(doc["per_seed"]["ns2"]) == len(doc["per_seed"]["ccsim"]) == 3
    a = [x["drop_prob"] for x in doc["per_seed"]["ns2"]]
    b = [x["drop_prob"] for x in doc["per_seed"]["ccsim"]]
    st = doc["stats"]["drop_prob"]
    assert st["ns2_mean"] == pytest.approx(statistics.fmean(a)) and st["ccsim_sd"] == pytest.approx(statistics.stdev(b))
    se = math.sqrt(statistics.variance(a) / 3 + statistics.variance(b) / 3)
    assert st["welch_t"] == pytest.approx((statistics.fmean(b) - statistics.fmean(a)) / se)


def test_gwa_ties_variants_offset_only_the_host_links():
    from validation import gwa_ties

    st = gwa_compare.SETTINGS["gwa-lan"]
    base = gwa_compare.scenario(st, "droptail", 30, seed=1)
    assert gwa_ties.variant(json.loads(json.dumps(base)), "as_run") == base
    off = gwa_ties.variant(json.loads(json.dumps(base)), "offsets")
    hosts = [i for i, x in enumerate(base["topology"]["links"]) if x["to"] == "r0"]
    assert len(hosts) == st["n"]
    for k, i in enumerate(hosts):
        assert off["topology"]["links"][i]["delay_s"] - base["topology"]["links"][i]["delay_s"] == pytest.approx((k + 1) * 1e-11)
    others = [i for i in range(len(base["topology"]["links"])) if i not in hosts]
    assert all(off["topology"]["links"][i] == base["topology"]["links"][i] for i in others)


def test_seed_stats_pair_the_seeds_and_need_both_sides():
    import math
    import statistics

    base = {"utilisation": 0.5, "loss_rate": 1e-4, "retransmits": 100.0, "timeouts": 10.0, "jain": 0.9}
    ns2 = [dict(base, timeouts=t) for t in (10.0, 20.0, 30.0)]
    cc = [dict(base, timeouts=t) for t in (12.0, 21.0, 33.0)]
    st = ns2_baselines.seed_stats({"ns2_seeds": ns2, "ccsim_seeds": cc})["timeouts"]
    assert st["ns2_mean"] == 20.0 and st["ccsim_mean"] == 22.0
    d = [2.0, 1.0, 3.0]
    assert st["paired_t"] == pytest.approx(2.0 / (statistics.stdev(d) / math.sqrt(3)))
    assert st["welch_t"] == pytest.approx(2.0 / math.sqrt((100.0 + statistics.variance([12, 21, 33])) / 3))
    # equal seeds give t 0, not a division by zero
    assert ns2_baselines.seed_stats({"ns2_seeds": ns2, "ccsim_seeds": ns2})["utilisation"]["paired_t"] == 0.0
    assert ns2_baselines.seed_stats({"ns2_seeds": ns2}) == {}
    assert ns2_baselines.seed_stats({"ns2_seeds": ns2[:1], "ccsim_seeds": cc[:1]}) == {}


# validation/ns2_trace.py: a benchmark row event by event in both.
from validation import ns2_trace  # noqa: E402


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 not installed (apt-get install ns2)")
def test_b3_in_ns2_mode_with_ns2s_clock_is_ns2s_trace(tmp_path):
    # 50 NewReno flows started together: every bottleneck event (+ - r d)
    # of ns-2.35's run, in ns-2's order, with ns-2's floating-point clock
    same, ns2, cc = ns2_trace.compare("B3", 3.0, 1, True, str(tmp_path))
    assert len(ns2) > 10_000 and same == len(ns2) == len(cc)
    # with exact ties and no clock the two part at 0.52 s
    same, ns2, cc = ns2_trace.compare("B3", 3.0, 1, False, str(tmp_path))
    assert same < len(ns2) and ns2[same][1] == 524_680
