//! The words family on the AVX-512 backend: the window in one register, 512 bits for the
//! full window and 256 bits (VL) for the tail window, with VBMI2's funnel shifts
//! (`vpshrdvq`, `vpshldvq`) and `valignq` for the neighbour lanes.
//!
//! Moved from the stones window search (where it was compiled only for builds targeting
//! AVX-512) without a change to its logic. On the Zen 4 of the project, whose 512-bit
//! operations take two 256-bit slots, the 256-bit tail window halves the work of the
//! pairs in the last three words of the rows (`keyscan::diagonal::window`, the tail window).

use crate::simd::Avx512;
use crate::simd::words::{Block, Window, Words, assert_in_bounds};
use std::arch::x86_64::*;

/// Eight words in one `__m512i`, seven exact.
#[derive(Clone, Copy, Debug)]
pub struct Zmm(__m512i);

/// Four words in one `__m256i`, three exact (AVX-512 VL forms).
#[derive(Clone, Copy, Debug)]
pub struct Ymm(__m256i);

impl Words for Avx512 {
    type Full = Zmm;
    type Tail = Ymm;
}

// SAFETY (every intrinsic of the two impls): a window exists only after one of its
// `unsafe` loads, whose caller guarantees that the CPU has this backend's instruction set
// (AVX-512 F, VL, VBMI2 among it; `crate::simd::words`); apart from the loads the
// intrinsics touch registers only, and each load reads bytes that its caller guarantees
// lie inside the slice, checked in debug builds.
impl Window for Zmm {
    const LANES: usize = 8;

    #[inline(always)]
    unsafe fn load_bytes(words: &[u64], at: usize) -> Self {
        assert_in_bounds(words, at, 64);
        // SAFETY: see above (an unaligned load is allowed).
        unsafe { Zmm(_mm512_loadu_si512(words.as_ptr().cast::<u8>().add(at).cast())) }
    }

    #[inline(always)]
    unsafe fn load_words(words: &[u64], at: usize) -> Self {
        assert_in_bounds(words, 8 * at, 64);
        // SAFETY: see above.
        unsafe { Zmm(_mm512_loadu_si512(words.as_ptr().add(at).cast())) }
    }

    #[inline(always)]
    fn or3(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: see above.
        unsafe { Zmm(_mm512_ternarylogic_epi64::<0xfe>(a.0, b.0, c.0)) }
    }

    #[inline(always)]
    fn or(a: Self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { Zmm(_mm512_or_si512(a.0, b.0)) }
    }

    #[inline(always)]
    fn funnel_down(self, bits: isize) -> Self {
        // SAFETY: see above.
        unsafe {
            Zmm(_mm512_shrdv_epi64(
                self.0,
                _mm512_alignr_epi64::<1>(self.0, self.0),
                _mm512_set1_epi64(bits as i64 & 7),
            ))
        }
    }

    #[inline(always)]
    fn funnel_up_ones(self, bits: u32) -> Self {
        // SAFETY: see above.
        unsafe {
            let below = _mm512_alignr_epi64::<7>(self.0, _mm512_set1_epi64(-1));
            Zmm(_mm512_shldv_epi64(self.0, below, _mm512_set1_epi64(bits as i64)))
        }
    }

    #[inline(always)]
    fn open_lanes(self) -> u32 {
        // SAFETY: see above.
        unsafe { _mm512_mask_cmpneq_epi64_mask((1 << (Self::LANES - 1)) - 1, self.0, _mm512_set1_epi64(-1)) as u32 }
    }

    #[inline(always)]
    fn lane(self, lane: u32) -> u64 {
        // SAFETY: see above.
        unsafe {
            let word = _mm512_permutexvar_epi64(_mm512_set1_epi64(lane as i64), self.0);
            _mm_cvtsi128_si64(_mm512_castsi512_si128(word)) as u64
        }
    }
}

// The 256-bit forms are why the backend needs avx512vl.
impl Window for Ymm {
    const LANES: usize = 4;

    #[inline(always)]
    unsafe fn load_bytes(words: &[u64], at: usize) -> Self {
        assert_in_bounds(words, at, 32);
        // SAFETY: see above the 512-bit impl.
        unsafe { Ymm(_mm256_loadu_si256(words.as_ptr().cast::<u8>().add(at).cast())) }
    }

