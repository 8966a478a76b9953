//! XCP router (Katabi, Handley, Rohrs, SIGCOMM 2002, §3.3-3.5), computed as
//! ns-2.35's `Queue/DropTail/XCPQ` does (xcp/xcpq.cc, the algorithm lines
//! L1-L36 of draft-falk-xcp), in the header's rate units (bytes/s):
//!
//! - **Arrival** (L1-L6): every packet adds its size to the input traffic
//!   `y` (ACKs only with `count_acks`); an XCP data packet with H_rtt > 0
//!   adds `x = H_rtt / (H_cwnd / size)` (seconds per packet, ns-2's `x_`)
//!   to Σx and `min(H_rtt, 1 s) · x` to Σ(rtt·x).
//! - **Control interval** `Te` (L7-L19): `d = Σ(rtt·x)/Σx` (50 ms with no
//!   samples), the flows' unweighted mean RTT; input rate `y/Te`;
//!   efficiency `φ = α(C − y/Te) − βQ/d` (the paper's `α d S − β Q` divided
//!   by d); shuffling `h = max(0, γ y/Te − |φ|)`; budgets
//!   `pos = max(φ, 0) + h`, `neg = max(−φ, 0) + h`; scale factors from this
//!   interval's sums, applied in the next: `ξp = pos / Σx`,
//!   `ξn = neg / y`; then `Te = max(d, 1 ms)`.
//! - **Queue interval** `Tq` (L32-L36): the persistent queue Q is the
//!   minimum queue (bytes) seen at departures over the last
//!   `Tq = max(2 ms, (d − q/C)/2)`.
//! - **Departure** (L20-L31): `p = min(res_pos, ξp x)`, `n = min(res_neg,
//!   ξn size)`, `fb = p − n`; the header keeps `min(H_feedback, fb)`, so
//!   a router only ever lowers it; when an upstream value is already
//!   lower, the negative part grows by the difference (capped) and the
//!   positive part charged is `H_feedback + n`; the residues shrink and a
//!   scale factor is zeroed when its residue is spent.
//!
//! ns-2 arms three timers at Normal(T, 0.2T) (floor 4 ms) to desynchronise
//! routers; this stage multiplexes Te and Tq on its one timer, draws the
//! same jitter from its own stream, and starts them at the first packet
//! the link sees (ns-2: at time 0). The statistics timer `Tr` is not
//! needed (ccsim samples utilisation itself). Parameter sets: "original"
//! (the paper's α 0.4, β 0.226, γ 0.1, C = link rate) and "conservative"
//! (paced-XCP paper §3: α 0.2, β = α²√2 ≈ 0.056, γ 0.05 per the task's
//! set, C = 90 % of the link rate).
use super::{Stage, StageKind, Verdict};
use crate::net::ctx::LinkCtx;
use crate::net::packet::{CongestionHeader, Packet};
use crate::scenario::params::ParamDoc;
use crate::scenario::params::Params;
use crate::scenario::ConfigError;
use crate::sim::math;
use crate::sim::time::from_secs;
use crate::sim::Time;
use rand::Rng as _;

/// The stage's name (`Stage::name`), by which a flow's path is searched
/// for an XCP router.
pub const NAME: &str = "xcp";
use serde_json::{Map, Value};
use std::any::Any;

/// ns-2 xcpq.h `INITIAL_Te_VALUE`: Te, Tq and d before any sample.
pub const INITIAL_INTERVAL_S: f64 = 0.05;
/// ns-2 `XCP_MIN_INTERVAL`.
pub const MIN_INTERVAL_S: f64 = 0.001;
/// ns-2 `XCP_MAX_INTERVAL`: larger H_rtt values count as 1 s in Σ(rtt·x).
pub const MAX_INTERVAL_S: f64 = 1.0;

/// A router's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XcpParams {
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
    /// Capacity given to the controller as a fraction of the link rate.
    pub capacity: f64,
    /// Count ACK bytes in the input traffic y (ns-2.35's XCP queue does;
    /// the paced-XCP paper added it to ns-2.28).
    pub count_acks: bool,
}

