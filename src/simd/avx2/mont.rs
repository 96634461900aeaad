//! The mont family with AVX2: a logical vector of sixteen lanes is two `__m256i`, low
//! lanes 0–7 in the first. Products use `vpmuludq` (`_mm256_mul_epu32`) on the even and
//! odd 32-bit lanes separately, six per eight lanes, and a blend to put the high halves
//! back: the same REDC as the AVX-512 backend, where `wide` at the baseline needs about
//! twice the µops (its high product shuffles each operand pair apart and together again).

use crate::simd::Avx2;
use crate::simd::mont::{Block, LANES, Mont};
use core::arch::x86_64::*;

/// Sixteen lanes: `.0[0]` holds lanes 0–7, `.0[1]` lanes 8–15.
#[derive(Clone, Copy, Debug)]
pub struct V2(pub [__m256i; 2]);

// SAFETY (for every `unsafe` block in this file unless it says otherwise): these
// functions are only called, inlined, inside `multiversion!` entry points of level avx2
// or avx512, whose `#[target_feature]` includes avx2, and a `Simd` token of those levels
// exists only after the CPU was detected to have avx2. Memory accesses are through
// references to whole `[u32; 16]` blocks (unaligned forms) unless noted.

/// `f` on both halves of two vectors. A macro rather than a function taking a closure:
/// a closure is not `#[inline(always)]`, and an intrinsic is only inlined into code that
/// has its features, so every step here must land in the entry point itself.
macro_rules! zip {
    ($a:expr, $b:expr, $f:path) => {{
        let (a, b): (V2, V2) = ($a, $b);
        V2([$f(a.0[0], b.0[0]), $f(a.0[1], b.0[1])])
    }};
}

/// The subtractive REDC of eight lanes (see [`Mont::redc_difference`]).
#[inline(always)]
fn redc_difference8(a: __m256i, b: __m256i, p: __m256i, p_inv: __m256i) -> __m256i {
    // SAFETY: see the top of the file (avx2 is enabled in every caller's context).
    unsafe {
        // vpmuludq multiplies the even 32-bit lanes into 64-bit products; shifting each
        // 64-bit pair right by 32 brings the odd lanes into even position.
        let t_even = _mm256_mul_epu32(a, b);
        let t_odd = _mm256_mul_epu32(_mm256_srli_epi64::<32>(a), _mm256_srli_epi64::<32>(b));
        // Only the low 32 bits of q matter, and vpmuludq reads just those.
        let qp_even = _mm256_mul_epu32(_mm256_mul_epu32(t_even, p_inv), p);
        let qp_odd = _mm256_mul_epu32(_mm256_mul_epu32(t_odd, p_inv), p);
        // The low halves cancel exactly, so each 64-bit difference is (hi(t) - hi(qp))·2^32
        // mod 2^64: its high half is the wanted lane.
        let d_even = _mm256_sub_epi64(t_even, qp_even);
        let d_odd = _mm256_sub_epi64(t_odd, qp_odd);
        _mm256_blend_epi32::<0b1010_1010>(_mm256_srli_epi64::<32>(d_even), d_odd)
    }
}

/// The additive REDC of eight lanes (see [`Mont::redc_additive`]): as
/// [`redc_difference8`] with a 64-bit sum (`t + m·p < 4p^2 + 2^32·p < 2^63`).
#[inline(always)]
fn redc_additive8(a: __m256i, b: __m256i, p: __m256i, neg_p_inv: __m256i) -> __m256i {
    // SAFETY: see the top of the file.
    unsafe {
        let t_even = _mm256_mul_epu32(a, b);
        let t_odd = _mm256_mul_epu32(_mm256_srli_epi64::<32>(a), _mm256_srli_epi64::<32>(b));
        let s_even = _mm256_add_epi64(t_even, _mm256_mul_epu32(_mm256_mul_epu32(t_even, neg_p_inv), p));
        let s_odd = _mm256_add_epi64(t_odd, _mm256_mul_epu32(_mm256_mul_epu32(t_odd, neg_p_inv), p));
        _mm256_blend_epi32::<0b1010_1010>(_mm256_srli_epi64::<32>(s_even), s_odd)
    }
}

