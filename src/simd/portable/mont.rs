//! The mont family on `wide::u32x16` at the build's baseline: the reference the other
//! backends are tested against. The high halves of the products come from `wide`'s
//! `mul_keep_high`, which at the x86-64 baseline is four 128-bit `pmuludq` pairs and
//! shuffles per operand pair: correct everywhere, about twice the work of the AVX2 form.

use crate::simd::Portable;
use crate::simd::mont::{Block, LANES, Mont, generic};
use wide::u32x16;

impl Mont for Portable {
    type V = u32x16;
    type Upper = ();
    const POW_GROUP: usize = 8;
    /// As the AVX-512 code it replaced (the baseline form is not tuned).
    const SWEEP_LEVELS: u32 = 3;

    #[inline(always)]
    fn splat(x: u32) -> u32x16 {
        u32x16::splat(x)
    }
    #[inline(always)]
    fn load(a: &Block) -> u32x16 {
        u32x16::from(*a)
    }
    #[inline(always)]
    fn store(a: &mut Block, v: u32x16) {
        *a = v.to_array();
    }
    #[inline(always)]
    fn to_array(v: u32x16) -> Block {
        v.to_array()
    }
    #[inline(always)]
    fn add(a: u32x16, b: u32x16) -> u32x16 {
        a + b
    }
    #[inline(always)]
    fn sub(a: u32x16, b: u32x16) -> u32x16 {
        a - b
    }
    #[inline(always)]
    fn min(a: u32x16, b: u32x16) -> u32x16 {
        a.min(b)
    }
    #[inline(always)]
    fn and(a: u32x16, b: u32x16) -> u32x16 {
        a & b
    }
    #[inline(always)]
    fn shr1(a: u32x16) -> u32x16 {
        a >> 1
    }
    #[inline(always)]
    fn eq(a: u32x16, b: u32x16) -> u32x16 {
        a.simd_eq(b)
    }
    #[inline(always)]
    fn gt(a: u32x16, b: u32x16) -> u32x16 {
        a.simd_gt(b)
    }
    #[inline(always)]
    fn select(mask: u32x16, a: u32x16, b: u32x16) -> u32x16 {
        mask.select(a, b)
    }

    #[inline(always)]
    fn redc_difference(a: u32x16, b: u32x16, p: u32x16, p_inv: u32x16) -> u32x16 {
        let t_low = a * b;
        let t_high = a.mul_keep_high(b);
        let q = t_low * p_inv;
        t_high - q.mul_keep_high(p)
    }

    /// `hi(t) + hi(m·p)`, plus the carry out of the low halves, which sum to 0 or 2^32
    /// (1 exactly when `lo(t)` is not 0).
    #[inline(always)]
    fn redc_additive(a: u32x16, b: u32x16, p: u32x16, neg_p_inv: u32x16) -> u32x16 {
        let t_low = a * b;
        let m = t_low * neg_p_inv;
        let carry = !t_low.simd_eq(u32x16::ZERO) & u32x16::ONE;
        a.mul_keep_high(b) + m.mul_keep_high(p) + carry
    }

    #[inline(always)]
    fn upper_lanes() {}

    #[inline(always)]
    fn in_vector_sum<const L: usize>(x: u32x16, p: u32x16, _upper: ()) -> u32x16 {
        generic::in_vector_sum::<L>(x, p)
    }

    #[inline(always)]
    fn transpose(rows: &mut [u32x16; LANES]) {
        generic::transpose(rows)
    }

    /// An ordinary store: the baseline has no 64-byte non-temporal store.
    #[inline(always)]
    fn stream_store(dst: &mut Block, v: u32x16) {
        *dst = v.to_array();
    }

    #[inline(always)]
    fn store_fence() {}
}
