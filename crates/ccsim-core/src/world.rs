//! The simulation: builds the network, flows and applications from a
//! scenario, then runs the event loop, handing each event to its owner
//! (a link, a flow's agents, a link's queue or stage, an application, the
//! sampler).
use crate::app::{self, AppCtx, Application};
use crate::flow::{FlowLabels, FlowMeta, FlowTable, NewFlow};
use crate::net::tap::Tap;
use crate::net::topology::NodeNames;
use crate::net::{topology, Net};
use crate::scenario::{ConfigError, Scenario};
use crate::sim::events::{Event, EventKind, Owner};
use crate::sim::time::{from_secs, to_secs};
use crate::sim::Time;
use crate::stats::sampler::Sampler;
use crate::stats::Results;
use crate::transport::etcp::EtcpSender;
use crate::transport::tcp::sender::SendRecord;
use crate::transport::tcp::{TcpReceiver, TcpSender};
use crate::transport::{Receiver, Sender};

pub struct Simulation {
    pub net: Net,
    pub flows: FlowTable,
    pub apps: Vec<app::AppSlot>,
    nodes: NodeNames,
    scenario: Scenario,
    duration: Time,
    sampler: Sampler,
    /// Links with a tap, in index order: `run_until` flushes their deferred
    /// tap events without walking every link.
    tapped: Vec<usize>,
    /// The run has ended ([`Simulation::end`]): nothing runs any more.
    ended: bool,
}

/// A buffered output file for a tap; the error names `field` and the path.
fn create(path: &std::path::Path, field: &str) -> Result<Box<dyn std::io::Write + Send>, ConfigError> {
    let f = std::fs::File::create(path)
        .map_err(|e| ConfigError::new(field, format!("cannot create \"{}\": {e}", path.display())))?;
    Ok(Box::new(std::io::BufWriter::with_capacity(1 << 16, f)))
}

/// The draws ns-2's TCP agents make from its default stream before the
/// run: `TcpAgent::reset` draws `boot_time_ = Random::uniform(tcpTick_)`
/// when each agent is created and once more when `$ns run` resets every
/// node's agents, and the agent runs with the second. A scenario drawing
/// from that stream (`rng = "ns2"`, or `ns2_boot_order` for the phases
/// alone) takes these 2n draws first, so the draws after them (RED's,
/// Telnet's) are ns-2's. The first round goes in
/// creation order and only its count matters. ns-2's second round goes
/// node by node in Tcl's hash order of its node table (`Simulator run`:
/// `foreach nn [array names Node_]`) and, within a node, in attach order
/// (`Node reset`), which only the script knows: `ns2_boot_order` gives it
/// as flow indices, and without it the round goes in flow order. A flow
/// whose `ns2_boot_time_s` is given keeps that phase (docs/validation.md).
fn ns2_boot_draws(net: &mut Net, flows: &mut FlowTable, order: Option<&[u32]>) {
    let tcp: Vec<u32> = match order {
        Some(o) => o.to_vec(),
        None => (0..flows.len() as u32)
            .filter(|&f| matches!(flows.sender_mut(f), Some(crate::transport::Sender::Tcp(_))))
            .collect(),
    };
    for _ in &tcp {
        net.ns2_rng.uniform();
    }
    for &f in &tcp {
        let u = net.ns2_rng.uniform();
        if let Some(crate::transport::Sender::Tcp(s)) = flows.sender_mut(f) {
            s.draw_ns2_boot_time(u);
        }
    }
}

