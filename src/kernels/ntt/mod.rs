//! Products of power series with residues modulo any `N < 2^62`, by number-theoretic
//! transforms over several word-sized primes and the Chinese remainder theorem.
//!
//! The exact product of two residue vectors has coefficients below
//! `min(la, lb)·(N-1)^2 < 2^147` (lengths up to `2^23`); it is computed modulo as many of
//! the primes in [`PRIMES`] as it takes for their product to exceed that bound, each by a
//! cyclic transform long enough that nothing wraps, then recovered exactly (Garner's
//! mixed radix) and reduced modulo `N`. So any modulus works, prime or not.
//!
//! Transforms ([`plan::NttPlan`]): the forward one is a decimation in frequency from
//! natural order to bit-reversed order, the inverse one a decimation in time back; the
//! pointwise product in between never needs the bit reversal. Every butterfly of a block
//! uses the same root (the roots are stored in bit-reversed order), so the traversal
//! ([`traversal`]) is exactly the Walsh–Hadamard one with a multiplication added.
//!
//! Variants ([`NttVariant`]): `reference`, the schoolbook product in `u128` (the oracle,
//! and the plain variant of the bench); `radix2`, the transforms above with scalar
//! Montgomery arithmetic, whose loops are vectorised for the run's SIMD level.

pub mod check;
pub mod crt;
pub mod plan;
pub mod radix2;
pub mod reference;
pub mod traversal;

pub use radix2::{ProductPlan, ntt_radix2};
pub use reference::ntt_reference;

use crate::kernels::variant_enum;
use crate::simd::Simd;

/// The transform primes, largest first, with a generator of the multiplicative group
/// and the 2-adic order of `p - 1` (the largest power-of-two transform they allow).
/// All are below 2^31, as [`crate::arith::Montgomery32`] requires.
pub const PRIMES: [(u32, u32, u32); 6] = [
    (2_130_706_433, 3, 24),  // 127·2^24 + 1
    (2_113_929_217, 5, 25),  // 63·2^25 + 1
    (2_013_265_921, 31, 27), // 15·2^27 + 1
    (1_811_939_329, 13, 26), // 27·2^26 + 1
    (1_711_276_033, 29, 25), // 51·2^25 + 1
    (1_224_736_769, 3, 24),  // 73·2^24 + 1
];

/// The largest transform length: the smallest 2-adic order among [`PRIMES`].
pub const MAX_LOG_LEN: u32 = 24;

/// Moduli `N` accepted: below `2^62`.
pub const MODULUS_LIMIT: u64 = 1 << 62;

variant_enum! {
    /// Implementations of the truncated product modulo `N`.
    pub enum NttVariant {
        /// Schoolbook product in `u128`, O(la·lb): the reference.
        Reference => "reference",
        /// Radix-2 transforms modulo several primes, scalar Montgomery, CRT.
        Radix2 => "radix2",
    }
}

impl NttVariant {
    /// The first `out_len` coefficients of `a·b`, modulo `modulus`.
    ///
    /// # Panics
    /// If `modulus` is not in `[2, 2^62)`, an input is not a residue, or (`radix2`) the
    /// product needs a transform longer than `2^MAX_LOG_LEN`.
    pub fn run(self, a: &[u64], b: &[u64], modulus: u64, out_len: usize) -> Vec<u64> {
        self.run_on(Simd::best(), a, b, modulus, out_len)
    }

    /// [`NttVariant::run`] on `simd`'s backend (the product is the same on every one).
    ///
    /// # Panics
    /// As [`NttVariant::run`].
    pub fn run_on(self, simd: Simd, a: &[u64], b: &[u64], modulus: u64, out_len: usize) -> Vec<u64> {
        assert!((2..MODULUS_LIMIT).contains(&modulus), "product modulus {modulus} must be in [2, 2^62)");
        debug_assert!(a.iter().chain(b).all(|&v| v < modulus), "inputs must be residues");
        match self {
            NttVariant::Reference => ntt_reference(a, b, modulus, out_len),
            NttVariant::Radix2 => ntt_radix2(simd, a, b, modulus, out_len),
        }
    }
}
