"""Regenerate the generated tables of the docs, or check that they are current.

    python tools/docs_tables.py            # rewrite every generated block
    python tools/docs_tables.py --check    # exit 1 if a block differs (what CI runs)
    python tools/docs_tables.py add bench OUT.json --id ID --title T --section S \
        --date YYYY-MM-DD --machine M --build B --command C
                                           # record a `ccsim bench --json` run
    python tools/docs_tables.py add peer-ns2 OUT.json ...   # a `benches/peer_ns2.py --json` run
    python tools/docs_tables.py add peer-ns3 OUT.json ...   # a `benches/peer_ns3.py --json` run
    python tools/docs_tables.py add flow-sweep OUT.json ... # a `benches/flow_sweep.py --json` run
    python tools/docs_tables.py add gym-steps OUT.json ...  # a `benches/gym_steps.py --json` run

A generated block sits between ``<!-- BEGIN generated: NAME -->`` and
``<!-- END generated: NAME -->``; the hand-written text around it is kept.
With both markers on one line (``... <!-- BEGIN generated: NAME -->63 of
120<!-- END generated: NAME --> ...``) the block is a phrase inside a
sentence or a table cell: a figure that running text quotes from a
generated table, kept to the table's value the same way.
Sources, one per page:

* docs/experiments.md: the experiment registry (``ccsim.experiments.REGISTRY``:
  each module's ``SOURCE``, ``DESCRIPTION``, ``scenarios``), the quick-run
  checks in ``tests/snapshots/checks/ID.json``, and the hand-kept record of
  full runs and deviation causes in ``docs/experiments-notes.toml``;
* docs/performance.md: the bench rows (``ccsim.bench.BENCHMARKS``) and the
  recorded measurements in ``benches/results/*.json``, less those ``HISTORY``
  hands to a dated record in docs/decisions/ (the present figures only), and
  the ns-3 suite's wall times quoted in its text;
* docs/validation.md: the ns-2 and ns-3 suites' ``markdown()`` over their
  checked-in results (``validation/results/{ns2,ns3,ns3-aqm,ns3-bbr}/*.json``,
  what ``python -m validation.run`` writes) and the ns-3 mappings
  (``ns3_suite``, ``ns3_aqm``, ``ns3_bbr``: ``defaults_markdown()``), and
  the BBR comparison's long runs (``ns3_bbr.share_markdown()`` over
  ``validation/results/ns3-bbr/ns3-bbr-share.json``), and the XCP grid's
  tables (``xcp_bdp``'s over ``validation/results/xcp-bdp/*.json``), and the
  figures its index quotes from those tables, from the Sack1 traces
  (``validation/results/ns2/sack1*.json``) and from the ``*-ns2`` and
  ``modern-l4s`` experiments' checks (as docs/experiments.md gives them);
* docs/decisions/README.md: the index of the decision records;
* docs/adding-a-controller.md: the hooks of ``CongestionControl`` (its doc
  comments in ``transport/cc/mod.rs``) and of ``ccsim.Controller`` (its
  docstrings), and what each built-in controller declares it needs (the
  engine's catalog).

``tests/test_docs_tables.py`` fails when a block differs from what this
script produces.
"""
from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SNAPSHOTS = ROOT / "tests" / "snapshots" / "checks"
FULL = ROOT / "tests" / "snapshots" / "full"
NOTES = DOCS / "experiments-notes.toml"
BENCH_RESULTS = ROOT / "benches" / "results"
DECISIONS = DOCS / "decisions"

#: Paper subpackages in page order, with the heading of their part of docs/experiments.md.
PAPERS = (("etcp", "E-TCP"), ("ltcp", "LTCP"), ("htcp", "H-TCP"), ("pxcp", "paced XCP/TCP"), ("gwa", "GWA"),
          ("modern", "today's congestion control"))

#: The classes of an explained miss (a failing check), as docs/experiments.md names them.
#: Every full-run miss is one of the first four or it is untraced; ``quick``
#: explains a quick-run miss only (a transient of the shortened run).
FULL_CLASSES = {
    "ns-2": "ns-2.35 agrees with ccsim",
    "paper": "the paper",
    "model": "model difference",
    "draw": "draw",
}
CLASSES = {**FULL_CLASSES, "quick": "quick run only"}

#: Sections of docs/performance.md that hold recorded measurements (``section`` of a record).
PERF_SECTIONS = ("engine", "mechanism", "etcp", "scale", "ns2", "ns3", "memory", "controllers", "learned")

#: Records that no longer give the present figures: docs/performance.md leaves
#: them out and links, from its index of rows, the dated record in
#: docs/decisions/ named here, which summarises them and cites each one's file.
#: The files stay in benches/results/ with every column and note.
#: {record id: decision record}.
HISTORY: Dict[str, str] = {
    **dict.fromkeys(("2026-11-27-epyc-scale-cpu", "2026-11-27-epyc-scale-rows", "2026-11-28-zen5-scale-columns",
                     "2026-11-28b-zen5-scale-chained-queues", "2026-11-28c-zen5-scale-smaller-agents",
                     "2026-11-28d-zen5-scale-one-cut-log", "2026-11-28e-zen5-scale-smaller-rows-and-agents",
                     "2026-11-28f-zen5-scale-results-after-the-run",
                     "2026-11-28g-zen5-scale-smaller-links-and-agents"), "2026-11-29-s-rows-history.md"),
    **dict.fromkeys(("2026-11-27c-zen5-peer-ns2-s1", "2026-11-28-zen5-peer-ns2-s1"),
                    "2026-11-29-s1-against-ns2-history.md"),
}


def begin(name: str) -> str:
    return f"<!-- BEGIN generated: {name} -->"


def end(name: str) -> str:
    return f"<!-- END generated: {name} -->"


def _block(name: str) -> "re.Pattern[str]":
    """A block: its markers, a newline after the first unless the block sits
    inside a line (group 1), and its text (group 2)."""
    return re.compile(re.escape(begin(name)) + r"(\n?)(.*?)\n?" + re.escape(end(name)), re.S)


def replace_block(text: str, name: str, body: str) -> str:
    """``text`` with the block ``name`` holding ``body``; the block must exist.
    A block inside a line stays inside it, so its body must be one line."""
    m = _block(name).search(text)
    if m is None:
        raise KeyError(f"no block {name!r} (add {begin(name)} ... {end(name)} to the page)")
    if m.group(1):
        new = f"{begin(name)}\n{body.rstrip()}\n{end(name)}"
    elif "\n" in body.strip():
        raise ValueError(f"block {name!r} sits inside a line, and its text has more than one line")
    else:
        new = f"{begin(name)}{body.strip()}{end(name)}"
    return text[:m.start()] + new + text[m.end():]