impl<const VNNI: bool> Mont for Avx2<VNNI> {
    type V = V2;
    type Upper = ();
    /// 4 logical vectors are 8 accumulators in ymm registers, with the two constants and
    /// the temporaries of two products in flight: the 16 registers, no spill (the bases
    /// are read from memory as operands).
    const POW_GROUP: usize = 4;
    /// Four logical vectors are 8 ymm registers; eight would be all 16 and spill.
    const SWEEP_LEVELS: u32 = 2;

    #[inline(always)]
    fn splat(x: u32) -> V2 {
        // SAFETY: see the top of the file.
        let v = unsafe { _mm256_set1_epi32(x as i32) };
        V2([v, v])
    }
    #[inline(always)]
    fn load(a: &Block) -> V2 {
        let ptr = a.as_ptr().cast::<__m256i>();
        // SAFETY: `a` is 64 readable bytes; the loads are unaligned forms.
        unsafe { V2([_mm256_loadu_si256(ptr), _mm256_loadu_si256(ptr.add(1))]) }
    }
    #[inline(always)]
    fn store(a: &mut Block, v: V2) {
        let ptr = a.as_mut_ptr().cast::<__m256i>();
        // SAFETY: `a` is 64 writable bytes we borrow mutably; unaligned forms.
        unsafe {
            _mm256_storeu_si256(ptr, v.0[0]);
            _mm256_storeu_si256(ptr.add(1), v.0[1]);
        }
    }
    #[inline(always)]
    fn add(a: V2, b: V2) -> V2 {
        // SAFETY: see the top of the file.
        unsafe { zip!(a, b, _mm256_add_epi32) }
    }
    #[inline(always)]
    fn sub(a: V2, b: V2) -> V2 {
        // SAFETY: see the top of the file.
        unsafe { zip!(a, b, _mm256_sub_epi32) }
    }
    #[inline(always)]
    fn min(a: V2, b: V2) -> V2 {
        // SAFETY: see the top of the file.
        unsafe { zip!(a, b, _mm256_min_epu32) }
    }
    #[inline(always)]
    fn and(a: V2, b: V2) -> V2 {
        // SAFETY: see the top of the file.
        unsafe { zip!(a, b, _mm256_and_si256) }
    }
    #[inline(always)]
    fn shr1(a: V2) -> V2 {
        // SAFETY: see the top of the file.
        unsafe { V2([_mm256_srli_epi32::<1>(a.0[0]), _mm256_srli_epi32::<1>(a.0[1])]) }
    }
    #[inline(always)]
    fn eq(a: V2, b: V2) -> V2 {
        // SAFETY: see the top of the file.
        unsafe { zip!(a, b, _mm256_cmpeq_epi32) }
    }
    #[inline(always)]
    fn gt(a: V2, b: V2) -> V2 {
        // Signed compare: the lanes are below 2^31, where it agrees with the unsigned one.
        // SAFETY: see the top of the file.
        unsafe { zip!(a, b, _mm256_cmpgt_epi32) }
    }
    #[inline(always)]
    fn select(mask: V2, a: V2, b: V2) -> V2 {
        // SAFETY: see the top of the file.
        unsafe { V2([_mm256_blendv_epi8(b.0[0], a.0[0], mask.0[0]), _mm256_blendv_epi8(b.0[1], a.0[1], mask.0[1])]) }
    }

    #[inline(always)]
    fn redc_difference(a: V2, b: V2, p: V2, p_inv: V2) -> V2 {
        V2([redc_difference8(a.0[0], b.0[0], p.0[0], p_inv.0[0]), redc_difference8(a.0[1], b.0[1], p.0[1], p_inv.0[1])])
    }

    #[inline(always)]
    fn redc_additive(a: V2, b: V2, p: V2, neg_p_inv: V2) -> V2 {
        V2([
            redc_additive8(a.0[0], b.0[0], p.0[0], neg_p_inv.0[0]),
            redc_additive8(a.0[1], b.0[1], p.0[1], neg_p_inv.0[1]),
        ])
    }

    #[inline(always)]
    fn upper_lanes() {}

    /// The partner by an in-lane `vpshufd` (strides 1, 2), a 128-bit lane swap (stride 4)
    /// or no instruction at all (stride 8: the other half); `p - x` by a subtraction and
    /// an immediate blend.
    #[inline(always)]
    fn in_vector_sum<const L: usize>(x: V2, p: V2, _upper: ()) -> V2 {
        V2([in_vector_half::<L>(x, p, 0), in_vector_half::<L>(x, p, 1)])
    }

