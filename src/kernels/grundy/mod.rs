//! Grundy values `G(0..=N)` of a take-and-break game given by its move rules.
//!
//! The rules ([`Rules`]) say, for each number `i` of tokens removed from one heap of `n`,
//! whether the move may leave nothing (`n = i`), one heap (`n > i`), or two non-empty
//! heaps `a + b = n - i`; `i = 0` splits without removing (octal `d0 = 4`, and Grundy's
//! game, which splits into two *unequal* heaps). `G(n)` is the mex of the option values,
//! a split's value being `G(a) ^ G(b)` (docs/theory/octal.md §2).
//!
//! Variants (see [`GrundyVariant`]): `naive`, every option of every heap, the reference;
//! `bitset`, the split pairs as vectorised xor scans into a bitset of seen values;
//! `sparse`, the sparse-space method (§4): the rare positions paired with all, the
//! common–common pairs searched only for the values that need them; `parallel`, `sparse`
//! with the rare–far pairs of each block of heaps on the scheduler's threads; `blocks`,
//! `sparse` with each block's rare pairs marked by lag, eight heaps per vector (§4.5),
//! the next block's marks made on a second thread while a block is computed.
//!
//! Every variant extends a table in place, so a run can grow `N` step by step (the
//! `--until-periodic` doubling) without recomputing the values it has.

pub mod bitset;
pub mod blocks;
pub mod check;
pub mod naive;
pub mod parallel;
pub mod search;
pub mod sparse;

pub use bitset::grundy_bitset;
pub use blocks::{grundy_lag_blocks, grundy_lag_blocks_checked};
pub use naive::grundy_naive;
pub use parallel::grundy_parallel;
pub use sparse::{SparseSplit, grundy_sparse, sparse_split};

use crate::kernels::variant_enum;
use crate::sched::Scheduler;

/// The largest Grundy value a table holds: values are stored in 16 bits, so that 2^30
/// heaps take 2 GiB.
pub const MAX_VALUE: u32 = u16::MAX as u32;

/// The move rules of a take-and-break game on one heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// Bit `i`: removing `i` tokens may take the whole heap (`n = i`).
    pub whole: u64,
    /// Bit `i`: removing `i` tokens may leave one heap (`n > i`).
    pub take: u64,
    /// Bit `i`: removing `i` tokens may leave two non-empty heaps (bit 0: a split
    /// without removal).
    pub split: u64,
    /// Splits must leave two different heaps (Grundy's game).
    pub unequal: bool,
}

impl Rules {
    /// Grundy's game: split one heap into two unequal non-empty heaps.
    pub const GRUNDY: Rules = Rules { whole: 0, take: 0, split: 1, unequal: true };

    /// The rules of the octal code with digits `d0, d1, ..., dk` (`d0` is 0 or 4; bit 4 of
    /// `d0` splits without removal).
    ///
    /// # Panics
    /// If there are more than 64 digits, or a digit is above 7.
    pub fn octal(digits: &[u8]) -> Rules {
        assert!(digits.len() <= 64 && digits.iter().all(|&d| d <= 7), "octal digits {digits:?}");
        let mut rules = Rules { whole: 0, take: 0, split: 0, unequal: false };
        for (i, &d) in digits.iter().enumerate() {
            if i > 0 {
                rules.whole |= ((d & 1) as u64) << i;
                rules.take |= ((d >> 1 & 1) as u64) << i;
            }
            rules.split |= ((d >> 2 & 1) as u64) << i;
        }
        rules
    }

    /// The most tokens one move removes (`k`, the index of the last non-zero digit).
    pub fn max_removed(&self) -> usize {
        let all = self.whole | self.take | self.split;
        if all == 0 { 0 } else { 63 - all.leading_zeros() as usize }
    }

    /// The numbers removed by split moves, ascending.
    pub fn split_removals(&self) -> impl Iterator<Item = usize> + Clone + use<> {
        bits(self.split)
    }

    /// The value set of the moves that leave at most one heap, from heap `n`, marked by
    /// `mark` (`G` read from `g`, which holds at least `g[0..n]`).
    #[inline]
    pub(crate) fn mark_simple_options(&self, g: &[u16], n: usize, mut mark: impl FnMut(u32)) {
        if n < 64 && self.whole >> n & 1 == 1 {
            mark(0);
        }
        for i in bits(self.take) {
            if i >= 1 && i < n {
                mark(g[n - i] as u32);
            }
        }
    }
}

