//! The one cross-check for every banded-DP variant: against the scalar reference, and
//! the reference against plain polynomial multiplication.

use super::{BandedDpVariant, StepSet, banded_dp_scalar_each};
use crate::sched::Scheduler;

/// Step sets the checks use: the two-coin stacks, a single step, a wider uneven set with
/// multiplicities, and the values of stacks of three coins (`±1, ±3, ±6, ±12`).
pub fn check_step_sets() -> Vec<StepSet> {
    vec![
        StepSet::two_coin_stacks(),
        StepSet::new(vec![(1, 1)]),
        StepSet::new(vec![(1, 3), (2, 1), (7, 2)]),
        StepSet::new(vec![(1, 1), (3, 1), (6, 1), (12, 1)]),
    ]
}

/// Moduli of the checks, one per reduction strategy and edge: the problem's (lazy, two
/// folds), `1e9+7`, the smallest (2), `2^31` (reduced after each addition) and the
/// largest (`2^32 - 1`, the full-range addition).
pub const CHECK_MODULI: [u32; 5] = [989_898_989, 1_000_000_007, 2, 1 << 31, u32::MAX];

/// Compares `variant` with the reference for every `n` in `0..=max_n`, every check step
/// set and every check modulus. Every `n` from 0 on covers the small windows (fewer rows
/// than lanes), every tile boundary of `dp-parallel` up to `max_n`, and `n` around the
/// powers of two.
pub fn check_variant(variant: BandedDpVariant, max_n: usize, sched: &Scheduler) -> Result<(), String> {
    for steps in check_step_sets() {
        for modulus in CHECK_MODULI {
            let reference = banded_dp_scalar_each(max_n, &steps, modulus);
            for (n, &expected) in reference.iter().enumerate() {
                let got = variant.run(n, &steps, modulus, sched);
                if got != expected {
                    return Err(format!(
                        "banded_dp {variant} on {:?}: n={n} m={modulus} steps={:?}: got {got}, reference {expected}",
                        sched.simd(),
                        steps.steps()
                    ));
                }
            }
        }
    }
    Ok(())
}

/// `[x^0] P(x)^n` exactly, by repeated multiplication of full coefficient vectors.
pub fn constant_term_by_polynomial_powers(n: usize, steps: &StepSet) -> u128 {
    let reach = steps.max_offset() as usize;
    let mut poly = vec![1u128];
    for _ in 0..n {
        let mut product = vec![0u128; poly.len() + 2 * reach];
        for (i, &a) in poly.iter().enumerate() {
            for &(o, c) in steps.steps() {
                let o = o as usize;
                product[i + reach - o] += a * c as u128;
                product[i + reach + o] += a * c as u128;
            }
        }
        poly = product;
    }
    poly[poly.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::banded_dp::banded_dp_scalar;

    #[test]
    fn scalar_matches_polynomial_powers() {
        for steps in check_step_sets() {
            for n in 0..=12 {
                let exact = constant_term_by_polynomial_powers(n, &steps);
                for m in [989_898_989u32, u32::MAX, 2] {
                    assert_eq!(banded_dp_scalar(n, &steps, m) as u128, exact % m as u128, "n={n}");
                }
            }
        }
        // The statement's checkpoints (docs/theory/coins.md §5): F(2) = 4 and F(10) = 63594.
        assert_eq!(constant_term_by_polynomial_powers(2, &StepSet::two_coin_stacks()), 4);
        assert_eq!(constant_term_by_polynomial_powers(10, &StepSet::two_coin_stacks()), 63594);
    }

    #[test]
    fn the_reference_answers_each_size_as_it_answers_the_largest() {
        for steps in check_step_sets() {
            let each = banded_dp_scalar_each(30, &steps, 1_000_000_007);
            for (n, &value) in each.iter().enumerate() {
                assert_eq!(value, banded_dp_scalar(n, &steps, 1_000_000_007));
            }
        }
    }

    #[test]
    fn every_variant_matches_the_reference_to_300_on_every_backend() {
        for simd in crate::simd::Simd::tested() {
            for threads in [1, 2] {
                let sched = Scheduler::new(Some(threads)).unwrap().with_simd(simd);
                // The reference itself is checked above, against polynomial powers.
                for &v in BandedDpVariant::ALL.iter().filter(|&&v| v != BandedDpVariant::Scalar) {
                    check_variant(v, 300, &sched).unwrap();
                }
            }
        }
    }

    /// The tiles of `dp-parallel` at small sizes, below the width at which the variant
    /// itself hands the work to `dp-simd`: every size to 100 on two threads, and the
    /// edges (empty, a single row, tile lengths ±1) on 3 and 8. Two moduli: the lazy and
    /// the full-range reduction (the strategies themselves are checked lane by lane).
    #[test]
    fn parallel_tiles_match_the_reference_at_small_sizes() {
        use crate::kernels::banded_dp::parallel::banded_dp_parallel_tiles;
        let every: Vec<usize> = (0..=100).collect();
        let edges = [0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 33, 64];
        let runs = [(2, &every[..]), (3, &edges[..]), (8, &edges[..])];
        for ((threads, sizes), simd) in
            runs.into_iter().flat_map(|r| crate::simd::Simd::tested().into_iter().map(move |s| (r, s)))
        {
            let sched = Scheduler::new(Some(threads)).unwrap().with_simd(simd);
            for steps in check_step_sets() {
                for modulus in [989_898_989, u32::MAX] {
                    let reference = banded_dp_scalar_each(100, &steps, modulus);
                    for &n in sizes {
                        let got = banded_dp_parallel_tiles(n, &steps, modulus, &sched);
                        assert_eq!(
                            got,
                            reference[n],
                            "{simd:?}, {threads} threads, n={n} m={modulus} steps={:?}",
                            steps.steps()
                        );
                    }
                }
            }
        }
    }

    /// Sizes where `dp-parallel` takes tiles longer than the minimum, so the ghost zones
    /// and the shares follow the tile-length formula rather than its clamp.
    #[test]
    fn parallel_tiles_longer_than_the_minimum() {
        let steps = StepSet::two_coin_stacks();
        for n in [2600, 2601] {
            assert!(super::super::parallel::tile_layers(4 * n / 2 + 1, 2, 4) > super::super::parallel::MIN_TILE_LAYERS);
            let expected = BandedDpVariant::Simd.run(n, &steps, 989_898_989, &Scheduler::sequential());
            assert_eq!(expected, banded_dp_scalar(n, &steps, 989_898_989));
            for threads in [2, 3] {
                let got =
                    BandedDpVariant::Parallel.run(n, &steps, 989_898_989, &Scheduler::new(Some(threads)).unwrap());
                assert_eq!(got, expected, "n={n} threads={threads}");
            }
        }
    }
}
