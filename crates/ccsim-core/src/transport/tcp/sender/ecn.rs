//! ECN at the sender (RFC 3168 §6.1.2): the once-per-window reaction to
//! ECE and the CWR that ends the receiver's echo (ns-2.35's `TcpAgent::ecn`
//! is its agents' own, in [`super::recovery::ns2`]).
use super::*;

impl TcpSender {
    /// React to an ECE (once per window, as the strategy decides): RFC
    /// 3168 §6.1.2 as for a loss, said with CWR on the next new data, the
    /// window cut by `cut` (the RFC's [`Self::rfc3168_cut`], or ns-2's
    /// `TcpAgent::ecn` under its agents).
    pub(super) fn ece_reaction(&mut self, net: &mut Net, cut: fn(&mut TcpSender, &mut Net)) {
        self.cwr_pending = true;
        self.cwr_seq = Some(seq_opt(self.sb.high()));
        self.sync(net.now);
        cut(self, net);
        self.recover = self.sb.high();
        self.ecn_cut = true;
        self.cwr = true;
        self.cc.on_event(&mut self.st, CcEvent::EcnEcho);
        self.clamp_cwnd();
    }

    /// RFC 3168 §6.1.2's reduction on ECE: ssthresh from the controller
    /// (at least 2 segments), cwnd = ssthresh.
    pub(super) fn rfc3168_cut(&mut self, _net: &mut Net) {
        self.st.ssthresh = self.cc.ssthresh_ecn(&self.st).max(2.0);
        // (Linux's CWR reduction skips a controller with `cong_control`)
        if !self.cc_owns_cwnd {
            self.st.cwnd = self.st.ssthresh;
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
    /// (their own rule, in [`super::recovery::ns2`]).
    /// The segment that carries it is the next new one (`cwr_seq`): ECE on
    /// ACKs up to it echoes marks in the window this reduction answered.
    pub(super) fn queue_cwr(&mut self) {
        if self.cfg.ecn {
            self.cwr_pending = true;
            self.cwr_seq = Some(seq_opt(self.sb.high()));
        }
    }
}

/// ECN's settings: what a controller's scheme requires (DCTCP, L4S), and
/// the feedback, codepoint and retransmission rules that need ECN on.
pub(in crate::transport::tcp) fn validate(
    cfg: &crate::transport::tcp::TcpParams,
    f: &crate::scenario::FlowSpec,
    p: crate::transport::tcp::check::Path,
) -> crate::transport::tcp::check::Checked {
    use crate::transport::tcp::check::*;
    let cc_name = f.cc.as_deref().unwrap_or_default();
    let needs = crate::transport::cc::registry::needs(cc_name);
    if let Some(e) = needs.ecn {
        if e.required && !cfg.ecn {
            return Err(ConfigError::new(
                p("ecn"),
                format!(
                    "false is not allowed with cc = \"{cc_name}\" (it answers ECN marks: DCTCP, RFC 8257 §3; an \
                     L4S sender, RFC 9331 §4); leave ecn out or set it true"
                ),
            ));
        }
        if let Some(fb) = e.feedback.filter(|&fb| e.feedback_required && cfg.ecn_feedback != fb) {
            return Err(ConfigError::new(
                p("ecn_feedback"),
                format!(
                    "\"{}\" is not allowed with cc = \"{cc_name}\" (it needs accurate ECN feedback, RFC 9331 \
                     §4.2); allowed: \"{}\"",
                    kind_name(&cfg.ecn_feedback),
                    kind_name(&fb)
                ),
            ));
        }
    }
    if cfg.ecn_feedback != EcnFeedback::Rfc3168 && !cfg.ecn {
        return Err(ConfigError::new(
            p("ecn_feedback"),
            format!("\"{}\" needs ecn = true (it is how CE marks are fed back)", kind_name(&cfg.ecn_feedback)),
        ));
    }
    if cfg.ecn_feedback == EcnFeedback::Accecn && StrategyKind::of(cfg).is_ns2() {
        return Err(ConfigError::new(
            p("ecn_feedback"),
            "\"accecn\" is not allowed with ns-2's agents (tcp_model = \"ns2\" or its window rules); \
             allowed there: \"rfc3168\"",
        ));
    }
    if cfg.ect == Ecn::Ect1 && !cfg.ecn {
        return Err(ConfigError::new(
            p("ect"),
            "\"ect1\" needs ecn = true (it is the codepoint of an ECN flow's data); allowed without ECN: \
             \"ect0\" (the default, unused)",
        ));
    }
    if cfg.ecn_retransmit_ect && !cfg.ecn {
        return Err(ConfigError::new(
            p("ecn_retransmit_ect"),
            "true needs ecn = true (it says how an ECN flow marks its retransmissions)",
        ));
    }
    Ok(())
}
