//! `txqueuelen_pkts`: the sending host's interface queue (Linux
//! `txqueuelen`). A TCP segment that does not fit is held in the sender,
//! which enters CWR at most once per window; a UDP datagram that does not
//! fit is dropped there and counted; conservation holds throughout.
use crate::common;
use ccsim_core::{Results, Scenario, Simulation};
use common::*;

/// Links of [`host`]: 0 snd->nic (the interface, `local_bps`), 1 nic->snd,
/// 2 nic->rcv (the wire, 1 Gb/s, 10 ms), 3 rcv->nic.
const IFACE: usize = 0;
const WIRE: usize = 2;

/// One sending host whose interface (`local_bps`, no delay) feeds a 1 Gb/s
/// wire of 10 ms each way (RTT 20 ms): with the interface slower than the
/// wire, its queue is the only place a queue can form.
fn host(local_bps: f64, duration_s: f64, warmup_s: f64, flows: &[&str]) -> String {
    let mut s = format!(
        "name = \"txq\"\nduration_s = {duration_s:?}\nwarmup_s = {warmup_s:?}\n[topology]\nkind = \"custom\"\n\
         nodes = [\"snd\", \"nic\", \"rcv\"]\nlinks = [\n\
         {{ from = \"snd\", to = \"nic\", rate_bps = {local_bps:?}, delay_s = 0.0, queue = {{ limit_pkts = 100000 }}, monitor = true }},\n\
         {{ from = \"nic\", to = \"rcv\", rate_bps = 1e9, delay_s = 0.01, queue = {{ limit_pkts = 100000 }}, monitor = true }},\n]\n"
    );
    for f in flows {
        s.push_str("[[flows]]\nroute = [\"snd\", \"nic\", \"rcv\"]\n");
        s.push_str(f);
        s.push('\n');
    }
    s
}

fn scenario(toml: &str) -> Scenario {
    Scenario::from_toml(&common::classic_toml(toml)).unwrap_or_else(|e| panic!("test scenario rejected: {e}\n{toml}"))
}

const TCP: &str = "cc = \"reno\"\nrecovery = \"sack\"\ntxqueuelen_pkts = 100\n";

fn no_tcp_loss(r: &Results) {
    for f in r.flows.iter().filter(|f| f.transport == "tcp") {
        assert_eq!((f.retransmits, f.timeouts, f.fast_recoveries), (0, 0, 0), "flow {}", f.id);
    }
}

#[test]
fn tcp_runs_loss_free_at_the_interface_rate_with_the_queue_as_its_only_bottleneck() {
    // The queue holds more than the BDP (100 Mb/s x 20 ms = 240 packets of
    // 1040 bytes), so Reno's halved window still fills the path.
    for n in [1, 4] {
        let body = format!("{}count = {n}\nstart_spread_s = 0.01\n", TCP.replace("100", "300"));
        let mut sim = Simulation::new(&scenario(&host(100e6, 30.0, 5.0, &[&body]))).unwrap();
        let r = sim.run();
        assert_conserved(&r);
        // nothing is ever dropped: not at the interface, nowhere else
        assert_eq!(r.conservation.dropped, 0, "{n} flows");
        assert_eq!(r.links[IFACE].drops, 0);
        no_tcp_loss(&r);
        assert!(r.links[IFACE].max_queue_pkts <= 300, "the interface holds at most txqueuelen");
        assert_eq!(r.links[WIRE].max_queue_pkts, 0, "the wire never queues");
        // local congestion is what limits the senders
        for f in 0..n {
            let s = sim.tcp_sender(f).unwrap();
            assert!(s.stats.local_cwrs > 0 && s.stats.local_holds >= s.stats.local_cwrs, "flow {f}");
        }
        // the interface stays busy: utilisation ~ 1 after the warm-up,
        // goodput the payload share of 100 Mb/s (1000 of 1040 bytes)
        let u = r.links[IFACE].utilization;
        assert!(u > 0.99, "{n} flows: utilisation {u}");
        let g: f64 = r.flows.iter().map(|f| f.goodput_bps).sum();
        let cap = 100e6 * 1000.0 / 1040.0;
        assert!((g - cap).abs() / cap < 0.01, "{n} flows: goodput {g} vs {cap}");
    }
}

