//! Scalable TCP (Kelly, "Scalable TCP: Improving Performance in Highspeed
//! Wide Area Networks", ACM SIGCOMM CCR 33(2), 2003).
//!
//! MIMD above a legacy window: in congestion avoidance cwnd grows by a fixed
//! `a = 0.01` segment per ACK (≈ 1% per RTT) and a congestion event removes
//! `b = 0.125` of it. Why: the time to recover from a loss,
//! `ln(1/(1−b))/ln(1+a)` ≈ 13.4 RTTs, no longer depends on the window, so the
//! protocol scales to any rate; the response function is `w ≈ a/(b·p) = 0.08/p`.
//! At or below the legacy window `lwnd` (16 segments) both increase and
//! decrease are standard TCP's, because STCP's response function is below
//! TCP's `1.22/√p` at small windows (they cross near w ≈ 19); this keeps it
//! TCP-friendly where standard TCP works well (Kelly §3).
//!
//! Counting follows the paper (a per ACK of new data); `abc = true` counts
//! segments acked instead. Linux's `tcp_scalable.c` differs: no legacy window
//! for the decrease (always 7/8) and an increase switch effectively at 100
//! segments; it is not reproduced. The cut uses cwnd at the event, as the
//! paper writes it. `max_ssthresh` adds RFC 3742 Limited Slow-Start, as the
//! E-TCP paper's STCP runs (`max_ssthresh_ 100`) did.
use super::{abc_param, max_ssthresh_param, slow_start_units, CcState, CongestionControl, ControllerDoc, ParamDoc};
use crate::scenario::{params::Params, ConfigError};

/// Scalable TCP's parameters (`cc_params`); `Default` is the one place the
/// defaults are written.
#[derive(Clone, Debug, PartialEq)]
pub struct StcpConfig {
    /// Segments added per ACK in congestion avoidance (Kelly 2003: a = 0.01).
    pub a: f64,
    /// Fraction of cwnd removed on a congestion event (Kelly 2003: b = 0.125).
    pub b: f64,
    /// Legacy window `lwnd` in segments: standard TCP increase and decrease at
    /// or below (Kelly 2003 §3: 16).
    pub legacy_window: f64,
    /// RFC 3742 Limited Slow-Start threshold in segments; 0 = off (the E-TCP
    /// paper's STCP runs use 100).
    pub max_ssthresh: f64,
    /// Count segments acked (RFC 3465) instead of ACKs (the paper, default).
    pub abc: bool,
}

impl Default for StcpConfig {
    /// Kelly's values: a = 0.01, b = 0.125, lwnd = 16; Limited Slow-Start off.
    fn default() -> Self {
        StcpConfig { a: 0.01, b: 0.125, legacy_window: 16.0, max_ssthresh: 0.0, abc: false }
    }
}

pub struct Scalable {
    cfg: StcpConfig,
}

impl Scalable {
    pub fn new(cfg: StcpConfig) -> Self {
        Scalable { cfg }
    }

    pub fn doc() -> ControllerDoc {
        let d = StcpConfig::default();
        ControllerDoc {
            name: "stcp",
            doc: "Scalable TCP (Kelly 2003): +a per ACK, ×(1−b) on loss, Reno at or below legacy_window",
            params: vec![
                ParamDoc { name: "a", default: d.a.into(), doc: "segments added per ACK in congestion avoidance" },
                ParamDoc { name: "b", default: d.b.into(), doc: "fraction of cwnd removed on a congestion event" },
                ParamDoc {
                    name: "legacy_window",
                    default: d.legacy_window.into(),
                    doc: "segments; standard TCP increase and decrease at or below",
                },
                max_ssthresh_param(d.max_ssthresh),
                abc_param(d.abc),
            ],
        }
    }

    pub fn from_params(p: &serde_json::Map<String, serde_json::Value>, path: &str) -> Result<Self, ConfigError> {
        let d = StcpConfig::default();
        let mut p = Params::new(p, &format!("{path}.cc_params"));
        let a = p.f64_in("a", d.a, 1e-6, 1.0)?;
        let b = p.f64_in("b", d.b, 0.001, 0.999)?;
        let legacy_window = p.f64_in("legacy_window", d.legacy_window, 0.0, 1e9)?;
        let max_ssthresh = p.f64_in("max_ssthresh", d.max_ssthresh, 0.0, 1e12)?;
        let abc = p.bool("abc", d.abc)?;
        p.finish()?;
        Ok(Scalable::new(StcpConfig { a, b, legacy_window, max_ssthresh, abc }))
    }
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "stcp"
    }

    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        let n = slow_start_units(self.cfg.abc, s, acked, self.cfg.max_ssthresh);
        if n > 0 {
            let per_unit = if s.cwnd > self.cfg.legacy_window { self.cfg.a } else { 1.0 / s.cwnd.max(1.0) };
            s.cwnd += n as f64 * per_unit;
        }
    }

    /// `cwnd − b·cwnd` above the legacy window, half at or below (floor 2).
    fn ssthresh(&mut self, s: &CcState) -> f64 {
        let w = if s.cwnd > self.cfg.legacy_window { s.cwnd * (1.0 - self.cfg.b) } else { s.cwnd / 2.0 };
        w.max(2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::cc::test_state as st;

    #[test]
    fn increase_is_a_per_ack_above_legacy_window_and_reno_below() {
        let mut c = Scalable::new(StcpConfig::default());
        let mut s = st(100.0, 50.0);
        c.cong_avoid(&mut s, 1);
        assert!((s.cwnd - 100.01).abs() < 1e-12);
        let mut s = st(10.0, 5.0);
        c.cong_avoid(&mut s, 1);
        assert!((s.cwnd - 10.1).abs() < 1e-12);
        // Slow start is standard.
        let mut s = st(10.0, 1e9);
        c.cong_avoid(&mut s, 1);
        assert_eq!(s.cwnd, 11.0);
    }

    #[test]
    fn decrease_removes_b_above_legacy_window_and_halves_below() {
        let mut c = Scalable::new(StcpConfig::default());
        assert_eq!(c.ssthresh(&st(1000.0, 1e9)), 875.0);
        assert_eq!(c.ssthresh(&st(16.0, 1e9)), 8.0);
        assert_eq!(c.ssthresh(&st(3.0, 1e9)), 2.0);
    }

    /// MIMD: recovery after a loss takes ln(1/(1−b))/ln(1+a) ≈ 13.4 RTTs at any
    /// window (one RTT = one window of ACKs).
    #[test]
    fn loss_recovery_time_is_independent_of_window() {
        for w0 in [1000.0, 100000.0] {
            let mut c = Scalable::new(StcpConfig::default());
            let mut s = st(w0, 1.0);
            s.cwnd = c.ssthresh(&s);
            let mut rtts = 0;
            while s.cwnd < w0 {
                let n = s.cwnd as usize;
                for _ in 0..n {
                    c.cong_avoid(&mut s, 1);
                }
                rtts += 1;
            }
            assert!((13..=15).contains(&rtts), "w0 {w0}: {rtts} RTTs");
        }
    }

    #[test]
    fn params_are_checked() {
        let m = |j: &str| serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(j).unwrap();
        let e = Scalable::from_params(&m(r#"{"b": 1.5}"#), "flows[2]").err().unwrap();
        assert_eq!(e.field, "flows[2].cc_params.b");
        let e = Scalable::from_params(&m(r#"{"lwnd": 16}"#), "flows[2]").err().unwrap();
        assert_eq!(e.field, "flows[2].cc_params.lwnd");
    }
}
