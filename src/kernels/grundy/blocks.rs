//! The sparse-space method with each block's pairs marked by lag, in vector lanes
//! (docs/theory/octal.md §4.5).
//!
//! Heaps are taken in blocks `[n0, n0 + B)`. A pair of a rare heap `r` with its partner
//! `b = x - i - r` (removal `i`) has *lag* `L = i + r`: over the block its partners are
//! the consecutive heaps `x - L`, so the partners of a lane group of eight heaps
//! `x0..x0 + 8` all lie below `n0` when `L >= x0 + 8 - n0`, and one load of `G(x - L)`,
//! xored with `G(r)`, gives that pair's option in eight lanes. Every such option is ORed
//! into a per-heap bitset of seen values, several words per lane, the accumulators kept
//! in registers across all the lags: contiguous loads in place of the sparse variant's
//! gathers `G(x - i - r)`. The few lags too short for a heap's lane group are marked
//! heap by heap, for the partners below `n0`.
//!
//! Pairs of equal lag and value give the same options and are marked once. A rare heap
//! whose pairs reach past the block's start (`L >= n0`), or whose equal split in
//! Grundy's game falls inside the block, is paired heap by heap; the pairs with
//! a heap or partner inside the block are left to the sequential step, as in the
//! parallel variant.
//!
//! On two threads, once many heaps are left, the blocks are pipelined (`pipelined`): a
//! second thread selects the next block's lags and marks those whose partners lie
//! before the block being computed, while the first computes it; the first waits for
//! the second at most a couple of microseconds. The second thread then also marks
//! *cover lags*: the pairs `(a, x - i - a)` of every heap `a` from 65 to a few hundred,
//! rare or not, which the search of each heap passes over (§4.5). On one thread these
//! lags cost more than the search they save; on the second they are free while it keeps
//! ahead.

use super::search::CHUNK;
use super::sparse::steps::{Marks, State, Words, sparse_value};
use super::{Checkpoints, Overflow, Rules, SeenBits, grundy_bitset, grundy_sparse, store};
use crate::sched::{Scheduler, lock_within};
use crate::simd::Simd;
use crate::simd::dots::{Dots, RING_LANES, RingVec};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// Heaps per block: long enough to amortise selecting the block's lags, short enough
/// that few pairs have their partner inside it. N = 10^6, 2 threads, Intel Xeon
/// (`avx512`), against 64: 0.354 197 -> 182 ms, 0.16 141 -> 129 ms, Grundy's game level
/// (935 -> 930 ms); 16 is slower again for 0.354 and Grundy's game (200 and 967 ms).
pub const BLOCK_HEAPS: usize = 32;
/// Heaps times split removals below which the bitset variant's scans, O(N^2) but a few
/// instructions per 32 pairs, beat the sparse method's fixed cost per heap (crossover
/// near 2^12 for 0.354 and 2^13 for Grundy's game, results/grundy-scaling.csv).
pub const BITSET_HEAPS: usize = 4096;
/// Heaps per lane group: eight 64-bit lanes, one AVX-512 register or two AVX2 ones.
const LANES: usize = RING_LANES;

/// One lag of the block: the options `value ^ G(x - lag)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Lag {
    lag: u32,
    value: u16,
}

/// Extends `g` to heaps `0..=max_heap` by blocks of lag-marked pairs.
pub fn grundy_lag_blocks(rules: &Rules, g: &mut Vec<u16>, max_heap: usize, sched: &Scheduler) -> Result<(), Overflow> {
    grundy_lag_blocks_checked(rules, g, max_heap, sched, &mut Checkpoints::none())
}

/// [`grundy_lag_blocks`], offering the table to `checks` at the end of a block.
pub fn grundy_lag_blocks_checked(
    rules: &Rules,
    g: &mut Vec<u16>,
    max_heap: usize,
    sched: &Scheduler,
    checks: &mut Checkpoints<'_>,
) -> Result<(), Overflow> {
    let bitset_heaps = BITSET_HEAPS / rules.split_removals().count().max(1);
    let cover_from = cover_range(BLOCK_HEAPS, usize::MAX).0;
    let layout = Layout {
        block: BLOCK_HEAPS,
        bitset_heaps,
        pipeline_heaps: PIPELINE_HEAPS,
        cover_heaps: cover_from + COVER_LAGS / rules.split_removals().count().max(1),
        cover_max_heaps: cover_from + COVER_MAX_CHUNKS * CHUNK,
    };
    grundy_lag_blocks_in(rules, g, max_heap, sched, layout, checks)
}

/// [`grundy_lag_blocks`] with blocks of `block` heaps (tests use short ones; `block` is
/// rounded up to whole lane groups), the first `bitset_heaps` heaps by the bitset
/// variant, on one thread.
pub fn grundy_lag_blocks_with(
    rules: &Rules,
    g: &mut Vec<u16>,
    max_heap: usize,
    sched: &Scheduler,
    block: usize,
    bitset_heaps: usize,
) -> Result<(), Overflow> {
    let layout = Layout { block, bitset_heaps, pipeline_heaps: usize::MAX, cover_heaps: 0, cover_max_heaps: 0 };
    grundy_lag_blocks_in(rules, g, max_heap, sched, layout, &mut Checkpoints::none())
}

/// How a run of [`grundy_lag_blocks`] is cut up.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// Heaps per block (rounded up to whole lane groups).
    pub block: usize,
    /// Heaps computed first by the bitset variant.
    pub bitset_heaps: usize,
    /// Heaps still to compute from which two or more threads pipeline the blocks (see
    /// the module docs); `usize::MAX` for never.
    pub pipeline_heaps: usize,
    /// In the pipeline, the second thread also marks the pairs `(a, x - i - a)` of every
    /// heap `a` below this (0 for none), from the first `a` past the reach of the last
    /// two blocks (`cover_range`), which the search then passes over.
    pub cover_heaps: usize,
    /// The most heaps the cover may grow to (`CoverSize`); at most `cover_heaps` for
    /// a cover that only shrinks.
    pub cover_max_heaps: usize,
}

