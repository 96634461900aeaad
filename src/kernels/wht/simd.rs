//! Level by level like the scalar transform, but sixteen butterflies per instruction:
//! each level is one pass over the whole array, so a 2^24 transform streams the array
//! through memory 20 times (levels 0–3 pair lanes inside vectors and share one pass).

use super::butterflies::{as_vectors, lane_levels, sweep_levels};
use super::wht_scalar;
use crate::arith::{LANES, ModLanes};
use crate::simd::mont::Mont;

crate::multiversion! {
    /// Walsh–Hadamard transform of `data` (length a power of two, residues below `p`) on
    /// `simd`'s backend.
    pub fn wht_simd(data: &mut [u32], p: u32) => wht_simd_generic;
}

#[inline(always)]
fn wht_simd_generic<B: Mont>(data: &mut [u32], p: u32) {
    if data.len() < LANES {
        return wht_scalar(data, p);
    }
    let lanes = ModLanes::<B>::new(p).expect("the caller checked p");
    let vector_levels = data.len().trailing_zeros() - LANES.trailing_zeros();
    let vectors = as_vectors(data);
    sweep_levels(&lanes, vectors, 0, 0, lane_levels::ALL);
    for level in 0..vector_levels {
        sweep_levels(&lanes, vectors, level, level + 1, lane_levels::NONE);
    }
}
