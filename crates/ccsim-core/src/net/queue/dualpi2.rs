//! DualPI2, the DualQ Coupled AQM of RFC 9332 for L4S (RFC 9331), as
//! Linux's `net/sched/sch_dualpi2.c` runs it.
//!
//! * **Two queues, one buffer** (RFC 9332 §2.2-2.3, RFC 9331 §5.1): an
//!   arriving packet goes to the L queue when its ECN field ANDed with
//!   `ecn_mask` is non-zero (the codepoints as bits: ECT(1) 01, ECT(0) 10,
//!   CE 11; the default `l4s_ect` mask 01 sends ECT(1) and CE to L,
//!   ECT(0) and Not-ECT to C, Linux's `dualpi2_skb_classify`), else to the
//!   C queue. Each is a FIFO of stamped packets. `limit_pkts` (Linux 10000)
//!   or `limit_bytes` counts both together; an arrival that finds it full
//!   is dropped.
//! * **Base probability p'** (RFC 9332 §2.1 and App. A's PI2 core; Linux
//!   `calculate_probability`), every `tupdate_s` on the link timer (on the
//!   grid k·tupdate from time 0, as Linux's timer started with the qdisc):
//!   `p' += α(qdelay − target) + β(qdelay − qdelay_old)` with delays in
//!   seconds and α, β in Hz applied per update as Linux applies them (the
//!   update period is folded into α, App. A.1's `α = 0.1·Tupdate/RTT_max²`),
//!   then p' is clamped to [0, 1] and `qdelay_old = qdelay`. qdelay is the
//!   larger of the two queues' head waits (now minus the head packet's
//!   enqueue time, 0 for an empty queue): Linux's `max(qdelay_l,
//!   qdelay_c)`; App. A.1's pseudocode reads the C queue alone. With
//!   `drop_overload = false`, p' is capped at 1/k so that p_CL never passes
//!   1 (Linux).
//! * **Coupling** (RFC 9332 §2.1): the C queue drops (Not-ECT) or CE-marks
//!   (ECT) with p_C = p'², drawn as two independent draws against p' (Linux
//!   `roll(p) && roll(p)`), the L queue CE-marks with p_CL = k·p'
//!   (`coupling_factor`, 2: RFC 9332 §2.1 and App. C, Linux).
//! * **Native L AQM**: a step (Linux `do_step_aqm`): an L packet whose
//!   sojourn exceeds `step_thresh_s` (1 ms) when it leaves is CE-marked (a
//!   Not-ECT one dropped); with `step_thresh_pkts`, when more than that
//!   many packets remain in the L queue behind it. It applies only to
//!   packets that found at least `min_qlen_step` packets in the L queue on
//!   arrival (Linux, 0: always). Linux runs the coupled draw and then the
//!   step, so an L packet is marked with probability 1 − (1 − p_CL)(1 −
//!   step) = max(p_CL, step): RFC 9332 §2.1's `p_L = max(p_CL, p_L')`. RFC
//!   9332's App. A example native AQM is a ramp (from 800 µs over 400 µs);
//!   ccsim follows Linux's step, which is also what DCTCP's switches do.
//! * **Where it acts**: at dequeue (Linux's default; its `drop_early`
//!   enqueue mode is not modelled), on the packet the scheduler picked.
//!   No coupled or classic mark or drop while less than 2·`mtu_bytes`
//!   remain queued behind the packet in both queues together (Linux
//!   `must_drop`); the step applies regardless. A dropped packet goes
//!   through `ctx.evict` and the scheduler picks again.
//! * **Overload** (RFC 9332 §4.2.3, Linux `drop_overload`, on by default):
//!   once p_CL = k·p' exceeds 1, ECN can no longer say more, so the L
//!   queue gets the classic drop probability p'² and every L packet not
//!   dropped is CE-marked, and ECT packets of the C queue are dropped
//!   rather than marked. With `drop_overload = false` p' stops at 1/k, L
//!   packets are all marked and never dropped early, and only the buffer
//!   limit drops them.
//! * **Scheduler** (RFC 9332 §2.4 allows a weighted round robin or a
//!   time-shifted FIFO): Linux's WRR credit, because it is the deployed
//!   reference and a time-shifted FIFO serves the queues in another order.
//!   The credit starts at `mtu_bytes·(wc − wl)` (wc = `c_protection`, 10%;
//!   wl = 100 − wc), so L goes first. L is served while it is backlogged
//!   and (C is empty or the credit ≤ 0), adding wc·size to the credit if C
//!   is backlogged; otherwise C is served, taking wl·size off if L is
//!   backlogged. With both queues backlogged C gets wc% of the bytes; an
//!   empty queue never holds the other up; with both empty the credit
//!   resets. A packet dropped at dequeue does not move the credit (Linux
//!   applies the change to the packet it sends).
//!
//! Defaults are Linux's `dualpi2_reset_default`: target 15 ms, tupdate
//! 16 ms, α = 41/256 Hz and β = 819/256 Hz (the RFC's 0.16 and 3.2 Hz in
//! Linux's 1/256 Hz units, "a 10 dB stability margin with max_rtt = 100
//! ms"), step 1 ms, k = 2, C weight 10%, drop on overload, limit 10000
//! packets. Where the sources differ ccsim follows Linux: the PI input is
//! the larger head wait of both queues (App. A.1: the C queue's), the L AQM
//! a step (App. A: a ramp), the scheduler a WRR credit. Linux's arithmetic
//! is fixed-point (p' in 32 bits, α and β in 64 ns units; a difference
//! below 10⁻⁹ per update), ccsim's in f64 and exact picoseconds. The 2-MTU
//! rule and the credit use 1500 bytes (`mtu_bytes`; Linux's `psched_mtu`
//! is 1514 with the Ethernet header ccsim's IP packet sizes leave out, as
//! for `codel`). Not modelled: `drop_early`, GSO splitting, tc-filter
//! classification, `memlimit` (truesize accounting; use `limit_bytes`).
use super::codel::{fits, limit_or, positive_s, StampedFifo};
use super::droptail::Limit;
use super::{mark_ce, QueueDiscipline, QueueKind};
use crate::net::ctx::LinkCtx;
use crate::net::packet::{Ecn, PacketPool, PktId};
use crate::scenario::params::{ParamDoc, Params};
use crate::scenario::{ConfigError, QueueSpec};
use crate::sim::time::{from_secs, to_secs};
use crate::sim::Time;
use rand::Rng as _;
use serde_json::json;
use std::collections::VecDeque;

