//! RED and ECN end to end: a dumbbell with a `kind = "red"` bottleneck.
//! ECN-capable Reno/NewReno flows through a marking RED queue with a buffer
//! they never fill lose nothing and halve at most once per RTT (RFC 3168
//! §6.1.2); without ECN the same queue drops early, below its buffer; byte
//! and packet mode both run; packets are conserved throughout.
use crate::common;
use ccsim_core::stats::Results;
use ccsim_core::{Scenario, Simulation};
use common::*;

/// `n` flows with RTTs spread over 40-80 ms through a 20 Mb/s (or `rate`) bottleneck
/// whose queue table is `queue` (TOML inline table body).
fn dumbbell(n: u32, queue: &str, flow_extra: &str, duration: f64) -> String {
    dumbbell_at(20e6, n, queue, flow_extra, duration)
}

fn dumbbell_at(rate: f64, n: u32, queue: &str, flow_extra: &str, duration: f64) -> String {
    let rtts: Vec<f64> = (0..n).map(|i| 0.04 + 0.04 * i as f64 / (n.max(2) - 1) as f64).collect();
    format!(
        "name = \"red\"\nseed = 5\nduration_s = {duration:?}\nwarmup_s = 2.0\nsample_interval_s = 0\n\
         [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = {rate:?}\nbottleneck_delay_s = 0.01\n\
         bottleneck_queue = {{ kind = \"red\", {queue} }}\n\
         [[flows]]\ncount = {n}\ncc = \"reno\"\nmss_bytes = 1000\nheader_bytes = 40\n\
         rtt_s = {rtts:?}\nrwnd_pkts = 1000\n{flow_extra}\n"
    )
}

fn sim(t: &str) -> Simulation {
    Simulation::new(&Scenario::from_toml(t).unwrap_or_else(|e| panic!("{e}\n{t}"))).unwrap()
}

fn run_toml(t: &str) -> (Results, u64) {
    let mut s = sim(t);
    let r = s.run();
    assert_conserved(&r);
    (r, s.net.links[FWD_BNECK].counters().marks)
}

/// GWA-paper thresholds (1/12 and 3/12 of a 1200-packet buffer), marking.
const ECN_Q: &str = "limit_pkts = 1200, min_th_pkts = 100, max_th_pkts = 300, bytes = false, gentle = false, \
                     w_q = 0.002, ecn = true, ecn_mark_above_max = true";

#[test]
fn ecn_flows_through_marking_red_lose_nothing_and_halve_once_per_rtt() {
    for recovery in ["reno", "newreno"] {
        // 100 Mb/s: the 1200-packet buffer is at most 100 ms of queueing
        let t = dumbbell_at(100e6, 10, ECN_Q, &format!("ecn = true\nrecovery = \"{recovery}\""), 30.0);
        let mut s = sim(&t);
        let n = 10u32;
        // step 1 ms at a time; a window reduction moves ssthresh
        let mut last: Vec<(f64, f64)> = (0..n).map(|f| (s.tcp_sender(f).unwrap().st.ssthresh, 0.0)).collect();
        let mut cwnd: Vec<f64> = vec![0.0; n as usize];
        let mut reductions = 0;
        let mut t_s = 0.0;
        let mut marks_at_warmup = None;
        while t_s < s.duration_s() {
            if marks_at_warmup.is_none() && t_s >= 2.0 - 1e-9 {
                marks_at_warmup = Some(s.net.links[FWD_BNECK].counters().marks);
            }
            t_s += 0.001;
            s.run_until(t_s);
            for f in 0..n {
                let snd = s.tcp_sender(f).unwrap();
                let (ss, at) = last[f as usize];
                if snd.st.ssthresh != ss {
                    reductions += 1;
                    let rtt = s.flows.get(f).meta.rtt_prop_s;
                    assert!(
                        at == 0.0 || t_s - at >= rtt - 0.002,
                        "{recovery} flow {f}: reductions {:.4} s apart, RTT {rtt}",
                        t_s - at
                    );
                    // one halving, not two in this step
                    assert!(snd.st.ssthresh >= 0.4 * cwnd[f as usize], "flow {f}: more than one halving");
                    last[f as usize] = (snd.st.ssthresh, t_s);
                }
                cwnd[f as usize] = snd.st.cwnd;
            }
        }
        let r = s.results();
        assert_conserved(&r);
        let marks = s.net.links[FWD_BNECK].counters().marks;
        assert_eq!(r.links[FWD_BNECK].drops, 0, "{recovery}: a marking RED queue with room drops nothing");
        assert!(marks > 50, "{recovery}: marks {marks}");
        // the link result counts the marks after the 2 s warm-up
        assert_eq!(r.links[FWD_BNECK].marks, marks - marks_at_warmup.unwrap());
        // the time-averaged queue is well below the marking threshold
        // max_th (300): marks, not a full buffer, bound it
        let avg = r.links[FWD_BNECK].avg_queue_pkts;
        assert!(avg > 0.0 && avg < 300.0, "{recovery}: average queue {avg}");
        assert!(reductions > 20, "{recovery}: reductions {reductions}");
        for f in 0..n {
            let st = &s.tcp_sender(f).unwrap().stats;
            assert_eq!((st.fast_recoveries, st.timeouts), (0, 0), "flow {f}: no loss recovery");
        }
        assert!(r.links[FWD_BNECK].utilization > 0.9, "utilisation {}", r.links[FWD_BNECK].utilization);
        assert!(r.links[FWD_BNECK].max_queue_pkts < 1200);
    }
}

