//! The network agents act on: links (stages, queue discipline, serialiser,
//! propagation pipe, taps), routes, the packet slab, the clock and the event
//! queue; and the topology builders that wire links into routes.
//!
//! How a packet moves: an agent calls `Net::send`, which takes a slab slot
//! and offers the packet to the first link of its flow's route. The link
//! runs its stages, then its queue discipline; when the serialiser takes the
//! packet it is appended to the propagation pipe with its arrival time; when
//! the pipe's head arrives, `pipe_arrival` hands it to the next link of the
//! route, or, at the end of the route, returns it for delivery to the flow's
//! endpoint. A packet carries its flow and its position in the flow's route.
pub mod ctx;
pub(crate) mod cut_log;
pub mod host_delay;
pub(crate) mod line;
pub mod link;
pub mod packet;
pub mod qdelay;
pub mod queue;
pub mod span;
pub mod stage;
pub mod tap;
pub mod topology;
pub(crate) mod vfifo;

pub use ctx::LinkCtx;
use ctx::Now;
pub use link::Link;
use packet::NO_PKT;
pub use packet::{Packet, PacketPool, PktId};

use crate::scenario::Ties;
use crate::sim::{EventKind, EventQueue, Owner, Time};
use queue::QueueDiscipline;
use stage::DropReason;
use tap::TapEvent;

/// A flow's path: data links source to sink, ACK links sink to source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    pub fwd: Vec<u32>,
    pub rev: Vec<u32>,
}

/// Where a route's forward and reverse links lie in `Net::hops` (lengths
/// in 16 bits, as a packet's `hop` counter already bounds a route): 12
/// bytes, so that a flow's copy and its packet count fit 16 ([`FlowNet`]).
#[derive(Clone, Copy, Debug, Default)]
struct Span {
    fwd: u32,
    rev: u32,
    fwd_len: u16,
    rev_len: u16,
}

impl Span {
    /// The route's reverse links for an ACK, its forward links otherwise.
    #[inline(always)]
    fn links(self, hops: &[u32], ack: bool) -> &[u32] {
        let (off, len) = if ack { (self.rev, self.rev_len) } else { (self.fwd, self.fwd_len) };
        &hops[off as usize..off as usize + len as usize]
    }
}

/// Live flows from which the event loop and the serialisers load ahead what
/// the next events will read (the agent a packet reaches, a queued packet,
/// the next link of its route). With fewer, the agents, links and packets
/// stay in the core's caches and the look-ahead only costs instructions:
/// with 100 flows prefetching the agent made X1 6-12% slower
/// (docs/decisions/2026-11-25-per-hop-layout.md); from about a thousand
/// (an agent and its four access links are about 3 KB) they outgrow a
/// 1 MB second-level cache.
pub(crate) const MANY_FLOWS: usize = 1024;

/// A flow's entry of what every hop reads: its route's `Span` and its
/// packets in the network. Why a copy of the route's span per flow: with one
/// route per flow (a dumbbell's own access links) a hop read the flow's
/// route number, then that route's span, two dependent loads each missing
/// the cache with thousands of flows (4.5 of the 36 first-level misses per
/// packet of 10,000 flows, cachegrind), and the packet count on a third
/// line; here one load has all three.
#[derive(Clone, Copy, Debug, Default)]
struct FlowNet {
    span: Span,
    in_net: u32,
}

/// The network and the kernel state agents act on.
#[derive(Default)]
pub struct Net {
    pub now: Time,
    pub events: EventQueue,
    pub pkts: PacketPool,
    pub links: Vec<Link>,
    /// The routes (shared by every flow between the same host pair): each
    /// route's forward then reverse links, concatenated, and per route
    /// where its two lie in it (`Span`): what a hop reads, in one small
    /// array. Kept as `Route` rows, a hop would read a flow's route number,
    /// the route's row and then the row's own heap vector, three dependent
    /// loads on lines of their own, each a cache miss when megabytes of
    /// packets are in flight (docs/decisions/2026-11-25-per-hop-layout.md).
    hops: Vec<u32>,
    route_span: Vec<Span>,
    /// Per flow: where its route's links lie in `hops`, and how many of
    /// its packets are in the network, in one 16-byte entry (a web
    /// workload creates hundreds of thousands of flows).
    flow_net: Vec<FlowNet>,
    /// Flows alive now (their agents exist), kept by the flow table.
    pub(crate) live_flows: usize,
    /// Flows whose last packet in the network was just dropped (their
    /// owner may free them); drained by the event loop.
    pub(crate) drained: Vec<u32>,
    pub created: u64,
    pub delivered: u64,
    pub dropped: u64,
    /// CE marks per flow id, made by the links' disciplines and stages
    /// (`LinkCtx::count_mark`); a flow marked never is absent or 0.
    ce_marks: Vec<u64>,
    /// Packets dropped per flow id, `[data, ACKs]` (`drop_pkt`: a
    /// discipline's or stage's drop, or random loss); a flow never dropped
    /// is absent or zero. Kept apart from `flow_net`, which the forwarding
    /// path reads at every hop, since drops are rare.
    flow_drops: Vec<[u64; 2]>,
    /// The scenario's master seed: agents created during the run derive
    /// their random streams from it (`sim::rng::stream`).
    pub seed: u64,
    /// ns-2's default random stream, for the owners that draw from it
    /// (`rng = "ns2"`), seeded from the scenario's seed when one does.
    pub ns2_rng: crate::sim::ns2rng::Ns2Rng,
    /// Some link is a sending host's interface (`txqueuelen`): without one,
    /// [`Net::local_queue_full`] answers without a route lookup per packet.
    local_queues: bool,
    /// ns-2's floating-point clock, with `ns2_clock = true`: orders events
    /// tied on one integer instant as ns-2 does (`sim::ns2clock`).
    pub ns2_clock: Option<Box<crate::sim::ns2clock::Ns2Clock>>,
    /// Per link, the shared wire it puts its packets on when they arrive in
    /// order (`line::NO_LINE`: none), and the shared wires (`net::line`).
    link_line: Vec<u32>,
    lines: Vec<line::Line>,
    /// The packets cut through a link that have not reached it yet, for
    /// [`Net::link_counters_at`] (`net::cut_log`).
    cuts: cut_log::CutLog,
}

