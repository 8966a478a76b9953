"""The ``ccsim`` command line: run, sweep, list, reproduce, report, bench, fuzz.

Errors in the user's input (missing file, bad TOML/JSON, invalid scenario,
unknown experiment, bad ``--grid``) are printed as ``error: <message>`` on
stderr with exit status 2 and no traceback: the message from the engine
already names the field, and a traceback would bury it; so are an output
directory that cannot be written and running out of memory. Anything else
is a bug and keeps its traceback. A scenario that runs but probably not as
meant (:class:`ScenarioWarning`) gets a ``warning: <message>`` line. When
the reader of stdout goes away (``| head -1``) the command ends quietly
with status 0, as Unix tools do.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import warnings
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from ._native import UserError

__all__ = ["main", "parse_grid"]


# --------------------------------------------------------------------------
# --grid parsing
# --------------------------------------------------------------------------


def _split_top(text: str) -> List[str]:
    """Split on commas that are not inside [...] or {...} or quotes, so list
    values (``flows.0.rtt_range_s=[0.01,0.1],[0.05,0.2]``) survive."""
    parts, depth, quote, cur = [], 0, None, []
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth < 0:
                raise UserError(f"bad --grid value list {text!r}: unbalanced brackets")
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    if depth != 0 or quote:
        raise UserError(f"bad --grid value list {text!r}: unbalanced brackets or quotes")
    parts.append("".join(cur))
    return parts


def _parse_value(text: str) -> Any:
    """JSON if it parses (numbers, true/false, lists, "quoted"), else the
    bare string (so ``flows.0.cc=reno,highspeed`` needs no quotes)."""
    s = text.strip()
    if not s:
        raise UserError("bad --grid: empty value")
    try:
        return json.loads(s)
    except ValueError:
        pass
    if s.lower() in ("true", "false"):
        return s.lower() == "true"
    if s.lower() in ("inf", "+inf", "-inf", "nan"):
        return float(s)
    return s


def parse_grid(items: Sequence[str]) -> Dict[str, List[Any]]:
    """``["a.b=1,2", "c=x"]`` -> ``{"a.b": [1, 2], "c": ["x"]}``."""
    grid: Dict[str, List[Any]] = {}
    for item in items:
        key, sep, values = item.partition("=")
        key = key.strip()
        if not sep or not key or not values.strip():
            raise UserError(f"bad --grid {item!r}: expected PATH=V1,V2,... (e.g. flows.0.cc=reno)")
        if any(not p for p in key.split(".")):
            raise UserError(f"bad --grid {item!r}: {key!r} is not a dotted path")
        if key in grid:
            raise UserError(f"bad --grid: {key!r} given twice")
        grid[key] = [_parse_value(v) for v in _split_top(values)]
    return grid


# --------------------------------------------------------------------------
# subcommands
# --------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    from .plots import plot_all, remove_plots
    from .runner import ensure_output_dir, run
    from .scenario import load_scenario

    scenario = load_scenario(args.scenario)
    out = Path(args.out)
    taps = {k: {link: out / f"{tap_file_stem(link)}.{ext}" for link in getattr(args, k) or []}
            for k, ext in (("pcap", "pcap"), ("trace", "tr"))}
    if taps["pcap"] or taps["trace"]:
        ensure_output_dir(out)
    res = run(scenario, progress=False if args.quiet else args.progress, pcap=taps["pcap"], trace=taps["trace"],
              _fields=("--pcap", "--trace"), _out=(out, args.csv))
    res.write(out, csv=args.csv)
    # --no-plots also removes the plots of an earlier run in a reused directory
    # jain.png states the window; the engine's default is 1 s
    window = getattr(scenario, "fairness_window_s", None) or 1.0
    made = [] if args.no_plots else plot_all(res, out, cwnd_by=args.cwnd_by, fairness_window_s=window)
    if args.no_plots:
        remove_plots(out)
    print(res.table())
    print(f"\nwrote {out}/summary.json, meta.json, flows.parquet, links.parquet, *_series.parquet"
          + (", *.csv" if args.csv else "")
          + (", " + ", ".join(p.name for p in made) if made else ""))
    for path in [*taps["pcap"].values(), *taps["trace"].values()]:
        print(f"wrote {path}")
    return 0


def tap_file_stem(link: str) -> str:
    """File name of a link's tap: ``r0->r1`` -> ``r0-r1``, others kept safe."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in link.replace("->", "-")) or "link"


