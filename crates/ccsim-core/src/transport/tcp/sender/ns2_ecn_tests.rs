//! `ecn_response = "ns2"`: ns-2.35's `TcpAgent` rules around a timeout
//! (tcp.cc `timeout`, `ecn`, `slowdown`, `output`).
use super::*;
use crate::net::packet::{Kind, Packet, TcpHeader, L4};

/// A sender whose ECN negotiation is done: ns-2's sink answers segment
/// 0 with ECE, which sets the agent's `ect_`; these tests play a
/// receiver that starts with the data. (An RFC 3168 sender, which the
/// tests compare, has no such state.)
fn negotiated(spec: serde_json::Value) -> (TcpSender, Net) {
    let (mut s, net) = TcpSender::on_test_link(spec, None, 1);
    if let recovery::Strategy::Ns2Agents(n) = &mut s.strategy {
        n.ect = true;
    }
    (s, net)
}

/// ns-2's Reno ECN agent (`ns2_dupwnd`, `ns2_bugfix` as given) with
/// segments 0-9 out, whose timer expired at 5 s (resending 0).
fn reno_timed_out(bugfix: bool) -> (TcpSender, Net) {
    let spec = serde_json::json!({"ecn": true, "ecn_response": "ns2", "init_cwnd_pkts": 10,
                                  "recovery": "reno", "ns2_bugfix": bugfix, "ns2_dupwnd": true});
    let (mut s, mut net) = negotiated(spec);
    net.now = from_secs(5.0);
    s.on_rto(&mut net);
    (s, net)
}

fn sender(resp: &str, init_cwnd: u32) -> (TcpSender, Net) {
    let spec = serde_json::json!({"ecn": true, "ecn_response": resp, "init_cwnd_pkts": init_cwnd});
    negotiated(spec)
}

fn ack(s: &mut TcpSender, net: &mut Net, t: f64, ack: u64, ece: bool) {
    net.now = from_secs(t);
    let h = TcpHeader { ack, ece, ..Default::default() };
    s.on_packet(net, &Packet { flow: 0, kind: Kind::Ack, size: 40, l4: L4::Tcp(h), ..Default::default() });
}

/// The third duplicate's resend after a timeout and an ECE goes through
/// ns-2's `reset_rtx_timer(1, 0)`, which ends the timing
/// (`rtt_active_ = 0`): the segment timed before it gives no sample
/// (GWA many flows, ECN 800 kB, seed 3, flow 48: ns-2's next sample
/// came from a segment sent after the resend, 1.557 s; ccsim had taken
/// a 0.63 s one at 1.287 s and kept a larger RTO).
#[test]
fn ns2_the_third_duplicates_resend_after_an_ece_ends_the_timing() {
    let spec = serde_json::json!({"ecn": true, "ecn_response": "ns2", "init_cwnd_pkts": 10, "recovery": "reno",
                                  "ns2_bugfix": true, "ns2_dupwnd": true, "rtt_estimator": "ns2",
                                  "clock_granularity_s": 0.1, "ns2_boot_time_s": 0.0});
    let (mut s, mut net) = negotiated(spec); // 0-9 out, 0 timed
    net.now = from_secs(5.0);
    s.on_rto(&mut net); // resends 0; no segment timed
    ack(&mut s, &mut net, 5.1, 8, false); // go-back-N: 8, 9
    ack(&mut s, &mut net, 5.2, 9, false); // 10, 11: new data, 10 timed
    ack(&mut s, &mut net, 5.25, 9, true); // the ECE after the timeout
    ack(&mut s, &mut net, 5.3, 10, false);
    for t in [5.4, 5.5, 5.6] {
        ack(&mut s, &mut net, t, 10, false); // the third resends 10, then sends 12-14
    }
    ack(&mut s, &mut net, 5.7, 13, false); // 12, sent after the resend, is timed
    assert_eq!(s.rtt.srtt(), Some(0.1), "12's sample (0.1 s), not 10's (0.5 s)");
}

/// ns-2's `recv` runs `ecn` before `newack`: an ECE at a one-segment
/// window that backs the timer off past 8 clobbers SRTT first
/// (`rtt_backoff`), so the ACK's sample restarts the estimate (SRTT =
/// 0.2 s, RTTVAR = 0.1 s: RTO 0.6 s, times 16 = 9.6 s), where a
/// sample taken first would have gone into the old SRTT of 0.1 s and
/// left a base of 0.4 s (6.4 s). (GWA many flows, ECN 200 kB, seed 1,
/// flow 60 at 3.91 s: ns-2's next timeout came at 13.51 s, ccsim's had
/// come at 10.31 s.)
#[test]
fn ns2_an_ece_backing_off_past_8_restarts_the_estimate_before_the_acks_sample() {
    let spec = serde_json::json!({"ecn": true, "ecn_response": "ns2", "init_cwnd_pkts": 1, "recovery": "reno",
                                  "ns2_bugfix": true, "ns2_dupwnd": true, "rtt_estimator": "ns2",
                                  "clock_granularity_s": 0.1, "min_rto_s": 0.2, "ns2_boot_time_s": 0.0});
    let (mut s, mut net) = negotiated(spec); // 0 out at 0 s, timed
    ack(&mut s, &mut net, 0.1, 1, false); // a 0.1 s sample; 1 and 2 out, 1 timed
    assert_eq!(s.rtt.srtt(), Some(0.1));
    // as after two timeouts and an ECE at a one-segment window
    (s.st.cwnd, s.rtt.backoff) = (1.0, 3);
    s.n2().ecn_backoff = true;
    ack(&mut s, &mut net, 0.35, 2, true); // 1's ACK, a sample of 2 ticks, with ECE
    assert_eq!((s.rtt.backoff, s.st.cwnd), (4, 0.5));
    assert_eq!(s.rtt.srtt(), Some(0.2));
    assert!((s.rtt.rttvar - 0.1).abs() < 1e-12 && (s.rto() - 9.6).abs() < 1e-9, "{}", s.rto());
}

