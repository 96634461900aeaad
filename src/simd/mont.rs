//! Montgomery arithmetic modulo an odd prime `p < 2^31` in sixteen 32-bit lanes (the
//! cards kernels: transform butterflies, power sums, frequency lanes).
//!
//! [`Mont`] is one logical vector of sixteen `u32` lanes on a backend, whatever its
//! registers: one `__m512i` with AVX-512, two `__m256i` with AVX2, `wide::u32x16`
//! elsewhere. The kernels keep the sixteen logical lanes on every backend, so their
//! algorithms (transposes of 16×16 blocks, four in-vector transform levels, chunks of
//! sixteen lane runs) keep one shape. The modular helpers built on these primitives
//! are [`crate::arith::ModLanes`]; only the primitives differ per backend.

use super::Backend;

/// Lanes per logical vector.
pub const LANES: usize = 16;

/// Sixteen residues as stored in a slice. Loads and stores go through `[u32; 16]` so the
/// kernels accept any `&mut [u32]`, aligned or not, without `unsafe`.
pub type Block = [u32; LANES];

/// The vector primitives of the cards kernels on one backend. Every method is
/// `#[inline(always)]` in every implementation, so that inside a
/// [`multiversion!`](crate::multiversion) entry point it compiles with the entry's
/// features (a call to an out-of-line method would run at the build's baseline).
///
/// Arithmetic is lane by lane and wrapping, as on `u32`; comparisons give masks (all
/// ones where true, zero where false).
pub trait Mont: Backend {
    /// Sixteen `u32` lanes.
    type V: Copy + Send + Sync + std::fmt::Debug + 'static;

    /// Whatever [`Mont::in_vector_sum`] needs besides the vector and `p`, made once per
    /// sweep by [`Mont::upper_lanes`] (AVX-512: the four lane masks, kept opaque to the
    /// optimiser; other backends: nothing).
    type Upper: Copy;

    /// Logical vectors a power sum keeps in flight per exponent loop: enough independent
    /// product chains to hide a product's latency, few enough that the accumulators and
    /// their bases stay in the register file (32 zmm, 16 ymm, …).
    const POW_GROUP: usize;

    /// Most transform levels a sweep applies to vectors held in registers: `2^SWEEP_LEVELS`
    /// logical vectors must fit the register file with the modulus and temporaries.
    const SWEEP_LEVELS: u32;

    /// `x` in every lane.
    fn splat(x: u32) -> Self::V;
    /// The lanes of `a`.
    fn load(a: &Block) -> Self::V;
    /// Stores the lanes into `a`.
    fn store(a: &mut Block, v: Self::V);
    /// The lanes as an array.
    #[inline(always)]
    fn to_array(v: Self::V) -> Block {
        let mut out = [0; LANES];
        Self::store(&mut out, v);
        out
    }
    /// `a + b`, wrapping.
    fn add(a: Self::V, b: Self::V) -> Self::V;
    /// `a - b`, wrapping.
    fn sub(a: Self::V, b: Self::V) -> Self::V;
    /// The unsigned minimum.
    fn min(a: Self::V, b: Self::V) -> Self::V;
    /// `a & b`.
    fn and(a: Self::V, b: Self::V) -> Self::V;
    /// `a >> 1`, logical.
    fn shr1(a: Self::V) -> Self::V;
    /// `a == b`, as a mask.
    fn eq(a: Self::V, b: Self::V) -> Self::V;
    /// `a > b` for lanes below 2^31 (signed and unsigned agree there), as a mask.
    fn gt(a: Self::V, b: Self::V) -> Self::V;
    /// `mask ? a : b` lane by lane, for a mask from [`Mont::eq`] or [`Mont::gt`].
    fn select(mask: Self::V, a: Self::V, b: Self::V) -> Self::V;

    /// `hi(a·b) - hi(q·p)` with `q = a·b·p^-1 mod 2^32`, per lane, wrapping: a number in
    /// `(-p, p)` congruent to `a·b·2^-32` when `a·b < p·2^32` (the subtractive REDC;
    /// `p_inv` is `p^-1 mod 2^32`).
    fn redc_difference(a: Self::V, b: Self::V, p: Self::V, p_inv: Self::V) -> Self::V;

