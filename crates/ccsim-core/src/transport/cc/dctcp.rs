//! DCTCP (RFC 8257; Alizadeh et al., SIGCOMM 2010; Linux `tcp_dctcp.c`):
//! the sender estimates the fraction α of its data the network marked and
//! cuts its window in proportion, cwnd × (1 − α/2), at most once per
//! window, so that a switch marking above a small threshold K keeps a short
//! queue without giving up throughput.
//!
//! - **α** (RFC 8257 §3.3): every ACK adds the segments it acknowledges to
//!   `acked` and, if it carries ECE, to `marked` (with AccECN feedback,
//!   `ecn_feedback = "accecn"`, the CE marks its counter reports, as Linux's
//!   `delivered_ce`); when the cumulative ACK
//!   passes `window_end` (the highest segment sent at the last update), α
//!   ← (1 − g) α + g · marked/acked, the counters restart and `window_end`
//!   moves to the highest segment sent. g = 1/16 and α starts at 1 (Linux
//!   `dctcp_shift_g` 4, `dctcp_alpha_on_init` 1024: the first marks cut
//!   hard until α has been measured).
//! - **The reduction** on ECE, once per window (the transport's RFC 3168
//!   machinery, with CWR on the next new data): ssthresh = cwnd × (1 − α/2),
//!   at least 2, and cwnd = ssthresh (RFC 8257 §3.3; Linux reaches the same
//!   ssthresh and lowers cwnd to it over one round with PRR).
//! - **Loss** (fast retransmit, timeout): as Reno, half the flight
//!   (RFC 8257 §3.4: "SHOULD react to loss episodes in the same way as
//!   conventional TCP"; Linux `dctcp_react_to_loss`).
//! - **Growth**: Reno's, counting segments acknowledged (`abc = true` by
//!   default, Linux's `tcp_reno_cong_avoid` via `tcp_slow_start`).
//! - **The receiver** (RFC 8257 §3.2): ECE on an ACK says whether the
//!   segments it acknowledges were CE-marked, not latched until CWR, and an
//!   ACK goes at once when the CE state of arriving segments changes, so a
//!   delayed ACK never mixes marked and unmarked segments
//!   (`transport::tcp::receiver`, for flows with `cc = "dctcp"`).
//!
//! DCTCP needs ECN: `cc = "dctcp"` makes `ecn` default to true, and
//! `ecn = false` with it is an error.
use super::{abc_param, cong_avoid_ai, slow_start_units, AckInfo, CcState, CongestionControl, ControllerDoc, ParamDoc};
use crate::scenario::{params::Params, ConfigError};

/// DCTCP's parameters (`cc_params`); `Default` is where the defaults live.
#[derive(Clone, Debug, PartialEq)]
pub struct DctcpConfig {
    /// EWMA gain g of α (RFC 8257 §4.2 recommends 1/16; Linux 1/2^4).
    pub g: f64,
    /// α before the first update (Linux `dctcp_alpha_on_init`: 1).
    pub init_alpha: f64,
    /// Count segments acknowledged (RFC 3465), as Linux does.
    pub abc: bool,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig { g: 1.0 / 16.0, init_alpha: 1.0, abc: true }
    }
}

pub struct Dctcp {
    cfg: DctcpConfig,
    alpha: f64,
    acked: u64,
    marked: u64,
    /// The highest segment sent when α was last updated (`None`: not yet).
    window_end: Option<u64>,
}

impl Dctcp {
    pub fn new(cfg: DctcpConfig) -> Self {
        Dctcp { alpha: cfg.init_alpha, cfg, acked: 0, marked: 0, window_end: None }
    }

    pub fn doc() -> ControllerDoc {
        let d = DctcpConfig::default();
        ControllerDoc {
            name: "dctcp",
            doc: "DCTCP (RFC 8257): α = EWMA of the marked fraction per window, cut cwnd·(1 − α/2) on ECE once per \
                  window, Reno on loss; needs ECN (default on) and a queue that marks above a threshold",
            params: vec![
                ParamDoc { name: "g", default: d.g.into(), doc: "EWMA gain of α (RFC 8257 §4.2: 1/16)" },
                ParamDoc {
                    name: "init_alpha",
                    default: d.init_alpha.into(),
                    doc: "α before its first update (Linux: 1)",
                },
                abc_param(d.abc),
            ],
        }
    }

    pub fn from_params(p: &serde_json::Map<String, serde_json::Value>, path: &str) -> Result<Self, ConfigError> {
        let d = DctcpConfig::default();
        let mut p = Params::new(p, &format!("{path}.cc_params"));
        let g = p.f64_in("g", d.g, 0.0, 1.0)?;
        let init_alpha = p.f64_in("init_alpha", d.init_alpha, 0.0, 1.0)?;
        let abc = p.bool("abc", d.abc)?;
        p.finish()?;
        if g == 0.0 {
            return Err(ConfigError::new(format!("{path}.cc_params.g"), "0 is not allowed; must be in (0, 1]"));
        }
        Ok(Dctcp::new(DctcpConfig { g, init_alpha, abc }))
    }