def cmd_sweep(args: argparse.Namespace) -> int:
    from .scenario import load_scenario
    from .sweep import sweep, write_table

    if not args.grid:
        raise UserError("sweep needs at least one --grid PATH=V1,V2,...")
    grid = parse_grid(args.grid)
    tls = {"ca_file": args.tls_ca_file, "cert": args.tls_cert, "key": args.tls_key}
    security = None
    if any(v is not None for v in tls.values()):
        from .sweep import dask_security

        if args.dask is None:
            raise UserError("--tls-ca-file, --tls-cert and --tls-key go with --dask tls://HOST:PORT "
                            "(a TLS Dask scheduler, docs/cluster.md); without --dask the sweep runs here")
        security = dask_security(**tls, options=TLS_OPTIONS)
    scenario = load_scenario(args.scenario)
    backend = "dask" if args.dask is not None else "process"
    df = sweep(scenario, grid, args.out, workers=args.workers, backend=backend,
               progress=False if args.quiet else args.progress, address=args.dask or None, seeds=args.seeds,
               group_by=args.group_by, security=security,
               _options={"group_by": "--group-by", "address": "--dask", "security": ", ".join(TLS_OPTIONS)})
    paths = write_table(df, args.out)
    import pandas as pd

    with pd.option_context("display.width", 160, "display.max_columns", 20):
        shown = df.drop(columns=["key"]).copy()
        print(shown.to_string(index=False))
        if args.seeds:
            from .sweep import summarise

            summary = summarise(df)
            paths += write_table(summary, args.out, stem="sweep_summary")
            print("\nmean and 95% confidence half-width over seeds:")
            print(summary.to_string(index=False))
            _warn_identical_seeds(df, args.seeds)
    runs, n_cached = int(df.attrs["runs"]), int(df.attrs["runs_cached"])
    field = df.attrs.get("group_by")
    split = f", {len(df)} rows: one per {field} value of each run" if field else ""
    print(f"\n{runs} runs ({n_cached} from cache){split}; wrote {', '.join(str(p) for p in paths)}")
    return 0


#: ``ccsim sweep``'s TLS options, in the order of :data:`ccsim.sweep.TLS_FILES`.
TLS_OPTIONS = ("--tls-ca-file", "--tls-cert", "--tls-key")


def _warn_identical_seeds(df, seeds: int) -> None:
    """One warning when the seeds of a point gave identical runs: the
    scenario has no random component there, and its replications (and the
    zero confidence half-width) say nothing."""
    from .sweep import identical_replications

    same, replicated = identical_replications(df)
    if not same:
        return
    where = "every point" if same == replicated else f"{same} of {replicated} points"
    print(f"warning: --seeds {seeds}: the runs of {where} are identical for every seed: the scenario has no "
          "random component that the seed changes (such as start_spread_s, rtt_range_s, a loss probability or "
          "a RED queue), so its replications repeat one run and their 95% half-width of 0 is no confidence "
          "interval; add a random component to replicate, or drop --seeds", file=sys.stderr)


def cmd_plot(args: argparse.Namespace) -> int:
    from .sweep_plot import default_out, plot_sweep

    out = Path(args.out) if args.out else default_out(args.sweep_dir, args.x, args.y, args.hue)
    drawn = plot_sweep(args.sweep_dir, args.x, args.y, hue=args.hue, where=args.where, err=args.err, out=out,
                       logx=args.logx)
    n = int(drawn.data["n"].max())
    print(f"wrote {drawn.path} ({len(drawn.data)} points" + (f", up to {n} seeds each" if n > 1 else "") + ")")
    return 0


