"""Scenario pieces every paper shares: packet size, protocols, dumbbell.

The three papers ran ns-2 (E-TCP, LTCP §V-A, H-TCP) with its default
packets, 1000-byte payloads in 1040-byte packets; that is :data:`MSS`,
:data:`HEADER` and :data:`PKT_BYTES` everywhere a paper does not use a
testbed's own packets.

:data:`PROTOCOLS` names the agents as the papers do, each a
:class:`ccsim.scenario.Flow` holding only what distinguishes it (controller,
loss recovery, pacing); :func:`flow` adds the packet size and the
experiment's own fields and gives the ``[[flows]]`` dict a sweep takes.
"""

from __future__ import annotations

import copy
from typing import Any, Dict, List, Optional

from ...scenario import DropTail, Dumbbell, Flow, Scenario

#: ns-2 default segment: payload, TCP/IP header, packet on the wire (bytes).
MSS = 1000
HEADER = 40
PKT_BYTES = MSS + HEADER

#: Agents by the papers' names. ns-2 ``TCP/Reno`` (GWA §6); ns-2 ``TCP/Newreno`` (E-TCP §VI-A) and the
#: same with packet pacing; ``TCP/Sack1`` (LTCP §V-A: Reno window rules
#: with SACK recovery); the high-speed agents with SACK recovery; LTCP on
#: the Sack1 agent; H-TCP (§3.4) with SACK.
PROTOCOLS: Dict[str, Flow] = {
    "Reno": Flow(cc="reno", recovery="reno"),
    "NewReno": Flow(cc="reno", recovery="newreno", pacing="none"),
    "NewReno+pacing": Flow(cc="reno", recovery="newreno", pacing="interval"),
    "Sack1": Flow(cc="reno", recovery="sack"),
    "HSTCP": Flow(cc="hstcp", recovery="sack", pacing="none"),
    "STCP": Flow(cc="stcp", recovery="sack", pacing="none"),
    "FAST": Flow(cc="fast", recovery="sack", pacing="none"),
    "LTCP": Flow(cc="ltcp", recovery="sack"),
    "H-TCP": Flow(cc="htcp", recovery="sack"),
}


def protocol(name: str, **cc_params: Any) -> Flow:
    """The agent ``name`` from :data:`PROTOCOLS` (a copy), with ``cc_params``
    set if given."""
    f = copy.deepcopy(PROTOCOLS[name])
    if cc_params:
        f.cc_params = dict(cc_params)
    return f


def protocol_fields(name: str, **cc_params: Any) -> Dict[str, Any]:
    """The fields of :func:`protocol` as a dict (for ``flows.N.*`` overrides)."""
    return protocol(name, **cc_params).to_dict()


def flow(name: str, cc_params: Optional[Dict[str, Any]] = None, **fields: Any) -> Dict[str, Any]:
    """A ``[[flows]]`` dict: ns-2 packets (:data:`MSS` + :data:`HEADER`),
    the agent ``name``, then ``fields`` (any :class:`~ccsim.scenario.Flow`
    field; they win over the packet size and the agent's own)."""
    d = {"mss_bytes": MSS, "header_bytes": HEADER}
    d.update(protocol_fields(name, **(cc_params or {})))
    d.update(fields)
    return d


#: The papers' TCP, in every field a TCP flow of an experiment leaves out:
#: NewReno recovery, an initial window of 2, one ACK per segment, and a
#: flow that asks for delayed ACKs gets the fixed timer (ns-2's
#: ``DelAckSink``). These were the ``rfc`` personality's defaults when the
#: reproductions were made; the personality now follows Linux and ns-3
#: (SACK, an initial window of 10, Linux's delayed ACKs), and the
#: experiments keep their own TCP (:func:`paper_tcp`, applied by the driver).
PAPER_TCP = {"recovery": "newreno", "init_cwnd_pkts": 2, "delayed_ack": False, "delack_model": "fixed"}


def paper_tcp(flow: Dict[str, Any]) -> Dict[str, Any]:
    """``flow`` (a ``[[flows]]`` dict) with :data:`PAPER_TCP` in the fields
    it leaves out, if it is a TCP flow (other transports untouched)."""
    return {**PAPER_TCP, **flow} if flow.get("transport", "tcp") == "tcp" else flow


def dumbbell(rate_bps: float, buffer_pkts: int, *, delay_s: Optional[float] = None,
             edge_rate_bps: Optional[float] = None, edge_delay_s: Optional[float] = None,
             edge_buffer_pkts: Optional[int] = None, loss: Optional[float] = None) -> Dict[str, Any]:
    """The Fig 4 dumbbell of the E-TCP and LTCP papers (and the H-TCP
    paper's single bottleneck): DropTail bottleneck of ``buffer_pkts``;
    what is left ``None`` takes the engine's default."""
    return Dumbbell(
        bottleneck_rate_bps=rate_bps,
        bottleneck_delay_s=delay_s,
        bottleneck_queue=DropTail(limit_pkts=int(buffer_pkts)),
        bottleneck_loss=loss,
        edge_rate_bps=edge_rate_bps,
        edge_delay_s=edge_delay_s,
        edge_queue=DropTail(limit_pkts=int(edge_buffer_pkts)) if edge_buffer_pkts is not None else None,
    ).to_dict()


def scenario(name: str, duration_s: float, topology: Dict[str, Any], flows: List[Dict[str, Any]], *,
             warmup_s: float = 0.0, sample_interval_s: float = 0.0) -> Dict[str, Any]:
    """A scenario dict (what :func:`ccsim.sweep.sweep` takes as its base).
    Sampling is off unless ``sample_interval_s`` is given (the engine's
    default is 0.1 s)."""
    return Scenario(name=name, duration_s=duration_s, warmup_s=warmup_s, sample_interval_s=sample_interval_s,
                    topology=topology, flows=flows).to_dict()


__all__ = ["MSS", "HEADER", "PKT_BYTES", "PROTOCOLS", "PAPER_TCP", "protocol", "protocol_fields", "flow",
           "paper_tcp", "dumbbell", "scenario"]
