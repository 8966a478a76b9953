//! The simulation: the network (`Net`), the agents, the event loop, metrics.
//!
//! How a packet moves: an agent calls `Net::send`, which takes a slab slot
//! and offers the packet to the first link of its flow's route. A link
//! either starts serialising it at once (appending it to the propagation
//! pipe with its arrival time) or queues it; when the pipe's head arrives,
//! `pipe_arrival` hands it to the next link of the route, or, at the end of
//! the route, back to `Simulation::deliver`, which frees the slot and calls
//! the receiver (data) or the sender (ACK). No per-hop lookup: a packet
//! carries its flow and its position in the route.
use crate::net::link::{Link, LinkCounters};
use crate::net::packet::{Packet, PacketPool, PktId, SackBlock};
use crate::net::topology;
use crate::scenario::{ConfigError, Scenario};
use crate::sim::events::{Event, EventKind, EventQueue};
use crate::sim::time::{from_secs, to_secs, tx_time};
use crate::sim::Time;
use crate::stats::{self, FlowResult, LinkResult, Results, Series};
use crate::transport::tcp::sender::SendRecord;
use crate::transport::tcp::{TcpConfig, TcpReceiver, TcpSender};
use crate::transport::udp::{UdpSink, UdpSource};
use rand::Rng;
use std::collections::VecDeque;

/// The network and the kernel state agents act on.
pub struct Net {
    pub now: Time,
    pub events: EventQueue,
    pub pkts: PacketPool,
    pub links: Vec<Link>,
    /// Per flow: data route and ACK route, as link indices.
    routes: Vec<(Vec<u32>, Vec<u32>)>,
    pub created: u64,
    pub delivered: u64,
    pub dropped: u64,
}

impl Net {
    /// Inject a packet at the start of its route.
    pub fn send(&mut self, p: Packet) {
        let flow = p.flow as usize;
        let first = if p.is_ack { self.routes[flow].1[0] } else { self.routes[flow].0[0] };
        let id = self.pkts.alloc(p);
        self.created += 1;
        self.link_arrive(first as usize, id);
    }

    fn link_arrive(&mut self, l: usize, id: PktId) {
        let now = self.now;
        let link = &mut self.links[l];
        link.c.arrivals += 1;
        if let Some(r) = link.loss_rng.as_mut() {
            if r.gen::<f64>() < link.loss {
                link.c.random_losses += 1;
                self.dropped += 1;
                self.pkts.free(id);
                return;
            }
        }
        if link.busy_until <= now && link.queue.len_pkts() == 0 {
            Self::start_tx(link, &mut self.events, l, id, self.pkts.get(id).size, now);
        } else if link.queue.enqueue(now, id, self.pkts.get_mut(id)) {
            link.max_queue_pkts = link.max_queue_pkts.max(link.queue.len_pkts());
            if !link.free_scheduled {
                link.free_scheduled = true;
                self.events.schedule(link.busy_until, EventKind::LinkFree, l as u32, 0);
            }
        } else {
            link.c.drops += 1;
            self.dropped += 1;
            self.pkts.free(id);
        }
    }

    fn start_tx(link: &mut Link, events: &mut EventQueue, l: usize, id: PktId, size: u32, now: Time) {
        link.busy_until = now.saturating_add(tx_time(size, link.rate_bps));
        let arrive = link.busy_until.saturating_add(link.delay);
        if link.pipe.is_empty() {
            events.schedule(arrive, EventKind::PipeArrival, l as u32, 0);
        }
        link.pipe.push_back((arrive, id));
        link.c.tx_pkts += 1;
        link.c.tx_bytes += size as u64;
    }

    fn link_free(&mut self, l: usize) {
        let now = self.now;
        let link = &mut self.links[l];
        link.free_scheduled = false;
        if let Some(id) = link.queue.dequeue(now) {
            Self::start_tx(link, &mut self.events, l, id, self.pkts.get(id).size, now);
            if link.queue.len_pkts() > 0 {
                link.free_scheduled = true;
                self.events.schedule(link.busy_until, EventKind::LinkFree, l as u32, 0);
            }
        }
    }

    /// The pipe head of link `l` arrives; returns it if its route ends here.
    fn pipe_arrival(&mut self, l: usize) -> Option<PktId> {
        let link = &mut self.links[l];
        let (_, id) = link.pipe.pop_front().expect("pipe event with a packet");
        if let Some(&(t, _)) = link.pipe.front() {
            self.events.schedule(t, EventKind::PipeArrival, l as u32, 0);
        }
        let p = self.pkts.get_mut(id);
        p.hop += 1;
        let (fwd, rev) = &self.routes[p.flow as usize];
        let route = if p.is_ack { rev } else { fwd };
        match route.get(p.hop as usize) {
            Some(&next) => {
                self.link_arrive(next as usize, id);
                None
            }
            None => {
                self.delivered += 1;
                Some(id)
            }
        }
    }

