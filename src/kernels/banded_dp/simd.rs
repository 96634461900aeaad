//! The banded DP in sixteen 32-bit lanes on one thread, on the run's SIMD backend: half
//! the band, phase-major, lazy reduction, and a window that follows the useful part of
//! the band.
//!
//! Three savings over the reference, each exact:
//! 1. Symmetry: `D_k(-s) = D_k(s)` (the step set is symmetric), so only `s >= 0` is
//!    stored and a read of `s < 0` is a read of `-s` (the window's `mirror`).
//! 2. The useful band is a diamond: after `k` steps only `s <= reach·k` can be non-zero,
//!    and only `s <= reach·(n - k)` can still reach 0 in the remaining `n - k` steps.
//!    So layer `k` needs the cells `[0, need(k))`, `need(k) = reach·min(k, n-k) + 1`:
//!    `reach·n²/4` cell updates instead of the reference's `reach·n²`.
//! 3. The window is re-laid out (an O(cells) copy) only when the need outgrows it or
//!    falls well below it, so its size tracks the diamond within 25–50%.
//!
//! Correctness of a window `[0, cap)` whose cells beyond `cap` are read as 0, for the
//! step from layer `k` to `k+1` with `cap >= max(need(k), need(k+1))`: while the band
//! grows (`need(k) = reach·k + 1`), layer `k` is zero beyond `reach·k`, so every read is
//! exact. Once it shrinks, a wrong zero at `cap` moves inwards `reach` cells per step,
//! and `need(k+1) = need(k) - reach` is exactly the part it has not reached.

use super::StepSet;
use super::lanes::Strategy;
use super::phase_major::PhaseMajor;
use crate::sched::Progress;
use crate::simd::Simd;

/// `D_n(0) mod modulus` by the phase-major SIMD DP (`2 <= modulus < 2^32`) on `simd`'s
/// backend.
pub fn banded_dp_simd(simd: Simd, n: usize, steps: &StepSet, modulus: u32) -> u32 {
    banded_dp_simd_reporting(simd, n, steps, modulus, &Progress::hidden())
}

/// Cells the diamond of [`banded_dp_simd`] updates over `n` layers: the progress total.
pub(super) fn diamond_cells(n: usize, reach: usize) -> u64 {
    (0..n).map(|k| need(k, n, reach).max(need(k + 1, n, reach)) as u64).sum()
}

/// [`banded_dp_simd`], advancing `progress` by the cells of each layer (see
/// [`diamond_cells`] for the total).
pub(super) fn banded_dp_simd_reporting(
    simd: Simd,
    n: usize,
    steps: &StepSet,
    modulus: u32,
    progress: &Progress,
) -> u32 {
    assert!(modulus >= 2, "modulus must be at least 2");
    if n == 0 || steps.steps().is_empty() {
        return (n == 0) as u32;
    }
    let offsets = lane_steps(steps, modulus);
    let strategy = Strategy::choose(modulus, offsets.len());
    let reach = offsets.last().map_or(0, |&(o, _)| o);
    let mut window = PhaseMajor::default();
    window.load(PhaseMajor::rows_for(need(1, n, reach), reach), reach, true, |i| (i == 0) as u32);
    for k in 0..n {
        let required = need(k, n, reach).max(need(k + 1, n, reach));
        let cap = window.capacity();
        // Grow by a quarter beyond the need; shrink when half of the window is idle.
        let target = PhaseMajor::rows_for(required + required / 4, reach);
        if cap < required || (cap > required + required / 2 && target * 16 < cap) {
            window.resize(target);
        }
        window.steps(simd, strategy, modulus, &offsets, 1);
        progress.inc(required as u64);
    }
    window.cell(0)
}

/// The steps as `(offset, multiplicity mod m)`, by increasing offset.
pub(super) fn lane_steps(steps: &StepSet, modulus: u32) -> Vec<(usize, u32)> {
    steps.steps().iter().map(|&(o, c)| (o as usize, (c % modulus as u64) as u32)).collect()
}

/// `need(k)`: layer `k` matters on the cells `[0, need(k))` (module documentation).
pub(super) fn need(k: usize, n: usize, reach: usize) -> usize {
    reach * k.min(n - k) + 1
}
