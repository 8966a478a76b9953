//! TCP Prague (draft-briscoe-iccrg-prague-congestion-control-04; the
//! L4S team's Linux `net/ipv4/tcp_prague.c`, v0.6): the scalable
//! congestion control of L4S (RFC 9331 §4). It sends ECT(1), reads every CE
//! mark through accurate ECN feedback (RFC 9768), and answers marks as
//! DCTCP does, by the fraction marked, so that a shallow-threshold queue
//! (DualPI2's L queue, RFC 9332) keeps it at a queue of about a millisecond
//! at full throughput.
//!
//! - **α** (Linux `prague_update_alpha`): once per round trip
//!   (the ACK that passes the highest segment sent at the last update), α ←
//!   (1 − g) α + g F with F = CE-marked / delivered segments over the round
//!   (`delivered_ce`, `delivered`, counted by AccECN); g = 1/16, α starts at
//!   1 and is not updated before the first mark (no AQM seen yet).
//! - **Reduction on CE** (`prague_enter_cwr`): entering CWR
//!   (the first ECE of a round, the transport's once-per-window rule) takes
//!   α/2 of the fractional window W off W. With RTT independence on, at most
//!   once per target RTT.
//! - **Additive increase** (`prague_update_cwnd`): every ACK adds
//!   `ai · (acked − marked) / cwnd` to W, counting only the segments not
//!   CE-marked (the "unsaturated" increase: (1 − p)/p per round), and none
//!   during loss recovery or when not cwnd-limited. Slow start adds the
//!   unmarked segments to cwnd, up to ssthresh.
//! - **The window** follows W one segment per ACK (`cwnd = ⌈W⌉`, a step
//!   down also setting ssthresh = cwnd, which ends slow start), at least 2.
//! - **Loss** (`prague_enter_loss`): W halves at fast recovery and
//!   at a timeout; no increase until the recovery ends.
//! - **RTT independence** (`RTT_CONTROL_RATE`, the default): after
//!   `rtt_transition_rounds` rounds out of slow start, a flow whose srtt R
//!   is below the target T (25 ms) grows by `(R/T)²` per ACK instead of 1,
//!   i.e. like a flow of RTT T in rate, and updates α and reduces at most
//!   once per T. `rtt_scaling = "none"` turns it off; `"additive"` targets
//!   T + R; `"scalable"` is Linux's `RTT_CONTROL_SCALABLE` heuristic.
//! - **Pacing** (`prague_update_pacing_rate`): W · MTU / srtt, doubled
//!   while cwnd < ssthresh/2 (slow start); the flow paces at it
//!   (`pacing = "rate"`).
//! - **Classic-ECN fallback** (`prague_classic_ecn_detection`;
//!   `ecn_fallback`, off by default as in Linux): a bottleneck that marks
//!   with a classic (RFC 3168) AQM keeps a deeper, more variable queue than
//!   an L4S one. Once per round with marks, a score moves by
//!   ½·log2(mdev/750 µs) + ½·max(0, log2(depth/2 ms)), where mdev and
//!   srtt come from Prague's own slow RTT average (gain 2^−g with
//!   g = ⌊lg ssthresh⌋ + ⌊lg ssthresh⌋/2 + 1, at most 18, set at each
//!   reduction; mdev's gain half of it) and depth = srtt − min RTT; the
//!   score stays in [0, 17]. Above 8 the flow treats the marks as classic:
//!   at each reduction α is at least 0.625·min(score − 8, 1), so a score of
//!   9 or more cuts like Reno's half (`"fallback"`; `"detect"` keeps the
//!   score only).
//!
//! Choices (docs/controllers.md `prague`):
//! - Linux v0.6 leaves W where it was while slow start raises cwnd, so the
//!   first step down after slow start would fall to the initial window;
//!   the later L4S trees set W = cwnd after each slow-start step, as here.
//! - Linux's tcp_is_cwnd_limited is replaced by the later trees' rule for
//!   a paced flow: the window grows unless the application left the pipe
//!   unfilled (the connection is app-limited).
//! - Fixed-point arithmetic (20 fractional bits) becomes `f64`; Linux's
//!   floor of one fixed-point unit per ACKed segment on the increase is
//!   kept.
//! - No TSO: one segment per pacing slot (Linux sends bursts of up to
//!   ~250 µs of the pacing rate).
//! - The fallback's logarithms are exact (`f64`) where Linux takes an
//!   integer log2 carrying the remainder to the next round (unbiased on
//!   average).
//! - The rate-based mode of later trees is not modelled; without AccECN
//!   Linux falls back to Reno, here `ecn_feedback` must be `"accecn"`.
use super::{AckInfo, CcEvent, CcState, CongControlOut, CongestionControl, ControllerDoc, ParamDoc, RateSample};
use crate::scenario::{params::Params, ConfigError};
use crate::sim::time::{from_secs, to_secs};
use crate::sim::Time;

