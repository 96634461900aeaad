//! The one cross-check for the coin formulas: against the banded-DP reference.

use super::CoinFormulaVariant;
use crate::arith::is_prime;
use crate::kernels::banded_dp::{StepSet, banded_dp_scalar_each};

/// Step sets for the check: the two-coin stacks, a single step, and an uneven set with
/// multiplicities (the recurrence takes any; the closed form refuses all but the first).
pub fn check_step_sets() -> Vec<StepSet> {
    vec![StepSet::two_coin_stacks(), StepSet::new(vec![(1, 1)]), StepSet::new(vec![(1, 3), (2, 1), (7, 2)])]
}

/// The smallest prime above `x`.
pub fn next_prime(x: u64) -> u64 {
    (x + 1..).find(|&q| is_prime(q)).expect("primes are unbounded")
}

/// Compares `variant` with the DP reference for every `n <= max_n` and the primes where
/// it applies: the largest below `2^32`, the problem's, the smallest one the recurrence
/// takes at `max_n`, and small ones (Lucas' theorem for the closed form). Fails if the
/// variant applied to none of them.
pub fn check_formula(variant: CoinFormulaVariant, max_n: usize) -> Result<usize, String> {
    let mut compared = 0;
    for steps in check_step_sets() {
        let smallest = next_prime(max_n as u64 * steps.max_offset() as u64);
        for p in [4_294_967_291u64, 989_898_989, smallest, 2, 3, 5, 7, 13, 101] {
            let reference = banded_dp_scalar_each(max_n, &steps, p as u32);
            for (n, &expected) in reference.iter().enumerate() {
                if variant.applicability(n as u64, &steps, p).is_ok() {
                    let got = variant.run(n, &steps, p as u32);
                    if got != expected {
                        return Err(format!(
                            "{variant}: n={n} p={p} steps={:?}: got {got}, reference {expected}",
                            steps.steps()
                        ));
                    }
                    compared += 1;
                }
            }
        }
    }
    if compared == 0 { Err(format!("{variant} applied to no case")) } else { Ok(compared) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_formula_matches_the_reference_to_300() {
        for &v in CoinFormulaVariant::ALL {
            let compared = check_formula(v, 300).unwrap();
            assert!(compared > 300, "{v}: only {compared} comparisons");
        }
    }

    #[test]
    fn formulas_refuse_what_they_cannot_compute() {
        let two = StepSet::two_coin_stacks();
        for &v in CoinFormulaVariant::ALL {
            assert!(v.applicability(10, &two, 989_898_988).is_err(), "{v} with a composite");
        }
        assert!(CoinFormulaVariant::ClosedForm.applicability(10, &StepSet::new(vec![(1, 1)]), 101).is_err());
        assert!(CoinFormulaVariant::ClosedForm.applicability(10_000, &two, 101).is_ok()); // Lucas
        assert!(CoinFormulaVariant::Recurrence.applicability(25, &two, 101).is_ok()); // 101 > 100
        assert!(CoinFormulaVariant::Recurrence.applicability(26, &two, 101).is_err()); // 101 <= 104
        assert!(CoinFormulaVariant::Recurrence.applicability(1, &StepSet::new(vec![(1, 1), (2, 7)]), 7).is_err());
    }
}