    /// Packets in queues and pipes, counted by walking the network.
    pub fn in_flight(&self) -> u64 {
        self.links.iter().map(|l| (l.queue.len_pkts() + l.pipe.len()) as u64).sum()
    }
}

/// Static facts about one flow, for results.
#[derive(Clone, Debug)]
pub struct FlowMeta {
    pub entry: usize,
    pub transport: String,
    pub cc: String,
    pub recovery: String,
    pub pacing: String,
    pub rtt_prop_s: f64,
    pub start: Time,
    pub stop: Option<Time>,
}

/// Flow ids: TCP flows first (`0..senders.len()`, in scenario order), then
/// UDP flows (`udp[i]` is flow `senders.len() + i`), so `senders[flow]` is
/// flow `flow` for every TCP flow.
pub struct Simulation {
    pub net: Net,
    pub senders: Vec<TcpSender>,
    pub receivers: Vec<TcpReceiver>,
    pub udp: Vec<UdpSource>,
    pub udp_sinks: Vec<UdpSink>,
    pub meta: Vec<FlowMeta>,
    nodes: Vec<String>,
    scenario: Scenario,
    duration: Time,
    warmup: Time,
    sample_iv: Time,
    fair_window: usize,
    warm_links: Vec<LinkCounters>,
    warm_delivered: Vec<u64>,
    warm_rx: Vec<u64>,
    last_links: Vec<LinkCounters>,
    last_delivered: Vec<u64>,
    fair_hist: VecDeque<Vec<u64>>,
    series: Series,
}

fn tcp_config(f: &crate::scenario::FlowSpec) -> TcpConfig {
    TcpConfig {
        recovery: f.recovery,
        pacing: f.pacing,
        bucket_pkts: f.bucket_pkts,
        mss: f.mss_bytes,
        header: f.header_bytes,
        init_cwnd: f.init_cwnd_pkts,
        init_ssthresh: f.init_ssthresh_pkts,
        rwnd: f.rwnd_pkts,
        max_cwnd: f.max_cwnd_pkts,
        dupthresh: f.dupthresh,
        limited_transmit: f.limited_transmit,
        delayed_ack: f.delayed_ack,
        delack_timeout: from_secs(f.delack_timeout_s),
        min_rto: f.min_rto_s,
        max_rto: f.max_rto_s,
        init_rto: f.init_rto_s,
        granularity: f.clock_granularity_s,
        total_bytes: f.bytes,
    }
}