/// ns-2's `recv` counts an ACK of `last_ack_` as a duplicate with
/// nothing outstanding too, and `send_one` lets a segment out on it
/// (`t_seqno_ <= highest_ack_ + cwnd_ + dupacks_`): here the ACK of the
/// timeout's resend of segment 0, which had arrived, after an ECE
/// closed the window to half a segment. Without it the next segment
/// waits for the timer (GWA many flows, ECN 400 kB, seed 1, flow 99
/// at 0.914 s: ns-2 sent, ccsim waited 0.3 s).
#[test]
fn ns2_a_duplicate_with_nothing_outstanding_sends_one_segment() {
    for singledup in [true, false] {
        let spec = serde_json::json!({"ecn": true, "ecn_response": "ns2", "init_cwnd_pkts": 4,
                                      "recovery": "reno", "ns2_bugfix": true, "ns2_dupwnd": true,
                                      "ns2_singledup": singledup});
        let (mut s, mut net) = negotiated(spec); // 0-3 out
        net.now = from_secs(5.0);
        s.on_rto(&mut net); // resends 0
        ack(&mut s, &mut net, 5.1, 4, true); // 0-3 had arrived; the ECE after the timeout
        assert_eq!((s.st.cwnd, s.sb.outstanding()), (0.5, 0));
        let before = sent(&s).len();
        ack(&mut s, &mut net, 5.2, 4, true); // the resent 0's ACK
        let out: Vec<u64> = sent(&s)[before..].iter().map(|x| x.0).collect();
        let want: &[u64] = if singledup { &[4] } else { &[] };
        assert_eq!(out, want, "ns2_singledup {singledup}");
    }
}

/// ns-2's `RenoTcpAgent::dupack_action` after a timeout whose window
/// an ECE then cut (`last_cwnd_action_ == CWND_ACTION_ECN`): the third
/// duplicate ACK resends `last_ack_ + 1`, though the timeout's
/// go-back-N already resent it, with no second cut (found on the GWA LAN
/// ECN row's trace; docs/decisions/2026-11-25-ns2-ecn-agent.md).
#[test]
fn three_duplicates_after_a_timeout_and_an_ece_resend_the_first_segment() {
    for bugfix in [false, true] {
        let (mut s, mut net) = reno_timed_out(bugfix); // resends 0
        ack(&mut s, &mut net, 5.1, 1, false); // 0 arrived: go-back-N resends 1 and 2
        ack(&mut s, &mut net, 5.2, 2, true); // 1 arrived; ECE: the cut after the timeout
        let ssthresh = s.st.ssthresh;
        let resends = |s: &TcpSender| sent(s).iter().filter(|x| x.0 == 2).count();
        let before = resends(&s);
        assert!(before >= 2, "2 sent and resent by the go-back-N: {:?}", sent(&s));
        for i in 0..3 {
            ack(&mut s, &mut net, 5.3 + 0.001 * i as f64, 2, false);
        }
        assert_eq!(resends(&s) - before, bugfix as usize, "bugfix {bugfix}: {:?}", sent(&s));
        assert_eq!(s.st.ssthresh, ssthresh, "no second cut");
    }
}

/// ns-2's `recv` runs `ecn` before the duplicate's own rules: when the
/// third duplicate after a timeout carries the first ECE, that ECE sets
/// `CWND_ACTION_ECN` and the same duplicate resends `last_ack_ + 1`
/// (GWA LAN ECN 30 kB, seed 1, 11.42 s: ns-2's trace resends there).
#[test]
fn an_ece_on_the_third_duplicate_after_a_timeout_resends_at_once() {
    let (mut s, mut net) = reno_timed_out(true); // resends 0
    ack(&mut s, &mut net, 5.1, 1, false); // go-back-N resends 1 and 2
    let resends = |s: &TcpSender| sent(s).iter().filter(|x| x.0 == 1).count();
    let (before, ssthresh) = (resends(&s), s.st.ssthresh);
    ack(&mut s, &mut net, 5.2, 1, false);
    ack(&mut s, &mut net, 5.201, 1, false);
    assert_eq!(resends(&s), before, "{:?}", sent(&s));
    ack(&mut s, &mut net, 5.202, 1, true);
    assert_eq!(resends(&s), before + 1, "the third duplicate, with the ECE, resends: {:?}", sent(&s));
    assert!(s.st.ssthresh < ssthresh, "the ECE's cut");
    assert_eq!(s.n2r().dupwnd, 3.0);
}

