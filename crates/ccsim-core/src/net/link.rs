//! One direction of a link: stages, queue discipline, serialiser,
//! propagation pipe and taps.
//!
//! A packet arriving at the link passes the stages' `on_enqueue` (random
//! loss, router processing), then the queue discipline. The serialiser is
//! modelled by `busy_until`: a packet that starts transmission at `t`
//! occupies the link until `t + size·8/rate` and reaches the far end `delay`
//! later. Because a link delivers in FIFO order, the packet is appended to
//! the pipe at once with its arrival time and only the pipe's head has an
//! event in the global queue (or it joins a wire shared with sibling links,
//! `net::line`); a `LinkFree` event exists only while packets
//! wait. A packet that finds the link idle is admitted by the discipline and
//! taken straight back out, so it still costs a single event.
use super::ctx::{LinkCtx, Now, OwnerState, QueueView, Shared};
use super::host_delay::HostDelay;
use super::packet::{Packet, PacketPool, PktId, NO_PKT};
use super::qdelay::{DelayHistogram, DelayRecorder};
use super::queue::Queue;
use super::stage::{DropReason, Stage, Verdict};
use super::tap::{Tap, TapEvent};
use super::vfifo::VirtualFifo;
use crate::sim::rng::{self, Stream};
use crate::sim::{EventKind, Owner, Time, Timer};
use std::collections::VecDeque;

/// `Link::feeder` of a link no route uses.
pub(crate) const FEED_NONE: u32 = u32::MAX;
/// `Link::feeder` of a link packets enter from several links, or from an
/// agent (the first hop of a route).
pub(crate) const FEED_MANY: u32 = u32::MAX - 1;

/// Counters of one link direction; `snapshot` copies them at warm-up end.
///
/// Aligned to 8 bytes, not to the 16 of its `u128`s (`packed(8)`; x86-64
/// and AArch64 load them unaligned at no cost): a `Link` holding it is
/// then 8 bytes smaller, 32 bytes per flow with four access links each.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, packed(8))]
pub struct LinkCounters {
    pub arrivals: u64,
    /// Packets dropped by the queue discipline or a congestion stage.
    pub drops: u64,
    /// Packets lost by a random-loss stage.
    pub random_losses: u64,
    /// Packets marked CE (ECN) by the discipline or a stage.
    pub marks: u64,
    pub tx_pkts: u64,
    pub tx_bytes: u64,
    /// Time integrals of the waiting queue, in packet·ns and byte·ns, up to
    /// the link's `q_since` (current to any time through
    /// [`super::Net::link_counters_at`]): the time-averaged queue of the results, as
    /// ns-2's `QueueMonitor` integrators give it.
    pub q_area_pkts: u128,
    pub q_area_bytes: u128,
}

/// The counters every packet may move, kept on the link: a
/// [`LinkCounters`] less what is rare, which lives in the link's boxed
/// [`Extras`]: the marks and random losses, which only a queue discipline
/// other than DropTail or a stage produces (and that discipline or stage
/// has made the box), and the high parts of the counts, which a carry
/// reaches once in billions of packets or bytes (4 GB sent; 2^32 packets)
/// and of the queue integrals, once every 2^64 packet- or
/// byte-picoseconds (five hours of a 1,000-packet queue; twelve seconds
/// of 1.5 MB queued): a cold carry into the box. 32 bytes on the link
/// rather than [`LinkCounters`]' 80: 192 bytes a flow with four access
/// links each (a run of many flows holds four links a flow).
/// [`Link::counters`] puts them together; the `count_*` methods add.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tally {
    /// The low 32 bits of the counts: arrivals, drops by the queue
    /// discipline or a congestion stage, packets and bytes sent.
    arrivals: u32,
    drops: u32,
    tx_pkts: u32,
    tx_bytes: u32,
    /// The low 64 bits of [`LinkCounters::q_area_pkts`] and
    /// [`LinkCounters::q_area_bytes`] (add through `Link::add_q_area`).
    q_area_pkts: u64,
    q_area_bytes: u64,
}

/// Add `n` to a count's low 32 bits; whether it wrapped (the caller
/// carries into [`Extras::counts_hi`]).
#[inline(always)]
fn add_low(low: &mut u32, n: u32) -> bool {
    let (v, wrapped) = low.overflowing_add(n);
    *low = v;
    wrapped
}

/// [`Extras::counts_hi`]'s entries: how many times each 32-bit count of
/// [`Tally`] has wrapped.
const ARRIVALS: usize = 0;
const DROPS: usize = 1;
const TX_PKTS: usize = 2;
const TX_BYTES: usize = 3;

struct StageSlot {
    stage: Box<dyn Stage>,
    own: OwnerState,
}

/// What only some links need, boxed: most links have a DropTail queue and
/// no stages or taps, and a topology of thousands of links should not pay
/// for empty vectors and an unused RNG each.
#[derive(Default)]
struct Extras {
    stages: Vec<StageSlot>,
    /// Some stage acts on dequeue (`Stage::acts_on_dequeue`).
    dequeue_stages: bool,
    taps: Vec<Box<dyn Tap>>,
    /// The queue's RNG and timer, made on first use (DropTail needs none).
    queue_own: Option<OwnerState>,
    /// Packets the discipline evicted during the last call.
    evicted: Vec<PktId>,
    /// Tap events of packets cut through (`Net::transmit`) that happen
    /// later than they were known: (time, event, slot, the packet as it
    /// will be then). Handed to the taps once time reaches them, before
    /// anything later, so a tap sees what it would have seen event by
    /// event, and adding one changes no event of the run. Two queues, each
    /// in time order: `+ -` of packets cut into this link (at their
    /// arrival; a virtual FIFO's `+` only), `r` of packets cut from it to
    /// the next (at its far end), and a virtual FIFO's `-` (at the
    /// transmission start); one queue would not be sorted.
    deferred: [VecDeque<(Time, TapEvent, PktId, Packet)>; 3],
    /// The queueing delays of the packets served (`net::qdelay`), when the
    /// scenario records them (`Scenario::qdelay`).
    qdelay: Option<DelayRecorder>,
    /// Packets marked CE by the discipline or a stage ([`Tally`]).
    marks: u64,
    /// Packets lost by a random-loss stage.
    random_losses: u64,
    /// A host's delay before the wire (`Link::host_delayed`).
    host_delay: Option<HostDelay>,
    /// The high 64 bits of the queue integrals ([`Tally`]).
    q_area_hi: [u64; 2],
    /// The high 32 bits of [`Tally`]'s counts (`ARRIVALS` ... `TX_BYTES`).
    counts_hi: [u32; 4],
}

