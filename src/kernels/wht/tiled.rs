//! The cache-tiled transform: every level applied where the data already is, and the
//! array crossing memory as few times as the caches allow.
//!
//! The levels of a Walsh–Hadamard transform commute, so they can be applied in any
//! grouping. A plan ([`Tiling::plan`]) groups them into passes over the array:
//!
//! ```text
//! local pass, levels 0 .. region_log: for each region of 2^region_log elements (L3-sized):
//!     for each block of 2^block_log elements (L2-sized):
//!         for each sub-block of 2^l1_log elements (L1-sized):
//!             levels 4 .. l1_log                (sweeps in the L1)
//!         levels l1_log .. block_log            (sweeps in the L2)
//!     levels block_log .. region_log, and 0-1   (sweeps over the region, still in the L3)
//! stream passes, levels lo .. hi (at most stream_levels of them), and 2-3 in the first:
//!     view each run of 2^hi elements as 2^(hi-lo) rows of 2^lo; load one vector from
//!     every row, butterflies in registers, store back: the rows are sequential streams
//! ```
//!
//! Levels 0–3 pair lanes of one vector ("in-vector" levels, [`super::butterflies`]) and
//! cost about twice an ordinary level; the plan puts them in the sweeps that wait on the
//! L3 or on memory, where they fill the wait instead of adding to the compute-bound
//! sweeps in the L1 and L2 ([`Stage`]).
//!
//! For 2^24 values (64 MiB) that is two passes over memory: the local pass reads each
//! 8 MiB region from memory once, transforms its 256 KiB blocks in the L2 cache and then
//! applies levels 16–20 to the region while the L3 cache still holds it; one stream pass
//! applies levels 21–23 to eight rows at a time. Both passes move the whole array
//! through memory in long sequential runs, which the hardware prefetchers keep ahead of.
//! On two threads `parallel` runs within about 2× of `stream-x2`, two plain read+write
//! passes over the same array (`cargo bench --bench wht`, 2^24): the local pass is
//! compute-bound and scales 1.8× with two threads, the stream pass is memory-bound, as
//! fast as one `stream-x2` pass. Two threads scale like this only with the workers
//! pinned to their own cores (`crate::sched`).
//!
//! Why not a column pass for the top levels, as before: levels 16–23 on tiles of 256
//! rows, each 256 KiB from the next, form a gather that cannot run ahead (the rows share
//! cache sets, and each row's 1 KiB piece is too short for the prefetchers); it waited
//! on memory for two thirds of its time, about five times a sequential read and write of
//! the array (`cargo bench --bench wht`; figures in docs/design/cards.md).
//!
//! The same code runs on one thread (`tiled`) or on the scheduler's threads
//! (`parallel`): a pass is a list of independent jobs (regions, or bands of columns of
//! the stream rows), and there is one synchronisation per pass, never one per level.

use super::butterflies::{Vector, as_vectors, in_vector_levels, lane_levels, radix, sweep_levels};
use super::wht_scalar;
use crate::arith::{LANES, ModLanes};
use crate::platform::Caches;
use crate::sched::{Progress, Scheduler};
use crate::simd::Simd;
use crate::simd::mont::Mont;
use std::sync::atomic::{AtomicU64, Ordering};

/// log2 of the lanes per vector.
const LANE_LOG: u32 = LANES.trailing_zeros();

/// The largest region, 2^21 values (8 MiB; see [`Tiling::for_caches`]).
const MAX_REGION_LOG: u32 = 21;

/// Regions per worker that a plan aims for ([`Tiling::for_workers`]): with two, a worker
/// that finishes first takes another region instead of waiting for the last one.
const REGIONS_PER_WORKER: usize = 2;

