//! Summaries of timing samples: exact percentiles of a stored sample (one
//! value per packet) and a log-bucketed histogram for samples too numerous
//! to store (one per event-loop iteration).

use serde_json::{json, Value};

/// Nearest-rank percentile `q` (0..=1) of an ascending slice.
fn rank(sorted: &[i64], q: f64) -> i64 {
    let n = sorted.len();
    let k = ((q * n as f64).ceil() as usize).clamp(1, n);
    sorted[k - 1]
}

/// count, mean, p50, p90, p99, p99.9, min and max of `v` (sorted in place).
pub fn summary(v: &mut [i64]) -> Value {
    if v.is_empty() {
        return json!({ "count": 0 });
    }
    v.sort_unstable();
    let mean = v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64;
    json!({
        "count": v.len(),
        "mean": mean,
        "p50": rank(v, 0.5),
        "p90": rank(v, 0.9),
        "p99": rank(v, 0.99),
        "p99_9": rank(v, 0.999),
        "min": v[0],
        "max": v[v.len() - 1],
    })
}

/// Sub-buckets per power of two: values are kept to within 1/8 (12.5 %).
const SUB: u32 = 8;
const SUB_BITS: u32 = 3;

/// A histogram of non-negative values in log-linear buckets (8 per octave).
#[derive(Debug, Clone)]
pub struct LogHist {
    counts: Vec<u64>,
    total: u64,
    max: u64,
    sum: u128,
}

impl Default for LogHist {
    fn default() -> Self {
        LogHist { counts: vec![0; (64 * SUB) as usize], total: 0, max: 0, sum: 0 }
    }
}

fn bucket(v: u64) -> usize {
    if v < SUB as u64 {
        return v as usize;
    }
    let e = 63 - v.leading_zeros();
    let m = (v >> (e - SUB_BITS)) & (SUB as u64 - 1);
    ((e - SUB_BITS + 1) * SUB) as usize + m as usize
}

/// The largest value that falls in bucket `i`.
fn bucket_upper(i: usize) -> u64 {
    let i = i as u64;
    if i < SUB as u64 {
        return i;
    }
    let e = i / SUB as u64 + SUB_BITS as u64 - 1;
    let m = i % SUB as u64;
    let lo = (1u64 << e) | (m << (e - SUB_BITS as u64));
    lo + (1u64 << (e - SUB_BITS as u64)) - 1
}

impl LogHist {
    pub fn add(&mut self, v: u64) {
        self.counts[bucket(v)] += 1;
        self.total += 1;
        self.max = self.max.max(v);
        self.sum += v as u128;
    }

    /// Upper edge of the bucket holding the nearest-rank `q` quantile.
    fn quantile(&self, q: f64) -> u64 {
        let target = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= target {
                return bucket_upper(i).min(self.max);
            }
        }
        self.max
    }

    /// Like [`summary`], percentiles rounded up to their bucket's edge.
    pub fn summary(&self) -> Value {
        if self.total == 0 {
            return json!({ "count": 0 });
        }
        json!({
            "count": self.total,
            "mean": self.sum as f64 / self.total as f64,
            "p50": self.quantile(0.5),
            "p90": self.quantile(0.9),
            "p99": self.quantile(0.99),
            "p99_9": self.quantile(0.999),
            "max": self.max,
            "resolution": "log buckets, 8 per octave (values within 12.5 %)",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_percentiles() {
        let mut v: Vec<i64> = (1..=1000).rev().collect();
        let s = summary(&mut v);
        assert_eq!(s["p50"], 500);
        assert_eq!(s["p99"], 990);
        assert_eq!(s["p99_9"], 999);
        assert_eq!(s["max"], 1000);
        assert_eq!(s["min"], 1);
    }

    #[test]
    fn buckets_cover_each_value() {
        for v in (0..5000u64).chain([1 << 20, (1 << 20) + 12345, u64::MAX / 3]) {
            let i = bucket(v);
            assert!(bucket_upper(i) >= v, "{v} in bucket {i} up to {}", bucket_upper(i));
            assert!(i == 0 || bucket_upper(i - 1) < v, "{v}: bucket {i} too high");
        }
    }

    #[test]
    fn histogram_quantiles_within_a_bucket() {
        let mut h = LogHist::default();
        for v in 1..=1000 {
            h.add(v);
        }
        let p50 = h.quantile(0.5);
        assert!((500..=500 + 500 / 8).contains(&p50), "{p50}");
        assert_eq!(h.quantile(1.0), 1000);
    }
}
