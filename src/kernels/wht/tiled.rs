//! The cache-tiled transform: as few passes over memory as the caches allow.
//!
//! The levels of a Walsh–Hadamard transform commute, so they can be applied in any
//! grouping. A plan ([`Tiling::plan`]) groups them into passes:
//!
//! ```text
//! pass 1, blocks:  for each block of 2^block_log elements (L2-sized):
//!                      for each sub-block of 2^l1_log elements (L1-sized):
//!                          levels 0 .. l1_log            (in-vector levels fused into the first sweep)
//!                      levels l1_log .. block_log
//! pass 2.., columns: levels lo .. hi (at most column_levels of them): view each run of
//!                  2^hi elements as 2^(hi-lo) rows of 2^lo; a tile is a band of columns
//!                  of all those rows, gathered into a scratch buffer, transformed there,
//!                  and scattered back
//! ```
//!
//! For 2^24 values that is two passes over the 64 MiB array: one for levels 0–15, one
//! for levels 16–23 (256 rows of 256 columns per 256 KiB tile). Inside a cache, every
//! sweep applies up to three levels with eight vectors in registers
//! ([`super::butterflies`]), so the data crosses even the L1 only a few times.
//!
//! Measured at 2^24 on one thread (Zen 4, minimum of 30 runs): the block pass 11 ms,
//! close to its compute bound (20 ordinary levels at ~0.47 ns and 4 in-vector levels at
//! ~0.98 ns per vector and level); the column pass 12 ms, of which the strided gather is
//! about two thirds. A plain read+write pass over the same array takes about 3 ms.
//!
//! The same code runs on one thread (`tiled`) or on the scheduler's threads
//! (`parallel`): a pass is a list of independent jobs (blocks, or bands of columns),
//! and there is one synchronisation per pass, never one per level.

use super::butterflies::{Vector, as_vectors, sweep_levels};
use super::wht_scalar;
use crate::arith::lanes::{store_fence, stream_store};
use crate::arith::{LANES, ModLanes};
use crate::sched::{Progress, Scheduler};
use std::sync::atomic::{AtomicU64, Ordering};
use wide::u32x16;

/// log2 of the lanes per vector.
const LANE_LOG: u32 = LANES.trailing_zeros();

/// Tile sizes, each the log2 of an element count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tiling {
    /// Sub-blocks transformed entirely inside the L1 cache (levels `0..l1_log`).
    pub l1_log: u32,
    /// Blocks of the first pass, inside the L2 cache (levels `l1_log..block_log`).
    pub block_log: u32,
    /// The most levels one column pass applies.
    pub column_levels: u32,
    /// Elements of one column tile (its rows times its columns), gathered into scratch.
    pub tile_log: u32,
    /// Elements of one column job: a band of several tiles' columns, one unit of work
    /// for the scheduler.
    pub job_log: u32,
}

/// One pass over the array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// Levels `0..block_log` block by block, `0..l1_log` of them sub-block by sub-block.
    Blocks {
        /// log2 of the sub-block length.
        l1_log: u32,
        /// log2 of the block length.
        block_log: u32,
    },
    /// Levels `lo..hi` on bands of columns.
    Columns {
        /// The first level.
        lo: u32,
        /// One past the last level.
        hi: u32,
    },
}

impl Tiling {
    /// The tiles of this machine (AMD Zen 4: 32 KiB L1d and 1 MiB L2 per core): 16 KiB
    /// sub-blocks leave half the L1 for the other stream; 256 KiB blocks and column tiles
    /// leave room in the L2 for the prefetched next tile; 4 MiB column jobs make 16 jobs
    /// for a 2^24 transform, a few per thread.
    pub const DEFAULT: Tiling = Tiling { l1_log: 12, block_log: 16, column_levels: 8, tile_log: 16, job_log: 20 };