/// ns-2 decides at the third duplicate only (`++dupacks_ ==
/// numdupacks_`): after a timeout, duplicates at una = recover start
/// no recovery (`bug_fix_`), and an ECE cut on the seventh does not
/// make the eighth a fast retransmit (GWA LAN ECN 30 kB, seed 1,
/// 23.545 s). ccsim's own rule (`>=`) would retransmit there.
#[test]
fn an_ece_cut_after_the_third_duplicate_starts_no_recovery_in_ns2_mode() {
    let (mut s, mut net) = reno_timed_out(true); // resends 0; recover = 10
    ack(&mut s, &mut net, 5.1, 10, false); // 1-9 had arrived: open, sends 10 and 11
    assert_eq!(s.state, State::Open);
    let resends = |s: &TcpSender| sent(s).iter().filter(|x| x.0 == 10).count();
    let before = resends(&s);
    for i in 0..6 {
        ack(&mut s, &mut net, 5.2 + 0.001 * i as f64, 10, false);
    }
    assert_eq!(resends(&s), before, "una = recover: no recovery");
    let ssthresh = s.st.ssthresh;
    ack(&mut s, &mut net, 5.21, 10, true); // the cut after the timeout
    assert!(s.st.ssthresh < ssthresh);
    ack(&mut s, &mut net, 5.211, 10, true);
    assert_eq!(resends(&s), before, "{:?}", sent(&s));
    assert_eq!(s.state, State::Open);
}

/// After a timeout whose window an ECE cut, with new data sent past the
/// go-back-N: ns-2's third duplicate resends `last_ack_ + 1` although
/// the go-back-N never covered it (`output` whatever the scoreboard
/// says), and the window stays `int(cwnd_) + dupwnd_` past
/// `highest_ack_` (`t_seqno_ <= highest_ack_ + win`): the resend is not
/// counted twice (GWA LAN ECN 60 kB, seed 2, 5.652 s).
#[test]
fn after_an_ece_the_third_duplicate_resends_new_data_and_keeps_the_window() {
    let (mut s, mut net) = reno_timed_out(true); // resends 0 of 0-9
    ack(&mut s, &mut net, 5.1, 8, false); // go-back-N: 8, 9
    ack(&mut s, &mut net, 5.2, 9, false); // cwnd 3: 10, 11 (new data)
    ack(&mut s, &mut net, 5.25, 9, true); // the ECE after the timeout: cut, recover = 12
    ack(&mut s, &mut net, 5.3, 10, false); // still below recover
    assert_eq!((s.state, s.st.cwnd), (State::Loss, 2.0));
    ack(&mut s, &mut net, 5.4, 10, false);
    ack(&mut s, &mut net, 5.5, 10, false);
    let before = sent(&s).len();
    ack(&mut s, &mut net, 5.6, 10, false);
    let seqs: Vec<u64> = sent(&s)[before..].iter().map(|x| x.0).collect();
    assert_eq!(seqs, [10, 12, 13, 14], "resend 10, then up to highest_ack_ + int(cwnd_) + dupwnd_");
    // The ACK past recover with an ECE: `ecn` halves `windowd()` =
    // cwnd_ + dupwnd_ = 2 + 3 before the new ACK drops dupwnd_ (GWA
    // LAN ECN 60 kB, seed 6, 0.363 s), and moves `recover_` to the
    // last segment sent (14), so the ACK's own rules see 13 below it.
    ack(&mut s, &mut net, 5.7, 13, true);
    assert_eq!((s.state, s.st.cwnd, s.st.ssthresh, s.n2r().dupwnd), (State::Loss, 2.5, 2.0, 0.0));
    assert_eq!(s.recover, 15);
}

/// ns-2's `newack` keeps the timer's backoff at an ECE only while
/// `ecn_backoff_`, as `ecn` (run first) has left it: an ECE it does not
/// react to (`seqno <= recover_`) at a one-segment window leaves it
/// clear, and the timed segment's sample ends the backoff (GWA LAN ECN
/// 30 kB with Telnets, seed 3, 13.73 s: ns-2's next timeout came 0.3 s
/// later, not 0.6 s).
#[test]
fn an_ece_not_reacted_to_at_one_segment_lets_the_sample_end_the_backoff() {
    let spec = serde_json::json!({"ecn": true, "ecn_response": "ns2", "init_cwnd_pkts": 2,
                                  "rtt_estimator": "ns2", "recovery": "reno", "ns2_bugfix": true,
                                  "ns2_dupwnd": true});
    let (mut s, mut net) = negotiated(spec);
    net.now = from_secs(5.0);
    s.on_rto(&mut net);
    assert_eq!(s.rtt.backoff, 1);
    ack(&mut s, &mut net, 5.1, 1, false); // go-back-N resends 1; 2 is new, timed
    ack(&mut s, &mut net, 5.2, 2, true); // the cut after the timeout: cwnd 1
    assert_eq!((s.st.cwnd, s.rtt.backoff, s.n2r().ecn_backoff), (1.0, 1, false));
    ack(&mut s, &mut net, 5.3, 3, true); // 2's ACK, ECE at or below recover
    assert_eq!(s.rtt.backoff, 0, "the sample ends the backoff");
    ack(&mut s, &mut net, 5.4, 4, true); // reacted to at cwnd 1
    assert_eq!((s.st.cwnd, s.n2r().ecn_backoff), (0.5, true));
}

