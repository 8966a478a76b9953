//! The Telnet application (`app = "telnet"`) end to end: exponential send
//! times (KS test on the sender's departures), write-to-delivery delay in
//! closed form on an idle path, retransmission time included under loss,
//! and the optional result columns.
use crate::common;
use ccsim_core::sim::math;
use ccsim_core::sim::time::{from_secs, to_secs, tx_time};
use ccsim_core::stats::{ks_distance, Results};
use ccsim_core::transport::ReceiverAgent;
use ccsim_core::{Scenario, Simulation};
use common::*;

const BNECK_BPS: f64 = 100e6;
const BNECK_DELAY: f64 = 0.01;
const EDGE_BPS: f64 = 1e9;
const EDGE_DELAY: f64 = 0.001;

/// A dumbbell with one telnet flow (and `more` extra `[[flows]]` text).
fn telnet(interval: f64, duration: f64, warmup: f64, loss: f64, more: &str) -> String {
    format!(
        "name = \"telnet\"\nseed = 11\nduration_s = {duration:?}\nwarmup_s = {warmup:?}\n\
         [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = {BNECK_BPS:?}\nbottleneck_delay_s = {BNECK_DELAY:?}\n\
         bottleneck_queue = {{ limit_pkts = 100 }}\nbottleneck_loss = {loss:?}\n\
         edge_rate_bps = {EDGE_BPS:?}\nedge_delay_s = {EDGE_DELAY:?}\n\
         [[flows]]\napp = \"telnet\"\nmss_bytes = 1000\nheader_bytes = 40\napp_params = {{ interval_s = {interval:?} }}\n\
         {more}"
    )
}

fn sim(t: &str) -> Simulation {
    Simulation::new(&Scenario::from_toml(&common::classic_toml(t)).unwrap_or_else(|e| panic!("{e}\n{t}"))).unwrap()
}

/// One-way delay of a 1040-byte segment on the idle path: three hops'
/// serialisation and propagation.
fn idle_delay_s() -> f64 {
    to_secs(2 * tx_time(1040, EDGE_BPS) + tx_time(1040, BNECK_BPS) + from_secs(2.0 * EDGE_DELAY + BNECK_DELAY))
}

fn exp_cdf(mean: f64) -> impl Fn(f64) -> f64 {
    move |t| if t <= 0.0 { 0.0 } else { 1.0 - math::exp(-t / mean) }
}

#[test]
fn send_times_are_exponential_with_the_configured_mean() {
    // 500 s at a mean of 0.1 s: ~5000 writes. The window never holds a
    // segment back on this idle path, so the sender's departures of new
    // segments are the application's writes.
    let mut s = sim(&telnet(0.1, 500.0, 0.0, 0.0, ""));
    s.enable_send_trace(0);
    let r = s.run();
    assert_conserved(&r);
    let start = from_secs(r.flows[0].start_s);
    let mut last = start;
    let mut gaps = Vec::new();
    for rec in s.send_trace(0) {
        assert_eq!(rec.seq as usize, gaps.len(), "no retransmissions on an idle path");
        gaps.push(to_secs(rec.time - last));
        last = rec.time;
    }
    let n = gaps.len();
    assert!((4500..5500).contains(&n), "{n} writes in 500 s");
    // Kolmogorov's critical value at significance 0.001: 1.949 / sqrt(n)
    let crit = 1.949 / (n as f64).sqrt();
    let d = ks_distance(&mut gaps, exp_cdf(0.1));
    assert!(d < crit, "KS distance {d} >= {crit}");
    assert!(ks_distance(&mut gaps, exp_cdf(0.11)) > crit, "the test rejects a 10% wrong mean");
    assert!(ks_distance(&mut gaps, |t| (t / 0.2).clamp(0.0, 1.0)) > crit, "and a uniform law of that mean");
}

