//! Garner's mixed-radix reconstruction: from the residues of a value `v` modulo
//! primes `p_0 … p_{r-1}` (with `v < Π p_i`), `v mod N` for any `N < 2^62`.
//!
//! `v = y_0 + y_1·p_0 + y_2·p_0·p_1 + …` with digits `y_i < p_i`, where
//! `y_i = (c_i - y_0 - y_1·p_0 - …)·(p_0·…·p_{i-1})^{-1} mod p_i`, computed as
//! `((c_i - y_0)·p_0^{-1} - y_1)·p_1^{-1} - …` modulo `p_i`. Then
//! `v mod N = Σ y_i·(p_0·…·p_{i-1} mod N) mod N`.

use crate::arith::{Montgomery32, inv_mod};

/// Precomputed constants for one set of primes and one `N`.
#[derive(Clone, Debug)]
pub struct Garner {
    primes: Vec<u32>,
    monts: Vec<Montgomery32>,
    /// `inverse[i][j] = p_j^{-1} mod p_i` in Montgomery form, `j < i`.
    inverse: Vec<Vec<u32>>,
    /// `p_0·…·p_{i-1} mod N`.
    radix_mod_n: Vec<u64>,
    modulus: u64,
}

impl Garner {
    /// Constants for `primes` (distinct, odd, below 2^31) and `modulus < 2^62`.
    pub fn new(primes: &[u32], modulus: u64) -> Self {
        let monts: Vec<Montgomery32> =
            primes.iter().map(|&p| Montgomery32::new(p as u64).expect("primes are odd and below 2^31")).collect();
        let inverse = primes
            .iter()
            .enumerate()
            .map(|(i, &pi)| {
                (0..i)
                    .map(|j| {
                        let inv = inv_mod(primes[j] as u64 % pi as u64, pi as u64).expect("distinct primes");
                        monts[i].to_form(inv as u32)
                    })
                    .collect()
            })
            .collect();
        let mut radix_mod_n = Vec::with_capacity(primes.len());
        let mut radix = 1 % modulus as u128;
        for &p in primes {
            radix_mod_n.push(radix as u64);
            radix = radix * p as u128 % modulus as u128;
        }
        Self { primes: primes.to_vec(), monts, inverse, radix_mod_n, modulus }
    }

    /// `v mod N` from `residues[i] = v mod p_i`.
    #[inline]
    pub fn combine(&self, residues: &[u32]) -> u64 {
        let r = self.primes.len();
        let mut digits = [0u32; 8];
        let mut total = 0u128;
        for i in 0..r {
            let (p, mont) = (self.primes[i], self.monts[i]);
            let mut y = residues[i];
            for (&yj, &inverse) in digits[..i].iter().zip(&self.inverse[i]) {
                // (y - y_j) · p_j^{-1} mod p_i; y_j < p_j < 2p_i may exceed p_i: reduce it.
                let yj = if yj >= p { yj - p } else { yj };
                let diff = if y >= yj { y - yj } else { y + p - yj };
                y = mont.mul(diff, inverse);
            }
            digits[i] = y;
            // y < 2^31 and the radix < 2^62: each term is below 2^93, six below 2^96.
            total += y as u128 * self.radix_mod_n[i] as u128;
        }
        (total % self.modulus as u128) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::ntt::PRIMES;

    #[test]
    fn recovers_values_below_the_product_of_the_primes() {
        let primes: Vec<u32> = PRIMES.iter().map(|p| p.0).collect();
        for count in 1..=primes.len() {
            let ps = &primes[..count];
            // From five primes on the product exceeds u128: test up to u128::MAX then.
            let product = ps.iter().try_fold(1u128, |acc, &p| acc.checked_mul(p as u128)).unwrap_or(u128::MAX);
            for modulus in [2u64, 1_000_000_000, 8 * ((1 << 58) - 1), (1 << 62) - 1] {
                let garner = Garner::new(ps, modulus);
                for v in [0u128, 1, 12345, product / 3, product - 1] {
                    let residues: Vec<u32> = ps.iter().map(|&p| (v % p as u128) as u32).collect();
                    assert_eq!(garner.combine(&residues) as u128, v % modulus as u128, "count={count} v={v}");
                }
            }
        }
    }
}
