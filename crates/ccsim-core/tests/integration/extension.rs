//! The engine's extension points, each exercised by a toy written here as a
//! user would write it (docs/architecture.md shows the same toys):
//!
//! - a queue discipline (drop-front FIFO, evicting the oldest packet),
//! - a per-link stage (marks CE on chosen ECN-capable packets),
//! - a tap (records the `+ - d r` events of a link),
//! - an application (sequential finite transfers opened during the run),
//! - a transport (a ping agent pair outside the transport registry).
//!
//! The ECN toy also checks RFC 3168's echo: ECE on every ACK from the mark
//! until the sender's CWR arrives, one window reduction, CWR once.
use crate::common;

use ccsim_core::app::{AppCtx, Application};
use ccsim_core::net::ctx::LinkCtx;
use ccsim_core::net::packet::{Ecn, Kind, Packet, PacketPool, PktId, UdpHeader, L4};
use ccsim_core::net::queue::QueueDiscipline;
use ccsim_core::net::stage::{Stage, Verdict};
use ccsim_core::net::tap::{Tap, TapEvent};
use ccsim_core::net::Net;
use ccsim_core::sim::time::{from_secs, to_secs};
use ccsim_core::sim::Time;
use ccsim_core::transport::{Endpoints, Receiver, ReceiverAgent, Sender, SenderAgent, SenderReport};
use common::*;
use std::any::Any;
use std::collections::VecDeque;

// -- a queue discipline ------------------------------------------------------

/// FIFO of `limit` packets that, when full, drops the oldest waiting packet
/// to admit the arrival (ns-2 DropTail's `drop_front_`).
struct DropFront {
    limit: usize,
    fifo: VecDeque<PktId>,
    bytes: u64,
}

