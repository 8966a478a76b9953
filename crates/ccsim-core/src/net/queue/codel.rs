//! CoDel, Controlled Delay (RFC 8289), as Linux runs it
//! (`include/net/codel_impl.h`; ns-3's `CoDelQueueDisc` is a port of it).
//!
//! * **Sojourn time** (§3.2, §5.1): each packet is stamped with the time it
//!   enters the queue; at dequeue its sojourn is `now - stamp`.
//! * **ok_to_drop** (§5.1, Linux `codel_should_drop`): false, and
//!   `first_above_time` cleared, while the sojourn is below `target` or the
//!   backlog left behind the packet is at most one MTU (`mtu_bytes`); the
//!   first packet above arms `first_above_time = now + interval`; true once
//!   `now > first_above_time`. So the first drop needs the sojourn above
//!   target for a whole interval. An empty queue clears it and leaves the
//!   dropping state.
//! * **Dropping state** (§5.3): entered with a drop of the head packet;
//!   `count` restarts at 1 unless the last dropping state ended recently
//!   (`count - lastcount > 1` and `now - drop_next < 16 interval`: then
//!   `count = count - lastcount`, the drop rate that controlled the queue
//!   last time); `drop_next = now + interval/sqrt(count)`. While in it,
//!   each dequeue at `now >= drop_next` increments `count`, drops the head
//!   and takes the next one, and `drop_next += interval/sqrt(count)`
//!   (§5.4's control law), until a packet is not ok to drop: then the state
//!   ends. Drops happen at dequeue; the link frees them (`ctx.evict`).
//! * **ECN** (`ecn = true`, §5.5): an ECN-capable packet is CE-marked and
//!   sent instead of dropped; the schedule advances as for a drop
//!   (`drop_next` from `drop_next`, Linux; ns-3 restarts it from `now`
//!   after a mark, a difference of at most the dequeue spacing).
//! * **CE threshold** (`ce_threshold_s`, Linux `ce_threshold`, ns-3
//!   `CeThreshold`; off unless given): every ECN-capable packet leaving
//!   with a sojourn time above it is CE-marked, whatever the control law
//!   does: the shallow step marking DCTCP wants, on a CoDel or FQ-CoDel
//!   queue (ns-3's DCTCP validation runs it at 1 ms). Linux marks whether
//!   or not `ecn` is on; ns-3 only with `UseEcn`; ccsim follows Linux.
//! * **Buffer**: `limit_pkts` (Linux `limit`, 1000) or `limit_bytes`
//!   (ns-3 `MaxSize`, 1.5 MB); an arrival that finds it full is dropped.
//!
//! Where RFC 8289's pseudocode and Linux differ, this follows Linux and
//! ns-3, which agree: `ok_to_drop` needs `now > first_above_time` (the RFC
//! writes `>=`), and `count` is incremented before a mark as before a
//! drop. Times are exact picoseconds (Linux: 1.024 µs units), and
//! `interval/sqrt(count)` uses IEEE `sqrt` (exactly rounded, so the same on
//! every platform) where Linux and ns-3 use a Newton-iterated fixed-point
//! inverse square root, which is off by up to a few percent for a few drops
//! after `count` resumes at `count - lastcount`.
//!
//! The one-MTU rule uses 1500 bytes: ccsim's packet sizes are IP packets,
//! and Linux's `psched_mtu` of 1514 is that MTU plus the 14-byte Ethernet
//! header its qdisc lengths include; ns-3 has 1500 (`MinBytes`, compared
//! with `<` where Linux and the RFC compare `<=`).
//!
//! The algorithm is [`CodelState`], with its own state over a queue it
//! reaches through a closure, so FQ-CoDel (`fq_codel.rs`) runs one per
//! flow queue. Not modelled: the L4S mode (the CE threshold for ECT(1)
//! packets alone: Linux `ce_threshold_selector`, ns-3 `UseL4s`).
use super::droptail::Limit;
use super::{mark_ce, QueueDiscipline, QueueKind};
use crate::net::ctx::LinkCtx;
use crate::net::packet::{PacketPool, PktId};
use crate::scenario::params::{ParamDoc, Params};
use crate::scenario::{ConfigError, QueueSpec};
use crate::sim::time::{from_secs, round_to_time};
use crate::sim::Time;
use serde_json::json;
use std::collections::VecDeque;

