//! Queue disciplines behind one interface, and their registry.
//!
//! Every packet a link receives goes through its discipline, idle link or
//! not: `enqueue` decides whether to admit it (and may mark it, or evict a
//! packet it holds), `dequeue` picks the next packet to serialise and may
//! touch it. Both get the link context (time, rate, own RNG stream, own
//! timer). One discipline per file; adding one is the file plus one line in
//! [`registry`].
pub mod codel;
pub mod droptail;
pub mod drr;
pub mod dualpi2;
pub mod fq_codel;
pub mod pie;
pub mod red;

use super::ctx::LinkCtx;
use crate::net::packet::{Ecn, PacketPool, PktId};
use crate::scenario::params::ParamDoc;
use crate::scenario::{ConfigError, QueueSpec};
pub use codel::Codel;
pub use droptail::{DropTail, Fifo, Limit};
pub use drr::Drr;
pub use dualpi2::DualPi2;
pub use fq_codel::FqCodel;
pub use pie::Pie;
pub use red::Red;

pub trait QueueDiscipline: Send {
    /// Offer an arriving packet; `false` means it was dropped (the link
    /// frees it). Packets dropped from inside go through `ctx.evict`.
    fn enqueue(&mut self, ctx: &mut LinkCtx, id: PktId, pkts: &mut PacketPool) -> bool;
    /// The next packet to serialise, if any. Packets dropped on the way
    /// (CoDel's head drops) go through `ctx.evict`.
    fn dequeue(&mut self, ctx: &mut LinkCtx, pkts: &mut PacketPool) -> Option<PktId>;
    /// The discipline's timer (armed with `ctx.arm_timer`) expired.
    fn on_timer(&mut self, _ctx: &mut LinkCtx, _pkts: &mut PacketPool) {}
    /// Packets waiting (not counting the one being serialised).
    fn len_pkts(&self) -> usize;
    fn len_bytes(&self) -> u64;
    /// Every waiting packet, in any order (a discipline may chain its
    /// packets through `pkts`, as DropTail and RED do).
    fn waiting(&self, pkts: &PacketPool) -> Vec<PktId>;
    /// Bytes waiting in `flow`'s own queue, for disciplines that keep
    /// per-flow queues (`None`: one shared queue). GWA-RR reads it.
    fn flow_len_bytes(&self, _flow: u32) -> Option<u64> {
        None
    }
    /// The classes of traffic whose queueing delay the link reports apart
    /// (`links[].qdelay_classes` in the results), by name: a discipline
    /// that serves separate sub-queues (DualPI2's L and C queues) names
    /// them here, and [`QueueDiscipline::dequeue_class`] says which one
    /// each departing packet came from. The default is one class, the
    /// whole queue, reported only as the link's own figures. Read when
    /// results are made, not per packet.
    fn delay_classes(&self) -> &'static [&'static str] {
        &["all"]
    }
    /// The class (an index into [`QueueDiscipline::delay_classes`]) of
    /// packet `id`, which the last `dequeue` returned: asked at once, before
    /// any other call, so a discipline may answer from the state its
    /// dequeue left (which sub-queue it served) rather than from the packet
    /// (a CE mark moves no packet between DualPI2's queues).
    fn dequeue_class(&self, _id: PktId, _pkts: &PacketPool) -> usize {
        0
    }
}

/// A link's discipline. DropTail, on every link of every paper's
/// topology, is dispatched statically (its calls inline into the link's
/// per-packet path); any other discipline goes through the trait object,
/// and one that profiling shows hot gets a variant of its own: DRR, whose
/// bottleneck serves every packet through `LinkFree` (boxed: the link
/// keeps its size).
pub enum Queue {
    DropTail(DropTail),
    Drr(Box<Drr>),
    Dyn(Box<dyn QueueDiscipline>),
}

macro_rules! dispatch {
    ($q:expr, $x:ident => $call:expr) => {
        match $q {
            Queue::DropTail($x) => $call,
            Queue::Drr($x) => $call,
            Queue::Dyn($x) => $call,
        }
    };
}

