//! The closed form's term ratios eight at a time, on the SIMD layer.
//!
//! The scalar loop of [`super::closed_form`] steps two forward-difference tables of a
//! degree-8 polynomial (the ratio's numerator `N(t)` and denominator `D(t)`): sixteen
//! modular additions a term, about three quarters of its instructions. Here lane `i < 8`
//! follows `N(8s + i)` and lane `8 + i` follows `D(8s + i)`, each a polynomial of degree 8
//! in `s` with a difference table of its own, so one vector addition per level moves all
//! sixteen tables eight terms on: eight vector additions per eight terms. The products
//! that chain the terms together (`term`, `sum`, `den` of the scalar loop) stay scalar;
//! each depends on the one before, so they cannot share a vector.

use crate::arith::{LANES, ModLanes, Montgomery32};
use crate::simd::mont::{Block, Mont};

/// Terms per vector step: lanes `0..STEP` hold numerators, lanes `STEP..` denominators.
pub const STEP: usize = LANES / 2;

/// Levels of a difference table of a polynomial of degree 8: `Δ^0 ..= Δ^8`.
pub const LEVELS: usize = 9;

/// The difference tables at `s = 0`: `tables[k]` holds `Δ^k` of every lane's polynomial,
/// residues below `p`, built from the values at `s = 0..=8` (`values[s]`, lane by lane).
pub fn difference_tables(mut values: [Block; LEVELS], p: u32) -> [Block; LEVELS] {
    for k in 1..LEVELS {
        for s in (k..LEVELS).rev() {
            let below = values[s - 1];
            for (hi, lo) in values[s].iter_mut().zip(below) {
                *hi = if *hi >= lo { *hi - lo } else { *hi + (p - lo) };
            }
        }
    }
    values
}

crate::multiversion! {
    /// The scalar loop of the closed form over `terms` terms, its ratios from the lanes'
    /// difference `tables` (see [`difference_tables`]): returns `(sum, den)` with
    /// `Σ_{u <= terms} T_u / T_0 = sum / den`, both scaled alike by the Montgomery
    /// products of plain residues (the scale cancels in the caller's division).
    pub fn ratio_sum_lanes(mont: &Montgomery32, tables: &[Block; LEVELS], terms: u64) -> (u32, u32) => ratio_sum_lanes_generic;
}

#[inline(always)]
fn ratio_sum_lanes_generic<B: Mont>(mont: &Montgomery32, tables: &[Block; LEVELS], terms: u64) -> (u32, u32) {
    let lanes = ModLanes::<B>::from_scalar(*mont);
    let p = mont.modulus();
    let mut levels = [B::splat(0); LEVELS];
    for (level, table) in levels.iter_mut().zip(tables) {
        *level = B::load(table);
    }
    let (mut term, mut sum, mut den) = (1 % p, 1 % p, 1 % p);
    let mut left = terms;
    let mut ratios: Block = [0; LANES];
    while left > 0 {
        B::store(&mut ratios, levels[0]);
        let here = left.min(STEP as u64) as usize;
        for i in 0..here {
            let (ratio_num, ratio_den) = (ratios[i], ratios[STEP + i]);
            term = mont.mul(term, ratio_num);
            sum = mont.add(mont.mul(sum, ratio_den), term);
            den = mont.mul(den, ratio_den);
        }
        left -= here as u64;
        // Δ^k(s + 1) = Δ^k(s) + Δ^(k+1)(s), in increasing k so that each reads the old
        // level above it; Δ^8 is constant.
        for k in 0..LEVELS - 1 {
            levels[k] = lanes.add(levels[k], levels[k + 1]);
        }
    }
    (sum, den)
}

crate::multiversion! {
    /// `C(top, k)` as a fraction `(Π_{i<k} (top - i), Π_{i<k} (i + 1))` modulo `p`, for
    /// `k <= top < p`: sixteen lanes each multiply every sixteenth factor, then the lanes
    /// are multiplied together. The two products are two independent chains of `k/16`
    /// vector products instead of two of `k` scalar ones, and numerator and denominator
    /// take the same Montgomery products, so their scales are equal.
    pub fn binomial_fraction_lanes(mont: &Montgomery32, top: u32, k: u32) -> (u32, u32) => binomial_fraction_lanes_generic;
}

