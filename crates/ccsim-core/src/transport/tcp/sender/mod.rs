//! The TCP sender: windowing, loss recovery, RTO and pacing, around a
//! pluggable congestion controller.
//!
//! States (Linux `tcp_ca_state` in miniature):
//! - `Open`: new data while FlightSize < cwnd (+ Limited Transmit, RFC 3042).
//! - `Recovery`: fast recovery after DupThresh duplicate ACKs (or, with SACK,
//!   once `IsLost(HighACK+1)`). Reno leaves on any new ACK (RFC 5681 §3.2),
//!   NewReno on a full ACK, retransmitting one hole per partial ACK
//!   (RFC 6582 §3.2, the "Impatient" timer variant), SACK on a cumulative
//!   ACK ≥ RecoveryPoint, sending by NextSeg() while cwnd − pipe ≥ 1
//!   (RFC 6675 §5, no cwnd inflation). A lost retransmission is repaired
//!   only by the RTO: NextSeg() rule (1.a) never picks a hole at or below
//!   HighRxt again, and the rescue retransmission (rule 4) waits for the
//!   new data to run out (RFC 6675 §4, §5.1; docs/controllers.md, "A lost
//!   fast retransmission").
//! - `Loss`: after an RTO, every un-SACKed segment is lost; the sender slow
//!   starts from una, resending holes in order (go-back-N without SACK),
//!   until `recover` (HighData at the timeout) is acknowledged.
//!
//! A new recovery starts only when una ≥ `recover` (RFC 6582 §3.2; ns-2's
//! `bugFix_` for Reno), so one window's losses cause one window reduction.
//!
//! `recovery = "sack1"` (ns-2's `TCP/Sack1`) replaces the ACK, timeout and
//! sending rules with [`super::sack1`]'s; the other modes never reach it.
//!
//! Layout: `mod.rs` holds the sender's state and the agent interface;
//! `ack.rs` what every TCP does with an ACK, around the rules of the
//! flow's recovery strategy (`recovery/`: the RFCs' in `rfc.rs`, ns-2.35's
//! Reno and NewReno agents in `ns2.rs`); `next_seg.rs` RFC 6675's
//! NextSeg(); `send.rs` Limited Transmit, pacing and the transmission;
//! `rto.rs` the timer's expiry; `ecn.rs` the reaction to ECE and CWR;
//! `cwr.rs` Linux's CWR on local congestion.
//!
//! `syn = "ns2"` starts as ns-2's agents do: segment 0 is a header-only
//! SYN sent alone, and its ACK opens the initial window ([`super::Syn`]).
//! `syn = "linux"` sets the connection up first, as Linux's active open
//! does (`connect.rs`): the SYN-ACK gives the first RTT sample, and the
//! data and the controller start after it.
//!
//! `send_jitter_s` (ns-2's `overhead_`, tcp.cc `send_much`): a send the
//! window allows is not made at once but after a uniformly random delay in
//! [0, `send_jitter_s`), and then as a burst of everything the window allows
//! at that moment; while that delay runs, further sends wait for it. ns-2
//! inserts it "to avoid phase effects" (Floyd & Jacobson, "On Traffic Phase
//! Effects in Packet-Switched Gateways"): without it, flows on a drop-tail
//! queue can lock into a fixed phase, so the same flows lose packets at
//! every overflow. ns-2 calls `output` directly, without the delay, for the
//! fast retransmission, NewReno's partial-ACK retransmission and Limited
//! Transmit (`send_one`); those are direct here too. The retransmission
//! after a timeout goes through `send_much` in ns-2, so it is delayed.
use super::accecn::AccEcnSender;
use super::pacing::Pacer;
use super::rate::RateSampler;
use super::rtt::{RttEstimator, RttEstimatorKind};
use super::scoreboard::Scoreboard;
use super::{EcnFeedback, EcnResponse, PacingKind, Recovery, Syn, TcpConfig, TcpParams};
use crate::net::packet::{CongestionHeader, Ecn, Kind, Packet, TcpHeader, IP_OPT_NONE, L4, MAX_SACK_BLOCKS};
use crate::net::Net;
use crate::sim::rng::Rng;
use crate::sim::time::{from_secs, to_secs};
use crate::sim::{BareTimer, Time, Timer};
use crate::transport::cc::{CcEvent, CcState, CongestionControl, FeedbackSample, ModelInfo, NetFeedback};
use crate::transport::{sender_timer, SenderAgent, SenderReport};
use extras::Extras;
use nonmax::NonMaxU64;