def _print_entries(title: str, entries: List[Dict[str, Any]]) -> None:
    print(f"{title}:")
    for e in entries:
        doc = e.get("doc", "")
        print(f"  {e.get('name')}" + (f"  - {doc}" if doc else ""))
        needs = _needs_text(e)
        if needs:
            print(f"      needs: {needs}")
        for p in e.get("params", []) or []:
            default = p.get("default")
            # null = no default: required, or one of alternatives (the doc says which)
            dtxt = "(no default)" if default is None else json.dumps(default)
            # a flow field's other personalities' values, where they differ
            by = p.get("by_model") or {}
            others = [f"{m}: {json.dumps(v)}" for m, v in by.items() if v != default and p.get("name") != "tcp_model"]
            if others:
                dtxt += f" [{'; '.join(others)}]"
            pdoc = p.get("doc", "")
            values = f"{p['values']}: " if p.get("values") else ""
            print(f"      {p.get('name')} = {dtxt}" + (f"  ({values}{pdoc})" if pdoc else ""))
    print()


def _needs_text(e: Dict[str, Any]) -> str:
    """What a controller declares it needs (its catalog entry), in a line;
    empty for an entry without a declaration or with nothing to say."""
    if "pacing_rate" not in e:
        return ""
    parts = []
    if e.get("origin") not in (None, "built-in"):
        parts.append(f"{e['origin']} controller")
    if e.get("pacing_rate"):
        parts.append('paces at its own rate (pacing = "rate")')
    ecn = e.get("ecn") or {}
    if ecn.get("required"):
        parts.append("ECN (ecn = true)")
    if ecn.get("ect"):
        parts.append(f"ect = {json.dumps(ecn['ect'])}")
    if ecn.get("feedback"):
        parts.append(f"ecn_feedback = {json.dumps(ecn['feedback'])}"
                     + ("" if ecn.get("feedback_required") else " with ECN on"))
    if e.get("path_stage"):
        parts.append(f"the {e['path_stage']} router stage on its path")
    return "; ".join(parts)


LIST_KINDS = ("transports", "applications", "controllers", "recoveries", "pacing", "queues", "stages", "topologies",
              "experiments")


def cmd_list(args: argparse.Namespace) -> int:
    kinds = [args.what] if args.what else list(LIST_KINDS)
    catalog = None
    for kind in kinds:
        if kind == "experiments":
            from .experiments import REGISTRY

            print("experiments:")
            if not REGISTRY:
                print("  (none registered)")
            for exp in sorted(REGISTRY.values(), key=lambda e: e.id):
                print(f"  {exp.id:<24} {exp.description}  [{exp.paper}]")
            print()
            continue
        if catalog is None:
            from ._native import core

            catalog = json.loads(core().catalog())
        _print_entries(kind, catalog.get(kind, []))
    return 0


def cmd_reproduce(args: argparse.Namespace) -> int:
    from .experiments import get, print_checks, summary_line, write_checks

    if args.all:
        return _reproduce_all(args)
    if args.id is None:
        raise UserError("reproduce needs an experiment id (ccsim list experiments) or --all")
    for flag, given in (("--paper", args.paper), ("--dask", args.dask)):
        if given:
            raise UserError(f"{flag} goes with --all (one experiment runs on this machine's cores)")
    exp = get(args.id)
    out = Path(args.out or Path("results") / exp.id)
    out.mkdir(parents=True, exist_ok=True)
    print(f"{exp.id}: {exp.description} [{exp.paper}]" + (" (quick)" if args.quick else "")
          + (" (replot from the run cache)" if args.replot else ""))
    agents = exp.agents()
    if agents:
        print(agents)
    if args.replot:
        from .sweep import MissingRuns

        try:
            checks = list(exp.replot(out, args.quick))
        except MissingRuns as exc:
            quick = " --quick" if args.quick else ""
            raise UserError(f"--replot needs every run in the cache: {exc}; run "
                            f"'ccsim reproduce {exp.id}{quick} --out {out}' without --replot to compute "
                            f"{'it' if len(exc.missing) == 1 else 'them'}") from None
    else:
        from .sweep import progress_default

        with progress_default(False if args.quiet else args.progress):
            checks = list(exp.run(out, args.quick, args.workers) or [])
    path = write_checks(out, checks, agents)
    print_checks(checks, summary=False)
    print(f"wrote {path}")
    # The summary line is printed last on its own so scripts can grep it.
    print(summary_line(checks))
    return 0


