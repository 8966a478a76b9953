//! One global event queue ordered by (time, insertion sequence).
//!
//! The sequence number breaks ties in insertion order, which makes every run
//! deterministic regardless of the queue's internals (a sorted front buffer
//! over a 4-ary heap, see [`EventQueue`]). Events are small `Copy` values
//! that name a target by index; stale timer events are recognised by a
//! generation number and skipped rather than removed from the queue.
use super::time::Time;

/// What an event does when it fires. Network events name a link; timer
/// events name their owner (an agent of a flow, a link's queue or stage, an
/// application), which alone knows which of its timers `slot` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum EventKind {
    /// The serialiser of link `idx` is free: start the next queued packet.
    LinkFree = 0,
    /// The head of link `idx`'s propagation pipe reaches the far end.
    PipeArrival = 1,
    /// A timer of flow `idx`'s endpoints (`slot`: see `transport::slot`).
    AgentTimer = 2,
    /// A timer of link `idx`'s queue (`slot` 0) or stage `slot - 1`.
    LinkTimer = 3,
    /// A timer of application `idx` (`slot`: the application's own).
    AppTimer = 4,
    /// Periodic metrics sample.
    Sample = 5,
    /// End of warm-up: snapshot the counters.
    WarmupEnd = 6,
}

impl EventKind {
    #[inline]
    fn from_u8(b: u8) -> Self {
        match b {
            0 => EventKind::LinkFree,
            1 => EventKind::PipeArrival,
            2 => EventKind::AgentTimer,
            3 => EventKind::LinkTimer,
            4 => EventKind::AppTimer,
            5 => EventKind::Sample,
            _ => EventKind::WarmupEnd,
        }
    }
}

/// Who an event is for: the kind, the owner's index and the owner's slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Owner {
    pub kind: EventKind,
    pub slot: u8,
    pub idx: u32,
}

impl Owner {
    pub const fn new(kind: EventKind, idx: u32, slot: u8) -> Self {
        Owner { kind, slot, idx }
    }
}

/// An event as [`EventQueue::pop`] hands it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    pub time: Time,
    /// The event's rank in insertion order among the events of its time
    /// (the tie-break; see [`EventQueue`] for when it is renumbered).
    pub seq: u64,
    pub to: Owner,
    pub gen: u32,
}

/// Bits of an entry's second key word that hold the sequence number; the
/// low 16 hold the owner's kind and slot.
const SEQ_BITS: u32 = 48;
const SEQ_LIMIT: u64 = 1 << SEQ_BITS;

/// The sort key of an entry: time, then `seq_to` (so seq).
#[inline(always)]
fn key(time: Time, seq_to: u64) -> u128 {
    ((time as u128) << 64) | seq_to as u128
}

/// One pending event as the heap stores it: 24 bytes, the sort key in the
/// first two words. `seq_to` = seq << 16 | kind << 8 | slot: sequence
/// numbers are unique, so comparing the whole word orders by seq and the
/// owner bits below it never decide.
#[derive(Clone, Copy, Debug)]
struct Entry {
    time: Time,
    seq_to: u64,
    /// idx << 32 | gen.
    idx_gen: u64,
}

impl Entry {
    #[inline(always)]
    fn key(&self) -> u128 {
        key(self.time, self.seq_to)
    }

    #[inline]
    fn event(&self) -> Event {
        Event {
            time: self.time,
            seq: self.seq_to >> 16,
            to: Owner {
                kind: EventKind::from_u8((self.seq_to >> 8) as u8),
                slot: self.seq_to as u8,
                idx: (self.idx_gen >> 32) as u32,
            },
            gen: self.idx_gen as u32,
        }
    }
}

/// Children per node of the heap behind the front buffer. Four halve the
/// levels a pop walks down (each level: four keys in adjacent entries, two
/// cache lines) against a binary heap's; measured in docs/performance.md.
const D: usize = 4;

