//! The one cross-check for every banded-DP variant: against the scalar reference, and
//! the reference against plain polynomial multiplication.

use super::{BandedDpVariant, StepSet, banded_dp_scalar};
use crate::sched::Scheduler;

/// Step sets the checks use: the two-coin stacks, a single step, and a wider uneven set.
pub fn check_step_sets() -> Vec<StepSet> {
    vec![StepSet::two_coin_stacks(), StepSet::new(vec![(1, 1)]), StepSet::new(vec![(1, 3), (2, 1), (7, 2)])]
}

/// Compares `variant` with [`banded_dp_scalar`] for every `n` in `0..=max_n`.
pub fn check_variant(variant: BandedDpVariant, max_n: usize, sched: &Scheduler) -> Result<(), String> {
    for steps in check_step_sets() {
        for modulus in [989_898_989u32, 1_000_000_007, u32::MAX, 2, 1 << 31] {
            for n in 0..=max_n {
                let expected = banded_dp_scalar(n, &steps, modulus);
                let got = variant.run(n, &steps, modulus, sched);
                if got != expected {
                    return Err(format!(
                        "banded_dp {variant}: n={n} m={modulus} steps={:?}: got {got}, reference {expected}",
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
        // Seed checkpoints: F(2) = 4 and F(10) = 63594.
        assert_eq!(constant_term_by_polynomial_powers(2, &StepSet::two_coin_stacks()), 4);
        assert_eq!(constant_term_by_polynomial_powers(10, &StepSet::two_coin_stacks()), 63594);
    }

    #[test]
    fn every_variant_matches_the_reference() {
        for threads in [1, 2] {
            let sched = Scheduler::new(Some(threads)).unwrap();
            for &v in BandedDpVariant::ALL {
                check_variant(v, 40, &sched).unwrap();
            }
        }
    }
}
