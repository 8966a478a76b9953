//! TCP Vegas (Brakmo & Peterson, IEEE JSAC 13(8), 1995), with the round
//! structure and defaults of Linux `tcp_vegas.c` (α = 2, β = 4, γ = 1).
//!
//! Why: Vegas reacts to queueing before loss. Once per RTT it compares the
//! expected rate cwnd/baseRTT with the actual rate cwnd/RTT; the difference
//! times baseRTT (the paper's Diff = cwnd·(RTT − baseRTT)/RTT; Linux's
//! `diff = cwnd·(RTT − baseRTT)/baseRTT`, used here) estimates the flow's own
//! packets in the bottleneck queue. Keeping it between α and β packets keeps a small
//! standing queue: enough to use the link, no loss needed to find it.
//!
//! - baseRTT: the minimum RTT sample of the connection. RTT: the *minimum*
//!   sample in the last round (Linux; filters delayed-ACK inflation).
//! - A round ends when the data outstanding at its start has been
//!   acknowledged (Linux's `ack > beg_snd_nxt`, here counted as segments acked
//!   since the round began ≥ FlightSize at its start). At the end of a round:
//!   - with ≤ 2 RTT samples in it, one Reno step (not enough information);
//!   - in slow start, if diff > γ: leave slow start,
//!     `cwnd = min(cwnd, cwnd·baseRTT/RTT + 1)`, `ssthresh = min(ssthresh, cwnd − 1)`;
//!   - in congestion avoidance: diff < α → cwnd += 1; diff > β → cwnd −= 1
//!     (and `ssthresh = min(ssthresh, cwnd − 1)`); otherwise hold;
//!   - cwnd ≥ 2, and `ssthresh = max(ssthresh, 3/4·cwnd)` (Linux's
//!     `tcp_current_ssthresh`).
//! - Between round ends: standard slow start per ACK while in slow start
//!   (Linux grows every RTT, not every other RTT as the paper); no change in
//!   congestion avoidance.
//! - Loss handling halves the window as Reno does, but from cwnd
//!   (`ssthresh = cwnd/2`, floor 2, as Linux's `tcp_reno_ssthresh`), not
//!   from FlightSize as this crate's `reno` does; a new round
//!   starts with the first ACK after recovery or a timeout.
//!
//! The paper's (α, β) = (1, 3), and ns-2's `v_alpha_ 1, v_beta_ 3`, are
//! available through the parameters. Counting per ACK (ns-2) unless `abc`.
use super::{
    abc_param, ack_units, cong_avoid_ai, slow_start, slow_start_units, CcEvent, CcState, CongestionControl,
    ControllerDoc, ParamDoc,
};
use crate::scenario::{params::Params, ConfigError};

/// Vegas's parameters (`cc_params`); `Default` is the one place the defaults
/// are written.
#[derive(Clone, Debug, PartialEq)]
pub struct VegasConfig {
    /// α, packets queued below which cwnd grows (Linux `tcp_vegas.c`: 2; the
    /// paper and ns-2: 1).
    pub alpha: f64,
    /// β, packets queued above which cwnd shrinks (Linux: 4; the paper and
    /// ns-2: 3).
    pub beta: f64,
    /// γ, packets queued that end slow start (Linux and the paper: 1).
    pub gamma: f64,
    /// Count segments acked (RFC 3465) instead of ACKs (ns-2, default).
    pub abc: bool,
}

impl Default for VegasConfig {
    /// Linux `tcp_vegas.c`: α = 2, β = 4, γ = 1; ns-2 ACK counting.
    fn default() -> Self {
        VegasConfig { alpha: 2.0, beta: 4.0, gamma: 1.0, abc: false }
    }
}

pub struct Vegas {
    cfg: VegasConfig,
    base_rtt: f64,
    /// FlightSize at the start of the current round (None: start one).
    round_target: Option<u64>,
    round_acked: u64,
    cnt_rtt: u32,
    min_rtt: f64,
}

impl Vegas {
    pub fn new(cfg: VegasConfig) -> Self {
        Vegas { cfg, base_rtt: f64::INFINITY, round_target: None, round_acked: 0, cnt_rtt: 0, min_rtt: f64::INFINITY }
    }

