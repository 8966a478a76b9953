//! H-TCP (Leith & Shorten, "H-TCP: TCP for high-speed and long-distance
//! networks", PFLDnet 2004), as the paper's §3.4 "Complete H-TCP algorithm",
//! with the Linux `tcp_htcp.c` variant as `mode = "linux"`.
//!
//! Why: the increase α grows with the *time* Δ since the last congestion
//! event rather than with the window, so a flow is standard TCP for Δ_L = 1 s
//! after every backoff (backward compatible, TCP-friendly on ordinary paths)
//! and flows behave symmetrically (a flow already in high-speed mode has no
//! lasting advantage, which gives fairness). The backoff β = RTT_min/RTT_max
//! lets the buffer just empty after a cut, so small buffers stay utilised
//! (§3.2); the adaptive reset to β = 0.5 restores fast convergence when the
//! bandwidth share changes (§3.3).
//!
//! ## `mode = "paper"` (default), §3.4
//! - Per ACK in congestion avoidance: `α_H(Δ) = 1` for Δ ≤ Δ_L, else
//!   `1 + 10(Δ−Δ_L) + ((Δ−Δ_L)/2)²` (eq. 23); `α = 2(1−β)·α_H` (eq. 24);
//!   `cwnd += α/cwnd`. Δ is measured from the last congestion event, i.e. the
//!   `ssthresh` call (fast retransmit, ECN or RTO); before the first event,
//!   from the flow's first ACK.
//! - On a congestion event (eq. 25): β = 0.5 if the throughput just before this
//!   event, B⁻(k+1), differs from the previous one, B⁻(k), by more than 20% of
//!   B⁻(k); otherwise `β = RTT_min/RTT_max` clamped to [0.5, 0.8] (Comment 1).
//!   Then `ssthresh = max(β·cwnd, 2)`.
//! - Estimators (the paper leaves them open; these are the choices made here):
//!   RTT_min is the minimum RTT sample of the connection; RTT_max is the
//!   maximum sample since the previous congestion event (the queue is full
//!   just before a drop-tail loss, so this is the RTT the throughput balance
//!   of eq. 19–21 needs, and one old spike cannot pin β at 0.5 forever).
//!   B⁻ is "readily measured from packets ACK'ed over an RTT": ACKed segments
//!   per second over consecutive bins of one smoothed RTT; B⁻ is the last
//!   complete bin before the event. At the first event there is no previous B⁻:
//!   with `adaptive_reset` that counts as a change, so β = 0.5 (as Linux);
//!   without it, β = clamp(RTT_min/RTT_max) from the first event.
//!   With `adaptive_backoff = false`, β = `fixed_beta` always and the reset does
//!   not apply (it only modifies the adaptive backoff).
//! - RTT scaling (§3.1 Comment 2, §3.4 Comment 2; off by default): α is
//!   multiplied by `RTT_min/rtt_ref`, clamped to [0.5, 10] as the paper's
//!   footnote suggests, so growth in packets per second does not depend on RTT.
//!   (Linux reads the same [0.5, 10] as bounds on `rtt_ref/RTT_min`, i.e. a
//!   multiplier in [0.1, 2]; that is what `mode = "linux"` does.)
//!
//! ## `mode = "linux"` (`net/ipv4/tcp_htcp.c`), differences from the paper
//! - Δ restarts when the sender enters fast recovery, the loss state of a
//!   timeout or an ECN window reduction (`RecoveryStart`, `Timeout`,
//!   `EcnEcho`), and again when it returns to Open from them (`RecoveryEnd`,
//!   `LossEnd`, `CwrEnd`), as Linux's `htcp_state` does (`htcp_reset` on
//!   `CA_CWR`/`CA_Recovery`/`CA_Loss`, `last_cong = jiffies` on `CA_Open`).
//!   So Δ counts from the end of the episode, not from the loss.
//! - Undo (`htcp_cwnd_undo`): entering an episode saves Δ's origin, maxRTT
//!   and the old B (`htcp_reset`); when the `linux` personality's
//!   transport finds the episode spurious and undoes it (`Undo`), they come
//!   back, and the return to Open then leaves Δ running from before the
//!   episode (Linux restarts it at Open only after a reset not undone).
//!   cwnd comes back as Reno's (`tcp_reno_undo_cwnd`, the transport's).
//! - α is recomputed only when cwnd is incremented: a counter gains one unit
//!   per ACK (`abc`: segments) and cwnd += 1 once `counter·α ≥ cwnd`, so at most
//!   +1 per ACK. The factor `1 + 10Δ' + Δ'²/4` is truncated to an integer; RTT
//!   scaling uses `scale = clamp(int(8·rtt_ref/RTT_min), 4, 80)` and
//!   `factor = max(1, int(8·factor/scale))` (multiplier in [0.1, 2]);
//!   `rtt_scaling` defaults to true in this mode, as Linux's `use_rtt_scaling`.
//! - β (adaptive_backoff): only once `modeswitch` is on (set at an event
//!   that is not a reset; with `use_bandwidth_switch` the first event always
//!   resets, old maxB being 0, so adaptive β first applies at the third), only if
//!   RTT_min > 10 ms, quantised to 1/128, clamped to [64, 102]/128; RTT_max
//!   only grows in Open and only by jumps ≤ 20 ms, and fades after each event
//!   to `RTT_min + 0.95·(RTT_max − RTT_min)`.
//! - Reset (adaptive_reset = Linux's `use_bandwidth_switch`): throughput is
//!   sampled in Open once about a window (`cwnd − max(int α, 1)` segments) and
//!   at least RTT_min have elapsed; within 3 RTT_min of an event the estimate
//!   restarts, otherwise `B = (3B + sample)/4` and `maxB = max(maxB, B)`. At an
//!   event, β = 0.5 (and modeswitch off) unless `5·maxB ∈ [4·oldMaxB, 6·oldMaxB]`.
//! - Times are seconds, not jiffies, so there is no HZ quantisation.
//! - "In Open" (RTT_max growth, bandwidth samples) is tracked from the same
//!   events: not Open from `RecoveryStart`/`Timeout`/`EcnEcho` until the
//!   matching `RecoveryEnd`/`LossEnd`/`CwrEnd`.
use super::{abc_param, slow_start_units, CcEvent, CcState, CongestionControl, ControllerDoc, ParamDoc};
use crate::scenario::{params::Params, ConfigError};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Paper,
    Linux,
}

