//! What only some senders use, boxed together.
//!
//! Pacing, delivery-rate sampling (BBR), AccECN, PRR, `cwnd_limited`,
//! a controller's tick (FAST), ns-2's send jitter, an
//! application's written limit (Telnet) and the send trace each belong to
//! a configuration that is not the default TCP's. As optional fields of
//! their own they would take eight bytes apiece in every sender even when
//! empty, 80 bytes a flow; as one optional box the default sender (and the
//! thousands of flows of a many-flow run) carries one null
//! pointer, and a sender that uses any of them pays for the box once.
use super::cwnd_use::CwndUse;
use super::recovery::prr::Prr;
use super::{Jitter, Paced, SendRecord};
use crate::sim::{Time, Timer};
use crate::transport::tcp::accecn::AccEcnSender;
use crate::transport::tcp::rate::RateSampler;
use nonmax::NonMaxU64;

#[derive(Default)]
pub(in crate::transport::tcp) struct Extras {
    /// The pacer and its timer, when the flow paces (`pacing`).
    pub(super) paced: Option<Box<Paced>>,
    /// Delivery-rate samples, for a controller that sets cwnd and the
    /// pacing rate itself (`has_cong_control`, BBR).
    pub(super) rate: Option<Box<RateSampler>>,
    /// `ecn_feedback = "accecn"`: the CE count the receiver's ACE field
    /// reported (RFC 9768).
    pub(super) accecn: Option<AccEcnSender>,
    /// `prr = true`: RFC 9937's counters for a SACK recovery's window.
    pub(super) prr: Option<Box<Prr>>,
    /// `cwnd_limited`: whether the window limits the sender.
    pub(super) cwnd_use: Option<Box<CwndUse>>,
    /// The controller's tick (`tick_interval_s`: FAST's update), made at
    /// its first arming: no other controller has one.
    pub(super) tick_timer: Option<Timer>,
    /// ns-2's delayed send (`send_jitter_s > 0` only).
    pub(super) jitter: Option<Box<Jitter>>,
    /// Segments the application has written (`write`, one each; Telnet);
    /// `None`: the whole transfer is available at `open` (bulk).
    pub(in crate::transport::tcp) offered: Option<NonMaxU64>,
    /// The departures, when traced (`enable_send_trace`, tests).
    pub(in crate::transport::tcp) trace: Option<Vec<SendRecord>>,
    /// `slow_start_after_idle`: when the last segment left (Linux
    /// `lsndtime`).
    pub(super) last_send: Option<Time>,
    /// RFC 7323 §4.3 `TS.Recent`, the latest ACK's TSval, echoed as TSecr
    /// in every data segment: kept for a receiver that reads it (Linux's,
    /// `delack_model = "linux"`, measures its RTT from it).
    pub(super) ts_recent: Option<Time>,
    /// `syn = "linux"`: a SYN is out, unanswered (`connect.rs`).
    pub(super) connecting: bool,
    /// Linux's GSO sender (`tso_autosize`): its transmissions and write
    /// queue.
    pub(super) gso: Gso,
}

/// Linux's GSO sender's transmission in progress and unsent skbs
/// (`send.rs`, `TcpSender::gso_transmission`).
#[derive(Clone, Copy, Debug, Default)]
pub(in crate::transport::tcp) struct Gso {
    /// The segments of new data left in the transmission being sent (one
    /// skb, `tcp_write_xmit`), the next one included.
    pub(super) left: u32,
    /// That transmission holds more than one segment: its last carries
    /// PSH ([`crate::net::packet::TcpHeader::psh`]).
    pub(super) multi: bool,
    /// The segments in the unsent queue's head skb and in the one after
    /// it (0: none formed yet); the skbs behind are whole.
    pub(super) head: u32,
    pub(super) next: u32,
}

/// The extras of a sender that has none, for reads.
pub(super) static NONE: Extras = Extras {
    paced: None,
    rate: None,
    accecn: None,
    prr: None,
    cwnd_use: None,
    tick_timer: None,
    jitter: None,
    offered: None,
    trace: None,
    last_send: None,
    ts_recent: None,
    connecting: false,
    gso: Gso { left: 0, multi: false, head: 0, next: 0 },
};

impl Extras {
    /// The box, or `None` when nothing is in it.
    pub(super) fn boxed(self) -> Option<Box<Extras>> {
        let empty = self.paced.is_none()
            && self.rate.is_none()
            && self.accecn.is_none()
            && self.prr.is_none()
            && self.cwnd_use.is_none()
            && self.tick_timer.is_none()
            && self.jitter.is_none()
            && self.offered.is_none()
            && self.trace.is_none()
            && self.last_send.is_none()
            && self.ts_recent.is_none()
            && !self.connecting;
        (!empty).then(|| Box::new(self))
    }
}
