//! ns-2's floating-point clock, kept beside ccsim's exact one to order
//! tied events as ns-2.35 orders them (`ns2_clock = true`).
//!
//! ccsim's time is integer picoseconds, so on a dumbbell of equal delays and
//! packet sizes an arrival and a departure often fall on the very same
//! instant (B3: a flow's next segment reaches the full bottleneck exactly
//! when a segment leaves it). ns-2's scheduler (`common/scheduler.cc`)
//! keeps time as a `double`: `schedule(h, e, delay)` puts the event at
//! `clock_ + delay`, and `LinkDelay::recv` (`link/delay.cc`) schedules the
//! far end's arrival at `txt + delay_` and the queue's resume at `txt`,
//! with `txt = 8. * size / bandwidth_`. The two events' `double` times then
//! differ by a rounding error, and whichever is smaller runs first, not the
//! one scheduled first. At a full drop-tail queue that decides which packet
//! is dropped, and on synchronised flows the whole run (docs/validation.md,
//! "ns-2's floating-point clock").
//!
//! This clock computes each event's `double` time as ns-2 does (the
//! current event's `double` time plus the delay in ns-2's own arithmetic)
//! for the events whose ties ns-2 decides by it: a packet's arrival at the
//! far end of a link and a link's resume, on links with `ties = "ns2"`
//! (which schedule an event per packet, as ns-2 does), a TCP sender's
//! retransmission timer (`clock_ + rtt_timeout()`), an application's
//! start (as written) and a timer an application sets some interval after
//! one of its events (Telnet's next write: `clock_ + next()`). Each of
//! them is scheduled at its `double` rounded to the picosecond ([`ps`]);
//! events that share one integer instant then run in the order of their
//! `double` times, equal ones in the order they were scheduled (ns-2's
//! FIFO among equal times). Any other event takes the
//! exact time of its instant, correctly rounded: ns-2's would differ from
//! it by the rounding of the sums that led to it, which decides nothing
//! unless such an event ties with another. On B3 (50 NewReno flows, 60 s)
//! that is enough for the bottleneck trace to be ns-2.35's, all 7,312,048
//! events of it, 490 timeouts included (docs/validation.md).
use super::events::{Event, EventKind, Owner};
use super::Time;
use std::collections::HashMap;

/// Seconds of an integer picosecond time, correctly rounded: the `double`
/// that reading the same decimal number gives (as ns-2 reads a delay or a
/// start time from its Tcl script).
#[inline]
pub fn secs(t: Time) -> f64 {
    t as f64 / 1e12
}

/// The integer time of an ns-2 `double` time: the nearest picosecond.
/// Every event whose `double` the clock computes is scheduled there, so
/// the integer order of events never contradicts the order of their
/// `double`s (rounding is monotonic) and the two never drift apart; events
/// of one picosecond are then ordered by their `double`s. (Exact integer
/// sums would drift from ns-2's rounded ones, by 69 ps after 25 s of a
/// GWA LAN run, and order two events 24 ps apart against ns-2.)
#[inline]
pub fn ps(t: f64) -> Time {
    super::time::from_secs(t)
}

/// ns-2's serialisation time of `size` bytes at `rate_bps`
/// (`LinkDelay::txtime`: `8. * size / bandwidth_`).
#[inline]
pub fn txtime(size: u32, rate_bps: f64) -> f64 {
    8.0 * size as f64 / rate_bps
}

#[derive(Clone, Debug)]
pub struct Ns2Clock {
    /// ns-2's time of the event being handled.
    pub now: f64,
    /// Per packet slot: ns-2's time of its pending arrival event.
    arrival: Vec<f64>,
    /// Per link: ns-2's time of its pending resume (`LinkFree`).
    resume: Vec<f64>,
    /// Per link: its delay as the scenario wrote it (ns-2's `delay_`, read
    /// from the same decimal), not rounded to picoseconds.
    delay_s: Vec<f64>,
    /// Per application: its start time as the scenario wrote it (ns-2's
    /// `$ns at START`), for its first event.
    start_s: Vec<f64>,
    /// Per agent or application timer (kind, owner index, slot): the
    /// deadline ns-2 would give it.
    timer: HashMap<(u8, u32, u8), f64>,
}

impl Ns2Clock {
    /// A clock for links of these delays and applications of these start
    /// times (seconds, as the scenario gave them).
    pub fn new(delay_s: Vec<f64>, start_s: Vec<f64>) -> Self {
        Ns2Clock {
            now: 0.0,
            arrival: Vec::new(),
            resume: vec![0.0; delay_s.len()],
            delay_s,
            start_s,
            timer: HashMap::new(),
        }
    }

    /// A packet starts on link `link` of `rate_bps` now: its arrival at
    /// the far end is at `now + (txt + delay_)`, the link's resume at
    /// `now + txt` (`LinkDelay::recv`). Returns the two as integer times
    /// ([`ps`]), at which the caller schedules them.
    pub fn transmit(&mut self, pkt: u32, link: usize, size: u32, rate_bps: f64) -> (Time, Time) {
        let txt = txtime(size, rate_bps);
        let p = pkt as usize;
        if p >= self.arrival.len() {
            self.arrival.resize(p + 1, 0.0);
        }
        self.arrival[p] = self.now + (txt + self.delay_s[link]);
        self.resume[link] = self.now + txt;
        (ps(self.arrival[p]), ps(self.resume[link]))
    }

