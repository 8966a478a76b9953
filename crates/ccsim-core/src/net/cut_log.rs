//! The packets cut through a link that have not reached it yet: one log
//! for the whole network.
//!
//! A packet cut through an idle link (`Net::walk`, `Link::can_cut`) is
//! counted there (arrival, transmission) when it is cut, ahead of its
//! arrival, and put straight on that link's wire. Reading a link's counters
//! at a time must take back those still on the feeder's wire, so that they
//! are the counters of the event-by-event run at every instant: each cut
//! is noted here as (arrival, link, size) and [`CutLog::take_back`] takes
//! back the entries whose arrival is later than the reading.
//!
//! One log for the network, not one per link: a packet's entry matters
//! only while it is on a feeder's wire, so the entries alive at once
//! follow the packets in flight on the links that feed others (a
//! bottleneck's wire), not the number of links. Kept per link, each log
//! held the largest burst its flow ever had ahead, and with four access
//! links per flow the logs and their headers were about 450 bytes of
//! every flow on the S2 bench row (10,000 flows)
//! (docs/decisions/2026-11-28-one-cut-log.md). Entries are not kept in
//! arrival order (cuts into different links are made in the order of
//! their feeders' departures); a full log drops the entries reached in one
//! pass before it grows, so the work per cut is constant on average and
//! the log holds at most four times the most entries ever alive at once.
//!
//! Readings are rare (the results, the warm-up snapshot, a monitored
//! link's samples) and scan the log: one pass for every link at once
//! ([`CutLog::ahead_by_link`]).
use super::link::LinkCounters;
use crate::sim::Time;

/// A packet cut through link `link`, reaching it at `at`.
#[derive(Clone, Copy, Debug)]
struct Cut {
    at: Time,
    link: u32,
    size: u32,
}

/// The log: entries in no order, those reached dropped when it fills.
#[derive(Debug, Default)]
pub(crate) struct CutLog {
    cuts: Vec<Cut>,
}

/// The capacity of a log's first allocation.
const MIN_CAPACITY: usize = 64;

impl CutLog {
    /// Note a packet of `size` bytes cut through link `link` at `now`,
    /// reaching it at `at`.
    #[inline]
    pub fn push(&mut self, now: Time, link: usize, at: Time, size: u32) {
        if self.cuts.len() == self.cuts.capacity() {
            self.drop_reached(now);
        }
        self.cuts.push(Cut { at, link: link as u32, size });
    }

    /// Drop the entries reached by `now`; if at least half the log is
    /// still ahead, double its capacity, so that a full log costs one pass
    /// per half a log of cuts.
    #[cold]
    #[inline(never)]
    fn drop_reached(&mut self, now: Time) {
        self.cuts.retain(|c| c.at > now);
        let cap = self.cuts.capacity();
        if self.cuts.len() * 2 >= cap {
            self.cuts.reserve_exact(cap.max(MIN_CAPACITY));
        }
    }

    /// Take back from `c`, link `link`'s counters, the packets cut through
    /// it that have not reached it by `now`.
    pub fn take_back(&self, link: usize, now: Time, c: &mut LinkCounters) {
        for cut in self.ahead_of(link, now) {
            take_back_one(cut.size, c);
        }
    }

    /// The entries of link `link` not reached by `now`.
    fn ahead_of(&self, link: usize, now: Time) -> impl Iterator<Item = &Cut> {
        self.cuts.iter().filter(move |cut| cut.link as usize == link && cut.at > now)
    }

    /// The packets not reached by `now`, as (link, size) in order of link:
    /// [`CutLog::take_back`] for every link in one pass (`take_back_one`
    /// of each size on its link's counters).
    pub fn ahead_by_link(&self, now: Time) -> Vec<(u32, u32)> {
        let mut ahead: Vec<_> = self.cuts.iter().filter(|cut| cut.at > now).map(|cut| (cut.link, cut.size)).collect();
        ahead.sort_unstable();
        ahead
    }

    /// Packets cut through link `link` that have not reached it by `now`
    /// (they are still on its feeder's wire).
    pub fn ahead(&self, link: usize, now: Time) -> usize {
        self.ahead_of(link, now).count()
    }
}

/// Take back from `c` what a packet of `size` bytes that arrives at an
/// idle link and goes straight into service adds to its counters
/// (`Link::cut_through`).
pub(crate) fn take_back_one(size: u32, c: &mut LinkCounters) {
    c.arrivals -= 1;
    c.tx_pkts -= 1;
    c.tx_bytes -= size as u64;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against a plain list of every cut: the counters taken back and the
    /// packets ahead are exact at every instant, before and after each
    /// arrival, for cuts into two links whose arrivals interleave and are
    /// logged out of order; and the log, dropping what is reached as it
    /// fills, holds no more than four times the entries ever alive at once.
    #[test]
    fn readings_are_exact_and_the_log_stays_bounded() {
        let mut log = CutLog::default();
        let mut all: Vec<(Time, usize, u32)> = Vec::new();
        let mut most_alive = 0;
        for k in 0..2000u64 {
            let now = k * 10;
            // link 0: arrivals 95 ahead; link 1: 15 ahead, so a later cut
            // into link 1 reaches it before an earlier one into link 0.
            for (link, lead) in [(0usize, 95u64), (1, 15)] {
                let size = 40 + (k % 3) as u32 * 980 + link as u32;
                log.push(now, link, now + lead, size);
                all.push((now + lead, link, size));
            }
            most_alive = most_alive.max(all.iter().filter(|e| e.0 > now).count());
            for t in [now, now + 1, now + 14, now + 15, now + 16, now + 95] {
                let mut cs = [LinkCounters::default(); 2];
                for c in cs.iter_mut() {
                    (c.arrivals, c.tx_pkts, c.tx_bytes) = (1 << 40, 1 << 40, 1 << 50);
                }
                let mut one = cs;
                let by_link = log.ahead_by_link(t);
                assert!(by_link.windows(2).all(|w| w[0].0 <= w[1].0), "in order of link");
                for &(link, size) in &by_link {
                    take_back_one(size, &mut cs[link as usize]);
                }
                for (link, c) in cs.iter().enumerate() {
                    let ahead: Vec<_> = all.iter().filter(|e| e.1 == link && e.0 > t).collect();
                    assert_eq!(log.ahead(link, t), ahead.len(), "k {k} t {t} link {link}");
                    assert_eq!(c.arrivals, (1 << 40) - ahead.len() as u64);
                    assert_eq!(c.tx_pkts, (1 << 40) - ahead.len() as u64);
                    assert_eq!(c.tx_bytes, (1 << 50) - ahead.iter().map(|e| e.2 as u64).sum::<u64>());
                    log.take_back(link, t, &mut one[link]);
                    assert_eq!((one[link].arrivals, one[link].tx_bytes), (c.arrivals, c.tx_bytes));
                }
            }
        }
        assert!(
            log.cuts.capacity() <= (4 * most_alive).max(MIN_CAPACITY),
            "capacity {} for at most {most_alive} alive",
            log.cuts.capacity()
        );
    }
}
