//! Layered TCP (Bhandarkar, Jain, Reddy, "LTCP: A Layered Congestion
//! Control Protocol for Highspeed Networks", §III–IV; equation numbers are
//! this paper's), the paper's design choice of §IV.
//!
//! Why layers: above a window threshold W_T the flow emulates K virtual TCP
//! flows (+K segments per RTT, `cwnd += K/cwnd` per ACK), and K grows when no
//! congestion is seen for long enough, so the increase rate scales with the
//! window; below W_T it is exactly TCP, so it is fair to TCP on slow paths.
//! Layer K starts at window
//!
//! `W_K = K(K+1)(K−1)/6 · W_T`  (eq. 10; W_1 = 0, W_2 = W_T),
//!
//! step `δ_K = W_{K+1} − W_K = K(K+1)/2 · W_T` (eq. 11), chosen from the
//! worst case of two flows at adjacent layers (eq. 8–9, `W_K = (K+1)/(K−2)·W_{K−1}`)
//! so that a larger flow both adds layers more slowly (eq. 2) and needs longer
//! to regain what it gave up (eq. 3): convergence to fairness.
//!
//! Decrease (eq. 4): `cwnd ← cwnd(1 − β)`, β = 0.15, and per the §IV-B
//! pseudo-code at most one layer is dropped: `if cwnd < W_K then K −= 1`, once.
//! The analysis relies on one cut dropping at most one layer, which β < 3/(K+1)
//! (eq. 13) guarantees up to K ≈ 19 for β = 0.15; beyond that the window can
//! fall below W_{K−1} while K drops by only one, exactly as the pseudo-code
//! does. Layers are only added on ACKs (`if cwnd ≥ W_{K+1} then K += 1`, one
//! per ACK).
//!
//! Slow start is standard; "when slowstart is exited, the number of layers K
//! is obtained based on the current cwnd" (§IV-B): the first congestion
//! avoidance ACK after slow start (including after an RTO) sets
//! `K = max{K : W_K ≤ cwnd}`. A connection starts with K = 1, and with K = 1
//! LTCP is TCP in all respects, so a loss ending the initial slow start halves
//! (the layer count is then set from the window congestion avoidance starts
//! from). Windows are cwnd at the event; counting per ACK (ns-2) unless `abc`.
use super::{abc_param, slow_start_units, CcEvent, CcState, CongestionControl, ControllerDoc, ParamDoc};
use crate::scenario::{params::Params, ConfigError};

/// LTCP's parameters (`cc_params`); `Default` is the one place the defaults
/// are written.
#[derive(Clone, Debug, PartialEq)]
pub struct LtcpConfig {
    /// W_T, the window threshold in segments: TCP below, layers above
    /// (the paper's §IV / Fig. 2 setting: 50).
    pub w_t: f64,
    /// β, the fraction of cwnd removed on a congestion event above W_T
    /// (eq. 4, the paper's design choice: 0.15).
    pub beta: f64,
    /// Count segments acked (RFC 3465) instead of ACKs (ns-2, default).
    pub abc: bool,
}

impl Default for LtcpConfig {
    /// The paper's W_T = 50, β = 0.15.
    fn default() -> Self {
        LtcpConfig { w_t: 50.0, beta: 0.15, abc: false }
    }
}

pub struct Ltcp {
    cfg: LtcpConfig,
    k: u32,
    /// Slow start since the layers were last set: recompute K when it ends.
    ss: bool,
}

/// W_K of eq. 10 for threshold `w_t`.
pub fn layer_window(k: u32, w_t: f64) -> f64 {
    let k = k as f64;
    k * (k + 1.0) * (k - 1.0) / 6.0 * w_t
}

/// The layer for window `w`: the largest K with W_K ≤ w.
pub fn layer_of(w: f64, w_t: f64) -> u32 {
    let mut k = 1;
    while layer_window(k + 1, w_t) <= w {
        k += 1;
    }
    k
}

impl Ltcp {
    pub fn new(cfg: LtcpConfig) -> Self {
        Ltcp { cfg, k: 1, ss: true }
    }

    pub fn doc() -> ControllerDoc {
        let d = LtcpConfig::default();
        ControllerDoc {
            name: "ltcp",
            doc: "Layered TCP (Bhandarkar et al. §IV): K layers, +K/cwnd per ACK, \
                  W_K = K(K+1)(K-1)/6·W_T, cut β·cwnd dropping at most one layer",
            params: vec![
                ParamDoc { name: "w_t", default: d.w_t.into(), doc: "W_T: window threshold in segments; TCP below" },
                ParamDoc { name: "beta", default: d.beta.into(), doc: "fraction of cwnd removed on loss above W_T" },
                abc_param(d.abc),
            ],
        }
    }

