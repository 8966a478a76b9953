//! ns-2.35's Reno and NewReno agents (tcp.cc, tcp-reno.cc,
//! tcp-newreno.cc), as ccsim follows them event for event on the papers'
//! scenarios. Each rule is a flow field that `tcp_model = "ns2"` turns on
//! and a flow may turn off, where the RFCs' rule then applies:
//! `ns2_dupwnd` (the window and its inflation `dupwnd_`), `ns2_bugfix`
//! (`bug_fix_`), `ns2_singledup` (`singledup_`), `ecn_response = "ns2"`
//! (`TcpAgent::ecn`), `send_jitter_s` (`overhead_`). docs/tcp-models.md
//! lists them with their sources.
use super::{NewAck, RecoveryOps};
use crate::transport::tcp::sender::*;

pub struct Ns2Agents;

/// The agents' own state (members of ns-2's `TcpAgent` and
/// `RenoTcpAgent` that the RFCs' TCP has no counterpart for).
#[derive(Clone, Debug, Default)]
pub struct Ns2 {
    /// `ect_` (`ecn_response = "ns2"`): a new ACK has carried ECE (the
    /// negotiation's, on segment 0's ACK, or a mark's). Until then an ECE
    /// neither stops the window's increase nor holds the backoff (tcp.cc
    /// `recv_newack_helper`, `newack`).
    pub(in crate::transport::tcp::sender) ect: bool,
    /// `ecn_backoff_` (`ecn_response = "ns2"`): an ECE arrived at a window
    /// of one segment; the RTO backoff is kept while ACKs carry ECE.
    pub(in crate::transport::tcp::sender) ecn_backoff: bool,
    /// `dupwnd_` (`ns2_dupwnd`): the fast-recovery inflation, part of
    /// `st.cwnd` (which holds ns-2's `windowd()` = cwnd_ + dupwnd_) until
    /// the first new ACK takes it off again.
    pub(in crate::transport::tcp::sender) dupwnd: f64,
    /// `last_cwnd_action_ == CWND_ACTION_TIMEOUT` (`ecn_response = "ns2"`):
    /// set by every expiry of the timer, cleared by the next ECE reaction
    /// or fast retransmit.
    pub(in crate::transport::tcp::sender) after_timeout: bool,
}

impl TcpSender {
    /// The agents' state (a sender of another strategy has none).
    pub(in crate::transport::tcp::sender) fn n2(&mut self) -> &mut Ns2 {
        match &mut self.strategy {
            super::Strategy::Ns2Agents(n) => n,
            _ => unreachable!("ns-2's agents' state on another strategy"),
        }
    }

    pub(in crate::transport::tcp::sender) fn n2r(&self) -> &Ns2 {
        match &self.strategy {
            super::Strategy::Ns2Agents(n) => n,
            _ => unreachable!("ns-2's agents' state on another strategy"),
        }
    }
}

impl RecoveryOps for Ns2Agents {
    /// ns-2's `recv` (tcp-reno.cc, tcp-newreno.cc) runs `ecn(seqno)`
    /// before anything else on the ACK: the ACK's own rules (its RTT
    /// sample, the timer's backoff, the end of a recovery, the duplicate
    /// rules) then run on the window, backoff and `recover_` the reaction
    /// left.
    fn ack_arrives(s: &mut TcpSender, net: &mut Net, ack: u64, ece: bool) {
        if ns2_ecn(s) && ece && ns2_reacts_to_ece(s, ack) {
            if s.cwr && ack > s.recover {
                s.end_cwr();
            }
            s.ece_reaction(net, ns2_ecn_cut);
        }
    }

    /// `recv_newack_helper`: an ECE stops `opencwnd` only once `ect_` is
    /// set (by an earlier ECE-carrying ACK).
    fn ece_blocks(s: &TcpSender, ack: u64) -> bool {
        match s.cfg.ecn_response {
            EcnResponse::Ns2 => !s.cfg.ecn || s.n2r().ect,
            EcnResponse::Rfc3168 => s.ece_blocks_growth(ack),
        }
    }

    /// `newack`: "don't end backoff if still in ECN-Echo with a congestion
    /// window of 1 packet" (`ect_ && ecn_backoff_ && ecnecho`), with
    /// `ecn_backoff_` as `ecn` has just left it.
    fn keeps_backoff(s: &TcpSender, ece: bool) -> bool {
        ns2_ecn(s) && ece && s.n2r().ecn_backoff && s.n2r().ect
    }