impl XcpParams {
    /// Katabi et al. 2002 §3.5 and ns-2 xcpq.cc.
    pub const ORIGINAL: XcpParams = XcpParams { alpha: 0.4, beta: 0.226, gamma: 0.1, capacity: 1.0, count_acks: true };
    /// Paced-XCP paper §3 ("conservative parameter set"): α 0.2,
    /// β = α²√2 = 0.056, capacity 90 % of the link rate; γ 0.05.
    pub const CONSERVATIVE: XcpParams =
        XcpParams { alpha: 0.2, beta: 0.056, gamma: 0.05, capacity: 0.9, count_acks: true };

    /// Read an `xcp` table (`params` preset plus overrides); `path` names it.
    pub fn from_map(m: &Map<String, Value>, path: &str) -> Result<XcpParams, ConfigError> {
        let mut p = Params::new(m, path);
        let set = p.choice("params", "original", &["original", "conservative"])?;
        let d = if set == "conservative" { Self::CONSERVATIVE } else { Self::ORIGINAL };
        let alpha = p.f64_in("alpha", d.alpha, 0.0, 10.0)?;
        let beta = p.f64_in("beta", d.beta, 0.0, 10.0)?;
        let gamma = p.f64_in("gamma", d.gamma, 0.0, 1.0)?;
        let capacity = p.f64_in("capacity", d.capacity, 1e-6, 10.0)?;
        let count_acks = p.bool("count_acks", d.count_acks)?;
        p.finish()?;
        Ok(XcpParams { alpha, beta, gamma, capacity, count_acks })
    }

    /// The `xcp` field of a queue table: `true`/`false` or a parameter table.
    pub fn from_value(v: &Value, path: &str) -> Result<Option<XcpParams>, ConfigError> {
        match v {
            Value::Bool(false) | Value::Null => Ok(None),
            Value::Bool(true) => Ok(Some(Self::ORIGINAL)),
            Value::Object(m) => Self::from_map(m, path).map(Some),
            other => Err(ConfigError::new(
                path,
                format!("{other} is not allowed; expected true, false or a table of XCP parameters"),
            )),
        }
    }
}

pub fn param_docs() -> Vec<ParamDoc> {
    let o = XcpParams::ORIGINAL;
    vec![
        ParamDoc {
            name: "params",
            default: "original".into(),
            doc: "preset: original (alpha 0.4, beta 0.226, gamma 0.1, capacity 1.0) or conservative \
                  (alpha 0.2, beta 0.056, gamma 0.05, capacity 0.9)",
        },
        ParamDoc { name: "alpha", default: o.alpha.into(), doc: "efficiency controller gain on spare bandwidth" },
        ParamDoc { name: "beta", default: o.beta.into(), doc: "efficiency controller gain on the persistent queue" },
        ParamDoc { name: "gamma", default: o.gamma.into(), doc: "shuffled fraction of the input traffic" },
        ParamDoc { name: "capacity", default: o.capacity.into(), doc: "capacity C as a fraction of the link rate" },
        ParamDoc {
            name: "count_acks",
            default: o.count_acks.into(),
            doc: "count ACK bytes in the input traffic (ns-2.35; the paced-XCP paper's modification)",
        },
    ]
}

pub const KIND: StageKind = StageKind {
    name: "xcp",
    doc: "XCP router feedback (Katabi et al. 2002; ns-2 xcpq.cc); set with xcp = true or a table in a queue",
    params: param_docs,
    build: |m, path| Ok(Box::new(XcpRouter::new(XcpParams::from_map(m, path)?))),
};

/// Per-interval accounting, for tests and results.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct XcpStats {
    pub intervals: u64,
    /// Sum over intervals of the budgets max(φ,0)+h and max(−φ,0)+h (bytes/s).
    pub budget_pos: f64,
    pub budget_neg: f64,
    /// Sum over intervals of the positive and negative parts handed out.
    pub given_pos: f64,
    pub given_neg: f64,
    /// φ and h of the interval now in progress; the last completed
    /// interval's budgets and what it gave.
    pub last_phi: f64,
    pub last_h: f64,
    pub last_budget: (f64, f64),
    pub last_given: (f64, f64),
    /// Packets whose header this router lowered.
    pub lowered: u64,
}

