//! Power sums `Σ_t x_t^s mod p` with one exponent shared by all values.
//!
//! The exponent is first reduced by Fermat's little theorem (see [`reduced_exponent`]),
//! so `s` up to 2^64 costs no more than `s < p`.
//!
//! The fast variants raise *plain* residues with Montgomery products instead of first
//! converting each value to Montgomery form: a left-to-right square-and-multiply that
//! starts from `x` keeps the invariant `acc = x^k·R^-(k-1)` (`R = 2^32`), since
//! `REDC(x^a R^-(a-1) · x^b R^-(b-1)) = x^(a+b) R^-(a+b-1)`. So every term comes out as
//! `x^e·R^-(e-1)`, and one scalar product by [`plain_power_correction`] fixes the whole
//! sum, saving one product per value. The lane variants raise by the exponent's factors
//! ([`PowerPlan`]): `x^(ab) = (x^a)^b` takes fewer products when the factors have fewer
//! one bits (docs/theory/cards.md §10.2); the invariant holds along any such chain.
//!
//! Variants (see [`PowsumVariant`]): `scalar`, the reference (the tests' oracle), `u128`
//! remainders; `montgomery`, scalar Montgomery products, the plain variant the benches
//! measure against; `simd`,
//! sixteen lanes per vector and as many vectors per exponent loop as the backend's
//! registers hold; `parallel`, `simd` over chunks on the scheduler's threads.

pub mod check;
pub mod montgomery;
pub mod parallel;
pub mod plan;
pub mod scalar;
pub mod simd;

pub use montgomery::powsum_montgomery;
pub use parallel::powsum_parallel;
pub use plan::PowerPlan;
pub use scalar::powsum_scalar;
pub use simd::powsum_simd;

use crate::arith::{Montgomery32, pow_mod};
use crate::kernels::variant_enum;
use crate::sched::Scheduler;

variant_enum! {
    /// The power-sum implementations.
    pub enum PowsumVariant {
        /// One value at a time, `u128` remainders: the reference.
        Scalar => "scalar",
        /// One value at a time, scalar Montgomery products.
        Montgomery => "montgomery",
        /// Montgomery products in 16 lanes, a register file's worth of vectors per
        /// exponent loop, one thread.
        Simd => "simd",
        /// `simd` over chunks of values on the scheduler's threads.
        Parallel => "parallel",
    }
}

impl PowsumVariant {
    /// `Σ x^s mod p` over `values` (residues below the prime `p < 2^31`), `s >= 1`; the
    /// lane variants run on the scheduler's SIMD backend.
    ///
    /// # Panics
    /// If `s == 0` or `p` is not an odd number below 2^31.
    pub fn run(self, values: &[u32], s: u64, p: u32, sched: &Scheduler) -> u32 {
        assert!(s >= 1, "power sum exponent must be at least 1");
        assert!(p % 2 == 1 && (3..1 << 31).contains(&p), "power sum modulus {p} must be odd, 3 <= p < 2^31");
        match self {
            PowsumVariant::Scalar => powsum_scalar(values, s, p),
            PowsumVariant::Montgomery => powsum_montgomery(values, s, p),
            PowsumVariant::Simd => powsum_simd(sched.simd(), values, s, p),
            PowsumVariant::Parallel => powsum_parallel(values, s, p, sched),
        }
    }
}

/// An exponent `e` with `x^e ≡ x^s (mod p)` for every residue `x`, `1 <= e <= p - 1`.
///
/// For `x ≠ 0`, Fermat gives `x^(p-1) = 1`, so any `e ≡ s (mod p - 1)` works; choosing
/// `e` in `[1, p - 1]` rather than `[0, p - 2]` also keeps `0^e = 0 = 0^s` (as `s >= 1`).
/// Requires `p` prime.
pub fn reduced_exponent(s: u64, p: u32) -> u64 {
    debug_assert!(s >= 1 && p >= 2);
    let order = p as u64 - 1;
    (s - 1) % order + 1
}

/// `R^e mod p` (`R = 2^32`): the Montgomery product of a sum of plain-input powers
/// `Σ x^e·R^-(e-1)` with it is `Σ x^e` (see the module documentation).
pub fn plain_power_correction(mont: &Montgomery32, e: u64) -> u32 {
    let p = mont.modulus() as u64;
    pow_mod((1u64 << 32) % p, e, p) as u32
}
