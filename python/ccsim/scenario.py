"""Typed scenario builder mirroring docs/scenario.md.

The dataclasses here are a *convenience* for writing scenarios in Python and
round-tripping them through TOML/JSON. They deliberately do not validate:
the Rust engine is the single authority on what a valid scenario is (see
``ccsim._core.validate``), so there is exactly one set of rules and one style
of error message (``scenario.flows[0].cc: unknown value ...``).

Conventions:

* Every optional field defaults to ``None``, meaning "use the engine's
  default"; ``to_dict()`` omits ``None`` fields, so defaults are defined in one
  place (the engine) and ``ccsim._core.validate`` shows the filled-in values.
* Keys the dataclasses do not know are kept in ``extra`` and passed through
  unchanged, so that a newer engine field works before this module learns it,
  and a typo reaches the engine, which names it in its error.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ._native import MAX_DEPTH, UserError, check_values, validate

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on old Pythons only
    import tomli as tomllib

__all__ = [
    "Queue",
    "DropTail",
    "RED",
    "DRR",
    "CoDel",
    "PIE",
    "FQCoDel",
    "DualPI2",
    "Dumbbell",
    "ParkingLot",
    "Link",
    "CustomTopology",
    "Flow",
    "Scenario",
    "load_scenario",
    "with_overrides",
    "UserError",
]

Number = Union[int, float]


# --------------------------------------------------------------------------
# shared (de)serialisation machinery
# --------------------------------------------------------------------------


class _Table:
    """Mixin giving a dataclass ``to_dict``/``from_dict`` with ``extra``.

    ``_renames`` maps Python attribute names to schema keys for the few keys
    that are Python keywords (``from``).
    """

    _renames: ClassVar[Dict[str, str]] = {}
    _nested: ClassVar[Dict[str, Any]] = {}
    # Keys written first, so files read naturally ("kind" heads its table).
    _key_order: ClassVar[Sequence[str]] = ("kind",)

    def to_dict(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            if f.name == "extra":
                continue
            value = getattr(self, f.name)
            if value is None:
                continue
            out[self._renames.get(f.name, f.name)] = _plain(value)
        for key, value in getattr(self, "extra", {}).items():
            if value is not None:
                out[key] = _plain(value)
        order = [k for k in self._key_order if k in out]
        return {**{k: out[k] for k in order}, **{k: v for k, v in out.items() if k not in order}}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]):
        if not isinstance(d, Mapping):
            raise UserError(f"{cls.__name__}: expected a table, got {d!r}")
        inverse = {v: k for k, v in cls._renames.items()}
        names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        kwargs: Dict[str, Any] = {}
        extra: Dict[str, Any] = {}
        for key, value in d.items():
            attr = inverse.get(key, key)
            if attr in names and attr != "extra":
                conv = cls._nested.get(attr)
                kwargs[attr] = conv(value) if conv and value is not None else copy.deepcopy(value)
            else:
                extra[key] = copy.deepcopy(value)
        if extra:
            kwargs["extra"] = extra
        return cls(**kwargs)


def _plain(value: Any) -> Any:
    """Convert nested dataclasses/tuples into plain JSON-able values."""
    if isinstance(value, _Table):
        return value.to_dict()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if v is not None}
    return value


# --------------------------------------------------------------------------
# queues
# --------------------------------------------------------------------------


@dataclass
class Queue(_Table):
    """A queue discipline table (``bottleneck_queue``, ``edge_queue``, ...).

    ``kind`` names the discipline (``ccsim list queues``); discipline-specific
    parameters that have no attribute here go in ``extra`` and are written
    flat into the table, as the schema expects.
    """

    kind: Optional[str] = "droptail"
    limit_pkts: Optional[int] = None
    limit_bytes: Optional[int] = None
    #: XCP router feedback on the link: ``True`` or a table (``params``,
    #: ``alpha``, ``beta``, ``gamma``, ``capacity``, ``count_acks``).
    xcp: Optional[Any] = None
    extra: Dict[str, Any] = field(default_factory=dict)


def DropTail(limit_pkts: Optional[int] = None, limit_bytes: Optional[int] = None) -> Queue:
    """Tail-drop queue; give exactly one of ``limit_pkts``/``limit_bytes``."""
    return Queue(kind="droptail", limit_pkts=limit_pkts, limit_bytes=limit_bytes)


def RED(limit_pkts: Optional[int] = None, limit_bytes: Optional[int] = None, **params: Any) -> Queue:
    """RED queue (``kind = "red"``); ``params`` are its keys (``min_th_pkts``/
    ``max_th_pkts`` or ``min_th_bytes``/``max_th_bytes``, ``w_q``, ``max_p``, ``gentle``, ``wait``, ``bytes``,
    ``mean_pktsize``, ``ecn``, ``mark_p``, ``ecn_mark_above_max``; see
    docs/scenario.md)."""
    return Queue(kind="red", limit_pkts=limit_pkts, limit_bytes=limit_bytes, extra=dict(params))


def DRR(limit_pkts: Optional[int] = None, limit_bytes: Optional[int] = None,
        quantum_bytes: Optional[int] = None, buckets: Optional[int] = None, **extra: Any) -> Queue:
    """Deficit round robin over per-flow queues sharing one buffer
    (``kind = "drr"``); give exactly one of ``limit_pkts``/``limit_bytes``.
    ``buckets`` hashes flows into that many queues as ns-2 does; other
    keys (``gwa = "rr"``, ...) go into the table as given."""
    ex = {"quantum_bytes": quantum_bytes, "buckets": buckets, **extra}
    return Queue(kind="drr", limit_pkts=limit_pkts, limit_bytes=limit_bytes,
                 extra={k: v for k, v in ex.items() if v is not None})


def _aqm(kind: str, limit_pkts: Optional[int], limit_bytes: Optional[int], params: Mapping[str, Any]) -> Queue:
    return Queue(kind=kind, limit_pkts=limit_pkts, limit_bytes=limit_bytes,
                 extra={k: v for k, v in params.items() if v is not None})


def CoDel(limit_pkts: Optional[int] = None, limit_bytes: Optional[int] = None,
          target_s: Optional[float] = None, interval_s: Optional[float] = None,
          mtu_bytes: Optional[int] = None, ecn: Optional[bool] = None, ce_threshold_s: Optional[float] = None,
          **extra: Any) -> Queue:
    """CoDel, Controlled Delay (RFC 8289), as Linux runs it (``kind =
    "codel"``): head drops, or CE marks with ``ecn``, at dequeue once the
    sojourn time has stayed above ``target_s`` (5 ms) for ``interval_s``
    (100 ms), then spaced ``interval_s / sqrt(count)``; no drop while at
    most ``mtu_bytes`` (1500) remain queued; with ``ce_threshold_s``, every
    ECN-capable packet that waited longer is CE-marked (Linux
    ``ce_threshold``, DCTCP's step). Buffer: ``limit_pkts`` (1000) or
    ``limit_bytes``. ``None`` leaves the engine's default; other keys go
    into the table as given (docs/scenario.md, "CoDel")."""
    return _aqm("codel", limit_pkts, limit_bytes,
                {"target_s": target_s, "interval_s": interval_s, "mtu_bytes": mtu_bytes, "ecn": ecn,
                 "ce_threshold_s": ce_threshold_s, **extra})


def PIE(limit_pkts: Optional[int] = None, limit_bytes: Optional[int] = None,
        target_s: Optional[float] = None, tupdate_s: Optional[float] = None,
        alpha: Optional[float] = None, beta: Optional[float] = None, max_burst_s: Optional[float] = None,
        derandomize: Optional[bool] = None, cap_drop_adjustment: Optional[bool] = None,
        estimator: Optional[str] = None, dq_threshold_bytes: Optional[int] = None,
        mean_pktsize: Optional[int] = None, ecn: Optional[bool] = None, mark_ecn_th: Optional[float] = None,
        **extra: Any) -> Queue:
    """PIE, Proportional Integral controller Enhanced (RFC 8033), checked
    against Linux and ns-3 (``kind = "pie"``): random drops (or CE marks
    with ``ecn`` while p <= ``mark_ecn_th``) of arriving packets with a
    probability p that a PI controller (gains ``alpha``, ``beta`` in Hz)
    updates every ``tupdate_s`` from the queueing delay against
    ``target_s`` (15 ms); ``max_burst_s`` of burst allowance,
    ``derandomize`` (§5.4), ``cap_drop_adjustment`` (§5.5); the delay from
    each packet's sojourn (``estimator = "timestamp"``) or the departure
    rate (``"dequeue_rate"`` over ``dq_threshold_bytes``). Buffer:
    ``limit_pkts`` (1000) or ``limit_bytes`` (then ``mean_pktsize`` sets the
    small-queue rule). ``None`` leaves the engine's default; other keys go
    into the table as given (docs/scenario.md, "PIE")."""
    return _aqm("pie", limit_pkts, limit_bytes, {
        "target_s": target_s, "tupdate_s": tupdate_s, "alpha": alpha, "beta": beta, "max_burst_s": max_burst_s,
        "derandomize": derandomize, "cap_drop_adjustment": cap_drop_adjustment, "estimator": estimator,
        "dq_threshold_bytes": dq_threshold_bytes, "mean_pktsize": mean_pktsize, "ecn": ecn,
        "mark_ecn_th": mark_ecn_th, **extra})


def FQCoDel(limit_pkts: Optional[int] = None, limit_bytes: Optional[int] = None,
            flows: Optional[int] = None, exact_flows: Optional[bool] = None, perturbation: Optional[int] = None,
            quantum_bytes: Optional[int] = None, drop_batch: Optional[int] = None,
            target_s: Optional[float] = None, interval_s: Optional[float] = None,
            mtu_bytes: Optional[int] = None, ecn: Optional[bool] = None, ce_threshold_s: Optional[float] = None,
            **extra: Any) -> Queue:
    """FQ-CoDel (RFC 8290) as Linux's sch_fq_codel (``kind = "fq_codel"``):
    flow ids hashed into ``flows`` queues (1024; ``exact_flows`` for one
    queue per flow, ``perturbation`` reseeds the hash), served by deficit
    round robin (``quantum_bytes``, 1500) with new flows first, each queue
    under its own CoDel (``target_s``, ``interval_s``, ``mtu_bytes``,
    ``ce_threshold_s`` as :func:`CoDel`; ``ecn`` on by default); on overflow of ``limit_pkts``
    (10240) or ``limit_bytes`` the fattest queue loses up to ``drop_batch``
    (64) packets from its head. ``None`` leaves the engine's default; other
    keys go into the table as given (docs/scenario.md, "FQ-CoDel")."""
    return _aqm("fq_codel", limit_pkts, limit_bytes, {
        "flows": flows, "exact_flows": exact_flows, "perturbation": perturbation, "quantum_bytes": quantum_bytes,
        "drop_batch": drop_batch, "target_s": target_s, "interval_s": interval_s, "mtu_bytes": mtu_bytes,
        "ecn": ecn, "ce_threshold_s": ce_threshold_s, **extra})


def DualPI2(limit_pkts: Optional[int] = None, limit_bytes: Optional[int] = None,
            target_s: Optional[float] = None, tupdate_s: Optional[float] = None,
            alpha: Optional[float] = None, beta: Optional[float] = None,
            step_thresh_s: Optional[float] = None, step_thresh_pkts: Optional[int] = None,
            min_qlen_step: Optional[int] = None, coupling_factor: Optional[float] = None,
            c_protection: Optional[int] = None, drop_overload: Optional[bool] = None,
            ecn_mask: Optional[str] = None, mtu_bytes: Optional[int] = None, **extra: Any) -> Queue:
    """DualPI2, the DualQ Coupled AQM of RFC 9332 for L4S, as Linux's
    sch_dualpi2 (``kind = "dualpi2"``): packets whose ECN codepoint matches
    ``ecn_mask`` (``"l4s_ect"``: ECT(1) and CE; flows send ECT(1) with
    ``ecn=True, ect="ect1"``) go to the L queue, the rest to the C queue,
    in one buffer of ``limit_pkts`` (10000) or ``limit_bytes``. A PI
    controller (``alpha``, ``beta`` per update, Linux's 0.16 and 3.2 Hz)
    updates p' every ``tupdate_s`` (16 ms) from the larger head wait of the
    two queues against ``target_s`` (15 ms); at dequeue the C queue drops
    or CE-marks with p'^2, the L queue CE-marks with ``coupling_factor``
    x p' (k = 2) and above its step (``step_thresh_s``, 1 ms, or
    ``step_thresh_pkts``; ``min_qlen_step``); ``drop_overload`` drops L
    packets once k x p' > 1; a WRR gives the C queue ``c_protection``
    percent (10) under two backlogs; ``mtu_bytes`` (1500) sets the 2-MTU
    rule. ``None`` leaves the engine's default; other keys go into the
    table as given (docs/scenario.md, "DualPI2")."""
    return _aqm("dualpi2", limit_pkts, limit_bytes, {
        "target_s": target_s, "tupdate_s": tupdate_s, "alpha": alpha, "beta": beta,
        "step_thresh_s": step_thresh_s, "step_thresh_pkts": step_thresh_pkts, "min_qlen_step": min_qlen_step,
        "coupling_factor": coupling_factor, "c_protection": c_protection, "drop_overload": drop_overload,
        "ecn_mask": ecn_mask, "mtu_bytes": mtu_bytes, **extra})


def _queue(value: Any) -> Any:
    return Queue.from_dict(value) if isinstance(value, Mapping) else value


# --------------------------------------------------------------------------
# topologies
# --------------------------------------------------------------------------


@dataclass
class Dumbbell(_Table):
    """One bottleneck between two routers; each flow has its own edge links."""

    bottleneck_rate_bps: Optional[Number] = None
    bottleneck_queue: Optional[Queue] = None
    bottleneck_delay_s: Optional[Number] = None
    bottleneck_loss: Optional[Number] = None
    bottleneck_reverse_loss: Optional[Number] = None
    edge_rate_bps: Optional[Number] = None
    edge_delay_s: Optional[Number] = None
    edge_queue: Optional[Queue] = None
    kind: str = "dumbbell"
    extra: Dict[str, Any] = field(default_factory=dict)

    _nested: ClassVar[Dict[str, Any]] = {"bottleneck_queue": _queue, "edge_queue": _queue}


@dataclass
class ParkingLot(_Table):
    """A chain of ``n_links`` bottlenecks; flows choose ``hops``."""

    n_links: Optional[int] = None
    link_rate_bps: Optional[Number] = None
    link_queue: Optional[Queue] = None
    link_delay_s: Optional[Number] = None
    link_loss: Optional[Number] = None
    link_reverse_loss: Optional[Number] = None
    edge_rate_bps: Optional[Number] = None
    edge_delay_s: Optional[Number] = None
    edge_queue: Optional[Queue] = None
    kind: str = "parking_lot"
    extra: Dict[str, Any] = field(default_factory=dict)

    _nested: ClassVar[Dict[str, Any]] = {"link_queue": _queue, "edge_queue": _queue}


@dataclass
class Link(_Table):
    """A duplex link of a custom topology. ``from_`` is the schema's ``from``."""

    from_: Optional[str] = None
    to: Optional[str] = None
    rate_bps: Optional[Number] = None
    delay_s: Optional[Number] = None
    queue: Optional[Queue] = None
    loss: Optional[Number] = None
    reverse_loss: Optional[Number] = None
    reverse_queue: Optional[Queue] = None
    monitor: Optional[bool] = None
    extra: Dict[str, Any] = field(default_factory=dict)

    _renames: ClassVar[Dict[str, str]] = {"from_": "from"}
    _nested: ClassVar[Dict[str, Any]] = {"queue": _queue, "reverse_queue": _queue}


def _links(value: Any) -> Any:
    if isinstance(value, list):
        return [Link.from_dict(v) if isinstance(v, Mapping) else v for v in value]
    return value


@dataclass
class CustomTopology(_Table):
    """Arbitrary nodes and duplex links; flows give an explicit ``route``."""

    nodes: Optional[List[str]] = None
    links: Optional[List[Link]] = None
    kind: str = "custom"
    extra: Dict[str, Any] = field(default_factory=dict)

    _nested: ClassVar[Dict[str, Any]] = {"links": _links}


@dataclass
class Topology(_Table):
    """A topology kind this module has no class for (passed through as-is)."""

    kind: Optional[str] = None
    extra: Dict[str, Any] = field(default_factory=dict)


_TOPOLOGIES = {"dumbbell": Dumbbell, "parking_lot": ParkingLot, "custom": CustomTopology}
AnyTopology = Union[Dumbbell, ParkingLot, CustomTopology, Topology]


def _topology(value: Any) -> Any:
    if not isinstance(value, Mapping):
        return value
    kind = value.get("kind")
    cls = _TOPOLOGIES.get(kind, Topology) if isinstance(kind, str) else Topology
    return cls.from_dict(value)


# --------------------------------------------------------------------------
# flows
# --------------------------------------------------------------------------


@dataclass
class Flow(_Table):
    """One ``[[flows]]`` entry (``count`` identical flows). See docs/scenario.md."""

    count: Optional[int] = None
    transport: Optional[str] = None
    tcp_model: Optional[str] = None
    cc: Optional[str] = None
    cc_params: Optional[Dict[str, Any]] = None
    recovery: Optional[str] = None
    pacing: Optional[str] = None
    bucket_pkts: Optional[Number] = None
    mss_bytes: Optional[int] = None
    header_bytes: Optional[int] = None
    init_cwnd_pkts: Optional[Number] = None
    init_ssthresh_pkts: Optional[Number] = None
    rwnd_pkts: Optional[int] = None
    max_cwnd_pkts: Optional[Number] = None
    dupthresh: Optional[int] = None
    dupthresh_frac: Optional[int] = None
    limited_transmit: Optional[bool] = None
    prr: Optional[bool] = None
    abc_l: Optional[int] = None
    slow_start_after_idle: Optional[bool] = None
    reno_sack: Optional[bool] = None
    rack: Optional[bool] = None
    tlp: Optional[bool] = None
    rto_rack_mark: Optional[bool] = None
    dsack: Optional[bool] = None
    sack_compression: Optional[bool] = None
    ts_clock_phase_s: Optional[float] = None
    #: Linux's receiver: the application's wake-up before a read, seconds or
    #: quantiles (as ``host_delay_s``); none: it reads at each arrival
    read_delay_s: Optional[Union[Number, List[Number], Dict[str, List[Number]]]] = None
    undo: Optional[bool] = None
    frto: Optional[bool] = None
    timestamps: Optional[bool] = None
    tso_autosize: Optional[bool] = None
    sack_option: Optional[str] = None
    cwnd_limited: Optional[str] = None
    delayed_ack: Optional[bool] = None
    delack_model: Optional[str] = None
    delack_timeout_s: Optional[Number] = None
    min_rto_s: Optional[Number] = None
    max_rto_s: Optional[Number] = None
    init_rto_s: Optional[Number] = None
    clock_granularity_s: Optional[Number] = None
    rtt_estimator: Optional[str] = None
    halve_on_repeated_rto: Optional[bool] = None
    ns2_bugfix: Optional[bool] = None
    ns2_singledup: Optional[bool] = None
    ns2_idle_restart: Optional[bool] = None
    ns2_timed_backoff: Optional[bool] = None
    ns2_dupwnd: Optional[bool] = None
    ns2_boot_time_s: Optional[Number] = None
    ecn: Optional[bool] = None
    #: with ``ecn``: the data's codepoint, ``"ect0"`` (RFC 3168) or ``"ect1"``
    #: (the L4S identifier, RFC 9331: a ``dualpi2`` queue's L queue)
    ect: Optional[str] = None
    #: with ``ecn``: how the receiver feeds CE back, ``"rfc3168"``,
    #: ``"dctcp"`` (RFC 8257 §3.2) or ``"accecn"`` (RFC 9768)
    ecn_feedback: Optional[str] = None
    ecn_retransmit_ect: Optional[bool] = None
    ecn_response: Optional[str] = None
    gwa: Optional[bool] = None
    ba: Optional[bool] = None
    syn: Optional[str] = None
    send_jitter_s: Optional[Number] = None
    # TCP and UDP: the sending host's interface queue (Linux txqueuelen, packets)
    txqueuelen_pkts: Optional[int] = None
    # the sending host's delay before the wire: seconds, or its quantiles
    # at probabilities 0, 1/(n-1), ..., 1 (or {"probabilities": [...],
    # "quantiles_s": [...]} at others), drawn per packet (order kept)
    host_delay_s: Optional[Union[Number, List[Number], Dict[str, List[Number]]]] = None
    start_s: Optional[Number] = None
    start_spread_s: Optional[Number] = None
    stop_s: Optional[Number] = None
    bytes: Optional[int] = None
    # transport = "etcp" only (E-TCP; ``bytes`` and the RTO fields are shared)
    variant: Optional[str] = None
    b: Optional[Number] = None
    p0: Optional[Number] = None
    exp_pacing: Optional[bool] = None
    reliable: Optional[bool] = None
    init_w_pkts: Optional[Number] = None
    min_w_pkts: Optional[Number] = None
    rtx_timer: Optional[str] = None
    # transport = "udp" only: constant rate on the wire, optional on/off periods
    rate_bps: Optional[Number] = None
    on_s: Optional[Number] = None
    off_s: Optional[Number] = None
    # the application (``ccsim list applications``): e.g. app = "web" with
    # app_params = {"think_mean_s": 20, "size_factor": 60}; count = users
    app: Optional[str] = None
    app_params: Optional[Dict[str, Any]] = None
    rtt_s: Optional[Union[Number, List[Number]]] = None
    rtt_range_s: Optional[List[Number]] = None
    rtt_step_s: Optional[Number] = None
    direction: Optional[str] = None
    hops: Optional[List[int]] = None
    route: Optional[List[str]] = None
    extra: Dict[str, Any] = field(default_factory=dict)


def _flows(value: Any) -> Any:
    if isinstance(value, list):
        return [Flow.from_dict(v) if isinstance(v, Mapping) else v for v in value]
    return value


# --------------------------------------------------------------------------
# scenario
# --------------------------------------------------------------------------


@dataclass
class Scenario(_Table):
    """One simulation run: top-level settings, a topology and flows."""

    duration_s: Optional[Number] = None
    topology: Optional[AnyTopology] = None
    flows: List[Flow] = field(default_factory=list)
    name: Optional[str] = None
    seed: Optional[int] = None
    warmup_s: Optional[Number] = None
    sample_interval_s: Optional[Number] = None
    fairness_window_s: Optional[Number] = None
    #: ns-2's agent reset order as flow indices (docs/scenario.md)
    ns2_boot_order: Optional[List[int]] = None
    #: order tied events by ns-2's floating-point clock (docs/scenario.md)
    ns2_clock: Optional[bool] = None
    #: record every served packet's queueing delay on every link: the links'
    #: ``qdelay_*`` results and link-series columns (docs/scenario.md)
    qdelay: Optional[bool] = None
    extra: Dict[str, Any] = field(default_factory=dict)

    _nested: ClassVar[Dict[str, Any]] = {"topology": _topology, "flows": _flows}
    _key_order: ClassVar[Sequence[str]] = (
        "name", "seed", "duration_s", "warmup_s", "sample_interval_s", "fairness_window_s", "ns2_boot_order",
        "ns2_clock", "qdelay",
    )

    # -- serialisation ----------------------------------------------------

    def to_json(self, indent: Optional[int] = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def to_toml(self) -> str:
        return dumps_toml(self.to_dict())

    def save(self, path: Union[str, os.PathLike]) -> Path:
        """Write the scenario as TOML or JSON, chosen by the file suffix."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix == ".toml":
            text = self.to_toml()
        elif suffix == ".json":
            text = self.to_json() + "\n"
        else:
            raise UserError(f"{path}: unsupported scenario format {suffix!r}; use .toml or .json")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    # -- engine-backed helpers ------------------------------------------------

    def normalized(self) -> Dict[str, Any]:
        """The scenario with every default filled in, as the engine sees it.

        Raises :class:`UserError` naming the offending field if invalid.
        """
        return validate(self.to_dict())

    def validate(self) -> "Scenario":
        """Check the scenario with the engine; returns ``self`` for chaining."""
        self.normalized()
        return self

    # -- variations -----------------------------------------------------------

    def replace(self, overrides: Optional[Mapping[str, Any]] = None, **fields: Any) -> "Scenario":
        """A copy with changes: top-level ``fields`` by keyword, and
        ``overrides`` keyed by dotted path (``"flows.0.cc"``), as sweeps use.
        """
        d = self.to_dict()
        d.update({k: _plain(v) for k, v in fields.items()})
        if overrides:
            d = with_overrides(d, overrides)
        return Scenario.from_dict(d)


def dumps_toml(d: Mapping[str, Any]) -> str:
    """TOML text for a scenario dict, laid out for editing by hand.

    Tables become ``[section]`` and lists of tables ``[[flows]]`` sections
    (tomli_w alone writes short ones inline, ``flows = [{...}]``, which is
    valid but awkward to edit); leaf values are formatted by tomli_w so
    quoting and float syntax stay its responsibility.
    """
    lines: List[str] = []
    _emit_table(_toml_ready(dict(d)), [], lines)
    return "\n".join(lines).lstrip("\n") + "\n"


def _is_aot(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, Mapping) for x in v)


def _toml_key(k: str) -> str:
    return k if k and all(c.isalnum() or c in "_-" for c in k) and k.isascii() else json.dumps(k)


def _toml_value(v: Any) -> str:
    """Inline TOML for a value (one line: ``[0.05, 0.1]``, ``{ a = 1 }``)."""
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        if not v:
            return "{}"
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    import tomli_w

    return tomli_w.dumps({"v": v}).strip()[len("v = "):]


def _emit_table(table: Mapping[str, Any], path: List[str], lines: List[str]) -> None:
    subtables = []
    for k, v in table.items():
        if isinstance(v, Mapping) or _is_aot(v):
            subtables.append((k, v))
        else:
            lines.append(f"{_toml_key(k)} = {_toml_value(v)}")
    for k, v in subtables:
        sub = path + [_toml_key(k)]
        if isinstance(v, Mapping):
            lines += ["", f"[{'.'.join(sub)}]"]
            _emit_table(v, sub, lines)
        else:
            for item in v:
                lines += ["", f"[[{'.'.join(sub)}]]"]
                _emit_table(item, sub, lines)


def _toml_ready(value: Any) -> Any:
    """TOML has no null; ``to_dict`` already drops ``None`` from tables, this
    also drops it from nested dicts in ``extra``/``cc_params``."""
    if isinstance(value, dict):
        return {k: _toml_ready(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_toml_ready(v) for v in value]
    return value


# --------------------------------------------------------------------------
# loading and dotted overrides
# --------------------------------------------------------------------------


def read_scenario_dict(path: Union[str, os.PathLike]) -> Dict[str, Any]:
    """Parse a .toml or .json scenario file into a plain dict.

    File and syntax problems become :class:`UserError` carrying the path,
    so the CLI can report them without a traceback.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".json"):
        raise UserError(f"{path}: unsupported scenario format {suffix or '(none)'!r}; use .toml or .json")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[: exc.start].count(b"\n") + 1
        raise UserError(
            f"{path}: line {line}: byte 0x{exc.object[exc.start]:02x} is not UTF-8; "
            "scenario files must be UTF-8 text (TOML and JSON both require it)"
        ) from None
    except OSError as exc:
        raise UserError(f"{path}: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(text) if suffix == ".toml" else json.loads(text, object_pairs_hook=_Pairs)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"{path}: invalid {suffix[1:].upper()}: {_duplicate_hint(exc, text)}") from None
    except RecursionError:
        # the parsers recurse per level (tomllib fails near 500, json near 1000)
        raise UserError(_too_deep(path, text)) from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: a scenario must be a table/object at the top level")
    dup = _first_duplicate(data, "")
    if dup:
        raise UserError(f"{path}: scenario.{dup}: this key appears more than once; give each key once")
    data = _as_dicts(data)
    try:
        check_values(data)
    except UserError as exc:
        # a date or a too-deep list names its field; say which file holds it
        raise UserError(f"{path}: {exc}") from None
    return data


class _Pairs(dict):
    """A JSON object that remembers its repeated keys. RFC 8259 §4 leaves a
    repeated name to the parser and Python's keeps the last value, so a
    scenario with ``"cc"`` twice would silently run with one of them."""

    def __init__(self, pairs: List[Tuple[str, Any]]):
        super().__init__(pairs)
        self.repeated = [k for i, (k, _) in enumerate(pairs) if any(k == q for q, _ in pairs[:i])]


def _first_duplicate(v: Any, path: str) -> Optional[str]:
    """The field path of the first repeated key in a parsed JSON document."""
    if isinstance(v, _Pairs) and v.repeated:
        return _join(path, v.repeated[0])
    if isinstance(v, dict):
        for k, x in v.items():
            found = _first_duplicate(x, _join(path, k))
            if found:
                return found
    if isinstance(v, list):
        for i, x in enumerate(v):
            found = _first_duplicate(x, f"{path}[{i}]")
            if found:
                return found
    return None


def _join(path: str, key: str) -> str:
    """``path.key``, or ``key`` at the top level."""
    return f"{path}.{key}" if path else key


def _as_dicts(v: Any) -> Any:
    """The document with plain dicts (the engine and the cache key see the
    same types whatever parser read the file)."""
    if isinstance(v, dict):
        return {k: _as_dicts(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_as_dicts(x) for x in v]
    return v


def _duplicate_hint(exc: Exception, text: str) -> str:
    """tomllib's message for a key written twice says "Cannot overwrite a
    value" with a line and column; name the key too."""
    msg = str(exc)
    at = re.search(r"at line (\d+)", msg)
    lines = text.splitlines()
    if "overwrite" in msg and at and 0 < int(at.group(1)) <= len(lines):
        key = lines[int(at.group(1)) - 1].split("=", 1)[0].strip().strip("[]").strip()
        if key:
            return f"key {key!r} is given more than once ({msg})"
    return msg


def _too_deep(path: Path, text: str) -> str:
    """The message for a file nested too deeply to parse: the line and the
    key where lists/tables pass :data:`MAX_DEPTH` levels (a rough scan that
    skips quoted strings and comments; the parser failed, so no field path
    exists)."""
    depth, line, quote, i, key = 0, 1, "", 0, ""
    while i < len(text):
        c = text[i]
        if c == "\n":
            line += 1
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c == "#" and path.suffix.lower() == ".toml":
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        elif c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                if path.suffix.lower() == ".json":
                    keys = re.findall(r'"((?:[^"\\]|\\.)*)"\s*:', text[:i])
                    head = keys[-1] if keys else ""
                else:
                    m = re.match(r"\s*([^=\[{]+?)\s*=", text[text.rfind("\n", 0, i) + 1 : i])
                    head = m.group(1) if m else ""
                key = f" (in {head})" if head else ""
                break
        elif c in "]}":
            depth -= 1
        i += 1
    return (f"{path}: line {line}{key}: lists/tables nested more than {MAX_DEPTH} levels deep "
            "are not allowed; no scenario field nests more than a few levels")


def load_scenario(path: Union[str, os.PathLike]) -> Scenario:
    """Load a scenario from a .toml or .json file (not validated yet)."""
    return Scenario.from_dict(read_scenario_dict(path))


def as_scenario_dict(scenario: Union[Scenario, Mapping[str, Any], str, os.PathLike]) -> Dict[str, Any]:
    """Accept a Scenario, a plain dict or a file path; return a plain dict."""
    if isinstance(scenario, Scenario):
        return scenario.to_dict()
    if isinstance(scenario, Mapping):
        check_values(dict(scenario))  # before _plain recurses through it
        return _plain(dict(scenario))
    if isinstance(scenario, (str, os.PathLike)):
        return read_scenario_dict(scenario)
    raise TypeError(f"expected a Scenario, a dict or a path, got {type(scenario).__name__}")


def _split_path(path: str) -> List[str]:
    parts = path.split(".")
    if not path or any(p == "" for p in parts):
        raise UserError(f"bad override path {path!r}: expected dotted keys like 'flows.0.cc'")
    return parts


def _set(node: Any, parts: Sequence[str], value: Any, full: str) -> None:
    head, rest = parts[0], parts[1:]
    if isinstance(node, list):
        if head == "*":
            indices = range(len(node))
        else:
            try:
                idx = int(head)
            except ValueError:
                raise UserError(f"override {full!r}: {head!r} must be a list index or '*'") from None
            if not -len(node) <= idx < len(node):
                raise UserError(f"override {full!r}: index {idx} out of range (list has {len(node)} items)")
            indices = [idx]
        for i in indices:
            if rest:
                _set(node[i], rest, value, full)
            else:
                node[i] = copy.deepcopy(value)
        return
    if isinstance(node, dict):
        if not rest:
            node[head] = copy.deepcopy(value)
            return
        child = node.get(head)
        if child is None:
            # Fields left to their engine default are absent; create the table.
            child = node[head] = {}
        _set(child, rest, value, full)
        return
    raise UserError(f"override {full!r}: cannot descend into {type(node).__name__} at {head!r}")


def with_overrides(d: Mapping[str, Any], overrides: Mapping[str, Any]) -> Dict[str, Any]:
    """Return a deep copy of scenario dict ``d`` with dotted-path overrides.

    ``{"topology.bottleneck_rate_bps": 1e8, "flows.0.cc": "reno",
    "flows.*.rtt_s": 0.05}``: integers index lists, ``*`` means every
    element. Missing tables are created (their fields were defaults).
    """
    out = copy.deepcopy(dict(d))
    for path, value in overrides.items():
        _set(out, _split_path(path), _plain(value), path)
    return out
