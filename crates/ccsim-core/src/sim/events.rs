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
    /// The head of shared wire `idx` (`net::line`) reaches its link's far
    /// end.
    LineArrival = 7,
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
            6 => EventKind::WarmupEnd,
            _ => EventKind::LineArrival,
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

/// Most entries an emptied overflow heap keeps room for. The heap holds
/// the start events of every flow while they are beyond the wheel's
/// horizon (10,000 flows starting over a second: a 16,384-entry vector,
/// 39 bytes a flow), and once the last has started it is mostly empty for
/// the rest of the run.
const HEAP_KEEP: usize = 1024;

/// Children per node of the overflow heap (events beyond the wheel's
/// horizon). Four halve the levels a pop walks down against a binary heap's.
const D: usize = 4;

/// Most entries the sorted front buffer holds while nothing else is
/// pending; beyond it, all but its earliest events spill to the wheel.
/// Rows with a handful of pending events (one flow: 5-13) never leave the
/// buffer.
const FRONT_CAP: usize = 24;
/// Most entries the front holds while other events are pending (a bucket
/// width far too wide for the traffic; see [`EventQueue::spill`]).
const FRONT_MAX: usize = 256;

/// Buckets of the wheel: its horizon is `WHEEL_SLOTS` bucket widths.
const WHEEL_BITS: u32 = 12;
const WHEEL_SLOTS: u64 = 1 << WHEEL_BITS;
const SLOT_MASK: u64 = WHEEL_SLOTS - 1;

/// A refill takes whole buckets until the front holds this many events.
const REFILL: usize = 12;

/// Bucket width (log2 ps) before the first measurement: about 1 us.
const INITIAL_SHIFT: u32 = 20;
/// Bucket widths the tuning may choose: 256 ps to 17.6 s.
const MIN_SHIFT: u32 = 8;
const MAX_SHIFT: u32 = 44;
/// Events beyond the near wheel's horizon from which the far wheel takes
/// them instead of the heap: with a few (ten flows' long access links) a
/// small heap, in the first-level cache, costs less than the far wheel's
/// buckets (S0 4-5% slower with the far wheel always on); with thousands
/// its pops walk cache-missing levels.
const FAR_FROM: usize = 512;
/// Events popped between two looks at the bucket width.
const TUNE_EVERY: u64 = 8192;
/// The width aims at this many popped events per bucket (log2): a refill
/// then sorts a handful of entries, and the horizon spans
/// `WHEEL_SLOTS << TARGET_PER_BUCKET_LOG2` events' worth of time.
const TARGET_PER_BUCKET_LOG2: u32 = 2;

/// Buckets of at most this many events are sorted by [`rank_sort`].
const RANK_SORT_MAX: usize = 16;

/// Sort a bucket's few entries with no branch on their keys: an entry's
/// place is the number of entries with a smaller key (keys are unique, so
/// the places are a permutation), counted with flag arithmetic. `f` holds
/// the bucket in any order and `from(i)` returns its `i`th entry again
/// (the taken bucket, intact beside the front), so each entry is
/// stored straight at its place in `f` with no second array.
///
/// Why: with many flows of different RTTs (X1: 100 paced flows, RTT 64-100
/// ms) the events of a bucket are scheduled in no particular order, and an
/// insertion sort mispredicts its loop exit about once per event: half of
/// `refill`'s samples, a tenth of X1's run time. The n² compares (at most
/// 256) cost less than those mispredictions: X1 3% faster in paired runs,
/// a Reno dumbbell with X1's RTT spread 4.6% (a third of its buckets hold
/// more than 8, hence a cap of 16), B3 (whose events rarely reach the
/// wheel) level. The ranks are computed in place and each entry stored
/// from the bucket: sorting through key and entry arrays would
/// add library `memset` and `memcpy` calls per bucket, 1.4-4.7% of G1's
/// and 1.7% of X1's samples on an Intel Xeon
/// (docs/decisions/2026-11-26-wheel-rank-sort.md).
#[inline(always)]
fn rank_sort(f: &mut [Entry], from: impl Fn(usize) -> Entry) {
    let n = f.len();
    debug_assert!(n <= RANK_SORT_MAX);
    let mut ranks = [0u8; RANK_SORT_MAX];
    for (r, e) in ranks.iter_mut().zip(f.iter()) {
        let k = e.key();
        *r = f.iter().map(|o| (o.key() < k) as u8).sum();
    }
    for (i, &r) in ranks[..n].iter().enumerate() {
        f[r as usize] = from(i);
    }
}

/// Entries per chunk of a wheel bucket ([`Chunks`]).
const CHUNK: usize = 8;
/// No chunk: an empty bucket's ends, the end of a chain or of the free list.
const NO_CHUNK: u32 = u32::MAX;

/// Up to [`CHUNK`] entries of one bucket, in the order they were
/// scheduled, and the bucket's next chunk.
#[derive(Clone, Copy)]
struct Chunk {
    entries: [Entry; CHUNK],
    len: u32,
    next: u32,
}