/// H-TCP's parameters (`cc_params`); `Default` is the one place the defaults
/// are written, and [`HtcpConfig::for_mode`] the one place `mode = "linux"`
/// changes them.
#[derive(Clone, Debug, PartialEq)]
pub struct HtcpConfig {
    /// Δ_L: seconds of standard-TCP increase after a congestion event
    /// (Leith & Shorten §3.4: 1 s).
    pub delta_l_s: f64,
    /// β = RTT_min/RTT_max clamped to [0.5, 0.8] (§3.2, §3.4 Comment 1); false:
    /// β = `fixed_beta`. Default on, as the paper's complete algorithm.
    pub adaptive_backoff: bool,
    /// β = 0.5 when the throughput before an event moves by more than 20%
    /// (§3.3, eq. 25). Default on, as the paper's complete algorithm.
    pub adaptive_reset: bool,
    /// Scale α by RTT_min/`rtt_ref_s` (§3.1 Comment 2, §3.4 Comment 2): off
    /// in the paper's algorithm, on in Linux (`use_rtt_scaling`).
    pub rtt_scaling: bool,
    /// Reference RTT for `rtt_scaling`: 100 ms, as Linux's scaling
    /// (`(HZ << 3) / (10 · minRTT)`).
    pub rtt_ref_s: f64,
    /// β when `adaptive_backoff` is off (standard TCP's 0.5).
    pub fixed_beta: f64,
    /// `Paper` (§3.4, default) or `Linux` (`tcp_htcp.c`).
    pub mode: Mode,
    /// Count segments acked (RFC 3465) instead of ACKs (ns-2, default).
    pub abc: bool,
}

impl Default for HtcpConfig {
    /// The paper's §3.4 algorithm with its constants.
    fn default() -> Self {
        HtcpConfig {
            delta_l_s: 1.0,
            adaptive_backoff: true,
            adaptive_reset: true,
            rtt_scaling: false,
            rtt_ref_s: 0.1,
            fixed_beta: 0.5,
            mode: Mode::Paper,
            abc: false,
        }
    }
}

impl HtcpConfig {
    /// The defaults of `mode`: [`Default`] for the paper; Linux `tcp_htcp.c`
    /// also turns on RTT scaling (`use_rtt_scaling = 1`).
    pub fn for_mode(mode: Mode) -> Self {
        match mode {
            Mode::Paper => HtcpConfig::default(),
            Mode::Linux => HtcpConfig { mode, rtt_scaling: true, ..HtcpConfig::default() },
        }
    }
}

pub struct Htcp {
    cfg: HtcpConfig,
    /// Time of the last congestion event (paper) or end of recovery (Linux).
    last_cong: Option<f64>,
    beta: f64,
    rtt_min: f64,
    rtt_max: f64,
    // paper: throughput bins
    bin_start: Option<f64>,
    bin_acked: u64,
    last_rate: Option<f64>,
    prev_b: Option<f64>,
    // linux
    alpha_l: f64,
    cnt: f64,
    in_open: bool,
    modeswitch: bool,
    packetcount: u64,
    lasttime: Option<f64>,
    bi: f64,
    min_b: f64,
    max_b: f64,
    old_max_b: f64,
    /// What entering the current episode saved for an undo (Linux
    /// `undo_last_cong`, `undo_maxRTT`, `undo_old_maxB`; None: Linux's
    /// `undo_last_cong == 0`).
    undo: Option<HtcpUndo>,
}

