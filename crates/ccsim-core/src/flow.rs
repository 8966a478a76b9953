//! The flow table: one row per flow, with its host pair, route, static facts
//! and where its two agents are; rows are added at build time or by
//! applications during a run, never renumbered.
//!
//! A finished transfer (everything acknowledged) whose packets have all left
//! the network is freed: its agents are dropped and what results need is
//! kept as a [`FlowRecord`] in its row. The agents of live flows sit in a
//! dense slab (a row holds its slot; a freed slot is filled by the last
//! live flow's agents), so the agents in memory are those of the live
//! flows, and a workload of many short transfers costs one small row per
//! transfer ever made plus the agents of the live ones. Flow ids are never
//! reused (a stale timer event names its flow by id).
use crate::net::{Net, Packet};
use crate::scenario::{ConfigError, FlowSpec};
use crate::sim::Time;
use crate::transport::cc::{FeedbackSample, ModelInfo};
use crate::transport::{self, slot, AppDelay, Endpoints, Receiver, Sender, SenderReport};
use nonmax::NonMaxU64;
use std::sync::Arc;

/// A flow's transport, controller, recovery and pacing, by name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowLabels {
    pub transport: Arc<str>,
    pub cc: Arc<str>,
    pub recovery: Arc<str>,
    pub pacing: Arc<str>,
}

impl FlowLabels {
    /// `transport`'s labels before the transport describes the flow.
    pub fn of(transport: &str) -> Self {
        let none: Arc<str> = "none".into();
        FlowLabels { transport: transport.into(), cc: none.clone(), recovery: none.clone(), pacing: none }
    }
}

/// Static facts about one flow, for results.
#[derive(Clone, Debug)]
pub struct FlowMeta {
    /// Index of the `[[flows]]` entry the flow came from.
    pub entry: u32,
    /// Application (index in `Simulation::apps`) that opened the flow.
    pub app: u32,
    /// Its names, one copy shared by every row with the same four (the
    /// table interns them): with thousands of flows from one entry, four
    /// pointers a row were 56 bytes a flow more than this one.
    pub labels: Arc<FlowLabels>,
    pub rtt_prop_s: f64,
    pub start: Time,
    /// When its application stops it, if it does ([`FlowMeta::stop`]):
    /// 8 bytes, not an `Option<Time>`'s 16 (a row per flow).
    stop: Option<NonMaxU64>,
}

impl FlowMeta {
    /// The facts of a flow of `[[flows]]` entry `entry`, opened by
    /// application `app`, named `labels`, of propagation RTT
    /// `rtt_prop_s`, running from `start` to `stop` (if it stops).
    pub fn new(
        entry: u32,
        app: u32,
        labels: Arc<FlowLabels>,
        rtt_prop_s: f64,
        start: Time,
        stop: Option<Time>,
    ) -> Self {
        // `Time::MAX` is kept as one picosecond less: no run reaches either.
        let stop = stop.map(crate::sim::time::nonmax);
        FlowMeta { entry, app, labels, rtt_prop_s, start, stop }
    }

    /// When its application stops it, if it does.
    pub fn stop(&self) -> Option<Time> {
        self.stop.map(|t| t.get())
    }
}

/// What a workload application says about one of its transfers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TransferTag {
    /// The user (index among its `[[flows]]` entry's `count`).
    pub user: u32,
    /// The user's page request it belongs to (from 0).
    pub page: u32,
    /// Objects it carries (one, or a page's on a persistent connection).
    pub objects: u32,
    /// Objects of its page.
    pub page_objects: u32,
    /// Carried on a persistent connection.
    pub persistent: bool,
    /// Payload bytes to transfer.
    pub bytes: u64,
}

/// What results need of a freed flow.
#[derive(Clone, Copy, Debug)]
pub struct FlowRecord {
    pub sender: SenderReport,
    pub delivered_bytes: u64,
    pub rx_bytes: u64,
    pub app_delay: Option<AppDelay>,
}