impl Simulation {
    /// Validate and build; every error names the offending field.
    pub fn new(sc: &Scenario) -> Result<Self, ConfigError> {
        crate::parts::validate(sc)?;
        let built = topology::build(sc)?;
        topology::check_path_stages(sc, &built, |cc| crate::transport::cc::registry::needs(cc).path_stage)?;
        let delays_s = built.delays_s;
        let mut net = Net::new(built.links, built.routes);
        net.seed = sc.seed;
        if sc.qdelay {
            for l in &mut net.links {
                l.record_qdelay();
            }
        }
        // ns-2's `$defaultRNG seed`, for the components that draw from it
        // (validated: any that does has a seed ns-2 accepts).
        net.ns2_rng = crate::sim::ns2rng::Ns2Rng::seeded(sc.seed).unwrap_or_default();
        if sc.ns2_clock {
            if let Some(l) = net.links.iter().find(|l| l.ties != crate::scenario::Ties::Ns2) {
                return Err(ConfigError {
                    field: "ns2_clock".into(),
                    msg: format!(
                        "true needs ties = \"ns2\" on every queue (ns-2's events per packet); link {} has ties = {}",
                        l.name(&built.nodes),
                        serde_json::to_string(&l.ties).unwrap_or_default()
                    ),
                });
            }
        }
        let mut flows = FlowTable::default();
        // Workload entries (web users) place host pairs but no flow: each
        // placement gets an application that opens its own transfers.
        let workloads: Vec<Option<app::Factory>> = sc.flows.iter().map(app::workload).collect();
        let n_flows = built.flows.iter().filter(|fp| workloads[fp.entry].is_none()).count();
        flows.reserve(n_flows);
        let mut apps: Vec<app::AppSlot> = Vec::with_capacity(built.flows.len());
        let mut placed = vec![0u32; sc.flows.len()];
        // Flow ids: the flows of TCP entries first, in scenario order, then
        // those of the other transports (UDP), as ccsim has always
        // numbered them.
        let is_tcp = |fp: &&topology::FlowPlacement| sc.flows[fp.entry].transport == "tcp";
        let order = built.flows.iter().filter(is_tcp).chain(built.flows.iter().filter(|fp| !is_tcp(fp)));
        // each application's start as the scenario wrote it (ns-2's clock)
        let mut app_starts = Vec::with_capacity(built.flows.len());
        for fp in order {
            app_starts.push(fp.start_s);
            let spec = &sc.flows[fp.entry];
            let start = from_secs(fp.start_s);
            let index = placed[fp.entry];
            placed[fp.entry] += 1;
            if let Some(build) = &workloads[fp.entry] {
                let p = app::Placement {
                    entry: fp.entry,
                    index,
                    hosts: (fp.src, fp.dst),
                    route: fp.route,
                    start,
                    seed: sc.seed,
                };
                apps.push(build(&p).into());
                continue;
            }
            let stop = spec.stop_s.map(from_secs);
            let labels = std::sync::Arc::new(FlowLabels::of(&spec.transport));
            let meta = FlowMeta::new(fp.entry as u32, apps.len() as u32, labels, fp.rtt_prop_s, start, stop);
            let meta = app::describe(spec, meta);
            let nf = NewFlow { spec, src: fp.src, dst: fp.dst, route: fp.route, meta, transfer: None };
            let id = flows.create(&mut net, nf)?;
            apps.push(app::for_flow(spec, id, (start, stop), sc.seed, from_secs(sc.warmup_s)));
        }
        if sc.ns2_clock {
            net.ns2_clock = Some(Box::new(crate::sim::ns2clock::Ns2Clock::new(delays_s, app_starts)));
        }
        if crate::scenario::validate::ns2_rng_user(sc).is_some() {
            ns2_boot_draws(&mut net, &mut flows, sc.ns2_boot_order.as_deref());
        }
        for (i, a) in apps.iter_mut().enumerate() {
            a.get().init(&mut AppCtx { net: &mut net, flows: &mut flows, app: i as u32 });
        }
        let duration = from_secs(sc.duration_s);
        let warmup = from_secs(sc.warmup_s);
        let sample_iv = from_secs(sc.sample_interval_s);
        if sample_iv > 0 {
            net.events.schedule(sample_iv, Owner::new(EventKind::Sample, 0, 0), 0);
        }
        if warmup > 0 {
            net.events.schedule(warmup, Owner::new(EventKind::WarmupEnd, 0, 0), 0);
        }
        // Samples per fairness window, capped by the number of samples in the run.
        let fair_window = match duration.checked_div(sample_iv) {
            Some(n_samples) => {
                (sc.fairness_window_s / sc.sample_interval_s).round().clamp(1.0, n_samples.max(1) as f64) as usize
            }
            None => 1,
        };
        let sampler = Sampler::new(sample_iv, warmup, fair_window);
        Ok(Simulation {
            net,
            flows,
            apps,
            nodes: built.nodes,
            scenario: sc.clone(),
            duration,
            sampler,
            tapped: Vec::new(),
            ended: false,
        })
    }

