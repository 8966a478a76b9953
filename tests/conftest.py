"""Shared helpers: small fast scenarios and the conservation check.

Every test that runs the engine calls :func:`assert_conserved` on what it
got back: packet conservation (created = delivered + dropped + in flight,
and the network walk agreeing with the packet pool) is the cheapest
independent check that a run did not lose or leak packets.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Union

import pytest

from ccsim.experiments import REGISTRY
from ccsim.scenario import CustomTopology, DropTail, Dumbbell, Flow, Link, ParkingLot, Scenario


def assert_conserved(results: Union[Any, Mapping[str, Any], str, Path]) -> None:
    """Assert packet conservation on a Results, a results dict, a results
    JSON file, a summary.json or a sweep cache file."""
    if isinstance(results, (str, Path)):
        results = json.loads(Path(results).read_text())
    raw = getattr(results, "raw", results)
    if "results" in raw and "conservation" not in raw:
        raw = raw["results"]
    c = raw["conservation"]
    assert c["created"] > 0, c
    assert c["created"] == c["delivered"] + c["dropped"] + c["in_flight"], c
    assert c["in_flight"] == c["live_in_pool"], c


def small_scenario(**top: Any) -> Scenario:
    """A dumbbell small enough to run in well under a second: 10 Mb/s,
    20-packet buffer, two Reno flows at 40 ms RTT, 3 s."""
    sc = Scenario(
        name="small",
        duration_s=3.0,
        sample_interval_s=0.1,
        topology=Dumbbell(bottleneck_rate_bps=10e6, bottleneck_delay_s=0.005,
                          bottleneck_queue=DropTail(limit_pkts=20)),
        flows=[Flow(count=2, cc="reno", rtt_s=0.04)],
    )
    return sc.replace(**top) if top else sc


def example_scenarios() -> list:
    """One scenario per topology kind (dumbbell, parking lot, custom), small."""
    return list(_examples())


def _examples():
    yield small_scenario()
    yield Scenario(
        name="lot", seed=7, duration_s=2.0, warmup_s=0.5,
        topology=ParkingLot(n_links=3, link_rate_bps=20e6, link_queue=DropTail(limit_pkts=30),
                            edge_queue=DropTail(limit_bytes=100000)),
        flows=[Flow(count=1, hops=[0, 2], rtt_s=0.1),
               Flow(count=2, hops=[1, 1], rtt_s=[0.03, 0.04], recovery="sack", cc_params={})],
    )
    yield Scenario(
        name="custom", duration_s=1.0,
        topology=CustomTopology(
            nodes=["a", "b", "c"],
            links=[Link(from_="a", to="b", rate_bps=1e7, delay_s=0.01, queue=DropTail(limit_pkts=10)),
                   Link(from_="b", to="c", rate_bps=5e6, delay_s=0.02, queue=DropTail(limit_pkts=10),
                        monitor=True)]),
        flows=[Flow(route=["a", "b", "c"], bytes=50000, delayed_ack=True)],
    )


def ns3_arg(args: list, name: str):
    """The value of ``--name=value`` in an ns-3 program's argument list (None
    when absent); a name given twice fails."""
    hits = [a.split("=", 1)[1] for a in args if a.startswith(f"--{name}=")]
    assert len(hits) <= 1, f"--{name} given twice"
    return hits[0] if hits else None


def needs_ns3(peer: str):
    """Skip unless ns-3 3.44 and a C++ compiler are installed (the ns-3
    comparisons' short runs; ``python -m validation.run --peer PEER``
    installs the ``ns3`` wheel). Call after the repository root is on
    ``sys.path``."""
    from validation import ns3_suite

    return pytest.mark.skipif(
        not ns3_suite.installed(),
        reason=f"ns-3 3.44 not installed (python -m validation.run --peer {peer} installs "
        f"{ns3_suite.PEER_PACKAGE}=={ns3_suite.PEER_VERSION}; it also needs a C++ compiler)")


def ns3_quick_case(mod: Any, out: Path, results: str) -> tuple:
    """Run an ns-3 comparison's quick case (``mod.run(quick=True)``) into
    ``out``; check that ``out/results`` is what it returned, that it has
    the one quick row with both wall times and that the report names it a
    quick run. Returns the results and each side's metrics."""
    res = mod.run(quick=True, out=out)
    assert json.loads((out / results).read_text()) == res
    (s,) = res["scenarios"]
    assert s["id"] == mod.QUICK.id
    assert s["wall_s"]["ns3"] > 0 and s["wall_s"]["ccsim"] > 0
    assert "quick run" in mod.markdown(res)
    return res, {side: {k: v[side] for k, v in s["metrics"].items()} for side in ("ns3", "ccsim")}


@pytest.fixture
def small() -> Scenario:
    return small_scenario()


@pytest.fixture
def small_toml(tmp_path: Path, small: Scenario) -> Path:
    return small.save(tmp_path / "small.toml")


@pytest.fixture(scope="session")
def quick_run(tmp_path_factory, request):
    """``quick_run(ID) -> (out_dir, checks)``: the experiment's ``--quick``
    run, made once per test session and shared by every test that asks for
    it (the generic one in test_experiments.py and the paper-specific ones).

    When the session holds tests of several experiments (the whole suite),
    the first call reproduces all of them at once the way ``ccsim reproduce
    --all --quick`` does (one pool on every core; :mod:`ccsim.reproduce`),
    so the suite exercises that path; an experiment it failed fails its
    tests with the error. A lone experiment runs by itself with one worker.
    """
    from ccsim.reproduce import reproduce_all

    done: dict = {}
    errors: dict = {}
    wanted = sorted({item.callspec.params["exp_id"] for item in request.session.items
                     if "quick_run" in getattr(item, "fixturenames", ())
                     and "exp_id" in getattr(getattr(item, "callspec", None), "params", {})
                     and item.callspec.params["exp_id"] in REGISTRY})

    def run(exp_id: str):
        if not done and not errors and len(wanted) > 1 and exp_id in wanted:
            root = tmp_path_factory.mktemp("reproduce-all")
            outcome = reproduce_all(root, True, [REGISTRY[i] for i in wanted], progress=False, report=False)
            done.update({i: (root / i, c) for i, c in outcome.checks.items()})
            errors.update(outcome.errors)
        if exp_id in errors:
            pytest.fail(f"reproduce --all --quick: {exp_id} failed: {errors[exp_id]}")
        if exp_id not in done:
            out = tmp_path_factory.mktemp(exp_id)
            done[exp_id] = (out, REGISTRY[exp_id].run(out, True, 1))
        return done[exp_id]

    return run