def read_block(text: str, name: str) -> Optional[str]:
    m = _block(name).search(text)
    return None if m is None else m.group(2)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text."""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def cell(x: Any) -> str:
    """A value in a table cell: numbers to 4 significant digits, ``|`` escaped."""
    if x is None:
        return "n/a"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if x != x:
            return "n/a"
        if x == int(x) and abs(x) < 1e6:
            return str(int(x))
        return f"{x:.4g}"
    return str(x).replace("|", "\\|").replace("\n", " ")


def _natural(s: str) -> List[Any]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


# ---- docs/experiments.md -----------------------------------------------------------------------


def _toml(path: Path) -> Dict[str, Any]:
    try:
        import tomllib  # type: ignore[import-not-found]
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _experiments() -> List[Tuple[str, Any]]:
    from ccsim.experiments import REGISTRY

    order = [p for p, _ in PAPERS]
    return sorted(REGISTRY.items(), key=lambda kv: (order.index(_paper_of(kv[1])), _natural(kv[0])))


def _paper_of(exp: Any) -> str:
    return exp.module.split(".")[2]


def _snapshot(exp_id: str) -> List[Dict[str, Any]]:
    return json.loads((SNAPSHOTS / f"{exp_id}.json").read_text(encoding="utf-8"))


def _full(exp_id: str) -> Optional[List[Dict[str, Any]]]:
    """The recorded full run's checks of ``exp_id`` (``tests/snapshots/full``),
    or None when that run did not record it."""
    path = FULL / f"{exp_id}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def full_run() -> Dict[str, Any]:
    """The recorded full run's provenance: ``date``, ``engine`` (the commit),
    ``command``, ``wall_s`` (``tests/snapshots/full/run.json``), and
    ``reruns``: later full runs of some experiments (``--paper`` or one
    ID), each with its own provenance and ``experiments``, whose checks
    replaced those of the first run."""
    return json.loads((FULL / "run.json").read_text(encoding="utf-8"))


def full_rerun_of(exp_id: str) -> Optional[Dict[str, Any]]:
    """The later full run that recorded ``exp_id``'s checks, or None when
    they are the first run's."""
    return next((r for r in full_run().get("reruns", []) if exp_id in r["experiments"]), None)


def _counts(checks: List[Dict[str, Any]]) -> Dict[str, Tuple[int, int]]:
    from ccsim.experiments import SOURCES

    out = {}
    for s in SOURCES:
        mine = [c for c in checks if c["source"] == s]
        out[s] = (sum(bool(c["ok"]) for c in mine), len(mine))
    return out


def _count_cell(ok_n: Tuple[int, int]) -> str:
    ok, n = ok_n
    return f"{ok}/{n}" if n else "—"


def _counts_text(counts: Dict[str, Tuple[int, int]]) -> str:
    return ", ".join(f"{s} {ok}/{n}" for s, (ok, n) in counts.items() if n) or "no checks"


def _runs(module: Any, quick: bool) -> int:
    return sum(len(s.points) for s in module.scenarios(quick))


