//! Loss recovery as a strategy, in the spirit of ns-3's `TcpRecoveryOps`
//! but covering everything the TCPs ccsim runs do differently on an ACK:
//! the window rule of a new ACK and the exit from recovery and loss
//! ([`RecoveryOps::new_ack`]), the duplicate ACK and fast retransmit
//! ([`RecoveryOps::dup_ack`]), the reaction to ECE ([`RecoveryOps::ece`]),
//! what the ACK sends ([`RecoveryOps::send`]) and the retransmission
//! timer's expiry ([`RecoveryOps::rto`]). The core
//! ([`super::ack`]) keeps the scoreboard, RTT, timers, transmission and the
//! controller calls, and calls these at fixed points.
//!
//! - [`rfc::Rfc`]: RFC 5681 Reno, RFC 6582 NewReno, RFC 6675 SACK, with
//!   RFC 3168 ECN ([`rfc`]).
//! - [`ns2::Ns2Agents`]: ns-2.35's `RenoTcpAgent` and `NewRenoTcpAgent`,
//!   each of whose rules is a field a flow may switch off ([`ns2`]).
//! - [`linux::LinuxOps`]: Linux 6.x's RACK-TLP and RTO marking around the
//!   RFCs' rules ([`linux`]), with its state in [`linux::Linux`].
//! - [`sack1::Sack1`]: ns-2.35's `Sack1TcpAgent`, which keeps its own ACK,
//!   timeout and sending rules ([`sack1`]).
//!
//! Each strategy owns its state ([`Strategy`]: ns-2's window inflation
//! and ECN flags, Linux's RACK-TLP and undo, Sack1's scoreboard); the
//! shared sender holds none of it. The rules are associated functions on
//! zero-sized types; each ACK is dispatched on the flow's strategy to
//! code monomorphised for it, so a strategy costs no indirect call.
use super::*;

pub(in crate::transport::tcp) mod linux;
pub(in crate::transport::tcp) mod linux_undo;
pub(in crate::transport::tcp) mod ns2;
pub(in crate::transport::tcp) mod prr;
pub(in crate::transport::tcp) mod rfc;
pub mod sack1;

/// Which strategy a flow's sender runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StrategyKind {
    Rfc,
    Ns2Agents,
    Linux,
    /// ns-2's `Sack1TcpAgent` (`recovery = "sack1"`).
    Sack1,
}

impl StrategyKind {
    /// ns-2's Sack1 agent for `recovery = "sack1"`; ns-2's Reno and
    /// NewReno agents when any of their rules is on; Linux's when any of
    /// its rules is; else the RFCs'.
    pub fn of(cfg: &TcpParams) -> StrategyKind {
        if cfg.recovery == super::super::Recovery::Sack1 {
            return StrategyKind::Sack1;
        }
        let ns2 = cfg.ns2_dupwnd
            || cfg.ns2_bugfix
            || cfg.ns2_singledup
            || cfg.ns2_idle_restart
            || cfg.halve_on_repeated_rto
            || cfg.ecn_response == EcnResponse::Ns2
            || cfg.send_jitter_s > 0.0;
        if ns2 {
            StrategyKind::Ns2Agents
        } else if cfg.rack || cfg.tlp || cfg.rto_rack_mark || cfg.reno_sack {
            StrategyKind::Linux
        } else {
            StrategyKind::Rfc
        }
    }

    /// One of ns-2.35's agents (their rules set the window themselves).
    pub fn is_ns2(self) -> bool {
        matches!(self, StrategyKind::Ns2Agents | StrategyKind::Sack1)
    }
}

/// The strategy a flow's sender runs, with the state only it keeps (as
/// ns-3's `TcpRecoveryOps` subclasses and Linux's `tcp_sock` members of
/// each mechanism keep theirs).
pub(in crate::transport::tcp) enum Strategy {
    Rfc,
    Ns2Agents(ns2::Ns2),
    /// Boxed: RACK-TLP's and undo's state is large beside the others.
    Linux(Box<linux::Linux>),
    Sack1(Box<sack1::Sack1>),
}

impl Strategy {
    pub(super) fn new(cfg: &TcpParams) -> Strategy {
        match StrategyKind::of(cfg) {
            StrategyKind::Rfc => Strategy::Rfc,
            StrategyKind::Ns2Agents => Strategy::Ns2Agents(ns2::Ns2::default()),
            StrategyKind::Linux => Strategy::Linux(Box::new(linux::Linux::new(cfg.dupthresh))),
            StrategyKind::Sack1 => Strategy::Sack1(Box::default()),
        }
    }

    #[inline]
    pub fn kind(&self) -> StrategyKind {
        match self {
            Strategy::Rfc => StrategyKind::Rfc,
            Strategy::Ns2Agents(_) => StrategyKind::Ns2Agents,
            Strategy::Linux(_) => StrategyKind::Linux,
            Strategy::Sack1(_) => StrategyKind::Sack1,
        }
    }

    /// Linux's state, if the flow runs Linux's strategy.
    #[inline]
    pub(super) fn linux_ref(&self) -> Option<&linux::Linux> {
        match self {
            Strategy::Linux(l) => Some(l),
            _ => None,
        }
    }

