//! Transports: one registry of endpoint pairs (sender and receiver agents)
//! that applications open transfers on, and the congestion controllers TCP
//! drives.
//!
//! A transport is a sender agent and a receiver agent ([`SenderAgent`],
//! [`ReceiverAgent`]) plus its own flow fields, which it validates and
//! fills with defaults; fields of other transports are rejected with a named
//! error. The built-in agents are dispatched statically through the
//! [`Sender`] and [`Receiver`] enums (the per-ACK hot path); `Ext` holds an
//! agent from outside the crate. Adding a transport is its file(s), one line
//! in [`build`] and a variant in each enum.
pub mod cc;
pub mod etcp;
pub mod tcp;
pub mod tso;
pub mod udp;

use crate::net::{Net, Packet};
use crate::scenario::{fields, ConfigError, FlowSpec};
use crate::sim::{EventKind, Owner, Time};
use cc::{FeedbackSample, ModelInfo};

/// Timer slots of a flow's agents: a sender's slots are below
/// `RECEIVER_SLOT`, a receiver's from it up.
pub mod slot {
    pub const RECEIVER: u8 = 128;
}

/// The owner of a sender timer of `flow`.
pub fn sender_timer(flow: u32, slot: u8) -> Owner {
    debug_assert!(slot < slot::RECEIVER);
    Owner::new(EventKind::AgentTimer, flow, slot)
}

/// The owner of a receiver timer of `flow`.
pub fn receiver_timer(flow: u32, slot: u8) -> Owner {
    Owner::new(EventKind::AgentTimer, flow, slot::RECEIVER + slot)
}

/// A sender's counters and state, for results and series.
#[derive(Clone, Copy, Debug, Default)]
pub struct SenderReport {
    pub data_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    /// ACKs that arrived carrying ECN-Echo (RFC 3168 §6.1.3: the receiver
    /// sets ECE on every ACK from a CE mark until the sender's CWR, so
    /// this counts echoes, not marks); with AccECN feedback (RFC 9768),
    /// whose ECE flag is a bit of the ACE count, the ACKs whose count
    /// reported new CE marks; 0 for transports without ECN.
    pub ece_acks: u64,
    /// Window in packets (`NaN` for transports without one).
    pub cwnd: f64,
    pub ssthresh: f64,
    pub srtt_s: Option<f64>,
    /// When the transfer was completely acknowledged.
    pub completed_at: Option<Time>,
    /// Loss-driven transports (E-TCP): fraction of packets the sender
    /// responded to as lost.
    pub loss_est: Option<f64>,
    /// Rate-timed transports (E-TCP): sending rate in packets/s.
    pub rate_pps: Option<f64>,
    /// Window-advertising flows (GWA): the receiver's latest advertised
    /// window W_a in packets.
    pub awnd_pkts: Option<f64>,
}

/// Delay of the messages an application wrote, from the sending
/// application's write to in-order delivery to the receiving one (Telnet),
/// over the messages written at or after the warm-up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AppDelay {
    pub count: u64,
    pub sum: Time,
    pub max: Time,
    pub min: Time,
}

impl AppDelay {
    pub fn record(&mut self, d: Time) {
        self.min = if self.count == 0 { d } else { self.min.min(d) };
        self.count += 1;
        self.sum = self.sum.saturating_add(d);
        self.max = self.max.max(d);
    }

    /// Mean delay in seconds (`None` before the first message).
    pub fn mean_s(&self) -> Option<f64> {
        (self.count > 0).then(|| crate::sim::time::to_secs(self.sum) / self.count as f64)
    }

    pub fn max_s(&self) -> Option<f64> {
        (self.count > 0).then(|| crate::sim::time::to_secs(self.max))
    }
}

