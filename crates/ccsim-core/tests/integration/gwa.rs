//! GWA-TCP end to end (Gerla et al.): routers lower B_n, receivers
//! advertise min(rwnd, B_n), senders send at most min(cwnd, W_a) - W_u.
//! The paper's guarantee is loss-free operation at any buffer size with
//! per-flow round robin (§4), and zero loss at steady state with FCFS (§6).
use crate::common;
use ccsim_core::net::packet::{PacketPool, PktId};
use ccsim_core::net::queue::{Queue, QueueDiscipline};
use ccsim_core::net::stage::gwa::{Gwa, Mode, NfInit};
use ccsim_core::net::LinkCtx;
use ccsim_core::stats::Results;
use ccsim_core::{Scenario, Simulation};
use common::*;
use std::collections::{HashMap, VecDeque};

/// The paper's LAN (§6.1): 100 Mb/s everywhere, tens of microseconds of
/// propagation, 1000-byte segments (+40 B headers), 64 kB receiver buffer.
fn lan(n: u32, buffer_bytes: u64, gwa: &str, flow_extra: &str, duration: f64) -> String {
    let q = if gwa.is_empty() {
        format!("{{ limit_bytes = {buffer_bytes} }}")
    } else {
        format!("{{ limit_bytes = {buffer_bytes}, gwa = \"{gwa}\" }}")
    };
    format!(
        "name = \"gwa-lan\"\nseed = 3\nduration_s = {duration:?}\nwarmup_s = 5.0\nsample_interval_s = 0\n\
         [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 100e6\nbottleneck_delay_s = 40e-6\n\
         bottleneck_queue = {q}\nedge_rate_bps = 100e6\nedge_delay_s = 30e-6\n\
         [[flows]]\ncount = {n}\ncc = \"reno\"\nrecovery = \"reno\"\nmss_bytes = 1000\nheader_bytes = 40\n\
         rwnd_pkts = 64\nclock_granularity_s = 0.1\n{flow_extra}\n"
    )
}

fn run_toml(t: &str) -> Results {
    run(&Scenario::from_toml(&common::classic_toml(t)).unwrap_or_else(|e| panic!("{e}\n{t}")))
}

fn goodputs(r: &Results) -> Vec<f64> {
    r.flows.iter().map(|f| f.goodput_bps).collect()
}

#[test]
fn gwa_fcfs_keeps_a_droptail_lan_loss_free_where_reno_loses() {
    // 10 flows, 60 kB buffer: plain Reno overflows it; GWA-FCFS does not
    // lose a packet after the warm-up (§6.1, Fig 5a) and fills the link.
    let reno = run_toml(&lan(10, 60_000, "", "", 15.0));
    assert!(reno.links[FWD_BNECK].drops > 50, "Reno drops {}", reno.links[FWD_BNECK].drops);
    let gwa = run_toml(&lan(10, 60_000, "fcfs", "gwa = true", 15.0));
    let l = &gwa.links[FWD_BNECK];
    assert_eq!(l.drops, 0, "GWA-FCFS dropped {} packets", l.drops);
    assert!(l.utilization > 0.95, "utilisation {}", l.utilization);
    // the queue holds no more than the buffer the routers advertised
    assert!(l.max_queue_pkts * 1040 <= 60_000);
}

#[test]
fn non_gwa_flows_pass_a_gwa_router_untouched() {
    // Without `gwa` on the flows nothing carries B_n: the router stamps
    // nothing and the run is the plain Reno run, packet for packet.
    let plain = run_toml(&lan(4, 30_000, "", "", 8.0));
    let routed = run_toml(&lan(4, 30_000, "fcfs", "", 8.0));
    assert_eq!(goodputs(&plain), goodputs(&routed));
    assert_eq!(plain.links[FWD_BNECK].drops, routed.links[FWD_BNECK].drops);
    let sent = |r: &Results| r.flows.iter().map(|f| f.data_pkts_sent).collect::<Vec<_>>();
    assert_eq!(sent(&plain), sent(&routed));
}

#[test]
fn gwa_runs_are_deterministic_and_conserve_packets() {
    let t = lan(6, 40_000, "fcfs", "gwa = true", 6.0);
    let a = run_toml(&t);
    let b = run_toml(&t);
    assert_eq!(serde_json::to_string(&a.flows).unwrap(), serde_json::to_string(&b.flows).unwrap());
    assert_eq!(a.events, b.events);
}

/// Per-flow FIFOs served round robin, one packet a turn, sharing a byte
/// buffer (a drop at a full buffer takes the arriving packet): the
/// per-flow queueing GWA-RR assumes, small enough to read at a glance.
#[derive(Default)]
struct FlowRr {
    limit: u64,
    bytes: u64,
    queues: HashMap<u32, VecDeque<(PktId, u32)>>,
    flow_bytes: HashMap<u32, u64>,
    order: VecDeque<u32>,
}

