"""Random researcher-style scenarios and the invariants a correct TCP keeps.

:func:`scenario` draws the kind of small experiment a researcher writes by
hand (any controller, recovery, ECN, queue, pacing, delayed ACKs, initial
window, RTT mix, staggered starts, finite transfers, two-way traffic,
parking lots) as a plain dict that ``ccsim.run`` and ``ccsim run FILE``
accept. :func:`check` holds a run's results to invariants that no correct
TCP breaks whatever the configuration, so a violation is an engine bug,
not a tuning question. ``tests/test_invariants.py`` runs a few hundred
cases in CI; ``ccsim fuzz`` runs as many as asked (docs/reliability.md,
"Invariants over random scenarios").

Scenario ``index`` of ``seed`` is a pure function of the two numbers (and
of this module), so a failure is reproduced by ``scenario(seed, index)`` or
by the JSON file ``ccsim fuzz`` writes for it.
"""

from __future__ import annotations

import json
import random
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from ._native import UserError, core, validate
from .results import Results

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = [
    "INVARIANTS",
    "Case",
    "Violation",
    "cases",
    "check",
    "command",
    "is_homogeneous",
    "needs_trace",
    "read_trace",
    "run_case",
    "scenario",
    "tally",
    "write_case",
]

#: The recoveries drawn from (every one the engine registers:
#: tests/test_invariants.py checks).
RECOVERIES = ("reno", "newreno", "sack", "sack1")


def controllers() -> Tuple[str, ...]:
    """The controllers drawn by default: every built-in that runs on a
    plain TCP path (not those that need a router stage on it, XCP), in the
    engine's catalog order. Read from the built-ins only, so a scenario's
    draw does not move when a Python controller is registered."""
    return tuple(e["name"] for e in _catalog()["controllers"]
                 if e["origin"] == "built-in" and e["path_stage"] is None)


def _needs(cc: str) -> Dict[str, Any]:
    """What controller ``cc`` declares it needs (``pacing_rate``, ``ecn``,
    ``path_stage``); a ``"module:Class"`` name is resolved (registered) first."""
    for e in _catalog()["controllers"]:
        if e["name"] == cc:
            return e
    if cc in {e["name"] for e in json.loads(core().catalog())["controllers"]} or ":" in cc:
        # registered or resolvable since the catalog was read
        _resolve_controller(cc)
        _catalog.cache_clear()
        for e in _catalog()["controllers"]:
            if e["name"] == cc:
                return e
    raise UserError(f"--cc: unknown controller {cc!r}; allowed: {', '.join(e['name'] for e in _catalog()['controllers'])} "
                    "or a Python class as \"module:Class\"")


def _resolve_controller(cc: str) -> None:
    """Have the engine resolve ``cc`` (a ``"module:Class"`` name) by
    validating a one-flow scenario that names it."""
    sc = {"duration_s": 1.0, "flows": [{"cc": cc}],
          "topology": {"kind": "dumbbell", "bottleneck_rate_bps": 1e7,
                       "bottleneck_queue": {"kind": "droptail", "limit_pkts": 10}}}
    try:
        core().validate(json.dumps(sc))
    except ValueError as exc:
        raise UserError(f"--cc: {exc}") from None


#: Invariant names, in the order :func:`check` reports them. ``rejected``
#: and ``crashed`` are not properties of TCP: the engine refused a scenario
#: the generator believes valid, or failed while running it.
INVARIANTS = ("cwnd_stall", "spurious_retransmit", "conservation", "fair_share", "ece_echo", "rejected", "crashed")

#: The share of the fair share below which a flow of a homogeneous scenario
#: is starved.
FAIR_SHARE_FLOOR = 0.02

#: A stall at cwnd <= 1 is "long" beyond this many RTTs, and beyond
#: ``STALL_MIN_S`` seconds.
STALL_RTTS = 20
STALL_MIN_S = 2.0


# --------------------------------------------------------------------------
# the generator
# --------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _catalog() -> Dict[str, Any]:
    return json.loads(core().catalog())


def _red_params() -> set:
    return {p["name"] for e in _catalog()["queues"] if e["name"] == "red" for p in e["params"]}


def _red(rng: random.Random, limit: int, ecn: bool) -> Dict[str, Any]:
    """A RED table with thresholds in packets, spelled as the engine names
    the packet unit (``min_th_pkts`` where it exists, else ``min_th`` with
    ``bytes = false``)."""
    # w_q as researchers set it (Floyd's 0.002 and around): ns-2's automatic
    # weight at these rates averages over seconds, so in a run of a few
    # seconds RED would never leave drop-tail behaviour.
    q: Dict[str, Any] = {"kind": "red", "limit_pkts": limit, "ecn": ecn, "gentle": rng.random() < 0.7,
                         "w_q": rng.choice((0.001, 0.002, 0.005, 0.02))}
    params = _red_params()
    if rng.random() < 0.8:
        lo = max(1, round(limit * rng.uniform(0.05, 0.3)))
        hi = max(lo + 1, min(limit, round(lo * rng.uniform(2.0, 4.0))))
        if "min_th_pkts" in params:
            q.update(min_th_pkts=lo, max_th_pkts=hi)
        else:
            q.update(min_th=lo, max_th=hi)
    if "bytes" in params:
        q["bytes"] = False
    return q


#: The queue kinds drawn, and those of them that can CE-mark (with ``ecn``;
#: DualPI2, which has no such switch, always marks ECN-capable packets).
QUEUES = ("droptail", "red", "drr", "codel", "pie", "fq_codel", "dualpi2")
AQMS = ("codel", "pie", "fq_codel", "dualpi2")
MARKING_QUEUES = ("red",) + AQMS
#: Kinds that serve their packets from several queues (per flow, or
#: DualPI2's L and C queues): a packet can wait longer than the largest
#: backlog takes to send (later arrivals of another queue go first), so
#: the ECE invariant measures their waits.
NON_FIFO_QUEUES = ("drr", "fq_codel", "dualpi2")


def _aqm(rng: random.Random, kind: str, limit: int, ecn: bool) -> Dict[str, Any]:
    """A CoDel (RFC 8289), PIE (RFC 8033), FQ-CoDel (RFC 8290) or DualPI2
    (RFC 9332) table as researchers set them: CoDel's target 1 to 20 ms
    and interval 50 to 200 ms (RFC 8289 §4.3-4.4: target 5 to 10% of an
    interval of the order of the RTTs), PIE's target 5 to 30 ms with its
    update every 15 or 30 ms, de-randomised or not, either delay
    estimator; FQ-CoDel with the default 1024 hashed queues or one per
    flow, at its default CoDel or a drawn one; DualPI2 (:func:`_dualpi2`).
    ``ecn`` is always written (FQ-CoDel's default is on) but for DualPI2,
    which has no such switch."""
    if kind == "dualpi2":
        return _dualpi2(rng, limit)
    q: Dict[str, Any] = {"kind": kind, "limit_pkts": limit, "ecn": ecn}
    codel = kind == "codel" or (kind == "fq_codel" and rng.random() < 0.5)
    if codel:
        q["target_s"] = round(rng.uniform(0.001, 0.02), 4)
        q["interval_s"] = round(rng.uniform(0.05, 0.2), 3)
    if kind == "fq_codel" and rng.random() < 0.5:
        q["exact_flows"] = True
    if kind == "pie":
        q.update(target_s=round(rng.uniform(0.005, 0.03), 4), tupdate_s=rng.choice((0.015, 0.03)),
                 derandomize=rng.random() < 0.7, estimator=rng.choice(("timestamp", "dequeue_rate")))
    return q


