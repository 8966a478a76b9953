"""``ccsim report DIR``: a static HTML site of the results under ``DIR``.

What it reads, and why nothing is re-run:

* A **reproduction** is a directory holding ``checks.json`` (written by
  ``ccsim reproduce ID --out D``), its table ``ID.csv``, its figures
  (``*.png``/``*.svg``) and its run cache ``runs/<key>.json``. The checks
  already hold paper, model, ns-2 and ccsim numbers, and the cache holds the
  exact scenario of every run, so the site is a view of files that exist;
  a report can never disagree with the results it describes.
* A **sweep** is a directory holding ``sweep.csv`` (``ccsim sweep``) and its
  run cache. The cache files keep each run's overrides and normalised
  scenario, from which the grid and a base scenario are rebuilt; the
  command shown is verified by planning it (no run) and comparing its cache
  keys with the cached ones.

The site is plain HTML with inline CSS, relative links and copied files:
it opens from disk (``file://``), needs no server and no network; the
tables, figures and links need no JavaScript, only the optional
time-series view does. Every string that comes from a file is escaped with
:func:`html.escape` (quantities, scenario names and paths are user data).

Layout of ``OUT`` (default ``DIR/report``)::

    index.html                  one row per experiment and sweep
    <slug>/index.html           one page per experiment or sweep
    <slug>/figures/*.png|svg    copied figures
    <slug>/scenarios/*.json     the scenario of every cached run
    <slug>/checks.json, *.csv   copied data
    <slug>/series.js            decimated cwnd/queue series of the cached runs
    assets/                     uPlot (MIT, 50 kB) and series-view.js

The interactive time-series view (zoom, hover values) uses uPlot, shipped
in ``report_assets/`` and copied into the site, because a view that needs a
CDN would break the moment the site is opened offline or archived.

``OUT`` is only ever replaced when it holds the marker file ``.ccsim-report``
left by an earlier report, so a mistyped ``--out`` cannot wipe a directory.
"""

from __future__ import annotations

import csv
import html
import json
import math
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from ._native import UserError

__all__ = ["build_report", "discover", "load_runs", "Reproduction", "SweepResult", "MARKER"]

PathLike = Union[str, os.PathLike]

#: Left in the output directory; only a directory holding it is overwritten.
MARKER = ".ccsim-report"
#: Figure files copied into the site (what ``<img>`` shows in every browser).
FIGURE_SUFFIXES = (".png", ".svg", ".jpg", ".jpeg", ".gif", ".webp")
#: Rows of a data table shown inline; the full table is linked as CSV.
MAX_TABLE_ROWS = 200
#: Interactive view: runs per page, flows per chart, points per series.
MAX_SERIES_RUNS = 8
MAX_SERIES_FLOWS = 10
MAX_POINTS = 2000
#: Copied into SITE/assets/ (uPlot and the script that draws with it).
ASSETS = Path(__file__).resolve().parent / "report_assets"
#: The check sources, in the order of :data:`ccsim.experiments.SOURCES`.
SOURCES = ("paper", "model", "consistency", "ns-2")


# --------------------------------------------------------------------------
# what is found under DIR
# --------------------------------------------------------------------------


@dataclass
class CachedRun:
    """One ``runs/<key>.json``: its overrides, normalised scenario and the
    headline numbers a sweep tabulates."""

    key: str
    overrides: Dict[str, Any]
    scenario: Dict[str, Any]
    headline: Dict[str, Any]
    engine_version: str = ""
    #: decimated cwnd and queue series for the interactive view (see :func:`_series_view`)
    charts: List[Dict[str, Any]] = field(default_factory=list)


@dataclass
class Reproduction:
    """A ``ccsim reproduce`` output directory."""

    path: Path
    rel: str
    checks: List[Dict[str, Any]]
    summary: Dict[str, Any]
    exp_id: Optional[str] = None
    paper: str = ""
    figure: str = ""
    description: str = ""
    about: str = ""
    claims: Any = None
    quick: Optional[bool] = None
    setting: str = "unknown"
    table: Optional[Path] = None
    figures: List[Path] = field(default_factory=list)
    runs: List[CachedRun] = field(default_factory=list)
    kind: str = "reproduction"

    @property
    def deviations(self) -> List[Dict[str, Any]]:
        """Checks outside their tolerance: the open deviations."""
        return [c for c in self.checks if not c.get("ok")]

    def by_source(self) -> Dict[str, Tuple[int, int]]:
        out: Dict[str, Tuple[int, int]] = {}
        for src in SOURCES:
            mine = [c for c in self.checks if c.get("source") == src]
            if mine:
                out[src] = (sum(bool(c.get("ok")) for c in mine), len(mine))
        return out

    def command(self) -> str:
        """``ccsim reproduce ID [--quick] --out D``: what regenerates this."""
        exp = self.exp_id or "ID"
        quick = " --quick" if self.quick else ""
        return f"ccsim reproduce {shlex.quote(exp)}{quick} --out {shlex.quote(str(self.path))}"


@dataclass
class SweepResult:
    """A ``ccsim sweep`` output directory."""

    path: Path
    rel: str
    table: Path
    columns: List[str] = field(default_factory=list)
    rows: List[Dict[str, str]] = field(default_factory=list)
    figures: List[Path] = field(default_factory=list)
    runs: List[CachedRun] = field(default_factory=list)
    grid: Optional[Dict[str, List[Any]]] = None
    grid_verified: Optional[bool] = None
    grid_note: str = ""
    kind: str = "sweep"

    @property
    def name(self) -> str:
        names = sorted({str(r.scenario.get("name", "")) for r in self.runs} - {""})
        return ", ".join(names)

    def command(self, base_path: str) -> Optional[str]:
        """``ccsim sweep BASE --grid ... --out D``, or None when the runs do
        not form a full grid (a sweep given explicit points)."""
        if self.grid is None:
            return None
        parts = ["ccsim", "sweep", shlex.quote(base_path)]
        for k, values in self.grid.items():
            parts += ["--grid", shlex.quote(f"{k}={','.join(_grid_value(v) for v in values)}")]
        parts += ["--out", shlex.quote(str(self.path))]
        return " ".join(parts)


