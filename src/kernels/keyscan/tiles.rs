//! The tiles of the two tiled scans (`lexicographic::wavefront`, `diagonal::tiles`): the
//! key tables cut into blocks of `2^log` groups, each behind a mutex, the queues of the
//! marks deferred to the tile that owns their block, and the loop that runs the tiles as
//! a wavefront of the scheduler and hands out their triples in lexicographic order.
//!
//! Why the tiles may run in any order extending the product order, and why a deferred
//! mark always reaches the tile that needs it in time, is argued in
//! `lexicographic/wavefront.rs` (docs/theory/stones.md for the keys).

use super::StoneScan;
use super::tables::Layout;
use crate::sched::Scheduler;
use std::sync::{Mutex, MutexGuard, TryLockError};

/// Strips of tiles per group when the triples are handed out in order.
pub(crate) const STRIPS_PER_GROUP: u32 = 8;

/// A mark waiting for the tile that owns its block: `[word index in the block, bit]`.
/// Only the transposed copies of `K2` keys are ever queued (see the module docs).
pub(crate) type Queued = [u32; 2];

/// The tables cut into blocks of `2^log` groups, each behind a mutex, with a queue of
/// deferred marks per block.
pub(crate) struct BlockTables {
    pub(crate) layout: Layout,
    pub(crate) log: u32,
    /// Whether deferred marks may be written straight into free blocks (always, except in
    /// the test that forces every one through the queues).
    direct: bool,
    pub(crate) pile: Vec<Mutex<Vec<u64>>>,
    pub(crate) diff: Vec<Mutex<Vec<u64>>>,
    pub(crate) pile_queue: Vec<Mutex<Vec<Queued>>>,
    pub(crate) diff_queue: Vec<Mutex<Vec<Queued>>>,
}

impl BlockTables {
    pub(crate) fn new(layout: Layout, log: u32, direct: bool) -> Self {
        let groups = layout.limit + 1;
        let block_words = |b: u32| ((groups - (b << log)).min(1 << log) as usize) * layout.group_words();
        Self::with_block_words(layout, log, direct, block_words, block_words)
    }

    /// Blocks of `pile_words(b)` and `diff_words(b)` zero words for the groups
    /// `b 2^log ..` (however a tile kind lays them out).
    pub(crate) fn with_block_words(
        layout: Layout,
        log: u32,
        direct: bool,
        pile_words: impl Fn(u32) -> usize,
        diff_words: impl Fn(u32) -> usize,
    ) -> Self {
        let blocks = (layout.limit + 1).div_ceil(1 << log);
        let tables = |words: &dyn Fn(u32) -> usize| (0..blocks).map(|b| Mutex::new(vec![0u64; words(b)])).collect();
        let queues = || (0..blocks).map(|_| Mutex::new(Vec::new())).collect();
        let (pile, diff) = (tables(&pile_words), tables(&diff_words));
        Self { layout, log, direct, pile, diff, pile_queue: queues(), diff_queue: queues() }
    }

    pub(crate) fn blocks(&self) -> u32 {
        self.pile.len() as u32
    }
}

/// Locks `m`; a poisoned lock means another tile panicked, which fails the whole scan.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().expect("a tile of the scan panicked")
}

/// Applies and empties the marks queued on a block (`scratch`: a buffer to swap with
/// the queue, so that neither gives up its allocation).
pub(crate) fn drain_queue(queue: &Mutex<Vec<Queued>>, block: &mut [u64], scratch: &mut Vec<Queued>) {
    std::mem::swap(&mut *lock(queue), scratch);
    for &[word, bit] in scratch.iter() {
        block[word as usize] |= 1 << bit;
    }
    scratch.clear();
}

/// One worker's marks for blocks it does not own, by destination block, sent to the
/// queues after each tile; its buffers are reused from tile to tile.
pub(crate) struct Outbox {
    pile: Vec<Vec<Queued>>,
    diff: Vec<Vec<Queued>>,
    /// Destinations with marks: `(is a pile block, block)`.
    touched: Vec<(bool, u32)>,
    /// Scratch space for draining a queue without giving up its allocation.
    pub(crate) scratch: Vec<Queued>,
}

