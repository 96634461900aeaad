//! The SIMD DP split between threads in tiles of many layers, with one barrier per tile.
//!
//! A per-layer barrier costs more than a layer's work here (a parked thread can take
//! ~4 ms to wake), so each worker computes `tile` layers on its own before the workers
//! meet. That needs the overlapping-tile ("ghost zone") decomposition:
//!
//! ```text
//! layer k1 = k0 + tile      [a ........ b)             the worker's share, exact
//!                          /              \            errors from the window's edges
//!                         /                \           move inwards reach cells a layer
//! layer k0      [a - reach·tile .......... b + reach·tile)   the worker's window
//! ```
//!
//! Round `r` covers layers `k0 = r·tile .. k1`. The useful cells at `k1`, `[0, need(k1))`
//! (see `simd.rs`), are split into equal shares `[a, b)`; each worker loads its window
//! from the shared layer `k0` into a private phase-major [`PhaseMajor`], takes `k1 - k0`
//! steps, and writes back its share to the other shared layer. Cells outside the window
//! are read as 0 (as the mirror at cell 0): the wrong values this lets in move inwards
//! `reach` cells per step, so after the tile they have not reached `[a, b)`. The window's
//! cells beyond `need(k0)` are loaded as 0: exact while the band grows, and in the
//! shrinking half the error they let in stops at `need(k1) >= b`.
//!
//! Two shared layers alternate, so a round only reads the layer that the previous round
//! wrote: the one barrier between rounds is the only synchronisation. The ghost cells are
//! computed twice, by two workers: the tile length keeps them near 1/32 of a share.
//! Every share is computed by one worker with exact arithmetic, so the answer does not
//! depend on the thread count.

use super::StepSet;
use super::lanes::Strategy;
use super::phase_major::PhaseMajor;
use super::simd::{banded_dp_simd, lane_steps, need};
use crate::sched::Scheduler;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

/// Fewest layers in a tile: below this the barrier and the re-layout dominate.
pub const MIN_TILE_LAYERS: usize = 8;
/// Most layers in a tile.
pub const MAX_TILE_LAYERS: usize = 1024;
/// A worker's two ghost zones together are about `1/GHOST_SHARE` of its share of the
/// widest layer: `2·reach·tile = share/GHOST_SHARE`.
pub const GHOST_SHARE: usize = 16;

/// Fewest cells of the widest layer per worker for the work to be split: below it a
/// round is a few microseconds, not worth a barrier (and one stalled barrier on a busy
/// machine costs milliseconds).
pub const MIN_SHARE_CELLS: usize = 4096;

/// `D_n(0) mod modulus` by the tiled parallel DP; on one thread, or when the band is too
/// narrow to share (see [`MIN_SHARE_CELLS`]), it is [`banded_dp_simd`].
pub fn banded_dp_parallel(n: usize, steps: &StepSet, modulus: u32, sched: &Scheduler) -> u32 {
    let widest = need(n / 2, n, steps.max_offset() as usize);
    if widest / sched.threads() < MIN_SHARE_CELLS {
        return banded_dp_simd(sched.simd(), n, steps, modulus);
    }
    banded_dp_parallel_tiles(n, steps, modulus, sched)
}

/// [`banded_dp_parallel`] without the width threshold, so that tests reach the tiles at
/// every size.
pub fn banded_dp_parallel_tiles(n: usize, steps: &StepSet, modulus: u32, sched: &Scheduler) -> u32 {
    assert!(modulus >= 2, "modulus must be at least 2");
    if sched.threads() == 1 || n == 0 || steps.steps().is_empty() {
        return banded_dp_simd(sched.simd(), n, steps, modulus);
    }
    tiles(n, &lane_steps(steps, modulus), modulus, sched)
}

/// Layers per tile for a band whose widest layer has `widest` cells.
pub fn tile_layers(widest: usize, workers: usize, reach: usize) -> usize {
    (widest / workers / (2 * GHOST_SHARE * reach.max(1))).clamp(MIN_TILE_LAYERS, MAX_TILE_LAYERS)
}

/// The rounds of tiles on the scheduler's threads, each worker's window stepped on the
/// scheduler's SIMD backend.
fn tiles(n: usize, offsets: &[(usize, u32)], modulus: u32, sched: &Scheduler) -> u32 {
    let (simd, strategy) = (sched.simd(), Strategy::choose(modulus, offsets.len()));
    let reach = offsets.last().map_or(0, |&(o, _)| o);
    let need = |k: usize| need(k, n, reach);
    let widest = need(n / 2);
    let tile = tile_layers(widest, sched.threads(), reach);
    let rounds = n.div_ceil(tile);
    // The shared layers: written by one worker per cell, read by others only after
    // the barrier, so relaxed atomics suffice (they compile to plain moves).
    let layers: [Vec<AtomicU32>; 2] = std::array::from_fn(|_| (0..widest).map(|_| AtomicU32::new(0)).collect());
    layers[0][0].store(1, Ordering::Relaxed);
    let windows: Vec<Mutex<PhaseMajor>> = (0..sched.threads()).map(|_| Mutex::default()).collect();
    let progress = sched.progress(rounds as u64, "coins: DP tiles");
    sched.lockstep(rounds, |round, worker, workers| {
        let (k0, k1) = (round * tile, ((round + 1) * tile).min(n));
        let (src, dst) = (&layers[round % 2], &layers[(round + 1) % 2]);
        let useful = need(k1);
        let (a, b) = (useful * worker / workers, useful * (worker + 1) / workers);
        if a == b {
            return;
        }
        let ghost = reach * (k1 - k0);
        let lo = a.saturating_sub(ghost);
        let valid = need(k0);
        let mut window = windows[worker].lock().expect("a worker panicked");
        let rows = PhaseMajor::rows_for(b + ghost - lo, reach);
        window.load(rows, reach, lo == 0, |i| {
            src.get(lo + i).filter(|_| lo + i < valid).map_or(0, |c| c.load(Ordering::Relaxed))
        });
        window.steps(simd, strategy, modulus, offsets, k1 - k0);
        let cells = window.to_cells();
        for s in a..b {
            dst[s].store(cells[s - lo], Ordering::Relaxed);
        }
        if worker == 0 {
            progress.inc(1);
        }
    });
    layers[rounds % 2][0].load(Ordering::Relaxed)
}
