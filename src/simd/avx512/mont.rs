//! The mont family with AVX-512: one `__m512i` per logical vector. The REDC bodies, the
//! in-vector levels (immediate shuffles and masked subtractions under opaque masks) and
//! the 64-byte streaming store are the AVX-512 code the kernels had when the build
//! enabled `avx512f`, moved here unchanged; the plain lane operations are the
//! instructions `wide` used for them under that build.
//!
//! This code cannot run on a CPU without AVX-512 (the tests skip it there).

use crate::simd::Avx512;
use crate::simd::mont::{Block, LANES, Mont};
use core::arch::x86_64::*;

// SAFETY (for every `unsafe` block in this file unless it says otherwise): these
// functions are only called, inlined, inside `multiversion!` entry points of level
// avx512, whose `#[target_feature]` includes avx512f/bw/dq/vl, and a `Simd` token of
// that level exists only after the CPU was detected to have them. Memory accesses are
// through references to whole `[u32; 16]` blocks (unaligned forms) unless noted.

/// `t·c` in each 64-bit lane, of which only the low 32 bits are meant (the REDC's `q`):
/// `vpmadd52luq` gives the low 52 bits of the product of the low 52 bits, so its low 32
/// bits are those of `lo32(t)·lo32(c)`.
///
/// Why not `vpmuludq` (`_mm512_mul_epu32`), which is one µop too: it is ordinary IR
/// (`and` + `mul`), and since the next product reads only `q`'s low half, LLVM drops
/// the masks and, with AVX-512 DQ enabled, emits a full `vpmullq` (three µops and 15
/// cycles on Intel cores), also hoisting `b·c` out of the power loops into spilled
/// registers. The IFMA intrinsic is opaque to those rewrites.
#[inline(always)]
fn low_product(t: __m512i, c: __m512i) -> __m512i {
    // SAFETY: see the top of the file; avx512ifma is part of the avx512 level.
    unsafe { _mm512_madd52lo_epu64(_mm512_setzero_si512(), t, c) }
}

impl Mont for Avx512 {
    type V = __m512i;
    /// The lanes that each in-vector level `L` negates (those with bit `L` of the lane
    /// index set), as mask registers.
    ///
    /// Why not constants: with constant masks LLVM rewrites some masked subtractions as
    /// blends made of shuffles (`vshufps`, `vshufi64x2`), two more shuffles per vector
    /// that compete with the partner shuffles. Hidden behind [`std::hint::black_box`]
    /// once per sweep, the masks stay in mask registers and each level stays one shuffle
    /// and four arithmetic operations.
    type Upper = [u16; 4];
    /// 8 bases and 8 accumulators still fit the 32 vector registers beside the constants.
    const POW_GROUP: usize = 8;
    /// Sixteen would fit the 32 registers on paper, but the compiler then spills
    /// (measured: 1.35 ns per vector and level against 0.49 for eight).
    const SWEEP_LEVELS: u32 = 3;

    #[inline(always)]
    fn splat(x: u32) -> __m512i {
        // SAFETY: see the top of the file.
        unsafe { _mm512_set1_epi32(x as i32) }
    }
    #[inline(always)]
    fn load(a: &Block) -> __m512i {
        // SAFETY: `a` is 64 readable bytes; unaligned form.
        unsafe { _mm512_loadu_si512(a.as_ptr().cast()) }
    }
    #[inline(always)]
    fn store(a: &mut Block, v: __m512i) {
        // SAFETY: `a` is 64 writable bytes we borrow mutably; unaligned form.
        unsafe { _mm512_storeu_si512(a.as_mut_ptr().cast(), v) }
    }
    #[inline(always)]
    fn add(a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: see the top of the file.
        unsafe { _mm512_add_epi32(a, b) }
    }
    #[inline(always)]
    fn sub(a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: see the top of the file.
        unsafe { _mm512_sub_epi32(a, b) }
    }
    #[inline(always)]
    fn min(a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: see the top of the file.
        unsafe { _mm512_min_epu32(a, b) }
    }
    #[inline(always)]
    fn and(a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: see the top of the file.
        unsafe { _mm512_and_si512(a, b) }
    }
    #[inline(always)]
    fn shr1(a: __m512i) -> __m512i {
        // SAFETY: see the top of the file.
        unsafe { _mm512_srli_epi32::<1>(a) }
    }
    #[inline(always)]
    fn eq(a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: see the top of the file.
        unsafe { _mm512_movm_epi32(_mm512_cmpeq_epi32_mask(a, b)) }
    }
    #[inline(always)]
    fn gt(a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: see the top of the file.
        unsafe { _mm512_movm_epi32(_mm512_cmpgt_epu32_mask(a, b)) }
    }
    #[inline(always)]
    fn select(mask: __m512i, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: see the top of the file.
        unsafe { _mm512_mask_blend_epi32(_mm512_movepi32_mask(mask), b, a) }
    }

