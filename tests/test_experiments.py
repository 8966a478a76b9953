"""Paper experiments: the models they rely on, and a quick end-to-end run.

Every experiment's quick run is compared with its snapshot,
``tests/snapshots/checks/<ID>.json``: the quantities, sources and values of
its checks (numbers to 1e-9 relative; ccsim is deterministic, so the same
engine reproduces them exactly). The snapshot guards against regressions; it
does not ask any paper check to pass. After an intended change (an engine
change, a new or reworded check), rewrite the snapshots with::

    CCSIM_UPDATE_SNAPSHOTS=1 python3 -m pytest -q tests/test_experiments.py -k quick_and_replot

and review the diff of ``tests/snapshots/checks/`` before committing it.
"""

import json
import math
import os
import shutil
from pathlib import Path

import pytest
from conftest import assert_conserved

import ccsim.sweep as sweep_mod
from ccsim import Results
from ccsim.cli import main
from ccsim.experiments import REGISTRY, SOURCES, Check, register
from ccsim.models.aimd import mathis_throughput_bps, sawtooth_utilization
from ccsim.models.ltcp import claim_speedup, layer_window, recovery_speedup


def test_sawtooth_limits():
    # B << W: the window swings between W/2 and W, the classical 3/4
    assert sawtooth_utilization(1e5, 0) == pytest.approx(0.75, abs=1e-3)
    # buffer at least the BDP: the link never idles
    assert sawtooth_utilization(100, 100) == pytest.approx(1.0)
    # monotone in the buffer
    assert sawtooth_utilization(1000, 20) < sawtooth_utilization(1000, 200)


def test_mathis_formula():
    assert mathis_throughput_bps(1000, 0.1, 1e-4) == pytest.approx(1.22 * 8000 / (0.1 * 0.01))


def test_ltcp_layer_model_closed_forms():
    # eq. 10 and eq. 14 closed form against the summation
    assert [layer_window(k) for k in (1, 2, 3, 15)] == [0, 50, 200, 28000]
    for k in range(3, 26):
        closed = (layer_window(k) - 50) / ((k - 2) * (k + 3) / 4 * 50)
        assert claim_speedup(k) == pytest.approx(closed)
        assert recovery_speedup(k) == pytest.approx((k - 1) / 0.3)


CHECK_KEYS = {"quantity", "paper", "ccsim", "deviation", "tolerance", "relative", "ok", "source", "read_from"}
SNAPSHOTS = Path(__file__).parent / "snapshots" / "checks"
#: relative tolerance of a snapshot's numbers (run-to-run identical in fact)
SNAPSHOT_REL = 1e-9


def _same(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) \
            or not isinstance(b, (int, float)):
        return a == b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or abs(a - b) <= SNAPSHOT_REL * max(abs(a), abs(b))


def _compare_snapshot(exp_id, checks):
    """The checks' dicts against tests/snapshots/checks/<ID>.json (written
    instead when CCSIM_UPDATE_SNAPSHOTS=1)."""
    got = [c.to_dict() for c in checks]
    path = SNAPSHOTS / f"{exp_id}.json"
    if os.environ.get("CCSIM_UPDATE_SNAPSHOTS") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        return
    assert path.exists(), f"no snapshot {path}; write it with CCSIM_UPDATE_SNAPSHOTS=1 (see this file's docstring)"
    want = json.loads(path.read_text(encoding="utf-8"))
    assert [c["quantity"] for c in got] == [c["quantity"] for c in want], \
        "the checks differ from the snapshot (CCSIM_UPDATE_SNAPSHOTS=1 rewrites it after an intended change)"
    diffs = [(g["quantity"], k, w[k], g[k]) for g, w in zip(got, want) for k in sorted(set(g) | set(w))
             if not _same(g.get(k), w.get(k))]
    assert not diffs, diffs


def _no_runs(monkeypatch):
    """Make any simulation run fail the test."""
    def refuse(_scenario_json):
        raise AssertionError("--replot ran a simulation")

    monkeypatch.setattr(sweep_mod, "_run_json", refuse)