pub struct XcpRouter {
    pub p: XcpParams,
    started: bool,
    next_te: Time,
    next_tq: Time,
    te: f64,
    tq: f64,
    avg_rtt: f64,
    input_bytes: f64,
    sum_x: f64,
    sum_rtt_x: f64,
    running_min_q: f64,
    persistent_q: f64,
    cp: f64,
    cn: f64,
    res_pos: f64,
    res_neg: f64,
    given: (f64, f64),
    /// The budgets of the interval in progress.
    budget: (f64, f64),
    pub stats: XcpStats,
}

impl XcpRouter {
    pub fn new(p: XcpParams) -> Self {
        XcpRouter {
            p,
            started: false,
            next_te: 0,
            next_tq: 0,
            te: INITIAL_INTERVAL_S,
            tq: INITIAL_INTERVAL_S,
            avg_rtt: INITIAL_INTERVAL_S,
            input_bytes: 0.0,
            sum_x: 0.0,
            sum_rtt_x: 0.0,
            running_min_q: 0.0,
            persistent_q: 0.0,
            cp: 0.0,
            cn: 0.0,
            res_pos: 0.0,
            res_neg: 0.0,
            given: (0.0, 0.0),
            budget: (0.0, 0.0),
            stats: XcpStats::default(),
        }
    }

    /// The control interval d (mean RTT of the traffic) now in force.
    pub fn control_interval_s(&self) -> f64 {
        self.te
    }

    /// The persistent queue Q (bytes) of the last queue interval.
    pub fn persistent_queue_bytes(&self) -> f64 {
        self.persistent_q
    }

    /// Capacity in bytes/s.
    fn capacity(&self, ctx: &LinkCtx) -> f64 {
        self.p.capacity * ctx.rate_bps / 8.0
    }

    /// Normal(t, 0.2 t) with a 4 ms floor (ns-2 `setupTimers`).
    fn jitter(ctx: &mut LinkCtx, t: f64) -> f64 {
        let (u1, u2): (f64, f64) = (ctx.rng.gen::<f64>().max(1e-300), ctx.rng.gen());
        let z = (-2.0 * math::ln(u1)).sqrt() * math::cos(2.0 * std::f64::consts::PI * u2);
        (t + 0.2 * t * z).max(0.004)
    }

    fn arm(&self, ctx: &mut LinkCtx) {
        ctx.arm_timer(self.next_te.min(self.next_tq));
    }

    /// L7-L19.
    fn control_timeout(&mut self, ctx: &mut LinkCtx) {
        let c = self.capacity(ctx);
        let input_bw = self.input_bytes / self.te;
        self.avg_rtt = if self.sum_x != 0.0 { self.sum_rtt_x / self.sum_x } else { INITIAL_INTERVAL_S };
        let (mut phi, mut h) = (0.0, 0.0);
        if self.input_bytes > 0.0 {
            phi = self.p.alpha * (c - input_bw) - self.p.beta * self.persistent_q / self.avg_rtt;
            h = (self.p.gamma * input_bw - phi.abs()).max(0.0);
        }
        // Close the books of the interval that ends.
        let s = &mut self.stats;
        s.given_pos += self.given.0;
        s.given_neg += self.given.1;
        s.last_given = self.given;
        s.last_budget = self.budget;
        self.given = (0.0, 0.0);
        self.res_pos = phi.max(0.0) + h;
        self.res_neg = (-phi).max(0.0) + h;
        s.intervals += 1;
        s.budget_pos += self.res_pos;
        s.budget_neg += self.res_neg;
        s.last_phi = phi;
        s.last_h = h;
        self.budget = (self.res_pos, self.res_neg);
        let sum_x = if self.sum_x == 0.0 { 1.0 } else { self.sum_x };
        if self.input_bytes > 0.0 {
            self.cp = self.res_pos / sum_x;
            self.cn = self.res_neg / self.input_bytes;
        } else {
            self.cp = 0.0;
            self.cn = 0.0;
        }
        self.input_bytes = 0.0;
        self.sum_x = 0.0;
        self.sum_rtt_x = 0.0;
        self.te = self.avg_rtt.max(MIN_INTERVAL_S);
        self.next_te = ctx.now.saturating_add(from_secs(self.te));
    }

