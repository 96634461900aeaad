//! O(n) formulas for the coin count, `F(n) = [x^0] P(x)^n` (PE 860), as independent
//! alternatives to the quadratic [`crate::kernels::banded_dp`].
//!
//! Multiplying by `x^(n·R)`, with `R` the largest step offset, turns the constant term
//! into an ordinary coefficient: `F(n) = [x^(nR)] Q(x)^n` with `Q(x) = x^R·P(x)`, a
//! polynomial of degree `2R`. For the two-coin stacks `Q = 1 + x^3 + x^5 + x^8`.
//!
//! | variant | identity | applies to |
//! |---|---|---|
//! | `closed-form` | `Q = (1 + x^3)(1 + x^5)`, so `F(n) = Σ_{3a+5b=4n} C(n,a)·C(n,b)` | two-coin stacks, any prime modulus (Lucas' theorem below `n`) |
//! | `recurrence` | `Q·A' = n·Q'·A` for `A = Q^n` gives `a_k` from `a_{k-1..k-2R}` | any step set, a prime above `nR` |
//!
//! Both are exact residues. The family has no reference of its own: its check compares
//! both with the oracle of [`crate::kernels::banded_dp`] (`dp-scalar`), and `recurrence`
//! is the plain variant the benches measure `closed-form` against.

pub mod check;
pub mod closed_form;
pub mod ratio_lanes;
pub mod recurrence;

pub use closed_form::coins_closed_form;
pub use recurrence::{coins_recurrence, coins_recurrence_reporting};

use crate::arith::is_prime;
use crate::kernels::banded_dp::StepSet;
use crate::kernels::variant_enum;
use crate::sched::Scheduler;

variant_enum! {
    /// The O(n) formulas.
    pub enum CoinFormulaVariant {
        /// `Σ_{3a+5b=4n} C(n,a)·C(n,b)` by term ratios (Lucas' theorem for a prime `<= n`).
        ClosedForm => "closed-form",
        /// The holonomic recurrence of `Q(x)^n`, `a_k` from the `2R` before it.
        Recurrence => "recurrence",
    }
}

impl CoinFormulaVariant {
    /// `Ok` if the formula computes `D_n(0) mod modulus` for `steps`, else why not.
    pub fn applicability(self, n: u64, steps: &StepSet, modulus: u64) -> Result<(), String> {
        if !is_prime(modulus) {
            return Err(format!("{self} needs a prime modulus, and {modulus} is not prime"));
        }
        match self {
            CoinFormulaVariant::ClosedForm if *steps != StepSet::two_coin_stacks() => {
                Err(format!("{self} is for stacks of two coins only (it factors 1 + x^3 + x^5 + x^8)"))
            }
            CoinFormulaVariant::ClosedForm => Ok(()),
            CoinFormulaVariant::Recurrence => {
                let top = n.saturating_mul(steps.max_offset() as u64);
                let lowest = steps.steps().last().map_or(0, |&(_, c)| c % modulus);
                if modulus <= top {
                    Err(format!("{self} divides by every k <= n·R = {top}, so it needs a prime above {top}"))
                } else if lowest == 0 {
                    Err(format!("{self} divides by the lowest coefficient of Q, which is 0 mod {modulus}"))
                } else {
                    Ok(())
                }
            }
        }
    }

    /// `D_n(0) mod modulus`.
    ///
    /// # Panics
    /// If [`Self::applicability`] refuses the arguments.
    pub fn run(self, n: usize, steps: &StepSet, modulus: u32) -> u32 {
        self.run_on(n, steps, modulus, &Scheduler::sequential())
    }

    /// [`Self::run`], drawing `sched`'s progress bar where the formula is long (the
    /// recurrence's `n·R` coefficients; the closed form is one pass of `n` terms).
    ///
    /// # Panics
    /// If [`Self::applicability`] refuses the arguments.
    pub fn run_on(self, n: usize, steps: &StepSet, modulus: u32, sched: &Scheduler) -> u32 {
        if let Err(why) = self.applicability(n as u64, steps, modulus as u64) {
            panic!("{why}");
        }
        match self {
            CoinFormulaVariant::ClosedForm => coins_closed_form(sched.simd(), n, modulus),
            CoinFormulaVariant::Recurrence => {
                let progress = sched.progress(n as u64 * steps.max_offset() as u64, "coins: recurrence");
                coins_recurrence_reporting(n, steps, modulus, &progress)
            }
        }
    }

    /// Bytes the formula allocates: Lucas' factorial tables (8 bytes per residue) when
    /// the prime is at most `n`, else a few kilobytes.
    pub fn memory_bytes(self, n: u64, steps: &StepSet, modulus: u64) -> u64 {
        match self {
            CoinFormulaVariant::ClosedForm if modulus <= n => crate::arith::FactorialTable::bytes_for(modulus),
            CoinFormulaVariant::ClosedForm => 0,
            CoinFormulaVariant::Recurrence => {
                8 * (2 * steps.max_offset() as u64 + 1 + recurrence::INVERSE_BLOCK as u64)
            }
        }
    }
}