def _causes(note: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The experiment's causes, each with a known ``class``."""
    out = note.get("causes", [])
    for cz in out:
        if cz.get("class") not in CLASSES:
            raise ValueError(f"docs/experiments-notes.toml: cause {cz.get('match')!r} has class "
                             f"{cz.get('class')!r}; allowed: {', '.join(CLASSES)}")
    return out


def classify(checks: List[Dict[str, Any]], note: Dict[str, Any],
             full: bool) -> List[Tuple[int, Dict[str, Any], Optional[Dict[str, Any]]]]:
    """Every failing check of a run as ``(number, check, cause)``: the first
    cause whose ``match`` is in the check's quantity, or None (untraced). A
    cause of class ``quick`` (a transient of the shortened run) accounts for
    quick-run misses only: a full-run miss it matches looks further, and is
    untraced if nothing else matches."""
    out, causes = [], _causes(note)
    for i, c in enumerate(checks, 1):
        if c["ok"]:
            continue
        cause = next((cz for cz in causes if cz["match"] in c["quantity"]
                      and not (full and cz["class"] == "quick")), None)
        out.append((i, c, cause))
    return out


def _class_counts(checks: List[Dict[str, Any]], note: Dict[str, Any]) -> Dict[str, int]:
    counts = dict.fromkeys(list(FULL_CLASSES) + ["untraced"], 0)
    for _, _, cz in classify(checks, note, full=True):
        counts[cz["class"] if cz else "untraced"] += 1
    return counts


def experiments_summary() -> str:
    from ccsim.experiments import SOURCES

    lines = [
        "| experiment | quick: paper | model | consistency | ns-2 | full: paper | model | consistency | ns-2 "
        "| open (quick) | open (full) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    sums = {(run, s): [0, 0] for run in ("quick", "full") for s in SOURCES}
    for exp_id, _ in _experiments():
        quick, full = _snapshot(exp_id), _full(exp_id) or []
        cells = []
        for run, checks in (("quick", quick), ("full", full)):
            counts = _counts(checks)
            for s, (ok, n) in counts.items():
                sums[(run, s)][0] += ok
                sums[(run, s)][1] += n
            cells += [_count_cell(counts[s]) for s in SOURCES]
        bad_q = sum(not c["ok"] for c in quick)
        bad_f = sum(not c["ok"] for c in full)
        lines.append(f"| [`{exp_id}`](#{slug(exp_id)}) | " + " | ".join(cells)
                     + f" | {bad_q or 'none'} | {(bad_f or 'none') if full else 'not recorded'} |")
    lines.append("| **total** | " + " | ".join(f"**{ok}/{n}**" for ok, n in sums.values()) + " | | |")
    return "\n".join(lines)


def experiments_ledger() -> str:
    """Per paper: the full run's checks within tolerance and its misses by
    class (docs/experiments-notes.toml's causes), paper-source checks first."""
    notes = _toml(NOTES)
    head = ("| paper | source | within tolerance | " + " | ".join(FULL_CLASSES.values()) + " | untraced |")
    lines = [head, "|" + "---|" * (4 + len(FULL_CLASSES))]
    totals: Dict[str, List[int]] = {}
    for paper, title in PAPERS:
        for which in ("paper", "other"):
            ok = n = 0
            by = dict.fromkeys(list(FULL_CLASSES) + ["untraced"], 0)
            for exp_id, exp in _experiments():
                if _paper_of(exp) != paper:
                    continue
                checks = [c for c in (_full(exp_id) or [])
                          if (c["source"] == "paper") == (which == "paper")]
                ok += sum(bool(c["ok"]) for c in checks)
                n += len(checks)
                for k, v in _class_counts(checks, notes.get(exp_id, {})).items():
                    by[k] += v
            if not n:
                continue
            row = [ok, n] + list(by.values())
            t = totals.setdefault(which, [0] * len(row))
            totals[which] = [a + b for a, b in zip(t, row)]
            src = "paper" if which == "paper" else "model, consistency, ns-2"
            lines.append(f"| {title} | {src} | {ok}/{n} | " + " | ".join(str(v) for v in by.values()) + " |")
    for which, t in totals.items():
        src = "paper" if which == "paper" else "model, consistency, ns-2"
        lines.append(f"| **all** | {src} | **{t[0]}/{t[1]}** | " + " | ".join(f"**{v}**" for v in t[2:]) + " |")
    return "\n".join(lines)


def _check_row(i: int, c: Dict[str, Any]) -> str:
    src = c["source"] + (f" (read from {c['read_from']})" if c.get("read_from") else "")
    tol = c.get("tolerance")
    if tol is None:
        tol_s = "—"
    elif c.get("relative", True):
        tol_s = f"{tol * 100:g}%"
    else:
        tol_s = cell(float(tol))
    return (f"| {i} | {cell(c['quantity'])} | {src} | {cell(c['paper'])} | {cell(c['ccsim'])} | {tol_s} | "
            f"{'ok' if c['ok'] else '**no**'} |")


def _deviations(checks: List[Dict[str, Any]], note: Dict[str, Any], full: bool) -> List[str]:
    run = "full run" if full else "quick run"
    bad = classify(checks, note, full)
    if not bad:
        return [f"- **Open deviations ({run}):** none."]
    groups: Dict[int, List[Tuple[int, Dict[str, Any]]]] = {}
    causes = _causes(note)
    for i, c, cz in bad:
        groups.setdefault(causes.index(cz) if cz else -1, []).append((i, c))
    out = [f"- **Open deviations ({run}), {len(bad)} of {len(checks)} checks:**"]
    for k in sorted(groups, key=lambda k: (k < 0, k)):
        which = "; ".join(f"#{i} {cell(c['quantity'])}: ccsim {cell(c['ccsim'])} against {cell(c['paper'])} "
                          f"({c['source']})" for i, c in groups[k])
        if k < 0:
            out.append(f"  - {which}. *Untraced:* no cause recorded (add it to docs/experiments-notes.toml).")
        else:
            label = CLASSES[causes[k]["class"]]
            label = label if label.startswith("ns-2") else label.capitalize()
            out.append(f"  - {which}. *{label}:* {causes[k]['cause'].strip()}")
    return out


def _check_table(title: str, checks: List[Dict[str, Any]]) -> List[str]:
    return (["", f"<details><summary>{title}</summary>", "",
             "| # | check | source | reference | ccsim | tolerance | ok |", "|---|---|---|---|---|---|---|"]
            + [_check_row(i, c) for i, c in enumerate(checks, 1)] + ["", "</details>"])


def experiment_entry(exp_id: str, exp: Any, note: Dict[str, Any]) -> str:
    m = exp.figure
    checks, full = _snapshot(exp_id), _full(exp_id)
    rel = Path(*exp.module.split(".")[1:]).with_suffix(".py")
    desc = exp.description[:1].upper() + exp.description[1:]
    out = [f"### `{exp_id}`", "", f"**{exp.paper}.** {desc.rstrip('.')}.", ""]
    if m is not None:
        q, f = _runs(m, True), _runs(m, False)
        runs = "no simulation (a model against the paper)" if f == 0 else f"{q} in the quick run, {f} in the full run"
        if getattr(m, "scenarios_after", None) is not None:
            runs += ", plus a second stage built from the first's results"
        if getattr(m, "NS2_FIGURE", False):
            runs += "; TCP-family flows as ns-2.35's agents ([ns-2 mode](#ns-2-mode-of-the-reproductions))"
        out.append(f"- **Runs:** {runs}. Module: `python/ccsim/{rel.as_posix()}`.")
    out.append(f"- **Quick run** (`ccsim reproduce {exp_id} --quick`; checks in "
               f"`tests/snapshots/checks/{exp_id}.json`): {_counts_text(_counts(checks))}.")
    if full is not None:
        line = (f"- **Full run** (`ccsim reproduce {exp_id}`; checks in `tests/snapshots/full/{exp_id}.json`): "
                f"{_counts_text(_counts(full))}.")
        rerun = full_rerun_of(exp_id)
        if rerun is not None:
            line += f" Run again on {rerun['date']}, engine {rerun['engine']}."
        if note.get("full"):
            line += f" {note['full'].strip()}"
        out.append(line)
        out += _deviations(full, note, full=True)
    else:
        out.append("- **Full run:** not recorded.")
    out += _deviations(checks, note, full=False)
    if note.get("about"):
        out.append(f"- **Notes:** {note['about'].strip()}")
    out += _check_table(f"All {len(checks)} quick-run checks", checks)
    if full is not None:
        out += _check_table(f"All {len(full)} full-run checks", full)
    return "\n".join(out)


def experiments_paper(paper: str) -> str:
    notes = _toml(NOTES)
    entries = [experiment_entry(i, e, notes.get(i, {})) for i, e in _experiments() if _paper_of(e) == paper]
    return "\n\n".join(entries)


def experiments_full_run() -> str:
    """The provenance sentence of the recorded full run."""
    r = full_run()
    text = (f"`{r['command']}` on {r['date']}, engine {r['engine']}, {r['machine']}: "
            f"{r['wall_s'] / 60:.0f} minutes")
    for x in r.get("reruns", []):
        ids = ", ".join(f"`{i}`" for i in x["experiments"])
        text += (f"; {ids} again with `{x['command']}` on {x['date']}, engine {x['engine']}, {x['machine']}: "
                 f"{max(1, round(x['wall_s'] / 60))} minutes")
    return text


# ---- docs/performance.md -----------------------------------------------------------------------


def gym_rows(run: Dict[str, Any]) -> Tuple[List[str], List[List[Any]]]:
    """A ``benches/gym_steps.py --json`` run as a table: per case and
    number of environments, steps and simulated seconds per wall-second."""
    cols = ["case", "environments", "steps/s", "simulated s per wall s"]
    return cols, [[r["case"], str(r["envs"]), f"{r['steps_per_s']:,.0f}", f"{r['sim_s_per_wall_s']:,.1f}"]
                  for r in run["rows"]]


def _records() -> List[Dict[str, Any]]:
    recs = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(BENCH_RESULTS.glob("*.json"))]
    for r in recs:
        if r.get("section") not in PERF_SECTIONS:
            raise ValueError(f"benches/results: record {r.get('id')!r}: section {r.get('section')!r}; "
                             f"allowed: {', '.join(PERF_SECTIONS)}")
    return sorted(recs, key=lambda r: (r["date"], r["id"]), reverse=True)


def _record_heading(r: Dict[str, Any]) -> str:
    return f"{r['date']}, {r['machine_short']}: {r['title']}"


def render_record(r: Dict[str, Any]) -> str:
    out = [f"#### {_record_heading(r)}", ""]
    meta = [f"Machine: {r['machine']}", f"build: {r['build']}"]
    if r.get("commit"):
        meta.append(f"engine: {r['commit']}")
    out.append("; ".join(meta) + ".")
    cmd = r["command"]
    out.append(f"Command: {cmd}." if "`" in cmd else f"Command: `{cmd}`.")
    out += ["", "| " + " | ".join(r["columns"]) + " |", "|" + "---|" * len(r["columns"])]
    for row in r["rows"]:
        out.append("| " + " | ".join(cell(x) for x in row) + " |")
    if r.get("notes"):
        out += ["", r["notes"].strip()]
    return "\n".join(out)


def _current() -> List[Dict[str, Any]]:
    """The records performance.md shows: all but those ``HISTORY`` hands on."""
    recs = _records()
    unknown = set(HISTORY) - {r["id"] for r in recs}
    if unknown:
        raise ValueError(f"HISTORY names records not in benches/results: {', '.join(sorted(unknown))}")
    missing = {d for d in HISTORY.values() if not (DECISIONS / d).exists()}
    if missing:
        raise ValueError(f"HISTORY names decision records that do not exist: {', '.join(sorted(missing))}")
    return [r for r in recs if r["id"] not in HISTORY]


def perf_section(section: str) -> str:
    return "\n\n".join(render_record(r) for r in _current() if r["section"] == section)


def perf_index() -> str:
    from ccsim.bench import BENCHMARKS

    recs, shown = _records(), {r["id"] for r in _current()}
    lines = ["| row | scenario (`ccsim bench --help`) | recorded figures, newest first |", "|---|---|---|"]
    for name, b in BENCHMARKS.items():
        mine = [r for r in recs if any(str(row[0]) == name for row in r["rows"])]
        where = [f"[{r['date']}, {r['machine_short']}: {r['title']}](#{slug(_record_heading(r))})"
                 for r in mine if r["id"] in shown]
        older = sorted({HISTORY[r["id"]] for r in mine if r["id"] not in shown})
        where += [f"older: [{decision_title(d)}](decisions/{d})" for d in older]
        lines.append(f"| {name} | {cell(b.description)} | {', '.join(where) or 'none recorded'} |")
    return "\n".join(lines)


def perf_ns3_wall() -> str:
    """The ns-3 suite's wall times in a phrase (its generated "Wall time" table, docs/validation.md)."""
    res = json.loads((ROOT / "validation" / "results" / "ns3" / "ns3.json").read_text(encoding="utf-8"))
    walls = [(s["wall_s"]["ns3"], s["wall_s"]["ccsim"]) for s in res["scenarios"]]
    tn, tc = sum(a for a, _ in walls), sum(b for _, b in walls)
    ratios = [a / b for a, b in walls]
    recorded = res.get("ns3_recorded", res["date"])[:10]
    return (f"ns-3's column of {recorded}, ccsim's of {res['date'][:10]}: ns-3 {tn:,.0f} s against ccsim's "
            f"{tc:.1f} s over the {len(walls)} scenarios, {tn / tc:.0f}x; {min(ratios):.0f}-{max(ratios):.0f}x "
            "per scenario")


# ---- docs/validation.md and docs/decisions ------------------------------------------------------


def validation_block(peer: str) -> str:
    sys.path.insert(0, str(ROOT))
    import importlib

    mod = importlib.import_module(f"validation.{peer}_suite")
    res = json.loads((ROOT / "validation" / "results" / peer / f"{peer}.json").read_text(encoding="utf-8"))
    return mod.markdown(res)


def ns3_defaults() -> str:
    sys.path.insert(0, str(ROOT))
    from validation import ns3_suite

    return ns3_suite.defaults_markdown()


def _validation_module(name: str) -> Any:
    sys.path.insert(0, str(ROOT))
    import importlib

    return importlib.import_module(f"validation.{name}")


def ns3_peer_block(name: str) -> str:
    """A sibling ns-3 comparison's (``ns3_aqm``, ``ns3_bbr``) table over its checked-in results."""
    mod = _validation_module(name)
    res = json.loads((ROOT / "validation" / "results" / mod.NAME / mod.RESULTS).read_text(encoding="utf-8"))
    return mod.markdown(res)


def ns3_peer_defaults(name: str) -> str:
    return _validation_module(name).defaults_markdown()


def ns3_bbr_share() -> str:
    """The BBR comparison's long runs (``python -m validation.ns3_bbr --share``)."""
    mod = _validation_module("ns3_bbr")
    res = json.loads((ROOT / "validation" / "results" / mod.NAME / mod.SHARE_RESULTS).read_text(encoding="utf-8"))
    return mod.share_markdown(res)


def xcp_bdp(block: str) -> str:
    """The XCP grid's tables (``python -m validation.xcp_bdp``) over its
    checked-in results: ``grid`` (ns-2 / ccsim ns2 / ccsim rfc), ``katabi``
    (the rfc column with every buffer one BDP), ``variants`` (one flow)."""
    mod = _validation_module("xcp_bdp")
    if block == "variants":
        path = ROOT / "validation" / "results" / "xcp-bdp" / "rfc-variants.json"
        return mod.variants_markdown(json.loads(path.read_text(encoding="utf-8")))
    path = mod.RESULTS if block == "grid" else mod.KATABI_RESULTS
    rows = [r for r in json.loads(path.read_text(encoding="utf-8"))["cells"] if "seed" not in r]
    return mod.markdown(rows) if block == "grid" else mod.markdown_rfc(rows)


# ---- figures docs/validation.md's index quotes ---------------------------------------------------

#: XCP at high BDPs: ns-2 and ccsim's ``ns2`` agree on a cell when their
#: utilisations are within this and both drop or neither does (the grid's
#: ``*``); a flow fills a cell at this utilisation or above.
XCP_SAME_UTIL = 0.05
XCP_FILLS = 0.95


def within(x: float) -> str:
    """|x| as a percentage rounded up to two significant digits: a bound that
    "within" can quote (0.001351 -> "0.14%", 0.0185 -> "1.9%")."""
    v = abs(x) * 100
    if v == 0:
        return "0%"
    d = max(0, 1 - math.floor(math.log10(v)))
    return f"{math.ceil(v * 10 ** d - 1e-9) / 10 ** d:.{d}f}%"


def agreement(table: str) -> List[Tuple[int, int, str]]:
    """The (agreeing, compared, tolerance) of each "N of M metric pairs agree
    within T." sentence of a generated ns-3 comparison, in page order."""
    found = re.findall(r"^(\d+) of (\d+) metric pairs agree within (\S+?)\.$", table, re.M)
    if not found:
        raise ValueError("the table has no \"N of M metric pairs agree within T.\" sentence")
    return [(int(a), int(n), t) for a, n, t in found]


def index_agreement(table: str, which: int = 0, full: bool = True) -> str:
    a, n, tol = agreement(table)[which]
    return f"{a} of {n} metric pairs within {tol}" if full else f"{a} of {n}"


def index_baselines() -> str:
    """The E-TCP and LTCP baseline rows (the ns2 block): their largest difference."""
    from ccsim.experiments._kit import ns2ref

    res = json.loads((ROOT / "validation" / "results" / "ns2" / "ns2.json").read_text(encoding="utf-8"))
    worst = 0.0
    for r in res["parts"]["baselines"]["rows"]:
        for k in ns2ref.METRICS:
            a, b = r["ns2"][k], r["ccsim"][k]
            worst = max(worst, abs(b - a) / abs(a) if a else (0.0 if b == 0 else math.inf))
    return f"every row within {within(worst)} of ns-2 on every metric"


def index_sack1() -> str:
    """The Sack1 traces' transmissions (``validation.sack1_traces``' results)."""
    cases = [c for p in sorted((ROOT / "validation" / "results" / "ns2").glob("sack1*.json"))
             for c in json.loads(p.read_text(encoding="utf-8")).get("cases", [])]
    same = sum(c["identical"] for c in cases)
    sent = sum(max(c["ns2_sends"], c["ccsim_sends"]) for c in cases)
    names, seeds = {c["case"] for c in cases}, {c["seed"] for c in cases}
    return f"{same:,} of {sent:,} transmissions identical ({len(names)} cases x {len(seeds)} seeds)"


def _xcp_rows(block: str) -> List[Dict[str, Any]]:
    mod = _validation_module("xcp_bdp")
    path = mod.RESULTS if block == "grid" else mod.KATABI_RESULTS
    return [r for r in json.loads(path.read_text(encoding="utf-8"))["cells"] if "seed" not in r]


def index_xcp_ns2() -> str:
    """The XCP grid's ns-2 / ccsim ``ns2`` cells that agree (see ``XCP_SAME_UTIL``)."""
    rows = _xcp_rows("grid")
    same = [r for r in rows
            if not any((r["ns2"][k] > 0) != (r["ccsim_ns2"][k] > 0) for k in ("drops", "edge_drops"))
            and abs(r["ns2"]["utilization"] - r["ccsim_ns2"]["utilization"]) <= XCP_SAME_UTIL]
    return (f"{len(same)} of {len(rows)} cells within {XCP_SAME_UTIL:g} utilisation with the same drops, "
            f"the other {len(rows) - len(same)}")


def index_xcp_rfc_one_flow() -> str:
    rows = [r for r in _xcp_rows("grid") if r["flows"] == 1]
    full = [r for r in rows if r["ccsim_rfc"]["utilization"] >= XCP_FILLS]
    return f"{len(full)} of the {len(rows)}"


def index_xcp_katabi() -> str:
    rows = _xcp_rows("katabi")
    full = [r for r in rows if r["ccsim_rfc"]["utilization"] >= XCP_FILLS]
    flows = sorted({r["flows"] for r in rows})
    n = "all" if len(full) == len(rows) else f"{len(full)} of the"
    return f"{flows[0]}-{flows[-1]} flows fill {n} {len(rows)} cells"


def index_aqm_dctcp() -> str:
    """The DCTCP rows of the AQM comparison: their largest difference."""
    mod = _validation_module("ns3_aqm")
    res = json.loads((ROOT / "validation" / "results" / mod.NAME / mod.RESULTS).read_text(encoding="utf-8"))
    diffs = [mod.rel_diff(v["ns3"], v["ccsim"]) for s in res["scenarios"] if s["params"]["controller"] == "dctcp"
             for m in mod.METRICS for v in [s["metrics"].get(m)] if v is not None]
    return f"within {within(max(math.inf if d is None else abs(d) for d in diffs))}"


def index_bbr_share() -> str:
    """The BBR comparison's long runs, every segment ACKed: ccsim's mean share against ns-3's."""
    mod = _validation_module("ns3_bbr")
    res = json.loads((ROOT / "validation" / "results" / mod.NAME / mod.SHARE_RESULTS).read_text(encoding="utf-8"))
    rows = sorted((r for r in res["rows"] if not r["params"].get("delack")), key=lambda r: r["params"]["buffer_pkts"])
    bdp = [f"{r['params']['buffer_pkts'] / mod.BDP100:.0f}" for r in rows]
    share = [statistics.fmean(r["ccsim_seeds"]["bbr_share"]) for r in rows]

    def off(side: str) -> List[str]:
        return [within(mod.rel_diff(r[side]["bbr_share"], m)) for r, m in zip(rows, share)]

    return (f"at {' and '.join(bdp)} BDP within {' and '.join(off('ns3'))} of ns-3 as shipped, "
            f"{' and '.join(off('ns3_linux'))} of ns-3 with the three rules")


def index_experiment(exp_id: str, source: Optional[str] = None) -> str:
    """An experiment's checks as docs/experiments.md gives them: the quick
    run's (its snapshot) and the recorded full run's; ``source`` keeps one
    source's count."""
    quick_c, full_c = _counts(_snapshot(exp_id)), _counts(_full(exp_id) or [])
    quick = _count_cell(quick_c[source]) if source else _counts_text(quick_c)
    if not _full(exp_id):
        return f"`{exp_id}` {quick} (quick run)"
    full = _count_cell(full_c[source]) if source else _counts_text(full_c)
    return f"`{exp_id}` {quick} quick, {full} full run" if source else f"`{exp_id}` quick run {quick}; full run {full}"


PACKETDRILL_GOOGLE = ROOT / "validation" / "results" / "packetdrill" / "google.json"


def packetdrill_google() -> str:
    """Google's packetdrill scripts on the kernel and on ccsim's linux TCP
    (``python -m validation.packetdrill ... --record``), script by script."""
    rec = json.loads(PACKETDRILL_GOOGLE.read_text(encoding="utf-8"))
    ccsim = {r["script"]: r for r in rec["ccsim"]["results"]}
    kernel = {r["script"]: r for r in rec.get("kernel", {}).get("results", [])}
    lines = [f"google/packetdrill {rec['packetdrill_commit']}; ccsim engine {rec['ccsim']['engine']} "
             f"({rec['ccsim']['date']}); kernel {rec.get('kernel', {}).get('kernel', 'not run')} "
             f"({rec.get('kernel', {}).get('date', '')})", "",
             "| script | kernel | ccsim | ccsim's first difference |", "|---|---|---|---|"]
    for name in sorted(ccsim):
        k = kernel.get(name)
        c = ccsim[name]
        msg = "" if c["ok"] else c["message"].replace("|", "\\|")
        lines.append(f"| `{name}` | {'—' if k is None else 'ok' if k['ok'] else 'FAIL'} | "
                     f"{'ok' if c['ok'] else 'FAIL'} | {msg} |")
    return "\n".join(lines)


def index_packetdrill() -> str:
    rec = json.loads(PACKETDRILL_GOOGLE.read_text(encoding="utf-8"))
    n = len(rec["ccsim"]["results"])
    ok = sum(r["ok"] for r in rec["ccsim"]["results"])
    return f"{ok} of {n} on ccsim"


def _linux_kernel() -> Any:
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "python"))
    from validation import linux_kernel

    return linux_kernel


