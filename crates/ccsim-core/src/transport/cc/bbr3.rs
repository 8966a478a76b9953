//! BBR v3 as draft-ietf-ccwg-bbr-06 (D6, "BBR Congestion Control", July
//! 2026) specifies it, with Google's ECN response from its v3 Linux
//! `net/ipv4/tcp_bbr.c` (github.com/google/bbr, branch v3, `BBR_VERSION`
//! 3). The model of BBR v1 ([`super::bbr`]: the windowed maximum delivery
//! rate `max_bw`, the windowed minimum RTT `min_rtt`) gains upper and
//! lower bounds learned from loss (and, in Google's code, ECN): the
//! long-term `inflight_longterm` (Linux `inflight_hi`) and the short-term
//! `bw_shortterm` and `inflight_shortterm` (Linux `bw_lo`, `inflight_lo`).
//! Pacing is at `pacing_gain · bw · (1 − 1%)` with `bw = min(max_bw,
//! bw_shortterm)`; cwnd grows toward `cwnd_gain · bw · min_rtt` plus the
//! aggregation allowance and is capped by the bounds. Rates are in
//! segments per second and volumes in segments (D6 §2 allows packets).
//!
//! Per ACK, in D6 §5.2.3's order: the latest delivery signals, the
//! congestion signals (round count, the `max_bw` filter, once per loss
//! round the lower bounds), ACK aggregation, the full-pipe check, Startup's
//! and Drain's exits, the ProbeBW cycle, the min RTT and ProbeRTT, then
//! the pacing rate and cwnd.
//!
//! - **Startup** (D6 §5.3.1): pacing gain 2.77 (4 ln 2), cwnd gain 2, until
//!   three non-app-limited round starts see delivery-rate samples below
//!   1.25× the last baseline (the plateau), or until the loss rate is too
//!   high: one round after the first loss, still in fast recovery, with at
//!   least 6 loss-marking ACKs in the round and the sample's
//!   `lost > 2% · tx_in_flight` (without SACK: any loss in fast recovery);
//!   a loss exit sets `inflight_longterm = max(bdp, inflight_latest)`.
//! - **Drain** (D6 §5.3.2): pacing gain 0.5 until in flight ≤ `Inflight(1.0)`
//!   or more than 3 rounds have passed.
//! - **ProbeBW** (D6 §5.3.3): DOWN (0.9) until in flight ≤ both the
//!   headroom level `inflight_longterm − max(1, 0.15 · inflight_longterm)`
//!   and `Inflight(max_bw, 1.0)`; CRUISE (1.0) under the headroom cap;
//!   after a randomized 2–3 s from the cycle's start, or once the rounds
//!   since the last probe reach min(BDP in segments, 63) (counted from a
//!   random 0 or 1), REFILL (1.0; the short-term bounds reset) for one
//!   round, then UP (1.25, cwnd gain 2.25). UP raises `inflight_longterm`
//!   by 1, 2, 4, … segments per round while cwnd-limited at it, and goes
//!   DOWN on a delivery-rate plateau (3 rounds), on too much loss, or, after
//!   a probe that went too high, once in flight reaches `inflight_longterm`
//!   (precautionary probing, which re-probes at once if that round saw no
//!   excess loss). The `max_bw` filter holds the current and the previous
//!   cycle and advances one round after UP ends.
//! - **Loss while probing** (D6 §5.5.10.2): a sample with `lost > 2% ·
//!   tx_in_flight` (without SACK, any loss) from a REFILL or UP round sets
//!   `inflight_longterm = max(tx_in_flight, 0.7 · min(bdp, cwnd))` (not if
//!   app-limited), once per probe, and UP goes DOWN.
//! - **Loss while not probing** (D6 §5.5.10.3): at the end of each round
//!   with a loss, `bw_shortterm = max(bw_latest, 0.7 · bw_shortterm)` and
//!   `inflight_shortterm = max(inflight_latest, 0.7 · inflight_shortterm)`
//!   (starting from `max_bw` and cwnd), where the `latest` values are the
//!   round's largest rate and delivered samples.
//! - **ProbeRTT** (D6 §5.3.4): when no RTT sample has lowered the 5 s
//!   minimum for 5 s (not when restarting from idle), cwnd ≤ max(0.5 ·
//!   BDP, 4) for 200 ms and a round, then CRUISE (Startup if the pipe was
//!   never full) with the short-term bounds reset; `min_rtt` is the 10 s
//!   minimum.
//! - **cwnd** (D6 §5.6.4): `max_inflight = cwnd_gain · bdp + extra_acked`,
//!   at least the offload budget of 3 send quanta and 4 segments, +2 in
//!   UP; cwnd grows by the segments delivered toward
//!   it (without bound before the pipe is full while below it or before an
//!   initial window is delivered), at least 4; capped by
//!   `inflight_longterm` in DOWN, REFILL and UP, the headroom level in
//!   CRUISE and ProbeRTT, and always `inflight_shortterm`. Fast recovery
//!   and a timeout save cwnd; their end restores it (then the caps apply).
//!   A timeout leaves cwnd at one segment (the transport, as Linux
//!   `tcp_enter_loss`; D6's `inflight + 1` is the same once every segment
//!   is marked lost).
//! - **ECN** (Google's, not D6's: D6 §3.7 leaves the response open): only
//!   for a flow that sends ECT with per-segment CE feedback and whose
//!   `min_rtt` is at most 5 ms (Google `bbr_ecn_max_rtt_us`; its route
//!   flag `ECN_LOW` declares such a path). α is the EWMA (gain 1/16,
//!   starting at 1) of the CE-marked share of each round's delivered
//!   segments; a round with an ECE ACK, when not probing, cuts
//!   `inflight_shortterm` by `α/3`; a sample more than 50% CE-marked is
//!   "too high" as excess loss is; two rounds at ≥ 50% CE end Startup; a
//!   cycle with CE and no loss re-probes at once with an initial step of
//!   `inflight_longterm / 2`.
//!
//! Choices (docs/controllers.md):
//! - **Per-ACK loss check.** D6 checks a too-high loss rate per lost
//!   packet (`HandleLostPacket`, with that packet's `tx_in_flight` and the
//!   loss rate up to it); the transport here tells a controller of losses
//!   only per ACK, so the check runs on each ACK's rate sample as Google's
//!   `bbr_adapt_upper_bounds` also does (its per-packet `bbr_skb_marked_lost`
//!   aside). A loss-marking ACK counts as D6's "loss event" for Startup
//!   (Google's `loss_events_in_round`; D6 counts discontiguous lost ranges).
//! - **In flight** for ProbeBW's thresholds is the sample's in flight
//!   before the ACK (Google: `prior_in_flight`): after an ACK in flight
//!   sits below a cwnd capped at `inflight_longterm` by what it delivered,
//!   so D6's "inflight reaches inflight_longterm" could never hold there;
//!   Drain's and ProbeRTT's use the in flight after it, as D6 and Google.
//! - **`C.is_cwnd_limited`** (D6 §2: cwnd fully used at some point in the
//!   last round) is kept here: an ACK that finds in flight at the window
//!   marks the connection cwnd-limited until what is then in flight is
//!   delivered.
//! - **Send quantum** of one segment, what the sender sends at a time (no
//!   TSO/GSO), so the offload budget (3 quanta) is 3 segments, below
//!   `MinPipeCwnd`. D6 `SetSendQuantum` (1 ms of pacing, 2 segments to 64
//!   KB) and Google's TSO sizing give at least 2 segments, a cwnd
//!   floor of 6; D6 allows other quanta ("MAY use alternate approaches"),
//!   and its test case A.14 expects `MinPipeCwnd` as the floor.
//! - **The initial pacing rate** is re-derived from the first srtt (Google,
//!   `has_seen_rtt`): D6 computes it at connection start, when TCP has
//!   the handshake's RTT, and ccsim's flows start without one.
//! - **A timeout** also sets `inflight_shortterm` to the cwnd saved before
//!   it when not probing and unset (Google `bbr_set_state`), so the round's
//!   loss response starts from the window before the timeout, not from the
//!   one segment after it.
//! - **A spurious loss episode's undo** (Google `bbr_undo_cwnd`; D6 has
//!   none): entering fast recovery or a timeout saves the three bounds
//!   (`bbr_ssthresh`); when the `linux` personality's transport undoes the
//!   episode (`Undo`), each bound comes back to at least its saved value,
//!   the full-pipe estimate and the round's loss flag restart, and cwnd is
//!   the one saved at the episode's start.
//! - **Not modelled**: Google's fast path, PLB and TSO sizing.
//! - **App-limited too-high samples** set no bound (D6's
//!   `HandleInflightTooHigh` and Google), though D6's test case A.6 expects
//!   `inflight_longterm` updated "regardless of the application-limited
//!   state"; the probe still ends.
use super::minmax::WindowedMax;
use super::{
    CaState, CcEvent, CcState, CongControlOut, CongestionControl, ControllerDoc, FlowInfo, ModelInfo, ParamDoc,
    RateSample,
};
use crate::scenario::{params::Params, ConfigError};
use crate::sim::rng::Rng;
use crate::sim::time::{from_secs, to_secs};
use crate::sim::Time;
use std::collections::VecDeque;

const INF: f64 = f64::INFINITY;
/// D6 `CheckFullBWReached`: 25% growth, 3 rounds.
const FULL_BW_THRESH: f64 = 1.25;
const FULL_BW_COUNT: u32 = 3;
/// D6 `RaiseInflightLongtermSlope`: the step doubles at most 30 times.
const MAX_PROBE_UP_ROUNDS: u32 = 30;
/// Most (delivered, CE) pairs kept for the samples' CE counts (a sample's
/// packet left at most about a round of ACKs ago).
const CE_HISTORY_MAX: usize = 1 << 16;
/// The send quantum, segments: the sender sends one at a time.
const SEND_QUANTUM: f64 = 1.0;