/// Most entries the sorted front buffer holds before it spills its latest
/// to the heap. Rows with a handful of pending events (one flow: 5-13)
/// never leave the buffer.
const FRONT_CAP: usize = 24;
/// Entries moved from the heap into the front buffer when it runs empty.
const REFILL: usize = 12;

/// The pending events, earliest (time, seq) first.
///
/// Two parts: a small sorted `front` buffer holding the earliest events and
/// a 4-ary min-heap holding the rest, every front entry earlier than every
/// heap entry. A pop takes the front's last entry (no sift at all); a new
/// event earlier than the heap's minimum goes into the front by a
/// branch-free count of the later entries and a short move, anything later
/// into the heap. When the front runs empty it takes the heap's next
/// [`REFILL`] events. Why: a binary-heap pop is a chain of dependent
/// loads and compares from the root to a leaf, and it was a third of the
/// engine's time even with 7-10 events pending; here the common one-flow
/// case never touches the heap, and on rows with hundreds or thousands of
/// pending events the near-future ones (a serialiser's `LinkFree`, a
/// short pipe's arrival, a pacing timer) go in and out of the front
/// without a heap operation.
///
/// Invariant: the front is empty only when the whole queue is.
#[derive(Default)]
pub struct EventQueue {
    /// The earliest pending events, sorted latest first (the next event is
    /// `front.last()`); each is earlier than every entry of `heap`.
    front: Vec<Entry>,
    /// The other pending events, a 4-ary min-heap on [`Entry::key`].
    heap: Vec<Entry>,
    next_seq: u64,
    /// Events popped so far (the "events" figure in benchmarks).
    pub popped: u64,
}

impl EventQueue {
    /// Schedule an event for `to` at `time`; events of equal time pop in
    /// the order they were scheduled.
    #[inline(always)]
    pub fn schedule(&mut self, time: Time, to: Owner, gen: u32) {
        if self.next_seq == SEQ_LIMIT {
            self.renumber();
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let seq_to = seq << 16 | (to.kind as u64) << 8 | to.slot as u64;
        let idx_gen = (to.idx as u64) << 32 | gen as u64;
        let k = key(time, seq_to);
        if self.heap.first().is_none_or(|h| k < h.key()) {
            // Insertion from the earliest end: walk down from the next
            // event, moving each earlier entry up one place, and stop at
            // the first later one. New events are mostly near-future (a
            // pipe's next arrival, a serialiser's `LinkFree`, a pacing
            // timer), so the walk is short whatever the front's length.
            // The entry is written field by field at its place: built
            // whole on the stack and copied at once, its 16-byte load
            // waited on the two 8-byte stores just before it (no store
            // forwarding), a tenth of E5's run time.
            let mut j = self.front.len();
            self.front.push(Entry { time: 0, seq_to: 0, idx_gen: 0 });
            let f = &mut self.front[..];
            while j > 0 && f[j - 1].key() < k {
                f[j] = f[j - 1];
                j -= 1;
            }
            let slot = &mut f[j];
            slot.time = time;
            slot.seq_to = seq_to;
            slot.idx_gen = idx_gen;
            if self.front.len() > FRONT_CAP {
                self.spill();
            }
        } else {
            self.heap_push(Entry { time, seq_to, idx_gen });
        }
    }

    /// The front is over its capacity: move its latest entry, still
    /// earlier than the whole heap, to the heap.
    #[cold]
    #[inline(never)]
    fn spill(&mut self) {
        let e = self.front.remove(0);
        self.heap_push(e);
    }

    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        self.front.last().map(|e| e.time)
    }

    /// Remove and return the next event (earliest time, then earliest
    /// scheduled).
    pub fn pop(&mut self) -> Option<Event> {
        let e = self.front.pop()?;
        self.popped += 1;
        if self.front.is_empty() && !self.heap.is_empty() {
            self.refill();
        }
        Some(e.event())
    }

