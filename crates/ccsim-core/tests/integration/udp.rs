//! The on/off constant-rate UDP source: exact rate, on/off periods, flow
//! numbering beside TCP flows, conservation, and its validation errors.
use crate::common;
use ccsim_core::Scenario;
use common::*;

/// 1000 B payload + 40 B header at 10.4 Mb/s: one packet every 0.8 ms.
const UDP_10M: &str = "transport = \"udp\"\nrate_bps = 10.4e6\nmss_bytes = 1000\nheader_bytes = 40\n";

#[test]
fn constant_rate_is_exact_and_goodput_excludes_headers() {
    // 100 Mb/s bottleneck: the source is never limited by the network.
    let r = Dumbbell::new(100e6, 100, 10.0).flow(UDP_10M).run();
    let f = &r.flows[0];
    assert_eq!(f.transport, "udp");
    assert_eq!(f.cc, "none");
    // packets at t = 0, 0.8 ms, ..., 10 s (events at the end time still run)
    assert_eq!(f.data_pkts_sent, 12_501);
    // goodput counts payload: 10 Mb/s minus what is still in the pipe (~10 ms)
    let expect = 10e6;
    // (the last ~20 ms of packets, one path delay, are still in flight: -0.2%)
    assert!((f.goodput_bps - expect).abs() / expect < 0.005, "goodput {}", f.goodput_bps);
    assert!(f.throughput_bps > f.goodput_bps);
    assert_eq!(r.links[FWD_BNECK].drops, 0);
}

#[test]
fn on_off_periods_alternate_starting_on() {
    let body = format!("{UDP_10M}on_s = 2.0\noff_s = 3.0\nstart_s = 1.0\n");
    // sample every 0.5 s: goodput per interval is the period's rate or 0,
    // shifted by the one-way path delay (~12 ms here: 2.4% of an interval)
    let r = Dumbbell::new(100e6, 100, 11.0).sample(0.5).delay(0.0001).flow(&body).run();
    let s = &r.series.flows;
    // on: [1, 3) and [6, 8); off: [3, 6) and [8, 11)
    for (t, g) in s.time_s.iter().zip(&s.goodput_bps) {
        let t_mid = t - 0.25;
        let on = (1.0..3.0).contains(&t_mid) || (6.0..8.0).contains(&t_mid);
        let expect = if on { 10e6 } else { 0.0 };
        assert!((g - expect).abs() < 0.03 * 10e6, "t = {t}: goodput {g}, expected {expect}");
        assert!(s.cwnd[0].is_nan(), "UDP has no window");
    }
    // 2 on-periods x 2500 packets, plus the first of the third on-period,
    // which starts at 11 s, the end time (events at the end time still run)
    assert_eq!(r.flows[0].data_pkts_sent, 5001);
}

#[test]
fn udp_flows_are_numbered_after_tcp_flows_and_take_their_share() {
    // UDP at 60% of a 10 Mb/s link listed first, then one TCP flow.
    let body = "transport = \"udp\"\nrate_bps = 6e6\n";
    let mut sim = Dumbbell::new(10e6, 50, 60.0).warmup(10.0).flow(body).flow("cc = \"reno\"").sim();
    let r = sim.run();
    assert_conserved(&r);
    assert_eq!((0..2).filter(|&f| sim.tcp_sender(f).is_some()).count(), 1);
    assert_eq!(r.flows[0].transport, "tcp");
    assert_eq!(r.flows[0].entry, 1);
    assert_eq!(r.flows[1].transport, "udp");
    assert_eq!(r.flows[1].entry, 0);
    // the non-responsive source keeps most of its rate; TCP takes the rest
    let udp = r.flows[1].throughput_bps;
    let tcp = r.flows[0].throughput_bps;
    assert!(udp > 0.9 * 6e6 * 0.97 && udp <= 6e6 * 1.001, "udp {udp}");
    assert!(tcp > 0.2 * 10e6 && tcp + udp <= 10e6 * 1.001, "tcp {tcp} udp {udp}");
    assert!(r.links[FWD_BNECK].utilization > 0.9);
}

