//! HighSpeed TCP (RFC 3649) with optional Limited Slow-Start (RFC 3742).
//!
//! HSTCP is AIMD whose parameters depend on the window: a(w) segments per RTT
//! of increase and a cut of b(w)·w on a congestion event. At or below
//! `Low_Window` (38) it is standard TCP (a = 1, b = 0.5); above it the pair is
//! chosen so the steady-state response function is the straight log-log line
//! through (Low_Window, Low_P) and (High_Window, High_P) (RFC 3649 §5):
//!
//! - `b(w) = (High_Decrease − 0.5)·(ln w − ln Low_Window)/(ln High_Window − ln Low_Window) + 0.5`
//! - `p(w) = exp(ln Low_P + (ln w − ln Low_Window)·(ln High_P − ln Low_P)/(ln High_Window − ln Low_Window))`
//! - `a(w) = w²·p(w)·2·b(w)/(2 − b(w))`, from the AIMD steady state
//!   `w = sqrt(a(2 − b)/(2bp))`.
//!
//! Why the formulas and not the RFC's appendix table (which Linux and ns-3
//! copy): the papers this crate reproduces ran ns-2 (`windowOption_ 8`), which
//! evaluates the formulas directly; the table rows drift from them at large w
//! (row 84035 has a = 71, the formula 72.7). Choices, each documented:
//!
//! - `Low_P` defaults to the RFC's 1e-3 (S ≈ −0.835, `w = 0.12/p^0.835`).
//!   ns-2 uses `1.5/Low_Window²` ≈ 1.04e-3; set `low_p` to reproduce it.
//! - Just above Low_Window the formula gives a(w) slightly below 1 (0.963 at
//!   w = 38⁺); a is floored at 1 so HSTCP never grows slower than standard TCP,
//!   as the RFC table (a = 1 until w = 118) does.
//! - Above High_Window the log-linear b(w) would keep falling and reach 0 near
//!   w ≈ 570,000; a and b are held at their High_Window values there, as
//!   Linux's table saturates at its last row.
//! - The cut is evaluated on cwnd at the event (`ssthresh = (1 − b(cwnd))·cwnd`,
//!   floor 2), the same rule for fast retransmit, ECN and RTO (RFC 3649 only
//!   changes the AIMD parameters). ns-2 halves ssthresh instead on the
//!   connection's first decrease, on any decrease in slow start and at a
//!   retransmission timeout (tcp.cc `slowdown`: `first_decrease_ == 1 ||
//!   slowstart || last_cwnd_action_ == CWND_ACTION_TIMEOUT` → `halfwin`;
//!   `TcpAgent::timeout` sets `CWND_ACTION_TIMEOUT` just before it calls
//!   `slowdown`): `ns2_first_decrease`.
//! - At or below Low_Window ns-2 does not halve either, once the window has
//!   been above it: `slowdown` stores each HighSpeed decrease b(cwnd) in
//!   `decrease_num_` (initially 0.5), and its standard branch, taken at
//!   `cwnd_ <= low_window_`, cuts to `decrease_num_ · w`, so a flow that
//!   fell back to a small window keeps b of its last large-window decrease
//!   (0.3-0.4 at a few hundred segments) instead of half: `ns2_decrease_num`.
//!   Every `slowdown` computes that value and, above Low_Window, stores b,
//!   a timeout's too; a timeout's ssthresh is still `halfwin` (above).
//!
//! `a_b = "table"` uses RFC 3649 Appendix B instead of the formulas, as Linux
//! (`tcp_highspeed.c`) and ns-3 do: 72 rows (w_i, b_i) with a = i + 1 on
//! `w_{i−1} < cwnd ≤ w_i`, the last row beyond w = 89,053, standard TCP at
//! or below w = 38. b is the RFC's two-decimal value; Linux keeps the same
//! rows as b·256 in whole numbers (e.g. 112/256 = 0.4375 for the RFC's 0.44).
//! The table ignores the response-line parameters (`low_window`, `low_p`, ...).
//! - Increase per ACK in congestion avoidance: `a(cwnd)/cwnd` (per unit; see
//!   `abc`), i.e. a(w) segments per RTT.
//!
//! Limited Slow-Start (RFC 3742): with `max_ssthresh > 0`, slow start above
//! `max_ssthresh` adds `1/K` per ACK, `K = int(cwnd/(max_ssthresh/2))`, at most
//! `max_ssthresh/2` segments per RTT, so one RTT of doubling at a huge window
//! cannot cause thousands of drops. Off by default (the RFC's "infinite");
//! the E-TCP paper's HSTCP and STCP runs use 100.
//!
//! `lss = "ns2"` applies it as ns-2.35 does (tcp.cc `opencwnd`, `case 8`,
//! and `limited_slow_start`; the papers' simulator), which differs from the
//! RFC in three ways:
//! - slow start is `cwnd < ssthresh` with +1 per ACK, and the first
//!   ssthresh is `min(window_, max_ssthresh_)` (`TcpAgent::reset`), so at
//!   cwnd = max_ssthresh the increase is already Limited Slow-Start's 1/K
//!   (RFC 3742 adds 1 while `cwnd <= max_ssthresh`): K = 2 there;
//! - Limited Slow-Start is the congestion-avoidance branch: the increase
//!   is `max(a(w)/w, 1/K)` with `K = int(cwnd/(max_ssthresh/2))` (none
//!   while K = 0), whatever ssthresh is;
//! - it applies while `last_cwnd_action_` is 0 or `CWND_ACTION_TIMEOUT`:
//!   before the first fast retransmission (or ECN reduction) and again
//!   from each timeout until the next one. After a timeout that set
//!   ssthresh below max_ssthresh/2 the window grows linearly to
//!   max_ssthresh/2, then by one segment per ACK to max_ssthresh.
use super::{
    abc_param, ack_units, max_ssthresh_param, slow_start_units, CcEvent, CcState, CongestionControl, ControllerDoc,
    ParamDoc,
};
use crate::scenario::{params::Params, ConfigError};
use crate::sim::math;

