//! Whether cwnd limits the sender (`cwnd_limited`), so that an ACK grows
//! the window only when the flow used it: RFC 5681 grows cwnd on every ACK
//! whatever held the sending back (the receiver's window, the
//! application), so an application-limited flow's cwnd can climb far above
//! anything it has tested. Linux (`tcp_is_cwnd_limited`, read by every
//! `cong_avoid`) and ns-3 (`m_isCwndLimited`, read by `TcpCubic`) do not.
//! The IETF's own rule for this case (draft-ietf-ccwg-ratelimited-increase,
//! which would update RFC 5681) is not modelled here.
use super::*;
use crate::scenario::kinds::CwndLimited;

/// The usage state (boxed beside the sender, only with `cwnd_limited`).
#[derive(Clone, Debug, Default)]
pub struct CwndUse {
    /// Linux `is_cwnd_limited` / ns-3 `m_isCwndLimited`.
    limited: bool,
    /// Linux `max_packets_out`: the most in flight in the current window.
    max_out: u64,
    /// Linux `cwnd_usage_seq`: the window's end (SND.NXT at its start).
    usage_seq: u64,
}

impl TcpSender {
    /// ns-3 (`SendDataPacket`): after each segment sent, cwnd is limiting
    /// when less than a segment of it is left unused.
    pub(super) fn cwnd_use_on_send(&mut self) {
        if self.cfg.cwnd_limited == CwndLimited::Ns3 {
            let pipe = self.sb.pipe() as f64;
            if let Some(u) = self.extras.as_deref_mut().and_then(|x| x.cwnd_use.as_deref_mut()) {
                u.limited = self.st.cwnd < pipe + 1.0;
            }
        }
    }

    /// Linux (`tcp_write_xmit` -> `tcp_cwnd_validate`): after a burst
    /// that sent `sent` segments, the window is limiting if what is in
    /// flight fills it, or if the burst ended on an skb deferred for want
    /// of cwnd (`deferred`: `tcp_tso_should_defer`'s `is_cwnd_limited`);
    /// the state restarts once SND.UNA passes the window it describes, and
    /// otherwise only a limited burst or a new maximum of packets out
    /// updates it.
    pub(super) fn cwnd_use_after_burst(&mut self, sent: u64, deferred: bool) {
        if self.cfg.cwnd_limited != CwndLimited::Linux {
            return;
        }
        let (pipe, out, una, nxt) = (self.sb.pipe(), self.sb.outstanding(), self.sb.una(), self.sb.high());
        let limited = deferred || pipe as f64 >= self.st.cwnd.floor();
        if sent == 0 && !limited {
            return;
        }
        if let Some(u) = self.extras.as_deref_mut().and_then(|x| x.cwnd_use.as_deref_mut()) {
            if una >= u.usage_seq || limited || (!u.limited && out > u.max_out) {
                u.limited = limited;
                u.max_out = out;
                u.usage_seq = nxt;
            }
        }
    }

    /// Whether an ACK may grow cwnd now (always without `cwnd_limited`).
    pub(super) fn may_raise_cwnd(&self) -> bool {
        let Some(u) = self.x().cwnd_use.as_deref() else { return true };
        match self.cfg.cwnd_limited {
            CwndLimited::Off => true,
            CwndLimited::Ns3 => u.limited,
            // in slow start, let cwnd reach twice what was in flight
            CwndLimited::Linux => {
                u.limited || (self.st.cwnd < self.st.ssthresh && self.st.cwnd < 2.0 * u.max_out as f64)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::transport::tcp::sender::*;

    fn ack(s: &mut TcpSender, net: &mut Net, t: f64, ack: u64) {
        s.test_ack(net, t, ack, false, &[]);
    }

    /// A receiver window of 4 holds a flow with cwnd 10 in congestion
    /// avoidance: RFC 5681 grows cwnd on every ACK anyway; Linux and ns-3
    /// keep it, since the window never limited the sending; with the
    /// receiver window above cwnd all three grow alike.
    #[test]
    fn a_window_the_flow_does_not_use_does_not_grow() {
        for (rwnd, mode, grows) in
            [(4, "off", true), (4, "linux", false), (4, "ns3", false), (64, "linux", true), (64, "ns3", true)]
        {
            let (mut s, mut net) = TcpSender::on_test_link(
                serde_json::json!({"cc": "reno", "recovery": "sack", "delayed_ack": false, "mss_bytes": 1000,
                    "header_bytes": 40, "init_cwnd_pkts": 10, "init_ssthresh_pkts": 2, "rwnd_pkts": rwnd,
                    "cwnd_limited": mode}),
                None,
                1,
            );
            let c0 = s.st.cwnd;
            for k in 1..=40u64 {
                ack(&mut s, &mut net, 0.1 + k as f64 * 1e-3, k);
            }
            assert_eq!(s.st.cwnd > c0 + 1.0, grows, "rwnd {rwnd}, {mode}: {c0} -> {}", s.st.cwnd);
        }
    }

    /// Linux in slow start: cwnd may still grow to twice the packets that
    /// were out, so a sender held at 4 by the receiver stops at 8.
    #[test]
    fn linux_slow_start_grows_to_twice_the_packets_out() {
        let (mut s, mut net) = TcpSender::on_test_link(
            serde_json::json!({"cc": "reno", "recovery": "sack", "delayed_ack": false, "mss_bytes": 1000,
                "header_bytes": 40, "init_cwnd_pkts": 2, "rwnd_pkts": 4, "cwnd_limited": "linux"}),
            None,
            1,
        );
        for k in 1..=40u64 {
            ack(&mut s, &mut net, 0.1 + k as f64 * 1e-3, k);
        }
        assert_eq!(s.st.cwnd, 8.0);
    }

    /// ns-2's agents have no such rule: the field names itself.
    #[test]
    fn cwnd_limited_needs_the_rfc_recovery() {
        use crate::scenario::FlowSpec;
        use crate::transport::tcp::TcpConfig;
        let spec: FlowSpec =
            serde_json::from_value(serde_json::json!({"tcp_model": "ns2", "cwnd_limited": "linux"})).unwrap();
        let e = TcpConfig::from_spec(&spec, "flows[0]").expect_err("refused").to_string();
        assert!(e.contains("flows[0].cwnd_limited") && e.contains("rfc"), "{e}");
    }
}
