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
//! `syn = "ns2"` starts as ns-2's agents do: segment 0 is a header-only
//! SYN sent alone, and its ACK opens the initial window ([`super::Syn`]).
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
use super::pacing::Pacer;
use super::rtt::{RttEstimator, RttEstimatorKind};
use super::sack1::Sack1;
use super::scoreboard::Scoreboard;
use super::{EcnResponse, PacingKind, Recovery, Syn, TcpConfig};
use crate::net::packet::{CongestionHeader, Ecn, Kind, Packet, TcpHeader, IP_OPT_NONE, L4, MAX_SACK_BLOCKS};
use crate::net::Net;
use crate::sim::rng::Rng;
use crate::sim::time::{from_secs, to_secs};
use crate::sim::{Time, Timer};
use crate::transport::cc::{CcEvent, CcState, CongestionControl, FeedbackSample, NetFeedback};
use crate::transport::{sender_timer, SenderAgent, SenderReport};

/// BA-TCP's v before any router lowered it (kb/s): no bound.
pub const BA_UNBOUNDED: u32 = IP_OPT_NONE - 1;

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
    pub completed_at: Option<Time>,
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
}

pub struct TcpSender {
    pub flow: u32,
    pub cfg: TcpConfig,
    pub cc: Box<dyn CongestionControl>,
    pub st: CcState,
    pub sb: Scoreboard,
    pub rtt: RttEstimator,
    pub state: State,
    dupacks: u32,
    /// Segments sent by Limited Transmit since the last new ACK: RFC 5681
    /// §3.2 step 2 excludes them from the FlightSize that sets ssthresh.
    lt_sent: u64,
    recover: u64,
    rescue_rxt: Option<u64>,
    partial_seen: bool,
    pacer: Pacer,
    /// RFC 3168 §6.1.2: set CWR on the first new data after an ECE reduction.
    cwr_pending: bool,
    /// The receiver's latest advertised window (segments); `cfg.rwnd`
    /// until an ACK advertises one (GWA: W_a = min(B_r, B_n)).
    pub(super) awnd: u64,
    /// The segment that carries (or will carry) that CWR: ECE on ACKs up to
    /// it echoes the same congestion event (the receiver repeats ECE until
    /// it sees CWR, §6.1.3), so only an ACK beyond it can start a new one.
    cwr_seq: Option<u64>,
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
    /// ns-2's `ecn_backoff_` (`ecn_response = "ns2"`): an ECE arrived at a
    /// window of one segment; the RTO backoff is kept while ACKs carry ECE.
    ecn_backoff: bool,
    /// ns-2's `ect_` (`ecn_response = "ns2"`): a new ACK has carried ECE
    /// (the negotiation's, on segment 0's ACK, or a mark's). Until then an
    /// ECE neither stops the window's increase nor holds the backoff
    /// (tcp.cc `recv_newack_helper`, `newack`).
    ns2_ect: bool,
    /// ns-2's `dupwnd_` (`ns2_dupwnd`): the fast-recovery inflation, part
    /// of `st.cwnd` (which holds ns-2's `windowd()` = cwnd_ + dupwnd_)
    /// until the first new ACK takes it off again.
    dupwnd: f64,
    /// ns-2's `last_cwnd_action_ == CWND_ACTION_TIMEOUT`
    /// (`ecn_response = "ns2"`): set by every expiry of the timer, cleared
    /// by the next ECE reaction or fast retransmit.
    ns2_after_timeout: bool,
    /// The timer has resent the head since the last new ACK (RFC 5681
    /// §3.1: a repeated RTO keeps ssthresh).
    pub(super) timer_resent: bool,
    pub(super) rto_timer: Timer,
    pace_timer: Timer,
    pub(super) tick_timer: Timer,
    /// ns-2's `delsnd_timer_` (`send_jitter_s > 0` only): armed, it holds
    /// every send that is not direct until it fires.
    pub(super) delsnd_timer: Timer,
    /// The delays of `send_jitter_s`, one draw per arming (ns-2
    /// `Random::uniform(overhead_)`), from the flow's own stream.
    jitter_rng: Rng,
    pub app_active: bool,
    pub(super) total_segs: Option<u64>,
    /// Segments the application has written (`write`, one each; Telnet);
    /// `None`: the whole transfer is available at `open` (bulk).
    pub(super) offered: Option<u64>,
    /// ns-2 Sack1's state (`recovery = "sack1"` only).
    pub(super) sack1: Option<Box<Sack1>>,
    /// `syn = "ns2"`: the timer fired before anything was acknowledged, so
    /// the SYN's ACK opens one segment (ns-2 `bugfix_ss_`, see [`Syn`]).
    pub(super) syn_timed_out: bool,
    pub stats: SenderStats,
    pub trace: Option<Vec<SendRecord>>,
}

enum Next {
    New,
    Retx(u64),
}

impl TcpSender {
    /// `seed`: the scenario's seed, for the flow's `send_jitter_s` draws.
    /// ns-2's `TcpAgent::reset` draw, `boot_time_ = Random::uniform(tcpTick_)`,
    /// from ns-2's default stream `u` (`Simulation::new`): the tick phase
    /// of an agent with ns-2's estimator, unless `ns2_boot_time_s` gave it.
    pub(crate) fn draw_ns2_boot_time(&mut self, u: f64) {
        if self.cfg.rtt_estimator == RttEstimatorKind::Ns2 && !self.cfg.boot_time_given {
            self.cfg.boot_time = u * self.cfg.granularity;
            self.rtt.set_boot_time(self.cfg.boot_time);
        }
    }