#[test]
fn red_without_ecn_drops_early_below_the_buffer() {
    let q = "limit_pkts = 1200, min_th_pkts = 100, max_th_pkts = 300, bytes = false, gentle = false, w_q = 0.002";
    let (r, marks) = run_toml(&dumbbell(10, q, "ecn = true", 20.0));
    let l = &r.links[FWD_BNECK];
    assert_eq!(marks, 0, "ecn = false never marks");
    assert!(l.drops > 20, "drops {}", l.drops);
    // early drops keep the queue well below the physical buffer
    assert!(l.max_queue_pkts < 900, "max queue {}", l.max_queue_pkts);
    assert!(l.utilization > 0.9);
    // ns-2's mark_p: ECN-capable packets are dropped, not marked, once
    // p_b >= 0.1 (avg >= max_th, non-gentle), and marked below it
    let q2 = "limit_pkts = 1200, min_th_pkts = 100, max_th_pkts = 300, bytes = false, gentle = false, w_q = 0.002, ecn = true";
    let (r2, marks2) = run_toml(&dumbbell(10, q2, "ecn = true", 20.0));
    assert!(marks2 > 0);
    assert!(r2.links[FWD_BNECK].drops < l.drops, "marking replaces most early drops");
}

/// Run to `from` s, then to the end in 1 ms steps: (results, largest
/// queue in packets and bytes after `from`, drops after `from`).
fn run_watching(t: &str, from: f64) -> (Results, usize, u64, u64) {
    let mut s = sim(t);
    s.run_until(from);
    let d0 = s.net.links[FWD_BNECK].counters().drops;
    let (mut mp, mut mb, mut t_s) = (0, 0, from);
    while t_s < s.duration_s() {
        t_s += 0.001;
        s.run_until(t_s);
        let q = &s.net.links[FWD_BNECK].queue;
        mp = mp.max(q.len_pkts());
        mb = mb.max(q.len_bytes());
    }
    let r = s.results();
    assert_conserved(&r);
    let drops = s.net.links[FWD_BNECK].counters().drops - d0;
    (r, mp, mb, drops)
}

#[test]
fn byte_and_packet_mode_both_control_the_queue() {
    // The same thresholds in bytes (1040-byte packets: ~24/72 packets) and
    // in packets; after the slow-start transient, early drops hold the
    // queue far below the 300-packet buffer in both modes.
    let bytes = "limit_bytes = 312000, min_th_bytes = 25000, max_th_bytes = 75000, w_q = 0.002";
    let pkts = "limit_pkts = 300, bytes = false, min_th_pkts = 25, max_th_pkts = 75, w_q = 0.002";
    let (rb, _, mb, db) = run_watching(&dumbbell(10, bytes, "", 20.0), 5.0);
    let (rp, mp, _, dp) = run_watching(&dumbbell(10, pkts, "", 20.0), 5.0);
    for (name, r, d) in [("bytes", &rb, db), ("packets", &rp, dp)] {
        assert!(d > 20, "{name}: early drops after the transient {d}");
        assert!(r.links[FWD_BNECK].utilization > 0.85, "{name}: utilisation {}", r.links[FWD_BNECK].utilization);
    }
    assert!(mb < 2 * 75_000 + 10_400, "byte mode: largest queue {mb} B");
    assert!(mp < 2 * 75 + 10, "packet mode: largest queue {mp} pkts");
    assert_ne!(db, dp, "the two modes are different runs");
}