/// The network-wide parts a link's owners act on (`ctx::Shared`),
/// borrowed field by field beside a link of `$net.links`.
macro_rules! shared {
    ($net:ident) => {
        ctx::Shared {
            seed: $net.seed,
            events: &mut $net.events,
            ns2_rng: &mut $net.ns2_rng,
            flow_marks: &mut $net.ce_marks,
        }
    };
}

impl Net {
    pub fn new(mut links: Vec<Link>, routes: Vec<Route>) -> Self {
        // Built by pushing: give back the growth slack (up to half the
        // vector on a topology of thousands of links).
        links.shrink_to_fit();
        for r in &routes {
            for hops in [&r.fwd, &r.rev] {
                for (k, &l) in hops.iter().enumerate() {
                    let from = if k == 0 { link::FEED_MANY } else { hops[k - 1] };
                    let f = &mut links[l as usize].feeder;
                    if *f == link::FEED_NONE {
                        *f = from;
                    } else if *f != from {
                        *f = link::FEED_MANY;
                    }
                }
            }
        }
        let local_queues = links.iter().any(|l| l.txqueuelen().is_some());
        for l in &mut links {
            l.update_virtual();
        }
        let mut hops = Vec::new();
        let mut route_span = Vec::with_capacity(routes.len());
        for r in &routes {
            let fwd = hops.len() as u32;
            hops.extend_from_slice(&r.fwd);
            let rev = hops.len() as u32;
            hops.extend_from_slice(&r.rev);
            route_span.push(Span { fwd, rev, fwd_len: r.fwd.len() as u16, rev_len: r.rev.len() as u16 });
        }
        let mut net = Net { links, hops, route_span, local_queues, ..Default::default() };
        net.share_wires();
        net
    }

    /// Give every link its own wire (no shared wires, `net::line`): runs
    /// then order the arrivals of one instant on sibling links by when
    /// each was scheduled, as before shared wires, for comparisons. Call
    /// before the first packet is sent.
    pub fn unshare_wires(&mut self) {
        self.regroup_wires(false);
    }

    /// Group the links into shared wires again (`net::line`), as `new`
    /// does: after their tie orders changed (`Link::set_ties`). Call
    /// before the first packet is sent.
    pub fn share_wires(&mut self) {
        self.regroup_wires(true);
    }

    fn regroup_wires(&mut self, shared: bool) {
        assert!(self.lines.iter().all(|l| l.head == NO_PKT), "wires regrouped with packets on a shared wire");
        let (link_line, n) =
            if shared { line::assign(&self.links) } else { (vec![line::NO_LINE; self.links.len()], 0) };
        self.link_line = link_line;
        self.lines = vec![line::Line::default(); n];
    }

    /// How many shared wires the links are grouped into (`net::line`).
    pub fn shared_wires(&self) -> usize {
        self.lines.len()
    }

    /// Append a stage to link `l` ([`Link::add_stage`]), its random
    /// stream derived from the scenario's seed (`seed`).
    pub fn add_stage(&mut self, l: usize, stage: Box<dyn stage::Stage>) {
        self.links[l].add_stage(stage, self.seed);
    }

    /// Make link `l` a sending host's interface holding `n` packets (or
    /// an ordinary link, `None`); see [`Link::txqueuelen`].
    pub fn set_txqueuelen(&mut self, l: usize, n: Option<usize>) {
        self.links[l].set_txqueuelen(n);
        self.local_queues = self.links.iter().any(|l| l.txqueuelen().is_some());
    }

    /// The links `flow`'s packets cross: its route's reverse links for
    /// an ACK, its forward links otherwise.
    #[inline(always)]
    fn path(&self, flow: u32, ack: bool) -> &[u32] {
        self.flow_net[flow as usize].span.links(&self.hops, ack)
    }

    /// The link after the one packet `id` is on, along its route, if any.
    #[inline]
    fn next_hop(&self, id: PktId) -> Option<usize> {
        let p = self.pkts.get(id);
        self.path(p.flow, p.is_ack()).get(p.hop as usize + 1).map(|&l| l as usize)
    }

    /// Register flow `flow` on route `route` (flows are numbered densely).
    pub fn add_flow(&mut self, flow: u32, route: u32) {
        debug_assert_eq!(flow as usize, self.flow_net.len());
        self.flow_net.push(FlowNet { span: self.route_span[route as usize], in_net: 0 });
    }

    /// Round-trip propagation delay of a route (both directions' links).
    pub fn route_rtt_s(&self, route: u32) -> f64 {
        let s = self.route_span[route as usize];
        let (fwd, rev) = (s.links(&self.hops, false), s.links(&self.hops, true));
        fwd.iter().chain(rev).map(|&l| crate::sim::time::to_secs(self.links[l as usize].delay)).sum()
    }

    /// CE marks the queues and stages set on `flow`'s packets so far (each
    /// counted where it was made, so they add up to the links' `marks`).
    pub fn ce_marks(&self, flow: u32) -> u64 {
        self.ce_marks.get(flow as usize).copied().unwrap_or(0)
    }