/// The record of a flow whose agents are `ends`.
fn record(ends: &Endpoints) -> FlowRecord {
    FlowRecord {
        sender: ends.sender.report(),
        delivered_bytes: ends.receiver.delivered_bytes(),
        rx_bytes: ends.receiver.rx_bytes(),
        app_delay: ends.receiver.app_delay(),
    }
}

/// One row of the flow table: the host pair, route and facts of a flow,
/// and where its agents are.
pub struct Flow {
    /// Its hosts (node indices).
    pub src: u32,
    pub dst: u32,
    pub route: u32,
    pub meta: FlowMeta,
    state: State,
}

/// A live flow's agents are in the table's slab of live endpoints (`Live`
/// holds the slot); a freed flow keeps only what results need, in the
/// table's records (`Freed` holds the index), so a finished transfer costs
/// a row and a record of a few hundred bytes, not its agents, and a live
/// flow's row carries no room for a record (the record inline made every
/// row 200 bytes larger, and with 10^5 long-lived flows that is 20 MB).
#[derive(Clone, Copy, Debug)]
enum State {
    Live(u32),
    Freed(u32),
}

impl Flow {
    pub fn is_live(&self) -> bool {
        matches!(self.state, State::Live(_))
    }
}

/// A flow's row together with its agents (while it lives): what
/// [`FlowTable::get`] and [`FlowTable::iter`] return. It dereferences to
/// the row ([`Flow`]: `src`, `dst`, `route`, `meta`).
#[derive(Clone, Copy)]
pub struct FlowRef<'a> {
    row: &'a Flow,
    ends: Option<&'a Endpoints>,
    /// The freed flow's record.
    rec: Option<&'a FlowRecord>,
}

impl<'a> std::ops::Deref for FlowRef<'a> {
    type Target = Flow;
    fn deref(&self) -> &Flow {
        self.row
    }
}

impl<'a> FlowRef<'a> {
    pub fn sender(&self) -> Option<&'a Sender> {
        self.ends.map(|e| &e.sender)
    }

    pub fn receiver(&self) -> Option<&'a Receiver> {
        self.ends.map(|e| &e.receiver)
    }

    /// The sender's report, live or recorded.
    pub fn report(&self) -> SenderReport {
        match (self.rec, self.ends) {
            (Some(r), _) => r.sender,
            (None, Some(e)) => e.sender.report(),
            (None, None) => unreachable!("a live row has a slot"),
        }
    }

    /// The router feedback the live sender last applied (XCP); `None` for
    /// other controllers and freed flows.
    pub fn last_feedback(&self) -> Option<FeedbackSample> {
        self.ends.and_then(|e| e.sender.last_feedback())
    }

    /// The live sender's marked-fraction estimate (DCTCP's α).
    pub fn ecn_alpha(&self) -> Option<f64> {
        self.ends.and_then(|e| e.sender.ecn_alpha())
    }

    /// The live sender's model (BBR's bandwidth, RTprop and gains).
    pub fn model_info(&self) -> Option<ModelInfo> {
        self.ends.and_then(|e| e.sender.model_info())
    }

    /// Payload bytes delivered in order to the receiving application.
    pub fn delivered_bytes(&self) -> u64 {
        match (self.rec, self.ends) {
            (Some(r), _) => r.delivered_bytes,
            (_, Some(e)) => e.receiver.delivered_bytes(),
            (_, None) => 0,
        }
    }

    /// Application delay (Telnet flows), live or recorded.
    pub fn app_delay(&self) -> Option<AppDelay> {
        match (self.rec, self.ends) {
            (Some(r), _) => r.app_delay,
            (_, Some(e)) => e.receiver.app_delay(),
            (_, None) => None,
        }
    }

    /// Bytes (with headers) that reached the receiver.
    pub fn rx_bytes(&self) -> u64 {
        match (self.rec, self.ends) {
            (Some(r), _) => r.rx_bytes,
            (_, Some(e)) => e.receiver.rx_bytes(),
            (_, None) => 0,
        }
    }
}

