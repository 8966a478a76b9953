//! Disjoint ranges of segments `[start, end)`, ordered: the receiver's
//! out-of-order data and the sender's SACKed ranges.
//!
//! A loss of thousands of segments in one window leaves as many ranges on
//! both sides (B5: 20,000 holes); as B-trees of 12-16-byte ranges these
//! maps would be a fifth of its peak heap
//! (docs/decisions/2026-11-26-sack-ranges-8-bytes.md), so a range is kept
//! in 8 bytes: the low 32 bits of its start and a 32-bit length, in a
//! deque sorted by start. All
//! ranges lie within one window (`rwnd_pkts`, at most `u32::MAX`
//! segments, validated), so a start is rebuilt from the first range's,
//! kept in full, by a wrapping difference, as TCP's own 32-bit sequence
//! numbers are compared. Ranges come and go mostly at the ends (a hole
//! filled at the cumulative ACK, new data above the highest), where a
//! deque is O(1); one in the middle moves the shorter side.
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct Intervals {
    /// (low 32 bits of the start, length), sorted by start.
    ranges: VecDeque<(u32, u32)>,
    /// The first range's start (meaningless while empty).
    first_start: u64,
}

impl Intervals {
    /// Offset of a start (low 32 bits `lo`) above the first range's.
    #[inline]
    fn off(&self, lo: u32) -> u64 {
        lo.wrapping_sub(self.first_start as u32) as u64
    }

    #[inline]
    fn range_at(&self, i: usize) -> (u64, u64) {
        let (lo, len) = self.ranges[i];
        let s = self.first_start + self.off(lo);
        (s, s + len as u64)
    }

    /// Number of ranges starting at or before `seq` (`strict`: before).
    #[inline]
    fn count_upto(&self, seq: u64, strict: bool) -> usize {
        if seq < self.first_start || (strict && seq == self.first_start) || self.ranges.is_empty() {
            return 0;
        }
        let key = seq - self.first_start;
        if strict {
            self.ranges.partition_point(|&(lo, _)| self.off(lo) < key)
        } else {
            self.ranges.partition_point(|&(lo, _)| self.off(lo) <= key)
        }
    }