pub const KIND: QueueKind = QueueKind {
    name: "dualpi2",
    doc: "DualPI2 (RFC 9332) as Linux sch_dualpi2: an L queue (ECT(1), CE) with a 1 ms step and coupled marks \
          k*p', a C queue with drops or marks p'^2, p' from a PI controller on the queueing delay, WRR between them",
    params: || {
        let d = DualPi2Config::default();
        vec![
            ParamDoc {
                name: "limit_pkts",
                default: json!(DEFAULT_LIMIT_PKTS),
                doc: "buffer in packets over both queues (Linux limit 10000); or limit_bytes instead",
            },
            ParamDoc {
                name: "limit_bytes",
                default: serde_json::Value::Null,
                doc: "buffer in bytes over both queues instead of limit_pkts (stands in for Linux's memlimit)",
            },
            ParamDoc {
                name: "target_s",
                default: json!(d.target),
                doc: "the PI controller's queueing-delay target, seconds > 0 (RFC 9332 App. A, Linux: 15 ms)",
            },
            ParamDoc {
                name: "tupdate_s",
                default: json!(to_secs(d.tupdate)),
                doc: "seconds > 0 between updates of p' (Linux: 16 ms)",
            },
            ParamDoc {
                name: "alpha",
                default: json!(d.alpha),
                doc: "integral gain in Hz per update, from 0 to 100 (Linux 41/256: RFC 9332's 0.16 Hz)",
            },
            ParamDoc {
                name: "beta",
                default: json!(d.beta),
                doc: "proportional gain in Hz per update, from 0 to 100 (Linux 819/256: RFC 9332's 3.2 Hz)",
            },
            ParamDoc {
                name: "step_thresh_s",
                default: json!(DEFAULT_STEP_S),
                doc: "L queue: CE-mark a packet leaving after a longer sojourn, seconds > 0 (Linux: 1 ms); \
                      or step_thresh_pkts instead",
            },
            ParamDoc {
                name: "step_thresh_pkts",
                default: serde_json::Value::Null,
                doc: "L queue: CE-mark a packet leaving more than this many L packets behind it, instead of \
                      step_thresh_s (Linux step_thresh in packets)",
            },
            ParamDoc {
                name: "min_qlen_step",
                default: json!(d.min_qlen_step),
                doc: "the step applies to an L packet that found at least this many packets in the L queue \
                      (Linux: 0, always)",
            },
            ParamDoc {
                name: "coupling_factor",
                default: json!(d.k),
                doc: "k in p_CL = k*p', a number from 1 to 255 (RFC 9332 §2.1, Linux: 2)",
            },
            ParamDoc {
                name: "c_protection",
                default: json!(d.c_protection),
                doc: "the C queue's WRR weight in percent, 0 to 100, the L queue's the rest (Linux: 10)",
            },
            ParamDoc {
                name: "drop_overload",
                default: json!(d.drop_overload),
                doc: "once k*p' > 1 drop L packets with p'^2 and ECT C packets instead of marking (RFC 9332 \
                      §4.2.3, Linux: on); false caps p' at 1/k",
            },
            ParamDoc {
                name: "ecn_mask",
                default: json!("l4s_ect"),
                doc: "which ECN codepoints go to the L queue: l4s_ect (ECT(1), CE; RFC 9331), cla_ect (ECT(0), \
                      CE) or any_ect (all but Not-ECT), Linux's masks",
            },
            ParamDoc {
                name: "mtu_bytes",
                default: json!(d.mtu),
                doc: "no coupled or classic mark or drop while less than twice this remains queued; the WRR \
                      credit's start (Linux psched_mtu 1514 with the Ethernet header)",
            },
        ]
    },
    build: |q, path| Ok(DualPi2::from_spec(q, path)?.into()),
};

/// Linux's `limit`.
pub const DEFAULT_LIMIT_PKTS: u64 = 10_000;
/// Linux's `step_thresh` (1 ms).
pub const DEFAULT_STEP_S: f64 = 0.001;

/// The L queue's native AQM: a step on the sojourn time or on the L
/// queue's length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Sojourn(Time),
    Packets(u64),
}

/// Which ECN codepoints the classifier sends to the L queue (Linux's
/// `ecn_mask` over the field's two bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnMask {
    /// ECT(1) and CE (RFC 9331's L4S identifier).
    L4sEct,
    /// ECT(0) and CE.
    ClaEct,
    /// ECT(0), ECT(1) and CE.
    AnyEct,
}