/// A flow to create: its transport spec, host pair, route and facts.
pub struct NewFlow<'a> {
    pub spec: &'a FlowSpec,
    pub src: usize,
    pub dst: usize,
    pub route: u32,
    pub meta: FlowMeta,
    /// Set for a transfer of a workload application (web users): such a
    /// flow is reported in results' `transfers` table, not in `flows`,
    /// flow series or Jain's index.
    pub transfer: Option<TransferTag>,
}

/// `FlowTable::live` of a freed flow.
const NOT_LIVE: u32 = u32::MAX;

#[derive(Default)]
pub struct FlowTable {
    flows: Vec<Flow>,
    /// The agents of the live flows, densely packed (a freed flow's slot
    /// is filled by the last one), and the flow each slot belongs to.
    ends: Vec<Endpoints>,
    owner: Vec<u32>,
    /// Per flow id, its slot in `ends` (`NOT_LIVE` once freed): the rows'
    /// `state` says the same, but a row is hundreds of bytes and an
    /// arriving packet needs only this, so the lookup reads a dense array
    /// (a row's line is a cache miss at every delivery with 100 flows and
    /// megabytes of packets in flight, docs/decisions/2026-11-25-per-hop-layout.md).
    live: Vec<u32>,
    /// Most flows alive at once.
    live_max: usize,
    /// Flows whose agents are alive or were freed lately, in id order (the
    /// candidates for a series row); transfers are never in it.
    recent: Vec<u32>,
    /// Ids of the flows that are not transfers, ascending (results'
    /// `flows`, Jain's index).
    plain: Vec<u32>,
    /// The transfers ever created, each with its tag, in id order: kept
    /// here rather than in every row, which long-lived flows would pay 24
    /// bytes each for.
    tags: Vec<(u32, TransferTag)>,
    /// The freed flows' records (`State::Freed` indexes them).
    records: Vec<FlowRecord>,
    /// The distinct names of the rows' metas (a handful).
    names: Vec<Arc<FlowLabels>>,
    /// Per `[[flows]]` entry, what its flows' agents share.
    shared: Vec<transport::Shared>,
    /// Flows alive when the run ended ([`FlowTable::end`]), whose agents
    /// are now records.
    ended_live: usize,
}

impl FlowTable {
    /// Add a flow: build its agents (transport registry) and register its
    /// route with the network. Returns its id.
    pub fn create(&mut self, net: &mut Net, f: NewFlow) -> Result<u32, ConfigError> {
        let entry = f.meta.entry as usize;
        if self.shared.len() <= entry {
            self.shared.resize_with(entry + 1, Default::default);
        }
        let ends = transport::build(f.spec, self.next_id(), net.seed, &mut self.shared[entry])?;
        if let Some(tag) = f.transfer {
            self.tags.push((self.next_id(), tag));
        }
        Ok(self.add(net, (f.src, f.dst), f.route, f.meta, ends, f.transfer.is_some()))
    }

    /// Room for `n` more flows (a scenario's flows are known at build).
    pub fn reserve(&mut self, n: usize) {
        self.flows.reserve_exact(n);
        self.live.reserve_exact(n);
        self.ends.reserve_exact(n);
        self.owner.reserve_exact(n);
        self.recent.reserve_exact(n);
        self.plain.reserve_exact(n);
    }

    /// The id the next flow will get.
    pub fn next_id(&self) -> u32 {
        self.flows.len() as u32
    }

    /// Add a flow with agents built by the caller (for agents outside the
    /// transport registry, `Sender::Ext`/`Receiver::Ext`, built for id
    /// [`next_id`](Self::next_id)).
    pub fn insert(
        &mut self,
        net: &mut Net,
        src: usize,
        dst: usize,
        route: u32,
        meta: FlowMeta,
        ends: Endpoints,
    ) -> u32 {
        self.add(net, (src, dst), route, meta, ends, false)
    }

