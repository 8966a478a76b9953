//! Linux's active open (`syn = "linux"`, the `linux` personality's
//! default): the connection is set up before any data leave, and the
//! set-up gives the sender its first RTT sample.
//!
//! - `tcp_connect` sends a SYN, a header with the SYN's options (segment 0: the data are
//!   segments 1, 2, ... as after any SYN), and arms the retransmission
//!   timer at `TCP_TIMEOUT_INIT` (1 s, `init_rto_s`). No loss probe or
//!   RACK timer runs before the connection is established.
//! - The timer's expiry (`tcp_retransmit_timer` in `SYN_SENT`) resends the
//!   SYN and doubles the timeout; the kernel counts each in
//!   `tcpi_total_retrans` and `tcpi_total_rto`, as here.
//! - The SYN-ACK (`tcp_rcv_synsent_state_process` -> `tcp_ack` ->
//!   `tcp_ack_update_rtt`) gives the first RTT sample: srtt, rttvar, the
//!   RTO and the minimum RTT start from it, so a first window lost whole
//!   is probed at 2·srtt and times out at srtt + 200 ms, not at the 1 s
//!   initial timer. ccsim's ACK echoes the send time of the SYN that
//!   caused it, the timestamp option's sample (Karn's rule does not
//!   withhold it after a resend: the kernel takes the TSecr's).
//! - `tcp_finish_connect` -> `tcp_init_transfer`: cwnd is the initial
//!   window, or one segment once more than one SYN was resent
//!   (`total_retrans > 1`); ssthresh is reset to infinity
//!   (`tcp_init_metrics`); then the controller starts
//!   (`tcp_init_congestion_control`). The controller sees neither the SYN
//!   nor its ACK: `bictcp_init` clears what `bictcp_acked` learnt from it,
//!   and `bbr_init` starts from srtt and the minimum RTT the SYN-ACK gave.
//!
//! The receiver answers a SYN at once with a header-only SYN-ACK that
//! touches none of its data state (`TcpReceiver`). The server side's own
//! SYN-ACK timer is not modelled: a lost SYN-ACK is repaired by the SYN's
//! resend, as the client's 1 s timer and the server's fire together.
use super::*;

impl TcpSender {
    /// The connection is being set up (a SYN is out, unanswered).
    #[inline]
    pub(super) fn connecting(&self) -> bool {
        self.x().connecting
    }

    /// `tcp_connect`: the first SYN, at the first `open`.
    pub(super) fn connect(&mut self, net: &mut Net) {
        self.x_make().connecting = true;
        self.send_syn(net);
    }

    /// A SYN goes out (no payload, Not-ECT) and the timer runs at the
    /// backed-off initial RTO.
    fn send_syn(&mut self, net: &mut Net) {
        let now = net.now;
        let l4 = L4::Tcp(TcpHeader { seq: 0, ..Default::default() });
        let size = self.cfg.syn_bytes();
        net.send(Packet { flow: self.flow, kind: Kind::Data, size, ts: now, l4, ..Default::default() });
        self.trace_control(now, 0, size, false);
        let at = now.saturating_add(from_secs(self.rto()));
        self.rto_timer.arm(&mut net.events, sender_timer(self.flow, RTO), at);
    }

    /// `tcp_retransmit_timer` in `SYN_SENT`: resend the SYN, back off.
    /// (Before the SYN-ACK every timeout is a SYN's: `stats.timeouts`
    /// counts the resent SYNs.)
    pub(super) fn syn_timeout(&mut self, net: &mut Net) {
        self.stats.timeouts += 1;
        self.stats.retransmits += 1;
        self.rtt.on_timeout();
        self.send_syn(net);
    }

