//! The sparse-space method with each block's far pairs on the scheduler's threads
//! (docs/theory/octal.md §4.4).
//!
//! Heaps are taken in blocks `[n0, n0 + B)`. A pair of a rare heap `r < n0` and a
//! partner `b < n0` reads only values known before the block, so for every heap of the
//! block those pairs are marked first, in parallel, each heap into a seen set of its
//! own. The heaps are then finished in order on one thread: the pairs with a partner
//! inside the block, the rare heaps found inside it, the search and the mex. If the mask
//! changes inside a block, the rest of the block pairs every rare heap again (the
//! values marked before are true options, so they stay).

use super::sparse::steps::{State, sparse_value};
use super::{Overflow, Rules, SeenBits, grundy_sparse, store};
use crate::sched::Scheduler;

/// Heaps per block: long enough to amortise a fork-join (about 10 µs here) over
/// thousands of pairs, short enough that most rare pairs reach below the block.
pub const BLOCK_HEAPS: usize = 1024;

/// Extends `g` to heaps `0..=max_heap`, the far pairs of each block in parallel.
pub fn grundy_parallel(rules: &Rules, g: &mut Vec<u16>, max_heap: usize, sched: &Scheduler) -> Result<(), Overflow> {
    grundy_blocks(rules, g, max_heap, sched, BLOCK_HEAPS)
}

/// [`grundy_parallel`] with blocks of `block` heaps (tests use short ones).
pub fn grundy_blocks(
    rules: &Rules,
    g: &mut Vec<u16>,
    max_heap: usize,
    sched: &Scheduler,
    block: usize,
) -> Result<(), Overflow> {
    // The first block starts where a block's far pairs are most of its pairs.
    let warm_up = (4 * block).min(max_heap);
    if g.len() <= warm_up {
        grundy_sparse(sched.simd(), rules, g, warm_up)?;
    }
    let mut state = State::start(sched.simd(), rules, g);
    let mut seen = SeenBits::new(state.seen_len());
    let jobs = sched.threads().max(1);
    while g.len() <= max_heap {
        let n0 = g.len();
        let end = (n0 + block).min(max_heap + 1);
        let words = state.seen_len().div_ceil(64);
        let mut far = vec![0u64; (end - n0) * words];
        let per_job = (end - n0).div_ceil(jobs);
        {
            let (rare, known) = (state.rare(), &g[..]);
            sched.for_each_chunk(&mut far, per_job * words, |job, chunk| {
                for (k, marks) in chunk.chunks_mut(words).enumerate() {
                    mark_far_pairs(rules, known, rare, n0, n0 + job * per_job + k, marks);
                }
            });
        }
        let mask = state.mask();
        for (x, marks) in (n0..end).zip(far.chunks(words)) {
            seen.clear(state.seen_len());
            seen.words[..words].copy_from_slice(marks);
            let far_below = if state.mask() == mask { n0 } else { 0 };
            let value = store(sparse_value(rules, g, x, &state, &mut seen, far_below, (0, 0)), x)?;
            g.push(value);
            state.push(g, x);
        }
    }
    Ok(())
}

/// Marks in `marks` the values of the splits of heap `x` into a rare heap and a partner,
/// both below `n0`.
fn mark_far_pairs(rules: &Rules, g: &[u16], rare: &[u32], n0: usize, x: usize, marks: &mut [u64]) {
    for i in rules.split_removals() {
        if x < i + 2 {
            continue;
        }
        let rest = x - i;
        // Partners rest - r < n0: rare r above rest - n0, below n0 and rest.
        let from = rare.partition_point(|&r| (r as usize) + n0 <= rest);
        for &r in &rare[from..] {
            let r = r as usize;
            if r >= rest || r >= n0 {
                break;
            }
            let b = rest - r;
            if r == 0 || (rules.unequal && r == b) {
                continue;
            }
            let v = g[r] ^ g[b];
            marks[(v >> 6) as usize] |= 1 << (v & 63);
        }
    }
}