/// RFC 8289 §4.4 and Linux `codel_params_init`.
pub const DEFAULT_TARGET_S: f64 = 0.005;
/// RFC 8289 §4.3 and Linux.
pub const DEFAULT_INTERVAL_S: f64 = 0.1;
/// Linux `sch_codel`'s default `limit`.
pub const DEFAULT_LIMIT_PKTS: u64 = 1000;
/// One IP MTU (see the module doc).
pub const DEFAULT_MTU_BYTES: u64 = 1500;

pub const KIND: QueueKind = QueueKind {
    name: "codel",
    doc: "CoDel (RFC 8289) as Linux codel_impl.h: head drops (or CE marks) at dequeue when the sojourn time \
          stays above target for an interval",
    params: || {
        let mut v = vec![
            ParamDoc {
                name: "limit_pkts",
                default: json!(DEFAULT_LIMIT_PKTS),
                doc: "buffer in packets waiting (Linux limit 1000); or limit_bytes instead",
            },
            ParamDoc {
                name: "limit_bytes",
                default: serde_json::Value::Null,
                doc: "buffer in bytes waiting instead of limit_pkts (ns-3 MaxSize, 1500000 B there)",
            },
        ];
        v.extend(codel_param_docs(false));
        v
    },
    build: |q, path| Ok(Codel::from_spec(q, path)?.into()),
};

/// The CoDel parameters `codel` and `fq_codel` share (`ecn`'s default
/// differs: off in CoDel, on in FQ-CoDel, as in Linux and ns-3).
pub(crate) fn codel_param_docs(ecn_default: bool) -> Vec<ParamDoc> {
    vec![
        ParamDoc {
            name: "target_s",
            default: json!(DEFAULT_TARGET_S),
            doc: "acceptable standing sojourn time, seconds > 0 (RFC 8289 §4.4, Linux, ns-3: 5 ms)",
        },
        ParamDoc {
            name: "interval_s",
            default: json!(DEFAULT_INTERVAL_S),
            doc: "seconds > 0 the sojourn must stay above target before the first drop, and the control law's \
                  base spacing interval/sqrt(count) (RFC 8289 §4.3: 100 ms)",
        },
        ParamDoc {
            name: "mtu_bytes",
            default: json!(DEFAULT_MTU_BYTES),
            doc: "no drop while the backlog behind the packet is at most this many bytes (RFC 8289 §5.1 \
                  maxpacket; Linux psched_mtu 1514 with the Ethernet header, ns-3 MinBytes 1500)",
        },
        ParamDoc {
            name: "ce_threshold_s",
            default: json!(null),
            doc: "CE-mark every ECN-capable packet whose sojourn exceeds this many seconds, beside the control \
                  law (Linux ce_threshold, ns-3 CeThreshold; DCTCP's step; absent: off)",
        },
        ParamDoc {
            name: "ecn",
            default: json!(ecn_default),
            doc: if ecn_default {
                "CE-mark ECN-capable packets instead of dropping them (Linux and ns-3 FQ-CoDel: on)"
            } else {
                "CE-mark ECN-capable packets instead of dropping them (Linux and ns-3 CoDel: off)"
            },
        },
    ]
}

/// A duration field in seconds: positive (at least 1 ns) and at most an hour.
pub(crate) fn positive_s(field: &str, x: f64) -> Result<(), ConfigError> {
    if x.is_finite() && (1e-9..=3600.0).contains(&x) {
        Ok(())
    } else {
        Err(ConfigError::new(field, format!("must be > 0 s (from 1e-9 to 3600 s), got {x}")))
    }
}

/// The buffer of an AQM table: `limit_pkts` or `limit_bytes` as droptail's,
/// or `default_pkts` packets when neither is given.
pub(crate) fn limit_or(q: &QueueSpec, path: &str, default_pkts: u64) -> Result<Limit, ConfigError> {
    if q.limit_pkts.is_none() && q.limit_bytes.is_none() {
        Ok(Limit::Packets(default_pkts))
    } else {
        Limit::from_fields(q, path)
    }
}