mod ack;
mod cong_control;
mod connect;
mod cwnd_use;
mod cwr;
pub(super) mod ecn;
mod extras;
#[cfg(test)]
mod jitter_tests;
mod next_seg;
#[cfg(test)]
mod ns2_ecn_tests;
pub(super) mod recovery;
#[cfg(test)]
mod rfc_window_tests;
mod rto;
mod send;
#[cfg(test)]
mod tests;

/// BA-TCP's v before any router lowered it (kb/s): no bound.
pub const BA_UNBOUNDED: u32 = IP_OPT_NONE - 1;

/// An ACK's timestamp echo that gives no RTT sample (a replayed ACK of
/// retransmitted data only, without timestamps: Karn's rule).
pub const NO_ECHO: Time = Time::MAX;

/// The sender's timer slots.
const RTO: u8 = 0;
const PACE: u8 = 1;
const TICK: u8 = 2;
/// ns-2's `delsnd_timer_`: the delayed send of `send_jitter_s`.
const DELSND: u8 = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Open,
    Recovery,
    Loss,
}

#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    pub data_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    /// ACKs that arrived with ECE set, or with AccECN a grown CE count
    /// (`SenderReport::ece_acks`).
    pub ece_acks: u64,
    /// When the last byte of a finite transfer was acknowledged (a
    /// `NonMaxU64`: 8 bytes, not 16).
    pub completed_at: Option<NonMaxU64>,
    /// Sends held back because the sending host's interface queue was
    /// full (`txqueuelen_pkts`), and the CWR reductions that caused.
    pub local_holds: u64,
    pub local_cwrs: u64,
}

/// One departure, recorded when a trace is enabled (pacing tests).
#[derive(Clone, Copy, Debug)]
pub struct SendRecord {
    pub time: Time,
    pub seq: u64,
    /// Bytes on the wire.
    pub size: u32,
    /// Pacing interval srtt/cwnd in force at this departure (seconds).
    pub interval_s: Option<f64>,
    pub tokens_after: Option<f64>,
    pub forced: bool,
    /// The segment carried CWR.
    pub cwr: bool,
    /// A zero-window probe (no payload; `seq` is the segment below
    /// SND.UNA whose last byte it repeats, Linux `tcp_xmit_probe_skb`).
    pub probe: bool,
    /// The segment carried PSH (the last of a Linux GSO transmission).
    pub psh: bool,
}

