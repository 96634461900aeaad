//! The parallel scan: square tiles of sorted pairs, run as a wavefront.
//!
//! # Which pairs depend on which
//!
//! Write `P' <= P` when `x' <= x` and `y' <= y` (the product order on pairs). The search
//! of pair `P = (x, y)` reads six rows at the positions of the keys of `(x, y, z)`,
//! `y <= z <= L`, and the bit `K1(x, y)`. Such a bit is set by a losing triple `T'`
//! exactly when `T'` shares that key with `(x, y, z)`, and then, by the claim of
//! docs/theory/stones.md §4, the later of the two in lexicographic order can move to the
//! other. A move never raises the smallest, the middle or the largest pile (§2 there), so
//! (as §10 there argues):
//!
//! * if `T'` is earlier, `(x, y, z)` moves to `T'`, hence the pair of `T'` is `<= P`;
//! * if `T'` is later, `T'` moves to `(x, y, z)`, hence the pair of `T'` is `>= P`.
//!
//! (A second triple with the pair `P` itself would share `K1(x, y)`, which ends the
//! search of `P` first.) So the bits that decide `P` are set only by pairs comparable
//! with `P`: any order of the pairs that extends the product order sees, at each pair,
//! exactly the marks the lexicographic scan sees there, and finds the same losing
//! triples; incomparable pairs may run at the same time. Both the lexicographic order and
//! the order by `y` then `x` extend the product order; the pairs of one anti-diagonal
//! `x + y = t` are pairwise incomparable, and so are whole tiles on one anti-diagonal of
//! tiles. The test `random_extensions_of_the_product_order_agree` checks the claim on
//! random orders.
//!
//! # Tiles and ownership
//!
//! The pairs are cut into tiles `(I, J)`, `x` in block `I` and `y` in block `J` of `B`
//! values each (`I <= J`, `B` a power of two). Tile `(I, J)` runs after `(I - 1, J)` and
//! `(I, J - 1)`, hence after every tile `<=` it. Its pairs read the pile groups of blocks
//! `I` and `J` and the difference groups `y - x` of blocks `J - I - 1` and `J - I`: the
//! tile *owns* these blocks. Two tiles that may run at once are incomparable, say `I < I'`
//! and `J > J'`; then `{I, J}` and `{I', J'}` are disjoint (as `I < I' <= J' < J`) and
//! `J - I >= J' - I' + 2`, so their difference blocks are disjoint too. Each block sits
//! behind its own mutex, which a tile holds while it runs: by this argument the locks
//! never wait, and they make the sharing safe without `unsafe`.
//!
//! A losing triple marks nine bits (`K1(x, y)` is never read again, see
//! [`crate::kernels::keyscan::tables::marks`]). Six land in groups the tile owns (pile groups `x` and `y`,
//! difference group `y - x`); the transposed copies of the three `K2` keys land in pile
//! group `z` and difference groups `z - y` and `z - x`, usually owned by a tile not yet
//! run, or running now. Those marks are *deferred* to the end of the tile: then each is
//! written straight into its block if no running tile holds that block, or else queued on
//! the block and applied by the next tile that owns it, when it starts. Every tile that
//! needs such a mark is `>=` the tile that made it, so it starts after the mark was
//! delivered; it owns the block, so it applies the queue first (or finds the mark already
//! written). A mark written early is harmless: it is set in the sequential scan too by the
//! time any pair that reads it runs.
//!
//! # Scheduling
//!
//! The tiles run as a wavefront of the scheduler ([`Scheduler::wavefront`]): a tile
//! becomes ready when its two predecessors are done; workers take ready tiles, lowest
//! strip `I` first, so no worker waits for a particular tile and there is no barrier per
//! anti-diagonal; a worker with nothing ready spins, then yields, never parks. When the
//! triples are wanted in order, the strips run in groups of `STRIPS_PER_GROUP`; after
//! each group the calling thread hands out its triples, `x`-major: the buffer holds one
//! group's triples, not the whole answer. Without a sink all strips form one group.
//!
//! With one thread the same tiles run in the same way on the calling thread: the tiled
//! order alone keeps each tile's rows in the L2 cache, which is what makes this variant
//! faster than the lexicographic scans for large `L` even on one thread.

use super::search::{next_open_pair, partner_x4};
use crate::kernels::keyscan::StoneScan;
use crate::kernels::keyscan::tables::{Layout, Table};
use crate::kernels::keyscan::tiles::{BlockTables, Outbox, Queued, TileOut, drain_queue, lock, run_tiles};
use crate::sched::Scheduler;
use crate::simd::Simd;
use std::sync::MutexGuard;

