//! The words family on the AVX2 backend: the full window in two `__m256i` (eight words,
//! seven exact), the tail window in one.
//!
//! AVX2 has no funnel shift: each one is two shifts by a uniform count (`vpsrlq`,
//! `vpsllq`, whose count 64 gives zero, as a shift by 0 needs) and an OR with the
//! neighbour lanes, which come from `vpermq` within one register and from `vperm2i128` +
//! `vpalignr` across the two halves of the full window, or, where the row is in memory
//! and a word before it may be read (`load_funnel_up_ones`), from a second load one word
//! off, which leaves the shuffle port to the other funnels. The first free lane is
//! `vpcmpeqq` against all ones, `vmovmskpd` and a trailing-zero count. A lane is read
//! back through a store of the window and one scalar load, which the store forwards:
//! three instructions, against eight for moving it to the bottom with `vpermd` (building
//! the index, broadcasting it, one permute per register, a select). Stones at L = 1000,
//! `--simd avx2` on an Intel Xeon: 35.4 M → 33.9 M instructions (callgrind), 2.99 →
//! 2.86 ms (15 alternated processes).

use crate::simd::Avx2;
use crate::simd::words::{Block, Window, Words, assert_in_bounds};
use std::arch::x86_64::*;

/// Eight words in two `__m256i` (words 0–3, 4–7), seven exact.
#[derive(Clone, Copy, Debug)]
pub struct Ymm2 {
    lo: __m256i,
    hi: __m256i,
}

/// Four words in one `__m256i`, three exact.
#[derive(Clone, Copy, Debug)]
pub struct Ymm(__m256i);

impl<const VNNI: bool> Words for Avx2<VNNI> {
    type Full = Ymm2;
    type Tail = Ymm;
}

// SAFETY (every intrinsic below): a window exists only after one of its `unsafe` loads,
// whose caller guarantees that the CPU has this backend's instruction set (AVX2 among
// it; `crate::simd::words`); apart from the loads the intrinsics touch registers only,
// and each load reads bytes that its caller guarantees lie inside the slice, checked in
// debug builds.

/// The shift counts `s` and `64 - s` for `vpsrlq`/`vpsllq`, the second computed in the
/// vector register (one `vpsubq` in place of a scalar subtraction and a second move).
#[inline(always)]
fn counts(s: u32) -> (__m128i, __m128i) {
    // SAFETY: see above.
    unsafe {
        let s = _mm_cvtsi32_si128(s as i32);
        (s, _mm_sub_epi64(_mm_cvtsi32_si128(64), s))
    }
}

/// `(v >> s) | (up << (64 - s))` in each lane, `s < 64`.
///
/// The uniform shifts with the count in an `xmm` register (`vpsrlq`, `vpsllq`), which
/// give zero for a count of 64: written as `vpsllvq` on a splat, the compiler turned them
/// into these shifts all the same, and added a compare and two `vpandn` to give the
/// count 64 a meaning it already has.
#[inline(always)]
fn funnel_right(v: __m256i, up: __m256i, s: u32) -> __m256i {
    // SAFETY: see above.
    unsafe {
        let (right, left) = counts(s);
        _mm256_or_si256(_mm256_srl_epi64(v, right), _mm256_sll_epi64(up, left))
    }
}

/// `(v << s) | (down >> (64 - s))` in each lane, `s < 64` (the shifts as above).
#[inline(always)]
fn funnel_left(v: __m256i, down: __m256i, s: u32) -> __m256i {
    // SAFETY: see above.
    unsafe {
        let (left, right) = counts(s);
        _mm256_or_si256(_mm256_sll_epi64(v, left), _mm256_srl_epi64(down, right))
    }
}

/// Bit `i` set when lane `i` of `v` is all ones.
#[inline(always)]
fn full_lanes(v: __m256i) -> u32 {
    // SAFETY: see above.
    unsafe { _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(v, _mm256_set1_epi64x(-1)))) as u32 }
}

/// The lanes `[a2, a3, b0, b1]`.
#[inline(always)]
fn middle(a: __m256i, b: __m256i) -> __m256i {
    // SAFETY: see above.
    unsafe { _mm256_permute2x128_si256::<0x21>(a, b) }
}

