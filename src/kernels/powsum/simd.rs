//! Sixteen values per vector, [`GROUP`] vectors at a time: the bits of the shared
//! exponent drive one square-and-multiply loop for all `16·GROUP` values.

use super::{plain_power_correction, reduced_exponent};
use crate::arith::{LANES, ModLanes};
use wide::u32x16;

/// Vectors powered together. A Montgomery product is a chain of three dependent
/// multiplies (about 15 cycles of latency) but issues in a few cycles, so several
/// independent vectors must be in flight; 8 bases and 8 accumulators still fit the 32
/// vector registers of AVX-512 beside the constants.
pub const GROUP: usize = 8;

/// Values per group.
const GROUP_VALUES: usize = LANES * GROUP;

/// `Σ x^s mod p` for residues `x < p`, `p` an odd prime below 2^31, `s >= 1`.
pub fn powsum_simd(values: &[u32], s: u64, p: u32) -> u32 {
    let lanes = ModLanes::new(p).expect("the caller checked p");
    let e = reduced_exponent(s, p);
    finish(&lanes, plain_power_sum_lanes(&lanes, values, e), e)
}

/// `Σ x^e·R^-(e-1) mod p` over `values` (see [`super::plain_power_correction`]), `e >= 1`.
/// The shared building block of the single- and multi-threaded variants.
pub fn plain_power_sum_lanes(lanes: &ModLanes, values: &[u32], e: u64) -> u32 {
    debug_assert!(e >= 1);
    let (groups, rest) = values.as_chunks::<GROUP_VALUES>();
    let mut acc = u32x16::ZERO;
    for group in groups {
        acc = lanes.add(acc, power_group(lanes, group, e));
    }
    if !rest.is_empty() {
        // Zero padding adds nothing: 0^e = 0 for e >= 1.
        let mut padded = [0u32; GROUP_VALUES];
        padded[..rest.len()].copy_from_slice(rest);
        acc = lanes.add(acc, power_group(lanes, &padded, e));
    }
    lanes.sum(acc)
}

/// The lane-wise sum of `x^e·R^-(e-1)` over one group of values: with lazy products
/// (values below `2p`, reduced once at the end) when `p < 2^30`.
#[inline(always)]
fn power_group(lanes: &ModLanes, group: &[u32; GROUP_VALUES], e: u64) -> u32x16 {
    let vectors = group.as_chunks::<LANES>().0;
    let bases: [u32x16; GROUP] = std::array::from_fn(|i| u32x16::from(vectors[i]));
    let powers =
        if lanes.lazy_ok() { lanes.pow_lazy(bases, e).map(|v| lanes.reduce_2p(v)) } else { lanes.pow(bases, e) };
    powers.into_iter().fold(u32x16::ZERO, |acc, v| lanes.add(acc, v))
}

/// Turns a sum of plain-input powers into `Σ x^e mod p`.
pub fn finish(lanes: &ModLanes, plain_sum: u32, e: u64) -> u32 {
    lanes.scalar().mul(plain_sum, plain_power_correction(lanes.scalar(), e))
}
