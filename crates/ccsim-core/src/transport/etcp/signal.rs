//! Congestion signalling (E-TCP §III-B, Fig 2).
//!
//! The sender labels every packet with `cc_seq`; the receiver answers each
//! packet with `h_seq` (the highest `cc_seq` received) and a 32-bit bitmap
//! of `h_seq - 1 ... h_seq - 32`. The sender's `cc_ack` makes the
//! controller respond to every number exactly once: numbers that fall out
//! of the bitmap unacknowledged are losses, a missing number `s` is a loss
//! only once `h_seq > s + 2` (reordering by one or two packets is not a
//! loss), and an ACK older than `cc_ack` is discarded. Because each ACK
//! repeats the previous 32 numbers, a lost ACK loses no information.

/// One sequence number's fate, as Fig 2 responds to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// `opencwnd()`: the packet arrived.
    Arrived(u64),
    /// `slowdown()`: the packet was lost.
    Lost(u64),
}

/// Bits in the ACK bitmap.
pub const BITMAP_LEN: u64 = 32;

/// The sender's side: Fig 2 with `next = cc_ack + 1` (so no -1 is needed).
#[derive(Clone, Debug, Default)]
pub struct CcAck {
    /// The next sequence number the controller has not responded to.
    pub next: u64,
}

impl CcAck {
    /// Run Fig 2 on an ACK carrying `h_seq` and `bitmap`, calling `respond`
    /// once per sequence number decided, in order.
    pub fn on_ack(&mut self, h_seq: u64, bitmap: u32, mut respond: impl FnMut(Signal)) {
        if self.next > h_seq {
            return; // cc_ack >= h_seq: nothing new
        }
        // Numbers older than the bitmap covers are lost.
        while self.next + BITMAP_LEN < h_seq {
            respond(Signal::Lost(self.next));
            self.next += 1;
        }
        while self.next <= h_seq {
            let s = self.next;
            let arrived = s == h_seq || (bitmap >> (h_seq - s - 1)) & 1 == 1;
            if arrived {
                respond(Signal::Arrived(s));
            } else if h_seq > s + 2 {
                respond(Signal::Lost(s));
            } else {
                break; // maybe reordered: wait for a later ACK
            }
            self.next += 1;
        }
    }

    /// Respond to every number below `end` not yet decided as lost (the
    /// signalling timer: nothing has come back for an RTO).
    pub fn expire(&mut self, end: u64, mut respond: impl FnMut(Signal)) {
        while self.next < end {
            respond(Signal::Lost(self.next));
            self.next += 1;
        }
    }
}

/// The receiver's side: the highest `cc_seq` seen and the bitmap below it.
#[derive(Clone, Debug, Default)]
pub struct Bitmap {
    h_seq: Option<u64>,
    bits: u32,
}

impl Bitmap {
    /// Record the arrival of `cc_seq`.
    pub fn on_arrival(&mut self, s: u64) {
        match self.h_seq {
            None => self.h_seq = Some(s),
            Some(h) if s > h => {
                // Shift the old h_seq (arrived) and its bitmap down by s - h.
                let d = s - h;
                self.bits = if d > BITMAP_LEN { 0 } else { (((self.bits as u64) << 1 | 1) << (d - 1)) as u32 };
                self.h_seq = Some(s);
            }
            Some(h) if s < h && h - s <= BITMAP_LEN => self.bits |= 1 << (h - s - 1),
            Some(_) => {} // a duplicate, or older than the bitmap reaches
        }
    }

