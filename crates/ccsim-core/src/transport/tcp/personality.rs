//! TCP personalities (`tcp_model`): which TCP a flow's defaults describe.
//!
//! A personality is a set of defaults, not a mode the code branches on:
//! it decides the value of every TCP field the flow leaves out, and a
//! field the flow gives always wins, so a researcher can name ns-2.35 and
//! then switch one of its rules off to see what that rule changes.
//!
//! - `rfc` (the default): the TCP of the RFCs, RFC 5681 congestion
//!   control, RFC 6675 SACK recovery (RFC 6582 NewReno and Reno on
//!   request), RFC 6928's initial window of 10, RFC 5681 §4.2 delayed
//!   ACKs timed as Linux does, RFC 6298 RTO, RFC 3042 Limited Transmit,
//!   RFC 3168 ECN ([`super::defaults`]).
//! - `ns2`: the agents of ns-2.35, the papers' simulator, as ccsim
//!   follows them event for event (docs/tcp-models.md lists each rule
//!   with its ns-2 source): `rtt_estimator = "ns2"` (one timed segment
//!   per RTT, whole ticks), `init_rto_s = 3` (`rtxcur_init_`),
//!   `halve_on_repeated_rto` and `ns2_bugfix` (`bug_fix_`), one ACK per
//!   segment (`Agent/TCPSink`; with `delayed_ack`, `DelAckSink`'s fixed
//!   timer), `init_cwnd_pkts = 2` (`windowInit_`), NewReno recovery
//!   (`Agent/TCP/Newreno`, the papers' baseline),
//!   the SYN as segment 0 (`syn_`, `delay_growth_`); with Reno or NewReno
//!   recovery the agents' window (`ns2_dupwnd`), `singledup_`
//!   (`ns2_singledup`) and timer (`ns2_idle_restart`); the RTO backoff
//!   ended only by the timed segment's ACK (`ns2_timed_backoff`, what a
//!   flow with `rtt_estimator = "rfc6298"`, ns-2's timestamps, needs; the
//!   `ns2` estimator has it built in); `recovery =
//!   "sack"` as ns-2's `Agent/TCP/Sack1` (`sack1`) where that agent runs
//!   (unpaced, without ECN); Reno's slow start as `opencwnd`
//!   (`cc_params.slow_start = "ns2"`), HighSpeed's decreases and Limited
//!   Slow-Start as ns-2's (`ns2_first_decrease`, `ns2_decrease_num`,
//!   `lss = "ns2"`; not with `abc`); an ECN flow's retransmissions ECT
//!   (`ecn_retransmit_ect`) and, with Reno, ns-2's ECE halving
//!   (`ecn_response = "ns2"`).
//!
//! - `linux`: Linux 6.x's TCP (`net/ipv4/`, the kernel's defaults:
//!   `tcp_recovery = 1`, `tcp_early_retrans = 3`), each rule a field a
//!   flow may switch off: SACK recovery with PRR (`tcp_cwnd_reduction`),
//!   `slow_start_after_idle` (`tcp_cwnd_restart`),
//!   `rack`, `tlp` and `rto_rack_mark` (`tcp_recovery.c`,
//!   `tcp_send_loss_probe`, `tcp_timeout_mark_lost`), `rtt_estimator =
//!   "linux"` (`tcp_rtt_estimator`, `tcp_set_rto`) with `TCP_RTO_MIN` 200
//!   ms, `TCP_TIMEOUT_INIT` 1 s and `TCP_RTO_MAX` 120 s, `cwnd_limited =
//!   "linux"` (`tcp_is_cwnd_limited`), IW 10, delayed ACKs as Linux's
//!   receiver (`delack_model = "linux"`) with its SACK compression
//!   (`sack_compression`), SACK blocks in the ACK's bytes
//!   (`sack_option = "linux"`), and CUBIC (`tcp_cubic.c`: β = 717/1024,
//!   HyStart, `cnt` clamped to 20 before the first loss) as the default
//!   controller; a Reno flow gets `tcp_cong.c`'s Reno in whole segments
//!   (`variant = "linux"`).
//!
//! ns-2's order of simultaneous events is a property of the network, not
//! of a flow: it is the queues' `ties` and the scenario's `ns2_clock`
//! (docs/scenario.md).
use super::{DelackModel, EcnResponse, PacingKind, Recovery, RttEstimatorKind, Syn};
use crate::scenario::FlowSpec;
use serde_json::Value;

