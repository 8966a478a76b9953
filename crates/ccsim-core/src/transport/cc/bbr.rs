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
//! - **Drain**: pacing gain 88/256 (≈ 1/2.887) until the data in the
//!   network is at most one BDP (ssthresh is set to it, for monitoring as
//!   in Linux).
//! - **ProbeBW**: the pacing gain cycles 1.25, 0.75, 1 × 6, one phase per
//!   `RTprop` (the 1.25 phase also until loss or 1.25 · BDP in the network,
//!   the 0.75 phase at most until one BDP is), entered at a random phase
//!   other than 0.75; cwnd gain 2. "In the network" is Linux's
//!   `bbr_packets_in_net_at_edt`: what is in flight less what BtlBw
//!   delivers before the pacer's next departure time, plus that
//!   transmission while the gain is above 1.
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
//! - **Policer detection** (Linux `bbr_lt_bw_sampling`, "long-term"
//!   bandwidth; [`LongTermBw`]): from the first loss, intervals of 4 to 16
//!   rounds that end at a loss with at least 20% of their deliveries lost
//!   give an average delivery rate; two in a row within 1/8 (or 4 kb/s) of
//!   each other mean a token-bucket policer, and BBR then uses their mean
//!   as its bandwidth (pacing gain 1 in ProbeBW) for 48 rounds before it
//!   samples again. Without a policer it still fires wherever losses reach
//!   20%, as several BBR flows in a buffer too small for their windows
//!   lose: the Linux kernel's flows do there, so ccsim's do (`lt_bw =
//!   false` turns it off, as ns-3's `TcpBbr`, which lacks it).
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
//! - **Delayed-ACK detection** (`is_ack_delayed`, which stops an expired
//!   `RTprop` from being renewed by a delayed ACK) is not modelled: Linux
//!   sets it only for a lone sub-MSS segment's ACK, which bulk transfers
//!   do not send.
//! - Gains are Linux's fixed-point values; ns-3 rounds the high gain to
//!   2.89 and uses 1/2.89 for Drain.
use super::minmax::WindowedMax;
use super::{
    CaState, CcEvent, CcState, CongControlOut, CongestionControl, ControllerDoc, ModelInfo, ParamDoc, RateSample,
};
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
/// `bbr_lt_intvl_min_rtts`: the fewest rounds in a long-term interval (at
/// most four times as many).
const LT_INTVL_MIN_RTTS: u32 = 4;
/// `bbr_lt_loss_thresh` (of 256): an interval that lost 20% of what it
/// delivered is lossy.
const LT_LOSS_THRESH: u64 = 50;
/// `bbr_lt_bw_diff`: two intervals' rates within 4 kb/s are consistent
/// (or within `bbr_lt_bw_ratio`, 1/8).
const LT_BW_DIFF_BYTES: f64 = 4000.0 / 8.0;
/// `bbr_lt_bw_max_rtts`: rounds of ProbeBW on a long-term estimate.
const LT_BW_MAX_RTTS: u32 = 48;
/// Picoseconds (`Time`) per millisecond: the long-term intervals' stamps
/// are whole milliseconds (`lt_last_stamp`).
const PS_PER_MS: Time = 1_000_000_000;
/// Picoseconds per microsecond: `bbr_packets_in_net_at_edt` counts whole
/// microseconds to the next departure.
const PS_PER_US: Time = 1_000_000;

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
    /// Policer detection by long-term bandwidth sampling (Linux, always;
    /// ns-3's `TcpBbr` has none).
    pub lt_bw: bool,
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
            lt_bw: true,
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