/// Tile sizes, each the log2 of an element count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tiling {
    /// Sub-blocks transformed entirely inside the L1 cache (levels `0..l1_log`).
    pub l1_log: u32,
    /// Blocks inside the L2 cache (levels `l1_log..block_log`).
    pub block_log: u32,
    /// Regions kept in the L3 cache while their blocks are done (levels
    /// `block_log..region_log`): the local pass.
    pub region_log: u32,
    /// The most levels one stream pass applies (`1..=3`: at most eight rows in registers).
    pub stream_levels: u32,
    /// Elements of one stream job (its rows times its columns): one unit of work for
    /// the scheduler.
    pub job_log: u32,
    /// Where the in-vector levels 0 and 1 are applied.
    pub low_lanes: Stage,
    /// Where the in-vector levels 2 and 3 are applied.
    pub high_lanes: Stage,
}

/// Where a plan applies a pair of in-vector levels. They commute with every other level,
/// so any placement computes the same transform; what differs is whether their extra
/// cost (a shuffle and a masked negation per vector and level) adds to a compute-bound
/// sweep or fills the wait of a memory-bound one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The first sweep of each L1 sub-block.
    SubBlock,
    /// The first sweep over each region (falls back to `SubBlock` when a region has no
    /// levels of its own).
    Region,
    /// The first stream pass (falls back to `SubBlock` when there is no stream pass).
    Stream,
}

/// One pass over the array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// Levels `0..region_log`, region by region: in each, block by block, sub-block by
    /// sub-block (see the module documentation).
    Local {
        /// log2 of the sub-block length.
        l1_log: u32,
        /// log2 of the block length.
        block_log: u32,
        /// log2 of the region length.
        region_log: u32,
        /// The in-vector levels ([`lane_levels`]) the first sweep of each sub-block applies.
        sub_block_lanes: u32,
        /// The in-vector levels the first sweep over each region applies.
        region_lanes: u32,
    },
    /// Levels `lo..hi` on rows `2^lo` elements apart, one vector of each row at a time.
    Stream {
        /// The first level.
        lo: u32,
        /// One past the last level.
        hi: u32,
        /// The in-vector levels ([`lane_levels`]) this pass applies as well.
        lanes: u32,
    },
}

impl Tiling {
    /// The tiles of the cache sizes the project falls back to when it cannot read them
    /// (Zen 3: 32 KiB L1d, 512 KiB L2, 32 MiB L3): [`Tiling::for_caches`] of
    /// [`Caches::FALLBACK`]. Run-time callers use [`Tiling::detect`].
    pub const DEFAULT: Tiling = Tiling::for_caches(&Caches::FALLBACK);

    /// The tiles of this machine's caches ([`Caches::detect`]).
    pub fn detect() -> Tiling {
        Tiling::for_caches(&Caches::detect())
    }

    /// The tiles for caches of these sizes. Chosen on the Zen 4 (32 KiB L1d and 1 MiB L2
    /// per core, 32 MiB L3 shared; `cargo bench --bench wht`), where the rules below give
    /// 8 KiB, 256 KiB and 8 MiB: sub-blocks of a quarter of the L1 leave most of it to
    /// the block being streamed in (2–3% faster than half); blocks of a quarter of the L2
    /// leave room for what the prefetchers bring in next; regions of a quarter of the L3
    /// let two threads keep theirs in it together with room to spare; 4 MiB stream jobs
    /// make 16 jobs at 2^24, several per thread. Each size is rounded down to a power of
    /// two and kept inside the plan's invariants (see [`Tiling::validate`]). Regions stop
    /// at 8 MiB whatever the L3: a virtual machine may report its host's whole shared L3
    /// (480 MiB on the Intel Xeon of `results/`), of which it gets a slice, and a single
    /// region of the whole array leaves one job for all workers. There, 8 MiB regions took
    /// cards from 144 to 82 ms with AVX2 and from 102 to 64 ms with AVX-512 (2 threads,
    /// 2^24, median of 5 alternated runs); 4 MiB regions ran as fast, 32 MiB ones 5% slower.
    ///
    /// The in-vector levels, which cost about twice an ordinary level, go to the two
    /// sweeps that wait on memory rather than on arithmetic: levels 0–1 to the first
    /// sweep over each region (it streams the region from the L3), levels 2–3 to the
    /// stream pass (it streams the array from memory): 2–4% faster at 2^24 than all four
    /// in the stream pass, 7–17% than all four in the compute-bound sub-block sweep
    /// (`cargo bench --bench wht`, `tiled` and `parallel`; docs/design/cards.md).
    pub const fn for_caches(caches: &Caches) -> Tiling {
        // log2 of a quarter of `bytes`, in 4-byte elements.
        const fn quarter_log(bytes: usize) -> u32 {
            let elements = bytes / 16;
            if elements == 0 { 0 } else { elements.ilog2() }
        }
        const fn clamp(x: u32, lo: u32, hi: u32) -> u32 {
            if x < lo {
                lo
            } else if x > hi {
                hi
            } else {
                x
            }
        }
        let l1_log = clamp(quarter_log(caches.l1d), LANE_LOG, 16);
        let block_log = clamp(quarter_log(caches.l2), l1_log, 22);
        let region_log = clamp(quarter_log(caches.l3), block_log, MAX_REGION_LOG);
        Tiling {
            l1_log,
            block_log,
            region_log,
            stream_levels: 3,
            job_log: 20,
            low_lanes: Stage::Region,
            high_lanes: Stage::Stream,
        }
    }