impl Outbox {
    fn new(blocks: u32) -> Self {
        let empty = || vec![Vec::new(); blocks as usize];
        Self { pile: empty(), diff: empty(), touched: Vec::new(), scratch: Vec::new() }
    }

    /// Holds a mark for word `word` of block `block` (a pile block when `pile`).
    #[inline(always)]
    pub(crate) fn hold(&mut self, pile: bool, block: u32, word: usize, bit: u32) {
        let held = if pile { &mut self.pile[block as usize] } else { &mut self.diff[block as usize] };
        if held.is_empty() {
            self.touched.push((pile, block));
        }
        held.push([word as u32, bit]);
    }

    /// Delivers every held mark: straight into its block when no running tile holds the
    /// block (the usual case: only a few blocks are held at any time), else to the block's
    /// queue. Called with no block locked, so `try_lock` cannot deadlock.
    pub(crate) fn send(&mut self, t: &BlockTables) {
        for (pile, block) in self.touched.drain(..) {
            let (held, words, queue) = if pile {
                (&mut self.pile[block as usize], &t.pile[block as usize], &t.pile_queue[block as usize])
            } else {
                (&mut self.diff[block as usize], &t.diff[block as usize], &t.diff_queue[block as usize])
            };
            match words.try_lock() {
                Ok(mut words) if t.direct => {
                    held.drain(..).for_each(|[word, bit]| words[word as usize] |= 1 << bit);
                }
                Ok(_) | Err(TryLockError::WouldBlock) => lock(queue).append(held),
                Err(TryLockError::Poisoned(_)) => panic!("a tile of the scan panicked"),
            }
        }
    }
}

/// What one tile found.
#[derive(Default)]
pub(crate) struct TileOut {
    pub(crate) scan: StoneScan,
    /// The losing triples in lexicographic order, when wanted.
    pub(crate) triples: Vec<[u32; 3]>,
}

/// Runs every tile of `tables` with `scan_tile` on the scheduler's threads, each tile
/// after its two predecessors, and hands out the triples in lexicographic order.
pub(crate) fn run_tiles(
    tables: &BlockTables,
    sched: &Scheduler,
    mut sink: Option<&mut dyn FnMut(u32, u32, u32)>,
    scan_tile: impl Fn(&BlockTables, u32, u32, bool, &mut Outbox) -> TileOut + Sync,
) -> StoneScan {
    let (limit, tile) = (tables.layout.limit, 1u32 << tables.log);
    let blocks = tables.blocks();
    let keep = sink.is_some();
    let group = if keep { STRIPS_PER_GROUP } else { blocks };
    let progress = sched.progress(blocks as u64 * (blocks as u64 + 1) / 2, "stones tiles");
    let mut scan = StoneScan::default();
    for first in (0..blocks).step_by(group as usize) {
        let last = (first + group).min(blocks) - 1;
        // Tiles run as their predecessors finish: an order extending the product order.
        let mut tiles = sched.wavefront(
            (first, last),
            blocks,
            || Outbox::new(blocks),
            |outbox, i, j| {
                let out = scan_tile(tables, i, j, keep, outbox);
                progress.inc(1);
                out
            },
        );
        tiles.iter().for_each(|(_, _, out)| scan.add(&out.scan));
        if let Some(sink) = sink.as_deref_mut() {
            // x-major: within a strip, for each x the tiles in order of j, each holding
            // that x's triples in order of y.
            tiles.sort_unstable_by_key(|&(i, j, _)| (i, j));
            for strip in tiles.chunk_by(|a, b| a.0 == b.0) {
                let mut cursors = vec![0usize; strip.len()];
                let (x_lo, x_hi) = (strip[0].0 * tile, (strip[0].0 * tile + tile - 1).min(limit));
                for x in x_lo..=x_hi {
                    for (tile_out, cursor) in strip.iter().map(|s| &s.2).zip(cursors.iter_mut()) {
                        while let Some(&[tx, ty, tz]) = tile_out.triples.get(*cursor).filter(|t| t[0] == x) {
                            sink(tx, ty, tz);
                            *cursor += 1;
                        }
                    }
                }
            }
        }
    }
    scan
}
