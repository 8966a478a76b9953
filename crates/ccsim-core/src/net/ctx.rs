//! The link context a queue discipline or a per-link stage works in.
//!
//! Built by the link for one call, it gives the owner what a router's
//! processing needs and nothing of the rest of the network: the time, the
//! link's rate and whether its serialiser is idle, the owner's own RNG
//! stream (so adding a random component never perturbs another's draws),
//! the owner's own re-armable timer (RED's idle clock, XCP's control
//! interval), and a way to drop packets it already holds (longest-queue
//! drop) and to count ECN marks.
use super::packet::{Packet, PktId};
use crate::sim::ns2rng::Ns2Rng;
use crate::sim::rng::Rng;
use crate::sim::{EventQueue, Time, Timer};

/// The instant a link's owners act at: ccsim's integer time and, with
/// `ns2_clock = true`, ns-2's `double` of it (`crate::sim::ns2clock`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Now {
    pub t: Time,
    pub ns2: Option<f64>,
}

/// What a stage sees of its link's queue: the waiting packets and bytes
/// and, on enqueue with a per-flow discipline, the arriving packet's flow's
/// own backlog (GWA-RR's q_i); on dequeue, after the departing packet left. Queue disciplines get an empty view (they
/// know themselves).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueView {
    pub pkts: usize,
    pub bytes: u64,
    pub flow_bytes: Option<u64>,
}

pub struct LinkCtx<'a> {
    pub now: Time,
    /// ns-2's `double` time of this instant with `ns2_clock = true`
    /// (`crate::sim::ns2clock`), for rules ns-2 computes from its clock
    /// (RED's idle period).
    pub ns2_now: Option<f64>,
    /// Index of the link in `Net::links`.
    pub link: u32,
    pub rate_bps: f64,
    /// The serialiser is free and nothing waits: a packet admitted now goes
    /// straight into service.
    pub idle: bool,
    pub rng: &'a mut Rng,
    /// The link's queue as the owner's call finds it (see [`QueueView`]).
    pub queue: QueueView,
    pub(crate) timer: &'a mut Timer,
    pub(crate) events: &'a mut EventQueue,
    /// ns-2's default random stream, shared by every owner that draws
    /// from it (`rng = "ns2"`; see [`crate::sim::ns2rng`]).
    pub ns2_rng: &'a mut Ns2Rng,
    pub(crate) evicted: &'a mut Vec<PktId>,
    pub(crate) marks: &'a mut u64,
    /// CE marks per flow id (`Net::ce_marks`), grown on the first mark of
    /// a flow: most runs mark nothing, and a web workload's hundreds of
    /// thousands of flows should not each carry a counter for it.
    pub(crate) flow_marks: &'a mut Vec<u64>,
}

impl LinkCtx<'_> {
    /// Arm (or move) the owner's timer; its `on_timer` runs at `at`.
    pub fn arm_timer(&mut self, at: Time) {
        self.timer.arm(self.events, at);
    }

    pub fn disarm_timer(&mut self) {
        self.timer.disarm();
    }

    /// Drop a packet the discipline holds (not the arriving one), on
    /// enqueue, dequeue or its timer: the link frees it, counts a drop and
    /// tells its taps.
    pub fn evict(&mut self, id: PktId) {
        self.evicted.push(id);
    }

    /// Count an ECN mark the owner made on packet `p` (it sets `Ecn::Ce`
    /// itself): for the link, and for `p`'s flow, so that the flows' marks
    /// add up to the links' (`ce_marks` in the results).
    pub fn count_mark(&mut self, p: &Packet) {
        *self.marks += 1;
        let f = p.flow as usize;
        if f >= self.flow_marks.len() {
            self.flow_marks.resize(f + 1, 0);
        }
        self.flow_marks[f] += 1;
    }
}

/// The parts of the network beyond its link that a link's owners act on,
/// borrowed together for one call: the event queue (their timers), ns-2's
/// shared random stream and the CE-mark counts per flow (`Net::ce_marks`);
/// and the scenario's seed, from which a queue's random stream derives
/// when first used (`Net::seed`).
pub(crate) struct Shared<'a> {
    pub seed: u64,
    pub events: &'a mut EventQueue,
    pub ns2_rng: &'a mut Ns2Rng,
    pub flow_marks: &'a mut Vec<u64>,
}

/// What a link keeps for each owner of a context: its RNG and its timer.
pub struct OwnerState {
    pub rng: Rng,
    pub timer: Timer,
}

/// Run `f` with a context on link 0 (10 Mb/s) and an empty packet pool.
#[cfg(test)]
pub(crate) fn test_ctx(idle: bool, f: impl FnOnce(&mut LinkCtx, &mut super::packet::PacketPool)) {
    use crate::sim::{EventKind, Owner};
    let mut rng = crate::sim::rng::from_u64(1);
    let mut timer = Timer::new(Owner::new(EventKind::LinkTimer, 0, 0));
    let mut events = EventQueue::default();
    let (mut evicted, mut marks, mut flow_marks) = (Vec::new(), 0, Vec::new());
    let mut ns2_rng = Ns2Rng::default();
    let mut ctx = LinkCtx {
        now: 0,
        ns2_now: None,
        link: 0,
        rate_bps: 10e6,
        idle,
        rng: &mut rng,
        queue: QueueView::default(),
        timer: &mut timer,
        events: &mut events,
        ns2_rng: &mut ns2_rng,
        evicted: &mut evicted,
        marks: &mut marks,
        flow_marks: &mut flow_marks,
    };
    f(&mut ctx, &mut super::packet::PacketPool::default());
}
