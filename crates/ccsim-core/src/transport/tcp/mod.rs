//! TCP: a sender with shared loss recovery (Reno, NewReno, SACK, ns-2's
//! Sack1), RTO and
//! pacing, driving a pluggable congestion controller; and a receiver with
//! cumulative/SACK/delayed ACKs. Sequence numbers count segments, as in ns-2.
pub mod accecn;
pub mod delack;
pub mod intervals;
pub mod pacing;
pub mod personality;
pub mod rate;
pub mod rcv_window;
pub mod receiver;
pub mod replay;
pub mod rtt;
pub mod sack_compress;
pub mod scoreboard;
pub mod sender;

pub use crate::scenario::kinds::{
    CwndLimited, DelackModel, EcnFeedback, EcnResponse, Ect, PacingKind, Recovery, RttEstimatorKind, SackOption, Syn,
    TcpModel,
};
pub use receiver::TcpReceiver;
pub use sender::TcpSender;

use super::{cc, Endpoints, Receiver, Sender, TransportKind};
use crate::net::packet::Ecn;
use crate::scenario::{ConfigError, FlowSpec};
use crate::sim::time::from_secs;
use crate::sim::Time;
use nonmax::NonMaxU64;
use rtt::RtoLimits;
use serde_json::Map;
use std::sync::Arc;

/// The registry entry (`transport = "tcp"`).
pub const KIND: TransportKind = TransportKind {
    name: "tcp",
    doc: "TCP: Reno/NewReno/SACK/Sack1 recovery, RTO, pacing, delayed ACKs, ECN, around a congestion controller (cc)",
    validate: |f, path| TcpConfig::from_spec(f, path).map(|_| ()),
    fill_defaults,
    describe,
    build: |f, flow, seed, shared| {
        let mut cfg = TcpConfig::from_spec(f, "flow").expect("validated flow");
        cfg.share(&mut shared.tcp);
        let mut cc = build_cc_for(f, "flow", Some(flow)).expect("validated controller");
        cc.share_config(&mut shared.cc);
        let mut sender = TcpSender::new(flow, cfg.clone(), cc, seed);
        if cfg.rtt_estimator == RttEstimatorKind::Ns2 {
            // ns-2's `boot_time_` (uniform on [0, tcpTick_), drawn per
            // flow): where the agent's tick grid starts.
            use rand::Rng;
            let mut r = crate::sim::rng::stream(seed, crate::sim::rng::Stream::Transport, flow as u64);
            let drawn = r.gen::<f64>() * cfg.rto.granularity;
            sender.rtt.set_boot_time(f.ns2_boot_time_s.unwrap_or(drawn), f.ns2_boot_time_s.is_some());
        }
        Endpoints { sender: Sender::Tcp(sender), receiver: Receiver::Tcp(TcpReceiver::new(flow, cfg, seed)) }
    },
};

