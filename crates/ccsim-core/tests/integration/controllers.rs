//! Packet-level checks of the high-speed controllers against independent
//! truths: response functions under Bernoulli loss, H-TCP's α(Δ) exactly,
//! LTCP's layer increase, CUBIC's cubic epoch, FAST's α packets queued, and
//! two-flow convergence for every controller.
//!
//! Response functions. One flow, 10 Gb/s bottleneck with a 200,000-packet
//! buffer (never reached: every loss is a Bernoulli loss on the forward
//! bottleneck), RTT 100 ms, SACK recovery, no delayed ACKs; the window is
//! measured as goodput·RTT/MSS after a 10% warm-up, with 200-400 loss
//! events per run. Predictions and measured ratios (seed 1):
//! - HSTCP, RFC 3649 §5: w = 0.12/p^0.835. Measured 1.01 (p = 1e-4) and
//!   1.07 (p = 3e-5). The RFC's a(w) is built from this response function
//!   for a deterministic sawtooth; with Bernoulli loss the balance
//!   E[a(w)/w] = p·E[b(w)·w] gives windows a few percent larger, hence the
//!   +7%. Tolerance ±15%.
//! - STCP (Kelly 2003): per packet the window gains a and with probability
//!   p loses b·w, so the stationary mean solves a = p·b·E[w]:
//!   E[w] = a/(b·p) = 0.08/p (the "0.08/p" of the issue). Measured 0.90
//!   and 0.92: the window is frozen for about one RTT of recovery per event
//!   and losses within one window merge into one reduction, both of which
//!   the drift balance ignores (a deterministic sawtooth gives 0.936).
//!   Tolerance ±15%.
//! - LTCP, paper eq. (17)-(18): W'' = sqrt(K'/(β(1−β/2)p)) with K' the
//!   layer after the cut (solved as a fixed point, since K' depends on W''),
//!   mean window W''(1−β/2). Measured 1.07 (p = 1e-4, K' = 3) and 1.10
//!   (p = 3e-5, K' = 4); the same Bernoulli-vs-deterministic effect
//!   (sqrt(1/(1−β/2)) = 1.04) plus recovery time. Tolerance ±15%.
use crate::common;
use ccsim_core::sim::math;
use ccsim_core::transport::cc::htcp::alpha_h;
use ccsim_core::transport::cc::ltcp::{layer_of, layer_window};
use common::*;

const RTT: f64 = 0.1;
const MSS_BITS: f64 = 8000.0;

/// Mean window (packets) of one `cc` flow under Bernoulli loss `p`.
fn window_under_loss(cc: &str, p: f64, duration_s: f64) -> f64 {
    let r = Dumbbell::new(10e9, 200_000, duration_s)
        .name(&format!("{cc}-p{p}"))
        .delay(0.04)
        .warmup(duration_s * 0.1)
        .loss(p)
        .flow(&format!("cc = \"{cc}\"\nrecovery = \"sack\"\nrtt_s = {RTT}"))
        .run();
    assert_eq!(r.links[FWD_BNECK].drops, 0, "a queue drop: the buffer was meant to be out of reach");
    assert!(r.flows[0].fast_recoveries > 150, "too few loss events for a steady state");
    r.flows[0].goodput_bps * RTT / MSS_BITS
}

fn assert_ratio(what: &str, measured: f64, predicted: f64, tol: f64) {
    let ratio = measured / predicted;
    assert!((ratio - 1.0).abs() <= tol, "{what}: measured {measured:.1}, predicted {predicted:.1}, ratio {ratio:.3}");
}

#[test]
fn hstcp_follows_rfc3649_response_function() {
    for (p, dur) in [(1e-4, 1500.0), (3e-5, 1500.0)] {
        let w = window_under_loss("hstcp", p, dur);
        assert_ratio(&format!("HSTCP p = {p}"), w, 0.12 / math::powf(p, 0.835), 0.15);
    }
}

#[test]
fn stcp_mean_window_is_a_over_b_p() {
    for (p, dur) in [(1e-3, 300.0), (3e-4, 600.0)] {
        let w = window_under_loss("stcp", p, dur);
        assert_ratio(&format!("STCP p = {p}"), w, 0.01 / (0.125 * p), 0.15);
    }
}