#[test]
fn the_sender_enters_cwr_at_most_once_per_round_trip() {
    // Four flows share the interface with on/off UDP above its rate: while
    // UDP is on, the queue stays full whatever the TCP flows do, so their
    // sends are held again and again inside each CWR round; each flow must
    // still reduce only once per round trip. (An ACK-clocked flow alone
    // rarely meets a full queue twice in a round: each ACK frees a slot.)
    let body = format!("{TCP}count = 4\nstart_spread_s = 0.01\n");
    let udp = "transport = \"udp\"\nrate_bps = 110e6\non_s = 1.0\noff_s = 1.0\nstart_s = 1.0\ntxqueuelen_pkts = 100\n";
    let mut sim = Simulation::new(&scenario(&host(100e6, 10.0, 0.0, &[&body, udp]))).unwrap();
    let mut cwrs = [0u64; 4];
    let mut last = [f64::NEG_INFINITY; 4];
    let mut entries = 0;
    let mut cwnd_before: Vec<f64> = (0..4).map(|f| sim.tcp_sender(f).unwrap().st.cwnd).collect();
    while step(&mut sim) {
        let now = ccsim_core::sim::time::to_secs(sim.net.now);
        for f in 0..4 {
            let s = sim.tcp_sender(f as u32).unwrap();
            if s.stats.local_cwrs > cwrs[f] {
                assert_eq!(s.stats.local_cwrs, cwrs[f] + 1, "one entry per event instant");
                cwrs[f] = s.stats.local_cwrs;
                // the window of the last entry is acknowledged only a round
                // trip (20 ms of propagation) after it was sent
                let gap = now - last[f];
                assert!(gap >= 0.02, "flow {f}: CWR at {now}, only {gap} s after the last");
                // Reno's reduction: ssthresh = max(FlightSize/2, 2), the
                // flight at most the window it had + 2 (Limited Transmit)
                let bound = (cwnd_before[f] + 2.0).max(4.0) / 2.0;
                assert!(s.st.ssthresh <= bound, "ssthresh {} cwnd before {}", s.st.ssthresh, cwnd_before[f]);
                last[f] = now;
                entries += 1;
            }
            cwnd_before[f] = s.st.cwnd;
        }
    }
    let held: u64 = (0..4).map(|f| sim.tcp_sender(f).unwrap().stats.local_holds).sum();
    assert!(entries >= 12 && held > 2 * entries as u64, "{entries} CWR entries, {held} holds");
    let r = finish(&sim);
    // UDP's overflow is the only loss
    assert!(r.links.iter().enumerate().all(|(i, l)| i == IFACE || l.drops == 0));
    no_tcp_loss(&r);
}

#[test]
fn udp_overflow_at_the_interface_is_dropped_and_counted() {
    // twice the interface's rate: half the datagrams find it full
    let udp = "transport = \"udp\"\nrate_bps = 20.8e6\nmss_bytes = 1000\nheader_bytes = 40\nstop_s = 5.0\n\
               txqueuelen_pkts = 50\n";
    let r = run(&scenario(&host(10.4e6, 6.0, 0.0, &[udp])));
    let l = &r.links[IFACE];
    let frac = l.drops as f64 / l.arrivals as f64;
    assert!((frac - 0.5).abs() < 0.01, "drop fraction {frac}");
    assert_eq!(r.conservation.dropped, l.drops, "every drop is at the interface");
    assert_eq!(l.max_queue_pkts, 50);
    assert_eq!(r.conservation.in_flight, 0, "all delivered or dropped 1 s after the stop");
}

#[test]
fn tcp_beside_udp_on_one_interface_loses_nothing_while_udp_overflows() {
    // UDP at 60% of the interface, TCP takes the rest; only UDP is dropped
    // (a queue above the BDP again, so TCP's reductions leave it busy)
    let udp = "transport = \"udp\"\nrate_bps = 60e6\nmss_bytes = 1000\nheader_bytes = 40\ntxqueuelen_pkts = 300\n";
    let tcp = TCP.replace("100", "300");
    let mut sim = Simulation::new(&scenario(&host(100e6, 30.0, 5.0, &[&tcp, udp]))).unwrap();
    let r = sim.run();
    assert_conserved(&r);
    no_tcp_loss(&r);
    assert!(r.links[IFACE].drops > 0, "UDP met a full queue");
    assert!(r.links.iter().enumerate().all(|(i, l)| i == IFACE || l.drops == 0), "drops only at the interface");
    let tcp = &r.flows[0];
    let udp = &r.flows[1];
    assert_eq!(tcp.transport, "tcp");
    // the datagrams TCP's held segments crowd out are lost for good; UDP
    // keeps most of its rate and the interface stays busy
    assert!(udp.throughput_bps > 0.8 * 60e6, "udp {}", udp.throughput_bps);
    assert!(r.links[IFACE].utilization > 0.99, "utilisation {}", r.links[IFACE].utilization);
    assert!(sim.tcp_sender(0).unwrap().stats.local_cwrs > 0);
}

#[test]
fn a_held_segment_with_nothing_outstanding_is_retried_by_the_timer() {
    // UDP at 1.3 times the interface's rate keeps its queue full; the
    // TCP flow starts later, so its first segment finds no room and
    // nothing outstanding to clock a retry: the timer must send it.
    let udp = "transport = \"udp\"\nrate_bps = 13e6\nmss_bytes = 1000\nheader_bytes = 40\ntxqueuelen_pkts = 20\n";
    let tcp = format!("{}start_s = 1.0\n", TCP.replace("100", "20"));
    let mut sim = Simulation::new(&scenario(&host(10e6, 20.0, 0.0, &[&tcp, udp]))).unwrap();
    let r = sim.run();
    assert_conserved(&r);
    no_tcp_loss(&r);
    let s = sim.tcp_sender(0).unwrap();
    assert!(s.stats.local_holds > 0);
    assert!(r.flows[0].delivered_bytes > 0, "the TCP flow got segments through");
}