/// Linux `MIN_CWND`.
const MIN_CWND: f64 = 2.0;
/// The srtt above which RTT independence is off (Linux `MAX_SCALED_RTT`).
const MAX_SCALED_RTT_S: f64 = 0.100;
/// One fixed-point unit of Linux's window (`CWND_UNIT` 20 bits).
const CWND_EPS: f64 = 1.0 / (1u64 << 20) as f64;

/// What the classic-ECN detection does (Linux `prague_ecn_fallback`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnFallback {
    /// 0: no detection (Linux's default).
    Off,
    /// 1: detect and fall back to a classic response.
    Fallback,
    /// 2: detect only (the score is kept, α is not touched).
    Detect,
}

/// The classic-ECN score's bounds in α units (Linux `L_STICKY`,
/// `CLASSIC_ECN`, `C_STICKY` over `PRAGUE_MAX_ALPHA`): pure L4S up to 8,
/// the transition to 9, pure classic up to 17.
const L_STICKY: f64 = 8.0;
const CLASSIC_ECN: f64 = L_STICKY + 1.0;
const C_STICKY: f64 = CLASSIC_ECN + L_STICKY;
/// Reference RTT deviation and queue depth of the detection (Linux
/// `V0_LG`, `D0_LG`: ~750 µs and ~2 ms), seconds.
const V0_S: f64 = 750e-6;
const D0_S: f64 = 2e-3;
/// Prague's slow RTT average's largest gain exponent (`PRAGUE_MAX_SRTT_BITS`).
const MAX_SRTT_BITS: u32 = 18;

/// log2 (platform-independent: libm's `ln`).
fn lg(x: f64) -> f64 {
    crate::sim::math::ln(x) / std::f64::consts::LN_2
}

/// How the additive increase is scaled for RTT independence (Linux
/// `prague_rtt_scaling`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RttScaling {
    /// `RTT_CONTROL_NONE`: Reno-like, one segment per RTT.
    None,
    /// `RTT_CONTROL_RATE`: as a flow of the target RTT in rate.
    Rate,
    /// `RTT_CONTROL_SCALABLE`: at least one mark every ~8 RTTs at tiny RTTs.
    Scalable,
    /// `RTT_CONTROL_ADDITIVE`: as a flow of RTT target + srtt.
    Additive,
}

/// Prague's parameters (`cc_params`); `Default` is where the defaults live.
#[derive(Clone, Debug, PartialEq)]
pub struct PragueConfig {
    /// EWMA gain of α (Linux `PRAGUE_SHIFT_G` 4: 1/16).
    pub g: f64,
    /// α before its first update (Linux: 1).
    pub init_alpha: f64,
    /// RTT-independence scaling (Linux default `RTT_CONTROL_RATE`).
    pub rtt_scaling: RttScaling,
    /// Target RTT T, seconds (Linux `prague_rtt_target` 25 ms).
    pub rtt_target_s: f64,
    /// Rounds after slow start before RTT independence starts (Linux
    /// `prague_rtt_transition` 500 in v0.6).
    pub rtt_transition_rounds: u64,
    /// Classic-ECN detection (Linux `prague_ecn_fallback`, default 0: off).
    pub ecn_fallback: EcnFallback,
}

impl Default for PragueConfig {
    fn default() -> Self {
        PragueConfig {
            g: 1.0 / 16.0,
            init_alpha: 1.0,
            rtt_scaling: RttScaling::Rate,
            rtt_target_s: 0.025,
            rtt_transition_rounds: 500,
            ecn_fallback: EcnFallback::Off,
        }
    }
}