/// Whether a packet of `size` bytes fits behind `pkts` packets of `bytes`
/// bytes waiting.
pub(crate) fn fits(limit: Limit, pkts: usize, bytes: u64, size: u32) -> bool {
    match limit {
        Limit::Packets(n) => (pkts as u64) < n,
        Limit::Bytes(b) => bytes + size as u64 <= b,
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CodelParams {
    pub target: Time,
    pub interval: Time,
    pub mtu: u64,
    pub ecn: bool,
    /// Mark ECN-capable packets leaving with a longer sojourn (`None`: off).
    pub ce_threshold: Option<Time>,
}

impl CodelParams {
    /// Linux's defaults (RFC 8289 §4), with `ecn`.
    pub fn linux(ecn: bool) -> Self {
        CodelParams {
            target: from_secs(DEFAULT_TARGET_S),
            interval: from_secs(DEFAULT_INTERVAL_S),
            mtu: DEFAULT_MTU_BYTES,
            ecn,
            ce_threshold: None,
        }
    }

    /// Read `target_s`, `interval_s`, `mtu_bytes` and `ecn` from a table.
    pub(crate) fn read(p: &mut Params, ecn_default: bool) -> Result<Self, ConfigError> {
        let target = p.f64_with("target_s", DEFAULT_TARGET_S, positive_s)?;
        let interval = p.f64_with("interval_s", DEFAULT_INTERVAL_S, positive_s)?;
        let mtu = p.u64_in("mtu_bytes", DEFAULT_MTU_BYTES, 0, 1 << 30)?;
        let ecn = p.bool("ecn", ecn_default)?;
        let ce_threshold = p.opt_f64_with("ce_threshold_s", positive_s)?.map(from_secs);
        Ok(CodelParams { target: from_secs(target), interval: from_secs(interval), mtu, ecn, ce_threshold })
    }

    /// RFC 8289 §5.4: `t + interval / sqrt(count)`, to the picosecond.
    pub fn control_law(&self, t: Time, count: u32) -> Time {
        t + round_to_time(self.interval as f64 / (count.max(1) as f64).sqrt())
    }
}

/// A packet taken from the head of a CoDel-managed queue: its id, when it
/// was queued, and the backlog in bytes it leaves behind (the whole
/// discipline's, for FQ-CoDel as in Linux).
pub struct Head {
    pub id: PktId,
    pub enqueued: Time,
    pub backlog: u64,
}

/// CoDel's state for one queue (RFC 8289 §5 / Linux `codel_vars`).
#[derive(Clone, Debug, Default)]
pub struct CodelState {
    /// When the sojourn time will have been above target for an interval
    /// (`None`: it is below, or the backlog is at most one MTU).
    pub first_above_time: Option<Time>,
    pub drop_next: Time,
    pub count: u32,
    pub lastcount: u32,
    pub dropping: bool,
    /// Drops and marks made at dequeue (for tests and curiosity).
    pub drops: u64,
    pub marks: u64,
}

impl CodelState {
    /// Linux `codel_should_drop` for the packet `head` at `now`.
    fn ok_to_drop(&mut self, p: &CodelParams, head: Option<&Head>, now: Time) -> bool {
        let Some(h) = head else {
            self.first_above_time = None;
            return false;
        };
        let sojourn = now.saturating_sub(h.enqueued);
        if sojourn < p.target || h.backlog <= p.mtu {
            self.first_above_time = None;
            return false;
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + p.interval);
                false
            }
            Some(t) => now > t,
        }
    }

    /// Mark (ECN on, ECN-capable packet) or drop `id` as CoDel's signal;
    /// true if it was marked (and so stays the packet to send).
    fn signal(&mut self, p: &CodelParams, ctx: &mut LinkCtx, pkts: &mut PacketPool, id: PktId) -> bool {
        if p.ecn && mark_ce(ctx, pkts, id) {
            self.marks += 1;
            true
        } else {
            ctx.evict(id);
            self.drops += 1;
            false
        }
    }

    /// Linux `codel_dequeue`: the next packet to send from the queue that
    /// `pop` takes heads from, dropping (through `ctx.evict`) or marking
    /// on the way.
    pub fn dequeue(
        &mut self,
        p: &CodelParams,
        ctx: &mut LinkCtx,
        pkts: &mut PacketPool,
        mut pop: impl FnMut() -> Option<Head>,
    ) -> Option<PktId> {
        let now = ctx.now;
        let Some(first) = pop() else {
            self.dropping = false;
            return None;
        };
        let mut head = Some(first);
        let ok = self.ok_to_drop(p, head.as_ref(), now);
        if self.dropping {
            if !ok {
                // the sojourn fell below target: leave the dropping state
                self.dropping = false;
            }
            // A large backlog can make the next drop due at once: loop.
            while self.dropping && now >= self.drop_next {
                let id = head.as_ref().expect("in the dropping state with a packet").id;
                self.count = self.count.saturating_add(1);
                if self.signal(p, ctx, pkts, id) {
                    self.drop_next = p.control_law(self.drop_next, self.count);
                    return Some(id);
                }
                head = pop();
                if self.ok_to_drop(p, head.as_ref(), now) {
                    self.drop_next = p.control_law(self.drop_next, self.count);
                } else {
                    self.dropping = false;
                }
            }
        } else if ok {
            let id = head.as_ref().expect("a packet").id;
            if !self.signal(p, ctx, pkts, id) {
                head = pop();
                self.ok_to_drop(p, head.as_ref(), now);
            }
            self.dropping = true;
            // Resume at the drop rate that controlled the queue last time
            // if that was recent (RFC 8289 §5.3, the "Linux version").
            let delta = self.count.saturating_sub(self.lastcount);
            let since = now as i128 - self.drop_next as i128;
            self.count = if delta > 1 && since < 16 * p.interval as i128 { delta } else { 1 };
            self.lastcount = self.count;
            self.drop_next = p.control_law(now, self.count);
        }
        let h = head?;
        if p.ce_threshold.is_some_and(|th| now.saturating_sub(h.enqueued) > th)
            && pkts.get(h.id).ecn.is_ect()
            && mark_ce(ctx, pkts, h.id)
        {
            self.marks += 1;
        }
        Some(h.id)
    }
}