    /// The current estimate of the marked fraction.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

/// An ECN scheme (RFC 8257 §3): `ecn` defaults to true and is required;
/// the receiver echoes each segment's CE state (§3.2).
pub const NEEDS: super::Needs = super::Needs {
    ecn: Some(super::EcnNeeds {
        required: true,
        ect: None,
        feedback: Some(crate::scenario::kinds::EcnFeedback::Dctcp),
        feedback_required: false,
    }),
    ..super::Needs::NONE
};

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }

    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        let n = slow_start_units(self.cfg.abc, s, acked, 0.0);
        if n > 0 {
            cong_avoid_ai(s, s.cwnd, n);
        }
    }

    /// Loss: as Reno, max(FlightSize/2, 2) (RFC 8257 §3.4).
    fn ssthresh(&mut self, s: &CcState) -> f64 {
        (s.flight as f64 / 2.0).max(2.0)
    }

    /// ECE: cwnd × (1 − α/2) (RFC 8257 §3.3).
    fn ssthresh_ecn(&mut self, s: &CcState) -> f64 {
        (s.cwnd * (1.0 - self.alpha / 2.0)).max(2.0)
    }

    fn ecn_alpha(&self) -> Option<f64> {
        Some(self.alpha)
    }

    fn on_ack(&mut self, _s: &mut CcState, a: AckInfo) {
        self.acked += a.acked;
        self.marked += a.ce;
        match self.window_end {
            None => self.window_end = Some(a.snd_nxt),
            Some(end) if a.una > end => {
                let f = if self.acked > 0 { self.marked as f64 / self.acked as f64 } else { 0.0 };
                self.alpha = (1.0 - self.cfg.g) * self.alpha + self.cfg.g * f;
                self.acked = 0;
                self.marked = 0;
                self.window_end = Some(a.snd_nxt);
            }
            Some(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::cc::test_state as st;

    #[test]
    fn alpha_is_an_ewma_of_the_marked_fraction_per_window() {
        let mut d = Dctcp::new(DctcpConfig::default());
        let mut s = st(100.0, 50.0);
        let ack = |d: &mut Dctcp, s: &mut CcState, una: u64, ece: bool, nxt: u64| {
            d.on_ack(s, AckInfo { acked: 1, ece, ce: u64::from(ece), una, snd_nxt: nxt })
        };
        // the first ACK opens the observation window up to segment 100
        d.on_ack(&mut s, AckInfo { acked: 0, ece: false, ce: 0, una: 0, snd_nxt: 100 });
        for una in 1..=100 {
            ack(&mut d, &mut s, una, una <= 25, 200);
        }
        assert_eq!(d.alpha(), 1.0, "no update before the ACK passes the window's end");
        // the ACK that passes it closes the window, itself included
        // (RFC 8257 §3.3): 25 marked of 101, from α = 1
        ack(&mut d, &mut s, 101, false, 200);
        let a1 = 15.0 / 16.0 + (25.0 / 101.0) / 16.0;
        assert!((d.alpha() - a1).abs() < 1e-12, "{}", d.alpha());
        // a constant marked fraction F: α -> F
        let mut una = 101;
        for _ in 0..300 {
            for i in 0..100 {
                una += 1;
                ack(&mut d, &mut s, una, i % 4 == 0, una + 100);
            }
        }
        assert!((d.alpha() - 0.25).abs() < 0.01, "{}", d.alpha());
        // no marks: α decays by (1 - g) per window
        for _ in 0..16 {
            for _ in 0..100 {
                una += 1;
                ack(&mut d, &mut s, una, false, una + 100);
            }
        }
        let want = 0.25 * (0..16).fold(1.0, |x, _| x * 15.0 / 16.0);
        assert!((d.alpha() - want).abs() < 0.01, "{} vs {want}", d.alpha());
    }

    #[test]
    fn ece_cuts_by_half_alpha_and_loss_halves() {
        let mut d = Dctcp::new(DctcpConfig { init_alpha: 0.2, ..DctcpConfig::default() });
        let s = st(100.0, 50.0);
        assert!((d.ssthresh_ecn(&s) - 90.0).abs() < 1e-12);
        assert_eq!(d.ssthresh(&s), 50.0);
        let mut full = Dctcp::new(DctcpConfig::default());
        assert_eq!(full.ssthresh_ecn(&s), 50.0, "α = 1 at the start: a Reno cut");
        assert_eq!(full.ssthresh_ecn(&st(3.0, 2.0)), 2.0, "at least 2 segments");
    }

    #[test]
    fn params_are_checked() {
        let m = |j: serde_json::Value| j.as_object().unwrap().clone();
        assert!(Dctcp::from_params(&m(serde_json::json!({"g": 0.0})), "f").is_err());
        assert!(Dctcp::from_params(&m(serde_json::json!({"g": 1.5})), "f").is_err());
        assert!(Dctcp::from_params(&m(serde_json::json!({"init_alpha": 0.0, "g": 0.5})), "f").is_ok());
    }
}