    /// Checks the invariants the passes rely on.
    ///
    /// # Panics
    /// Unless `4 <= l1_log <= block_log`, `1 <= column_levels`,
    /// `column_levels + 4 <= tile_log <= job_log`.
    pub fn validate(&self) {
        assert!(
            LANE_LOG <= self.l1_log
                && self.l1_log <= self.block_log
                && self.column_levels >= 1
                && self.column_levels + LANE_LOG <= self.tile_log
                && self.tile_log <= self.job_log,
            "inconsistent tiling {self:?}"
        );
    }

    /// The passes for a transform of `2^log_len` elements (`log_len >= 4`): one block
    /// pass, then as few column passes as `column_levels` allows, sharing the remaining
    /// levels evenly.
    pub fn plan(&self, log_len: u32) -> Vec<Pass> {
        self.validate();
        assert!(log_len >= LANE_LOG, "the tiled plan needs at least one vector, got 2^{log_len}");
        let block_log = log_len.min(self.block_log);
        let mut passes = vec![Pass::Blocks { l1_log: block_log.min(self.l1_log), block_log }];
        let mut lo = block_log;
        while lo < log_len {
            let passes_left = (log_len - lo).div_ceil(self.column_levels);
            let hi = lo + (log_len - lo).div_ceil(passes_left);
            passes.push(Pass::Columns { lo, hi });
            lo = hi;
        }
        passes
    }
}

/// Walsh–Hadamard transform of `data` (length a power of two, residues below `p`) with
/// the default tiling, on one thread.
pub fn wht_tiled(data: &mut [u32], p: u32) {
    wht_tiled_with(data, p, &Tiling::DEFAULT, &Scheduler::sequential());
}

/// The tiled transform with an explicit tiling, on the scheduler's threads.
pub fn wht_tiled_with(data: &mut [u32], p: u32, tiling: &Tiling, sched: &Scheduler) {
    if data.len() < LANES {
        return wht_scalar(data, p);
    }
    let lanes = ModLanes::new(p).expect("the caller checked p");
    wht_tiled_then(data, &lanes, tiling, sched, true, &|_: &[u32]| 0, 1);
}

/// Runs the tiled transform (`data.len() >= 16`, a power of two) and hands every tile of
/// the last pass, once transformed, to `finish`; returns the sum of what it returned.
/// With `write_back` false the last pass does not store its tiles into `data` (which
/// then holds partly transformed values): a consumer such as a power sum saves a write
/// of the whole array. `last_weight` is the cost of the last pass relative to the others,
/// for the progress bar.
#[allow(clippy::too_many_arguments)]
pub fn wht_tiled_then<F>(
    data: &mut [u32],
    lanes: &ModLanes,
    tiling: &Tiling,
    sched: &Scheduler,
    write_back: bool,
    finish: &F,
    last_weight: u64,
) -> u64
where
    F: Fn(&[u32]) -> u64 + Sync,
{
    assert!(data.len().is_power_of_two() && data.len() >= LANES, "tiled WHT length {} too short", data.len());
    let plan = tiling.plan(data.len().trailing_zeros());
    let units = (plan.len() as u64 - 1 + last_weight) * data.len() as u64;
    let progress = sched.progress(units, "transform");
    let mut total = 0;
    for (i, &pass) in plan.iter().enumerate() {
        let last = (i + 1 == plan.len()).then_some(finish);
        let weight = if last.is_some() { last_weight } else { 1 };
        total += match pass {
            Pass::Blocks { l1_log, block_log } => {
                block_pass(data, lanes, l1_log, block_log, sched, last, &progress, weight)
            }
            Pass::Columns { lo, hi } => {
                column_pass(data, lanes, (lo, hi), tiling, sched, last, write_back || last.is_none(), &progress, weight)
            }
        };
    }
    total
}

