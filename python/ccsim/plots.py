"""Standard PNG plots of one run's time series (matplotlib, Agg backend).

The Agg backend is forced because plots are written by the CLI and by sweep
workers, often on machines without a display; it is selected on first use so
importing ``ccsim`` never touches matplotlib.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import List, Optional, Union

from .results import Results

__all__ = ["plot_all", "plot_cwnd", "plot_queue", "plot_qdelay", "plot_loss", "plot_goodput", "plot_flow_loss", "plot_link_drops",
           "plot_fct", "plot_jain", "mark_warmup", "save_figure", "MAX_LEGEND", "MAX_GOODPUT_LINES",
           "MAX_LOSS_BARS", "MIN_FCT_SAMPLES", "CWND_PERCENTILE", "CWND_MARGIN", "CWND_GROUPS", "PLOT_FILES",
           "remove_plots", "goodput_window"]

#: Up to this many entries the legend sits inside the axes; beyond it goes
#: outside on the right (and ``plot_cwnd(by="auto")`` groups flows by entry).
MAX_LEGEND = 10

PathLike = Union[str, os.PathLike]

#: Every file :func:`plot_all` may write. A plot it does not write (skipped,
#: or ``ccsim run --no-plots``) is removed from the directory, so a reused
#: output directory never shows a plot of an earlier run beside these results.
PLOT_FILES = ("cwnd.png", "queue.png", "qdelay.png", "loss.png", "goodput.png", "flow_loss.png", "link_drops.png",
              "fct.png", "jain.png")

#: goodput.png draws up to this many flows; beyond, the MAX_GOODPUT_LINES - 1
#: busiest and one line for the mean of the others.
MAX_GOODPUT_LINES = 12
#: flow_loss.png draws up to this many flows; beyond, the ones with the most
#: retransmits (the title says how many of how many).
MAX_LOSS_BARS = 30
#: fct.png needs at least this many completed transfers (a CDF of one or two
#: points says nothing).
MIN_FCT_SAMPLES = 3
#: cwnd.png's y axis ends at CWND_MARGIN x the CWND_PERCENTILE-th percentile
#: of every flow's window over time when larger windows (recovery spikes)
#: exist; those are drawn as markers on the top edge.
CWND_PERCENTILE = 99.0
CWND_MARGIN = 1.2


def pyplot():
    """matplotlib.pyplot on the file-only Agg backend (no display needed);
    imported lazily so `import ccsim` stays light."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path: PathLike, dpi: int = 120) -> Path:
    """Lay out, write and close a figure; returns its path.

    ``bbox_inches="tight"`` grows the saved image to hold every artist, so a
    suptitle wider than the panels or a legend placed outside the axes is
    never cropped (tight_layout alone only moves the axes). Figures made with
    a layout engine (``layout="constrained"``) keep it.
    """
    plt = pyplot()
    if fig.get_layout_engine() is None:
        fig.tight_layout()
    fig.savefig(path, dpi=dpi, bbox_inches="tight", pad_inches=0.08)
    plt.close(fig)
    return Path(path)


def _link_labels(res: Results) -> dict:
    labels = {}
    for link in res.raw.get("links", []):
        ends = f"{link.get('from')}\u2192{link.get('to')}"
        name = link.get("name")
        # Builder topologies name links "r0->r1"; say the ends only when the
        # name does not already.
        plain = f"{link.get('from')}->{link.get('to')}"
        labels[link.get("id")] = ends if not name or name == plain else f"{name} ({ends})"
    return labels


def mark_warmup(ax, res: Results) -> bool:
    """Shade ``[0, warmup_s)``, the period every average excludes, so a
    reader does not take the start-up transient for the measured regime.
    Returns whether there was a warm-up to mark."""
    w = float(res.raw.get("warmup_s") or 0.0)
    if w <= 0:
        return False
    ax.axvspan(0.0, w, color="0.85", alpha=0.6, lw=0, zorder=0, label=f"warm-up ({w:g} s, not averaged)")
    return True


def _legend(ax, n_entries: int) -> None:
    """Inside the axes up to MAX_LEGEND entries; beyond, outside on the
    right in as many columns as needed (save_figure keeps it in the image)."""
    if n_entries <= 0:
        return
    if n_entries <= MAX_LEGEND:
        ax.legend(fontsize="small", loc="best")
    else:
        ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                  ncol=1 + (n_entries - 1) // 30)