/// [`grundy_lag_blocks`] cut up by `layout`, offering the table to `checks`.
pub fn grundy_lag_blocks_in(
    rules: &Rules,
    g: &mut Vec<u16>,
    max_heap: usize,
    sched: &Scheduler,
    layout: Layout,
    checks: &mut Checkpoints<'_>,
) -> Result<(), Overflow> {
    let block = layout.block.max(1).next_multiple_of(LANES);
    // The first few thousand heaps go faster by plain scans; below a few blocks the
    // lanes would carry little in any case.
    let scans = layout.bitset_heaps.min(max_heap);
    if g.len() <= scans {
        grundy_bitset(sched.simd(), rules, g, scans)?;
    }
    let warm_up = (2 * block).min(max_heap);
    if g.len() <= warm_up {
        grundy_sparse(sched.simd(), rules, g, warm_up)?;
    }
    // The blocks start on cache lines of the table, which is reserved for the whole run
    // first so that it never moves. In the pipeline the second thread reads the values
    // up to the end of the block before the one being computed: a line shared by the
    // end of that block and the start of the next moved between the cores at every
    // heap (docs/design/octal.md).
    g.reserve_exact((max_heap + 1).saturating_sub(g.len()));
    let to_line = heaps_to_line(g);
    if to_line > 0 && g.len() + to_line <= max_heap + 1 {
        grundy_sparse(sched.simd(), rules, g, g.len() + to_line - 1)?;
    }
    if checks.stop_at(g) {
        return Ok(());
    }
    let mut front = Front::start(sched.simd(), rules, g);
    let mut marks = BlockMarks::default();
    while front.g.len() <= max_heap {
        front.prepare(rules, &mut marks, block);
        front.finish(rules, &marks, None, block, max_heap)?;
        if checks.stop_at(front.g) {
            return Ok(());
        }
        let left = (max_heap + 1).saturating_sub(front.g.len());
        if sched.threads() >= 2 && left >= layout.pipeline_heaps.max(1) {
            let cover = (layout.cover_heaps, layout.cover_max_heaps);
            return pipelined(rules, front, max_heap, sched, block, cover, checks).map(|_| ());
        }
    }
    Ok(())
}

/// Bytes of a cache line.
const LINE_BYTES: usize = 64;

/// The values to append to `g` before the next one starts a cache line.
fn heaps_to_line(g: &[u16]) -> usize {
    let end = g.as_ptr() as usize + std::mem::size_of_val(g);
    (LINE_BYTES - end % LINE_BYTES) % LINE_BYTES / std::mem::size_of::<u16>()
}

/// Heaps still to compute from which two threads pipeline the blocks: below it the
/// pool's start (a few hundred microseconds) is not repaid.
pub const PIPELINE_HEAPS: usize = 1 << 16;
/// How long the pipeline's first thread waits for a block's lag marks that the second
/// is still making, before it makes them itself: about the second thread's time for
/// the rare lags of 0.354 (264 lags over four lane groups).
const HANDOVER_WAIT: Duration = Duration::from_micros(2);
/// Cover lags (see [`Layout::cover_heaps`]) the pipeline's second thread starts with per
/// block, over all the split removals; `CoverSize` then moves the cover's end.
pub const COVER_LAGS: usize = 384;

/// The most chunks of heaps the cover may grow to (past the reach of the last two
/// blocks). At N = 10^6 the cover's end settles between 193 and 385 for 0.16, at 129
/// for 0.354, and between 769 and 961 for Grundy's game, whose heaps are slow.
pub const COVER_MAX_CHUNKS: usize = 16;

/// Blocks between two moves of the cover's end.
const COVER_WINDOW: usize = 128;

/// The end of the covered heaps, moved a chunk of the search at a time by how often the
/// second thread marked a block's whole cover before the first reached the block: one
/// chunk further when it did for 90% of the blocks of a window, one chunk back below
/// 75%. A cover the first thread finds unfinished is mostly lost (its heaps search the
/// pairs themselves), one finished early leaves the second thread idle; which size
/// balances the two depends on the game (theory §4.5: any size is exact). N = 10^6, 2
/// threads, Intel Xeon (`avx512`), fixed sizes, alternated: 0.16 fastest with 256
/// cover lags (82% in time; 384 lags: 58%, 4.6% slower), 0.354 with 128 (384: 7%
/// slower), Grundy's game with about 450 (128: 9% slower).
#[derive(Clone, Copy, Debug)]
struct CoverSize {
    /// The least and the most the end may be.
    ends: (usize, usize),
    blocks: usize,
    in_time: usize,
}

impl CoverSize {
    /// For the covered heaps `covered` (from `cover_range`), whose end may grow to
    /// `max_end`; `covered.0 + CHUNK` at least, unless `covered` is shorter already.
    fn new(covered: (usize, usize), max_end: usize) -> Self {
        let least = covered.1.min(covered.0 + CHUNK);
        Self { ends: (least, max_end.max(covered.1)), blocks: 0, in_time: 0 }
    }

    /// Records a block whose cover was marked whole before the first thread reached it
    /// (`in_time`) or not; returns the next end for `end`.
    fn record(&mut self, in_time: bool, end: usize) -> usize {
        self.blocks += 1;
        self.in_time += usize::from(in_time);
        if self.blocks < COVER_WINDOW {
            return end;
        }
        let next = if 10 * self.in_time >= 9 * self.blocks {
            end + CHUNK
        } else if 4 * self.in_time < 3 * self.blocks {
            end.saturating_sub(CHUNK)
        } else {
            end
        };
        (self.blocks, self.in_time) = (0, 0);
        next.clamp(self.ends.0, self.ends.1)
    }
}

/// The sequential side of a run: the table, the sparse-space state and what each heap
/// reuses.
struct Front<'g> {
    g: &'g mut Vec<u16>,
    state: State,
    seen: SeenBits,
    all_lags: AllLags,
    short_from: Vec<usize>,
    short_to: Vec<usize>,
    /// Zeros in place of a block's cover marks.
    no_cover: Vec<u64>,
    simd: Simd,
}

impl<'g> Front<'g> {
    fn start(simd: Simd, rules: &Rules, g: &'g mut Vec<u16>) -> Self {
        let state = State::start(simd, rules, g);
        let seen = SeenBits::new(state.seen_len());
        Self {
            g,
            state,
            seen,
            all_lags: AllLags::default(),
            short_from: Vec::new(),
            short_to: Vec::new(),
            no_cover: Vec::new(),
            simd,
        }
    }

    /// What the lags of a block are selected for: the mask, the number of rare heaps
    /// (together they fix the rare heaps) and the words of the option sets.
    fn lag_key(&self) -> LagKey {
        (self.state.mask(), self.state.rare().len(), self.state.option_words())
    }

