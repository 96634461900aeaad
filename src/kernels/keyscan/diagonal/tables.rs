//! The line-aligned key tables of the anti-diagonal scans (`mod.rs`, `tiles.rs`), and the
//! marks a losing triple makes in them; the search that reads them is in `window.rs`.
//!
//! # Layout
//!
//! The four kinds of rows are those of `keyscan/tables.rs` (`k1`, `k2t` in *pile groups*, `k2`,
//! `k3` in *difference groups*), but a row here is exactly `row_words` words, a multiple
//! of eight (one 64-byte line), holding bits `0..=L`: no padding word inside a row, and
//! every group starts on a line boundary. One zero line precedes group 0 and one follows
//! the last group, so that every load below stays in the allocation.
//!
//! A load that starts inside a row may run on into the next row (or the following
//! group); the bits it then reads stand for values of `z` above `64 row_words > L`, and
//! a first free bit there means "no partner", which is what it means anyway.
//!
//! # Which bits a losing triple marks
//!
//! Seven, and the anti-diagonal open flags: see [`LineTables::mark`].

use super::exhausted::first_clear;
use crate::kernels::keyscan::tables::Table;
use crate::simd::Simd;

/// Words in a cache line.
const LINE_WORDS: usize = 8;

/// The four key tables and the anti-diagonal open flags of one scan.
#[derive(Clone, Debug)]
pub struct LineTables {
    pub(super) limit: u32,
    /// Words per row: a multiple of [`LINE_WORDS`] holding bits `0..=L`.
    pub(super) row_words: usize,
    /// Both tables and the open flags in one buffer: a zero line, pile groups `0..=L`
    /// (`k1` row, `k2t` row), a zero line, difference groups `0..=L` (`k2` row, `k3`
    /// row), a zero line, the open flags.
    ///
    /// One allocation, so that the tables and the flags share their pages' first touches
    /// (no partly used page at the end of each) and the allocator is asked once.
    pub(super) words: Vec<u64>,
    /// Word index of pile group 0 and of difference group 0, both line-aligned.
    pub(super) pile_base: usize,
    pub(super) diff_base: usize,
    /// Where the open flags are: for each strip `s`, the index in `words` of its flag word
    /// of anti-diagonal `t`, minus `t`. The flags are, by strips of 64 pile sizes `x`: for
    /// the strip `s` (`x` in `64 s .. 64 s + 64`) one word per anti-diagonal `t = x + y`
    /// that meets it (`128 s <= t <= 64 s + 63 + L`), bit `x mod 64` set when `K1(x, t -
    /// x)` is marked (the pair lies in a losing triple already). A table rather than the
    /// triangular count of the earlier strips' words: one load and an add per flag a
    /// losing triple sets, where the count took a dozen instructions.
    pub(super) strip_base: Vec<usize>,
    /// The backend the searches of a continued window run on (see [`PairSource::simd`](super::window::PairSource::simd)).
    pub(super) simd: Simd,
}

/// One group of a pair: the buffer holding it and the index of its first word (the
/// first row; the second starts `row_words` later).
#[derive(Clone, Copy, Debug)]
pub struct Group<'a> {
    pub words: &'a [u64],
    pub at: usize,
}

/// A pair's three groups: pile group `y`, pile group `x`, difference group `y - x`.
#[derive(Clone, Copy, Debug)]
pub struct PairGroups<'a> {
    pub y: Group<'a>,
    pub x: Group<'a>,
    pub d: Group<'a>,
}

impl LineTables {
    /// Words per row for `limit`.
    pub const fn row_words_for(limit: u32) -> usize {
        (limit as usize / 64 + 1).div_ceil(LINE_WORDS) * LINE_WORDS
    }

    /// Words of the buffer for `limit`: two tables of `L + 1` groups, three zero lines, a
    /// spare line for the alignment, and the open flags.
    pub(super) const fn buffer_words(limit: u32) -> usize {
        2 * (limit as usize + 1) * 2 * Self::row_words_for(limit) + 4 * LINE_WORDS + Self::open_words_for(limit)
    }

    /// Index of the first open-flag word of strip `s`: strip `s'` has `L + 64 - 64 s'`
    /// anti-diagonals (`t` from `128 s'` to `64 s' + 63 + L`).
    pub(super) const fn strip_start(limit: u32, s: usize) -> usize {
        s * (limit as usize + 64) - 32 * s * (s.saturating_sub(1))
    }

