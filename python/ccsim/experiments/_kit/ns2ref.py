"""The baselines of a paper's ns-2 figures against a recorded ns-2.35 run
of the same scenarios (checks of source ``ns-2``).

The E-TCP and LTCP papers ran their TCP baselines in ns-2; ns-2.35 ships
those agents (``Agent/TCP/Newreno``, ``Agent/TCP/Sack1``, HighSpeed as
``windowOption_ 8``). ``validation/ns2_baselines.py`` runs each row of an
experiment's :data:`ROWS` in ns-2.35 and in ccsim and records both in the
experiment's reference file; the experiment (``etcp-ns2``, ``ltcp-ns2``)
re-runs ccsim's side and checks it against the recorded ns-2 numbers. CI
has no ns-2, so ns-2's side is read from the file (its date and versions
are in it).

ccsim's side runs in ns-2 mode (:func:`ns2_mode`): the engine's ns-2.35
personality, ``tcp_model = "ns2"`` (docs/tcp-models.md lists its rules:
ns-2's RTT estimator and initial RTO, repeated-timeout halving, the Reno
and NewReno agents' window, timer and Limited Transmit, HighSpeed's and
Reno's ns-2 slow start and decreases, one ACK per segment, ``windowInit_
2``, the SYN, and ns-2's own SACK agent: a flow the paper ran as
``TCP/Sack1``, ``recovery = "sack"`` in the reproductions, runs ccsim's
model of that agent, validated segment for segment against ns-2 in
docs/validation.md, "TCP/Sack1").

The flows of a row start at times drawn from the row's seed
(:func:`starts`), written into both simulators' scenarios.

The same mode is what every reproduction of a figure the papers made in
ns-2 gives its TCP-family flows (:func:`figure_flow`): the
E-TCP paper's baselines, the LTCP paper's §V-A TCP and LTCP flows, every
H-TCP flow, and the paced-XCP paper's Reno, NewReno, HSTCP and XCP
agents (docs/experiments.md, "ns-2 mode"). :data:`FIGURES_IN_NS2_MODE`
(``CCSIM_NS2_MODE=0`` in the environment) turns it off, for a comparison
with ccsim's RFC defaults.
"""

from __future__ import annotations

import functools
import json
import os
import random
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Sequence

import pandas as pd

from ..._native import UserError
from .. import Check
from .analysis import jain
from .figures import grid, save, style_axes
from .runs import Analysis, Runs, Sweep

#: Flow fields that put a ccsim TCP sender in ns-2.35's default behaviour
#: (docs/scenario.md has each one).
NS2_TCP: Dict[str, Any] = {"rtt_estimator": "ns2", "halve_on_repeated_rto": True, "ns2_bugfix": True,
                           "delayed_ack": False, "init_cwnd_pkts": 2, "limited_transmit": True, "syn": "ns2"}
#: Flow fields of ns-2's Reno-family agents (``Agent/TCP/Reno``,
#: ``Agent/TCP/Newreno``, and ``Agent/TCP/Reno/XCP``, a RenoTcpAgent):
#: their window with the fast-recovery inflation kept apart (``dupwnd_``,
#: ``ns2_dupwnd``) and ``singledup_``'s Limited Transmit after a timeout
#: too (``ns2_singledup``), both traced against ns-2 on the GWA rows;
#: together they make the E-TCP single-flow NewReno rows ns-2's to the
#: packet (the window alone leaves 3 of 109 retransmissions apart;
#: docs/decisions/2026-11-25-ns2-reno-window.md). And the timer of ``TcpAgent`` (``newtimer``:
#: restarted at every ACK, its idle expiry restarting the window at one
#: segment; ``output`` setting it afresh for a send with nothing
#: outstanding), ``ns2_idle_restart``, traced on the GWA Telnets. Sack1
#: has its own recovery and timer (``recovery = "sack1"``, which has this
#: timer built in) and takes none of them.
NS2_RENO: Dict[str, Any] = {"ns2_dupwnd": True, "ns2_singledup": True, "ns2_idle_restart": True}
NS2_DUPWND_RECOVERIES = ("reno", "newreno")
#: The metrics compared; each checked within :data:`TOL` of ns-2's.
METRICS = ("utilisation", "loss_rate", "retransmits", "timeouts", "jain")
#: Relative tolerance: the threshold above which the cause of a difference
#: is traced (docs/validation.md has them).
TOL = 0.05


