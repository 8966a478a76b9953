//! The RFCs' loss recovery: Reno (RFC 5681 §3.2: leave on any new ACK),
//! NewReno (RFC 6582 §3.2: a partial ACK retransmits the next hole and
//! deflates, the "Impatient" timer), SACK (RFC 6675 §5: no inflation,
//! NextSeg() sends while cwnd − pipe ≥ 1, leave on an ACK of the recovery
//! point), and the ECN reaction of RFC 3168 §6.1.2.
use super::{NewAck, RecoveryOps};
use crate::transport::tcp::sender::*;

pub struct Rfc;

impl RecoveryOps for Rfc {
    fn ece_blocks(s: &TcpSender, ack: u64) -> bool {
        s.ece_blocks_growth(ack)
    }

    fn new_ack(s: &mut TcpSender, net: &mut Net, a: NewAck) -> bool {
        let mut restart_rto = true;
        match s.state {
            State::Recovery if a.ack >= s.recover || s.cfg.recovery == Recovery::Reno => {
                // A full ACK (Reno: any new ACK) deflates to ssthresh
                // (a controller with `cong_control` restores its own).
                s.state = State::Open;
                if !s.cc_owns_cwnd {
                    s.st.cwnd = s.st.ssthresh;
                }
                s.cc.on_event(&mut s.st, CcEvent::RecoveryEnd);
            }
            State::Recovery if s.cfg.recovery == Recovery::NewReno => {
                // Partial ACK: retransmit the next hole, deflate by the
                // amount acked and add back one segment; only the first
                // partial ACK restarts the timer ("Impatient").
                s.sb.mark_lost_below(a.ack + 1);
                s.retransmit_first_lost(net, true);
                if !s.cc_owns_cwnd {
                    s.st.cwnd = (s.st.cwnd - a.acked as f64 + 1.0).max(1.0);
                }
                restart_rto = !s.partial_seen;
                s.partial_seen = true;
            }
            // SACK: NextSeg() repairs, pipe gates; PRR sets the window.
            State::Recovery => s.prr_ack(),
            State::Loss => s.loss_ack(a),
            // `cong_control` sets the window after the ACK's rules
            State::Open if s.cc_owns_cwnd => {}
            State::Open if a.blocks => {}
            // Linux 2.4 `tcp_may_raise_cwnd`: no increase in CWR;
            // `tcp_try_to_open` runs `tcp_cwnd_down` instead.
            State::Open if s.local_cwr => s.cwnd_down(),
            // The round of an ECE reduction: the window holds until the
            // reduction's window is acknowledged (`CwrEnd`), as it does
            // through the fast recovery a single loss starts (RFC 3168
            // §6.1.2: the response to a CE mark "MUST be essentially the
            // same as the congestion control response to a *single*
            // dropped packet"); Linux's CA_CWR and ns-3's CA_CWR do not
            // grow cwnd either.
            State::Open if s.cwr => {}
            State::Open if !s.may_raise_cwnd() => {}
            State::Open => s.cc.cong_avoid(&mut s.st, a.acked),
        }
        restart_rto
    }

    fn dup_ack(s: &mut TcpSender, net: &mut Net, una: u64) {
        match s.state {
            State::Open => {
                if s.local_cwr {
                    s.cwnd_down();
                }
                // RFC 6675 §5: also once IsLost(HighACK + 1).
                let lost = s.cfg.recovery == Recovery::Sack && s.sb.lost_hi() > una;
                // A loss in the window of an ECE reduction is repaired
                // without a second reduction (RFC 3168 §6.1.2).
                let after_ecn = s.ecn_cut && una < s.recover;
                // RFC 6582 §3.2 step 1, "careful": una ≥ recover.
                let past_recover = una >= s.recover;
                if (s.dupacks >= s.cfg.dupthresh || lost) && (past_recover || after_ecn) {
                    enter_recovery(s, net, !after_ecn);
                }
            }
            // RFC 5681 §3.2 step 5: inflate by one per further duplicate
            // (RFC 6675 does not inflate).
            State::Recovery if s.cfg.recovery != Recovery::Sack && !s.cc_owns_cwnd => {
                s.st.cwnd = (s.st.cwnd + 1.0).min(s.st.max_cwnd);
            }
            State::Recovery => s.prr_ack(),
            _ => {}
        }
    }

    #[inline]
    fn ece(s: &mut TcpSender, net: &mut Net, ece: bool) {
        if ece && s.reacts_to_ece(s.sb.una()) {
            s.ece_reaction(net, TcpSender::rfc3168_cut);
        }
    }

    /// RFC 5681 §3.1 eq. (4): ssthresh = max(FlightSize/2, 2) (the
    /// controller's decrease), FlightSize capped by the window (in
    /// recovery the window without its inflation), as Linux (`snd_cwnd`)
    /// does: uncapped, an RTO that ends a failed SACK recovery would count
    /// the SACKed data sent during it and set ssthresh far above what the
    /// path holds. Only "if the given segment has not yet been resent by
    /// way of the retransmission timer": a backed-off repeat keeps
    /// ssthresh (Linux `tcp_enter_loss`); nor is it lowered again inside
    /// the window of an ECE reduction (RFC 3168 §6.1.2). With nothing
    /// outstanding, only a segment held at a full interface queue is
    /// retried (Linux's probe timer).
    fn rto(s: &mut TcpSender, net: &mut Net) {
        if s.sb.outstanding() == 0 {
            if s.held {
                s.try_send(net);
            }
            return;
        }
        let repeated = s.count_timeout(net);
        let after_ecn = s.ecn_cut && s.sb.una() < s.recover;
        if !repeated && !after_ecn {
            let window = if s.state == State::Recovery { s.st.cwnd.min(s.st.ssthresh) } else { s.st.cwnd };
            s.st.flight = s.st.flight.min(window.ceil() as u64);
            s.st.ssthresh = s.cc_ssthresh_rto();
        }
        s.queue_cwr();
        s.enter_loss(net, true);
    }
}

/// Fast retransmit (RFC 5681 §3.2 steps 2-4; RFC 6675 §5 steps 3-4):
/// ssthresh = the controller's decrease of FlightSize less what Limited
/// Transmit sent (`cut`; false when an ECE reduction already cut in this
/// window), cwnd = ssthresh (+ DupThresh without SACK), `recover` =
/// HighData. A controller with `cong_control` keeps cwnd (Linux leaves
/// it to `cong_control`: BBR's packet conservation).
fn enter_recovery(s: &mut TcpSender, net: &mut Net, cut: bool) {
    if cut {
        s.queue_cwr();
        // FlightSize capped by cwnd, as at an RTO (`Rfc::rto`) and as Linux
        // computes ssthresh from cwnd: after a SACK recovery, new data
        // sent by pipe can leave FlightSize far above cwnd, and half of it
        // would raise the window at a "reduction".
        s.st.flight = (s.sb.outstanding() - s.lt_sent as u64).min(s.st.cwnd.ceil() as u64);
        s.st.ssthresh = s.cc_ssthresh();
    }
    s.ecn_cut = false;
    s.cwr = false;
    s.local_cwr = false;
    if !s.cc_owns_cwnd {
        s.st.cwnd = match s.cfg.recovery {
            Recovery::Sack => s.st.ssthresh,
            _ => s.st.ssthresh + s.cfg.dupthresh as f64,
        };
    }
    s.clamp_cwnd();
    s.recover = s.sb.high();
    s.start_recovery(net);
}
