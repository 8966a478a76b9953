use super::*;
use crate::net::packet::{Kind, Packet, TcpHeader, L4};
use crate::scenario::FlowSpec;
use crate::transport::tcp::TcpConfig;

/// A sender in ns-2 mode with `extra` fields on a one-link network whose
/// events never run: the test plays the receiver.
fn sender(extra: serde_json::Value) -> (TcpSender, Net) {
    let mut j = serde_json::json!({
        "rtt_estimator": "ns2", "ns2_bugfix": true, "halve_on_repeated_rto": true,
        "init_cwnd_pkts": 2, "ns2_boot_time_s": 0.0, "mss_bytes": 1000, "header_bytes": 40
    });
    j.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    TcpSender::on_test_link(j, None, 1)
}

/// (segment, bytes) sent since `from` in the trace.
fn sent(s: &TcpSender, from: usize) -> Vec<(u64, u32)> {
    s.x().trace.as_ref().unwrap()[from..].iter().map(|r| (r.seq, r.size)).collect()
}

/// Deliver cumulative ACK `ack` (next expected) at `t` seconds; what
/// was sent in response.
fn ack(s: &mut TcpSender, net: &mut Net, t: f64, ack: u64) -> Vec<(u64, u32)> {
    net.now = from_secs(t);
    let h = TcpHeader { ack, ..Default::default() };
    let pkt = Packet { flow: 0, kind: Kind::Ack, size: 40, ts: 0, l4: L4::Tcp(h), ..Default::default() };
    let before = s.x().trace.as_ref().unwrap().len();
    s.on_packet(net, &pkt);
    sent(s, before)
}

/// `syn = "ns2"` (ns-2 `syn_`, `delay_growth_`): a header-only segment
/// 0 alone; its ACK opens the initial window (2, after the ACK's own
/// increase 1 -> 2), then slow start from there. For both the generic
/// sender and ns-2's Sack1; without `syn` the data start at once.
#[test]
fn ns2_syn_goes_alone_and_its_ack_opens_the_initial_window() {
    for rec in ["newreno", "sack1"] {
        let (mut s, mut net) = sender(serde_json::json!({"recovery": rec, "syn": "ns2"}));
        assert_eq!(sent(&s, 0), vec![(0, 40)], "{rec}: the SYN alone, 40 bytes");
        assert_eq!(s.st.cwnd, 1.0);
        assert_eq!(ack(&mut s, &mut net, 0.1, 1), vec![(1, 1040), (2, 1040)], "{rec}");
        assert_eq!(s.st.cwnd, 2.0, "{rec}: initial_window(), not 1 + 1 + 1");
        assert_eq!(ack(&mut s, &mut net, 0.2, 2), vec![(3, 1040), (4, 1040)], "{rec}: slow start");
        assert_eq!(s.st.cwnd, 3.0);
        // a larger initial window is what the SYN's ACK opens
        let (mut s, mut net) = sender(serde_json::json!({"recovery": rec, "syn": "ns2", "init_cwnd_pkts": 4}));
        assert_eq!(ack(&mut s, &mut net, 0.1, 1).len(), 4, "{rec}");

        let (s, _) = sender(serde_json::json!({"recovery": rec}));
        assert_eq!(sent(&s, 0), vec![(0, 1040), (1, 1040)], "{rec}: no SYN");
        let (mut s, mut net) = sender(serde_json::json!({"recovery": rec, "syn": "ns2_no_delay_growth"}));
        assert_eq!(sent(&s, 0), vec![(0, 40), (1, 1040)], "{rec}: the SYN leads the window");
        assert_eq!(ack(&mut s, &mut net, 0.1, 1), vec![(2, 1040), (3, 1040)], "{rec}: no reset");
        assert_eq!(s.st.cwnd, 3.0);
    }
}

/// A lost SYN: the timer resends it (a timeout and a retransmission,
/// as ns-2 counts `nrexmit_`, `nrexmitpack_`), and its ACK then opens
/// one segment (ns-2 `timeout`: `wnd_init_ = 1`, `bugfix_ss_`).
#[test]
fn ns2_syn_lost_is_resent_by_the_timer_and_opens_one_segment() {
    for rec in ["newreno", "sack1"] {
        let (mut s, mut net) = sender(serde_json::json!({"recovery": rec, "syn": "ns2"}));
        net.now = from_secs(3.0); // ns-2's initial RTO
        s.on_rto(&mut net);
        assert_eq!(sent(&s, 1), vec![(0, 40)], "{rec}: the SYN again");
        assert_eq!((s.stats.timeouts, s.stats.retransmits), (1, 1), "{rec}");
        assert_eq!(ack(&mut s, &mut net, 3.1, 1), vec![(1, 1040)], "{rec}: a window of one");
    }
}

