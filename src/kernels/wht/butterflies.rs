//! The lane building blocks of the fast transforms: one butterfly on sixteen pairs at a
//! time, the four levels that pair lanes inside one vector, butterflies of `N` vectors
//! held in registers, and the sweep that applies up to three levels per pass over a slice.
//!
//! Levels are numbered by the index bit they pair: element level `l` pairs `i` and
//! `i + 2^l`. With sixteen lanes per vector, levels 0–3 pair lanes of the same vector
//! ("in-vector" levels) and level `l >= 4` pairs whole vectors `2^(l-4)` apart ("vector
//! level" `l - 4`). All values stay residues in `[0, p)` (see [`crate::arith::lanes`]).

use crate::arith::{LANES, ModLanes};
use crate::simd::mont::Mont;

pub use crate::simd::mont::Block as Vector;

/// Most vector levels one sweep applies on any backend: `2^3` vectors in registers
/// (each backend's own limit is [`Mont::SWEEP_LEVELS`]).
pub const MAX_SWEEP_LEVELS: u32 = 3;

#[inline(always)]
fn load<B: Mont>(v: &Vector) -> B::V {
    B::load(v)
}

#[inline(always)]
fn store<B: Mont>(v: &mut Vector, x: B::V) {
    B::store(v, x)
}

/// `(a, b) -> (a + b, a - b) mod p`, lane by lane.
#[inline(always)]
pub fn butterfly<B: Mont>(lanes: &ModLanes<B>, a: B::V, b: B::V) -> (B::V, B::V) {
    (lanes.add(a, b), lanes.sub(a, b))
}

/// Sets of in-vector levels, bit `L` standing for level `L`: the values the `IN_VECTOR`
/// parameters below take. Any split works, the levels commute.
pub mod lane_levels {
    /// None.
    pub const NONE: u32 = 0;
    /// Levels 0 and 1 (strides 1 and 2).
    pub const LOW: u32 = 0b0011;
    /// Levels 2 and 3 (strides 4 and 8).
    pub const HIGH: u32 = 0b1100;
    /// All four: the sixteen lanes' own transform.
    pub const ALL: u32 = 0b1111;
}

/// The in-vector levels in the set `IN_VECTOR` (see [`lane_levels`]) of one vector;
/// `upper` is the backend's [`Mont::upper_lanes`].
#[inline(always)]
pub fn in_vector_levels<B: Mont, const IN_VECTOR: u32>(lanes: &ModLanes<B>, upper: B::Upper, mut x: B::V) -> B::V {
    if IN_VECTOR & 1 != 0 {
        x = in_vector_level::<B, 0>(lanes, upper, x);
    }
    if IN_VECTOR & 2 != 0 {
        x = in_vector_level::<B, 1>(lanes, upper, x);
    }
    if IN_VECTOR & 4 != 0 {
        x = in_vector_level::<B, 2>(lanes, upper, x);
    }
    if IN_VECTOR & 8 != 0 {
        x = in_vector_level::<B, 3>(lanes, upper, x);
    }
    x
}

/// In-vector level `L < 4` of one vector.
///
/// Lane `i` with bit `L` clear holds `u` and must become `u + v`; its partner `i ^ 2^L`
/// holds `v` and must become `u - v`. Both are `partner ± self`: the upper lanes replace
/// their own value `x` by `p - x` (in `[1, p]`), so every lane adds two numbers whose sum
/// is below `2p` ([`Mont::in_vector_sum`]), and one conditional subtraction finishes.
#[inline(always)]
fn in_vector_level<B: Mont, const L: usize>(lanes: &ModLanes<B>, upper: B::Upper, x: B::V) -> B::V {
    lanes.reduce_2p(B::in_vector_sum::<L>(x, lanes.p(), upper))
}

