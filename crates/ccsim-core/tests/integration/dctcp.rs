//! DCTCP over a queue that marks above K (RED with w_q = 1 and
//! max_th = min_th + 1 packet: a step at K, as the DCTCP paper's switches
//! and ns-3's DCTCP examples configure it), against the steady-state
//! analysis of Alizadeh et al. (SIGCOMM 2010, §3.3): the queue peaks at
//! Q_max = K + N and swings by A = ½·sqrt(2N(C·RTT + K)) packets, so with
//! K above A it never empties and the link stays full without a loss,
//! where Reno's halving on the same marks drains it.
use crate::common;
use ccsim_core::{Results, Scenario};
use common::*;

/// 100 Mb/s, 10 ms RTT, 1500-byte packets (C·RTT = 83.3 packets), a
/// 500-packet buffer marking above `k`; `n` flows of `cc`, the rfc
/// personality's defaults otherwise (SACK, IW 10, Linux's delayed ACKs).
fn run_step(cc: &str, n: u32, k: u32, ecn: &str) -> Results {
    let t = format!(
        "name = \"dctcp\"\nduration_s = 20.0\nwarmup_s = 5.0\nsample_interval_s = 0.001\n\
         [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 100e6\nbottleneck_delay_s = 0.002\n\
         bottleneck_queue = {{ kind = \"red\", limit_pkts = 500, min_th_pkts = {k}, max_th_pkts = {}, w_q = 1.0, \
         max_p = 1.0, gentle = false, ecn = true, ecn_mark_above_max = true }}\n\
         [[flows]]\ncount = {n}\ncc = \"{cc}\"\nrtt_s = 0.01\nmss_bytes = 1460\n{ecn}\n",
        k + 1
    );
    let r = run(&Scenario::from_toml(&t).unwrap_or_else(|e| panic!("{e}\n{t}")));
    assert_conserved(&r);
    r
}

/// Bottleneck queue samples after the warm-up (packets).
fn queue(r: &Results) -> Vec<f64> {
    let s = &r.series.links;
    (0..s.time_s.len())
        .filter(|&i| s.link[i] == FWD_BNECK as u32 && s.time_s[i] > 5.0)
        .map(|i| s.queue_pkts[i] as f64)
        .collect()
}

#[test]
fn dctcp_keeps_the_queue_at_k_and_the_link_full_without_loss() {
    let c_rtt = 100e6 / (1500.0 * 8.0) * 0.01;
    for (n, k) in [(1u32, 20u32), (1, 40), (4, 40)] {
        let r = run_step("dctcp", n, k, "");
        let l = &r.links[FWD_BNECK];
        assert_eq!(l.drops, 0, "n {n} K {k}");
        assert!(l.utilization > 0.999, "n {n} K {k}: utilisation {}", l.utilization);
        let q = queue(&r);
        let (lo, hi) = q.iter().fold((f64::MAX, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
        let q_max = (k + n) as f64;
        let amp = 0.5 * (2.0 * n as f64 * (c_rtt + k as f64)).sqrt();
        // the model's peak, within the window's granularity (a delayed ACK
        // releases two segments, and marks act a round trip late)
        assert!(hi >= k as f64 && hi <= q_max + 2.0 * n as f64 + 2.0, "n {n} K {k}: max {hi} vs {q_max}");
        // and its trough, which stays above 0
        assert!(lo >= (q_max - 1.5 * amp).max(1.0), "n {n} K {k}: min {lo} vs {q_max} - {amp:.1}");
    }
}

#[test]
fn reno_with_the_same_marks_drains_the_queue_and_loses_throughput() {
    let dctcp = run_step("dctcp", 1, 20, "");
    let reno = run_step("reno", 1, 20, "ecn = true");
    let (d, r) = (dctcp.links[FWD_BNECK].utilization, reno.links[FWD_BNECK].utilization);
    // a halving from K + BDP leaves (83 + 20)/2 < 83 packets in flight
    assert!(r < 0.97 && d - r > 0.03, "dctcp {d}, reno-ecn {r}");
    assert!(queue(&reno).contains(&0.0), "Reno's cut empties the queue");
}

#[test]
fn dctcp_asks_for_ecn_and_refuses_to_run_without_it() {
    let t = |ecn: &str| {
        format!(
            "duration_s = 1.0\n[topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 1e7\n\
             bottleneck_queue = {{ limit_pkts = 20 }}\n[[flows]]\ncc = \"dctcp\"\nrtt_s = 0.05\n{ecn}\n"
        )
    };
    let sc = Scenario::from_toml(&t("")).unwrap();
    let norm: serde_json::Value = serde_json::from_str(&sc.to_json()).unwrap();
    assert_eq!(norm["flows"][0]["ecn"], true);
    let e = Scenario::from_toml(&t("ecn = false"))
        .and_then(|s| ccsim_core::Simulation::new(&s).map(|_| ()))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("scenario.flows[0].ecn: false is not allowed with cc = \"dctcp\""), "{e}");
}

/// ns-3's own DCTCP validation case (`examples/tcp/tcp-validation.cc`,
/// `dctcp-10ms`): one DCTCP flow, 10 ms base RTT, 50 Mb/s, CoDel with ECN
/// and a 1 ms CE threshold, 1448-byte segments (1502 bytes on the wire with
/// IP, TCP with timestamps and PPP), initial window 10, two segments per
/// delayed ACK with ns-3's 200 ms timer, 1 Gb/s access links. ns-3 requires
/// every 200 ms throughput sample from 0.6 s after the start to lie in
/// [48, 49] Mb/s (the link is 48.2 Mb/s of payload). Its α envelope
/// (ns-3.44: 0.049 to 0.09 after 2 s) is not expected here: it comes from
/// the BQL device queue tcp-validation.cc puts below its CoDel, which
/// ccsim has no model of; ccsim's α settles near 0.134, ns-3's own 0.132
/// with a one-packet device queue and its classic recovery
/// (docs/validation.md, "DCTCP's α and ns-3's dctcp-10ms envelope").
#[test]
fn ns3_dctcp_10ms_keeps_48_to_49_mbps_after_the_first_600_ms() {
    let t = "name = \"dctcp-10ms\"\nduration_s = 9.5\nsample_interval_s = 0.2\n\
             [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 50e6\nbottleneck_delay_s = 0.005\n\
             edge_rate_bps = 1e9\n\
             bottleneck_queue = { kind = \"codel\", ecn = true, ce_threshold_s = 0.001 }\n\
             [[flows]]\ncc = \"dctcp\"\nrtt_s = 0.01\nmss_bytes = 1448\nheader_bytes = 54\ninit_cwnd_pkts = 10\n\
             recovery = \"sack\"\ndelayed_ack = true\ndelack_model = \"fixed\"\ndelack_timeout_s = 0.2\n";
    let r = run(&Scenario::from_toml(t).unwrap_or_else(|e| panic!("{e}\n{t}")));
    assert_conserved(&r);
    let s = &r.series.flows;
    let late: Vec<f64> = (0..s.time_s.len()).filter(|&i| s.time_s[i] > 0.6 + 1e-9).map(|i| s.goodput_bps[i]).collect();
    assert_eq!(late.len(), 44);
    for g in &late {
        assert!((48e6..=49e6).contains(g), "throughput {g} outside ns-3's [48, 49] Mb/s");
    }
    assert_eq!(r.links[FWD_BNECK].drops, 0);
    assert!(s.dctcp_alpha.iter().all(|a| (0.0..=1.0).contains(a)), "α is a fraction");
}