    /// Packets of `flow` dropped so far, `[data, ACKs]` (a discipline's
    /// or stage's drop, or random loss: they add up to the links' `drops`
    /// and `random_losses`).
    pub fn flow_drops(&self, flow: u32) -> [u64; 2] {
        self.flow_drops.get(flow as usize).copied().unwrap_or_default()
    }

    /// Packets of `flow` in queues and pipes.
    pub fn flow_in_network(&self, flow: u32) -> u32 {
        self.flow_net[flow as usize].in_net
    }

    /// Whether the sending host's interface queue of `flow`'s data (the
    /// first link of its route, if it has a `txqueuelen`) is full: Linux's
    /// pfifo_fast admits a packet while its band holds fewer than
    /// `dev->tx_queue_len` and returns NET_XMIT_DROP otherwise
    /// (net/sched/sch_generic.c `pfifo_fast_enqueue`). The packet being
    /// serialised has left the queue, as one handed to the driver has.
    #[inline]
    pub fn local_queue_full(&self, flow: u32) -> bool {
        if !self.local_queues {
            return false;
        }
        let first = self.path(flow, false)[0] as usize;
        self.links[first].local_queue_full()
    }

    /// Inject a packet at the start of its flow's route.
    pub fn send(&mut self, p: Packet) {
        let flow = p.flow as usize;
        let first = self.path(p.flow, p.is_ack())[0];
        let id = self.pkts.alloc(p);
        self.created += 1;
        self.flow_net[flow].in_net += 1;
        self.link_arrive(first as usize, id);
    }

    fn drop_pkt(&mut self, l: usize, id: PktId, reason: DropReason) {
        let link = &mut self.links[l];
        match reason {
            DropReason::Random => link.count_random_loss(),
            DropReason::Congestion => link.count_drop(),
        }
        link.notify(TapEvent::Drop, self.now, &self.pkts, id);
        self.dropped += 1;
        let p = self.pkts.get(id);
        let (flow, ack) = (p.flow as usize, p.is_ack());
        if flow >= self.flow_drops.len() {
            self.flow_drops.resize(flow + 1, [0; 2]);
        }
        self.flow_drops[flow][ack as usize] += 1;
        let f = &mut self.flow_net[flow].in_net;
        *f -= 1;
        if *f == 0 {
            self.drained.push(flow as u32);
        }
        self.pkts.free(id);
    }

    /// This instant, with ns-2's `double` of it under `ns2_clock = true`.
    #[inline]
    fn now_at(&self) -> Now {
        Now { t: self.now, ns2: self.ns2_clock.as_deref().map(|c| c.now) }
    }

    fn link_arrive(&mut self, l: usize, id: PktId) {
        let now = self.now;
        let link = &mut self.links[l];
        if link.virt {
            return self.virtual_arrive(l, id);
        }
        link.integrate_queue(now);
        link.count_arrival();
        let can_serve = link.can_serve(now);
        if let Some(q) = link.plain_droptail() {
            // Fast path (DropTail, no stages, no taps): the discipline's own
            // rules without the general machinery. An arrival at an idle
            // link is admitted and handed straight back, so it goes to the
            // serialiser at once; the events and counters are the same.
            if can_serve && q.len_pkts() == 0 {
                return self.transmit(l, id);
            }
            let size = self.pkts.get(id).size;
            if !q.admit(false, id, size, &mut self.pkts) {
                return self.drop_pkt(l, id, DropReason::Congestion);
            }
            self.pkts.set_queued_at(id, now);
        } else {
            // (a field of its own: `link` holds `self.links`)
            let at = Now { t: now, ns2: self.ns2_clock.as_deref().map(|c| c.now) };
            // The same for the stages and the discipline: a stage neither
            // queues nor serves.
            let idle = can_serve && link.queue.len_pkts() == 0;
            if let Some(reason) = link.stages_enqueue(at, idle, &mut self.pkts, &mut shared!(self), id) {
                return self.drop_pkt(l, id, reason);
            }
            link.notify(TapEvent::Enqueue, now, &self.pkts, id);
            if idle && link.queue.passes_idle() {
                // Admitted and taken straight back (`Queue::passes_idle`):
                // on a DRR bottleneck, most ACKs of the other direction.
                link.stages_dequeue(at, &mut self.pkts, &mut shared!(self), id);
                link.notify(TapEvent::Dequeue, now, &self.pkts, id);
                return self.transmit(l, id);
            }
            self.pkts.set_queued_at(id, now);
            let admitted = link.enqueue(at, idle, &mut self.pkts, &mut shared!(self), id);
            while let Some(e) = self.links[l].pop_evicted() {
                self.drop_pkt(l, e, DropReason::Congestion);
            }
            if !admitted {
                return self.drop_pkt(l, id, DropReason::Congestion);
            }
        }
        let link = &mut self.links[l];
        if link.can_serve(now) {
            self.serve(l);
        } else if !link.free_scheduled {
            link.free_scheduled = true;
            self.events.schedule(link.busy_until, Owner::new(EventKind::LinkFree, l as u32, 0), 0);
        }
        let link = &mut self.links[l];
        // (a queue's packets are packets of the pool: `u32` ids)
        link.max_queue_pkts = link.max_queue_pkts.max(link.queue.len_pkts() as u32);
        link.max_queue_bytes = link.max_queue_bytes.max(link.queue.len_bytes());
    }