/// All `log2 N` levels of butterflies among `N` vectors held in registers (`N` a power of
/// two up to 16): vector `j` pairs with `j + h` for `h = 1, 2, .., N/2`.
#[inline(always)]
pub fn radix<B: Mont, const N: usize>(lanes: &ModLanes<B>, x: &mut [B::V; N]) {
    let mut h = 1;
    while h < N {
        for j in 0..N {
            if j & h == 0 {
                (x[j], x[j + h]) = butterfly(lanes, x[j], x[j + h]);
            }
        }
        h *= 2;
    }
}

/// Applies vector levels `lo..hi` to `v` in sweeps of at most [`Mont::SWEEP_LEVELS`], and
/// the in-vector levels of the set `in_vector` (one of [`lane_levels`]) to every vector
/// as the first sweep loads it (or in a sweep of their own when `lo == hi`). `v.len()`
/// must be a multiple of `2^hi`.
#[inline(always)]
pub fn sweep_levels<B: Mont>(lanes: &ModLanes<B>, v: &mut [Vector], lo: u32, hi: u32, mut in_vector: u32) {
    use lane_levels::{ALL, HIGH, LOW, NONE};
    debug_assert!(v.len().is_multiple_of(1 << hi) && [NONE, LOW, HIGH, ALL].contains(&in_vector));
    if lo == hi {
        match in_vector {
            NONE => {}
            LOW => in_vector_sweep::<B, LOW>(lanes, v),
            HIGH => in_vector_sweep::<B, HIGH>(lanes, v),
            _ => in_vector_sweep::<B, ALL>(lanes, v),
        }
        return;
    }
    let mut level = lo;
    while level < hi {
        // Spread the levels evenly: 5 levels as 3 + 2 rather than 4 + 1.
        let sweeps_left = (hi - level).div_ceil(B::SWEEP_LEVELS.min(MAX_SWEEP_LEVELS));
        let count = (hi - level).div_ceil(sweeps_left);
        match count {
            1 => sweep_with::<B, 2>(lanes, v, level, in_vector),
            2 => sweep_with::<B, 4>(lanes, v, level, in_vector),
            _ => sweep_with::<B, 8>(lanes, v, level, in_vector),
        }
        level += count;
        in_vector = NONE;
    }
}

/// The in-vector levels of the set `IN_VECTOR` on every vector of `v`, in a sweep of
/// their own.
#[inline(always)]
fn in_vector_sweep<B: Mont, const IN_VECTOR: u32>(lanes: &ModLanes<B>, v: &mut [Vector]) {
    let lanes = *lanes;
    let upper = B::upper_lanes();
    for x in v.iter_mut() {
        store::<B>(x, in_vector_levels::<B, IN_VECTOR>(&lanes, upper, load::<B>(x)));
    }
}

/// [`sweep`] with its set of in-vector levels chosen at run time.
#[inline(always)]
fn sweep_with<B: Mont, const N: usize>(lanes: &ModLanes<B>, v: &mut [Vector], level: u32, in_vector: u32) {
    use lane_levels::{ALL, HIGH, LOW, NONE};
    match in_vector {
        NONE => sweep::<B, N, NONE>(lanes, v, level),
        LOW => sweep::<B, N, LOW>(lanes, v, level),
        HIGH => sweep::<B, N, HIGH>(lanes, v, level),
        _ => sweep::<B, N, ALL>(lanes, v, level),
    }
}

/// One sweep: vector levels `level..level + log2 N`, `N` vectors `2^level` apart in
/// registers at a time, after the in-vector levels of the set `IN_VECTOR` on each.
#[inline(always)]
fn sweep<B: Mont, const N: usize, const IN_VECTOR: u32>(lanes: &ModLanes<B>, v: &mut [Vector], level: u32) {
    // A local copy: the modulus stays in a register rather than being reloaded after
    // every store through `v`.
    let lanes = *lanes;
    let upper = B::upper_lanes();
    let stride = 1usize << level;
    for block in v.chunks_exact_mut(N * stride) {
        for offset in 0..stride {
            let mut x: [B::V; N] = [B::splat(0); N];
            for (j, xj) in x.iter_mut().enumerate() {
                *xj = in_vector_levels::<B, IN_VECTOR>(&lanes, upper, load::<B>(&block[offset + j * stride]));
            }
            radix(&lanes, &mut x);
            for (j, &xj) in x.iter().enumerate() {
                store::<B>(&mut block[offset + j * stride], xj);
            }
        }
    }
}

