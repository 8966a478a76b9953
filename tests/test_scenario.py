"""Scenario builder: round trips, overrides, and the engine's field-named errors."""

from __future__ import annotations

import json

import pytest

import ccsim
from ccsim import _native
from ccsim.scenario import (
    CustomTopology,
    DropTail,
    Flow,
    Link,
    Queue,
    Scenario,
    UserError,
    load_scenario,
    with_overrides,
)

from conftest import example_scenarios, small_scenario


@pytest.mark.parametrize("sc", example_scenarios(), ids=lambda s: s.name)
@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_round_trip(tmp_path, sc, suffix):
    path = sc.save(tmp_path / f"s{suffix}")
    back = load_scenario(path)
    assert back == sc
    assert back.to_dict() == sc.to_dict()
    # The engine sees the same scenario whichever way it travelled.
    assert back.normalized() == sc.normalized()


def test_toml_layout_is_hand_editable(small):
    text = small.to_toml()
    assert "[[flows]]" in text and "[topology]" in text and "[topology.bottleneck_queue]" in text
    assert text.index("kind = \"dumbbell\"") < text.index("bottleneck_rate_bps")


def test_to_dict_omits_none():
    d = Flow(cc="reno").to_dict()
    assert d == {"cc": "reno"}
    link = Link(from_="a", to="b").to_dict()
    assert link == {"from": "a", "to": "b"}


def test_unknown_keys_pass_through_to_engine():
    d = small_scenario().to_dict()
    d["flows"][0]["cwnd_typo"] = 3
    sc = Scenario.from_dict(d)
    assert sc.flows[0].extra == {"cwnd_typo": 3}
    assert sc.to_dict() == d
    with pytest.raises(ValueError) as err:
        sc.normalized()
    assert "scenario.flows[0]" in str(err.value) and "cwnd_typo" in str(err.value)


def test_normalized_fills_defaults(small):
    norm = small.normalized()
    assert norm["seed"] == 1
    assert norm["warmup_s"] == 0
    # the rfc personality's defaults: SACK, IW 10, Linux's delayed ACKs (200 ms at most)
    f = norm["flows"][0]
    assert (f["tcp_model"], f["recovery"], f["init_cwnd_pkts"]) == ("rfc", "sack", 10)
    assert (f["delayed_ack"], f["delack_model"], f["delack_timeout_s"]) == (True, "linux", 0.2)
    assert norm["topology"]["edge_rate_bps"] == 100e9
    # ns-2.35's: NewReno, IW 2, an ACK per segment (DelAckSink's fixed 100 ms timer if asked)
    g = small.replace(flows=[Flow(tcp_model="ns2")]).normalized()["flows"][0]
    assert (g["recovery"], g["init_cwnd_pkts"], g["delayed_ack"]) == ("newreno", 2, False)
    assert (g["delack_model"], g["delack_timeout_s"]) == ("fixed", 0.1)


def test_with_overrides():
    d = small_scenario().to_dict()
    out = with_overrides(d, {"topology.bottleneck_rate_bps": 1e8, "flows.0.cc": "reno",
                             "flows.*.rtt_s": 0.05, "topology.edge_queue.limit_pkts": 5,
                             "flows.0.cc_params.alpha": 2})
    assert out["topology"]["bottleneck_rate_bps"] == 1e8
    assert out["flows"][0]["rtt_s"] == 0.05
    assert out["topology"]["edge_queue"] == {"limit_pkts": 5}
    assert out["flows"][0]["cc_params"] == {"alpha": 2}
    assert d["topology"]["bottleneck_rate_bps"] == 10e6  # input untouched
    with pytest.raises(UserError, match="out of range"):
        with_overrides(d, {"flows.3.cc": "reno"})
    with pytest.raises(UserError, match="list index"):
        with_overrides(d, {"flows.x.cc": "reno"})
    with pytest.raises(UserError):
        with_overrides(d, {"flows..cc": "reno"})


def test_replace(small):
    sc = small.replace({"flows.0.count": 4}, seed=9, flows=[Flow(count=1), Flow(count=2)])
    assert sc.seed == 9
    assert [f.count for f in sc.flows] == [4, 2]
    assert small.seed is None and small.flows[0].count == 2


