"""benches/peer_ns2.py: the ns-2 mapping of the benchmark dumbbells, and
(when ns-2.35 is installed) one short row run in both simulators."""

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

from ccsim.bench import scenario

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
    assert "$ns queue-limit $r1 $r2 20" in tcl
    assert "Agent/TCP/Newreno" in tcl and "packetSize_ 1040" in tcl
    sack = peer.ns2_script(scenario("B5").to_dict())
    assert "Agent/TCP/Sack1" in sack and "Agent/TCPSink/Sack1" in sack and "2400000000.0bps" in sack


def test_unmappable_scenarios_are_refused():
    d = scenario("E1").to_dict()
    with pytest.raises(ValueError, match="only one-entry Reno dumbbells"):
        peer.ns2_script(d)


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 not installed (apt-get install ns2)")
def test_short_row_in_both_simulators():
    row = peer.measure("B1", quick=True, ns=shutil.which("ns"))
    # Same scenario, same work: the bottleneck carried nearly the same
    # number of packets in both (the recoveries differ in detail).
    assert row.ns2_pkts > 0 and row.ccsim_pkts > 0
    assert abs(row.ccsim_pkts - row.ns2_pkts) / row.ns2_pkts < 0.1
    assert row.ratio > 0