    /// End the run at the current time, before its results are built:
    /// every live flow's counters go into its record (as a finished
    /// transfer's do), and the agents, the applications and the pending
    /// events are freed. Why: the results (a row per flow and per link,
    /// about 800 bytes per flow on a dumbbell) were built beside all of the
    /// run's state and added to its peak memory; built after this, they
    /// take memory the run has given back (what `ccsim bench` reports as
    /// "bytes per flow at peak"). Results read the same before and after; the packets still
    /// in the network stay (conservation counts them) and `run_until` does
    /// nothing more.
    pub fn end(&mut self) {
        if self.ended {
            return;
        }
        self.ended = true;
        self.flows.end(&mut self.net);
        self.apps = Vec::new();
        self.net.events.release();
    }

    /// [`Simulation::end`] has been called.
    pub fn ended(&self) -> bool {
        self.ended
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
    /// Packets alive now, and the packet slab's high-water mark (slots
    /// ever allocated; freed slots are reused, so this is the most packets
    /// ever alive at once): what a soak reads to tell network state (more
    /// packets in flight) from a leak.
    pub fn packets_live(&self) -> usize {
        self.net.pkts.live()
    }
    pub fn packet_slots(&self) -> usize {
        self.net.pkts.capacity()
    }
    /// Events scheduled and not yet processed (stale timer events
    /// included: timers are cancelled lazily), and the entries the event
    /// queue can hold without allocating (`EventQueue::capacity`).
    pub fn events_pending(&self) -> usize {
        self.net.events.len()
    }
    pub fn events_capacity(&self) -> usize {
        self.net.events.capacity()
    }
    pub fn is_done(&self) -> bool {
        self.net.now >= self.duration
    }

    /// Rows of the results' `flows` and `links` tables and the links whose
    /// series are sampled (the monitored ones), as built: what the Python
    /// front end multiplies out to estimate the output files before running.
    /// (Applications that open flows during the run add flows later.)
    pub fn flow_count(&self) -> usize {
        self.flows.len()
    }
    pub fn link_count(&self) -> usize {
        self.net.links.len()
    }
    pub fn monitored_link_count(&self) -> usize {
        self.net.links.iter().filter(|l| l.monitored).count()
    }

    /// Flow `f`'s TCP sender, while the flow is alive.
    pub fn tcp_sender(&self, f: u32) -> Option<&TcpSender> {
        match self.flows.get(f).sender()? {
            Sender::Tcp(s) => Some(s),
            _ => None,
        }
    }
    pub fn tcp_sender_mut(&mut self, f: u32) -> Option<&mut TcpSender> {
        match self.flows.sender_mut(f)? {
            Sender::Tcp(s) => Some(s),
            _ => None,
        }
    }
    /// Flow `f`'s TCP receiver, while the flow is alive.
    pub fn tcp_receiver(&self, f: u32) -> Option<&TcpReceiver> {
        match self.flows.get(f).receiver()? {
            Receiver::Tcp(r) => Some(r),
            _ => None,
        }
    }

    /// Flow `f`'s E-TCP sender, while the flow is alive.
    pub fn etcp_sender(&self, f: u32) -> Option<&EtcpSender> {
        match self.flows.get(f).sender()? {
            Sender::Etcp(s) => Some(s),
            _ => None,
        }
    }
    pub fn etcp_sender_mut(&mut self, f: u32) -> Option<&mut EtcpSender> {
        match self.flows.sender_mut(f)? {
            Sender::Etcp(s) => Some(s),
            _ => None,
        }
    }

    /// Record every departure of TCP flow `flow` (pacing tests, traces).
    pub fn enable_send_trace(&mut self, flow: u32) {
        if let Some(s) = self.tcp_sender_mut(flow) {
            s.enable_trace();
        }
    }
    pub fn send_trace(&self, flow: u32) -> &[SendRecord] {
        self.tcp_sender(flow).map_or(&[], |s| s.trace())
    }

    /// Attach a tap to link `link` (see `net::tap`).
    pub fn add_tap(&mut self, link: usize, tap: Box<dyn Tap>) {
        self.net.links[link].add_tap(tap);
        if let Err(i) = self.tapped.binary_search(&link) {
            self.tapped.insert(i, link);
        }
    }

    /// The name of link `l`, `"from->to"` (the results' link rows').
    pub fn link_name(&self, l: usize) -> crate::net::link::LinkName<'_> {
        self.net.links[l].name(&self.nodes)
    }