    /// Move the heap's next [`REFILL`] events into the (empty) front.
    #[cold]
    #[inline(never)]
    fn refill(&mut self) {
        debug_assert!(self.front.is_empty());
        for _ in 0..REFILL {
            match self.heap_pop() {
                Some(e) => self.front.push(e),
                None => break,
            }
        }
        self.front.reverse();
    }

    fn heap_push(&mut self, e: Entry) {
        self.heap.push(e);
        let i = self.heap.len() - 1;
        self.sift_up(i, e);
    }

    fn heap_pop(&mut self) -> Option<Entry> {
        let last = self.heap.pop()?;
        if self.heap.is_empty() {
            return Some(last);
        }
        let top = self.heap[0];
        let i = self.hole_to_bottom();
        self.sift_up(i, last);
        Some(top)
    }

    /// Move the hole at the heap's root down to a leaf, always along the
    /// smallest child (Floyd's bottom-up deletion: the last entry, about to
    /// fill the hole, is late, so testing it on the way down would rarely
    /// stop early). Returns the leaf.
    #[inline(always)]
    fn hole_to_bottom(&mut self) -> usize {
        let h = &mut self.heap[..];
        let n = h.len();
        let mut i = 0;
        loop {
            let c = D * i + 1;
            if c + D <= n {
                let mut best = c;
                let mut bk = h[c].key();
                for j in 1..D {
                    let k = h[c + j].key();
                    let lt = k < bk;
                    best = if lt { c + j } else { best };
                    bk = if lt { k } else { bk };
                }
                h[i] = h[best];
                i = best;
            } else {
                if c < n {
                    let mut best = c;
                    for j in c + 1..n {
                        if h[j].key() < h[best].key() {
                            best = j;
                        }
                    }
                    h[i] = h[best];
                    i = best;
                }
                return i;
            }
        }
    }

    /// Put `e` at heap position `i` (a hole) or above it, moving later
    /// parents down.
    #[inline(always)]
    fn sift_up(&mut self, mut i: usize, e: Entry) {
        let h = &mut self.heap[..];
        let k = e.key();
        while i > 0 {
            let p = (i - 1) / D;
            if h[p].key() <= k {
                break;
            }
            h[i] = h[p];
            i = p;
        }
        h[i] = e;
    }

    /// Give the pending events sequence numbers 0..len in their order, so
    /// numbering can go on without overflowing the key's 48 bits (after
    /// 2.8·10^14 events, weeks of simulation at today's speed). The pop
    /// order is unchanged: pending events keep their relative order and
    /// every later event numbers after them.
    #[cold]
    fn renumber(&mut self) {
        let mut all: Vec<Entry> = self.front.drain(..).chain(self.heap.drain(..)).collect();
        all.sort_unstable_by_key(|e| e.key());
        for (rank, e) in all.iter_mut().enumerate() {
            e.seq_to = (rank as u64) << 16 | (e.seq_to & 0xffff);
        }
        self.next_seq = all.len() as u64;
        // A sorted array is a valid heap; the front takes the earliest.
        self.heap = all.split_off(all.len().min(REFILL));
        all.reverse();
        self.front = all;
    }

    /// Events scheduled and not yet popped (stale timer events included).
    pub fn len(&self) -> usize {
        self.front.len() + self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.front.is_empty()
    }

