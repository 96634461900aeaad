//! The anti-diagonal scan in parallel: tiles of pairs run as a wavefront (the machinery
//! and the argument of `lexicographic/wavefront.rs`), each tile scanned by anti-diagonals like
//! `diagonal/mod.rs`.
//!
//! # Blocks
//!
//! The groups are cut into blocks of `2^log <= 64` groups, each its own allocation behind
//! the mutex of `lexicographic/wavefront.rs`, laid out like the tables of `tables.rs`: a spare run of
//! words to reach a line boundary, a zero line, the groups (line-aligned rows), a zero
//! line. A pile block then holds the open flags of its pairs: for each anti-diagonal `t`
//! that meets it, one word whose bit `a - a0` says whether `K1(a, t - a)` is marked (`a0`
//! the block's first pile size). A tile `(I, J)` reads pile blocks `I` and `J` and the
//! difference blocks `J - I - 1` and `J - I`, and owns them while it runs.
//!
//! # Marks
//!
//! Of the seven key bits and two open flags a losing triple `(x, y, z)` sets (see
//! `tables.rs`), eight land in blocks the tile owns: pile groups `x` and `y`, difference
//! group `y - x`, and the open flags of `(x, z)` and `(y, z)`, which live with the pile
//! blocks of `x` and `y`. Only the transposed `K2(y-x, z)`, in pile group `z`, may belong
//! to another block; it is held in the worker's outbox and delivered after the tile, as
//! in `lexicographic/wavefront.rs`.
//!
//! # Exhausted piles
//!
//! As in `diagonal/mod.rs`, a pair whose pile `x` is exhausted (`exhausted.rs`) is left out
//! of pass 1. The tile reads `f_x` of its 64 piles from their `k2t` rows in pile block
//! `i` when it starts, and one of them again before each anti-diagonal: the rows hold
//! every mark delivered so far, and only gain bits while the tile runs, so what it reads
//! stays true.
//!
//! # Tile size
//!
//! `2^6 = 64`: one open-flag word per anti-diagonal and block, and at `L = 1000` sixteen
//! blocks, 136 tiles, whose longest chain (31 tiles) is well below half the work.
//! Smaller tiles were slower (docs/design/stones.md).
//!
//! # Cost
//!
//! On one thread the tiles cost about a third more than the strips of `diagonal/mod.rs`
//! (`cargo bench --bench keyscan`, `keyscan-threads`: `diagonal-tiles-1t` against
//! `diagonal`). The difference lies in the searches and the marks, not the loops around
//! them: the deferred transposed `K2` marks, the marks' addressing across four blocks,
//! and a search loop with more values live (docs/design/stones.md).

use super::exhausted::{ExhaustedPiles, first_clear};
use super::tables::LineTables;
use super::window::{
    DiagonalGroups, PairSource, bits_through, partner, partner_tail, search_pairs, tail_bits, tail_start,
};
use crate::kernels::keyscan::StoneScan;
use crate::kernels::keyscan::tables::Layout;
use crate::kernels::keyscan::tiles::{BlockTables, Outbox, TileOut, drain_queue, lock, run_tiles};
use crate::sched::Scheduler;
use crate::simd::Simd;
use crate::simd::words::Words;

/// The tile side, as a power of two (at most 6: one open-flag word per block).
pub const TILE_LOG: u32 = 6;

/// Words in a cache line.
const LINE_WORDS: usize = 8;

/// Where things are in the blocks of one scan.
struct BlockLayout {
    limit: u32,
    log: u32,
    /// Words per row and per group.
    rw: usize,
    g: usize,
    /// Word index, in each block's buffer, of its first group (line-aligned).
    pile_base: Vec<usize>,
    diff_base: Vec<usize>,
}

impl BlockLayout {
    /// Groups in block `b`.
    fn groups(limit: u32, log: u32, b: u32) -> usize {
        ((limit + 1 - (b << log)).min(1 << log)) as usize
    }

    /// Anti-diagonals meeting pile block `b`: `t` from `2 a0` to `a0 + n - 1 + L`.
    fn diagonals(limit: u32, log: u32, b: u32) -> usize {
        limit as usize + Self::groups(limit, log, b) - (b << log) as usize
    }