def _finish(plt, fig, ax, path: Path, n_lines: int, title: str) -> Path:
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    _legend(ax, n_lines)
    return save_figure(fig, path)


#: ``by`` values of :func:`plot_cwnd`.
CWND_GROUPS = ("auto", "flow", "cc", "entry")


def plot_cwnd(res: Results, path: PathLike, by: str = "auto") -> Optional[Path]:
    """Congestion window (packets) against time, one line per flow.

    ``by`` sets colours and legend: ``"flow"`` one colour and entry per
    flow; ``"cc"`` one per controller, ``"entry"`` one per ``[[flows]]``
    entry (every flow of a group drawn in its colour, one legend entry per
    group); ``"auto"`` is ``"flow"`` up to MAX_LEGEND flows and ``"entry"``
    beyond. Flows without a window (UDP) are left out, legend included.
    The warm-up, if any, is shaded.
    """
    if by not in CWND_GROUPS:
        from ._native import UserError

        raise UserError(f"unknown cwnd grouping {by!r}; allowed: {', '.join(CWND_GROUPS)}")
    df = res.flow_series
    if df.empty or "cwnd" not in df:
        return None
    flows = {f.get("id"): f for f in res.raw.get("flows", [])}
    groups = [(fid, g) for fid, g in df.groupby("flow", sort=True) if g["cwnd"].notna().any()]
    if not groups:
        return None
    if by == "auto":
        by = "flow" if len(groups) <= MAX_LEGEND else "entry"
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    warm = mark_warmup(ax, res)
    colours: dict = {}
    n_entries = int(warm)
    for fid, g in groups:
        info = flows.get(fid, {})
        cc = info.get("cc", "")
        if by == "flow":
            key, label = fid, f"flow {fid} {cc}".strip()
        elif by == "cc":
            key = cc
            n = sum(1 for f, _ in groups if flows.get(f, {}).get("cc") == cc)
            label = f"{cc} ({n} flow{'s' if n != 1 else ''})"
        else:
            key = info.get("entry", fid)
            n = sum(1 for f, _ in groups if flows.get(f, {}).get("entry", f) == key)
            label = f"entry {key}: {cc} ({n} flow{'s' if n != 1 else ''})"
        first = key not in colours
        if first:
            colours[key] = f"C{len(colours) % 10}"
            n_entries += 1
        ax.plot(g["time_s"], g["cwnd"], lw=0.8, color=colours[key], label=label if first else "_nolegend_",
                alpha=1.0 if by == "flow" else 0.8)
    ax.set_xlabel("time (s)")
    top = cwnd_ylimit([g["cwnd"] for _, g in groups])
    if top is None:
        ax.set_ylabel("cwnd (packets)")
    else:
        # Recovery spikes (the window inflated by duplicate ACKs) would set
        # the scale; cut the axis and mark the cut samples on its edge.
        ax.set_ylim(0.0, top)
        n_cut, peak = 0, 0.0
        for _, g in groups:
            over = g[g["cwnd"] > top]
            if not over.empty:
                n_cut += len(over)
                peak = max(peak, float(over["cwnd"].max()))
                ax.scatter(over["time_s"], [top] * len(over), marker="^", s=14, color="k", clip_on=False,
                           zorder=5, label="_nolegend_")
        ax.set_ylabel(f"cwnd (packets; axis cut at {CWND_MARGIN:g} \u00d7 p{CWND_PERCENTILE:g} = {top:,.0f})",
                      fontsize="small")
        ax.annotate(f"\u25b2 on the top edge: {n_cut} sample{'s' if n_cut != 1 else ''} above the axis "
                    f"(such as recovery spikes), up to {peak:,.0f} packets", xy=(0.0, -0.2), xycoords="axes fraction",
                    fontsize="small", va="top")
    return _finish(plt, fig, ax, Path(path), n_entries, f"{res.name}: congestion window")