    /// Words of the open flags for `limit`.
    pub(super) const fn open_words_for(limit: u32) -> usize {
        Self::strip_start(limit, (limit as usize >> 6) + 1)
    }

    /// Bytes the tables take for `limit`.
    pub const fn bytes_for(limit: u32) -> u64 {
        8 * Self::buffer_words(limit) as u64
    }

    /// Empty tables for `limit`, searched on `simd`'s backend.
    pub fn new(limit: u32, simd: Simd) -> Self {
        let row_words = Self::row_words_for(limit);
        let table_words = (limit as usize + 1) * 2 * row_words;
        let mut words = vec![0u64; Self::buffer_words(limit)];
        // The scan writes every page: mapping them in one call instead of one fault per
        // page saved 5% of a fresh L = 1000 on AVX2 (3.04 -> 2.90 ms, 9 alternated runs).
        crate::memory::populate(&mut words);
        // Skip to a line boundary, then one zero line: pile group 0 starts there.
        let align = words.as_ptr().align_offset(LINE_WORDS * 8);
        assert!(align < LINE_WORDS, "a u64 buffer can always be aligned to a line");
        let pile_base = align + LINE_WORDS;
        let diff_base = pile_base + table_words + LINE_WORDS;
        let open_base = diff_base + table_words + LINE_WORDS;
        debug_assert!(open_base + Self::open_words_for(limit) <= words.len());
        // Strip s starts at anti-diagonal 128 s, and has at least 128 s words before it
        // (for L >= 64), so the subtraction stays non-negative.
        let strip_base = (0..=limit as usize >> 6).map(|s| open_base + Self::strip_start(limit, s) - 128 * s).collect();
        Self { limit, row_words, words, pile_base, diff_base, strip_base, simd }
    }

    /// The largest pile size `L`.
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// Words per row.
    pub fn row_words(&self) -> usize {
        self.row_words
    }

    /// Word index of pile group `a`.
    #[inline(always)]
    pub(super) fn pile_group(&self, a: u32) -> usize {
        self.pile_base + a as usize * 2 * self.row_words
    }

    /// Word index of difference group `d`.
    #[inline(always)]
    pub(super) fn diff_group(&self, d: u32) -> usize {
        self.diff_base + d as usize * 2 * self.row_words
    }

