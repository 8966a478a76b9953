//! CUBIC as Linux 6.x runs it (`net/ipv4/tcp_cubic.c`, `cc = "cubic"` with
//! `variant = "linux"`, the `linux` personality's default).
//!
//! Why a second CUBIC: RFC 9438's curve in real numbers (`cubic.rs`) and
//! the kernel's integer version grow the window at visibly different
//! moments in small windows, and the kernel's is what testbeds measure.
//! The kernel's differences, each followed here:
//!
//! - The window is an integer and grows by whole segments: `bictcp_update`
//!   computes `cnt`, the segments to be acked per increment, and
//!   `tcp_cong_avoid_ai` counts acked segments in `snd_cwnd_cnt` (owned here,
//!   zeroed where `tcp_init_cwnd_reduction` and `tcp_enter_loss` zero it:
//!   at every congestion event).
//! - Time is in jiffies (`hz`, CONFIG_HZ): `cnt` is recomputed at most
//!   once per jiffy, and not at all while cwnd is unchanged for `hz/32`
//!   jiffies; the curve is read at t + `delay_min` (the smallest RTT
//!   sample, rounded up to jiffies), in 1/1024 s, with K from the kernel's
//!   table-and-one-Newton-step cube root (`cubic_root`, 0.2% error) and C
//!   = `bic_scale`·10/1024 (`bic_scale = round(c·1024/10)`: 41 for 0.4).
//! - β is `beta`/1024 (717, from `round(beta·1024)`); ssthresh =
//!   max(cwnd·β, 2) from cwnd, not from the data in flight
//!   (`cubictcp_recalc_ssthresh`), and W_max with fast convergence
//!   cwnd·(1024+β)/2048.
//! - The Reno-friendly estimate `tcp_cwnd` grows by one per
//!   cwnd·`beta_scale`/8 segments acked, `beta_scale` =
//!   8(1024+β)/3/(1024−β) in integers (15 for 717), and caps `cnt` at
//!   cwnd/(tcp_cwnd − cwnd).
//! - Before the first congestion event `cnt` ≤ `cnt_clamp` (20: 5% per
//!   RTT); `cnt` ≥ 2 always (at most 1.5× per RTT).
//! - An RTO resets everything (`cubictcp_state` at `TCP_CA_Loss`): the
//!   clamp is re-armed and delay_min forgotten.
//! - RTT samples within `hystart_discard_s` (1 s, `HZ` jiffies) of a stage's
//!   start are ignored, for delay_min and HyStart (`cubictcp_acked`).
//! - Slow start is `tcp_slow_start`: cwnd grows by the segments acked up
//!   to ssthresh and the rest goes to congestion avoidance.
//!
//! Not modelled: the epoch's shift over idle time (`cubictcp_cwnd_event`
//! at `CA_EVENT_TX_START`), which needs the time of the last send.
use super::cubic::{CubicConfig, Variant};
use super::hystart::Hystart;
use super::linux_ai::SndCwndCnt;
use super::{share, AckInfo, CcEvent, CcState, CongestionControl, SharedConfig};
use crate::sim::time::PS_PER_S;
use crate::sim::Time;
use std::sync::Arc;

/// `BICTCP_HZ`: the curve's time unit is 1/2^10 s.
const BICTCP_HZ: u32 = 10;
/// `BICTCP_BETA_SCALE`.
const BETA_SCALE: u32 = 1024;

/// One flow's kernel CUBIC (`struct bictcp` and `snd_cwnd_cnt`).
pub struct LinuxCubic {
    cfg: Arc<CubicConfig>,
    /// Segments acked per increment of cwnd (`cnt`).
    cnt: u32,
    last_max_cwnd: u32,
    last_cwnd: u32,
    last_time: u32,
    origin_point: u32,
    /// K in 1/1024 s (`bic_K`).
    k: u32,
    /// Smallest RTT sample, µs (0: none yet).
    delay_min: u32,
    /// The stage's start in jiffies (`epoch_start`; `None`: no stage).
    epoch_start: Option<u32>,
    ack_cnt: u32,
    tcp_cwnd: u32,
    /// `tp->snd_cwnd_cnt`, the acked segments toward the next increment.
    cwnd_cnt: SndCwndCnt,
    hystart: Option<Box<Hystart>>,
}

