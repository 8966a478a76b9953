//! The RFC path's window at an ECE reduction and at a fast retransmit.
use super::*;

/// An rfc-personality Reno sender with `extra` fields (1000-byte
/// segments, ACK per segment) on a one-link network whose events never
/// run: the test plays the receiver.
fn sender(extra: serde_json::Value) -> (TcpSender, Net) {
    let mut j = serde_json::json!({
        "cc": "reno", "delayed_ack": false, "mss_bytes": 1000, "header_bytes": 40
    });
    j.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    TcpSender::on_test_link(j, None, 1)
}

/// Deliver an ACK of `ack` with `ece` and SACK blocks `sack` at `t` s.
fn ack(s: &mut TcpSender, net: &mut Net, t: f64, ack: u64, ece: bool, sack: &[(u64, u64)]) {
    s.test_ack(net, t, ack, ece, sack);
}

/// RFC 3168 §6.1.2: the response to a CE mark is "essentially the same"
/// as to a single loss, whose fast recovery holds the window for the
/// round; so after an ECE reduction cwnd does not grow on the unmarked
/// ACKs of the reduction's window (Linux's and ns-3's CA_CWR), and grows
/// again from the first ACK beyond it.
#[test]
fn an_ece_reduction_holds_the_window_for_its_round() {
    for rec in ["newreno", "sack"] {
        let (mut s, mut net) = sender(serde_json::json!({"recovery": rec, "ecn": true, "init_cwnd_pkts": 10}));
        ack(&mut s, &mut net, 0.1, 1, true, &[]);
        let (c0, recover) = (s.st.cwnd, s.recover);
        assert!(c0 < 10.0, "{rec}: reduced to {c0}");
        assert_eq!(recover, 10);
        for a in 2..=recover {
            ack(&mut s, &mut net, 0.1 + a as f64 * 0.001, a, false, &[]);
            assert_eq!(s.st.cwnd, c0, "{rec}: ACK {a} within the reduction's window");
        }
        ack(&mut s, &mut net, 0.2, recover + 1, false, &[]);
        assert!(s.st.cwnd > c0, "{rec}: the first ACK beyond it grows the window");
    }
}

/// FlightSize at a fast retransmit is capped by cwnd, as at an RTO and
/// in Linux: a window left at 20 with 100 segments out (data sent by
/// pipe during an earlier SACK recovery) is halved to 10, not raised to
/// FlightSize/2 = 50.
#[test]
fn a_fast_retransmit_never_raises_the_window() {
    let (mut s, mut net) = sender(serde_json::json!({"recovery": "sack", "init_cwnd_pkts": 100}));
    assert_eq!(s.sb.outstanding(), 100);
    s.st.cwnd = 20.0;
    s.st.ssthresh = 20.0;
    for (i, hi) in [2u64, 3, 4].into_iter().enumerate() {
        ack(&mut s, &mut net, 0.1 + i as f64 * 0.001, 0, false, &[(1, hi)]);
    }
    assert_eq!(s.state, State::Recovery);
    assert_eq!(s.st.ssthresh, 10.0);
    assert_eq!(s.st.cwnd, 10.0);
}
