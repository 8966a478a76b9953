//! `host_delay_s`: the sending host's delay before the wire, on whole runs.
use crate::common;
use ccsim_core::{Results, Scenario, Simulation};
use common::{run, Dumbbell};

/// ns-2's `phase1` topology (tests/send_jitter.rs): s1 and s2 -> r1 at
/// 8 Mb/s, r1 -> k1 at 800 kb/s and 100 ms with 16 packets of queue, two
/// NewReno flows with a 32-packet window; `host`: both senders'
/// `host_delay_s` (TOML text, or none).
fn phase(host: Option<&str>, seed: u64, dur: f64) -> Results {
    let link = |from: &str, to: &str, rate: f64, delay: f64, q: u32| {
        format!(
            "[[topology.links]]\nfrom = \"{from}\"\nto = \"{to}\"\nrate_bps = {rate:?}\ndelay_s = {delay:?}\n\
             queue = {{ limit_pkts = {q} }}\nreverse_queue = {{ limit_pkts = {q} }}\n"
        )
    };
    let flow = |src: &str, start: f64| {
        let h = host.map_or(String::new(), |h| format!("host_delay_s = {h}\n"));
        format!(
            "[[flows]]\nroute = [\"{src}\", \"r1\", \"k1\"]\nstart_s = {start:?}\nrecovery = \"newreno\"\n\
             mss_bytes = 960\nheader_bytes = 40\nrwnd_pkts = 32\nlimited_transmit = false\n{h}"
        )
    };
    let toml = format!(
        "name = \"phase\"\nseed = {seed}\nduration_s = {dur:?}\n[topology]\nkind = \"custom\"\n\
         nodes = [\"s1\", \"s2\", \"r1\", \"k1\"]\n{}{}{}{}{}",
        link("s1", "r1", 8e6, 0.005, 100),
        link("s2", "r1", 8e6, 0.0095, 100),
        link("r1", "k1", 800e3, 0.1, 16),
        flow("s1", 5.0),
        flow("s2", 1.0),
    );
    run(&Scenario::from_toml(&common::classic_toml(&toml)).unwrap_or_else(|e| panic!("{e}\n{toml}")))
}

fn outcome(r: &Results) -> String {
    serde_json::to_string(&(&r.flows, &r.links)).unwrap()
}

/// Without a host delay the two flows lock into a phase where every
/// overflow drops flow 0's packets (tests/send_jitter.rs). A delay of up to
/// one bottleneck service time (10 ms), drawn per packet, breaks it as
/// ns-2's `overhead_` does, without holding the window back: flow 1 loses
/// at some overflows too.
#[test]
fn host_delay_breaks_the_drop_tail_phase_lock() {
    let still = phase(None, 1, 200.0);
    assert_eq!(still.flows[1].fast_recoveries, 0, "the lock without a host delay");
    for seed in 1..=3 {
        let r = phase(Some("[0.0, 0.01]"), seed, 200.0);
        let f = &r.flows;
        let share = f[1].fast_recoveries as f64 / (f[0].fast_recoveries + f[1].fast_recoveries) as f64;
        assert!(share >= 0.1, "seed {seed}: flow 1 backs off at {share:.3} of the events");
    }
}

#[test]
fn host_delay_runs_repeat_with_the_seed_and_differ_across_seeds() {
    let go = |seed| outcome(&phase(Some("[0.0, 0.01]"), seed, 50.0));
    assert_eq!(go(7), go(7));
    assert_ne!(go(7), go(8));
}

/// A constant delay lengthens a one-segment transfer by exactly itself
/// twice: the data segment waits it at the sender, its ACK at the
/// receiver.
#[test]
fn a_constant_host_delay_adds_itself_to_the_data_path() {
    let fct = |h: &str| {
        let r = Dumbbell::new(10e6, 100, 5.0).flow(&format!("bytes = 1000\nmss_bytes = 1000\n{h}")).run();
        r.flows[0].fct_s.expect("the transfer completes")
    };
    let base = fct("");
    let d = fct("host_delay_s = 0.000125");
    assert!((d - base - 250e-6).abs() < 1e-12, "{base} -> {d}");
    // the quantile form with equal quantiles is the same constant
    assert_eq!(fct("host_delay_s = [0.000125, 0.000125]"), d);
}