/// ns-2's ECN negotiation with `syn_`: the SYN's ACK carries ECE
/// (tcp-sink.cc echoes the SYN's ECE). `ecn` reacts to it only after
/// the SYN timed out (`CWND_ACTION_TIMEOUT`), before `delay_growth_`
/// sets the initial window, and that ACK sets `ect_`; the next ECE at a
/// one-segment window then backs the timer off again and holds it (GWA
/// LAN ECN 60 kB with Telnets, seeds 4 and 5: an FTP's dropped SYN).
#[test]
fn the_negotiation_ece_after_a_syn_timeout_cuts_and_sets_ect() {
    let spec = |init: u32| {
        serde_json::json!({"ecn": true, "ecn_response": "ns2", "init_cwnd_pkts": init, "syn": "ns2",
                           "rtt_estimator": "ns2", "recovery": "reno", "ns2_bugfix": true,
                           "ns2_dupwnd": true})
    };
    // no timeout: the negotiation's ECE cuts nothing
    let (mut s, mut net) = TcpSender::on_test_link(spec(2), None, 1);
    let ssthresh = s.st.ssthresh;
    ack(&mut s, &mut net, 0.1, 1, true);
    assert_eq!((s.st.cwnd, s.st.ssthresh, s.n2r().ect), (2.0, ssthresh, true));
    // the SYN timed out
    let (mut s, mut net) = TcpSender::on_test_link(spec(2), None, 1);
    net.now = from_secs(3.0);
    s.on_rto(&mut net);
    assert_eq!(s.rtt.backoff, 1);
    ack(&mut s, &mut net, 3.1, 1, true);
    assert_eq!((s.st.cwnd, s.st.ssthresh, s.n2r().ecn_backoff, s.n2r().ect), (1.0, 2.0, true, true));
    assert_eq!(sent(&s).last(), Some(&(1, true)), "segment 1 goes out, with CWR");
    ack(&mut s, &mut net, 3.2, 2, true);
    assert_eq!((s.st.cwnd, s.rtt.backoff), (0.5, 2), "backed off again at one segment, and held");
}

/// Ten segments sent, then the timer expires at 5 s.
fn after_timeout(resp: &str) -> (TcpSender, Net) {
    let (mut s, mut net) = sender(resp, 10);
    net.now = from_secs(5.0);
    s.on_rto(&mut net);
    (s, net)
}

/// (segment, CWR) of every segment sent so far.
fn sent(s: &TcpSender) -> Vec<(u64, bool)> {
    s.x().trace.as_ref().unwrap().iter().map(|r| (r.seq, r.cwr)).collect()
}

/// An ECE at a one-segment window closes it (to half a segment); the timer then
/// reopens one segment. ns-2 (`restart_bugfix_`) does not back the
/// timer off for it, and the segment it sends carries CWR (the
/// timeout's `slowdown(CLOSE_CWND_ONE)` sets `cong_action_`).
#[test]
fn the_timer_that_reopens_a_closed_window_keeps_its_backoff_and_sends_cwr() {
    let (mut s, mut net) = ns2_syn_sender(1, false);
    ack(&mut s, &mut net, 0.1, 2, true);
    assert_eq!((s.st.cwnd, s.window(), s.sb.outstanding()), (0.5, 0, 0));
    let backoff = s.rtt.backoff;
    net.now = from_secs(3.0);
    s.on_rto(&mut net);
    assert_eq!(s.rtt.backoff, backoff, "no backoff with nothing outstanding");
    assert_eq!(s.stats.timeouts, 0);
    assert_eq!(sent(&s).last(), Some(&(2, true)), "the reopened segment carries CWR");
}

/// After a timeout, ns-2's `ecn` reacts to the next ECE whatever
/// `recover_` (`last_cwnd_action_ == CWND_ACTION_TIMEOUT`), once, and
/// later ECEs in the window hold the window. The RFC 3168 sender is in
/// loss recovery: the ECEs echo the window the timeout answered, so
/// neither cuts again nor stops its slow start.
#[test]
fn the_first_ece_after_a_timeout_is_reacted_to_once() {
    let (mut s, mut net) = after_timeout("ns2");
    assert_eq!((s.st.cwnd, s.state), (1.0, State::Loss));
    let ssthresh = s.st.ssthresh;
    ack(&mut s, &mut net, 5.1, 1, true);
    assert!(s.st.cwnd < 1.0 && s.st.ssthresh < ssthresh, "ns2 cuts: {} {}", s.st.cwnd, s.st.ssthresh);
    let (cwnd, ssthresh) = (s.st.cwnd, s.st.ssthresh);
    ack(&mut s, &mut net, 5.2, 2, true);
    assert_eq!((s.st.cwnd, s.st.ssthresh), (cwnd, ssthresh), "ns2: a second ECE in the window");

    let (mut s, mut net) = after_timeout("rfc3168");
    let ssthresh = s.st.ssthresh;
    for (t, a, cwnd) in [(5.1, 1, 2.0), (5.2, 2, 3.0)] {
        ack(&mut s, &mut net, t, a, true);
        assert_eq!((s.st.cwnd, s.st.ssthresh), (cwnd, ssthresh), "rfc3168: ECE at ack {a}");
    }
}