    /// The four rounds of the block transpose (see `generic::transpose`): stride 8 swaps
    /// halves between rows (register renaming only), stride 4 is `vperm2i128`, strides 2
    /// and 1 are in-lane unpacks and blends.
    #[inline(always)]
    fn transpose(rows: &mut [V2; LANES]) {
        // Stride 8: new[r] = (lo r, lo r+8), new[r+8] = (hi r, hi r+8).
        for r in 0..8 {
            let (a, b) = (rows[r], rows[r + 8]);
            rows[r] = V2([a.0[0], b.0[0]]);
            rows[r + 8] = V2([a.0[1], b.0[1]]);
        }
        // The rows of each round as fixed arrays, not a filtered range: LLVM unrolls these,
        // where the filter stayed a loop with a test per row (callgrind, the frequency chunks
        // of C(10^6, ·): 164 → 116 scalar instructions per step).
        // SAFETY: see the top of the file.
        unsafe {
            for r in [0, 1, 2, 3, 8, 9, 10, 11] {
                let (a, b) = (rows[r], rows[r + 4]);
                rows[r] = zip!(a, b, _mm256_permute2x128_si256::<0x20>);
                rows[r + 4] = zip!(a, b, _mm256_permute2x128_si256::<0x31>);
            }
            for r in [0, 1, 4, 5, 8, 9, 12, 13] {
                let (a, b) = (rows[r], rows[r + 2]);
                rows[r] = zip!(a, b, _mm256_unpacklo_epi64);
                rows[r + 2] = zip!(a, b, _mm256_unpackhi_epi64);
            }
            for r in [0, 2, 4, 6, 8, 10, 12, 14] {
                let (a, b) = (rows[r], rows[r + 1]);
                rows[r] = zip!(a, b, odd_from_right);
                rows[r + 1] = zip!(a, b, even_from_left);
            }
        }
    }

    /// Two `vmovntdq` when `dst` is 32-byte aligned, as they require.
    #[inline(always)]
    fn stream_store(dst: &mut Block, v: V2) {
        if (dst.as_ptr() as usize).is_multiple_of(32) {
            let ptr = dst.as_mut_ptr().cast::<__m256i>();
            // SAFETY: `dst` is 64 bytes we borrow mutably and its address is a multiple
            // of 32 (checked just above), as the instruction requires; avx2 as at the top.
            unsafe {
                _mm256_stream_si256(ptr, v.0[0]);
                _mm256_stream_si256(ptr.add(1), v.0[1]);
            }
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

/// One half (`h`) of [`Mont::in_vector_sum`].
#[inline(always)]
fn in_vector_half<const L: usize>(x: V2, p: V2, h: usize) -> __m256i {
    // SAFETY: see the top of the file.
    unsafe {
        let neg = _mm256_sub_epi32(p.0[h], x.0[h]);
        match L {
            0 => _mm256_add_epi32(
                _mm256_shuffle_epi32::<0b10_11_00_01>(x.0[h]),
                _mm256_blend_epi32::<0b1010_1010>(x.0[h], neg),
            ),
            1 => _mm256_add_epi32(
                _mm256_shuffle_epi32::<0b01_00_11_10>(x.0[h]),
                _mm256_blend_epi32::<0b1100_1100>(x.0[h], neg),
            ),
            2 => _mm256_add_epi32(
                _mm256_permute2x128_si256::<0x01>(x.0[h], x.0[h]),
                _mm256_blend_epi32::<0b1111_0000>(x.0[h], neg),
            ),
            // Stride 8: the partner is the other half; the upper half is all negated.
            _ => _mm256_add_epi32(x.0[1 - h], if h == 0 { x.0[0] } else { neg }),
        }
    }
}

/// `[x0, y0, x2, y2, ..]`: the even lanes of `x` and, in the odd lanes, the even lanes of `y`.
#[inline(always)]
fn odd_from_right(x: __m256i, y: __m256i) -> __m256i {
    // SAFETY: see the top of the file.
    unsafe { _mm256_blend_epi32::<0b1010_1010>(x, _mm256_slli_epi64::<32>(y)) }
}

/// `[x1, y1, x3, y3, ..]`: the odd lanes of `x` moved to even lanes, and the odd lanes of `y`.
#[inline(always)]
fn even_from_left(x: __m256i, y: __m256i) -> __m256i {
    // SAFETY: see the top of the file.
    unsafe { _mm256_blend_epi32::<0b1010_1010>(_mm256_srli_epi64::<32>(x), y) }
}
