"""The docs' generated tables, and the figures their text quotes from them,
are current; links into the rewritten pages (performance.md,
validation.md, experiments.md, decisions/) resolve; the README names every
experiment and links every page of docs/.

The tables are written by ``python tools/docs_tables.py``: run it after
changing an experiment, a snapshot, docs/experiments-notes.toml, a record
in benches/results/ or a peer's checked-in results."""
import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("docs_tables", ROOT / "tools" / "docs_tables.py")
dt = importlib.util.module_from_spec(_spec)
sys.modules["docs_tables"] = dt
_spec.loader.exec_module(dt)

PAGES = ("performance.md", "validation.md", "experiments.md")


def test_generated_blocks_are_current():
    stale = [f"{dt._rel(page)}: {name}" for page, name in dt.stale()]
    assert not stale, "generated blocks out of date (run: python tools/docs_tables.py): " + ", ".join(stale)


def test_check_mode_fails_on_a_changed_block(tmp_path, monkeypatch):
    page = tmp_path / "decisions" / "README.md"
    page.parent.mkdir()
    page.write_text(f"x\n{dt.begin('decisions-index')}\nstale\n{dt.end('decisions-index')}\n")
    monkeypatch.setattr(dt, "generated", lambda: {page: {"decisions-index": "fresh"}})
    assert dt.main(["--check"]) == 1
    assert dt.main([]) == 0 and dt.main(["--check"]) == 0
    assert page.read_text() == f"x\n{dt.begin('decisions-index')}\nfresh\n{dt.end('decisions-index')}\n"


def test_check_mode_fails_on_a_changed_figure_inside_a_line(tmp_path, monkeypatch):
    """A block whose markers share a line is a phrase in a sentence or a
    table cell: it is checked and rewritten in place, on its line."""
    page = tmp_path / "validation.md"
    row = "| ns-3 | {} ; every difference traced |\n| next | row |\n"
    span = lambda x: f"{dt.begin('index-ns3')}{x}{dt.end('index-ns3')}"  # noqa: E731
    page.write_text(row.format(span("65 of 120")))
    monkeypatch.setattr(dt, "generated", lambda: {page: {"index-ns3": "63 of 120"}})
    assert dt.main(["--check"]) == 1
    assert dt.main([]) == 0 and dt.main(["--check"]) == 0
    assert page.read_text() == row.format(span("63 of 120"))
    with pytest.raises(ValueError, match="inside a line"):
        dt.replace_block(page.read_text(), "index-ns3", "two\nlines")


def test_within_rounds_up_to_two_digits():
    assert [dt.within(x) for x in (0.001351, -0.018476, 0.025, 0.2067, 0.0401, 0.0)] == [
        "0.14%", "1.9%", "2.5%", "21%", "4.1%", "0%"]


def _spans(text: str) -> dict:
    return dict(re.findall(r"<!-- BEGIN generated: ([\w-]+) -->([^\n]*?)<!-- END generated: \1 -->", text))


def test_validation_index_quotes_its_tables():
    """Every count the index of docs/validation.md gives for an ns-3
    comparison is the table's own sentence, and every experiment's count
    is docs/experiments.md's (so a re-run cannot leave the index behind)."""
    text = (ROOT / "docs" / "validation.md").read_text(encoding="utf-8")
    index = text.split("## Index", 1)[1].split("\n## ", 1)[0]
    spans = _spans(index)
    for name, block, which in (("index-ns3", "ns3", 0), ("index-ns3-aqm", "ns3-aqm", 0),
                               ("index-ns3-bbr", "ns3-bbr", 0), ("index-ns3-bbr-linux", "ns3-bbr", 1)):
        a, n, tol = dt.agreement(dt.read_block(text, block))[which]
        assert spans[name].startswith(f"{a} of {n}"), (name, spans[name], a, n)
        assert tol in spans[name] or name.endswith("linux")
    summary = dt.read_block((ROOT / "docs" / "experiments.md").read_text(encoding="utf-8"), "experiments-summary")
    for exp_id in ("etcp-ns2", "ltcp-ns2", "pxcp-ns2", "gwa-ns2"):
        row = next(r for r in summary.splitlines() if r.startswith(f"| [`{exp_id}`]"))
        ns2_quick = row.split(" | ")[4]
        assert spans[f"index-{exp_id}"].startswith(f"`{exp_id}` {ns2_quick}"), (exp_id, row)
    # no hand-written "N of M metric pairs" left in the index
    bare = re.sub(r"<!-- BEGIN generated: ([\w-]+) -->.*?<!-- END generated: \1 -->", "", index)
    assert not re.search(r"\d+ of \d+ metric pairs", bare)


