//! Scenario types (serde, JSON and TOML) and their validation.
//!
//! Parsing is strict (unknown fields are errors) and every error names the
//! field path, the offending value and what is allowed, e.g.
//! `scenario.flows[2].cc: unknown value "cubicc"; allowed: reno`.
//! See docs/scenario.md for every field, unit and default.
mod dupkeys;
pub mod kinds;
pub mod params;
pub(crate) mod validate;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What the parts of the engine above the scenario check and fill in for
/// it. The scenario is the bottom layer: it knows the fields' names and
/// units, and each registry (queue disciplines, transports, applications)
/// validates its own part's table and fills its own defaults
/// (`crate::parts::Engine` implements this over the registries).
pub trait Parts {
    /// A queue table at `field` (its discipline, stages and options).
    fn queue(&self, field: &str, q: &QueueSpec) -> Result<(), ConfigError>;
    /// A flow entry at `path` (`flows[i]`): its transport's and
    /// application's fields.
    fn flow(&self, f: &FlowSpec, path: &str) -> Result<(), ConfigError>;
    /// Fill the entry's transport and application fields with defaults.
    fn fill_defaults(&self, f: &mut FlowSpec);
}

/// A configuration error: the field path and what is wrong with it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub struct ConfigError {
    pub field: String,
    pub msg: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.field.is_empty() {
            write!(f, "scenario: {}", self.msg)
        } else {
            write!(f, "scenario.{}: {}", self.field, self.msg)
        }
    }
}

impl ConfigError {
    pub fn new(field: impl Into<String>, msg: impl Into<String>) -> Self {
        ConfigError { field: field.into(), msg: msg.into() }
    }
}

/// `path.key`, the key quoted as TOML quotes it when it is not a bare key
/// (letters, digits, `_`, `-`): a misspelt ` duration_s` reads
/// `scenario." duration_s"`, not `scenario. duration_s`.
pub(crate) fn key_path(path: &str, key: &str) -> String {
    let mut out = String::with_capacity(path.len() + key.len() + 3);
    out.push_str(path);
    if !path.is_empty() {
        out.push('.');
    }
    push_key(&mut out, key);
    out
}

fn push_key(out: &mut String, key: &str) {
    let bare = !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if bare {
        out.push_str(key);
        return;
    }
    out.push('"');
    for c in key.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn d_name() -> String {
    "scenario".into()
}
fn d_seed() -> u64 {
    1
}
fn d_sample() -> f64 {
    0.1
}
fn d_one() -> f64 {
    1.0
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default = "d_name")]
    pub name: String,
    #[serde(default = "d_seed")]
    pub seed: u64,
    pub duration_s: f64,
    #[serde(default)]
    pub warmup_s: f64,
    #[serde(default = "d_sample")]
    pub sample_interval_s: f64,
    #[serde(default = "d_one")]
    pub fairness_window_s: f64,
    pub topology: Topology,
    pub flows: Vec<FlowSpec>,
    /// The order in which ns-2's `$ns run` resets the TCP agents, as flow
    /// indices (a permutation of the TCP flows): with ns-2's random stream
    /// in use, each agent's running `boot_time_` is the draw of its place
    /// in this order (`world::ns2_boot_draws`); absent: flow order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns2_boot_order: Option<Vec<u32>>,
    /// Order events that fall on one integer instant by the `double` times
    /// ns-2's scheduler would give them (`sim::ns2clock`); every queue must
    /// have `ties = "ns2"`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ns2_clock: bool,
    /// Record every served packet's queueing delay on every link (the
    /// links' `qdelay_*` results and series columns, `net::qdelay`). Off
    /// by default: recording costs about 2% more instructions per run on
    /// the bench rows (docs/decisions/2026-11-27-qdelay-opt-in.md), and a
    /// run that does not read the figures should not pay for them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub qdelay: bool,
}

fn d_droptail() -> String {
    "droptail".into()
}