/// The cube root as `tcp_cubic.c`'s `cubic_root`: a table of cbrt of the
/// top 6 bits, then one Newton-Raphson step (average error 0.195%). The
/// table holds cbrt(x·2^18) − 1 for x in 0..64, so that cbrt(x) =
/// (v[x] + 10) >> 6.
pub fn cubic_root(a: u64) -> u32 {
    const V: [u8; 64] = [
        0, 54, 54, 54, 118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156, 157, 161, 164, 168, 170, 173, 176,
        179, 181, 185, 187, 190, 192, 194, 197, 199, 200, 202, 204, 206, 209, 211, 213, 215, 217, 219, 221, 222, 224,
        225, 227, 229, 231, 232, 234, 236, 237, 239, 240, 242, 244, 245, 246, 248, 250, 251, 252, 254,
    ];
    let bits = 64 - a.leading_zeros();
    if bits < 7 {
        return (V[a as usize] as u32 + 35) >> 6;
    }
    let b = ((bits * 84) >> 8) - 1;
    let top = (a >> (b * 3)) as usize;
    let x = ((V[top] as u32 + 10) << b) >> 6;
    let x = 2 * x as u64 + a / (x as u64 * (x as u64 - 1));
    ((x as u32).wrapping_mul(341)) >> 10
}

/// `tcp_jiffies32` at `now` with `hz` ticks per second, counted from the
/// run's start.
fn jiffies(now: Time, hz: u32) -> u32 {
    (now as u128 * hz as u128 / PS_PER_S as u128) as u32
}

impl LinuxCubic {
    pub fn new(cfg: Arc<CubicConfig>) -> Self {
        debug_assert_eq!(cfg.variant, Variant::Linux);
        let hystart = cfg.hystart.then(Box::default);
        LinuxCubic {
            cfg,
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            origin_point: 0,
            k: 0,
            delay_min: 0,
            epoch_start: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            cwnd_cnt: SndCwndCnt::default(),
            hystart,
        }
    }

    /// β·1024 (`beta`).
    fn beta(&self) -> u32 {
        (self.cfg.beta * BETA_SCALE as f64).round() as u32
    }

    /// `bic_scale`: C·1024/10.
    fn bic_scale(&self) -> u64 {
        (self.cfg.c * BETA_SCALE as f64 / 10.0).round().max(1.0) as u64
    }

    /// Segments acked per increment, as last computed (`ca->cnt`).
    pub fn cnt(&self) -> u32 {
        self.cnt
    }

    /// W_max (`last_max_cwnd`; 0 before the first congestion event and
    /// after an RTO).
    pub fn last_max_cwnd(&self) -> u32 {
        self.last_max_cwnd
    }

    /// K in seconds.
    pub fn k_s(&self) -> f64 {
        self.k as f64 / (1u32 << BICTCP_HZ) as f64
    }

    /// HyStart's state, with `hystart`.
    pub fn hystart(&self) -> Option<&Hystart> {
        self.hystart.as_deref()
    }

    /// `bictcp_update`: the new `cnt` for window `cwnd` after `acked`
    /// segments at jiffy `now`.
    fn update(&mut self, cwnd: u32, acked: u32, now: u32) {
        self.ack_cnt = self.ack_cnt.wrapping_add(acked);
        if self.last_cwnd == cwnd && now.wrapping_sub(self.last_time) as i32 <= (self.cfg.hz / 32) as i32 {
            return;
        }
        // cnt changes at most once per jiffy; every reduction ends the
        // stage, which forces a recomputation.
        if !(self.epoch_start.is_some() && now == self.last_time) {
            self.last_cwnd = cwnd;
            self.last_time = now;
            let start = match self.epoch_start {
                Some(e) => e,
                None => {
                    self.epoch_start = Some(now);
                    self.ack_cnt = acked;
                    self.tcp_cwnd = cwnd;
                    if self.last_max_cwnd <= cwnd {
                        self.k = 0;
                        self.origin_point = cwnd;
                    } else {
                        let cube_factor = (1u64 << (10 + 3 * BICTCP_HZ)) / (self.bic_scale() * 10);
                        self.k = cubic_root(cube_factor.wrapping_mul((self.last_max_cwnd - cwnd) as u64));
                        self.origin_point = self.last_max_cwnd;
                    }
                    now
                }
            };
            let hz = self.cfg.hz as u64;
            // usecs_to_jiffies rounds up
            let dm_j = (self.delay_min as u64 * hz).div_ceil(1_000_000);
            let t = (((now.wrapping_sub(start) as i32) as i64 as u64).wrapping_add(dm_j) << BICTCP_HZ) / hz;
            let k = self.k as u64;
            let offs = k.abs_diff(t);
            let cube_rtt_scale = self.bic_scale() * 10;
            let delta = (cube_rtt_scale.wrapping_mul(offs).wrapping_mul(offs).wrapping_mul(offs)
                >> (10 + 3 * BICTCP_HZ)) as u32;
            let target =
                if t < k { self.origin_point.wrapping_sub(delta) } else { self.origin_point.wrapping_add(delta) };
            self.cnt = if target > cwnd { cwnd / (target - cwnd) } else { 100u32.wrapping_mul(cwnd) };
            let clamp = self.cfg.cnt_clamp as u32;
            if clamp > 0 && self.last_max_cwnd == 0 && self.cnt > clamp {
                self.cnt = clamp;
            }
        }
        if self.cfg.tcp_friendly {
            let b = self.beta();
            let beta_scale = 8 * (BETA_SCALE + b) / 3 / (BETA_SCALE - b);
            let delta = (cwnd.wrapping_mul(beta_scale) >> 3).max(1);
            while self.ack_cnt > delta {
                self.ack_cnt -= delta;
                self.tcp_cwnd += 1;
            }
            if self.tcp_cwnd > cwnd {
                let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
                self.cnt = self.cnt.min(max_cnt);
            }
        }
        self.cnt = self.cnt.max(2);
    }

