//! The reference DP: two full layers, every step reduced modulo `m`.

use super::StepSet;
use crate::sched::Progress;

/// `D_n(0) mod modulus` by the rolling two-layer recurrence over the reachable band.
pub fn banded_dp_scalar(n: usize, steps: &StepSet, modulus: u32) -> u32 {
    banded_dp_scalar_each(n, steps, modulus)[n]
}

/// `D_k(0) mod modulus` for every `k` in `0..=n`, from one run of the reference (the
/// centre of each layer): the cross-checks compare every `n` against it at the price of
/// the largest.
pub fn banded_dp_scalar_each(n: usize, steps: &StepSet, modulus: u32) -> Vec<u32> {
    banded_dp_scalar_each_reporting(n, steps, modulus, &Progress::hidden())
}

/// Band cells the reference updates for `n` layers: layer `k + 1` spans `|s| <= (k+1)·reach`.
pub(super) fn scalar_cells(n: usize, reach: usize) -> u64 {
    (reach as u64) * (n as u64) * (n as u64 + 1) + n as u64
}

/// [`banded_dp_scalar_each`], advancing `progress` by the cells of each layer (see
/// [`scalar_cells`] for the total).
pub(super) fn banded_dp_scalar_each_reporting(
    n: usize,
    steps: &StepSet,
    modulus: u32,
    progress: &Progress,
) -> Vec<u32> {
    let m = modulus as u64;
    let reach = steps.max_offset() as usize;
    let half_width = n * reach; // |s| <= n·max_o after n steps
    let center = half_width;
    let mut current = vec![0u32; 2 * half_width + 1];
    let mut next = current.clone();
    current[center] = (1 % m) as u32;
    let mut centres = vec![current[center]];
    let counts: Vec<(usize, u64)> = steps.steps().iter().map(|&(o, c)| (o as usize, c % m)).collect();
    for k in 0..n {
        // After k steps the non-zero band is |s| <= k·reach; the next one is one reach wider.
        let new_reach = (k + 1) * reach;
        let (lo, hi) = (center - new_reach, center + new_reach);
        for s in lo..=hi {
            let mut acc = 0u64;
            for &(o, c) in &counts {
                // Indices outside the old band hold zeros; outside the array, skip.
                let below = if s >= o { current[s - o] as u64 } else { 0 };
                let above = current.get(s + o).map_or(0, |&v| v as u64);
                // below + above < 2^33 and c < 2^32: each product is reduced before the sum,
                // so acc stays below (#offsets)·2^32.
                acc += (below + above) % m * c % m;
            }
            next[s] = (acc % m) as u32;
        }
        std::mem::swap(&mut current, &mut next);
        centres.push(current[center]);
        progress.inc((hi - lo + 1) as u64);
    }
    centres
}