impl QueueDiscipline for DropFront {
    fn enqueue(&mut self, ctx: &mut LinkCtx, id: PktId, pkts: &mut PacketPool) -> bool {
        if self.fifo.len() >= self.limit {
            let old = self.fifo.pop_front().expect("full");
            self.bytes -= pkts.get(old).size as u64;
            ctx.evict(old);
        }
        self.fifo.push_back(id);
        self.bytes += pkts.get(id).size as u64;
        true
    }
    fn dequeue(&mut self, _ctx: &mut LinkCtx, pkts: &mut PacketPool) -> Option<PktId> {
        let id = self.fifo.pop_front()?;
        self.bytes -= pkts.get(id).size as u64;
        Some(id)
    }
    fn len_pkts(&self) -> usize {
        self.fifo.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn waiting(&self, _pkts: &PacketPool) -> Vec<PktId> {
        self.fifo.iter().copied().collect()
    }
}

// -- a tap -------------------------------------------------------------------

/// One tap event: (ns-2 letter, time, flow, kind, TCP seq/ack, ECN
/// codepoint, ECE, CWR).
type Rec = (char, Time, u32, Kind, u64, Ecn, bool, bool);

/// Every event of one link.
#[derive(Default)]
struct Recorder {
    events: Vec<Rec>,
}

impl Tap for Recorder {
    fn on_event(&mut self, ev: TapEvent, now: Time, _link: u32, p: &Packet) {
        let (n, ece, cwr) = match p.tcp() {
            Some(h) => (if p.is_ack() { h.ack } else { h.seq }, h.ece, h.cwr),
            None => (0, false, false),
        };
        self.events.push((ev.ns2_char(), now, p.flow, p.kind, n, p.ecn, ece, cwr));
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Recorder {
    fn count(&self, c: char) -> u64 {
        self.events.iter().filter(|e| e.0 == c).count() as u64
    }
}

#[test]
fn drop_front_queue_evicts_the_oldest_and_taps_see_every_event() {
    let d = Dumbbell::new(10e6, 20, 20.0).flow("rtt_s = 0.05").flow("rtt_s = 0.05");
    let mut sim = d.sim();
    sim.net.links[FWD_BNECK].queue = DropFront { limit: 20, fifo: VecDeque::new(), bytes: 0 }.into();
    sim.add_tap(FWD_BNECK, Box::new(Recorder::default()));
    let r = sim.run();
    assert_conserved(&r);
    let l = &r.links[FWD_BNECK];
    assert!(l.drops > 0, "two Reno flows overflow 20 packets");
    assert!(l.max_queue_pkts <= 20);
    let tap = sim.net.links[FWD_BNECK].tap::<Recorder>().expect("tap attached");
    // ns-2's identities: every arrival is enqueued (+), every drop is a d,
    // every transmission a -, and what left the pipe an r.
    assert_eq!(tap.count('+'), l.arrivals);
    assert_eq!(tap.count('d'), l.drops);
    assert_eq!(tap.count('-'), l.tx_pkts);
    let in_pipe = sim.net.wire_len(FWD_BNECK) as u64;
    assert_eq!(tap.count('r'), l.tx_pkts - in_pipe);
    // drop-front: a dropped packet had been queued before (its + precedes
    // its d by at least one arrival), unlike a tail drop at arrival
    let dropped_late = tap
        .events
        .windows(2)
        .filter(|w| w[1].0 == 'd')
        .all(|w| !(w[0].0 == '+' && w[0].4 == w[1].4 && w[0].2 == w[1].2 && w[0].1 == w[1].1));
    assert!(dropped_late, "drop-front never drops the packet that just arrived");
}

// -- a stage, and RFC 3168's echo --------------------------------------------

/// Marks CE on the `nth` ECN-capable data packet it sees (once), drops
/// nothing: the smallest AQM.
struct MarkNth {
    nth: u64,
    seen: u64,
}

impl Stage for MarkNth {
    fn name(&self) -> &'static str {
        "mark_nth"
    }
    fn on_enqueue(&mut self, ctx: &mut LinkCtx, pkt: &mut Packet) -> Verdict {
        if pkt.ecn.is_ect() {
            self.seen += 1;
            if self.seen == self.nth {
                pkt.ecn = Ecn::Ce;
                ctx.count_mark(pkt);
            }
        }
        Verdict::Pass
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

#[test]
fn ce_mark_is_echoed_until_cwr_and_halves_the_window_once() {
    // Loss-free: a buffer far above the window cap.
    let d = Dumbbell::new(100e6, 1000, 10.0).flow("ecn = true\nrtt_s = 0.05\nrwnd_pkts = 200");
    let mut sim = d.sim();
    sim.net.add_stage(FWD_BNECK, Box::new(MarkNth { nth: 300, seen: 0 }));
    sim.add_tap(FWD_BNECK, Box::new(Recorder::default()));
    sim.add_tap(REV_BNECK, Box::new(Recorder::default()));
    let r = sim.run();
    assert_conserved(&r);
    assert_eq!(r.links[FWD_BNECK].drops, 0);
    let data = &sim.net.links[FWD_BNECK].tap::<Recorder>().unwrap().events;
    let acks = &sim.net.links[REV_BNECK].tap::<Recorder>().unwrap().events;
    let enq = |e: &&Rec| e.0 == '+';
    // every new data packet is ECT(0) before the mark; the mark happened once
    assert!(data.iter().filter(enq).all(|e| e.5 == Ecn::Ect0 || e.5 == Ecn::Ce));
    let marked = data.iter().filter(|e| e.0 == 'r' && e.5 == Ecn::Ce).count();
    assert_eq!(marked, 1);
    // CWR on exactly one data packet, the first new one after the reduction
    let cwr: Vec<_> = data.iter().filter(enq).filter(|e| e.7).collect();
    assert_eq!(cwr.len(), 1, "one CWR");
    let cwr_t = cwr[0].1;
    // ECE on every ACK sent after the mark reached the receiver until the
    // CWR did, and on none before or after
    let ace: Vec<_> = acks.iter().filter(enq).collect();
    let first_ece = ace.iter().position(|e| e.6).expect("the mark is echoed");
    let last_ece = ace.iter().rposition(|e| e.6).unwrap();
    assert!(ace[first_ece..=last_ece].iter().all(|e| e.6), "ECE stays set until CWR");
    assert!(last_ece > first_ece, "echoed on more than one ACK (not once)");
    assert!(ace[last_ece].1 > cwr_t, "ECE still set while the CWR packet travels");
    assert!(ace[last_ece + 1..].iter().all(|e| !e.6));
    // the results count the mark on the flow, and every echo its sender got
    assert_eq!((r.flows[0].ce_marks, r.links[FWD_BNECK].marks), (1, 1));
    assert_eq!(r.flows[0].ece_acks, (last_ece - first_ece + 1) as u64, "ACKs with ECE");
    // one reduction: the window was halved once (ssthresh = cwnd/2 then)
    let s = sim.tcp_sender(0).unwrap();
    assert_eq!(s.stats.fast_recoveries, 0);
    assert!(s.st.ssthresh < 150.0 && s.st.ssthresh >= 50.0, "ssthresh {}", s.st.ssthresh);
}

// -- an application opening flows during the run ------------------------------

/// `n` finite transfers of `bytes`, one after another over the host pair of
/// the scenario's flow 0 (whose own transfer it does not touch).
struct Sequential {
    n: usize,
    bytes: u64,
    opened: Vec<u32>,
}

impl Sequential {
    fn open_next(&mut self, ctx: &mut AppCtx) {
        let f0 = ctx.flows.get(0);
        let (src, dst, route) = (f0.src as usize, f0.dst as usize, f0.route);
        let spec = serde_json::from_value(serde_json::json!({"bytes": self.bytes, "recovery": "sack"})).unwrap();
        let id = ctx.open_flow(&spec, 0, (src, dst), route).expect("valid flow");
        ctx.flows.sender_mut(id).unwrap().open(ctx.net);
        self.opened.push(id);
    }
}

impl Application for Sequential {
    fn name(&self) -> &'static str {
        "sequential"
    }
    fn init(&mut self, ctx: &mut AppCtx) {
        ctx.schedule(from_secs(1.0), 0);
    }
    fn on_event(&mut self, ctx: &mut AppCtx, _slot: u8) {
        self.open_next(ctx);
    }
    fn on_transfer_done(&mut self, ctx: &mut AppCtx, flow: u32) {
        assert_eq!(Some(&flow), self.opened.last());
        if self.opened.len() < self.n {
            self.open_next(ctx);
        }
    }
}

#[test]
fn an_application_opens_transfers_at_run_time_and_they_are_freed() {
    let d = Dumbbell::new(10e6, 50, 30.0).sample(0.5).flow("rtt_s = 0.04\nbytes = 100000");
    let mut sim = d.sim();
    sim.add_app(Box::new(Sequential { n: 5, bytes: 200_000, opened: Vec::new() }));
    let r = sim.run();
    assert_conserved(&r);
    assert_eq!(r.flows.len(), 6, "flow 0 and five run-time flows");
    let mut last_done = 1.0;
    for f in &r.flows[1..] {
        assert_eq!(f.delivered_bytes, 200_000);
        let done = f.completed_s.expect("every transfer completes");
        assert!(f.start_s >= last_done, "opened after the previous one finished");
        last_done = done;
        assert!((f.rtt_prop_s - r.flows[0].rtt_prop_s).abs() < 1e-12, "same host pair, same route");
    }
    for f in 0..6 {
        assert!(!sim.flows.get(f).is_live(), "flow {f}: a finished transfer is freed");
    }
    // series rows only while a transfer runs
    let s = &r.series.flows;
    for (i, &f) in s.flow.iter().enumerate() {
        let fr = &r.flows[f as usize];
        assert!(s.time_s[i] >= fr.start_s && s.time_s[i] - 0.5 < fr.completed_s.unwrap() + 1e-9);
    }
}

// -- a transport outside the registry ----------------------------------------

/// Sends one probe per write; the receiver answers each with an ACK; the
/// sender records round-trip times.
struct PingSender {
    flow: u32,
    seq: u64,
    rtts: Vec<f64>,
}

impl SenderAgent for PingSender {
    fn open(&mut self, _net: &mut Net) {}
    fn close(&mut self) {}
    fn write(&mut self, net: &mut Net) {
        let l4 = L4::Udp(UdpHeader { seq: self.seq });
        net.send(Packet { flow: self.flow, kind: Kind::Data, size: 64, ts: net.now, l4, ..Default::default() });
        self.seq += 1;
    }
    fn on_packet(&mut self, net: &mut Net, pkt: &Packet) {
        self.rtts.push(to_secs(net.now - pkt.ts));
    }
    fn finished(&self) -> bool {
        false
    }
    fn report(&self) -> SenderReport {
        let mean = self.rtts.iter().sum::<f64>() / self.rtts.len().max(1) as f64;
        let srtt_s = (!self.rtts.is_empty()).then_some(mean);
        SenderReport { data_sent: self.seq, cwnd: f64::NAN, ssthresh: f64::NAN, srtt_s, ..Default::default() }
    }
}

struct PingReceiver {
    flow: u32,
    rx: u64,
}

impl ReceiverAgent for PingReceiver {
    fn on_packet(&mut self, net: &mut Net, pkt: &Packet) {
        self.rx += pkt.size as u64;
        net.send(Packet { flow: self.flow, kind: Kind::Ack, size: 64, ts: pkt.ts, l4: pkt.l4, ..Default::default() });
    }
    fn delivered_bytes(&self) -> u64 {
        self.rx
    }
    fn rx_bytes(&self) -> u64 {
        self.rx
    }
}

/// Pings every 100 ms over flow 0's host pair.
struct Pinger {
    flow: Option<u32>,
}

impl Application for Pinger {
    fn name(&self) -> &'static str {
        "pinger"
    }
    fn init(&mut self, ctx: &mut AppCtx) {
        let f0 = ctx.flows.get(0);
        let (src, dst, route) = (f0.src as usize, f0.dst as usize, f0.route);
        let id = ctx.flows.next_id();
        let ends = Endpoints {
            sender: Sender::Ext(Box::new(PingSender { flow: id, seq: 0, rtts: Vec::new() })),
            receiver: Receiver::Ext(Box::new(PingReceiver { flow: id, rx: 0 })),
        };
        let meta = ctx.new_meta("ping", 0, route);
        self.flow = Some(ctx.flows.insert(ctx.net, src, dst, route, meta, ends));
        ctx.schedule(0, 0);
    }
    fn on_event(&mut self, ctx: &mut AppCtx, _slot: u8) {
        ctx.flows.sender_mut(self.flow.unwrap()).unwrap().write(ctx.net);
        let next = ctx.now() + from_secs(0.1);
        ctx.schedule(next, 0);
    }
}

#[test]
fn an_outside_transport_runs_beside_tcp() {
    // An idle path (flow 0 starts after the run): every ping sees exactly
    // the propagation RTT plus serialisation.
    let d = Dumbbell::new(10e6, 50, 2.05).flow("rtt_s = 0.04\nstart_s = 5.0");
    let mut sim = d.sim();
    sim.add_app(Box::new(Pinger { flow: None }));
    let r = sim.run();
    assert_conserved(&r);
    let ping = &r.flows[1];
    assert_eq!(ping.transport, "ping");
    assert_eq!(ping.data_pkts_sent, 21);
    assert_eq!(ping.delivered_bytes, 21 * 64);
    let Some(Sender::Ext(_)) = sim.flows.get(1).sender() else { panic!("ext sender") };
    // 64 B at 10 Mb/s on the bottleneck, 100 Gb/s edges, both ways
    let ser = 2.0 * (64.0 * 8.0 / 10e6 + 2.0 * 64.0 * 8.0 / 100e9);
    assert!((ping.rtt_prop_s - 0.04).abs() < 1e-12);
    let rtt = ping.final_srtt_s.expect("pings answered");
    assert!((rtt - (0.04 + ser)).abs() < 1e-9, "ping RTT {rtt}");
}
