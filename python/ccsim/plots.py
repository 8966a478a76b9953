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

__all__ = ["plot_all", "plot_cwnd", "plot_queue", "plot_loss", "mark_warmup", "save_figure", "MAX_LEGEND",
           "CWND_GROUPS", "PLOT_FILES", "remove_plots"]

#: Up to this many entries the legend sits inside the axes; beyond it goes
#: outside on the right (and ``plot_cwnd(by="auto")`` groups flows by entry).
MAX_LEGEND = 10

PathLike = Union[str, os.PathLike]

#: Every file :func:`plot_all` may write. A plot it does not write (skipped,
#: or ``ccsim run --no-plots``) is removed from the directory, so a reused
#: output directory never shows a plot of an earlier run beside these results.
PLOT_FILES = ("cwnd.png", "queue.png", "loss.png")


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
    ax.set_ylabel("cwnd (packets)")
    return _finish(plt, fig, ax, Path(path), n_entries, f"{res.name}: congestion window")


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


def plot_all(res: Results, out_dir: PathLike, cwnd_by: str = "auto") -> List[Path]:
    """Write cwnd.png, queue.png and loss.png into ``out_dir``; plots whose
    series are empty (e.g. ``sample_interval_s = 0``) are skipped, and an
    earlier run's file of that name is removed (:func:`remove_plots`).
    ``cwnd_by`` groups the cwnd plot (see :func:`plot_cwnd`)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    made = [
        plot_cwnd(res, out / "cwnd.png", by=cwnd_by),
        plot_queue(res, out / "queue.png"),
        plot_loss(res, out / "loss.png"),
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