@dataclass(frozen=True)
class Row:
    """One baseline point of a paper figure: ``protocol`` (a key of the
    paper's protocol table), ``n`` flows starting within ``start_spread_s``,
    ``duration_s`` with the first ``warmup_s`` not measured. ``quick`` rows
    are the ones ``--quick`` re-runs."""

    id: str
    figure: str
    protocol: str
    rate_bps: float
    rtt_s: float
    buffer_pkts: int
    n: int = 1
    start_spread_s: float = 0.0
    duration_s: float = 300.0
    warmup_s: float = 0.0
    quick: bool = False


def sig6(x: float) -> float:
    """``x`` to six significant digits, for a check's numbers: loss rates
    of 1e-6 rounded to six *decimals* kept one digit, and the check's
    deviation was computed on that."""
    return float(f"{x:.6g}")


#: ns-2.35's default RTO before the first RTT sample (``rtxcur_init_``);
#: with ``rtt_estimator = "ns2"`` it is the engine's default, a flow with
#: timestamps (:func:`ns2_mode`) sets it.
NS2_INIT_RTO_S = 3.0


#: Defaults of an older ns-2 release that differ from 2.35's and that a
#: paper names (the paced-XCP paper: "ns version 2.28", released
#: 2005/02/03), as flow fields. From ns-2.35's own ns-default.tcl change
#: notes and test suites: ``rtxcur_init_`` was 6 s until 2006/01/21
#: (``init_rto_s``); ``numdupacksFrac_`` was 100 from 2002/10/18 to
#: 2006/09/27, read by the Sack1 agent only (``dupthresh_frac``, set on
#: ``recovery = "sack1"`` flows). ``minrto_`` was already 0.2 s
#: (2004/10/14); the pre-2007 ``maxrto_`` is not stated in 2.35's files and
#: is left at 2.35's 60 s.
NS2_RELEASE: Dict[str, Dict[str, Any]] = {"2.28": {"init_rto_s": 6.0, "dupthresh_frac": 100}}


