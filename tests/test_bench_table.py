"""`ccsim bench`'s table shows events per bottleneck packet."""
import ccsim.bench as bench
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


def test_rounds_interleave_the_rows_and_keep_each_ones_fastest(monkeypatch):
    walls = {"B5": [4.0, 3.0, 5.0], "E1": [2.0, 2.5, 1.5]}
    ran = []

    def fake(name, quick):
        ran.append(name)
        return _row(name=name, wall_s=walls[name].pop(0), bottleneck_pkts_per_s=1.0)

    monkeypatch.setattr(bench, "run_isolated", fake)
    rows = bench.run_all(["B5", "E1"], rounds=3)
    assert ran == ["B5", "E1"] * 3
    assert [(r["name"], r["wall_s"], r["rounds"]) for r in rows] == [("B5", 3.0, 3), ("E1", 1.5, 3)]
    assert rows[0]["round_walls_s"] == [3.0, 4.0, 5.0] and rows[1]["round_walls_s"] == [1.5, 2.0, 2.5]


def test_cli_rounds_names_each_round_in_its_progress_lines(monkeypatch, capsys):
    # `ccsim bench --rounds 2` once looked its progress label up as a
    # benchmark name ("B5 (round 1/2)") and failed with a KeyError.
    from ccsim.cli import main

    monkeypatch.setattr(bench, "run_isolated", lambda name, quick: _row(name=name, wall_s=1.0))
    assert main(["bench", "--rounds", "2", "B5", "E1"]) == 0
    err = capsys.readouterr().err
    assert [line.split(":")[0] for line in err.splitlines()] == [
        "running B5 (round 1/2)", "running E1 (round 1/2)", "running B5 (round 2/2)", "running E1 (round 2/2)"]


def _differences(a, b, path=""):
    """The paths at which two scenario dicts differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in _differences(a.get(k), b.get(k), f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [path]


def test_own_dumbbells_differ_from_their_rows_only_in_the_mechanism():
    # vs_own_pkts means "the mechanism's cost" only while the two rows share
    # network, flow count, RTTs, pacing and duration.
    allowed = {
        "X1": {".name", ".topology.bottleneck_queue.xcp", ".flows[0].cc"},
        "G1": {".name", ".topology.bottleneck_queue.kind", ".topology.bottleneck_queue.gwa", ".flows[0].gwa"},
        "R1": {".name", ".topology.bottleneck_queue.kind", ".topology.bottleneck_queue.bytes",
               ".topology.bottleneck_queue.min_th_pkts", ".topology.bottleneck_queue.max_th_pkts",
               ".topology.bottleneck_queue.w_q", ".topology.bottleneck_queue.max_p",
               ".topology.bottleneck_queue.ecn", ".flows[0].ecn"},
    }
    for name, paths in allowed.items():
        own = bench.BENCHMARKS[name].own
        diff = set(_differences(bench.scenario(name).to_dict(), bench.scenario(own).to_dict()))
        assert ".name" in diff and diff <= paths, (name, own, sorted(diff - paths))


def test_vs_own_pkts_is_a_rows_packet_rate_over_its_own_dumbbells():
    rows = [_row(name="B3", bottleneck_pkts_per_s=4.0e6), _row(name="X1", bottleneck_pkts_per_s=2.0e6),
            _row(name="X1-dt", bottleneck_pkts_per_s=2.5e6), _row(name="G1", bottleneck_pkts_per_s=2.2e6)]
    bench.add_controller_ratios(rows)
    by = {r["name"]: r for r in rows}
    assert by["X1"]["vs_own_pkts"] == 0.8 and by["X1"]["vs_B3_pkts"] == 0.5
    assert "vs_own_pkts" not in by["G1"], "G1-dt did not run"
    assert "vs_own_pkts" not in by["X1-dt"] and "vs_B3_pkts" not in by["X1-dt"]
    line = next(line for line in format_table(rows).splitlines() if line.startswith("X1 "))
    assert line.endswith("vs B3 pkts/s 0.50 vs X1-dt pkts/s 0.80")


def test_scale_rows_report_packet_rate_against_s0_and_the_memory_slope():
    rows = [_row(name="S0", bottleneck_pkts_per_s=4.0e6, run_peak_rss_mb=25.0, peak_rss_mb=26.0, packet_slots=20_000),
            _row(name="S1", bottleneck_pkts_per_s=2.0e6, run_peak_rss_mb=30.0, peak_rss_mb=40.0, packet_slots=30_000),
            _row(name="S2", bottleneck_pkts_per_s=1.0e6, run_peak_rss_mb=80.0, peak_rss_mb=140.0, packet_slots=60_000)]
    bench.add_scale_ratios(rows)
    s0, s1, s2 = rows
    assert "vs_S0_pkts" not in s0 and "bytes_per_flow" not in s0
    assert s1["vs_S0_pkts"] == 0.5 and s2["vs_S0_pkts"] == 0.25
    # slope of the run's peak from the row with the next fewer flows, the slab's growth taken out
    assert s1["bytes_per_flow_from"] == "S0" and s2["bytes_per_flow_from"] == "S1"
    assert s1["bytes_per_flow"] == (5.0 * 2**20 - 10_000 * bench.SLOT_BYTES) / 990
    assert s2["bytes_per_flow"] == (50.0 * 2**20 - 30_000 * bench.SLOT_BYTES) / 9000
    assert s2["results_bytes_per_flow"] == (60.0 - 10.0) * 2**20 / 9000
    assert s2["peak_bytes_per_flow"] == s2["bytes_per_flow"] + s2["results_bytes_per_flow"]
    assert "vs S0 pkts/s 0.25" in format_table(rows) and "; from S1)" in format_table(rows)


def test_scale_rows_buffers_follow_bdp_over_root_n_and_the_parking_lot_splits_its_flows():
    assert [bench.BENCHMARKS[n].buffer_pkts for n in ("S0", "S1", "S2", "S3", "S4")] == [15811, 1581, 500, 1581, 707]
    d = bench.scenario("S4").to_dict()
    assert d["topology"]["kind"] == "parking_lot" and d["topology"]["n_links"] == 3
    assert [(f["count"], f["hops"]) for f in d["flows"]] == [(2500, [0, 2]), (2500, [0, 0]), (2500, [1, 1]),
                                                              (2500, [2, 2])]
    d = bench.scenario("S2-newreno").to_dict()
    assert (d["flows"][0]["count"], d["flows"][0]["cc"], d["flows"][0]["recovery"]) == (10000, "reno", "newreno")
    # the engine accepts every row (S3's 100,000 flows are built by the bench, not here)
    from ccsim._native import core, dumps
    for name in ("S0", "S1", "S4"):
        core().Simulation(dumps(bench.scenario(name, quick=True).to_dict()))


def test_a_scale_rows_memory_is_read_on_its_first_repeat(monkeypatch):
    """A repeated S row reads its memory on the first repeat: later ones
    build their engine beside the previous repeat's results, and S0 (which
    repeats) then read 12 MB more than S1 (which does not)."""
    readings = iter(range(1, 1000))
    monkeypatch.setattr(bench, "_peak_rss_mb", lambda usage: float(next(readings)))
    monkeypatch.setattr(bench, "MIN_TOTAL_S", 1e9)
    monkeypatch.setattr(bench, "MAX_REPEATS", 3)
    row = bench.run_one("S0", quick=True)
    assert row["repeats"] == 3
    # the first repeat's two readings: after its run, after its results
    assert (row["run_peak_rss_mb"], row["peak_rss_mb"]) == (1.0, 2.0)
