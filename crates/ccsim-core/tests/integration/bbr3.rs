//! BBR v3 (`cc = "bbr3"`, draft-ietf-ccwg-bbr-06 with Google's ECN
//! response) on a dumbbell, against what the draft says it does: a full
//! link without loss or a standing queue over a deep buffer, ProbeRTT at
//! half a BDP about every 5 s, loss bounded near its 2% threshold where
//! the buffer is shallow (BBR v1's is not: Hock, Bless, Zitterbart,
//! "Experimental Evaluation of BBR Congestion Control", ICNP 2017), and
//! (Google's) ECN answered at a low RTT only. Shares against CUBIC are
//! printed, not asserted: neither the draft nor a reproducible study gives
//! numbers for this path (docs/controllers.md `bbr3` lists them).
use crate::common;
use ccsim_core::stats::FlowResult;
use ccsim_core::{Results, Scenario};
use common::bbr_dumbbell::*;
use common::*;

/// `count` per data packet sent, over the given flows.
fn per_sent(r: &Results, flows: std::ops::Range<usize>, count: fn(&FlowResult) -> u64) -> f64 {
    let f = &r.flows[flows];
    f.iter().map(count).sum::<u64>() as f64 / f.iter().map(|f| f.data_pkts_sent).sum::<u64>() as f64
}

/// Data packets dropped per data packet sent, over the given flows.
fn loss_rate(r: &Results, flows: std::ops::Range<usize>) -> f64 {
    per_sent(r, flows, |f| f.data_pkts_dropped)
}

/// Retransmissions per data packet sent, over the given flows.
fn retx_rate(r: &Results, flows: std::ops::Range<usize>) -> f64 {
    per_sent(r, flows, |f| f.retransmits)
}

/// One flow, 100 Mb/s, 40 ms (BDP 333 packets), 8 BDP of buffer: no loss
/// (nothing ever bounds the probes, and cwnd ≤ 2.25 BDP stays within pipe
/// and buffer); no standing queue, the queue only from ProbeBW_UP's three
/// rounds at 1.25 (at most cwnd 2.25 BDP less the pipe); cwnd 2 BDP plus
/// the aggregation allowance while cruising. D6 §5.3.4: ProbeRTT costs
/// (0.1 + 4.8)/5 = 2%; with the DOWN phases the link stays above 95%.
#[test]
fn deep_buffer_single_flow_fills_the_link_without_loss_or_a_standing_queue() {
    let r = run_db("bbr3", 0.04, 8.0, 30.0, &["cc = \"bbr3\""]);
    let l = &r.links[FWD_BNECK];
    let bdp = 100e6 * 0.04 / 12000.0;
    let q = queue_after(&r, 5.0);
    let (q50, q99) = (percentile(q.clone(), 0.5), percentile(q, 0.99));
    let c: Vec<f64> = cwnd_of(&r, 0).into_iter().filter(|x| x.0 > 5.0).map(|x| x.1).collect();
    let c50 = percentile(c, 0.5);
    eprintln!(
        "bbr3 alone, 8 BDP: drops {}, utilisation {:.4}, queue median {q50} p99 {q99} (BDP {bdp:.0}), median cwnd \
         {c50:.1}",
        l.drops, l.utilization
    );
    assert_eq!(l.drops, 0);
    assert_eq!(r.flows[0].retransmits, 0);
    assert!(l.utilization > 0.95, "utilisation {}", l.utilization);
    assert!(q50 <= 1.0, "median queue {q50}");
    assert!(q99 > 0.1 * bdp && q99 < 1.25 * bdp, "p99 queue {q99} vs BDP {bdp}");
    assert!(c50 >= 2.0 * bdp && c50 <= 2.0 * bdp + 20.0, "median cwnd {c50} vs 2 BDP {}", 2.0 * bdp);
}