    /// An ACK while connecting: the SYN-ACK (it acknowledges segment 0)
    /// establishes the connection; `ts_echo` is its SYN's send time.
    pub(super) fn on_syn_ack(&mut self, net: &mut Net, ack: u64, ts_echo: Time) {
        if ack < 1 {
            return;
        }
        self.x_make().connecting = false;
        self.seed_rtt(to_secs(net.now.saturating_sub(ts_echo)));
        self.sb.on_send_new();
        self.sb.advance(1);
        self.rto_timer.disarm();
        let init = if self.stats.timeouts > 1 { 1.0 } else { self.cfg.init_cwnd };
        self.st.cwnd = init.min(self.st.max_cwnd);
        self.st.ssthresh = self.cfg.init_ssthresh;
        if self.app_active {
            self.start_sending(net);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::from_secs;

    /// A `linux` sender (1000-byte segments, 40 header bytes and the
    /// timestamps option's 12) that has called `connect`; the test plays
    /// the receiver.
    fn linux() -> (TcpSender, Net) {
        let j = serde_json::json!({"tcp_model": "linux", "mss_bytes": 1000, "header_bytes": 40});
        TcpSender::on_test_link(j, None, 1)
    }

    fn sent(s: &TcpSender, from: usize) -> Vec<(u64, u32)> {
        s.x().trace.as_ref().unwrap()[from..].iter().map(|r| (r.seq, r.size)).collect()
    }

    /// An ACK of `ack` at `t` s echoing `echo` s; the segments it let out.
    fn ack(s: &mut TcpSender, net: &mut Net, t: f64, ack: u64, echo: f64) -> Vec<u64> {
        net.now = from_secs(t);
        let h = TcpHeader { ack, ..Default::default() };
        let pkt =
            Packet { flow: 0, kind: Kind::Ack, size: 52, ts: from_secs(echo), l4: L4::Tcp(h), ..Default::default() };
        let before = s.x().trace.as_ref().unwrap().len();
        s.on_packet(net, &pkt);
        sent(s, before).into_iter().map(|(q, _)| q).collect()
    }

    /// Fire the timer at its deadline; the segments it let out.
    fn fire(s: &mut TcpSender, net: &mut Net) -> Vec<u64> {
        net.now = s.rto_timer.deadline().expect("the timer is armed");
        let before = s.x().trace.as_ref().unwrap().len();
        s.on_rto(net);
        sent(s, before).into_iter().map(|(q, _)| q).collect()
    }

    /// `tcp_connect` then `tcp_rcv_synsent_state_process`: the SYN goes
    /// alone, a header with the timestamps option, under the 1 s initial
    /// timer; its ACK starts the estimator (srtt = the sample, the RTO
    /// srtt + 200 ms) and lets the initial window out, segments 1-10.
    #[test]
    fn the_syn_goes_alone_and_its_ack_starts_the_estimator_and_the_window() {
        let (mut s, mut net) = linux();
        assert_eq!(sent(&s, 0), vec![(0, 60)], "the SYN's options: 20 bytes");
        assert!(s.connecting());
        assert_eq!(s.rto_timer.deadline(), Some(from_secs(1.0)));
        // nothing but the SYN-ACK establishes: an ACK of nothing is ignored
        assert_eq!(ack(&mut s, &mut net, 0.01, 0, 0.0), Vec::<u64>::new());
        assert!(s.connecting());
        assert_eq!(ack(&mut s, &mut net, 0.02, 1, 0.0), (1..=10).collect::<Vec<_>>());
        assert!(!s.connecting());
        assert_eq!((s.rtt.srtt(), s.rtt.min_rtt(), s.st.cwnd), (Some(0.02), Some(0.02), 10.0));
        assert_eq!((s.stats.retransmits, s.stats.timeouts, s.stats.data_sent), (0, 0, 10));
        assert!((s.rto() - 0.22).abs() < 1e-9, "srtt + max(mdev_max, rto_min): {}", s.rto());
        // the first window's loss probe comes at 2 srtt (+ 2 jiffies),
        // not at the initial timer's 1 s
        let probe = s.rto_timer.deadline().unwrap();
        assert!(probe > from_secs(0.06) && probe <= from_secs(0.02 + 0.05), "{probe}");
    }

    /// A lost SYN: `tcp_retransmit_timer` resends it at 1 s and backs off
    /// to 2 s, each a timeout and a retransmission. The SYN-ACK of the
    /// resent SYN gives the sample from its echo; after one resend the
    /// window is the initial one, after two it is one segment
    /// (`tcp_init_transfer`: `total_retrans > 1`), ssthresh infinite.
    #[test]
    fn a_lost_syn_is_resent_by_the_timer_and_two_resends_leave_one_segment() {
        let (mut s, mut net) = linux();
        assert_eq!(fire(&mut s, &mut net), vec![0]);
        assert_eq!((s.stats.retransmits, s.stats.timeouts), (1, 1));
        assert_eq!(s.rto_timer.deadline(), Some(from_secs(3.0)));
        assert_eq!(ack(&mut s, &mut net, 1.03, 1, 1.0), (1..=10).collect::<Vec<_>>());
        assert!((s.rtt.srtt().unwrap() - 0.03).abs() < 1e-12);
        assert!(s.st.ssthresh > 1e6);

        let (mut s, mut net) = linux();
        assert_eq!(fire(&mut s, &mut net), vec![0]);
        assert_eq!(fire(&mut s, &mut net), vec![0]);
        assert_eq!(net.now, from_secs(3.0));
        assert_eq!((s.stats.retransmits, s.stats.timeouts), (2, 2));
        assert_eq!(ack(&mut s, &mut net, 3.04, 1, 3.0), vec![1]);
        assert_eq!(s.st.cwnd, 1.0);
        // the sample cleared the backoff: the RTO is the estimator's
        assert!((s.rto() - 0.24).abs() < 1e-9, "{}", s.rto());
    }

    /// Without the handshake (`syn = "none"`) the data leave at `open`,
    /// with no sample: the 1 s initial timer.
    #[test]
    fn without_the_handshake_the_window_leaves_at_open() {
        let j = serde_json::json!({"tcp_model": "linux", "mss_bytes": 1000, "header_bytes": 40, "syn": "none"});
        let (s, _) = TcpSender::on_test_link(j, None, 1);
        assert_eq!(sent(&s, 0).iter().map(|x| x.0).collect::<Vec<_>>(), (0..10).collect::<Vec<_>>());
        assert_eq!(s.rtt.srtt(), None);
    }
}
