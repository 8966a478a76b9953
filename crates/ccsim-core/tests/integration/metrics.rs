//! The AQM-era metrics against what is known independently of them:
//!
//! - queueing delay per link direction (`qdelay_*`, the link series'
//!   `qdelay_mean_s`/`qdelay_max_s`) on a burst whose every packet's wait
//!   is known in closed form, in both of the engine's ways of running a
//!   DropTail link (event by event, and the virtual FIFO that decides
//!   departures at arrival), with and without a warm-up, and past the
//!   virtual FIFO's 1.1 s packed-wait range;
//! - Little's law against the exact time-averaged queue on a TCP dumbbell;
//! - per-class delay from a discipline that names two classes;
//! - recording them (`qdelay = true`) changes no other result;
//! - CE marks: counted per flow where the queues set them, so the flows'
//!   sum equals the links' marks over the same period (RED, CoDel, PIE,
//!   FQ-CoDel with ECN, DualPI2), and the senders see ECE-carrying ACKs.
use crate::common;

use ccsim_core::net::ctx::LinkCtx;
use ccsim_core::net::packet::{PacketPool, PktId};
use ccsim_core::net::queue::QueueDiscipline;
use ccsim_core::stats::{LinkQDelay, LinkResult, Results};
use ccsim_core::{Scenario, Simulation};
use common::*;
use std::collections::VecDeque;

/// The burst: a UDP source sends `N` 1000-byte packets δ = 0.2 ms apart
/// (40 Mb/s) through a 100 Gb/s edge into an 8 Mb/s bottleneck (T = 1 ms
/// per packet) with room for them all. Packet k reaches the bottleneck at
/// a0 + k·δ and, the queue never emptying, starts at a0 + k·T: it waits
/// exactly k·(T − δ) = k·0.8 ms.
const N: u64 = 2000;
const T_PS: u64 = 1_000_000_000;
const DELTA_PS: u64 = 200_000_000;
const WAIT_PS: u64 = T_PS - DELTA_PS;
/// a0: the edge's serialisation (1000 B at 100 Gb/s) and delay.
const A0_PS: u64 = 80_000 + 500_000_000;

/// A link's queueing delay, recorded (the scenarios here set `qdelay`).
fn qd(l: &LinkResult) -> &LinkQDelay {
    l.qdelay.as_ref().expect("qdelay = true: the link's delays are in its results")
}

fn burst(ties: &str, warmup_s: f64, sample_s: f64) -> Results {
    let stop = (N as f64 - 0.5) * DELTA_PS as f64 / 1e12;
    let t = format!(
        "name = \"burst\"\nseed = 1\nduration_s = 2.5\nwarmup_s = {warmup_s:?}\nsample_interval_s = {sample_s:?}\n\
         qdelay = true\n\
         [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 8e6\nbottleneck_delay_s = 0.001\n\
         edge_rate_bps = 100e9\nedge_delay_s = 0.0005\n\
         bottleneck_queue = {{ limit_pkts = {N}, ties = \"{ties}\" }}\n\
         [[flows]]\ntransport = \"udp\"\nrate_bps = 40e6\nmss_bytes = 960\nheader_bytes = 40\nstop_s = {stop:?}\n"
    );
    let sc = Scenario::from_toml(&t).unwrap_or_else(|e| panic!("{e}\n{t}"));
    let mut sim = Simulation::new(&sc).unwrap();
    assert_eq!(sim.net.links[FWD_BNECK].is_virtual_fifo(), ties == "arrival_first");
    let r = sim.run();
    assert_conserved(&r);
    r
}

/// The nearest-rank quantile q/10,000 of the waits k·WAIT_PS, k in `ks`.
fn closed_quantile(ks: &[u64], q: u64) -> f64 {
    let rank = (ks.len() as u64 * q).div_ceil(10_000).max(1);
    (ks[rank as usize - 1] * WAIT_PS) as f64 / 1e12
}

fn assert_close(got: f64, want: f64, what: &str) {
    assert!((got - want).abs() <= want / 128.0, "{what}: {got} vs {want}");
}