    /// A packet arrives at a virtual FIFO (`Link::virt`, `net::vfifo`) by
    /// an event or from its sender: dropped now if the buffer is full, or
    /// else placed on the wire at once with its transmission start
    /// computed, and cut through the hops after it as `transmit` does.
    #[inline]
    fn virtual_arrive(&mut self, l: usize, id: PktId) {
        let now = self.now;
        let size = self.pkts.get(id).size;
        let link = &mut self.links[l];
        let taps = link.has_taps();
        if taps {
            link.notify(TapEvent::Enqueue, now, &self.pkts, id);
        }
        if link.busy_until <= now {
            // Idle: straight into service, as any DropTail link.
            link.count_arrival();
            if taps {
                link.notify(TapEvent::Dequeue, now, &self.pkts, id);
            }
            return self.transmit(l, id);
        }
        let Some(start) = link.v_admit(now, now, size) else {
            link.count_arrival();
            return self.drop_pkt(l, id, DropReason::Congestion);
        };
        if taps {
            if start == now {
                link.notify(TapEvent::Dequeue, now, &self.pkts, id);
            } else {
                let p = *self.pkts.get(id);
                link.defer(TapEvent::Dequeue, start, id, &p);
            }
        }
        let arrive = link.busy_until.saturating_add(link.delay);
        self.walk(l, id, arrive);
    }

    /// The serialiser of link `l` is free: start the next packet, if any,
    /// and schedule `LinkFree` while more wait.
    #[inline]
    fn serve(&mut self, l: usize) {
        let at = self.now_at();
        let link = &mut self.links[l];
        let next = link.dequeue(at, &mut self.pkts, &mut shared!(self));
        // Packets the discipline dropped while choosing (CoDel's head drops).
        while let Some(e) = self.links[l].pop_evicted() {
            self.drop_pkt(l, e, DropReason::Congestion);
        }
        let Some(id) = next else {
            return;
        };
        let link = &mut self.links[l];
        if link.records_qdelay() {
            let class = link.queue.dequeue_class(id, &self.pkts);
            let queued = self.pkts.queued_at(id);
            debug_assert!(queued <= at.t, "a packet served before it was queued");
            link.record_wait(at.t - queued, class);
        }
        link.notify(TapEvent::Dequeue, at.t, &self.pkts, id);
        if self.many_flows() {
            self.prefetch_queued(l);
        }
        self.transmit(l, id);
    }

    /// Flows enough that their links and packets outgrow the core's caches
    /// (`MANY_FLOWS`): the event loop and the serialiser then load ahead.
    #[inline(always)]
    pub(crate) fn many_flows(&self) -> bool {
        self.live_flows >= MANY_FLOWS
    }

    /// Start loading what serving link `l`'s next packets will read: the
    /// slot of the packet after the next, and the next link of the next
    /// packet (whose slot the previous serve began loading). With
    /// thousands of flows, both waited at a bottleneck's every serve: the
    /// packet, queued a queue's drain ago, and the far side's access link
    /// of its flow, which the cut-through walk reads first (`can_cut`).
    #[inline(always)]
    fn prefetch_queued(&self, l: usize) {
        let q = &self.links[l].queue;
        if let Some(id) = q.upcoming(1, &self.pkts) {
            self.pkts.prefetch_head(id);
        }
        if let Some(id) = q.upcoming(0, &self.pkts) {
            let p = self.pkts.get(id);
            if let Some(&n) = self.path(p.flow, p.is_ack()).get(p.hop as usize + 1) {
                packet::prefetch_span(&self.links[n as usize], 64);
            }
        }
    }

    /// Start loading the first link of `flow`'s data path (`ack`: its
    /// sender is about to receive an ACK and may send) or of its ACK path
    /// (its receiver is about to receive data and may acknowledge it).
    #[inline(always)]
    pub(crate) fn prefetch_first_link(&self, flow: u32, ack: bool) {
        if let Some(f) = self.flow_net.get(flow as usize) {
            let first = if ack { f.span.fwd } else { f.span.rev };
            if let Some(&n) = self.hops.get(first as usize) {
                packet::prefetch_span(&self.links[n as usize], 64);
            }
        }
    }

    /// Start serialising `id` on link `l` (its serialiser is free).
    ///
    /// Then cut through the hops after it that the packet will find idle:
    /// when the next link is fed by this one alone and will certainly be
    /// free and empty when the packet reaches it (`Link::can_cut`), what
    /// that arrival event would do is known now: the packet goes straight
    /// into service there. So it is placed on that link's wire at once,
    /// with the same arrival time at its far end, and its arrival event
    /// on this wire never exists. On a dumbbell this crosses every
    /// uncongested hop after the first (a bottleneck's far edge, the whole
    /// ACK path) without an event: 8 events per bottleneck packet on E5
    /// became 5. What changes is only the order in which equal-time events
    /// are scheduled (their sequence numbers), and the event count.
    ///
    /// Always inlined: in `link_arrive`'s idle path, where most packets of
    /// a lightly loaded bottleneck cut through, a call's entry and exit
    /// cost about 2% of B3's instructions (inlined: B3 −2.0%, B5 −0.4%,
    /// B2L +0.5% instructions; user time B3 −3 to −6%, B4 −3%, B2L and B5
    /// level; docs/decisions/2026-11-25-per-hop-layout.md).
    #[inline(always)]
    fn transmit(&mut self, l: usize, id: PktId) {
        let now = self.now;
        let size = self.pkts.get(id).size;
        let link = &mut self.links[l];
        link.busy_until = now.saturating_add(link.tx_time(size));
        let mut arrive = link.busy_until.saturating_add(link.delay);
        if link.host_delayed {
            arrive = link.host_delay_arrival(arrive);
        }
        link.count_tx(size);
        if link.ties == Ties::Ns2 {
            return self.transmit_ns2(l, id, arrive);
        }
        if link.queue.len_pkts() > 0 {
            link.free_scheduled = true;
            self.events.schedule(link.busy_until, Owner::new(EventKind::LinkFree, l as u32, 0), 0);
        }
        self.walk(l, id, arrive);
    }

