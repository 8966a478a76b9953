"""Plots as a user meets them: ``ccsim plot`` on a real sweep, the per-run
cwnd/queue/loss plots (grouping, UDP, warm-up, legends), uncropped
figures, the README's Python snippet, and the CLI's help texts and README
claims."""

from __future__ import annotations

import argparse
import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ccsim
import ccsim.plots as plots
from ccsim.cli import build_parser, main
from ccsim.experiments import REGISTRY
from ccsim.scenario import DropTail, Dumbbell, Flow, Scenario
from ccsim.sweep_plot import plot_sweep, t_quantile_975

from conftest import assert_conserved, small_scenario

ROOT = Path(__file__).resolve().parents[1]
RATES = [2e6, 2e7]
CCS = ["reno", "cubic"]
SEEDS = [1, 2, 3]
X, HUE = "topology.bottleneck_rate_bps", "flows.0.cc"


def _cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory):
    """A real sweep: 2 rates x 2 controllers x 3 seeds; the start spread
    makes the seeds matter, so the error bars are not all zero."""
    d = tmp_path_factory.mktemp("plotsweep")
    sc = small_scenario(duration_s=1.0)
    sc.flows[0].start_spread_s = 0.2
    path = sc.save(d / "base.toml")
    argv = ["sweep", path, "--grid", f"{X}=" + ",".join(map(str, RATES)), "--grid", f"{HUE}=" + ",".join(CCS),
            "--grid", "seed=" + ",".join(map(str, SEEDS)), "--out", d / "sw", "--workers", "1", "--no-progress"]
    assert main([str(a) for a in argv]) == 0
    for f in (d / "sw" / "runs").glob("*.json"):
        assert_conserved(f)
    return d / "sw"


# --------------------------------------------------------------------------
# ccsim plot
# --------------------------------------------------------------------------


def test_plot_cli_writes_png(sweep_dir, capsys, tmp_path):
    out = tmp_path / "u.png"
    code, stdout, err = _cli(capsys, "plot", sweep_dir, "--x", X, "--y", "utilization", "--hue", HUE, "--out", out)
    assert code == 0, err
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 5000
    assert "4 points" in stdout and "3 seeds" in stdout
    code, _, err = _cli(capsys, "plot", sweep_dir, "--x", X, "--y", "loss_rate")
    assert code != 0 and "also varies flows.0.cc" in err  # cc varies, neither x nor hue
    code, _, err = _cli(capsys, "plot", sweep_dir, "--x", X, "--y", "loss_rate", "--where", f"{HUE}=reno")
    assert code == 0, err
    assert (sweep_dir / f"plot-loss_rate-vs-{X}.png").exists()


def test_plotted_data_match_the_table(sweep_dir):
    table = pd.read_csv(sweep_dir / "sweep.csv")
    drawn = plot_sweep(sweep_dir, X, "goodput_mean_bps", hue=HUE)
    ax = drawn.ax
    # one errorbar container per controller, in sweep order, labelled by value
    assert [c.get_label() for c in ax.containers] == CCS
    stds = []
    for cc, cont in zip(CCS, ax.containers):
        line, _caps, (bars,) = cont.lines
        sub = table[table[HUE] == cc]
        want = sub.groupby(X)["goodput_mean_bps"].agg(["mean", "std", "count"]).sort_index()
        assert list(want["count"]) == [3, 3]
        # drawn in the axis units: rate in Mb/s, goodput in Mb/s
        np.testing.assert_allclose(line.get_xdata(), np.array(RATES) * 1e-6)
        np.testing.assert_allclose(line.get_ydata(), want["mean"].to_numpy() * 1e-6, rtol=1e-12)
        # 95% CI with n = 3: t(0.975, 2) = 4.303
        half = 4.303 * want["std"].to_numpy() / math.sqrt(3)
        segs = bars.get_segments()
        assert len(segs) == 2
        for (x0, lo), (x1, hi) in segs:
            i = [round(r * 1e-6, 9) for r in RATES].index(round(x0, 9))
            assert x0 == x1
            assert lo == pytest.approx((want["mean"].iloc[i] - half[i]) * 1e-6, rel=1e-9)
            assert hi == pytest.approx((want["mean"].iloc[i] + half[i]) * 1e-6, rel=1e-9)
        stds.extend(want["std"])
    assert max(stds) > 0  # the seeds really differ, so the bars are tested
    assert ax.get_xscale() == "linear"  # one decade only
    assert "95% CI" in ax.get_ylabel()