/// A finite transfer after a SYN: the segment count includes it, the
/// SYN carries no payload and the data segments carry the bytes.
#[test]
fn ns2_syn_is_segment_zero_of_a_finite_transfer() {
    let spec: FlowSpec = serde_json::from_value(serde_json::json!({"syn": "ns2", "bytes": 2500})).unwrap();
    let c = TcpConfig::from_spec(&spec, "flow").unwrap();
    assert_eq!(c.first_data_seg(), 1);
    assert_eq!(c.total_segs(), Some(4));
    assert_eq!((0..4).map(|q| c.payload(q)).collect::<Vec<_>>(), vec![0, 1000, 1000, 500]);
    assert_eq!(c.payload_between(0, 1), 0);
    assert_eq!(c.payload_between(0, 4), 2500);
    assert_eq!(c.payload_between(1, 3), 2000);
    let spec: FlowSpec = serde_json::from_value(serde_json::json!({"bytes": 2500})).unwrap();
    let c = TcpConfig::from_spec(&spec, "flow").unwrap();
    assert_eq!((c.first_data_seg(), c.total_segs(), c.payload(0)), (0, Some(3), 1000));
}

/// A bad `syn` names the field, the value and the allowed ones.
#[test]
fn syn_values_are_checked() {
    let e = serde_json::from_value::<FlowSpec>(serde_json::json!({"syn": "yes"})).unwrap_err().to_string();
    assert!(e.contains("`yes`") && e.contains("none") && e.contains("ns2_no_delay_growth"), "{e}");
}

/// ns-2's `TcpAgent::timeout` sets `last_cwnd_action_ = CWND_ACTION_TIMEOUT`
/// before `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_RESTART)`, whose
/// ssthresh rule takes `halfwin` on that condition (tcp.cc, ns-2.35): a
/// HighSpeed agent's timeout halves whatever b(cwnd) or `decrease_num_`
/// is. So with `ns2_first_decrease` every recovery strategy's timeout
/// halves, as `sack1` does: above Low_Window (not (1 − b(100))·100 ≈ 55)
/// and below it after a large-window decrease (not b(200)·30 ≈ 13).
#[test]
fn ns2_hstcp_timeout_halves_ssthresh_in_every_recovery() {
    // (recovery, with the ns-2 agents' strategy or the RFC one)
    for (rec, ns2) in [("sack", true), ("newreno", true), ("sack1", true), ("sack", false)] {
        for cwnd in [100.0, 30.0] {
            let j = serde_json::json!({"cc": "hstcp", "recovery": rec,
                "cc_params": {"ns2_first_decrease": true, "ns2_decrease_num": true}});
            let (mut s, mut net) = if ns2 { sender(j) } else { TcpSender::on_test_link(j, None, 1) };
            // an earlier decrease at 200 segments: not the first decrease,
            // and decrease_num_ = b(200)
            let mut earlier = s.st.clone();
            (earlier.cwnd, earlier.ssthresh) = (200.0, 100.0);
            s.cc.ssthresh(&earlier);
            (s.st.cwnd, s.st.ssthresh) = (cwnd, cwnd / 2.0); // congestion avoidance
            net.now = from_secs(6.0);
            s.on_rto(&mut net);
            assert_eq!(s.stats.timeouts, 1, "{rec} (ns-2 agents {ns2})");
            assert_eq!(s.st.ssthresh, cwnd / 2.0, "{rec} (ns-2 agents {ns2}): timeout at cwnd {cwnd}");
        }
    }
}

/// The default TCP (and the many flows of a large run) carries no extras
/// box: only a flow configured for one of its features pays for it.
#[test]
fn only_a_sender_that_uses_an_extra_has_the_box() {
    use crate::transport::{build, Receiver, Sender, Shared};
    let agents = |j: serde_json::Value| {
        let spec: FlowSpec = serde_json::from_value(j).unwrap();
        match build(&spec, 0, 1, &mut Shared::default()).unwrap() {
            crate::transport::Endpoints { sender: Sender::Tcp(s), receiver: Receiver::Tcp(r) } => (s, r),
            _ => panic!("a TCP flow"),
        }
    };
    let (s, r) = agents(serde_json::json!({}));
    assert!(s.extras.is_none() && !r.has_extras(), "the default TCP");
    let (s, r) = agents(serde_json::json!({"cc": "cubic", "recovery": "sack"}));
    assert!(s.extras.is_none() && !r.has_extras(), "CUBIC with SACK, as the many-flow rows run");
    for (j, what) in [
        (serde_json::json!({"pacing": "rate"}), "pacing"),
        (serde_json::json!({"cc": "bbr"}), "rate samples"),
        (serde_json::json!({"prr": true}), "PRR"),
    ] {
        let (s, _) = agents(j);
        assert!(s.extras.is_some(), "{what}");
    }
    // a strategy's own state is the strategy's, not an extra
    let (s, _) = agents(serde_json::json!({"recovery": "sack1"}));
    assert!(s.extras.is_none() && s.strategy.kind() == recovery::StrategyKind::Sack1, "ns-2's Sack1");
    let (s, r) = agents(serde_json::json!({"ecn_feedback": "accecn", "ecn": true}));
    assert!(s.x().accecn.is_some() && r.has_extras(), "AccECN on both sides");
}