pub struct TcpSender {
    pub flow: u32,
    pub cfg: TcpConfig,
    pub cc: Box<dyn CongestionControl>,
    pub st: CcState,
    pub sb: Scoreboard,
    pub rtt: RttEstimator,
    pub state: State,
    /// The loss-recovery rules this flow runs, with their own state
    /// ([`recovery`]).
    pub(in crate::transport::tcp) strategy: recovery::Strategy,
    dupacks: u32,
    /// Segments sent by Limited Transmit since the last new ACK: RFC 5681
    /// §3.2 step 2 excludes them from the FlightSize that sets ssthresh.
    lt_sent: u32,
    recover: u64,
    rescue_rxt: Option<NonMaxU64>,
    partial_seen: bool,
    /// The controller sets cwnd and the pacing rate from delivery-rate
    /// samples (`has_cong_control`, BBR): the sender's own window rules
    /// (growth, recovery's cwnd, the ECE cut) stand aside.
    pub(super) cc_owns_cwnd: bool,
    /// RFC 3168 §6.1.2: set CWR on the first new data after an ECE reduction.
    cwr_pending: bool,
    /// The receiver's latest advertised window (segments); `cfg.rwnd`
    /// until an ACK advertises one (GWA: W_a = min(B_r, B_n)).
    pub(super) awnd: u32,
    /// The segment that carries (or will carry) that CWR: ECE on ACKs up to
    /// it echoes the same congestion event (the receiver repeats ECE until
    /// it sees CWR, §6.1.3), so only an ACK beyond it can start a new one.
    cwr_seq: Option<NonMaxU64>,
    /// The last window reduction was an ECE one and its window is not yet
    /// acknowledged (`una < recover`): a loss detected in it is repaired
    /// by fast retransmit without a second reduction (RFC 3168 §6.1.2, ns-2
    /// `NewRenoTcpAgent::dupack_action` after `CWND_ACTION_ECN`).
    ecn_cut: bool,
    /// Linux's `CA_CWR`: an ECE reduction whose window is not yet
    /// acknowledged beyond `recover`; `CcEvent::CwrEnd` when it is, unless
    /// a fast recovery or a timeout took over (they clear it).
    cwr: bool,
    /// Linux 2.4's `CA_CWR` entered on local congestion (`txqueuelen_pkts`:
    /// `tcp_transmit_skb` -> `tcp_enter_cwr`): the window shrinks by
    /// `tcp_cwnd_down` on each ACK and does not grow until CWR ends.
    local_cwr: bool,
    /// Linux's `snd_cwnd_cnt` during that reduction (one decrement per
    /// second ACK).
    cwnd_cnt: u32,
    /// A send was held back at the full interface queue and not made
    /// since: the timer then retries it even with nothing outstanding
    /// (Linux's zero-window probe timer, `tcp_check_probe_timer`).
    held: bool,
    /// The timer has resent the head since the last new ACK (RFC 5681
    /// §3.1: a repeated RTO keeps ssthresh).
    pub(super) timer_resent: bool,
    pub(super) rto_timer: BareTimer,
    pub app_active: bool,
    pub(super) total_segs: Option<NonMaxU64>,
    /// `syn = "ns2"`: the timer fired before anything was acknowledged, so
    /// the SYN's ACK opens one segment (ns-2 `bugfix_ss_`, see [`Syn`]).
    pub(super) syn_timed_out: bool,
    pub stats: SenderStats,
    /// Pacing, rate samples, AccECN, PRR, ns-2's Sack1 and jitter, the
    /// send trace...: what only some senders use, in one box made only
    /// for them ([`Extras`]). Read through [`TcpSender::x`].
    extras: Option<Box<Extras>>,
}

/// A paced sender's pacer and the timer that releases its next segment.
pub(super) struct Paced {
    pacer: Pacer,
    timer: Timer,
}

enum Next {
    New,
    Retx(u64),
}

/// A sequence number kept as an optional field in 8 bytes, not an
/// `Option<u64>`'s 16 (a flow's state is memory times the flows). Segment numbers stay far below `u64::MAX`; one that reached it
/// (a transfer of 2^64 segments, `total_segs`) is as good as unbounded and
/// is kept as `u64::MAX - 1`.
#[inline]
pub(crate) fn seq_opt(seq: u64) -> NonMaxU64 {
    NonMaxU64::new(seq).unwrap_or(NonMaxU64::MAX)
}

/// ns-2's delayed send, `send_jitter_s` (`overhead_`): boxed, as only
/// flows that set it have one, and its 16-byte-aligned generator would
/// align every sender to 16 (a long-lived flow should take at most 2 KB).
pub(super) struct Jitter {
    /// ns-2's `delsnd_timer_`: armed, it holds every send that is not
    /// direct until it fires.
    pub(super) timer: Timer,
    /// The delays, one draw per arming (ns-2 `Random::uniform(overhead_)`),
    /// from the flow's own stream.
    pub(super) rng: Rng,
}

impl TcpSender {
    /// `seed`: the scenario's seed, for the flow's `send_jitter_s` draws.
    /// ns-2's `TcpAgent::reset` draw, `boot_time_ = Random::uniform(tcpTick_)`,
    /// from ns-2's default stream `u` (`Simulation::new`): the tick phase
    /// of an agent with ns-2's estimator, unless `ns2_boot_time_s` gave it.
    /// What only some senders use ([`Extras`]): empty for the others.
    #[inline]
    pub(in crate::transport::tcp) fn x(&self) -> &Extras {
        self.extras.as_deref().unwrap_or(&extras::NONE)
    }

    /// The same to change, when there is a box.
    #[inline]
    pub(in crate::transport::tcp) fn x_mut(&mut self) -> Option<&mut Extras> {
        self.extras.as_deref_mut()
    }

    /// The same to change, the box made if there was none.
    pub(in crate::transport::tcp) fn x_make(&mut self) -> &mut Extras {
        self.extras.get_or_insert_with(Box::default)
    }