def test_plot_std_bars_and_log_axis(sweep_dir):
    table = pd.read_csv(sweep_dir / "sweep.csv")
    drawn = plot_sweep(sweep_dir, X, "utilization", hue=HUE, err="std", logx=True)
    assert drawn.ax.get_xscale() == "log"
    d = drawn.data
    for _, r in d.iterrows():
        vals = table[(table[HUE] == r["hue"]) & (table[X] == r["x"])]["utilization"]
        assert r["n"] == 3
        assert r["err"] == pytest.approx(vals.std(ddof=1), rel=1e-12)
    drawn = plot_sweep(sweep_dir, X, "utilization", hue=HUE, err="none")
    assert all(len(c.lines[2]) == 0 for c in drawn.ax.containers)


def test_plot_seed_as_x_and_text_x(sweep_dir):
    drawn = plot_sweep(sweep_dir, HUE, "utilization", hue=X, where=["seed=2"])
    assert list(drawn.data["n"]) == [1] * 4  # one seed: no bars
    assert [t.get_text() for t in drawn.ax.get_xticklabels()] == CCS


@pytest.mark.parametrize("argv, needle", [
    (["--x", "nope", "--y", "utilization"], "unknown --x field 'nope'; allowed (swept fields): "
                                           f"{X}, {HUE}, seed"),
    (["--x", X, "--y", "bogus"], "unknown --y metric 'bogus'; allowed: goodput_mean_bps"),
    (["--x", X, "--y", "key"], "unknown --y metric 'key'"),
    (["--x", X, "--y", "utilization", "--hue", "flows.1.cc"], "unknown --hue field 'flows.1.cc'"),
    (["--x", X, "--y", "utilization", "--hue", X], "same field as --x"),
    (["--x", X, "--y", "utilization", "--hue", HUE, "--where", "seed=9"], "no row has seed = 9"),
    (["--x", X, "--y", "utilization", "--hue", HUE, "--where", "flows.9=1"], "not a swept field"),
    (["--x", X, "--y", "utilization", "--hue", HUE, "--out", "x.jpg"], "allowed: .png, .svg, .pdf"),
    (["--x", X, "--y", "utilization", "--hue", HUE, "--err", "sem"], "invalid choice: 'sem'"),
])
def test_plot_bad_input_names_what_is_allowed(sweep_dir, capsys, argv, needle):
    with pytest.raises(SystemExit) if "--err" in argv else _noop():
        code, _, err = _cli(capsys, "plot", sweep_dir, *argv)
        assert code == 2 and err.startswith("error: ") and needle in err, err
        assert "Traceback" not in err
    if "--err" in argv:
        assert needle in capsys.readouterr().err


def test_plot_missing_sweep(tmp_path, capsys):
    code, _, err = _cli(capsys, "plot", tmp_path / "none", "--x", X, "--y", "utilization")
    assert code == 2 and "no sweep table" in err and "ccsim sweep" in err


def test_t_quantile():
    # Student t 97.5% points (tables): the expansion beyond df = 30 too
    for df, t in ((1, 12.706), (2, 4.303), (10, 2.228), (30, 2.042), (40, 2.021), (60, 2.000),
                  (120, 1.980), (1000, 1.962)):
        assert t_quantile_975(df) == pytest.approx(t, abs=1.5e-3), df


class _noop:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# --------------------------------------------------------------------------
# per-run plots
# --------------------------------------------------------------------------


@pytest.fixture
def captured(monkeypatch):
    """Figures the plot functions save, kept open for inspection."""
    figs = []
    real = plots.save_figure

    def keep(fig, path, dpi=120):
        figs.append(fig)
        fig.savefig(path, dpi=40)
        return Path(path)

    monkeypatch.setattr(plots, "save_figure", keep)
    yield figs
    plt = plots.pyplot()
    for f in figs:
        plt.close(f)
    assert real is not None