def linux_kernel_block() -> str:
    """ccsim's linux TCP against the recorded kernel runs, scenario by
    scenario (``python -m validation.linux_kernel``)."""
    lk = _linux_kernel()
    return lk.markdown(lk.comparison())


def index_linux_kernel() -> str:
    lk = _linux_kernel()
    results = lk.comparison()
    ok, traced, still_open, n = lk.agreement(results)
    differ = "differs" if traced == 1 else "differ"
    return (f"{ok} of {n} metric pairs agree, {traced} {differ} for a traced cause, {still_open} with no cause "
            f"traced yet ({len(results)} scenarios, 5 kernel runs each)")


def validation_index(blocks: Dict[str, str]) -> Dict[str, str]:
    """The figures of docs/validation.md's index (and of its text) that its
    tables give, from the tables' own blocks (``blocks``) where they say them."""
    return {
        "index-baselines": index_baselines(),
        "index-etcp-ns2": index_experiment("etcp-ns2", "ns-2"),
        "index-ltcp-ns2": index_experiment("ltcp-ns2", "ns-2"),
        "index-sack1": index_sack1(),
        "index-pxcp-ns2": index_experiment("pxcp-ns2", "ns-2"),
        "index-xcp-bdp-ns2": index_xcp_ns2(),
        "index-xcp-bdp-rfc": index_xcp_rfc_one_flow(),
        "index-xcp-bdp-katabi": index_xcp_katabi(),
        "index-gwa-ns2": index_experiment("gwa-ns2", "ns-2"),
        "index-ns3": index_agreement(blocks["ns3"]),
        "index-ns3-aqm": index_agreement(blocks["ns3-aqm"]),
        "index-ns3-aqm-dctcp": index_aqm_dctcp(),
        "ns3-aqm-dctcp": index_aqm_dctcp(),
        "index-ns3-bbr": index_agreement(blocks["ns3-bbr"]),
        "index-ns3-bbr-linux": index_agreement(blocks["ns3-bbr"], 1, full=False),
        "index-ns3-bbr-share": index_bbr_share(),
        "index-modern-l4s": index_experiment("modern-l4s"),
        "index-packetdrill": index_packetdrill(),
        "index-linux-kernel": index_linux_kernel(),
    }