/// HighSpeed TCP's parameters (`cc_params`); `Default` is the one place the
/// defaults are written.
#[derive(Clone, Debug, PartialEq)]
pub struct HstcpConfig {
    /// Low_Window in segments: standard TCP at or below (RFC 3649 §5: 38).
    pub low_window: f64,
    /// High_Window in segments, the window at `high_p` (RFC 3649 §5: 83000).
    pub high_window: f64,
    /// High_P, the loss rate that gives High_Window (RFC 3649 §5: 10⁻⁷).
    pub high_p: f64,
    /// High_Decrease, b(High_Window), the fraction removed (RFC 3649 §5: 0.1).
    pub high_decrease: f64,
    /// Low_P, the loss rate at Low_Window (RFC 3649 §5: 10⁻³; ns-2 uses
    /// 1.5/Low_Window² ≈ 1.04·10⁻³).
    pub low_p: f64,
    /// RFC 3742 Limited Slow-Start threshold in segments; 0 = off, the RFC's
    /// "infinite" (the E-TCP paper uses 100).
    pub max_ssthresh: f64,
    /// Count segments acked (RFC 3465) instead of ACKs (ns-2, default).
    pub abc: bool,
    /// a(w), b(w) from RFC 3649 Appendix B's table instead of the formulas.
    pub table: bool,
    /// ns-2's halving on the first decrease and on decreases in slow start.
    pub ns2_first_decrease: bool,
    /// ns-2's `decrease_num_`: at or below Low_Window the window keeps the
    /// b(w) of the last decrease above it, not half (see the module doc).
    pub ns2_decrease_num: bool,
    /// Limited Slow-Start as ns-2's `opencwnd` applies it (`lss = "ns2"`,
    /// see the module doc) instead of RFC 3742's rule.
    pub ns2_lss: bool,
}

/// RFC 3649 Appendix B: the upper window w_i of row i (a = i + 1) and b(w)
/// to two decimals. Row 0 (w ≤ 38) is standard TCP.
const TABLE: [(u32, f64); 72] = [
    (38, 0.50),
    (118, 0.44),
    (221, 0.41),
    (347, 0.38),
    (495, 0.37),
    (663, 0.35),
    (851, 0.34),
    (1058, 0.33),
    (1284, 0.32),
    (1529, 0.31),
    (1793, 0.30),
    (2076, 0.29),
    (2378, 0.28),
    (2699, 0.28),
    (3039, 0.27),
    (3399, 0.27),
    (3778, 0.26),
    (4177, 0.26),
    (4596, 0.25),
    (5036, 0.25),
    (5497, 0.24),
    (5979, 0.24),
    (6483, 0.23),
    (7009, 0.23),
    (7558, 0.22),
    (8130, 0.22),
    (8726, 0.22),
    (9346, 0.21),
    (9991, 0.21),
    (10661, 0.21),
    (11358, 0.20),
    (12082, 0.20),
    (12834, 0.20),
    (13614, 0.19),
    (14424, 0.19),
    (15265, 0.19),
    (16137, 0.19),
    (17042, 0.18),
    (17981, 0.18),
    (18955, 0.18),
    (19965, 0.17),
    (21013, 0.17),
    (22101, 0.17),
    (23230, 0.17),
    (24402, 0.16),
    (25618, 0.16),
    (26881, 0.16),
    (28193, 0.16),
    (29557, 0.15),
    (30975, 0.15),
    (32450, 0.15),
    (33986, 0.15),
    (35586, 0.14),
    (37253, 0.14),
    (38992, 0.14),
    (40808, 0.14),
    (42707, 0.13),
    (44694, 0.13),
    (46776, 0.13),
    (48961, 0.13),
    (51258, 0.13),
    (53677, 0.12),
    (56230, 0.12),
    (58932, 0.12),
    (61799, 0.12),
    (64851, 0.11),
    (68113, 0.11),
    (71617, 0.11),
    (75401, 0.10),
    (79517, 0.10),
    (84035, 0.10),
    (89053, 0.10),
];

