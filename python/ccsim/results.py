"""Results of one run, as tidy pandas tables.

The engine returns one JSON document (docs/scenario.md, "Results"): scalar
summaries per flow and per link, columnar time series and, for workloads
such as web users, a columnar table of transfers. ``Results`` keeps that
document as-is (``.raw``) and builds DataFrames lazily, because a large
run's series can be millions of rows and most callers need only the summary.
A run returns a per-flow or per-link table of more than
:data:`SUMMARY_MAX_ROWS` rows as columns (:class:`ccsim.tables.RowTable`,
a sequence of read-only row mappings), so that a run of many flows does not
hold a Python dict per row; smaller tables, and a document read back from a
file, are plain lists of dicts. Either reads the same.
"""

from __future__ import annotations

import json
import os
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple, Union

from .tables import RowTable, plain

if TYPE_CHECKING:  # pandas is imported on first use: `import ccsim` stays light,
    import pandas as pd  # which keeps CLI start-up fast and bench RSS honest.

__all__ = ["Results"]

PathLike = Union[str, os.PathLike]

#: Keys of the engine's results that describe the run, not its outcome
#: (they vary between identical runs): kept out of ``summary.json``.
META_KEYS = ("wall_s", "cpu_s")

#: Most rows of the per-flow (``flows``) or per-link (``links``) table that
#: ``summary.json`` lists inline. Every run writes both tables in full to
#: ``flows.parquet`` and ``links.parquet``; beyond this many rows
#: ``summary.json`` holds a pointer to the file and aggregates instead, so it
#: stays small enough to read and diff (inline, 100,000 flows would make a
#: 242 MB indented summary, 111 s of a 119 s run to write).
SUMMARY_MAX_ROWS = 1000

#: Columns of a per-flow or per-link table that are labels, not measures:
#: never aggregated.
_LABELS = ("id", "entry")