    /// This tiling with regions made smaller, never below a block, until a transform of
    /// `2^log_len` values has two regions (`REGIONS_PER_WORKER`) for each of `workers`: the
    /// local pass (and a power sum fused into it) runs one job per region, so fewer
    /// regions than workers would leave workers idle.
    pub fn for_workers(&self, log_len: u32, workers: usize) -> Tiling {
        let wanted_log = (workers.max(1) * REGIONS_PER_WORKER).next_power_of_two().trailing_zeros();
        let region_log = self.region_log.min(log_len.saturating_sub(wanted_log)).max(self.block_log);
        Tiling { region_log, ..*self }
    }

    /// Checks the invariants the passes rely on.
    ///
    /// # Panics
    /// Unless `4 <= l1_log <= block_log <= region_log`, `1 <= stream_levels <= 3` and
    /// `stream_levels + 4 <= job_log`.
    pub fn validate(&self) {
        assert!(
            LANE_LOG <= self.l1_log
                && self.l1_log <= self.block_log
                && self.block_log <= self.region_log
                && (1..=3).contains(&self.stream_levels)
                && self.stream_levels + LANE_LOG <= self.job_log,
            "inconsistent tiling {self:?}"
        );
    }

    /// The passes for a transform of `2^log_len` elements (`log_len >= 4`): one local
    /// pass, then as few stream passes as `stream_levels` allows, sharing the remaining
    /// levels evenly.
    pub fn plan(&self, log_len: u32) -> Vec<Pass> {
        self.validate();
        assert!(log_len >= LANE_LOG, "the tiled plan needs at least one vector, got 2^{log_len}");
        let region_log = log_len.min(self.region_log);
        let block_log = region_log.min(self.block_log);
        let l1_log = block_log.min(self.l1_log);
        // Each pair of in-vector levels goes where the tiling asks, if that stage exists.
        let mut placed = [0u32; 3];
        for (stage, levels) in [(self.low_lanes, lane_levels::LOW), (self.high_lanes, lane_levels::HIGH)] {
            let stage = match stage {
                Stage::Stream if region_log == log_len => Stage::SubBlock,
                Stage::Region if block_log == region_log => Stage::SubBlock,
                stage => stage,
            };
            placed[stage as usize] |= levels;
        }
        let [sub_block_lanes, region_lanes, stream_lanes] = placed;
        let mut passes = vec![Pass::Local { l1_log, block_log, region_log, sub_block_lanes, region_lanes }];
        let mut lo = region_log;
        while lo < log_len {
            let passes_left = (log_len - lo).div_ceil(self.stream_levels);
            let hi = lo + (log_len - lo).div_ceil(passes_left);
            let lanes = if lo == region_log { stream_lanes } else { lane_levels::NONE };
            passes.push(Pass::Stream { lo, hi, lanes });
            lo = hi;
        }
        passes
    }
}

/// Walsh–Hadamard transform of `data` (length a power of two, residues below `p`) with
/// this machine's tiling, on one thread and `simd`'s backend.
pub fn wht_tiled(simd: Simd, data: &mut [u32], p: u32) {
    wht_tiled_with(data, p, &Tiling::detect(), &Scheduler::sequential().with_simd(simd));
}