    fn new_ack(s: &mut TcpSender, net: &mut Net, a: NewAck) -> bool {
        let mut restart_rto = true;
        match s.state {
            State::Recovery if s.cfg.ns2_dupwnd && !a.partial => reno_exit(s, a.blocks, a.acked),
            State::Recovery if a.ack >= s.recover || s.cfg.recovery == Recovery::Reno => {
                s.state = State::Open;
                s.st.cwnd = s.st.ssthresh;
                s.cc.on_event(&mut s.st, CcEvent::RecoveryEnd);
            }
            State::Recovery if s.cfg.recovery == Recovery::NewReno => {
                // `partialnewack` deflates first, then sends.
                if s.cfg.ns2_dupwnd {
                    partial_deflate(s, a.acked);
                }
                s.sb.mark_lost_below(a.ack + 1);
                s.retransmit_first_lost(net, true);
                if !s.cfg.ns2_dupwnd {
                    s.st.cwnd = (s.st.cwnd - a.acked as f64 + 1.0).max(1.0);
                }
                restart_rto = !s.partial_seen;
                s.partial_seen = true;
            }
            State::Recovery => {}
            State::Loss => {
                // Reno's `recv`: a new ACK drops `dupwnd_` (the inflation
                // of a retransmission in the loss state, `dup_ack`).
                let dupwnd = std::mem::take(&mut s.n2().dupwnd);
                s.st.cwnd -= dupwnd;
                s.loss_ack(a);
            }
            State::Open if a.blocks => {}
            State::Open if s.local_cwr => s.cwnd_down(),
            // `opencwnd` with ns-2's ECN response (Reno): slow start adds
            // one segment while cwnd < ssthresh, not capped at ssthresh;
            // it differs only from a fractional window an unrounded ECN
            // halving left below ssthresh (1.5 -> 2.5, where the cap gives 2).
            State::Open if s.cfg.ecn_response == EcnResponse::Ns2 && s.st.cwnd < s.st.ssthresh => s.st.cwnd += 1.0,
            State::Open => s.cc.cong_avoid(&mut s.st, a.acked),
        }
        restart_rto
    }

    fn after_new_ack(s: &mut TcpSender, ece: bool) {
        if ns2_ecn(s) && ece {
            s.n2().ect = true;
        }
    }

    /// `newtimer` restarts the timer at every new ACK (`ns2_idle_restart`).
    fn stops_idle_timer(s: &TcpSender) -> bool {
        !s.cfg.ns2_idle_restart
    }

    /// `recv` counts every ACK of `last_ack_` as a duplicate, with nothing
    /// outstanding too (the ACK of a go-back-N resend of a segment that
    /// had arrived), and `send_one` may then send.
    fn counts_idle_duplicates(s: &TcpSender) -> bool {
        s.cfg.ns2_singledup
    }

