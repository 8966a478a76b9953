//! HyStart, hybrid slow start (Ha & Rhee, "Taming the elephants: New TCP
//! slow start", Computer Networks 55(9), 2011), as ns-3 3.44's `TcpCubic`
//! runs it (src/internet/model/tcp-cubic.cc: `PktsAcked`, `HystartUpdate`,
//! `HystartReset`, `HystartDelayThresh`, `IncreaseWindow`,
//! `CongestionStateSet`). `cubic` uses it with `hystart = true`; nothing
//! else here knows CUBIC.
//!
//! Why: slow start doubles the window every round until a loss, so on a
//! deep buffer it overshoots the path by up to a window and then loses a
//! large part of it. HyStart leaves slow start (ssthresh = cwnd) on the
//! first of two signs that the pipe is full, before any loss:
//!
//! - **ACK train**: the ACKs of one round come back spaced by the
//!   bottleneck's service time; once the train of closely spaced ACKs that
//!   began the round lasts longer than the minimum RTT, the window exceeds
//!   the path's bandwidth-delay product.
//! - **Delay increase**: the smallest RTT of the round's first samples
//!   exceeds the connection's minimum by a threshold: a queue is building.
//!
//! Rules (ns-3 3.44), on every ACK of new data, in this order:
//!
//! 1. **Sample** (`PktsAcked`). If a congestion-avoidance stage began less
//!    than `discard_s` ago (`CubicDelta`, 10 ms), nothing. Otherwise the
//!    delay is the smoothed RTT after this ACK's RTT sample (ns-3 hands
//!    `PktsAcked` `m_srtt`, tcp-socket-base.cc `ProcessAck`), and
//!    `delay_min = min(delay_min, delay)`. If no exit was found yet,
//!    cwnd ≤ ssthresh and cwnd ≥ `low_window` (cwnd before this ACK's
//!    increase): rule 2.
//! 2. **Update** (`HystartUpdate`):
//!    - ACK train: if `now − last_ack ≤ ack_delta`, `last_ack = now`, and
//!      if `now − round_start > delay_min` the exit is found (when
//!      `detect` includes the train). An ACK further apart than
//!      `ack_delta` leaves `last_ack`, so it ends the round's train.
//!    - Delay: while fewer than `min_samples` samples were taken this
//!      round, `curr_rtt = min(curr_rtt, delay)` and one more is counted;
//!      after that, if `curr_rtt > delay_min + clamp(delay_min,
//!      delay_thresh_min, delay_thresh_max)` the exit is found (when
//!      `detect` includes delay). `curr_rtt` is the smallest of the
//!      round's first `min_samples` samples.
//!    - On an exit: ssthresh = cwnd; HyStart stays off until an RTO.
//! 3. **Round** (`IncreaseWindow`, after rules 1-2 of the same ACK): in
//!    slow start (cwnd < ssthresh), if the ACK passed `end_seq` (SND.UNA >
//!    `end_seq`), a new round: `round_start = last_ack = now`, `end_seq =
//!    SND.NXT` (the first segment sent from now on ends it), `curr_rtt`
//!    unset, no samples. Before the first ACK `end_seq` is 0, so the first
//!    ACK of data starts the first round.
//! 4. **RTO** (`CongestionStateSet(CA_LOSS)`: `CubicReset` and
//!    `HystartReset`): no exit found, `delay_min` unset, and a new round
//!    from now with `end_seq` = SND.NXT.
//!
//! Linux's `tcp_cubic.c` (its module parameters `hystart`,
//! `hystart_detect`, `hystart_low_window`, `hystart_ack_delta_us` name the
//! parameters here) differs from ns-3 in six rules, which `linux = true`
//! (`hystart_variant = "linux"`, the `linux` personality's) follows
//! (`cubictcp_acked`, `hystart_update`, Linux 6.x), with
//! `delay_thresh_max_s` 16 ms and `discard_s` 1 s as its constants:
//!
//! - the delay is the ACK's own RTT sample (`ack_sample.rtt_us`), not srtt;
//! - the train fires past `(delay_min + ack_delay)/2`, `ack_delay` being
//!   up to 1 ms for TSO/GRO batching when a pacing rate is set
//!   (`hystart_ack_delay`; not halved when fq paces the socket), not past
//!   `delay_min`;
//! - the delay threshold is `clamp(delay_min/8, 4 ms, 16 ms)`
//!   (`HYSTART_DELAY_THRESH(delay_min >> 3)`), not `clamp(delay_min, 4 ms,
//!   1 s)`;
//! - `curr_rtt` is the minimum over all of the round's samples (as in
//!   Linux 5.10; older kernels took the first eight, as ns-3 does);
//! - samples are ignored for 1 s (`HZ`) after a stage begins, not 10 ms;
//! - since Linux 5.16 ("tcp_cubic: fix spurious Hystart ACK train
//!   detections for not-cwnd-limited flows") the round restarts inside
//!   `hystart_update`, before the ACK's checks and before the low-window
//!   gate, so in slow start every ACK keeps the rounds aligned with the
//!   flights, below `low_window` too; before, in `cong_avoid` after them
//!   (as ns-3). The slow-start gate is cwnd < ssthresh
//!   (`tcp_in_slow_start`), not ≤.
//!
//! ns-3 also calls `PktsAcked` for duplicate ACKs (one segment, srtt);
//! here only ACKs of new data give samples. The sender does not report
//! whether cwnd limits it (ns-3 and Linux grow the window, and restart the
//! round, only when it does): for a bulk sender it always does.
use super::{AckInfo, CcState};
use crate::sim::time::{from_secs, Time};

