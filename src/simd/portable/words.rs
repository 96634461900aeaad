//! The words family on the portable backend: windows of `K` `wide::u64x4`, at the
//! build's baseline (SSE2 on x86-64: two 128-bit registers per `u64x4`; NEON on aarch64).
//!
//! `wide` has no lane alignment, so the neighbour lanes of the funnel shifts are built
//! from the lanes as arrays (the compiler turns them into shuffles); the shifts are
//! `wide`'s uniform shifts, whose count 64 gives zero as a shift by 0 needs.

use crate::simd::Portable;
use crate::simd::words::{Block, Window, Words, assert_in_bounds};
use wide::u64x4;

/// `4 K` words in `K` vectors of four.
#[derive(Clone, Copy, Debug)]
pub struct Quads<const K: usize>([u64x4; K]);

/// The full window: eight words, seven exact.
pub type Full = Quads<2>;
/// The tail window: four words, three exact.
pub type Tail = Quads<1>;

impl Words for Portable {
    type Full = Full;
    type Tail = Tail;
}

impl<const K: usize> Quads<K> {
    #[inline(always)]
    fn map2(a: Self, b: Self, f: impl Fn(u64x4, u64x4) -> u64x4) -> Self {
        Self(std::array::from_fn(|k| f(a.0[k], b.0[k])))
    }

    /// Lane `i` holds lane `i + 1` (the top lane itself: it is inexact anyway).
    #[inline(always)]
    fn upper_neighbours(self) -> Self {
        let q = self.0.map(|v| v.to_array());
        Self(std::array::from_fn(|k| {
            let next = if k + 1 < K { q[k + 1][0] } else { q[k][3] };
            u64x4::new([q[k][1], q[k][2], q[k][3], next])
        }))
    }

    /// Lane `i` holds lane `i - 1`, and lane 0 all ones.
    #[inline(always)]
    fn lower_neighbours_ones(self) -> Self {
        let q = self.0.map(|v| v.to_array());
        Self(std::array::from_fn(|k| {
            let prev = if k == 0 { u64::MAX } else { q[k - 1][3] };
            u64x4::new([prev, q[k][0], q[k][1], q[k][2]])
        }))
    }
}

impl<const K: usize> Window for Quads<K> {
    const LANES: usize = 4 * K;

    #[inline(always)]
    unsafe fn load_bytes(words: &[u64], at: usize) -> Self {
        assert_in_bounds(words, at, 8 * Self::LANES);
        let p = words.as_ptr().cast::<u8>();
        // SAFETY: the caller guarantees bytes `at .. at + 32 K` lie inside `words`; an
        // unaligned read of plain integers is allowed.
        Self(std::array::from_fn(|k| unsafe { p.add(at + 32 * k).cast::<[u64; 4]>().read_unaligned() }.into()))
    }

    #[inline(always)]
    unsafe fn load_words(words: &[u64], at: usize) -> Self {
        assert_in_bounds(words, 8 * at, 8 * Self::LANES);
        let p = words.as_ptr();
        // SAFETY: the caller guarantees words `at .. at + 4 K` lie inside `words`.
        Self(std::array::from_fn(|k| unsafe { p.add(at + 4 * k).cast::<[u64; 4]>().read_unaligned() }.into()))
    }

    #[inline(always)]
    fn or3(a: Self, b: Self, c: Self) -> Self {
        Self::or(Self::or(a, b), c)
    }

    #[inline(always)]
    fn or(a: Self, b: Self) -> Self {
        Self::map2(a, b, |a, b| a | b)
    }

    #[inline(always)]
    fn funnel_down(self, bits: isize) -> Self {
        let s = (bits & 7) as u32;
        Self::map2(self, self.upper_neighbours(), |v, up| v.unbounded_shr_scalar(s) | up.unbounded_shl_scalar(64 - s))
    }

    #[inline(always)]
    fn funnel_up_ones(self, bits: u32) -> Self {
        let s = bits & 63;
        Self::map2(self, self.lower_neighbours_ones(), |v, down| {
            v.unbounded_shl_scalar(s) | down.unbounded_shr_scalar(64 - s)
        })
    }

    #[inline(always)]
    fn open_lanes(self) -> u32 {
        let full = self
            .0
            .iter()
            .enumerate()
            .fold(0, |m, (k, v)| m | v.simd_eq(u64x4::splat(u64::MAX)).to_bitmask() << (4 * k));
        !full & ((1 << (Self::LANES - 1)) - 1)
    }

    #[inline(always)]
    fn lane(self, lane: u32) -> u64 {
        let i = lane as usize % Self::LANES;
        self.0[i / 4].as_array()[i % 4]
    }
}

impl<const K: usize> Block for Quads<K> {
    #[inline(always)]
    fn funnel_pair(lo: Self, hi: Self, shift: u32) -> Self {
        Self::map2(lo, hi, |lo, hi| lo.unbounded_shr_scalar(shift) | hi.unbounded_shl_scalar(64 - shift))
    }

    #[inline(always)]
    fn open_words(self) -> u32 {
        let full = self
            .0
            .iter()
            .enumerate()
            .fold(0, |m, (k, v)| m | v.simd_eq(u64x4::splat(u64::MAX)).to_bitmask() << (4 * k));
        !full & ((1 << Self::LANES) - 1)
    }

    #[inline(always)]
    fn or_first_word(mut self, bits: u64) -> Self {
        self.0[0] |= u64x4::new([bits, 0, 0, 0]);
        self
    }
}
