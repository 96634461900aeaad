//! The tables and the partner search of the anti-diagonal scan (`diagonal/mod.rs`): every
//! row on its own cache lines, and one seven-word window that settles almost every pair.
//!
//! # Layout
//!
//! The four kinds of rows are those of `tables.rs` (`k1`, `k2t` in *pile groups*, `k2`,
//! `k3` in *difference groups*), but a row here is exactly `row_words` words, a multiple
//! of eight (one 64-byte line), holding bits `0..=L`: no padding word inside a row, and
//! every group starts on a line boundary. One zero line precedes group 0 and one follows
//! the last group, so that every load below stays in the allocation.
//!
//! A load that starts inside a row may run on into the next row (or the following
//! group); the bits it then reads stand for values of `z` above `64 row_words > L`, and
//! a first free bit there means "no partner", which is what it means anyway.
//!
//! # The window
//!
//! For the open pair `(x, y)` the blocked values of `z` are the OR of six rows (see
//! `tables.rs`); three are read at `z`, two at `z - x`, one at `z - y`. The first window
//! covers `z` in `64 w0 .. 64 w0 + 448`, `w0 = y / 64`, as seven 64-bit lanes:
//!
//! * `k1[y]`, `k1[x]`, `k2[y-x]` at `z`: three loads of eight words at word `w0`;
//! * `k2t[y]` and `k3[y-x]` at `z - x`: both start at bit `S = 64 w0 - x` of their rows,
//!   so one 64-byte load each at byte `floor(S / 8)`, OR-ed, then one funnel shift of
//!   each lane with its upper neighbour by `S mod 8` bits. The top lane has no upper
//!   neighbour in the load, which is why the window has seven lanes, not eight;
//! * `k2t[x]` at `z - y`: these bits start at `-(y mod 64)`, always within the first
//!   eight words of the row, so one aligned load and a funnel shift by `y mod 64` with
//!   all-ones shifted in at the bottom. The ones are exactly the candidates `z < y` of
//!   the first word: the "below `y`" mask comes for free.
//!
//! Six loads and about twenty vector operations per pair. At `L = 1000` the window
//! settles all but 1.4 % of the open pairs (their partner, or the end of the rows, lies
//! within seven words of `y`); the others continue window by window.
//!
//! # The tail window
//!
//! When `y` lies in the last three words of the candidates (`y >= tail_start(L)`: `64
//! (w0 + 3) > L`), three words hold every candidate up to `L`, and the same six loads
//! and operations on 256 bits settle the pair ([`tail_window`]; the fourth lane, inexact
//! after the funnel shift, can only name a `z` above `L`, which means "no partner" as
//! the exact value would). On this Zen 4, whose 512-bit operations take two 256-bit
//! slots, that halves the work of these pairs: at `L = 1000` they are the third of the
//! open pairs with `y >= 832`, most of them without a partner, and the scan is about 5%
//! faster for it (`cargo bench --bench keyscan`, `diagonal`).
//!
//! # Which bits a losing triple marks
//!
//! Seven, and the anti-diagonal open flags: see [`LineTables::mark`].

use super::exhausted::{ExhaustedPiles, first_clear};
use crate::kernels::keyscan::tables::Table;
use crate::simd::Simd;
use crate::simd::words::{Window, Words};

/// Marks `z` as "no partner": any value above the limit.
pub const NO_PARTNER: u32 = u32::MAX;

/// Lanes of a window that are exact (see the module docs).
pub const WINDOW_WORDS: usize = 7;

/// Words in a cache line.
const LINE_WORDS: usize = 8;