/// Which signals may end slow start (Linux `hystart_detect`, ns-3
/// `HyStartDetect`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detect {
    /// `HYSTART_ACK_TRAIN` (1), ns-3 `PACKET_TRAIN`.
    AckTrain,
    /// `HYSTART_DELAY` (2).
    Delay,
    /// Both (3, the default in Linux and ns-3).
    Both,
}

impl Detect {
    pub fn name(self) -> &'static str {
        match self {
            Detect::AckTrain => "ack_train",
            Detect::Delay => "delay",
            Detect::Both => "both",
        }
    }
    fn train(self) -> bool {
        self != Detect::Delay
    }
    fn delay(self) -> bool {
        self != Detect::AckTrain
    }
}

/// HyStart's parameters; the defaults are ns-3 3.44's `TcpCubic`
/// attributes.
#[derive(Clone, Debug, PartialEq)]
pub struct HystartConfig {
    /// Smallest cwnd (segments) at which HyStart looks (`HyStartLowWindow`,
    /// Linux `hystart_low_window`: 16).
    pub low_window: f64,
    /// The signals that may end slow start (`HyStartDetect`: both).
    pub detect: Detect,
    /// Samples per round before the delay rule may fire
    /// (`HyStartMinSamples`, Linux `HYSTART_MIN_SAMPLES`: 8).
    pub min_samples: u32,
    /// Largest spacing of two ACKs of one train, seconds
    /// (`HyStartAckDelta`, Linux `hystart_ack_delta_us`: 2 ms).
    pub ack_delta_s: f64,
    /// Lower clamp of the delay threshold, seconds (`HyStartDelayMin`,
    /// Linux `HYSTART_DELAY_MIN`: 4 ms).
    pub delay_thresh_min_s: f64,
    /// Upper clamp of the delay threshold, seconds (`HyStartDelayMax`:
    /// 1 s; Linux `HYSTART_DELAY_MAX`: 16 ms).
    pub delay_thresh_max_s: f64,
    /// Samples within this time of a congestion-avoidance stage's start are
    /// ignored, seconds (ns-3 `CubicDelta`: 10 ms; Linux: 1 s).
    pub discard_s: f64,
    /// Linux's rules, not ns-3's (the module doc's list).
    pub linux: bool,
}

impl Default for HystartConfig {
    fn default() -> Self {
        HystartConfig {
            low_window: 16.0,
            detect: Detect::Both,
            min_samples: 8,
            ack_delta_s: 0.002,
            delay_thresh_min_s: 0.004,
            delay_thresh_max_s: 1.0,
            discard_s: 0.010,
            linux: false,
        }
    }
}

/// How and when slow start ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Exit {
    pub at_s: f64,
    /// cwnd, and so ssthresh, at the exit.
    pub cwnd: f64,
    /// `AckTrain` or `Delay`: the rule that fired.
    pub by: Detect,
}

