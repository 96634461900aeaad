//! The one cross-check for every product variant against the schoolbook reference.

use super::{NttVariant, ntt_reference};
use crate::kernels::SplitMix64;
use crate::kernels::ntt::traversal::TILE_LEN;
use crate::simd::Simd;

/// Moduli the checks use: the smallest, the Project Euler ones times 8 (what the Kayles
/// series need), composite and power-of-two ones, and the largest accepted.
pub const CHECK_MODULI: [u64; 8] =
    [2, 3, 8_000_000_000, 8 * 1_000_000_007, 1 << 35, 999_999_937, 8 * ((1 << 58) - 1), (1 << 62) - 1];

/// Input lengths: 0, 1, 2, 3, powers of two and their neighbours, and the tile size ±1,
/// up to `max_len`.
pub fn check_lengths(max_len: usize) -> Vec<usize> {
    let mut lengths = vec![0, 1, 2, 3];
    let mut p = 4;
    while p < max_len {
        lengths.extend([p - 1, p, p + 1]);
        p *= 4;
    }
    if TILE_LEN / 2 < max_len {
        lengths.extend([TILE_LEN / 2 - 1, TILE_LEN / 2, TILE_LEN / 2 + 1]);
    }
    lengths.push(max_len);
    lengths.sort();
    lengths.dedup();
    lengths
}

/// Runs `variant` on `simd`'s backend against [`ntt_reference`] for pairs of lengths
/// from [`check_lengths`], truncations at, below and above the full length, and inputs
/// that are random, all zero and all `N - 1` (the largest exact coefficients, which
/// decide how many primes are needed).
pub fn check_variant(simd: Simd, variant: NttVariant, max_len: usize) -> Result<(), String> {
    let mut rng = SplitMix64(0x177 + max_len as u64);
    let lengths = check_lengths(max_len);
    for &modulus in &CHECK_MODULI {
        for (index, &la) in lengths.iter().enumerate() {
            // Pair each length with one from the other end of the list, and with itself.
            let lb = lengths[lengths.len() - 1 - index];
            for (la, lb) in [(la, lb), (la, la)] {
                let full = (la + lb).saturating_sub(1);
                for kind in 0..3 {
                    let input = |len: usize, rng: &mut SplitMix64| -> Vec<u64> {
                        (0..len).map(|_| [rng.below(modulus), 0, modulus - 1][kind]).collect()
                    };
                    let (a, b) = (input(la, &mut rng), input(lb, &mut rng));
                    for out_len in [full, full / 2, full + 3] {
                        let got = variant.run_on(simd, &a, &b, modulus, out_len);
                        if got != ntt_reference(&a, &b, modulus, out_len) {
                            return Err(format!(
                                "ntt {variant} on {simd:?}: N={modulus} la={la} lb={lb} out={out_len} input kind {kind} differs"
                            ));
                        }
                    }
                }
                // Squaring takes its own path (one forward transform).
                let a: Vec<u64> = (0..la).map(|_| rng.below(modulus)).collect();
                if variant.run_on(simd, &a, &a, modulus, 2 * la) != ntt_reference(&a, &a, modulus, 2 * la) {
                    return Err(format!("ntt {variant} on {simd:?}: N={modulus} squaring of length {la} differs"));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_matches_the_definition_on_small_integers() {
        // (1 + 2x + 3x^2)(4 + 5x) = 4 + 13x + 22x^2 + 15x^3
        assert_eq!(ntt_reference(&[1, 2, 3], &[4, 5], 1000, 4), [4, 13, 22, 15]);
        assert_eq!(ntt_reference(&[1, 2, 3], &[4, 5], 10, 5), [4, 3, 2, 5, 0]);
        assert_eq!(ntt_reference(&[], &[4, 5], 10, 2), [0, 0]);
    }

    #[test]
    fn cyclic_products_fold_the_full_product() {
        use crate::kernels::ntt::ProductPlan;
        let mut rng = SplitMix64(0xC7C);
        for simd in Simd::tested() {
            let plan = ProductPlan::new(simd, 1 << 10);
            for &modulus in &CHECK_MODULI {
                for (la, lb, len) in [(1, 1, 1), (3, 2, 4), (16, 16, 16), (9, 16, 16), (100, 37, 128), (512, 512, 512)]
                {
                    let a: Vec<u64> = (0..la).map(|_| rng.below(modulus)).collect();
                    let b: Vec<u64> = (0..lb).map(|_| rng.below(modulus)).collect();
                    let full = ntt_reference(&a, &b, modulus, la + lb - 1);
                    let mut folded = vec![0u128; len];
                    for (k, &v) in full.iter().enumerate() {
                        folded[k % len] = (folded[k % len] + v as u128) % modulus as u128;
                    }
                    let want: Vec<u64> = folded.into_iter().map(|v| v as u64).collect();
                    assert_eq!(plan.multiply_cyclic(&a, &b, modulus, len), want, "N={modulus} {la}x{lb} mod X^{len}-1");
                    assert_eq!(
                        plan.multiply_cyclic(&a, &a, modulus, len)[..],
                        {
                            let sq = ntt_reference(&a, &a, modulus, 2 * la - 1);
                            let mut f = vec![0u128; len];
                            for (k, &v) in sq.iter().enumerate() {
                                f[k % len] = (f[k % len] + v as u128) % modulus as u128;
                            }
                            f.into_iter().map(|v| v as u64).collect::<Vec<_>>()
                        }[..]
                    );
                }
            }
        }
    }

    #[test]
    fn every_variant_matches_the_reference_on_every_backend() {
        for simd in Simd::tested() {
            for &v in NttVariant::ALL {
                check_variant(simd, v, 300).unwrap();
            }
        }
    }
}