    /// Entries the queue can hold without allocating: at least the most
    /// ever pending at once.
    pub fn capacity(&self) -> usize {
        self.front.capacity() + self.heap.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::{Rng, SeedableRng};
    use std::collections::BTreeMap;

    const KINDS: [EventKind; 7] = [
        EventKind::LinkFree,
        EventKind::PipeArrival,
        EventKind::AgentTimer,
        EventKind::LinkTimer,
        EventKind::AppTimer,
        EventKind::Sample,
        EventKind::WarmupEnd,
    ];

    /// The specification: a map ordered by (time, global insertion count).
    #[derive(Default)]
    struct Reference {
        map: BTreeMap<(Time, u64), (Owner, u32)>,
        next: u64,
    }

    impl Reference {
        fn schedule(&mut self, t: Time, to: Owner, gen: u32) {
            self.map.insert((t, self.next), (to, gen));
            self.next += 1;
        }
        fn pop(&mut self) -> Option<(Time, Owner, u32)> {
            self.map.pop_first().map(|((t, _), (to, gen))| (t, to, gen))
        }
        fn peek_time(&self) -> Option<Time> {
            self.map.first_key_value().map(|(&(t, _), _)| t)
        }
    }

    /// Both queues agree on what is next and how many are pending.
    fn check_same(q: &EventQueue, r: &Reference) {
        assert_eq!(q.len(), r.map.len());
        assert_eq!(q.is_empty(), r.map.is_empty());
        assert_eq!(q.peek_time(), r.peek_time());
        assert!(q.capacity() >= q.len());
    }

    fn pop_both(q: &mut EventQueue, r: &mut Reference) {
        let got = q.pop().map(|e| (e.time, e.to, e.gen));
        assert_eq!(got, r.pop());
    }

    fn owner(i: u64) -> Owner {
        Owner::new(KINDS[(i % 7) as usize], (i as u32).wrapping_mul(2_654_435_761), (i >> 3) as u8)
    }

    #[test]
    fn ties_pop_in_insertion_order() {
        let mut q = EventQueue::default();
        for (t, i) in [(5, 1), (3, 2), (5, 3), (3, 4)] {
            q.schedule(t, Owner::new(EventKind::Sample, i, 0), 0);
        }
        let order: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|e| e.to.idx).collect();
        assert_eq!(order, vec![2, 4, 1, 3]);
        assert_eq!(q.popped, 4);
    }

    #[test]
    fn many_ties_pop_in_insertion_order_through_front_and_heap() {
        // 1000 events at one time spill from the front into the heap and
        // come back through refills: still insertion order.
        let mut q = EventQueue::default();
        for i in 0..1000u32 {
            q.schedule(7, Owner::new(EventKind::PipeArrival, i, 0), i);
        }
        let seqs: Vec<(u32, u64)> = std::iter::from_fn(|| q.pop()).map(|e| (e.to.idx, e.seq)).collect();
        assert_eq!(seqs, (0..1000u32).map(|i| (i, i as u64)).collect::<Vec<_>>());
    }

    #[test]
    fn owner_and_generation_round_trip() {
        let mut q = EventQueue::default();
        for (n, &kind) in KINDS.iter().enumerate() {
            for (idx, slot, gen) in [(0, 0, 0), (u32::MAX, u8::MAX, u32::MAX), (12345, 7, 0x8000_0001)] {
                q.schedule(n as Time, Owner::new(kind, idx, slot), gen);
            }
        }
        for &kind in &KINDS {
            for (idx, slot, gen) in [(0, 0, 0), (u32::MAX, u8::MAX, u32::MAX), (12345, 7, 0x8000_0001)] {
                let e = q.pop().unwrap();
                assert_eq!((e.to, e.gen), (Owner::new(kind, idx, slot), gen));
            }
        }
        assert!(q.pop().is_none());
    }

    #[test]
    fn empty_queue_semantics() {
        let mut q = EventQueue::default();
        assert!(q.is_empty());
        assert_eq!((q.len(), q.peek_time()), (0, None));
        assert!(q.pop().is_none());
        assert_eq!(q.popped, 0, "a pop of an empty queue is not an event");
        q.schedule(u64::MAX, owner(1), 3);
        q.schedule(0, owner(2), 4);
        assert_eq!((q.len(), q.peek_time()), (2, Some(0)));
        assert_eq!(q.pop().unwrap().time, 0);
        assert_eq!(q.pop().unwrap().time, u64::MAX);
        assert!(q.is_empty());
        assert_eq!(q.popped, 2);
    }

