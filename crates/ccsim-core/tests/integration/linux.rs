//! The `linux` personality (RACK-TLP, PRR with Linux's RecoverFS, its RTO)
//! in whole runs: what a correct TCP keeps whatever its rules.
use crate::common;
use ccsim_core::Scenario;
use common::*;

/// A RACK-timer entry into recovery (`tcp_rack_reo_timeout`) with PRR:
/// Linux's RecoverFS is cwnd at the reduction's start (`prior_cwnd`). One
/// taken from the last ACK's SACK count instead, stale once a cumulative
/// ACK has moved una past the SACKed data, fell to one segment, PRR's
/// proportional share then grew without bound and the sender sent at its
/// pacer's rate into a 100 Mb/s link (fuzz seed 1, case 2327: 10 million
/// segments in 3.5 s, 5.6 million retransmitted). Every retransmission here
/// repairs a drop, and no more goes out than the link carries.
#[test]
fn prr_after_a_rack_timer_entry_is_bounded() {
    for cc in ["reno", "ltcp", "cubic"] {
        let doc = format!(
            "name = \"rack-timer-prr\"\nseed = 382914921\nduration_s = 3.5\n\
             [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 1e8\nbottleneck_delay_s = 0.018\n\
             bottleneck_queue = {{ kind = \"dualpi2\", limit_pkts = 1575 }}\n\
             [[flows]]\ntcp_model = \"linux\"\ncc = \"{cc}\"\ndelayed_ack = false\ninit_cwnd_pkts = 2\n\
             pacing = \"token_bucket\"\nbucket_pkts = 2\nrtt_s = 0.131\n"
        );
        let r = run(&Scenario::from_toml(&doc).unwrap());
        assert_conserved(&r);
        let f = &r.flows[0];
        let drops: u64 = r.links.iter().map(|l| l.drops).sum();
        assert!(f.retransmits <= drops + f.timeouts, "{cc}: {} retransmissions, {drops} drops", f.retransmits);
        // 100 Mb/s of 1040-byte packets for 3.5 s: 42,067 at most
        let capacity = 1e8 * 3.5 / (8.0 * 1040.0);
        assert!((f.data_pkts_sent as f64) < 1.1 * capacity + 2000.0, "{cc}: {} segments sent", f.data_pkts_sent);
    }
}

/// The persist timer (RFC 9293 §3.8.6.1, Linux `tcp_probe_timer`): data
/// written behind a zero window goes out only as probes, the first
/// max(RTO, 200 ms) after the write, each next one twice as late; the ACK
/// that opens the window stops them and lets the data out at once.
#[test]
fn zero_window_probes_back_off_and_stop_when_the_window_opens() {
    use ccsim_core::transport::tcp::replay::Replay;
    let mut r = Replay::new(serde_json::json!({"tcp_model": "linux"})).unwrap();
    r.handshake_rtt(0.1);
    r.write(0.0, 4);
    r.ack(0.1, 4, &[], false, Some(10));
    let rto = r.info().rto_us as f64 / 1e6;
    assert!(rto >= 0.2);
    r.ack(0.1, 4, &[], false, Some(0));
    r.write(0.1, 5);
    r.advance(0.1 + 7.0 * rto + 0.01);
    let sent = r.take_sent();
    let probes: Vec<f64> = sent.iter().filter(|s| s.3).map(|s| s.0).collect();
    assert!(sent.iter().skip(4).all(|s| s.3), "only probes behind a zero window: {sent:?}");
    let want = [0.1 + rto, 0.1 + 3.0 * rto, 0.1 + 7.0 * rto];
    assert_eq!(probes.len(), 3, "{probes:?}");
    for (p, w) in probes.iter().zip(want) {
        assert!((p - w).abs() < 1e-6, "probes at {probes:?}, want {want:?}");
    }
    // each probe repeats the byte below SND.UNA
    assert!(sent.iter().filter(|s| s.3).all(|s| s.1 == 3));
    let t = 0.1 + 7.0 * rto + 0.05;
    r.ack(t, 4, &[], false, Some(10));
    let after = r.take_sent();
    assert_eq!(after.iter().map(|s| s.1).collect::<Vec<_>>(), vec![4, 5, 6, 7, 8], "{after:?}");
    assert!(after.iter().all(|s| !s.3 && (s.0 - t).abs() < 1e-9));
    // the window stays open: no probe follows
    r.advance(t + 100.0);
    assert!(r.take_sent().iter().all(|s| !s.3));
}