/// The four key tables and the anti-diagonal open flags of one scan.
#[derive(Clone, Debug)]
pub struct LineTables {
    limit: u32,
    /// Words per row: a multiple of [`LINE_WORDS`] holding bits `0..=L`.
    row_words: usize,
    /// Both tables and the open flags in one buffer: a zero line, pile groups `0..=L`
    /// (`k1` row, `k2t` row), a zero line, difference groups `0..=L` (`k2` row, `k3`
    /// row), a zero line, the open flags.
    ///
    /// One allocation, so that a fresh process pays for one fresh huge page, not two: with
    /// the flags (75 KiB at `L = 1000`) in a buffer of their own, the allocator put them on
    /// a page of their own, about 0.1 ms of a fresh `solve stones --limit 1000`
    /// (`gamecount-lab ladder`; the first-touch rows of `gamecount-lab roofline`).
    words: Vec<u64>,
    /// Word index of pile group 0 and of difference group 0, both line-aligned.
    pile_base: usize,
    diff_base: usize,
    /// Where the open flags are: for each strip `s`, the index in `words` of its flag word
    /// of anti-diagonal `t`, minus `t`. The flags are, by strips of 64 pile sizes `x`: for
    /// the strip `s` (`x` in `64 s .. 64 s + 64`) one word per anti-diagonal `t = x + y`
    /// that meets it (`128 s <= t <= 64 s + 63 + L`), bit `x mod 64` set when `K1(x, t -
    /// x)` is marked (the pair lies in a losing triple already). A table rather than the
    /// triangular count of the earlier strips' words: one load and an add per flag a
    /// losing triple sets, where the count took a dozen instructions.
    strip_base: Vec<usize>,
    /// The backend the searches of a continued window run on (see [`PairSource::simd`]).
    simd: Simd,
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
    const fn buffer_words(limit: u32) -> usize {
        2 * (limit as usize + 1) * 2 * Self::row_words_for(limit) + 4 * LINE_WORDS + Self::open_words_for(limit)
    }

    /// Index of the first open-flag word of strip `s`: strip `s'` has `L + 64 - 64 s'`
    /// anti-diagonals (`t` from `128 s'` to `64 s' + 63 + L`).
    const fn strip_start(limit: u32, s: usize) -> usize {
        s * (limit as usize + 64) - 32 * s * (s.saturating_sub(1))
    }