#[test]
fn queue_table_errors_name_the_field() {
    let t = dumbbell(1, "limit_pkts = 100, max_p = 2", "", 3.0);
    let e = Scenario::from_toml(&t).and_then(|s| Simulation::new(&s).map(|_| ())).unwrap_err().to_string();
    assert!(e.contains("topology.bottleneck_queue.max_p: must be in (0, 1], got 2"), "{e}");
    let t = dumbbell(1, "limit_pkts = 100, ecn_mark_above_max = true", "", 3.0);
    let e = Scenario::from_toml(&t).and_then(|s| Simulation::new(&s).map(|_| ())).unwrap_err().to_string();
    assert!(e.contains("topology.bottleneck_queue.ecn_mark_above_max"), "{e}");
}

#[test]
fn same_seed_same_run() {
    let t = dumbbell(4, "limit_pkts = 200, bytes = false", "", 5.0);
    let (a, ma) = run_toml(&t);
    let (b, mb) = run_toml(&t);
    assert_eq!(a.links[FWD_BNECK].drops, b.links[FWD_BNECK].drops);
    assert_eq!(ma, mb);
    assert_eq!(
        a.flows.iter().map(|f| f.goodput_bps).collect::<Vec<_>>(),
        b.flows.iter().map(|f| f.goodput_bps).collect::<Vec<_>>()
    );
}

/// Marks CE on the `nth` ECN-capable packet it sees, once.
struct MarkNth {
    nth: u64,
    seen: u64,
}