/// ns-2.35's `rtxcur_init_`: the RTO before the first sample.
pub const NS2_INIT_RTO_S: f64 = 3.0;

/// Fill the fields of an `ns2` flow that it leaves out with ns-2.35's
/// values; the RFC defaults then fill the rest.
pub fn fill_ns2(f: &mut FlowSpec) {
    f.rtt_estimator.get_or_insert(RttEstimatorKind::Ns2);
    f.init_rto_s.get_or_insert(NS2_INIT_RTO_S);
    f.halve_on_repeated_rto.get_or_insert(true);
    f.ns2_bugfix.get_or_insert(true);
    f.recovery.get_or_insert(Recovery::NewReno);
    f.delayed_ack.get_or_insert(false);
    f.delack_model.get_or_insert(DelackModel::Fixed);
    f.init_cwnd_pkts.get_or_insert(2.0);
    f.limited_transmit.get_or_insert(true);
    f.syn.get_or_insert(Syn::Ns2);
    let ecn = f.ecn.unwrap_or(false);
    let paced = f.pacing.is_some_and(|p| p != PacingKind::None);
    if f.recovery == Some(Recovery::Sack) && !paced && !ecn {
        f.recovery = Some(Recovery::Sack1);
    }
    let reno_family = matches!(f.recovery, Some(Recovery::Reno | Recovery::NewReno));
    f.ns2_dupwnd.get_or_insert(reno_family);
    f.ns2_singledup.get_or_insert(reno_family);
    f.ns2_idle_restart.get_or_insert(reno_family);
    f.ns2_timed_backoff.get_or_insert(true);
    let cc = f.cc.clone().unwrap_or_else(|| super::defaults::CC.to_string());
    if ecn {
        f.ecn_retransmit_ect.get_or_insert(true);
        if cc == "reno" {
            f.ecn_response.get_or_insert(EcnResponse::Ns2);
        }
    }
    let params = f.cc_params.get_or_insert_with(Default::default);
    let abc = params.get("abc").is_some_and(|v| v != &Value::Bool(false));
    let mut default = |k: &str, v: Value| {
        params.entry(k).or_insert(v);
    };
    match cc.as_str() {
        "reno" if !abc => default("slow_start", Value::from("ns2")),
        "hstcp" => {
            default("ns2_first_decrease", Value::Bool(true));
            default("ns2_decrease_num", Value::Bool(true));
            if !abc {
                default("lss", Value::from("ns2"));
            }
        }
        _ => {}
    }
}

/// CONFIG_HZ of the kernel the personality follows (the jiffy of its
/// timers, and CUBIC's `hz`).
pub const LINUX_HZ: u32 = 250;

