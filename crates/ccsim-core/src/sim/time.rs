//! Simulated time as `u64` picoseconds.
//!
//! Picoseconds make serialisation exact at 100 Gb/s (a 1040-byte packet takes
//! 83,200 ps) while still spanning 213 days, far beyond any experiment.

/// Simulated time in picoseconds.
pub type Time = u64;

pub const PS_PER_S: f64 = 1e12;

/// Seconds (f64) to picoseconds, rounded to the nearest picosecond.
pub fn from_secs(s: f64) -> Time {
    (s * PS_PER_S).round() as Time
}

/// Picoseconds to seconds.
pub fn to_secs(t: Time) -> f64 {
    t as f64 / PS_PER_S
}

/// Time to serialise `bytes` at `rate_bps`, rounded to the nearest picosecond
/// (at least 1 ps so a link can never emit two packets at the same instant).
pub fn tx_time(bytes: u32, rate_bps: f64) -> Time {
    ((bytes as f64 * 8.0 * PS_PER_S / rate_bps).round() as Time).max(1)
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
}
