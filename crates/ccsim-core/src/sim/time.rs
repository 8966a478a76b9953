//! Simulated time as `u64` picoseconds.
//!
//! Picoseconds make serialisation exact at 100 Gb/s (a 1040-byte packet takes
//! 83,200 ps) while still spanning 213 days, far beyond any experiment.

/// Simulated time in picoseconds.
pub type Time = u64;

pub const PS_PER_S: f64 = 1e12;

/// An instant as a `NonMaxU64`, so that an `Option` of it takes 8 bytes,
/// not 16 (it is per-flow state): no run reaches `Time::MAX` (timers
/// stop one short), and `Time::MAX` would be kept as `Time::MAX - 1`.
#[inline]
pub fn nonmax(t: Time) -> nonmax::NonMaxU64 {
    nonmax::NonMaxU64::new(t).unwrap_or(nonmax::NonMaxU64::MAX)
}

/// Seconds (f64) to picoseconds, rounded to the nearest picosecond.
#[inline]
pub fn from_secs(s: f64) -> Time {
    round_to_time(s * PS_PER_S)
}

/// `x.round() as Time`, bit for bit, without a library call: x86-64's
/// baseline has no rounding instruction (SSE4.1's `roundsd`), so
/// `f64::round` is a call into libm's `round`, 2% of E5's time (one per
/// paced packet). Below 2^52 the truncation `t` and the fraction `x - t`
/// are exact, and rounding half away from zero is `t + (x - t >= 0.5)`;
/// from 2^52 on every f64 is an integer. Negative and NaN give 0 and
/// overflow `Time::MAX`, as the saturating cast of the rounded value does.
#[inline]
pub fn round_to_time(x: f64) -> Time {
    const INTEGRAL_FROM: f64 = 4_503_599_627_370_496.0; // 2^52
    if x >= INTEGRAL_FROM {
        return x as Time;
    }
    let t = x as Time;
    t + ((x - t as f64) >= 0.5) as Time
}

/// Picoseconds to seconds.
pub fn to_secs(t: Time) -> f64 {
    t as f64 / PS_PER_S
}

/// Time to serialise `bytes` at `rate_bps`, rounded to the nearest picosecond
/// (at least 1 ps so a link can never emit two packets at the same instant).
pub fn tx_time(bytes: u32, rate_bps: f64) -> Time {
    round_to_time(bytes as f64 * 8.0 * PS_PER_S / rate_bps).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn serialisation_is_exact_at_100g() {
        assert_eq!(tx_time(1040, 100e9), 83_200);
        assert_eq!(tx_time(1040, 1e9), 8_320_000);
        assert_eq!(from_secs(0.1), 100_000_000_000);
        assert!((to_secs(from_secs(1.25)) - 1.25).abs() < 1e-15);
    }
    #[test]
    fn round_to_time_is_the_saturating_cast_of_round() {
        use rand::{Rng, SeedableRng};
        let reference = |x: f64| x.round() as Time;
        let mut edges = vec![
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            -0.5,
            -0.7,
            -1e300,
            0.49999999999999994,
            4503599627370495.5,
            4503599627370496.0,
            9007199254740993.0,
            1.8446744073709552e19,
            1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
            f64::EPSILON,
        ];
        for k in 0..64 {
            let p = (1u128 << k) as f64;
            edges.extend([p, p - 0.5, p + 0.5, p.next_down(), p.next_up(), p + 0.5f64.next_down()]);
        }
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        for _ in 0..200_000 {
            let mag = f64::from_bits(((1023 + rng.gen_range(-4i64..66)) as u64) << 52);
            edges.push(rng.gen::<f64>() * mag);
        }
        for x in edges {
            assert_eq!(round_to_time(x), reference(x), "x = {x:e} ({:#x})", x.to_bits());
        }
    }
}