/// Levels `0..block_log` on each block, `0..l1_log` of them on each sub-block first.
#[allow(clippy::too_many_arguments)]
fn block_pass<F: Fn(&[u32]) -> u64 + Sync>(
    data: &mut [u32],
    lanes: &ModLanes,
    l1_log: u32,
    block_log: u32,
    sched: &Scheduler,
    finish: Option<&F>,
    progress: &Progress,
    weight: u64,
) -> u64 {
    let total = AtomicU64::new(0);
    sched.for_each_chunk(data, 1 << block_log, |_, block| {
        let vectors = as_vectors(block);
        for sub in vectors.chunks_exact_mut(1 << (l1_log - LANE_LOG)) {
            sweep_levels(lanes, sub, 0, l1_log - LANE_LOG, LANE_LOG);
        }
        sweep_levels(lanes, vectors, l1_log - LANE_LOG, block_log - LANE_LOG, 0);
        if let Some(f) = finish {
            total.fetch_add(f(block), Ordering::Relaxed);
        }
        progress.inc(weight * block.len() as u64);
    });
    total.into_inner()
}

/// Levels `lo..hi` on bands of columns (see the module documentation).
#[allow(clippy::too_many_arguments)]
fn column_pass<F: Fn(&[u32]) -> u64 + Sync>(
    data: &mut [u32],
    lanes: &ModLanes,
    (lo, hi): (u32, u32),
    tiling: &Tiling,
    sched: &Scheduler,
    finish: Option<&F>,
    write_back: bool,
    progress: &Progress,
    weight: u64,
) -> u64 {
    let rows = 1usize << (hi - lo);
    let row_len = 1usize << lo;
    // The tile and job widths are powers of two with 16 <= width <= job_width <= row_len
    // (tile_log >= column_levels + 4 >= (hi - lo) + 4 and lo >= block_log >= 4).
    let width = row_len.min((1 << tiling.tile_log) / rows);
    let job_width = row_len.min((1 << tiling.job_log) / rows).max(width);
    // A job owns the same band of columns in every row of one run of 2^hi elements:
    // splitting rows into pieces hands each job disjoint `&mut` slices.
    let mut jobs: Vec<Vec<&mut [u32]>> = Vec::with_capacity(data.len() / (rows * job_width));
    for run in data.chunks_exact_mut(rows * row_len) {
        let first = jobs.len();
        jobs.extend((0..row_len / job_width).map(|_| Vec::with_capacity(rows)));
        for row in run.chunks_exact_mut(row_len) {
            for (band, piece) in row.chunks_exact_mut(job_width).enumerate() {
                jobs[first + band].push(piece);
            }
        }
    }
    let total = AtomicU64::new(0);
    let width_log = (width / LANES).trailing_zeros();
    sched.for_each_chunk(&mut jobs, 1, |_, job| {
        let pieces = &mut job[0];
        let mut scratch: Vec<Vector> = vec![[0; LANES]; rows * width / LANES];
        for column in (0..job_width).step_by(width) {
            let flat = scratch.as_flattened_mut();
            for r in 0..rows {
                if let Some(ahead) = pieces.get(r + PREFETCH_ROWS) {
                    prefetch(&ahead[column..column + width]);
                }
                flat[r * width..(r + 1) * width].copy_from_slice(&pieces[r][column..column + width]);
            }
            // In the scratch tile the rows are `width` apart: the column levels are
            // vector levels width_log .. width_log + (hi - lo).
            sweep_levels(lanes, &mut scratch, width_log, width_log + hi - lo, 0);
            let flat = scratch.as_flattened();
            if let Some(f) = finish {
                total.fetch_add(f(flat), Ordering::Relaxed);
            }
            if write_back {
                for (r, piece) in pieces.iter_mut().enumerate() {
                    stream_copy(&mut piece[column..column + width], &flat[r * width..(r + 1) * width]);
                }
            }
        }
        store_fence();
        progress.inc(weight * (rows * job_width) as u64);
    });
    total.into_inner()
}

/// Rows of a column tile requested ahead of the one being copied. The rows are a power of
/// two apart, so they share the same sets of the 8-way caches: a few rows ahead fit beside
/// the one being copied (into the L1, 8 ahead evicted it: 23.6 ms for the column pass of
/// 2^24, against 15.6 with 2–6 ahead and 16.5 with none).
const PREFETCH_ROWS: usize = 4;

