//! The losing-triple scan of the three-pile stone game (PE 260, docs/theory/stones.md §3–5).
//!
//! Sorted triples `x <= y <= z <= L` are visited in lexicographic order; a triple is
//! losing exactly when none of its seven keys belongs to an earlier losing triple:
//!
//! ```text
//! K1(y,z) K1(x,z) K1(x,y)            one pile moved: the other two sizes stay
//! K2(y-x,z) K2(z-y,x) K2(z-x,y)      two piles moved: their difference and the third pile stay
//! K3(y-x,z-x)                        all three moved: the two gaps stay
//! ```
//!
//! Every variant reports the same [`StoneScan`] and can hand each losing triple to a
//! sink, in the scan's lexicographic order.
//!
//! Two generations of bitset scans, each in its folder, over shared key tables:
//!
//! | variant | file | what it does |
//! |---|---|---|
//! | `naive` | `naive.rs` | the plain scan (docs/theory/stones.md §5): seven byte-table look-ups per triple, `O(L^3)`; the reference and the plain variant |
//! | `bitset` | `lexicographic/bitset.rs` | pairs in lexicographic order, pairs whose `K1(x, y)` is marked skipped, each open pair's partner found by a first-zero search over the OR of six bit rows, one `u64` per step |
//! | `bitset-x4`, `bitset-x8` | `lexicographic/bitset_wide.rs` | the same search four or eight words per step, in vector blocks of the SIMD backend (`simd::words::Block`) |
//! | `wavefront` | `lexicographic/wavefront.rs` | square tiles of pairs, run in parallel as their predecessors finish; the tiling keeps each tile's rows in cache |
//! | `diagonal` | `diagonal/mod.rs` | strips of 64 `x`, each by anti-diagonals `x + y = t`: all searches of one anti-diagonal (independent of each other), then all its marks; line-aligned tables (`diagonal/tables.rs`), one seven-word window per pair (`diagonal/window.rs`); pairs of an exhausted pile left out (`diagonal/exhausted.rs`) |
//! | `diagonal-tiles` | `diagonal/tiles.rs` | the tiles of `wavefront`, each scanned like `diagonal` |
//!
//! Shared by both: the key tables (`tables.rs`: the three kinds of keys as bit rows, `K2`
//! in both orientations, and which bits a losing triple marks) and the tiles of the two
//! tiled scans (`tiles.rs`: the tables cut into locked blocks, the queues of deferred
//! marks, the loop that runs the tiles as a wavefront of the scheduler). The lexicographic
//! scans share one partner search (`lexicographic/search.rs`); the diagonal ones have
//! their own line-aligned tables (`diagonal/tables.rs`) and window search
//! (`diagonal/window.rs`). Why the pairs
//! may be visited in other orders than the lexicographic one, and which tiles may run at
//! the same time, is argued in `lexicographic/wavefront.rs`. `diagonal/exhausted.rs`
//! proves, for the two diagonal scans, that some pairs have no partner without
//! searching. `check.rs` compares any variant with the reference.

pub mod check;
pub mod diagonal;
pub mod lexicographic;
pub mod naive;
pub mod tables;
mod tiles;

pub use diagonal::keyscan_diagonal;
pub use diagonal::tiles::keyscan_diagonal_tiles;
pub use lexicographic::bitset::keyscan_bitset;
pub use lexicographic::bitset_wide::{keyscan_bitset_x4, keyscan_bitset_x8};
pub use lexicographic::wavefront::keyscan_wavefront;
pub use naive::keyscan_naive;

use crate::kernels::variant_enum;
use crate::sched::Scheduler;

/// What a scan found: the number of losing triples and the sum of `x + y + z` over them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoneScan {
    /// Losing sorted triples with `z <= L`.
    pub losing: u64,
    /// `Σ (x + y + z)` over them. At most `3L·(L+1)(L+2)/2` (docs/theory/stones.md §8), so
    /// `u64` holds it for every `L` below 2^20, far past what fits in memory.
    pub sum: u64,
}