/// Linux's TSO autosizing (`tcp_tso_autosize`) under the `linux`
/// personality's pacing: a paced BBR flow releases transmissions of about
/// 1 ms of data at its pacing rate (at 1 Gb/s the 64 KB GSO limit: 65
/// segments of 1000 bytes), not single segments; each leaves at the edge
/// link's 10 Gb/s, so a 1 Gb/s bottleneck with a small buffer sees line-rate
/// bursts that segment-by-segment pacing never sends. (The receiver ACKs
/// every segment above a hole, `sack_compression = false`: the subject is
/// the sender's transmissions, not the recovery's ACK clock.)
#[test]
fn tso_autosize_sends_paced_transmissions_of_about_a_millisecond() {
    let run_traced = |tso: bool| {
        let doc = format!(
            "name = \"tso\"\nseed = 1\nduration_s = 3.0\n\
             [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 1e9\nbottleneck_delay_s = 0.005\n\
             edge_rate_bps = 1e10\nbottleneck_queue = {{ limit_pkts = 100 }}\n\
             [[flows]]\ntcp_model = \"linux\"\ncc = \"bbr\"\nrtt_s = 0.02\ntso_autosize = {tso}\n\
             sack_compression = false\n"
        );
        let mut sim = ccsim_core::Simulation::new(&Scenario::from_toml(&doc).unwrap()).unwrap();
        sim.enable_send_trace(0);
        sim.run();
        let r = finish(&sim);
        assert_conserved(&r);
        let tr = sim.send_trace(0).to_vec();
        (r, tr)
    };
    // the largest number of departures at one instant after the start-up
    let max_burst = |tr: &[ccsim_core::transport::tcp::sender::SendRecord]| {
        let late: Vec<_> = tr.iter().filter(|r| r.time > ccsim_core::sim::time::from_secs(0.5)).collect();
        let (mut best, mut cur) = (1, 1);
        for w in late.windows(2) {
            cur = if w[1].time == w[0].time { cur + 1 } else { 1 };
            best = best.max(cur);
        }
        best
    };
    let (on, tr_on) = run_traced(true);
    let (off, tr_off) = run_traced(false);
    let (b_on, b_off) = (max_burst(&tr_on), max_burst(&tr_off));
    eprintln!(
        "tso: max burst {b_on}, drops {}, goodput {:.3}; segment pacing: max burst {b_off}, drops {}, goodput {:.3}",
        on.links[0].drops,
        on.flows[0].goodput_bps / 1e9,
        off.links[0].drops,
        off.flows[0].goodput_bps / 1e9
    );
    assert!((30..=65).contains(&b_on), "TSO-sized transmissions: {b_on}");
    assert_eq!(b_off, 1, "one segment per paced transmission");
    assert!(on.links[0].drops > off.links[0].drops, "line-rate bursts overflow the small buffer more often");
    assert!(on.flows[0].goodput_bps > 0.8e9 && off.flows[0].goodput_bps > 0.8e9);
}