impl Extras {
    /// Neither stages nor taps: a DropTail link with these takes
    /// `Net::link_arrive`'s fast path ([`Link::plain_droptail`]).
    #[inline]
    fn plain(&self) -> bool {
        self.stages.is_empty() && self.taps.is_empty()
    }
}

/// A link's wire: a FIFO of packets linked through the packet pool
/// (`PacketPool::wire`), so it allocates nothing.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pipe {
    pub head: PktId,
    pub tail: PktId,
    /// The link's packets in flight: on this FIFO and on the wire it
    /// shares with sibling links (`net::line`).
    pub len: u32,
}

impl Default for Pipe {
    fn default() -> Self {
        Pipe { head: NO_PKT, tail: NO_PKT, len: 0 }
    }
}

/// A link: its queue discipline, serialiser and wire.
///
/// `repr(C)`, fields in the order a hop reads them: first what deciding
/// and making a cut-through reads (`can_cut`, `cut_through`: feeder,
/// inbound count, when the serialiser is free, the flags, the wire, the
/// delay, the stages pointer, the memo's sizes) and a sending interface's
/// limit (64 bytes), then the queue (its length decides a cut too), the
/// memo's times and the rate (64), then the counters, then what is read
/// less often. 192 bytes: with
/// four access links per flow, a topology of many flows holds mostly
/// links, so a link keeps no name (made from its nodes' names when shown,
/// [`Link::name`]) nor the scenario's seed (`Net::seed`), narrow integers
/// where the values allow (counts and memo times in 32 bits, [`Tally`]),
/// and its rarely used parts (stages, taps, the delay recorder, the
/// counters' high parts) in one box. Laid out by the
/// compiler these spread over six lines of the struct, and with one edge
/// link per flow a hop from a busy bottleneck onto a cold edge link misses
/// on each (docs/decisions/2026-11-25-per-hop-layout.md). Not
/// over-aligned: a 64-byte alignment puts the hot part in one line, but an
/// over-aligned vector grows by copying where glibc's `realloc` remaps,
/// which raises the building peak of a 6,000-link topology by 2.7 MB.
#[repr(C)]
pub struct Link {
    /// The one link every packet of this link comes from, if there is one
    /// (`FEED_NONE`, `FEED_MANY` otherwise): fixed by the routes.
    pub(crate) feeder: u32,
    /// Packets on the feeder's wire that will arrive here by an event
    /// (not cut through): while any are, this link's future is unknown.
    pub(crate) inbound: u32,
    pub busy_until: Time,
    /// A `LinkFree` event is pending.
    pub free_scheduled: bool,
    /// How an arrival and a departure at the same instant are ordered
    /// (the queue table's `ties`).
    pub ties: crate::scenario::Ties,
    pub monitored: bool,
    /// A DropTail link without stages with `Ties::ArrivalFirst` (and not a
    /// host's interface queue): its departures are computed at arrival
    /// (`net::vfifo`), with no queue of packet ids and no `LinkFree`.
    /// Set by [`Link::update_virtual`].
    pub(crate) virt: bool,
    /// Packets in flight on the wire, oldest first (chained through the
    /// packet pool's wire links).
    pub(crate) pipe: Pipe,
    pub delay: Time,
    extras: Option<Box<Extras>>,
    /// The last two packet sizes and their serialisation times: a link
    /// carries one or two sizes (data, ACK), and the f64 division and
    /// rounding of `tx_time` are a visible share of the per-packet cost.
    memo_size: [u32; 2],
    pub id: u32,
    /// The sending host's interface queue limit in packets when this link
    /// is one (a flow's `txqueuelen_pkts`), `NO_TXQUEUELEN` otherwise: its
    /// queue is then a DropTail of that many packets, and a TCP sender
    /// whose route starts here sends only while it has room
    /// ([`super::Net::local_queue_full`], which reads it beside the
    /// queue's length). [`Link::txqueuelen`] gives it.
    txqueuelen: u32,
    pub queue: Queue,
    /// The memo's times, in 32 bits: up to 4.29 ms, a 1500-byte packet at
    /// 2.8 Mb/s or faster. A slower link's packets are few and are timed
    /// without the memo (8 bytes a link, 32 a flow of four links).
    memo_time: [u32; 2],
    /// Fixed at build (`rate_bps()`): serialisation times are memoised.
    rate_bps: f64,
    /// The counters, except that a packet cut through this link
    /// (`Net::transmit`) is counted when it is cut, ahead of its arrival:
    /// read them through [`super::Net::link_counters_at`], which takes
    /// those back (`net::cut_log`).
    c: Tally,
    /// Until when `c.q_area_*` are integrated.
    q_since: Time,
    /// Largest queue in bytes seen after an arrival (the same instants).
    pub max_queue_bytes: u64,
    /// Largest queue in packets seen after an arrival (a queue's packets
    /// are packets of the pool, whose ids are `u32`).
    pub max_queue_pkts: u32,
    /// The nodes this direction leaves and enters (indices of the
    /// topology's node names; [`Link::name`] gives its name).
    pub from: u32,
    pub to: u32,
    /// A host's interface with a delay before the wire
    /// (`net::host_delay`, a flow's `host_delay_s`), kept in the extras:
    /// here, in the padding before `vfifo`, on the line `count_tx` touches.
    pub(crate) host_delayed: bool,
    /// The log of a virtual FIFO (`virt`), made when a packet first waits:
    /// boxed on its own, as every edge link of a web workload may need one
    /// and none needs the rest of `Extras`.
    vfifo: Option<Box<VirtualFifo>>,
}

