//! Seeded random streams, one per component.
//!
//! Each component (a lossy link, the start-time spreader, ...) gets its own
//! PCG stream derived from the master seed and a stable component key, so
//! adding a random component elsewhere never perturbs the draws of another,
//! and one seed always gives byte-identical runs.
use rand::{Rng as _, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::math;

pub type Rng = Pcg64Mcg;

/// SplitMix64 finaliser: a well-mixed 64-bit hash of its input.
fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Stream kinds; the discriminant is part of the stream key.
#[derive(Clone, Copy)]
pub enum Stream {
    LinkLoss = 1,
    FlowSetup = 2,
    Controller = 3,
    /// A link's queue discipline (RED's drop draws, ...), keyed by link.
    Queue = 4,
    /// A per-link stage without a stream of its own, keyed by link.
    Stage = 5,
    /// An application instance (a web user's think times, pages, object
    /// sizes), keyed by its `[[flows]]` entry and index in the entry.
    App = 6,
    /// An application driving one flow (Telnet's send times), keyed by
    /// the flow id.
    FlowApp = 7,
    /// A transport agent's own draws (ns-2's per-agent `boot_time_`),
    /// keyed by the flow id.
    Transport = 8,
    /// A TCP sender's `send_jitter_s` delays (ns-2's `overhead_`), keyed
    /// by the flow id: its own stream, so turning the jitter on leaves
    /// every other draw (`boot_time_` included) as it was.
    SendJitter = 9,
    /// A host interface's `host_delay_s` draws (`net::host_delay`),
    /// keyed by the link.
    HostDelay = 10,
    /// A Linux receiver's application reads (`read_delay_s`), keyed by
    /// the flow id.
    AppRead = 11,
}

/// The RNG for component `id` of kind `kind` under master `seed`.
pub fn stream(seed: u64, kind: Stream, id: u64) -> Rng {
    let k = splitmix(splitmix(seed) ^ splitmix((kind as u64) << 48 ^ id));
    let hi = splitmix(k ^ 0xA5A5_A5A5_A5A5_A5A5);
    Rng::new(((hi as u128) << 64) | k as u128)
}

/// U in (0, 1] from one `u64` of `r` (`1 - gen::<f64>()`, whose 53 bits
/// are exact): a heavy tail's inverse CDF, or `ln U`, needs U > 0.
pub fn unit_open0(r: &mut Rng) -> f64 {
    1.0 - r.gen::<f64>()
}

/// An exponential draw of mean `mean` by inversion, `-mean ln U` with U
/// from [`unit_open0`]: exactly one `u64` of `r` per draw, and `ln` from
/// [`math`] so the draw is the same on every platform (rand_distr's
/// ziggurat `Exp1` calls std `exp`/`ln`; see `transport::etcp::sender`).
pub fn exponential(mean: f64, r: &mut Rng) -> f64 {
    -mean * math::ln(unit_open0(r))
}

/// Convenience for code that only needs a seedable generator.
pub fn from_u64(seed: u64) -> Rng {
    Rng::seed_from_u64(seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4).map(|_| 0).scan(stream(7, Stream::LinkLoss, 3), |r, _| Some(r.gen())).collect();
        let b: Vec<u64> = (0..4).map(|_| 0).scan(stream(7, Stream::LinkLoss, 3), |r, _| Some(r.gen())).collect();
        let c: Vec<u64> = (0..4).map(|_| 0).scan(stream(7, Stream::LinkLoss, 4), |r, _| Some(r.gen())).collect();
        let d: Vec<u64> = (0..4).map(|_| 0).scan(stream(8, Stream::LinkLoss, 3), |r, _| Some(r.gen())).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }
}