def _grid_value(v: Any) -> str:
    """A value as ``--grid`` reads it back (JSON, bare for plain strings)."""
    if isinstance(v, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.+-]*", v) \
            and v.lower() not in ("true", "false", "nan", "inf", "+inf", "-inf", "null"):
        return v
    return json.dumps(v, separators=(",", ":"))


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise UserError(f"{path}: not UTF-8 text") from None
    except ValueError as exc:
        raise UserError(f"{path}: not valid JSON ({exc})") from None


def _load_runs(run_dir: Path) -> List[CachedRun]:
    """Every readable cache file of ``run_dir`` (sorted by key). Unreadable
    or foreign files are skipped: the sweep itself treats them as missing."""
    from .results import Results

    runs = []
    if not run_dir.is_dir():
        return runs
    for p in sorted(run_dir.glob("*.json")):
        try:
            doc = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(doc, dict) or not isinstance(doc.get("scenario"), dict) or "results" not in doc:
            continue
        try:
            head = Results(doc["results"]).headline()
        except Exception:  # a cache file of another layout: show the scenario anyway
            head = {}
        try:
            charts = _series_view(doc["results"])
        except Exception:  # series of an unexpected shape: no interactive view for this run
            charts = []
        runs.append(CachedRun(key=str(doc.get("key", p.stem)), overrides=dict(doc.get("overrides") or {}),
                              scenario=doc["scenario"], headline=head,
                              engine_version=str(doc.get("engine_version", "")), charts=charts))
    return runs


def _sig(v: float) -> Optional[float]:
    """6 significant digits (plenty on screen, a third of the bytes); None for NaN."""
    return None if v != v else float(f"{v:.6g}")


def _columns(x, ids, values, wanted: Sequence[Any]) -> Tuple[List[float], List[List[Optional[float]]]]:
    """Long-table columns -> one shared time axis and one column per id in
    ``wanted``, keeping every k-th sample time so the axis has at most
    :data:`MAX_POINTS` points (k = 1 when it already fits)."""
    import numpy as np

    t = np.asarray(x, dtype=float)
    i = np.asarray(ids)
    y = np.array(values, dtype=float)  # None (no value yet) -> NaN
    times = np.unique(t)
    stride = max(1, math.ceil(len(times) / MAX_POINTS))
    kept = times[::stride]
    cols = []
    for w in wanted:
        m = (i == w) & np.isin(t, kept)
        col = np.full(len(kept), np.nan)
        col[np.searchsorted(kept, t[m])] = y[m]
        cols.append([_sig(v) for v in col.tolist()])
    return [_sig(v) for v in kept.tolist()], cols