def ns2_mode(flow: Dict[str, Any], *, timestamps: bool = False, release: str = "2.35") -> Dict[str, Any]:
    """``flow`` as ns-2.35's agent: the engine's ns-2 personality
    (``tcp_model = "ns2"``, docs/tcp-models.md), which sets ns-2's value of
    every TCP rule the flow leaves out: :data:`NS2_TCP`, the Reno-family
    window, timer and Limited Transmit (:data:`NS2_RENO`) with Reno and
    NewReno recovery, ``recovery = "sack"`` as ns-2's ``TCP/Sack1``
    (``sack1``) where that agent runs (unpaced, without ECN; the papers'
    paced SACK agents were their own patches of it), Reno's and
    HighSpeed's slow start and decreases as ns-2's (``cc_params``), and the
    initial RTO of 3 s.

    ``timestamps``: the agent ran with ns-2's ``timestamps_ true`` (the
    default of ``Agent/TCP/Reno/XCP``; the paced-XCP paper's "time-stamps
    option is used" for every agent). ns-2 then takes an RTT sample from
    every ACK's echoed timestamp (``newack``: ``rtt_update(now -
    ts_echo())``) instead of timing one segment per round trip, so the
    one-segment ``ns2`` estimator does not apply: the flow keeps ccsim's
    every-ACK estimator (``rfc6298``, the same 1/8 and 1/4 gains; ns-2
    keeps them as integers in ``tcpTick_`` units, which at the papers'
    fine ticks is not resolved) with ns-2's initial RTO
    (:data:`NS2_INIT_RTO_S`); the rest of the personality applies as is,
    ``ns2_timed_backoff`` too: as ns-2's, the RTO backoff ends only when
    the timed segment is acknowledged.
    Idempotent: a flow already in ns-2 mode is returned equal.

    ``release``: ``"2.35"`` (the mode above) or an older release a paper
    names (:data:`NS2_RELEASE`), whose differing defaults then apply on
    top."""
    # The personality decides every field it covers: a value the base flow
    # spelled out for one of them (a sweep switching the protocol) does not
    # carry over into the figure's ns-2 agent.
    f = {k: v for k, v in flow.items() if k not in NS2_TCP and k not in NS2_RENO}
    f["tcp_model"] = "ns2"
    abc = (f.get("cc_params") or {}).get("abc")
    decided = {"reno": () if abc else ("slow_start",),
               "hstcp": ("ns2_first_decrease", "ns2_decrease_num") + (() if abc else ("lss",))}
    drop = decided.get(f.get("cc", "reno"), ())
    if drop and f.get("cc_params"):
        f["cc_params"] = {k: v for k, v in f["cc_params"].items() if k not in drop}
    if timestamps:
        f["rtt_estimator"] = "rfc6298"
    if release != "2.35":
        if release not in NS2_RELEASE:
            raise ValueError(f"release {release!r}: allowed 2.35, {', '.join(NS2_RELEASE)}")
        old = NS2_RELEASE[release]
        f["init_rto_s"] = old["init_rto_s"]
        sack1 = f.get("recovery") == "sack1" or (
            f.get("recovery") == "sack" and f.get("pacing", "none") == "none" and not f.get("ecn"))
        if sack1:
            f["dupthresh_frac"] = old["dupthresh_frac"]
    return f


def engine_flow(flow: Dict[str, Any]) -> Dict[str, Any]:
    """``flow`` as the engine normalises it: every field its personality and
    the defaults fill in (what a peer mapping to ns-2 reads)."""
    from ...scenario import Scenario

    sc = {"duration_s": 1, "topology": {"kind": "dumbbell", "bottleneck_rate_bps": 1e6,
                                        "bottleneck_queue": {"kind": "droptail", "limit_pkts": 5}},
          "flows": [dict(flow, count=1)]}
    return dict(Scenario.from_dict(sc).normalized()["flows"][0], count=flow.get("count", 1))


#: Whether the reproductions of the papers' ns-2 figures run their
#: TCP-family flows in ns-2 mode (:func:`figure_flow`). On by default;
#: ``CCSIM_NS2_MODE=0`` in the environment when this module is imported,
#: or setting this to ``False`` before building the scenarios, runs them
#: with ccsim's RFC defaults instead (for comparison only: the checks and
#: docs/experiments.md are for ns-2 mode). The ``*-ns2`` experiments run
#: ns-2 mode whatever this says (they compare against ns-2 itself).
FIGURES_IN_NS2_MODE: bool = os.environ.get("CCSIM_NS2_MODE", "1").strip() != "0"


def figure_flow(flow: Dict[str, Any], *, timestamps: bool = False, release: str = "2.35") -> Dict[str, Any]:
    """A TCP-family flow of a reproduced ns-2 figure: :func:`ns2_mode`
    (``timestamps`` as there) unless :data:`FIGURES_IN_NS2_MODE` is off,
    then ``flow`` unchanged. The one place that decides how those flows
    run; experiments call it, never :data:`NS2_TCP` directly."""
    return ns2_mode(flow, timestamps=timestamps, release=release) if FIGURES_IN_NS2_MODE else dict(flow)


