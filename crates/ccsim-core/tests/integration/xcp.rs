//! XCP: router feedback (net/stage/xcp.rs) and the end system (cc/xcp.rs).
use crate::common;

use ccsim_core::net::stage::xcp::XcpRouter;
use ccsim_core::{Results, Scenario, Simulation};
use common::{assert_conserved, FWD_BNECK};

/// A dumbbell with `n` XCP flows; `xcp` is the bottleneck queue's xcp value.
#[allow(clippy::too_many_arguments)]
fn scenario_with(
    n: u32,
    rate_bps: f64,
    rtt: (f64, f64),
    buf_pkts: u64,
    dur: f64,
    xcp: &str,
    extra: &str,
    flow_extra: &str,
) -> Scenario {
    let rtts = if rtt.0 == rtt.1 {
        format!("rtt_s = {:?}", rtt.0)
    } else {
        format!("rtt_range_s = [{:?}, {:?}]", rtt.0, rtt.1)
    };
    let t = format!(
        "name = \"xcp\"\nseed = 3\nduration_s = {dur:?}\nwarmup_s = {:?}\nsample_interval_s = 0.0\n\
         [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = {rate_bps:?}\nbottleneck_delay_s = 0.005\n{extra}\n\
         bottleneck_queue = {{ limit_pkts = {buf_pkts}, xcp = {xcp} }}\n\
         [[flows]]\ncount = {n}\ncc = \"xcp\"\nstart_spread_s = 0.5\n{rtts}\n{flow_extra}\n",
        dur * 0.5
    );
    Scenario::from_toml(&common::classic_toml(&t)).unwrap_or_else(|e| panic!("{e}\n{t}"))
}

fn scenario(n: u32, rate_bps: f64, rtt: (f64, f64), buf_pkts: u64, dur: f64, xcp: &str, extra: &str) -> Scenario {
    scenario_with(n, rate_bps, rtt, buf_pkts, dur, xcp, extra, "")
}

