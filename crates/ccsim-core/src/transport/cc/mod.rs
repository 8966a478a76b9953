//! The congestion-control interface, shaped after Linux `tcp_congestion_ops`.
//!
//! A controller owns only its own state and the window it is asked to set.
//! Loss detection, recovery, RTO, SACK and pacing live in the transport and
//! are shared by every controller. The hooks mirror Linux:
//!
//! | here             | Linux                      | when |
//! |------------------|----------------------------|------|
//! | `cong_avoid`     | `cong_avoid`               | ACK of new data outside fast recovery |
//! | `ssthresh`       | `ssthresh`                 | congestion event (fast retransmit, RTO or ECN echo) |
//! | `ssthresh_ecn`   | `ssthresh` (in CWR)        | ECN echo, once per window (default: `ssthresh`) |
//! | `pkts_acked`     | `pkts_acked`               | every ACK of new data, with the RTT sample |
//! | `on_ack`         | `in_ack_event`             | every ACK, with the segments it acknowledged and its ECE |
//! | `on_event`       | `cwnd_event` / `set_state` | recovery start/end, RTO and loss end, ECN echo and CWR end |
//! | `on_tick`        | (FAST's per-RTT update)    | every `tick_interval` seconds |
//! | `on_feedback`    | —                          | explicit network feedback (XCP, GWA) |
//! | `cong_control`   | `cong_control`             | every ACK, with its delivery-rate sample (BBR); replaces `cong_avoid` and the transport's window rules |
//! | `cong_header`    | —                          | stamp a congestion header on outgoing data (XCP) |
//!
//! Windows are in segments (`f64`, so additive increase can be fractional,
//! as in ns-2's `double cwnd_`).
//!
//! Each controller has one config type (`RenoConfig`, `HstcpConfig`, …,
//! named after its `cc =` name) whose `Default` impl is the only place its
//! parameter defaults are written, with their sources. `doc()` (what
//! `ccsim list` prints) and `from_params()` (which reads `cc_params`, each
//! key's range next to the read) take their defaults from it, and the
//! controller is built from it with `new(config)`. Window-based controllers
//! start `cong_avoid` with the shared [`slow_start_units`].
pub mod bbr;
pub mod bbr3;
pub mod bic;
pub mod cubic;
pub mod cubic_linux;
pub mod dctcp;
pub mod fast;
pub mod hstcp;
pub mod htcp;
pub mod hystart;
pub mod linux_ai;
pub mod ltcp;
pub mod minmax;
pub mod prague;
pub mod registry;
pub mod reno;
pub mod reno_linux;
pub mod stcp;
pub mod vegas;
pub mod xcp;

use crate::sim::Time;
use std::any::Any;
use std::sync::Arc;

/// The sender state a controller reads and (for `cwnd`/`ssthresh`) writes.
#[derive(Clone, Debug)]
pub struct CcState {
    pub cwnd: f64,
    pub ssthresh: f64,
    /// Upper bound the transport enforces on `cwnd` after every hook.
    pub max_cwnd: f64,
    pub now: Time,
    /// Segments sent and not yet cumulatively acknowledged (FlightSize).
    pub flight: u64,
    pub srtt_s: Option<f64>,
    pub min_rtt_s: Option<f64>,
    pub mss_bytes: u32,
    /// Header bytes of a segment on the wire (payload + headers = the MTU
    /// a controller paces by, Linux `tcp_mss_to_mtu`).
    pub header_bytes: u32,
    /// The pacing rate in payload bytes per second (Linux
    /// `sk_pacing_rate`; 0: none yet, the sender is not held). A
    /// controller with `cong_control` sets it; for the others a sender
    /// with `pacing = "rate"` sets it from cwnd and srtt after each ACK.
    pub pacing_rate: f64,
    /// RFC 3465 §2.2's L: with a controller's `abc`, the most segments one
    /// ACK adds in slow start (0: no limit, Linux's `tcp_slow_start`).
    pub abc_l: u32,
    /// Segments marked lost so far, a retransmission marked lost again
    /// counted again, modulo 2^32 as Linux's `tp->lost` (compare with
    /// `wrapping_sub`; 32 bits fit beside `abc_l`, keeping the sender's
    /// size); at a `Timeout` event it includes the timeout's own marks, as
    /// `tcp_enter_loss` marks before it tells the controller.
    pub lost: u32,
}