def _reproduce_all(args: argparse.Namespace) -> int:
    """``ccsim reproduce --all``: see :mod:`ccsim.reproduce`."""
    from tqdm.auto import tqdm

    from .experiments import summary_line
    from .reproduce import PAPERS, format_counts, hms, paper_of, reproduce_all, select, workers_default

    if args.id is not None:
        raise UserError(f"give an experiment id or --all, not both (got {args.id!r} and --all)")
    if args.replot:
        raise UserError("--replot redraws one experiment (ccsim reproduce ID --replot); with --all every "
                        "cached run is reused anyway, so rerunning --all recomputes nothing that finished")
    exps = select(args.paper)
    out = Path(args.out or "results")
    papers = [p for p in PAPERS if any(paper_of(e) == p for e in exps)]
    where = f"the Dask cluster at {args.dask}" if args.dask else f"{workers_default(args.workers)} workers"
    print(f"reproduce --all{' --quick' if args.quick else ''}: {len(exps)} experiments of "
          f"{', '.join(papers)} into {out}/ on {where}")
    progress = False if args.quiet else args.progress

    def done(exp_id: str, checks, error) -> None:
        line = f"{exp_id}: {summary_line(checks)}" if checks is not None else f"{exp_id}: FAILED: {error}"
        tqdm.write(line, file=sys.stdout)

    outcome = reproduce_all(out, args.quick, exps, workers=args.workers,
                            backend="dask" if args.dask else "process", address=args.dask,
                            progress=progress, on_experiment=done)
    print()
    for line in format_counts(outcome):
        print(line)
    print(f"runs: {outcome.runs_computed} computed, {outcome.runs_cached} cached; "
          f"wall time {hms(outcome.wall_s)}")
    if outcome.runs_timed:
        print(f"CPU time of the {outcome.runs_timed} timed runs: {hms(outcome.run_cpu_s)} "
              f"({hms(outcome.run_cpu_s / (os.cpu_count() or 1))} over {os.cpu_count() or 1} cores)")
    print(f"wrote {out / 'reproduce-all.json'} and {outcome.report}")
    if outcome.errors:
        print(f"error: {len(outcome.errors)} experiment{'s' if len(outcome.errors) != 1 else ''} failed: "
              + "; ".join(f"{i}: {e}" for i, e in outcome.errors.items()), file=sys.stderr)
        return 1
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from .report import build_report

    index = build_report(args.dir, args.out, progress=False if args.quiet else None)
    print(f"wrote {index} (open it in a browser; it needs no server)")
    return 0


def cmd_fuzz(args: argparse.Namespace) -> int:
    from .fuzz import command

    if args.cases < 1:
        raise UserError(f"--cases must be >= 1, got {args.cases}")
    if args.seed < 0:
        raise UserError(f"--seed must be >= 0, got {args.seed}")
    return command(args.cases, args.seed, Path(args.out), progress=False if args.quiet else None,
                   ccs=args.cc or None)


def _bench_names() -> List[str]:
    from .bench import BENCHMARKS

    return list(BENCHMARKS)


def cmd_bench(args: argparse.Namespace) -> int:
    from .bench import BENCHMARKS, format_table, run_all

    # Names are matched case-insensitively (b1, w1, b2-reno) and mapped to
    # their canonical spelling.
    canon = {n.lower(): n for n in BENCHMARKS}
    unknown = [n for n in args.names if n.lower() not in canon]
    if unknown:
        raise UserError(f"unknown benchmark {unknown[0]!r}; known: {', '.join(BENCHMARKS)}")
    args.names = [canon[n.lower()] for n in args.names]

    def note(name: str, round_label: str = "") -> None:
        if not args.json:
            print(f"running {name}{round_label}: {BENCHMARKS[name].description}" + (" (quick)" if args.quick else ""),
                  file=sys.stderr, flush=True)

    if args.rounds < 1:
        raise UserError(f"--rounds: {args.rounds} is not allowed; must be 1 or more")
    rows = run_all(args.names or None, quick=args.quick, progress=note, rounds=args.rounds)
    print(json.dumps(rows, indent=2) if args.json else format_table(rows))
    return 0