    /// Selects and marks the lags of the block starting at the table's end.
    fn prepare(&mut self, rules: &Rules, marks: &mut BlockMarks, block: usize) {
        self.all_lags.update(rules, self.g, self.state.rare(), self.state.mask());
        marks.prepare(self.simd, rules, self.g, &self.all_lags, self.g.len(), block, self.lag_key());
    }

    /// Computes the heaps of the block starting at the table's end, whose lags `marks`
    /// holds, all of them marked, with the cover marks of `cover` when there are some.
    fn finish(
        &mut self,
        rules: &Rules,
        marks: &BlockMarks,
        cover: Option<&CoverMarks>,
        block: usize,
        max_heap: usize,
    ) -> Result<(), Overflow> {
        // Without cover marks, zeros: every heap ors in a word of each (cheaper than a
        // branch per heap).
        self.no_cover.resize(marks.marks.len(), 0);
        let (covered, covered_groups, cover) = match cover {
            Some(cover) => (cover.covered, cover.groups, &cover.marks[..]),
            None => ((0, 0), 0, &self.no_cover[..]),
        };
        let n0 = self.g.len();
        debug_assert!(marks.n0 == n0 && marks.known == n0 && marks.key == Some(self.lag_key()));
        let end = (n0 + block).min(max_heap + 1);
        let (g, state, seen, lags) = (&mut *self.g, &mut self.state, &mut self.seen, &marks.lags[..]);
        let words = marks.words;
        // The lags each heap marks itself (§4.5): those above its offset and below its
        // lane group's bound, found once per block by one merge of the offsets with the
        // ascending lags: `short_from[offset]` counts the lags up to `offset`, and a lane
        // group's bound `8 (group + 1)` is the count up to its last offset.
        self.short_from.clear();
        let mut below = 0;
        for offset in 0..block {
            while below < lags.len() && lags[below].lag as usize <= offset {
                below += 1;
            }
            self.short_from.push(below);
        }
        self.short_to.clear();
        self.short_to.extend((0..block / LANES).map(|group| self.short_from[group * LANES + LANES - 1]));
        debug_assert!((0..block / LANES).all(|group| self.short_to[group] == first_lane_lag(lags, group, 0)));
        let mask = state.mask();
        let step = BlockStep { rules, single: &marks.single, n0, covered, covered_groups };
        for ((x, marked), covered_marks) in (n0..end).zip(marks.marks.chunks(words)).zip(cover.chunks(words)) {
            let short = &lags[self.short_from[x - n0]..self.short_to[(x - n0) / LANES]];
            let value = if state.mask() == mask {
                // Options below 256: the seen set in registers (`Words`).
                match state.option_words() {
                    1 => heap_value(&step, g, state, x, short, &mut Words::<1>::from_marks(marked, covered_marks)),
                    2 => heap_value(&step, g, state, x, short, &mut Words::<2>::from_marks(marked, covered_marks)),
                    4 => heap_value(&step, g, state, x, short, &mut Words::<4>::from_marks(marked, covered_marks)),
                    _ => {
                        seen.clear(state.seen_len());
                        for (s, &m) in seen.words.iter_mut().zip(marked) {
                            *s |= m;
                        }
                        for (s, &m) in seen.words.iter_mut().zip(covered_marks) {
                            *s |= m;
                        }
                        heap_value(&step, g, state, x, short, seen)
                    }
                }
            } else {
                // The rare heaps changed with the mask: pair them all again (the marked
                // values are options all the same, but not all the needed ones).
                seen.clear(state.seen_len());
                sparse_value(rules, g, x, state, seen, 0, (0, 0))
            };
            g.push(store(value, x)?);
            state.push(g, x);
        }
        Ok(())
    }
}

/// What [`heap_value`] takes for every heap of a block at `n0`: the rules, the pairs of
/// `single`, and the covered heaps of the first `covered_groups` lane groups.
struct BlockStep<'a> {
    rules: &'a Rules,
    single: &'a [(usize, usize)],
    n0: usize,
    covered: (usize, usize),
    covered_groups: usize,
}

/// `G(x)` for heap `x` of the block at `step.n0`, whose lag marks `seen` holds: the
/// pairs of `step.single` and the `short` lags marked, then the sparse-space step with
/// the rare pairs whose partners lie in the block, its search passing over the covered
/// pairs.
#[inline(always)]
fn heap_value<M: Marks>(step: &BlockStep<'_>, g: &[u16], state: &State, x: usize, short: &[Lag], seen: &mut M) -> u32 {
    mark_single(step.rules, g, step.single, step.n0, x, seen);
    mark_short_lags(g, short, x, seen);
    let covered = if x - step.n0 < LANES * step.covered_groups { step.covered } else { (0, 0) };
    sparse_value(step.rules, g, x, state, seen, step.n0, covered)
}

/// See [`Front::lag_key`].
type LagKey = (u32, usize, usize);

/// A block's lags, the pairs it marks heap by heap, and the marks of its lags.
#[derive(Default)]
struct BlockMarks {
    /// The block's first heap.
    n0: usize,
    /// The state the lags were selected for (`None`: nothing prepared).
    key: Option<LagKey>,
    /// Words per heap in `marks`.
    words: usize,
    /// The lags whose partners all lie below `known` are marked.
    known: usize,
    lags: Vec<Lag>,
    single: Vec<(usize, usize)>,
    marks: Vec<u64>,
    /// The lags and single pairs selected, before they replace `lags` and `single`.
    selected: (Vec<Lag>, Vec<(usize, usize)>),
}

impl BlockMarks {
    /// Selects the lags of the block at `n0` from `all_lags` (built for `key`), and marks
    /// those whose partners all lie below `g.len() <= n0`: every lag long enough for its
    /// lane group when the table reaches `n0`.
    #[allow(clippy::too_many_arguments)]
    fn prepare(
        &mut self,
        simd: Simd,
        rules: &Rules,
        g: &[u16],
        all_lags: &AllLags,
        n0: usize,
        block: usize,
        key: LagKey,
    ) {
        let known = g.len();
        debug_assert!(known <= n0);
        (self.n0, self.key, self.words, self.known) = (n0, Some(key), key.2, known);
        // Written only when they change: in the pipeline the first thread reads them
        // from another core, and rewriting the same values would move their cache
        // lines back and forth every block.
        let (lags, single) = &mut self.selected;
        all_lags.select(rules, n0, block, lags, single);
        if *lags != self.lags || *single != self.single {
            std::mem::swap(lags, &mut self.lags);
            std::mem::swap(single, &mut self.single);
        }
        self.marks.clear();
        self.marks.resize(block * self.words, 0);
        mark_lags(simd, g, &self.lags, n0, self.words, &mut self.marks, (n0 - known, usize::MAX));
    }

