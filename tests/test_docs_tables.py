"""The docs' generated tables are current, and links into the rewritten
pages (performance.md, validation.md, experiments.md, decisions/) resolve.

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


def test_experiment_entries_show_every_failing_check_with_its_numbers():
    text = (ROOT / "docs" / "experiments.md").read_text(encoding="utf-8")
    for snap in sorted(dt.SNAPSHOTS.glob("*.json")):
        exp_id = snap.stem
        entry = re.split(r"\n### |<!-- END generated", text.split(f"### `{exp_id}`\n", 1)[1], maxsplit=1)[0]
        checks = json.loads(snap.read_text())
        bad = [c for c in checks if not c["ok"]]
        if bad:
            assert f"{len(bad)} of {len(checks)} checks" in entry, exp_id
            for c in bad:
                assert dt.cell(c["quantity"]) in entry.split("<details>")[0], (exp_id, c["quantity"])
        else:
            assert "**Open deviations (quick run):** none." in entry, exp_id
        assert entry.count("\n| ") == len(checks) + 1, exp_id  # the header and one row per check


def test_deviation_causes_name_existing_checks():
    """A cause in docs/experiments-notes.toml must match a check of its
    experiment's snapshot: a renamed check would otherwise lose its cause."""
    notes = dt._toml(dt.NOTES)
    known = {p.stem for p in dt.SNAPSHOTS.glob("*.json")}
    assert set(notes) <= known, set(notes) - known
    for exp_id, note in notes.items():
        quantities = [c["quantity"] for c in json.loads((dt.SNAPSHOTS / f"{exp_id}.json").read_text())]
        for cause in note.get("causes", []):
            assert any(cause["match"] in q for q in quantities), (exp_id, cause["match"])
        full = note.get("full")
        if full:
            assert {"date", "command", "counts"} <= set(full), exp_id
            assert full["command"].startswith(f"ccsim reproduce {exp_id}"), exp_id


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