impl ccsim_core::net::stage::Stage for MarkNth {
    fn name(&self) -> &'static str {
        "mark_nth"
    }
    fn on_enqueue(
        &mut self,
        ctx: &mut ccsim_core::net::LinkCtx,
        pkt: &mut ccsim_core::net::Packet,
    ) -> ccsim_core::net::stage::Verdict {
        if pkt.ecn.is_ect() {
            self.seen += 1;
            if self.seen == self.nth {
                pkt.ecn = ccsim_core::net::packet::Ecn::Ce;
                ctx.count_mark(pkt);
            }
        }
        ccsim_core::net::stage::Verdict::Pass
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

#[test]
fn no_window_increase_on_any_ack_carrying_ece() {
    // RFC 3168 §6.1.2: the ACKs that echo ECE after the reduction (until
    // the CWR reaches the receiver) leave cwnd alone. In congestion
    // avoidance each would otherwise add 1/cwnd.
    let d = Dumbbell::new(100e6, 1000, 10.0).flow("ecn = true\nrtt_s = 0.05\nrwnd_pkts = 200");
    let mut sim = d.sim();
    sim.net.add_stage(FWD_BNECK, Box::new(MarkNth { nth: 3000, seen: 0 }));
    let ss0 = sim.tcp_sender(0).unwrap().st.ssthresh;
    while sim.tcp_sender(0).unwrap().st.ssthresh == ss0 {
        assert!(step(&mut sim), "the mark is echoed and acted on");
    }
    let t_r = sim.now_s();
    let s = sim.tcp_sender(0).unwrap();
    let (ss, una0) = (s.st.ssthresh, s.sb.una());
    assert_eq!(s.st.cwnd, ss);
    while sim.now_s() < t_r + 0.02 {
        assert!(step(&mut sim));
        let s = sim.tcp_sender(0).unwrap();
        assert_eq!(s.st.cwnd, ss, "cwnd grew on an ECE ACK at {:.4} s", sim.now_s());
    }
    assert!(sim.tcp_sender(0).unwrap().sb.una() > una0 + 20, "ACKs arrived meanwhile");
    // and it grows again once ECE stops
    sim.run_until(t_r + 0.5);
    assert!(sim.tcp_sender(0).unwrap().st.cwnd > ss + 1.0);
    assert_conserved(&sim.results());
}

/// Marks CE on the `mark`th ECN-capable packet and drops the `drop`th.
struct MarkThenDrop {
    mark: u64,
    drop: u64,
    seen: u64,
}

impl ccsim_core::net::stage::Stage for MarkThenDrop {
    fn name(&self) -> &'static str {
        "mark_then_drop"
    }
    fn on_enqueue(
        &mut self,
        ctx: &mut ccsim_core::net::LinkCtx,
        pkt: &mut ccsim_core::net::Packet,
    ) -> ccsim_core::net::stage::Verdict {
        use ccsim_core::net::stage::{DropReason, Verdict};
        if pkt.ecn.is_ect() {
            self.seen += 1;
            if self.seen == self.mark {
                pkt.ecn = ccsim_core::net::packet::Ecn::Ce;
                ctx.count_mark(pkt);
            } else if self.seen == self.drop {
                return Verdict::Drop(DropReason::Congestion);
            }
        }
        Verdict::Pass
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

#[test]
fn a_loss_in_the_window_of_an_ece_reduction_is_fast_retransmitted_without_a_second_cut() {
    // The mark and the loss are 20 packets apart: the ECE arrives first
    // and halves the window; the loss, in the same window, is then found by
    // three duplicate ACKs. RFC 3168 §6.1.2: one reduction per window, but
    // the loss is still repaired (ns-2 NewReno's dupack_action retransmits
    // after an ECN action), not left to the retransmission timer.
    for recovery in ["reno", "newreno", "sack"] {
        let d = Dumbbell::new(100e6, 1000, 10.0)
            .flow(&format!("ecn = true\nrtt_s = 0.05\nrwnd_pkts = 200\nrecovery = \"{recovery}\""));
        let mut sim = d.sim();
        sim.net.add_stage(FWD_BNECK, Box::new(MarkThenDrop { mark: 3000, drop: 3020, seen: 0 }));
        let ss0 = sim.tcp_sender(0).unwrap().st.ssthresh;
        while sim.tcp_sender(0).unwrap().st.ssthresh == ss0 {
            assert!(step(&mut sim));
        }
        let ss = sim.tcp_sender(0).unwrap().st.ssthresh;
        sim.run_until(3.0);
        let s = sim.tcp_sender(0).unwrap();
        assert_eq!(s.stats.timeouts, 0, "{recovery}: the loss is not left to the RTO");
        assert_eq!(s.stats.fast_recoveries, 1, "{recovery}: fast retransmit");
        assert!(s.st.ssthresh == ss, "{recovery}: no second cut (ssthresh {} after the ECE cut {ss})", s.st.ssthresh);
        let r = sim.run();
        assert_conserved(&r);
        assert_eq!(r.links[FWD_BNECK].drops, 1);
    }
}

#[test]
fn a_timeout_in_the_window_of_an_ece_reduction_keeps_its_ssthresh() {
    // Mark one packet, then drop every packet of the next 300 (a burst
    // no duplicate ACK can announce): the ECE halves the window, then the
    // timer fires inside that window. RFC 3168 §6.1.2 / ns-2 `timeout`:
    // cwnd goes to one segment but ssthresh is not halved a second time.
    struct MarkThenBlackout {
        seen: u64,
    }
    impl ccsim_core::net::stage::Stage for MarkThenBlackout {
        fn name(&self) -> &'static str {
            "mark_then_blackout"
        }
        fn on_enqueue(
            &mut self,
            ctx: &mut ccsim_core::net::LinkCtx,
            pkt: &mut ccsim_core::net::Packet,
        ) -> ccsim_core::net::stage::Verdict {
            use ccsim_core::net::stage::{DropReason, Verdict};
            if pkt.ecn.is_ect() || pkt.tcp().is_some_and(|_| !pkt.is_ack()) {
                self.seen += 1;
                if self.seen == 3000 && pkt.ecn.is_ect() {
                    pkt.ecn = ccsim_core::net::packet::Ecn::Ce;
                    ctx.count_mark(pkt);
                } else if (3001..3400).contains(&self.seen) {
                    return Verdict::Drop(DropReason::Congestion);
                }
            }
            Verdict::Pass
        }
        fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
            self
        }
    }
    let d = Dumbbell::new(100e6, 1000, 10.0).flow("ecn = true\nrtt_s = 0.05\nrwnd_pkts = 200");
    let mut sim = d.sim();
    sim.net.add_stage(FWD_BNECK, Box::new(MarkThenBlackout { seen: 0 }));
    let ss0 = sim.tcp_sender(0).unwrap().st.ssthresh;
    while sim.tcp_sender(0).unwrap().st.ssthresh == ss0 {
        assert!(step(&mut sim));
    }
    let ss = sim.tcp_sender(0).unwrap().st.ssthresh;
    while sim.tcp_sender(0).unwrap().stats.timeouts == 0 {
        assert!(step(&mut sim), "the blackout ends in a timeout");
    }
    let s = sim.tcp_sender(0).unwrap();
    assert_eq!(s.st.cwnd, 1.0);
    assert_eq!(s.st.ssthresh, ss, "ssthresh kept from the ECE reduction");
    let r = sim.run();
    assert_conserved(&r);
}

