//! BBR v1 (Cardwell et al., "BBR: Congestion-Based Congestion Control",
//! ACM Queue 14(5), 2016), as Linux `net/ipv4/tcp_bbr.c` runs it (ns-3's
//! `TcpBbr` is a port of Linux 5.4's): a model of the path (the windowed
//! maximum delivery rate `BtlBw` and the windowed minimum RTT `RTprop`)
//! from delivery-rate samples, and a sender that paces at `gain · BtlBw`
//! with at most `cwnd_gain · BtlBw · RTprop` in flight.
//!
//! - **Startup**: pacing and cwnd gain 2/ln 2 (Linux 739/256 = 2.887),
//!   doubling the rate each round, until three rounds in a row (packet-timed,
//!   on non-app-limited samples) grow `BtlBw` by less than 25%.
//! - **Drain**: pacing gain 88/256 (≈ 1/2.887) until the data in flight is
//!   at most one BDP (ssthresh is set to it, for monitoring as in Linux).
//! - **ProbeBW**: the pacing gain cycles 1.25, 0.75, 1 × 6, one phase per
//!   `RTprop` (the 1.25 phase also until loss or 1.25 · BDP in flight, the
//!   0.75 phase at most until one BDP in flight), entered at a random phase
//!   other than 0.75; cwnd gain 2.
//! - **ProbeRTT**: when `RTprop` has not been renewed for 10 s, cwnd drops
//!   to 4 segments for 200 ms and a round, then is restored.
//! - **Filters**: `BtlBw` is the maximum over 10 rounds ([`WindowedMax`],
//!   Linux `win_minmax`); an app-limited sample enters it only if it raises
//!   it. `RTprop` is the minimum RTT, renewed by a lower sample or by any
//!   sample once 10 s old.
//! - **cwnd**: `target = ceil(cwnd_gain · BtlBw · RTprop)` plus the ACK
//!   aggregation allowance (the most data ACKed beyond `BtlBw` over an
//!   epoch, the max of two 5-round windows, at most `BtlBw` · 100 ms, once
//!   the pipe is full) plus the quantization budget; it grows by the
//!   segments delivered per ACK, up to the target once the pipe is full
//!   (before: without bound while below target or before 10 segments are
//!   delivered); at least 4. Fast recovery holds one round of packet
//!   conservation (cwnd = in flight + delivered), each ACK's new losses
//!   come off cwnd, and leaving recovery or loss restores the cwnd saved
//!   at its start. A timeout leaves cwnd at one segment (the transport, as
//!   Linux `tcp_enter_loss`) and counts as a round start.
//! - **Pacing rate**: `pacing_gain · BtlBw · mss · 0.99` (a 1% margin
//!   below the estimate); before the pipe is full it only rises. The first
//!   rate is 2.887 · cwnd / srtt (1 ms before an RTT sample).
//!
//! Choices where a simulator differs from a kernel (documented in
//! docs/controllers.md):
//! - **Send quantum**: the quantization budget is 3 transmissions
//!   (`bbr_tso_segs_goal`), rounded up to even (Linux, for delayed ACKs),
//!   plus 2 in the 1.25 phase. A transmission is one segment unless the
//!   flow sizes them as Linux's TSO autosizing (`tso_autosize`, the
//!   `linux` personality's default: ~1 ms of data at the pacing rate, at
//!   most 127 segments, at least `bbr_min_tso_segs`'s 1 below 1.2 Mb/s and
//!   2 above, without `tcp_tso_autosize`'s short-RTT allowance); ns-3 uses
//!   one segment and no even rounding.
//! - **No policer mode** (Linux's `lt_bw` long-term sampling for token
//!   bucket policers), as ns-3; a path with a policer needs it.
//! - **Delayed-ACK detection** (`is_ack_delayed`, which stops an expired
//!   `RTprop` from being renewed by a delayed ACK) is not modelled: Linux
//!   sets it only for a lone sub-MSS segment's ACK, which bulk transfers
//!   do not send.
//! - Gains are Linux's fixed-point values; ns-3 rounds the high gain to
//!   2.89 and uses 1/2.89 for Drain.
use super::minmax::WindowedMax;
use super::{CaState, CcEvent, CcState, CongControlOut, CongestionControl, ControllerDoc, ParamDoc, RateSample};
use crate::scenario::{params::Params, ConfigError};
use crate::sim::rng::Rng;
use crate::sim::time::{from_secs, to_secs};
use crate::sim::Time;