/// A queue discipline and its options; `kind` selects the discipline and the
/// remaining keys are checked against that discipline's parameters.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct QueueSpec {
    #[serde(default = "d_droptail")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_pkts: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_bytes: Option<u64>,
    /// XCP router feedback on this queue's link (`net::stage::xcp`):
    /// `true` (the original parameters) or a table (`params`, `alpha`,
    /// `beta`, `gamma`, `capacity`, `count_acks`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xcp: Option<Value>,
    /// How this queue's link orders an arrival and a departure at the same
    /// instant ([`Ties`]); absent: `event_order`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ties: Option<Ties>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What a link does when a packet arrives at the very instant the packet in
/// service finishes while others wait: an exact tie, which ccsim's integer
/// picosecond clock produces whenever arrivals are spaced by one service
/// time (slow start's ACK clock: each ACK releases two segments, the first
/// reaching the bottleneck as the one before it leaves).
///
/// The orders differ only in whether the arrival finds the departing
/// packet's successor still waiting: at a full buffer, whether it is
/// dropped; otherwise the queue length it sees (RED's average, the
/// maximum). The FIFO order of the packets is the same. A tie at an empty
/// queue is always served at once (the link is free at that instant).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Ties {
    /// The two events in the order ccsim scheduled them (the default). A
    /// link schedules its next departure one service time ahead, and a
    /// pipe schedules the arrival of its head packet only when the packet
    /// before it arrives, so at a backlogged link this is usually the
    /// departure first.
    #[default]
    EventOrder,
    /// The arrival first: the departure runs after every other event of its
    /// instant. This is ns-2.35's order: `LinkDelay::recv` schedules a
    /// packet's arrival at the next node when its transmission starts
    /// (transmission plus propagation time ahead) and the queue's resume
    /// one transmission time ahead, and its calendar scheduler runs events
    /// of equal time in the order they were inserted
    /// (`CalendarScheduler::insert`, common/scheduler.cc), so wherever a
    /// hop's transmission and propagation take longer than the next link's
    /// service time, the tied arrival was scheduled first
    /// (docs/validation.md, "ns-2's order of a tied arrival and departure").
    /// A DropTail link without stages in this order computes departures at
    /// arrival, with the same results and fewer events (`net::vfifo`).
    ArrivalFirst,
    /// ns-2.35's event order itself: as ns-2's `LinkDelay::recv`, every
    /// packet's arrival at the far end gets its event when its
    /// transmission starts, and so does the link's resume (`LinkFree`,
    /// whether or not a packet waits), so events of equal time run in the
    /// order ns-2 inserted them: a tie between packets of different links
    /// reaching one queue is ordered by their transmission starts, not by
    /// when ccsim's pipe got round to scheduling them. Packets are not cut
    /// through links with this order (each hop has its arrival event), so
    /// it costs about one event per packet per hop more; for comparisons
    /// with ns-2 event by event (docs/validation.md).
    Ns2,
}

impl QueueSpec {
    pub fn droptail_pkts(n: u64) -> Self {
        QueueSpec {
            kind: d_droptail(),
            limit_pkts: Some(n),
            limit_bytes: None,
            xcp: None,
            ties: None,
            extra: Map::new(),
        }
    }
}

