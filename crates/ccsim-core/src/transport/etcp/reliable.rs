//! E-TCP's reliability layer (§IV), decoupled from congestion control.
//!
//! Data carry sequence numbers of their own (segments). Each ACK carries
//! CACK (everything below is in order at the receiver), TSN (the data of
//! the packet that triggered it) and LE (LE..=TSN have all arrived).
//!
//! The sender's retransmission queue holds the data sent and not yet
//! acknowledged, "divided into segments according to the number of times
//! the data in each segment have been retransmitted". We keep it as one
//! queue in transmission order, where data enter again each time they are
//! (re)transmitted: the segment of count k is where the k-th
//! retransmissions entered. Per datum we keep only whether it was
//! retransmitted before (the count changes nothing the sender does). An ACK whose TSN was
//! last transmitted as packet t shows that everything transmitted before t
//! and still unacknowledged was lost, whether it was original data or a
//! retransmission, so a lost retransmission is found again without waiting
//! for a timeout (§IV's point against TCP SACK). Transmissions within two
//! packets of t are spared, the same reordering allowance as the congestion
//! signalling (Fig 2: lost only once h_seq > s + 2).
//!
//! A retransmission timer on the oldest unacknowledged data is the
//! backstop: on expiry that data is queued for retransmission first. Every
//! (re)transmission waits for the rate-control timer (the sender decides).
use crate::sim::Time;
use std::collections::{BTreeMap, VecDeque};

/// Reordering allowance, in transmissions (Fig 2's "h_seq > s + 2").
pub const REORDER_GUARD: u64 = 2;

/// `RetxQueue::order`'s entry for a transmission whose data need no tracking.
const UNTRACKED: u64 = u64::MAX;

/// One datum's state in 8 bytes (the queue holds a window of them, tens of
/// thousands at 5 Gb/s and 100 ms, read again one round trip after they
/// were written, so their size is what the ACK path pays in cache misses).
///
/// - in flight: the transmission number `tx` (bits 0..62), bit 62 set when
///   the datum was retransmitted before (its latest copy's send time is then
///   in `RetxQueue::again`);
/// - lost (inferred, waiting for the rate timer): bit 63, and bit 62 as above;
/// - acknowledged: all ones.
///
/// `tx` is a packet count, so it stays below 2^62 in any run.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Seg(u64);

impl Seg {
    const ACKED: Seg = Seg(u64::MAX);
    const LOST: u64 = 1 << 63;
    const AGAIN: u64 = 1 << 62;
    const TX: u64 = Self::AGAIN - 1;

    fn in_flight(tx: u64, again: bool) -> Seg {
        debug_assert!(tx <= Self::TX);
        Seg(tx | (again as u64) << 62)
    }
    fn lost(again: bool) -> Seg {
        Seg(Self::LOST | (again as u64) << 62)
    }
    /// The transmission number when in flight.
    fn tx(self) -> Option<u64> {
        (self.0 & Self::LOST == 0).then_some(self.0 & Self::TX)
    }
    fn is_lost(self) -> bool {
        self.0 & Self::LOST != 0 && self != Self::ACKED
    }
    /// Retransmitted before (in flight or lost; never for `ACKED`).
    fn again(self) -> bool {
        self != Self::ACKED && self.0 & Self::AGAIN != 0
    }
}

impl std::fmt::Debug for Seg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (*self == Self::ACKED, self.tx()) {
            (true, _) => write!(f, "Acked"),
            (_, Some(tx)) => write!(f, "InFlight(tx {tx}, again {})", self.again()),
            _ => write!(f, "Lost(again {})", self.again()),
        }
    }
}

