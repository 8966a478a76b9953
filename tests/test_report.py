"""``ccsim report``: the site is generated from real results and checked in
a real browser.

The site is built from the ``--quick`` reproduction of ``htcp-fig2`` (the
run shared with test_experiments.py through the ``quick_run`` fixture; a few
seconds alone) plus a small sweep, then every page is opened in headless
Chromium (the distribution's ``chromium`` package, driven by Playwright):
no console errors, every ``<img>`` decoded (``naturalWidth > 0``), every
link, script and stylesheet resolving to a file (and anchor) of the site,
the checks table holding exactly the numbers of ``checks.json``, and the
interactive time-series charts drawn.

A screenshot of the index and of the experiment page is kept for CI in
``$CI_ARTIFACTS`` (default ``artifacts/`` in the repository):
``report-index.png`` and ``report-experiment.png``.

Chromium missing: the browser test skips with a message locally, and fails
under CI (``CI`` set), where ``.ci/run`` installs it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from conftest import small_scenario
from playwright.sync_api import sync_playwright

from ccsim.cli import main
from ccsim.experiments import write_checks
from ccsim.experiments import REGISTRY
from ccsim.report import MARKER, claims_text, fmt_num, iter_pages
from ccsim.sweep import sweep, write_table

EXP = "htcp-fig2"
REPO = Path(__file__).resolve().parent.parent


def _artifacts() -> Path:
    d = Path(os.environ.get("CI_ARTIFACTS") or REPO / "artifacts")
    d.mkdir(parents=True, exist_ok=True)
    return d


def _chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        msg = "chromium is not installed (apt-get install -y chromium); .ci/run installs it for CI"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    return exe


@pytest.fixture(scope="module")
def results(quick_run, tmp_path_factory):
    """A results directory as a user has it: ``reproduce --quick`` output
    (checks.json written as the CLI does) and a sweep with a hostile name."""
    src, checks = quick_run(EXP)
    root = tmp_path_factory.mktemp("results")
    rep = root / "papers" / EXP
    shutil.copytree(src, rep)
    write_checks(rep, checks)
    sc = small_scenario(name="buffers <script>alert(1)</script> & co", duration_s=1.0)
    df = sweep(sc, {"topology.bottleneck_queue.limit_pkts": [5, 20], "flows.0.cc": ["reno", "hstcp"]},
               root / "sweeps" / "buffers", workers=1, progress=False)
    write_table(df, root / "sweeps" / "buffers")  # what 'ccsim sweep' writes beside runs/
    return root


@pytest.fixture(scope="module")
def site(results, tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "site"
    assert main(["report", str(results), "--out", str(out), "--quiet"]) == 0
    return out


def test_site_layout_and_files(site, results):
    assert (site / "index.html").is_file() and (site / MARKER).is_file()
    page = site / f"papers-{EXP}"
    assert (page / "index.html").is_file()
    assert (page / "checks.json").read_text() == (results / "papers" / EXP / "checks.json").read_text()
    assert (page / "figures" / f"{EXP}.png").read_bytes() == (results / "papers" / EXP / f"{EXP}.png").read_bytes()
    # one scenario file per cached run, each the run's normalised scenario
    runs = sorted((results / "papers" / EXP / "runs").glob("*.json"))
    scen = sorted((page / "scenarios").glob("*.json"))
    assert len(runs) == len(scen) == 2
    for r in runs:
        doc = json.loads(r.read_text())
        assert json.loads((page / "scenarios" / f"{doc['key'][:12]}.json").read_text()) == doc["scenario"]
    html = (page / "index.html").read_text()
    assert f"ccsim reproduce {EXP} --quick --out {results / 'papers' / EXP}" in html
    assert "quick (--quick)" in html
    # series.js: the cwnd of both flows and the bottleneck queue of each run,
    # decimated to at most 2000 sample times
    js = (page / "series.js").read_text()
    assert js.startswith("window.CCSIM_SERIES = ")
    data = json.loads(js[len("window.CCSIM_SERIES = "):].rstrip().rstrip(";"))
    assert len(data) == 2
    for run in data:
        cwnd, queue = run["charts"]
        assert len(cwnd["series"]) == 2 and 0 < len(cwnd["x"]) <= 2000
        assert all(len(s["y"]) == len(cwnd["x"]) for s in cwnd["series"] + queue["series"])
        assert max(v for v in queue["series"][0]["y"] if v is not None) <= 40  # the 40-packet buffer
    for a in ("uPlot.iife.min.js", "uPlot.min.css", "series-view.js"):
        assert (site / "assets" / a).stat().st_size > 0


def test_scenario_files_run_as_they_are(site, tmp_path, capsys):
    """A scenario file of the site is a valid scenario for ``ccsim run``."""
    scen = sorted((site / f"papers-{EXP}" / "scenarios").glob("*.json"))[0]
    doc = json.loads(scen.read_text())
    doc["duration_s"] = doc["warmup_s"] + 1.0  # shorter than the 150 s quick run: validity is the point
    short = tmp_path / "short.json"
    short.write_text(json.dumps(doc))
    assert main(["run", str(short), "--out", str(tmp_path / "run"), "--no-plots"]) == 0


def test_html_is_escaped(site):
    page = (site / "sweeps-buffers" / "index.html").read_text()
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in page
    assert "<script>" not in (site / "index.html").read_text()


def test_sweep_command_regenerates_from_cache(site, results, capsys):
    """The rebuilt ``ccsim sweep`` command is verified, and running it
    computes nothing (every run comes from the cache)."""
    page = (site / "sweeps-buffers" / "index.html").read_text()
    assert "verified: planning this command" in page
    import html as html_mod
    import re

    cmd = html_mod.unescape(re.search(r'<pre class="command"><code>(.*?)</code></pre>', page, re.S).group(1))
    argv = shlex.split(cmd)
    assert argv[:2] == ["ccsim", "sweep"] and "--grid" in argv
    capsys.readouterr()
    assert main(argv[1:] + ["--workers", "1", "--no-progress"]) == 0
    assert "4 runs (4 from cache)" in capsys.readouterr().out


def test_rerun_replaces_own_site_only(site, results, tmp_path, capsys):
    (site / "stale.html").write_text("old")
    assert main(["report", str(results), "--out", str(site), "--quiet"]) == 0
    assert not (site / "stale.html").exists() and (site / "index.html").is_file()
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("keep me")
    capsys.readouterr()
    assert main(["report", str(results), "--out", str(foreign), "--quiet"]) == 2
    assert "not made by 'ccsim report'" in capsys.readouterr().err
    assert (foreign / "thesis.tex").read_text() == "keep me"


@pytest.mark.parametrize("make, expect", [
    (lambda p: p / "missing", "does not exist"),
    (lambda p: (p / "f.txt").write_text("x") and p / "f.txt", "is not a directory"),
    (lambda p: p, "no results under"),
    (lambda p: (p / "checks.json").write_text("{oops") and p, "checks.json: not valid JSON"),
    (lambda p: (p / "checks.json").write_bytes(b"\xff\xfe") and p, "checks.json: not UTF-8"),
    (lambda p: (p / "checks.json").write_text("[1, 2]") and p, "expected an object with a 'checks' list"),
])
def test_bad_dir_is_a_clear_error(tmp_path, capsys, make, expect):
    d = tmp_path / "in"
    d.mkdir()
    target = make(d)
    assert main(["report", str(target), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and expect in err and "Traceback" not in err


def _resolve(base_url: str, href: str) -> tuple:
    """``(path, fragment)`` of a link of a ``file://`` page."""
    u = urlparse(href)
    assert u.scheme == "file", f"link leaves the site: {href} (on {base_url})"
    return Path(unquote(u.path)), u.fragment