    /// The groups of the pair `(x, y)`, `x <= y`.
    #[inline(always)]
    pub fn pair_groups(&self, x: u32, y: u32) -> PairGroups<'_> {
        let group = |at| Group { words: &self.words, at };
        PairGroups { y: group(self.pile_group(y)), x: group(self.pile_group(x)), d: group(self.diff_group(y - x)) }
    }

    /// Index of the open-flag word of strip `x / 64` on anti-diagonal `t`.
    #[inline(always)]
    pub(super) fn open_word(&self, x: u32, t: u32) -> usize {
        self.strip_base[x as usize >> 6] + t as usize
    }

    /// The open flags of strip `s` on anti-diagonal `t` (bit `x mod 64` set: the pair `(x,
    /// t - x)` is closed), for `128 s <= t <= 64 s + 63 + L`.
    #[inline(always)]
    pub fn closed_flags(&self, s: u32, t: u32) -> u64 {
        self.words[self.open_word(64 * s, t)]
    }

    /// Whether bit `b` of row `r` of `table` is set.
    pub fn get(&self, table: Table, r: u32, b: u32) -> bool {
        self.words[self.row(table, r) + (b as usize >> 6)] >> (b & 63) & 1 == 1
    }

    /// The least `b >= from` whose bit in the `k2t` row of pile `a` is clear, or `L + 1`
    /// (see `exhausted.rs`).
    pub fn k2t_first_clear(&self, a: u32, from: u32) -> u32 {
        first_clear(&self.words[self.row(Table::K2t, a)..][..self.row_words], from, self.limit)
    }

    /// Whether the pair `(x, y)` is closed (`K1(x, y)` marked), from the open flags.
    pub fn closed(&self, x: u32, y: u32) -> bool {
        self.closed_flags(x >> 6, x + y) >> (x & 63) & 1 == 1
    }

    /// Word index of row `r` of `table`.
    pub(super) fn row(&self, table: Table, r: u32) -> usize {
        let second = matches!(table, Table::K2t | Table::K3) as usize * self.row_words;
        second + if table.in_pile_group() { self.pile_group(r) } else { self.diff_group(r) }
    }

    /// Sets bit `b` of the row at word index `row` of `words`.
    #[inline(always)]
    pub fn set(words: &mut [u64], row: usize, b: u32) {
        words[row + (b as usize >> 6)] |= 1 << (b & 63);
    }

    /// Marks the losing triple `(x, y, z)`: seven key bits and two open flags.
    ///
    /// Of the nine bits `tables::marks` sets, two are never read by a later pair: the
    /// copies `K2(z-y, x)` and `K2(z-x, y)` in difference rows. A difference row `k2[d]`
    /// is read at bit `c` only as the key `K2(y'-x', z')` of a candidate `(x', y', z')`,
    /// that is with `c = z' >= y'` its largest pile. The lemma of `lexicographic/wavefront.rs` says a
    /// later pair `(x', y')` needs a mark of `(x, y)` only if `x' >= x` and `y' >= y`.
    /// With `c = x` that forces `x >= y' >= y >= x`, with `c = y` (and `d = z - x =
    /// y' - x'`) it forces `y' = y`, `x' = x + y - z <= x`: in both cases `(x', y') = (x,
    /// y)`, the pair itself. Their transposed copies (`k2t[x]`, `k2t[y]`) are kept.
    ///
    /// The open flags record `K1(y, z)` and `K1(x, z)` for the pairs `(y, z)` and `(x, z)`
    /// on the anti-diagonals `y + z` and `x + z` (both after `t = x + y` unless `z = x`,
    /// which makes all three equal and the flag the pair's own), in the strips of `y` and
    /// `x`.
    #[inline(always)]
    pub fn mark(&mut self, x: u32, y: u32, z: u32) {
        // One check of the triple instead of one per word (seven keys, two flags): with
        // it, every index below lies in the buffer (see `mark_indexes`).
        if !(x <= y && y <= z && z <= self.limit) {
            not_a_triple(x, y, z, self.limit);
        }
        let words = self.words.as_mut_ptr();
        for (at, b) in self.mark_indexes(x, y, z) {
            debug_assert!(at < self.words.len());
            // SAFETY: `at < words.len()`, as `mark_indexes` argues.
            unsafe { *words.add(at) |= 1 << (b & 63) };
        }
    }

    /// The words of `words` that a losing triple `x <= y <= z <= L` marks, as (word index,
    /// bit): seven keys and the two open flags.
    ///
    /// In the order they are written: first the words the triple's search did not read,
    /// which are the likeliest to be missing from L1 (the transposed `K2(y-x, z)` in the
    /// group of `z`, and the flags, the one of `(y, z)` often in another strip), so that
    /// their misses overlap the other marks instead of coming last: about 2% faster at
    /// `L = 1000` (`cargo bench --bench keyscan`, `diagonal`); the other orders tried
    /// were slower (docs/design/stones.md).
    ///
    /// Why the indexes are in bounds: `x`, `y`, `z` and `y - x`, `z - y`, `z - x` are at
    /// most `L`, so each group index is that of one of the `L + 1` groups of its table,
    /// and each bit `b <= L` lies in word `b / 64 < row_words` of its row. A flag of the
    /// pair `(a, c)`, `a <= c <= L`, lies in the strip `s = a / 64` on anti-diagonal `t =
    /// a + c`, with `128 s <= t <= 64 s + 63 + L`: one of the strip's words.
    #[inline(always)]
    pub(super) fn mark_indexes(&self, x: u32, y: u32, z: u32) -> [(usize, u32); 9] {
        let rw = self.row_words;
        let (gy, gx, gd, gz) = (self.pile_group(y), self.pile_group(x), self.diff_group(y - x), self.pile_group(z));
        let at = |row: usize, b: u32| (row + (b as usize >> 6), b);
        let flag = |a: u32| {
            let s = a as usize >> 6;
            debug_assert!(s < self.strip_base.len());
            // SAFETY: `a <= L`, and `strip_base` has an entry for each strip `s <= L / 64`.
            (*unsafe { self.strip_base.get_unchecked(s) } + (a + z) as usize, a)
        };
        [
            at(gz + rw, y - x), // K2(y-x, z), transposed
            flag(y),            // K1(y, z) as the open flag of the pair (y, z)
            flag(x),            // K1(x, z) as the open flag of the pair (x, z)
            at(gy, z),          // K1(y, z)
            at(gx, z),          // K1(x, z)
            at(gd, z),          // K2(y-x, z)
            at(gx + rw, z - y), // K2(z-y, x), transposed
            at(gy + rw, z - x), // K2(z-x, y), transposed
            at(gd + rw, z - x), // K3(y-x, z-x)
        ]
    }
}

