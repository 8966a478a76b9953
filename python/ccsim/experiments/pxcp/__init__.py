"""Paced XCP/TCP paper (Alparslan, Arakawa, Murata, "Performance of paced
and non-paced transmission control algorithms in small buffered networks")
experiments.

Common setting (§4.1-4.2), ns-2.28 in the paper:

* Dumbbell: bottleneck 622 Mb/s (OC-12), 30 ms one way; access
  ("extension") links 2.4 Gb/s (OC-48); each source-destination pair's
  round-trip propagation delay uniform on [64, 100] ms (mean 82 ms), set
  through the pair's two access links (``rtt_range_s``).
* Long FTP flows starting uniformly in [0, 10] s, running to the end of the
  100 s run; averages over [40, 100] s (``warmup_s = 40``). Two-way
  traffic: the same number of flows with the same properties in the
  reverse direction (``direction = "reverse"``), so forward ACKs share the
  reverse bottleneck queue with reverse data.
* Packets: "Data packet size is 1000 Bytes including the headers": 960-byte
  payloads plus 40-byte TCP/IP headers, 40-byte ACKs. (The paper's
  occupancies fit this: 23,360 = 23 x 1000 + 9 x 40; 124,040 =
  124 x 1000 + 40; 10,200 = 10 x 1000 + 5 x 40.) Timestamps on (ccsim's
  RTT estimate always uses them) and "fine course timers": clock
  granularity 0.1 ms (ns-2 ``tcpTick_``, as docs/validation.md's ns-2 runs).
* Drop-tail queues limited in bytes. The rule-of-thumb buffer is
  RTT x BW at the mean RTT, 0.082 s x 622 Mb/s = 6,375,500 bytes ("around
  6.4 MBytes", §4.2.1), on every link ("Size of all buffers are limited to
  rule-of-thumb"); Figs 2 and 4 then set only the bottleneck (middle
  links) to P. XCP's maximum occupancy.
* No window limit; TCP's ssthresh 64 packets ("Slow start threshold of TCP
  is 64 packets"), read as the TCP agents' (the XCP agent keeps ns-2's
  default, no slow start; see docs/controllers.md).
* Protocols (P. = token-bucket paced, one-token bucket, §3.2; N.P. = not
  paced): Reno (``recovery = "reno"``), NewReno, HSTCP with SACK (ns-2's
  defaults: low window 38, high window 83,000, high_p 1e-7, Low_P =
  1.5/38^2), and XCP
  (``cc = "xcp"``, Reno's halving and recovery on loss, as ns-2's agent).
  XCP's window follows the routers' feedback alone, ``cwnd = max(cwnd +
  H_feedback, s)`` as §2 states (``reno_increase = false``, ccsim's
  default), as ns-2.35's ``Agent/TCP/Reno/XCP`` does too: its
  ``opencwnd()`` is empty (xcp/xcp-end-sys.h). With Reno's +1/cwnd per
  ACK added (``reno_increase = true``) N flows would run the link
  N s/(alpha d C) above the capacity parameter, +0.63 of 622 Mb/s at 800
  flows with C.P., and fill the rule-of-thumb buffer (a 30 s run of 800
  paced flows: 6.4 MB maximum queue, 7,222 drops on the bottleneck), where
  the paper reports ~90% utilisation and 124,040 bytes at every N
  (docs/decisions/2026-11-24-xcp-end-system-as-ns2.md).
* XCP routers on the bottleneck links (both directions, as ns-2's
  ``duplex-link ... XCP``), with ACK bytes counted in the input traffic (the
  paper's modification, ``count_acks``). Parameter sets (§4.1): O.P.
  alpha 0.4, beta 0.226, gamma 0.1, capacity = link rate; C.P. alpha 0.2,
  beta 0.056, gamma 0.05, capacity = 90% of the link rate. The access links
  carry no XCP stage: the paper does not say whether its access queues
  were XCP queues, and each carries one flow at 2.4 Gb/s, where a router's
  feedback would never be the smallest on the path.

* ns-2 mode (:func:`flow`, i.e. :func:`.._kit.ns2ref.figure_flow` with
  ``timestamps``): "We evaluate paced versions of TCP Reno, TCP NewReno,
  HSTCP with SACK and XCP over ns version 2.28", so every agent, XCP's
  included (ns-2's ``Agent/TCP/Reno/XCP`` is a ``TcpAgent`` and inherits its
  defaults: ``windowInit_ 2``, ``syn_``/``delay_growth_``, ``singledup_``,
  ``bugFix_``, the timeout's ``slowdown``; ``XCPSink`` ACKs every
  segment), runs with ns-2.35's TCP defaults; "time-stamps option is used",
  so the RTT is sampled from every ACK (ccsim's every-ACK estimator), not
  by ns-2's one-timed-segment estimator. SACK
  recovery is ``TCP/Sack1``'s (``recovery = "sack1"``) for N.P. HSTCP;
  P. HSTCP keeps ``recovery = "sack"`` (RFC 6675): ``sack1`` refuses
  pacing, and the paper's paced agents were its own token-bucket patch,
  not ns-2's. HSTCP's first decrease and its timeouts halve, its
  decreases at small windows keep ns-2's ``decrease_num_`` and its slow
  start is ns-2's
  (``ns2_first_decrease``, ``ns2_decrease_num``, ``lss = "ns2"``; ``max_ssthresh_`` is ns-2's
  0, so no Limited Slow-Start). On top, the two defaults of 2.28 that
  differ from 2.35's and that 2.35's files state (``release="2.28"``,
  ``ns2ref.NS2_RELEASE``): the initial RTO ``rtxcur_init_`` 6 s (3 s from
  2006/01/21) and ``numdupacksFrac_`` 100 (-1 from 2006/09/27), which the
  Sack1 agent reads: N.P. HSTCP's fast retransmit waits for
  max(3, ⌊cwnd⌋/100) duplicate ACKs (``dupthresh_frac``;
  docs/experiments.md, "ns-2 mode").

Experiments (one module each):

* ``pxcp-fig1`` (:mod:`.fig1`): maximum bottleneck occupancy and
  utilisation of P./N.P. XCP with O.P./C.P., 2 to 800 flows, rule-of-thumb
  buffers (Fig 1(a), (b)).
* ``pxcp-fig1cf`` (:mod:`.fig1cf`): transient utilisation and cwnd of
  N.P. and P. XCP with O.P., 2 flows (Fig 1(c)-(f)).
* ``pxcp-fig2`` (:mod:`.fig2`): utilisation of P./N.P. Reno, NewReno, HSTCP
  and XCP (C.P.) with the bottleneck buffer at P. XCP's maximum occupancy
  (Fig 2(a)).
* ``pxcp-fig3`` (:mod:`.fig3`): 40 long flows beside 0-400 short-flow
  nodes; P. XCP C.P.'s maximum occupancy, then every protocol with it as the
  bottleneck buffer (Fig 3).
* ``pxcp-fig4-table1`` (:mod:`.fig4_table1`): the 3-link parking lot,
  per-link utilisation (Fig 4) and Jain's index (Table 1).
* ``pxcp-ns2`` (:mod:`.ns2`): ccsim's XCP against the recorded ns-2.35 run
  of a 20 Mb/s dumbbell with 2, 10 and 100 flows (checks of source ``ns-2``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from .._kit.ns2ref import figure_flow
from .._kit.setups import scenario as _scenario
from ...scenario import DropTail, Dumbbell, Queue

SOURCE = "Paced XCP/TCP in small buffers (Alparslan, Arakawa, Murata)"

RATE = 622e6                 # bottleneck, OC-12 (§4.2)
EDGE_RATE = 2.4e9            # extension links, OC-48
BOTTLENECK_DELAY = 0.030     # "Bottleneck delay is 30ms"
RTT_RANGE = (0.064, 0.100)   # round-trip propagation, uniform; mean 82 ms
MEAN_RTT = 0.082
PKT_BYTES = 1000             # data packet on the wire, headers included
HEADER = 40
MSS = PKT_BYTES - HEADER
DURATION = 100.0
MEASURE_FROM = 40.0          # "Only the data between [40-100]s is used"
START_SPREAD = 10.0          # flows start uniformly in [0, 10] s
TCP_SSTHRESH = 64
CLOCK_GRANULARITY = 1e-4     # "fine course timers"
#: RTT x BW at the mean RTT, bytes (§4.2.1: "around 6.4 MBytes").
ROT_BUFFER = round(MEAN_RTT * RATE / 8)

#: XCP router parameter sets (§4.1); ccsim's presets hold these values.
XCP_PARAMS = {"O.P.": "original", "C.P.": "conservative"}
CAPACITY = {"O.P.": 1.0, "C.P.": 0.9}

#: The protocols of the paper by its names: ccsim controller and recovery.
PROTOCOLS: Dict[str, Dict[str, Any]] = {
    "Reno": {"cc": "reno", "recovery": "reno"},
    "NewReno": {"cc": "reno", "recovery": "newreno"},
    # ns-2's HSTCP agent (the paper's simulator) uses Low_P = 1.5/Low_Window^2
    "HSTCP": {"cc": "hstcp", "recovery": "sack", "cc_params": {"low_p": 1.5 / 38**2}},
    "XCP": {"cc": "xcp", "recovery": "reno", "cc_params": {"reno_increase": False}},
}
PACING = {"P.": "token_bucket", "N.P.": "none"}


def label(pacing: str, proto: str, params: Optional[str] = None) -> str:
    """The paper's name of a variant: ``P. XCP C.P.``, ``N.P. Reno``."""
    return f"{pacing} {proto}" + (f" {params}" if params else "")


