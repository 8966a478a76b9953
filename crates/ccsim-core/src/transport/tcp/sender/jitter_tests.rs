//! `send_jitter_s` (ns-2's `overhead_`).
use super::*;
use crate::net::packet::{Kind, Packet, TcpHeader, L4};
use crate::scenario::FlowSpec;
use std::sync::{Arc, Mutex};

const J: f64 = 0.05;

/// A sender of `spec` (JSON fields) on a one-link network whose events
/// are never run: the test plays the receiver and reads what was sent.
fn sender_with(spec: serde_json::Value, cc: Option<Box<dyn CongestionControl>>, seed: u64) -> (TcpSender, Net) {
    TcpSender::on_test_link(spec, cc, seed)
}

/// Ten segments of initial window, `send_jitter_s = J`.
fn jittered(recovery: &str, seed: u64) -> (TcpSender, Net) {
    let spec = serde_json::json!({"init_cwnd_pkts": 10, "send_jitter_s": J, "recovery": recovery});
    sender_with(spec, None, seed)
}

/// Deliver an ACK (cumulative `ack`, next expected) at `t` seconds;
/// the segments sent in response.
fn ack(s: &mut TcpSender, net: &mut Net, t: f64, ack: u64, ece: bool) -> Vec<u64> {
    net.now = from_secs(t);
    let h = TcpHeader { ack, ece, ..Default::default() };
    let pkt = Packet { flow: 0, kind: Kind::Ack, size: 40, ts: 0, l4: L4::Tcp(h), ..Default::default() };
    let before = s.x().trace.as_ref().unwrap().len();
    s.on_packet(net, &pkt);
    s.x().trace.as_ref().unwrap()[before..].iter().map(|r| r.seq).collect()
}

#[test]
fn send_jitter_holds_sends_for_one_uniform_delay_then_sends_the_window_as_one_burst() {
    let (mut s, mut net) = jittered("newreno", 1);
    // open() = ns-2 sendmsg -> send_much(0): only the timer is armed
    assert!(s.x().trace.as_ref().unwrap().is_empty());
    let d0 = s.delsnd_timer().deadline().expect("armed");
    assert!(d0 < from_secs(J));
    // send_much(0) while it is pending: nothing sent, nothing redrawn
    s.try_send(&mut net);
    assert!(s.x().trace.as_ref().unwrap().is_empty());
    assert_eq!(s.delsnd_timer().deadline(), Some(d0));
    // the expiry (send_much(1)): the whole window at once
    assert_eq!(s.fire_delsnd(&mut net), (0..10).collect::<Vec<_>>());
    assert!(s.x().trace.as_ref().unwrap().iter().all(|r| r.time == d0));
    // ACKs while a delayed send is pending only open the window; the
    // expiry sends all it allows: cwnd 12 (one per ACK), 6 outstanding
    assert!(ack(&mut s, &mut net, 1.0, 2, false).is_empty());
    let d1 = s.delsnd_timer().deadline().expect("armed by the ACK");
    assert!(d1 >= from_secs(1.0) && d1 < from_secs(1.0 + J));
    assert!(ack(&mut s, &mut net, 1.0, 4, false).is_empty());
    assert_eq!(s.delsnd_timer().deadline(), Some(d1));
    assert_eq!(s.fire_delsnd(&mut net), (10..16).collect::<Vec<_>>());
}

/// The delay of each arming, and the draw it should be: the flow's
/// own stream, one uniform per arming, times `send_jitter_s`.
fn delays(seed: u64) -> Vec<f64> {
    use rand::Rng as _;
    let (mut s, mut net) = jittered("newreno", seed);
    let mut want = crate::sim::rng::stream(seed, crate::sim::rng::Stream::SendJitter, 0);
    let mut out = Vec::new();
    let mut armed_at = 0.0;
    for k in 1..=400u64 {
        let d = s.delsnd_timer().deadline().expect("armed");
        let u: f64 = want.gen();
        assert_eq!(d, from_secs(armed_at).saturating_add(from_secs(u * J)), "arming {k}");
        out.push(to_secs(d) - armed_at);
        assert!(!s.fire_delsnd(&mut net).is_empty());
        // an ACK a second later opens the window and arms it again
        armed_at = k as f64;
        ack(&mut s, &mut net, armed_at, k, false);
    }
    out
}

#[test]
fn send_jitter_delays_are_uniform_in_range_and_follow_the_seed() {
    let d = delays(1);
    assert!(d.iter().all(|&x| (0.0..J).contains(&x)), "{d:?}");
    // 400 uniform draws: mean J/2 within 4 standard errors (J/sqrt(12·400)),
    // and the extremes near both ends
    let mean = d.iter().sum::<f64>() / d.len() as f64;
    assert!((mean - J / 2.0).abs() < 4.0 * J / (12.0f64 * 400.0).sqrt(), "mean {mean}");
    assert!(d.iter().cloned().fold(f64::INFINITY, f64::min) < 0.02 * J);
    assert!(d.iter().cloned().fold(0.0, f64::max) > 0.98 * J);
    assert_eq!(d, delays(1), "same seed, same delays");
    assert_ne!(d, delays(2), "another seed, other delays");
}