    /// Marks the lags left by [`Self::prepare`], whose partners reach `[known, n0)`,
    /// from `g`, which holds the values below `n0`.
    fn complete(&mut self, simd: Simd, g: &[u16]) {
        let reach = self.n0 - self.known;
        if reach > 0 {
            mark_lags(simd, &g[..self.n0], &self.lags, self.n0, self.words, &mut self.marks, (0, reach));
            self.known = self.n0;
        }
    }
}

/// The marks of a block's cover lags ([`AllLags::cover`]), kept apart from its
/// [`BlockMarks`] so that the first thread can go on without them when they are late.
#[derive(Default)]
struct CoverMarks {
    /// The block's first heap.
    n0: usize,
    /// The state the cover lags were built for (`None`: nothing prepared).
    key: Option<LagKey>,
    /// The heaps `a` whose pairs `(a, x - i - a)` are marked for every heap `x` of the
    /// first `groups` lane groups and every removal `i`: by the rare lags when `a` is
    /// rare, else by the cover lags `(i + a, G(a))`.
    covered: (usize, usize),
    /// The lane groups marked, from the first.
    groups: usize,
    /// As [`BlockMarks::marks`]; zero past the marked groups.
    marks: Vec<u64>,
}

impl CoverMarks {
    /// Starts the cover marks of the block at `n0` with no group marked, for the cover
    /// lags of `all_lags` (built for `key`) and the values below `known <= n0`. Whether
    /// they apply: the block far enough from the start that every cover pair is a split
    /// (`a < x - i - a`), and every cover lag `i + a` long enough for each lane group
    /// `k`: at least `8 (k + 1) + reach` (`first_lane_lag`).
    fn start(&mut self, rules: &Rules, known: usize, all_lags: &AllLags, n0: usize, block: usize, key: LagKey) -> bool {
        (self.n0, self.key, self.covered, self.groups) = (n0, Some(key), all_lags.covered, 0);
        self.marks.clear();
        self.marks.resize(block * key.2, 0);
        let (covered, reach) = (all_lags.covered, n0 - known);
        !(all_lags.cover.is_empty() || n0 < 2 * (covered.1 + rules.max_removed()) + 2 || covered.0 < block + reach)
    }

    /// Marks the cover lags of the next lane group from `g`, the values below the
    /// `known` of [`Self::start`]: group `k` alone is the block at `n0 + 8k` whose
    /// partners reach `8k` further.
    fn mark_group(&mut self, simd: Simd, g: &[u16], all_lags: &AllLags) {
        let (k, words) = (self.groups, self.key.expect("started").2);
        let Some(marks) = self.marks.chunks_exact_mut(LANES * words).nth(k) else {
            return;
        };
        let reach = (self.n0 - g.len() + k * LANES, usize::MAX);
        mark_lags(simd, g, &all_lags.cover, self.n0 + k * LANES, words, marks, reach);
        self.groups += 1;
    }
}

/// The heaps `a` whose pairs the pipeline's second thread marks by cover lags for blocks
/// of `block` heaps (empty for none): from the first beyond every lag of a block
/// prepared a block ahead, `2 block`, rounded up to the search's next whole chunk when
/// below `cover_heaps`, to `cover_heaps`.
fn cover_range(block: usize, cover_heaps: usize) -> (usize, usize) {
    let first = 2 * block;
    let aligned = 1 + (first - 1).next_multiple_of(CHUNK);
    match (aligned < cover_heaps, first < cover_heaps) {
        (true, _) => (aligned, cover_heaps),
        (false, true) => (first, cover_heaps),
        (false, false) => (0, 0),
    }
}