/// The sending endpoint of a flow.
pub trait SenderAgent: Send {
    /// The application starts offering data.
    fn open(&mut self, net: &mut Net);
    /// The application stops offering new data (data already given is
    /// still delivered).
    fn close(&mut self);
    /// The application hands one unit of data to send now (a datagram for
    /// message transports; byte-stream transports take data at `open`).
    fn write(&mut self, _net: &mut Net) {}
    /// A packet of this flow reached the sender (an ACK).
    fn on_packet(&mut self, net: &mut Net, pkt: &Packet);
    /// Sender timer `slot` fired with generation `gen`.
    fn on_timer(&mut self, _net: &mut Net, _slot: u8, _gen: u32) {}
    /// Everything the application gave was delivered and acknowledged.
    fn finished(&self) -> bool;
    fn report(&self) -> SenderReport;
    /// The router feedback the sender's controller last applied (XCP), for
    /// the flow series; kept out of [`SenderReport`] so a freed transfer's
    /// record stays small.
    fn last_feedback(&self) -> Option<FeedbackSample> {
        None
    }
    /// The controller's marked-fraction estimate (DCTCP's α), for the
    /// flow series.
    fn ecn_alpha(&self) -> Option<f64> {
        None
    }
    /// The controller's model (BBR's bandwidth, RTprop and gains), for
    /// the flow series.
    fn model_info(&self) -> Option<ModelInfo> {
        None
    }
}

/// The receiving endpoint of a flow.
pub trait ReceiverAgent: Send {
    fn on_packet(&mut self, net: &mut Net, pkt: &Packet);
    /// Receiver timer `slot` (counted from 0) fired with generation `gen`.
    fn on_timer(&mut self, _net: &mut Net, _slot: u8, _gen: u32) {}
    /// Payload bytes delivered in order to the application.
    fn delivered_bytes(&self) -> u64;
    /// Every byte that arrived (headers and duplicates included).
    fn rx_bytes(&self) -> u64;
    /// The sending application wrote one message (one segment) at `now`;
    /// receivers that time application delay note it (`measured`: counted
    /// in the results, i.e. written at or after the warm-up).
    fn app_sent(&mut self, _now: Time, _measured: bool) {}
    /// Application delay of the messages noted by `app_sent`.
    fn app_delay(&self) -> Option<AppDelay> {
        None
    }
}

// The agents are stored inline, not boxed: every ACK reaches its sender
// without a pointer chase. E-TCP's sender, larger than TCP's and run only
// in its paper's scenarios of a few flows, is the exception.
#[allow(clippy::large_enum_variant)]
pub enum Sender {
    Tcp(tcp::TcpSender),
    Udp(udp::UdpSender),
    /// Boxed: E-TCP's sender is larger than TCP's, and every flow's
    /// agents would otherwise be as large.
    Etcp(Box<etcp::EtcpSender>),
    Ext(Box<dyn SenderAgent>),
}

#[allow(clippy::large_enum_variant)]
pub enum Receiver {
    Tcp(tcp::TcpReceiver),
    Udp(udp::UdpSink),
    /// Boxed, as E-TCP's sender is.
    Etcp(Box<etcp::EtcpReceiver>),
    Ext(Box<dyn ReceiverAgent>),
}

/// Static dispatch over the built-in agents.
macro_rules! dispatch {
    ($e:expr, $enum:ident, $x:ident => $call:expr) => {
        match $e {
            $enum::Tcp($x) => $call,
            $enum::Udp($x) => $call,
            $enum::Etcp($x) => $call,
            $enum::Ext($x) => $call,
        }
    };
}

impl Sender {
    #[inline]
    pub fn open(&mut self, net: &mut Net) {
        dispatch!(self, Sender, s => s.open(net))
    }
    #[inline]
    pub fn close(&mut self) {
        dispatch!(self, Sender, s => s.close())
    }
    #[inline]
    pub fn write(&mut self, net: &mut Net) {
        dispatch!(self, Sender, s => s.write(net))
    }
    #[inline]
    pub fn on_packet(&mut self, net: &mut Net, pkt: &Packet) {
        dispatch!(self, Sender, s => s.on_packet(net, pkt))
    }
    #[inline]
    pub fn on_timer(&mut self, net: &mut Net, slot: u8, gen: u32) {
        dispatch!(self, Sender, s => s.on_timer(net, slot, gen))
    }
    #[inline]
    pub fn finished(&self) -> bool {
        dispatch!(self, Sender, s => s.finished())
    }
    #[inline]
    pub fn report(&self) -> SenderReport {
        dispatch!(self, Sender, s => s.report())
    }
    pub fn last_feedback(&self) -> Option<FeedbackSample> {
        dispatch!(self, Sender, s => s.last_feedback())
    }
    pub fn ecn_alpha(&self) -> Option<f64> {
        dispatch!(self, Sender, s => s.ecn_alpha())
    }
    pub fn model_info(&self) -> Option<ModelInfo> {
        dispatch!(self, Sender, s => s.model_info())
    }
}