def _mixed_run(n_reno=8, n_cubic=4, warmup=0.5):
    sc = Scenario(
        name="mixed", duration_s=1.5, warmup_s=warmup, sample_interval_s=0.05,
        topology=Dumbbell(bottleneck_rate_bps=20e6, bottleneck_delay_s=0.005,
                          bottleneck_queue=DropTail(limit_pkts=40)),
        flows=[Flow(count=n_reno, cc="reno", rtt_s=0.03), Flow(count=n_cubic, cc="cubic", rtt_s=0.05),
               Flow(transport="udp", rate_bps=1e6)])
    res = ccsim.run(sc)
    assert_conserved(res)
    return res


def _legend_texts(ax):
    leg = ax.get_legend()
    return [t.get_text() for t in leg.get_texts()] if leg else []


def test_cwnd_grouping_udp_and_legend(tmp_path, captured):
    res = _mixed_run()
    assert any(f["transport"] == "udp" for f in res.raw["flows"])
    # default above 10 window flows: one legend entry per [[flows]] entry
    plots.plot_cwnd(res, tmp_path / "a.png")
    ax = captured[-1].axes[0]
    texts = _legend_texts(ax)
    assert texts == ["warm-up (0.5 s, not averaged)", "entry 0: reno (8 flows)", "entry 1: cubic (4 flows)"]
    assert len(ax.get_lines()) == 12  # the UDP flow (no window) is not drawn
    reno = {l.get_color() for l in ax.get_lines()[:8]}
    assert len(reno) == 1 and reno != {l.get_color() for l in ax.get_lines()[8:]}
    # by controller
    plots.plot_cwnd(res, tmp_path / "b.png", by="cc")
    assert _legend_texts(captured[-1].axes[0])[1:] == ["reno (8 flows)", "cubic (4 flows)"]
    # per flow above 10 flows: the legend stays, outside the axes
    plots.plot_cwnd(res, tmp_path / "c.png", by="flow")
    ax = captured[-1].axes[0]
    texts = _legend_texts(ax)
    assert len(texts) == 13 and texts[1] == "flow 0 reno" and not any("udp" in t or "none" in t for t in texts)
    fig = captured[-1]
    fig.canvas.draw()
    assert ax.get_legend().get_window_extent().x0 >= ax.get_window_extent().x1
    with pytest.raises(ccsim.UserError, match="unknown cwnd grouping 'proto'; allowed: auto, flow, cc, entry"):
        plots.plot_cwnd(res, tmp_path / "d.png", by="proto")


def test_small_run_legend_per_flow_no_udp_entry(tmp_path, captured):
    res = _mixed_run(n_reno=1, n_cubic=1, warmup=0.0)
    plots.plot_cwnd(res, tmp_path / "a.png")
    assert _legend_texts(captured[-1].axes[0]) == ["flow 0 reno", "flow 1 cubic"]  # no warm-up, no UDP


def test_warmup_shaded_on_every_plot(tmp_path, captured):
    res = _mixed_run(n_reno=2, n_cubic=1, warmup=0.5)
    made = plots.plot_all(res, tmp_path)
    names = [p.name for p in made]
    assert names == ["cwnd.png", "queue.png", "loss.png", "goodput.png", "flow_loss.png", "link_drops.png",
                     "jain.png"]
    # every plot against time shades it (the bar charts are totals after it)
    timed = {"cwnd.png", "queue.png", "loss.png", "goodput.png", "jain.png"}
    for name, fig in zip(names, captured):
        if name not in timed:
            continue
        ax = fig.axes[0]
        spans = [p for p in ax.patches if p.get_label().startswith("warm-up")]
        assert len(spans) == 1, [p.get_label() for p in ax.patches]
        xs = spans[0].get_path().transformed(spans[0].get_patch_transform()).vertices[:, 0]
        assert (min(xs), max(xs)) == pytest.approx((0.0, 0.5))


