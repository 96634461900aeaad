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
//! parallel variant. Marking the pairs of the first few hundred heaps too (rare or not,
//! to find the rare-type values before the search) was measured and dropped: once the
//! search matches values in vector lanes it costs less than the extra lags.

use super::sparse::steps::{State, sparse_value};
use super::{Overflow, Rules, SeenBits, grundy_bitset, grundy_sparse, store};
use crate::sched::Scheduler;
use crate::simd::dots::{Dots, RING_LANES, RingVec};

/// Heaps per block: long enough to amortise selecting the block's lags, short enough
/// that few pairs have their partner inside it (16, 32 and 64 measured within noise).
pub const BLOCK_HEAPS: usize = 64;
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
    let bitset_heaps = BITSET_HEAPS / rules.split_removals().count().max(1);
    grundy_lag_blocks_with(rules, g, max_heap, sched, BLOCK_HEAPS, bitset_heaps)
}

/// [`grundy_lag_blocks`] with blocks of `block` heaps (tests use short ones; `block` is
/// rounded up to whole lane groups), the first `bitset_heaps` heaps by the bitset
/// variant.
pub fn grundy_lag_blocks_with(
    rules: &Rules,
    g: &mut Vec<u16>,
    max_heap: usize,
    sched: &Scheduler,
    block: usize,
    bitset_heaps: usize,
) -> Result<(), Overflow> {
    let block = block.max(1).next_multiple_of(LANES);
    // The first few thousand heaps go faster by plain scans; below a few blocks the
    // lanes would carry little in any case.
    let scans = bitset_heaps.min(max_heap);
    if g.len() <= scans {
        grundy_bitset(sched.simd(), rules, g, scans)?;
    }
    let warm_up = (2 * block).min(max_heap);
    if g.len() <= warm_up {
        grundy_sparse(sched.simd(), rules, g, warm_up)?;
    }
    let mut state = State::start(sched.simd(), rules, g);
    let mut seen = SeenBits::new(state.seen_len());
    let mut all_lags = AllLags::default();
    let mut lags = Vec::new();
    let (mut short_from, mut short_to) = (Vec::new(), Vec::new());
    let mut single = Vec::new();
    let mut marks = Vec::new();
    while g.len() <= max_heap {
        let n0 = g.len();
        let end = (n0 + block).min(max_heap + 1);
        // Options of the pairs are below 2^bits: the first `words` words of a seen set.
        let words = state.option_words();
        all_lags.update(rules, g, state.rare(), state.mask());
        all_lags.select(rules, n0, block, &mut lags, &mut single);
        marks.clear();
        marks.resize(block * words, 0);
        mark_lags(sched.simd(), g, &lags, n0, words, &mut marks);
        // The lags each heap marks itself (§4.5): those above its offset and below its
        // lane group's bound, found once per block instead of by two searches per heap.
        short_from.clear();
        short_from.extend((0..block).map(|offset| lags.partition_point(|l| l.lag as usize <= offset)));
        short_to.clear();
        short_to.extend((0..block / LANES).map(|group| first_lane_lag(&lags, group)));
        let mask = state.mask();
        for (x, marked) in (n0..end).zip(marks.chunks(words)) {
            seen.clear(state.seen_len());
            let far_below = if state.mask() == mask {
                for (s, &m) in seen.words.iter_mut().zip(marked) {
                    *s |= m;
                }
                mark_single(rules, g, &single, n0, x, &mut seen);
                let offset = x - n0;
                mark_short_lags(g, &lags[short_from[offset]..short_to[offset / LANES]], x, &mut seen);
                n0
            } else {
                // The rare heaps changed with the mask: pair them all again (the marked
                // values are options all the same, but not all the needed ones).
                0
            };
            let value = store(sparse_value(rules, g, x, &state, &mut seen, far_below), x)?;
            g.push(value);
            state.push(g, x);
        }
    }
    Ok(())
}