/// One flow's HyStart state. Its parameters are not in it: they are the
/// controller's, one copy for the flows of a `[[flows]]` entry
/// ([`super::CongestionControl::share_config`]), and rule 1 is handed them.
#[derive(Clone, Debug, Default)]
pub struct Hystart {
    found: Option<Exit>,
    round_start: Time,
    last_ack: Time,
    end_seq: u64,
    curr_rtt: Option<f64>,
    sample_cnt: u32,
    delay_min: Option<f64>,
    /// SND.UNA and SND.NXT at the last ACK (`on_ack`).
    una: u64,
    snd_nxt: u64,
}

impl HystartConfig {
    /// The delay threshold above `delay_min` (`HystartDelayThresh`).
    pub fn delay_thresh(&self, delay_min: f64) -> f64 {
        delay_min.clamp(self.delay_thresh_min_s, self.delay_thresh_max_s)
    }
}

impl Hystart {
    /// The exit, once found (until an RTO).
    pub fn exit(&self) -> Option<Exit> {
        self.found
    }

    /// The smallest delay seen (`m_delayMin`).
    pub fn delay_min(&self) -> Option<f64> {
        self.delay_min
    }

    /// Every ACK, before the others (the controller's `on_ack`): remember
    /// SND.UNA and SND.NXT for rules 3 and 4.
    pub fn on_ack(&mut self, a: &AckInfo) {
        self.una = a.una;
        self.snd_nxt = a.snd_nxt;
    }

    /// Rules 1 and 2 with parameters `cfg`, on an ACK of new data (the
    /// controller's `pkts_acked`, after the sender's RTT update).
    /// `stage_start`: when the current congestion-avoidance stage began, if
    /// one did. Returns the exit if this ACK found it (ssthresh is then
    /// cwnd).
    pub fn on_sample(
        &mut self,
        cfg: &HystartConfig,
        s: &mut CcState,
        stage_start: Option<Time>,
        rtt_s: Option<f64>,
    ) -> Option<Exit> {
        if stage_start.is_some_and(|t0| s.now.saturating_sub(t0) < from_secs(cfg.discard_s)) {
            return None;
        }
        if cfg.linux {
            return self.linux_sample(cfg, s, rtt_s?);
        }
        let delay = s.srtt_s?;
        let dm = self.delay_min.map_or(delay, |m| m.min(delay));
        self.delay_min = Some(dm);
        if self.found.is_some() || s.cwnd > s.ssthresh || s.cwnd < cfg.low_window {
            return None;
        }
        let now = s.now;
        let mut by = None;
        if now.saturating_sub(self.last_ack) <= from_secs(cfg.ack_delta_s) {
            self.last_ack = now;
            if cfg.detect.train() && now.saturating_sub(self.round_start) > from_secs(dm) {
                by = Some(Detect::AckTrain);
            }
        }
        if self.sample_cnt < cfg.min_samples {
            self.curr_rtt = Some(self.curr_rtt.map_or(delay, |c| c.min(delay)));
            self.sample_cnt += 1;
        } else if cfg.detect.delay() && self.curr_rtt.is_some_and(|c| c > dm + cfg.delay_thresh(dm)) {
            by = by.or(Some(Detect::Delay));
        }
        let by = by?;
        s.ssthresh = s.cwnd;
        self.found = Some(Exit { at_s: s.now_s(), cwnd: s.cwnd, by });
        self.found
    }