/// Eq. (17) as a fixed point: W'' = sqrt(K'/(β(1−β/2)p)), K' = layer of (1−β)W''.
fn ltcp_w_peak(p: f64, w_t: f64, beta: f64) -> (f64, u32) {
    let w_of = |k: u32| (k as f64 / (beta * (1.0 - beta / 2.0) * p)).sqrt();
    let mut w = w_of(1);
    for _ in 0..100 {
        let k = layer_of((1.0 - beta) * w, w_t).max(1);
        let next = w_of(k);
        if (next - w).abs() < 1e-9 * w {
            return (next, k);
        }
        w = next;
    }
    panic!("eq. 17 fixed point did not settle at p = {p}");
}

#[test]
fn ltcp_follows_eq_18() {
    // the fixed point reproduces the paper's layer arithmetic
    assert_eq!(ltcp_w_peak(1e-4, 50.0, 0.15).1, 3);
    assert_eq!(ltcp_w_peak(3e-5, 50.0, 0.15).1, 4);
    for (p, dur) in [(1e-4, 700.0), (3e-5, 800.0)] {
        let (w_peak, _) = ltcp_w_peak(p, 50.0, 0.15);
        let w = window_under_loss("ltcp", p, dur);
        assert_ratio(&format!("LTCP p = {p}"), w, w_peak * (1.0 - 0.15 / 2.0), 0.15);
    }
}

/// Step a loss-free single-flow run and call `f(now_s, cwnd_before, cwnd_after, ssthresh)`
/// after every instant at which cwnd changed.
fn watch_cwnd(d: &Dumbbell, mut f: impl FnMut(f64, f64, f64, f64)) {
    let mut sim = d.sim();
    let mut w = sim.tcp_sender(0).unwrap().st.cwnd;
    while step(&mut sim) {
        let st = &sim.tcp_sender(0).unwrap().st;
        if st.cwnd != w {
            f(sim.now_s(), w, st.cwnd, st.ssthresh);
            w = st.cwnd;
        }
    }
    let r = finish(&sim);
    assert_eq!(r.links[FWD_BNECK].drops + r.links[FWD_BNECK].random_losses, 0, "the run must be loss-free");
}

#[test]
fn htcp_alpha_follows_eq_23_24_exactly_without_loss() {
    // 1 Gb/s, 100 ms: BDP 12,000 packets, far above the window reached in 6 s.
    let d = Dumbbell::new(1e9, 100_000, 6.0)
        .delay(0.04)
        .flow("cc = \"htcp\"\nrecovery = \"sack\"\nrtt_s = 0.1\ninit_ssthresh_pkts = 20");
    let mut first_ack: Option<f64> = None;
    let (mut checked, mut max_delta) = (0, 0.0f64);
    watch_cwnd(&d, |now, before, after, ssthresh| {
        // Δ runs from the first ACK, which is the first cwnd change
        let t0 = *first_ack.get_or_insert(now);
        if before < ssthresh {
            return; // slow start
        }
        let delta = now - t0;
        // one ACK per instant: cwnd += α/cwnd, α = 2(1 − β)·α_H(Δ), β = 0.5 before any event
        let alpha = (after - before) * before;
        let expect = 2.0 * (1.0 - 0.5) * alpha_h(delta, 1.0);
        assert!((alpha - expect).abs() <= 1e-9 * expect, "Δ = {delta}: α = {alpha}, eq. 23-24 gives {expect}");
        checked += 1;
        max_delta = max_delta.max(delta);
    });
    assert!(checked > 1000 && max_delta > 5.0, "checked {checked} ACKs up to Δ = {max_delta}");
}

#[test]
fn ltcp_grows_k_per_rtt_and_adds_layers_at_w_k() {
    // Loss-free LTCP from cwnd 40 to past W_4 = 500: every ACK adds K/cwnd,
    // with K the layer of the window the ACK finds (W_K = K(K+1)(K−1)/6·W_T).
    let d = Dumbbell::new(1e9, 100_000, 25.0)
        .delay(0.04)
        .flow("cc = \"ltcp\"\nrecovery = \"sack\"\nrtt_s = 0.1\ninit_ssthresh_pkts = 40");
    let mut seen = std::collections::BTreeMap::new();
    watch_cwnd(&d, |_, before, after, ssthresh| {
        if before < ssthresh {
            return;
        }
        let k = (after - before) * before;
        let expect = layer_of(before, 50.0).max(1) as f64;
        assert!((k - expect).abs() < 1e-9 * expect, "cwnd {before}: increase ×cwnd = {k}, layer {expect}");
        seen.entry(expect as u32).or_insert(before);
    });
    // every layer up to 4 was used, each first at (just above) its W_K
    for k in 2..=4u32 {
        let first = seen[&k];
        assert!(first >= layer_window(k, 50.0) && first < layer_window(k, 50.0) + 1.0, "layer {k} first at {first}");
    }
}