def flow(proto: str, pacing: str, count: int = 1, **fields: Any) -> Dict[str, Any]:
    """``count`` long FTP flows of ``proto`` (a :data:`PROTOCOLS` name),
    paced (``"P."``) or not (``"N.P."``), starting in [0, 10] s with RTTs
    uniform on [64, 100] ms; ``fields`` override any of it; then ns-2 mode
    (module docstring), whose fields win."""
    if pacing not in PACING:
        raise ValueError(f"pacing {pacing!r}: allowed {', '.join(PACING)}")
    f: Dict[str, Any] = {"count": count, "mss_bytes": MSS, "header_bytes": HEADER, **PROTOCOLS[proto],
                         "pacing": PACING[pacing], "rtt_range_s": list(RTT_RANGE),
                         "start_spread_s": START_SPREAD, "clock_granularity_s": CLOCK_GRANULARITY}
    if proto != "XCP":
        f["init_ssthresh_pkts"] = TCP_SSTHRESH
    f.update(fields)
    # every agent, XCP's too, in ns-2 mode with timestamps, with the
    # defaults of the release the paper names, 2.28 (module docstring)
    return figure_flow(f, timestamps=True, release="2.28")


def two_way(f: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The flows ``f`` and the same in the reverse direction (two-way traffic)."""
    return [dict(f), {**f, "direction": "reverse"}]


def queue(limit_bytes: int, params: Optional[str] = None) -> Queue:
    """A byte-limited drop-tail queue, with an XCP router of the set
    ``params`` (``"O.P."``/``"C.P."``) if given."""
    q = DropTail(limit_bytes=int(limit_bytes))
    if params is not None:
        q.xcp = {"params": XCP_PARAMS[params], "count_acks": True}
    return q


def dumbbell(buffer_bytes: int, params: Optional[str] = None) -> Dict[str, Any]:
    """§4.2's dumbbell: bottleneck buffer ``buffer_bytes`` (XCP routers of
    ``params`` on both directions if given), access queues at the rule of
    thumb."""
    return Dumbbell(bottleneck_rate_bps=RATE, bottleneck_delay_s=BOTTLENECK_DELAY,
                    bottleneck_queue=queue(buffer_bytes, params), edge_rate_bps=EDGE_RATE,
                    edge_queue=DropTail(limit_bytes=ROT_BUFFER)).to_dict()


def scenario(name: str, topology: Dict[str, Any], flows: List[Dict[str, Any]], duration: float = DURATION,
             warmup: float = MEASURE_FROM, sample: float = 0.0) -> Dict[str, Any]:
    """A run of ``duration`` measured after ``warmup`` (series off unless
    ``sample``)."""
    return _scenario(name, duration, topology, flows, warmup_s=warmup, sample_interval_s=sample)


def xcp_variants() -> List[tuple]:
    """(pacing, parameter set) of Fig 1: P./N.P. x O.P./C.P."""
    return [(p, s) for p in PACING for s in XCP_PARAMS]


def long_flow_sweep(name: str, proto: str, pacing: str, params: Optional[str], ns: List[int],
                    buffers: Dict[int, int], duration: float = DURATION, warmup: float = MEASURE_FROM,
                    sample: float = 0.0):
    """One :class:`~.._kit.Sweep` of §4.2's long-flow dumbbell over the flow
    counts ``ns`` (per direction), the bottleneck buffer ``buffers[n]``
    bytes; labels are ``(variant label, n)``."""
    from .._kit import Sweep

    base = scenario(name, dumbbell(ROT_BUFFER, params), two_way(flow(proto, pacing, 1)), duration, warmup, sample)
    points = [{"flows.0.count": n, "flows.1.count": n, "topology.bottleneck_queue.limit_bytes": int(buffers[n])}
              for n in ns]
    return Sweep(base, points, [(label(pacing, proto, params), n) for n in ns])


def bottleneck_stats(res) -> Dict[str, float]:
    """The forward bottleneck's (first monitored link's) utilisation (all
    bytes on the wire over the measured time, ACKs included, as the link's
    utilisation in ns-2), maximum queue over the whole run, drops (after the
    warm-up); packets dropped anywhere in the network over the whole run
    (``drops_all``, the conservation count); and the flows' timeouts and retransmissions."""
    b = res.bottleneck()
    flows = res.raw["flows"]
    return {"utilization": float(b["utilization"]), "max_queue_bytes": int(b["max_queue_bytes"]),
            "max_queue_pkts": int(b["max_queue_pkts"]), "avg_queue_bytes": float(b["avg_queue_bytes"]),
            "drops": int(b["drops"]), "drops_all": int(res.raw["conservation"]["dropped"]),
            "timeouts": int(sum(f["timeouts"] for f in flows)),
            "retransmits": int(sum(f["retransmits"] for f in flows))}