/// The table row for `w`: the first with w ≤ w_i, the last beyond it.
fn table_row(w: f64) -> usize {
    TABLE.partition_point(|&(wi, _)| (wi as f64) < w).min(TABLE.len() - 1)
}

impl Default for HstcpConfig {
    /// RFC 3649 §5 values, Limited Slow-Start off, ns-2 ACK counting.
    fn default() -> Self {
        HstcpConfig {
            low_window: 38.0,
            high_window: 83000.0,
            high_p: 1e-7,
            high_decrease: 0.1,
            low_p: 1e-3,
            max_ssthresh: 0.0,
            abc: false,
            table: false,
            ns2_first_decrease: false,
            ns2_decrease_num: false,
            ns2_lss: false,
        }
    }
}

pub struct HighSpeed {
    cfg: HstcpConfig,
    /// A decrease has happened (ns-2 `first_decrease_ == 0`).
    decreased: bool,
    /// ns-2's `decrease_num_` (`ns2_decrease_num`): b(cwnd) of the last
    /// decrease above Low_Window, 0.5 before any.
    decrease_num: f64,
    /// `lss = "ns2"`: ns-2's `last_cwnd_action_` is 0 or
    /// `CWND_ACTION_TIMEOUT`, so `opencwnd` applies Limited Slow-Start.
    lss_armed: bool,
    ln_low_w: f64,
    ln_span_w: f64,
    ln_low_p: f64,
    ln_span_p: f64,
}

impl HighSpeed {
    pub fn new(cfg: HstcpConfig) -> Self {
        HighSpeed {
            ln_low_w: math::ln(cfg.low_window),
            ln_span_w: math::ln(cfg.high_window) - math::ln(cfg.low_window),
            ln_low_p: math::ln(cfg.low_p),
            ln_span_p: math::ln(cfg.high_p) - math::ln(cfg.low_p),
            decreased: false,
            decrease_num: 0.5,
            lss_armed: true,
            cfg,
        }
    }

    pub fn doc() -> ControllerDoc {
        let d = HstcpConfig::default();
        ControllerDoc {
            name: "hstcp",
            doc: "HighSpeed TCP (RFC 3649): a(w)/w per ACK, cut b(w)·w; Limited Slow-Start (RFC 3742)",
            params: vec![
                ParamDoc {
                    name: "low_window",
                    default: d.low_window.into(),
                    doc: "segments; standard TCP at or below",
                },
                ParamDoc { name: "high_window", default: d.high_window.into(), doc: "segments; window at high_p" },
                ParamDoc { name: "high_p", default: d.high_p.into(), doc: "loss rate that gives high_window" },
                ParamDoc {
                    name: "high_decrease",
                    default: d.high_decrease.into(),
                    doc: "b(high_window), fraction removed",
                },
                ParamDoc {
                    name: "low_p",
                    default: d.low_p.into(),
                    doc: "loss rate at low_window (RFC 1e-3; ns-2 uses 1.5/low_window^2)",
                },
                max_ssthresh_param(d.max_ssthresh),
                abc_param(d.abc),
                ParamDoc {
                    name: "a_b",
                    default: "formula".into(),
                    doc: "formula (RFC 3649 §5, ns-2) | table (RFC 3649 Appendix B, Linux, ns-3)",
                },
                ParamDoc {
                    name: "ns2_first_decrease",
                    default: d.ns2_first_decrease.into(),
                    doc: "halve on the first decrease, in slow start and at a timeout (ns-2 slowdown)",
                },
                ParamDoc {
                    name: "ns2_decrease_num",
                    default: d.ns2_decrease_num.into(),
                    doc: "at or below low_window keep b of the last decrease above it, not half (ns-2 slowdown's \
                          decrease_num_)",
                },
                ParamDoc {
                    name: "lss",
                    default: "rfc3742".into(),
                    doc: "rfc3742 (+1 per ACK while cwnd <= max_ssthresh, then 1/K) | ns2 (tcp.cc opencwnd: \
                          first ssthresh max_ssthresh, then max(a(w)/w, 1/K) until a fast retransmit, again \
                          after a timeout)",
                },
            ],
        }
    }