    pub fn doc() -> ControllerDoc {
        let d = VegasConfig::default();
        ControllerDoc {
            name: "vegas",
            doc: "TCP Vegas (Brakmo & Peterson 1995; Linux tcp_vegas.c): per RTT, +1 if diff < alpha, \
                  −1 if diff > beta; leave slow start when diff > gamma",
            params: vec![
                ParamDoc {
                    name: "alpha",
                    default: d.alpha.into(),
                    doc: "packets queued below which cwnd grows (paper: 1)",
                },
                ParamDoc {
                    name: "beta",
                    default: d.beta.into(),
                    doc: "packets queued above which cwnd shrinks (paper: 3)",
                },
                ParamDoc { name: "gamma", default: d.gamma.into(), doc: "packets queued that end slow start" },
                abc_param(d.abc),
            ],
        }
    }

    pub fn from_params(p: &serde_json::Map<String, serde_json::Value>, path: &str) -> Result<Self, ConfigError> {
        let d = VegasConfig::default();
        let base = format!("{path}.cc_params");
        let mut p = Params::new(p, &base);
        let alpha = p.f64_in("alpha", d.alpha, 0.0, 1e6)?;
        let beta = p.f64_in("beta", d.beta, 0.0, 1e6)?;
        let gamma = p.f64_in("gamma", d.gamma, 0.0, 1e6)?;
        let abc = p.bool("abc", d.abc)?;
        p.finish()?;
        if beta < alpha {
            return Err(ConfigError::new(
                format!("{base}.beta"),
                format!("{beta} is not allowed; must be at least alpha ({alpha})"),
            ));
        }
        Ok(Vegas::new(VegasConfig { alpha, beta, gamma, abc }))
    }

    fn start_round(&mut self, s: &CcState) {
        self.round_target = Some(s.flight);
        self.round_acked = 0;
        self.cnt_rtt = 0;
        self.min_rtt = f64::INFINITY;
    }

    /// Own packets queued: cwnd·(rtt − baseRTT)/baseRTT (Linux).
    pub fn diff(&self, cwnd: f64, rtt: f64) -> f64 {
        cwnd * (rtt - self.base_rtt) / self.base_rtt
    }

    fn end_of_round(&mut self, s: &mut CcState, n: u64) {
        if self.cnt_rtt <= 2 || !self.base_rtt.is_finite() {
            if s.in_slow_start() {
                slow_start(s, n);
            } else {
                cong_avoid_ai(s, s.cwnd, n);
            }
            return;
        }
        let rtt = self.min_rtt;
        let diff = self.diff(s.cwnd, rtt);
        if s.in_slow_start() && diff > self.cfg.gamma {
            let target = s.cwnd * self.base_rtt / rtt;
            s.cwnd = s.cwnd.min(target + 1.0);
            s.ssthresh = s.ssthresh.min(s.cwnd - 1.0);
        } else if s.in_slow_start() {
            slow_start(s, n);
        } else if diff > self.cfg.beta {
            s.cwnd -= 1.0;
            s.ssthresh = s.ssthresh.min(s.cwnd - 1.0);
        } else if diff < self.cfg.alpha {
            s.cwnd += 1.0;
        }
        s.cwnd = s.cwnd.max(2.0);
        s.ssthresh = s.ssthresh.max(0.75 * s.cwnd);
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn pkts_acked(&mut self, _s: &mut CcState, acked: u64, rtt_s: Option<f64>) {
        self.round_acked += acked;
        if let Some(r) = rtt_s.filter(|r| *r > 0.0) {
            self.base_rtt = self.base_rtt.min(r);
            self.min_rtt = self.min_rtt.min(r);
            self.cnt_rtt += 1;
        }
    }

    /// Between round ends the shared preamble is all Vegas does: slow start
    /// per ACK, and the units left for congestion avoidance are dropped (no
    /// change until the round ends). At a round end `end_of_round` decides
    /// instead, on the ACK's units, so it does not use the preamble.
    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        let Some(target) = self.round_target else {
            self.start_round(s);
            slow_start_units(self.cfg.abc, s, acked, 0.0);
            return;
        };
        if self.round_acked >= target {
            let n = ack_units(self.cfg.abc, s, acked);
            self.end_of_round(s, n);
            self.start_round(s);
        } else {
            slow_start_units(self.cfg.abc, s, acked, 0.0);
        }
    }

    /// Reno: half the window, floor 2.
    fn ssthresh(&mut self, s: &CcState) -> f64 {
        (s.cwnd / 2.0).max(2.0)
    }