/// The state `htcp_reset` saves and `htcp_cwnd_undo` restores.
#[derive(Clone, Copy, Debug)]
struct HtcpUndo {
    last_cong: Option<f64>,
    rtt_max: f64,
    old_max_b: f64,
}

/// α_H(Δ) of eq. 17/23.
pub fn alpha_h(delta_s: f64, delta_l_s: f64) -> f64 {
    if delta_s <= delta_l_s {
        1.0
    } else {
        let d = delta_s - delta_l_s;
        1.0 + 10.0 * d + (d / 2.0) * (d / 2.0)
    }
}

/// The paper's backoff: RTT_min/RTT_max clamped to [0.5, 0.8] (§3.4 Comment 1).
pub fn adaptive_beta(rtt_min: f64, rtt_max: f64) -> f64 {
    if rtt_max > 0.0 && rtt_min.is_finite() {
        (rtt_min / rtt_max).clamp(0.5, 0.8)
    } else {
        0.5
    }
}

/// Eq. 25's test: B⁻ moved by more than 20% of the previous B⁻.
pub fn throughput_changed(prev: f64, now: f64) -> bool {
    prev <= 0.0 || ((now - prev) / prev).abs() > 0.2
}

const LINUX_BETA_MAX: f64 = 102.0 / 128.0;

impl Htcp {
    pub fn new(cfg: HtcpConfig) -> Self {
        let beta = if cfg.adaptive_backoff { 0.5 } else { cfg.fixed_beta };
        Htcp {
            cfg,
            last_cong: None,
            beta,
            rtt_min: f64::INFINITY,
            rtt_max: 0.0,
            bin_start: None,
            bin_acked: 0,
            last_rate: None,
            prev_b: None,
            alpha_l: 1.0,
            cnt: 0.0,
            in_open: true,
            modeswitch: false,
            packetcount: 0,
            lasttime: None,
            bi: 0.0,
            min_b: 0.0,
            max_b: 0.0,
            old_max_b: 0.0,
            undo: None,
        }
    }

    pub fn doc() -> ControllerDoc {
        let d = HtcpConfig::default();
        let mode = match d.mode {
            Mode::Paper => "paper",
            Mode::Linux => "linux",
        };
        ControllerDoc {
            name: "htcp",
            doc: "H-TCP (Leith & Shorten 2004, §3.4): α grows with time since the last congestion event, \
                  adaptive backoff RTTmin/RTTmax and reset; mode \"linux\" = tcp_htcp.c",
            params: vec![
                ParamDoc {
                    name: "delta_l_s",
                    default: d.delta_l_s.into(),
                    doc: "Δ_L: seconds of standard-TCP increase after an event",
                },
                ParamDoc {
                    name: "adaptive_backoff",
                    default: d.adaptive_backoff.into(),
                    doc: "β = RTTmin/RTTmax in [0.5, 0.8]; false: β = fixed_beta",
                },
                ParamDoc {
                    name: "adaptive_reset",
                    default: d.adaptive_reset.into(),
                    doc: "β = 0.5 when the throughput before an event moves by more than 20%",
                },
                ParamDoc {
                    name: "rtt_scaling",
                    default: d.rtt_scaling.into(),
                    doc: "scale α by RTTmin/rtt_ref (default true in mode linux)",
                },
                ParamDoc { name: "rtt_ref_s", default: d.rtt_ref_s.into(), doc: "reference RTT for rtt_scaling" },
                ParamDoc { name: "fixed_beta", default: d.fixed_beta.into(), doc: "β when adaptive_backoff is false" },
                ParamDoc { name: "mode", default: mode.into(), doc: "\"paper\" (§3.4) or \"linux\" (tcp_htcp.c)" },
                abc_param(d.abc),
            ],
        }
    }

    pub fn from_params(map: &serde_json::Map<String, serde_json::Value>, path: &str) -> Result<Self, ConfigError> {
        let base = format!("{path}.cc_params");
        let mode = match map.get("mode") {
            None => HtcpConfig::default().mode,
            Some(serde_json::Value::String(s)) if s == "paper" => Mode::Paper,
            Some(serde_json::Value::String(s)) if s == "linux" => Mode::Linux,
            Some(v) => {
                return Err(ConfigError::new(
                    format!("{base}.mode"),
                    format!("{v} is not allowed; allowed: \"paper\", \"linux\""),
                ))
            }
        };
        let d = HtcpConfig::for_mode(mode);
        let mut rest = map.clone();
        rest.remove("mode");
        let mut p = Params::new(&rest, &base);
        let delta_l_s = p.f64_in("delta_l_s", d.delta_l_s, 0.0, 1e6)?;
        let adaptive_backoff = p.bool("adaptive_backoff", d.adaptive_backoff)?;
        let adaptive_reset = p.bool("adaptive_reset", d.adaptive_reset)?;
        let rtt_scaling = p.bool("rtt_scaling", d.rtt_scaling)?;
        let rtt_ref_s = p.f64_in("rtt_ref_s", d.rtt_ref_s, 1e-6, 1e3)?;
        let fixed_beta = p.f64_in("fixed_beta", d.fixed_beta, 0.01, 0.99)?;
        let abc = p.bool("abc", d.abc)?;
        if let Err(mut e) = p.finish() {
            if e.msg.starts_with("unknown parameter") {
                e.msg.push_str(", mode");
            }
            return Err(e);
        }
        Ok(Htcp::new(HtcpConfig {
            delta_l_s,
            adaptive_backoff,
            adaptive_reset,
            rtt_scaling,
            rtt_ref_s,
            fixed_beta,
            mode,
            abc,
        }))
    }