    /// Put packet `id`, leaving link `l`'s serialiser for the far end at
    /// `arrive`, on the wire of the last of the hops from `l` on that it
    /// can be cut through (`transmit`): an idle link that `Link::can_cut`
    /// admits, or a virtual FIFO (`Link::virt`) fed by `l` alone with no
    /// packet still to arrive there by an event, which decides at once when
    /// the packet starts there (a packet it will drop arrives by its event
    /// and is dropped then).
    #[inline(always)]
    fn walk(&mut self, l: usize, id: PktId, mut arrive: Time) {
        let now = self.now;
        let (size, flow, is_ack, hop0) = {
            let p = self.pkts.get(id);
            (p.size, p.flow, p.is_ack(), p.hop)
        };
        let mut on_taps = self.links[l].has_taps();
        // The walk reads the route once and indexes each link once per hop.
        let route = self.flow_net[flow as usize].span.links(&self.hops, is_ack);
        let mut hop = hop0 as usize;
        let mut on = l;
        while let Some(&next) = route.get(hop + 1) {
            let next = next as usize;
            let nl = &mut self.links[next];
            let idle_cut = nl.can_cut(on, arrive);
            if nl.virt && !idle_cut {
                // A busy virtual FIFO (an idle one is cut into below).
                let start =
                    if nl.feeder == on as u32 && nl.inbound == 0 { nl.v_admit(now, arrive, size) } else { None };
                let Some(start) = start else {
                    nl.inbound += 1;
                    break;
                };
                let next_taps = nl.has_taps();
                let at_next = nl.busy_until.saturating_add(nl.delay);
                hop += 1;
                if on_taps || next_taps {
                    defer_cut_events(&mut self.links, self.pkts.get(id), (on, next), hop as u16, id, (arrive, start));
                }
                arrive = at_next;
                on = next;
                on_taps = next_taps;
                continue;
            }
            if !idle_cut {
                nl.inbound += 1;
                break;
            }
            let next_taps = nl.has_taps();
            hop += 1;
            if on_taps || next_taps {
                // Taps see the events the cut replaces when time reaches them.
                defer_cut_events(&mut self.links, self.pkts.get(id), (on, next), hop as u16, id, (arrive, arrive));
            }
            self.cuts.push(now, next, arrive, size);
            arrive = self.links[next].cut_through(arrive, size);
            on = next;
            on_taps = next_taps;
        }
        self.pkts.get_mut(id).hop = hop as u16;
        self.pkts.set_wire(id, arrive);
        let k = self.link_line[on];
        if k != line::NO_LINE && self.lines[k as usize].tail_at <= arrive {
            // In order behind the shared wire's last packet (`net::line`).
            let ln = &mut self.lines[k as usize];
            if ln.head == NO_PKT {
                self.events.schedule(arrive, Owner::new(EventKind::LineArrival, k, 0), id);
                ln.head = id;
            } else {
                self.pkts.set_wire_next(ln.tail, id);
            }
            ln.tail = id;
            ln.tail_at = arrive;
            self.links[on].pipe.len += 1;
            return;
        }
        let link = &mut self.links[on];
        if link.pipe.head == NO_PKT {
            self.events.schedule(arrive, Owner::new(EventKind::PipeArrival, on as u32, 0), id);
            link.pipe.head = id;
        } else {
            self.pkts.set_wire_next(link.pipe.tail, id);
        }
        link.pipe.tail = id;
        link.pipe.len += 1;
    }

    /// `transmit` on a link with `Ties::Ns2`: what ns-2's `LinkDelay::recv`
    /// schedules when a transmission starts, in its order: the packet's
    /// arrival at the far end (an event of its own, not only the wire's
    /// head's), then the link's resume at the end of the transmission
    /// (even with nothing waiting: ns-2's queue stays blocked until then).
    /// The packet is not cut through the next link (`Link::can_cut`).
    #[cold]
    #[inline(never)]
    fn transmit_ns2(&mut self, l: usize, id: PktId, mut arrive: Time) {
        if let Some(next) = self.next_hop(id) {
            self.links[next].inbound += 1;
        }
        if let Some(clock) = self.ns2_clock.as_deref_mut() {
            // both at ns-2's `double` times (`Ns2Clock::transmit`)
            let link = &mut self.links[l];
            (arrive, link.busy_until) = clock.transmit(id, l, self.pkts.get(id).size, link.rate_bps());
        }
        self.pkts.set_wire(id, arrive);
        self.events.schedule(arrive, Owner::new(EventKind::PipeArrival, l as u32, 0), id);
        let link = &mut self.links[l];
        if link.pipe.len == 0 {
            link.pipe.head = id;
        } else {
            self.pkts.set_wire_next(link.pipe.tail, id);
        }
        link.pipe.tail = id;
        link.pipe.len += 1;
        link.free_scheduled = true;
        self.events.schedule(link.busy_until, Owner::new(EventKind::LinkFree, l as u32, 0), 0);
    }

    /// `LinkFree` of link `l` (`gen` 1: already put behind the other
    /// events of its instant once, `Ties::ArrivalFirst`).
    #[inline(always)]
    pub(crate) fn link_free(&mut self, l: usize, gen: u32) {
        let link = &mut self.links[l];
        if link.ties != Ties::EventOrder {
            return self.tied_link_free(l, gen);
        }
        link.integrate_queue(self.now);
        link.free_scheduled = false;
        self.serve(l);
    }