    /// L33-L36.
    fn queue_timeout(&mut self, ctx: &mut LinkCtx) {
        let q = ctx.queue.bytes as f64;
        self.persistent_q = self.running_min_q;
        self.running_min_q = q;
        self.tq = ((self.avg_rtt - q / self.capacity(ctx)) / 2.0).max(0.002);
        self.next_tq = ctx.now.saturating_add(from_secs(self.tq));
    }
}

impl Stage for XcpRouter {
    fn name(&self) -> &'static str {
        NAME
    }

    /// L1-L6.
    fn on_enqueue(&mut self, ctx: &mut LinkCtx, pkt: &mut Packet) -> Verdict {
        if !self.started {
            self.started = true;
            self.running_min_q = ctx.queue.bytes as f64;
            self.next_te = ctx.now.saturating_add(from_secs(Self::jitter(ctx, self.te)));
            self.next_tq = ctx.now.saturating_add(from_secs(Self::jitter(ctx, self.tq)));
            self.arm(ctx);
        }
        let size = pkt.size as f64;
        if pkt.is_ack() {
            if self.p.count_acks {
                self.input_bytes += size;
            }
            return Verdict::Pass;
        }
        self.input_bytes += size;
        if let Some(CongestionHeader::Xcp(h)) = &pkt.cong {
            let (rtt, cwnd) = (h.rtt_s as f64, h.cwnd_bytes as f64);
            if rtt > 0.0 && cwnd > 0.0 {
                let x = rtt * size / cwnd;
                self.sum_x += x;
                self.sum_rtt_x += rtt.min(MAX_INTERVAL_S) * x;
            }
        }
        Verdict::Pass
    }

    /// L20-L32.
    fn on_dequeue(&mut self, ctx: &mut LinkCtx, pkt: &mut Packet) {
        let size = pkt.size as f64;
        // ns-2 reads the queue before the departing packet leaves it.
        let q = ctx.queue.bytes as f64 + size;
        if q < self.running_min_q {
            self.running_min_q = q;
        }
        if pkt.is_ack() {
            return;
        }
        let Some(CongestionHeader::Xcp(h)) = &mut pkt.cong else { return };
        let (rtt, cwnd) = (h.rtt_s as f64, h.cwnd_bytes as f64);
        if rtt <= 0.0 || cwnd <= 0.0 {
            return;
        }
        let x = rtt * size / cwnd;
        let mut pos = self.res_pos.min(self.cp * x);
        let mut neg = self.res_neg.min(self.cn * size);
        let fb = pos - neg;
        let have = h.feedback_bytes_per_s as f64;
        if have >= fb {
            h.feedback_bytes_per_s = fb as f32;
            // f32 rounding may round up: never raise the header's value.
            if h.feedback_bytes_per_s as f64 > have {
                h.feedback_bytes_per_s = have as f32;
            }
            self.stats.lowered += 1;
        } else {
            neg = self.res_neg.min(neg + (fb - have));
            pos = have + neg;
        }
        self.res_pos = (self.res_pos - pos).max(0.0);
        self.res_neg = (self.res_neg - neg).max(0.0);
        self.given.0 += pos;
        self.given.1 += neg;
        if self.res_pos == 0.0 {
            self.cp = 0.0;
        }
        if self.res_neg == 0.0 {
            self.cn = 0.0;
        }
    }

    fn on_timer(&mut self, ctx: &mut LinkCtx) {
        if ctx.now >= self.next_te {
            self.control_timeout(ctx);
        }
        if ctx.now >= self.next_tq {
            self.queue_timeout(ctx);
        }
        self.arm(ctx);
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::ctx::test_ctx;
    use crate::net::packet::XcpHeader;

    fn data(fb: f32, rtt: f32, cwnd: f32) -> Packet {
        let h = XcpHeader { cwnd_bytes: cwnd, rtt_s: rtt, feedback_bytes_per_s: fb };
        Packet { size: 1040, cong: Some(CongestionHeader::Xcp(h)), ..Default::default() }
    }

    /// Whatever the budgets and the incoming value, the header only goes down.
    #[test]
    fn a_router_never_raises_feedback() {
        test_ctx(false, |ctx, _| {
            let mut r = XcpRouter::new(XcpParams::ORIGINAL);
            let mut seen_lower = false;
            for (i, &(cp, cn, rp, rn)) in
                [(1e6, 0.0, 1e9, 0.0), (0.0, 50.0, 0.0, 1e9), (1e5, 10.0, 1e4, 1e4), (0.0, 0.0, 0.0, 0.0)]
                    .iter()
                    .enumerate()
            {
                for &fb in &[1e24f32, 5e5, 100.0, 0.0, -100.0, -5e5, -1e9] {
                    (r.cp, r.cn, r.res_pos, r.res_neg) = (cp, cn, rp, rn);
                    let mut p = data(fb, 0.05 * (i + 1) as f32, 20_800.0);
                    r.on_dequeue(ctx, &mut p);
                    let Some(CongestionHeader::Xcp(h)) = p.cong else { panic!() };
                    assert!(h.feedback_bytes_per_s <= fb, "raised {fb} to {}", h.feedback_bytes_per_s);
                    seen_lower |= h.feedback_bytes_per_s < fb;
                    assert!(r.res_pos >= 0.0 && r.res_neg >= 0.0);
                }
            }
            assert!(seen_lower);
        });
    }

    /// ACKs and packets without an RTT sample pass untouched.
    #[test]
    fn acks_and_unsampled_packets_are_left_alone() {
        test_ctx(false, |ctx, _| {
            let mut r = XcpRouter::new(XcpParams::ORIGINAL);
            (r.cp, r.cn, r.res_pos, r.res_neg) = (0.0, 100.0, 0.0, 1e9);
            let mut p = data(7.0, 0.0, 20_800.0);
            r.on_dequeue(ctx, &mut p);
            assert_eq!(p.cong, data(7.0, 0.0, 20_800.0).cong);
            let mut a = data(7.0, 0.1, 20_800.0);
            a.kind = crate::net::packet::Kind::Ack;
            r.on_dequeue(ctx, &mut a);
            assert_eq!(a.cong, data(7.0, 0.1, 20_800.0).cong);
        });
    }

    #[test]
    fn parameter_sets_and_named_errors() {
        let m = |s: &str| serde_json::from_str::<Map<String, Value>>(s).unwrap();
        let c = XcpParams::from_map(&m(r#"{"params": "conservative", "gamma": 0.07}"#), "q.xcp").unwrap();
        assert_eq!((c.alpha, c.beta, c.gamma, c.capacity), (0.2, 0.056, 0.07, 0.9));
        let e = XcpParams::from_map(&m(r#"{"params": "fast"}"#), "q.xcp").unwrap_err();
        assert_eq!(e.field, "q.xcp.params");
        assert!(e.msg.contains("original, conservative"), "{}", e.msg);
        let e = XcpParams::from_map(&m(r#"{"alpha": -1}"#), "q.xcp").unwrap_err();
        assert_eq!(e.field, "q.xcp.alpha");
        let e = XcpParams::from_map(&m(r#"{"capacity": 0}"#), "q.xcp").unwrap_err();
        assert_eq!(e.field, "q.xcp.capacity");
        let e = XcpParams::from_map(&m(r#"{"alpah": 1}"#), "q.xcp").unwrap_err();
        assert_eq!(e.field, "q.xcp.alpah");
        let e = XcpParams::from_value(&Value::from(3), "q.xcp").unwrap_err();
        assert_eq!(e.field, "q.xcp");
        assert_eq!(XcpParams::from_value(&Value::from(false), "q.xcp").unwrap(), None);
    }
}
