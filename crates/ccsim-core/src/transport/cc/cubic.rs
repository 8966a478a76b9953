//! CUBIC (RFC 9438 §4; Ha, Rhee, Xu, ACM SIGOPS OSR 2008).
//!
//! Why: the window is a cubic function of the *time* since the last reduction,
//! `W_cubic(t) = C·(t − K)³ + W_max` (§4.2), concave up to the previous
//! maximum W_max (plateau where the last loss happened) and convex beyond
//! (probing). Growth depends on time, not on ACK arrivals, so flows with
//! different RTTs get similar windows (RTT fairness), and the Reno-friendly
//! region keeps CUBIC at least as aggressive as AIMD Reno on short-RTT or
//! small-BDP paths where the cubic curve would be slower.
//!
//! - `K = cbrt((W_max − cwnd_epoch)/C)` (§4.2, eq. 2), `cwnd_epoch` being cwnd
//!   when the congestion-avoidance stage starts; if cwnd_epoch ≥ W_max (no loss
//!   yet, or the first stage after an RTO, §4.8) K = 0 and W_max = cwnd_epoch.
//! - Per ACK in congestion avoidance (§4.3–4.5), with t the time since the
//!   stage began and RTT the smoothed RTT: `target = W_cubic(t + RTT)` clamped
//!   to [cwnd, 1.5·cwnd]; the Reno-friendly estimate `W_est += α_cubic/cwnd`
//!   per unit with `α_cubic = 3(1−β)/(1+β)`, switching to 1 once W_est reaches
//!   `cwnd_prior` (§4.3; `alpha_switch = false` keeps α_cubic, as RFC 8312
//!   §4.2, Linux's `tcp_cwnd` and ns-3's `TcpCubic::Update` do); if `W_cubic(t) < W_est` cwnd = max(cwnd, W_est) (Reno-friendly
//!   region), else `cwnd += (target − cwnd)/cwnd` per unit.
//! - Congestion event (§4.6–4.7): fast convergence `W_max = cwnd·(1+β)/2` if
//!   cwnd < the previous W_max, else `W_max = cwnd`; `cwnd_prior = cwnd`;
//!   `ssthresh = max(FlightSize·β, 2)` (the RFC's flight_size, as this crate's
//!   Reno uses); the stage restarts when congestion avoidance resumes.
//! - RTO (§4.8): Reno's cwnd = 1 with ssthresh from β; the next stage uses
//!   K = 0 and W_max = cwnd at its start.
//! - Slow start is standard (RFC 5681) unless `hystart`: then HyStart
//!   (ACK-train and delay-increase exits, ns-3 3.44's `TcpCubic` rules and
//!   constants, `hystart.rs`) may end it early with ssthresh = cwnd.
//! - `cnt_clamp` (off unless set): before the first congestion event the
//!   window grows by at least 1/`cnt_clamp` segment per unit, Linux's
//!   `bictcp_update` (`if (ca->last_max_cwnd == 0 && ca->cnt > 20) ca->cnt
//!   = 20`, "increase cwnd 5% per RTT") and ns-3's `CntClamp` (20): after a
//!   HyStart exit with K = 0 the cubic curve alone would hold cwnd nearly
//!   flat for the first RTTs. ns-3 keeps the rule off once any congestion
//!   event happened; Linux re-arms it after an RTO (`bictcp_reset` zeroes
//!   `last_max_cwnd` at `TCP_CA_Loss`); ccsim does as ns-3.
//!
//! Not modelled: HyStart++ (RFC 9406), excluding idle/app-limited time
//! from t, and spurious-loss undo. Counting is per ACK (ns-2) unless
//! `abc`. Linux's integer CUBIC is `variant = "linux"` (`cubic_linux.rs`).
use super::hystart::{Detect, Hystart, HystartConfig};
use super::{
    abc_param, share, slow_start_units, AckInfo, CcEvent, CcState, CongestionControl, ControllerDoc, ParamDoc,
    SharedConfig,
};
use crate::scenario::{params::Params, ConfigError};
use crate::sim::math;
use crate::sim::time::{nonmax, to_secs};
use crate::sim::Time;
use nonmax::NonMaxU64;
use std::sync::Arc;