/// TCP's flow fields and their defaults, the `rfc` personality's: the
/// one place they are written. They are what a researcher meets in Linux
/// and ns-3 today where an RFC allows it: SACK recovery (RFC 6675, every
/// current stack negotiates SACK), an initial window of 10 (RFC 6928),
/// delayed ACKs (RFC 5681 §4.2) as Linux times them. The controller is
/// RFC 5681's Reno and slow start counts ACKs (RFC 5681 §3.1; byte
/// counting, RFC 3465, is Experimental and a controller's `abc`). The
/// papers' experiments name their TCP's values themselves, so these
/// defaults do not move a reproduction (docs/tcp-models.md).
pub mod defaults {
    use super::{CwndLimited, DelackModel, PacingKind, Recovery, RttEstimatorKind, SackOption};
    pub const CC: &str = "reno";
    pub const RECOVERY: Recovery = Recovery::Sack;
    pub const PACING: PacingKind = PacingKind::None;
    pub const BUCKET_PKTS: f64 = 1.0;
    pub const INIT_CWND_PKTS: f64 = 10.0;
    /// Effectively unbounded: slow start ends at the first loss.
    pub const INIT_SSTHRESH_PKTS: f64 = 1e9;
    pub const RWND_PKTS: u64 = 10_000_000;
    pub const MAX_CWND_PKTS: f64 = 1e9;
    pub const DUPTHRESH: u32 = 3;
    pub const LIMITED_TRANSMIT: bool = true;
    /// RFC 5681/6675's window at a fast retransmit (cwnd = ssthresh); PRR
    /// (RFC 9937) is opt-in so every earlier run keeps its recovery.
    pub const PRR: bool = false;
    /// ACKs are `header_bytes` long whatever SACK blocks they carry, as
    /// every earlier run measured them.
    pub const SACK_OPTION: SackOption = SackOption::None;
    /// RFC 5681: any ACK may grow the window.
    pub const CWND_LIMITED: CwndLimited = CwndLimited::Off;
    pub const DELAYED_ACK: bool = true;
    pub const DELACK_MODEL: DelackModel = DelackModel::Linux;
    /// `delack_model = "fixed"`: ns-2's `DelAckSink` `interval_`.
    pub const DELACK_TIMEOUT_S: f64 = 0.1;
    /// `delack_model = "linux"`: `TCP_DELACK_MAX`.
    pub const DELACK_MAX_S_LINUX: f64 = 0.2;
    /// `delack_model = "ns3"`: ns-3's `TcpSocket::DelAckTimeout`.
    pub const DELACK_TIMEOUT_S_NS3: f64 = 0.2;
    pub const MIN_RTO_S: f64 = 0.2;
    pub const MAX_RTO_S: f64 = 60.0;
    pub const INIT_RTO_S: f64 = 1.0;
    /// ns-2's `rtxcur_init_`, the initial RTO with `rtt_estimator = "ns2"`.
    pub const INIT_RTO_S_NS2: f64 = 3.0;
    pub const RTT_ESTIMATOR: RttEstimatorKind = RttEstimatorKind::Rfc6298;
    pub const HALVE_ON_REPEATED_RTO: bool = false;
    /// RFC 6582 §3.2 step 1 ("careful"): three duplicate ACKs start a new
    /// recovery when their cumulative ACK covers `recover` (HighData at
    /// the last reduction), i.e. una ≥ recover. ns-2's agents test
    /// `highest_ack_ > recover_` (`bug_fix_`, tcp-newreno.cc and
    /// tcp-sack1.cc `dupack_action`) with `highest_ack_` the last segment
    /// received and `recover_` the last sent: una > recover, one segment
    /// stricter. It matters after go-back-N: the duplicates it resends
    /// draw duplicate ACKs exactly at una = recover.
    pub const NS2_BUGFIX: bool = false;
    /// Limited Transmit only in the open state (RFC 3042, Linux), as a
    /// standing allowance of cwnd + duplicates that a segment written
    /// later may use too. ns-2's Reno and NewReno agents (`singledup_`, on
    /// by default) send one new segment at the arrival of each of the
    /// first duplicate ACKs, if one is waiting, in any state, so also
    /// after a timeout (tcp-reno.cc `recv`: `dupacks_ < numdupacks_ &&
    /// singledup_` -> `send_one`, which sends while `t_seqno_ <=
    /// highest_ack_ + cwnd_ + dupacks_`), and a later write goes through
    /// `send_much` under cwnd alone: `ns2_singledup = true`.
    pub const NS2_SINGLEDUP: bool = false;
    /// The retransmission timer stops when everything sent is acknowledged
    /// (RFC 6298 §5.2), so an application-limited flow keeps its window
    /// through any idle time. ns-2's `TcpAgent::newtimer` restarts it at
    /// every new ACK (`t_seqno_ > tcph->seqno()` holds when everything is
    /// acknowledged: the ACK names the last segment received), and an
    /// expiry with nothing outstanding (`highest_ack_ == maxseq_`, with
    /// `slow_start_restart_` and `restart_bugfix_`, both on by default)
    /// is `slowdown(CLOSE_CWND_ONE|NO_OUTSTANDING_DATA)`: the window
    /// restarts at one segment after an idle RTO, ssthresh kept, the next
    /// segment carries CWR (`cong_action_`), the RTT measurement is
    /// dropped and the timer rearmed without backoff (tcp.cc `timeout`,
    /// `reset_rtx_timer(0, 0)`); and a segment sent with nothing
    /// outstanding sets the pending timer afresh (`output`:
    /// `force_set_rtx_timer`): `ns2_idle_restart = true`. It touches only
    /// a flow that waits for its application (a Telnet, a persistent
    /// connection between objects).
    pub const NS2_IDLE_RESTART: bool = false;
    /// RFC 6298 §5.7: an ACK of new data ends the RTO backoff. ns-2's
    /// agent with `timestamps_ true` (`Agent/TCP/Reno/XCP`) samples every
    /// ACK but, with `ts_resetRTO_` false, ends the backoff only when an
    /// ACK covers its timed segment, the first new segment sent while none
    /// was timed (tcp.cc `output`, `newack`): after a timeout that is the
    /// first segment beyond everything sent before it, so while the
    /// retransmissions' ACKs arrive and new data is lost the RTO keeps
    /// doubling: `ns2_timed_backoff = true`. The `ns2` estimator has the
    /// rule built in.
    pub const NS2_TIMED_BACKOFF: bool = false;
    /// Reno's fast recovery as RFC 5681 §3.2: ssthresh = max(FlightSize/2,
    /// 2), cwnd = ssthresh + 3 inflated by one per further duplicate, and
    /// deflated to ssthresh by the ACK that ends it. ns-2.35's
    /// `RenoTcpAgent` keeps the inflation apart (`dupwnd_`, tcp-reno.cc):
    /// the fast retransmit's `slowdown` halves `windowd()` = cwnd_ +
    /// dupwnd_ (dupwnd_ 0 then) unrounded (`precisionReduce_`), ssthresh =
    /// max(⌊cwnd/2⌋, 2); dupwnd_ = 3, then one more per duplicate; the
    /// first new ACK runs `ecn()` on the inflated window first (an ECE
    /// then halves cwnd_ + dupwnd_), drops dupwnd_ without deflating
    /// cwnd_ to ssthresh, and opens cwnd_ (`opencwnd`) unless it carries
    /// ECE: `ns2_dupwnd = true`. With `recovery = "newreno"` it is
    /// ns-2.35's `NewRenoTcpAgent` (tcp-newreno.cc, its defaults
    /// `partial_window_deflation_` 1, `exit_recovery_fix_` 0): the same
    /// fast retransmit and inflation; a partial ACK of `deflate` segments
    /// takes `deflate - 1` off dupwnd_ while dupwnd_ exceeds it, else
    /// `deflate - dupwnd_` off cwnd_ (not below 1) and leaves dupwnd_ 1,
    /// without opening cwnd_ (`partialnewack`); the full ACK ends recovery
    /// as Reno's first new ACK does.
    pub const NS2_DUPWND: bool = false;
    pub const ECN_RETRANSMIT_ECT: bool = false;
    pub const ECN_RESPONSE: super::EcnResponse = super::EcnResponse::Rfc3168;
    /// ns-2's `tcpTick_` (10 ms), the timer granularity of the papers' runs.
    pub const CLOCK_GRANULARITY_S: f64 = 0.01;
    pub const ECN: bool = false;
    /// ECN data leave ECT(0), RFC 3168's codepoint.
    pub const ECT: super::Ect = super::Ect::Ect0;
    /// RFC 3168's ECE echo (`dctcp`, `prague` and `bbr3` choose their own).
    pub const ECN_FEEDBACK: super::EcnFeedback = super::EcnFeedback::Rfc3168;
    pub const GWA: bool = false;
    pub const BA: bool = false;
    pub const SYN: super::Syn = super::Syn::None;
    /// ns-2's `overhead_` default: no send jitter.
    pub const SEND_JITTER_S: f64 = 0.0;
}