/// Every packet of the burst waits k·(T − δ): the percentiles are within
/// the histogram's 1/128, the mean and maximum exact, on both ways of
/// running the link (waits beyond 1.1 s included: the last packets wait
/// 1.6 s), and with a warm-up only the packets that start after it count.
#[test]
fn a_burst_waits_as_the_closed_form_says() {
    for (warmup, first_k) in [(0.0, 0u64), (0.8, 800)] {
        // with a warm-up W, packet k counts when a0 + k·T > W
        let ks: Vec<u64> = (0..N).filter(|&k| A0_PS + k * T_PS > (warmup * 1e12) as u64).collect();
        assert_eq!(ks[0], first_k);
        let mut seen = Vec::new();
        for ties in ["event_order", "arrival_first"] {
            let r = burst(ties, warmup, 0.0);
            let (l, q) = (&r.links[FWD_BNECK], qd(&r.links[FWD_BNECK]));
            let what = format!("{ties}, warm-up {warmup}");
            assert_eq!((l.tx_pkts, l.drops), (ks.len() as u64, 0), "{what}");
            assert_close(q.p50_s, closed_quantile(&ks, 5000), &format!("{what}: p50"));
            assert_close(q.p90_s, closed_quantile(&ks, 9000), &format!("{what}: p90"));
            assert_close(q.p99_s, closed_quantile(&ks, 9900), &format!("{what}: p99"));
            assert_close(q.p999_s, closed_quantile(&ks, 9990), &format!("{what}: p99.9"));
            let sum: u64 = ks.iter().sum();
            assert_eq!(q.mean_s, (sum * WAIT_PS) as f64 / ks.len() as f64 / 1e12, "{what}: mean");
            assert_eq!(q.max_s, ((N - 1) * WAIT_PS) as f64 / 1e12, "{what}: max");
            assert!(q.max_s > 1.1, "past the packed range");
            assert!(q.classes.is_empty(), "one class");
            // no traffic the other way; the sink's edge (r1 -> sink) never queues
            let rev = qd(&r.links[REV_BNECK]);
            assert!(rev.p50_s.is_nan() && rev.max_s.is_nan());
            let edge = qd(&r.links[src_edge(0) + 2]);
            assert_eq!((edge.p999_s, edge.max_s, edge.mean_s), (0.0, 0.0, 0.0));
            seen.push(serde_json::to_value(l).unwrap());
        }
        assert_eq!(seen[0], seen[1], "the virtual FIFO reports what the events do");
    }
}

/// The link series: each interval's mean and largest wait over the
/// packets that started in it, from the closed form; NaN where none did.
#[test]
fn the_series_gives_each_intervals_waits() {
    let iv = 100_000_000_000u64; // 0.1 s
    for ties in ["event_order", "arrival_first"] {
        let r = burst(ties, 0.0, 0.1);
        let s = &r.series.links;
        let rows: Vec<usize> = (0..s.time_s.len()).filter(|&i| s.link[i] == FWD_BNECK as u32).collect();
        assert_eq!(rows.len(), 25);
        for (j, &i) in rows.iter().enumerate() {
            let (from, to) = (j as u64 * iv, (j as u64 + 1) * iv);
            let ks: Vec<u64> = (0..N).filter(|k| (from + 1..=to).contains(&(A0_PS + k * T_PS))).collect();
            let (mean, max) = (s.qdelay_mean_s[i], s.qdelay_max_s[i]);
            if ks.is_empty() {
                assert!(mean.is_nan() && max.is_nan(), "{ties}: interval {j}: {mean} {max}");
                continue;
            }
            let want = ks.iter().sum::<u64>() as f64 * WAIT_PS as f64 / ks.len() as f64 / 1e12;
            assert!((mean - want).abs() <= 1e-12 * want, "{ties}: interval {j}: mean {mean} vs {want}");
            assert_eq!(max, (ks.last().unwrap() * WAIT_PS) as f64 / 1e12, "{ties}: interval {j}: max");
        }
    }
}