/// BBR v3's parameters (`cc_params`); `Default` is where the defaults live.
#[derive(Clone, Debug, PartialEq)]
pub struct Bbr3Config {
    /// Startup's pacing gain (D6 `StartupPacingGain` = 2.77 ≈ 4 ln 2;
    /// Google 710/256 = 2.773).
    pub startup_pacing_gain: f64,
    /// Drain's pacing gain (D6 `DrainPacingGain` = 0.5; Google
    /// `bbr_drain_gain` = 88/256 = 0.344).
    pub drain_pacing_gain: f64,
    /// ProbeBW_DOWN's pacing gain (D6 0.90; Google 91/100 = 232/256).
    pub probe_down_pacing_gain: f64,
    /// ProbeBW_UP's pacing gain (D6 and Google 1.25).
    pub probe_up_pacing_gain: f64,
    /// The cwnd gain everywhere but UP and ProbeRTT (D6 `DefaultCwndGain`
    /// = 2; Google `bbr_cwnd_gain`, `bbr_startup_cwnd_gain`).
    pub cwnd_gain: f64,
    /// ProbeBW_UP's cwnd gain (D6 2.25; Google 2 + `bbr_bw_probe_cwnd_gain`/4).
    pub probe_up_cwnd_gain: f64,
    /// Loss rate that makes a probe "too high" (D6 `LossThresh` = 2%).
    pub loss_thresh: f64,
    /// Multiplicative decrease of the bounds (D6 `Beta` = 0.7; Google
    /// `bbr_beta` = 30% cut).
    pub beta: f64,
    /// Share of `inflight_longterm` left free in CRUISE (D6 `Headroom` = 0.15).
    pub headroom: f64,
    /// Smallest cwnd, segments (D6 `MinPipeCwnd` = 4).
    pub min_pipe_cwnd: f64,
    /// Pacing margin below `bw` (D6 `PacingMarginPercent` = 1%).
    pub pacing_margin: f64,
    /// Loss-marking ACKs in a round that, with too much loss, end Startup
    /// (D6 `StartupFullLossCnt` = 6; 0: no loss exit).
    pub startup_full_loss_cnt: u32,
    /// Rounds after which Drain ends whatever is in flight (D6 3; Google
    /// has no such limit: 0).
    pub drain_max_rounds: u64,
    /// Least wait before a bandwidth probe, seconds (D6 2 s; Google
    /// `bbr_bw_probe_base_us`).
    pub bw_probe_base_s: f64,
    /// Spread of the wait, seconds (D6 U(0, 1) s; Google `bbr_bw_probe_rand_us`).
    pub bw_probe_rand_s: f64,
    /// Most rounds between probes (D6 63; Google `bbr_bw_probe_max_rounds`).
    pub bw_probe_max_rounds: u64,
    /// `min_rtt` filter window, seconds (D6 `MinRTTFilterLen` = 10 s).
    pub min_rtt_win_s: f64,
    /// ProbeRTT every this many seconds without a lower RTT (D6
    /// `ProbeRTTInterval` = 5 s).
    pub probe_rtt_interval_s: f64,
    /// ProbeRTT's least duration, seconds (D6 `ProbeRTTDuration` = 200 ms).
    pub probe_rtt_duration_s: f64,
    /// ProbeRTT's cwnd, in BDPs (D6 `ProbeRTTCwndGain` = 0.5).
    pub probe_rtt_cwnd_gain: f64,
    /// Rounds in the ACK-aggregation max filter after Startup (D6
    /// `ExtraAckedFilterLen` = 10; Google keeps two 5-round windows).
    pub extra_acked_rtts: u64,
    /// Largest aggregation allowance, seconds of `bw` (D6 sets none: 0;
    /// Google `bbr_extra_acked_max_us` = 100 ms).
    pub extra_acked_max_s: f64,
    /// Google's ECN response, for a flow with ECN and per-segment CE
    /// feedback whose `min_rtt` is at most `ecn_max_rtt_s`.
    pub ecn: bool,
    /// Largest `min_rtt` at which ECN is answered, seconds (Google
    /// `bbr_ecn_max_rtt_us` = 5 ms; 0: any).
    pub ecn_max_rtt_s: f64,
    /// EWMA gain of α (Google `bbr_ecn_alpha_gain` = 1/16).
    pub ecn_alpha_gain: f64,
    /// α's start (Google `bbr_ecn_alpha_init` = 1).
    pub ecn_alpha_init: f64,
    /// A CE round cuts `inflight_shortterm` by `ecn_factor · α` (Google
    /// `bbr_ecn_factor` = 1/3; 0: no cut).
    pub ecn_factor: f64,
    /// CE share of a sample that makes a probe "too high" (Google
    /// `bbr_ecn_thresh` = 50%; 0: never).
    pub ecn_thresh: f64,
    /// Rounds at ≥ `ecn_thresh` CE that end Startup (Google
    /// `bbr_full_ecn_cnt` = 2; 0: no ECN exit).
    pub startup_ecn_rounds: u32,
    /// A cycle with CE and no loss re-probes with a first step of this
    /// share of `inflight_longterm` (Google `bbr_ecn_reprobe_gain` = 1/2; 0: off).
    pub ecn_reprobe_gain: f64,
}

impl Default for Bbr3Config {
    fn default() -> Self {
        Bbr3Config {
            startup_pacing_gain: 2.77,
            drain_pacing_gain: 0.5,
            probe_down_pacing_gain: 0.9,
            probe_up_pacing_gain: 1.25,
            cwnd_gain: 2.0,
            probe_up_cwnd_gain: 2.25,
            loss_thresh: 0.02,
            beta: 0.7,
            headroom: 0.15,
            min_pipe_cwnd: 4.0,
            pacing_margin: 0.01,
            startup_full_loss_cnt: 6,
            drain_max_rounds: 3,
            bw_probe_base_s: 2.0,
            bw_probe_rand_s: 1.0,
            bw_probe_max_rounds: 63,
            min_rtt_win_s: 10.0,
            probe_rtt_interval_s: 5.0,
            probe_rtt_duration_s: 0.2,
            probe_rtt_cwnd_gain: 0.5,
            extra_acked_rtts: 10,
            extra_acked_max_s: 0.0,
            ecn: true,
            ecn_max_rtt_s: 0.005,
            ecn_alpha_gain: 1.0 / 16.0,
            ecn_alpha_init: 1.0,
            ecn_factor: 1.0 / 3.0,
            ecn_thresh: 0.5,
            startup_ecn_rounds: 2,
            ecn_reprobe_gain: 0.5,
        }
    }
}

/// D6's states (§5.1.1), ProbeBW's four phases apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Startup,
    Drain,
    ProbeBwDown,
    ProbeBwCruise,
    ProbeBwRefill,
    ProbeBwUp,
    ProbeRtt,
}

impl State {
    fn is_probe_bw(self) -> bool {
        matches!(self, State::ProbeBwDown | State::ProbeBwCruise | State::ProbeBwRefill | State::ProbeBwUp)
    }
}

/// What the ACKs now arriving say about bandwidth probing (D6 `ack_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

pub struct Bbr3 {
    cfg: Bbr3Config,
    info: FlowInfo,
    rng: Option<Rng>,
    init: bool,
    state: State,
    initial_cwnd: f64,
    has_seen_rtt: bool,
    /// The connection's delivered count after the latest ACK (`C.delivered`).
    delivered: u64,
    round_count: u64,
    round_start: bool,
    next_round_delivered: u64,
    /// `max_bw`: the largest sample of the previous ProbeBW cycle and of
    /// the current one (Google `bw_hi[2]`), segments/s.
    bw_hi: [f64; 2],
    bw_shortterm: f64,
    bw: f64,
    min_rtt: f64,
    min_rtt_stamp: Time,
    probe_rtt_min_delay: f64,
    probe_rtt_min_stamp: Time,
    probe_rtt_expired: bool,
    extra_acked: WindowedMax,
    extra_acked_interval_start: Time,
    extra_acked_delivered: f64,
    inflight_longterm: f64,
    inflight_shortterm: f64,
    max_inflight: f64,
    bw_latest: f64,
    inflight_latest: f64,
    loss_round_delivered: u64,
    loss_round_start: bool,
    loss_in_round: bool,
    loss_events_in_round: u32,
    full_bw: f64,
    full_bw_count: u32,
    full_bw_now: bool,
    full_bw_reached: bool,
    drain_start_round: u64,
    ack_phase: AckPhase,
    is_bw_probe_sample: bool,
    bw_probe_up_acked: f64,
    probe_up_acked_per_inc: f64,
    bw_probe_up_rounds: u32,
    rounds_since_probe_up: u64,
    bw_probe_wait_s: f64,
    cycle_stamp: Time,
    prev_probe_too_high: bool,
    prev_probe_precautionary: bool,
    probe_rtt_done_stamp: Option<Time>,
    probe_rtt_round_done: bool,
    prior_cwnd: f64,
    /// The bounds when the current loss episode began (Google
    /// `undo_bw_lo`, `undo_inflight_lo`, `undo_inflight_hi`; 0 until one).
    undo_bw_shortterm: f64,
    undo_inflight_shortterm: f64,
    undo_inflight_longterm: f64,
    idle_restart: bool,
    in_loss_recovery: bool,
    /// `C.is_cwnd_limited`, and the delivered count that ends it.
    cwnd_limited: bool,
    cwnd_limited_until: u64,
    /// This ACK's `RS.delivery_rate` (0: no valid sample) and the CE-marked
    /// segments among the sample's delivered ones (Linux `rs->delivered_ce`).
    delivery_rate: f64,
    sample_delivered: u64,
    sample_delivered_ce: u64,
    /// (delivered, delivered_ce) after recent ACKs, to find the CE count
    /// when a sample's packet was sent.
    ce_history: VecDeque<(u64, u64)>,
    ecn_eligible: bool,
    ecn_alpha: f64,
    alpha_last_delivered: u64,
    alpha_last_delivered_ce: u64,
    ecn_in_round: bool,
    startup_ecn_rounds: u32,
    ecn_in_cycle: bool,
    loss_in_cycle: bool,
}

impl Bbr3 {
    pub fn new(cfg: Bbr3Config) -> Self {
        Bbr3 {
            ecn_alpha: cfg.ecn_alpha_init,
            cfg,
            info: FlowInfo::default(),
            rng: None,
            init: false,
            state: State::Startup,
            initial_cwnd: 0.0,
            has_seen_rtt: false,
            delivered: 0,
            round_count: 0,
            round_start: false,
            next_round_delivered: 0,
            bw_hi: [0.0; 2],
            bw_shortterm: INF,
            bw: 0.0,
            min_rtt: INF,
            min_rtt_stamp: 0,
            probe_rtt_min_delay: INF,
            probe_rtt_min_stamp: 0,
            probe_rtt_expired: false,
            extra_acked: WindowedMax::default(),
            extra_acked_interval_start: 0,
            extra_acked_delivered: 0.0,
            inflight_longterm: INF,
            inflight_shortterm: INF,
            max_inflight: 0.0,
            bw_latest: 0.0,
            inflight_latest: 0.0,
            loss_round_delivered: 0,
            loss_round_start: false,
            loss_in_round: false,
            loss_events_in_round: 0,
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_now: false,
            full_bw_reached: false,
            drain_start_round: 0,
            ack_phase: AckPhase::Init,
            is_bw_probe_sample: false,
            bw_probe_up_acked: 0.0,
            probe_up_acked_per_inc: INF,
            bw_probe_up_rounds: 0,
            rounds_since_probe_up: 0,
            bw_probe_wait_s: 0.0,
            cycle_stamp: 0,
            prev_probe_too_high: false,
            prev_probe_precautionary: false,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0.0,
            undo_bw_shortterm: 0.0,
            undo_inflight_shortterm: 0.0,
            undo_inflight_longterm: 0.0,
            idle_restart: false,
            in_loss_recovery: false,
            cwnd_limited: false,
            cwnd_limited_until: 0,
            delivery_rate: 0.0,
            sample_delivered: 0,
            sample_delivered_ce: 0,
            ce_history: VecDeque::new(),
            ecn_eligible: false,
            alpha_last_delivered: 0,
            alpha_last_delivered_ce: 0,
            ecn_in_round: false,
            startup_ecn_rounds: 0,
            ecn_in_cycle: false,
            loss_in_cycle: false,
        }
    }

