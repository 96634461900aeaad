//! The losing-triple scan of the three-pile stone game (PE 260, seed sections 3–5).
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

pub mod check;
pub mod naive;

pub use naive::keyscan_naive;

use crate::kernels::variant_enum;
use crate::sched::Scheduler;

/// What a scan found: the number of losing triples and the sum of `x + y + z` over them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoneScan {
    /// Losing sorted triples with `z <= L`.
    pub losing: u64,
    /// `Σ (x + y + z)` over them. At most `3L·(L+1)(L+2)/2` (seed section 8), so `u64`
    /// holds it for every `L` below 2^20, far past what fits in memory.
    pub sum: u64,
}

impl StoneScan {
    /// Adds one losing triple.
    #[inline]
    pub fn record(&mut self, x: u32, y: u32, z: u32) {
        self.losing += 1;
        self.sum += x as u64 + y as u64 + z as u64;
    }
}

variant_enum! {
    /// The scan implementations.
    pub enum KeyscanVariant {
        /// Seven byte-table look-ups per triple, O(L^3): the reference.
        Naive => "naive",
    }
}

impl KeyscanVariant {
    /// Scans all sorted triples with `z <= limit`, calling `sink(x, y, z)` for each losing
    /// triple in lexicographic order.
    pub fn run(self, limit: u32, _sched: &Scheduler, sink: &mut dyn FnMut(u32, u32, u32)) -> StoneScan {
        match self {
            KeyscanVariant::Naive => keyscan_naive(limit, sink),
        }
    }

    /// Bytes of tables the variant allocates for `limit`.
    pub fn memory_bytes(self, limit: u32) -> u64 {
        let side = limit as u64 + 1;
        match self {
            KeyscanVariant::Naive => 3 * side * side,
        }
    }
}