fn d_edge_rate() -> f64 {
    100e9
}
fn d_edge_delay() -> f64 {
    0.005
}
fn d_edge_queue() -> QueueSpec {
    QueueSpec::droptail_pkts(1000)
}
fn d_link_delay() -> f64 {
    0.01
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Topology {
    Dumbbell(Dumbbell),
    ParkingLot(ParkingLot),
    Custom(Custom),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dumbbell {
    pub bottleneck_rate_bps: f64,
    #[serde(default = "d_link_delay")]
    pub bottleneck_delay_s: f64,
    pub bottleneck_queue: QueueSpec,
    #[serde(default)]
    pub bottleneck_loss: f64,
    #[serde(default)]
    pub bottleneck_reverse_loss: f64,
    #[serde(default = "d_edge_rate")]
    pub edge_rate_bps: f64,
    #[serde(default = "d_edge_delay")]
    pub edge_delay_s: f64,
    #[serde(default = "d_edge_queue")]
    pub edge_queue: QueueSpec,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParkingLot {
    pub n_links: u32,
    pub link_rate_bps: f64,
    #[serde(default = "d_link_delay")]
    pub link_delay_s: f64,
    pub link_queue: QueueSpec,
    #[serde(default)]
    pub link_loss: f64,
    #[serde(default)]
    pub link_reverse_loss: f64,
    #[serde(default = "d_edge_rate")]
    pub edge_rate_bps: f64,
    #[serde(default = "d_edge_delay")]
    pub edge_delay_s: f64,
    #[serde(default = "d_edge_queue")]
    pub edge_queue: QueueSpec,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Custom {
    pub nodes: Vec<String>,
    pub links: Vec<CustomLink>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomLink {
    pub from: String,
    pub to: String,
    pub rate_bps: f64,
    pub delay_s: f64,
    pub queue: QueueSpec,
    #[serde(default)]
    pub loss: f64,
    #[serde(default)]
    pub reverse_loss: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_queue: Option<QueueSpec>,
    #[serde(default)]
    pub monitor: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum OneOrMany {
    One(f64),
    Many(Vec<f64>),
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    #[default]
    Forward,
    Reverse,
}

fn d_count() -> u32 {
    1
}
fn d_tcp() -> String {
    "tcp".into()
}
fn d_mss() -> u32 {
    1000
}
fn d_header() -> u32 {
    40
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    #[serde(default = "d_count")]
    pub count: u32,
    /// Transport registry name (`transport::build`): "tcp", "udp" or "etcp".
    #[serde(default = "d_tcp")]
    pub transport: String,
    // -- TCP's fields: `None` means the default (transport::tcp::defaults);
    // normalisation fills them in for TCP flows, and other transports
    // reject them when given.
    /// TCP: the personality whose values the TCP fields left out take,
    /// `rfc` or `ns2` (`transport::tcp::personality`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp_model: Option<kinds::TcpModel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cc: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cc_params: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<kinds::Recovery>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing: Option<kinds::PacingKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bucket_pkts: Option<f64>,
    // -- common: packet size of every transport
    #[serde(default = "d_mss")]
    pub mss_bytes: u32,
    #[serde(default = "d_header")]
    pub header_bytes: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_cwnd_pkts: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_ssthresh_pkts: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rwnd_pkts: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cwnd_pkts: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dupthresh: Option<u32>,
    /// ns-2's `numdupacksFrac_` (recovery = "sack1" only): the duplicate
    /// ACKs for fast retransmit are max(dupthresh, int(cwnd) / this).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dupthresh_frac: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limited_transmit: Option<bool>,
    /// Proportional Rate Reduction (RFC 9937) paces a SACK recovery's
    /// sends down to ssthresh instead of cutting cwnd at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prr: Option<bool>,
    /// RFC 3465 §2.2's L with a controller's `abc` (0: no limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abc_l: Option<u32>,
    /// After an idle RTO the window restarts (RFC 5681 §4.1, Linux
    /// `tcp_cwnd_restart`; `tcp_model = "linux"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slow_start_after_idle: Option<bool>,
    /// Without SACK, duplicate ACKs count as delivered segments (Linux
    /// `tcp_add_reno_sack`; `tcp_model = "linux"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reno_sack: Option<bool>,
    /// RACK time-based loss detection (RFC 8985; `tcp_model = "linux"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rack: Option<bool>,
    /// The tail loss probe (RFC 8985 §7; `tcp_model = "linux"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tlp: Option<bool>,
    /// An RTO marks lost only the head and what RACK's time has passed
    /// (Linux `tcp_timeout_mark_lost`; `tcp_model = "linux"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_rack_mark: Option<bool>,
    /// The receiver reports duplicates as D-SACKs (RFC 2883; `tcp_model =
    /// "linux"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dsack: Option<bool>,
    /// Spurious reductions are undone (Linux `tcp_try_undo_*`; `tcp_model
    /// = "linux"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo: Option<bool>,
    /// F-RTO after a timeout (RFC 5682; `tcp_model = "linux"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frto: Option<bool>,
    /// The timestamps option is in use (RFC 7323; `tcp_model = "linux"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamps: Option<bool>,
    /// A paced transmission holds about 1 ms of data at the pacing rate
    /// (Linux `tcp_tso_autosize`; `tcp_model = "linux"` with pacing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tso_autosize: Option<bool>,
    /// The bytes an ACK's SACK blocks add on the wire (`none`, `ns3`,
    /// `linux`; recovery = "sack").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sack_option: Option<kinds::SackOption>,
    /// cwnd grows only while it limits the sender: `off` (RFC 5681),
    /// `linux`, `ns3`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwnd_limited: Option<kinds::CwndLimited>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack: Option<bool>,
    /// TCP with `delayed_ack`: `fixed` (RFC 5681 §4.2 with a fixed timer),
    /// `linux` (quick ACKs, adaptive timeout) or `ns3` (`fixed`, the first
    /// data segment ACKed at once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delack_model: Option<kinds::DelackModel>,
    /// TCP with `delayed_ack`: the delayed-ACK timer (`fixed`, `ns3`) or
    /// the longest delay (`linux`, Linux's `TCP_DELACK_MAX`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delack_timeout_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rto_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rto_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_rto_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_granularity_s: Option<f64>,
    /// TCP: RTT estimator and RTO rules, `rfc6298` (every ACK timed) or
    /// `ns2` (ns-2.35's one timed segment per RTT in `tcpTick_` units).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_estimator: Option<kinds::RttEstimatorKind>,
    /// TCP: a backed-off repeat RTO halves ssthresh again (ns-2's
    /// `TcpAgent::timeout`), instead of keeping it (RFC 5681 §3.1, Linux).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub halve_on_repeated_rto: Option<bool>,
    /// TCP: ns-2's `bug_fix_` test for a new fast retransmit: only once a
    /// segment sent after the last reduction is acknowledged (one segment
    /// stricter than RFC 6582's, ns-2's ACKs naming the last segment
    /// received).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns2_bugfix: Option<bool>,
    /// TCP: Limited Transmit after a timeout too, as ns-2's `singledup_`
    /// (`transport::tcp::defaults::NS2_SINGLEDUP`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns2_singledup: Option<bool>,
    /// TCP: ns-2's retransmission timer, restarted at every new ACK, also
    /// one that acknowledges everything; its expiry with nothing
    /// outstanding restarts the window at one segment
    /// (`transport::tcp::defaults::NS2_IDLE_RESTART`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns2_idle_restart: Option<bool>,
    /// TCP with `rtt_estimator = "rfc6298"`: the RTO backoff ends only
    /// when ns-2's timed segment is acknowledged
    /// (`transport::tcp::defaults::NS2_TIMED_BACKOFF`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns2_timed_backoff: Option<bool>,
    /// TCP with `recovery = "reno"` or `"newreno"`: ns-2's `RenoTcpAgent`
    /// or `NewRenoTcpAgent` window, cwnd_ and the fast-recovery inflation
    /// `dupwnd_` kept apart (`transport::tcp::defaults::NS2_DUPWND`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns2_dupwnd: Option<bool>,
    /// TCP with `rtt_estimator = "ns2"`: ns-2's `boot_time_`, where in its
    /// first `tcpTick_` the agent's clock started (seconds in [0, tick));
    /// absent: drawn uniformly per flow from the seed, as ns-2 draws it.
    /// Set it to replay an ns-2 run tick for tick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns2_boot_time_s: Option<f64>,
    /// TCP: ECN-capable (RFC 3168): data leaves ECT(0), CE marks are echoed
    /// until CWR and answered once per window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    /// TCP with `ecn`: the ECN-capable codepoint of its data, `ect0`
    /// (RFC 3168) or `ect1` (the L4S identifier, RFC 9331), which a
    /// `dualpi2` queue sends to its L queue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ect: Option<kinds::Ect>,
    /// TCP with `ecn`: how the receiver feeds CE marks back, `rfc3168`
    /// (ECE until CWR), `dctcp` (RFC 8257 §3.2) or `accecn` (RFC 9768's
    /// counter); default `dctcp` with `cc = "dctcp"`, `accecn` with
    /// `cc = "prague"`, else `rfc3168`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_feedback: Option<kinds::EcnFeedback>,
    /// TCP: an ECN flow's retransmissions leave ECT(0) as well, as ns-2's
    /// `TcpAgent::output` sets ECT on every data packet; RFC 3168 §6.1.5
    /// sends them Not-ECT (the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_retransmit_ect: Option<bool>,
    /// TCP: how an ECN flow reduces on ECE, `rfc3168` or `ns2` (ns-2.35's
    /// `TcpAgent::ecn`, which can close the window to 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_response: Option<kinds::EcnResponse>,
    /// TCP: GWA-TCP (Gerla et al. §2): data carry the IP option B_n set to
    /// B_max, routers with a `gwa` stage lower it, and the receiver
    /// advertises W_a = min(rwnd, B_n).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gwa: Option<bool>,
    /// TCP: BA-TCP (Gerla et al. §5): data carry the IP option v, routers
    /// with a `gwa = "ba"` stage lower it to their available bandwidth per
    /// flow, the receiver echoes it, and the sender bounds its window by
    /// its round-trip propagation delay times the path's minimum v.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ba: Option<bool>,
    /// TCP: start-up, `none` or ns-2's SYN (`ns2`: a header-only segment 0
    /// alone, the initial window once it is ACKed; `ns2_no_delay_growth`:
    /// the SYN leads the initial window), see `transport::tcp::Syn`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub syn: Option<kinds::Syn>,
    /// TCP: ns-2's `overhead_` (tcp.cc `send_much`): a send the window
    /// allows waits a uniformly random delay in [0, value) seconds, drawn
    /// from the seed, then leaves with everything the window allows; 0 (the
    /// default) sends at once. ns-2 uses it to break drop-tail phase effects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_jitter_s: Option<f64>,
    /// TCP and UDP: the sending host's interface queue (Linux
    /// `txqueuelen`, pfifo_fast): the first link of the flow's route gets
    /// a DropTail queue of this many packets; a TCP segment that does not
    /// fit is held in the sender, which enters CWR (Linux 2.4
    /// `tcp_transmit_skb` -> `tcp_enter_cwr`), a UDP datagram is dropped.
    /// Flows whose routes start on the same link share it. Absent: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub txqueuelen_pkts: Option<u64>,
    // -- common: when the application runs
    #[serde(default)]
    pub start_s: f64,
    #[serde(default)]
    pub start_spread_s: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_s: Option<f64>,
    /// TCP and E-TCP: a finite transfer of this many payload bytes (the "finite"
    /// application); absent, the application is bulk (infinite FTP).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    // -- E-TCP's fields (transport::etcp::FIELDS; `None` means the
    // default, transport::etcp::defaults)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<kinds::Variant>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p0: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exp_pacing: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reliable: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_w_pkts: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_w_pkts: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtx_timer: Option<kinds::RtxTimer>,
    /// UDP only: sending rate in b/s on the wire (payload + header).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_bps: Option<f64>,
    /// UDP only: on-period length; with `off_s`, the source alternates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_s: Option<f64>,
    /// UDP only: off-period length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off_s: Option<f64>,
    // -- common: the application (`app::registry`); absent, the transport's
    // default (bulk transfer, or on/off for UDP)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// The application's parameter table (`ccsim list applications`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_params: Option<Map<String, Value>>,
    // -- common: placement
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_s: Option<OneOrMany>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_range_s: Option<[f64; 2]>,
    /// With `rtt_range_s`: draw the RTT from the grid `lo, lo + step, ...`
    /// (a discrete uniform distribution) instead of the continuous range.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_step_s: Option<f64>,
    #[serde(default)]
    pub direction: Direction,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hops: Option<[u32; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<Vec<String>>,
}

/// Fields every transport takes (placement, timing, packet size).
pub const COMMON_FLOW_FIELDS: &[&str] = &[
    "count",
    "transport",
    "mss_bytes",
    "header_bytes",
    "start_s",
    "start_spread_s",
    "stop_s",
    "rtt_s",
    "rtt_range_s",
    "rtt_step_s",
    "direction",
    "hops",
    "route",
    "app",
    "app_params",
];

/// The timestamps option's bytes on every TCP segment and ACK that uses it
/// (RFC 7323 §2.2's 10 bytes after two NOPs, Linux
/// `TCPOLEN_TSTAMP_ALIGNED`).
pub const TCPOLEN_TSTAMP_ALIGNED: u32 = 12;

impl FlowSpec {
    /// The header bytes of each of the flow's packets on the wire:
    /// `header_bytes`, plus the timestamps option's 12 for a TCP flow that
    /// uses it (`timestamps`, on by default only under `tcp_model =
    /// "linux"`, as `personality::fill_linux` fills it; read here before
    /// the defaults are filled too, for the scenario's checks).
    pub fn wire_header_bytes(&self) -> u32 {
        let tcp = self.transport == "tcp";
        let ts = tcp && self.timestamps.unwrap_or(self.tcp_model == Some(kinds::TcpModel::Linux));
        self.header_bytes + if ts { TCPOLEN_TSTAMP_ALIGNED } else { 0 }
    }

    /// Names of the fields given (every non-`None` field).
    pub fn given_fields(&self) -> Vec<String> {
        match serde_json::to_value(self) {
            Ok(Value::Object(m)) => m.keys().cloned().collect(),
            _ => Vec::new(),
        }
    }
}

fn path_error<E: std::fmt::Display>(e: &serde_path_to_error::Error<E>) -> ConfigError {
    use serde_path_to_error::Segment;
    // serde_path_to_error's own Display writes keys bare, so a key with a
    // space or a dot in it would make an ambiguous path
    let mut path = String::new();
    for seg in e.path().iter() {
        match seg {
            Segment::Seq { index } => path.push_str(&format!("[{index}]")),
            Segment::Map { key } | Segment::Enum { variant: key } => path = key_path(&path, key),
            Segment::Unknown => path.push_str(if path.is_empty() { "?" } else { ".?" }),
        }
    }
    let path = if path == "?" { String::new() } else { path };
    ConfigError::new(path, plain_message(&e.inner().to_string()))
}

/// serde's wording ("invalid type: integer `5`, expected struct
/// QueueSpec") in the scenario's terms ("5 is not allowed; must be a queue
/// table such as { limit_pkts = 20 }"); other messages pass unchanged.
pub(crate) fn plain_message(msg: &str) -> String {
    fn value(v: &str) -> String {
        let v = v.trim();
        let tick = |s: &str| s.trim_matches('`').to_string();
        if let Some(x) = v.strip_prefix("integer ") {
            tick(x)
        } else if let Some(x) = v.strip_prefix("floating point ") {
            tick(x)
        } else if let Some(x) = v.strip_prefix("boolean ") {
            tick(x)
        } else if let Some(x) = v.strip_prefix("string ") {
            x.to_string()
        } else if v == "map" {
            "a table".into()
        } else if v == "sequence" {
            "a list".into()
        } else {
            v.to_string()
        }
    }
    fn expected(e: &str) -> String {
        let e = e.trim();
        match e {
            "u8" | "u16" | "u32" => format!("a whole number from 0 to {}", u32::MAX),
            "u64" | "usize" => "a whole number >= 0".into(),
            "i32" | "i64" => "a whole number".into(),
            "f32" | "f64" => "a number".into(),
            _ if e.starts_with("struct QueueSpec") || e.contains("QueueSpec") => {
                "a queue table such as { limit_pkts = 20 }".into()
            }
            "fewer elements in array" => "a list of exactly 2 values".into(),
            // a name-valued field (an enum of unit variants): `parse_doc`
            // appends the names it takes (`allowed_names`)
            "string or map" | "variant identifier" | "map with a single key" | "string only" => NAME.into(),
            _ if e.starts_with("internally tagged enum") => TAGGED.into(),
            "an array of length 2" => "a list of exactly 2 values".into(),
            _ if e.starts_with("struct ") || e.starts_with("a map") => "a table".into(),
            _ if e.starts_with("a sequence") => "a list".into(),
            _ => e.to_string(),
        }
    }
    // the TOML deserializer appends "\nin `flows.count`": the path is
    // already in the error's field
    let msg = msg.lines().next().unwrap_or(msg).trim_end();
    if msg.starts_with("data did not match any variant of untagged enum OneOrMany") {
        return "must be a number or a list of numbers (one per flow)".into();
    }
    // the TOML reader's word for a table of two or more keys given to a
    // name-valued field (`parse_doc` says the value and the names)
    if msg.starts_with("wanted exactly 1 element") {
        return format!("a table is not allowed; must be {NAME}");
    }
    // "unknown variant `fast`, expected one of `none`, `interval`": serde
    // writes "expected `a`" and "expected `a` or `b`" for one or two names
    if let Some(rest) = msg.strip_prefix("unknown variant ") {
        if let Some((v, names)) = rest.split_once(", expected ") {
            return format!("{} is not allowed; allowed: {}", quoted(v), quoted(names.trim_start_matches("one of ")));
        }
    }
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = msg.strip_prefix(prefix) {
            if let Some((v, e)) = rest.split_once(", expected ") {
                if let Some(m) = out_of_range(v, e) {
                    return m;
                }
                return format!("{} is not allowed; must be {}", value(v), expected(e));
            }
        }
    }
    if let Some(rest) = msg.strip_prefix("invalid length ") {
        if let Some((n, e)) = rest.split_once(", expected ") {
            return format!("a list of {n} values is not allowed; must be {}", expected(e));
        }
    }
    msg.to_string()
}

/// What `plain_message` says a name-valued field must be; `parse_doc`
/// appends ", one of ..." when it can list the names.
const NAME: &str = "a name in quotes";
/// What `plain_message` says `topology` must be; `parse_doc` appends
/// " = one of ...".
const TAGGED: &str = "a table with kind";

/// serde's backquoted names (`none`, `interval`) in the scenario's quotes.
fn quoted(names: &str) -> String {
    names.trim().replace('`', "\"")
}

/// A whole number past an integer field's range: serde_json reads an
/// integer past u64 (Python writes 2**64 as one) as a float, which serde
/// then echoes as `1.8446744073709552e19`; say the number and the range.
fn out_of_range(v: &str, e: &str) -> Option<String> {
    let max = match e.trim() {
        "u8" => u8::MAX as u64,
        "u16" => u16::MAX as u64,
        "u32" => u32::MAX as u64,
        "u64" | "usize" => u64::MAX,
        _ => return None,
    };
    let x: f64 = v.trim().strip_prefix("floating point ")?.trim_matches('`').parse().ok()?;
    // `max as f64` rounds u64::MAX up to 2**64, itself out of range
    (x.fract() == 0.0 && (x < 0.0 || x >= max as f64 + 1.0 || (max == u64::MAX && x >= max as f64)))
        .then(|| format!("{x:.0} is out of range 0..={max}"))
}

/// The names an enum-valued field takes: re-parse the document with the
/// value at `path` set to "" and read them from serde's "unknown variant"
/// message (so the list is the enum's own, never a copy); for `topology`,
/// with `kind = ""`.
fn allowed_names(mut doc: Value, path: &serde_path_to_error::Path) -> Option<String> {
    let v = value_at(&mut doc, path)?;
    let tagged = path.to_string() == "topology";
    *v = if tagged { serde_json::json!({ "kind": "" }) } else { Value::String(String::new()) };
    let e = serde_path_to_error::deserialize::<_, Scenario>(doc).err()?;
    let at = if tagged { "topology.kind".to_string() } else { path.to_string() };
    if e.path().to_string() != at {
        return None;
    }
    let msg = e.inner().to_string();
    let names = msg.strip_prefix("unknown variant ``, expected ")?;
    Some(quoted(names.trim_start_matches("one of ")))
}

/// The value at `path` in a document.
fn value_at<'a>(doc: &'a mut Value, path: &serde_path_to_error::Path) -> Option<&'a mut Value> {
    use serde_path_to_error::Segment;
    let mut v = doc;
    for seg in path.iter() {
        v = match seg {
            Segment::Seq { index } => v.get_mut(*index)?,
            Segment::Map { key } => v.get_mut(key.as_str())?,
            _ => return None,
        };
    }
    Some(v)
}

/// A value as the scenario writes it (TOML's wording for tables and lists).
fn shown(v: &Value) -> String {
    match v {
        Value::Object(_) => "a table".into(),
        Value::Array(_) => "a list".into(),
        v => v.to_string(),
    }
}

/// Re-parse the `topology` variant `kind` on its own (with `kind` removed):
/// serde reports every error inside an internally tagged enum at the enum's
/// own path, so this is what names the field.
fn topology_detail<V: for<'de> serde::Deserializer<'de>>(kind: &str, t: V) -> Option<ConfigError> {
    fn inner<T: serde::de::DeserializeOwned, V: for<'de> serde::Deserializer<'de>>(t: V) -> Option<ConfigError> {
        serde_path_to_error::deserialize::<_, T>(t).err().map(|e| {
            let p = path_error(&e);
            ConfigError::new(
                if p.field.is_empty() { "topology".into() } else { format!("topology.{}", p.field) },
                p.msg,
            )
        })
    }
    match kind {
        "dumbbell" => inner::<Dumbbell, V>(t),
        "parking_lot" => inner::<ParkingLot, V>(t),
        "custom" => inner::<Custom, V>(t),
        _ => None,
    }
}

/// Deserialize a parsed document (JSON or TOML value), then validate.
/// Only the error path looks at the document again: `detail` names the
/// field of an error inside `topology`, and `doc` gives the document as JSON
/// for `allowed_names`. Both re-read it from the text, so a scenario that
/// parses pays for no copy of its document.
fn parse_doc<V: for<'de> serde::Deserializer<'de>>(
    v: V,
    parts: &dyn Parts,
    detail: impl FnOnce() -> Option<ConfigError>,
    doc: impl FnOnce() -> Option<Value>,
) -> Result<Scenario, ConfigError> {
    match serde_path_to_error::deserialize::<_, Scenario>(v) {
        Ok(mut sc) => {
            validate::validate(&sc, parts)?;
            for f in &mut sc.flows {
                parts.fill_defaults(f);
            }
            Ok(sc)
        }
        Err(e) => {
            if e.path().to_string() == "topology" {
                if let Some(d) = detail() {
                    return Err(d);
                }
            }
            let mut err = path_error(&e);
            // the TOML reader reports `pacing = 5` as "unit variant", a
            // misspelt topology kind as "tagged": both get the allowed names
            let unit = err.msg.ends_with(NAME);
            let tail = if unit {
                ", one of"
            } else if err.msg.ends_with(TAGGED) {
                " = one of"
            } else {
                return Err(err);
            };
            let Some(mut doc) = doc() else { return Err(err) };
            if unit {
                // say the value from the document
                if let Some(v) = value_at(&mut doc, e.path()) {
                    err.msg = format!("{} is not allowed; must be {NAME}", shown(v));
                }
            }
            if let Some(names) = allowed_names(doc, e.path()) {
                err.msg = format!("{}{tail} {names}", err.msg);
            }
            Err(err)
        }
    }
}

impl Scenario {
    /// Parse JSON, then validate with `parts` (`Scenario::from_json` does
    /// it with the engine's registries).
    pub fn from_json_with(s: &str, parts: &dyn Parts) -> Result<Scenario, ConfigError> {
        let v: Value = serde_json::from_str(s).map_err(|e| ConfigError::new("", format!("invalid JSON: {e}")))?;
        dupkeys::check_json(s)?;
        // error path only: the text parsed once, so it parses again
        let reread = || serde_json::from_str::<Value>(s).ok();
        parse_doc(
            v,
            parts,
            || {
                let mut t = reread()?.get_mut("topology")?.take();
                let kind = t.as_object_mut()?.remove("kind")?;
                topology_detail(kind.as_str()?, t)
            },
            reread,
        )
    }

    /// Parse TOML (from its own value type, so `nan` and `inf` reach
    /// validation and are named in the error), then validate with `parts`
    /// (`Scenario::from_toml` does it with the engine's registries).
    pub fn from_toml_with(s: &str, parts: &dyn Parts) -> Result<Scenario, ConfigError> {
        let v: toml::Value = toml::from_str(s).map_err(|e| ConfigError::new("", format!("invalid TOML: {e}")))?;
        // error path only: the text parsed once, so it parses again
        let reread = || toml::from_str::<toml::Value>(s).ok();
        parse_doc(
            v,
            parts,
            || {
                let mut t = reread()?.as_table_mut()?.remove("topology")?;
                let kind = t.as_table_mut()?.remove("kind")?;
                topology_detail(kind.as_str()?, t)
            },
            // NaN and infinities become null: only names are read from it
            || serde_json::to_value(reread()?).ok(),
        )
    }

    /// The normalised scenario (every default filled in) as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("scenario serialises")
    }
}
