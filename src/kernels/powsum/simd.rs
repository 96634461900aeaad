//! Sixteen values per vector, a group of vectors at a time: the bits of the shared
//! exponent drive one square-and-multiply loop for all the group's values.

use super::{plain_power_correction, reduced_exponent};
use crate::arith::{LANES, ModLanes, Montgomery32};
use crate::simd::mont::{Block, Mont};

/// The group sizes a backend may ask for ([`Mont::POW_GROUP`]): vectors powered together.
/// A Montgomery product is a chain of three dependent multiplies (about 15 cycles of
/// latency) but occupies its ports for only a few, so several independent vectors must
/// be in flight; how many fit beside their bases depends on the register file (8 with
/// AVX-512's 32 registers, 4 with AVX2's 16).
pub const GROUPS: [usize; 3] = [2, 4, 8];

crate::multiversion! {
    /// `Σ x^s mod p` for residues `x < p`, `p` an odd prime below 2^31, `s >= 1`, on
    /// `simd`'s backend.
    pub fn powsum_simd(values: &[u32], s: u64, p: u32) -> u32 => powsum_simd_generic;
}

#[inline(always)]
fn powsum_simd_generic<B: Mont>(values: &[u32], s: u64, p: u32) -> u32 {
    let mont = Montgomery32::new(p as u64).expect("the caller checked p");
    let e = reduced_exponent(s, p);
    finish(&mont, plain_power_sum_lanes_generic::<B>(values, p, e), e)
}

crate::multiversion! {
    /// `Σ x^e·R^-(e-1) mod p` over `values` (see [`super::plain_power_correction`]),
    /// `e >= 1`, on `simd`'s backend. The shared building block of the single- and
    /// multi-threaded variants and of the fused cards pipeline.
    pub fn plain_power_sum_lanes(values: &[u32], p: u32, e: u64) -> u32 => plain_power_sum_lanes_generic;
}

#[inline(always)]
fn plain_power_sum_lanes_generic<B: Mont>(values: &[u32], p: u32, e: u64) -> u32 {
    let lanes = ModLanes::<B>::new(p).expect("the caller checked p");
    // A constant per backend: the other arms are compiled out.
    match B::POW_GROUP {
        2 => power_sum::<B, 2>(&lanes, values, e),
        4 => power_sum::<B, 4>(&lanes, values, e),
        _ => power_sum::<B, 8>(&lanes, values, e),
    }
}

/// [`plain_power_sum_lanes`] in groups of `G` vectors.
#[inline(always)]
fn power_sum<B: Mont, const G: usize>(lanes: &ModLanes<B>, values: &[u32], e: u64) -> u32 {
    debug_assert!(e >= 1);
    let (vectors, rest) = values.as_chunks::<LANES>();
    let (groups, partial) = vectors.as_chunks::<G>();
    let mut acc = B::splat(0);
    for group in groups {
        acc = lanes.add(acc, power_group::<B, G>(lanes, group, e));
    }
    if !partial.is_empty() || !rest.is_empty() {
        // Zero padding adds nothing: 0^e = 0 for e >= 1.
        let mut padded = [[0u32; LANES]; G];
        padded[..partial.len()].copy_from_slice(partial);
        padded[partial.len()][..rest.len()].copy_from_slice(rest);
        acc = lanes.add(acc, power_group::<B, G>(lanes, &padded, e));
    }
    lanes.sum(acc)
}

/// The lane-wise sum of `x^e·R^-(e-1)` over one group of `G` vectors: with lazy
/// products (values below `2p`, reduced once at the end) when `p < 2^30`.
#[inline(always)]
fn power_group<B: Mont, const G: usize>(lanes: &ModLanes<B>, group: &[Block; G], e: u64) -> B::V {
    let mut acc = B::splat(0);
    for v in group_power::<B, G>(lanes, group, e) {
        acc = lanes.add(acc, v);
    }
    acc
}

/// The powers of one group, reduced, by [`chain`]'s square-and-multiply.
#[inline(always)]
fn group_power<B: Mont, const G: usize>(lanes: &ModLanes<B>, group: &[Block; G], e: u64) -> [B::V; G] {
    let mut bases = [B::splat(0); G];
    for (b, v) in bases.iter_mut().zip(group) {
        *b = B::load(v);
    }
    let powers =
        if lanes.lazy_ok() { chain::<B, G, true>(lanes, bases, e) } else { chain::<B, G, false>(lanes, bases, e) };
    let mut out = [B::splat(0); G];
    for (o, w) in out.iter_mut().zip(powers) {
        // Lazy results are below 2p; reduced ones below p, which this leaves alone.
        *o = lanes.reduce_2p(w);
    }
    out
}

/// Left-to-right square-and-multiply of `G` independent vectors by the bits of `e >= 1`,
/// with lazy products if `LAZY` (as [`ModLanes::pow_lazy`] and [`ModLanes::pow`]). The
/// links of each step are written out for the group sizes of [`GROUPS`]: the loop over
/// an array of accumulators in `pow` kept them in memory on AVX2, two loads and two
/// stores per product. The product is a method, not a closure: a closure is not
/// `#[inline(always)]`, and one was compiled out of line at the baseline.
///
/// Why the even and odd lanes are not kept apart between products (which would save
/// the shifts and the blend of each product): LLVM then drops the 32-bit masks of
/// `vpmuludq` across the loop's back edge and multiplies full 64-bit lanes instead
/// (`vpsllq`/`vpaddq` sequences, measured: slower than this form).
#[inline(always)]
fn chain<B: Mont, const G: usize, const LAZY: bool>(lanes: &ModLanes<B>, x: [B::V; G], e: u64) -> [B::V; G] {
    macro_rules! steps {
        ($($i:tt)*) => {{
            let mut acc = x;
            for bit in (0..63 - e.leading_zeros()).rev() {
                $(acc[$i] = lanes.mul_as::<LAZY>(acc[$i], acc[$i]);)*
                if e >> bit & 1 == 1 {
                    $(acc[$i] = lanes.mul_as::<LAZY>(acc[$i], x[$i]);)*
                }
            }
            acc
        }};
    }
    match G {
        2 => steps!(0 1),
        4 => steps!(0 1 2 3),
        8 => steps!(0 1 2 3 4 5 6 7),
        _ => unreachable!("group sizes are those of GROUPS"),
    }
}

/// Turns a sum of plain-input powers into `Σ x^e mod p`.
pub fn finish(mont: &Montgomery32, plain_sum: u32, e: u64) -> u32 {
    mont.mul(plain_sum, plain_power_correction(mont, e))
}