/// The largest `txqueuelen_pkts`.
pub const TXQUEUELEN_MAX: u64 = 100_000_000;

/// `txqueuelen_pkts` is from 1 to [`TXQUEUELEN_MAX`].
pub fn txqueuelen_valid(path: &str, n: u64) -> Result<(), ConfigError> {
    if n == 0 || n > TXQUEUELEN_MAX {
        return Err(ConfigError::new(path, format!("{n} is not allowed; must be from 1 to {TXQUEUELEN_MAX}")));
    }
    Ok(())
}

/// What the settings checks of a strategy or a concern need: each is a
/// `validate` function beside the code whose settings it checks, and
/// [`TcpConfig::from_spec`] runs them in turn.
pub(in crate::transport::tcp) mod check {
    pub(crate) use super::kind_name;
    pub use super::sender::recovery::StrategyKind;
    pub use super::{CwndLimited, EcnFeedback, EcnResponse, PacingKind, Recovery, RttEstimatorKind, SackOption};
    pub use crate::net::packet::Ecn;
    pub(crate) use crate::scenario::validate::{at_least, non_negative, positive};
    pub use crate::scenario::ConfigError;
    /// A field's path in the scenario (`flows[i].name`).
    pub type Path<'a> = &'a dyn Fn(&str) -> String;
    pub type Checked = Result<(), ConfigError>;
}

/// Fill every TCP field left out with its default (normalisation).
/// A network of one link whose events no one runs, flow 0 on it: where a
/// packetdrill replay or a unit test drives one TCP end by hand and reads
/// what it sent from the link.
pub(crate) fn one_link_net() -> crate::net::Net {
    use crate::net::{link::Link, Net, Route};
    let q = crate::net::queue::build(&crate::scenario::QueueSpec::droptail_pkts(1_000_000), "q")
        .expect("a DropTail queue of packets is valid");
    let mut net = Net::new(vec![Link::new(0, (0, 1), 1e12, 0, q)], vec![Route { fwd: vec![0], rev: vec![0] }]);
    net.add_flow(0, 0);
    net
}

pub fn fill_defaults(f: &mut FlowSpec) {
    use defaults as d;
    match *f.tcp_model.get_or_insert(TcpModel::Rfc) {
        TcpModel::Ns2 => personality::fill_ns2(f),
        TcpModel::Linux => personality::fill_linux(f),
        TcpModel::Rfc => {}
    }
    let needs = cc::registry::needs(f.cc.get_or_insert_with(|| d::CC.to_string()));
    if let Some(e) = needs.ecn {
        // An ECN scheme asks for ECN itself (DCTCP, RFC 8257 §3; an L4S
        // sender, RFC 9331 §4), and with ECN on, the codepoint and the
        // receiver's echo it reads.
        if e.required {
            f.ecn.get_or_insert(true);
        }
        if e.required || f.ecn == Some(true) {
            if let Some(ect) = e.ect {
                f.ect.get_or_insert(ect);
            }
            if let Some(fb) = e.feedback {
                f.ecn_feedback.get_or_insert(fb);
            }
        }
    }
    f.cc_params.get_or_insert_with(Default::default);
    f.recovery.get_or_insert(d::RECOVERY);
    if needs.pacing_rate {
        // BBR paces at the rate it sets (Linux asks sch_fq or its own
        // pacing for it: `SK_PACING_NEEDED`).
        f.pacing.get_or_insert(PacingKind::Rate);
    }
    f.pacing.get_or_insert(d::PACING);
    f.bucket_pkts.get_or_insert(d::BUCKET_PKTS);
    f.init_cwnd_pkts.get_or_insert(d::INIT_CWND_PKTS);
    f.init_ssthresh_pkts.get_or_insert(d::INIT_SSTHRESH_PKTS);
    f.rwnd_pkts.get_or_insert(d::RWND_PKTS);
    f.max_cwnd_pkts.get_or_insert(d::MAX_CWND_PKTS);
    f.dupthresh.get_or_insert(d::DUPTHRESH);
    f.limited_transmit.get_or_insert(d::LIMITED_TRANSMIT);
    f.prr.get_or_insert(d::PRR);
    f.abc_l.get_or_insert(2);
    f.slow_start_after_idle.get_or_insert(false);
    f.reno_sack.get_or_insert(false);
    f.rack.get_or_insert(false);
    f.tlp.get_or_insert(false);
    f.rto_rack_mark.get_or_insert(false);
    f.dsack.get_or_insert(false);
    f.sack_compression.get_or_insert(false);
    f.undo.get_or_insert(false);
    f.frto.get_or_insert(false);
    f.timestamps.get_or_insert(false);
    f.tso_autosize.get_or_insert(false);
    f.sack_option.get_or_insert(d::SACK_OPTION);
    f.cwnd_limited.get_or_insert(d::CWND_LIMITED);
    f.delayed_ack.get_or_insert(d::DELAYED_ACK);
    let delack = *f.delack_model.get_or_insert(d::DELACK_MODEL);
    f.delack_timeout_s.get_or_insert(match delack {
        DelackModel::Fixed => d::DELACK_TIMEOUT_S,
        DelackModel::Linux => d::DELACK_MAX_S_LINUX,
        DelackModel::Ns3 => d::DELACK_TIMEOUT_S_NS3,
    });
    f.min_rto_s.get_or_insert(d::MIN_RTO_S);
    f.max_rto_s.get_or_insert(d::MAX_RTO_S);
    let est = *f.rtt_estimator.get_or_insert(d::RTT_ESTIMATOR);
    f.halve_on_repeated_rto.get_or_insert(d::HALVE_ON_REPEATED_RTO);
    f.ns2_bugfix.get_or_insert(d::NS2_BUGFIX);
    f.ns2_singledup.get_or_insert(d::NS2_SINGLEDUP);
    f.ns2_idle_restart.get_or_insert(d::NS2_IDLE_RESTART);
    f.ns2_timed_backoff.get_or_insert(d::NS2_TIMED_BACKOFF);
    f.ns2_dupwnd.get_or_insert(d::NS2_DUPWND);
    f.init_rto_s.get_or_insert(if est == RttEstimatorKind::Ns2 { d::INIT_RTO_S_NS2 } else { d::INIT_RTO_S });
    f.clock_granularity_s.get_or_insert(d::CLOCK_GRANULARITY_S);
    f.ecn.get_or_insert(d::ECN);
    f.ect.get_or_insert(d::ECT);
    f.ecn_feedback.get_or_insert(d::ECN_FEEDBACK);
    f.ecn_retransmit_ect.get_or_insert(d::ECN_RETRANSMIT_ECT);
    f.ecn_response.get_or_insert(d::ECN_RESPONSE);
    f.gwa.get_or_insert(d::GWA);
    f.ba.get_or_insert(d::BA);
    f.syn.get_or_insert(d::SYN);
    f.send_jitter_s.get_or_insert(d::SEND_JITTER_S);
}