@pytest.mark.parametrize("exp_id", sorted(REGISTRY))
def test_every_experiment_quick_and_replot(quick_run, monkeypatch, exp_id):
    """Every registered experiment: its --quick run gives well-formed checks,
    its table and plot, and every run it made conserves packets; then
    replotting from the cache alone gives the same checks and redraws the
    plot without running anything; the checks match the experiment's
    snapshot. (Whether a quick check is within tolerance is not asserted
    here, and no test asks a paper check to pass.)"""
    out, checks = quick_run(exp_id)
    assert checks, "an experiment states at least one number"
    for c in checks:
        assert isinstance(c, Check)
        assert set(c.to_dict()) == CHECK_KEYS
        assert c.source in SOURCES, c.quantity
        assert c.read_from is None or (c.source == "paper" and c.read_from.startswith("Fig")), c.quantity
        # a numeric comparison has its deviation, a qualitative one its verdict
        assert c.tolerance is None or c.deviation is not None or not c.ok, c.quantity
    _compare_snapshot(exp_id, checks)
    runs = sorted((out / "runs").glob("*.json"))
    for f in runs:
        assert_conserved(Results.load(f))
    assert (out / f"{exp_id}.csv").exists() and (out / f"{exp_id}.parquet").exists()
    png = out / f"{exp_id}.png"
    assert png.exists()

    _no_runs(monkeypatch)
    os.utime(png, ns=(0, 0))
    replotted = REGISTRY[exp_id].replot(out, True)
    assert [c.to_dict() for c in replotted] == [c.to_dict() for c in checks]
    assert png.stat().st_mtime_ns > 0, "the plot was redrawn"
    assert sorted((out / "runs").glob("*.json")) == runs, "no run added to the cache"


def test_cli_replot_redraws_without_running(quick_run, monkeypatch, capsys, tmp_path):
    src, checks = quick_run("htcp-fig2")
    out = tmp_path / "r"
    shutil.copytree(src / "runs", out / "runs")
    _no_runs(monkeypatch)
    assert main(["reproduce", "htcp-fig2", "--quick", "--replot", "--out", str(out)]) == 0
    stdout = capsys.readouterr().out
    assert "replot" in stdout and " within tolerance" in stdout.strip().splitlines()[-1]
    assert json.loads((out / "checks.json").read_text())["checks"] == [c.to_dict() for c in checks]
    assert (out / "htcp-fig2.png").exists() and (out / "htcp-fig2.csv").exists()