    fn add(
        &mut self,
        net: &mut Net,
        (src, dst): (usize, usize),
        route: u32,
        mut meta: FlowMeta,
        ends: Endpoints,
        transfer: bool,
    ) -> u32 {
        let id = self.next_id();
        meta.labels = self.intern(&meta.labels);
        net.add_flow(id, route);
        let slot = self.ends.len() as u32;
        self.ends.push(ends);
        self.owner.push(id);
        self.live_max = self.live_max.max(self.ends.len());
        if !transfer {
            self.plain.push(id);
            self.recent.push(id);
        }
        self.flows.push(Flow { src: src as u32, dst: dst as u32, route, meta, state: State::Live(slot) });
        self.live.push(slot);
        net.live_flows = self.ends.len();
        id
    }

    /// The table's shared copy of `name`, so that many rows cost one
    /// allocation per distinct set of names.
    fn intern(&mut self, name: &Arc<FlowLabels>) -> Arc<FlowLabels> {
        if let Some(n) = self.names.iter().find(|n| **n == *name) {
            return n.clone();
        }
        self.names.push(name.clone());
        name.clone()
    }

    /// Flows ever created (live and freed).
    pub fn len(&self) -> usize {
        self.flows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.flows.is_empty()
    }

    /// Flows alive now (their agents exist), or, once the run has ended
    /// ([`FlowTable::end`]), those alive when it ended.
    pub fn live(&self) -> usize {
        self.ends.len() + self.ended_live
    }

    /// Most flows alive at once so far.
    pub fn live_max(&self) -> usize {
        self.live_max
    }

    /// Transfers (flows with a [`TransferTag`]) ever created.
    pub fn transfers(&self) -> usize {
        self.tags.len()
    }

    /// The transfers ever created, with their tags, in id order.
    pub fn transfer_tags(&self) -> &[(u32, TransferTag)] {
        &self.tags
    }

    /// Ids of the flows that are not transfers, ascending.
    pub fn plain(&self) -> &[u32] {
        &self.plain
    }

    #[inline]
    fn slot(&self, id: u32) -> Option<usize> {
        let s = self.live[id as usize];
        (s != NOT_LIVE).then_some(s as usize)
    }

    pub fn get(&self, id: u32) -> FlowRef<'_> {
        let row = &self.flows[id as usize];
        match row.state {
            State::Live(s) => FlowRef { row, ends: Some(&self.ends[s as usize]), rec: None },
            State::Freed(r) => FlowRef { row, ends: None, rec: Some(&self.records[r as usize]) },
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = FlowRef<'_>> {
        (0..self.flows.len() as u32).map(|f| self.get(f))
    }

    /// Ids of the flows alive, or finished after `since`, ascending; the
    /// others are forgotten for good (series sampling walks only these).
    pub fn alive_since(&mut self, since: Time) -> &[u32] {
        let mut recent = std::mem::take(&mut self.recent);
        recent.retain(|&f| {
            let fl = self.get(f);
            fl.is_live() || fl.report().completed_at.is_some_and(|c| c > since)
        });
        self.recent = recent;
        &self.recent
    }

    /// Start loading the agent a packet of `flow` is about to reach (its
    /// sender for an ACK, its receiver for data): its first two lines,
    /// where the agent's dispatch and first reads are.
    #[inline(always)]
    pub(crate) fn prefetch_agent(&self, flow: u32, ack: bool) {
        let Some(&s) = self.live.get(flow as usize) else { return };
        if let Some(e) = self.ends.get(s as usize) {
            if ack {
                crate::net::packet::prefetch_span(&e.sender, 128);
            } else {
                crate::net::packet::prefetch_span(&e.receiver, 128);
            }
        }
    }

    pub fn sender_mut(&mut self, id: u32) -> Option<&mut Sender> {
        let s = self.slot(id)?;
        Some(&mut self.ends[s].sender)
    }

