//! The mont family on aarch64: `wide::u32x16`, which is four NEON `uint32x4_t` at the
//! aarch64 baseline, for the lane operations, shuffles and transposes (they delegate to
//! the portable backend, already NEON there), and NEON intrinsics for the Montgomery
//! products: `vmull_u32` / `vmull_high_u32` give the 64-bit products of four lanes in
//! two instructions and `vuzp2q_u32` gathers their high halves, where `wide`'s
//! `mul_keep_high` goes through its generic path. The lazy products, whose factors are
//! below `2^31`, take the high halves by `sqdmulh` instead, one instruction for four
//! lanes ([`Mont::redc_lazy`]). NEON has no non-temporal store of a whole vector worth
//! using here, so streaming stores are ordinary ones.

use crate::simd::mont::{Block, LANES, Mont};
use crate::simd::{Neon, Portable};
use core::arch::aarch64::*;
use wide::u32x16;

// SAFETY (for every `unsafe` block in this file): NEON is part of the aarch64 baseline
// every target of this crate has, and these functions run inside `multiversion!` entry
// points of level neon besides; loads and stores are of whole `[u32; 16]` arrays.

/// The four quarters of a vector.
#[inline(always)]
fn split(v: u32x16) -> [uint32x4_t; 4] {
    let a = v.to_array();
    // SAFETY: see the top of the file; each load reads 4 of the 16 values of `a`.
    unsafe { [0, 4, 8, 12].map(|i| vld1q_u32(a.as_ptr().add(i))) }
}

/// The vector of four quarters.
#[inline(always)]
fn join(q: [uint32x4_t; 4]) -> u32x16 {
    let mut a = [0u32; LANES];
    for (i, &x) in q.iter().enumerate() {
        // SAFETY: see the top of the file; each store writes 4 of the 16 values of `a`.
        unsafe { vst1q_u32(a.as_mut_ptr().add(4 * i), x) };
    }
    u32x16::from(a)
}

/// The high halves of the four 64-bit products `a[i]·b[i]`.
#[inline(always)]
fn mul_high(a: uint32x4_t, b: uint32x4_t) -> uint32x4_t {
    // SAFETY: see the top of the file.
    unsafe {
        let low = vmull_u32(vget_low_u32(a), vget_low_u32(b));
        let high = vmull_high_u32(a, b);
        vuzp2q_u32(vreinterpretq_u32_u64(low), vreinterpretq_u32_u64(high))
    }
}

impl Mont for Neon {
    type V = u32x16;
    type Upper = ();
    /// 8 logical vectors are 64 of the 32 quarter registers with their bases; 4 keep the
    /// accumulators (16 registers) and room for the products' temporaries.
    const POW_GROUP: usize = 4;
    /// Eight vectors are the 32 quarter registers: as on AVX-512.
    const SWEEP_LEVELS: u32 = 3;

    #[inline(always)]
    fn splat(x: u32) -> u32x16 {
        Portable::splat(x)
    }
    #[inline(always)]
    fn load(a: &Block) -> u32x16 {
        Portable::load(a)
    }
    #[inline(always)]
    fn store(a: &mut Block, v: u32x16) {
        Portable::store(a, v)
    }
    #[inline(always)]
    fn add(a: u32x16, b: u32x16) -> u32x16 {
        Portable::add(a, b)
    }
    #[inline(always)]
    fn sub(a: u32x16, b: u32x16) -> u32x16 {
        Portable::sub(a, b)
    }
    #[inline(always)]
    fn min(a: u32x16, b: u32x16) -> u32x16 {
        Portable::min(a, b)
    }
    #[inline(always)]
    fn and(a: u32x16, b: u32x16) -> u32x16 {
        Portable::and(a, b)
    }
    #[inline(always)]
    fn shr1(a: u32x16) -> u32x16 {
        Portable::shr1(a)
    }
    #[inline(always)]
    fn eq(a: u32x16, b: u32x16) -> u32x16 {
        Portable::eq(a, b)
    }
    #[inline(always)]
    fn gt(a: u32x16, b: u32x16) -> u32x16 {
        Portable::gt(a, b)
    }
    #[inline(always)]
    fn select(mask: u32x16, a: u32x16, b: u32x16) -> u32x16 {
        Portable::select(mask, a, b)
    }