    /// Linux's `cubictcp_acked` and `hystart_update` for one ACK with RTT
    /// sample `delay`: `delay_min` from the samples themselves; in slow
    /// start a new round first if the ACK passed the round's end, then,
    /// from `low_window` on, the train past (delay_min + ack delay)/2 (the ack delay
    /// `hystart_ack_delay`: at most 1 ms, 4 × 64 KB at the pacing rate;
    /// not halved when the flow is paced at a rate); the delay rule on the
    /// round's smallest sample once `min_samples` were taken, past
    /// delay_min + clamp(delay_min/8, 4 ms, 16 ms).
    fn linux_sample(&mut self, cfg: &HystartConfig, s: &mut CcState, delay: f64) -> Option<Exit> {
        let delay = delay.max(1e-6);
        let dm = self.delay_min.map_or(delay, |m| m.min(delay));
        self.delay_min = Some(dm);
        if self.found.is_some() || !s.in_slow_start() {
            return None;
        }
        let now = s.now;
        // `hystart_update`: the round restarts before the low-window gate,
        // so rounds stay aligned with the flight from the first ACK on
        if self.una > self.end_seq {
            self.new_round(now, self.snd_nxt);
        }
        if s.cwnd < cfg.low_window {
            return None;
        }
        let mut by = None;
        if cfg.detect.train() && now.saturating_sub(self.last_ack) <= from_secs(cfg.ack_delta_s) {
            self.last_ack = now;
            // Linux's sk_pacing_rate in slow start: 2 x cwnd / srtt.
            let rate = s.srtt_s.map_or(0.0, |r| 2.0 * s.cwnd * s.mss_bytes as f64 / r.max(1e-9));
            let ack_delay = if rate > 0.0 { (4.0 * 65536.0 / rate).min(1e-3) } else { 0.0 };
            let mut threshold = dm + ack_delay;
            if s.pacing_rate <= 0.0 {
                threshold /= 2.0;
            }
            if now.saturating_sub(self.round_start) > from_secs(threshold) {
                by = Some(Detect::AckTrain);
            }
        }
        if cfg.detect.delay() {
            self.curr_rtt = Some(self.curr_rtt.map_or(delay, |c| c.min(delay)));
            if self.sample_cnt < cfg.min_samples {
                self.sample_cnt += 1;
            } else if self
                .curr_rtt
                .is_some_and(|c| c > dm + (dm / 8.0).clamp(cfg.delay_thresh_min_s, cfg.delay_thresh_max_s))
            {
                by = by.or(Some(Detect::Delay));
            }
        }
        let by = by?;
        s.ssthresh = s.cwnd;
        self.found = Some(Exit { at_s: s.now_s(), cwnd: s.cwnd, by });
        self.found
    }

    /// Rule 3, at the start of the window increase (the controller's
    /// `cong_avoid`, before slow start): a new round once the ACK passed
    /// the round's end (Linux starts it in `hystart_update` instead).
    pub fn on_increase(&mut self, cfg: &HystartConfig, s: &CcState) {
        if cfg.linux {
            return;
        }
        if s.in_slow_start() && self.una > self.end_seq {
            self.new_round(s.now, self.snd_nxt);
        }
    }

    /// Rule 4, at an RTO (after ssthresh was set; `s.flight` is still what
    /// was outstanding, so SND.NXT = SND.UNA + flight).
    pub fn on_timeout(&mut self, s: &CcState) {
        self.found = None;
        self.delay_min = None;
        self.new_round(s.now, self.una + s.flight);
    }

    fn new_round(&mut self, now: Time, end_seq: u64) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = end_seq;
        self.curr_rtt = None;
        self.sample_cnt = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::from_secs;

    /// A flow's HyStart with its parameters, as the controller holds them.
    struct Tested {
        h: Hystart,
        cfg: HystartConfig,
    }

    impl std::ops::Deref for Tested {
        type Target = Hystart;
        fn deref(&self) -> &Hystart {
            &self.h
        }
    }

    impl std::ops::DerefMut for Tested {
        fn deref_mut(&mut self) -> &mut Hystart {
            &mut self.h
        }
    }

    impl Tested {
        fn new(cfg: HystartConfig) -> Self {
            Tested { h: Hystart::default(), cfg }
        }
        fn on_sample(&mut self, s: &mut CcState, stage_start: Option<Time>) -> Option<Exit> {
            self.h.on_sample(&self.cfg, s, stage_start, s.srtt_s)
        }
        fn on_increase(&mut self, s: &CcState) {
            self.h.on_increase(&self.cfg, s)
        }
        fn delay_thresh(&self, delay_min: f64) -> f64 {
            self.cfg.delay_thresh(delay_min)
        }
    }

    /// A slow-start state at cwnd `cwnd` with srtt `srtt_s`, at `t_s`.
    fn st(cwnd: f64, srtt_s: f64, t_s: f64) -> CcState {
        CcState { srtt_s: Some(srtt_s), now: from_secs(t_s), ..crate::transport::cc::test_state(cwnd, 1e9) }
    }