/// The set bits of `word`, ascending.
pub(crate) fn bits(mut word: u64) -> impl Iterator<Item = usize> + Clone {
    std::iter::from_fn(move || {
        (word != 0).then(|| {
            let i = word.trailing_zeros() as usize;
            word &= word - 1;
            i
        })
    })
}

/// A value that does not fit the 16-bit table: the first heap that has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overflow {
    /// The heap whose value exceeds [`MAX_VALUE`].
    pub heap: usize,
}

impl std::fmt::Display for Overflow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "G({}) exceeds {MAX_VALUE}, the largest value the 16-bit table holds", self.heap)
    }
}

/// The stored value `v`, or the overflow at `heap`.
#[inline]
pub(crate) fn store(v: u32, heap: usize) -> Result<u16, Overflow> {
    u16::try_from(v).map_err(|_| Overflow { heap })
}

/// What a run does at a checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checkpoint {
    /// Stop here: the table is long enough.
    Stop,
    /// Go on, and check again once the table holds this many values.
    Next(usize),
}

/// Where a run offers its table to a check that may end it early (the doubling of a
/// table that is certified as it grows). A run offers the table each time it holds at
/// least `next` values, at a point of its choosing past that (the end of a block), and
/// goes on with the run's own state: restarting a kernel per step would pay its set-up
/// again, and on two threads wake a parked worker (milliseconds on a busy host).
pub struct Checkpoints<'a> {
    next: usize,
    check: Option<&'a mut CheckFn<'a>>,
}

/// The check of [`Checkpoints`]: sees the table, says whether to stop.
pub type CheckFn<'a> = dyn FnMut(&[u16]) -> Checkpoint + Send + 'a;

impl<'a> Checkpoints<'a> {
    /// No checkpoints: the run goes to its end.
    pub fn none() -> Self {
        Checkpoints { next: usize::MAX, check: None }
    }

    /// Checkpoints from a table of `first` values on, the next ones named by `check`.
    pub fn new(first: usize, check: &'a mut CheckFn<'a>) -> Self {
        Checkpoints { next: first, check: Some(check) }
    }

    /// Whether a run whose table is `g` stops here (checked once `g` reaches the next
    /// checkpoint).
    pub(crate) fn stop_at(&mut self, g: &[u16]) -> bool {
        let Some(check) = self.check.as_mut().filter(|_| g.len() >= self.next) else { return false };
        match check(g) {
            Checkpoint::Stop => true,
            Checkpoint::Next(next) => {
                self.next = next.max(g.len() + 1);
                false
            }
        }
    }
}

variant_enum! {
    /// The Grundy-value implementations.
    pub enum GrundyVariant {
        /// Every option of every heap, O(N^2) with split moves: the reference.
        Naive => "naive",
        /// Split pairs as vectorised xor scans into a bitset of seen values; O(N^2/2).
        Bitset => "bitset",
        /// The sparse-space method: rare positions against all, common pairs searched
        /// only for the values that need them.
        Sparse => "sparse",
        /// `sparse`, with each block's rare-far pairs on the scheduler's threads.
        Parallel => "parallel",
        /// `sparse`, each block's rare pairs marked by lag, eight heaps per vector.
        Blocks => "blocks",
    }
}

impl GrundyVariant {
    /// Extends `g` (the values of heaps `0..g.len()`, possibly none) to the values of
    /// heaps `0..=max_heap` under `rules`, on the scheduler's backend and threads.
    ///
    /// # Errors
    /// If a value does not fit in 16 bits; `g` then holds the values before that heap.
    pub fn extend(self, rules: &Rules, g: &mut Vec<u16>, max_heap: usize, sched: &Scheduler) -> Result<(), Overflow> {
        if g.len() > max_heap {
            return Ok(());
        }
        g.reserve_exact(max_heap + 1 - g.len());
        match self {
            GrundyVariant::Naive => grundy_naive(rules, g, max_heap),
            GrundyVariant::Bitset => grundy_bitset(sched.simd(), rules, g, max_heap),
            GrundyVariant::Sparse => grundy_sparse(sched.simd(), rules, g, max_heap),
            GrundyVariant::Parallel => grundy_parallel(rules, g, max_heap, sched),
            GrundyVariant::Blocks => grundy_lag_blocks(rules, g, max_heap, sched),
        }
    }

