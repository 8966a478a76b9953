//! RTT estimation and retransmission timeout.
//!
//! Two estimators (`rtt_estimator`):
//!
//! - `rfc6298` (default): RFC 6298 §2, §5 with a sample on every ACK of
//!   new data (the timestamp option, RFC 7323): SRTT/RTTVAR with alpha =
//!   1/8, beta = 1/4; RTO = SRTT + max(G, 4·RTTVAR), floored at `min_rto`
//!   (ns-2 and Linux use 0.2 s, RFC 6298 says 1 s), doubled per
//!   consecutive timeout (§5.5) and capped at `max_rto`. The backoff is
//!   cleared when new data is acknowledged (§5.7), or, with
//!   `ns2_timed_backoff` (ns-2's agent with `timestamps_ true`), only when
//!   the segment ns-2 times is: its `newack` samples every ACK's echoed
//!   timestamp but, with `ts_resetRTO_` false (the default), ends the
//!   backoff only when an ACK covers `rtt_seq_`, the first new segment
//!   sent while none was timed (tcp.cc `output`, `newack`).
//! - `ns2`: ns-2.35's `TcpAgent` without timestamps (`tcp.cc`: `rtt_init`,
//!   `rtt_update`, `rtt_timeout`, `rtt_backoff`, and the timing in
//!   `output` / `newack`), which is what the papers' simulations ran:
//!   one segment is timed at a time (the first new segment sent while none
//!   is timed), its sample is taken when an ACK covers it and is quantised
//!   to whole `tcpTick_` ticks from the tick boundary before it was sent
//!   (a per-agent random `boot_time_` offsets the tick grid); SRTT and
//!   RTTVAR are integers in ticks with 3 and 2 fraction bits; RTO =
//!   ⌊SRTT + 4·RTTVAR⌋ ticks, at least `min_rto` (before backoff, as
//!   `rfc2988_`), at most `max_rto`, at least 2 ticks. The backoff is
//!   cleared only when the timed segment is acknowledged (or by a partial
//!   ACK, as `NewRenoTcpAgent::partialnewack`); a timeout or a fast
//!   retransmission stops the timing (`reset_rtx_timer`, Karn's rule).
//!   Past a backoff of 8, SRTT is folded into RTTVAR and the next sample
//!   restarts the estimate (`rtt_backoff`).
//!
//! - `linux`: Linux's `tcp_rtt_estimator` and `tcp_set_rto`
//!   (`net/ipv4/tcp_input.c`) in its integer microseconds: the first
//!   sample m sets SRTT = m and mdev = m/2 ("make sure rto = 3*rtt");
//!   later ones move SRTT by 1/8 of the error and mdev by 1/4, a fall of
//!   the RTT weighing 1/8 as much; `rttvar` follows the largest mdev of
//!   the last round, never below `tcp_rto_min` (`min_rto`), so the RTO,
//!   SRTT plus rttvar, is at least SRTT + 200 ms. Only a sample ends the
//!   backoff (`tcp_ack_update_rtt`: "only reset backoff on valid RTT
//!   measurement"); an ACK without one (a replayed ACK of retransmitted
//!   data, no timestamps: Karn) leaves it. The cap is `max_rto`
//!   (`TCP_RTO_MAX`, 120 s).
//!
//! `min_rtt` (the smallest per-ACK sample) is kept by all: delay-based
//! controllers (Vegas, FAST) and BA-TCP read it, and ns-2 gives those their
//! own fine-grained timing.
pub use crate::scenario::kinds::RttEstimatorKind;
use crate::sim::math;
use crate::sim::time::to_secs;
use crate::sim::Time;

/// Fraction bits of ns-2's `t_srtt_` (`T_SRTT_BITS`) and `t_rttvar_`
/// (`T_RTTVAR_BITS`), and the RTTVAR multiplier exponent (`rttvar_exp_`).
const T_SRTT_BITS: u32 = 3;
const T_RTTVAR_BITS: u32 = 2;
const RTTVAR_EXP: u32 = 2;