/// The ECN stall a lost CWR caused: after a timeout every ACK carries
/// ECE (the receiver echoes until it sees CWR, and go-back-N resends
/// carry none). The RFC 3168 sender slow starts through them, and the
/// first new segment after the timeout's reduction carries CWR
/// (§6.1.2: after a reduction "for any reason").
#[test]
fn echoed_eces_after_a_timeout_do_not_hold_the_window_and_new_data_carries_cwr() {
    let (mut s, mut net) = after_timeout("rfc3168"); // 0-9 out, 0 resent
    let mut t = 5.0;
    for a in 1..=10 {
        t += 0.1;
        ack(&mut s, &mut net, t, a, true);
    }
    assert_eq!(s.state, State::Open);
    assert!(s.st.cwnd >= 5.0, "the window grew through the echoes: {}", s.st.cwnd);
    let new: Vec<_> = sent(&s).into_iter().filter(|&(q, _)| q >= 10).collect();
    assert_eq!(new.first(), Some(&(10, true)), "the first new segment carries CWR: {new:?}");
    assert_eq!(new.iter().filter(|&&(_, c)| c).count(), 1, "CWR once: {new:?}");
}

/// A fast retransmit is a window reduction: the first new segment
/// after it carries CWR (RFC 3168 §6.1.2), the retransmission not.
#[test]
fn a_fast_retransmit_queues_cwr_for_new_data() {
    let (mut s, mut net) = sender("rfc3168", 10); // 0-9 out
    for t in [1.0, 1.1, 1.2] {
        ack(&mut s, &mut net, t, 0, false);
    }
    assert_eq!(s.state, State::Recovery);
    assert_eq!(sent(&s).iter().find(|&&(q, _)| q == 0 && s.stats.retransmits > 0), Some(&(0, false)));
    ack(&mut s, &mut net, 1.3, 12, false); // full ACK (10 and 11 went by Limited Transmit)
    let new: Vec<_> = sent(&s).into_iter().filter(|&(q, _)| q >= 12).collect();
    assert_eq!(new.first(), Some(&(12, true)), "{new:?}");
}

fn ns2_sender(init_cwnd: u32, bugfix: bool) -> (TcpSender, Net) {
    let spec = serde_json::json!({"ecn": true, "ecn_response": "ns2", "init_cwnd_pkts": init_cwnd,
                                  "ns2_bugfix": bugfix});
    negotiated(spec)
}

/// The same with `syn = "ns2"`, past the handshake (the SYN's ACK, with
/// the negotiation's ECE, at 0.05 s): segments 1 on are data.
fn ns2_syn_sender(init_cwnd: u32, bugfix: bool) -> (TcpSender, Net) {
    let spec = serde_json::json!({"ecn": true, "ecn_response": "ns2", "init_cwnd_pkts": init_cwnd,
                                  "ns2_bugfix": bugfix, "syn": "ns2"});
    let (mut s, mut net) = TcpSender::on_test_link(spec, None, 1);
    ack(&mut s, &mut net, 0.05, 1, true);
    assert!(s.n2r().ect);
    (s, net)
}

/// ns-2's Reno agent sets `recover_ = maxseq_` at a timeout when
/// `bug_fix_` (tcp-reno.cc `timeout`), so a timeout after an ECN
/// reduction is the ECN one (no ssthresh cut, not in `nrexmit_`) even
/// when the reduction's own window has been acknowledged.
#[test]
fn a_timeout_after_an_ecn_cut_keeps_ssthresh_with_ns2_bugfix() {
    for bugfix in [false, true] {
        let (mut s, mut net) = ns2_sender(16, bugfix);
        ack(&mut s, &mut net, 0.1, 16, true); // all sixteen acknowledged, ECE: the cut
        assert!(s.sb.outstanding() >= 8, "new data goes out after the cut");
        let ssthresh = s.st.ssthresh;
        assert!(ssthresh >= 8.0, "ssthresh {ssthresh}");
        net.now = from_secs(3.0);
        s.on_rto(&mut net);
        assert_eq!(s.st.cwnd, 1.0);
        assert_eq!(s.st.ssthresh == ssthresh, bugfix, "ns2_bugfix {bugfix}: {ssthresh} -> {}", s.st.ssthresh);
    }
}

/// Every expiry of ns-2's timer sets `last_cwnd_action_` to TIMEOUT,
/// the one that reopens a window an ECE closed (nothing outstanding)
/// too: a later timeout with data outstanding cuts ssthresh again.
#[test]
fn the_timer_that_reopens_a_closed_window_ends_the_ecn_reduction() {
    let (mut s, mut net) = ns2_syn_sender(1, true);
    ack(&mut s, &mut net, 0.1, 2, true);
    assert_eq!((s.window(), s.sb.outstanding()), (0, 0));
    net.now = from_secs(3.0);
    s.on_rto(&mut net); // nothing outstanding: reopens one segment
    let mut t = 3.1;
    while s.st.cwnd < 8.0 {
        let una = s.sb.una();
        ack(&mut s, &mut net, t, una + 1, false);
        t += 0.001;
    }
    net.now = from_secs(t + 3.0);
    s.on_rto(&mut net);
    assert!(s.st.ssthresh >= 4.0, "ssthresh {} cut from the window", s.st.ssthresh);
    assert_eq!(s.stats.timeouts, 1);
}