def test_cli_run_cwnd_by(tmp_path, capsys):
    path = small_scenario().save(tmp_path / "s.toml")
    code, _, err = _cli(capsys, "run", path, "--out", tmp_path / "o", "--cwnd-by", "cc", "--no-progress")
    assert code == 0, err
    assert (tmp_path / "o" / "cwnd.png").exists()
    with pytest.raises(SystemExit) as exc:
        _cli(capsys, "run", path, "--out", tmp_path / "p", "--cwnd-by", "proto")
    assert exc.value.code == 2 and "invalid choice: 'proto'" in capsys.readouterr().err


def test_save_figure_never_crops_a_title(tmp_path):
    """A suptitle wider than the figure (as etcp-fig6-baselines' was) must
    fit in the saved image: tight_layout alone only moves the axes."""
    import matplotlib.image as mpimg

    plt = plots.pyplot()
    fig, ax = plt.subplots(figsize=(3, 2.5))
    ax.plot([0, 1], [0, 1], label="a line")
    title = fig.suptitle("E-TCP paper Fig 6 baselines: one flow, 20-packet DropTail, RTT 50, 100 and 200 ms")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    fig.canvas.draw()
    width_px = title.get_window_extent().width * 120 / fig.dpi
    legend_right = ax.get_legend().get_window_extent().x1 * 120 / fig.dpi
    out = plots.save_figure(fig, tmp_path / "t.png", dpi=120)
    h, w = mpimg.imread(out).shape[:2]
    assert w >= width_px and w >= legend_right, (w, width_px, legend_right)


# --------------------------------------------------------------------------
# README snippet, link_pivot
# --------------------------------------------------------------------------


def _readme_python() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "README has no python block"
    return next(b for b in blocks if "ccsim.run" in b)


def test_readme_snippet_runs_and_draws_one_line_per_link(monkeypatch):
    monkeypatch.chdir(ROOT)
    plt = plots.pyplot()
    plt.close("all")
    code = _readme_python().replace("progress=True", "progress=False")
    ns: dict = {}
    exec(compile(code, "README.md", "exec"), ns)
    res = ns["res"]
    ax = plt.gca()
    lines = ax.get_lines()
    n_links = int(res.links["monitored"].sum())
    assert n_links == 2 and len(lines) == n_links
    for line in lines:
        x = np.asarray(line.get_xdata(), dtype=float)
        assert np.all(np.diff(x) > 0), "time must increase along each line (no zig-zag)"
    # each line is exactly that link's series
    for line in lines:
        lid = int(res.links.set_index("name").loc[line.get_label(), "id"])
        want = res.link_series[res.link_series["link"] == lid]["queue_pkts"].to_numpy()
        np.testing.assert_array_equal(np.asarray(line.get_ydata()), want)
    plt.close("all")


def test_link_pivot_bad_column():
    res = ccsim.run(small_scenario(duration_s=0.5))
    with pytest.raises(ccsim.UserError, match="no link series column 'queue'; allowed: queue_pkts"):
        res.link_pivot("queue")
    assert list(res.link_pivot("utilization").columns) == ["r0->r1", "r1->r0"]


# --------------------------------------------------------------------------
# help texts, bench names, README claims
# --------------------------------------------------------------------------


def _walk(parser, path=("ccsim",)):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, path + (name,))


def test_every_option_has_help():
    missing = []
    n = 0
    for path, parser in _walk(build_parser()):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                # each subcommand's one-line help (shown by `ccsim --help`)
                missing += [f"{' '.join(path)} {c.dest}" for c in action._choices_actions if not (c.help or "").strip()]
                continue
            if isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
                continue
            n += 1
            if not (action.help or "").strip() or action.help == argparse.SUPPRESS:
                missing.append(f"{' '.join(path)} {'/'.join(action.option_strings) or action.dest}")
    assert n >= 25 and not missing, missing


def test_sweep_help_shows_grid_required(capsys):
    with pytest.raises(SystemExit):
        main(["sweep", "--help"])
    usage = capsys.readouterr().out.split("\n\n")[0]
    assert "--grid PATH=V1,V2,..." in usage and "[--grid" not in usage
    with pytest.raises(SystemExit) as exc:
        main(["sweep", "x.toml", "--out", "o"])
    assert exc.value.code == 2 and "--grid" in capsys.readouterr().err