    pub fn receiver_mut(&mut self, id: u32) -> Option<&mut Receiver> {
        let s = self.slot(id)?;
        Some(&mut self.ends[s].receiver)
    }

    /// A packet reached the end of its route: hand it to the flow's
    /// receiver (data) or sender (ACK). Returns the flow's id if this
    /// finished and freed its transfer.
    #[inline]
    pub fn deliver(&mut self, net: &mut Net, pkt: &Packet) -> Option<u32> {
        let s = self.slot(pkt.flow)?;
        let ends = &mut self.ends[s];
        if pkt.is_ack() {
            ends.sender.on_packet(net, pkt);
        } else {
            ends.receiver.on_packet(net, pkt);
        }
        self.free_if_done(net, pkt.flow)
    }

    /// Agent timer `slot` of `flow` fired (ignored once the flow is freed).
    pub fn on_timer(&mut self, net: &mut Net, flow: u32, s: u8, gen: u32) {
        let Some(i) = self.slot(flow) else { return };
        let ends = &mut self.ends[i];
        if s < slot::RECEIVER {
            ends.sender.on_timer(net, s, gen);
        } else {
            ends.receiver.on_timer(net, s - slot::RECEIVER, gen);
        }
    }

    /// Free `flow`'s agents if its transfer finished and none of its packets
    /// is left in the network (so none can arrive later): the row keeps a
    /// [`FlowRecord`] and the last live flow's agents move into the slot.
    #[inline]
    pub fn free_if_done(&mut self, net: &mut Net, flow: u32) -> Option<u32> {
        if net.flow_in_network(flow) > 0 {
            return None;
        }
        let s = self.slot(flow)?;
        if !self.ends[s].sender.finished() {
            return None;
        }
        self.free(flow, s);
        net.live_flows = self.ends.len();
        Some(flow)
    }

    /// End the run: every live flow keeps what the results need in its
    /// record, as a finished transfer does, and all the agents are freed,
    /// their slab's memory with them. Why: the results are built
    /// after the run (a row per flow and per link), and with the agents
    /// still held they added to the run's peak memory; freed first, the
    /// results take memory the run no longer needs (what `ccsim bench`
    /// reports as "bytes per flow at peak"). Results read the same from a record as from live
    /// agents ([`FlowView`]); nothing can run after this.
    ///
    /// The agents go from the last slot down as their records are made,
    /// the slots' vector giving back its emptied tail every sixteenth of
    /// the way: made beside every flow's agents (528 bytes a flow), the
    /// records (192) would take the process a moment above the run's own
    /// peak, 19 MB at S3. A record's place is its
    /// flow's (`State::Freed`), whatever the order they are made in.
    pub fn end(&mut self, net: &mut Net) {
        let n = self.ends.len();
        self.records.reserve_exact(n);
        let step = (n / 16).max(1024);
        while let Some(ends) = self.ends.pop() {
            let flow = self.owner.pop().expect("an owner per slot");
            self.live[flow as usize] = NOT_LIVE;
            self.flows[flow as usize].state = State::Freed(self.records.len() as u32);
            self.records.push(record(&ends));
            drop(ends);
            if self.ends.len().is_multiple_of(step) {
                self.ends.shrink_to_fit();
            }
        }
        self.ended_live += n;
        self.ends = Vec::new();
        self.owner = Vec::new();
        net.live_flows = 0;
    }

    /// Record `flow`'s counters in its row and drop its agents (slot `s`).
    #[inline(never)]
    fn free(&mut self, flow: u32, s: usize) {
        self.live[flow as usize] = NOT_LIVE;
        self.flows[flow as usize].state = State::Freed(self.records.len() as u32);
        self.records.push(record(&self.ends[s]));
        self.ends.swap_remove(s);
        self.owner.swap_remove(s);
        if let Some(&moved) = self.owner.get(s) {
            self.flows[moved as usize].state = State::Live(s as u32);
            self.live[moved as usize] = s as u32;
        }
    }
}
