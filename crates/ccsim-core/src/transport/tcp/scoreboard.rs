//! The sender's scoreboard: per-segment state of `[una, high)` and the
//! RFC 6675 quantities derived from it, kept incrementally.
//!
//! Recomputing `SetPipe()` by walking the window on every ACK costs
//! O(window) per ACK, i.e. quadratic time when slow start overshoots a large
//! buffer by thousands of packets. Here every quantity is a counter:
//!
//! - `n_sacked`: SACKed segments in the window;
//! - `lost_hi`: every un-SACKed segment below it is lost (`IsLost`, §4: at
//!   least DupThresh SACKed segments above it). SACKs only accumulate, so the
//!   boundary only rises; it is the DupThresh-th highest SACKed segment;
//! - `n_lost`: un-SACKed segments below `lost_hi`;
//! - `n_retx`: retransmitted segments neither SACKed nor acknowledged.
//!
//! so `pipe = outstanding − n_sacked − n_lost + n_retx`, which is SetPipe()'s
//! sum (a lost segment counts once if retransmitted, a retransmitted segment
//! not yet deemed lost counts twice). SACKed ranges are kept sorted
//! (`Intervals`) so a SACK block already known costs O(log n) (a new range
//! below the highest moves the ranges on its shorter side, rare: blocks
//! mostly grow the highest range or start one above it), and the boundary
//! and the retransmission cursor only move forward: total work is linear in
//! the number of segments sent. Reno and NewReno use the same board without
//! SACK information (losses are marked by dupacks and partial ACKs).
use super::intervals::Intervals;
use std::collections::VecDeque;

const SACKED: u8 = 1;
const RETX: u8 = 2;

/// What a scoreboard holds only while a segment is SACKed or
/// retransmitted: a flag per segment of `[base, high)` and the SACKed
/// ranges. Boxed and made when the first flag is set, dropped when the
/// last one clears: a flow without holes (nearly every flow, nearly all
/// the time, in a run of many) would otherwise keep a window's worth of
/// zero bytes and 72 bytes of empty containers.
#[derive(Clone, Debug, Default)]
struct Holes {
    flags: VecDeque<u8>,
    sacked: Intervals,
}

#[derive(Clone, Debug)]
pub struct Scoreboard {
    base: u64,
    /// One past the highest segment sent.
    high: u64,
    /// Present exactly while `n_sacked + n_retx > 0` ([`Holes`]).
    holes: Option<Box<Holes>>,
    lost_hi: u64,
    /// Retransmission cursor (one past RFC 6675's HighRxt).
    scan: u64,
    /// Segments ever marked lost (Linux `tp->lost`), for rate samples.
    marked_lost: u64,
    /// Segment counts within the window, which is far below 2^32 segments.
    n_sacked: u32,
    n_lost: u32,
    n_retx: u32,
    dupthresh: u32,
}

impl Scoreboard {
    pub fn new(dupthresh: u32) -> Self {
        Scoreboard {
            base: 0,
            high: 0,
            holes: None,
            lost_hi: 0,
            scan: 0,
            marked_lost: 0,
            n_sacked: 0,
            n_lost: 0,
            n_retx: 0,
            dupthresh: dupthresh.max(1),
        }
    }

    pub fn una(&self) -> u64 {
        self.base
    }
    pub fn high(&self) -> u64 {
        self.high
    }
    pub fn outstanding(&self) -> u64 {
        self.high - self.base
    }
    pub fn lost_hi(&self) -> u64 {
        self.lost_hi
    }
    pub fn n_sacked(&self) -> u64 {
        self.n_sacked as u64
    }
    pub fn n_lost(&self) -> u64 {
        self.n_lost as u64
    }
    pub fn n_retx(&self) -> u64 {
        self.n_retx as u64
    }
    /// Segments ever marked lost, counting a segment again when a timeout
    /// marks its retransmission lost.
    pub fn marked_lost(&self) -> u64 {
        self.marked_lost
    }
    /// RFC 6675 `pipe`, in segments.
    pub fn pipe(&self) -> u64 {
        self.outstanding() - self.n_sacked() - self.n_lost() + self.n_retx()
    }
    /// One past the highest SACKed segment (or `una` if none).
    pub fn high_sacked(&self) -> u64 {
        self.sacked().and_then(|r| r.last()).map_or(self.base, |(_, e)| e)
    }
    pub fn is_sacked(&self, seq: u64) -> bool {
        seq >= self.base && seq < self.high && self.flag(seq) & SACKED != 0
    }

    /// The SACKed ranges, if any segment is SACKed or retransmitted.
    fn sacked(&self) -> Option<&Intervals> {
        self.holes.as_deref().map(|h| &h.sacked)
    }