/// The name a scenario file gives a unit enum value (`"accecn"`).
pub(crate) fn kind_name<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
}

/// (controller, recovery, pacing) names for results.
fn describe(f: &FlowSpec) -> [String; 3] {
    fn name_of<T: serde::Serialize>(x: &Option<T>) -> String {
        x.as_ref()
            .and_then(|v| serde_json::to_value(v).ok())
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| "none".into())
    }
    let mut s = f.clone();
    fill_defaults(&mut s);
    [s.cc.clone().unwrap_or_else(|| "none".into()), name_of(&s.recovery), name_of(&s.pacing)]
}

/// The flow's congestion controller (`cc`, `cc_params`, defaults filled).
/// It learns the flow's ECN feedback and recovery ([`cc::FlowInfo`]).
pub fn build_cc(f: &FlowSpec, path: &str) -> Result<Box<dyn cc::CongestionControl>, ConfigError> {
    build_cc_for(f, path, None)
}

/// [`build_cc`] for flow `flow` of a run (`None`: to validate the spec).
fn build_cc_for(f: &FlowSpec, path: &str, flow: Option<u32>) -> Result<Box<dyn cc::CongestionControl>, ConfigError> {
    let name = f.cc.as_deref().unwrap_or(defaults::CC);
    let empty = Map::new();
    let mut cc = cc::build(name, f.cc_params.as_ref().unwrap_or(&empty), path)?;
    let mut g = f.clone();
    fill_defaults(&mut g);
    cc.set_flow_info(cc::FlowInfo {
        ecn_precise: g.ecn == Some(true)
            && matches!(g.ecn_feedback, Some(EcnFeedback::Dctcp) | Some(EcnFeedback::Accecn)),
        sack: g.recovery == Some(Recovery::Sack),
        tso: g.tso_autosize == Some(true),
        flow,
    });
    Ok(cc)
}

/// A receiver window (`rwnd_pkts`, TCP's and E-TCP's): 1 to `u32::MAX`
/// packets, since the window bounds SACK offsets, which a packet holds in
/// 32 bits.
pub(crate) fn check_rwnd(field: &str, rwnd: u64) -> Result<(), ConfigError> {
    if rwnd == 0 || rwnd > u32::MAX as u64 {
        return Err(ConfigError::new(field, format!("{rwnd} is not allowed; must be from 1 to {}", u32::MAX)));
    }
    Ok(())
}

/// A flow's TCP: the parameters of its `[[flows]]` entry, shared by every
/// flow built from it, and what differs per flow (the transfer's size, the
/// ns-2 estimator's tick phase). Reads of a parameter go through `Deref`.
#[derive(Clone, Debug)]
pub struct TcpConfig {
    params: Arc<TcpParams>,
    /// Finite transfer size in payload bytes (`None`: infinite FTP), the
    /// flow's `bytes` ([`TcpConfig::total_bytes`]); 8 bytes, not an
    /// `Option<u64>`'s 16, in the sender and the receiver each (a flow's state
    /// is memory times the flows):
    /// `bytes` is validated below `u64::MAX`.
    total_bytes: Option<NonMaxU64>,
}

impl std::ops::Deref for TcpConfig {
    type Target = TcpParams;
    fn deref(&self) -> &TcpParams {
        &self.params
    }
}

