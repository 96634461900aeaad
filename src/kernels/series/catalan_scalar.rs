//! The Catalan form `T + T^2 = x` in plain `u128` arithmetic modulo `N = M'/2`: the
//! straightforward version of [`super::catalan`], one character at a time.
//!
//! `x_k = num_k - Σ_{i>=1} den_i·x_{k-i}` (the rational form, [`RationalX`]), then
//! `T_k = x_k - Σ_{0<i<k} T_i·T_{k-i}`, the sum halved by symmetry:
//! `2·Σ_{0<i<k/2} T_i·T_{k-i} + [k even]·T_{k/2}^2`.

use super::rational::RationalX;
use super::{BlockSigns, c_sum_from_t_sum};

/// `Σ_h c_h(0..=m) mod modulus` over `characters`, by the Catalan form in `u128`.
pub fn series_catalan_scalar(characters: &[BlockSigns], m: usize, modulus: u64) -> Vec<u64> {
    let n = modulus / 2;
    let mut t_sum = vec![0u64; m + 1];
    for signs in characters {
        // Lowest terms first: the recurrence for x costs O(m·order).
        let x = x_coefficients_u128(&RationalX::new(&signs.minimized()), m, n);
        for (sum, t) in t_sum.iter_mut().zip(t_from_x_u128(&x, n)) {
            *sum = ((*sum as u128 + t as u128) % n as u128) as u64;
        }
    }
    c_sum_from_t_sum(t_sum, characters.len(), modulus)
}

/// `x_0..=x_m mod n` (`n < 2^62`) from the recurrence.
pub fn x_coefficients_u128(rational: &RationalX, m: usize, n: u64) -> Vec<u64> {
    let mut x = vec![0u64; m + 1];
    for k in 0..=m {
        // |den_i| < 2^12 and x < 2^62 with at most ~100 terms: the sum stays below 2^81.
        let mut v = *rational.num.get(k).unwrap_or(&0) as i128;
        for i in 1..rational.den.len().min(k + 1) {
            v -= rational.den[i] as i128 * x[k - i] as i128;
        }
        x[k] = v.rem_euclid(n as i128) as u64;
    }
    x
}

/// `T_0..=T_m mod n` from `x mod n` (`x_0 = 0`).
pub fn t_from_x_u128(x: &[u64], n: u64) -> Vec<u64> {
    let n128 = n as u128;
    let mut t = vec![0u64; x.len()];
    for k in 1..x.len() {
        // Products are below 2^124 (n < 2^62); reducing the sum every 8 terms keeps it
        // below 2^127 + n.
        let mut acc = 0u128;
        for i in 1..k.div_ceil(2) {
            acc += t[i] as u128 * t[k - i] as u128;
            if i % 8 == 0 {
                acc %= n128;
            }
        }
        acc = 2 * (acc % n128);
        if k % 2 == 0 {
            acc += t[k / 2] as u128 * t[k / 2] as u128;
        }
        t[k] = ((x[k] as u128 + n128 - acc % n128) % n128) as u64;
    }
    t
}