def decision_title(name: str) -> str:
    """A decision record's title: its first line, the heading."""
    return (DECISIONS / name).read_text(encoding="utf-8").splitlines()[0].lstrip("# ").strip()


def decisions_index() -> str:
    lines = ["| date | record |", "|---|---|"]
    for p in sorted(DECISIONS.glob("2*.md")):
        lines.append(f"| {p.name[:10]} | [{decision_title(p.name)}]({p.name}) |")
    return "\n".join(lines)


# ---- docs/adding-a-controller.md: the hooks, from the trait and the Python base class --------------

CC_MOD = ROOT / "crates" / "ccsim-core" / "src" / "transport" / "cc" / "mod.rs"


def _first_sentence(doc: str) -> str:
    doc = " ".join(doc.split()).replace("[`", "`").replace("`]", "`")
    m = re.match(r"(.+?\.)(\s|$)", doc)
    return (m.group(1) if m else doc).rstrip(".") + "."


def rust_hooks() -> List[Tuple[str, str]]:
    """``CongestionControl``'s methods with the first sentence of each doc
    comment, in the trait's order: (signature, doc)."""
    text = CC_MOD.read_text(encoding="utf-8")
    body = text[text.index("pub trait CongestionControl"):]
    body = body[:body.index("\n}\n")]
    out, doc = [], []
    for line in body.splitlines()[1:]:
        t = line.strip()
        if t.startswith("///"):
            doc.append(t[3:].strip())
        elif t.startswith("fn "):
            m = re.match(r"fn (\w+)\((.*?)\)(?: -> ([^{;]+))?", t)
            if m:
                args = ", ".join(a.split(":")[0].strip().lstrip("_") for a in m.group(2).split(",")[1:] if a.strip())
                sig = f"{m.group(1)}({args})" + (f" -> {m.group(3).strip()}" if m.group(3) else "")
                out.append((sig, _first_sentence(" ".join(doc)) if doc else ""))
            doc = []
        elif not t.startswith("//"):
            doc = [] if t and not t.startswith("fn") else doc
    return out