    /// Words of a difference block: alignment slack, zero line, groups, zero line.
    fn diff_words(limit: u32, log: u32, b: u32) -> usize {
        3 * LINE_WORDS + Self::groups(limit, log, b) * 2 * LineTables::row_words_for(limit)
    }

    /// Words of a pile block: as a difference block, then the open flags.
    fn pile_words(limit: u32, log: u32, b: u32) -> usize {
        Self::diff_words(limit, log, b) + Self::diagonals(limit, log, b)
    }

    /// The layout of the (allocated, zero) blocks of `t`.
    fn new(t: &BlockTables, limit: u32, log: u32) -> Self {
        let base = |block: &std::sync::Mutex<Vec<u64>>| {
            let offset = lock(block).as_ptr().align_offset(LINE_WORDS * 8);
            assert!(offset < LINE_WORDS, "a u64 buffer can always be aligned to a line");
            offset + LINE_WORDS
        };
        let rw = LineTables::row_words_for(limit);
        let (pile_base, diff_base) = (t.pile.iter().map(base).collect(), t.diff.iter().map(base).collect());
        Self { limit, log, rw, g: 2 * rw, pile_base, diff_base }
    }

    /// Word index of pile group `a` in its block.
    #[inline(always)]
    fn pile_group(&self, a: u32) -> usize {
        self.pile_base[(a >> self.log) as usize] + (a & ((1 << self.log) - 1)) as usize * self.g
    }
}

/// Scans every sorted pair with tiles run in parallel by `sched`; calls `sink` for each
/// losing triple in lexicographic order when given.
pub fn keyscan_diagonal_tiles(limit: u32, sched: &Scheduler, sink: Option<&mut dyn FnMut(u32, u32, u32)>) -> StoneScan {
    keyscan_diagonal_tiles_sized(limit, TILE_LOG, sched, sink)
}

/// [`keyscan_diagonal_tiles`] with tiles of `2^log <= 64` pairs a side (tests use tiny
/// ones).
pub fn keyscan_diagonal_tiles_sized(
    limit: u32,
    log: u32,
    sched: &Scheduler,
    sink: Option<&mut dyn FnMut(u32, u32, u32)>,
) -> StoneScan {
    diagonal_tiles(limit, log, true, sched, sink)
}

/// The scan; `direct`: whether deferred marks may skip the queues (see `lexicographic/wavefront.rs`).
fn diagonal_tiles(
    limit: u32,
    log: u32,
    direct: bool,
    sched: &Scheduler,
    sink: Option<&mut dyn FnMut(u32, u32, u32)>,
) -> StoneScan {
    assert!(log <= TILE_LOG, "one open-flag word per block and anti-diagonal");
    let tables = BlockTables::with_block_words(
        Layout::new(limit),
        log,
        direct,
        |b| BlockLayout::pile_words(limit, log, b),
        |b| BlockLayout::diff_words(limit, log, b),
    );
    let layout = BlockLayout::new(&tables, limit, log);
    let simd = sched.simd();
    run_tiles(&tables, sched, sink, |t, i, j, keep, outbox| scan_tile(t, &layout, simd, i, j, keep, outbox))
}

/// Bytes the scan allocates for `limit`: the blocks (the open flags are an eighth of a
/// row per anti-diagonal and block) and, as for the wavefront, half as much again for
/// the marks held between tiles and the allocator.
pub fn memory_bytes(limit: u32) -> u64 {
    let blocks = (limit + 1).div_ceil(1 << TILE_LOG);
    let words: usize = (0..blocks)
        .map(|b| BlockLayout::pile_words(limit, TILE_LOG, b) + BlockLayout::diff_words(limit, TILE_LOG, b))
        .sum();
    let bytes = 8 * words as u64;
    bytes + bytes / 2
}

/// The blocks a tile holds, as plain slices: pile blocks `i` (the `x` rows) and `j` (the
/// `y` rows; `None` on a diagonal tile, where they are in block `i`), difference blocks
/// `k = j - i` and `k - 1` (`None` when `k = 0`).
struct Held<'a> {
    pile_x: &'a mut [u64],
    pile_y: Option<&'a mut [u64]>,
    diff_k: &'a mut [u64],
    diff_low: Option<&'a mut [u64]>,
}

