"""Regenerate the generated tables of the docs, or check that they are current.

    python tools/docs_tables.py            # rewrite every generated block
    python tools/docs_tables.py --check    # exit 1 if a block differs (what CI runs)
    python tools/docs_tables.py add bench OUT.json --id ID --title T --section S \
        --date YYYY-MM-DD --machine M --build B --command C
                                           # record a `ccsim bench --json` run
    python tools/docs_tables.py add peer-ns2 OUT.json ...   # a `benches/peer_ns2.py --json` run
    python tools/docs_tables.py add peer-ns3 OUT.json ...   # a `benches/peer_ns3.py --json` run
    python tools/docs_tables.py add flow-sweep OUT.json ... # a `benches/flow_sweep.py --json` run

A generated block sits between ``<!-- BEGIN generated: NAME -->`` and
``<!-- END generated: NAME -->``; the hand-written text around it is kept.
Sources, one per page:

* docs/experiments.md: the experiment registry (``ccsim.experiments.REGISTRY``:
  each module's ``SOURCE``, ``DESCRIPTION``, ``scenarios``), the quick-run
  checks in ``tests/snapshots/checks/ID.json``, and the hand-kept record of
  full runs and deviation causes in ``docs/experiments-notes.toml``;
* docs/performance.md: the bench rows (``ccsim.bench.BENCHMARKS``) and the
  recorded measurements in ``benches/results/*.json``;
* docs/validation.md: the ns-2 and ns-3 suites' ``markdown()`` over their
  checked-in results (``validation/results/{ns2,ns3,ns3-aqm,ns3-bbr}/*.json``,
  what ``python -m validation.run`` writes) and the ns-3 mappings
  (``ns3_suite``, ``ns3_aqm``, ``ns3_bbr``: ``defaults_markdown()``), and
  the BBR comparison's long runs (``ns3_bbr.share_markdown()`` over
  ``validation/results/ns3-bbr/ns3-bbr-share.json``), and the XCP grid's
  tables (``xcp_bdp``'s over ``validation/results/xcp-bdp/*.json``);
* docs/decisions/README.md: the index of the decision records.

``tests/test_docs_tables.py`` fails when a block differs from what this
script produces.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SNAPSHOTS = ROOT / "tests" / "snapshots" / "checks"
NOTES = DOCS / "experiments-notes.toml"
BENCH_RESULTS = ROOT / "benches" / "results"
DECISIONS = DOCS / "decisions"

#: Paper subpackages in page order, with the heading of their part of docs/experiments.md.
PAPERS = (("etcp", "E-TCP"), ("ltcp", "LTCP"), ("htcp", "H-TCP"), ("pxcp", "paced XCP/TCP"), ("gwa", "GWA"),
          ("modern", "today's congestion control"))

#: Sections of docs/performance.md that hold recorded measurements (``section`` of a record).
PERF_SECTIONS = ("engine", "mechanism", "etcp", "scale", "ns2", "ns3", "memory", "controllers")


def begin(name: str) -> str:
    return f"<!-- BEGIN generated: {name} -->"


def end(name: str) -> str:
    return f"<!-- END generated: {name} -->"


def replace_block(text: str, name: str, body: str) -> str:
    """``text`` with the block ``name`` holding ``body``; the block must exist."""
    pat = re.compile(re.escape(begin(name)) + r".*?" + re.escape(end(name)), re.S)
    if not pat.search(text):
        raise KeyError(f"no block {name!r} (add {begin(name)} ... {end(name)} to the page)")
    return pat.sub(lambda _: f"{begin(name)}\n{body.rstrip()}\n{end(name)}", text, count=1)


def read_block(text: str, name: str) -> Optional[str]:
    m = re.search(re.escape(begin(name)) + r"\n(.*?)\n?" + re.escape(end(name)), text, re.S)
    return None if m is None else m.group(1)


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


def _full_is_quick(exp: Any, note: Dict[str, Any]) -> Optional[str]:
    """Why the full run is the quick run, or None when it is not."""
    if note.get("full_is_quick"):
        return note["full_is_quick"]
    if exp.figure is not None and _runs(exp.figure, False) == 0:
        return "no simulation"
    return None


def _full_cell(exp: Any, note: Dict[str, Any]) -> str:
    if _full_is_quick(exp, note):
        return "= quick"
    full = note.get("full")
    if not full:
        return "not recorded"
    return f"{full['counts']} ({full['date']})"


def experiments_summary() -> str:
    from ccsim.experiments import SOURCES

    notes = _toml(NOTES)
    lines = [
        "| experiment | paper | model | consistency | ns-2 | last full run | open (quick) |",
        "|---|---|---|---|---|---|---|",
    ]
    sums = {s: [0, 0] for s in SOURCES}
    for exp_id, exp in _experiments():
        checks = _snapshot(exp_id)
        counts = _counts(checks)
        for s, (ok, n) in counts.items():
            sums[s][0] += ok
            sums[s][1] += n
        bad = sum(not c["ok"] for c in checks)
        lines.append(
            f"| [`{exp_id}`](#{slug(exp_id)}) | "
            + " | ".join(_count_cell(counts[s]) for s in SOURCES)
            + f" | {_full_cell(exp, notes.get(exp_id, {}))} | {bad or 'none'} |"
        )
    lines.append("| **total** | " + " | ".join(f"**{ok}/{n}**" for ok, n in sums.values()) + " | | |")
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


def _deviations(exp_id: str, checks: List[Dict[str, Any]], note: Dict[str, Any]) -> List[str]:
    bad = [(i, c) for i, c in enumerate(checks, 1) if not c["ok"]]
    if not bad:
        return ["- **Open deviations (quick run):** none."]
    causes = note.get("causes", [])
    groups: List[Tuple[str, List[Tuple[int, Dict[str, Any]]]]] = [(cz["cause"], []) for cz in causes]
    orphans = []
    for i, c in bad:
        for k, cz in enumerate(causes):
            if cz.get("match", "") in c["quantity"]:
                groups[k][1].append((i, c))
                break
        else:
            orphans.append((i, c))
    out = [f"- **Open deviations (quick run), {len(bad)} of {len(checks)} checks:**"]
    for cause, members in groups + [("Cause not recorded yet (add it to docs/experiments-notes.toml).", orphans)]:
        if not members:
            continue
        which = "; ".join(f"#{i} {cell(c['quantity'])}: ccsim {cell(c['ccsim'])} against {cell(c['paper'])} "
                          f"({c['source']})" for i, c in members)
        out.append(f"  - {which}. *Cause:* {cause.strip()}")
    return out


def experiment_entry(exp_id: str, exp: Any, note: Dict[str, Any]) -> str:
    m = exp.figure
    checks = _snapshot(exp_id)
    counts = _counts(checks)
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
               f"`tests/snapshots/checks/{exp_id}.json`): {_counts_text(counts)}.")
    full = note.get("full")
    same = _full_is_quick(exp, note)
    if same:
        out.append(f"- **Full run:** the same as the quick run ({same}).")
    elif full:
        line = f"- **Last recorded full run** ({full['date']}, `{full['command']}`): {full['counts']}."
        if full.get("note"):
            line += f" {full['note'].strip()}"
        out.append(line)
    else:
        out.append("- **Last recorded full run:** not recorded.")
    out += _deviations(exp_id, checks, note)
    if note.get("about"):
        out.append(f"- **Notes:** {note['about'].strip()}")
    out += ["", f"<details><summary>All {len(checks)} quick-run checks</summary>", "",
            "| # | check | source | reference | ccsim | tolerance | ok |", "|---|---|---|---|---|---|---|"]
    out += [_check_row(i, c) for i, c in enumerate(checks, 1)]
    out += ["", "</details>"]
    return "\n".join(out)


def experiments_paper(paper: str) -> str:
    notes = _toml(NOTES)
    entries = [experiment_entry(i, e, notes.get(i, {})) for i, e in _experiments() if _paper_of(e) == paper]
    return "\n\n".join(entries)


# ---- docs/performance.md -----------------------------------------------------------------------


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


def perf_section(section: str) -> str:
    return "\n\n".join(render_record(r) for r in _records() if r["section"] == section)


def perf_index() -> str:
    from ccsim.bench import BENCHMARKS

    recs = _records()
    lines = ["| row | scenario (`ccsim bench --help`) | recorded figures, newest first |", "|---|---|---|"]
    for name, b in BENCHMARKS.items():
        where = [f"[{r['date']}, {r['machine_short']}: {r['title']}](#{slug(_record_heading(r))})"
                 for r in recs if any(str(row[0]) == name for row in r["rows"])]
        lines.append(f"| {name} | {cell(b.description)} | {', '.join(where) or 'none recorded'} |")
    return "\n".join(lines)


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


def decisions_index() -> str:
    lines = ["| date | record |", "|---|---|"]
    for p in sorted(DECISIONS.glob("2*.md")):
        title = p.read_text(encoding="utf-8").splitlines()[0].lstrip("# ").strip()
        lines.append(f"| {p.name[:10]} | [{title}]({p.name}) |")
    return "\n".join(lines)


# ---- all blocks --------------------------------------------------------------------------------


def generated() -> Dict[Path, Dict[str, str]]:
    """Every page's generated blocks: {page: {block name: body}}."""
    return {
        DOCS / "experiments.md": dict(
            [("experiments-summary", experiments_summary())]
            + [(f"experiments-{p}", experiments_paper(p)) for p, _ in PAPERS]),
        DOCS / "performance.md": dict(
            [("perf-index", perf_index())] + [(f"perf-{s}", perf_section(s)) for s in PERF_SECTIONS]),
        DOCS / "validation.md": {"ns3-defaults": ns3_defaults(), "ns3": validation_block("ns3"),
                                 "ns3-aqm-defaults": ns3_peer_defaults("ns3_aqm"), "ns3-aqm": ns3_peer_block("ns3_aqm"),
                                 "ns3-bbr-defaults": ns3_peer_defaults("ns3_bbr"), "ns3-bbr": ns3_peer_block("ns3_bbr"),
                                 "ns3-bbr-share": ns3_bbr_share(),
                                 "ns2": validation_block("ns2"), "xcp-bdp": xcp_bdp("grid"),
                                 "xcp-bdp-variants": xcp_bdp("variants"), "xcp-bdp-katabi": xcp_bdp("katabi")},
        DECISIONS / "README.md": {"decisions-index": decisions_index()},
    }