class Results:
    """Wrapper around the results JSON of one run."""

    def __init__(self, data: Union[str, bytes, Dict[str, Any]]):
        self.raw: Dict[str, Any] = json.loads(data) if isinstance(data, (str, bytes)) else data

    @classmethod
    def from_engine(cls, parts: Tuple[str, Any, Any], plain_up_to: int = SUMMARY_MAX_ROWS) -> "Results":
        """The results of ``Simulation.finish_columns()``: the document
        with its ``flows`` and ``links`` tables as :class:`RowTable` when
        they have more than ``plain_up_to`` rows, as lists of dicts
        otherwise. A small table takes little memory either way, and as a
        list it is what code written for the JSON document expects to the
        last detail (``json.dumps(results.raw)`` works); a large one as
        columns takes a seventh of the memory."""
        doc, flows, links = parts
        raw = json.loads(doc)
        for k, t in (("flows", flows), ("links", links)):
            table = RowTable(*t)
            raw[k] = table if len(table) > plain_up_to else table.dicts()
        return cls(raw)

    @classmethod
    def load(cls, path: PathLike) -> "Results":
        """Read a results JSON written by :meth:`to_json` (or a sweep cache
        file, whose results sit under the ``"results"`` key)."""
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if "results" in data and "flows" not in data:
            data = data["results"]
        return cls(data)

    # -- scalars ------------------------------------------------------------

    @property
    def summary(self) -> Dict[str, Any]:
        """Everything except the time series, the transfers table and the
        run metadata (:attr:`meta`): small, JSON-able, and a function of
        the scenario alone, so identical runs give byte-identical
        ``summary.json`` files."""
        return {k: v for k, v in self.raw.items() if k not in ("series", "transfers") + META_KEYS}

    def file_summary(self, max_rows: int = SUMMARY_MAX_ROWS) -> Dict[str, Any]:
        """:attr:`summary` as ``summary.json`` holds it: the ``flows`` and
        ``links`` tables inline when each has at most ``max_rows`` rows.
        A longer table is replaced by ``<table>_file`` (its Parquet file,
        written beside the summary by :meth:`write`) and
        ``<table>_aggregate``: ``rows``, and for every numeric column
        ``{count, min, mean, max, sum}`` over its non-null values. When the
        links are replaced, the monitored ones (the bottlenecks) stay inline
        as ``monitored_links`` if there are at most ``max_rows`` of them."""
        out: Dict[str, Any] = {}
        for k, v in self.summary.items():
            if k not in ("flows", "links") or not isinstance(v, (list, RowTable)) or len(v) <= max_rows:
                out[k] = plain(v)
                continue
            out[f"{k}_file"] = f"{k}.parquet"
            out[f"{k}_aggregate"] = _aggregate(self.flows if k == "flows" else self.links)
            if k == "links":
                monitored = [dict(l) for l in v if l.get("monitored")]
                if len(monitored) <= max_rows:
                    out["monitored_links"] = monitored
        return out

    @property
    def meta(self) -> Dict[str, Any]:
        """How this run went on this machine, not what it computed: wall
        time, engine speed, ccsim and Python versions, platform. Written
        to ``meta.json`` beside ``summary.json``; it differs between
        identical runs."""
        import platform

        from . import __version__

        wall, events = self.raw.get("wall_s"), self.raw.get("events")
        return {
            "wall_s": wall,
            "cpu_s": self.raw.get("cpu_s"),
            "events_per_s": events / wall if events and wall else None,
            "ccsim_version": __version__,
            "python": platform.python_version(),
            "platform": platform.platform(),
        }

    @property
    def name(self) -> str:
        return self.raw.get("name", "")

    @property
    def jain_index(self) -> Optional[float]:
        return self.raw.get("jain_index")

    @property
    def conservation(self) -> Dict[str, int]:
        return self.raw.get("conservation", {})

    @cached_property
    def flows(self) -> "pd.DataFrame":
        """One row per flow (id, cc, goodput_bps, retransmits, ...)."""
        import pandas as pd

        rows = self.raw.get("flows", [])
        return rows.frame() if isinstance(rows, RowTable) else pd.DataFrame(rows)

    @cached_property
    def links(self) -> "pd.DataFrame":
        """One row per link direction (utilization, loss_rate, drops, marks,
        and with ``qdelay = true`` the queueing delay ``qdelay_p50_s`` ...
        ``qdelay_max_s``). A discipline's per-class delays are in
        :attr:`qdelay_classes`, not here."""
        import pandas as pd

        links = self.raw.get("links", [])
        if isinstance(links, RowTable):
            return links.frame(exclude=("qdelay_classes",))
        return pd.DataFrame([{k: v for k, v in link.items() if k != "qdelay_classes"} for link in links])

    @cached_property
    def qdelay_classes(self) -> "pd.DataFrame":
        """Queueing delay per sub-queue class, for the links whose discipline
        names more than one (``qdelay = true``): one row per (link, class)
        with ``link`` (its id), ``class``, ``pkts``, ``p50_s``, ``p90_s``,
        ``p99_s``, ``p999_s``, ``mean_s``, ``max_s``. Empty (no columns)
        when no link has classes."""
        import pandas as pd

        rows = [{"link": link.get("id"), **c} for link in self.raw.get("links", [])
                for c in link.get("qdelay_classes") or []]
        return pd.DataFrame(rows)

    @cached_property
    def transfers(self) -> "pd.DataFrame":
        """One row per transfer of a workload (``app = "web"``): flow, entry,
        user, page, page_objects, objects, persistent, transport, cc,
        rtt_prop_s, start_s, bytes, delivered_bytes, completed_s, fct_s
        (NaN while unfinished), retransmits, timeouts. Empty (no columns)
        for a run without transfers."""
        return self._columns(self.raw.get("transfers", {}))

    @property
    def flow_table(self) -> Dict[str, int]:
        """Flows ever created, transfers, the most alive at once and alive
        at the end (``{}`` for a run without transfers)."""
        return self.raw.get("flow_table", {})

    @property
    def monitored_links(self) -> "pd.DataFrame":
        links = self.links
        if links.empty or "monitored" not in links:
            return links
        return links[links["monitored"].astype(bool)]

    def bottleneck(self) -> Optional[Dict[str, Any]]:
        """The first monitored link (the forward bottleneck of builder
        topologies), or ``None`` if nothing is monitored."""
        for link in self.raw.get("links", []):
            if link.get("monitored"):
                return dict(link)
        return None

    # -- series -------------------------------------------------------------

    @staticmethod
    def _columns(cols: Dict[str, Any]) -> "pd.DataFrame":
        import pandas as pd

        df = pd.DataFrame({k: list(v) for k, v in cols.items()})
        # JSON null (an unfinished transfer's completion) is NaN, not object.
        for k in ("completed_s", "fct_s"):
            if k in df:
                df[k] = df[k].astype(float)
        return df

    def _series(self, key: str) -> "pd.DataFrame":
        return self._columns(self.raw.get("series", {}).get(key, {}))

    @cached_property
    def flow_series(self) -> "pd.DataFrame":
        """Long table: time_s, flow, cwnd, ssthresh, srtt_s, goodput_bps,
        and a controller's own columns once such a flow runs (NaN for the
        others; BBR's ``bbr_*``, DCTCP's ``dctcp_alpha``, ...)."""
        return self._series("flows")

    @cached_property
    def link_series(self) -> "pd.DataFrame":
        """Long table: time_s, link, queue_pkts, loss_rate, cum_loss_rate,
        utilization, and with ``qdelay = true`` qdelay_mean_s and
        qdelay_max_s (NaN for an interval in which the link sent nothing)."""
        return self._series("links")

    def link_pivot(self, column: str = "queue_pkts") -> "pd.DataFrame":
        """One monitored link direction per column (named like ``r0->r1``),
        indexed by ``time_s``: ``res.link_pivot("queue_pkts").plot()``
        draws one line per link. (Plotting the long ``link_series``
        directly would join the forward and reverse rows, which alternate
        in time, into one zig-zag.)"""
        df = self.link_series
        if df.empty:
            import pandas as pd

            return pd.DataFrame()
        if column not in df:
            from ._native import UserError

            allowed = ", ".join(c for c in df.columns if c not in ("time_s", "link"))
            raise UserError(f"link_pivot: no link series column {column!r}; allowed: {allowed}")
        names = {l.get("id"): l.get("name") or f"{l.get('from')}->{l.get('to')}"
                 for l in self.raw.get("links", [])}
        wide = df.pivot(index="time_s", columns="link", values=column)
        wide.columns = [names.get(c, f"link {c}") for c in wide.columns]
        wide.columns.name = column
        return wide

    @cached_property
    def fairness_series(self) -> "pd.DataFrame":
        """time_s, jain (Jain's index over the sliding fairness window)."""
        return self._series("fairness")

    # -- output -------------------------------------------------------------

    def to_json(self, path: Optional[PathLike] = None, indent: Optional[int] = None) -> str:
        """The full results JSON (series included); also written to ``path``."""
        text = json.dumps(plain(self.raw), indent=indent)
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    def write(self, out_dir: PathLike, csv: bool = False) -> List[Path]:
        """Write summary.json (deterministic: byte-identical for the same
        scenario and seed), meta.json (wall time, versions, platform), the
        per-flow and per-link tables as flows.parquet and links.parquet, the
        three series as Parquet (and CSV), transfers.parquet (.csv) when the
        run has transfers, and qdelay_classes.parquet (.csv) when a link's
        discipline reports queueing delay per class.

        The summary is separate from the series and the transfers so that it
        stays small enough to read by eye and to diff between runs; for the
        same reason a flows or links table of more than
        :data:`SUMMARY_MAX_ROWS` rows is only in its Parquet file, with
        aggregates in the summary (:meth:`file_summary`).
        """
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written = [out / "summary.json", out / "meta.json"]
        written[0].write_text(json.dumps(self.file_summary(), indent=2) + "\n", encoding="utf-8")
        written[1].write_text(json.dumps(self.meta, indent=2) + "\n", encoding="utf-8")
        tables = [
            ("flows", self.flows),
            ("links", self.links),
            ("flow_series", self.flow_series),
            ("link_series", self.link_series),
            ("fairness_series", self.fairness_series),
        ]
        if self.raw.get("transfers"):
            tables.append(("transfers", self.transfers))
        if not self.qdelay_classes.empty:
            tables.append(("qdelay_classes", self.qdelay_classes))
        for stem, df in tables:
            p = out / f"{stem}.parquet"
            df.to_parquet(p, index=False)
            written.append(p)
            if csv:
                c = out / f"{stem}.csv"
                df.to_csv(c, index=False)
                written.append(c)
        return written

    def headline(self) -> Dict[str, Any]:
        """The few numbers a sweep tabulates per run."""
        flows = self.raw.get("flows", [])
        goodputs = [f.get("goodput_bps", 0.0) for f in flows]
        b = self.bottleneck() or {}
        return {
            "goodput_mean_bps": sum(goodputs) / len(goodputs) if goodputs else float("nan"),
            "goodput_total_bps": float(sum(goodputs)),
            "utilization": b.get("utilization", float("nan")),
            "loss_rate": b.get("loss_rate", float("nan")),
            "jain_index": self.raw.get("jain_index", float("nan")),
            "events": self.raw.get("events"),
            "wall_s": self.raw.get("wall_s"),
            "cpu_s": self.raw.get("cpu_s"),
        }

    def table(self, max_flows: int = 20) -> str:
        """Human-readable per-flow goodput and per-link utilisation/loss.

        Beyond ``max_flows`` flows only the first ones are listed, followed by
        min/mean/max goodput, so a 500-flow run still prints a short table.
        """
        lines = []
        flows = self.raw.get("flows", [])
        if flows:
            # ECN counters only when some flow was marked or echoed
            ecn = any(f.get("ce_marks") or f.get("ece_acks") for f in flows)
            head = f"{'flow':>5} {'cc':<10} {'rtt_ms':>8} {'goodput_Mbps':>13} {'retx':>8} {'drops':>8} {'timeouts':>8}"
            lines.append(head + (f" {'ce_marks':>9} {'ece_acks':>9}" if ecn else ""))
            shown = flows if len(flows) <= max_flows else flows[: max(max_flows // 2, 1)]
            for f in shown:
                rtt = f.get("rtt_prop_s")
                lines.append(
                    f"{f.get('id', ''):>5} {str(f.get('cc', '')):<10} "
                    f"{(rtt * 1e3 if rtt is not None else float('nan')):>8.2f} "
                    f"{f.get('goodput_bps', 0.0) / 1e6:>13.3f} "
                    f"{f.get('retransmits', 0):>8} {f.get('data_pkts_dropped', 0):>8} {f.get('timeouts', 0):>8}"
                    + (f" {f.get('ce_marks', 0):>9} {f.get('ece_acks', 0):>9}" if ecn else "")
                )
            if len(shown) < len(flows):
                g = [f.get("goodput_bps", 0.0) / 1e6 for f in flows]
                lines.append(f"  ... {len(flows) - len(shown)} more flows; goodput over all {len(flows)}: "
                             f"min {min(g):.3f}, mean {sum(g) / len(g):.3f}, max {max(g):.3f} Mb/s")
        t = self.raw.get("transfers") or {}
        if t.get("flow"):
            done = [f for f in t.get("fct_s", []) if f is not None]
            ft = self.flow_table
            lines.append(
                f"{len(t['flow'])} transfers ({len(done)} completed"
                + (f", mean completion {sum(done) / len(done):.3f} s" if done else "")
                + f"), {sum(t.get('bytes', [])) / 1e6:.1f} MB requested"
                + (f"; at most {ft['live_max']} flows alive at once" if "live_max" in ft else "")
            )
        links = [l for l in self.raw.get("links", []) if l.get("monitored")]
        if links:
            # queueing delay percentiles when the run recorded them (qdelay = true)
            qd = any("qdelay_p50_s" in l for l in links)
            ms = lambda v: f"{v * 1e3:>9.3f}" if isinstance(v, (int, float)) else f"{'-':>9}"  # noqa: E731
            lines.append("")
            lines.append(f"{'link':<16} {'rate_Mbps':>10} {'util':>7} {'loss_rate':>10} {'drops':>9} {'max_q':>7}"
                         + (f" {'qd_p50_ms':>9} {'qd_p99_ms':>9}" if qd else ""))
            for l in links:
                name = l.get("name") or f"{l.get('from')}->{l.get('to')}"
                lines.append(
                    f"{name:<16} {l.get('rate_bps', 0.0) / 1e6:>10.1f} {l.get('utilization', 0.0):>7.4f} "
                    f"{l.get('loss_rate', 0.0):>10.3e} {l.get('drops', 0):>9} {l.get('max_queue_pkts', 0):>7}"
                    + (f" {ms(l.get('qdelay_p50_s'))} {ms(l.get('qdelay_p99_s'))}" if qd else "")
                )
        jain = self.raw.get("jain_index")
        tail = f"jain={jain:.4f}" if isinstance(jain, (int, float)) else ""
        events, wall = self.raw.get("events"), self.raw.get("wall_s")
        if events is not None and wall:
            tail += f"  events={events}  wall={wall:.3f}s  ({events / wall / 1e6:.2f} M events/s)"
        if tail:
            lines.append("")
            lines.append(tail.strip())
        return "\n".join(lines)

    def __repr__(self) -> str:
        n = len(self.raw.get("flows", []))
        m = len((self.raw.get("transfers") or {}).get("flow", []))
        more = f", {m} transfers" if m else ""
        return f"<Results {self.name!r}: {n} flows{more}, jain={self.jain_index}>"


def _number(x: Any) -> Any:
    """A JSON-able scalar: numpy types to Python, NaN to None."""
    x = x.item() if hasattr(x, "item") else x
    return None if isinstance(x, float) and x != x else x


def _aggregate(df: "pd.DataFrame") -> Dict[str, Any]:
    """``rows``, and ``{count, min, mean, max, sum}`` of every numeric
    column but the labels ``id`` and ``entry`` (booleans and strings are not
    aggregated), over its non-null values: a column with none, such as
    ``fct_s`` when no flow finished, has count 0 and nulls."""
    import pandas as pd
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    agg: Dict[str, Any] = {"rows": len(df)}
    for col in df.columns:
        s = df[col]
        if col in _LABELS or is_bool_dtype(s):
            continue
        s = s.dropna()
        if not is_numeric_dtype(s):
            # JSON nulls make an object column: numeric if nothing else is in it
            if any(isinstance(v, (str, bool)) or not isinstance(v, (int, float)) for v in s):
                continue
            s = pd.to_numeric(s)
        agg[col] = {"count": len(s), **{f: _number(getattr(s, f)()) if len(s) else None
                                        for f in ("min", "mean", "max", "sum")}}
    return agg