    /// A congestion event or an RTO zeroes `snd_cwnd_cnt`.
    fn reset_cwnd_cnt(&mut self) {
        self.cwnd_cnt.reset();
    }
}

impl CongestionControl for LinuxCubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    /// `cubictcp_cong_avoid` (the sender calls it only while cwnd-limited).
    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        let Some(acked) = SndCwndCnt::after_slow_start(s, acked) else { return };
        let cwnd = s.cwnd as u32;
        self.update(cwnd, acked, jiffies(s.now, self.cfg.hz));
        self.cwnd_cnt.cong_avoid_ai(s, self.cnt, acked);
    }

    /// `cubictcp_recalc_ssthresh`, with `tcp_init_cwnd_reduction`'s zeroing
    /// of `snd_cwnd_cnt`.
    fn ssthresh(&mut self, s: &CcState) -> f64 {
        let cwnd = s.cwnd as u32;
        let beta = self.beta();
        self.epoch_start = None;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && self.cfg.fast_convergence {
            cwnd * (BETA_SCALE + beta) / (2 * BETA_SCALE)
        } else {
            cwnd
        };
        self.reset_cwnd_cnt();
        (cwnd * beta / BETA_SCALE).max(2) as f64
    }

    fn on_ack(&mut self, _s: &mut CcState, a: AckInfo) {
        if let Some(h) = self.hystart.as_mut() {
            h.on_ack(&a);
        }
    }

    /// `cubictcp_acked`: delay_min and HyStart from the ACK's RTT sample,
    /// except within the discard time of a stage's start.
    fn pkts_acked(&mut self, s: &mut CcState, _acked: u64, rtt_s: Option<f64>) {
        let Some(rtt) = rtt_s else { return };
        let hz = self.cfg.hz;
        let now = jiffies(s.now, hz);
        let discard = (self.cfg.hystart_cfg.discard_s * hz as f64).round() as i32;
        if self.epoch_start.is_some_and(|e| (now.wrapping_sub(e) as i32) < discard) {
            return;
        }
        let delay = ((rtt * 1e6) as u32).max(1);
        if self.delay_min == 0 || self.delay_min > delay {
            self.delay_min = delay;
        }
        if let Some(h) = self.hystart.as_mut() {
            h.on_sample(&self.cfg.hystart_cfg, s, None, Some(rtt));
        }
    }

    fn share_config(&mut self, shared: &mut SharedConfig) {
        share(&mut self.cfg, shared);
    }

    /// `cubictcp_state(TCP_CA_Loss)`: `bictcp_reset` and a new HyStart
    /// round; `tcp_enter_loss` zeroes `snd_cwnd_cnt`.
    fn on_event(&mut self, s: &mut CcState, ev: CcEvent) {
        if ev == CcEvent::Timeout {
            let (cfg, hystart) = (Arc::clone(&self.cfg), self.hystart.take());
            *self = LinuxCubic { hystart, ..LinuxCubic::new(cfg) };
            if let Some(h) = self.hystart.as_mut() {
                h.on_timeout(s);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::from_secs;

    fn linux() -> Arc<CubicConfig> {
        Arc::new(CubicConfig::linux())
    }

    fn st(cwnd: f64, ssthresh: f64) -> CcState {
        CcState { srtt_s: Some(0.1), min_rtt_s: Some(0.1), ..crate::transport::cc::test_state(cwnd, ssthresh) }
    }

    /// The kernel's cube root stays within 1% of the real one and is exact
    /// at the table's small values.
    #[test]
    fn cubic_root_is_close_to_cbrt() {
        assert_eq!(cubic_root(0), 0);
        assert_eq!(cubic_root(1), 1);
        assert_eq!(cubic_root(8), 2);
        assert_eq!(cubic_root(27), 3);
        for a in [100u64, 1_000, 123_456, 1 << 30, 2_681_735_677, 1 << 40, 1 << 50] {
            let want = crate::sim::math::cbrt(a as f64);
            let got = cubic_root(a) as f64;
            assert!((got - want).abs() <= 0.01 * want + 1.0, "cbrt({a}) = {got}, want {want}");
        }
    }

    /// Constants as `cubictcp_register` derives them: β = 717, C's
    /// bic_scale 41, beta_scale 15; ssthresh = cwnd·717/1024 and W_max
    /// with fast convergence, in integers.
    #[test]
    fn ssthresh_and_w_max_in_integers() {
        let mut c = LinuxCubic::new(linux());
        assert_eq!((c.beta(), c.bic_scale()), (717, 41));
        assert_eq!(c.ssthresh(&st(10.0, 1e9)), 7.0);
        assert_eq!(c.last_max_cwnd(), 10);
        assert_eq!(c.ssthresh(&st(2.0, 1e9)), 2.0);
        // below W_max: fast convergence, 2·(1024+717)/2048 = 1
        assert_eq!(c.last_max_cwnd(), 1);
        let mut c = LinuxCubic::new(linux());
        c.ssthresh(&st(100.0, 1e9));
        c.ssthresh(&st(90.0, 1e9));
        assert_eq!(c.last_max_cwnd(), 90 * 1741 / 2048);
    }

    /// Right after slow start (no congestion event yet) cwnd grows by one
    /// per 20 segments acked (the clamp), counted in `snd_cwnd_cnt`.
    #[test]
    fn clamp_grows_one_segment_per_twenty_acked() {
        let mut c = LinuxCubic::new(Arc::new(CubicConfig { hystart: false, ..CubicConfig::linux() }));
        let mut s = st(100.0, 100.0);
        s.now = from_secs(5.0);
        let mut acks = 0;
        while s.cwnd < 101.0 {
            c.cong_avoid(&mut s, 1);
            acks += 1;
            s.now += from_secs(0.001);
        }
        assert_eq!(c.cnt(), 20);
        assert_eq!(acks, 20, "the 20th acked segment completes the credit of 20");
    }

    /// Far from W_max the curve's cnt is cwnd/(target − cwnd); an RTO
    /// resets W_max, so the clamp applies again.
    #[test]
    fn window_follows_the_curve_and_rto_resets() {
        let mut c = LinuxCubic::new(Arc::new(CubicConfig { hystart: false, ..CubicConfig::linux() }));
        let mut s = st(1000.0, 1e9);
        s.ssthresh = c.ssthresh(&s);
        s.cwnd = s.ssthresh;
        assert_eq!(s.cwnd, 700.0);
        s.now = from_secs(10.0);
        c.cong_avoid(&mut s, 1);
        // K = cbrt(300/0.4) s ≈ 9.09 s, within the root's error
        assert!((c.k_s() - crate::sim::math::cbrt(300.0 / (410.0 / 1024.0))).abs() < 0.1, "K {}", c.k_s());
        // an ACK clock of cwnd ACKs per 100 ms for K seconds: cwnd near W_max
        let t_end = 10.0 + c.k_s();
        let mut t = 10.0;
        while t < t_end {
            s.now = from_secs(t);
            c.cong_avoid(&mut s, 1);
            t += 0.1 / s.cwnd;
        }
        assert!((s.cwnd - 1000.0).abs() < 15.0, "cwnd {} at K", s.cwnd);
        assert_eq!(s.cwnd.fract(), 0.0);
        c.on_event(&mut s, CcEvent::Timeout);
        assert_eq!(c.last_max_cwnd(), 0);
    }
}
