"""``ccsim plot``: a metric of a sweep against one swept field.

The common figure of congestion-control papers (utilisation against
bottleneck bandwidth, one line per protocol, E-TCP Fig 6 style) drawn from
the table ``ccsim sweep`` writes (``SWEEP_DIR/sweep.csv``), so it never
re-runs anything.

How the table is read, and why:

* **Fields vs metrics.** A sweep row holds the grid values first, then the
  run's headline numbers (``sweep._row``), so the columns before the first
  headline column are the swept *fields* and the numeric columns after it
  are *metrics*. Reading the order instead of a fixed list keeps new
  metric columns plottable without touching this module.
* **Split tables.** A sweep split by a flow field (``ccsim sweep
  --group-by``, by default ``cc`` when a run mixes controllers) has one row
  per group of each run, the field (``cc``) being the last column before
  the metrics: a field like any other, so ``--hue cc`` draws BBR and CUBIC
  apart, and leaving it out is the "also varies" error below.
* **Replicates.** A field named ``seed`` (or ending in ``.seed``) that is
  neither ``--x`` nor ``--hue`` is a replication: its rows are averaged and
  drawn with error bars. Any *other* field that varies but is neither
  ``--x`` nor ``--hue`` is an error (averaging over, say, two buffer sizes
  would silently mix regimes); ``--where FIELD=VALUE`` selects a slice.
* **Error bars** are a 95% confidence interval of the mean by default
  (Student t with n-1 degrees of freedom: with the 2-5 seeds sweeps
  usually have, the normal 1.96 would understate it 6.5-fold at 2 seeds
  and 1.4-fold at 5), or the
  sample standard deviation (``err="std"``), or none. Points with one
  sample get no bar.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

import pandas as pd

from ._native import UserError

__all__ = ["SweepPlot", "load_sweep_table", "sweep_fields", "sweep_metrics", "plot_sweep", "t_quantile_975",
           "ERROR_KINDS", "FIELD_LABELS", "BOUNDED_METRICS", "axis_label"]

PathLike = Union[str, os.PathLike]

#: Columns that are bookkeeping, neither field nor metric.
NOT_METRICS = ("key", "cached")
#: ``err`` values: 95% CI of the mean (Student t), sample std, none.
ERROR_KINDS = ("ci95", "std", "none")

#: Axis names of fields and metrics: a dotted path (``flows.*`` and
#: ``flows.N`` match any flow entry) or its last component -> (name, unit,
#: factor applied to the values). Anything else falls back on the last
#: path component, its unit suffix (``_bps``, ``_s``, ``_pkts``, ``_bytes``)
#: turned into a unit.
FIELD_LABELS: Dict[str, Any] = {
    "topology.bottleneck_rate_bps": ("bottleneck rate", "Mb/s", 1e-6),
    "topology.bottleneck_delay_s": ("bottleneck one-way delay", "ms", 1e3),
    "topology.bottleneck_queue.limit_pkts": ("bottleneck queue limit", "packets", 1.0),
    "topology.bottleneck_queue.limit_bytes": ("bottleneck queue limit", "bytes", 1.0),
    "topology.edge_rate_bps": ("edge link rate", "Mb/s", 1e-6),
    "topology.edge_delay_s": ("edge link one-way delay", "ms", 1e3),
    "topology.bottleneck_queue.kind": ("bottleneck queue", "", 1.0),
    "flows.*.cc": ("congestion control", "", 1.0),
    "cc": ("congestion control", "", 1.0),
    "transport": ("transport", "", 1.0),
    "flows.*.rtt_s": ("round-trip propagation delay", "ms", 1e3),
    "flows.*.count": ("flows in the entry", "", 1.0),
    "flows.*.rate_bps": ("sending rate", "Mb/s", 1e-6),
    "flows.*.start_s": ("start time", "s", 1.0),
    "flows.*.recovery": ("loss recovery", "", 1.0),
    "seed": ("seed", "", 1.0),
    "duration_s": ("duration", "s", 1.0),
    "warmup_s": ("warm-up", "s", 1.0),
    "goodput_mean_bps": ("mean goodput per flow", "Mb/s", 1e-6),
    "goodput_total_bps": ("total goodput", "Mb/s", 1e-6),
    "goodput_tcp_mean_bps": ("mean TCP goodput per flow", "Mb/s", 1e-6),
    "goodput_share": ("share of the total goodput", "", 1.0),
    "flows": ("flows", "", 1.0),
    "utilization": ("bottleneck utilization", "", 1.0),
    "loss_rate": ("bottleneck loss rate", "", 1.0),
    "jain_index": ("Jain's fairness index", "", 1.0),
    "events": ("events", "", 1.0),
    "wall_s": ("wall-clock time", "s", 1.0),
}
_SUFFIX_UNITS = (("_bps", "Mb/s", 1e-6), ("_pkts", "packets", 1.0), ("_bytes", "bytes", 1.0), ("_s", "s", 1.0))
#: Metrics that lie in [0, 1]: a confidence interval leaving it gets a note.
BOUNDED_METRICS = ("utilization", "loss_rate", "jain_index")


def _field_meta(path: str):
    """(name, unit, factor) of a field or metric path (see FIELD_LABELS)."""
    import re

    generic = re.sub(r"^flows\.\d+\.", "flows.*.", path)
    for key in (path, generic, path.rsplit(".", 1)[-1]):
        if key in FIELD_LABELS:
            return FIELD_LABELS[key]
    last = path.rsplit(".", 1)[-1]
    for suffix, unit, factor in _SUFFIX_UNITS:
        if last.endswith(suffix) and len(last) > len(suffix):
            return last[: -len(suffix)].replace("_", " "), unit, factor
    return last.replace("_", " "), "", 1.0


def axis_label(path: str) -> str:
    """``topology.bottleneck_rate_bps`` -> ``bottleneck rate (Mb/s)``."""
    name, unit, _ = _field_meta(path)
    return f"{name} ({unit})" if unit else name


# t_{0.975, df} for df = 1..30 (two-sided 95%); beyond, the Cornish-Fisher
# expansion below is within 1e-4.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
         2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t_quantile_975(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom
    (the multiplier of a two-sided 95% confidence interval)."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df}")
    if df <= len(_T975):
        return _T975[df - 1]
    z, v = 1.959963984540054, float(df)
    return (z + (z ** 3 + z) / (4 * v) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * v ** 2)
            + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * v ** 3))


def load_sweep_table(sweep_dir: PathLike) -> pd.DataFrame:
    """The table ``ccsim sweep --out SWEEP_DIR`` wrote (``sweep.csv``; CSV
    rather than Parquet because Parquet stores mixed-type grid columns as
    JSON text). ``sweep_dir`` may also name the CSV file itself."""
    p = Path(sweep_dir)
    path = p if p.is_file() else p / "sweep.csv"
    if not path.exists():
        raise UserError(f"no sweep table at {path}: run 'ccsim sweep SCENARIO --grid ... --out {p}' first")
    try:
        df = pd.read_csv(path)
    except (ValueError, pd.errors.ParserError) as exc:
        raise UserError(f"cannot read sweep table {path}: {exc}") from None
    if df.empty:
        raise UserError(f"sweep table {path} has no rows")
    return df


def _row_columns() -> List[str]:
    """The columns ``sweep`` appends after the grid values (the headline
    metrics of :meth:`Results.headline`, then ``key`` and ``cached``)."""
    from .results import Results

    return list(Results({}).headline()) + list(NOT_METRICS)


def sweep_fields(df: pd.DataFrame) -> List[str]:
    """The swept fields (grid paths) of a sweep table, in grid order: the
    columns before the first of the per-run columns ``sweep`` appends."""
    cols = list(df.columns)
    known = set(_row_columns())
    first = next((i for i, c in enumerate(cols) if c in known), None)
    if first is not None:
        return cols[:first]
    return [c for c in cols if "." in c or _is_replicate(c)]


def sweep_metrics(df: pd.DataFrame) -> List[str]:
    """The plottable (numeric) metric columns of a sweep table."""
    fields = set(sweep_fields(df))
    return [c for c in df.columns if c not in fields and c not in NOT_METRICS
            and pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])]


def _is_replicate(field: str) -> bool:
    return field == "seed" or field.endswith(".seed")


def _parse_where(item: str, df: pd.DataFrame, fields: Sequence[str]) -> "pd.Series":
    name, sep, value = item.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or not name or not value:
        raise UserError(f"bad --where {item!r}: expected FIELD=VALUE (e.g. flows.0.cc=reno)")
    if name not in fields:
        raise UserError(f"bad --where {item!r}: {name!r} is not a swept field; allowed: {', '.join(fields)}")
    col = df[name]
    if pd.api.types.is_numeric_dtype(col):
        try:
            v = float(json.loads(value))
        except (ValueError, TypeError):
            raise UserError(f"bad --where {item!r}: {name} is numeric, got {value!r}") from None
        mask = (col.astype(float) - v).abs() <= 1e-12 * max(abs(v), 1.0)
    else:
        mask = col.astype(str) == value.strip("\"'")
    if not mask.any():
        shown = ", ".join(map(str, pd.unique(col)))
        raise UserError(f"bad --where {item!r}: no row has {name} = {value}; its values: {shown}")
    return mask


@dataclass
class SweepPlot:
    """What :func:`plot_sweep` drew: the Axes (its figure already written
    and closed), the aggregated table behind it (one row per hue and x:
    ``mean``, ``err``, ``n``) and the file written (None if ``out`` was
    None)."""

    ax: Any
    data: pd.DataFrame
    path: Optional[Path]


def _label(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return f"{v:g}"
    return str(v)


def plot_sweep(sweep: Union[PathLike, pd.DataFrame], x: str, y: str, hue: Optional[str] = None,
               where: Sequence[str] = (), err: str = "ci95", out: Optional[PathLike] = None,
               logx: Optional[bool] = None, title: Optional[str] = None) -> SweepPlot:
    """Draw metric ``y`` against swept field ``x``, one line per value of
    ``hue``, from a sweep directory (or its table as a DataFrame).

    ``where`` holds ``FIELD=VALUE`` filters applied first. Replicate seeds
    are averaged with ``err`` bars (see the module doc). ``logx=None``
    picks a log x axis when a positive numeric ``x`` spans two decades or
    more. ``out`` is the image to write (PNG, SVG or PDF by suffix).
    """
    df = sweep.copy() if isinstance(sweep, pd.DataFrame) else load_sweep_table(sweep)
    fields, metrics = sweep_fields(df), sweep_metrics(df)
    if x not in fields:
        raise UserError(f"unknown --x field {x!r}; allowed (swept fields): {', '.join(fields) or '(none)'}")
    if hue is not None and hue not in fields:
        from .sweep import GROUP_FLOW_FIELDS

        hint = ""
        if hue in GROUP_FLOW_FIELDS and not isinstance(sweep, pd.DataFrame):
            hint = (f"; for one line per flow {hue} value, split the table by it: run the same 'ccsim sweep' "
                    f"again with --group-by {hue} (every run comes from the cache)")
        raise UserError(f"unknown --hue field {hue!r}; allowed (swept fields): {', '.join(fields)}{hint}")
    if hue == x:
        raise UserError(f"--hue {hue!r} is the same field as --x; pick another field or no --hue")
    if y not in metrics:
        raise UserError(f"unknown --y metric {y!r}; allowed: {', '.join(metrics)}")
    if err not in ERROR_KINDS:
        raise UserError(f"unknown --err {err!r}; allowed: {', '.join(ERROR_KINDS)}")
    for item in where:
        df = df[_parse_where(item, df, fields)]

    keys = [x] + ([hue] if hue else [])
    others = [f for f in fields if f not in keys and df[f].astype(str).nunique() > 1]
    mixed = [f for f in others if not _is_replicate(f)]
    if mixed:
        desc = "; ".join(f"{f} = {', '.join(map(str, pd.unique(df[f])))}" for f in mixed)
        raise UserError(f"the sweep also varies {desc}: pass it as --hue, or fix it with --where FIELD=VALUE "
                        f"(rows are only averaged over seeds)")

    # Group on text so that list-valued or mixed-type fields group too, but
    # keep the first original value of each group for plotting.
    df = df.assign(_x=df[x].astype(str), _h=df[hue].astype(str) if hue else "")
    rows = []
    for (hkey, xkey), g in df.groupby(["_h", "_x"], sort=False):
        vals = g[y].astype(float).dropna()
        n = len(vals)
        mean = float(vals.mean()) if n else float("nan")
        if n > 1 and err != "none":
            sd = float(vals.std(ddof=1))
            e = sd if err == "std" else t_quantile_975(n - 1) * sd / math.sqrt(n)
        else:
            e = float("nan") if n <= 1 else 0.0
        rows.append({"hue": g[hue].iloc[0] if hue else None, "x": g[x].iloc[0], "mean": mean, "err": e, "n": n})
    data = pd.DataFrame(rows)
    if data["mean"].isna().all():
        raise UserError(f"metric {y!r} has no values in this sweep (all NaN)")

    numeric_x = pd.api.types.is_numeric_dtype(df[x])
    if numeric_x:
        data = data.sort_values(["x"], kind="stable")
    else:
        order = {v: i for i, v in enumerate(pd.unique(df["_x"]))}
        data = data.assign(pos=[order[str(v)] for v in data["x"]]).sort_values("pos", kind="stable")

    from .plots import pyplot, save_figure

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5), layout="constrained")
    hue_values = list(pd.unique(df[hue])) if hue else [None]
    _, _, xf = _field_meta(x)
    _, _, yf = _field_meta(y)
    for i, hv in enumerate(hue_values):
        sub = data[data["hue"].astype(str) == str(hv)] if hue else data
        if sub.empty:
            continue
        xs = sub["x"].astype(float).to_numpy() * xf if numeric_x else sub["pos"].to_numpy()
        yerr = sub["err"].fillna(0.0).to_numpy() * yf
        has_err = bool((sub["n"] > 1).any() and err != "none")
        ax.errorbar(xs, sub["mean"].to_numpy() * yf, yerr=yerr if has_err else None, fmt="o-", ms=4, lw=1.2,
                    capsize=3 if has_err else 0, color=f"C{i % 10}",
                    label=f"{_label(hv)}" if hue else axis_label(y))
    if not numeric_x:
        ax.set_xticks(range(len(pd.unique(df["_x"]))))
        ax.set_xticklabels(list(pd.unique(df["_x"])), rotation=30 if len(pd.unique(df["_x"])) > 6 else 0)
    if logx is None:
        xv = df[x].astype(float) if numeric_x else None
        logx = bool(numeric_x and (xv > 0).all() and xv.max() / xv.min() >= 100)
    if logx:
        if not numeric_x:
            raise UserError(f"--logx needs a numeric --x field; {x!r} holds text")
        ax.set_xscale("log")
    ax.set_xlabel(axis_label(x))
    nmax = int(data["n"].max())
    what = {"ci95": "95% CI of the mean (Student t)", "std": "\u00b11 sample std", "none": ""}[err]
    ylabel = axis_label(y) + (f"  (mean of {nmax} seeds; bars: {what})" if nmax > 1 and what else "")
    ax.set_ylabel(ylabel, fontsize="small" if len(ylabel) > 40 else None)
    ax.grid(True, alpha=0.3)
    if hue:
        kw: Dict[str, Any] = dict(title=axis_label(hue), fontsize="small")
        if len(hue_values) > 10:
            kw.update(loc="upper left", bbox_to_anchor=(1.01, 1.0), ncol=1 + len(hue_values) // 25)
        ax.legend(**kw)
    ax.set_title(title or f"{axis_label(y)} vs {axis_label(x)}" + (f" by {axis_label(hue)}" if hue else ""))
    note = bounded_note(data, y, err)
    if note:
        import textwrap

        ax.annotate("\n".join(textwrap.wrap(note, 80)), xy=(0.0, -0.16), xycoords="axes fraction", va="top",
                    fontsize="small")
    path = None
    if out is not None:
        path = Path(out)
        if path.suffix.lower() not in (".png", ".svg", ".pdf"):
            plt.close(fig)
            raise UserError(f"--out {str(out)!r}: the image type is taken from the suffix; allowed: .png, .svg, .pdf")
        path.parent.mkdir(parents=True, exist_ok=True)
        save_figure(fig, path)
    else:
        plt.close(fig)
    return SweepPlot(ax=ax, data=data.drop(columns=[c for c in ("pos",) if c in data]).reset_index(drop=True),
                     path=path)


def bounded_note(data: pd.DataFrame, y: str, err: str) -> Optional[str]:
    """For a metric bounded to [0, 1] (BOUNDED_METRICS), a note when a
    confidence bar leaves [0, 1], saying why; else None."""
    if err != "ci95" or y.rsplit(".", 1)[-1] not in BOUNDED_METRICS:
        return None
    d = data[(data["n"] > 1) & data["err"].notna()]
    out = d[(d["mean"] - d["err"] < 0) | (d["mean"] + d["err"] > 1)]
    if out.empty:
        return None
    nmin = int(out["n"].min())
    return (f"{len(out)} bar{'s leave' if len(out) != 1 else ' leaves'} [0, 1]: with {nmin} seed{'s' if nmin != 1 else ''} "
            f"the Student t interval is wide (t = {t_quantile_975(nmin - 1):.2f} x std / \u221an); the metric "
            f"itself stays in [0, 1]. More seeds narrow it.")


def default_out(sweep_dir: PathLike, x: str, y: str, hue: Optional[str]) -> Path:
    """``SWEEP_DIR/plot-<y>-vs-<x>[-by-<hue>].png``."""
    p = Path(sweep_dir)
    base = p.parent if p.is_file() else p
    return base / (f"plot-{y}-vs-{x}" + (f"-by-{hue}" if hue else "") + ".png")