    fn dup_ack(s: &mut TcpSender, net: &mut Net, una: u64) {
        // An ECE on the third duplicate itself has been reacted to in
        // `ack_arrives`, so that duplicate resends without a second cut.
        let reno_ecn = s.cfg.ns2_bugfix && s.cfg.ecn_response == EcnResponse::Ns2;
        match s.state {
            State::Open => {
                if s.local_cwr {
                    s.cwnd_down();
                }
                let lost = s.cfg.recovery == Recovery::Sack && s.sb.lost_hi() > una;
                // After an ECE reduction in this window, repair the loss
                // without reducing again (`dupack_action` with `bug_fix_`
                // after `CWND_ACTION_ECN` while `highest_ack_ <= recover_`).
                let after_ecn = s.ecn_cut && (una < s.recover || (reno_ecn && una == s.recover));
                let past_recover = if s.cfg.ns2_bugfix { una > s.recover } else { una >= s.recover };
                // `++dupacks_ == numdupacks_` -> `dupack_action`: a later ECE
                // cut does not make the next duplicate resend.
                let at_thresh =
                    if s.cfg.ns2_bugfix { s.dupacks == s.cfg.dupthresh } else { s.dupacks >= s.cfg.dupthresh };
                if (at_thresh || lost) && (past_recover || after_ecn) {
                    enter_recovery(s, net, !after_ecn);
                }
            }
            // `dupack_action` after a timeout whose window an ECE then cut
            // (`last_cwnd_action_ == CWND_ACTION_ECN`): the third duplicate
            // resends `last_ack_ + 1` (though the go-back-N already did)
            // with no cut, restarts the timer and sets `dupwnd_ =
            // numdupacks_`, each later duplicate adding one; the go-back-N
            // goes on under the inflated window until the next new ACK.
            State::Loss if s.ecn_cut && s.dupacks == s.cfg.dupthresh && reno_ecn => {
                s.ecn_cut = false; // last_cwnd_action_ = DUPACK
                                   // `output(last_ack_ + 1)`: counted lost as well as resent,
                                   // so the window (`t_seqno_ <= highest_ack_ + win`) stays.
                s.sb.mark_lost_below(una + 1);
                s.sb.resend_first();
                // `reset_rtx_timer(1, 0)` before `output`: no backoff, and
                // the timed segment gives no sample (`rtt_active_ = 0`).
                s.rtt.on_fast_retransmit();
                s.transmit(net, una, true);
                s.arm_rto(net);
                let dupwnd = s.cfg.dupthresh as f64;
                s.n2().dupwnd = dupwnd;
                s.st.cwnd += dupwnd;
            }
            State::Loss if s.n2r().dupwnd > 0.0 && s.dupacks > s.cfg.dupthresh => {
                s.n2().dupwnd += 1.0;
                s.st.cwnd += 1.0;
            }
            State::Recovery if s.cfg.recovery != Recovery::Sack => {
                s.st.cwnd = (s.st.cwnd + 1.0).min(s.st.max_cwnd);
                if s.cfg.ns2_dupwnd {
                    s.n2().dupwnd += 1.0;
                }
            }
            _ => {}
        }
    }

    fn ece(s: &mut TcpSender, net: &mut Net, ece: bool) {
        if !ece {
            s.n2().ecn_backoff = false;
        }
        if ece && !ns2_ecn(s) && s.reacts_to_ece(s.sb.una()) {
            s.ece_reaction(net, TcpSender::rfc3168_cut);
        }
    }

    /// A duplicate ACK below the threshold sends one segment by Limited
    /// Transmit as `send_one` does (tcp-reno.cc `recv`: `send_one` and no
    /// `send_much` for dupacks_ < numdupacks_): at once, past any pending
    /// delayed send (`send_jitter_s`), and with `ns2_singledup` (unpaced)
    /// only now, at this ACK, when new data is there to send (an
    /// application-limited flow's later write waits for the window).
    fn send(s: &mut TcpSender, net: &mut Net) {
        let one = s.ns2_send_one() && (s.state == State::Open || s.state == State::Loss);
        let jitter_one = s.cfg.send_jitter_s > 0.0 && s.state == State::Open;
        if (one || jitter_one) && (1..s.cfg.dupthresh).contains(&s.dupacks) {
            if s.stats.completed_at.is_none() {
                s.send_next(net, s.window() + s.lt_allowance());
            }
        } else {
            s.try_send(net);
        }
    }