/// Asks for every cache line of `data` to be brought into the L2 cache.
///
/// Why: the rows of a column tile are far apart, so the hardware prefetcher, which follows
/// sequential streams, does not run ahead of the gather; without help each row waits
/// for its own round trip to memory. The L2 hint rather than the L1 one: an L1 prefetch
/// holds one of the L1's few miss buffers until its line arrives (column pass of 2^24,
/// medians on one thread: 15.5 ms with L1 prefetches, 12.3 ms with L2 ones).
#[inline(always)]
fn prefetch(data: &[u32]) {
    #[cfg(target_arch = "x86_64")]
    for line in data.chunks(LANES) {
        use core::arch::x86_64::{_MM_HINT_T1, _mm_prefetch};
        // SAFETY: a prefetch is only a hint: it never faults and has no visible effect,
        // and the address is inside a live slice anyway.
        unsafe { _mm_prefetch::<_MM_HINT_T1>(line.as_ptr().cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = data;
}

/// Copies `src` into `dst` (same length) with non-temporal stores for the whole cache
/// lines of `dst` (see [`stream_store`]), plain stores for partial lines at its ends.
///
/// Why: the rows of a column tile are `2^lo` elements apart, a power of two, so they all
/// map to the same few sets of the L1 and L2 caches. By the time a transformed tile is
/// written back, its lines have been evicted, and an ordinary store would first read each
/// line back from memory. [`store_fence`] must follow before other threads read `dst`.
fn stream_copy(dst: &mut [u32], src: &[u32]) {
    debug_assert_eq!(dst.len(), src.len());
    // Elements before the first 64-byte boundary of dst (u32 slices are 4-aligned).
    let head = (dst.as_ptr().addr().wrapping_neg() % 64 / 4).min(dst.len());
    let (dst_head, dst_lines) = dst.split_at_mut(head);
    let (src_head, src_lines) = src.split_at(head);
    dst_head.copy_from_slice(src_head);
    let (lines, dst_tail) = dst_lines.as_chunks_mut::<LANES>();
    let (src_chunks, src_tail) = src_lines.as_chunks::<LANES>();
    for (d, s) in lines.iter_mut().zip(src_chunks) {
        stream_store(d, u32x16::from(*s));
    }
    dst_tail.copy_from_slice(src_tail);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_copy_copies_at_any_alignment() {
        let src: Vec<u32> = (1..=4096).collect();
        for offset in [0, 1, 7, 15, 16, 17] {
            for len in [0, 1, 5, 16, 17, 31, 1024, 1024 + 9] {
                let mut dst = vec![0u32; 4096 + 32];
                stream_copy(&mut dst[offset..offset + len], &src[..len]);
                store_fence();
                assert_eq!(&dst[offset..offset + len], &src[..len], "offset {offset} len {len}");
                assert!(dst[..offset].iter().chain(&dst[offset + len..]).all(|&x| x == 0));
            }
        }
    }

    #[test]
    fn plans_cover_every_level_once() {
        for log_len in 4..=30 {
            let plan = Tiling::DEFAULT.plan(log_len);
            let mut next = 0;
            for pass in &plan {
                match *pass {
                    Pass::Blocks { l1_log, block_log } => {
                        assert!(l1_log <= block_log);
                        next = block_log;
                    }
                    Pass::Columns { lo, hi } => {
                        assert_eq!(lo, next, "2^{log_len}: {plan:?}");
                        assert!(hi > lo && hi - lo <= Tiling::DEFAULT.column_levels);
                        next = hi;
                    }
                }
            }
            assert_eq!(next, log_len, "{plan:?}");
        }
        // The showcase size crosses memory twice; the largest three times.
        assert_eq!(Tiling::DEFAULT.plan(24).len(), 2);
        assert_eq!(Tiling::DEFAULT.plan(30).len(), 3);
    }
}