def _dualpi2(rng: random.Random, limit: int) -> Dict[str, Any]:
    """A DualPI2 table: Linux's defaults half the time; otherwise a target
    of 5 to 30 ms with its update every 16 or 32 ms, the L queue's step at
    0.5 to 5 ms (or 2 to 10 packets), k of 1, 2 or 4, a C weight of 5 to
    50%, drop on overload or not, and the classifier's mask (mostly
    ECT(1) and CE, RFC 9331's)."""
    q: Dict[str, Any] = {"kind": "dualpi2", "limit_pkts": limit}
    if rng.random() < 0.5:
        return q
    q.update(target_s=round(rng.uniform(0.005, 0.03), 4), tupdate_s=rng.choice((0.016, 0.032)),
             coupling_factor=rng.choice((1, 2, 4)), c_protection=rng.choice((5, 10, 25, 50)),
             drop_overload=rng.random() < 0.7, ecn_mask=rng.choice(("l4s_ect",) * 4 + ("cla_ect", "any_ect")))
    if rng.random() < 0.3:
        q["step_thresh_pkts"] = rng.randint(2, 10)
    else:
        q["step_thresh_s"] = round(rng.uniform(0.0005, 0.005), 4)
    return q


def _queue(rng: random.Random, limit: int, any_ecn: bool) -> Dict[str, Any]:
    kind = rng.choice(QUEUES)
    # A marking queue marks only with ecn on; with ECN flows it mostly is.
    ecn = rng.random() < (0.85 if any_ecn else 0.3)
    if kind == "red":
        return _red(rng, limit, ecn)
    if kind in AQMS:
        return _aqm(rng, kind, limit, ecn)
    return {"kind": kind, "limit_pkts": limit}


def _tcp(rng: random.Random, ecn: Optional[bool] = None, ccs: Optional[Sequence[str]] = None) -> Dict[str, Any]:
    """One flow entry's TCP settings (``ecn`` forced when given), its
    controller drawn from ``ccs`` (default :func:`controllers`). Sack1
    (ns-2's agent) takes neither ECN nor pacing, so those two are drawn only
    for the other recoveries; what a controller declares it needs decides
    the rest: an ECN scheme (DCTCP, Prague) always has ECN, with the
    feedback it requires (Prague's AccECN), and RFC 6675 where Sack1 was
    drawn; a rate-paced controller (BBR v1 and v3, Prague) paces at its own
    rate and runs RFC 6675 where Sack1 was drawn; another ECN flow draws
    AccECN a third of the time; a window-based RFC 6675 flow draws PRR
    (RFC 9937) half the time and a cwnd-usage rule (``cwnd_limited``); an
    RFC 6675 flow draws the ACKs' SACK-option bytes (``sack_option``); a
    flow other than Sack1 is Linux's TCP (``tcp_model = "linux"``) 30% of
    the time."""
    rec = rng.choice([r for r in RECOVERIES if r != "sack1"] if ecn else RECOVERIES)
    flow: Dict[str, Any] = {
        "transport": "tcp",
        "cc": rng.choice(tuple(ccs) if ccs else controllers()),
        "recovery": rec,
        "delayed_ack": rng.random() < 0.5,
        "init_cwnd_pkts": rng.choice((2, 10)),
    }
    needs = _needs(flow["cc"])
    needs_ecn = needs["ecn"] or {}
    rate_paced, ecn_scheme = needs["pacing_rate"], bool(needs_ecn.get("required"))
    if flow["delayed_ack"]:
        flow["delack_model"] = rng.choice(("fixed", "linux"))
    if (ecn_scheme or rate_paced) and rec == "sack1":
        # an ECN scheme needs ECN and Sack1 takes none; a rate-paced
        # controller sets its own window around the RFC recovery: RFC 6675
        flow["recovery"] = rec = "sack"
    if rec != "sack1":
        flow["ecn"] = rng.random() < 0.5 if ecn is None else ecn
        flow["pacing"] = rng.choice(("none", "interval", "token_bucket", "rate"))
        if flow["pacing"] == "token_bucket":
            flow["bucket_pkts"] = rng.choice((1, 2, 4))
    if rate_paced:
        flow["pacing"] = "rate"  # they pace at the rate they set
        flow.pop("bucket_pkts", None)
    if ecn_scheme:
        flow["ecn"] = True
    # a DCTCP-style scheme (ECN required, per-segment echo) draws L4S's
    # codepoint (RFC 9331) more often: DualPI2 puts these in its L queue
    dctcp_like = ecn_scheme and needs_ecn.get("feedback") == "dctcp"
    if flow.get("ecn") and rng.random() < (0.6 if dctcp_like else 0.3):
        flow["ect"] = "ect1"
    if needs_ecn.get("feedback_required"):
        flow["ecn_feedback"] = needs_ecn["feedback"]  # an L4S sender needs it (RFC 9331 §4.2)
    elif flow.get("ecn") and rng.random() < 1 / 3:
        flow["ecn_feedback"] = "accecn"  # RFC 9768 with any controller
    if flow["recovery"] == "sack" and not rate_paced:
        flow["prr"] = rng.random() < 0.5  # RFC 9937 (window controllers only)
        flow["cwnd_limited"] = rng.choice(("off", "linux", "ns3"))
    if flow["recovery"] == "sack":
        flow["sack_option"] = rng.choice(("none", "ns3", "linux"))
    if flow["recovery"] != "sack1" and rng.random() < 0.3:
        # Linux's TCP: RACK-TLP and its RTO marking with SACK, its RTO
        # estimator, segment counting; what was drawn above still wins
        flow["tcp_model"] = "linux"
    return flow


def _bdp_pkts(rate_bps: float, rtt_s: float, pkt_bytes: int = 1040) -> float:
    return rate_bps * rtt_s / (8 * pkt_bytes)


def _settle_s(rate_bps: float, rtt_s: float, limit_pkts: int, flows: int, pkt_bytes: int) -> float:
    """How long a flow takes to move by its fair window (its share of the
    path's BDP and buffer) at one packet per RTT: the additive time scale
    on which every controller here converges at low windows (Reno's and
    its Reno-friendly regions' increase, Vegas's +-1 per RTT). Shorter runs
    can leave identical flows apart for reasons no bug explains: Vegas
    flows that overshot in slow start drain a standing queue of hundreds
    of packets one packet per RTT, and a late flow waits for them."""
    return (_bdp_pkts(rate_bps, rtt_s, pkt_bytes) + limit_pkts) / flows * rtt_s