impl EcnMask {
    /// Whether a packet with codepoint `ecn` goes to the L queue.
    pub fn is_l(self, ecn: Ecn) -> bool {
        let bits = match ecn {
            Ecn::NotEct => 0b00,
            Ecn::Ect1 => 0b01,
            Ecn::Ect0 => 0b10,
            Ecn::Ce => 0b11,
        };
        let mask = match self {
            EcnMask::L4sEct => 0b01,
            EcnMask::ClaEct => 0b10,
            EcnMask::AnyEct => 0b11,
        };
        bits & mask != 0
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct DualPi2Config {
    pub limit: Limit,
    /// The PI target (s).
    pub target: f64,
    pub tupdate: Time,
    /// Gains in Hz per update.
    pub alpha: f64,
    pub beta: f64,
    pub step: Step,
    pub min_qlen_step: u64,
    /// The coupling factor k.
    pub k: f64,
    /// The C queue's WRR weight, percent.
    pub c_protection: u64,
    pub drop_overload: bool,
    pub ecn_mask: EcnMask,
    pub mtu: u64,
}

impl Default for DualPi2Config {
    /// Linux's `dualpi2_reset_default` (RFC 9332 App. A's parameters as
    /// Linux stores them).
    fn default() -> Self {
        DualPi2Config {
            limit: Limit::Packets(DEFAULT_LIMIT_PKTS),
            target: 0.015,
            tupdate: from_secs(0.016),
            alpha: 41.0 / 256.0,
            beta: 819.0 / 256.0,
            step: Step::Sojourn(from_secs(DEFAULT_STEP_S)),
            min_qlen_step: 0,
            k: 2.0,
            c_protection: 10,
            drop_overload: true,
            ecn_mask: EcnMask::L4sEct,
            mtu: 1500,
        }
    }
}

fn gain(field: &str, x: f64) -> Result<(), ConfigError> {
    if x.is_finite() && (0.0..=100.0).contains(&x) {
        Ok(())
    } else {
        Err(ConfigError::new(field, format!("must be a gain in Hz from 0 to 100, got {x}")))
    }
}

/// What the discipline did, by queue (for tests and curiosity; the link
/// counts drops and marks for the results).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DualPi2Stats {
    /// Packets queued in L and C.
    pub l_in: u64,
    pub c_in: u64,
    /// Arrivals dropped for want of buffer.
    pub overflows: u64,
    /// C queue: p'² drops and marks.
    pub c_drops: u64,
    pub c_marks: u64,
    /// L queue: coupled (k·p') marks, and p'² drops on overload.
    pub l_marks: u64,
    pub l_drops: u64,
    /// L queue: step marks, and step drops (of Not-ECT packets).
    pub step_marks: u64,
    pub step_drops: u64,
}

pub struct DualPi2 {
    cfg: DualPi2Config,
    lq: StampedFifo,
    /// Per L packet, in queue order: whether the step applies to it.
    l_step: VecDeque<bool>,
    cq: StampedFifo,
    /// The base probability p'.
    pub(crate) prob: f64,
    /// The queueing delay of the last update (s).
    last_qdelay: f64,
    /// WRR credit (bytes x percent): its sign picks the queue.
    credit: i64,
    running: bool,
    /// The packet the last `dequeue` returned came from the L queue
    /// (`dequeue_class`: a C packet marked CE on its way out is still C's).
    served_l: bool,
    stats: DualPi2Stats,
}

impl DualPi2 {
    pub fn new(cfg: DualPi2Config) -> Self {
        let mut q = DualPi2 {
            cfg,
            lq: StampedFifo::default(),
            l_step: VecDeque::new(),
            cq: StampedFifo::default(),
            prob: 0.0,
            last_qdelay: 0.0,
            credit: 0,
            running: false,
            served_l: false,
            stats: DualPi2Stats::default(),
        };
        q.credit = q.credit_init();
        q
    }

    pub fn from_spec(q: &QueueSpec, path: &str) -> Result<Self, ConfigError> {
        let d = DualPi2Config::default();
        let mut p = Params::new(&q.extra, path);
        let step_s = p.opt_f64_with("step_thresh_s", positive_s)?;
        // (absent: the default, which no table can give, stands for none)
        let step_pkts = Some(p.u64_in("step_thresh_pkts", u64::MAX, 0, 1 << 30)?).filter(|&n| n != u64::MAX);
        let step = match (step_s, step_pkts) {
            (Some(_), Some(_)) => {
                return Err(ConfigError::new(
                    path.to_string(),
                    "both step_thresh_s and step_thresh_pkts given; set at most one (Linux: one step_thresh)",
                ))
            }
            (_, Some(n)) => Step::Packets(n),
            (s, None) => Step::Sojourn(from_secs(s.unwrap_or(DEFAULT_STEP_S))),
        };
        let cfg = DualPi2Config {
            limit: limit_or(q, path, DEFAULT_LIMIT_PKTS)?,
            target: p.f64_with("target_s", d.target, positive_s)?,
            tupdate: from_secs(p.f64_with("tupdate_s", to_secs(d.tupdate), positive_s)?),
            alpha: p.f64_with("alpha", d.alpha, gain)?,
            beta: p.f64_with("beta", d.beta, gain)?,
            step,
            min_qlen_step: p.u64_in("min_qlen_step", d.min_qlen_step, 0, 1 << 30)?,
            k: p.f64_in("coupling_factor", d.k, 1.0, 255.0)?,
            c_protection: p.u64_in("c_protection", d.c_protection, 0, 100)?,
            drop_overload: p.bool("drop_overload", d.drop_overload)?,
            ecn_mask: match p.choice("ecn_mask", "l4s_ect", &["l4s_ect", "cla_ect", "any_ect"])? {
                "l4s_ect" => EcnMask::L4sEct,
                "cla_ect" => EcnMask::ClaEct,
                _ => EcnMask::AnyEct,
            },
            mtu: p.u64_in("mtu_bytes", d.mtu, 0, 1 << 30)?,
        };
        p.finish_with("queue kind \"dualpi2\"", &["kind", "limit_pkts", "limit_bytes"])?;
        Ok(DualPi2::new(cfg))
    }

    pub fn config(&self) -> &DualPi2Config {
        &self.cfg
    }

    /// The base probability p'.
    pub fn prob(&self) -> f64 {
        self.prob
    }

    pub fn stats(&self) -> DualPi2Stats {
        self.stats
    }

    /// Packets waiting in the L and the C queue.
    pub fn lens(&self) -> (usize, usize) {
        (self.lq.len(), self.cq.len())
    }

    /// The C queue's drop/mark probability p_C = p'² (RFC 9332 §2.1).
    pub fn p_c(&self) -> f64 {
        self.prob * self.prob
    }

    /// The L queue's coupled marking probability p_CL = k·p', at most 1.
    pub fn p_cl(&self) -> f64 {
        (self.cfg.k * self.prob).min(1.0)
    }

    fn credit_init(&self) -> i64 {
        let wc = self.cfg.c_protection as i64;
        self.cfg.mtu as i64 * (wc - (100 - wc))
    }