    #[inline(always)]
    fn redc_difference(a: __m512i, b: __m512i, p: __m512i, p_inv: __m512i) -> __m512i {
        // SAFETY: see the top of the file.
        unsafe {
            // vpmuludq multiplies the even 32-bit lanes into 64-bit products; shifting each
            // 64-bit pair right by 32 brings the odd lanes into even position.
            let t_even = _mm512_mul_epu32(a, b);
            let t_odd = _mm512_mul_epu32(_mm512_srli_epi64::<32>(a), _mm512_srli_epi64::<32>(b));
            let qp_even = _mm512_mul_epu32(low_product(t_even, p_inv), p);
            let qp_odd = _mm512_mul_epu32(low_product(t_odd, p_inv), p);
            // The low halves cancel exactly, so each 64-bit difference is (hi(t) - hi(qp))·2^32
            // mod 2^64: its high half is the wanted lane.
            let d_even = _mm512_sub_epi64(t_even, qp_even);
            let d_odd = _mm512_sub_epi64(t_odd, qp_odd);
            _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64::<32>(d_even), d_odd)
        }
    }

    /// As [`Mont::redc_difference`], with a 64-bit sum instead of a difference
    /// (`t + m·p < 4p^2 + 2^32·p < 2^63` for `p < 2^30`).
    #[inline(always)]
    fn redc_additive(a: __m512i, b: __m512i, p: __m512i, neg_p_inv: __m512i) -> __m512i {
        // SAFETY: see the top of the file.
        unsafe {
            let t_even = _mm512_mul_epu32(a, b);
            let t_odd = _mm512_mul_epu32(_mm512_srli_epi64::<32>(a), _mm512_srli_epi64::<32>(b));
            let s_even = _mm512_add_epi64(t_even, _mm512_mul_epu32(low_product(t_even, neg_p_inv), p));
            let s_odd = _mm512_add_epi64(t_odd, _mm512_mul_epu32(low_product(t_odd, neg_p_inv), p));
            _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64::<32>(s_even), s_odd)
        }
    }

    #[inline(always)]
    fn upper_lanes() -> [u16; 4] {
        std::hint::black_box([0xAAAA, 0xCCCC, 0xF0F0, 0xFF00])
    }

    /// The partner from an immediate shuffle (in-lane `vpshufd` for strides 1 and 2,
    /// `vshufi64x2` for 4 and 8, cheaper than a general permute) and `p - x` from one
    /// masked subtraction.
    #[inline(always)]
    fn in_vector_sum<const L: usize>(x: __m512i, p: __m512i, upper: [u16; 4]) -> __m512i {
        // SAFETY: see the top of the file.
        unsafe {
            let partner = match L {
                0 => _mm512_shuffle_epi32::<_MM_PERM_CDAB>(x),
                1 => _mm512_shuffle_epi32::<_MM_PERM_BADC>(x),
                2 => _mm512_shuffle_i64x2::<0b10_11_00_01>(x, x),
                _ => _mm512_shuffle_i64x2::<0b01_00_11_10>(x, x),
            };
            let signed = _mm512_mask_sub_epi32(x, upper[L], p, x);
            _mm512_add_epi32(partner, signed)
        }
    }

    /// The rounds of the portable transpose, each row pair one two-source permute
    /// (`vpermt2d`) by the same index vectors.
    #[inline(always)]
    fn transpose(rows: &mut [__m512i; LANES]) {
        transpose_round::<8>(rows);
        transpose_round::<4>(rows);
        transpose_round::<2>(rows);
        transpose_round::<1>(rows);
    }

    /// A 64-byte non-temporal store when `dst` is 64-byte aligned, as it requires.
    #[inline(always)]
    fn stream_store(dst: &mut Block, v: __m512i) {
        if (dst.as_ptr() as usize).is_multiple_of(64) {
            // SAFETY: `dst` is 64 bytes we borrow mutably and its address is a multiple of 64
            // (checked just above), as the instruction requires; avx512f as at the top.
            unsafe { _mm512_stream_si512(dst.as_mut_ptr().cast(), v) };
            return;
        }
        Self::store(dst, v);
    }

    #[inline(always)]
    fn store_fence() {
        // SAFETY: sfence has no preconditions (std marks it unsafe only for historic reasons).
        unsafe { _mm_sfence() };
    }
}

/// One round of the transpose: for rows `r` with bit `B` clear,
/// `new[r][c] = c & B == 0 ? old[r][c] : old[r+B][c-B]` and
/// `new[r+B][c] = c & B == 0 ? old[r][c+B] : old[r+B][c]`.
#[inline(always)]
fn transpose_round<const B: usize>(rows: &mut [__m512i; LANES]) {
    let low: Block = std::array::from_fn(|c| if c & B == 0 { c } else { 16 + c - B } as u32);
    let high: Block = std::array::from_fn(|c| if c & B == 0 { c + B } else { 16 + c } as u32);
    let (low, high) = (Avx512::load(&low), Avx512::load(&high));
    for r in 0..LANES {
        if r & B == 0 {
            // SAFETY: see the top of the file.
            unsafe {
                let (a, b) = (rows[r], rows[r + B]);
                rows[r] = _mm512_permutex2var_epi32(a, low, b);
                rows[r + B] = _mm512_permutex2var_epi32(a, high, b);
            }
        }
    }
}