    /// The flags of outstanding segment `seq`.
    fn flag(&self, seq: u64) -> u8 {
        self.holes.as_deref().map_or(0, |h| h.flags[(seq - self.base) as usize])
    }

    /// The holes, made with every outstanding segment's (clear) flag
    /// before one is set.
    fn holes_mut(&mut self) -> &mut Holes {
        let n = (self.high - self.base) as usize;
        self.holes.get_or_insert_with(|| {
            let mut h = Box::<Holes>::default();
            h.flags.resize(n, 0);
            h
        })
    }

    /// Drop the holes once no flag is set (SACKed and retransmitted
    /// segments are the ones counted by `n_sacked` and `n_retx`; with none
    /// SACKed, every SACKed range lies below `base`).
    fn release_if_clear(&mut self) {
        if self.n_sacked == 0 && self.n_retx == 0 {
            self.holes = None;
        }
    }

    /// A new segment `high()` was sent.
    pub fn on_send_new(&mut self) {
        self.high += 1;
        if let Some(h) = self.holes.as_deref_mut() {
            h.flags.push_back(0);
        }
    }

    /// Cumulative ACK: everything below `ack` is acknowledged.
    pub fn advance(&mut self, ack: u64) {
        let ack = ack.min(self.high);
        let Some(h) = self.holes.as_deref_mut() else {
            // Every flag clear: the acknowledged segments are neither
            // SACKed nor retransmitted, and those below `lost_hi` were lost.
            if ack > self.base {
                self.n_lost -= (ack.min(self.lost_hi.max(self.base)) - self.base) as u32;
                self.base = ack;
            }
            self.lost_hi = self.lost_hi.max(self.base);
            self.scan = self.scan.max(self.base);
            return;
        };
        while self.base < ack {
            let f = h.flags.pop_front().expect("segment below high");
            if f & SACKED != 0 {
                self.n_sacked -= 1;
            } else {
                if self.base < self.lost_hi {
                    self.n_lost -= 1;
                }
                if f & RETX != 0 {
                    self.n_retx -= 1;
                }
            }
            self.base += 1;
        }
        while let Some((s, e)) = h.sacked.first() {
            if e <= self.base {
                h.sacked.remove(s);
            } else {
                if s < self.base {
                    h.sacked.remove(s);
                    h.sacked.insert(self.base, e);
                }
                break;
            }
        }
        self.release_if_clear();
        self.lost_hi = self.lost_hi.max(self.base);
        self.scan = self.scan.max(self.base);
    }

    /// Stop marking losses by DupThresh SACKed segments above (RFC 6675's
    /// `IsLost`): RACK marks them instead (Linux runs no DupThresh rule
    /// with RACK, `tcp_fastretrans_alert`).
    pub fn without_dupthresh_marking(mut self) -> Self {
        self.dupthresh = 0;
        self
    }

    /// Record a SACK block `[start, end)` and update the loss boundary.
    pub fn mark_sacked(&mut self, start: u64, end: u64) {
        self.mark_sacked_with(start, end, |_, _| {});
    }

    /// [`Self::mark_sacked`], calling `newly(s, e)` for each range of
    /// segments it SACKs for the first time (delivery-rate sampling). The
    /// ranges are the ones marked anyway, so the total work stays linear.
    pub fn mark_sacked_with(&mut self, start: u64, end: u64, mut newly: impl FnMut(u64, u64)) {
        let (s, e) = (start.max(self.base), end.min(self.high));
        if s >= e {
            return;
        }
        // The ranges overlapping or touching [s, e), in order (indices: no
        // allocation per SACK block, which with thousands of flows was a
        // malloc per ACK).
        let touching = self.holes_mut().sacked.touching(s, e);
        let mut cur = s;
        let (mut lo, mut hi) = (s, e);
        for i in touching.clone() {
            let (rs, re) = self.holes_mut().sacked.get(i);
            if rs > cur {
                self.mark_range(cur, rs.min(e));
                newly(cur, rs.min(e));
            }
            cur = cur.max(re);
            lo = lo.min(rs);
            hi = hi.max(re);
        }
        if cur < e {
            self.mark_range(cur, e);
            newly(cur, e);
        }
        let ranges = &mut self.holes_mut().sacked;
        for _ in touching.clone() {
            ranges.remove_at(touching.start);
        }
        ranges.insert(lo, hi);
        if self.dupthresh > 0 {
            if let Some(b) = self.nth_highest_sacked(self.dupthresh as u64) {
                self.mark_lost_below(b);
            }
        }
    }