    pub fn doc() -> ControllerDoc {
        let d = Bbr3Config::default();
        ControllerDoc {
            name: "bbr3",
            doc: "BBR v3 (draft-ietf-ccwg-bbr-06; Google's v3 tcp_bbr.c for ECN): BBR's model (max_bw over two \
                  ProbeBW cycles, 10 s min_rtt) bounded by loss: inflight_longterm from probes that saw > 2% loss, \
                  bw/inflight_shortterm cut to 0.7 per lossy round; Startup 2.77, Drain 0.5, ProbeBW DOWN 0.9 / \
                  CRUISE / REFILL / UP 1.25 with a probe every 2-3 s (or 63 rounds), ProbeRTT every 5 s at 0.5 \
                  BDP; Google's ECN response at min_rtt <= 5 ms; paces at its own rate (pacing = \"rate\")",
            params: vec![
                ParamDoc {
                    name: "startup_pacing_gain",
                    default: d.startup_pacing_gain.into(),
                    doc: "Startup pacing gain (D6 2.77 = 4 ln 2)",
                },
                ParamDoc {
                    name: "drain_pacing_gain",
                    default: d.drain_pacing_gain.into(),
                    doc: "Drain pacing gain (D6 0.5; Google 0.344)",
                },
                ParamDoc {
                    name: "probe_down_pacing_gain",
                    default: d.probe_down_pacing_gain.into(),
                    doc: "ProbeBW_DOWN pacing gain (D6 0.9; Google 0.91)",
                },
                ParamDoc {
                    name: "probe_up_pacing_gain",
                    default: d.probe_up_pacing_gain.into(),
                    doc: "ProbeBW_UP pacing gain (1.25)",
                },
                ParamDoc {
                    name: "cwnd_gain",
                    default: d.cwnd_gain.into(),
                    doc: "cwnd gain outside UP and ProbeRTT (2)",
                },
                ParamDoc {
                    name: "probe_up_cwnd_gain",
                    default: d.probe_up_cwnd_gain.into(),
                    doc: "ProbeBW_UP cwnd gain (2.25)",
                },
                ParamDoc {
                    name: "loss_thresh",
                    default: d.loss_thresh.into(),
                    doc: "loss rate that makes a probe too high (0.02)",
                },
                ParamDoc { name: "beta", default: d.beta.into(), doc: "multiplicative decrease of the bounds (0.7)" },
                ParamDoc {
                    name: "headroom",
                    default: d.headroom.into(),
                    doc: "share of inflight_longterm left free in CRUISE (0.15)",
                },
                ParamDoc { name: "min_pipe_cwnd", default: d.min_pipe_cwnd.into(), doc: "smallest cwnd, segments (4)" },
                ParamDoc {
                    name: "pacing_margin",
                    default: d.pacing_margin.into(),
                    doc: "pace this fraction below bw (0.01)",
                },
                ParamDoc {
                    name: "startup_full_loss_cnt",
                    default: d.startup_full_loss_cnt.into(),
                    doc: "loss-marking ACKs in a lossy round that end Startup (6; 0: no loss exit)",
                },
                ParamDoc {
                    name: "drain_max_rounds",
                    default: d.drain_max_rounds.into(),
                    doc: "rounds after which Drain ends (D6 3; 0: none, as Google)",
                },
                ParamDoc {
                    name: "bw_probe_base_s",
                    default: d.bw_probe_base_s.into(),
                    doc: "least wait between bandwidth probes, seconds (2)",
                },
                ParamDoc {
                    name: "bw_probe_rand_s",
                    default: d.bw_probe_rand_s.into(),
                    doc: "random extra wait, uniform up to this, seconds (1)",
                },
                ParamDoc {
                    name: "bw_probe_max_rounds",
                    default: d.bw_probe_max_rounds.into(),
                    doc: "most rounds between probes (63; fewer at a BDP below it)",
                },
                ParamDoc {
                    name: "min_rtt_win_s",
                    default: d.min_rtt_win_s.into(),
                    doc: "min_rtt window, seconds (10)",
                },
                ParamDoc {
                    name: "probe_rtt_interval_s",
                    default: d.probe_rtt_interval_s.into(),
                    doc: "ProbeRTT after this long without a lower RTT, seconds (5)",
                },
                ParamDoc {
                    name: "probe_rtt_duration_s",
                    default: d.probe_rtt_duration_s.into(),
                    doc: "ProbeRTT's least duration, seconds (0.2; 0: no ProbeRTT)",
                },
                ParamDoc {
                    name: "probe_rtt_cwnd_gain",
                    default: d.probe_rtt_cwnd_gain.into(),
                    doc: "ProbeRTT's cwnd in BDPs (0.5)",
                },
                ParamDoc {
                    name: "extra_acked_rtts",
                    default: d.extra_acked_rtts.into(),
                    doc: "rounds in the ACK-aggregation filter (10; 1 in Startup)",
                },
                ParamDoc {
                    name: "extra_acked_max_s",
                    default: d.extra_acked_max_s.into(),
                    doc: "largest aggregation allowance, seconds of bw (D6 none: 0; Google 0.1)",
                },
                ParamDoc {
                    name: "ecn",
                    default: d.ecn.into(),
                    doc: "Google's ECN response when the flow has ECN with per-segment feedback (ecn_feedback \
                          dctcp, its default here, or accecn) and min_rtt <= ecn_max_rtt_s",
                },
                ParamDoc {
                    name: "ecn_max_rtt_s",
                    default: d.ecn_max_rtt_s.into(),
                    doc: "largest min_rtt at which ECN is answered, seconds (0.005; 0: any)",
                },
                ParamDoc { name: "ecn_alpha_gain", default: d.ecn_alpha_gain.into(), doc: "EWMA gain of alpha (1/16)" },
                ParamDoc { name: "ecn_alpha_init", default: d.ecn_alpha_init.into(), doc: "alpha's start (1)" },
                ParamDoc {
                    name: "ecn_factor",
                    default: d.ecn_factor.into(),
                    doc: "a CE round cuts inflight_shortterm by this times alpha (1/3; 0: no cut)",
                },
                ParamDoc {
                    name: "ecn_thresh",
                    default: d.ecn_thresh.into(),
                    doc: "CE share of a sample that makes a probe too high (0.5; 0: never)",
                },
                ParamDoc {
                    name: "startup_ecn_rounds",
                    default: d.startup_ecn_rounds.into(),
                    doc: "rounds at >= ecn_thresh CE that end Startup (2; 0: no ECN exit)",
                },
                ParamDoc {
                    name: "ecn_reprobe_gain",
                    default: d.ecn_reprobe_gain.into(),
                    doc: "after CE without loss, re-probe at once with a first step of this share of \
                          inflight_longterm (0.5; 0: off)",
                },
            ],
        }
    }

    pub fn from_params(p: &serde_json::Map<String, serde_json::Value>, path: &str) -> Result<Self, ConfigError> {
        let d = Bbr3Config::default();
        let mut p = Params::new(p, &format!("{path}.cc_params"));
        let cfg = Bbr3Config {
            startup_pacing_gain: p.f64_in("startup_pacing_gain", d.startup_pacing_gain, 1.0, 100.0)?,
            drain_pacing_gain: p.f64_in("drain_pacing_gain", d.drain_pacing_gain, 0.01, 1.0)?,
            probe_down_pacing_gain: p.f64_in("probe_down_pacing_gain", d.probe_down_pacing_gain, 0.01, 1.0)?,
            probe_up_pacing_gain: p.f64_in("probe_up_pacing_gain", d.probe_up_pacing_gain, 1.0, 100.0)?,
            cwnd_gain: p.f64_in("cwnd_gain", d.cwnd_gain, 1.0, 100.0)?,
            probe_up_cwnd_gain: p.f64_in("probe_up_cwnd_gain", d.probe_up_cwnd_gain, 1.0, 100.0)?,
            loss_thresh: p.f64_in("loss_thresh", d.loss_thresh, 0.0001, 0.99)?,
            beta: p.f64_in("beta", d.beta, 0.01, 1.0)?,
            headroom: p.f64_in("headroom", d.headroom, 0.0, 0.99)?,
            min_pipe_cwnd: p.f64_in("min_pipe_cwnd", d.min_pipe_cwnd, 1.0, 1e6)?,
            pacing_margin: p.f64_in("pacing_margin", d.pacing_margin, 0.0, 0.99)?,
            startup_full_loss_cnt: p.u64_in("startup_full_loss_cnt", d.startup_full_loss_cnt as u64, 0, 1_000_000)?
                as u32,
            drain_max_rounds: p.u64_in("drain_max_rounds", d.drain_max_rounds, 0, 1_000_000)?,
            bw_probe_base_s: p.f64_in("bw_probe_base_s", d.bw_probe_base_s, 0.0, 1e6)?,
            bw_probe_rand_s: p.f64_in("bw_probe_rand_s", d.bw_probe_rand_s, 0.0, 1e6)?,
            bw_probe_max_rounds: p.u64_in("bw_probe_max_rounds", d.bw_probe_max_rounds, 1, 1_000_000)?,
            min_rtt_win_s: p.f64_in("min_rtt_win_s", d.min_rtt_win_s, 0.001, 1e6)?,
            probe_rtt_interval_s: p.f64_in("probe_rtt_interval_s", d.probe_rtt_interval_s, 0.001, 1e6)?,
            probe_rtt_duration_s: p.f64_in("probe_rtt_duration_s", d.probe_rtt_duration_s, 0.0, 1e6)?,
            probe_rtt_cwnd_gain: p.f64_in("probe_rtt_cwnd_gain", d.probe_rtt_cwnd_gain, 0.0, 100.0)?,
            extra_acked_rtts: p.u64_in("extra_acked_rtts", d.extra_acked_rtts, 1, 1000)?,
            extra_acked_max_s: p.f64_in("extra_acked_max_s", d.extra_acked_max_s, 0.0, 1e3)?,
            ecn: p.bool("ecn", d.ecn)?,
            ecn_max_rtt_s: p.f64_in("ecn_max_rtt_s", d.ecn_max_rtt_s, 0.0, 1e3)?,
            ecn_alpha_gain: p.f64_in("ecn_alpha_gain", d.ecn_alpha_gain, 0.0, 1.0)?,
            ecn_alpha_init: p.f64_in("ecn_alpha_init", d.ecn_alpha_init, 0.0, 1.0)?,
            ecn_factor: p.f64_in("ecn_factor", d.ecn_factor, 0.0, 1.0)?,
            ecn_thresh: p.f64_in("ecn_thresh", d.ecn_thresh, 0.0, 1.0)?,
            startup_ecn_rounds: p.u64_in("startup_ecn_rounds", d.startup_ecn_rounds as u64, 0, 1000)? as u32,
            ecn_reprobe_gain: p.f64_in("ecn_reprobe_gain", d.ecn_reprobe_gain, 0.0, 1.0)?,
        };
        p.finish()?;
        Ok(Bbr3::new(cfg))
    }

    pub fn state(&self) -> State {
        self.state
    }

    /// `max_bw`, segments per second.
    pub fn max_bw(&self) -> f64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    /// `bw = min(max_bw, bw_shortterm)`, segments per second.
    pub fn bw(&self) -> f64 {
        self.bw
    }

    /// `min_rtt`, seconds (infinite before a sample).
    pub fn min_rtt(&self) -> f64 {
        self.min_rtt
    }

    /// `inflight_longterm`, segments (infinite while unset).
    pub fn inflight_longterm(&self) -> f64 {
        self.inflight_longterm
    }

    /// `inflight_shortterm`, segments (infinite while unset).
    pub fn inflight_shortterm(&self) -> f64 {
        self.inflight_shortterm
    }

    /// `bw_shortterm`, segments per second (infinite while unset).
    pub fn bw_shortterm(&self) -> f64 {
        self.bw_shortterm
    }

    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    /// (pacing gain, cwnd gain) of the current state (D6 §5.6.1).
    pub fn gains(&self) -> (f64, f64) {
        let c = &self.cfg;
        match self.state {
            State::Startup => (c.startup_pacing_gain, c.cwnd_gain),
            State::Drain => (c.drain_pacing_gain, c.cwnd_gain),
            State::ProbeBwDown => (c.probe_down_pacing_gain, c.cwnd_gain),
            State::ProbeBwCruise | State::ProbeBwRefill => (1.0, c.cwnd_gain),
            State::ProbeBwUp => (c.probe_up_pacing_gain, c.probe_up_cwnd_gain),
            State::ProbeRtt => (1.0, c.probe_rtt_cwnd_gain),
        }
    }

    /// Google's α (the EWMA of the CE-marked share per round).
    pub fn alpha(&self) -> f64 {
        self.ecn_alpha
    }

    /// The flow may use ECN: ECT with per-segment CE feedback, and the
    /// response switched on.
    fn ecn_capable(&self) -> bool {
        self.cfg.ecn && self.info.ecn_precise
    }

    /// D6 `OnInit`, at the flow's first event.
    fn ensure_init(&mut self, s: &mut CcState) {
        if self.init {
            return;
        }
        self.init = true;
        s.ssthresh = s.ssthresh.max(1e9);
        self.initial_cwnd = s.cwnd;
        self.min_rtt = s.min_rtt_s.unwrap_or(INF);
        self.min_rtt_stamp = s.now;
        self.probe_rtt_min_delay = self.min_rtt;
        self.probe_rtt_min_stamp = s.now;
        self.extra_acked_interval_start = s.now;
        self.ce_history.push_back((0, 0));
        self.init_pacing_rate(s);
        self.state = State::Startup;
    }

    /// D6 `InitPacingRate`: 2.77 · initial cwnd / srtt (1 ms before one).
    fn init_pacing_rate(&mut self, s: &mut CcState) {
        let rtt = match s.srtt_s {
            Some(r) if r > 0.0 => {
                self.has_seen_rtt = true;
                r
            }
            _ => 0.001,
        };
        s.pacing_rate = self.cfg.startup_pacing_gain * self.initial_cwnd / rtt * s.mss_bytes as f64;
    }

    fn random_unit(&mut self) -> f64 {
        use rand::Rng as _;
        self.rng.as_mut().map_or(0.0, |g| g.gen::<f64>())
    }

    // ---- model: rounds, bandwidth, congestion signals ----