/// A FIFO of packets with their sizes and enqueue times, and its bytes:
/// the queue whose sojourn times CoDel and PIE measure.
#[derive(Clone, Debug, Default)]
pub(crate) struct StampedFifo {
    q: VecDeque<(PktId, u32, Time)>,
    bytes: u64,
}

impl StampedFifo {
    pub(crate) fn push(&mut self, id: PktId, size: u32, now: Time) {
        self.q.push_back((id, size, now));
        self.bytes += size as u64;
    }

    /// The head: its id, size and enqueue time.
    pub(crate) fn pop(&mut self) -> Option<(PktId, u32, Time)> {
        let head = self.q.pop_front()?;
        self.bytes -= head.1 as u64;
        Some(head)
    }

    pub(crate) fn len(&self) -> usize {
        self.q.len()
    }

    /// When the head packet was queued (`None`: empty).
    pub(crate) fn head_time(&self) -> Option<Time> {
        self.q.front().map(|&(_, _, t)| t)
    }

    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Whether a packet of `size` bytes fits under `limit`.
    pub(crate) fn fits(&self, limit: Limit, size: u32) -> bool {
        fits(limit, self.q.len(), self.bytes, size)
    }

    pub(crate) fn ids(&self) -> Vec<PktId> {
        self.q.iter().map(|&(id, _, _)| id).collect()
    }
}

/// The `codel` discipline: one FIFO of (packet, size, enqueue time).
pub struct Codel {
    params: CodelParams,
    limit: Limit,
    q: StampedFifo,
    state: CodelState,
}

impl Codel {
    pub fn new(params: CodelParams, limit: Limit) -> Self {
        Codel { params, limit, q: StampedFifo::default(), state: CodelState::default() }
    }

    pub fn from_spec(q: &QueueSpec, path: &str) -> Result<Self, ConfigError> {
        let mut p = Params::new(&q.extra, path);
        let params = CodelParams::read(&mut p, false)?;
        p.finish_with("queue kind \"codel\"", &["kind", "limit_pkts", "limit_bytes"])?;
        Ok(Codel::new(params, limit_or(q, path, DEFAULT_LIMIT_PKTS)?))
    }