impl StoneScan {
    /// Adds one losing triple.
    #[inline]
    pub fn record(&mut self, x: u32, y: u32, z: u32) {
        self.losing += 1;
        self.sum += x as u64 + y as u64 + z as u64;
    }

    /// Adds the findings of a disjoint part of the scan.
    pub fn add(&mut self, other: &StoneScan) {
        self.losing += other.losing;
        self.sum += other.sum;
    }
}

variant_enum! {
    /// The scan implementations.
    pub enum KeyscanVariant {
        /// Seven byte-table look-ups per triple, O(L^3): the reference.
        Naive => "naive",
        /// Bit-packed rows, one OR of six rows and a first-zero search per pair.
        Bitset => "bitset",
        /// The same, four words (256 candidates) per step in vector blocks.
        BitsetX4 => "bitset-x4",
        /// The same, eight words (512 candidates) per step in vector blocks.
        BitsetX8 => "bitset-x8",
        /// Tiles of pairs run as a wavefront on the scheduler's threads.
        Wavefront => "wavefront",
        /// Strips of 64 `x`, each by anti-diagonals, all searches of one before its marks.
        Diagonal => "diagonal",
        /// Tiles of pairs run as a wavefront, each by anti-diagonals.
        DiagonalTiles => "diagonal-tiles",
    }
}

impl KeyscanVariant {
    /// Scans all sorted triples with `z <= limit`, calling `sink(x, y, z)` for each losing
    /// triple in lexicographic order.
    pub fn run(self, limit: u32, sched: &Scheduler, sink: &mut dyn FnMut(u32, u32, u32)) -> StoneScan {
        match self {
            KeyscanVariant::Naive => keyscan_naive(limit, sink),
            KeyscanVariant::Bitset => keyscan_bitset(limit, sched, sink),
            KeyscanVariant::BitsetX4 => keyscan_bitset_x4(limit, sched, sink),
            KeyscanVariant::BitsetX8 => keyscan_bitset_x8(limit, sched, sink),
            KeyscanVariant::Wavefront => keyscan_wavefront(limit, sched, Some(sink)),
            KeyscanVariant::Diagonal => keyscan_diagonal(limit, sched, Some(sink)),
            KeyscanVariant::DiagonalTiles => keyscan_diagonal_tiles(limit, sched, Some(sink)),
        }
    }

    /// The count and sum alone, without handing out the triples (which lets a parallel
    /// variant skip buffering them).
    pub fn count(self, limit: u32, sched: &Scheduler) -> StoneScan {
        match self {
            KeyscanVariant::Wavefront => keyscan_wavefront(limit, sched, None),
            KeyscanVariant::Diagonal => keyscan_diagonal(limit, sched, None),
            KeyscanVariant::DiagonalTiles => keyscan_diagonal_tiles(limit, sched, None),
            _ => self.run(limit, sched, &mut |_, _, _| {}),
        }
    }

    /// Bytes the variant allocates for `limit`: its tables, and for the wavefront half as
    /// much again for the marks held between tiles, the per-block allocations and the
    /// allocator's slack (measured peak RSS of the whole process: 102 MB at `L = 8000`,
    /// 240 MB at 16000, 603 MB at 30000, against 34, 130 and 459 MB of tables). The
    /// sequential anti-diagonal scan finds a strip's triples out of order: with a sink it
    /// holds them to sort them (at most one per pair, docs/theory/stones.md §8, 12 bytes
    /// each).
    pub fn memory_bytes(self, limit: u32) -> u64 {
        let side = limit as u64 + 1;
        let tables = tables::Layout::new(limit).table_bytes();
        match self {
            KeyscanVariant::Naive => 3 * side * side,
            KeyscanVariant::Wavefront => tables + tables / 2,
            KeyscanVariant::Diagonal => diagonal::tables::LineTables::bytes_for(limit) + 12 * 64 * side,
            KeyscanVariant::DiagonalTiles => diagonal::tiles::memory_bytes(limit),
            _ => tables,
        }
    }
}
