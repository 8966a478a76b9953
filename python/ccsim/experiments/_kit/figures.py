"""Figure helpers: panel grids, protocol styles, paper overlays, saving.

Every experiment's plot is one PNG named after its id (``ID.png``), drawn
by its module's ``plot(a, out_dir, quick)`` from the analysis alone, so
``ccsim reproduce ID --replot`` can redraw it from the run cache.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence, Tuple

from ...plots import pyplot, save_figure
from ...results import Results
from .analysis import cwnd_series

#: Line style per protocol, the same in every paper's figures.
STYLE = {"NewReno": "o-", "NewReno+pacing": "s--", "HSTCP": "^-", "STCP": "v-", "FAST": "x-"}
#: Colour per protocol where one figure shows TCP against a new protocol.
COLOR = {"TCP": "C0", "LTCP": "C1"}
#: Paper values drawn over ccsim's: open markers, larger than ccsim's.
PAPER_MARK = dict(mfc="none", ms=9)


def grid(nrows: int = 1, ncols: int = 1, panel: Tuple[float, float] = (4.4, 3.8), **kw):
    """``plt.subplots`` with ``squeeze=False`` and a figure size of
    ``panel`` per panel unless ``figsize`` is given: (fig, axes[row][col])."""
    plt = pyplot()
    kw.setdefault("figsize", (panel[0] * ncols, panel[1] * nrows))
    return plt.subplots(nrows, ncols, squeeze=False, **kw)


def paper_points(ax, x, y, fmt: str = "^", label: Optional[str] = "paper", **kw) -> None:
    """Overlay the paper's stated values (open markers)."""
    ax.plot(x, y, fmt, label=label, **{**PAPER_MARK, **kw})


def style_axes(ax, xlabel: Optional[str] = None, ylabel: Optional[str] = None, *, xlog: bool = False,
               ylog: bool = False, legend: Optional[int] = 7, title: Optional[str] = None) -> None:
    """Labels, log axes, light grid, legend of font size ``legend`` (None: no legend)."""
    if xlabel:
        ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    if xlog:
        ax.set_xscale("log")
    if ylog:
        ax.set_yscale("log")
    if title:
        ax.set_title(title, fontsize=9)
    ax.grid(True, which="both" if (xlog or ylog) else "major", alpha=0.3)
    if legend:
        ax.legend(fontsize=legend)


def plot_cwnd(ax, res: Results, labels: Sequence[str], t_range: Optional[Tuple[float, float]] = None,
              events=None) -> None:
    """Every flow's cwnd against time; with ``events`` (from
    :func:`~.analysis.congestion_events`) a dot at each w<i>(k)."""
    for f, (t, cw, _) in cwnd_series(res).items():
        m = slice(None) if t_range is None else (t >= t_range[0]) & (t <= t_range[1])
        ax.plot(t[m], cw[m], lw=0.8, label=labels[f] if f < len(labels) else f"flow {f}")
    if events is not None:
        for i in range(len(labels)):
            if f"w{i}" in events:
                e = events if t_range is None else events[(events.time_s >= t_range[0])
                                                          & (events.time_s <= t_range[1])]
                ax.plot(e["time_s"], e[f"w{i}"], "k.", ms=2)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (packets)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)


def save(fig, out_dir: Path, exp_id: str) -> Path:
    """Write ``out_dir/ID.png`` and close the figure."""
    return save_figure(fig, Path(out_dir) / f"{exp_id}.png")


__all__ = ["STYLE", "COLOR", "PAPER_MARK", "grid", "paper_points", "style_axes", "plot_cwnd", "save", "pyplot"]