#[test]
fn send_jitter_leaves_limited_transmit_and_fast_retransmit_direct_and_delays_the_timeout_resend() {
    let (mut s, mut net) = jittered("newreno", 3);
    assert_eq!(s.fire_delsnd(&mut net).len(), 10);
    // segment 0 lost: duplicates 1 and 2 send by Limited Transmit at
    // once (ns-2 send_one), no delayed send armed
    assert_eq!(ack(&mut s, &mut net, 0.1, 0, false), vec![10]);
    assert_eq!(ack(&mut s, &mut net, 0.1, 0, false), vec![11]);
    assert!(!s.delsnd_timer().is_armed());
    // the third: the fast retransmission at once (ns-2 output()), and
    // nothing else before a delayed send
    assert_eq!(ack(&mut s, &mut net, 0.1, 0, false), vec![0]);
    if s.delsnd_timer().is_armed() {
        s.fire_delsnd(&mut net);
    }
    // a timeout: ns-2 resends through send_much(0), so after a delay
    net.now = from_secs(5.0);
    let before = s.x().trace.as_ref().unwrap().len();
    s.on_rto(&mut net);
    assert_eq!(s.x().trace.as_ref().unwrap().len(), before, "nothing leaves at the timeout itself");
    let d = s.delsnd_timer().deadline().expect("armed by the timeout");
    assert!(d >= from_secs(5.0) && d < from_secs(5.0 + J));
    assert_eq!(s.fire_delsnd(&mut net), vec![0]);
}

#[test]
fn send_jitter_limited_transmit_sends_one_segment_past_a_pending_delayed_send() {
    let (mut s, mut net) = jittered("newreno", 4);
    assert_eq!(s.fire_delsnd(&mut net).len(), 10);
    // a new ACK opens the window: a delayed send is armed
    assert!(ack(&mut s, &mut net, 0.1, 2, false).is_empty());
    let d = s.delsnd_timer().deadline().expect("armed");
    // a duplicate before it fires: one segment at once (ns-2 send_one),
    // although the window has room for more; the delayed send stays
    assert_eq!(ack(&mut s, &mut net, 0.1, 2, false), vec![10]);
    assert_eq!(s.delsnd_timer().deadline(), Some(d));
    // then the rest at once: 9 outstanding, cwnd 11 plus one for the
    // duplicate (Limited Transmit) -> 11, 12, 13
    assert_eq!(s.fire_delsnd(&mut net), vec![11, 12, 13]);
}

#[test]
fn send_jitter_is_validated() {
    let err = |j: serde_json::Value, pacing: &str| {
        let spec: FlowSpec = serde_json::from_value(serde_json::json!({"send_jitter_s": j, "pacing": pacing})).unwrap();
        TcpConfig::from_spec(&spec, "flows[0]").err()
    };
    assert!(err(0.0.into(), "none").is_none());
    assert!(err(0.01.into(), "none").is_none());
    for bad in [-0.01, 2e6] {
        let e = err(bad.into(), "none").expect("refused");
        assert_eq!(e.field, "flows[0].send_jitter_s");
    }
    let e = err(0.01.into(), "interval").expect("refused with pacing");
    assert_eq!(e.field, "flows[0].send_jitter_s");
    assert!(e.msg.contains("0.01") && e.msg.contains("pacing"), "{}", e.msg);
    // pacing is fine without jitter
    assert!(err(0.0.into(), "interval").is_none());
}

fn recorded(spec: serde_json::Value) -> (TcpSender, Net, Arc<Mutex<Vec<CcEvent>>>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let (s, net) = sender_with(spec, Some(Box::new(EventRecorder(log.clone()))), 1);
    (s, net, log)
}

