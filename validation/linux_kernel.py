"""ccsim's ``linux`` TCP against the Linux kernel's TCP on whole flows.

    python -m validation.linux_kernel                 # recorded kernel runs vs ccsim (no root)
    python -m validation.linux_kernel --record        # live: rerun the kernel (root, TUN), then compare
    python -m validation.linux_kernel --record --only cubic-1-10m-20ms-1bdp --runs 5
    python -m validation.linux_kernel --plots         # cwnd over time, kernel vs ccsim (docs/img/)

The kernel side (:mod:`validation.kernel_live`): kernel TCP senders and a
receiver in two network namespaces of our own, joined through two TUN
devices by ``ccsim-tunemu`` (``crates/ccsim-tunemu``), an emulated
dumbbell: per-direction propagation delay, a serialiser at the bottleneck
rate and a DropTail buffer of B waiting packets (the packet on the
serialiser not counted, as ccsim's ``limit_pkts``), in both directions:
the bottleneck is a duplex link, so the ACKs are serialised at its rate
as on ccsim's dumbbell (recordings before this kept delays only on the
ACKs' path; :func:`ack_path`). Each flow is a TCP
connection with ``TCP_CONGESTION`` set on its socket, sampled from
``TCP_INFO`` every 10 ms; the emulator logs its queue and drops and
measures its own timing error (every written packet's lateness against
the model's ideal time). Every scenario runs :data:`RUNS` times; the
recordings (``validation/results/linux/<scenario>.json``: the kernel
version, the sysctls, the emulator's measured error and each run's
metrics and window samples) are what the test suite compares ccsim with,
without root or TUN.

The ccsim side is the same dumbbell: the bottleneck's rate and buffer,
each flow's base RTT split into edge delays (the builder's ``rtt_s``), a
1448-byte MSS with 40 header bytes plus the timestamps option (1500 bytes
on the wire, the TUN's MTU) and ``tcp_model = "linux"`` with the kernel
flow's controller. A flow starts at its connect: the personality's
handshake (``syn = "linux"``) holds the data for the SYN-ACK, whose RTT
sample starts the estimator and BBR's pacing, as in the kernel. Flows the
scenario starts together follow each other in the kernel by tens of
microseconds, each first window a burst (:func:`start_offsets`, measured
on each run's arrival log); ccsim runs once per kernel run with that
run's offsets, and its mean over them is compared, its range reported.

Metrics, both sides over each flow's life (connect to the end of the run):
goodput per flow (bytes delivered to the receiving application; flows
alike in start and RTT in rank order, largest first, since which of them
gets ahead is chance), the
retransmitted segments and retransmission timeouts of all flows, each
flow's window (mean and 95th percentile of its 10 ms samples after its
first RTT, in segments), the bottleneck's time-average queue (waiting
packets, 10 ms samples) and drops, and Jain's index of the goodputs.
BBR scenarios add BBR's model (:data:`BBR_METRICS`), the kernel's from
``TCP_CC_INFO`` (``bbr_get_info``) every 10 ms, ccsim's from its flow
series' ``bbr_*`` columns: the flows' bandwidth estimates summed and
their mean RTprop.

A pair agrees when ccsim's mean is within :data:`TOLERANCE` of the
kernel's mean or inside the range of its runs. Otherwise it needs a cause in
:data:`TRACED` (a named kernel behaviour the personality lacks, with its
function), or an entry in :data:`OPEN` (no cause yet, with what is known);
anything else is a failure, and so is a listed pair that agrees.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "validation" / "results" / "linux"
IMG = ROOT / "docs" / "img"
#: kernel runs per scenario
RUNS = 5
#: relative difference within which a pair agrees outright
TOLERANCE = 0.05
MTU = 1500
#: the kernel's MSS on a 1500-byte MTU with the timestamps option
MSS = 1448
HEADER_BYTES = 40
#: the window samples' interval on both sides
SAMPLE_S = 0.01
#: tries for a kernel run fit to compare with (:func:`run_problems`)
RUN_TRIES = 3
#: ccsim runs per kernel run recorded with its reads: the run's reads are a
#: distribution, not the kernel's sequence of wake-ups, so ccsim's figure
#: for the run is its mean outcome over draws from it, not one draw
#: (docs/decisions/2026-12-02-several-draws-of-a-runs-reads.md)
READ_DRAWS = 4


@dataclass(frozen=True)
class Scenario:
    id: str
    description: str
    cc: str
    rate_mbps: float
    #: base round-trip propagation delay of each flow, ms
    rtts_ms: Tuple[float, ...]
    #: the buffer in BDPs of the first flow's RTT
    buffer_bdp: float
    starts_s: Tuple[float, ...]
    duration_s: float

    @property
    def n_flows(self) -> int:
        return len(self.rtts_ms)

    @property
    def buffer_pkts(self) -> int:
        bdp = self.rate_mbps * 1e6 * self.rtts_ms[0] / 1e3 / (8 * MTU)
        return max(1, round(bdp * self.buffer_bdp))

    def cwnd_window(self, i: int) -> Tuple[float, float]:
        """Flow ``i``'s window samples that count, both sides: from its
        first RTT of data (connect + handshake + one RTT) to the end."""
        return self.starts_s[i] + 2 * self.rtts_ms[i] / 1e3, self.duration_s

    def params(self) -> Dict[str, Any]:
        return {"cc": self.cc, "rate_mbps": self.rate_mbps, "rtts_ms": list(self.rtts_ms),
                "buffer_pkts": self.buffer_pkts, "starts_s": list(self.starts_s), "duration_s": self.duration_s,
                "mtu": MTU}

    def live(self) -> Dict[str, Any]:
        """The scenario as :func:`validation.kernel_live.run` takes it: the
        common RTT is the smallest, each flow's extra its difference."""
        base = min(self.rtts_ms)
        return {
            "name": self.id, "rate_mbps": self.rate_mbps, "rtt_ms": base, "buffer_pkts": self.buffer_pkts,
            "cc": self.cc, "duration_s": self.duration_s, "mtu": MTU, "loss": 0.0,
            # the ACKs serialised at the bottleneck's rate, as ccsim's dumbbell does
            "duplex": True,
            "flows": [{"start_s": s, "stop_s": self.duration_s, "extra_rtt_ms": r - base, "cc": self.cc}
                      for s, r in zip(self.starts_s, self.rtts_ms)],
        }

    def ccsim_scenario(self, offsets_s: Optional[Sequence[float]] = None,
                       ts_clock_phase_s: Optional[float] = None,
                       read_delays_s: Optional[Sequence[Any]] = None) -> Dict[str, Any]:
        """The scenario in ccsim; ``offsets_s``: each flow's start after
        the others started with it, as a kernel run had them
        (:func:`start_offsets`); ``ts_clock_phase_s``: where the run's
        millisecond timestamp clock ticked (:func:`ts_clock_phase`);
        ``read_delays_s``: each flow's receiving application's read
        delays, as the run's were traced (:func:`run_reads`)."""
        offsets_s = offsets_s or [0.0] * self.n_flows
        phase = {} if ts_clock_phase_s is None else {"ts_clock_phase_s": ts_clock_phase_s}
        reads = [{"read_delay_s": q} for q in read_delays_s] if read_delays_s else [{}] * self.n_flows
        flows = [{
            "transport": "tcp", "tcp_model": "linux", "cc": self.cc,
            "mss_bytes": MSS, "header_bytes": HEADER_BYTES,
            "rtt_s": r / 1e3,
            # connect: the personality's handshake (`syn = "linux"`) then
            # holds the data for the SYN-ACK, as the kernel's
            "start_s": s + o, "stop_s": self.duration_s, **phase, **rd,
        } for s, r, o, rd in zip(self.starts_s, self.rtts_ms, offsets_s, reads)]
        return {
            "name": f"linux-{self.id}", "seed": 1, "duration_s": self.duration_s, "warmup_s": 0,
            "sample_interval_s": SAMPLE_S,
            "topology": {
                "kind": "dumbbell",
                "bottleneck_rate_bps": self.rate_mbps * 1e6,
                # the common one-way delay sits on the bottleneck in the
                # emulator; the builder puts the rest on each flow's edges
                "bottleneck_delay_s": 0.0,
                "bottleneck_queue": {"kind": "droptail", "limit_pkts": self.buffer_pkts},
                "edge_rate_bps": 10e9,
            },
            "flows": flows,
        }