/// The sender's retransmission queue.
#[derive(Clone, Debug, Default)]
pub struct RetxQueue {
    /// Oldest unacknowledged data sequence number.
    una: u64,
    /// State of data `una + i`, up to the highest sent.
    segs: VecDeque<Seg>,
    /// Latest send time of each retransmitted datum still unacknowledged
    /// (`Seg::again`), to tell an ACK of an earlier copy (see `on_ack`). A
    /// first copy is the only copy, so first transmissions, nearly all of
    /// them at a loss rate near p0, need no send time kept.
    again: BTreeMap<u64, Time>,
    /// The data of transmissions `order_tx0`, `order_tx0 + 1`, ... in
    /// transmission order: the segmented queue (`UNTRACKED` for a
    /// transmission of data acknowledged meanwhile). Transmission numbers
    /// are consecutive, so only the data are stored.
    order: VecDeque<u64>,
    /// Transmission number of `order`'s front.
    order_tx0: u64,
    /// Data inferred lost, in the order to retransmit them.
    lost: VecDeque<u64>,
    /// Lost retransmissions found from a later TSN (no timer involved).
    pub lost_retx_inferred: u64,
}

impl RetxQueue {
    pub fn una(&self) -> u64 {
        self.una
    }

    /// Next data sequence number never sent.
    pub fn high(&self) -> u64 {
        self.una + self.segs.len() as u64
    }

    fn seg(&self, d: u64) -> Option<Seg> {
        d.checked_sub(self.una).and_then(|i| self.segs.get(i as usize).copied())
    }

    fn set(&mut self, d: u64, s: Seg) {
        self.segs[(d - self.una) as usize] = s;
    }

    /// Mark `d` acknowledged, forgetting its retransmission record.
    fn set_acked(&mut self, d: u64, was: Seg) {
        if was.again() {
            self.again.remove(&d);
        }
        self.set(d, Seg::ACKED);
    }

    /// Data `d` leaves now (`at`) as transmission `tx` (new data when
    /// `d == high()`); `true` when `d` had been retransmitted before.
    pub fn on_send(&mut self, d: u64, tx: u64, at: Time) -> bool {
        let mut again = false;
        if d == self.high() {
            self.segs.push_back(Seg::in_flight(tx, false));
        } else {
            match self.seg(d) {
                Some(s) if s != Seg::ACKED => {
                    again = s.again();
                    self.again.insert(d, at);
                    self.set(d, Seg::in_flight(tx, true));
                }
                _ => {
                    // Acknowledged meanwhile: nothing to track.
                    self.push_order(tx, UNTRACKED);
                    return false;
                }
            }
        }
        self.push_order(tx, d);
        again
    }

    /// Append transmission `tx` of data `d` to the order queue.
    fn push_order(&mut self, tx: u64, d: u64) {
        if self.order.is_empty() {
            self.order_tx0 = tx;
        }
        let expected = self.order_tx0 + self.order.len() as u64;
        debug_assert!(tx >= expected, "transmission numbers go up: {tx} < {expected}");
        // A transmission the queue never saw (none in the sender) is a gap.
        for _ in expected..tx {
            self.order.push_back(UNTRACKED);
        }
        self.order.push_back(d);
    }

    /// The next data to retransmit, if any is waiting.
    pub fn next_lost(&mut self) -> Option<u64> {
        while let Some(d) = self.lost.pop_front() {
            if self.seg(d).is_some_and(Seg::is_lost) {
                return Some(d);
            }
        }
        None
    }

    /// Whether a retransmission is waiting.
    pub fn has_lost(&self) -> bool {
        self.lost.iter().any(|&d| self.seg(d).is_some_and(Seg::is_lost))
    }