/// TCP flows over DropTail: Little's law, L = λ·W, holds between the
/// exact time-averaged queue and the mean wait times the packets served
/// (to within the packets waiting at the period's two ends), and the
/// percentiles are ordered.
#[test]
fn littles_law_ties_the_mean_wait_to_the_average_queue() {
    for ties in ["event_order", "arrival_first"] {
        let t = format!(
            "name = \"little\"\nseed = 3\nduration_s = 30.0\nwarmup_s = 5.0\nsample_interval_s = 0\nqdelay = true\n\
             [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 10e6\nbottleneck_delay_s = 0.01\n\
             bottleneck_queue = {{ limit_pkts = 60, ties = \"{ties}\" }}\n\
             [[flows]]\ncount = 4\ncc = \"cubic\"\nrtt_s = [0.02, 0.04, 0.06, 0.08]\n"
        );
        let mut sc = Scenario::from_toml(&t).unwrap();
        let r = run(&sc);
        let (l, q) = (&r.links[FWD_BNECK], qd(&r.links[FWD_BNECK]));
        let area = l.avg_queue_pkts * 25.0; // packet-seconds waited in the period
        let waited = q.mean_s * l.tx_pkts as f64;
        eprintln!("{ties}: Σ waits {waited:.4} pkt·s, queue area {area:.4} pkt·s");
        assert!((waited - area).abs() < 0.01 * area, "{ties}: Σ waits {waited} vs queue area {area}");
        assert!(q.p50_s <= q.p90_s && q.p90_s <= q.p99_s && q.p99_s <= q.p999_s && q.p999_s <= q.max_s);
        // 60 packets of 1040 B at 10 Mb/s: no packet waits longer
        assert!(q.max_s <= 60.0 * 1040.0 * 8.0 / 10e6 + 1e-12, "{ties}: max {}", q.max_s);
        assert!(q.p50_s > 0.0);
        // Recording changes nothing else: without it, the same results
        // less the delay fields.
        sc.qdelay = false;
        let off = run(&sc);
        assert!(off.links.iter().all(|l| l.qdelay.is_none()));
        let mut on = serde_json::to_value(&r).unwrap();
        for l in on["links"].as_array_mut().unwrap() {
            let l = l.as_object_mut().unwrap();
            l.retain(|k, _| !k.starts_with("qdelay_"));
        }
        let mut off = serde_json::to_value(&off).unwrap();
        for v in [&mut on, &mut off] {
            v.as_object_mut().unwrap().remove("wall_s");
        }
        assert_eq!(on, off, "{ties}: recording delays changed other results");
    }
}

/// Strict priority between two FIFOs: flow 0's packets ("hi") before
/// everyone else's ("lo"). Names two delay classes.
#[derive(Default)]
struct Priority {
    q: [VecDeque<PktId>; 2],
    bytes: u64,
    last: usize,
}

impl QueueDiscipline for Priority {
    fn enqueue(&mut self, _ctx: &mut LinkCtx, id: PktId, pkts: &mut PacketPool) -> bool {
        let p = pkts.get(id);
        self.q[(p.flow != 0) as usize].push_back(id);
        self.bytes += p.size as u64;
        true
    }
    fn dequeue(&mut self, _ctx: &mut LinkCtx, pkts: &mut PacketPool) -> Option<PktId> {
        let c = if self.q[0].is_empty() { 1 } else { 0 };
        let id = self.q[c].pop_front()?;
        self.last = c;
        self.bytes -= pkts.get(id).size as u64;
        Some(id)
    }
    fn len_pkts(&self) -> usize {
        self.q[0].len() + self.q[1].len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn waiting(&self, _pkts: &PacketPool) -> Vec<PktId> {
        self.q.iter().flatten().copied().collect()
    }
    fn delay_classes(&self) -> &'static [&'static str] {
        &["hi", "lo"]
    }
    fn dequeue_class(&self, _id: PktId, _pkts: &PacketPool) -> usize {
        self.last
    }
}