    /// A simulator-like load: thousands pending (many flows), times mostly
    /// ahead of the clock at mixed distances, some ties, interleaved pops;
    /// then drained.
    #[test]
    fn large_interleaved_load_matches_reference() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(13);
        let (mut q, mut r) = (EventQueue::default(), Reference::default());
        let mut now: Time = 0;
        for i in 0..200_000u64 {
            let target = if i < 100_000 { 5000 } else { 20 };
            if q.len() < target || rng.gen_bool(0.45) {
                let d: Time = match rng.gen_range(0..4) {
                    0 => rng.gen_range(0..10),
                    1 => rng.gen_range(0..10_000),
                    2 => rng.gen_range(0..10_000_000),
                    _ => 8_320_000,
                };
                q.schedule(now + d, owner(i), i as u32);
                r.schedule(now + d, owner(i), i as u32);
            } else {
                now = q.peek_time().unwrap();
                pop_both(&mut q, &mut r);
            }
            check_same(&q, &r);
        }
        while !r.map.is_empty() {
            pop_both(&mut q, &mut r);
            check_same(&q, &r);
        }
        assert!(q.capacity() >= 5000, "capacity covers the most pending");
    }

    #[test]
    fn renumbering_at_the_sequence_limit_keeps_the_order() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(5);
        let (mut q, mut r) = (EventQueue::default(), Reference::default());
        for i in 0..100u64 {
            let t = rng.gen_range(0..50);
            q.schedule(t, owner(i), 0);
            r.schedule(t, owner(i), 0);
        }
        q.next_seq = SEQ_LIMIT - 10;
        for i in 0..400u64 {
            if i % 3 == 2 {
                pop_both(&mut q, &mut r);
            } else {
                let t = rng.gen_range(0..50);
                q.schedule(t, owner(i), i as u32);
                r.schedule(t, owner(i), i as u32);
            }
            check_same(&q, &r);
        }
        assert!(q.next_seq < 1000, "renumbered: {}", q.next_seq);
        while !r.map.is_empty() {
            pop_both(&mut q, &mut r);
        }
    }

    #[derive(Clone, Debug)]
    enum Op {
        Schedule(Time, u32),
        Pop,
    }

    fn ops() -> impl Strategy<Value = Vec<Op>> {
        let op = prop_oneof![
            // Few distinct times (many ties) and a wide range.
            3 => (0..8u64, any::<u32>()).prop_map(|(t, g)| Op::Schedule(t, g)),
            3 => (any::<u64>(), any::<u32>()).prop_map(|(t, g)| Op::Schedule(t, g)),
            4 => Just(Op::Pop),
        ];
        prop::collection::vec(op, 0..600)
    }

    proptest! {
        #[test]
        fn interleaved_schedule_and_pop_match_reference(ops in ops(), grow in 0usize..200) {
            let (mut q, mut r) = (EventQueue::default(), Reference::default());
            // `grow` events first, so some cases run with a heap behind the front.
            for i in 0..grow as u64 {
                q.schedule(i * 7919 % 1000, owner(i), 1);
                r.schedule(i * 7919 % 1000, owner(i), 1);
            }
            for (i, op) in ops.into_iter().enumerate() {
                match op {
                    Op::Schedule(t, g) => {
                        q.schedule(t, owner(i as u64), g);
                        r.schedule(t, owner(i as u64), g);
                    }
                    Op::Pop => {
                        let got = q.pop().map(|e| (e.time, e.to, e.gen));
                        prop_assert_eq!(got, r.pop());
                    }
                }
                prop_assert_eq!(q.len(), r.map.len());
                prop_assert_eq!(q.peek_time(), r.peek_time());
            }
            while let Some(want) = r.pop() {
                prop_assert_eq!(q.pop().map(|e| (e.time, e.to, e.gen)), Some(want));
            }
            prop_assert!(q.pop().is_none());
        }
    }
}