/// Validated TCP parameters of a `[[flows]]` entry, in engine units: one
/// copy per entry, not per flow (a sender and a receiver each held 152
/// bytes of them, 3 MB at 10,000 flows; [`TcpConfig::share`]).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpParams {
    pub recovery: Recovery,
    pub pacing: PacingKind,
    pub bucket_pkts: f64,
    pub mss: u32,
    pub header: u32,
    pub init_cwnd: f64,
    pub init_ssthresh: f64,
    pub rwnd: u64,
    pub max_cwnd: f64,
    pub dupthresh: u32,
    /// ns-2's `numdupacksFrac_` (0: off): `Sack1`'s threshold grows to
    /// `int(cwnd) / dupthresh_frac` at large windows.
    pub dupthresh_frac: u32,
    pub limited_transmit: bool,
    /// RFC 9937 PRR in a SACK recovery (`prr`).
    pub prr: bool,
    /// RFC 3465's L (`abc_l`, 0: none).
    pub abc_l: u32,
    /// The window restarts after an idle RTO (`slow_start_after_idle`).
    pub slow_start_after_idle: bool,
    /// Duplicates count as delivered without SACK (`reno_sack`).
    pub reno_sack: bool,
    /// RACK loss detection (`rack`, RFC 8985).
    pub rack: bool,
    /// The tail loss probe (`tlp`, RFC 8985 §7).
    pub tlp: bool,
    /// An RTO marks lost only what RACK's time has passed (`rto_rack_mark`).
    pub rto_rack_mark: bool,
    /// The receiver sends D-SACKs (`dsack`, RFC 2883).
    pub dsack: bool,
    /// The receiver holds SACKs above a hole (`sack_compression`).
    pub sack_compression: bool,
    /// Linux's receiver: the phase of its millisecond timestamp clock
    /// (`ts_clock_phase_s`).
    pub ts_clock_phase: Time,
    /// Linux's receiver: the application's wake-up before a read
    /// (`read_delay_s`; none: it reads at each arrival).
    pub read_delay: Option<crate::sim::quantiles::Quantiles>,
    /// Spurious reductions are undone (`undo`).
    pub undo: bool,
    /// F-RTO after a timeout (`frto`, RFC 5682).
    pub frto: bool,
    /// The timestamps option is in use (`timestamps`, RFC 7323).
    pub timestamps: bool,
    /// Paced transmissions are TSO-sized (`tso_autosize`).
    pub tso_autosize: bool,
    /// The bytes an ACK's SACK blocks add (`sack_option`).
    pub sack_option: SackOption,
    /// Growth only while cwnd limits the sender (`cwnd_limited`).
    pub cwnd_limited: CwndLimited,
    pub delayed_ack: bool,
    pub delack_model: DelackModel,
    pub delack_timeout: Time,
    /// `delack_model = "linux"`: its receiver RTO and quick-ACK bound, from
    /// `rwnd` and `init_rto`.
    pub delack_limits: delack::DelackLimits,
    pub rto: RtoLimits,
    pub rtt_estimator: RttEstimatorKind,
    pub halve_on_repeated_rto: bool,
    /// See [`defaults::NS2_BUGFIX`].
    pub ns2_bugfix: bool,
    /// See [`defaults::NS2_SINGLEDUP`].
    pub ns2_singledup: bool,
    /// See [`defaults::NS2_IDLE_RESTART`].
    pub ns2_idle_restart: bool,
    /// See [`defaults::NS2_TIMED_BACKOFF`].
    pub ns2_timed_backoff: bool,
    /// See [`defaults::NS2_DUPWND`].
    pub ns2_dupwnd: bool,
    pub ecn: bool,
    /// The ECN-capable codepoint of the data of an ECN flow (`ect`).
    pub ect: Ecn,
    /// How the receiver feeds CE marks back and the sender reads them
    /// (`ecn_feedback`): RFC 3168's latched ECE, DCTCP's echo of the CE
    /// state (RFC 8257 §3.2) or AccECN's counter (RFC 9768).
    pub ecn_feedback: EcnFeedback,
    /// Retransmissions of an ECN flow are ECT as well (ns-2), see [`defaults::ECN_RETRANSMIT_ECT`].
    pub ecn_retransmit_ect: bool,
    /// How an ECN flow reduces on ECE, see [`EcnResponse`].
    pub ecn_response: EcnResponse,
    /// GWA-TCP: stamp B_n = B_max on data, advertise min(rwnd, B_n).
    pub gwa: bool,
    /// BA-TCP: stamp v on data, echo it, bound the window by delta x v.
    pub ba: bool,
    /// ns-2's `overhead_` (seconds; 0: off): see the sender's module doc.
    pub send_jitter_s: f64,
    /// Start-up with ns-2's SYN, see [`Syn`].
    pub syn: Syn,
}

impl TcpParams {
    /// The receiver is Linux's (`delayed_ack` with `delack_model =
    /// "linux"`): its window, delayed ACKs and SACK compression.
    pub fn linux_receiver(&self) -> bool {
        self.delayed_ack && self.delack_model == DelackModel::Linux
    }
}