/// Per data segment seen leaving the bottleneck: (first copies, repeat
/// copies) split by whether the copy was ECT.
#[derive(Default)]
struct EctBySend {
    seen: std::collections::HashSet<(u32, u64)>,
    first_ect: u64,
    repeat_ect: u64,
    repeat_not_ect: u64,
}

impl ccsim_core::net::tap::Tap for EctBySend {
    fn on_event(
        &mut self,
        ev: ccsim_core::net::tap::TapEvent,
        _now: ccsim_core::sim::Time,
        _link: u32,
        p: &ccsim_core::net::Packet,
    ) {
        if ev != ccsim_core::net::tap::TapEvent::Enqueue || p.is_ack() {
            return;
        }
        let Some(h) = p.tcp() else { return };
        let ect = p.ecn.is_ect() || p.ecn == ccsim_core::net::packet::Ecn::Ce;
        if self.seen.insert((p.flow, h.seq)) {
            self.first_ect += ect as u64;
        } else if ect {
            self.repeat_ect += 1;
        } else {
            self.repeat_not_ect += 1;
        }
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[test]
fn retransmissions_are_not_ect_unless_ns2_style_is_asked_for() {
    // A marking RED queue whose buffer the flows overflow: drops force
    // retransmissions. RFC 3168 §6.1.5 sends them Not-ECT; ns-2's
    // TcpAgent::output (ecn_retransmit_ect = true) sends them ECT.
    let q = "limit_pkts = 30, min_th_pkts = 5, max_th_pkts = 15, bytes = false, w_q = 0.002, ecn = true";
    let mut counts = vec![];
    for extra in ["ecn = true", "ecn = true\necn_retransmit_ect = true"] {
        let mut s = sim(&dumbbell(8, q, extra, 20.0));
        s.add_tap(FWD_BNECK, Box::new(EctBySend::default()));
        let r = s.run();
        assert_conserved(&r);
        let t = s.net.links[FWD_BNECK].tap::<EctBySend>().unwrap();
        assert!(t.first_ect > 1000, "new data leaves ECT");
        assert!(t.repeat_ect + t.repeat_not_ect > 10, "the 30-packet buffer forces retransmissions");
        counts.push((t.repeat_ect, t.repeat_not_ect));
    }
    assert_eq!(counts[0].0, 0, "RFC 3168: no retransmission is ECT");
    assert_eq!(counts[1].1, 0, "ns-2: every retransmission is ECT");
    let bad = Scenario::from_toml(&dumbbell(1, q, "ecn_retransmit_ect = true", 5.0));
    let e = bad.expect_err("needs ecn").to_string();
    assert!(e.contains("flows[0].ecn_retransmit_ect") && e.contains("ecn = true"), "{e}");
}

#[test]
fn ns2_ecn_response_halves_the_window_within_rwnd() {
    // ns-2 TcpAgent::ecn -> slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF):
    // cwnd = windowd()/2 = min(cwnd, rwnd)/2 (precisionReduce_), ssthresh
    // its integer part; the fractional case is a unit test in tcp/sender/ns2_ecn_tests.rs.
    let d = Dumbbell::new(100e6, 1000, 10.0).flow("ecn = true\necn_response = \"ns2\"\nrtt_s = 0.05\nrwnd_pkts = 200");
    let mut sim = d.sim();
    sim.net.add_stage(FWD_BNECK, Box::new(MarkNth { nth: 3000, seen: 0 }));
    let ss0 = sim.tcp_sender(0).unwrap().st.ssthresh;
    let mut before = 0.0;
    while sim.tcp_sender(0).unwrap().st.ssthresh == ss0 {
        before = sim.tcp_sender(0).unwrap().st.cwnd;
        assert!(step(&mut sim), "the mark is echoed and acted on");
    }
    let s = sim.tcp_sender(0).unwrap();
    let half = before.min(200.0) / 2.0;
    assert!(before > 200.0, "slow start took cwnd past rwnd, so window() is rwnd: {before}");
    assert_eq!((s.st.cwnd, s.st.ssthresh), (half, half));
    assert_eq!(half, 100.0);
}

/// Marks CE on every ECN-capable packet.
struct MarkAll;

impl ccsim_core::net::stage::Stage for MarkAll {
    fn name(&self) -> &'static str {
        "mark_all"
    }
    fn on_enqueue(
        &mut self,
        ctx: &mut ccsim_core::net::LinkCtx,
        pkt: &mut ccsim_core::net::Packet,
    ) -> ccsim_core::net::stage::Verdict {
        if pkt.ecn.is_ect() {
            pkt.ecn = ccsim_core::net::packet::Ecn::Ce;
            ctx.count_mark(pkt);
        }
        ccsim_core::net::stage::Verdict::Pass
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

#[test]
fn ns2_ecn_response_closes_a_one_segment_window_and_only_the_timer_reopens_it() {
    // Every packet marked: RFC 3168's cut floors cwnd at 2 segments and the
    // flow keeps sending each RTT; ns-2's halves 1 to 0, and only the
    // retransmission timer (backed off by later ECEs) lets a packet out.
    // (ns-2.35 halves unrounded, `precisionReduce_`: 1 -> 0.5, window 0.)
    let mut out = vec![];
    for resp in ["rfc3168", "ns2"] {
        let flow = format!("ecn = true\necn_response = \"{resp}\"\nrtt_s = 0.05\nrwnd_pkts = 200");
        let d = Dumbbell::new(100e6, 1000, 10.0).flow(&flow);
        let mut sim = d.sim();
        sim.net.add_stage(FWD_BNECK, Box::new(MarkAll));
        let (mut min_cwnd, mut max_backoff) = (f64::MAX, 0);
        while step(&mut sim) {
            if sim.now_s() > 1.0 {
                let s = sim.tcp_sender(0).unwrap();
                min_cwnd = min_cwnd.min(s.st.cwnd);
                max_backoff = max_backoff.max(s.rtt.backoff);
            }
        }
        let r = sim.results();
        assert_conserved(&r);
        assert_eq!(r.links[FWD_BNECK].drops, 0);
        out.push((min_cwnd, max_backoff, r.flows[0].delivered_bytes));
    }
    let ((rfc_min, rfc_bo, rfc_bytes), (ns2_min, ns2_bo, ns2_bytes)) = (out[0], out[1]);
    assert_eq!((rfc_min, rfc_bo), (2.0, 0), "RFC 3168 floor, no timer involved");
    assert_eq!(ns2_min, 0.5, "ns-2 closes the window");
    assert!(ns2_bo >= 2, "ECEs at a one-segment window back the timer off: {ns2_bo}");
    assert!(ns2_bytes > 0 && ns2_bytes * 4 < rfc_bytes, "paused by the timer: {ns2_bytes} vs {rfc_bytes}");
}

/// Per flow and codepoint, the new data segments seen entering the
/// bottleneck, and the retransmissions by codepoint.
#[derive(Default)]
struct Codepoints {
    new: std::collections::BTreeMap<(u32, &'static str), u64>,
    retx: std::collections::BTreeMap<&'static str, u64>,
}

impl ccsim_core::net::tap::Tap for Codepoints {
    fn on_event(
        &mut self,
        ev: ccsim_core::net::tap::TapEvent,
        _now: ccsim_core::sim::Time,
        _link: u32,
        p: &ccsim_core::net::Packet,
    ) {
        use ccsim_core::net::packet::Ecn;
        if ev != ccsim_core::net::tap::TapEvent::Enqueue || p.is_ack() {
            return;
        }
        let Some(h) = p.tcp() else { return };
        let name = match p.ecn {
            Ecn::NotEct => "not-ect",
            Ecn::Ect0 => "ect0",
            Ecn::Ect1 => "ect1",
            Ecn::Ce => "ce",
        };
        if h.retx {
            *self.retx.entry(name).or_default() += 1;
        } else {
            *self.new.entry((p.flow, name)).or_default() += 1;
        }
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[test]
fn ect1_flows_send_ect1_data_and_not_ect_retransmissions() {
    // Two ECN flows, the first with ect = "ect1", through a marking RED
    // whose small buffer forces retransmissions.
    let q = "limit_pkts = 30, min_th_pkts = 5, max_th_pkts = 15, bytes = false, w_q = 0.002, ecn = true";
    let t = dumbbell(1, q, "ecn = true\nect = \"ect1\"", 20.0)
        + "[[flows]]\ncc = \"reno\"\nmss_bytes = 1000\nheader_bytes = 40\nrtt_s = 0.05\necn = true\n";
    let mut s = sim(&t);
    s.add_tap(FWD_BNECK, Box::new(Codepoints::default()));
    let r = s.run();
    assert_conserved(&r);
    let c = s.net.links[FWD_BNECK].tap::<Codepoints>().unwrap();
    let keys: Vec<(u32, &str)> = c.new.keys().copied().collect();
    assert_eq!(keys, [(0, "ect1"), (1, "ect0")], "{:?}", c.new);
    assert!(c.new[&(0, "ect1")] > 1000 && r.links[FWD_BNECK].marks > 0);
    // RFC 3168 §6.1.5 holds for either codepoint
    assert!(c.retx.keys().all(|&k| k == "not-ect") && c.retx["not-ect"] > 10, "{:?}", c.retx);
    // normalisation spells the default out
    let norm: serde_json::Value = serde_json::from_str(&Scenario::from_toml(&t).unwrap().to_json()).unwrap();
    assert_eq!((norm["flows"][0]["ect"].as_str(), norm["flows"][1]["ect"].as_str()), (Some("ect1"), Some("ect0")));
    // errors name the field, the value and what is allowed
    let e = Scenario::from_toml(&dumbbell(1, q, "ecn = true\nect = \"ect2\"", 5.0)).expect_err("ect2").to_string();
    assert!(e.contains("flows[0].ect") && e.contains("\"ect2\"") && e.contains("\"ect0\" or \"ect1\""), "{e}");
    let e = Scenario::from_toml(&dumbbell(1, q, "ect = \"ect1\"", 5.0)).expect_err("ect1 without ecn").to_string();
    assert!(e.contains("flows[0].ect") && e.contains("\"ect1\" needs ecn = true"), "{e}");
    assert!(Scenario::from_toml(&dumbbell(1, q, "ect = \"ect0\"", 5.0)).is_ok());
}

#[test]
fn ns2_ecn_response_is_renos_halving_only() {
    let q = "limit_pkts = 30, ecn = true";
    let cubic = dumbbell(1, q, "ecn = true\necn_response = \"ns2\"", 5.0).replace("cc = \"reno\"", "cc = \"cubic\"");
    let e = Scenario::from_toml(&cubic).expect_err("ns2 response with CUBIC").to_string();
    assert!(e.contains("flows[0].ecn_response") && e.contains("cc = \"reno\""), "{e}");
    assert!(Scenario::from_toml(&dumbbell(1, q, "ecn = true\necn_response = \"ns2\"", 5.0)).is_ok());
}

#[test]
fn ns2_singledup_needs_limited_transmit() {
    let q = "limit_pkts = 30";
    let bad = Scenario::from_toml(&dumbbell(1, q, "ns2_singledup = true\nlimited_transmit = false", 5.0));
    let e = bad.expect_err("singledup without limited transmit").to_string();
    assert!(e.contains("flows[0].ns2_singledup") && e.contains("limited_transmit = true"), "{e}");
    assert!(Scenario::from_toml(&dumbbell(1, q, "ns2_singledup = true", 5.0)).is_ok());
}

#[test]
fn ns2_dupwnd_needs_reno_recovery() {
    let q = "limit_pkts = 30";
    let bad = Scenario::from_toml(&dumbbell(1, q, "ns2_dupwnd = true\nrecovery = \"sack\"", 5.0));
    let e = bad.expect_err("ns2_dupwnd with SACK").to_string();
    assert!(
        e.contains("flows[0].ns2_dupwnd") && e.contains("recovery = \"reno\" or \"newreno\"") && e.contains("\"sack\""),
        "{e}"
    );
    for rec in ["reno", "newreno"] {
        let ok = dumbbell(1, q, &format!("ns2_dupwnd = true\nrecovery = \"{rec}\""), 5.0);
        assert!(Scenario::from_toml(&ok).is_ok(), "{rec}");
    }
}