    /// Record every departure from now on (`Simulation::enable_send_trace`).
    pub fn enable_trace(&mut self) {
        self.x_make().trace = Some(Vec::new());
    }

    /// The departures recorded since [`TcpSender::enable_trace`].
    pub fn trace(&self) -> &[SendRecord] {
        self.x().trace.as_deref().unwrap_or(&[])
    }

    /// The flow paces at a rate (`pacing = "rate"`, Linux's EDT).
    #[inline]
    fn rate_paced(&self) -> bool {
        self.x().paced.as_ref().is_some_and(|p| matches!(p.pacer, Pacer::Rate { .. }))
    }

    pub(crate) fn draw_ns2_boot_time(&mut self, u: f64) {
        self.rtt.draw_boot_time(u);
    }

    pub fn new(flow: u32, cfg: TcpConfig, cc: Box<dyn CongestionControl>, seed: u64) -> Self {
        let strategy = recovery::Strategy::new(&cfg);
        let accecn = (cfg.ecn_feedback == EcnFeedback::Accecn).then(AccEcnSender::default);
        let prr = cfg.prr.then(Box::default);
        let cwnd_use = (cfg.cwnd_limited != super::CwndLimited::Off).then(Box::default);
        // `rwnd_pkts` is at most u32::MAX (`check_rwnd`)
        let awnd = cfg.rwnd as u32;
        // ns-2 `set_initial_window`: one segment until the SYN is answered
        let init = if cfg.syn == Syn::Ns2 { 1.0 } else { cfg.init_cwnd };
        let st = CcState {
            cwnd: init.min(cfg.max_cwnd),
            ssthresh: cfg.init_ssthresh,
            max_cwnd: cfg.max_cwnd,
            now: 0,
            flight: 0,
            srtt_s: None,
            min_rtt_s: None,
            mss_bytes: cfg.mss,
            header_bytes: cfg.header,
            pacing_rate: 0.0,
            abc_l: cfg.abc_l,
            lost: 0,
        };
        let pacer = match cfg.pacing {
            PacingKind::None => None,
            PacingKind::Interval => Some(Pacer::Interval { last_send: None }),
            PacingKind::TokenBucket => Some(Pacer::token_bucket(cfg.bucket_pkts)),
            PacingKind::Rate => Some(Pacer::Rate { next: 0, sent: 0, skb: Default::default() }),
        };
        let paced = pacer.map(|pacer| Box::new(Paced { pacer, timer: Timer::new(sender_timer(flow, PACE)) }));
        let jitter = (cfg.send_jitter_s > 0.0).then(|| {
            Box::new(Jitter {
                timer: Timer::new(sender_timer(flow, DELSND)),
                rng: crate::sim::rng::stream(seed, crate::sim::rng::Stream::SendJitter, flow as u64),
            })
        });
        let mut cc = cc;
        let cc_owns_cwnd = cc.has_cong_control();
        let extras = Extras {
            paced,
            rate: cc_owns_cwnd.then(|| Box::new(RateSampler::new())),
            accecn,
            prr,
            cwnd_use,
            jitter,
            ..Extras::default()
        }
        .boxed();
        if cc_owns_cwnd {
            cc.seed_rng(crate::sim::rng::stream(seed, crate::sim::rng::Stream::Controller, flow as u64));
        }
        TcpSender {
            flow,
            rtt: match cfg.rtt_estimator {
                RttEstimatorKind::Rfc6298 => RttEstimator::new().with_timed_backoff(cfg.ns2_timed_backoff),
                RttEstimatorKind::Ns2 => RttEstimator::ns2(&cfg.rto, 0.0),
                RttEstimatorKind::Linux => RttEstimator::linux(),
            },
            sb: if cfg.rack {
                Scoreboard::new(cfg.dupthresh).without_dupthresh_marking()
            } else {
                Scoreboard::new(cfg.dupthresh)
            },
            total_segs: cfg.total_segs().map(seq_opt),
            syn_timed_out: false,
            cfg,
            cc,
            st,
            state: State::Open,
            strategy,
            dupacks: 0,
            lt_sent: 0,
            recover: 0,
            rescue_rxt: None,
            partial_seen: false,
            cc_owns_cwnd,
            cwr_pending: false,
            awnd,
            cwr_seq: None,
            ecn_cut: false,
            cwr: false,
            local_cwr: false,
            cwnd_cnt: 0,
            held: false,
            timer_resent: false,
            rto_timer: BareTimer::new(),
            app_active: false,
            stats: SenderStats::default(),
            extras,
        }
    }