    /// `LinkFree` of a link with `Ties::ArrivalFirst`: the first time, if
    /// other events share its instant, it goes behind them (an arrival
    /// among them it may be); then as any `LinkFree`. With `Ties::Ns2` the
    /// event already sits where ns-2's resume does.
    #[cold]
    #[inline(never)]
    fn tied_link_free(&mut self, l: usize, gen: u32) {
        let link = &mut self.links[l];
        if link.ties == Ties::ArrivalFirst && gen == 0 && self.events.peek_time() == Some(self.now) {
            self.events.schedule(self.now, Owner::new(EventKind::LinkFree, l as u32, 0), 1);
            return;
        }
        link.integrate_queue(self.now);
        link.free_scheduled = false;
        self.serve(l);
    }

    /// A timer of link `l`'s queue or stages fired; a discipline that now
    /// releases a packet to a free serialiser gets it served.
    pub(crate) fn link_timer(&mut self, l: usize, slot: u8, gen: u32) {
        let now = self.now;
        self.links[l].integrate_queue(now);
        let at = self.now_at();
        self.links[l].on_timer(slot, gen, at, &mut self.pkts, &mut shared!(self));
        while let Some(e) = self.links[l].pop_evicted() {
            self.drop_pkt(l, e, DropReason::Congestion);
        }
        if self.links[l].can_serve(now) && self.links[l].queue.len_pkts() > 0 {
            self.serve(l);
        }
    }

    /// The pipe head of link `l` arrives; returns it if its route ends here
    /// (the caller delivers it and frees its slot).
    pub(crate) fn pipe_arrival(&mut self, l: usize) -> Option<PktId> {
        let link = &mut self.links[l];
        debug_assert!(link.pipe.len > 0, "pipe event with a packet");
        let id = link.pipe.head;
        let next = self.pkts.wire(id).1;
        link.pipe.head = next;
        link.pipe.len -= 1;
        if link.ties == Ties::Ns2 {
            // Every packet on this wire has its own event (`transmit_ns2`).
            if next == NO_PKT {
                link.pipe.tail = NO_PKT;
            }
        } else if next != NO_PKT {
            self.schedule_head(Owner::new(EventKind::PipeArrival, l as u32, 0), next);
        } else {
            link.pipe.tail = NO_PKT;
        }
        let next = self.next_hop(id);
        self.arrive_at_end(l, id, next)
    }

    /// Schedule the arrival of `next`, now the head of a wire, for `to`.
    /// Its packet and the wire link after it are read at that event:
    /// start loading both now.
    #[inline(always)]
    fn schedule_head(&mut self, to: Owner, next: PktId) {
        let (t, after) = self.pkts.wire(next);
        self.events.schedule(t, to, next);
        self.pkts.prefetch(next);
        if after != NO_PKT {
            self.pkts.prefetch_head(after);
        }
    }

    /// The head of shared wire `k` (`net::line`) arrives at the far end of
    /// its link; returns it if its route ends there (as `pipe_arrival`).
    pub(crate) fn line_arrival(&mut self, k: usize) -> Option<PktId> {
        let ln = &mut self.lines[k];
        let id = ln.head;
        let next = self.pkts.wire(id).1;
        ln.head = next;
        if next != NO_PKT {
            self.schedule_head(Owner::new(EventKind::LineArrival, k as u32, 0), next);
        } else {
            ln.tail = NO_PKT;
        }
        // The packet's link and the next, from one read of its route.
        let (l, next) = {
            let p = self.pkts.get(id);
            let (path, hop) = (self.path(p.flow, p.is_ack()), p.hop as usize);
            (path[hop] as usize, path.get(hop + 1).map(|&n| n as usize))
        };
        self.links[l].pipe.len -= 1;
        self.arrive_at_end(l, id, next)
    }

    /// Packet `id` reaches the far end of link `l`: on to the next link of
    /// its route, `next`, or returned for delivery if its route ends here.
    #[inline(always)]
    fn arrive_at_end(&mut self, l: usize, id: PktId, next: Option<usize>) -> Option<PktId> {
        self.links[l].notify(TapEvent::Deliver, self.now, &self.pkts, id);
        let p = self.pkts.get_mut(id);
        p.hop += 1;
        match next {
            Some(next) => {
                self.links[next].inbound -= 1;
                self.link_arrive(next, id);
                None
            }
            None => {
                self.delivered += 1;
                self.flow_net[p.flow as usize].in_net -= 1;
                Some(id)
            }
        }
    }

    /// Start loading what an event soon to come will read first (`kind`,
    /// `idx`, `gen` as [`EventQueue::peek_owner`] gives them; `near`: it
    /// is the next one): a hint only, results never depend on it. A pipe
    /// arrival's event carries its packet (the pipe's head) as `gen`, so
    /// its slot is loaded two events ahead without reading the link, and
    /// one event ahead, with that slot at hand, the slot of the packet
    /// behind it, whose arrival time the event reads to schedule the next.
    #[inline(always)]
    pub(crate) fn prefetch_for(&self, kind: EventKind, idx: u32, gen: u32, near: bool) {
        match kind {
            EventKind::PipeArrival if near => {
                if let Some(next) = self.pkts.wire_next(gen) {
                    self.pkts.prefetch_head(next);
                }
            }
            EventKind::PipeArrival => {
                self.pkts.prefetch(gen);
                if let Some(l) = self.links.get(idx as usize) {
                    packet::prefetch_lines(&l.pipe);
                }
            }
            EventKind::LineArrival if near => {
                if let Some(next) = self.pkts.wire_next(gen) {
                    self.pkts.prefetch_head(next);
                }
            }
            EventKind::LineArrival => self.pkts.prefetch(gen),
            EventKind::LinkFree if !near => {
                if let Some(l) = self.links.get(idx as usize) {
                    packet::prefetch_lines(l);
                }
            }
            _ => {}
        }
    }

