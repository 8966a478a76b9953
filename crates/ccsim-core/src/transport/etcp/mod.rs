//! E-TCP (Gu, Towsley, Hollot, Zhang, "Congestion Control for Small Buffer
//! High Speed Networks"): a transport of its own, not a TCP controller,
//! because its signalling, pacing and reliability all differ from TCP's.
//!
//! - [`control`]: the GAIMD controller of §III-A (window) and §VII-A (rate),
//!   with the slow start of §V-A.
//! - [`signal`]: congestion signalling (§III-B, Fig 2): `cc_seq` on every
//!   packet, `h_seq` and a 32-bit bitmap on every ACK, each number
//!   responded to exactly once.
//! - [`reliable`]: the optional reliability layer (§IV): data sequence
//!   numbers of their own, CACK/TSN/LE acknowledgements, a retransmission
//!   queue that infers lost retransmissions without a timeout.
//! - [`sender`] / [`receiver`]: the two agents (§V, Fig 3). Every packet,
//!   retransmissions included, leaves on the rate-control timer (§III-C),
//!   whose intervals are exponential with mean tau_r / W by default.
//!
//! Where the paper is silent the choice is a parameter, documented on the
//! field and in docs/etcp.md ("Choices where the paper is silent").
pub mod control;
pub mod receiver;
pub mod reliable;
pub mod sender;
pub mod signal;

pub use crate::scenario::kinds::{RtxTimer, Variant};
pub use receiver::EtcpReceiver;
pub use sender::EtcpSender;

use super::{Endpoints, Receiver, Sender, TransportKind};
use crate::scenario::{ConfigError, FlowSpec};
use crate::transport::tcp::rtt::RtoLimits;

/// E-TCP's fields and their defaults: the one place they are written.
pub mod defaults {
    use super::{RtxTimer, Variant};
    pub const VARIANT: Variant = Variant::Window;
    /// §III-A: b larger than the buffer (20 packets) for stability.
    pub const B: f64 = 25.0;
    /// §III-A: target loss for 90% utilisation of an M/M/1/20 queue.
    pub const P0: f64 = 0.01;
    pub const EXP_PACING: bool = true;
    /// §VI-A: "All E-TCP connections presented in this section provide
    /// reliable data delivery."
    pub const RELIABLE: bool = true;
    /// ns-2's TCP windowInit_ (the paper does not state E-TCP's).
    pub const INIT_W_PKTS: f64 = 2.0;
    /// One packet per RTT, TCP's floor (the paper states none).
    pub const MIN_W_PKTS: f64 = 1.0;
    pub const MIN_RTO_S: f64 = 0.2;
    pub const MAX_RTO_S: f64 = 60.0;
    pub const INIT_RTO_S: f64 = 1.0;
    pub const RTX_TIMER: RtxTimer = RtxTimer::Rto;
    /// TCP's default receiver window (the paper states none): no bound in
    /// the paper's scenarios, whose windows stay below a thousand packets.
    pub const RWND_PKTS: u64 = crate::transport::tcp::defaults::RWND_PKTS;
}

/// The registry entry (`transport = "etcp"`).
pub const KIND: TransportKind = TransportKind {
    name: "etcp",
    doc:
        "E-TCP: loss-targeting GAIMD (window or rate), bitmap-ACK signalling, exponential pacing, decoupled reliability",
    validate: |f, path| EtcpConfig::from_spec(f, path).map(|_| ()),
    fill_defaults,
    describe: |f| {
        let c = EtcpConfig::from_spec(f, "flow").expect("validated flow");
        let cc = match c.variant {
            Variant::Window => "etcp-window",
            Variant::Rate => "etcp-rate",
        };
        let rec = if c.reliable { "etcp-reliable" } else { "none" };
        let pacing = if c.exp_pacing { "exponential" } else { "deterministic" };
        [cc.into(), rec.into(), pacing.into()]
    },
    build: |f, flow, seed, _shared| {
        let cfg = EtcpConfig::from_spec(f, "flow").expect("validated flow");
        Endpoints {
            sender: Sender::Etcp(Box::new(EtcpSender::new(flow, cfg.clone(), seed))),
            receiver: Receiver::Etcp(Box::new(EtcpReceiver::new(flow, cfg))),
        }
    },
};

/// Fill every E-TCP field left out with its default (normalisation).
pub fn fill_defaults(f: &mut FlowSpec) {
    use defaults as d;
    f.variant.get_or_insert(d::VARIANT);
    f.b.get_or_insert(d::B);
    f.p0.get_or_insert(d::P0);
    f.exp_pacing.get_or_insert(d::EXP_PACING);
    f.reliable.get_or_insert(d::RELIABLE);
    f.init_w_pkts.get_or_insert(d::INIT_W_PKTS);
    f.min_w_pkts.get_or_insert(d::MIN_W_PKTS);
    f.min_rto_s.get_or_insert(d::MIN_RTO_S);
    f.max_rto_s.get_or_insert(d::MAX_RTO_S);
    f.init_rto_s.get_or_insert(d::INIT_RTO_S);
    f.rtx_timer.get_or_insert(d::RTX_TIMER);
    f.rwnd_pkts.get_or_insert(d::RWND_PKTS);
}