    pub(super) fn sync(&mut self, now: Time) {
        self.st.now = now;
        self.st.flight = self.sb.outstanding();
        self.st.srtt_s = self.rtt.srtt();
        self.st.min_rtt_s = self.rtt.min_rtt();
        self.sync_lost();
    }

    /// The controller's view of the segments marked lost (Linux `tp->lost`,
    /// which wraps at 32 bits).
    pub(super) fn sync_lost(&mut self) {
        self.st.lost = self.sb.marked_lost() as u32;
    }

    /// The controller's decreased window as ssthresh, at least 2 segments
    /// (RFC 5681 eq. 4; ns-2's `slowdown` floors `ssthresh_` at 2). A
    /// controller may return less: HighSpeed's `ns2_decrease_num` gives
    /// ns-2's unfloored `decreasewin`, which `recovery = "sack1"` takes as
    /// cwnd.
    fn cc_ssthresh(&mut self) -> f64 {
        self.cc.ssthresh(&self.st).max(2.0)
    }

    /// [`Self::cc_ssthresh`] for a retransmission timeout (the
    /// controller's [`CongestionControl::ssthresh_rto`]).
    fn cc_ssthresh_rto(&mut self) -> f64 {
        self.cc.ssthresh_rto(&self.st).max(2.0)
    }

    pub(super) fn clamp_cwnd(&mut self) {
        self.st.cwnd = self.st.cwnd.clamp(self.cwnd_floor(), self.st.max_cwnd);
    }

    /// The smallest window: one segment, or none under ns-2's ECN response
    /// (`TcpAgent::ecn` halves a one-segment window to half a segment).
    fn cwnd_floor(&self) -> f64 {
        if self.cfg.ecn_response == EcnResponse::Ns2 {
            0.0
        } else {
            1.0
        }
    }

    /// cwnd in whole segments, as the sending rules count it: the floor
    /// of cwnd, at least `cwnd_floor`. Both are never negative, so the
    /// float-to-integer cast (truncation) is that floor, without a call to
    /// the soft `floor` of baseline x86-64 on every send.
    /// (The cast is to i64, one `cvttsd2si` on x86-64, where u64 takes a
    /// dozen instructions; they differ only from 2^63 segments on.)
    #[inline]
    fn window(&self) -> u64 {
        (self.st.cwnd as i64).max(self.cwnd_floor() as i64) as u64
    }

    /// An RTT sample `r` seconds from before the data (the handshake's:
    /// Linux's `tcp_synack_rtt_meas` starts the estimator from it).
    pub fn seed_rtt(&mut self, r: f64) {
        if self.rtt.is_linux() {
            self.rtt.on_linux_ack(Some(r), 0, self.cfg.rto.min_rto);
        } else {
            self.rtt.sample(r);
        }
    }

    /// The application writes `segs` more segments; from the first write
    /// on, only written segments are sent (Telnet). With
    /// `slow_start_after_idle` a write after an idle RTO restarts the
    /// window first, as Linux's `tcp_sendmsg` does
    /// (`tcp_slow_start_after_idle_check`).
    pub fn write_segs(&mut self, net: &mut Net, segs: u64) {
        self.check_app_limited();
        if self.cfg.slow_start_after_idle {
            self.restart_after_idle(net.now);
        }
        let x = self.x_make();
        x.offered = Some(seq_opt(x.offered.map_or(0, |o| o.get()) + segs));
        self.try_send(net);
        if self.strategy.linux_ref().is_some() {
            self.linux_check_probe_timer(net);
        }
    }

