//! The lane building blocks of the fast transforms: one butterfly on sixteen pairs at a
//! time, the four levels that pair lanes inside one vector, butterflies of `N` vectors
//! held in registers, and the sweep that applies up to three levels per pass over a slice.
//!
//! Levels are numbered by the index bit they pair: element level `l` pairs `i` and
//! `i + 2^l`. With sixteen lanes per vector, levels 0–3 pair lanes of the same vector
//! ("in-vector" levels) and level `l >= 4` pairs whole vectors `2^(l-4)` apart ("vector
//! level" `l - 4`). All values stay residues in `[0, p)` (see [`crate::arith::lanes`]).

use crate::arith::{LANES, ModLanes};
use wide::u32x16;

/// Sixteen residues as stored in a slice. Loads and stores go through `[u32; 16]` so the
/// kernels accept any `&mut [u32]`, aligned or not, without `unsafe`.
pub type Vector = [u32; LANES];

/// Most vector levels one sweep applies: `2^3` vectors in registers. Sixteen would fit
/// AVX-512's 32 registers on paper, but the compiler then spills (measured: 1.35 ns per
/// vector and level against 0.49 for eight).
pub const MAX_SWEEP_LEVELS: u32 = 3;

#[inline(always)]
fn load(v: &Vector) -> u32x16 {
    u32x16::from(*v)
}

#[inline(always)]
fn store(v: &mut Vector, x: u32x16) {
    *v = x.to_array();
}

/// `(a, b) -> (a + b, a - b) mod p`, lane by lane.
#[inline(always)]
pub fn butterfly(lanes: &ModLanes, a: u32x16, b: u32x16) -> (u32x16, u32x16) {
    (lanes.add(a, b), lanes.sub(a, b))
}

/// The lanes that each in-vector level `L` negates (those with bit `L` of the lane index
/// set), as AVX-512 mask registers.
///
/// Why not constants: with constant masks LLVM rewrites some masked subtractions as blends
/// made of shuffles (`vshufps`, `vshufi64x2`), two more shuffles per vector that compete
/// with the partner shuffles. Hidden behind [`std::hint::black_box`] once per sweep, the
/// masks stay in mask registers and each level stays one shuffle and four arithmetic
/// operations.
#[derive(Clone, Copy, Debug)]
pub struct UpperLanes([u16; 4]);

impl UpperLanes {
    /// The four masks, opaque to the optimiser.
    #[inline(always)]
    pub fn new() -> Self {
        Self(std::hint::black_box([0xAAAA, 0xCCCC, 0xF0F0, 0xFF00]))
    }
}

