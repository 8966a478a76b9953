//! ECN at the sender (RFC 3168 §6.1.2): the once-per-window reaction to
//! ECE, the CWR that ends the receiver's echo, and ns-2.35's `TcpAgent::ecn`.
use super::*;

impl TcpSender {
    /// ns-2's `slowdown(CLOSE_CWND_*)` sets `cong_action_` on every window
    /// cut (`ecn_response = "ns2"`): the next segment carries CWR.
    pub(super) fn ns2_cong_action(&mut self) {
        if self.cfg.ecn_response == EcnResponse::Ns2 {
            self.cwr_pending = self.cfg.ecn;
        }
    }

    /// React to an ECE (once per window: `reacts_to_ece`, or `ns2_reacts_to_ece`): RFC 3168
    /// §6.1.2 as for a loss, said with CWR on the next new data; ns-2's
    /// `TcpAgent::ecn` with `ecn_response = "ns2"` (`seqno > recover_ ||
    /// last_cwnd_action_ == CWND_ACTION_TIMEOUT`, so also the first ECE
    /// after a timeout).
    pub(super) fn ece_reaction(&mut self, net: &mut Net) {
        self.ns2_after_timeout = false;
        self.cwr_pending = true;
        self.cwr_seq = Some(seq_opt(self.sb.high()));
        self.sync(net.now);
        if self.cfg.ecn_response == EcnResponse::Ns2 {
            self.ns2_ecn_cut(net);
        } else {
            self.st.ssthresh = self.cc.ssthresh_ecn(&self.st).max(2.0);
            // (Linux's CWR reduction skips a controller with `cong_control`)
            if !self.cc_owns_cwnd {
                self.st.cwnd = self.st.ssthresh;
            }
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
    pub(super) fn ns2_ecn_cut(&mut self, net: &mut Net) {
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

    /// Whether an ECE on an ACK leaving `una` unacknowledged cuts the
    /// window: once per window (RFC 3168 §6.1.2), in the open state.
    pub(super) fn reacts_to_ece(&self, una: u64) -> bool {
        self.state == State::Open && una >= self.recover && self.cwr_seq.is_none_or(|c| una > c.get())
    }

    /// Whether an ECE on a new ACK of `ack` holds the window where it is
    /// (RFC 3168 §6.1.2: "SHOULD NOT increase the congestion window in
    /// response to" ECE). It does in congestion avoidance, and whenever
    /// the ECE may report congestion no reduction has answered yet (the
    /// ACK covers data sent after the last one). An ECE that only echoes
    /// a window a reduction already answered (the receiver repeats ECE
    /// until CWR arrives, §6.1.3) does not stop the slow start that
    /// rebuilds the window after a timeout: otherwise a sender whose CWR
    /// segment was lost stays at one segment for as long as its
    /// go-back-N retransmissions (which carry no CWR) last. This is
    /// Linux's `tcp_may_raise_cwnd` (ECE blocks only at cwnd ≥ ssthresh).
    pub(super) fn ece_blocks_growth(&self, ack: u64) -> bool {
        let echo = ack < self.recover || self.cwr_seq.is_some_and(|c| ack <= c.get());
        self.st.cwnd >= self.st.ssthresh || !echo
    }

    /// RFC 3168 §6.1.2: a sender that reduces its window "for any reason
    /// (because of a retransmit timeout, a Fast Retransmit, or in response
    /// to an ECN Notification)" sets CWR on the first new data segment
    /// after it, which ends the receiver's ECE echo (Linux
    /// `tcp_ecn_queue_cwr` in `tcp_init_cwnd_reduction` and
    /// `tcp_enter_loss`). ns-2's agents do the same in `slowdown`
    /// ([`Self::ns2_cong_action`]).
    /// The segment that carries it is the next new one (`cwr_seq`): ECE on
    /// ACKs up to it echoes marks in the window this reduction answered.
    pub(super) fn queue_cwr(&mut self) {
        if self.cfg.ecn_response == EcnResponse::Ns2 {
            self.ns2_cong_action();
        } else if self.cfg.ecn {
            self.cwr_pending = true;
            self.cwr_seq = Some(seq_opt(self.sb.high()));
        }
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
    pub(super) fn ns2_reacts_to_ece(&self, ack: u64) -> bool {
        self.ns2_after_timeout || ack > self.recover.max(1)
    }
}