#[test]
fn without_the_option_the_same_host_loses_packets_at_its_interface() {
    // the control: the option is what turns the interface's drops into
    // back-pressure (the interface queue is then the topology's 100,000
    // packets, so make the wire the bottleneck's twin: a small queue)
    let toml = host(100e6, 10.0, 0.0, &["cc = \"reno\"\nrecovery = \"sack\"\n"]).replace(
        "rate_bps = 100000000.0, delay_s = 0.0, queue = { limit_pkts = 100000 }",
        "rate_bps = 100000000.0, delay_s = 0.0, queue = { limit_pkts = 100 }",
    );
    let r = run(&scenario(&toml));
    assert!(r.links[IFACE].drops > 0);
    assert!(r.flows[0].retransmits > 0);
}

#[test]
fn senders_without_local_congestion_meet_the_queue_as_any_packet() {
    // A Sack1 flow (ns-2's agent keeps its own send state) and an E-TCP
    // flow share the interface of a TCP flow that gives txqueuelen_pkts:
    // their packets are dropped at the full queue and repaired by their
    // own recovery; the TCP flow still loses nothing; the run ends.
    let sack1 = "cc = \"reno\"\nrecovery = \"sack1\"\n";
    let etcp = "transport = \"etcp\"\n";
    let mut sim = Simulation::new(&scenario(&host(100e6, 20.0, 0.0, &[TCP, sack1, etcp]))).unwrap();
    let r = sim.run();
    assert_conserved(&r);
    assert!(r.links[IFACE].drops > 0, "the others overflow the interface queue");
    assert!(r.links.iter().enumerate().all(|(i, l)| i == IFACE || l.drops == 0));
    let tcp = &r.flows[0];
    assert_eq!((tcp.retransmits, tcp.timeouts), (0, 0));
    assert!(r.flows[1].retransmits > 0, "Sack1 repairs its drops");
    assert!(r.flows.iter().all(|f| f.delivered_bytes > 0));
}

fn rejected(toml: &str) -> String {
    match Scenario::from_toml(&common::classic_toml(toml)).and_then(|sc| Simulation::new(&sc).map(|_| ())) {
        Ok(()) => panic!("accepted:\n{toml}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_values_are_named_errors() {
    let e = rejected(&host(100e6, 1.0, 0.0, &["txqueuelen_pkts = 0\n"]));
    assert!(e.contains("flows[0].txqueuelen_pkts") && e.contains("0 is not allowed"), "{e}");
    let e = rejected(&host(100e6, 1.0, 0.0, &["txqueuelen_pkts = 1000000000\n"]));
    assert!(e.contains("flows[0].txqueuelen_pkts") && e.contains("must be from 1 to"), "{e}");
    let e = rejected(&host(100e6, 1.0, 0.0, &["txqueuelen_pkts = -3\n"]));
    assert!(e.contains("flows[0].txqueuelen_pkts"), "{e}");
    let e = rejected(&host(100e6, 1.0, 0.0, &["recovery = \"sack1\"\ntxqueuelen_pkts = 10\n"]));
    assert!(e.contains("flows[0].txqueuelen_pkts") && e.contains("sack1"), "{e}");
    let e = rejected(&host(100e6, 1.0, 0.0, &["transport = \"etcp\"\ntxqueuelen_pkts = 10\n"]));
    assert!(e.contains("flows[0].txqueuelen_pkts"), "{e}");
    let udp = "transport = \"udp\"\nrate_bps = 1e6\ntxqueuelen_pkts = 0\n";
    let e = rejected(&host(100e6, 1.0, 0.0, &[udp]));
    assert!(e.contains("flows[0].txqueuelen_pkts") && e.contains("0 is not allowed"), "{e}");
    // two flows of one host disagree on its one queue
    let e = rejected(&host(100e6, 1.0, 0.0, &["txqueuelen_pkts = 10\n", "txqueuelen_pkts = 20\n"]));
    assert!(e.contains("flows[1].txqueuelen_pkts") && e.contains("flows[0].txqueuelen_pkts = 10"), "{e}");
}

#[test]
fn runs_are_deterministic() {
    let udp = "transport = \"udp\"\nrate_bps = 60e6\ntxqueuelen_pkts = 100\non_s = 2.0\noff_s = 2.0\n";
    let body = format!("{TCP}count = 3\nstart_spread_s = 0.1\n");
    let sc = scenario(&host(100e6, 10.0, 0.0, &[&body, udp]));
    let json = || {
        let mut v: serde_json::Value = serde_json::from_str(&run(&sc).to_json()).unwrap();
        v.as_object_mut().unwrap().remove("wall_s");
        v
    };
    assert_eq!(json(), json());
}
