//! XCP's end system (Katabi, Handley, Rohrs, SIGCOMM 2002, §3.1 and §3.2),
//! as ns-2.35's `Agent/TCP/Reno/XCP` (xcp/xcp-end-sys.cc) runs it, the
//! simulator the paced-XCP paper used:
//!
//! - Every data segment carries the congestion header: H_cwnd (the window,
//!   in bytes of this segment's size), H_rtt (srtt; 0 before the first
//!   sample) and H_feedback, the desired change of throughput in bytes/s.
//!   ns-2's sender asks for "unlimited" demand, `1e24 − cwnd·mss/srtt`
//!   (`MAX_THROUGHPUT − tput`), and 0 while it has no RTT estimate.
//! - On each new ACK the echoed feedback (the receiver's sum over the
//!   segments it acknowledges) changes the window by
//!   `feedback · srtt / mss` segments, floor one segment (the paper's
//!   `cwnd = max(cwnd + H_feedback, s)` with feedback in rate units).
//! - ns-2's agent is a Reno agent underneath, but its window rule is the
//!   routers' alone: `XcpRenoTcpAgent` overrides `opencwnd()` with
//!   `XcpEndsys::opencwnd()`, which does nothing ("cwnd is controlled in
//!   recv()", xcp/xcp-end-sys.h), so Reno's +1/cwnd per ACK (and slow
//!   start) never runs; on loss it halves and recovers as Reno. We follow
//!   ns-2 (`reno_increase = false`, default); `true` adds Reno's increase
//!   (slow start after the first loss) to the routers' feedback.
//! - The header's window is ns-2's `TcpAgent::window()`, `(int)cwnd_`:
//!   `x_ = srtt / window()` and the demand's throughput `window() · size /
//!   srtt` use whole segments (`int_window = true`, default).
//!
//! - Unpaced by default, in the `rfc` personality too: draft-falk-xcp-spec-03
//!   §4.1.3 turns the feedback into the window,
//!   `cwnd = max(cwnd + feedback * RTT, MSS)`, and says nothing of how the
//!   window's increase is sent (no pacing, no burst limit), and ns-2's
//!   agent sends it back to back.
//!   The first feedback (α·BDP) therefore leaves as one burst, which needs
//!   Katabi et al.'s one-BDP buffers (docs/validation.md, "XCP at high
//!   bandwidth-delay products"); `pacing` paces it (the paced-XCP paper).
//!
//! Differences from ns-2, documented in docs/controllers.md: the srtt is
//! the transport's RFC 6298 estimate (ns-2 keeps its own tick-based
//! `xcp_srtt_`, identical with fine timers, which the paper used), and the
//! recovery is whichever `recovery` the flow selects (ns-2: Reno).
use super::{abc_param, CcState, CongestionControl, ControllerDoc, FeedbackSample, NetFeedback, ParamDoc};
use crate::net::packet::{CongestionHeader, XcpHeader};
use crate::scenario::{params::Params, ConfigError};

/// ns-2's `MAX_THROUGHPUT` (xcp-end-sys.cc): a sender's unlimited demand.
pub const MAX_THROUGHPUT: f64 = 1e24;

/// XCP's end-system parameters (`cc_params`); `Default` is the one place
/// the defaults are written.
#[derive(Clone, Debug, PartialEq)]
pub struct XcpConfig {
    /// Add Reno's window increase to the routers' feedback (default
    /// `false`: ns-2's `Agent/TCP/Reno/XCP` replaces `opencwnd()` with an
    /// empty `XcpEndsys::opencwnd()`, xcp/xcp-end-sys.h).
    pub reno_increase: bool,
    /// Reno's ACK counting for that increase (see `reno`).
    pub abc: bool,
    /// Stamp the window as ns-2 does, in whole segments: `x_ = srtt /
    /// window()` and `tput = window() · size / srtt` with `TcpAgent::window()`
    /// = `(int)cwnd_` (tcp/tcp.cc), so a window of 1.9 segments reads as 1
    /// in the routers' Σx and per-packet positive feedback (default `true`).
    /// `false`: the fractional window.
    pub int_window: bool,
}

impl Default for XcpConfig {
    fn default() -> Self {
        XcpConfig { reno_increase: false, abc: false, int_window: true }
    }
}

pub struct Xcp {
    cfg: XcpConfig,
    reno: super::reno::Reno,
    /// The last echoed feedback and the window change it gave (`None`
    /// before the first).
    pub last: Option<FeedbackSample>,
    /// A congestion event happened (slow start is allowed from then on).
    congested: bool,
}