def cc_hooks_rust() -> str:
    lines = ["| hook | what it is for |", "|---|---|"]
    for sig, doc in rust_hooks():
        lines.append(f"| `{sig}` | {cell(doc)} |")
    return "\n".join(lines)


def cc_hooks_python() -> str:
    """``ccsim.Controller``'s hooks, each with its Linux name and docstring."""
    import inspect

    sys.path.insert(0, str(ROOT / "python"))
    from ccsim import controller

    linux = {"init": "init", "cong_avoid": "cong_avoid", "ssthresh": "ssthresh", "ssthresh_ecn": "ssthresh (CWR)",
             "pkts_acked": "pkts_acked", "on_ack": "in_ack_event", "cwnd_event": "cwnd_event, set_state, undo_cwnd",
             "cong_control": "cong_control", "ecn_alpha": "(DCTCP's alpha for the flow series)"}
    lines = ["| hook | Linux | when |", "|---|---|---|"]
    for h in controller.HOOKS:
        fn = getattr(controller.Controller, h)
        params = [p for p in inspect.signature(fn).parameters if p != "self"]
        doc = inspect.cleandoc(fn.__doc__ or "").replace("\n", " ").replace("``", "`").replace(":meth:", "")
        lines.append(f"| `{h}({', '.join(params)})` | `{linux[h]}` | {cell(doc)} |")
    return "\n".join(lines)


def cc_needs() -> str:
    """What each built-in controller declares it needs (the engine's catalog)."""
    sys.path.insert(0, str(ROOT / "python"))
    from ccsim._native import core

    lines = ["| controller | sets its pacing rate | ECN | path |", "|---|---|---|---|"]
    for e in json.loads(core().catalog())["controllers"]:
        if e["origin"] != "built-in":
            continue
        ecn = e["ecn"]
        ecn_text = "as the flow sets it" if not ecn else "; ".join(
            x for x in ("required" if ecn.get("required") else "",
                        "ECT(1)" if ecn.get("ect") == "ect1" else "",
                        f"feedback {ecn['feedback']}" + (" (required)" if ecn.get("feedback_required") else
                                                        " (default with ECN on)") if ecn.get("feedback") else "")
            if x)
        lines.append(f"| `{e['name']}` | {'yes' if e['pacing_rate'] else 'no'} | {ecn_text} | "
                     f"{('the `' + e['path_stage'] + '` router stage on it') if e['path_stage'] else 'any'} |")
    return "\n".join(lines)


def tcp_model_defaults() -> str:
    """Every TCP field's default under each personality, as the engine's
    personalities fill an empty flow (the catalog's ``by_model``)."""
    sys.path.insert(0, str(ROOT / "python"))
    from ccsim._native import core

    tcp = next(t for t in json.loads(core().catalog())["transports"] if t["name"] == "tcp")

    def show(v: Any) -> str:
        if v is None:
            return "—"
        if isinstance(v, dict):
            return ", ".join(f"{k} = {json.dumps(x)}" for k, x in sorted(v.items())) or "{}"
        return f"`{json.dumps(v)}`"

    lines = ["| field | rfc | ns2 | linux |", "|---|---|---|---|"]
    for p in tcp["params"]:
        if p["name"] == "tcp_model":
            continue
        by = p["by_model"]
        row = [show(by.get(m)) for m in ("rfc", "ns2", "linux")]
        name = f"`{p['name']}`" if len(set(row)) == 1 else f"**`{p['name']}`**"
        lines.append(f"| {name} | " + " | ".join(cell(x) for x in row) + " |")
    return "\n".join(lines)


def _default_value(v: Any) -> str:
    """A default as the flow table writes it (whole numbers without a
    point, large ones as powers of ten)."""
    if isinstance(v, float) and v == int(v):
        return f"`{v:.0e}`".replace("e+0", "e") if abs(v) >= 1e6 else f"`{int(v)}`"
    return f"`{json.dumps(v)}`"


def flow_default(f: Dict[str, Any]) -> str:
    """A flow field's default: the `rfc` personality's (or its transport's)
    value, each other personality's where it differs, then the
    declaration's note for what depends on another field."""
    note = f.get("default_note", "")
    by = f.get("by_model")
    # `tcp_model` is the personality itself: each names its own
    if by and f["name"] != "tcp_model":
        base = by["rfc"]
        others = [f"`{m}`: {_default_value(by[m]) if by[m] is not None else 'absent'}"
                  for m in ("ns2", "linux") if by[m] != base]
    else:
        base, others = f["default"], []
    if base is None:
        text = note or "absent"
        note = ""
    else:
        text = _default_value(base)
    if others:
        text += f" ({'; '.join(others)})"
    return f"{text}; {note}" if note else text


def flow_fields() -> str:
    """docs/scenario.md's flow table, from the fields' declaration in
    `FlowSpec` (the catalog's ``flow_fields``): name, values, default, doc."""
    sys.path.insert(0, str(ROOT / "python"))
    from ccsim._native import core

    names = {"common": "all", "tcp": "TCP", "etcp": "E-TCP", "udp": "UDP"}
    lines = ["| field | transports | type | default | meaning |", "|---|---|---|---|---|"]
    for f in json.loads(core().catalog())["flow_fields"]:
        owners = ", ".join(names[o] for o in f["owners"])
        lines.append(f"| `{f['name']}` | {owners} | {cell(f['values'])} | {cell(flow_default(f))} | {cell(f['doc'])} |")
    return "\n".join(lines)