#[test]
fn overload_drops_at_the_queue_and_conserves() {
    // 2x overload: half the packets are dropped, none lost without account
    let body = "transport = \"udp\"\nrate_bps = 20.8e6\nstop_s = 5.0\n";
    let r = Dumbbell::new(10.4e6, 20, 6.0).flow(body).run();
    let l = &r.links[FWD_BNECK];
    let frac = l.drops as f64 / l.arrivals as f64;
    assert!((frac - 0.5).abs() < 0.01, "drop fraction {frac}");
    assert_eq!(r.conservation.in_flight, 0, "all delivered or dropped 1 s after the stop");
}

fn rejected(flow: &str) -> String {
    let t = Dumbbell::new(10e6, 20, 1.0).flow(flow).toml();
    let sc = Scenario::from_toml(&t);
    match sc.and_then(|s| ccsim_core::Simulation::new(&s).map(|_| ())) {
        Ok(()) => panic!("accepted: {flow}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_udp_fields_are_named() {
    let e = rejected("transport = \"udp\"");
    assert!(e.contains("flows[0].rate_bps") && e.contains("required"), "{e}");
    let e = rejected("transport = \"udp\"\nrate_bps = -1.0");
    assert!(e.contains("flows[0].rate_bps"), "{e}");
    let e = rejected("transport = \"udp\"\nrate_bps = 1e6\non_s = 1.0");
    assert!(e.contains("flows[0].off_s"), "{e}");
    let e = rejected("transport = \"udp\"\nrate_bps = 1e6\non_s = 0.0\noff_s = 1.0");
    assert!(e.contains("flows[0].on_s"), "{e}");
    let e = rejected("transport = \"udp\"\nrate_bps = 1e6\nbytes = 100");
    assert!(e.contains("flows[0].bytes"), "{e}");
    let e = rejected("rate_bps = 1e6");
    assert!(e.contains("flows[0].rate_bps") && e.contains("udp"), "{e}");
    let e = rejected("transport = \"quic\"");
    assert!(e.contains("allowed: tcp, udp"), "{e}");
}

#[test]
fn average_queue_is_the_time_average_of_a_linear_build_up() {
    // 15.6 Mb/s of 1040-byte packets (1875 pkt/s) into 10.4 Mb/s (1250
    // pkt/s), a buffer that never fills: from the first arrival at the
    // bottleneck, t0, the queue grows by 625 packets a second, so over the
    // measured period [1 s, 2 s] it averages 625 (1.5 - t0) packets (to
    // within the one packet of the arrival/departure steps).
    let udp = "transport = \"udp\"\nrate_bps = 15.6e6\nmss_bytes = 1000\nheader_bytes = 40\n";
    let r = Dumbbell::new(10.4e6, 10_000, 2.0).warmup(1.0).flow(udp).run();
    let edge = &r.links[src_edge(0)];
    let t0 = 1040.0 * 8.0 / edge.rate_bps + edge.delay_s;
    let b = &r.links[FWD_BNECK];
    let expect = 625.0 * (1.5 - t0);
    assert!((b.avg_queue_pkts - expect).abs() < 1.5, "avg queue {} pkts, expected {expect}", b.avg_queue_pkts);
    assert!((b.avg_queue_bytes - 1040.0 * b.avg_queue_pkts).abs() < 1e-6 * b.avg_queue_bytes);
    assert_eq!(b.drops, 0);
    assert_eq!(b.marks, 0);
    // the reverse direction carries nothing: its average is exactly 0
    assert_eq!(r.links[REV_BNECK].avg_queue_pkts, 0.0);
    // the largest queue is at the end: 625 (2 - t0) packets
    assert!((b.max_queue_pkts as f64 - 625.0 * (2.0 - t0)).abs() <= 2.0, "max {}", b.max_queue_pkts);
}
