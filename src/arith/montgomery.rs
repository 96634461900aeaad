//! Montgomery multiplication for an odd modulus `p < 2^31`, with `R = 2^32`.
//!
//! A residue `a` is stored as `a·R mod p`. The product of two such forms is reduced by
//! REDC: for `t < p·R`, `m = t·(-p^-1) mod R` makes `t + m·p` divisible by `R`, and
//! `(t + m·p) / R < 2p`; one conditional subtraction brings it to `[0, p)`. The bound
//! `p < 2^31` keeps `2p` inside a `u32`, which the SIMD lane versions rely on.

/// Precomputed constants for Montgomery arithmetic modulo an odd `p < 2^31`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Montgomery32 {
    p: u32,
    /// `-p^-1 mod 2^32`.
    neg_p_inv: u32,
    /// `R^2 mod p`, to move values into Montgomery form with one product.
    r2: u32,
}

impl Montgomery32 {
    /// The largest modulus (exclusive) these routines accept.
    pub const MODULUS_LIMIT: u64 = 1 << 31;

    /// Constants for `p`, or `None` if `p` is even, below 3 or not below 2^31.
    pub fn new(p: u64) -> Option<Self> {
        if p < 3 || p.is_multiple_of(2) || p >= Self::MODULUS_LIMIT {
            return None;
        }
        let p32 = p as u32;
        // Newton's iteration for the inverse modulo 2^32: each step doubles the number of
        // correct low bits, starting from 3 correct bits (p·p ≡ 1 mod 8 for odd p).
        let mut inv = p32;
        for _ in 0..4 {
            inv = inv.wrapping_mul(2u32.wrapping_sub(p32.wrapping_mul(inv)));
        }
        debug_assert_eq!(p32.wrapping_mul(inv), 1);
        let r_mod_p = ((1u128 << 32) % p as u128) as u64;
        Some(Self { p: p32, neg_p_inv: inv.wrapping_neg(), r2: ((r_mod_p * r_mod_p) % p) as u32 })
    }

    /// The modulus.
    #[inline]
    pub fn modulus(&self) -> u32 {
        self.p
    }

    /// `-p^-1 mod 2^32`, for the lane implementations.
    #[inline]
    pub fn neg_p_inv(&self) -> u32 {
        self.neg_p_inv
    }

    /// REDC: `t·R^-1 mod p` in `[0, p)`, for `t < p·2^32`.
    #[inline]
    pub fn reduce(&self, t: u64) -> u32 {
        debug_assert!(t < (self.p as u64) << 32);
        let m = (t as u32).wrapping_mul(self.neg_p_inv);
        // t + m·p < 2p·2^32 <= 2^64 because p < 2^31: no overflow.
        let u = ((t + m as u64 * self.p as u64) >> 32) as u32;
        if u >= self.p { u - self.p } else { u }
    }

    /// Montgomery product of two forms in `[0, p)`: `a·b·R^-1 mod p`.
    #[inline]
    pub fn mul(&self, a: u32, b: u32) -> u32 {
        self.reduce(a as u64 * b as u64)
    }

    /// Converts a residue `a < p` to Montgomery form `a·R mod p`.
    #[inline]
    pub fn to_form(&self, a: u32) -> u32 {
        self.mul(a, self.r2)
    }

    /// Converts a Montgomery form back to the residue it represents.
    #[inline]
    pub fn from_form(&self, a: u32) -> u32 {
        self.reduce(a as u64)
    }

    /// `(a + b) mod p` for `a, b < p` (forms or plain residues alike): `p < 2^31`, so the
    /// sum cannot wrap and one conditional subtraction reduces it.
    #[inline]
    pub fn add(&self, a: u32, b: u32) -> u32 {
        let s = a + b;
        if s >= self.p { s - self.p } else { s }
    }

    /// The Montgomery form of 1, that is `R mod p`.
    #[inline]
    pub fn one(&self) -> u32 {
        self.to_form(1)
    }

    /// `x^e` for a form `x`, returned as a form.
    pub fn pow(&self, x: u32, mut e: u64) -> u32 {
        let (mut result, mut base) = (self.one(), x);
        while e > 0 {
            if e & 1 == 1 {
                result = self.mul(result, base);
            }
            base = self.mul(base, base);
            e >>= 1;
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::{mul_mod, pow_mod};

    #[test]
    fn rejects_unsupported_moduli() {
        for p in [0, 1, 2, 4, 1 << 31, (1 << 31) + 1, u64::MAX] {
            assert!(Montgomery32::new(p).is_none(), "{p}");
        }
    }

    #[test]
    fn products_match_u128_arithmetic_at_edge_values() {
        for p in [3u64, 5, 65_537, 998_244_353, 1_000_000_007, (1 << 31) - 1] {
            let mont = Montgomery32::new(p).unwrap();
            let edges = [0, 1, 2, p / 2, p - 2, p - 1];
            for &a in &edges {
                for &b in &edges {
                    let got = mont.from_form(mont.mul(mont.to_form(a as u32), mont.to_form(b as u32)));
                    assert_eq!(got as u64, mul_mod(a, b, p), "p={p} a={a} b={b}");
                }
                let e = 1_000_000_000_000_000_000;
                let got = mont.from_form(mont.pow(mont.to_form(a as u32), e));
                assert_eq!(got as u64, pow_mod(a, e, p));
            }
        }
    }
}