def cwnd_ylimit(series) -> Optional[float]:
    """The top of cwnd.png's y axis: CWND_MARGIN x the CWND_PERCENTILE-th
    percentile of every window sample (all flows, all times), or None when
    no sample lies above that (nothing to cut)."""
    import numpy as np

    vals = np.concatenate([np.asarray(s, dtype=float) for s in series]) if series else np.array([])
    vals = vals[np.isfinite(vals)]
    if vals.size == 0:
        return None
    top = CWND_MARGIN * float(np.percentile(vals, CWND_PERCENTILE))
    if top <= 0 or vals.max() <= top:
        return None
    return top


def plot_queue(res: Results, path: PathLike) -> Optional[Path]:
    """Queue length (packets) against time for each monitored link."""
    df = res.link_series
    if df.empty or "queue_pkts" not in df:
        return None
    plt = pyplot()
    labels = _link_labels(res)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    warm = mark_warmup(ax, res)
    groups = list(df.groupby("link", sort=True))
    for lid, g in groups:
        ax.plot(g["time_s"], g["queue_pkts"], lw=0.8, label=labels.get(lid, f"link {lid}"))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue (packets)")
    return _finish(plt, fig, ax, Path(path), len(groups) + warm, f"{res.name}: queue length")


def plot_qdelay(res: Results, path: PathLike) -> Optional[Path]:
    """Queueing delay (ms) against time for each monitored link: the mean
    (thick) and the largest (thin) wait of the packets that started
    serialisation in each sampling interval. Only for runs that record
    delays (``qdelay = true``); intervals in which a link sent nothing are
    gaps. The run's percentiles are in the links table."""
    df = res.link_series
    if df.empty or "qdelay_mean_s" not in df or df["qdelay_mean_s"].isna().all():
        return None
    plt = pyplot()
    labels = _link_labels(res)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    warm = mark_warmup(ax, res)
    groups = list(df.groupby("link", sort=True))
    for i, (lid, g) in enumerate(groups):
        color = f"C{i % 10}"
        label = labels.get(lid, f"link {lid}")
        ax.plot(g["time_s"], g["qdelay_mean_s"] * 1e3, lw=1.6, color=color, label=f"{label} mean")
        ax.plot(g["time_s"], g["qdelay_max_s"] * 1e3, lw=0.6, alpha=0.6, color=color, label=f"{label} max")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queueing delay (ms)")
    ax.set_ylim(bottom=0)
    return _finish(plt, fig, ax, Path(path), 2 * len(groups) + warm,
                   f"{res.name}: queueing delay per sampling interval")


def plot_loss(res: Results, path: PathLike) -> Optional[Path]:
    """Loss rate per sampling interval (thin) and cumulative (thick) against
    time for each monitored link; log scale when losses span decades."""
    df = res.link_series
    if df.empty or "loss_rate" not in df:
        return None
    plt = pyplot()
    labels = _link_labels(res)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    warm = mark_warmup(ax, res)
    groups = list(df.groupby("link", sort=True))
    positive = []
    for i, (lid, g) in enumerate(groups):
        color = f"C{i % 10}"
        label = labels.get(lid, f"link {lid}")
        ax.plot(g["time_s"], g["loss_rate"], lw=0.6, alpha=0.5, color=color, label=f"{label} interval")
        if "cum_loss_rate" in g:
            ax.plot(g["time_s"], g["cum_loss_rate"], lw=1.6, color=color, label=f"{label} cumulative")
            positive.extend(v for v in g["cum_loss_rate"] if v > 0)
        positive.extend(v for v in g["loss_rate"] if v > 0)
    if positive and max(positive) / min(positive) > 100:
        ax.set_yscale("symlog", linthresh=min(positive))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("loss rate")
    return _finish(plt, fig, ax, Path(path), 2 * len(groups) + warm, f"{res.name}: loss rate")