    pub fn new(flow: u32, cfg: TcpConfig, cc: Box<dyn CongestionControl>, seed: u64) -> Self {
        let awnd = cfg.rwnd;
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
        };
        let pacer = match cfg.pacing {
            PacingKind::None => Pacer::None,
            PacingKind::Interval => Pacer::Interval { last_send: None },
            PacingKind::TokenBucket => Pacer::token_bucket(cfg.bucket_pkts),
        };
        TcpSender {
            flow,
            rtt: match cfg.rtt_estimator {
                RttEstimatorKind::Rfc6298 => RttEstimator::new(cfg.min_rto, cfg.max_rto, cfg.init_rto, cfg.granularity),
                RttEstimatorKind::Ns2 => {
                    RttEstimator::ns2(cfg.min_rto, cfg.max_rto, cfg.init_rto, cfg.granularity, cfg.boot_time)
                }
            },
            sb: Scoreboard::new(cfg.dupthresh),
            total_segs: cfg.total_segs(),
            sack1: (cfg.recovery == Recovery::Sack1).then(|| Box::new(Sack1::new())),
            syn_timed_out: false,
            cfg,
            cc,
            st,
            state: State::Open,
            dupacks: 0,
            lt_sent: 0,
            recover: 0,
            rescue_rxt: None,
            partial_seen: false,
            pacer,
            cwr_pending: false,
            awnd,
            cwr_seq: None,
            ecn_cut: false,
            cwr: false,
            local_cwr: false,
            cwnd_cnt: 0,
            held: false,
            ecn_backoff: false,
            ns2_ect: false,
            dupwnd: 0.0,
            ns2_after_timeout: false,
            timer_resent: false,
            rto_timer: Timer::new(sender_timer(flow, RTO)),
            pace_timer: Timer::new(sender_timer(flow, PACE)),
            tick_timer: Timer::new(sender_timer(flow, TICK)),
            delsnd_timer: Timer::new(sender_timer(flow, DELSND)),
            jitter_rng: crate::sim::rng::stream(seed, crate::sim::rng::Stream::SendJitter, flow as u64),
            app_active: false,
            offered: None,
            stats: SenderStats::default(),
            trace: None,
        }
    }

    pub(super) fn sync(&mut self, now: Time) {
        self.st.now = now;
        self.st.flight = self.sb.outstanding();
        self.st.srtt_s = self.rtt.srtt;
        self.st.min_rtt_s = self.rtt.min_rtt;
    }

    /// The controller's decreased window as ssthresh, at least 2 segments
    /// (RFC 5681 eq. 4; ns-2's `slowdown` floors `ssthresh_` at 2). A
    /// controller may return less: HighSpeed's `ns2_decrease_num` gives
    /// ns-2's unfloored `decreasewin`, which `recovery = "sack1"` takes as
    /// cwnd.
    fn cc_ssthresh(&mut self) -> f64 {
        self.cc.ssthresh(&self.st).max(2.0)
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

    /// (Re)start the retransmission timer one RTO from now; with ns-2's
    /// clock (`ns2_clock`) also its `double` deadline, `clock_ +
    /// rtt_timeout()` as ns-2's `TimerHandler::resched` puts it (the ns-2
    /// estimator's RTO is ns-2's `double`: whole ticks times `tcp_tick_`,
    /// times the backoff).
    pub(super) fn arm_rto(&mut self, net: &mut Net) {
        let rto = self.rtt.rto();
        let at = match net.ns2_clock.as_deref_mut() {
            Some(clock) => clock.arm_timer(self.rto_timer.owner(), rto),
            None => net.now.saturating_add(from_secs(rto)),
        };
        self.rto_timer.arm(&mut net.events, at);
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

    /// A timeout with nothing acknowledged yet: ns-2's `TcpAgent::timeout`
    /// sets `wnd_init_ = 1` (`bugfix_ss_`), which `syn = "ns2"` then opens
    /// with.
    pub(super) fn note_timeout_before_any_ack(&mut self) {
        if self.sb.una() == 0 {
            self.syn_timed_out = true;
        }
    }

    /// Process an ACK (RFC 5681, 6582, 6675 as selected by `cfg.recovery`).
    /// `echo` is the congestion header the ACK carried back, handed to the
    /// controller on a new ACK after its window rule (as ns-2's
    /// `XcpRenoTcpAgent::recv_newack_helper` runs Reno's, then XCP's).
    /// The SACK blocks are read from `h` where they are used (RFC 6675's
    /// scoreboard, ns-2's Sack1), not copied out for every ACK.
    fn on_ack(&mut self, net: &mut Net, h: &TcpHeader, ts_echo: Time, echo: Option<CongestionHeader>) {
        let (ack, ece) = (h.ack, h.ece);
        if self.sack1.is_some() {
            let n = h.n_sack as usize;
            let mut sack = [(0, 0); MAX_SACK_BLOCKS];
            for (i, b) in sack.iter_mut().enumerate().take(n) {
                *b = h.sack_block(i);
            }
            return self.sack1_on_ack(net, ack, &sack[..n], ts_echo, echo);
        }
        let now = net.now;
        let una = self.sb.una();
        let ack = ack.min(self.sb.high());
        if self.cfg.recovery == Recovery::Sack {
            for (s, e) in h.sack_blocks() {
                self.sb.mark_sacked(s, e);
            }
        }
        let ns2_resp = self.cfg.ecn_response == EcnResponse::Ns2;
        let ns2_ecn = self.cfg.ecn && ns2_resp;
        // ns-2's `recv` (tcp-reno.cc, tcp-newreno.cc) runs `ecn(seqno)`
        // before anything else on the ACK: the ACK's own rules (its RTT
        // sample, the timer's backoff, the end of a recovery, the
        // duplicate rules) then run on the window, backoff and `recover_`
        // the reaction left.
        if ns2_ecn && ece && self.ns2_reacts_to_ece(ack) {
            if self.cwr && ack > self.recover {
                self.end_cwr();
            }
            self.ece_reaction(net);
        }
        if ack > una {
            // ns-2 `recv_newack_helper`: an ECE stops `opencwnd` only
            // once `ect_` is set (by an earlier ECE-carrying ACK).
            let blocks = ece && (!ns2_ecn || self.ns2_ect);
            let acked = ack - una;
            let r = to_secs(now.saturating_sub(ts_echo));
            let partial = self.state == State::Recovery
                && ack < self.recover
                && matches!(self.cfg.recovery, Recovery::NewReno | Recovery::Sack);
            // ns-2 newack: "don't end backoff if still in ECN-Echo with a
            // congestion window of 1 packet" (`ect_ && ecn_backoff_ &&
            // ecnecho`), with `ecn_backoff_` as `ecn` has just left it.
            let hold = ns2_ecn && ece && self.ecn_backoff && self.ns2_ect;
            let backoff = self.rtt.backoff;
            self.rtt.on_new_ack(ack, r, partial, now);
            if hold {
                self.rtt.backoff = backoff;
            }
            self.timer_resent = false;
            self.sb.advance(ack);
            self.dupacks = 0;
            self.lt_sent = 0;
            self.sync(now);
            self.cc.pkts_acked(&mut self.st, acked, Some(r));
            let mut restart_rto = true;
            if self.cwr && ack > self.recover {
                self.end_cwr();
            }
            match self.state {
                State::Recovery if self.cfg.ns2_dupwnd && !partial => self.ns2_reno_exit(blocks, acked),
                State::Recovery if ack >= self.recover || self.cfg.recovery == Recovery::Reno => {
                    // Full ACK (or Reno's any new ACK): deflate to ssthresh.
                    self.state = State::Open;
                    self.st.cwnd = self.st.ssthresh;
                    self.cc.on_event(&mut self.st, CcEvent::RecoveryEnd);
                }
                State::Recovery => {
                    if self.cfg.recovery == Recovery::NewReno {
                        // Partial ACK: retransmit the next hole, deflate by the
                        // amount acked and add back one segment (ns-2's
                        // `partialnewack` deflates first, then sends).
                        if self.cfg.ns2_dupwnd {
                            self.ns2_partial_deflate(acked);
                        }
                        self.sb.mark_lost_below(ack + 1);
                        self.retransmit_first_lost(net, true);
                        if !self.cfg.ns2_dupwnd {
                            self.st.cwnd = (self.st.cwnd - acked as f64 + 1.0).max(1.0);
                        }
                        restart_rto = !self.partial_seen;
                        self.partial_seen = true;
                    }
                }
                // RFC 3168 §6.1.2: no window increase in response to an
                // ACK carrying ECE (any of them, not only the one that
                // triggers the reduction; ns-2 `recv_newack_helper` skips
                // `opencwnd` the same way).
                State::Loss => {
                    // ns-2 Reno `recv`: a new ACK drops `dupwnd_` (the
                    // inflation of a retransmission in the loss state,
                    // below).
                    self.st.cwnd -= std::mem::take(&mut self.dupwnd);
                    if ack >= self.recover {
                        self.state = State::Open;
                        self.cc.on_event(&mut self.st, CcEvent::LossEnd);
                    }
                    if !blocks {
                        self.cc.cong_avoid(&mut self.st, acked);
                    }
                }
                State::Open if blocks => {}
                // Linux 2.4 `tcp_may_raise_cwnd`: no increase in CWR;
                // `tcp_try_to_open` runs `tcp_cwnd_down` instead.
                State::Open if self.local_cwr => self.cwnd_down(),
                // ns-2's `opencwnd` (`ecn_response = "ns2"`, Reno): slow
                // start adds one segment while cwnd < ssthresh, not capped
                // at ssthresh. It differs only from a fractional window an
                // unrounded ECN halving left below ssthresh (1.5 -> 2.5,
                // where the cap gives 2).
                State::Open if ns2_resp && self.st.cwnd < self.st.ssthresh => self.st.cwnd += 1.0,
                State::Open => self.cc.cong_avoid(&mut self.st, acked),
            }
            self.syn_acked(ack);
            if ns2_ecn && ece {
                self.ns2_ect = true;
            }
            if let Some(h) = echo {
                self.clamp_cwnd();
                self.cc.on_feedback(&mut self.st, NetFeedback::Echo(h));
            }
            self.clamp_cwnd();
            if self.sb.outstanding() == 0 && self.st.cwnd >= 1.0 && !self.cfg.ns2_idle_restart {
                self.rto_timer.disarm();
            } else if restart_rto {
                self.arm_rto(net);
            }
            if self.total_segs == Some(self.sb.una()) && self.stats.completed_at.is_none() {
                self.stats.completed_at = Some(now);
                self.rto_timer.disarm();
                self.tick_timer.disarm();
            }
        } else if ack == una && (self.sb.outstanding() > 0 || self.cfg.ns2_singledup) {
            // ns-2's `recv` counts every ACK of `last_ack_` as a duplicate,
            // with nothing outstanding too (the ACK of a go-back-N resend
            // of a segment that had arrived), and `send_one` may then send
            // (below); RFC 5681 counts only with data outstanding.
            self.dupacks += 1;
            self.sync(now);
            // (An ECE on the third duplicate itself has been reacted to
            // above, so that duplicate resends without a second cut:
            // `dupack_action`'s ECN branch, `after_ecn` in the open state,
            // the `State::Loss` arm after a timeout.)
            let ns2_reno_ecn = self.cfg.ns2_bugfix && ns2_resp;
            match self.state {
                // With nothing outstanding there is nothing to repair.
                // (ns-2's `dupack_action` would still run at the third such
                // duplicate in a row and send `last_ack_ + 1`, new data, as
                // a fast retransmission; ccsim does not model that.)
                _ if self.sb.outstanding() == 0 => {}
                State::Open => {
                    if self.local_cwr {
                        self.cwnd_down();
                    }
                    let lost = self.cfg.recovery == Recovery::Sack && self.sb.lost_hi() > una;
                    // after an ECE reduction in this window, still repair
                    // the loss, without reducing again
                    // (ns-2 `RenoTcpAgent::dupack_action` with `bug_fix_`:
                    // after `CWND_ACTION_ECN` while `highest_ack_ <=
                    // recover_`, i.e. una <= recover, with ns-2's ECN agent)
                    let after_ecn = self.ecn_cut && (una < self.recover || (ns2_reno_ecn && una == self.recover));
                    let past_recover = if self.cfg.ns2_bugfix { una > self.recover } else { una >= self.recover };
                    // ns-2 decides at the `numdupacks_`-th duplicate only
                    // (`++dupacks_ == numdupacks_` -> `dupack_action`): a
                    // later ECE cut does not make the next duplicate resend.
                    let at_thresh = if self.cfg.ns2_bugfix {
                        self.dupacks == self.cfg.dupthresh
                    } else {
                        self.dupacks >= self.cfg.dupthresh
                    };
                    if (at_thresh || lost) && (past_recover || after_ecn) {
                        self.enter_recovery(net, !after_ecn);
                    }
                }
                // ns-2's `RenoTcpAgent::dupack_action` after a timeout whose
                // window an ECE then cut (`last_cwnd_action_ ==
                // CWND_ACTION_ECN`, set by `ecn` after the timeout's
                // CWND_ACTION_TIMEOUT): the third duplicate resends
                // `last_ack_ + 1` (`output`, though the go-back-N already
                // resent it) with no cut, restarts the timer and sets
                // `dupwnd_ = numdupacks_`, each later duplicate adding one
                // (`last_cwnd_action_` is then DUPACK); the go-back-N goes
                // on from where it was (`t_seqno_`), under the inflated
                // window, until the next new ACK drops the inflation.
                State::Loss if self.ecn_cut && self.dupacks == self.cfg.dupthresh && ns2_reno_ecn => {
                    // last_cwnd_action_ = DUPACK
                    self.ecn_cut = false;
                    // `output(last_ack_ + 1)`, whatever the go-back-N
                    // covered; when that segment is new data sent after it,
                    // it is counted lost as well as resent, so the window
                    // (`t_seqno_ <= highest_ack_ + win`) is as before.
                    self.sb.mark_lost_below(una + 1);
                    self.sb.resend_first();
                    // `reset_rtx_timer(1, 0)` before `output`: the timer
                    // restarts unbacked-off and the timed segment gives no
                    // sample (`rtt_active_ = 0`).
                    self.rtt.on_fast_retransmit();
                    self.transmit(net, una, true);
                    self.arm_rto(net);
                    self.dupwnd = self.cfg.dupthresh as f64;
                    self.st.cwnd += self.dupwnd;
                }
                State::Loss if self.dupwnd > 0.0 && self.dupacks > self.cfg.dupthresh => {
                    self.dupwnd += 1.0;
                    self.st.cwnd += 1.0;
                }
                State::Recovery if self.cfg.recovery != Recovery::Sack => {
                    self.st.cwnd = (self.st.cwnd + 1.0).min(self.st.max_cwnd);
                    if self.cfg.ns2_dupwnd {
                        self.dupwnd += 1.0;
                    }
                }
                _ => {}
            }
        }
        if !ece {
            self.ecn_backoff = false;
        }
        let una = self.sb.una();
        if ece && !ns2_ecn && self.reacts_to_ece(una) {
            self.ece_reaction(net);
        }
        // A duplicate ACK below the threshold sends one segment by Limited
        // Transmit as ns-2's `send_one` does (tcp-reno.cc `recv`: `send_one`
        // and no `send_much` for dupacks_ < numdupacks_): at once, past any
        // pending delayed send (send_jitter_s), and with `ns2_singledup`
        // (unpaced) only now, at this ACK, when new data is there to send
        // (an application-limited flow's later write waits for the window).
        let ns2_one = self.ns2_send_one() && (self.state == State::Open || self.state == State::Loss);
        let jitter_one = self.cfg.send_jitter_s > 0.0 && self.state == State::Open;
        if (ns2_one || jitter_one) && (1..self.cfg.dupthresh).contains(&self.dupacks) {
            if self.stats.completed_at.is_none() {
                self.send_next(net, self.window() + self.lt_allowance());
            }
        } else {
            self.try_send(net);
        }
    }

    /// The end of CWR: Linux `tcp_fastretrans_alert` ends it once
    /// `snd_una` is beyond `high_seq` (the CWR segment has arrived).
    fn end_cwr(&mut self) {
        self.cwr = false;
        if std::mem::take(&mut self.local_cwr) {
            // Linux 2.4 `tcp_complete_cwr`.
            self.st.cwnd = self.st.cwnd.min(self.st.ssthresh);
        }
        self.cc.on_event(&mut self.st, CcEvent::CwrEnd);
    }

    /// ns-2's `slowdown(CLOSE_CWND_*)` sets `cong_action_` on every window
    /// cut (`ecn_response = "ns2"`): the next segment carries CWR.
    fn ns2_cong_action(&mut self) {
        if self.cfg.ecn_response == EcnResponse::Ns2 {
            self.cwr_pending = self.cfg.ecn;
        }
    }

    /// React to an ECE (once per window: `reacts_to_ece`, or `ns2_reacts_to_ece`): RFC 3168
    /// §6.1.2 as for a loss, said with CWR on the next new data; ns-2's
    /// `TcpAgent::ecn` with `ecn_response = "ns2"` (`seqno > recover_ ||
    /// last_cwnd_action_ == CWND_ACTION_TIMEOUT`, so also the first ECE
    /// after a timeout).
    fn ece_reaction(&mut self, net: &mut Net) {
        self.ns2_after_timeout = false;
        self.cwr_pending = true;
        self.cwr_seq = Some(self.sb.high());
        self.sync(net.now);
        if self.cfg.ecn_response == EcnResponse::Ns2 {
            self.ns2_ecn_cut(net);
        } else {
            self.st.ssthresh = self.cc_ssthresh();
            self.st.cwnd = self.st.ssthresh;
        }
        self.recover = self.sb.high();
        self.ecn_cut = true;
        self.cwr = true;
        self.cc.on_event(&mut self.st, CcEvent::EcnEcho);
        self.clamp_cwnd();
    }

    /// ns-2's `TcpAgent::ecn` + `slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF)`
    /// (tcp.cc): with `precisionReduce_` (ns-2.35's default since
    /// 2006/1/24) cwnd = `windowd()`/2 = min(cwnd, rwnd)/2 unrounded and
    /// ssthresh = max(⌊that⌋, 2), so a window under two segments closes
    /// (`window()` = ⌊cwnd⌋ = 0); at a window of at most one segment the
    /// first ECE arms `ecn_backoff_`, later ones back the timer off
    /// (restarted by ns-2's `newack`, which runs after `ecn`).
    fn ns2_ecn_cut(&mut self, net: &mut Net) {
        let mut backed_off = false;
        if self.st.cwnd <= 1.0 {
            if self.ecn_backoff {
                self.rtt.back_off();
                backed_off = true;
            } else {
                self.ecn_backoff = true;
            }
        } else {
            self.ecn_backoff = false;
        }
        // `windowd()` = cwnd_ + dupwnd_ (the inflation, kept apart as
        // `dupwnd` and dropped by the ACK's own rules after this), capped
        // by the receiver's window; cwnd_ becomes half of it.
        let half = self.st.cwnd.min(self.awnd as f64) / 2.0;
        self.st.ssthresh = half.floor().max(2.0);
        self.st.cwnd = half + self.dupwnd;
        // ns-2 `newtimer`: the timer also runs at cwnd < 1 with nothing
        // outstanding, since only its expiry can reopen the window.
        if half < 1.0 || (backed_off && self.sb.outstanding() > 0) {
            self.arm_rto(net);
        }
    }

    /// Linux 2.4 `tcp_cwnd_down` (tcp_input.c), once per ACK in CWR: one
    /// segment less every second ACK while cwnd > ssthresh/2, and never
    /// more than the packets in flight + 1 (so with delayed ACKs the
    /// window falls by about half over the CWR round, whatever ssthresh).
    fn cwnd_down(&mut self) {
        let decr = self.cwnd_cnt + 1;
        self.cwnd_cnt = decr & 1;
        let decr = decr >> 1;
        if decr > 0 && self.st.cwnd > (self.st.ssthresh / 2.0).floor() {
            self.st.cwnd -= decr as f64;
        }
        self.st.cwnd = self.st.cwnd.min(self.sb.pipe() as f64 + 1.0);
        self.clamp_cwnd();
    }

    /// The sending host's interface queue (`txqueuelen_pkts`) is full: the
    /// segment is not sent but stays unsent in the sender, and the sender
    /// enters CWR unless it is already in CWR, recovery or loss, i.e. at
    /// most once per window. This is Linux 2.4's `tcp_transmit_skb`: on
    /// NET_XMIT_DROP from `dev_queue_xmit` (pfifo_fast full) it calls
    /// `tcp_enter_cwr` and returns the error, `tcp_write_xmit` stops
    /// without advancing `send_head`, and the segment is sent by a later
    /// ACK's `tcp_data_snd_check` (or the probe timer if nothing is
    /// outstanding). `tcp_enter_cwr` (only if `ca_state < TCP_CA_CWR`):
    /// ssthresh = the controller's reduction (`tcp_recalc_ssthresh`; the
    /// LTCP patch's there), cwnd = min(cwnd, in flight + 1),
    /// `snd_cwnd_cnt` = 0, `high_seq` = `snd_nxt`, CWR queued for the
    /// receiver if ECN is on (`TCP_ECN_queue_cwr`). The window then falls
    /// by [`Self::cwnd_down`] until an ACK beyond `high_seq`
    /// (`tcp_complete_cwr`: cwnd = min(cwnd, ssthresh)). Sources: Linux
    /// 2.4 net/ipv4/tcp_output.c, tcp_input.c, include/net/tcp.h,
    /// net/sched/sch_generic.c.
    fn on_local_congestion(&mut self, net: &mut Net) {
        self.stats.local_holds += 1;
        self.held = true;
        if self.state == State::Open && !self.cwr {
            self.sync(net.now);
            self.st.ssthresh = self.cc_ssthresh();
            self.st.cwnd = self.st.cwnd.min(self.sb.pipe() as f64 + 1.0);
            self.cwnd_cnt = 0;
            self.recover = self.sb.high();
            // A loss found in this window is repaired without a second
            // reduction (Linux: `tcp_fastretrans_alert` recalculates
            // ssthresh only from `ca_state < TCP_CA_CWR`).
            self.ecn_cut = true;
            self.cwr = true;
            self.local_cwr = true;
            self.cwr_pending = self.cfg.ecn;
            self.stats.local_cwrs += 1;
            self.cc.on_event(&mut self.st, CcEvent::EcnEcho);
            self.clamp_cwnd();
        }
        if self.sb.outstanding() == 0 && !self.rto_timer.is_armed() {
            self.arm_rto(net);
        }
    }

    /// Whether an ECE on an ACK leaving `una` unacknowledged cuts the
    /// window: once per window (RFC 3168 §6.1.2), in the open state.
    fn reacts_to_ece(&self, una: u64) -> bool {
        self.state == State::Open && una >= self.recover && self.cwr_seq.is_none_or(|c| una > c)
    }

    /// ns-2's `TcpAgent::ecn` condition for an ACK of `ack` (tcp.cc):
    /// `seqno > recover_`, or the first ECE after a timeout whatever
    /// `recover_` (`last_cwnd_action_ == CWND_ACTION_TIMEOUT`). ns-2's
    /// `seqno` is the last segment acknowledged (`ack - 1`) and `recover_`
    /// is `maxseq_`, the last segment sent (`recover - 1`), so an ACK of
    /// exactly the window of the last reduction (`ack == recover`, e.g.
    /// the one ending a fast recovery) does not cut again: its ECE echoes
    /// a mark in that window. ns-2's `recover_` starts at 0 (segment 0),
    /// which is `recover` 1 here: the negotiation's ECE on segment 0's ACK
    /// cuts only after a timeout.
    fn ns2_reacts_to_ece(&self, ack: u64) -> bool {
        self.ns2_after_timeout || ack > self.recover.max(1)
    }

    /// The ACK ending a recovery with `ns2_dupwnd` (Reno's first new ACK,
    /// NewReno's full ACK), as tcp-reno.cc and tcp-newreno.cc `recv` run it
    /// (after `ecn`, above): `dupwnd_ = 0` without deflating cwnd_ to
    /// ssthresh, then `opencwnd` unless the ACK carries ECE
    /// (`recv_newack_helper`).
    fn ns2_reno_exit(&mut self, blocks: bool, acked: u64) {
        self.state = State::Open;
        self.cc.on_event(&mut self.st, CcEvent::RecoveryEnd);
        self.st.cwnd -= std::mem::take(&mut self.dupwnd);
        if !blocks {
            if self.cfg.ecn_response == EcnResponse::Ns2 && self.st.cwnd < self.st.ssthresh {
                self.st.cwnd += 1.0;
            } else {
                self.cc.cong_avoid(&mut self.st, acked);
            }
        }
    }

    /// The deflation of a partial ACK of `deflate` segments in a NewReno
    /// recovery with `ns2_dupwnd`, as tcp-newreno.cc `partialnewack` (with
    /// `partial_window_deflation_`, ns-2.35's default) does it: dupwnd_
    /// loses `deflate - 1` while it exceeds `deflate`; otherwise cwnd_
    /// loses `deflate - dupwnd_` (not below 1) and dupwnd_ stays 1 to
    /// flag the recovery; cwnd_ is not opened.
    fn ns2_partial_deflate(&mut self, acked: u64) {
        let deflate = acked as f64;
        let mut cwnd_ = self.st.cwnd - self.dupwnd;
        if self.dupwnd > deflate {
            self.dupwnd -= deflate - 1.0;
        } else {
            cwnd_ = (cwnd_ - (deflate - self.dupwnd)).max(1.0);
            self.dupwnd = 1.0;
        }
        self.st.cwnd = cwnd_ + self.dupwnd;
    }

    /// Fast retransmit and recovery; `cut`: reduce ssthresh (false when an
    /// ECE reduction already did, in this window).
    fn enter_recovery(&mut self, net: &mut Net, cut: bool) {
        self.ns2_after_timeout = false;
        if cut {
            // ns-2 `RenoTcpAgent::dupack_action` calls `slowdown`.
            self.ns2_cong_action();
        }
        if cut {
            self.st.flight = self.sb.outstanding() - self.lt_sent;
            if self.cfg.ns2_dupwnd {
                // `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF)` with
                // `precisionReduce_`: windowd() / 2 unrounded.
                let half = self.st.cwnd.min(self.awnd as f64) / 2.0;
                self.st.ssthresh = half.floor().max(2.0);
                self.st.cwnd = half;
            } else {
                self.st.ssthresh = self.cc_ssthresh();
            }
        }
        self.ecn_cut = false;
        self.cwr = false;
        self.local_cwr = false;
        if self.cfg.ns2_dupwnd {
            // dupwnd_ = numdupacks_ on top of cwnd_, which keeps its value
            // (halved above, or as an ECN reduction left it). After an
            // ECN reduction ns-2 leaves `recover_` where `ecn` put it.
            self.dupwnd = self.cfg.dupthresh as f64;
            self.st.cwnd += self.dupwnd;
        } else {
            self.st.cwnd = match self.cfg.recovery {
                Recovery::Sack => self.st.ssthresh,
                _ => self.st.ssthresh + self.cfg.dupthresh as f64,
            };
        }
        self.clamp_cwnd();
        if cut || !self.cfg.ns2_dupwnd {
            self.recover = self.sb.high();
        }
        self.state = State::Recovery;
        self.partial_seen = false;
        self.rescue_rxt = Some(self.sb.una() + 1);
        self.stats.fast_recoveries += 1;
        self.cc.on_event(&mut self.st, CcEvent::RecoveryStart);
        self.sb.mark_lost_below(self.sb.una() + 1);
        self.rtt.on_fast_retransmit();
        self.retransmit_first_lost(net, true);
        // Restart the timer with the fast retransmission, as ns-2's
        // dupack_action() and Linux (rearm on retransmitting the head) do:
        // otherwise, with a stable RTT (RTTVAR -> 0), the retransmission's
        // extra queueing delay behind a full buffer fires a spurious RTO.
        self.arm_rto(net);
    }

    /// Retransmission timer expired (RFC 6298 §5.4–5.6, RFC 5681 eq. 4).
    pub fn on_rto(&mut self, net: &mut Net) {
        if self.sack1.is_some() {
            return self.sack1_on_rto(net);
        }
        // ns-2 `timeout`: every expiry sets `last_cwnd_action_` to TIMEOUT,
        // after which `ecn` reacts to the next ECE whatever `recover_`, and
        // calls `slowdown(CLOSE_CWND_*)`.
        self.ns2_after_timeout = self.cfg.ecn_response == EcnResponse::Ns2;
        // ns-2 `RenoTcpAgent::timeout`: dupwnd_ = 0 (cwnd_, the window
        // without it, is what `slowdown` halves below).
        let ns2_cwnd = (self.st.cwnd - self.dupwnd).min(self.awnd as f64);
        self.dupwnd = 0.0;
        self.ns2_cong_action();
        if self.sb.outstanding() == 0 {
            if self.cfg.ecn_response == EcnResponse::Ns2 {
                // ns-2 `timeout` sets `recover_ = maxseq_` and, on every
                // expiry, `last_cwnd_action_ = CWND_ACTION_TIMEOUT`: an
                // ECN reduction before it no longer spares a later
                // timeout's ssthresh cut.
                self.ecn_cut = false;
                self.recover = self.sb.high();
            }
            if self.st.cwnd < 1.0 || self.cfg.ns2_idle_restart {
                // ns-2 `timeout` with no outstanding data (after an ECN cut
                // to 0, or idle with `ns2_idle_restart`): the window is one
                // segment, no retransmission and no ssthresh cut
                // (`slowdown(CLOSE_CWND_ONE|NO_OUTSTANDING_DATA)`), and,
                // as `restart_bugfix_` (true by default) has it, no backoff
                // either (`reset_rtx_timer(0, 0)`, which rearms the timer).
                self.st.cwnd = 1.0;
                self.rtt.forget_timed();
                if self.cfg.ns2_idle_restart {
                    self.recover = self.sb.high();
                    self.arm_rto(net);
                }
                self.try_send(net);
            } else if self.held {
                // Linux's probe timer (`tcp_probe_timer`): nothing is
                // outstanding to clock a retry of the held segment.
                self.try_send(net);
            }
            return;
        }
        self.stats.timeouts += 1;
        self.note_timeout_before_any_ack();
        // Backoff is cleared when new data is ACKed, so a nonzero backoff
        // means this segment was already resent by the timer.
        let repeated = self.timer_resent;
        self.timer_resent = true;
        self.rtt.on_timeout();
        self.sync(net.now);
        // RFC 5681 §3.1 eq. (4) sets ssthresh to *no more than*
        // max(FlightSize/2, 2): the flight is capped by the window here, as
        // ns-2 (`window()`) and Linux (`snd_cwnd`) do. In Reno/NewReno fast
        // recovery that is the window without the dupack inflation: ns-2
        // keeps the inflation apart (`dupwnd_`), its `cwnd_` stays at the
        // halved window, and `slowdown` halves `window()` = `cwnd_` again
        // (an RTO in recovery after a slow-start overshoot: ns-2 52 -> 26,
        // where the inflated cwnd gave 80; docs/validation.md, "E-TCP and
        // LTCP baselines"). (Linux does not reduce ssthresh a second time
        // inside the recovery's window at all: `tcp_enter_loss`.) Without the cap, an RTO
        // that ends a failed SACK recovery counts everything sent during it
        // (SACKed data included) and sets ssthresh far above what the path
        // holds; with a gentle decrease (CUBIC's beta 0.7) the next slow
        // start then overshoots into the same failed recovery forever.
        // The same rule applies only "if the given segment has not yet been
        // resent by way of the retransmission timer": a backed-off repeat
        // keeps ssthresh (as Linux `tcp_enter_loss`), instead of collapsing
        // it to 2 from the one-segment window the first RTO left; ns-2's
        // `TcpAgent::timeout` does collapse it (`slowdown` with
        // CLOSE_SSTHRESH_HALF on every timeout): `halve_on_repeated_rto`.
        // RFC 3168 §6.1.2: nor is ssthresh lowered again if an ECE
        // reduction already lowered it in this window (ns-2 `timeout`:
        // `CLOSE_CWND_ONE` only, after `CWND_ACTION_ECN`).
        if self.cfg.ns2_bugfix && self.cfg.ecn_response == EcnResponse::Ns2 {
            // ns-2 `RenoTcpAgent::timeout` (tcp-reno.cc, NewReno's too):
            // `if (bug_fix_) recover_ = maxseq_` before `TcpAgent::timeout`
            // tests `highest_ack_ < recover_`, so with data outstanding the
            // timeout after an ECN reduction is the ECN one (`slowdown(
            // CLOSE_CWND_ONE)`, no ssthresh cut, no `++nrexmit_`) however
            // much of that reduction's window has been acknowledged.
            self.recover = self.sb.high();
        }
        let after_ecn = self.ecn_cut && self.sb.una() < self.recover;
        if (!repeated || self.cfg.halve_on_repeated_rto) && !after_ecn {
            if self.cfg.ns2_dupwnd {
                // ns-2's `slowdown(CLOSE_SSTHRESH_HALF | ...)`: ssthresh_
                // is an int, (int)(windowd() / 2) of the window cwnd_,
                // not of the flight (floor(w / 2) = floor(floor(w) / 2)).
                self.st.flight = ns2_cwnd.max(0.0).floor() as u64;
                self.st.ssthresh = self.cc_ssthresh().floor().max(2.0);
            } else {
                let window =
                    if self.state == State::Recovery { self.st.cwnd.min(self.st.ssthresh) } else { self.st.cwnd };
                self.st.flight = self.st.flight.min(window.ceil() as u64);
                self.st.ssthresh = self.cc_ssthresh();
            }
        }
        self.st.cwnd = 1.0;
        self.cc.on_event(&mut self.st, CcEvent::Timeout);
        self.clamp_cwnd();
        self.state = State::Loss;
        self.recover = self.sb.high();
        self.ecn_cut = false;
        self.cwr = false;
        self.local_cwr = false;
        self.dupacks = 0;
        self.sb.on_rto();
        if self.cfg.send_jitter_s == 0.0 {
            // With send_jitter_s, ns-2's `timeout` resends through the
            // delayed `send_much` (below), not at once.
            self.retransmit_first_lost(net, true);
        }
        self.arm_rto(net);
        self.try_send(net);
    }

    pub fn on_tick(&mut self, net: &mut Net) {
        if !self.app_active && self.sb.outstanding() == 0 {
            return;
        }
        self.sync(net.now);
        self.cc.on_tick(&mut self.st);
        self.clamp_cwnd();
        if let Some(p) = self.cc.tick_interval_s(&self.st) {
            self.tick_timer.arm(&mut net.events, net.now.saturating_add(from_secs(p)));
        }
        self.try_send(net);
    }

    fn retransmit_first_lost(&mut self, net: &mut Net, forced: bool) {
        if let Some(s) = self.sb.next_unsent_hole() {
            if s < self.sb.lost_hi() {
                self.transmit(net, s, forced);
            }
        }
    }

    fn has_new_data(&self) -> bool {
        // Gerla et al. eq. 1: W_t = min(W_c, W_a) - W_u; cwnd is applied by
        // the caller, the advertised window here. (A SYN goes with the
        // first write: ns-2's `output` adds it to `curseq_`.)
        self.app_active
            && self.total_segs.is_none_or(|t| self.sb.high() < t)
            && self.offered.is_none_or(|o| self.sb.high() < o + self.cfg.first_data_seg())
            && self.sb.outstanding() < self.awnd
    }

    /// The segments the sending rules allow out: the window plus Limited
    /// Transmit's allowance (open: against FlightSize) as a standing one,
    /// which a segment written later may use too (RFC 3042, Linux's
    /// `tcp_packets_in_flight` less the duplicates). ns-2 grants it only
    /// at a duplicate ACK's arrival (`ns2_singledup`, [`Self::lt_allowance`]),
    /// and any other send under the window alone. A send changes none of the
    /// inputs (a held one ends the burst), so a burst computes it once.
    fn send_limit(&self) -> u64 {
        let cwnd = self.window();
        if self.ns2_send_one() {
            cwnd
        } else {
            cwnd + self.lt_allowance()
        }
    }

    /// Limited Transmit only at a duplicate ACK's arrival, as ns-2's
    /// `send_one` (`ns2_singledup`). A paced sender keeps the standing
    /// allowance: its segments leave when the pacer releases them, never
    /// at a duplicate's instant (ns-2's Reno agents have no pacer; the
    /// papers' paced TCPs are this pacer on them).
    fn ns2_send_one(&self) -> bool {
        self.cfg.ns2_singledup && matches!(self.pacer, Pacer::None)
    }

    /// Limited Transmit's allowance beyond the window: one segment per
    /// duplicate ACK up to `dupthresh - 1` in the open state (RFC 3042;
    /// with `limited_transmit`), and with `ns2_singledup` also after a
    /// timeout ([`Self::singledup_allowance`]).
    fn lt_allowance(&self) -> u64 {
        if self.state == State::Open {
            if self.cfg.limited_transmit {
                self.dupacks.min(2) as u64
            } else {
                0
            }
        } else {
            self.singledup_allowance()
        }
    }

    /// RFC 6675 NextSeg() in recovery and loss; FlightSize gating when
    /// open. `limit`: [`Self::send_limit`].
    fn next_segment(&mut self, limit: u64) -> Option<Next> {
        if !self.within_limit(limit) {
            return None;
        }
        if self.state == State::Open {
            return Some(Next::New);
        }
        let hole = self.sb.next_unsent_hole();
        if let Some(s) = hole.filter(|&s| s < self.sb.lost_hi()) {
            return Some(Next::Retx(s)); // rule 1
        }
        if self.has_new_data() {
            return Some(Next::New); // rule 2
        }
        if self.cfg.recovery == Recovery::Sack {
            if let Some(s) = hole.filter(|&s| s < self.sb.high_sacked()) {
                return Some(Next::Retx(s)); // rule 3
            }
            if self.state == State::Recovery && self.rescue_rxt.is_some_and(|r| self.sb.una() > r) {
                // rule 4: one rescue retransmission per recovery
                self.rescue_rxt = Some(self.recover);
                return self.sb.highest_unsacked().map(Next::Retx);
            }
        }
        None
    }

    /// Send while the window, the receiver and the pacer allow (after the
    /// `send_jitter_s` delay, if set).
    pub fn try_send(&mut self, net: &mut Net) {
        self.send_much(net, false);
    }

    /// ns-2 `send_much(force)`: with `send_jitter_s`, a send that is not
    /// `force`d waits for a pending delayed send, or arms one if the window
    /// is open (tcp.cc: `if (!force && delsnd_timer_.status() ==
    /// TIMER_PENDING) return;` ... `delsnd_timer_.resched(Random::uniform(
    /// overhead_))`); the timer's expiry sends with `force`. Without
    /// `send_jitter_s` every send is direct.
    fn send_much(&mut self, net: &mut Net, force: bool) {
        if self.stats.completed_at.is_some() {
            return;
        }
        if self.sack1.is_some() {
            return self.sack1_send_much(net, force);
        }
        if !force && self.cfg.send_jitter_s > 0.0 {
            if !self.delsnd_timer.is_armed() && self.next_segment_available() {
                self.arm_delsnd(net);
            }
            return;
        }
        let now = net.now;
        let limit = self.send_limit();
        loop {
            let release = self.pacer.release_time(now, self.st.cwnd, self.rtt.srtt);
            if release > now {
                if self.next_segment_available() {
                    self.pace_timer.arm(&mut net.events, release);
                }
                return;
            }
            if !self.send_next(net, limit) {
                return;
            }
        }
    }

    /// Send the segment `next_segment` picks under `limit`
    /// ([`Self::send_limit`]), if any; whether one was sent.
    fn send_next(&mut self, net: &mut Net, limit: u64) -> bool {
        match self.next_segment(limit) {
            None => false,
            Some(Next::New) => {
                // Beyond cwnd only on Limited Transmit's allowance, which
                // is nonzero only after a duplicate ACK.
                let lt = self.state == State::Open && self.dupacks > 0 && self.sb.outstanding() >= self.window();
                let s = self.sb.high();
                if !self.transmit(net, s, false) {
                    return false;
                }
                if lt {
                    self.lt_sent += 1; // beyond cwnd: Limited Transmit (RFC 3042)
                }
                true
            }
            Some(Next::Retx(s)) => self.transmit(net, s, false),
        }
    }

    /// Arm ns-2's `delsnd_timer_` `Random::uniform(overhead_)` from now.
    pub(super) fn arm_delsnd(&mut self, net: &mut Net) {
        use rand::Rng as _;
        let u: f64 = self.jitter_rng.gen();
        let at = net.now.saturating_add(from_secs(u * self.cfg.send_jitter_s));
        self.delsnd_timer.arm(&mut net.events, at);
    }

    /// Whether a segment would be sent if the pacer allowed it (no side effects).
    fn next_segment_available(&self) -> bool {
        self.within_limit(self.send_limit())
    }

    /// The gate of [`Self::next_segment`] under `limit`: open, new data
    /// and FlightSize below it; otherwise `pipe` below it.
    #[inline]
    fn within_limit(&self, limit: u64) -> bool {
        if self.state == State::Open {
            self.has_new_data() && self.sb.outstanding() < limit
        } else {
            self.sb.pipe() < limit
        }
    }

    /// ns-2's `singledup_` after a timeout (`ns2_singledup`): each of the
    /// first duplicate ACKs lets one more segment out (tcp-reno.cc
    /// `send_one`: `t_seqno_ <= highest_ack_ + cwnd_ + dupacks_`), as
    /// Limited Transmit does in the open state.
    fn singledup_allowance(&self) -> u64 {
        if self.state == State::Loss && self.cfg.ns2_singledup && self.cfg.limited_transmit {
            self.dupacks.min(self.cfg.dupthresh.saturating_sub(1)) as u64
        } else {
            0
        }
    }

    /// Send segment `seq`; false if it was held back at the full interface
    /// queue (`txqueuelen_pkts`, [`Self::on_local_congestion`]). ns-2's
    /// Sack1 agent (`recovery = "sack1"`) keeps its own send state and has
    /// no local congestion: its segments go to the queue like any packet
    /// and are dropped there when it is full.
    pub(super) fn transmit(&mut self, net: &mut Net, seq: u64, forced: bool) -> bool {
        if self.sack1.is_none() && net.local_queue_full(self.flow) {
            self.on_local_congestion(net);
            return false;
        }
        self.held = false;
        let now = net.now;
        // ns-2 `output`: a send with nothing outstanding (`highest_ack_ ==
        // maxseq_`) sets the timer afresh even when it is pending, which
        // with `ns2_idle_restart` it is (rearmed at every ACK and at every
        // idle expiry): the segment gets a whole RTO.
        let rearm = self.cfg.ns2_idle_restart && self.sb.outstanding() == 0;
        let retx = seq < self.sb.high();
        if retx {
            self.sb.mark_retx(seq);
            self.stats.retransmits += 1;
        } else {
            self.sb.on_send_new();
        }
        self.rtt.on_send(seq, !retx, to_secs(now));
        self.stats.data_sent += 1;
        let size = self.cfg.header + self.cfg.payload(seq);
        // RFC 3168 §6.1.5: retransmissions go Not-ECT, so a congested
        // router drops rather than marks them; ns-2 marks them ECT anyway.
        // A SYN is never ECT (RFC 3168 §6.1.1; ns-2 `output`: `ect() = 0`
        // for segment 0 with `syn_`).
        // ns-2's ECN agent negotiates on segment 0, a SYN or not: it goes
        // Not-ECT with ECE set, and the sink echoes ECE on its ACK
        // (`output`: `if (seqno == 0) ... ecnecho() = 1; ect() = 0`).
        let ns2_ecn = self.cfg.ecn_response == EcnResponse::Ns2;
        let negotiate = self.cfg.ecn && ns2_ecn && seq == 0;
        let syn = seq < self.cfg.first_data_seg() || negotiate;
        let ecn = if self.cfg.ecn && !syn && (!retx || self.cfg.ecn_retransmit_ect) { Ecn::Ect0 } else { Ecn::NotEct };
        // ns-2 `output` (SetCWRonRetransmit_, true since 2005) sets CWR on
        // the next segment, a retransmission too; the RFC on new data only.
        let cwr = (!retx || ns2_ecn) && std::mem::take(&mut self.cwr_pending);
        let l4 = L4::Tcp(TcpHeader { seq, retx, cwr, ece: negotiate, ..Default::default() });
        // GWA §2: the sender sets B_n = B_max (here the receiver window in
        // bytes on the wire); routers on the path only ever lower it.
        // BA (§5): v starts unbounded (the option's largest value).
        let ip_opt = match (self.cfg.gwa, self.cfg.ba) {
            (true, _) => self.cfg.gwa_b_max(),
            (_, true) => BA_UNBOUNDED,
            _ => IP_OPT_NONE,
        };
        self.st.srtt_s = self.rtt.srtt;
        let cong = self.cc.cong_header(&self.st, size);
        net.send(Packet {
            flow: self.flow,
            kind: Kind::Data,
            size,
            ts: now,
            ecn,
            ip_opt,
            l4,
            cong,
            ..Default::default()
        });
        self.pacer.on_send(now);
        if let Some(tr) = self.trace.as_mut() {
            let interval_s = self.rtt.srtt.map(|s| s / self.st.cwnd.max(1.0));
            tr.push(SendRecord { time: now, seq, size, interval_s, tokens_after: self.pacer.tokens(), forced, cwr });
        }
        if rearm || !self.rto_timer.is_armed() {
            self.arm_rto(net);
        }
        true
    }
}

impl SenderAgent for TcpSender {
    fn open(&mut self, net: &mut Net) {
        self.app_active = true;
        self.sync(net.now);
        if let Some(p) = self.cc.tick_interval_s(&self.st) {
            self.tick_timer.arm(&mut net.events, net.now.saturating_add(from_secs(p)));
        }
        self.try_send(net);
    }

    fn close(&mut self) {
        self.app_active = false;
    }

    /// The application writes one more segment (an MSS of payload); from
    /// the first write on, only written segments are sent (Telnet).
    fn write(&mut self, net: &mut Net) {
        self.offered = Some(self.offered.unwrap_or(0) + 1);
        self.try_send(net);
    }

    fn on_packet(&mut self, net: &mut Net, pkt: &Packet) {
        let Some(h) = pkt.tcp() else { return };
        if h.wnd > 0 {
            self.awnd = (h.wnd as u64).min(self.cfg.rwnd);
        }
        if self.cfg.ba && pkt.ip_opt < BA_UNBOUNDED {
            // BA-TCP: the echoed min_j v_ij, times delta_i (the smallest RTT
            // seen: the round-trip propagation delay plus serialisation).
            if let Some(delta) = self.rtt.min_rtt {
                self.awnd = self.cfg.ba_window(pkt.ip_opt, delta);
            }
        }
        self.on_ack(net, h, pkt.ts, pkt.cong);
    }

    fn on_timer(&mut self, net: &mut Net, slot: u8, gen: u32) {
        let now = net.now;
        match slot {
            RTO if self.rto_timer.fire(&mut net.events, now, gen) => self.on_rto(net),
            PACE if self.pace_timer.fire(&mut net.events, now, gen) => self.try_send(net),
            TICK if self.tick_timer.fire(&mut net.events, now, gen) => self.on_tick(net),
            // ns-2 `timeout_nonrtx(TCP_TIMER_DELSND)`: `send_much(1, ...)`
            DELSND if self.delsnd_timer.fire(&mut net.events, now, gen) => self.send_much(net, true),
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
            cwnd: self.st.cwnd,
            ssthresh: self.st.ssthresh,
            srtt_s: self.rtt.srtt,
            completed_at: self.stats.completed_at,
            awnd_pkts: (self.cfg.gwa || self.cfg.ba).then_some(self.awnd as f64),
            ..Default::default()
        }
    }

    fn last_feedback(&self) -> Option<FeedbackSample> {
        self.cc.last_feedback()
    }
}

#[cfg(test)]
impl TcpSender {
    /// A sender of `spec` (JSON fields; `cc` replaces the spec's
    /// controller) on a one-link network whose events are never run: the
    /// test plays the receiver and reads what was sent from the trace.
    pub(super) fn on_test_link(
        spec: serde_json::Value,
        cc: Option<Box<dyn CongestionControl>>,
        seed: u64,
    ) -> (TcpSender, Net) {
        use crate::net::{link::Link, Route};
        use crate::scenario::{FlowSpec, QueueSpec};
        let spec: FlowSpec = serde_json::from_value(spec).unwrap();
        let cfg = TcpConfig::from_spec(&spec, "flow").unwrap();
        let cc = cc.unwrap_or_else(|| super::build_cc(&spec, "flow").unwrap());
        let q = crate::net::queue::build(&QueueSpec::droptail_pkts(1_000_000), "q").unwrap();
        let link = Link::new(0, "l".into(), (0, 1), 1e12, 0, q, 1);
        let mut net = Net::new(vec![link], vec![Route { fwd: vec![0], rev: vec![0] }]);
        net.add_flow(0, 0);
        let mut s = TcpSender::new(0, cfg, cc, seed);
        s.trace = Some(Vec::new());
        s.open(&mut net);
        (s, net)
    }

    /// Run the pending delayed send (`send_jitter_s`) at its deadline: the
    /// events before it are dropped (tests that play the receiver never run
    /// the network). Returns the segments it sent.
    pub(super) fn fire_delsnd(&mut self, net: &mut Net) -> Vec<u64> {
        use crate::sim::events::EventKind;
        let at = self.delsnd_timer.deadline.expect("a delayed send is pending");
        loop {
            let ev = net.events.pop().expect("the delayed send's event");
            if ev.to.kind == EventKind::AgentTimer && ev.to.idx == self.flow && ev.to.slot == DELSND {
                assert_eq!(ev.time, at);
                net.now = at;
                let before = self.trace.as_ref().map_or(0, Vec::len);
                self.on_timer(net, DELSND, ev.gen);
                return self.trace.as_ref().map_or(Vec::new(), |t| t[before..].iter().map(|r| r.seq).collect());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Kind, Packet, TcpHeader, L4};
    use crate::scenario::FlowSpec;
    use crate::transport::tcp::TcpConfig;

    /// A sender in ns-2 mode with `extra` fields on a one-link network whose
    /// events never run: the test plays the receiver.
    fn sender(extra: serde_json::Value) -> (TcpSender, Net) {
        let mut j = serde_json::json!({
            "rtt_estimator": "ns2", "ns2_bugfix": true, "halve_on_repeated_rto": true,
            "init_cwnd_pkts": 2, "ns2_boot_time_s": 0.0, "mss_bytes": 1000, "header_bytes": 40
        });
        j.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        TcpSender::on_test_link(j, None, 1)
    }

    /// (segment, bytes) sent since `from` in the trace.
    fn sent(s: &TcpSender, from: usize) -> Vec<(u64, u32)> {
        s.trace.as_ref().unwrap()[from..].iter().map(|r| (r.seq, r.size)).collect()
    }

    /// Deliver cumulative ACK `ack` (next expected) at `t` seconds; what
    /// was sent in response.
    fn ack(s: &mut TcpSender, net: &mut Net, t: f64, ack: u64) -> Vec<(u64, u32)> {
        net.now = from_secs(t);
        let h = TcpHeader { ack, ..Default::default() };
        let pkt = Packet { flow: 0, kind: Kind::Ack, size: 40, ts: 0, l4: L4::Tcp(h), ..Default::default() };
        let before = s.trace.as_ref().unwrap().len();
        s.on_packet(net, &pkt);
        sent(s, before)
    }

    /// `syn = "ns2"` (ns-2 `syn_`, `delay_growth_`): a header-only segment
    /// 0 alone; its ACK opens the initial window (2, after the ACK's own
    /// increase 1 -> 2), then slow start from there. For both the generic
    /// sender and ns-2's Sack1; without `syn` the data start at once.
    #[test]
    fn ns2_syn_goes_alone_and_its_ack_opens_the_initial_window() {
        for rec in ["newreno", "sack1"] {
            let (mut s, mut net) = sender(serde_json::json!({"recovery": rec, "syn": "ns2"}));
            assert_eq!(sent(&s, 0), vec![(0, 40)], "{rec}: the SYN alone, 40 bytes");
            assert_eq!(s.st.cwnd, 1.0);
            assert_eq!(ack(&mut s, &mut net, 0.1, 1), vec![(1, 1040), (2, 1040)], "{rec}");
            assert_eq!(s.st.cwnd, 2.0, "{rec}: initial_window(), not 1 + 1 + 1");
            assert_eq!(ack(&mut s, &mut net, 0.2, 2), vec![(3, 1040), (4, 1040)], "{rec}: slow start");
            assert_eq!(s.st.cwnd, 3.0);
            // a larger initial window is what the SYN's ACK opens
            let (mut s, mut net) = sender(serde_json::json!({"recovery": rec, "syn": "ns2", "init_cwnd_pkts": 4}));
            assert_eq!(ack(&mut s, &mut net, 0.1, 1).len(), 4, "{rec}");

            let (s, _) = sender(serde_json::json!({"recovery": rec}));
            assert_eq!(sent(&s, 0), vec![(0, 1040), (1, 1040)], "{rec}: no SYN");
            let (mut s, mut net) = sender(serde_json::json!({"recovery": rec, "syn": "ns2_no_delay_growth"}));
            assert_eq!(sent(&s, 0), vec![(0, 40), (1, 1040)], "{rec}: the SYN leads the window");
            assert_eq!(ack(&mut s, &mut net, 0.1, 1), vec![(2, 1040), (3, 1040)], "{rec}: no reset");
            assert_eq!(s.st.cwnd, 3.0);
        }
    }

    /// A lost SYN: the timer resends it (a timeout and a retransmission,
    /// as ns-2 counts `nrexmit_`, `nrexmitpack_`), and its ACK then opens
    /// one segment (ns-2 `timeout`: `wnd_init_ = 1`, `bugfix_ss_`).
    #[test]
    fn ns2_syn_lost_is_resent_by_the_timer_and_opens_one_segment() {
        for rec in ["newreno", "sack1"] {
            let (mut s, mut net) = sender(serde_json::json!({"recovery": rec, "syn": "ns2"}));
            net.now = from_secs(3.0); // ns-2's initial RTO
            s.on_rto(&mut net);
            assert_eq!(sent(&s, 1), vec![(0, 40)], "{rec}: the SYN again");
            assert_eq!((s.stats.timeouts, s.stats.retransmits), (1, 1), "{rec}");
            assert_eq!(ack(&mut s, &mut net, 3.1, 1), vec![(1, 1040)], "{rec}: a window of one");
        }
    }

    /// A finite transfer after a SYN: the segment count includes it, the
    /// SYN carries no payload and the data segments carry the bytes.
    #[test]
    fn ns2_syn_is_segment_zero_of_a_finite_transfer() {
        let spec: FlowSpec = serde_json::from_value(serde_json::json!({"syn": "ns2", "bytes": 2500})).unwrap();
        let c = TcpConfig::from_spec(&spec, "flow").unwrap();
        assert_eq!(c.first_data_seg(), 1);
        assert_eq!(c.total_segs(), Some(4));
        assert_eq!((0..4).map(|q| c.payload(q)).collect::<Vec<_>>(), vec![0, 1000, 1000, 500]);
        assert_eq!(c.payload_between(0, 1), 0);
        assert_eq!(c.payload_between(0, 4), 2500);
        assert_eq!(c.payload_between(1, 3), 2000);
        let spec: FlowSpec = serde_json::from_value(serde_json::json!({"bytes": 2500})).unwrap();
        let c = TcpConfig::from_spec(&spec, "flow").unwrap();
        assert_eq!((c.first_data_seg(), c.total_segs(), c.payload(0)), (0, Some(3), 1000));
    }

    /// A bad `syn` names the field, the value and the allowed ones.
    #[test]
    fn syn_values_are_checked() {
        let e = serde_json::from_value::<FlowSpec>(serde_json::json!({"syn": "yes"})).unwrap_err().to_string();
        assert!(e.contains("`yes`") && e.contains("none") && e.contains("ns2_no_delay_growth"), "{e}");
    }
}

/// `send_jitter_s` (ns-2's `overhead_`).
#[cfg(test)]
mod jitter_tests {
    use super::*;
    use crate::net::packet::{Kind, Packet, TcpHeader, L4};
    use crate::scenario::FlowSpec;
    use std::sync::{Arc, Mutex};

    const J: f64 = 0.05;

    /// A sender of `spec` (JSON fields) on a one-link network whose events
    /// are never run: the test plays the receiver and reads what was sent.
    fn sender_with(spec: serde_json::Value, cc: Option<Box<dyn CongestionControl>>, seed: u64) -> (TcpSender, Net) {
        TcpSender::on_test_link(spec, cc, seed)
    }

    /// Ten segments of initial window, `send_jitter_s = J`.
    fn jittered(recovery: &str, seed: u64) -> (TcpSender, Net) {
        let spec = serde_json::json!({"init_cwnd_pkts": 10, "send_jitter_s": J, "recovery": recovery});
        sender_with(spec, None, seed)
    }

    /// Deliver an ACK (cumulative `ack`, next expected) at `t` seconds;
    /// the segments sent in response.
    fn ack(s: &mut TcpSender, net: &mut Net, t: f64, ack: u64, ece: bool) -> Vec<u64> {
        net.now = from_secs(t);
        let h = TcpHeader { ack, ece, ..Default::default() };
        let pkt = Packet { flow: 0, kind: Kind::Ack, size: 40, ts: 0, l4: L4::Tcp(h), ..Default::default() };
        let before = s.trace.as_ref().unwrap().len();
        s.on_packet(net, &pkt);
        s.trace.as_ref().unwrap()[before..].iter().map(|r| r.seq).collect()
    }

    #[test]
    fn send_jitter_holds_sends_for_one_uniform_delay_then_sends_the_window_as_one_burst() {
        let (mut s, mut net) = jittered("newreno", 1);
        // open() = ns-2 sendmsg -> send_much(0): only the timer is armed
        assert!(s.trace.as_ref().unwrap().is_empty());
        let d0 = s.delsnd_timer.deadline.expect("armed");
        assert!(d0 < from_secs(J));
        // send_much(0) while it is pending: nothing sent, nothing redrawn
        s.try_send(&mut net);
        assert!(s.trace.as_ref().unwrap().is_empty());
        assert_eq!(s.delsnd_timer.deadline, Some(d0));
        // the expiry (send_much(1)): the whole window at once
        assert_eq!(s.fire_delsnd(&mut net), (0..10).collect::<Vec<_>>());
        assert!(s.trace.as_ref().unwrap().iter().all(|r| r.time == d0));
        // ACKs while a delayed send is pending only open the window; the
        // expiry sends all it allows: cwnd 12 (one per ACK), 6 outstanding
        assert!(ack(&mut s, &mut net, 1.0, 2, false).is_empty());
        let d1 = s.delsnd_timer.deadline.expect("armed by the ACK");
        assert!(d1 >= from_secs(1.0) && d1 < from_secs(1.0 + J));
        assert!(ack(&mut s, &mut net, 1.0, 4, false).is_empty());
        assert_eq!(s.delsnd_timer.deadline, Some(d1));
        assert_eq!(s.fire_delsnd(&mut net), (10..16).collect::<Vec<_>>());
    }

    /// The delay of each arming, and the draw it should be: the flow's
    /// own stream, one uniform per arming, times `send_jitter_s`.
    fn delays(seed: u64) -> Vec<f64> {
        use rand::Rng as _;
        let (mut s, mut net) = jittered("newreno", seed);
        let mut want = crate::sim::rng::stream(seed, crate::sim::rng::Stream::SendJitter, 0);
        let mut out = Vec::new();
        let mut armed_at = 0.0;
        for k in 1..=400u64 {
            let d = s.delsnd_timer.deadline.expect("armed");
            let u: f64 = want.gen();
            assert_eq!(d, from_secs(armed_at).saturating_add(from_secs(u * J)), "arming {k}");
            out.push(to_secs(d) - armed_at);
            assert!(!s.fire_delsnd(&mut net).is_empty());
            // an ACK a second later opens the window and arms it again
            armed_at = k as f64;
            ack(&mut s, &mut net, armed_at, k, false);
        }
        out
    }

    #[test]
    fn send_jitter_delays_are_uniform_in_range_and_follow_the_seed() {
        let d = delays(1);
        assert!(d.iter().all(|&x| (0.0..J).contains(&x)), "{d:?}");
        // 400 uniform draws: mean J/2 within 4 standard errors (J/sqrt(12·400)),
        // and the extremes near both ends
        let mean = d.iter().sum::<f64>() / d.len() as f64;
        assert!((mean - J / 2.0).abs() < 4.0 * J / (12.0f64 * 400.0).sqrt(), "mean {mean}");
        assert!(d.iter().cloned().fold(f64::INFINITY, f64::min) < 0.02 * J);
        assert!(d.iter().cloned().fold(0.0, f64::max) > 0.98 * J);
        assert_eq!(d, delays(1), "same seed, same delays");
        assert_ne!(d, delays(2), "another seed, other delays");
    }

    #[test]
    fn send_jitter_leaves_limited_transmit_and_fast_retransmit_direct_and_delays_the_timeout_resend() {
        let (mut s, mut net) = jittered("newreno", 3);
        assert_eq!(s.fire_delsnd(&mut net).len(), 10);
        // segment 0 lost: duplicates 1 and 2 send by Limited Transmit at
        // once (ns-2 send_one), no delayed send armed
        assert_eq!(ack(&mut s, &mut net, 0.1, 0, false), vec![10]);
        assert_eq!(ack(&mut s, &mut net, 0.1, 0, false), vec![11]);
        assert!(!s.delsnd_timer.is_armed());
        // the third: the fast retransmission at once (ns-2 output()), and
        // nothing else before a delayed send
        assert_eq!(ack(&mut s, &mut net, 0.1, 0, false), vec![0]);
        if s.delsnd_timer.is_armed() {
            s.fire_delsnd(&mut net);
        }
        // a timeout: ns-2 resends through send_much(0), so after a delay
        net.now = from_secs(5.0);
        let before = s.trace.as_ref().unwrap().len();
        s.on_rto(&mut net);
        assert_eq!(s.trace.as_ref().unwrap().len(), before, "nothing leaves at the timeout itself");
        let d = s.delsnd_timer.deadline.expect("armed by the timeout");
        assert!(d >= from_secs(5.0) && d < from_secs(5.0 + J));
        assert_eq!(s.fire_delsnd(&mut net), vec![0]);
    }

    #[test]
    fn send_jitter_limited_transmit_sends_one_segment_past_a_pending_delayed_send() {
        let (mut s, mut net) = jittered("newreno", 4);
        assert_eq!(s.fire_delsnd(&mut net).len(), 10);
        // a new ACK opens the window: a delayed send is armed
        assert!(ack(&mut s, &mut net, 0.1, 2, false).is_empty());
        let d = s.delsnd_timer.deadline.expect("armed");
        // a duplicate before it fires: one segment at once (ns-2 send_one),
        // although the window has room for more; the delayed send stays
        assert_eq!(ack(&mut s, &mut net, 0.1, 2, false), vec![10]);
        assert_eq!(s.delsnd_timer.deadline, Some(d));
        // then the rest at once: 9 outstanding, cwnd 11 plus one for the
        // duplicate (Limited Transmit) -> 11, 12, 13
        assert_eq!(s.fire_delsnd(&mut net), vec![11, 12, 13]);
    }

    #[test]
    fn send_jitter_is_validated() {
        let err = |j: serde_json::Value, pacing: &str| {
            let spec: FlowSpec =
                serde_json::from_value(serde_json::json!({"send_jitter_s": j, "pacing": pacing})).unwrap();
            TcpConfig::from_spec(&spec, "flows[0]").err()
        };
        assert!(err(0.0.into(), "none").is_none());
        assert!(err(0.01.into(), "none").is_none());
        for bad in [-0.01, 2e6] {
            let e = err(bad.into(), "none").expect("refused");
            assert_eq!(e.field, "flows[0].send_jitter_s");
        }
        let e = err(0.01.into(), "interval").expect("refused with pacing");
        assert_eq!(e.field, "flows[0].send_jitter_s");
        assert!(e.msg.contains("0.01") && e.msg.contains("pacing"), "{}", e.msg);
        // pacing is fine without jitter
        assert!(err(0.0.into(), "interval").is_none());
    }

    /// Reno that records the events the sender signals.
    struct Recorder(Arc<Mutex<Vec<CcEvent>>>);
    impl CongestionControl for Recorder {
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

    fn recorded(spec: serde_json::Value) -> (TcpSender, Net, Arc<Mutex<Vec<CcEvent>>>) {
        let log = Arc::new(Mutex::new(Vec::new()));
        let (s, net) = sender_with(spec, Some(Box::new(Recorder(log.clone()))), 1);
        (s, net, log)
    }

    #[test]
    fn the_sender_signals_the_return_to_open_after_a_timeout_and_after_an_ecn_reduction() {
        use CcEvent::*;
        // Timeout: Loss until everything outstanding at the timeout is
        // acknowledged (Linux CA_Loss -> CA_Open)
        let (mut s, mut net, log) = recorded(serde_json::json!({"init_cwnd_pkts": 10}));
        net.now = from_secs(5.0);
        s.on_rto(&mut net);
        assert_eq!(*log.lock().unwrap(), vec![Timeout]);
        ack(&mut s, &mut net, 5.1, 1, false);
        ack(&mut s, &mut net, 5.2, 9, false);
        assert_eq!(s.state, State::Loss);
        assert_eq!(*log.lock().unwrap(), vec![Timeout]);
        ack(&mut s, &mut net, 5.3, 10, false);
        assert_eq!(s.state, State::Open);
        assert_eq!(*log.lock().unwrap(), vec![Timeout, LossEnd]);

        // ECE: CWR until a segment beyond the reduction's window (the one
        // that carried CWR) is acknowledged (Linux: snd_una > high_seq)
        let spec = serde_json::json!({"init_cwnd_pkts": 10, "ecn": true});
        let (mut s, mut net, log) = recorded(spec.clone());
        ack(&mut s, &mut net, 0.1, 2, true);
        assert_eq!(*log.lock().unwrap(), vec![EcnEcho]);
        ack(&mut s, &mut net, 0.2, 10, false);
        assert_eq!(*log.lock().unwrap(), vec![EcnEcho], "the window itself is not beyond it");
        ack(&mut s, &mut net, 0.3, 11, false);
        assert_eq!(*log.lock().unwrap(), vec![EcnEcho, CwrEnd]);

        // A loss in that window: recovery takes over, and ends with its own event
        let (mut s, mut net, log) = recorded(spec);
        ack(&mut s, &mut net, 0.1, 2, true);
        for _ in 0..3 {
            ack(&mut s, &mut net, 0.2, 2, false);
        }
        assert_eq!(*log.lock().unwrap(), vec![EcnEcho, RecoveryStart]);
        let high = s.sb.high();
        ack(&mut s, &mut net, 0.3, high, false);
        let high = s.sb.high();
        ack(&mut s, &mut net, 0.4, high, false);
        assert_eq!(*log.lock().unwrap(), vec![EcnEcho, RecoveryStart, RecoveryEnd]);
    }

    /// Local congestion (`txqueuelen_pkts`) as Linux 2.4's CWR: the held
    /// segment stays unsent; ssthresh = the controller's reduction, cwnd =
    /// min(cwnd, in flight + 1); no growth in CWR, one segment less every
    /// second ACK and never above in flight + 1 (`tcp_cwnd_down`); a
    /// second full queue in the same window does not reduce again; at the
    /// ACK beyond the window cwnd = min(cwnd, ssthresh) (`tcp_complete_cwr`).
    #[test]
    fn a_full_interface_queue_holds_the_segment_and_enters_linux_cwr_once() {
        use CcEvent::*;
        let spec = serde_json::json!({"init_cwnd_pkts": 20, "recovery": "sack", "init_ssthresh_pkts": 1000});
        let (mut s, mut net, log) = recorded(spec);
        assert_eq!(s.sb.high(), 20);
        // ACK of 2 opens 2 more: the interface then has room for one only
        net.set_txqueuelen(0, Some(0));
        let sent = ack(&mut s, &mut net, 0.1, 2, false);
        assert!(sent.is_empty(), "held: {sent:?}");
        assert_eq!(s.stats.local_holds, 1);
        assert_eq!(*log.lock().unwrap(), vec![EcnEcho]);
        assert_eq!(s.st.ssthresh, 10.5, "the controller's reduction: cwnd 21 / 2");
        assert_eq!(s.st.cwnd, 19.0, "min(cwnd 21, in flight 18 + 1)");
        assert_eq!(s.sb.high(), 20, "nothing was sent, the segment is still to send");
        // the next ACKs: held again, no second reduction; cwnd only falls
        let mut cwnds = Vec::new();
        for (k, a) in [3u64, 4, 5, 6].into_iter().enumerate() {
            ack(&mut s, &mut net, 0.2 + k as f64 * 0.01, a, false);
            cwnds.push(s.st.cwnd);
        }
        assert_eq!(s.stats.local_cwrs, 1);
        assert_eq!(*log.lock().unwrap(), vec![EcnEcho]);
        // in flight 17, 16, 15, 14 after each ACK; decrement every second ACK
        assert_eq!(cwnds, vec![18.0, 17.0, 16.0, 15.0]);
        assert!(s.stats.local_holds >= 5);
        // room again: the held segments leave, at most cwnd in flight
        net.set_txqueuelen(0, None);
        let sent = ack(&mut s, &mut net, 0.3, 7, false);
        assert_eq!(sent.first(), Some(&20), "the held segment goes first");
        assert!(s.sb.outstanding() as f64 <= s.st.cwnd);
        // the window is acknowledged beyond high_seq (20): CWR ends with
        // cwnd = min(cwnd, ssthresh)
        ack(&mut s, &mut net, 0.4, 21, false);
        assert_eq!(*log.lock().unwrap(), vec![EcnEcho, CwrEnd]);
        assert!(s.st.cwnd <= 10.5, "cwnd {} after the CWR round", s.st.cwnd);
    }
}

/// `ecn_response = "ns2"`: ns-2.35's `TcpAgent` rules around a timeout
/// (tcp.cc `timeout`, `ecn`, `slowdown`, `output`).
#[cfg(test)]
mod ns2_ecn_tests {
    use super::*;
    use crate::net::packet::{Kind, Packet, TcpHeader, L4};

    /// A sender whose ECN negotiation is done: ns-2's sink answers segment
    /// 0 with ECE, which sets the agent's `ect_`; these tests play a
    /// receiver that starts with the data.
    fn negotiated(spec: serde_json::Value) -> (TcpSender, Net) {
        let (mut s, net) = TcpSender::on_test_link(spec, None, 1);
        s.ns2_ect = true;
        (s, net)
    }

    /// ns-2's Reno ECN agent (`ns2_dupwnd`, `ns2_bugfix` as given) with
    /// segments 0-9 out, whose timer expired at 5 s (resending 0).
    fn reno_timed_out(bugfix: bool) -> (TcpSender, Net) {
        let spec = serde_json::json!({"ecn": true, "ecn_response": "ns2", "init_cwnd_pkts": 10,
                                      "recovery": "reno", "ns2_bugfix": bugfix, "ns2_dupwnd": true});
        let (mut s, mut net) = negotiated(spec);
        net.now = from_secs(5.0);
        s.on_rto(&mut net);
        (s, net)
    }

    fn sender(resp: &str, init_cwnd: u32) -> (TcpSender, Net) {
        let spec = serde_json::json!({"ecn": true, "ecn_response": resp, "init_cwnd_pkts": init_cwnd});
        negotiated(spec)
    }

    fn ack(s: &mut TcpSender, net: &mut Net, t: f64, ack: u64, ece: bool) {
        net.now = from_secs(t);
        let h = TcpHeader { ack, ece, ..Default::default() };
        s.on_packet(net, &Packet { flow: 0, kind: Kind::Ack, size: 40, l4: L4::Tcp(h), ..Default::default() });
    }

    /// The third duplicate's resend after a timeout and an ECE goes through
    /// ns-2's `reset_rtx_timer(1, 0)`, which ends the timing
    /// (`rtt_active_ = 0`): the segment timed before it gives no sample
    /// (GWA many flows, ECN 800 kB, seed 3, flow 48: ns-2's next sample
    /// came from a segment sent after the resend, 1.557 s; ccsim had taken
    /// a 0.63 s one at 1.287 s and kept a larger RTO).
    #[test]
    fn ns2_the_third_duplicates_resend_after_an_ece_ends_the_timing() {
        let spec = serde_json::json!({"ecn": true, "ecn_response": "ns2", "init_cwnd_pkts": 10, "recovery": "reno",
                                      "ns2_bugfix": true, "ns2_dupwnd": true, "rtt_estimator": "ns2",
                                      "clock_granularity_s": 0.1, "ns2_boot_time_s": 0.0});
        let (mut s, mut net) = negotiated(spec); // 0-9 out, 0 timed
        net.now = from_secs(5.0);
        s.on_rto(&mut net); // resends 0; no segment timed
        ack(&mut s, &mut net, 5.1, 8, false); // go-back-N: 8, 9
        ack(&mut s, &mut net, 5.2, 9, false); // 10, 11: new data, 10 timed
        ack(&mut s, &mut net, 5.25, 9, true); // the ECE after the timeout
        ack(&mut s, &mut net, 5.3, 10, false);
        for t in [5.4, 5.5, 5.6] {
            ack(&mut s, &mut net, t, 10, false); // the third resends 10, then sends 12-14
        }
        ack(&mut s, &mut net, 5.7, 13, false); // 12, sent after the resend, is timed
        assert_eq!(s.rtt.srtt, Some(0.1), "12's sample (0.1 s), not 10's (0.5 s)");
    }

    /// ns-2's `recv` runs `ecn` before `newack`: an ECE at a one-segment
    /// window that backs the timer off past 8 clobbers SRTT first
    /// (`rtt_backoff`), so the ACK's sample restarts the estimate (SRTT =
    /// 0.2 s, RTTVAR = 0.1 s: RTO 0.6 s, times 16 = 9.6 s), where a
    /// sample taken first would have gone into the old SRTT of 0.1 s and
    /// left a base of 0.4 s (6.4 s). (GWA many flows, ECN 200 kB, seed 1,
    /// flow 60 at 3.91 s: ns-2's next timeout came at 13.51 s, ccsim's had
    /// come at 10.31 s.)
    #[test]
    fn ns2_an_ece_backing_off_past_8_restarts_the_estimate_before_the_acks_sample() {
        let spec = serde_json::json!({"ecn": true, "ecn_response": "ns2", "init_cwnd_pkts": 1, "recovery": "reno",
                                      "ns2_bugfix": true, "ns2_dupwnd": true, "rtt_estimator": "ns2",
                                      "clock_granularity_s": 0.1, "min_rto_s": 0.2, "ns2_boot_time_s": 0.0});
        let (mut s, mut net) = negotiated(spec); // 0 out at 0 s, timed
        ack(&mut s, &mut net, 0.1, 1, false); // a 0.1 s sample; 1 and 2 out, 1 timed
        assert_eq!(s.rtt.srtt, Some(0.1));
        // as after two timeouts and an ECE at a one-segment window
        (s.st.cwnd, s.ecn_backoff, s.rtt.backoff) = (1.0, true, 3);
        ack(&mut s, &mut net, 0.35, 2, true); // 1's ACK, a sample of 2 ticks, with ECE
        assert_eq!((s.rtt.backoff, s.st.cwnd), (4, 0.5));
        assert_eq!(s.rtt.srtt, Some(0.2));
        assert!((s.rtt.rttvar - 0.1).abs() < 1e-12 && (s.rtt.rto() - 9.6).abs() < 1e-9, "{}", s.rtt.rto());
    }

    /// ns-2's `recv` counts an ACK of `last_ack_` as a duplicate with
    /// nothing outstanding too, and `send_one` lets a segment out on it
    /// (`t_seqno_ <= highest_ack_ + cwnd_ + dupacks_`): here the ACK of the
    /// timeout's resend of segment 0, which had arrived, after an ECE
    /// closed the window to half a segment. Without it the next segment
    /// waits for the timer (GWA many flows, ECN 400 kB, seed 1, flow 99
    /// at 0.914 s: ns-2 sent, ccsim waited 0.3 s).
    #[test]
    fn ns2_a_duplicate_with_nothing_outstanding_sends_one_segment() {
        for singledup in [true, false] {
            let spec = serde_json::json!({"ecn": true, "ecn_response": "ns2", "init_cwnd_pkts": 4,
                                          "recovery": "reno", "ns2_bugfix": true, "ns2_dupwnd": true,
                                          "ns2_singledup": singledup});
            let (mut s, mut net) = negotiated(spec); // 0-3 out
            net.now = from_secs(5.0);
            s.on_rto(&mut net); // resends 0
            ack(&mut s, &mut net, 5.1, 4, true); // 0-3 had arrived; the ECE after the timeout
            assert_eq!((s.st.cwnd, s.sb.outstanding()), (0.5, 0));
            let before = sent(&s).len();
            ack(&mut s, &mut net, 5.2, 4, true); // the resent 0's ACK
            let out: Vec<u64> = sent(&s)[before..].iter().map(|x| x.0).collect();
            let want: &[u64] = if singledup { &[4] } else { &[] };
            assert_eq!(out, want, "ns2_singledup {singledup}");
        }
    }

    /// ns-2's `RenoTcpAgent::dupack_action` after a timeout whose window
    /// an ECE then cut (`last_cwnd_action_ == CWND_ACTION_ECN`): the third
    /// duplicate ACK resends `last_ack_ + 1`, though the timeout's
    /// go-back-N already resent it, with no second cut (the GWA LAN ECN
    /// row's first difference from ns-2's trace, docs/validation.md).
    #[test]
    fn three_duplicates_after_a_timeout_and_an_ece_resend_the_first_segment() {
        for bugfix in [false, true] {
            let (mut s, mut net) = reno_timed_out(bugfix); // resends 0
            ack(&mut s, &mut net, 5.1, 1, false); // 0 arrived: go-back-N resends 1 and 2
            ack(&mut s, &mut net, 5.2, 2, true); // 1 arrived; ECE: the cut after the timeout
            let ssthresh = s.st.ssthresh;
            let resends = |s: &TcpSender| sent(s).iter().filter(|x| x.0 == 2).count();
            let before = resends(&s);
            assert!(before >= 2, "2 sent and resent by the go-back-N: {:?}", sent(&s));
            for i in 0..3 {
                ack(&mut s, &mut net, 5.3 + 0.001 * i as f64, 2, false);
            }
            assert_eq!(resends(&s) - before, bugfix as usize, "bugfix {bugfix}: {:?}", sent(&s));
            assert_eq!(s.st.ssthresh, ssthresh, "no second cut");
        }
    }

    /// ns-2's `recv` runs `ecn` before the duplicate's own rules: when the
    /// third duplicate after a timeout carries the first ECE, that ECE sets
    /// `CWND_ACTION_ECN` and the same duplicate resends `last_ack_ + 1`
    /// (GWA LAN ECN 30 kB, seed 1, 11.42 s: ns-2's trace resends there).
    #[test]
    fn an_ece_on_the_third_duplicate_after_a_timeout_resends_at_once() {
        let (mut s, mut net) = reno_timed_out(true); // resends 0
        ack(&mut s, &mut net, 5.1, 1, false); // go-back-N resends 1 and 2
        let resends = |s: &TcpSender| sent(s).iter().filter(|x| x.0 == 1).count();
        let (before, ssthresh) = (resends(&s), s.st.ssthresh);
        ack(&mut s, &mut net, 5.2, 1, false);
        ack(&mut s, &mut net, 5.201, 1, false);
        assert_eq!(resends(&s), before, "{:?}", sent(&s));
        ack(&mut s, &mut net, 5.202, 1, true);
        assert_eq!(resends(&s), before + 1, "the third duplicate, with the ECE, resends: {:?}", sent(&s));
        assert!(s.st.ssthresh < ssthresh, "the ECE's cut");
        assert_eq!(s.dupwnd, 3.0);
    }

    /// ns-2 decides at the third duplicate only (`++dupacks_ ==
    /// numdupacks_`): after a timeout, duplicates at una = recover start
    /// no recovery (`bug_fix_`), and an ECE cut on the seventh does not
    /// make the eighth a fast retransmit (GWA LAN ECN 30 kB, seed 1,
    /// 23.545 s). ccsim's own rule (`>=`) would retransmit there.
    #[test]
    fn an_ece_cut_after_the_third_duplicate_starts_no_recovery_in_ns2_mode() {
        let (mut s, mut net) = reno_timed_out(true); // resends 0; recover = 10
        ack(&mut s, &mut net, 5.1, 10, false); // 1-9 had arrived: open, sends 10 and 11
        assert_eq!(s.state, State::Open);
        let resends = |s: &TcpSender| sent(s).iter().filter(|x| x.0 == 10).count();
        let before = resends(&s);
        for i in 0..6 {
            ack(&mut s, &mut net, 5.2 + 0.001 * i as f64, 10, false);
        }
        assert_eq!(resends(&s), before, "una = recover: no recovery");
        let ssthresh = s.st.ssthresh;
        ack(&mut s, &mut net, 5.21, 10, true); // the cut after the timeout
        assert!(s.st.ssthresh < ssthresh);
        ack(&mut s, &mut net, 5.211, 10, true);
        assert_eq!(resends(&s), before, "{:?}", sent(&s));
        assert_eq!(s.state, State::Open);
    }

    /// After a timeout whose window an ECE cut, with new data sent past the
    /// go-back-N: ns-2's third duplicate resends `last_ack_ + 1` although
    /// the go-back-N never covered it (`output` whatever the scoreboard
    /// says), and the window stays `int(cwnd_) + dupwnd_` past
    /// `highest_ack_` (`t_seqno_ <= highest_ack_ + win`): the resend is not
    /// counted twice (GWA LAN ECN 60 kB, seed 2, 5.652 s).
    #[test]
    fn after_an_ece_the_third_duplicate_resends_new_data_and_keeps_the_window() {
        let (mut s, mut net) = reno_timed_out(true); // resends 0 of 0-9
        ack(&mut s, &mut net, 5.1, 8, false); // go-back-N: 8, 9
        ack(&mut s, &mut net, 5.2, 9, false); // cwnd 3: 10, 11 (new data)
        ack(&mut s, &mut net, 5.25, 9, true); // the ECE after the timeout: cut, recover = 12
        ack(&mut s, &mut net, 5.3, 10, false); // still below recover
        assert_eq!((s.state, s.st.cwnd), (State::Loss, 2.0));
        ack(&mut s, &mut net, 5.4, 10, false);
        ack(&mut s, &mut net, 5.5, 10, false);
        let before = sent(&s).len();
        ack(&mut s, &mut net, 5.6, 10, false);
        let seqs: Vec<u64> = sent(&s)[before..].iter().map(|x| x.0).collect();
        assert_eq!(seqs, [10, 12, 13, 14], "resend 10, then up to highest_ack_ + int(cwnd_) + dupwnd_");
        // The ACK past recover with an ECE: `ecn` halves `windowd()` =
        // cwnd_ + dupwnd_ = 2 + 3 before the new ACK drops dupwnd_ (GWA
        // LAN ECN 60 kB, seed 6, 0.363 s), and moves `recover_` to the
        // last segment sent (14), so the ACK's own rules see 13 below it.
        ack(&mut s, &mut net, 5.7, 13, true);
        assert_eq!((s.state, s.st.cwnd, s.st.ssthresh, s.dupwnd), (State::Loss, 2.5, 2.0, 0.0));
        assert_eq!(s.recover, 15);
    }

    /// ns-2's `newack` keeps the timer's backoff at an ECE only while
    /// `ecn_backoff_`, as `ecn` (run first) has left it: an ECE it does not
    /// react to (`seqno <= recover_`) at a one-segment window leaves it
    /// clear, and the timed segment's sample ends the backoff (GWA LAN ECN
    /// 30 kB with Telnets, seed 3, 13.73 s: ns-2's next timeout came 0.3 s
    /// later, not 0.6 s).
    #[test]
    fn an_ece_not_reacted_to_at_one_segment_lets_the_sample_end_the_backoff() {
        let spec = serde_json::json!({"ecn": true, "ecn_response": "ns2", "init_cwnd_pkts": 2,
                                      "rtt_estimator": "ns2", "recovery": "reno", "ns2_bugfix": true,
                                      "ns2_dupwnd": true});
        let (mut s, mut net) = negotiated(spec);
        net.now = from_secs(5.0);
        s.on_rto(&mut net);
        assert_eq!(s.rtt.backoff, 1);
        ack(&mut s, &mut net, 5.1, 1, false); // go-back-N resends 1; 2 is new, timed
        ack(&mut s, &mut net, 5.2, 2, true); // the cut after the timeout: cwnd 1
        assert_eq!((s.st.cwnd, s.rtt.backoff, s.ecn_backoff), (1.0, 1, false));
        ack(&mut s, &mut net, 5.3, 3, true); // 2's ACK, ECE at or below recover
        assert_eq!(s.rtt.backoff, 0, "the sample ends the backoff");
        ack(&mut s, &mut net, 5.4, 4, true); // reacted to at cwnd 1
        assert_eq!((s.st.cwnd, s.ecn_backoff), (0.5, true));
    }

    /// ns-2's ECN negotiation with `syn_`: the SYN's ACK carries ECE
    /// (tcp-sink.cc echoes the SYN's ECE). `ecn` reacts to it only after
    /// the SYN timed out (`CWND_ACTION_TIMEOUT`), before `delay_growth_`
    /// sets the initial window, and that ACK sets `ect_`; the next ECE at a
    /// one-segment window then backs the timer off again and holds it (GWA
    /// LAN ECN 60 kB with Telnets, seeds 4 and 5: an FTP's dropped SYN).
    #[test]
    fn the_negotiation_ece_after_a_syn_timeout_cuts_and_sets_ect() {
        let spec = |init: u32| {
            serde_json::json!({"ecn": true, "ecn_response": "ns2", "init_cwnd_pkts": init, "syn": "ns2",
                               "rtt_estimator": "ns2", "recovery": "reno", "ns2_bugfix": true,
                               "ns2_dupwnd": true})
        };
        // no timeout: the negotiation's ECE cuts nothing
        let (mut s, mut net) = TcpSender::on_test_link(spec(2), None, 1);
        let ssthresh = s.st.ssthresh;
        ack(&mut s, &mut net, 0.1, 1, true);
        assert_eq!((s.st.cwnd, s.st.ssthresh, s.ns2_ect), (2.0, ssthresh, true));
        // the SYN timed out
        let (mut s, mut net) = TcpSender::on_test_link(spec(2), None, 1);
        net.now = from_secs(3.0);
        s.on_rto(&mut net);
        assert_eq!(s.rtt.backoff, 1);
        ack(&mut s, &mut net, 3.1, 1, true);
        assert_eq!((s.st.cwnd, s.st.ssthresh, s.ecn_backoff, s.ns2_ect), (1.0, 2.0, true, true));
        assert_eq!(sent(&s).last(), Some(&(1, true)), "segment 1 goes out, with CWR");
        ack(&mut s, &mut net, 3.2, 2, true);
        assert_eq!((s.st.cwnd, s.rtt.backoff), (0.5, 2), "backed off again at one segment, and held");
    }

    /// Ten segments sent, then the timer expires at 5 s.
    fn after_timeout(resp: &str) -> (TcpSender, Net) {
        let (mut s, mut net) = sender(resp, 10);
        net.now = from_secs(5.0);
        s.on_rto(&mut net);
        (s, net)
    }

    /// (segment, CWR) of every segment sent so far.
    fn sent(s: &TcpSender) -> Vec<(u64, bool)> {
        s.trace.as_ref().unwrap().iter().map(|r| (r.seq, r.cwr)).collect()
    }

    /// An ECE at a one-segment window closes it (to half a segment); the timer then
    /// reopens one segment. ns-2 (`restart_bugfix_`) does not back the
    /// timer off for it, and the segment it sends carries CWR (the
    /// timeout's `slowdown(CLOSE_CWND_ONE)` sets `cong_action_`).
    #[test]
    fn the_timer_that_reopens_a_closed_window_keeps_its_backoff_and_sends_cwr() {
        let (mut s, mut net) = ns2_syn_sender(1, false);
        ack(&mut s, &mut net, 0.1, 2, true);
        assert_eq!((s.st.cwnd, s.window(), s.sb.outstanding()), (0.5, 0, 0));
        let backoff = s.rtt.backoff;
        net.now = from_secs(3.0);
        s.on_rto(&mut net);
        assert_eq!(s.rtt.backoff, backoff, "no backoff with nothing outstanding");
        assert_eq!(s.stats.timeouts, 0);
        assert_eq!(sent(&s).last(), Some(&(2, true)), "the reopened segment carries CWR");
    }

    /// After a timeout, ns-2's `ecn` reacts to the next ECE whatever
    /// `recover_` (`last_cwnd_action_ == CWND_ACTION_TIMEOUT`), once; the
    /// RFC 3168 sender is in loss recovery and ignores it.
    #[test]
    fn the_first_ece_after_a_timeout_is_reacted_to_once() {
        for (resp, reacts) in [("ns2", true), ("rfc3168", false)] {
            let (mut s, mut net) = after_timeout(resp);
            assert_eq!((s.st.cwnd, s.state), (1.0, State::Loss), "{resp}");
            let ssthresh = s.st.ssthresh;
            ack(&mut s, &mut net, 5.1, 1, true);
            assert_eq!(s.st.cwnd < 1.0, reacts, "{resp}: cwnd {}", s.st.cwnd);
            assert_eq!(s.st.ssthresh < ssthresh, reacts, "{resp}: ssthresh {ssthresh} -> {}", s.st.ssthresh);
            let (cwnd, ssthresh) = (s.st.cwnd, s.st.ssthresh);
            ack(&mut s, &mut net, 5.2, 2, true);
            assert_eq!((s.st.cwnd, s.st.ssthresh), (cwnd, ssthresh), "{resp}: a second ECE in the window");
        }
    }

    fn ns2_sender(init_cwnd: u32, bugfix: bool) -> (TcpSender, Net) {
        let spec = serde_json::json!({"ecn": true, "ecn_response": "ns2", "init_cwnd_pkts": init_cwnd,
                                      "ns2_bugfix": bugfix});
        negotiated(spec)
    }

    /// The same with `syn = "ns2"`, past the handshake (the SYN's ACK, with
    /// the negotiation's ECE, at 0.05 s): segments 1 on are data.
    fn ns2_syn_sender(init_cwnd: u32, bugfix: bool) -> (TcpSender, Net) {
        let spec = serde_json::json!({"ecn": true, "ecn_response": "ns2", "init_cwnd_pkts": init_cwnd,
                                      "ns2_bugfix": bugfix, "syn": "ns2"});
        let (mut s, mut net) = TcpSender::on_test_link(spec, None, 1);
        ack(&mut s, &mut net, 0.05, 1, true);
        assert!(s.ns2_ect);
        (s, net)
    }

    /// ns-2's Reno agent sets `recover_ = maxseq_` at a timeout when
    /// `bug_fix_` (tcp-reno.cc `timeout`), so a timeout after an ECN
    /// reduction is the ECN one (no ssthresh cut, not in `nrexmit_`) even
    /// when the reduction's own window has been acknowledged.
    #[test]
    fn a_timeout_after_an_ecn_cut_keeps_ssthresh_with_ns2_bugfix() {
        for bugfix in [false, true] {
            let (mut s, mut net) = ns2_sender(16, bugfix);
            ack(&mut s, &mut net, 0.1, 16, true); // all sixteen acknowledged, ECE: the cut
            assert!(s.sb.outstanding() >= 8, "new data goes out after the cut");
            let ssthresh = s.st.ssthresh;
            assert!(ssthresh >= 8.0, "ssthresh {ssthresh}");
            net.now = from_secs(3.0);
            s.on_rto(&mut net);
            assert_eq!(s.st.cwnd, 1.0);
            assert_eq!(s.st.ssthresh == ssthresh, bugfix, "ns2_bugfix {bugfix}: {ssthresh} -> {}", s.st.ssthresh);
        }
    }

    /// Every expiry of ns-2's timer sets `last_cwnd_action_` to TIMEOUT,
    /// the one that reopens a window an ECE closed (nothing outstanding)
    /// too: a later timeout with data outstanding cuts ssthresh again.
    #[test]
    fn the_timer_that_reopens_a_closed_window_ends_the_ecn_reduction() {
        let (mut s, mut net) = ns2_syn_sender(1, true);
        ack(&mut s, &mut net, 0.1, 2, true);
        assert_eq!((s.window(), s.sb.outstanding()), (0, 0));
        net.now = from_secs(3.0);
        s.on_rto(&mut net); // nothing outstanding: reopens one segment
        let mut t = 3.1;
        while s.st.cwnd < 8.0 {
            let una = s.sb.una();
            ack(&mut s, &mut net, t, una + 1, false);
            t += 0.001;
        }
        net.now = from_secs(t + 3.0);
        s.on_rto(&mut net);
        assert!(s.st.ssthresh >= 4.0, "ssthresh {} cut from the window", s.st.ssthresh);
        assert_eq!(s.stats.timeouts, 1);
    }

    /// ns-2's `dupack_action` after `CWND_ACTION_ECN` retransmits without
    /// a cut while `highest_ack_ <= recover_`: una == recover too, a loss
    /// of the first segment sent after the reduction.
    #[test]
    fn three_duplicate_acks_at_the_ecn_recover_point_retransmit_without_a_cut() {
        let (mut s, mut net) = ns2_sender(4, true);
        ack(&mut s, &mut net, 0.1, 4, true); // all four acknowledged, ECE: the cut, recover 4
        let (cwnd, ssthresh) = (s.st.cwnd, s.st.ssthresh);
        for i in 0..3 {
            ack(&mut s, &mut net, 0.2 + 0.001 * i as f64, 4, false);
        }
        assert_eq!(s.state, State::Recovery, "segment 4 fast-retransmitted");
        assert_eq!(s.st.ssthresh, ssthresh, "no second cut");
        assert!(s.st.cwnd >= cwnd, "cwnd {cwnd} -> {}", s.st.cwnd);
        assert_eq!(sent(&s).iter().filter(|x| x.0 == 4).count(), 2, "{:?}", sent(&s));
    }

    /// ns-2's `singledup_` also after a timeout: a duplicate ACK in the
    /// loss state lets one more segment out (`send_one`); RFC 3042's
    /// Limited Transmit (and `ns2_singledup = false`) only in the open state.
    #[test]
    fn a_duplicate_ack_after_a_timeout_sends_one_more_with_ns2_singledup() {
        for singledup in [false, true] {
            let spec = serde_json::json!({"init_cwnd_pkts": 4, "ns2_singledup": singledup});
            let (mut s, mut net) = negotiated(spec);
            net.now = from_secs(5.0);
            s.on_rto(&mut net);
            let after_rto = sent(&s).len();
            assert_eq!(sent(&s)[after_rto - 1], (0, false), "the timeout resends segment 0");
            ack(&mut s, &mut net, 5.1, 0, false); // a duplicate ACK (una 0)
            let more = sent(&s).len() - after_rto;
            assert_eq!(more, singledup as usize, "ns2_singledup {singledup}: {:?}", sent(&s));
        }
    }

    /// An application-limited sender (a Telnet) with two segments out at
    /// a window of two, the first lost: a write after the first duplicate
    /// ACK uses Limited Transmit's allowance under RFC 3042's standing
    /// reading (cwnd + dupacks, as Linux counts), but not in ns-2, where
    /// `send_one` runs only at a duplicate ACK's arrival and a later write
    /// goes through `send_much` under cwnd alone (tcp-reno.cc `recv`).
    /// So ns-2's Telnet reaches three duplicates less often and times out
    /// more (the GWA LAN rows, docs/validation.md). A duplicate that finds
    /// a write waiting sends it in both.
    #[test]
    fn ns2_singledup_sends_beyond_the_window_only_at_a_duplicate_ack() {
        for singledup in [false, true] {
            let spec = serde_json::json!({"init_cwnd_pkts": 2, "ns2_singledup": singledup});
            let (mut s, mut net) = negotiated(spec);
            // The opening window (two segments), then application-limited:
            // as if those two were written (`write`).
            assert_eq!(sent(&s), [(0, false), (1, false)]);
            s.offered = Some(2);
            ack(&mut s, &mut net, 0.1, 0, false); // duplicate 1: nothing waiting
            assert_eq!(sent(&s).len(), 2);
            s.write(&mut net); // segment 2, beyond the window of two
            let after_write = sent(&s).len();
            assert_eq!(after_write, if singledup { 2 } else { 3 }, "ns2_singledup {singledup}: {:?}", sent(&s));
            // Duplicate 2: ns-2's send_one takes the waiting segment now;
            // RFC: nothing more (two beyond the window are out).
            ack(&mut s, &mut net, 0.2, 0, false);
            assert_eq!(sent(&s).len(), 3, "ns2_singledup {singledup}: {:?}", sent(&s));
            assert_eq!(sent(&s)[2], (2, false));
        }
    }

    /// ns-2's timer runs on after an ACK of everything sent (`newtimer`:
    /// `t_seqno_ > tcph->seqno()`), and its expiry with nothing
    /// outstanding restarts the window at one segment, ssthresh kept, no
    /// retransmission, rearmed without backoff (`ns2_idle_restart`). RFC
    /// 6298 §5.2 stops the timer there, and the window stays.
    #[test]
    fn ns2_idle_restart_restarts_the_window_after_an_idle_rto() {
        for idle_restart in [false, true] {
            let spec = serde_json::json!({"init_cwnd_pkts": 4, "ns2_idle_restart": idle_restart});
            let (mut s, mut net) = negotiated(spec);
            s.offered = Some(4); // an application-limited sender: four written
            ack(&mut s, &mut net, 0.1, 4, false);
            let (cwnd, ssthresh) = (s.st.cwnd, s.st.ssthresh);
            assert!(cwnd > 4.0, "slow start opened the window: {cwnd}");
            assert_eq!(s.sb.outstanding(), 0);
            assert_eq!(s.rto_timer.is_armed(), idle_restart);
            if !idle_restart {
                continue;
            }
            let at = s.rto_timer.deadline.expect("armed");
            net.now = at;
            let sent_before = sent(&s).len();
            s.on_rto(&mut net);
            assert_eq!((s.st.cwnd, s.st.ssthresh), (1.0, ssthresh), "window restarts, ssthresh kept");
            assert_eq!(sent(&s).len(), sent_before, "nothing to retransmit");
            assert_eq!(s.stats.timeouts, 0, "not a timeout with data outstanding");
            assert_eq!(s.rto_timer.deadline, Some(at + from_secs(s.rtt.rto())), "rearmed, no backoff");
            // ns-2 `output`: a write with nothing outstanding sets the
            // pending timer afresh, so its segment gets a whole RTO.
            net.now = at + from_secs(s.rtt.rto()) / 2;
            s.offered = Some(5);
            s.try_send(&mut net);
            assert_eq!(sent(&s).len(), sent_before + 1);
            assert_eq!(s.rto_timer.deadline, Some(net.now + from_secs(s.rtt.rto())), "set afresh at the send");
        }
    }

    /// ns-2.35 halves the window unrounded (`precisionReduce_`, its
    /// default since 2006/1/24: `halfwin = windowd() / 2`), ssthresh to
    /// its integer part (at least 2); a window under two segments closes,
    /// and only a reduction at a window of at most one segment arms
    /// `ecn_backoff_`. (Whole-segment halving, `precisionReduce_ false`,
    /// would give 1 and then 0, with no fraction left.)
    #[test]
    fn an_ece_halves_the_window_unrounded() {
        let (mut s, mut net) = sender("ns2", 2);
        // (segment 0's ACK cannot cut: ns-2's `recover_` starts at 0)
        ack(&mut s, &mut net, 0.05, 1, false);
        ack(&mut s, &mut net, 0.1, 2, true);
        assert_eq!((s.st.cwnd, s.st.ssthresh, s.window()), (1.5, 2.0, 1));
        assert!(!s.ecn_backoff);
        // An ACK without ECE: slow start to 2.5; segment 4 goes out.
        ack(&mut s, &mut net, 0.2, 3, false);
        assert_eq!((s.st.cwnd, sent(&s).last().map(|x| x.0)), (2.5, Some(4)));
        // The next window's ECE: 2.5 -> 1.25; segment 5 goes out.
        ack(&mut s, &mut net, 0.3, 5, true);
        assert_eq!((s.st.cwnd, s.window(), sent(&s).last().map(|x| x.0)), (1.25, 1, Some(5)));
        // And the next: 1.25 -> 0.625, closed, with no backoff armed.
        ack(&mut s, &mut net, 0.4, 6, true);
        assert_eq!((s.st.cwnd, s.st.ssthresh, s.window()), (0.625, 2.0, 0));
        assert!(!s.ecn_backoff, "the reduction was made at 1.25 segments");
    }

    /// `ns2_dupwnd`: ns-2's Reno window. Seven segments out, the first
    /// lost: the third duplicate ACK halves windowd() = 7 unrounded (cwnd_
    /// 3.5, ssthresh 3) and adds dupwnd_ = 3, a fourth adds one more; the
    /// new ACK takes dupwnd_ off without deflating cwnd_ to ssthresh and
    /// opens it by 1/cwnd_ (3.5 > ssthresh). RFC 5681 (the default):
    /// ssthresh = FlightSize / 2, cwnd = ssthresh + 3, then ssthresh.
    #[test]
    fn ns2_dupwnd_keeps_the_inflation_apart_and_does_not_deflate() {
        for ns2 in [true, false] {
            let spec = serde_json::json!({"recovery": "reno", "init_cwnd_pkts": 7, "limited_transmit": false,
                                          "ns2_dupwnd": ns2});
            let (mut s, mut net) = negotiated(spec);
            for k in 0..3 {
                ack(&mut s, &mut net, 0.1 + 0.001 * k as f64, 0, false);
            }
            let (cwnd, ssthresh) = (s.st.cwnd, s.st.ssthresh);
            ack(&mut s, &mut net, 0.104, 0, false);
            assert_eq!(s.st.cwnd, cwnd + 1.0, "ns2 {ns2}: inflation");
            ack(&mut s, &mut net, 0.2, 7, false);
            if ns2 {
                assert_eq!((cwnd, ssthresh), (6.5, 3.0));
                assert_eq!(s.st.cwnd, 3.5 + 1.0 / 3.5, "cwnd_ kept, opened once");
            } else {
                assert_eq!((cwnd, ssthresh), (6.5, 3.5));
                assert_eq!(s.st.cwnd, 3.5, "deflated to ssthresh");
            }
            assert_eq!(s.state, State::Open);
        }
    }

    /// `ns2_dupwnd` with NewReno (tcp-newreno.cc): segments 0-7 out, 0
    /// lost; four duplicates give cwnd_ 4 + dupwnd_ 4. A partial ACK of 6
    /// segments (0-5 arrived) deflates as RFC 6582
    /// does (cwnd_ 4 - (6 - 4) = 2, dupwnd_ 1: 3) and retransmits 6; the
    /// full ACK then drops dupwnd_ and opens cwnd_ 2 by one (slow start
    /// below ssthresh 4): 3, where RFC 6582 deflates to ssthresh 4.
    #[test]
    fn ns2_dupwnd_newreno_deflates_on_partial_acks_and_does_not_deflate_at_the_end() {
        for (ns2, want) in [(true, 3.0), (false, 4.0)] {
            let spec = serde_json::json!({"recovery": "newreno", "init_cwnd_pkts": 8, "limited_transmit": false,
                                          "ns2_dupwnd": ns2});
            let (mut s, mut net) = negotiated(spec);
            for k in 0..4 {
                ack(&mut s, &mut net, 0.1 + 0.001 * k as f64, 0, false);
            }
            assert_eq!((s.st.cwnd, s.st.ssthresh, s.state), (8.0, 4.0, State::Recovery), "ns2 {ns2}");
            let before = sent(&s).len();
            ack(&mut s, &mut net, 0.2, 6, false);
            assert_eq!((s.st.cwnd, s.state), (3.0, State::Recovery), "ns2 {ns2}");
            let out: Vec<u64> = sent(&s)[before..].iter().map(|x| x.0).collect();
            assert_eq!(out, vec![6, 8], "ns2 {ns2}: the hole, then one new segment");
            ack(&mut s, &mut net, 0.3, 8, false);
            assert_eq!((s.st.cwnd, s.state), (want, State::Open), "ns2 {ns2}");
        }
    }

    /// The traced LAN case (docs/validation.md): an ECE halves 8 to 4
    /// (recover_ = 8); the loss under it is repaired without a second
    /// cut (dupwnd_ 3, then 4: windowd() 8, which sends segment 8); the
    /// ACK ending recovery carries ECE beyond recover_, and ns-2's `ecn`,
    /// run before dupwnd_ is dropped, halves the inflated 8 to 4. Without
    /// `ns2_dupwnd` the halving comes first too, then the deflation to
    /// the ssthresh it set (4): not the deflated window halved (2).
    #[test]
    fn ns2_dupwnd_an_ece_ending_recovery_halves_the_inflated_window() {
        for ns2 in [true, false] {
            let spec = serde_json::json!({"recovery": "reno", "init_cwnd_pkts": 8, "limited_transmit": false,
                                          "ecn": true, "ecn_response": "ns2", "ns2_dupwnd": ns2});
            let (mut s, mut net) = negotiated(spec);
            // (segment 0's ACK alone cannot cut: ns-2's `recover_` starts at 0)
            ack(&mut s, &mut net, 0.1, 2, true);
            assert_eq!((s.st.cwnd, s.st.ssthresh), (4.0, 4.0));
            for k in 0..4 {
                ack(&mut s, &mut net, 0.2 + 0.001 * k as f64, 2, false);
            }
            assert_eq!((s.st.cwnd, s.st.ssthresh, s.state), (8.0, 4.0, State::Recovery), "ns2 {ns2}");
            assert_eq!(sent(&s).iter().filter(|x| x.0 == 8).count(), 1, "ns2 {ns2}: {:?}", sent(&s));
            ack(&mut s, &mut net, 0.3, 9, true);
            assert_eq!((s.st.cwnd, s.state), (4.0, State::Open), "ns2 {ns2}");
        }
    }

    /// ns-2's `ecn` cuts only for `seqno > recover_` (tcp.cc), i.e. an
    /// ACK beyond the last segment sent at the last cut: the ACK ending a
    /// fast recovery by acknowledging exactly that window (ack 8 after
    /// recover_ = 7, segments 0-7) echoes a mark in it and is ignored; the
    /// next one, for segment 8, cuts. Traced on the LAN ECN row with
    /// Telnets (docs/validation.md): cutting at the first, as ccsim did,
    /// put CWR on segment 8 and cleared the receiver's ECE, so the second
    /// cut was missed.
    #[test]
    fn ns2_an_ece_acking_exactly_the_recovery_window_does_not_cut() {
        let spec = serde_json::json!({"recovery": "reno", "init_cwnd_pkts": 8, "limited_transmit": false,
                                      "ecn": true, "ecn_response": "ns2", "ns2_dupwnd": true});
        let (mut s, mut net) = negotiated(spec);
        for k in 0..3 {
            ack(&mut s, &mut net, 0.1 + 0.001 * k as f64, 0, false);
        }
        assert_eq!((s.st.cwnd, s.st.ssthresh, s.state), (7.0, 4.0, State::Recovery));
        ack(&mut s, &mut net, 0.2, 8, true);
        assert_eq!((s.st.cwnd, s.st.ssthresh, s.state), (4.0, 4.0, State::Open), "no cut at una == recover");
        let next = sent(&s).into_iter().filter(|x| x.0 >= 8).collect::<Vec<_>>();
        assert!(!next.is_empty() && next.iter().all(|x| !x.1), "no CWR after it: {next:?}");
        ack(&mut s, &mut net, 0.3, 9, true);
        assert_eq!((s.st.cwnd, s.st.ssthresh), (2.0, 2.0), "the next ECE cuts");
    }

    /// ns-2 sets CWR on the segment after any window reduction, a
    /// retransmission included (`SetCWRonRetransmit_`): the timeout's
    /// retransmission carries it; RFC 3168 sends CWR on new data only, and
    /// only after an ECE reduction.
    #[test]
    fn a_timeout_retransmission_carries_cwr_in_ns2_mode_only() {
        for (resp, cwr) in [("ns2", true), ("rfc3168", false)] {
            let (s, _) = after_timeout(resp);
            assert_eq!(sent(&s).last(), Some(&(0, cwr)), "{resp}");
        }
    }
}