/// ns-2's estimator state, in its own units (ticks, fixed point).
#[derive(Clone, Debug)]
struct Ns2 {
    tick: f64,
    /// `boot_time_`: where in a tick the agent came up, uniform on [0, tick).
    boot_time: f64,
    /// `boot_time` is the scenario's (`ns2_boot_time_s`), not drawn: the
    /// draws of ns-2's boot round leave it alone.
    boot_given: bool,
    /// 8·SRTT in ticks; 0 means no estimate (the next sample starts one).
    t_srtt: i32,
    /// 4·RTTVAR in ticks.
    t_rttvar: i32,
    /// `t_rtxcur_`: the RTO before backoff and clamping, in seconds.
    t_rtxcur: f64,
}

impl Ns2 {
    /// `rtt_update(tao)` without timestamps.
    fn update(&mut self, now: f64, tao: f64) {
        let sendtime = now - tao + self.boot_time;
        let tickoff = sendtime.rem_euclid(self.tick);
        let t_rtt = (((tao + tickoff) / self.tick) as i32).max(1);
        if self.t_srtt != 0 {
            // ns-2 holds delta in a `short`
            let mut delta = (t_rtt - (self.t_srtt >> T_SRTT_BITS)) as i16 as i32;
            self.t_srtt += delta;
            if self.t_srtt <= 0 {
                self.t_srtt = 1;
            }
            delta = delta.abs() - (self.t_rttvar >> T_RTTVAR_BITS);
            self.t_rttvar += delta;
            if self.t_rttvar <= 0 {
                self.t_rttvar = 1;
            }
        } else {
            self.t_srtt = t_rtt << T_SRTT_BITS;
            self.t_rttvar = t_rtt << (T_RTTVAR_BITS - 1);
        }
        let ticks = ((self.t_rttvar << (RTTVAR_EXP + (T_SRTT_BITS - T_RTTVAR_BITS))) + self.t_srtt) >> T_SRTT_BITS;
        self.t_rtxcur = ticks as f64 * self.tick;
    }
}

/// The RTO's settings (seconds): a flow group's, kept once in its shared
/// parameters and handed to [`RttEstimator::rto`], not copied into each
/// flow's estimator (32 bytes a flow).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RtoLimits {
    /// Lower bound on the RTO before backoff (RFC 6298 §2.4).
    pub min_rto: f64,
    /// Upper bound on the backed-off RTO (RFC 6298 §2.5).
    pub max_rto: f64,
    /// The RTO before the first sample (RFC 6298 §2.1).
    pub init_rto: f64,
    /// The clock granularity G (RFC 6298 §2.2; ns-2's `tcpTick_`).
    pub granularity: f64,
}

#[derive(Clone, Debug)]
pub struct RttEstimator {
    /// SRTT, NaN before the first sample ([`RttEstimator::srtt`]): 8
    /// bytes, not an `Option`'s 16 (a sample is never NaN).
    srtt: f64,
    pub rttvar: f64,
    /// The smallest sample, NaN before the first
    /// ([`RttEstimator::min_rtt`]).
    min_rtt: f64,
    /// Doublings of the RTO in force (ns-2's `t_backoff_` is 2^backoff).
    pub backoff: u32,
    /// ns-2's timing: the `ns2` estimator, and `rfc6298` with
    /// `ns2_timed_backoff`; then the backoff ends only when the timed
    /// segment is acknowledged. Boxed, as the rfc personality has none: 64
    /// bytes less per flow.
    timing: Option<Box<Timing>>,
}

/// `usecs_to_jiffies`: `s` seconds rounded up to a whole jiffy of `g`
/// seconds (exact when `g` is 0).
pub fn jiffies_ceil(s: f64, g: f64) -> f64 {
    if g > 0.0 {
        (s / g - 1e-9).ceil().max(0.0) * g
    } else {
        s
    }
}

/// Linux's estimator state (`tcp_sock`), in microseconds.
#[derive(Clone, Debug, Default)]
struct Linux {
    /// `srtt_us`: 8·SRTT (0: no sample yet).
    srtt8: i64,
    /// `mdev_us`: 4·mdev.
    mdev4: i64,
    /// `mdev_max_us`: the largest `mdev4` of the current round.
    mdev_max: i64,
    /// `rttvar_us`: what the RTO adds to SRTT.
    rttvar: i64,
    /// `rtt_seq`: the round ends when una passes it.
    rtt_seq: u64,
    /// One past the highest segment sent (`snd_nxt`).
    snd_nxt: u64,
}