def _homogeneous(rng: random.Random, seed: int, index: int, ccs: Optional[Sequence[str]] = None) -> Dict[str, Any]:
    """A scenario :func:`is_homogeneous` accepts, so the fair-share
    invariant is exercised on a good share of the cases: a rate at which a
    flow can open its fair window within 14 s (:func:`_settle_s`)."""
    rtt = round(rng.uniform(0.01, 0.1), 3)
    delay = round(rng.uniform(0.001, rtt / 2 - 0.002), 4)
    count = rng.randint(2, 8)
    factor = rng.choice((0.25, 0.5, 1.0, 2.0))
    fits = []
    for rate in (10e6, 20e6, 50e6, 100e6):
        limit = max(20, round(_bdp_pkts(rate, rtt) * factor))
        if _settle_s(rate, rtt, limit, count, 1040) <= 14.0:
            fits.append((rate, limit))
    rate, limit = rng.choice(fits) if fits else (10e6, 20)
    settle = max(5.0, 40 * rtt, _settle_s(rate, rtt, limit, count, 1040))
    flow = _tcp(rng, ccs=ccs)
    flow.update(count=count, rtt_s=rtt, start_s=0.0, start_spread_s=round(rng.uniform(0, 1), 3))
    return {
        "name": f"fuzz-{seed}-{index}",
        "seed": rng.randrange(1, 2**31),
        "duration_s": round(max(rng.uniform(6, 15), settle + 2.0), 2),
        "topology": {
            "kind": "dumbbell",
            "bottleneck_rate_bps": rate,
            "bottleneck_delay_s": delay,
            "bottleneck_queue": _queue(rng, limit, bool(flow.get("ecn"))),
        },
        "flows": [flow],
    }


def _mixed(rng: random.Random, seed: int, index: int, ecn: bool = False,
           ccs: Optional[Sequence[str]] = None) -> Dict[str, Any]:
    """Anything goes: several entries, each with its own TCP, RTT, start,
    size and direction, on a dumbbell or a parking lot. ``ecn``: every flow
    ECN-capable behind a marking queue with ECN on (RED half the time, with
    a physical buffer well above ``max_th``; else CoDel, PIE, FQ-CoDel or
    DualPI2 with a buffer 2 to 100 times the drawn limit), so that marks rather
    than drops carry the congestion signal and many runs drop nothing (the
    no-spurious-retransmission invariant needs such runs)."""
    parking = rng.random() < 0.3
    n_links = rng.randint(2, 3) if parking else 1
    rate = rng.choice((10e6, 20e6, 50e6, 100e6))
    delay = round(rng.uniform(0.001, 0.02), 4)
    duration = round(rng.uniform(3, 15), 2)
    entries = [_tcp(rng, True if ecn else None, ccs) for _ in range(rng.randint(1, 4))]
    any_ecn = any(e.get("ecn") for e in entries)
    rtt_mix = rng.choice(("one", "per_entry", "list", "range"))
    common_rtt = round(rng.uniform(0.01, 0.2), 3)
    total = 0
    for e in entries:
        count = rng.randint(1, max(1, min(4, 8 - total)))
        total += count
        e["count"] = count
        if parking:
            first = rng.randrange(n_links)
            e["hops"] = [first, rng.randrange(first, n_links)]
        hops = e["hops"][1] - e["hops"][0] + 1 if parking else 1
        floor = 2 * hops * delay + 0.002  # the builder needs the path's own delay
        if rtt_mix == "one":
            rtt: Any = max(common_rtt, round(floor + 0.001, 4))
        elif rtt_mix == "per_entry" or (rtt_mix == "list" and count == 1):
            rtt = round(rng.uniform(floor, floor + 0.2), 4)
        elif rtt_mix == "list":
            rtt = [round(rng.uniform(floor, floor + 0.2), 4) for _ in range(count)]
        else:
            lo = round(rng.uniform(floor, floor + 0.1), 4)
            e["rtt_range_s"] = [lo, round(lo + rng.uniform(0.001, 0.15), 4)]
            rtt = None
        if rtt is not None:
            e["rtt_s"] = rtt
        if rng.random() < 0.4:
            e["start_s"] = round(rng.uniform(0, duration / 2), 3)
        if count > 1 and rng.random() < 0.4:
            e["start_spread_s"] = round(rng.uniform(0, duration / 3), 3)
        if rng.random() < 0.3:
            e["bytes"] = rng.choice((15_000, 100_000, 500_000, 2_000_000, 8_000_000))
        if rng.random() < 0.3:
            e["direction"] = "reverse"
    limit = rng.choice((5, 10, 20, 50, 100, 200, max(5, round(_bdp_pkts(rate, common_rtt)))))
    if ecn and rng.random() < 0.5:
        queue = _red(rng, limit, True)
        queue["limit_pkts"] = limit * rng.choice((2, 10, 100))
        # Marks above max_th too (the GWA paper's routers), so that only the
        # physical buffer drops ECN-capable packets.
        queue["ecn_mark_above_max"] = rng.random() < 0.5
    elif ecn:
        # CoDel and FQ-CoDel mark an ECN-capable packet wherever they would
        # drop it, PIE while p <= 10%, DualPI2 until k*p' > 1 (with
        # drop_overload): mostly the buffer drops them.
        queue = _aqm(rng, rng.choice(AQMS), limit * rng.choice((2, 10, 100)), True)
    else:
        queue = _queue(rng, limit, any_ecn)
    if parking:
        topo: Dict[str, Any] = {"kind": "parking_lot", "n_links": n_links, "link_rate_bps": rate,
                                "link_delay_s": delay, "link_queue": queue}
        loss_keys = ("link_loss", "link_reverse_loss")
    else:
        topo = {"kind": "dumbbell", "bottleneck_rate_bps": rate, "bottleneck_delay_s": delay,
                "bottleneck_queue": queue}
        loss_keys = ("bottleneck_loss", "bottleneck_reverse_loss")
    if rng.random() < 0.1:
        topo[rng.choice(loss_keys)] = rng.choice((1e-4, 1e-3, 1e-2))
    return {
        "name": f"fuzz-{seed}-{index}",
        "seed": rng.randrange(1, 2**31),
        "duration_s": duration,
        "topology": topo,
        "flows": entries,
    }


def scenario(seed: int, index: int, ccs: Optional[Sequence[str]] = None) -> Dict[str, Any]:
    """Scenario ``index`` of ``seed``: a dict for ``ccsim.run``. A quarter
    are homogeneous (one TCP, one RTT, long-lived flows on a dumbbell), 30%
    all-ECN behind a marking RED or AQM, the rest mix everything. The TCP
    flows' controllers are drawn from ``ccs`` (default :func:`controllers`;
    a Python controller's name, registered or ``"module:Class"``, works as
    a built-in's)."""
    rng = random.Random(seed * 2**32 + index)
    kind = rng.random()
    sc = _homogeneous(rng, seed, index, ccs) if kind < 0.25 else _mixed(rng, seed, index, ecn=kind < 0.55, ccs=ccs)
    if index % 2:
        # every other scenario records queueing delays (drawing nothing, so
        # the scenarios are those of before; recording changes no other
        # result) for the qdelay invariant
        sc["qdelay"] = True
    # about one in six has hosts that take time to put a packet on the wire
    # (``host_delay_s``: up to 0.2 ms, one value or quantiles), drawn from
    # a stream of its own so that the rest of the scenario is as before
    hosts = random.Random(f"host-{seed}-{index}")
    if hosts.random() < 1 / 6:
        q = _delay(hosts, 2e-4)
        for e in sc["flows"]:
            e["host_delay_s"] = q
    # about one in four Linux receivers has an application that reads some
    # time after the data arrives (``read_delay_s``: up to 2 ms, one value
    # or quantiles), from a stream of its own as well
    reads = random.Random(f"reads-{seed}-{index}")
    for e in sc["flows"]:
        if e.get("delayed_ack") and e.get("delack_model") == "linux" and reads.random() < 1 / 4:
            e["read_delay_s"] = _delay(reads, 2e-3)
    return sc