/// CUBIC's parameters (`cc_params`); `Default` is the one place the defaults
/// are written.
#[derive(Clone, Debug, PartialEq)]
pub struct CubicConfig {
    /// C in segments/s³ (RFC 9438: 0.4).
    pub c: f64,
    /// β_cubic, the fraction of the window retained on a congestion event
    /// (RFC 9438 §4.6: 0.7).
    pub beta: f64,
    /// W_max = cwnd·(1+β)/2 on a loss below the previous W_max (RFC 9438
    /// §4.7; on, as the RFC recommends).
    pub fast_convergence: bool,
    /// The Reno-friendly region, W_est (RFC 9438 §4.3; on, as the RFC).
    pub tcp_friendly: bool,
    /// Count segments acked (RFC 3465) instead of ACKs (ns-2, default).
    pub abc: bool,
    /// W_est grows by 1 (not α_cubic) per window once it reaches
    /// cwnd_prior (RFC 9438 §4.3, new since RFC 8312; on). Off is RFC 8312
    /// §4.2's W_est, which Linux (net/ipv4/tcp_cubic.c `tcp_cwnd`) and
    /// ns-3 3.44 (tcp-cubic.cc `Update`, `m_tcpCwnd`) implement.
    pub alpha_switch: bool,
    /// HyStart ends slow start (`hystart.rs`; Linux and ns-3: on). Off:
    /// standard slow start, which RFC 9438 §4.10 allows beside HyStart++
    /// (RFC 9406), naming this hybrid slow start an experimental
    /// alternative.
    pub hystart: bool,
    /// HyStart's parameters, used with `hystart` (ns-3 3.44's defaults).
    pub hystart_cfg: HystartConfig,
    /// Before the first congestion event, at least 1/`cnt_clamp` segment
    /// per unit (Linux and ns-3: 20, 5% per RTT); 0: off (RFC 9438).
    pub cnt_clamp: f64,
    /// RFC 9438's curve in real numbers (this file), or the kernel's
    /// integer CUBIC (`cubic_linux.rs`).
    pub variant: Variant,
    /// CONFIG_HZ, the kernel's jiffies per second, with `Variant::Linux`
    /// (250: Debian's kernels and this project's peer machines).
    pub hz: u32,
}

/// Which CUBIC (`variant`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// RFC 9438 in real numbers (`Cubic`).
    Rfc,
    /// Linux 6.x's `tcp_cubic.c` in integers and jiffies (`LinuxCubic`).
    Linux,
}

impl CubicConfig {
    /// `tcp_cubic.c`'s module defaults: β = 717/1024, HyStart with the
    /// kernel's rules and its 16 ms delay cap, samples ignored for 1 s
    /// (`HZ` jiffies) after a stage starts, the clamp of 20, segments
    /// counted, HZ = 250.
    pub fn linux() -> Self {
        CubicConfig {
            beta: LINUX_BETA,
            abc: true,
            alpha_switch: false,
            hystart: true,
            hystart_cfg: HystartConfig {
                linux: true,
                delay_thresh_max_s: 0.016,
                discard_s: 1.0,
                ..HystartConfig::default()
            },
            cnt_clamp: 20.0,
            variant: Variant::Linux,
            ..CubicConfig::default()
        }
    }
}

/// Linux's β, 717/1024 (`tcp_cubic.c` `beta`).
pub const LINUX_BETA: f64 = 717.0 / 1024.0;

impl Default for CubicConfig {
    /// RFC 9438 values, ns-2 ACK counting.
    fn default() -> Self {
        CubicConfig {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            tcp_friendly: true,
            abc: false,
            alpha_switch: true,
            hystart: false,
            hystart_cfg: HystartConfig::default(),
            cnt_clamp: 0.0,
            variant: Variant::Rfc,
            hz: 250,
        }
    }
}

