//! TCP: a sender with shared loss recovery (Reno, NewReno, SACK), RTO and
//! pacing, driving a pluggable congestion controller; and a receiver with
//! cumulative/SACK/delayed ACKs. Sequence numbers count segments, as in ns-2.
pub mod pacing;
pub mod receiver;
pub mod rtt;
pub mod scoreboard;
pub mod sender;

pub use receiver::TcpReceiver;
pub use sender::TcpSender;

use crate::sim::Time;

/// Loss recovery: which RFC the sender follows after a loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Recovery {
    /// RFC 5681 §3.2: leave fast recovery on any new ACK.
    Reno,
    /// RFC 6582: stay in recovery until `recover` is acknowledged, one
    /// retransmission per partial ACK.
    NewReno,
    /// RFC 6675: scoreboard, `pipe`, NextSeg().
    Sack,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PacingKind {
    None,
    Interval,
    TokenBucket,
}

/// Per-flow TCP parameters (validated scenario values, in engine units).
#[derive(Clone, Debug)]
pub struct TcpConfig {
    pub recovery: Recovery,
    pub pacing: PacingKind,
    pub bucket_pkts: f64,
    pub mss: u32,
    pub header: u32,
    pub init_cwnd: f64,
    pub init_ssthresh: f64,
    pub rwnd: u64,
    pub max_cwnd: f64,
    pub dupthresh: u32,
    pub limited_transmit: bool,
    pub delayed_ack: bool,
    pub delack_timeout: Time,
    pub min_rto: f64,
    pub max_rto: f64,
    pub init_rto: f64,
    pub granularity: f64,
    /// Finite transfer size in payload bytes (`None`: infinite FTP).
    pub total_bytes: Option<u64>,
}

impl TcpConfig {
    /// Payload bytes of segment `seq`.
    pub fn payload(&self, seq: u64) -> u32 {
        match self.total_bytes {
            None => self.mss,
            Some(t) => t.saturating_sub(seq * self.mss as u64).min(self.mss as u64) as u32,
        }
    }

    /// Number of segments in the transfer.
    pub fn total_segs(&self) -> Option<u64> {
        self.total_bytes.map(|t| t.div_ceil(self.mss as u64))
    }

    /// Payload bytes in segments `[a, b)`.
    pub fn payload_between(&self, a: u64, b: u64) -> u64 {
        let m = self.mss as u64;
        match self.total_bytes {
            None => (b - a) * m,
            Some(t) => (b * m).min(t) - (a * m).min(t),
        }
    }
}
