//! The bottleneck model: a DropTail FIFO in front of a fixed-rate serialiser,
//! and an optional Bernoulli loss in front of both. Pure (no I/O, no clock):
//! times are nanoseconds handed in by the caller, so the model is exactly
//! reproducible from its arrival log (`validation/kernel_live.py` replays
//! one through an independent implementation and compares every decision).

use std::collections::VecDeque;

/// Time to serialise `len` bytes at `rate_bps`, rounded up to a whole
/// nanosecond. Each packet is rounded on its own (so a busy period drifts by
/// under 1 ns per packet against the exact rate); the Python reference uses
/// the same integer formula.
pub fn serialisation_ns(len: usize, rate_bps: u64) -> u64 {
    let bits = len as u128 * 8 * 1_000_000_000;
    bits.div_ceil(rate_bps as u128) as u64
}

/// One packet in the system (waiting or in service).
#[derive(Debug, Clone, Copy)]
struct Slot {
    arrival: u64,
    start: u64,
    finish: u64,
    len: usize,
}

/// What the queue did with an arriving packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Accepted; its last bit leaves the serialiser at `finish` (ns).
    Accepted { finish: u64 },
    /// The buffer was full.
    Dropped,
}

/// Occupancy at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Occupancy {
    /// Packets waiting (the one being serialised excluded).
    pub waiting_pkts: usize,
    /// Bytes of the waiting packets.
    pub waiting_bytes: usize,
    /// Packets in the system (waiting plus the one in service).
    pub in_system_pkts: usize,
}

/// A DropTail FIFO feeding a serialiser at `rate_bps`.
///
/// Buffer convention (ns-2's and ccsim's `limit_pkts`): `limit` counts the
/// packets *waiting*; the packet being serialised is not counted. A packet
/// arriving at `t` is dropped iff `limit` packets are waiting at `t`. A packet
/// whose serialisation ends exactly at `t` has left by then, and the next one
/// starts its service at `t` (so it is no longer waiting).
///
/// Packets must arrive in non-decreasing time order.
#[derive(Debug)]
pub struct DropTail {
    rate_bps: u64,
    limit: usize,
    slots: VecDeque<Slot>,
    system_bytes: usize,
    /// Sum over departed packets of (start - arrival), packet-ns and byte-ns:
    /// the integral of the waiting queue over time (Little's law), so the
    /// time average is exact rather than sampled.
    wait_area_pkts: u128,
    wait_area_bytes: u128,
    max_waiting: usize,
}

impl DropTail {
    pub fn new(rate_bps: u64, limit: usize) -> Self {
        assert!(rate_bps > 0, "rate must be positive");
        DropTail {
            rate_bps,
            limit,
            slots: VecDeque::new(),
            system_bytes: 0,
            wait_area_pkts: 0,
            wait_area_bytes: 0,
            max_waiting: 0,
        }
    }

    /// Retire the packets whose serialisation has ended by `t`.
    fn advance(&mut self, t: u64) {
        while let Some(s) = self.slots.front() {
            if s.finish > t {
                break;
            }
            let s = self.slots.pop_front().expect("front exists");
            self.account_wait(&s, s.start);
            self.system_bytes -= s.len;
        }
    }

    fn account_wait(&mut self, s: &Slot, until: u64) {
        let waited = until.saturating_sub(s.arrival) as u128;
        self.wait_area_pkts += waited;
        self.wait_area_bytes += waited * s.len as u128;
    }

    /// The state at `t` (no earlier than the last arrival).
    pub fn occupancy(&mut self, t: u64) -> Occupancy {
        self.advance(t);
        match self.slots.front() {
            None => Occupancy::default(),
            Some(head) => Occupancy {
                waiting_pkts: self.slots.len() - 1,
                waiting_bytes: self.system_bytes - head.len,
                in_system_pkts: self.slots.len(),
            },
        }
    }