def _series_view(results: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The charts of one run's interactive view: congestion window of its
    first :data:`MAX_SERIES_FLOWS` flows, and the queue of its first
    monitored link (the forward bottleneck of builder topologies)."""
    series = results.get("series") or {}
    charts = []
    fs = series.get("flows") or {}
    if fs.get("time_s"):
        flows = sorted(set(fs["flow"]))
        shown = flows[:MAX_SERIES_FLOWS]
        cc = {f.get("id"): f.get("cc") or f.get("transport") for f in results.get("flows", [])}
        x, cols = _columns(fs["time_s"], fs["flow"], fs["cwnd"], shown)
        note = f"first {len(shown)} of {len(flows)} flows" if len(shown) < len(flows) else ""
        charts.append({"title": "congestion window", "ylabel": "cwnd (packets)", "x": x, "note": note,
                       "series": [{"label": f"flow {f} ({cc.get(f, '?')})", "y": c} for f, c in zip(shown, cols)]})
    ls = series.get("links") or {}
    mon = [lk for lk in results.get("links", []) if lk.get("monitored")]
    if ls.get("time_s") and mon:
        link = mon[0]
        x, cols = _columns(ls["time_s"], ls["link"], ls["queue_pkts"], [link.get("id")])
        charts.append({"title": f"queue of link {link.get('name', link.get('id'))}", "ylabel": "queue (packets)",
                       "x": x, "note": "", "series": [{"label": "queue_pkts", "y": cols[0]}]})
    return charts


def _figures(d: Path) -> List[Path]:
    return sorted(p for p in d.iterdir() if p.is_file() and p.suffix.lower() in FIGURE_SUFFIXES)


def _paper_and_figure(exp) -> Tuple[str, str]:
    """Split ``"E-TCP (...), Fig 5"`` into the paper (its subpackage's
    ``SOURCE``) and the figure."""
    src = exp.paper or ""
    pkg = sys.modules.get(exp.module.rsplit(".", 1)[0]) if exp.module else None
    paper = getattr(pkg, "SOURCE", None) if pkg is not None else None
    if isinstance(paper, str) and src.startswith(paper) and src != paper:
        return paper, src[len(paper):].lstrip(" ,")
    if ", " in src:
        head, tail = src.rsplit(", ", 1)
        return head, tail
    return src, ""


def _infer_setting(module, keys: set) -> Tuple[Optional[bool], str]:
    """Was the reproduction ``--quick``? The cache keys of the first stage
    of each setting are planned (validated, not run) and compared with the
    cached ones. Returns ``(quick, label)``: ``(None, "unknown")`` when
    neither matches (runs of another engine version, or none cached), and
    ``(False, "no runs")`` for an experiment that runs no simulation (its
    models only, where ``--quick`` changes nothing)."""
    from .experiments import first_stage
    from .sweep import plan

    planned = {}
    for quick in (True, False):
        try:
            planned[quick] = {spec.key for s in first_stage(module, quick) for spec in plan(s.base, s.points)}
        except Exception:
            planned[quick] = None
    if planned[True] == set() and planned[False] == set():
        return False, "no runs (models only)"
    for quick in (True, False):
        if planned[quick] and planned[quick] <= keys:
            return quick, "quick (--quick)" if quick else "full"
    return None, "unknown"


def _reproduction(d: Path, root: Path) -> Reproduction:
    doc = _read_json(d / "checks.json")
    if not isinstance(doc, dict) or not isinstance(doc.get("checks"), list):
        raise UserError(f"{d / 'checks.json'}: expected an object with a 'checks' list "
                        "(as 'ccsim reproduce' writes)")
    rep = Reproduction(path=d, rel=_rel(d, root), checks=[c for c in doc["checks"] if isinstance(c, dict)],
                       summary=doc.get("summary") or {})
    from .experiments import REGISTRY

    ids = [i for i in REGISTRY if (d / f"{i}.csv").is_file()]
    if not ids and d.name in REGISTRY:
        ids = [d.name]
    if ids:
        exp = REGISTRY[max(ids, key=len)]
        rep.exp_id, rep.description = exp.id, exp.description
        rep.paper, rep.figure = _paper_and_figure(exp)
        if exp.figure is not None:
            rep.about = (exp.figure.__doc__ or "").strip()
            rep.claims = getattr(exp.figure, "PAPER", None)
        table = d / f"{exp.id}.csv"
        rep.table = table if table.is_file() else None
    rep.figures = _figures(d)
    return rep


def load_runs(e: Union["Reproduction", "SweepResult"]) -> None:
    """Read a result's run cache (the slow part: whole results files, series
    included) and what follows from it: a reproduction's setting, a sweep's
    grid. Kept apart from :func:`discover` so that every ``checks.json`` and
    ``sweep.csv`` is checked before anything is written, and the progress
    bar counts this work."""
    e.runs = _load_runs(e.path / "runs")
    if isinstance(e, Reproduction):
        from .experiments import REGISTRY

        if e.exp_id and REGISTRY[e.exp_id].figure is not None:
            e.quick, e.setting = _infer_setting(REGISTRY[e.exp_id].figure, {r.key for r in e.runs})
    else:
        _rebuild_grid(e)


def _rebuild_grid(sw: SweepResult) -> None:
    """Recover ``--grid`` from the runs' overrides: when the runs are exactly
    the product of each path's values, plan that grid on the first run's
    scenario and check it gives the same cache keys."""
    from .sweep import expand_grid, plan

    if not sw.runs:
        sw.grid_note = "no cached runs in runs/; the grid cannot be recovered"
        return
    paths: List[str] = []
    for r in sw.runs:
        for k in r.overrides:
            if k not in paths:
                paths.append(k)
    if any(set(r.overrides) != set(paths) for r in sw.runs):
        sw.grid_note = "the runs override different paths: explicit points, not a grid"
        return
    # Values in the order the table lists them (the sweep's own order).
    order = {row.get("key"): i for i, row in enumerate(sw.rows)}
    runs = sorted(sw.runs, key=lambda r: order.get(r.key, len(order)))
    grid: Dict[str, List[Any]] = {}
    for k in paths:
        vals: List[Any] = []
        for r in runs:
            if not any(_same_json(r.overrides[k], v) for v in vals):
                vals.append(r.overrides[k])
        grid[k] = vals
    want = {json.dumps(p, sort_keys=True) for p in expand_grid(grid)}
    have = {json.dumps(r.overrides, sort_keys=True) for r in sw.runs}
    if want != have:
        sw.grid_note = "the runs are not a full product of their values: explicit points, not a grid"
        return
    sw.grid = grid
    try:
        keys = {spec.key for spec in plan(runs[0].scenario, grid)}
    except UserError as exc:
        sw.grid_verified, sw.grid_note = False, f"planning the rebuilt grid failed: {exc}"
        return
    sw.grid_verified = keys == {r.key for r in sw.runs}
    if not sw.grid_verified:
        sw.grid_note = ("the rebuilt command plans different cache keys than the cached runs "
                        "(they were made by another engine version or scenario defaults)")


def _same_json(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _sweep(d: Path, root: Path) -> SweepResult:
    table = d / "sweep.csv"
    try:
        with table.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            rows = list(reader)
            columns = list(reader.fieldnames or [])
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise UserError(f"{table}: cannot read the sweep table ({exc})") from None
    return SweepResult(path=d, rel=_rel(d, root), table=table, columns=columns, rows=rows, figures=_figures(d))


def _rel(d: Path, root: Path) -> str:
    rel = d.relative_to(root).as_posix()
    return "." if rel in ("", ".") else rel


def discover(root: PathLike, skip: Optional[PathLike] = None) -> List[Union[Reproduction, SweepResult]]:
    """Reproductions (``checks.json``) and sweeps (``sweep.csv``) under
    ``root``, in path order; ``runs/`` caches, report sites (holding
    :data:`MARKER`) and ``skip`` (this report's output) are not descended
    into. Their run caches are read by :func:`load_runs`."""
    root = Path(root)
    if not root.exists():
        raise UserError(f"report: directory {str(root)!r} does not exist")
    if not root.is_dir():
        raise UserError(f"report: {str(root)!r} is not a directory (give the directory that holds "
                        "'ccsim reproduce' or 'ccsim sweep' results)")
    skip_r = Path(skip).resolve() if skip is not None else None
    found: List[Union[Reproduction, SweepResult]] = []
    for cur, dirs, files in os.walk(root):
        here = Path(cur)
        # Not into run caches, hidden directories, or any report site (the
        # output, or an earlier one elsewhere: its copied checks.json would
        # show every experiment twice).
        dirs[:] = sorted(x for x in dirs if x != "runs" and not x.startswith(".")
                         and not (here / x / MARKER).exists()
                         and (skip_r is None or (here / x).resolve() != skip_r))
        if "checks.json" in files:
            found.append(_reproduction(here, root))
        elif "sweep.csv" in files:
            found.append(_sweep(here, root))
    if not found:
        raise UserError(f"report: no results under {str(root)!r}: expected directories written by "
                        "'ccsim reproduce ID --out D' (with checks.json) or 'ccsim sweep ... --out D' "
                        "(with sweep.csv)")
    return found


# --------------------------------------------------------------------------
# HTML
# --------------------------------------------------------------------------

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:72em;padding:0 1em;
color:#1b1b1b;line-height:1.4}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.25em;margin-top:1.8em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.6em 0;font-size:.92em}
th,td{border:1px solid #ccc;padding:.25em .5em;vertical-align:top}
th{background:#f2f2f2;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.dev td{background:#fff0f0}td.ok{color:#176117;font-weight:600}td.bad{color:#a40000;font-weight:600}
pre,code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em}
pre{background:#f6f6f6;padding:.6em;overflow-x:auto;white-space:pre-wrap}
figure{margin:1em 0}figure img{max-width:100%;border:1px solid #ddd}
.muted{color:#666}.tag{font-size:.8em;background:#eef;border-radius:3px;padding:0 .3em}
nav a{margin-right:1em}.wide{overflow-x:auto;max-width:100%}
.series-chart{margin:.5em 0}h3{font-size:1.05em;margin-bottom:.2em}
"""


def esc(x: Any) -> str:
    """HTML-escape anything (quotes too, so it is safe in attributes)."""
    return html.escape("" if x is None else str(x), quote=True)


def fmt_num(x: Any) -> str:
    """A number as the console table prints it (4 significant digits)."""
    if x is None:
        return "-"
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, (int, float)):
        v = float(x)
        if not math.isfinite(v):
            return str(v)
        return f"{v:.4g}" if v != int(v) or abs(v) >= 1e6 else str(int(v))
    return str(x)


