//! A host's delay (a flow's `host_delay_s`, at its sender and its
//! receiver): the time from a transport's send to the packet's departure
//! on the wire, drawn per packet from a distribution the user gives by its
//! quantiles.
//!
//! Why: a simulated host answers an ACK with its data in zero time, so
//! flows whose packets meet a DropTail queue keep fixed phases against
//! its departures, and which of them lose at an overflow is decided by
//! those phases for seconds at a time (Floyd and Jacobson, "On Traffic
//! Phase Effects in Packet-Switched Gateways", 1992). A real host takes a
//! time that varies from packet to packet. ns-2 breaks phases with a
//! random delay on the agent's sends (`overhead_`, `send_jitter_s`), which
//! also holds the window back; this delay holds nothing back: the sender
//! works as without it and only the wire sees the packet later. The
//! kernel peer's host takes 8-25 µs (5-90%) from an ACK to its data, with
//! a tail to 0.1 ms; on the ACKs such a delay raises BBR's window by its
//! ACK-aggregation allowance as much as the kernel's is above ccsim's, but
//! the multi-flow runs then varied more than the kernel's, so the kernel
//! comparison runs without it
//! (docs/decisions/2026-11-30-host-delay-and-the-kernel-peer.md).
//!
//! The host's queue keeps order: a packet never leaves before the one
//! sent ahead of it, so a draw smaller than its predecessor's leaves right
//! behind it. The draws come from the scenario's seed, one stream per
//! link (`Stream::HostDelay`), so a run is reproducible and a different
//! seed gives a different sample of the same host.
use crate::sim::quantiles::Quantiles;
use crate::sim::rng::{self, Rng, Stream};
use crate::sim::time::Time;

/// A host interface's delay distribution and the last departure.
#[derive(Debug)]
pub struct HostDelay {
    delay: Quantiles,
    rng: Rng,
    /// The latest departure so far: none leaves before it.
    last: Time,
}

impl HostDelay {
    /// `delay`: the delay's distribution (one value: a constant delay);
    /// `seed`, `link`: the scenario's seed and the interface's link id,
    /// for the stream.
    pub fn new(delay: Quantiles, seed: u64, link: u32) -> Self {
        HostDelay { delay, rng: rng::stream(seed, Stream::HostDelay, link as u64), last: 0 }
    }

    /// When a packet the host hands to the wire at `at` really leaves it.
    pub fn depart(&mut self, at: Time) -> Time {
        let t = at.saturating_add(self.delay.draw(&mut self.rng)).max(self.last);
        self.last = t;
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::from_secs;

    #[test]
    fn a_constant_delays_every_packet_by_itself() {
        let mut h = HostDelay::new(Quantiles::new(&[10e-6]), 1, 0);
        assert_eq!(h.depart(from_secs(1.0)), from_secs(1.0) + from_secs(10e-6));
        assert_eq!(h.depart(from_secs(2.0)), from_secs(2.0) + from_secs(10e-6));
    }

    #[test]
    fn order_is_kept() {
        let mut h = HostDelay::new(Quantiles::new(&[0.0, 100e-6]), 1, 0);
        let mut last = 0;
        for k in 0..10_000u64 {
            let t = h.depart(k * 1_000_000); // 1 µs apart
            assert!(t >= last, "packet {k} overtook the one before");
            last = t;
        }
    }

    #[test]
    fn seeds_and_links_give_their_own_streams() {
        let run = |seed, link| {
            let mut h = HostDelay::new(Quantiles::new(&[0.0, 1e-3]), seed, link);
            (0..8).map(|k| h.depart(k * from_secs(0.01))).collect::<Vec<_>>()
        };
        assert_eq!(run(1, 0), run(1, 0));
        assert_ne!(run(1, 0), run(2, 0));
        assert_ne!(run(1, 0), run(1, 1));
    }
}