    /// A packet of `len` bytes arrives at `t`.
    pub fn arrive(&mut self, t: u64, len: usize) -> Verdict {
        let occ = self.occupancy(t);
        if !self.slots.is_empty() && occ.waiting_pkts >= self.limit {
            return Verdict::Dropped;
        }
        let start = self.slots.back().map_or(t, |s| s.finish.max(t));
        let finish = start + serialisation_ns(len, self.rate_bps);
        self.slots.push_back(Slot { arrival: t, start, finish, len });
        self.system_bytes += len;
        self.max_waiting = self.max_waiting.max(self.slots.len() - 1);
        Verdict::Accepted { finish }
    }

    /// Time averages of the waiting queue over `[t_begin, t_end]`, in packets
    /// and bytes; packets still waiting at `t_end` count up to `t_end`.
    pub fn time_average(&mut self, t_begin: u64, t_end: u64) -> (f64, f64) {
        self.advance(t_end);
        let (mut pkts, mut bytes) = (self.wait_area_pkts, self.wait_area_bytes);
        for s in &self.slots {
            let waited = s.start.min(t_end).saturating_sub(s.arrival) as u128;
            pkts += waited;
            bytes += waited * s.len as u128;
        }
        let span = t_end.saturating_sub(t_begin).max(1) as f64;
        (pkts as f64 / span, bytes as f64 / span)
    }

    /// The largest number of packets that waited at once.
    pub fn max_waiting(&self) -> usize {
        self.max_waiting
    }
}

/// SplitMix64 (Steele, Lea and Flood 2014): a tiny, well-mixed generator
/// whose sequence for a seed is fixed by its definition, so a loss pattern
/// can be reproduced from the seed alone (the Python reference does).
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// Independent random loss with probability `p` per packet. With `p == 0`
/// no number is drawn, so adding loss to a run changes nothing else.
#[derive(Debug, Clone)]
pub struct BernoulliLoss {
    p: f64,
    rng: SplitMix64,
}

impl BernoulliLoss {
    pub fn new(p: f64, seed: u64) -> Self {
        assert!((0.0..=1.0).contains(&p), "loss probability must be in [0, 1]");
        BernoulliLoss { p, rng: SplitMix64::new(seed) }
    }