    /// tcp.cc `timeout` and `slowdown`, tcp-reno.cc `RenoTcpAgent::timeout`.
    fn rto(s: &mut TcpSender, net: &mut Net) {
        // ns-2 `timeout`: every expiry sets `last_cwnd_action_` to TIMEOUT,
        // after which `ecn` reacts to the next ECE whatever `recover_`, and
        // calls `slowdown(CLOSE_CWND_*)`.
        s.n2().after_timeout = s.cfg.ecn_response == EcnResponse::Ns2;
        // ns-2 `RenoTcpAgent::timeout`: dupwnd_ = 0 (cwnd_, the window
        // without it, is what `slowdown` halves below).
        let dupwnd = std::mem::take(&mut s.n2().dupwnd);
        let ns2_cwnd = (s.st.cwnd - dupwnd).min(s.awnd as f64);
        if s.cfg.ecn_response == EcnResponse::Ns2 {
            ns2_cong_action(s);
        }
        if s.sb.outstanding() == 0 {
            if s.cfg.ecn_response == EcnResponse::Ns2 {
                // ns-2 `timeout` sets `recover_ = maxseq_` and, on every
                // expiry, `last_cwnd_action_ = CWND_ACTION_TIMEOUT`: an
                // ECN reduction before it no longer spares a later
                // timeout's ssthresh cut.
                s.ecn_cut = false;
                s.recover = s.sb.high();
            }
            if s.st.cwnd < 1.0 || s.cfg.ns2_idle_restart {
                // ns-2 `timeout` with no outstanding data (after an ECN cut
                // to 0, or idle with `ns2_idle_restart`): the window is one
                // segment, no retransmission and no ssthresh cut
                // (`slowdown(CLOSE_CWND_ONE|NO_OUTSTANDING_DATA)`), and,
                // as `restart_bugfix_` (true by default) has it, no backoff
                // either (`reset_rtx_timer(0, 0)`, which rearms the timer).
                s.st.cwnd = 1.0;
                s.rtt.forget_timed();
                if s.cfg.ns2_idle_restart {
                    s.recover = s.sb.high();
                    s.arm_rto(net);
                }
                s.try_send(net);
            } else if s.held {
                // Linux's probe timer (`tcp_probe_timer`): nothing is
                // outstanding to clock a retry of the held segment.
                s.try_send(net);
            }
            return;
        }
        let repeated = s.count_timeout(net);
        // ssthresh as the RFC strategy sets it (its `rto`), except: the
        // window `slowdown` halves is cwnd_ without the inflation, whose
        // recovery a timeout cut (an RTO in recovery after a slow-start
        // overshoot: ns-2 52 -> 26, where the inflated cwnd gave 80); a
        // repeated timeout halves again with `halve_on_repeated_rto`
        // (`slowdown(CLOSE_SSTHRESH_HALF)` on every timeout); none after
        // `CWND_ACTION_ECN` (`CLOSE_CWND_ONE` only).
        if s.cfg.ns2_bugfix && s.cfg.ecn_response == EcnResponse::Ns2 {
            // ns-2 `RenoTcpAgent::timeout` (tcp-reno.cc, NewReno's too):
            // `if (bug_fix_) recover_ = maxseq_` before `TcpAgent::timeout`
            // tests `highest_ack_ < recover_`, so with data outstanding the
            // timeout after an ECN reduction is the ECN one (`slowdown(
            // CLOSE_CWND_ONE)`, no ssthresh cut, no `++nrexmit_`) however
            // much of that reduction's window has been acknowledged.
            s.recover = s.sb.high();
        }
        let after_ecn = s.ecn_cut && s.sb.una() < s.recover;
        if (!repeated || s.cfg.halve_on_repeated_rto) && !after_ecn {
            if s.cfg.ns2_dupwnd {
                // ns-2's `slowdown(CLOSE_SSTHRESH_HALF | ...)`: ssthresh_
                // is an int, (int)(windowd() / 2) of the window cwnd_,
                // not of the flight (floor(w / 2) = floor(floor(w) / 2)).
                s.st.flight = ns2_cwnd.max(0.0).floor() as u64;
                s.st.ssthresh = s.cc_ssthresh_rto().floor().max(2.0);
            } else {
                let window = if s.state == State::Recovery { s.st.cwnd.min(s.st.ssthresh) } else { s.st.cwnd };
                s.st.flight = s.st.flight.min(window.ceil() as u64);
                s.st.ssthresh = s.cc_ssthresh_rto();
            }
        }
        if s.cfg.ecn_response != EcnResponse::Ns2 {
            s.queue_cwr();
        }
        // With send_jitter_s, `timeout` resends through the delayed
        // `send_much`, not at once.
        s.enter_loss(net, s.cfg.send_jitter_s == 0.0);
    }
}

/// ns-2's ECN agent: ECN with `TcpAgent::ecn`'s response.
fn ns2_ecn(s: &TcpSender) -> bool {
    s.cfg.ecn && s.cfg.ecn_response == EcnResponse::Ns2
}

/// Fast retransmit as `dupack_action`; `cut`: `slowdown` (false when an
/// ECE reduction already cut in this window). With `ns2_dupwnd`,
/// `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF)` with
/// `precisionReduce_`: cwnd_ = windowd()/2 unrounded, ssthresh its floor
/// (at least 2), and `dupwnd_ = numdupacks_` on top; after an ECN
/// reduction `recover_` stays where `ecn` put it.
fn enter_recovery(s: &mut TcpSender, net: &mut Net, cut: bool) {
    s.n2().after_timeout = false;
    if cut {
        queue_cwr(s);
        s.st.flight = s.sb.outstanding() - s.lt_sent as u64;
        if s.cfg.ns2_dupwnd {
            let half = s.st.cwnd.min(s.awnd as f64) / 2.0;
            s.st.ssthresh = half.floor().max(2.0);
            s.st.cwnd = half;
        } else {
            s.st.ssthresh = s.cc_ssthresh();
        }
    }
    s.ecn_cut = false;
    s.cwr = false;
    s.local_cwr = false;
    if s.cfg.ns2_dupwnd {
        let dupwnd = s.cfg.dupthresh as f64;
        s.n2().dupwnd = dupwnd;
        s.st.cwnd += dupwnd;
    } else {
        s.st.cwnd = match s.cfg.recovery {
            Recovery::Sack => s.st.ssthresh,
            _ => s.st.ssthresh + s.cfg.dupthresh as f64,
        };
    }
    s.clamp_cwnd();
    if cut || !s.cfg.ns2_dupwnd {
        s.recover = s.sb.high();
    }
    s.start_recovery(net);
}