    /// [`Self::extend`], offering the table to `checks`, which may end the run early.
    /// `blocks` offers it at the end of a block and keeps its state; the other variants
    /// are extended from one checkpoint to the next.
    ///
    /// # Errors
    /// As [`Self::extend`].
    pub fn extend_checked(
        self,
        rules: &Rules,
        g: &mut Vec<u16>,
        max_heap: usize,
        sched: &Scheduler,
        checks: &mut Checkpoints<'_>,
    ) -> Result<(), Overflow> {
        if self == GrundyVariant::Blocks {
            g.reserve_exact((max_heap + 1).saturating_sub(g.len()));
            return grundy_lag_blocks_checked(rules, g, max_heap, sched, checks);
        }
        loop {
            self.extend(rules, g, checks.next.saturating_sub(1).min(max_heap), sched)?;
            if g.len() > max_heap || checks.stop_at(g) {
                return Ok(());
            }
        }
    }

    /// The values of heaps `0..=max_heap`.
    pub fn values(self, rules: &Rules, max_heap: usize, sched: &Scheduler) -> Result<Vec<u16>, Overflow> {
        let mut g = Vec::new();
        self.extend(rules, &mut g, max_heap, sched)?;
        Ok(g)
    }

    /// The fastest variant on every size and thread count measured: the sparse-space
    /// method with the rare pairs marked by lag (its lanes beat the parallel variant's
    /// second thread, and on two threads it pipelines its marks; docs/design/octal.md).
    pub fn fastest() -> Self {
        GrundyVariant::Blocks
    }
}

/// A table of seen values that is cleared in O(1): value `v` is seen when
/// `stamp[v] == current`.
pub(crate) struct Seen {
    stamp: Vec<u32>,
    current: u32,
}

impl Seen {
    pub(crate) fn new(len: usize) -> Self {
        Self { stamp: vec![0; len], current: 0 }
    }

    /// Forgets every value; the table covers at least `len` values.
    #[inline]
    pub(crate) fn clear(&mut self, len: usize) {
        if self.stamp.len() < len {
            self.stamp.resize(len, 0);
        }
        self.current = self.current.wrapping_add(1);
        if self.current == 0 {
            self.stamp.fill(0);
            self.current = 1;
        }
    }

    /// Marks `v` (below the cleared length); says whether it was new.
    #[inline(always)]
    pub(crate) fn insert(&mut self, v: u32) -> bool {
        let slot = &mut self.stamp[v as usize];
        let new = *slot != self.current;
        *slot = self.current;
        new
    }

    #[inline(always)]
    pub(crate) fn contains(&self, v: u32) -> bool {
        self.stamp.get(v as usize).is_some_and(|&s| s == self.current)
    }

    /// The least unseen value.
    #[inline]
    pub(crate) fn mex(&self) -> u32 {
        (0..).find(|&v| !self.contains(v)).expect("a finite table")
    }
}

/// A bitset of seen values, cleared word by word: for the sparse method, whose value
/// range is small (`2^(bits+1)`) and whose mex needs word-wide scans.
pub(crate) struct SeenBits {
    pub(crate) words: Vec<u64>,
}

impl SeenBits {
    pub(crate) fn new(values: usize) -> Self {
        Self { words: vec![0; values.div_ceil(64)] }
    }

    /// Forgets every value; covers at least `values` values.
    #[inline]
    pub(crate) fn clear(&mut self, values: usize) {
        let len = values.div_ceil(64);
        if self.words.len() < len {
            self.words.resize(len, 0);
        }
        self.words.fill(0);
    }

    /// Marks `v`; says whether it was new.
    #[inline(always)]
    pub(crate) fn insert(&mut self, v: u32) -> bool {
        let word = &mut self.words[(v >> 6) as usize];
        let bit = 1u64 << (v & 63);
        let new = *word & bit == 0;
        *word |= bit;
        new
    }

    /// The least `v < limit` with bit `v` of `allowed` set and not seen (`limit` if none).
    #[inline]
    pub(crate) fn first_unseen_in(&self, allowed: &[u64], limit: u32) -> u32 {
        for (w, (&seen, &ok)) in self.words.iter().zip(allowed).enumerate() {
            let open = ok & !seen;
            if open != 0 {
                return (64 * w as u32 + open.trailing_zeros()).min(limit);
            }
        }
        limit
    }

    /// Unseen values below `limit`.
    #[inline]
    pub(crate) fn unseen_below(&self, limit: u32) -> u32 {
        let full = (limit / 64) as usize;
        let mut count: u32 = self.words[..full].iter().map(|w| w.count_zeros()).sum();
        let rem = limit % 64;
        if rem != 0 {
            count += (!self.words[full] & ((1u64 << rem) - 1)).count_ones();
        }
        count
    }
}