/// Fill the fields of a `linux` flow that it leaves out with Linux 6.x's
/// values (the kernel's defaults); the RFC defaults then fill the rest.
pub fn fill_linux(f: &mut FlowSpec) {
    f.recovery.get_or_insert(Recovery::Sack);
    let sack = f.recovery == Some(Recovery::Sack);
    f.rack.get_or_insert(sack);
    // net.ipv4.tcp_slow_start_after_idle = 1, the kernel's default
    f.slow_start_after_idle.get_or_insert(true);
    f.tlp.get_or_insert(sack);
    f.rto_rack_mark.get_or_insert(sack);
    // net.ipv4.tcp_dsack = 1, tcp_frto = 2, tcp_timestamps = 1
    f.dsack.get_or_insert(sack);
    let undo = *f.undo.get_or_insert(f.rack == Some(true));
    f.frto.get_or_insert(undo);
    f.timestamps.get_or_insert(true);
    f.reno_sack.get_or_insert(matches!(f.recovery, Some(Recovery::Reno | Recovery::NewReno)));
    f.rtt_estimator.get_or_insert(RttEstimatorKind::Linux);
    f.min_rto_s.get_or_insert(0.2);
    // the kernel's timers count jiffies: CONFIG_HZ = 250 (Debian's kernels
    // and this project's peer machines), 4 ms
    f.clock_granularity_s.get_or_insert(1.0 / LINUX_HZ as f64);
    f.init_rto_s.get_or_insert(1.0);
    f.max_rto_s.get_or_insert(120.0);
    f.init_cwnd_pkts.get_or_insert(10.0);
    // `tcp_connect`: the SYN-ACK gives the first RTT sample (ns-2's Sack1
    // agent, if a flow names it, keeps its own send state and has none)
    let sack1 = f.recovery == Some(Recovery::Sack1);
    f.syn.get_or_insert(if sack1 { Syn::None } else { Syn::Linux });
    f.delayed_ack.get_or_insert(true);
    f.delack_model.get_or_insert(DelackModel::Linux);
    // net.ipv4.tcp_comp_sack_nr = 44: SACK compression on, where its
    // receiver is Linux's
    let linux_rx = f.delayed_ack == Some(true) && f.delack_model == Some(DelackModel::Linux);
    f.sack_compression.get_or_insert(sack && linux_rx);
    f.limited_transmit.get_or_insert(true);
    let cc = f.cc.get_or_insert_with(|| "cubic".to_string()).clone();
    let rate = super::cc::registry::needs(&cc).pacing_rate;
    // BBR's cong_control bypasses PRR (`tcp_cong_control`).
    f.prr.get_or_insert(sack && !rate);
    if sack {
        f.sack_option.get_or_insert(super::SackOption::Linux);
    }
    // (ns-2's Sack1 agent, if a flow names it, grows its window on
    // every ACK and takes no such rule)
    if f.recovery != Some(Recovery::Sack1) {
        f.cwnd_limited.get_or_insert(super::CwndLimited::Linux);
    }
    // Linux sends GSO packets of ~1 ms of data (`tcp_tso_autosize`) on
    // every device here (veth, loopback and TUN have GSO too): paced at
    // its rate or unpaced, and deferred to fill one (`tcp_tso_should_defer`).
    let linux_sends = f.pacing.is_none_or(|p| matches!(p, PacingKind::Rate | PacingKind::None));
    f.tso_autosize.get_or_insert(linux_sends && f.recovery != Some(Recovery::Sack1));
    // tcp_slow_start and tcp_cong_avoid_ai count the segments acked.
    f.abc_l.get_or_insert(0);
    let params = f.cc_params.get_or_insert_with(Default::default);
    if super::cc::registry::has_param(&cc, "abc") {
        params.entry("abc").or_insert(Value::Bool(true));
    }
    if cc == "reno" {
        // tcp_cong.c's Reno in whole segments (`reno_linux.rs`)
        params.entry("variant").or_insert(Value::from("linux"));
    }
    if cc == "cubic" {
        // tcp_cubic.c in integers and jiffies, with its module defaults
        // (`CubicConfig::linux`: beta 717/1024, HyStart's Linux rules,
        // the clamp of 20)
        params.entry("variant").or_insert(Value::from("linux"));
        // CUBIC's jiffies are the timers' (`clock_granularity_s`)
        if let Some(g) = f.clock_granularity_s.filter(|g| *g > 0.0) {
            if params.get("variant") == Some(&Value::from("linux")) {
                params.entry("hz").or_insert(Value::from((1.0 / g).round() as u64));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(j: serde_json::Value) -> FlowSpec {
        let mut f: FlowSpec = serde_json::from_value(j).unwrap();
        super::super::fill_defaults(&mut f);
        f
    }

    #[test]
    fn ns2_fills_only_what_the_flow_leaves_out() {
        let f = filled(serde_json::json!({"tcp_model": "ns2"}));
        assert_eq!(f.rtt_estimator, Some(RttEstimatorKind::Ns2));
        assert_eq!((f.init_rto_s, f.init_cwnd_pkts, f.syn), (Some(3.0), Some(2.0), Some(Syn::Ns2)));
        assert_eq!((f.ns2_dupwnd, f.ns2_singledup, f.ns2_idle_restart), (Some(true), Some(true), Some(true)));
        assert_eq!(f.ns2_timed_backoff, Some(true));
        assert_eq!(f.cc_params.as_ref().unwrap()["slow_start"], "ns2");
        // a rule switched off stays off; the others keep ns-2's value
        let f = filled(serde_json::json!({"tcp_model": "ns2", "ns2_dupwnd": false, "init_cwnd_pkts": 10}));
        assert_eq!((f.ns2_dupwnd, f.ns2_singledup, f.init_cwnd_pkts), (Some(false), Some(true), Some(10.0)));
        // the every-ACK estimator keeps ns-2's initial RTO
        let f = filled(serde_json::json!({"tcp_model": "ns2", "rtt_estimator": "rfc6298"}));
        assert_eq!(f.init_rto_s, Some(3.0));
    }

    #[test]
    fn ns2_sack_is_the_sack1_agent_where_it_runs() {
        let rec = |j| filled(j).recovery.unwrap();
        assert_eq!(rec(serde_json::json!({"tcp_model": "ns2", "recovery": "sack"})), Recovery::Sack1);
        assert_eq!(rec(serde_json::json!({"tcp_model": "ns2", "recovery": "sack", "ecn": true})), Recovery::Sack);
        let paced = serde_json::json!({"tcp_model": "ns2", "recovery": "sack", "pacing": "interval"});
        assert_eq!(rec(paced), Recovery::Sack);
        let f = filled(serde_json::json!({"tcp_model": "ns2", "recovery": "sack"}));
        assert_eq!(f.ns2_dupwnd, Some(false), "Sack1 has its own window");
    }

    #[test]
    fn ns2_controller_and_ecn_rules() {
        let f = filled(serde_json::json!({"tcp_model": "ns2", "cc": "hstcp"}));
        let p = f.cc_params.unwrap();
        assert_eq!((p["ns2_first_decrease"].clone(), p["lss"].clone()), (Value::Bool(true), Value::from("ns2")));
        let f = filled(serde_json::json!({"tcp_model": "ns2", "cc": "reno", "cc_params": {"abc": 2}}));
        assert!(!f.cc_params.unwrap().contains_key("slow_start"), "abc keeps its own slow start");
        let f = filled(serde_json::json!({"tcp_model": "ns2", "ecn": true}));
        assert_eq!((f.ecn_response, f.ecn_retransmit_ect), (Some(EcnResponse::Ns2), Some(true)));
        let f = filled(serde_json::json!({"tcp_model": "ns2", "ecn": true, "cc": "cubic"}));
        assert_eq!(f.ecn_response, Some(EcnResponse::Rfc3168), "ns-2's halving is Reno's");
    }

    #[test]
    fn linux_gives_the_kernels_reno_and_cubic() {
        let p = |j| filled(j).cc_params.unwrap();
        assert_eq!(p(serde_json::json!({"tcp_model": "linux", "cc": "reno"}))["variant"], "linux");
        assert_eq!(p(serde_json::json!({"tcp_model": "linux"}))["variant"], "linux");
        let f = filled(serde_json::json!({"tcp_model": "linux", "cc": "reno", "cc_params": {"variant": "rfc"}}));
        assert_eq!(f.cc_params.unwrap()["variant"], "rfc", "a flow's choice wins");
        assert!(!p(serde_json::json!({"cc": "reno"})).contains_key("variant"));
    }

    #[test]
    fn rfc_is_the_default_and_names_no_ns2_rule() {
        let f = filled(serde_json::json!({}));
        assert_eq!(f.tcp_model, Some(crate::transport::tcp::TcpModel::Rfc));
        assert_eq!(f.rtt_estimator, Some(RttEstimatorKind::Rfc6298));
        assert_eq!((f.ns2_dupwnd, f.ns2_bugfix, f.syn), (Some(false), Some(false), Some(Syn::None)));
        assert_eq!(f.ns2_timed_backoff, Some(false));
        assert!(f.cc_params.unwrap().is_empty());
    }
}