    pub fn beta(&self) -> f64 {
        self.beta
    }

    fn since_cong(&mut self, now: f64) -> f64 {
        now - *self.last_cong.get_or_insert(now)
    }

    /// The paper's α (eq. 23–24, optional RTT scaling) at time `now`.
    pub fn alpha_paper(&mut self, now: f64) -> f64 {
        let d = self.since_cong(now);
        let mut a = 2.0 * (1.0 - self.beta) * alpha_h(d, self.cfg.delta_l_s);
        if self.cfg.rtt_scaling && self.rtt_min.is_finite() {
            a *= (self.rtt_min / self.cfg.rtt_ref_s).clamp(0.5, 10.0);
        }
        a
    }

    /// Linux `htcp_alpha_update`.
    fn alpha_linux_update(&mut self, now: f64) {
        let d = self.since_cong(now);
        let mut factor = 1.0;
        if d > self.cfg.delta_l_s {
            let d = d - self.cfg.delta_l_s;
            factor = 1.0 + (10.0 * d + (d / 2.0) * (d / 2.0)).floor();
        }
        if self.cfg.rtt_scaling && self.rtt_min.is_finite() && self.rtt_min > 0.0 {
            let scale = (8.0 * self.cfg.rtt_ref_s / self.rtt_min).floor().clamp(4.0, 80.0);
            factor = (8.0 * factor / scale).floor().max(1.0);
        }
        let a = 2.0 * factor * (1.0 - self.beta);
        self.alpha_l = if a > 0.0 { a } else { 1.0 };
    }

    /// The paper's reset/backoff decision at a congestion event.
    fn beta_update_paper(&mut self) {
        if !self.cfg.adaptive_backoff {
            self.beta = self.cfg.fixed_beta;
            return;
        }
        let b_now = self.last_rate;
        let reset = self.cfg.adaptive_reset
            && match (self.prev_b, b_now) {
                (None, _) => true,
                (Some(prev), Some(now)) => throughput_changed(prev, now),
                (Some(_), None) => false,
            };
        if b_now.is_some() {
            self.prev_b = b_now;
        }
        self.beta = if reset { 0.5 } else { adaptive_beta(self.rtt_min, self.rtt_max) };
    }

    /// Linux `htcp_beta_update`.
    fn beta_update_linux(&mut self) {
        if !self.cfg.adaptive_backoff {
            self.beta = self.cfg.fixed_beta;
            return;
        }
        if self.cfg.adaptive_reset {
            let (max_b, old) = (self.max_b, self.old_max_b);
            self.old_max_b = max_b;
            if !(4.0 * old <= 5.0 * max_b && 5.0 * max_b <= 6.0 * old) {
                self.beta = 0.5;
                self.modeswitch = false;
                return;
            }
        }
        if self.modeswitch && self.rtt_min > 0.010 && self.rtt_max > 0.0 {
            self.beta = ((128.0 * self.rtt_min / self.rtt_max).floor() / 128.0).clamp(0.5, LINUX_BETA_MAX);
        } else {
            self.beta = 0.5;
            self.modeswitch = true;
        }
    }

    fn sample_paper(&mut self, s: &CcState, acked: u64, rtt: Option<f64>) {
        let now = s.now_s();
        if let Some(r) = rtt {
            self.rtt_min = self.rtt_min.min(r);
            self.rtt_max = self.rtt_max.max(r);
        }
        let start = *self.bin_start.get_or_insert(now);
        self.bin_acked += acked;
        let len = s.srtt_s.or(rtt).unwrap_or(0.0);
        if len > 0.0 && now - start >= len {
            self.last_rate = Some(self.bin_acked as f64 / (now - start));
            self.bin_start = Some(now);
            self.bin_acked = 0;
        }
    }