/// The blocks on two threads, one block apart: while the first thread computes the
/// heaps of a block, the second selects the lags of the next and marks those whose
/// partners lie before the block being computed; the first then marks the few lags
/// left (partners inside the block it just finished) and goes on. The first thread
/// waits at most [`HANDOVER_WAIT`] for marks in progress: a block whose marks are not
/// ready by then, or were selected for other rare heaps or another option width (a rare
/// heap or a wider value came up meanwhile), is prepared on the first thread as on one
/// thread, so the values are those of one thread, and a busy second core only costs the
/// second thread's help and the waits (docs/design/octal.md).
///
/// Returns how many blocks used the second thread's marks.
fn pipelined(
    rules: &Rules,
    mut front: Front<'_>,
    max_heap: usize,
    sched: &Scheduler,
    block: usize,
    cover_heaps: (usize, usize),
    checks: &mut Checkpoints<'_>,
) -> Result<usize, Overflow> {
    let simd = front.simd;
    let first = front.g.len();
    // The table never moves: the second thread reads its values below the published
    // length through `Published` while the first pushes past it.
    front.g.reserve_exact(max_heap + 1 - first);
    let published = Padded(Mutex::new(Published::of(&front)));
    let published = &published.0;
    let progress = Padded(AtomicUsize::new(first));
    let progress = &progress.0;
    let done = Padded(AtomicBool::new(false));
    let done = &done.0;
    // Block `k` (from `first`) has its marks prepared in slot `k % 2`.
    let slots: [Padded<Mutex<BlockMarks>>; 2] = Default::default();
    let slot_of = |n0: usize| &slots[(n0 - first) / block % 2].0;
    let cover_slots: [Padded<Mutex<CoverMarks>>; 2] = Default::default();
    let first_cover = cover_range(block, cover_heaps.0);
    let cover_slot_of = |n0: usize| &cover_slots[(n0 - first) / block % 2].0;
    let compute = || -> Result<usize, Overflow> {
        // Stops the second thread however this one ends, a panic included (else the
        // join would wait for it forever).
        let _stop = SetOnDrop(done);
        let mut own = BlockMarks::default();
        let mut handed_over = 0;
        while front.g.len() <= max_heap {
            let n0 = front.g.len();
            // A slot the second thread is still filling is waited for a little: its
            // marks are further along than this thread would get in that time. Then it
            // is passed over, so a second core taken by something else costs the wait.
            let ready = lock_within(slot_of(n0), HANDOVER_WAIT)
                .filter(|marks| marks.key == Some(front.lag_key()) && marks.n0 == n0);
            if let Some(mut marks) = ready {
                marks.complete(simd, front.g);
                // The cover marks only if they are ready too.
                let cover = cover_slot_of(n0)
                    .try_lock()
                    .ok()
                    .filter(|cover| cover.key == Some(front.lag_key()) && cover.n0 == n0 && cover.groups > 0);
                front.finish(rules, &marks, cover.as_deref(), block, max_heap)?;
                handed_over += 1;
            } else {
                front.prepare(rules, &mut own, block);
                front.finish(rules, &own, None, block, max_heap)?;
            }
            published.lock().expect("a worker panicked").update(&front);
            progress.store(front.g.len(), Ordering::Release);
            if checks.stop_at(front.g) {
                break;
            }
        }
        Ok(handed_over)
    };
    let help = || {
        let mut all_lags = AllLags::default();
        let mut prepared = first;
        let mut covered = first_cover;
        let mut cover_size = CoverSize::new(covered, cover_heaps.1);
        loop {
            let mut len = first;
            crate::sched::wait_until(|| {
                len = progress.load(Ordering::Acquire);
                done.load(Ordering::Acquire) || len + block != prepared
            });
            let n0 = len + block;
            if done.load(Ordering::Acquire) || n0 > max_heap {
                return;
            }
            let (known, key) = {
                let published = published.lock().expect("a worker panicked");
                if published.len != len {
                    // Published again meanwhile: take the newer length.
                    continue;
                }
                // SAFETY: see `Published::values`; the first thread only pushes past the
                // lengths it publishes.
                let known = unsafe { published.values() };
                // Rebuilt only when the rare heaps changed (the first thread waits for
                // that to publish, rarely: a new rare heap or mask).
                all_lags.update(rules, known, &published.rare, published.key.0);
                all_lags.update_cover(rules, known, &published.rare, covered);
                (known, published.key)
            };
            slot_of(n0).lock().expect("a worker panicked").prepare(simd, rules, known, &all_lags, n0, block, key);
            // Then the cover lags, unless the first thread has reached the block already.
            let wanted = || progress.load(Ordering::Acquire) < n0 && !done.load(Ordering::Acquire);
            // Group by group, the slot locked for each: the first thread, reaching the
            // block, takes the groups marked so far, and its lock ends the marking.
            let slot = cover_slot_of(n0);
            // `None`: too late to start; `Some(false)`: no cover for this block.
            let started = match slot.try_lock() {
                Ok(mut cover) if wanted() => Some(cover.start(rules, known.len(), &all_lags, n0, block, key)),
                _ => None,
            };
            let mut in_time = started.is_some();
            if started == Some(true) {
                for _ in 0..block / LANES {
                    match slot.try_lock() {
                        Ok(mut cover) if wanted() => cover.mark_group(simd, known, &all_lags),
                        _ => {
                            in_time = false;
                            break;
                        }
                    }
                }
            }
            if started != Some(false) && covered.1 > covered.0 {
                covered.1 = cover_size.record(in_time, covered.1);
            }
            prepared = n0;
        }
    };
    let (result, ()) = sched.join(compute, help);
    result
}

/// A value on cache lines of its own.
#[derive(Default)]
#[repr(align(128))]
struct Padded<T>(T);

/// Sets its flag when dropped.
struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// What the first thread of [`pipelined`] publishes after each block: where the table
/// ends and the state the next lags are selected for.
struct Published {
    /// The table's values, and how many of them are computed.
    table: *const u16,
    len: usize,
    key: LagKey,
    rare: Vec<u32>,
}

// SAFETY: `table` is only read, through `values`, under the contract stated there.
unsafe impl Send for Published {}

impl Published {
    fn of(front: &Front<'_>) -> Self {
        let mut published = Self { table: front.g.as_ptr(), len: 0, key: (0, usize::MAX, 0), rare: Vec::new() };
        published.update(front);
        published
    }

    /// The state after the block the first thread just finished (the rare heaps copied
    /// only when they changed).
    fn update(&mut self, front: &Front<'_>) {
        let key = front.lag_key();
        if (key.0, key.1) != (self.key.0, self.key.1) {
            self.rare.clear();
            self.rare.extend_from_slice(front.state.rare());
        }
        debug_assert_eq!(self.table, front.g.as_ptr(), "the table moved");
        (self.len, self.key) = (front.g.len(), key);
    }

    /// The computed values, `G(0..len)`.
    ///
    /// # Safety
    ///
    /// The table's buffer does not move while the caller holds the slice (its capacity
    /// was reserved for the whole run before the first publication), and nothing writes
    /// below `len` or borrows those values mutably meanwhile: the first thread only
    /// reads them and pushes past every length it has published.
    unsafe fn values<'t>(&self) -> &'t [u16] {
        // SAFETY: `table` points at the first of at least `len` initialised values of a
        // buffer that stays allocated and unwritten below `len` (the contract above).
        unsafe { std::slice::from_raw_parts(self.table, self.len) }
    }
}

/// What the cover lags are built for: the rare lags' `AllLags::built_for` and the
/// covered heaps.
type CoverKey = (Option<(u32, usize)>, (usize, usize));

/// The lags of every rare heap, sorted by lag and value, rebuilt only when the rare
/// heaps change (a new one, or a new mask): a block then selects its own in one pass.
#[derive(Default)]
struct AllLags {
    /// `(lag, value, i, r)` for rare `r >= 1` and split removal `i`.
    lags: Vec<(Lag, usize, usize)>,
    /// The mask and number of rare heaps they were built for.
    built_for: Option<(u32, usize)>,
    /// The cover lags `(i + a, G(a))` of the heaps `a` in `covered` that are not rare
    /// (the rare ones have their lags above), sorted and deduplicated.
    cover: Vec<Lag>,
    covered: (usize, usize),
    /// The rare lags' `built_for` and the `covered` the cover lags were built for.
    cover_for: Option<CoverKey>,
}

impl AllLags {
    fn update(&mut self, rules: &Rules, g: &[u16], rare: &[u32], mask: u32) {
        if self.built_for == Some((mask, rare.len())) {
            return;
        }
        self.built_for = Some((mask, rare.len()));
        self.lags.clear();
        for i in rules.split_removals() {
            for r in rare.iter().map(|&r| r as usize).filter(|&r| r >= 1) {
                self.lags.push((Lag { lag: (i + r) as u32, value: g[r] }, i, r));
            }
        }
        self.lags.sort_unstable();
    }

