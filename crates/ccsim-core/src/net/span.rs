//! A table indexed by flow id (or bucket) that spans only the indices seen.
//!
//! Per-link state kept per flow (GWA's last-seen interval, DRR's queues)
//! was a `Vec` indexed from 0, so a host's own access link, which carries
//! one flow, held an entry for every flow id below it: memory quadratic in
//! the number of flows (a million-flow fuzz case was killed at 24 GB).
//! This table holds `[base, base + len)`, growing at either end.
use std::ops::{Index, IndexMut};

#[derive(Clone, Debug, Default)]
pub struct SpanVec<T> {
    base: usize,
    items: Vec<T>,
}

impl<T: Default> SpanVec<T> {
    /// Entry `i`, growing the span (with defaults) to hold it.
    pub fn entry(&mut self, i: usize) -> &mut T {
        if self.items.is_empty() {
            self.base = i;
        } else if i < self.base {
            let k = self.base - i;
            self.items.splice(0..0, std::iter::repeat_with(T::default).take(k));
            self.base = i;
        }
        let j = i - self.base;
        if j >= self.items.len() {
            self.items.resize_with(j + 1, T::default);
        }
        &mut self.items[j]
    }
}

impl<T> SpanVec<T> {
    /// Entry `i` if the span holds it.
    pub fn get(&self, i: usize) -> Option<&T> {
        i.checked_sub(self.base).and_then(|j| self.items.get(j))
    }

    /// Entries held (the span's width, not the indices used).
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

impl<T> Index<usize> for SpanVec<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        &self.items[i - self.base]
    }
}

impl<T> IndexMut<usize> for SpanVec<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.items[i - self.base]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_only_the_indices_seen_at_either_end() {
        let mut t: SpanVec<u64> = SpanVec::default();
        *t.entry(1_000_000) += 1;
        assert_eq!(t.len(), 1);
        *t.entry(999_998) += 5;
        *t.entry(1_000_002) += 7;
        assert_eq!(t.len(), 5);
        assert_eq!((t[999_998], t[999_999], t[1_000_000], t[1_000_002]), (5, 0, 1, 7));
        assert_eq!(t.get(3), None);
        assert_eq!(t.get(1_000_003), None);
    }
}
