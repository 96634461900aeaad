//! The one cross-check for every frequency variant: against the exact direct formula
//! for every `N <= 60`, and the checksum `Σ_v F_N(v) = 2^N` for larger `N`.

use super::{NimberFreqVariant, nimber_freq_direct};
use crate::arith::pow_mod;

/// Compares `variant` with [`nimber_freq_direct`] for `1 <= n <= 60` under several primes
/// (padding `out` past `n` with garbage first), then checks the checksum for the sizes in
/// `large_sizes`.
pub fn check_variant(variant: NimberFreqVariant, large_sizes: &[usize]) -> Result<(), String> {
    for p in [1_000_000_007u32, 2_147_483_647, 61, 101] {
        for n in (1..=60usize).filter(|&n| (n as u64) < p as u64) {
            let exact = nimber_freq_direct(n);
            let mut out = vec![u32::MAX; n + 5];
            variant.run(n, p, &mut out);
            for (v, &got) in out.iter().enumerate() {
                let expected = exact.get(v).map_or(0, |&f| (f % p as u128) as u32);
                if got != expected {
                    return Err(format!(
                        "nimber_freq {variant}: N={n} p={p}: F({v}) is {got}, the direct formula gives {expected}"
                    ));
                }
            }
        }
    }
    let p = 1_000_000_007u32;
    for &n in large_sizes {
        let mut out = vec![0; n];
        variant.run(n, p, &mut out);
        let total = out.iter().fold(0u64, |acc, &f| (acc + f as u64) % p as u64);
        if total != pow_mod(2, n as u64, p as u64) {
            return Err(format!("nimber_freq {variant}: N={n}: frequencies sum to {total}, not 2^N mod p"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn direct_formula_matches_the_seed_table() {
        let table: [&[u128]; 6] =
            [&[2], &[3, 1], &[4, 3, 1], &[6, 6, 3, 1], &[10, 11, 6, 4, 1], &[18, 20, 11, 10, 4, 1]];
        for (i, row) in table.iter().enumerate() {
            assert_eq!(nimber_freq_direct(i + 1), row.to_vec(), "N = {}", i + 1);
        }
        for n in 1..=60 {
            assert_eq!(nimber_freq_direct(n).iter().sum::<u128>(), 1u128 << n, "N = {n}");
        }
    }

    #[test]
    fn every_variant_matches_the_direct_formula() {
        for &v in NimberFreqVariant::ALL {
            check_variant(v, &[61, 1000, 65_537, 100_003]).unwrap();
        }
    }
}