    /// Rebuilds the cover lags of the heaps in `covered` (a range) for the rare heaps the
    /// rare lags were last built for (`rare`; call [`Self::update`] first), or leaves
    /// none while the table is shorter.
    fn update_cover(&mut self, rules: &Rules, g: &[u16], rare: &[u32], covered: (usize, usize)) {
        let wanted = (self.built_for, covered);
        if self.cover_for == Some(wanted) {
            return;
        }
        self.cover.clear();
        if g.len() < covered.1 {
            self.cover_for = None;
            return;
        }
        self.cover_for = Some(wanted);
        self.covered = covered;
        let is_rare = |a: usize| rare.binary_search(&(a as u32)).is_ok();
        for i in rules.split_removals() {
            for a in (covered.0..covered.1).filter(|&a| !is_rare(a)) {
                self.cover.push(Lag { lag: (i + a) as u32, value: g[a] });
            }
        }
        self.cover.sort_unstable();
        self.cover.dedup();
    }

    /// Fills `lags` with the deduplicated lags below `n0` for the block `[n0, n0 + block)`
    /// (every rare heap is below `n0`), and `single` with the `(i, r)` of the rest, whose
    /// pairs below `n0` are marked heap by heap.
    fn select(&self, rules: &Rules, n0: usize, block: usize, lags: &mut Vec<Lag>, single: &mut Vec<(usize, usize)>) {
        lags.clear();
        single.clear();
        for &(lag, i, r) in &self.lags {
            let equal_inside = rules.unequal && (n0..n0 + block).contains(&(2 * r + i));
            if (1..n0).contains(&(lag.lag as usize)) && !equal_inside {
                if lags.last() != Some(&lag) {
                    lags.push(lag);
                }
            } else {
                single.push((i, r));
            }
        }
    }
}

/// The first lag lane group `group` marks whose partners `x - lag` all lie at least
/// `reach` below `n0`: `lag >= 8 (group + 1) + reach`.
#[inline(always)]
fn first_lane_lag(lags: &[Lag], group: usize, reach: usize) -> usize {
    lags.partition_point(|l| (l.lag as usize) < ((group + 1) * LANES).saturating_add(reach))
}

/// Marks in `seen` the options of heap `x` from `short`, the lags too short for its lane
/// group whose partner `x - lag` is below the block.
#[inline]
fn mark_short_lags(g: &[u16], short: &[Lag], x: usize, seen: &mut impl Marks) {
    for lag in short {
        seen.insert((g[x - lag.lag as usize] ^ lag.value) as u32);
    }
}

/// Marks in `seen` the options of heap `x` from the pairs of `single`: rare `r` with
/// partner `x - i - r` in `[1, n0)`, not equal to `r` in Grundy's game.
#[inline]
fn mark_single(rules: &Rules, g: &[u16], single: &[(usize, usize)], n0: usize, x: usize, seen: &mut impl Marks) {
    for &(i, r) in single {
        let Some(b) = x.checked_sub(i + r) else { continue };
        if (1..n0).contains(&b) && !(rules.unequal && b == r) {
            seen.insert((g[r] ^ g[b]) as u32);
        }
    }
}

/// The lags of lane group `group` whose partners lie `reach.0` to `reach.1` below the
/// ones of a lag just long enough ([`first_lane_lag`]).
#[inline(always)]
fn group_lags(lags: &[Lag], group: usize, reach: (usize, usize)) -> &[Lag] {
    &lags[first_lane_lag(lags, group, reach.0)..first_lane_lag(lags, group, reach.1)]
}

crate::multiversion! {
    /// ORs into `marks` (`words` words per heap, for heaps `n0, n0 + 1, …`, a whole
    /// number of lane groups) the options `G(x - lag) ^ value` of every lag (ascending)
    /// long enough for the heap's lane group, and `reach.0` to `reach.1` longer
    /// ([`group_lags`]; `(0, usize::MAX)` for all), whose partners are then below
    /// `n0 - reach.0`.
    fn mark_lags(g: &[u16], lags: &[Lag], n0: usize, words: usize, marks: &mut [u64], reach: (usize, usize)) => mark_lags_generic;
}

#[inline(always)]
fn mark_lags_generic<B: Dots>(
    g: &[u16],
    lags: &[Lag],
    n0: usize,
    words: usize,
    marks: &mut [u64],
    reach: (usize, usize),
) {
    match words {
        1 => mark_lags_words::<B, 1>(g, lags, n0, marks, reach),
        2 => mark_lags_words::<B, 2>(g, lags, n0, marks, reach),
        3 | 4 => mark_lags_padded::<B, 4>(g, lags, n0, words, marks, reach),
        5..=8 => mark_lags_padded::<B, 8>(g, lags, n0, words, marks, reach),
        _ => mark_lags_wide(g, lags, n0, words, marks, reach),
    }
}

/// [`mark_lags_words`] for `words < W` words: marked as `W` in a buffer of their own (the
/// last words stay zero: the values are below `64 * words`), then or-ed in. Only for
/// widths that are not powers of two, which the option sets of the kernels never have.
#[inline(always)]
fn mark_lags_padded<B: Dots, const W: usize>(
    g: &[u16],
    lags: &[Lag],
    n0: usize,
    words: usize,
    marks: &mut [u64],
    reach: (usize, usize),
) {
    if words == W {
        return mark_lags_words::<B, W>(g, lags, n0, marks, reach);
    }
    let mut padded = vec![0u64; marks.len() / words * W];
    mark_lags_words::<B, W>(g, lags, n0, &mut padded, reach);
    for (m, p) in marks.chunks_mut(words).zip(padded.chunks(W)) {
        m.iter_mut().zip(p).for_each(|(m, &p)| *m |= p);
    }
}

/// [`mark_lags`] for values below `64 * W`: `W` word accumulators of eight lanes, in
/// registers across all the lags of a lane group. Word `v / 64` of lane `k` gets bit
/// `v mod 64` ([`RingVec::mark_bits`]).
#[inline(always)]
fn mark_lags_words<B: Dots, const W: usize>(
    g: &[u16],
    lags: &[Lag],
    n0: usize,
    marks: &mut [u64],
    reach: (usize, usize),
) {
    for (group, out) in marks.chunks_exact_mut(LANES * W).enumerate() {
        let x0 = n0 + group * LANES;
        let mut acc = [B::Ring::zero(); W];
        for lag in group_lags(lags, group, reach) {
            // lag >= 8 (group + 1) > every lane's offset, so the partners are below n0.
            let partners: &[u16; LANES] = g[x0 - lag.lag as usize..][..LANES].try_into().unwrap();
            B::Ring::mark_bits(&mut acc, B::Ring::widen_u16(&partners.map(|p| p ^ lag.value)));
        }
        let acc = acc.map(|a| a.store().0);
        for (k, out) in out.chunks_exact_mut(W).enumerate() {
            for (w, out) in out.iter_mut().enumerate() {
                *out |= acc[w][k];
            }
        }
    }
}

