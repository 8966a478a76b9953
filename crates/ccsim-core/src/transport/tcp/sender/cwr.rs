//! Linux's CWR state on local congestion (`txqueuelen_pkts`): Linux 2.4's
//! `tcp_enter_cwr`, `tcp_cwnd_down` and `tcp_complete_cwr`.
use super::*;

impl TcpSender {
    /// The end of CWR: Linux `tcp_fastretrans_alert` ends it once
    /// `snd_una` is beyond `high_seq` (the CWR segment has arrived).
    pub(super) fn end_cwr(&mut self) {
        self.cwr = false;
        if std::mem::take(&mut self.local_cwr) {
            // Linux 2.4 `tcp_complete_cwr`.
            self.st.cwnd = self.st.cwnd.min(self.st.ssthresh);
        }
        self.cc.on_event(&mut self.st, CcEvent::CwrEnd);
    }

    /// Linux 2.4 `tcp_cwnd_down` (tcp_input.c), once per ACK in CWR: one
    /// segment less every second ACK while cwnd > ssthresh/2, and never
    /// more than the packets in flight + 1 (so with delayed ACKs the
    /// window falls by about half over the CWR round, whatever ssthresh).
    pub(super) fn cwnd_down(&mut self) {
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
    pub(super) fn on_local_congestion(&mut self, net: &mut Net) {
        self.stats.local_holds += 1;
        self.held = true;
        if self.state == State::Open && !self.cwr {
            self.sync(net.now);
            self.st.ssthresh = self.cc_ssthresh();
            // (Linux's CWR reduction skips a controller with `cong_control`)
            if !self.cc_owns_cwnd {
                self.st.cwnd = self.st.cwnd.min(self.sb.pipe() as f64 + 1.0);
            }
            self.cwnd_cnt = 0;
            self.recover = self.sb.high();
            // A loss found in this window is repaired without a second
            // reduction (Linux: `tcp_fastretrans_alert` recalculates
            // ssthresh only from `ca_state < TCP_CA_CWR`).
            self.ecn_cut = true;
            self.cwr = true;
            self.local_cwr = !self.cc_owns_cwnd;
            self.cwr_pending = self.cfg.ecn;
            self.stats.local_cwrs += 1;
            self.cc.on_event(&mut self.st, CcEvent::EcnEcho);
            self.clamp_cwnd();
        }
        if self.sb.outstanding() == 0 && !self.rto_timer.is_armed() {
            self.arm_rto(net);
        }
    }
}