/// D6 §5.3.4 and App. A.10: ProbeRTT when no RTT sample has renewed the
/// 5 s minimum (a path with no queue to drain never does), cwnd down to
/// max(0.5 BDP, 4) = 167 packets (v1: 4) for 200 ms and a round, so the
/// dips come every 5 s + 200 ms + a round.
#[test]
fn probe_rtt_halves_cwnd_about_every_five_seconds() {
    let r = run_db("bbr3", 0.04, 8.0, 30.0, &["cc = \"bbr3\""]);
    let bdp = 100e6 * 0.04 / 12000.0;
    let c = cwnd_of(&r, 0);
    let dips: Vec<f64> = c.windows(2).filter(|w| w[1].1 <= 0.6 * bdp && w[0].1 > 0.6 * bdp).map(|w| w[1].0).collect();
    let lows: Vec<f64> = dips
        .iter()
        .map(|&t| c.iter().filter(|x| x.0 >= t && x.0 < t + 0.3).map(|x| x.1).fold(f64::MAX, f64::min))
        .collect();
    eprintln!("ProbeRTT at {dips:?}, cwnd {lows:?} (0.5 BDP = {:.1})", 0.5 * bdp);
    assert_eq!(dips.len(), 5, "dips at {dips:?}");
    assert!(dips[0] > 5.0 && dips[0] < 5.3, "first ProbeRTT at {}", dips[0]);
    for w in dips.windows(2) {
        assert!(w[1] - w[0] > 5.2 && w[1] - w[0] < 5.5, "ProbeRTTs at {dips:?}");
    }
    for &low in &lows {
        assert!((low - 0.5 * bdp).abs() <= 2.0, "ProbeRTT cwnd {low} vs 0.5 BDP {}", 0.5 * bdp);
    }
}

/// BBR v3 beside CUBIC at 0.5, 1, 2 and 8 BDP of buffer (60 s, measured
/// after 5 s): the link stays full and v3 keeps its own loss (its packets
/// dropped per packet sent) and the link's under D6's 2% `LossThresh` at
/// every buffer, as the draft designs it to (§5.5.10: probes stop above 2%
/// loss; v3 answers each lossy round outside them). Its retransmissions
/// are printed, not bounded: the RFC sender finds a lost retransmission
/// only by its RTO (RFC 6675 has no rule for it), which resends every
/// un-SACKed segment, most of them still queued at 8 BDP
/// (docs/decisions/2026-12-02-a-flows-loss-not-its-retransmissions.md).
/// The shares are printed beside v1's.
#[test]
fn against_cubic_loss_stays_under_two_percent_at_every_buffer() {
    for buf in [0.5, 1.0, 2.0, 8.0] {
        let r = run_db("bbr3", 0.04, buf, 60.0, &["cc = \"bbr3\"", "cc = \"cubic\""]);
        let v1 = run_db("bbr3", 0.04, buf, 60.0, &["cc = \"bbr\"", "cc = \"cubic\""]);
        let share = |r: &Results| r.flows[0].goodput_bps / (r.flows[0].goodput_bps + r.flows[1].goodput_bps);
        let l = &r.links[FWD_BNECK];
        eprintln!(
            "{buf} BDP: bbr3 share {:.3} (v1 {:.3}); utilisation {:.4}; link loss {:.4} (v1 {:.4}); bbr3 loss {:.4}, \
             retx {:.4} ({} timeouts); cubic loss {:.4}, retx {:.4}",
            share(&r),
            share(&v1),
            l.utilization,
            l.loss_rate,
            v1.links[FWD_BNECK].loss_rate,
            loss_rate(&r, 0..1),
            retx_rate(&r, 0..1),
            r.flows[0].timeouts,
            loss_rate(&r, 1..2),
            retx_rate(&r, 1..2)
        );
        assert!(l.utilization > 0.97, "{buf} BDP: utilisation {}", l.utilization);
        assert!(l.loss_rate < 0.02, "{buf} BDP: link loss {}", l.loss_rate);
        assert!(loss_rate(&r, 0..1) < 0.02, "{buf} BDP: bbr3 loss {}", loss_rate(&r, 0..1));
    }
}

/// Four flows of one kind over a quarter-BDP buffer: BBR v1's flows each
/// keep up to 2 BDP in flight whatever the loss (Hock et al. 2017: loss
/// rates of several percent and more with shallow buffers), while v3's
/// bounds hold the loss near its 2% threshold; v1 retransmits over ten
/// times more.
#[test]
fn shallow_buffer_retransmissions_far_below_v1() {
    let four = |cc: &str| {
        let f = format!("cc = \"{cc}\"");
        run_db("bbr3", 0.04, 0.25, 30.0, &[&f, &f, &f, &f])
    };
    let (v3, v1) = (four("bbr3"), four("bbr"));
    let (r3, r1) = (retx_rate(&v3, 0..4), retx_rate(&v1, 0..4));
    let (l3, l1) = (&v3.links[FWD_BNECK], &v1.links[FWD_BNECK]);
    eprintln!(
        "4 flows, 0.25 BDP: bbr3 loss {:.4}, retx {r3:.4}, utilisation {:.4}; bbr loss {:.4}, retx {r1:.4}, \
         utilisation {:.4}",
        l3.loss_rate, l3.utilization, l1.loss_rate, l1.utilization
    );
    assert!(l3.loss_rate < 0.02, "bbr3 loss {}", l3.loss_rate);
    assert!(r3 < 0.02, "bbr3 retransmits {r3}");
    assert!(r1 > 10.0 * r3, "bbr retransmits {r1} vs bbr3 {r3}");
    assert!(l3.utilization > 0.95, "bbr3 utilisation {}", l3.utilization);
}