/// [`mark_lags`] for values of nine words or more: one bit set per option.
#[inline(always)]
fn mark_lags_wide(g: &[u16], lags: &[Lag], n0: usize, words: usize, marks: &mut [u64], reach: (usize, usize)) {
    for (k, out) in marks.chunks_exact_mut(words).enumerate() {
        let x = n0 + k;
        for lag in group_lags(lags, k / LANES, reach) {
            let v = (g[x - lag.lag as usize] ^ lag.value) as usize;
            out[v >> 6] |= 1 << (v & 63);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SplitMix64;
    use crate::simd::Simd;

    #[test]
    fn every_backend_marks_the_options_of_every_lag() {
        let mut rng = SplitMix64(0x1A65);
        for simd in Simd::tested() {
            // Values of one to ten words.
            for bits in [5, 7, 8, 9, 10] {
                for words in [1, 2, 3, 4, 5, 7, 8, 10] {
                    if (1usize << bits).div_ceil(64) > words {
                        continue;
                    }
                    let n0 = 300;
                    let g: Vec<u16> = (0..n0).map(|_| rng.below(1 << bits) as u16).collect();
                    // Ascending, as a block's lags are.
                    let mut lags: Vec<Lag> = (0..1 + rng.below(40))
                        .map(|_| Lag {
                            lag: (16 + rng.below(n0 as u64 - 16)) as u32,
                            value: rng.below(1 << bits) as u16,
                        })
                        .collect();
                    lags.sort_unstable();
                    // Marks already set stay set: every width or-s into them.
                    let before: Vec<u64> = (0..16 * words).map(|_| rng.next_u64() & rng.next_u64()).collect();
                    let mut marks = before.clone();
                    mark_lags(simd, &g, &lags, n0, words, &mut marks, (0, usize::MAX));
                    // Split at any reach, the two windows mark the same, the far one
                    // reading only the values `split` or more below n0.
                    let split = rng.below(n0 as u64) as usize;
                    let mut halves = before.clone();
                    mark_lags(simd, &g[..n0 - split], &lags, n0, words, &mut halves, (split, usize::MAX));
                    mark_lags(simd, &g, &lags, n0, words, &mut halves, (0, split));
                    assert_eq!(halves, marks, "{}: split at {split}", simd.name());
                    let mut expected = before;
                    for (k, out) in expected.chunks_mut(words).enumerate() {
                        for lag in lags.iter().filter(|l| l.lag as usize >= (k / 8 + 1) * 8) {
                            let v = (g[n0 + k - lag.lag as usize] ^ lag.value) as usize;
                            out[v / 64] |= 1 << (v % 64);
                        }
                    }
                    assert_eq!(marks, expected, "{}: {bits} bits in {words} words", simd.name());
                }
            }
        }
    }

    /// A block's lags marked in two steps, as the pipeline does (the far ones from the
    /// values a block earlier, the rest once the block before is done), mark what one
    /// step marks, on real game states with rare heaps and several option widths.
    #[test]
    fn the_values_to_a_line_end_the_table_on_a_line() {
        for len in 0..100 {
            let mut g: Vec<u16> = Vec::with_capacity(200);
            g.extend((0..len).map(|v| v as u16));
            let to_line = heaps_to_line(&g);
            assert!(to_line < LINE_BYTES / 2, "len {len}: {to_line}");
            g.extend((0..to_line).map(|v| v as u16));
            assert_eq!((g.as_ptr() as usize + 2 * g.len()) % LINE_BYTES, 0, "len {len}");
        }
    }

    #[test]
    fn marks_prepared_a_block_early_and_completed_match() {
        for simd in Simd::tested() {
            for rules in [Rules::GRUNDY, Rules::octal(&[0, 3, 5, 4]), Rules::octal(&[0, 1, 6])] {
                let mut g = Vec::new();
                super::super::grundy_naive(&rules, &mut g, 1200).unwrap();
                for (n0, block) in [(200, 8), (640, 64), (1000, 16), (1100, 64)] {
                    let mut table = g[..n0].to_vec();
                    let front = Front::start(simd, &rules, &mut table);
                    let mut all_lags = AllLags::default();
                    all_lags.update(&rules, &g[..n0], front.state.rare(), front.state.mask());
                    let key = front.lag_key();
                    let (mut early, mut whole) = (BlockMarks::default(), BlockMarks::default());
                    early.prepare(simd, &rules, &g[..n0 - block], &all_lags, n0, block, key);
                    early.complete(simd, &g[..n0]);
                    whole.prepare(simd, &rules, &g[..n0], &all_lags, n0, block, key);
                    assert!(!whole.lags.is_empty() && whole.marks.iter().any(|&w| w != 0));
                    assert_eq!((early.lags, early.single), (whole.lags, whole.single));
                    assert_eq!(early.marks, whole.marks, "{rules:?} at {n0}, {}", simd.name());
                }
            }
        }
    }

    /// The pipelined blocks against the reference on two and three threads, every
    /// backend, with short blocks (mask changes and new rare heaps fall inside the run).
    /// How many blocks take the second thread's marks depends on timing; the values
    /// must not.
    /// Blocks whose cover marks stop after any number of lane groups, as when the first
    /// thread reaches a block the second is still marking, give the reference values:
    /// the heaps of the groups left out search the covered pairs themselves.
    #[test]
    fn partly_covered_blocks_match_the_reference() {
        for simd in Simd::tested() {
            for (rules, max_heap) in
                [(Rules::GRUNDY, 1500), (Rules::octal(&[0, 3, 5, 4]), 1500), (Rules::octal(&[0, 1, 6]), 900)]
            {
                let mut expected = Vec::new();
                super::super::grundy_naive(&rules, &mut expected, max_heap).unwrap();
                let block = 32;
                let covered = cover_range(block, 6 * block);
                let mut g = expected[..2 * block].to_vec();
                let mut front = Front::start(simd, &rules, &mut g);
                let (mut marks, mut cover, mut all_lags) =
                    (BlockMarks::default(), CoverMarks::default(), AllLags::default());
                let mut partly = 0;
                // What the first thread published a block earlier: the values, rare
                // heaps and key.
                let mut published: Option<(Vec<u16>, Vec<u32>, LagKey)> = None;
                while front.g.len() <= max_heap {
                    let n0 = front.g.len();
                    front.prepare(&rules, &mut marks, block);
                    // As the second thread: the cover lags from what was published.
                    cover.groups = 0;
                    if let Some((known, rare, key)) = published.take() {
                        all_lags.update(&rules, &known, &rare, key.0);
                        all_lags.update_cover(&rules, &known, &rare, covered);
                        if cover.start(&rules, known.len(), &all_lags, n0, block, key) {
                            let groups = n0 / block % (block / LANES + 1);
                            for _ in 0..groups {
                                cover.mark_group(simd, &known, &all_lags);
                            }
                            partly += usize::from(0 < groups && groups < block / LANES);
                        }
                    }
                    published = Some((front.g.clone(), front.state.rare().to_vec(), front.lag_key()));
                    let cover = (cover.groups > 0 && cover.key == Some(front.lag_key())).then_some(&cover);
                    front.finish(&rules, &marks, cover, block, max_heap).unwrap();
                }
                assert_eq!(g, expected, "{rules:?}, {}", simd.name());
                assert!(partly > 0, "{rules:?}: no block partly covered");
            }
        }
    }

    #[test]
    fn the_cover_grows_when_in_time_and_shrinks_when_late() {
        let window = |size: &mut CoverSize, in_time: usize, end: usize| {
            (0..COVER_WINDOW).fold(end, |end, k| size.record(k < in_time, end))
        };
        let mut size = CoverSize::new((65, 257), 65 + 4 * CHUNK);
        assert_eq!(size.ends, (65 + CHUNK, 65 + 4 * CHUNK));
        // 90% in time: one chunk further, once per window, up to the most.
        assert_eq!(window(&mut size, COVER_WINDOW * 9 / 10 + 1, 257), 257 + CHUNK);
        assert_eq!(window(&mut size, COVER_WINDOW, 257 + CHUNK), 257 + CHUNK);
        // Between 75% and 90%: where it is; below 75%: one chunk back, down to the least.
        assert_eq!(window(&mut size, COVER_WINDOW * 85 / 100, 257), 257);
        assert_eq!(window(&mut size, COVER_WINDOW * 7 / 10, 257), 257 - CHUNK);
        assert_eq!(window(&mut size, 0, 65 + CHUNK), 65 + CHUNK);
        // A cover shorter than a chunk never grows past its most.
        let mut short = CoverSize::new((16, 40), 40);
        assert_eq!(short.ends, (40, 40));
        assert_eq!(window(&mut short, COVER_WINDOW, 40), 40);
    }

    /// Blocks of 8 heaps, so that a few thousand heaps make many windows of
    /// [`COVER_WINDOW`] blocks: the cover's end moves (grows while the second thread is in
    /// time, shrinks when it is late), and the values stay the reference's.
    #[test]
    fn a_moving_cover_keeps_the_values() {
        for (rules, max_heap) in
            [(Rules::GRUNDY, 6000), (Rules::octal(&[0, 3, 5, 4]), 6000), (Rules::octal(&[0, 1, 6]), 6000)]
        {
            let mut expected = Vec::new();
            super::super::grundy_naive(&rules, &mut expected, max_heap).unwrap();
            for simd in Simd::tested() {
                let sched = Scheduler::new(Some(2)).unwrap().with_simd(simd);
                let block = 8;
                let mut g = expected[..2 * block].to_vec();
                let front = Front::start(simd, &rules, &mut g);
                pipelined(&rules, front, max_heap, &sched, block, (3 * block, 40 * block), &mut Checkpoints::none())
                    .unwrap();
                assert_eq!(g, expected, "{rules:?}, {}", simd.name());
            }
        }
    }

    /// The values whatever the second thread manages to hand over: all, some or none
    /// of the blocks (which depends on how the two threads happen to be scheduled).
    #[test]
    fn pipelined_blocks_match_the_reference() {
        for threads in [2, 3] {
            for simd in Simd::tested() {
                let sched = Scheduler::new(Some(threads)).unwrap().with_simd(simd);
                for (rules, max_heap) in
                    [(Rules::GRUNDY, 1500), (Rules::octal(&[0, 3, 5, 4]), 1500), (Rules::octal(&[0, 1, 6]), 900)]
                {
                    let mut expected = Vec::new();
                    super::super::grundy_naive(&rules, &mut expected, max_heap).unwrap();
                    for block in [8, 16, 64] {
                        let mut g = expected[..2 * block].to_vec();
                        let front = Front::start(simd, &rules, &mut g);
                        pipelined(
                            &rules,
                            front,
                            max_heap,
                            &sched,
                            block,
                            (3 * block, 12 * block),
                            &mut Checkpoints::none(),
                        )
                        .unwrap();
                        assert_eq!(g, expected, "{rules:?}, blocks of {block}, {threads} threads, {}", simd.name());
                    }
                }
            }
        }
    }

    /// On two cores running at once, the second thread's marks are taken: the pipeline
    /// is not one thread with a helper that is always late. It depends on the threads
    /// truly running together, so a few runs are allowed (and under an emulator that
    /// runs one thread at a time, such as valgrind, this test is left out).
    #[test]
    fn the_second_thread_hands_marks_over() {
        let (rules, max_heap, block) = (Rules::octal(&[0, 3, 5, 4]), 4000, 16);
        let mut expected = Vec::new();
        super::super::grundy_naive(&rules, &mut expected, max_heap).unwrap();
        let sched = Scheduler::new(Some(2)).unwrap();
        let mut runs = (0..20).map(|_| {
            let mut g = expected[..2 * block].to_vec();
            let front = Front::start(sched.simd(), &rules, &mut g);
            let cover = (3 * block, 12 * block);
            let handed = pipelined(&rules, front, max_heap, &sched, block, cover, &mut Checkpoints::none()).unwrap();
            assert_eq!(g, expected);
            handed
        });
        assert!(runs.any(|handed| handed > 0), "no block took the second thread's marks in 20 runs");
    }
}