    pub fn from_params(p: &serde_json::Map<String, serde_json::Value>, path: &str) -> Result<Self, ConfigError> {
        let d = HstcpConfig::default();
        let base = format!("{path}.cc_params");
        let mut p = Params::new(p, &base);
        let low_window = p.f64_in("low_window", d.low_window, 1.0, 1e9)?;
        let high_window = p.f64_in("high_window", d.high_window, 1.0, 1e12)?;
        let high_p = p.f64_in("high_p", d.high_p, 1e-15, 1.0)?;
        let high_decrease = p.f64_in("high_decrease", d.high_decrease, 0.001, 0.5)?;
        let low_p = p.f64_in("low_p", d.low_p, 1e-15, 1.0)?;
        let max_ssthresh = p.f64_in("max_ssthresh", d.max_ssthresh, 0.0, 1e12)?;
        let abc = p.bool("abc", d.abc)?;
        let table = p.choice("a_b", "formula", &["formula", "table"])? == "table";
        let ns2_first_decrease = p.bool("ns2_first_decrease", d.ns2_first_decrease)?;
        let ns2_decrease_num = p.bool("ns2_decrease_num", d.ns2_decrease_num)?;
        let ns2_lss = p.choice("lss", "rfc3742", &["rfc3742", "ns2"])? == "ns2";
        p.finish()?;
        if ns2_decrease_num && table {
            return Err(ConfigError::new(
                format!("{base}.ns2_decrease_num"),
                "true is not allowed with a_b = \"table\" (ns-2's decrease_num_ is its formula's b(w)); use a_b = \"formula\"",
            ));
        }
        if ns2_lss && abc {
            return Err(ConfigError::new(
                format!("{base}.lss"),
                "\"ns2\" is not allowed with abc = true (ns-2's opencwnd counts ACKs); use \"rfc3742\" or abc = false",
            ));
        }
        if high_window <= low_window {
            return Err(ConfigError::new(
                format!("{base}.high_window"),
                format!("{high_window} is not allowed; must exceed low_window ({low_window})"),
            ));
        }
        if high_p >= low_p {
            return Err(ConfigError::new(
                format!("{base}.high_p"),
                format!("{high_p} is not allowed; must be below low_p ({low_p})"),
            ));
        }
        Ok(HighSpeed::new(HstcpConfig {
            low_window,
            high_window,
            high_p,
            high_decrease,
            low_p,
            max_ssthresh,
            abc,
            table,
            ns2_first_decrease,
            ns2_decrease_num,
            ns2_lss,
        }))
    }

    /// `lss = "ns2"`: ns-2.35's `TcpAgent::opencwnd` with `windowOption_ 8`
    /// once per ACK: +1 below ssthresh, else HighSpeed's `increase_param()`
    /// (a(w)/w) raised to `limited_slow_start`'s 1/K while armed. Until the
    /// first decrease ssthresh is at most max_ssthresh, as `TcpAgent::reset`
    /// sets `ssthresh_ = min(window_, max_ssthresh_)`.
    fn ns2_opencwnd(&mut self, s: &mut CcState, acked: u64) {
        let m = self.cfg.max_ssthresh;
        let ssthresh = if self.decreased || m <= 0.0 { s.ssthresh } else { s.ssthresh.min(m) };
        for _ in 0..ack_units(false, s, acked) {
            if s.cwnd < ssthresh {
                s.cwnd += 1.0;
                continue;
            }
            let mut inc = self.a(s.cwnd) / s.cwnd.max(1.0);
            if self.lss_armed && m > 0.0 {
                // int(cwnd / (double(max_ssthresh)/2.0)); no bound while 0
                let round = (s.cwnd / (m / 2.0)).floor();
                if round > 0.0 {
                    inc = inc.max(1.0 / round);
                }
            }
            s.cwnd += inc;
        }
    }

    /// The window the response function is evaluated at (held at High_Window).
    fn eval_w(&self, w: f64) -> f64 {
        w.min(self.cfg.high_window)
    }

    /// Loss rate p(w) on the response line (RFC 3649 §5).
    pub fn p(&self, w: f64) -> f64 {
        let w = self.eval_w(w.max(self.cfg.low_window));
        self.p_at(math::ln(w) - self.ln_low_w)
    }

    /// p at `lw` = ln(w) − ln(Low_Window), w on the response line.
    #[inline]
    fn p_at(&self, lw: f64) -> f64 {
        math::exp(self.ln_low_p + lw * self.ln_span_p / self.ln_span_w)
    }

    /// Decrease fraction b(w): 0.5 at or below Low_Window.
    pub fn b(&self, w: f64) -> f64 {
        if self.cfg.table {
            return TABLE[table_row(w)].1;
        }
        if w <= self.cfg.low_window {
            return 0.5;
        }
        self.b_at(math::ln(self.eval_w(w)) - self.ln_low_w)
    }

    /// b at `lw` = ln(w) − ln(Low_Window), w above Low_Window.
    #[inline]
    fn b_at(&self, lw: f64) -> f64 {
        (self.cfg.high_decrease - 0.5) * lw / self.ln_span_w + 0.5
    }

    /// Increase a(w) in segments per RTT: 1 at or below Low_Window, never
    /// below 1. Runs on every ACK in congestion avoidance, so b and p share
    /// one logarithm (the same value each would compute: results are
    /// unchanged).
    pub fn a(&self, w: f64) -> f64 {
        if self.cfg.table {
            return (table_row(w) + 1) as f64;
        }
        if w <= self.cfg.low_window {
            return 1.0;
        }
        let we = self.eval_w(w);
        let lw = math::ln(we) - self.ln_low_w;
        let b = self.b_at(lw);
        (we * we * self.p_at(lw) * 2.0 * b / (2.0 - b)).max(1.0)
    }