def _delay(rng: random.Random, most: float) -> Any:
    """A delay of up to ``most`` seconds as a scenario gives one: a value,
    quantiles at equal steps, or (half of those of three or more, drawn
    after the values) quantiles at probabilities of their own."""
    q = sorted(round(rng.uniform(0, most), 7) for _ in range(rng.randint(1, 5)))
    if len(q) == 1:
        return q[0]
    if len(q) > 2 and rng.random() < 0.5:
        inner = sorted({round(rng.uniform(0.001, 0.999), 6) for _ in range(len(q) - 2)})
        if len(inner) == len(q) - 2:
            return {"probabilities": [0.0, *inner, 1.0], "quantiles_s": q}
    return q


# --------------------------------------------------------------------------
# the invariants
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Violation:
    invariant: str
    detail: str
    flow: Optional[int] = None

    def __str__(self) -> str:
        where = f"flow {self.flow}: " if self.flow is not None else ""
        return f"{self.invariant}: {where}{self.detail}"


def _flow_label(flow: Mapping[str, Any], entry: Mapping[str, Any], queue: str) -> str:
    """What a researcher needs to place a failing flow: its TCP and the
    bottleneck's queue."""
    ecn = ("ecn+ect1" if entry.get("ect") == "ect1" else "ecn") if entry.get("ecn") else "no-ecn"
    return (f"{flow.get('cc')}/{flow.get('recovery')}/{ecn}/pacing={flow.get('pacing')}"
            f"/delack={entry.get('delack_model') if entry.get('delayed_ack') else False}"
            f"/iw={entry.get('init_cwnd_pkts')} over {queue}")


def _bottleneck_queue(sc: Mapping[str, Any]) -> Dict[str, Any]:
    topo = sc["topology"]
    return topo.get("bottleneck_queue") or topo.get("link_queue") or {}


def _marks(q: Mapping[str, Any]) -> bool:
    """Whether queue table ``q`` CE-marks: a marking kind with ``ecn`` on,
    as written or by the engine's default (FQ-CoDel's is on; a normalised
    scenario leaves a queue's own defaults out), or one without that
    switch (DualPI2 marks every ECN-capable packet it signals)."""
    kind = q.get("kind", "droptail")
    if kind not in MARKING_QUEUES:
        return False
    if "ecn" in q:
        return bool(q["ecn"])
    ecn = [bool(p["default"]) for e in _catalog()["queues"] if e["name"] == kind
           for p in e["params"] if p["name"] == "ecn"]
    return any(ecn) or not ecn


def _queue_label(sc: Mapping[str, Any]) -> str:
    """The bottleneck's discipline as ``kind[+ecn](limit)``, with the AQM
    parameters a reader needs to place a failure."""
    q = _bottleneck_queue(sc)
    kind = q.get("kind", "droptail")
    extra = ""
    if kind in AQMS:
        keys = ("target_s", "interval_s", "tupdate_s", "derandomize", "estimator", "exact_flows", "step_thresh_s",
                "step_thresh_pkts", "coupling_factor", "c_protection", "drop_overload", "ecn_mask")
        shown = [f"{k}={q[k]}" for k in keys if k in q]
        extra = f"[{', '.join(shown)}]" if shown else ""
    return f"{kind}{'+ecn' if _marks(q) else ''}({q.get('limit_pkts', q.get('limit_bytes'))}){extra}"


def _configured_loss(sc: Mapping[str, Any]) -> bool:
    """Any random loss the scenario asks for, on any link or queue."""
    topo = sc["topology"]
    if any(float(v or 0) > 0 for k, v in topo.items() if k.endswith("loss")):
        return True
    for link in topo.get("links", []) or []:
        if float(link.get("loss", 0) or 0) > 0 or float(link.get("reverse_loss", 0) or 0) > 0:
            return True
    text = json.dumps(topo)
    return '"drop_list"' in text or '"random_loss"' in text


def _backoff_span(timeouts: int, base_rto: float, max_rto: float) -> float:
    """The longest time ``timeouts`` expiries can hold a window at one
    segment: after the i-th expiry (i = 1..k) the sender waits one backed-off
    RTO, base * 2**i capped at ``max_rto``, before the next expiry or the
    ACK that reopens the window."""
    return sum(min(max_rto, base_rto * 2**i) for i in range(1, timeouts + 1))


def check_cwnd_stall(sc: Mapping[str, Any], res: Results) -> List[Violation]:
    """No flow sits at cwnd <= 1 for long without the timeouts that explain it.

    Outside a retransmission timeout a window of loss recovery is at least
    two segments (RFC 5681 floors ssthresh at 2), so a window of one lasts
    only while the backed-off retransmission timer runs. Long means more
    than max(20 RTTs, 2 s) of sampled time, and more than the timer's
    backoff over the flow's timeouts can account for (:func:`_backoff_span`,
    on an RTO bounded above by max(init RTO, min RTO, G + 5 x the largest
    smoothed RTT the flow showed)).

    ECN is the exception: RFC 3168 §6.1.2 lets an ECN-Echo hold the window
    at one segment (the sender then waits for the timer before the next
    new segment), and a queue that marks every packet (RED above
    ``max_th`` with ECN) echoes one on every ACK, so an ECN-capable flow may
    sit at one segment for as long as the marking lasts. Such a stall is
    allowed when the flow's ECE ACKs could have held it: at least one per
    largest smoothed RTT over the stalled time beyond the allowance (at
    one segment a flow sees about one ACK per RTT).
    """
    fs = res.flow_series
    if fs.empty or "cwnd" not in fs:
        return []
    dt = float(sc.get("sample_interval_s", 0.1))
    entries = sc["flows"]
    out = []
    flows = res.flows
    for _, f in flows.iterrows():
        if f.get("transport", "tcp") != "tcp":
            continue
        rows = fs[fs["flow"] == f["id"]]
        stalled = int((rows["cwnd"] <= 1.0).sum())
        if not stalled:
            continue
        entry = entries[int(f["entry"])]
        rtt = float(f["rtt_prop_s"])
        k = int(f["timeouts"])
        srtt_max = float(rows["srtt_s"].max()) if rows["srtt_s"].notna().any() else 0.0
        base = max(float(entry["init_rto_s"]), float(entry["min_rto_s"]),
                   float(entry["clock_granularity_s"]) + 5 * srtt_max)
        allowed = max(STALL_RTTS * rtt, STALL_MIN_S,
                      _backoff_span(k, base, float(entry["max_rto_s"])) + (k + 1) * dt)
        ece_held = bool(entry.get("ecn")) and srtt_max > 0 and \
            float(f.get("ece_acks", 0)) >= (stalled * dt - allowed) / srtt_max
        if stalled * dt > allowed and not ece_held:
            out.append(Violation(
                "cwnd_stall",
                f"cwnd <= 1 for {stalled * dt:.2f} s of samples with {k} timeouts (allowed {allowed:.2f} s), "
                f"{int(f['retransmits'])} retransmissions, goodput {float(f['goodput_bps']) / 1e6:.3g} Mb/s; "
                + _flow_label(f, entry, _queue_label(sc)),
                int(f["id"])))
    return out


