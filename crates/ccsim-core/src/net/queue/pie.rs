//! PIE, Proportional Integral controller Enhanced (RFC 8033), checked
//! against Linux (`net/sched/sch_pie.c`, `include/net/pie.h`) and ns-3
//! (`PieQueueDisc`, identical from ns-3.44 to 3.48).
//!
//! * **Drop probability** (§4.2), every `tupdate_s` on the link's timer
//!   (on the grid k·tupdate from time 0, as ns-3 schedules it):
//!   `Δ = α(qdelay − target) + β(qdelay − qdelay_old)` (α, β in Hz, delays
//!   in seconds), scaled by the current p's range so that a small p moves
//!   in small steps: ÷2048 below 10⁻⁶, ÷512 below 10⁻⁵, ÷128 below 10⁻⁴,
//!   ÷32 below 10⁻³, ÷8 below 1%, ÷2 below 10% (Linux: α and β halved,
//!   then quartered per decade); with p ≥ 10% Δ is capped at 0.02 (§5.5,
//!   `cap_drop_adjustment`). Then p += Δ; with qdelay and qdelay_old both 0
//!   p decays ×0.98 (RFC, ns-3; Linux takes p/64 off); p is clamped to
//!   [0, 1] and qdelay_old = qdelay. Linux's extra +2% above 250 ms of delay
//!   is in neither the RFC nor ns-3 and is left out.
//! * **Queue delay** (§4.3, §5.2): `estimator = "timestamp"` (the default
//!   of Linux and of ns-3 3.44, `UseDequeueRateEstimator false`): each
//!   dequeue sets qdelay to the departing packet's sojourn (0 if it leaves
//!   the queue empty). `estimator = "dequeue_rate"`: the RFC's departure
//!   rate, measured over cycles of `dq_threshold_bytes` (16 KB) departed
//!   while that much is queued, averaged as ns-3 does (½ old + ½ new;
//!   Linux ⅞ old + ⅛ new), and qdelay = backlog / rate at each update.
//! * **Random drop** (§4.1), on arrival: none while burst allowance is
//!   left; none while (qdelay_old < target/2 and p < 0.2), or while at most
//!   2 packets wait (ns-3 in packet mode; with `limit_bytes`, at most
//!   2·`mean_pktsize` bytes, the RFC's and ns-3's byte form); otherwise
//!   drop with probability p (u < p, u uniform from the link's own RNG
//!   stream). A full buffer drops the arrival first.
//! * **De-randomisation** (§5.4, `derandomize`, on by default as Linux;
//!   ns-3's `UseDerandomization` is off): accu_prob += p at each decision
//!   (reset to 0 when p = 0); no drop while accu_prob < 0.85, a drop for
//!   sure once it reaches 8.5, else the random draw; accu_prob restarts at
//!   0 after every drop or mark (after a forced drop too).
//! * **Burst allowance** (§4.4): `max_burst_s` (150 ms) at the start,
//!   reduced by tupdate at each update; re-armed when p = 0 and qdelay and
//!   qdelay_old are both below target/2 (RFC; Linux resets its state then).
//!   p keeps being computed meanwhile (RFC, Linux). ns-3 differs: it arms
//!   the allowance at the first arrival, holds p at 0 while it lasts, and
//!   re-arms only after 1.5 s of calm.
//! * **ECN** (§5.1, `ecn`): an ECN-capable packet chosen for a drop is
//!   CE-marked and queued while p ≤ `mark_ecn_th` (10%; Linux `<=`, ns-3
//!   `<`), dropped above it.
//!
//! Defaults are the RFC's and Linux's: target 15 ms, tupdate 15 ms,
//! α 0.125, β 1.25, max burst 150 ms, limit 1000 packets (ns-3: 25
//! packets). Not modelled: byte mode (p scaled by packet size), PIE's
//! active/inactive switch (§5.3), the L4S mode.
use super::codel::{limit_or, positive_s, StampedFifo};
use super::droptail::Limit;
use super::{mark_ce, QueueDiscipline, QueueKind};
use crate::net::ctx::LinkCtx;
use crate::net::packet::{PacketPool, PktId};
use crate::scenario::params::{ParamDoc, Params};
use crate::scenario::{ConfigError, QueueSpec};
use crate::sim::time::{from_secs, to_secs};
use crate::sim::Time;
use rand::Rng as _;
use serde_json::json;