fn jain(r: &Results) -> f64 {
    let x: Vec<f64> = r.flows.iter().map(|f| f.goodput_bps).collect();
    let s: f64 = x.iter().sum();
    s * s / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

fn run(sc: &Scenario) -> (Results, f64, ccsim_core::net::stage::xcp::XcpStats) {
    let mut sim = Simulation::new(sc).unwrap();
    let r = sim.run();
    assert_conserved(&r);
    let x = sim.net.links[FWD_BNECK].stage_mut::<XcpRouter>().expect("xcp stage on the bottleneck");
    let q = x.persistent_queue_bytes();
    let st = x.stats;
    (r, q, st)
}

/// N long flows on one XCP bottleneck with Reno's increase added to the
/// feedback (`reno_increase = true`; ns-2's agent does not add it):
/// utilisation within 4 % below the capacity parameter (and not above it
/// by more than the overshoot below plus 2 %), Jain > 0.99; Reno's
/// +1/cwnd per ACK, N packets per RTT in all, is balanced by the router's
/// -βQ/d at Q ≈ N/β packets; the bound is 1.5 N/β + 5 packets.
#[test]
fn with_reno_increase_converges_to_capacity_and_fairness() {
    for &(n, rate, rtt, dur, params, cap) in &[
        (2u32, 20e6, (0.02, 0.02), 10.0, "true", 1.0),
        (10, 50e6, (0.2, 0.2), 16.0, "true", 1.0),
        (10, 50e6, (0.2, 0.2), 20.0, "{ params = \"conservative\" }", 0.9),
    ] {
        let bdp = (rate * rtt.1 / 8.0 / 1040.0) as u64;
        let sc = scenario_with(n, rate, rtt, bdp.max(100), dur, params, "", "cc_params = { reno_increase = true }");
        let (r, q, st) = run(&sc);
        eprintln!("{st:?} cwnd {:?}", r.flows.iter().map(|f| f.final_cwnd).collect::<Vec<_>>());
        let u = r.links[FWD_BNECK].utilization;
        let j = jain(&r);
        eprintln!(
            "n={n} rtt={rtt:?} params={params}: util {u:.4} (cap {cap}) Q {q:.0} B jain {j:.4} drops {}",
            r.links[FWD_BNECK].drops
        );
        // Reno's +1/cwnd per ACK is balanced by
        // α(C − y) at y − C ≈ N·size/(α·d): the allowed overshoot.
        let alpha = if cap < 1.0 { 0.2 } else { 0.4 };
        let over = n as f64 * 1040.0 * 8.0 / (alpha * rtt.0 * rate);
        assert!(u > cap - 0.04 && u < (cap + over).min(1.0) + 0.02, "n={n}: utilisation {u} vs capacity {cap}");
        let beta = if cap < 1.0 { 0.056 } else { 0.226 };
        assert!(q <= (1.5 * n as f64 / beta + 5.0) * 1040.0, "n={n}: persistent queue {q} B");
        assert!(j > 0.99, "n={n}: Jain {j}");
    }
}

/// Over the run, the positive and negative feedback the router hands out
/// match its φ/h budgets: never more (residue capping, per interval and in
/// total) and at least 90 % of them with steady long flows (the budget of
/// an interval is spread over the next one's packets with the previous
/// interval's sums, so a changing packet count leaves a little unspent).
/// Routers' feedback alone (`reno_increase = false`, the paper's §3 end
/// system): with 100 flows and with RTTs spread over 20-200 ms, the link
/// runs at the capacity parameter (within 3 %), the persistent queue stays
/// under 3 packets and Jain's index over 0.99.
#[test]
fn feedback_only_converges_for_many_flows_and_mixed_rtts() {
    for &(n, rate, rtt, dur, params, cap) in &[
        (100u32, 100e6, (0.06, 0.06), 12.0, "{ params = \"conservative\" }", 0.9),
        (10, 50e6, (0.02, 0.2), 20.0, "true", 1.0),
        (2, 20e6, (0.02, 0.2), 20.0, "{ params = \"conservative\" }", 0.9),
    ] {
        let bdp = (rate * rtt.1 / 8.0 / 1040.0) as u64;
        let sc = scenario_with(n, rate, rtt, bdp.max(100), dur, params, "", "cc_params = { reno_increase = false }");
        let (r, q, _) = run(&sc);
        let u = r.links[FWD_BNECK].utilization;
        let j = jain(&r);
        eprintln!("n={n} rtt={rtt:?} {params}: util {u:.4} Q {q:.0} B jain {j:.4} drops {}", r.links[FWD_BNECK].drops);
        assert!((u - cap).abs() < 0.03, "n={n}: utilisation {u} vs capacity {cap}");
        assert!(q < 3.0 * 1040.0, "n={n}: persistent queue {q} B");
        assert!(j > 0.99, "n={n}: Jain {j}");
    }
}

/// ns-2.35's 100-flow dumbbell (docs/validation.md, "XCP": 20
/// Mb/s, RTT 40 ms, 200-packet buffer, 1050-byte packets): there every
/// flow gets 0.20 Mb/s, the queue peaks at 51 packets in the start-up and
/// holds ~4 after it, no drops, because `Agent/TCP/Reno/XCP` adds nothing
/// to the routers' feedback (its `opencwnd()` is empty). ccsim's default
/// end system must do the same: no drops, utilisation over 0.99, every
/// flow within 5 % of C/N, and the queue never at half the buffer (with
/// Reno's +1/cwnd per ACK the N/β ≈ 440-packet standing queue fills it).
#[test]
fn hundred_flows_share_a_small_link_as_ns2_does() {
    let sc = scenario_with(100, 20e6, (0.04, 0.04), 200, 20.0, "true", "", "mss_bytes = 1000\nheader_bytes = 50");
    let (r, _, _) = run(&sc);
    let l = &r.links[FWD_BNECK];
    let fair = 20e6 / 100.0;
    let (lo, hi) =
        r.flows.iter().fold((f64::MAX, 0.0f64), |(a, b), f| (a.min(f.throughput_bps), b.max(f.throughput_bps)));
    eprintln!("util {:.4} max queue {} drops {} flows {lo:.0}-{hi:.0} b/s", l.utilization, l.max_queue_pkts, l.drops);
    assert_eq!(r.conservation.dropped, 0);
    assert!(l.utilization > 0.99, "utilisation {}", l.utilization);
    assert!(l.max_queue_pkts < 100, "max queue {} packets", l.max_queue_pkts);
    assert!(lo > 0.95 * fair && hi < 1.05 * fair, "flows {lo}-{hi} b/s, fair share {fair}");
}

#[test]
fn feedback_handed_out_matches_the_budgets() {
    let sc = scenario(4, 20e6, (0.04, 0.04), 200, 10.0, "true", "");
    let (_, _, st) = run(&sc);
    eprintln!("{st:?}");
    assert!(st.intervals > 100, "{st:?}");
    let (rp, rn) = (st.given_pos / st.budget_pos, st.given_neg / st.budget_neg);
    assert!((0.9..=1.0 + 1e-9).contains(&rp), "positive feedback given / budget = {rp}");
    assert!((0.9..=1.0 + 1e-9).contains(&rn), "negative feedback given / budget = {rn}");
    assert!(st.last_given.0 <= st.last_budget.0 * (1.0 + 1e-9) + 1e-6, "{st:?}");
    assert!(st.last_given.1 <= st.last_budget.1 * (1.0 + 1e-9) + 1e-6, "{st:?}");
}

/// A flow crossing two XCP routers gets the more constraining one's
/// feedback: the second link's controller believes it has half the rate
/// (capacity 0.5), so the flow settles near half of the (equal) link rates
/// and the first router's link runs at that share too.
#[test]
fn two_bottlenecks_the_smaller_feedback_wins() {
    let t = r#"
name = "xcp2"
duration_s = 12.0
warmup_s = 6.0
sample_interval_s = 0.0
[topology]
kind = "custom"
nodes = ["s", "a", "b", "c", "d"]
links = [
  { from = "s", to = "a", rate_bps = 1e9, delay_s = 0.002, queue = { limit_pkts = 1000 } },
  { from = "a", to = "b", rate_bps = 20e6, delay_s = 0.01, queue = { limit_pkts = 200, xcp = true }, monitor = true },
  { from = "b", to = "c", rate_bps = 20e6, delay_s = 0.01, queue = { limit_pkts = 200, xcp = { capacity = 0.5 } }, monitor = true },
  { from = "c", to = "d", rate_bps = 1e9, delay_s = 0.002, queue = { limit_pkts = 1000 } },
]
[[flows]]
count = 2
cc = "xcp"
cc_params = { reno_increase = false }
route = ["s", "a", "b", "c", "d"]
"#;
    let sc = Scenario::from_toml(&common::classic_toml(t)).unwrap();
    let mut sim = Simulation::new(&sc).unwrap();
    let r = sim.run();
    assert_conserved(&r);
    let ab = r.links.iter().find(|l| l.name == "a->b").unwrap().utilization;
    let bc = r.links.iter().find(|l| l.name == "b->c").unwrap().utilization;
    eprintln!("a->b {ab:.4} b->c {bc:.4}");
    assert!((ab - 0.5).abs() < 0.03 && (bc - 0.5).abs() < 0.03, "a->b {ab}, b->c {bc}");
    let idx = |n: &str| r.links.iter().position(|l| l.name == n).unwrap();
    let (iab, ibc) = (idx("a->b"), idx("b->c"));
    let first = sim.net.links[iab].stage_mut::<XcpRouter>().unwrap().stats;
    let second = sim.net.links[ibc].stage_mut::<XcpRouter>().unwrap().stats;
    // The second router sets the header on most packets; the first, with
    // spare capacity, hands out more than the second lets through.
    assert!(second.lowered > 0 && first.last_phi > 0.0, "{first:?} {second:?}");
}

/// Random loss on an XCP bottleneck: the sender halves and recovers as
/// Reno does, and XCP's feedback brings the link back to high utilisation.
#[test]
fn recovers_from_random_loss() {
    let sc = scenario(4, 20e6, (0.04, 0.04), 200, 10.0, "true", "bottleneck_loss = 0.001");
    let (r, _, _) = run(&sc);
    let fr: u64 = r.flows.iter().map(|f| f.fast_recoveries).sum();
    let u = r.links[FWD_BNECK].utilization;
    eprintln!("fast recoveries {fr}, random losses {}, util {u}", r.links[FWD_BNECK].random_losses);
    assert!(fr > 5, "loss recovery exercised: {fr}");
    assert!(u > 0.9, "utilisation with 0.1 % loss: {u}");
}

/// Same scenario and seed: identical results (XCP's timer jitter draws from
/// the stage's own stream); packets are conserved (checked in `run`).
#[test]
fn deterministic_with_xcp() {
    let sc = scenario(5, 20e6, (0.02, 0.1), 200, 5.0, "{ params = \"conservative\" }", "bottleneck_loss = 0.0005");
    let (a, _, sa) = run(&sc);
    let (b, _, sb) = run(&sc);
    let key = |r: &Results| {
        let mut v = serde_json::to_value(r).unwrap();
        v["wall_s"] = 0.into();
        v.as_object_mut().unwrap().remove("perf");
        v.to_string()
    };
    assert_eq!(key(&a), key(&b));
    assert_eq!(sa, sb);
}

/// The flow series carry each XCP flow's last echoed feedback (ns-2's
/// traced `reverse_feedback_`, bytes/s) and the window change it gave
/// (`feedback · srtt / mss` packets); a Reno flow beside them has none.
#[test]
fn flow_series_carry_the_last_xcp_feedback() {
    let mut sc = scenario_with(2, 20e6, (0.02, 0.02), 100, 8.0, "true", "", "[[flows]]\ncc = \"reno\"\nrtt_s = 0.02");
    sc.sample_interval_s = 0.05;
    let (r, _, _) = run(&sc);
    let s = &r.series.flows;
    let rows = s.time_s.len();
    assert!(rows > 300);
    assert_eq!((s.xcp_feedback_bytes_per_s.len(), s.xcp_delta_cwnd_pkts.len()), (rows, rows));
    let (mut pos, mut neg, mut xcp_rows) = (0, 0, 0);
    let mut seen = [false; 2];
    for i in 0..rows {
        let (fb, dw) = (s.xcp_feedback_bytes_per_s[i], s.xcp_delta_cwnd_pkts[i]);
        let f = s.flow[i] as usize;
        if f == 2 {
            assert!(fb.is_nan() && dw.is_nan(), "the reno flow has no XCP feedback");
            continue;
        }
        // NaN until the flow's first echoed feedback, then always its last
        if !seen[f] {
            seen[f] = fb.is_finite();
            assert_eq!(fb.is_finite(), dw.is_finite());
            continue;
        }
        xcp_rows += 1;
        assert!(fb.is_finite() && dw.is_finite(), "row {i}: XCP flow {f} lost its feedback");
        // the window change is the feedback times the srtt it was applied with
        assert!((dw - fb * s.srtt_s[i] / 1000.0).abs() <= 1e-3 * dw.abs().max(1e-3), "row {i}: {dw} vs {fb}");
        pos += (fb > 0.0) as u32;
        neg += (fb < 0.0) as u32;
    }
    assert_eq!(seen, [true, true], "both XCP flows got feedback");
    // past the ramp the router hands out both signs (Reno's +1/cwnd per ACK
    // pushes the input above capacity, the efficiency controller answers)
    assert!(xcp_rows > 200 && pos > 0 && neg > 0, "{xcp_rows} rows: {pos} positive, {neg} negative");
    assert!(r.to_json().contains("\"xcp_feedback_bytes_per_s\":["));
}

/// ns-2.35's `Agent/TCP/Reno/XCP` alone on 100 Mb/s with an 80 ms RTT
/// and 50-packet access queues (docs/validation.md, "XCP at high
/// bandwidth-delay products"): its first window jumps overflow the access
/// queue, and with timestamps ns-2 keeps the RTO backoff until the segment
/// it times is acknowledged, so the timeouts come 0.644, 1.044, 1.844,
/// 3.444 and 6.644 s apart (ns-2.35's cwnd_ trace: 0.61311, 1.25754,
/// 2.30197, 4.14581, 7.59024, 14.23467 s). Ending the backoff at every
/// new ACK (RFC 6298 §5.7) retries far more often.
#[test]
fn ns2_mode_keeps_the_rto_backoff_until_the_timed_segment_as_ns2() {
    let ns2 = [0.61311, 1.25754, 2.30197, 4.14581, 7.59024, 14.23467];
    for timed in [true, false] {
        let t = format!(
            "name = \"xcp-backoff\"\nduration_s = 15.0\nsample_interval_s = 0.001\n\
             [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 100e6\nbottleneck_delay_s = 0.03\n\
             edge_rate_bps = 1e9\nedge_delay_s = 0.005\n\
             bottleneck_queue = {{ limit_pkts = 1000, xcp = true }}\n\
             edge_queue = {{ limit_pkts = 50, xcp = true }}\n\
             [[flows]]\ncc = \"xcp\"\ntcp_model = \"ns2\"\nrecovery = \"reno\"\nrtt_estimator = \"rfc6298\"\n\
             header_bytes = 50\nns2_timed_backoff = {timed}\n"
        );
        let sc = Scenario::from_toml(&t).unwrap_or_else(|e| panic!("{e}\n{t}"));
        let r = common::run(&sc);
        let s = &r.series.flows;
        let timeouts: Vec<f64> =
            (1..s.time_s.len()).filter(|&i| s.cwnd[i] <= 1.0 && s.cwnd[i - 1] > 1.0).map(|i| s.time_s[i]).collect();
        let gaps: Vec<f64> = timeouts.windows(2).map(|w| w[1] - w[0]).collect();
        let want: Vec<f64> = ns2.windows(2).map(|w| w[1] - w[0]).collect();
        eprintln!("ns2_timed_backoff {timed}: timeouts {timeouts:?}");
        if timed {
            assert_eq!(gaps.len(), want.len(), "timeouts {timeouts:?}");
            for (g, w) in gaps.iter().zip(&want) {
                assert!((g - w).abs() <= 0.002, "gaps {gaps:?} against ns-2.35's {want:?}");
            }
        } else {
            assert!(timeouts.len() > 2 * ns2.len(), "without it the flow retries more often: {timeouts:?}");
        }
    }
}