/// The largest tile side, as a power of two: 128 pairs. A tile's pairs read `4 B` groups
/// of two rows, from bit `y` to the partner (about `0.2 y` bits on average); at `B = 128`
/// and `L = 10^4` that is a few hundred KiB, within the 1 MiB L2 cache, and a tile is
/// about half a millisecond of work, far above the cost of taking it. Larger tiles also queue fewer
/// marks for other blocks. Measured at `L = 10^4` on one thread: 1.56 s with 64, 1.35–1.41 s
/// with 128, 1.38 s with 256.
pub const MAX_TILE_LOG: u32 = 7;

/// The side of the sub-blocks a tile is scanned in, for reuse in the L1 cache.
const SUB: u32 = 16;

/// Blocks per side at least, for small limits: enough tiles on the middle anti-diagonals
/// to keep two threads busy.
const MIN_BLOCKS: u32 = 8;

/// The tile side for `limit`, as a power of two: `2^MAX_TILE_LOG`, or smaller so that
/// there are at least `MIN_BLOCKS` blocks.
pub fn tile_log_for(limit: u32) -> u32 {
    let target = ((limit + 1) / MIN_BLOCKS).max(1);
    target.ilog2().min(MAX_TILE_LOG)
}

/// Sets bit `b` of `table`'s row in `group`.
#[inline(always)]
fn or_bit(group: &mut [u64], layout: Layout, table: Table, b: u32) {
    group[table.word_in_group(layout, b)] |= 1 << (b & 63);
}

/// The blocks of tile `(i, j)`: pile blocks `i` (its `x` rows) and `j` (its `y` rows),
/// difference blocks `k - 1` and `k` for `k = j - i` (one of each when they coincide), as
/// plain slices of the locked blocks.
struct TileMem<'m> {
    layout: Layout,
    log: u32,
    /// Pile block `j`, difference block `k`.
    j: u32,
    k: u32,
    pile_x: &'m mut [u64],
    /// `None` on the diagonal, where the `y` rows are in block `i` too.
    pile_y: Option<&'m mut [u64]>,
    diff_k: &'m mut [u64],
    /// `None` when `k = 0`.
    diff_low: Option<&'m mut [u64]>,
}

