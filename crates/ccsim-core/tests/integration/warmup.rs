//! Warm-up: every summary counter covers the same measured period.
//!
//! Independent truth: the simulation is deterministic and the warm-up only
//! snapshots counters, so a run of length T with warm-up W must report, for
//! every additive counter, (the warm-up-free run of length T) minus (the
//! warm-up-free run of length W).
use crate::common;

use common::Dumbbell;

fn scenario(duration_s: f64, warmup_s: f64) -> Dumbbell {
    // Random loss on both directions gives timeouts and fast recoveries;
    // three flows (one starting after the warm-up) share a small buffer.
    Dumbbell::new(20e6, 15, duration_s)
        .seed(5)
        .warmup(warmup_s)
        .loss(0.003)
        .reverse_loss(0.002)
        .flow("rtt_s = 0.05\nrecovery = \"newreno\"")
        .flow("rtt_s = 0.08\nrecovery = \"sack\"")
        .flow("rtt_s = 0.04\nstart_s = 4.0\ncc = \"cubic\"")
}

#[test]
fn flow_and_link_counters_exclude_the_warm_up() {
    let (t, w) = (12.0, 3.0);
    let full = scenario(t, 0.0).run();
    let head = scenario(w, 0.0).run();
    let meas = scenario(t, w).run();
    let mut checked_nonzero = 0;
    for ((f, h), m) in full.flows.iter().zip(&head.flows).zip(&meas.flows) {
        for (name, a, b, c) in [
            ("delivered_bytes", f.delivered_bytes, h.delivered_bytes, m.delivered_bytes),
            ("data_pkts_sent", f.data_pkts_sent, h.data_pkts_sent, m.data_pkts_sent),
            ("retransmits", f.retransmits, h.retransmits, m.retransmits),
            ("timeouts", f.timeouts, h.timeouts, m.timeouts),
            ("fast_recoveries", f.fast_recoveries, h.fast_recoveries, m.fast_recoveries),
        ] {
            assert_eq!(c, a - b, "flow {} {name}: measured {c} != whole {a} - warm-up {b}", f.id);
            if b > 0 && c > 0 {
                checked_nonzero += 1;
            }
        }
    }
    // The check must bite: counters nonzero in both periods.
    assert!(checked_nonzero >= 6, "too few counters active in both periods: {checked_nonzero}");
    for ((f, h), m) in full.links.iter().zip(&head.links).zip(&meas.links) {
        for (name, a, b, c) in [
            ("arrivals", f.arrivals, h.arrivals, m.arrivals),
            ("drops", f.drops, h.drops, m.drops),
            ("random_losses", f.random_losses, h.random_losses, m.random_losses),
            ("tx_pkts", f.tx_pkts, h.tx_pkts, m.tx_pkts),
        ] {
            assert_eq!(c, a - b, "link {} {name}: measured {c} != whole {a} - warm-up {b}", f.name);
        }
        assert_eq!(m.max_queue_pkts, f.max_queue_pkts, "link {}: max queue is whole-run", f.name);
    }
}

#[test]
fn max_queue_is_over_the_whole_run() {
    // One Reno flow into a large buffer: the slow-start overshoot fills
    // the queue far beyond what congestion avoidance reaches after the
    // first halving. The maximum is documented as whole-run (the paced-XCP
    // paper's Fig 1 reports that transient), so a warm-up past it must
    // still report it, while the time-averaged queue covers only the
    // measured period and is smaller.
    let run = |warm: f64| {
        Dumbbell::new(10e6, 400, 4.0).warmup(warm).flow("rtt_s = 0.1\ncc = \"reno\"\nrecovery = \"newreno\"").run()
    };
    let b = |r: &ccsim_core::Results| r.links.iter().find(|l| l.monitored).unwrap().clone();
    let (whole, late) = (b(&run(0.0)), b(&run(3.0)));
    assert_eq!(late.max_queue_pkts, whole.max_queue_pkts);
    assert!(whole.max_queue_pkts > 100, "no overshoot: {}", whole.max_queue_pkts);
    assert!(late.avg_queue_pkts < whole.avg_queue_pkts);
}

#[test]
fn flow_completion_time_is_relative_to_the_start() {
    let r = Dumbbell::new(50e6, 100, 5.0).flow("rtt_s = 0.05\nstart_s = 1.5\nbytes = 200000").run();
    let f = &r.flows[0];
    let done = f.completed_s.expect("a 200 kB transfer completes in 3.5 s");
    let fct = f.fct_s.expect("fct with completion");
    assert!((fct - (done - 1.5)).abs() < 1e-12, "fct {fct} != completed {done} - start 1.5");
    // Slow start from 10 segments: more than 1 RTT, far less than the run.
    assert!(fct > 0.05 && fct < 1.0, "fct {fct}");
}