pub struct Prague {
    cfg: PragueConfig,
    alpha: f64,
    /// The fractional window W in segments (`None` until the first hook
    /// reads the initial cwnd).
    w: Option<f64>,
    /// Per-ACK increase per unmarked segment, in segments·cwnd (1 without
    /// RTT scaling; Linux `ai_ack_increase`).
    ai: f64,
    saw_ce: bool,
    in_loss: bool,
    cwr_stamp: Option<Time>,
    alpha_stamp: Time,
    /// Round state: the segment that ends the round, and `delivered` and
    /// `delivered_ce` at its start.
    next_seq: u64,
    old_delivered: u64,
    old_delivered_ce: u64,
    /// Rounds since slow start ended.
    round: u64,
    /// SND.UNA and SND.NXT after the latest ACK (`on_ack`).
    una: u64,
    snd_nxt: u64,
    /// The classic-ECN detection: Prague's slow srtt and mdev (seconds)
    /// and their gain exponent, and the score.
    pace_srtt: Option<f64>,
    pace_mdev: f64,
    g_srtt_shift: u32,
    classic_ecn: f64,
}

impl Prague {
    pub fn new(cfg: PragueConfig) -> Self {
        Prague {
            alpha: cfg.init_alpha,
            cfg,
            w: None,
            ai: 1.0,
            saw_ce: false,
            in_loss: false,
            cwr_stamp: None,
            alpha_stamp: 0,
            next_seq: 0,
            old_delivered: 0,
            old_delivered_ce: 0,
            round: 0,
            una: 0,
            snd_nxt: 0,
            pace_srtt: None,
            pace_mdev: 1e-6,
            g_srtt_shift: MAX_SRTT_BITS,
            classic_ecn: 0.0,
        }
    }

    pub fn doc() -> ControllerDoc {
        let d = PragueConfig::default();
        ControllerDoc {
            name: "prague",
            doc: "TCP Prague (draft-briscoe-iccrg-prague-congestion-control, Linux tcp_prague.c): the L4S scalable \
                  sender: ECT(1), AccECN feedback, W·(1 − α/2) once per round on CE (α = EWMA of the marked \
                  fraction), unsaturated additive increase scaled to a 25 ms target RTT, paced at W/srtt",
            params: vec![
                ParamDoc { name: "g", default: d.g.into(), doc: "EWMA gain of α (Linux 1/16)" },
                ParamDoc { name: "init_alpha", default: d.init_alpha.into(), doc: "α before its first update (1)" },
                ParamDoc {
                    name: "rtt_scaling",
                    default: "rate".into(),
                    doc: "RTT independence: rate (grow as a flow of the target RTT) | none | additive | scalable",
                },
                ParamDoc {
                    name: "rtt_target_s",
                    default: d.rtt_target_s.into(),
                    doc: "target RTT of the RTT independence, seconds (Linux 25 ms)",
                },
                ParamDoc {
                    name: "rtt_transition_rounds",
                    default: d.rtt_transition_rounds.into(),
                    doc: "rounds after slow start before RTT independence starts (Linux v0.6: 500)",
                },
                ParamDoc {
                    name: "ecn_fallback",
                    default: "off".into(),
                    doc: "classic-ECN detection: off | fallback (answer a classic AQM's marks like Reno) | detect",
                },
            ],
        }
    }

    pub fn from_params(p: &serde_json::Map<String, serde_json::Value>, path: &str) -> Result<Self, ConfigError> {
        let d = PragueConfig::default();
        let mut p = Params::new(p, &format!("{path}.cc_params"));
        let g = p.f64_in("g", d.g, 0.0, 1.0)?;
        let init_alpha = p.f64_in("init_alpha", d.init_alpha, 0.0, 1.0)?;
        let rtt_scaling = match p.choice("rtt_scaling", "rate", &["rate", "none", "additive", "scalable"])? {
            "none" => RttScaling::None,
            "additive" => RttScaling::Additive,
            "scalable" => RttScaling::Scalable,
            _ => RttScaling::Rate,
        };
        let rtt_target_s = p.f64_in("rtt_target_s", d.rtt_target_s, 1e-6, 10.0)?;
        let rtt_transition_rounds = p.u64_in("rtt_transition_rounds", d.rtt_transition_rounds, 0, 1 << 32)?;
        let ecn_fallback = match p.choice("ecn_fallback", "off", &["off", "fallback", "detect"])? {
            "fallback" => EcnFallback::Fallback,
            "detect" => EcnFallback::Detect,
            _ => EcnFallback::Off,
        };
        p.finish()?;
        if g == 0.0 {
            return Err(ConfigError::new(format!("{path}.cc_params.g"), "0 is not allowed; must be in (0, 1]"));
        }
        Ok(Prague::new(PragueConfig { g, init_alpha, rtt_scaling, rtt_target_s, rtt_transition_rounds, ecn_fallback }))
    }