    pub fn params(&self) -> &CodelParams {
        &self.params
    }

    pub fn state(&self) -> &CodelState {
        &self.state
    }
}

impl QueueDiscipline for Codel {
    fn enqueue(&mut self, ctx: &mut LinkCtx, id: PktId, pkts: &mut PacketPool) -> bool {
        let size = pkts.get(id).size;
        if !ctx.idle && !self.q.fits(self.limit, size) {
            return false;
        }
        self.q.push(id, size, ctx.now);
        true
    }

    fn dequeue(&mut self, ctx: &mut LinkCtx, pkts: &mut PacketPool) -> Option<PktId> {
        let Codel { params, q, state, .. } = self;
        state.dequeue(params, ctx, pkts, || {
            let (id, _, enqueued) = q.pop()?;
            Some(Head { id, enqueued, backlog: q.bytes() })
        })
    }

    fn len_pkts(&self) -> usize {
        self.q.len()
    }

    fn len_bytes(&self) -> u64 {
        self.q.bytes()
    }

    fn waiting(&self, _pkts: &PacketPool) -> Vec<PktId> {
        self.q.ids()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::net::ctx::test_ctx;
    use crate::net::packet::{Ecn, Packet};
    use crate::sim::time::to_secs;

    const MS: Time = 1_000_000_000;

    fn spec(v: serde_json::Value) -> QueueSpec {
        serde_json::from_value(v).unwrap()
    }

    /// What a driven queue did: the times of its drops and marks, and of
    /// every packet sent with its sojourn.
    #[derive(Default)]
    pub(crate) struct Trace {
        pub drops: Vec<Time>,
        pub marks: Vec<Time>,
        pub sent: Vec<(Time, Time)>,
    }

    /// From `t0`, one dequeue every `dt` for `steps` steps (`clock`), each after
    /// `arrivals(step)` packets of 1000 bytes with ECN field `ecn` arrive
    /// (stamped `ts = now` so the sojourn can be read back).
    pub(crate) fn drive(
        q: &mut dyn QueueDiscipline,
        ctx: &mut LinkCtx,
        pool: &mut PacketPool,
        (t0, dt, steps): (Time, Time, usize),
        arrivals: impl Fn(usize) -> usize,
        ecn: Ecn,
        tr: &mut Trace,
    ) {
        for k in 0..steps {
            ctx.now = t0 + k as Time * dt;
            for _ in 0..arrivals(k) {
                let id = pool.alloc(Packet { size: 1000, ecn, ts: ctx.now, ..Default::default() });
                if !q.enqueue(ctx, id, pool) {
                    pool.free(id);
                }
            }
            let got = q.dequeue(ctx, pool);
            for id in ctx.evicted.drain(..) {
                tr.drops.push(ctx.now);
                pool.free(id);
            }
            if let Some(id) = got {
                let p = *pool.get(id);
                if p.ecn == Ecn::Ce {
                    tr.marks.push(ctx.now);
                }
                tr.sent.push((ctx.now, ctx.now - p.ts));
                pool.free(id);
            }
        }
    }

    /// The scheduled times of drops 2, 3, ... after a first drop at `t0`:
    /// S_1 = t0 + I, S_k = S_(k-1) + I/sqrt(k) (RFC 8289 §5.4).
    fn schedule(t0: f64, interval: f64, n: usize) -> Vec<f64> {
        let mut s = vec![t0];
        for k in 1..n {
            let prev = s[k - 1];
            s.push(prev + interval / (k as f64).sqrt());
        }
        s
    }

    fn overload(ecn_on: bool, ecn: Ecn) -> (Trace, CodelState) {
        let mut out = (Trace::default(), CodelState::default());
        test_ctx(false, |ctx, pool| {
            let mut q = Codel::new(CodelParams::linux(ecn_on), Limit::Packets(1_000_000));
            // one departure per 0.1 ms, two arrivals: the sojourn grows
            // 0.05 ms per step, without bound
            drive(&mut q, ctx, pool, (0, MS / 10, 12_000), |_| 2, ecn, &mut out.0);
            out.1 = q.state.clone();
        });
        out
    }

    #[test]
    fn the_ce_threshold_marks_every_ect_packet_above_it_below_target() {
        // a standing queue of 4 packets served one per ms: 4 ms sojourn,
        // below the 5 ms target, above a 1 ms CE threshold
        let run = |ecn: Ecn, threshold: Option<Time>| {
            let mut tr = Trace::default();
            test_ctx(false, |ctx, pool| {
                let p = CodelParams { ce_threshold: threshold, ..CodelParams::linux(false) };
                let mut q = Codel::new(p, Limit::Packets(1000));
                drive(&mut q, ctx, pool, (0, MS, 4), |_| 2, ecn, &mut tr);
                drive(&mut q, ctx, pool, (4 * MS, MS, 2000), |_| 1, ecn, &mut tr);
                assert_eq!(q.state.drops, 0);
            });
            tr
        };
        let tr = run(Ecn::Ect0, Some(MS));
        let above = tr.sent.iter().filter(|&&(_, s)| s > MS).count();
        assert!(above > 1900, "{above}");
        assert_eq!(tr.marks.len(), above, "exactly the packets that waited longer than 1 ms");
        assert!(tr.drops.is_empty());
        // a threshold above the sojourn, none; Not-ECT packets are left alone
        assert!(run(Ecn::Ect0, Some(5 * MS)).marks.is_empty());
        assert!(run(Ecn::NotEct, Some(MS)).marks.is_empty());
        assert!(run(Ecn::Ect0, None).marks.is_empty());
        // the field, in seconds, positive
        let q = Codel::from_spec(&spec(serde_json::json!({"kind": "codel", "ce_threshold_s": 0.001})), "q").unwrap();
        assert_eq!(q.params().ce_threshold, Some(MS));
        let e = Codel::from_spec(&spec(serde_json::json!({"kind": "codel", "ce_threshold_s": 0.0})), "q");
        let e = e.err().unwrap().to_string();
        assert!(e.contains("q.ce_threshold_s") && e.contains("must be > 0 s") && e.contains("got 0"), "{e}");
    }

    #[test]
    fn no_drops_while_the_sojourn_stays_below_target() {
        test_ctx(false, |ctx, pool| {
            let mut q = Codel::new(CodelParams::linux(false), Limit::Packets(1000));
            let mut tr = Trace::default();
            // a standing queue of 4 packets served one per ms: 4 ms sojourn
            drive(&mut q, ctx, pool, (0, MS, 10_000), |k| if k == 0 { 5 } else { 1 }, Ecn::NotEct, &mut tr);
            assert!(tr.sent.iter().skip(4).all(|&(_, s)| s == 4 * MS), "a 4 ms sojourn throughout");
            assert!(tr.drops.is_empty() && !q.state.dropping && q.state.first_above_time.is_none());
            // 6 ms: above target, so drops come
            let mut tr = Trace::default();
            drive(&mut q, ctx, pool, (10 * 1000 * MS, MS, 1000), |k| (k == 0) as usize * 2 + 1, Ecn::NotEct, &mut tr);
            assert!(!tr.drops.is_empty());
        });
    }

    #[test]
    fn first_drop_needs_the_sojourn_above_target_for_a_whole_interval() {
        let (tr, _) = overload(false, Ecn::NotEct);
        let target = 5 * MS;
        let above = tr.sent.iter().find(|&&(_, s)| s >= target).unwrap().0;
        // nothing sent before `above` was delayed that long, and no drop
        // came before above + interval; the first comes at the first
        // dequeue strictly after it (0.1 ms later)
        let first = tr.drops[0];
        assert_eq!(first, above + 100 * MS + MS / 10, "above target at {above}, first drop at {first}");
        // and every packet sent from `above` on was above target
        assert!(tr.sent.iter().filter(|s| s.0 >= above && s.0 < first).all(|&(_, s)| s >= target));
    }

    #[test]
    fn a_sojourn_above_target_for_less_than_an_interval_drops_nothing() {
        // Bursts of n packets every 300 ms, served one per ms: packet j
        // waits j ms, so the sojourn is above target from the 6th packet
        // until the backlog behind the head is one MTU: for n - 7 ms.
        for (n, drops) in [(100, false), (130, true)] {
            test_ctx(false, |ctx, pool| {
                let mut q = Codel::new(CodelParams::linux(false), Limit::Packets(1000));
                let mut tr = Trace::default();
                drive(&mut q, ctx, pool, (0, MS, 3000), |k| if k % 300 == 0 { n } else { 0 }, Ecn::NotEct, &mut tr);
                assert!(tr.sent.iter().any(|&(_, s)| s >= 90 * MS), "the sojourn does exceed target");
                assert_eq!(!tr.drops.is_empty(), drops, "bursts of {n}: drops at {:?}", tr.drops);
            });
        }
    }

    #[test]
    fn drops_follow_the_control_law() {
        let (tr, st) = overload(false, Ecn::NotEct);
        assert!(tr.marks.is_empty());
        assert!(st.dropping && tr.drops.len() > 20, "{} drops", tr.drops.len());
        let t0 = to_secs(tr.drops[0]);
        let want = schedule(t0, 0.1, tr.drops.len());
        for (k, (&got, &s)) in tr.drops.iter().zip(&want).enumerate() {
            // at the first dequeue at or after the scheduled time
            let got = to_secs(got);
            assert!(got >= s - 1e-9 && got < s + 1e-4, "drop {k}: at {got} s, scheduled {s} s");
        }
        // RFC 8289's figures: 100, 170.7, 228.4, 278.4, 323.1 ms after the first
        for (k, ms) in [100.0, 170.7, 228.4, 278.4, 323.1].iter().enumerate() {
            assert!((to_secs(tr.drops[k + 1]) - t0 - ms / 1e3).abs() < 2e-4, "drop {}", k + 1);
        }
        // one drop per scheduled time (count = drops made so far)
        assert_eq!(st.count as usize, tr.drops.len());
    }

    #[test]
    fn ecn_marks_capable_packets_on_the_same_schedule_and_drops_the_others() {
        let (tr, st) = overload(true, Ecn::Ect0);
        assert!(tr.drops.is_empty(), "ECT packets are marked, not dropped");
        assert!(tr.marks.len() > 20);
        assert_eq!(st.marks as usize, tr.marks.len());
        let t0 = to_secs(tr.marks[0]);
        for (k, (&got, &s)) in tr.marks.iter().zip(&schedule(t0, 0.1, tr.marks.len())).enumerate() {
            let got = to_secs(got);
            assert!(got >= s - 1e-9 && got < s + 1e-4, "mark {k}: at {got} s, scheduled {s} s");
        }
        // the first mark comes when the first drop would
        let (dropped, _) = overload(false, Ecn::NotEct);
        assert_eq!(tr.marks[0], dropped.drops[0]);
        // ECN on, packets not ECN-capable: dropped as without ECN
        let (tr2, _) = overload(true, Ecn::NotEct);
        assert_eq!(tr2.drops, dropped.drops);
        assert!(tr2.marks.is_empty());
        // an already marked packet is not dropped either
        let (tr3, _) = overload(true, Ecn::Ce);
        assert!(tr3.drops.is_empty());
    }

    #[test]
    fn leaves_the_dropping_state_below_target_and_resumes_at_the_last_rate() {
        test_ctx(false, |ctx, pool| {
            let mut q = Codel::new(CodelParams::linux(false), Limit::Packets(1_000_000));
            let mut tr = Trace::default();
            let dt = MS / 10;
            drive(&mut q, ctx, pool, (0, dt, 6000), |_| 2, Ecn::NotEct, &mut tr);
            assert!(q.state.dropping && q.state.count > 5, "count {}", q.state.count);
            let drops = tr.drops.len();
            // flush all but 3 packets at one instant: the last ones
            // arrived within 0.2 ms, below target, and the first of them
            // ends the dropping state
            let t1 = 6000 * dt;
            ctx.now = t1;
            let mut last = (true, 0);
            while q.len_pkts() > 3 {
                let id = q.dequeue(ctx, pool).unwrap();
                let sojourn = t1 - pool.get(id).ts;
                if sojourn < 5 * MS && last.0 {
                    last = (q.state.dropping, sojourn);
                }
                pool.free(id);
            }
            assert!(!last.0 && last.1 > 0, "left at the first packet below target");
            assert!(!q.state.dropping);
            for id in ctx.evicted.drain(..) {
                pool.free(id);
            }
            let (count, lastcount) = (q.state.count, q.state.lastcount);
            // then one arrival per departure: a 0.3 ms sojourn, no drops
            let mut tr = Trace::default();
            drive(&mut q, ctx, pool, (t1 + dt, dt, 5000), |_| 1, Ecn::NotEct, &mut tr);
            assert!(tr.drops.is_empty() && tr.sent.iter().all(|&(_, s)| s < 5 * MS));
            // overload again, less than 16 intervals after drop_next: the
            // dropping state resumes with count = count - lastcount
            let t2 = t1 + 5001 * dt;
            assert!(t2 - q.state.drop_next < 16 * 100 * MS);
            drive(&mut q, ctx, pool, (t2, dt, 3000), |_| 2, Ecn::NotEct, &mut tr);
            assert!(!tr.drops.is_empty());
            assert_eq!(q.state.lastcount, count - lastcount, "resumed at the last cycle's rate ({drops} drops)");
        });
    }

    #[test]
    fn the_buffer_drops_arrivals_when_full_and_a_short_backlog_is_spared() {
        test_ctx(false, |ctx, pool| {
            let mut q = Codel::new(CodelParams::linux(false), Limit::Packets(3));
            let ids: Vec<PktId> = (0..4).map(|_| pool.alloc(Packet { size: 1000, ..Default::default() })).collect();
            assert!(q.enqueue(ctx, ids[0], pool) && q.enqueue(ctx, ids[1], pool) && q.enqueue(ctx, ids[2], pool));
            assert!(!q.enqueue(ctx, ids[3], pool));
            // a backlog of at most one MTU behind the head is never dropped,
            // however old: 1 s later, the 3 packets go out untouched
            ctx.now = 1000 * MS;
            for &id in &ids[..3] {
                ctx.now += 200 * MS;
                assert_eq!(q.dequeue(ctx, pool), Some(id));
            }
            assert!(ctx.evicted.is_empty());
            assert_eq!((q.len_pkts(), q.len_bytes()), (0, 0));
            assert_eq!(q.dequeue(ctx, pool), None);
        });
        let mut q = Codel::from_spec(&spec(json!({"kind": "codel", "limit_bytes": 3000})), "q").unwrap();
        test_ctx(false, |ctx, pool| {
            for k in 0..4 {
                let id = pool.alloc(Packet { size: 1000, ..Default::default() });
                assert_eq!(q.enqueue(ctx, id, pool), k < 3);
            }
        });
    }

    #[test]
    fn parameters_are_validated_with_named_errors() {
        let err = |v| Codel::from_spec(&spec(v), "q").err().map(|e| e.to_string()).unwrap_or_default();
        let q = Codel::from_spec(&spec(json!({"kind": "codel"})), "q").unwrap();
        assert_eq!(q.params, CodelParams::linux(false));
        assert_eq!(q.limit, Limit::Packets(1000));
        let q = Codel::from_spec(
            &spec(json!({"kind": "codel", "target_s": 0.01, "interval_s": 0.2, "ecn": true, "mtu_bytes": 9000})),
            "q",
        )
        .unwrap();
        assert_eq!((q.params.target, q.params.interval, q.params.mtu, q.params.ecn), (10 * MS, 200 * MS, 9000, true));
        let e = err(json!({"kind": "codel", "target_s": 0}));
        assert!(e.contains("q.target_s") && e.contains("must be > 0 s") && e.contains("got 0"), "{e}");
        let e = err(json!({"kind": "codel", "interval_s": -1}));
        assert!(e.contains("q.interval_s") && e.contains("got -1"), "{e}");
        let e = err(json!({"kind": "codel", "ecn": 1}));
        assert!(e.contains("q.ecn") && e.contains("true or false"), "{e}");
        let e = err(json!({"kind": "codel", "limit_pkts": 0}));
        assert!(e.contains("q.limit_pkts"), "{e}");
        let e = err(json!({"kind": "codel", "target": 0.005}));
        assert!(e.contains("q.target") && e.contains("unknown field") && e.contains("target_s"), "{e}");
    }
}