    /// If packet `id` is on the last link of its route (its arrival there
    /// delivers it), its flow and whether it is an ACK (for the sender)
    /// or data (for the receiver). Reads the packet's slot: call it for
    /// the next event, whose packet the loop began loading an event ago.
    #[inline(always)]
    pub(crate) fn delivery_of(&self, id: PktId) -> Option<(u32, bool)> {
        let p = self.pkts.try_get(id)?;
        let f = self.flow_net.get(p.flow as usize)?;
        let len = if p.is_ack() { f.span.rev_len } else { f.span.fwd_len };
        (p.hop as usize + 1 == len as usize).then_some((p.flow, p.is_ack()))
    }

    /// The packet at the head of link `l`'s wire (the next to arrive at its
    /// far end) and its arrival time.
    pub fn pipe_front(&self, l: usize) -> Option<(Time, PktId)> {
        let head = self.links[l].pipe.head;
        let own = (head != NO_PKT).then(|| (self.pkts.wire(head).0, head));
        let k = self.link_line[l];
        if k == line::NO_LINE {
            return own;
        }
        // the first of the shared wire's packets that crosses link `l`
        let mut id = self.lines[k as usize].head;
        while id != NO_PKT {
            let p = self.pkts.get(id);
            if self.path(p.flow, p.is_ack())[p.hop as usize] as usize == l {
                let on_line = (self.pkts.wire(id).0, id);
                return Some(own.map_or(on_line, |o| o.min(on_line)));
            }
            id = self.pkts.wire(id).1;
        }
        own
    }

    /// Packets on link `l`'s wire at the current time: its pipe, less the
    /// packets cut through to it that have not reached it yet, plus those
    /// cut through from it to the links it feeds that have not left its
    /// wire yet (`transmit`).
    pub fn wire_len(&self, l: usize) -> usize {
        let now = self.now;
        let ahead = |k: usize| self.cuts.ahead(k, now) + self.links[k].not_started(now);
        let fed: usize = (0..self.links.len()).filter(|&k| self.links[k].feeder == l as u32).map(ahead).sum();
        self.links[l].pipe_len() - ahead(l) + fed
    }

    /// Link `l`'s counters at `now` (not before the last event): those of
    /// the event-by-event run at that instant, with the queue integrals
    /// brought up to it and the packets cut through the link that have
    /// not reached it yet taken back (`net::cut_log`).
    pub fn link_counters_at(&self, l: usize, now: Time) -> link::LinkCounters {
        let mut c = self.links[l].counters_with_cuts(now);
        if self.links[l].feeder < link::FEED_MANY {
            // Only a link with one feeder is ever cut into.
            self.cuts.take_back(l, now, &mut c);
        }
        c
    }

    /// [`Net::link_counters_at`] of every link in order, from one pass
    /// over the cuts.
    pub fn all_link_counters_at(&self, now: Time) -> impl Iterator<Item = link::LinkCounters> + '_ {
        let ahead = self.cuts.ahead_by_link(now);
        let mut k = 0;
        self.links.iter().enumerate().map(move |(l, link)| {
            let mut c = link.counters_with_cuts(now);
            while let Some(&(_, size)) = ahead.get(k).filter(|a| a.0 as usize == l) {
                cut_log::take_back_one(size, &mut c);
                k += 1;
            }
            c
        })
    }

    /// Packets in queues and pipes, counted by walking the network.
    pub fn in_flight(&self) -> u64 {
        self.links.iter().map(|l| (l.queue.len_pkts() + l.pipe_len()) as u64).sum()
    }
}

/// The tap events a cut from link `on` to link `next` replaces, deferred
/// (`Net::walk`): the packet leaving `on`'s wire and entering `next`'s queue
/// at `arrive`, and leaving that queue at `start` (at hop `hop`).
#[cold]
#[inline(never)]
fn defer_cut_events(
    links: &mut [Link],
    p: &Packet,
    (on, next): (usize, usize),
    hop: u16,
    id: PktId,
    (arrive, start): (Time, Time),
) {
    let mut p = *p;
    p.hop = hop - 1;
    if links[on].has_taps() {
        links[on].defer(TapEvent::Deliver, arrive, id, &p);
    }
    p.hop = hop;
    if links[next].has_taps() {
        links[next].defer(TapEvent::Enqueue, arrive, id, &p);
        links[next].defer(TapEvent::Dequeue, start, id, &p);
    }
}

#[cfg(test)]
mod tests {
    use super::queue::{DropTail, Limit, Queue};
    use super::*;

    /// One 8 Gb/s link (a 1000-byte packet takes exactly 1 µs), no delay,
    /// one packet of room; packets A and B sent at 0 (A in service, B
    /// waiting), C at 1 µs, the instant A finishes: sent before any event
    /// of that instant runs (`late` false), or by an event scheduled after
    /// A's `LinkFree` (`late` true, as a pipe schedules an arrival). Returns
    /// the packets (flow numbers) in the order they reach the far end, with
    /// times, and the drops.
    fn tie_run(ties: Ties, late: bool) -> (Vec<(Time, u32)>, u64) {
        let q = Queue::DropTail(DropTail::new(Limit::Packets(1)));
        let mut link = Link::new(0, (0, 1), 8e9, 0, q);
        link.ties = ties;
        let mut net = Net::new(vec![link], vec![Route { fwd: vec![0], rev: vec![0] }]);
        for f in 0..3 {
            net.add_flow(f, 0);
        }
        let us = 1_000_000;
        let pkt = |flow| Packet { flow, size: 1000, ..Default::default() };
        net.send(pkt(0));
        net.send(pkt(1));
        if late {
            net.events.schedule(us, Owner::new(EventKind::AgentTimer, 0, 0), 0);
        } else {
            net.now = us;
            net.send(pkt(2));
        }
        let mut out = Vec::new();
        while let Some(e) = net.events.pop() {
            net.now = e.time;
            match e.to.kind {
                EventKind::LinkFree => net.link_free(0, e.gen),
                EventKind::AgentTimer => net.send(pkt(2)),
                EventKind::PipeArrival => {
                    let id = net.pipe_arrival(0).expect("one-link route");
                    out.push((e.time, net.pkts.get(id).flow));
                    net.pkts.free(id);
                }
                k => panic!("unexpected event {k:?}"),
            }
        }
        assert_eq!(net.created, net.delivered + net.dropped, "conservation");
        (out, net.dropped)
    }