/// ns-2's `dupack_action` after `CWND_ACTION_ECN` retransmits without
/// a cut while `highest_ack_ <= recover_`: una == recover too, a loss
/// of the first segment sent after the reduction.
#[test]
fn three_duplicate_acks_at_the_ecn_recover_point_retransmit_without_a_cut() {
    let (mut s, mut net) = ns2_sender(4, true);
    ack(&mut s, &mut net, 0.1, 4, true); // all four acknowledged, ECE: the cut, recover 4
    let (cwnd, ssthresh) = (s.st.cwnd, s.st.ssthresh);
    for i in 0..3 {
        ack(&mut s, &mut net, 0.2 + 0.001 * i as f64, 4, false);
    }
    assert_eq!(s.state, State::Recovery, "segment 4 fast-retransmitted");
    assert_eq!(s.st.ssthresh, ssthresh, "no second cut");
    assert!(s.st.cwnd >= cwnd, "cwnd {cwnd} -> {}", s.st.cwnd);
    assert_eq!(sent(&s).iter().filter(|x| x.0 == 4).count(), 2, "{:?}", sent(&s));
}

/// ns-2's `singledup_` also after a timeout: a duplicate ACK in the
/// loss state lets one more segment out (`send_one`); RFC 3042's
/// Limited Transmit (and `ns2_singledup = false`) only in the open state.
#[test]
fn a_duplicate_ack_after_a_timeout_sends_one_more_with_ns2_singledup() {
    for singledup in [false, true] {
        let spec = serde_json::json!({"init_cwnd_pkts": 4, "ns2_singledup": singledup});
        let (mut s, mut net) = negotiated(spec);
        net.now = from_secs(5.0);
        s.on_rto(&mut net);
        let after_rto = sent(&s).len();
        assert_eq!(sent(&s)[after_rto - 1], (0, false), "the timeout resends segment 0");
        ack(&mut s, &mut net, 5.1, 0, false); // a duplicate ACK (una 0)
        let more = sent(&s).len() - after_rto;
        assert_eq!(more, singledup as usize, "ns2_singledup {singledup}: {:?}", sent(&s));
    }
}

/// An application-limited sender (a Telnet) with two segments out at
/// a window of two, the first lost: a write after the first duplicate
/// ACK uses Limited Transmit's allowance under RFC 3042's standing
/// reading (cwnd + dupacks, as Linux counts), but not in ns-2, where
/// `send_one` runs only at a duplicate ACK's arrival and a later write
/// goes through `send_much` under cwnd alone (tcp-reno.cc `recv`).
/// So ns-2's Telnet reaches three duplicates less often and times out
/// more (the GWA LAN rows, docs/validation.md). A duplicate that finds
/// a write waiting sends it in both.
#[test]
fn ns2_singledup_sends_beyond_the_window_only_at_a_duplicate_ack() {
    for singledup in [false, true] {
        let spec = serde_json::json!({"init_cwnd_pkts": 2, "ns2_singledup": singledup});
        let (mut s, mut net) = negotiated(spec);
        // The opening window (two segments), then application-limited:
        // as if those two were written (`write`).
        assert_eq!(sent(&s), [(0, false), (1, false)]);
        s.x_make().offered = Some(seq_opt(2));
        ack(&mut s, &mut net, 0.1, 0, false); // duplicate 1: nothing waiting
        assert_eq!(sent(&s).len(), 2);
        s.write(&mut net); // segment 2, beyond the window of two
        let after_write = sent(&s).len();
        assert_eq!(after_write, if singledup { 2 } else { 3 }, "ns2_singledup {singledup}: {:?}", sent(&s));
        // Duplicate 2: ns-2's send_one takes the waiting segment now;
        // RFC: nothing more (two beyond the window are out).
        ack(&mut s, &mut net, 0.2, 0, false);
        assert_eq!(sent(&s).len(), 3, "ns2_singledup {singledup}: {:?}", sent(&s));
        assert_eq!(sent(&s)[2], (2, false));
    }
}

/// ns-2's timer runs on after an ACK of everything sent (`newtimer`:
/// `t_seqno_ > tcph->seqno()`), and its expiry with nothing
/// outstanding restarts the window at one segment, ssthresh kept, no
/// retransmission, rearmed without backoff (`ns2_idle_restart`). RFC
/// 6298 §5.2 stops the timer there, and the window stays.
#[test]
fn ns2_idle_restart_restarts_the_window_after_an_idle_rto() {
    for idle_restart in [false, true] {
        let spec = serde_json::json!({"init_cwnd_pkts": 4, "ns2_idle_restart": idle_restart});
        let (mut s, mut net) = negotiated(spec);
        s.x_make().offered = Some(seq_opt(4)); // an application-limited sender: four written
        ack(&mut s, &mut net, 0.1, 4, false);
        let (cwnd, ssthresh) = (s.st.cwnd, s.st.ssthresh);
        assert!(cwnd > 4.0, "slow start opened the window: {cwnd}");
        assert_eq!(s.sb.outstanding(), 0);
        assert_eq!(s.rto_timer.is_armed(), idle_restart);
        if !idle_restart {
            continue;
        }
        let at = s.rto_timer.deadline().expect("armed");
        net.now = at;
        let sent_before = sent(&s).len();
        s.on_rto(&mut net);
        assert_eq!((s.st.cwnd, s.st.ssthresh), (1.0, ssthresh), "window restarts, ssthresh kept");
        assert_eq!(sent(&s).len(), sent_before, "nothing to retransmit");
        assert_eq!(s.stats.timeouts, 0, "not a timeout with data outstanding");
        assert_eq!(s.rto_timer.deadline(), Some(at + from_secs(s.rto())), "rearmed, no backoff");
        // ns-2 `output`: a write with nothing outstanding sets the
        // pending timer afresh, so its segment gets a whole RTO.
        net.now = at + from_secs(s.rto()) / 2;
        s.x_make().offered = Some(seq_opt(5));
        s.try_send(&mut net);
        assert_eq!(sent(&s).len(), sent_before + 1);
        assert_eq!(s.rto_timer.deadline(), Some(net.now + from_secs(s.rto())), "set afresh at the send");
    }
}