/// The tiled transform with an explicit tiling, on the scheduler's threads and backend.
pub fn wht_tiled_with(data: &mut [u32], p: u32, tiling: &Tiling, sched: &Scheduler) {
    if data.len() < LANES {
        return wht_scalar(data, p);
    }
    wht_tiled_then(data, p, tiling, sched, true, &|_: &[u32]| 0, 1);
}

/// Runs the tiled transform (`data.len() >= 16`, a power of two, residues below the odd
/// `p < 2^31`) and hands every piece of the last pass, once transformed, to `finish`;
/// returns the sum of what it returned.
/// The pieces cover the array exactly once, each a whole number of 16-value vectors: at
/// most [`FINISH_PIECE`] values of each row of a stream job when the last pass is a
/// stream pass, a whole region otherwise. With `write_back` false a last stream pass
/// hands over pieces of a scratch buffer instead of storing into `data` (which is then
/// left partly transformed): a consumer such as a power sum saves a write of the whole
/// array. `last_weight` is the cost of the last pass relative to the others, for the
/// progress bar. The butterflies run on the scheduler's backend (`finish` chooses its
/// own).
#[allow(clippy::too_many_arguments)]
pub fn wht_tiled_then<F>(
    data: &mut [u32],
    p: u32,
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
    assert!(p % 2 == 1 && (3..1 << 31).contains(&p), "WHT modulus {p} must be odd, 3 <= p < 2^31");
    let log_len = data.len().trailing_zeros();
    let plan = tiling.for_workers(log_len, sched.threads()).plan(log_len);
    let units = (plan.len() as u64 - 1 + last_weight) * data.len() as u64;
    let progress = sched.progress(units, "transform");
    let mut total = 0;
    for (i, &pass) in plan.iter().enumerate() {
        let last = (i + 1 == plan.len()).then_some(finish);
        let weight = if last.is_some() { last_weight } else { 1 };
        total += match pass {
            Pass::Local { .. } => local_pass(data, p, pass, sched, last, &progress, weight),
            Pass::Stream { lo, hi, lanes: in_vector } => {
                let write_back = write_back || last.is_none();
                let shape = (lo, hi, in_vector);
                stream_pass(data, p, shape, tiling.job_log, sched, last, write_back, &progress, weight)
            }
        };
    }
    total
}

/// Levels `0..region_log` on each region (see the module documentation).
fn local_pass<F: Fn(&[u32]) -> u64 + Sync>(
    data: &mut [u32],
    p: u32,
    pass: Pass,
    sched: &Scheduler,
    finish: Option<&F>,
    progress: &Progress,
    weight: u64,
) -> u64 {
    let Pass::Local { region_log, .. } = pass else { unreachable!("local_pass runs local passes") };
    let simd = sched.simd();
    let total = AtomicU64::new(0);
    sched.for_each_chunk(data, 1 << region_log, |_, region| {
        local_region(simd, region, p, pass);
        if let Some(f) = finish {
            total.fetch_add(f(region), Ordering::Relaxed);
        }
        progress.inc(weight * region.len() as u64);
    });
    total.into_inner()
}

crate::multiversion! {
    /// The local pass on one region (a job of its own: the closure that runs it on a
    /// worker calls this entry point, since closures do not inherit target features).
    fn local_region(region: &mut [u32], p: u32, pass: Pass) => local_region_generic;
}

#[inline(always)]
fn local_region_generic<B: Mont>(region: &mut [u32], p: u32, pass: Pass) {
    let Pass::Local { l1_log, block_log, region_log, sub_block_lanes, region_lanes } = pass else {
        unreachable!("local_pass runs local passes")
    };
    let lanes = ModLanes::<B>::new(p).expect("checked by wht_tiled_then");
    let vectors = as_vectors(region);
    for block in vectors.chunks_exact_mut(1 << (block_log - LANE_LOG)) {
        for sub in block.chunks_exact_mut(1 << (l1_log - LANE_LOG)) {
            sweep_levels(&lanes, sub, 0, l1_log - LANE_LOG, sub_block_lanes);
        }
        sweep_levels(&lanes, block, l1_log - LANE_LOG, block_log - LANE_LOG, lane_levels::NONE);
    }
    sweep_levels(&lanes, vectors, block_log - LANE_LOG, region_log - LANE_LOG, region_lanes);
}

