//! Pacing (docs/scenario.md `pacing`): `interval` keeps at least srtt/cwnd
//! between departures; `token_bucket` earns tokens at cwnd/srtt into a bucket
//! of `bucket_pkts`. Checked on the send trace (`SendRecord`: time, the
//! interval srtt/cwnd in force at that departure, tokens left after it, and
//! whether the departure was a forced retransmission that bypasses the pacer).
//!
//! Two scenarios: a steady one (cwnd capped at 100 < BDP, so srtt and cwnd
//! are constant) and a congested one (50-packet buffer shared with an unpaced
//! flow: losses, recoveries, timeouts, changing cwnd and srtt).
use crate::common;
use ccsim_core::sim::time::{from_secs, to_secs};
use ccsim_core::transport::tcp::sender::SendRecord;
use ccsim_core::Simulation;
use common::*;

fn traced(steady: bool, flow: &str) -> Simulation {
    let d = if steady {
        Dumbbell::new(100e6, 1000, 10.0).flow(&format!("rtt_s = 0.05\nmax_cwnd_pkts = 100\n{flow}"))
    } else {
        Dumbbell::new(50e6, 50, 30.0).flow(&format!("rtt_s = 0.05\n{flow}")).flow("rtt_s = 0.08")
    };
    let mut sim = d.name(&format!("steady={steady} {}", flow.replace('\n', " "))).sim();
    sim.enable_send_trace(0);
    sim.run();
    finish(&sim);
    assert!(sim.send_trace(0).len() > 10_000);
    sim
}

/// Departures (non-forced, paced) closer than the interval in force, allowing
/// 1 ps for rounding the interval to the clock.
fn interval_violations(tr: &[SendRecord]) -> usize {
    tr.windows(2)
        .filter(|w| !w[1].forced)
        .filter_map(|w| w[1].interval_s.map(|iv| (w[1].time - w[0].time, from_secs(iv))))
        .filter(|&(gap, iv)| gap + 1 < iv)
        .count()
}

/// Largest number of departures at one instant.
fn max_burst(tr: &[SendRecord]) -> usize {
    let (mut best, mut cur) = (1, 1);
    for w in tr.windows(2) {
        cur = if w[1].time == w[0].time { cur + 1 } else { 1 };
        best = best.max(cur);
    }
    best
}

#[test]
fn interval_pacing_keeps_srtt_over_cwnd_between_departures() {
    for steady in [true, false] {
        for extra in ["", "delayed_ack = true"] {
            let sim = traced(steady, &format!("pacing = \"interval\"\n{extra}"));
            let tr = sim.send_trace(0);
            let paced = tr.iter().filter(|r| r.interval_s.is_some()).count();
            assert!(paced + 10 > tr.len(), "only the first window may leave before an RTT sample");
            assert_eq!(interval_violations(tr), 0, "steady={steady} {extra}");
            // Before the first RTT sample the initial window leaves at once;
            // afterwards never two packets at one instant.
            let first_paced = tr.iter().position(|r| r.interval_s.is_some()).unwrap();
            assert_eq!(max_burst(&tr[first_paced..]), 1, "steady={steady} {extra}");
            if !steady {
                assert!(
                    sim.tcp_sender(0).unwrap().stats.fast_recoveries > 0,
                    "the congested run must exercise recovery"
                );
            }
        }
    }
}

#[test]
fn unpaced_sender_sends_back_to_back_bursts() {
    // The control for the two pacing tests: the same checks fail without pacing.
    for steady in [true, false] {
        let sim = traced(steady, "pacing = \"none\"\ndelayed_ack = true");
        let tr = sim.send_trace(0);
        let v = interval_violations(tr);
        eprintln!(
            "unpaced steady={steady}: {v} of {} departures closer than srtt/cwnd, max burst {}",
            tr.len(),
            max_burst(tr)
        );
        assert!(v * 2 > tr.len(), "an unpaced sender mostly departs closer than srtt/cwnd");
        assert!(max_burst(tr) >= 2);
        assert!(tr.iter().all(|r| r.tokens_after.is_none()));
    }
    let sim = traced(false, "pacing = \"none\"");
    assert!(max_burst(sim.send_trace(0)) >= 10, "slow start and recovery send line-rate bursts");
}

#[test]
fn token_bucket_bounds_tokens_and_departures_per_window() {
    let mut bursts = Vec::new();
    for bucket in [1.0, 4.0] {
        for steady in [true, false] {
            for extra in ["", "delayed_ack = true"] {
                let sim = traced(steady, &format!("pacing = \"token_bucket\"\nbucket_pkts = {bucket}\n{extra}"));
                let tr = sim.send_trace(0);
                let label = format!("bucket={bucket} steady={steady} {extra}");
                // A departure spends one token, so at most bucket - 1 remain.
                for r in tr {
                    let t = r.tokens_after.expect("token-bucket records carry tokens");
                    assert!((0.0..=bucket - 1.0 + 1e-9).contains(&t), "{label}: {t} tokens after a departure");
                }
                // Within any window of length T, at most bucket + rate·T
                // paced departures (+1 for rounding), where rate = cwnd/srtt
                // is the largest in force around the window.
                let nf: Vec<&SendRecord> = tr.iter().filter(|r| !r.forced && r.interval_s.is_some()).collect();
                for t_s in [0.0, 1e-4, 5e-4, 1e-3, 5e-3, 0.05] {
                    let t = from_secs(t_s);
                    let mut j = 0;
                    for i in 0..nf.len() {
                        j = j.max(i);
                        while j + 1 < nf.len() && nf[j + 1].time - nf[i].time <= t {
                            j += 1;
                        }
                        let rate =
                            nf[i.saturating_sub(1)..=j].iter().map(|r| 1.0 / r.interval_s.unwrap()).fold(0.0, f64::max);
                        let count = (j - i + 1) as f64;
                        assert!(
                            count <= bucket + rate * t_s + 1.0,
                            "{label}: {count} departures in {t_s} s from {} s (rate {rate:.0}/s)",
                            to_secs(nf[i].time)
                        );
                    }
                }
                bursts.push((bucket, max_burst(&nf.iter().map(|r| **r).collect::<Vec<_>>())));
            }
        }
    }
    eprintln!("(bucket, max paced burst): {bursts:?}");
    // The bucket size matters: with 4 tokens the sender does burst (up to 4
    // paced packets at one instant), with 1 it never sends two at once.
    assert!(bursts.iter().filter(|b| b.0 == 1.0).all(|b| b.1 == 1));
    assert!(bursts.iter().any(|b| b.0 == 4.0 && b.1 >= 3));
    assert!(bursts.iter().all(|b| b.1 as f64 <= b.0));
}
