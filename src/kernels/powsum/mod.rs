//! Power sums `Σ_t x_t^s mod p` with one exponent shared by all values.
//!
//! The exponent is first reduced by Fermat's little theorem (see [`reduced_exponent`]),
//! so `s` up to 2^64 costs no more than `s < p`.

pub mod check;
pub mod scalar;

pub use scalar::powsum_scalar;

use crate::kernels::variant_enum;
use crate::sched::Scheduler;

variant_enum! {
    /// The power-sum implementations.
    pub enum PowsumVariant {
        /// One value at a time, `u128` remainders: the reference.
        Scalar => "scalar",
    }
}

impl PowsumVariant {
    /// `Σ x^s mod p` over `values` (residues below the prime `p < 2^31`), `s >= 1`.
    ///
    /// # Panics
    /// If `s == 0` or `p` is not an odd number below 2^31.
    pub fn run(self, values: &[u32], s: u64, p: u32, _sched: &Scheduler) -> u32 {
        assert!(s >= 1, "power sum exponent must be at least 1");
        assert!(p % 2 == 1 && p < 1 << 31, "power sum modulus {p} must be odd and below 2^31");
        match self {
            PowsumVariant::Scalar => powsum_scalar(values, s, p),
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