    /// RFC 5681 §4.1's restart window as Linux's `tcp_cwnd_restart`: with
    /// nothing outstanding and more than an RTO since the last segment
    /// left, ssthresh rises to at least 3/4 of cwnd (`tcp_current_ssthresh`)
    /// and cwnd halves once per RTO of idle time beyond the first, not below
    /// min(initial window, cwnd). A controller that sets cwnd itself
    /// (`cong_control`) is left alone, as Linux leaves it.
    fn restart_after_idle(&mut self, now: Time) {
        let Some(last) = self.x().last_send else { return };
        if self.sb.outstanding() > 0 || self.cc_owns_cwnd {
            return;
        }
        let rto = from_secs(self.rto());
        let mut idle = now.saturating_sub(last);
        if idle <= rto {
            return;
        }
        let cwnd = self.st.cwnd.floor();
        let restart = self.cfg.init_cwnd.min(cwnd);
        if self.state == State::Open && !self.cwr && !self.local_cwr {
            self.st.ssthresh = self.st.ssthresh.max(((cwnd as u64 >> 1) + (cwnd as u64 >> 2)) as f64);
        }
        let mut w = cwnd;
        loop {
            idle = idle.saturating_sub(rto);
            if idle == 0 || w <= restart {
                break;
            }
            w = (w / 2.0).floor();
        }
        self.st.cwnd = w.max(restart);
    }

    /// The RTO in force (RFC 6298), within the flow's limits.
    pub fn rto(&self) -> f64 {
        self.rtt.rto(&self.cfg.rto)
    }

    /// (Re)start the retransmission timer one RTO from now; with ns-2's
    /// clock (`ns2_clock`) also its `double` deadline, `clock_ +
    /// rtt_timeout()` as ns-2's `TimerHandler::resched` puts it (the ns-2
    /// estimator's RTO is ns-2's `double`: whole ticks times `tcp_tick_`,
    /// times the backoff).
    pub(super) fn arm_rto(&mut self, net: &mut Net) {
        if let Some(l) = self.strategy.linux() {
            l.pending = recovery::linux::Pending::Rto;
        }
        let rto = self.rto();
        let at = match net.ns2_clock.as_deref_mut() {
            Some(clock) => clock.arm_timer(sender_timer(self.flow, RTO), rto),
            None => net.now.saturating_add(from_secs(rto)),
        };
        self.rto_timer.arm(&mut net.events, sender_timer(self.flow, RTO), at);
    }

    /// `syn = "ns2"` (ns-2 `delay_growth_`): the ACK of the SYN alone (the
    /// cumulative ACK `ack` = 1, ns-2's `last_ack_ == 0`) sets the window
    /// to the initial one, after that ACK's increase; one segment if the
    /// timer fired first (`bugfix_ss_`). Each agent's `recv` does this
    /// right after `recv_newack_helper`, before sending.
    pub(super) fn syn_acked(&mut self, ack: u64) {
        if self.cfg.syn == Syn::Ns2 && ack == 1 {
            let init = if self.syn_timed_out { 1.0 } else { self.cfg.init_cwnd };
            self.st.cwnd = init.min(self.st.max_cwnd);
        }
    }

    /// Arm the controller's tick `p` seconds from now.
    pub(super) fn arm_tick(&mut self, net: &mut Net, p: f64) {
        let owner = sender_timer(self.flow, TICK);
        let t = self.x_make().tick_timer.get_or_insert_with(|| Timer::new(owner));
        t.arm(&mut net.events, net.now.saturating_add(from_secs(p)));
    }

    /// The work done: no timer of the flow's own fires again.
    pub(super) fn stop_timers(&mut self) {
        self.rto_timer.disarm();
        if let Some(t) = self.x_mut().and_then(|x| x.tick_timer.as_mut()) {
            t.disarm();
        }
    }

    /// ns-2's delayed send is pending (`delsnd_timer_` armed).
    pub(super) fn delsnd_armed(&self) -> bool {
        self.x().jitter.as_ref().is_some_and(|j| j.timer.is_armed())
    }

    /// The application's data may go: the controller's tick starts and
    /// the window is sent.
    pub(super) fn start_sending(&mut self, net: &mut Net) {
        self.sync(net.now);
        if let Some(p) = self.cc.tick_interval_s(&self.st) {
            self.arm_tick(net, p);
        }
        self.try_send(net);
    }

    /// A timeout with nothing acknowledged yet: ns-2's `TcpAgent::timeout`
    /// sets `wnd_init_ = 1` (`bugfix_ss_`), which `syn = "ns2"` then opens
    /// with.
    pub(super) fn note_timeout_before_any_ack(&mut self) {
        if self.sb.una() == 0 {
            self.syn_timed_out = true;
        }
    }
}

