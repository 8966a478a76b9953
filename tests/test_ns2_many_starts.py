"""validation/ns2_many_starts.py: NewReno dumbbells whose flows all start
at once, in ns-2.35 and ccsim's ns-2 mode (docs/validation.md, "ns-2 mode
with many simultaneous starts")."""

import shutil

import pytest

from validation import ns2_many_starts as many
from validation.ns2_baselines import tcl


def test_cases_map_to_ns2s_queue_limit_and_the_default_edges():
    sc = many.scenario(many.CASES["50"], 1)
    topo = sc["topology"]
    # ns-2's queue-limit 20 holds 19 waiting plus the one being sent
    assert topo["bottleneck_queue"]["limit_pkts"] == 19 and topo["bottleneck_queue"]["ties"] == "arrival_first"
    assert (topo["edge_rate_bps"], topo["edge_delay_s"], topo["bottleneck_delay_s"]) == (100e9, 0.005, 0.040)
    assert len(sc["flows"]) == 50 and all(f["tcp_model"] == "ns2" and f["start_s"] == 0.0 for f in sc["flows"])
    prog = tcl(sc)
    assert "$ns queue-limit $r0 $r1 20\n" in prog and "1000000000.0bps 0.04s" in prog
    assert "$ns duplex-link $s(49) $r0 100000000000.0bps 0.005s DropTail" in prog
    assert "$tcp(49) set packetSize_ 1000" in prog and "Agent/TCP/Newreno" in prog


def test_ns2s_int_counters_are_unwrapped():
    # 7.8 GB sent in 60 s at 1 Gb/s, read every second (125 MB apart)
    true = [i * 125_000_000 for i in range(61)]
    printed = [(x + 2**31) % 2**32 - 2**31 for x in true]
    assert min(printed) < 0 and many.unwrap(printed) == true[-1]
    assert many.unwrap([5, 7, 9]) == 9


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 not installed (apt-get install ns2)")
def test_a_tie_ns2s_clock_breaks_decides_the_first_drop_with_50_starts(tmp_path):
    # 50 flows at once, 1 Gb/s, queue-limit 20: two back-to-back arrivals
    # of flow 0 and a departure share 0.505171 s; ns-2's double clock runs
    # the departure before the first arrival and drops segment 50, ccsim's
    # arrival_first drops 49. With ns-2's clock ccsim is ns-2's run.
    base = many.scenario(many.Case(50, 1e9, 20, 1.0), 1)
    ns2, cc, div = many.compare(base, ["plain", "clock"], shutil.which("ns"), str(tmp_path), 1.0)
    d = div["plain"]
    assert d["at_s"] == pytest.approx(0.505171) and d["ns2"][3] == ["d", 505171, "tcp", 0, "50"]
    assert d["ccsim"][3] == ["d", 505171, "tcp", 0, "49"]
    assert div["clock"]["identical"] == div["clock"]["ns2_events"] == div["clock"]["ccsim_events"] > 2000
    assert many.identical(ns2, cc["clock"], div["clock"])


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 not installed (apt-get install ns2)")
def test_ns2s_tick_phases_set_a_timeout_with_10_starts(tmp_path):
    # 10 flows, 100 Mb/s, queue-limit 50, a 100 ms one-way bottleneck: with
    # ccsim's own tick phases flow 8's retransmission after its first
    # timeout leaves one 10 ms tick later than ns-2's (1.758252 s against
    # 1.748252 s); with each agent's boot_time_ drawn as ns-2 draws it the
    # traces agree to the end of the run (3 s).
    base = many.scenario(many.Case(10, 100e6, 50, 3.0), 1, delay_s=0.100)
    _, _, div = many.compare(base, ["plain", "phases"], shutil.which("ns"), str(tmp_path), 3.0)
    d = div["plain"]
    assert d["at_s"] == pytest.approx(1.748252) and d["ns2"][3][:4] == ["+", 1748252, "tcp", 8]
    assert d["ccsim"][3][:4] == ["+", 1758252, "tcp", 8]
    assert div["phases"]["identical"] == div["phases"]["ns2_events"] == div["phases"]["ccsim_events"]