def test_bench_names_listed_and_case_insensitive(capsys, monkeypatch):
    import ccsim.bench as bench

    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    helptext = " ".join(capsys.readouterr().out.split())
    for name in bench.BENCHMARKS:
        assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w])", helptext.replace("- ", "-")), name
    asked = []
    monkeypatch.setattr(bench, "run_all", lambda names, quick, progress, rounds=1: asked.append(names) or [])
    monkeypatch.setattr(bench, "format_table", lambda rows: "")
    assert main(["bench", "b1", "w1", "b2-HSTCP"]) == 0
    assert asked == [["B1", "W1", "B2-hstcp"]]
    code = main(["bench", "b9"])
    err = capsys.readouterr().err
    assert code == 2 and "unknown benchmark 'b9'; known: B1" in err


def test_readme_claims_only_what_ships():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    ids = set(re.findall(r"`((?:etcp|ltcp|htcp|pxcp|gwa|modern)-[a-z0-9-]+)`", text))
    assert len(ids) > 25
    assert sorted(ids - set(REGISTRY)) == []
    # every `kind = "..."`, `transport = ...`, `app = ...`, `cc = ...` it names exists
    from ccsim._native import core

    cat = json.loads(core().catalog())
    kinds = {"kind": "queues", "transport": "transports", "app": "applications", "cc": "controllers"}
    for key, value in re.findall(r'`(kind|transport|app|cc) = "([a-z_]+)"`', text):
        assert value in [e["name"] for e in cat[kinds[key]]], (key, value)
    # the RED/ECN, paced TCP/XCP and GWA claims: their experiments and parts exist
    assert {"gwa-lan", "gwa-wan", "gwa-many-flows", "gwa-ns2", "pxcp-fig1", "pxcp-fig3"} <= set(REGISTRY)
    assert "red" in [e["name"] for e in cat["queues"]] and "xcp" in [e["name"] for e in cat["stages"]]
    assert "ecn" in {p["name"] for t in cat["transports"] if t["name"] == "tcp" for p in t.get("params", [])}


def test_etcp_fig6_figure_keeps_titles_and_legend(tmp_path, monkeypatch):
    """The E-TCP Fig 6 figure (which absorbed etcp-fig6-baselines) drawn
    from a synthetic analysis: every title and the legend lie inside the
    saved image, and the suptitle does not overlap the panel titles."""
    import matplotlib.image as mpimg

    import ccsim.experiments._kit.figures as figures
    from ccsim.experiments._kit import Analysis
    from ccsim.experiments.etcp import PROTOCOLS
    from ccsim.experiments.etcp import fig6

    rates = [1e5, 1e6, 1e7, 1e8, 1e9, 5e9]
    rows = [dict(rtt_s=r, protocol=p, rate_bps=c, goodput_utilization=0.5, model_utilization=0.6)
            for r in (0.05, 0.1, 0.2) for p in PROTOCOLS for c in rates]
    etcp = [dict(rtt_s=r, protocol=p, rate_bps=c, goodput_utilization=0.9, model_goodput_utilization=0.88)
            for r in (0.05, 0.1, 0.2) for p in fig6.ETCP_ROWS for c in rates]
    a = Analysis(table=pd.DataFrame(rows), df=pd.DataFrame(rows), etcp=pd.DataFrame(etcp))
    seen = {}
    real = figures.save_figure

    def check(fig, path, dpi=120):
        fig.tight_layout()  # the layout save_figure applies, then measure
        fig.canvas.draw()
        r = fig.canvas.get_renderer()
        seen["dpi"] = fig.dpi
        seen["boxes"] = [t.get_window_extent(r) for t in [fig._suptitle] + [ax.title for ax in fig.axes]]
        seen["tight"] = fig.get_tightbbox(r)
        return real(fig, path, dpi=dpi)

    monkeypatch.setattr(figures, "save_figure", check)
    path = fig6.plot(a, tmp_path, quick=False)
    h, w = mpimg.imread(path).shape[:2]
    tight = seen["tight"]  # inches
    assert w >= tight.width * 120 - 2 and h >= tight.height * 120 - 2
    sup, *titles = seen["boxes"]
    assert sup.width > 0 and all(not sup.overlaps(t) for t in titles)


