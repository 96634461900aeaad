//! The one cross-check for every character-series variant against the reference.

use super::{SeriesVariant, series_reference};
use crate::kernels::SplitMix64;

/// Moduli `M' = 16·M` for the moduli users ask for most (and the extremes).
pub fn check_moduli() -> Vec<u64> {
    [1_000_000_000u64, 1_000_000_007, 2, 1 << 32, 999_999_937].iter().map(|m| 16 * m).collect()
}

/// Compares `variant` with [`series_reference`] on random sign sequences and on the
/// all-plus character, for every length up to `max_m`.
pub fn check_variant(variant: SeriesVariant, max_m: usize) -> Result<(), String> {
    let mut rng = SplitMix64(0x5E41E5);
    for modulus in check_moduli() {
        let all_plus = vec![1i8; 2 * max_m + 2];
        let random: Vec<i8> = (0..2 * max_m + 2).map(|_| if rng.next_u64() & 1 == 0 { 1 } else { -1 }).collect();
        for (kind, signs) in [("all-plus", &all_plus), ("random", &random)] {
            let expected = series_reference(signs, max_m, modulus);
            let got = variant.run(signs, max_m, modulus);
            if got != expected {
                let k = (0..=max_m).find(|&k| got.get(k) != expected.get(k));
                return Err(format!("series {variant}: {kind} signs, M'={modulus}: first difference at u^{k:?}"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_plus_character_counts_central_binomials() {
        // Seed section 11: with every sign +1 the series is 1/sqrt(1-4u).
        let m = 200;
        let modulus = 16 * 1_000_000_000u64;
        let got = series_reference(&vec![1; 2 * m + 2], m, modulus);
        // C(2k, k) modulo M' from Pascal's triangle (no division, so any modulus works).
        let mut row = vec![1u64];
        for (k, &c) in got.iter().enumerate() {
            assert_eq!(c, row[k], "k={k}");
            for _ in 0..2 {
                let mut next = vec![1u64; row.len() + 1];
                for i in 1..row.len() {
                    next[i] = (row[i - 1] + row[i]) % modulus;
                }
                row = next;
            }
        }
    }

    #[test]
    fn every_variant_matches_the_reference() {
        for &v in SeriesVariant::ALL {
            check_variant(v, 120).unwrap();
        }
    }
}
