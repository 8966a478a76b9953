//! Transcendental functions for everything that feeds a result.
//!
//! Why this module exists (docs/reliability.md, "Determinism"): Rust's `f64::exp`,
//! `ln`, `powf`, `cbrt`, `cos`, ... call the platform's C library (glibc,
//! musl, macOS, Windows) or are constant-folded by LLVM with the build
//! host's. IEEE 754 leaves their last-bit rounding unspecified, and the
//! standard library documents their precision as "non-deterministic ... it
//! varies by platform, Rust version, and can even differ within the same
//! execution". A one-ulp difference can flip a later comparison in the
//! engine and change every number after it. The functions here are the
//! pure-Rust `libm` crate (a port of musl's libm: `exp`, `log`, `pow` and
//! `cos` are FreeBSD msun's fdlibm algorithms, `cbrt` is CORE-MATH's
//! correctly rounded one): ordinary Rust code made of `+ - * /`, exact
//! IEEE operations (`sqrt`, `fma`, `floor`) and bit manipulation, so one
//! input gives one output on every IEEE binary64 target with SSE2-class
//! arithmetic (x86_64, aarch64, ...). The exception is 32-bit x86 without
//! SSE2 (i586), where `libm` uses the x87 unit.
//!
//! The `libm` version is pinned (`=` in Cargo.toml) because its algorithms
//! are part of the results: upgrading it is a behaviour change that must
//! re-bless the golden files. `tests::pinned_bits` notices a change of
//! backend: it pins `libm`'s bits where they and glibc's differ.
//!
//! Enforcement: the workspace `clippy.toml` disallows the `f64`/`f32`
//! methods whose precision std leaves unspecified (`exp`, `ln`, `powf`,
//! `powi`, `cbrt`, `cos`, ...), so a call outside this module fails
//! `cargo clippy -- -D warnings`. This module calls none of them itself.
//! `sqrt`, `floor`, `ceil`, `round`, `abs`, `mul_add` are IEEE-exact and
//! stay as std methods.

/// e^x (`libm::exp`, from FreeBSD msun `e_exp.c`; < 1 ulp).
#[inline]
pub fn exp(x: f64) -> f64 {
    libm::exp(x)
}

/// Natural logarithm (`libm::log`, from FreeBSD msun `e_log.c`; < 1 ulp).
#[inline]
pub fn ln(x: f64) -> f64 {
    libm::log(x)
}

