//! The partner search of one pair, at three widths.
//!
//! For the open pair `(x, y)` the blocked values of `z` are the OR of six rows, three
//! read at `z` and three shifted (see [`crate::kernels::keyscan::tables`]):
//!
//! ```text
//! blocked(z) = k1[y][z] | k1[x][z] | k2[y-x][z] | k2t[x][z-y] | k2t[y][z-x] | k3[y-x][z-x]
//! partner    = the least z in y..=L with blocked(z) = 0, if any
//! ```
//!
//! The search walks `z` from the word holding `y`, one step of `N` words at a time: three
//! aligned loads, three funnel-shifted ones, the OR, and a test for a word that is not all
//! ones. Bits below `y` in the first word count as blocked. Rows are zero past `L`, so a
//! free bit past `L` means no partner.
//!
//! Widths: [`partner_u64`] (one word), and [`partner_x4`], [`partner_x8`] over the
//! SIMD layer's blocks of four and eight words ([`Block`]), run on the backend of a
//! [`Simd`](crate::simd::Simd) token. On the Zen 4 machine of the project the four-lane search is
//! the fastest: a typical search ends within 256 bits of `y` (the mean distance to the
//! partner is about `0.2 y`), eight lanes fetch cache lines that are then not needed, and
//! this core executes 512-bit operations as two 256-bit halves anyway.

use crate::kernels::keyscan::tables::{LANES, Layout, PAD_WORDS};
use crate::simd::words::{Block, Words};

/// The least `y` in `from..=L` with `K1(x, y)` unmarked in pile group `x`, or a value above
/// `L`. A marked `K1(x, y)` means the pair already lies in a losing triple, and by
/// docs/theory/stones.md §4 no second losing triple holds both piles `x` and `y`: such
/// pairs are skipped without a search (the first of the two shortcuts of §9 there; the
/// second, stopping at the first losing `z`, is built into the search).
#[inline(always)]
pub fn next_open_pair(pile_x: &[u64], layout: Layout, from: u32) -> u32 {
    let mut w = from as usize >> 6;
    // Bits above L in the last word are zero, so they read as open and end the search.
    let mut open = !pile_x[PAD_WORDS + w] & (u64::MAX << (from & 63));
    while open == 0 && w < layout.last_word() {
        w += 1;
        open = !pile_x[PAD_WORDS + w];
    }
    if open == 0 { layout.limit + 1 } else { (64 * w) as u32 + open.trailing_zeros() }
}

/// 64 bits of `words` starting at bit `start` (counted from the start of the slice): a
/// funnel shift of two neighbouring words.
#[inline(always)]
fn bits_at(words: &[u64], start: usize) -> u64 {
    let (word, shift) = (start >> 6, start & 63);
    let pair = (words[word + 1] as u128) << 64 | words[word] as u128;
    (pair >> shift) as u64
}

/// Bit positions, counted from the start of the groups, of the word `w` of the aligned rows
/// and of the matching 64 bits of the shifted rows (second row of each group, shifted by
/// `y` or by `x`). Bit `z` of word `w` is bit `z - y` (or `z - x`) of a shifted row, which
/// sits at position `64 (row_words + PAD + w) - y + (z mod 64)`.
#[inline(always)]
fn positions(layout: Layout, w: usize, x: u32, y: u32) -> (usize, usize, usize) {
    let aligned = PAD_WORDS + w;
    let shifted = 64 * (layout.row_words + aligned);
    (aligned, shifted - y as usize, shifted - x as usize)
}

/// The losing partner of the open pair `(x, y)` given the marks so far, one word of
/// candidates per step. `pile_y`, `pile_x`, `diff_d` are the groups `y`, `x`, `y - x`.
#[inline(always)]
pub fn partner_u64(pile_y: &[u64], pile_x: &[u64], diff_d: &[u64], layout: Layout, x: u32, y: u32) -> Option<u32> {
    let mut below = (1u64 << (y & 63)) - 1;
    for w in (y as usize >> 6)..=layout.last_word() {
        let (aligned, at_y, at_x) = positions(layout, w, x, y);
        let blocked = below
            | pile_y[aligned]
            | pile_x[aligned]
            | diff_d[aligned]
            | bits_at(pile_x, at_y)
            | bits_at(pile_y, at_x)
            | bits_at(diff_d, at_x);
        below = 0;
        if blocked != u64::MAX {
            let z = (64 * w) as u32 + (!blocked).trailing_zeros();
            return (z <= layout.limit).then_some(z);
        }
    }
    None
}

/// The `W::LANES` words of `words` from index `at`; a slice of the row, so out of range
/// panics instead of reading past it.
#[inline(always)]
fn load<W: Block>(words: &[u64], at: usize) -> W {
    let block = &words[at..at + W::LANES];
    // SAFETY: the block holds the LANES words read; the CPU has W's instruction set, since
    // the search runs only inside the entry points of `multiversion!` below.
    unsafe { W::load_words(block, 0) }
}

