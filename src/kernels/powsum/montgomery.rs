//! One value at a time in scalar Montgomery arithmetic: the baseline the lane variants
//! are measured against (`%` by a run-time modulus is several times slower still).

use super::{plain_power_correction, reduced_exponent};
use crate::arith::Montgomery32;

/// `Σ x^s mod p` for residues `x < p`, `p` an odd prime below 2^31, `s >= 1`.
pub fn powsum_montgomery(values: &[u32], s: u64, p: u32) -> u32 {
    let mont = Montgomery32::new(p as u64).expect("the caller checked p");
    let e = reduced_exponent(s, p);
    // Each power is below p < 2^31, so a u64 holds the sum of 2^33 of them: far more
    // values than a slice of u32 residues can hold in memory here.
    let sum = values.iter().map(|&x| plain_power(&mont, x, e) as u64).sum::<u64>() % p as u64;
    mont.mul(sum as u32, plain_power_correction(&mont, e))
}

/// `x^e·R^-(e-1) mod p` for a residue `x` (not a Montgomery form), `e >= 1`: left-to-right
/// square-and-multiply with Montgomery products, starting from `x` itself.
#[inline]
fn plain_power(mont: &Montgomery32, x: u32, e: u64) -> u32 {
    let mut acc = x;
    for bit in (0..63 - e.leading_zeros()).rev() {
        acc = mont.mul(acc, acc);
        if e >> bit & 1 == 1 {
            acc = mont.mul(acc, x);
        }
    }
    acc
}