def agents_note() -> str:
    """How the TCP-family flows of a reproduced ns-2 figure run now: what
    ``ccsim reproduce`` prints and ``checks.json`` records (``agents``)
    for an experiment that declares ``NS2_FIGURE = True``."""
    if FIGURES_IN_NS2_MODE:
        return ("TCP-family flows in ns-2 mode (ccsim.experiments._kit.ns2ref.figure_flow: tcp_model = \"ns2\", "
                "ns-2.35's agents, docs/tcp-models.md; agents with timestamps keep the every-ACK estimator; "
                "a paper that names an older release gets its differing defaults, NS2_RELEASE: "
                + "; ".join(f"{r}: " + ", ".join(f"{k} = {v}" for k, v in d.items()) for r, d in NS2_RELEASE.items())
                + ", dupthresh_frac on sack1 only)")
    return "TCP-family flows with ccsim's RFC defaults (CCSIM_NS2_MODE=0: not the papers' ns-2 settings)"


#: Queue-table fields that order a tied arrival and departure as ns-2.35
#: does (docs/scenario.md, ``ties``; docs/validation.md, "ns-2's order of a
#: tied arrival and departure").
NS2_QUEUE: Dict[str, Any] = {"ties": "arrival_first"}


def droptail_waiting(queue_limit: int) -> int:
    """ccsim's DropTail ``limit_pkts`` (packets waiting behind the one being
    sent) for a paper's ns-2 DropTail of ``queue-limit`` packets.

    ns-2's ``DropTail::enque`` drops an arrival when ``length() + 1 >=
    qlim_`` (drop-tail.cc), and the packet being sent has left ``q_``: a
    ``queue-limit B`` holds B - 1 waiting plus the one in service. (ns-2's
    RED, red.cc, drops when ``qlen >= qlim`` before the arrival is queued:
    B waiting, ccsim's ``limit_pkts = B`` as it is.) A paper's "queue of B
    packets" in ns-2 is read so (docs/validation.md, "Queue limit")."""
    if isinstance(queue_limit, bool) or not isinstance(queue_limit, int) or queue_limit < 2:
        raise ValueError(f"queue_limit: {queue_limit!r} is not allowed; must be an int >= 2 "
                         "(ns-2's DropTail with queue-limit 1 drops every arrival)")
    return queue_limit - 1


#: The queue tables of each built topology kind (a custom topology's are on
#: its links).
_QUEUE_KEYS = {"dumbbell": ("bottleneck_queue", "edge_queue"), "parking_lot": ("link_queue", "edge_queue")}


def ns2_topology(topo: Dict[str, Any], queue: Dict[str, Any] = NS2_QUEUE) -> Dict[str, Any]:
    """``topo`` with every queue in ns-2's event order (:data:`NS2_QUEUE`,
    or the fields ``queue``). A built topology must spell out its queue
    tables (a default edge queue would otherwise stay in ccsim's order)."""
    t = dict(topo)
    if t.get("kind") == "custom":
        t["links"] = [dict(l, **{k: {**l[k], **queue} for k in ("queue", "reverse_queue") if l.get(k)})
                      for l in t["links"]]
        return t
    for k in _QUEUE_KEYS[t["kind"]]:
        if k not in t:
            raise ValueError(f"ns2_topology: topology.{k} must be given explicitly")
        t[k] = {**t[k], **queue}
    return t


def ns2_clock_scenario(sc: Dict[str, Any]) -> Dict[str, Any]:
    """``sc`` (a scenario dict whose queue tables are spelled out) run in
    ns-2's event order down to its floating-point clock: ``ties = "ns2"``
    on every queue (an event per packet per hop, as ns-2 schedules them)
    and ``ns2_clock = true`` (events tied on one picosecond run in the order
    of the ``double`` times ns-2's scheduler gives them; docs/scenario.md).
    About three times the events of ``arrival_first``; what the ``*-ns2``
    comparisons with ns-2 itself run (on B3 the bottleneck trace is then
    ns-2.35's event for event; docs/validation.md)."""
    return dict(sc, topology=ns2_topology(sc["topology"], {"ties": "ns2"}), ns2_clock=True)