/// The whole slice as vectors. `data.len()` must be a multiple of 16.
#[inline(always)]
pub fn as_vectors(data: &mut [u32]) -> &mut [Vector] {
    let len = data.len();
    let (vectors, rest) = data.as_chunks_mut::<LANES>();
    debug_assert!(rest.is_empty(), "length {len} is not a multiple of {LANES}");
    vectors
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SplitMix64;
    use crate::kernels::wht::wht_reference;
    use crate::simd::{Portable, Simd};
    use wide::u32x16;

    #[test]
    fn in_vector_levels_equal_the_transform_of_sixteen() {
        for p in [3u32, 1_000_000_007, 2_147_483_647] {
            let lanes = ModLanes::<Portable>::new(p).unwrap();
            let mut rng = SplitMix64(p as u64);
            let edges = [0, 1, p - 1, p - 2];
            for round in 0..50 {
                let input: Vector =
                    std::array::from_fn(
                        |i| {
                            if round < 4 { edges[(i + round) % 4] } else { rng.below(p as u64) as u32 }
                        },
                    );
                let upper = ();
                let got =
                    in_vector_levels::<Portable, { lane_levels::ALL }>(&lanes, upper, u32x16::from(input)).to_array();
                let low = in_vector_levels::<Portable, { lane_levels::LOW }>(&lanes, upper, u32x16::from(input));
                let split = in_vector_levels::<Portable, { lane_levels::HIGH }>(&lanes, upper, low).to_array();
                assert_eq!(split, got, "levels 0-1 then 2-3, p={p} input {input:?}");
                assert_eq!(got.to_vec(), wht_reference(&input, p), "p={p} input {input:?}");
            }
        }
    }

    #[inline(always)]
    fn sweep_levels_generic<B: Mont>(v: &mut [Vector], p: u32, lo: u32, hi: u32, in_vector: u32) {
        sweep_levels(&ModLanes::<B>::new(p).unwrap(), v, lo, hi, in_vector)
    }

    crate::multiversion! {
        fn sweep_levels_on(v: &mut [Vector], p: u32, lo: u32, hi: u32, in_vector: u32) => sweep_levels_generic;
    }

    #[test]
    fn sweeps_of_every_width_equal_the_definition() {
        for simd in Simd::tested() {
            sweeps_of_every_width_equal_the_definition_on(simd);
        }
    }

    fn sweeps_of_every_width_equal_the_definition_on(simd: Simd) {
        let p = 1_000_000_007u32;
        let mut rng = SplitMix64(5);
        // 2^10 elements = 64 vectors: every split of the 6 vector levels into sweeps.
        for (lo, hi) in [(0, 6), (0, 1), (1, 3), (2, 5), (0, 4), (3, 6), (5, 6)] {
            let input: Vec<u32> = (0..1024).map(|_| rng.below(p as u64) as u32).collect();
            let mut got = input.clone();
            sweep_levels_on(simd, as_vectors(&mut got), p, lo, hi, lane_levels::ALL);
            // The same levels one at a time with the scalar butterfly.
            let mut expected = input;
            let levels = (0..4).chain(lo + 4..hi + 4);
            for l in levels {
                let half = 1 << l;
                for block in expected.chunks_exact_mut(2 * half) {
                    let (a, b) = block.split_at_mut(half);
                    for (u, v) in a.iter_mut().zip(b) {
                        let (x, y) = (*u as u64, *v as u64);
                        (*u, *v) = (((x + y) % p as u64) as u32, ((x + p as u64 - y) % p as u64) as u32);
                    }
                }
            }
            assert_eq!(got, expected, "{simd}: levels {lo}..{hi}");
        }
    }
}