#[test]
fn delay_on_an_idle_path_is_the_one_way_delay_in_closed_form() {
    // Writes a second apart on average: no two segments meet in a queue
    // (the closest pair of this seed is far wider than a serialisation),
    // so every delay is exactly 2 (tx_edge + d_edge) + tx_bneck + d_bneck.
    let d0 = idle_delay_s();
    let r = sim(&telnet(1.0, 200.0, 10.0, 0.0, "")).run();
    assert_conserved(&r);
    let f = &r.flows[0];
    let n = f.app_delay_count.unwrap();
    assert!((150..230).contains(&n), "{n} measured segments");
    assert!((f.app_delay_mean_s.unwrap() - d0).abs() < 1e-9, "mean {:?} vs {d0}", f.app_delay_mean_s);
    assert!((f.app_delay_max_s.unwrap() - d0).abs() < 1e-9, "max {:?} vs {d0}", f.app_delay_max_s);
    // only writes at or after the warm-up count (~190 of ~200), and the
    // packet count covers the same period: one segment per write, no loss
    // (the last one may still be in flight at the end)
    assert!((n..=n + 1).contains(&f.data_pkts_sent), "{} sent vs {n} measured", f.data_pkts_sent);

    // At the paper's 0.1 s mean, segments sometimes queue behind one
    // another: the smallest delay is still d0 and the mean stays close.
    let mut s = sim(&telnet(0.1, 60.0, 0.0, 0.0, ""));
    let r = s.run();
    let d = s.tcp_receiver(0).unwrap().app_delay().unwrap();
    assert!((to_secs(d.min) - d0).abs() < 1e-9, "min {} vs {d0}", to_secs(d.min));
    let mean = r.flows[0].app_delay_mean_s.unwrap();
    assert!(mean >= d0 - 1e-12 && mean < d0 + 1e-3, "mean {mean} vs {d0}");
    assert_eq!(d.count, r.flows[0].data_pkts_sent, "every segment delivered and counted");
}

#[test]
fn delay_includes_retransmission_time_under_loss() {
    // 5% random loss on the bottleneck: a lost segment waits for its
    // retransmission (sparse traffic: mostly an RTO, at least 0.2 s), and
    // the segments behind it wait in the receiver for the hole to fill.
    let d0 = idle_delay_s();
    let clean = sim(&telnet(0.1, 100.0, 0.0, 0.0, "")).run();
    let lossy = sim(&telnet(0.1, 100.0, 0.0, 0.05, "")).run();
    assert_conserved(&lossy);
    let (c, l) = (&clean.flows[0], &lossy.flows[0]);
    assert!(l.retransmits > 10, "{} retransmissions", l.retransmits);
    assert!(l.app_delay_max_s.unwrap() >= d0 + 0.2, "max {:?}", l.app_delay_max_s);
    assert!(c.app_delay_max_s.unwrap() < d0 + 0.01);
    // each lost write adds at least (RTO - its own d0) to the sum
    let extra = (l.app_delay_mean_s.unwrap() - d0) * l.app_delay_count.unwrap() as f64;
    assert!(extra > 0.2 * l.retransmits as f64 * 0.5, "extra delay {extra} s for {} retransmits", l.retransmits);
    assert!(l.app_delay_mean_s.unwrap() > c.app_delay_mean_s.unwrap());
}

#[test]
fn only_telnet_flows_report_delay_columns() {
    let t = telnet(0.1, 10.0, 2.0, 0.0, "[[flows]]\ncc = \"reno\"\n");
    let r: Results = run(&Scenario::from_toml(&common::classic_toml(&t)).unwrap());
    let json: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    let flows = json["flows"].as_array().unwrap();
    let tf = flows.iter().find(|f| f["app_delay_count"].is_u64()).expect("the telnet flow has the columns");
    assert!(tf["app_delay_mean_s"].is_f64() && tf["app_delay_max_s"].is_f64());
    let bulk = flows.iter().filter(|f| f.get("app_delay_count").is_none()).count();
    assert_eq!(bulk, 1, "the bulk flow has none");
    // the scenario normalises the telnet parameters
    let sc = Scenario::from_toml(
        &common::classic_toml(&telnet(0.1, 1.0, 0.0, 0.0, "")).replace("app_params = { interval_s = 0.1 }", ""),
    )
    .unwrap();
    assert_eq!(sc.flows[0].app_params.as_ref().unwrap()["interval_s"], 0.1);
}