/// An unpaced Linux sender (`tso_autosize` without pacing, what the
/// personality gives CUBIC and Reno) defers an skb its window cannot fill
/// while an ACK is due (`tcp_tso_should_defer`): in congestion avoidance
/// at 50 Mb/s and 80 ms its ACK clock releases bursts of 4 segments at one
/// instant, `tcp_tso_autosize`'s ~1 ms at 1.2·cwnd/srtt; the kernel's data
/// reach the emulated bottleneck so (validation/linux_kernel.py: 868 of
/// 1142 bursts of 4 in a second of Reno at this rate). Without TSO each
/// ACK releases what it opened: one to three segments. (Without the
/// receiver's SACK compression, as above.)
#[test]
fn unpaced_tso_defers_to_bursts_of_a_millisecond() {
    let run_traced = |tso: bool| {
        let doc = format!(
            "name = \"tso-defer\"\nseed = 1\nduration_s = 3.0\n\
             [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 5e7\nbottleneck_delay_s = 0.0\n\
             edge_rate_bps = 1e10\nbottleneck_queue = {{ limit_pkts = 167 }}\n\
             [[flows]]\ntcp_model = \"linux\"\ncc = \"reno\"\nrtt_s = 0.08\nmss_bytes = 1448\n\
             tso_autosize = {tso}\nsack_compression = false\n"
        );
        let mut sim = ccsim_core::Simulation::new(&Scenario::from_toml(&doc).unwrap()).unwrap();
        sim.enable_send_trace(0);
        sim.run();
        let r = finish(&sim);
        assert_conserved(&r);
        (r, sim.send_trace(0).to_vec())
    };
    // the sizes of the groups of segments sent at one instant, 1.5-2.5 s
    let bursts = |tr: &[ccsim_core::transport::tcp::sender::SendRecord]| {
        use ccsim_core::sim::time::from_secs;
        let late: Vec<_> = tr.iter().filter(|r| r.time > from_secs(1.5) && r.time < from_secs(2.5)).collect();
        let mut sizes = vec![1u32];
        for w in late.windows(2) {
            if w[1].time == w[0].time {
                *sizes.last_mut().unwrap() += 1;
            } else {
                sizes.push(1);
            }
        }
        sizes
    };
    let (on, tr_on) = run_traced(true);
    let (off, tr_off) = run_traced(false);
    let (b_on, b_off) = (bursts(&tr_on), bursts(&tr_off));
    let fours = b_on.iter().filter(|&&b| b == 4).count();
    assert!(fours * 10 >= b_on.len() * 9, "bursts of 4: {fours} of {}", b_on.len());
    let mut hist = std::collections::BTreeMap::new();
    for b in &b_off {
        *hist.entry(*b).or_insert(0) += 1;
    }
    eprintln!("with TSO: {fours} of {} bursts of 4; without: {hist:?}", b_on.len());
    assert!(b_off.iter().all(|&b| b <= 3), "per ACK: {hist:?}");
    // the same window, in bursts: goodput and losses alike
    assert!(on.flows[0].goodput_bps > 0.85 * off.flows[0].goodput_bps);
    assert!(on.flows[0].goodput_bps > 40e6 && off.flows[0].goodput_bps > 40e6);
}

/// A paced Linux sender defers too (`tcp_write_xmit` asks
/// `tcp_tso_should_defer` once the pacer lets an skb go), and its "last
/// write" is `tcp_wstamp_ns`, which pacing moves on to the next departure
/// (`tcp_update_skb_after_send`). Two BBR flows at 10 Mb/s and 80 ms with
/// a 4-BDP buffer keep a standing queue and are cwnd-limited, and their
/// receivers ACK every segment: each ACK opens one segment. The sender
/// then waits for the next ACK to send a whole transmission of 2 (the TSO
/// goal) while that ACK is due within a millisecond; one comes every 1.2
/// ms at this rate, so about half of the transmissions are pairs. Measured
/// from the last send instead of the next departure, the 1 ms rule lets
/// nearly every opening go alone (24% pairs). On the kernel peer's BBR
/// scenario (4 flows, 10 Mb/s, 80 ms) the rule gives the flows' losses
/// at Startup's first overflow the kernel's split.
#[test]
fn paced_tso_defers_from_the_next_departure() {
    let flow = |start: f64| {
        format!(
            "[[flows]]\ntcp_model = \"linux\"\ncc = \"bbr\"\nrtt_s = 0.08\nmss_bytes = 1448\n\
             delayed_ack = false\nstart_s = {start:?}\n"
        )
    };
    let doc = format!(
        "name = \"bbr-defer\"\nseed = 1\nduration_s = 5.0\n\
         [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 1e7\nbottleneck_delay_s = 0.0\n\
         edge_rate_bps = 1e10\nbottleneck_queue = {{ limit_pkts = 300 }}\n{}{}",
        flow(0.0),
        flow(0.001)
    );
    let mut sim = ccsim_core::Simulation::new(&Scenario::from_toml(&doc).unwrap()).unwrap();
    sim.enable_send_trace(0);
    sim.run();
    let r = finish(&sim);
    assert_conserved(&r);
    // flow 0's transmissions of new data after Startup, by size
    let mut high = 0;
    let mut sizes: Vec<(ccsim_core::sim::Time, u32, bool)> = vec![];
    for x in sim.send_trace(0).iter().filter(|x| x.time > ccsim_core::sim::time::from_secs(3.0)) {
        let new = x.seq >= high;
        high = high.max(x.seq + 1);
        match sizes.last_mut() {
            Some(g) if g.0 == x.time => g.1 += 1,
            _ => sizes.push((x.time, 1, new)),
        }
    }
    let new: Vec<u32> = sizes.iter().filter(|g| g.2).map(|g| g.1).collect();
    let pairs = new.iter().filter(|&&n| n == 2).count();
    eprintln!("{pairs} pairs of {} transmissions", new.len());
    assert!(new.len() > 300 && new.iter().all(|&n| n <= 2), "{new:?}");
    assert!(pairs * 10 >= new.len() * 4, "{pairs} pairs of {}", new.len());
}