    /// D6 `StartRound`.
    fn start_round(&mut self) {
        self.next_round_delivered = self.delivered;
    }

    /// D6 `UpdateMaxBw` with `UpdateRound`: a round starts on a valid
    /// sample whose packet was sent after the last round began; the
    /// sample enters the current cycle's slot unless app-limited and
    /// below `max_bw`.
    fn update_max_bw(&mut self, rs: &RateSample) {
        self.round_start = false;
        let Some(rate) = rs.rate_pkts_per_s() else { return };
        if rs.prior_delivered >= self.next_round_delivered {
            self.start_round();
            self.round_count += 1;
            self.rounds_since_probe_up += 1;
            self.round_start = true;
        }
        if rate > 0.0 && (rate >= self.max_bw() || !rs.is_app_limited) {
            self.bw_hi[1] = self.bw_hi[1].max(rate);
        }
    }

    /// D6 `AdvanceMaxBwFilter` (Google keeps the old window when the
    /// current one has no sample).
    fn advance_max_bw_filter(&mut self) {
        if self.bw_hi[1] > 0.0 {
            self.bw_hi = [self.bw_hi[1], 0.0];
        }
    }

    /// D6 `UpdateLatestDeliverySignals`.
    fn update_latest_delivery_signals(&mut self, rs: &RateSample) {
        self.loss_round_start = false;
        let Some(rate) = rs.rate_pkts_per_s() else { return };
        if rs.acked_sacked == 0 {
            return;
        }
        self.bw_latest = self.bw_latest.max(rate);
        self.inflight_latest = self.inflight_latest.max(rs.delivered.unwrap_or(0) as f64);
        if rs.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = self.delivered;
            self.loss_round_start = true;
        }
    }

    /// D6 `AdvanceLatestDeliverySignals`.
    fn advance_latest_delivery_signals(&mut self, rs: &RateSample) {
        if self.loss_round_start {
            self.bw_latest = self.delivery_rate;
            self.inflight_latest = rs.delivered.unwrap_or(0) as f64;
        }
    }

    /// D6 `ResetCongestionSignals` (with Google's ECN and per-cycle flags).
    fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.ecn_in_round = false;
        self.loss_in_cycle = false;
        self.ecn_in_cycle = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0.0;
    }

    /// D6 `UpdateCongestionSignals`, with Google's α update at a round start.
    fn update_congestion_signals(&mut self, s: &CcState, rs: &RateSample) {
        self.update_max_bw(rs);
        if self.round_start {
            self.update_ecn_alpha(rs);
        }
        self.ecn_in_round |= self.ecn_eligible && rs.ece_delta > 0;
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds_from_congestion(s);
        self.loss_in_round = false;
        self.ecn_in_round = false;
    }

    /// D6 `NoteLoss`: the transport marked segments lost.
    fn note_loss(&mut self, s: &CcState) {
        if !self.loss_in_round {
            self.loss_round_delivered = self.delivered;
            self.save_cwnd(s);
        }
        self.loss_in_round = true;
        self.loss_in_cycle = true;
    }

    fn is_probing_bw(&self) -> bool {
        matches!(self.state, State::Startup | State::ProbeBwRefill | State::ProbeBwUp)
    }

    /// D6 `AdaptLowerBoundsFromCongestion`, once per loss round, and
    /// Google's ECN cut of `inflight_shortterm` (`bbr_adapt_lower_bounds`).
    fn adapt_lower_bounds_from_congestion(&mut self, s: &CcState) {
        if self.is_probing_bw() {
            return;
        }
        let mut ecn_inflight = INF;
        if self.ecn_in_round && self.cfg.ecn_factor > 0.0 {
            if self.inflight_shortterm == INF {
                self.inflight_shortterm = s.cwnd;
            }
            ecn_inflight = self.inflight_shortterm * (1.0 - self.ecn_alpha * self.cfg.ecn_factor);
        }
        if self.loss_in_round {
            // InitLowerBounds, LossLowerBounds
            if self.bw_shortterm == INF {
                self.bw_shortterm = self.max_bw();
            }
            if self.inflight_shortterm == INF {
                self.inflight_shortterm = s.cwnd;
            }
            self.bw_shortterm = self.bw_latest.max(self.cfg.beta * self.bw_shortterm);
            self.inflight_shortterm = self.inflight_latest.max(self.cfg.beta * self.inflight_shortterm);
        }
        self.inflight_shortterm = self.inflight_shortterm.min(ecn_inflight);
    }

    /// D6 `ResetShortTermModel`.
    fn reset_short_term_model(&mut self) {
        self.bw_shortterm = INF;
        self.inflight_shortterm = INF;
    }

    /// D6 `BoundBWForModel`.
    fn bound_bw_for_model(&mut self) {
        self.bw = self.max_bw().min(self.bw_shortterm);
    }

    /// The CE-marked segments among those a sample counts as delivered
    /// (Linux `rs->delivered_ce`): the CE count now less the CE count when
    /// the connection's delivered count was the sample's `prior_delivered`.
    fn update_sample_ce(&mut self, rs: &RateSample) {
        self.sample_delivered = 0;
        self.sample_delivered_ce = 0;
        if !self.ecn_capable() {
            return;
        }
        match self.ce_history.back_mut() {
            Some(last) if last.0 == rs.total_delivered => last.1 = rs.total_delivered_ce,
            _ => self.ce_history.push_back((rs.total_delivered, rs.total_delivered_ce)),
        }
        if self.ce_history.len() > CE_HISTORY_MAX {
            self.ce_history.pop_front();
        }
        if rs.tx_in_flight == 0 {
            return; // no sample packet
        }
        let d = rs.prior_delivered;
        while self.ce_history.len() > 1 && self.ce_history[1].0 <= d {
            self.ce_history.pop_front();
        }
        let ce_then = self.ce_history.front().map_or(0, |e| e.1);
        self.sample_delivered = rs.total_delivered.saturating_sub(d);
        self.sample_delivered_ce = rs.total_delivered_ce.saturating_sub(ce_then);
    }

    /// Google `bbr_update_ecn_alpha`, at a round start: eligibility (ECN
    /// with per-segment feedback and `min_rtt` at most `ecn_max_rtt_s`,
    /// once true kept), α's EWMA over the round's delivered segments, and
    /// the Startup exit on CE.
    fn update_ecn_alpha(&mut self, rs: &RateSample) {
        if !self.ecn_capable() {
            return;
        }
        if !self.ecn_eligible
            && self.cfg.ecn_factor > 0.0
            && (self.cfg.ecn_max_rtt_s <= 0.0 || self.min_rtt <= self.cfg.ecn_max_rtt_s)
        {
            self.ecn_eligible = true;
        }
        if !self.ecn_eligible {
            return;
        }
        let delivered = rs.total_delivered.saturating_sub(self.alpha_last_delivered);
        let delivered_ce = rs.total_delivered_ce.saturating_sub(self.alpha_last_delivered_ce);
        if delivered == 0 {
            return;
        }
        let ce_ratio = delivered_ce as f64 / delivered as f64;
        let g = self.cfg.ecn_alpha_gain;
        self.ecn_alpha = ((1.0 - g) * self.ecn_alpha + g * ce_ratio).min(1.0);
        self.alpha_last_delivered = rs.total_delivered;
        self.alpha_last_delivered_ce = rs.total_delivered_ce;
        // Google `bbr_check_ecn_too_high_in_startup`
        if self.full_bw_reached || self.cfg.startup_ecn_rounds == 0 || self.cfg.ecn_thresh <= 0.0 {
            return;
        }
        if ce_ratio >= self.cfg.ecn_thresh {
            self.startup_ecn_rounds += 1;
        } else {
            self.startup_ecn_rounds = 0;
        }
        if self.startup_ecn_rounds >= self.cfg.startup_ecn_rounds {
            self.handle_queue_too_high_in_startup();
        }
    }

    /// D6 `UpdateACKAggregation`.
    fn update_ack_aggregation(&mut self, s: &CcState, rs: &RateSample) {
        let interval = to_secs(s.now.saturating_sub(self.extra_acked_interval_start));
        let mut expected = self.bw * interval;
        if self.extra_acked_delivered <= expected {
            self.extra_acked_delivered = 0.0;
            self.extra_acked_interval_start = s.now;
            expected = 0.0;
        }
        self.extra_acked_delivered += rs.acked_sacked as f64;
        let extra = (self.extra_acked_delivered - expected).min(s.cwnd);
        let len = if self.full_bw_reached { self.cfg.extra_acked_rtts } else { 1 };
        self.extra_acked.update(len, self.round_count, extra);
    }

    fn extra_acked(&self) -> f64 {
        let e = self.extra_acked.get();
        if self.cfg.extra_acked_max_s > 0.0 {
            e.min(self.bw * self.cfg.extra_acked_max_s)
        } else {
            e
        }
    }

    // ---- Startup and Drain ----

    /// D6 `ResetFullBW`.
    fn reset_full_bw(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        self.full_bw_now = false;
    }

    /// D6 `CheckFullBWReached`: on non-app-limited round starts, 3 rounds
    /// of samples below 1.25× the baseline.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_now || !self.round_start || rs.is_app_limited {
            return;
        }
        if self.delivery_rate >= self.full_bw * FULL_BW_THRESH {
            self.reset_full_bw();
            self.full_bw = self.delivery_rate;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_now = self.full_bw_count >= FULL_BW_COUNT;
        if self.full_bw_now {
            self.full_bw_reached = true;
        }
    }

    /// D6 §5.3.1.3 (Google `bbr_handle_queue_too_high_in_startup`): the
    /// pipe is full, and `inflight_longterm = max(bdp, inflight_latest)`.
    fn handle_queue_too_high_in_startup(&mut self) {
        self.full_bw_reached = true;
        self.full_bw_now = true;
        let bdp = self.bdp_multiple(self.max_bw(), 1.0);
        self.inflight_longterm = bdp.max(self.inflight_latest);
    }

    /// D6 `CheckStartupHighLoss` as Google's `bbr_check_loss_too_high_in_startup`
    /// runs it: at the end of a loss round still in fast recovery, with at
    /// least `startup_full_loss_cnt` loss-marking ACKs in it and the
    /// sample's loss (or CE) rate too high; without SACK, any loss in
    /// fast recovery.
    fn check_startup_high_loss(&mut self, rs: &RateSample) {
        if self.full_bw_reached || self.state != State::Startup {
            return;
        }
        if rs.losses > 0 {
            self.loss_events_in_round += 1;
        }
        let in_recovery = rs.ca_state == CaState::Recovery;
        if !self.info.sack && in_recovery && rs.losses > 0 && self.cfg.startup_full_loss_cnt > 0 {
            self.handle_queue_too_high_in_startup();
            return;
        }
        if self.cfg.startup_full_loss_cnt > 0
            && self.loss_round_start
            && in_recovery
            && self.loss_events_in_round >= self.cfg.startup_full_loss_cnt
            && self.is_inflight_too_high(rs)
        {
            self.handle_queue_too_high_in_startup();
            return;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    /// D6 `CheckStartupDone`, `EnterDrain`.
    fn check_startup_done(&mut self, s: &mut CcState, rs: &RateSample) {
        self.check_startup_high_loss(rs);
        if self.state == State::Startup && self.full_bw_reached {
            self.state = State::Drain;
            self.drain_start_round = self.round_count;
            // ssthresh for monitoring, as Linux
            s.ssthresh = self.inflight(self.max_bw(), 1.0);
        }
    }

    /// D6 `CheckDrainDone`.
    fn check_drain_done(&mut self, s: &CcState, rs: &RateSample) {
        if self.state != State::Drain {
            return;
        }
        let timed_out =
            self.cfg.drain_max_rounds > 0 && self.round_count > self.drain_start_round + self.cfg.drain_max_rounds;
        if rs.in_flight as f64 <= self.inflight(self.bw, 1.0) || timed_out {
            self.start_probe_bw_down(s); // EnterProbeBW
        }
    }

    // ---- ProbeBW ----

    /// D6 `PickProbeWait`: a random 0 or 1 rounds already counted, and
    /// 2 + U(0, 1) s.
    fn pick_probe_wait(&mut self) {
        self.rounds_since_probe_up = if self.random_unit() < 0.5 { 0 } else { 1 };
        self.bw_probe_wait_s = self.cfg.bw_probe_base_s + self.cfg.bw_probe_rand_s * self.random_unit();
    }

    fn start_probe_bw_down(&mut self, s: &CcState) {
        self.reset_congestion_signals();
        self.probe_up_acked_per_inc = INF;
        self.pick_probe_wait();
        self.cycle_stamp = s.now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.start_round();
        self.state = State::ProbeBwDown;
    }

    fn start_probe_bw_cruise(&mut self) {
        self.state = State::ProbeBwCruise;
    }

    /// D6 `StartProbeBW_REFILL`; `up_rounds` is 0 but for Google's ECN
    /// re-probe.
    fn start_probe_bw_refill(&mut self, up_rounds: u32) {
        self.reset_short_term_model();
        self.bw_probe_up_rounds = up_rounds;
        self.bw_probe_up_acked = 0.0;
        self.prev_probe_precautionary = false;
        self.ack_phase = AckPhase::Refilling;
        self.start_round();
        self.state = State::ProbeBwRefill;
    }

    fn start_probe_bw_up(&mut self, s: &CcState) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.start_round();
        self.reset_full_bw();
        self.full_bw = self.delivery_rate;
        self.state = State::ProbeBwUp;
        self.raise_inflight_longterm_slope(s);
    }

    /// D6 `UpdateProbeBWCyclePhase`.
    fn update_probe_bw_cycle_phase(&mut self, s: &CcState, rs: &RateSample) {
        if !self.full_bw_reached {
            return;
        }
        if self.adapt_long_term_model(s, rs) {
            return;
        }
        let state = self.state;
        match state {
            State::ProbeBwDown => {
                if self.is_time_reach_probe_bw(s, rs) {
                    return;
                }
                if self.is_time_to_cruise(rs) {
                    self.start_probe_bw_cruise();
                }
            }
            State::ProbeBwCruise => {
                self.is_time_reach_probe_bw(s, rs);
            }
            // after one round of REFILL, UP
            State::ProbeBwRefill if self.round_start => {
                self.is_bw_probe_sample = true;
                self.start_probe_bw_up(s);
            }
            State::ProbeBwUp if self.is_time_to_go_down(s, rs) => {
                self.prev_probe_too_high = false;
                self.start_probe_bw_down(s);
            }
            _ => {}
        }
    }

    /// D6 `IsTimeToProbeBW`, first Google's ECN re-probe: a cycle that saw
    /// CE and no loss probes again at once.
    fn is_time_reach_probe_bw(&mut self, s: &CcState, rs: &RateSample) -> bool {
        if self.cfg.ecn_reprobe_gain > 0.0
            && self.ecn_eligible
            && self.ecn_in_cycle
            && !self.loss_in_cycle
            && rs.ca_state == CaState::Open
        {
            let step = self.inflight_longterm * self.cfg.ecn_reprobe_gain;
            // floor(log2(step)), Google's `ilog2`
            let n =
                if step >= 1.0 { (63 - (step.min(1e18) as u64).leading_zeros()).min(MAX_PROBE_UP_ROUNDS) } else { 0 };
            self.start_probe_bw_refill(n);
            return true;
        }
        let waited = to_secs(s.now.saturating_sub(self.cycle_stamp)) > self.bw_probe_wait_s;
        if waited || self.is_reno_coexistence_probe_time(s) {
            self.start_probe_bw_refill(0);
            return true;
        }
        false
    }

    /// D6 `IsRenoCoexistenceProbeTime`.
    fn is_reno_coexistence_probe_time(&self, s: &CcState) -> bool {
        let rounds = self.target_inflight(s).min(self.cfg.bw_probe_max_rounds as f64);
        self.rounds_since_probe_up as f64 >= rounds
    }

    /// D6 `TargetInflight`: min(bdp, cwnd).
    fn target_inflight(&self, s: &CcState) -> f64 {
        self.bdp_multiple(self.bw, 1.0).min(s.cwnd)
    }

    /// D6 `IsTimeToCruise`.
    fn is_time_to_cruise(&self, rs: &RateSample) -> bool {
        let inflight = rs.prior_in_flight as f64;
        inflight <= self.inflight_with_headroom() && inflight <= self.inflight(self.max_bw(), 1.0)
    }

    /// D6 `IsTimeToGoDown`.
    fn is_time_to_go_down(&mut self, s: &CcState, rs: &RateSample) -> bool {
        if self.prev_probe_too_high && rs.prior_in_flight as f64 >= self.inflight_longterm.floor() {
            self.prev_probe_precautionary = true;
            return true;
        }
        if self.cwnd_limited && s.cwnd >= self.inflight_longterm {
            self.reset_full_bw();
            self.full_bw = self.delivery_rate;
        } else if self.full_bw_now {
            return true;
        }
        false
    }

    /// D6 `InflightWithHeadroom`.
    fn inflight_with_headroom(&self) -> f64 {
        if self.inflight_longterm == INF {
            return INF;
        }
        let headroom = (self.cfg.headroom * self.inflight_longterm).max(1.0);
        (self.inflight_longterm - headroom).max(self.cfg.min_pipe_cwnd)
    }

    /// D6 `RaiseInflightLongtermSlope`.
    fn raise_inflight_longterm_slope(&mut self, s: &CcState) {
        let growth = (1u64 << self.bw_probe_up_rounds) as f64;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(MAX_PROBE_UP_ROUNDS);
        self.probe_up_acked_per_inc = (s.cwnd / growth).max(1.0);
    }

    /// D6 `ProbeInflightLongtermUpward`.
    fn probe_inflight_longterm_upward(&mut self, s: &CcState, rs: &RateSample) {
        if !self.cwnd_limited || s.cwnd < self.inflight_longterm {
            return;
        }
        self.bw_probe_up_acked += rs.acked_sacked as f64;
        if self.bw_probe_up_acked >= self.probe_up_acked_per_inc {
            let delta = (self.bw_probe_up_acked / self.probe_up_acked_per_inc).floor();
            self.bw_probe_up_acked -= delta * self.probe_up_acked_per_inc;
            self.inflight_longterm += delta;
        }
        if self.round_start {
            self.raise_inflight_longterm_slope(s);
        }
    }

    /// D6 `AdaptLongTermModel`, with the too-high check on each ACK's
    /// sample (Google `bbr_adapt_upper_bounds`; D6 runs it per lost
    /// packet). True when it decided a state transition.
    fn adapt_long_term_model(&mut self, s: &CcState, rs: &RateSample) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            self.is_bw_probe_sample = false;
            self.ack_phase = AckPhase::Init;
            if self.state.is_probe_bw() && !rs.is_app_limited {
                self.advance_max_bw_filter();
            }
            if self.state.is_probe_bw() && self.prev_probe_precautionary && !self.prev_probe_too_high {
                self.start_probe_bw_refill(0);
                return true;
            }
        }
        if self.is_inflight_too_high(rs) {
            if self.is_bw_probe_sample {
                self.handle_inflight_too_high(s, rs);
            }
            return false;
        }
        if self.inflight_longterm == INF {
            return false;
        }
        if rs.tx_in_flight as f64 > self.inflight_longterm {
            self.inflight_longterm = rs.tx_in_flight as f64;
        }
        if self.state == State::ProbeBwUp {
            self.probe_inflight_longterm_upward(s, rs);
        }
        false
    }

    /// D6 `IsInflightTooHigh`, with Google's CE test for an ECN-eligible
    /// flow (`bbr_is_inflight_too_high`).
    fn is_inflight_too_high(&self, rs: &RateSample) -> bool {
        let lost = rs.lost as f64;
        if lost > rs.tx_in_flight as f64 * self.cfg.loss_thresh || (rs.lost > 0 && !self.info.sack) {
            return true;
        }
        self.ecn_eligible
            && self.cfg.ecn_thresh > 0.0
            && self.sample_delivered_ce > 0
            && self.sample_delivered > 0
            && self.sample_delivered_ce as f64 > self.sample_delivered as f64 * self.cfg.ecn_thresh
    }

    /// D6 `HandleInflightTooHigh`.
    fn handle_inflight_too_high(&mut self, s: &CcState, rs: &RateSample) {
        self.prev_probe_too_high = true;
        self.is_bw_probe_sample = false;
        if !rs.is_app_limited {
            self.inflight_longterm = (rs.tx_in_flight as f64).max(self.target_inflight(s) * self.cfg.beta);
        }
        if self.state == State::ProbeBwUp {
            self.start_probe_bw_down(s);
        }
    }

    // ---- min RTT and ProbeRTT ----

    /// D6 `UpdateMinRTT`.
    fn update_min_rtt(&mut self, s: &CcState, rs: &RateSample) {
        self.probe_rtt_expired =
            s.now > self.probe_rtt_min_stamp.saturating_add(from_secs(self.cfg.probe_rtt_interval_s));
        if let Some(r) = rs.rtt_s.filter(|&r| r >= 0.0) {
            if r < self.probe_rtt_min_delay || self.probe_rtt_expired {
                self.probe_rtt_min_delay = r;
                self.probe_rtt_min_stamp = s.now;
            }
        }
        let min_rtt_expired = s.now > self.min_rtt_stamp.saturating_add(from_secs(self.cfg.min_rtt_win_s));
        if self.probe_rtt_min_delay < self.min_rtt || min_rtt_expired {
            self.min_rtt = self.probe_rtt_min_delay;
            self.min_rtt_stamp = self.probe_rtt_min_stamp;
        }
    }

    /// D6 `CheckProbeRTT`; true while in ProbeRTT (the connection is then
    /// marked app-limited: its low rate must not lower `max_bw`).
    fn check_probe_rtt(&mut self, s: &mut CcState, rs: &RateSample) -> bool {
        if self.state != State::ProbeRtt
            && self.probe_rtt_expired
            && !self.idle_restart
            && self.cfg.probe_rtt_duration_s > 0.0
        {
            self.state = State::ProbeRtt;
            self.save_cwnd(s);
            self.probe_rtt_done_stamp = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.start_round();
        }
        let in_probe_rtt = self.state == State::ProbeRtt;
        if in_probe_rtt {
            self.handle_probe_rtt(s, rs);
        }
        if rs.delivered.is_some_and(|d| d > 0) {
            self.idle_restart = false;
        }
        in_probe_rtt
    }

    /// D6 `HandleProbeRTT`.
    fn handle_probe_rtt(&mut self, s: &mut CcState, rs: &RateSample) {
        if self.probe_rtt_done_stamp.is_none() && rs.in_flight as f64 <= self.probe_rtt_cwnd() {
            self.probe_rtt_done_stamp = Some(s.now.saturating_add(from_secs(self.cfg.probe_rtt_duration_s)));
            self.probe_rtt_round_done = false;
            self.start_round();
        } else if self.probe_rtt_done_stamp.is_some() {
            if self.round_start {
                self.probe_rtt_round_done = true;
            }
            if self.probe_rtt_round_done {
                self.check_probe_rtt_done(s);
            }
        }
    }

    /// D6 `CheckProbeRTTDone`, `ExitProbeRTT`.
    fn check_probe_rtt_done(&mut self, s: &mut CcState) {
        if self.probe_rtt_done_stamp.is_none_or(|d| s.now <= d) {
            return;
        }
        self.probe_rtt_min_stamp = s.now;
        self.restore_cwnd(s);
        self.reset_short_term_model();
        if self.full_bw_reached {
            self.start_probe_bw_down(s);
            self.start_probe_bw_cruise();
        } else {
            self.state = State::Startup;
        }
    }

    /// D6 `ProbeRTTCwnd`.
    fn probe_rtt_cwnd(&self) -> f64 {
        self.bdp_multiple(self.bw, self.cfg.probe_rtt_cwnd_gain).max(self.cfg.min_pipe_cwnd)
    }

    // ---- control: pacing rate, send quantum, cwnd ----

    /// D6 `SetPacingRateWithGain`.
    fn set_pacing_rate_with_gain(&mut self, s: &mut CcState, gain: f64) {
        if !self.has_seen_rtt && s.srtt_s.is_some() {
            self.init_pacing_rate(s);
        }
        let rate = gain * self.bw * s.mss_bytes as f64 * (1.0 - self.cfg.pacing_margin);
        if self.full_bw_reached || rate > s.pacing_rate {
            s.pacing_rate = rate;
        }
    }

    /// D6 `BDPMultiple`: `gain · bw · min_rtt`; the initial window before
    /// an RTT sample.
    fn bdp_multiple(&self, bw: f64, gain: f64) -> f64 {
        if self.min_rtt == INF {
            return self.initial_cwnd;
        }
        gain * bw * self.min_rtt
    }

    /// D6 `QuantizationBudget`: at least 3 send quanta and `MinPipeCwnd`,
    /// +2 segments in UP.
    fn quantization_budget(&self, inflight: f64) -> f64 {
        let mut c = inflight.max(3.0 * SEND_QUANTUM).max(self.cfg.min_pipe_cwnd);
        if self.state == State::ProbeBwUp {
            c += 2.0;
        }
        c
    }

    /// D6 `Inflight(bw, gain)`.
    fn inflight(&self, bw: f64, gain: f64) -> f64 {
        self.quantization_budget(self.bdp_multiple(bw, gain))
    }

    /// D6 `SetCwnd`, `BoundCwndForProbeRTT`, `BoundCwndForModel`.
    fn set_cwnd(&mut self, s: &mut CcState, rs: &RateSample) {
        let (_, cwnd_gain) = self.gains();
        self.max_inflight = self.quantization_budget(self.bdp_multiple(self.bw, cwnd_gain) + self.extra_acked());
        let acked = rs.acked_sacked as f64;
        let mut cwnd = s.cwnd;
        if self.full_bw_reached {
            cwnd = (cwnd + acked).min(self.max_inflight);
        } else if cwnd < self.max_inflight || (rs.total_delivered as f64) < self.initial_cwnd {
            cwnd += acked;
        }
        cwnd = cwnd.max(self.cfg.min_pipe_cwnd);
        if self.state == State::ProbeRtt {
            cwnd = cwnd.min(self.probe_rtt_cwnd());
        }
        let mut cap = INF;
        if self.state.is_probe_bw() && self.state != State::ProbeBwCruise {
            cap = self.inflight_longterm;
        } else if matches!(self.state, State::ProbeRtt | State::ProbeBwCruise) {
            cap = self.inflight_with_headroom();
        }
        cap = cap.min(self.inflight_shortterm).max(self.cfg.min_pipe_cwnd);
        s.cwnd = cwnd.min(cap);
    }

    /// D6 `SaveCwnd`.
    fn save_cwnd(&mut self, s: &CcState) {
        if !self.in_loss_recovery && self.state != State::ProbeRtt {
            self.prior_cwnd = s.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(s.cwnd);
        }
    }

    /// D6 `RestoreCwnd`.
    fn restore_cwnd(&mut self, s: &mut CcState) {
        s.cwnd = s.cwnd.max(self.prior_cwnd);
    }

    /// `C.is_cwnd_limited`: an ACK that finds the window full marks the
    /// connection cwnd-limited until what is then in flight is delivered.
    fn note_cwnd_limited(&mut self, s: &CcState, rs: &RateSample) {
        if rs.prior_in_flight as f64 >= s.cwnd.floor().max(1.0) {
            self.cwnd_limited = true;
            self.cwnd_limited_until = rs.total_delivered + rs.in_flight;
        } else if rs.total_delivered >= self.cwnd_limited_until {
            self.cwnd_limited = false;
        }
    }
}