    #[inline(always)]
    unsafe fn load_words(words: &[u64], at: usize) -> Self {
        assert_in_bounds(words, 8 * at, 32);
        // SAFETY: see above the 512-bit impl.
        unsafe { Ymm(_mm256_loadu_si256(words.as_ptr().add(at).cast())) }
    }

    #[inline(always)]
    fn or3(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: see above the 512-bit impl.
        unsafe { Ymm(_mm256_ternarylogic_epi64::<0xfe>(a.0, b.0, c.0)) }
    }

    #[inline(always)]
    fn or(a: Self, b: Self) -> Self {
        // SAFETY: see above the 512-bit impl.
        unsafe { Ymm(_mm256_or_si256(a.0, b.0)) }
    }

    #[inline(always)]
    fn funnel_down(self, bits: isize) -> Self {
        // SAFETY: see above the 512-bit impl.
        unsafe {
            Ymm(_mm256_shrdv_epi64(
                self.0,
                _mm256_alignr_epi64::<1>(self.0, self.0),
                _mm256_set1_epi64x(bits as i64 & 7),
            ))
        }
    }

    #[inline(always)]
    fn funnel_up_ones(self, bits: u32) -> Self {
        // SAFETY: see above the 512-bit impl.
        unsafe {
            let below = _mm256_alignr_epi64::<3>(self.0, _mm256_set1_epi64x(-1));
            Ymm(_mm256_shldv_epi64(self.0, below, _mm256_set1_epi64x(bits as i64)))
        }
    }

    #[inline(always)]
    fn open_lanes(self) -> u32 {
        // SAFETY: see above the 512-bit impl.
        unsafe { _mm256_mask_cmpneq_epi64_mask((1 << (Self::LANES - 1)) - 1, self.0, _mm256_set1_epi64x(-1)) as u32 }
    }

    #[inline(always)]
    fn lane(self, lane: u32) -> u64 {
        // SAFETY: see above the 512-bit impl.
        unsafe {
            let word = _mm256_permutexvar_epi64(_mm256_set1_epi64x(lane as i64), self.0);
            _mm_cvtsi128_si64(_mm256_castsi256_si128(word)) as u64
        }
    }
}

// The blocks: one VPSHRDVQ per funnel (the two shifts and an OR of the AVX2 form in one
// instruction), a compare into a mask register, a masked broadcast for the first word.
// SAFETY of the intrinsics: as for the windows above.
impl Block for Zmm {
    #[inline(always)]
    fn funnel_pair(lo: Self, hi: Self, shift: u32) -> Self {
        // SAFETY: see above.
        unsafe { Zmm(_mm512_shrdv_epi64(lo.0, hi.0, _mm512_set1_epi64(shift as i64))) }
    }

    #[inline(always)]
    fn open_words(self) -> u32 {
        // SAFETY: see above.
        unsafe { _mm512_cmpneq_epi64_mask(self.0, _mm512_set1_epi64(-1)) as u32 }
    }

    #[inline(always)]
    fn or_first_word(self, bits: u64) -> Self {
        // SAFETY: see above.
        unsafe { Zmm(_mm512_or_si512(self.0, _mm512_maskz_set1_epi64(1, bits as i64))) }
    }
}

impl Block for Ymm {
    #[inline(always)]
    fn funnel_pair(lo: Self, hi: Self, shift: u32) -> Self {
        // SAFETY: see above.
        unsafe { Ymm(_mm256_shrdv_epi64(lo.0, hi.0, _mm256_set1_epi64x(shift as i64))) }
    }

    #[inline(always)]
    fn open_words(self) -> u32 {
        // SAFETY: see above.
        unsafe { _mm256_cmpneq_epi64_mask(self.0, _mm256_set1_epi64x(-1)) as u32 }
    }

    #[inline(always)]
    fn or_first_word(self, bits: u64) -> Self {
        // SAFETY: see above.
        unsafe { Ymm(_mm256_or_si256(self.0, _mm256_maskz_set1_epi64(1, bits as i64))) }
    }
}