#[test]
fn the_sender_signals_the_return_to_open_after_a_timeout_and_after_an_ecn_reduction() {
    use CcEvent::*;
    // Timeout: Loss until everything outstanding at the timeout is
    // acknowledged (Linux CA_Loss -> CA_Open)
    let (mut s, mut net, log) = recorded(serde_json::json!({"init_cwnd_pkts": 10}));
    net.now = from_secs(5.0);
    s.on_rto(&mut net);
    assert_eq!(*log.lock().unwrap(), vec![Timeout]);
    ack(&mut s, &mut net, 5.1, 1, false);
    ack(&mut s, &mut net, 5.2, 9, false);
    assert_eq!(s.state, State::Loss);
    assert_eq!(*log.lock().unwrap(), vec![Timeout]);
    ack(&mut s, &mut net, 5.3, 10, false);
    assert_eq!(s.state, State::Open);
    assert_eq!(*log.lock().unwrap(), vec![Timeout, LossEnd]);

    // ECE: CWR until a segment beyond the reduction's window (the one
    // that carried CWR) is acknowledged (Linux: snd_una > high_seq)
    let spec = serde_json::json!({"init_cwnd_pkts": 10, "ecn": true});
    let (mut s, mut net, log) = recorded(spec.clone());
    ack(&mut s, &mut net, 0.1, 2, true);
    assert_eq!(*log.lock().unwrap(), vec![EcnEcho]);
    ack(&mut s, &mut net, 0.2, 10, false);
    assert_eq!(*log.lock().unwrap(), vec![EcnEcho], "the window itself is not beyond it");
    ack(&mut s, &mut net, 0.3, 11, false);
    assert_eq!(*log.lock().unwrap(), vec![EcnEcho, CwrEnd]);

    // A loss in that window: recovery takes over, and ends with its own event
    let (mut s, mut net, log) = recorded(spec);
    ack(&mut s, &mut net, 0.1, 2, true);
    for _ in 0..3 {
        ack(&mut s, &mut net, 0.2, 2, false);
    }
    assert_eq!(*log.lock().unwrap(), vec![EcnEcho, RecoveryStart]);
    let high = s.sb.high();
    ack(&mut s, &mut net, 0.3, high, false);
    let high = s.sb.high();
    ack(&mut s, &mut net, 0.4, high, false);
    assert_eq!(*log.lock().unwrap(), vec![EcnEcho, RecoveryStart, RecoveryEnd]);
}

/// Local congestion (`txqueuelen_pkts`) as Linux 2.4's CWR: the held
/// segment stays unsent; ssthresh = the controller's reduction, cwnd =
/// min(cwnd, in flight + 1); no growth in CWR, one segment less every
/// second ACK and never above in flight + 1 (`tcp_cwnd_down`); a
/// second full queue in the same window does not reduce again; at the
/// ACK beyond the window cwnd = min(cwnd, ssthresh) (`tcp_complete_cwr`).
#[test]
fn a_full_interface_queue_holds_the_segment_and_enters_linux_cwr_once() {
    use CcEvent::*;
    let spec = serde_json::json!({"init_cwnd_pkts": 20, "recovery": "sack", "init_ssthresh_pkts": 1000});
    let (mut s, mut net, log) = recorded(spec);
    assert_eq!(s.sb.high(), 20);
    // ACK of 2 opens 2 more: the interface then has room for one only
    net.set_txqueuelen(0, Some(0));
    let sent = ack(&mut s, &mut net, 0.1, 2, false);
    assert!(sent.is_empty(), "held: {sent:?}");
    assert_eq!(s.stats.local_holds, 1);
    assert_eq!(*log.lock().unwrap(), vec![EcnEcho]);
    assert_eq!(s.st.ssthresh, 10.5, "the controller's reduction: cwnd 21 / 2");
    assert_eq!(s.st.cwnd, 19.0, "min(cwnd 21, in flight 18 + 1)");
    assert_eq!(s.sb.high(), 20, "nothing was sent, the segment is still to send");
    // the next ACKs: held again, no second reduction; cwnd only falls
    let mut cwnds = Vec::new();
    for (k, a) in [3u64, 4, 5, 6].into_iter().enumerate() {
        ack(&mut s, &mut net, 0.2 + k as f64 * 0.01, a, false);
        cwnds.push(s.st.cwnd);
    }
    assert_eq!(s.stats.local_cwrs, 1);
    assert_eq!(*log.lock().unwrap(), vec![EcnEcho]);
    // in flight 17, 16, 15, 14 after each ACK; decrement every second ACK
    assert_eq!(cwnds, vec![18.0, 17.0, 16.0, 15.0]);
    assert!(s.stats.local_holds >= 5);
    // room again: the held segments leave, at most cwnd in flight
    net.set_txqueuelen(0, None);
    let sent = ack(&mut s, &mut net, 0.3, 7, false);
    assert_eq!(sent.first(), Some(&20), "the held segment goes first");
    assert!(s.sb.outstanding() as f64 <= s.st.cwnd);
    // the window is acknowledged beyond high_seq (20): CWR ends with
    // cwnd = min(cwnd, ssthresh)
    ack(&mut s, &mut net, 0.4, 21, false);
    assert_eq!(*log.lock().unwrap(), vec![EcnEcho, CwrEnd]);
    assert!(s.st.cwnd <= 10.5, "cwnd {} after the CWR round", s.st.cwnd);
}