impl<'m> TileMem<'m> {
    /// Views of the locked blocks: pile `[i]` or `[i, j]`, difference `[k]` or `[k - 1, k]`.
    fn new(
        t: &BlockTables,
        j: u32,
        k: u32,
        pile: &'m mut [MutexGuard<'_, Vec<u64>>],
        diff: &'m mut [MutexGuard<'_, Vec<u64>>],
    ) -> Self {
        let (pile_x, pile_y) = match pile {
            [x] => (&mut x[..], None),
            [x, y] => (&mut x[..], Some(&mut y[..])),
            _ => unreachable!("one or two pile blocks"),
        };
        let (diff_low, diff_k) = match diff {
            [k] => (None, &mut k[..]),
            [low, k] => (Some(&mut low[..]), &mut k[..]),
            _ => unreachable!("one or two difference blocks"),
        };
        Self { layout: t.layout, log: t.log, j, k, pile_x, pile_y, diff_k, diff_low }
    }

    /// First word of group `r` in its block.
    #[inline(always)]
    fn offset(&self, r: u32) -> usize {
        (r & ((1 << self.log) - 1)) as usize * self.layout.group_words()
    }

    /// Pile group `x` (block `i`).
    #[inline(always)]
    fn group_x(&self, x: u32) -> &[u64] {
        let at = self.offset(x);
        &self.pile_x[at..at + self.layout.group_words()]
    }

    /// Pile block `j`.
    #[inline(always)]
    fn pile_j(&mut self) -> &mut [u64] {
        self.pile_y.as_deref_mut().unwrap_or(self.pile_x)
    }

    /// Difference block `block` (`k` or `k - 1`), if the tile owns it.
    #[inline(always)]
    fn diff_block(&mut self, block: u32) -> Option<&mut [u64]> {
        if block == self.k {
            Some(self.diff_k)
        } else if block.wrapping_add(1) == self.k {
            self.diff_low.as_deref_mut()
        } else {
            None
        }
    }

    /// The groups `y`, `x` and `y - x` of a pair `x < y`, as disjoint slices.
    #[inline(always)]
    fn pair_groups(&mut self, x: u32, y: u32) -> (&mut [u64], &mut [u64], &mut [u64]) {
        let g = self.layout.group_words();
        let (at_x, at_y, at_d) = (self.offset(x), self.offset(y), self.offset(y - x));
        let (group_x, group_y) = match &mut self.pile_y {
            Some(pile_y) => (&mut self.pile_x[at_x..at_x + g], &mut pile_y[at_y..at_y + g]),
            // Diagonal tile: both in block i, group x before group y.
            None => {
                let (low, high) = self.pile_x.split_at_mut(at_y);
                (&mut low[at_x..at_x + g], &mut high[..g])
            }
        };
        let diff = if (y - x) >> self.log == self.k {
            &mut *self.diff_k
        } else {
            self.diff_low.as_deref_mut().expect("the tile owns the groups y - x")
        };
        (group_y, group_x, &mut diff[at_d..at_d + g])
    }

    /// The groups `x` (= `y`) and `0` of the pair `(x, x)` on a diagonal tile (where
    /// `k = 0`).
    #[inline(always)]
    fn twin_groups(&mut self, x: u32) -> (&mut [u64], &mut [u64]) {
        let (g, at) = (self.layout.group_words(), self.offset(x));
        (&mut self.pile_x[at..at + g], &mut self.diff_k[..g])
    }

    /// Sets bit `b` of row `c` of `k2t` if the tile owns pile group `c` (of block `j`; a
    /// `c >= y` is never in block `i` unless that is `j`); else returns the word to queue.
    #[inline(always)]
    fn or_k2t(&mut self, c: u32, b: u32) -> Result<(), usize> {
        let word = self.offset(c) + Table::K2t.word_in_group(self.layout, b);
        if c >> self.log == self.j {
            self.pile_j()[word] |= 1 << (b & 63);
            Ok(())
        } else {
            Err(word)
        }
    }

    /// Sets bit `b` of row `d` of `k2` if the tile owns difference group `d`; else returns
    /// the word to queue.
    #[inline(always)]
    fn or_k2(&mut self, d: u32, b: u32) -> Result<(), usize> {
        let word = self.offset(d) + Table::K2.word_in_group(self.layout, b);
        match self.diff_block(d >> self.log) {
            Some(block) => {
                block[word] |= 1 << (b & 63);
                Ok(())
            }
            None => Err(word),
        }
    }

    /// Applies the marks queued on the tile's blocks, emptying the queues.
    fn apply_queued(&mut self, t: &BlockTables, i: u32, scratch: &mut Vec<Queued>) {
        let (j, k) = (self.j, self.k);
        drain_queue(&t.pile_queue[i as usize], self.pile_x, scratch);
        if let Some(pile_y) = self.pile_y.as_deref_mut() {
            drain_queue(&t.pile_queue[j as usize], pile_y, scratch);
        }
        drain_queue(&t.diff_queue[k as usize], self.diff_k, scratch);
        if let Some(diff_low) = self.diff_low.as_deref_mut() {
            drain_queue(&t.diff_queue[k as usize - 1], diff_low, scratch);
        }
    }
}

