//! The flow table: one row per flow, with its host pair, route, static facts
//! and its two agents; rows are added at build time or by applications
//! during a run, never renumbered.
//!
//! A finished transfer (everything acknowledged) whose packets have all left
//! the network is freed: its agents are dropped and what results need is
//! kept as a [`FlowRecord`], so a workload of many short transfers holds
//! only the live ones.
use crate::net::{Net, Packet};
use crate::scenario::{ConfigError, FlowSpec};
use crate::sim::Time;
use crate::transport::{self, slot, Endpoints, Receiver, Sender, SenderReport};

/// Static facts about one flow, for results.
#[derive(Clone, Debug)]
pub struct FlowMeta {
    /// Index of the `[[flows]]` entry the flow came from.
    pub entry: usize,
    pub transport: String,
    pub cc: String,
    pub recovery: String,
    pub pacing: String,
    pub rtt_prop_s: f64,
    pub start: Time,
    pub stop: Option<Time>,
    /// Application (index in `Simulation::apps`) that opened the flow.
    pub app: u32,
}

/// What results need of a freed flow.
#[derive(Clone, Copy, Debug)]
pub struct FlowRecord {
    pub sender: SenderReport,
    pub delivered_bytes: u64,
    pub rx_bytes: u64,
}

pub struct Flow {
    pub src: usize,
    pub dst: usize,
    pub route: u32,
    pub meta: FlowMeta,
    state: State,
}

/// A flow's agents while it lives, what results need once it is freed.
/// The agents are inline (no pointer chase per packet delivered).
#[allow(clippy::large_enum_variant)]
enum State {
    Live(Endpoints),
    Freed(FlowRecord),
}

impl Flow {
    pub fn is_live(&self) -> bool {
        matches!(self.state, State::Live(_))
    }

    fn ends(&self) -> Option<&Endpoints> {
        match &self.state {
            State::Live(e) => Some(e),
            State::Freed(_) => None,
        }
    }

    fn ends_mut(&mut self) -> Option<&mut Endpoints> {
        match &mut self.state {
            State::Live(e) => Some(e),
            State::Freed(_) => None,
        }
    }

    pub fn sender(&self) -> Option<&Sender> {
        self.ends().map(|e| &e.sender)
    }

    pub fn receiver(&self) -> Option<&Receiver> {
        self.ends().map(|e| &e.receiver)
    }

    /// The sender's report, live or recorded.
    pub fn report(&self) -> SenderReport {
        match &self.state {
            State::Live(e) => e.sender.report(),
            State::Freed(r) => r.sender,
        }
    }

    /// Payload bytes delivered in order to the receiving application.
    pub fn delivered_bytes(&self) -> u64 {
        match &self.state {
            State::Live(e) => e.receiver.delivered_bytes(),
            State::Freed(r) => r.delivered_bytes,
        }
    }

    /// Bytes (with headers) that reached the receiver.
    pub fn rx_bytes(&self) -> u64 {
        match &self.state {
            State::Live(e) => e.receiver.rx_bytes(),
            State::Freed(r) => r.rx_bytes,
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
}

#[derive(Default)]
pub struct FlowTable {
    flows: Vec<Flow>,
    /// Flows whose agents are alive or were freed lately, in id order (the
    /// candidates for a series row).
    recent: Vec<u32>,
}

impl FlowTable {
    /// Add a flow: build its agents (transport registry) and register its
    /// route with the network. Returns its id.
    pub fn create(&mut self, net: &mut Net, f: NewFlow) -> Result<u32, ConfigError> {
        let ends = transport::build(f.spec, self.next_id(), net.seed)?;
        Ok(self.insert(net, f.src, f.dst, f.route, f.meta, ends))
    }

    /// Room for `n` more flows (a scenario's flows are known at build).
    pub fn reserve(&mut self, n: usize) {
        self.flows.reserve_exact(n);
        self.recent.reserve_exact(n);
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
        let id = self.next_id();
        net.add_flow(id, route);
        self.flows.push(Flow { src, dst, route, meta, state: State::Live(ends) });
        self.recent.push(id);
        id
    }

    pub fn len(&self) -> usize {
        self.flows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.flows.is_empty()
    }

    pub fn get(&self, id: u32) -> &Flow {
        &self.flows[id as usize]
    }

    pub fn iter(&self) -> impl Iterator<Item = &Flow> {
        self.flows.iter()
    }

    /// Ids of the flows alive, or finished after `since`, ascending; the
    /// others are forgotten for good (series sampling walks only these).
    pub fn alive_since(&mut self, since: Time) -> &[u32] {
        let flows = &self.flows;
        self.recent.retain(|&f| {
            let fl = &flows[f as usize];
            fl.is_live() || fl.report().completed_at.is_some_and(|c| c > since)
        });
        &self.recent
    }

    pub fn sender_mut(&mut self, id: u32) -> Option<&mut Sender> {
        self.flows[id as usize].ends_mut().map(|e| &mut e.sender)
    }

    pub fn receiver_mut(&mut self, id: u32) -> Option<&mut Receiver> {
        self.flows[id as usize].ends_mut().map(|e| &mut e.receiver)
    }

    /// A packet reached the end of its route: hand it to the flow's
    /// receiver (data) or sender (ACK). Returns the flow's id if this
    /// finished and freed its transfer.
    #[inline]
    pub fn deliver(&mut self, net: &mut Net, pkt: &Packet) -> Option<u32> {
        let ends = self.flows[pkt.flow as usize].ends_mut()?;
        if pkt.is_ack() {
            ends.sender.on_packet(net, pkt);
        } else {
            ends.receiver.on_packet(net, pkt);
        }
        self.free_if_done(net, pkt.flow)
    }

    /// Agent timer `slot` of `flow` fired (ignored once the flow is freed).
    pub fn on_timer(&mut self, net: &mut Net, flow: u32, s: u8, gen: u32) {
        let Some(ends) = self.flows[flow as usize].ends_mut() else { return };
        if s < slot::RECEIVER {
            ends.sender.on_timer(net, s, gen);
        } else {
            ends.receiver.on_timer(net, s - slot::RECEIVER, gen);
        }
    }

    /// Free `flow`'s agents if its transfer finished and none of its packets
    /// is left in the network (so none can arrive later).
    #[inline]
    pub fn free_if_done(&mut self, net: &Net, flow: u32) -> Option<u32> {
        if net.flow_in_network(flow) > 0 {
            return None;
        }
        let f = &mut self.flows[flow as usize];
        let ends = f.ends()?;
        if !ends.sender.finished() {
            return None;
        }
        f.state = State::Freed(FlowRecord {
            sender: ends.sender.report(),
            delivered_bytes: ends.receiver.delivered_bytes(),
            rx_bytes: ends.receiver.rx_bytes(),
        });
        Some(flow)
    }
}