def watched_page(browser):
    """A page of ``browser`` and the list its console errors and warnings,
    page errors and failed requests are appended to."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems: list = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
            if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url} {r.failure}"))
    return page, problems


def test_site_in_headless_chromium(site, results):
    exe = _chromium()
    checks = json.loads((results / "papers" / EXP / "checks.json").read_text())
    pages = list(iter_pages(site))
    assert len(pages) == 3
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=["--no-sandbox"])
        try:
            page, problems = watched_page(browser)
            for p in pages:
                url = p.as_uri()
                resp = page.goto(url)
                assert resp is None or resp.ok, url
                page.wait_for_load_state("load")
                # every image decoded
                imgs = page.eval_on_selector_all(
                    "img", "els => els.map(e => [e.src, e.complete, e.naturalWidth])")
                for src, complete, width in imgs:
                    assert complete and width > 0, f"image {src} on {url} did not load"
                # every link, script and stylesheet resolves to a file of the site (and its anchor)
                hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
                assert hrefs, url
                hrefs += page.eval_on_selector_all("script[src], link[href]",
                                                   "els => els.map(e => e.src || e.href)")
                for href in hrefs:
                    path, frag = _resolve(url, href)
                    assert path.is_file(), f"broken link {href} on {url}"
                    assert site.resolve() in path.resolve().parents, f"link outside the site: {href}"
                    if frag:
                        assert f'id="{frag}"' in path.read_text(), f"missing anchor {href} on {url}"
                if p.parent == site:
                    rows = page.eval_on_selector_all(
                        "tr[data-experiment]", "els => els.map(e => [e.dataset.experiment, "
                        "[...e.querySelectorAll('td[data-source]')].map(t => [t.dataset.source, t.innerText]), "
                        "e.querySelector('td[data-deviations]').innerText])")
                    assert [r[0] for r in rows] == [EXP]
                    by_source = dict(rows[0][1])
                    for src, n in checks["summary"]["by_source"].items():
                        assert by_source[src] == f"{n['ok']}/{n['total']}"
                    assert int(rows[0][2]) == sum(not c["ok"] for c in checks["checks"])
                    page.screenshot(path=str(_artifacts() / "report-index.png"), full_page=True)
                if p.parent.name == f"papers-{EXP}":
                    cells = page.eval_on_selector_all(
                        "table.checks tbody tr", "els => els.map(e => [...e.cells].map(c => "
                        "[c.innerText, c.dataset.value === undefined ? null : c.dataset.value]))")
                    assert len(cells) == len(checks["checks"]) > 0
                    for row, c in zip(cells, checks["checks"]):
                        assert row[1][0] == c["quantity"]
                        assert row[2][0] == c["source"] + (f" (read from {c['read_from']})" if c["read_from"] else "")
                        for cell, key in ((row[3], "paper"), (row[4], "ccsim")):
                            shown, exact = cell
                            assert json.loads(exact) == c[key], (key, cell, c)
                            assert shown == fmt_num(c[key])
                            if isinstance(c[key], float):
                                assert float(shown) == pytest.approx(c[key], rel=5e-4)
                        assert row[7][0] == ("ok" if c["ok"] else "DEVIATES")
                    # the interactive view: cwnd and queue of each of the 2 runs,
                    # drawn on canvases by uPlot from the page's series.js
                    page.wait_for_function("document.querySelectorAll('.uplot canvas').length >= 4",
                                           timeout=10000)
                    sizes = page.eval_on_selector_all(".uplot canvas", "els => els.map(e => e.width)")
                    assert len(sizes) == 4 and min(sizes) > 0, sizes
                    titles = page.eval_on_selector_all(".uplot .u-title", "els => els.map(e => e.innerText)")
                    assert titles == ["congestion window", "queue of link r0->r1"] * 2, titles
                    page.screenshot(path=str(_artifacts() / "report-experiment.png"), full_page=True)
            assert not problems, problems
        finally:
            browser.close()
    assert (_artifacts() / "report-index.png").stat().st_size > 0
    assert (_artifacts() / "report-experiment.png").stat().st_size > 0


def test_every_source_and_qualitative_checks(tmp_path, capsys):
    """checks.json as other experiments write it: an ns-2 check, a value
    read off a figure, a qualitative (non-numeric) check, no deviation; and
    a directory whose experiment this ccsim does not know."""
    d = tmp_path / "old-run"
    d.mkdir()
    checks = [
        {"quantity": "drops vs ns-2", "paper": 120, "ccsim": 118, "deviation": 0.0167, "tolerance": 0.05,
         "relative": True, "ok": True, "source": "ns-2", "read_from": None},
        {"quantity": "utilisation", "paper": 0.9, "ccsim": 0.7, "deviation": 0.2, "tolerance": 0.05,
         "relative": False, "ok": False, "source": "paper", "read_from": "Fig 6"},
        {"quantity": "curve order", "paper": "reno < etcp", "ccsim": "reno < etcp", "deviation": None,
         "tolerance": None, "relative": True, "ok": True, "source": "consistency", "read_from": None},
    ]
    (d / "checks.json").write_text(json.dumps({"summary": {"headline": "paper: 0/1 within tolerance"},
                                               "checks": checks}))
    assert main(["report", str(d), "--quiet"]) == 0
    site = d / "report"
    index = (site / "index.html").read_text()
    assert 'data-source="ns-2">1/1<' in index and 'data-source="paper">0/1<' in index
    assert 'data-source="model">-<' in index and 'data-deviations="1"' in index
    page = (site / "results" / "index.html").read_text()
    assert "paper (read from Fig 6)" in page and "reno &lt; etcp" in page
    assert "ccsim reproduce ID --out" in page and "not registered in this ccsim" in page
    assert '<a href="#check-1">utilisation</a>' in page
    # absolute deviation and tolerance are shown as numbers, not percentages
    assert '<td class="num">0.2</td><td class="num">0.05</td>' in page


def test_reproduction_dir_itself(quick_run, tmp_path):
    """``ccsim report results/ID`` (the reproduction itself) works and
    leaves the site inside it, not among the results it reads."""
    src, checks = quick_run(EXP)
    d = tmp_path / EXP
    shutil.copytree(src, d)
    write_checks(d, checks)
    assert main(["report", str(d), "--quiet"]) == 0
    assert (d / "report" / EXP / "index.html").is_file()
    # a second report does not find the first one's copied checks.json,
    # nor those of a site written elsewhere inside DIR
    assert main(["report", str(d), "--quiet", "--out", str(d / "site2")]) == 0
    assert main(["report", str(d), "--quiet"]) == 0
    for site in (d / "report", d / "site2"):
        assert sorted(p.name for p in site.iterdir() if p.is_dir()) == ["assets", EXP]


def _table_after(page: str, heading: str) -> list:
    """The body rows (cell texts) of the first table after ``heading``."""
    i = page.index(heading)
    table = page[page.index("<table", i):page.index("</table>", i)]
    rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)
    return [[re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)] for r in rows]


def test_sweep_page_summarises_points_in_grid_order(site):
    """The summary merges each point's replications (mean, 95% CI, n) and
    lists the points by the swept values, numbers by value; the cached
    runs follow the same order, not their hash order."""
    page = (site / "sweeps-buffers" / "index.html").read_text()
    summary = [r for r in _table_after(page, "Summary (mean, 95% CI, n)") if r]
    assert [r[:3] for r in summary] == [["5", "hstcp", "1"], ["5", "reno", "1"],
                                        ["20", "hstcp", "1"], ["20", "reno", "1"]]
    runs = [r for r in _table_after(page, "cached runs)") if r]
    limits = [int(re.search(r"limit_pkts = (\d+)", r[2]).group(1)) for r in runs]
    assert limits == sorted(limits) and len(runs) == 4


@pytest.mark.parametrize("exp_id", sorted(REGISTRY))
def test_every_experiments_paper_numbers_render(exp_id):
    """Each experiment's PAPER (shown on its report page) is written as
    JSON, tuple-keyed settings included."""
    paper = getattr(REGISTRY[exp_id].figure, "PAPER", None)
    text = claims_text(paper)
    assert json.loads(text) is not None or paper is None
    if exp_id == "etcp-fig17":
        assert '"622, 1000, 60": [' in text
