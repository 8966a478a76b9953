"""`ccsim bench`'s table shows events per bottleneck packet (issue 13)."""
from ccsim.bench import format_table


def _row(**kw):
    r = {"name": "B1", "wall_s": 0.05, "events": 1_073_677, "events_per_s": 2.1e7,
         "bottleneck_pkts_per_s": 3.3e6, "peak_rss_mb": 20.0, "utilization": 0.23,
         "loss_rate": 3.1e-4, "events_per_bottleneck_pkt": 6.5}
    r.update(kw)
    return r


def test_table_has_events_per_bottleneck_packet_column():
    lines = format_table([_row(), _row(name="B3", events_per_bottleneck_pkt=6.94)]).splitlines()
    assert "ev/pkt" in lines[0].split()
    col = lines[0].split().index("ev/pkt")
    assert lines[1].split()[col] == "6.50"
    assert lines[2].split()[col] == "6.94"


def test_table_row_without_bottleneck_packets_shows_nan():
    lines = format_table([_row(events_per_bottleneck_pkt=float("nan"))]).splitlines()
    col = lines[0].split().index("ev/pkt")
    assert lines[1].split()[col] == "nan"
