//! Nimber frequencies of one card suit (PE 798, docs/theory/cards.md §6–8).
//!
//! `F_N(v)` is the number of the `2^N` initial face-up sets of one suit of `N` cards
//! whose Sprague–Grundy value is `v`. With `k = ceil(v/2)` and `R_v = N - k - 1 - [v even]`:
//!
//! ```text
//! F_N(0) = 2^(N-2) + 2            (N >= 2; F_1(0) = 2)
//! F_N(v) = 2^R_v + C(R_v, k) - Σ_{i=0}^{k-2} C(R_v, i)      (0 < v < N)
//! ```
//!
//! The binomial tails are what make this quadratic if summed for each `v`; the linear
//! variant carries them from one `k` to the next (docs/theory/cards.md §8).
//!
//! The reference (the tests' oracle) is [`nimber_freq_direct`], the closed form term by
//! term in exact integers, O(N²), for small `N`. Variants (see [`NimberFreqVariant`]):
//! `linear`, the plain variant, full factorial tables and `u64` remainders, against
//! which the other variants are also checked at large `N`; `lanes`, sixteen lanes each
//! walking its own run of `k` with
//! factorial tables built chunk by chunk in Montgomery arithmetic ([`lanes`] explains
//! the layout); `parallel`, the chunks of `lanes` on the scheduler's threads.

pub mod check;
pub mod direct;
pub mod lanes;
pub mod linear;
pub mod parallel;

pub use direct::nimber_freq_direct;
pub use lanes::{nimber_freq_lanes, nimber_freq_lanes_with};
pub use linear::nimber_freq_linear;
pub use parallel::{nimber_freq_parallel, nimber_freq_parallel_with};

use crate::kernels::variant_enum;
use crate::sched::Scheduler;

variant_enum! {
    /// The frequency implementations.
    pub enum NimberFreqVariant {
        /// The tail recurrence over factorial tables, O(N): the plain variant.
        Linear => "linear",
        /// Sixteen lanes, factorial tables per chunk, one thread.
        Lanes => "lanes",
        /// `lanes` with its chunks on the scheduler's threads.
        Parallel => "parallel",
    }
}

impl NimberFreqVariant {
    /// Writes `F_n(v) mod p` to `out[v]` for `v < n` and zeroes the rest of `out`; the lane
    /// variants run on the scheduler's SIMD backend.
    ///
    /// # Panics
    /// If `n == 0`, `out.len() < n`, or not `n < p < 2^31` (the factorial tables need
    /// `n < p`; `p` must be prime, which the caller validated).
    pub fn run(self, n: usize, p: u32, out: &mut [u32], sched: &Scheduler) {
        assert!(n >= 1 && out.len() >= n, "need 1 <= n <= out.len(), got n={n}, len={}", out.len());
        assert!((n as u64) < p as u64 && p < 1 << 31, "need n < p < 2^31, got n={n}, p={p}");
        match self {
            NimberFreqVariant::Linear => nimber_freq_linear(n, p, out),
            NimberFreqVariant::Lanes => nimber_freq_lanes(sched.simd(), n, p, out),
            NimberFreqVariant::Parallel => nimber_freq_parallel(n, p, out, sched),
        }
    }
}