def _s(cc: str, n: int, rate: float, rtt: float, bdp: float, duration: float = 30.0) -> Scenario:
    sid = f"{cc}-{n}-{rate:g}m-{rtt:g}ms-{bdp:g}bdp"
    desc = f"{cc.upper() if cc != 'reno' else 'Reno'}, {n} flow{'s' if n > 1 else ''}, {rate:g} Mb/s, " \
           f"RTT {rtt:g} ms, buffer {bdp:g} BDP"
    return Scenario(sid, desc, cc, rate, (rtt,) * n, bdp, (0.0,) * n, duration)


SCENARIOS: List[Scenario] = [
    _s("cubic", 1, 10, 20, 1),
    _s("cubic", 1, 10, 80, 0.5),
    _s("cubic", 1, 50, 20, 2),
    _s("cubic", 1, 50, 80, 1),
    _s("reno", 1, 10, 20, 1),
    _s("reno", 1, 50, 80, 0.5),
    _s("bbr", 1, 10, 20, 1),
    _s("bbr", 1, 50, 80, 2),
    _s("cubic", 4, 10, 20, 1),
    _s("cubic", 4, 50, 80, 0.5),
    _s("reno", 4, 50, 20, 2),
    _s("bbr", 4, 10, 80, 1),
    Scenario("cubic-4-staggered", "CUBIC, 4 flows started 5 s apart, RTTs 20/40/60/80 ms, 50 Mb/s, buffer 1 BDP "
             "of 20 ms", "cubic", 50, (20.0, 40.0, 60.0, 80.0), 1, (0.0, 5.0, 10.0, 15.0), 40.0),
]
#: the scenarios whose window over time docs/validation.md plots
PLOTTED = ("cubic-1-10m-20ms-1bdp", "reno-1-50m-80ms-0.5bdp", "bbr-1-10m-20ms-1bdp")

#: (scenario, metric) pairs that disagree for a traced cause: the kernel
#: behaviour the personality lacks, with its function.
TRACED: Dict[Tuple[str, str], str] = {}

#: Pairs that disagree with no cause traced yet, with what is known. The
#: test suite holds this list to the comparison: a pair that starts to
#: agree, or a new disagreement, fails it.
OPEN: Dict[Tuple[str, str], str] = {}

METRICS = ("goodput_mbps", "retransmits", "timeouts", "cwnd_mean", "cwnd_p95", "queue_mean_pkts", "drops", "jain")

#: BBR's model, compared where every kernel run of a recording sampled it
#: (``TCP_CC_INFO``, recordings from 2026-12-02 on): the flows' bandwidth
#: estimates summed (Mb/s of payload; BBR's pacing rate and window follow
#: it, and a sum above the link's rate keeps the queue full) and their
#: mean RTprop (ms).
BBR_METRICS = ("bw_est_mbps", "min_rtt_ms")

#: ``tcp_bbr_info.bbr_min_rtt`` before BBR's first RTT sample (``~0U``).
NO_MIN_RTT_US = 2**32 - 1


def by_id(sid: str) -> Scenario:
    for s in SCENARIOS:
        if s.id == sid:
            return s
    raise ValueError(f"--only: unknown scenario {sid!r}; allowed: {', '.join(s.id for s in SCENARIOS)}")


# ---- metrics -----------------------------------------------------------------------------------


def jain(xs: Sequence[float]) -> float:
    s, s2 = sum(xs), sum(x * x for x in xs)
    return (s * s) / (len(xs) * s2) if s2 > 0 else 1.0


def _p95(xs: Sequence[float]) -> float:
    xs = sorted(xs)
    if not xs:
        return math.nan
    return xs[min(len(xs) - 1, int(math.ceil(0.95 * len(xs))) - 1)]