/// Google's ECN response runs only for a flow with ECN and per-segment
/// feedback whose min_rtt is at most 5 ms: two v3 flows over a queue that
/// marks above 20 packets keep it near the threshold without a drop at a
/// 2 ms RTT, and ignore the marks at 10 ms (the queue then sits well above
/// it). `ecn = true` defaults the feedback to DCTCP's echo for `bbr3`.
#[test]
fn ecn_marks_hold_the_queue_at_low_rtt_only() {
    let run_ecn = |rtt: f64| {
        let t = format!(
            "name = \"bbr3-ecn\"\nduration_s = 20.0\nwarmup_s = 5.0\nsample_interval_s = 0.01\n[topology]\n\
             kind = \"dumbbell\"\nbottleneck_rate_bps = 100e6\nbottleneck_delay_s = 0.0002\n\
             bottleneck_queue = {{ kind = \"red\", limit_pkts = 500, min_th_pkts = 20, max_th_pkts = 21, w_q = 1.0, \
             max_p = 1.0, gentle = false, ecn = true, ecn_mark_above_max = true }}\n\
             [[flows]]\ncount = 2\ncc = \"bbr3\"\necn = true\nrtt_s = {rtt}\nmss_bytes = 1460\n"
        );
        let sc = Scenario::from_toml(&t).unwrap();
        let norm: serde_json::Value = serde_json::from_str(&sc.to_json()).unwrap();
        assert_eq!(norm["flows"][0]["ecn_feedback"], "dctcp");
        let r = run(&sc);
        assert_conserved(&r);
        r
    };
    let low = run_ecn(0.002);
    let (l, q) = (&low.links[FWD_BNECK], percentile(queue_after(&low, 5.0), 0.5));
    eprintln!("2 ms: utilisation {:.4}, drops {}, marks {}, median queue {q}", l.utilization, l.drops, l.marks);
    assert_eq!(l.drops, 0);
    assert!(l.marks > 0);
    assert!(q <= 30.0, "median queue {q} vs K = 20");
    assert!(l.utilization > 0.95, "utilisation {}", l.utilization);
    let high = run_ecn(0.01);
    let (l, q) = (&high.links[FWD_BNECK], percentile(queue_after(&high, 5.0), 0.5));
    eprintln!("10 ms: utilisation {:.4}, drops {}, marks {}, median queue {q}", l.utilization, l.drops, l.marks);
    assert!(q > 60.0, "median queue {q}: marks ignored above 5 ms");
}

#[test]
fn bbr3_paces_at_its_own_rate_and_needs_the_rfc_recovery() {
    assert_rate_paced_config("bbr3");
    let sc = Scenario::from_toml(&rate_paced_toml("bbr3", "")).unwrap();
    let norm: serde_json::Value = serde_json::from_str(&sc.to_json()).unwrap();
    assert_eq!(norm["flows"][0]["ecn_feedback"], "rfc3168", "no ECN: the default feedback");
    let e = rate_paced_error("bbr3", "cc_params = { beta = 2.0 }");
    assert!(e.contains("cc_params.beta"), "{e}");
    let e = rate_paced_error("bbr3", "cc_params = { gain = 2.0 }");
    assert!(e.contains("gain"), "{e}");
}

/// The flow series carry v3's model (Google's `bbr_get_info`): on a deep
/// buffer `bw` is the link's payload rate, RTprop the path's 40 ms (a few
/// packets' queue in a renewing sample), and the gains are those of D6
/// §5.6.1's states: pacing 1.25 (UP), 0.9 (DOWN), 1 (CRUISE, REFILL,
/// ProbeRTT); cwnd 2.25 (UP), 2 and ProbeRTT's 0.5.
#[test]
fn the_flow_series_carry_v3s_model() {
    let r = run_db("bbr3-info", 0.04, 8.0, 12.0, &["cc = \"bbr3\""]);
    let (pacing, cwnd) = model_gains_after(&r, 0, 2.0);
    assert_eq!(pacing, [90, 100, 125]);
    assert_eq!(cwnd, [50, 200, 225]);
}
