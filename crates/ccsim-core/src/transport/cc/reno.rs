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
//!
//! Slow start stops at ssthresh (RFC 5681 §3.1, Linux `tcp_slow_start`);
//! with `slow_start = "ns2"` it adds one segment per ACK while cwnd <
//! ssthresh, as ns-2's `opencwnd()` (tcp.cc) does, so a fractional window
//! (after ns-2's unrounded halving and partial-ACK deflation) can pass
//! ssthresh by up to one segment: 2.42 with ssthresh 3 becomes 3.42, not 3.
//!
//! Linux's Reno in whole segments is `variant = "linux"` (`reno_linux.rs`,
//! the `linux` personality's Reno).
use super::{abc_param, cong_avoid_ai, slow_start_units, CcState, CongestionControl, ControllerDoc, ParamDoc};
use crate::scenario::{params::Params, ConfigError};

/// Reno's parameters (`cc_params`); `Default` is the one place the defaults
/// are written.
#[derive(Clone, Debug, PartialEq)]
pub struct RenoConfig {
    /// Count segments acknowledged (RFC 3465, L = 2 in slow start) instead of
    /// ACKs. Default `false`: one unit per ACK, as ns-2's `opencwnd()`.
    pub abc: bool,
    /// `slow_start = "ns2"`: +1 per ACK while cwnd < ssthresh, not capped
    /// at ssthresh (ns-2's `opencwnd()`). Default `false` (RFC 5681).
    pub ns2_slow_start: bool,
}

// Written out rather than derived: this impl is where the defaults live.
#[allow(clippy::derivable_impls)]
impl Default for RenoConfig {
    fn default() -> Self {
        RenoConfig { abc: false, ns2_slow_start: false }
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
            params: vec![
                abc_param(d.abc),
                ParamDoc {
                    name: "variant",
                    default: "rfc".into(),
                    doc: "rfc (RFC 5681 in real numbers, ssthresh from the flight) | linux (tcp_cong.c: whole \
                          segments, snd_cwnd_cnt, ssthresh = max(cwnd >> 1, 2); counts segments acked)",
                },
                ParamDoc {
                    name: "slow_start",
                    default: "rfc5681".into(),
                    doc: "rfc5681 (+1 per unit up to ssthresh) | ns2 (tcp.cc opencwnd: +1 per ACK while cwnd < \
                          ssthresh, passing it by a fraction; needs abc = false)",
                },
            ],
        }
    }

    /// The parameters, and whether `variant = "linux"`.
    fn parse(p: &serde_json::Map<String, serde_json::Value>, path: &str) -> Result<(RenoConfig, bool), ConfigError> {
        let d = RenoConfig::default();
        let mut p = Params::new(p, &format!("{path}.cc_params"));
        let linux = p.choice("variant", "rfc", &["rfc", "linux"])? == "linux";
        let abc = p.bool("abc", d.abc || linux)?;
        let ns2_slow_start = p.choice("slow_start", "rfc5681", &["rfc5681", "ns2"])? == "ns2";
        p.finish()?;
        if linux && (!abc || ns2_slow_start) {
            let (k, v) = if abc { ("slow_start", "\"ns2\"") } else { ("abc", "false") };
            return Err(ConfigError::new(
                format!("{path}.cc_params.{k}"),
                format!("{v}; variant = \"linux\" counts segments acked (abc = true) with tcp_slow_start"),
            ));
        }
        if ns2_slow_start && abc {
            return Err(ConfigError::new(
                format!("{path}.cc_params.slow_start"),
                "\"ns2\" is not allowed with abc = true (ns-2's opencwnd counts ACKs); use \"rfc5681\" or abc = false",
            ));
        }
        Ok((RenoConfig { abc, ns2_slow_start }, linux))
    }
}

/// The registry's constructor: RFC 5681's Reno or the kernel's, as
/// `variant` says.
pub fn build(
    params: &serde_json::Map<String, serde_json::Value>,
    path: &str,
) -> Result<Box<dyn CongestionControl>, ConfigError> {
    Ok(match Reno::parse(params, path)? {
        (cfg, false) => Box::new(Reno::new(cfg)),
        (_, true) => Box::<super::reno_linux::LinuxReno>::default(),
    })
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        if self.cfg.ns2_slow_start {
            // tcp.cc `opencwnd`, `wnd_option_` 1: one step per ACK.
            if s.in_slow_start() {
                s.cwnd += 1.0;
            } else {
                cong_avoid_ai(s, s.cwnd, 1);
            }
            return;
        }
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
    fn ns2_slow_start_passes_ssthresh_by_a_fraction() {
        // the B3 trace (docs/validation.md): cwnd_ 2.422 after a partial
        // ACK's deflation, ssthresh_ 3; ns-2's full ACK opens it to 3.422
        let mut s = st(2.422, 3.0);
        Reno::new(RenoConfig { ns2_slow_start: true, ..RenoConfig::default() }).cong_avoid(&mut s, 2);
        assert!((s.cwnd - 3.422).abs() < 1e-12, "cwnd {}", s.cwnd);
        let mut s = st(2.422, 3.0);
        Reno::new(RenoConfig::default()).cong_avoid(&mut s, 2);
        assert_eq!(s.cwnd, 3.0);
        // above ssthresh both add 1/cwnd per ACK
        let mut s = st(4.0, 3.0);
        Reno::new(RenoConfig { ns2_slow_start: true, ..RenoConfig::default() }).cong_avoid(&mut s, 3);
        assert_eq!(s.cwnd, 4.25);
    }
    #[test]
    fn ssthresh_is_half_flight_with_floor_two() {
        let mut r = Reno::new(RenoConfig::default());
        assert_eq!(r.ssthresh(&st(100.0, 1e9)), 50.0);
        assert_eq!(r.ssthresh(&st(3.0, 1e9)), 2.0);
    }
}