#[inline(always)]
fn binomial_fraction_lanes_generic<B: Mont>(mont: &Montgomery32, top: u32, k: u32) -> (u32, u32) {
    debug_assert!(k <= top && top < mont.modulus());
    let lanes = ModLanes::<B>::from_scalar(*mont);
    let one = B::splat(1);
    let (mut num, mut den) = (one, one);
    let full = k as usize / LANES;
    // Factors of block j, lane i: top - (16j + i) and 16j + i + 1, in [1, top] while
    // 16j + i < k (the lanes past k wrap, and the last block replaces them by 1).
    let mut down = B::load(&std::array::from_fn(|i| top.wrapping_sub(i as u32)));
    let mut up = B::load(&std::array::from_fn(|i| i as u32 + 1));
    let sixteen = B::splat(LANES as u32);
    for _ in 0..full {
        num = lanes.mul(num, down);
        den = lanes.mul(den, up);
        down = B::sub(down, sixteen);
        up = B::add(up, sixteen);
    }
    // The last, partial block: factors of 1 past k, in both.
    let used = k as usize % LANES;
    let (mut last_down, mut last_up) = (B::to_array(down), B::to_array(up));
    for lane in used..LANES {
        (last_down[lane], last_up[lane]) = (1, 1);
    }
    num = lanes.mul(num, B::load(&last_down));
    den = lanes.mul(den, B::load(&last_up));
    let fold = |v: Block| v.iter().skip(1).fold(v[0], |acc, &x| mont.mul(acc, x));
    (fold(B::to_array(num)), fold(B::to_array(den)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::inv_mod;
    use crate::simd::Simd;

    /// `C(top, k) mod p` by Pascal's triangle.
    fn pascal(top: usize, k: usize, p: u64) -> u64 {
        let mut row = vec![1u64];
        for _ in 0..top {
            let mut next = vec![1u64; row.len() + 1];
            for i in 1..row.len() {
                next[i] = (row[i - 1] + row[i]) % p;
            }
            row = next;
        }
        row[k] % p
    }

    #[test]
    fn binomial_fractions_are_binomials_on_every_backend() {
        // Every k around the block edges (0, 15, 16, 17, ..), up to a full top.
        for p in [3u32, 101, 10_007, 989_898_989, 2_147_483_647] {
            let mont = Montgomery32::new(p as u64).expect("an odd prime below 2^31");
            for simd in Simd::available() {
                for top in [0u32, 1, 2, 15, 16, 17, 40, 100].into_iter().filter(|&t| t < p) {
                    for k in 0..=top {
                        let (num, den) = binomial_fraction_lanes(simd, &mont, top, k);
                        let inverse = inv_mod(den as u64, p as u64).expect("den is a unit");
                        let got = num as u64 * inverse % p as u64;
                        assert_eq!(got, pascal(top as usize, k as usize, p as u64), "C({top}, {k}) mod {p} on {simd}");
                    }
                }
            }
        }
    }

    #[test]
    fn difference_tables_step_polynomials_lane_by_lane() {
        // Lane i holds P_i(s) = (s + i)^8 - 3s + 7·i mod p: the lanes' tables, stepped by the
        // vector additions, give P_i at s = 0..40 on every backend.
        let p = 1_000_003u32;
        let eval = |lane: usize, s: u64| {
            let x = (s + lane as u64) % p as u64;
            let pow8 = (0..8).fold(1u64, |v, _| v * x % p as u64);
            (pow8 + 3 * (p as u64) - 3 * s % p as u64 + 7 * lane as u64) % p as u64
        };
        let values: [Block; LEVELS] = std::array::from_fn(|s| std::array::from_fn(|lane| eval(lane, s as u64) as u32));
        let tables = difference_tables(values, p);
        let mont = Montgomery32::new(p as u64).expect("an odd prime below 2^31");
        for simd in Simd::available() {
            // Through the ratio loop itself: with every ratio read, the loop's (sum, den)
            // must match the same loop run on the values directly.
            for terms in [0u64, 1, 7, 8, 9, 40, 41] {
                let (sum, den) = ratio_sum_lanes(simd, &mont, &tables, terms);
                let (mut term, mut sum_ref, mut den_ref) = (1u32, 1u32, 1u32);
                for t in 0..terms {
                    let (s, i) = ((t / STEP as u64), (t % STEP as u64) as usize);
                    let (ratio_num, ratio_den) = (eval(i, s) as u32, eval(STEP + i, s) as u32);
                    term = mont.mul(term, ratio_num);
                    sum_ref = ((mont.mul(sum_ref, ratio_den) as u64 + term as u64) % p as u64) as u32;
                    den_ref = mont.mul(den_ref, ratio_den);
                }
                assert_eq!((sum, den), (sum_ref, den_ref), "{terms} terms on {simd}");
            }
        }
    }
}