def figure_scenario(sc: Dict[str, Any]) -> Dict[str, Any]:
    """A scenario of a reproduced ns-2 figure with every queue in ns-2's
    order of a tied arrival and departure (:func:`ns2_topology`), unless
    :data:`FIGURES_IN_NS2_MODE` is off (then ``sc`` unchanged). ns-2's
    scheduler orders the events of every link the same way whatever the
    agents, so this covers E-TCP's and XCP's links too. A built topology's
    queue table left to ccsim's default (the edge queue) is spelled out
    from the engine's own default first, so it too gets the order.
    :func:`ccsim.experiments.drive` applies it to every sweep of a module
    declaring ``NS2_FIGURE = True``."""
    if not FIGURES_IN_NS2_MODE:
        return sc
    from ...scenario import Scenario, as_scenario_dict

    sc = as_scenario_dict(sc)
    topo = dict(sc["topology"])
    missing = [k for k in _QUEUE_KEYS.get(topo.get("kind"), ()) if k not in topo]
    if missing:
        full = Scenario.from_dict(sc).normalized()["topology"]
        topo.update({k: full[k] for k in missing})
    return dict(sc, topology=ns2_topology(topo))


#: ns-2's node reset orders by node count (``validation.ns2_node_order``).
NODE_ORDERS = Path(__file__).with_name("ns2_node_orders.json")


@functools.lru_cache(maxsize=1)
def _node_orders() -> Dict[str, List[int]]:
    """:data:`NODE_ORDERS`, read once (every baseline scenario asks)."""
    return json.loads(NODE_ORDERS.read_text(encoding="utf-8"))["orders"]


def node_order(n_nodes: int) -> List[int]:
    """The order in which ns-2's ``$ns run`` resets a script's
    ``n_nodes`` nodes (Tcl's hash order of its node table), as recorded
    from ``ns`` in :data:`NODE_ORDERS`; a named error for a count not
    recorded."""
    orders = _node_orders()
    if str(n_nodes) not in orders:
        raise UserError(f"{NODE_ORDERS}: no ns-2 node order for {n_nodes} nodes (recorded: "
                        f"{', '.join(orders)}); record it with python -m validation.ns2_node_order {n_nodes}")
    return orders[str(n_nodes)]