impl Linux {
    /// `tcp_rtt_estimator(sk, m)` then `tcp_set_rto`'s inputs; `una`
    /// after the ACK, `rto_min` in microseconds.
    fn sample(&mut self, m: i64, una: u64, rto_min: i64) {
        let mut m = m.max(1);
        if self.srtt8 != 0 {
            m -= self.srtt8 >> 3;
            self.srtt8 += m;
            if m < 0 {
                m = -m - (self.mdev4 >> 2);
                if m > 0 {
                    m >>= 3;
                }
            } else {
                m -= self.mdev4 >> 2;
            }
            self.mdev4 += m;
            if self.mdev4 > self.mdev_max {
                self.mdev_max = self.mdev4;
                if self.mdev_max > self.rttvar {
                    self.rttvar = self.mdev_max;
                }
            }
            if una > self.rtt_seq {
                if self.mdev_max < self.rttvar {
                    self.rttvar -= (self.rttvar - self.mdev_max) >> 2;
                }
                self.rtt_seq = self.snd_nxt;
                self.mdev_max = rto_min;
            }
        } else {
            self.srtt8 = m << 3;
            self.mdev4 = m << 1;
            self.rttvar = self.mdev4.max(rto_min);
            self.mdev_max = self.rttvar;
            self.rtt_seq = self.snd_nxt;
        }
        self.srtt8 = self.srtt8.max(1);
    }

    /// `tcp_set_rto`: (srtt >> 3) + rttvar, in seconds.
    fn rto(&self) -> f64 {
        ((self.srtt8 >> 3) + self.rttvar) as f64 * 1e-6
    }
}

/// ns-2's timed segment, and its estimator with `rtt_estimator = "ns2"`;
/// or Linux's estimator.
#[derive(Clone, Debug, Default)]
struct Timing {
    ns2: Option<Ns2>,
    linux: Option<Linux>,
    /// The timed segment and when it was sent (`rtt_seq_`, `rtt_ts_`).
    timed: Option<(u64, f64)>,
}

impl Default for RttEstimator {
    fn default() -> Self {
        RttEstimator { srtt: f64::NAN, rttvar: 0.0, min_rtt: f64::NAN, backoff: 0, timing: None }
    }
}

/// `x`, or `None` for NaN (no sample yet).
#[inline]
fn sampled(x: f64) -> Option<f64> {
    (!x.is_nan()).then_some(x)
}

impl RttEstimator {
    /// The RFC 6298 estimator.
    pub fn new() -> Self {
        Self::default()
    }

    /// SRTT in seconds, once there is a sample.
    #[inline]
    pub fn srtt(&self) -> Option<f64> {
        sampled(self.srtt)
    }

    /// The smallest sample in seconds, once there is one.
    #[inline]
    pub fn min_rtt(&self) -> Option<f64> {
        sampled(self.min_rtt)
    }

    /// Keep `r` as the smallest sample if it is.
    #[inline]
    fn note_min(&mut self, r: f64) {
        // `f64::min` ignores the NaN of "none yet".
        self.min_rtt = self.min_rtt.min(r);
    }

    /// The RFC 6298 estimator whose backoff ends only when ns-2's timed
    /// segment is acknowledged (`ns2_timed_backoff`).
    pub fn with_timed_backoff(mut self, on: bool) -> Self {
        if on && self.timing.is_none() {
            self.timing = Some(Box::default());
        }
        self
    }

    /// ns-2's estimator with tick `lim.granularity` (`tcpTick_`, > 0) and
    /// `boot_time` in [0, granularity).
    pub fn ns2(lim: &RtoLimits, boot_time: f64) -> Self {
        let ns2 =
            Ns2 { tick: lim.granularity, boot_time, boot_given: false, t_srtt: 0, t_rttvar: 0, t_rtxcur: lim.init_rto };
        let timing = Some(Box::new(Timing { ns2: Some(ns2), linux: None, timed: None }));
        RttEstimator { timing, ..Self::new() }
    }

    /// Linux's estimator (`rtt_estimator = "linux"`).
    pub fn linux() -> Self {
        let timing = Some(Box::new(Timing { linux: Some(Linux::default()), ..Timing::default() }));
        RttEstimator { timing, ..Self::new() }
    }

