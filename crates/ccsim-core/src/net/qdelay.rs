//! Queueing delay (sojourn) per link direction: each served packet's time
//! from its arrival at the link's queue to the start of its serialisation
//! (what ns-3's queue discs and Linux's CoDel call sojourn time), kept as a
//! log-linear histogram per sub-queue class and as a sum and maximum per
//! sample interval.
//!
//! **Why a histogram of our own.** Percentiles over millions of packets
//! need a bounded-error summary, not the samples. HdrHistogram (the
//! `hdrhistogram` crate; nothing in Cargo.lock had one) has the right
//! bucket scheme, but it allocates its whole value range up front (tens of
//! kilobytes for picoseconds to seconds at 1%) per link direction, and its
//! serde form is its own compressed encoding. A topology of thousands of
//! links, most of which hardly queue, should pay for the delays it has; so
//! [`DelayHistogram`] is the same log-linear scheme in a vector that
//! covers only the buckets between the smallest and largest delay seen,
//! with waits of zero counted apart, in about a hundred lines.
//!
//! **On request.** Recording costs about 45 instructions per packet that
//! waits (2% of B3's instructions), so links record only when the
//! scenario asks (`Scenario::qdelay`; docs/decisions/2026-11-27-qdelay-opt-in.md).
//!
//! **What is recorded where.** A packet that finds the link idle goes
//! straight into service (`Net::link_arrive`'s idle paths, cut-through,
//! an idle virtual FIFO): its wait is zero and nothing records it, so the
//! per-packet fast paths do no work for this. Every other served packet is
//! recorded, zero or not: by `Net::serve` when the discipline hands it to
//! the serialiser, or, on a virtual FIFO (`net::vfifo`), from its log once
//! the clock has reached its transmission start. The zero waits not
//! recorded are then the link's transmissions less the recorded ones, and
//! the results add them to class 0 ([`DelayRecorder::classes_with_zeros`]),
//! so every packet the link served in the measured period counts once.
use crate::sim::time::to_secs;
use crate::sim::Time;

/// Sub-bucket bits: values below 2^SUB_BITS ps have a bucket each, and
/// every power of two above is split into 2^(SUB_BITS-1) = 64 buckets, so a
/// bucket is at most 1/64 of its lower bound wide and its midpoint is
/// within 1/128 (0.78%) of every value in it.
const SUB_BITS: u32 = 7;
const HALF: u64 = 1 << (SUB_BITS - 1);

/// The bucket of value `v` (ps): `v` itself below 2^SUB_BITS; above, the
/// power of two (its `shift`) and the top SUB_BITS bits of `v`.
#[inline]
fn bucket(v: u64) -> u32 {
    if v < 2 * HALF {
        return v as u32;
    }
    let shift = 63 - v.leading_zeros() - (SUB_BITS - 1);
    (shift as u64 * HALF + (v >> shift)) as u32
}

/// The lowest and highest value of bucket `i` (the inverse of [`bucket`]).
fn bucket_range(i: u32) -> (u64, u64) {
    let i = i as u64;
    if i < 2 * HALF {
        return (i, i);
    }
    let shift = i / HALF - 1;
    let lo = (i - shift * HALF) << shift;
    (lo, lo + ((1u64 << shift) - 1))
}

/// Delays in picoseconds, in log-linear buckets (see [`SUB_BITS`]), with
/// their exact count, sum, smallest nonzero value and maximum.
#[derive(Clone, Debug, PartialEq)]
pub struct DelayHistogram {
    /// Counts of the buckets `first ..`, nonzero delays only.
    counts: Vec<u64>,
    first: u32,
    zeros: u64,
    n: u64,
    sum: u128,
    /// Smallest nonzero delay (`u64::MAX` before the first).
    min: u64,
    max: u64,
}

impl Default for DelayHistogram {
    fn default() -> Self {
        DelayHistogram { counts: Vec::new(), first: 0, zeros: 0, n: 0, sum: 0, min: u64::MAX, max: 0 }
    }
}

/// Percentiles the results report, in units of 1/10,000 (p50, p90, p99,
/// p99.9).
pub const REPORTED: [u32; 4] = [5000, 9000, 9900, 9990];

impl DelayHistogram {
    /// Add one delay of `v` ps: a few instructions, branch-free but for a
    /// bucket outside the range seen so far (a served packet's cost).
    #[inline]
    pub fn record(&mut self, v: u64) {
        self.n += 1;
        if v == 0 {
            self.zeros += 1;
            return;
        }
        self.sum += v as u128;
        self.max = self.max.max(v);
        self.min = self.min.min(v);
        let b = bucket(v);
        match self.counts.get_mut(b.wrapping_sub(self.first) as usize) {
            Some(c) => *c += 1,
            None => self.widen_and_count(b),
        }
    }