/// ProbeBW's pacing-gain cycle (Linux `bbr_pacing_gain`).
const PACING_GAIN: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// Linux `TCP_INIT_CWND`: the BDP before an RTT sample, and the segments
/// Startup delivers before the target caps its growth.
const INIT_CWND: f64 = 10.0;
/// `bbr_full_bw_thresh` (5/4) and `bbr_full_bw_cnt`.
const FULL_BW_THRESH: f64 = 1.25;
const FULL_BW_CNT: u32 = 3;
/// `bbr_ack_epoch_acked_reset_thresh`.
const ACK_EPOCH_RESET: u64 = 1 << 20;

/// BBR's parameters (`cc_params`); `Default` is where the defaults live.
#[derive(Clone, Debug, PartialEq)]
pub struct BbrConfig {
    /// Startup's pacing and cwnd gain (Linux `bbr_high_gain` = 739/256).
    pub high_gain: f64,
    /// Drain's pacing gain (Linux `bbr_drain_gain` = 88/256).
    pub drain_gain: f64,
    /// ProbeBW's cwnd gain (Linux `bbr_cwnd_gain` = 2).
    pub cwnd_gain: f64,
    /// Rounds in the BtlBw max filter (Linux `bbr_bw_rtts` = 10).
    pub bw_rtts: u64,
    /// RTprop filter window, seconds (Linux `bbr_min_rtt_win_sec` = 10).
    pub min_rtt_win_s: f64,
    /// Time at least spent in ProbeRTT, seconds (Linux 200 ms; 0: never).
    pub probe_rtt_s: f64,
    /// Smallest cwnd, segments (Linux `bbr_cwnd_min_target` = 4).
    pub min_cwnd: f64,
    /// Gain of the ACK-aggregation allowance (Linux `bbr_extra_acked_gain`
    /// = 1; 0: off).
    pub extra_acked_gain: f64,
    /// Rounds per ACK-aggregation window (Linux `bbr_extra_acked_win_rtts` = 5).
    pub extra_acked_win_rtts: u32,
    /// Largest allowance, seconds of BtlBw (Linux `bbr_extra_acked_max_us` = 100 ms).
    pub extra_acked_max_s: f64,
    /// Pacing margin below the estimate (Linux `bbr_pacing_margin_percent` = 1%).
    pub pacing_margin: f64,
}

impl Default for BbrConfig {
    fn default() -> Self {
        BbrConfig {
            high_gain: 739.0 / 256.0,
            drain_gain: 88.0 / 256.0,
            cwnd_gain: 2.0,
            bw_rtts: 10,
            min_rtt_win_s: 10.0,
            probe_rtt_s: 0.2,
            min_cwnd: 4.0,
            extra_acked_gain: 1.0,
            extra_acked_win_rtts: 5,
            extra_acked_max_s: 0.1,
            pacing_margin: 0.01,
        }
    }
}

/// BBR's state machine (Linux `enum bbr_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

pub struct Bbr {
    cfg: BbrConfig,
    /// Set up at the flow's first transmission (Linux `bbr_init` runs at
    /// connection start; the filters' clocks start there).
    init: bool,
    mode: Mode,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// BtlBw, segments per second, over `bw_rtts` rounds.
    bw: WindowedMax,
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    round_start: bool,
    full_bw: f64,
    full_bw_cnt: u32,
    full_bw_reached: bool,
    cycle_idx: usize,
    cycle_stamp: Time,
    /// RTprop, seconds, and when it was last renewed.
    min_rtt: Option<f64>,
    min_rtt_stamp: Time,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    prior_cwnd: f64,
    prev_ca_state: CaState,
    packet_conservation: bool,
    idle_restart: bool,
    has_seen_rtt: bool,
    extra_acked: [f64; 2],
    extra_acked_win_rtts: u32,
    extra_acked_idx: usize,
    ack_epoch_stamp: Time,
    ack_epoch_acked: u64,
    rng: Option<Rng>,
    /// The flow's transmissions are TSO-sized (`FlowInfo::tso`).
    tso: bool,
}

/// `MAX_TCP_HEADER` (`L1_CACHE_ALIGN(128 + MAX_HEADER)`, x86-64 with
/// tunnels configured): the room `bbr_tso_segs_goal` keeps below the GSO
/// size.
const MAX_TCP_HEADER: u64 = 320;

/// `bbr_min_tso_rate`: below 1.2 Mb/s a transmission may be one segment.
const MIN_TSO_RATE_BYTES: f64 = 1_200_000.0 / 8.0;