def test_history_records_leave_performance_md_for_their_decision_records():
    """A record HISTORY hands on is not shown on performance.md; its dated
    decision record exists, names the record's file, and the index of rows
    links it for every row the record measured."""
    perf = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    index = dt.read_block(perf, "perf-index")
    for rid, rec in dt.HISTORY.items():
        r = json.loads((dt.BENCH_RESULTS / f"{rid}.json").read_text(encoding="utf-8"))
        assert f"#### {dt._record_heading(r)}\n" not in perf, rid
        decision = (dt.DECISIONS / rec).read_text(encoding="utf-8")
        assert f"{rid}.json" in decision, (rec, rid)
        for row in {str(x[0]) for x in r["rows"]}:
            line = next((x for x in index.splitlines() if x.startswith(f"| {row} |")), None)
            assert line is None or f"(decisions/{rec})" in line, (row, rec)
    shown = [r for r in dt._current()]
    assert shown and all(r["id"] not in dt.HISTORY for r in shown)


def test_readme_lists_every_experiment_and_doc_page():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    from ccsim.experiments import REGISTRY

    missing = [e for e in REGISTRY if f"`{e}`" not in text]
    assert not missing, f"README.md does not name these experiments: {missing}"
    docs = text.split("\n## Documentation\n", 1)[1].split("\n## ", 1)[0]
    pages = [p.relative_to(ROOT).as_posix() for p in sorted((ROOT / "docs").glob("*.md"))]
    unlinked = [p for p in pages + ["docs/decisions/README.md"] if f"]({p}" not in docs]
    assert not unlinked, f"README.md's Documentation list does not link: {unlinked}"


def _entry(text: str, exp_id: str) -> str:
    return re.split(r"\n### |<!-- END generated", text.split(f"### `{exp_id}`\n", 1)[1], maxsplit=1)[0]


def test_experiment_entries_show_every_failing_check_with_its_numbers():
    text = (ROOT / "docs" / "experiments.md").read_text(encoding="utf-8")
    for snap in sorted(dt.SNAPSHOTS.glob("*.json")):
        exp_id = snap.stem
        entry = _entry(text, exp_id)
        head = entry.split("<details>")[0]
        rows = 0
        for run, checks in (("quick run", json.loads(snap.read_text())), ("full run", dt._full(exp_id))):
            bad = [c for c in checks if not c["ok"]]
            if bad:
                assert f"**Open deviations ({run}), {len(bad)} of {len(checks)} checks:**" in head, (exp_id, run)
                for c in bad:
                    assert dt.cell(c["quantity"]) in head, (exp_id, run, c["quantity"])
            else:
                assert f"**Open deviations ({run}):** none." in head, (exp_id, run)
            rows += len(checks) + 1  # the header and one row per check
        assert entry.count("\n| ") == rows, exp_id


def test_deviation_causes_name_existing_checks():
    """A cause in docs/experiments-notes.toml must match a failing check of
    its experiment's quick or full run: a renamed check would otherwise lose
    its cause, and a cause nothing needs any more is stale."""
    notes = dt._toml(dt.NOTES)
    known = {p.stem for p in dt.SNAPSHOTS.glob("*.json")}
    assert set(notes) <= known, set(notes) - known
    for exp_id, note in notes.items():
        failing = [c["quantity"] for c in json.loads((dt.SNAPSHOTS / f"{exp_id}.json").read_text())
                   + dt._full(exp_id) if not c["ok"]]
        for cause in note.get("causes", []):
            assert cause.get("class") in dt.CLASSES, (exp_id, cause["match"])
            assert any(cause["match"] in q for q in failing), (exp_id, cause["match"])
        assert isinstance(note.get("full", ""), str), exp_id


