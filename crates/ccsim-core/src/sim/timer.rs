//! Re-armable timers without cancellation.
//!
//! A timer keeps its `deadline` and at most one pending event. Moving the
//! deadline later (the common case: an RTO restarted on every ACK) schedules
//! nothing; when the pending event fires early it re-schedules itself at the
//! deadline. Moving it earlier schedules a new event with a new generation,
//! and the old event is recognised as stale when it pops.
use super::events::{EventKind, EventQueue};
use super::Time;

#[derive(Clone, Debug, Default)]
pub struct Timer {
    pub deadline: Option<Time>,
    scheduled: Option<Time>,
    gen: u32,
}

impl Timer {
    pub fn arm(&mut self, q: &mut EventQueue, at: Time, kind: EventKind, idx: u32) {
        self.deadline = Some(at);
        if self.scheduled.is_none_or(|s| s > at) {
            self.gen = self.gen.wrapping_add(1);
            self.scheduled = Some(at);
            q.schedule(at, kind, idx, self.gen);
        }
    }

    pub fn disarm(&mut self) {
        self.deadline = None;
    }

    pub fn is_armed(&self) -> bool {
        self.deadline.is_some()
    }

    /// Handle this timer's event; `true` when the timer really expires now.
    pub fn fire(&mut self, q: &mut EventQueue, now: Time, gen: u32, kind: EventKind, idx: u32) -> bool {
        if gen != self.gen {
            return false;
        }
        self.scheduled = None;
        match self.deadline {
            Some(d) if d > now => {
                self.arm(q, d, kind, idx);
                false
            }
            Some(_) => {
                self.deadline = None;
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn later_rearm_reuses_event_earlier_rearm_supersedes() {
        let mut q = EventQueue::default();
        let mut t = Timer::default();
        t.arm(&mut q, 10, EventKind::Rto, 0);
        t.arm(&mut q, 20, EventKind::Rto, 0);
        assert_eq!(q.len(), 1);
        let e = q.pop().unwrap();
        assert!(!t.fire(&mut q, e.time, e.gen, e.kind, 0));
        let e = q.pop().unwrap();
        assert_eq!(e.time, 20);
        assert!(t.fire(&mut q, e.time, e.gen, e.kind, 0));
        t.arm(&mut q, 50, EventKind::Rto, 0);
        t.arm(&mut q, 30, EventKind::Rto, 0);
        let e = q.pop().unwrap();
        assert_eq!(e.time, 30);
        assert!(t.fire(&mut q, e.time, e.gen, e.kind, 0));
        let stale = q.pop().unwrap();
        assert!(!t.fire(&mut q, stale.time, stale.gen, stale.kind, 0));
    }
}