/// BBR v3 sets its pacing rate, and with ECN on reads the CE state per
/// segment (Google's `bbr_precise_ece_ack`: the receiver's DCTCP-style
/// echo; RFC 3168's latched ECE cannot give the marked share).
pub const NEEDS: super::Needs = super::Needs {
    pacing_rate: true,
    ecn: Some(super::EcnNeeds {
        required: false,
        ect: None,
        feedback: Some(crate::scenario::kinds::EcnFeedback::Dctcp),
        feedback_required: false,
    }),
    path_stage: None,
};

impl CongestionControl for Bbr3 {
    fn name(&self) -> &'static str {
        "bbr3"
    }

    /// Google's v3 `bbr_get_info`: `bw` (max_bw capped by bw_shortterm)
    /// in bytes/s, `min_rtt_us`, the state's gains.
    fn model_info(&self, s: &CcState) -> Option<ModelInfo> {
        let (pacing_gain, cwnd_gain) = self.gains();
        Some(ModelInfo {
            bw_bytes_per_s: self.bw * s.mss_bytes as f64,
            min_rtt_s: self.min_rtt.is_finite().then_some(self.min_rtt),
            pacing_gain,
            cwnd_gain,
        })
    }

    fn cong_avoid(&mut self, _s: &mut CcState, _acked: u64) {
        // never called: `has_cong_control`
    }

    /// D6 `OnEnterFastRecovery` / `OnEnterRTO`'s `SaveCwnd`, and the
    /// bounds an undo restores (Google `bbr_ssthresh`); ssthresh is kept.
    fn ssthresh(&mut self, s: &CcState) -> f64 {
        self.save_cwnd(s);
        self.undo_bw_shortterm = self.bw_shortterm;
        self.undo_inflight_shortterm = self.inflight_shortterm;
        self.undo_inflight_longterm = self.inflight_longterm;
        s.ssthresh
    }

    /// An ECN echo is no loss episode: nothing saved.
    fn ssthresh_ecn(&mut self, s: &CcState) -> f64 {
        s.ssthresh
    }

    fn on_event(&mut self, s: &mut CcState, ev: CcEvent) {
        self.ensure_init(s);
        match ev {
            // D6 `OnEnterFastRecovery`
            CcEvent::RecoveryStart => {
                self.save_cwnd(s);
                self.in_loss_recovery = true;
            }
            // D6: leaving loss recovery restores the saved cwnd (the
            // ACK's `cong_control` then applies the model's caps)
            CcEvent::RecoveryEnd | CcEvent::LossEnd => {
                self.restore_cwnd(s);
                self.in_loss_recovery = false;
            }
            // D6 `OnEnterRTO` (cwnd saved by `ssthresh`, set to one
            // segment by the transport); the timeout marked segments lost
            // outside any ACK. Google `bbr_set_state(TCP_CA_Loss)`: the
            // short-term bound starts from the window before it.
            CcEvent::Timeout => {
                if !self.is_probing_bw() && self.inflight_shortterm == INF {
                    self.inflight_shortterm = s.cwnd.max(self.prior_cwnd);
                }
                self.in_loss_recovery = true;
                self.note_loss(s);
            }
            // Google `bbr_undo_cwnd`: the episode was spurious, so the
            // bounds it lowered come back, and cwnd is the one before it
            CcEvent::Undo => {
                self.reset_full_bw();
                self.loss_in_round = false;
                self.bw_shortterm = self.bw_shortterm.max(self.undo_bw_shortterm);
                self.inflight_shortterm = self.inflight_shortterm.max(self.undo_inflight_shortterm);
                self.inflight_longterm = self.inflight_longterm.max(self.undo_inflight_longterm);
                if self.prior_cwnd > 0.0 {
                    s.cwnd = self.prior_cwnd;
                }
            }
            // D6 `HandleRestartFromIdle` (the transport sends the event
            // with nothing in flight while app-limited)
            CcEvent::TxStart => {
                self.idle_restart = true;
                self.extra_acked_interval_start = s.now;
                if self.state.is_probe_bw() {
                    self.set_pacing_rate_with_gain(s, 1.0);
                } else if self.state == State::ProbeRtt {
                    self.check_probe_rtt_done(s);
                }
            }
            _ => {}
        }
    }

    fn has_cong_control(&self) -> bool {
        true
    }

    fn cong_control(&mut self, s: &mut CcState, rs: &RateSample) -> CongControlOut {
        self.ensure_init(s);
        self.delivered = rs.total_delivered;
        self.note_cwnd_limited(s, rs);
        if rs.losses > 0 {
            // the transport marked them while processing this ACK
            self.note_loss(s);
        }
        self.delivery_rate = rs.rate_pkts_per_s().unwrap_or(0.0);
        self.update_sample_ce(rs);
        // UpdateModelAndState
        self.update_latest_delivery_signals(rs);
        self.update_congestion_signals(s, rs);
        self.update_ack_aggregation(s, rs);
        self.check_full_bw_reached(rs);
        self.check_startup_done(s, rs);
        self.check_drain_done(s, rs);
        self.update_probe_bw_cycle_phase(s, rs);
        self.update_min_rtt(s, rs);
        let mark_app_limited = self.check_probe_rtt(s, rs);
        self.advance_latest_delivery_signals(rs);
        self.bound_bw_for_model();
        // UpdateControlParameters
        let (pacing_gain, _) = self.gains();
        self.set_pacing_rate_with_gain(s, pacing_gain);
        self.set_cwnd(s, rs);
        self.loss_in_cycle |= rs.lost > 0;
        self.ecn_in_cycle |= self.sample_delivered_ce > 0;
        CongControlOut { mark_app_limited }
    }

    fn set_flow_info(&mut self, f: FlowInfo) {
        self.info = f;
    }

    fn seed_rng(&mut self, rng: Rng) {
        self.rng = Some(rng);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::cc::test_state;

    const RTT: f64 = 0.1;

    /// A controller fed rate samples by hand: each `ack` delivers `n`
    /// segments over `dt` seconds, by default as the first ACK of a new
    /// round (its packet was sent when the last ACK arrived).
    struct Drive {
        b: Bbr3,
        s: CcState,
        t: f64,
        delivered: u64,
        lost: u64,
    }

    impl Drive {
        fn new(cfg: Bbr3Config, info: FlowInfo) -> Self {
            let mut b = Bbr3::new(cfg);
            b.seed_rng(crate::sim::rng::stream(1, crate::sim::rng::Stream::Controller, 0));
            b.set_flow_info(info);
            let mut s = CcState { srtt_s: Some(RTT), min_rtt_s: Some(RTT), ..test_state(10.0, 1e9) };
            b.on_event(&mut s, CcEvent::TxStart);
            Drive { b, s, t: 0.0, delivered: 0, lost: 0 }
        }

        fn sack() -> Self {
            Drive::new(Bbr3Config::default(), FlowInfo { ecn_precise: false, sack: true, tso: false, flow: None })
        }

        /// One ACK `dt` after the last: `n` delivered, `in_flight` before
        /// and after it and when its packet left; `f` edits the sample.
        fn ack(&mut self, n: u64, dt: f64, in_flight: u64, f: impl FnOnce(&mut RateSample)) -> CongControlOut {
            self.t += dt;
            self.s.now = from_secs(self.t);
            let prior = self.delivered;
            self.delivered += n;
            let mut rs = RateSample {
                delivered: Some(n),
                interval_s: dt,
                prior_delivered: prior,
                acked_sacked: n,
                prior_in_flight: in_flight,
                in_flight,
                total_delivered: self.delivered,
                tx_in_flight: in_flight,
                lost: 0,
                rtt_s: Some(RTT),
                ..Default::default()
            };
            f(&mut rs);
            self.lost += rs.losses;
            self.b.cong_control(&mut self.s, &rs)
        }

        /// A round at `rate` segments/s: one ACK delivering a round's worth.
        fn round(&mut self, rate: f64, in_flight: u64) -> CongControlOut {
            self.ack((rate * RTT).round() as u64, RTT, in_flight, |_| {})
        }

        /// Startup at a 1000 segments/s bottleneck (BDP 100) until the
        /// plateau, then Drain until 100 in flight (110 before the ACK, so
        /// DOWN does not end on it too): ProbeBW_DOWN.
        fn reach_probe_bw(&mut self) {
            let mut rate: f64 = 100.0;
            while self.b.state() == State::Startup {
                self.round(rate, 200);
                rate = (rate * 2.0).min(1000.0);
            }
            self.ack(100, RTT, 100, |rs| rs.prior_in_flight = 110);
            assert_eq!(self.b.state(), State::ProbeBwDown);
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// D6 A.1 (exiting Startup on a bandwidth plateau): at a 1000
    /// segments/s bottleneck, rates 100, 200, 400, 800, 1000 each grow by at
    /// least 25%; three rounds at 1000 then end Startup, `max_bw` is the
    /// bottleneck's rate, and Drain paces at 0.5.
    #[test]
    fn startup_ends_after_three_rounds_without_25_percent_growth() {
        let mut d = Drive::sack();
        let rates = [100.0, 200.0, 400.0, 800.0, 1000.0, 1000.0, 1000.0];
        for (i, &r) in rates.iter().enumerate() {
            d.round(r, 200);
            assert_eq!(d.b.state(), State::Startup, "round {i}");
            // 2.77 · bw, 1% below, in bytes/s (1000-byte segments), once
            // above the initial 2.77 · 10 segments / 100 ms
            if i > 0 {
                assert!(close(d.s.pacing_rate, 2.77 * r * 1000.0 * 0.99), "round {i}: {}", d.s.pacing_rate);
            }
        }
        assert!(!d.b.full_bw_reached());
        d.round(1000.0, 200);
        assert!(d.b.full_bw_reached() && d.b.full_bw_now);
        assert_eq!(d.b.state(), State::Drain);
        assert_eq!(d.b.max_bw(), 1000.0);
        assert_eq!(d.b.gains(), (0.5, 2.0));
        assert!(close(d.s.pacing_rate, 0.5 * 1000.0 * 1000.0 * 0.99));
        // no loss: no bound was learned
        assert_eq!(d.b.inflight_longterm(), INF);
    }

    /// D6 A.2 (exiting Startup on loss when app-limited), with D6
    /// §5.3.1.3's three criteria: one round after the first loss, still in
    /// fast recovery, 6 loss-marking ACKs in that round and a loss rate
    /// above 2%; the bound is max(bdp, inflight_latest). Each criterion
    /// short of its threshold keeps Startup.
    #[test]
    fn startup_ends_on_a_round_of_high_loss_in_fast_recovery() {
        // (loss-marking ACKs, segments the closing sample saw lost of 100)
        let run = |events: u64, lost: u64| {
            let mut d = Drive::sack();
            for _ in 0..3 {
                d.ack(50, RTT, 80, |rs| rs.is_app_limited = true); // 500 segments/s, app-limited
            }
            // the round of losses: 7 ACKs of 10 segments, `events` of them
            // marking a loss, all sent before the first loss was marked;
            // every sample 500 segments/s
            let start = d.delivered;
            for k in 0..7 {
                d.ack(10, RTT / 7.0, 80, |rs| {
                    rs.prior_delivered = start;
                    rs.delivered = Some(50);
                    rs.interval_s = RTT;
                    rs.is_app_limited = true;
                    rs.ca_state = CaState::Recovery;
                    rs.losses = u64::from(k < events);
                });
            }
            // an ACK of a segment sent after the first loss: the loss round ends
            let after = d.delivered - 60;
            d.ack(10, RTT / 7.0, 100, |rs| {
                rs.prior_delivered = after;
                rs.delivered = Some(50);
                rs.interval_s = RTT;
                rs.is_app_limited = true;
                rs.ca_state = CaState::Recovery;
                rs.lost = lost;
            });
            d
        };
        let d = run(6, 3);
        assert_eq!(d.b.state(), State::Drain);
        assert!(d.b.full_bw_reached() && d.b.full_bw_now);
        // bdp = 500 segments/s · 0.1 s = 50, inflight_latest = 50 (the
        // last round's largest delivered sample)
        assert_eq!(d.b.inflight_longterm(), 50.0);
        assert_eq!(run(5, 3).b.state(), State::Startup, "5 loss events");
        assert_eq!(run(6, 2).b.state(), State::Startup, "2% loss is not above 2%");
        // without SACK, any loss in fast recovery ends Startup
        let mut d =
            Drive::new(Bbr3Config::default(), FlowInfo { ecn_precise: false, sack: false, tso: false, flow: None });
        d.ack(50, RTT, 80, |rs| rs.is_app_limited = true);
        d.ack(10, RTT / 7.0, 80, |rs| {
            rs.ca_state = CaState::Recovery;
            rs.losses = 1;
        });
        assert_eq!(d.b.state(), State::Drain);
    }

    /// D6 A.3 and A.4: Drain ends once in flight is at most
    /// `Inflight(1.0)` (here BDP 100), else after more than 3 rounds.
    #[test]
    fn drain_ends_at_one_bdp_in_flight_or_after_three_rounds() {
        let mut d = Drive::sack();
        for r in [100.0, 200.0, 400.0, 800.0, 1000.0, 1000.0, 1000.0, 1000.0] {
            d.round(r, 200);
        }
        assert_eq!(d.b.state(), State::Drain);
        // the bottleneck fell 10%: in flight stays above the estimated BDP
        for k in 1..=3 {
            d.round(900.0, 150);
            assert_eq!(d.b.state(), State::Drain, "round {k} of Drain");
        }
        d.round(900.0, 150);
        assert_eq!(d.b.state(), State::ProbeBwDown, "the 4th round: round_count > drain_start + 3");
        // by in flight: at once
        let mut d = Drive::sack();
        for r in [100.0, 200.0, 400.0, 800.0, 1000.0, 1000.0, 1000.0, 1000.0] {
            d.round(r, 200);
        }
        d.round(1000.0, 101);
        assert_eq!(d.b.state(), State::Drain);
        d.ack(100, RTT, 100, |rs| rs.prior_in_flight = 110);
        assert_eq!(d.b.state(), State::ProbeBwDown);
        assert_eq!(d.b.gains(), (0.9, 2.0));
    }

    /// D6 A.8, the cycle, and A.5: DOWN holds until in flight is at most
    /// the BDP, CRUISE until the randomized probe wait (2 to 3 s from the
    /// cycle's start) has passed, REFILL for one round, UP (1.25, cwnd gain
    /// 2.25) until three rounds without 25% growth, then DOWN.
    #[test]
    fn probe_bw_cycles_down_cruise_refill_up_down() {
        let mut d = Drive::sack();
        d.reach_probe_bw();
        let cycle_start = d.t;
        d.round(1000.0, 110);
        assert_eq!(d.b.state(), State::ProbeBwDown, "110 in flight > BDP");
        d.round(1000.0, 100);
        assert_eq!(d.b.state(), State::ProbeBwCruise);
        let wait = d.b.bw_probe_wait_s;
        assert!((2.0..=3.0).contains(&wait), "probe wait {wait}");
        let mut refill_at = None;
        for _ in 0..40 {
            d.round(1000.0, 100);
            if d.b.state() == State::ProbeBwRefill {
                refill_at = Some(d.t - cycle_start);
                break;
            }
            assert_eq!(d.b.state(), State::ProbeBwCruise);
        }
        let at = refill_at.expect("REFILL within 4 s");
        // the first ACK past the wait (rounds are 0.1 s); the 63-round
        // bound (6.3 s here) comes later
        assert!(at > wait && at <= wait + RTT + 1e-9, "REFILL at {at} s, wait {wait} s");
        assert_eq!(d.b.gains(), (1.0, 2.0));
        d.round(1000.0, 100);
        assert_eq!(d.b.state(), State::ProbeBwUp, "after one round of REFILL");
        assert_eq!(d.b.gains(), (1.25, 2.25));
        assert!(d.b.is_bw_probe_sample);
        for k in 1..=2 {
            d.round(1000.0, 120);
            assert_eq!(d.b.state(), State::ProbeBwUp, "UP round {k}");
        }
        d.round(1000.0, 120);
        assert_eq!(d.b.state(), State::ProbeBwDown, "a plateau of 3 rounds ends UP");
        assert!(!d.b.prev_probe_too_high);
    }

    /// D6 §5.5.10.2, A.6 and A.21: a REFILL/UP sample that lost more than
    /// 2% of what was in flight when it left sets `inflight_longterm =
    /// max(tx_in_flight, 0.7 · min(bdp, cwnd))`, lowering a bound already
    /// set, and sends UP to DOWN; an app-limited one only ends the probe
    /// (D6's pseudocode; A.6's text would also set the bound); 2% is not
    /// too high.
    #[test]
    fn too_much_loss_in_up_bounds_inflight_longterm_and_goes_down() {
        let up = || {
            let mut d = Drive::sack();
            d.reach_probe_bw();
            d.b.start_probe_bw_refill(0);
            d.round(1000.0, 100);
            assert_eq!(d.b.state(), State::ProbeBwUp);
            d
        };
        // tx_in_flight 120 above 0.7 · min(bdp 100, cwnd)
        let mut d = up();
        d.ack(10, RTT, 120, |rs| rs.lost = 3);
        assert_eq!(d.b.state(), State::ProbeBwDown);
        assert_eq!(d.b.inflight_longterm(), 120.0);
        assert!(d.b.prev_probe_too_high);
        // a bound already set (150) comes down to the sample's 120
        let mut d = up();
        d.b.inflight_longterm = 150.0;
        d.ack(10, RTT, 120, |rs| rs.lost = 3);
        assert_eq!(d.b.state(), State::ProbeBwDown);
        assert_eq!(d.b.inflight_longterm(), 120.0);
        // tx_in_flight 60: the bound is 0.7 · min(bdp, cwnd) = 70
        let mut d = up();
        assert!(d.s.cwnd > 100.0);
        d.ack(10, RTT, 60, |rs| rs.lost = 2);
        assert_eq!(d.b.inflight_longterm(), 70.0);
        // a cwnd under the BDP bounds it instead: 0.7 · 80
        let mut d = up();
        d.s.cwnd = 80.0;
        d.ack(10, RTT, 50, |rs| rs.lost = 2);
        assert!(close(d.b.inflight_longterm(), 56.0), "{}", d.b.inflight_longterm());
        // app-limited: the probe ends (DOWN, and CRUISE on the same ACK
        // with 60 in flight), no bound
        let mut d = up();
        d.ack(10, RTT, 60, |rs| {
            rs.lost = 2;
            rs.is_app_limited = true;
        });
        assert_eq!(d.b.state(), State::ProbeBwCruise);
        assert_eq!(d.b.inflight_longterm(), INF);
        // 2 lost of 100 is 2%, not above it
        let mut d = up();
        d.ack(10, RTT, 100, |rs| rs.lost = 2);
        assert_eq!(d.b.state(), State::ProbeBwUp);
        assert_eq!(d.b.inflight_longterm(), INF);
        // CRUISE (not probing): the same sample sets nothing
        let mut d = Drive::sack();
        d.reach_probe_bw();
        d.round(1000.0, 100);
        assert_eq!(d.b.state(), State::ProbeBwCruise);
        d.ack(10, RTT, 120, |rs| rs.lost = 10);
        assert_eq!(d.b.inflight_longterm(), INF);
    }

    /// D6 §5.5.10.3: outside probing, the end of a round with a loss cuts
    /// the short-term bounds to max(latest, 0.7 · bound), from `max_bw`
    /// and cwnd; REFILL forgets them.
    #[test]
    fn a_lossy_round_outside_probing_cuts_the_short_term_bounds() {
        let mut d = Drive::sack();
        d.reach_probe_bw();
        d.round(1000.0, 100);
        assert_eq!(d.b.state(), State::ProbeBwCruise);
        // a round at 500 segments/s (its first sample starts the latest
        // signals), a loss in it, then an ACK sent after the loss
        d.round(500.0, 90);
        d.ack(10, RTT / 2.0, 90, |rs| {
            rs.losses = 1;
            rs.delivered = Some(25);
            rs.interval_s = 0.05;
        });
        assert_eq!(d.b.bw_shortterm(), INF, "at the loss: no cut yet");
        let cwnd = d.s.cwnd;
        d.ack(10, RTT, 90, |rs| {
            rs.delivered = Some(40);
            rs.interval_s = 0.1;
        });
        // bw_latest = 500 < 0.7 · 1000; inflight_latest = 50 < 0.7 · cwnd
        assert!(close(d.b.bw_shortterm(), 700.0), "{}", d.b.bw_shortterm());
        assert!(close(d.b.inflight_shortterm(), 0.7 * cwnd), "{} vs {}", d.b.inflight_shortterm(), cwnd);
        assert!(close(d.b.bw(), 700.0));
        assert!(d.s.cwnd <= 0.7 * cwnd + 1e-9);
        d.b.start_probe_bw_refill(0);
        assert_eq!((d.b.bw_shortterm(), d.b.inflight_shortterm()), (INF, INF));
    }

    /// Google `bbr_undo_cwnd`: undoing a loss episode brings each
    /// short-term bound back to at least its value when the episode began
    /// (`bbr_ssthresh` saved it) and cwnd to the one before the episode,
    /// and restarts the full-pipe estimate.
    #[test]
    fn an_undone_loss_episode_gives_back_the_bounds_and_cwnd() {
        /// A round at half the rate with a loss, then an ACK ending it
        /// (the cut of `a_lossy_round_outside_probing_cuts_the_short_term_bounds`).
        fn lossy_round(d: &mut Drive) {
            d.round(500.0, 90);
            d.ack(10, RTT / 2.0, 90, |rs| {
                rs.losses = 1;
                rs.delivered = Some(25);
                rs.interval_s = 0.05;
            });
            d.ack(10, RTT, 90, |rs| {
                rs.delivered = Some(40);
                rs.interval_s = 0.1;
            });
        }
        fn enter_recovery(d: &mut Drive) -> f64 {
            let cwnd = d.s.cwnd;
            d.b.ssthresh(&d.s);
            d.b.on_event(&mut d.s, CcEvent::RecoveryStart);
            cwnd
        }
        let mut d = Drive::sack();
        d.reach_probe_bw();
        d.round(1000.0, 100);
        // an episode undone: the bounds were unset when it began
        let cwnd = enter_recovery(&mut d);
        lossy_round(&mut d);
        assert!(close(d.b.bw_shortterm(), 700.0));
        d.b.full_bw = 900.0;
        d.b.on_event(&mut d.s, CcEvent::Undo);
        assert_eq!((d.b.bw_shortterm(), d.b.inflight_shortterm()), (INF, INF));
        assert_eq!((d.s.cwnd, d.b.full_bw), (cwnd, 0.0));
        d.b.on_event(&mut d.s, CcEvent::RecoveryEnd);
        // an episode not undone sets the bounds; the next one, undone,
        // gives back those, not the lower ones it set
        enter_recovery(&mut d);
        lossy_round(&mut d);
        d.b.on_event(&mut d.s, CcEvent::RecoveryEnd);
        let (bw, inflight) = (d.b.bw_shortterm(), d.b.inflight_shortterm());
        assert!(bw < INF && inflight < INF);
        enter_recovery(&mut d);
        lossy_round(&mut d);
        assert!(d.b.bw_shortterm() < bw);
        d.b.on_event(&mut d.s, CcEvent::Undo);
        assert_eq!((d.b.bw_shortterm(), d.b.inflight_shortterm()), (bw, inflight));
    }

    /// D6 A.10: no RTT sample at or below the 5 s minimum for 5 s starts
    /// ProbeRTT with cwnd gain 0.5: cwnd max(0.5 BDP, 4) = 50; after 200 ms
    /// and a round at that level, CRUISE with the saved cwnd back.
    #[test]
    fn probe_rtt_after_five_seconds_holds_half_a_bdp() {
        let mut d = Drive::sack();
        d.reach_probe_bw();
        d.round(1000.0, 100);
        let cwnd = d.s.cwnd;
        assert!(cwnd > 150.0, "cwnd {cwnd}");
        let mut entered = None;
        while d.t < 6.0 {
            let at = d.t + RTT;
            let out = d.ack(100, RTT, 100, |rs| rs.rtt_s = Some(0.12));
            if d.b.state() == State::ProbeRtt {
                entered = Some(at);
                assert!(out.mark_app_limited);
                break;
            }
        }
        let at = entered.expect("ProbeRTT");
        // the 0.1 s minimum dates from the start: the first ACK after 5 s
        assert!(at > 5.0 - 1e-9 && at <= 5.0 + RTT + 1e-9, "ProbeRTT at {at}");
        assert_eq!(d.b.gains(), (1.0, 0.5));
        assert_eq!(d.s.cwnd, 50.0);
        assert_eq!(d.b.min_rtt(), 0.1, "the 10 s window has not expired");
        // in flight falls to 50: 200 ms and a round from then
        d.ack(50, RTT, 50, |_| {});
        assert_eq!(d.b.state(), State::ProbeRtt);
        d.ack(50, RTT, 50, |_| {});
        assert_eq!(d.b.state(), State::ProbeRtt, "a round, but not yet 200 ms");
        d.ack(50, 0.11, 50, |_| {});
        assert_eq!(d.b.state(), State::ProbeBwCruise);
        // restored, then bounded by max_inflight (2 BDP + allowance)
        assert!(d.s.cwnd >= 200.0, "cwnd {} restored from {cwnd}", d.s.cwnd);
    }

    /// D6 A.14: a BDP below one segment (10 segments/s at 50 ms) keeps
    /// cwnd at `MinPipeCwnd`, and the pacing rate follows the bandwidth.
    #[test]
    fn a_sub_segment_bdp_keeps_cwnd_at_four() {
        let mut d = Drive::sack();
        let mut up = 0;
        for i in 0..45 {
            d.ack(1, 0.1, 1, |rs| rs.rtt_s = Some(0.05));
            if i < 10 {
                continue;
            }
            let st = d.b.state();
            assert!(st.is_probe_bw(), "{st:?}");
            assert!(close(d.b.bdp_multiple(d.b.bw(), 1.0), 0.5));
            let (g, _) = d.b.gains();
            assert!(close(d.s.pacing_rate, g * 10.0 * 1000.0 * 0.99), "{st:?}: {}", d.s.pacing_rate);
            if st == State::ProbeBwUp {
                // + 2 segments while probing
                up += 1;
                assert!(d.s.cwnd >= 4.0 && d.s.cwnd <= 6.0, "UP: cwnd {}", d.s.cwnd);
            } else {
                assert_eq!(d.s.cwnd, 4.0, "{st:?}");
            }
        }
        // a BDP under one segment reaches the 63-round bound at once
        assert!(up > 0);
    }

    /// D6 A.15: when the path's BDP grows tenfold, UP raises
    /// `inflight_longterm` by 1, 2, 4, … segments per round while
    /// cwnd-limited at it, so 100 → 1000 takes log2(900) ≈ 10 rounds.
    #[test]
    fn up_doubles_its_step_each_round_and_finds_ten_times_the_bdp_in_log_rounds() {
        let mut d = Drive::sack();
        d.reach_probe_bw();
        d.b.inflight_longterm = 100.0;
        d.b.start_probe_bw_refill(0);
        d.round(1000.0, 100);
        assert_eq!(d.b.state(), State::ProbeBwUp);
        let mut bounds = vec![d.b.inflight_longterm()];
        let mut rounds = 0;
        while d.b.inflight_longterm() < 1000.0 {
            rounds += 1;
            assert!(rounds <= 11, "bounds {bounds:?}");
            // the path delivers the window each round, in ACKs of 2
            let w = d.s.cwnd.floor() as u64;
            let start = d.delivered;
            for k in 0..w / 2 {
                d.ack(2, RTT / (w / 2) as f64, w, |rs| {
                    if k > 0 {
                        rs.prior_delivered = start;
                    }
                    rs.delivered = Some(w);
                    rs.interval_s = RTT;
                });
                assert_eq!(d.b.state(), State::ProbeBwUp);
            }
            bounds.push(d.b.inflight_longterm());
        }
        eprintln!("inflight_longterm by round: {bounds:?}");
        let steps: Vec<f64> = bounds.windows(2).map(|w| w[1] - w[0]).collect();
        for (i, w) in steps.windows(2).enumerate().take(6) {
            assert!(close(w[1], 2.0 * w[0]), "steps {steps:?} at {i}");
        }
        assert!(rounds >= 9, "{rounds} rounds: {bounds:?}");
    }

    /// Google's ECN response, for an ECN flow with per-segment feedback at
    /// a `min_rtt` of at most 5 ms: α's EWMA (1/16 a round from 1), Startup's
    /// exit after two rounds at ≥ 50% CE, and the CE cut of
    /// `inflight_shortterm` by α/3 outside probing; at 10 ms, none of it.
    #[test]
    fn ecn_alpha_startup_exit_and_cut_at_low_rtt_only() {
        let startup = |rtt: f64| {
            let mut d =
                Drive::new(Bbr3Config::default(), FlowInfo { ecn_precise: true, sack: true, tso: false, flow: None });
            let mut ce = 0;
            let mut rate = 10_000.0;
            for _ in 0..4 {
                // growing rates: no plateau; half of each round CE-marked
                let n = (rate * rtt) as u64;
                ce += n / 2;
                d.ack(n, rtt, 2 * n, |rs| {
                    rs.rtt_s = Some(rtt);
                    rs.total_delivered_ce = ce;
                    rs.ece_delta = n / 2;
                });
                rate *= 2.0;
            }
            d
        };
        let d = startup(0.001);
        assert!(d.b.ecn_eligible);
        assert_eq!(d.b.state(), State::Drain, "two rounds at 50% CE");
        // α: from 1 toward 0.5 by 1/16 a round, from the second round (the
        // first ACK starts the first round with nothing before it)
        let a = [1.0f64, 1.0, 1.0, 1.0].iter().skip(1).fold(1.0, |a, _| a * 15.0 / 16.0 + 0.5 / 16.0);
        assert!(close(d.b.alpha(), a), "alpha {} vs {a}", d.b.alpha());
        let d = startup(0.01);
        assert!(!d.b.ecn_eligible, "min_rtt 10 ms > 5 ms");
        assert_eq!(d.b.state(), State::Startup);
        assert_eq!(d.b.alpha(), 1.0);
        // a CE round outside probing (here DOWN): inflight_shortterm = cwnd · (1 − α/3)
        let mut d =
            Drive::new(Bbr3Config::default(), FlowInfo { ecn_precise: true, sack: true, tso: false, flow: None });
        d.reach_probe_bw();
        d.b.min_rtt = 0.004;
        d.round(1000.0, 100);
        assert!(d.b.ecn_eligible);
        assert_eq!(d.b.state(), State::ProbeBwDown);
        let cwnd = d.s.cwnd;
        let ce = 10;
        d.ack(10, RTT, 100, |rs| {
            rs.ece_delta = 10;
            rs.total_delivered_ce = ce;
        });
        let alpha = d.b.alpha();
        assert!(close(d.b.inflight_shortterm(), cwnd * (1.0 - alpha / 3.0)), "{}", d.b.inflight_shortterm());
    }

    /// Google: a REFILL/UP sample more than 50% CE-marked is "too high"
    /// for an eligible flow, as excess loss is.
    #[test]
    fn a_mostly_marked_sample_in_up_is_too_high() {
        let mut d =
            Drive::new(Bbr3Config::default(), FlowInfo { ecn_precise: true, sack: true, tso: false, flow: None });
        d.reach_probe_bw();
        d.b.min_rtt = 0.004;
        d.round(1000.0, 100);
        assert!(d.b.ecn_eligible);
        d.b.start_probe_bw_refill(0);
        d.round(1000.0, 100);
        assert_eq!(d.b.state(), State::ProbeBwUp);
        // 30 of the 50 delivered since the sample's packet left were marked
        let before = d.delivered;
        d.ack(25, RTT / 2.0, 110, |rs| rs.total_delivered_ce = 0);
        d.ack(25, RTT / 2.0, 110, |rs| {
            rs.prior_delivered = before;
            rs.total_delivered_ce = 30;
            rs.ece_delta = 30;
        });
        assert_eq!(d.b.state(), State::ProbeBwDown);
        assert_eq!(d.b.inflight_longterm(), 110.0);
    }

    #[test]
    fn params_default_and_range() {
        let d = Bbr3::from_params(&serde_json::Map::new(), "flows[0]").unwrap();
        assert_eq!(d.cfg, Bbr3Config::default());
        let mut p = serde_json::Map::new();
        p.insert("beta".into(), serde_json::json!(1.5));
        let e = Bbr3::from_params(&p, "flows[0]").err().unwrap().to_string();
        assert!(e.contains("flows[0].cc_params.beta"), "{e}");
    }
}