/// The chunks of both wheels' buckets, with a free list through them.
///
/// Why chunks rather than a vector per bucket: a vector keeps the room of
/// its largest fill, and a far bucket of hundreds the slack of its last
/// doubling; with 10,000 flows the 8192 buckets' vectors, each keeping up
/// to 16 entries, held room for 130,000 entries for 38,000 pending, 230
/// bytes a flow. A bucket of chunks has at most seven entries
/// of room, and an emptied bucket's chunks go to any other bucket, with no
/// allocation once the pool has grown. Eight entries lie together in 200
/// bytes, so a bucket still loads as a stream, not one node at a time as
/// a list of entries would (docs/decisions/2026-11-29-wheel-bucket-chunks.md).
struct Chunks {
    all: Vec<Chunk>,
    free: u32,
}

impl Default for Chunks {
    fn default() -> Self {
        Chunks { all: Vec::new(), free: NO_CHUNK }
    }
}

impl Chunks {
    /// An empty chunk, from the free list if it has one.
    #[inline(always)]
    fn alloc(&mut self) -> u32 {
        if self.free != NO_CHUNK {
            let c = self.free;
            let k = &mut self.all[c as usize];
            self.free = k.next;
            k.len = 0;
            k.next = NO_CHUNK;
            return c;
        }
        self.grow()
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) -> u32 {
        let c = u32::try_from(self.all.len()).expect("fewer than 2^32 chunks");
        self.all.push(Chunk { entries: [Entry { time: 0, seq_to: 0, idx_gen: 0 }; CHUNK], len: 0, next: NO_CHUNK });
        c
    }

    /// Give chunk `c` back (its entries are no longer read).
    #[inline(always)]
    fn release(&mut self, c: u32) {
        self.all[c as usize].next = self.free;
        self.free = c;
    }

    /// The `k`th entry of the chain from `c` (a bucket taken, its chunks
    /// not yet released).
    #[inline(always)]
    fn nth(&self, mut c: u32, mut k: usize) -> Entry {
        while k >= CHUNK {
            c = self.all[c as usize].next;
            k -= CHUNK;
        }
        self.all[c as usize].entries[k]
    }

    /// Give back the chain from `c`.
    #[inline(always)]
    fn release_chain(&mut self, mut c: u32) {
        while c != NO_CHUNK {
            let next = self.all[c as usize].next;
            self.release(c);
            c = next;
        }
    }
}

/// One wheel's buckets, each a chain of [`Chunk`]s holding the entries of
/// its slot in the order they were scheduled, and an occupancy bitmap (a
/// bit per slot, and per word of it).
struct Level {
    /// Each slot's first and last chunk (`NO_CHUNK` when empty).
    ends: Vec<(u32, u32)>,
    occupied: [u64; (WHEEL_SLOTS / 64) as usize],
    summary: u64,
}

impl Default for Level {
    fn default() -> Self {
        Level { ends: Vec::new(), occupied: [0; (WHEEL_SLOTS / 64) as usize], summary: 0 }
    }
}

impl Level {
    /// The slots, on first use (a queue that never leaves its front has none).
    fn allocate(&mut self) {
        if self.ends.is_empty() {
            self.ends = vec![(NO_CHUNK, NO_CHUNK); WHEEL_SLOTS as usize];
        }
    }

    /// Append an entry to `slot`'s bucket.
    #[inline(always)]
    fn push(&mut self, chunks: &mut Chunks, slot: usize, time: Time, seq_to: u64, idx_gen: u64) {
        let (head, tail) = self.ends[slot];
        let c = if tail == NO_CHUNK {
            let c = chunks.alloc();
            self.ends[slot] = (c, c);
            self.occupied[slot >> 6] |= 1 << (slot & 63);
            self.summary |= 1 << (slot >> 6);
            c
        } else if chunks.all[tail as usize].len as usize == CHUNK {
            let c = chunks.alloc();
            chunks.all[tail as usize].next = c;
            self.ends[slot] = (head, c);
            c
        } else {
            tail
        };
        let k = &mut chunks.all[c as usize];
        let e = &mut k.entries[k.len as usize];
        e.time = time;
        e.seq_to = seq_to;
        e.idx_gen = idx_gen;
        k.len += 1;
    }

    /// Empty `slot`, appending its entries to `out` in the order they were
    /// scheduled, and return its first chunk: the chunks stay readable
    /// ([`Chunks::nth`]) until given back with [`Chunks::release_chain`].
    #[inline(always)]
    fn take(&mut self, chunks: &Chunks, slot: usize, out: &mut Vec<Entry>) -> u32 {
        let head = self.unlink(slot);
        let mut c = head;
        while c != NO_CHUNK {
            let k = &chunks.all[c as usize];
            out.extend_from_slice(&k.entries[..k.len as usize]);
            c = k.next;
        }
        head
    }

    /// Empty `slot`, returning its first chunk: the chain is the caller's.
    #[inline(always)]
    fn unlink(&mut self, slot: usize) -> u32 {
        self.occupied[slot >> 6] &= !(1 << (slot & 63));
        if self.occupied[slot >> 6] == 0 {
            self.summary &= !(1 << (slot >> 6));
        }
        std::mem::replace(&mut self.ends[slot], (NO_CHUNK, NO_CHUNK)).0
    }

