//! FAST TCP (Jin, Wei, Low, INFOCOM 2004; Wei et al., IEEE/ACM ToN 14(6), 2006),
//! with the start-up and loss handling of the CUBINlab ns-2 module (v1.1.3)
//! the E-TCP paper used.
//!
//! Why: FAST is delay-based, so it can hold a large window steady without
//! needing losses as a signal. Each flow aims to keep α of its own packets
//! queued at the bottleneck; at equilibrium `w·(RTT − baseRTT)/RTT = α`, i.e.
//! rate `w/RTT = α/q` for queueing delay q, so flows with equal α share
//! equally whatever their RTT. The window is set periodically by
//!
//! `w ← min(2w, (1−γ)·w + γ·(baseRTT/RTT·w + α))`
//!
//! where baseRTT is the minimum RTT seen (propagation estimate) and RTT the
//! average RTT over the last update interval (RTT samples from `pkts_acked`).
//! The 2w cap bounds growth to doubling per update; γ ∈ (0, 1] is the step.
//!
//! - Update period: `update_interval_s`, or one smoothed RTT when 0 (the
//!   default; 10 ms until the first RTT sample). ns-2 uses ≥ 10 ms and only on
//!   every other RTT, and paces each increase over the next period; here the
//!   window moves at the tick. An interval without RTT samples leaves cwnd.
//! - w in the update is the current cwnd (the paper's w(t)); the ns-2 module
//!   uses the window at the time the acknowledged packet was sent.
//! - Multiplicative increase (ns-2 `mi_threshold_`, default 0.75 ms): while
//!   the queueing delay estimate (mean RTT of the current interval, else of
//!   the last, minus baseRTT) is below `mi_threshold_s`, or before any RTT
//!   sample, cwnd += 1 per ACK (per segment with `abc`) and the periodic
//!   update is skipped. This is FAST's start-up (ns-2 `fast_cc`). 0 disables it,
//!   leaving only the update (≤ 2× per interval). ssthresh is not consulted.
//! - Loss: ssthresh = cwnd/2 (floor 2), as ns-2's `slowdown(CLOSE_SSTHRESH_HALF |
//!   CLOSE_CWND_HALF)`; no updates during fast recovery; after an RTO the
//!   updates (and MI) resume with the new ACKs.
//! - α: 200 packets by default. ns-2's default is 100; the E-TCP paper's
//!   gigabit runs set α = 1000 (so α/C is at least 5× mi_threshold). α·N must
//!   fit in the buffer, or FAST falls back to loss-driven halving.
use super::{abc_param, CcEvent, CcState, CongestionControl, ControllerDoc, ParamDoc};
use crate::scenario::{params::Params, ConfigError};

/// FAST's parameters (`cc_params`); `Default` is the one place the defaults
/// are written.
#[derive(Clone, Debug, PartialEq)]
pub struct FastConfig {
    /// α, packets of the flow's own to keep queued: 200 (ns-2's default is
    /// 100; the E-TCP paper's gigabit runs use 1000).
    pub alpha: f64,
    /// γ ∈ (0, 1], the step of the window update (Jin, Wei, Low: 0.5, as the
    /// ns-2 module).
    pub gamma: f64,
    /// Seconds between window updates; 0 = one smoothed RTT (10 ms until the
    /// first sample).
    pub update_interval_s: f64,
    /// Queueing delay below which cwnd grows +1 per ACK (ns-2 `mi_threshold_`,
    /// 0.75 ms); 0 = off.
    pub mi_threshold_s: f64,
    /// Count segments acked instead of ACKs during MI (ns-2 counts ACKs, default).
    pub abc: bool,
}

impl Default for FastConfig {
    /// α = 200, γ = 0.5, one update per RTT, the ns-2 module's MI threshold.
    fn default() -> Self {
        FastConfig { alpha: 200.0, gamma: 0.5, update_interval_s: 0.0, mi_threshold_s: 0.00075, abc: false }
    }
}

pub struct Fast {
    cfg: FastConfig,
    base_rtt: f64,
    sum: f64,
    count: u64,
    avg_rtt: Option<f64>,
    in_recovery: bool,
}

impl Fast {
    pub fn new(cfg: FastConfig) -> Self {
        Fast { cfg, base_rtt: f64::INFINITY, sum: 0.0, count: 0, avg_rtt: None, in_recovery: false }
    }