    /// (h_seq, bitmap) for the next ACK.
    pub fn ack_fields(&self) -> (u64, u32) {
        (self.h_seq.unwrap_or(0), self.bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Run a packet stream through receiver and sender: `arrivals` in the
    /// order they reach the receiver, `ack_lost(i)` whether the i-th ACK is
    /// lost. Returns each number's responses.
    fn respond(n: u64, arrivals: &[u64], ack_lost: impl Fn(usize) -> bool, end: bool) -> Vec<Vec<Signal>> {
        let (mut rx, mut tx) = (Bitmap::default(), CcAck::default());
        let mut out = vec![Vec::new(); n as usize];
        for (i, &s) in arrivals.iter().enumerate() {
            rx.on_arrival(s);
            if !ack_lost(i) {
                let (h, b) = rx.ack_fields();
                tx.on_ack(h, b, |sig| match sig {
                    Signal::Arrived(x) | Signal::Lost(x) => out[x as usize].push(sig),
                });
            }
        }
        if end {
            tx.expire(n, |sig| match sig {
                Signal::Arrived(x) | Signal::Lost(x) => out[x as usize].push(sig),
            });
        }
        out
    }

    fn fates(out: &[Vec<Signal>]) -> Vec<bool> {
        out.iter()
            .map(|v| {
                assert_eq!(v.len(), 1, "each number is responded to exactly once: {v:?}");
                matches!(v[0], Signal::Arrived(_))
            })
            .collect()
    }

    #[test]
    fn in_order_stream_is_all_arrivals() {
        let a: Vec<u64> = (0..100).collect();
        assert!(fates(&respond(100, &a, |_| false, true)).iter().all(|&x| x));
    }

    #[test]
    fn reordering_by_one_or_two_is_not_loss() {
        // 0 1 3 2 4 6 7 5 8 ... : 2 late by one, 5 late by two.
        let a = [0, 1, 3, 2, 4, 6, 7, 5, 8, 9, 10, 11];
        assert!(fates(&respond(12, &a, |_| false, true)).iter().all(|&x| x));
    }

    #[test]
    fn reordering_by_three_is_a_loss_and_not_undone() {
        // 2 arrives after 5: h_seq = 5 > 2 + 2 declared it lost already.
        let a = [0, 1, 3, 4, 5, 2, 6, 7];
        let f = fates(&respond(8, &a, |_| false, true));
        assert_eq!(f, [true, true, false, true, true, true, true, true]);
    }

    #[test]
    fn lost_acks_lose_nothing_while_the_bitmap_covers_them() {
        let a: Vec<u64> = (0..200).collect();
        // Lose 31 ACKs in a row: the next one still covers them.
        let f = fates(&respond(200, &a, |i| (50..81).contains(&i), true));
        assert!(f.iter().all(|&x| x));
    }

    #[test]
    fn a_gap_longer_than_the_bitmap_counts_as_loss_once() {
        // 40 ACKs lost in a row: numbers older than h_seq - 32 at the next
        // ACK cannot be confirmed, so they count as lost (once).
        let a: Vec<u64> = (0..200).collect();
        let f = fates(&respond(200, &a, |i| (50..90).contains(&i), true));
        let lost: Vec<usize> = (0..200).filter(|&i| !f[i]).collect();
        assert_eq!(lost, (50..58).collect::<Vec<_>>(), "h_seq 90 confirms 58..89 only");
    }

    #[test]
    fn forward_losses_are_counted_exactly() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        let n = 20_000u64;
        let arrived: Vec<bool> = (0..n).map(|_| rng.gen::<f64>() >= 0.05).collect();
        let a: Vec<u64> = (0..n).filter(|&s| arrived[s as usize]).collect();
        // ACK loss 5% as well: the bitmap's redundancy hides it.
        let ack_lost: Vec<bool> = (0..a.len()).map(|_| rng.gen::<f64>() < 0.05).collect();
        let f = fates(&respond(n, &a, |i| ack_lost[i], true));
        assert_eq!(f, arrived, "every loss and only losses are responded to as losses");
    }

    #[test]
    fn old_acks_are_discarded() {
        let mut tx = CcAck::default();
        let mut n = 0;
        tx.on_ack(10, u32::MAX, |_| n += 1);
        assert_eq!(n, 11);
        tx.on_ack(7, u32::MAX, |_| n += 1);
        assert_eq!((n, tx.next), (11, 11));
    }

    #[test]
    fn bitmap_tracks_the_32_numbers_below_h_seq() {
        let mut b = Bitmap::default();
        for s in [0, 1, 2, 4] {
            b.on_arrival(s);
        }
        assert_eq!(b.ack_fields(), (4, 0b1110));
        b.on_arrival(3);
        assert_eq!(b.ack_fields(), (4, 0b1111));
        b.on_arrival(100);
        assert_eq!(b.ack_fields(), (100, 0), "a jump beyond 32 forgets everything");
        b.on_arrival(68);
        assert_eq!(b.ack_fields(), (100, 1 << 31));
        b.on_arrival(67);
        assert_eq!(b.ack_fields(), (100, 1 << 31), "older than the bitmap: ignored");
    }
}