def _dualq_reorders(sc: Mapping[str, Any]) -> bool:
    """Whether an ECN flow of a parking lot of DualPI2 links crosses two or
    more of them with a codepoint that its classifier (``ecn_mask``) puts
    in the other queue than CE (``sc`` normalised): a packet marked at one
    link then joins the L queue at the next, ahead of the flow's unmarked
    packets in the C queue (or behind them, the other way round)."""
    topo = sc["topology"]
    q = topo.get("link_queue") or {}
    if topo["kind"] != "parking_lot" or q.get("kind") != "dualpi2":
        return False
    # the masks' bits: ECT(1) 01, ECT(0) 10, CE 11
    mask = {"l4s_ect": 0b01, "cla_ect": 0b10, "any_ect": 0b11}[q.get("ecn_mask", "l4s_ect")]
    for f in sc["flows"]:
        if f.get("transport", "tcp") != "tcp" or not f.get("ecn"):
            continue
        ect = 0b01 if f.get("ect") == "ect1" else 0b10
        hops = f.get("hops") or [0, int(topo["n_links"]) - 1]
        if bool(ect & mask) != bool(0b11 & mask) and hops[1] > hops[0]:
            return True
    return False


def check_spurious_retransmit(sc: Mapping[str, Any], res: Results) -> List[Violation]:
    """No retransmission in a run where nothing was lost and no timer fired.

    Builder topologies route every flow on one static path of FIFO (or
    per-flow FIFO) queues, so nothing is reordered: without a drop, a
    random loss or a timeout there is no duplicate ACK and no hole, and every
    retransmission is spurious. The AQMs keep this: CoDel and PIE are one
    FIFO; FQ-CoDel (as DRR) serves flows from separate queues, in another
    order than they arrived, but each flow's packets (its data, or its
    ACKs) share one FIFO queue, hashed or not, so no flow's are reordered.
    So does DualPI2 for a flow whose packets all carry one codepoint, but
    a CE mark moves a packet to the L queue (RFC 9331's classifier): on a
    parking lot of DualPI2 links, a flow whose codepoint goes to the other
    queue than CE does (ECT(0) with the default mask) and that crosses
    two or more of them has its packets marked at one link overtake its
    unmarked ones at the next, which RFC 9331 accepts; such a run is not
    held to the rule (:func:`_dualq_reorders`). Their drops (CoDel's at
    dequeue, FQ-CoDel's from the fattest queue's head) are the link's
    ``drops``.
    """
    links, flows = res.links, res.flows
    if sc["topology"]["kind"] == "custom" or _configured_loss(sc) or flows.empty or _dualq_reorders(sc):
        return []
    if int(links["drops"].sum()) or int(links["random_losses"].sum()) or int(flows["timeouts"].sum()):
        return []
    out = []
    entries = sc["flows"]
    for _, f in flows[flows["retransmits"] > 0].iterrows():
        entry = entries[int(f["entry"])]
        out.append(Violation(
            "spurious_retransmit",
            f"{int(f['retransmits'])} retransmissions in a run with no drop, no random loss and no timeout; "
            + _flow_label(f, entry, _queue_label(sc)),
            int(f["id"])))
    return out


def check_conservation(sc: Mapping[str, Any], res: Results) -> List[Violation]:
    """Every packet created is delivered, dropped or still in the network;
    the network walk agrees with the packet pool; and (from time 0, so only
    without a warm-up) the drops are the links' drops and random losses."""
    c = res.conservation
    keys = ("created", "delivered", "dropped", "in_flight", "live_in_pool")
    if any(k not in c for k in keys):
        return [Violation("conservation", f"missing counters: {sorted(set(keys) - set(c))}")]
    out = []
    if c["created"] != c["delivered"] + c["dropped"] + c["in_flight"]:
        out.append(Violation("conservation", f"created {c['created']} != delivered {c['delivered']} + "
                                             f"dropped {c['dropped']} + in flight {c['in_flight']}"))
    if c["in_flight"] != c["live_in_pool"]:
        out.append(Violation("conservation", f"in flight {c['in_flight']} by the network walk, "
                                             f"{c['live_in_pool']} live in the packet pool"))
    links = res.links
    if float(sc.get("warmup_s", 0) or 0) == 0 and not links.empty:
        lost = int(links["drops"].sum()) + int(links["random_losses"].sum())
        if lost != c["dropped"]:
            out.append(Violation("conservation", f"dropped {c['dropped']} but the links dropped or lost {lost}"))
    flows = res.flows
    if "ce_marks" in flows and "marks" in links and not res.raw.get("transfers"):
        marked, made = int(flows["ce_marks"].sum()), int(links["marks"].sum())
        if marked != made:
            out.append(Violation("conservation", f"the flows' CE marks ({marked}) are not the links' marks ({made})"))
    return out


#: The queueing-delay figures of a link, in the order they must keep.
QDELAY_ORDER = ("qdelay_p50_s", "qdelay_p90_s", "qdelay_p99_s", "qdelay_p999_s", "qdelay_max_s")


def check_qdelay(sc: Mapping[str, Any], res: Results) -> List[Violation]:
    """With ``qdelay = true``: each link's delay figures are null exactly
    when it sent nothing in the measured period, and otherwise
    0 <= p50 <= p90 <= p99 <= p99.9 <= max and 0 <= mean <= max. A link
    whose discipline reports classes (``qdelay_classes``, DualPI2's L and
    C queues) holds each class to the same, and the classes to the link:
    their packets add up to its ``tx_pkts``, the largest class maximum is
    its maximum and their packet-weighted means its mean."""
    if not sc.get("qdelay"):
        return []
    keys = QDELAY_ORDER + ("qdelay_mean_s",)
    out = []
    for link in res.raw.get("links", []):
        name = link.get("name")
        if any(k not in link for k in keys):
            out.append(Violation("qdelay", f"link {name}: queueing delay missing with qdelay = true"))
            continue
        v = [link[k] for k in keys]
        tx = int(link.get("tx_pkts", 0))
        bad = _qdelay_disorder(v, tx)
        if bad:
            out.append(Violation("qdelay", f"link {name}: {bad}"))
            continue
        classes = link.get("qdelay_classes")
        if classes:
            out += _check_qdelay_classes(name, classes, v, tx)
    return out


def _qdelay_disorder(v: List[Any], pkts: int) -> Optional[str]:
    """What is wrong with the figures ``v`` (p50, p90, p99, p99.9, max,
    mean) of ``pkts`` packets, or None."""
    idle = pkts == 0
    if [x is None for x in v] != [idle] * len(v):
        return f"delays {v} with {pkts} packets sent"
    if not idle and not (0 <= v[0] and all(a <= b for a, b in zip(v[:4], v[1:5])) and 0 <= v[5] <= v[4]):
        return f"p50, p90, p99, p99.9, max, mean = {v}"
    return None


