"""``ccsim reproduce --all``: every experiment in one command, resumable,
ending in the report of the papers.

The whole suite's quick reproductions already go through
:func:`ccsim.reproduce.reproduce_all` (the ``quick_run`` fixture); these
tests hold the command as a user meets it: its output and counts, the
checks identical to the single-experiment snapshots, a rerun computing
nothing, an interrupted run resuming with exactly the runs that were
missing, its errors, and the report opened in headless Chromium.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_experiments import SNAPSHOTS, _same
from test_report import _chromium, _resolve, watched_page

import ccsim.sweep as sweep_mod
from ccsim.cli import main
from ccsim.experiments import REGISTRY, first_stage
from ccsim.reproduce import PAPERS, paper_of, reproduce_all, select
from ccsim.sweep import plan

HTCP = [e.id for e in select(["htcp"])]


def _log_keys(d: Path) -> list:
    log = d / "runs.log"
    return [json.loads(line)["key"] for line in log.read_text().splitlines()] if log.exists() else []


def test_select_orders_papers_and_figures_naturally():
    ids = [e.id for e in select()]
    assert sorted(ids) == sorted(REGISTRY)
    assert [paper_of(REGISTRY[i]) for i in ids] == sorted((paper_of(REGISTRY[i]) for i in ids), key=PAPERS.index)
    assert HTCP.index("htcp-fig2") < HTCP.index("htcp-fig10")


def test_all_quick_runs_reports_and_resumes(tmp_path, capsys):
    out = tmp_path / "results"
    assert main(["reproduce", "--all", "--quick", "--paper", "htcp", "--out", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    doc = json.loads((out / "reproduce-all.json").read_text())
    n_runs = doc["runs_computed"]
    assert n_runs > len(HTCP) and doc["runs_cached"] == 0 and doc["quick"] is True
    assert f"runs: {n_runs} computed, 0 cached" in text
    assert list(doc["experiments"]) == HTCP
    total = {"ok": 0, "total": 0}
    for exp_id in HTCP:
        checks = json.loads((out / exp_id / "checks.json").read_text())
        # the same checks as the experiment alone (its snapshot)
        want = json.loads((SNAPSHOTS / f"{exp_id}.json").read_text())
        got = checks["checks"]
        assert [c["quantity"] for c in got] == [c["quantity"] for c in want]
        assert all(_same(g[k], w[k]) for g, w in zip(got, want) for k in w), exp_id
        assert f"{exp_id}: {checks['summary']['headline']}" in text
        assert doc["experiments"][exp_id] == {"paper": "htcp", "ok": checks["summary"]["ok"],
                                              "total": checks["summary"]["total"]}
        for n in checks["summary"]["by_source"].values():
            total["ok"] += n["ok"]
            total["total"] += n["total"]
    assert sum(v["total"] for v in doc["counts"]["all"].values()) == total["total"]
    assert sum(v["ok"] for v in doc["counts"]["all"].values()) == total["ok"]
    assert (out / "report" / "index.html").is_file()
    logged = {i: _log_keys(out / i) for i in HTCP}
    assert sum(map(len, logged.values())) == n_runs
    # every run's CPU time is logged, and the record sums them
    cpu = [json.loads(line)["cpu_s"] for i in HTCP for line in (out / i / "runs.log").read_text().splitlines()]
    assert len(cpu) == n_runs and all(c > 0 for c in cpu)
    assert doc["runs_timed"] == n_runs and doc["run_cpu_s"] == pytest.approx(sum(cpu), abs=1e-3)
    assert f"CPU time of the {n_runs} timed runs:" in text

    # the same command again computes nothing and says so; the CPU time of
    # the runs it found is the same, counted once
    assert main(["reproduce", "--all", "--quick", "--paper", "htcp", "--out", str(out), "--quiet"]) == 0
    assert f"runs: 0 computed, {n_runs} cached" in capsys.readouterr().out
    assert {i: _log_keys(out / i) for i in HTCP} == logged
    again = json.loads((out / "reproduce-all.json").read_text())
    assert (again["runs_timed"], again["run_cpu_s"]) == (doc["runs_timed"], doc["run_cpu_s"])


def test_a_second_stage_runs_in_the_same_pool_count(tmp_path):
    """pxcp-fig3 sizes its second stage's buffers from its first stage's
    results: those runs are computed during its analysis, and counted."""
    exp = REGISTRY["pxcp-fig3"]
    assert getattr(exp.figure, "scenarios_after", None) is not None
    outcome = reproduce_all(tmp_path, True, [exp], progress=False, report=False)
    assert not outcome.errors
    logged = _log_keys(tmp_path / exp.id)
    first = {s.key for sw in first_stage(exp.figure, True) for s in plan(sw.base, sw.points)}
    assert len(logged) == outcome.runs_computed > len(first), (len(logged), outcome.runs_computed, len(first))


def test_interrupted_run_resumes_with_exactly_the_missing_runs(tmp_path, monkeypatch):
    exps = [REGISTRY[i] for i in HTCP]
    real = sweep_mod._run_json
    calls = {"n": 0}

    def interrupted_after_four(payload):
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt
        return real(payload)

    monkeypatch.setattr(sweep_mod, "_run_json", interrupted_after_four)
    with pytest.raises(KeyboardInterrupt):
        reproduce_all(tmp_path, True, exps, backend="inprocess", progress=False, report=False)
    first = {i: _log_keys(tmp_path / i) for i in HTCP}
    assert sum(map(len, first.values())) == 4
    assert json.loads((tmp_path / "reproduce-all.json").read_text())["runs_computed"] == 4

    monkeypatch.setattr(sweep_mod, "_run_json", real)
    outcome = reproduce_all(tmp_path, True, exps, backend="inprocess", progress=False, report=False)
    assert outcome.runs_cached == 4 and not outcome.errors
    keys = [k for i in HTCP for k in _log_keys(tmp_path / i)]
    assert len(keys) == len(set(keys)) == 4 + outcome.runs_computed, "a finished run was computed again"
    assert set(outcome.checks) == set(HTCP)


def test_a_failing_experiment_is_reported_and_the_others_finish(tmp_path, monkeypatch):
    exps = [REGISTRY[i] for i in HTCP[:2]]
    broken = exps[0]

    def analyse(*_a, **_k):
        raise ValueError("analysis broke")

    monkeypatch.setattr(broken.figure, "analyse", analyse)
    outcome = reproduce_all(tmp_path, True, exps, backend="inprocess", progress=False, report=False)
    assert outcome.errors == {broken.id: "ValueError: analysis broke"}
    assert set(outcome.checks) == {exps[1].id}
    assert json.loads((tmp_path / "reproduce-all.json").read_text())["experiments"][broken.id]["error"]


@pytest.mark.parametrize("argv, expect", [
    (["--all", "htcp-fig2"], "not both"),
    (["--paper", "htcp"], "reproduce needs an experiment id"),
    (["htcp-fig2", "--paper", "htcp"], "--paper goes with --all"),
    (["htcp-fig2", "--dask", "tcp://x:1"], "--dask goes with --all"),
    (["--all", "--replot"], "--replot redraws one experiment"),
    (["--all", "--paper", "tcp"], "invalid choice: 'tcp'"),
])
def test_bad_combinations_are_named(argv, expect, capsys, tmp_path):
    with pytest.raises(SystemExit) if "choice" in expect else _nothing():
        assert main(["reproduce", *argv, "--out", str(tmp_path / "o")]) == 2
    assert expect in capsys.readouterr().err


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_report_of_two_papers_in_headless_chromium(quick_run, tmp_path, capsys):
    """Seeded with the suite's quick runs of two papers, --all computes
    nothing and writes a report with a section per paper whose counts are
    reproduce-all.json's; every page loads in Chromium with its images and
    links."""
    papers = ["htcp", "pxcp"]
    ids = [e.id for e in select(papers)]
    out = tmp_path / "results"
    for i in ids:
        shutil.copytree(quick_run(i)[0] / "runs", out / i / "runs")
    assert main(["reproduce", "--all", "--quick", "--out", str(out), "--quiet"]
                + [a for p in papers for a in ("--paper", p)]) == 0
    assert "runs: 0 computed" in capsys.readouterr().out
    doc = json.loads((out / "reproduce-all.json").read_text())
    site = out / "report"
    exe = _chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=["--no-sandbox"])
        try:
            page, problems = watched_page(browser)
            page.goto((site / "index.html").as_uri())
            sections = page.eval_on_selector_all("h3[id]", "els => els.map(e => e.innerText)")
            assert len(sections) == 2, sections
            summaries = page.eval_on_selector_all("p.paper-summary", "els => els.map(e => e.innerText)")
            for paper, summary in zip(papers, summaries):
                mine = [i for i in ids if doc["experiments"][i]["paper"] == paper]
                assert summary.startswith(f"{len(mine)} experiments;"), summary
                for src, n in doc["counts"][paper].items():
                    assert f"{src} {n['ok']}/{n['total']}" in summary, (src, summary)
            rows = page.eval_on_selector_all("tr[data-experiment]", "els => els.map(e => e.dataset.experiment)")
            assert sorted(rows) == sorted(ids)
            for href in page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)"):
                path, frag = _resolve((site / "index.html").as_uri(), href)
                assert path.is_file(), href
                if frag:
                    assert f'id="{frag}"' in path.read_text(), href
            for i in ids:
                page.goto((site / i / "index.html").as_uri())
                page.wait_for_load_state("load")
                imgs = page.eval_on_selector_all("img", "els => els.map(e => [e.src, e.naturalWidth])")
                assert imgs and all(w > 0 for _, w in imgs), (i, imgs)
            assert not problems, problems
        finally:
            browser.close()