/// Two UDP sources into 8 Mb/s (1 ms per packet): "hi" at 2.1 Mb/s waits
/// at most the one packet in service (non-preemptive priority), "lo" at
/// 7 Mb/s absorbs the overload (at 2 Mb/s, every 4 ms, "hi" would arrive
/// exactly as a transmission ends and never wait); the classes' packets add up to the link's
/// and the link's figures are those of both classes together.
#[test]
fn a_discipline_with_two_classes_reports_each() {
    let udp = |rate: &str| format!("transport = \"udp\"\nrate_bps = {rate}\nmss_bytes = 960\nheader_bytes = 40\n");
    let mut sc = Dumbbell::new(8e6, 100_000, 5.0).flow(&udp("2.1e6")).flow(&udp("7e6")).scenario();
    sc.qdelay = true;
    let mut sim = Simulation::new(&sc).unwrap();
    sim.net.links[FWD_BNECK].queue = Priority::default().into();
    let r = sim.run();
    assert_conserved(&r);
    let (l, q) = (&r.links[FWD_BNECK], qd(&r.links[FWD_BNECK]));
    let c = &q.classes;
    assert_eq!(c.iter().map(|c| c.class.as_str()).collect::<Vec<_>>(), ["hi", "lo"]);
    assert_eq!(c[0].pkts + c[1].pkts, l.tx_pkts);
    // every packet of flow 0 but those still on the edge link or waiting
    assert!(r.flows[0].data_pkts_sent - c[0].pkts <= 3, "hi: {} of {}", c[0].pkts, r.flows[0].data_pkts_sent);
    assert!(c[0].max_s <= 1e-3 + 1e-12 && c[0].max_s > 0.0, "hi waits at most one packet: {}", c[0].max_s);
    assert!(c[1].p50_s > 0.1, "lo queues up: {}", c[1].p50_s);
    assert_eq!(q.max_s, c[1].max_s);
    let mean = (c[0].mean_s * c[0].pkts as f64 + c[1].mean_s * c[1].pkts as f64) / l.tx_pkts as f64;
    assert!((q.mean_s - mean).abs() < 1e-9 * mean);
    // one-class links leave the per-class list out of the JSON
    let json = serde_json::to_value(&r).unwrap();
    assert!(json["links"][0]["qdelay_classes"].is_array());
    assert!(json["links"][1].get("qdelay_classes").is_none());
    assert_eq!(json["links"][1].get("qdelay_p50_s"), Some(&serde_json::Value::Null), "nothing sent that way");
}

/// CE marks are counted per flow where a queue sets them, so over the
/// measured period the flows' marks add up to the links' (every link: a
/// mark made anywhere belongs to some flow); every marked flow's sender
/// saw ECE on some ACKs; a flow without ECN is never marked.
#[test]
fn flows_ce_marks_add_up_to_the_links_marks() {
    for queue in [
        "kind = \"red\", limit_pkts = 100, min_th_pkts = 5, max_th_pkts = 15, ecn = true",
        "kind = \"codel\", ecn = true",
        "kind = \"pie\", ecn = true",
        "kind = \"fq_codel\"",
        // ECT(0) flows in the C queue, marked with p'^2 (the L queue's
        // marks: tests/dualpi2.rs)
        "kind = \"dualpi2\"",
    ] {
        let t = format!(
            "name = \"ce\"\nseed = 5\nduration_s = 20.0\nwarmup_s = 4.0\nsample_interval_s = 0\n\
             [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 10e6\nbottleneck_delay_s = 0.01\n\
             bottleneck_queue = {{ {queue} }}\n\
             [[flows]]\ncount = 3\ncc = \"cubic\"\necn = true\nrtt_s = [0.02, 0.05, 0.08]\n\
             [[flows]]\ncc = \"reno\"\nrtt_s = 0.04\n"
        );
        let r = run(&Scenario::from_toml(&t).unwrap_or_else(|e| panic!("{e}\n{t}")));
        let links: u64 = r.links.iter().map(|l| l.marks).sum();
        let flows: u64 = r.flows.iter().map(|f| f.ce_marks).sum();
        eprintln!("{queue}: {links} marks; per flow {:?}", r.flows.iter().map(|f| f.ce_marks).collect::<Vec<_>>());
        assert!(links >= 20, "{queue}: only {links} marks");
        assert_eq!(flows, links, "{queue}: the flows' marks are the links'");
        for f in &r.flows[..3] {
            assert!(
                f.ce_marks > 0 && f.ece_acks > 0,
                "{queue}: flow {}: {} marks, {} ECE",
                f.id,
                f.ce_marks,
                f.ece_acks
            );
        }
        assert_eq!((r.flows[3].ce_marks, r.flows[3].ece_acks), (0, 0), "{queue}: the non-ECN flow");
    }
}

