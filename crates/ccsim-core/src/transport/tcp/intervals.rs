//! Disjoint ranges of segments `[start, end)`, ordered: the receiver's
//! out-of-order data and the sender's SACKed ranges.
//!
//! A range never spans more than the window (`rwnd_pkts`, at most
//! `u32::MAX` segments, validated), so it is kept as its start and a
//! 32-bit length: a B-tree leaf of eleven ranges is 152 bytes instead of
//! 192 with a 64-bit end. A loss of thousands of segments in one window
//! leaves as many ranges on both sides (B5: 20,000 holes), and these maps
//! were a fifth of its peak heap (docs/performance.md).
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default)]
pub struct Intervals {
    len_of: BTreeMap<u64, u32>,
}

#[inline]
fn range((&s, &len): (&u64, &u32)) -> (u64, u64) {
    (s, s + len as u64)
}

impl Intervals {
    pub fn is_empty(&self) -> bool {
        self.len_of.is_empty()
    }

    /// The first range.
    pub fn first(&self) -> Option<(u64, u64)> {
        self.len_of.first_key_value().map(range)
    }

    /// The last range.
    pub fn last(&self) -> Option<(u64, u64)> {
        self.len_of.last_key_value().map(range)
    }

    /// The last range starting at or before `seq`.
    pub fn at_or_before(&self, seq: u64) -> Option<(u64, u64)> {
        self.len_of.range(..=seq).next_back().map(range)
    }

    /// The last range starting before `seq`.
    pub fn before(&self, seq: u64) -> Option<(u64, u64)> {
        self.len_of.range(..seq).next_back().map(range)
    }

    /// The range holding `seq`, if any.
    pub fn containing(&self, seq: u64) -> Option<(u64, u64)> {
        self.at_or_before(seq).filter(|&(_, e)| e > seq)
    }

    /// The end of the range starting at `start`, if one does.
    pub fn end_of(&self, start: u64) -> Option<u64> {
        self.len_of.get(&start).map(|&len| start + len as u64)
    }

    /// Add `[start, end)`, which overlaps no range (the caller merges).
    pub fn insert(&mut self, start: u64, end: u64) {
        debug_assert!(end > start);
        let len = u32::try_from(end - start).expect("a range spans at most the window, u32::MAX segments");
        self.len_of.insert(start, len);
    }

    /// Remove the range starting at `start`.
    pub fn remove(&mut self, start: u64) {
        self.len_of.remove(&start);
    }

    /// The ranges from the last down to the one starting at or before `seq`.
    pub fn rev_to(&self, seq: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.len_of.range(..=seq).rev().map(range)
    }

    /// The ranges, last first.
    pub fn iter_rev(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.len_of.iter().rev().map(range)
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
        assert_eq!(m.rev_to(12).collect::<Vec<_>>(), [(10, 13), (5, 7)]);
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
}