    /// Count a delay in bucket `b`, outside the buckets held so far.
    #[cold]
    #[inline(never)]
    fn widen_and_count(&mut self, b: u32) {
        self.record_bucket_range(b, b);
        self.counts[(b - self.first) as usize] += 1;
    }

    /// Add `k` delays of zero.
    pub fn record_zeros(&mut self, k: u64) {
        self.zeros += k;
        self.n += k;
    }

    /// Add every delay of `other`.
    pub fn merge(&mut self, other: &DelayHistogram) {
        if let Some(last) = other.counts.len().checked_sub(1) {
            // Make room for both ends of `other`'s range, then add.
            self.record_bucket_range(other.first, other.first + last as u32);
            let off = (other.first - self.first) as usize;
            for (c, o) in self.counts[off..].iter_mut().zip(&other.counts) {
                *c += o;
            }
        }
        self.zeros += other.zeros;
        self.n += other.n;
        self.sum += other.sum;
        self.max = self.max.max(other.max);
        self.min = self.min.min(other.min);
    }

    /// Widen `counts` to cover buckets `lo..=hi` (a new smallest bucket is
    /// rare once the first delays are in).
    fn record_bucket_range(&mut self, lo: u32, hi: u32) {
        if self.counts.is_empty() {
            self.first = lo;
        } else if lo < self.first {
            self.counts.splice(0..0, std::iter::repeat_n(0, (self.first - lo) as usize));
            self.first = lo;
        }
        let k = (hi - self.first) as usize;
        if k >= self.counts.len() {
            self.counts.resize(k + 1, 0);
        }
    }

    /// Delays recorded.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Exact mean in ps (`None` when empty).
    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum as f64 / self.n as f64)
    }

    /// Exact maximum in ps (`None` when empty).
    pub fn max(&self) -> Option<u64> {
        (self.n > 0).then_some(self.max)
    }

    /// The nearest-rank quantile `q`/10,000 (the smallest recorded delay
    /// with at least ⌈n·q/10,000⌉ delays at or below it), in ps, to within
    /// 0.78%: the midpoint of its bucket, kept within the exact smallest
    /// nonzero and largest delays; the smallest and the largest themselves
    /// (rank 1 above the zeros, rank n), a delay below 128 ps and a
    /// constant delay are exact. `None` when empty.
    pub fn quantile(&self, q: u32) -> Option<u64> {
        if self.n == 0 {
            return None;
        }
        let rank = ((self.n as u128 * q as u128).div_ceil(10_000) as u64).max(1);
        if rank <= self.zeros {
            return Some(0);
        }
        if rank == self.zeros + 1 {
            return Some(self.min);
        }
        if rank == self.n {
            return Some(self.max);
        }
        let mut seen = self.zeros;
        for (k, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, hi) = bucket_range(self.first + k as u32);
                let mid = lo + (hi - lo) / 2;
                return Some(mid.clamp(self.min, self.max));
            }
        }
        unreachable!("the counts add up to n")
    }

    /// The summary the results report, in seconds (NaN when empty: null in
    /// JSON).
    pub fn summary(&self) -> DelaySummary {
        let s = |v: Option<u64>| v.map_or(f64::NAN, to_secs);
        let [p50, p90, p99, p999] = REPORTED.map(|q| s(self.quantile(q)));
        DelaySummary {
            pkts: self.n,
            p50_s: p50,
            p90_s: p90,
            p99_s: p99,
            p999_s: p999,
            mean_s: self.mean().map_or(f64::NAN, |m| m / crate::sim::time::PS_PER_S),
            max_s: s(self.max()),
        }
    }
}

/// A delay distribution as the results give it (seconds; NaN when no
/// packet was served).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct DelaySummary {
    pub pkts: u64,
    pub p50_s: f64,
    pub p90_s: f64,
    pub p99_s: f64,
    pub p999_s: f64,
    pub mean_s: f64,
    pub max_s: f64,
}

/// A link's recorded waits (boxed on the link, made at its first recorded
/// wait: a link that never queues keeps a null pointer).
#[derive(Clone, Debug, Default)]
pub struct DelayRecorder {
    /// Per sub-queue class (`QueueDiscipline::dequeue_class`), since the
    /// measured period began (the warm-up's end, [`DelayRecorder::restart`]).
    classes: Vec<DelayHistogram>,
    /// Sum and maximum of the waits recorded since the last sample
    /// ([`DelayRecorder::take_interval`]), for the link series.
    iv_sum: u128,
    iv_max: Time,
}

impl DelayRecorder {
    /// Record a served packet of `class` that waited `wait`.
    #[inline]
    pub fn record(&mut self, wait: Time, class: usize) {
        match self.classes.get_mut(class) {
            Some(h) => h.record(wait),
            None => self.first_of_class(wait, class),
        }
        self.iv_sum += wait as u128;
        self.iv_max = self.iv_max.max(wait);
    }