impl Bbr {
    pub fn new(cfg: BbrConfig) -> Self {
        Bbr {
            pacing_gain: cfg.high_gain,
            cwnd_gain: cfg.high_gain,
            cfg,
            init: false,
            mode: Mode::Startup,
            bw: WindowedMax::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            round_start: false,
            full_bw: 0.0,
            full_bw_cnt: 0,
            full_bw_reached: false,
            cycle_idx: 0,
            cycle_stamp: 0,
            min_rtt: None,
            min_rtt_stamp: 0,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0.0,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            idle_restart: false,
            has_seen_rtt: false,
            extra_acked: [0.0; 2],
            extra_acked_win_rtts: 0,
            extra_acked_idx: 0,
            ack_epoch_stamp: 0,
            ack_epoch_acked: 0,
            rng: None,
            tso: false,
        }
    }

    pub fn doc() -> ControllerDoc {
        let d = BbrConfig::default();
        ControllerDoc {
            name: "bbr",
            doc: "BBR v1 (Cardwell et al. 2016; Linux tcp_bbr.c): paces at gain·BtlBw (10-round max of delivery-rate \
                  samples), cwnd ≈ 2·BtlBw·RTprop (10 s min RTT); Startup, Drain, ProbeBW gain cycle, ProbeRTT; \
                  paces at its own rate (pacing = \"rate\", the default with it)",
            params: vec![
                ParamDoc { name: "high_gain", default: d.high_gain.into(), doc: "Startup gain (Linux 739/256)" },
                ParamDoc { name: "drain_gain", default: d.drain_gain.into(), doc: "Drain pacing gain (Linux 88/256)" },
                ParamDoc { name: "cwnd_gain", default: d.cwnd_gain.into(), doc: "ProbeBW cwnd gain (Linux 2)" },
                ParamDoc { name: "bw_rtts", default: d.bw_rtts.into(), doc: "rounds in the BtlBw max filter (10)" },
                ParamDoc {
                    name: "min_rtt_win_s",
                    default: d.min_rtt_win_s.into(),
                    doc: "RTprop window, seconds (10); its expiry starts ProbeRTT",
                },
                ParamDoc {
                    name: "probe_rtt_s",
                    default: d.probe_rtt_s.into(),
                    doc: "ProbeRTT's least duration, seconds (0.2; 0: no ProbeRTT)",
                },
                ParamDoc { name: "min_cwnd", default: d.min_cwnd.into(), doc: "smallest cwnd, segments (4)" },
                ParamDoc {
                    name: "extra_acked_gain",
                    default: d.extra_acked_gain.into(),
                    doc: "ACK-aggregation allowance gain (1; 0: off)",
                },
                ParamDoc {
                    name: "extra_acked_win_rtts",
                    default: d.extra_acked_win_rtts.into(),
                    doc: "rounds per ACK-aggregation window (5)",
                },
                ParamDoc {
                    name: "extra_acked_max_s",
                    default: d.extra_acked_max_s.into(),
                    doc: "largest allowance, seconds of BtlBw (0.1)",
                },
                ParamDoc {
                    name: "pacing_margin",
                    default: d.pacing_margin.into(),
                    doc: "pace this fraction below the estimate (0.01)",
                },
            ],
        }
    }

    pub fn from_params(p: &serde_json::Map<String, serde_json::Value>, path: &str) -> Result<Self, ConfigError> {
        let d = BbrConfig::default();
        let mut p = Params::new(p, &format!("{path}.cc_params"));
        let cfg = BbrConfig {
            high_gain: p.f64_in("high_gain", d.high_gain, 1.0, 100.0)?,
            drain_gain: p.f64_in("drain_gain", d.drain_gain, 0.01, 1.0)?,
            cwnd_gain: p.f64_in("cwnd_gain", d.cwnd_gain, 1.0, 100.0)?,
            bw_rtts: p.u64_in("bw_rtts", d.bw_rtts, 1, 1000)?,
            min_rtt_win_s: p.f64_in("min_rtt_win_s", d.min_rtt_win_s, 0.001, 1e6)?,
            probe_rtt_s: p.f64_in("probe_rtt_s", d.probe_rtt_s, 0.0, 1e6)?,
            min_cwnd: p.f64_in("min_cwnd", d.min_cwnd, 1.0, 1e6)?,
            extra_acked_gain: p.f64_in("extra_acked_gain", d.extra_acked_gain, 0.0, 100.0)?,
            extra_acked_win_rtts: p.u64_in("extra_acked_win_rtts", d.extra_acked_win_rtts as u64, 1, 31)? as u32,
            extra_acked_max_s: p.f64_in("extra_acked_max_s", d.extra_acked_max_s, 0.0, 1e3)?,
            pacing_margin: p.f64_in("pacing_margin", d.pacing_margin, 0.0, 0.99)?,
        };
        p.finish()?;
        Ok(Bbr::new(cfg))
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// BtlBw, segments per second.
    pub fn btl_bw(&self) -> f64 {
        self.bw.get()
    }

    /// RTprop, seconds.
    pub fn rt_prop(&self) -> Option<f64> {
        self.min_rtt
    }

    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }

