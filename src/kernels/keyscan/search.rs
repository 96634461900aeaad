//! The partner search of one pair, at three widths.
//!
//! For the open pair `(x, y)` the blocked values of `z` are the OR of six rows, three
//! read at `z` and three shifted (see [`super::tables`]):
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
//! Widths: [`partner_u64`] (one word), and [`partner_lanes`] over [`Lanes`], implemented
//! for `u64x4` and `u64x8`. On the Zen 4 machine of the project the four-lane search is
//! the fastest: a typical search ends within 256 bits of `y` (the mean distance to the
//! partner is about `0.2 y`), eight lanes fetch cache lines that are then not needed, and
//! this core executes 512-bit operations as two 256-bit halves anyway.

use super::tables::{LANES, Layout, PAD_WORDS};
use wide::{u64x4, u64x8};

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

/// A vector of `N` words for the search.
pub trait Lanes: Copy + std::ops::BitOr<Output = Self> {
    /// Words per vector (at most [`LANES`], which the row padding allows for).
    const N: usize;
    /// `N` words of `words` from index `at`.
    fn load(words: &[u64], at: usize) -> Self;
    /// The first word, with `bits` in it and zeros elsewhere.
    fn first_word(bits: u64) -> Self;
    /// Lane `j` holds `(hi_j : lo_j) >> shift`, low 64 bits; `shift < 64`.
    fn funnel_right(lo: Self, hi: Self, shift: u32) -> Self;
    /// Bit `j` set when lane `j` is not all ones.
    fn open_lanes(self) -> u32;
    /// Lane `j`.
    fn lane(self, j: u32) -> u64;

    /// Lane `j` holds the 64 bits of `words` from bit `start + 64 j`.
    #[inline(always)]
    fn load_shifted(words: &[u64], start: usize) -> Self {
        let (at, shift) = (start >> 6, (start & 63) as u32);
        Self::funnel_right(Self::load(words, at), Self::load(words, at + 1), shift)
    }
}

macro_rules! impl_lanes {
    ($t:ident, $n:literal, $shrdv:ident, $set1:ident) => {
        impl Lanes for $t {
            const N: usize = $n;

            #[inline(always)]
            fn load(words: &[u64], at: usize) -> Self {
                $t::new(words[at..at + $n].try_into().expect("a whole vector"))
            }

            #[inline(always)]
            fn first_word(bits: u64) -> Self {
                let mut lanes = [0; $n];
                lanes[0] = bits;
                $t::new(lanes)
            }

            #[cfg(all(target_arch = "x86_64", target_feature = "avx512vbmi2", target_feature = "avx512vl"))]
            #[inline(always)]
            fn funnel_right(lo: Self, hi: Self, shift: u32) -> Self {
                use std::arch::x86_64::{$set1, $shrdv};
                // One VPSHRDVQ instead of two shifts and an OR (`wide` has no funnel shift).
                // SAFETY: the intrinsics need avx512f, avx512vl and avx512vbmi2, and this
                // function is compiled only when the build targets avx512vbmi2 and avx512vl
                // (which imply avx512f), so every CPU the binary may run on has them.
                unsafe { $t::from($shrdv(lo.into(), hi.into(), $set1(shift as _))) }
            }

            #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512vbmi2", target_feature = "avx512vl")))]
            #[inline(always)]
            fn funnel_right(lo: Self, hi: Self, shift: u32) -> Self {
                // `unbounded_shl` by 64 gives 0, which is what shift = 0 needs.
                lo.unbounded_shr_scalar(shift) | hi.unbounded_shl_scalar(64 - shift)
            }

            #[inline(always)]
            fn open_lanes(self) -> u32 {
                !self.simd_eq($t::splat(u64::MAX)).to_bitmask() & ((1 << $n) - 1)
            }

            #[inline(always)]
            fn lane(self, j: u32) -> u64 {
                // Move lane j to lane 0 in registers: storing the vector and reloading one
                // word would stall store forwarding.
                self.shuffle($t::splat(j as u64)).as_array()[0]
            }
        }
    };
}

impl_lanes!(u64x4, 4, _mm256_shrdv_epi64, _mm256_set1_epi64x);
impl_lanes!(u64x8, 8, _mm512_shrdv_epi64, _mm512_set1_epi64);

/// The blocked bits of the words `w..w + V::N`.
#[inline(always)]
fn blocked_words<V: Lanes>(
    pile_y: &[u64],
    pile_x: &[u64],
    diff_d: &[u64],
    layout: Layout,
    w: usize,
    x: u32,
    y: u32,
) -> V {
    let (aligned, at_y, at_x) = positions(layout, w, x, y);
    V::load(pile_y, aligned)
        | V::load(pile_x, aligned)
        | V::load(diff_d, aligned)
        | V::load_shifted(pile_x, at_y)
        | V::load_shifted(pile_y, at_x)
        | V::load_shifted(diff_d, at_x)
}

/// [`partner_u64`] with `V::N` words (`64 V::N` candidates) per step.
#[inline(always)]
pub fn partner_lanes<V: Lanes>(
    pile_y: &[u64],
    pile_x: &[u64],
    diff_d: &[u64],
    layout: Layout,
    x: u32,
    y: u32,
) -> Option<u32> {
    const { assert!(V::N <= LANES, "rows are padded for LANES words") };
    let mut w = y as usize >> 6;
    // Bits below y in the first word are not candidates: count them as blocked.
    let mut below = V::first_word((1u64 << (y & 63)) - 1);
    loop {
        let blocked = below | blocked_words::<V>(pile_y, pile_x, diff_d, layout, w, x, y);
        let open = blocked.open_lanes();
        if open != 0 {
            let lane = open.trailing_zeros();
            let z = 64 * (w as u32 + lane) + (!blocked.lane(lane)).trailing_zeros();
            return (z <= layout.limit).then_some(z);
        }
        w += V::N;
        if w > layout.last_word() {
            return None;
        }
        below = V::first_word(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SplitMix64;

    fn check_funnel<V: Lanes>() {
        let mut rng = SplitMix64(7);
        let words: Vec<u64> = (0..40).map(|_| rng.next_u64()).collect();
        for start in 0..64 * 30 {
            let v = V::load_shifted(&words, start);
            for j in 0..V::N as u32 {
                assert_eq!(v.lane(j), bits_at(&words, start + 64 * j as usize), "start {start} lane {j}");
            }
        }
    }

    #[test]
    fn funnel_shifts_match_the_scalar_definition_in_every_lane() {
        check_funnel::<u64x4>();
        check_funnel::<u64x8>();
    }

    #[test]
    fn open_lanes_flags_words_with_a_zero_bit() {
        let v = u64x4::new([u64::MAX, u64::MAX - 4, u64::MAX, 0]);
        assert_eq!(v.open_lanes(), 0b1010);
        let v = u64x8::new([u64::MAX; 8]);
        assert_eq!(v.open_lanes(), 0);
        assert_eq!(u64x8::first_word(5).lane(0), 5);
        assert_eq!(u64x8::first_word(5).lane(7), 0);
    }
}