    /// The same, to change.
    #[inline]
    pub(super) fn linux(&mut self) -> Option<&mut linux::Linux> {
        match self {
            Strategy::Linux(l) => Some(l),
            _ => None,
        }
    }
}

/// A new cumulative ACK as the core has read it.
#[derive(Clone, Copy, Debug)]
pub(super) struct NewAck {
    pub ack: u64,
    /// Segments it newly acknowledges.
    pub acked: u64,
    /// Its ECE holds the window (the strategy's [`RecoveryOps::ece_blocks`]).
    pub blocks: bool,
    /// It acknowledges part of a NewReno or SACK recovery's window.
    pub partial: bool,
}

/// The rules a recovery strategy supplies (associated functions on the
/// sender: the strategies hold no state of their own).
pub(super) trait RecoveryOps {
    /// The ACK's options as the strategy reads them, before its SACK
    /// blocks are marked: its D-SACK and timestamp echo (Linux).
    fn read_options(_s: &mut TcpSender, _h: &TcpHeader, _ts_echo: Time) {}
    /// Before the ACK's own rules (ns-2's `recv` runs `ecn()` first).
    fn ack_arrives(_s: &mut TcpSender, _net: &mut Net, _ack: u64, _ece: bool) {}
    /// Whether an ECE on the new ACK of `ack` holds the window.
    fn ece_blocks(s: &TcpSender, ack: u64) -> bool;
    /// Whether the timer's backoff survives a new ACK carrying `ece`.
    fn keeps_backoff(_s: &TcpSender, _ece: bool) -> bool {
        false
    }
    /// The window rule of a new ACK in each state, and the exit from
    /// recovery and loss; whether the retransmission timer restarts.
    fn new_ack(s: &mut TcpSender, net: &mut Net, a: NewAck) -> bool;
    /// After a new ACK's window rule and the controller's feedback.
    fn after_new_ack(_s: &mut TcpSender, _ece: bool) {}
    /// Whether the timer stops when everything sent is acknowledged.
    fn stops_idle_timer(_s: &TcpSender) -> bool {
        true
    }
    /// Whether an ACK of una counts as a duplicate with nothing outstanding.
    fn counts_idle_duplicates(_s: &TcpSender) -> bool {
        false
    }
    /// An ACK that newly SACKs segments and leaves SND.UNA where it was,
    /// before its duplicate-ACK rules, with its RTT sample: whether the
    /// controller hears of it (its `pkts_acked`). The RFCs' controllers
    /// sample new ACKs only.
    fn sack_sample(_s: &mut TcpSender, _rtt_s: Option<f64>) {}
    /// A duplicate ACK with data outstanding (the core has counted it).
    fn dup_ack(s: &mut TcpSender, net: &mut Net, una: u64);
    /// After the ACK's rules: the reaction to ECE, once per window.
    fn ece(s: &mut TcpSender, net: &mut Net, ece: bool);
    /// What the ACK lets out.
    fn send(s: &mut TcpSender, net: &mut Net) {
        s.try_send(net);
    }
    /// The retransmission timer's expiry: ssthresh, the loss state, and
    /// an expiry with nothing outstanding.
    fn rto(s: &mut TcpSender, net: &mut Net);
}

impl TcpSender {
    /// A new ACK in the loss state: the state ends once `recover` (HighData
    /// at the timeout) is acknowledged, and the window grows (slow start
    /// from one segment) unless the ACK's ECE holds it.
    pub(super) fn loss_ack(&mut self, a: NewAck) {
        if a.ack >= self.recover {
            self.state = State::Open;
            self.cc.on_event(&mut self.st, CcEvent::LossEnd);
        }
        if !a.blocks && !self.cc_owns_cwnd && self.may_raise_cwnd() {
            self.cc.cong_avoid(&mut self.st, a.acked);
        }
    }

    /// Fast recovery's start once the strategy has set ssthresh and cwnd:
    /// retransmit the first lost segment (RFC 5681 §3.2 step 4, RFC 6675
    /// §5 step 4) and restart the timer with it, as ns-2's
    /// `dupack_action` and Linux (rearm on retransmitting the head) do;
    /// otherwise, with a stable RTT (RTTVAR -> 0), the retransmission's
    /// extra queueing delay behind a full buffer fires a spurious RTO.
    pub(super) fn start_recovery(&mut self, net: &mut Net) {
        self.state = State::Recovery;
        self.partial_seen = false;
        self.rescue_rxt = Some(seq_opt(self.sb.una() + 1));
        self.stats.fast_recoveries += 1;
        self.cc.on_event(&mut self.st, CcEvent::RecoveryStart);
        self.sb.mark_lost_below(self.sb.una() + 1);
        // PRR's window for the entry ACK (RFC 9937 §4), before the fast
        // retransmit it lets out.
        self.prr_enter();
        self.rtt.on_fast_retransmit();
        self.retransmit_first_lost(net, true);
        self.arm_rto(net);
    }
}