def test_fields_and_metrics_from_column_order():
    from ccsim.sweep_plot import sweep_fields, sweep_metrics

    df = pd.DataFrame({"seed": [1, 2], "flows.*.rtt_s": [0.1, 0.2], "goodput_mean_bps": [1.0, 2.0],
                       "goodput_tcp_mean_bps": [1.0, 2.0], "utilization": [0.5, 0.6], "key": ["a", "b"],
                       "cached": [True, False]})
    assert sweep_fields(df) == ["seed", "flows.*.rtt_s"]
    assert sweep_metrics(df) == ["goodput_mean_bps", "goodput_tcp_mean_bps", "utilization"]
    drawn = plot_sweep(df, "flows.*.rtt_s", "goodput_tcp_mean_bps")
    assert list(drawn.data["mean"]) == [1.0, 2.0] and drawn.path is None


# --------------------------------------------------------------------------
# the researcher's plots of `ccsim run`
# --------------------------------------------------------------------------


def _dumbbell(queue=None, flows=None, duration=3.0, dt=0.05, **extra):
    return {"name": "rp", "duration_s": duration, "sample_interval_s": dt, **extra,
            "topology": {"kind": "dumbbell", "bottleneck_rate_bps": 10e6, "bottleneck_delay_s": 0.005,
                         "bottleneck_queue": queue or {"kind": "droptail", "limit_pkts": 20}},
            "flows": flows or [{"count": 3, "cc": "reno", "rtt_s": 0.04}]}


def _titles(fig):
    return " ".join([a.get_title() for a in fig.axes] + [t.get_text() for t in fig.texts])


def test_new_plots_written_when_their_data_exist(tmp_path, captured):
    res = ccsim.run(_dumbbell(queue={"kind": "red", "limit_pkts": 100, "min_th_pkts": 5, "max_th_pkts": 15,
                                     "ecn": True},
                              flows=[{"count": 3, "cc": "reno", "rtt_s": 0.04, "ecn": True},
                                     {"count": 4, "cc": "cubic", "rtt_s": 0.04, "bytes": 30_000,
                                      "start_spread_s": 1.0}],
                              warmup_s=0.5, qdelay=True))
    assert_conserved(res)
    assert int(res.links["marks"].sum()) > 0 and res.flows["fct_s"].notna().sum() >= plots.MIN_FCT_SAMPLES
    made = [p.name for p in plots.plot_all(res, tmp_path, fairness_window_s=0.5)]
    assert made == list(plots.PLOT_FILES)
    for name in made:
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    figs = dict(zip(made, captured))
    # goodput: the window is stated, one line per flow, the bottleneck for scale
    ax = figs["goodput.png"].axes[0]
    assert "0.2 s moving window" in ax.get_title() and "preceding 0.2 s" in ax.get_ylabel()
    assert "Mb/s" in ax.get_ylabel()
    texts = _legend_texts(ax)
    assert texts[0].startswith("warm-up") and texts[-1] == "bottleneck rate" and len(texts) == 1 + 7 + 1
    # the moving average is that of the per-interval series
    fs = res.flow_series[res.flow_series["flow"] == 0].set_index("time_s")["goodput_bps"]
    line = next(l for l in ax.get_lines() if l.get_label() == "flow 0 reno")
    want = fs.rolling(4, min_periods=4).mean().to_numpy() / 1e6
    np.testing.assert_allclose(np.asarray(line.get_ydata(), float), want, rtol=1e-9, equal_nan=True)
    # flow loss: per TCP flow, retransmitted and CE-marked packets side by side
    fig = figs["flow_loss.png"]
    assert len(fig.axes[0].patches) == 14 and "loss and ECN marks per TCP flow" in _titles(fig)
    assert [p.get_height() for p in fig.axes[0].patches] == list(res.flows["retransmits"]) + list(
        res.flows["ce_marks"])
    assert _legend_texts(fig.axes[0]) == ["retransmitted", "CE-marked (ECN)"]
    # queueing delay: per monitored link, each interval's mean and max, in ms
    ax = figs["qdelay.png"].axes[0]
    assert ax.get_ylabel() == "queueing delay (ms)"
    fwd = res.link_series[res.link_series["link"] == 0]
    line = next(l for l in ax.get_lines() if l.get_label() == f"{plots._link_labels(res)[0]} mean")
    np.testing.assert_allclose(np.asarray(line.get_ydata(), float), fwd["qdelay_mean_s"].to_numpy() * 1e3,
                               equal_nan=True)
    # link drops and marks: the marks are there, and called run totals
    fig = figs["link_drops.png"]
    ax = fig.axes[0]
    assert "ECN marks (CE)" in _legend_texts(ax) and "run totals after the 0.5 s warm-up" in ax.get_title()
    mon = res.links[res.links["monitored"].astype(bool) | (res.links[["drops", "marks"]].sum(axis=1) > 0)]
    heights = [p.get_height() for p in ax.patches]
    assert sorted(heights) == sorted(list(mon["drops"]) + list(mon["marks"]))
    # FCT CDF over the completed transfers
    ax = figs["fct.png"].axes[0]
    n_done = int(res.flows["fct_s"].notna().sum())
    assert f"({n_done} transfers completed)" in ax.get_title() and ax.get_xlabel() == "flow completion time (s)"
    # Jain over time, the window stated
    ax = figs["jain.png"].axes[0]
    assert "0.5 s sliding window" in ax.get_title() and ax.get_ylim() == (0.0, 1.05)
    np.testing.assert_array_equal(ax.get_lines()[0].get_ydata(), res.fairness_series["jain"])