impl CubicConfig {
    /// The parameters of `cc_params` (`path` names the flow in errors).
    /// `variant = "linux"` takes [`CubicConfig::linux`]'s defaults.
    pub fn from_params(params: &serde_json::Map<String, serde_json::Value>, path: &str) -> Result<Self, ConfigError> {
        let mut p = Params::new(params, &format!("{path}.cc_params"));
        let variant = match p.choice("variant", "rfc", &["rfc", "linux"])? {
            "linux" => Variant::Linux,
            _ => Variant::Rfc,
        };
        let linux = variant == Variant::Linux;
        let d = if linux { CubicConfig::linux() } else { CubicConfig::default() };
        let c = p.f64_in("c", d.c, 1e-6, 1e6)?;
        let beta = p.f64_in("beta", d.beta, 0.01, 0.99)?;
        let fast_convergence = p.bool("fast_convergence", d.fast_convergence)?;
        let tcp_friendly = p.bool("tcp_friendly", d.tcp_friendly)?;
        let abc = p.bool("abc", d.abc)?;
        let alpha_switch = p.bool("alpha_switch", d.alpha_switch)?;
        let cnt_clamp = p.f64_in("cnt_clamp", d.cnt_clamp, 0.0, 1e6)?;
        let hz = p.u64_in("hz", d.hz as u64, 1, 100_000)? as u32;
        let hystart = p.bool("hystart", d.hystart)?;
        let h = &d.hystart_cfg;
        let detect = match p.choice("hystart_detect", h.detect.name(), &["both", "ack_train", "delay"])? {
            "ack_train" => Detect::AckTrain,
            "delay" => Detect::Delay,
            _ => Detect::Both,
        };
        let low_window = p.f64_in("hystart_low_window", h.low_window, 0.0, 1e9)?;
        let ack_delta_s = p.f64_in("hystart_ack_delta_s", h.ack_delta_s, 0.0, 10.0)?;
        let min_samples = p.u64_in("hystart_min_samples", h.min_samples as u64, 1, 255)? as u32;
        let delay_thresh_min_s = p.f64_in("hystart_delay_min_s", h.delay_thresh_min_s, 0.0, 100.0)?;
        let delay_thresh_max_s = p.f64_in("hystart_delay_max_s", h.delay_thresh_max_s, 0.0, 100.0)?;
        let discard_s = p.f64_in("hystart_discard_s", h.discard_s, 0.0, 100.0)?;
        let hv = if h.linux { "linux" } else { "ns3" };
        let hystart_linux = p.choice("hystart_variant", hv, &["ns3", "linux"])? == "linux";
        p.finish()?;
        let at = |k: &str| format!("{path}.cc_params.{k}");
        if let Some(k) =
            params.keys().find(|k| k.starts_with("hystart_") && *k != "hystart_discard_s").filter(|_| !hystart)
        {
            return Err(ConfigError::new(at(k), "needs hystart = true"));
        }
        if params.contains_key("hystart_discard_s") && !hystart && !linux {
            return Err(ConfigError::new(at("hystart_discard_s"), "needs hystart = true"));
        }
        if delay_thresh_max_s < delay_thresh_min_s {
            return Err(ConfigError::new(
                at("hystart_delay_max_s"),
                format!("{delay_thresh_max_s} is below hystart_delay_min_s = {delay_thresh_min_s}"),
            ));
        }
        if linux {
            // tcp_cubic.c has no such switches: the kernel counts segments
            // (tcp_cong_avoid_ai) and keeps RFC 8312's W_est.
            if !abc {
                return Err(ConfigError::new(at("abc"), "false; variant = \"linux\" counts segments acked (true)"));
            }
            if alpha_switch {
                return Err(ConfigError::new(
                    at("alpha_switch"),
                    "true; variant = \"linux\" keeps RFC 8312's W_est (false)",
                ));
            }
            if cnt_clamp.fract() != 0.0 {
                return Err(ConfigError::new(
                    at("cnt_clamp"),
                    format!("{cnt_clamp}; variant = \"linux\" takes a whole number of segments"),
                ));
            }
        } else if params.contains_key("hz") {
            return Err(ConfigError::new(at("hz"), "needs variant = \"linux\" (the kernel's jiffies)"));
        }
        let hystart_cfg = HystartConfig {
            low_window,
            detect,
            min_samples,
            ack_delta_s,
            delay_thresh_min_s,
            delay_thresh_max_s,
            discard_s,
            linux: hystart_linux,
        };
        Ok(CubicConfig {
            c,
            beta,
            fast_convergence,
            tcp_friendly,
            abc,
            alpha_switch,
            hystart,
            hystart_cfg,
            cnt_clamp,
            variant,
            hz,
        })
    }
}

/// The registry's constructor: RFC 9438's CUBIC or the kernel's, as
/// `variant` says.
pub fn build(
    params: &serde_json::Map<String, serde_json::Value>,
    path: &str,
) -> Result<Box<dyn CongestionControl>, ConfigError> {
    let cfg = CubicConfig::from_params(params, path)?;
    Ok(match cfg.variant {
        Variant::Rfc => Box::new(Cubic::new(cfg)),
        Variant::Linux => Box::new(super::cubic_linux::LinuxCubic::new(Arc::new(cfg))),
    })
}