impl Held<'_> {
    #[inline(always)]
    fn pile_y(&mut self) -> &mut [u64] {
        self.pile_y.as_deref_mut().unwrap_or(self.pile_x)
    }

    /// Difference block `k` (`low = false`) or `k - 1`.
    #[inline(always)]
    fn diff(&mut self, low: bool) -> &mut [u64] {
        match (low, self.diff_low.as_deref_mut()) {
            (true, Some(block)) => block,
            _ => self.diff_k,
        }
    }
}

/// Pass 1 of an anti-diagonal for the pairs of `open` (bit `i`: the pair `x0 + i` of
/// the view) whose groups `view` finds: the pairs in the tail of the rows (`tail`) first,
/// as in `diagonal/mod.rs`; returns the new `count` of `found`.
///
/// Out of line (the entry point of the view's backend, compiled with its features):
/// inlined into the tile loop, the search loop kept more values live than there are
/// registers and reloaded eleven of them from the stack beside its six window loads; here
/// it reloads five, a few per cent faster (`cargo bench --bench keyscan`,
/// `keyscan-threads`).
#[inline(never)]
fn search_view(view: &DiagonalGroups<'_>, open: u64, tail: u64, found: &mut [(u32, u32); 64], count: usize) -> usize {
    search_view_on(view.simd(), view, open, tail, found, count)
}