    fn mark_range(&mut self, s: u64, e: u64) {
        let base = self.base;
        let flags = &mut self.holes.as_deref_mut().expect("made by mark_sacked_with").flags;
        for seq in s..e {
            let i = (seq - base) as usize;
            let f = flags[i];
            if f & SACKED != 0 {
                continue;
            }
            flags[i] = SACKED;
            self.n_sacked += 1;
            if seq < self.lost_hi {
                self.n_lost -= 1;
            }
            if f & RETX != 0 {
                self.n_retx -= 1;
            }
        }
    }

    /// The `n`-th highest SACKed segment, if at least `n` are SACKed.
    fn nth_highest_sacked(&self, n: u64) -> Option<u64> {
        let mut need = n;
        for (s, e) in self.sacked()?.iter_rev() {
            let len = e - s;
            if len >= need {
                return Some(e - need);
            }
            need -= len;
        }
        None
    }

    /// Every un-SACKed segment below `b` is lost.
    pub fn mark_lost_below(&mut self, b: u64) {
        let b = b.min(self.high);
        let Some(h) = self.holes.as_deref() else {
            if self.lost_hi < b {
                self.n_lost += (b - self.lost_hi) as u32;
                self.marked_lost += b - self.lost_hi;
                self.lost_hi = b;
            }
            return;
        };
        while self.lost_hi < b {
            if h.flags[(self.lost_hi - self.base) as usize] & SACKED == 0 {
                self.n_lost += 1;
                self.marked_lost += 1;
            }
            self.lost_hi += 1;
        }
    }

    /// The first segment at or after the cursor that is neither SACKed nor
    /// already retransmitted (RFC 6675 NextSeg rules 1 and 3 candidates).
    pub fn next_unsent_hole(&mut self) -> Option<u64> {
        let high = self.high;
        if let Some(h) = self.holes.as_deref() {
            while self.scan < high && h.flags[(self.scan - self.base) as usize] & (SACKED | RETX) != 0 {
                self.scan += 1;
            }
        }
        (self.scan < high).then_some(self.scan)
    }

    /// Segment `seq` (below `high`) was retransmitted.
    pub fn mark_retx(&mut self, seq: u64) {
        if seq < self.base {
            return; // already acknowledged (ns-2 Sack1's go-back-N may resend it)
        }
        let i = (seq - self.base) as usize;
        let f = &mut self.holes_mut().flags[i];
        let newly = *f & (RETX | SACKED) == 0;
        if newly {
            *f |= RETX;
        }
        self.n_retx += newly as u32;
        self.scan = self.scan.max(seq + 1);
    }

    /// The first outstanding segment is to go out again although a
    /// go-back-N resend already covered it (ns-2's `output(last_ack_ + 1)`
    /// at a duplicate ACK after a timeout): the next hole is it.
    pub fn resend_first(&mut self) {
        if let Some(f) = self.holes.as_deref_mut().and_then(|h| h.flags.front_mut()).filter(|f| **f & RETX != 0) {
            *f &= !RETX;
            self.n_retx -= 1;
        }
        self.release_if_clear();
        self.scan = self.base;
    }

    /// Segment `seq` is outstanding, not SACKed, and retransmitted.
    pub fn is_retx(&self, seq: u64) -> bool {
        seq >= self.base && seq < self.high && self.flag(seq) & (RETX | SACKED) == RETX
    }

    /// The retransmission of lost segment `seq` is lost too (RACK,
    /// RFC 8985 §6.2): it is a hole to resend again.
    pub fn retx_lost(&mut self, seq: u64) {
        if !self.is_retx(seq) {
            return;
        }
        let base = self.base;
        if let Some(h) = self.holes.as_deref_mut() {
            h.flags[(seq - base) as usize] &= !RETX;
        }
        self.n_retx -= 1;
        self.marked_lost += 1;
        self.scan = self.scan.min(seq);
        self.release_if_clear();
    }

    /// A retransmission timeout that deems lost only what lies below `b`
    /// (Linux's `tcp_timeout_mark_lost` with RACK: the head and what RACK's
    /// time has passed): every retransmission is lost, the boundary rises
    /// to `b`, the rest stays in flight. `on_rto_below(high())` is
    /// [`Self::on_rto`].
    pub fn on_rto_below(&mut self, b: u64) {
        if let Some(h) = self.holes.as_deref_mut() {
            for f in h.flags.iter_mut() {
                *f &= !RETX;
            }
        }
        self.marked_lost += self.n_retx as u64;
        self.n_retx = 0;
        self.mark_lost_below(b.clamp(self.base, self.high));
        self.release_if_clear();
        self.scan = self.base;
    }

