//! BIC TCP (Xu, Harfoush, Rhee, "Binary Increase Congestion Control for
//! Fast, Long Distance Networks", IEEE INFOCOM 2004).
//!
//! Why: BIC treats finding the right window as a search. After a loss the
//! window that caused it, W_max, is the upper bound and the reduced window the
//! lower one; binary search toward W_max is fast when far (capped at S_max per
//! RTT, i.e. additive increase) and gentle when close (so the window dwells
//! near the saturation point), and beyond W_max "max probing" grows slowly
//! then faster (the search in reverse). RTT unfairness is smaller than HSTCP's
//! or STCP's because the increase shrinks as the window nears W_max.
//!
//! The paper's per-ACK rule, once per ACK in congestion avoidance:
//! ```text
//! if cwnd < W_max: inc = (W_max − cwnd)/2      (binary search / additive)
//! else:            inc = cwnd − W_max          (max probing / additive)
//! inc = clamp(inc, S_min, S_max);  cwnd += inc/cwnd
//! ```
//! so `inc` segments per RTT. On loss: with fast convergence and cwnd < W_max,
//! `W_max = cwnd·(1+β)/2` (release bandwidth to newer flows), else
//! `W_max = cwnd`; then `ssthresh = β·cwnd` (floor 2). At or below
//! `low_window` BIC is Reno (+1 per RTT, halve) for TCP-friendliness on
//! ordinary paths. An RTO resets W_max, as Linux's `bictcp_reset` does.
//!
//! Constants: β is the *retained* fraction, Linux's 819/1024 ≈ 0.8 (the
//! paper quotes the removed fraction); S_max = 16 and low_window = 14 as Linux;
//! S_min = 0.01 as the paper. Linux `tcp_bic.c` differs in the search step
//! (a quarter of the gap, B = 4), a `smooth_part` floor of 0.2/RTT near W_max,
//! max probing by `(cwnd − W_max)/3` per RTT, ≥ 5% per RTT before the first
//! loss, and delayed-ACK compensation; those are not reproduced. Counting is
//! per ACK (ns-2) unless `abc`.
use super::{abc_param, slow_start_units, CcEvent, CcState, CongestionControl, ControllerDoc, ParamDoc};
use crate::scenario::{params::Params, ConfigError};

/// BIC's parameters (`cc_params`); `Default` is the one place the defaults
/// are written.
#[derive(Clone, Debug, PartialEq)]
pub struct BicConfig {
    /// S_max, the largest increase in segments per RTT (Linux
    /// `max_increment` = 16).
    pub max_increment: f64,
    /// S_min, the smallest increase in segments per RTT (the paper's 0.01).
    pub min_increment: f64,
    /// β, the fraction of cwnd *retained* on loss (Linux 819/1024 ≈ 0.8; the
    /// paper quotes the removed fraction).
    pub beta: f64,
    /// Segments; Reno at or below (Linux `low_window` = 14).
    pub low_window: f64,
    /// W_max = cwnd·(1+β)/2 on a loss below W_max (the paper's fast
    /// convergence; on, as Linux).
    pub fast_convergence: bool,
    /// Count segments acked (RFC 3465) instead of ACKs (ns-2, default).
    pub abc: bool,
}

impl Default for BicConfig {
    /// Linux `tcp_bic.c` constants, the paper's S_min, ns-2 ACK counting.
    fn default() -> Self {
        BicConfig {
            max_increment: 16.0,
            min_increment: 0.01,
            beta: 819.0 / 1024.0,
            low_window: 14.0,
            fast_convergence: true,
            abc: false,
        }
    }
}

pub struct Bic {
    cfg: BicConfig,
    w_max: f64,
}

impl Bic {
    pub fn new(cfg: BicConfig) -> Self {
        Bic { cfg, w_max: 0.0 }
    }

    pub fn doc() -> ControllerDoc {
        let d = BicConfig::default();
        ControllerDoc {
            name: "bic",
            doc: "BIC TCP (Xu et al. 2004): binary search toward W_max, max probing beyond, ×beta on loss",
            params: vec![
                ParamDoc {
                    name: "max_increment",
                    default: d.max_increment.into(),
                    doc: "S_max: largest increase per RTT",
                },
                ParamDoc {
                    name: "min_increment",
                    default: d.min_increment.into(),
                    doc: "S_min: smallest increase per RTT",
                },
                ParamDoc {
                    name: "beta",
                    default: d.beta.into(),
                    doc: "fraction of cwnd retained on loss (Linux 819/1024)",
                },
                ParamDoc { name: "low_window", default: d.low_window.into(), doc: "segments; Reno at or below" },
                ParamDoc {
                    name: "fast_convergence",
                    default: d.fast_convergence.into(),
                    doc: "W_max = cwnd(1+beta)/2 below W_max",
                },
                abc_param(d.abc),
            ],
        }
    }