    fn on_event(&mut self, _s: &mut CcState, ev: CcEvent) {
        if matches!(ev, CcEvent::RecoveryEnd | CcEvent::Timeout) {
            self.round_target = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::cc::test_state as st;

    /// One round: FlightSize-at-start ACKs, each with RTT `rtt`; the last one
    /// completes the round and triggers the decision.
    fn round(v: &mut Vegas, s: &mut CcState, rtt: f64) {
        let n = s.flight;
        for _ in 0..n {
            v.pkts_acked(s, 1, Some(rtt));
            v.cong_avoid(s, 1);
        }
    }

    fn primed(cwnd: f64, ssthresh: f64) -> (Vegas, CcState) {
        let mut v = Vegas::new(VegasConfig::default());
        let mut s = st(cwnd, ssthresh);
        v.pkts_acked(&mut s, 1, Some(0.1)); // baseRTT = 0.1
        v.cong_avoid(&mut s, 1); // starts the first round
        (v, s)
    }

    #[test]
    fn three_regions_in_congestion_avoidance() {
        // diff = 100·(rtt − 0.1)/0.1: 1 packet (< α) grows.
        let (mut v, mut s) = primed(100.0, 50.0);
        round(&mut v, &mut s, 0.101);
        assert_eq!(s.cwnd, 101.0);
        // 3 packets (α ≤ diff ≤ β) holds.
        let (mut v, mut s) = primed(100.0, 50.0);
        round(&mut v, &mut s, 0.103);
        assert_eq!(s.cwnd, 100.0);
        // 5 packets (> β) shrinks.
        let (mut v, mut s) = primed(100.0, 50.0);
        round(&mut v, &mut s, 0.105);
        assert_eq!(s.cwnd, 99.0);
        // Between round ends congestion avoidance leaves cwnd alone.
        let (mut v, mut s) = primed(100.0, 50.0);
        for _ in 0..50 {
            v.pkts_acked(&mut s, 1, Some(0.101));
            v.cong_avoid(&mut s, 1);
        }
        assert_eq!(s.cwnd, 100.0);
    }

    #[test]
    fn slow_start_exits_when_diff_exceeds_gamma() {
        // diff ≈ 39·0.001/0.1 = 0.39 ≤ γ: keeps slow starting (+1 per ACK).
        let (mut v, mut s) = primed(20.0, 1e9);
        let w0 = s.cwnd;
        round(&mut v, &mut s, 0.101);
        assert!(s.cwnd > w0 + 15.0, "cwnd {}", s.cwnd);
        assert!(s.in_slow_start());
        // diff = 39·0.005/0.1 = 1.95 > γ at the round end:
        // cwnd = min(cwnd, cwnd·base/rtt + 1), ssthresh = cwnd − 1.
        let (mut v, mut s) = primed(20.0, 1e9);
        let n = s.flight;
        for _ in 0..n - 1 {
            v.pkts_acked(&mut s, 1, Some(0.105));
            v.cong_avoid(&mut s, 1);
        }
        let w = s.cwnd;
        v.pkts_acked(&mut s, 1, Some(0.105));
        v.cong_avoid(&mut s, 1);
        let want = (w * 0.1 / 0.105 + 1.0).min(w);
        assert!((s.cwnd - want).abs() < 1e-9, "cwnd {} want {want}", s.cwnd);
        assert!(!s.in_slow_start());
    }

    #[test]
    fn few_samples_fall_back_to_reno_and_loss_halves() {
        let mut v = Vegas::new(VegasConfig::default());
        let mut s = st(10.0, 5.0);
        v.cong_avoid(&mut s, 1); // round starts, target 10
        v.pkts_acked(&mut s, 10, Some(0.1)); // one stretch ACK: one sample
        v.cong_avoid(&mut s, 1);
        assert!((s.cwnd - 10.1).abs() < 1e-12);
        assert_eq!(v.ssthresh(&st(100.0, 1e9)), 50.0);
    }

    #[test]
    fn params_are_checked() {
        let m = |j: &str| serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(j).unwrap();
        let e = Vegas::from_params(&m(r#"{"alpha": 5, "beta": 3}"#), "flows[1]").err().unwrap();
        assert_eq!(e.field, "flows[1].cc_params.beta");
        assert!(Vegas::from_params(&m(r#"{"alpha": 1, "beta": 3}"#), "flows[1]").is_ok());
    }
}