impl QueueDiscipline for FlowRr {
    fn enqueue(&mut self, _ctx: &mut LinkCtx, id: PktId, pkts: &mut PacketPool) -> bool {
        let p = pkts.get(id);
        if self.bytes + p.size as u64 > self.limit {
            return false;
        }
        let q = self.queues.entry(p.flow).or_default();
        if q.is_empty() {
            self.order.push_back(p.flow);
        }
        q.push_back((id, p.size));
        self.bytes += p.size as u64;
        *self.flow_bytes.entry(p.flow).or_default() += p.size as u64;
        true
    }
    fn dequeue(&mut self, _ctx: &mut LinkCtx, _pkts: &mut PacketPool) -> Option<PktId> {
        let f = self.order.pop_front()?;
        let q = self.queues.get_mut(&f).expect("listed flows have packets");
        let (id, size) = q.pop_front().expect("non-empty");
        if !q.is_empty() {
            self.order.push_back(f);
        }
        self.bytes -= size as u64;
        *self.flow_bytes.get_mut(&f).expect("counted") -= size as u64;
        Some(id)
    }
    fn len_pkts(&self) -> usize {
        self.queues.values().map(|q| q.len()).sum()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn waiting(&self, _pkts: &PacketPool) -> Vec<PktId> {
        self.queues.values().flat_map(|q| q.iter().map(|&(id, _)| id)).collect()
    }
    fn flow_len_bytes(&self, flow: u32) -> Option<u64> {
        Some(self.flow_bytes.get(&flow).copied().unwrap_or(0))
    }
}

/// The LAN of §6.1 with `n` GWA flows over a round-robin bottleneck of
/// `buffer` bytes carrying a GWA-RR stage.
fn rr_sim(n: u32, buffer: u64, duration: f64) -> Simulation {
    let t = lan(n, buffer, "", "gwa = true", duration);
    let sc = Scenario::from_toml(&common::classic_toml(&t)).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&sc).unwrap();
    sim.net.links[FWD_BNECK].queue = Queue::from(FlowRr { limit: buffer, ..Default::default() });
    sim.net.add_stage(FWD_BNECK, Box::new(Gwa::new(Mode::Rr, buffer as f64, 0.9, 0.1, NfInit::Observed)));
    sim
}

#[test]
fn gwa_rr_never_drops_and_shares_equally_at_any_buffer() {
    // §6.1: "Any GWA algorithm ensures perfect fairness and full
    // utilization even with small router buffer size" (LAN), and §4: no
    // loss at any buffer size.
    for buffer in [12_000, 30_000, 120_000] {
        let mut sim = rr_sim(10, buffer, 10.0);
        let r = sim.run();
        assert_conserved(&r);
        let l = &r.links[FWD_BNECK];
        assert_eq!(l.drops, 0, "buffer {buffer}: {} drops", l.drops);
        assert!(l.utilization > 0.95, "buffer {buffer}: utilisation {}", l.utilization);
        assert!(r.jain_index > 0.99, "buffer {buffer}: Jain {}", r.jain_index);
        // a stage that lowered B_n on the way
        let g = sim.net.links[FWD_BNECK].stage_mut::<Gwa>().unwrap();
        assert!(g.lowered > 0);
    }
}

