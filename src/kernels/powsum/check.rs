//! The one cross-check for every power-sum variant against the scalar reference.

use super::{PowsumVariant, powsum_scalar};
use crate::kernels::SplitMix64;
use crate::sched::Scheduler;

/// Exponents that exercise the reduction: 1, 2, small, `p - 1`, `p`, multiples of
/// `p - 1` plus one, and the largest `u64`.
fn check_exponents(p: u32) -> Vec<u64> {
    let order = p as u64 - 1;
    vec![1, 2, 3, 10_000_000, order, order + 1, 3 * order + 1, u64::MAX]
}

/// Runs `variant` on value counts `0 ..= max_len` (every length, to hit every tail of a
/// lane loop) with random residues and edge values, for several primes and exponents.
pub fn check_variant(variant: PowsumVariant, max_len: usize, sched: &Scheduler) -> Result<(), String> {
    let mut rng = SplitMix64(0x9075);
    for p in [1_000_000_007u32, 2_147_483_647, 3, 65_537] {
        for s in check_exponents(p) {
            for len in (0..=max_len).filter(|&n| n <= 40 || n % 37 == 0 || n == max_len) {
                let values: Vec<u32> = (0..len)
                    .map(|i| match i % 5 {
                        0 => rng.below(p as u64) as u32,
                        1 => p - 1,
                        2 => 0,
                        3 => 1,
                        _ => rng.below(p as u64) as u32,
                    })
                    .collect();
                let expected = powsum_scalar(&values, s, p);
                let got = variant.run(&values, s, p, sched);
                if got != expected {
                    return Err(format!(
                        "powsum {variant}: p={p} s={s} len={len}: got {got}, the reference gives {expected}"
                    ));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::pow_mod;

    #[test]
    fn scalar_matches_direct_powers() {
        let p = 1_000_000_007u32;
        let values = [0u32, 1, 2, 3, p - 1, 123_456_789];
        for s in [1u64, 2, 5, p as u64 - 1, p as u64, u64::MAX] {
            let expected = values.iter().fold(0u64, |acc, &x| (acc + pow_mod(x as u64, s, p as u64)) % p as u64);
            assert_eq!(powsum_scalar(&values, s, p) as u64, expected, "s={s}");
        }
    }

    #[test]
    fn every_variant_matches_the_reference() {
        for threads in [1, 2] {
            let sched = Scheduler::new(Some(threads)).unwrap();
            for &v in PowsumVariant::ALL {
                check_variant(v, 300, &sched).unwrap();
            }
        }
    }
}
