//! The retransmission timer's expiry (RFC 6298 §5, RFC 5681 §3.1) and the
//! controller's tick.
use super::recovery::{linux::LinuxOps, ns2::Ns2Agents, rfc::Rfc, RecoveryOps, StrategyKind};
use super::*;

impl TcpSender {
    /// Retransmission timer expired (RFC 6298 §5.4–5.6, RFC 5681 eq. 4):
    /// the flow's recovery strategy decides ssthresh and what an expiry
    /// with nothing outstanding does.
    pub fn on_rto(&mut self, net: &mut Net) {
        if self.connecting() {
            return self.syn_timeout(net);
        }
        if self.strategy.kind() == StrategyKind::Sack1 {
            return self.sack1_on_rto(net);
        }
        // draft-ietf-ccwg-bbr §4.1.2.4: at the start of a timer that may send
        self.check_app_limited();
        match self.strategy.kind() {
            StrategyKind::Rfc => Rfc::rto(self, net),
            StrategyKind::Ns2Agents => Ns2Agents::rto(self, net),
            StrategyKind::Linux => LinuxOps::rto(self, net),
            StrategyKind::Sack1 => unreachable!("Sack1's own timeout, above"),
        }
    }

    /// An expiry with data outstanding: count it, back the timer off
    /// (RFC 6298 §5.5); whether the head had already been resent by the
    /// timer (a repeated timeout: the backoff is cleared by new data).
    pub(super) fn count_timeout(&mut self, net: &mut Net) -> bool {
        self.stats.timeouts += 1;
        self.note_timeout_before_any_ack();
        let repeated = self.timer_resent;
        self.timer_resent = true;
        self.rtt.on_timeout();
        self.sync(net.now);
        repeated
    }

    /// The loss state once the strategy has set ssthresh: one segment,
    /// every un-SACKed segment lost, resent in order from una until
    /// `recover` (HighData now) is acknowledged (RFC 5681 §3.1, RFC 6298
    /// §5.4); `resend_now`: the head goes out at once (ns-2's delayed
    /// send, `send_jitter_s`, sends it through its delay instead).
    pub(super) fn enter_loss(&mut self, net: &mut Net, resend_now: bool) {
        self.st.cwnd = 1.0;
        // the outstanding data is marked lost before the controller hears
        // of the timeout (Linux `tcp_timeout_mark_lost` in `tcp_enter_loss`)
        self.sb.on_rto();
        self.sync_lost();
        self.cc.on_event(&mut self.st, CcEvent::Timeout);
        self.clamp_cwnd();
        self.begin_loss_state();
        if resend_now {
            self.retransmit_first_lost(net, true);
        }
        self.arm_rto(net);
        self.try_send(net);
    }

    /// The loss state begins: it lasts until HighData now is acknowledged,
    /// and it ends any ECE reduction and the duplicate count.
    pub(super) fn begin_loss_state(&mut self) {
        self.state = State::Loss;
        self.recover = self.sb.high();
        self.ecn_cut = false;
        self.cwr = false;
        self.local_cwr = false;
        self.dupacks = 0;
    }

    pub fn on_tick(&mut self, net: &mut Net) {
        if !self.app_active && self.sb.outstanding() == 0 {
            return;
        }
        self.sync(net.now);
        self.cc.on_tick(&mut self.st);
        self.clamp_cwnd();
        if let Some(p) = self.cc.tick_interval_s(&self.st) {
            self.arm_tick(net, p);
        }
        self.try_send(net);
    }
}