fn error(toml: &str) -> String {
    match Scenario::from_toml(toml).and_then(|sc| Simulation::new(&sc).map(|_| ())) {
        Ok(()) => panic!("accepted:\n{toml}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_host_delays_are_refused_with_the_field_named() {
    let one = |h: &str| Dumbbell::new(10e6, 100, 1.0).flow(&format!("host_delay_s = {h}")).toml();
    let e = error(&one("[0.00002, 0.00001]"));
    assert!(e.contains("flows[0].host_delay_s[1]") && e.contains("must not decrease"), "{e}");
    let e = error(&one("-0.001"));
    assert!(e.contains("flows[0].host_delay_s[0]") && e.contains("≥ 0"), "{e}");
    let e = error(&one("\"fast\""));
    assert!(e.contains("flows[0].host_delay_s") && e.contains("the delay's quantiles"), "{e}");
    let e = error(&one("[]"));
    assert!(e.contains("flows[0].host_delay_s") && e.contains("empty"), "{e}");
}

/// Flows that share a sending interface share its delay: two values for
/// one interface are an error, and so is a link whose ties are ns-2's.
#[test]
fn one_interface_one_delay_and_not_under_ns2_ties() {
    let base = "name = \"x\"\nduration_s = 1.0\n[topology]\nkind = \"custom\"\nnodes = [\"a\", \"b\"]\n\
                [[topology.links]]\nfrom = \"a\"\nto = \"b\"\nrate_bps = 1e7\ndelay_s = 0.01\n";
    let queue = |ties: &str| format!("queue = {{ limit_pkts = 100{ties} }}\n");
    let flows = |h0: &str, h1: &str| {
        format!(
            "[[flows]]\nroute = [\"a\", \"b\"]\nhost_delay_s = {h0}\n[[flows]]\nroute = [\"a\", \"b\"]\n\
             host_delay_s = {h1}\n"
        )
    };
    let e = error(&format!("{base}{}{}", queue(""), flows("0.001", "0.002")));
    assert!(e.contains("flows[1].host_delay_s") && e.contains("differs from flows[0].host_delay_s"), "{e}");
    let same = format!("{base}{}{}", queue(""), flows("0.001", "0.001"));
    Simulation::new(&Scenario::from_toml(&same).unwrap()).expect("one value for the interface");
    let ns2 = format!("{base}{}{}", queue(", ties = \"ns2\""), flows("0.001", "0.001"));
    let e = error(&ns2);
    assert!(e.contains("flows[0].host_delay_s") && e.contains("ties"), "{e}");
}

/// BBR's window carries an allowance for ACKs that arrive in bunches
/// (`bbr_extra_acked`: data ACKed beyond what the bandwidth estimate
/// explains since an epoch began). ACKs spaced exactly by the bottleneck
/// leave it near zero; tens of microseconds of jitter on the ACKs (the
/// receiving host's delay) raise it, and with it the window, by about
/// two segments at 10 Mb/s and 20 ms: the gap between ccsim's steady
/// window and the kernel peer's on this path
/// (docs/decisions/2026-11-30-host-delay-and-the-kernel-peer.md).
#[test]
fn jittered_acks_raise_bbrs_aggregation_allowance() {
    let mean_cwnd = |h: &str| {
        // the kernel peer's `bbr-1-10m-20ms-1bdp` (validation/linux_kernel.py)
        let toml = format!(
            "name = \"bbr\"\nduration_s = 9.0\nsample_interval_s = 0.01\n[topology]\nkind = \"dumbbell\"\n\
             bottleneck_rate_bps = 1e7\nbottleneck_delay_s = 0.0\nedge_rate_bps = 1e10\n\
             bottleneck_queue = {{ limit_pkts = 17 }}\n[[flows]]\ntcp_model = \"linux\"\ncc = \"bbr\"\n\
             mss_bytes = 1448\nheader_bytes = 40\nrtt_s = 0.02\n{h}"
        );
        let r = run(&Scenario::from_toml(&toml).unwrap_or_else(|e| panic!("{e}\n{toml}")));
        let s = &r.series.flows;
        let w: Vec<f64> = s.time_s.iter().zip(&s.cwnd).filter(|(t, _)| **t >= 2.0).map(|(_, w)| *w).collect();
        w.iter().sum::<f64>() / w.len() as f64
    };
    let still = mean_cwnd("");
    let jittered = mean_cwnd("host_delay_s = [0.000004, 0.000008, 0.00001, 0.000014, 0.00002, 0.00005]");
    assert!(jittered - still > 1.5, "{still} -> {jittered}");
}
