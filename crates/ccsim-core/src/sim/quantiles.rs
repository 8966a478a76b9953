//! A delay distribution a user gives by its quantiles (a flow's
//! `host_delay_s`, `read_delay_s`): measured delays of a real host are
//! read off as quantiles, and a draw inverts the piecewise-linear
//! distribution through them, so a run reproduces the measurement's shape
//! (its median and its tail) without a parametric fit.
use crate::sim::rng::Rng;
use crate::sim::time::{from_secs, Time};
use rand::Rng as _;

/// Delays at probabilities 0, 1/(n-1), ..., 1 (nondecreasing; one value:
/// a constant).
#[derive(Clone, Debug, PartialEq)]
pub struct Quantiles(Vec<Time>);

impl Quantiles {
    /// `quantiles_s`: the delays in seconds, validated nonempty, finite,
    /// ≥ 0 and nondecreasing (`scenario::validate`).
    pub fn new(quantiles_s: &[f64]) -> Self {
        assert!(!quantiles_s.is_empty(), "validated: at least one quantile");
        Quantiles(quantiles_s.iter().map(|&q| from_secs(q)).collect())
    }

    /// One delay: the inverse of the piecewise-linear distribution at a
    /// uniform draw from `rng` (no draw for a constant).
    pub fn draw(&self, rng: &mut Rng) -> Time {
        let q = &self.0;
        if q.len() == 1 {
            return q[0];
        }
        let x = rng.gen::<f64>() * (q.len() - 1) as f64;
        let i = (x as usize).min(q.len() - 2);
        let frac = x - i as f64;
        q[i] + ((q[i + 1] - q[i]) as f64 * frac) as Time
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::{stream, Stream};
    use crate::sim::time::to_secs;

    #[test]
    fn draws_follow_the_quantiles() {
        // five points: the delays at 0, 25, 50, 75 and 100%
        let q = [8e-6, 9e-6, 9.5e-6, 11e-6, 28e-6];
        let dist = Quantiles::new(&q);
        let mut r = stream(7, Stream::HostDelay, 3);
        let mut d: Vec<f64> = (0..40_000).map(|_| to_secs(dist.draw(&mut r))).collect();
        d.sort_by(f64::total_cmp);
        let at = |p: f64| d[((d.len() - 1) as f64 * p) as usize];
        for (j, &want) in q.iter().enumerate() {
            let got = at(j as f64 / 4.0);
            assert!((got - want).abs() < 0.15e-6, "quantile {}: {got} against {want}", j as f64 / 4.0);
        }
    }

    #[test]
    fn a_constant_draws_nothing() {
        let dist = Quantiles::new(&[10e-6]);
        let mut r = stream(1, Stream::HostDelay, 0);
        let before = r.clone();
        assert_eq!(dist.draw(&mut r), from_secs(10e-6));
        assert_eq!(r, before, "no draw taken");
    }
}