impl Receiver {
    #[inline]
    pub fn on_packet(&mut self, net: &mut Net, pkt: &Packet) {
        dispatch!(self, Receiver, r => r.on_packet(net, pkt))
    }
    #[inline]
    pub fn on_timer(&mut self, net: &mut Net, slot: u8, gen: u32) {
        dispatch!(self, Receiver, r => r.on_timer(net, slot, gen))
    }
    #[inline]
    pub fn delivered_bytes(&self) -> u64 {
        dispatch!(self, Receiver, r => r.delivered_bytes())
    }
    #[inline]
    pub fn rx_bytes(&self) -> u64 {
        dispatch!(self, Receiver, r => r.rx_bytes())
    }
    pub fn app_sent(&mut self, now: Time, measured: bool) {
        dispatch!(self, Receiver, r => r.app_sent(now, measured))
    }
    pub fn app_delay(&self) -> Option<AppDelay> {
        dispatch!(self, Receiver, r => r.app_delay())
    }
}

/// A flow's two agents.
pub struct Endpoints {
    pub sender: Sender,
    pub receiver: Receiver,
}

/// A transport as listed by `ccsim list`.
pub struct TransportKind {
    pub name: &'static str,
    pub doc: &'static str,
    /// Check a flow's fields.
    pub validate: fn(&FlowSpec, &str) -> Result<(), ConfigError>,
    /// Fill the transport's fields left out with their defaults.
    pub fill_defaults: fn(&mut FlowSpec),
    /// The names results report for a validated flow: (controller, loss
    /// recovery, pacing).
    pub describe: fn(&FlowSpec) -> [String; 3],
    /// Build the agents of flow `flow` from a validated spec; `seed` is the
    /// scenario's (agents draw from their own `rng::stream`); `shared` is
    /// what the flows of the spec's `[[flows]]` entry share.
    pub build: fn(&FlowSpec, u32, u64, &mut Shared) -> Endpoints,
}

/// What the flows of one `[[flows]]` entry share once built, so that
/// thousands of flows hold one copy of their entry's parameters.
#[derive(Default)]
pub struct Shared {
    pub tcp: Option<std::sync::Arc<tcp::TcpParams>>,
    /// The controller's parameters ([`cc::CongestionControl::share_config`]).
    pub cc: cc::SharedConfig,
}

/// Every transport ccsim ships: one line each.
pub fn registry() -> Vec<TransportKind> {
    vec![tcp::KIND, udp::KIND, etcp::KIND]
}

fn kind(spec: &FlowSpec, path: &str) -> Result<TransportKind, ConfigError> {
    let kinds = registry();
    let names: Vec<&str> = kinds.iter().map(|k| k.name).collect();
    kinds.into_iter().find(|k| k.name == spec.transport).ok_or_else(|| {
        ConfigError::new(
            format!("{path}.transport"),
            format!("unknown value \"{}\"; allowed: {}", spec.transport, names.join(", ")),
        )
    })
}

/// Validate a flow's transport fields: the transport's own checks, and no
/// field of another transport.
pub fn validate(spec: &FlowSpec, path: &str) -> Result<(), ConfigError> {
    let k = kind(spec, path)?;
    let has = |t: &TransportKind, f: &str| fields::of(t.name).any(|d| d.name == f);
    let common = |f: &str| fields::common().any(|d| d.name == f);
    for field in spec.given_fields() {
        if !common(&field) && !has(&k, &field) {
            let owners: Vec<String> =
                registry().into_iter().filter(|o| has(o, &field)).map(|o| format!("\"{}\"", o.name)).collect();
            let why = if owners.is_empty() {
                "not a flow field".to_string()
            } else {
                format!("only allowed with transport = {}", owners.join(" or "))
            };
            return Err(ConfigError::new(
                crate::scenario::key_path(path, &field),
                format!(
                    "{why}; transport \"{}\" takes: {}",
                    k.name,
                    fields::of(k.name).map(|d| d.name).collect::<Vec<_>>().join(", ")
                ),
            ));
        }
    }
    (k.validate)(spec, path)
}