impl CcState {
    pub fn now_s(&self) -> f64 {
        crate::sim::time::to_secs(self.now)
    }
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// Events a controller may react to (Linux `tcp_ca_event` and state changes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcEvent {
    /// Fast retransmit: entering fast recovery (after `ssthresh` was set).
    RecoveryStart,
    /// Leaving fast recovery (full ACK).
    RecoveryEnd,
    /// Retransmission timeout (after `ssthresh` was set; cwnd is then 1).
    Timeout,
    /// Leaving the loss state a timeout began: everything outstanding at
    /// the timeout is acknowledged (Linux `CA_Loss` -> `CA_Open`).
    LossEnd,
    /// The receiver echoed a congestion-experienced mark.
    EcnEcho,
    /// The window of an ECE reduction is acknowledged, up to and beyond
    /// the segment that carried CWR (Linux `CA_CWR` -> `CA_Open` once
    /// `snd_una` passes `high_seq`, `tcp_fastretrans_alert`). Not sent if
    /// a fast recovery or a timeout began in that window (they end with
    /// their own event).
    CwrEnd,
    /// The first transmission with nothing in flight (Linux
    /// `CA_EVENT_TX_START`): a restart after idle. Sent only to
    /// controllers with `cong_control`.
    TxStart,
    /// A reduction proven spurious was taken back (Linux
    /// `tcp_undo_cwnd_reduction` calling `undo_cwnd`; the `linux`
    /// personality's `undo`): the transport has restored cwnd, unless the
    /// controller sets it itself, and restores ssthresh after the event.
    Undo,
}

/// The sender's loss state as a controller sees it (Linux
/// `tcp_ca_state`; ECN's CWR counts as `Open`, as BBR reads it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    #[default]
    Open,
    /// Fast recovery.
    Recovery,
    /// After a retransmission timeout, until its window is acknowledged.
    Loss,
}

/// One ACK's delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation
/// §3; Linux `struct rate_sample`, `tcp_rate_gen`), in segments and seconds,
/// handed to `cong_control`. Made by [`crate::transport::tcp::rate`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Segments delivered over `interval_s` (`None`: no valid sample on
    /// this ACK: nothing newly delivered with timing, or the interval was
    /// shorter than the minimum RTT).
    pub delivered: Option<u64>,
    /// max(send phase, ACK phase) of the sample, seconds (> 0 when
    /// `delivered` is `Some`).
    pub interval_s: f64,
    /// The connection's delivered count when the sample's packet was sent
    /// (Linux `prior_delivered`; BBR's round counting).
    pub prior_delivered: u64,
    /// The sample's packet was sent while the application left the pipe
    /// unfilled: it may underestimate the bottleneck.
    pub is_app_limited: bool,
    /// Segments newly acknowledged or SACKed by this ACK.
    pub acked_sacked: u64,
    /// Segments newly marked lost while processing this ACK.
    pub losses: u64,
    /// Segments in flight (RFC 6675 pipe) before this ACK.
    pub prior_in_flight: u64,
    /// Segments in flight after it (Linux `tcp_packets_in_flight`).
    pub in_flight: u64,
    /// The connection's delivered count after this ACK (Linux `tp->delivered`).
    pub total_delivered: u64,
    /// When `total_delivered` last grew, or the sampling restarted with
    /// nothing outstanding (Linux `tp->delivered_mstamp`).
    pub delivered_time: Time,
    /// The earliest departure time of the sender's next transmission
    /// (Linux `tcp_wstamp_ns`; 0 for a sender without rate pacing).
    pub wstamp: Time,
    /// Segments delivered whose ACK carried ECE, or with AccECN the CE
    /// marks the receiver counted, in total (Linux `delivered_ce`).
    pub total_delivered_ce: u64,
    /// Of which reported by this ACK (Linux `rs->ece_delta`).
    pub ece_delta: u64,
    /// Segments in flight when the sample's packet was sent, itself included
    /// (D6 `P.tx_in_flight`).
    pub tx_in_flight: u64,
    /// Segments marked lost between the sample's packet's send and now
    /// (D6 `RS.lost`).
    pub lost: u64,
    /// The RTT this ACK measured, seconds (its timestamp echo).
    pub rtt_s: Option<f64>,
    /// The sender's state after this ACK's loss-recovery rules.
    pub ca_state: CaState,
    /// The connection is in an app-limited bubble after this ACK (Linux
    /// `tp->app_limited != 0` after `tcp_rate_gen`): the application left
    /// the pipe unfilled.
    pub conn_app_limited: bool,
}

