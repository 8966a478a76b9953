"""benches/flow_sweep.py: S2's dumbbell with the number of flows swept, run
short with the installed engine."""

import importlib.util
import json
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[1] / "benches" / "flow_sweep.py"
spec = importlib.util.spec_from_file_location("flow_sweep", _PATH)
flow_sweep = importlib.util.module_from_spec(spec)
spec.loader.exec_module(flow_sweep)


def test_points_are_s2_with_n_flows(tmp_path):
    out = tmp_path / "sweep.json"
    assert flow_sweep.main(["--flows", "10,40", "--duration", "0.3", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert [r["flows"] for r in rows] == [10, 40]
    from ccsim.bench import BENCHMARKS, scale_buffer_pkts

    # The buffer is S0/S2's BDP/sqrt(N) rule at each point.
    assert rows[0]["buffer_pkts"] == BENCHMARKS["S0"].buffer_pkts == scale_buffer_pkts(10e9, 10)
    assert rows[1]["buffer_pkts"] == scale_buffer_pkts(10e9, 40)
    for r in rows:
        assert r["bottleneck_pkts"] > 0 and r["wall_s"] > 0
        assert r["ns_per_bottleneck_pkt"] == pytest.approx(r["wall_s"] / r["bottleneck_pkts"] * 1e9)
    # The first point is the reference.
    assert rows[0]["vs_first_pkts"] == 1.0 and rows[0]["extra_ns_per_pkt"] == 0.0
    assert rows[1]["vs_first_pkts"] == pytest.approx(
        rows[1]["bottleneck_pkts_per_s"] / rows[0]["bottleneck_pkts_per_s"])


def test_same_point_same_packets():
    # Deterministic work: a point's packets do not depend on the run.
    a, b = flow_sweep.point(20, 0.2), flow_sweep.point(20, 0.2)
    assert a["bottleneck_pkts"] == b["bottleneck_pkts"] and a["events_per_bottleneck_pkt"] == b["events_per_bottleneck_pkt"]


@pytest.mark.parametrize("args, msg", [
    (["--flows", "10,x"], "not a comma-separated list of flow counts"),
    (["--flows", "0"], "at least 1"),
    (["--duration", "0"], "--duration: 0.0 is not allowed"),
])
def test_bad_input_is_named(args, msg, capsys):
    with pytest.raises(SystemExit):
        flow_sweep.main(args)
    assert msg in capsys.readouterr().err
