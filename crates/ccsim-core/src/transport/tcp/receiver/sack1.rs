//! The `Agent/TCPSink/Sack1` receiver's SACK blocks (`recovery = "sack1"`,
//! ns-2.35 `tcp-sink.cc`): the blocks ns-2's Sack1 sender
//! ([`crate::transport::tcp::sender::recovery::sack1`]) reads, 8 bytes each
//! on the wire.

/// ns-2's `SackStack` size and the blocks per ACK (`maxSackBlocks_`).
pub const SACK1_BLOCKS: usize = 3;

/// The `Agent/TCPSink/Sack1` receiver's block generator (`Sacker` and its
/// `SackStack`, `tcp-sink.cc`), in ccsim's sequence numbers (the receiver
/// keeps what arrived; this keeps the stack of reported blocks).
#[derive(Clone, Debug, Default)]
pub struct Sacker {
    /// Earlier first blocks, most recent first (`SackStack`, depth 3).
    stack: Vec<(u64, u64)>,
    /// One past the highest segment received (ns-2 `maxseen_ + 1`).
    pub max_seen_end: u64,
}

impl Sacker {
    /// A data segment `seq` arrived (before the ACK is built): track the
    /// highest one seen (`Acker::update`).
    pub fn on_data(&mut self, seq: u64) {
        self.max_seen_end = self.max_seen_end.max(seq + 1);
    }

    /// `Sacker::append_ack`: the blocks of the ACK for segment `seq` (`dup`:
    /// it had arrived before), given the cumulative ACK `rcv_nxt` after it
    /// and `block_of(s)`, the received block `[start, end)` holding segment
    /// `s` above `rcv_nxt`. Returns the number of blocks written to `out`.
    pub fn blocks(
        &mut self,
        seq: u64,
        dup: bool,
        rcv_nxt: u64,
        block_of: impl Fn(u64) -> Option<(u64, u64)>,
        out: &mut [(u64, u64); SACK1_BLOCKS],
    ) -> usize {
        // ns-2: seqno = rcv_nxt - 1, maxseen_ = max_seen_end - 1
        if rcv_nxt >= self.max_seen_end && !self.stack.is_empty() {
            // the cumulative ACK reached the highest segment seen
            self.stack.clear();
            return 0;
        }
        if rcv_nxt >= self.max_seen_end && !dup {
            return 0;
        }
        let mut n = 0;
        // The first block: the one holding `seq`, if above the cumulative
        // ACK; otherwise a block from 0 to the first hole at or above seq
        // (never sent, but it removes covered stack entries).
        let recent = if seq >= rcv_nxt {
            let b = block_of(seq).unwrap_or((seq, seq + 1));
            out[n] = b;
            n += 1;
            b
        } else {
            (0, rcv_nxt)
        };
        let mut k = 0;
        while n < SACK1_BLOCKS && k < self.stack.len() {
            let (l, r) = self.stack[k];
            if r > self.max_seen_end {
                break;
            }
            if recent.0 <= l && recent.1 >= r {
                self.stack.remove(k);
                continue;
            }
            out[n] = (l, r);
            n += 1;
            k += 1;
        }
        if seq >= rcv_nxt {
            self.stack.insert(0, recent);
            self.stack.truncate(SACK1_BLOCKS);
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sacker_reports_the_new_block_first_then_the_stack() {
        // receiver holds 0..5, then 6, 8, 10 arrive (5, 7, 9 lost)
        let got = std::cell::RefCell::new(std::collections::BTreeSet::new());
        for s in 0..5 {
            got.borrow_mut().insert(s);
        }
        let block_of = |s: u64| -> Option<(u64, u64)> {
            let g = got.borrow();
            if !g.contains(&s) {
                return None;
            }
            let mut a = s;
            while a > 0 && g.contains(&(a - 1)) {
                a -= 1;
            }
            let mut b = s + 1;
            while g.contains(&b) {
                b += 1;
            }
            Some((a, b))
        };
        let mut sk = Sacker::default();
        let mut out = [(0, 0); SACK1_BLOCKS];
        for s in 0..5 {
            sk.on_data(s);
        }
        let ack = |s: u64, sk: &mut Sacker, out: &mut [(u64, u64); 3]| {
            got.borrow_mut().insert(s);
            sk.on_data(s);
            let n = sk.blocks(s, false, 5, block_of, out);
            out[..n].to_vec()
        };
        assert_eq!(ack(6, &mut sk, &mut out), vec![(6, 7)]);
        assert_eq!(ack(8, &mut sk, &mut out), vec![(8, 9), (6, 7)]);
        assert_eq!(ack(10, &mut sk, &mut out), vec![(10, 11), (8, 9), (6, 7)]);
        // 11 extends the newest block; its old copy is covered and dropped
        assert_eq!(ack(11, &mut sk, &mut out), vec![(10, 12), (8, 9), (6, 7)]);
    }
}