    /// Words of the open flags for `limit`.
    const fn open_words_for(limit: u32) -> usize {
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
        let words = vec![0u64; Self::buffer_words(limit)];
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
    fn pile_group(&self, a: u32) -> usize {
        self.pile_base + a as usize * 2 * self.row_words
    }

    /// Word index of difference group `d`.
    #[inline(always)]
    fn diff_group(&self, d: u32) -> usize {
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
    fn open_word(&self, x: u32, t: u32) -> usize {
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
    fn row(&self, table: Table, r: u32) -> usize {
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
    fn mark_indexes(&self, x: u32, y: u32, z: u32) -> [(usize, u32); 9] {
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

/// Waits until the marks just made have left the store buffer, before the next
/// anti-diagonal's searches read the words they wrote.
///
/// A search reads 64-byte windows; a mark writes one word, and a wide load cannot take
/// its data from a narrow store still in the store buffer. The fence (one locked
/// instruction per anti-diagonal on x86) paid about 4% when it came in (`cargo bench
/// --bench keyscan`, `diagonal/1000`); since [`DiagonalGroups`] the scan is level with
/// and without it. It stays because it costs nothing measurable either, and the stall
/// it avoids belongs to the core: it was measured on the Zen 4 only (docs/design/
/// stones.md). It is not there for ordering between threads: the tiles hand their
/// blocks over under mutexes, which order their words anyway.
#[inline(always)]
pub fn settle_marks() {
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
}

/// Pass 1 of an anti-diagonal `t` for one kind of window: `search(x, y)` for each set bit
/// `i` of `open` (the pair `x = x0 + i`, `y = t - x`), lowest first; each `(x, z)` goes
/// to `found[*count]`, and the count moves on only when `z <= limit`. Branch-free apart
/// from the loop: about half the pairs have a partner, at random.
///
/// `found` has 64 slots, and is written at `*count mod 64` so that the write needs no
/// bounds check: the calls for one anti-diagonal search at most 64 pairs in all (the bits
/// of one word), and a pair is written at a count no larger than the number of pairs
/// searched before it, at most 63.
#[inline(always)]
pub fn search_pairs(
    mut open: u64,
    x0: u32,
    t: u32,
    limit: u32,
    found: &mut [(u32, u32); 64],
    count: &mut usize,
    search: impl Fn(u32, u32) -> u32,
) {
    while open != 0 {
        let x = x0 + open.trailing_zeros();
        open &= open - 1;
        let z = search(x, t - x);
        found[*count & 63] = (x, z);
        *count += (z <= limit) as usize;
    }
}

/// The pairs of `open` (bit `i`: `x = x0 + i` on anti-diagonal `t`) whose `y = t - x` is
/// at least `y_tail`: the low bits, `x <= t - y_tail`.
#[inline(always)]
pub fn tail_bits(x0: u32, t: u32, y_tail: u32) -> u64 {
    bits_through((t - x0).checked_sub(y_tail))
}

/// The bits `0..=m` of a word (all of them from `m = 63` on, none for `None`): the pairs
/// `x0 ..= x0 + m` of an open-flag word.
#[inline(always)]
pub fn bits_through(m: Option<u32>) -> u64 {
    match m {
        None => 0,
        Some(m) if m >= 63 => u64::MAX,
        Some(m) => (2 << m) - 1,
    }
}

/// Where the groups of a pair are: the sequential tables, or the blocks a tile holds.
pub trait PairSource {
    /// Words per row.
    fn row_words(&self) -> usize;
    /// The largest pile size `L`.
    fn limit(&self) -> u32;
    /// The groups of the pair `(x, y)`.
    fn groups(&self, x: u32, y: u32) -> PairGroups<'_>;
    /// A lower bound for the partner of `(x, y)`, at least `y`.
    fn least_partner(&self, _x: u32, y: u32) -> u32 {
        y
    }
    /// The backend of the scan: a continued search (out of line, `partner_from`) runs
    /// its windows on it.
    fn simd(&self) -> Simd;
}

impl PairSource for LineTables {
    fn row_words(&self) -> usize {
        self.row_words
    }

    fn limit(&self) -> u32 {
        self.limit
    }

    #[inline(always)]
    fn groups(&self, x: u32, y: u32) -> PairGroups<'_> {
        self.pair_groups(x, y)
    }

    fn simd(&self) -> Simd {
        self.simd
    }
}

/// The groups of the pairs of one anti-diagonal `t` (of a strip, or of a tile), found
/// from those of its first pair `(x0, t - x0)`: the pair `x = x0 + i` has its `x` group
/// `i` groups after that pair's, its `y` group `i` before, its difference group `2i`
/// before. One product per pair instead of three, and fewer values live in the search
/// loop: with [`LineTables`] as the source, the compiled loop reloaded seven loop
/// invariants from the stack beside its six window loads, with this view three; about
/// 5% faster at `L = 1000` (`cargo bench --bench keyscan`, `diagonal`).
///
/// The three kinds of groups may lie in three buffers: the tiles of `tiles.rs`
/// hold their pile and difference blocks as separate allocations. All the pairs searched
/// through one view must then have their difference group in the one difference buffer
/// (a tile's anti-diagonal spans two difference blocks: it takes a view for each).
#[derive(Clone, Copy, Debug)]
pub struct DiagonalGroups<'a> {
    /// The buffers of the `x`, `y` and difference groups.
    x_words: &'a [u64],
    y_words: &'a [u64],
    d_words: &'a [u64],
    row_words: usize,
    limit: u32,
    x0: u32,
    t: u32,
    /// Word indexes of the groups of the pair `(x0, t - x0)` in their buffers. `d_at`
    /// may lie outside its buffer (it wraps), when that pair's difference group is in
    /// another one: only the pairs searched through the view need theirs inside.
    x_at: usize,
    y_at: usize,
    d_at: usize,
    /// The least free differences of the piles `x`, when the scan tracks them: a lower
    /// bound for every partner, which lets a search that needs more than one window
    /// start where one row alone stops blocking.
    exhausted: Option<&'a ExhaustedPiles>,
    simd: Simd,
}

impl<'a> DiagonalGroups<'a> {
    /// The view of anti-diagonal `t` from `x0`, given the buffers `[x, y, difference]`
    /// and the word indexes of the first pair's groups in them (see the fields), searched
    /// on `simd`'s backend.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        words: [&'a [u64]; 3],
        at: [usize; 3],
        row_words: usize,
        limit: u32,
        x0: u32,
        t: u32,
        simd: Simd,
    ) -> Self {
        let [x_words, y_words, d_words] = words;
        let [x_at, y_at, d_at] = at;
        Self { x_words, y_words, d_words, row_words, limit, x0, t, x_at, y_at, d_at, exhausted: None, simd }
    }

    /// The same view, with the least free differences of its piles.
    #[inline(always)]
    pub fn with_exhausted(self, exhausted: &'a ExhaustedPiles) -> Self {
        Self { exhausted: Some(exhausted), ..self }
    }

    /// The `x` of the view's first pair.
    pub fn x0(&self) -> u32 {
        self.x0
    }

    /// The anti-diagonal `x + y` of the view's pairs.
    pub fn t(&self) -> u32 {
        self.t
    }
}

impl LineTables {
    /// The groups of the pairs `(x, t - x)` with `x0 <= x <= t / 2` and `t - x <= L`, for
    /// `2 x0 <= t`. The pair `(x0, t - x0)` itself may lie beyond `L` (the strip's first
    /// anti-diagonals past `L`): its indexes are then only a base for the arithmetic.
    #[inline(always)]
    pub fn diagonal_groups(&self, x0: u32, t: u32) -> DiagonalGroups<'_> {
        debug_assert!(2 * x0 <= t, "anti-diagonal {t} from x = {x0}");
        let words = &self.words[..];
        let at = [self.pile_group(x0), self.pile_group(t - x0), self.diff_group(t - 2 * x0)];
        DiagonalGroups::new([words; 3], at, self.row_words, self.limit, x0, t, self.simd)
    }
}

impl PairSource for DiagonalGroups<'_> {
    fn row_words(&self) -> usize {
        self.row_words
    }

    fn limit(&self) -> u32 {
        self.limit
    }

    #[inline(always)]
    fn groups(&self, x: u32, y: u32) -> PairGroups<'_> {
        debug_assert!(
            x >= self.x0 && x <= y && y <= self.limit && x + y == self.t,
            "({x}, {y}) is not a pair of anti-diagonal {} from x = {}",
            self.t,
            self.x0
        );
        let step = (x - self.x0) as usize * 2 * self.row_words;
        PairGroups {
            y: Group { words: self.y_words, at: self.y_at - step },
            x: Group { words: self.x_words, at: self.x_at + step },
            d: Group { words: self.d_words, at: self.d_at.wrapping_sub(2 * step) },
        }
    }

