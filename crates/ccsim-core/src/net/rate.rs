//! The distinct rates of a topology's links, each with its serialisation
//! memo, shared by every link of that rate.
//!
//! Why shared: a dumbbell of N flows has 4N access links of one or two
//! rates. Each link kept its rate and a memo of its last two packet sizes
//! and their serialisation times (32 bytes); with four links per flow that
//! was 128 bytes a flow, and the memo of a cold access link was one more
//! cold line at each hop (issue 54). A link now names its rate (`RateId`,
//! 4 bytes) and the few rates' memos stay in the core's first-level cache.
//! The memo is a cache of `sim::time::tx_time`, a function of the size and
//! the rate alone, so sharing it changes no result.
use crate::sim::Time;
use std::collections::HashMap;

/// A link's rate: an index into its network's [`LinkRates`].
pub type RateId = u32;

/// One rate and the serialisation times of the last two packet sizes sent
/// at it (a link carries one or two sizes: data, ACK).
#[derive(Clone, Debug)]
struct Rate {
    bps: f64,
    memo_size: [u32; 2],
    memo_time: [Time; 2],
}

/// The rates of a network's links, each once (by its bits: two links of
/// equal rate share an entry).
#[derive(Clone, Debug, Default)]
pub struct LinkRates {
    rates: Vec<Rate>,
    index: HashMap<u64, RateId>,
}

impl LinkRates {
    /// The id of `bps`, added if new.
    pub fn id(&mut self, bps: f64) -> RateId {
        let rates = &mut self.rates;
        *self.index.entry(bps.to_bits()).or_insert_with(|| {
            rates.push(Rate { bps, memo_size: [0; 2], memo_time: [0; 2] });
            (rates.len() - 1) as RateId
        })
    }

    /// The rate in bits per second.
    #[inline]
    pub fn bps(&self, r: RateId) -> f64 {
        self.rates[r as usize].bps
    }

    /// Time to serialise `size` bytes at rate `r` (`sim::time::tx_time`,
    /// memoised for the last two sizes: the same value, computed less often).
    #[inline]
    pub fn tx_time(&mut self, r: RateId, size: u32) -> Time {
        let m = &mut self.rates[r as usize];
        if m.memo_size[0] == size && size != 0 {
            return m.memo_time[0];
        }
        if m.memo_size[1] == size && size != 0 {
            m.memo_size.swap(0, 1);
            m.memo_time.swap(0, 1);
            return m.memo_time[0];
        }
        let t = crate::sim::time::tx_time(size, m.bps);
        m.memo_size = [size, m.memo_size[0]];
        m.memo_time = [t, m.memo_time[0]];
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_rates_share_an_id_and_the_memo_gives_the_computed_time() {
        let mut r = LinkRates::default();
        let (a, b, c) = (r.id(10e9), r.id(1e9), r.id(10e9));
        assert_eq!((a, b, c), (0, 1, 0));
        assert_eq!(r.bps(b), 1e9);
        // three sizes in turn through a two-entry memo, on both rates
        for size in [1500, 52, 1500, 64, 52, 1500, 1500, 0] {
            for id in [a, b] {
                assert_eq!(r.tx_time(id, size), crate::sim::time::tx_time(size, r.bps(id)), "{size} B");
            }
        }
    }
}