def test_new_plots_not_written_without_their_data(tmp_path):
    # no series (sample_interval_s = 0), no TCP flow, no finite transfer:
    # only the link totals remain, and earlier files of the others go
    for name in plots.PLOT_FILES:
        (tmp_path / name).write_bytes(b"old")
    res = ccsim.run(_dumbbell(dt=0, flows=[{"transport": "udp", "rate_bps": 12e6}]))
    made = [p.name for p in plots.plot_all(res, tmp_path)]
    assert made == ["link_drops.png"]
    assert sorted(p.name for p in tmp_path.glob("*.png")) == ["link_drops.png"]
    # TCP without marks or completed transfers: no fct.png, no marks bar, and the title says so
    res = ccsim.run(_dumbbell(duration=1.0))
    made = [p.name for p in plots.plot_all(res, tmp_path)]
    assert "fct.png" not in made and {"goodput.png", "flow_loss.png", "link_drops.png", "jain.png"} <= set(made)
    # fewer than MIN_FCT_SAMPLES completed transfers: no CDF
    res = ccsim.run(_dumbbell(duration=1.0, flows=[{"count": 2, "cc": "reno", "rtt_s": 0.04, "bytes": 20_000}]))
    assert res.flows["fct_s"].notna().sum() == 2
    assert plots.plot_fct(res, tmp_path / "fct.png") is None


def test_link_drops_says_no_marks(tmp_path, captured):
    res = ccsim.run(_dumbbell(duration=1.0))
    plots.plot_link_drops(res, tmp_path / "l.png")
    ax = captured[-1].axes[0]
    assert "no ECN marks" in ax.get_title() and _legend_texts(ax) == ["queue drops"]


def test_goodput_many_flows_busiest_and_others(tmp_path, captured):
    res = _mixed_run(n_reno=14, n_cubic=4, warmup=0.0)
    plots.plot_goodput(res, tmp_path / "g.png")
    ax = captured[-1].axes[0]
    texts = _legend_texts(ax)
    assert len(texts) == plots.MAX_GOODPUT_LINES + 1  # the busiest 11, others, bottleneck
    assert "others: mean of 8 flows" in texts and "(11 busiest of 19 flows)" in ax.get_title()
    busiest = res.flow_series.groupby("flow")["goodput_bps"].mean().sort_values(ascending=False, kind="stable")
    shown = sorted(int(t.split()[1]) for t in texts if t.startswith("flow "))
    assert shown == sorted(busiest.index[:11])