impl Window for Ymm2 {
    const LANES: usize = 8;

    #[inline(always)]
    unsafe fn load_bytes(words: &[u64], at: usize) -> Self {
        assert_in_bounds(words, at, 64);
        // SAFETY: see above (unaligned loads are allowed).
        unsafe {
            let p = words.as_ptr().cast::<u8>().add(at);
            Ymm2 { lo: _mm256_loadu_si256(p.cast()), hi: _mm256_loadu_si256(p.add(32).cast()) }
        }
    }

    #[inline(always)]
    unsafe fn load_words(words: &[u64], at: usize) -> Self {
        assert_in_bounds(words, 8 * at, 64);
        // SAFETY: see above.
        unsafe {
            let p = words.as_ptr().add(at);
            Ymm2 { lo: _mm256_loadu_si256(p.cast()), hi: _mm256_loadu_si256(p.add(4).cast()) }
        }
    }

    #[inline(always)]
    fn or3(a: Self, b: Self, c: Self) -> Self {
        Self::or(Self::or(a, b), c)
    }

    #[inline(always)]
    fn or(a: Self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { Ymm2 { lo: _mm256_or_si256(a.lo, b.lo), hi: _mm256_or_si256(a.hi, b.hi) } }
    }

    #[inline(always)]
    fn funnel_down(self, bits: isize) -> Self {
        let s = (bits & 7) as u32;
        // SAFETY: see above.
        unsafe {
            // [lo1, lo2, lo3, hi0]: per 128-bit half, (middle : lo) >> 8 bytes.
            let up_lo = _mm256_alignr_epi8::<8>(middle(self.lo, self.hi), self.lo);
            // [hi1, hi2, hi3, hi3]: the top lane is inexact anyway.
            let up_hi = _mm256_permute4x64_epi64::<0b11_11_10_01>(self.hi);
            Ymm2 { lo: funnel_right(self.lo, up_lo, s), hi: funnel_right(self.hi, up_hi, s) }
        }
    }

    #[inline(always)]
    fn funnel_up_ones(self, bits: u32) -> Self {
        let s = bits & 63;
        // SAFETY: see above.
        unsafe {
            // [ones, lo0, lo1, lo2].
            let down_lo =
                _mm256_blend_epi32::<0b11>(_mm256_permute4x64_epi64::<0b10_01_00_00>(self.lo), _mm256_set1_epi64x(-1));
            // [lo3, hi0, hi1, hi2]: per 128-bit half, (hi : middle) >> 8 bytes.
            let down_hi = _mm256_alignr_epi8::<8>(self.hi, middle(self.lo, self.hi));
            Ymm2 { lo: funnel_left(self.lo, down_lo, s), hi: funnel_left(self.hi, down_hi, s) }
        }
    }

    /// The lower neighbours loaded one word before instead of moved across lanes: two
    /// more loads and one blend (the ones below lane 0) in place of four shuffles.
    #[inline(always)]
    unsafe fn load_funnel_up_ones(words: &[u64], at: usize, bits: u32) -> Self {
        // SAFETY: the caller guarantees words `at - 1 .. at + 8` (the trait's contract).
        let (v, down) = unsafe { (Self::load_words(words, at), Self::load_words(words, at - 1)) };
        // SAFETY: see above.
        let down_lo = unsafe { _mm256_blend_epi32::<0b11>(down.lo, _mm256_set1_epi64x(-1)) };
        let s = bits & 63;
        Ymm2 { lo: funnel_left(v.lo, down_lo, s), hi: funnel_left(v.hi, down.hi, s) }
    }

    #[inline(always)]
    fn open_lanes(self) -> u32 {
        !(full_lanes(self.lo) | full_lanes(self.hi) << 4) & ((1 << (Self::LANES - 1)) - 1)
    }

    #[inline(always)]
    fn lane(self, lane: u32) -> u64 {
        let mut words = [0u64; 8];
        // SAFETY: see above; the stores write the 64 bytes of `words`.
        unsafe {
            _mm256_storeu_si256(words.as_mut_ptr().cast(), self.lo);
            _mm256_storeu_si256(words.as_mut_ptr().add(4).cast(), self.hi);
        }
        words[(lane & 7) as usize]
    }
}

impl Window for Ymm {
    const LANES: usize = 4;