def _check_qdelay_classes(name: Any, classes: List[Mapping[str, Any]], v: List[Any], tx: int) -> List[Violation]:
    out = []
    ckeys = ("p50_s", "p90_s", "p99_s", "p999_s", "max_s", "mean_s")
    for c in classes:
        bad = _qdelay_disorder([c.get(k) for k in ckeys], int(c.get("pkts", 0)))
        if bad:
            out.append(Violation("qdelay", f"link {name}, class {c.get('class')}: {bad}"))
    if out:
        return out
    pkts = sum(int(c.get("pkts", 0)) for c in classes)
    if pkts != tx:
        return [Violation("qdelay", f"link {name}: its classes' packets ({pkts}) are not its tx_pkts ({tx})")]
    sent = [c for c in classes if int(c["pkts"]) > 0]
    if sent:
        top = max(c["max_s"] for c in sent)
        mean = sum(c["mean_s"] * int(c["pkts"]) for c in sent) / pkts
        if top != v[4] or abs(mean - v[5]) > 1e-9 * max(v[5], 1e-12):
            out.append(Violation("qdelay", f"link {name}: max {v[4]}, mean {v[5]} against its classes' "
                                           f"max {top}, weighted mean {mean}"))
    return out


def _one_value(v: Any) -> Optional[float]:
    """The single RTT an ``rtt_s`` or ``rtt_range_s`` gives, or None if it
    gives several."""
    if v is None:
        return None
    vals = [float(x) for x in v] if isinstance(v, (list, tuple)) else [float(v)]
    return vals[0] if vals and max(vals) - min(vals) < 1e-12 else None


#: Flow fields that may differ between the entries of a homogeneous scenario.
_PLACEMENT = {"count", "start_s", "start_spread_s"}


def is_homogeneous(sc: Mapping[str, Any]) -> bool:
    """One TCP (every entry's settings equal but count and start), one RTT,
    at most 8 flows all forward and long-lived (no ``bytes``, no
    ``stop_s``, bulk), all starting within one second, a dumbbell
    bottleneck buffer of at least 20 packets, and a run long enough after
    the last start: max(5 s, 40 RTTs, :func:`_settle_s`). ``sc`` is a
    normalised scenario (:func:`ccsim.validate`), so absent fields are
    spelled out."""
    topo = sc["topology"]
    if topo["kind"] != "dumbbell" or int(topo["bottleneck_queue"].get("limit_pkts", 0) or 0) < 20:
        return False
    flows = sc["flows"]
    if sum(int(f["count"]) for f in flows) > 8:
        return False
    settings = [{k: v for k, v in f.items() if k not in _PLACEMENT} for f in flows]
    if any(s != settings[0] for s in settings):
        return False
    f0 = settings[0]
    if f0.get("transport") != "tcp" or f0.get("app", "bulk") != "bulk" or f0.get("direction") != "forward":
        return False
    if f0.get("bytes") is not None or f0.get("stop_s") is not None:
        return False
    rtt = _one_value(f0.get("rtt_s")) if "rtt_s" in f0 else _one_value(f0.get("rtt_range_s"))
    if rtt is None and "rtt_s" not in f0 and "rtt_range_s" not in f0:
        rtt = 2 * (float(topo["bottleneck_delay_s"]) + 2 * float(topo["edge_delay_s"]))
    if rtt is None:
        return False
    first = min(float(f["start_s"]) for f in flows)
    last = max(float(f["start_s"]) + float(f["start_spread_s"]) for f in flows)
    if last - first > 1.0:
        return False
    return float(sc["duration_s"]) - last >= _long_enough_s(sc, rtt)


def _long_enough_s(sc: Mapping[str, Any], rtt: float) -> float:
    """The time a homogeneous scenario's flows need to come near their
    shares: max(5 s, 40 RTTs, :func:`_settle_s`)."""
    topo, flows = sc["topology"], sc["flows"]
    n = sum(int(f["count"]) for f in flows)
    settle = _settle_s(float(topo["bottleneck_rate_bps"]), rtt, int(topo["bottleneck_queue"]["limit_pkts"]), n,
                       int(flows[0]["mss_bytes"]) + _wire_header(flows[0]))
    return max(5.0, 40 * rtt, settle)


def _wire_header(f: Mapping[str, Any]) -> int:
    """A flow's header bytes on the wire: ``header_bytes`` and, for TCP with
    the timestamps option (the ``linux`` personality's default), its 12
    (the engine's ``FlowSpec::wire_header_bytes``)."""
    tcp = f.get("transport", "tcp") == "tcp"
    ts = tcp and bool(f.get("timestamps", f.get("tcp_model") == "linux"))
    return int(f["header_bytes"]) + (12 if ts else 0)


def check_fair_share(sc: Mapping[str, Any], res: Results) -> List[Violation]:
    """In a homogeneous scenario (:func:`is_homogeneous`) no flow gets less
    than 2% of its fair share of the bottleneck's payload rate: identical
    flows see the same path and the same rules, so a starved one is stuck,
    not unlucky.

    "Long enough" is counted on the flow's own time with its window open:
    the time its window sat at one segment, waiting on backed-off
    retransmission timers (which :func:`check_cwnd_stall` holds to its
    timeouts), is not time it could use. A flow whose lone retransmissions
    keep meeting a full drop-tail queue waits 1 + 2 + 4 s on three
    timeouts: silent for a whole short run without any fault of its own.

    BBR v1 with ECN is left out: it ignores CE (Linux `tcp_bbr`), so a
    marking AQM's probability climbs to its maximum on its ECT data, and
    its retransmissions, Not-ECT (RFC 3168 §6.1.5), meet that probability
    as drops: a hole can stay unrepaired for the whole run while new data
    flows (fuzz seed 1 case 513: 7 flows over DualPI2 at 0.47 Mb/s of
    goodput in all; with `ecn_retransmit_ect` 9.3 Mb/s). Stuck, but for
    that reason.

    BBR v1 without RACK is left out too: RFC 6675's recovery has no
    detection of a lost retransmission, so a hole whose retransmission is
    dropped waits for the RTO, and the RTO backs off while SACKs keep
    the sender busy; BBR v1 keeps its rate through loss, so its own
    traffic drops the head's retransmission again (fuzz seed 1 case 6909:
    8 flows over PIE at 72 packets, one flow at 0.018 Mb/s after its head
    was lost on 6 timeouts in a row; the same case with ``rack = true``
    or ``tcp_model = "linux"``, which find lost retransmissions, gives
    that flow 3.6 and 2.6 Mb/s). Stuck, but by the RFC's rules.
    """
    if not is_homogeneous(sc) or res.flows.empty:
        return []
    topo, f0 = sc["topology"], sc["flows"][0]
    if f0.get("cc") == "bbr" and (f0.get("ecn") or not f0.get("rack")):
        return []
    mss, hdr = int(f0["mss_bytes"]), _wire_header(f0)
    n = len(res.flows)
    fair = float(topo["bottleneck_rate_bps"]) * mss / (mss + hdr) / n
    dt = float(sc.get("sample_interval_s", 0.1))
    fs = res.flow_series
    end, warmup = float(sc["duration_s"]), float(sc.get("warmup_s", 0) or 0)
    out = []
    for _, f in res.flows.iterrows():
        if float(f["goodput_bps"]) < FAIR_SHARE_FLOOR * fair:
            at_one = int((fs[fs["flow"] == f["id"]]["cwnd"] <= 1.0).sum()) if "cwnd" in fs else 0
            usable = end - max(float(f["start_s"]), warmup) - at_one * dt
            if usable < _long_enough_s(sc, float(f["rtt_prop_s"])):
                continue
            out.append(Violation(
                "fair_share",
                f"goodput {float(f['goodput_bps']) / 1e6:.3g} Mb/s < {FAIR_SHARE_FLOOR:.0%} of the fair share "
                f"{fair / 1e6:.3g} Mb/s ({n} flows), {int(f['retransmits'])} retransmissions, "
                f"{int(f['timeouts'])} timeouts; " + _flow_label(f, f0, _queue_label(sc)),
                int(f["id"])))
    return out