impl RateSample {
    /// The sample's delivery rate in segments per second.
    pub fn rate_pkts_per_s(&self) -> Option<f64> {
        self.delivered.filter(|_| self.interval_s > 0.0).map(|d| d as f64 / self.interval_s)
    }
}

/// What a controller may know of its flow's TCP set-up, given once when it
/// is built (Linux reads it from the socket: `tp->ecn_flags`,
/// `tcp_is_sack`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowInfo {
    /// The flow sends ECN-capable data and its receiver feeds back the CE
    /// state of each delivered segment (`ecn = true` with `ecn_feedback =
    /// "dctcp"` or `"accecn"`), not RFC 3168's ECE latched until CWR.
    pub ecn_precise: bool,
    /// SACK recovery (`recovery = "sack"`): the sender learns of several
    /// losses in a round trip.
    pub sack: bool,
    /// The sender sizes its transmissions as Linux's TSO autosizing
    /// (`tso_autosize`): BBR's quantization budget counts them.
    pub tso: bool,
    /// The flow's id, once it is built for a run (`None` while a scenario
    /// is only validated): a controller outside the engine names it in
    /// its errors.
    pub flow: Option<u32>,
}

/// What `cong_control` asks of the sender beyond cwnd and pacing rate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CongControlOut {
    /// Mark what is sent from now on app-limited until the data in flight
    /// now is delivered (BBR's ProbeRTT: its low rate must not lower the
    /// bandwidth estimate; Linux sets `tp->app_limited`).
    pub mark_app_limited: bool,
}

/// What one ACK told the sender (`on_ack`, Linux `in_ack_event`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckInfo {
    /// Segments newly acknowledged by the cumulative ACK (0: a duplicate).
    pub acked: u64,
    /// The ACK signalled congestion: it carried ECN-Echo (RFC 3168), or
    /// its AccECN count grew (RFC 9768).
    pub ece: bool,
    /// Segments it reports CE-marked: with ECE feedback the segments it
    /// acknowledges if it carried ECE (Linux counts `delivered_ce` so);
    /// with AccECN the growth of the receiver's CE counter.
    pub ce: u64,
    /// The first unacknowledged segment after it (SND.UNA).
    pub una: u64,
    /// The next segment to be sent for the first time (SND.NXT).
    pub snd_nxt: u64,
}

/// Explicit feedback carried back from the network (XCP, GWA).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NetFeedback {
    /// XCP: change of window in segments granted by the routers.
    WindowDelta(f64),
    /// GWA / receiver-advertised: window cap in segments.
    WindowCap(f64),
    /// The congestion header a new ACK carried back (the receiver's echo);
    /// the controller that stamped its own header interprets it.
    Echo(crate::net::packet::CongestionHeader),
}