    /// Whether the next packet is lost (one draw per call when `p > 0`).
    pub fn lose(&mut self) -> bool {
        self.p > 0.0 && self.rng.next_f64() < self.p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1500 B at 12 Mb/s: exactly 1 ms.
    const R: u64 = 12_000_000;
    const MS: u64 = 1_000_000;

    #[test]
    fn serialisation_times() {
        assert_eq!(serialisation_ns(1500, R), MS);
        assert_eq!(serialisation_ns(1500, 50_000_000), 240_000);
        assert_eq!(serialisation_ns(52, 10_000_000), 41_600);
        // 40 B at 3 b/s: 320/3 s, rounded up to the nanosecond.
        assert_eq!(serialisation_ns(40, 3), 106_666_666_667);
    }

    #[test]
    fn back_to_back_arrivals_queue_behind_each_other() {
        let mut q = DropTail::new(R, 10);
        for k in 0..4 {
            assert_eq!(q.arrive(0, 1500), Verdict::Accepted { finish: (k + 1) * MS });
        }
        assert_eq!(q.occupancy(0), Occupancy { waiting_pkts: 3, waiting_bytes: 4500, in_system_pkts: 4 });
        // At 1 ms the first has left and the second is in service.
        assert_eq!(q.occupancy(MS), Occupancy { waiting_pkts: 2, waiting_bytes: 3000, in_system_pkts: 3 });
        assert_eq!(q.max_waiting(), 3);
    }

    #[test]
    fn limit_counts_waiting_packets_not_the_one_in_service() {
        let mut q = DropTail::new(R, 2);
        // One in service plus two waiting fit; the fourth is dropped.
        assert!(matches!(q.arrive(0, 1500), Verdict::Accepted { .. }));
        assert!(matches!(q.arrive(0, 1500), Verdict::Accepted { .. }));
        assert!(matches!(q.arrive(0, 1500), Verdict::Accepted { .. }));
        assert_eq!(q.arrive(0, 1500), Verdict::Dropped);
        // Just before the first leaves: still full.
        assert_eq!(q.arrive(MS - 1, 1500), Verdict::Dropped);
        // As it leaves (finish == t) the next starts service: one place frees.
        assert_eq!(q.arrive(MS, 1500), Verdict::Accepted { finish: 4 * MS });
        assert_eq!(q.arrive(MS, 1500), Verdict::Dropped);
    }

    #[test]
    fn zero_limit_serves_only_into_an_empty_system() {
        let mut q = DropTail::new(R, 0);
        assert_eq!(q.arrive(0, 1500), Verdict::Accepted { finish: MS });
        assert_eq!(q.arrive(MS / 2, 1500), Verdict::Dropped);
        assert_eq!(q.arrive(MS, 1500), Verdict::Accepted { finish: 2 * MS });
    }

    #[test]
    fn idle_link_restarts_at_the_arrival() {
        let mut q = DropTail::new(R, 5);
        assert_eq!(q.arrive(0, 1500), Verdict::Accepted { finish: MS });
        // Idle from 1 ms to 5 ms: service starts at the arrival, not at 1 ms.
        assert_eq!(q.arrive(5 * MS, 750), Verdict::Accepted { finish: 5 * MS + MS / 2 });
        assert_eq!(q.occupancy(5 * MS + MS / 2), Occupancy::default());
    }

    #[test]
    fn mixed_sizes_and_partial_overlap() {
        let mut q = DropTail::new(R, 5);
        assert_eq!(q.arrive(0, 1500), Verdict::Accepted { finish: MS });
        // 52 B at 12 Mb/s = 34 667 ns (34 666.67 rounded up), after the first.
        assert_eq!(q.arrive(MS / 4, 52), Verdict::Accepted { finish: MS + 34_667 });
        assert_eq!(q.arrive(MS / 2, 1500), Verdict::Accepted { finish: 2 * MS + 34_667 });
    }

    #[test]
    fn time_average_is_the_integral_of_the_waiting_queue() {
        let mut q = DropTail::new(R, 10);
        // Three at 0: one waits 1 ms, one 2 ms; nothing after.
        for _ in 0..3 {
            q.arrive(0, 1500);
        }
        let (pkts, bytes) = q.time_average(0, 10 * MS);
        assert!((pkts - 0.3).abs() < 1e-12, "{pkts}");
        assert!((bytes - 450.0).abs() < 1e-9, "{bytes}");
        // Cut at 1.5 ms: waits of 1 ms and 1.5 ms over 1.5 ms.
        let mut q = DropTail::new(R, 10);
        for _ in 0..3 {
            q.arrive(0, 1500);
        }
        let (pkts, _) = q.time_average(0, 3 * MS / 2);
        assert!((pkts - 2.5 / 1.5).abs() < 1e-12, "{pkts}");
    }

    #[test]
    fn splitmix_matches_its_reference_values() {
        // Published first outputs of SplitMix64 seeded with 0 (also checked by
        // the Python reference's self-check).
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn loss_is_deterministic_per_seed() {
        let draw = |seed| {
            let mut l = BernoulliLoss::new(0.1, seed);
            (0..10_000).map(|_| l.lose()).collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7));
        assert_ne!(draw(7), draw(8));
        let lost = draw(7).iter().filter(|&&x| x).count();
        assert!((850..1150).contains(&lost), "{lost} of 10000 at p = 0.1");
    }

    #[test]
    fn no_loss_draws_nothing() {
        let mut l = BernoulliLoss::new(0.0, 1);
        assert!((0..1000).all(|_| !l.lose()));
        assert_eq!(l.rng.next_u64(), SplitMix64::new(1).next_u64());
        let mut all = BernoulliLoss::new(1.0, 1);
        assert!((0..1000).all(|_| all.lose()));
    }
}