/// Scans the pairs of tile `(i, j)`, sub-block by sub-block.
fn scan_tile(t: &BlockTables, simd: Simd, i: u32, j: u32, keep: bool, outbox: &mut Outbox) -> TileOut {
    let (layout, log) = (t.layout, t.log);
    let (limit, tile) = (layout.limit, 1 << log);
    let k = j - i;
    // Pile blocks ascending, then difference blocks ascending: one global order, so even
    // unexpected contention could not deadlock.
    let mut pile: Vec<_> =
        (if j == i { vec![i] } else { vec![i, j] }).iter().map(|&b| lock(&t.pile[b as usize])).collect();
    let mut diff: Vec<_> =
        (if k == 0 { vec![k] } else { vec![k - 1, k] }).iter().map(|&b| lock(&t.diff[b as usize])).collect();
    let mut mem = TileMem::new(t, j, k, &mut pile, &mut diff);
    mem.apply_queued(t, i, &mut outbox.scratch);
    let mut out = TileOut::default();
    let (x_lo, x_hi) = (i * tile, (i * tile + tile - 1).min(limit));
    let (y_lo, y_hi) = (j * tile, (j * tile + tile - 1).min(limit));
    // Sub-blocks of SUB x SUB pairs, in lexicographic order (an order extending the product
    // order, like the tiles'): their rows stay in the L1 cache while they are reused.
    for sub_x in (x_lo..=x_hi).step_by(SUB as usize) {
        for sub_y in (y_lo..=y_hi).step_by(SUB as usize) {
            let sub_y_hi = (sub_y + SUB - 1).min(y_hi);
            if sub_y_hi < sub_x {
                continue;
            }
            for x in sub_x..=(sub_x + SUB - 1).min(x_hi).min(sub_y_hi) {
                let mut y = next_open_pair(mem.group_x(x), layout, sub_y.max(x));
                while y <= sub_y_hi {
                    let found = if x < y {
                        let (group_y, group_x, group_d) = mem.pair_groups(x, y);
                        let found = partner_x4(simd, group_y, group_x, group_d, layout, x, y);
                        if let Some(z) = found {
                            // The marks in groups the tile reads (see tables::marks).
                            or_bit(group_y, layout, Table::K1, z);
                            or_bit(group_y, layout, Table::K2t, z - x);
                            or_bit(group_x, layout, Table::K1, z);
                            or_bit(group_x, layout, Table::K2t, z - y);
                            or_bit(group_d, layout, Table::K2, z);
                            or_bit(group_d, layout, Table::K3, z - x);
                        }
                        found
                    } else {
                        // The pair (x, x), on a diagonal tile: its two pile groups are one.
                        let (group_x, group_d) = mem.twin_groups(x);
                        let found = partner_x4(simd, group_x, group_x, group_d, layout, x, x);
                        if let Some(z) = found {
                            or_bit(group_x, layout, Table::K1, z);
                            or_bit(group_x, layout, Table::K2t, z - x);
                            or_bit(group_d, layout, Table::K2, z);
                            or_bit(group_d, layout, Table::K3, z - x);
                        }
                        found
                    };
                    if let Some(z) = found {
                        out.scan.record(x, y, z);
                        if keep {
                            out.triples.push([x, y, z]);
                        }
                        // The transposed copies of the K2 keys, usually in other tiles' blocks.
                        let d = y - x;
                        if let Err(word) = mem.or_k2t(z, d) {
                            outbox.hold(true, z >> log, word, d & 63);
                        }
                        if let Err(word) = mem.or_k2(z - y, x) {
                            outbox.hold(false, (z - y) >> log, word, x & 63);
                        }
                        if let Err(word) = mem.or_k2(z - x, y) {
                            outbox.hold(false, (z - x) >> log, word, y & 63);
                        }
                    }
                    y = next_open_pair(mem.group_x(x), layout, y + 1);
                }
            }
        }
    }
    if keep {
        out.triples.sort_unstable();
    }
    // Release the blocks as soon as the tile is done; queueing takes only the queue locks.
    drop((pile, diff));
    outbox.send(t);
    out
}

/// Scans every sorted pair with tiles run in parallel by `sched`; calls `sink` for each
/// losing triple in lexicographic order when given.
pub fn keyscan_wavefront(limit: u32, sched: &Scheduler, sink: Option<&mut dyn FnMut(u32, u32, u32)>) -> StoneScan {
    keyscan_wavefront_tiled(limit, tile_log_for(limit), sched, sink)
}

/// [`keyscan_wavefront`] with tiles of `2^log` pairs a side (tests use tiny ones).
pub fn keyscan_wavefront_tiled(
    limit: u32,
    log: u32,
    sched: &Scheduler,
    sink: Option<&mut dyn FnMut(u32, u32, u32)>,
) -> StoneScan {
    wavefront(limit, log, true, sched, sink)
}