# ---- all blocks --------------------------------------------------------------------------------


def generated() -> Dict[Path, Dict[str, str]]:
    """Every page's generated blocks: {page: {block name: body}}."""
    validation = {"ns3-defaults": ns3_defaults(), "ns3": validation_block("ns3"),
                  "ns3-aqm-defaults": ns3_peer_defaults("ns3_aqm"), "ns3-aqm": ns3_peer_block("ns3_aqm"),
                  "ns3-bbr-defaults": ns3_peer_defaults("ns3_bbr"), "ns3-bbr": ns3_peer_block("ns3_bbr"),
                  "ns3-bbr-share": ns3_bbr_share(),
                  "ns2": validation_block("ns2"), "xcp-bdp": xcp_bdp("grid"),
                  "xcp-bdp-variants": xcp_bdp("variants"), "xcp-bdp-katabi": xcp_bdp("katabi"),
                  "packetdrill-google": packetdrill_google(), "linux-kernel": linux_kernel_block()}
    return {
        DOCS / "experiments.md": dict(
            [("experiments-summary", experiments_summary()), ("experiments-ledger", experiments_ledger()),
             ("experiments-full-run", experiments_full_run())]
            + [(f"experiments-{p}", experiments_paper(p)) for p, _ in PAPERS]),
        DOCS / "performance.md": dict(
            [("perf-index", perf_index())] + [(f"perf-{s}", perf_section(s)) for s in PERF_SECTIONS]
            + [("perf-ns3-wall", perf_ns3_wall())]),
        DOCS / "validation.md": {**validation, **validation_index(validation)},
        DOCS / "tcp-models.md": {"tcp-model-defaults": tcp_model_defaults()},
        DOCS / "scenario.md": {"flow-fields": flow_fields()},
        DECISIONS / "README.md": {"decisions-index": decisions_index()},
        DOCS / "adding-a-controller.md": {"cc-hooks-rust": cc_hooks_rust(), "cc-hooks-python": cc_hooks_python(),
                                          "cc-needs": cc_needs()},
    }


def stale() -> List[Tuple[Path, str]]:
    """The (page, block) pairs whose text differs from what would be generated."""
    out = []
    for page, blocks in generated().items():
        text = page.read_text(encoding="utf-8")
        for name, body in blocks.items():
            if read_block(text, name) is None or replace_block(text, name, body) != text:
                out.append((page, name))
    return out


def write_all() -> List[Path]:
    changed = []
    for page, blocks in generated().items():
        text = page.read_text(encoding="utf-8")
        new = text
        for name, body in blocks.items():
            new = replace_block(new, name, body)
        if new != text:
            page.write_text(new, encoding="utf-8")
            changed.append(page)
    return changed


# ---- recording a measurement -------------------------------------------------------------------


def _fmt(x: Any, spec: str) -> str:
    return "—" if x is None else format(x, spec)


def bench_rows(rows: List[Dict[str, Any]]) -> Tuple[List[str], List[List[str]]]:
    """A `ccsim bench --json` run as a record's columns and rows."""
    cols = ["row", "wall (s)", "bottleneck kpkt/s", "events/pkt", "util.", "loss", "peak RSS (MB)", "vs B3",
            "vs own", "vs B5"]
    # controller rows' events/s over their base row's, when the batch ran it
    base = any("vs_base" in r for r in rows)
    out = []
    for r in rows:
        out.append([r["name"], _fmt(r.get("wall_s"), ".3f"), _fmt(r["bottleneck_pkts_per_s"] / 1e3, ",.0f"),
                    _fmt(r.get("events_per_bottleneck_pkt"), ".2f"), _fmt(r.get("utilization"), ".3f"),
                    _fmt(r.get("loss_rate"), ".2e"), _fmt(r.get("peak_rss_mb"), ".1f"),
                    _fmt(r.get("vs_B3_pkts"), ".2f"), _fmt(r.get("vs_own_pkts"), ".2f"),
                    _fmt(r.get("vs_B5_pkts"), ".2f")] + ([_fmt(r.get("vs_base"), ".3f")] if base else []))
    return cols + (["vs base"] if base else []), out


def peer_rows(rows: List[Dict[str, Any]]) -> Tuple[List[str], List[List[str]]]:
    """A `benches/peer_ns2.py --json` run as a record's columns and rows."""
    cols = ["row", "ccsim wall (s)", "ns-2 wall (s)", "ns-2 set-up (s)", "ccsim kpkt/s", "ns-2 kpkt/s",
            "ccsim / ns-2", "run only", "of B3, ccsim / ns-2", "util. ccsim / ns-2", "CPU ccsim / ns-2 (s)",
            "by CPU: ccsim / ns-2, run only"]
    out = []
    for r in rows:
        ns_pps = r["ns2_pkts"] / r["ns2_wall_s"] / 1e3 if r.get("ns2_wall_s") else None
        of = r.get("of_B3") or {}
        out.append([r["name"], _fmt(r["ccsim_wall_s"], ".3f"), _fmt(r.get("ns2_wall_s"), ".2f"),
                    _fmt(r.get("ns2_setup_s"), ".3f"), _fmt(r["ccsim_pkts"] / r["ccsim_wall_s"] / 1e3, ",.0f"),
                    _fmt(ns_pps, ",.0f"), _fmt(r.get("ratio"), ".1f") + ("x" if r.get("ratio") else ""),
                    _fmt(r.get("ratio_run_only"), ".1f") + ("x" if r.get("ratio_run_only") else ""),
                    f"{_fmt(of.get('ccsim'), '.2f')} / {_fmt(of.get('ns2'), '.2f')}" if of else "—",
                    f"{_fmt(r.get('ccsim_utilization'), '.3f')} / {_fmt(r.get('ns2_utilization'), '.3f')}"
                    if r.get("ccsim_utilization") is not None or r.get("ns2_utilization") is not None else "—",
                    f"{_fmt(r.get('ccsim_cpu_s'), '.2f')} / {_fmt(r.get('ns2_cpu_s'), '.1f')}"
                    if r.get("ccsim_cpu_s") is not None or r.get("ns2_cpu_s") is not None else "—",
                    f"{_fmt(r.get('ratio_cpu'), '.1f')}x, {_fmt(r.get('ratio_cpu_run_only'), '.1f')}x"
                    if r.get("ratio_cpu") else "—"])
    return cols, out


def sweep_rows(rows: List[Dict[str, Any]]) -> Tuple[List[str], List[List[str]]]:
    """A `benches/flow_sweep.py --json` run as a record's columns and rows."""
    cols = ["flows", "buffer (pkts)", "wall (s)", "bottleneck kpkt/s", "of the first point", "events/pkt",
            "ns per bottleneck pkt", "over the first point (ns)", "loss"]
    out = []
    for r in rows:
        out.append([f"{r['flows']:,}", f"{r['buffer_pkts']:,}", _fmt(r["wall_s"], ".3f"),
                    _fmt(r["bottleneck_pkts_per_s"] / 1e3, ",.0f"), _fmt(r["vs_first_pkts"], ".2f"),
                    _fmt(r["events_per_bottleneck_pkt"], ".2f"), _fmt(r["ns_per_bottleneck_pkt"], ",.0f"),
                    _fmt(r["extra_ns_per_pkt"], ",.0f"), _fmt(r.get("loss_rate"), ".2e")])
    return cols, out


