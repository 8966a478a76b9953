//! BBR v1 on a dumbbell, against what its design says it does (Cardwell
//! et al. 2016; draft-ietf-ccwg-bbr App. A) and what ns-3's `TcpBbr`
//! documentation shows: a full link with no standing queue on a deep
//! buffer, cwnd down to 4 segments about every 10 s (ProbeRTT), and the
//! shallow-buffer dominance over CUBIC.
use crate::common;
use common::bbr_dumbbell::*;
use common::*;

/// One flow, 100 Mb/s, 40 ms (BDP 333 packets), a buffer of 8 BDP: BBR
/// fills the link without a standing queue (the paper's Fig. 1 operating
/// point: in flight ≈ BDP, RTT ≈ RTprop), and its only queue is the one
/// the 1.25 phase builds, about a quarter of a BDP, drained by the 0.75
/// phase; no loss. Utilisation loses about 2% to ProbeRTT (200 ms and a
/// round in every 10 s at 4 packets).
#[test]
fn deep_buffer_single_flow_fills_the_link_without_a_standing_queue() {
    let r = run_db("bbr", 0.04, 8.0, 30.0, &["cc = \"bbr\""]);
    let l = &r.links[FWD_BNECK];
    let bdp = 100e6 * 0.04 / 12000.0;
    assert_eq!(l.drops, 0);
    assert!(l.utilization > 0.96, "utilisation {}", l.utilization);
    let q = queue_after(&r, 5.0);
    assert!(percentile(q.clone(), 0.5) <= 1.0, "median queue {}", percentile(q.clone(), 0.5));
    let q99 = percentile(q, 0.99);
    assert!(q99 > 0.15 * bdp && q99 < 0.3 * bdp, "p99 queue {q99} vs 0.25 BDP = {}", 0.25 * bdp);
    // cwnd: 2 BDP plus the budget and a small ACK-aggregation allowance
    let c = cwnd_of(&r, 0);
    let last = c.last().unwrap().1;
    assert!(last >= 2.0 * bdp && last <= 2.0 * bdp + 20.0, "cwnd {last} vs 2 BDP = {}", 2.0 * bdp);
}

/// ProbeRTT (ns-3's TcpBbr documentation shows the same trace): RTprop
/// is renewed by no lower sample on a path without a queue to drain, so
/// its 10 s window expires and cwnd drops to 4 packets, at about 10 s and
/// again about 10 s after the first ProbeRTT ended (200 ms and a round
/// later).
#[test]
fn probe_rtt_drops_cwnd_to_four_every_ten_seconds() {
    let r = run_db("bbr", 0.04, 8.0, 30.0, &["cc = \"bbr\""]);
    let c = cwnd_of(&r, 0);
    let dips: Vec<f64> = c.windows(2).filter(|w| w[1].1 <= 4.0 && w[0].1 > 4.0).map(|w| w[1].0).collect();
    assert_eq!(dips.len(), 2, "dips at {dips:?}");
    assert!(dips[0] > 10.0 && dips[0] < 10.2, "first ProbeRTT at {}", dips[0]);
    assert!(dips[1] - dips[0] > 10.2 && dips[1] - dips[0] < 10.5, "second at {}", dips[1]);
    assert_eq!(c.iter().map(|x| x.1).fold(f64::MAX, f64::min), 4.0);
}

/// BBR v1 against CUBIC on one path (Hock, Bless, Zitterbart, "Experimental
/// Evaluation of BBR Congestion Control", ICNP 2017, §IV-B; Ware et al.,
/// IMC 2019): with a buffer at or below a BDP, BBR's 2·BDP in flight keeps
/// the queue full and CUBIC backs off on the losses, so BBR takes most of
/// the link; with a deep buffer CUBIC fills it, BBR stays capped at 2 BDP
/// of a larger RTT's pipe and gets the smaller share.
#[test]
fn shallow_buffers_favour_bbr_and_deep_ones_cubic() {
    let share = |buf: f64| {
        let r = run_db("bbr", 0.04, buf, 30.0, &["cc = \"bbr\"", "cc = \"cubic\""]);
        assert!(r.links[FWD_BNECK].utilization > 0.97, "buffer {buf} BDP");
        r.flows[0].goodput_bps / (r.flows[0].goodput_bps + r.flows[1].goodput_bps)
    };
    let (shallow, deep) = (share(0.5), share(8.0));
    assert!(shallow > 0.8, "BBR's share at 0.5 BDP: {shallow}");
    assert!(deep < 0.4, "BBR's share at 8 BDP: {deep}");
}

#[test]
fn bbr_paces_at_its_own_rate_and_needs_the_rfc_recovery() {
    assert_rate_paced_config("bbr");
}

/// The flow series carry BBR's model as the kernel's `TCP_CC_INFO`
/// reports it (`bbr_get_info`): on a deep buffer BtlBw is the link's
/// payload rate (100 Mb/s · 1460/1500 bytes/s), RTprop the path's 40 ms
/// (up to 4 packets' queue, 0.5 ms, in the sample that renews an expired
/// RTprop as ProbeRTT begins),
/// the pacing gain cycles through 1.25, 0.75 and 1 (and 1 in ProbeRTT),
/// the cwnd gain is 2 (1 in ProbeRTT); a CUBIC flow beside it has NaN.
#[test]
fn the_flow_series_carry_bbrs_model_as_tcp_cc_info_does() {
    let r = run_db("bbr-info", 0.04, 8.0, 12.0, &["cc = \"bbr\"", "cc = \"cubic\"\nstart_s = 11.9"]);
    let s = &r.series.flows;
    for i in (0..s.time_s.len()).filter(|&i| s.flow[i] == 1 && s.time_s[i] > 2.0) {
        assert!(s.bbr_bw_bytes_per_s[i].is_nan() && s.bbr_min_rtt_s[i].is_nan(), "CUBIC's row {i}");
        assert!(s.bbr_pacing_gain[i].is_nan() && s.bbr_cwnd_gain[i].is_nan(), "CUBIC's row {i}");
    }
    let (pacing, cwnd) = model_gains_after(&r, 0, 2.0);
    assert_eq!(pacing, [75, 100, 125]);
    assert_eq!(cwnd, [100, 200], "ProbeRTT at about 10 s, else 2");
}