    /// Absolute number of the earliest occupied bucket at or after `base`,
    /// given that every occupied bucket is in `base .. base + WHEEL_SLOTS`
    /// (the level holds an entry).
    #[inline(always)]
    fn next_from(&self, base: u64) -> u64 {
        debug_assert!(self.summary != 0);
        let s0 = (base & SLOT_MASK) as usize;
        let (w0, b0) = (s0 >> 6, s0 & 63);
        let here = self.occupied[w0] & (!0u64 << b0);
        let slot = if here != 0 {
            (w0 << 6) | here.trailing_zeros() as usize
        } else {
            // Words after w0, else wrap round to the lowest occupied word
            // (w0's own bits below b0 included: they are the latest slots).
            let after = self.summary & (!1u64 << w0);
            let w = if after != 0 { after.trailing_zeros() } else { self.summary.trailing_zeros() } as usize;
            (w << 6) | self.occupied[w].trailing_zeros() as usize
        };
        base + ((slot as u64).wrapping_sub(s0 as u64) & SLOT_MASK)
    }
}

/// The pending events, earliest (time, seq) first.
///
/// Three parts, each holding only events later than the one before:
///
/// - `front`, a small buffer sorted latest first: a pop takes its last
///   entry with no sift at all;
/// - a timing wheel (a calendar queue, Brown 1988) of `WHEEL_SLOTS`
///   buckets of `2^shift` ps each, unsorted vectors ([`Level`]),
///   with an occupancy bitmap, and behind it a far wheel of as many
///   buckets `WHEEL_SLOTS` times as wide (a hierarchical timing wheel,
///   Varghese and Lauck 1987), whose buckets move whole into the near
///   wheel as it reaches them;
/// - a 4-ary heap for events beyond the far wheel's horizon, and for events
///   before its first bucket: the rest of a bucket too crowded to take
///   whole (a storm of equal times, which no bucket width separates) and
///   events scheduled into it meanwhile; these are taken first.
///
/// `bound` separates the front from the rest: every front event's time is
/// at most `bound` and every other event's at least `bound`. A new event
/// earlier than `bound` goes into the front (a short walk from the
/// earliest end: new events are mostly near-future), anything else into
/// its bucket or the overflow; equal times are ordered right either way,
/// because a new event's sequence number is larger than any pending one.
/// When the front runs empty it takes the next occupied buckets, sorted,
/// until it holds `REFILL` events or the wheel is empty.
/// While nothing else is pending the front takes every event, and only
/// beyond `FRONT_CAP` entries do all but its earliest spill to the wheel.
///
/// Why: with hundreds of flows several hundred events are pending, each
/// flow's next one about one packet interval of its own ahead (a pacing
/// timer, the head of a long pipe), so with the heap alone nearly every
/// event would go through it, and its pops would be a fifth of X1's and
/// G1's time (docs/decisions/2026-11-24-timing-wheel.md). A bucket insert
/// and a bucket take are O(1); the width follows the measured spacing of events so that a
/// bucket holds a few (`tune`). With thousands of flows, thousands are
/// pending beyond the near wheel's horizon, in the far wheel
/// ([`EventQueue::cascade_due`]). The pop order depends only on the keys,
/// so results are identical whatever the width (the tests compare with a
/// `BTreeMap`).
///
/// Invariant: the front is empty only when the whole queue is.
pub struct EventQueue {
    /// The earliest pending events, sorted latest first (the next event is
    /// `front.last()`); each is earlier than every other pending event.
    front: Vec<Entry>,
    /// Front times are <= `bound` <= every wheel and overflow time; when
    /// wheel and overflow hold events, `bound` is `cur << shift`.
    bound: Time,
    /// log2 of the bucket width in picoseconds.
    shift: u32,
    /// Absolute number (`time >> shift`) of the earliest bucket the wheel
    /// may hold; every wheel event's bucket is in `cur .. cur + WHEEL_SLOTS`.
    cur: u64,
    /// The near wheel: buckets `cur .. cur + WHEEL_SLOTS`, one per slot.
    near: Level,
    /// The far wheel: buckets of `WHEEL_SLOTS` near buckets each (far
    /// bucket `c` holds near buckets `c << WHEEL_BITS ..`), the far buckets
    /// `cur >> WHEEL_BITS .. + WHEEL_SLOTS`; a far bucket moves into the
    /// near wheel whole before the near wheel reaches its first bucket.
    far: Level,
    /// The chunks of both wheels' buckets.
    chunks: Chunks,
    /// Entries in the near wheel and in the far wheel.
    wheel_len: usize,
    far_len: usize,
    /// The far wheel is in use: set once more than [`FAR_FROM`] events
    /// waited in the heap at once; until then events beyond the near
    /// wheel's horizon go to the heap.
    far_on: bool,
    /// Events beyond the wheel's horizon, a 4-ary min-heap on [`Entry::key`].
    heap: Vec<Entry>,
    next_seq: u64,
    /// Events popped so far (the "events" figure in benchmarks).
    pub popped: u64,
    /// `popped` and `bound` at the last look at the bucket width.
    tune_popped: u64,
    tune_time: Time,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            front: Vec::new(),
            bound: Time::MAX,
            shift: INITIAL_SHIFT,
            cur: 0,
            near: Level::default(),
            far: Level::default(),
            chunks: Chunks::default(),
            wheel_len: 0,
            far_len: 0,
            far_on: false,
            heap: Vec::new(),
            next_seq: 0,
            popped: 0,
            tune_popped: 0,
            tune_time: 0,
        }
    }
}