def _num_cell(x: Any, cls: str = "num") -> str:
    """A table cell: the rounded value shown, the exact one in ``title``
    and ``data-value`` (what tests and copy-paste use)."""
    exact = json.dumps(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else str(x)
    return (f'<td class="{cls}" title="{esc(exact)}" data-value="{esc(exact)}">{esc(fmt_num(x))}</td>')


def _deviation(c: Dict[str, Any]) -> str:
    dev = c.get("deviation")
    if dev is None:
        return "-"
    if c.get("relative", True):
        return f"{float(dev) * 100:.2f}%"
    return fmt_num(dev)


def _tolerance(c: Dict[str, Any]) -> str:
    tol = c.get("tolerance")
    if tol is None:
        return "-"
    return f"{float(tol) * 100:.2f}%" if c.get("relative", True) else fmt_num(tol)


def _source_label(c: Dict[str, Any]) -> str:
    src = str(c.get("source") or "")
    return f"{src} (read from {c['read_from']})" if c.get("read_from") else src


def _page(title: str, body: str, up: str = "", series: bool = False) -> str:
    nav = f'<nav><a href="{esc(up)}index.html">&larr; all results</a></nav>' if up else ""
    head = (f'<link rel="stylesheet" href="{up}assets/uPlot.min.css">' if series else "")
    scripts = (f'<script src="{up}assets/uPlot.iife.min.js"></script><script src="series.js"></script>'
               f'<script src="{up}assets/series-view.js"></script>' if series else "")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title><style>{CSS}</style>{head}</head>\n<body>{nav}\n{body}\n{scripts}"
            f"<footer class=\"muted\"><p>Generated by <code>ccsim report</code> (ccsim {esc(_version())}) "
            "from files on disk; nothing was re-run.</p></footer></body></html>\n")


def _version() -> str:
    try:
        from . import __version__

        return __version__
    except Exception:  # pragma: no cover
        return "unknown"