    /// The first packet of `class` (and of any class below it not seen).
    #[cold]
    #[inline(never)]
    fn first_of_class(&mut self, wait: Time, class: usize) {
        self.classes.resize_with(class + 1, Default::default);
        self.classes[class].record(wait);
    }

    /// Forget the histograms (not the interval's sum and maximum): the
    /// measured period starts now.
    pub fn restart(&mut self) {
        for h in &mut self.classes {
            *h = DelayHistogram::default();
        }
    }

    /// The waits' sum and maximum since the last call.
    pub fn take_interval(&mut self) -> (u128, Time) {
        let r = (self.iv_sum, self.iv_max);
        (self.iv_sum, self.iv_max) = (0, 0);
        r
    }

    /// The histograms per class (at least `n_classes`), with class 0 given
    /// the `served` packets of the period that no call recorded (those that
    /// found the link idle: zero waits, see the module doc).
    pub fn classes_with_zeros(&self, n_classes: usize, served: u64) -> Vec<DelayHistogram> {
        let mut out = self.classes.clone();
        out.resize_with(n_classes.max(out.len()).max(1), Default::default);
        let recorded: u64 = out.iter().map(DelayHistogram::count).sum();
        debug_assert!(served >= recorded, "served {served} < recorded {recorded}");
        out[0].record_zeros(served.saturating_sub(recorded));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value lands in a bucket whose range holds it, buckets are
    /// contiguous and increasing, and each is at most 1/64 of its lower
    /// bound wide.
    #[test]
    fn buckets_partition_the_values_with_bounded_width() {
        let mut probes: Vec<u64> = (0..5000).collect();
        for e in 7..64 {
            let p = 1u64 << e;
            probes.extend([p - 1, p, p + 1, p + p / 3, p | (p - 1)]);
        }
        probes.push(u64::MAX);
        for v in probes {
            let b = bucket(v);
            let (lo, hi) = bucket_range(b);
            assert!(lo <= v && v <= hi, "v {v} bucket {b} [{lo}, {hi}]");
            assert!((hi - lo) as f64 <= lo as f64 / 64.0, "v {v}: [{lo}, {hi}]");
            if b > 0 {
                assert_eq!(bucket_range(b - 1).1 + 1, lo, "bucket {b} follows {}", b - 1);
            }
        }
        assert_eq!(bucket(u64::MAX), 57 * 64 + 127);
    }

    /// 1..=1000 µs, one each: nearest-rank p50 is 500 µs, p90 900, p99 990,
    /// p99.9 999, each within 0.78%; mean and max exact.
    #[test]
    fn percentiles_of_a_uniform_sample_are_within_the_stated_precision() {
        let us = 1_000_000u64;
        let mut h = DelayHistogram::default();
        // out of order: the vector grows at both ends
        for i in (1..=1000u64).rev().step_by(2).chain((1..=1000u64).step_by(2)) {
            h.record(i * us);
        }
        assert_eq!(h.count(), 1000);
        for (q, want) in [(5000, 500), (9000, 900), (9900, 990), (9990, 999), (10_000, 1000), (1, 1)] {
            let got = h.quantile(q).unwrap() as f64;
            let want = (want * us) as f64;
            assert!((got - want).abs() <= want / 128.0, "q {q}: {got} vs {want}");
        }
        assert_eq!(h.quantile(1), Some(us), "clamped to the exact minimum");
        assert_eq!(h.quantile(10_000), Some(1000 * us), "clamped to the exact maximum");
        assert_eq!(h.mean(), Some(500.5 * us as f64));
        assert_eq!(h.max(), Some(1000 * us));
        let s = h.summary();
        assert_eq!((s.pkts, s.max_s), (1000, 1e-3));
        assert!((s.p99_s - 990e-6).abs() <= 990e-6 / 128.0);
    }

    /// Known distributions against their exact nearest-rank quantiles (the
    /// samples sorted): exponential waits of mean 5 ms (an M/M/1 queue's
    /// sojourn), waits spread log-uniformly from 1 ns to 10 s (every octave
    /// of that range populated, so every bucket width is exercised) and
    /// 1..=100,000 ps in steps of 1 ps (the exact buckets below 128 ps and
    /// the first split ones). At every quantile in steps of 0.01% the
    /// histogram is within 1/128 of the exact value, and the bound is
    /// nearly reached (the error is not far below what the docs state).
    #[test]
    fn quantiles_of_known_distributions_are_within_one_128th() {
        use crate::sim::math;
        // splitmix64: a deterministic uniform source
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut uniform = move || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        };
        let n = 200_000;
        let expo: Vec<u64> = (0..n).map(|_| (-math::ln(1.0 - uniform()) * 5e9) as u64).collect();
        let loguni: Vec<u64> = (0..n).map(|_| (1e3 * math::powf(1e10, uniform())) as u64).collect();
        let ramp: Vec<u64> = (1..=100_000).collect();
        let mut worst = 0.0f64;
        for (name, mut v) in [("exponential", expo), ("log-uniform", loguni), ("ramp", ramp)] {
            let mut h = DelayHistogram::default();
            v.iter().for_each(|&x| h.record(x));
            v.sort_unstable();
            let len = v.len() as u64;
            for q in 1..=10_000u64 {
                let want = v[((len * q).div_ceil(10_000).max(1) - 1) as usize];
                let got = h.quantile(q as u32).unwrap();
                let err = got.abs_diff(want) as f64;
                assert!(err <= want as f64 / 128.0, "{name}: q {q}: {got} vs exact {want}");
                if want > 0 {
                    worst = worst.max(err / want as f64);
                }
            }
            assert_eq!(h.max(), Some(*v.last().unwrap()), "{name}: max");
            let mean = v.iter().map(|&x| x as u128).sum::<u128>() as f64 / len as f64;
            assert_eq!(h.mean(), Some(mean), "{name}: mean");
        }
        eprintln!("worst relative error {worst:.6} (1/128 = {:.6})", 1.0 / 128.0);
        assert!(worst > 1.0 / 160.0 && worst <= 1.0 / 128.0, "worst relative error {worst}");
    }

