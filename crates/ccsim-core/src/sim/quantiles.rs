//! A delay distribution a user gives by its quantiles (a flow's
//! `host_delay_s`, `read_delay_s`): measured delays of a real host are
//! read off as quantiles, and a draw inverts the piecewise-linear
//! distribution through them, so a run reproduces the measurement's shape
//! (its median and its tail) without a parametric fit.
use crate::sim::rng::Rng;
use crate::sim::time::{from_secs, Time};
use rand::Rng as _;

/// Delays at probabilities 0, 1/(n-1), ..., 1 (nondecreasing; one value:
/// a constant), or at probabilities given with them.
///
/// Why given probabilities: equal steps put a measurement's largest delay
/// at the end of a last step that holds a thousandth of the draws, so one
/// stall of 41 ms among 23,600 reads of 0.03-1.4 ms becomes some 23 draws
/// spread evenly up to 41 ms. Points at the measurement's top order
/// statistics (probability k/(m−1) for the k-th of m sorted values) keep
/// the tail as measured: one draw in m beyond the second largest.
#[derive(Clone, Debug, PartialEq)]
pub struct Quantiles {
    q: Vec<Time>,
    /// The probabilities of `q`'s points, from 0 to 1 increasing (none:
    /// equal steps).
    p: Option<Vec<f64>>,
}

impl Quantiles {
    /// `quantiles_s`: the delays in seconds at equal steps of
    /// probability, validated nonempty, finite, ≥ 0 and nondecreasing
    /// (`scenario::validate`).
    pub fn new(quantiles_s: &[f64]) -> Self {
        assert!(!quantiles_s.is_empty(), "validated: at least one quantile");
        Quantiles { q: quantiles_s.iter().map(|&q| from_secs(q)).collect(), p: None }
    }

    /// `quantiles_s` at `probabilities` (validated: as many, at least two,
    /// from 0 to 1 increasing).
    pub fn at(probabilities: &[f64], quantiles_s: &[f64]) -> Self {
        assert!(probabilities.len() == quantiles_s.len() && probabilities.len() >= 2, "validated: paired points");
        Quantiles { p: Some(probabilities.to_vec()), ..Quantiles::new(quantiles_s) }
    }

    /// One delay: the inverse of the piecewise-linear distribution at a
    /// uniform draw from `rng` (no draw for a constant).
    pub fn draw(&self, rng: &mut Rng) -> Time {
        let q = &self.q;
        if q.len() == 1 {
            return q[0];
        }
        let (i, frac) = match &self.p {
            None => {
                let x = rng.gen::<f64>() * (q.len() - 1) as f64;
                let i = (x as usize).min(q.len() - 2);
                (i, x - i as f64)
            }
            Some(p) => {
                let u = rng.gen::<f64>();
                let i = p.partition_point(|&pi| pi <= u).clamp(1, p.len() - 1) - 1;
                (i, ((u - p[i]) / (p[i + 1] - p[i])).clamp(0.0, 1.0))
            }
        };
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
    fn draws_follow_quantiles_at_given_probabilities() {
        // a body at equal steps and one outlier: 1 draw in 1000 lies
        // beyond 1 ms, spread up to 40 ms
        let p = [0.0, 0.5, 0.999, 1.0];
        let q = [10e-6, 20e-6, 1e-3, 40e-3];
        let dist = Quantiles::at(&p, &q);
        let mut r = stream(7, Stream::AppRead, 0);
        let mut d: Vec<f64> = (0..200_000).map(|_| to_secs(dist.draw(&mut r))).collect();
        d.sort_by(f64::total_cmp);
        let at = |p: f64| d[((d.len() - 1) as f64 * p) as usize];
        assert!((at(0.25) - 15e-6).abs() < 0.3e-6, "{}", at(0.25));
        assert!((at(0.5) - 20e-6).abs() < 0.5e-6, "{}", at(0.5));
        assert!((at(0.9) - (20e-6 + 0.8 / 0.998 * 980e-6)).abs() < 10e-6, "{}", at(0.9));
        let beyond = d.iter().filter(|&&x| x > 1e-3).count();
        assert!((150..=250).contains(&beyond), "{beyond} draws beyond 1 ms, 200 expected");
        assert!(d[d.len() - 1] <= 40e-3 && d[d.len() - 1] > 20e-3);
        // the equal steps as given probabilities draw what equal steps do
        let even = [8e-6, 9e-6, 9.5e-6, 11e-6, 28e-6];
        let (a, b) = (Quantiles::new(&even), Quantiles::at(&[0.0, 0.25, 0.5, 0.75, 1.0], &even));
        let (mut ra, mut rb) = (stream(3, Stream::AppRead, 1), stream(3, Stream::AppRead, 1));
        for _ in 0..1000 {
            let (x, y) = (a.draw(&mut ra), b.draw(&mut rb));
            assert!(x.abs_diff(y) <= 1, "{x} against {y}");
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
