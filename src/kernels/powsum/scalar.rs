//! The reference power sum: square-and-multiply per value with `u128` remainders.

use super::reduced_exponent;
use crate::arith::pow_mod;

/// `Σ x^s mod p` for residues `x < p`, `p` prime, `s >= 1`.
pub fn powsum_scalar(values: &[u32], s: u64, p: u32) -> u32 {
    let e = reduced_exponent(s, p);
    let p = p as u64;
    // Each term is below p < 2^31, so 2^33 terms fit a u64 before the sum could overflow;
    // reducing every step keeps it simple.
    values.iter().fold(0u64, |acc, &x| (acc + pow_mod(x as u64, e, p)) % p) as u32
}