    pub fn from_params(p: &serde_json::Map<String, serde_json::Value>, path: &str) -> Result<Self, ConfigError> {
        let d = BicConfig::default();
        let base = format!("{path}.cc_params");
        let mut p = Params::new(p, &base);
        let max_increment = p.f64_in("max_increment", d.max_increment, 1e-6, 1e9)?;
        let min_increment = p.f64_in("min_increment", d.min_increment, 1e-6, 1e9)?;
        let beta = p.f64_in("beta", d.beta, 0.01, 0.99)?;
        let low_window = p.f64_in("low_window", d.low_window, 0.0, 1e9)?;
        let fast_convergence = p.bool("fast_convergence", d.fast_convergence)?;
        let abc = p.bool("abc", d.abc)?;
        p.finish()?;
        if min_increment > max_increment {
            return Err(ConfigError::new(
                format!("{base}.min_increment"),
                format!("{min_increment} is not allowed; must not exceed max_increment ({max_increment})"),
            ));
        }
        Ok(Bic::new(BicConfig { max_increment, min_increment, beta, low_window, fast_convergence, abc }))
    }

    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// Segments per RTT at window `w`.
    pub fn increment(&self, w: f64) -> f64 {
        if w <= self.cfg.low_window {
            return 1.0;
        }
        let inc = if w < self.w_max { (self.w_max - w) / 2.0 } else { w - self.w_max };
        inc.clamp(self.cfg.min_increment, self.cfg.max_increment)
    }
}

impl CongestionControl for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }

    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        let n = slow_start_units(self.cfg.abc, s, acked, 0.0);
        if n > 0 {
            s.cwnd += n as f64 * self.increment(s.cwnd) / s.cwnd.max(1.0);
        }
    }

    fn ssthresh(&mut self, s: &CcState) -> f64 {
        let w = s.cwnd;
        self.w_max = if self.cfg.fast_convergence && w < self.w_max { w * (1.0 + self.cfg.beta) / 2.0 } else { w };
        if w <= self.cfg.low_window {
            (w / 2.0).max(2.0)
        } else {
            (w * self.cfg.beta).max(2.0)
        }
    }

    fn on_event(&mut self, _s: &mut CcState, ev: CcEvent) {
        if ev == CcEvent::Timeout {
            self.w_max = 0.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::math;
    use crate::transport::cc::test_state as st;

    #[test]
    fn search_regions() {
        let mut b = Bic::new(BicConfig::default());
        b.ssthresh(&st(1000.0, 1e9));
        assert_eq!(b.w_max(), 1000.0);
        // Far below W_max: additive S_max.
        assert_eq!(b.increment(500.0), 16.0);
        // Close: half the gap.
        assert_eq!(b.increment(990.0), 5.0);
        // Very close: S_min.
        assert_eq!(b.increment(999.999), 0.01);
        // Max probing: slow just above W_max, then the gap, then S_max.
        assert_eq!(b.increment(1000.0), 0.01);
        assert_eq!(b.increment(1004.0), 4.0);
        assert_eq!(b.increment(1100.0), 16.0);
        // Reno at or below low_window.
        assert_eq!(b.increment(14.0), 1.0);
    }

    /// Applied per ACK, the step (W_max − cwnd)/2 per RTT closes the gap
    /// geometrically: over one window of ACKs, gap → gap·e^(−1/2).
    #[test]
    fn binary_search_closes_the_gap_geometrically() {
        let mut b = Bic::new(BicConfig::default());
        b.ssthresh(&st(1000.0, 1e9));
        let mut s = st(980.0, 10.0);
        let n = s.cwnd as usize;
        for _ in 0..n {
            b.cong_avoid(&mut s, 1);
        }
        let want = 1000.0 - 20.0 * math::exp(-0.5);
        assert!((s.cwnd - want).abs() < 0.1, "cwnd {} want {want}", s.cwnd);
    }

    #[test]
    fn decrease_with_fast_convergence() {
        let mut b = Bic::new(BicConfig::default());
        let beta = 819.0 / 1024.0;
        assert!((b.ssthresh(&st(1000.0, 1e9)) - 1000.0 * beta).abs() < 1e-9);
        assert_eq!(b.w_max(), 1000.0);
        // Loss below the previous W_max: W_max = cwnd(1+β)/2.
        assert!((b.ssthresh(&st(900.0, 1e9)) - 900.0 * beta).abs() < 1e-9);
        assert!((b.w_max() - 900.0 * (1.0 + beta) / 2.0).abs() < 1e-9);
        // Without fast convergence W_max = cwnd.
        let mut b = Bic::new(BicConfig { fast_convergence: false, ..Default::default() });
        b.ssthresh(&st(1000.0, 1e9));
        b.ssthresh(&st(900.0, 1e9));
        assert_eq!(b.w_max(), 900.0);
        // Halve at or below low_window; RTO forgets W_max.
        assert_eq!(b.ssthresh(&st(10.0, 1e9)), 5.0);
        b.on_event(&mut st(1.0, 5.0), CcEvent::Timeout);
        assert_eq!(b.w_max(), 0.0);
    }
}