def summarise(sc: Scenario, goodputs: List[float], cwnds: List[List[float]], retransmits: int, timeouts: int,
              queue: List[float], drops: int) -> Dict[str, Any]:
    """The compared metrics from each side's raw figures: goodput per flow
    (Mb/s), each flow's window samples after its first RTT, the totals,
    the queue's 10 ms samples."""
    if len(set(zip(sc.starts_s, sc.rtts_ms))) == 1:
        # flows alike in start and RTT are exchangeable: which of them
        # ends up ahead is chance (in the kernel, the threads' order), so
        # their goodputs compare in rank order, largest first
        goodputs = sorted(goodputs, reverse=True)
    means = [statistics.fmean(c) for c in cwnds if c]
    pooled = [x for c in cwnds for x in c]
    return {
        "goodput_mbps": goodputs,
        "retransmits": retransmits,
        "timeouts": timeouts,
        "cwnd_mean": statistics.fmean(means) if means else math.nan,
        "cwnd_p95": _p95(pooled),
        "queue_mean_pkts": statistics.fmean(queue) if queue else math.nan,
        "drops": drops,
        "jain": jain(goodputs),
    }


def bbr_model(sc: Scenario, flows: Sequence[Tuple[Sequence[float], Sequence[float], Sequence[float]]]
              ) -> Dict[str, float]:
    """:data:`BBR_METRICS` from each flow's (time s, bandwidth estimate
    bytes/s, RTprop s) samples, over the flow's window samples
    (:meth:`Scenario.cwnd_window`): each flow's estimate averaged over
    time, summed over the flows, and the flows' mean RTprop. Samples
    without an estimate (NaN, or RTprop before its first sample) are left
    out."""
    bws, rtts = [], []
    for i, (ts, bw, rtt) in enumerate(flows):
        lo, hi = sc.cwnd_window(i)
        inside = [(b, r) for t, b, r in zip(ts, bw, rtt) if lo <= t <= hi]
        b = [x for x, _ in inside if x == x]
        r = [x for _, x in inside if x == x]
        bws.append(statistics.fmean(b) if b else math.nan)
        rtts.append(statistics.fmean(r) if r else math.nan)
    return {"bw_est_mbps": sum(bws) * 8 / 1e6, "min_rtt_ms": statistics.fmean(rtts) * 1e3}


def _first_arrivals(sc: Scenario, arrivals: Iterable[Dict[str, Any]]) -> List[Optional[int]]:
    """Each flow's first packet among ``arrivals`` (the emulator's log),
    ns on the emulator's clock; None for a flow with none."""
    from validation.kernel_live import flow_addr

    first: Dict[str, int] = {}
    for a in arrivals:
        first.setdefault(a["src"], a["t_ns"])
    return [first.get(flow_addr(i)) for i in range(sc.n_flows)]


