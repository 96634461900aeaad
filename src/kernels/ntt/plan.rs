//! One prime's transforms: the root tables and the butterflies.
//!
//! The cyclic transform of length `n = 2^s` evaluates `a(X) mod X^n - 1` by halving:
//! a block holding `a mod X^{2h} - c` splits, with `r^2 = c`, into `lo + r·hi` (that is
//! `a mod X^h - r`) and `lo - r·hi` (`a mod X^h + r`). Starting from `c = 1`, block `b`
//! of every level uses `r_b = ω^{bitrev(b)}`, with `ω` a primitive `2^MAX`-th root and
//! `bitrev` over `MAX - 1` bits: the same table for every level and every length up to
//! `2^MAX` (a length-`n` transform reads its first `n/2` entries). The inverse undoes
//! each butterfly, `(u, v) -> (u + v, (u - v)·r_b^{-1})`, from the bottom level up, and
//! divides by `n` at the end.
//!
//! Arithmetic: Montgomery form for the roots only, so that `mont.mul(v, root)` returns
//! `v·r` in plain form and the data never changes representation. Inputs enter through
//! one REDC (`a·R^{-1}`, which reduces any `a < p·2^32` without a division), and the
//! final scaling by `n^{-1}·R^4` removes the `R^{-1}` of each input and of the pointwise
//! product.

use super::traversal::{dif, dit};
use crate::arith::{Montgomery32, inv_mod, pow_mod};

/// The root tables of one prime, for transforms up to `2^log_max`.
#[derive(Clone, Debug)]
pub struct NttPlan {
    mont: Montgomery32,
    p: u32,
    log_max: u32,
    /// `r_b` in Montgomery form, `b < 2^(log_max - 1)`.
    roots: Vec<u32>,
    /// `r_b^{-1}` in Montgomery form.
    inv_roots: Vec<u32>,
}

impl NttPlan {
    /// Tables for the prime `p` with group generator `generator`, for lengths up to
    /// `2^log_max` (which must divide `p - 1`).
    pub fn new(p: u32, generator: u32, log_max: u32) -> Self {
        let mont = Montgomery32::new(p as u64).expect("NTT primes are odd and below 2^31");
        assert!(((p - 1) >> log_max) << log_max == p - 1, "2^{log_max} does not divide {p} - 1");
        let omega = pow_mod(generator as u64, ((p - 1) >> log_max) as u64, p as u64);
        let omega_inv = inv_mod(omega, p as u64).expect("a root of unity is invertible");
        let half = if log_max == 0 { 0 } else { 1usize << (log_max - 1) };
        let bits = log_max.saturating_sub(1);
        // Powers ω^e and ω^{-e} for e < half, in Montgomery form, then read at bitrev(b).
        let powers = |root: u64| -> Vec<u32> {
            let step = mont.to_form(root as u32);
            let mut w = mont.one();
            (0..half)
                .map(|_| {
                    let current = w;
                    w = mont.mul(w, step);
                    current
                })
                .collect()
        };
        let (forward_powers, inverse_powers) = (powers(omega), powers(omega_inv));
        let bitrev = |b: usize| if bits == 0 { 0 } else { b.reverse_bits() >> (usize::BITS - bits) };
        let roots: Vec<u32> = (0..half).map(|b| forward_powers[bitrev(b)]).collect();
        let inv_roots: Vec<u32> = (0..half).map(|b| inverse_powers[bitrev(b)]).collect();
        Self { mont, p, log_max, roots, inv_roots }
    }

    /// The prime.
    pub fn prime(&self) -> u32 {
        self.p
    }

    /// The largest transform length, as a power of two.
    pub fn log_max(&self) -> u32 {
        self.log_max
    }

    /// `a·R^{-1} mod p` for each `a < 2^62`: the residues as they enter a transform.
    pub fn load(&self, values: &[u64], len: usize) -> Vec<u32> {
        let mut out = vec![0u32; len];
        for (o, &v) in out.iter_mut().zip(values) {
            // v < 2^62 < p·2^32 (p > 2^30), as REDC needs.
            *o = self.mont.reduce(v);
        }
        out
    }

