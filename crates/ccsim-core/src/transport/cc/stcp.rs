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
use super::{
    abc_param, ack_units, limited_slow_start, max_ssthresh_param, CcState, CongestionControl, ControllerDoc, ParamDoc,
};
use crate::scenario::{params::Params, ConfigError};

pub struct Scalable {
    a: f64,
    b: f64,
    legacy_window: f64,
    max_ssthresh: f64,
    abc: bool,
}

impl Scalable {
    pub fn new(a: f64, b: f64, legacy_window: f64, max_ssthresh: f64, abc: bool) -> Self {
        Scalable { a, b, legacy_window, max_ssthresh, abc }
    }

    /// Kelly's values: a = 0.01, b = 0.125, lwnd = 16.
    pub fn kelly() -> Self {
        Scalable::new(0.01, 0.125, 16.0, 0.0, false)
    }

    pub fn doc() -> ControllerDoc {
        ControllerDoc {
            name: "stcp",
            doc: "Scalable TCP (Kelly 2003): +a per ACK, ×(1−b) on loss, Reno at or below legacy_window",
            params: vec![
                ParamDoc { name: "a", default: 0.01.into(), doc: "segments added per ACK in congestion avoidance" },
                ParamDoc { name: "b", default: 0.125.into(), doc: "fraction of cwnd removed on a congestion event" },
                ParamDoc {
                    name: "legacy_window",
                    default: 16.0.into(),
                    doc: "segments; standard TCP increase and decrease at or below",
                },
                max_ssthresh_param(),
                abc_param(),
            ],
        }
    }

    pub fn from_params(p: &serde_json::Map<String, serde_json::Value>, path: &str) -> Result<Self, ConfigError> {
        let mut p = Params::new(p, &format!("{path}.cc_params"));
        let a = p.f64_in("a", 0.01, 1e-6, 1.0)?;
        let b = p.f64_in("b", 0.125, 0.001, 0.999)?;
        let legacy_window = p.f64_in("legacy_window", 16.0, 0.0, 1e9)?;
        let max_ssthresh = p.f64_in("max_ssthresh", 0.0, 0.0, 1e12)?;
        let abc = p.bool("abc", false)?;
        p.finish()?;
        Ok(Scalable::new(a, b, legacy_window, max_ssthresh, abc))
    }
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "stcp"
    }

    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        let mut n = ack_units(self.abc, s, acked);
        if s.in_slow_start() {
            n = limited_slow_start(s, n, self.max_ssthresh);
        }
        if n > 0 {
            let per_unit = if s.cwnd > self.legacy_window { self.a } else { 1.0 / s.cwnd.max(1.0) };
            s.cwnd += n as f64 * per_unit;
        }
    }

    /// `cwnd − b·cwnd` above the legacy window, half at or below (floor 2).
    fn ssthresh(&mut self, s: &CcState) -> f64 {
        let w = if s.cwnd > self.legacy_window { s.cwnd * (1.0 - self.b) } else { s.cwnd / 2.0 };
        w.max(2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::cc::test_state as st;

    #[test]
    fn increase_is_a_per_ack_above_legacy_window_and_reno_below() {
        let mut c = Scalable::kelly();
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
        let mut c = Scalable::kelly();
        assert_eq!(c.ssthresh(&st(1000.0, 1e9)), 875.0);
        assert_eq!(c.ssthresh(&st(16.0, 1e9)), 8.0);
        assert_eq!(c.ssthresh(&st(3.0, 1e9)), 2.0);
    }

    /// MIMD: recovery after a loss takes ln(1/(1−b))/ln(1+a) ≈ 13.4 RTTs at any
    /// window (one RTT = one window of ACKs).
    #[test]
    fn loss_recovery_time_is_independent_of_window() {
        for w0 in [1000.0, 100000.0] {
            let mut c = Scalable::kelly();
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