impl EventQueue {
    /// Drop every pending event and the queue's storage, keeping the count
    /// of events popped: what ending a run does ([`crate::Simulation::end`]).
    pub fn release(&mut self) {
        *self = EventQueue { popped: self.popped, ..EventQueue::default() };
    }

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
        if time < self.bound {
            self.front_insert(time, seq_to, idx_gen);
        } else {
            self.schedule_back(time, seq_to, idx_gen);
        }
    }

    /// Insertion from the earliest end: walk down from the next event,
    /// moving each earlier entry up one place, and stop at the first later
    /// one. New events are mostly near-future (a pipe's next arrival, a
    /// serialiser's `LinkFree`, a pacing timer), so the walk is short
    /// whatever the front's length. The entry is written field by field at
    /// its place: built whole on the stack and copied at once, its 16-byte
    /// load waited on the two 8-byte stores just before it (no store
    /// forwarding), a tenth of E5's run time.
    ///
    /// The new event's sequence number is larger than every pending one's
    /// (`schedule` hands them out in order, `renumber` keeps the order),
    /// so it goes after every entry of its time: comparing times alone
    /// (`<=`) orders it as the whole key would, with one 64-bit compare.
    #[inline(always)]
    fn front_insert(&mut self, time: Time, seq_to: u64, idx_gen: u64) {
        debug_assert!(self.front.iter().all(|e| e.seq_to >> 16 < seq_to >> 16));
        let mut j = self.front.len();
        self.front.push(Entry { time: 0, seq_to: 0, idx_gen: 0 });
        let f = &mut self.front[..];
        while j > 0 && f[j - 1].time <= time {
            f[j] = f[j - 1];
            j -= 1;
        }
        let slot = &mut f[j];
        slot.time = time;
        slot.seq_to = seq_to;
        slot.idx_gen = idx_gen;
        if self.front.len() > FRONT_CAP && (self.front.len() > FRONT_MAX || self.back_is_empty()) {
            self.spill();
        }
    }

    /// An event at or after `bound`: into the wheel, or into the front at
    /// `Time::MAX` when nothing is behind it (`bound` is then `Time::MAX`).
    /// Out of line: one-flow rows never come here, and the inlined wheel
    /// insert cost them instructions at every `schedule` call site. The
    /// fields travel in registers: an `Entry` argument goes through the
    /// stack, and its 16-byte reload stalled on the 8-byte stores just
    /// before it (no store forwarding), as the front's insert once did.
    #[inline(never)]
    fn schedule_back(&mut self, time: Time, seq_to: u64, idx_gen: u64) {
        if self.back_is_empty() {
            self.front_insert(time, seq_to, idx_gen);
        } else {
            self.wheel_insert(time, seq_to, idx_gen);
        }
    }

    /// Nothing is pending outside the front.
    #[inline(always)]
    fn back_is_empty(&self) -> bool {
        self.wheel_len == 0 && self.far_len == 0 && self.heap.is_empty()
    }

    /// The front is over [`FRONT_CAP`] with nothing else pending, or over
    /// [`FRONT_MAX`]: keep its earliest `FRONT_CAP - 1` events and move
    /// the rest behind `bound`, which becomes the earliest moved time (a
    /// kept event may share that time: equal times are split by sequence,
    /// the kept ones being the earlier).
    #[cold]
    #[inline(never)]
    fn spill(&mut self) {
        let m = self.front.len() - (FRONT_CAP - 1);
        let cut = self.front[m - 1].time;
        self.near.allocate();
        self.far.allocate();
        if self.back_is_empty() {
            self.cur = cut >> self.shift;
        }
        // Otherwise every event behind the front is at or after the old
        // bound, itself at or after `cut`; moved events below the wheel's
        // first bucket go to the heap.
        self.bound = cut;
        for i in 0..m {
            let e = self.front[i];
            self.wheel_insert(e.time, e.seq_to, e.idx_gen);
        }
        self.front.drain(..m);
    }

    /// Empty both wheels, returning their entries (in no particular order).
    fn take_wheel(&mut self) -> Vec<Entry> {
        let mut all = Vec::with_capacity(self.wheel_len + self.far_len);
        for level in [&mut self.near, &mut self.far] {
            for slot in 0..level.ends.len() {
                if level.ends[slot].0 != NO_CHUNK {
                    let head = level.take(&self.chunks, slot, &mut all);
                    self.chunks.release_chain(head);
                }
            }
        }
        self.wheel_len = 0;
        self.far_len = 0;
        all
    }

    /// Put an event (`time >= bound`) in its near bucket, in its far
    /// bucket beyond the near wheel's horizon, or in the heap when it is
    /// beyond the far wheel's too or before the wheel's first bucket (the
    /// heap then holds the earliest events, taken before the wheel's).
    #[inline(always)]
    fn wheel_insert(&mut self, time: Time, seq_to: u64, idx_gen: u64) {
        let b = time >> self.shift;
        if b >= self.cur && b < self.cur + WHEEL_SLOTS {
            self.near.push(&mut self.chunks, (b & SLOT_MASK) as usize, time, seq_to, idx_gen);
            self.wheel_len += 1;
        } else {
            self.far_insert(time, seq_to, idx_gen);
        }
    }

    /// The rest of [`EventQueue::wheel_insert`], out of line: rows whose
    /// events all fall within the near wheel never come here.
    #[inline(never)]
    fn far_insert(&mut self, time: Time, seq_to: u64, idx_gen: u64) {
        let b = time >> self.shift;
        let c = b >> WHEEL_BITS;
        if b < self.cur || !self.far_on || c >= (self.cur >> WHEEL_BITS) + WHEEL_SLOTS {
            self.heap_push(Entry { time, seq_to, idx_gen });
            self.far_on |= self.heap.len() > FAR_FROM;
            return;
        }
        self.far.push(&mut self.chunks, (c & SLOT_MASK) as usize, time, seq_to, idx_gen);
        self.far_len += 1;
    }

    /// Kind, owner index and generation of the next event, if any: what
    /// the event loop prefetches for while it runs the current one.
    /// `ahead` 0 is the next event, 1 the one after it (if the front
    /// holds it; an event scheduled meanwhile may come between).
    #[inline(always)]
    pub fn peek_owner(&self, ahead: usize) -> Option<(EventKind, u32, u32)> {
        let n = self.front.len().checked_sub(ahead + 1)?;
        let e = &self.front[n];
        Some((EventKind::from_u8((e.seq_to >> 8) as u8), (e.idx_gen >> 32) as u32, e.idx_gen as u32))
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
        if self.front.is_empty() && !self.back_is_empty() {
            self.refill();
        }
        Some(e.event())
    }

    /// Move the next occupied bucket, sorted, into the (empty) front.
    #[inline(never)]
    fn refill(&mut self) {
        debug_assert!(self.front.is_empty());
        if self.popped - self.tune_popped >= TUNE_EVERY {
            self.tune();
        }
        if self.wheel_len == 0 && self.far_len == 0 {
            // Jump over the empty horizon to the heap's first bucket.
            self.cur = self.cur.max(self.heap[0].time >> self.shift);
        }
        while let Some(h) = self.heap.first() {
            let b = h.time >> self.shift;
            let beyond = if self.far_on {
                (b >> WHEEL_BITS) >= (self.cur >> WHEEL_BITS) + WHEEL_SLOTS
            } else {
                b >= self.cur + WHEEL_SLOTS
            };
            if b < self.cur || beyond {
                break;
            }
            let e = self.heap_pop().expect("the heap has an entry");
            self.wheel_insert(e.time, e.seq_to, e.idx_gen);
        }
        if self.heap.first().is_some_and(|h| h.time >> self.shift < self.cur) {
            // Events before the wheel's first bucket (the rest of a bucket
            // too crowded to take whole, or scheduled into a bucket already
            // taken): they are the earliest, straight from the heap.
            while self.front.len() < REFILL {
                match self.heap.first() {
                    Some(h) if h.time >> self.shift < self.cur => {
                        let e = self.heap_pop().expect("the heap has an entry");
                        self.front.push(e);
                    }
                    _ => break,
                }
            }
            self.front.reverse();
            self.bound = self.back_bound();
            return;
        }
        // Take whole buckets, earliest first, until the front holds
        // `REFILL` events: a wider front takes more new events by a short
        // walk from its earliest end and sends fewer through the wheel (B3,
        // with about 100 pending, lost 2% of its instructions taking one
        // bucket at a time). The front is built earliest first, a bucket
        // at a time, and reversed at the end.
        loop {
            self.cascade_due();
            let b = self.next_occupied();
            let slot = (b & SLOT_MASK) as usize;
            let seg = self.front.len();
            let head = self.near.take(&self.chunks, slot, &mut self.front);
            self.wheel_len -= self.front.len() - seg;
            // A bucket of a few events is sorted by rank, without a branch
            // on the keys (`rank_sort`, from the bucket itself). A larger
            // one (rare at the tuned width: a burst) by insertion: it holds
            // its events in the order they were scheduled, for the usual
            // increasing times nearly in order, so the insertion sort
            // makes about one compare per event. Keys are unique, so the
            // order is total.
            let f = &mut self.front[seg..];
            if f.len() <= RANK_SORT_MAX {
                let chunks = &self.chunks;
                rank_sort(f, |k| chunks.nth(head, k));
            } else {
                for n in 1..f.len() {
                    let e = f[n];
                    let k = e.key();
                    let mut j = n;
                    while j > 0 && f[j - 1].key() > k {
                        f[j] = f[j - 1];
                        j -= 1;
                    }
                    f[j] = e;
                }
            }
            self.chunks.release_chain(head);
            // Every far bucket is after `b`'s (`cascade_due`), so the wheel
            // moving on to `b + 1` passes none of them.
            self.cur = b + 1;
            if self.front.len() >= REFILL || (self.wheel_len == 0 && (self.far_len == 0 || !self.front.is_empty())) {
                break;
            }
        }
        if self.front.len() > FRONT_MAX {
            // A bucket of many equal (or nearly equal) times: keep the
            // earliest and leave the rest, in order, to the heap, so that
            // new events are not walked past all of them.
            for i in FRONT_CAP..self.front.len() {
                let e = self.front[i];
                self.heap_push(e);
            }
            self.front.truncate(FRONT_CAP);
            self.front.shrink_to(FRONT_MAX);
        }
        self.front.reverse();
        self.bound = self.back_bound();
    }

    /// Move the far buckets that come before the near wheel's next
    /// occupied bucket (all of them when the near wheel is empty), earliest
    /// first, into the near wheel: the wheel's first bucket moves up to
    /// the far bucket's first (it passes only empty near buckets), so every
    /// entry of that far bucket lands in the near wheel's horizon.
    ///
    /// Why a far wheel: with thousands of flows thousands of events are
    /// pending beyond the near wheel's horizon of 4096 buckets of a few
    /// events each (a packet entering the long, empty propagation pipe of
    /// its own access link; retransmission timers), and in the heap each
    /// cost a pop of several cache-missing levels; a far bucket costs one
    /// more list move per entry.
    #[inline]
    fn cascade_due(&mut self) {
        while self.far_len > 0 {
            let c = self.far.next_from(self.cur >> WHEEL_BITS);
            if self.wheel_len > 0 && c > self.next_occupied() >> WHEEL_BITS {
                return;
            }
            self.cur = self.cur.max(c << WHEEL_BITS);
            let slot = (c & SLOT_MASK) as usize;
            // Entry by entry from the far bucket's chunks, each chunk given
            // back once read (the near buckets may take it at once).
            let mut k = self.far.unlink(slot);
            while k != NO_CHUNK {
                let n = self.chunks.all[k as usize].len as usize;
                self.far_len -= n;
                for i in 0..n {
                    let e = self.chunks.all[k as usize].entries[i];
                    debug_assert_eq!(e.time >> self.shift >> WHEEL_BITS, c);
                    self.wheel_insert(e.time, e.seq_to, e.idx_gen);
                }
                let next = self.chunks.all[k as usize].next;
                self.chunks.release(k);
                k = next;
            }
        }
    }

    /// The `bound` for what is behind the front: the earliest time the
    /// wheels (`cur << shift`, which fits in a Time while a wheel holds an
    /// event) or the heap can hold.
    #[inline]
    fn back_bound(&self) -> Time {
        let wheel = if self.wheel_len + self.far_len > 0 { self.cur << self.shift } else { Time::MAX };
        self.heap.first().map_or(wheel, |h| wheel.min(h.time))
    }

    /// Absolute number of the near wheel's earliest occupied bucket (it
    /// holds an event).
    #[inline(always)]
    fn next_occupied(&self) -> u64 {
        self.near.next_from(self.cur)
    }

    /// Every [`TUNE_EVERY`] events, set the bucket width to about
    /// 2^[`TARGET_PER_BUCKET_LOG2`] times the mean spacing of the events
    /// popped since the last look, and rebuild the wheel when that moves
    /// it by a factor of four or more. Only speed depends on the width.
    #[cold]
    fn tune(&mut self) {
        let pops = self.popped - self.tune_popped;
        let now = self.bound;
        let span = now.saturating_sub(self.tune_time);
        self.tune_popped = self.popped;
        self.tune_time = now;
        let width = (span / pops).max(1) << TARGET_PER_BUCKET_LOG2;
        let shift = (Time::BITS - width.leading_zeros()).clamp(MIN_SHIFT, MAX_SHIFT);
        if shift.abs_diff(self.shift) < 2 {
            return;
        }
        // The front is empty: re-bucket the wheel from `bound` on.
        let wheel = self.take_wheel();
        self.shift = shift;
        self.cur = self.bound >> shift;
        for e in wheel {
            self.wheel_insert(e.time, e.seq_to, e.idx_gen);
        }
    }

    fn heap_push(&mut self, e: Entry) {
        self.heap.push(e);
        let i = self.heap.len() - 1;
        self.sift_up(i, e);
    }

    fn heap_pop(&mut self) -> Option<Entry> {
        let last = self.heap.pop()?;
        if self.heap.is_empty() {
            if self.heap.capacity() > HEAP_KEEP {
                self.heap = Vec::new();
            }
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
    /// every later event numbers after them. All of them go to the front
    /// (nothing is left behind it), which spills again as it fills.
    #[cold]
    fn renumber(&mut self) {
        let mut all = self.take_wheel();
        all.extend(self.front.drain(..).chain(self.heap.drain(..)));
        self.bound = Time::MAX;
        all.sort_unstable_by_key(|e| std::cmp::Reverse(e.key()));
        let n = all.len();
        for (i, e) in all.iter_mut().enumerate() {
            e.seq_to = ((n - 1 - i) as u64) << 16 | (e.seq_to & 0xffff);
        }
        self.next_seq = n as u64;
        self.front = all;
    }

    /// Events scheduled and not yet popped (stale timer events included).
    pub fn len(&self) -> usize {
        self.front.len() + self.wheel_len + self.far_len + self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.front.is_empty()
    }

    /// Entries the queue can hold without allocating: the room of its
    /// front, of its wheels' pool of chunks (which keeps the most it ever
    /// held) and of its overflow heap (given back when emptied).
    pub fn capacity(&self) -> usize {
        self.front.capacity() + self.chunks.all.capacity() * CHUNK + self.heap.capacity()
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

    /// Event `i` at `t` into both queues.
    fn schedule_both(q: &mut EventQueue, r: &mut Reference, t: Time, i: u64) {
        q.schedule(t, owner(i), i as u32);
        r.schedule(t, owner(i), i as u32);
    }

    /// Pop the next event of both (which must agree); returns its time,
    /// the clock of a simulator-like load.
    fn pop_both_at(q: &mut EventQueue, r: &mut Reference) -> Time {
        let now = q.peek_time().unwrap();
        pop_both(q, r);
        now
    }

    fn owner(i: u64) -> Owner {
        Owner::new(KINDS[(i % 7) as usize], (i as u32).wrapping_mul(2_654_435_761), (i >> 3) as u8)
    }

    #[test]
    fn rank_sort_orders_every_arrangement_of_a_bucket() {
        // Every permutation of up to 5 entries, with equal times split by
        // sequence, and random buckets up to the cap: sorted by key.
        fn entries(order: &[usize]) -> Vec<Entry> {
            // times 0,0,1,1,2,...: ties decided by seq_to
            order
                .iter()
                .map(|&i| Entry { time: (i / 2) as Time, seq_to: (i as u64) << 16, idx_gen: i as u64 })
                .collect()
        }
        fn check(mut v: Vec<Entry>) {
            let mut want: Vec<u128> = v.iter().map(Entry::key).collect();
            want.sort_unstable();
            let from = v.clone();
            rank_sort(&mut v, |i| from[i]);
            assert_eq!(v.iter().map(Entry::key).collect::<Vec<_>>(), want);
            assert!(v.iter().all(|e| e.idx_gen == e.seq_to >> 16), "entries move whole");
        }
        fn permutations(n: usize, prefix: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
            if prefix.len() == n {
                out.push(prefix.clone());
                return;
            }
            for i in 0..n {
                if !prefix.contains(&i) {
                    prefix.push(i);
                    permutations(n, prefix, out);
                    prefix.pop();
                }
            }
        }
        for n in 0..=5 {
            let mut all = Vec::new();
            permutations(n, &mut Vec::new(), &mut all);
            for p in all {
                check(entries(&p));
            }
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for _ in 0..2000 {
            let n = rng.gen_range(1..=RANK_SORT_MAX);
            let v = (0..n)
                .map(|i| Entry { time: rng.gen_range(0..4), seq_to: (i as u64) << 16 | 7, idx_gen: i as u64 })
                .collect();
            check(v);
        }
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
                schedule_both(&mut q, &mut r, now + d, i);
            } else {
                now = pop_both_at(&mut q, &mut r);
            }
            check_same(&q, &r);
        }
        while !r.map.is_empty() {
            pop_both(&mut q, &mut r);
            check_same(&q, &r);
        }
        assert!(q.capacity() >= 5000, "capacity covers the most pending");
    }

    /// Many flows: a few chains of near events (a busy link's next
    /// packet, about 1 us apart) and, per flow, an event a long and varied
    /// delay ahead (a packet into an empty propagation pipe, 0-50 ms; a
    /// retransmission timer, 0.2-1 s), thousands of times the near wheel's
    /// horizon at the tuned width. Those wait in the far wheel, not the
    /// heap, and every pop is the reference's.
    #[test]
    fn far_events_of_many_flows_go_through_the_far_wheel_in_order() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(54);
        let (mut q, mut r) = (EventQueue::default(), Reference::default());
        // Even ids: near chains; odd: far events (ps).
        let far = |rng: &mut rand_pcg::Pcg64| -> Time {
            match rng.gen_range(0..3) {
                0 => rng.gen_range(0..50_000_000_000),
                1 => rng.gen_range(200_000_000_000..1_000_000_000_000),
                // equal far times: one far bucket, in insertion order
                _ => 700_000_000_000,
            }
        };
        let mut id = 0u64;
        for _ in 0..20 {
            schedule_both(&mut q, &mut r, rng.gen_range(0..1_000_000), id);
            id += 2;
        }
        for _ in 0..20_000 {
            let d = far(&mut rng);
            schedule_both(&mut q, &mut r, d, id + 1);
            id += 2;
        }
        let (mut far_max, mut heap_max, mut pending_max) = (0, 0, 0);
        for n in 0..400_000u64 {
            let now = q.peek_time().unwrap();
            let got = q.pop().map(|e| (e.time, e.to, e.gen));
            assert_eq!(got, r.pop());
            let next =
                if got.unwrap().2 % 2 == 0 { now + rng.gen_range(500_000..1_500_000) } else { now + far(&mut rng) };
            let odd = got.unwrap().2 as u64 % 2;
            schedule_both(&mut q, &mut r, next, id + odd);
            id += 2;
            far_max = far_max.max(q.far_len);
            pending_max = pending_max.max(q.wheel_len + q.far_len);
            if n > 50_000 {
                heap_max = heap_max.max(q.heap.len());
            }
            if n % 97 == 0 {
                check_same(&q, &r);
            }
        }
        while !r.map.is_empty() {
            pop_both(&mut q, &mut r);
        }
        assert!(far_max > 10_000, "the far wheel held the far events: at most {far_max}");
        assert!(heap_max < 100, "the heap stayed nearly empty once tuned: at most {heap_max}");
        // the wheels' chunks: the most entries ever pending in them, and
        // room for at most seven more in each bucket they then filled
        let room = q.chunks.all.len() * CHUNK;
        assert!(room < pending_max + pending_max / 2, "room for {room}, {pending_max} pending at most");
        let mut free = 0;
        let mut c = q.chunks.free;
        while c != NO_CHUNK {
            free += 1;
            c = q.chunks.all[c as usize].next;
        }
        assert_eq!(free, q.chunks.all.len(), "every chunk back in the pool once the queue is empty");
    }

    /// Thousands of entries fill the heap (as the start events of many
    /// flows beyond the horizon do); once they have all popped it keeps no
    /// room for them.
    #[test]
    fn an_emptied_heap_gives_back_its_room() {
        let mut q = EventQueue::default();
        for i in 0..5000u64 {
            q.heap_push(Entry { time: (i * 7919) % 5000, seq_to: i << 16, idx_gen: 0 });
        }
        assert!(q.heap.capacity() > HEAP_KEEP);
        let mut last = 0;
        while let Some(e) = q.heap_pop() {
            assert!(e.time >= last);
            last = e.time;
            assert!(q.heap.is_empty() || q.heap.capacity() > HEAP_KEEP, "room kept while not empty");
        }
        assert!(q.heap.capacity() <= HEAP_KEEP, "room for {} kept", q.heap.capacity());
    }

    /// The wheel under changing event spacing: dense (ps apart), then
    /// sparse (ms apart) with far-future events beyond the horizon (the
    /// overflow heap, and jumps over an empty wheel), then dense again.
    /// The bucket width must follow (a rebuild each time) and the order
    /// must stay the reference's throughout.
    #[test]
    fn bucket_width_follows_the_spacing_and_keeps_the_order() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(29);
        let (mut q, mut r) = (EventQueue::default(), Reference::default());
        let mut now: Time = 0;
        let mut shifts = Vec::new();
        let mut i = 0u64;
        for (spacing, far) in [(3u64, false), (2_000_000_000, true), (50, false)] {
            for _ in 0..120_000 {
                i += 1;
                if q.len() < 600 || rng.gen_bool(0.5) {
                    let d = if far && rng.gen_bool(0.02) {
                        rng.gen_range(0..1_000_000_000_000_000)
                    } else {
                        rng.gen_range(0..spacing * 1200)
                    };
                    schedule_both(&mut q, &mut r, now + d, i);
                } else {
                    now = pop_both_at(&mut q, &mut r);
                }
                check_same(&q, &r);
            }
            shifts.push(q.shift);
        }
        while !r.map.is_empty() {
            pop_both(&mut q, &mut r);
            check_same(&q, &r);
        }
        assert!(shifts[0] < 12 && shifts[1] > 28 && shifts[2] < 16, "bucket widths {shifts:?}");
    }

    /// A storm of equal times (a hundred thousand flows starting at 0):
    /// the events cannot be told apart by bucket, so the front keeps a few
    /// and the heap the rest; each new event at that time must not walk
    /// past all of them (the fuzz test's 10^5-flow case ran for minutes
    /// when it did). Order as the reference's throughout.
    #[test]
    fn a_storm_of_equal_times_stays_in_order_and_linear() {
        let (mut q, mut r) = (EventQueue::default(), Reference::default());
        let n = 100_000u64;
        for i in 0..n {
            schedule_both(&mut q, &mut r, 1_000_000, i);
        }
        // Each pop schedules a follow-up at the same time or just after,
        // as a flow's start schedules its first send.
        for i in 0..2 * n {
            let now = pop_both_at(&mut q, &mut r);
            if i < n {
                schedule_both(&mut q, &mut r, now + (i % 3) * 100, n + i);
            }
        }
        assert!(r.map.is_empty() && q.is_empty());
        assert!(q.front.capacity() <= 4 * FRONT_MAX, "front grew to {}", q.front.capacity());
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
