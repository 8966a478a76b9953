//! Reno congestion control (RFC 5681 §3.1): slow start, then +1 segment per
//! RTT; halve on a congestion event. Reno, NewReno and SACK TCP differ only in
//! loss recovery, which the transport implements (`recovery = ...`); this file
//! is the window rule all three share (what ns-3 calls `TcpNewReno` and Linux
//! `reno`).
//!
//! Counting: by default one increment per ACK of new data (+1 in slow start,
//! +1/cwnd in congestion avoidance), as ns-2's `opencwnd()` does, because the
//! papers ran ns-2. With `abc = true` the increase is per segment acknowledged
//! (RFC 3465 byte counting, L = 2 in slow start), as Linux does; the two agree
//! when every segment is ACKed and differ under delayed ACKs.
use super::{abc_param, cong_avoid_ai, slow_start_units, CcState, CongestionControl, ControllerDoc};
use crate::scenario::{params::Params, ConfigError};

/// Reno's parameters (`cc_params`); `Default` is the one place the defaults
/// are written.
#[derive(Clone, Debug, PartialEq)]
pub struct RenoConfig {
    /// Count segments acknowledged (RFC 3465, L = 2 in slow start) instead of
    /// ACKs. Default `false`: one unit per ACK, as ns-2's `opencwnd()`.
    pub abc: bool,
}

// Written out rather than derived: this impl is where the defaults live.
#[allow(clippy::derivable_impls)]
impl Default for RenoConfig {
    fn default() -> Self {
        RenoConfig { abc: false }
    }
}

pub struct Reno {
    cfg: RenoConfig,
}

impl Reno {
    pub fn new(cfg: RenoConfig) -> Self {
        Reno { cfg }
    }

    pub fn doc() -> ControllerDoc {
        let d = RenoConfig::default();
        ControllerDoc {
            name: "reno",
            doc: "Reno/NewReno window rules (RFC 5681): slow start, +1/RTT, halve on loss",
            params: vec![abc_param(d.abc)],
        }
    }

    pub fn from_params(p: &serde_json::Map<String, serde_json::Value>, path: &str) -> Result<Self, ConfigError> {
        let d = RenoConfig::default();
        let mut p = Params::new(p, &format!("{path}.cc_params"));
        let abc = p.bool("abc", d.abc)?;
        p.finish()?;
        Ok(Reno::new(RenoConfig { abc }))
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        let n = slow_start_units(self.cfg.abc, s, acked, 0.0);
        if n > 0 {
            cong_avoid_ai(s, s.cwnd, n);
        }
    }

    /// RFC 5681 eq. 4: max(FlightSize/2, 2 segments).
    fn ssthresh(&mut self, s: &CcState) -> f64 {
        (s.flight as f64 / 2.0).max(2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::cc::test_state as st;
    #[test]
    fn slow_start_doubles_per_window_then_one_per_rtt() {
        let mut r = Reno::new(RenoConfig::default());
        let mut s = st(2.0, 1e9);
        for _ in 0..2 {
            r.cong_avoid(&mut s, 1);
        }
        assert_eq!(s.cwnd, 4.0);
        let mut s = st(100.0, 50.0);
        for _ in 0..100 {
            r.cong_avoid(&mut s, 1);
        }
        assert!((s.cwnd - 101.0).abs() < 0.01, "cwnd {}", s.cwnd);
    }
    #[test]
    fn ssthresh_is_half_flight_with_floor_two() {
        let mut r = Reno::new(RenoConfig::default());
        assert_eq!(r.ssthresh(&st(100.0, 1e9)), 50.0);
        assert_eq!(r.ssthresh(&st(3.0, 1e9)), 2.0);
    }
}