/// One flow's CUBIC. The parameters are shared by the flows of a
/// `[[flows]]` entry ([`CongestionControl::share_config`]) and HyStart's
/// state is boxed, there only with `hystart`: with 10^4 flows and more,
/// the controller's size is a large part of a flow's.
pub struct Cubic {
    cfg: Arc<CubicConfig>,
    w_max: f64,
    cwnd_prior: f64,
    after_rto: bool,
    /// A congestion event happened (Linux `last_max_cwnd != 0`).
    had_loss: bool,
    epoch: Option<Epoch>,
    hystart: Option<Box<Hystart>>,
}

/// A congestion-avoidance stage. Its W_max is the controller's own
/// (`Cubic::w_max` changes only where a stage ends) and its start in
/// seconds is `to_secs(start)`, so neither is kept: with the `NonMaxU64`
/// start the controller is 64 bytes, a smaller heap block per flow than
/// 88.
#[derive(Clone, Copy, Debug)]
struct Epoch {
    start: NonMaxU64,
    k: f64,
    w_est: f64,
}

impl Epoch {
    fn start(&self) -> Time {
        self.start.get()
    }
}

/// RFC 9438 eq. 2: K = cbrt((W_max − cwnd_epoch)/C), 0 if cwnd_epoch ≥ W_max.
pub fn k_of(w_max: f64, cwnd_epoch: f64, c: f64) -> f64 {
    math::cbrt((w_max - cwnd_epoch).max(0.0) / c)
}

/// RFC 9438 eq. 1: W_cubic(t) = C(t − K)³ + W_max.
pub fn w_cubic(t: f64, k: f64, w_max: f64, c: f64) -> f64 {
    c * math::powi(t - k, 3) + w_max
}

impl Cubic {
    pub fn new(cfg: CubicConfig) -> Self {
        let hystart = cfg.hystart.then(Box::default);
        Cubic {
            cfg: Arc::new(cfg),
            w_max: 0.0,
            cwnd_prior: 0.0,
            after_rto: false,
            had_loss: false,
            epoch: None,
            hystart,
        }
    }

    pub fn doc() -> ControllerDoc {
        let d = CubicConfig::default();
        let h = &d.hystart_cfg;
        ControllerDoc {
            name: "cubic",
            doc: "CUBIC (RFC 9438): W = C(t−K)³ + W_max, Reno-friendly region, fast convergence, ×beta on loss",
            params: vec![
                ParamDoc { name: "c", default: d.c.into(), doc: "C in segments/s³" },
                ParamDoc { name: "beta", default: d.beta.into(), doc: "beta_cubic: fraction of the window retained" },
                ParamDoc {
                    name: "fast_convergence",
                    default: d.fast_convergence.into(),
                    doc: "W_max = cwnd(1+beta)/2 below W_max",
                },
                ParamDoc { name: "tcp_friendly", default: d.tcp_friendly.into(), doc: "Reno-friendly region (W_est)" },
                ParamDoc {
                    name: "alpha_switch",
                    default: d.alpha_switch.into(),
                    doc: "W_est's alpha becomes 1 at cwnd_prior (RFC 9438); false: RFC 8312, Linux, ns-3",
                },
                abc_param(d.abc),
                ParamDoc {
                    name: "cnt_clamp",
                    default: d.cnt_clamp.into(),
                    doc: "before the first loss, >= 1/cnt_clamp segment per unit (Linux, ns-3: 20, 5%/RTT); 0 = off",
                },
                ParamDoc {
                    name: "hystart",
                    default: d.hystart.into(),
                    doc: "HyStart ends slow start at an ACK train or a delay increase (ns-3 3.44 TcpCubic's rules)",
                },
                ParamDoc {
                    name: "hystart_detect",
                    default: h.detect.name().into(),
                    doc: "HyStart's exit signals: both | ack_train | delay (Linux hystart_detect)",
                },
                ParamDoc {
                    name: "hystart_low_window",
                    default: h.low_window.into(),
                    doc: "HyStart looks from this cwnd on, segments (Linux hystart_low_window)",
                },
                ParamDoc {
                    name: "hystart_ack_delta_s",
                    default: h.ack_delta_s.into(),
                    doc: "largest ACK spacing within a train, s (Linux hystart_ack_delta_us)",
                },
                ParamDoc {
                    name: "hystart_min_samples",
                    default: (h.min_samples as u64).into(),
                    doc: "RTT samples per round before the delay rule (Linux HYSTART_MIN_SAMPLES)",
                },
                ParamDoc {
                    name: "hystart_delay_min_s",
                    default: h.delay_thresh_min_s.into(),
                    doc: "lower clamp of the delay threshold clamp(delay_min, min, max), s (ns-3 HyStartDelayMin)",
                },
                ParamDoc {
                    name: "hystart_delay_max_s",
                    default: h.delay_thresh_max_s.into(),
                    doc: "upper clamp of the delay threshold, s (ns-3 HyStartDelayMax 1 s; Linux 16 ms)",
                },
                ParamDoc {
                    name: "hystart_discard_s",
                    default: h.discard_s.into(),
                    doc: "RTT samples this soon after a stage starts are ignored, s (ns-3 CubicDelta; Linux 1 s)",
                },
                ParamDoc {
                    name: "variant",
                    default: "rfc".into(),
                    doc: "rfc (RFC 9438 in real numbers) | linux (tcp_cubic.c: integer cwnd and cnt, jiffies, \
                          beta 717/1024, ssthresh from cwnd; its defaults: hystart with Linux's rules, cnt_clamp 20)",
                },
                ParamDoc {
                    name: "hz",
                    default: (d.hz as u64).into(),
                    doc: "with variant = linux: the kernel's jiffies per second (CONFIG_HZ)",
                },
                ParamDoc {
                    name: "hystart_variant",
                    default: "ns3".into(),
                    doc: "ns3 (TcpCubic 3.44) | linux (tcp_cubic.c: the ACK's own RTT, the train past (delay_min + \
                          ack delay)/2, the threshold clamp(delay_min/8, ...), the round's smallest sample, the round \
                          restarted before the checks)",
                },
            ],
        }
    }