def stale() -> List[Tuple[Path, str]]:
    """The (page, block) pairs whose text differs from what would be generated."""
    out = []
    for page, blocks in generated().items():
        text = page.read_text(encoding="utf-8")
        for name, body in blocks.items():
            if read_block(text, name) != body.rstrip():
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
    out = []
    for r in rows:
        out.append([r["name"], _fmt(r.get("wall_s"), ".3f"), _fmt(r["bottleneck_pkts_per_s"] / 1e3, ",.0f"),
                    _fmt(r.get("events_per_bottleneck_pkt"), ".2f"), _fmt(r.get("utilization"), ".3f"),
                    _fmt(r.get("loss_rate"), ".2e"), _fmt(r.get("peak_rss_mb"), ".1f"),
                    _fmt(r.get("vs_B3_pkts"), ".2f"), _fmt(r.get("vs_own_pkts"), ".2f"),
                    _fmt(r.get("vs_B5_pkts"), ".2f")])
    return cols, out


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


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["add"]:
        ap = argparse.ArgumentParser(prog="docs_tables.py add", description="record a measurement run")
        ap.add_argument("kind", choices=("bench", "peer-ns2", "peer-ns3", "flow-sweep"))
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
                      "flow-sweep": sweep_rows}[a.kind](rows)
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