    fn ack(h: &mut Tested, una: u64, snd_nxt: u64) {
        h.on_ack(&AckInfo { acked: 2, ece: false, ce: 0, una, snd_nxt });
    }

    /// One ACK of new data through rules 1-3 as a controller runs them:
    /// `on_ack`, `on_sample` (pkts_acked), `on_increase` (cong_avoid).
    fn step(h: &mut Tested, s: &mut CcState, una: u64, snd_nxt: u64) -> Option<Exit> {
        ack(h, una, snd_nxt);
        let e = h.on_sample(s, None);
        h.on_increase(s);
        e
    }

    /// A round of `n` ACKs `gap_s` apart from `t0`, each acknowledging 2
    /// segments, srtt `srtt`, cwnd growing by 2 per ACK (slow start, done
    /// by hand). Returns the exit, if any, and the time after the round.
    fn round(h: &mut Tested, s: &mut CcState, t0: f64, n: u32, gap_s: f64, srtt: f64, una0: u64) -> Option<Exit> {
        for i in 0..n {
            s.now = from_secs(t0 + i as f64 * gap_s);
            s.srtt_s = Some(srtt);
            let una = una0 + 2 * (i as u64 + 1);
            if let Some(e) = step(h, s, una, una + s.cwnd as u64) {
                return Some(e);
            }
            s.cwnd += 2.0;
        }
        None
    }

    #[test]
    fn ack_train_fires_once_the_round_outlasts_delay_min() {
        // delay_min 50 ms (srtt constant); a round started by the ACK at
        // t = 1 s, ACKs 0.5 ms apart. The train passes 50 ms at the ACK
        // 50.5 ms after the round's first: that is the 102nd ACK of the
        // round (index 101), not the 101st at exactly 50 ms (">", not "≥").
        let mut h = Tested::new(HystartConfig::default());
        let mut s = st(100.0, 0.05, 1.0);
        // the first ACK: passes end_seq 0 and starts the round at 1.0 s
        assert_eq!(step(&mut h, &mut s, 2, 102), None);
        assert_eq!(h.round_start, from_secs(1.0));
        s.cwnd = 102.0;
        // the remaining ACKs of the round acknowledge below SND.NXT = 102
        let mut exit = None;
        for i in 1..200 {
            s.now = from_secs(1.0 + i as f64 * 0.0005);
            if let Some(e) = step(&mut h, &mut s, 50, 300) {
                exit = Some((i, e));
                break;
            }
            s.cwnd += 2.0;
        }
        let (i, e) = exit.expect("the train fires");
        assert_eq!(i, 101);
        assert_eq!(e.by, Detect::AckTrain);
        assert_eq!(e.cwnd, 102.0 + 2.0 * 100.0);
        // ssthresh = cwnd at the exit, and HyStart is done
        assert_eq!(s.ssthresh, s.cwnd);
        assert!((e.at_s - 1.0505).abs() < 1e-12);
        s.now += from_secs(0.0005);
        assert_eq!(h.on_sample(&mut s, None), None);
    }

    #[test]
    fn a_gap_longer_than_ack_delta_ends_the_train_for_the_round() {
        // ACKs 0.5 ms apart, then one 2.5 ms gap at 30 ms into the round:
        // last_ack stays at the ACK before the gap, so no later ACK of
        // this round is within 2 ms of it, and the round never fires.
        // ACK i at 1 s + i·0.5 ms, and `extra` later from ACK 60 on
        let at = |i: u64, extra: f64| 1.0 + i as f64 * 0.0005 + if i >= 60 { extra } else { 0.0 };
        let mut h = Tested::new(HystartConfig { detect: Detect::AckTrain, ..Default::default() });
        let mut s = st(100.0, 0.05, 1.0);
        step(&mut h, &mut s, 2, 102);
        for i in 1..300u64 {
            s.now = from_secs(at(i, 0.002));
            assert_eq!(step(&mut h, &mut s, 3, 300), None, "ACK {i}");
        }
        assert_eq!(h.last_ack, from_secs(at(59, 0.0)));
        // the gap is judged against ack_delta inclusively: a 2 ms gap keeps the train
        let mut h = Tested::new(HystartConfig { detect: Detect::AckTrain, ..Default::default() });
        let mut s = st(100.0, 0.05, 1.0);
        step(&mut h, &mut s, 2, 102);
        let fired = (1..300u64).find(|&i| {
            s.now = from_secs(at(i, 0.0015));
            step(&mut h, &mut s, 3, 300).is_some()
        });
        // 59·0.5 ms + 2 ms = 31.5 ms at ACK 60; 50 ms is passed 38 ACKs later
        assert_eq!(fired, Some(98));
    }