/// `Link::txqueuelen` of a link that is no sending host's interface.
const NO_TXQUEUELEN: u32 = u32::MAX;

/// A link's name, `"from->to"` from its nodes' names ([`Link::name`]):
/// made when shown, not kept by each of thousands of links.
pub struct LinkName<'a> {
    from: &'a str,
    to: &'a str,
}

impl std::fmt::Display for LinkName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}->{}", self.from, self.to)
    }
}

impl LinkName<'_> {
    /// Whether this is the name `s`, without building it.
    pub fn is(&self, s: &str) -> bool {
        s.strip_prefix(self.from).and_then(|r| r.strip_prefix("->")).is_some_and(|r| r == self.to)
    }
}

/// The queue's owner state of link `id`, made on first use.
fn queue_owner(slot: &mut Option<OwnerState>, seed: u64, id: u32) -> &mut OwnerState {
    slot.get_or_insert_with(|| OwnerState {
        rng: rng::stream(seed, Stream::Queue, id as u64),
        timer: Timer::new(Owner::new(EventKind::LinkTimer, id, 0)),
    })
}

/// Build a context for one owner out of a link's disjoint fields.
macro_rules! ctx {
    ($now:expr, $id:expr, $rate:expr, $idle:expr, $own:expr, $sh:expr, $evicted:expr, $marks:expr) => {
        ctx!($now, $id, $rate, $idle, $own, $sh, $evicted, $marks, QueueView::default())
    };
    ($now:expr, $id:expr, $rate:expr, $idle:expr, $own:expr, $sh:expr, $evicted:expr, $marks:expr, $view:expr) => {
        LinkCtx {
            now: $now.t,
            ns2_now: $now.ns2,
            link: $id,
            rate_bps: $rate,
            idle: $idle,
            rng: &mut $own.rng,
            queue: $view,
            timer: &mut $own.timer,
            events: &mut *$sh.events,
            ns2_rng: &mut *$sh.ns2_rng,
            evicted: $evicted,
            marks: $marks,
            flow_marks: &mut *$sh.flow_marks,
        }
    };
}

impl Link {
    /// Packets in this link's pipe structure, including those cut through
    /// to it that are still on its feeder's wire (`Net::wire_len` counts
    /// what is on the wire at a given time).
    #[inline]
    pub fn pipe_len(&self) -> usize {
        self.pipe.len as usize
    }

    /// Link `id` from node `from` to node `to`. It keeps no name (a link's
    /// name is made from its nodes' names, [`Link::name`]) and no seed (its
    /// random streams derive from the scenario's, `Net::seed`).
    pub fn new(id: u32, (from, to): (usize, usize), rate_bps: f64, delay: Time, queue: Queue) -> Self {
        let node = |n: usize| u32::try_from(n).expect("node indices fit u32");
        Link {
            id,
            from: node(from),
            to: node(to),
            rate_bps,
            delay,
            monitored: false,
            queue,
            txqueuelen: NO_TXQUEUELEN,
            extras: None,
            vfifo: None,
            busy_until: 0,
            free_scheduled: false,
            ties: crate::scenario::Ties::EventOrder,
            virt: false,
            host_delayed: false,
            pipe: Pipe::default(),
            c: Tally::default(),
            q_since: 0,
            max_queue_pkts: 0,
            max_queue_bytes: 0,
            memo_size: [0; 2],
            memo_time: [0; 2],
            feeder: FEED_NONE,
            inbound: 0,
        }
    }

    pub fn rate_bps(&self) -> f64 {
        self.rate_bps
    }