    fn least_partner(&self, x: u32, y: u32) -> u32 {
        self.exhausted.map_or(y, |e| e.least_partner(x, y))
    }

    fn simd(&self) -> Simd {
        self.simd
    }
}

/// The partner of the open pair `(x, y)` given the marks in `tables`: the least free `z`
/// in `y..=L`, or a value above `L` (possibly [`NO_PARTNER`]) when there is none.
///
/// Whether the first window finds a partner is chosen without a branch: when the window
/// reaches past `L` (most of the pairs that have none), the answer is a coin toss, and
/// the only branch left is the rare continuation (`y` more than seven words below `L`
/// and no partner there: 1.4% of the open pairs at `L = 1000`), which its `y` predicts.
/// With the unchecked `found` slot of [`search_pairs`], about 4% faster at `L = 1000`
/// (`cargo bench --bench keyscan`, `diagonal`).
#[inline(always)]
pub fn partner<B: Words>(tables: &impl PairSource, x: u32, y: u32) -> u32 {
    let next = (y as usize >> 6) + WINDOW_WORDS;
    let found = first_window::<B::Full>(tables.groups(x, y), tables.row_words(), x, y);
    let more = found.is_none() & (next <= tables.limit() as usize >> 6);
    if more {
        return partner_from(tables, x, y, next);
    }
    std::hint::select_unpredictable(found.is_some(), found.unwrap_or(0), NO_PARTNER)
}

/// [`partner`] for a pair in the tail of the rows, `y >= tail_start(L)` (see
/// [`tail_window`]).
#[inline(always)]
pub fn partner_tail<B: Words>(tables: &impl PairSource, x: u32, y: u32) -> u32 {
    debug_assert!(y >= tail_start(tables.limit()));
    tail_window::<B::Tail>(tables.groups(x, y), tables.row_words(), x, y).unwrap_or(NO_PARTNER)
}

/// The search continued from word `w` on (no candidate below `y` is left there). Out of
/// line, and given only the pair: the hot loop need not keep the groups for it. It runs
/// on the backend of `tables.simd()`, through an entry point of its own (a function
/// without the features would call each vector operation out of line).
///
/// Not marked `#[cold]`: rare at `L = 1000` (1.4% of the open pairs), it is 40% of a
/// one-thread run at `10^4`, and the hint changed nothing measurable
/// (`scripts/bench.sh --problem stones`).
#[inline(never)]
fn partner_from(tables: &impl PairSource, x: u32, y: u32, w: usize) -> u32 {
    partner_from_on(tables.simd(), tables, x, y, w)
}