impl SenderAgent for TcpSender {
    fn open(&mut self, net: &mut Net) {
        self.app_active = true;
        if self.cfg.syn == Syn::Linux && self.sb.una() == 0 {
            // the data wait for the connection (`connect.rs`)
            if !self.connecting() {
                self.connect(net);
            }
            return;
        }
        self.start_sending(net);
    }

    fn close(&mut self) {
        self.app_active = false;
    }

    /// The application writes one more segment (an MSS of payload); from
    /// the first write on, only written segments are sent (Telnet).
    fn write(&mut self, net: &mut Net) {
        self.write_segs(net, 1);
    }

    fn on_packet(&mut self, net: &mut Net, pkt: &Packet) {
        let Some(h) = pkt.tcp() else { return };
        if self.cfg.delayed_ack && self.cfg.delack_model == super::DelackModel::Linux {
            // RFC 7323 §4.3: an in-order ACK's TSval becomes TS.Recent
            // (ccsim's ACKs are never older than the last: the newest)
            let r = &mut self.x_make().ts_recent;
            *r = Some(r.unwrap_or(0).max(h.tsval()));
        }
        // ECN feedback ACKs (`ece_acks`): RFC 3168's and DCTCP's carry ECE;
        // AccECN's ECE flag is a bit of the ACE count, so there an ACK
        // counts when the count it reports grows (below).
        if self.connecting() {
            return self.on_syn_ack(net, h.ack, pkt.ts);
        }
        let ce_before = self.x().accecn.as_ref().map(AccEcnSender::ce_packets);
        if ce_before.is_none() {
            self.stats.ece_acks += h.ece as u64;
        }
        let awnd = self.awnd;
        if h.zero_window() {
            self.awnd = 0;
        } else if h.wnd > 0 {
            self.awnd = h.wnd.min(self.cfg.rwnd as u32);
        }
        // Linux `tcp_ack_update_window`: a changed window with data waiting
        // checks for a restart after idle.
        if self.awnd != awnd && self.cfg.slow_start_after_idle && self.has_unsent_data() {
            self.restart_after_idle(net.now);
        }
        if self.cfg.ba && pkt.ip_opt < BA_UNBOUNDED {
            // BA-TCP: the echoed min_j v_ij, times delta_i (the smallest RTT
            // seen: the round-trip propagation delay plus serialisation).
            if let Some(delta) = self.rtt.min_rtt() {
                self.awnd = self.cfg.ba_window(pkt.ip_opt, delta) as u32;
            }
        }
        self.on_ack(net, h, pkt.ts, pkt.cong);
        if let (Some(before), Some(a)) = (ce_before, self.x().accecn.as_ref()) {
            self.stats.ece_acks += (a.ce_packets() > before) as u64;
        }
    }

    fn on_timer(&mut self, net: &mut Net, slot: u8, gen: u32) {
        let now = net.now;
        match slot {
            RTO if self.rto_timer.fire(&mut net.events, sender_timer(self.flow, RTO), now, gen) => self.on_rto(net),
            PACE if self
                .extras
                .as_deref_mut()
                .and_then(|x| x.paced.as_mut())
                .is_some_and(|p| p.timer.fire(&mut net.events, now, gen)) =>
            {
                self.try_send(net)
            }
            TICK if self
                .extras
                .as_deref_mut()
                .and_then(|x| x.tick_timer.as_mut())
                .is_some_and(|t| t.fire(&mut net.events, now, gen)) =>
            {
                self.on_tick(net)
            }
            // ns-2 `timeout_nonrtx(TCP_TIMER_DELSND)`: `send_much(1, ...)`
            DELSND
                if self
                    .extras
                    .as_deref_mut()
                    .and_then(|x| x.jitter.as_mut())
                    .is_some_and(|j| j.timer.fire(&mut net.events, now, gen)) =>
            {
                self.send_much(net, true)
            }
            _ => {}
        }
    }

    fn finished(&self) -> bool {
        self.stats.completed_at.is_some()
    }

    fn report(&self) -> SenderReport {
        SenderReport {
            data_sent: self.stats.data_sent,
            retransmits: self.stats.retransmits,
            timeouts: self.stats.timeouts,
            fast_recoveries: self.stats.fast_recoveries,
            ece_acks: self.stats.ece_acks,
            cwnd: self.st.cwnd,
            ssthresh: self.st.ssthresh,
            srtt_s: self.rtt.srtt(),
            completed_at: self.stats.completed_at.map(|c| c.get()),
            awnd_pkts: (self.cfg.gwa || self.cfg.ba).then_some(self.awnd as f64),
            ..Default::default()
        }
    }