    #[inline(always)]
    fn redc_difference(a: u32x16, b: u32x16, p: u32x16, p_inv: u32x16) -> u32x16 {
        let (a, b, p, p_inv) = (split(a), split(b), split(p), split(p_inv));
        let mut out = a;
        for i in 0..4 {
            // SAFETY: see the top of the file.
            unsafe {
                let q = vmulq_u32(vmulq_u32(a[i], b[i]), p_inv[i]);
                out[i] = vsubq_u32(mul_high(a[i], b[i]), mul_high(q, p[i]));
            }
        }
        join(out)
    }

    /// `hi(t) + hi(m·p)` plus the carry out of the low halves (1 exactly when `lo(t)` is
    /// not 0): `vtstq` gives all ones there, which is subtracted.
    #[inline(always)]
    fn redc_additive(a: u32x16, b: u32x16, p: u32x16, neg_p_inv: u32x16) -> u32x16 {
        let (a, b, p, neg_p_inv) = (split(a), split(b), split(p), split(neg_p_inv));
        let mut out = a;
        for i in 0..4 {
            // SAFETY: see the top of the file.
            unsafe {
                let t_low = vmulq_u32(a[i], b[i]);
                let m = vmulq_u32(t_low, neg_p_inv[i]);
                let sum = vaddq_u32(mul_high(a[i], b[i]), mul_high(m, p[i]));
                out[i] = vsubq_u32(sum, vtstq_u32(t_low, t_low));
            }
        }
        join(out)
    }

    /// The same value as [`Mont::redc_additive`] from signed doubling high products.
    /// With `m = -a·b·p^-1 mod 2^32` read as a signed `m_s`, `a·b + m_s·p` is a multiple
    /// of `2^32`, so the low halves of `2·a·b` and `2·m_s·p` sum to 0 or to `2^32`, and
    /// `sqdmulh`'s high halves sum to `2r - c`, `r = (a·b + m_s·p)/2^32`, `c` the carry
    /// they lost (0 or 1). `srhadd`, a rounding halving add at full width, gives `r` in
    /// both cases. The unsigned `m` is `m_s + 2^32` where `m_s < 0`, so the additive
    /// form is `r + p` there and `r` elsewhere. Four multiplies and four other
    /// instructions per quarter, against six and five: on cores with one SIMD pipe that
    /// multiplies (Neoverse N1, Cortex-A72), that pipe binds the power sum.
    ///
    /// `a, b < 2^31` (the trait's contract) keeps them non-negative as `i32`, and
    /// `2·a·b < 2^63` keeps `sqdmulh` from saturating; `m_s = -2^31` does not saturate
    /// either (`p` is not `-2^31`).
    #[inline(always)]
    fn redc_lazy(a: u32x16, b: u32x16, p: u32x16, neg_p_inv: u32x16) -> u32x16 {
        let (a, b, p, neg_p_inv) = (split(a), split(b), split(p), split(neg_p_inv));
        let mut out = a;
        for i in 0..4 {
            // SAFETY: see the top of the file.
            unsafe {
                let (a, b, p) = (vreinterpretq_s32_u32(a[i]), vreinterpretq_s32_u32(b[i]), vreinterpretq_s32_u32(p[i]));
                let m = vmulq_s32(vmulq_s32(a, b), vreinterpretq_s32_u32(neg_p_inv[i]));
                let r = vrhaddq_s32(vqdmulhq_s32(a, b), vqdmulhq_s32(m, p));
                let p_where_negative = vandq_s32(vreinterpretq_s32_u32(vcltzq_s32(m)), p);
                out[i] = vreinterpretq_u32_s32(vaddq_s32(r, p_where_negative));
            }
        }
        join(out)
    }

    #[inline(always)]
    fn upper_lanes() {}

    #[inline(always)]
    fn in_vector_sum<const L: usize>(x: u32x16, p: u32x16, upper: ()) -> u32x16 {
        Portable::in_vector_sum::<L>(x, p, upper)
    }

    #[inline(always)]
    fn transpose(rows: &mut [u32x16; LANES]) {
        Portable::transpose(rows)
    }

    #[inline(always)]
    fn stream_store(dst: &mut Block, v: u32x16) {
        Portable::stream_store(dst, v)
    }

    #[inline(always)]
    fn store_fence() {}
}