crate::simd::multiversion! {
    /// [`partner_from`] on one backend.
    fn partner_from_on(tables: &impl PairSource, x: u32, y: u32, w: usize) -> u32 => partner_from_generic;
}

#[inline(always)]
fn partner_from_generic<B: Words>(tables: &impl PairSource, x: u32, y: u32, mut w: usize) -> u32 {
    let (g, rw) = (tables.groups(x, y), tables.row_words());
    // Skip the windows that one row alone blocks (`exhausted.rs`); a bound past `L`
    // leaves the loop below at once.
    w = w.max(tables.least_partner(x, y) as usize >> 6);
    while w <= tables.limit() as usize >> 6 {
        if let Some(z) = next_window::<B::Full>(g, rw, x, y, w) {
            return z;
        }
        w += WINDOW_WORDS;
    }
    NO_PARTNER
}

/// The blocked bits of one word, read the slow and obvious way (the tests' reference for
/// the windows): bit `j` is candidate `z = 64 w + j`, with candidates below `y` blocked.
pub fn blocked_word(g: PairGroups<'_>, rw: usize, x: u32, y: u32, w: usize) -> u64 {
    // 64 bits of the second row of `group`, from bit `start` (which may be negative:
    // those bits are candidates below y, replaced by ones below).
    let bits = |group: Group<'_>, start: isize| -> u64 {
        let (word, shift) = (start.div_euclid(64), start.rem_euclid(64) as u32);
        let at = |k: isize| if k < 0 { 0 } else { group.words[group.at + rw + k as usize] };
        let pair = (at(word + 1) as u128) << 64 | at(word) as u128;
        (pair >> shift) as u64
    };
    let z0 = 64 * w as isize;
    let below = if z0 + 64 <= y as isize {
        u64::MAX
    } else if z0 < y as isize {
        (1u64 << (y as isize - z0)) - 1
    } else {
        0
    };
    below
        | g.y.words[g.y.at + w]
        | g.x.words[g.x.at + w]
        | g.d.words[g.d.at + w]
        | bits(g.y, z0 - x as isize)
        | bits(g.d, z0 - x as isize)
        | bits(g.x, z0 - y as isize)
}

// The window loads. Why they stay inside the buffers: every group lies in a buffer with a
// zero line (eight words) before its first group and after its last (`LineTables`, the
// tiles' blocks), and its rows are whole lines. A load at word `w < row_words` of a row
// reads at most eight words from there, so at most into the next row, or the zero line
// after the last group; a second-row load from bit `start >= -64` starts at most one word
// before the row, inside the previous row (or the zero line before the first group). The
// search asks only for `w` and `start` of that kind: `w0 = y / 64 < row_words`, later
// windows from `w <= L / 64 < row_words`, `start = 64 w - x >= -64` since `x <= y`, and
// `64 w - y >= -63`. Each backend checks the bound in debug builds.

/// The window of words `w ..` of `group` (of its first row: `w >= row_words` reaches
/// into the second).
#[inline(always)]
fn load<W: Window>(group: Group<'_>, w: usize) -> W {
    // SAFETY: in bounds by the layout (above); the CPU has `W`'s instruction set because
    // the search runs only inside an entry point of `W`'s backend.
    unsafe { W::load_words(group.words, group.at + w) }
}

/// The bytes of the second row of `group` from its bit `start` rounded down to a byte
/// (`start >= -64`: bits before the row are whatever the previous line holds).
#[inline(always)]
fn second_row_bytes<W: Window>(group: Group<'_>, rw: usize, start: isize) -> W {
    // SAFETY: as for `load`.
    unsafe { W::load_bytes(group.words, (8 * (group.at + rw) as isize + (start >> 3)) as usize) }
}

/// Lane `i` holds the 64 bits of the second row of `group` from bit `start + 64 i`
/// (the exact lanes).
#[inline(always)]
fn shifted<W: Window>(group: Group<'_>, rw: usize, start: isize) -> W {
    second_row_bytes::<W>(group, rw, start).funnel_down(start)
}