/// ns-2.35 halves the window unrounded (`precisionReduce_`, its
/// default since 2006/1/24: `halfwin = windowd() / 2`), ssthresh to
/// its integer part (at least 2); a window under two segments closes,
/// and only a reduction at a window of at most one segment arms
/// `ecn_backoff_`. (Whole-segment halving, `precisionReduce_ false`,
/// would give 1 and then 0, with no fraction left.)
#[test]
fn an_ece_halves_the_window_unrounded() {
    let (mut s, mut net) = sender("ns2", 2);
    // (segment 0's ACK cannot cut: ns-2's `recover_` starts at 0)
    ack(&mut s, &mut net, 0.05, 1, false);
    ack(&mut s, &mut net, 0.1, 2, true);
    assert_eq!((s.st.cwnd, s.st.ssthresh, s.window()), (1.5, 2.0, 1));
    assert!(!s.n2r().ecn_backoff);
    // An ACK without ECE: slow start to 2.5; segment 4 goes out.
    ack(&mut s, &mut net, 0.2, 3, false);
    assert_eq!((s.st.cwnd, sent(&s).last().map(|x| x.0)), (2.5, Some(4)));
    // The next window's ECE: 2.5 -> 1.25; segment 5 goes out.
    ack(&mut s, &mut net, 0.3, 5, true);
    assert_eq!((s.st.cwnd, s.window(), sent(&s).last().map(|x| x.0)), (1.25, 1, Some(5)));
    // And the next: 1.25 -> 0.625, closed, with no backoff armed.
    ack(&mut s, &mut net, 0.4, 6, true);
    assert_eq!((s.st.cwnd, s.st.ssthresh, s.window()), (0.625, 2.0, 0));
    assert!(!s.n2r().ecn_backoff, "the reduction was made at 1.25 segments");
}

/// `ns2_dupwnd`: ns-2's Reno window. Seven segments out, the first
/// lost: the third duplicate ACK halves windowd() = 7 unrounded (cwnd_
/// 3.5, ssthresh 3) and adds dupwnd_ = 3, a fourth adds one more; the
/// new ACK takes dupwnd_ off without deflating cwnd_ to ssthresh and
/// opens it by 1/cwnd_ (3.5 > ssthresh). RFC 5681 (the default):
/// ssthresh = FlightSize / 2, cwnd = ssthresh + 3, then ssthresh.
#[test]
fn ns2_dupwnd_keeps_the_inflation_apart_and_does_not_deflate() {
    for ns2 in [true, false] {
        let spec = serde_json::json!({"recovery": "reno", "init_cwnd_pkts": 7, "limited_transmit": false,
                                      "ns2_dupwnd": ns2});
        let (mut s, mut net) = negotiated(spec);
        for k in 0..3 {
            ack(&mut s, &mut net, 0.1 + 0.001 * k as f64, 0, false);
        }
        let (cwnd, ssthresh) = (s.st.cwnd, s.st.ssthresh);
        ack(&mut s, &mut net, 0.104, 0, false);
        assert_eq!(s.st.cwnd, cwnd + 1.0, "ns2 {ns2}: inflation");
        ack(&mut s, &mut net, 0.2, 7, false);
        if ns2 {
            assert_eq!((cwnd, ssthresh), (6.5, 3.0));
            assert_eq!(s.st.cwnd, 3.5 + 1.0 / 3.5, "cwnd_ kept, opened once");
        } else {
            assert_eq!((cwnd, ssthresh), (6.5, 3.5));
            assert_eq!(s.st.cwnd, 3.5, "deflated to ssthresh");
        }
        assert_eq!(s.state, State::Open);
    }
}