/// One congestion controller. `Send` so a run can move across threads.
pub trait CongestionControl: Send {
    /// The name flows give it (`cc = "..."`).
    fn name(&self) -> &'static str;
    /// Grow `cwnd` for `acked` newly acknowledged segments.
    fn cong_avoid(&mut self, s: &mut CcState, acked: u64);
    /// The new `ssthresh` after a congestion event.
    fn ssthresh(&mut self, s: &CcState) -> f64;
    /// The new `ssthresh` when the receiver echoes a CE mark (once per
    /// window); the loss rule unless the controller answers marks apart
    /// (DCTCP's cwnd·(1 − α/2)).
    fn ssthresh_ecn(&mut self, s: &CcState) -> f64 {
        self.ssthresh(s)
    }
    /// The new `ssthresh` at a retransmission timeout; the loss rule
    /// unless the controller answers timeouts apart (HighSpeed's
    /// `ns2_first_decrease`: ns-2's `slowdown` halves at a timeout).
    fn ssthresh_rto(&mut self, s: &CcState) -> f64 {
        self.ssthresh(s)
    }
    /// Every ACK of new data, with its RTT sample in seconds.
    fn pkts_acked(&mut self, _s: &mut CcState, _acked: u64, _rtt_s: Option<f64>) {}
    /// Every ACK, before the transport reacts to it (DCTCP counts the
    /// marked fraction here).
    fn on_ack(&mut self, _s: &mut CcState, _a: AckInfo) {}
    /// A state change or event of the sender ([`CcEvent`]: recovery,
    /// timeout, ECN echo, CWR's end, a restart after idle).
    fn on_event(&mut self, _s: &mut CcState, _ev: CcEvent) {}
    /// Period of `on_tick`, if the controller updates on a timer.
    fn tick_interval_s(&self, _s: &CcState) -> Option<f64> {
        None
    }
    /// Every `tick_interval_s` seconds (FAST's per-RTT update).
    fn on_tick(&mut self, _s: &mut CcState) {}
    /// Explicit feedback from the network ([`NetFeedback`]: XCP's window
    /// change, GWA's window cap).
    fn on_feedback(&mut self, _s: &mut CcState, _fb: NetFeedback) {}
    /// The congestion header to stamp on an outgoing data segment of `size`
    /// bytes on the wire (XCP's H_cwnd, H_rtt, H_feedback); `None` (the
    /// default) sends none. `s.srtt_s` is current.
    fn cong_header(&mut self, _s: &CcState, _size: u32) -> Option<crate::net::packet::CongestionHeader> {
        None
    }
    /// The router feedback this controller last applied (XCP), for the
    /// flow series; `None` (the default) for controllers without one, and
    /// before the first echoed feedback.
    fn last_feedback(&self) -> Option<FeedbackSample> {
        None
    }
    /// The controller's estimate of the marked fraction (DCTCP's α), for
    /// the flow series; `None` for controllers without one.
    fn ecn_alpha(&self) -> Option<f64> {
        None
    }
    /// The model a model-based controller (BBR) steers by, for the flow
    /// series: Linux's `get_info` hook, which `TCP_CC_INFO` reads as
    /// `struct tcp_bbr_info`; `None` for controllers without one.
    fn model_info(&self, _s: &CcState) -> Option<ModelInfo> {
        None
    }

    /// The fewest segments one transmission holds under TSO autosizing
    /// (Linux's `min_tso_segs` hook; `net.ipv4.tcp_min_tso_segs` without).
    fn min_tso_segs(&self, _s: &CcState) -> u32 {
        crate::transport::tso::MIN_TSO_SEGS
    }

    /// Whether this controller runs on delivery-rate samples and sets cwnd
    /// and the pacing rate itself (Linux `cong_control`, ns-3
    /// `HasCongControl`). If so, the sender keeps a rate sampler and calls
    /// [`Self::cong_control`] on every ACK, and neither calls `cong_avoid`
    /// nor changes cwnd on recovery, timeout or ECE: the controller sees
    /// those through `on_event`, `ssthresh` and the sample's `ca_state`
    /// (Linux `tcp_cong_control` returns after `cong_control`, and
    /// `tcp_end_cwnd_reduction` skips such controllers). The timeout's
    /// cwnd of one segment (Linux `tcp_enter_loss`) is the one exception.
    fn has_cong_control(&self) -> bool {
        false
    }
    /// Every ACK, after the loss-recovery rules, with its rate sample.
    fn cong_control(&mut self, _s: &mut CcState, _rs: &RateSample) -> CongControlOut {
        CongControlOut::default()
    }
    /// The flow's set-up ([`FlowInfo`]), once, after the controller is
    /// built (BBR v3's ECN eligibility and loss rule without SACK).
    fn set_flow_info(&mut self, _f: FlowInfo) {}
    /// The controller's own random stream (BBR's ProbeBW phase), seeded
    /// from the scenario's seed and the flow id.
    fn seed_rng(&mut self, _rng: crate::sim::rng::Rng) {}
    /// Hold the parameters the flows of one `[[flows]]` entry have in
    /// common as one copy: take them from `shared` if they are the same,
    /// else leave this controller's there ([`share`]). Once, after the
    /// controller is built. The default shares nothing: a controller whose
    /// parameters are a few bytes keeps them inline.
    fn share_config(&mut self, _shared: &mut SharedConfig) {}
}

