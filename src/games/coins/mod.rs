//! Gold and silver coin stacks (Project Euler 860): count the fair arrangements of `n`
//! stacks of two coins.
//!
//! Theory (seed `pe860-coin-stacks`): a stack is a Blue-Red Hackenbush string; the four
//! two-coin stacks are the numbers `GG = 2, GS = 1/2, SG = -1/2, SS = -2`. A sum of
//! numbers is a second-player win exactly when it is 0, so doubling the values,
//!
//! ```text
//! F(n) = [x^0] (x^4 + x + x^-1 + x^-4)^n
//! ```
//!
//! which the [`crate::kernels::banded_dp`] family computes.

pub mod brute;

use crate::games::{Answer, Check, InputError, ProblemId, parse_kernel};
use crate::kernels::banded_dp::{BandedDpVariant, StepSet};
use crate::kernels::variant_enum;
use crate::memory;
use crate::sched::Scheduler;

/// The most stacks accepted.
pub const MAX_STACKS: u64 = 1_000_000_000;

/// Validated parameters: `F(stacks) mod modulus`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoinsParams {
    /// Number of stacks, `n`.
    pub stacks: u64,
    /// The answer is reported modulo this (`2 <= modulus < 2^32`).
    pub modulus: u64,
}

impl CoinsParams {
    /// The default modulus, `989898989`.
    pub const DEFAULT_MODULUS: u64 = 989_898_989;

    /// The Project Euler instance: `F(9898) mod 989898989`.
    pub fn instance() -> Self {
        Self { stacks: 9898, modulus: Self::DEFAULT_MODULUS }
    }

    /// Validates the parameters.
    pub fn new(stacks: u64, modulus: u64) -> Result<Self, InputError> {
        let err = |m: String| Err(InputError::new(ProblemId::Coins, m));
        if stacks == 0 {
            return err("--stacks must be at least 1".into());
        }
        if stacks > MAX_STACKS {
            return err(format!("--stacks {stacks} is above the supported maximum of {MAX_STACKS}"));
        }
        if !(2..1 << 32).contains(&modulus) {
            return err(format!("--modulus {modulus} must be at least 2 and below 2^32"));
        }
        Ok(Self { stacks, modulus })
    }
}

variant_enum! {
    /// How the constant term is computed.
    pub enum CoinsKernel {
        /// Two rolling layers over the whole band: the reference.
        DpScalar => "dp-scalar",
    }
}

impl CoinsKernel {
    /// The fastest kernel that applies to `params`.
    pub fn default_for(_params: &CoinsParams) -> Self {
        CoinsKernel::DpScalar
    }

    /// Parses `--kernel` (default: [`Self::default_for`]).
    pub fn parse(name: Option<&str>, params: &CoinsParams) -> Result<Self, InputError> {
        parse_kernel(ProblemId::Coins, name, Self::default_for(params))
    }
}

/// Refuses what the kernel cannot do or what would not fit in memory, before any work.
pub fn preflight(params: &CoinsParams, kernel: CoinsKernel) -> Result<(), InputError> {
    let steps = StepSet::two_coin_stacks();
    match kernel {
        CoinsKernel::DpScalar => memory::ensure_fits(
            ProblemId::Coins,
            "the DP band",
            BandedDpVariant::Scalar.memory_bytes(params.stacks, &steps),
        ),
    }
}

/// Computes `F(stacks) mod modulus`.
pub fn solve(params: &CoinsParams, kernel: CoinsKernel, sched: &Scheduler) -> Result<Answer, InputError> {
    preflight(params, kernel)?;
    let steps = StepSet::two_coin_stacks();
    let answer = match kernel {
        CoinsKernel::DpScalar => {
            BandedDpVariant::Scalar.run(params.stacks as usize, &steps, params.modulus as u32, sched) as u64
        }
    };
    Ok(Answer {
        problem: ProblemId::Coins,
        params: vec![("stacks", params.stacks), ("modulus", params.modulus)],
        answer,
        extra: vec![],
        kernel: kernel.name(),
    })
}

/// The checks `gamecount verify` runs for this problem.
pub fn checks(deep: bool) -> Vec<Check> {
    let max_n = if deep { 9 } else { 7 };
    vec![
        Check::new(
            format!("coins: minimax of the real game for n <= {max_n} stacks equals every kernel"),
            move |sched| {
                let mut searched = Vec::new();
                for n in 1..=max_n {
                    let expected = brute::fair_arrangements(n, 2);
                    for &kernel in CoinsKernel::ALL {
                        let params =
                            CoinsParams::new(n as u64, CoinsParams::DEFAULT_MODULUS).map_err(|e| e.to_string())?;
                        let got = solve(&params, kernel, sched).map_err(|e| e.to_string())?.answer;
                        if got != expected {
                            return Err(format!("{kernel}: F({n}) = {got}, search gives {expected}"));
                        }
                    }
                    searched.push(expected);
                }
                Ok(format!("F(1..={max_n}) = {searched:?}"))
            },
        ),
        Check::new("coins: checkpoints F(2) = 4, F(10) = 63594 with every kernel", |sched| {
            for &kernel in CoinsKernel::ALL {
                for (n, expected) in [(2u64, 4u64), (10, 63_594)] {
                    let params = CoinsParams::new(n, CoinsParams::DEFAULT_MODULUS).map_err(|e| e.to_string())?;
                    let got = solve(&params, kernel, sched).map_err(|e| e.to_string())?.answer;
                    if got != expected {
                        return Err(format!("{kernel}: F({n}) = {got}"));
                    }
                }
            }
            Ok("both hold".into())
        }),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_parameters() {
        assert!(CoinsParams::new(0, 7).is_err());
        assert!(CoinsParams::new(5, 1).is_err());
        assert!(CoinsParams::new(5, 1 << 32).is_err());
        assert!(CoinsParams::new(MAX_STACKS + 1, 7).is_err());
        assert!(CoinsParams::new(1, 2).is_ok());
    }

    #[test]
    fn search_matches_every_kernel_to_five_stacks() {
        for n in 1..=5u64 {
            let expected = brute::fair_arrangements(n as usize, 2);
            for &kernel in CoinsKernel::ALL {
                let params = CoinsParams::new(n, CoinsParams::DEFAULT_MODULUS).unwrap();
                assert_eq!(
                    solve(&params, kernel, &Scheduler::sequential()).unwrap().answer,
                    expected,
                    "{kernel} n={n}"
                );
            }
        }
    }

    #[test]
    fn answers_do_not_depend_on_the_thread_count() {
        let params = CoinsParams::new(700, 1_000_000_007).unwrap();
        for &kernel in CoinsKernel::ALL {
            let answers: Vec<u64> = [1, 2, 3, 8]
                .iter()
                .map(|&t| solve(&params, kernel, &Scheduler::new(Some(t)).unwrap()).unwrap().answer)
                .collect();
            assert!(answers.windows(2).all(|w| w[0] == w[1]), "{kernel}: {answers:?}");
        }
    }
}