    /// Linux `measure_achieved_throughput` + `measure_rtt`.
    fn sample_linux(&mut self, s: &CcState, acked: u64, rtt: Option<f64>) {
        let now = s.now_s();
        if let Some(r) = rtt {
            self.rtt_min = self.rtt_min.min(r);
            if self.in_open {
                if self.rtt_max < self.rtt_min {
                    self.rtt_max = self.rtt_min;
                }
                if self.rtt_max < r && r <= self.rtt_max + 0.020 {
                    self.rtt_max = r;
                }
            }
        }
        if !self.cfg.adaptive_reset {
            return;
        }
        if !self.in_open {
            self.packetcount = 0;
            self.lasttime = Some(now);
            return;
        }
        let last = *self.lasttime.get_or_insert(now);
        self.packetcount += acked;
        let need = s.cwnd - self.alpha_l.floor().max(1.0);
        let min_rtt = if self.rtt_min.is_finite() { self.rtt_min } else { 0.0 };
        if self.packetcount as f64 >= need && min_rtt > 0.0 && now - last >= min_rtt {
            let cur = self.packetcount as f64 / (now - last);
            let ccount = (self.since_cong(now) / min_rtt).floor();
            if ccount <= 3.0 {
                self.min_b = cur;
                self.max_b = cur;
                self.bi = cur;
            } else {
                self.bi = (3.0 * self.bi + cur) / 4.0;
                self.max_b = self.max_b.max(self.bi);
                self.min_b = self.min_b.min(self.max_b);
            }
            self.packetcount = 0;
            self.lasttime = Some(now);
        }
    }
}

