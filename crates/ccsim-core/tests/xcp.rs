//! XCP: router feedback (net/stage/xcp.rs) and the end system (cc/xcp.rs).
mod common;

use ccsim_core::net::stage::xcp::XcpRouter;
use ccsim_core::{Results, Scenario, Simulation};
use common::{assert_conserved, FWD_BNECK};

/// A dumbbell with `n` XCP flows; `xcp` is the bottleneck queue's xcp value.
fn scenario(n: u32, rate_bps: f64, rtt: (f64, f64), buf_pkts: u64, dur: f64, xcp: &str, extra: &str) -> Scenario {
    let rtts = if rtt.0 == rtt.1 {
        format!("rtt_s = {:?}", rtt.0)
    } else {
        format!("rtt_range_s = [{:?}, {:?}]", rtt.0, rtt.1)
    };
    let t = format!(
        "name = \"xcp\"\nseed = 3\nduration_s = {dur:?}\nwarmup_s = {:?}\nsample_interval_s = 0.0\n\
         [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = {rate_bps:?}\nbottleneck_delay_s = 0.005\n{extra}\n\
         bottleneck_queue = {{ limit_pkts = {buf_pkts}, xcp = {xcp} }}\n\
         [[flows]]\ncount = {n}\ncc = \"xcp\"\nstart_spread_s = 0.5\n{rtts}\n",
        dur * 0.5
    );
    Scenario::from_toml(&t).unwrap_or_else(|e| panic!("{e}\n{t}"))
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

/// N long flows on one XCP bottleneck: utilisation within 4 % below the
/// capacity parameter (and not above it by more than 2 %), Jain > 0.99,
/// and the persistent queue near zero: ns-2's XCP agent keeps Reno's
/// +1/cwnd per ACK, N packets per RTT in all, which the router's -βQ/d
/// balances at Q ≈ N/β packets; the bound is 1.5 N/β + 5 packets.
#[test]
fn converges_to_capacity_zero_queue_and_fairness() {
    for &(n, rate, rtt, dur, params, cap) in &[
        (2u32, 20e6, (0.02, 0.02), 10.0, "true", 1.0),
        (10, 50e6, (0.2, 0.2), 16.0, "true", 1.0),
        (10, 50e6, (0.2, 0.2), 20.0, "{ params = \"conservative\" }", 0.9),
    ] {
        let bdp = (rate * rtt.1 / 8.0 / 1040.0) as u64;
        let sc = scenario(n, rate, rtt, bdp.max(100), dur, params, "");
        let (r, q, st) = run(&sc);
        eprintln!("{st:?} cwnd {:?}", r.flows.iter().map(|f| f.final_cwnd).collect::<Vec<_>>());
        let u = r.links[FWD_BNECK].utilization;
        let j = jain(&r);
        eprintln!(
            "n={n} rtt={rtt:?} params={params}: util {u:.4} (cap {cap}) Q {q:.0} B jain {j:.4} drops {}",
            r.links[FWD_BNECK].drops
        );
        // Reno's +1/cwnd per ACK (kept by ns-2's agent) is balanced by
        // α(C − y) at y − C ≈ N·size/(α·d): the allowed overshoot.
        let alpha = if cap < 1.0 { 0.2 } else { 0.4 };
        let over = n as f64 * 1040.0 * 8.0 / (alpha * rtt.0 * rate);
        assert!(u > cap - 0.04 && u < (cap + over).min(1.0) + 0.02, "n={n}: utilisation {u} vs capacity {cap}");
        let beta = if cap < 1.0 { 0.056 } else { 0.226 };
        assert!(q <= (1.5 * n as f64 / beta + 5.0) * 1040.0, "n={n}: persistent queue {q} B");
        assert!(j > 0.99, "n={n}: Jain {j}");
    }
}