/// Largest `init_w_pkts` and `min_w_pkts`: both set W, a window in
/// packets. E-TCP sends W packets every tau_r whatever the path carries
/// (paced, not ACK-clocked) and tracks each until it is answered, so a W
/// far above the path's window makes a run slow and its retransmission
/// queue large: a floor of 4.3e9 packets on a 0.5 Gb/s path grew that
/// queue past 2 GB within milliseconds of simulated time. The bound keeps
/// W a window a network could hold; it does not make such a run cheap.
pub const MAX_W_PKTS: f64 = 1e9;

/// Per-flow E-TCP parameters (validated).
#[derive(Clone, Debug)]
pub struct EtcpConfig {
    pub variant: Variant,
    pub b: f64,
    pub p0: f64,
    pub exp_pacing: bool,
    pub reliable: bool,
    pub init_w: f64,
    pub min_w: f64,
    /// Its timers' bounds; the clock granularity is RFC 6298's G as the
    /// TCP default (`tcp::defaults::CLOCK_GRANULARITY_S`).
    pub rto: RtoLimits,
    pub rtx_timer: RtxTimer,
    /// The receiver's window: a packet leaves only while fewer than this
    /// many sent are unanswered (`EtcpSender::send_one`).
    pub rwnd: u64,
    pub mss: u32,
    pub header: u32,
    /// Finite transfer in payload bytes (`None`: infinite).
    pub total_bytes: Option<u64>,
}

impl EtcpConfig {
    /// Read and validate a flow's E-TCP fields (`path` is `flows[i]`).
    pub fn from_spec(spec: &FlowSpec, path: &str) -> Result<Self, ConfigError> {
        use crate::scenario::validate::{at_least, positive};
        let mut f = spec.clone();
        fill_defaults(&mut f);
        let p = |k: &str| format!("{path}.{k}");
        let c = EtcpConfig {
            variant: f.variant.unwrap_or(defaults::VARIANT),
            b: f.b.unwrap_or(defaults::B),
            p0: f.p0.unwrap_or(defaults::P0),
            exp_pacing: f.exp_pacing.unwrap_or(defaults::EXP_PACING),
            reliable: f.reliable.unwrap_or(defaults::RELIABLE),
            init_w: f.init_w_pkts.unwrap_or(defaults::INIT_W_PKTS),
            min_w: f.min_w_pkts.unwrap_or(defaults::MIN_W_PKTS),
            rto: RtoLimits {
                min_rto: f.min_rto_s.unwrap_or(defaults::MIN_RTO_S),
                max_rto: f.max_rto_s.unwrap_or(defaults::MAX_RTO_S),
                init_rto: f.init_rto_s.unwrap_or(defaults::INIT_RTO_S),
                granularity: crate::transport::tcp::defaults::CLOCK_GRANULARITY_S,
            },
            rtx_timer: f.rtx_timer.unwrap_or(defaults::RTX_TIMER),
            rwnd: f.rwnd_pkts.unwrap_or(defaults::RWND_PKTS),
            mss: f.mss_bytes,
            header: f.header_bytes,
            total_bytes: f.bytes,
        };
        positive(&p("b"), c.b)?;
        if !(c.p0.is_finite() && (0.0..1.0).contains(&c.p0)) {
            return Err(ConfigError::new(p("p0"), format!("{} is not allowed; must be >= 0 and < 1", c.p0)));
        }
        if !(1.0..=MAX_W_PKTS).contains(&c.init_w) {
            return Err(ConfigError::new(
                p("init_w_pkts"),
                format!("{} is not allowed; must be from 1 to {MAX_W_PKTS:e}", c.init_w),
            ));
        }
        // The floor is a window as the initial one is, and bounded alike.
        if !(c.min_w.is_finite() && c.min_w > 0.0 && c.min_w <= MAX_W_PKTS) {
            return Err(ConfigError::new(
                p("min_w_pkts"),
                format!("{} is not allowed; must be > 0 and at most {MAX_W_PKTS:e}", c.min_w),
            ));
        }
        crate::transport::tcp::check_rwnd(&p("rwnd_pkts"), c.rwnd)?;
        positive(&p("min_rto_s"), c.rto.min_rto)?;
        at_least(&p("max_rto_s"), c.rto.max_rto, c.rto.min_rto)?;
        positive(&p("init_rto_s"), c.rto.init_rto)?;
        if c.mss == 0 {
            return Err(ConfigError::new(p("mss_bytes"), "0 is not allowed; must be >= 1"));
        }
        if c.total_bytes == Some(0) {
            return Err(ConfigError::new(p("bytes"), "0 is not allowed; must be >= 1"));
        }
        Ok(c)
    }

    /// Payload bytes of data segment `d`.
    pub fn payload(&self, d: u64) -> u32 {
        match self.total_bytes {
            None => self.mss,
            Some(t) => t.saturating_sub(d * self.mss as u64).min(self.mss as u64) as u32,
        }
    }

    /// Payload bytes in segments `[a, b)`.
    pub fn payload_between(&self, a: u64, b: u64) -> u64 {
        let m = self.mss as u64;
        match self.total_bytes {
            None => (b - a) * m,
            Some(t) => (b * m).min(t) - (a * m).min(t),
        }
    }

    /// Number of data segments in the transfer.
    pub fn total_segs(&self) -> Option<u64> {
        self.total_bytes.map(|t| t.div_ceil(self.mss as u64))
    }
}
