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
use crate::sim::rng::{self, Rng, Stream};
use crate::sim::time::{from_secs, Time};
use rand::Rng as _;

/// A host interface's delay distribution and the last departure.
#[derive(Debug)]
pub struct HostDelay {
    /// The delays at probabilities 0, 1/(n-1), ..., 1 (nondecreasing).
    quantiles: Vec<Time>,
    rng: Rng,
    /// The latest departure so far: none leaves before it.
    last: Time,
}

impl HostDelay {
    /// `quantiles_s`: the delay's quantiles in seconds, equally spaced in
    /// probability from 0 to 1 (one value: a constant delay); `seed`, `link`:
    /// the scenario's seed and the interface's link id, for the stream.
    pub fn new(quantiles_s: &[f64], seed: u64, link: u32) -> Self {
        assert!(!quantiles_s.is_empty(), "validated: at least one quantile");
        HostDelay {
            quantiles: quantiles_s.iter().map(|&q| from_secs(q)).collect(),
            rng: rng::stream(seed, Stream::HostDelay, link as u64),
            last: 0,
        }
    }

    /// One delay: the inverse of the piecewise-linear distribution through
    /// the quantiles at a uniform draw (no draw for a constant).
    fn draw(&mut self) -> Time {
        let q = &self.quantiles;
        if q.len() == 1 {
            return q[0];
        }
        let x = self.rng.gen::<f64>() * (q.len() - 1) as f64;
        let i = (x as usize).min(q.len() - 2);
        let frac = x - i as f64;
        q[i] + ((q[i + 1] - q[i]) as f64 * frac) as Time
    }

    /// When a packet the host hands to the wire at `at` really leaves it.
    pub fn depart(&mut self, at: Time) -> Time {
        let t = at.saturating_add(self.draw()).max(self.last);
        self.last = t;
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::to_secs;

    #[test]
    fn a_constant_delays_every_packet_by_itself() {
        let mut h = HostDelay::new(&[10e-6], 1, 0);
        assert_eq!(h.depart(from_secs(1.0)), from_secs(1.0) + from_secs(10e-6));
        assert_eq!(h.depart(from_secs(2.0)), from_secs(2.0) + from_secs(10e-6));
    }

    #[test]
    fn draws_follow_the_quantiles() {
        // five points: the delays at 0, 25, 50, 75 and 100%
        let q = [8e-6, 9e-6, 9.5e-6, 11e-6, 28e-6];
        let mut h = HostDelay::new(&q, 7, 3);
        let mut d: Vec<f64> = (0..40_000)
            .map(|k| {
                let at = from_secs(k as f64 * 1e-3);
                to_secs(h.depart(at) - at)
            })
            .collect();
        d.sort_by(f64::total_cmp);
        let at = |p: f64| d[((d.len() - 1) as f64 * p) as usize];
        for (j, &want) in q.iter().enumerate() {
            let got = at(j as f64 / 4.0);
            assert!((got - want).abs() < 0.15e-6, "quantile {}: {got} against {want}", j as f64 / 4.0);
        }
    }

    #[test]
    fn order_is_kept() {
        let mut h = HostDelay::new(&[0.0, 100e-6], 1, 0);
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
            let mut h = HostDelay::new(&[0.0, 1e-3], seed, link);
            (0..8).map(|k| h.depart(k * from_secs(0.01))).collect::<Vec<_>>()
        };
        assert_eq!(run(1, 0), run(1, 0));
        assert_ne!(run(1, 0), run(2, 0));
        assert_ne!(run(1, 0), run(1, 1));
    }
}