    pub fn doc() -> ControllerDoc {
        let d = FastConfig::default();
        ControllerDoc {
            name: "fast",
            doc: "FAST TCP (Jin, Wei, Low 2004): periodic w ← min(2w, (1−γ)w + γ(baseRTT/RTT·w + α)); halve on loss",
            params: vec![
                ParamDoc {
                    name: "alpha",
                    default: d.alpha.into(),
                    doc: "packets to keep queued (ns-2 default 100; E-TCP gigabit runs 1000)",
                },
                ParamDoc { name: "gamma", default: d.gamma.into(), doc: "step size in (0, 1]" },
                ParamDoc {
                    name: "update_interval_s",
                    default: d.update_interval_s.into(),
                    doc: "seconds between window updates; 0 = one smoothed RTT",
                },
                ParamDoc {
                    name: "mi_threshold_s",
                    default: d.mi_threshold_s.into(),
                    doc: "queueing delay below which cwnd grows +1 per ACK (ns-2); 0 = off",
                },
                abc_param(d.abc),
            ],
        }
    }

    pub fn from_params(p: &serde_json::Map<String, serde_json::Value>, path: &str) -> Result<Self, ConfigError> {
        let d = FastConfig::default();
        let mut p = Params::new(p, &format!("{path}.cc_params"));
        let alpha = p.f64_in("alpha", d.alpha, 0.0, 1e9)?;
        let gamma = p.f64_in("gamma", d.gamma, 1e-6, 1.0)?;
        let update_interval_s = p.f64_in("update_interval_s", d.update_interval_s, 0.0, 1e3)?;
        let mi_threshold_s = p.f64_in("mi_threshold_s", d.mi_threshold_s, 0.0, 10.0)?;
        let abc = p.bool("abc", d.abc)?;
        p.finish()?;
        Ok(Fast::new(FastConfig { alpha, gamma, update_interval_s, mi_threshold_s, abc }))
    }

    pub fn base_rtt(&self) -> f64 {
        self.base_rtt
    }

    /// Latest RTT estimate: mean of the current interval, else of the last one.
    fn current_rtt(&self) -> Option<f64> {
        if self.count > 0 {
            Some(self.sum / self.count as f64)
        } else {
            self.avg_rtt
        }
    }

    fn in_mi(&self) -> bool {
        self.cfg.mi_threshold_s > 0.0 && self.current_rtt().is_none_or(|r| r - self.base_rtt < self.cfg.mi_threshold_s)
    }

    /// The window update of the paper, given the interval's mean RTT.
    pub fn update(&self, w: f64, avg_rtt: f64) -> f64 {
        let target = (1.0 - self.cfg.gamma) * w + self.cfg.gamma * (self.base_rtt / avg_rtt * w + self.cfg.alpha);
        target.min(2.0 * w).max(2.0)
    }
}