/// What a stream job hands each transformed piece to (see [`wht_tiled_then`]).
type Finish<'a> = dyn Fn(&[u32]) -> u64 + 'a;

/// Elements of each row a stream job transforms before handing them to `finish`: with
/// eight rows, 32 KiB, so the pieces are still in the L1 or L2 cache when read again.
pub const FINISH_PIECE: usize = 1 << 10;

/// Levels `lo..hi` on rows `2^lo` apart (see the module documentation).
#[allow(clippy::too_many_arguments)]
fn stream_pass<F: Fn(&[u32]) -> u64 + Sync>(
    data: &mut [u32],
    p: u32,
    (lo, hi, in_vector): (u32, u32, u32),
    job_log: u32,
    sched: &Scheduler,
    finish: Option<&F>,
    write_back: bool,
    progress: &Progress,
    weight: u64,
) -> u64 {
    let rows = 1usize << (hi - lo);
    let row_len = 1usize << lo;
    // A power of two with 16 <= job_width <= row_len (job_log >= (hi - lo) + 4 and
    // lo >= region_log >= 4).
    let job_width = row_len.min((1 << job_log) / rows);
    // A job owns the same band of columns in every row of one run of 2^hi elements:
    // splitting rows into pieces hands each job disjoint `&mut` slices.
    let mut jobs: Vec<Vec<&mut [Vector]>> = Vec::with_capacity(data.len() / (rows * job_width));
    for run in data.chunks_exact_mut(rows * row_len) {
        let first = jobs.len();
        jobs.extend((0..row_len / job_width).map(|_| Vec::with_capacity(rows)));
        for row in run.chunks_exact_mut(row_len) {
            for (band, piece) in row.chunks_exact_mut(job_width).enumerate() {
                jobs[first + band].push(as_vectors(piece));
            }
        }
    }
    let simd = sched.simd();
    let total = AtomicU64::new(0);
    sched.for_each_chunk(&mut jobs, 1, |_, job| {
        let finish = finish.map(|f| f as &Finish);
        let sum = stream_job(simd, &mut job[0], p, in_vector, job_width, finish, write_back);
        total.fetch_add(sum, Ordering::Relaxed);
        progress.inc(weight * (rows * job_width) as u64);
    });
    total.into_inner()
}

crate::multiversion! {
    /// One stream job: the same `job_width` columns of each of its rows (a job of its own,
    /// see [`local_region`]).
    fn stream_job(
        pieces: &mut [&mut [Vector]],
        p: u32,
        in_vector: u32,
        job_width: usize,
        finish: Option<&Finish>,
        write_back: bool,
    ) -> u64 => stream_job_generic;
}

#[inline(always)]
fn stream_job_generic<B: Mont>(
    pieces: &mut [&mut [Vector]],
    p: u32,
    in_vector: u32,
    job_width: usize,
    finish: Option<&Finish>,
    write_back: bool,
) -> u64 {
    let lanes = ModLanes::<B>::new(p).expect("checked by wht_tiled_then");
    let rows = pieces.len();
    let mut scratch: Vec<Vector> = if write_back { Vec::new() } else { vec![[0; LANES]; rows * FINISH_PIECE / LANES] };
    let mut sum = 0;
    for start in (0..job_width / LANES).step_by(FINISH_PIECE / LANES) {
        let end = (start + FINISH_PIECE / LANES).min(job_width / LANES);
        let out = if write_back { None } else { Some(&mut scratch[..rows * (end - start)]) };
        match rows {
            2 => stream_rows_with::<B, 2>(&lanes, pieces, start..end, in_vector, out),
            4 => stream_rows_with::<B, 4>(&lanes, pieces, start..end, in_vector, out),
            _ => stream_rows_with::<B, 8>(&lanes, pieces, start..end, in_vector, out),
        }
        if let Some(f) = finish {
            if write_back {
                sum += pieces.iter().map(|piece| f(piece[start..end].as_flattened())).sum::<u64>();
            } else {
                sum += f(scratch[..rows * (end - start)].as_flattened());
            }
        }
    }
    sum
}