/// Linux's GSO sender (`tso_autosize`, unpaced Reno at 10 Mb/s and 20 ms,
/// the kernel peer's `reno-1-10m-20ms-1bdp`): `tcp_write_xmit` cuts
/// transmissions from the write queue, and `__tcp_transmit_skb` puts PSH
/// on the last segment of each transmission of more than one, never on a
/// lone segment or inside one. In congestion avoidance most transmissions
/// are the 2 segments an ACK of two releases; a window that grew by one
/// sends a third alone, and the kernel's wire shows the same mix (86.9%
/// of PSH flags one segment apart, 11.5% two, 0.7% three, tcpdump on the
/// kernel peer's receiver; Linux's receiver answers each PSH at once, a
/// unit test of `receiver`).
#[test]
fn psh_ends_each_multi_segment_transmission() {
    let doc = "name = \"psh\"\nseed = 1\nduration_s = 3.0\n\
               [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 1e7\nbottleneck_delay_s = 0.0\n\
               edge_rate_bps = 1e10\nbottleneck_queue = { limit_pkts = 17 }\n\
               [[flows]]\ntcp_model = \"linux\"\ncc = \"reno\"\nrtt_s = 0.02\nmss_bytes = 1448\n";
    let mut sim = ccsim_core::Simulation::new(&Scenario::from_toml(doc).unwrap()).unwrap();
    sim.enable_send_trace(0);
    sim.run();
    assert_conserved(&finish(&sim));
    use ccsim_core::sim::time::from_secs;
    let tr: Vec<_> = sim.send_trace(0).iter().filter(|r| r.time > from_secs(0.35) && !r.probe).copied().collect();
    // segments sent at one instant, in order: one or more transmissions,
    // each of several segments ending in PSH, or a lone one without
    let mut groups: Vec<Vec<ccsim_core::transport::tcp::sender::SendRecord>> = vec![];
    for r in tr {
        match groups.last_mut() {
            Some(g) if g[0].time == r.time && g.last().unwrap().seq + 1 == r.seq => g.push(r),
            _ => groups.push(vec![r]),
        }
    }
    let (mut multi, mut single) = (0, 0);
    for g in &groups {
        let mut run = 0;
        for r in g {
            run += 1;
            if r.psh {
                assert!(run > 1, "PSH on a lone segment: {g:?}");
                multi += 1;
                run = 0;
            }
        }
        assert!(run <= 1, "{run} segments after the last PSH: {g:?}");
        single += run;
    }
    assert!(multi > 500 && single > 20, "{multi} transmissions of several segments, {single} lone ones");
    // PSH flags one, two or three segments apart, as on the kernel's wire
    let pushed: Vec<u64> = groups.iter().flatten().filter(|r| r.psh).map(|r| r.seq).collect();
    let gaps: Vec<u64> = pushed.windows(2).map(|w| w[1] - w[0]).collect();
    let share = |d: u64| gaps.iter().filter(|&&g| g == d).count() as f64 / gaps.len() as f64;
    assert!(share(2) > 0.8 && share(3) > 0.05 && share(3) < 0.2, "gaps of 2: {}, 3: {}", share(2), share(3));
}
