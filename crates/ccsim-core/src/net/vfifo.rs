//! A DropTail FIFO whose departures are computed at arrival.
//!
//! A FIFO link decides everything about a packet when the packet arrives:
//! whether it is dropped (the waiting packets against the limit) and when
//! its transmission starts (when the packet ahead of it is serialised).
//! Nothing that happens later changes either, so the link needs no
//! `LinkFree` event per queued departure: the packet goes onto the wire at
//! once, with its start `s` and its arrival at the far end, and this log
//! remembers `(t, s, size)` for what is read at a given time (counters,
//! queue length, maxima).
//!
//! **The tie rule.** An arrival at the instant a transmission ends finds
//! the next packet still waiting (it starts at that instant, after the
//! arrival): ns-2.35's order, `Ties::ArrivalFirst` (its scheduler runs a
//! tied arrival before the queue's resume, docs/validation.md). So the
//! packets waiting at an arrival at `t` are those admitted before with
//! `s >= t`. The event-by-event run with `ties = "arrival_first"` gives the
//! same drops and times (`tests/integration/cut_through.rs` compares the two on every
//! golden scenario); ccsim's default order (`event_order`) decides a tie by
//! when its events were scheduled, which has no equivalent here, so links
//! with that order keep their events.
//!
//! Arrivals reach a link in time order (one feeder's wire is FIFO; several
//! feeders' packets arrive by events, in time order), so the log is sorted
//! by `t` and by `s` at once, and the waiting packets are a suffix of it.
//!
//! **Queueing delay.** Each entry's wait `s - t` is what the link's delay
//! histogram records (`net::qdelay`), but only once the clock has reached
//! `s`, as the event-by-event run records it when the packet starts: a
//! trim records what it drops, and a sample or the warm-up's end first
//! records what has started by then ([`VirtualFifo::record_started`]).
use super::link::LinkCounters;
use super::qdelay::DelayRecorder;
use crate::sim::Time;
use std::collections::VecDeque;

/// The longest wait an entry holds exactly (2^40 - 1 ps, 1.1 s).
pub(crate) const MAX_WAIT: Time = (1 << 40) - 1;

/// One admitted packet in 16 bytes (the log holds a whole buffer: B5's is
/// 6,000 packets): its transmission start `s`, and its wait `s - t` (40
/// bits) with its size (24 bits). A wait of `MAX_WAIT` or more is stored
/// as `MAX_WAIT`, read as an arrival before every reading: only a packet
/// arriving by its event (never one cut through, `Link::v_admit`) may wait
/// so long, and nothing reads it before it arrived.
#[derive(Clone, Copy, Debug)]
struct Entry {
    s: Time,
    wait_size: u64,
}

impl Entry {
    /// Packet sizes are below 16 MB (`scenario::validate::MAX_PACKET_BYTES`
    /// is 1 MB).
    #[inline]
    fn new(t: Time, s: Time, size: u32) -> Self {
        debug_assert!(size < 1 << 24, "a packet of 16 MB or more");
        Entry { s, wait_size: (s - t).min(MAX_WAIT) << 24 | (size & 0xff_ffff) as u64 }
    }
    #[inline]
    fn size(self) -> u32 {
        (self.wait_size & 0xff_ffff) as u32
    }
    /// The arrival, or 0 (before every reading) for a wait of `MAX_WAIT`
    /// or more.
    #[inline]
    fn t(self) -> Time {
        match self.wait_size >> 24 {
            MAX_WAIT => 0,
            w => self.s - w,
        }
    }
}