    /// Zeros count in the ranks; a constant delay is exact; an empty
    /// histogram has no quantiles.
    #[test]
    fn zeros_and_constants() {
        let mut h = DelayHistogram::default();
        assert_eq!(h.quantile(5000), None);
        assert!(h.summary().p50_s.is_nan() && h.summary().mean_s.is_nan());
        for _ in 0..10 {
            h.record(123_456_789);
        }
        h.record_zeros(90);
        assert_eq!(h.quantile(9000), Some(0), "rank 90 of 100 is the last zero");
        assert_eq!(h.quantile(9001), Some(123_456_789), "rank 91 is the constant, exactly");
        assert_eq!(h.quantile(10_000), Some(123_456_789));
        assert_eq!(h.mean(), Some(12_345_678.9));
        // p99.9 of 1000 is rank 999 (integer ranks: no rounding up to
        // 1000, the maximum), whose bucket is [992, 999]
        let mut h = DelayHistogram::default();
        (1..=1000u64).for_each(|v| h.record(v));
        assert_eq!(h.quantile(9990), Some(995));
        assert_eq!(h.quantile(9991), Some(1000));
        // below 128 ps every value has its own bucket
        let mut h = DelayHistogram::default();
        (1..=100u64).for_each(|v| h.record(v));
        assert_eq!([5000, 9000, 9900].map(|q| h.quantile(q)), [Some(50), Some(90), Some(99)]);
    }

    /// Merging equals recording everything into one histogram.
    #[test]
    fn merge_equals_recording_into_one() {
        let (mut a, mut b, mut all) = (DelayHistogram::default(), DelayHistogram::default(), DelayHistogram::default());
        let vals = |k: u64| (k * 7919 % 100_003) * 1_000 + (k % 3);
        for k in 0..3000u64 {
            let v = if k % 10 == 0 { 0 } else { vals(k) };
            let h: &mut DelayHistogram = if k % 3 == 0 { &mut a } else { &mut b };
            h.record(v);
            all.record(v);
        }
        let mut m = b.clone();
        m.merge(&a);
        let mut e = DelayHistogram::default();
        e.merge(&all);
        for h in [&m, &e] {
            assert_eq!((h.n, h.zeros, h.sum, h.min, h.max), (all.n, all.zeros, all.sum, all.min, all.max));
            for q in (0..=10_000).step_by(7) {
                assert_eq!(h.quantile(q), all.quantile(q), "q {q}");
            }
        }
    }

    /// The recorder's intervals and classes, and the zeros it is given.
    #[test]
    fn recorder_keeps_classes_intervals_and_the_unrecorded_zeros() {
        let mut r = DelayRecorder::default();
        r.record(10, 1);
        r.record(30, 1);
        assert_eq!(r.take_interval(), (40, 30));
        assert_eq!(r.take_interval(), (0, 0));
        r.record(5, 0);
        r.restart();
        r.record(7, 0);
        let c = r.classes_with_zeros(2, 5);
        assert_eq!((c[0].count(), c[0].zeros, c[1].count()), (5, 4, 0), "4 unrecorded zeros in class 0");
        assert_eq!(r.take_interval(), (12, 7), "a restart keeps the interval");
        assert_eq!(r.classes_with_zeros(3, 1).len(), 3);
    }
}