def peer_ns3_rows(rows: List[Dict[str, Any]]) -> Tuple[List[str], List[List[str]]]:
    """A `benches/peer_ns3.py --json` run as a record's columns and rows."""
    cols = ["row", "ns-3 side", "simulated (s)", "ccsim wall (s)", "ns-3 wall (s)", "ns-3 CPU (s)", "ccsim kpkt/s",
            "ns-3 kpkt/s", "ccsim / ns-3 (target ≥ 100x)", "bottleneck packets ccsim / ns-3", "util. ccsim / ns-3",
            "events/pkt"]
    out = []
    for r in rows:
        ns_pps = r["ns3_pkts"] / r["ns3_wall_s"] / 1e3 if r.get("ns3_wall_s") else None
        pkts = r["ccsim_pkts"] / r["ns3_pkts"] if r.get("ns3_pkts") else None
        out.append([r["name"], r.get("stand_in") or "the same scenario", _fmt(r.get("simulated_s"), "g"),
                    _fmt(r["ccsim_wall_s"], ".3f"),
                    _fmt(r.get("ns3_wall_s"), ".1f"),
                    _fmt(r.get("ns3_cpu_s"), ".1f"),
                    _fmt(r["ccsim_pkts"] / r["ccsim_wall_s"] / 1e3, ",.0f"), _fmt(ns_pps, ",.1f"),
                    _fmt(r.get("ratio"), ".0f") + ("x" if r.get("ratio") else ""), _fmt(pkts, ".3f"),
                    f"{_fmt(r.get('ccsim_utilization'), '.3f')} / {_fmt(r.get('ns3_utilization'), '.3f')}",
                    _fmt(r.get("events_per_pkt"), ".2f")])
    return cols, out


def _rel(p: Path) -> str:
    try:
        return str(p.relative_to(ROOT))
    except ValueError:
        return str(p)


def record_full_run(out: Path, date: str, machine: str, commit: str, command: str, rerun: bool = False) -> int:
    """Copy every experiment's checks of a full ``reproduce --all`` run into
    ``tests/snapshots/full/ID.json`` and its provenance into ``run.json``.
    With ``rerun`` the run (``--all --paper ...``) covers some experiments:
    their checks replace the recorded ones and its provenance joins
    ``run.json``'s ``reruns`` (an experiment is in one rerun at most);
    without it the run must cover every experiment and starts the record
    afresh."""
    from ccsim.experiments import REGISTRY

    doc = json.loads((out / "reproduce-all.json").read_text(encoding="utf-8"))
    if doc.get("quick"):
        print(f"{out}: a --quick run; the full-run record needs a run without --quick", file=sys.stderr)
        return 1
    errors = {i: e["error"] for i, e in doc["experiments"].items() if e.get("error")}
    if errors:
        print(f"{out}: experiments failed: {errors}", file=sys.stderr)
        return 1
    ids = list(doc["experiments"])
    missing = sorted(set(REGISTRY) - set(ids))
    if missing and not rerun:
        print(f"{out}: the run leaves out {', '.join(missing)}; record it with `add full-rerun`, or run them all",
              file=sys.stderr)
        return 1
    FULL.mkdir(parents=True, exist_ok=True)
    prov = {"date": date, "engine": commit, "machine": machine, "command": command,
            "wall_s": doc["wall_s"], "runs_computed": doc["runs_computed"], "runs_cached": doc["runs_cached"]}
    if rerun:
        run = full_run()
        reruns = [{**r, "experiments": [i for i in r["experiments"] if i not in ids]} for r in run.get("reruns", [])]
        run["reruns"] = [r for r in reruns if r["experiments"]] + [{**prov, "experiments": ids}]
    else:
        for old in FULL.glob("*.json"):
            old.unlink()
        run = prov
    for exp_id in ids:
        checks = json.loads((out / exp_id / "checks.json").read_text(encoding="utf-8"))["checks"]
        (FULL / f"{exp_id}.json").write_text(json.dumps(checks, indent=1, ensure_ascii=False) + "\n",
                                             encoding="utf-8")
    (FULL / "run.json").write_text(json.dumps(run, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(ids)} experiments' checks into {_rel(FULL)}; now run python tools/docs_tables.py")
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:2] in (["add", "full-run"], ["add", "full-rerun"]):
        rerun = argv[1] == "full-rerun"
        ap = argparse.ArgumentParser(
            prog=f"docs_tables.py add {argv[1]}",
            description=("record a `ccsim reproduce --all --paper ...` run (without --quick) of some experiments "
                         "in tests/snapshots/full/, beside the recorded full run" if rerun else
                         "record a `ccsim reproduce --all` run (without --quick) as tests/snapshots/full/"))
        ap.add_argument("out", type=Path, help="the run's --out directory")
        for k in ("date", "machine", "commit", "command"):
            ap.add_argument(f"--{k}", required=True)
        a = ap.parse_args(argv[2:])
        return record_full_run(a.out, a.date, a.machine, a.commit, a.command, rerun)
    if argv[:1] == ["add"]:
        ap = argparse.ArgumentParser(prog="docs_tables.py add", description="record a measurement run")
        ap.add_argument("kind", choices=("bench", "peer-ns2", "peer-ns3", "flow-sweep", "gym-steps"))
        ap.add_argument("json", type=Path, help="the run's --json output")
        for k in ("id", "title", "section", "date", "machine", "machine-short", "build", "command"):
            ap.add_argument(f"--{k}", required=True)
        ap.add_argument("--notes", default="")
        ap.add_argument("--commit", default="", help="the engine's commit (shown as \"engine\")")
        a = ap.parse_args(argv[1:])
        if a.section not in PERF_SECTIONS:
            ap.error(f"--section: {a.section!r}; allowed: {', '.join(PERF_SECTIONS)}")
        rows = json.loads(a.json.read_text(encoding="utf-8"))
        cols, body = {"bench": bench_rows, "peer-ns2": peer_rows, "peer-ns3": peer_ns3_rows,
                      "flow-sweep": sweep_rows, "gym-steps": gym_rows}[a.kind](rows)
        rec = {"id": a.id, "title": a.title, "section": a.section, "date": a.date, "machine": a.machine,
               "machine_short": a.machine_short, "build": a.build, "command": a.command, "columns": cols,
               "rows": body, "notes": a.notes, **({"commit": a.commit} if a.commit else {})}
        path = BENCH_RESULTS / f"{a.id}.json"
        path.write_text(json.dumps(rec, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {_rel(path)}; now run python tools/docs_tables.py")
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if a generated block is not current")
    a = ap.parse_args(argv)
    if a.check:
        bad = stale()
        for page, name in bad:
            print(f"{_rel(page)}: block {name!r} is not current", file=sys.stderr)
        if bad:
            print("run: python tools/docs_tables.py", file=sys.stderr)
        return 1 if bad else 0
    for page in write_all():
        print(f"rewrote {_rel(page)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