/// The ACK ending a recovery with `ns2_dupwnd` (Reno's first new ACK,
/// NewReno's full ACK), as `recv` runs it (after `ecn`): `dupwnd_ = 0`
/// without deflating cwnd_ to ssthresh, then `opencwnd` unless the ACK
/// carries ECE (`recv_newack_helper`).
fn reno_exit(s: &mut TcpSender, blocks: bool, acked: u64) {
    s.state = State::Open;
    s.cc.on_event(&mut s.st, CcEvent::RecoveryEnd);
    let dupwnd = std::mem::take(&mut s.n2().dupwnd);
    s.st.cwnd -= dupwnd;
    if !blocks {
        if s.cfg.ecn_response == EcnResponse::Ns2 && s.st.cwnd < s.st.ssthresh {
            s.st.cwnd += 1.0;
        } else {
            s.cc.cong_avoid(&mut s.st, acked);
        }
    }
}

/// A partial ACK of `acked` segments in a NewReno recovery with
/// `ns2_dupwnd`, as `partialnewack` (with `partial_window_deflation_`,
/// ns-2.35's default): dupwnd_ loses `acked - 1` while it exceeds
/// `acked`; otherwise cwnd_ loses `acked - dupwnd_` (not below 1) and
/// dupwnd_ stays 1 to flag the recovery; cwnd_ is not opened.
fn partial_deflate(s: &mut TcpSender, acked: u64) {
    let deflate = acked as f64;
    let mut dupwnd = s.n2r().dupwnd;
    let mut cwnd_ = s.st.cwnd - dupwnd;
    if dupwnd > deflate {
        dupwnd -= deflate - 1.0;
    } else {
        cwnd_ = (cwnd_ - (deflate - dupwnd)).max(1.0);
        dupwnd = 1.0;
    }
    s.n2().dupwnd = dupwnd;
    s.st.cwnd = cwnd_ + dupwnd;
}

/// `slowdown(CLOSE_CWND_*)` sets `cong_action_` on every window cut
/// (`ecn_response = "ns2"`): the next segment carries CWR.
fn ns2_cong_action(s: &mut TcpSender) {
    if s.cfg.ecn_response == EcnResponse::Ns2 {
        s.cwr_pending = s.cfg.ecn;
    }
}

/// CWR after a reduction: `slowdown`'s `cong_action_` with ns-2's ECN
/// response, else RFC 3168's ([`TcpSender::queue_cwr`]).
fn queue_cwr(s: &mut TcpSender) {
    if s.cfg.ecn_response == EcnResponse::Ns2 {
        ns2_cong_action(s);
    } else {
        s.queue_cwr();
    }
}

/// `TcpAgent::ecn` + `slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF)`
/// (tcp.cc): with `precisionReduce_` (ns-2.35's default since 2006/1/24)
/// cwnd = `windowd()`/2 = min(cwnd, rwnd)/2 unrounded and ssthresh =
/// max(⌊that⌋, 2), so a window under two segments closes (`window()` =
/// ⌊cwnd⌋ = 0); at a window of at most one segment the first ECE arms
/// `ecn_backoff_`, later ones back the timer off (restarted by ns-2's
/// `newack`, which runs after `ecn`). The reaction ends the state after
/// a timeout (`last_cwnd_action_ = CWND_ACTION_ECN`).
fn ns2_ecn_cut(s: &mut TcpSender, net: &mut Net) {
    s.n2().after_timeout = false;
    let mut backed_off = false;
    if s.st.cwnd <= 1.0 {
        if s.n2r().ecn_backoff {
            s.rtt.back_off();
            backed_off = true;
        } else {
            s.n2().ecn_backoff = true;
        }
    } else {
        s.n2().ecn_backoff = false;
    }
    // `windowd()` = cwnd_ + dupwnd_ (the inflation, kept apart as
    // `dupwnd` and dropped by the ACK's own rules after this), capped
    // by the receiver's window; cwnd_ becomes half of it.
    let half = s.st.cwnd.min(s.awnd as f64) / 2.0;
    s.st.ssthresh = half.floor().max(2.0);
    s.st.cwnd = half + s.n2r().dupwnd;
    // ns-2 `newtimer`: the timer also runs at cwnd < 1 with nothing
    // outstanding, since only its expiry can reopen the window.
    if half < 1.0 || (backed_off && s.sb.outstanding() > 0) {
        s.arm_rto(net);
    }
}