/// Normalise: fill the flow's transport fields with their defaults.
pub fn fill_defaults(spec: &mut FlowSpec) {
    if let Some(k) = registry().into_iter().find(|k| k.name == spec.transport) {
        (k.fill_defaults)(spec);
    }
}

/// Build the agents of flow `flow` (the spec was validated), sharing
/// with the other flows of its entry through `shared`.
pub fn build(spec: &FlowSpec, flow: u32, seed: u64, shared: &mut Shared) -> Result<Endpoints, ConfigError> {
    let k = kind(spec, "flow")?;
    Ok((k.build)(spec, flow, seed, shared))
}

/// (controller, loss recovery, pacing) names of a validated flow, for
/// results; "none" for an unknown transport.
pub fn describe(spec: &FlowSpec) -> [String; 3] {
    match registry().into_iter().find(|k| k.name == spec.transport) {
        Some(k) => (k.describe)(spec),
        None => ["none".into(), "none".into(), "none".into()],
    }
}

/// An empty flow of `transport` (with `extra` given) after its
/// transport's defaults: what a flow that names nothing else runs.
fn filled(k: &TransportKind, extra: serde_json::Value) -> serde_json::Value {
    let mut j = serde_json::json!({"transport": k.name});
    if let (Some(o), serde_json::Value::Object(e)) = (j.as_object_mut(), extra) {
        o.extend(e);
    }
    let mut spec: FlowSpec = serde_json::from_value(j).expect("an empty flow table parses");
    (k.fill_defaults)(&mut spec);
    serde_json::to_value(&spec).unwrap_or_default()
}

/// The personalities a transport's flows name (TCP's `tcp_model`), each
/// with its filled flow, from the personalities' own fill code.
fn by_model(k: &TransportKind) -> Vec<(&'static str, serde_json::Value)> {
    if fields::of(k.name).any(|f| f.name == "tcp_model") {
        ["rfc", "ns2", "linux"].iter().map(|m| (*m, filled(k, serde_json::json!({"tcp_model": m})))).collect()
    } else {
        Vec::new()
    }
}

/// A field's entry in `ccsim list`: its declaration, its default in the
/// filled flow `base` and, under personalities, in each of `models`.
fn field_entry(
    f: &fields::FieldInfo,
    base: &serde_json::Value,
    models: &[(&str, serde_json::Value)],
) -> serde_json::Value {
    let mut e = serde_json::json!({
        "name": f.name,
        "default": base.get(f.name).cloned().unwrap_or_default(),
        "doc": f.doc(),
        "values": f.values(),
    });
    if !f.default_note.is_empty() {
        e["default_note"] = f.default_note.into();
    }
    if !models.is_empty() {
        let by: serde_json::Map<String, serde_json::Value> =
            models.iter().map(|(m, v)| (m.to_string(), v.get(f.name).cloned().unwrap_or_default())).collect();
        e["by_model"] = serde_json::Value::Object(by);
    }
    e
}

/// Every flow field in declaration order (docs/scenario.md's flow table):
/// a transport's field with that transport's defaults, a common one with
/// TCP's (the default transport).
pub fn flow_fields() -> serde_json::Value {
    let kinds = registry();
    let filled: Vec<(serde_json::Value, Vec<(&str, serde_json::Value)>)> =
        kinds.iter().map(|k| (filled(k, serde_json::json!({})), by_model(k))).collect();
    let owner = |f: &fields::FieldInfo| {
        let name = f.owners.iter().find(|o| **o != "common").copied().unwrap_or("tcp");
        kinds.iter().position(|k| k.name == name).expect("a field's owner is a transport")
    };
    let entries: Vec<serde_json::Value> = crate::scenario::FLOW_FIELDS
        .iter()
        .map(|f| {
            let (base, models) = &filled[owner(f)];
            let mut e = field_entry(f, base, if f.owners.contains(&"common") { &[] } else { models });
            e["owners"] = serde_json::json!(f.owners);
            e
        })
        .collect();
    serde_json::Value::Array(entries)
}

