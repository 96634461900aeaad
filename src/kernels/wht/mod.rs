//! In-place Walsh–Hadamard transform modulo a prime `p < 2^31`.
//!
//! `wht(f)(t) = Σ_x f(x)·(-1)^popcount(t & x)` over `x, t < L = 2^ℓ`, computed by `ℓ`
//! levels of butterflies `(u, v) -> (u + v, u - v)`, each level pairing indices that
//! differ in one bit. Inputs and outputs are residues in `[0, p)`, in natural order;
//! the transform is its own inverse up to the factor `L`.
//!
//! Variants (see [`WhtVariant`]): `scalar`, one level at a time; the oracle for tests is
//! [`reference::wht_reference`], the Hadamard matrix product straight from the definition.

pub mod check;
pub mod reference;
pub mod scalar;

pub use reference::wht_reference;
pub use scalar::wht_scalar;

use crate::kernels::variant_enum;
use crate::sched::Scheduler;

variant_enum! {
    /// The Walsh–Hadamard transform implementations.
    pub enum WhtVariant {
        /// Level by level over the whole array: the reference.
        Scalar => "scalar",
    }
}

impl WhtVariant {
    /// Transforms `data` in place modulo `p`.
    ///
    /// # Panics
    /// If `data.len()` is not a power of two, or `p` is not an odd number below 2^31.
    pub fn run(self, data: &mut [u32], p: u32, _sched: &Scheduler) {
        check_arguments(data.len(), p);
        match self {
            WhtVariant::Scalar => wht_scalar(data, p),
        }
    }
}

/// The preconditions every variant shares.
fn check_arguments(len: usize, p: u32) {
    assert!(len.is_power_of_two(), "WHT length {len} is not a power of two");
    assert!(p % 2 == 1 && p < 1 << 31, "WHT modulus {p} must be odd and below 2^31");
}