    /// The link's name, `"from->to"` with the node names `nodes` (the
    /// topology's, which the results' link rows list).
    pub fn name<'a>(&self, nodes: &'a super::topology::NodeNames) -> LinkName<'a> {
        LinkName { from: &nodes[self.from as usize], to: &nodes[self.to as usize] }
    }

    /// The sending host's interface queue limit in packets, when this link
    /// is one (a flow's `txqueuelen_pkts`).
    #[inline]
    pub fn txqueuelen(&self) -> Option<usize> {
        (self.txqueuelen != NO_TXQUEUELEN).then_some(self.txqueuelen as usize)
    }

    /// Make this link a sending host's interface holding `n` packets, or an
    /// ordinary link (`None`). A limit of `u32::MAX - 1` packets or more is
    /// kept as `u32::MAX - 1`, which no queue reaches: its packets are
    /// packets of the pool, whose ids are `u32` (`NO_PKT` excluded).
    pub(crate) fn set_txqueuelen(&mut self, n: Option<usize>) {
        self.txqueuelen = n.map_or(NO_TXQUEUELEN, |n| n.min(NO_TXQUEUELEN as usize - 1) as u32);
        self.update_virtual();
    }

    /// Whether this is a sending host's interface whose queue holds its
    /// limit ([`Link::txqueuelen`]).
    #[inline]
    pub(crate) fn local_queue_full(&self) -> bool {
        self.txqueuelen != NO_TXQUEUELEN && self.queue.len_pkts() >= self.txqueuelen as usize
    }

    /// Integrate the queue up to `now`; called before anything that may
    /// change the queue (an arrival, a free serialiser, a link timer), so
    /// the length integrated is the one that held since the last call.
    #[inline]
    pub(crate) fn integrate_queue(&mut self, now: Time) {
        let dt = now.saturating_sub(self.q_since) as u128;
        if dt > 0 {
            self.add_q_area(self.queue.len_pkts() as u128 * dt, self.queue.len_bytes() as u128 * dt);
            self.q_since = now;
        }
    }

    /// Add to the queue integrals: to their low halves on the link, with
    /// any carry to the high halves in the box ([`Tally`]).
    #[inline]
    fn add_q_area(&mut self, pkts: u128, bytes: u128) {
        let (p, cp) = self.c.q_area_pkts.overflowing_add(pkts as u64);
        let (b, cb) = self.c.q_area_bytes.overflowing_add(bytes as u64);
        self.c.q_area_pkts = p;
        self.c.q_area_bytes = b;
        let hi = ((pkts >> 64) as u64 + cp as u64, (bytes >> 64) as u64 + cb as u64);
        if hi != (0, 0) {
            self.carry_q_area(hi);
        }
    }

    /// Count an arrival.
    #[inline]
    pub(crate) fn count_arrival(&mut self) {
        if add_low(&mut self.c.arrivals, 1) {
            self.carry_count(ARRIVALS);
        }
    }

    /// Count a packet dropped by the queue discipline or a congestion stage.
    #[inline]
    pub(crate) fn count_drop(&mut self) {
        if add_low(&mut self.c.drops, 1) {
            self.carry_count(DROPS);
        }
    }

    /// Count a packet of `size` bytes sent (its serialisation started).
    #[inline]
    pub(crate) fn count_tx(&mut self, size: u32) {
        let op = add_low(&mut self.c.tx_pkts, 1);
        let ob = add_low(&mut self.c.tx_bytes, size);
        if op | ob {
            self.carry_tx(op, ob);
        }
    }

    #[cold]
    fn carry_tx(&mut self, pkts: bool, bytes: bool) {
        if pkts {
            self.carry_count(TX_PKTS);
        }
        if bytes {
            self.carry_count(TX_BYTES);
        }
    }

    #[cold]
    fn carry_count(&mut self, i: usize) {
        self.extras.get_or_insert_with(Default::default).counts_hi[i] += 1;
    }

    #[cold]
    fn carry_q_area(&mut self, (pkts, bytes): (u64, u64)) {
        let h = &mut self.extras.get_or_insert_with(Default::default).q_area_hi;
        h[0] += pkts;
        h[1] += bytes;
    }

    /// The counters at `now`: queue integrals brought up to it, and the
    /// packets a virtual FIFO has booked ahead taken back; but the packets
    /// cut through this link still count, though some may not have
    /// reached it by then: [`super::Net::link_counters_at`] takes those
    /// back too (`net::cut_log`).
    pub(crate) fn counters_with_cuts(&self, now: Time) -> LinkCounters {
        let mut c = self.counters();
        let dt = now.saturating_sub(self.q_since) as u128;
        c.q_area_pkts += self.queue.len_pkts() as u128 * dt;
        c.q_area_bytes += self.queue.len_bytes() as u128 * dt;
        if let Some(v) = self.vfifo() {
            v.take_back(&mut c, now);
        }
        c
    }

    /// The counters as they stand, with the packets cut through this link
    /// counted ahead (see [`Link::c`]).
    pub fn counters(&self) -> LinkCounters {
        let t = self.c;
        let (marks, random_losses, hi, n) = self
            .extras
            .as_ref()
            .map_or((0, 0, [0, 0], [0; 4]), |e| (e.marks, e.random_losses, e.q_area_hi, e.counts_hi));
        let count = |i: usize, low: u32| (n[i] as u64) << 32 | low as u64;
        LinkCounters {
            arrivals: count(ARRIVALS, t.arrivals),
            drops: count(DROPS, t.drops),
            random_losses,
            marks,
            tx_pkts: count(TX_PKTS, t.tx_pkts),
            tx_bytes: count(TX_BYTES, t.tx_bytes),
            q_area_pkts: (hi[0] as u128) << 64 | t.q_area_pkts as u128,
            q_area_bytes: (hi[1] as u128) << 64 | t.q_area_bytes as u128,
        }
    }

    /// Count a packet lost by a random-loss stage (which lives in the
    /// link's `Extras`).
    pub(crate) fn count_random_loss(&mut self) {
        self.extras.get_or_insert_with(Default::default).random_losses += 1;
    }

    /// Order a tied arrival and departure by `ties` (the queue table's
    /// `ties`).
    pub fn set_ties(&mut self, ties: crate::scenario::Ties) {
        self.ties = ties;
        self.update_virtual();
    }

    /// Whether departures are computed at arrival (`virt`, `net::vfifo`).
    pub fn is_virtual_fifo(&self) -> bool {
        self.virt
    }

    /// Decide whether this is a virtual FIFO (`virt`): after the queue,
    /// the stages, the tie order or the interface limit changed.
    pub(crate) fn update_virtual(&mut self) {
        self.virt = self.ties == crate::scenario::Ties::ArrivalFirst
            && matches!(self.queue, Queue::DropTail(_))
            && !self.has_stages()
            && self.txqueuelen == NO_TXQUEUELEN
            && !self.host_delayed;
    }

    /// Make this link a host's interface whose packets wait
    /// `delay` before the wire (a flow's `host_delay_s`). Such a link is
    /// never cut into nor a virtual FIFO: its packets come from hosts
    /// (`Net::send`), and each leaves at its own drawn time.
    pub(crate) fn set_host_delay(&mut self, delay: HostDelay) {
        self.extras.get_or_insert_with(Default::default).host_delay = Some(delay);
        self.host_delayed = true;
        self.update_virtual();
    }

    /// When a packet that leaves the serialiser for the wire at `at`
    /// (`busy_until + delay`) reaches the far end, past the host's delay.
    #[cold]
    #[inline(never)]
    pub(crate) fn host_delay_arrival(&mut self, at: Time) -> Time {
        let h = self.extras.as_deref_mut().and_then(|e| e.host_delay.as_mut());
        h.expect("host_delayed links have a host delay").depart(at)
    }

    fn vfifo(&self) -> Option<&VirtualFifo> {
        self.vfifo.as_deref()
    }

    /// A packet of `size` bytes arrives at `at` (not before the clock
    /// `now`, not before any arrival decided before) at this virtual FIFO
    /// (`virt`): its transmission start, with the serialiser booked and the
    /// arrival, transmission and time waiting counted (`counters_with_cuts` takes
    /// back what is still ahead); or `None` if the buffer is full, and
    /// then nothing is recorded (the caller drops the packet at `at`).
    /// A packet cut through to the link (`at` after `now`) that would wait
    /// 1.1 s or more also gets `None`: it must arrive by its event.
    #[inline]
    pub(crate) fn v_admit(&mut self, now: Time, at: Time, size: u32) -> Option<Time> {
        let tx = self.tx_time(size);
        let v = self.vfifo.get_or_insert_with(Default::default);
        let (pkts, bytes) = v.waiting_at(at);
        let idle = self.busy_until <= at;
        debug_assert!(!idle || pkts == 0, "an idle FIFO has nothing waiting");
        if !idle {
            let fits = match &self.queue {
                Queue::DropTail(q) => q.fits(pkts, bytes, size),
                Queue::Drr(_) | Queue::Dyn(_) => unreachable!("a virtual FIFO is a DropTail"),
            };
            if !fits {
                return None;
            }
        }
        let s = if idle { at } else { self.busy_until };
        if at > now && s - at >= super::vfifo::MAX_WAIT {
            // A cut-through packet that would wait over 1.1 s arrives by
            // its event instead (`vfifo::Entry`).
            return None;
        }
        let mut max = (self.max_queue_pkts as usize, self.max_queue_bytes);
        let waits = self.extras.as_deref_mut().and_then(|e| e.qdelay.as_mut());
        let (qp, qb) = v.push(now, at, s, size, &mut max, waits);
        if !idle && at <= now {
            max = (max.0.max(qp), max.1.max(qb));
        }
        self.max_queue_pkts = max.0 as u32;
        self.max_queue_bytes = max.1;
        self.busy_until = s.saturating_add(tx);
        self.count_arrival();
        self.count_tx(size);
        let wait = (s - at) as u128;
        self.add_q_area(wait, wait * size as u128);
        Some(s)
    }

    /// Record the queueing delay of every packet this link serves from now
    /// on (`Scenario::qdelay`; before the run: a virtual FIFO's log is
    /// recorded from its start).
    pub fn record_qdelay(&mut self) {
        self.extras.get_or_insert_with(Default::default).qdelay.get_or_insert_with(Default::default);
    }

    /// The delay recorder, if the link records queueing delays.
    #[inline]
    fn qdelay(&self) -> Option<&DelayRecorder> {
        self.extras.as_deref()?.qdelay.as_ref()
    }

    #[inline]
    fn qdelay_mut(&mut self) -> Option<&mut DelayRecorder> {
        self.extras.as_deref_mut()?.qdelay.as_mut()
    }

    /// Whether this link records queueing delays ([`Link::record_qdelay`]).
    #[inline]
    pub fn records_qdelay(&self) -> bool {
        self.qdelay().is_some()
    }

    /// Record a served packet of sub-queue `class` that waited `wait` from
    /// its arrival at the queue to the start of its serialisation
    /// (`net::qdelay`), if the link records them.
    #[inline]
    pub(crate) fn record_wait(&mut self, wait: Time, class: usize) {
        if let Some(r) = self.qdelay_mut() {
            r.record(wait, class);
        }
    }

    /// Give the delay recorder the waits of the virtual FIFO's packets that
    /// have started by `now` (`VirtualFifo::record_started`).
    fn settle_waits(&mut self, now: Time) {
        if let Some(v) = self.vfifo.as_deref_mut() {
            v.record_started(now, self.extras.as_deref_mut().and_then(|e| e.qdelay.as_mut()));
        }
    }

    /// The measured period starts at `now` (the warm-up's end): the delay
    /// histograms forget what came before, as the counters' snapshot does.
    pub(crate) fn restart_waits(&mut self, now: Time) {
        self.settle_waits(now);
        if let Some(r) = self.qdelay_mut() {
            r.restart();
        }
    }

    /// Sum and maximum of the waits of the packets that started
    /// serialisation since the last call, up to `now` (the link series);
    /// `None` if the link does not record them.
    pub(crate) fn take_interval_waits(&mut self, now: Time) -> Option<(u128, Time)> {
        self.settle_waits(now);
        self.qdelay_mut().map(DelayRecorder::take_interval)
    }

    /// The queueing delays of the measured period up to `now`, one
    /// histogram per sub-queue class of the discipline
    /// (`QueueDiscipline::delay_classes`), given `served`, the packets the
    /// link sent in that period (its `tx_pkts`): those no path recorded
    /// found the link idle and count as zero waits of class 0
    /// (`DelayRecorder::classes_with_zeros`). `None` if the link does not
    /// record them.
    pub fn qdelay_at(&self, now: Time, served: u64) -> Option<Vec<DelayHistogram>> {
        let mut r = self.qdelay()?.clone();
        if let Some(v) = self.vfifo() {
            v.add_started(now, &mut r);
        }
        Some(r.classes_with_zeros(self.queue.delay_classes().len(), served))
    }

    /// Packets waiting in the queue at `now` (a virtual FIFO's as a reading
    /// at that instant sees them: `VirtualFifo::waiting_now`).
    pub fn queue_len_at(&self, now: Time) -> usize {
        match self.vfifo() {
            Some(v) if self.virt => v.waiting_now(now),
            _ => self.queue.len_pkts(),
        }
    }

    /// The largest queue after an arrival up to `now`, in packets and in
    /// bytes (a virtual FIFO knows those of arrivals still ahead).
    pub fn max_queue_at(&self, now: Time) -> (usize, u64) {
        let (p, b) = self.vfifo().map_or((0, 0), |v| v.maxima_upto(now));
        ((self.max_queue_pkts as usize).max(p), self.max_queue_bytes.max(b))
    }

    /// Whether a packet leaving link `from`'s wire at `at` can be placed on
    /// this link's wire now, without an arrival event: `from` is the only
    /// link feeding this one, so nothing but the packets `from` has already
    /// sent can reach it before `at`; none of those is still to arrive by
    /// an event; nothing waits; the serialiser will be free by `at`; and
    /// this is a DropTail link without stages, which then, at `at`, takes the packet
    /// straight into service (`Net::link_arrive`'s idle case). Times,
    /// order and counters are those of the arrival event it replaces.
    #[inline]
    pub(crate) fn can_cut(&self, from: usize, at: Time) -> bool {
        self.feeder == from as u32
            && self.inbound == 0
            && self.busy_until <= at
            && !self.free_scheduled
            && self.ties != crate::scenario::Ties::Ns2
            && !self.has_stages()
            && matches!(self.queue, Queue::DropTail(_))
            && self.queue.len_pkts() == 0
    }

    /// Packets a virtual FIFO has booked that have not started by `now`
    /// (they are not on its wire yet); 0 for any other link.
    pub(crate) fn not_started(&self, now: Time) -> usize {
        self.vfifo().map_or(0, |v| v.not_started(now))
    }

    /// Serialise a packet of `size` bytes arriving at `at` (`can_cut`
    /// holds); its arrival time at the far end. The caller notes the cut
    /// in the network's `CutLog`, which takes back what is counted here
    /// from readings before `at`.
    #[inline]
    pub(crate) fn cut_through(&mut self, at: Time, size: u32) -> Time {
        // What a packet that arrives at an idle link and goes straight
        // into service adds to its counters (taken back by the cut log
        // until `at`).
        self.count_arrival();
        self.count_tx(size);
        self.busy_until = at.saturating_add(self.tx_time(size));
        self.busy_until.saturating_add(self.delay)
    }

    /// Append a stage; it runs after those already installed on enqueue.
    /// `seed`: the scenario's, from which its random stream derives.
    pub(crate) fn add_stage(&mut self, stage: Box<dyn Stage>, seed: u64) {
        let extras = self.extras.get_or_insert_with(Default::default);
        let slot = extras.stages.len() + 1;
        assert!(slot < 256, "at most 255 stages per link");
        let own = OwnerState {
            rng: rng::stream(seed, stage.stream(), self.id as u64),
            timer: Timer::new(Owner::new(EventKind::LinkTimer, self.id, slot as u8)),
        };
        extras.dequeue_stages |= stage.acts_on_dequeue();
        extras.stages.push(StageSlot { stage, own });
        self.update_virtual();
    }

    /// Attach a tap; only through `Simulation::add_tap`, which keeps the list
    /// of tapped links `run_until` flushes.
    pub(crate) fn add_tap(&mut self, tap: Box<dyn Tap>) {
        self.extras.get_or_insert_with(Default::default).taps.push(tap);
    }

    fn has_stages(&self) -> bool {
        self.extras.as_ref().is_some_and(|e| !e.stages.is_empty())
    }

    /// Whether a stage named `name` is installed (its `Stage::name`).
    pub fn has_stage_named(&self, name: &str) -> bool {
        self.extras.as_ref().is_some_and(|e| e.stages.iter().any(|s| s.stage.name() == name))
    }

    /// The first installed stage of type `T`, to adjust it during a run.
    pub fn stage_mut<T: Stage>(&mut self) -> Option<&mut T> {
        self.extras.as_mut()?.stages.iter_mut().find_map(|s| s.stage.as_any_mut().downcast_mut::<T>())
    }

    /// The first attached tap of type `T`.
    pub fn tap<T: Tap>(&self) -> Option<&T> {
        self.extras.as_ref()?.taps.iter().find_map(|t| t.as_any().downcast_ref::<T>())
    }

    #[inline]
    pub(crate) fn notify(&mut self, ev: TapEvent, now: Time, pkts: &PacketPool, id: PktId) {
        if let Some(e) = self.extras.as_mut() {
            if e.taps.is_empty() {
                return;
            }
            Self::flush_deferred(e, self.id, now);
            let p = pkts.get(id);
            for t in &mut e.taps {
                t.on_packet(ev, now, self.id, id, p);
            }
        }
    }

    /// Tap event `ev` of packet `id` (as `p`), at the later time `at`.
    #[inline]
    pub(crate) fn defer(&mut self, ev: TapEvent, at: Time, id: PktId, p: &Packet) {
        let virt = self.virt;
        if let Some(e) = self.extras.as_mut().filter(|e| !e.taps.is_empty()) {
            let q = match ev {
                TapEvent::Deliver => 1,
                TapEvent::Dequeue if virt => 2,
                _ => 0,
            };
            e.deferred[q].push_back((at, ev, id, *p));
        }
    }

    /// Hand the taps every deferred event up to `now`, earliest first.
    fn flush_deferred(e: &mut Extras, link: u32, now: Time) {
        loop {
            let head = |q: &VecDeque<(Time, TapEvent, PktId, Packet)>| q.front().map_or(Time::MAX, |d| d.0);
            let heads = [head(&e.deferred[0]), head(&e.deferred[1]), head(&e.deferred[2])];
            let q = (0..3).min_by_key(|&i| (heads[i], i)).expect("three queues");
            if heads[q] > now {
                break;
            }
            let (at, ev, id, p) = e.deferred[q].pop_front().expect("a head at or before now");
            for t in &mut e.taps {
                t.on_packet(ev, at, link, id, &p);
            }
        }
    }

    /// Hand the taps every deferred event up to `now` (the run has
    /// reached it).
    #[inline]
    pub(crate) fn flush_taps(&mut self, now: Time) {
        if let Some(e) = self.extras.as_mut() {
            Self::flush_deferred(e, self.id, now);
        }
    }

    /// Flush every tap's output at the end of the run (`now`); the first
    /// error, if any.
    pub fn finish_taps(&mut self, now: Time) -> std::io::Result<()> {
        self.flush_taps(now);
        let mut first = Ok(());
        for t in self.extras.iter_mut().flat_map(|e| e.taps.iter_mut()) {
            let r = t.finish();
            if first.is_ok() {
                first = r;
            }
        }
        first
    }

    /// Whether any tap is attached.
    #[inline]
    pub fn has_taps(&self) -> bool {
        self.extras.as_ref().is_some_and(|e| !e.taps.is_empty())
    }

    /// The link's DropTail, if that is all there is to it (no stages, no
    /// taps): `Net::link_arrive`'s fast path.
    #[inline]
    pub(crate) fn plain_droptail(&mut self) -> Option<&mut super::queue::DropTail> {
        match &mut self.queue {
            Queue::DropTail(q) if self.extras.as_deref().is_none_or(Extras::plain) => Some(q),
            _ => None,
        }
    }

    /// Time to serialise `size` bytes on this link (`sim::time::tx_time`,
    /// memoised for the last two sizes: the same value, computed less often).
    #[inline]
    pub fn tx_time(&mut self, size: u32) -> Time {
        if self.memo_size[0] == size && size != 0 {
            return self.memo_time[0] as Time;
        }
        if self.memo_size[1] == size && size != 0 {
            self.memo_size.swap(0, 1);
            self.memo_time.swap(0, 1);
            return self.memo_time[0] as Time;
        }
        let t = crate::sim::time::tx_time(size, self.rate_bps);
        if let Ok(t32) = u32::try_from(t) {
            self.memo_size = [size, self.memo_size[0]];
            self.memo_time = [t32, self.memo_time[0]];
        }
        t
    }

    /// The serialiser is free and no `LinkFree` is pending.
    #[inline]
    pub(crate) fn can_serve(&self, now: Time) -> bool {
        self.busy_until <= now && !self.free_scheduled
    }

    /// The queue as a stage sees it (with `flow`'s own backlog when the
    /// discipline keeps per-flow queues).
    #[inline]
    fn queue_view(&self, flow: Option<u32>) -> QueueView {
        QueueView {
            pkts: self.queue.len_pkts(),
            bytes: self.queue.len_bytes(),
            flow_bytes: flow.and_then(|f| self.queue.flow_len_bytes(f)),
        }
    }

    /// Run the stages' `on_enqueue` (`idle`: the serialiser is free and
    /// nothing waits); the reason if one dropped the packet.
    #[inline]
    pub(crate) fn stages_enqueue(
        &mut self,
        at: Now,
        idle: bool,
        pkts: &mut PacketPool,
        sh: &mut Shared,
        id: PktId,
    ) -> Option<DropReason> {
        if !self.has_stages() {
            return None;
        }
        let view = self.queue_view(Some(pkts.get(id).flow));
        let Extras { stages, evicted, marks, .. } = &mut **self.extras.as_mut()?;
        for s in stages {
            let mut ctx = ctx!(at, self.id, self.rate_bps, idle, s.own, sh, evicted, marks, view);
            if let Verdict::Drop(r) = s.stage.on_enqueue(&mut ctx, pkts.get_mut(id)) {
                return Some(r);
            }
        }
        None
    }

    /// Offer the packet to the discipline (`idle` as for
    /// `stages_enqueue`); evictions are left for `pop_evicted`.
    #[inline]
    pub(crate) fn enqueue(&mut self, at: Now, idle: bool, pkts: &mut PacketPool, sh: &mut Shared, id: PktId) -> bool {
        let q = match &mut self.queue {
            // Fast path: DropTail needs nothing of the context.
            Queue::DropTail(q) => {
                let size = pkts.get(id).size;
                return q.admit(idle, id, size, pkts);
            }
            // DRR needs only the idle flag and the eviction list.
            Queue::Drr(q) => {
                let p = pkts.get(id);
                let evicted = &mut self.extras.get_or_insert_with(Default::default).evicted;
                return q.admit(idle, id, p.flow, p.size, evicted);
            }
            Queue::Dyn(q) => q,
        };
        let Extras { queue_own, evicted, marks, .. } = &mut **self.extras.get_or_insert_with(Default::default);
        let own = queue_owner(queue_own, sh.seed, self.id);
        let mut ctx = ctx!(at, self.id, self.rate_bps, idle, own, sh, evicted, marks);
        q.enqueue(&mut ctx, id, pkts)
    }

    /// A packet the discipline or a stage evicted, to drop.
    #[inline]
    pub(crate) fn pop_evicted(&mut self) -> Option<PktId> {
        self.extras.as_mut()?.evicted.pop()
    }

    /// Take the next packet from the discipline through the stages'
    /// `on_dequeue` (the serialiser is free).
    #[inline]
    pub(crate) fn dequeue(&mut self, at: Now, pkts: &mut PacketPool, sh: &mut Shared) -> Option<PktId> {
        let id = match &mut self.queue {
            Queue::DropTail(q) => q.take(pkts)?,
            Queue::Drr(q) => q.take()?,
            Queue::Dyn(q) => {
                let Extras { queue_own, evicted, marks, .. } = &mut **self.extras.get_or_insert_with(Default::default);
                let own = queue_owner(queue_own, sh.seed, self.id);
                let mut ctx = ctx!(at, self.id, self.rate_bps, false, own, sh, evicted, marks);
                q.dequeue(&mut ctx, pkts)?
            }
        };
        self.stages_dequeue(at, pkts, sh, id);
        Some(id)
    }

    /// The stages' `on_dequeue` for packet `id`, which has left the queue
    /// for the serialiser.
    #[inline]
    pub(crate) fn stages_dequeue(&mut self, at: Now, pkts: &mut PacketPool, sh: &mut Shared, id: PktId) {
        if !self.extras.as_ref().is_some_and(|e| e.dequeue_stages) {
            return;
        }
        let view = self.queue_view(None);
        let Some(extras) = self.extras.as_mut() else { return };
        let Extras { stages, evicted, marks, .. } = &mut **extras;
        for s in stages {
            let mut ctx = ctx!(at, self.id, self.rate_bps, false, s.own, sh, evicted, marks, view);
            s.stage.on_dequeue(&mut ctx, pkts.get_mut(id));
        }
    }

    /// Timer `slot` of this link fired (0: the queue, `i`: stage `i - 1`).
    pub(crate) fn on_timer(&mut self, slot: u8, gen: u32, at: Now, pkts: &mut PacketPool, sh: &mut Shared) {
        let now = at.t;
        let idle = self.can_serve(now) && self.queue.len_pkts() == 0;
        let view = self.queue_view(None);
        let Some(extras) = self.extras.as_mut() else { return };
        let Extras { stages, queue_own, evicted, marks, .. } = &mut **extras;
        if slot == 0 {
            let own = queue_owner(queue_own, sh.seed, self.id);
            if own.timer.fire(sh.events, now, gen) {
                let mut ctx = ctx!(at, self.id, self.rate_bps, idle, own, sh, evicted, marks);
                self.queue.on_timer(&mut ctx, pkts);
            }
        } else if let Some(s) = stages.get_mut(slot as usize - 1) {
            if s.own.timer.fire(sh.events, now, gen) {
                let mut ctx = ctx!(at, self.id, self.rate_bps, idle, s.own, sh, evicted, marks, view);
                s.stage.on_timer(&mut ctx);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The queue integrals are exact past 2^64 packet- and byte-picoseconds:
    /// the link keeps their low halves and carries into the box.
    #[test]
    fn queue_integrals_carry_past_64_bits() {
        use crate::net::queue::{DropTail, Limit};
        let mut l = Link::new(0, (0, 1), 1e9, 0, Queue::DropTail(DropTail::new(Limit::Packets(1))));
        let near = (1u128 << 64) - 5;
        l.add_q_area(near, near);
        assert!(l.extras.is_none(), "no carry yet, no box");
        l.add_q_area(10, (1 << 70) + 7);
        l.add_q_area(u64::MAX as u128, 1);
        let c = l.counters();
        assert_eq!({ c.q_area_pkts }, near + 10 + u64::MAX as u128);
        assert_eq!({ c.q_area_bytes }, near + (1 << 70) + 8);
    }

    /// The counts are exact past 2^32 packets and bytes: the link keeps
    /// their low 32 bits and carries into the box; a slow link's packets
    /// (serialised in more than 2^32 ps) are timed without the memo.
    #[test]
    fn counts_carry_past_32_bits() {
        use crate::net::queue::{DropTail, Limit};
        let mut l = Link::new(0, (0, 1), 1e9, 0, Queue::DropTail(DropTail::new(Limit::Packets(1))));
        l.c.tx_bytes = u32::MAX - 100;
        l.c.tx_pkts = u32::MAX;
        l.c.arrivals = u32::MAX;
        l.c.drops = u32::MAX;
        l.count_tx(1500);
        assert!(l.extras.is_some(), "the carry made the box");
        l.count_tx(1500);
        l.count_arrival();
        l.count_drop();
        l.count_drop();
        let c = l.counters();
        assert_eq!(c.tx_bytes, u32::MAX as u64 - 100 + 3000);
        assert_eq!(c.tx_pkts, u32::MAX as u64 + 2);
        assert_eq!(c.arrivals, u32::MAX as u64 + 1);
        assert_eq!(c.drops, u32::MAX as u64 + 2);

        let mut slow = Link::new(0, (0, 1), 1e6, 0, Queue::DropTail(DropTail::new(Limit::Packets(1))));
        assert_eq!(slow.tx_time(1500), crate::sim::time::tx_time(1500, 1e6));
        assert_eq!(slow.memo_size, [0, 0], "12 ms does not fit the memo");
        assert_eq!(slow.tx_time(52), 416_000_000);
        assert_eq!(slow.memo_size, [52, 0]);
        assert_eq!(slow.tx_time(1500), 12_000_000_000);
    }

    /// A topology of many flows has four access links per flow (host to
    /// router and back, at both ends): at 10,000 flows the links are a
    /// fifth of the run's memory, and each 16 bytes here is 64 bytes a
    /// flow. The first 64 bytes are what a cut-through reads (the type's
    /// doc), so they must stay the first 64.
    #[test]
    fn a_link_stays_small() {
        assert!(std::mem::size_of::<Link>() <= 192, "Link is {} bytes", std::mem::size_of::<Link>());
        assert_eq!(std::mem::offset_of!(Link, txqueuelen), 60, "the cut-through's fields fill the first 64 bytes");
        assert_eq!(std::mem::offset_of!(Link, queue), 64);
        assert_eq!(
            std::mem::offset_of!(Link, rate_bps),
            112,
            "the queue, the memo's times and the rate fill the next 64"
        );
    }
}