    /// `(a·b + m·p) / 2^32` with `m = -a·b·p^-1 mod 2^32`, per lane: exact (the low halves
    /// sum to a multiple of 2^32), below `2p` when `a·b < p·2^32` and `p < 2^30` (the
    /// additive REDC; `neg_p_inv` is `-p^-1 mod 2^32`).
    fn redc_additive(a: Self::V, b: Self::V, p: Self::V, neg_p_inv: Self::V) -> Self::V;

    /// [`Mont::redc_additive`] for the lazy products, whose factors are below `2p` and
    /// `p < 2^30`: the same value, for `a, b < 2^31` as well as `a·b < p·2^32`. A backend
    /// with a signed doubling high product (NEON's `sqdmulh`) takes the high halves of
    /// four lanes in one instruction there, where the unsigned ones take two and a shuffle.
    #[inline(always)]
    fn redc_lazy(a: Self::V, b: Self::V, p: Self::V, neg_p_inv: Self::V) -> Self::V {
        Self::redc_additive(a, b, p, neg_p_inv)
    }

    /// The extra operand of [`Mont::in_vector_sum`].
    fn upper_lanes() -> Self::Upper;

    /// In-vector transform level `L < 4`: lane `i` becomes `x[i ^ 2^L] + x[i]` where bit
    /// `L` of `i` is clear and `x[i ^ 2^L] + (p - x[i])` where it is set (`x < p`, so each
    /// sum is below `2p`).
    fn in_vector_sum<const L: usize>(x: Self::V, p: Self::V, upper: Self::Upper) -> Self::V;

    /// Transposes the 16×16 matrix whose rows are `rows`.
    fn transpose(rows: &mut [Self::V; LANES]);

    /// Stores `v` into `dst`, bypassing the caches (a non-temporal store) where the
    /// backend has one and `dst` is aligned as it needs, with an ordinary store otherwise.
    ///
    /// For results written once and read back only after many megabytes of other traffic:
    /// an ordinary store first reads the line it writes into (read for ownership), which
    /// doubles the memory traffic. Call [`Mont::store_fence`] before other threads read
    /// `dst`.
    fn stream_store(dst: &mut Block, v: Self::V);

    /// Orders this thread's earlier non-temporal stores before its later stores, so that
    /// the data is complete when the scheduler hands it to another thread.
    fn store_fence();
}

/// The portable in-vector level and transpose on `wide`, shared by the backends that
/// have no shuffles of their own for them.
pub(crate) mod generic {
    use super::LANES;
    use wide::u32x16;

    /// Partner by a constant lane permutation, and `p - x` as `!x + p + 1` (which is
    /// `p - x` modulo 2^32) in the upper lanes. The permutation is written on arrays,
    /// which LLVM turns into `pshufd` or register swaps; `wide`'s general shuffle
    /// (`ShuffleExt`) is a byte-table emulation at the x86-64 baseline, called out of
    /// line (a third of the portable pipeline's instructions when it was used here).
    #[inline(always)]
    pub fn in_vector_sum<const L: usize>(x: u32x16, p: u32x16) -> u32x16 {
        let lanes = x.to_array();
        let partner = u32x16::from(std::array::from_fn::<u32, LANES, _>(|i| lanes[i ^ (1 << L)]));
        let upper = u32x16::from(std::array::from_fn::<u32, LANES, _>(|i| if i >> L & 1 == 1 { u32::MAX } else { 0 }));
        partner + ((x ^ upper) + (upper & (p + u32x16::ONE)))
    }

    /// Four rounds that each swap the off-diagonal blocks of every 2b×2b block (b = 8, 4,
    /// 2, 1): one two-source lane selection per row and round, on arrays (see
    /// [`in_vector_sum`]), all unrolled so the matrix stays in registers.
    #[inline(always)]
    pub fn transpose(rows: &mut [u32x16; LANES]) {
        transpose_round::<8>(rows);
        transpose_round::<4>(rows);
        transpose_round::<2>(rows);
        transpose_round::<1>(rows);
    }