    #[inline(always)]
    unsafe fn load_bytes(words: &[u64], at: usize) -> Self {
        assert_in_bounds(words, at, 32);
        // SAFETY: see above.
        unsafe { Ymm(_mm256_loadu_si256(words.as_ptr().cast::<u8>().add(at).cast())) }
    }

    #[inline(always)]
    unsafe fn load_words(words: &[u64], at: usize) -> Self {
        assert_in_bounds(words, 8 * at, 32);
        // SAFETY: see above.
        unsafe { Ymm(_mm256_loadu_si256(words.as_ptr().add(at).cast())) }
    }

    #[inline(always)]
    fn or3(a: Self, b: Self, c: Self) -> Self {
        Self::or(Self::or(a, b), c)
    }

    #[inline(always)]
    fn or(a: Self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { Ymm(_mm256_or_si256(a.0, b.0)) }
    }

    #[inline(always)]
    fn funnel_down(self, bits: isize) -> Self {
        // SAFETY: see above.
        let up = unsafe { _mm256_permute4x64_epi64::<0b11_11_10_01>(self.0) };
        Ymm(funnel_right(self.0, up, (bits & 7) as u32))
    }

    #[inline(always)]
    fn funnel_up_ones(self, bits: u32) -> Self {
        // SAFETY: see above.
        let down = unsafe {
            _mm256_blend_epi32::<0b11>(_mm256_permute4x64_epi64::<0b10_01_00_00>(self.0), _mm256_set1_epi64x(-1))
        };
        Ymm(funnel_left(self.0, down, bits & 63))
    }

    /// As for [`Ymm2`]: the lower neighbours from a load one word before.
    #[inline(always)]
    unsafe fn load_funnel_up_ones(words: &[u64], at: usize, bits: u32) -> Self {
        // SAFETY: the caller guarantees words `at - 1 .. at + 4` (the trait's contract).
        let (v, down) = unsafe { (Self::load_words(words, at), Self::load_words(words, at - 1)) };
        // SAFETY: see above.
        let down = unsafe { _mm256_blend_epi32::<0b11>(down.0, _mm256_set1_epi64x(-1)) };
        Ymm(funnel_left(v.0, down, bits & 63))
    }

    #[inline(always)]
    fn open_lanes(self) -> u32 {
        !full_lanes(self.0) & ((1 << (Self::LANES - 1)) - 1)
    }

    #[inline(always)]
    fn lane(self, lane: u32) -> u64 {
        let mut words = [0u64; 4];
        // SAFETY: see above; the store writes the 32 bytes of `words`.
        unsafe { _mm256_storeu_si256(words.as_mut_ptr().cast(), self.0) };
        words[(lane & 3) as usize]
    }
}

/// `bits` in lane 0, zeros elsewhere.
#[inline(always)]
fn first_word(bits: u64) -> __m256i {
    // SAFETY: see above.
    unsafe { _mm256_set_epi64x(0, 0, 0, bits as i64) }
}

impl Block for Ymm2 {
    #[inline(always)]
    fn funnel_pair(lo: Self, hi: Self, shift: u32) -> Self {
        Ymm2 { lo: funnel_right(lo.lo, hi.lo, shift), hi: funnel_right(lo.hi, hi.hi, shift) }
    }

    #[inline(always)]
    fn open_words(self) -> u32 {
        !(full_lanes(self.lo) | full_lanes(self.hi) << 4) & 0xff
    }

    #[inline(always)]
    fn or_first_word(self, bits: u64) -> Self {
        // SAFETY: see above.
        Ymm2 { lo: unsafe { _mm256_or_si256(self.lo, first_word(bits)) }, hi: self.hi }
    }
}

impl Block for Ymm {
    #[inline(always)]
    fn funnel_pair(lo: Self, hi: Self, shift: u32) -> Self {
        Ymm(funnel_right(lo.0, hi.0, shift))
    }

    #[inline(always)]
    fn open_words(self) -> u32 {
        !full_lanes(self.0) & 0xf
    }

    #[inline(always)]
    fn or_first_word(self, bits: u64) -> Self {
        // SAFETY: see above.
        Ymm(unsafe { _mm256_or_si256(self.0, first_word(bits)) })
    }
}
