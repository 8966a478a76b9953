//! E-TCP end to end: equilibrium under Bernoulli loss (§III-A eq 5 and
//! §VII-A eq 11), reliability under forward and ACK loss (§IV), pacing
//! (§III-C), recovery after total loss, conservation and determinism.
use crate::common;
use common::*;

/// Per-packet balance of the controller's drift: (1 - p) / b = p d(W),
/// i.e. W = 2(1 - p) / (p - p0 (1 - p)). The paper's fluid model (eq 5)
/// increases on every packet sent and gives 2 / (p - p0); see
/// `transport::etcp::control` for why both are stated.
fn per_packet_eq(p: f64, p0: f64) -> f64 {
    2.0 * (1.0 - p) / (p - p0 * (1.0 - p))
}

/// One E-TCP flow over a fast, uncongested path with Bernoulli loss `p`:
/// the mean of W (or x) over the second half of the run.
fn long_run_value(p: f64, fields: &str, rtt: f64, secs: f64) -> f64 {
    let d = Dumbbell::new(1e9, 100_000, secs)
        .sample(1.0)
        .loss(p)
        .flow(&format!("transport = \"etcp\"\nrtt_s = {rtt}\n{fields}"));
    let r = d.run();
    let s = &r.series.flows;
    let col = if fields.contains("\"rate\"") { &s.rate_pps } else { &s.cwnd };
    let tail: Vec<f64> = s.time_s.iter().zip(col).filter(|(t, _)| **t > secs / 2.0).map(|(_, v)| *v).collect();
    mean(&tail)
}

#[test]
fn window_equilibrium_under_bernoulli_loss() {
    // (p, p0, b): the path carries ~2000-5000 packets/s, far below 1 Gb/s.
    for (p, p0, b) in [(0.02, 0.01, 25.0), (0.05, 0.01, 25.0), (0.03, 0.02, 10.0)] {
        let w = long_run_value(p, &format!("p0 = {p0}\nb = {b}"), 0.1, 300.0);
        let exact = per_packet_eq(p, p0);
        let fluid = 2.0 / (p - p0);
        assert!((w / exact - 1.0).abs() < 0.05, "p={p} p0={p0} b={b}: W {w} vs per-packet {exact}");
        let margin = (exact / fluid - 1.0).abs();
        assert!((w / fluid - 1.0).abs() < margin + 0.05, "p={p} p0={p0} b={b}: W {w} vs 2/(p-p0) {fluid}");
    }
}

/// The rate variant's per-packet law (§VII-A), written out here from the
/// paper's equations rather than taken from `Control`: per packet that
/// arrives x += 1/(b tau), per packet lost x -= x/(b tau (2 + p0 x)), x at
/// least min_w / tau. Returns the long-run *time* average of x, which a
/// sender pacing at x makes the harmonic mean of x over packets (packet
/// i occupies 1/x_i seconds), over n packets with Bernoulli(p) fates.
fn rate_chain_time_mean(p: f64, p0: f64, b: f64, tau: f64, n: usize) -> f64 {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
    let mut x = per_packet_eq(p, p0);
    let (mut secs, mut k) = (0.0, 0usize);
    for i in 0..n {
        if rng.gen::<f64>() < p {
            x -= x / (b * tau * (2.0 + p0 * x));
        } else {
            x += 1.0 / (b * tau);
        }
        x = x.max(1.0 / tau);
        if i > n / 10 {
            secs += 1.0 / x;
            k += 1;
        }
    }
    k as f64 / secs
}