    /// The current estimate of the marked fraction.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The classic-ECN score (0 to 17; above 8: classic).
    pub fn classic_ecn_score(&self) -> f64 {
        self.classic_ecn
    }

    /// Prague's slow RTT average (`prague_rtt_estimator`): srtt and mdev
    /// with gains 2^−g and 2^−(g+1).
    fn pace_rtt_sample(&mut self, rtt: f64) {
        let g = 1.0 / (1u64 << self.g_srtt_shift) as f64;
        match self.pace_srtt {
            None => self.pace_srtt = Some(rtt),
            Some(srtt) => {
                let err = rtt - srtt;
                self.pace_srtt = Some(srtt + g * err);
                self.pace_mdev += g / 2.0 * (err.abs() - self.pace_mdev);
            }
        }
    }

    /// The gain follows the window at each reduction
    /// (`prague_update_rtt_scaling`): g = ⌊lg w⌋ + ⌊lg w⌋/2 + 1, at most 18.
    fn update_rtt_scaling(&mut self, ssthresh: f64) {
        // ⌊lg ssthresh⌋ (Linux `ilog2`), ssthresh clamped to 32 bits
        let lg = if ssthresh >= 1.0 { 31 - (ssthresh.min(u32::MAX as f64) as u32).leading_zeros() } else { 0 };
        self.g_srtt_shift = (lg + lg / 2 + 1).min(MAX_SRTT_BITS);
    }

    /// One round's move of the score (`prague_classic_ecn_detection`).
    fn classic_ecn_detection(&mut self, s: &CcState) {
        let (Some(srtt), Some(min_rtt)) = (self.pace_srtt, s.min_rtt_s) else { return };
        let mut score = self.classic_ecn + 0.5 * lg(self.pace_mdev.max(1e-9) / V0_S);
        if srtt > min_rtt {
            score += 0.5 * lg((srtt - min_rtt) / D0_S).max(0.0);
        }
        self.classic_ecn = score.clamp(0.0, C_STICKY);
    }

    /// The fractional window W, segments.
    pub fn frac_cwnd(&self) -> Option<f64> {
        self.w
    }

    fn w(&mut self, s: &CcState) -> f64 {
        *self.w.get_or_insert(s.cwnd)
    }

    /// The target RTT (Linux `prague_target_rtt`; the additive mode's is
    /// target + srtt).
    fn target_s(&self, s: &CcState) -> f64 {
        match self.cfg.rtt_scaling {
            RttScaling::Additive => self.cfg.rtt_target_s + s.srtt_s.unwrap_or(0.0),
            _ => self.cfg.rtt_target_s,
        }
    }

    /// RTT independence is on: a scaling mode, out of slow start, and past
    /// the transition rounds (`prague_is_rtt_indep`).
    fn rtt_indep(&self, s: &CcState) -> bool {
        self.cfg.rtt_scaling != RttScaling::None && !s.in_slow_start() && self.round >= self.cfg.rtt_transition_rounds
    }

    /// The per-ACK increase factor (`prague_ai_ack_increase`).
    fn update_ai(&mut self, s: &CcState) {
        let unscaled = 1.0;
        let rtt = s.srtt_s.unwrap_or(0.0);
        self.ai = if self.cfg.rtt_scaling == RttScaling::None
            || self.round < self.cfg.rtt_transition_rounds
            || rtt <= 0.0
            || rtt > MAX_SCALED_RTT_S
        {
            unscaled
        } else {
            match self.cfg.rtt_scaling {
                RttScaling::Rate | RttScaling::Additive => {
                    let t = self.target_s(s);
                    if rtt >= t {
                        unscaled
                    } else {
                        (rtt / t) * (rtt / t)
                    }
                }
                RttScaling::Scalable => {
                    // R0 ≈ 16 ms, R1 ≈ 1.5 ms (Linux's 2^14 µs and 1536 µs).
                    let (r0, r1) = (16_384e-6, 1_536e-6);
                    (r0 / 8.0 + (rtt - r1).clamp(0.0, r0)) * rtt / (r0 * r0)
                }
                RttScaling::None => unscaled,
            }
        };
    }