    pub fn from_params(p: &serde_json::Map<String, serde_json::Value>, path: &str) -> Result<Self, ConfigError> {
        let d = LtcpConfig::default();
        let mut p = Params::new(p, &format!("{path}.cc_params"));
        let w_t = p.f64_in("w_t", d.w_t, 2.0, 1e9)?;
        let beta = p.f64_in("beta", d.beta, 0.001, 0.5)?;
        let abc = p.bool("abc", d.abc)?;
        p.finish()?;
        Ok(Ltcp::new(LtcpConfig { w_t, beta, abc }))
    }

    pub fn layers(&self) -> u32 {
        self.k
    }
}

impl CongestionControl for Ltcp {
    fn name(&self) -> &'static str {
        "ltcp"
    }

    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        // The shared preamble, plus LTCP's own bookkeeping around it: note
        // slow start (before the helper leaves it) so K is recomputed when it
        // ends, and stay put while still in slow start. Unlike the others,
        // the layer count is set on the first ACK out of slow start even when
        // it leaves no units for congestion avoidance (`n == 0`).
        if s.in_slow_start() {
            self.ss = true;
        }
        let n = slow_start_units(self.cfg.abc, s, acked, 0.0);
        if s.in_slow_start() {
            return;
        }
        if self.ss {
            self.ss = false;
            self.k = layer_of(s.cwnd, self.cfg.w_t);
        }
        if n > 0 {
            s.cwnd += n as f64 * self.k as f64 / s.cwnd.max(1.0);
            if s.cwnd >= layer_window(self.k + 1, self.cfg.w_t) {
                self.k += 1;
            }
        }
    }

    fn ssthresh(&mut self, s: &CcState) -> f64 {
        let w = if self.k >= 2 {
            let w = s.cwnd * (1.0 - self.cfg.beta);
            if w < layer_window(self.k, self.cfg.w_t) {
                self.k -= 1;
            }
            w
        } else {
            s.cwnd / 2.0
        };
        w.max(2.0)
    }

    fn on_event(&mut self, _s: &mut CcState, ev: CcEvent) {
        if ev == CcEvent::Timeout {
            self.ss = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::cc::test_state as st;

    /// Fig. 2 of the paper (W_T = 50, β = 0.15): K, W_K, speedup in claiming
    /// bandwidth, speedup in packet-loss recovery time.
    const FIG2: [(u32, f64, f64, f64); 24] = [
        (2, 50.0, 1.00, 1.00),
        (3, 200.0, 2.00, 6.67),
        (4, 500.0, 2.57, 10.00),
        (5, 1000.0, 3.17, 13.33),
        (6, 1750.0, 3.78, 16.67),
        (7, 2800.0, 4.40, 20.00),
        (8, 4200.0, 5.03, 23.33),
        (9, 6000.0, 5.67, 26.67),
        (10, 8250.0, 6.31, 30.00),
        (11, 11000.0, 6.95, 33.33),
        (12, 14300.0, 7.60, 36.67),
        (13, 18200.0, 8.25, 40.00),
        (14, 22750.0, 8.90, 43.33),
        (15, 28000.0, 9.56, 46.67),
        (16, 34000.0, 10.21, 50.00),
        (17, 40800.0, 10.87, 53.33),
        (18, 48450.0, 11.52, 56.67),
        (19, 57000.0, 12.18, 60.00),
        (20, 66500.0, 12.84, 63.33),
        (21, 77000.0, 13.50, 66.67),
        (22, 88550.0, 14.16, 70.00),
        (23, 101200.0, 14.82, 73.33),
        (24, 115000.0, 15.48, 76.67),
        (25, 130000.0, 16.14, 80.00),
    ];

    #[test]
    fn layer_windows_and_speedups_match_fig2() {
        let (w_t, beta) = (50.0, 0.15);
        assert_eq!(layer_window(1, w_t), 0.0);
        for (k, wk, claim, recov) in FIG2 {
            assert_eq!(layer_window(k, w_t), wk, "W_{k}");
            // δ_K = K(K+1)/2·W_T (eq. 11)
            let kf = k as f64;
            assert_eq!(layer_window(k + 1, w_t) - wk, kf * (kf + 1.0) / 2.0 * w_t);
            assert_eq!(layer_of(wk, w_t), k);
            assert_eq!(layer_of(wk - 0.5, w_t), k - 1);
            if k >= 3 {
                // Claiming: TCP needs W_K − W_T RTTs from W_T; LTCP sums δ_j/j
                // for j = 2..K−1, = W_T(K−2)(K+3)/4 (eq. 14 with T(δ_1) = 0).
                let ltcp: f64 = (2..k).map(|j| (layer_window(j + 1, w_t) - layer_window(j, w_t)) / j as f64).sum();
                assert!((ltcp - w_t * (kf - 2.0) * (kf + 3.0) / 4.0).abs() < 1e-6);
                let s = (wk - w_t) / ltcp;
                assert!((s - claim).abs() < 0.006, "K {k}: claim speedup {s}");
                // Recovery: TCP W/2 RTTs, LTCP βW/(K−1).
                let r = (kf - 1.0) / (2.0 * beta);
                assert!((r - recov).abs() < 0.006, "K {k}: recovery speedup {r}");
            }
        }
    }

    #[test]
    fn increase_is_k_per_rtt_and_layers_are_added_on_acks() {
        let mut c = Ltcp::new(LtcpConfig::default());
        // Leaving slow start at 300 sets K = 3.
        let mut s = st(299.0, 300.0);
        c.cong_avoid(&mut s, 1);
        assert_eq!(s.cwnd, 300.0);
        c.cong_avoid(&mut s, 1);
        assert_eq!(c.layers(), 3);
        assert!((s.cwnd - 300.01).abs() < 1e-9);
        // One window of ACKs adds about K = 3.
        let w0 = s.cwnd;
        for _ in 0..300 {
            c.cong_avoid(&mut s, 1);
        }
        assert!((s.cwnd - w0 - 3.0).abs() < 0.05, "cwnd {}", s.cwnd);
        // Crossing W_4 = 500 adds a layer.
        s.cwnd = 499.995;
        c.cong_avoid(&mut s, 1);
        assert_eq!(c.layers(), 4);
        // Below W_T: K = 1, +1/cwnd.
        let mut c = Ltcp::new(LtcpConfig::default());
        let mut s = st(20.0, 10.0);
        c.cong_avoid(&mut s, 1);
        assert_eq!(c.layers(), 1);
        assert!((s.cwnd - 20.05).abs() < 1e-12);
    }

    #[test]
    fn decrease_cuts_beta_and_drops_at_most_one_layer() {
        let mut c = Ltcp::new(LtcpConfig::default());
        let mut s = st(1100.0, 100.0);
        c.cong_avoid(&mut s, 1);
        assert_eq!(c.layers(), 5);
        s.cwnd = 1100.0;
        // 1100 → 935 < W_5 = 1000: K 5 → 4.
        assert!((c.ssthresh(&s) - 935.0).abs() < 1e-9);
        assert_eq!(c.layers(), 4);
        // 600·0.85 = 510 ≥ W_4 = 500: K stays 4.
        s.cwnd = 600.0;
        assert!((c.ssthresh(&s) - 510.0).abs() < 1e-9);
        assert_eq!(c.layers(), 4);
        // At K = 25 (W_25 = 130000): 131000·0.85 = 111350 is below W_24 = 115000,
        // where layer_of would give 23, but only one layer is dropped.
        let mut c = Ltcp::new(LtcpConfig::default());
        let mut s = st(131000.0, 100.0);
        c.cong_avoid(&mut s, 1);
        assert_eq!(c.layers(), 25);
        c.ssthresh(&s);
        assert_eq!(c.layers(), 24);
        assert_eq!(layer_of(111350.0, 50.0), 23);
        // K = 1: TCP halving.
        let mut c = Ltcp::new(LtcpConfig::default());
        assert_eq!(c.ssthresh(&st(40.0, 1e9)), 20.0);
        // A loss in the initial slow start halves (K = 1), then K is set from
        // the window congestion avoidance starts from.
        let mut c = Ltcp::new(LtcpConfig::default());
        let mut s = st(1000.0, 1e9);
        c.cong_avoid(&mut s, 1);
        s.ssthresh = c.ssthresh(&s);
        assert_eq!(s.ssthresh, 500.5);
        s.cwnd = s.ssthresh;
        c.cong_avoid(&mut s, 1);
        assert_eq!(c.layers(), 4);
    }

    #[test]
    fn layers_recomputed_after_timeout_slow_start() {
        let mut c = Ltcp::new(LtcpConfig::default());
        let mut s = st(2000.0, 100.0);
        c.cong_avoid(&mut s, 1);
        assert_eq!(c.layers(), 6);
        s.ssthresh = c.ssthresh(&s);
        s.cwnd = 1.0;
        c.on_event(&mut s, CcEvent::Timeout);
        s.ssthresh = 210.0;
        while s.in_slow_start() {
            c.cong_avoid(&mut s, 1);
        }
        c.cong_avoid(&mut s, 1);
        assert_eq!(c.layers(), 3);
    }
}
