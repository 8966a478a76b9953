//! ns-2's floating-point clock (`ns2_clock = true`, `sim::ns2clock`) against
//! ns-2.35 itself: `ccsim bench`'s B3 (50 NewReno flows starting together,
//! 1 Gb/s, RTT 100 ms, 20-packet DropTail buffer) for 10 s in ns-2 mode,
//! whose bottleneck counters must be those ns-2.35 printed for the same
//! program (`python -m validation.ns2_trace --duration 10`:
//! `benches/peer_ns2.py`'s Tcl with `$defaultRNG seed 1`). Without the clock
//! the same run breaks the ties ns-2 breaks by rounding the other way and
//! parts from ns-2 at 0.52 s (docs/validation.md, "ns-2's floating-point
//! clock").
use ccsim_core::{Results, Scenario, Simulation};

/// ns-2.35's numbers for B3, 10 s, seed 1: bottleneck arrivals, drops and
/// departures (`monitor-queue` `parrivals_`, `pdrops_`, `pdepartures_`);
/// timeouts and retransmitted packets summed over the agents (`nrexmit_`,
/// `nrexmitpack_`).
const NS2: (u64, u64, u64, u64, u64) = (64_006, 472, 63_534, 88, 607);

/// B3 in ns-2 mode, as `validation/ns2_trace.py` builds it (its flow fields
/// are `ns2ref.ns2_mode`'s; the boot order is ns-2's reset order of this
/// script's 102 nodes).
fn b3(clock: bool, ties: &str) -> String {
    format!(
        r#"{{"name": "b3-ns2", "seed": 1, "duration_s": 10.0, "sample_interval_s": 0,
        "topology": {{"kind": "dumbbell", "bottleneck_rate_bps": 1e9, "bottleneck_delay_s": 0.001,
          "bottleneck_queue": {{"kind": "droptail", "limit_pkts": 20, "ties": "{ties}"}},
          "edge_rate_bps": 1e11, "edge_queue": {{"kind": "droptail", "limit_pkts": 1000, "ties": "{ties}"}}}},
        "flows": [{{"count": 50, "cc": "reno", "recovery": "newreno", "mss_bytes": 1000, "header_bytes": 40,
          "rtt_s": 0.1, "rtt_estimator": "ns2", "halve_on_repeated_rto": true, "ns2_bugfix": true,
          "delayed_ack": false, "init_cwnd_pkts": 2, "limited_transmit": true, "syn": "ns2",
          "ns2_dupwnd": true, "ns2_singledup": true, "ns2_idle_restart": true,
          "cc_params": {{"slow_start": "ns2"}}}}],
        "ns2_clock": {clock},
        "ns2_boot_order": [17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 49, 35,
          36, 37, 38, 39, 4, 40, 5, 41, 6, 42, 7, 43, 44, 8, 0, 9, 45, 1, 10, 46, 2, 11, 47, 3, 12, 48, 13,
          14, 15, 16]}}"#
    )
}

fn counters(r: &Results) -> (u64, u64, u64, u64, u64) {
    let bn = r.links.iter().find(|l| l.from == "r0" && l.to == "r1").expect("bottleneck");
    let timeouts = r.flows.iter().map(|f| f.timeouts).sum();
    let rexmit = r.flows.iter().map(|f| f.retransmits).sum();
    (bn.arrivals, bn.drops, bn.tx_pkts, timeouts, rexmit)
}

fn run(json: &str) -> Results {
    let sc = Scenario::from_json(json).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(&sc).unwrap_or_else(|e| panic!("{e}")).run()
}

#[test]
fn b3_with_ns2s_clock_is_ns2s_run() {
    assert_eq!(counters(&run(&b3(true, "ns2"))), NS2);
}

#[test]
fn without_the_clock_the_ties_go_the_other_way() {
    // exact ties in event order: the bottleneck drops another packet at
    // 0.52 s and the run moves off ns-2's
    let plain = counters(&run(&b3(false, "ns2")));
    assert_ne!(plain, NS2);
}

#[test]
fn the_clock_needs_ns2_ties_on_every_queue() {
    let sc = Scenario::from_json(&b3(true, "arrival_first")).expect("parses");
    let e = Simulation::new(&sc).err().expect("refused");
    assert_eq!(e.field, "ns2_clock");
    assert!(e.msg.contains("ties = \"ns2\"") && e.msg.contains("ties = \"arrival_first\""), "{}", e.msg);
}