/// The log of one link's admitted packets (see the module doc).
#[derive(Default, Debug)]
pub(crate) struct VirtualFifo {
    /// Admitted packets, in arrival order; kept while something read at a
    /// time not yet reached may involve them (trimmed in batches).
    log: VecDeque<Entry>,
    /// Index of the first entry still waiting at the latest arrival
    /// decided (`s >= t` of that arrival); those before it have started.
    cursor: usize,
    /// Bytes of the entries from `cursor` on.
    wait_bytes: u64,
    /// The link's queue maxima (`Link::max_queue_*`) include every arrival
    /// up to this time; those of later arrivals cut through to the link
    /// (ahead of the clock) are computed from the log when read or trimmed
    /// (`maxima_after`).
    max_upto: Time,
    /// A packet that waits was logged ahead of the clock since `max_upto`
    /// (else the link's maxima already hold every logged arrival's).
    ahead_max: bool,
    /// Index of the first entry whose wait the link's delay recorder has
    /// not been given.
    rec: usize,
    /// The exact waits of the entries not yet recorded whose wait was
    /// stored as `MAX_WAIT` (`Entry`), oldest first: a DropTail that takes
    /// over 1.1 s to drain (a large buffer on a slow link) still reports
    /// its delays exactly.
    long: VecDeque<Time>,
}

impl VirtualFifo {
    /// Packets and bytes waiting when a packet arrives at `at` (at or after
    /// every arrival decided before): those starting after `at`, or at `at`
    /// behind an earlier transmission; one that started at its own arrival
    /// at `at` (a sender's burst of one instant) is in service.
    #[inline]
    pub fn waiting_at(&mut self, at: Time) -> (usize, u64) {
        while let Some(e) = self.log.get(self.cursor).filter(|e| e.s < at || e.wait_size >> 24 == 0) {
            self.wait_bytes -= e.size() as u64;
            self.cursor += 1;
        }
        (self.log.len() - self.cursor, self.wait_bytes)
    }

    /// Log an admitted packet (`waiting_at(t)` was just asked); `now` is the
    /// clock, at or before `t`; `max`: the link's queue maxima, which a
    /// trim brings up to `now`. Returns the queue after the arrival, in
    /// packets and bytes, as the event-by-event run measures its maximum.
    /// `waits`: the link's delay recorder, which a trim gives the waits of
    /// the entries it drops.
    #[inline]
    pub fn push(
        &mut self,
        now: Time,
        t: Time,
        s: Time,
        size: u32,
        max: &mut (usize, u64),
        waits: Option<&mut DelayRecorder>,
    ) -> (usize, u64) {
        let recording = waits.is_some();
        if self.log.len() == self.log.capacity() {
            self.trim(now, max, waits);
        }
        if s - t >= MAX_WAIT {
            self.note_long(s - t, recording);
        }
        self.log.push_back(Entry::new(t, s, size));
        self.wait_bytes += size as u64;
        self.ahead_max |= t > now && s > t;
        (self.log.len() - self.cursor, self.wait_bytes)
    }

    /// Drop the entries nothing can read any more: started before `now`
    /// (so arrived too; one starting at `now` still waits for a reading at
    /// `now`) and before the cursor; first fold the queue maxima of the
    /// arrivals up to `now` into `max`, and record the waits of those not
    /// recorded yet into `waits`.
    #[cold]
    #[inline(never)]
    fn trim(&mut self, now: Time, max: &mut (usize, u64), waits: Option<&mut DelayRecorder>) {
        if self.ahead_max {
            let (p, b) = self.maxima_after(self.max_upto, now);
            *max = (max.0.max(p), max.1.max(b));
            // Those ahead of `now` are computed again at the next trim.
            self.ahead_max = self.log.back().is_some_and(|e| e.t() > now);
        }
        self.max_upto = self.max_upto.max(now);
        let started = self.log.partition_point(|e| e.s < now).min(self.cursor);
        self.record_to(started, waits);
        self.log.drain(..started);
        self.cursor -= started;
        self.rec -= started;
    }

    /// A wait of `MAX_WAIT` or more, stored clamped (`Entry`): kept exactly
    /// for the delay recorder, if there is one.
    #[cold]
    #[inline(never)]
    fn note_long(&mut self, wait: Time, recording: bool) {
        if recording {
            self.long.push_back(wait);
        }
    }

    /// Record into `waits` the waits of the logged packets not recorded yet
    /// whose transmission started by `now` (`s <= now`, the packets
    /// [`VirtualFifo::take_back`] leaves counted as sent).
    pub fn record_started(&mut self, now: Time, waits: Option<&mut DelayRecorder>) {
        let end = self.rec + self.log.range(self.rec..).take_while(|e| e.s <= now).count();
        self.record_to(end, waits);
    }