    /// The decreased window of [`CongestionControl::ssthresh`]; `timeout`:
    /// halve as ns-2's `slowdown` does with `CWND_ACTION_TIMEOUT`.
    fn decrease(&mut self, s: &CcState, timeout: bool) -> f64 {
        let halve = timeout || (self.cfg.ns2_first_decrease && (!self.decreased || s.cwnd < s.ssthresh));
        self.decreased = true;
        let kept = if !self.cfg.ns2_decrease_num {
            1.0 - self.b(s.cwnd)
        } else if s.cwnd > self.cfg.low_window {
            self.decrease_num = self.b(s.cwnd);
            1.0 - self.decrease_num
        } else {
            self.decrease_num
        };
        let w = s.cwnd * if halve { 0.5 } else { kept };
        if self.cfg.ns2_decrease_num {
            w
        } else {
            w.max(2.0)
        }
    }
}

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        "hstcp"
    }

    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        if self.cfg.ns2_lss {
            return self.ns2_opencwnd(s, acked);
        }
        let n = slow_start_units(self.cfg.abc, s, acked, self.cfg.max_ssthresh);
        if n > 0 {
            s.cwnd += n as f64 * self.a(s.cwnd) / s.cwnd.max(1.0);
        }
    }

    /// `lss = "ns2"`: ns-2's `last_cwnd_action_` (`CWND_ACTION_DUPACK` at a
    /// fast retransmission, `CWND_ACTION_ECN`, `CWND_ACTION_TIMEOUT`).
    fn on_event(&mut self, _s: &mut CcState, ev: CcEvent) {
        match ev {
            CcEvent::RecoveryStart | CcEvent::EcnEcho => self.lss_armed = false,
            CcEvent::Timeout => self.lss_armed = true,
            // ns-2 keeps `last_cwnd_action_` until the next reduction
            CcEvent::RecoveryEnd | CcEvent::LossEnd | CcEvent::CwrEnd | CcEvent::TxStart | CcEvent::Undo => {}
        }
    }

    /// RFC 3649: the window becomes (1 − b(cwnd))·cwnd; halve at or below
    /// Low_Window (and, with `ns2_first_decrease`, on the first decrease and
    /// in slow start). With `ns2_decrease_num`, as ns-2's `slowdown`: a
    /// decrease above Low_Window stores its b in `decrease_num_` (also when
    /// the first-decrease rule then halves), and one at or below it keeps
    /// `decrease_num_ · w`; the value is then not floored at 2 (ns-2 floors
    /// `ssthresh_` only, and `recovery = "sack1"` takes it as `cwnd_`), so
    /// callers floor ssthresh.
    fn ssthresh(&mut self, s: &CcState) -> f64 {
        self.decrease(s, false)
    }

    /// A timeout: with `ns2_first_decrease` ssthresh halves (ns-2's
    /// `slowdown` after `TcpAgent::timeout` set `CWND_ACTION_TIMEOUT`),
    /// while the decrease still counts as one and, above Low_Window,
    /// stores b(cwnd) in `decrease_num_` (the module doc).
    fn ssthresh_rto(&mut self, s: &CcState) -> f64 {
        self.decrease(s, self.cfg.ns2_first_decrease)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::cc::test_state as st;

    #[test]
    fn standard_tcp_at_and_below_low_window() {
        let h = HighSpeed::new(HstcpConfig::default());
        for w in [1.0, 10.0, 38.0] {
            assert_eq!(h.a(w), 1.0);
            assert_eq!(h.b(w), 0.5);
        }
    }

    /// RFC 3649 Appendix B rows (w, a, b): the formulas agree with the table to
    /// its rounding (a to within 0.2, b to two decimals) up to w ≈ 5000.
    #[test]
    fn a_and_b_match_rfc3649_table_rows() {
        let h = HighSpeed::new(HstcpConfig::default());
        let rows = [
            (118.0, 2.0, 0.44),
            (221.0, 3.0, 0.41),
            (347.0, 4.0, 0.38),
            (495.0, 5.0, 0.37),
            (663.0, 6.0, 0.35),
            (851.0, 7.0, 0.34),
            (1058.0, 8.0, 0.33),
            (1284.0, 9.0, 0.32),
            (1529.0, 10.0, 0.31),
        ];
        for (w, a, b) in rows {
            assert!((h.a(w) - a).abs() < 0.2, "a({w}) = {}", h.a(w));
            assert!((h.b(w) - b).abs() <= 0.005 + 1e-9, "b({w}) = {}", h.b(w));
        }
    }

    /// The reference's sanity table (computed from the RFC formulas, Low_P = 1e-3).
    #[test]
    fn a_b_p_at_reference_points() {
        let h = HighSpeed::new(HstcpConfig::default());
        let rows = [(1000.0, 2.0e-5, 0.33, 7.9), (10000.0, 1.3e-6, 0.21, 29.6), (83000.0, 1.0e-7, 0.10, 72.5)];
        for (w, p, b, a) in rows {
            assert!((h.p(w) / p - 1.0).abs() < 0.05, "p({w}) = {}", h.p(w));
            assert!((h.b(w) - b).abs() < 0.005, "b({w}) = {}", h.b(w));
            assert!((h.a(w) - a).abs() < 0.06, "a({w}) = {}", h.a(w));
        }
        // The response line: w = 0.12 / p^0.835 within a few percent.
        for w in [100.0, 1000.0, 10000.0] {
            let wr = 0.12 / math::powf(h.p(w), 0.835);
            assert!((wr / w - 1.0).abs() < 0.05, "w {w} vs response {wr}");
        }
        // Held at High_Window beyond it.
        assert_eq!(h.b(200000.0), h.b(83000.0));
        assert_eq!(h.a(200000.0), h.a(83000.0));
    }

    #[test]
    fn increase_is_a_per_rtt_and_decrease_keeps_one_minus_b() {
        let mut h = HighSpeed::new(HstcpConfig::default());
        let mut s = st(1000.0, 10.0);
        let a = h.a(1000.0);
        for _ in 0..1000 {
            h.cong_avoid(&mut s, 1);
        }
        assert!((s.cwnd - 1000.0 - a).abs() < 0.1, "cwnd {} a {a}", s.cwnd);
        let s = st(1000.0, 1e9);
        assert!((h.ssthresh(&s) - 1000.0 * (1.0 - h.b(1000.0))).abs() < 1e-9);
        assert!((h.ssthresh(&st(83000.0, 1e9)) - 74700.0).abs() < 1.0);
        assert_eq!(h.ssthresh(&st(30.0, 1e9)), 15.0);
        assert_eq!(h.ssthresh(&st(3.0, 1e9)), 2.0);
    }

    #[test]
    fn limited_slow_start_grows_at_most_half_max_ssthresh_per_rtt() {
        let mut h = HighSpeed::new(HstcpConfig { max_ssthresh: 100.0, ..Default::default() });
        // Below max_ssthresh: standard doubling.
        let mut s = st(50.0, 1e9);
        for _ in 0..50 {
            h.cong_avoid(&mut s, 1);
        }
        assert_eq!(s.cwnd, 100.0);
        // Above it: one window of ACKs adds at most max_ssthresh/2 = 50.
        for w0 in [200.0, 1000.0, 5000.0] {
            let mut s = st(w0, 1e9);
            for _ in 0..(w0 as usize) {
                h.cong_avoid(&mut s, 1);
            }
            let g = s.cwnd - w0;
            assert!(g <= 50.0 + 1e-6 && g > 40.0, "w0 {w0}: grew {g}");
        }
        // Off (max_ssthresh = 0): doubling.
        let mut h = HighSpeed::new(HstcpConfig::default());
        let mut s = st(1000.0, 1e9);
        for _ in 0..1000 {
            h.cong_avoid(&mut s, 1);
        }
        assert_eq!(s.cwnd, 2000.0);
    }

    /// `lss = "ns2"`, ns-2.35's `opencwnd` (`windowOption_ 8`) and
    /// `limited_slow_start` with `max_ssthresh_ 100`: +1 below the first
    /// ssthresh min(window, 100), so at cwnd = 100 already +1/K with
    /// K = int(100/50) = 2 (RFC 3742, the default, still adds 1 there);
    /// the larger of HighSpeed's a(w)/w and 1/K until a fast
    /// retransmission, again after a timeout (also between ssthresh and
    /// max_ssthresh: +1 per ACK from max_ssthresh/2 on).
    #[test]
    fn ns2_limited_slow_start_follows_opencwnd() {
        let cfg = HstcpConfig {
            max_ssthresh: 100.0,
            low_p: 1.5 / (38.0 * 38.0),
            ns2_first_decrease: true,
            ..Default::default()
        };
        let mut ns2 = HighSpeed::new(HstcpConfig { ns2_lss: true, ..cfg.clone() });
        let mut rfc = HighSpeed::new(cfg);
        let (mut a, mut b) = (st(99.0, 1e9), st(99.0, 1e9));
        for want in [100.0, 100.5, 101.0] {
            ns2.cong_avoid(&mut a, 1);
            assert_eq!(a.cwnd, want);
        }
        for want in [100.0, 101.0, 101.5] {
            rfc.cong_avoid(&mut b, 1);
            assert_eq!(b.cwnd, want, "RFC 3742: +1 while cwnd <= max_ssthresh");
        }
        // K = int(cwnd/50): 1/3 at 150, and HighSpeed's a(w)/w where larger
        let mut s = st(150.0, 1e9);
        ns2.cong_avoid(&mut s, 1);
        assert!((s.cwnd - (150.0 + 1.0 / 3.0)).abs() < 1e-12, "{}", s.cwnd);
        let w = 40_000.0;
        let mut s = st(w, 1e9);
        ns2.cong_avoid(&mut s, 1);
        assert!(ns2.a(w) / w > 1.0 / 800.0);
        assert!((s.cwnd - w - ns2.a(w) / w).abs() < 1e-9, "a(w)/w = {} beats 1/800", ns2.a(w) / w);
        // a fast retransmission disarms it: HighSpeed's increase alone
        let mut s = st(200.0, 1e9);
        s.ssthresh = ns2.ssthresh(&s);
        ns2.on_event(&mut s, CcEvent::RecoveryStart);
        assert_eq!(s.ssthresh, 100.0, "ns-2 halves the first decrease");
        ns2.cong_avoid(&mut s, 1);
        assert!((s.cwnd - 200.0 - ns2.a(200.0) / 200.0).abs() < 1e-12, "{}", s.cwnd);
        // a timeout arms it again, whatever ssthresh is: linear below
        // max_ssthresh/2 (K = 0), +1 per ACK up to max_ssthresh (K = 1)
        ns2.on_event(&mut s, CcEvent::Timeout);
        for (w, inc) in [(30.0, 1.0 / 30.0), (60.0, 1.0), (100.0, 0.5)] {
            let mut s = st(w, 20.0);
            ns2.cong_avoid(&mut s, 1);
            assert!((s.cwnd - w - inc).abs() < 1e-12, "cwnd {w}: +{}", s.cwnd - w);
        }
        // below ssthresh: +1, however large the window
        let mut s = st(400.0, 500.0);
        ns2.cong_avoid(&mut s, 1);
        assert_eq!(s.cwnd, 401.0);
    }

    #[test]
    fn table_mode_follows_rfc3649_appendix_b() {
        let h = HighSpeed::new(HstcpConfig { table: true, ..Default::default() });
        // row boundaries: w_{i-1} < w <= w_i gives a = i + 1
        for (w, a, b) in [
            (1.0, 1.0, 0.5),
            (38.0, 1.0, 0.5),
            (38.5, 2.0, 0.44),
            (118.0, 2.0, 0.44),
            (119.0, 3.0, 0.41),
            (84035.0, 71.0, 0.10),
            (89053.0, 72.0, 0.10),
            (1e6, 72.0, 0.10),
        ] {
            assert_eq!((h.a(w), h.b(w)), (a, b), "w = {w}");
        }
        // a rises by one per row and b never rises; the rows drift from the
        // formula at large w (the reason the formula is the default)
        assert!(TABLE.windows(2).all(|r| r[0].0 < r[1].0 && r[0].1 >= r[1].1));
        let f = HighSpeed::new(HstcpConfig::default());
        assert!(f.a(84035.0) - h.a(84035.0) > 1.0, "formula {} table {}", f.a(84035.0), h.a(84035.0));
        let mut s = st(1000.0, 10.0);
        let mut hh = HighSpeed::new(HstcpConfig { table: true, ..Default::default() });
        for _ in 0..1000 {
            hh.cong_avoid(&mut s, 1);
        }
        assert!((s.cwnd - 1008.0).abs() < 0.1, "a(1000) = 8 per RTT: {}", s.cwnd);
        assert!((hh.ssthresh(&st(1000.0, 10.0)) - 670.0).abs() < 1e-9);
    }

    #[test]
    fn ns2_first_decrease_halves_first_and_in_slow_start() {
        let mut h = HighSpeed::new(HstcpConfig { ns2_first_decrease: true, ..Default::default() });
        let b = h.b(1000.0);
        assert_eq!(h.ssthresh(&st(1000.0, 1e9)), 500.0, "first decrease");
        assert!((h.ssthresh(&st(1000.0, 500.0)) - 1000.0 * (1.0 - b)).abs() < 1e-9, "then b(w)");
        assert_eq!(h.ssthresh(&st(1000.0, 2000.0)), 500.0, "in slow start");
        let mut plain = HighSpeed::new(HstcpConfig::default());
        assert!((plain.ssthresh(&st(1000.0, 1e9)) - 1000.0 * (1.0 - b)).abs() < 1e-9);
    }

    #[test]
    fn ns2_decrease_num_keeps_the_last_large_window_b_at_small_windows() {
        // ns-2.35 tcp.cc `slowdown` (precisionReduce_ true, windowOption_ 8):
        // above low_window_ the window keeps (1 - b(cwnd)) and decrease_num_
        // becomes b(cwnd); at or below it the window keeps decrease_num_.
        let cfg = HstcpConfig { ns2_decrease_num: true, ..Default::default() };
        let mut h = HighSpeed::new(cfg.clone());
        assert_eq!(h.ssthresh(&st(30.0, 1e9)), 15.0, "decrease_num_ starts at 0.5");
        let b = h.b(1000.0);
        assert!(b > 0.3 && b < 0.4, "b(1000) = {b}");
        assert!((h.ssthresh(&st(1000.0, 1e9)) - 1000.0 * (1.0 - b)).abs() < 1e-9);
        assert!((h.ssthresh(&st(30.0, 1e9)) - 30.0 * b).abs() < 1e-9, "30 keeps b(1000), not half");
        assert!((h.ssthresh(&st(4.0, 1e9)) - 4.0 * b).abs() < 1e-9, "not floored: ns-2 floors ssthresh_ only");
        let b200 = h.b(200.0);
        h.ssthresh(&st(200.0, 1e9));
        assert!((h.ssthresh(&st(20.0, 1e9)) - 20.0 * b200).abs() < 1e-9, "the last decrease above counts");
        // The first-decrease rule halves, but decrease_num_ is still set.
        let mut f = HighSpeed::new(HstcpConfig { ns2_first_decrease: true, ..cfg });
        assert_eq!(f.ssthresh(&st(1000.0, 1e9)), 500.0);
        assert!((f.ssthresh(&st(30.0, 10.0)) - 30.0 * b).abs() < 1e-9);
        assert_eq!(f.ssthresh(&st(30.0, 40.0)), 15.0, "in slow start it halves");
        // Without the option a small window halves whatever came before.
        let mut plain = HighSpeed::new(HstcpConfig::default());
        plain.ssthresh(&st(1000.0, 1e9));
        assert_eq!(plain.ssthresh(&st(30.0, 1e9)), 15.0);
    }

    #[test]
    fn ns2_first_decrease_halves_at_a_timeout() {
        // ns-2.35 tcp.cc: `TcpAgent::timeout` sets `last_cwnd_action_ =
        // CWND_ACTION_TIMEOUT`, then `slowdown(CLOSE_SSTHRESH_HALF | ...)`
        // takes `halfwin` on it; `decreasewin` (and decrease_num_) is still
        // computed.
        let cfg = HstcpConfig { ns2_first_decrease: true, ns2_decrease_num: true, ..Default::default() };
        let mut h = HighSpeed::new(cfg.clone());
        h.ssthresh(&st(200.0, 100.0));
        assert_eq!(h.ssthresh_rto(&st(1000.0, 500.0)), 500.0, "not (1 - b(1000))·1000");
        let b = h.b(1000.0);
        assert!((h.ssthresh(&st(30.0, 15.0)) - 30.0 * b).abs() < 1e-9, "the timeout stored b(1000)");
        assert_eq!(h.ssthresh_rto(&st(30.0, 15.0)), 15.0, "not b(1000)·30");
        // the timeout is a decrease: the next one is not the first
        let mut f = HighSpeed::new(cfg);
        f.ssthresh_rto(&st(1000.0, 1e9));
        assert!((f.ssthresh(&st(1000.0, 500.0)) - 1000.0 * (1.0 - b)).abs() < 1e-9);
        // without ns2_first_decrease a timeout is the loss rule
        let mut plain = HighSpeed::new(HstcpConfig::default());
        assert!((plain.ssthresh_rto(&st(1000.0, 500.0)) - 1000.0 * (1.0 - b)).abs() < 1e-9);
    }

    #[test]
    fn params_are_checked() {
        let m = |j: &str| serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(j).unwrap();
        assert!(HighSpeed::from_params(&m("{}"), "flows[0]").is_ok());
        let e = HighSpeed::from_params(&m(r#"{"high_window": 10}"#), "flows[0]").err().unwrap();
        assert_eq!(e.field, "flows[0].cc_params.high_window");
        let e = HighSpeed::from_params(&m(r#"{"high_decrease": 0.9}"#), "flows[0]").err().unwrap();
        assert_eq!(e.field, "flows[0].cc_params.high_decrease");
        assert!(e.msg.contains("0.9"), "{}", e.msg);
        let e = HighSpeed::from_params(&m(r#"{"a_b": "linux"}"#), "flows[0]").err().unwrap();
        assert_eq!(e.field, "flows[0].cc_params.a_b");
        assert!(e.msg.contains("formula, table"), "{}", e.msg);
        let t = HighSpeed::from_params(&m(r#"{"a_b": "table", "ns2_first_decrease": true}"#), "f").unwrap();
        assert!(t.cfg.table && t.cfg.ns2_first_decrease);
        let e = HighSpeed::from_params(&m(r#"{"lss": "ns-2"}"#), "flows[0]").err().unwrap();
        assert_eq!(e.field, "flows[0].cc_params.lss");
        assert!(e.msg.contains("ns-2") && e.msg.contains("rfc3742, ns2"), "{}", e.msg);
        let e = HighSpeed::from_params(&m(r#"{"lss": "ns2", "abc": true}"#), "flows[0]").err().unwrap();
        assert_eq!(e.field, "flows[0].cc_params.lss");
        assert!(HighSpeed::from_params(&m(r#"{"lss": "ns2"}"#), "f").unwrap().cfg.ns2_lss);
        let e = HighSpeed::from_params(&m(r#"{"ns2_decrease_num": true, "a_b": "table"}"#), "flows[0]").err().unwrap();
        assert_eq!(e.field, "flows[0].cc_params.ns2_decrease_num");
        assert!(e.msg.contains("table"), "{}", e.msg);
        let e = HighSpeed::from_params(&m(r#"{"ns2_decrease_num": 1}"#), "flows[0]").err().unwrap();
        assert_eq!(e.field, "flows[0].cc_params.ns2_decrease_num");
        assert!(HighSpeed::from_params(&m(r#"{"ns2_decrease_num": true}"#), "f").unwrap().cfg.ns2_decrease_num);
    }
}
