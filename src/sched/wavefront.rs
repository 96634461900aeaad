//! The two-dimensional wavefront: tiles `(i, j)` of an upper-triangular grid, each run
//! after its two predecessors `(i - 1, j)` and `(i, j - 1)`, on every worker.
//!
//! This is the dependency order of the stone scan's tiles (`kernels::keyscan::lexicographic::wavefront`
//! argues why an order extending the product order is enough there), but nothing here
//! knows about stones: a tile is two numbers, and the work is the caller's closure.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

/// The tiles `first <= i <= last`, `i <= j < columns` of one wavefront that are not done
/// yet: how many of each tile's two predecessors are unfinished, and the tiles ready to
/// run. Rows before `first` count as done.
pub(super) struct Frontier {
    first: u32,
    last: u32,
    columns: u32,
    /// Unfinished predecessors of tile `(i, j)`, at [`Frontier::index`].
    waiting_on: Vec<AtomicU32>,
    /// Ready tiles, lowest row first (so rows finish early and in order).
    ready: Mutex<BinaryHeap<Reverse<(u32, u32)>>>,
    /// How many tiles `ready` holds, so that waiters poll an atomic, not the lock.
    ready_count: AtomicUsize,
    /// Tiles not yet finished.
    unfinished: AtomicUsize,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().expect("a tile of the wavefront panicked")
}

impl Frontier {
    /// The tiles of rows `first..=last` (`first <= last < columns`).
    pub(super) fn new(first: u32, last: u32, columns: u32) -> Self {
        assert!(first <= last && last < columns, "rows {first}..={last} of {columns} columns");
        let mut waiting_on = Vec::new();
        let mut tiles = 0;
        for i in first..=last {
            for j in 0..columns {
                // (i - 1, j) of an earlier row group is done already.
                let preds = (j >= i && i > first) as u32 + (j > i) as u32;
                waiting_on.push(AtomicU32::new(preds));
                tiles += (j >= i) as usize;
            }
        }
        let ready = Mutex::new(BinaryHeap::from([Reverse((first, first))]));
        Self {
            first,
            last,
            columns,
            waiting_on,
            ready,
            ready_count: AtomicUsize::new(1),
            unfinished: AtomicUsize::new(tiles),
        }
    }

    fn index(&self, i: u32, j: u32) -> usize {
        ((i - self.first) * self.columns + j) as usize
    }

    /// A ready tile, waiting (spinning, then yielding the core) while none is ready and
    /// some are running; `None` once every tile is done. A parked thread can take
    /// milliseconds to wake on a virtual machine, far longer than a tile, so waiters
    /// never park.
    pub(super) fn take(&self) -> Option<(u32, u32)> {
        let mut spins = 0u32;
        loop {
            if self.ready_count.load(Ordering::Acquire) > 0 {
                let mut ready = lock(&self.ready);
                if let Some(Reverse(tile)) = ready.pop() {
                    self.ready_count.store(ready.len(), Ordering::Release);
                    return Some(tile);
                }
            }
            if self.unfinished.load(Ordering::Acquire) == 0 {
                return None;
            }
            if spins < 1 << 10 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// Records tile `(i, j)` as done and readies the successors whose predecessors are
    /// now all done. The release of the counters orders the tile's writes before the
    /// successor's start (the acquire in `fetch_sub` and `take`).
    pub(super) fn finish(&self, i: u32, j: u32) {
        for (si, sj) in [(i + 1, j), (i, j + 1)] {
            if si <= self.last
                && si <= sj
                && sj < self.columns
                && self.waiting_on[self.index(si, sj)].fetch_sub(1, Ordering::AcqRel) == 1
            {
                let mut ready = lock(&self.ready);
                ready.push(Reverse((si, sj)));
                self.ready_count.store(ready.len(), Ordering::Release);
            }
        }
        self.unfinished.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One thread taking and finishing tiles: every tile comes once, after both of its
    /// predecessors, and then the frontier reports the end.
    #[test]
    fn tiles_come_once_each_after_their_predecessors() {
        for (first, last, columns) in [(0, 0, 1), (0, 3, 4), (2, 4, 7), (0, 6, 7), (5, 5, 9)] {
            let frontier = Frontier::new(first, last, columns);
            let mut done = std::collections::HashSet::new();
            while let Some((i, j)) = frontier.take() {
                assert!(first <= i && i <= last && i <= j && j < columns, "({i}, {j})");
                assert!(i == first || done.contains(&(i - 1, j)), "({i}, {j}) before ({}, {j})", i - 1);
                assert!(j == i || done.contains(&(i, j - 1)), "({i}, {j}) before ({i}, {})", j - 1);
                assert!(done.insert((i, j)), "({i}, {j}) twice");
                frontier.finish(i, j);
            }
            let expected: usize = (first..=last).map(|i| (columns - i) as usize).sum();
            assert_eq!(done.len(), expected, "rows {first}..={last} of {columns}");
        }
    }
}