/// `app_params.rng = "ns2"`: the intervals are ns-2's own draws,
/// `Random::exponential() * interval_` (apps/telnet.cc) from its default
/// stream seeded with the scenario's seed (11), after the two `boot_time_`
/// draws its one TCP agent makes before the run (`TcpAgent::reset`, at
/// creation and at `$ns run`).
#[test]
fn ns2_rng_writes_at_ns2s_exponential_draws() {
    use ccsim_core::sim::ns2rng::Ns2Rng;
    let t = telnet(0.1, 5.0, 0.0, 0.0, "").replace("interval_s = 0.1 }", "interval_s = 0.1, rng = \"ns2\" }");
    let mut s = sim(&t);
    s.enable_send_trace(0);
    let r = s.run();
    assert_conserved(&r);
    let mut rng = Ns2Rng::seeded(11).unwrap();
    rng.uniform();
    rng.uniform();
    let mut at = from_secs(r.flows[0].start_s);
    let sends: Vec<_> = s.send_trace(0).iter().map(|rec| rec.time).collect();
    assert!(sends.len() > 30, "{} writes", sends.len());
    // A segment leaves at its write unless the window holds it until an
    // ACK (a write within an RTT of the last, with ns-2's initial window).
    let mut exact = 0;
    for (k, &got) in sends.iter().enumerate() {
        at = at.saturating_add(from_secs(rng.exponential() * 0.1));
        assert!(got >= at, "write {k} leaves before it is written");
        exact += (got == at) as usize;
    }
    assert!(exact * 10 >= sends.len() * 8, "{exact} of {} at their write", sends.len());
    // A seed ns-2's `$defaultRNG seed` refuses is a named error.
    let e = Scenario::from_toml(&common::classic_toml(&t.replace("seed = 11", "seed = 0")))
        .and_then(|sc| Simulation::new(&sc).map(|_| ()))
        .expect_err("seed 0 with ns-2's stream")
        .to_string();
    assert!(e.contains("seed") && e.contains("flows[0].app_params.rng") && e.contains("2147483646"), "{e}");
}

/// `ns2_boot_order`: ns-2's `$ns run` resets the agents node by node in
/// its own order, and each agent runs with the `boot_time_` it draws
/// then; the n draws before them are the agents' creation draws.
#[test]
fn ns2_boot_order_gives_each_flow_the_draw_of_its_place() {
    use ccsim_core::sim::ns2rng::Ns2Rng;
    let ns2 = "rtt_estimator = \"ns2\"\nclock_granularity_s = 0.1\n";
    let t = telnet(0.1, 1.0, 0.0, 0.0, &format!("{ns2}[[flows]]\ncount = 2\ncc = \"reno\"\n{ns2}"))
        .replace("interval_s = 0.1 }", "interval_s = 0.1, rng = \"ns2\" }");
    let boots = |order: &str| {
        let text = t.replace("seed = 11\n", &format!("seed = 11\n{order}"));
        let s = sim(&text);
        (0..3).map(|f| s.tcp_sender(f).unwrap().rtt.boot_time().unwrap()).collect::<Vec<f64>>()
    };
    let mut rng = Ns2Rng::seeded(11).unwrap();
    let u: Vec<f64> = (0..6).map(|_| rng.uniform() * 0.1).collect();
    assert_eq!(boots(""), vec![u[3], u[4], u[5]], "flow order without ns2_boot_order");
    assert_eq!(boots("ns2_boot_order = [2, 0, 1]\n"), vec![u[4], u[5], u[3]]);
    let e = |order: &str| {
        let text = t.replace("seed = 11\n", &format!("seed = 11\n{order}\n"));
        Scenario::from_toml(&common::classic_toml(&text))
            .and_then(|sc| Simulation::new(&sc).map(|_| ()))
            .expect_err(order)
            .to_string()
    };
    let dup = e("ns2_boot_order = [2, 0, 0]");
    assert!(dup.contains("ns2_boot_order[2]") && dup.contains("already"), "{dup}");
    let miss = e("ns2_boot_order = [2, 0]");
    assert!(miss.contains("ns2_boot_order") && miss.contains("misses TCP flow 1"), "{miss}");
    let range = e("ns2_boot_order = [3, 0, 1]");
    assert!(range.contains("ns2_boot_order[0]") && range.contains("0 to 2"), "{range}");
    // The order alone asks for ns-2's stream (a DropTail run whose only
    // draws are the phases), so its seed must be one ns-2 takes.
    let alone = t.replace(", rng = \"ns2\"", "").replace("seed = 11\n", "seed = 11\nns2_boot_order = [2, 0, 1]\n");
    assert_eq!(
        (0..3).map(|f| sim(&alone).tcp_sender(f).unwrap().rtt.boot_time().unwrap()).collect::<Vec<f64>>(),
        vec![u[4], u[5], u[3]]
    );
    let seed0 = Scenario::from_toml(&common::classic_toml(&alone.replace("seed = 11", "seed = 0")))
        .and_then(|sc| Simulation::new(&sc).map(|_| ()))
        .expect_err("seed 0 with ns-2's stream")
        .to_string();
    assert!(seed0.contains("seed") && seed0.contains("with ns2_boot_order;"), "{seed0}");
}