    /// The index of the link direction called `name`: a link's name as the
    /// summary lists it (`"r0->r1"`, `"a->b"`), or for dumbbell and
    /// parking-lot topologies `bottleneck` (`r0->r1`, where forward data
    /// queue) and `bottleneck-rev` (`r1->r0`). The error lists what exists.
    pub fn link_index(&self, name: &str, field: &str) -> Result<usize, ConfigError> {
        let chain = !matches!(self.scenario.topology, crate::scenario::Topology::Custom(_));
        let want = match name.trim() {
            "bottleneck" if chain => "r0->r1",
            "bottleneck-rev" if chain => "r1->r0",
            n => n,
        };
        if let Some(i) = self.net.links.iter().position(|l| l.name(&self.nodes).is(want)) {
            return Ok(i);
        }
        let mut allowed: Vec<String> = Vec::new();
        if chain {
            allowed.extend(["bottleneck".into(), "bottleneck-rev".into()]);
        }
        allowed.extend(self.net.links.iter().take(30).map(|l| l.name(&self.nodes).to_string()));
        let more = self.net.links.len().saturating_sub(30);
        let tail = if more > 0 { format!(" (and {more} more links)") } else { String::new() };
        Err(ConfigError::new(field, format!("unknown link \"{name}\"; allowed: {}{tail}", allowed.join(", "))))
    }

    /// How flows look on the wire, for the pcap tap: flow `f`'s entry
    /// `[f]`, and the one used for flows created later (workload
    /// transfers, whose hosts the tap cannot know in advance).
    fn flow_wires(&self) -> (Vec<crate::net::tap::wire::FlowWire>, crate::net::tap::wire::FlowWire) {
        use crate::net::tap::wire::FlowWire;
        let entry = |e: u32| &self.scenario.flows[e as usize];
        let wires = self
            .flows
            .iter()
            .map(|f| FlowWire {
                src: f.src,
                dst: f.dst,
                mss: entry(f.meta.entry).mss_bytes,
                header: entry(f.meta.entry).wire_header_bytes(),
            })
            .collect();
        let first = self.scenario.flows.iter().find(|f| app::workload(f).is_some()).or(self.scenario.flows.first());
        let fallback = FlowWire {
            src: u32::MAX,
            dst: u32::MAX,
            mss: first.map_or(1000, |f| f.mss_bytes),
            header: first.map_or(40, |f| f.wire_header_bytes()),
        };
        (wires, fallback)
    }