/// `ccsim list`'s transport table: fields with their defaults.
pub fn catalog() -> serde_json::Value {
    registry()
        .iter()
        .map(|k| {
            let base = filled(k, serde_json::json!({}));
            // A transport with personalities (TCP's `tcp_model`): every
            // field's default under each, from the personalities' own
            // fill code (docs/tcp-models.md's generated table).
            let models = by_model(k);
            let fields: Vec<serde_json::Value> = fields::of(k.name).map(|f| field_entry(f, &base, &models)).collect();
            serde_json::json!({"name": k.name, "doc": k.doc, "params": fields})
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::mem::size_of;

    /// The catalog gives every TCP field's default under each personality,
    /// from the personalities' fill code (docs/tcp-models.md's table).
    #[test]
    fn the_catalog_has_each_personalitys_defaults() {
        let cat = super::catalog();
        let tcp = cat.as_array().unwrap().iter().find(|t| t["name"] == "tcp").unwrap();
        let field = |n: &str| tcp["params"].as_array().unwrap().iter().find(|p| p["name"] == n).unwrap().clone();
        let rack = field("rack");
        assert_eq!(
            (&rack["by_model"]["rfc"], &rack["by_model"]["linux"]),
            (&serde_json::json!(false), &serde_json::json!(true))
        );
        assert_eq!(field("rtt_estimator")["by_model"]["ns2"], "ns2");
        assert_eq!(field("init_cwnd_pkts")["by_model"]["ns2"], 2.0);
        // the plain default is the rfc personality's
        assert_eq!(field("recovery")["default"], field("recovery")["by_model"]["rfc"]);
        // a transport without personalities has none
        let etcp = cat.as_array().unwrap().iter().find(|t| t["name"] == "etcp").unwrap();
        assert!(etcp["params"].as_array().unwrap().iter().all(|p| p.get("by_model").is_none()));
    }

    /// At most 2 KB per long-lived flow: a TCP flow's agents
    /// hold inline only what the rfc personality's bulk flows use; ns-2's
    /// timing and delayed send, FAST's tick, the pacer, the send trace and
    /// Telnet's delays are boxed, there only when a flow has them, an
    /// optional sequence number takes 8 bytes (`NonMaxU64`), not 16, the
    /// RTO's limits are the flow group's (`RtoLimits`), not a copy, and a
    /// flow's configuration is its group's parameters and its own transfer
    /// size (`TcpConfig`, 16 bytes; ns-2's boot time is in its estimator).
    #[test]
    fn a_flows_agents_stay_small() {
        let sizes = [
            ("TcpConfig", size_of::<super::tcp::TcpConfig>(), 16),
            ("TcpSender", size_of::<super::tcp::TcpSender>(), 408),
            ("RttEstimator", size_of::<super::tcp::rtt::RttEstimator>(), 40),
            ("TcpReceiver", size_of::<super::tcp::TcpReceiver>(), 120),
            ("Endpoints", size_of::<super::Endpoints>(), 528),
            // a flow's row: its names one shared pointer, not four; hosts
            // and entry in 4 bytes, `stop` in 8, a transfer's tag kept
            // apart from the rows
            ("Flow", size_of::<crate::flow::Flow>(), 64),
        ];
        for (name, size, most) in sizes {
            assert!(size <= most, "{name} is {size} bytes, more than {most}");
        }
        // not aligned beyond 8: a u128 inline, as the jitter generator's
        // and E-TCP's generator were, pads every flow's agents
        assert_eq!(std::mem::align_of::<super::tcp::TcpSender>(), 8);
        assert_eq!(std::mem::align_of::<super::Endpoints>(), 8);
    }
}