# --------------------------------------------------------------------------
# parser
# --------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """argparse exits 2 on usage errors already; only the prefix is ours, so
    every bad-input message starts with ``error:``."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"error: {message}", file=sys.stderr)
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    from . import __version__
    from .reproduce import PAPERS

    ap = _Parser(prog="ccsim", description="Packet-level network simulator for congestion-control research.")
    ap.add_argument("--version", action="version", version=f"ccsim {__version__}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser("run", help="run one scenario and write its results and plots",
                       description="Run one scenario and write into --out: summary.json (lists the flows and "
                                   "links inline up to 1000 rows each; beyond, points to flows.parquet / "
                                   "links.parquet and gives aggregates), meta.json, flows.parquet, links.parquet, "
                                   "the series as Parquet, and plots. A run whose files cannot fit on the disk "
                                   "(or whose run cannot fit in memory) is refused before it starts, naming the "
                                   "field (flows[i].count, sample_interval_s) and the figures.")
    p.add_argument("scenario", help="scenario file (.toml or .json)")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--csv", action="store_true",
                   help="also write every table as CSV (counted in the disk check before running)")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar of simulated time with ETA (default: on a terminal)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--cwnd-by", choices=("auto", "flow", "cc", "entry"), default="auto",
                   help="colour and legend of cwnd.png: one per flow, per controller or per [[flows]] entry "
                        "(default auto: per flow up to 10 flows, else per entry)")
    p.add_argument("--pcap", action="append", metavar="LINK",
                   help="write OUT/LINK.pcap of the packets leaving link LINK (a name from the summary's "
                        "links, e.g. r0->r1, or bottleneck / bottleneck-rev); repeatable")
    p.add_argument("--trace", action="append", metavar="LINK",
                   help="write OUT/LINK.tr, an ns-2 format trace (+ - d r lines) of link LINK; repeatable")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("sweep", help="run a scenario over a parameter grid (cached, parallel)")
    p.add_argument("scenario", help="base scenario file (.toml or .json)")
    p.add_argument("--grid", action="append", required=True, metavar="PATH=V1,V2,...",
                   help="dotted path and values, e.g. topology.bottleneck_rate_bps=1e8,1e9 (repeatable)")
    p.add_argument("--out", required=True, help="output directory (runs/ cache, sweep.csv, sweep.parquet)")
    p.add_argument("--workers", type=int, default=None, help="parallel runs (default: all cores)")
    p.add_argument("--dask", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="run on Dask: a scheduler address (tcp://HOST:PORT, or tls://HOST:PORT with --tls-*), "
                        "or no value for a local cluster (docs/cluster.md)")
    p.add_argument("--tls-ca-file", default=None, metavar="PEM",
                   help="with --dask tls://HOST:PORT: the CA certificate that signed the scheduler's")
    p.add_argument("--tls-cert", default=None, metavar="PEM",
                   help="with --dask tls://HOST:PORT: this client's certificate, signed by that CA")
    p.add_argument("--tls-key", default=None, metavar="PEM",
                   help="with --dask tls://HOST:PORT: this client's private key (not needed if --tls-cert holds it)")
    p.add_argument("--group-by", default="auto", metavar="FIELD",
                   help="one row per value of this flow field in each run, e.g. cc: BBR and CUBIC flows of one "
                        "run get rows of their own instead of one pooled mean (default auto: by cc when a run "
                        "mixes TCP controllers, else one row per run; none: always one row per run)")
    p.add_argument("--seeds", type=int, default=None, metavar="N",
                   help="replicate every point with N seeds (the scenario's seed, +1, ...) and also write "
                        "sweep_summary.csv/.parquet: mean, std and 95%% confidence half-width per point")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar with ETA; cached runs count as done (default: on a terminal)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser("plot", help="plot a sweep metric against a swept field, one line per --hue value")
    p.add_argument("sweep_dir", metavar="SWEEP_DIR", help="a 'ccsim sweep --out' directory (reads its sweep.csv)")
    p.add_argument("--x", required=True, metavar="FIELD", help="swept field on the x axis, e.g. "
                   "topology.bottleneck_rate_bps (a wrong name lists the allowed ones)")
    p.add_argument("--y", required=True, metavar="METRIC", help="metric column on the y axis, e.g. utilization, "
                   "goodput_mean_bps, loss_rate, jain_index")
    p.add_argument("--hue", default=None, metavar="FIELD", help="swept field drawn as one line per value, "
                   "e.g. flows.0.cc")
    p.add_argument("--where", action="append", default=[], metavar="FIELD=VALUE",
                   help="keep only rows with this value of a swept field (repeatable); needed when a field "
                        "other than --x, --hue and seed varies")
    p.add_argument("--err", choices=("ci95", "std", "none"), default="ci95",
                   help="error bars over seeds: 95%% CI of the mean (Student t, default), sample std, or none")
    p.add_argument("--logx", action=argparse.BooleanOptionalAction, default=None,
                   help="log x axis (default: when x is positive and spans >= 2 decades)")
    p.add_argument("--out", default=None, metavar="FILE",
                   help="image to write, .png/.svg/.pdf (default SWEEP_DIR/plot-Y-vs-X[-by-HUE].png)")
    p.set_defaults(func=cmd_plot)

    p = sub.add_parser("list", help="list transports, applications, controllers, queues, topologies, experiments")
    p.add_argument("what", nargs="?", choices=LIST_KINDS, help="list only this kind (default: all)")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("reproduce", help="reproduce a paper experiment (or --all of them) and compare with the paper",
                       description="Run one experiment (ID) or every experiment (--all) and compare ccsim with "
                                   "the paper, its models and ns-2.35. With --all the runs of all experiments "
                                   "share one pool and one progress bar, each experiment lands in OUT/ID, the "
                                   "HTML report in OUT/report and the totals in OUT/reproduce-all.json; an "
                                   "interrupted --all resumes from the cached runs.")
    p.add_argument("id", nargs="?", default=None, help="experiment id (ccsim list experiments)")
    p.add_argument("--all", action="store_true",
                   help="every experiment of the five papers and of today's congestion control (or of "
                        "--paper), then the report")
    p.add_argument("--paper", action="append", default=None, choices=PAPERS,
                   help="with --all: only this paper's experiments (repeatable; modern: today's congestion "
                        "control, BBR and DCTCP)")
    p.add_argument("--quick", action="store_true", help="smaller, faster version")
    p.add_argument("--out", default=None, help="output directory (default results/ID; with --all, results)")
    p.add_argument("--workers", type=int, default=None, help="parallel runs (default: all cores)")
    p.add_argument("--dask", default=None, metavar="ADDRESS",
                   help="with --all: run on the Dask scheduler at ADDRESS (docs/cluster.md)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar of each sweep's runs with ETA; cached runs count as done "
                        "(default: on a terminal)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--replot", action="store_true",
                   help="redo the table, checks and plot from the cached runs in OUT/runs without running "
                        "anything (pass --quick if the runs were quick)")
    p.set_defaults(func=cmd_reproduce)

    p = sub.add_parser("report", help="write a static HTML site of the reproductions and sweeps under DIR "
                                       "(from their files; nothing is re-run)",
                       description="Write a static HTML site (index, one page per experiment and sweep: checks "
                                   "by source, open deviations, figures, scenario files, the command that "
                                   "regenerates it) from the results under DIR. It opens from disk, no server.")
    p.add_argument("dir", metavar="DIR", help="directory holding 'ccsim reproduce' and/or 'ccsim sweep' outputs")
    p.add_argument("--out", default=None, metavar="SITE",
                   help="site directory (default DIR/report); replaced only if an earlier report made it")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("bench", help="engine benchmarks (TCP B1..B5 and B2-<cc>, E-TCP E1/E5, web W1, "
                                      "XCP X1, RED R1, GWA G1 and their own dumbbells X1-dt, G1-dt, the ns-2 peer's "
                                      "X1u, X1u-dt, G1-drr, memory soak L1, many flows S0..S4, the ns-3 peer's M-bbr, "
                                      "M-dctcp-red, M-cubic-fqcodel, M-prague-dualpi2), each in its own process")
    p.add_argument("names", nargs="*", metavar="NAME",
                   help="benchmarks to run (default: all; case-insensitive): " + ", ".join(_bench_names()))
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--quick", action="store_true", help="durations / 10 (smoke test)")
    p.add_argument("--rounds", type=int, default=1, metavar="N",
                   help="run the list N times, interleaved, and keep each row's fastest round (default 1); "
                        "makes the ratios between rows (vs_B5_pkts, vs_B3_pkts) robust to load swings")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("fuzz", help="run random scenarios and check TCP invariants; write failing scenarios",
                       description="Run CASES random researcher-style scenarios (scenario i of --seed is always "
                                   "the same) and check each against invariants no correct TCP breaks (no long "
                                   "cwnd <= 1 without timeouts, no retransmission without a loss or timeout, "
                                   "packet conservation, no starved flow in a homogeneous scenario; "
                                   "docs/reliability.md). Every failing scenario is written to OUT as "
                                   "fuzz-SEED-I.json, which 'ccsim run' accepts, with OUT/violations.txt. "
                                   "Exit status 1 if any invariant broke.")
    p.add_argument("--cases", type=int, default=200, metavar="N", help="scenarios to run (default 200)")
    p.add_argument("--seed", type=int, default=1, metavar="S", help="generator seed (default 1)")
    p.add_argument("--out", default="fuzz-out", metavar="DIR", help="where failing scenarios go (default fuzz-out)")
    p.add_argument("--cc", action="append", metavar="NAME",
                   help="draw the TCP flows' controllers from these (repeatable; default every built-in that "
                        "runs on a plain path): a built-in's name or a Python controller as module:Class or "
                        "file.py:Class")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_fuzz)
    return ap