def test_cli_replot_names_missing_runs(quick_run, monkeypatch, capsys, tmp_path):
    _no_runs(monkeypatch)
    # nothing cached: a user error (exit 2, no traceback) saying what to do
    code = main(["reproduce", "htcp-fig2", "--quick", "--replot", "--out", str(tmp_path / "empty")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error: --replot needs every run in the cache: 2 of 2 runs are not in")
    assert "without --replot" in err and "Traceback" not in err
    # one run of two missing: named by key and overrides
    src, _ = quick_run("htcp-fig2")
    out = tmp_path / "partial"
    shutil.copytree(src / "runs", out / "runs")
    gone = sorted((out / "runs").glob("*.json"))[0]
    gone.unlink()
    code = main(["reproduce", "htcp-fig2", "--quick", "--replot", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "1 of 2 runs are not in" in err and gone.stem[:12] in err
    # a plain registered function cannot replot
    @register("test-replot-plain", paper="Nobody", description="plain")
    def plain(out_dir, quick, workers):
        return [Check("a", paper=1, ccsim=1, tolerance=0, source="consistency")]

    try:
        code = main(["reproduce", "test-replot-plain", "--replot", "--out", str(tmp_path / "p")])
        assert code == 2 and "cannot --replot" in capsys.readouterr().err
    finally:
        REGISTRY.pop("test-replot-plain", None)


# -- ns-2 mode of the reproduced ns-2 figures --------------------------------------------

#: The experiments whose TCP-family flows run in ns-2 mode (docs/experiments.md, "ns-2 mode").
NS2_FIGURES = {"etcp-fig6", "etcp-fig7-9", "etcp-fig15", "etcp-fig17", "ltcp-fig5", "ltcp-fig6", "ltcp-fig7",
               "ltcp-fig8", "htcp-fig2", "htcp-model", "htcp-fig10", "htcp-fig11", "htcp-fig12-13", "htcp-fig14",
               "pxcp-fig1", "pxcp-fig1cf", "pxcp-fig2", "pxcp-fig3", "pxcp-fig4-table1"}


def test_ns2_figures_are_the_declared_ones():
    assert {i for i, e in REGISTRY.items() if e.agents() is not None} == NS2_FIGURES


def _engine_flow(flow):
    """``flow`` as the engine normalises it (every default filled)."""
    from ccsim.experiments._kit import ns2ref

    return ns2ref.engine_flow(flow)


def test_ns2_mode_fields_and_engine_refusals():
    from ccsim.experiments._kit import ns2ref

    sack = {"cc": "reno", "recovery": "sack", "pacing": "none"}
    f = ns2ref.ns2_mode(sack)
    assert f["tcp_model"] == "ns2" and ns2ref.ns2_mode(f) == f  # idempotent
    e = _engine_flow(f)
    assert e["recovery"] == "sack1" and all(e[k] == v for k, v in ns2ref.NS2_TCP.items())
    # a base flow's own value of a rule the personality decides does not carry over
    assert _engine_flow(ns2ref.ns2_mode(dict(sack, init_cwnd_pkts=10, ns2_dupwnd=True)))["init_cwnd_pkts"] == 2
    # sack1 refuses pacing and ECN: those keep RFC 6675 SACK, the rest of the mode applies
    assert _engine_flow(ns2ref.ns2_mode(dict(sack, pacing="token_bucket")))["recovery"] == "sack"
    assert _engine_flow(ns2ref.ns2_mode(dict(sack, ecn=True)))["recovery"] == "sack"
    hs = _engine_flow(ns2ref.ns2_mode({"cc": "hstcp", "recovery": "sack", "cc_params": {"max_ssthresh": 100.0}}))
    assert hs["cc_params"] == {"max_ssthresh": 100.0, "ns2_first_decrease": True, "ns2_decrease_num": True, "lss": "ns2"}
    assert "lss" not in _engine_flow(ns2ref.ns2_mode({"cc": "hstcp", "cc_params": {"abc": True}}))["cc_params"]
    # timestamps (XCP's agent, the paced-XCP paper): every-ACK estimator, ns-2's initial RTO
    ts = _engine_flow(ns2ref.ns2_mode({"cc": "reno", "recovery": "reno"}, timestamps=True))
    assert ts["rtt_estimator"] == "rfc6298" and ts["init_rto_s"] == ns2ref.NS2_INIT_RTO_S and ts["syn"] == "ns2"
    # a named older release (the paced-XCP paper's 2.28): its initial RTO, and
    # numdupacksFrac_ on the Sack1 agent only (the engine refuses it elsewhere)
    old = ns2ref.ns2_mode(sack, release="2.28")
    assert (old["init_rto_s"], old["dupthresh_frac"]) == (6.0, 100) and ns2ref.ns2_mode(old, release="2.28") == old
    assert _engine_flow(old)["recovery"] == "sack1"
    paced = ns2ref.ns2_mode(dict(sack, pacing="token_bucket"), release="2.28")
    assert paced["init_rto_s"] == 6.0 and "dupthresh_frac" not in paced
    with pytest.raises(ValueError, match="release"):
        ns2ref.ns2_mode(sack, release="2.20")
    from ccsim.experiments.pxcp import flow as pxcp_flow

    hs = _engine_flow(pxcp_flow("HSTCP", "N.P.", 2))
    assert (hs["recovery"], hs["dupthresh_frac"], hs["init_rto_s"]) == ("sack1", 100, 6.0)


def test_ns2_figure_switch_and_checks_json(monkeypatch, tmp_path):
    from ccsim.experiments import checks_document
    from ccsim.experiments._kit import ns2ref
    from ccsim.experiments.etcp import baseline, PROTOCOLS

    assert baseline("HSTCP")["tcp_model"] == "ns2" and _engine_flow(baseline("HSTCP"))["recovery"] == "sack1"
    assert _engine_flow(baseline("NewReno"))["syn"] == "ns2"
    note = REGISTRY["etcp-fig6"].agents()
    assert note.startswith("TCP-family flows in ns-2 mode")
    assert checks_document([], note)["agents"] == note and "agents" not in checks_document([])
    monkeypatch.setattr(ns2ref, "FIGURES_IN_NS2_MODE", False)
    assert baseline("HSTCP") == PROTOCOLS["HSTCP"]
    assert "RFC defaults" in REGISTRY["etcp-fig6"].agents()


def test_ns2_figures_run_every_queue_in_ns2_tie_order(monkeypatch):
    from ccsim.experiments import _in_ns2_order
    from ccsim.experiments._kit import ns2ref
    from ccsim.scenario import Scenario

    for exp_id in sorted(NS2_FIGURES):
        module = REGISTRY[exp_id].figure
        for s in _in_ns2_order(module, module.scenarios(True)):
            topo = Scenario.from_dict(s.base).normalized()["topology"]
            queues = [v for k, v in topo.items() if k.endswith("_queue")]
            assert queues and all(q.get("ties") == "arrival_first" for q in queues), (exp_id, topo)
    # an edge queue left to ccsim's default is spelled out first, with the default's own limit
    base = REGISTRY["etcp-fig6"].figure.scenarios(True)[0].base
    bare = dict(base, topology={k: v for k, v in base["topology"].items() if k != "edge_queue"})
    filled = ns2ref.figure_scenario(bare)["topology"]["edge_queue"]
    default = Scenario.from_dict(bare).normalized()["topology"]["edge_queue"]
    assert filled == dict(default, ties="arrival_first")
    # other modules, and ns-2 figures with the mode off, keep ccsim's event order
    other = REGISTRY["etcp-fig1"].figure
    assert [s.base for s in _in_ns2_order(other, other.scenarios(True))] == [s.base for s in other.scenarios(True)]
    monkeypatch.setattr(ns2ref, "FIGURES_IN_NS2_MODE", False)
    assert ns2ref.figure_scenario(bare) == bare


def _doc_summary_rows():
    """docs/experiments.md's summary table: id -> [paper, model, consistency, ns-2] cells."""
    import re

    text = (Path(__file__).parent.parent / "docs" / "experiments.md").read_text(encoding="utf-8")
    pat = re.compile(r"^\| \[`([^`]+)`\]\([^)]*\) \|" + r" ([^|]+) \|" * 4, re.M)
    rows = {m.group(1): [c.strip() for c in m.groups()[1:]] for m in pat.finditer(text)}
    total = re.search(r"^\| \*\*total\*\* \|" + r" ([^|]+) \|" * 4, text, re.M)
    return rows, [re.sub(r"\*\*|\(.*\)", "", c).strip() for c in total.groups()]


def test_docs_summary_table_counts_are_the_snapshots():
    """The table that opens docs/experiments.md says, per experiment and
    source, how many quick-run checks are within tolerance: it must be what
    the snapshots (the quick runs' checks) hold, totals included."""
    rows, total = _doc_summary_rows()
    snaps = {p.stem: json.loads(p.read_text()) for p in SNAPSHOTS.glob("*.json")}
    assert set(rows) == set(snaps) == set(REGISTRY)
    sums = {s: [0, 0] for s in SOURCES}
    for exp_id, checks in snaps.items():
        want = []
        for s in SOURCES:
            mine = [c for c in checks if c["source"] == s]
            sums[s][0] += sum(bool(c["ok"]) for c in mine)
            sums[s][1] += len(mine)
            want.append(f"{sum(bool(c['ok']) for c in mine)}/{len(mine)}" if mine else "—")
        assert rows[exp_id] == want, (exp_id, rows[exp_id], want)
    assert total == [f"{ok}/{n}" for ok, n in sums.values()]