/// A controller's parameters as the flows of one `[[flows]]` entry share
/// them ([`CongestionControl::share_config`]; the entry's
/// `transport::Shared`).
pub type SharedConfig = Option<Arc<dyn Any + Send + Sync>>;

/// Make `own` the copy in `shared` if that one is of the same type and
/// equal, else put `own` there for the flows built after it (as
/// `TcpConfig::share` does for the TCP parameters): the flows of an entry
/// are built from one spec, so all but the first take the first's.
pub fn share<T: PartialEq + Send + Sync + 'static>(own: &mut Arc<T>, shared: &mut SharedConfig) {
    match shared.as_ref().and_then(|s| Arc::clone(s).downcast::<T>().ok()) {
        Some(s) if *s == **own => *own = s,
        _ => *shared = Some(Arc::clone(own) as Arc<dyn Any + Send + Sync>),
    }
}

/// One echoed router feedback as the sender applied it (ns-2's XCP agent
/// traces `reverse_feedback_` and the resulting `cwnd` on every ACK).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FeedbackSample {
    /// The echoed H_feedback (ns-2 `reverse_feedback_`): the desired change
    /// of throughput, in bytes/s.
    pub feedback_bytes_per_s: f64,
    /// The window change it gave: `feedback · srtt / mss`, in packets (the
    /// paper's `cwnd = max(cwnd + H_feedback, s)` in window units).
    pub delta_cwnd_pkts: f64,
}

/// A model-based controller's estimates, the fields of Linux's
/// `struct tcp_bbr_info` (`bbr_get_info`) in SI units, so a ccsim run and
/// a kernel socket read through `TCP_CC_INFO` compare field by field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModelInfo {
    /// The bandwidth the controller paces and sizes its window by
    /// (`bbr_bw`: BtlBw, or the policer's long-term rate while one is
    /// assumed), payload bytes per second (`bbr_bw · mss_cache`).
    pub bw_bytes_per_s: f64,
    /// RTprop (`min_rtt_us`), seconds; `None` before a sample.
    pub min_rtt_s: Option<f64>,
    /// The current pacing and cwnd gains (the kernel's in 1/256).
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
}

/// Slow start (RFC 5681 §3.1): +1 segment per acked segment up to ssthresh;
/// returns the acked segments left over for congestion avoidance
/// (Linux `tcp_slow_start`).
pub fn slow_start(s: &mut CcState, acked: u64) -> u64 {
    let room = (s.ssthresh - s.cwnd).max(0.0);
    let used = (acked as f64).min(crate::sim::math::ceil_nonneg(room));
    s.cwnd = (s.cwnd + used).min(s.ssthresh.max(s.cwnd));
    acked - used as u64
}

/// Additive increase of `acked / w` segments: +1 per window of `w` ACKed
/// segments (Linux `tcp_cong_avoid_ai`, RFC 5681 eq. 3).
pub fn cong_avoid_ai(s: &mut CcState, w: f64, acked: u64) {
    s.cwnd += acked as f64 / w.max(1.0);
}

/// Increase units for one ACK that acknowledged `acked` segments, the
/// counting `reno` uses: one per ACK by default (ns-2 `opencwnd()`, the
/// papers' simulator), or with `abc` the segments acknowledged (RFC 3465,
/// at most L = 2 per ACK in slow start), as Linux counts. They differ only
/// under delayed or stretch ACKs.
pub fn ack_units(abc: bool, s: &CcState, acked: u64) -> u64 {
    if !abc {
        1
    } else if s.in_slow_start() && s.abc_l > 0 {
        acked.min(s.abc_l as u64)
    } else {
        acked
    }
}

/// Limited Slow-Start (RFC 3742 §2): per unit, +1 segment while
/// `cwnd <= max_ssthresh`, else `+1/K` with `K = int(cwnd / (max_ssthresh/2))`,
/// so growth above `max_ssthresh` is at most `max_ssthresh/2` segments per
/// RTT. Stops at `ssthresh` and returns the units left for congestion
/// avoidance, like [`slow_start`]. `max_ssthresh <= 0` disables it (plain
/// slow start), the RFC's "infinite" setting.
pub fn limited_slow_start(s: &mut CcState, acked: u64, max_ssthresh: f64) -> u64 {
    if max_ssthresh <= 0.0 {
        return slow_start(s, acked);
    }
    let mut left = acked;
    while left > 0 && s.cwnd < s.ssthresh {
        let inc = if s.cwnd <= max_ssthresh { 1.0 } else { 1.0 / (s.cwnd / (0.5 * max_ssthresh)).floor() };
        s.cwnd = (s.cwnd + inc).min(s.ssthresh);
        left -= 1;
    }
    left
}