/// The window of the pair `(x, y)` from word `w0 = y / 64`, `W::LANES - 1` words wide.
///
/// * `k1[y]`, `k1[x]`, `k2[y-x]` at `z`: three loads at word `w0`;
/// * `k2t[y]` and `k3[y-x]` at `z - x`: both start at bit `S = 64 w0 - x` of their rows,
///   so one load each at byte `floor(S / 8)`, OR-ed, then one funnel shift of each lane
///   with its upper neighbour by `S mod 8` bits;
/// * `k2t[x]` at `z - y`: these bits start at `-(y mod 64)`, always within the first
///   words of the row, so one aligned load and a funnel shift by `y mod 64` with all-ones
///   shifted in at the bottom. The ones are exactly the candidates `z < y` of the first
///   word: the "below `y`" mask comes for free.
#[inline(always)]
fn window<W: Window>(g: PairGroups<'_>, rw: usize, x: u32, y: u32) -> Option<u32> {
    let w0 = y as usize >> 6;
    // k2t[y] and k3[y-x] from bit 64 w0 - x (same shift: OR first, shift once).
    let start = 64 * w0 as isize - x as isize;
    let (k2t_y, k3_d) = (second_row_bytes::<W>(g.y, rw, start), second_row_bytes::<W>(g.d, rw, start));
    let (k1_y, k1_x, k2_d) = (load::<W>(g.y, w0), load::<W>(g.x, w0), load::<W>(g.d, w0));
    // k2t[x] from bit -(y mod 64): the first words of the row.
    let k2t_x = load::<W>(g.x, rw);
    let at_zx = W::or(k2t_y, k3_d).funnel_down(start);
    // Ones shifted in below bit 0 of k2t[x]: the candidates z < y of the first word.
    let at_zy = k2t_x.funnel_up_ones(y);
    W::or3(W::or3(k1_y, k1_x, k2_d), at_zx, at_zy).first_free(w0)
}

/// The first window of the open pair `(x, y)`: the least free `z` among the candidates
/// `64 w0 .. 64 w0 + 448` (`w0 = y / 64`), if there is one; `W` is a backend's full
/// window.
#[inline(always)]
pub fn first_window<W: Window>(g: PairGroups<'_>, rw: usize, x: u32, y: u32) -> Option<u32> {
    debug_assert_eq!(W::LANES - 1, WINDOW_WORDS);
    window::<W>(g, rw, x, y)
}

/// The window of a pair in the *tail* of the rows (`y >= tail_start(L)`): the three words
/// from `w0 = y / 64` on hold every candidate up to `L`, so a backend's tail window
/// (`W`, three exact words) settles the pair; `None` means no partner. Its fourth lane,
/// inexact after the funnel shift, can only name a `z` above `L`, which means "no
/// partner" as the exact value would.
#[inline(always)]
pub fn tail_window<W: Window>(g: PairGroups<'_>, rw: usize, x: u32, y: u32) -> Option<u32> {
    debug_assert!(W::LANES > 3);
    window::<W>(g, rw, x, y)
}

/// The least `y` whose window [`tail_window`] may use: from word `w` on, three words reach
/// past `L` when `64 (w + 3) > L`. At `L = 1000` that is `y >= 832`, where a third of
/// the open pairs lie (most without a partner: their rows end within the window).
pub const fn tail_start(limit: u32) -> u32 {
    64 * (limit / 64).saturating_sub(2)
}

