//! Scenario types (serde, JSON and TOML) and their validation.
//!
//! Parsing is strict (unknown fields are errors) and every error names the
//! field path, the offending value and what is allowed, e.g.
//! `scenario.flows[2].cc: unknown value "cubicc"; allowed: reno`.
//! See docs/scenario.md for every field, unit and default.
mod dupkeys;
#[macro_use]
pub mod fields;
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

/// A delay given as one value or as its distribution's quantiles
/// (`flows[i].host_delay_s`, `read_delay_s`): at equal steps of
/// probability, or at probabilities given with them.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum DelayQuantiles {
    One(f64),
    Many(Vec<f64>),
    At(QuantilesAt),
}

/// Quantiles at given probabilities (`{ probabilities = [...],
/// quantiles_s = [...] }`): a measurement's tail kept point by point
/// (`sim::quantiles::Quantiles`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QuantilesAt {
    pub probabilities: Vec<f64>,
    pub quantiles_s: Vec<f64>,
}

impl DelayQuantiles {
    /// The delays, seconds (one: a constant).
    pub fn values(&self) -> &[f64] {
        match self {
            DelayQuantiles::One(x) => std::slice::from_ref(x),
            DelayQuantiles::Many(v) => v,
            DelayQuantiles::At(t) => &t.quantiles_s,
        }
    }