    #[test]
    fn delay_rule_fires_after_min_samples_when_the_round_min_exceeds_the_threshold() {
        // delay_min 50 ms from the first round; threshold clamp(50 ms, 4 ms,
        // 1 s) = 50 ms, so the round's minimum must exceed 100 ms. ACKs 3 ms
        // apart (no train).
        let mut h = Tested::new(HystartConfig::default());
        let mut s = st(20.0, 0.05, 1.0);
        assert_eq!(round(&mut h, &mut s, 1.0, 10, 0.003, 0.05, 0), None);
        assert_eq!(h.delay_min(), Some(0.05));
        assert_eq!(h.delay_thresh(0.05), 0.05);
        // the next round (passes end_seq): 8 samples at 100.5 ms, then the
        // ninth ACK checks 100.5 > 100 and fires
        let una0 = h.end_seq;
        let mut exit = None;
        for i in 0..20u32 {
            s.now = from_secs(1.2 + i as f64 * 0.003);
            s.srtt_s = Some(0.1005);
            if let Some(e) = step(&mut h, &mut s, una0 + 1 + i as u64, 10_000) {
                exit = Some((i, e));
                break;
            }
        }
        let (i, e) = exit.expect("the delay rule fires");
        assert_eq!(e.by, Detect::Delay);
        // ACK 0 passes end_seq after its own sample (rule 3 runs last), so
        // it counts in the old round; the new round's 8 samples are ACKs
        // 1-8 and ACK 9 fires.
        assert_eq!(i, 9);
        assert_eq!(s.ssthresh, s.cwnd);
    }

    #[test]
    fn delay_rule_uses_the_min_of_the_first_samples_and_the_clamp() {
        // One low sample among the first 8 keeps curr_rtt low for the whole
        // round, whatever comes later (ns-3: the first min_samples only).
        let mut h = Tested::new(HystartConfig { detect: Detect::Delay, ..Default::default() });
        let mut s = st(20.0, 0.05, 1.0);
        round(&mut h, &mut s, 1.0, 10, 0.003, 0.05, 0);
        let una0 = h.end_seq;
        for i in 0..40u32 {
            s.now = from_secs(1.2 + i as f64 * 0.003);
            s.srtt_s = Some(if i == 4 { 0.099 } else { 0.2 });
            assert_eq!(step(&mut h, &mut s, una0 + 1 + i as u64, 10_000), None, "ACK {i}");
        }
        // The clamp: delay_min 2 ms gives a threshold of 4 ms (the lower
        // clamp), delay_min 3 s one of 1 s (the upper).
        assert_eq!(h.delay_thresh(0.002), 0.004);
        assert_eq!(h.delay_thresh(3.0), 1.0);
        // With delay_min 2 ms, a round at 6.5 ms fires (> 2 + 4 ms)...
        let fires = |srtt: f64| {
            let mut h = Tested::new(HystartConfig { detect: Detect::Delay, ..Default::default() });
            let mut s = st(20.0, 0.002, 1.0);
            round(&mut h, &mut s, 1.0, 10, 0.003, 0.002, 0);
            let una0 = h.end_seq;
            (0..20u32).any(|i| {
                s.now = from_secs(1.2 + i as f64 * 0.003);
                s.srtt_s = Some(srtt);
                step(&mut h, &mut s, una0 + 1 + i as u64, 10_000).is_some()
            })
        };
        assert!(fires(0.0065));
        // ...and one at 5.5 ms does not.
        assert!(!fires(0.0055));
    }