/// Long-term bandwidth sampling (Linux `bbr_lt_bw_sampling`, after
/// "An Internet-Wide Analysis of Traffic Policing", SIGCOMM 2016): a
/// token-bucket policer drops what exceeds its rate, so BBR looks for two
/// consecutive lossy intervals that delivered at one rate and then sends
/// at that rate instead of probing above it.
#[derive(Clone, Debug, Default)]
struct LongTermBw {
    /// Intervals are being measured (from the first loss; `lt_is_sampling`).
    is_sampling: bool,
    /// Rounds in this interval, or in ProbeBW since the estimate was
    /// adopted (`lt_rtt_cnt`).
    rtt_cnt: u32,
    /// BBR's bandwidth is `bw` (`lt_use_bw`).
    use_bw: bool,
    /// The last interval's rate, or once adopted the estimate, segments
    /// per second (`lt_bw`; 0: none).
    bw: f64,
    /// The interval's start: the connection's delivered count, the time
    /// of that delivery in whole milliseconds, its lost count.
    last_delivered: u64,
    last_stamp_ms: u64,
    last_lost: u32,
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
    lt: LongTermBw,
    /// The connection's delivered count and its time at the last ACK
    /// (`tp->delivered`, `tp->delivered_mstamp`), for a timeout's sample.
    delivered: u64,
    delivered_time: Time,
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
            lt: LongTermBw::default(),
            delivered: 0,
            delivered_time: 0,
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
                ParamDoc {
                    name: "lt_bw",
                    default: d.lt_bw.into(),
                    doc: "policer detection (Linux bbr_lt_bw_sampling): two lossy intervals (>= 20% lost) of \
                          consistent rate pin BtlBw to their mean, at pacing gain 1, for 48 rounds (false: ns-3's \
                          TcpBbr)",
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
            lt_bw: p.bool("lt_bw", d.lt_bw)?,
        };
        p.finish()?;
        Ok(Bbr::new(cfg))
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The bandwidth BBR uses, segments per second (`bbr_bw`): the
    /// long-term estimate while a policer is assumed, else BtlBw.
    pub fn btl_bw(&self) -> f64 {
        if self.lt.use_bw {
            self.lt.bw
        } else {
            self.bw.get()
        }
    }