impl TcpConfig {
    /// Read and validate a flow's TCP fields (`path` is `flows[i]`).
    pub fn from_spec(spec: &FlowSpec, path: &str) -> Result<Self, ConfigError> {
        use crate::scenario::validate::{at_least, positive};
        let mut f = spec.clone();
        fill_defaults(&mut f);
        let p = |k: &str| format!("{path}.{k}");
        if let Some(q) = &f.read_delay_s {
            crate::scenario::validate::delay_distribution(&p("read_delay_s"), q)?;
        }
        let cfg = TcpParams {
            recovery: f.recovery.unwrap_or(defaults::RECOVERY),
            pacing: f.pacing.unwrap_or(defaults::PACING),
            bucket_pkts: f.bucket_pkts.unwrap_or_default(),
            mss: f.mss_bytes,
            header: f.wire_header_bytes(),
            init_cwnd: f.init_cwnd_pkts.unwrap_or_default(),
            init_ssthresh: f.init_ssthresh_pkts.unwrap_or_default(),
            rwnd: f.rwnd_pkts.unwrap_or_default(),
            max_cwnd: f.max_cwnd_pkts.unwrap_or_default(),
            dupthresh: f.dupthresh.unwrap_or_default(),
            dupthresh_frac: f.dupthresh_frac.unwrap_or_default(),
            limited_transmit: f.limited_transmit.unwrap_or_default(),
            prr: f.prr.unwrap_or(defaults::PRR),
            abc_l: f.abc_l.unwrap_or(2),
            slow_start_after_idle: f.slow_start_after_idle.unwrap_or_default(),
            reno_sack: f.reno_sack.unwrap_or_default(),
            rack: f.rack.unwrap_or_default(),
            tlp: f.tlp.unwrap_or_default(),
            rto_rack_mark: f.rto_rack_mark.unwrap_or_default(),
            dsack: f.dsack.unwrap_or_default(),
            sack_compression: f.sack_compression.unwrap_or_default(),
            ts_clock_phase: from_secs(f.ts_clock_phase_s.unwrap_or_default()),
            read_delay: f.read_delay_s.as_ref().map(|q| q.to_quantiles()),
            undo: f.undo.unwrap_or_default(),
            frto: f.frto.unwrap_or_default(),
            timestamps: f.timestamps.unwrap_or_default(),
            tso_autosize: f.tso_autosize.unwrap_or_default(),
            sack_option: f.sack_option.unwrap_or(defaults::SACK_OPTION),
            cwnd_limited: f.cwnd_limited.unwrap_or(defaults::CWND_LIMITED),
            delayed_ack: f.delayed_ack.unwrap_or_default(),
            delack_model: f.delack_model.unwrap_or(defaults::DELACK_MODEL),
            delack_timeout: 0,
            delack_limits: delack::DelackLimits::new(0, 0),
            rto: RtoLimits {
                min_rto: f.min_rto_s.unwrap_or_default(),
                max_rto: f.max_rto_s.unwrap_or_default(),
                init_rto: f.init_rto_s.unwrap_or_default(),
                granularity: f.clock_granularity_s.unwrap_or_default(),
            },
            rtt_estimator: f.rtt_estimator.unwrap_or(defaults::RTT_ESTIMATOR),
            halve_on_repeated_rto: f.halve_on_repeated_rto.unwrap_or(defaults::HALVE_ON_REPEATED_RTO),
            ns2_bugfix: f.ns2_bugfix.unwrap_or(defaults::NS2_BUGFIX),
            ns2_singledup: f.ns2_singledup.unwrap_or(defaults::NS2_SINGLEDUP),
            ns2_idle_restart: f.ns2_idle_restart.unwrap_or(defaults::NS2_IDLE_RESTART),
            ns2_timed_backoff: f.ns2_timed_backoff.unwrap_or(defaults::NS2_TIMED_BACKOFF),
            ns2_dupwnd: f.ns2_dupwnd.unwrap_or(defaults::NS2_DUPWND),
            ecn: f.ecn.unwrap_or_default(),
            ect: match f.ect.unwrap_or(defaults::ECT) {
                Ect::Ect0 => Ecn::Ect0,
                Ect::Ect1 => Ecn::Ect1,
            },
            ecn_feedback: f.ecn_feedback.unwrap_or(defaults::ECN_FEEDBACK),
            ecn_retransmit_ect: f.ecn_retransmit_ect.unwrap_or(defaults::ECN_RETRANSMIT_ECT),
            ecn_response: f.ecn_response.unwrap_or(defaults::ECN_RESPONSE),
            gwa: f.gwa.unwrap_or_default(),
            ba: f.ba.unwrap_or_default(),
            send_jitter_s: f.send_jitter_s.unwrap_or_default(),
            syn: f.syn.unwrap_or(defaults::SYN),
        };
        // The controller validates its own parameter table (with what the
        // personality added to it).
        let cc = build_cc(&f, path)?;
        if cc.has_cong_control() {
            let name = cc.name();
            if cfg.pacing != PacingKind::Rate {
                return Err(ConfigError::new(
                    p("pacing"),
                    format!(
                        "\"{}\" is not allowed with cc = \"{name}\" (it paces at the rate it sets); allowed: \"rate\"",
                        kind_name(&cfg.pacing)
                    ),
                ));
            }
            // Its window rules are Linux's around the RFC recovery; ns-2's
            // agents and Sack1 set the window themselves.
            if sender::recovery::StrategyKind::of(&cfg).is_ns2() {
                return Err(ConfigError::new(
                    p("cc"),
                    format!(
                        "\"{name}\" needs the rfc personality's recovery (tcp_model = \"rfc\", recovery reno, \
                         newreno or sack, no ns2_* rules, ecn_response = \"rfc3168\", send_jitter_s = 0)"
                    ),
                ));
            }
        }
        at_least(&p("bucket_pkts"), cfg.bucket_pkts, 1.0)?;
        at_least(&p("init_cwnd_pkts"), cfg.init_cwnd, 1.0)?;
        at_least(&p("init_ssthresh_pkts"), cfg.init_ssthresh, 2.0)?;
        check_rwnd(&p("rwnd_pkts"), cfg.rwnd)?;
        at_least(&p("max_cwnd_pkts"), cfg.max_cwnd, 1.0)?;
        if cfg.dupthresh == 0 {
            return Err(ConfigError::new(p("dupthresh"), "0 is not allowed; must be >= 1"));
        }
        let delack = f.delack_timeout_s.unwrap_or_default();
        positive(&p("delack_timeout_s"), delack)?;
        if cfg.gwa && cfg.ba {
            return Err(ConfigError::new(
                p("ba"),
                "not allowed with gwa = true (both use the network's one IP option)",
            ));
        }
        // each strategy and concern checks its own settings
        let p: check::Path = &p;
        rtt::validate(&cfg, &f, p)?;
        receiver::validate(&cfg, &f, p)?;
        pacing::validate(&cfg, &f, p)?;
        sender::ecn::validate(&cfg, &f, p)?;
        sender::recovery::prr::validate(&cfg, &f, p)?;
        sender::recovery::linux::validate(&cfg, &f, p)?;
        sender::recovery::linux_undo::validate(&cfg, &f, p)?;
        sender::recovery::ns2::validate(&cfg, &f, p)?;
        sender::recovery::sack1::validate(&cfg, &f, p)?;
        if let Some(n) = f.txqueuelen_pkts {
            txqueuelen_valid(&p("txqueuelen_pkts"), n)?;
        }
        if f.bytes == Some(0) {
            return Err(ConfigError::new(p("bytes"), "0 is not allowed; must be >= 1"));
        }
        let total_bytes = match f.bytes.map(NonMaxU64::new) {
            None => None,
            Some(Some(b)) => Some(b),
            Some(None) => {
                return Err(ConfigError::new(
                    p("bytes"),
                    format!("{} is too large; allowed: 1 to {}", u64::MAX, u64::MAX - 1),
                ))
            }
        };
        let delack_limits = delack::DelackLimits::new(cfg.rwnd, from_secs(cfg.rto.init_rto));
        Ok(TcpConfig {
            params: Arc::new(TcpParams { delack_timeout: from_secs(delack), delack_limits, ..cfg }),
            total_bytes,
        })
    }