    /// Linux's estimator: a sample of `r` seconds from a segment never
    /// retransmitted, by an ACK that moved una to `una` (`rto_min`: the
    /// flow's `min_rto`). SRTT and RTTVAR are read back in seconds; the
    /// sample ends the backoff.
    fn linux_sample(&mut self, r: f64, una: u64, rto_min: f64) -> bool {
        let Some(l) = self.timing.as_deref_mut().and_then(|t| t.linux.as_mut()) else { return false };
        let us = |s: f64| (s * 1e6).round() as i64;
        l.sample(us(r), una, us(rto_min));
        self.srtt = (l.srtt8 >> 3) as f64 * 1e-6;
        self.rttvar = l.rttvar as f64 * 1e-6 / 4.0;
        self.backoff = 0;
        self.note_min(r);
        true
    }

    /// Whether this is Linux's estimator.
    pub fn is_linux(&self) -> bool {
        self.timing.as_ref().is_some_and(|t| t.linux.is_some())
    }

    /// Linux's estimator: a sample `r` (seconds) or none (`None`: only
    /// retransmitted data acknowledged, Karn), una now `una`.
    pub fn on_linux_ack(&mut self, r: Option<f64>, una: u64, rto_min: f64) {
        if let Some(r) = r {
            self.linux_sample(r, una, rto_min);
        }
    }

    /// ns-2's estimator: set `boot_time_` (before the first sample),
    /// `given` by the scenario or drawn.
    pub fn set_boot_time(&mut self, boot_time: f64, given: bool) {
        if let Some(n) = self.timing.as_mut().and_then(|t| t.ns2.as_mut()) {
            n.boot_time = boot_time;
            n.boot_given = given;
        }
    }

    /// ns-2's `boot_time_` (`None` for the RFC 6298 estimator).
    pub fn boot_time(&self) -> Option<f64> {
        self.timing.as_ref().and_then(|t| t.ns2.as_ref()).map(|n| n.boot_time)
    }

    /// ns-2's estimator whose `boot_time_` the scenario did not give: take
    /// `u` ticks (`u` in [0, 1), a draw of ns-2's boot round) instead.
    pub fn draw_boot_time(&mut self, u: f64) {
        if let Some(n) = self.timing.as_mut().and_then(|t| t.ns2.as_mut()).filter(|n| !n.boot_given) {
            n.boot_time = u * n.tick;
        }
    }

    /// Feed one RTT sample `r` (seconds) to the RFC 6298 estimator.
    pub fn sample(&mut self, r: f64) {
        match self.srtt() {
            None => {
                self.srtt = r;
                self.rttvar = r / 2.0;
            }
            Some(srtt) => {
                // RTTVAR first, with the old SRTT (RFC 6298 §2.3).
                self.rttvar = 0.75 * self.rttvar + 0.25 * (srtt - r).abs();
                self.srtt = 0.875 * srtt + 0.125 * r;
            }
        }
        self.note_min(r);
    }

    /// A segment left; `new_data`: beyond everything sent before (ns-2
    /// `output`: `seqno > maxseq_`), the only kind ns-2 times.
    pub fn on_send(&mut self, seq: u64, new_data: bool, now: f64) {
        let Some(t) = self.timing.as_mut() else { return };
        if let Some(l) = t.linux.as_mut() {
            l.snd_nxt = l.snd_nxt.max(seq + 1);
            return;
        }
        if new_data && t.timed.is_none() {
            t.timed = Some((seq, now));
        }
    }

    /// An ACK of new data up to `ack` (exclusive), whose echoed timestamp
    /// gives sample `r`. `partial`: a partial ACK in NewReno/SACK recovery,
    /// which ns-2 does not time (`partialnewack` ends the timing and the
    /// backoff without a sample). `now` stays in picoseconds until ns-2's
    /// estimator needs it: RFC 6298's (every ACK) does not.
    pub fn on_new_ack(&mut self, ack: u64, r: f64, partial: bool, now: Time) {
        let Some(t) = self.timing.as_deref_mut() else {
            self.backoff = 0;
            self.sample(r);
            return;
        };
        let covered = t.timed.filter(|&(s, _)| ack > s);
        if covered.is_some() {
            t.timed = None;
        }
        if covered.is_some() || partial {
            self.backoff = 0;
        }
        let Some(n) = t.ns2.as_mut() else {
            self.sample(r);
            return;
        };
        // (`note_min`, with `t` borrowed)
        self.min_rtt = self.min_rtt.min(r);
        if let (Some((_, sent)), false) = (covered, partial) {
            let now = to_secs(now);
            n.update(now, now - sent);
            let tick = n.tick;
            self.srtt = (n.t_srtt >> T_SRTT_BITS) as f64 * tick;
            self.rttvar = (n.t_rttvar >> T_RTTVAR_BITS) as f64 * tick;
        }
    }