    /// Linux `calculate_probability`: one PI update at `now`.
    fn update(&mut self, now: Time) {
        let wait = |q: &StampedFifo| q.head_time().map_or(0.0, |t| to_secs(now.saturating_sub(t)));
        let qdelay = wait(&self.lq).max(wait(&self.cq));
        let c = &self.cfg;
        let delta = c.alpha * (qdelay - c.target) + c.beta * (qdelay - self.last_qdelay);
        self.last_qdelay = qdelay;
        let mut p = (self.prob + delta).clamp(0.0, 1.0);
        if !c.drop_overload {
            p = p.min(1.0 / c.k);
        }
        self.prob = p;
    }

    /// Linux `dequeue_packet`: the next packet by the WRR credit, whether
    /// it came from L (and the step applies to it), and the credit change
    /// if it is sent.
    fn pick(&mut self) -> Option<(PktId, u32, Time, Option<bool>, i64)> {
        let (l_len, c_len) = (self.lq.len(), self.cq.len());
        if l_len > 0 && (c_len == 0 || self.credit <= 0) {
            let (id, size, t) = self.lq.pop()?;
            let step = self.l_step.pop_front().unwrap_or(true);
            let change = if c_len > 0 { self.cfg.c_protection as i64 * size as i64 } else { 0 };
            Some((id, size, t, Some(step), change))
        } else if c_len > 0 {
            let (id, size, t) = self.cq.pop()?;
            let change = if l_len > 0 { -((100 - self.cfg.c_protection) as i64) * size as i64 } else { 0 };
            Some((id, size, t, None, change))
        } else {
            self.credit = self.credit_init();
            None
        }
    }

    fn roll(ctx: &mut LinkCtx, p: f64) -> bool {
        ctx.rng.gen::<f64>() < p
    }

    /// Linux `must_drop` for a packet leaving queue L (`l`) or C: true if
    /// it is to be dropped; a marked packet stays the one to send.
    fn must_drop(&mut self, ctx: &mut LinkCtx, pkts: &mut PacketPool, id: PktId, l: bool) -> bool {
        if self.lq.bytes() + self.cq.bytes() < 2 * self.cfg.mtu {
            return false;
        }
        let p = self.prob;
        let overload = p > 1.0 / self.cfg.k;
        if !l {
            // p_C = p'^2 as two draws
            if Self::roll(ctx, p) && Self::roll(ctx, p) {
                if overload || !mark_ce(ctx, pkts, id) {
                    self.stats.c_drops += 1;
                    return true;
                }
                self.stats.c_marks += 1;
            }
            return false;
        }
        if overload {
            if self.cfg.drop_overload && Self::roll(ctx, p) && Self::roll(ctx, p) {
                self.stats.l_drops += 1;
                return true;
            }
        } else if !Self::roll(ctx, self.cfg.k * p) {
            return false;
        }
        if mark_ce(ctx, pkts, id) {
            self.stats.l_marks += 1;
            false
        } else {
            // a Not-ECT packet in L (only with a mask that lets one in)
            self.stats.l_drops += 1;
            true
        }
    }

    /// Linux `do_step_aqm`: true if the L packet is to be dropped.
    fn step(&mut self, ctx: &mut LinkCtx, pkts: &mut PacketPool, id: PktId, enqueued: Time) -> bool {
        let above = match self.cfg.step {
            Step::Sojourn(th) => ctx.now.saturating_sub(enqueued) > th,
            Step::Packets(n) => self.lq.len() as u64 > n,
        };
        if !above {
            return false;
        }
        if mark_ce(ctx, pkts, id) {
            self.stats.step_marks += 1;
            false
        } else {
            self.stats.step_drops += 1;
            true
        }
    }
}

impl QueueDiscipline for DualPi2 {
    fn enqueue(&mut self, ctx: &mut LinkCtx, id: PktId, pkts: &mut PacketPool) -> bool {
        if !self.running {
            // the update grid k·tupdate from time 0
            self.running = true;
            let t = self.cfg.tupdate;
            ctx.arm_timer((ctx.now / t + 1) * t);
        }
        let p = pkts.get(id);
        let (size, ecn) = (p.size, p.ecn);
        let (n, bytes) = (self.lq.len() + self.cq.len(), self.lq.bytes() + self.cq.bytes());
        if !ctx.idle && !fits(self.cfg.limit, n, bytes, size) {
            self.stats.overflows += 1;
            return false;
        }
        if self.cfg.ecn_mask.is_l(ecn) {
            self.l_step.push_back(self.lq.len() as u64 >= self.cfg.min_qlen_step);
            self.lq.push(id, size, ctx.now);
            self.stats.l_in += 1;
        } else {
            self.cq.push(id, size, ctx.now);
            self.stats.c_in += 1;
        }
        true
    }

    fn dequeue(&mut self, ctx: &mut LinkCtx, pkts: &mut PacketPool) -> Option<PktId> {
        loop {
            let (id, _, enqueued, l_step, change) = self.pick()?;
            if self.must_drop(ctx, pkts, id, l_step.is_some()) {
                ctx.evict(id);
                continue;
            }
            if l_step == Some(true) && self.step(ctx, pkts, id, enqueued) {
                ctx.evict(id);
                continue;
            }
            self.credit += change;
            self.served_l = l_step.is_some();
            return Some(id);
        }
    }

    fn on_timer(&mut self, ctx: &mut LinkCtx, _pkts: &mut PacketPool) {
        self.update(ctx.now);
        ctx.arm_timer(ctx.now + self.cfg.tupdate);
    }

    fn len_pkts(&self) -> usize {
        self.lq.len() + self.cq.len()
    }

    fn len_bytes(&self) -> u64 {
        self.lq.bytes() + self.cq.bytes()
    }

    fn waiting(&self, _pkts: &PacketPool) -> Vec<PktId> {
        let mut v = self.lq.ids();
        v.extend(self.cq.ids());
        v
    }

    /// The L and the C queue (`links[].qdelay_classes`).
    fn delay_classes(&self) -> &'static [&'static str] {
        &["l", "c"]
    }