    /// `bbr_init`, at the flow's first transmission.
    fn ensure_init(&mut self, s: &mut CcState) {
        if self.init {
            return;
        }
        self.init = true;
        s.ssthresh = s.ssthresh.max(1e9); // TCP_INFINITE_SSTHRESH
        self.min_rtt = s.min_rtt_s;
        self.min_rtt_stamp = s.now;
        self.bw.reset(0, 0.0);
        self.prior_cwnd = s.cwnd;
        self.init_pacing_rate_from_rtt(s);
        self.mode = Mode::Startup;
        self.cycle_stamp = 0;
        self.ack_epoch_stamp = s.now;
    }

    /// `bbr_init_pacing_rate_from_rtt`: high_gain · cwnd / srtt (1 ms
    /// before an RTT sample).
    fn init_pacing_rate_from_rtt(&mut self, s: &mut CcState) {
        let rtt = match s.srtt_s {
            Some(r) if r > 0.0 => {
                self.has_seen_rtt = true;
                r
            }
            _ => 0.001,
        };
        s.pacing_rate = self.rate_bytes(s, s.cwnd / rtt, self.cfg.high_gain);
    }

    /// `bbr_rate_bytes_per_sec`: segments/s times gain to payload bytes/s,
    /// less the margin.
    fn rate_bytes(&self, s: &CcState, bw: f64, gain: f64) -> f64 {
        bw * s.mss_bytes as f64 * gain * (1.0 - self.cfg.pacing_margin)
    }

    /// `bbr_set_pacing_rate`.
    fn set_pacing_rate(&mut self, s: &mut CcState, bw: f64, gain: f64) {
        let rate = self.rate_bytes(s, bw, gain);
        if !self.has_seen_rtt && s.srtt_s.is_some() {
            self.init_pacing_rate_from_rtt(s);
        }
        if self.full_bw_reached || rate > s.pacing_rate {
            s.pacing_rate = rate;
        }
    }

    /// `bbr_bdp`: ceil(gain · BtlBw · RTprop) segments; 10 before an RTT sample.
    fn bdp(&self, bw: f64, gain: f64) -> f64 {
        match self.min_rtt {
            None => INIT_CWND,
            // (the epsilon keeps a product that is whole in exact
            // arithmetic from rounding up a segment)
            Some(r) => (bw * r * gain - 1e-9).ceil().max(0.0),
        }
    }

    /// `bbr_tso_segs_goal`: the segments of one transmission (one without
    /// TSO autosizing): 2^-10 s of data at the pacing rate, at most the
    /// legacy GSO size less `MAX_TCP_HEADER`, at least `bbr_min_tso_segs`,
    /// at most 127. Unlike `tcp_tso_autosize` (the transmissions' own size,
    /// [`crate::transport::tso::autosize`]) it adds nothing for a short
    /// minimum RTT.
    fn tso_segs_goal(&self, s: &CcState) -> f64 {
        use crate::transport::tso::{GSO_MAX_BYTES, PACING_SHIFT};
        if !self.tso {
            return 1.0;
        }
        let bytes = ((s.pacing_rate.max(0.0) as u64) >> PACING_SHIFT).min(GSO_MAX_BYTES - 1 - MAX_TCP_HEADER);
        ((bytes / s.mss_bytes.max(1) as u64) as u32).max(self.min_tso_segs(s)).min(0x7F) as f64
    }