    pub fn from_params(params: &serde_json::Map<String, serde_json::Value>, path: &str) -> Result<Self, ConfigError> {
        Ok(Cubic::new(CubicConfig::from_params(params, path)?))
    }

    pub fn alpha_cubic(&self) -> f64 {
        3.0 * (1.0 - self.cfg.beta) / (1.0 + self.cfg.beta)
    }

    /// K of the current stage, if one has begun.
    pub fn k(&self) -> Option<f64> {
        self.epoch.map(|e| e.k)
    }

    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// W_est of the current stage.
    pub fn w_est(&self) -> Option<f64> {
        self.epoch.map(|e| e.w_est)
    }

    /// HyStart's state, with `hystart`.
    pub fn hystart(&self) -> Option<&Hystart> {
        self.hystart.as_deref()
    }

    fn start_epoch(&mut self, start: Time, cwnd: f64) -> Epoch {
        let k = if self.after_rto || cwnd >= self.w_max {
            self.w_max = cwnd;
            0.0
        } else {
            k_of(self.w_max, cwnd, self.cfg.c)
        };
        self.after_rto = false;
        Epoch { start: nonmax(start), k, w_est: cwnd }
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        if let Some(h) = self.hystart.as_mut() {
            h.on_increase(&self.cfg.hystart_cfg, s);
        }
        let n = slow_start_units(self.cfg.abc, s, acked, 0.0);
        if n == 0 {
            return;
        }
        let now = s.now_s();
        let mut e = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(s.now, s.cwnd),
        };
        let before = s.cwnd;
        let t = now - to_secs(e.start());
        let rtt = s.srtt_s.unwrap_or(0.0);
        let w = s.cwnd.max(1.0);
        let target = w_cubic(t + rtt, e.k, self.w_max, self.cfg.c).clamp(w, 1.5 * w);
        let a = if self.cfg.alpha_switch && e.w_est >= self.cwnd_prior { 1.0 } else { self.alpha_cubic() };
        e.w_est += a * n as f64 / w;
        if self.cfg.tcp_friendly && w_cubic(t, e.k, self.w_max, self.cfg.c) < e.w_est {
            s.cwnd = s.cwnd.max(e.w_est);
        } else {
            s.cwnd = (s.cwnd + n as f64 * (target - w) / w).min(target.max(s.cwnd));
        }
        if self.cfg.cnt_clamp > 0.0 && !self.had_loss {
            s.cwnd = s.cwnd.max(before + n as f64 / self.cfg.cnt_clamp);
        }
        self.epoch = Some(e);
    }

    fn ssthresh(&mut self, s: &CcState) -> f64 {
        let w = s.cwnd;
        self.w_max = if self.cfg.fast_convergence && w < self.w_max { w * (1.0 + self.cfg.beta) / 2.0 } else { w };
        self.cwnd_prior = w;
        self.had_loss = true;
        self.epoch = None;
        (s.flight as f64 * self.cfg.beta).max(2.0)
    }

    fn on_ack(&mut self, _s: &mut CcState, a: AckInfo) {
        if let Some(h) = self.hystart.as_mut() {
            h.on_ack(&a);
        }
    }

    fn pkts_acked(&mut self, s: &mut CcState, _acked: u64, rtt_s: Option<f64>) {
        if let Some(h) = self.hystart.as_mut() {
            h.on_sample(&self.cfg.hystart_cfg, s, self.epoch.map(|e| e.start()), rtt_s);
        }
    }

    fn share_config(&mut self, shared: &mut SharedConfig) {
        share(&mut self.cfg, shared);
    }

    fn on_event(&mut self, s: &mut CcState, ev: CcEvent) {
        if ev == CcEvent::Timeout {
            self.after_rto = true;
            self.epoch = None;
            if let Some(h) = self.hystart.as_mut() {
                h.on_timeout(s);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::from_secs;

    fn st(cwnd: f64, ssthresh: f64) -> CcState {
        CcState { srtt_s: Some(0.1), min_rtt_s: Some(0.1), ..crate::transport::cc::test_state(cwnd, ssthresh) }
    }

    #[test]
    fn k_and_w_cubic_formulas() {
        // W_max = 100, cwnd_epoch = 70, C = 0.4: K = cbrt(75).
        let k = k_of(100.0, 70.0, 0.4);
        assert!((k - math::cbrt(75.0)).abs() < 1e-12);
        assert!((k - 4.2172).abs() < 1e-4);
        assert!((w_cubic(0.0, k, 100.0, 0.4) - 70.0).abs() < 1e-9);
        assert_eq!(w_cubic(k, k, 100.0, 0.4), 100.0);
        assert!((w_cubic(k + 1.0, k, 100.0, 0.4) - 100.4).abs() < 1e-9);
        // With cwnd_epoch = β·W_max it is RFC 8312's cbrt(W_max(1−β)/C).
        assert!((k_of(1000.0, 700.0, 0.4) - math::cbrt(1000.0 * 0.3 / 0.4)).abs() < 1e-12);
        assert_eq!(k_of(100.0, 120.0, 0.4), 0.0);
        // α_cubic = 3(1−β)/(1+β) ≈ 0.529.
        assert!((Cubic::new(CubicConfig::default()).alpha_cubic() - 0.9 / 1.7).abs() < 1e-12);
    }

    /// Drive one stage with a window-limited ACK clock (cwnd ACKs per RTT).
    fn run(c: &mut Cubic, s: &mut CcState, t0: f64, t1: f64) -> f64 {
        let rtt = s.srtt_s.unwrap();
        let mut t = t0;
        while t < t1 {
            s.now = from_secs(t);
            c.cong_avoid(s, 1);
            t += rtt / s.cwnd;
        }
        t
    }

    #[test]
    fn window_follows_the_cubic_curve_at_large_windows() {
        let mut c = Cubic::new(CubicConfig::default());
        let mut s = st(1000.0, 1e9);
        s.ssthresh = c.ssthresh(&s);
        assert!((s.ssthresh - 700.0).abs() < 1e-9);
        s.cwnd = s.ssthresh;
        s.now = from_secs(10.0);
        c.cong_avoid(&mut s, 1);
        let k = c.k().unwrap();
        assert!((k - math::cbrt(300.0 / 0.4)).abs() < 1e-9);
        let mut t = 10.0 + 0.1 / s.cwnd;
        for dt in [k / 2.0, k, k + 2.0] {
            t = run(&mut c, &mut s, t, 10.0 + dt);
            let want = w_cubic(s.now_s() - 10.0, k, 1000.0, 0.4);
            assert!((s.cwnd - want).abs() < 0.01 * 1000.0, "t {dt}: cwnd {} W_cubic {want}", s.cwnd);
            // Far above the Reno-friendly estimate.
            assert!(c.w_est().unwrap() < s.cwnd - 100.0);
        }
    }

    #[test]
    fn reno_friendly_region_at_small_windows() {
        // W_max = 20: K = cbrt(6/0.4) ≈ 2.47 s, so over 2 s (20 RTTs) the cubic
        // curve barely moves while Reno-friendly AIMD adds ≈ α_cubic per RTT.
        let mut c = Cubic::new(CubicConfig::default());
        let mut s = st(20.0, 1e9);
        s.ssthresh = c.ssthresh(&s);
        s.cwnd = s.ssthresh;
        run(&mut c, &mut s, 0.0, 2.0);
        let k = c.k().unwrap();
        let w_est = c.w_est().unwrap();
        assert!(w_cubic(2.0, k, 20.0, 0.4) < 20.0);
        assert!(s.cwnd >= w_est - 1e-9 && s.cwnd > 23.0, "cwnd {} w_est {w_est}", s.cwnd);
        // Without the Reno-friendly region cwnd stays under W_max.
        let mut c = Cubic::new(CubicConfig { tcp_friendly: false, ..Default::default() });
        let mut s = st(20.0, 1e9);
        s.ssthresh = c.ssthresh(&s);
        s.cwnd = s.ssthresh;
        run(&mut c, &mut s, 0.0, 2.0);
        assert!(s.cwnd < 20.0, "cwnd {}", s.cwnd);
    }

    /// RFC 9438 §4.3: once W_est passes cwnd_prior it grows by 1 per
    /// window, not α_cubic; RFC 8312 (`alpha_switch = false`) keeps α_cubic.
    #[test]
    fn w_est_switches_to_one_past_cwnd_prior_unless_rfc8312() {
        // W_max = cwnd_prior = 10 and a very small C: the cubic curve stays
        // flat, so the window follows W_est, which starts at 7 and passes
        // cwnd_prior after about 3/α_cubic ≈ 5.7 windows.
        let grow = |alpha_switch| {
            let mut c = Cubic::new(CubicConfig { c: 1e-6, alpha_switch, ..Default::default() });
            let mut s = st(10.0, 1e9);
            s.ssthresh = c.ssthresh(&s);
            s.cwnd = s.ssthresh;
            run(&mut c, &mut s, 0.0, 3.0); // 30 RTTs
            c.w_est().unwrap()
        };
        let alpha = Cubic::new(CubicConfig::default()).alpha_cubic();
        let (rfc9438, rfc8312) = (grow(true), grow(false));
        // RFC 8312: about α_cubic per RTT throughout (30 RTTs).
        assert!((rfc8312 - (7.0 + 30.0 * alpha)).abs() < 1.0, "RFC 8312 W_est {rfc8312}");
        // RFC 9438: α_cubic up to 10, then 1 per RTT for the remaining ~24 RTTs.
        let t_prior = 3.0 / alpha;
        assert!((rfc9438 - (10.0 + (30.0 - t_prior))).abs() < 1.5, "RFC 9438 W_est {rfc9438}");
    }

    #[test]
    fn fast_convergence_and_rto() {
        let mut c = Cubic::new(CubicConfig::default());
        c.ssthresh(&st(1000.0, 1e9));
        assert_eq!(c.w_max(), 1000.0);
        c.ssthresh(&st(800.0, 1e9));
        assert!((c.w_max() - 800.0 * 0.85).abs() < 1e-9);
        let mut c2 = Cubic::new(CubicConfig { fast_convergence: false, ..Default::default() });
        c2.ssthresh(&st(1000.0, 1e9));
        c2.ssthresh(&st(800.0, 1e9));
        assert_eq!(c2.w_max(), 800.0);
        // After an RTO the first stage starts with K = 0 and W_max = cwnd.
        let mut s = st(1.0, 300.0);
        c.on_event(&mut s, CcEvent::Timeout);
        s.cwnd = 300.0;
        c.cong_avoid(&mut s, 1);
        assert_eq!(c.k(), Some(0.0));
        assert_eq!(c.w_max(), 300.0);
    }

    /// `cnt_clamp`: before the first congestion event at least 1/cnt_clamp
    /// per unit even where the cubic curve is flat (K = 0, W_max = cwnd
    /// right after slow start); after one, the curve alone.
    #[test]
    fn cnt_clamp_grows_five_percent_per_rtt_until_the_first_loss() {
        let cfg = CubicConfig { cnt_clamp: 20.0, tcp_friendly: false, abc: true, ..Default::default() };
        let mut c = Cubic::new(cfg.clone());
        let mut s = st(500.0, 500.0);
        s.now = from_secs(1.0);
        for _ in 0..250 {
            c.cong_avoid(&mut s, 2); // one window of 500 segments, ACKed 2 at a time
        }
        // the curve adds ~C·RTT³ = 0.0004; the clamp 500/20 = 25
        assert!((s.cwnd - 525.0).abs() < 0.01, "cwnd {}", s.cwnd);
        // off (0): the curve alone
        let mut c0 = Cubic::new(CubicConfig { cnt_clamp: 0.0, ..cfg.clone() });
        let mut s0 = st(500.0, 500.0);
        s0.now = from_secs(1.0);
        for _ in 0..250 {
            c0.cong_avoid(&mut s0, 2);
        }
        assert!(s0.cwnd < 500.01, "cwnd {}", s0.cwnd);
        // after a congestion event the clamp is off: the same growth as
        // without it (the concave curve's, here 0.036 per ACK < 0.1)
        let after_loss = |c: &mut Cubic, s: &mut CcState| {
            s.cwnd = 525.0;
            s.flight = 525;
            s.ssthresh = c.ssthresh(s);
            s.cwnd = s.ssthresh;
            for _ in 0..10 {
                c.cong_avoid(s, 2);
            }
            s.cwnd
        };
        let (with, without) = (after_loss(&mut c, &mut s), after_loss(&mut c0, &mut s0));
        assert_eq!(with, without);
        assert!(with - 367.5 < 0.5, "grew {}", with - 367.5);
    }

    /// With `hystart` the controller runs HyStart's hooks: an ACK train
    /// longer than delay_min ends slow start with ssthresh = cwnd.
    #[test]
    fn hystart_is_wired_to_the_hooks_and_off_by_default() {
        let drive = |c: &mut Cubic| {
            let mut s = st(100.0, 1e9);
            s.srtt_s = Some(0.05);
            for i in 0..400u64 {
                s.now = from_secs(1.0 + i as f64 * 0.0005);
                let una = 2 * (i + 1);
                let snd_nxt = una + s.cwnd as u64;
                c.on_ack(&mut s, AckInfo { acked: 2, ece: false, ce: 0, una, snd_nxt });
                c.pkts_acked(&mut s, 2, Some(0.05));
                c.cong_avoid(&mut s, 2);
            }
            s
        };
        let s = drive(&mut Cubic::new(CubicConfig { abc: true, ..Default::default() }));
        assert_eq!(s.ssthresh, 1e9);
        let mut c = Cubic::new(CubicConfig { abc: true, hystart: true, ..Default::default() });
        let s = drive(&mut c);
        let e = c.hystart().unwrap().exit().expect("HyStart exits");
        assert_eq!(e.by, super::super::hystart::Detect::AckTrain);
        assert_eq!(s.ssthresh, e.cwnd);
        // an RTO re-arms it
        c.on_event(&mut st(1.0, 10.0), CcEvent::Timeout);
        assert_eq!(c.hystart().unwrap().exit(), None);
    }

    /// At most 2 KB per long-lived flow (docs/performance.md): the parameters are
    /// shared and HyStart boxed, so a flow's CUBIC is its own state; boxed
    /// per flow, 64 bytes take an 80-byte heap block, 88 took 96.
    #[test]
    fn a_cubic_stays_small() {
        assert!(std::mem::size_of::<Cubic>() <= 64, "Cubic is {} bytes", std::mem::size_of::<Cubic>());
    }

    /// The flows of an entry hold one copy of the parameters; a flow with
    /// other parameters keeps its own.
    #[test]
    fn the_flows_of_an_entry_share_one_config() {
        let mut shared = None;
        let mut a = Cubic::new(CubicConfig::default());
        let mut b = Cubic::new(CubicConfig::default());
        a.share_config(&mut shared);
        b.share_config(&mut shared);
        assert!(Arc::ptr_eq(&a.cfg, &b.cfg));
        let mut c = Cubic::new(CubicConfig { beta: 0.5, ..Default::default() });
        c.share_config(&mut shared);
        assert!(!Arc::ptr_eq(&a.cfg, &c.cfg));
        assert_eq!(c.cfg.beta, 0.5);
    }

    #[test]
    fn hystart_parameters_need_hystart_and_ordered_thresholds() {
        let parse = |j: &str| {
            let m: serde_json::Map<String, serde_json::Value> = serde_json::from_str(j).unwrap();
            Cubic::from_params(&m, "scenario.flows[0]").map(|c| c.cfg)
        };
        let cfg = parse(r#"{"hystart": true, "hystart_detect": "delay", "hystart_low_window": 8}"#).unwrap();
        assert_eq!((cfg.hystart_cfg.detect, cfg.hystart_cfg.low_window), (Detect::Delay, 8.0));
        let e = parse(r#"{"hystart_low_window": 8}"#).err().unwrap().to_string();
        assert!(e.contains("cc_params.hystart_low_window") && e.contains("needs hystart = true"), "{e}");
        let e = parse(r#"{"hystart": true, "hystart_delay_max_s": 0.001}"#).err().unwrap().to_string();
        assert!(e.contains("hystart_delay_max_s") && e.contains("below hystart_delay_min_s"), "{e}");
        let e = parse(r#"{"hystart": true, "hystart_detect": "train"}"#).err().unwrap().to_string();
        assert!(e.contains("hystart_detect"), "{e}");
    }
}