def _rate_unit(peak: float):
    """(divisor, unit) so that ``peak`` reads as a number below 1000."""
    for div, unit in ((1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s")):
        if peak >= div:
            return div, unit
    return 1.0, "b/s"


def _flow_label(info: dict, fid) -> str:
    cc = info.get("cc") or ""
    if info.get("transport") == "udp" or cc in ("", "none"):
        cc = info.get("transport", "") or ""
    return f"flow {fid} {cc}".strip()


def _sample_interval(times) -> Optional[float]:
    import numpy as np

    t = np.unique(np.asarray(times, dtype=float))
    d = np.diff(t)
    d = d[d > 0]
    return float(np.median(d)) if d.size else None


def goodput_window(dt: float, duration_s: float) -> int:
    """Samples in goodput.png's moving window: about duration/25, at least
    4 sampling intervals, at most 1 s (unless one interval is longer)."""
    target = min(max(4 * dt, duration_s / 25.0), max(dt, 1.0))
    return max(1, int(round(target / dt)))


def plot_goodput(res: Results, path: PathLike) -> Optional[Path]:
    """Goodput of each flow against time, averaged over a trailing moving
    window (stated in the title) so the bursts of a cumulative ACK after a
    recovery do not show as rates above the link's. Up to MAX_GOODPUT_LINES
    flows one line each; beyond, the busiest MAX_GOODPUT_LINES - 1 and the
    mean of the others. The bottleneck rate is drawn for scale."""
    df = res.flow_series
    if df.empty or "goodput_bps" not in df:
        return None
    dt = _sample_interval(df["time_s"])
    if dt is None:
        return None
    duration = float(res.raw.get("duration_s") or df["time_s"].max())
    k = goodput_window(dt, duration)
    win = k * dt
    wide = df.pivot_table(index="time_s", columns="flow", values="goodput_bps", aggfunc="first").sort_index()
    smooth = wide.rolling(k, min_periods=k).mean()
    order = list(wide.mean().sort_values(ascending=False, kind="stable").index)
    if len(order) > MAX_GOODPUT_LINES:
        shown, rest = sorted(order[:MAX_GOODPUT_LINES - 1]), order[MAX_GOODPUT_LINES - 1:]
    else:
        shown, rest = sorted(order), []
    flows = {f.get("id"): f for f in res.raw.get("flows", [])}
    bn = res.bottleneck()
    peak = float(smooth.max().max()) if smooth.notna().any().any() else 0.0
    if bn:
        peak = max(peak, float(bn.get("rate_bps") or 0.0))
    div, unit = _rate_unit(peak)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    n = int(mark_warmup(ax, res))
    for fid in shown:
        ax.plot(smooth.index, smooth[fid] / div, lw=1.0, label=_flow_label(flows.get(fid, {}), fid))
        n += 1
    if rest:
        ax.plot(smooth.index, smooth[rest].mean(axis=1) / div, lw=1.6, color="0.4", ls="--",
                label=f"others: mean of {len(rest)} flows")
        n += 1
    if bn and bn.get("rate_bps"):
        ax.axhline(float(bn["rate_bps"]) / div, color="k", lw=0.8, ls=":", label="bottleneck rate")
        n += 1
    ax.set_ylim(bottom=0.0)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(f"goodput ({unit}, mean over the preceding {win:g} s)")
    title = f"{res.name}: goodput per flow, {win:g} s moving window"
    if rest:
        title += f" ({len(shown)} busiest of {len(order)} flows)"
    return _finish(plt, fig, ax, Path(path), n, title)


def plot_flow_loss(res: Results, path: PathLike) -> Optional[Path]:
    """Bar chart per TCP flow of retransmitted packets (top; beside them
    the packets the queues CE-marked, ``ce_marks``, when any flow was
    marked) and of retransmission timeouts and fast recoveries (bottom),
    counted after the warm-up. Beyond MAX_LOSS_BARS flows, the ones with
    the most retransmits."""
    fl = res.flows
    if fl.empty or "retransmits" not in fl:
        return None
    if "transport" in fl:
        fl = fl[fl["transport"] == "tcp"]
    if fl.empty:
        return None
    total = len(fl)
    if total > MAX_LOSS_BARS:
        keys = [c for c in ("retransmits", "timeouts") if c in fl]
        fl = fl.sort_values(keys, ascending=False, kind="stable").head(MAX_LOSS_BARS)
    fl = fl.sort_values("id", kind="stable")
    import numpy as np

    xs = np.arange(len(fl))
    names = [str(i) for i in fl["id"]]
    plt = pyplot()
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 5.5), sharex=True)
    marked = "ce_marks" in fl and fl["ce_marks"].sum() > 0
    if marked:
        top.bar(xs - 0.2, fl["retransmits"], width=0.4, color="C3", label="retransmitted")
        top.bar(xs + 0.2, fl["ce_marks"], width=0.4, color="C2", label="CE-marked (ECN)")
        top.set_ylabel("packets")
        top.legend(fontsize="small")
    else:
        top.bar(xs, fl["retransmits"], color="C3")
        top.set_ylabel("retransmitted\npackets")
    events = [c for c in ("timeouts", "fast_recoveries") if c in fl]
    width = 0.8 / max(1, len(events))
    for i, c in enumerate(events):
        bottom.bar(xs + (i - (len(events) - 1) / 2) * width, fl[c], width=width, color=f"C{i}",
                   label={"timeouts": "retransmission timeouts", "fast_recoveries": "fast recoveries"}[c])
    bottom.set_ylabel("events")
    if events:
        bottom.legend(fontsize="small")
    bottom.set_xticks(xs)
    bottom.set_xticklabels(names, rotation=90 if len(xs) > 15 else 0, fontsize="small" if len(xs) > 15 else None)
    bottom.set_xlabel("flow id")
    from matplotlib.ticker import MaxNLocator

    for ax in (top, bottom):
        ax.grid(True, axis="y", alpha=0.3)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    warm = float(res.raw.get("warmup_s") or 0.0)
    what = "loss and ECN marks" if marked else "loss"
    title = f"{res.name}: {what} per TCP flow" + (f" (after the {warm:g} s warm-up)" if warm > 0 else "")
    if total > MAX_LOSS_BARS:
        title += f"\nthe {MAX_LOSS_BARS} of {total} flows with the most retransmits"
    top.set_title(title)
    return save_figure(fig, Path(path))