impl Xcp {
    pub fn new(cfg: XcpConfig) -> Self {
        let reno = super::reno::Reno::new(super::reno::RenoConfig { abc: cfg.abc, ..Default::default() });
        Xcp { cfg, reno, last: None, congested: false }
    }

    pub fn doc() -> ControllerDoc {
        let d = XcpConfig::default();
        ControllerDoc {
            name: "xcp",
            doc: "XCP end system (Katabi et al. 2002; ns-2 Agent/TCP/Reno/XCP): stamps H_cwnd, H_rtt, \
                  H_feedback on data, applies routers' feedback cwnd += fb*srtt/mss; Reno on loss. \
                  Needs routers: xcp on the bottleneck queue",
            params: vec![
                ParamDoc {
                    name: "reno_increase",
                    default: d.reno_increase.into(),
                    doc: "also grow the window as Reno (+1/cwnd per ACK); false: routers' feedback only, as ns-2's \
                          agent (its opencwnd() is empty)",
                },
                abc_param(d.abc),
                ParamDoc {
                    name: "int_window",
                    default: d.int_window.into(),
                    doc: "stamp H_cwnd and the demand with the whole-segment window (int)cwnd, as ns-2's \
                          TcpAgent::window(); false: the fractional window",
                },
            ],
        }
    }

    pub fn from_params(p: &serde_json::Map<String, serde_json::Value>, path: &str) -> Result<Self, ConfigError> {
        let d = XcpConfig::default();
        let mut p = Params::new(p, &format!("{path}.cc_params"));
        let reno_increase = p.bool("reno_increase", d.reno_increase)?;
        let abc = p.bool("abc", d.abc)?;
        let int_window = p.bool("int_window", d.int_window)?;
        p.finish()?;
        Ok(Xcp::new(XcpConfig { reno_increase, abc, int_window }))
    }
}

/// XCP takes its window from the routers' feedback (Katabi et al. 2002
/// §3.1): it needs an XCP router on its forward path.
pub const NEEDS: super::Needs = super::Needs { path_stage: Some(crate::net::stage::xcp::NAME), ..super::Needs::NONE };