/// x^y for a real exponent (`libm::pow`, from FreeBSD msun `e_pow.c`; < 1 ulp).
#[inline]
pub fn powf(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

/// Cube root (`libm::cbrt`, CORE-MATH's correctly rounded `cbrt`).
#[inline]
pub fn cbrt(x: f64) -> f64 {
    libm::cbrt(x)
}

/// Cosine of x radians (`libm::cos`, from FreeBSD msun `s_cos.c`; < 1 ulp).
#[inline]
pub fn cos(x: f64) -> f64 {
    libm::cos(x)
}

/// x^n for an integer exponent by binary exponentiation, written out so
/// that the sequence of roundings is fixed.
///
/// `f64::powi` lowers to LLVM's `llvm.powi` intrinsic, whose precision std
/// leaves unspecified: at run time it is compiler-rt's `__powidf2`, but
/// with constant arguments LLVM folds it with the host's C `pow`, which
/// rounds differently. This loop is `__powidf2`'s (compiler-rt
/// `lib/builtins/powidf2.c`: `r *= a` when the low bit of `b` is set,
/// `a *= a`, `1 / r` for a negative `b`), so run-time results are
/// unchanged from the `powi` calls it replaces on x86_64. Powers of two
/// (the RTO backoff) are exact either way.
#[inline]
pub fn powi(mut a: f64, n: i32) -> f64 {
    let recip = n < 0;
    let mut b = n.unsigned_abs();
    let mut r = 1.0;
    loop {
        if b & 1 == 1 {
            r *= a;
        }
        b /= 2;
        if b == 0 {
            break;
        }
        a *= a;
    }
    if recip {
        1.0 / r
    } else {
        r
    }
}

/// `x.ceil()` for `x >= 0` (and NaN, infinities), without a call.
///
/// Not for precision (`ceil` is exact): for speed. Without SSE4.1's
/// `roundsd`, which x86_64's baseline lacks, `f64::ceil` is a call into the
/// C library, and GWA's per-packet window stamp and Reno's per-ACK slow
/// start would each pay for one
/// (docs/decisions/2026-11-27-drr-without-context.md). Below 2^52 a
/// non-negative f64 truncates exactly to an integer; at or above it (and
/// for NaN, infinities and both zeros) every value is its own ceiling.
#[inline]
pub fn ceil_nonneg(x: f64) -> f64 {
    debug_assert!(x >= 0.0 || x.is_nan(), "ceil_nonneg of {x}");
    if x >= 4_503_599_627_370_496.0 || x <= 0.0 || x.is_nan() {
        return x; // (and -0.0 stays -0.0)
    }
    // (through i64: one `cvttsd2si`, where u64 needs a branch and a fix-up)
    let t = x as i64 as f64;
    if t < x {
        t + 1.0
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceil_nonneg_is_ceil() {
        let two52 = 4_503_599_627_370_496.0f64;
        let mut xs = vec![0.0, -0.0, 1e-300, 0.5, 1.0, 1.0 + f64::EPSILON, 2.5, 1e6 - 0.25, 12_020.0 * 1040.0 / 3.0];
        xs.extend([two52 - 0.5, two52, two52 + 2.0, 1e300, f64::MAX, f64::INFINITY, f64::NAN]);
        // a sweep of fractions around integers of every magnitude
        for e in 0..60 {
            let v = (1u64 << e) as f64;
            xs.extend([v, v - 0.25, v + 0.75, v * (1.0 + f64::EPSILON), f64::from_bits(v.to_bits() - 1)]);
        }
        for x in xs {
            let (got, want) = (ceil_nonneg(x), x.ceil());
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "ceil({x}) = {got}, want {want}"
            );
        }
    }

    /// `libm`'s results at chosen points, bit for bit, next to the correctly
    /// rounded results derived independently with mpmath at 200 significant
    /// digits (`float(mpmath.exp(mpmath.mpf(x)))`, etc.; each exact value is at
    /// least 0.01 ulp from a rounding boundary, so its rounding is unambiguous).
    /// `libm` is correctly rounded at most points but one ulp off at five:
    /// those were found by comparing 3,000 random arguments per function with
    /// mpmath, and at each of them glibc (std on x86_64 Linux) is correctly
    /// rounded, so they tell the two apart: `exp` differed from glibc at 11%
    /// of the arguments, `powf` 10%, `cos` 3%, `ln` 1.7%, `cbrt` (correctly
    /// rounded in both) none. A change of backend, or a `libm` upgrade that
    /// rounds differently, fails here before it changes a golden file.
    #[test]
    fn pinned_bits() {
        // (function, x, y (powf only), correctly rounded bits, libm's bits);
        // margin: how far (in ulps) the exact value is from the midpoint
        // between two doubles.
        #[rustfmt::skip]
        let cases: [(&str, f64, f64, u64, u64); 23] = [
            ("exp", 1.0, 0.0, 0x4005bf0a8b145769, 0x4005bf0a8b14576a), // 2.718281828459045, margin 0.174  libm 1 ulp off
            ("exp", -0.5, 0.0, 0x3fe368b2fc6f960a, 0x3fe368b2fc6f960a), // 0.6065306597126334, margin 0.494
            ("exp", -4e-05, 0.0, 0x3fefffac1d97cf92, 0x3fefffac1d97cf92), // 0.9999600007999894, margin 0.188
            ("exp", -700.5, 0.0, 0x00c4ff475c68ca02, 0x00c4ff475c68ca02), // 5.980196118639791e-305, margin 0.216
            ("exp", 2.439906248232969, 0.0, 0x4026f1a56b62235f, 0x4026f1a56b622360), // 11.471965175370938, margin 0.305  libm 1 ulp off
            ("ln", 2.0, 0.0, 0x3fe62e42fefa39ef, 0x3fe62e42fefa39ef), // 0.6931471805599453, margin 0.291
            ("ln", 10.0, 0.0, 0x40026bb1bbb55516, 0x40026bb1bbb55516), // 2.302585092994046, margin 0.011
            ("ln", 0.3, 0.0, 0xbff34378fcbda721, 0xbff34378fcbda721), // -1.2039728043259361, margin 0.098
            ("ln", 1e-300, 0.0, 0xc085963447f87fb5, 0xc085963447f87fb5), // -690.7755278982137, margin 0.292
            ("ln", 0.9999999999999999, 0.0, 0xbca0000000000000, 0xbca0000000000000), // -1.1102230246251565e-16, margin 0.250
            ("ln", 11.845090626753073, 0.0, 0x4003c67a9441e613, 0x4003c67a9441e612), // 2.471913488637037, margin 0.061  libm 1 ulp off
            ("powf", 0.998, 251.0, 0x3fe35c479a23ea7e, 0x3fe35c479a23ea7e), // 0.6050146112969086, margin 0.364
            ("powf", 0.25, -0.8333333333333334, 0x400965fea53d6e3d, 0x400965fea53d6e3d), // 3.174802103936399, margin 0.377
            ("powf", 1e-07, 0.835, 0x3eb7f90d85b1a415, 0x3eb7f90d85b1a415), // 1.4288939585111036e-06, margin 0.345
            ("powf", 3.5, 0.7407407407407407, 0x40043c2966ad1130, 0x40043c2966ad1130), // 2.529375841290083, margin 0.449
            ("powf", 1.921106471035723, 1.620348120703686, 0x40070b0c7c68fe71, 0x40070b0c7c68fe72), // 2.8803949088613128, margin 0.249  libm 1 ulp off
            ("cbrt", 75.0, 0.0, 0x4010de601024fb88, 0x4010de601024fb88), // 4.2171633265087465, margin 0.202
            ("cbrt", 750.0, 0.0, 0x40222bd426d7058f, 0x40222bd426d7058f), // 9.085602964160698, margin 0.155
            ("cbrt", 2.5e-05, 0.0, 0x3f9df12316578876, 0x3f9df12316578876), // 0.02924017738212866, margin 0.481
            ("cos", 1.0, 0.0, 0x3fe14a280fb5068c, 0x3fe14a280fb5068c), // 0.5403023058681398, margin 0.071
            ("cos", 1.8849555921538759, 0.0, 0xbfd3c6ef372fe94e, 0xbfd3c6ef372fe94e), // -0.30901699437494734, margin 0.248
            ("cos", 1000000.0, 0.0, 0x3fedf9df9906d32c, 0x3fedf9df9906d32c), // 0.9367521275331447, margin 0.082
            ("cos", 8.695114541665738, 0.0, 0xbfe7da4e9dfe9535, 0xbfe7da4e9dfe9536), // -0.7453988157109622, margin 0.214  libm 1 ulp off
        ];
        for (name, x, y, correct, bits) in cases {
            assert!(correct.abs_diff(bits) <= 1, "{name}({x}, {y}): pinned value more than 1 ulp off");
            let got = match name {
                "exp" => exp(x),
                "ln" => ln(x),
                "powf" => powf(x, y),
                "cbrt" => cbrt(x),
                "cos" => cos(x),
                _ => unreachable!(),
            };
            assert_eq!(
                got.to_bits(),
                bits,
                "{name}({x}, {y}) = {got:e} ({:#018x}), want {:e} ({bits:#018x}); correctly rounded: {:e}",
                got.to_bits(),
                f64::from_bits(bits),
                f64::from_bits(correct)
            );
        }
    }

    /// `powi` is `__powidf2`'s sequence of roundings, spelt out.
    #[test]
    fn powi_rounding_sequence() {
        let x = 1.1f64;
        assert_eq!(powi(x, 0).to_bits(), 1f64.to_bits());
        assert_eq!(powi(x, 1).to_bits(), x.to_bits());
        assert_eq!(powi(x, 2).to_bits(), (x * x).to_bits());
        assert_eq!(powi(x, 3).to_bits(), (x * (x * x)).to_bits());
        assert_eq!(powi(x, 5).to_bits(), (x * ((x * x) * (x * x))).to_bits());
        assert_eq!(powi(x, -3).to_bits(), (1.0 / (x * (x * x))).to_bits());
        // Powers of two are exact down to 2^-1023 (2^1023 is the largest
        // power whose reciprocal `__powidf2` can form).
        for k in 0..=1023 {
            assert_eq!(powi(2.0, -k).to_bits(), if k <= 1022 { (1023 - k as u64) << 52 } else { 1 << 51 });
        }
        assert_eq!(powi(2.0, 30), 1073741824.0);
        assert_eq!(powi(0.0, 0), 1.0);
    }
}