    /// A round ends: the next one runs to the highest segment sent now
    /// (`prague_new_round`).
    fn new_round(&mut self, s: &CcState, rs: &RateSample) {
        self.next_seq = self.snd_nxt;
        self.old_delivered = rs.total_delivered;
        self.old_delivered_ce = rs.total_delivered_ce;
        if !s.in_slow_start() {
            self.round += 1;
        }
        self.update_ai(s);
    }

    /// α's once-per-round update (`prague_update_alpha`).
    fn update_alpha(&mut self, s: &CcState, rs: &RateSample) {
        if self.saw_ce {
            if self.cfg.ecn_fallback != EcnFallback::Off {
                self.classic_ecn_detection(s);
            }
            let marked = rs.total_delivered_ce - self.old_delivered_ce;
            let f =
                if marked > 0 { marked as f64 / (rs.total_delivered - self.old_delivered).max(1) as f64 } else { 0.0 };
            self.alpha = ((1.0 - self.cfg.g) * self.alpha + self.cfg.g * f).min(1.0);
            self.alpha_stamp = s.now;
        }
        self.new_round(s, rs);
    }

    /// α is updated once per round, and with RTT independence at most once
    /// per target RTT (`prague_should_update_ewma`).
    fn should_update_ewma(&self, s: &CcState) -> bool {
        self.una >= self.next_seq
            && (!self.rtt_indep(s) || to_secs(s.now.saturating_sub(self.alpha_stamp)) >= self.target_s(s))
    }

    /// The window: growth for the unmarked segments, then one step of cwnd
    /// toward ⌈W⌉ (`prague_update_cwnd`).
    fn update_cwnd(&mut self, s: &mut CcState, rs: &RateSample) {
        let mut acked = rs.acked_sacked as i64;
        if rs.ece_delta > 0 {
            self.saw_ce = true;
            acked -= rs.ece_delta as i64;
        }
        if acked > 0 && !self.in_loss && !rs.conn_app_limited {
            let mut acked = acked as u64;
            if s.in_slow_start() {
                // Linux `tcp_slow_start`, then W follows cwnd.
                let cwnd = (s.cwnd + acked as f64).min(s.ssthresh).min(s.max_cwnd);
                acked = acked.saturating_sub((cwnd - s.cwnd).max(0.0) as u64);
                s.cwnd = cwnd;
                self.w = Some(cwnd);
                if acked == 0 {
                    self.update_ai(s);
                    return;
                }
            }
            let w = self.w(s);
            let cwnd = w.ceil().max(1.0);
            let increase = acked as f64 * self.ai / cwnd;
            self.w = Some(w + increase.max(acked as f64 * CWND_EPS));
        }
        let target = self.w(s).ceil().max(1.0);
        if s.cwnd > target && s.cwnd > MIN_CWND {
            s.cwnd -= 1.0;
            s.ssthresh = s.cwnd;
            self.update_ai(s);
        } else if s.cwnd < target && s.cwnd < s.max_cwnd {
            s.cwnd += 1.0;
            self.update_ai(s);
        }
    }

    /// The first CE of a round: W · (1 − α/2) (`prague_enter_cwr`).
    fn enter_cwr(&mut self, s: &CcState) {
        if self.rtt_indep(s) && self.cwr_stamp.is_some_and(|t| s.now.saturating_sub(t) < from_secs(self.target_s(s))) {
            return;
        }
        self.cwr_stamp = Some(s.now);
        let mut alpha = self.alpha;
        if self.cfg.ecn_fallback == EcnFallback::Fallback && self.classic_ecn > L_STICKY {
            // `prague_classic_ecn_fallback`: α no lower than ~0.6 of the
            // classic score's transition, so a classic AQM's marks cut
            // nearly as deep as Reno's.
            alpha = alpha.max(0.625 * (self.classic_ecn.min(CLASSIC_ECN) - L_STICKY));
        }
        let w = self.w(s);
        self.w = Some(w - alpha * w / 2.0);
    }

    /// Fast recovery or a timeout: W halves (`prague_enter_loss`).
    fn enter_loss(&mut self, s: &CcState) {
        let w = self.w(s);
        self.w = Some(w - w / 2.0);
        self.in_loss = true;
        self.update_ai(s);
    }