#: The two bottleneck directions of a dumbbell, by the names taps take.
TRACED_LINKS = ("bottleneck", "bottleneck-rev")


def needs_trace(sc: Mapping[str, Any]) -> bool:
    """Whether the ECE-echo invariant applies: a dumbbell whose bottleneck
    marks (RED, CoDel, PIE or FQ-CoDel with ``ecn``: :func:`_marks`) and
    at least one ECN flow. ``sc`` normalised."""
    topo = sc["topology"]
    q = topo.get("bottleneck_queue") or {}
    return (topo["kind"] == "dumbbell" and _marks(q)
            and any(f.get("transport") == "tcp" and f.get("ecn") for f in sc["flows"]))


def read_trace(path: Path) -> "pd.DataFrame":
    """An ns-2 format trace (docs/cli.md) as a table with the ECN flags
    (``ece``, ``cwr``, ``ce``) as booleans."""
    import pandas as pd

    names = ["ev", "t", "from", "to", "type", "size", "flags", "fid", "src", "dst", "seq", "pktid"]
    df = pd.read_csv(path, sep=" ", header=None, names=names,
                     dtype={"ev": str, "type": str, "flags": str, "src": str, "dst": str})
    for col, ch in (("ece", "C"), ("cwr", "A"), ("ce", "E")):
        df[col] = df["flags"].str.contains(ch, regex=False)
    return df


def _times(df: "pd.DataFrame") -> "np.ndarray":
    return df["t"].to_numpy(dtype=float)


def _longest_wait(trace: "pd.DataFrame") -> float:
    """The longest time a packet of ``trace`` waited in the link's queue:
    its ``-`` line's time less its ``+`` line's (matched by pktid)."""
    enq = trace[trace["ev"] == "+"].groupby("pktid")["t"].first()
    deq = trace[trace["ev"] == "-"].groupby("pktid")["t"].first()
    waits = (deq - enq).dropna()
    return float(waits.max()) if len(waits) else 0.0


def _accecn(entry: Mapping[str, Any]) -> bool:
    """The flow entry feeds CE back with AccECN (given, or its controller's
    default: Prague's)."""
    declared = (_needs(entry["cc"])["ecn"] or {}).get("feedback") if entry.get("cc") else None
    return entry.get("ecn_feedback", declared if entry.get("ecn") and declared else "rfc3168") == "accecn"


def check_ece_echo(sc: Mapping[str, Any], res: Results, traces: Mapping[str, "pd.DataFrame"]) -> List[Violation]:
    """The ECE echo ends within an RTT of the reduction's CWR (RFC 3168
    §6.1.2-6.1.3), from the traces of both bottleneck directions; an AccECN
    flow (RFC 9768) sends no CWR at all.

    Receiver: an ACK that reaches the sender's side with ECE more than a
    round trip after a CWR segment reached the receiver's side must echo a
    CE mark that arrived after that CWR. Sender: an ECE ACK acknowledging
    the last CWR segment sent (or arriving before any), outside a loss
    recovery, reports congestion no reduction has answered, so some segment
    sent from then until the first new segment certainly sent after the ACK
    arrived (one propagation RTT later at the bottleneck) carries CWR.
    During a loss recovery (from a retransmission until the ACK of all
    data sent before it) ECE is left alone, as Linux does: the recovery
    answers for its window, and a receiver still echoing after it ends is
    answered then. "Round trip" is the flow's propagation RTT plus both
    bottleneck queues at their largest (their largest backlog at the link
    rate: in a FIFO, RED, CoDel or PIE, no packet waits longer); every
    uncertainty of timing goes the sender's way, so only a plain breach is
    reported. A queue that serves flows from queues of their own
    (FQ-CoDel) can hold a packet longer than its largest backlog takes to
    send, as other flows' later packets go first: its part is the longest
    wait its trace shows, when that is longer; so can DualPI2, which
    serves its L queue's later packets before a C packet.
    """
    import numpy as np

    if not needs_trace(sc) or any(k not in traces for k in TRACED_LINKS):
        return []
    links = {row["name"]: row for _, row in res.links.iterrows()}
    rate = float(sc["topology"]["bottleneck_rate_bps"])
    qdelay = 0.0
    per_flow = _bottleneck_queue(sc).get("kind") in NON_FIFO_QUEUES
    for name, trace in zip(("r0->r1", "r1->r0"), TRACED_LINKS):
        q = 8.0 * float(links[name]["max_queue_bytes"]) / rate if name in links else 0.0
        qdelay += max(q, _longest_wait(traces[trace])) if per_flow else q
    entries, out = sc["flows"], []
    for _, f in res.flows.iterrows():
        entry = entries[int(f["entry"])]
        if f.get("transport", "tcp") != "tcp" or not entry.get("ecn"):
            continue
        fwd = entry.get("direction", "forward") == "forward"
        data, acks = (traces[TRACED_LINKS[0]], traces[TRACED_LINKS[1]]) if fwd else \
            (traces[TRACED_LINKS[1]], traces[TRACED_LINKS[0]])
        fid = int(f["id"])
        d = data[(data["fid"] == fid) & (data["type"] == "tcp")]
        if _accecn(entry):
            # AccECN (RFC 9768): ECE and CWR on an ACK are bits of the ACE
            # counter, not RFC 3168's echo; a host in AccECN mode MUST NOT
            # set CWR on its data (§3.1).
            if d["cwr"].any():
                t = float(d[d["cwr"]]["t"].iloc[0])
                out.append(Violation("ece_echo", f"flow {fid}: AccECN data segment with CWR at {t:.4f} s; "
                                                 + _flow_label(f, entry, _queue_label(sc))))
            continue
        a = acks[(acks["fid"] == fid) & (acks["type"] == "ack") & (acks["ev"] == "r") & acks["ece"]]
        if a.empty:
            continue
        rtt = float(f["rtt_prop_s"])
        slack = rtt + qdelay
        label = _flow_label(f, entry, _queue_label(sc))
        arrived = d[d["ev"] == "r"]
        cwr_in, ce_in = _times(arrived[arrived["cwr"]]), _times(arrived[arrived["ce"]])
        t_ece = _times(a)
        # Receiver side.
        i = np.searchsorted(cwr_in, t_ece - slack, side="left") - 1
        has = i >= 0
        t_cwr = np.where(has, cwr_in[np.maximum(i, 0)], np.nan) if len(cwr_in) else np.full(len(t_ece), np.nan)
        marked_since = np.searchsorted(ce_in, t_ece, side="right") - np.searchsorted(ce_in, t_cwr, side="left")
        bad = has & (marked_since <= 0)
        if bad.any():
            k = int(np.argmax(bad))
            out.append(Violation(
                "ece_echo",
                f"ACK with ECE at {t_ece[k]:.4f} s, {t_ece[k] - t_cwr[k]:.3f} s after a CWR segment reached the "
                f"receiver, no CE mark since ({int(bad.sum())} such ACKs); " + label, fid))
            continue
        # Sender side: segments as they entered the bottleneck ('+', or 'd'
        # alone for a random loss), in order.
        sent = d[d["ev"].isin(["+", "d"])].drop_duplicates("pktid").sort_values("t", kind="stable")
        t_sent = _times(sent)
        seq = sent["seq"].to_numpy(dtype=np.int64)
        cwr = sent["cwr"].to_numpy(dtype=bool)
        high = np.concatenate(([-1], np.maximum.accumulate(seq)[:-1]))  # highest sent before each
        new = seq > high
        t_new = t_sent[new]
        t_cwr_sent, seq_cwr = t_sent[cwr], seq[cwr]
        last_cwr = np.maximum.accumulate(seq_cwr) if len(seq_cwr) else seq_cwr
        # A retransmission opens a loss recovery that lasts until the ACK of
        # everything sent before it.
        t_rtx, recover = t_sent[~new], np.maximum.accumulate(high[~new]) if (~new).any() else high[:0]
        for t, ack in zip(t_ece, a["seq"].to_numpy(dtype=np.int64)):
            j = np.searchsorted(t_cwr_sent, t + rtt, side="right") - 1
            if j >= 0 and ack < last_cwr[j]:
                continue  # an echo of a window a reduction already answered
            r = np.searchsorted(t_rtx, t + rtt, side="right") - 1
            if r >= 0 and ack < recover[r]:
                continue  # in loss recovery, which answers for its window; the echo outlives it
            n = np.searchsorted(t_new, t + rtt, side="left")
            if n >= len(t_new):
                continue  # no new data after it: nothing could carry CWR
            lo = np.searchsorted(t_cwr_sent, t, side="right")
            if lo < len(t_cwr_sent) and t_cwr_sent[lo] <= t_new[n]:
                continue
            out.append(Violation(
                "ece_echo",
                f"ACK of segment {int(ack)} with ECE at {t:.4f} s answers no CWR, and new data followed at "
                f"{t_new[n]:.4f} s without CWR; " + label, fid))
            break
    return out