/// A later window, words `w .. w + 7`, all of whose candidates are above `y`; `W` is a
/// backend's full window.
#[inline(always)]
pub fn next_window<W: Window>(g: PairGroups<'_>, rw: usize, x: u32, y: u32, w: usize) -> Option<u32> {
    let (k1_y, k1_x, k2_d) = (load::<W>(g.y, w), load::<W>(g.x, w), load::<W>(g.d, w));
    let (start_x, start_y) = (64 * w as isize - x as isize, 64 * w as isize - y as isize);
    // k2t[y] and k3[y-x] share their start bit: OR first, shift once (as in the first window).
    let (k2t_y, k3_d) = (second_row_bytes::<W>(g.y, rw, start_x), second_row_bytes::<W>(g.d, rw, start_x));
    let at_zy = shifted::<W>(g.x, rw, start_y);
    let at_zx = W::or(k2t_y, k3_d).funnel_down(start_x);
    W::or3(W::or3(k1_y, k1_x, k2_d), at_zx, at_zy).first_free(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SplitMix64;

    crate::simd::multiversion! {
        /// [`partner`] on one backend.
        fn partner_on(t: &LineTables, x: u32, y: u32) -> u32 => partner;
    }

    crate::simd::multiversion! {
        /// [`partner_tail`] on one backend.
        fn partner_tail_on(t: &LineTables, x: u32, y: u32) -> u32 => partner_tail;
    }

    /// The first free candidate among the words of `blocked`, the first being word
    /// `first_word`, if any.
    fn first_free(blocked: impl IntoIterator<Item = u64>, first_word: usize) -> Option<u32> {
        blocked
            .into_iter()
            .enumerate()
            .find(|&(_, b)| b != u64::MAX)
            .map(|(lane, b)| (64 * (first_word + lane)) as u32 + (!b).trailing_zeros())
    }

    /// Tables with random bits (density `1 - 2^-k`) in every row word, the padding lines
    /// included, so that loads reading them would show.
    fn random_tables(limit: u32, rng: &mut SplitMix64, k: u32) -> LineTables {
        let mut t = LineTables::new(limit, Simd::portable());
        let dense = |rng: &mut SplitMix64| (0..k).fold(0, |acc, _| acc | rng.next_u64());
        t.words.iter_mut().for_each(|w| *w = dense(rng));
        t
    }

    /// The least free z >= y by the obvious per-word reading, if <= L.
    fn partner_by_words(t: &LineTables, x: u32, y: u32) -> Option<u32> {
        let g = t.pair_groups(x, y);
        (y as usize >> 6..=t.limit as usize >> 6)
            .find_map(|w| first_free([blocked_word(g, t.row_words, x, y, w)], w))
            .filter(|&z| z <= t.limit)
    }

    #[test]
    fn windows_agree_with_the_per_word_reading() {
        let mut rng = SplitMix64(260);
        for limit in [0, 1, 63, 64, 65, 447, 448, 511, 512, 1000, 2000] {
            for k in [1, 3, 6] {
                let mut t = random_tables(limit, &mut rng, k);
                for _ in 0..300 {
                    let y = rng.below(limit as u64 + 1) as u32;
                    let x = rng.below(y as u64 + 1) as u32;
                    // Every backend, each continuing its searches on itself.
                    for simd in Simd::available() {
                        t.simd = simd;
                        let z = partner_on(simd, &t, x, y);
                        let got = (z <= limit).then_some(z);
                        assert_eq!(got, partner_by_words(&t, x, y), "{simd} L={limit} k={k} ({x}, {y})");
                    }
                }
            }
        }
    }

    #[test]
    fn the_tail_window_agrees_with_the_per_word_reading() {
        let mut rng = SplitMix64(1015);
        for limit in
            [0, 1, 63, 64, 65, 127, 128, 191, 192, 193, 255, 256, 447, 448, 511, 512, 575, 1000, 1023, 1024, 2000]
        {
            let start = tail_start(limit);
            // Three words from the start word on reach past L, and no earlier start would.
            assert!(64 * (start / 64 + 3) > limit, "L={limit}");
            assert!(start == 0 || 64 * (start / 64 + 2) <= limit, "L={limit}");
            for k in [1, 3, 6] {
                let t = random_tables(limit, &mut rng, k);
                for _ in 0..300 {
                    let y = start + rng.below((limit - start) as u64 + 1) as u32;
                    let x = rng.below(y as u64 + 1) as u32;
                    for simd in Simd::available() {
                        let z = partner_tail_on(simd, &t, x, y);
                        let got = (z <= limit).then_some(z);
                        assert_eq!(got, partner_by_words(&t, x, y), "{simd} L={limit} k={k} ({x}, {y})");
                    }
                }
            }
        }
    }

    #[test]
    fn diagonal_groups_are_the_pairs_groups() {
        let at = |g: PairGroups<'_>| [g.y.at, g.x.at, g.d.at];
        for limit in [0, 1, 63, 64, 65, 200] {
            let t = LineTables::new(limit, Simd::portable());
            for x0 in (0..=limit).step_by(64) {
                let x_hi = (x0 + 63).min(limit);
                for diagonal in 2 * x0..=x_hi + limit {
                    let groups = t.diagonal_groups(x0, diagonal);
                    for x in x0.max(diagonal.saturating_sub(limit))..=x_hi.min(diagonal / 2) {
                        let y = diagonal - x;
                        assert_eq!(at(groups.groups(x, y)), at(t.pair_groups(x, y)), "L={limit} ({x}, {y})");
                    }
                }
            }
        }
    }

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
