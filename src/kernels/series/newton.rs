//! `T + T^2 = x` by Newton's iteration, with the products by number-theoretic
//! transforms ([`crate::kernels::ntt`]): O(m log m) per character.
//!
//! With `T` right modulo `u^p`, one step gives it modulo `u^{2p}`:
//!
//! ```text
//! R = T^2 + T - x  (≡ 0 mod u^p)        T <- T - R·(1 + 2T)^{-1}   (mod u^{2p})
//! ```
//!
//! Since `R = u^p·R'`, only `G = (1 + 2T)^{-1}` modulo `u^p` is needed, and it follows
//! `T` one step behind by its own Newton step `G <- G + G·(1 - (1 + 2T)·G)`. Every
//! operation is a ring operation modulo `N = M'/2` (the constant term of `1 + 2T` is 1, so
//! nothing is ever divided), hence any modulus works; the products are exact
//! convolutions recovered from several primes.

use super::rational::{RationalX, x_coefficients};
use super::{BlockSigns, c_sum_from_t_sum};
use crate::kernels::ntt::{MAX_LOG_LEN, ProductPlan};
use crate::simd::Simd;

/// The largest `m` (half the pins): the last step squares a series of about `m/2`
/// coefficients, whose transform must not exceed `2^MAX_LOG_LEN`.
pub const MAX_HALF_PINS: usize = (1 << (MAX_LOG_LEN - 1)) - 1;

/// `Σ_h c_h(0..=m) mod modulus` over `characters`, the transforms on `simd`'s backend.
pub fn series_newton(simd: Simd, characters: &[BlockSigns], m: usize, modulus: u64) -> Vec<u64> {
    assert!(m <= MAX_HALF_PINS, "newton takes m <= {MAX_HALF_PINS}, not {m}");
    let n = modulus / 2;
    let mut t_sum = vec![0u64; m + 1];
    if n > 1 {
        let plan = ProductPlan::new(simd, largest_product(m));
        for signs in characters {
            // Lowest terms first: the recurrence for x costs O(m·order) per character.
            let x = x_coefficients(simd, &RationalX::new(&signs.minimized()), m, n);
            for (sum, t) in t_sum.iter_mut().zip(t_by_newton(&x, n, &plan)) {
                *sum = ((*sum as u128 + t as u128) % n as u128) as u64;
            }
        }
    }
    c_sum_from_t_sum(t_sum, characters.len(), modulus)
}

/// Bytes one character's iteration allocates for `len = m + 1` coefficients: `x`, `T`,
/// `G` and up to seven temporaries of a step (`u64`); per transform length `n`, the two
/// transform buffers and the residues for up to six primes (`u32`), the recombined
/// product (`u64`), and the root tables of six primes (two `(u32, u32)` tables of `n/2`).
pub fn memory_bytes(len: usize) -> u64 {
    let transform = largest_product(len.saturating_sub(1)).next_power_of_two() as u64;
    len as u64 * 8 * 10 + transform * (4 * 2 + 4 * 6 + 8 + 6 * 2 * 4)
}

/// The longest product (`la + lb - 1`) the iteration forms for `m`: the square of `T`
/// at the last precision below `m + 1`.
fn largest_product(m: usize) -> usize {
    let mut precision = 1;
    let mut longest = 1;
    while precision < m + 1 {
        longest = longest.max(2 * precision - 1).max(precision + precision / 2);
        precision = (2 * precision).min(m + 1);
    }
    longest
}

/// `T_0..=T_m mod n` from `x mod n` (`x_0 = 0`, `n >= 2`).
pub fn t_by_newton(x: &[u64], n: u64, plan: &ProductPlan) -> Vec<u64> {
    let len = x.len();
    let neg = |v: u64| if v == 0 { 0 } else { n - v };
    // Residues are below n < 2^61: a + n never overflows.
    let sub = |a: u64, b: u64| if a >= b { a - b } else { a + n - b };
    let mut t = vec![0u64]; // T mod u^1: T_0 = 0
    let mut g = vec![1 % n]; // (1 + 2T)^{-1} mod u^1
    while t.len() < len {
        let precision = t.len();
        let target = (2 * precision).min(len);
        // G to precision `target - precision` (<= precision, at most twice its own).
        let want = target - precision;
        if g.len() < want {
            let have = g.len();
            let one_plus_2t: Vec<u64> =
                (0..want).map(|k| ((u128::from(k == 0) + 2 * t[k] as u128) % n as u128) as u64).collect();
            // E = (1 + 2T)·G needs only coefficients have..want (below have, E ≡ 1): a
            // cyclic product of length >= want wraps the top onto indices below have.
            let e = plan.multiply_cyclic(&one_plus_2t, &g, n, want.next_power_of_two());
            // 1 - E vanishes below u^have; G·(1 - E) adds coefficients have..want.
            let one_minus_e: Vec<u64> = e[have..want].iter().map(|&v| neg(v)).collect();
            let correction = plan.multiply(&g, &one_minus_e, n, want - have);
            g.extend(correction);
        }
        // R' = (T^2 + T - x) / u^precision modulo u^(target - precision); T has no terms
        // at or above `precision` yet, so only T^2 and x contribute. The square modulo
        // X^precision - 1 (precision is a power of two) holds s_j + s_{j+precision}, and
        // s_j = x_j - T_j below precision (T + T^2 ≡ x there): half the transform length.
        debug_assert!(precision.is_power_of_two());
        let folded = plan.multiply_cyclic(&t, &t, n, precision);
        let r: Vec<u64> = (precision..target)
            .map(|k| {
                let j = k - precision;
                let low_square = sub(x[j], t[j]);
                sub(sub(folded[j], low_square), x[k])
            })
            .collect();
        let step = plan.multiply(&r, &g[..want], n, want);
        t.extend(step.into_iter().map(neg));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SplitMix64;
    use crate::kernels::series::catalan_scalar::t_from_x_u128;

    #[test]
    fn newton_solves_t_plus_t_squared_for_any_x() {
        // Any x with x_0 = 0 has a unique T with T + T^2 = x; compare with the recurrence.
        let mut rng = SplitMix64(9);
        for simd in Simd::tested() {
            for n in [2u64, 3, 8_000_000_000, 8 * ((1 << 58) - 1)] {
                for len in [1usize, 2, 3, 4, 5, 8, 9, 31, 32, 33, 100] {
                    let x: Vec<u64> = (0..len).map(|k| if k == 0 { 0 } else { rng.below(n) }).collect();
                    let plan = ProductPlan::new(simd, largest_product(len - 1));
                    assert_eq!(t_by_newton(&x, n, &plan), t_from_x_u128(&x, n), "{simd:?} n={n} len={len}");
                }
            }
        }
    }
}