    /// `bbr_quantization_budget`: + 3 transmissions, rounded up to even,
    /// +2 in ProbeBW's 1.25 phase.
    fn quantization_budget(&self, s: &CcState, cwnd: f64) -> f64 {
        let mut c = cwnd + 3.0 * self.tso_segs_goal(s);
        c = ((c as u64 + 1) & !1) as f64;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            c += 2.0;
        }
        c
    }

    /// `bbr_inflight`.
    fn inflight(&self, s: &CcState, bw: f64, gain: f64) -> f64 {
        self.quantization_budget(s, self.bdp(bw, gain))
    }

    /// `bbr_update_bw`: rounds and the BtlBw filter.
    fn update_bw(&mut self, rs: &RateSample) {
        self.round_start = false;
        let Some(bw) = rs.rate_pkts_per_s() else { return };
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = rs.total_delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        if !rs.is_app_limited || bw >= self.bw.get() {
            self.bw.update(self.cfg.bw_rtts, self.rtt_cnt, bw);
        }
    }

    /// `bbr_update_ack_aggregation`: the most data delivered beyond what
    /// BtlBw explains since the epoch began, per window of rounds.
    fn update_ack_aggregation(&mut self, s: &CcState, rs: &RateSample) {
        if self.cfg.extra_acked_gain <= 0.0 || rs.acked_sacked == 0 || rs.delivered.is_none() {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(31);
            if self.extra_acked_win_rtts >= self.cfg.extra_acked_win_rtts {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_idx ^= 1;
                self.extra_acked[self.extra_acked_idx] = 0.0;
            }
        }
        let epoch = to_secs(s.now.saturating_sub(self.ack_epoch_stamp));
        let mut expected = (self.bw.get() * epoch).floor() as u64;
        if self.ack_epoch_acked <= expected || self.ack_epoch_acked + rs.acked_sacked >= ACK_EPOCH_RESET {
            self.ack_epoch_acked = 0;
            self.ack_epoch_stamp = s.now;
            expected = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + rs.acked_sacked).min(0xFFFFF);
        let extra = ((self.ack_epoch_acked - expected) as f64).min(s.cwnd);
        if extra > self.extra_acked[self.extra_acked_idx] {
            self.extra_acked[self.extra_acked_idx] = extra;
        }
    }

    /// `bbr_ack_aggregation_cwnd`.
    fn ack_aggregation_cwnd(&self) -> f64 {
        if self.cfg.extra_acked_gain <= 0.0 || !self.full_bw_reached {
            return 0.0;
        }
        let max_aggr = (self.bw.get() * self.cfg.extra_acked_max_s).floor();
        (self.cfg.extra_acked_gain * self.extra_acked[0].max(self.extra_acked[1])).floor().min(max_aggr)
    }

    /// `bbr_is_next_cycle_phase`.
    fn is_next_cycle_phase(&self, s: &CcState, rs: &RateSample) -> bool {
        let full_length = self.min_rtt.is_some_and(|m| to_secs(s.now.saturating_sub(self.cycle_stamp)) > m);
        let bw = self.bw.get();
        let inflight = rs.prior_in_flight as f64;
        if self.pacing_gain == 1.0 {
            full_length
        } else if self.pacing_gain > 1.0 {
            full_length && (rs.losses > 0 || inflight >= self.inflight(s, bw, self.pacing_gain))
        } else {
            full_length || inflight <= self.inflight(s, bw, 1.0)
        }
    }

    fn advance_cycle_phase(&mut self, now: Time) {
        self.cycle_idx = (self.cycle_idx + 1) % PACING_GAIN.len();
        self.cycle_stamp = now;
    }

    /// `bbr_reset_probe_bw_mode`: a random phase other than 0.75 (Linux
    /// `CYCLE_LEN - 1 - prandom_u32_max(bbr_cycle_rand = 7)`, then advance).
    fn reset_probe_bw_mode(&mut self, now: Time) {
        use rand::Rng as _;
        self.mode = Mode::ProbeBw;
        let r = self.rng.as_mut().map_or(0, |g| g.gen_range(0..7usize));
        self.cycle_idx = PACING_GAIN.len() - 1 - r;
        self.advance_cycle_phase(now);
    }

    fn reset_mode(&mut self, now: Time) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode(now);
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// `bbr_check_full_bw_reached`: three rounds without 25% growth.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        if self.bw.get() >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = self.bw.get();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    /// `bbr_check_drain`.
    fn check_drain(&mut self, s: &mut CcState, rs: &RateSample) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            s.ssthresh = self.inflight(s, self.bw.get(), 1.0);
        }
        if self.mode == Mode::Drain && rs.in_flight as f64 <= self.inflight(s, self.bw.get(), 1.0) {
            self.reset_probe_bw_mode(s.now);
        }
    }

    /// `bbr_save_cwnd`: the cwnd to restore after recovery or ProbeRTT.
    fn save_cwnd(&mut self, s: &CcState) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = s.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(s.cwnd);
        }
    }

    /// `bbr_check_probe_rtt_done`.
    fn check_probe_rtt_done(&mut self, s: &mut CcState) {
        if self.probe_rtt_done.is_none_or(|d| s.now <= d) {
            return;
        }
        self.min_rtt_stamp = s.now;
        s.cwnd = s.cwnd.max(self.prior_cwnd);
        self.reset_mode(s.now);
    }

    /// `bbr_update_min_rtt`: the RTprop filter and ProbeRTT.
    fn update_min_rtt(&mut self, s: &mut CcState, rs: &RateSample) -> bool {
        let expired = s.now > self.min_rtt_stamp.saturating_add(from_secs(self.cfg.min_rtt_win_s));
        if let Some(r) = rs.rtt_s.filter(|&r| r >= 0.0) {
            if self.min_rtt.is_none_or(|m| r < m) || expired {
                self.min_rtt = Some(r);
                self.min_rtt_stamp = s.now;
            }
        }
        let mut mark_app_limited = false;
        if self.cfg.probe_rtt_s > 0.0 && expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(s);
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            // its low rate must not lower BtlBw
            mark_app_limited = true;
            if self.probe_rtt_done.is_none() && rs.in_flight as f64 <= self.cfg.min_cwnd {
                self.probe_rtt_done = Some(s.now.saturating_add(from_secs(self.cfg.probe_rtt_s)));
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = rs.total_delivered;
            } else if self.probe_rtt_done.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(s);
                }
            }
        }
        if rs.delivered.is_some_and(|d| d > 0) {
            self.idle_restart = false;
        }
        mark_app_limited
    }

    /// `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.cfg.high_gain, self.cfg.high_gain),
            Mode::Drain => (self.cfg.drain_gain, self.cfg.high_gain),
            Mode::ProbeBw => (PACING_GAIN[self.cycle_idx], self.cfg.cwnd_gain),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: new losses off cwnd; one
    /// round of packet conservation at the start of fast recovery; the
    /// saved cwnd back when recovery or loss ends. `Some(cwnd)` while
    /// conserving (the target is skipped).
    fn recover_or_restore(&mut self, s: &CcState, rs: &RateSample) -> (f64, bool) {
        let mut cwnd = s.cwnd;
        if rs.losses > 0 {
            cwnd = (cwnd - rs.losses as f64).max(1.0);
        }
        let (prev, state) = (self.prev_ca_state, rs.ca_state);
        if state == CaState::Recovery && prev != CaState::Recovery {
            self.packet_conservation = true;
            self.next_rtt_delivered = rs.total_delivered; // start a round now
            cwnd = (rs.in_flight + rs.acked_sacked) as f64;
        } else if prev >= CaState::Recovery && state < CaState::Recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            (cwnd.max((rs.in_flight + rs.acked_sacked) as f64), true)
        } else {
            (cwnd, false)
        }
    }

    /// `bbr_set_cwnd`.
    fn set_cwnd(&mut self, s: &mut CcState, rs: &RateSample) {
        let acked = rs.acked_sacked as f64;
        if acked > 0.0 {
            let (mut cwnd, conserving) = self.recover_or_restore(s, rs);
            if !conserving {
                let bw = self.bw.get();
                let target = self.quantization_budget(s, self.bdp(bw, self.cwnd_gain) + self.ack_aggregation_cwnd());
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || (rs.total_delivered as f64) < INIT_CWND {
                    cwnd += acked;
                }
                cwnd = cwnd.max(self.cfg.min_cwnd);
            }
            s.cwnd = cwnd;
        }
        if self.mode == Mode::ProbeRtt {
            s.cwnd = s.cwnd.min(self.cfg.min_cwnd);
        }
    }
}