def test_every_experiment_has_a_recorded_full_run():
    from ccsim.experiments import REGISTRY

    assert {p.stem for p in dt.FULL.glob("*.json")} - {"run"} == set(REGISTRY)
    run = dt.full_run()
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", run["date"]) and run["command"].startswith("ccsim reproduce --all")
    assert "--quick" not in run["command"] and run["engine"] and run["machine"]
    seen: set = set()
    for r in run.get("reruns", []):
        assert r["experiments"] and set(r["experiments"]) <= set(REGISTRY) and not seen & set(r["experiments"])
        seen |= set(r["experiments"])
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", r["date"]) and r["command"].startswith("ccsim reproduce")
        assert "--quick" not in r["command"] and r["engine"] and r["machine"]


def test_a_rerun_of_some_experiments_replaces_their_checks_and_joins_the_provenance(tmp_path, monkeypatch):
    """``add full-rerun``: the run's experiments' checks replace the
    recorded ones, its provenance joins ``reruns`` and takes them from an
    older rerun; ``add full-run`` refuses a run that leaves one out."""
    full = tmp_path / "full"
    full.mkdir()
    base = {"date": "2026-11-01", "engine": "aaa", "machine": "m", "command": "ccsim reproduce --all",
            "wall_s": 60.0, "runs_computed": 1, "runs_cached": 0}
    (full / "run.json").write_text(json.dumps(base))
    for i in ("x", "y"):
        (full / f"{i}.json").write_text(json.dumps([{"quantity": "old"}]))
    monkeypatch.setattr(dt, "FULL", full)

    def out_dir(name, ids):
        out = tmp_path / name
        for i in ids:
            (out / i).mkdir(parents=True)
            (out / i / "checks.json").write_text(json.dumps({"checks": [{"quantity": f"{name} {i}"}]}))
        (out / "reproduce-all.json").write_text(json.dumps(
            {"quick": False, "experiments": {i: {} for i in ids}, "wall_s": 90.0, "runs_computed": 2,
             "runs_cached": 0}))
        return out

    prov = dict(date="2026-11-30", machine="m2", command="ccsim reproduce --all --paper p")
    assert dt.record_full_run(out_dir("one", ["x", "y"]), commit="bbb", rerun=True, **prov) == 0
    assert dt.record_full_run(out_dir("two", ["y"]), commit="ccc", rerun=True, **prov) == 0
    run = dt.full_run()
    assert run["engine"] == "aaa" and [(r["engine"], r["experiments"]) for r in run["reruns"]] == \
        [("bbb", ["x"]), ("ccc", ["y"])]
    assert json.loads((full / "y.json").read_text()) == [{"quantity": "two y"}]
    assert dt.full_rerun_of("x")["engine"] == "bbb" and dt.full_rerun_of("z") is None
    assert "`y` again with `ccsim reproduce --all --paper p` on 2026-11-30, engine ccc" in dt.experiments_full_run()
    assert dt.record_full_run(out_dir("three", ["x"]), commit="ddd", **prov) == 1  # not every experiment


def test_every_full_run_miss_has_a_classed_cause():
    """The ledger: every full-run miss, of a paper check or of a model,
    consistency or ns-2 one, has a cause of one of the classes (a quick-run
    cause never counts for a full run)."""
    notes = dt._toml(dt.NOTES)
    untraced = set()
    for exp_id, _ in dt._experiments():
        for _, c, cause in dt.classify(dt._full(exp_id), notes.get(exp_id, {}), full=True):
            if cause is None:
                untraced.add((exp_id, c["source"], c["quantity"]))
    assert not untraced, "full-run misses without a cause in docs/experiments-notes.toml: " + \
        "; ".join(f"{e} ({s}): {q}" for e, s, q in sorted(untraced))


def test_a_quick_run_cause_never_explains_a_full_run_miss():
    checks = [{"quantity": "a: utilisation", "ok": False}, {"quantity": "b: loss", "ok": False},
              {"quantity": "c", "ok": True}]
    note = {"causes": [{"match": "utilisation", "class": "quick", "cause": "short"},
                       {"match": "loss", "class": "draw", "cause": "seeds"}]}
    quick = [(i, cz and cz["class"]) for i, _, cz in dt.classify(checks, note, full=False)]
    full = [(i, cz and cz["class"]) for i, _, cz in dt.classify(checks, note, full=True)]
    assert quick == [(1, "quick"), (2, "draw")] and full == [(1, None), (2, "draw")]
    with pytest.raises(ValueError, match="allowed: ns-2, paper, model, draw, quick"):
        dt.classify(checks, {"causes": [{"match": "", "class": "unknown", "cause": "?"}]}, full=True)