def _first_data_arrivals(sc: Scenario, arrivals: Iterable[Dict[str, Any]]) -> List[Optional[int]]:
    """:func:`_first_arrivals` of data packets only (more than half an MTU:
    not the handshake's)."""
    return _first_arrivals(sc, (a for a in arrivals if a["len"] > MTU // 2))


def start_offsets(sc: Scenario, arrivals: Sequence[Dict[str, Any]]) -> List[float]:
    """Each flow's first data packet at the bottleneck after the first of
    the flows the scenario starts with it (same start and RTT), seconds,
    from a kernel run's arrival log. Flows a scenario starts together do
    not start at one instant in the kernel: their connects and first
    windows follow each other by tens of microseconds, each window a
    burst. ccsim's flows given one start time would send their first
    windows interleaved packet by packet and stay in lockstep; with the
    kernel's order and spacing they keep the kernel's first windows in
    blocks."""
    t = _first_data_arrivals(sc, arrivals)
    out = []
    for i, key in enumerate(zip(sc.starts_s, sc.rtts_ms)):
        group = [t[j] for j, k in enumerate(zip(sc.starts_s, sc.rtts_ms)) if k == key and t[j] is not None]
        out.append((t[i] - min(group)) / 1e9 if t[i] is not None else 0.0)
    return out


def syn_arrivals(sc: Scenario, arrivals: Sequence[Dict[str, Any]], shift_ns: int) -> List[Optional[float]]:
    """Each flow's SYN at the bottleneck on the run's clock, seconds: the
    first packet from its address in the emulator's log, shifted by
    ``shift_ns`` to the run's time origin. A flow connects when the
    sender's loop wakes after its start time, some hundred microseconds
    late and differently in each run, and its SYN then crosses its own
    delay before the bottleneck (the emulator puts a flow's extra delay
    there); a flow that starts into others' traffic meets the queue at
    that phase (:func:`ccsim_offsets`)."""
    return [None if t is None else (t + shift_ns) / 1e9 for t in _first_arrivals(sc, arrivals)]


def ccsim_offsets(sc: Scenario, entry: Dict[str, Any]) -> Optional[Tuple[float, ...]]:
    """Each ccsim flow's start after the scenario's, for one recorded kernel
    run. Within flows started together, :func:`start_offsets`. A group
    started later (staggered starts) also starts so that its first SYN
    reaches ccsim's bottleneck as long after flow 0's group's as it reached
    the kernel's (:func:`syn_arrivals`): its connect's lateness, and the
    emulator's placing of each flow's delay before the bottleneck against
    ccsim's (a quarter of the flow's RTT on its sender's edge). None for a
    recording without offsets."""
    offsets = entry.get("start_offsets_s")
    if not offsets:
        return None
    syns = entry.get("syn_arrival_s")
    if not syns or any(c is None for c in syns):
        return tuple(offsets)
    keys = list(zip(sc.starts_s, sc.rtts_ms))
    # when ccsim's first SYN of each group would reach the bottleneck
    # unshifted, against when the kernel's did
    late = {k: min(c for c, kj in zip(syns, keys) if kj == k) - (k[0] + k[1] / 4e3) for k in keys}
    return tuple(o + late[k] - late[keys[0]] for o, k in zip(offsets, keys))


def ts_clock_phase(sc: Scenario, entry: Dict[str, Any]) -> Optional[float]:
    """Where a kernel run's millisecond timestamp clock ticked on ccsim's
    clock, seconds in [0, 0.001). Linux's TSval is CLOCK_MONOTONIC in
    milliseconds (`tcp_time_stamp_ts`; a connection's random offset is
    whole milliseconds), and the receiver's RTT samples are whole
    milliseconds of it, so where its ticks fall against the flows' packets
    decides how each delay rounds. Flow 0's first data packet reached the
    emulator's bottleneck at the run's ``first_data_monotonic_ns``; ccsim's
    reaches its bottleneck a quarter RTT after its sender sends it, one
    RTT (the handshake) after the flow's start (:func:`ccsim_offsets`):
    the difference, modulo a millisecond, is the phase. (The emulator's
    one-way delay to the receiver, half the RTT, and ccsim's, a quarter,
    differ by whole milliseconds in every scenario here.) None without
    the arrival or the offsets."""
    offsets, first = ccsim_offsets(sc, entry), entry.get("first_data_monotonic_ns")
    if first is None or offsets is None:
        return None
    ccsim_ns = round((sc.starts_s[0] + offsets[0] + 1.25 * sc.rtts_ms[0] / 1e3) * 1e9)
    return ((first - ccsim_ns) % 1_000_000) / 1e9


def ccsim_run(sc: Scenario, seed: int = 1, offsets_s: Optional[Sequence[float]] = None,
              ts_clock_phase_s: Optional[float] = None,
              read_delays_s: Optional[Sequence[Any]] = None) -> Dict[str, Any]:
    """ccsim's metrics for ``sc`` (with a kernel run's start offsets, clock
    phase and reads) and flow 0's window samples (for plots)."""
    import ccsim

    spec = sc.ccsim_scenario(offsets_s, ts_clock_phase_s, read_delays_s)
    spec["seed"] = seed
    res = ccsim.run(spec)
    raw = res.raw
    fs = raw["series"]["flows"]
    cwnds: List[List[float]] = [[] for _ in range(sc.n_flows)]
    t0 = [sc.cwnd_window(i) for i in range(sc.n_flows)]
    series0: List[Tuple[float, float]] = []
    for t, f, w in zip(fs["time_s"], fs["flow"], fs["cwnd"]):
        lo, hi = t0[f]
        if lo <= t <= hi and w == w:
            cwnds[f].append(w)
        if f == 0:
            series0.append((t, w))
    ls = raw["series"]["links"]
    bneck = next(lk["id"] for lk in raw["links"] if lk["from"] == "r0" and lk["to"] == "r1")
    queue = [q for q, lk in zip(ls["queue_pkts"], ls["link"]) if lk == bneck]
    link = next(lk for lk in raw["links"] if lk["id"] == bneck)
    goodputs = [f["delivered_bytes"] * 8 / (sc.duration_s - s) / 1e6 for f, s in zip(raw["flows"], sc.starts_s)]
    m = summarise(sc, goodputs, cwnds, sum(f["retransmits"] for f in raw["flows"]),
                  sum(f["timeouts"] for f in raw["flows"]), queue, link["drops"])
    if "bbr_bw_bytes_per_s" in fs:
        m.update(bbr_model(sc, [_flow_columns(fs, i, ("time_s", "bbr_bw_bytes_per_s", "bbr_min_rtt_s"))
                                for i in range(sc.n_flows)]))
    return {"metrics": m, "cwnd0": series0}


def _flow_columns(fs: Dict[str, List[Any]], flow: int, names: Sequence[str]) -> Tuple[List[float], ...]:
    """Flow ``flow``'s rows of the flow series' columns ``names``, JSON
    null (no value yet) read as NaN."""
    rows = [k for k, f in enumerate(fs["flow"]) if f == flow]
    return tuple([math.nan if fs[n][k] is None else fs[n][k] for k in rows] for n in names)


def kernel_metrics(sc: Scenario, run: Dict[str, Any]) -> Dict[str, Any]:
    """The compared metrics of one kernel run (:func:`validation.kernel_live.run`'s
    result): goodput over each flow's ``[start, stop]`` from the receiver's
    10 ms bins, ``tcpi_total_retrans`` and ``tcpi_total_rto`` at the end,
    ``tcpi_snd_cwnd`` every 10 ms, the emulator's queue samples over the
    run."""
    cwnds: List[List[float]] = []
    for i, f in enumerate(run["flows"]):
        lo, hi = sc.cwnd_window(i)
        cwnds.append([float(w) for t, w in zip(f["t"], f["tcp_info"]["snd_cwnd"]) if lo <= t <= hi])
    emu = run["emulator"]
    q = emu["queue"]
    shift = emu["t0_monotonic_ns"] - run["t0_monotonic_ns"]
    queue = [float(n) for t, n in zip(q["t_ns"], q["waiting_pkts"]) if 0 <= (t + shift) / 1e9 <= sc.duration_s]
    fin = [f["final_tcp_info"] for f in run["flows"]]
    m = summarise(sc, [f["goodput_mbps"] for f in run["flows"]], cwnds, sum(i["total_retrans"] for i in fin),
                  sum(i["total_rto"] for i in fin), queue, emu["forward"]["dropped_buffer"])
    if all("bbr_info" in f for f in run["flows"]):
        m.update(bbr_model(sc, [kernel_bbr_samples(f) for f in run["flows"]]))
    return m


def kernel_bbr_samples(flow: Dict[str, Any]) -> Tuple[List[float], List[float], List[float]]:
    """A live run's flow's ``TCP_CC_INFO`` samples as :func:`bbr_model`
    takes them: times (s), bandwidth estimates (bytes/s), RTprop (s; NaN
    before its first sample)."""
    b = flow["bbr_info"]
    return flow["t"], b["bw"], [math.nan if r == NO_MIN_RTT_US else r / 1e6 for r in b["min_rtt"]]


def _downsample(t: Sequence[float], w: Sequence[float], step: float = 0.05) -> List[Tuple[float, float]]:
    """(t, w) every ``step`` seconds, for the recorded plots."""
    out: List[Tuple[float, float]] = []
    nxt = 0.0
    for ti, wi in zip(t, w):
        if ti >= nxt:
            out.append((round(ti, 4), wi))
            nxt = ti + step
    return out


#: The hypervisor's largest share of the machine (``steal``) over a BBR
#: run fit to compare with. BBR's bandwidth filter keeps the largest
#: delivery-rate sample, so the bursts a noisy machine makes raise it:
#: the kernel's BBR queued and dropped more in runs with 0.38-0.63% steal
#: than in one with 0.12% (docs/decisions/2026-12-02-bbr-recordings-on-a-
#: noisier-machine.md); loss-based controllers average such bursts out.
#: Runs recorded before the steal was (no ``steal_share``) go unchecked.
BBR_STEAL_LIMIT = 0.002


def run_problems(sc: Scenario, run: Dict[str, Any]) -> List[str]:
    """Why a recorded kernel run (an entry of a recording's ``runs``) is
    not fit to compare with: the emulator's timing over its budget
    (:func:`validation.kernel_live.timing_problems`) on the data's path
    or on the ACKs' (a late ACK moves the sender's clock as a late
    segment does: BBR's delivery-rate samples take the ACKs' spacing),
    a drop decision the independent queue would not have made, other
    work on the machine holding the emulator off its CPU, or, for BBR, the
    hypervisor taking more of the machine than :data:`BBR_STEAL_LIMIT`.
    Empty when fit.
    Recordings before 2026-12-02's last kept the ACK path's 99th
    percentile alone; their 99.9th goes unchecked."""
    from validation import kernel_live

    e = run["emulator"]
    out = kernel_live.timing_problems(_recorded_lateness_ns(e, ""), packet_ns(sc))
    rev = _recorded_lateness_ns(e, "reverse_")
    out += kernel_live.timing_problems(rev, packet_ns(sc), " on the ACKs' path", checked=tuple(rev))
    if e["drop_decisions_differing"]:
        out.append(f"{e['drop_decisions_differing']} drop decisions differ from the reference queue's")
    if not run["contention"]["quiet"]:
        out.append(f"the emulator waited for its CPU {run['contention']['runqueue_wait_share']:.2%} of the run")
    steal = run["contention"].get("steal_share")
    if sc.cc == "bbr" and steal is not None and steal >= BBR_STEAL_LIMIT:
        out.append(f"the hypervisor took {steal:.2%} of the machine over the run, over BBR's limit of "
                   f"{BBR_STEAL_LIMIT:.1%}")
    return out


def _recorded_lateness_ns(e: Dict[str, Any], prefix: str) -> Dict[str, float]:
    """A recorded run's lateness percentiles on one path (``prefix``
    ``""``: the data's, ``"reverse_"``: the ACKs'), ns, keyed as
    :func:`validation.kernel_live.timing_problems` takes them; those the
    recording did not keep are left out."""
    keys = (("p99", f"{prefix}p99_error_us"), ("p99_9", f"{prefix}p999_error_us"))
    return {k: e[name] * 1e3 for k, name in keys if name in e}


def _run_entry(sc: Scenario, run: Dict[str, Any], arrivals: Sequence[Dict[str, Any]]) -> Dict[str, Any]:
    """What a recording keeps of a live kernel run."""
    fwd = run["emulator"]["forward"]["timing_error_ns"]
    rev_path = run["emulator"]["reverse"]
    rev = rev_path["timing_error_ns"]
    f0 = run["flows"][0]
    entry = {
        "metrics": kernel_metrics(sc, run),
        "start_offsets_s": start_offsets(sc, arrivals),
        "syn_arrival_s": syn_arrivals(sc, arrivals, run["emulator_t0_monotonic_ns"] - run["t0_monotonic_ns"]),
        "emulator": {"p99_error_us": fwd["p99"] / 1e3, "p999_error_us": fwd["p99_9"] / 1e3,
                     "max_error_us": fwd["max"] / 1e3, "reverse_p99_error_us": rev["p99"] / 1e3,
                     "reverse_p999_error_us": rev["p99_9"] / 1e3, "reverse_max_error_us": rev["max"] / 1e3,
                     "drop_decisions_differing": run["replay"]["differ"],
                     "arrivals": run["replay"]["arrivals"],
                     # each ACK's write() runs the sender's stack: the ACK path's cost per ACK
                     "reverse_write_us": {k: rev_path["write_syscall_ns"][k] / 1e3 for k in ("p50", "p90", "p99")}},
        # the emulator's ACK path: "duplex" (a serialiser and buffer of its
        # own at the bottleneck's rate, as ccsim's dumbbell) or "delay"
        # (recordings before 2026-12-02's evening: delays only)
        "ack_path": "duplex" if run["emulator"]["config"].get("duplex") else "delay",
        "contention": run["contention"],
        "counters": {**run["counters"]["named"],
                     **{k.split(".", 1)[-1]: v for k, v in run["counters"]["all_nonzero"].items()
                        if k.startswith("TcpExt.TCPHystart")}},
        "cwnd0": _downsample(f0["t"], f0["tcp_info"]["snd_cwnd"]),
        # each flow's base RTT as its kernel measured it (`tcpi_min_rtt`,
        # the handshake's on these paths): the path's constant delay with
        # the hosts' processing, which ccsim's nominal delays leave out
        "min_rtt_us": [min((x for x in f["tcp_info"]["min_rtt"] if x), default=None) for f in run["flows"]],
    }
    if run.get("reads"):
        entry["reads"] = run["reads"]
    first = _first_data_arrivals(sc, arrivals)[0]
    entry["first_data_monotonic_ns"] = None if first is None else first + run["emulator_t0_monotonic_ns"]
    return entry


#: where :func:`record_scenario` keeps a scenario's fitting runs until it
#: has all of them (not in git): a noisy machine that refuses one run
#: costs that run, not the ones before it
PARTIAL = RESULTS / "partial"


def _load_partial(sc: Scenario, path: Path, live: Dict[str, Any], kernel: str) -> Dict[str, Any]:
    """The unfinished recording of ``sc`` kept at ``path`` (its fitting
    runs, kernel and sysctls), if its runs were made on this ``kernel``
    with the scenario's present parameters and emulator; else none (and
    the file is removed)."""
    if not path.exists():
        return {}
    try:
        held = json.loads(path.read_text(encoding="utf-8"))
        same = held["params"] == sc.params() and held["live"] == live and held["kernel"] == kernel
        if same and held["runs"]:
            return {k: held[k] for k in ("runs", "kernel", "sysctls")}
    except (ValueError, KeyError, TypeError):
        pass
    print(f"  {path}: its runs are of another kernel or scenario; starting afresh", file=sys.stderr, flush=True)
    path.unlink()
    return {}


def record_scenario(sc: Scenario, runs: int = RUNS, tries: int = RUN_TRIES,
                    partial_dir: Optional[Path] = None) -> Dict[str, Any]:
    """Run ``sc`` on the kernel ``runs`` times (root, TUN); the recording.
    A run unfit to compare with (:func:`run_problems`) is run again, up to
    ``tries`` times; a scenario with a run that never fits raises
    ``RuntimeError`` and is not recorded, but its fitting runs are kept
    in ``partial_dir`` (:data:`PARTIAL`) and the next call resumes after
    them, if the kernel, its sysctls and the scenario are the same (runs
    of another are dropped). Each run carries the UTC time it ended
    (``recorded_utc``)."""
    import datetime
    import os
    import tempfile

    from validation import kernel_live

    partial = (partial_dir or PARTIAL) / f"{sc.id}.json"
    live = sc.live()
    out: Dict[str, Any] = {"params": sc.params(), "runs": []}
    held = _load_partial(sc, partial, live, os.uname().release)
    if held:
        out.update(held, runs=held["runs"][:runs])
        print(f"  resuming: {len(out['runs'])} of {runs} runs kept, the last ended "
              f"{out['runs'][-1].get('recorded_utc', '?')}", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix=f"ccsimk-{sc.id}-") as tmp:
        while len(out["runs"]) < runs:
            i = len(out["runs"])
            unfit: List[str] = []
            for _ in range(tries):
                run = kernel_live.run(live, Path(tmp), i)
                entry = _run_entry(sc, run, kernel_live.read_arrivals(Path(tmp) / f"run-{i}.arrivals.csv"))
                problems = run_problems(sc, entry)
                if not problems:
                    break
                unfit.append("; ".join(problems))
                print(f"  run {i}: {unfit[-1]}; running it again", file=sys.stderr, flush=True)
            else:
                raise RuntimeError(f"{sc.id}: run {i} did not fit in {tries} tries ({' | '.join(unfit)}); "
                                   f"the {i} runs that fit are kept in {partial} and `--record` resumes after "
                                   "them; is other work running on the machine? (`python -m "
                                   f"validation.kernel_live --selftest --rates {sc.rate_mbps:g}` measures the "
                                   "emulator alone)")
            if out.get("sysctls", run["sysctls"]) != run["sysctls"]:
                print(f"  run {i}: the sysctls differ from the kept runs'; dropping those {i}",
                      file=sys.stderr, flush=True)
                out["runs"] = []
            entry["recorded_utc"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
            out["runs"].append(entry)
            out.update(kernel=run["kernel"], sysctls=run["sysctls"])
            partial.parent.mkdir(parents=True, exist_ok=True)
            partial.write_text(json.dumps({**out, "live": live}) + "\n", encoding="utf-8")
    out["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    partial.unlink(missing_ok=True)
    return out


# ---- comparison --------------------------------------------------------------------------------


def _values(m: Dict[str, Any], metric: str) -> List[float]:
    v = m[metric]
    return [float(x) for x in v] if isinstance(v, list) else [float(v)]


def unknown_phase(k: int, n: int) -> float:
    """The timestamp clock phase ccsim gives kernel run ``k`` of ``n`` when
    the recording does not hold one (it predates
    ``first_data_monotonic_ns``): the kernel's phase is independent of
    the run, so uniform over the millisecond, and ccsim's runs take it at
    the midpoints of ``n`` equal parts, one each."""
    return (k + 0.5) / n * 1e-3


def run_conditions(sc: Scenario, kernel_runs: Sequence[Dict[str, Any]],
                   k: int) -> Tuple[Optional[Tuple[float, ...]], float]:
    """The start offsets and clock phase ccsim runs kernel run ``k`` with."""
    ph = ts_clock_phase(sc, kernel_runs[k])
    return ccsim_offsets(sc, kernel_runs[k]), unknown_phase(k, len(kernel_runs)) if ph is None else ph


def run_reads(entry: Dict[str, Any]) -> Optional[List[Any]]:
    """Each flow's ``read_delay_s`` as a kernel run traced its receiving
    application's reads (``kernel_live.ReadTrace``): the quantiles at
    their probabilities (``kernel_live.tail_quantiles``), or at equal
    steps where a recording has no probabilities (before 2026-12-02's
    last recordings); None for a run recorded without reads (ccsim's
    application then reads at each arrival)."""
    reads = entry.get("reads")
    if not reads:
        return None
    return [{"probabilities": f["probabilities"], "quantiles_s": f["quantiles_s"]} if "probabilities" in f
            else f["quantiles_s"] for f in reads]


def ccsim_runs(sc: Scenario, kernel_runs: Sequence[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """ccsim's metrics for each kernel run, with that run's start offsets
    (:func:`ccsim_offsets`; none when the recording has none), timestamp
    clock phase (:func:`ts_clock_phase`, or where an older recording has
    none :func:`unknown_phase`) and receiving application's reads
    (:func:`run_reads`). A run with reads gives :data:`READ_DRAWS` ccsim
    runs, each drawing the reads from a seed of its own (run ``k``'s are
    ``k * READ_DRAWS + 1`` on); runs without reads, each distinct pair of
    conditions, run once and count once per kernel run."""
    out: List[Dict[str, Any]] = []
    done: Dict[Tuple[Optional[Tuple[float, ...]], float], Dict[str, Any]] = {}
    for k, run in enumerate(kernel_runs):
        o, ph = run_conditions(sc, kernel_runs, k)
        reads = run_reads(run)
        if reads is not None:
            out.extend(ccsim_run(sc, seed=k * READ_DRAWS + j + 1, offsets_s=o, ts_clock_phase_s=ph,
                                 read_delays_s=reads)["metrics"] for j in range(READ_DRAWS))
            continue
        if (o, ph) not in done:
            done[(o, ph)] = ccsim_run(sc, offsets_s=o, ts_clock_phase_s=ph)["metrics"]
        out.append(done[(o, ph)])
    return out


def compare(sc: Scenario, kernel_runs: List[Dict[str, Any]], ours: Sequence[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """One row per metric (per flow for goodput): the kernel's mean and
    range over its runs, ccsim's mean and range over its runs (``ours``:
    for each kernel run, :func:`ccsim_runs`), and the verdict: ``ok``
    (ccsim's mean within :data:`TOLERANCE` of the kernel's, or inside the
    kernel's range), ``traced`` (a cause in :data:`TRACED`), ``open``
    (listed in :data:`OPEN`, no cause yet) or ``differs``."""
    rows = []
    model = [m for m in BBR_METRICS if all(m in r["metrics"] for r in kernel_runs)]
    for metric in METRICS + tuple(model):
        ks = [_values(r["metrics"], metric) for r in kernel_runs]
        cs = [_values(o, metric) for o in ours]
        for i in range(len(cs[0])):
            vals = [k[i] for k in ks]
            mine = [c[i] for c in cs]
            mean, c = statistics.fmean(vals), statistics.fmean(mine)
            lo, hi = min(vals), max(vals)
            rel = abs(c - mean) / abs(mean) if mean else (0.0 if c == 0 else math.inf)
            ok = rel <= TOLERANCE or lo <= c <= hi
            name = f"{metric}[{i}]" if len(cs[0]) > 1 else metric
            cause, known = TRACED.get((sc.id, name)), OPEN.get((sc.id, name))
            verdict = "ok" if ok else "traced" if cause else "open" if known else "differs"
            rows.append({"metric": name, "kernel_mean": mean, "kernel_lo": lo, "kernel_hi": hi, "ccsim": c,
                         "ccsim_lo": min(mine), "ccsim_hi": max(mine), "rel": rel, "verdict": verdict,
                         "cause": None if ok else cause or known})
    return rows


def recorded(sc: Scenario) -> Optional[Dict[str, Any]]:
    path = RESULTS / f"{sc.id}.json"
    if not path.exists():
        return None
    rec = json.loads(path.read_text(encoding="utf-8"))
    if rec["params"] != sc.params():
        raise ValueError(f"{path}: recorded with other parameters than scenario {sc.id}; rerun with --record")
    return rec


def comparison() -> List[Dict[str, Any]]:
    """Every recorded scenario against ccsim."""
    out = []
    for sc in SCENARIOS:
        rec = recorded(sc)
        if rec is None:
            continue
        ours = ccsim_runs(sc, rec["runs"])
        out.append({"scenario": sc, "record": rec, "ccsim": ours, "rows": compare(sc, rec["runs"], ours)})
    return out


def _fmt(x: float) -> str:
    if x != x:
        return "n/a"
    if abs(x) >= 100 or x == int(x):
        return f"{x:.0f}"
    return f"{x:.3g}"


def _diff(r: Dict[str, Any]) -> str:
    rel = r["rel"]
    if rel != rel or math.isinf(rel):
        return "n/a"
    sign = "-" if r["ccsim"] < r["kernel_mean"] else "+"
    return f"{sign}{rel:.1%}"


def agreement(results: List[Dict[str, Any]]) -> Tuple[int, int, int, int]:
    """(pairs agreeing, traced, open, all pairs)."""
    rows = [r for x in results for r in x["rows"]]
    count = lambda v: sum(r["verdict"] == v for r in rows)  # noqa: E731
    return count("ok"), count("traced"), count("open"), len(rows)


def ack_path(rec: Dict[str, Any]) -> str:
    """The emulator's ACK path in a recording's runs: ``"duplex"``, the
    ACKs serialised and buffered at the bottleneck's rate as on ccsim's
    dumbbell, or ``"delay"``, delays only (recordings that keep no
    ``ack_path``: the emulator had no other then)."""
    paths = {r.get("ack_path", "delay") for r in rec["runs"]}
    if len(paths) != 1:
        raise ValueError(f"recording of {rec['params']}: runs with different ACK paths {sorted(paths)}")
    return paths.pop()


def _verb(n: int) -> str:
    return "differs" if n == 1 else "differ"


def markdown(results: List[Dict[str, Any]]) -> str:
    """docs/validation.md's generated block: the emulator's own error per
    scenario, then one table per scenario."""
    from validation import kernel_live

    if not results:
        return "No recorded kernel runs (`python -m validation.linux_kernel --record`)."
    kernels = ", ".join(sorted({x["record"]["kernel"] for x in results}))
    dates = sorted({x["record"]["date"] for x in results})
    when = dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"
    ok, traced, still_open, n = agreement(results)
    lines = [
        f"Kernel {kernels} (the recordings' `uname -r`), recorded {when}; {RUNS} runs per scenario. "
        f"**{ok} of {n} metric pairs agree** (within {TOLERANCE:.0%} of the kernel's mean or inside the range "
        f"of its runs), {traced} {_verb(traced)} for a traced cause, {still_open} {_verb(still_open)} with no "
        f"cause traced yet "
        f"(what is known is in the table), {n - ok - traced - still_open} others.",
        "",
        "| scenario | buffer | ACKs' path | emulator timing error, p99 / p99.9 (worst run) | "
        "ACKs' path, p99 (worst run) | budget: tenth of a packet time / one | drop decisions differing | "
        "pairs agreeing |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for x in results:
        sc, rec = x["scenario"], x["record"]
        p99 = max(r["emulator"]["p99_error_us"] for r in rec["runs"])
        p999 = max(r["emulator"]["p999_error_us"] for r in rec["runs"])
        acks = max(r["emulator"]["reverse_p99_error_us"] for r in rec["runs"])
        differ = sum(r["emulator"]["drop_decisions_differing"] for r in rec["runs"])
        arrivals = sum(r["emulator"]["arrivals"] for r in rec["runs"])
        good = sum(r["verdict"] == "ok" for r in x["rows"])
        path = {"duplex": "serialised", "delay": "delay only"}[ack_path(rec)]
        lines.append(f"| `{sc.id}` | {sc.buffer_pkts} pkts | {path} | {p99:.1f} / {p999:,.0f} µs | {acks:.1f} µs | "
                     f"{kernel_live.P99_BUDGET * packet_ns(sc) / 1e3:.0f} / "
                     f"{kernel_live.P999_BUDGET * packet_ns(sc) / 1e3:,.0f} µs | "
                     f"{differ} of {arrivals:,} | {good}/{len(x['rows'])} |")
    for x in results:
        sc = x["scenario"]
        lines += ["", f"**`{sc.id}`**: {sc.description}; {sc.buffer_pkts}-packet buffer, {sc.duration_s:g} s.", "",
                  "| metric | kernel mean | kernel range | ccsim | ccsim range | ccsim vs mean | verdict |",
                  "|---|---|---|---|---|---|---|"]
        for r in x["rows"]:
            verdict = f"{r['verdict']}: {r['cause']}" if r["cause"] else r["verdict"]
            spread = f"{_fmt(r['ccsim_lo'])} – {_fmt(r['ccsim_hi'])}" if len(x["ccsim"]) > 1 else "one run"
            lines.append(f"| {r['metric']} | {_fmt(r['kernel_mean'])} | {_fmt(r['kernel_lo'])} – "
                         f"{_fmt(r['kernel_hi'])} | {_fmt(r['ccsim'])} | {spread} | {_diff(r)} | {verdict} |")
    return "\n".join(lines)


def packet_ns(sc: Scenario) -> int:
    """A full packet's time at the bottleneck, ns (the emulator's own
    arithmetic, which its timing budget is a fraction of)."""
    from validation import kernel_live

    return kernel_live.serialisation_ns(MTU, round(sc.rate_mbps * 1e6))


def tenth_packet_us(sc: Scenario) -> float:
    """A tenth of a full packet's time at the bottleneck, µs: the emulator's
    timing error must stay under it at the 99th percentile."""
    return packet_ns(sc) / 10 / 1e3


def plot(results: List[Dict[str, Any]], out: Path = IMG) -> List[Path]:
    """Flow 0's window over time, the kernel's runs against ccsim, for the
    :data:`PLOTTED` scenarios (docs/img/linux-<scenario>.png)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    out.mkdir(parents=True, exist_ok=True)
    for x in results:
        sc = x["scenario"]
        if sc.id not in PLOTTED:
            continue
        offsets, phase = run_conditions(sc, x["record"]["runs"], 0)
        reads = run_reads(x["record"]["runs"][0])
        ours = ccsim_run(sc, offsets_s=offsets, ts_clock_phase_s=phase, read_delays_s=reads)["cwnd0"]
        fig, ax = plt.subplots(figsize=(8, 3.2))
        for i, r in enumerate(x["record"]["runs"]):
            t, w = zip(*r["cwnd0"])
            ax.plot(t, w, color="tab:blue", alpha=0.35, lw=0.8, label="Linux (each run)" if i == 0 else None)
        t, w = zip(*ours)
        what = "starts, clock and reads" if reads else "starts and clock"
        ax.plot(t, w, color="tab:red", lw=1.0, label=f"ccsim, tcp_model = \"linux\" (the first run's {what})")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("cwnd (segments)")
        ax.set_title(sc.description, fontsize=9)
        ax.legend(fontsize=8, loc="upper right")
        fig.tight_layout()
        path = out / f"linux-{sc.id}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    return paths


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m validation.linux_kernel", description=__doc__.split("\n\n")[0])
    ap.add_argument("--record", action="store_true",
                    help="rerun the kernel side live (root, /dev/net/tun) and rewrite the recordings; a "
                         "scenario that fails keeps the runs that fit (validation/results/linux/partial/) and the next "
                         "--record of it resumes after them")
    ap.add_argument("--only", nargs="+", metavar="SCENARIO", help="these scenarios only")
    ap.add_argument("--runs", type=int, default=RUNS, help=f"kernel runs per scenario with --record ({RUNS})")
    ap.add_argument("--tries", type=int, default=RUN_TRIES,
                    help=f"with --record, times a run unfit to compare with (the emulator late, the machine "
                         f"busy) is tried before the scenario fails ({RUN_TRIES})")
    ap.add_argument("--plots", action="store_true", help=f"write the window plots of {', '.join(PLOTTED)}")
    args = ap.parse_args(argv)
    try:
        chosen = [by_id(s) for s in args.only] if args.only else list(SCENARIOS)
        if args.runs < 1:
            raise ValueError(f"--runs: {args.runs}; allowed: 1 or more")
        if args.tries < 1:
            raise ValueError(f"--tries: {args.tries}; allowed: 1 or more")
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    unrecorded = []
    if args.record:
        RESULTS.mkdir(parents=True, exist_ok=True)
        for sc in chosen:
            print(f"{sc.id}: {args.runs} kernel runs ...", flush=True)
            try:
                rec = record_scenario(sc, args.runs, args.tries)
            except RuntimeError as e:
                # the next scenarios may still fit; this one's recording stays as it was
                print(f"error: {e}; its recording is left as it was", file=sys.stderr)
                unrecorded.append(sc.id)
                continue
            (RESULTS / f"{sc.id}.json").write_text(json.dumps(rec, indent=1) + "\n", encoding="utf-8")
    results = [x for x in comparison() if x["scenario"] in chosen]
    print(markdown(results))
    if args.plots:
        for p in plot(results):
            print(f"wrote {p.relative_to(ROOT)}")
    ok, traced, still_open, n = agreement(results)
    if unrecorded:
        print(f"error: not recorded: {', '.join(unrecorded)}", file=sys.stderr)
    return 0 if ok + traced + still_open == n and not unrecorded else 1


if __name__ == "__main__":
    sys.exit(main())