    /// Index of the range starting at `start`, if one does.
    #[inline]
    fn index_of(&self, start: u64) -> Option<usize> {
        let i = self.count_upto(start, false).checked_sub(1)?;
        (self.range_at(i).0 == start).then_some(i)
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The first range.
    pub fn first(&self) -> Option<(u64, u64)> {
        (!self.ranges.is_empty()).then(|| self.range_at(0))
    }

    /// The last range.
    pub fn last(&self) -> Option<(u64, u64)> {
        self.ranges.len().checked_sub(1).map(|i| self.range_at(i))
    }

    /// The last range starting at or before `seq`.
    pub fn at_or_before(&self, seq: u64) -> Option<(u64, u64)> {
        self.count_upto(seq, false).checked_sub(1).map(|i| self.range_at(i))
    }

    /// The last range starting before `seq`.
    pub fn before(&self, seq: u64) -> Option<(u64, u64)> {
        self.count_upto(seq, true).checked_sub(1).map(|i| self.range_at(i))
    }

    /// The range holding `seq`, if any.
    pub fn containing(&self, seq: u64) -> Option<(u64, u64)> {
        self.at_or_before(seq).filter(|&(_, e)| e > seq)
    }

    /// The end of the range starting at `start`, if one does.
    pub fn end_of(&self, start: u64) -> Option<u64> {
        self.index_of(start).map(|i| self.range_at(i).1)
    }

    /// Add `[start, end)`, which overlaps no range (the caller merges).
    pub fn insert(&mut self, start: u64, end: u64) {
        debug_assert!(end > start);
        const SPAN: &str = "ranges span at most the window, u32::MAX segments";
        let len = u32::try_from(end - start).expect(SPAN);
        let entry = (start as u32, len);
        if self.ranges.is_empty() || start < self.first_start {
            if let Some((last_start, _)) = self.last() {
                assert!(last_start - start <= u32::MAX as u64, "{SPAN}");
            }
            self.ranges.push_front(entry);
            self.first_start = start;
        } else {
            assert!(start - self.first_start <= u32::MAX as u64, "{SPAN}");
            let i = self.count_upto(start, false);
            self.ranges.insert(i, entry);
        }
    }

    /// Remove the range starting at `start`.
    pub fn remove(&mut self, start: u64) {
        if let Some(i) = self.index_of(start) {
            self.remove_at(i);
        }
    }

    /// The `i`th range, in order of start.
    #[inline]
    pub fn get(&self, i: usize) -> (u64, u64) {
        self.range_at(i)
    }

    /// The indices `lo..hi` of the ranges that overlap or touch `[s, e]`
    /// (start at or before `e`, end at or after `s`): a contiguous run,
    /// found from the last range starting at or before `e` down, without
    /// collecting them.
    pub fn touching(&self, s: u64, e: u64) -> std::ops::Range<usize> {
        let hi = self.count_upto(e, false);
        let mut lo = hi;
        while lo > 0 && self.range_at(lo - 1).1 >= s {
            lo -= 1;
        }
        lo..hi
    }

    /// Remove the `i`th range.
    pub fn remove_at(&mut self, i: usize) {
        if i == 0 && self.ranges.len() > 1 {
            self.first_start = self.range_at(1).0;
        }
        self.ranges.remove(i);
        if self.ranges.is_empty() {
            // Storage only while there are holes: an emptied map frees its
            // deque, so that many flows do not each hold the ranges of
            // their worst recovery (S2: about 120 bytes per flow at the
            // run's peak when up to 64 ranges were kept; B5, whose
            // recoveries refill it, level in paired runs).
            self.ranges = VecDeque::new();
        }
    }

    /// The ranges, last first.
    pub fn iter_rev(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        (0..self.ranges.len()).rev().map(|i| self.range_at(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_found_by_their_start_and_by_a_segment_inside() {
        let mut m = Intervals::default();
        assert!(m.is_empty() && m.first().is_none());
        m.insert(10, 13);
        m.insert(20, 21);
        m.insert(5, 7);
        assert_eq!((m.first(), m.last()), (Some((5, 7)), Some((20, 21))));
        assert_eq!(m.at_or_before(10), Some((10, 13)));
        assert_eq!(m.before(10), Some((5, 7)));
        assert_eq!(m.containing(12), Some((10, 13)));
        assert_eq!(m.containing(13), None);
        assert_eq!(m.containing(4), None);
        assert_eq!(m.end_of(10), Some(13));
        assert_eq!(m.end_of(11), None);
        assert_eq!(m.touching(7, 12), 0..2, "(5, 7) touches 7, (10, 13) starts before 12");
        assert_eq!(m.touching(14, 19), 2..2, "none: an empty run where one would go");
        assert_eq!(m.get(1), (10, 13));
        assert_eq!(m.iter_rev().collect::<Vec<_>>(), [(20, 21), (10, 13), (5, 7)]);
        m.remove(10);
        assert_eq!(m.iter_rev().collect::<Vec<_>>(), [(20, 21), (5, 7)]);
    }

    #[test]
    fn a_range_as_long_as_the_largest_window_is_kept_whole() {
        let mut m = Intervals::default();
        let start = 1 << 40;
        m.insert(start, start + u32::MAX as u64);
        assert_eq!(m.first(), Some((start, start + u32::MAX as u64)));
    }

    #[test]
    fn starts_are_rebuilt_across_the_32_bit_wrap() {
        let mut m = Intervals::default();
        let w = 1u64 << 32;
        m.insert(w - 3, w - 1);
        m.insert(w + 5, w + 9);
        m.insert(w - 10, w - 8);
        assert_eq!(m.iter_rev().collect::<Vec<_>>(), [(w + 5, w + 9), (w - 3, w - 1), (w - 10, w - 8)]);
        assert_eq!(m.containing(w + 6), Some((w + 5, w + 9)));
        assert_eq!(m.before(w + 5), Some((w - 3, w - 1)));
        m.remove(w - 10);
        m.remove(w - 3);
        assert_eq!(m.first(), Some((w + 5, w + 9)));
        assert_eq!(m.at_or_before(w - 3), None);
    }

    #[test]
    fn an_emptied_map_gives_back_its_deque() {
        let mut m = Intervals::default();
        for i in 0..1000 {
            m.insert(3 * i, 3 * i + 1);
        }
        for i in 0..1000 {
            m.remove(3 * i);
        }
        assert!(m.is_empty() && m.ranges.capacity() == 0);
    }

    use proptest::prelude::*;
    use std::collections::BTreeMap;

    proptest! {
        /// Every query agrees with an ordered map of (start, end) under any
        /// sequence of inserts of free ranges and removals, near a wrap of
        /// the 32-bit starts.
        #[test]
        fn agrees_with_an_ordered_map(ops in prop::collection::vec((0u8..3, 0u64..400, 1u64..6), 1..300)) {
            let base = (1u64 << 32) - 200;
            let mut m = Intervals::default();
            let mut model: BTreeMap<u64, u64> = BTreeMap::new();
            for (op, at, len) in ops {
                let (s, e) = (base + at, base + at + len);
                if op < 2 {
                    if model.range(..e).next_back().is_none_or(|(_, &me)| me <= s) {
                        m.insert(s, e);
                        model.insert(s, e);
                    }
                } else if let Some((&ms, _)) = model.range(..=s).next_back() {
                    m.remove(ms);
                    model.remove(&ms);
                }
                let r = |(a, b): (&u64, &u64)| (*a, *b);
                prop_assert_eq!(m.first(), model.first_key_value().map(r));
                prop_assert_eq!(m.last(), model.last_key_value().map(r));
                prop_assert_eq!(m.at_or_before(s), model.range(..=s).next_back().map(r));
                prop_assert_eq!(m.before(s), model.range(..s).next_back().map(r));
                prop_assert_eq!(m.end_of(s), model.get(&s).copied());
                prop_assert_eq!(m.containing(s + 1), model.range(..=s + 1).next_back().map(r).filter(|&(_, b)| b > s + 1));
                let touching: Vec<_> = model.range(..=e).map(r).filter(|&(_, b)| b >= s).collect();
                prop_assert_eq!(m.touching(s, e).map(|i| m.get(i)).collect::<Vec<_>>(), touching);
                prop_assert_eq!(m.iter_rev().count(), model.len());
            }
        }
    }
}