#[test]
fn cubic_epoch_follows_the_cubic_curve() {
    // 100 Mb/s, 100 ms, 100-packet buffer: losses at W ≈ 1300 packets, where
    // the cubic term (K ≈ 10 s) dominates the Reno-friendly estimate. Fast
    // convergence off, so W_max is simply the window at the loss.
    let d = Dumbbell::new(100e6, 100, 120.0)
        .delay(0.04)
        .sample(0.05)
        .flow("cc = \"cubic\"\ncc_params = { fast_convergence = false }\nrecovery = \"sack\"\nrtt_s = 0.1");
    let r = d.run();
    let s = &r.series.flows;
    let (t, w, ss) = (&s.time_s, &s.cwnd, &s.ssthresh);
    // congestion events: samples where cwnd fell
    let drops: Vec<usize> = (1..w.len()).filter(|&i| w[i] < w[i - 1] * 0.95).collect();
    assert!(drops.len() >= 5, "expected several epochs, got {}", drops.len());
    let mut checked = 0;
    for pair in drops.windows(2).skip(1) {
        let (a, b) = (pair[0], pair[1]);
        let w_max = w[a - 1];
        // the epoch starts when congestion avoidance resumes: the last sample
        // still at ssthresh (recovery holds cwnd there)
        let start = (a..b).take_while(|&i| w[i] <= ss[a] + 1e-9).last().unwrap_or(a);
        let (t0, w0) = (t[start], w[start]);
        let k = math::cbrt((w_max - w0) / 0.4);
        for i in start + 2..b - 1 {
            let pred = 0.4 * math::powi(t[i] - t0 - k, 3) + w_max;
            assert!(
                (w[i] - pred).abs() <= 0.02 * w_max,
                "t = {:.2}: cwnd {:.1}, W(t) = C(t−K)³ + W_max = {pred:.1} (K = {k:.2}, W_max = {w_max:.1})",
                t[i],
                w[i]
            );
            checked += 1;
        }
    }
    assert!(checked > 500, "checked {checked} samples");
}

#[test]
fn fast_keeps_alpha_packets_queued_per_flow() {
    // Two FAST flows, α = 50 each, 100 Mb/s, 50 ms, ample buffer: the
    // equilibrium of w ← (1−γ)w + γ(baseRTT/RTT·w + α) is w(1 − baseRTT/RTT) = α,
    // i.e. α packets of each flow in the queue, 2α in all.
    let d = Dumbbell::new(100e6, 2000, 60.0)
        .delay(0.01)
        .sample(0.1)
        .flow("count = 2\ncc = \"fast\"\ncc_params = { alpha = 50.0 }\nrecovery = \"sack\"\nrtt_s = 0.05\nstart_spread_s = 1.0");
    let r = d.run();
    let q = &r.series.links;
    let tail: Vec<f64> = q
        .time_s
        .iter()
        .zip(&q.queue_pkts)
        .zip(&q.link)
        .filter(|((t, _), l)| **t > 30.0 && **l as usize == FWD_BNECK)
        .map(|((_, &n), _)| n as f64)
        .collect();
    let mean_q = mean(&tail);
    assert!((mean_q - 100.0).abs() <= 10.0, "mean queue {mean_q}, expected 2α = 100");
    assert_eq!(r.links[FWD_BNECK].drops, 0);
    // each flow's own backlog: cwnd·(1 − baseRTT/srtt), with baseRTT the
    // empty-path RTT (propagation plus one packet's serialisation per hop)
    let s = &r.series.flows;
    for f in 0..2u32 {
        let per: Vec<f64> = (0..s.time_s.len())
            .filter(|&i| s.flow[i] == f && s.time_s[i] > 30.0)
            .map(|i| s.cwnd[i] * (1.0 - r.flows[f as usize].rtt_prop_s / s.srtt_s[i]))
            .collect();
        let m = mean(&per);
        assert!((m - 50.0).abs() <= 7.5, "flow {f}: {m} packets queued, expected α = 50");
    }
}