/// The `cong_avoid` preamble the window-based controllers share: count the
/// ACK's increase units ([`ack_units`]), spend them on slow start while
/// `cwnd < ssthresh` ([`limited_slow_start`] with `max_ssthresh`, which is
/// plain [`slow_start`] when `max_ssthresh <= 0`), and return the units left
/// for the controller's congestion-avoidance rule (0: nothing left to do).
///
/// Written once so every controller counts and slow-starts the same way
/// (RFC 5681 §3.1, RFC 3465, RFC 3742); a controller only adds its own
/// increase rule for the units returned.
pub fn slow_start_units(abc: bool, s: &mut CcState, acked: u64, max_ssthresh: f64) -> u64 {
    let n = ack_units(abc, s, acked);
    if s.in_slow_start() {
        limited_slow_start(s, n, max_ssthresh)
    } else {
        n
    }
}

pub use crate::scenario::params::ParamDoc;

/// The `abc` switch every window-based controller shares (see `ack_units`),
/// with the default from the controller's config type.
pub fn abc_param(default: bool) -> ParamDoc {
    ParamDoc { name: "abc", default: default.into(), doc: "count segments acked (RFC 3465) instead of ACKs (ns-2)" }
}

/// RFC 3742 Limited Slow-Start threshold, shared by the controllers that
/// use `limited_slow_start`, with the default from the controller's config type.
pub fn max_ssthresh_param(default: f64) -> ParamDoc {
    ParamDoc {
        name: "max_ssthresh",
        default: default.into(),
        doc: "RFC 3742 Limited Slow-Start threshold in segments; 0 = off (E-TCP paper: 100)",
    }
}

/// A controller as listed by `ccsim list`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ControllerDoc {
    pub name: &'static str,
    pub doc: &'static str,
    pub params: Vec<ParamDoc>,
}

pub use registry::{build, catalog, names, ControllerEntry, EcnNeeds, Needs};

/// A controller state for unit tests: `cwnd`, `ssthresh`, FlightSize = cwnd.
#[cfg(test)]
pub(crate) fn test_state(cwnd: f64, ssthresh: f64) -> CcState {
    CcState {
        cwnd,
        ssthresh,
        max_cwnd: 1e12,
        now: 0,
        flight: cwnd as u64,
        srtt_s: None,
        min_rtt_s: None,
        mss_bytes: 1000,
        header_bytes: 40,
        pacing_rate: 0.0,
        lost: 0,
        abc_l: 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_units_counts_then_slow_starts_then_returns_the_rest() {
        // Per ACK (ns-2): one unit, spent on slow start.
        let mut s = test_state(10.0, 1e9);
        assert_eq!(slow_start_units(false, &mut s, 5, 0.0), 0);
        assert_eq!(s.cwnd, 11.0);
        // abc: segments acked, at most L = 2 in slow start (RFC 3465).
        let mut s = test_state(10.0, 1e9);
        assert_eq!(slow_start_units(true, &mut s, 5, 0.0), 0);
        assert_eq!(s.cwnd, 12.0);
        // Slow start stops at ssthresh; the rest is left for congestion avoidance.
        let mut s = test_state(10.0, 11.0);
        assert_eq!(slow_start_units(true, &mut s, 5, 0.0), 1);
        assert_eq!(s.cwnd, 11.0);
        // In congestion avoidance the units are returned untouched.
        let mut s = test_state(20.0, 10.0);
        assert_eq!(slow_start_units(true, &mut s, 3, 0.0), 3);
        assert_eq!(slow_start_units(false, &mut s, 3, 0.0), 1);
        assert_eq!(s.cwnd, 20.0);
        // Limited Slow-Start (RFC 3742): K = int(200/(100/2)) = 4, +1/4.
        let mut s = test_state(200.0, 1e9);
        assert_eq!(slow_start_units(false, &mut s, 1, 100.0), 0);
        assert_eq!(s.cwnd, 200.25);
    }
}