/// BBR sets its pacing rate (Linux `SK_PACING_NEEDED`).
pub const NEEDS: super::Needs = super::Needs { pacing_rate: true, ..super::Needs::NONE };

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    fn cong_avoid(&mut self, _s: &mut CcState, _acked: u64) {
        // never called: `has_cong_control`
    }

    /// `bbr_ssthresh`: save cwnd, keep ssthresh (BBR does not cut on loss).
    fn ssthresh(&mut self, s: &CcState) -> f64 {
        self.save_cwnd(s);
        s.ssthresh
    }

    fn on_event(&mut self, s: &mut CcState, ev: CcEvent) {
        self.ensure_init(s);
        match ev {
            // `bbr_set_state(TCP_CA_Loss)`: the estimate of a full pipe
            // restarts, and the timeout counts as a round start.
            CcEvent::Timeout => {
                self.prev_ca_state = CaState::Loss;
                self.full_bw = 0.0;
                self.round_start = true;
            }
            // `bbr_cwnd_event(CA_EVENT_TX_START)` while app-limited: a
            // restart from idle paces at BtlBw, not above it.
            CcEvent::TxStart => {
                self.idle_restart = true;
                self.ack_epoch_stamp = s.now;
                self.ack_epoch_acked = 0;
                match self.mode {
                    Mode::ProbeBw => {
                        let bw = self.bw.get();
                        self.set_pacing_rate(s, bw, 1.0);
                    }
                    Mode::ProbeRtt => self.check_probe_rtt_done(s),
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn has_cong_control(&self) -> bool {
        true
    }

    /// `bbr_main`: update the model, then set the pacing rate and cwnd.
    fn cong_control(&mut self, s: &mut CcState, rs: &RateSample) -> CongControlOut {
        self.ensure_init(s);
        self.update_bw(rs);
        self.update_ack_aggregation(s, rs);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(s, rs) {
            self.advance_cycle_phase(s.now);
        }
        self.check_full_bw_reached(rs);
        self.check_drain(s, rs);
        let mark_app_limited = self.update_min_rtt(s, rs);
        self.update_gains();
        let bw = self.bw.get();
        self.set_pacing_rate(s, bw, self.pacing_gain);
        self.set_cwnd(s, rs);
        CongControlOut { mark_app_limited }
    }

    fn seed_rng(&mut self, rng: Rng) {
        self.rng = Some(rng);
    }

    fn set_flow_info(&mut self, f: super::FlowInfo) {
        self.tso = f.tso;
    }

    /// `bbr_min_tso_segs`: one segment below 1.2 Mb/s, else two.
    fn min_tso_segs(&self, s: &CcState) -> u32 {
        if s.pacing_rate < MIN_TSO_RATE_BYTES {
            1
        } else {
            2
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::cc::test_state;

    fn sample(delivered: u64, interval: f64, prior_delivered: u64, total: u64, in_flight: u64) -> RateSample {
        RateSample {
            delivered: Some(delivered),
            interval_s: interval,
            prior_delivered,
            acked_sacked: 1,
            prior_in_flight: in_flight,
            in_flight,
            total_delivered: total,
            rtt_s: Some(0.1),
            ..Default::default()
        }
    }

    fn st(now: f64, cwnd: f64) -> CcState {
        CcState { now: from_secs(now), srtt_s: Some(0.1), min_rtt_s: Some(0.1), ..test_state(cwnd, 1e9) }
    }

    /// `bbr_tso_segs_goal` is 2^-10 s of data at the pacing rate, at least
    /// two segments from 1.2 Mb/s: at 10 Mb/s with a 1 ms minimum RTT two,
    /// where `tcp_tso_autosize`'s short-RTT allowance (32 KB) would give 23;
    /// at 1 Gb/s 45, the GSO size less the header room; without TSO
    /// autosizing one.
    #[test]
    fn the_tso_goal_follows_the_pacing_rate_only() {
        let mut b = Bbr::new(BbrConfig::default());
        b.tso = true;
        let mut s =
            CcState { min_rtt_s: Some(0.001), mss_bytes: 1448, pacing_rate: 10e6 / 8.0, ..test_state(10.0, 1e9) };
        assert_eq!(b.tso_segs_goal(&s), 2.0);
        assert_eq!(crate::transport::tso::autosize(Some(s.pacing_rate), 1448, s.min_rtt_s, 2), 23);
        s.pacing_rate = 1e9 / 8.0;
        assert_eq!(b.tso_segs_goal(&s), 45.0);
        b.tso = false;
        assert_eq!(b.tso_segs_goal(&s), 1.0);
    }

    /// Startup doubles the rate a round: fed a bottleneck of 1000
    /// segments/s (RTT 100 ms, BDP 100), it leaves Startup after three
    /// rounds without 25% growth, drains, and holds cwnd = 2·BDP + budget.
    #[test]
    fn startup_finds_the_bottleneck_then_drains_to_probe_bw() {
        let mut b = Bbr::new(BbrConfig::default());
        b.seed_rng(crate::sim::rng::stream(1, crate::sim::rng::Stream::Controller, 0));
        let mut s = st(0.0, 10.0);
        b.on_event(&mut s, CcEvent::TxStart);
        let mut delivered = 0u64;
        let mut t = 0.0;
        let mut rate: f64 = 100.0; // segments/s delivered in round 1
        let mut rounds_in_startup = 0;
        for round in 0..30 {
            let prior = delivered;
            // one ACK per round is enough for the model: a sample of the
            // round's delivery rate, a round start
            let n = (rate * 0.1) as u64;
            delivered += n;
            t += 0.1;
            s.now = from_secs(t);
            let rs = RateSample { acked_sacked: n, ..sample(n, 0.1, prior, delivered, n) };
            b.cong_control(&mut s, &rs);
            if b.mode() == Mode::Startup {
                rounds_in_startup = round + 1;
            }
            rate = (rate * 2.0).min(1000.0);
        }
        assert!(b.full_bw_reached);
        // 100, 200, 400, 800, 1000 (each ≥ 1.25× the last), then 1000
        // twice more: the third round without growth (the 8th) ends it
        assert_eq!(rounds_in_startup, 7);
        assert_eq!(b.btl_bw(), 1000.0);
        assert_eq!(b.mode(), Mode::ProbeBw);
        // cwnd: 2 · 1000 · 0.1 = 200, plus the ACK-aggregation allowance
        // (each ACK here delivers a whole round at once: 100 segments
        // beyond what BtlBw explains at an epoch's start, capped at
        // BtlBw · 100 ms = 100), +3 → 303 → even 304 (+2 in the 1.25 phase)
        let target = if b.cycle_idx == 0 { 306.0 } else { 304.0 };
        assert_eq!(s.cwnd, target);
        // pacing: gain · 1000 segments/s · 1000 bytes · 0.99
        assert!((s.pacing_rate - b.pacing_gain() * 1000.0 * 1000.0 * 0.99).abs() < 1e-6);
    }

    #[test]
    fn fast_recovery_conserves_packets_for_a_round_then_restores() {
        let mut b = Bbr::new(BbrConfig::default());
        let mut s = st(0.0, 100.0);
        b.on_event(&mut s, CcEvent::TxStart);
        b.ssthresh(&s); // saves 100
        let rs = RateSample {
            acked_sacked: 1,
            losses: 3,
            in_flight: 60,
            total_delivered: 500,
            ca_state: CaState::Recovery,
            ..sample(0, 0.0, 0, 500, 60)
        };
        let rs = RateSample { delivered: None, ..rs };
        b.cong_control(&mut s, &rs);
        assert_eq!(s.cwnd, 61.0, "in flight + delivered");
        // recovery ends: the saved cwnd comes back
        let rs = RateSample { ca_state: CaState::Open, losses: 0, ..rs };
        b.cong_control(&mut s, &rs);
        assert_eq!(s.cwnd, 100.0);
    }

    #[test]
    fn probe_rtt_after_ten_seconds_caps_cwnd_at_four_for_200_ms_and_a_round() {
        let mut b = Bbr::new(BbrConfig::default());
        let mut s = st(0.0, 100.0);
        b.on_event(&mut s, CcEvent::TxStart);
        b.full_bw_reached = true;
        b.mode = Mode::ProbeBw;
        b.min_rtt = Some(0.1);
        b.bw.reset(0, 1000.0);
        // RTT samples above RTprop for 10 s: the filter expires
        let mut d = 1000;
        let mut out = CongControlOut::default();
        for k in 1..=101 {
            let t = k as f64 * 0.1;
            s.now = from_secs(t);
            d += 100;
            let rs = RateSample { rtt_s: Some(0.12), ..sample(100, 0.1, d - 100, d, 100) };
            out = b.cong_control(&mut s, &rs);
        }
        assert_eq!(b.mode(), Mode::ProbeRtt);
        assert!(out.mark_app_limited);
        assert_eq!(s.cwnd, 4.0);
        // the expired filter took the 120 ms sample
        assert_eq!(b.rt_prop(), Some(0.12));
        // in flight falls to 4: 200 ms from then, and a round, it ends
        let t0 = 10.2;
        s.now = from_secs(t0);
        d += 4;
        b.cong_control(&mut s, &RateSample { rtt_s: Some(0.1), ..sample(4, 0.1, d - 4, d, 4) });
        assert_eq!(b.mode(), Mode::ProbeRtt);
        let t1 = t0 + 0.21;
        s.now = from_secs(t1);
        d += 4;
        b.cong_control(&mut s, &RateSample { rtt_s: Some(0.1), ..sample(4, 0.1, d, d + 4, 4) });
        assert_eq!(b.mode(), Mode::ProbeBw);
        assert!(s.cwnd >= 100.0, "restored: {}", s.cwnd);
    }
}