#[test]
fn rate_equilibrium_is_independent_of_the_rtt() {
    // x* = 2/(p - p0) packets/s whatever the RTT (§VII-B, eq 11) is the
    // fluid limit: the balance of the mean drift. A flow fluctuates around
    // it, and how widely depends on b tau: one loss cuts x by
    // 1/(b tau (2 + p0 x)), 7% at tau = 0.2 s and 2% at 0.8 s (b = 25,
    // x = 96/s), so the time average sits below x* by 4% and 1% (Jensen:
    // pacing at x weights slow periods by their length). Two checks:
    // - the simulated flow (every mechanism: pacing, bitmap ACKs, loss
    //   detection, the measured tau) matches the per-packet law of
    //   `rate_chain_time_mean` within 3%, at both RTTs; the mean of six
    //   seeds of 600 s (a single run's spread is about 2.5%);
    // - that law approaches x* as b tau grows: within 2% at tau = 0.8 s.
    // Not at tau = 0.05 s (b tau = 1.25: a loss cuts x by 27%): there the
    // sender's one-RTT feedback delay matters and the law above no longer
    // describes the flow (simulated 0.89 x*, law 0.85 x*; 8 seeds x 1200 s,
    // 2026-11-23). A 5% bound on x* at 0.05 s from one seed of 300 s would
    // hold by that seed's luck (seed 1 gives 0.95, seeds 3-8 0.78-0.90).
    let (p, p0, b) = (0.03, 0.01, 25.0);
    let exact = per_packet_eq(p, p0);
    for rtt in [0.2, 0.8] {
        let runs: Vec<f64> = (1..=6)
            .map(|seed| {
                let secs = 600.0;
                let d = Dumbbell::new(1e9, 100_000, secs)
                    .seed(seed)
                    .sample(1.0)
                    .loss(p)
                    .flow(&format!("transport = \"etcp\"\nrtt_s = {rtt}\nvariant = \"rate\""));
                let r = d.run();
                let s = &r.series.flows;
                let tail: Vec<f64> =
                    s.time_s.iter().zip(&s.rate_pps).filter(|(t, _)| **t > secs / 2.0).map(|(_, v)| *v).collect();
                mean(&tail)
            })
            .collect();
        let x = mean(&runs);
        let law = rate_chain_time_mean(p, p0, b, rtt, 4_000_000);
        assert!((x / law - 1.0).abs() < 0.03, "rtt {rtt}: x {x} vs the per-packet law's {law} (runs {runs:?})");
        if rtt == 0.8 {
            assert!((law / exact - 1.0).abs() < 0.02, "b tau = 20: law {law} vs x* {exact}");
        }
    }
}

#[test]
fn reliable_transfer_survives_forward_and_ack_loss() {
    // 2 MB over 10% forward and 5% ACK loss: every byte reaches the
    // application once, in order, and the transfer completes.
    let bytes = 2_000_000u64;
    let d = Dumbbell::new(1e8, 1000, 120.0)
        .loss(0.10)
        .reverse_loss(0.05)
        .flow(&format!("transport = \"etcp\"\nrtt_s = 0.05\nbytes = {bytes}"));
    let mut sim = d.sim();
    let r = sim.run();
    assert_conserved(&r);
    let f = &r.flows[0];
    assert_eq!(f.delivered_bytes, bytes, "every byte delivered exactly once");
    assert!(f.completed_s.is_some(), "the transfer completes");
    assert!(f.retransmits > 0);
}

#[test]
fn lost_retransmissions_are_found_without_a_timeout() {
    // An infinite flow under 10% loss: retransmissions are lost 10% of
    // the time, and later ACKs reveal them without the timer.
    let d = Dumbbell::new(1e8, 1000, 60.0).loss(0.10).flow("transport = \"etcp\"\nrtt_s = 0.05");
    let mut sim = d.sim();
    sim.run_until(60.0);
    let s = sim.etcp_sender(0).expect("live E-TCP sender");
    let found = s.lost_retransmissions_inferred();
    assert!(found > 100, "lost retransmissions found from later ACKs: {found}");
    // The timer fires only when one datum is lost about four times in a
    // row (its RTO is 0.2 s, four RTTs): rare next to the inferences.
    assert!(s.stats.rtx_timeouts * 20 < found, "timer {} vs inferred {found}", s.stats.rtx_timeouts);
    assert!(s.stats.retransmits_again >= found);
    // The receiver's in-order point stays close behind what was sent.
    let r = finish(&sim);
    assert!(r.flows[0].delivered_bytes > 0);
}

/// The receiver window bounds what E-TCP has unanswered. With b = 0.01
/// each arrival adds 100 packets to W, so W/tau_r soon exceeds the path
/// by far: without a window the sender's unanswered packets run into the
/// thousands (the check below that they do keeps this test able to
/// fail); with `rwnd_pkts = 64` they never pass 64, and the flow still
/// delivers.
#[test]
fn the_receiver_window_bounds_unanswered_packets() {
    let most = |rwnd: &str| {
        let d = Dumbbell::new(1e7, 50, 2.0).flow(&format!("transport = \"etcp\"\nrtt_s = 0.05\nb = 0.01\n{rwnd}"));
        let mut sim = d.sim();
        let mut most = 0;
        for i in 1..=400 {
            sim.run_until(i as f64 * 0.005);
            most = most.max(sim.etcp_sender(0).unwrap().unanswered());
        }
        let r = finish(&sim);
        assert_conserved(&r);
        (most, r.flows[0].delivered_bytes)
    };
    let (open, _) = most("");
    assert!(open > 1000, "without a window W/tau_r outruns the path: {open} unanswered");
    let (bounded, delivered) = most("rwnd_pkts = 64");
    assert!(bounded <= 64, "{bounded} unanswered with rwnd_pkts = 64");
    assert!(delivered > 1_000_000, "the flow still delivers: {delivered} bytes");
}

