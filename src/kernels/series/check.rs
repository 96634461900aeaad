//! The one cross-check for every character-series variant against the reference.

use super::{BlockSigns, SeriesVariant, series_reference};
use crate::kernels::SplitMix64;
use crate::simd::Simd;

/// Moduli `M' = 16·M` for the moduli users ask for most and the extremes
/// (`M = 2^58 - 1` is the largest the game accepts), the edges of `catalan-words`
/// (`M'/2 = 2^16·(2^21 - 1)` is its largest modulus in both factors; `2^17·3` and
/// `8·(2^21 + 1)` are just outside), plus the smallest even moduli.
pub fn check_moduli() -> Vec<u64> {
    let mut moduli: Vec<u64> = [
        1_000_000_000u64,
        1_000_000_007,
        2,
        1 << 32,
        999_999_937,
        (1 << 58) - 1,
        (1 << 13) * ((1 << 21) - 1),
        (1 << 14) * 3,
        (1 << 21) + 1,
    ]
    .iter()
    .map(|m| 16 * m)
    .collect();
    moduli.extend([2, 6]);
    moduli
}

/// Lengths `m` the checks use: 0, 1, 2, powers of two and their neighbours (where
/// transform sizes and lane counts change), and `max_m`.
pub fn check_lengths(max_m: usize) -> Vec<usize> {
    let mut lengths = vec![0, 1, 2, 3];
    for bits in 2..usize::BITS {
        let p = 1usize << bits;
        if p + 1 >= max_m {
            break;
        }
        lengths.extend([p - 1, p, p + 1]);
    }
    lengths.push(max_m);
    lengths.dedup();
    lengths
}

/// Sign patterns: all plus, all minus, random eventually periodic ones of several
/// shapes (including the Dawson shape, preperiod 53 and period 34), and random signs
/// with no period within the range.
pub fn check_characters(max_m: usize, rng: &mut SplitMix64) -> Vec<BlockSigns> {
    let mut random = |preperiod: usize, period: usize| {
        let head = (0..preperiod + period).map(|_| if rng.next_u64() & 1 == 0 { 1 } else { -1 }).collect();
        BlockSigns::new(head, preperiod, period)
    };
    let mut characters = vec![BlockSigns::constant(1), BlockSigns::constant(-1)];
    for (preperiod, period) in [(53, 34), (53, 34), (0, 1), (1, 2), (4, 7), (10, 3), (53, 17), (2 * max_m + 2, 1)] {
        characters.push(random(preperiod, period));
    }
    characters
}

/// Compares `variant` with [`series_reference`] on every backend this CPU has
/// ([`Simd::tested`]): each character alone, then all of them in one batch (more
/// than one lane group), for every length of [`check_lengths`] and every modulus of
/// [`check_moduli`].
pub fn check_variant(variant: SeriesVariant, max_m: usize) -> Result<(), String> {
    for simd in Simd::tested() {
        check_variant_on(simd, variant, max_m)?;
    }
    Ok(())
}

/// [`check_variant`] on one backend.
pub fn check_variant_on(simd: Simd, variant: SeriesVariant, max_m: usize) -> Result<(), String> {
    let mut rng = SplitMix64(0x5E41E5 + max_m as u64);
    let characters = check_characters(max_m, &mut rng);
    for modulus in check_moduli() {
        let expected: Vec<Vec<u64>> =
            characters.iter().map(|s| series_reference(&s.materialize(2 * max_m + 2), max_m, modulus)).collect();
        for m in check_lengths(max_m) {
            for (index, signs) in characters.iter().enumerate() {
                let got = variant.run_on(simd, std::slice::from_ref(signs), m, modulus);
                if got[..] != expected[index][..=m] {
                    let k = (0..=m).find(|&k| got.get(k) != expected[index].get(k));
                    return Err(format!(
                        "series {variant} ({simd}): character {index}, m={m}, M'={modulus}: first difference at u^{k:?}"
                    ));
                }
            }
        }
        let batch = variant.run_on(simd, &characters, max_m, modulus);
        let want: Vec<u64> = (0..=max_m)
            .map(|k| (expected.iter().map(|c| c[k] as u128).sum::<u128>() % modulus as u128) as u64)
            .collect();
        if batch != want {
            return Err(format!(
                "series {variant} ({simd}): the batch of {} characters differs, M'={modulus}",
                characters.len()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_plus_character_counts_central_binomials() {
        // docs/theory/kayles.md §10: with every sign +1 the series is 1/sqrt(1-4u).
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
            check_variant(v, 70).unwrap();
        }
    }
}
