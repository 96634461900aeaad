//! In-place Walsh–Hadamard transform modulo a prime `p < 2^31`.
//!
//! `wht(f)(t) = Σ_x f(x)·(-1)^popcount(t & x)` over `x, t < L = 2^ℓ`, computed by `ℓ`
//! levels of butterflies `(u, v) -> (u + v, u - v)`, each level pairing indices that
//! differ in one bit. Inputs and outputs are residues in `[0, p)`, in natural order;
//! the transform is its own inverse up to the factor `L`.
//!
//! The reference (the tests' oracle) is [`reference::wht_reference`], the Hadamard
//! matrix product straight from the definition, O(L²). Variants (see [`WhtVariant`]):
//! `scalar`, one level at a time, the plain variant the benches measure against;
//! `simd`, one level at a time with sixteen butterflies per instruction; `tiled`, levels
//! grouped into passes that each fit a cache ([`tiled`] explains the plan); `parallel`,
//! `tiled` on the scheduler's threads.

pub mod butterflies;
pub mod check;
pub mod parallel;
pub mod reference;
pub mod scalar;
pub mod simd;
pub mod tiled;

pub use parallel::wht_parallel;
pub use reference::wht_reference;
pub use scalar::wht_scalar;
pub use simd::wht_simd;
pub use tiled::{Tiling, wht_tiled, wht_tiled_then, wht_tiled_with};

use crate::kernels::variant_enum;
use crate::sched::Scheduler;

variant_enum! {
    /// The Walsh–Hadamard transform implementations.
    pub enum WhtVariant {
        /// Level by level over the whole array: the plain variant.
        Scalar => "scalar",
        /// Level by level, sixteen lanes per butterfly, one thread.
        Simd => "simd",
        /// Cache-tiled: two passes over memory for 2^24 values, one thread.
        Tiled => "tiled",
        /// `tiled` with its blocks and column bands on the scheduler's threads.
        Parallel => "parallel",
    }
}

impl WhtVariant {
    /// Transforms `data` in place modulo `p`, on the scheduler's SIMD backend.
    ///
    /// # Panics
    /// If `data.len()` is not a power of two, or `p` is not an odd number below 2^31.
    pub fn run(self, data: &mut [u32], p: u32, sched: &Scheduler) {
        check_arguments(data.len(), p);
        match self {
            WhtVariant::Scalar => wht_scalar(data, p),
            WhtVariant::Simd => wht_simd(sched.simd(), data, p),
            WhtVariant::Tiled => wht_tiled(sched.simd(), data, p),
            WhtVariant::Parallel => wht_parallel(data, p, sched),
        }
    }
}

/// The preconditions every variant shares.
fn check_arguments(len: usize, p: u32) {
    assert!(len.is_power_of_two(), "WHT length {len} is not a power of two");
    assert!(p % 2 == 1 && (3..1 << 31).contains(&p), "WHT modulus {p} must be odd, 3 <= p < 2^31");
}
