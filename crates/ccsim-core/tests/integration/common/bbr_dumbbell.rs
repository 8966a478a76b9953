//! The BBR tests' dumbbell (100 Mb/s, 2 ms bottleneck, a buffer in BDPs of
//! 1500-byte packets) and the series they read.
use super::{assert_conserved, run, FWD_BNECK};
use ccsim_core::{Results, Scenario};

/// 100 Mb/s, `rtt` s, a buffer of `bdp_mult` BDPs of 1500-byte packets;
/// the flows given as `[[flows]]` bodies.
pub fn run_db(name: &str, rtt: f64, bdp_mult: f64, duration: f64, flows: &[&str]) -> Results {
    let bdp = 100e6 * rtt / (1500.0 * 8.0);
    let buf = (bdp * bdp_mult).round().max(2.0) as u64;
    let mut t = format!(
        "name = \"{name}\"\nduration_s = {duration}\nwarmup_s = 5.0\nsample_interval_s = 0.01\n\
         [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 100e6\nbottleneck_delay_s = 0.002\n\
         bottleneck_queue = {{ limit_pkts = {buf} }}\n"
    );
    for f in flows {
        t += &format!("[[flows]]\nrtt_s = {rtt}\nmss_bytes = 1460\n{f}\n");
    }
    let r = run(&Scenario::from_toml(&t).unwrap_or_else(|e| panic!("{e}\n{t}")));
    assert_conserved(&r);
    r
}

pub fn queue_after(r: &Results, t0: f64) -> Vec<f64> {
    let s = &r.series.links;
    (0..s.time_s.len())
        .filter(|&i| s.link[i] == FWD_BNECK as u32 && s.time_s[i] > t0)
        .map(|i| s.queue_pkts[i] as f64)
        .collect()
}

pub fn cwnd_of(r: &Results, flow: u32) -> Vec<(f64, f64)> {
    let s = &r.series.flows;
    (0..s.time_s.len()).filter(|&i| s.flow[i] == flow).map(|i| (s.time_s[i], s.cwnd[i])).collect()
}

/// Flow `flow`'s BBR model after `t0` s on `run_db`'s deep-buffer path
/// at 40 ms: every sample's bandwidth estimate is the link's payload rate
/// (100 Mb/s · 1460/1500 bytes/s, within 0.99-1.02) and its RTprop the
/// path's 40 ms (up to 4 packets' queue, 0.5 ms, in the sample that
/// renews an expired one). Returns the pacing and cwnd gains seen, in
/// hundredths, ascending.
pub fn model_gains_after(r: &Results, flow: u32, t0: f64) -> (Vec<u32>, Vec<u32>) {
    let s = &r.series.flows;
    let payload_rate = 100e6 / 8.0 * 1460.0 / 1500.0;
    let (mut pacing, mut cwnd) = (std::collections::BTreeSet::new(), std::collections::BTreeSet::new());
    for i in (0..s.time_s.len()).filter(|&i| s.flow[i] == flow && s.time_s[i] > t0) {
        let bw = s.bbr_bw_bytes_per_s[i] / payload_rate;
        assert!((0.99..=1.02).contains(&bw), "bandwidth estimate {bw} of the link at {}", s.time_s[i]);
        let rt = s.bbr_min_rtt_s[i];
        assert!((0.04..0.0405).contains(&rt), "RTprop {rt} at {}", s.time_s[i]);
        pacing.insert((s.bbr_pacing_gain[i] * 100.0).round() as u32);
        cwnd.insert((s.bbr_cwnd_gain[i] * 100.0).round() as u32);
    }
    (pacing.into_iter().collect(), cwnd.into_iter().collect())
}

pub fn percentile(mut v: Vec<f64>, p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

/// A one-flow scenario of controller `cc` with `extra` in its flow table.
pub fn rate_paced_toml(cc: &str, extra: &str) -> String {
    format!(
        "duration_s = 1.0\n[topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 1e7\n\
         bottleneck_queue = {{ limit_pkts = 20 }}\n[[flows]]\ncc = \"{cc}\"\nrtt_s = 0.05\n{extra}\n"
    )
}

/// The error building controller `cc`'s flow with `extra` gives.
pub fn rate_paced_error(cc: &str, extra: &str) -> String {
    Scenario::from_toml(&rate_paced_toml(cc, extra))
        .and_then(|s| ccsim_core::Simulation::new(&s).map(|_| ()))
        .expect_err(extra)
        .to_string()
}

/// A controller that paces at its own rate (`has_cong_control`) defaults
/// to `pacing = "rate"` and refuses other pacing, ns-2's agents and Sack1,
/// each error naming the field.
pub fn assert_rate_paced_config(cc: &str) {
    let sc = Scenario::from_toml(&rate_paced_toml(cc, "")).unwrap();
    let norm: serde_json::Value = serde_json::from_str(&sc.to_json()).unwrap();
    assert_eq!(norm["flows"][0]["pacing"], "rate");
    let e = rate_paced_error(cc, "pacing = \"interval\"");
    assert!(e.contains("pacing") && e.contains("\"rate\""), "{e}");
    let e = rate_paced_error(cc, "tcp_model = \"ns2\"");
    assert!(e.contains("cc") && e.contains("rfc"), "{e}");
    let e = rate_paced_error(cc, "recovery = \"sack1\"");
    assert!(e.contains("cc") && e.contains("recovery"), "{e}");
}
