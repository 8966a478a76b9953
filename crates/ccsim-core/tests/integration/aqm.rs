//! The delay-based AQMs end to end: two CUBIC flows through a 10 Mb/s,
//! 40 ms dumbbell whose bottleneck runs `codel`, `fq_codel` or `pie`.
//! Packets are conserved (CoDel's drops happen at dequeue), the link stays
//! busy, and the time-averaged queueing delay sits near the AQM's target,
//! far below what the same 1000-packet buffer gives under DropTail.
use crate::common;
use ccsim_core::stats::Results;
use ccsim_core::Scenario;
use common::*;

const RATE: f64 = 10e6;

fn dumbbell(queue: &str, flow_extra: &str) -> String {
    format!(
        "name = \"aqm\"\nseed = 7\nduration_s = 40.0\nwarmup_s = 10.0\nsample_interval_s = 0\n\
         [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = {RATE:?}\nbottleneck_delay_s = 0.01\n\
         bottleneck_queue = {{ {queue} }}\n\
         [[flows]]\ncount = 2\ncc = \"cubic\"\nmss_bytes = 1448\nheader_bytes = 52\n\
         rtt_s = 0.04\nrwnd_pkts = 10000\n{flow_extra}\n"
    )
}

fn run_toml(t: &str) -> Results {
    let r = run(&Scenario::from_toml(t).unwrap_or_else(|e| panic!("{e}\n{t}")));
    assert_conserved(&r);
    r
}

/// Time-averaged queueing delay at the bottleneck (s), its utilisation,
/// drops and marks.
fn bottleneck(r: &Results) -> (f64, f64, u64, u64) {
    let l = &r.links[FWD_BNECK];
    (l.avg_queue_bytes * 8.0 / RATE, l.utilization, l.drops, l.marks)
}

#[test]
fn aqms_hold_the_queueing_delay_near_their_target() {
    let (fifo, ..) = bottleneck(&run_toml(&dumbbell("kind = \"droptail\", limit_pkts = 1000", "")));
    for (queue, ecn, lo, hi) in [
        ("kind = \"codel\"", false, 0.002, 0.010),
        ("kind = \"codel\", ecn = true", true, 0.002, 0.010),
        ("kind = \"fq_codel\", ecn = false", false, 0.002, 0.010),
        ("kind = \"fq_codel\"", true, 0.002, 0.010),
        ("kind = \"pie\"", false, 0.010, 0.022),
        ("kind = \"pie\", ecn = true", true, 0.010, 0.022),
        ("kind = \"pie\", estimator = \"dequeue_rate\"", false, 0.010, 0.022),
    ] {
        let extra = if ecn { "ecn = true" } else { "" };
        let r = run_toml(&dumbbell(queue, extra));
        let (delay, util, drops, marks) = bottleneck(&r);
        eprintln!(
            "{queue}: delay {delay:.4} s, utilisation {util:.3}, drops {drops}, marks {marks} (droptail {fifo:.3} s)"
        );
        assert!(delay > lo && delay < hi, "{queue}: average queueing delay {delay} s");
        assert!(util > 0.9, "{queue}: utilisation {util}");
        assert!(delay < fifo / 10.0, "{queue}: {delay} s against droptail's {fifo} s");
        if ecn {
            assert!(marks > 0 && drops < marks / 10, "{queue}: marks {marks}, drops {drops}");
        } else {
            assert!(drops > 0 && marks == 0, "{queue}: drops {drops}, marks {marks}");
        }
    }
}

/// The classic AQMs treat ECT(1) as RFC 3168 treats any ECT codepoint:
/// ECN flows sending ECT(1) (`ect = "ect1"`) get exactly the run that
/// ECT(0) gives them, mark for mark, through RED, CoDel, PIE and FQ-CoDel.
#[test]
fn classic_aqms_mark_ect1_as_they_mark_ect0() {
    for queue in [
        "kind = \"red\", limit_pkts = 300, min_th_pkts = 10, max_th_pkts = 40, ecn = true",
        "kind = \"codel\", ecn = true",
        "kind = \"fq_codel\"",
        "kind = \"pie\", ecn = true",
    ] {
        let runs: Vec<Results> = ["ect0", "ect1"]
            .iter()
            .map(|ect| {
                let t = dumbbell(queue, &format!("ecn = true\nect = \"{ect}\""))
                    .replace("duration_s = 40.0", "duration_s = 15.0")
                    .replace("warmup_s = 10.0", "warmup_s = 2.0");
                run_toml(&t)
            })
            .collect();
        let (a, b) = (&runs[0], &runs[1]);
        assert!(a.links[FWD_BNECK].marks > 10, "{queue}: marks {}", a.links[FWD_BNECK].marks);
        assert_eq!(serde_json::to_value(&a.links).unwrap(), serde_json::to_value(&b.links).unwrap(), "{queue}");
        assert_eq!(serde_json::to_value(&a.flows).unwrap(), serde_json::to_value(&b.flows).unwrap(), "{queue}");
    }
}
