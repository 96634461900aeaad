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

/// In-vector levels `0..count` (`count <= 4`) of one vector.
#[inline(always)]
pub fn in_vector_levels(lanes: &ModLanes, mut x: u32x16, count: u32) -> u32x16 {
    if count > 0 {
        x = in_vector_level::<0>(lanes, x);
    }
    if count > 1 {
        x = in_vector_level::<1>(lanes, x);
    }
    if count > 2 {
        x = in_vector_level::<2>(lanes, x);
    }
    if count > 3 {
        x = in_vector_level::<3>(lanes, x);
    }
    x
}

/// In-vector level `L < 4` of one vector.
///
/// Lane `i` with bit `L` clear holds `u` and must become `u + v`; its partner `i ^ 2^L`
/// holds `v` and must become `u - v`. Both are `partner ± self`: the upper lanes replace
/// their own value `x` by `p - x` (in `[1, p]`), so every lane adds two numbers whose sum
/// is below `2p`, and one conditional subtraction finishes.
#[inline(always)]
pub fn in_vector_level<const L: usize>(lanes: &ModLanes, x: u32x16) -> u32x16 {
    let s = in_vector_sum::<L>(lanes.p(), x);
    s.min(s - lanes.p())
}

/// `partner + (x or p - x)` for in-vector level `L`, with AVX-512: the partner comes from
/// an immediate shuffle (in-lane `vpshufd` for strides 1 and 2, `vshufi64x2` for 4 and
/// 8, cheaper than a general permute) and `p - x` from one masked subtraction.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
#[inline(always)]
fn in_vector_sum<const L: usize>(p: u32x16, x: u32x16) -> u32x16 {
    // SAFETY: compiled only when the build enables avx512f (the cfg above).
    unsafe { in_vector_sum_avx512::<L>(p, x) }
}

/// The AVX-512 body of [`in_vector_sum`].
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
#[target_feature(enable = "avx512f")]
#[inline]
fn in_vector_sum_avx512<const L: usize>(p: u32x16, x: u32x16) -> u32x16 {
    use core::arch::x86_64::{
        __m512i, _MM_PERM_BADC, _MM_PERM_CDAB, _mm512_add_epi32, _mm512_mask_sub_epi32, _mm512_shuffle_epi32,
        _mm512_shuffle_i64x2,
    };
    let (xv, pv) = (__m512i::from(x), __m512i::from(p));
    // Lanes whose bit L is set, and the partner shuffle, for each level.
    let (upper, partner): (u16, __m512i) = match L {
        0 => (0xAAAA, _mm512_shuffle_epi32::<_MM_PERM_CDAB>(xv)),
        1 => (0xCCCC, _mm512_shuffle_epi32::<_MM_PERM_BADC>(xv)),
        2 => (0xF0F0, _mm512_shuffle_i64x2::<0b10_11_00_01>(xv, xv)),
        _ => (0xFF00, _mm512_shuffle_i64x2::<0b01_00_11_10>(xv, xv)),
    };
    let signed = _mm512_mask_sub_epi32(xv, upper, pv, xv);
    u32x16::from(_mm512_add_epi32(partner, signed))
}

/// The portable form: a permute by constant indices, and `p - x` as `!x + p + 1`
/// (which is `p - x` modulo 2^32) in the upper lanes.
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
#[inline(always)]
fn in_vector_sum<const L: usize>(p: u32x16, x: u32x16) -> u32x16 {
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
/// in-vector levels `0..in_vector` to every vector as the first sweep loads it (or in
/// a sweep of their own when `lo == hi`). `v.len()` must be a multiple of `2^hi`.
pub fn sweep_levels(lanes: &ModLanes, v: &mut [Vector], lo: u32, hi: u32, mut in_vector: u32) {
    debug_assert!(v.len().is_multiple_of(1 << hi) && in_vector <= 4);
    if lo == hi {
        if in_vector > 0 {
            v.iter_mut().for_each(|x| store(x, in_vector_levels(lanes, load(x), in_vector)));
        }
        return;
    }
    let mut level = lo;
    while level < hi {
        // Spread the levels evenly: 5 levels as 3 + 2 rather than 4 + 1.
        let sweeps_left = (hi - level).div_ceil(MAX_SWEEP_LEVELS);
        let count = (hi - level).div_ceil(sweeps_left);
        match count {
            1 => sweep::<2>(lanes, v, level, in_vector),
            2 => sweep::<4>(lanes, v, level, in_vector),
            _ => sweep::<8>(lanes, v, level, in_vector),
        }
        level += count;
        in_vector = 0;
    }
}

/// One sweep: vector levels `level..level + log2 N`, `N` vectors `2^level` apart in
/// registers at a time, after in-vector levels `0..in_vector` on each.
#[inline(always)]
fn sweep<const N: usize>(lanes: &ModLanes, v: &mut [Vector], level: u32, in_vector: u32) {
    let stride = 1usize << level;
    for block in v.chunks_exact_mut(N * stride) {
        for offset in 0..stride {
            let mut x: [u32x16; N] =
                std::array::from_fn(|j| in_vector_levels(lanes, load(&block[offset + j * stride]), in_vector));
            radix(lanes, &mut x);
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
                let got = in_vector_levels(&lanes, u32x16::from(input), 4).to_array();
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
            sweep_levels(&lanes, as_vectors(&mut got), lo, hi, 4);
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
