"""The results' flows and links tables as columns (ccsim.tables,
crates/ccsim-py/src/columns.rs): a run's tables read as columns must be,
key for key, type for type and in the same order, the rows of the JSON
document the engine writes for the same run, in every configuration; and
everything built on them (DataFrames, files) must be the same."""

from __future__ import annotations

import json
import pickle

import pandas as pd
import pytest

import ccsim
from ccsim import fuzz
from ccsim._native import core, dumps, validate
from ccsim.experiments import gwa
from ccsim.results import Results
from ccsim.scenario import as_scenario_dict
from ccsim.tables import RowTable, RowView, plain

from conftest import small_scenario


def _both(sc):
    """The same run's results through the JSON document and as columns."""
    text = dumps(validate(as_scenario_dict(sc)))
    a = Results(core().Simulation(text).finish())
    b = Results.from_engine(core().Simulation(text).finish_columns(), plain_up_to=0)
    for r in (a, b):
        r.raw.pop("wall_s", None)
        r.raw.pop("cpu_s", None)
    return a, b


def _same(a: Results, b: Results) -> None:
    assert isinstance(b.raw["flows"], RowTable) and isinstance(b.raw["links"], RowTable)
    # the whole document, written out: keys in the same order, the same
    # values of the same JSON types
    assert json.dumps(plain(b.raw)) == json.dumps(a.raw)
    for k in ("flows", "links"):
        for x, y in zip(a.raw[k], b.raw[k]):
            assert list(x) == list(y)
            assert [type(v) for v in x.values()] == [type(v) for v in y.values()]
    assert b.raw == a.raw and a.raw == b.raw
    pd.testing.assert_frame_equal(a.flows, b.flows)
    pd.testing.assert_frame_equal(a.links, b.links)
    pd.testing.assert_frame_equal(a.qdelay_classes, b.qdelay_classes)
    assert a.file_summary(max_rows=3) == b.file_summary(max_rows=3)
    assert a.headline() == b.headline() and a.table() == b.table()


def _features():
    """Scenarios whose rows have every optional field: E-TCP (loss_est,
    rate_pps), GWA-TCP (awnd_pkts), Telnet (app_delay_*), UDP (null
    final_cwnd), web transfers, and queueing delay per class (DualPI2's
    qdelay_classes), beside random scenarios of the fuzzer (ccsim.fuzz:
    queues, transports, losses and ECN drawn at random)."""
    web = small_scenario()
    d = as_scenario_dict(web)
    d["flows"] = [{"count": 20, "app": "web", "rtt_range_s": [0.01, 0.05], "start_spread_s": 0.2},
                  {"transport": "udp", "rate_bps": 2e6, "rtt_s": 0.02},
                  {"transport": "etcp", "variant": "rate", "rtt_s": 0.03}]
    d["duration_s"] = 2.0
    out = {"web+udp": d,
           "gwa-lan-telnet": dict(as_scenario_dict(gwa.LAN.scenario("t", "GWA-RR", 30)), duration_s=3.0,
                                  warmup_s=1.0)}
    dq = as_scenario_dict(small_scenario())
    dq["topology"]["bottleneck_queue"] = {"kind": "dualpi2", "limit_pkts": 200}
    dq["flows"] = [{"cc": "prague", "ecn_feedback": "accecn", "count": 2}, {"cc": "cubic", "ecn": True}]
    dq["qdelay"] = True
    out["dualpi2-qdelay"] = dq
    # 320 links, all names distinct: past columns.rs's PROBE of 256 the
    # names column appends without coding
    many = as_scenario_dict(small_scenario())
    many["flows"] = [{"count": 80, "rtt_range_s": [0.01, 0.05], "start_spread_s": 0.1}]
    many["duration_s"] = 0.5
    out["many-links"] = many
    for i in range(24):
        out[f"fuzz-{i}"] = fuzz.scenario(7, i)
    return out


FEATURES = _features()


@pytest.mark.parametrize("name", list(FEATURES))
def test_columns_are_the_json_documents_rows(name):
    a, b = _both(FEATURES[name])
    _same(a, b)


def test_every_optional_field_is_met():
    # the scenarios above reach the skipped and the null fields, so the
    # comparisons check the columns' absent and null rows
    keys = {k: set() for k in ("flows", "links")}
    for sc in FEATURES.values():
        _, b = _both(sc)
        for k in keys:
            for row in b.raw[k]:
                keys[k].update(row)
    assert {"loss_est", "rate_pps", "awnd_pkts", "app_delay_count", "app_delay_mean_s"} <= keys["flows"]
    assert {"qdelay_p50_s", "qdelay_classes"} <= keys["links"]


def test_a_row_reads_as_a_read_only_mapping():
    text = dumps(validate(as_scenario_dict(small_scenario())))
    res = Results.from_engine(core().Simulation(text).finish_columns(), plain_up_to=0)
    flows = res.raw["flows"]
    assert isinstance(flows, RowTable) and len(flows) == 2
    row = flows[-1]
    assert isinstance(row, RowView) and row["id"] == 1 and flows[1] == row
    assert [r["id"] for r in flows[:5]] == [0, 1]
    with pytest.raises(IndexError):
        flows[2]
    with pytest.raises(KeyError):
        row["loss_est"]  # a field this flow leaves out
    assert "loss_est" not in row and row.get("loss_est", "none") == "none"
    with pytest.raises(TypeError):
        row["id"] = 5  # type: ignore[index]
    assert flows.column("id") == [0, 1]
    assert flows.dicts() == [dict(r) for r in flows]
    # pickles (sweep workers and Dask move results between processes)
    again = pickle.loads(pickle.dumps(res))
    assert again.raw == res.raw and isinstance(again.raw["flows"], RowTable)
    assert json.loads(res.to_json())["flows"] == flows.dicts()


def test_a_run_gives_columns_only_for_large_tables():
    # a small run's tables are plain lists (json.dumps(res.raw) works); a
    # table of more than SUMMARY_MAX_ROWS rows is held as columns
    res = ccsim.run(small_scenario())
    assert type(res.raw["flows"]) is list and type(res.raw["links"]) is list
    json.dumps(res.raw)
    d = as_scenario_dict(small_scenario())
    d["flows"] = [{"count": 300, "start_spread_s": 0.5}]
    d["duration_s"] = 1.0
    big = ccsim.run(d)
    assert type(big.raw["flows"]) is list and len(big.raw["flows"]) == 300
    assert isinstance(big.raw["links"], RowTable) and len(big.raw["links"]) > 1000
    assert json.loads(big.to_json())["links"] == big.raw["links"]


def test_written_files_are_those_of_the_json_document(tmp_path):
    a, b = _both(FEATURES["fuzz-3"])
    a.write(tmp_path / "a")
    b.write(tmp_path / "b")
    for name in ("summary.json", "flows.parquet", "links.parquet"):
        if name.endswith(".json"):
            assert (tmp_path / "a" / name).read_text() == (tmp_path / "b" / name).read_text()
        else:
            pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "a" / name), pd.read_parquet(tmp_path / "b" / name))
