//! Exponential draws by the ziggurat method (Marsaglia and Tsang, "The
//! Ziggurat Method for Generating Random Variables", J. Stat. Software
//! 5(8), 2000, §2 and the `zigset`/`REXP` code of its appendix), with
//! tables built from [`math`] so a draw is the same on every platform.
//!
//! Why not inversion (`rng::exponential`, `-ln U`): E-TCP draws one
//! exponential interval per packet sent (its rate timer, §III-C), and at
//! 5 Gb/s the `ln` was 5.5% of the run (`perf`, E5). Here 255 of 256
//! layers are rectangles: a draw is one `u64`, a table read and a multiply
//! in 98.9% of cases; the rest test a wedge against [`math::exp`] or
//! sample the tail with [`math::ln`], and a rejected draw takes another
//! `u64`. Why not rand_distr's `Exp1`, which is also a ziggurat: its
//! wedges and tail call std `exp`/`ln`, whose last bit the platform's C
//! library decides (see `sim::math`).
//!
//! The distribution is exact (the method is a rejection sampler, not an
//! approximation); the sequence of draws differs from inversion's, so a
//! result drawn this way is not the one `-ln U` would give from the same
//! seed.
use super::math;
use super::rng::{unit_open0, Rng};
use rand::RngCore;
use std::sync::OnceLock;

/// Layers of the ziggurat (the low 8 bits of a `u64` pick one).
const N: usize = 256;
/// Right edge of the base layer's rectangle, x_1 = r, and the common
/// area of every layer, v, for 256 layers of e^{-x} (Marsaglia and Tsang,
/// §2: r = 7.69711747013104972, v = 0.0039496598225815571993).
const R: f64 = 7.697_117_470_131_05;
const V: f64 = 0.003_949_659_822_581_557;

/// Layer edges x_0 > x_1 = r > ... > x_256 = 0 and f_i = e^{-x_i}.
struct Tables {
    x: [f64; N + 1],
    f: [f64; N + 1],
}

/// The tables, built once. x_0 = v / f(r) is the width of a rectangle of
/// area v, which the base layer (rectangle up to r plus the tail) has;
/// each x_{i+1} solves x_i (f(x_{i+1}) - f(x_i)) = v, so every layer has
/// area v. With the published r and v the recursion ends at x_256 ≈ 0
/// (checked in the tests), which is set to exactly 0.
fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| {
        let mut x = [0.0; N + 1];
        let mut f = [0.0; N + 1];
        x[0] = V / math::exp(-R);
        x[1] = R;
        for i in 1..N - 1 {
            x[i + 1] = -math::ln(V / x[i] + math::exp(-x[i]));
        }
        x[N] = 0.0;
        for i in 0..=N {
            f[i] = math::exp(-x[i]);
        }
        Tables { x, f }
    })
}

/// An exponential draw of mean 1.
pub fn exp1(r: &mut Rng) -> f64 {
    let t = tables();
    loop {
        let u = r.next_u64();
        let i = (u & 0xff) as usize;
        // The top 53 bits as a uniform in [0, 1), independent of `i`.
        let x = (u >> 11) as f64 * (1.0 / (1u64 << 53) as f64) * t.x[i];
        if x < t.x[i + 1] {
            return x;
        }
        if i == 0 {
            // The tail beyond r: r + Exp(1), by memorylessness.
            return R - math::ln(unit_open0(r));
        }
        // The wedge between the layer's rectangle and the curve: a
        // uniform height in the layer, kept below e^{-x}.
        let y = t.f[i] + unit_open0(r) * (t.f[i + 1] - t.f[i]);
        if y < math::exp(-x) {
            return x;
        }
    }
}

/// An exponential draw of mean `mean`.
#[inline]
pub fn exponential(mean: f64, r: &mut Rng) -> f64 {
    mean * exp1(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::{stream, Stream};

    #[test]
    fn the_layers_close_at_zero_with_equal_areas() {
        // The published r and v are the 256-layer solution: the recursion
        // must land on x_256 = 0 by itself (here: the value before it is
        // forced) and every layer must have area v.
        let t = tables();
        let last = -math::ln(V / t.x[N - 1] + math::exp(-t.x[N - 1]));
        assert!(last.abs() < 1e-9, "x_256 = {last}");
        for i in 1..N {
            let area = t.x[i] * (t.f[i + 1] - t.f[i]);
            assert!((area - V).abs() < 1e-9 * V.max(1.0) + 1e-12, "layer {i}: area {area}");
        }
        // The base layer: rectangle [0, r] x [0, f(r)] plus the tail
        // integral e^{-r}.
        assert!((R * math::exp(-R) + math::exp(-R) - V).abs() < 1e-15);
    }

    #[test]
    fn draws_follow_the_exponential_law() {
        // Kolmogorov-Smirnov against 1 - e^{-x}, and the mean and the
        // tail mass beyond r against their exact values. n = 10^6: the
        // KS 0.1% critical value is 1.95/sqrt(n) = 0.00195 (a sampler
        // that accepted every wedge point, 1.1% of the mass misplaced,
        // gives D = 0.0032); the mean's standard error 1/sqrt(n) = 0.001;
        // P(X > r) = e^{-r} = 4.5e-4, 454 expected draws, sd 21.
        let n = 1_000_000;
        let mut rng = stream(11, Stream::Controller, 0);
        let mut v: Vec<f64> = (0..n).map(|_| exp1(&mut rng)).collect();
        let mean = v.iter().sum::<f64>() / n as f64;
        assert!((mean - 1.0).abs() < 5.0 / (n as f64).sqrt(), "mean {mean}");
        let tail = v.iter().filter(|&&x| x > R).count() as f64;
        let want = n as f64 * math::exp(-R);
        assert!((tail - want).abs() < 5.0 * want.sqrt(), "tail {tail}, want {want}");
        v.sort_by(f64::total_cmp);
        let d = v
            .iter()
            .enumerate()
            .map(|(k, &x)| {
                let cdf = 1.0 - math::exp(-x);
                (cdf - k as f64 / n as f64).abs().max(((k + 1) as f64 / n as f64 - cdf).abs())
            })
            .fold(0.0, f64::max);
        assert!(d < 1.95 / (n as f64).sqrt(), "KS D = {d}");
        assert!(v[0] >= 0.0);
    }

    #[test]
    fn the_same_stream_gives_the_same_draws() {
        let a: Vec<u64> = {
            let mut r = stream(3, Stream::Controller, 9);
            (0..1000).map(|_| exponential(0.5, &mut r).to_bits()).collect()
        };
        let mut r = stream(3, Stream::Controller, 9);
        let b: Vec<u64> = (0..1000).map(|_| exponential(0.5, &mut r).to_bits()).collect();
        assert_eq!(a, b);
    }
}