pub const KIND: QueueKind = QueueKind {
    name: "pie",
    doc: "PIE (RFC 8033): drop probability from the queueing delay by a PI controller every tupdate, \
          burst allowance, de-randomised drops, ECN marking",
    params: || {
        vec![
            ParamDoc {
                name: "limit_pkts",
                default: json!(1000),
                doc: "buffer in packets waiting (Linux limit 1000; ns-3 MaxSize 25p); or limit_bytes instead",
            },
            ParamDoc {
                name: "limit_bytes",
                default: serde_json::Value::Null,
                doc: "buffer in bytes waiting instead of limit_pkts (then the small-queue rule counts bytes)",
            },
            ParamDoc {
                name: "target_s",
                default: json!(0.015),
                doc: "reference queueing delay QDELAY_REF, seconds > 0 (RFC 8033 §4.1, Linux, ns-3: 15 ms)",
            },
            ParamDoc {
                name: "tupdate_s",
                default: json!(0.015),
                doc: "seconds > 0 between drop-probability updates (RFC 8033 T_UPDATE, Linux, ns-3: 15 ms)",
            },
            ParamDoc { name: "alpha", default: json!(0.125), doc: "integral gain in Hz, >= 0 (RFC 8033 §4.2)" },
            ParamDoc { name: "beta", default: json!(1.25), doc: "proportional gain in Hz, >= 0 (RFC 8033 §4.2)" },
            ParamDoc {
                name: "max_burst_s",
                default: json!(0.15),
                doc: "burst allowance in seconds >= 0 (RFC 8033 §4.4 MAX_BURST: 150 ms)",
            },
            ParamDoc {
                name: "derandomize",
                default: json!(true),
                doc: "RFC 8033 §5.4 accumulated probability: no drop below 0.85, a sure drop at 8.5 (Linux: \
                      always; ns-3 UseDerandomization: false)",
            },
            ParamDoc {
                name: "cap_drop_adjustment",
                default: json!(true),
                doc: "RFC 8033 §5.5: with p >= 10%, raise p by at most 2% per update (Linux: always; ns-3: true)",
            },
            ParamDoc {
                name: "estimator",
                default: json!("timestamp"),
                doc: "queue delay from \"timestamp\" (each departing packet's sojourn; Linux and ns-3 3.44 \
                      default) or \"dequeue_rate\" (backlog / measured departure rate, RFC 8033 §4.3)",
            },
            ParamDoc {
                name: "dq_threshold_bytes",
                default: json!(16384),
                doc: "dequeue_rate: bytes queued to start, and departed to end, a rate measurement (RFC 8033 \
                      DQ_THRESHOLD)",
            },
            ParamDoc {
                name: "mean_pktsize",
                default: json!(1000),
                doc: "bytes; with limit_bytes no random drop while at most 2 x this many bytes wait (ns-3 \
                      MeanPktSize)",
            },
            ParamDoc {
                name: "ecn",
                default: json!(false),
                doc: "CE-mark ECN-capable packets instead of dropping them while p <= mark_ecn_th (RFC 8033 §5.1)",
            },
            ParamDoc {
                name: "mark_ecn_th",
                default: json!(0.1),
                doc: "highest p, in [0, 1], at which ECN-capable packets are marked rather than dropped (10%)",
            },
        ]
    },
    build: |q, path| Ok(Pie::from_spec(q, path)?.into()),
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Estimator {
    Timestamp,
    DequeueRate,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PieConfig {
    pub limit: Limit,
    pub target: f64,
    pub tupdate: Time,
    pub alpha: f64,
    pub beta: f64,
    pub max_burst: Time,
    pub derandomize: bool,
    pub cap_drop_adjustment: bool,
    pub estimator: Estimator,
    pub dq_threshold: u64,
    pub mean_pktsize: u64,
    pub ecn: bool,
    pub mark_ecn_th: f64,
}

impl Default for PieConfig {
    /// RFC 8033's and Linux's defaults.
    fn default() -> Self {
        PieConfig {
            limit: Limit::Packets(1000),
            target: 0.015,
            tupdate: from_secs(0.015),
            alpha: 0.125,
            beta: 1.25,
            max_burst: from_secs(0.15),
            derandomize: true,
            cap_drop_adjustment: true,
            estimator: Estimator::Timestamp,
            dq_threshold: 16384,
            mean_pktsize: 1000,
            ecn: false,
            mark_ecn_th: 0.1,
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

fn nonneg_s(field: &str, x: f64) -> Result<(), ConfigError> {
    if x.is_finite() && (0.0..=3600.0).contains(&x) {
        Ok(())
    } else {
        Err(ConfigError::new(field, format!("must be >= 0 s (at most 3600 s), got {x}")))
    }
}

fn probability(field: &str, x: f64) -> Result<(), ConfigError> {
    if x.is_finite() && (0.0..=1.0).contains(&x) {
        Ok(())
    } else {
        Err(ConfigError::new(field, format!("must be in [0, 1], got {x}")))
    }
}

/// RFC 8033 §4.2: the change of p at one update, from the current `p`,
/// the delays (s) and the gains (Hz).
pub fn delta_p(p: f64, qdelay: f64, qdelay_old: f64, c: &PieConfig) -> f64 {
    let mut d = c.alpha * (qdelay - c.target) + c.beta * (qdelay - qdelay_old);
    d /= if p < 1e-6 {
        2048.0
    } else if p < 1e-5 {
        512.0
    } else if p < 1e-4 {
        128.0
    } else if p < 1e-3 {
        32.0
    } else if p < 1e-2 {
        8.0
    } else if p < 0.1 {
        2.0
    } else {
        1.0
    };
    if c.cap_drop_adjustment && p >= 0.1 && d > 0.02 {
        d = 0.02;
    }
    d
}

pub struct Pie {
    cfg: PieConfig,
    q: StampedFifo,
    /// The drop probability p.
    pub(crate) drop_prob: f64,
    pub(crate) accu_prob: f64,
    /// Current and previous update's queue delay (s).
    qdelay: f64,
    qdelay_old: f64,
    /// Burst allowance left.
    pub(crate) burst_allowance: Time,
    /// The update timer runs (armed at the first arrival).
    running: bool,
    /// Departure-rate estimator: bytes/s (0: none yet), the current
    /// measurement's start and bytes (`None`: not measuring).
    avg_dq_rate: f64,
    dq_start: Time,
    dq_count: Option<u64>,
}

impl Pie {
    pub fn new(cfg: PieConfig) -> Self {
        let burst = cfg.max_burst;
        Pie {
            cfg,
            q: StampedFifo::default(),
            drop_prob: 0.0,
            accu_prob: 0.0,
            qdelay: 0.0,
            qdelay_old: 0.0,
            burst_allowance: burst,
            running: false,
            avg_dq_rate: 0.0,
            dq_start: 0,
            dq_count: None,
        }
    }

    pub fn from_spec(q: &QueueSpec, path: &str) -> Result<Self, ConfigError> {
        let d = PieConfig::default();
        let mut p = Params::new(&q.extra, path);
        let cfg = PieConfig {
            limit: limit_or(q, path, 1000)?,
            target: p.f64_with("target_s", d.target, positive_s)?,
            tupdate: from_secs(p.f64_with("tupdate_s", 0.015, positive_s)?),
            alpha: p.f64_with("alpha", d.alpha, gain)?,
            beta: p.f64_with("beta", d.beta, gain)?,
            max_burst: from_secs(p.f64_with("max_burst_s", 0.15, nonneg_s)?),
            derandomize: p.bool("derandomize", d.derandomize)?,
            cap_drop_adjustment: p.bool("cap_drop_adjustment", d.cap_drop_adjustment)?,
            estimator: match p.choice("estimator", "timestamp", &["timestamp", "dequeue_rate"])? {
                "timestamp" => Estimator::Timestamp,
                _ => Estimator::DequeueRate,
            },
            dq_threshold: p.u64_in("dq_threshold_bytes", d.dq_threshold, 1, 1 << 30)?,
            mean_pktsize: p.u64_in("mean_pktsize", d.mean_pktsize, 1, 1 << 20)?,
            ecn: p.bool("ecn", d.ecn)?,
            mark_ecn_th: p.f64_with("mark_ecn_th", d.mark_ecn_th, probability)?,
        };
        p.finish_with("queue kind \"pie\"", &["kind", "limit_pkts", "limit_bytes"])?;
        Ok(Pie::new(cfg))
    }

    /// The drop probability p.
    pub fn drop_prob(&self) -> f64 {
        self.drop_prob
    }

    /// The queue delay of the last update or departure (s).
    pub fn qdelay(&self) -> f64 {
        self.qdelay
    }

    /// RFC 8033 §4.1 and §5.4: whether the arrival is chosen for a drop
    /// (or mark).
    fn drop_early(&mut self, ctx: &mut LinkCtx) -> bool {
        let c = &self.cfg;
        if self.burst_allowance > 0 {
            return false;
        }
        let short = match c.limit {
            Limit::Packets(_) => self.q.len() <= 2,
            Limit::Bytes(_) => self.q.bytes() <= 2 * c.mean_pktsize,
        };
        if (self.qdelay_old < c.target / 2.0 && self.drop_prob < 0.2) || short {
            return false;
        }
        let p = self.drop_prob;
        if c.derandomize {
            if p == 0.0 {
                self.accu_prob = 0.0;
            }
            self.accu_prob += p;
            if self.accu_prob < 0.85 {
                return false;
            }
            if self.accu_prob >= 8.5 {
                return true;
            }
        }
        ctx.rng.gen::<f64>() < p
    }

    /// RFC 8033 §4.2 and §4.4: one update of p (every tupdate).
    fn update(&mut self) {
        let c = &self.cfg;
        if c.estimator == Estimator::DequeueRate {
            self.qdelay = if self.avg_dq_rate > 0.0 { self.q.bytes() as f64 / self.avg_dq_rate } else { 0.0 };
        }
        let (qdelay, old) = (self.qdelay, self.qdelay_old);
        let mut p = self.drop_prob + delta_p(self.drop_prob, qdelay, old, c);
        if qdelay == 0.0 && old == 0.0 {
            p *= 0.98;
        }
        self.drop_prob = p.clamp(0.0, 1.0);
        self.burst_allowance = self.burst_allowance.saturating_sub(c.tupdate);
        if self.drop_prob == 0.0 && qdelay < c.target / 2.0 && old < c.target / 2.0 {
            self.burst_allowance = c.max_burst;
            if self.avg_dq_rate > 0.0 {
                // a calm queue restarts the rate measurement (Linux, ns-3)
                self.avg_dq_rate = 0.0;
                self.dq_count = None;
            }
        }
        self.qdelay_old = qdelay;
    }

    /// The departure-rate measurement (RFC 8033 §4.3, ns-3's form) after
    /// a packet of `size` bytes left at `now`.
    fn measure(&mut self, now: Time, size: u32) {
        let th = self.cfg.dq_threshold;
        if self.dq_count.is_none() && self.q.bytes() >= th {
            self.dq_start = now;
            self.dq_count = Some(0);
        }
        let Some(count) = self.dq_count.as_mut() else { return };
        *count += size as u64;
        if *count < th {
            return;
        }
        let dt = to_secs(now - self.dq_start);
        if dt > 0.0 {
            let rate = *count as f64 / dt;
            self.avg_dq_rate = if self.avg_dq_rate == 0.0 { rate } else { 0.5 * self.avg_dq_rate + 0.5 * rate };
        }
        if self.q.bytes() > th {
            self.dq_start = now;
            self.dq_count = Some(0);
        } else {
            self.dq_count = None;
        }
    }
}

impl QueueDiscipline for Pie {
    fn enqueue(&mut self, ctx: &mut LinkCtx, id: PktId, pkts: &mut PacketPool) -> bool {
        if !self.running {
            // the update grid k·tupdate from time 0, as ns-3's
            self.running = true;
            let t = self.cfg.tupdate;
            ctx.arm_timer((ctx.now / t + 1) * t);
        }
        let size = pkts.get(id).size;
        if !ctx.idle && !self.q.fits(self.cfg.limit, size) {
            self.accu_prob = 0.0;
            return false;
        }
        if self.drop_early(ctx) {
            self.accu_prob = 0.0;
            if !(self.cfg.ecn && self.drop_prob <= self.cfg.mark_ecn_th && mark_ce(ctx, pkts, id)) {
                return false;
            }
        }
        self.q.push(id, size, ctx.now);
        true
    }

    fn dequeue(&mut self, ctx: &mut LinkCtx, _pkts: &mut PacketPool) -> Option<PktId> {
        let (id, size, enqueued) = self.q.pop()?;
        match self.cfg.estimator {
            Estimator::Timestamp => {
                self.qdelay = if self.q.bytes() == 0 { 0.0 } else { to_secs(ctx.now - enqueued) };
            }
            Estimator::DequeueRate => self.measure(ctx.now, size),
        }
        Some(id)
    }

    fn on_timer(&mut self, ctx: &mut LinkCtx, _pkts: &mut PacketPool) {
        self.update();
        ctx.arm_timer(ctx.now + self.cfg.tupdate);
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
mod tests {
    use super::*;
    use crate::net::ctx::test_ctx;
    use crate::net::packet::{Ecn, Packet};

    const MS: Time = 1_000_000_000;

    fn spec(v: serde_json::Value) -> QueueSpec {
        serde_json::from_value(v).unwrap()
    }

    fn pkt(pool: &mut PacketPool, ecn: Ecn, now: Time) -> PktId {
        pool.alloc(Packet { size: 1000, ecn, ts: now, ..Default::default() })
    }

    #[test]
    fn the_update_scales_by_the_probability_range_and_caps_large_steps() {
        let c = PieConfig::default();
        // the reference's worked example: qdelay 30 ms, qdelay_old 15 ms
        let raw = 0.125 * 0.015 + 1.25 * 0.015;
        for (p, div) in
            [(0.0, 2048.0), (5e-6, 512.0), (5e-5, 128.0), (5e-4, 32.0), (5e-3, 8.0), (0.05, 2.0), (0.099, 2.0)]
        {
            assert!((delta_p(p, 0.030, 0.015, &c) - raw / div).abs() < 1e-15, "p {p}");
        }
        assert!((delta_p(0.0, 0.030, 0.015, &c) - 1.007e-5).abs() < 1e-8);
        assert!((delta_p(0.05, 0.030, 0.015, &c) - 0.0103125).abs() < 1e-12);
        // p >= 10%: unscaled, but a rise is capped at 2% (RFC 8033 §5.5)
        assert_eq!(delta_p(0.1, 0.030, 0.015, &c), 0.02);
        assert!((delta_p(0.1, 0.016, 0.015, &c) - (0.125 * 0.001 + 1.25 * 0.001)).abs() < 1e-15);
        let nocap = PieConfig { cap_drop_adjustment: false, ..c.clone() };
        assert!((delta_p(0.5, 0.030, 0.015, &nocap) - raw).abs() < 1e-15);
        // a fall is never capped
        assert!((delta_p(0.5, 0.0, 0.1, &c) - (-0.125 * 0.015 - 1.25 * 0.1)).abs() < 1e-15);
    }

    /// One departure per ms from a queue kept near `n` packets (two
    /// arrivals when below, none above), with an update every 15 ms, for `ms` ms from
    /// `t0`: the drop probability after each update, and the drops.
    fn run(q: &mut Pie, ctx: &mut LinkCtx, pool: &mut PacketPool, t0: Time, ms: u64, n: usize) -> (Vec<f64>, u64) {
        let (mut ps, mut drops) = (Vec::new(), 0);
        for k in 0..ms {
            ctx.now = t0 + k * MS;
            if ctx.now.is_multiple_of(15 * MS) {
                q.update();
                ps.push(q.drop_prob);
            }
            let arrivals = match q.len_pkts() {
                l if l < n => 2,
                l if l == n => 1,
                _ => 0,
            };
            for _ in 0..arrivals {
                let id = pkt(pool, Ecn::NotEct, ctx.now);
                if !q.enqueue(ctx, id, pool) {
                    pool.free(id);
                    drops += 1;
                }
            }
            if let Some(id) = q.dequeue(ctx, pool) {
                pool.free(id);
            }
        }
        (ps, drops)
    }

    #[test]
    fn p_rises_while_the_delay_is_above_target_and_falls_below_it() {
        test_ctx(false, |ctx, pool| {
            let mut q = Pie::new(PieConfig::default());
            // a 40 ms standing queue (target 15 ms) for 5 s
            let (up, drops) = run(&mut q, ctx, pool, 0, 5000, 40);
            assert!((q.qdelay - 0.040).abs() < 0.0015, "qdelay {}", q.qdelay);
            assert!(up.windows(2).skip(2).all(|w| w[1] > w[0]), "p rises at every update: {up:?}");
            assert!(*up.last().unwrap() > 0.1, "p {}", up.last().unwrap());
            assert!(drops > 50, "drops {drops}");
            assert_eq!(q.burst_allowance, 0);
            // then a 3 ms queue: p falls at every update to 0, and the
            // burst allowance is re-armed once it is 0 with the delay low
            let (down, _) = run(&mut q, ctx, pool, 5000 * MS, 15_000, 3);
            let zero = down.iter().position(|&p| p == 0.0).expect("p reaches 0");
            // (after the 40 ms the old queue takes to drain)
            assert!(down[4..zero].windows(2).all(|w| w[1] < w[0]), "p falls at every update: {down:?}");
            assert!(down[zero..].iter().all(|&p| p == 0.0));
            assert_eq!(q.burst_allowance, 150 * MS);
        });
    }

    /// `n` arrivals with p held at `p` and the delay above target/2 (no
    /// update runs), 5 packets kept waiting: the gaps between drops
    /// (arrivals per drop, the dropped one included).
    fn gaps(cfg: PieConfig, p: f64, n: usize) -> Vec<usize> {
        let mut out = Vec::new();
        test_ctx(false, |ctx, pool| {
            let mut q = Pie::new(PieConfig { max_burst: 0, ..cfg });
            q.qdelay_old = 0.1;
            q.drop_prob = p;
            let mut since = 0;
            for _ in 0..n {
                since += 1;
                let id = pkt(pool, Ecn::NotEct, ctx.now);
                if q.enqueue(ctx, id, pool) {
                    if q.len_pkts() > 5 {
                        let out = q.dequeue(ctx, pool).unwrap();
                        pool.free(out);
                    }
                } else {
                    pool.free(id);
                    out.push(since);
                    since = 0;
                }
            }
        });
        out
    }

    /// With de-randomisation the k-th arrival after a drop adds p to
    /// accu_prob: (first k at which a drop may happen, k at which it must).
    fn bounds(p: f64) -> (usize, usize) {
        let (mut accu, mut k, mut lo) = (0.0, 0, 0);
        loop {
            accu += p;
            k += 1;
            if lo == 0 && accu >= 0.85 {
                lo = k;
            }
            if accu >= 8.5 {
                return (lo, k);
            }
        }
    }

    #[test]
    fn derandomisation_spaces_the_drops() {
        let c = PieConfig::default();
        for p in [0.1, 0.01, 0.001] {
            let (lo, hi) = bounds(p);
            let g = gaps(c.clone(), p, 200_000);
            assert!(g.len() > 20, "p {p}: {} drops", g.len());
            // the first arrivals are counted from the start like any gap
            assert!(g.iter().all(|&k| k >= lo && k <= hi), "p {p}: gaps outside [{lo}, {hi}]: {g:?}");
        }
        assert_eq!(bounds(0.1).0, 9, "no drop while accu_prob < 0.85");
        // the two thresholds themselves, whatever the draw: p = 0.84 from
        // 0 never drops, and reaching 8.5 always does
        test_ctx(false, |ctx, pool| {
            let mut q = Pie::new(PieConfig { max_burst: 0, ..c.clone() });
            q.qdelay_old = 0.1;
            for _ in 0..5 {
                let id = pkt(pool, Ecn::NotEct, 0);
                assert!(q.enqueue(ctx, id, pool));
            }
            for _ in 0..1000 {
                (q.drop_prob, q.accu_prob) = (0.84, 0.0);
                let id = pkt(pool, Ecn::NotEct, 0);
                assert!(q.enqueue(ctx, id, pool), "accu_prob 0.84 < 0.85: no drop");
                let out = q.dequeue(ctx, pool).unwrap();
                pool.free(out);
                (q.drop_prob, q.accu_prob) = (1e-9, 8.5);
                let id = pkt(pool, Ecn::NotEct, 0);
                assert!(!q.enqueue(ctx, id, pool), "accu_prob 8.5: a drop");
                assert_eq!(q.accu_prob, 0.0, "restarted after the drop");
                pool.free(id);
            }
        });
        // without it, drops are Bernoulli: gaps shorter than 0.85/p occur
        let g = gaps(PieConfig { derandomize: false, ..c }, 0.1, 20_000);
        assert!(g.iter().filter(|&&k| k < 9).count() > g.len() / 3, "{g:?}");
    }

    #[test]
    fn the_burst_allowance_lets_a_burst_through_then_runs_out() {
        test_ctx(false, |ctx, pool| {
            let mut q = Pie::new(PieConfig::default());
            assert_eq!(q.burst_allowance, 150 * MS);
            // p and the delay as high as they go: still no drop while
            // allowance is left
            q.drop_prob = 1.0;
            q.qdelay_old = 1.0;
            for _ in 0..100 {
                let id = pkt(pool, Ecn::NotEct, 0);
                assert!(q.enqueue(ctx, id, pool), "the burst passes");
            }
            // each update takes tupdate off: 10 updates use 150 ms up
            for k in 0..10 {
                assert!(q.burst_allowance > 0, "update {k}");
                q.update();
                q.drop_prob = 1.0;
                q.qdelay_old = 1.0;
            }
            assert_eq!(q.burst_allowance, 0);
            let id = pkt(pool, Ecn::NotEct, 0);
            assert!(!q.enqueue(ctx, id, pool), "no allowance left: dropped");
            pool.free(id);
        });
    }

    #[test]
    fn ecn_marks_below_the_threshold_and_drops_above_it() {
        for (p, ecn, marked) in [(0.05, Ecn::Ect0, true), (0.1, Ecn::Ect1, true), (0.5, Ecn::Ect0, false)] {
            test_ctx(false, |ctx, pool| {
                let mut q = Pie::new(PieConfig { ecn: true, derandomize: false, max_burst: 0, ..Default::default() });
                q.qdelay_old = 0.1;
                q.drop_prob = p;
                let (mut marks, mut drops) = (0, 0);
                for _ in 0..2000 {
                    let id = pkt(pool, ecn, 0);
                    if q.enqueue(ctx, id, pool) {
                        marks += (pool.get(id).ecn == Ecn::Ce) as u64;
                        if q.len_pkts() > 5 {
                            let out = q.dequeue(ctx, pool).unwrap();
                            pool.free(out);
                        }
                    } else {
                        pool.free(id);
                        drops += 1;
                    }
                }
                if marked {
                    assert_eq!(drops, 0, "p {p}: ECN-capable packets are marked, not dropped");
                    assert!(marks > 0 && marks == *ctx.marks, "p {p}: {marks} marks");
                } else {
                    assert_eq!(marks, 0, "p {p}: above the threshold ECN-capable packets are dropped");
                    assert!(drops > 500);
                }
                // Not-ECT packets are dropped whatever p
                let mut lost = 0;
                for _ in 0..200 {
                    let id = pkt(pool, Ecn::NotEct, 0);
                    if !q.enqueue(ctx, id, pool) {
                        pool.free(id);
                        lost += 1;
                    } else if q.len_pkts() > 5 {
                        let out = q.dequeue(ctx, pool).unwrap();
                        pool.free(out);
                    }
                }
                assert!(lost > 0, "p {p}");
            });
        }
    }

    #[test]
    fn no_random_drop_with_a_short_queue_or_a_low_delay_and_p() {
        test_ctx(false, |ctx, pool| {
            let mut q = Pie::new(PieConfig { derandomize: false, max_burst: 0, ..Default::default() });
            // p = 1 but at most 2 packets waiting
            (q.drop_prob, q.qdelay_old) = (1.0, 1.0);
            for _ in 0..3 {
                let id = pkt(pool, Ecn::NotEct, 0);
                assert!(q.enqueue(ctx, id, pool));
            }
            let id = pkt(pool, Ecn::NotEct, 0);
            assert!(!q.enqueue(ctx, id, pool), "3 waiting: p = 1 drops");
            // a low delay with p < 0.2 spares it, p = 0.2 does not
            (q.drop_prob, q.qdelay_old) = (0.19, 0.007);
            assert!(q.enqueue(ctx, id, pool));
            (q.drop_prob, q.qdelay_old) = (1.0, 0.007);
            let id = pkt(pool, Ecn::NotEct, 0);
            assert!(!q.enqueue(ctx, id, pool));
        });
    }

    #[test]
    fn the_dequeue_rate_estimator_gives_backlog_over_rate() {
        test_ctx(false, |ctx, pool| {
            let mut q = Pie::new(PieConfig { estimator: Estimator::DequeueRate, ..Default::default() });
            for _ in 0..100 {
                let id = pkt(pool, Ecn::NotEct, 0);
                assert!(q.enqueue(ctx, id, pool));
            }
            // 1000 bytes every 2 ms while 100 kB wait; a cycle ends after
            // 17 departures (17 000 bytes >= 16 384). As ns-3 counts it, the
            // first cycle starts at the departure it counts (17 packets in
            // 32 ms), the next one after it (17 in 34 ms); the average is
            // half old, half new
            for k in 1..=40u64 {
                ctx.now = 2 * k * MS;
                let id = q.dequeue(ctx, pool).unwrap();
                pool.free(id);
            }
            let rate = 0.5 * (17_000.0 / 0.032) + 0.5 * (17_000.0 / 0.034);
            assert!((q.avg_dq_rate - rate).abs() < 1e-6, "rate {}", q.avg_dq_rate);
            q.update();
            assert!((q.qdelay - 60_000.0 / rate).abs() < 1e-12, "qdelay {}", q.qdelay);
        });
    }

    #[test]
    fn parameters_are_validated_with_named_errors() {
        let err = |v| Pie::from_spec(&spec(v), "q").err().map(|e| e.to_string()).unwrap_or_default();
        let q = Pie::from_spec(&spec(json!({"kind": "pie"})), "q").unwrap();
        assert_eq!(q.cfg, PieConfig::default());
        let q = Pie::from_spec(
            &spec(json!({"kind": "pie", "limit_pkts": 25, "derandomize": false, "estimator": "dequeue_rate",
                         "tupdate_s": 0.03, "alpha": 0.25, "ecn": true, "mark_ecn_th": 0.2})),
            "q",
        )
        .unwrap();
        assert_eq!(q.cfg.limit, Limit::Packets(25));
        assert!(!q.cfg.derandomize && q.cfg.ecn && q.cfg.estimator == Estimator::DequeueRate);
        assert_eq!((q.cfg.tupdate, q.cfg.alpha, q.cfg.mark_ecn_th), (30 * MS, 0.25, 0.2));
        let e = err(json!({"kind": "pie", "target_s": 0}));
        assert!(e.contains("q.target_s") && e.contains("must be > 0 s") && e.contains("got 0"), "{e}");
        let e = err(json!({"kind": "pie", "tupdate_s": -0.01}));
        assert!(e.contains("q.tupdate_s") && e.contains("got -0.01"), "{e}");
        let e = err(json!({"kind": "pie", "alpha": -1}));
        assert!(e.contains("q.alpha") && e.contains("from 0 to 100"), "{e}");
        let e = err(json!({"kind": "pie", "max_burst_s": -1}));
        assert!(e.contains("q.max_burst_s") && e.contains(">= 0 s"), "{e}");
        let e = err(json!({"kind": "pie", "mark_ecn_th": 1.5}));
        assert!(e.contains("q.mark_ecn_th") && e.contains("[0, 1]"), "{e}");
        let e = err(json!({"kind": "pie", "estimator": "rate"}));
        assert!(e.contains("q.estimator") && e.contains("timestamp, dequeue_rate"), "{e}");
        let e = err(json!({"kind": "pie", "qdelay_ref": 0.015}));
        assert!(e.contains("q.qdelay_ref") && e.contains("unknown field") && e.contains("target_s"), "{e}");
    }
}