impl CongestionControl for Fast {
    fn name(&self) -> &'static str {
        "fast"
    }

    fn pkts_acked(&mut self, _s: &mut CcState, _acked: u64, rtt_s: Option<f64>) {
        if let Some(r) = rtt_s.filter(|r| *r > 0.0) {
            self.base_rtt = self.base_rtt.min(r);
            self.sum += r;
            self.count += 1;
        }
    }

    /// Not the shared `slow_start_units` preamble: FAST's start-up is its
    /// own multiplicative increase (ns-2 `fast_cc`), which ignores ssthresh
    /// and with `abc` counts every segment acked (no RFC 3465 L = 2 cap);
    /// outside MI the window is set only by `on_tick`.
    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        if self.in_mi() {
            s.cwnd += if self.cfg.abc { acked as f64 } else { 1.0 };
        }
    }

    fn ssthresh(&mut self, s: &CcState) -> f64 {
        (s.cwnd / 2.0).max(2.0)
    }

    fn on_event(&mut self, _s: &mut CcState, ev: CcEvent) {
        match ev {
            CcEvent::RecoveryStart => self.in_recovery = true,
            CcEvent::RecoveryEnd | CcEvent::Timeout => self.in_recovery = false,
            CcEvent::EcnEcho | CcEvent::LossEnd | CcEvent::CwrEnd | CcEvent::TxStart | CcEvent::Undo => {}
        }
    }

    fn tick_interval_s(&self, s: &CcState) -> Option<f64> {
        if self.cfg.update_interval_s > 0.0 {
            Some(self.cfg.update_interval_s)
        } else {
            Some(s.srtt_s.unwrap_or(0.01).max(1e-6))
        }
    }

    fn on_tick(&mut self, s: &mut CcState) {
        if self.count == 0 {
            return;
        }
        let mi = self.in_mi();
        let avg = self.sum / self.count as f64;
        self.avg_rtt = Some(avg);
        self.sum = 0.0;
        self.count = 0;
        if self.in_recovery || mi {
            return;
        }
        s.cwnd = self.update(s.cwnd, avg);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    fn st(cwnd: f64) -> CcState {
        CcState { srtt_s: Some(0.1), min_rtt_s: Some(0.1), ..crate::transport::cc::test_state(cwnd, 1e9) }
    }

    /// Against a single bottleneck of C packets/s and propagation RTT d,
    /// RTT(w) = d + max(0, w − C·d)/C. The update converges to the fixed point
    /// w* = α·RTT/(RTT − baseRTT), i.e. α packets queued: w* = C·d + α.
    #[test]
    fn converges_to_alpha_packets_queued() {
        let (c, d, alpha) = (10_000.0, 0.1, 200.0);
        let rtt_of = |w: f64| d + (w - c * d).max(0.0) / c;
        let mut f = Fast::new(FastConfig { alpha, mi_threshold_s: 0.0, ..Default::default() });
        let mut s = st(10.0);
        for _ in 0..100 {
            let r = rtt_of(s.cwnd);
            f.pkts_acked(&mut s, 1, Some(r));
            f.pkts_acked(&mut s, 1, Some(r));
            f.on_tick(&mut s);
        }
        let w = s.cwnd;
        assert!((w - (c * d + alpha)).abs() < 0.01, "w {w}");
        let r = rtt_of(w);
        assert!((w - alpha * r / (r - f.base_rtt())).abs() < 0.1);
        // Own packets queued = w·q/RTT = α.
        assert!((w * (r - d) / r - alpha).abs() < 0.01);
    }

    #[test]
    fn growth_is_capped_at_doubling_per_update() {
        let mut f = Fast::new(FastConfig { mi_threshold_s: 0.0, ..Default::default() });
        let mut s = st(10.0);
        f.pkts_acked(&mut s, 1, Some(0.1));
        f.on_tick(&mut s);
        assert_eq!(s.cwnd, 20.0);
        // No samples in an interval: no update.
        f.on_tick(&mut s);
        assert_eq!(s.cwnd, 20.0);
        // Update rule below the cap: w = 1000, RTT = 1.25·base -> 0.5·1000 + 0.5·(800 + 200).
        let mut s = st(1000.0);
        f.pkts_acked(&mut s, 1, Some(0.125));
        f.on_tick(&mut s);
        assert!((s.cwnd - 1000.0).abs() < 1e-9);
        assert!((f.update(1000.0, 0.2) - (500.0 + 0.5 * (500.0 + 200.0))).abs() < 1e-9);
    }

    #[test]
    fn multiplicative_increase_without_queueing_and_halving_on_loss() {
        let mut f = Fast::new(FastConfig::default());
        let mut s = st(10.0);
        // No sample yet: MI.
        f.cong_avoid(&mut s, 1);
        assert_eq!(s.cwnd, 11.0);
        f.pkts_acked(&mut s, 1, Some(0.1));
        f.cong_avoid(&mut s, 1);
        assert_eq!(s.cwnd, 12.0);
        // Tick during MI does not apply the update.
        f.on_tick(&mut s);
        assert_eq!(s.cwnd, 12.0);
        // 2 ms of queueing: MI off, window only set by the update.
        f.pkts_acked(&mut s, 1, Some(0.102));
        f.cong_avoid(&mut s, 1);
        assert_eq!(s.cwnd, 12.0);
        assert_eq!(f.ssthresh(&st(500.0)), 250.0);
        // No update while in fast recovery.
        f.on_event(&mut s, CcEvent::RecoveryStart);
        f.on_tick(&mut s);
        assert_eq!(s.cwnd, 12.0);
    }

    #[test]
    fn tick_interval() {
        let f = Fast::new(FastConfig { mi_threshold_s: 0.0, ..Default::default() });
        let mut s = st(10.0);
        assert_eq!(f.tick_interval_s(&s), Some(0.1));
        s.srtt_s = None;
        assert_eq!(f.tick_interval_s(&s), Some(0.01));
        assert_eq!(
            Fast::new(FastConfig { update_interval_s: 0.02, mi_threshold_s: 0.0, ..Default::default() })
                .tick_interval_s(&s),
            Some(0.02)
        );
    }
}