CHECKS = (check_cwnd_stall, check_spurious_retransmit, check_conservation, check_fair_share, check_qdelay)


def check(sc: Mapping[str, Any], res: Results,
          traces: Optional[Mapping[str, "pd.DataFrame"]] = None) -> List[Violation]:
    """Every invariant on one run; the ECE-echo one only with ``traces``
    (:func:`read_trace` of :data:`TRACED_LINKS`). ``sc`` may be the scenario
    as written or normalised; it is normalised here so that every default
    is explicit."""
    norm = validate(dict(sc))
    found = [v for chk in CHECKS for v in chk(norm, res)]
    if traces is not None:
        found += check_ece_echo(norm, res, traces)
    return found


# --------------------------------------------------------------------------
# running
# --------------------------------------------------------------------------


@dataclass
class Case:
    seed: int
    index: int
    scenario: Dict[str, Any]
    violations: List[Violation] = field(default_factory=list)

    @property
    def stem(self) -> str:
        return f"fuzz-{self.seed}-{self.index}"


def run_case(seed: int, index: int, sc: Optional[Dict[str, Any]] = None,
             ccs: Optional[Sequence[str]] = None) -> Case:
    """Generate (unless given; controllers from ``ccs``), run and check one
    scenario. A scenario the engine refuses or an exception in the run is a
    violation of its own."""
    from .runner import run

    sc = scenario(seed, index, ccs) if sc is None else sc
    case = Case(seed, index, sc)
    try:
        traced = needs_trace(validate(sc))
        with tempfile.TemporaryDirectory(prefix="ccsim-fuzz-") as tmp:
            paths = {k: Path(tmp) / f"{k}.tr" for k in TRACED_LINKS} if traced else None
            res = run(sc, trace=paths)
            traces = {k: read_trace(p) for k, p in paths.items()} if paths else None
    except UserError as exc:
        case.violations.append(Violation("rejected", str(exc)))
        return case
    except Exception as exc:  # noqa: BLE001 - any other failure of the engine is the finding
        case.violations.append(Violation("crashed", f"{type(exc).__name__}: {exc}"))
        return case
    case.violations.extend(check(sc, res, traces))
    return case


def cases(n: int, seed: int, start: int = 0, ccs: Optional[Sequence[str]] = None) -> Iterator[Case]:
    """Run and check scenarios ``start`` .. ``start + n - 1`` of ``seed``
    (controllers from ``ccs``)."""
    for i in range(start, start + n):
        yield run_case(seed, i, ccs=ccs)


def write_case(case: Case, out_dir: Path, fresh: bool = False) -> Path:
    """Write a failing case's scenario as ``DIR/fuzz-SEED-INDEX.json`` (what
    ``ccsim run`` reads) and add its violations to ``DIR/violations.txt``
    (started afresh when ``fresh``)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{case.stem}.json"
    path.write_text(json.dumps(case.scenario, indent=2) + "\n", encoding="utf-8")
    with open(out_dir / "violations.txt", "w" if fresh else "a", encoding="utf-8") as fh:
        for v in case.violations:
            fh.write(f"{path.name}: {v}\n")
    return path


def tally(found: Sequence[Case]) -> Dict[str, int]:
    """Violations by invariant, over cases (a case counts once per invariant
    it breaks)."""
    counts = {name: 0 for name in INVARIANTS}
    for case in found:
        for name in {v.invariant for v in case.violations}:
            counts[name] = counts.get(name, 0) + 1
    return counts


def command(n: int, seed: int, out: Path, progress: Optional[bool] = None,
            ccs: Optional[Sequence[str]] = None) -> int:
    """``ccsim fuzz``: run ``n`` cases of ``seed`` (controllers from ``ccs``,
    default the built-ins) with a progress bar, write each failing one to
    ``out`` as it is found (an interrupted run keeps what it found), print a
    summary line; 1 if any invariant broke."""
    from tqdm.auto import tqdm

    for cc in ccs or ():
        if _needs(cc)["path_stage"]:
            raise UserError(f"--cc: {cc!r} needs the {_needs(cc)['path_stage']} router stage on its path, "
                            "which the fuzz's topologies do not have")
    failed: List[Case] = []
    with tqdm(total=n, unit="case", desc="fuzz", disable=None if progress is None else not progress) as bar:
        for case in cases(n, seed, ccs=ccs):
            if case.violations:
                write_case(case, out, fresh=not failed)
                failed.append(case)
                bar.set_postfix(failing=len(failed))
            bar.update(1)
    counts = {k: v for k, v in tally(failed).items() if v}
    by = ", ".join(f"{k} {v}" for k, v in counts.items()) or "none"
    print(f"fuzz: {n} cases (seed {seed}), {len(failed)} failing; violations by invariant: {by}"
          + (f"; wrote {len(failed)} scenarios and violations.txt to {out}" if failed else ""))
    return 1 if failed else 0