fn name_of<T: serde::Serialize>(x: &T) -> String {
    serde_json::to_value(x).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

impl Simulation {
    /// Validate and build; every error names the offending field.
    pub fn new(sc: &Scenario) -> Result<Self, ConfigError> {
        crate::scenario::validate(sc)?;
        let built = topology::build(sc)?;
        let mut events = EventQueue::default();
        let mut senders = Vec::new();
        let mut receivers = Vec::new();
        let mut udp = Vec::new();
        let mut udp_sinks = Vec::new();
        let mut meta = Vec::new();
        let mut routes = Vec::new();
        // TCP flows take ids 0.., UDP flows follow (see `Simulation`).
        let is_udp = |fp: &topology::FlowPlacement| sc.flows[fp.entry].transport == "udp";
        let order = built.flows.iter().filter(|fp| !is_udp(fp)).chain(built.flows.iter().filter(|fp| is_udp(fp)));
        for (id, fp) in order.enumerate() {
            let spec = &sc.flows[fp.entry];
            if is_udp(fp) {
                let on_off = spec.on_s.zip(spec.off_s);
                let rate = spec.rate_bps.unwrap_or(0.0);
                udp.push(UdpSource::new(id as u32, spec.mss_bytes, spec.header_bytes, rate, on_off));
                udp_sinks.push(UdpSink::new(spec.header_bytes));
            } else {
                let cfg = tcp_config(spec);
                let cc = crate::transport::cc::build(&spec.cc, &spec.cc_params, &format!("flows[{}]", fp.entry))?;
                senders.push(TcpSender::new(id as u32, cfg.clone(), cc));
                receivers.push(TcpReceiver::new(id as u32, cfg));
            }
            routes.push((fp.fwd.clone(), fp.rev.clone()));
            let start = from_secs(fp.start_s);
            let stop = spec.stop_s.map(from_secs);
            events.schedule(start, EventKind::AppStart, id as u32, 0);
            if let Some(s) = stop {
                events.schedule(s, EventKind::AppStop, id as u32, 0);
            }
            let none = || "none".to_string();
            let tcp = !is_udp(fp);
            meta.push(FlowMeta {
                entry: fp.entry,
                transport: spec.transport.clone(),
                cc: if tcp { spec.cc.clone() } else { none() },
                recovery: if tcp { name_of(&spec.recovery) } else { none() },
                pacing: if tcp { name_of(&spec.pacing) } else { none() },
                rtt_prop_s: fp.rtt_prop_s,
                start,
                stop,
            });
        }
        let duration = from_secs(sc.duration_s);
        let warmup = from_secs(sc.warmup_s);
        let sample_iv = from_secs(sc.sample_interval_s);
        if sample_iv > 0 {
            events.schedule(sample_iv, EventKind::Sample, 0, 0);
        }
        if warmup > 0 {
            events.schedule(warmup, EventKind::WarmupEnd, 0, 0);
        }
        let n_links = built.links.len();
        let n_flows = meta.len();
        // Samples per fairness window, capped by the number of samples in the run.
        let fair_window = match duration.checked_div(sample_iv) {
            Some(n_samples) => {
                (sc.fairness_window_s / sc.sample_interval_s).round().clamp(1.0, n_samples.max(1) as f64) as usize
            }
            None => 1,
        };
        Ok(Simulation {
            net: Net {
                now: 0,
                events,
                pkts: PacketPool::default(),
                links: built.links,
                routes,
                created: 0,
                delivered: 0,
                dropped: 0,
            },
            senders,
            receivers,
            udp,
            udp_sinks,
            meta,
            nodes: built.nodes,
            scenario: sc.clone(),
            duration,
            warmup,
            sample_iv,
            fair_window,
            warm_links: vec![LinkCounters::default(); n_links],
            warm_delivered: vec![0; n_flows],
            warm_rx: vec![0; n_flows],
            last_links: vec![LinkCounters::default(); n_links],
            last_delivered: vec![0; n_flows],
            fair_hist: VecDeque::new(),
            series: Series::default(),
        })
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }
    pub fn now_s(&self) -> f64 {
        to_secs(self.net.now)
    }
    pub fn duration_s(&self) -> f64 {
        to_secs(self.duration)
    }
    pub fn events(&self) -> u64 {
        self.net.events.popped
    }
    pub fn is_done(&self) -> bool {
        self.net.now >= self.duration
    }

    /// Record every departure of flow `flow` (for pacing tests and traces).
    pub fn enable_send_trace(&mut self, flow: usize) {
        self.senders[flow].trace = Some(Vec::new());
    }
    pub fn send_trace(&self, flow: usize) -> &[SendRecord] {
        self.senders[flow].trace.as_deref().unwrap_or(&[])
    }

    /// Advance simulated time to `t_s` (capped at the duration).
    pub fn run_until(&mut self, t_s: f64) {
        let t = from_secs(t_s).min(self.duration);
        while let Some(tn) = self.net.events.peek_time() {
            if tn > t {
                break;
            }
            let e = self.net.events.pop().expect("peeked");
            self.net.now = e.time;
            self.dispatch(e);
        }
        self.net.now = self.net.now.max(t);
    }

    /// Run to the end and collect results.
    pub fn run(&mut self) -> Results {
        self.run_until(self.duration_s());
        self.results()
    }

    fn dispatch(&mut self, e: Event) {
        let i = e.idx as usize;
        let net = &mut self.net;
        match e.kind {
            EventKind::PipeArrival => {
                if let Some(id) = net.pipe_arrival(i) {
                    self.deliver(id);
                }
            }
            EventKind::LinkFree => net.link_free(i),
            EventKind::Rto => {
                let s = &mut self.senders[i];
                if s.rto_timer.fire(&mut net.events, net.now, e.gen, e.kind, e.idx) {
                    s.on_rto(net);
                }
            }
            EventKind::Pace => {
                let s = &mut self.senders[i];
                if s.pace_timer.fire(&mut net.events, net.now, e.gen, e.kind, e.idx) {
                    s.on_pace(net);
                }
            }
            EventKind::CcTick => {
                let s = &mut self.senders[i];
                if s.tick_timer.fire(&mut net.events, net.now, e.gen, e.kind, e.idx) {
                    s.on_tick(net);
                }
            }
            EventKind::DelAck => {
                let r = &mut self.receivers[i];
                if r.delack_timer.fire(&mut net.events, net.now, e.gen, e.kind, e.idx) {
                    r.on_delack(net);
                }
            }
            EventKind::AppStart => match self.senders.get_mut(i) {
                Some(s) => s.start(net),
                None => self.udp[i - self.senders.len()].start(net),
            },
            EventKind::AppStop => match self.senders.get_mut(i) {
                Some(s) => s.stop(),
                None => self.udp[i - self.senders.len()].stop(),
            },
            EventKind::UdpSend => self.udp[i - self.senders.len()].on_send(net),
            EventKind::Sample => {
                self.sample();
                let next = self.net.now.saturating_add(self.sample_iv);
                if next <= self.duration {
                    self.net.events.schedule(next, EventKind::Sample, 0, 0);
                }
            }
            EventKind::WarmupEnd => {
                self.warm_links = self.net.links.iter().map(|l| l.c).collect();
                self.warm_delivered = (0..self.meta.len()).map(|f| self.delivered(f)).collect();
                self.warm_rx = (0..self.meta.len()).map(|f| self.received(f)).collect();
            }
        }
    }

    fn deliver(&mut self, id: PktId) {
        let p = self.net.pkts.get(id);
        let flow = p.flow as usize;
        if flow >= self.senders.len() {
            let size = p.size;
            self.net.pkts.free(id);
            self.udp_sinks[flow - self.senders.len()].on_data(size);
        } else if p.is_ack {
            let (ack, ts, ece, n) = (p.ack, p.ts, p.ece, p.n_sack as usize);
            let mut sack: [SackBlock; 3] = [(0, 0); 3];
            sack[..n].copy_from_slice(&p.sack[..n]);
            self.net.pkts.free(id);
            self.senders[flow].on_ack(&mut self.net, ack, &sack[..n], ts, ece);
        } else {
            let (seq, size, ts, ce) = (p.seq, p.size, p.ts, p.ce);
            self.net.pkts.free(id);
            self.receivers[flow].on_data(&mut self.net, seq, size, ts, ce);
        }
    }

    /// Whether flow `f`'s application is offering data at `t`.
    fn active(&self, f: usize, t: Time) -> bool {
        let m = &self.meta[f];
        t >= m.start
            && m.stop.is_none_or(|s| t < s)
            && self.senders.get(f).is_none_or(|s| s.stats.completed_at.is_none())
    }

    /// Payload bytes delivered in order to flow `f`'s application so far.
    fn delivered(&self, f: usize) -> u64 {
        match self.receivers.get(f) {
            Some(r) => r.delivered_bytes,
            None => self.udp_sinks[f - self.receivers.len()].payload_bytes,
        }
    }

    /// Bytes (with headers) received by flow `f`'s receiver so far.
    fn received(&self, f: usize) -> u64 {
        match self.receivers.get(f) {
            Some(r) => r.rx_bytes,
            None => self.udp_sinks[f - self.receivers.len()].rx_bytes,
        }
    }

    fn sample(&mut self) {
        let t = self.net.now;
        let ts = to_secs(t);
        let iv = to_secs(self.sample_iv);
        let delivered: Vec<u64> = (0..self.meta.len()).map(|f| self.delivered(f)).collect();
        let s = &mut self.series;
        for (f, &d) in delivered.iter().enumerate() {
            // UDP flows have no window or RTT estimate: NaN (null in JSON)
            let snd = self.senders.get(f);
            s.flows.time_s.push(ts);
            s.flows.flow.push(f as u32);
            s.flows.cwnd.push(snd.map_or(f64::NAN, |x| x.st.cwnd));
            s.flows.ssthresh.push(snd.map_or(f64::NAN, |x| x.st.ssthresh.min(1e15)));
            s.flows.srtt_s.push(snd.and_then(|x| x.rtt.srtt).unwrap_or(f64::NAN));
            s.flows.goodput_bps.push((d - self.last_delivered[f]) as f64 * 8.0 / iv);
            self.last_delivered[f] = d;
        }
        for (l, link) in self.net.links.iter().enumerate() {
            if !link.monitored {
                continue;
            }
            let (c, last) = (link.c, self.last_links[l]);
            let arr = c.arrivals - last.arrivals;
            let lost = (c.drops + c.random_losses) - (last.drops + last.random_losses);
            s.links.time_s.push(ts);
            s.links.link.push(l as u32);
            s.links.queue_pkts.push(link.queue.len_pkts() as u32);
            s.links.loss_rate.push(if arr > 0 { lost as f64 / arr as f64 } else { 0.0 });
            s.links.cum_loss_rate.push(stats::ratio(c.drops + c.random_losses, c.arrivals));
            s.links.utilization.push((c.tx_bytes - last.tx_bytes) as f64 * 8.0 / (link.rate_bps * iv));
            self.last_links[l] = c;
        }
        self.fair_hist.push_back(delivered.clone());
        if self.fair_hist.len() > self.fair_window + 1 {
            self.fair_hist.pop_front();
        }
        let old = &self.fair_hist[0];
        let rates: Vec<f64> =
            (0..delivered.len()).filter(|&f| self.active(f, t)).map(|f| (delivered[f] - old[f]) as f64).collect();
        self.series.fairness.time_s.push(ts);
        self.series.fairness.jain.push(stats::jain(&rates));
    }

    /// Summary results at the current time.
    pub fn results(&self) -> Results {
        let end = self.net.now;
        let meas = to_secs(end.saturating_sub(self.warmup)).max(1e-12);
        let links: Vec<LinkResult> = self
            .net
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let w = self.warm_links[i];
                let c = l.c;
                let arrivals = c.arrivals - w.arrivals;
                let drops = c.drops - w.drops;
                let random = c.random_losses - w.random_losses;
                LinkResult {
                    id: i as u32,
                    name: l.name.clone(),
                    from: self.nodes[l.from].clone(),
                    to: self.nodes[l.to].clone(),
                    rate_bps: l.rate_bps,
                    delay_s: to_secs(l.delay),
                    monitored: l.monitored,
                    utilization: (c.tx_bytes - w.tx_bytes) as f64 * 8.0 / (l.rate_bps * meas),
                    tx_pkts: c.tx_pkts - w.tx_pkts,
                    tx_bytes: c.tx_bytes - w.tx_bytes,
                    arrivals,
                    drops,
                    random_losses: random,
                    loss_rate: stats::ratio(drops + random, arrivals),
                    max_queue_pkts: l.max_queue_pkts as u64,
                }
            })
            .collect();
        let flows: Vec<FlowResult> = (0..self.meta.len()).map(|f| self.flow_result(f, end)).collect();
        let goodputs: Vec<f64> = flows.iter().map(|f| f.goodput_bps).collect();
        Results {
            name: self.scenario.name.clone(),
            seed: self.scenario.seed,
            duration_s: to_secs(end),
            warmup_s: self.scenario.warmup_s,
            events: self.net.events.popped,
            wall_s: 0.0,
            flows,
            links,
            jain_index: stats::jain(&goodputs),
            conservation: stats::Conservation {
                created: self.net.created,
                delivered: self.net.delivered,
                dropped: self.net.dropped,
                in_flight: self.net.in_flight(),
                live_in_pool: self.net.pkts.live() as u64,
            },
            series: self.series.clone(),
        }
    }

    /// Summary of flow `f` over the measurement period ending at `end`.
    fn flow_result(&self, f: usize, end: Time) -> FlowResult {
        let m = &self.meta[f];
        let snd = self.senders.get(f);
        let completed = snd.and_then(|s| s.stats.completed_at);
        let from = m.start.max(self.warmup);
        let until = [Some(end), m.stop, completed].into_iter().flatten().min().unwrap_or(end);
        let t = to_secs(until.saturating_sub(from));
        let per_s = |b: u64| if t > 0.0 { b as f64 * 8.0 / t } else { 0.0 };
        let delivered = self.delivered(f) - self.warm_delivered[f];
        let udp = (f >= self.senders.len()).then(|| &self.udp[f - self.senders.len()]);
        FlowResult {
            id: f as u32,
            entry: m.entry as u32,
            transport: m.transport.clone(),
            cc: m.cc.clone(),
            recovery: m.recovery.clone(),
            pacing: m.pacing.clone(),
            rtt_prop_s: m.rtt_prop_s,
            start_s: to_secs(m.start),
            stop_s: m.stop.map(to_secs),
            goodput_bps: per_s(delivered),
            throughput_bps: per_s(self.received(f) - self.warm_rx[f]),
            delivered_bytes: delivered,
            data_pkts_sent: snd.map_or_else(|| udp.map_or(0, |u| u.sent_pkts), |s| s.stats.data_sent),
            retransmits: snd.map_or(0, |s| s.stats.retransmits),
            timeouts: snd.map_or(0, |s| s.stats.timeouts),
            fast_recoveries: snd.map_or(0, |s| s.stats.fast_recoveries),
            final_cwnd: snd.map_or(f64::NAN, |s| s.st.cwnd),
            final_srtt_s: snd.and_then(|s| s.rtt.srtt),
            completed_s: completed.map(to_secs),
        }
    }
}