    /// Nothing is deemed lost any more (Linux `tcp_undo_cwnd_reduction`
    /// with `unmark_loss`: a loss proven spurious): the boundary returns to
    /// una; retransmissions still out count in the pipe beside their
    /// originals, as Linux's `retrans_out` does.
    pub fn unmark_lost(&mut self) {
        self.lost_hi = self.base;
        self.n_lost = 0;
    }

    /// The highest un-SACKed outstanding segment (rescue retransmission).
    pub fn highest_unsacked(&self) -> Option<u64> {
        let mut seq = self.high();
        for (s, e) in self.sacked().into_iter().flat_map(|r| r.iter_rev()) {
            if e < seq {
                break;
            }
            seq = s;
        }
        (seq > self.base).then(|| seq - 1)
    }

    /// Retransmission timeout: every un-SACKed segment is lost and no
    /// retransmission is in flight any more (RFC 6675 §5.1 keeps SACK data).
    pub fn on_rto(&mut self) {
        if let Some(h) = self.holes.as_deref_mut() {
            for f in h.flags.iter_mut() {
                *f &= !RETX;
            }
        }
        // newly lost: the segments not yet deemed lost, and the lost ones
        // whose retransmission is now deemed lost too
        self.marked_lost += self.pipe();
        self.n_retx = 0;
        self.lost_hi = self.high;
        self.n_lost = (self.outstanding() - self.n_sacked()) as u32;
        self.release_if_clear();
        self.scan = self.base;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SetPipe() by its RFC 6675 definition, walking the window.
    fn pipe_by_definition(sb: &Scoreboard) -> u64 {
        (sb.base..sb.high())
            .filter(|&s| !sb.is_sacked(s))
            .map(|s| {
                // (`dupthresh` 0: RACK marks losses, not the SACK count)
                let by_sacks = sb.dupthresh > 0
                    && (s + 1..sb.high()).filter(|&t| sb.is_sacked(t)).count() as u64 >= sb.dupthresh as u64;
                let lost = by_sacks || s < sb.lost_hi;
                let retx = sb.flag(s) & RETX != 0;
                (!lost) as u64 + retx as u64
            })
            .sum()
    }

    #[test]
    fn sack_marks_losses_below_the_third_highest_sacked() {
        let mut sb = Scoreboard::new(3);
        for _ in 0..10 {
            sb.on_send_new();
        }
        sb.mark_sacked(2, 4);
        assert_eq!(sb.lost_hi(), 0);
        sb.mark_sacked(5, 6);
        // sacked 2,3,5: third highest is 2, so 0 and 1 are lost
        assert_eq!(sb.lost_hi(), 2);
        assert_eq!(sb.n_lost(), 2);
        assert_eq!(sb.pipe(), 10 - 3 - 2);
        assert_eq!(sb.pipe(), pipe_by_definition(&sb));
        assert_eq!(sb.next_unsent_hole(), Some(0));
        sb.mark_retx(0);
        assert_eq!(sb.pipe(), pipe_by_definition(&sb));
        assert_eq!(sb.next_unsent_hole(), Some(1));
        sb.mark_sacked(7, 9);
        // sacked 2,3,5,7,8: third highest is 5 -> 4 lost too
        assert_eq!(sb.n_lost(), 3);
        assert_eq!(sb.pipe(), pipe_by_definition(&sb));
        sb.advance(4);
        assert_eq!(sb.una(), 4);
        assert_eq!(sb.pipe(), pipe_by_definition(&sb));
        assert_eq!(sb.highest_unsacked(), Some(9));
    }

    /// The flags exist only while one is set, and every counter keeps its
    /// definition across the moves between no storage and storage: losses
    /// marked without SACK (NewReno's dupacks, a timeout), retransmissions,
    /// SACKs and cumulative ACKs in random order.
    #[test]
    fn flags_exist_only_while_one_is_set() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        let mut sb = Scoreboard::new(3);
        let mut stored = 0;
        for round in 0..2000 {
            for _ in 0..rng.gen_range(0..4) {
                sb.on_send_new();
            }
            let (b, h) = (sb.una(), sb.high());
            match rng.gen_range(0..6) {
                0 if h > b => {
                    let s = rng.gen_range(b..h);
                    sb.mark_sacked(s, rng.gen_range(s..=h.min(s + 3)));
                }
                1 => sb.mark_lost_below(rng.gen_range(b..=h)),
                2 => {
                    if let Some(x) = sb.next_unsent_hole() {
                        sb.mark_retx(x);
                    }
                }
                3 => sb.advance(rng.gen_range(b..=h)),
                4 if round % 50 == 0 => sb.on_rto(),
                5 if round % 30 == 0 => sb.resend_first(),
                _ => {}
            }
            let set = sb.n_sacked + sb.n_retx > 0;
            assert_eq!(sb.holes.is_some(), set, "round {round}: storage only while a flag is set");
            stored += set as u32;
            let lost = (sb.una()..sb.lost_hi().max(sb.una())).filter(|&s| !sb.is_sacked(s)).count() as u64;
            assert_eq!(sb.n_lost(), lost, "round {round}");
            assert_eq!(sb.pipe(), pipe_by_definition(&sb), "round {round}");
        }
        assert!(stored > 100 && stored < 1900, "both states visited: {stored}");
    }

