//! The receiving application's reads at a Linux receiver (a flow's
//! `read_delay_s`).
//!
//! Why: Linux does part of its receiver's work in the application's
//! `recvmsg()`, not at the segment's arrival. The read measures the bytes
//! read in the last receiver RTT (`tcp_rcv_space_adjust`, which grows the
//! buffer), and sends an ACK the arrival deferred (`tcp_cleanup_rbuf`): for
//! a segment with PSH once the queue is empty (`ICSK_ACK_PUSHED`), or for
//! two segments whose ACK waited because the window it would offer had
//! shrunk under the unread data (`__tcp_ack_snd_check`). Until the read,
//! the unread data holds buffer space, so the offered window and its
//! growth (`tcp_grow_window`) are smaller, and a larger receiver RTT sample
//! is not taken (`tcp_rcv_rtt_update`: "not if receive queue is not
//! empty"). A waiting application is woken by `sk_data_ready` and runs
//! some tens of microseconds to milliseconds later; on the kernel peer's
//! receiver the wake-up took 22-54 µs at the median and 0.07-0.34 ms at
//! the 99th percentile, from run to run, with now and then a stall of up
//! to 26 ms (docs/decisions/2026-12-01-the-receiving-application.md).
//! Which of two segments 24.000 ms apart the buffer measures on, for
//! instance, is decided by two such wake-ups. Give the tail point by point
//! (quantiles at their probabilities): draws between two points spread
//! evenly (docs/decisions/2026-12-02-a-measured-tail-point-by-point.md).
//!
//! Modelled: an application that waits in `recv()` whenever nothing is
//! readable, and reads everything readable when it runs (a large user
//! buffer; the kernel peer's receiver reads up to 1 MB). Data that becomes
//! readable while a read is due waits for that read. Without a delay it
//! reads at each arrival that makes data readable. Not modelled: the
//! time the read itself takes, and an application that serves several
//! sockets in one loop (the kernel peer's does): each flow's reader wakes
//! on its own.
use crate::sim::rng::{self, Rng, Stream};
use crate::sim::BareTimer;

/// One receiver's reading application.
pub struct Reader {
    /// The wake-up's draws, with a delay (none: reads at each arrival).
    wake: Option<Rng>,
    /// In-order segments not yet read (`rcv_nxt - copied_seq`).
    unread: u64,
    /// Expires at the next read, while one is due.
    pub(super) timer: BareTimer,
}

impl Reader {
    /// `delayed`: the flow has a `read_delay_s`; `seed`, `flow`: its stream.
    pub fn new(delayed: bool, seed: u64, flow: u32) -> Self {
        Reader {
            wake: delayed.then(|| rng::stream(seed, Stream::AppRead, flow as u64)),
            unread: 0,
            timer: BareTimer::new(),
        }
    }

    /// In-order segments queued and not yet read.
    pub fn unread(&self) -> u64 {
        self.unread
    }

    /// `segs` in-order segments were queued, unread.
    pub fn queue(&mut self, segs: u64) {
        self.unread += segs;
    }

    /// Data became readable: whether the application reads now, at the
    /// read already due, or wakes after a delay drawn from the stream.
    pub fn wake(&mut self) -> Wake<'_> {
        match self.wake.as_mut() {
            None => Wake::Now,
            Some(_) if self.timer.is_armed() => Wake::Due,
            Some(r) => Wake::After(r),
        }
    }

    /// The application read everything readable.
    pub fn on_read(&mut self) {
        self.unread = 0;
        self.timer.disarm();
    }
}

/// What data made readable asks of the application ([`Reader::wake`]).
pub enum Wake<'a> {
    /// No delay: it reads now.
    Now,
    /// A read is due already and takes this data too.
    Due,
    /// It wakes after a delay drawn from this stream.
    After(&'a mut Rng),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_waits_for_the_read_due() {
        let mut r = Reader::new(true, 1, 0);
        r.queue(1);
        assert!(matches!(r.wake(), Wake::After(_)));
        let mut q = crate::sim::EventQueue::default();
        r.timer.arm(&mut q, crate::transport::receiver_timer(0, 2), 100);
        r.queue(2);
        assert!(matches!(r.wake(), Wake::Due));
        assert_eq!(r.unread(), 3);
        r.on_read();
        assert_eq!(r.unread(), 0);
        assert!(matches!(r.wake(), Wake::After(_)));
        let mut now = Reader::new(false, 1, 0);
        assert!(matches!(now.wake(), Wake::Now));
    }
}