def plot_link_drops(res: Results, path: PathLike) -> Optional[Path]:
    """Bar chart per link direction (the monitored ones, and any other with
    a drop or mark) of queue drops, random losses (when any) and ECN marks
    (when any): run totals after the warm-up, there being no per-time mark
    series."""
    links = res.links
    if links.empty or "drops" not in links:
        return None
    cols = [c for c in ("drops", "random_losses", "marks") if c in links]
    active = links[cols].sum(axis=1) > 0
    mon = links["monitored"].astype(bool) if "monitored" in links else active
    links = links[mon | active]
    if links.empty:
        return None
    shown = ["drops"] + [c for c in ("random_losses", "marks") if c in links and links[c].sum() > 0]
    import numpy as np

    labels = _link_labels(res)
    names = {"drops": "queue drops", "random_losses": "random losses", "marks": "ECN marks (CE)"}
    xs = np.arange(len(links))
    width = 0.8 / len(shown)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for i, c in enumerate(shown):
        ax.bar(xs + (i - (len(shown) - 1) / 2) * width, links[c], width=width,
               color={"drops": "C3", "random_losses": "C1", "marks": "C2"}[c], label=names[c])
    ax.set_xticks(xs)
    ax.set_xticklabels([labels.get(i, f"link {i}") for i in links["id"]], rotation=30 if len(xs) > 4 else 0,
                       ha="right" if len(xs) > 4 else "center", fontsize="small")
    ax.set_xlabel("link direction")
    ax.set_ylabel("packets")
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    warm = float(res.raw.get("warmup_s") or 0.0)
    when = f"run totals after the {warm:g} s warm-up" if warm > 0 else "run totals"
    note = "" if "marks" in shown else "; no ECN marks"
    ax.grid(True, axis="y", alpha=0.3)
    ax.set_title(f"{res.name}: drops and ECN marks per link direction\n({when}{note})")
    ax.legend(fontsize="small")
    return save_figure(fig, Path(path))


def _fct_table(res: Results):
    """(fct_s of completed transfers, cc of each, transfers in all or None
    when unknown): from the transfers table of a workload, else from the
    flows of finite transfers (a flow row does not say whether an
    unfinished flow had a finite size, so then the total is unknown)."""
    import pandas as pd

    t, total = res.transfers, None
    if not t.empty and "fct_s" in t:
        total = len(t)
    else:
        t = res.flows
        if t.empty or "fct_s" not in t:
            return pd.Series(dtype=float), pd.Series(dtype=object), None
    done = t[t["fct_s"].astype(float).notna()]
    cc = done["cc"].astype(str) if "cc" in done else pd.Series([""] * len(done), index=done.index)
    return done["fct_s"].astype(float), cc, total