/// Lane `j` holds the 64 bits of `words` from bit `start + 64 j`.
#[inline(always)]
fn load_shifted<W: Block>(words: &[u64], start: usize) -> W {
    let (at, shift) = (start >> 6, (start & 63) as u32);
    W::funnel_pair(load(words, at), load(words, at + 1), shift)
}

/// The blocked bits of the words `w..w + W::LANES`.
#[inline(always)]
fn blocked_words<W: Block>(
    pile_y: &[u64],
    pile_x: &[u64],
    diff_d: &[u64],
    layout: Layout,
    w: usize,
    x: u32,
    y: u32,
) -> W {
    let (aligned, at_y, at_x) = positions(layout, w, x, y);
    let aligned = W::or3(load(pile_y, aligned), load(pile_x, aligned), load(diff_d, aligned));
    let shifted = W::or3(load_shifted(pile_x, at_y), load_shifted(pile_y, at_x), load_shifted(diff_d, at_x));
    W::or(aligned, shifted)
}

/// [`partner_u64`] with `W::LANES` words (`64 W::LANES` candidates) per step.
#[inline(always)]
fn partner_block<W: Block>(
    pile_y: &[u64],
    pile_x: &[u64],
    diff_d: &[u64],
    layout: Layout,
    x: u32,
    y: u32,
) -> Option<u32> {
    const { assert!(W::LANES <= LANES, "rows are padded for LANES words") };
    let mut w = y as usize >> 6;
    // Bits below y in the first word are not candidates: count them as blocked.
    let mut blocked = blocked_words::<W>(pile_y, pile_x, diff_d, layout, w, x, y).or_first_word((1u64 << (y & 63)) - 1);
    loop {
        let open = blocked.open_words();
        if open != 0 {
            let lane = open.trailing_zeros();
            let z = 64 * (w as u32 + lane) + (!blocked.lane(lane)).trailing_zeros();
            return (z <= layout.limit).then_some(z);
        }
        w += W::LANES;
        if w > layout.last_word() {
            return None;
        }
        blocked = blocked_words::<W>(pile_y, pile_x, diff_d, layout, w, x, y);
    }
}

#[inline(always)]
fn partner_x4_generic<B: Words>(
    pile_y: &[u64],
    pile_x: &[u64],
    diff_d: &[u64],
    layout: Layout,
    x: u32,
    y: u32,
) -> Option<u32> {
    partner_block::<B::Tail>(pile_y, pile_x, diff_d, layout, x, y)
}

#[inline(always)]
fn partner_x8_generic<B: Words>(
    pile_y: &[u64],
    pile_x: &[u64],
    diff_d: &[u64],
    layout: Layout,
    x: u32,
    y: u32,
) -> Option<u32> {
    partner_block::<B::Full>(pile_y, pile_x, diff_d, layout, x, y)
}

crate::simd::multiversion! {
    /// [`partner_u64`] four words per step, on `simd`'s backend.
    pub fn partner_x4(pile_y: &[u64], pile_x: &[u64], diff_d: &[u64], layout: Layout, x: u32, y: u32) -> Option<u32>
        => partner_x4_generic;
}

crate::simd::multiversion! {
    /// [`partner_u64`] eight words per step, on `simd`'s backend.
    pub fn partner_x8(pile_y: &[u64], pile_x: &[u64], diff_d: &[u64], layout: Layout, x: u32, y: u32) -> Option<u32>
        => partner_x8_generic;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SplitMix64;
    use crate::simd::Simd;

    #[inline(always)]
    fn funnel_errors<B: Words>(words: &[u64]) -> Vec<String> {
        fn check<W: Block>(words: &[u64], errors: &mut Vec<String>) {
            for start in 0..64 * 30 {
                let v: W = load_shifted(words, start);
                for j in 0..W::LANES as u32 {
                    if v.lane(j) != bits_at(words, start + 64 * j as usize) {
                        errors.push(format!("{} lanes, start {start}, lane {j}", W::LANES));
                    }
                }
            }
        }
        let mut errors = Vec::new();
        check::<B::Tail>(words, &mut errors);
        check::<B::Full>(words, &mut errors);
        errors
    }

    crate::simd::multiversion! {
        fn funnel_errors_on(words: &[u64]) -> Vec<String> => funnel_errors;
    }

    #[test]
    fn shifted_loads_match_the_scalar_definition_on_every_backend() {
        let mut rng = SplitMix64(7);
        let words: Vec<u64> = (0..40).map(|_| rng.next_u64()).collect();
        for simd in Simd::tested() {
            assert_eq!(funnel_errors_on(simd, &words), Vec::<String>::new(), "{simd}");
        }
    }
}