impl CongestionControl for Xcp {
    fn name(&self) -> &'static str {
        "xcp"
    }

    /// Nothing by default (ns-2's `XcpEndsys::opencwnd()`); with
    /// `reno_increase`, Reno's `opencwnd()`: before the first congestion
    /// event no slow start (ns-2's default `ssthresh_ 0`), +1/cwnd per ACK.
    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        if !self.cfg.reno_increase {
            return;
        }
        if self.congested {
            self.reno.cong_avoid(s, acked);
        } else {
            super::cong_avoid_ai(s, s.cwnd, super::ack_units(self.cfg.abc, s, acked));
        }
    }

    /// Reno's halving (ns-2's XCP agent is a Reno agent).
    fn ssthresh(&mut self, s: &CcState) -> f64 {
        self.congested = true;
        self.reno.ssthresh(s)
    }

    /// ns-2 `XcpEndsys::recv`: `cwnd += reverse_feedback · srtt / size`.
    fn on_feedback(&mut self, s: &mut CcState, fb: NetFeedback) {
        let NetFeedback::Echo(CongestionHeader::Xcp(h)) = fb else { return };
        let srtt = s.srtt_s.unwrap_or(0.0);
        let delta = h.feedback_bytes_per_s as f64 * srtt / s.mss_bytes.max(1) as f64;
        if delta.is_finite() {
            s.cwnd = (s.cwnd + delta).max(1.0);
            self.last =
                Some(FeedbackSample { feedback_bytes_per_s: h.feedback_bytes_per_s as f64, delta_cwnd_pkts: delta });
        }
    }

    fn last_feedback(&self) -> Option<FeedbackSample> {
        self.last
    }

    /// ns-2 `XcpEndsys::send` for a data segment.
    fn cong_header(&mut self, s: &CcState, size: u32) -> Option<CongestionHeader> {
        let w = if self.cfg.int_window { s.cwnd.floor().max(1.0) } else { s.cwnd };
        let cwnd_bytes = (w * size as f64) as f32;
        let h = match s.srtt_s.filter(|&r| r > 0.0) {
            Some(r) => {
                let tput = w * s.mss_bytes as f64 / r;
                XcpHeader { cwnd_bytes, rtt_s: r as f32, feedback_bytes_per_s: (MAX_THROUGHPUT - tput) as f32 }
            }
            None => XcpHeader { cwnd_bytes, rtt_s: 0.0, feedback_bytes_per_s: 0.0 },
        };
        Some(CongestionHeader::Xcp(h))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::cc::test_state as st;

    #[test]
    fn header_asks_for_unlimited_demand_once_rtt_is_known() {
        let mut x = Xcp::new(XcpConfig::default());
        let mut s = st(10.0, 64.0);
        s.srtt_s = None;
        let Some(CongestionHeader::Xcp(h)) = x.cong_header(&s, 1040) else { panic!() };
        assert_eq!((h.rtt_s, h.feedback_bytes_per_s, h.cwnd_bytes), (0.0, 0.0, 10_400.0));
        s.srtt_s = Some(0.1);
        let Some(CongestionHeader::Xcp(h)) = x.cong_header(&s, 1040) else { panic!() };
        assert!((h.rtt_s - 0.1).abs() < 1e-7);
        assert!(h.feedback_bytes_per_s > 9.9e23);
    }

    #[test]
    fn feedback_changes_window_by_rate_times_srtt_with_a_floor() {
        let mut x = Xcp::new(XcpConfig::default());
        let mut s = st(10.0, 64.0);
        s.srtt_s = Some(0.1);
        s.mss_bytes = 1000;
        let echo = |f: f32| {
            NetFeedback::Echo(CongestionHeader::Xcp(XcpHeader { feedback_bytes_per_s: f, ..Default::default() }))
        };
        assert_eq!(x.last_feedback(), None, "no feedback before the first echo");
        x.on_feedback(&mut s, echo(20_000.0)); // 20 kB/s · 0.1 s / 1000 B = 2 segments
        assert!((s.cwnd - 12.0).abs() < 1e-9);
        let fb = x.last_feedback().unwrap();
        assert_eq!(fb.feedback_bytes_per_s, 20_000.0);
        assert!((fb.delta_cwnd_pkts - 2.0).abs() < 1e-9);
        x.on_feedback(&mut s, echo(-1e9));
        assert_eq!(s.cwnd, 1.0);
        assert_eq!(x.last_feedback().unwrap().feedback_bytes_per_s, -1e9);
    }

    /// ns-2's `XcpEndsys::opencwnd()` is empty: an ACK changes the window
    /// only through the echoed feedback, before and after a loss; Reno's
    /// +1/cwnd (and slow start after a loss) only with `reno_increase`.
    #[test]
    fn no_window_increase_of_its_own_unless_reno_increase() {
        for (reno_increase, after, after_loss) in [(false, 10.0, 10.0), (true, 10.1, 11.0)] {
            let mut x = Xcp::new(XcpConfig { reno_increase, ..XcpConfig::default() });
            let mut s = st(10.0, 64.0);
            x.cong_avoid(&mut s, 1);
            assert!((s.cwnd - after).abs() < 1e-9, "reno_increase {reno_increase}: cwnd {}", s.cwnd);
            s.cwnd = 10.0;
            s.ssthresh = x.ssthresh(&st(40.0, 64.0)); // 20: slow start from 10 if Reno's rule runs
            x.cong_avoid(&mut s, 1);
            assert!((s.cwnd - after_loss).abs() < 1e-9, "reno_increase {reno_increase}: cwnd {}", s.cwnd);
        }
        assert!(!XcpConfig::default().reno_increase);
    }

    /// ns-2 stamps `x_ = srtt / window()` and `tput = window() · size /
    /// srtt` with `window()` = `(int)cwnd_`: 1.9 segments reads as 1.
    #[test]
    fn header_window_is_whole_segments_unless_int_window_false() {
        for (int_window, w) in [(true, 1.0f64), (false, 1.9)] {
            let mut x = Xcp::new(XcpConfig { int_window, ..XcpConfig::default() });
            let mut s = st(1.9, 64.0);
            s.srtt_s = Some(0.1);
            s.mss_bytes = 1000;
            let Some(CongestionHeader::Xcp(h)) = x.cong_header(&s, 1050) else { panic!() };
            // what the routers read: x = H_rtt · size / H_cwnd (the demand's
            // tput is lost in f32 next to 1e24 either way)
            assert_eq!(h.cwnd_bytes, (w * 1050.0) as f32, "int_window {int_window}");
        }
    }

    #[test]
    fn loss_halves_as_reno() {
        let mut x = Xcp::new(XcpConfig::default());
        let s = st(40.0, 64.0);
        assert_eq!(x.ssthresh(&s), 20.0);
    }
}