def test_goodput_window_choice():
    assert plots.goodput_window(0.1, 20.0) == 8  # duration / 25
    assert plots.goodput_window(0.05, 1.5) == 4  # at least 4 intervals
    assert plots.goodput_window(0.1, 1000.0) == 10  # at most 1 s
    assert plots.goodput_window(2.0, 1000.0) == 1  # one interval longer than 1 s


def test_cwnd_axis_not_ruined_by_a_recovery_spike(tmp_path, captured):
    # one NewReno flow (RFC 6582's inflation; SACK recovery has none), one
    # ACK per segment, 20-packet buffer, pipe ~103 packets: the slow-start
    # overshoot's recovery inflates the window (duplicate ACKs) to ~210
    # packets against a steady ~90
    res = ccsim.run(_dumbbell(duration=30.0, dt=0.01, flows=[{"count": 1, "cc": "reno", "rtt_s": 0.1,
                                                              "recovery": "newreno", "init_cwnd_pkts": 2,
                                                              "delayed_ack": False}]))
    cwnd = res.flow_series["cwnd"].dropna()
    assert cwnd.max() > 2 * cwnd.median()
    top = plots.cwnd_ylimit([cwnd])
    assert top is not None and top == pytest.approx(1.2 * np.percentile(cwnd, 99))
    plots.plot_cwnd(res, tmp_path / "c.png")
    fig = captured[-1]
    ax = fig.axes[0]
    assert ax.get_ylim()[1] == pytest.approx(top) and ax.get_ylim()[1] < cwnd.max()
    assert "axis cut at 1.2 \u00d7 p99" in ax.get_ylabel()
    (marks,) = ax.collections
    offs = marks.get_offsets()
    assert len(offs) == int((cwnd > top).sum()) and np.all(np.asarray(offs)[:, 1] == pytest.approx(top))
    assert f"up to {cwnd.max():,.0f} packets" in " ".join(t.get_text() for t in ax.texts)


def test_cwnd_axis_left_alone_without_spikes(tmp_path, captured):
    assert plots.cwnd_ylimit([pd.Series([10.0] * 200)]) is None
    assert plots.cwnd_ylimit([pd.Series([10.0] * 200 + [100.0])]) == pytest.approx(12.0)


def test_sweep_plot_human_labels_and_units(sweep_dir):
    drawn = plot_sweep(sweep_dir, X, "goodput_mean_bps", hue=HUE)
    ax = drawn.ax
    assert ax.get_xlabel() == "bottleneck rate (Mb/s)"
    assert ax.get_ylabel().startswith("mean goodput per flow (Mb/s)")
    assert ax.get_legend().get_title().get_text() == "congestion control"
    from ccsim.sweep_plot import axis_label

    assert axis_label("flows.3.rtt_s") == "round-trip propagation delay (ms)"
    assert axis_label("topology.edge_delay_s") == "edge link one-way delay (ms)"
    assert axis_label("topology.link_delay_s") == "link delay (s)"  # fallback: last component, unit suffix
    assert axis_label("flows.0.app_params.users") == "users"


def test_sweep_plot_bounded_ci_note():
    # two seeds near the bound: the t interval (t = 12.71) leaves [0, 1]
    df = pd.DataFrame({"topology.bottleneck_rate_bps": [1e6, 1e6, 2e6, 2e6], "seed": [1, 2, 1, 2],
                       "goodput_mean_bps": [1.0, 1.0, 1.0, 1.0], "utilization": [0.97, 0.99, 0.5, 0.5]})
    drawn = plot_sweep(df, "topology.bottleneck_rate_bps", "utilization")
    notes = [t.get_text().replace("\n", " ") for t in drawn.ax.texts]
    assert len(notes) == 1 and "1 bar leaves [0, 1]: with 2 seeds the Student t interval is wide" in notes[0]
    drawn = plot_sweep(df, "topology.bottleneck_rate_bps", "utilization", err="std")
    assert not drawn.ax.texts
    drawn = plot_sweep(df.assign(utilization=[0.5, 0.52, 0.5, 0.5]), "topology.bottleneck_rate_bps", "utilization")
    assert not drawn.ax.texts