#[test]
fn gwa_fields_are_validated_with_named_errors() {
    let bad = |q: &str, extra: &str| {
        let t = lan(2, 30_000, "", extra, 6.0).replace("{ limit_bytes = 30000 }", q);
        Scenario::from_toml(&common::classic_toml(&t))
            .and_then(|s| Simulation::new(&s).map(|_| ()))
            .unwrap_err()
            .to_string()
    };
    let e = bad("{ limit_bytes = 30000, gwa = \"rr\" }", "");
    assert!(e.contains("bottleneck_queue.gwa") && e.contains("per-flow"), "{e}");
    let e = bad("{ limit_bytes = 30000, gwa = \"wfq\" }", "");
    assert!(e.contains("gwa") && e.contains("rr, fcfs"), "{e}");
    let e = bad("{ limit_bytes = 30000, gwa = \"fcfs\", gwa_alpha = 1.5 }", "");
    assert!(e.contains("gwa_alpha") && e.contains("out of range"), "{e}");
    let e = bad("{ limit_bytes = 30000, gwa_tau_s = 0.2 }", "");
    assert!(e.contains("gwa_tau_s") && e.contains("only allowed with gwa = \"rr\", \"fcfs\" or \"ba\""), "{e}");
    let t = "name = \"x\"\nduration_s = 1\n[topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 1e6\n\
             bottleneck_queue = { limit_pkts = 5 }\n[[flows]]\ntransport = \"udp\"\nrate_bps = 1e5\ngwa = true\n";
    let e = Scenario::from_toml(&common::classic_toml(t))
        .and_then(|s| Simulation::new(&s).map(|_| ()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("flows[0].gwa") && e.contains("transport = \"tcp\""), "{e}");
}

#[test]
fn advertised_window_is_reported_and_never_above_rwnd() {
    let t = lan(5, 20_000, "fcfs", "gwa = true", 6.0).replace("sample_interval_s = 0", "sample_interval_s = 0.05");
    let r = run_toml(&t);
    let s = &r.series.flows;
    assert_eq!(s.awnd_pkts.len(), s.time_s.len());
    // 5 flows sharing 20 kB: about 20000/1040/5 = 3.8 packets each, never
    // above the 64-packet receiver window
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for (&t, &w) in s.time_s.iter().zip(&s.awnd_pkts) {
        assert!((1.0..=64.0).contains(&w), "awnd {w}");
        if t > 1.0 {
            lo = lo.min(w);
            hi = hi.max(w);
        }
    }
    assert!(lo >= 1.0 && hi <= 20.0, "steady W_a in [{lo}, {hi}]");
    assert!(r.flows.iter().all(|f| f.awnd_pkts.is_some()));
    // plain flows have no column
    let plain = run_toml(&lan(2, 20_000, "", "", 6.0).replace("sample_interval_s = 0", "sample_interval_s = 0.5"));
    assert!(plain.series.flows.awnd_pkts.is_empty());
    assert!(plain.flows.iter().all(|f| f.awnd_pkts.is_none()));
}

/// A WAN dumbbell (§6.2's spirit): `n` flows with RTTs spread 10-40 ms over
/// a 100 Mb/s bottleneck with a 200-packet FCFS buffer.
fn wan(n: u32, gwa: &str, flow_extra: &str) -> String {
    let q = if gwa.is_empty() { String::new() } else { format!(", gwa = \"{gwa}\"") };
    format!(
        "name = \"ba-wan\"\nseed = 4\nduration_s = 30.0\nwarmup_s = 10.0\nsample_interval_s = 0.1\n\
         [topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 100e6\nbottleneck_delay_s = 0.005\n\
         bottleneck_queue = {{ limit_pkts = 200{q} }}\nedge_rate_bps = 1e9\n\
         [[flows]]\ncount = {n}\nrtt_range_s = [0.010, 0.040]\ncc = \"reno\"\nmss_bytes = 1000\nheader_bytes = 40\n\
         rwnd_pkts = 500\n{flow_extra}\n"
    )
}

#[test]
fn ba_fcfs_empties_the_buffer_and_equalises_rtt_spread_flows() {
    // BA-TCP bounds each window by delta_i x C / n_f: every flow sends at
    // C / n_f whatever its RTT, so the queue stays near empty and the
    // shares are equal (§5; §6.1: "the buffer occupancy with BA-TCP is
    // close to zero"; §6.2: perfect fairness with BA-FCFS).
    let reno = run_toml(&wan(10, "", ""));
    let ba = run_toml(&wan(10, "ba", "ba = true"));
    let (lr, lb) = (&reno.links[FWD_BNECK], &ba.links[FWD_BNECK]);
    assert!(lr.drops > 0 && lr.max_queue_pkts >= 190, "Reno: {} drops, max queue {}", lr.drops, lr.max_queue_pkts);
    assert_eq!(lb.drops, 0);
    assert!(lb.utilization > 0.95, "BA utilisation {}", lb.utilization);
    // After the start-up transient (n_f's eq. 9 average lags the flows'
    // arrivals, so the first windows overshoot) the queue holds a few
    // packets: the windows' ceil() rounding, not a standing backlog.
    let ls = &ba.series.links;
    let q_after: Vec<u32> = (0..ls.time_s.len())
        .filter(|&i| ls.link[i] == FWD_BNECK as u32 && ls.time_s[i] > ba.warmup_s)
        .map(|i| ls.queue_pkts[i])
        .collect();
    assert!(q_after.len() >= 100);
    let q_max = *q_after.iter().max().unwrap();
    assert!(q_max <= 20, "BA queue after warm-up reaches {q_max} packets (buffer 200)");
    assert!(
        ba.jain_index > 0.99 && ba.jain_index > reno.jain_index,
        "Jain BA {} Reno {}",
        ba.jain_index,
        reno.jain_index
    );
    // the bound the senders hold: about delta_i x C / n_f packets
    for f in &ba.flows {
        let w = f.awnd_pkts.unwrap();
        assert!((1.0..=500.0).contains(&w));
    }
    // `ba = true` on the queue is the same router as gwa = "ba"
    let alias = run_toml(&wan(10, "ba", "ba = true").replace("gwa = \"ba\"", "ba = true"));
    assert_eq!(alias.to_json().replace("wall_s", ""), ba.to_json().replace("wall_s", ""));
    let e = Scenario::from_toml(&common::classic_toml(&wan(2, "", "ba = true\ngwa = true")))
        .and_then(|s| Simulation::new(&s).map(|_| ()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("flows[0].ba") && e.contains("gwa"), "{e}");
}
