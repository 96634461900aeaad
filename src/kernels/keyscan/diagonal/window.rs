//! The partner search of the anti-diagonal scans (`mod.rs`, `tiles.rs`): one seven-word
//! window over the line-aligned rows of `tables.rs` settles almost every pair.
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

use super::exhausted::ExhaustedPiles;
use super::tables::{Group, LineTables, PairGroups};
use crate::simd::Simd;
use crate::simd::words::{Window, Words};

/// Marks `z` as "no partner": any value above the limit.
pub const NO_PARTNER: u32 = u32::MAX;

/// Lanes of a window that are exact (see the module docs).
pub const WINDOW_WORDS: usize = 7;

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

    let at_zx = W::or(k2t_y, k3_d).funnel_down(start);
    // k2t[x] from bit -(y mod 64): the first words of the row, ones shifted in below
    // bit 0 (the candidates z < y of the first word). The word before the row is the
    // last of the group's first row.
    // SAFETY: as for `load`, and word `at + rw - 1` lies in the group's first row.
    let at_zy = unsafe { W::load_funnel_up_ones(g.x.words, g.x.at + rw, y) };
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
                    for simd in Simd::tested() {
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
                    for simd in Simd::tested() {
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
}
