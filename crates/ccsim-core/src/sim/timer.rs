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

#[derive(Clone, Debug)]
pub struct Timer {
    owner: Owner,
    pub deadline: Option<Time>,
    scheduled: Option<Time>,
    gen: u32,
}

impl Timer {
    pub fn new(owner: Owner) -> Self {
        Timer { owner, deadline: None, scheduled: None, gen: 0 }
    }

    pub fn owner(&self) -> Owner {
        self.owner
    }

    pub fn arm(&mut self, q: &mut EventQueue, at: Time) {
        self.deadline = Some(at);
        if self.scheduled.is_none_or(|s| s > at) {
            self.gen = self.gen.wrapping_add(1);
            self.scheduled = Some(at);
            q.schedule(at, self.owner, self.gen);
        }
    }

    pub fn disarm(&mut self) {
        self.deadline = None;
    }

    pub fn is_armed(&self) -> bool {
        self.deadline.is_some()
    }

    /// Handle this timer's event; `true` when the timer really expires now.
    pub fn fire(&mut self, q: &mut EventQueue, now: Time, gen: u32) -> bool {
        if gen != self.gen {
            return false;
        }
        self.scheduled = None;
        match self.deadline {
            Some(d) if d > now => {
                self.arm(q, d);
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
