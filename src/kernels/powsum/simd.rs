//! Sixteen values per vector, a group of vectors at a time: the shared exponent's plan
//! (its factors, see [`PowerPlan`]) drives one square-and-multiply loop for all the
//! group's values.

use super::{PowerPlan, plain_power_correction};
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
    let plan = PowerPlan::for_power_mod(s, p);
    finish(&mont, plain_power_sum_lanes_generic::<B>(values, p, &plan), &plan)
}

crate::multiversion! {
    /// `Σ x^e·R^-(e-1) mod p` over `values` (see [`super::plain_power_correction`]),
    /// `e` the exponent of `plan`, on `simd`'s backend. The shared building block of the
    /// single- and multi-threaded variants and of the fused cards pipeline.
    pub fn plain_power_sum_lanes(values: &[u32], p: u32, plan: &PowerPlan) -> u32 => plain_power_sum_lanes_generic;
}

#[inline(always)]
fn plain_power_sum_lanes_generic<B: Mont>(values: &[u32], p: u32, plan: &PowerPlan) -> u32 {
    let lanes = ModLanes::<B>::new(p).expect("the caller checked p");
    // A constant per backend: the other arms are compiled out.
    match B::POW_GROUP {
        2 => power_sum::<B, 2>(&lanes, values, plan),
        4 => power_sum::<B, 4>(&lanes, values, plan),
        _ => power_sum::<B, 8>(&lanes, values, plan),
    }
}

crate::multiversion! {
    /// `Σ_i x_i^e·R^-(e-1) + (x_i - 2·y_i)^e·R^-(e-1) mod p` over residues `x_i = a[i]`,
    /// `y_i = b[i]` below `p` (`a` and `b` of one length), `e` the exponent of `plan`, on
    /// `simd`'s backend: the power sum of the folded transform, whose upper half `A - 2H`
    /// is made in registers from its two inputs instead of written out and read back
    /// (docs/theory/cards.md §10.1).
    pub fn paired_power_sum_lanes(a: &[u32], b: &[u32], p: u32, plan: &PowerPlan) -> u32 => paired_power_sum_lanes_generic;
}

#[inline(always)]
fn paired_power_sum_lanes_generic<B: Mont>(a: &[u32], b: &[u32], p: u32, plan: &PowerPlan) -> u32 {
    let lanes = ModLanes::<B>::new(p).expect("the caller checked p");
    // Half of each group is `x`, the other half `x - 2y`: the group stays the backend's size.
    match B::POW_GROUP {
        2 => paired_power_sum::<B, 2, 1>(&lanes, a, b, plan),
        4 => paired_power_sum::<B, 4, 2>(&lanes, a, b, plan),
        _ => paired_power_sum::<B, 8, 4>(&lanes, a, b, plan),
    }
}

/// [`paired_power_sum_lanes`] in groups of `G = 2·H` vectors: `H` vectors of `x`, then
/// the `H` vectors `x - 2y` of the same positions.
#[inline(always)]
fn paired_power_sum<B: Mont, const G: usize, const H: usize>(
    lanes: &ModLanes<B>,
    a: &[u32],
    b: &[u32],
    plan: &PowerPlan,
) -> u32 {
    const { assert!(G == 2 * H) };
    assert_eq!(a.len(), b.len(), "paired power sum: x and y differ in length");
    let (a_vectors, a_rest) = a.as_chunks::<LANES>();
    let (b_vectors, b_rest) = b.as_chunks::<LANES>();
    let (a_groups, a_partial) = a_vectors.as_chunks::<H>();
    let (b_groups, b_partial) = b_vectors.as_chunks::<H>();
    let mut acc = B::splat(0);
    for (xs, ys) in a_groups.iter().zip(b_groups) {
        acc = lanes.add(acc, power_group::<B, G>(lanes, pair_bases::<B, G, H>(lanes, xs, ys), plan));
    }
    if !a_partial.is_empty() || !a_rest.is_empty() {
        // Zero padding adds nothing: 0 - 2·0 = 0 and 0^e = 0 for e >= 1.
        let (mut xs, mut ys) = ([[0u32; LANES]; H], [[0u32; LANES]; H]);
        xs[..a_partial.len()].copy_from_slice(a_partial);
        ys[..b_partial.len()].copy_from_slice(b_partial);
        xs[a_partial.len()][..a_rest.len()].copy_from_slice(a_rest);
        ys[b_partial.len()][..b_rest.len()].copy_from_slice(b_rest);
        acc = lanes.add(acc, power_group::<B, G>(lanes, pair_bases::<B, G, H>(lanes, &xs, &ys), plan));
    }
    lanes.sum(acc)
}