/// The lags of every rare heap, sorted by lag and value, rebuilt only when the rare
/// heaps change (a new one, or a new mask): a block then selects its own in one pass.
#[derive(Default)]
struct AllLags {
    /// `(lag, value, i, r)` for rare `r >= 1` and split removal `i`.
    lags: Vec<(Lag, usize, usize)>,
    /// The mask and number of rare heaps they were built for.
    built_for: Option<(u32, usize)>,
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

/// The first lag lane group `group` marks: its partners `x - lag` must all be below
/// `n0`, so `lag >= 8 (group + 1)`.
#[inline(always)]
fn first_lane_lag(lags: &[Lag], group: usize) -> usize {
    lags.partition_point(|l| (l.lag as usize) < (group + 1) * LANES)
}

/// Marks in `seen` the options of heap `x` from `short`, the lags too short for its lane
/// group whose partner `x - lag` is below the block.
#[inline]
fn mark_short_lags(g: &[u16], short: &[Lag], x: usize, seen: &mut SeenBits) {
    for lag in short {
        seen.insert((g[x - lag.lag as usize] ^ lag.value) as u32);
    }
}

/// Marks in `seen` the options of heap `x` from the pairs of `single`: rare `r` with
/// partner `x - i - r` in `[1, n0)`, not equal to `r` in Grundy's game.
#[inline]
fn mark_single(rules: &Rules, g: &[u16], single: &[(usize, usize)], n0: usize, x: usize, seen: &mut SeenBits) {
    for &(i, r) in single {
        let Some(b) = x.checked_sub(i + r) else { continue };
        if (1..n0).contains(&b) && !(rules.unequal && b == r) {
            seen.insert((g[r] ^ g[b]) as u32);
        }
    }
}

crate::multiversion! {
    /// ORs into `marks` (`words` words per heap, for heaps `n0, n0 + 1, …`, a whole
    /// number of lane groups) the options `G(x - lag) ^ value` of every lag (ascending)
    /// long enough for the heap's lane group ([`first_lane_lag`]).
    fn mark_lags(g: &[u16], lags: &[Lag], n0: usize, words: usize, marks: &mut [u64]) => mark_lags_generic;
}

#[inline(always)]
fn mark_lags_generic<B: Dots>(g: &[u16], lags: &[Lag], n0: usize, words: usize, marks: &mut [u64]) {
    match words {
        1 => mark_lags_words::<B, 1>(g, lags, n0, marks),
        2 => mark_lags_words::<B, 2>(g, lags, n0, marks),
        3 | 4 => mark_lags_padded::<B, 4>(g, lags, n0, words, marks),
        5..=8 => mark_lags_padded::<B, 8>(g, lags, n0, words, marks),
        _ => mark_lags_wide(g, lags, n0, words, marks),
    }
}

/// [`mark_lags_words`] for `words < W` words: marked as `W` in a buffer of their own (the
/// last words stay zero: the values are below `64 * words`), then or-ed in. Only for
/// widths that are not powers of two, which the option sets of the kernels never have.
#[inline(always)]
fn mark_lags_padded<B: Dots, const W: usize>(g: &[u16], lags: &[Lag], n0: usize, words: usize, marks: &mut [u64]) {
    if words == W {
        return mark_lags_words::<B, W>(g, lags, n0, marks);
    }
    let mut padded = vec![0u64; marks.len() / words * W];
    mark_lags_words::<B, W>(g, lags, n0, &mut padded);
    for (m, p) in marks.chunks_mut(words).zip(padded.chunks(W)) {
        m.iter_mut().zip(p).for_each(|(m, &p)| *m |= p);
    }
}

/// [`mark_lags`] for values below `64 * W`: `W` word accumulators of eight lanes, in
/// registers across all the lags of a lane group. Word `w` of lane `k` gets
/// `1 << (v - 64w)`, which is bit `v` when `v` is in that word and nothing otherwise.
#[inline(always)]
fn mark_lags_words<B: Dots, const W: usize>(g: &[u16], lags: &[Lag], n0: usize, marks: &mut [u64]) {
    let ones = B::Ring::splat(1);
    let word_starts: [B::Ring; W] = std::array::from_fn(|w| B::Ring::splat(64 * w as u64));
    for (group, out) in marks.chunks_exact_mut(LANES * W).enumerate() {
        let x0 = n0 + group * LANES;
        let mut acc = [B::Ring::zero(); W];
        for lag in &lags[first_lane_lag(lags, group)..] {
            // lag >= 8 (group + 1) > every lane's offset, so the partners are below n0.
            let partners: &[u16; LANES] = g[x0 - lag.lag as usize..][..LANES].try_into().unwrap();
            let v = B::Ring::widen_u16(&partners.map(|p| p ^ lag.value));
            for (acc, &start) in acc.iter_mut().zip(&word_starts) {
                *acc = acc.or(ones.shl_lanes(v.sub(start)));
            }
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
fn mark_lags_wide(g: &[u16], lags: &[Lag], n0: usize, words: usize, marks: &mut [u64]) {
    for (k, out) in marks.chunks_exact_mut(words).enumerate() {
        let x = n0 + k;
        for lag in &lags[first_lane_lag(lags, k / LANES)..] {
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
        for simd in Simd::available() {
            // Values of one to ten words.
            for bits in [5, 7, 8, 9, 10] {
                for words in [1, 2, 3, 4, 5, 7, 8, 10] {
                    if (1usize << bits).div_ceil(64) > words {
                        continue;
                    }
                    let n0 = 300;
                    let g: Vec<u16> = (0..n0).map(|_| rng.below(1 << bits) as u16).collect();
                    let lags: Vec<Lag> = (0..1 + rng.below(40))
                        .map(|_| Lag {
                            lag: (16 + rng.below(n0 as u64 - 16)) as u32,
                            value: rng.below(1 << bits) as u16,
                        })
                        .collect();
                    // Marks already set stay set: every width or-s into them.
                    let before: Vec<u64> = (0..16 * words).map(|_| rng.next_u64() & rng.next_u64()).collect();
                    let mut marks = before.clone();
                    mark_lags(simd, &g, &lags, n0, words, &mut marks);
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
}