    /// Links A and B (8 Gb/s, 10 us) both feed C (1 Gb/s). A sends a1
    /// and a2 (1000 B) at 0: a2 starts at 1 us and reaches C at 12 us. B
    /// sends b1 (500 B) at 1.5 us: it also reaches C at 12 us. ns-2
    /// scheduled a2's arrival when a2's transmission started (1 us),
    /// before b1's (1.5 us), so C takes a2 first; so does the wire A and
    /// B share (`net::line`: equal delay and rate, both into C's node),
    /// on which a2 was placed first; on wires of their own
    /// (`unshare_wires`) a2's arrival is scheduled only when a1 arrives
    /// (11 us), after b1's. Returns the flows in the order they leave C's
    /// wire, and the events run.
    fn two_feeders_run(ties: Ties, shared: bool) -> (Vec<u32>, u64) {
        use super::queue::{DropTail, Limit, Queue};
        let q = || Queue::DropTail(DropTail::new(Limit::Packets(10)));
        let us = 1_000_000;
        let mk = |id, ends, rate| {
            let mut l = Link::new(id, ends, rate, 10 * us, q());
            l.ties = ties;
            l
        };
        let links = vec![mk(0, (0, 2), 8e9), mk(1, (1, 2), 8e9), mk(2, (2, 3), 1e9)];
        let routes = vec![Route { fwd: vec![0, 2], rev: vec![0] }, Route { fwd: vec![1, 2], rev: vec![1] }];
        let mut net = Net::new(links, routes);
        assert_eq!(net.lines.len(), usize::from(ties == Ties::ArrivalFirst), "A and B share a wire");
        if !shared {
            net.unshare_wires();
        }
        net.add_flow(0, 0);
        net.add_flow(1, 1);
        net.send(Packet { flow: 0, size: 1000, ..Default::default() });
        net.send(Packet { flow: 0, size: 1000, ..Default::default() });
        net.events.schedule(3 * us / 2, Owner::new(EventKind::AgentTimer, 1, 0), 0);
        let mut out = Vec::new();
        while let Some(e) = net.events.pop() {
            net.now = e.time;
            match e.to.kind {
                EventKind::LinkFree => net.link_free(e.to.idx as usize, e.gen),
                EventKind::AgentTimer => net.send(Packet { flow: 1, size: 500, ..Default::default() }),
                EventKind::PipeArrival | EventKind::LineArrival => {
                    let end = if e.to.kind == EventKind::PipeArrival {
                        net.pipe_arrival(e.to.idx as usize)
                    } else {
                        net.line_arrival(e.to.idx as usize)
                    };
                    if let Some(id) = end {
                        out.push(net.pkts.get(id).flow);
                        net.pkts.free(id);
                    }
                }
                k => panic!("unexpected event {k:?}"),
            }
        }
        assert_eq!(net.created, net.delivered + net.dropped, "conservation");
        (out, net.events.popped)
    }

    #[test]
    fn ns2_ties_order_arrivals_from_two_links_by_transmission_start() {
        let (ccsim, ev_ccsim) = two_feeders_run(Ties::ArrivalFirst, false);
        let (shared, ev_shared) = two_feeders_run(Ties::ArrivalFirst, true);
        let (ns2, ev_ns2) = two_feeders_run(Ties::Ns2, true);
        assert_eq!(ccsim, [0, 1, 0], "a1, then b1 before a2 (pipe order)");
        assert_eq!(shared, [0, 0, 1], "a1, then a2 before b1 (placed on the shared wire first)");
        assert_eq!(ns2, [0, 0, 1], "a1, then a2 before b1 (ns-2's order)");
        assert_eq!(ev_shared, ev_ccsim, "a shared wire has one event per arrival too");
        // Ns2 has an event per hop and a resume per transmission.
        assert!(ev_ns2 > ev_ccsim, "{ev_ns2} vs {ev_ccsim}");
    }

    #[test]
    fn a_tied_arrival_and_departure_are_ordered_as_configured() {
        let us = 1_000_000;
        let c_dropped = (vec![(us, 0), (2 * us, 1)], 1);
        let c_served = (vec![(us, 0), (2 * us, 1), (3 * us, 2)], 0);
        // C arrives before A's LinkFree runs: both orders find B waiting
        // and the buffer full.
        assert_eq!(tie_run(Ties::EventOrder, false), c_dropped);
        assert_eq!(tie_run(Ties::ArrivalFirst, false), c_dropped);
        // C's arrival is an event scheduled after A's LinkFree (as a pipe
        // schedules one): event order serves B first and admits C;
        // arrival-first puts the departure behind the arrival (ns-2's order).
        assert_eq!(tie_run(Ties::EventOrder, true), c_served);
        assert_eq!(tie_run(Ties::ArrivalFirst, true), c_dropped);
    }
}