def test_bench_records_are_well_formed():
    from ccsim.bench import BENCHMARKS

    for p in sorted(dt.BENCH_RESULTS.glob("*.json")):
        r = json.loads(p.read_text(encoding="utf-8"))
        assert r["id"] == p.stem and r["section"] in dt.PERF_SECTIONS, p.name
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", r["date"]) and r["id"].startswith(r["date"]), p.name
        for k in ("title", "machine", "machine_short", "build", "command", "columns", "rows"):
            assert r.get(k), (p.name, k)
        assert all(len(row) == len(r["columns"]) for row in r["rows"]), p.name
    index = dt.perf_index()
    assert all(f"| {name} |" in index for name in BENCHMARKS)


def _headings(path: Path):
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return [m.group(1).strip() for m in re.finditer(r"^#{1,6} (.+)$", text, re.M)]


def _anchors(path: Path):
    seen, out = {}, set()
    for h in _headings(path):
        s = dt.slug(re.sub(r"`", "", h))
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f"{s}-{n}")
    return out


LINK = re.compile(r"\]\(([^)#\s]*\.md)(#[^)\s]*)?\)")


@pytest.mark.parametrize("doc", sorted(p.relative_to(ROOT).as_posix() for p in
                                       [ROOT / "README.md", *(ROOT / "docs").glob("*.md"),
                                        *(ROOT / "docs" / "decisions").glob("*.md")]))
def test_links_into_the_rewritten_pages_resolve(doc):
    src = ROOT / doc
    for m in LINK.finditer(src.read_text(encoding="utf-8")):
        target = (src.parent / m.group(1)).resolve()
        inside = target.parent == ROOT / "docs" and target.name in PAGES or target.parent == ROOT / "docs" / "decisions"
        if not inside or src.resolve() == target and not m.group(2):
            continue
        assert target.exists(), f"{doc}: link to missing {m.group(1)}"
        if m.group(2):
            assert m.group(2)[1:] in _anchors(target), f"{doc}: no section {m.group(2)} in {m.group(1)}"


def test_anchors_within_the_rewritten_pages_resolve():
    for page in PAGES:
        path = ROOT / "docs" / page
        anchors = _anchors(path)
        for m in re.finditer(r"\]\((#[^)\s]+)\)", path.read_text(encoding="utf-8")):
            assert m.group(1)[1:] in anchors, f"{page}: no section {m.group(1)}"


#: `docs/PAGE.md, "Section"` or `docs/PAGE.md ("Section")` in code and docs.
QUOTED = re.compile(r"(performance|validation|experiments)\.md[,:]?\s+\(?[\"“]([^\"”]+)[\"”]")


def test_sections_named_in_code_and_docs_exist():
    files = [p for d in ("crates", "python", "benches", "validation", "tests", "build_backend", "docs", "tools")
             for p in (ROOT / d).rglob("*") if p.suffix in (".rs", ".py", ".md", ".tcl") and "target" not in p.parts]
    files.append(ROOT / "README.md")
    heads = {page: _headings(ROOT / "docs" / f"{page}.md") for page in ("performance", "validation", "experiments")}
    missing = []
    for f in files:
        text = re.sub(r"\s*\n\s*(//[!/]?|#:?)?\s*", " ", f.read_text(encoding="utf-8", errors="replace"))
        for m in QUOTED.finditer(text):
            page, name = m.group(1), m.group(2).strip()
            if not any(name in h.replace("`", "") or name in h for h in heads[page]):
                missing.append(f"{f.relative_to(ROOT)}: docs/{page}.md, \"{name}\"")
    assert not missing, "sections that do not exist: " + "; ".join(missing)


def test_a_flow_sweep_becomes_a_record_table():
    row = {"flows": 10000, "buffer_pkts": 500, "wall_s": 4.6114, "bottleneck_pkts_per_s": 888_123.0,
           "vs_first_pkts": 0.3372, "events_per_bottleneck_pkt": 5.2012, "ns_per_bottleneck_pkt": 1126.6,
           "extra_ns_per_pkt": 746.6, "loss_rate": 0.0949}
    cols, rows = dt.sweep_rows([row])
    assert len(cols) == len(rows[0])
    assert rows[0] == ["10,000", "500", "4.611", "888", "0.34", "5.20", "1,127", "747", "9.49e-02"]