/// [`stream_rows`] with its set of in-vector levels chosen at run time.
#[inline(always)]
fn stream_rows_with<B: Mont, const N: usize>(
    lanes: &ModLanes<B>,
    rows: &mut [&mut [Vector]],
    range: std::ops::Range<usize>,
    in_vector: u32,
    out: Option<&mut [Vector]>,
) {
    use lane_levels::{ALL, HIGH, LOW, NONE};
    match in_vector {
        NONE => stream_rows::<B, N, NONE>(lanes, rows, range, out),
        LOW => stream_rows::<B, N, LOW>(lanes, rows, range, out),
        HIGH => stream_rows::<B, N, HIGH>(lanes, rows, range, out),
        _ => stream_rows::<B, N, ALL>(lanes, rows, range, out),
    }
}

/// Butterflies among `N` rows, vectors `range` of each, after the in-vector levels of the
/// set `IN_VECTOR` on every vector: results back into the rows, or into `out` (row `j`'s
/// vectors at `j * range.len()`) when given.
#[inline(always)]
fn stream_rows<B: Mont, const N: usize, const IN_VECTOR: u32>(
    lanes: &ModLanes<B>,
    rows: &mut [&mut [Vector]],
    range: std::ops::Range<usize>,
    out: Option<&mut [Vector]>,
) {
    // A local copy keeps the modulus in a register (see `butterflies::sweep`).
    let lanes = *lanes;
    let upper = B::upper_lanes();
    let rows: &mut [&mut [Vector]; N] = rows.try_into().expect("one piece per row");
    // Each row cut to `range` once: the loops below then index slices whose length is
    // the loop bound, and keep the row pointers in registers.
    let mut rows: [&mut [Vector]; N] = rows.each_mut().map(|row| &mut row[range.clone()]);
    let width = range.len();
    match out {
        None => {
            for v in 0..width {
                let mut x: [B::V; N] = [B::splat(0); N];
                for (j, xj) in x.iter_mut().enumerate() {
                    *xj = in_vector_levels::<B, IN_VECTOR>(&lanes, upper, B::load(&rows[j][v]));
                }
                radix(&lanes, &mut x);
                for (row, xj) in rows.iter_mut().zip(x) {
                    B::store(&mut row[v], xj);
                }
            }
        }
        Some(out) => {
            let mut pieces = out.chunks_exact_mut(width);
            let mut out: [&mut [Vector]; N] = std::array::from_fn(|_| pieces.next().expect("a piece of out per row"));
            for v in 0..width {
                let mut x: [B::V; N] = [B::splat(0); N];
                for (j, xj) in x.iter_mut().enumerate() {
                    *xj = in_vector_levels::<B, IN_VECTOR>(&lanes, upper, B::load(&rows[j][v]));
                }
                radix(&lanes, &mut x);
                for (piece, xj) in out.iter_mut().zip(x) {
                    B::store(&mut piece[v], xj);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_cover_every_level_once() {
        let stages = [Stage::SubBlock, Stage::Region, Stage::Stream];
        let placements = stages.iter().flat_map(|&low| stages.iter().map(move |&high| (low, high)));
        for (low_lanes, high_lanes) in placements {
            let tiling = Tiling { low_lanes, high_lanes, ..Tiling::DEFAULT };
            for log_len in 4..=30 {
                let plan = tiling.plan(log_len);
                let (mut next, mut lanes) = (0, 0);
                let mut add_lanes = |set: u32| {
                    assert_eq!(lanes & set, 0, "2^{log_len}: in-vector levels twice in {plan:?}");
                    lanes |= set;
                };
                for pass in &plan {
                    match *pass {
                        Pass::Local { l1_log, block_log, region_log, sub_block_lanes, region_lanes } => {
                            assert!(l1_log <= block_log && block_log <= region_log);
                            assert!(region_lanes == 0 || block_log < region_log, "{plan:?}");
                            add_lanes(sub_block_lanes);
                            add_lanes(region_lanes);
                            next = region_log;
                        }
                        Pass::Stream { lo, hi, lanes } => {
                            assert_eq!(lo, next, "2^{log_len}: {plan:?}");
                            assert!(hi > lo && hi - lo <= tiling.stream_levels);
                            add_lanes(lanes);
                            next = hi;
                        }
                    }
                }
                assert_eq!(next, log_len, "{plan:?}");
                assert_eq!(lanes, lane_levels::ALL, "2^{log_len}: {plan:?}");
            }
        }
        // The showcase size crosses memory twice; the largest four times.
        assert_eq!(Tiling::DEFAULT.plan(24).len(), 2);
        assert_eq!(Tiling::DEFAULT.plan(30).len(), 4);
    }

    #[test]
    fn regions_are_capped_and_shared_among_workers() {
        let huge_l3 = Tiling::for_caches(&Caches { l3: 480 << 20, ..Caches::FALLBACK });
        assert_eq!(huge_l3.region_log, MAX_REGION_LOG);
        let regions = |tiling: &Tiling, log_len: u32| match tiling.plan(log_len)[0] {
            Pass::Local { region_log, .. } => 1usize << (log_len - region_log),
            Pass::Stream { .. } => unreachable!("a plan starts with its local pass"),
        };
        for workers in [1, 2, 3, 8, 64] {
            for log_len in 4..=30 {
                let tiling = Tiling::DEFAULT.for_workers(log_len, workers);
                tiling.validate();
                assert!(tiling.region_log <= Tiling::DEFAULT.region_log);
                let wanted = REGIONS_PER_WORKER * workers;
                // Enough regions, unless a region is already a single block.
                let enough = regions(&tiling, log_len) >= wanted || tiling.region_log == tiling.block_log;
                assert!(enough || log_len <= tiling.region_log, "{workers} workers, 2^{log_len}: {tiling:?}");
            }
        }
        assert!(regions(&Tiling::DEFAULT.for_workers(24, 2), 24) >= 4);
    }

    #[test]
    fn finish_sees_every_transformed_value_once() {
        // An order-independent digest of the pieces handed to `finish` must equal that of
        // the reference transform, with and without writing the last pass back, whether
        // the last pass is local or a stream pass of several finish pieces.
        let p = 2_147_483_647u32;
        let digest = |values: &[u32]| values.iter().map(|&x| (x as u64 * x as u64) % p as u64 + 1).sum::<u64>();
        let tilings = [
            Tiling {
                l1_log: 4,
                block_log: 5,
                region_log: 6,
                stream_levels: 2,
                job_log: 13,
                low_lanes: Stage::SubBlock,
                high_lanes: Stage::SubBlock,
            },
            Tiling {
                l1_log: 5,
                block_log: 6,
                region_log: 8,
                stream_levels: 3,
                job_log: 7,
                low_lanes: Stage::Region,
                high_lanes: Stage::Stream,
            },
        ];
        let mut rng = crate::kernels::SplitMix64(11);
        for log_len in [4, 6, 9, 14] {
            let input: Vec<u32> = (0..1 << log_len).map(|_| rng.below(p as u64) as u32).collect();
            let mut expected = input.clone();
            wht_scalar(&mut expected, p);
            for tiling in tilings {
                for (threads, simd) in [1, 3].into_iter().flat_map(|t| Simd::tested().into_iter().map(move |s| (t, s)))
                {
                    let sched = Scheduler::new(Some(threads)).unwrap().with_simd(simd);
                    for write_back in [true, false] {
                        let mut data = input.clone();
                        let got = wht_tiled_then(&mut data, p, &tiling, &sched, write_back, &digest, 1);
                        assert_eq!(got, digest(&expected), "{simd}: 2^{log_len} {tiling:?} write_back {write_back}");
                        if write_back {
                            assert_eq!(data, expected);
                        }
                    }
                }
            }
        }
    }
}