    /// Take the parameters from `shared` if they are the same (the flows of
    /// one `[[flows]]` entry, and a workload's transfers, differ only in
    /// what [`TcpConfig`] holds itself), else make them `shared`.
    pub fn share(&mut self, shared: &mut Option<Arc<TcpParams>>) {
        match shared {
            Some(p) if **p == *self.params => self.params = Arc::clone(p),
            _ => *shared = Some(Arc::clone(&self.params)),
        }
    }

    /// Finite transfer size in payload bytes (`None`: infinite FTP).
    pub fn total_bytes(&self) -> Option<u64> {
        self.total_bytes.map(|b| b.get())
    }

    /// The first segment that carries data: 1 after a SYN (segment 0,
    /// ns-2 `syn_`), else 0.
    pub fn first_data_seg(&self) -> u64 {
        u64::from(self.syn != Syn::None)
    }

    /// Bytes on the wire of a `syn = "linux"` SYN or SYN-ACK: the header
    /// and the options Linux's SYNs carry beyond a data segment's (MSS 4,
    /// SACK-permitted 2, window scale 3; 20 option bytes with the
    /// timestamps' 10 and a NOP against a data segment's 12, or 12 NOP-padded
    /// without timestamps: `tcp_syn_options`, `tcp_options_write`).
    pub fn syn_bytes(&self) -> u32 {
        self.header + if self.timestamps { 8 } else { 12 }
    }

    /// Payload bytes of segment `seq` (none in the SYN).
    pub fn payload(&self, seq: u64) -> u32 {
        let Some(d) = seq.checked_sub(self.first_data_seg()) else { return 0 };
        match self.total_bytes() {
            None => self.mss,
            Some(t) => t.saturating_sub(d * self.mss as u64).min(self.mss as u64) as u32,
        }
    }

    /// Bytes on the wire of a full segment: GWA's unit for converting
    /// buffer space (B_n, bytes) to a window (segments).
    pub fn wire_bytes(&self) -> u64 {
        (self.mss + self.header) as u64
    }

    /// GWA's B_max, the value a sender stamps in B_n: the receiver window
    /// in bytes on the wire (§2: "the maximum window size negotiated at
    /// connection setup"), below the option's "absent" value.
    pub fn gwa_b_max(&self) -> u32 {
        (self.rwnd.saturating_mul(self.wire_bytes())).min(crate::net::packet::IP_OPT_NONE as u64 - 1) as u32
    }

    /// GWA eq. 2: the window a receiver advertises for a packet carrying
    /// `b_n` bytes of network buffer: min(B_r, B_n) in whole segments, at
    /// least one (ns-2's TCP has no zero-window probe, so an advertised 0
    /// would stop the flow for good; one segment is what a flow can always
    /// have in flight).
    pub fn gwa_window(&self, b_n: u32) -> u32 {
        let w = (b_n as u64 / self.wire_bytes()).min(self.rwnd).max(1);
        w.min(u32::MAX as u64) as u32
    }

    /// BA-TCP's window bound for a path whose available bandwidth per flow
    /// is `v_kbps` and a round-trip propagation delay `delta_s`: delta x v
    /// in whole segments, rounded up (§5: "a lower bound to the
    /// transmission window"), from 1 to the receiver window.
    /// (At most `rwnd`, itself at most `u32::MAX`.)
    pub fn ba_window(&self, v_kbps: u32, delta_s: f64) -> u64 {
        let w = (delta_s * v_kbps as f64 * 1e3 / 8.0 / self.wire_bytes() as f64).ceil();
        if w.is_finite() {
            (w as u64).clamp(1, self.rwnd)
        } else {
            self.rwnd
        }
    }