impl Queue {
    /// The `i`th packet to be served next where the discipline knows it
    /// at no cost (a FIFO), for prefetching; `None` otherwise.
    #[inline]
    pub fn upcoming(&self, i: usize, pkts: &PacketPool) -> Option<PktId> {
        match self {
            Queue::DropTail(q) => q.upcoming(i, pkts),
            _ => None,
        }
    }
    #[inline]
    pub fn enqueue(&mut self, ctx: &mut LinkCtx, id: PktId, pkts: &mut PacketPool) -> bool {
        dispatch!(self, q => q.enqueue(ctx, id, pkts))
    }
    #[inline]
    pub fn dequeue(&mut self, ctx: &mut LinkCtx, pkts: &mut PacketPool) -> Option<PktId> {
        dispatch!(self, q => q.dequeue(ctx, pkts))
    }
    #[inline]
    pub fn on_timer(&mut self, ctx: &mut LinkCtx, pkts: &mut PacketPool) {
        dispatch!(self, q => q.on_timer(ctx, pkts))
    }
    /// Whether a packet arriving at an idle link (serialiser free, nothing
    /// waiting) is admitted and handed straight back with the discipline's
    /// state as it was: then the link sends it without the round trip
    /// through the queue. True of DropTail and DRR (a lone packet's queue
    /// is made, served and emptied, its deficit back at 0); not of RED,
    /// whose average moves on every arrival, nor of a discipline behind
    /// the trait object.
    #[inline]
    pub fn passes_idle(&self) -> bool {
        matches!(self, Queue::DropTail(_) | Queue::Drr(_))
    }
    #[inline]
    pub fn len_pkts(&self) -> usize {
        dispatch!(self, q => q.len_pkts())
    }
    #[inline]
    pub fn len_bytes(&self) -> u64 {
        dispatch!(self, q => q.len_bytes())
    }
    pub fn waiting(&self, pkts: &PacketPool) -> Vec<PktId> {
        dispatch!(self, q => q.waiting(pkts))
    }
    #[inline]
    pub fn flow_len_bytes(&self, flow: u32) -> Option<u64> {
        dispatch!(self, q => q.flow_len_bytes(flow))
    }
    pub fn delay_classes(&self) -> &'static [&'static str] {
        dispatch!(self, q => q.delay_classes())
    }
    /// The class of the packet the last `dequeue` returned (DropTail and
    /// DRR: one class, no call).
    #[inline]
    pub fn dequeue_class(&self, id: PktId, pkts: &PacketPool) -> usize {
        match self {
            Queue::DropTail(_) | Queue::Drr(_) => 0,
            Queue::Dyn(q) => q.dequeue_class(id, pkts),
        }
    }
}

impl<T: QueueDiscipline + 'static> From<T> for Queue {
    /// Any discipline, dynamically dispatched.
    fn from(q: T) -> Self {
        Queue::Dyn(Box::new(q))
    }
}

/// Builds a discipline from its queue table (errors name the table's path).
pub type QueueBuilder = fn(&QueueSpec, &str) -> Result<Queue, ConfigError>;

/// A queue kind: its name, what it does, its parameters and its builder.
pub struct QueueKind {
    pub name: &'static str,
    pub doc: &'static str,
    pub params: fn() -> Vec<ParamDoc>,
    /// Build from a spec, validating every field; `path` names the table.
    pub build: QueueBuilder,
}

/// Every queue discipline ccsim ships: one line each.
pub fn registry() -> Vec<QueueKind> {
    vec![droptail::KIND, red::KIND, drr::KIND, codel::KIND, fq_codel::KIND, pie::KIND, dualpi2::KIND]
}

/// Set CE on packet `id` as an AQM's congestion signal instead of a drop
/// (RFC 3168 §5): true if it is ECN-capable (an ECT packet becomes CE and
/// the mark is counted) or already CE (Linux's `INET_ECN_set_ce` accepts
/// it too); false for a Not-ECT packet, which the caller drops.
pub(crate) fn mark_ce(ctx: &mut LinkCtx, pkts: &mut PacketPool, id: PktId) -> bool {
    let p = pkts.get_mut(id);
    match p.ecn {
        Ecn::Ect0 | Ecn::Ect1 => {
            p.ecn = Ecn::Ce;
            ctx.count_mark(p);
            true
        }
        Ecn::Ce => true,
        Ecn::NotEct => false,
    }
}

/// Build the discipline `spec.kind` (field errors name `path`).
pub fn build(spec: &QueueSpec, path: &str) -> Result<Queue, ConfigError> {
    // Router stages set up in the same table (GWA) are not the discipline's.
    let (spec, _) = super::stage::gwa::from_queue_table(spec, path)?;
    let (spec, _) = super::stage::drop_list::from_queue_table(&spec, path)?;
    let spec = &spec;
    let kinds = registry();
    match kinds.iter().find(|k| k.name == spec.kind) {
        Some(k) => (k.build)(spec, path),
        None => {
            let names: Vec<&str> = kinds.iter().map(|k| k.name).collect();
            Err(ConfigError::new(
                format!("{path}.kind"),
                format!("unknown value \"{}\"; allowed: {}", spec.kind, names.join(", ")),
            ))
        }
    }
}

/// `ccsim list`'s queue table.
pub fn catalog() -> serde_json::Value {
    registry()
        .iter()
        .map(|k| {
            let mut params = (k.params)();
            params.push(ties_param());
            serde_json::json!({"name": k.name, "doc": k.doc, "params": params})
        })
        .collect()
}

/// The `ties` field every queue table takes (`scenario::Ties`): it is the
/// link's, not the discipline's.
fn ties_param() -> ParamDoc {
    ParamDoc {
        name: "ties",
        default: serde_json::json!("event_order"),
        doc: "a tied arrival and departure: event_order (ccsim's scheduling order) or arrival_first (ns-2.35's order); ns2: every event of this link scheduled when ns-2 schedules it (each packet's arrival and the resume at its transmission start, no cut-through), so ties between links fall as in ns-2",
    }
}