    #[test]
    fn low_window_and_ssthresh_gate_the_update() {
        // cwnd 15 < 16: no update, however long the train
        let mut h = Tested::new(HystartConfig::default());
        let mut s = st(15.0, 0.05, 1.0);
        step(&mut h, &mut s, 2, 17);
        for i in 1..300u64 {
            s.now = from_secs(1.0 + i as f64 * 0.0005);
            assert_eq!(step(&mut h, &mut s, 3, 300), None);
        }
        assert_eq!(h.sample_cnt, 0);
        // the same at cwnd 16 fires
        let mut h = Tested::new(HystartConfig::default());
        let mut s = st(16.0, 0.05, 1.0);
        step(&mut h, &mut s, 2, 17);
        assert!((1..300u64).any(|i| {
            s.now = from_secs(1.0 + i as f64 * 0.0005);
            step(&mut h, &mut s, 3, 300).is_some()
        }));
        // cwnd above ssthresh (congestion avoidance): no update
        let mut h = Tested::new(HystartConfig::default());
        let mut s = CcState { ssthresh: 50.0, ..st(60.0, 0.05, 1.0) };
        for i in 0..300u64 {
            s.now = from_secs(1.0 + i as f64 * 0.0005);
            assert_eq!(step(&mut h, &mut s, 3 + i, 300), None);
        }
        assert_eq!(h.delay_min(), Some(0.05), "delay_min is still tracked");
        // cwnd == ssthresh still updates (ns-3's `m_cWnd <= m_ssThresh`)
        let mut h = Tested::new(HystartConfig::default());
        let mut s = CcState { ssthresh: 60.0, ..st(60.0, 0.05, 1.0) };
        h.on_sample(&mut s, None);
        assert_eq!(h.sample_cnt, 1);
    }

    #[test]
    fn samples_right_after_a_stage_start_are_discarded() {
        let mut h = Tested::new(HystartConfig::default());
        let mut s = st(20.0, 0.05, 1.0);
        let t0 = Some(from_secs(0.995));
        // 5 ms after the stage began: ignored, delay_min stays unset
        h.on_sample(&mut s, t0);
        assert_eq!(h.delay_min(), None);
        // 10 ms after: taken
        s.now = from_secs(1.005);
        h.on_sample(&mut s, t0);
        assert_eq!(h.delay_min(), Some(0.05));
    }

    #[test]
    fn each_round_restarts_the_samples_and_the_train() {
        let mut h = Tested::new(HystartConfig::default());
        let mut s = st(20.0, 0.05, 1.0);
        // round 1: end_seq = 22 after the first ACK
        step(&mut h, &mut s, 2, 22);
        assert_eq!((h.round_start, h.end_seq), (from_secs(1.0), 22));
        for i in 1..5u64 {
            s.now = from_secs(1.0 + i as f64 * 0.001);
            step(&mut h, &mut s, 2 + 2 * i, 40);
        }
        assert_eq!(h.sample_cnt, 4, "the first ACK's sample counted in the round it ended");
        // an ACK of 22 does not pass end_seq; one of 23 does
        s.now = from_secs(1.05);
        step(&mut h, &mut s, 22, 44);
        assert_eq!(h.end_seq, 22);
        s.now = from_secs(1.051);
        step(&mut h, &mut s, 23, 46);
        assert_eq!((h.round_start, h.last_ack, h.end_seq), (from_secs(1.051), from_secs(1.051), 46));
        assert_eq!((h.sample_cnt, h.curr_rtt), (0, None));
        // no new round in congestion avoidance
        let mut s2 = CcState { ssthresh: 10.0, ..s.clone() };
        s2.now = from_secs(1.2);
        ack(&mut h, 100, 200);
        h.on_increase(&s2);
        assert_eq!(h.end_seq, 46);
    }

    #[test]
    fn an_rto_rearms_hystart() {
        let mut h = Tested::new(HystartConfig::default());
        let mut s = st(100.0, 0.05, 1.0);
        assert!(round(&mut h, &mut s, 1.0, 300, 0.0005, 0.05, 0).is_some());
        assert!(h.exit().is_some());
        s.now = from_secs(3.0);
        s.flight = 150;
        h.on_timeout(&s);
        assert_eq!(h.exit(), None);
        assert_eq!(h.delay_min(), None);
        assert_eq!(h.end_seq, h.una + 150);
        assert_eq!(h.round_start, from_secs(3.0));
    }