    /// Record the waits of entries `rec..end` (none if `end <= rec`). A
    /// zero wait (a packet that found the link idle) is left out, as on
    /// the link's other idle paths (`net::qdelay`). Without a recorder (the
    /// link records no delays) nothing is kept, `long` included.
    fn record_to(&mut self, end: usize, waits: Option<&mut DelayRecorder>) {
        if end <= self.rec {
            return;
        }
        let Some(rec) = waits else {
            self.rec = end;
            return;
        };
        for e in self.log.range(self.rec..end) {
            match e.wait_size >> 24 {
                0 => {}
                MAX_WAIT => rec.record(self.long.pop_front().expect("a long wait's exact value"), 0),
                w => rec.record(w, 0),
            }
        }
        self.rec = end;
    }

    /// Add to `waits` what [`VirtualFifo::record_started`] at `now` would
    /// record, leaving the log as it is (for results read at any time).
    pub fn add_started(&self, now: Time, waits: &mut DelayRecorder) {
        let mut long = self.long.iter();
        for e in self.log.range(self.rec..).take_while(|e| e.s <= now) {
            let w = e.wait_size >> 24;
            let w = if w == MAX_WAIT { *long.next().expect("a long wait's exact value") } else { w };
            if w > 0 {
                waits.record(w, 0);
            }
        }
    }

    /// The largest queue after an arrival in `(after, upto]`, in packets and
    /// in bytes, recomputed from the log: each logged packet that waited
    /// (`s > t`) was behind the packets logged before it that start after
    /// its arrival, or at it behind a transmission. Every packet such an
    /// arrival waited behind is still logged (it starts after the arrival,
    /// which is after `max_upto`, and a trim keeps what starts at or after
    /// the clock).
    fn maxima_after(&self, after: Time, upto: Time) -> (usize, u64) {
        // An arrival after `after` waits only behind packets starting after
        // it, so the scan starts at the first packet starting after `after`
        // (the start is strictly increasing in the log; the arrival is too,
        // but for a long wait's stand-in, `Entry::t`).
        let first = self.log.partition_point(|e| e.s <= after);
        let (mut i, mut bytes, mut best) = (first, 0u64, (0, 0));
        for (j, e) in self.log.iter().enumerate().skip(first) {
            let t = e.t();
            if t > upto {
                break;
            }
            bytes += e.size() as u64;
            while i < j && self.log[i].s < t || i <= j && self.log[i].wait_size >> 24 == 0 {
                bytes -= self.log[i].size() as u64;
                i += 1;
            }
            if t > after && e.s > t {
                best = (best.0.max(j + 1 - i), best.1.max(bytes));
            }
        }
        best
    }

    /// The queue maxima of arrivals after the last trim up to `now` (the
    /// link's own maxima hold those before).
    pub fn maxima_upto(&self, now: Time) -> (usize, u64) {
        if !self.ahead_max {
            return (0, 0);
        }
        self.maxima_after(self.max_upto, now)
    }

    /// Take back from counters that counted every logged packet in full
    /// (arrival, transmission, time waiting) what has not happened by `now`.
    pub fn take_back(&self, c: &mut LinkCounters, now: Time) {
        for e in self.log.iter().rev().take_while(|e| e.s > now) {
            if e.t() > now {
                c.arrivals -= 1;
            }
            c.tx_pkts -= 1;
            c.tx_bytes -= e.size() as u64;
            let ahead = (e.s - e.t().max(now)) as u128;
            c.q_area_pkts -= ahead;
            c.q_area_bytes -= ahead * e.size() as u128;
        }
    }

    /// Logged packets whose transmission has not started by `now` (waiting,
    /// or still on the feeder's wire).
    pub fn not_started(&self, now: Time) -> usize {
        self.log.iter().rev().take_while(|e| e.s > now).count()
    }