def plot_fct(res: Results, path: PathLike) -> Optional[Path]:
    """Empirical CDF of flow completion times of the transfers that
    completed (one line per controller when they differ); written when at
    least MIN_FCT_SAMPLES completed. Log x axis when the times span more
    than two decades."""
    import numpy as np
    import pandas as pd

    fct, cc, total = _fct_table(res)
    if len(fct) < MIN_FCT_SAMPLES:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ccs = list(pd.unique(cc))
    groups = [(c, fct[cc == c]) for c in ccs] if 1 < len(ccs) <= MAX_LEGEND else [(None, fct)]
    for c, v in groups:
        v = np.sort(v.to_numpy())
        y = np.arange(0, len(v) + 1) / len(v)
        ax.step(np.concatenate([v[:1], v]), y, where="post", lw=1.4, label=f"{c} ({len(v)} completed)" if c is not None else None)
    pos = fct[fct > 0]
    if len(pos) and float(pos.max()) / float(pos.min()) > 100:
        ax.set_xscale("log")
    ax.set_ylim(0.0, 1.02)
    ax.set_xlabel("flow completion time (s)")
    ax.set_ylabel("fraction of completed transfers")
    count = f"{len(fct)} of {total} transfers completed" if total is not None else f"{len(fct)} transfers completed"
    title = f"{res.name}: flow completion time CDF ({count})"
    return _finish(plt, fig, ax, Path(path), len(groups) if len(groups) > 1 else 0, title)


def plot_jain(res: Results, path: PathLike, fairness_window_s: Optional[float] = None) -> Optional[Path]:
    """Jain's fairness index of the flows' goodputs over a sliding window,
    against time (1 = equal shares, 1/n = one flow takes all). The window
    is the scenario's ``fairness_window_s`` rounded to whole sampling
    intervals, as the engine computes it; stated in the title."""
    df = res.fairness_series
    if df.empty or "jain" not in df:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    n = int(mark_warmup(ax, res))
    ax.plot(df["time_s"], df["jain"], lw=1.2, color="C0")
    ax.axhline(1.0, color="k", lw=0.6, ls=":")
    ax.set_ylim(0.0, 1.05)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("Jain's index of per-flow goodput\n(1 = equal shares)")
    what = "sliding window"
    fs = res.flow_series
    dt = _sample_interval(fs["time_s"]) if not fs.empty else _sample_interval(df["time_s"])
    if fairness_window_s and dt:
        k = max(1, int(round(fairness_window_s / dt)))
        what = f"{k * dt:g} s sliding window"
    elif fairness_window_s:
        what = f"{fairness_window_s:g} s sliding window"
    return _finish(plt, fig, ax, Path(path), n, f"{res.name}: throughput share, Jain's index over a {what}")


def plot_all(res: Results, out_dir: PathLike, cwnd_by: str = "auto",
             fairness_window_s: Optional[float] = None) -> List[Path]:
    """Write the :data:`PLOT_FILES` into ``out_dir``; plots without data
    (empty series with ``sample_interval_s = 0``, no TCP flow, fewer than
    MIN_FCT_SAMPLES completed transfers, no recorded queueing delay) are skipped, and an earlier run's
    file of that name is removed (:func:`remove_plots`). ``cwnd_by`` groups
    the cwnd plot (see :func:`plot_cwnd`); ``fairness_window_s`` (the
    scenario's) is stated on jain.png."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    made = [
        plot_cwnd(res, out / "cwnd.png", by=cwnd_by),
        plot_queue(res, out / "queue.png"),
        plot_qdelay(res, out / "qdelay.png"),
        plot_loss(res, out / "loss.png"),
        plot_goodput(res, out / "goodput.png"),
        plot_flow_loss(res, out / "flow_loss.png"),
        plot_link_drops(res, out / "link_drops.png"),
        plot_fct(res, out / "fct.png"),
        plot_jain(res, out / "jain.png", fairness_window_s=fairness_window_s),
    ]
    made = [p for p in made if p is not None]
    remove_plots(out, keep=[p.name for p in made])
    return made


def remove_plots(out_dir: PathLike, keep=()) -> List[Path]:
    """Delete the :data:`PLOT_FILES` in ``out_dir`` other than ``keep``
    (names); returns the paths removed."""
    gone = []
    for name in PLOT_FILES:
        path = Path(out_dir) / name
        if name not in keep and path.is_file():
            path.unlink()
            gone.append(path)
    return gone
