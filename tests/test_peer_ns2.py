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


# validation/gwa_compare.py: the GWA paper's DropTail/RED/ECN rows in both.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from validation import gwa_compare  # noqa: E402


def test_gwa_rows_map_the_same_network_to_both_simulators():
    st = gwa_compare.SETTINGS["gwa-many-flows"]
    sc = gwa_compare.scenario(st, "ecn", 240, seed=2)
    bneck = sc["topology"]["links"][0]
    assert (bneck["from"], bneck["to"], bneck["rate_bps"]) == ("r0", "r1", 10e6)
    q = bneck["queue"]
    assert (q["min_th"], q["max_th"], q["max_p"], q["gentle"], q["ecn_mark_above_max"]) == (20, 60, 0.1, False, True)
    tcl = gwa_compare.tcl_params(st, "ecn", 240, 2, "/tmp/x.tr")
    taus, _ = gwa_compare.draw(st, 2)
    # the same tau_i on both sides, inside the paper's 1-10 ms
    assert all(0.001 <= t <= 0.01 for t in taus)
    assert [ln["delay_s"] for ln in sc["topology"]["links"][1::2]] == taus
    assert f"set tau(99) {taus[99]!r}" in tcl and "set buf 240" in tcl
    assert len(sc["flows"]) == 100 and all(f["ecn"] and f["rwnd_pkts"] == 512 for f in sc["flows"])


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