impl CongestionControl for Htcp {
    fn name(&self) -> &'static str {
        "htcp"
    }

    fn pkts_acked(&mut self, s: &mut CcState, acked: u64, rtt_s: Option<f64>) {
        self.since_cong(s.now_s());
        match self.cfg.mode {
            Mode::Paper => self.sample_paper(s, acked, rtt_s),
            Mode::Linux => self.sample_linux(s, acked, rtt_s),
        }
    }

    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        let n = slow_start_units(self.cfg.abc, s, acked, 0.0);
        if n == 0 {
            return;
        }
        let now = s.now_s();
        match self.cfg.mode {
            Mode::Paper => {
                let a = self.alpha_paper(now);
                s.cwnd += n as f64 * a / s.cwnd.max(1.0);
            }
            Mode::Linux => {
                if self.cnt * self.alpha_l >= s.cwnd {
                    s.cwnd += 1.0;
                    self.cnt = 0.0;
                    self.alpha_linux_update(now);
                } else {
                    self.cnt += n as f64;
                }
            }
        }
    }

    fn ssthresh(&mut self, s: &CcState) -> f64 {
        let now = s.now_s();
        match self.cfg.mode {
            Mode::Paper => {
                self.beta_update_paper();
                self.last_cong = Some(now);
                self.rtt_max = 0.0;
                self.bin_start = Some(now);
                self.bin_acked = 0;
            }
            Mode::Linux => {
                self.beta_update_linux();
                self.alpha_linux_update(now);
                if self.rtt_min.is_finite() && self.rtt_max > self.rtt_min {
                    self.rtt_max = self.rtt_min + 0.95 * (self.rtt_max - self.rtt_min);
                }
            }
        }
        (s.cwnd * self.beta).max(2.0)
    }

    fn on_event(&mut self, s: &mut CcState, ev: CcEvent) {
        if self.cfg.mode != Mode::Linux {
            return;
        }
        let now = s.now_s();
        match ev {
            // `htcp_state` → `htcp_reset`: entering CWR, Recovery or Loss
            // saves what an undo restores and restarts Δ
            CcEvent::RecoveryStart | CcEvent::Timeout | CcEvent::EcnEcho => {
                self.undo =
                    Some(HtcpUndo { last_cong: self.last_cong, rtt_max: self.rtt_max, old_max_b: self.old_max_b });
                self.last_cong = Some(now);
                self.in_open = false;
            }
            // `htcp_state(TCP_CA_Open)`: Δ restarts at the episode's end,
            // unless the episode was undone
            CcEvent::RecoveryEnd | CcEvent::LossEnd | CcEvent::CwrEnd => {
                if self.undo.take().is_some() {
                    self.last_cong = Some(now);
                }
                self.in_open = true;
            }
            // `htcp_cwnd_undo`
            CcEvent::Undo => {
                if let Some(u) = self.undo.take() {
                    self.last_cong = u.last_cong;
                    self.rtt_max = u.rtt_max;
                    self.old_max_b = u.old_max_b;
                }
            }
            // a send after idle is no state change
            CcEvent::TxStart => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::math;
    use crate::sim::time::from_secs;

    fn st(cwnd: f64, ssthresh: f64, t: f64) -> CcState {
        CcState {
            cwnd,
            ssthresh,
            max_cwnd: 1e12,
            now: from_secs(t),
            flight: cwnd as u64,
            srtt_s: Some(0.1),
            min_rtt_s: Some(0.1),
            mss_bytes: 1000,
            header_bytes: 40,
            pacing_rate: 0.0,
            abc_l: 2,
            lost: 0,
        }
    }

    #[test]
    fn alpha_h_values() {
        assert_eq!(alpha_h(0.5, 1.0), 1.0);
        assert_eq!(alpha_h(1.0, 1.0), 1.0);
        // Δ = 2: 1 + 10 + 0.25
        assert!((alpha_h(2.0, 1.0) - 11.25).abs() < 1e-12);
        // Δ = 5: 1 + 40 + 4
        assert!((alpha_h(5.0, 1.0) - 45.0).abs() < 1e-12);
        // α = 2(1−β)α_H: β = 0.5 leaves α_H, β = 0.8 gives 0.4·α_H.
        let mut h = Htcp::new(HtcpConfig { adaptive_backoff: false, fixed_beta: 0.8, ..Default::default() });
        h.ssthresh(&st(100.0, 1e9, 0.0));
        assert!((h.alpha_paper(5.0) - 0.4 * 45.0).abs() < 1e-9);
        assert!((h.alpha_paper(0.5) - 0.4).abs() < 1e-12);
    }

    #[test]
    fn beta_is_rtt_ratio_clamped() {
        assert_eq!(adaptive_beta(0.1, 0.3), 0.5);
        assert!((adaptive_beta(0.1, 0.14) - 0.1 / 0.14).abs() < 1e-12);
        assert_eq!(adaptive_beta(0.1, 0.101), 0.8);
        assert_eq!(adaptive_beta(f64::INFINITY, 0.0), 0.5);
    }

    /// Feed one epoch: ACKs at `rate` segments/s with RTT samples `rtt`.
    fn run_epoch(h: &mut Htcp, t0: f64, t1: f64, rate: f64, rtt: f64) -> f64 {
        let dt = 1.0 / rate;
        let mut t = t0;
        while t < t1 {
            let mut s = st(100.0, 50.0, t);
            h.pkts_acked(&mut s, 1, Some(rtt));
            t += dt;
        }
        t
    }

    #[test]
    fn adaptive_backoff_and_reset_on_throughput_change() {
        let mut h = Htcp::new(HtcpConfig::default());
        // Epoch 1: RTT between 0.1 and 0.125 s. First event: no previous B⁻ -> 0.5.
        let mut t = run_epoch(&mut h, 0.0, 2.0, 1000.0, 0.1);
        t = run_epoch(&mut h, t, 3.0, 1000.0, 0.125);
        assert_eq!(h.ssthresh(&st(100.0, 1e9, t)), 50.0);
        assert_eq!(h.beta(), 0.5);
        // Epoch 2: same throughput -> adaptive β = 0.1/0.125 = 0.8.
        t = run_epoch(&mut h, t, t + 3.0, 1000.0, 0.125);
        h.ssthresh(&st(100.0, 1e9, t));
        assert!((h.beta() - 0.8).abs() < 1e-9, "beta {}", h.beta());
        // Epoch 3: throughput +10% (within 20%) -> adaptive, β = 0.1/0.15.
        t = run_epoch(&mut h, t, t + 3.0, 1100.0, 0.15);
        h.ssthresh(&st(100.0, 1e9, t));
        assert!((h.beta() - 0.1 / 0.15).abs() < 1e-9, "beta {}", h.beta());
        // Epoch 4: throughput halves (a new flow joined) -> reset to 0.5.
        t = run_epoch(&mut h, t, t + 3.0, 550.0, 0.15);
        h.ssthresh(&st(100.0, 1e9, t));
        assert_eq!(h.beta(), 0.5);
        // Epoch 5: steady again -> adaptive.
        t = run_epoch(&mut h, t, t + 3.0, 550.0, 0.15);
        h.ssthresh(&st(100.0, 1e9, t));
        assert!((h.beta() - 0.1 / 0.15).abs() < 1e-9);
        // Without adaptive reset, the halving of throughput does not reset.
        let mut h = Htcp::new(HtcpConfig { adaptive_reset: false, ..Default::default() });
        let mut t = run_epoch(&mut h, 0.0, 3.0, 1000.0, 0.125);
        h.ssthresh(&st(100.0, 1e9, t));
        run_epoch(&mut h, t, t + 0.01, 1000.0, 0.1);
        t = run_epoch(&mut h, t + 0.01, t + 3.0, 500.0, 0.125);
        h.ssthresh(&st(100.0, 1e9, t));
        assert!((h.beta() - 0.8).abs() < 1e-9);
        // Fixed β when adaptive backoff is off.
        let mut h = Htcp::new(HtcpConfig { adaptive_backoff: false, fixed_beta: 0.7, ..Default::default() });
        assert_eq!(h.ssthresh(&st(100.0, 1e9, 1.0)), 70.0);
    }

    /// Over an epoch with β = 0.5 and RTT T, dw/dt = α_H(t)/T, so
    /// w(t) = w0 + (1/T)·[t] for t ≤ 1 and
    /// w(t) = w0 + (1/T)·[1 + (t−1) + 5(t−1)² + (t−1)³/12] beyond.
    #[test]
    fn cwnd_growth_over_an_epoch_matches_closed_form() {
        let rtt = 0.1;
        let mut h = Htcp::new(HtcpConfig { adaptive_backoff: false, ..Default::default() });
        let mut s = st(1000.0, 10.0, 0.0);
        h.ssthresh(&s); // congestion event at t = 0
        let w0 = 1000.0;
        let closed = |t: f64| {
            let i = if t <= 1.0 {
                t
            } else {
                1.0 + (t - 1.0) + 5.0 * math::powi(t - 1.0, 2) + math::powi(t - 1.0, 3) / 12.0
            };
            w0 + i / rtt
        };
        let mut t = 0.0;
        for check in [0.5, 1.0, 2.0, 3.0, 5.0] {
            while t < check {
                // ACKs spaced RTT/cwnd (ACK clock of a window-limited flow).
                t += rtt / s.cwnd;
                s.now = from_secs(t);
                h.cong_avoid(&mut s, 1);
            }
            let want = closed(t);
            assert!((s.cwnd - want).abs() / (want - w0) < 0.01, "t {t}: cwnd {} closed form {want}", s.cwnd);
        }
    }

    #[test]
    fn rtt_scaling_is_clamped() {
        let mut h = Htcp::new(HtcpConfig { rtt_scaling: true, adaptive_backoff: false, ..Default::default() });
        let mut s = st(100.0, 50.0, 0.0);
        h.pkts_acked(&mut s, 1, Some(0.2));
        assert!((h.alpha_paper(0.5) - 2.0).abs() < 1e-12);
        h.pkts_acked(&mut s, 1, Some(0.01));
        assert!((h.alpha_paper(0.5) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn linux_mode_integer_factor_and_delta_from_recovery_end() {
        let mut h = Htcp::new(HtcpConfig { mode: Mode::Linux, rtt_scaling: false, ..Default::default() });
        let mut s = st(100.0, 1e9, 0.0);
        h.pkts_acked(&mut s, 1, Some(0.1));
        h.ssthresh(&st(100.0, 1e9, 10.0));
        h.on_event(&mut st(50.0, 50.0, 10.0), CcEvent::RecoveryStart);
        h.on_event(&mut st(50.0, 50.0, 10.5), CcEvent::RecoveryEnd);
        // Δ counts from 10.5: at 12.55, Δ' = 1.05 -> factor 1 + int(10.5 + 0.276) = 11.
        h.alpha_linux_update(12.55);
        assert!((h.alpha_l - 11.0).abs() < 1e-12, "alpha {}", h.alpha_l);
        // RTT scaling: minRTT 0.2 -> scale 4 -> factor 22; minRTT 1 s clamps at 2x.
        let mut h = Htcp::new(HtcpConfig { mode: Mode::Linux, rtt_scaling: true, ..Default::default() });
        let mut s = st(100.0, 1e9, 0.0);
        h.pkts_acked(&mut s, 1, Some(0.2));
        h.alpha_linux_update(2.05);
        assert!((h.alpha_l - 22.0).abs() < 1e-12, "alpha {}", h.alpha_l);
        // First event: β = 0.5 (modeswitch), second: RTT ratio.
        let mut h = Htcp::new(HtcpConfig { mode: Mode::Linux, adaptive_reset: false, ..Default::default() });
        let mut s = st(100.0, 1e9, 0.0);
        h.pkts_acked(&mut s, 1, Some(0.1));
        h.pkts_acked(&mut s, 1, Some(0.115));
        h.ssthresh(&s);
        assert_eq!(h.beta(), 0.5);
        h.ssthresh(&s);
        // faded maxRTT = 0.1 + 0.95·0.015
        let want = ((128.0 * 0.1 / (0.1 + 0.95 * 0.015f64)).floor() / 128.0).clamp(0.5, LINUX_BETA_MAX);
        assert!((h.beta() - want).abs() < 1e-12, "beta {} want {want}", h.beta());
        // Increase: +1 only when cnt·α ≥ cwnd (α = 1: one segment per cwnd ACKs + 1).
        let mut h = Htcp::new(HtcpConfig { mode: Mode::Linux, ..Default::default() });
        let mut s = st(10.0, 5.0, 0.0);
        for _ in 0..10 {
            h.cong_avoid(&mut s, 1);
        }
        assert_eq!(s.cwnd, 10.0);
        h.cong_avoid(&mut s, 1);
        assert_eq!(s.cwnd, 11.0);
    }

    /// Linux `htcp_state`: entering Recovery, Loss (RTO) or CWR (ECN) resets
    /// last_cong and leaves Open; returning to Open resets it again, so Δ
    /// counts from the return. Outside Open, RTT_max does not grow
    /// (`measure_rtt`).
    #[test]
    fn linux_mode_delta_restarts_on_the_return_to_open_after_each_kind_of_event() {
        use CcEvent::*;
        for (start, end) in [(RecoveryStart, RecoveryEnd), (Timeout, LossEnd), (EcnEcho, CwrEnd)] {
            let mut h = Htcp::new(HtcpConfig { mode: Mode::Linux, rtt_scaling: false, ..Default::default() });
            h.pkts_acked(&mut st(100.0, 1e9, 0.0), 1, Some(0.1));
            assert_eq!(h.rtt_max, 0.1);
            h.on_event(&mut st(50.0, 50.0, 10.0), start);
            h.pkts_acked(&mut st(50.0, 50.0, 10.2), 1, Some(0.11));
            assert_eq!(h.rtt_max, 0.1, "{start:?}: not Open, RTT_max kept");
            h.on_event(&mut st(50.0, 50.0, 10.5), end);
            h.pkts_acked(&mut st(50.0, 50.0, 10.6), 1, Some(0.11));
            assert_eq!(h.rtt_max, 0.11, "{end:?}: Open again");
            // Δ from 10.5: at 12.55, Δ' = 1.05 -> factor 1 + int(10.5 + 0.276) = 11
            // (from the start event at 10.0 it would be 1 + int(15.5 + 0.6) = 17)
            h.alpha_linux_update(12.55);
            assert!((h.alpha_l - 11.0).abs() < 1e-12, "{start:?}/{end:?}: alpha {}", h.alpha_l);
        }
    }

    /// Linux `htcp_cwnd_undo`: an undone episode gives back Δ's origin,
    /// and maxRTT and the old B as the episode's start left them, and its
    /// return to Open leaves Δ running from before it; with nothing to
    /// undo (the episode already over), an undo changes nothing.
    #[test]
    fn linux_mode_undo_restores_delta_rtt_max_and_old_b() {
        use CcEvent::*;
        let episode = |undo: bool| {
            let mut h = Htcp::new(HtcpConfig { mode: Mode::Linux, rtt_scaling: false, ..Default::default() });
            h.pkts_acked(&mut st(100.0, 1e9, 0.0), 1, Some(0.1));
            h.pkts_acked(&mut st(100.0, 1e9, 1.0), 1, Some(0.12));
            h.old_max_b = 700.0;
            h.max_b = 900.0;
            // Linux saves after `htcp_recalc_ssthresh` (`tcp_init_cwnd_reduction`,
            // then `tcp_set_ca_state`): the faded maxRTT and the new old B
            h.ssthresh(&st(100.0, 1e9, 10.0));
            h.on_event(&mut st(50.0, 50.0, 10.0), RecoveryStart);
            let entered = (h.rtt_max, h.old_max_b);
            assert_eq!(entered, (0.1 + 0.95 * (0.12 - 0.1), 900.0));
            (h.rtt_max, h.old_max_b) = (0.5, 1.0);
            if undo {
                h.on_event(&mut st(100.0, 1e9, 10.2), Undo);
                assert_eq!((h.rtt_max, h.old_max_b), entered);
            }
            h.on_event(&mut st(100.0, 1e9, 10.3), RecoveryEnd);
            h.alpha_linux_update(12.55);
            h.alpha_l
        };
        // undone: Δ from the first ACK at 0 s, Δ' = 11.55 s
        let mut fresh = Htcp::new(HtcpConfig { mode: Mode::Linux, rtt_scaling: false, ..Default::default() });
        fresh.pkts_acked(&mut st(100.0, 1e9, 0.0), 1, Some(0.1));
        fresh.alpha_linux_update(12.55);
        assert!(fresh.alpha_l > 100.0);
        assert_eq!(episode(true), fresh.alpha_l);
        // not undone: Δ from the return to Open at 10.3 s, Δ' = 1.25 s
        assert_eq!(episode(false), 1.0 + (12.5f64 + 1.25 * 1.25 / 4.0).floor());
        // an undo after the episode ended (a late D-SACK) restores nothing
        let mut h = Htcp::new(HtcpConfig { mode: Mode::Linux, rtt_scaling: false, ..Default::default() });
        h.pkts_acked(&mut st(100.0, 1e9, 0.0), 1, Some(0.1));
        h.on_event(&mut st(50.0, 50.0, 10.0), RecoveryStart);
        h.on_event(&mut st(50.0, 50.0, 10.3), RecoveryEnd);
        h.on_event(&mut st(50.0, 50.0, 10.4), Undo);
        h.alpha_linux_update(12.55);
        assert_eq!(h.alpha_l, 1.0 + (12.5f64 + 1.25 * 1.25 / 4.0).floor());
    }

    #[test]
    fn mode_param_is_checked() {
        let m = |j: &str| serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(j).unwrap();
        assert!(Htcp::from_params(&m(r#"{"mode": "linux"}"#), "flows[0]").is_ok());
        let e = Htcp::from_params(&m(r#"{"mode": "bsd"}"#), "flows[0]").err().unwrap();
        assert_eq!(e.field, "flows[0].cc_params.mode");
        assert!(e.msg.contains("bsd") && e.msg.contains("linux"), "{}", e.msg);
        let e = Htcp::from_params(&m(r#"{"alpha": 2}"#), "flows[0]").err().unwrap();
        assert!(e.msg.contains("mode"), "{}", e.msg);
        let e = Htcp::from_params(&m(r#"{"fixed_beta": 1.5}"#), "flows[0]").err().unwrap();
        assert_eq!(e.field, "flows[0].cc_params.fixed_beta");
    }
}