/// The scan; `direct`: whether deferred marks may skip the queues (see [`BlockTables`]).
fn wavefront(
    limit: u32,
    log: u32,
    direct: bool,
    sched: &Scheduler,
    sink: Option<&mut dyn FnMut(u32, u32, u32)>,
) -> StoneScan {
    let simd = sched.simd();
    run_tiles(&BlockTables::new(Layout::new(limit), log, direct), sched, sink, |t, i, j, keep, outbox| {
        scan_tile(t, simd, i, j, keep, outbox)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SplitMix64;
    use crate::kernels::keyscan::keyscan_naive;
    use crate::kernels::keyscan::lexicographic::search::partner_u64;
    use crate::kernels::keyscan::tables::{KeyTables, marks};

    /// The plain scan of `bitset.rs`, but visiting the pairs in `order`; returns the
    /// losing triples sorted.
    fn scan_in_order(limit: u32, order: &[(u32, u32)]) -> Vec<[u32; 3]> {
        let mut t = KeyTables::new(limit);
        let layout = t.layout;
        let mut found = Vec::new();
        for &(x, y) in order {
            if t.get(Table::K1, x, y) {
                continue;
            }
            if let Some(z) = partner_u64(t.pile_group(y), t.pile_group(x), t.diff_group(y - x), layout, x, y) {
                found.push([x, y, z]);
                t.mark(x, y, z);
            }
        }
        found.sort_unstable();
        found
    }

    /// A random order of the pairs of `0..=limit` extending the product order: each step
    /// takes a random pair among those whose predecessors `(x - 1, y)` and `(x, y - 1)`
    /// are done.
    fn random_extension(limit: u32, rng: &mut SplitMix64) -> Vec<(u32, u32)> {
        let n = limit as usize + 1;
        let mut done = vec![vec![false; n]; n];
        let mut ready = vec![(0u32, 0u32)];
        let mut order = Vec::new();
        while !ready.is_empty() {
            let (x, y) = ready.swap_remove(rng.below(ready.len() as u64) as usize);
            done[x as usize][y as usize] = true;
            order.push((x, y));
            for (a, b) in [(x + 1, y), (x, y + 1)] {
                let inside = a <= b && b <= limit;
                let preds_done = |a: u32, b: u32| {
                    (a == 0 || done[a as usize - 1][b as usize]) && (b == a || done[a as usize][b as usize - 1])
                };
                if inside && preds_done(a, b) {
                    ready.push((a, b));
                }
            }
        }
        order
    }

    #[test]
    fn random_extensions_of_the_product_order_agree() {
        let mut rng = SplitMix64(260);
        for limit in [5, 12, 30, 64, 90] {
            let mut expected = Vec::new();
            keyscan_naive(limit, &mut |x, y, z| expected.push([x, y, z]));
            for _ in 0..4 {
                let order = random_extension(limit, &mut rng);
                assert_eq!(order.len(), (limit as usize + 1) * (limit as usize + 2) / 2);
                assert_eq!(scan_in_order(limit, &order), expected, "L={limit}");
            }
        }
    }

    #[test]
    fn an_order_that_breaks_the_product_order_can_disagree() {
        // The claim is not vacuous: the anti-lexicographic order by y - x first gets the
        // wrong answer already at L = 4.
        let limit = 4;
        let mut order: Vec<(u32, u32)> = (0..=limit).flat_map(|x| (x..=limit).map(move |y| (x, y))).collect();
        order.sort_by_key(|&(x, y)| (std::cmp::Reverse(y - x), x));
        let mut expected = Vec::new();
        keyscan_naive(limit, &mut |x, y, z| expected.push([x, y, z]));
        assert_ne!(scan_in_order(limit, &order), expected);
    }

    #[test]
    fn every_tile_side_agrees_with_the_reference() {
        for limit in [0, 1, 9, 67, 100] {
            let mut expected = Vec::new();
            let expected_scan = keyscan_naive(limit, &mut |x, y, z| expected.push([x, y, z]));
            for threads in [1, 2, 3] {
                let sched = Scheduler::new(Some(threads)).unwrap();
                for log in 0..=MAX_TILE_LOG + 1 {
                    // Both ways of delivering deferred marks: straight into free blocks, and
                    // (which a run takes only for blocks held at that moment) the queues.
                    for direct in [true, false] {
                        let mut got = Vec::new();
                        let scan = wavefront(limit, log, direct, &sched, Some(&mut |x, y, z| got.push([x, y, z])));
                        let case = format!("L={limit} tile 2^{log} threads {threads} direct {direct}");
                        assert_eq!((scan, &got), (expected_scan, &expected), "{case}");
                        assert_eq!(wavefront(limit, log, direct, &sched, None), expected_scan, "{case}");
                    }
                }
            }
        }
    }

    #[test]
    fn tiles_are_powers_of_two_with_enough_blocks() {
        assert_eq!(tile_log_for(0), 0);
        assert_eq!(tile_log_for(15), 1);
        assert_eq!(tile_log_for(1000), 6);
        assert_eq!(tile_log_for(10_000), MAX_TILE_LOG);
        for limit in [0u32, 7, 8, 100, 511, 512, 4000] {
            let blocks = (limit + 1).div_ceil(1 << tile_log_for(limit));
            assert!(blocks >= MIN_BLOCKS.min(limit + 1) || tile_log_for(limit) == 0, "L={limit}");
        }
    }

    #[test]
    fn deferred_marks_are_the_transposed_k2_copies() {
        // Only K2 (in difference groups) and K2t (in pile groups) marks may leave a tile.
        let (x, y, z) = (3, 40, 70);
        let outside: Vec<Table> = marks(x, y, z)
            .into_iter()
            .filter(|&(_, r, _)| r != x && r != y && r != y - x)
            .map(|(table, _, _)| table)
            .collect();
        assert_eq!(outside, [Table::K2t, Table::K2, Table::K2]);
    }
}
