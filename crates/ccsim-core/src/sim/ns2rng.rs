//! ns-2.35's default random number generator, draw for draw.
//!
//! ns-2.35 (`tools/rng.cc`, without `OLD_RNG`) draws from L'Ecuyer's
//! MRG32k3a combined multiple recursive generator (L'Ecuyer, Simard, Chen
//! and Kelton, "An object-oriented random-number package with many long
//! streams and substreams", Oper. Res. 50(6), 2002), state kept in six
//! doubles. `$defaultRNG seed S` (`RNG::command` → `set_seed(RAW_SEED_SOURCE,
//! S)` → `set_seed(long)`) sets the package seed to (S, S, S, S, S, S) and
//! starts the default stream there (`init`), so `Random::uniform()` (RED's
//! `drop_early` draw) is `U01()` from that state, and
//! `Random::exponential()` (Telnet's interval) is `-log(U01())`.
//!
//! Why ccsim has it: ccsim's own streams ([`super::rng`]) are per component
//! and independent, which keeps one component's draws from perturbing
//! another's; ns-2 has one stream shared by every consumer in event order.
//! With this generator the consumers that opt in (`rng = "ns2"` on a RED
//! queue or a Telnet application) take ns-2's very draws from one shared
//! stream, so a run can be compared with ns-2's event by event instead of
//! only in distribution (docs/validation.md).
//!
//! Checked against the `ns` binary: `$defaultRNG seed 3` then
//! `$defaultRNG next-random` gives 2165065, 1433739273, 91490185,
//! 567703342 (`floor(2^31 U01())`, `RNG::next`), and seed 12345 gives
//! 272754307 first, which the tests below reproduce.

const M1: f64 = 4_294_967_087.0;
const M2: f64 = 4_294_944_443.0;
const NORM: f64 = 1.0 / (M1 + 1.0);
const A12: f64 = 1_403_580.0;
const A13N: f64 = 810_728.0;
const A21: f64 = 527_612.0;
const A23N: f64 = 1_370_589.0;

/// The largest seed `$defaultRNG seed` accepts (`RAW_SEED_SOURCE`: 0 <
/// seed < MAXINT = 2^31 - 1).
pub const MAX_SEED: u64 = (1 << 31) - 2;

/// ns-2's default stream (`RNG` with `anti_` and `inc_prec_` false).
#[derive(Clone, Debug)]
pub struct Ns2Rng {
    cg: [f64; 6],
}

impl Default for Ns2Rng {
    /// ns-2's stream when nothing seeds it: the package's default seed
    /// (12345 in all six components, `RNG::next_seed_`).
    fn default() -> Self {
        Ns2Rng { cg: [12345.0; 6] }
    }
}

impl Ns2Rng {
    /// The default stream after `$defaultRNG seed seed`; `None` unless
    /// 1 <= seed <= [`MAX_SEED`] (ns-2 aborts on others, and 0 asks it
    /// for a seed from the clock).
    pub fn seeded(seed: u64) -> Option<Self> {
        (1..=MAX_SEED).contains(&seed).then_some(Ns2Rng { cg: [seed as f64; 6] })
    }

    /// `RNG::U01`: uniform on (0, 1), ns-2's `Random::uniform()`.
    pub fn uniform(&mut self) -> f64 {
        let s = &mut self.cg;
        let mut p1 = A12 * s[1] - A13N * s[0];
        p1 -= (p1 / M1).trunc() * M1;
        if p1 < 0.0 {
            p1 += M1;
        }
        s[0] = s[1];
        s[1] = s[2];
        s[2] = p1;
        let mut p2 = A21 * s[5] - A23N * s[3];
        p2 -= (p2 / M2).trunc() * M2;
        if p2 < 0.0 {
            p2 += M2;
        }
        s[3] = s[4];
        s[4] = s[5];
        s[5] = p2;
        if p1 > p2 {
            (p1 - p2) * NORM
        } else {
            (p1 - p2 + M1) * NORM
        }
    }

    /// `Random::exponential()`: `-log(U01())`, mean 1 (the logarithm is
    /// ccsim's portable one, [`super::math::ln`], as in every other draw).
    pub fn exponential(&mut self) -> f64 {
        -super::math::ln(self.uniform())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ns` itself: `$defaultRNG seed 3`, four `$defaultRNG next-random`.
    #[test]
    fn draws_are_ns2s() {
        let mut r = Ns2Rng::seeded(3).unwrap();
        let got: Vec<u64> = (0..4).map(|_| (r.uniform() * 2_147_483_648.0) as u64).collect();
        assert_eq!(got, [2165065, 1433739273, 91490185, 567703342]);
    }

    /// `ns` again, with the package's default seed given explicitly
    /// (`$defaultRNG seed 12345`): the same stream as `Default`.
    #[test]
    fn the_default_stream_is_seed_12345() {
        let u = Ns2Rng::default().uniform();
        assert_eq!((u * 2_147_483_648.0) as u64, 272754307);
        assert_eq!(Ns2Rng::seeded(12345).unwrap().uniform(), u);
    }

    #[test]
    fn only_ns2s_raw_seeds_are_accepted() {
        assert!(Ns2Rng::seeded(0).is_none());
        assert!(Ns2Rng::seeded(MAX_SEED + 1).is_none());
        assert!(Ns2Rng::seeded(MAX_SEED).is_some());
    }
}