    /// Clear the backoff (RFC 6298 §5.7; E-TCP's signalling timer).
    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
    }

    /// A fast retransmission (ns-2 `reset_rtx_timer(1, 0)`): stop timing.
    pub fn on_fast_retransmit(&mut self) {
        self.forget_timed();
    }

    /// The RTO before backoff, within `lim`.
    pub fn base_rto(&self, lim: &RtoLimits) -> f64 {
        if let Some(t) = self.timing.as_deref() {
            if let Some(n) = t.ns2.as_ref() {
                return n.t_rtxcur.max(lim.min_rto).min(lim.max_rto).max(2.0 * n.tick);
            }
            if let Some(l) = t.linux.as_ref() {
                // `tcp_set_rto` (in jiffies, `usecs_to_jiffies` rounds up:
                // `granularity`, exact when 0) then `tcp_bound_rto`: the
                // floor is in rttvar.
                if l.srtt8 == 0 {
                    return lim.init_rto;
                }
                return jiffies_ceil(l.rto(), lim.granularity).min(lim.max_rto);
            }
        }
        let raw = match self.srtt() {
            None => lim.init_rto,
            Some(s) => s + lim.granularity.max(4.0 * self.rttvar),
        };
        raw.max(lim.min_rto).min(lim.max_rto)
    }

    /// The RTO in force: base doubled per backoff step, capped.
    pub fn rto(&self, lim: &RtoLimits) -> f64 {
        let base = self.base_rto(lim);
        if self.backoff == 0 {
            // (the same value: base · 2^0 is base; this is every ACK's case)
            return base.min(lim.max_rto);
        }
        (base * math::powi(2.0, self.backoff.min(30) as i32)).min(lim.max_rto)
    }

    /// The retransmission timer expired (ns-2 `reset_rtx_timer(0, 1)`).
    pub fn on_timeout(&mut self) {
        self.forget_timed();
        self.back_off();
    }

    /// ns-2 `reset_rtx_timer` (`rtt_active_ = 0`): the timed segment no
    /// longer gives a sample.
    pub fn forget_timed(&mut self) {
        if let Some(t) = self.timing.as_mut() {
            t.timed = None;
        }
    }

    /// Double the RTO (ns-2 `rtt_backoff`, also called by `TcpAgent::ecn`
    /// at a one-segment window).
    pub fn back_off(&mut self) {
        self.backoff += 1;
        if let Some(n) = self.timing.as_mut().and_then(|t| t.ns2.as_mut()) {
            // rtt_backoff: past t_backoff_ 8, clobber SRTT into RTTVAR.
            if self.backoff > 3 {
                n.t_rttvar += n.t_srtt >> T_SRTT_BITS;
                n.t_srtt = 0;
            }
        }
    }
}