    /// A policer is assumed and its rate used (`lt_use_bw`).
    pub fn lt_bw_in_use(&self) -> bool {
        self.lt.use_bw
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
        self.reset_lt_bw_sampling(s);
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

    /// `bbr_update_bw`: rounds, the long-term sampling and the BtlBw filter.
    fn update_bw(&mut self, s: &CcState, rs: &RateSample) {
        self.round_start = false;
        let Some(bw) = rs.rate_pkts_per_s() else { return };
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = rs.total_delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(s, rs.losses, rs.is_app_limited);
        if !rs.is_app_limited || bw >= self.bw.get() {
            self.bw.update(self.cfg.bw_rtts, self.rtt_cnt, bw);
        }
    }

    /// `bbr_reset_lt_bw_sampling_interval`: an interval starts now.
    fn reset_lt_bw_sampling_interval(&mut self, s: &CcState) {
        self.lt.last_stamp_ms = self.delivered_time / PS_PER_MS;
        self.lt.last_delivered = self.delivered;
        self.lt.last_lost = s.lost;
        self.lt.rtt_cnt = 0;
    }

    /// `bbr_reset_lt_bw_sampling`: no estimate, not sampling.
    fn reset_lt_bw_sampling(&mut self, s: &CcState) {
        self.lt.bw = 0.0;
        self.lt.use_bw = false;
        self.lt.is_sampling = false;
        self.reset_lt_bw_sampling_interval(s);
    }

    /// `bbr_lt_bw_interval_done`: an interval's rate `bw`; consistent with
    /// the last one's (within 1/8 or 4 kb/s), their mean becomes BBR's
    /// bandwidth, else it waits for the next interval.
    fn lt_bw_interval_done(&mut self, s: &CcState, bw: f64) {
        if self.lt.bw > 0.0 {
            let diff = (bw - self.lt.bw).abs();
            if diff <= self.lt.bw / 8.0 || self.rate_bytes(s, diff, 1.0) <= LT_BW_DIFF_BYTES {
                self.lt.bw = (bw + self.lt.bw) / 2.0;
                self.lt.use_bw = true;
                self.pacing_gain = 1.0; // try to avoid drops
                self.lt.rtt_cnt = 0;
                return;
            }
        }
        self.lt.bw = bw;
        self.reset_lt_bw_sampling_interval(s);
    }

    /// `bbr_lt_bw_sampling`, on each valid sample and at a timeout (as a
    /// sample with one loss): measure intervals from the first loss, each
    /// 4 to 16 rounds long and ended by a loss once 20% of its deliveries
    /// were lost; an app-limited sample abandons the measurement. While
    /// the estimate is in use, 48 rounds of ProbeBW end it and gain
    /// cycling restarts.
    fn lt_bw_sampling(&mut self, s: &CcState, losses: u64, is_app_limited: bool) {
        if !self.cfg.lt_bw {
            return;
        }
        if self.lt.use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt.rtt_cnt += 1;
                if self.lt.rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt_bw_sampling(s);
                    self.reset_probe_bw_mode(s.now);
                }
            }
            return;
        }
        // the first loss starts it: a policer's burst allowance is spent
        if !self.lt.is_sampling {
            if losses == 0 {
                return;
            }
            self.reset_lt_bw_sampling_interval(s);
            self.lt.is_sampling = true;
        }
        if is_app_limited {
            self.reset_lt_bw_sampling(s);
            return;
        }
        if self.round_start {
            self.lt.rtt_cnt += 1;
        }
        if self.lt.rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt.rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt_bw_sampling(s);
            return;
        }
        // the interval ends at a loss: the policer's tokens are spent
        if losses == 0 {
            return;
        }
        let lost = s.lost.wrapping_sub(self.lt.last_lost) as u64;
        let delivered = self.delivered.saturating_sub(self.lt.last_delivered);
        if delivered == 0 || (lost << 8) < LT_LOSS_THRESH * delivered {
            return;
        }
        let t_ms = (self.delivered_time / PS_PER_MS) as i64 - self.lt.last_stamp_ms as i64;
        if t_ms < 1 {
            return;
        }
        self.lt_bw_interval_done(s, delivered as f64 / (t_ms as f64 * 1e-3));
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
        let mut expected = (self.btl_bw() * epoch).floor() as u64;
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
        let max_aggr = (self.btl_bw() * self.cfg.extra_acked_max_s).floor();
        (self.cfg.extra_acked_gain * self.extra_acked[0].max(self.extra_acked[1])).floor().min(max_aggr)
    }

    /// `bbr_packets_in_net_at_edt`: of `inflight_now`, what will still be
    /// in the network when the next transmission leaves at its earliest
    /// departure time (`tcp_wstamp_ns`, later than now while the pacer
    /// holds it): the bandwidth BBR uses drains that many whole
    /// microseconds' worth meanwhile, and while the gain is above 1 the
    /// transmission itself counts. A pacing schedule ahead of the clock
    /// thus ends ProbeBW's 0.75 phase and Drain up to a transmission
    /// early and its 1.25 phase a transmission early.
    fn packets_in_net_at_edt(&self, s: &CcState, rs: &RateSample, inflight_now: u64) -> f64 {
        let interval_us = rs.wstamp.saturating_sub(s.now) / PS_PER_US;
        let interval_delivered = (self.btl_bw() * interval_us as f64 * 1e-6).floor();
        let mut at_edt = inflight_now as f64;
        if self.pacing_gain > 1.0 {
            at_edt += self.tso_segs_goal(s);
        }
        (at_edt - interval_delivered).max(0.0)
    }

    /// `bbr_is_next_cycle_phase`: a phase lasts RTprop; the 1.25 phase
    /// also until a loss or 1.25 BDP in the network at the next departure
    /// ([`Self::packets_in_net_at_edt`]), the 0.75 phase at most until one
    /// BDP is.
    fn is_next_cycle_phase(&self, s: &CcState, rs: &RateSample) -> bool {
        let full_length = self.min_rtt.is_some_and(|m| to_secs(s.now.saturating_sub(self.cycle_stamp)) > m);
        if self.pacing_gain == 1.0 {
            return full_length;
        }
        let bw = self.bw.get();
        let inflight = self.packets_in_net_at_edt(s, rs, rs.prior_in_flight);
        if self.pacing_gain > 1.0 {
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
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(s, rs, rs.in_flight) <= self.inflight(s, self.bw.get(), 1.0)
        {
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
            Mode::ProbeBw => (if self.lt.use_bw { 1.0 } else { PACING_GAIN[self.cycle_idx] }, self.cfg.cwnd_gain),
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
                let bw = self.btl_bw();
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

    /// `bbr_get_info`: `bbr_bw` in bytes/s, `min_rtt_us`, the gains.
    fn model_info(&self, s: &CcState) -> Option<ModelInfo> {
        Some(ModelInfo {
            bw_bytes_per_s: self.btl_bw() * s.mss_bytes as f64,
            min_rtt_s: self.min_rtt,
            pacing_gain: self.pacing_gain,
            cwnd_gain: self.cwnd_gain,
        })
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
            // restarts, and the timeout counts as a round start and as a
            // sample with one loss for the long-term sampling.
            CcEvent::Timeout => {
                self.prev_ca_state = CaState::Loss;
                self.full_bw = 0.0;
                self.round_start = true;
                self.lt_bw_sampling(s, 1, false);
            }
            // `bbr_cwnd_event(CA_EVENT_TX_START)` while app-limited: a
            // restart from idle paces at BtlBw, not above it.
            // `bbr_undo_cwnd`: the slow-down was spurious, so the full-pipe
            // estimate and the long-term sampling start again (cwnd stays)
            CcEvent::Undo => {
                self.full_bw = 0.0;
                self.full_bw_cnt = 0;
                self.reset_lt_bw_sampling(s);
            }
            CcEvent::TxStart => {
                self.idle_restart = true;
                self.ack_epoch_stamp = s.now;
                self.ack_epoch_acked = 0;
                match self.mode {
                    Mode::ProbeBw => {
                        let bw = self.btl_bw();
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
        self.delivered = rs.total_delivered;
        self.delivered_time = rs.delivered_time;
        self.update_bw(s, rs);
        self.update_ack_aggregation(s, rs);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(s, rs) {
            self.advance_cycle_phase(s.now);
        }
        self.check_full_bw_reached(rs);
        self.check_drain(s, rs);
        let mark_app_limited = self.update_min_rtt(s, rs);
        self.update_gains();
        let bw = self.btl_bw();
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
    /// A flow in ProbeBW with BtlBw `bw` and RTprop 100 ms.
    fn in_probe_bw(cfg: BbrConfig, bw: f64) -> (Bbr, CcState) {
        let mut b = Bbr::new(cfg);
        b.seed_rng(crate::sim::rng::stream(1, crate::sim::rng::Stream::Controller, 0));
        let mut s = st(0.0, 100.0);
        b.on_event(&mut s, CcEvent::TxStart);
        b.full_bw_reached = true;
        b.mode = Mode::ProbeBw;
        b.min_rtt = Some(0.1);
        b.bw.reset(0, bw);
        (b, s)
    }

    /// Round `k` (one ACK per 100 ms round): `n` segments delivered, `lost`
    /// newly lost. Each ACK's sample shows twice the round's average rate,
    /// as a policer's bursts at line rate do, so BtlBw's max filter stays
    /// above what the long-term intervals measure.
    fn policed_round(b: &mut Bbr, s: &mut CcState, d: &mut u64, k: u32, n: u64, lost: u64) {
        s.now = from_secs(k as f64 * 0.1);
        s.lost += lost as u32;
        *d += n;
        let rs = RateSample { acked_sacked: n, losses: lost, delivered_time: s.now, ..sample(n, 0.05, *d - n, *d, n) };
        b.cong_control(s, &rs);
    }

    /// `bbr_lt_bw_sampling`: the first loss starts an interval; after 4
    /// rounds a loss ends it with 30% lost (450 of 1500 delivered over
    /// 300 ms: 5000 segments/s); the next interval (2000 over 400 ms)
    /// agrees, so BBR uses 5000/s at pacing gain 1 for 48 rounds of
    /// ProbeBW, then samples again with gain cycling restarted.
    #[test]
    fn two_lossy_intervals_at_one_rate_are_taken_for_a_policer_for_48_rounds() {
        let (mut b, mut s) = in_probe_bw(BbrConfig::default(), 10_000.0);
        let mut d = 0;
        for k in 1..=7 {
            policed_round(&mut b, &mut s, &mut d, k, 500, 150);
            assert!(!b.lt_bw_in_use(), "round {k}");
        }
        policed_round(&mut b, &mut s, &mut d, 8, 500, 150);
        assert!(b.lt_bw_in_use());
        assert_eq!(b.btl_bw(), 5000.0);
        assert_eq!(b.bw.get(), 10_000.0, "BtlBw's filter is kept");
        assert_eq!(b.pacing_gain(), 1.0);
        assert!((s.pacing_rate - 5000.0 * 1000.0 * 0.99).abs() < 1e-6);
        for k in 9..=55 {
            policed_round(&mut b, &mut s, &mut d, k, 500, 0);
            assert!(b.lt_bw_in_use(), "round {k}");
            assert_eq!(b.pacing_gain(), 1.0, "no gain cycling on a policer's rate");
        }
        policed_round(&mut b, &mut s, &mut d, 56, 500, 0);
        assert!(!b.lt_bw_in_use());
        assert_eq!(b.btl_bw(), b.bw.get());
    }

    /// Rates that differ by more than 1/8 (5000 then 4000 segments/s) are
    /// not a policer's; the second becomes the reference, and a third
    /// interval at 4000 agrees with it.
    #[test]
    fn a_policer_needs_two_consecutive_intervals_within_an_eighth() {
        let (mut b, mut s) = in_probe_bw(BbrConfig::default(), 10_000.0);
        let mut d = 0;
        for k in 1..=8 {
            let n = if k <= 4 { 500 } else { 400 };
            policed_round(&mut b, &mut s, &mut d, k, n, n * 3 / 10);
        }
        assert!(!b.lt_bw_in_use());
        for k in 9..=12 {
            policed_round(&mut b, &mut s, &mut d, k, 400, 120);
        }
        assert!(b.lt_bw_in_use());
        assert_eq!(b.btl_bw(), 4000.0);
    }

    /// Below 20% of the deliveries lost no interval ends (10% here, for
    /// 40 rounds); with `lt_bw = false` (ns-3's `TcpBbr`) even 30% does
    /// not, and the pacing gain keeps cycling.
    #[test]
    fn no_policer_below_a_fifth_lost_or_with_lt_bw_off() {
        let (mut b, mut s) = in_probe_bw(BbrConfig::default(), 10_000.0);
        let mut d = 0;
        for k in 1..=40 {
            policed_round(&mut b, &mut s, &mut d, k, 500, 50);
            assert!(!b.lt_bw_in_use(), "round {k}");
        }
        let (mut b, mut s) = in_probe_bw(BbrConfig { lt_bw: false, ..BbrConfig::default() }, 10_000.0);
        let mut d = 0;
        let mut gains = std::collections::BTreeSet::new();
        for k in 1..=40 {
            policed_round(&mut b, &mut s, &mut d, k, 500, 150);
            assert!(!b.lt_bw_in_use(), "round {k}");
            gains.insert((b.pacing_gain() * 100.0) as u32);
        }
        assert_eq!(gains.into_iter().collect::<Vec<_>>(), vec![75, 100, 125]);
    }

    /// `bbr_undo_cwnd`: a spurious slow-down restarts the full-pipe
    /// estimate and the long-term sampling; cwnd stays.
    #[test]
    fn an_undo_drops_the_policer_estimate_and_the_full_pipe_count() {
        let (mut b, mut s) = in_probe_bw(BbrConfig::default(), 10_000.0);
        let mut d = 0;
        for k in 1..=8 {
            policed_round(&mut b, &mut s, &mut d, k, 500, 150);
        }
        assert!(b.lt_bw_in_use());
        b.full_bw_cnt = 2;
        let cwnd = s.cwnd;
        b.on_event(&mut s, CcEvent::Undo);
        assert!(!b.lt_bw_in_use());
        assert!(!b.lt.is_sampling);
        assert_eq!((b.full_bw, b.full_bw_cnt), (0.0, 0));
        assert_eq!(s.cwnd, cwnd);
        assert_eq!(b.btl_bw(), 10_000.0);
    }

    /// `bbr_packets_in_net_at_edt`: with BtlBw 1000 segments/s and RTprop
    /// 100 ms one BDP is 100 segments, 104 with the budget. In the 0.75
    /// phase 110 in flight, the next departure 10 ms ahead, leave 100 in
    /// the network then: the phase ends before its RTprop; at once, it
    /// goes on. In the 1.25 phase (target 130) the next transmission
    /// counts: 129 in flight end it.
    #[test]
    fn gain_phases_end_on_what_is_in_the_network_at_the_next_departure() {
        let (mut b, mut s) = in_probe_bw(BbrConfig::default(), 1000.0);
        s.now = from_secs(1.0);
        b.cycle_idx = 1;
        b.pacing_gain = 0.75;
        b.cycle_stamp = s.now;
        let rs = |wstamp_s: f64, prior_in_flight| RateSample {
            prior_in_flight,
            wstamp: from_secs(wstamp_s),
            ..sample(1, 0.1, 0, 1, prior_in_flight)
        };
        assert!(b.is_next_cycle_phase(&s, &rs(1.01, 110)));
        assert!(!b.is_next_cycle_phase(&s, &rs(1.0, 110)));
        assert!(!b.is_next_cycle_phase(&s, &rs(0.5, 110)), "a schedule behind the clock counts as now");
        b.cycle_idx = 0;
        b.pacing_gain = 1.25;
        b.cycle_stamp = from_secs(0.8);
        assert_eq!(b.inflight(&s, 1000.0, 1.25), 130.0);
        assert!(b.is_next_cycle_phase(&s, &rs(1.0, 129)));
        assert!(!b.is_next_cycle_phase(&s, &rs(1.0, 128)));
    }
}
