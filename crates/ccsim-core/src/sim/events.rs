//! One global event queue ordered by (time, insertion sequence).
//!
//! The sequence number breaks ties in insertion order, which makes every run
//! deterministic regardless of heap internals. Events are small `Copy` values
//! that name a target by index; stale timer events are recognised by a
//! generation number and skipped rather than removed from the heap.
use super::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What an event does when it fires. Network events name a link; timer
/// events name their owner (an agent of a flow, a link's queue or stage, an
/// application), which alone knows which of its timers `slot` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// The serialiser of link `idx` is free: start the next queued packet.
    LinkFree,
    /// The head of link `idx`'s propagation pipe reaches the far end.
    PipeArrival,
    /// A timer of flow `idx`'s endpoints (`slot`: see `transport::slot`).
    AgentTimer,
    /// A timer of link `idx`'s queue (`slot` 0) or stage `slot - 1`.
    LinkTimer,
    /// A timer of application `idx` (`slot`: the application's own).
    AppTimer,
    /// Periodic metrics sample.
    Sample,
    /// End of warm-up: snapshot the counters.
    WarmupEnd,
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

#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct Event {
    pub time: Time,
    pub seq: u64,
    pub to: Owner,
    pub gen: u32,
}

impl PartialEq for Event {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Event {
    /// Reversed so that `BinaryHeap` (a max-heap) pops the earliest event.
    fn cmp(&self, o: &Self) -> Ordering {
        // (time, seq) as one 128-bit key: a branch-free compare in the
        // heap's sift loops, where the simulator spends a fifth of its time.
        let key = |e: &Event| ((e.time as u128) << 64) | e.seq as u128;
        key(o).cmp(&key(self))
    }
}

#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Event>,
    next_seq: u64,
    /// Events popped so far (the "events" figure in benchmarks).
    pub popped: u64,
}

impl EventQueue {
    pub fn schedule(&mut self, time: Time, to: Owner, gen: u32) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Event { time, seq, to, gen });
    }

    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }

    pub fn pop(&mut self) -> Option<Event> {
        let e = self.heap.pop();
        if e.is_some() {
            self.popped += 1;
        }
        e
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    pub fn capacity(&self) -> usize {
        self.heap.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
}