    /// Process an ACK's (CACK, TSN, LE) and the send time it echoes.
    /// Returns how many data were newly inferred lost.
    pub fn on_ack(&mut self, cack: u64, tsn: u64, le: u64, ts_echo: Time) -> u64 {
        self.prefetch_ahead(tsn);
        // The transmission that triggered this ACK: TSN's latest, unless the
        // echoed send time shows an earlier copy of TSN arrived (after a
        // timer resend, say); that copy tells nothing about what was sent
        // after it, so it infers nothing. A first copy is the only one.
        let t = self.seg(tsn).and_then(|s| {
            let latest = !s.again() || self.again.get(&tsn) == Some(&ts_echo);
            s.tx().filter(|_| latest)
        });
        // LE..=TSN: walk down from TSN until data already known acknowledged
        // (earlier ACKs covered the rest of the block).
        let top = tsn.min(self.high().saturating_sub(1));
        let mut d = top;
        while d >= le.max(self.una) && d < self.high() {
            let s = self.seg(d).expect("d in the window");
            if s == Seg::ACKED && d != top {
                break;
            }
            self.set_acked(d, s);
            if d == 0 {
                break;
            }
            d -= 1;
        }
        let cack = cack.min(self.high());
        while self.una < cack {
            if self.segs.pop_front().is_some_and(Seg::again) {
                self.again.remove(&self.una);
            }
            self.una += 1;
        }
        while self.segs.front() == Some(&Seg::ACKED) {
            self.segs.pop_front();
            self.una += 1;
        }
        let mut inferred = 0;
        if let Some(t) = t {
            while let Some(&d) = self.order.front() {
                let tx = self.order_tx0;
                if tx + REORDER_GUARD >= t {
                    break;
                }
                self.order.pop_front();
                self.order_tx0 += 1;
                if let Some(s) = self.seg(d).filter(|s| s.tx() == Some(tx)) {
                    self.set(d, Seg::lost(s.again()));
                    self.lost.push_back(d);
                    inferred += 1;
                    self.lost_retx_inferred += s.again() as u64;
                }
            }
        }
        inferred
    }

    /// Start loading the state the next ACKs will read: they acknowledge
    /// data just above `tsn` and pop the order queue's front, both written
    /// about one round trip ago and by now out of the nearer caches.
    #[inline]
    fn prefetch_ahead(&self, tsn: u64) {
        const AHEAD: usize = 8;
        if let Some(s) = tsn.checked_sub(self.una).and_then(|i| self.segs.get(i as usize + AHEAD)) {
            crate::net::packet::prefetch_lines(s);
        }
        if let Some(o) = self.order.get(AHEAD) {
            crate::net::packet::prefetch_lines(o);
        }
    }

    /// The retransmission timer expired: queue the oldest unacknowledged
    /// data first. `false` when it is already waiting or nothing is out.
    pub fn on_timeout(&mut self) -> bool {
        let d = self.una;
        match self.seg(d) {
            Some(s) if s.tx().is_some() => {
                self.set(d, Seg::lost(s.again()));
                self.lost.push_front(d);
                true
            }
            _ => false,
        }
    }

    /// Whether data are sent and not yet acknowledged.
    pub fn outstanding(&self) -> bool {
        !self.segs.is_empty()
    }
}

/// The receiver's reassembly: in-order point and the blocks above it.
///
/// The highest block is kept apart (`tail`): with a hole open, almost every
/// arrival extends it, which then costs no tree operation; only
/// retransmissions filling holes touch the tree.
#[derive(Clone, Debug, Default)]
pub struct Reassembly {
    /// First data sequence number not yet received in order (CACK).
    pub next: u64,
    /// Received blocks [start, end) above `next` and below `tail`.
    ooo: BTreeMap<u64, u64>,
    /// The highest received block above `next`, if any.
    tail: Option<(u64, u64)>,
}