    /// Write a pcap of the packets leaving link `name` to `path` (see
    /// `net::tap::pcap`); errors name `field`.
    pub fn add_pcap(&mut self, name: &str, path: &std::path::Path, field: &str) -> Result<(), ConfigError> {
        let l = self.link_index(name, field)?;
        let out = create(path, field)?;
        let (wires, fallback) = self.flow_wires();
        self.add_tap(l, Box::new(crate::net::tap::pcap::PcapTap::new(out, wires, fallback)));
        Ok(())
    }

    /// Write an ns-2 trace of link `name` to `path` (see
    /// `net::tap::ns2trace`); errors name `field`.
    pub fn add_ns2_trace(&mut self, name: &str, path: &std::path::Path, field: &str) -> Result<(), ConfigError> {
        let l = self.link_index(name, field)?;
        let out = create(path, field)?;
        let ends = self.flows.iter().map(|f| (f.src, f.dst)).collect();
        let link = &self.net.links[l];
        let ends_link = (link.from, link.to);
        self.add_tap(l, Box::new(crate::net::tap::ns2trace::Ns2Trace::new(out, ends_link, ends)));
        Ok(())
    }

    /// Flush every tap's file; the first write error, with the link's name.
    pub fn finish_taps(&mut self) -> Result<(), String> {
        let now = self.net.now;
        for &i in &self.tapped {
            let l = &mut self.net.links[i];
            l.finish_taps(now).map_err(|e| format!("writing the tap of link {}: {e}", l.name(&self.nodes)))?;
        }
        Ok(())
    }

    /// Add an application; its `init` runs now. Returns its index.
    pub fn add_app(&mut self, mut a: Box<dyn Application>) -> u32 {
        let i = self.apps.len() as u32;
        a.init(&mut AppCtx { net: &mut self.net, flows: &mut self.flows, app: i });
        self.apps.push(a.into());
        i
    }

    /// Advance simulated time to `t_s` (capped at the duration; nothing
    /// once the run has ended).
    pub fn run_until(&mut self, t_s: f64) {
        if self.ended {
            return;
        }
        let t = from_secs(t_s).min(self.duration);
        if self.net.ns2_clock.is_some() {
            self.run_ns2_clock(t);
        }
        while let Some(tn) = self.net.events.peek_time() {
            if tn > t {
                break;
            }
            let e = self.net.events.pop().expect("peeked");
            if self.net.many_flows() {
                // A packet two events ahead: its slot is cold with thousands
                // of flows, and the next event's look-ahead reads it.
                if let Some((EventKind::PipeArrival | EventKind::LineArrival, _, gen)) = self.net.events.peek_owner(2) {
                    self.net.pkts.prefetch(gen);
                }
            }
            for ahead in [1, 0] {
                if let Some((kind, idx, gen)) = self.net.events.peek_owner(ahead) {
                    self.net.prefetch_for(kind, idx, gen, ahead == 0);
                    if ahead == 0
                        && matches!(kind, EventKind::PipeArrival | EventKind::LineArrival)
                        && self.net.many_flows()
                    {
                        if let Some((flow, ack)) = self.net.delivery_of(gen) {
                            self.flows.prefetch_agent(flow, ack);
                            self.net.prefetch_first_link(flow, ack);
                        }
                    }
                }
            }
            self.net.now = e.time;
            self.dispatch(e);
        }
        self.net.now = self.net.now.max(t);
        // Everything up to `now` has happened: taps get the hops cut
        // through that they were still owed (`Link::defer`).
        let now = self.net.now;
        for &l in &self.tapped {
            self.net.links[l].flush_taps(now);
        }
    }