/// Drops are counted per flow and per kind where they happen: loss on the
/// reverse path alone drops only ACKs, on the forward path only data; a
/// flow over an idle path loses nothing; with a warm-up the counts cover
/// the measured period as the links' do (`assert_conserved` checks the
/// sums on every run).
#[test]
fn flows_drops_are_their_own_data_or_acks() {
    let fwd = Dumbbell::new(10e6, 10, 20.0).warmup(4.0).loss(0.002).flow("cc = \"reno\"").flow("cc = \"cubic\"").run();
    let rev = Dumbbell::new(10e6, 100_000, 20.0).reverse_loss(0.02).flow("cc = \"reno\"").run();
    let l = &fwd.links[FWD_BNECK];
    eprintln!(
        "forward: drops {} random {}; flows {:?}",
        l.drops,
        l.random_losses,
        fwd.flows.iter().map(|f| (f.data_pkts_dropped, f.acks_dropped, f.retransmits)).collect::<Vec<_>>()
    );
    assert!(l.drops > 0 && l.random_losses > 0, "forward: {} drops, {} losses", l.drops, l.random_losses);
    for f in &fwd.flows {
        assert!(f.data_pkts_dropped > 0 && f.acks_dropped == 0, "forward, flow {}", f.id);
        // each lost packet is resent (a timeout may resend more)
        assert!(
            f.retransmits >= f.data_pkts_dropped - 2,
            "flow {}: {} retx, {} drops",
            f.id,
            f.retransmits,
            f.data_pkts_dropped
        );
    }
    let f = &rev.flows[0];
    eprintln!(
        "reverse: {} data, {} ACKs dropped of {} random losses",
        f.data_pkts_dropped,
        f.acks_dropped,
        rev.links.iter().map(|l| l.random_losses).sum::<u64>()
    );
    assert_eq!(f.data_pkts_dropped, 0);
    assert!(f.acks_dropped > 20, "{} ACKs dropped", f.acks_dropped);
}

/// With AccECN feedback an ACK's ECE flag is a bit of the ACE count (which
/// starts at 5, ECE set), so `ece_acks` counts the ACKs whose count grew:
/// none without marks, and with marks at most one per mark that reached
/// the receiver (no warm-up: every mark and ACK of the run counts).
#[test]
fn accecn_flows_count_acks_that_report_new_marks() {
    for (queue, flow) in [
        ("kind = \"droptail\", limit_pkts = 100", "cc = \"reno\"\necn = true\necn_feedback = \"accecn\""),
        (
            "kind = \"red\", limit_pkts = 100, min_th_pkts = 5, max_th_pkts = 15, ecn = true",
            "cc = \"reno\"\necn = true\necn_feedback = \"accecn\"",
        ),
        ("kind = \"dualpi2\"", "cc = \"prague\""),
    ] {
        let t = format!(
            "name = \"accecn\"\nseed = 7\nduration_s = 10.0\nsample_interval_s = 0\n\
             [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 10e6\nbottleneck_delay_s = 0.01\n\
             bottleneck_queue = {{ {queue} }}\n\
             [[flows]]\ncount = 2\nrtt_s = 0.04\n{flow}\n"
        );
        let r = run(&Scenario::from_toml(&t).unwrap_or_else(|e| panic!("{e}\n{t}")));
        let marks: u64 = r.links.iter().map(|l| l.marks).sum();
        eprintln!(
            "{queue}: {marks} marks; per flow (ce_marks, ece_acks) {:?}",
            r.flows.iter().map(|f| (f.ce_marks, f.ece_acks)).collect::<Vec<_>>()
        );
        assert_eq!(r.flows.iter().map(|f| f.ce_marks).sum::<u64>(), marks, "{queue}");
        for f in &r.flows {
            if marks == 0 {
                assert_eq!(f.ece_acks, 0, "{queue}: flow {}: no mark, no feedback", f.id);
            } else {
                assert!(
                    f.ece_acks > 0 && f.ece_acks <= f.ce_marks,
                    "{queue}: flow {}: {} ACKs for {} marks",
                    f.id,
                    f.ece_acks,
                    f.ce_marks
                );
            }
        }
        assert_eq!(marks == 0, queue.contains("droptail"), "{queue}: {marks} marks");
    }
}