impl Default for UpperLanes {
    fn default() -> Self {
        Self::new()
    }
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

/// The in-vector levels in the set `IN_VECTOR` (see [`lane_levels`]) of one vector.
#[inline(always)]
pub fn in_vector_levels<const IN_VECTOR: u32>(lanes: &ModLanes, upper: UpperLanes, mut x: u32x16) -> u32x16 {
    if IN_VECTOR & 1 != 0 {
        x = in_vector_level::<0>(lanes, upper.0[0], x);
    }
    if IN_VECTOR & 2 != 0 {
        x = in_vector_level::<1>(lanes, upper.0[1], x);
    }
    if IN_VECTOR & 4 != 0 {
        x = in_vector_level::<2>(lanes, upper.0[2], x);
    }
    if IN_VECTOR & 8 != 0 {
        x = in_vector_level::<3>(lanes, upper.0[3], x);
    }
    x
}

/// In-vector level `L < 4` of one vector; `upper` has bit `i` set for the lanes `i` with
/// bit `L` set.
///
/// Lane `i` with bit `L` clear holds `u` and must become `u + v`; its partner `i ^ 2^L`
/// holds `v` and must become `u - v`. Both are `partner ± self`: the upper lanes replace
/// their own value `x` by `p - x` (in `[1, p]`), so every lane adds two numbers whose sum
/// is below `2p`, and one conditional subtraction finishes.
#[inline(always)]
fn in_vector_level<const L: usize>(lanes: &ModLanes, upper: u16, x: u32x16) -> u32x16 {
    let s = in_vector_sum::<L>(lanes.p(), upper, x);
    s.min(s - lanes.p())
}

/// `partner + (x or p - x)` for in-vector level `L`, with AVX-512: the partner comes from
/// an immediate shuffle (in-lane `vpshufd` for strides 1 and 2, `vshufi64x2` for 4 and
/// 8, cheaper than a general permute) and `p - x` from one masked subtraction.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
#[inline(always)]
fn in_vector_sum<const L: usize>(p: u32x16, upper: u16, x: u32x16) -> u32x16 {
    // SAFETY: compiled only when the build enables avx512f (the cfg above).
    unsafe { in_vector_sum_avx512::<L>(p, upper, x) }
}

/// The AVX-512 body of [`in_vector_sum`].
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
#[target_feature(enable = "avx512f")]
#[inline]
fn in_vector_sum_avx512<const L: usize>(p: u32x16, upper: u16, x: u32x16) -> u32x16 {
    use core::arch::x86_64::{
        __m512i, _MM_PERM_BADC, _MM_PERM_CDAB, _mm512_add_epi32, _mm512_mask_sub_epi32, _mm512_shuffle_epi32,
        _mm512_shuffle_i64x2,
    };
    let (xv, pv) = (__m512i::from(x), __m512i::from(p));
    let partner = match L {
        0 => _mm512_shuffle_epi32::<_MM_PERM_CDAB>(xv),
        1 => _mm512_shuffle_epi32::<_MM_PERM_BADC>(xv),
        2 => _mm512_shuffle_i64x2::<0b10_11_00_01>(xv, xv),
        _ => _mm512_shuffle_i64x2::<0b01_00_11_10>(xv, xv),
    };
    let signed = _mm512_mask_sub_epi32(xv, upper, pv, xv);
    u32x16::from(_mm512_add_epi32(partner, signed))
}

/// The portable form: a permute by constant indices, and `p - x` as `!x + p + 1`
/// (which is `p - x` modulo 2^32) in the upper lanes (the masks serve AVX-512 only).
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
#[inline(always)]
fn in_vector_sum<const L: usize>(p: u32x16, _upper: u16, x: u32x16) -> u32x16 {
    let partner = u32x16::from(std::array::from_fn::<u32, LANES, _>(|i| (i ^ (1 << L)) as u32));
    let upper = u32x16::from(std::array::from_fn::<u32, LANES, _>(|i| if i >> L & 1 == 1 { u32::MAX } else { 0 }));
    x.shuffle(partner) + ((x ^ upper) + (upper & (p + u32x16::ONE)))
}

/// All `log2 N` levels of butterflies among `N` vectors held in registers (`N` a power of
/// two up to 16): vector `j` pairs with `j + h` for `h = 1, 2, .., N/2`.
#[inline(always)]
pub fn radix<const N: usize>(lanes: &ModLanes, x: &mut [u32x16; N]) {
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

/// Applies vector levels `lo..hi` to `v` in sweeps of at most [`MAX_SWEEP_LEVELS`], and
/// the in-vector levels of the set `in_vector` (one of [`lane_levels`]) to every vector
/// as the first sweep loads it (or in a sweep of their own when `lo == hi`). `v.len()`
/// must be a multiple of `2^hi`.
pub fn sweep_levels(lanes: &ModLanes, v: &mut [Vector], lo: u32, hi: u32, mut in_vector: u32) {
    use lane_levels::{ALL, HIGH, LOW, NONE};
    debug_assert!(v.len().is_multiple_of(1 << hi) && [NONE, LOW, HIGH, ALL].contains(&in_vector));
    if lo == hi {
        let upper = UpperLanes::new();
        match in_vector {
            NONE => {}
            LOW => v.iter_mut().for_each(|x| store(x, in_vector_levels::<LOW>(lanes, upper, load(x)))),
            HIGH => v.iter_mut().for_each(|x| store(x, in_vector_levels::<HIGH>(lanes, upper, load(x)))),
            _ => v.iter_mut().for_each(|x| store(x, in_vector_levels::<ALL>(lanes, upper, load(x)))),
        }
        return;
    }
    let mut level = lo;
    while level < hi {
        // Spread the levels evenly: 5 levels as 3 + 2 rather than 4 + 1.
        let sweeps_left = (hi - level).div_ceil(MAX_SWEEP_LEVELS);
        let count = (hi - level).div_ceil(sweeps_left);
        match count {
            1 => sweep_with::<2>(lanes, v, level, in_vector),
            2 => sweep_with::<4>(lanes, v, level, in_vector),
            _ => sweep_with::<8>(lanes, v, level, in_vector),
        }
        level += count;
        in_vector = NONE;
    }
}

/// [`sweep`] with its set of in-vector levels chosen at run time.
#[inline(always)]
fn sweep_with<const N: usize>(lanes: &ModLanes, v: &mut [Vector], level: u32, in_vector: u32) {
    use lane_levels::{ALL, HIGH, LOW, NONE};
    match in_vector {
        NONE => sweep::<N, NONE>(lanes, v, level),
        LOW => sweep::<N, LOW>(lanes, v, level),
        HIGH => sweep::<N, HIGH>(lanes, v, level),
        _ => sweep::<N, ALL>(lanes, v, level),
    }
}

/// One sweep: vector levels `level..level + log2 N`, `N` vectors `2^level` apart in
/// registers at a time, after the in-vector levels of the set `IN_VECTOR` on each.
#[inline(always)]
fn sweep<const N: usize, const IN_VECTOR: u32>(lanes: &ModLanes, v: &mut [Vector], level: u32) {
    // A local copy: the modulus stays in a register rather than being reloaded after
    // every store through `v`.
    let lanes = *lanes;
    let upper = UpperLanes::new();
    let stride = 1usize << level;
    for block in v.chunks_exact_mut(N * stride) {
        for offset in 0..stride {
            let mut x: [u32x16; N] = std::array::from_fn(|j| {
                in_vector_levels::<IN_VECTOR>(&lanes, upper, load(&block[offset + j * stride]))
            });
            radix(&lanes, &mut x);
            for (j, &xj) in x.iter().enumerate() {
                store(&mut block[offset + j * stride], xj);
            }
        }
    }
}

/// The whole slice as vectors. `data.len()` must be a multiple of 16.
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

    #[test]
    fn in_vector_levels_equal_the_transform_of_sixteen() {
        for p in [3u32, 1_000_000_007, 2_147_483_647] {
            let lanes = ModLanes::new(p).unwrap();
            let mut rng = SplitMix64(p as u64);
            let edges = [0, 1, p - 1, p - 2];
            for round in 0..50 {
                let input: Vector =
                    std::array::from_fn(
                        |i| {
                            if round < 4 { edges[(i + round) % 4] } else { rng.below(p as u64) as u32 }
                        },
                    );
                let upper = UpperLanes::new();
                let got = in_vector_levels::<{ lane_levels::ALL }>(&lanes, upper, u32x16::from(input)).to_array();
                let low = in_vector_levels::<{ lane_levels::LOW }>(&lanes, upper, u32x16::from(input));
                let split = in_vector_levels::<{ lane_levels::HIGH }>(&lanes, upper, low).to_array();
                assert_eq!(split, got, "levels 0-1 then 2-3, p={p} input {input:?}");
                assert_eq!(got.to_vec(), wht_reference(&input, p), "p={p} input {input:?}");
            }
        }
    }

    #[test]
    fn sweeps_of_every_width_equal_the_definition() {
        let p = 1_000_000_007u32;
        let lanes = ModLanes::new(p).unwrap();
        let mut rng = SplitMix64(5);
        // 2^10 elements = 64 vectors: every split of the 6 vector levels into sweeps.
        for (lo, hi) in [(0, 6), (0, 1), (1, 3), (2, 5), (0, 4), (3, 6), (5, 6)] {
            let input: Vec<u32> = (0..1024).map(|_| rng.below(p as u64) as u32).collect();
            let mut got = input.clone();
            sweep_levels(&lanes, as_vectors(&mut got), lo, hi, lane_levels::ALL);
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
            assert_eq!(got, expected, "levels {lo}..{hi}");
        }
    }
}