def boot_order(hosts: int, per_host: int = 1) -> List[int]:
    """``ns2_boot_order`` of a dumbbell as the validation scripts build it
    in ns-2 (r0 node 0, r1 node 1, then per host s_i node 2 + 2i and its
    sink's d_i 3 + 2i), with ``per_host`` TCP agents on each s_i, flows
    i, hosts + i, ... in attach order: ns-2 resets the nodes in
    :func:`node_order` and a node's agents in attach order, and the sinks
    draw nothing, so each flow runs with the tick phase ns-2 drew for it."""
    out: List[int] = []
    for node in node_order(2 + 2 * hosts):
        if node >= 2 and node % 2 == 0:
            out += [(node - 2) // 2 + k * hosts for k in range(per_host)]
    return out


def ns2_phases(sc: Dict[str, Any]) -> Dict[str, Any]:
    """``sc`` (a baseline dumbbell, one flow per host) with each flow's
    ``boot_time_`` drawn as ns-2 draws it for the same seed
    (``ns2_boot_order``, which draws from ns-2's random stream)."""
    return dict(sc, ns2_boot_order=boot_order(len(sc["flows"])))


def starts(row: Row, seed: int) -> List[float]:
    """Start times of the row's flows: uniform on [0, start_spread_s]
    from ``seed`` (all 0 without a spread)."""
    rng = random.Random(seed)
    return [round(rng.uniform(0.0, row.start_spread_s), 9) if row.start_spread_s else 0.0 for _ in range(row.n)]


def expand(flow: Dict[str, Any], row: Row, seed: int) -> List[Dict[str, Any]]:
    """One ``[[flows]]`` entry per flow, each with its start time."""
    return [dict(ns2_mode(flow), count=1, start_s=t) for t in starts(row, seed)]


def measure(raw: Dict[str, Any], rate_bps: float) -> Dict[str, float]:
    """:data:`METRICS` of a ccsim run (``Results.raw``) over its measured
    period: goodput utilisation, bottleneck loss rate, retransmitted
    packets and timeouts summed over flows, Jain's index of goodputs."""
    link = next(x for x in raw["links"] if x["from"] == "r0" and x["to"] == "r1")
    g = [f["goodput_bps"] for f in raw["flows"]]
    return {"utilisation": sum(g) / rate_bps, "loss_rate": link["drops"] / max(link["arrivals"], 1),
            "retransmits": float(sum(f["retransmits"] for f in raw["flows"])),
            "timeouts": float(sum(f["timeouts"] for f in raw["flows"])), "jain": jain(g)}


class Reference:
    """An experiment's recorded ns-2 run: ``path`` and the experiment's
    rows (a record of other rows is refused by name)."""

    def __init__(self, path: Path, rows: Sequence[Row], recorder: str):
        self.path, self.rows, self.recorder = Path(path), list(rows), recorder

    def load(self) -> Dict[str, Any]:
        try:
            ref = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise UserError(f"{self.path}: cannot read the recorded ns-2 run ({e}); re-record it with "
                            f"{self.recorder}") from None
        mine = {r.id: json.loads(json.dumps(asdict(r))) for r in self.rows}
        for rec in ref.get("rows", []):
            if mine.get(rec["row"]["id"]) != rec["row"]:
                raise UserError(f"{self.path}: row {rec['row']['id']!r} was recorded as {rec['row']}, but the "
                                f"experiment defines {mine.get(rec['row']['id'])}; re-record it with {self.recorder}")
        return ref


def scenarios(ref: Reference, build: Callable[[Row, int], Dict[str, Any]], quick: bool) -> List[Sweep]:
    """One sweep per recorded (row, seed): a row's own ``seeds`` if it was
    recorded with others than the file's; ``--quick`` only the quick rows."""
    rec = ref.load()
    by_id = {r.id: r for r in ref.rows}
    out = []
    for r in rec["rows"]:
        row = by_id[r["row"]["id"]]
        if quick and not row.quick:
            continue
        out += [Sweep(build(row, s), [{}], [(row.id, s)]) for s in r.get("seeds", rec["seeds"])]
    return out


def analyse(ref: Reference, runs: Runs) -> Analysis:
    """Per row: the mean over seeds of each metric in ns-2 (recorded),
    in ccsim now, and in ccsim when ns-2's side was recorded."""
    rec = {r["row"]["id"]: r for r in ref.load()["rows"]}
    by_id = {r.id: r for r in ref.rows}
    per_row: Dict[str, List[Dict[str, float]]] = {}
    for s, frame in zip(runs.sweeps, runs.frames):
        for (rid, _), key in zip(s.labels, frame["key"]):
            per_row.setdefault(rid, []).append(measure(runs.load(key).raw, by_id[rid].rate_bps))
    rows = []
    for rid, per_seed in per_row.items():
        row = by_id[rid]
        d: Dict[str, Any] = {"row": rid, "figure": row.figure, "protocol": row.protocol, "rate_bps": row.rate_bps,
                             "rtt_s": row.rtt_s, "buffer_pkts": row.buffer_pkts, "n": row.n,
                             "seeds": len(per_seed)}
        for k in METRICS:
            d[f"ns2_{k}"] = rec[rid]["ns2"][k]
            d[f"ccsim_{k}"] = sum(m[k] for m in per_seed) / len(per_seed)
            d[f"recorded_ccsim_{k}"] = rec[rid]["ccsim"][k]
        d["ns2_wall_s"], d["recorded_ccsim_wall_s"] = rec[rid]["ns2_wall_s"], rec[rid]["ccsim_wall_s"]
        rows.append(d)
    return Analysis(table=pd.DataFrame(rows))


def checks(a: Analysis) -> List[Check]:
    """Each metric within :data:`TOL` of ns-2's (where ns-2's is 0,
    ccsim's must be 0); Jain's index only with several flows. Plus one
    consistency check: the record's own ccsim column is current."""
    out = []
    for r in a.table.itertuples(index=False):
        for k in METRICS:
            if k == "jain" and r.n == 1:
                continue
            ns2, mine = float(getattr(r, f"ns2_{k}")), float(getattr(r, f"ccsim_{k}"))
            out.append(Check(f"{r.row}: {k} (mean of {r.seeds} seeds)", paper=sig6(ns2), ccsim=sig6(mine),
                             tolerance=TOL, source="ns-2"))
    t = a.table
    worst = 0.0
    for k in METRICS:
        rec = t[f"recorded_ccsim_{k}"]
        worst = max(worst, float((t[f"ccsim_{k}"] - rec).abs().div(rec.abs().where(rec != 0, 1.0)).max()))
    out.append(Check("ccsim now vs the ccsim column recorded beside ns-2 (largest relative difference over rows "
                     "and metrics; 0 = the record is current)", paper=0.0, ccsim=worst, relative=False,
                     tolerance=1e-9, source="consistency"))
    return out


def plot(a: Analysis, out_dir: Path, exp_id: str, title: str) -> Path:
    """ccsim against ns-2 per metric, one marker per protocol (grey: the tolerance band)."""
    t = a.table
    shown = [k for k in METRICS if k != "jain" or (t["n"] > 1).any()]
    fig, axes = grid(1, len(shown), figsize=(3.6 * len(shown), 3.8))
    for ax, k in zip(axes[0], shown):
        for i, (proto, d) in enumerate(t.groupby("protocol")):
            ax.plot(d[f"ns2_{k}"], d[f"ccsim_{k}"], "osD^v"[i % 5], mfc="none", label=proto)
        lo = float(min(t[f"ns2_{k}"].min(), t[f"ccsim_{k}"].min()))
        hi = float(max(t[f"ns2_{k}"].max(), t[f"ccsim_{k}"].max()))
        ax.plot([lo, hi], [lo, hi], "k-", lw=0.5)
        ax.fill_between([lo, hi], [lo * (1 - TOL), hi * (1 - TOL)], [lo * (1 + TOL), hi * (1 + TOL)], color="0.9",
                        zorder=0)
        log = k in ("loss_rate", "retransmits") and lo > 0
        style_axes(ax, f"ns-2.35: {k}", f"ccsim: {k}", xlog=log, ylog=log, title=k, legend=7 if k == shown[0] else None)
    fig.suptitle(title)
    return save(fig, out_dir, exp_id)


def hooks(ref: Reference, build: Callable[[Row, int], Dict[str, Any]], exp_id: str, title: str):
    """The experiment interface (``scenarios``, ``analyse``, ``checks``,
    ``plot``) of an experiment made of :data:`ref`'s rows, built by
    ``build(row, seed)``: an ``*-ns2`` module assigns these four."""

    def scenarios_(quick: bool) -> List[Sweep]:
        return scenarios(ref, build, quick)

    def analyse_(runs: Runs, quick: bool) -> Analysis:
        return analyse(ref, runs)

    def checks_(a: Analysis, quick: bool) -> List[Check]:
        return checks(a)

    def plot_(a: Analysis, out_dir: Path, quick: bool) -> Path:
        return plot(a, out_dir, exp_id, title)

    return scenarios_, analyse_, checks_, plot_