/// `ns2_dupwnd` with NewReno (tcp-newreno.cc): segments 0-7 out, 0
/// lost; four duplicates give cwnd_ 4 + dupwnd_ 4. A partial ACK of 6
/// segments (0-5 arrived) deflates as RFC 6582
/// does (cwnd_ 4 - (6 - 4) = 2, dupwnd_ 1: 3) and retransmits 6; the
/// full ACK then drops dupwnd_ and opens cwnd_ 2 by one (slow start
/// below ssthresh 4): 3, where RFC 6582 deflates to ssthresh 4.
#[test]
fn ns2_dupwnd_newreno_deflates_on_partial_acks_and_does_not_deflate_at_the_end() {
    for (ns2, want) in [(true, 3.0), (false, 4.0)] {
        let spec = serde_json::json!({"recovery": "newreno", "init_cwnd_pkts": 8, "limited_transmit": false,
                                      "ns2_dupwnd": ns2});
        let (mut s, mut net) = negotiated(spec);
        for k in 0..4 {
            ack(&mut s, &mut net, 0.1 + 0.001 * k as f64, 0, false);
        }
        assert_eq!((s.st.cwnd, s.st.ssthresh, s.state), (8.0, 4.0, State::Recovery), "ns2 {ns2}");
        let before = sent(&s).len();
        ack(&mut s, &mut net, 0.2, 6, false);
        assert_eq!((s.st.cwnd, s.state), (3.0, State::Recovery), "ns2 {ns2}");
        let out: Vec<u64> = sent(&s)[before..].iter().map(|x| x.0).collect();
        assert_eq!(out, vec![6, 8], "ns2 {ns2}: the hole, then one new segment");
        ack(&mut s, &mut net, 0.3, 8, false);
        assert_eq!((s.st.cwnd, s.state), (want, State::Open), "ns2 {ns2}");
    }
}

/// The traced LAN case (docs/validation.md): an ECE halves 8 to 4
/// (recover_ = 8); the loss under it is repaired without a second
/// cut (dupwnd_ 3, then 4: windowd() 8, which sends segment 8); the
/// ACK ending recovery carries ECE beyond recover_, and ns-2's `ecn`,
/// run before dupwnd_ is dropped, halves the inflated 8 to 4. Without
/// `ns2_dupwnd` the halving comes first too, then the deflation to
/// the ssthresh it set (4): not the deflated window halved (2).
#[test]
fn ns2_dupwnd_an_ece_ending_recovery_halves_the_inflated_window() {
    for ns2 in [true, false] {
        let spec = serde_json::json!({"recovery": "reno", "init_cwnd_pkts": 8, "limited_transmit": false,
                                      "ecn": true, "ecn_response": "ns2", "ns2_dupwnd": ns2});
        let (mut s, mut net) = negotiated(spec);
        // (segment 0's ACK alone cannot cut: ns-2's `recover_` starts at 0)
        ack(&mut s, &mut net, 0.1, 2, true);
        assert_eq!((s.st.cwnd, s.st.ssthresh), (4.0, 4.0));
        for k in 0..4 {
            ack(&mut s, &mut net, 0.2 + 0.001 * k as f64, 2, false);
        }
        assert_eq!((s.st.cwnd, s.st.ssthresh, s.state), (8.0, 4.0, State::Recovery), "ns2 {ns2}");
        assert_eq!(sent(&s).iter().filter(|x| x.0 == 8).count(), 1, "ns2 {ns2}: {:?}", sent(&s));
        ack(&mut s, &mut net, 0.3, 9, true);
        assert_eq!((s.st.cwnd, s.state), (4.0, State::Open), "ns2 {ns2}");
    }
}

/// ns-2's `ecn` cuts only for `seqno > recover_` (tcp.cc), i.e. an
/// ACK beyond the last segment sent at the last cut: the ACK ending a
/// fast recovery by acknowledging exactly that window (ack 8 after
/// recover_ = 7, segments 0-7) echoes a mark in it and is ignored; the
/// next one, for segment 8, cuts. Traced on the LAN ECN row with
/// Telnets (docs/validation.md): cutting at the first would put CWR on
/// segment 8 and clear the receiver's ECE, so the second cut would be
/// missed.
#[test]
fn ns2_an_ece_acking_exactly_the_recovery_window_does_not_cut() {
    let spec = serde_json::json!({"recovery": "reno", "init_cwnd_pkts": 8, "limited_transmit": false,
                                  "ecn": true, "ecn_response": "ns2", "ns2_dupwnd": true});
    let (mut s, mut net) = negotiated(spec);
    for k in 0..3 {
        ack(&mut s, &mut net, 0.1 + 0.001 * k as f64, 0, false);
    }
    assert_eq!((s.st.cwnd, s.st.ssthresh, s.state), (7.0, 4.0, State::Recovery));
    ack(&mut s, &mut net, 0.2, 8, true);
    assert_eq!((s.st.cwnd, s.st.ssthresh, s.state), (4.0, 4.0, State::Open), "no cut at una == recover");
    let next = sent(&s).into_iter().filter(|x| x.0 >= 8).collect::<Vec<_>>();
    assert!(!next.is_empty() && next.iter().all(|x| !x.1), "no CWR after it: {next:?}");
    ack(&mut s, &mut net, 0.3, 9, true);
    assert_eq!((s.st.cwnd, s.st.ssthresh), (2.0, 2.0), "the next ECE cuts");
}

/// ns-2 sets CWR on the segment after any window reduction, a
/// retransmission included (`SetCWRonRetransmit_`): the timeout's
/// retransmission carries it; RFC 3168 sends CWR on new data only.
#[test]
fn a_timeout_retransmission_carries_cwr_in_ns2_mode_only() {
    for (resp, cwr) in [("ns2", true), ("rfc3168", false)] {
        let (s, _) = after_timeout(resp);
        assert_eq!(sent(&s).last(), Some(&(0, cwr)), "{resp}");
    }
}