    /// Number of segments in the transfer (the SYN included).
    pub fn total_segs(&self) -> Option<u64> {
        self.total_bytes().map(|t| t.div_ceil(self.mss as u64) + self.first_data_seg())
    }

    /// Payload bytes in segments `[a, b)`.
    pub fn payload_between(&self, a: u64, b: u64) -> u64 {
        let f = self.first_data_seg();
        let (a, b) = (a.max(f) - f, b.max(f) - f);
        let m = self.mss as u64;
        match self.total_bytes() {
            None => (b - a) * m,
            Some(t) => (b * m).min(t) - (a * m).min(t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(rwnd: u64) -> TcpConfig {
        let spec: FlowSpec = serde_json::from_value(serde_json::json!({"rwnd_pkts": rwnd, "gwa": true})).unwrap();
        TcpConfig::from_spec(&spec, "flows[0]").unwrap()
    }

    #[test]
    fn gwa_window_is_min_of_rwnd_and_b_n_in_whole_segments() {
        let c = cfg(64);
        assert_eq!(c.wire_bytes(), 1040);
        assert_eq!(c.gwa_b_max(), 64 * 1040);
        // eq. 2 in segments: never above the receiver buffer, at least one
        for b_n in [0u32, 1, 1039, 1040, 2079, 2080, 50_000, 64 * 1040, 10_000_000, u32::MAX - 1] {
            let w = c.gwa_window(b_n) as u64;
            assert!((1..=64).contains(&w), "b_n {b_n}: {w}");
            assert_eq!(w, (b_n as u64 / 1040).clamp(1, 64), "b_n {b_n}");
        }
        // B_max never collides with the option's "absent" value
        assert!(cfg(u32::MAX as u64).gwa_b_max() < crate::net::packet::IP_OPT_NONE);
    }

    /// A transfer's size is kept in 8 bytes (`NonMaxU64`): the largest
    /// `u64` is refused with the field, the value and the range allowed,
    /// and the one below it is kept exactly.
    #[test]
    fn a_transfer_of_u64_max_bytes_is_refused_by_name() {
        let of = |b: u64| {
            let spec: FlowSpec = serde_json::from_value(serde_json::json!({ "bytes": b })).unwrap();
            TcpConfig::from_spec(&spec, "flows[0]")
        };
        let e = of(u64::MAX).unwrap_err().to_string();
        assert!(e.contains("flows[0].bytes") && e.contains("18446744073709551615") && e.contains("allowed"), "{e}");
        assert_eq!(of(u64::MAX - 1).unwrap().total_bytes(), Some(u64::MAX - 1));
    }

    /// The undo rules' prerequisites are refused by field name: D-SACKs
    /// need SACK, undo needs RACK, F-RTO needs undo; the linux personality
    /// fills a consistent set, with or without SACK.
    #[test]
    fn undo_rules_name_what_they_need() {
        let of = |j: serde_json::Value| {
            let mut spec: FlowSpec = serde_json::from_value(j).unwrap();
            fill_defaults(&mut spec);
            TcpConfig::from_spec(&spec, "flows[0]").map_err(|e| e.to_string())
        };
        let e = of(serde_json::json!({"dsack": true, "recovery": "newreno"})).unwrap_err();
        assert!(e.contains("flows[0].dsack") && e.contains("D-SACK is a SACK block"), "{e}");
        let e = of(serde_json::json!({"tcp_model": "linux", "undo": true, "rack": false})).unwrap_err();
        assert!(e.contains("flows[0].undo") && e.contains("rack = true"), "{e}");
        let e = of(serde_json::json!({"tcp_model": "linux", "frto": true, "undo": false})).unwrap_err();
        assert!(e.contains("flows[0].frto") && e.contains("undo = true"), "{e}");
        let c = of(serde_json::json!({"tcp_model": "linux"})).unwrap();
        assert!(c.dsack && c.undo && c.frto && c.timestamps);
        let c = of(serde_json::json!({"tcp_model": "linux", "recovery": "newreno"})).unwrap();
        assert!(!c.dsack && !c.undo && !c.frto);
        let c = of(serde_json::json!({"tcp_model": "linux", "rack": false})).unwrap();
        assert!(c.dsack && !c.undo && !c.frto);
    }

    /// Flows of one entry share one copy of the parameters; a transfer's
    /// size stays its own, and different parameters are never shared.
    #[test]
    fn an_entrys_flows_share_their_parameters() {
        let of = |j: serde_json::Value| {
            let spec: FlowSpec = serde_json::from_value(j).unwrap();
            TcpConfig::from_spec(&spec, "flows[0]").unwrap()
        };
        let mut shared = None;
        let mut a = of(serde_json::json!({"bytes": 1000}));
        let mut b = of(serde_json::json!({"bytes": 5000}));
        a.share(&mut shared);
        b.share(&mut shared);
        assert!(Arc::ptr_eq(&a.params, &b.params));
        assert_eq!((a.total_bytes(), b.total_bytes()), (Some(1000), Some(5000)));
        assert_eq!((a.total_segs(), b.total_segs()), (Some(1), Some(5)));
        let mut c = of(serde_json::json!({"mss_bytes": 1448}));
        c.share(&mut shared);
        assert!(!Arc::ptr_eq(&a.params, &c.params));
        assert_eq!((a.mss, c.mss), (1000, 1448));
    }
}