/// Jain's index of the two flows' goodput over a sliding 10 s window, per 1 s
/// sample (series rows exist only while a flow is active: before the second
/// flow starts its goodput is 0).
fn jain_10s(r: &ccsim_core::Results) -> Vec<(f64, f64)> {
    let s = &r.series.flows;
    let rows = |f: u32| (0..s.time_s.len()).filter(move |&i| s.flow[i] == f);
    let times: Vec<f64> = rows(0).map(|i| s.time_s[i]).collect();
    let a: Vec<f64> = rows(0).map(|i| s.goodput_bps[i]).collect();
    let b: Vec<f64> =
        times.iter().map(|&t| rows(1).find(|&i| s.time_s[i] == t).map_or(0.0, |i| s.goodput_bps[i])).collect();
    (10..times.len())
        .map(|i| {
            let x: f64 = a[i - 9..=i].iter().sum();
            let y: f64 = b[i - 9..=i].iter().sum();
            (times[i], ccsim_core::stats::jain(&[x, y]))
        })
        .collect()
}

/// Two identical flows, the second starting 10 s after the first, on
/// 100 Mb/s, RTT 40 ms, buffer = BDP (480 packets). Returns the time (after
/// the second start) from which the 10 s Jain index stays ≥ 0.95, if any.
fn convergence_time(cc: &str) -> Option<f64> {
    let flow = format!("cc = \"{cc}\"\nrecovery = \"sack\"\nrtt_s = 0.04");
    let r = Dumbbell::new(100e6, 480, 200.0)
        .name(&format!("converge-{cc}"))
        .delay(0.01)
        .sample(1.0)
        .flow(&flow)
        .flow(&format!("{flow}\nstart_s = 10.0"))
        .run();
    let j = jain_10s(&r);
    let last_bad = j.iter().rposition(|&(t, x)| t > 20.0 && (x.is_nan() || x < 0.95)); // NaN: no traffic
    match last_bad {
        None => Some(10.0),
        Some(i) if i + 1 < j.len() => Some(j[i + 1].0 - 10.0),
        _ => None,
    }
}

/// Documented bounds (seconds after the second flow starts), about 1.5× the
/// measured times (seed 1, this test; printed with `--nocapture`): reno 114,
/// hstcp 46, htcp 12, ltcp 31, bic 16, cubic 51, vegas 14, fast 10 (the
/// earliest this test can report: fair from the first full 10 s window). AIMD with β = 0.5 closes half the gap per
/// congestion epoch, and an epoch at this BDP is ~10 s, so Reno is slowest.
#[test]
fn two_flows_converge_to_fairness() {
    let bounds = [
        ("reno", 170.0),
        ("hstcp", 70.0),
        ("htcp", 20.0),
        ("ltcp", 50.0),
        ("bic", 25.0),
        ("cubic", 80.0),
        ("fast", 15.0),
        ("vegas", 20.0),
    ];
    let results: Vec<(&str, f64, Option<f64>)> = std::thread::scope(|sc| {
        let hs: Vec<_> = bounds.iter().map(|&(cc, b)| sc.spawn(move || (cc, b, convergence_time(cc)))).collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for &(cc, bound, t) in &results {
        eprintln!("{cc}: converged {t:?} s after the second start (bound {bound} s)");
    }
    for (cc, bound, t) in results {
        match t {
            Some(t) => assert!(t <= bound, "{cc}: converged {t} s after the second start, bound {bound} s"),
            None => panic!("{cc}: never converged (Jain ≥ 0.95 over 10 s) within 190 s"),
        }
    }
}

/// Scalable TCP does not converge: MIMD keeps the ratio of two windows when
/// both back off at the same drop-tail overflow (Kelly 2003 relies on
/// unsynchronised losses for fairness). Checked so that a change making STCP
/// behave like AIMD is noticed.
#[test]
fn stcp_two_flows_keep_their_unfair_ratio() {
    assert_eq!(convergence_time("stcp"), None);
}

/// Regression for the RTO ssthresh rule (min(FlightSize, cwnd), tcp/sender/rto.rs
/// `on_rto`): one CUBIC flow whose slow start overshoots a 100 Mb/s, 40 ms
/// path (BDP + buffer = 960 packets). With ssthresh taken from the whole
/// FlightSize at the RTO that ends the failed first recovery, every later
/// slow start overshot into the same failure: 30 RTOs in 30 s and 64 Mb/s.
#[test]
fn cubic_recovers_from_slow_start_overshoot() {
    let r = Dumbbell::new(100e6, 480, 30.0).delay(0.01).flow("cc = \"cubic\"\nrecovery = \"sack\"\nrtt_s = 0.04").run();
    let f = &r.flows[0];
    assert!(f.timeouts <= 2, "{} RTOs", f.timeouts);
    assert!(f.goodput_bps > 85e6, "goodput {}", f.goodput_bps);
}
