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

__all__ = ["plot_all", "plot_cwnd", "plot_queue", "plot_loss", "MAX_LEGEND"]

#: Beyond this many flows a legend hides the plot; lines stay, labels go.
MAX_LEGEND = 10

PathLike = Union[str, os.PathLike]


def pyplot():
    """matplotlib.pyplot on the file-only Agg backend (no display needed);
    imported lazily so `import ccsim` stays light."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path: PathLike, dpi: int = 120) -> Path:
    """Lay out, write and close a figure; returns its path."""
    plt = pyplot()
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
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


def _finish(plt, fig, ax, path: Path, n_lines: int, title: str) -> Path:
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if 0 < n_lines <= MAX_LEGEND:
        ax.legend(fontsize="small", loc="best")
    elif n_lines > MAX_LEGEND:
        ax.text(0.99, 0.01, f"{n_lines} lines (legend omitted)", transform=ax.transAxes,
                ha="right", va="bottom", fontsize="small", alpha=0.7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_cwnd(res: Results, path: PathLike) -> Optional[Path]:
    """Congestion window (packets) against time, one line per flow."""
    df = res.flow_series
    if df.empty or "cwnd" not in df:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    flows = {f.get("id"): f for f in res.raw.get("flows", [])}
    groups = list(df.groupby("flow", sort=True))
    for fid, g in groups:
        cc = flows.get(fid, {}).get("cc", "")
        ax.plot(g["time_s"], g["cwnd"], lw=0.8, label=f"flow {fid} {cc}".strip())
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (packets)")
    return _finish(plt, fig, ax, Path(path), len(groups), f"{res.name}: congestion window")


def plot_queue(res: Results, path: PathLike) -> Optional[Path]:
    """Queue length (packets) against time for each monitored link."""
    df = res.link_series
    if df.empty or "queue_pkts" not in df:
        return None
    plt = pyplot()
    labels = _link_labels(res)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    groups = list(df.groupby("link", sort=True))
    for lid, g in groups:
        ax.plot(g["time_s"], g["queue_pkts"], lw=0.8, label=labels.get(lid, f"link {lid}"))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue (packets)")
    return _finish(plt, fig, ax, Path(path), len(groups), f"{res.name}: queue length")


def plot_loss(res: Results, path: PathLike) -> Optional[Path]:
    """Loss rate per sampling interval (thin) and cumulative (thick) against
    time for each monitored link; log scale when losses span decades."""
    df = res.link_series
    if df.empty or "loss_rate" not in df:
        return None
    plt = pyplot()
    labels = _link_labels(res)
    fig, ax = plt.subplots(figsize=(8, 4.5))
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
    return _finish(plt, fig, ax, Path(path), 2 * len(groups), f"{res.name}: loss rate")


def plot_all(res: Results, out_dir: PathLike) -> List[Path]:
    """Write cwnd.png, queue.png and loss.png into ``out_dir``; plots whose
    series are empty (e.g. ``sample_interval_s = 0``) are skipped."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    made = [
        plot_cwnd(res, out / "cwnd.png"),
        plot_queue(res, out / "queue.png"),
        plot_loss(res, out / "loss.png"),
    ]
    return [p for p in made if p is not None]
