//! Re-armable timers without cancellation, each knowing its owner.
//!
//! A timer keeps its `deadline` and at most one pending event. Moving the
//! deadline later (the common case: an RTO restarted on every ACK) schedules
//! nothing; when the pending event fires early it re-schedules itself at the
//! deadline. Moving it earlier schedules a new event with a new generation,
//! and the old event is recognised as stale when it pops.
//!
//! The timer carries its [`Owner`] (agent of a flow, link queue or stage,
//! application, plus the owner's slot), so the event loop hands a firing
//! event to that owner and only the owner touches its timer fields.
use super::events::{EventQueue, Owner};
use super::Time;

/// "Not set" for `deadline` and `scheduled`: a sentinel rather than
/// `Option<Time>` keeps a timer at 32 bytes, or 24 without its owner ([`BareTimer`]), and no
/// simulation reaches this instant (`arm` keeps deadlines below it).
const NEVER: Time = Time::MAX;

#[derive(Clone, Debug)]
pub struct Timer {
    owner: Owner,
    t: BareTimer,
}

impl Timer {
    pub fn new(owner: Owner) -> Self {
        Timer { owner, t: BareTimer::new() }
    }

    pub fn owner(&self) -> Owner {
        self.owner
    }

    /// When the timer expires, if armed.
    pub fn deadline(&self) -> Option<Time> {
        self.t.deadline()
    }

    pub fn arm(&mut self, q: &mut EventQueue, at: Time) {
        self.t.arm(q, self.owner, at);
    }

    pub fn disarm(&mut self) {
        self.t.disarm();
    }

    pub fn is_armed(&self) -> bool {
        self.t.is_armed()
    }

    /// Handle this timer's event; `true` when the timer really expires now.
    pub fn fire(&mut self, q: &mut EventQueue, now: Time, gen: u32) -> bool {
        self.t.fire(q, self.owner, now, gen)
    }
}

/// A [`Timer`] that does not keep its owner, for a holder that knows it
/// and passes it in: a flow's agents, whose owner is the flow's id and a
/// fixed slot. 24 bytes, not 32: a run of many flows holds two per flow.
#[derive(Clone, Debug)]
pub struct BareTimer {
    deadline: Time,
    scheduled: Time,
    gen: u32,
}

impl Default for BareTimer {
    fn default() -> Self {
        Self::new()
    }
}

impl BareTimer {
    pub fn new() -> Self {
        BareTimer { deadline: NEVER, scheduled: NEVER, gen: 0 }
    }

    /// When the timer expires, if armed.
    pub fn deadline(&self) -> Option<Time> {
        (self.deadline != NEVER).then_some(self.deadline)
    }

    /// Expire at `at`; a pending event is `owner`'s.
    pub fn arm(&mut self, q: &mut EventQueue, owner: Owner, at: Time) {
        let at = at.min(NEVER - 1);
        self.deadline = at;
        if self.scheduled > at {
            self.gen = self.gen.wrapping_add(1);
            self.scheduled = at;
            q.schedule(at, owner, self.gen);
        }
    }

    pub fn disarm(&mut self) {
        self.deadline = NEVER;
    }

    pub fn is_armed(&self) -> bool {
        self.deadline != NEVER
    }

    /// Handle this timer's event (`owner`'s); `true` when the timer really
    /// expires now.
    pub fn fire(&mut self, q: &mut EventQueue, owner: Owner, now: Time, gen: u32) -> bool {
        if gen != self.gen {
            return false;
        }
        self.scheduled = NEVER;
        if self.deadline == NEVER {
            false
        } else if self.deadline > now {
            self.arm(q, owner, self.deadline);
            false
        } else {
            self.deadline = NEVER;
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::events::EventKind;
    #[test]
    fn later_rearm_reuses_event_earlier_rearm_supersedes() {
        let mut q = EventQueue::default();
        let mut t = Timer::new(Owner::new(EventKind::AgentTimer, 7, 2));
        t.arm(&mut q, 10);
        t.arm(&mut q, 20);
        assert_eq!(q.len(), 1);
        let e = q.pop().unwrap();
        assert_eq!(e.to, t.owner(), "the event names the timer's owner");
        assert!(!t.fire(&mut q, e.time, e.gen));
        let e = q.pop().unwrap();
        assert_eq!(e.time, 20);
        assert!(t.fire(&mut q, e.time, e.gen));
        t.arm(&mut q, 50);
        t.arm(&mut q, 30);
        let e = q.pop().unwrap();
        assert_eq!(e.time, 30);
        assert!(t.fire(&mut q, e.time, e.gen));
        let stale = q.pop().unwrap();
        assert!(!t.fire(&mut q, stale.time, stale.gen));
    }
}