    /// `run_until`'s loop with ns-2's clock (`ns2_clock = true`): the
    /// events of one integer instant run in the order of their ns-2
    /// `double` times (`Ns2Clock::time_of`), equal ones in the order they
    /// were scheduled; an event scheduled for the same instant while they
    /// run takes its place among those still to run.
    #[cold]
    fn run_ns2_clock(&mut self, t: Time) {
        let mut due: Vec<(f64, Event)> = Vec::new();
        while let Some(tn) = self.net.events.peek_time() {
            if tn > t {
                break;
            }
            loop {
                while self.net.events.peek_time() == Some(tn) {
                    let e = self.net.events.pop().expect("peeked");
                    let clock = self.net.ns2_clock.as_deref().expect("ns2 clock");
                    let at = clock.time_of(&e, tn);
                    // after every pending event of an equal or earlier time
                    let k = due.partition_point(|&(x, _)| x <= at);
                    due.insert(k, (at, e));
                }
                if due.is_empty() {
                    break;
                }
                let (at, e) = due.remove(0);
                self.net.now = tn;
                self.net.ns2_clock.as_deref_mut().expect("ns2 clock").now = at;
                self.dispatch(e);
            }
        }
    }

    /// Run to the end and collect results.
    pub fn run(&mut self) -> Results {
        self.run_until(self.duration_s());
        self.results()
    }

    fn dispatch(&mut self, e: Event) {
        let i = e.to.idx as usize;
        match e.to.kind {
            EventKind::PipeArrival | EventKind::LineArrival => {
                let end = if e.to.kind == EventKind::PipeArrival {
                    self.net.pipe_arrival(i)
                } else {
                    self.net.line_arrival(i)
                };
                if let Some(id) = end {
                    let pkt = *self.net.pkts.get(id);
                    self.net.pkts.free(id);
                    if let Some(done) = self.flows.deliver(&mut self.net, &pkt) {
                        self.transfer_done(done);
                    }
                }
                self.free_drained();
            }
            EventKind::LinkFree => self.net.link_free(i, e.gen),
            EventKind::AgentTimer => {
                self.flows.on_timer(&mut self.net, e.to.idx, e.to.slot, e.gen);
                self.free_drained();
            }
            EventKind::LinkTimer => {
                self.net.link_timer(i, e.to.slot, e.gen);
                self.free_drained();
            }
            EventKind::AppTimer => {
                let mut ctx = AppCtx { net: &mut self.net, flows: &mut self.flows, app: e.to.idx };
                self.apps[i].get().on_event(&mut ctx, e.to.slot);
                self.free_drained();
            }
            EventKind::Sample => {
                self.sampler.sample(&mut self.net, &mut self.flows);
                let next = self.net.now.saturating_add(self.sampler.interval);
                if next <= self.duration {
                    self.net.events.schedule(next, Owner::new(EventKind::Sample, 0, 0), 0);
                }
            }
            EventKind::WarmupEnd => self.sampler.warmup_end(&mut self.net, &self.flows),
        }
    }

    /// Free the finished flows whose last packet was dropped.
    #[inline]
    fn free_drained(&mut self) {
        if !self.net.drained.is_empty() {
            self.free_drained_slow();
        }
    }

    #[inline(never)]
    fn free_drained_slow(&mut self) {
        while let Some(f) = self.net.drained.pop() {
            if let Some(done) = self.flows.free_if_done(&mut self.net, f) {
                self.transfer_done(done);
            }
        }
    }

    fn transfer_done(&mut self, flow: u32) {
        let a = self.flows.get(flow).meta.app;
        let mut ctx = AppCtx { net: &mut self.net, flows: &mut self.flows, app: a };
        self.apps[a as usize].get().on_transfer_done(&mut ctx, flow);
    }

    /// Summary results at the current time.
    pub fn results(&self) -> Results {
        self.sampler.results(&self.net, &self.flows, &self.nodes, &self.scenario)
    }

    /// [`Simulation::results`] with the `flows` and `links` rows handed to
    /// `flow` and `link` one at a time and left out of the returned
    /// results (`Sampler::results_rows`).
    pub fn results_rows(
        &self,
        flow: &mut dyn FnMut(crate::stats::FlowResult),
        link: &mut dyn FnMut(crate::stats::LinkResult),
    ) -> Results {
        self.sampler.results_rows(&self.net, &self.flows, &self.nodes, &self.scenario, flow, link)
    }
}