    /// `prague_update_pacing_rate`: W · MTU / srtt, doubled in slow start
    /// below half of ssthresh.
    fn update_pacing_rate(&mut self, s: &mut CcState, rs: &RateSample) {
        let Some(srtt) = s.srtt_s.filter(|&r| r > 0.0) else { return };
        let _ = rs;
        let mtu = s.mss_bytes as f64 + s.header_bytes as f64;
        let mut rate = self.w(s) * mtu / srtt;
        if s.cwnd < s.ssthresh / 2.0 {
            rate *= 2.0;
        }
        s.pacing_rate = rate;
    }
}

/// An L4S sender (RFC 9331 §4): it paces at the rate it sets, sends
/// ECT(1), needs ECN and accurate ECN feedback (§4.2, RFC 9768).
pub const NEEDS: super::Needs = super::Needs {
    pacing_rate: true,
    ecn: Some(super::EcnNeeds {
        required: true,
        ect: Some(crate::scenario::kinds::Ect::Ect1),
        feedback: Some(crate::scenario::kinds::EcnFeedback::Accecn),
        feedback_required: true,
    }),
    path_stage: None,
};

impl CongestionControl for Prague {
    fn name(&self) -> &'static str {
        "prague"
    }

    /// Not called: Prague sets the window in `cong_control`.
    fn cong_avoid(&mut self, _s: &mut CcState, _acked: u64) {}

    /// ssthresh stays (Linux `prague_ssthresh`): the reductions act on W,
    /// and cwnd follows it down, setting ssthresh as it goes. (Called at
    /// each reduction: the slow RTT average's gain follows ssthresh.)
    fn ssthresh(&mut self, s: &CcState) -> f64 {
        self.update_rtt_scaling(s.ssthresh);
        s.ssthresh
    }

    fn pkts_acked(&mut self, _s: &mut CcState, _acked: u64, rtt_s: Option<f64>) {
        if let Some(r) = rtt_s {
            self.pace_rtt_sample(r);
        }
    }

    fn ecn_alpha(&self) -> Option<f64> {
        Some(self.alpha)
    }

    fn on_ack(&mut self, _s: &mut CcState, a: AckInfo) {
        self.una = a.una;
        self.snd_nxt = a.snd_nxt;
    }

    fn on_event(&mut self, s: &mut CcState, ev: CcEvent) {
        match ev {
            CcEvent::RecoveryStart | CcEvent::Timeout => self.enter_loss(s),
            CcEvent::EcnEcho => self.enter_cwr(s),
            CcEvent::RecoveryEnd | CcEvent::LossEnd | CcEvent::CwrEnd => self.in_loss = false,
            CcEvent::TxStart | CcEvent::Undo => {}
        }
    }

    fn has_cong_control(&self) -> bool {
        true
    }

    fn cong_control(&mut self, s: &mut CcState, rs: &RateSample) -> CongControlOut {
        self.update_cwnd(s, rs);
        if self.should_update_ewma(s) {
            self.update_alpha(s, rs);
        }
        self.update_pacing_rate(s, rs);
        CongControlOut::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::cc::{test_state, CaState};

    fn rs(acked: u64, ce: u64, total: u64, total_ce: u64) -> RateSample {
        RateSample {
            acked_sacked: acked,
            ece_delta: ce,
            total_delivered: total,
            total_delivered_ce: total_ce,
            ..Default::default()
        }
    }

    fn open(p: &mut Prague, s: &mut CcState, una: u64, nxt: u64) {
        p.on_ack(s, AckInfo { acked: 1, ece: false, ce: 0, una, snd_nxt: nxt });
    }

    #[test]
    fn a_ce_round_takes_half_alpha_off_the_window() {
        // Out of slow start, W = 100, α = 1 (initial): the first CE halves W,
        // and cwnd follows one segment per ACK, setting ssthresh as it goes.
        let mut p = Prague::new(PragueConfig::default());
        let mut s = test_state(100.0, 50.0);
        s.srtt_s = Some(0.02);
        p.w = Some(100.0);
        p.on_event(&mut s, CcEvent::EcnEcho);
        assert_eq!(p.frac_cwnd(), Some(50.0));
        for i in 1..=5 {
            p.cong_control(&mut s, &rs(1, 1, 0, 0));
            assert_eq!(s.cwnd, 100.0 - i as f64);
            assert_eq!(s.ssthresh, s.cwnd);
        }
        // with α = 0.25, a CE cuts W by 12.5%
        p.alpha = 0.25;
        p.w = Some(80.0);
        p.on_event(&mut s, CcEvent::EcnEcho);
        assert_eq!(p.frac_cwnd(), Some(70.0));
    }

    #[test]
    fn alpha_is_the_ewma_of_the_marked_fraction_once_per_round() {
        let mut p = Prague::new(PragueConfig::default());
        let mut s = test_state(10.0, 5.0);
        s.srtt_s = Some(0.1);
        open(&mut p, &mut s, 0, 10);
        p.cong_control(&mut s, &rs(1, 0, 1, 0));
        assert_eq!(p.alpha(), 1.0, "no update before the first mark");
        // a round of 10 segments with 2 marked: F = 0.2
        open(&mut p, &mut s, 10, 20);
        p.cong_control(&mut s, &rs(1, 1, 11, 2));
        let expect = 15.0 / 16.0 + 0.2 / 16.0;
        assert!((p.alpha() - expect).abs() < 1e-12, "{}", p.alpha());
        // mid-round ACKs leave it alone
        open(&mut p, &mut s, 15, 25);
        p.cong_control(&mut s, &rs(1, 0, 16, 2));
        assert!((p.alpha() - expect).abs() < 1e-12);
        // the next round, none marked: α decays by 1/16
        open(&mut p, &mut s, 20, 30);
        p.cong_control(&mut s, &rs(1, 0, 21, 2));
        assert!((p.alpha() - expect * 15.0 / 16.0).abs() < 1e-12);
    }

    #[test]
    fn growth_counts_only_unmarked_segments() {
        // Congestion avoidance at cwnd 50: two unmarked segments add 2/50,
        // a marked one nothing.
        let mut p = Prague::new(PragueConfig::default());
        let mut s = test_state(50.0, 40.0);
        p.w = Some(50.0);
        p.cong_control(&mut s, &rs(2, 0, 0, 0));
        assert!((p.frac_cwnd().unwrap() - 50.04).abs() < 1e-9);
        p.cong_control(&mut s, &rs(1, 1, 0, 0));
        assert!((p.frac_cwnd().unwrap() - 50.04).abs() < 1e-9);
        // cwnd steps up to ⌈W⌉ = 51
        assert_eq!(s.cwnd, 51.0);
    }

    #[test]
    fn rtt_independence_scales_growth_by_the_square_of_rtt_over_target() {
        // srtt 5 ms, target 25 ms: (1/5)² = 0.04 of Reno's increase, once
        // the transition rounds have passed.
        let cfg = PragueConfig { rtt_transition_rounds: 2, ..Default::default() };
        let mut p = Prague::new(cfg);
        let mut s = test_state(50.0, 40.0);
        s.srtt_s = Some(0.005);
        p.w = Some(50.0);
        for r in 0..2 {
            open(&mut p, &mut s, 10 * r, 10 * r + 10);
            p.cong_control(&mut s, &rs(0, 0, 0, 0));
        }
        open(&mut p, &mut s, 20, 30);
        p.cong_control(&mut s, &rs(0, 0, 0, 0));
        assert!(p.round >= 2);
        assert!((p.ai - 0.04).abs() < 1e-12, "{}", p.ai);
        let w0 = p.frac_cwnd().unwrap();
        p.cong_control(&mut s, &rs(10, 0, 0, 0));
        assert!((p.frac_cwnd().unwrap() - w0 - 10.0 * 0.04 / 50.0).abs() < 1e-9);
        // and reduces at most once per target RTT
        p.on_event(&mut s, CcEvent::EcnEcho);
        let w1 = p.frac_cwnd().unwrap();
        s.now += from_secs(0.010);
        p.on_event(&mut s, CcEvent::EcnEcho);
        assert_eq!(p.frac_cwnd().unwrap(), w1);
        s.now += from_secs(0.016);
        p.on_event(&mut s, CcEvent::EcnEcho);
        assert!(p.frac_cwnd().unwrap() < w1);
    }

    #[test]
    fn loss_halves_the_window_and_stops_growth_until_recovery_ends() {
        let mut p = Prague::new(PragueConfig::default());
        let mut s = test_state(40.0, 30.0);
        p.w = Some(40.0);
        p.on_event(&mut s, CcEvent::RecoveryStart);
        assert_eq!(p.frac_cwnd(), Some(20.0));
        let mut r = rs(5, 0, 0, 0);
        r.ca_state = CaState::Recovery;
        p.cong_control(&mut s, &r);
        assert_eq!(p.frac_cwnd(), Some(20.0));
        assert_eq!(s.cwnd, 39.0);
        p.on_event(&mut s, CcEvent::RecoveryEnd);
        p.cong_control(&mut s, &rs(5, 0, 0, 0));
        assert!(p.frac_cwnd().unwrap() > 20.0);
    }

    #[test]
    fn slow_start_moves_cwnd_and_the_fractional_window_together() {
        let mut p = Prague::new(PragueConfig::default());
        let mut s = test_state(10.0, f64::INFINITY);
        p.cong_control(&mut s, &rs(2, 0, 2, 0));
        assert_eq!(s.cwnd, 12.0);
        assert_eq!(p.frac_cwnd(), Some(12.0));
        // a marked segment does not grow it
        p.cong_control(&mut s, &rs(2, 1, 4, 1));
        assert_eq!(s.cwnd, 13.0);
    }

    #[test]
    fn a_classic_queue_raises_the_score_and_the_fallback_cuts_like_reno() {
        // Per round: RTT samples around 50 ms ± 4 ms over a 40 ms minimum
        // (a classic AQM's 10 ms queue): each round adds about
        // ½·lg(mdev/750 µs) + ½·lg(10 ms/2 ms) > 1.
        let cfg = PragueConfig { ecn_fallback: EcnFallback::Fallback, ..Default::default() };
        let mut p = Prague::new(cfg);
        let mut s = test_state(100.0, 100.0);
        s.min_rtt_s = Some(0.040);
        p.w = Some(100.0);
        p.saw_ce = true;
        p.ssthresh(&s); // gain exponent from ssthresh 100: 6 + 3 + 1 = 10
        assert_eq!(p.g_srtt_shift, 10);
        p.alpha = 0.1;
        let mut seq = 0;
        for round in 0..12 {
            for i in 0..1000 {
                let rtt = if i % 2 == 0 { 0.046 } else { 0.054 };
                p.pkts_acked(&mut s, 1, Some(rtt));
            }
            seq += 100;
            open(&mut p, &mut s, seq, seq + 100);
            p.cong_control(&mut s, &rs(1, 0, 1000 * (round + 1), 100 * (round + 1)));
        }
        assert!(p.classic_ecn_score() > CLASSIC_ECN, "score {}", p.classic_ecn_score());
        // α stays near the marked fraction, but the cut is Reno's ×0.625
        let w = p.frac_cwnd().unwrap();
        p.on_event(&mut s, CcEvent::EcnEcho);
        assert!((p.frac_cwnd().unwrap() - w * (1.0 - 0.625 / 2.0)).abs() < 1e-9);
        // an L4S queue (mdev 100 µs, no depth) brings the score back to 0
        let mut p2 = Prague::new(PragueConfig { ecn_fallback: EcnFallback::Fallback, ..Default::default() });
        p2.classic_ecn = C_STICKY;
        p2.saw_ce = true;
        s.min_rtt_s = Some(0.040);
        for round in 0..40u64 {
            for i in 0..1000 {
                p2.pkts_acked(&mut s, 1, Some(if i % 2 == 0 { 0.0399 } else { 0.0401 }));
            }
            open(&mut p2, &mut s, 100 * (round + 1), 100 * (round + 2));
            p2.cong_control(&mut s, &rs(1, 0, 1000 * (round + 1), round + 1));
        }
        assert_eq!(p2.classic_ecn_score(), 0.0);
    }

    #[test]
    fn the_pacing_rate_is_the_window_per_srtt_doubled_early_in_slow_start() {
        let mut p = Prague::new(PragueConfig::default());
        let mut s = test_state(100.0, 50.0);
        s.srtt_s = Some(0.1);
        s.mss_bytes = 1448;
        s.header_bytes = 52;
        p.w = Some(100.0);
        p.update_pacing_rate(&mut s, &RateSample::default());
        assert!((s.pacing_rate - 100.0 * 1500.0 / 0.1).abs() < 1e-6);
        s.cwnd = 20.0;
        p.update_pacing_rate(&mut s, &RateSample::default());
        assert!((s.pacing_rate - 2.0 * 100.0 * 1500.0 / 0.1).abs() < 1e-6);
    }
}