/// The RTO's bounds, the clock granularity and ns-2's tick phase.
pub(in crate::transport::tcp) fn validate(
    cfg: &crate::transport::tcp::TcpParams,
    f: &crate::scenario::FlowSpec,
    p: crate::transport::tcp::check::Path,
) -> crate::transport::tcp::check::Checked {
    use crate::transport::tcp::check::*;
    positive(&p("min_rto_s"), cfg.rto.min_rto)?;
    at_least(&p("max_rto_s"), cfg.rto.max_rto, cfg.rto.min_rto)?;
    positive(&p("init_rto_s"), cfg.rto.init_rto)?;
    non_negative(&p("clock_granularity_s"), cfg.rto.granularity)?;
    if cfg.rtt_estimator == RttEstimatorKind::Ns2 && cfg.rto.granularity <= 0.0 {
        return Err(ConfigError::new(
            p("clock_granularity_s"),
            "0 is not allowed with rtt_estimator = \"ns2\" (its tick); must be > 0",
        ));
    }
    if let Some(b) = f.ns2_boot_time_s {
        if cfg.rtt_estimator != RttEstimatorKind::Ns2 {
            return Err(ConfigError::new(
                p("ns2_boot_time_s"),
                "needs rtt_estimator = \"ns2\" (it is that estimator's tick phase)",
            ));
        }
        if !(b.is_finite() && b >= 0.0 && b < cfg.rto.granularity) {
            return Err(ConfigError::new(
                p("ns2_boot_time_s"),
                format!("{b} is out of range; allowed: 0 <= value < clock_granularity_s ({})", cfg.rto.granularity),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::from_secs;
    #[test]
    fn rfc6298_first_and_later_samples() {
        let lim = RtoLimits { min_rto: 0.0, max_rto: 60.0, init_rto: 1.0, granularity: 0.0 };
        let mut e = RttEstimator::new();
        assert_eq!(e.rto(&lim), 1.0);
        e.sample(0.1);
        assert_eq!(e.srtt(), Some(0.1));
        assert!((e.rttvar - 0.05).abs() < 1e-12);
        assert!((e.rto(&lim) - 0.3).abs() < 1e-12);
        e.sample(0.2);
        // RTTVAR = 0.75*0.05 + 0.25*|0.1-0.2| = 0.0625, SRTT = 0.1125
        assert!((e.rttvar - 0.0625).abs() < 1e-12);
        assert!((e.srtt().unwrap() - 0.1125).abs() < 1e-12);
    }
    #[test]
    fn backoff_doubles_and_caps() {
        let lim = RtoLimits { min_rto: 0.2, max_rto: 3.0, init_rto: 1.0, granularity: 0.0 };
        let mut e = RttEstimator::new();
        e.sample(0.01);
        assert!((e.rto(&lim) - 0.2).abs() < 1e-12);
        e.on_timeout();
        assert!((e.rto(&lim) - 0.4).abs() < 1e-12);
        e.on_timeout();
        e.on_timeout();
        e.on_timeout();
        assert_eq!(e.rto(&lim), 3.0);
        e.on_new_ack(1, 0.01, false, from_secs(1.0));
        assert!((e.rto(&lim) - 0.2).abs() < 1e-12);
    }

    /// ns-2's arithmetic worked by hand (tcp.cc `rtt_update`, tick 0.01 s,
    /// boot time 0): a 0.105 s sample sent on a tick boundary is 10 ticks;
    /// t_srtt = 80, t_rttvar = 20 (RTTVAR 5 ticks), RTO = (80 + 20·8) >> 3
    /// = 30 ticks = 0.3 s. A second sample of 0.2 s (20 ticks): delta 10,
    /// t_srtt 90; |delta| − (20 >> 2) = 5, t_rttvar 25; RTO (90 + 200) >> 3
    /// = 36 ticks.
    #[test]
    fn ns2_fixed_point_update_matches_hand_computation() {
        let lim = RtoLimits { min_rto: 0.2, max_rto: 60.0, init_rto: 3.0, granularity: 0.01 };
        let mut e = RttEstimator::ns2(&lim, 0.0);
        assert_eq!(e.rto(&lim), 3.0, "rtxcur_init_ before any sample");
        e.on_send(0, true, 1.0005);
        e.on_send(1, true, 1.001); // not timed: one at a time
        e.on_new_ack(1, 0.105, false, from_secs(1.1055));
        assert!((e.rto(&lim) - 0.30).abs() < 1e-12, "rto {}", e.rto(&lim));
        assert!((e.srtt().unwrap() - 0.10).abs() < 1e-12);
        // segment 1 was never timed: its ACK gives no sample
        e.on_new_ack(2, 0.5, false, from_secs(1.5));
        assert!((e.rto(&lim) - 0.30).abs() < 1e-12);
        e.on_send(2, true, 2.0005);
        e.on_new_ack(3, 0.2, false, from_secs(2.2005));
        assert!((e.rto(&lim) - 0.36).abs() < 1e-12, "rto {}", e.rto(&lim));
    }

    /// The sample counts the ticks from the tick boundary before the send:
    /// 0.095 s sent 0.0062 s into a tick is ⌊(0.095 + 0.0062)/0.01⌋ = 10,
    /// sent 0.0002 s into one ⌊9.52⌋ = 9.
    #[test]
    fn ns2_sample_is_quantised_from_the_tick_boundary() {
        for (sent_at, ticks) in [(1.0002, 9), (1.0062, 10)] {
            let lim = RtoLimits { min_rto: 0.0, max_rto: 60.0, init_rto: 3.0, granularity: 0.01 };
            let mut e = RttEstimator::ns2(&lim, 0.0);
            e.on_send(0, true, sent_at);
            e.on_new_ack(1, 0.095, false, from_secs(sent_at + 0.095));
            assert!((e.srtt().unwrap() - ticks as f64 * 0.01).abs() < 1e-9, "sent at {sent_at}");
        }
    }

    /// Karn: a timeout stops the timing, and the backoff survives ACKs
    /// until a segment sent afterwards is timed and acknowledged.
    #[test]
    fn ns2_backoff_clears_only_on_the_timed_segment() {
        let lim = RtoLimits { min_rto: 0.2, max_rto: 60.0, init_rto: 3.0, granularity: 0.01 };
        let mut e = RttEstimator::ns2(&lim, 0.0);
        e.on_send(0, true, 0.0);
        e.on_new_ack(1, 0.1, false, from_secs(0.1));
        let base = e.rto(&lim);
        e.on_send(1, true, 0.2);
        e.on_timeout();
        assert_eq!(e.rto(&lim), 2.0 * base);
        e.on_new_ack(2, 0.3, false, from_secs(1.0)); // the retransmission's ACK: untimed
        assert_eq!(e.rto(&lim), 2.0 * base, "backoff kept");
        e.on_send(2, true, 1.0);
        e.on_new_ack(3, 0.1, false, from_secs(1.1));
        assert_eq!(e.backoff, 0);
    }

    /// ns-2 with timestamps (`ns2_timed_backoff`): every ACK is a sample,
    /// but after a timeout the backoff survives the retransmissions' ACKs
    /// and ends with the ACK of the first segment sent beyond them.
    #[test]
    fn timed_backoff_ends_with_the_timed_segment_only() {
        for (on, kept) in [(false, false), (true, true)] {
            let mut e = RttEstimator::new().with_timed_backoff(on);
            e.on_send(0, true, 0.0);
            e.on_new_ack(1, 0.1, false, from_secs(0.1));
            e.on_send(1, true, 0.1);
            e.on_send(2, true, 0.1);
            e.on_timeout();
            e.on_send(1, false, 0.5); // the retransmission: not timed (Karn)
            e.on_new_ack(2, 0.1, false, from_secs(0.6));
            assert_eq!(e.backoff == 1, kept, "on {on}: backoff {}", e.backoff);
            e.on_send(3, true, 0.6);
            e.on_new_ack(3, 0.1, false, from_secs(0.7)); // segment 2: not the timed one
            assert_eq!(e.backoff == 1, kept, "on {on}");
            e.on_new_ack(4, 0.1, false, from_secs(0.7)); // covers segment 3, timed after the timeout
            assert_eq!(e.backoff, 0, "on {on}");
        }
    }

    #[test]
    fn ns2_rto_respects_min_rto() {
        let lim = RtoLimits { min_rto: 0.0, max_rto: 60.0, init_rto: 3.0, granularity: 0.01 };
        let mut e = RttEstimator::ns2(&lim, 0.0);
        e.on_send(0, true, 0.0);
        e.on_new_ack(1, 0.001, false, from_secs(0.001));
        // 1 tick (the minimum sample): t_srtt 8, t_rttvar 2, (16 + 8) >> 3
        // = 3 ticks
        assert!((e.rto(&lim) - 0.03).abs() < 1e-12);
        let lim = RtoLimits { min_rto: 0.2, max_rto: 60.0, init_rto: 3.0, granularity: 0.01 };
        let mut e = RttEstimator::ns2(&lim, 0.0);
        e.on_send(0, true, 0.0);
        e.on_new_ack(1, 0.001, false, from_secs(0.001));
        assert!((e.rto(&lim) - 0.2).abs() < 1e-12);
    }
}