    /// The queue the last dequeued packet left, not its codepoint now: a
    /// CE mark at dequeue makes a C packet look like an L one.
    fn dequeue_class(&self, _id: PktId, _pkts: &PacketPool) -> usize {
        if self.served_l {
            0
        } else {
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::ctx::test_ctx;
    use crate::net::packet::Packet;

    const MS: Time = 1_000_000_000;
    const US: Time = 1_000_000;

    fn spec(v: serde_json::Value) -> QueueSpec {
        serde_json::from_value(v).unwrap()
    }

    fn pkt(pool: &mut PacketPool, ecn: Ecn, size: u32) -> PktId {
        pool.alloc(Packet { size, ecn, ..Default::default() })
    }

    /// Free what the discipline dropped at dequeue (the link's job).
    fn free_evicted(ctx: &mut LinkCtx, pool: &mut PacketPool) -> usize {
        let n = ctx.evicted.len();
        for id in ctx.evicted.drain(..) {
            pool.free(id);
        }
        n
    }

    #[test]
    fn ect1_and_ce_go_to_the_l_queue_ect0_and_not_ect_to_the_c_queue() {
        for (mask, l) in [
            ("l4s_ect", [false, false, true, true]),
            ("cla_ect", [false, true, false, true]),
            ("any_ect", [false, true, true, true]),
        ] {
            test_ctx(false, |ctx, pool| {
                let mut q = DualPi2::from_spec(&spec(json!({"kind": "dualpi2", "ecn_mask": mask})), "q").unwrap();
                for (ecn, to_l) in [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce].into_iter().zip(l) {
                    let before = q.lens();
                    let id = pkt(pool, ecn, 1000);
                    assert!(q.enqueue(ctx, id, pool));
                    let (dl, dc) = (q.lens().0 - before.0, q.lens().1 - before.1);
                    assert_eq!((dl, dc), if to_l { (1, 0) } else { (0, 1) }, "{mask}: {ecn:?}");
                }
            });
        }
    }

    /// `n` packets of codepoint `ecn` through a queue whose p' is held at
    /// `prob`, each leaving as it arrives (no sojourn, so no step) with
    /// 1500-byte packets behind it (refilled to 20 before each dequeue, so
    /// that a run of drops never takes the backlog under the 2-MTU floor):
    /// the fractions of them dropped and marked at dequeue.
    fn fractions(cfg: DualPi2Config, prob: f64, ecn: Ecn, n: u64) -> (f64, f64) {
        let mut out = (0.0, 0.0);
        test_ctx(false, |ctx, pool| {
            let mut q = DualPi2::new(cfg);
            q.prob = prob;
            let (mut sent, mut dropped, mut marked) = (0u64, 0u64, 0u64);
            while sent + dropped < n {
                while q.len_pkts() < 20 {
                    let id = pkt(pool, ecn, 1500);
                    assert!(q.enqueue(ctx, id, pool));
                }
                if let Some(id) = q.dequeue(ctx, pool) {
                    sent += 1;
                    marked += (pool.get(id).ecn == Ecn::Ce && ecn != Ecn::Ce) as u64;
                    pool.free(id);
                }
                dropped += free_evicted(ctx, pool) as u64;
            }
            let total = (sent + dropped) as f64;
            out = (dropped as f64 / total, marked as f64 / total);
        });
        out
    }

    /// |x - p| within 5 standard deviations of a binomial fraction of n.
    fn near(x: f64, p: f64, n: u64) -> bool {
        (x - p).abs() <= 5.0 * (p * (1.0 - p) / n as f64).sqrt() + 1e-12
    }

    #[test]
    fn the_coupling_gives_the_c_queue_p_squared_and_the_l_queue_k_times_p() {
        let n = 40_000;
        let d = DualPi2Config::default();
        // RFC 9332 §2.1: p_C = p'^2, p_CL = k p'
        for (k, prob) in [(2.0, 0.2), (2.0, 0.05), (4.0, 0.2), (1.0, 0.3)] {
            let cfg = DualPi2Config { k, ..d.clone() };
            let (p_c, p_cl) = (prob * prob, k * prob);
            let (drop, mark) = fractions(cfg.clone(), prob, Ecn::Ect0, n);
            assert!(drop == 0.0 && near(mark, p_c, n), "k {k} p' {prob}: ECT(0) marks {mark} vs {p_c}");
            let (drop, mark) = fractions(cfg.clone(), prob, Ecn::NotEct, n);
            assert!(mark == 0.0 && near(drop, p_c, n), "k {k} p' {prob}: Not-ECT drops {drop} vs {p_c}");
            let (drop, mark) = fractions(cfg.clone(), prob, Ecn::Ect1, n);
            assert!(drop == 0.0 && near(mark, p_cl, n), "k {k} p' {prob}: ECT(1) marks {mark} vs {p_cl}");
            let mut q = DualPi2::new(cfg);
            q.prob = prob;
            assert!((q.p_c() - p_c).abs() < 1e-15 && (q.p_cl() - p_cl).abs() < 1e-15);
        }
        // CE arrivals stay CE and go to L, where they count no new mark
        let (drop, _) = fractions(d, 0.2, Ecn::Ce, 1000);
        assert_eq!(drop, 0.0);
    }

    #[test]
    fn nothing_is_marked_or_dropped_below_two_mtus_of_backlog() {
        test_ctx(false, |ctx, pool| {
            let mut q = DualPi2::new(DualPi2Config::default());
            q.prob = 0.49; // p_CL = 0.98, p_C = 0.24
            for _ in 0..500 {
                // one packet behind the one leaving: 1500 bytes < 2 MTU
                for ecn in [Ecn::Ect1, Ecn::Ect1, Ecn::NotEct, Ecn::NotEct] {
                    let id = pkt(pool, ecn, 1500);
                    assert!(q.enqueue(ctx, id, pool));
                    if q.len_pkts() == 2 {
                        let id = q.dequeue(ctx, pool).unwrap();
                        assert_ne!(pool.get(id).ecn, Ecn::Ce);
                        pool.free(id);
                    }
                }
            }
            assert_eq!(free_evicted(ctx, pool), 0);
            let s = q.stats();
            assert_eq!((s.l_marks, s.c_drops, s.c_marks), (0, 0, 0));
        });
    }

    /// Set both queues' heads to packets queued at `l` and `c` (None:
    /// empty).
    fn heads(q: &mut DualPi2, pool: &mut PacketPool, l: Option<Time>, c: Option<Time>) {
        q.lq = StampedFifo::default();
        q.cq = StampedFifo::default();
        q.l_step.clear();
        if let Some(t) = l {
            q.lq.push(pkt(pool, Ecn::Ect1, 1500), 1500, t);
            q.l_step.push_back(true);
        }
        if let Some(t) = c {
            q.cq.push(pkt(pool, Ecn::NotEct, 1500), 1500, t);
        }
    }

    #[test]
    fn the_pi_update_integrates_the_delay_error() {
        test_ctx(false, |_ctx, pool| {
            let cfg = DualPi2Config::default();
            let (a, b, target, tu) = (cfg.alpha, cfg.beta, cfg.target, cfg.tupdate);
            assert_eq!((a, b, target, tu), (0.16015625, 3.19921875, 0.015, 16 * MS));
            // One update, from rest, with the C head 16 ms old: α·1 ms + β·16 ms
            let mut q = DualPi2::new(cfg.clone());
            heads(&mut q, pool, None, Some(0));
            q.update(16 * MS);
            assert!((q.prob - (a * 0.001 + b * 0.016)).abs() < 1e-15, "p' {}", q.prob);
            // A standing delay D at every update: the proportional terms
            // telescope, p'_N = N·α·(D − target) + β·D
            for (d, l) in [(0.030, false), (0.025, true)] {
                let mut q = DualPi2::new(cfg.clone());
                for n in 1..=20u64 {
                    let now = 1000 * MS + n * tu;
                    let head = Some(now - from_secs(d));
                    // the other queue's head waits 2 ms: the larger wait counts
                    let other = Some(now - 2 * MS);
                    if l {
                        heads(&mut q, pool, head, other);
                    } else {
                        heads(&mut q, pool, other, head);
                    }
                    q.update(now);
                    let want = n as f64 * a * (d - target) + b * d;
                    assert!((q.prob - want).abs() < 1e-12, "D {d} update {n}: p' {} vs {want}", q.prob);
                }
                // then the queues empty: −α·target − β·D once, −α·target after,
                // down to 0 and no lower
                let mut want = q.prob;
                for n in 21..=200u64 {
                    heads(&mut q, pool, None, None);
                    q.update(1000 * MS + n * tu);
                    want -= a * target + if n == 21 { b * d } else { 0.0 };
                    assert!((q.prob - want.max(0.0)).abs() < 1e-12, "update {n}: {} vs {want}", q.prob);
                }
                assert_eq!(q.prob, 0.0);
            }
            // A huge delay: p' stops at 1, or at 1/k without drop_overload
            for (overload, cap) in [(true, 1.0), (false, 0.5)] {
                let mut q = DualPi2::new(DualPi2Config { drop_overload: overload, ..cfg.clone() });
                for n in 1..=100u64 {
                    heads(&mut q, pool, None, Some(0));
                    q.update(n * tu + 1000 * MS);
                }
                assert_eq!(q.prob, cap);
            }
        });
    }

    #[test]
    fn the_timer_runs_on_the_tupdate_grid_from_time_zero() {
        test_ctx(false, |ctx, pool| {
            let mut q = DualPi2::new(DualPi2Config::default());
            ctx.now = 5 * MS;
            let id = pkt(pool, Ecn::NotEct, 1500);
            assert!(q.enqueue(ctx, id, pool));
            assert_eq!(ctx.timer.deadline(), Some(16 * MS));
            ctx.now = 16 * MS;
            q.on_timer(ctx, pool);
            // the head had waited 11 ms: α·(11 − 15) ms + β·11 ms
            let c = q.config();
            assert!((q.prob - (c.alpha * -0.004 + c.beta * 0.011)).abs() < 1e-15);
            assert_eq!(ctx.timer.deadline(), Some(32 * MS));
        });
    }

    /// Whether an ECT(1) packet that waited `sojourn` alone in the L queue
    /// (p' = 0) leaves CE-marked.
    fn step_marks(cfg: DualPi2Config, sojourn: Time) -> bool {
        let mut marked = false;
        test_ctx(false, |ctx, pool| {
            let mut q = DualPi2::new(cfg);
            ctx.now = 7 * MS;
            let id = pkt(pool, Ecn::Ect1, 1500);
            assert!(q.enqueue(ctx, id, pool));
            ctx.now += sojourn;
            let out = q.dequeue(ctx, pool).unwrap();
            assert_eq!(out, id);
            marked = pool.get(out).ecn == Ecn::Ce;
        });
        marked
    }

    /// Whether the next packet leaves CE-marked.
    fn leaves_ce(q: &mut DualPi2, ctx: &mut LinkCtx, pool: &mut PacketPool) -> bool {
        let id = q.dequeue(ctx, pool).expect("a packet");
        pool.get(id).ecn == Ecn::Ce
    }

    #[test]
    fn the_l_queue_marks_every_packet_whose_sojourn_exceeds_the_step() {
        let d = DualPi2Config::default();
        assert_eq!(d.step, Step::Sojourn(MS));
        // alone in the queue (below the 2-MTU floor): the step still acts
        for (sojourn, marked) in [(0, false), (999 * US, false), (MS, false), (MS + 1, true), (1001 * US, true)] {
            assert_eq!(step_marks(d.clone(), sojourn), marked, "sojourn {sojourn} ps");
        }
        let half = DualPi2Config { step: Step::Sojourn(500 * US), ..d.clone() };
        assert!(step_marks(half.clone(), 501 * US) && !step_marks(half, 500 * US));
        // not in the C queue: an ECT(0) packet may wait 10 ms unmarked
        test_ctx(false, |ctx, pool| {
            let mut q = DualPi2::new(d.clone());
            let id = pkt(pool, Ecn::Ect0, 1500);
            assert!(q.enqueue(ctx, id, pool));
            ctx.now = 10 * MS;
            let id = q.dequeue(ctx, pool).unwrap();
            assert_eq!(pool.get(id).ecn, Ecn::Ect0);
        });
        // min_qlen_step: only packets that found that many L packets queued
        test_ctx(false, |ctx, pool| {
            let mut q = DualPi2::new(DualPi2Config { min_qlen_step: 2, ..d.clone() });
            let ids: Vec<PktId> = (0..4).map(|_| pkt(pool, Ecn::Ect1, 100)).collect();
            for &id in &ids {
                assert!(q.enqueue(ctx, id, pool));
            }
            ctx.now = 5 * MS;
            let marks: Vec<bool> = (0..4).map(|_| leaves_ce(&mut q, ctx, pool)).collect();
            assert_eq!(marks, [false, false, true, true]);
            assert_eq!(q.stats().step_marks, 2);
        });
        // in packets: marked while more than 2 L packets remain behind it
        test_ctx(false, |ctx, pool| {
            let mut q = DualPi2::new(DualPi2Config { step: Step::Packets(2), ..d.clone() });
            for _ in 0..5 {
                let id = pkt(pool, Ecn::Ect1, 100);
                assert!(q.enqueue(ctx, id, pool));
            }
            let marks: Vec<bool> = (0..5).map(|_| leaves_ce(&mut q, ctx, pool)).collect();
            assert_eq!(marks, [true, true, false, false, false]);
        });
    }

    /// Dequeue `n` packets with both queues kept backlogged (L packets of
    /// `l_size` bytes, C of `c_size`, p' = 0): the C queue's share of the
    /// bytes, and the order (true: C) of the first 20.
    fn c_share(wc: u64, l_size: u32, c_size: u32, n: usize) -> (f64, Vec<bool>) {
        let mut out = (0.0, Vec::new());
        test_ctx(false, |ctx, pool| {
            let mut q = DualPi2::new(DualPi2Config { c_protection: wc, ..Default::default() });
            let (mut l_bytes, mut c_bytes, mut order) = (0u64, 0u64, Vec::new());
            for _ in 0..n {
                while q.lens().0 < 3 {
                    let id = pkt(pool, Ecn::Ect1, l_size);
                    assert!(q.enqueue(ctx, id, pool));
                }
                while q.lens().1 < 3 {
                    let id = pkt(pool, Ecn::NotEct, c_size);
                    assert!(q.enqueue(ctx, id, pool));
                }
                let id = q.dequeue(ctx, pool).unwrap();
                let p = pool.get(id);
                let is_c = p.ecn == Ecn::NotEct;
                if is_c {
                    c_bytes += p.size as u64;
                } else {
                    l_bytes += p.size as u64;
                }
                if order.len() < 20 {
                    order.push(is_c);
                }
                pool.free(id);
            }
            out = (c_bytes as f64 / (c_bytes + l_bytes) as f64, order);
        });
        out
    }

    #[test]
    fn the_wrr_gives_the_c_queue_its_weight_under_two_backlogs() {
        // equal sizes: 9 L then 1 C, from the credit's start MTU·(10 − 90)
        let (share, order) = c_share(10, 1500, 1500, 10_000);
        assert_eq!(share, 0.1);
        let c_at: Vec<usize> = order.iter().enumerate().filter(|(_, &c)| c).map(|(i, _)| i).collect();
        assert_eq!(c_at, [9, 19], "L goes first");
        // in bytes, whatever the sizes
        for (wc, l, c) in [(10, 1500, 500), (10, 300, 1500), (50, 1000, 1500), (25, 1500, 1500)] {
            let (share, _) = c_share(wc, l, c, 20_000);
            assert!((share - wc as f64 / 100.0).abs() < 0.005, "wc {wc}%, L {l} B, C {c} B: C share {share}");
        }
        // weight 0: strict priority for L; 100: for C
        assert_eq!(c_share(0, 1500, 1500, 1000).0, 0.0);
        assert_eq!(c_share(100, 1500, 1500, 1000).0, 1.0);
    }

    #[test]
    fn an_empty_queue_never_holds_the_other_up() {
        test_ctx(false, |ctx, pool| {
            let mut q = DualPi2::new(DualPi2Config::default());
            let init = q.credit;
            for ecn in [Ecn::NotEct, Ecn::Ect1] {
                for _ in 0..50 {
                    let id = pkt(pool, ecn, 1500);
                    assert!(q.enqueue(ctx, id, pool));
                }
                for _ in 0..50 {
                    let id = q.dequeue(ctx, pool).expect("served");
                    assert_eq!(pool.get(id).ecn, ecn);
                    pool.free(id);
                }
                // alone, a queue leaves the credit where it was
                assert_eq!(q.credit, init);
            }
            assert!(q.dequeue(ctx, pool).is_none());
        });
    }

    #[test]
    fn overload_drops_l_packets_at_p_squared_or_marks_them_all() {
        let n = 40_000;
        let d = DualPi2Config::default();
        // k·p' = 1.2 > 1: L packets see the classic p'^2 = 0.36 drop and
        // every survivor is marked; ECT(0) C packets are dropped, not marked
        let (drop, mark) = fractions(d.clone(), 0.6, Ecn::Ect1, n);
        assert!(near(drop, 0.36, n) && (mark + drop - 1.0).abs() < 1e-12, "L: drop {drop}, mark {mark}");
        let (drop, mark) = fractions(d.clone(), 0.6, Ecn::Ect0, n);
        assert!(near(drop, 0.36, n) && mark == 0.0, "C: drop {drop}, mark {mark}");
        // just below overload (k·p' = 0.98) ECT(0) is still marked
        let (drop, mark) = fractions(d.clone(), 0.49, Ecn::Ect0, n);
        assert!(drop == 0.0 && near(mark, 0.2401, n), "C: drop {drop}, mark {mark}");
        // without drop_overload p' stops at 1/k: every L packet is marked,
        // none dropped early; C: p_C = 1/4
        let no = DualPi2Config { drop_overload: false, ..d.clone() };
        let (drop, mark) = fractions(no.clone(), 0.5, Ecn::Ect1, n);
        assert_eq!((drop, mark), (0.0, 1.0));
        let (drop, mark) = fractions(no, 0.5, Ecn::Ect0, n);
        assert!(drop == 0.0 && near(mark, 0.25, n), "C: drop {drop}, mark {mark}");
        // the buffer counts both queues: the 11th and 12th arrivals of a
        // 10-packet buffer are refused, whichever queue they are for
        test_ctx(false, |ctx, pool| {
            let mut q = DualPi2::new(DualPi2Config { limit: Limit::Packets(10), ..d });
            for i in 0..12 {
                let id = pkt(pool, if i % 2 == 0 { Ecn::Ect1 } else { Ecn::NotEct }, 1500);
                assert_eq!(q.enqueue(ctx, id, pool), i < 10, "arrival {i}");
            }
            assert_eq!((q.lens(), q.stats().overflows), ((5, 5), 2));
        });
    }

    /// `delay_classes` names the L and the C queue, and `dequeue_class`
    /// the queue each departing packet left, under the WRR's interleaving
    /// and though the coupled marks turn C packets CE (which would classify
    /// them as L).
    #[test]
    fn each_dequeued_packet_reports_the_queue_it_left() {
        test_ctx(false, |ctx, pool| {
            let mut q = DualPi2::new(DualPi2Config::default());
            assert_eq!(QueueDiscipline::delay_classes(&q), ["l", "c"]);
            q.prob = 0.45; // p_C about 0.2: many C packets leave CE-marked
            let mut from_l = std::collections::HashMap::new();
            let (mut seen, mut c_marked) = ([0u64; 2], 0u64);
            for i in 0..4000u64 {
                while q.len_pkts() < 20 {
                    let ecn = [Ecn::Ect1, Ecn::Ect0, Ecn::NotEct][(i % 3) as usize];
                    let id = pkt(pool, ecn, 1500);
                    from_l.insert(id, ecn == Ecn::Ect1);
                    assert!(q.enqueue(ctx, id, pool));
                }
                let Some(id) = q.dequeue(ctx, pool) else { continue };
                let class = QueueDiscipline::dequeue_class(&q, id, pool);
                let l = from_l.remove(&id).unwrap();
                assert_eq!(class, if l { 0 } else { 1 }, "packet {id}");
                seen[class] += 1;
                c_marked += (!l && pool.get(id).ecn == Ecn::Ce) as u64;
                pool.free(id);
                for e in ctx.evicted.drain(..) {
                    from_l.remove(&e);
                    pool.free(e);
                }
            }
            assert!(seen[0] > 1000 && seen[1] > 300 && c_marked > 30, "{seen:?}, {c_marked} C marks");
        });
    }

    #[test]
    fn parameters_are_validated_with_named_errors() {
        let err = |v| DualPi2::from_spec(&spec(v), "q").err().map(|e| e.to_string()).unwrap_or_default();
        let q = DualPi2::from_spec(&spec(json!({"kind": "dualpi2"})), "q").unwrap();
        assert_eq!(q.cfg, DualPi2Config::default());
        assert_eq!(q.credit, 1500 * -80);
        let q = DualPi2::from_spec(
            &spec(json!({"kind": "dualpi2", "limit_bytes": 100000, "target_s": 0.02, "tupdate_s": 0.015,
                         "alpha": 0.15, "beta": 3.0, "step_thresh_pkts": 4, "min_qlen_step": 1,
                         "coupling_factor": 1.5, "c_protection": 5, "drop_overload": false,
                         "ecn_mask": "any_ect", "mtu_bytes": 9000})),
            "q",
        )
        .unwrap();
        let c = &q.cfg;
        assert_eq!((c.limit, c.target, c.tupdate, c.alpha, c.beta), (Limit::Bytes(100000), 0.02, 15 * MS, 0.15, 3.0));
        assert_eq!((c.step, c.min_qlen_step, c.k, c.c_protection), (Step::Packets(4), 1, 1.5, 5));
        assert!(!c.drop_overload && c.ecn_mask == EcnMask::AnyEct && c.mtu == 9000);
        let q = DualPi2::from_spec(&spec(json!({"kind": "dualpi2", "step_thresh_s": 0.002})), "q").unwrap();
        assert_eq!(q.cfg.step, Step::Sojourn(2 * MS));
        let e = err(json!({"kind": "dualpi2", "step_thresh_s": 0.001, "step_thresh_pkts": 3}));
        assert!(e.contains("step_thresh_s and step_thresh_pkts") && e.contains("at most one"), "{e}");
        let e = err(json!({"kind": "dualpi2", "step_thresh_s": 0}));
        assert!(e.contains("q.step_thresh_s") && e.contains("got 0"), "{e}");
        let e = err(json!({"kind": "dualpi2", "coupling_factor": 0.5}));
        assert!(e.contains("q.coupling_factor") && e.contains("1 to 255"), "{e}");
        let e = err(json!({"kind": "dualpi2", "c_protection": 101}));
        assert!(e.contains("q.c_protection") && e.contains("from 0 to 100"), "{e}");
        let e = err(json!({"kind": "dualpi2", "alpha": -0.1}));
        assert!(e.contains("q.alpha") && e.contains("from 0 to 100"), "{e}");
        let e = err(json!({"kind": "dualpi2", "ecn_mask": "ect1"}));
        assert!(e.contains("q.ecn_mask") && e.contains("l4s_ect, cla_ect, any_ect"), "{e}");
        let e = err(json!({"kind": "dualpi2", "drop_overload": 1}));
        assert!(e.contains("q.drop_overload") && e.contains("true or false"), "{e}");
        let e = err(json!({"kind": "dualpi2", "limit_pkts": 0}));
        assert!(e.contains("q.limit_pkts"), "{e}");
        let e = err(json!({"kind": "dualpi2", "k": 2}));
        assert!(e.contains("q.k") && e.contains("unknown field") && e.contains("coupling_factor"), "{e}");
    }
}