/// `TcpAgent::ecn`'s condition for an ACK of `ack` (tcp.cc): `seqno >
/// recover_`, or the first ECE after a timeout whatever `recover_`
/// (`last_cwnd_action_ == CWND_ACTION_TIMEOUT`). ns-2's `seqno` is the
/// last segment acknowledged (`ack - 1`) and `recover_` is `maxseq_`, the
/// last segment sent (`recover - 1`), so an ACK of exactly the window of
/// the last reduction (`ack == recover`, e.g. the one ending a fast
/// recovery) does not cut again: its ECE echoes a mark in that window.
/// ns-2's `recover_` starts at 0 (segment 0), which is `recover` 1 here:
/// the negotiation's ECE on segment 0's ACK cuts only after a timeout.
fn ns2_reacts_to_ece(s: &TcpSender, ack: u64) -> bool {
    s.n2r().after_timeout || ack > s.recover.max(1)
}

/// The settings ns-2's agents take, and the RFC and Linux rules they
/// refuse: the agents set the window themselves.
pub(in crate::transport::tcp) fn validate(
    cfg: &crate::transport::tcp::TcpParams,
    f: &crate::scenario::FlowSpec,
    p: crate::transport::tcp::check::Path,
) -> crate::transport::tcp::check::Checked {
    use crate::transport::tcp::check::*;
    if cfg.ecn_response == EcnResponse::Ns2 && f.cc.as_deref().is_some_and(|c| c != "reno") {
        return Err(ConfigError::new(
            p("ecn_response"),
            format!(
                "\"ns2\" is ns-2's Reno halving and needs cc = \"reno\"; cc is \"{}\" (use \"rfc3168\")",
                f.cc.as_deref().unwrap_or_default()
            ),
        ));
    }
    if cfg.ns2_singledup && !cfg.limited_transmit {
        return Err(ConfigError::new(
            p("ns2_singledup"),
            "true needs limited_transmit = true (it extends Limited Transmit to the state after a timeout, \
             as ns-2's singledup_)",
        ));
    }
    if cfg.cwnd_limited != CwndLimited::Off && StrategyKind::of(cfg).is_ns2() {
        return Err(ConfigError::new(
            p("cwnd_limited"),
            format!(
                "\"{}\" needs the RFCs' recovery (tcp_model = \"rfc\", no ns2_* rule): ns-2.35's agents grow \
                 cwnd on every ACK",
                kind_name(&cfg.cwnd_limited)
            ),
        ));
    }
    if cfg.reno_sack && StrategyKind::of(cfg).is_ns2() {
        return Err(ConfigError::new(
            p("reno_sack"),
            "true is not allowed with ns-2's agents' rules (ns2_*, ecn_response = \"ns2\", send_jitter_s)",
        ));
    }
    if cfg.ns2_dupwnd && !matches!(cfg.recovery, Recovery::Reno | Recovery::NewReno) {
        return Err(ConfigError::new(
            p("ns2_dupwnd"),
            format!(
                "true needs recovery = \"reno\" or \"newreno\" (it is the window of ns-2's \
                 RenoTcpAgent and NewRenoTcpAgent), got \"{}\"",
                kind_name(&cfg.recovery)
            ),
        ));
    }
    non_negative(&p("send_jitter_s"), cfg.send_jitter_s)?;
    if cfg.send_jitter_s > 0.0 && cfg.pacing != PacingKind::None {
        // ns-2 has no pacing next to `overhead_`; both would hold sends.
        return Err(ConfigError::new(
            p("send_jitter_s"),
            format!("{} is not allowed with pacing; allowed: 0 or pacing = \"none\"", cfg.send_jitter_s),
        ));
    }
    Ok(())
}