    /// Packets waiting at `now`, as a reading at that instant sees them: an
    /// arrival of the instant has happened, a departure has not (arrival
    /// first).
    pub fn waiting_now(&self, now: Time) -> usize {
        self.log.iter().rev().take_while(|e| e.s >= now).filter(|e| e.t() <= now && e.s > e.t()).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Waiting counts follow the arrival-first rule: a packet that starts
    /// at an arrival's instant is still waiting for it.
    #[test]
    fn a_packet_starting_at_an_arrival_still_waits_for_it() {
        let mut v = VirtualFifo::default();
        // a: 0..10 in service; b waits, starts at 10; c waits, starts at 20.
        let m = &mut (0, 0);
        v.push(0, 0, 0, 100, m, None);
        v.push(1, 1, 10, 100, m, None);
        v.push(2, 2, 20, 50, m, None);
        assert_eq!(v.waiting_at(2), (2, 150));
        assert_eq!(v.waiting_at(10), (2, 150), "b starts at 10, after the arrival");
        assert_eq!(v.waiting_at(11), (1, 50));
        assert_eq!(v.waiting_at(21), (0, 0));
        // Two arrivals of one instant at an idle link: the first is in
        // service, not waiting.
        let mut v = VirtualFifo::default();
        v.push(0, 5, 5, 100, &mut (0, 0), None);
        assert_eq!(v.waiting_at(5), (0, 0));
    }

    /// Counters taken back at every instant equal those of a packet-by-
    /// packet account.
    #[test]
    fn take_back_leaves_exactly_what_has_happened() {
        let mut v = VirtualFifo::default();
        let pk = [(0u64, 0u64, 100u32), (5, 10, 200), (12, 30, 100), (40, 40, 300)];
        let mut full = LinkCounters::default();
        for &(t, s, size) in &pk {
            v.waiting_at(t);
            v.push(0, t, s, size, &mut (0, 0), None);
            full.arrivals += 1;
            full.tx_pkts += 1;
            full.tx_bytes += size as u64;
            full.q_area_pkts += (s - t) as u128;
            full.q_area_bytes += (s - t) as u128 * size as u128;
        }
        for now in 0..50u64 {
            let mut c = full;
            v.take_back(&mut c, now);
            let arrived = pk.iter().filter(|p| p.0 <= now).count() as u64;
            let started: Vec<_> = pk.iter().filter(|p| p.1 <= now).collect();
            let area: u128 = pk.iter().map(|p| (p.1.min(now).saturating_sub(p.0)) as u128).sum();
            assert_eq!(c.arrivals, arrived, "now {now}");
            assert_eq!(c.tx_pkts, started.len() as u64);
            assert_eq!(c.tx_bytes, started.iter().map(|p| p.2 as u64).sum::<u64>());
            assert_eq!({ c.q_area_pkts }, area, "now {now}");
            assert_eq!(v.not_started(now), pk.len() - started.len());
        }
    }

    /// A wait beyond the packed range is read exactly from its arrival on.
    #[test]
    fn a_long_wait_is_exact_once_arrived() {
        let mut v = VirtualFifo::default();
        let (t, s) = (10, 10 + 3 * MAX_WAIT);
        v.waiting_at(t);
        v.push(t, t, s, 1000, &mut (0, 0), None);
        for now in [t, t + 1, s - 1, s, s + 1] {
            let mut c = LinkCounters { arrivals: 1, tx_pkts: 1, tx_bytes: 1000, ..Default::default() };
            c.q_area_pkts = (s - t) as u128;
            c.q_area_bytes = (s - t) as u128 * 1000;
            v.take_back(&mut c, now);
            assert_eq!(c.arrivals, 1);
            assert_eq!(c.tx_pkts, (now >= s) as u64);
            assert_eq!({ c.q_area_pkts }, (now.min(s) - t) as u128, "now {now}");
            assert_eq!(v.waiting_now(now), (now < s) as usize + (now == s) as usize);
        }
    }

    /// Maxima recomputed from the log equal those measured at each arrival.
    #[test]
    fn maxima_from_the_log_are_those_after_each_arrival() {
        let mut v = VirtualFifo::default();
        let mut max = (0, 0);
        // (t, s, size): a served at once; b, c, d wait; e arrives when b
        // starts (b still waits for it); f after all have left.
        let pk = [(0u64, 0u64, 100u32), (1, 10, 200), (2, 20, 300), (3, 30, 50), (10, 40, 100), (60, 60, 100)];
        let mut seen = Vec::new();
        for &(t, s, size) in &pk {
            v.waiting_at(t);
            let q = v.push(0, t, s, size, &mut max, None);
            if s > t {
                seen.push((t, q));
            }
        }
        assert_eq!(seen, [(1, (1, 200)), (2, (2, 500)), (3, (3, 550)), (10, (4, 650))]);
        assert_eq!(v.maxima_upto(0), (0, 0));
        assert_eq!(v.maxima_upto(2), (2, 500));
        assert_eq!(v.maxima_upto(100), (4, 650));
        assert_eq!(v.maxima_after(3, 100), (4, 650));
        assert_eq!(v.maxima_after(10, 100), (0, 0));
    }

    /// Each logged wait is recorded once, when the clock has reached its
    /// start, whether by `record_started` or by a trim; `add_started` sees
    /// the same without recording; a wait over `MAX_WAIT` is exact; and a
    /// link that records nothing keeps nothing.
    #[test]
    fn waits_are_recorded_once_when_started() {
        use crate::net::qdelay::DelayRecorder;
        let mut v = VirtualFifo::default();
        let mut rec: Option<Box<DelayRecorder>> = Some(Default::default());
        let long = 2 * MAX_WAIT + 7;
        // (t, s): an idle arrival (wait 0), waits of 10 and 25, a long one
        let pk = [(0u64, 0u64), (5, 15), (10, 35), (20, 20 + long)];
        for &(t, s) in &pk {
            v.waiting_at(t);
            v.push(t, t, s, 100, &mut (0, 0), rec.as_deref_mut());
        }
        let recorded = |rec: &Option<Box<DelayRecorder>>| {
            rec.as_ref().map_or((0, 0), |r| {
                let h = &r.classes_with_zeros(1, 0)[0];
                (h.count(), h.max().unwrap_or(0))
            })
        };
        let peek = |v: &VirtualFifo, rec: &Option<Box<DelayRecorder>>, now| {
            let mut r = rec.as_deref().cloned().unwrap_or_default();
            v.add_started(now, &mut r);
            let h = &r.classes_with_zeros(1, 0)[0];
            (h.count(), h.max().unwrap_or(0))
        };
        assert_eq!(v.long.len(), 1);
        assert_eq!(peek(&v, &rec, 14), (0, 0));
        assert_eq!(peek(&v, &rec, 15), (1, 10), "recorded at its start");
        v.record_started(15, rec.as_deref_mut());
        assert_eq!(recorded(&rec), (1, 10));
        v.record_started(15, rec.as_deref_mut());
        assert_eq!(recorded(&rec), (1, 10), "once");
        assert_eq!(peek(&v, &rec, 40), (2, 25));
        assert_eq!(peek(&v, &rec, 20 + long), (3, long), "the long wait, exactly");
        // A trim at 40 records the 25 (started at 35) and drops it; the
        // long wait stays logged, unrecorded.
        v.waiting_at(40);
        v.trim(40, &mut (0, 0), rec.as_deref_mut());
        assert_eq!(recorded(&rec), (2, 25));
        assert_eq!(rec.as_ref().unwrap().clone().take_interval(), (35, 25));
        v.record_started(20 + long, rec.as_deref_mut());
        assert_eq!(recorded(&rec), (3, long));
        assert!(v.long.is_empty());
        // without a recorder
        let mut v = VirtualFifo::default();
        for &(t, s) in &pk {
            v.waiting_at(t);
            v.push(t, t, s, 100, &mut (0, 0), None);
        }
        v.record_started(20 + long, None);
        assert!(v.long.is_empty() && v.rec == pk.len());
    }
}