def _checks_table(checks: Sequence[Dict[str, Any]]) -> str:
    head = ("#", "quantity", "source", "reference", "ccsim", "deviation", "tolerance", "verdict")
    out = ['<table class="checks"><thead><tr>' + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>"]
    for i, c in enumerate(checks):
        ok = bool(c.get("ok"))
        out.append(f'<tr id="check-{i}" class="{"ok" if ok else "dev"}"><td class="num">{i + 1}</td>'
                   f"<td>{esc(c.get('quantity'))}</td><td>{esc(_source_label(c))}</td>"
                   f"{_num_cell(c.get('paper'), 'num paper')}{_num_cell(c.get('ccsim'), 'num ccsim')}"
                   f'<td class="num">{esc(_deviation(c))}</td><td class="num">{esc(_tolerance(c))}</td>'
                   f'<td class="{"ok" if ok else "bad"}">{"ok" if ok else "DEVIATES"}</td></tr>')
    out.append("</tbody></table>")
    return "\n".join(out)


def _csv_table(path: Path, max_rows: int = MAX_TABLE_ROWS) -> str:
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        return f'<p class="muted">{esc(path.name)} could not be read: {esc(exc)}</p>'
    if not rows:
        return f'<p class="muted">{esc(path.name)} is empty.</p>'
    return _html_table(rows[0], rows[1:], max_rows)


def _html_table(header: Sequence[str], rows: Sequence[Sequence[Any]], max_rows: int = MAX_TABLE_ROWS) -> str:
    out = ['<div class="wide"><table class="data"><thead><tr>' + "".join(f"<th>{esc(h)}</th>" for h in header)
           + "</tr></thead><tbody>"]
    for row in rows[:max_rows]:
        cells = []
        for v in row:
            try:
                num = float(v) if not isinstance(v, bool) else None
            except (TypeError, ValueError):
                num = None
            cells.append(f'<td class="num">{esc(fmt_num(num))}</td>' if num is not None and v != ""
                         else f"<td>{esc(v)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table></div>")
    if len(rows) > max_rows:
        out.append(f'<p class="muted">first {max_rows} of {len(rows)} rows shown.</p>')
    return "\n".join(out)


def _figures_html(names: Sequence[str]) -> str:
    if not names:
        return '<p class="muted">no figures in this directory.</p>'
    return "\n".join(f'<figure><a href="figures/{esc(n)}"><img src="figures/{esc(n)}" alt="{esc(n)}"></a>'
                     f"<figcaption>{esc(n)}</figcaption></figure>" for n in names)


def _value_key(v: Any) -> Tuple[int, Any]:
    """A sort key that orders numbers by value (also when written as
    text, as sweep.csv holds them) and other values by their text."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        return (1, str(v))
    return (0, x) if not math.isnan(x) else (2, "")


def _sweep_summary(sw: SweepResult) -> str:
    """The sweep's points with their replications merged
    (:func:`ccsim.sweep.summarise`: mean, 95% Student-t half-width, n),
    sorted by the swept fields in grid order."""
    import pandas as pd

    from .sweep import summarise

    if not sw.rows:
        return '<p class="muted">no runs in sweep.csv.</p>'
    df = pd.DataFrame(sw.rows)
    for c in df.columns:
        num = pd.to_numeric(df[c], errors="coerce")
        if num.notna().sum() == df[c].replace("", float("nan")).notna().sum():
            df[c] = num
    summary = summarise(df)
    metrics = [c[:-5] for c in summary.columns if c.endswith("_mean")]
    params = [c for c in summary.columns if c != "n" and not any(c.startswith(m + "_") for m in metrics)]
    order = [c for c in (sw.grid or {}) if c in params] + [c for c in params if c not in (sw.grid or {})]
    rows = sorted(summary.to_dict("records"), key=lambda r: [_value_key(r[c]) for c in order])
    head = order + ["n"] + metrics
    body = []
    for r in rows:
        cells = [esc(fmt_num(r[c])) for c in order] + [str(int(r["n"]))]
        for m in metrics:
            mean, ci = r[f"{m}_mean"], r[f"{m}_ci95"]
            half = "" if ci is None or (isinstance(ci, float) and math.isnan(ci)) else f" ± {fmt_num(ci)}"
            cells.append(esc(fmt_num(mean)) + esc(half))
        body.append(cells)
    note = ('<p class="muted">Each point\'s replications (seeds) merged: mean ± the half-width of the '
            "two-sided 95% Student-t confidence interval of the mean (none with one replication); n "
            "replications; rows sorted by the swept fields.</p>")
    return note + _html_table(head, body)


def _runs_table(runs: Sequence[CachedRun], scen_names: Dict[str, str],
                order: Sequence[str] = ()) -> str:
    """The cached runs, sorted by their values of the swept fields
    ``order`` (then by the rest of their overrides)."""
    if not runs:
        return '<p class="muted">no cached runs (runs/) in this directory.</p>'
    cols = ("goodput_mean_bps", "utilization", "loss_rate", "jain_index", "events")
    out = ['<table class="runs"><thead><tr><th>scenario file</th><th>name</th><th>overrides</th>'
           + "".join(f"<th>{c}</th>" for c in cols) + "</tr></thead><tbody>"]

    def key(r: CachedRun) -> List[Any]:
        return ([_value_key(r.overrides.get(c)) for c in order]
                + [(k, _value_key(v)) for k, v in sorted(r.overrides.items())])
    for r in sorted(runs, key=key):
        over = ", ".join(f"{k} = {json.dumps(v)}" for k, v in r.overrides.items()) or "(base scenario)"
        fn = scen_names[r.key]
        out.append(f'<tr><td><a href="scenarios/{esc(fn)}"><code>{esc(fn)}</code></a></td>'
                   f"<td>{esc(r.scenario.get('name', ''))}</td><td><code>{esc(over)}</code></td>"
                   + "".join(f'<td class="num">{esc(fmt_num(r.headline.get(c)))}</td>' for c in cols) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def _write_scenarios(runs: Sequence[CachedRun], dest: Path) -> Dict[str, str]:
    """``scenarios/<key12>.json`` per run: the engine-normalised scenario,
    loadable by ``ccsim run`` and ``ccsim.load_scenario``."""
    names = {}
    if runs:
        dest.mkdir(parents=True, exist_ok=True)
    for r in runs:
        name = f"{r.key[:12]}.json"
        (dest / name).write_text(json.dumps(r.scenario, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        names[r.key] = name
    return names


def _copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)


def claims_text(claims: Any) -> str:
    """An experiment's ``PAPER`` as indented JSON. Keys that JSON cannot
    hold (a setting's tuple, as ``etcp-fig17``'s ``(622, 1000, 60)``) are
    written as their items joined by ", "; values it cannot hold as text."""
    def keyed(x: Any) -> Any:
        if isinstance(x, dict):
            return {(", ".join(map(str, k)) if isinstance(k, tuple) else k
                     if isinstance(k, (str, int, float, bool)) or k is None else str(k)): keyed(v)
                    for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [keyed(v) for v in x]
        return x

    return json.dumps(keyed(claims), indent=2, default=str)


def _reproduction_page(rep: Reproduction, site: Path, slug: str) -> str:
    d = site / slug
    fig_names = []
    for f in rep.figures:
        _copy(f, d / "figures" / f.name)
        fig_names.append(f.name)
    _copy(rep.path / "checks.json", d / "checks.json")
    if rep.table is not None:
        _copy(rep.table, d / rep.table.name)
    scen = _write_scenarios(rep.runs, d / "scenarios")
    title = rep.exp_id or rep.rel
    parts = [f"<h1>{esc(title)}</h1>"]
    if rep.description:
        parts.append(f"<p>{esc(rep.description)}</p>")
    meta = [("paper", rep.paper or "-"), ("figure", rep.figure or "-"), ("results directory", str(rep.path)),
            ("setting", rep.setting)]
    parts.append('<table class="meta"><tbody>' + "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>"
                                                         for k, v in meta) + "</tbody></table>")
    headline = rep.summary.get("headline") if isinstance(rep.summary, dict) else None
    if headline:
        parts.append(f'<p class="headline"><strong>{esc(headline)}</strong></p>')
    parts.append("<h2>Regenerate</h2><pre class=\"command\"><code>" + esc(rep.command()) + "</code></pre>")
    note = ("Add <code>--replot</code> to redraw the table, checks and figures from the cached runs "
            "without running anything.")
    if rep.exp_id is None:
        note = ("This directory's experiment is not registered in this ccsim (no <code>ID.csv</code> of a "
                "known experiment); replace <code>ID</code> with its id.")
    elif rep.quick is None:
        note = ("The cached runs match neither the quick nor the full setting of this ccsim version (they "
                "were made by another version, or none are cached), so whether this was "
                "<code>--quick</code> is unknown: the command shows the full setting.")
    parts.append(f"<p class=\"muted\">{note}</p>")
    parts.append("<h2>Paper's claims and ccsim's values</h2>")
    parts.append('<p class="muted">The reference column is the paper\'s number for source <em>paper</em>, '
                 "a ccsim model's prediction for <em>model</em>, another ccsim run for <em>consistency</em> "
                 'and a recorded ns-2.35 run for <em>ns-2</em>. Exact values: hover a number, or '
                 '<a href="checks.json">checks.json</a>.</p>')
    parts.append(_checks_table(rep.checks) if rep.checks else '<p class="muted">no checks.</p>')
    devs = rep.deviations
    parts.append(f"<h2>Open deviations ({len(devs)})</h2>")
    if devs:
        parts.append("<ul>" + "".join(
            f'<li><a href="#check-{rep.checks.index(c)}">{esc(c.get("quantity"))}</a> '
            f'<span class="tag">{esc(_source_label(c))}</span>: reference {esc(fmt_num(c.get("paper")))}, '
            f"ccsim {esc(fmt_num(c.get('ccsim')))}, deviation {esc(_deviation(c))} "
            f"(tolerance {esc(_tolerance(c))})</li>" for c in devs) + "</ul>")
    else:
        parts.append("<p>none: every check is within its tolerance.</p>")
    if rep.claims is not None:
        parts.append("<h2>The paper's numbers, as the experiment states them</h2><pre class=\"claims\">"
                     + esc(claims_text(rep.claims)) + "</pre>")
    parts.append("<h2>Figures</h2>" + _figures_html(fig_names))
    if rep.table is not None:
        parts.append(f'<h2>ccsim\'s measurements (<a href="{esc(rep.table.name)}">{esc(rep.table.name)}</a>)</h2>')
        parts.append(_csv_table(rep.table))
    parts.append(f"<h2>Scenarios ({len(rep.runs)} cached runs)</h2>")
    parts.append(_runs_table(rep.runs, scen))
    has_series = _series_section(rep.runs, scen, d, parts)
    if rep.about:
        parts.append("<h2>About this experiment</h2><pre class=\"about\">" + esc(rep.about) + "</pre>")
    return _page(f"{title}: ccsim report", "\n".join(parts), up="../", series=has_series)


def _series_section(runs: Sequence[CachedRun], scen: Dict[str, str], d: Path, parts: List[str]) -> bool:
    """Write ``series.js`` (the data, as a script so it loads from
    ``file://``, where pages cannot fetch JSON) and the section the charts
    are drawn into; False when no run has series."""
    with_series = [r for r in runs if r.charts]
    if not with_series:
        return False
    shown = with_series[:MAX_SERIES_RUNS]
    data = [{"title": f"{scen[r.key]}: {r.scenario.get('name', '')}"
             + (" (" + ", ".join(f"{k} = {json.dumps(v)}" for k, v in r.overrides.items()) + ")"
                if r.overrides else ""), "charts": r.charts} for r in shown]
    # json.dumps escapes nothing HTML-special, but this is a .js file, not
    # inline script: no "</script>" in a label can end it.
    (d / "series.js").write_text("window.CCSIM_SERIES = " + json.dumps(data, separators=(",", ":")) + ";\n",
                                 encoding="utf-8")
    more = f" (first {len(shown)} of {len(with_series)} runs)" if len(shown) < len(with_series) else ""
    parts.append(f"<h2>Time series{more}</h2><p class=\"muted\">Congestion windows and the first monitored "
                 "link's queue of each cached run, from its cache file. Drag to zoom, double-click to reset, "
                 f"hover to read values; at most {MAX_POINTS} sample times per run (every k-th sample kept).</p>"
                 '<div id="series-view"></div>')
    return True


def _sweep_page(sw: SweepResult, site: Path, slug: str, out_arg: str) -> str:
    d = site / slug
    fig_names = []
    for f in sw.figures:
        _copy(f, d / "figures" / f.name)
        fig_names.append(f.name)
    _copy(sw.table, d / "sweep.csv")
    scen = _write_scenarios(sw.runs, d / "scenarios")
    base_name = None
    if sw.runs:
        base_name = "base.json"
        (d / "scenarios" / base_name).write_text(json.dumps(sw.runs[0].scenario, indent=2, sort_keys=True) + "\n",
                                                 encoding="utf-8")
    title = f"sweep {sw.rel}"
    parts = [f"<h1>{esc(title)}</h1>"]
    meta = [("scenario", sw.name or "-"), ("runs", f"{len(sw.rows)} in sweep.csv, {len(sw.runs)} cached"),
            ("results directory", str(sw.path))]
    if sw.grid:
        meta.append(("grid", "; ".join(f"{k} = {', '.join(_grid_value(v) for v in vals)}"
                                       for k, vals in sw.grid.items())))
    parts.append('<table class="meta"><tbody>' + "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>"
                                                         for k, v in meta) + "</tbody></table>")
    parts.append("<h2>Regenerate</h2>")
    cmd = sw.command(str(Path(out_arg) / slug / "scenarios" / base_name)) if base_name else None
    if cmd:
        parts.append(f'<pre class="command"><code>{esc(cmd)}</code></pre>')
        verdict = ("verified: planning this command (nothing run) gives exactly the cached runs' keys, so "
                   "running it again reuses every cached run" if sw.grid_verified
                   else esc(sw.grid_note))
        parts.append(f'<p class="muted">The base is <a href="scenarios/{base_name}">scenarios/{base_name}</a>, '
                     f"the first run's normalised scenario (every grid path overrides it). {verdict}.</p>")
    else:
        parts.append(f'<p class="muted">No single command: {esc(sw.grid_note)}. Each run\'s scenario is '
                     "listed below and runs with <code>ccsim run</code>.</p>")
    parts.append("<h2>Figures</h2>" + _figures_html(fig_names))
    parts.append("<h2>Summary (mean, 95% CI, n)</h2>" + _sweep_summary(sw))
    parts.append('<h2>Sweep table (<a href="sweep.csv">sweep.csv</a>)</h2>')
    parts.append(_html_table(sw.columns, [[r.get(c, "") for c in sw.columns] for r in sw.rows]))
    parts.append(f"<h2>Scenarios ({len(sw.runs)} cached runs)</h2>")
    parts.append(_runs_table(sw.runs, scen, list(sw.grid or {})))
    return _page(f"{title}: ccsim report", "\n".join(parts), up="../")


def _slug(rel: str, used: set) -> str:
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", rel).strip("-.") or "results"
    slug, n = base, 2
    while slug in used:
        slug, n = f"{base}-{n}", n + 1
    used.add(slug)
    return slug


def _anchor(paper: str) -> str:
    return "paper-" + (re.sub(r"[^A-Za-z0-9]+", "-", paper).strip("-").lower() or "other")


def _source_counts(reps: Sequence[Reproduction]) -> str:
    """``paper 12/15, model 4/4`` summed over ``reps``."""
    tot: Dict[str, List[int]] = {}
    for r in reps:
        for s, (ok, n) in r.by_source().items():
            t = tot.setdefault(s, [0, 0])
            t[0] += ok
            t[1] += n
    return ", ".join(f"{s} {tot[s][0]}/{tot[s][1]}" for s in SOURCES if s in tot) or "none"


def _index_table(reps: Sequence[Tuple[str, Reproduction]]) -> str:
    head = ["experiment", "paper", "figure", "setting"] + [f"{s} checks" for s in SOURCES] + ["open deviations"]
    rows = ['<table class="index"><thead><tr>' + "".join(f"<th>{esc(h)}</th>" for h in head)
            + "</tr></thead><tbody>"]
    for slug, r in reps:
        bs = r.by_source()
        cells = [f'<td><a href="{esc(slug)}/index.html">{esc(r.exp_id or r.rel)}</a>'
                 + (f'<br><span class="muted">{esc(r.rel)}</span>' if r.rel != (r.exp_id or "") else "")
                 + "</td>",
                 f"<td>{esc(r.paper or '-')}</td>", f"<td>{esc(r.figure or '-')}</td>",
                 f"<td>{esc(r.setting.split(' (')[0])}</td>"]
        for s in SOURCES:
            if s in bs:
                ok, tot = bs[s]
                cls = "num ok" if ok == tot else "num bad"
                cells.append(f'<td class="{cls}" data-source="{esc(s)}">{ok}/{tot}</td>')
            else:
                cells.append(f'<td class="num muted" data-source="{esc(s)}">-</td>')
        nd = len(r.deviations)
        cells.append(f'<td class="num {"bad" if nd else "ok"}" data-deviations="{nd}">{nd}</td>')
        rows.append(f'<tr data-experiment="{esc(r.exp_id or r.rel)}">' + "".join(cells) + "</tr>")
    rows.append("</tbody></table>")
    return "\n".join(rows)


def _index(entries: Sequence[Tuple[str, Union[Reproduction, SweepResult]]], root: Path) -> str:
    reps = [(s, e) for s, e in entries if isinstance(e, Reproduction)]
    sweeps = [(s, e) for s, e in entries if isinstance(e, SweepResult)]
    parts = ["<h1>ccsim results</h1>", f"<p>Results under <code>{esc(root)}</code>: {len(reps)} reproduction"
             f"{'s' if len(reps) != 1 else ''}, {len(sweeps)} sweep{'s' if len(sweeps) != 1 else ''}.</p>"]
    if reps:
        n_ok = sum(sum(bool(c.get("ok")) for c in r.checks) for _, r in reps)
        n_all = sum(len(r.checks) for _, r in reps)
        n_dev = sum(len(r.deviations) for _, r in reps)
        parts.append(f"<h2>Reproductions</h2><p>{n_ok} of {n_all} checks within tolerance; "
                     f"{n_dev} open deviation{'s' if n_dev != 1 else ''}.</p>")
        # One section per paper, in the order the experiments came.
        papers: Dict[str, List[Tuple[str, Reproduction]]] = {}
        for slug, r in reps:
            papers.setdefault(r.paper or "other results", []).append((slug, r))
        if len(papers) > 1:
            parts.append("<p>" + " · ".join(f'<a href="#{esc(_anchor(p))}">{esc(p)}</a>' for p in papers) + "</p>")
        for paper, mine in papers.items():
            if len(papers) > 1:
                parts.append(f'<h3 id="{esc(_anchor(paper))}">{esc(paper)}</h3>')
                parts.append(f'<p class="paper-summary" data-paper="{esc(paper)}">'
                             f"{len(mine)} experiment{'s' if len(mine) != 1 else ''}; checks by source: "
                             f"{esc(_source_counts([r for _, r in mine]))}; "
                             f"{sum(len(r.deviations) for _, r in mine)} open deviations.</p>")
            parts.append(_index_table(mine))
    if sweeps:
        parts.append("<h2>Sweeps</h2>")
        rows = ['<table class="index sweeps"><thead><tr><th>sweep</th><th>scenario</th><th>runs</th><th>grid</th>'
                "</tr></thead><tbody>"]
        for slug, sw in sweeps:
            grid = "; ".join(f"{k} ({len(v)})" for k, v in sw.grid.items()) if sw.grid else sw.grid_note
            rows.append(f'<tr><td><a href="{esc(slug)}/index.html">{esc(sw.rel)}</a></td><td>{esc(sw.name or "-")}'
                        f'</td><td class="num">{len(sw.rows)}</td><td>{esc(grid)}</td></tr>')
        rows.append("</tbody></table>")
        parts.append("\n".join(rows))
    return _page("ccsim results", "\n".join(parts))


def _prepare_out(out: Path) -> None:
    """Create ``out``, or empty it if an earlier report made it; refuse to
    touch anything else."""
    if out.exists() and not out.is_dir():
        raise UserError(f"report --out {str(out)!r} is a file, not a directory")
    if out.is_dir() and any(out.iterdir()):
        if not (out / MARKER).is_file():
            raise UserError(f"report --out {str(out)!r} is a non-empty directory not made by 'ccsim report'; "
                            "give a new or empty directory")
        for child in out.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("made by 'ccsim report'; the whole directory is rewritten by the next report\n",
                              encoding="utf-8")


def build_report(root: PathLike, out: Optional[PathLike] = None, progress: Optional[bool] = None) -> Path:
    """Write the site for the results under ``root`` into ``out`` (default
    ``root/report``); return the path of its ``index.html``.

    ``progress``: a tqdm bar over the results found (None = on a terminal,
    False = off).
    """
    root = Path(root)
    out_p = Path(out) if out is not None else root / "report"
    if root.exists() and root.is_dir() and out_p.resolve() == root.resolve():
        raise UserError(f"report --out {str(out_p)!r} is the results directory itself; give a subdirectory "
                        "or another directory")
    from tqdm.auto import tqdm

    entries = discover(root, skip=out_p)
    _prepare_out(out_p)
    (out_p / "assets").mkdir()
    for a in ("uPlot.iife.min.js", "uPlot.min.css", "uPlot.LICENSE", "series-view.js"):
        shutil.copyfile(ASSETS / a, out_p / "assets" / a)
    used: set = {"assets"}
    pages: List[Tuple[str, Union[Reproduction, SweepResult]]] = []
    bar = tqdm(entries, unit="page", desc="report", disable=None if progress is None else not progress,
               file=sys.stderr)
    for e in bar:
        slug = _slug(e.exp_id if isinstance(e, Reproduction) and e.exp_id and e.rel in (".", e.exp_id)
                     else e.rel if e.rel != "." else "results", used)
        bar.set_postfix_str(slug, refresh=False)
        load_runs(e)
        if isinstance(e, Reproduction):
            page = _reproduction_page(e, out_p, slug)
        else:
            page = _sweep_page(e, out_p, slug, str(out_p))
        (out_p / slug).mkdir(parents=True, exist_ok=True)
        (out_p / slug / "index.html").write_text(page, encoding="utf-8")
        pages.append((slug, e))
    bar.close()
    index = out_p / "index.html"
    index.write_text(_index(pages, root), encoding="utf-8")
    return index


def iter_pages(site: PathLike) -> Iterable[Path]:
    """Every HTML page of a site (the index first)."""
    site = Path(site)
    yield site / "index.html"
    yield from sorted(p for p in site.glob("*/index.html"))