    /// Forward transform in place: natural order in, bit-reversed order out.
    pub fn forward(&self, data: &mut [u32]) {
        assert!(data.len() <= 1 << self.log_max && (data.len().is_power_of_two() || data.is_empty()));
        let (mont, p) = (self.mont, self.p);
        dif(data, 0, &|lo: &mut [u32], hi: &mut [u32], b: usize| {
            let r = self.roots[b];
            for (u, v) in lo.iter_mut().zip(hi.iter_mut()) {
                // u, t < p < 2^31: the sum fits a u32.
                let t = mont.mul(*v, r);
                let sum = *u + t;
                *v = if *u >= t { *u - t } else { *u + p - t };
                *u = if sum >= p { sum - p } else { sum };
            }
        });
    }

    /// Inverse transform in place: bit-reversed order in, natural order out, scaled so
    /// that `inverse(pointwise(forward(load(a)), forward(load(b))))` is `a·b mod p`.
    pub fn inverse(&self, data: &mut [u32]) {
        let n = data.len();
        assert!(n <= 1 << self.log_max && (n.is_power_of_two() || n == 0));
        let (mont, p) = (self.mont, self.p);
        dit(data, 0, &|lo: &mut [u32], hi: &mut [u32], b: usize| {
            let r = self.inv_roots[b];
            for (u, v) in lo.iter_mut().zip(hi.iter_mut()) {
                let (x, y) = (*u, *v);
                let sum = x + y;
                *u = if sum >= p { sum - p } else { sum };
                *v = mont.mul(if x >= y { x - y } else { x + p - y }, r);
            }
        });
        // Undo n, and the R^{-1} of both loads and of the pointwise product: the scaling
        // by s = n^{-1}·R^4 goes through one more REDC, so it multiplies by n^{-1}·R^3.
        let r_mod_p = (1u64 << 32) % p as u64;
        let n_inv = inv_mod(n.max(1) as u64 % p as u64, p as u64).expect("n is a power of two below p");
        let s = n_inv * pow_mod(r_mod_p, 4, p as u64) % p as u64;
        for x in data.iter_mut() {
            *x = mont.mul(*x, s as u32);
        }
    }

    /// `a = a·b·R^{-1}` pointwise (transforms of equal length).
    pub fn pointwise(&self, a: &mut [u32], b: &[u32]) {
        assert_eq!(a.len(), b.len());
        for (x, &y) in a.iter_mut().zip(b) {
            *x = self.mont.mul(*x, y);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::ntt::PRIMES;

    /// The transform against the definition: output `j` (bit-reversed position) is
    /// `a` evaluated at the root its block ends with.
    #[test]
    fn inverse_undoes_forward_and_products_are_cyclic_convolutions() {
        for &(p, g, _) in &PRIMES[..2] {
            let plan = NttPlan::new(p, g, 10);
            for log_n in 0..=10u32 {
                let n = 1usize << log_n;
                let a: Vec<u64> = (0..n as u64).map(|i| (i * 7919 + 13) % p as u64).collect();
                let b: Vec<u64> = (0..n as u64).map(|i| (i * i + 5) % p as u64).collect();
                let (mut fa, mut fb) = (plan.load(&a, n), plan.load(&b, n));
                plan.forward(&mut fa);
                plan.forward(&mut fb);
                plan.pointwise(&mut fa, &fb);
                plan.inverse(&mut fa);
                let mut want = vec![0u64; n];
                for i in 0..n {
                    for j in 0..n {
                        want[(i + j) % n] = (want[(i + j) % n] + a[i] * b[j] % p as u64) % p as u64;
                    }
                }
                assert_eq!(fa.iter().map(|&v| v as u64).collect::<Vec<_>>(), want, "p={p} n={n}");
            }
        }
    }
}