    /// A timer of `owner` set `delay` seconds (ns-2's `double`) from now
    /// (`TimerHandler::resched`: `clock_ + delay`); returns its integer
    /// time ([`ps`]), at which the caller schedules it.
    pub fn arm_timer(&mut self, owner: Owner, delay: f64) -> Time {
        let t = self.now + delay;
        self.timer.insert((owner.kind as u8, owner.idx, owner.slot), t);
        ps(t)
    }

    /// ns-2's time of event `e` due at the integer instant `at`.
    pub fn time_of(&self, e: &Event, at: Time) -> f64 {
        let known = match e.to.kind {
            EventKind::PipeArrival => self.arrival.get(e.gen as usize).copied(),
            EventKind::LinkFree => self.resume.get(e.to.idx as usize).copied(),
            EventKind::AppTimer => match self.timer.get(&(e.to.kind as u8, e.to.idx, e.to.slot)) {
                // a timer set `delay` after an event (Telnet's next write)
                Some(&t) if (t - secs(at)).abs() < 1e-9 => Some(t),
                // the first event, at the start as written
                _ => self.start_s.get(e.to.idx as usize).copied(),
            },
            EventKind::AgentTimer => self.timer.get(&(e.to.kind as u8, e.to.idx, e.to.slot)).copied(),
            _ => None,
        };
        // A stored time belongs to this event only if it is of its instant
        // (within a nanosecond: ns-2's rounding is far below that).
        match known {
            Some(t) if (t - secs(at)).abs() < 1e-9 => t,
            _ => secs(at),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ns2_times_of_a_tie_differ_by_rounding() {
        // The B3 tie (docs/validation.md): 8.32 us serialisations summed
        // from different starting points meet on one picosecond but not on
        // one double.
        let mut c = Ns2Clock::new(vec![0.0245, 0.0], vec![0.25]);
        let txt = txtime(1040, 1e9);
        assert_eq!(txt, 8.0 * 1040.0 / 1e9);
        c.now = 0.5;
        c.transmit(3, 1, 1040, 1e9);
        let resume = c.resume[1];
        assert_eq!(resume, 0.5 + txt);
        let e = Event { time: 0, seq: 0, to: Owner::new(EventKind::LinkFree, 1, 0), gen: 0 };
        assert_eq!(c.time_of(&e, 500_008_320_000), resume);
        // an event whose stored time is not of its instant gets the instant's
        let e = Event { time: 0, seq: 0, to: Owner::new(EventKind::PipeArrival, 0, 0), gen: 3 };
        assert_eq!(c.time_of(&e, 7_000_000_000_000), 7.0);
        // a delay of more digits than picoseconds hold keeps them all
        c.delay_s[0] = 0.012_345_678_901_234_5;
        c.now = 1.0;
        c.transmit(4, 0, 40, 1e9);
        assert_eq!(c.arrival[4], 1.0 + (txtime(40, 1e9) + 0.012_345_678_901_234_5));
        // a timer takes the arming event's double plus ns-2's RTO double:
        // three 0.1 s ticks are 0.30000000000000004, not 0.3
        c.now = 0.01;
        let rto = 3.0 * 0.1;
        c.arm_timer(Owner::new(EventKind::AgentTimer, 5, 0), rto);
        let e = Event { time: 0, seq: 0, to: Owner::new(EventKind::AgentTimer, 5, 0), gen: 1 };
        assert_eq!(c.time_of(&e, 310_000_000_000), 0.01 + rto);
        assert_ne!(0.01 + rto, secs(310_000_000_000));
        // an application's first event takes the start time as written
        let e = Event { time: 0, seq: 0, to: Owner::new(EventKind::AppTimer, 0, 0), gen: 0 };
        assert_eq!(c.time_of(&e, 250_000_000_000), 0.25);
        // and a later one the double of the event that set it plus the
        // interval (an agent timer of the same index and slot is apart)
        c.now = 0.7;
        c.arm_timer(Owner::new(EventKind::AppTimer, 5, 0), 0.1);
        let e = Event { time: 0, seq: 0, to: Owner::new(EventKind::AppTimer, 5, 0), gen: 0 };
        assert_eq!(c.time_of(&e, 800_000_000_000), 0.7 + 0.1);
        assert_ne!(0.7 + 0.1, 0.8);
        let e = Event { time: 0, seq: 0, to: Owner::new(EventKind::AgentTimer, 5, 0), gen: 1 };
        assert_eq!(c.time_of(&e, 310_000_000_000), 0.01 + rto);
    }

    #[test]
    fn decimal_delays_read_as_ns2_reads_them() {
        assert_eq!(secs(24_500_000_000), 0.0245);
        assert_eq!(secs(1_000_000_000), 1e-3);
        assert_eq!(secs(100_000_000_000), 0.1);
    }
}