/// The bases of one paired group: `x` in the first `H` vectors, `x - 2y` in the others.
/// Functions, not closures, so that they inline into the entry point (see [`chain`]).
#[inline(always)]
fn pair_bases<B: Mont, const G: usize, const H: usize>(
    lanes: &ModLanes<B>,
    xs: &[Block; H],
    ys: &[Block; H],
) -> [B::V; G] {
    let mut bases = [B::splat(0); G];
    for i in 0..H {
        let (x, y) = (B::load(&xs[i]), B::load(&ys[i]));
        bases[i] = x;
        bases[H + i] = lanes.sub(lanes.sub(x, y), y);
    }
    bases
}

/// One group of vectors, loaded.
#[inline(always)]
fn load_group<B: Mont, const G: usize>(group: &[Block; G]) -> [B::V; G] {
    let mut bases = [B::splat(0); G];
    for (b, v) in bases.iter_mut().zip(group) {
        *b = B::load(v);
    }
    bases
}

/// [`plain_power_sum_lanes`] in groups of `G` vectors.
#[inline(always)]
fn power_sum<B: Mont, const G: usize>(lanes: &ModLanes<B>, values: &[u32], plan: &PowerPlan) -> u32 {
    let (vectors, rest) = values.as_chunks::<LANES>();
    let (groups, partial) = vectors.as_chunks::<G>();
    let mut acc = B::splat(0);
    for group in groups {
        acc = lanes.add(acc, power_group::<B, G>(lanes, load_group::<B, G>(group), plan));
    }
    if !partial.is_empty() || !rest.is_empty() {
        // Zero padding adds nothing: 0^e = 0 for e >= 1.
        let mut padded = [[0u32; LANES]; G];
        padded[..partial.len()].copy_from_slice(partial);
        padded[partial.len()][..rest.len()].copy_from_slice(rest);
        acc = lanes.add(acc, power_group::<B, G>(lanes, load_group::<B, G>(&padded), plan));
    }
    lanes.sum(acc)
}

/// The lane-wise sum of `x^e·R^-(e-1)` over one group of `G` vectors: with lazy
/// products (values below `2p`, reduced once at the end) when `p < 2^30`.
#[inline(always)]
fn power_group<B: Mont, const G: usize>(lanes: &ModLanes<B>, bases: [B::V; G], plan: &PowerPlan) -> B::V {
    let mut acc = B::splat(0);
    for v in group_power::<B, G>(lanes, bases, plan) {
        acc = lanes.add(acc, v);
    }
    acc
}

/// The powers of one group of residues below `p`, reduced, by [`chain`]'s runs of
/// square-and-multiply.
#[inline(always)]
fn group_power<B: Mont, const G: usize>(lanes: &ModLanes<B>, bases: [B::V; G], plan: &PowerPlan) -> [B::V; G] {
    let powers = if lanes.lazy_ok() {
        chain::<B, G, true>(lanes, bases, plan)
    } else {
        chain::<B, G, false>(lanes, bases, plan)
    };
    let mut out = [B::splat(0); G];
    for (o, w) in out.iter_mut().zip(powers) {
        // Lazy results are below 2p; reduced ones below p, which this leaves alone.
        *o = lanes.reduce_2p(w);
    }
    out
}

/// `G` independent vectors raised by `plan`: a left-to-right square-and-multiply over the
/// bits of each factor in turn, whose base is the result of the run before (`x^(ab) =
/// (x^a)^b`), in one loop over the plan's flattened steps, with lazy products if `LAZY` (as [`ModLanes::pow_lazy`] and
/// [`ModLanes::pow`]). Lazy values below `2p` stay valid bases: a product of two is below
/// `4p^2 < p·2^32` when `p < 2^30`. The links of each step are written out for the group
/// sizes of [`GROUPS`]: the loop over an array of accumulators in `pow` kept them in
/// memory on AVX2, two loads and two stores per product. The product is a method, not a
/// closure: a closure is not `#[inline(always)]`, and one was compiled out of line at the
/// baseline.
///
/// Why the even and odd lanes are not kept apart between products (which would save
/// the shifts and the blend of each product): LLVM then drops the 32-bit masks of
/// `vpmuludq` across the loop's back edge and multiplies full 64-bit lanes instead
/// (`vpsllq`/`vpaddq` sequences, measured: slower than this form).
#[inline(always)]
fn chain<B: Mont, const G: usize, const LAZY: bool>(lanes: &ModLanes<B>, x: [B::V; G], plan: &PowerPlan) -> [B::V; G] {
    macro_rules! steps {
        ($($i:tt)*) => {{
            let (mut acc, mut base) = (x, x);
            for step in 0..plan.steps() {
                if plan.rebases(step) {
                    base = acc;
                }
                $(acc[$i] = lanes.mul_as::<LAZY>(acc[$i], acc[$i]);)*
                if plan.multiplies(step) {
                    $(acc[$i] = lanes.mul_as::<LAZY>(acc[$i], base[$i]);)*
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

/// Turns a sum of plain-input powers into `Σ x^e mod p`, `e` the exponent of `plan`.
pub fn finish(mont: &Montgomery32, plain_sum: u32, plan: &PowerPlan) -> u32 {
    mont.mul(plain_sum, plain_power_correction(mont, plan.exponent()))
}
