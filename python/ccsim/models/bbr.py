"""BBR v1's share of a link against loss-based flows in a deep DropTail
buffer: the model of Ware, Mukerjee, Seshan, Sherry, "Modeling BBR's
Interactions with Loss-Based Congestion Control", IMC 2019.

Competing with loss-based flows that keep the queue full, BBR is limited
by its in-flight cap ``2 · BtlBw_est · RTprop_est`` rather than by its
pacing rate. With c the link rate (packets/s), l the propagation round
trip, q the buffer (packets, ``q = X·c·l`` for a buffer of X BDPs), N BBR
flows and p the loss-based flows' share of the link (and, the queue being
full, of the queue):

* ``BtlBw_est = (1 - p) c`` (BBR's aggregate delivery rate);
* ``RTprop_est = (p q + 4N)/c + l``: BBR measures its RTT in ProbeRTT,
  where its flows hold 4 packets each and the loss-based flows' p·q
  queued packets stay (the paper's eq. (7));
* setting the cap equal to what BBR has in flight, ``(1 - p)(q + c l)``,
  gives ``p = 1/2 - 1/(2X) - 4N/q`` (eq. (9)), BBR's share ``1 - p``
  before ProbeRTT (1 when p < 0);
* BBR sends almost nothing in ProbeRTT, which lasts a queue's drain, the
  200 ms floor and a round trip and recurs every 10 s:
  ``Probe_time = (q/c + 0.2 + l) · d/10`` over a time d (eq. (11)), so
  over d the share is ``(1 - p)(d - Probe_time)/d`` (eq. (10)).

The authors report the model within a median error of 5% of their
testbed's BBR share against CUBIC.

The model holds BBR's RTT estimate at the loss-based flows' queue p·q. When
BBR drains its own packets in ProbeRTT the loss-based flows keep their
in-flight ``p (q + c l)``, which is their queue only once the pipe's
``c l`` is filled: if ``p (q + c l) < c l`` the queue empties and BBR
measures the propagation delay l instead. :func:`queue_persists` says
whether the model's own p leaves a queue (this is ccsim's reading, used
to say where the model applies; it is not in the paper).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Linux tcp_bbr.c: bbr_min_rtt_win_sec (the RTprop filter, s) and
#: bbr_probe_rtt_mode_ms (ProbeRTT's floor, s); Ware et al. use the same.
MIN_RTT_WIN_S = 10.0
PROBE_RTT_S = 0.2
#: packets each BBR flow keeps in flight in ProbeRTT (bbr_cwnd_min_target)
PROBE_RTT_CWND = 4


@dataclass(frozen=True)
class WareShare:
    """The model's numbers for one setting."""

    loss_share: float        #: p (eq. 9), clipped at 0
    bbr_cap_share: float     #: 1 - p: BBR's share while cap-limited
    probe_fraction: float    #: Probe_time / d (eq. 11)
    bbr_share: float         #: (1 - p)(1 - Probe_time/d) (eq. 10)
    queue_pkts: float        #: q
    bdp_pkts: float          #: c l


def ware_share(rate_bps: float, rtt_s: float, buffer_bdp: float, n_bbr: int = 1, packet_bytes: int = 1500,
               probe_rtt_s: float = PROBE_RTT_S, min_rtt_win_s: float = MIN_RTT_WIN_S) -> WareShare:
    """Ware et al.'s eqs. (9)-(11) for ``n_bbr`` BBR flows against any
    number of loss-based flows on a link of ``rate_bps`` with propagation
    round trip ``rtt_s`` and a DropTail buffer of ``buffer_bdp`` BDPs
    (packets of ``packet_bytes``)."""
    if buffer_bdp <= 0 or rate_bps <= 0 or rtt_s <= 0 or n_bbr < 1:
        raise ValueError("rate, rtt and buffer must be > 0 and n_bbr >= 1")
    c = rate_bps / (8.0 * packet_bytes)
    bdp = c * rtt_s
    q = buffer_bdp * bdp
    p = max(0.0, 0.5 - 1.0 / (2.0 * buffer_bdp) - PROBE_RTT_CWND * n_bbr / q)
    probe = (q / c + probe_rtt_s + rtt_s) / min_rtt_win_s
    return WareShare(loss_share=p, bbr_cap_share=1.0 - p, probe_fraction=probe,
                     bbr_share=(1.0 - p) * (1.0 - probe), queue_pkts=q, bdp_pkts=bdp)


def queue_persists(m: WareShare) -> bool:
    """Do the loss-based flows' in-flight packets at the model's p, p·(q +
    c·l), exceed the pipe c·l, so that a queue remains while BBR drains its
    own in ProbeRTT (the premise of the model's RTprop_est)? ccsim's
    reading, see the module docstring."""
    return m.loss_share * (m.queue_pkts + m.bdp_pkts) > m.bdp_pkts


def probe_rtt_utilisation(rtt_s: float, probe_rtt_s: float = PROBE_RTT_S,
                          min_rtt_win_s: float = MIN_RTT_WIN_S) -> float:
    """A lone BBR flow's utilisation with no standing queue: eq. (11) with
    nothing queued to drain, ``1 - (0.2 + l)/10``."""
    return 1.0 - (probe_rtt_s + rtt_s) / min_rtt_win_s


#: ProbeBW's gain cycle (Cardwell et al. 2016; Linux bbr_pacing_gain): one
#: phase at 5/4, one at 3/4, six at 1, each about one RTprop long.
PROBE_GAIN = 1.25


def probe_queue_bdp(gain: float = PROBE_GAIN) -> float:
    """The queue (in BDPs) a lone flow builds in the probing phase: it
    sends ``gain`` x BtlBw for one RTprop into a link that serves BtlBw,
    leaving ``(gain - 1)`` BDP queued at the phase's end."""
    return gain - 1.0


__all__ = ["WareShare", "ware_share", "queue_persists", "probe_rtt_utilisation", "probe_queue_bdp",
           "MIN_RTT_WIN_S", "PROBE_RTT_S", "PROBE_RTT_CWND", "PROBE_GAIN"]