/// The panic of [`LineTables::mark`], out of line so that the check keeps no values alive.
#[cold]
#[inline(never)]
fn not_a_triple(x: u32, y: u32, z: u32, limit: u32) -> ! {
    panic!("({x}, {y}, {z}) is not a sorted triple up to {limit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_line_aligned_and_rows_hold_the_limit() {
        for limit in [0, 63, 64, 511, 512, 1000] {
            let t = LineTables::new(limit, Simd::portable());
            assert_eq!(t.row_words % LINE_WORDS, 0);
            assert!(64 * t.row_words > limit as usize);
            for a in [0, limit / 2, limit] {
                assert_eq!(t.words[t.pile_group(a)..].as_ptr().align_offset(64), 0, "L={limit} group {a}");
                assert_eq!(t.words[t.diff_group(a)..].as_ptr().align_offset(64), 0, "L={limit} group {a}");
            }
            // A zero line before each table and after the last group.
            assert!(t.pile_base >= LINE_WORDS);
            assert!(t.diff_group(0) >= t.pile_group(limit) + 2 * t.row_words + LINE_WORDS);
            assert!(t.words.len() >= t.diff_group(limit) + 2 * t.row_words + LINE_WORDS);
        }
    }

    /// `mark` writes without a bounds check per word: a triple that is not sorted, or
    /// reaches past `L`, must stop it before any write.
    #[test]
    fn a_mark_outside_the_tables_panics() {
        for (x, y, z) in [(3, 2, 5), (1, 4, 3), (0, 5, 11), (10, 10, 11), (0, 0, u32::MAX)] {
            let mut t = LineTables::new(10, Simd::portable());
            let marked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| t.mark(x, y, z)));
            assert!(marked.is_err(), "({x}, {y}, {z})");
            assert!(t.words.iter().all(|&w| w == 0), "({x}, {y}, {z}) wrote");
        }
        let mut t = LineTables::new(10, Simd::portable());
        t.mark(0, 10, 10);
        assert!(t.closed(0, 10) && t.closed(10, 10));
    }

    #[test]
    fn marks_are_the_keys_and_the_open_flags() {
        // (1, 3, 3): K1(3,3), K1(1,3), K2(2,3) in both orientations, K2(0,1) transposed,
        // K3(2,2) (docs/theory/stones.md §3); the diff-row copy of K2(0,1) is one of the two
        // left out.
        let mut t = LineTables::new(4, Simd::portable());
        t.mark(1, 3, 3);
        assert!(t.get(Table::K1, 3, 3) && t.get(Table::K1, 1, 3));
        assert!(t.get(Table::K2, 2, 3) && t.get(Table::K2t, 3, 2));
        assert!(t.get(Table::K2t, 1, 0) && !t.get(Table::K2, 0, 1));
        assert!(t.get(Table::K3, 2, 2));
        // K2(y-x, z) and K2(z-x, y) are both K2(2, 3) here: one transposed bit. The
        // tables end where the open flags begin (strip 0's base: its first anti-diagonal
        // is t = 0).
        let open_base = t.strip_base[0];
        let total: u32 = t.words[..open_base].iter().map(|w| w.count_ones()).sum();
        assert_eq!(total, 6);
        assert!(t.closed(3, 3) && t.closed(1, 3) && !t.closed(1, 1));
        let flags: u32 = t.words[open_base..].iter().map(|w| w.count_ones()).sum();
        assert_eq!(flags, 2, "the flags of (3, 3) and (1, 3)");
    }
}