    /// Linux's delay rule (`hystart_update`): the ACK's own RTT sample, the
    /// round's smallest of them, the threshold clamp(delay_min/8, 4 ms,
    /// 16 ms). With delay_min 200 ms a round of 240 ms samples ends slow
    /// start on its ninth (Google's cubic-hystart-delay-rtt-jumps-upward
    /// asserts it); ns-3's threshold, clamp(delay_min, 4 ms, 1 s) = 200 ms
    /// on srtt, does not fire.
    #[test]
    fn linux_delay_rule_fires_on_the_ninth_sample_above_an_eighth() {
        let cfg = HystartConfig { linux: true, detect: Detect::Delay, delay_thresh_max_s: 0.016, ..Default::default() };
        let mut h = Hystart::default();
        let mut s = st(20.0, 0.2, 0.4);
        h.on_ack(&AckInfo { acked: 10, ece: false, ce: 0, una: 10, snd_nxt: 30 });
        assert!(h.on_sample(&cfg, &mut s, None, Some(0.2)).is_none(), "the first round's sample");
        let mut exit = None;
        for k in 0..9u64 {
            s.now = from_secs(0.64 + 0.001 * k as f64);
            s.cwnd = 22.0 + 2.0 * k as f64;
            h.on_ack(&AckInfo { acked: 2, ece: false, ce: 0, una: 32 + 2 * k, snd_nxt: 52 + 4 * k });
            exit = h.on_sample(&cfg, &mut s, None, Some(0.24));
            assert_eq!(exit.is_some(), k == 8, "sample {k}");
        }
        assert_eq!((exit.unwrap().by, s.ssthresh), (Detect::Delay, 38.0));
        let ns3 = Tested::new(HystartConfig { detect: Detect::Delay, ..Default::default() });
        assert!(ns3.delay_thresh(0.2) >= 0.2, "ns-3's threshold would need samples above 400 ms");
    }

    /// Linux restarts the round in `hystart_update` before the low-window
    /// gate: the first ACK opens round one (end_seq = SND.NXT = 10) while
    /// cwnd is 10, the eleventh opens round two, and its ACK train counts
    /// from there (the kernel peer, 10 Mb/s, 20 ms: an exit at cwnd 30 by
    /// the train of a receiver's quick ACKs). Gated first, round one would
    /// open only at cwnd 16, mid-flight, and end in the 10 ms gap.
    #[test]
    fn linux_rounds_restart_below_the_low_window() {
        let cfg = HystartConfig { linux: true, ..Default::default() };
        let mut h = Hystart::default();
        let mut s = st(10.0, 0.02, 0.0);
        s.srtt_s = Some(0.02);
        let mut exit = None;
        // round one: ten ACKs 1.2 ms apart, each sending two segments
        for k in 0..10u64 {
            s.now = from_secs(0.020 + 0.0012 * k as f64);
            h.on_ack(&AckInfo { acked: 1, ece: false, ce: 0, una: k + 1, snd_nxt: 10 + 2 * k });
            assert!(h.on_sample(&cfg, &mut s, None, Some(0.0201)).is_none());
            if k == 0 {
                assert_eq!((h.round_start, h.end_seq), (from_secs(0.020), 10));
            }
            s.cwnd += 1.0;
        }
        // round two: after a 10 ms gap, ACKs 1.2 ms apart from cwnd 20
        for k in 0..12u64 {
            s.now = from_secs(0.0412 + 0.0012 * k as f64);
            h.on_ack(&AckInfo { acked: 1, ece: false, ce: 0, una: 11 + k, snd_nxt: 30 + 2 * k });
            exit = h.on_sample(&cfg, &mut s, None, Some(0.0201));
            if k == 0 {
                assert_eq!((h.round_start, h.end_seq), (from_secs(0.0412), 30));
            }
            if exit.is_some() {
                break;
            }
            s.cwnd += 1.0;
        }
        let exit = exit.expect("the train ends slow start");
        assert_eq!((exit.by, exit.cwnd), (Detect::AckTrain, 29.0));
    }
}