def _stdout_closed() -> bool:
    """Whether stdout is a pipe or socket whose reader has gone (poll
    reports an error on it), as opposed to another broken pipe."""
    import select

    try:
        poll = select.poll()
        poll.register(sys.stdout.fileno(), select.POLLOUT)
        return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poll.poll(0))
    except (AttributeError, OSError, ValueError):
        return False


@contextlib.contextmanager
def _warnings_as_lines():
    """Print :class:`ScenarioWarning` as ``warning: <message>`` on stderr
    (no file and line of ccsim's source); other warnings as Python does."""
    from ._native import ScenarioWarning

    with warnings.catch_warnings():
        show = warnings.showwarning

        def showwarning(message, category, filename, lineno, file=None, line=None):
            if issubclass(category, ScenarioWarning):
                print(f"warning: {message}", file=sys.stderr)
            else:
                show(message, category, filename, lineno, file, line)

        warnings.showwarning = showwarning
        yield


def _print_controller_error(exc: BaseException) -> None:
    """A Python controller's exception stopped a run: the engine's line
    (controller, flow, time, hook) and the controller's own traceback,
    which is the user's code, not ccsim's."""
    import traceback

    print(f"error: {exc}", file=sys.stderr)
    cause = exc.__cause__
    if cause is not None and cause.__traceback__ is not None:
        print("the controller's traceback (most recent call last):", file=sys.stderr)
        print("".join(traceback.format_tb(cause.__traceback__)).rstrip(), file=sys.stderr)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "workers", None) is not None and args.workers < 1:
        parser.error(f"--workers must be >= 1, got {args.workers}")
    if getattr(args, "seeds", None) is not None and args.seeds < 1:
        parser.error(f"--seeds must be >= 1, got {args.seeds}")
    try:
        with _warnings_as_lines():
            code = int(args.func(args) or 0)
        sys.stdout.flush()
        return code
    except BrokenPipeError as exc:
        if not _stdout_closed():
            print(f"error: {exc.strerror or exc}", file=sys.stderr)
            return 2
        # The reader of stdout has gone (`ccsim run ... | head -1`): end
        # quietly as Unix tools do, and keep the interpreter's own flush at
        # exit from failing again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except MemoryError:
        print("error: out of memory: the run needs more memory than this process may use (the check before a run "
              "estimates about 24 kB per flow and 300 B per series row, and this scenario needs more); run fewer "
              "flows, use a larger sample_interval_s (or 0 for no series), or allow the process more memory "
              "(ulimit -v)", file=sys.stderr)
        return 2
    except OSError as exc:
        # Unwritable --out, full disk, ...: the user's environment, not a bug.
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - only a Python controller's error is caught here (last: a
        # re-raise skips the clauses after it)
        if type(exc).__name__ != "ControllerError":
            raise
        _print_controller_error(exc)
        return 1


if __name__ == "__main__":
    sys.exit(main())