    fn last_feedback(&self) -> Option<FeedbackSample> {
        self.cc.last_feedback()
    }

    fn ecn_alpha(&self) -> Option<f64> {
        self.cc.ecn_alpha()
    }

    fn model_info(&self) -> Option<ModelInfo> {
        self.cc.model_info(&self.st)
    }
}

/// Reno that records the events the sender signals, for tests.
#[cfg(test)]
pub(super) struct EventRecorder(pub std::sync::Arc<std::sync::Mutex<Vec<CcEvent>>>);

#[cfg(test)]
impl CongestionControl for EventRecorder {
    fn name(&self) -> &'static str {
        "recorder"
    }
    fn cong_avoid(&mut self, s: &mut CcState, acked: u64) {
        crate::transport::cc::slow_start_units(false, s, acked, 0.0);
    }
    fn ssthresh(&mut self, s: &CcState) -> f64 {
        (s.cwnd / 2.0).max(2.0)
    }
    fn on_event(&mut self, _s: &mut CcState, ev: CcEvent) {
        self.0.lock().unwrap().push(ev);
    }
}

#[cfg(test)]
impl TcpSender {
    /// Tests that play the receiver: deliver an ACK of `ack` with `ece`
    /// and SACK blocks `sack` at `t` seconds; the segments it let out.
    pub(super) fn test_ack(&mut self, net: &mut Net, t: f64, ack: u64, ece: bool, sack: &[(u64, u64)]) -> Vec<u64> {
        net.now = from_secs(t);
        let mut h = TcpHeader { ack, ece, ..Default::default() };
        for &b in sack {
            h.push_sack(b);
        }
        let pkt = Packet { flow: 0, kind: Kind::Ack, size: 40, ts: 0, l4: L4::Tcp(h), ..Default::default() };
        let before = self.x().trace.as_ref().map_or(0, |t| t.len());
        self.on_packet(net, &pkt);
        self.x().trace.as_ref().map_or(Vec::new(), |t| t[before..].iter().map(|r| r.seq).collect())
    }

    /// A sender of `spec` (JSON fields; `cc` replaces the spec's
    /// controller) on a one-link network whose events are never run: the
    /// test plays the receiver and reads what was sent from the trace.
    pub(super) fn on_test_link(
        spec: serde_json::Value,
        cc: Option<Box<dyn CongestionControl>>,
        seed: u64,
    ) -> (TcpSender, Net) {
        let spec: crate::scenario::FlowSpec = serde_json::from_value(spec).unwrap();
        let cfg = TcpConfig::from_spec(&spec, "flow").unwrap();
        let cc = cc.unwrap_or_else(|| super::build_cc(&spec, "flow").unwrap());
        let mut net = super::one_link_net();
        let mut s = TcpSender::new(0, cfg, cc, seed);
        s.x_make().trace = Some(Vec::new());
        s.open(&mut net);
        (s, net)
    }

    /// ns-2's `delsnd_timer_` of a sender with `send_jitter_s`.
    pub(super) fn delsnd_timer(&self) -> &Timer {
        &self.x().jitter.as_ref().expect("send_jitter_s > 0").timer
    }

    /// Run the pending delayed send (`send_jitter_s`) at its deadline: the
    /// events before it are dropped (tests that play the receiver never run
    /// the network). Returns the segments it sent.
    pub(super) fn fire_delsnd(&mut self, net: &mut Net) -> Vec<u64> {
        use crate::sim::events::EventKind;
        let at = self.delsnd_timer().deadline().expect("a delayed send is pending");
        loop {
            let ev = net.events.pop().expect("the delayed send's event");
            if ev.to.kind == EventKind::AgentTimer && ev.to.idx == self.flow && ev.to.slot == DELSND {
                assert_eq!(ev.time, at);
                net.now = at;
                let before = self.x().trace.as_ref().map_or(0, |t| t.len());
                self.on_timer(net, DELSND, ev.gen);
                return self.x().trace.as_ref().map_or(Vec::new(), |t| t[before..].iter().map(|r| r.seq).collect());
            }
        }
    }
}