impl Reassembly {
    /// Record data `d`; returns (LE, whether it was new, the in-order
    /// point before).
    pub fn on_data(&mut self, d: u64) -> (u64, bool, u64) {
        let before = self.next;
        if d < self.next {
            return (d, false, before);
        }
        match self.tail {
            None if d == self.next => {
                self.next += 1;
                return (d, true, before);
            }
            None => {
                self.tail = Some((d, d + 1));
                return (d, true, before);
            }
            Some((s, e)) if d == e => {
                self.tail = Some((s, e + 1));
                return (s, true, before);
            }
            Some((s, e)) if d >= s && d < e => return (s, false, before),
            Some((s, e)) if d > e => {
                self.ooo.insert(s, e);
                self.tail = Some((d, d + 1));
                return (d, true, before);
            }
            Some(_) => {} // below the tail: a hole being filled
        }
        if let Some((&s, &e)) = self.ooo.range(..=d).next_back() {
            if e > d {
                return (s, false, before);
            }
        }
        let mut start = d;
        let mut end = d + 1;
        if let Some((&s, &e)) = self.ooo.range(..d).next_back() {
            if e == d {
                start = s;
                self.ooo.remove(&s);
            }
        }
        if let Some(e) = self.ooo.remove(&(d + 1)) {
            end = e;
        }
        let (ts, te) = self.tail.expect("a tail above d");
        let joins_tail = end == ts;
        if joins_tail {
            end = te;
        }
        if start == self.next {
            // The hole at the in-order point is filled: everything up to
            // `end` is in order (a block that reaches the tail takes it).
            self.next = end;
            if joins_tail {
                self.tail = None;
            }
            return (before.min(d), true, before);
        }
        if joins_tail {
            self.tail = Some((start, end));
        } else {
            self.ooo.insert(start, end);
        }
        (start, true, before)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_acks_advance_una() {
        let mut q = RetxQueue::default();
        for d in 0..10 {
            q.on_send(d, d, d);
        }
        assert_eq!(q.on_ack(5, 4, 0, 4), 0);
        assert_eq!(q.una(), 5);
        assert_eq!(q.on_ack(10, 9, 5, 9), 0);
        assert!(!q.outstanding());
    }

    #[test]
    fn a_hole_is_inferred_beyond_the_reordering_guard() {
        let mut q = RetxQueue::default();
        for d in 0..10 {
            q.on_send(d, d, d);
        }
        // 3 lost; 4, 5 and 6 arrive: only transmission 6 > 3 + 2 shows it.
        assert_eq!(q.on_ack(3, 4, 4, 4), 0);
        assert_eq!(q.on_ack(3, 5, 4, 5), 0, "tx 5 is within the guard of 3");
        assert_eq!(q.on_ack(3, 6, 4, 6), 1);
        assert_eq!(q.next_lost(), Some(3));
        assert_eq!(q.next_lost(), None);
    }

    #[test]
    fn a_lost_retransmission_is_found_again_without_a_timeout() {
        let mut q = RetxQueue::default();
        for d in 0..10 {
            q.on_send(d, d, d);
        }
        q.on_ack(3, 9, 4, 9); // 3 lost (data 4..=9 arrived)
        assert_eq!(q.next_lost(), Some(3));
        q.on_send(3, 10, 10); // retransmitted as tx 10 ...
        for d in 10..15 {
            q.on_send(d, d + 1, d + 1); // ... and new data as tx 11..15
        }
        // 3's retransmission is lost too; 10..=14 arrive.
        assert_eq!(q.on_ack(3, 11, 10, 12), 0, "tx 12 is within the guard of 10");
        assert_eq!(q.on_ack(3, 12, 10, 13), 1);
        assert_eq!(q.lost_retx_inferred, 1);
        assert_eq!(q.next_lost(), Some(3), "retransmitted a second time");
        q.on_send(3, 16, 16);
        q.on_ack(15, 3, 3, 16);
        assert!(!q.outstanding());
    }

    /// The timer resends data whose first copy was only late: the ACK of
    /// that first copy (its echoed send time is not the latest) must not
    /// declare everything sent since lost.
    #[test]
    fn an_ack_of_an_earlier_copy_infers_nothing() {
        let mut q = RetxQueue::default();
        for d in 0..5 {
            q.on_send(d, d, d);
        }
        assert!(q.on_timeout());
        assert_eq!(q.next_lost(), Some(0));
        q.on_send(0, 5, 5); // timer resend of 0 ...
        for d in 5..20 {
            q.on_send(d, d + 1, d + 1); // ... then new data
        }
        // The first copy of 0 (sent at 0) arrives: 1..=4 are in flight, not lost.
        assert_eq!(q.on_ack(1, 0, 0, 0), 0);
        assert_eq!(q.next_lost(), None);
        // An ACK of new data (tx 12) still infers a real hole: 1..=4 and
        // 5..=8 (tx 1..=9) are unacknowledged and more than 2 older than 12.
        assert_eq!(q.on_ack(1, 11, 11, 12), 8);
    }

    #[test]
    fn seg_states_are_distinct() {
        let tx = Seg::TX;
        let all = [
            Seg::in_flight(0, false),
            Seg::in_flight(tx, false),
            Seg::in_flight(tx, true),
            Seg::lost(false),
            Seg::lost(true),
            Seg::ACKED,
        ];
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert_eq!(Seg::in_flight(tx, true).tx(), Some(tx));
        assert!(Seg::in_flight(7, true).again() && !Seg::in_flight(7, false).again());
        assert!(Seg::lost(true).is_lost() && Seg::lost(true).again() && Seg::lost(false).is_lost());
        assert!(!Seg::ACKED.is_lost() && !Seg::ACKED.again() && Seg::ACKED.tx().is_none());
    }

    /// A transmission of data acknowledged meanwhile keeps its place in the
    /// order queue, so later transmissions keep their numbers.
    #[test]
    fn an_untracked_transmission_keeps_the_order_aligned() {
        let mut q = RetxQueue::default();
        for d in 0..5 {
            q.on_send(d, d, d);
        }
        assert_eq!(q.on_ack(0, 2, 2, 2), 0); // data 2 acknowledged
        assert!(!q.on_send(2, 5, 5), "acknowledged meanwhile");
        q.on_send(5, 6, 6);
        q.on_send(6, 7, 7);
        // TSN 6 is transmission 7: transmissions 0..=4 are beyond the guard,
        // so data 0, 1, 3 and 4 are lost; 5 (untracked) and 6 are not judged.
        assert_eq!(q.on_ack(0, 6, 6, 7), 4);
        let lost: Vec<u64> = std::iter::from_fn(|| q.next_lost()).collect();
        assert_eq!(lost, vec![0, 1, 3, 4]);
        // Transmission 9 judges transmission 6 (data 5) lost, not 7 (data 6).
        q.on_send(7, 8, 8);
        q.on_send(8, 9, 9);
        assert_eq!(q.on_ack(0, 8, 7, 9), 1);
        assert_eq!(q.next_lost(), Some(5));
    }

    #[test]
    fn the_timer_queues_the_oldest_first() {
        let mut q = RetxQueue::default();
        for d in 0..5 {
            q.on_send(d, d, d);
        }
        assert!(q.on_timeout());
        assert!(!q.on_timeout(), "already waiting");
        assert_eq!(q.next_lost(), Some(0));
    }

    #[test]
    fn reassembly_reports_le_and_in_order_point() {
        let mut r = Reassembly::default();
        assert_eq!(r.on_data(0), (0, true, 0));
        assert_eq!(r.on_data(2), (2, true, 1));
        assert_eq!(r.on_data(3), (2, true, 1));
        assert_eq!(r.on_data(5), (5, true, 1));
        assert_eq!(r.on_data(3), (2, false, 1), "duplicate");
        assert_eq!(r.on_data(1), (1, true, 1));
        assert_eq!(r.next, 4);
        assert_eq!(r.on_data(4), (4, true, 4));
        assert_eq!(r.next, 6);
    }

    /// Against a plain set: random arrival orders with duplicates give the
    /// same in-order point and LE as the definition.
    #[test]
    fn reassembly_matches_the_definition() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        for _ in 0..200 {
            let n = 60u64;
            let mut r = Reassembly::default();
            let mut got = std::collections::BTreeSet::new();
            for _ in 0..150 {
                let d = rng.gen_range(0..n);
                let before = (0..).find(|x| !got.contains(x)).unwrap();
                let new = got.insert(d);
                let (le, was_new, b) = r.on_data(d);
                let next = (0..).find(|x| !got.contains(x)).unwrap();
                assert_eq!((was_new, b, r.next), (new, before, next), "d={d}");
                // LE..=d all received; LE below CACK may be reported higher.
                assert!((le..=d).all(|x| got.contains(&x)), "le={le} d={d}");
                if d >= next {
                    assert!(le == 0 || !got.contains(&(le - 1)) || le <= next, "le={le} not minimal, d={d}");
                }
            }
        }
    }
}