    /// One round of [`transpose`]: for rows `r` with bit `B` clear,
    /// `new[r][c] = c & B == 0 ? old[r][c] : old[r+B][c-B]` and
    /// `new[r+B][c] = c & B == 0 ? old[r][c+B] : old[r+B][c]`.
    #[inline(always)]
    fn transpose_round<const B: usize>(rows: &mut [u32x16; LANES]) {
        for r in 0..LANES {
            if r & B == 0 {
                let (a, b) = (rows[r].to_array(), rows[r + B].to_array());
                rows[r] =
                    u32x16::from(std::array::from_fn::<u32, LANES, _>(|c| if c & B == 0 { a[c] } else { b[c - B] }));
                rows[r + B] =
                    u32x16::from(std::array::from_fn::<u32, LANES, _>(|c| if c & B == 0 { a[c + B] } else { b[c] }));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! Every primitive of every backend this CPU runs, lane by lane against the portable
    //! one (itself checked against scalar arithmetic in `crate::arith::lanes`).
    use super::*;
    use crate::kernels::SplitMix64;
    use crate::simd::{Portable, Simd};

    const PRIMES: [u32; 6] = [3, 5, 65_537, 998_244_353, 1_000_000_007, 2_147_483_647];

    /// Edge values (`0, 1, 2, p/2, p-2, p-1` and their pairings), then random residues:
    /// `(a, b)` blocks.
    fn pairs(p: u32, seed: u64) -> Vec<(Block, Block)> {
        let mut rng = SplitMix64(seed);
        let edges = [0, 1, 2, p / 2, p - 2, p - 1].map(|e| e % p);
        let all: Vec<(u32, u32)> = edges.iter().flat_map(|&a| edges.iter().map(move |&b| (a, b))).collect();
        let mut out: Vec<(Block, Block)> = all
            .chunks(LANES)
            .map(|c| (std::array::from_fn(|i| c[i % c.len()].0), std::array::from_fn(|i| c[i % c.len()].1)))
            .collect();
        for _ in 0..64 {
            out.push((
                std::array::from_fn(|_| rng.below(p as u64) as u32),
                std::array::from_fn(|_| rng.below(p as u64) as u32),
            ));
        }
        out
    }

    /// The outputs of every primitive for one backend, in a fixed order.
    #[inline(always)]
    fn outputs_generic<B: Mont>(p: u32, lazy: bool) -> Vec<Block> {
        let m = crate::arith::Montgomery32::new(p as u64).unwrap();
        let (pv, p_inv, neg_p_inv) = (B::splat(p), B::splat(m.neg_p_inv().wrapping_neg()), B::splat(m.neg_p_inv()));
        let upper = B::upper_lanes();
        let mut out = Vec::new();
        let mut rng = SplitMix64(p as u64 ^ 0xABCD);
        for (a, b) in pairs(p, p as u64) {
            let (x, y) = (B::load(&a), B::load(&b));
            out.push(B::to_array(B::add(x, y)));
            out.push(B::to_array(B::sub(x, y)));
            out.push(B::to_array(B::min(x, y)));
            out.push(B::to_array(B::min(B::sub(x, y), y)));
            out.push(B::to_array(B::and(x, y)));
            out.push(B::to_array(B::shr1(B::sub(x, y))));
            out.push(B::to_array(B::eq(B::and(x, B::splat(1)), B::splat(1))));
            out.push(B::to_array(B::gt(x, y)));
            out.push(B::to_array(B::select(B::gt(x, y), x, B::add(y, pv))));
            out.push(B::to_array(B::redc_difference(x, y, pv, p_inv)));
            // One factor up to u32::MAX, the other 1: the bound a·b < p·2^32 at its edge.
            out.push(B::to_array(B::redc_difference(B::sub(B::splat(0), x), B::splat(1), pv, p_inv)));
            if lazy {
                // Lazy inputs below 2p.
                let (x2, y2) = (B::add(x, pv), B::add(y, B::and(y, pv)));
                out.push(B::to_array(B::redc_additive(x, y, pv, neg_p_inv)));
                out.push(B::to_array(B::redc_additive(x2, y2, pv, neg_p_inv)));
                out.push(B::to_array(B::redc_lazy(x, y, pv, neg_p_inv)));
                out.push(B::to_array(B::redc_lazy(x2, y2, pv, neg_p_inv)));
                // Both factors at the top of the lazy range, 2p - 1, and one at 2p - 1.
                let top = B::sub(B::add(pv, pv), B::splat(1));
                out.push(B::to_array(B::redc_lazy(top, top, pv, neg_p_inv)));
                out.push(B::to_array(B::redc_lazy(x2, top, pv, neg_p_inv)));
                if p > 1 << 16 {
                    // a·b = 2^31 and 2^32: m = 2^31 (the most negative signed m) and m = 0.
                    let (a, b) = (B::splat(1 << 16), B::splat(1 << 15));
                    out.push(B::to_array(B::redc_lazy(a, b, pv, neg_p_inv)));
                    out.push(B::to_array(B::redc_lazy(a, B::add(b, b), pv, neg_p_inv)));
                }
            }
            out.push(B::to_array(B::in_vector_sum::<0>(x, pv, upper)));
            out.push(B::to_array(B::in_vector_sum::<1>(x, pv, upper)));
            out.push(B::to_array(B::in_vector_sum::<2>(x, pv, upper)));
            out.push(B::to_array(B::in_vector_sum::<3>(x, pv, upper)));
        }
        let mut rows: [B::V; LANES] =
            std::array::from_fn(|_| B::load(&std::array::from_fn(|_| rng.below(p as u64) as u32)));
        out.extend(rows.iter().map(|&r| B::to_array(r)));
        B::transpose(&mut rows);
        out.extend(rows.iter().map(|&r| B::to_array(r)));
        // Streaming stores at every alignment.
        let v = B::load(&std::array::from_fn(|i| i as u32 + 1));
        let mut buffer = vec![0u32; 64];
        for offset in 0..LANES {
            buffer.fill(0);
            let dst: &mut Block = (&mut buffer[offset..offset + LANES]).try_into().unwrap();
            B::stream_store(dst, v);
            B::store_fence();
            out.push(buffer[offset..offset + LANES].try_into().unwrap());
            assert_eq!(buffer.iter().filter(|&&x| x != 0).count(), LANES);
        }
        out
    }

    crate::multiversion! {
        fn outputs(p: u32, lazy: bool) -> Vec<Block> => outputs_generic;
    }

    #[test]
    fn every_backend_matches_portable_lane_by_lane() {
        for p in PRIMES {
            let lazy = p < 1 << 30;
            let expected = outputs_generic::<Portable>(p, lazy);
            for simd in Simd::tested() {
                let got = outputs(simd, p, lazy);
                assert_eq!(got.len(), expected.len());
                for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
                    assert_eq!(g, e, "{simd}: p={p} output {i}");
                }
            }
        }
    }

    #[test]
    fn portable_transpose_and_in_vector_levels_follow_their_definitions() {
        let mut rows: [wide::u32x16; LANES] =
            std::array::from_fn(|r| wide::u32x16::from(std::array::from_fn::<u32, LANES, _>(|c| (16 * r + c) as u32)));
        Portable::transpose(&mut rows);
        for (r, row) in rows.iter().enumerate() {
            assert_eq!(row.to_array(), std::array::from_fn::<u32, LANES, _>(|c| (16 * c + r) as u32));
        }
        let p = 1_000_000_007u32;
        let x: Block = std::array::from_fn(|i| (i as u32 * 7919 + 3) % p);
        let got = Portable::to_array(Portable::in_vector_sum::<2>(Portable::load(&x), Portable::splat(p), ()));
        for i in 0..LANES {
            let expected = if i & 4 == 0 { x[i ^ 4] + x[i] } else { x[i ^ 4] + (p - x[i]) };
            assert_eq!(got[i], expected, "lane {i}");
        }
    }
}
