//! Banded dynamic programme for the constant term of a symmetric Laurent polynomial's
//! power (PE 860, docs/theory/coins.md §6).
//!
//! With `P(x) = Σ_o c_o·(x^o + x^-o)` over positive offsets `o`, `D_k(s)` is the
//! coefficient of `x^s` in `P^k`:
//!
//! ```text
//! D_0(s) = [s = 0],   D_{k+1}(s) = Σ_o c_o·(D_k(s - o) + D_k(s + o)),   answer D_n(0)
//! ```
//!
//! After `k` steps only `|s| <= k·max_o` can be non-zero: that is the band.
//!
//! | variant | file | what it does |
//! |---|---|---|
//! | `dp-scalar` | `scalar.rs` | the whole band, two rolling layers, `%` after every product: the reference and the plain variant |
//! | `dp-simd` | `simd.rs` | half the band (`D_k(-s) = D_k(s)`), only the diamond that can still reach 0, phase-major rows of sixteen 32-bit lanes (`phase_major.rs`) on the run's SIMD backend, sums reduced by the cheapest exact strategy for the modulus (`lanes.rs`) |
//! | `dp-parallel` | `parallel.rs` | `dp-simd` windows in ghost-zone tiles of many layers, one spinning barrier per tile (`Scheduler::lockstep`) |
//!
//! Every variant takes any modulus `2 <= m < 2^32` and any step set; the SIMD ones have
//! unrolled loops for 1, 2, 4 or 8 offsets of multiplicity 1 (the coin stacks of height
//! 1 to 4) and a general loop otherwise.

pub mod check;
pub mod lanes;
pub mod parallel;
pub mod phase_major;
pub mod scalar;
pub mod simd;

pub use parallel::banded_dp_parallel;
pub use scalar::{banded_dp_scalar, banded_dp_scalar_each};
pub use simd::banded_dp_simd;

use crate::kernels::variant_enum;
use crate::sched::Scheduler;

/// A symmetric step set: each entry `(o, c)` stands for `c` ways to step `+o` and `c`
/// ways to step `-o` (`o >= 1`, distinct).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepSet {
    steps: Vec<(u32, u64)>,
}

impl StepSet {
    /// The step set from `(offset, multiplicity)` pairs; offsets positive and distinct.
    ///
    /// # Panics
    /// If an offset is zero or repeated.
    pub fn new(mut steps: Vec<(u32, u64)>) -> Self {
        steps.sort_unstable();
        assert!(steps.iter().all(|&(o, _)| o >= 1), "step offsets must be positive");
        assert!(steps.windows(2).all(|w| w[0].0 != w[1].0), "step offsets must be distinct");
        Self { steps }
    }

    /// The two-coin stacks: `GG, GS, SG, SS` have values `2, 1/2, -1/2, -2`, doubled to
    /// the steps `±4, ±1`.
    pub fn two_coin_stacks() -> Self {
        Self::new(vec![(1, 1), (4, 1)])
    }

    /// The `(offset, multiplicity)` pairs, by increasing offset.
    pub fn steps(&self) -> &[(u32, u64)] {
        &self.steps
    }

    /// The largest offset (0 for an empty set).
    pub fn max_offset(&self) -> u32 {
        self.steps.last().map_or(0, |&(o, _)| o)
    }
}

variant_enum! {
    /// The banded DP implementations.
    pub enum BandedDpVariant {
        /// Two rolling layers over the whole band, one step at a time: the reference.
        Scalar => "dp-scalar",
        /// Half the band, phase-major rows of sixteen lanes, lazy reduction, one thread.
        Simd => "dp-simd",
        /// `dp-simd` split between threads in tiles of many layers, one barrier per tile.
        Parallel => "dp-parallel",
    }
}

impl BandedDpVariant {
    /// `D_n(0) mod modulus` for the step set (`2 <= modulus < 2^32`), the SIMD variants
    /// on the scheduler's backend.
    pub fn run(self, n: usize, steps: &StepSet, modulus: u32, sched: &Scheduler) -> u32 {
        assert!(modulus >= 2, "modulus must be at least 2");
        match self {
            BandedDpVariant::Scalar => {
                let progress = sched.progress(scalar::scalar_cells(n, steps.max_offset() as usize), "coins: DP");
                scalar::banded_dp_scalar_each_reporting(n, steps, modulus, &progress)[n]
            }
            BandedDpVariant::Simd => {
                let progress = sched.progress(simd::diamond_cells(n, steps.max_offset() as usize), "coins: DP");
                simd::banded_dp_simd_reporting(sched.simd(), n, steps, modulus, &progress)
            }
            BandedDpVariant::Parallel => banded_dp_parallel(n, steps, modulus, sched),
        }
    }

    /// Bytes the variant allocates, at most.
    ///
    /// The reference keeps two layers of the full band `|s| <= n·max_o`. The others keep
    /// at most the diamond's widest layer, `n·max_o/2` cells, in a window with a quarter
    /// of slack and two layers; `dp-parallel` keeps two shared copies of the widest layer
    /// besides, and its workers' windows together hold the widest layer plus ghost zones
    /// of at most 1/16 each (twice the single window covers them).
    pub fn memory_bytes(self, n: u64, steps: &StepSet) -> u64 {
        let reach = steps.max_offset() as u64;
        let widest = n / 2 * reach + reach + 1;
        let window = 2 * 4 * (widest + widest / 4 + 16 * (reach + 1));
        match self {
            BandedDpVariant::Scalar => 2 * 4 * (2 * n * reach + 1),
            BandedDpVariant::Simd => window,
            BandedDpVariant::Parallel => 2 * 4 * widest + 2 * window,
        }
    }
}