crate::simd::multiversion! {
    /// [`search_view`] on one backend.
    fn search_view_on(view: &DiagonalGroups<'_>, open: u64, tail: u64, found: &mut [(u32, u32); 64], count: usize) -> usize
        => search_view_generic;
}

#[inline(always)]
fn search_view_generic<B: Words>(
    view: &DiagonalGroups<'_>,
    open: u64,
    tail: u64,
    found: &mut [(u32, u32); 64],
    count: usize,
) -> usize {
    let (x0, t, limit, mut count) = (view.x0(), view.t(), view.limit(), count);
    search_pairs(open & tail, x0, t, limit, found, &mut count, |x, y| partner_tail::<B>(view, x, y));
    search_pairs(open & !tail, x0, t, limit, found, &mut count, |x, y| partner::<B>(view, x, y));
    count
}

/// Scans the pairs of tile `(i, j)` by anti-diagonals, searching on `simd`'s backend.
fn scan_tile(
    t: &BlockTables,
    at: &BlockLayout,
    simd: Simd,
    i: u32,
    j: u32,
    keep: bool,
    outbox: &mut Outbox,
) -> TileOut {
    let (limit, tile, rw, g) = (at.limit, 1u32 << at.log, at.rw, at.g);
    let k = j - i;
    // The same locking order as `lexicographic/wavefront.rs`: pile blocks ascending, then difference
    // blocks ascending.
    let mut pile: Vec<_> =
        (if j == i { vec![i] } else { vec![i, j] }).iter().map(|&b| lock(&t.pile[b as usize])).collect();
    let mut diff: Vec<_> =
        (if k == 0 { vec![k] } else { vec![k - 1, k] }).iter().map(|&b| lock(&t.diff[b as usize])).collect();
    for (guard, b) in pile.iter_mut().zip([i, j]) {
        drain_queue(&t.pile_queue[b as usize], guard, &mut outbox.scratch);
    }
    for (guard, b) in diff.iter_mut().rev().zip([k, k.wrapping_sub(1)]) {
        drain_queue(&t.diff_queue[b as usize], guard, &mut outbox.scratch);
    }
    let mut held = {
        let (pile_x, pile_y) = pile.split_at_mut(1);
        let low = diff.len() - 1;
        let (diff_low, diff_k) = diff.split_at_mut(low);
        Held {
            pile_x: &mut pile_x[0][..],
            pile_y: pile_y.first_mut().map(|b| &mut b[..]),
            diff_k: &mut diff_k[0][..],
            diff_low: diff_low.first_mut().map(|b| &mut b[..]),
        }
    };
    // Word indices in the held blocks: of the groups, and of the open flags (of pile
    // block i for the pairs (x, z), of pile block j for (y, z)).
    let (x_lo, x_hi) = (i * tile, (i * tile + tile - 1).min(limit));
    let (y_lo, y_hi) = (j * tile, (j * tile + tile - 1).min(limit));
    let (base_x, base_y) = (at.pile_base[i as usize], at.pile_base[j as usize]);
    let (base_k, base_low) = (at.diff_base[k as usize], at.diff_base[k.saturating_sub(1) as usize]);
    let group_x = |x: u32| base_x + (x - x_lo) as usize * g;
    let group_y = |y: u32| base_y + (y - y_lo) as usize * g;
    let first_d = k * tile;
    // (whether in block k - 1, group) of the difference d.
    let group_d = |d: u32| {
        if d >= first_d {
            (false, base_k + (d - first_d) as usize * g)
        } else {
            (true, base_low + (d + tile - first_d) as usize * g)
        }
    };
    // The open flags of anti-diagonal t of the block starting at a0 are word t - 2 a0 of
    // its flags.
    let flags = |base: usize, a0: u32| base + BlockLayout::groups(limit, at.log, a0 >> at.log) * g + LINE_WORDS;
    let (flags_x, flags_y) = (flags(base_x, x_lo), flags(base_y, y_lo));
    let mut out = TileOut::default();
    // Pairs with a partner on one anti-diagonal of the tile (see `search_pairs`).
    let mut found = [(0u32, 0u32); 64];
    let y_tail = tail_start(limit);
    // The tile's piles x whose remaining pairs have no partner (`exhausted.rs`), read
    // from their k2t rows in pile block i, which the tile holds.
    let k2t_first_clear =
        |pile_x: &[u64], x: u32, from: u32| first_clear(&pile_x[group_x(x) + rw..][..rw], from, limit);
    let mut exhausted = ExhaustedPiles::new(limit);
    exhausted.start(x_lo, x_hi, x_lo + y_lo, |x, from| k2t_first_clear(held.pile_x, x, from));
    for d in (x_lo + y_lo)..=(x_hi + y_hi) {
        // x from max(x_lo, d - y_hi) to min(x_hi, d - y_lo, d / 2).
        let x_first = x_lo.max(d.saturating_sub(y_hi));
        let x_last = x_hi.min(d - y_lo).min(d / 2);
        if x_first > x_last {
            continue;
        }
        // Pass 1: the searches (each reads only marks of earlier anti-diagonals).
        let count = {
            let pile_x = &*held.pile_x;
            // The views of the anti-diagonal (see `DiagonalGroups`): one for the pairs whose
            // difference is in block k, one for those in block k - 1. The first pair's
            // difference group, placed in block k and in block k - 1 (group index base +
            // (difference - first difference of the block) * g, wrapping), is only a base.
            // A single view that picked the block for each pair cost a comparison and two
            // selects per search, and registers: 1–3% slower (`cargo bench --bench
            // keyscan`, `keyscan-threads`).
            let pile_y = held.pile_y.as_deref().unwrap_or(pile_x);
            let (x_at, y_at) = (group_x(x_first), group_y(d - x_first));
            let from_k = ((d - 2 * x_first) as usize).wrapping_sub(first_d as usize).wrapping_mul(g);
            let (k_at, low_at) = (base_k.wrapping_add(from_k), (base_low + tile as usize * g).wrapping_add(from_k));
            let diff_low = held.diff_low.as_deref().unwrap_or(&[]);
            let view_k =
                DiagonalGroups::new([pile_x, pile_y, held.diff_k], [x_at, y_at, k_at], rw, limit, x_first, d, simd);
            let view_low =
                DiagonalGroups::new([pile_x, pile_y, diff_low], [x_at, y_at, low_at], rw, limit, x_first, d, simd);
            let span = (x_last - x_first) as u64;
            let open = !pile_x[flags_x + (d - 2 * x_lo) as usize] >> (x_first - x_lo) & (u64::MAX >> (63 - span));
            exhausted.refresh(d, |x, from| k2t_first_clear(pile_x, x, from));
            let settled = open & exhausted.on_diagonal(d) >> (x_first - x_lo);
            let open = open & !settled;
            // The pairs whose difference d - 2x is in block k: the low x, up to
            // (d - first_d) / 2.
            let in_k = bits_through(d.checked_sub(first_d).and_then(|rest| (rest / 2).checked_sub(x_first)));
            // The pairs in the tail of the rows first, as in `diagonal/mod.rs`.
            let tail = tail_bits(x_first, d, y_tail);
            if cfg!(debug_assertions) {
                // Every pair left out as exhausted would have found no partner.
                let mut none = [(0, 0); 64];
                let count = search_view(&view_k, settled & in_k, tail, &mut none, 0);
                let count = search_view(&view_low, settled & !in_k, tail, &mut none, count);
                assert_eq!(count, 0, "an exhausted pair has a partner: {:?}", none[0]);
            }
            let (view_k, view_low) = (view_k.with_exhausted(&exhausted), view_low.with_exhausted(&exhausted));
            let count = search_view(&view_k, open & in_k, tail, &mut found, 0);
            search_view(&view_low, open & !in_k, tail, &mut found, count)
        };
        // Pass 2: the marks.
        for &(x, z) in &found[..count] {
            let y = d - x;
            out.scan.record(x, y, z);
            if keep {
                out.triples.push([x, y, z]);
            }
            let (gx, gy) = (group_x(x), group_y(y));
            LineTables::set(held.pile_x, gx, z); // K1(x, z)
            LineTables::set(held.pile_x, gx + rw, z - y); // K2(z-y, x), transposed
            LineTables::set(held.pile_x, flags_x + (x + z - 2 * x_lo) as usize, x - x_lo); // open flag of (x, z)
            let pile_y = held.pile_y();
            LineTables::set(pile_y, gy, z); // K1(y, z)
            LineTables::set(pile_y, gy + rw, z - x); // K2(z-x, y), transposed
            LineTables::set(pile_y, flags_y + (y + z - 2 * y_lo) as usize, y - y_lo); // open flag of (y, z)
            let (low, gd) = group_d(y - x);
            let diff_d = held.diff(low);
            LineTables::set(diff_d, gd, z); // K2(y-x, z)
            LineTables::set(diff_d, gd + rw, z - x); // K3(y-x, z-x)
            // K2(y-x, z), transposed: pile group z, in block j or a later one.
            let word = at.pile_group(z) + rw + ((y - x) >> 6) as usize;
            if z >> at.log == j {
                held.pile_y()[word] |= 1 << ((y - x) & 63);
            } else {
                outbox.hold(true, z >> at.log, word, (y - x) & 63);
            }
        }
    }
    if keep {
        out.triples.sort_unstable();
    }
    // Release the blocks as soon as the tile is done; queueing takes only the queue locks.
    let _ = held;
    drop((pile, diff));
    outbox.send(t);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::keyscan::keyscan_naive;

    #[test]
    fn every_tile_side_agrees_with_the_reference() {
        for limit in [0, 1, 9, 67, 100, 200] {
            let mut expected = Vec::new();
            let expected_scan = keyscan_naive(limit, &mut |x, y, z| expected.push([x, y, z]));
            for threads in [1, 2, 3] {
                let sched = Scheduler::new(Some(threads)).unwrap();
                for log in 0..=TILE_LOG {
                    // Deferred marks straight into free blocks, and all through the queues.
                    for direct in [true, false] {
                        let mut got = Vec::new();
                        let scan = diagonal_tiles(limit, log, direct, &sched, Some(&mut |x, y, z| got.push([x, y, z])));
                        let case = format!("L={limit} tile 2^{log} threads {threads} direct {direct}");
                        assert_eq!((scan, &got), (expected_scan, &expected), "{case}");
                        assert_eq!(diagonal_tiles(limit, log, direct, &sched, None), expected_scan, "{case}");
                    }
                }
            }
        }
    }

    #[test]
    fn blocks_leave_room_for_the_loads_and_the_open_flags() {
        // A pile block: slack + zero line, groups, zero line, one flag word per
        // anti-diagonal 2 a0 ..= a0 + n - 1 + L.
        for (limit, log) in [(0, 0), (100, 3), (1000, 6), (1023, 6), (1024, 6)] {
            for b in 0..(limit + 1u32).div_ceil(1 << log) {
                let n = BlockLayout::groups(limit, log, b);
                let a0 = (b << log) as usize;
                assert_eq!(BlockLayout::diagonals(limit, log, b), a0 + n - 1 + limit as usize - 2 * a0 + 1);
                let groups = n * 2 * LineTables::row_words_for(limit);
                assert_eq!(BlockLayout::diff_words(limit, log, b), 3 * LINE_WORDS + groups);
            }
        }
    }
}