def test_load_errors(tmp_path):
    with pytest.raises(UserError, match="no such file"):
        load_scenario(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("duration_s = [\n")
    with pytest.raises(UserError, match="invalid TOML"):
        load_scenario(bad)
    (tmp_path / "x.yaml").write_text("a: 1")
    with pytest.raises(UserError, match="unsupported"):
        load_scenario(tmp_path / "x.yaml")


def _custom_missing_link():
    return Scenario(
        duration_s=1.0,
        topology=CustomTopology(
            nodes=["a", "b", "c"],
            links=[Link(from_="a", to="b", rate_bps=1e7, delay_s=0.01, queue=DropTail(limit_pkts=10)),
                   Link(from_="b", to="c", rate_bps=1e7, delay_s=0.01, queue=DropTail(limit_pkts=10))]),
        flows=[Flow(route=["a", "c"])],
    ).to_dict()


INVALID = [
    ("negative rate", {"topology.bottleneck_rate_bps": -1e6}, "scenario.topology.bottleneck_rate_bps"),
    ("zero buffer", {"topology.bottleneck_queue.limit_pkts": 0}, "scenario.topology.bottleneck_queue.limit_pkts"),
    ("unknown cc", {"flows.0.cc": "cubicc"}, "scenario.flows[0].cc"),
    ("unknown recovery", {"flows.0.recovery": "tahoe2"}, "scenario.flows[0].recovery"),
    ("negative duration", {"duration_s": -1}, "scenario.duration_s"),
    ("warmup past end", {"warmup_s": 5.0}, "scenario.warmup_s"),
    ("loss of one", {"topology.bottleneck_loss": 1.0}, "scenario.topology.bottleneck_loss"),
    ("zero count", {"flows.0.count": 0}, "scenario.flows[0].count"),
    ("unknown ect", {"flows.0.ecn": True, "flows.0.ect": "ect2"}, "scenario.flows[0].ect"),
    ("ect1 without ecn", {"flows.0.ect": "ect1"}, "scenario.flows[0].ect"),
]


@pytest.mark.parametrize("what,overrides,field", INVALID, ids=[i[0] for i in INVALID])
def test_invalid_scenarios_name_the_field(what, overrides, field):
    d = with_overrides(small_scenario().to_dict(), overrides)
    with pytest.raises(ValueError) as err:
        _native.core().validate(json.dumps(d))
    assert field in str(err.value)
    # The public entry points report the same message, as a UserError.
    with pytest.raises(UserError) as err2:
        ccsim.run(d)
    assert field in str(err2.value)


def test_an_ect1_flow_through_dualpi2_normalises_and_runs():
    sc = small_scenario().replace({"topology.bottleneck_queue": ccsim.DualPI2().to_dict()})
    sc.flows[0].ecn, sc.flows[0].ect = True, "ect1"
    assert Flow.from_dict(sc.flows[0].to_dict()).ect == "ect1"
    norm = sc.normalized()
    assert norm["flows"][0]["ect"] == "ect1" and norm["topology"]["bottleneck_queue"] == {"kind": "dualpi2"}
    assert small_scenario().normalized()["flows"][0]["ect"] == "ect0"
    res = ccsim.run(sc.replace(duration_s=2.0))
    assert res.flows["goodput_bps"].gt(0).all() and int(res.links["marks"].sum()) > 0


def test_unknown_cc_lists_allowed():
    d = with_overrides(small_scenario().to_dict(), {"flows.0.cc": "cubicc"})
    with pytest.raises(UserError) as err:
        Scenario.from_dict(d).normalized()
    msg = str(err.value)
    assert "cubicc" in msg and "reno" in msg


def test_route_through_missing_link():
    with pytest.raises(UserError) as err:
        ccsim.run(_custom_missing_link())
    assert "scenario.flows[0].route" in str(err.value)


def test_queue_passthrough_params():
    q = Queue.from_dict({"kind": "red", "limit_pkts": 50, "min_thresh_pkts": 5})
    assert q.kind == "red" and q.extra == {"min_thresh_pkts": 5}
    assert q.to_dict() == {"kind": "red", "limit_pkts": 50, "min_thresh_pkts": 5}


def test_red_helper_writes_a_flat_red_table():
    from ccsim.scenario import RED

    q = RED(limit_pkts=120, min_th_pkts=10, max_th_pkts=30, ecn=True, ecn_mark_above_max=True)
    d = q.to_dict()
    assert d["kind"] == "red" and d["limit_pkts"] == 120
    assert d["min_th_pkts"] == 10 and d["max_th_pkts"] == 30 and d["ecn"] is True and d["ecn_mark_above_max"] is True
    assert "extra" not in d


AQM_BUILDERS = {
    "codel": ("CoDel", {"limit_pkts": 200, "target_s": 0.01, "interval_s": 0.15, "mtu_bytes": 1500, "ecn": True}),
    "pie": ("PIE", {"limit_bytes": 150_000, "target_s": 0.02, "tupdate_s": 0.03, "alpha": 0.125, "beta": 1.25,
                    "max_burst_s": 0.1, "derandomize": False, "cap_drop_adjustment": True,
                    "estimator": "dequeue_rate", "dq_threshold_bytes": 16384, "mean_pktsize": 1040, "ecn": True,
                    "mark_ecn_th": 0.1}),
    "fq_codel": ("FQCoDel", {"limit_pkts": 1000, "flows": 64, "exact_flows": False, "perturbation": 7,
                             "quantum_bytes": 1040, "drop_batch": 16, "target_s": 0.005, "interval_s": 0.1,
                             "mtu_bytes": 1040, "ecn": False}),
    "dualpi2": ("DualPI2", {"limit_pkts": 2000, "target_s": 0.02, "tupdate_s": 0.015, "alpha": 0.15, "beta": 3.0,
                            "step_thresh_s": 0.002, "min_qlen_step": 2, "coupling_factor": 2, "c_protection": 5,
                            "drop_overload": False, "ecn_mask": "any_ect", "mtu_bytes": 1040}),
}


@pytest.mark.parametrize("kind", sorted(AQM_BUILDERS))
def test_aqm_builders_take_the_engines_parameters(kind):
    import inspect

    name, _ = AQM_BUILDERS[kind]
    builder = getattr(ccsim, name)
    assert builder is getattr(ccsim.scenario, name) and name in ccsim.__all__ and name in ccsim.scenario.__all__
    # Every keyword the engine's KIND documents (but the link's `ties`), by its name.
    engine = {p["name"] for q in ccsim.catalog()["queues"] if q["name"] == kind for p in q["params"]} - {"ties"}
    sig = inspect.signature(builder)
    assert {p for p, v in sig.parameters.items() if v.kind is not v.VAR_KEYWORD} == engine
    assert f"RFC {dict(codel=8289, pie=8033, fq_codel=8290, dualpi2=9332)[kind]}" in builder.__doc__


@pytest.mark.parametrize("kind", sorted(AQM_BUILDERS))
def test_aqm_builders_normalise_through_the_engine(kind):
    name, params = AQM_BUILDERS[kind]
    builder = getattr(ccsim, name)
    assert builder().to_dict() == {"kind": kind}  # every default left to the engine
    q = builder(**params)
    assert q.to_dict() == {"kind": kind, **params}
    sc = small_scenario().replace({"topology.bottleneck_queue": q.to_dict()})
    assert sc.normalized()["topology"]["bottleneck_queue"] == {"kind": kind, **params}
    # and it runs: the default scenario with this discipline
    assert ccsim.run(sc.replace(duration_s=0.5)).flows["goodput_bps"].gt(0).all()


AQM_BAD = [
    ("CoDel", {"target_s": 0}, "target_s", "must be > 0 s"),
    ("CoDel", {"interval_s": -0.1}, "interval_s", "must be > 0 s"),
    ("CoDel", {"target": 0.005}, "target", "unknown field for queue kind \"codel\""),
    ("PIE", {"estimator": "rate"}, "estimator", "allowed: timestamp, dequeue_rate"),
    ("PIE", {"alpha": 200}, "alpha", "gain in Hz"),
    ("PIE", {"mark_ecn_th": 1.5}, "mark_ecn_th", "1.5"),
    ("FQCoDel", {"flows": 0}, "flows", "from 1 to 65536"),
    ("FQCoDel", {"quantum_bytes": 0}, "quantum_bytes", "0 is not allowed"),
    ("FQCoDel", {"exact_flows": "yes"}, "exact_flows", "exact_flows"),
    ("DualPI2", {"coupling_factor": 0.5}, "coupling_factor", "allowed: 1 to 255"),
    ("DualPI2", {"ecn_mask": "ect1"}, "ecn_mask", "allowed: l4s_ect, cla_ect, any_ect"),
    ("DualPI2", {"ecn": True}, "ecn", "unknown field for queue kind \"dualpi2\""),
]


@pytest.mark.parametrize("name,params,key,msg", AQM_BAD, ids=[f"{b[0]}-{b[2]}" for b in AQM_BAD])
def test_aqm_builders_bad_values_get_the_engines_named_error(name, params, key, msg):
    sc = small_scenario()
    sc.topology.bottleneck_queue = getattr(ccsim, name)(**params)
    with pytest.raises(UserError) as err:
        sc.normalized()
    assert str(err.value).startswith(f"scenario.topology.bottleneck_queue.{key}: ")
    assert msg in str(err.value)


def test_python_flow_is_the_engines_declaration():
    """ccsim.Flow holds exactly the engine's flow fields (declared once in
    `FlowSpec`, `ccsim list`'s ``flow_fields``), in their order, each with
    a Python type that takes the declared kind of value."""
    import dataclasses
    import typing

    declared = ccsim.catalog()["flow_fields"]
    py = [f for f in dataclasses.fields(ccsim.Flow) if f.name != "extra"]
    assert [f.name for f in py] == [d["name"] for d in declared]
    hints = typing.get_type_hints(ccsim.Flow)
    for d in declared:
        args = set(typing.get_args(hints[d["name"]])) - {type(None)}
        if d["values"] == "bool":
            assert args == {bool}, d["name"]
        elif d["values"].startswith('`"'):  # a named choice
            assert args == {str}, d["name"]
        elif d["values"].startswith("integer"):
            assert args == {int}, d["name"]
    # and every field the engine documents is one a Flow can set
    for d in declared:
        assert d["doc"] and d["values"], d["name"]