    /// One random round: up to four new segments, then (with anything
    /// outstanding) a random SACK block of up to four; `(una, high)` then.
    fn send_and_sack(rng: &mut rand_pcg::Pcg64Mcg, sb: &mut Scoreboard) -> Option<(u64, u64)> {
        use rand::Rng;
        for _ in 0..rng.gen_range(0..5) {
            sb.on_send_new();
        }
        let (b, h) = (sb.una(), sb.high());
        if h <= b {
            return None;
        }
        let s = rng.gen_range(b..h);
        let e = rng.gen_range(s..=h.min(s + 4));
        sb.mark_sacked(s, e);
        Some((b, h))
    }

    #[test]
    fn counters_match_definition_under_random_sacks() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        let mut sb = Scoreboard::new(3);
        for round in 0..300 {
            if let Some((b, h)) = send_and_sack(&mut rng, &mut sb) {
                if rng.gen_bool(0.3) {
                    if let Some(x) = sb.next_unsent_hole() {
                        sb.mark_retx(x);
                    }
                }
                if rng.gen_bool(0.2) {
                    let a = rng.gen_range(b..=h);
                    sb.advance(a);
                }
                if round % 97 == 0 {
                    sb.on_rto();
                }
            }
            assert_eq!(sb.pipe(), pipe_by_definition(&sb), "round {round}");
            let sacked = (sb.una()..sb.high()).filter(|&s| sb.is_sacked(s)).count() as u64;
            assert_eq!(sb.n_sacked(), sacked);
        }
    }

    /// RACK's operations (`tcp_model = "linux"`): no DupThresh marking, a
    /// boundary raised to arbitrary segments, lost retransmissions made
    /// holes again, timeouts that mark only a prefix. The counters stay
    /// SetPipe()'s sum, a lost retransmission is the next hole, and
    /// `on_rto_below(high())` is `on_rto`.
    #[test]
    fn rack_operations_keep_the_counters() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        let mut sb = Scoreboard::new(3).without_dupthresh_marking();
        for round in 0..400 {
            let lost_hi = sb.lost_hi();
            if let Some((b, h)) = send_and_sack(&mut rng, &mut sb) {
                assert_eq!(sb.lost_hi(), lost_hi, "SACKs alone mark nothing");
                if rng.gen_bool(0.4) {
                    sb.mark_lost_below(rng.gen_range(b..=h));
                }
                if rng.gen_bool(0.3) {
                    if let Some(x) = sb.next_unsent_hole().filter(|&x| x < sb.lost_hi()) {
                        sb.mark_retx(x);
                    }
                }
                if rng.gen_bool(0.2) {
                    let x = rng.gen_range(b..h);
                    if sb.is_retx(x) && x < sb.lost_hi() {
                        let pipe = sb.pipe();
                        sb.retx_lost(x);
                        assert_eq!(sb.pipe(), pipe - 1);
                        assert!(sb.next_unsent_hole().is_some_and(|n| n <= x), "the lost retransmission is a hole");
                    }
                }
                if rng.gen_bool(0.15) {
                    sb.advance(rng.gen_range(b..=h));
                }
                if round % 53 == 0 {
                    sb.on_rto_below(rng.gen_range(sb.una()..=sb.high()));
                }
            }
            assert_eq!(sb.pipe(), pipe_by_definition(&sb), "round {round}");
            let sacked = (sb.una()..sb.high()).filter(|&s| sb.is_sacked(s)).count() as u64;
            assert_eq!(sb.n_sacked(), sacked);
        }
        let mut a = sb.clone();
        a.on_rto();
        sb.on_rto_below(sb.high());
        assert_eq!(
            (a.pipe(), a.n_lost(), a.n_retx(), a.marked_lost()),
            (sb.pipe(), sb.n_lost(), sb.n_retx(), sb.marked_lost())
        );
    }
}