/// Inter-send intervals normalised by the mean in force: (mean, CV).
fn pacing_stats(exp: bool) -> (f64, f64) {
    let d = Dumbbell::new(1e9, 1000, 30.0)
        .loss(0.02)
        .flow(&format!("transport = \"etcp\"\nrtt_s = 0.1\nexp_pacing = {exp}"));
    let mut sim = d.sim();
    sim.etcp_sender_mut(0).unwrap().trace = Some(Box::default());
    sim.run_until(30.0);
    let tr = *sim.etcp_sender(0).unwrap().trace.clone().unwrap();
    let x: Vec<f64> =
        tr.windows(2).filter_map(|w| w[0].mean_interval_s.map(|m| (w[1].time - w[0].time) as f64 / 1e12 / m)).collect();
    assert!(x.len() > 10_000, "{}", x.len());
    let m = mean(&x);
    let sd = (x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / x.len() as f64).sqrt();
    (m, sd / m)
}

#[test]
fn exponential_pacing_has_mean_tau_over_w_and_cv_one() {
    let (m, cv) = pacing_stats(true);
    assert!((m - 1.0).abs() < 0.02, "mean interval / (tau_r/W) = {m}");
    assert!((cv - 1.0).abs() < 0.03, "CV {cv}");
}

#[test]
fn deterministic_pacing_has_cv_zero() {
    let (m, cv) = pacing_stats(false);
    // Intervals are exact up to picosecond rounding.
    assert!((m - 1.0).abs() < 1e-3, "mean interval / (tau_r/W) = {m}");
    assert!(cv < 1e-3, "CV {cv}");
}

#[test]
fn a_flow_whose_every_packet_is_lost_recovers() {
    let d = Dumbbell::new(1e8, 1000, 60.0).loss(1e-9).flow("transport = \"etcp\"\nrtt_s = 0.05");
    let mut sim = d.sim();
    sim.run_until(10.0);
    let before = sim.flows.get(0).delivered_bytes();
    set_loss(&mut sim, FWD_BNECK, 1.0); // outage: every data packet lost
    sim.run_until(20.0);
    let s = sim.etcp_sender(0).unwrap();
    assert!(s.stats.sig_timeouts > 0, "the signalling timer fired");
    let w_outage = s.ctl.value;
    let during = sim.flows.get(0).delivered_bytes();
    set_loss(&mut sim, FWD_BNECK, 0.0);
    sim.run_until(60.0);
    let after = sim.flows.get(0).delivered_bytes();
    let s = sim.etcp_sender(0).unwrap();
    assert!(before > 0 && after > during, "delivery resumes: {before} {during} {after}");
    assert!(s.ctl.value > 2.0 * w_outage, "the window grows again: {} -> {}", w_outage, s.ctl.value);
    finish(&sim);
}

#[test]
fn unreliable_finite_transfer_ends_and_counts_what_arrived() {
    let d = Dumbbell::new(1e8, 1000, 30.0)
        .loss(0.05)
        .flow("transport = \"etcp\"\nrtt_s = 0.05\nreliable = false\nbytes = 1000000");
    let r = d.run();
    let f = &r.flows[0];
    assert!(f.completed_s.is_some());
    assert_eq!(f.retransmits, 0, "streaming never retransmits");
    assert_eq!(f.data_pkts_sent, 1000);
    // About 5% of the data is lost and not recovered.
    let lost = 1.0 - f.delivered_bytes as f64 / 1e6;
    assert!((0.03..0.07).contains(&lost), "{lost}");
}

#[test]
fn same_seed_same_bytes_and_conservation() {
    let d = Dumbbell::new(1e8, 20, 20.0)
        .sample(0.5)
        .flow("transport = \"etcp\"\nrtt_s = 0.05\ncount = 3")
        .flow("transport = \"etcp\"\nrtt_s = 0.1\nvariant = \"rate\"")
        .flow("rtt_s = 0.08");
    let (a, b) = (d.run(), d.run());
    let strip = |r: &ccsim_core::Results| {
        let mut v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
        v["wall_s"] = 0.into();
        v.to_string()
    };
    assert_eq!(strip(&a), strip(&b));
    let c = d.clone().seed(2).run();
    assert_ne!(strip(&a), strip(&c), "another seed draws other pacing intervals");
    assert_eq!(a.flows.len(), 5);
    assert!(a.flows.iter().filter(|f| f.transport == "etcp").all(|f| f.loss_est.is_some()));
    assert!(a.flows.iter().filter(|f| f.transport == "tcp").all(|f| f.loss_est.is_none()));
    assert_eq!(a.series.flows.rate_pps.len(), a.series.flows.time_s.len());
}