    /// The distribution to draw from (validated: `validate::delay_distribution`).
    pub fn to_quantiles(&self) -> crate::sim::quantiles::Quantiles {
        match self {
            DelayQuantiles::At(t) => crate::sim::quantiles::Quantiles::at(&t.probabilities, &t.quantiles_s),
            _ => crate::sim::quantiles::Quantiles::new(self.values()),
        }
    }
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

flow_spec! {
    /// One `[[flows]]` entry: every field a flow takes, each declared once
    /// here with the transports that take it, the values it takes and its
    /// doc (`ccsim list transports`, docs/scenario.md's flow table);
    /// the personalities' fill code gives its defaults.
    #[derive(Clone, Debug, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct FlowSpec {
        /// number of identical flows this entry creates
        #[flow(common; "integer ≥ 1")]
        #[serde(default = "d_count")]
        pub count: u32,
        /// transport agent; `udp` is a constant-rate source, `etcp` is E-TCP (both below)
        #[flow(common; "`\"tcp\"`, `\"udp\"`, `\"etcp\"`")]
        #[serde(default = "d_tcp")]
        pub transport: String,
        // -- TCP's fields: `None` means the default (transport::tcp::defaults);
        // normalisation fills them in for TCP flows, and other transports
        // reject them when given.
        /// TCP's personality: the values every TCP field the flow leaves out takes. `rfc`: the RFCs' TCP
        /// (the defaults in this table). `ns2`: ns-2.35's agents, the papers' simulator. `linux`: Linux 6.x
        /// (RACK-TLP, PRR, Linux's RTO, CUBIC). [tcp-models.md](tcp-models.md) lists each rule and its ns-2
        /// or kernel source; a field the flow gives still wins, so one rule can be switched off
        #[flow(tcp; "")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tcp_model: Option<kinds::TcpModel>,
        /// congestion controller (`ccsim list`): a built-in's name, a Python controller registered with
        /// `ccsim.register_controller`, or a Python class as `"module:Class"` (imported with the working
        /// directory on the path) or `"path/to/file.py:Class"`
        /// ([adding-a-controller.md](adding-a-controller.md#in-python)); `"xcp"` needs an XCP router on the
        /// flow's path (an error names `flows[i].cc` otherwise)
        #[flow(tcp; "string")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cc: Option<String>,
        /// controller parameters (`ccsim list` shows names and defaults)
        #[flow(tcp; "table")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cc_params: Option<Map<String, Value>>,
        /// loss recovery: RFC 5681 §3.2, RFC 6582, RFC 6675; `sack1`: ns-2.35's `Agent/TCP/Sack1` with
        /// `Agent/TCPSink/Sack1`, the papers' agent (its own pipe counter, no window inflation, every hole
        /// below the highest SACK retransmitted, new data in recovery bounded by `rwnd_pkts` only, the exit
        /// burst, SACK information dropped at a timeout and go-back-N from una; the receiver's blocks as
        /// ns-2's 3-deep stack, 8 bytes each on the ACK). Rules and why each differs from RFC 6675:
        /// `transport/tcp/sender/recovery/sack1.rs`; validated transmission for transmission against ns-2:
        /// [validation.md](validation.md#ns-2s-tcpsack1-recovery-recovery--sack1). Not with `ecn` or
        /// `pacing` (an error)
        #[flow(tcp; "")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub recovery: Option<kinds::Recovery>,
        /// `interval`: at least srtt/cwnd between packets (E-TCP §VI "NewReno with packet pacing");
        /// `token_bucket`: tokens at cwnd/srtt, bucket `bucket_pkts` (paced-XCP §3.2); `rate`: Linux's
        /// earliest-departure pacing at the pacing rate, the controller's (BBR) or Linux's 2·cwnd/srtt in
        /// slow start and 1.2·cwnd/srtt after, the first 9 segments unpaced
        /// ([controllers.md](controllers.md#delivery-rate-samples-and-cong_control))
        #[flow(tcp; ""; "`\"rate\"` with `cc = \"bbr\"`, `\"bbr3\"` or `\"prague\"`, which allow no other")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub pacing: Option<kinds::PacingKind>,
        /// token-bucket size
        #[flow(tcp; "number ≥ 1")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub bucket_pkts: Option<f64>,
        // -- common: packet size of every transport
        /// payload per full segment
        #[flow(common; "integer ≥ 1")]
        #[serde(default = "d_mss")]
        pub mss_bytes: u32,
        /// header bytes; a data packet is `mss_bytes + header_bytes` on the wire, an ACK `header_bytes`
        /// (min 1)
        #[flow(common; "integer ≥ 0")]
        #[serde(default = "d_header")]
        pub header_bytes: u32,
        /// initial window (RFC 6928; ns-2 `windowInit_`)
        #[flow(tcp; "number ≥ 1")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub init_cwnd_pkts: Option<f64>,
        /// initial ssthresh ("arbitrarily high")
        #[flow(tcp; "number ≥ 2")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub init_ssthresh_pkts: Option<f64>,
        /// receiver-advertised window: TCP sends while its flight is below it; E-TCP sends while fewer
        /// packets than it are unanswered (neither signalled arrived nor lost), since it paces W packets
        /// per RTT whatever the path carries
        #[flow(tcp, etcp; "1 … 2^32 − 1")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub rwnd_pkts: Option<u64>,
        /// cap on cwnd
        #[flow(tcp; "number ≥ 1")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max_cwnd_pkts: Option<f64>,
        /// duplicate ACKs for fast retransmit
        #[flow(tcp; "integer ≥ 1")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub dupthresh: Option<u32>,
        /// `recovery = "sack1"` only: fast retransmit at max(`dupthresh`, ⌊cwnd⌋ / value) duplicate ACKs,
        /// and the pipe estimate takes that many off, as ns-2's `numdupacksFrac_` (`TcpAgent::numdupacks`,
        /// read by its Sack1 agent; -1, off, in ns-2.35, 100 in ns-2.26-2.29, from 2002/10/18 to
        /// 2006/09/27)
        #[flow(tcp; "integer ≥ 1"; "off")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub dupthresh_frac: Option<u32>,
        /// RFC 3042
        #[flow(tcp; "bool")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub limited_transmit: Option<bool>,
        /// Proportional Rate Reduction (RFC 9937, obsoleting RFC 6937), the window of a SACK recovery in
        /// Linux and ns-3 (`TcpPrrRecovery`, ns-3's default): each ACK sets cwnd = pipe + sndcnt, sending
        /// `ssthresh / RecoverFS` segments per segment delivered while pipe is above ssthresh, then at most
        /// what was delivered (+1 on an ACK that advances SND.UNA with no new loss) up to ssthresh. Off:
        /// RFC 6675's cwnd = ssthresh at the fast retransmit. Needs `recovery = "sack"` and a window
        /// controller (not `bbr`, `bbr3`, `prague`); the ECE reduction still cuts at once (RFC 3168)
        #[flow(tcp; "bool"; "the `linux` value only with SACK and not for a controller that sets its own pacing rate (BBR bypasses PRR)")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub prr: Option<bool>,
        /// with the controller's `abc = true`: the most segments one ACK adds to cwnd in slow start (RFC
        /// 3465 §2.2's L); 0: no limit, as Linux's `tcp_slow_start`
        #[flow(tcp; "integer ≥ 0")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub abc_l: Option<u32>,
        /// a write after more than an RTO with nothing outstanding restarts the window: cwnd halved per RTO
        /// idle, not below min(`init_cwnd_pkts`, cwnd), ssthresh at least 3/4 of cwnd (RFC 5681 §4.1 as
        /// Linux's `tcp_cwnd_restart`, `net.ipv4.tcp_slow_start_after_idle`)
        #[flow(tcp; "bool")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub slow_start_after_idle: Option<bool>,
        /// with `recovery = "reno"` or `"newreno"`: duplicate ACKs count as segments delivered (Linux's
        /// `tcp_add_reno_sack`), so the cumulative ACK after k of them grows cwnd by max(acked − k, 1), not
        /// by acked
        #[flow(tcp; "bool"; "`linux`: `true` without SACK")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub reno_sack: Option<bool>,
        /// RACK loss detection (RFC 8985, Linux `tcp_rack_detect_loss`): a segment is lost once one sent
        /// after it is delivered and its RTT plus a reordering window (min_rtt/4; 0 in recovery or once
        /// `dupthresh` segments are SACKed) has passed; the rest arms a reordering timer; recovery starts
        /// on such a loss. Needs `recovery = "sack"` and no ns-2 rule
        #[flow(tcp; "bool"; "the `linux` value only with SACK")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub rack: Option<bool>,
        /// tail loss probe (RFC 8985 §7, Linux `tcp_send_loss_probe`): in the open state, 2·SRTT (+200 ms
        /// with one segment out) after the last send, never after the RTO: new data, or the last segment
        /// again. Needs `recovery = "sack"`
        #[flow(tcp; "bool"; "the `linux` value only with SACK")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tlp: Option<bool>,
        /// an RTO marks lost the head and what RACK's time has passed, not every un-SACKed segment, and
        /// sets cwnd to the data in flight + 1 (Linux `tcp_timeout_mark_lost`, `tcp_enter_loss`). Needs
        /// `recovery = "sack"`
        #[flow(tcp; "bool"; "the `linux` value only with SACK")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub rto_rack_mark: Option<bool>,
        /// the receiver reports a duplicate segment as a D-SACK, the first SACK block (RFC 2883; Linux
        /// `tcp_dsack_set`, `net.ipv4.tcp_dsack`). Needs `recovery = "sack"`
        #[flow(tcp; "bool"; "the `linux` value only with SACK")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub dsack: Option<bool>,
        /// above a hole the receiver ACKs the first three segments at each cumulative ACK at once and
        /// holds later SACKs for 5% of its RTT, at most 1 ms, then sends one (Linux `__tcp_ack_snd_check`,
        /// `tcp_compressed_ack_kick`, `net.ipv4.tcp_comp_sack_delay_ns`, `tcp_comp_sack_slack_ns`,
        /// `tcp_comp_sack_nr`). Needs `recovery = "sack"` and `delack_model = "linux"` with `delayed_ack`
        #[flow(tcp; "bool"; "the `linux` value only with SACK")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub sack_compression: Option<bool>,
        /// with Linux's receiver (`delack_model = "linux"` and `delayed_ack`): where its millisecond
        /// timestamp clock ticks, the clock reading ⌊(t + phase) / 1 ms⌋ at simulated time t. Linux's
        /// TSval is a millisecond clock (`tcp_time_stamp_ts`), and its receiver takes one RTT sample per
        /// echoed value, rounded to whole milliseconds (`tcp_rcv_rtt_measure_ts`); those samples time the
        /// receive buffer's growth (`tcp_rcv_space_adjust`) and so where its quick ACKs end. A real host's
        /// phase is arbitrary; the kernel peer sets each run's measured phase (docs/validation.md)
        #[flow(tcp; "number in [0, 0.001)"; "0")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ts_clock_phase_s: Option<f64>,
        /// with Linux's receiver (`delack_model = "linux"` and `delayed_ack`): the receiving application's
        /// wake-up, the time from the arrival of data it can read, while it waits in `recv()`, to the read
        /// that takes everything readable then (one number: a constant; a list of n ≥ 2 nondecreasing
        /// values: quantiles at probabilities 0, 1/(n−1), …, 1; a table `{ probabilities = [...],
        /// quantiles_s = [...] }`: quantiles at the probabilities given, from 0 to 1 increasing; drawn per
        /// read from the seed as `host_delay_s` is). Data that arrives before that read waits for it. Linux
        /// does in the read what the arrival alone does not: the receive buffer's once-per-RTT measurement
        /// (`tcp_rcv_space_adjust`, on the bytes read), and the ACK owed to a segment with PSH or to two
        /// segments whose window test failed (`tcp_cleanup_rbuf`); until then the unread data fills the
        /// buffer, so the offered window shrinks and a larger receiver RTT sample is not taken
        /// (`tcp_rcv_rtt_update`). Without it the application reads at each arrival. Draws between two
        /// points spread evenly, so give a measured tail by points at its top order statistics (the k-th
        /// largest of m delays at probability 1 − (k−1)/(m−1)): at equal steps one stall among thousands
        /// of reads would spread over the last step's draws. The kernel peer's receiver read 22-54 µs after
        /// the data at the median, 0.07-0.34 ms at the 99th percentile, with stalls of up to 26 ms
        /// ([decision](decisions/2026-12-01-the-receiving-application.md),
        /// [tail](decisions/2026-12-02-a-measured-tail-point-by-point.md))
        #[flow(tcp; "number ≥ 0, list of them, or table"; "none: reads at the arrival")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub read_delay_s: Option<DelayQuantiles>,
        /// a reduction proven spurious is undone (Linux `tcp_try_undo_recovery`, `tcp_try_undo_dsack`,
        /// `tcp_try_undo_partial`, `tcp_try_undo_loss`): once D-SACKs cover every retransmission since it
        /// began, or (with `timestamps`) an ACK echoes a time before the first retransmission, cwnd returns
        /// to max(cwnd, its value before) and ssthresh to its value before; not after an ECE. D-SACKs also
        /// widen RACK's reordering window by min_rtt/4 per round (`tcp_rack_update_reo_wnd`). Needs `rack =
        /// true`
        #[flow(tcp; "bool"; "the `linux` value only with RACK")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub undo: Option<bool>,
        /// F-RTO after a timeout outside recovery (RFC 5682 §3.1 with SACK; Linux `tcp_process_loss`,
        /// `net.ipv4.tcp_frto = 2`): an ACK or SACK of data sent once before the timeout undoes it; the
        /// first ACK that advances una sends new data before any other retransmission, and a SACK or
        /// duplicate ACK after that proves the loss real. Needs `undo = true`
        #[flow(tcp; "bool"; "the `linux` value as `undo`'s")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub frto: Option<bool>,
        /// the timestamps option is in use (RFC 7323, `net.ipv4.tcp_timestamps`): with `undo`, an ACK
        /// echoing a time before the first retransmission (in Linux's 1 ms ticks) proves the retransmission
        /// spurious (`tcp_packet_delayed`). The option's 12 bytes (two NOPs and the 10-byte option, Linux
        /// `TCPOLEN_TSTAMP_ALIGNED`) are on every data segment and ACK beyond `header_bytes` (so a `linux`
        /// flow with `header_bytes = 40` sends 52 bytes of headers; `mss_bytes` stays the payload)
        #[flow(tcp; "bool")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub timestamps: Option<bool>,
        /// the sender sends transmissions of several segments, as Linux sends TSO/GSO packets
        /// (`tcp_tso_autosize`, `tcp_tso_segs`): the data of 2^-10 s at the pacing rate (64 KB more below a
        /// 512 µs minimum RTT, halving per 512 µs), at most 64 KB (`GSO_LEGACY_MAX_SIZE`) and half of cwnd
        /// (`tcp_cwnd_test`), at least 2 segments (BBR: 1 below 1.2 Mb/s). With `pacing = "rate"` a
        /// transmission's segments leave together and the next waits its whole time at the rate; BBR's
        /// quantization budget is then 3 such transmissions (`bbr_tso_segs_goal`). With `pacing = "none"`
        /// the rate is Linux's default (`tcp_update_pacing_rate`). Either way a transmission the window
        /// cannot fill waits for the next ACK in the open state while one is due within min(srtt/2, 1 ms)
        /// and the last write was under 1 ms ago, for a paced sender under 1 ms before its next departure
        /// (`tcp_tso_should_defer`, `tcp_wstamp_ns`; needs Linux's recovery). Transmissions are cut from a queue of
        /// 64 KB skbs as `tcp_write_xmit` cuts them (`tcp_grow_skb`, `tso_fragment`), and each of more
        /// than one segment carries PSH on its last (`__tcp_transmit_skb`), which a receiver with
        /// `delack_model = "linux"` ACKs at once. Needs `pacing = "rate"` or `"none"`
        /// ([tcp-models.md](tcp-models.md#linux-linux-6xs-tcp))
        #[flow(tcp; "bool"; "`linux`: `true` (with `pacing = \"rate\"` or `\"none\"`)")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tso_autosize: Option<bool>,
        /// the bytes an ACK's SACK blocks (RFC 2018) add to `header_bytes`, which hold the timestamp
        /// option: `ns3`, 8 per block (ns-3's option follows the 10-byte timestamps, the options padded to
        /// 4 bytes); `linux`, 4 + 8 per block (two NOPs, kind, length); `none`, an ACK is `header_bytes`
        /// whatever it reports. Needs `recovery = "sack"` (`sack1`'s sink adds ns-2's 8 per block)
        #[flow(tcp; ""; "the `linux` value only with SACK")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub sack_option: Option<kinds::SackOption>,
        /// whether an ACK grows cwnd only while the window limits the sender. `off`: every ACK may (RFC
        /// 5681); `linux`: Linux's `tcp_is_cwnd_limited`, the window was full at the end of a send burst in
        /// the current round (`tcp_cwnd_validate`), or in slow start cwnd is below twice the most packets
        /// out in it; `ns3`: ns-3 3.44's `m_isCwndLimited`, which `TcpCubic` reads, the last segment sent
        /// left less than a segment of cwnd. Needs the RFCs' recovery (not ns-2's agents)
        #[flow(tcp; "")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cwnd_limited: Option<kinds::CwndLimited>,
        /// delayed ACKs (RFC 5681 §4.2): an ACK for at least every second in-order segment; a segment out
        /// of order or filling a hole is ACKed at once
        #[flow(tcp; "bool")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub delayed_ack: Option<bool>,
        /// with `delayed_ack`: when an in-order segment's ACK waits. `linux`: quick ACKs (every segment)
        /// for the first min(16, `rwnd_pkts`/2) ACKs, for each segment that grows the receive window
        /// Linux offers (two segments per segment while buffer autotuning leaves room, which through slow
        /// start is most segments), after a gap longer than the receiver's RTO (`init_rto_s`, no
        /// handshake being run), for a segment received twice, and for two ACKs at a first CE mark;
        /// otherwise the ACK waits Linux's adaptive timeout (40 ms, following the segments'
        /// inter-arrival time, doubled when it expires, at most the RTO), at most `delack_timeout_s`
        /// (`tcp_input.c`, `tcp_output.c`; [tcp-models.md](tcp-models.md)). `fixed`: the ACK waits
        /// `delack_timeout_s` (ns-2's `DelAckSink`). `ns3`: as `fixed`, except that the first in-order data
        /// segment is ACKed at once, as ns-3 3.44's receiver does after its handshake
        /// (`TcpSocketBase::ProcessSynRcvd` leaves the delayed-ACK count full; any ACK sent empties it);
        /// with the `DelAckTimeout` default of 0.2 s
        #[flow(tcp; "")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub delack_model: Option<kinds::DelackModel>,
        /// with `delayed_ack`: the longest delay (`linux`, Linux's `TCP_DELACK_MAX`) or the timer (`fixed`,
        /// ns-2's `interval_`; `ns3`, ns-3's `DelAckTimeout`)
        #[flow(tcp; "number > 0"; "under any personality `0.1` with `delack_model = \"fixed\"`")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub delack_timeout_s: Option<f64>,
        /// RTO floor (ns-2, Linux); E-TCP: the floor of its signalling and retransmission timers
        #[flow(tcp, etcp; "number > 0")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub min_rto_s: Option<f64>,
        /// RTO ceiling; E-TCP: the ceiling of its backed-off timers
        #[flow(tcp, etcp; "number ≥ min")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max_rto_s: Option<f64>,
        /// RTO before the first sample (RFC 6298; ns-2 `rtxcur_init_`); E-TCP: its timers before the first
        /// RTT sample
        #[flow(tcp, etcp; "number > 0"; "under any personality `3` with `rtt_estimator = \"ns2\"`")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub init_rto_s: Option<f64>,
        /// G in RTO = SRTT + max(G, 4·RTTVAR); ns-2 `tcpTick_`; with `rtt_estimator = "linux"` the jiffy:
        /// the RTO, the loss probe's and RACK's timers round up to it (`usecs_to_jiffies`; 0: exact), and a
        /// linux CUBIC's `hz` follows it
        #[flow(tcp; "number ≥ 0"; "the `linux` value is the jiffy at HZ = 250")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub clock_granularity_s: Option<f64>,
        /// `rfc6298`: an RTT sample on every ACK of new data (timestamps), RFC 6298 gains in seconds.
        /// `ns2`: ns-2.35's `TcpAgent` without timestamps, as the papers' simulations ran: one segment
        /// timed per RTT (none while recovering from a loss: Karn), samples in whole `tcpTick_` ticks
        /// (`clock_granularity_s`, must be > 0) from a per-flow random tick phase (`boot_time_`), integer
        /// SRTT/RTTVAR with 3 and 2 fraction bits, RTO ⌊SRTT + 4·RTTVAR⌋ ticks, backoff cleared only when
        /// the timed segment is acknowledged, `init_rto_s` default 3 s (`rtxcur_init_`). `linux`:
        /// `tcp_rtt_estimator` and `tcp_set_rto` in integer microseconds (first sample: RTO = 3·RTT; rttvar
        /// floored by `min_rto_s`; only a sample ends the backoff). Validated in
        /// [validation.md](validation.md#rtt-estimator)
        #[flow(tcp; "")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub rtt_estimator: Option<kinds::RttEstimatorKind>,
        /// a backed-off repeat RTO halves ssthresh again, from the one-segment window (so to 2), as ns-2's
        /// `TcpAgent::timeout` (`slowdown(CLOSE_SSTHRESH_HALF)` on every timeout); `false` keeps the first
        /// RTO's ssthresh (RFC 5681 §3.1, Linux `tcp_enter_loss`)
        #[flow(tcp; "bool")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub halve_on_repeated_rto: Option<bool>,
        /// three duplicate ACKs start a new recovery only once una > recover (HighData at the last
        /// reduction), ns-2's `bug_fix_` test (`highest_ack_ > recover_`, `dupack_action` in tcp-newreno.cc
        /// and tcp-sack1.cc, whose ACKs name the last segment received); `false`: una ≥ recover, RFC 6582
        /// §3.2's "careful" variant. Differs after go-back-N, whose resent duplicates draw duplicate ACKs
        /// at una = recover
        #[flow(tcp; "bool")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ns2_bugfix: Option<bool>,
        /// needs `limited_transmit` (a named error otherwise): Limited Transmit as ns-2's Reno and NewReno
        /// agents do it (`singledup_`, tcp-reno.cc `recv` → `send_one`: `t_seqno_ ≤ highest_ack_ + cwnd_ +
        /// dupacks_`): each of the first `dupthresh − 1` duplicate ACKs sends at most one segment beyond
        /// the window, at its arrival and only if one is waiting, also after a timeout, and also with
        /// nothing outstanding (ns-2's `recv` counts every ACK of `last_ack_` as a duplicate: the ACK of a
        /// go-back-N resend of a segment that had arrived); a segment written later (an application-limited
        /// flow: Telnet) waits for the window alone. RFC 3042 and Linux use Limited Transmit in the open
        /// state only, as a standing allowance (cwnd + duplicates) that a later write may use too.
        /// `gwa-ns2` and the ns-2-mode Reno, NewReno and XCP flows use it (a backlogged flow sends the same
        /// either way)
        #[flow(tcp; "bool")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ns2_singledup: Option<bool>,
        /// ns-2's retransmission timer (tcp.cc `newtimer`: restarted at every new ACK, also one
        /// acknowledging everything sent, `t_seqno_ > tcph->seqno()`): an expiry with nothing outstanding
        /// (`slow_start_restart_`, `restart_bugfix_`) restarts the window at one segment after an idle RTO,
        /// ssthresh kept, no retransmission, CWR on the next segment with ECN, the timer rearmed without
        /// backoff; and a segment sent with nothing outstanding sets the pending timer afresh (tcp.cc
        /// `output`, `force_set_rtx_timer`), so it gets a whole RTO. RFC 6298 §5.2 stops the timer when
        /// everything is acknowledged. Only a flow that waits for its application (a Telnet, a persistent
        /// connection between objects) is touched. `gwa-ns2`, the GWA paper's reproductions (`gwa-lan`,
        /// `gwa-wan`, `gwa-many-flows`) and every ns-2-mode Reno, NewReno and XCP flow use it (`recovery =
        /// "sack1"` has this timer built in): it brings the Telnets' timeouts and delays to ns-2.35's on
        /// RED and ECN (docs/validation.md, "Telnet delays")
        #[flow(tcp; "bool")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ns2_idle_restart: Option<bool>,
        /// with `rtt_estimator = "rfc6298"`: the RTO backoff ends only when an ACK covers ns-2's timed
        /// segment (the first new segment sent while none was timed; a timeout or fast retransmit stops the
        /// timing), as ns-2's agent with `timestamps_ true` and `ts_resetRTO_` false (tcp.cc `output`,
        /// `newack`), not at every ACK of new data (RFC 6298 §5.7); the `ns2` estimator has the rule built
        /// in. The `ns2` personality sets it
        #[flow(tcp; "bool")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ns2_timed_backoff: Option<bool>,
        /// needs `recovery = "reno"` or `"newreno"` (a named error otherwise): fast recovery as ns-2.35's
        /// `RenoTcpAgent` (tcp-reno.cc) and `NewRenoTcpAgent` (tcp-newreno.cc): the fast retransmit halves
        /// the window unrounded (`precisionReduce_`: cwnd = windowd()/2, ssthresh = max(⌊cwnd⌋, 2)) instead
        /// of RFC 5681's ssthresh = FlightSize/2, cwnd = ssthresh + 3; the inflation (`dupwnd_`: 3, then
        /// one per further duplicate) is kept apart and the first new ACK drops it without deflating cwnd
        /// to ssthresh, opening cwnd as any new ACK does; an ECE on that ACK halves the still-inflated
        /// window (`ecn` runs first in `recv`). After an ECN reduction the repair of a loss in the same
        /// window leaves cwnd and `recover` as the reduction set them. With NewReno a partial ACK of d
        /// segments deflates as ns-2's `partialnewack` does (`partial_window_deflation_`, the 2.35
        /// default): dupwnd_ loses d − 1 while it exceeds d, otherwise cwnd_ loses d − dupwnd_ (not below
        /// 1) and dupwnd_ stays 1; no increase; the full ACK ends recovery as Reno's first new ACK does
        /// (`exit_recovery_fix_` 0: no deflation). `gwa-ns2` and every ns-2-mode Reno, NewReno and XCP flow
        /// use it (with `ns2_singledup`)
        #[flow(tcp; "bool")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ns2_dupwnd: Option<bool>,
        /// with `rtt_estimator = "ns2"`: ns-2's `boot_time_`, the phase of the agent's tick grid (where its
        /// clock started within a `tcpTick_`), which decides how each RTT sample is quantised; absent it is
        /// drawn uniformly from the seed, as ns-2 draws it. Set it to replay an ns-2 run tick for tick
        /// (`validation/sack1_traces.py` does)
        #[flow(tcp; "number in [0, `clock_granularity_s`)"; "drawn per flow")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ns2_boot_time_s: Option<f64>,
        /// ECN-capable TCP (RFC 3168): new data leaves ECT(0), or ECT(1) with `ect = "ect1"`
        /// (retransmissions Not-ECT), the receiver sets ECE on every ACK from a CE mark until a CWR
        /// arrives, the sender reduces once per window (cwnd = ssthresh = max(FlightSize/2, 2); a loss
        /// found in that window is fast-retransmitted without a second cut, a timeout in it keeps
        /// ssthresh). Every window reduction (ECE, fast retransmit, timeout; §6.1.2 "for any reason") sets
        /// CWR on the next new data segment. An ACK carrying ECE does not increase cwnd in congestion
        /// avoidance, nor when it may report congestion no reduction has answered yet; an ECE that only
        /// echoes a window a reduction already answered does not stop the slow start after a timeout
        /// (Linux's `tcp_may_raise_cwnd`), so a flow whose CWR segment was lost does not stay at one
        /// segment while its go-back-N resends, which carry no CWR, last
        #[flow(tcp; "bool")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ecn: Option<bool>,
        /// with `ecn = true`: the ECN-capable codepoint new data leave with. `ect0` is RFC 3168's ECT(0);
        /// `ect1` is ECT(1), the L4S identifier (RFC 9331 §4.1), which a `dualpi2` queue sends to its
        /// low-latency L queue (the default `ecn_mask`) while ECT(0) goes to its classic queue. Every other
        /// queue (`red`, `codel`, `fq_codel`, `pie`) treats ECT(1) as RFC 3168 treats any ECT codepoint: it
        /// marks it CE where it would mark ECT(0), and a flow gets exactly the same run with either
        /// (tests/integration/aqm.rs). The receiver echoes CE, whatever the codepoint it replaced; retransmissions and
        /// the SYN stay Not-ECT as with ECT(0) (`ecn_retransmit_ect` makes retransmissions leave with this
        /// codepoint). `cc = "prague"` (the L4S sender) defaults to `"ect1"`; with `cc = "dctcp"`, `"ect1"`
        /// makes DCTCP stand in for one. `"ect1"` without ECN is an error (`flows[0].ect: "ect1" needs ecn
        /// = true ...`), as is any other value (`"ect2" is not allowed; allowed: "ect0" or "ect1"`)
        #[flow(tcp; "")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ect: Option<kinds::Ect>,
        /// with `ecn = true`: how the receiver feeds CE marks back. `rfc3168`: ECE on every ACK from a CE
        /// mark until a CWR arrives (RFC 3168 §6.1.3). `dctcp`: ECE on an ACK is the CE state of the
        /// segments it acknowledges, and an ACK goes at once when that state changes (RFC 8257 §3.2).
        /// `accecn`: AccECN (RFC 9768): the receiver counts CE-marked packets and every ACK carries the
        /// count modulo 8 in the ACE field (ECE, CWR and AE); it ACKs at once at the first mark after an
        /// unmarked packet and after every second mark; the sender takes the change of the field as newly
        /// marked packets (the most the field allows when one ACK delivers more than 7), sends no CWR, and
        /// reacts once per window as with ECE; DCTCP counts the reported marks for α. The AccECN TCP Option
        /// is not modelled. `accecn` is not allowed with ns-2's agents (`tcp_model = "ns2"`), anything but
        /// `rfc3168` needs `ecn = true`, and `prague` needs `accecn` (each an error naming
        /// `flows[i].ecn_feedback`)
        #[flow(tcp; ""; "`\"dctcp\"` for `cc = \"dctcp\"` and for `cc = \"bbr3\"` with `ecn = true`, `\"accecn\"` for `cc = \"prague\"`, else `\"rfc3168\"`")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ecn_feedback: Option<kinds::EcnFeedback>,
        /// an ECN flow's retransmissions leave ECT(0) (or `ect`'s codepoint) too, as ns-2's
        /// `TcpAgent::output` sets ECT on every data packet (tcp.cc, 1998 to 2.35); the default follows RFC
        /// 3168 §6.1.5 (retransmissions Not-ECT, so a RED queue drops them where it would mark new data).
        /// Needs `ecn = true`
        #[flow(tcp; "bool")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ecn_retransmit_ect: Option<bool>,
        /// how an ECN flow reduces on ECE (once per window): `rfc3168` as for a loss, cwnd = ssthresh =
        /// max(FlightSize/2, 2); `ns2` as ns-2.35's `TcpAgent::ecn` +
        /// `slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF)` with its default `precisionReduce_` (true since
        /// 2006/1/24): cwnd = min(cwnd, rwnd)/2 unrounded, ssthresh its integer part but ≥ 2, so a window
        /// under two segments closes (⌊cwnd⌋ = 0) and only an ACK without ECE (ns-2's `opencwnd`: +1 in
        /// slow start, not capped at ssthresh) or the retransmission timer reopens it (the timer backed off
        /// by each further ECE after a reduction made at a window of at most one segment, `ecn_backoff_`;
        /// its expiry with nothing outstanding reopens one segment without counting a timeout and, as
        /// ns-2's `restart_bugfix_`, without a backoff). Also ns-2's: the first ECE after any timer expiry
        /// is reacted to whatever the window (`last_cwnd_action_` TIMEOUT), and every timeout and fast
        /// retransmit, not only an ECE reduction, sends CWR on the next segment, a retransmission included
        /// (`cong_action_`, `SetCWRonRetransmit_`). And ns-2's negotiation: segment 0 goes Not-ECT with
        /// ECE, the receiver answers it with ECE, which cuts only after a timeout (ns-2's `recover_` starts
        /// at segment 0); until that first ECE-carrying ACK (`ect_`) an ECE neither stops the window's
        /// increase nor holds the timer's backoff. The reaction runs first on the ACK that carries it, as
        /// ns-2's `recv` calls `ecn()` before the ACK's own rules (RTT sample, backoff, end of a recovery,
        /// duplicate rules). Needs `cc = "reno"`
        #[flow(tcp; "")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ecn_response: Option<kinds::EcnResponse>,
        /// GWA-TCP (Gerla et al. §2): data carry the IP option B_n = B_max (`rwnd_pkts` × (`mss_bytes` +
        /// `header_bytes`)), GWA routers lower it, and the receiver advertises W_a = min(`rwnd_pkts`, ⌊B_n
        /// / (mss + header)⌋) segments on every ACK, at least 1 (ns-2's TCP has no zero-window probe, so 0
        /// would stall the flow for good); the sender sends at most min(cwnd, W_a) − outstanding (eq. 1)
        #[flow(tcp; "bool")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub gwa: Option<bool>,
        /// BA-TCP (Gerla et al. §5): data carry v = unbounded, BA routers (`gwa = "ba"`) lower it to their
        /// C / n_f, the receiver echoes it on the ACK and the sender bounds its window by ⌈δ × v / (8 (mss
        /// + header))⌉ segments (1 to `rwnd_pkts`), δ the smallest RTT it has measured (the round-trip
        /// propagation delay plus serialisation); not with `gwa`
        #[flow(tcp; "bool")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ba: Option<bool>,
        /// start-up. `none`: data from segment 0 with `init_cwnd_pkts` at once. `ns2`: ns-2.35's default
        /// (`syn_ true`, `delay_growth_ true`): segment 0 is a SYN of `header_bytes` with no payload, sent
        /// alone (window 1, `TcpAgent::set_initial_window`), timed, ACKed and resent by the timer like any
        /// segment; its ACK sets the window to `init_cwnd_pkts` (`recv`: `last_ack_ == 0 &&
        /// delay_growth_`), or to 1 if the timer fired first (`bugfix_ss_`); the data are segments 1, 2, …
        /// (a finite transfer has one segment more). `ns2_no_delay_growth`: `syn_ true`, `delay_growth_
        /// false`, the SYN leads the first window of `init_cwnd_pkts`. The SYN is never ECT. Validated
        /// transmission for transmission:
        /// [validation.md](validation.md#ns-2s-tcpsack1-recovery-recovery--sack1)
        #[flow(tcp; "")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub syn: Option<kinds::Syn>,
        /// ns-2's `overhead_` (tcp.cc `send_much`): a send the window allows is held for a uniformly random
        /// delay in [0, value) s, drawn from the seed (the flow's own stream), and then everything the
        /// window allows at that moment leaves as one burst; while the delay runs, further sends wait for
        /// it. As in ns-2, the fast retransmission, NewReno's partial-ACK retransmission and Limited
        /// Transmit leave at once, and the retransmission after a timeout is delayed. ns-2 offers it to
        /// break drop-tail phase effects (flows locked so that the same ones lose at every overflow). With
        /// `recovery = "sack1"` it is ns-2's `Sack1TcpAgent::send_much` rule exactly. Not with `pacing` (an
        /// error)
        #[flow(tcp; "number ≥ 0")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub send_jitter_s: Option<f64>,
        /// TCP and UDP: the sending host's interface queue (Linux `txqueuelen`). The first link of the
        /// flow's route is the host's interface: its queue becomes a DropTail of this many packets (Linux
        /// 2.4's pfifo_fast tail-drops at `dev->tx_queue_len`, sch_generic.c), shared by every flow whose
        /// route starts on that link (flows that give it must agree: `flows[1].txqueuelen_pkts: 20 differs
        /// from flows[0].txqueuelen_pkts = 10 ...`). A TCP segment that finds it full is **not** sent and
        /// not lost: it stays in the sender, which enters CWR as Linux 2.4's `tcp_transmit_skb` does on
        /// NET_XMIT_DROP (`tcp_enter_cwr`, only from Open/Disorder, so at most once per window: ssthresh =
        /// the controller's reduction, cwnd = min(cwnd, in flight + 1); then no growth and one segment less
        /// every second ACK, never above in flight + 1, `tcp_cwnd_down`; when an ACK passes the window,
        /// cwnd = min(cwnd, ssthresh), `tcp_complete_cwr`; a loss found in that window is repaired without
        /// a second cut). The held segment is sent by a later ACK, or by the retransmission timer if
        /// nothing is outstanding (Linux's probe timer). A UDP datagram that finds it full is dropped there
        /// (the interface link's `drops`), as Linux drops it silently; so is any packet of a sender without
        /// local congestion that shares the interface (E-TCP, or ns-2's Sack1 agent, which keeps its own
        /// send state). Not with `recovery = "sack1"`. `ltcp-testbed` and `ltcp-udp` use it
        /// (docs/experiments.md)
        #[flow(tcp, udp; "integer, 1 … 1e8"; "none")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub txqueuelen_pkts: Option<u64>,
        /// each end host's delay from a send to the wire (the sender's data, the receiver's ACKs), drawn
        /// for each packet (`net::host_delay`): one number is a constant delay; a list of n ≥ 2
        /// nondecreasing values gives its quantiles at probabilities 0, 1/(n−1), …, 1 (a table
        /// `{ probabilities = [...], quantiles_s = [...] }` gives them at other probabilities, from 0 to 1
        /// increasing), and each packet's delay is drawn from the piecewise-linear distribution through
        /// them, from the seed (each
        /// interface its own stream). A host keeps order: a packet never leaves before the one sent ahead
        /// of it. The endpoints work as without it (their clocks, timers and windows are unchanged) and
        /// only the wire sees each packet later, where `send_jitter_s` holds the window back. A delay that
        /// varies by a good part of the bottleneck's packet time breaks the fixed phases that zero-time
        /// hosts keep against a DropTail queue's departures (Floyd and Jacobson 1992), which otherwise
        /// decide for seconds which flows lose at an overflow; on the ACKs, microseconds of jitter feed
        /// BBR's ACK-aggregation estimate ([decision](decisions/2026-11-30-host-delay-and-the-kernel-peer.md)).
        /// Applied to the first link of the flow's route and of its ACKs' route, the hosts' interfaces;
        /// flows sharing one must give the same value. Not on a link with `ties = "ns2"`
        #[flow(common; "number ≥ 0, list of them, or table"; "none")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub host_delay_s: Option<DelayQuantiles>,
        // -- common: when the application runs
        /// application start. A value ≥ `duration_s` is accepted (a sweep over `duration_s` may cut a late
        /// flow off) but the entry's flows never send: `ccsim run` and `ccsim.run` warn (`warning:
        /// scenario.flows[1].start_s: 40 s is not before duration_s (30 s): its 2 flows start after the run
        /// ends and send nothing (0 goodput); ...`, a `ccsim.ScenarioWarning` in Python) and the flows'
        /// rows show 0 goodput
        #[flow(common; "number ≥ 0")]
        #[serde(default)]
        pub start_s: f64,
        /// each of the `count` flows starts uniformly at random in `[start_s, start_s + spread]`
        #[flow(common; "number ≥ 0")]
        #[serde(default)]
        pub start_spread_s: f64,
        /// application stops offering new data
        #[flow(common; "number > start"; "never")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub stop_s: Option<f64>,
        /// TCP and E-TCP: a finite transfer of this many payload bytes (the `bulk` application ends
        /// with it); absent, the transfer is infinite (FTP)
        #[flow(tcp, etcp; "integer ≥ 1 (TCP: at most 2^64 − 2)"; "infinite (bulk)")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub bytes: Option<u64>,
        // -- E-TCP's fields (`None` means the
        // default, transport::etcp::defaults)
        /// E-TCP: GAIMD on a window W (§III-A) or on a rate x in packets/s (§VII-A)
        #[flow(etcp; "")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub variant: Option<kinds::Variant>,
        /// E-TCP: +1/b per packet that arrived (rate: +1/(b tau_r)); stable for b above the buffer (§III-A)
        #[flow(etcp; "number > 0")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub b: Option<f64>,
        /// E-TCP: target loss; per loss W -= W/(b(2 + p0 W)); equilibrium W* = 2/(p − p0)
        #[flow(etcp; "0 ≤ p0 < 1")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub p0: Option<f64>,
        /// E-TCP: exponential rate-timer intervals of mean tau_r/W (§III-C); `false`: deterministic tau_r/W
        #[flow(etcp; "bool")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub exp_pacing: Option<bool>,
        /// E-TCP: §IV reliability (CACK/TSN/LE, retransmission queue); `false`: unreliable streaming
        #[flow(etcp; "bool")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub reliable: Option<bool>,
        /// E-TCP: initial window, sent at once before the first RTT sample
        #[flow(etcp; "1 … 1e9")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub init_w_pkts: Option<f64>,
        /// E-TCP: floor of W (rate: of x·tau_r)
        #[flow(etcp; "number > 0, at most 1e9")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub min_w_pkts: Option<f64>,
        /// E-TCP: retransmission timer on the oldest unacknowledged data: TCP's RTO, or the RTT estimate
        /// itself (§IV's literal wording)
        #[flow(etcp; "")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub rtx_timer: Option<kinds::RtxTimer>,
        /// UDP: sending rate on the wire (payload + header), one `mss_bytes + header_bytes` packet every
        /// `size·8/rate_bps` s
        #[flow(udp; "number"; "required with `transport = \"udp\"`")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub rate_bps: Option<f64>,
        /// UDP: with `off_s`, alternate on- and off-periods of these lengths, starting with an on-period at
        /// `start_s` (the LTCP paper's §V-B.3 iperf stream: `on_s = off_s = 300`)
        #[flow(udp; "number > 0, at least one datagram's time at `rate_bps`"; "always on")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub on_s: Option<f64>,
        /// UDP: the off-period length (with `on_s`)
        #[flow(udp; "number > 0"; "always on")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub off_s: Option<f64>,
        // -- common: the application (`app::registry`); absent, the transport's
        // default (bulk transfer, or on/off for UDP)
        /// the application driving the entry (`ccsim list applications`); `web`: closed-loop web users,
        /// `shortflow`: short-flow nodes (Pareto files, exponential off times), `telnet`: interactive
        /// segments with delay measurement, all below
        #[flow(common; "`\"bulk\"`, `\"onoff\"`, `\"web\"`, `\"shortflow\"`, `\"telnet\"`"; "the transport's: `bulk` (TCP, E-TCP), `onoff` (UDP)")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub app: Option<String>,
        /// the application's parameters (`web`'s, `shortflow`'s, `telnet`'s `interval_s`); the normalised
        /// scenario holds every value
        #[flow(common; "table"; "the application's defaults")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub app_params: Option<Map<String, Value>>,
        // -- common: placement
        /// round-trip propagation delay; builder topologies set this flow's edge delays to reach it; a list
        /// gives one value per flow of `count`
        #[flow(common; "number or list"; "the topology's edge delays")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub rtt_s: Option<OneOrMany>,
        /// each flow's RTT uniform at random in the range
        #[flow(common; "`[lo, hi]`"; "none")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub rtt_range_s: Option<[f64; 2]>,
        /// with `rtt_range_s`: the RTT is drawn uniformly from the grid `lo, lo + step, …` up to `hi`
        /// (discrete uniform; `rtt_range_s = [0.01, 0.15]`, `rtt_step_s = 0.001` is the E-TCP paper's
        /// integer milliseconds on [10, 150])
        #[flow(common; "number > 0"; "continuous")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub rtt_step_s: Option<f64>,
        /// builder topologies: reverse flows send right-to-left, so their data shares the reverse
        /// bottleneck queue with forward ACKs (two-way traffic)
        #[flow(common; "")]
        #[serde(default)]
        pub direction: Direction,
        /// parking lot: bottleneck links traversed (inclusive)
        #[flow(common; "`[first, last]`"; "all links")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub hops: Option<[u32; 2]>,
        /// custom topology: required path
        #[flow(common; "list of node names"; "required with a custom topology")]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub route: Option<Vec<String>>,
    }
}

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
    if msg.starts_with("data did not match any variant of untagged enum DelayQuantiles") {
        return "must be a number, a list of numbers (the delay's quantiles) or a table { probabilities = [...], \
                quantiles_s = [...] }"
            .into();
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
