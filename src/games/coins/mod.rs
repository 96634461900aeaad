//! Gold and silver coin stacks (Project Euler 860): count the fair arrangements of `n`
//! stacks of two coins (or of `H` coins, `--height`).
//!
//! Theory (`docs/theory/coins.md`): a stack is a Blue-Red Hackenbush string; the four
//! two-coin stacks are the numbers `GG = 2, GS = 1/2, SG = -1/2, SS = -2`. A sum of
//! numbers is a second-player win exactly when it is 0, so doubling the values,
//!
//! ```text
//! F(n) = [x^0] (x^4 + x + x^-1 + x^-4)^n
//! ```
//!
//! which the [`crate::kernels::banded_dp`] family computes in O(n²), and the
//! [`crate::kernels::coin_formulas`] family in O(n) for a prime modulus. Stacks of `H`
//! coins have the values of [`values`], scaled by `2^(H-1)`: the same DP over their step
//! set, and the recurrence (the closed form is for `H = 2`).

pub mod brute;
pub mod values;

use crate::games::{Answer, Check, InputError, ProblemId, parse_kernel};
use crate::kernels::banded_dp::{BandedDpVariant, StepSet};
use crate::kernels::coin_formulas::CoinFormulaVariant;
use crate::kernels::variant_enum;
use crate::memory;
use crate::sched::Scheduler;
pub use values::MAX_HEIGHT;

/// The most stacks accepted.
pub const MAX_STACKS: u64 = 1_000_000_000;
/// The largest modulus accepted (the kernels reduce in `u32`).
pub const MAX_MODULUS: u64 = u32::MAX as u64;

/// Validated parameters: `F(stacks) mod modulus` for stacks of `height` coins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoinsParams {
    /// Number of stacks, `n`.
    pub stacks: u64,
    /// Coins per stack, `H` (2 in the Project Euler problem).
    pub height: u64,
    /// The answer is reported modulo this (`2 <= modulus < 2^32`).
    pub modulus: u64,
}

impl CoinsParams {
    /// The default modulus, `989898989` (a prime).
    pub const DEFAULT_MODULUS: u64 = 989_898_989;
    /// The default height, 2.
    pub const DEFAULT_HEIGHT: u64 = 2;

    /// The Project Euler instance: `F(9898) mod 989898989`, two coins per stack.
    pub fn instance() -> Self {
        Self { stacks: 9898, height: Self::DEFAULT_HEIGHT, modulus: Self::DEFAULT_MODULUS }
    }

    /// Validates the parameters.
    pub fn new(stacks: u64, height: u64, modulus: u64) -> Result<Self, InputError> {
        let err = |m: String| Err(InputError::new(ProblemId::Coins, m));
        // stacks = 0 is answered by `solve` without the kernels: F(0) = 1.
        if stacks > MAX_STACKS {
            return err(format!("--stacks {stacks} is above the supported maximum of {MAX_STACKS}"));
        }
        if !(1..=MAX_HEIGHT).contains(&height) {
            return err(format!("--height {height} must be between 1 and {MAX_HEIGHT}"));
        }
        if !(2..=MAX_MODULUS).contains(&modulus) {
            return err(format!("--modulus {modulus} must be at least 2 and at most {MAX_MODULUS} (2^32 - 1)"));
        }
        Ok(Self { stacks, height, modulus })
    }

    /// The DP step set: the stack values scaled by `2^(height-1)`.
    pub fn steps(&self) -> StepSet {
        values::step_set(self.height as u32)
    }
}

variant_enum! {
    /// How the constant term is computed.
    pub enum CoinsKernel {
        /// Two rolling layers over the whole band: the reference. Any height and modulus.
        DpScalar => "dp-scalar",
        /// Half the band in phase-major `u32x16` rows, one thread. Any height and modulus.
        DpSimd => "dp-simd",
        /// `dp-simd` in tiles of many layers over all threads. Any height and modulus.
        DpParallel => "dp-parallel",
        /// `Σ C(n,a)·C(n,b)` over `3a + 5b = 4n`: height 2, a prime modulus.
        ClosedForm => "closed-form",
        /// The recurrence of `Q(x)^n`: any height, a prime modulus above `n·H·2^(H-1)`.
        Recurrence => "recurrence",
    }
}

impl CoinsKernel {
    /// The fastest kernel that applies to `params`: the closed form (O(n), 3 products
    /// and 16 additions per 5 stacks), else the recurrence (O(n·2^H)), else the parallel DP (O(n²)).
    pub fn default_for(params: &CoinsParams) -> Self {
        [CoinsKernel::ClosedForm, CoinsKernel::Recurrence]
            .into_iter()
            .find(|k| k.applicability(params).is_ok())
            .unwrap_or(CoinsKernel::DpParallel)
    }

    /// Parses `--kernel` (default: [`Self::default_for`]).
    pub fn parse(name: Option<&str>, params: &CoinsParams) -> Result<Self, InputError> {
        parse_kernel(ProblemId::Coins, name, Self::default_for(params))
    }

    /// The banded-DP variant behind a DP kernel.
    pub fn dp(self) -> Option<BandedDpVariant> {
        match self {
            CoinsKernel::DpScalar => Some(BandedDpVariant::Scalar),
            CoinsKernel::DpSimd => Some(BandedDpVariant::Simd),
            CoinsKernel::DpParallel => Some(BandedDpVariant::Parallel),
            CoinsKernel::ClosedForm | CoinsKernel::Recurrence => None,
        }
    }

    /// The formula behind a formula kernel.
    pub fn formula(self) -> Option<CoinFormulaVariant> {
        match self {
            CoinsKernel::ClosedForm => Some(CoinFormulaVariant::ClosedForm),
            CoinsKernel::Recurrence => Some(CoinFormulaVariant::Recurrence),
            _ => None,
        }
    }

    /// `Ok` if the kernel can compute `params`, else why not.
    pub fn applicability(self, params: &CoinsParams) -> Result<(), String> {
        match self.formula() {
            Some(f) => f.applicability(params.stacks, &params.steps(), params.modulus),
            None => Ok(()),
        }
    }

    /// The kernels that can compute `params`, default first.
    pub fn applicable(params: &CoinsParams) -> Vec<Self> {
        let default = Self::default_for(params);
        std::iter::once(default)
            .chain(Self::ALL.iter().copied().filter(|&k| k != default && k.applicability(params).is_ok()))
            .collect()
    }
}

/// Refuses what the kernel cannot do or what would not fit in memory, before any work.
pub fn preflight(params: &CoinsParams, kernel: CoinsKernel) -> Result<(), InputError> {
    if let Err(why) = kernel.applicability(params) {
        let others: Vec<&str> = CoinsKernel::applicable(params).iter().map(|k| k.name()).collect();
        return Err(InputError::new(ProblemId::Coins, format!("{why}; kernels that apply: {}", others.join(", "))));
    }
    let steps = params.steps();
    let (what, bytes) = match (kernel.dp(), kernel.formula()) {
        (Some(dp), _) => ("the DP band", dp.memory_bytes(params.stacks, &steps)),
        (_, Some(f)) => ("the formula's tables", f.memory_bytes(params.stacks, &steps, params.modulus)),
        (None, None) => unreachable!("every kernel is a DP or a formula"),
    };
    memory::ensure_fits(ProblemId::Coins, what, bytes)
}

/// Computes `F(stacks) mod modulus`.
pub fn solve(params: &CoinsParams, kernel: CoinsKernel, sched: &Scheduler) -> Result<Answer, InputError> {
    preflight(params, kernel)?;
    let (n, steps, m) = (params.stacks as usize, params.steps(), params.modulus as u32);
    let answer = match (kernel.dp(), kernel.formula()) {
        // No stacks: the one empty arrangement, value 0, leaves whoever starts without a
        // move, so F(0) = [x^0] P(x)^0 = 1 (the DP's first layer; the formulas start
        // from n >= 1).
        _ if n == 0 => 1 % m,
        (Some(dp), _) => dp.run(n, &steps, m, sched),
        (_, Some(f)) => f.run_on(n, &steps, m, sched),
        (None, None) => unreachable!("every kernel is a DP or a formula"),
    } as u64;
    Ok(Answer {
        problem: ProblemId::Coins,
        params: vec![("stacks", params.stacks), ("height", params.height), ("modulus", params.modulus)],
        answer,
        extra: vec![],
        kernel: kernel.name(),
    })
}

/// `F` by every kernel that applies, or the first disagreement with `expected`.
fn every_kernel_gives(n: u64, height: u64, expected: u64, sched: &Scheduler) -> Result<usize, String> {
    let params = CoinsParams::new(n, height, CoinsParams::DEFAULT_MODULUS).map_err(|e| e.to_string())?;
    let kernels = CoinsKernel::applicable(&params);
    for &kernel in &kernels {
        let got = solve(&params, kernel, sched).map_err(|e| e.to_string())?.answer;
        if got != expected {
            return Err(format!("{kernel}: F({n}) = {got} for height {height}, expected {expected}"));
        }
    }
    Ok(kernels.len())
}

/// The checks `gamecount verify` runs for this problem.
pub fn checks(deep: bool) -> Vec<Check> {
    let max_n = if deep { 9 } else { 7 };
    // (height, largest n) for the taller stacks' searches.
    let tall: &[(usize, usize)] = if deep { &[(1, 12), (3, 5), (4, 4)] } else { &[(1, 8), (3, 4), (4, 3)] };
    // Sizes where every kernel is compared with a DP (dp-scalar is O(n^2): the deep run
    // compares the larger sizes with dp-simd, itself checked against dp-scalar below).
    let agreement: &'static [u64] = if deep { &[2, 300, 1001, 9898, 30_000] } else { &[2, 300, 1001] };
    vec![
        Check::new(
            format!(
                "coins: every kernel that applies gives the same F(n), n in {agreement:?}, prime and composite moduli"
            ),
            move |sched| {
                let mut compared = 0;
                for &n in agreement {
                    for modulus in [989_898_989u64, 1_000_000_000, 4_294_967_291] {
                        let params =
                            CoinsParams::new(n, CoinsParams::DEFAULT_HEIGHT, modulus).map_err(|e| e.to_string())?;
                        let oracle = if n <= 9898 { CoinsKernel::DpScalar } else { CoinsKernel::DpSimd };
                        let expected = solve(&params, oracle, sched).map_err(|e| e.to_string())?.answer;
                        for &kernel in CoinsKernel::ALL.iter().filter(|k| k.applicability(&params).is_ok()) {
                            let got = solve(&params, kernel, sched).map_err(|e| e.to_string())?.answer;
                            if got != expected {
                                return Err(format!(
                                    "{kernel}: F({n}) mod {modulus} = {got}, {oracle} gives {expected}"
                                ));
                            }
                            compared += 1;
                        }
                    }
                }
                Ok(format!("{compared} comparisons agree"))
            },
        ),
        Check::new(
            format!("coins: minimax of the real game for n <= {max_n} stacks equals every kernel"),
            move |sched| {
                let mut searched = Vec::new();
                for n in 1..=max_n {
                    let expected = brute::fair_arrangements(n, 2);
                    every_kernel_gives(n as u64, 2, expected, sched)?;
                    searched.push(expected);
                }
                Ok(format!("F(1..={max_n}) = {searched:?}"))
            },
        ),
        Check::new("coins: checkpoints F(2) = 4, F(10) = 63594 with every kernel", |sched| {
            for (n, expected) in [(2u64, 4u64), (10, 63_594)] {
                every_kernel_gives(n, 2, expected, sched)?;
            }
            Ok("both hold".into())
        }),
        Check::new(
            format!("coins: minimax of stacks of 1, 3 and 4 coins (n <= {:?}) equals every kernel", tall),
            move |sched| {
                let mut kernels = 0;
                for &(height, largest) in tall {
                    for n in 1..=largest {
                        let expected = brute::fair_arrangements(n, height);
                        kernels = kernels.max(every_kernel_gives(n as u64, height as u64, expected, sched)?);
                    }
                }
                Ok(format!("up to {kernels} kernels agree"))
            },
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_parameters() {
        assert_eq!(CoinsParams::new(0, 2, 7).map(|p| p.stacks), Ok(0));
        assert!(CoinsParams::new(5, 2, 1).is_err());
        assert!(CoinsParams::new(5, 2, 1 << 32).is_err());
        assert!(CoinsParams::new(MAX_STACKS + 1, 2, 7).is_err());
        assert!(CoinsParams::new(5, 0, 7).is_err());
        assert!(CoinsParams::new(5, MAX_HEIGHT + 1, 7).is_err());
        assert!(CoinsParams::new(1, 2, 2).is_ok());
        assert!(CoinsParams::new(1, MAX_HEIGHT, u32::MAX as u64).is_ok());
    }

    #[test]
    fn search_matches_every_kernel_to_five_stacks() {
        for n in 0..=5u64 {
            let expected = brute::fair_arrangements(n as usize, 2);
            for &kernel in CoinsKernel::ALL {
                let params = CoinsParams::new(n, 2, CoinsParams::DEFAULT_MODULUS).unwrap();
                assert_eq!(
                    solve(&params, kernel, &Scheduler::sequential()).unwrap().answer,
                    expected,
                    "{kernel} n={n}"
                );
            }
        }
    }

    #[test]
    fn search_of_taller_and_shorter_stacks_matches_every_kernel_that_applies() {
        let sched = Scheduler::new(Some(2)).unwrap();
        for (height, largest) in [(1usize, 6usize), (3, 4), (4, 3)] {
            for n in 1..=largest {
                let expected = brute::fair_arrangements(n, height);
                // Height 1 has one step: ±1. Height 3 and 4 use every kernel but the closed form.
                let kernels = every_kernel_gives(n as u64, height as u64, expected, &sched).unwrap();
                assert_eq!(kernels, 4, "height {height}: the recurrence applies with the default prime");
            }
        }
    }

    #[test]
    fn answers_do_not_depend_on_the_thread_count() {
        for params in [CoinsParams::new(700, 2, 1_000_000_007).unwrap(), CoinsParams::new(150, 4, 999_999_937).unwrap()]
        {
            for &kernel in CoinsKernel::ALL.iter().filter(|k| k.applicability(&params).is_ok()) {
                let answers: Vec<u64> = [1, 2, 3, 8]
                    .iter()
                    .map(|&t| solve(&params, kernel, &Scheduler::new(Some(t)).unwrap()).unwrap().answer)
                    .collect();
                assert!(answers.windows(2).all(|w| w[0] == w[1]), "{kernel}: {answers:?}");
            }
        }
    }

    #[test]
    fn the_default_is_the_fastest_kernel_that_applies() {
        let params = |n, h, m| CoinsParams::new(n, h, m).unwrap();
        assert_eq!(CoinsKernel::default_for(&CoinsParams::instance()), CoinsKernel::ClosedForm);
        assert_eq!(CoinsKernel::default_for(&params(100_000_000, 2, 101)), CoinsKernel::ClosedForm); // Lucas
        assert_eq!(CoinsKernel::default_for(&params(9898, 2, 1_000_000_000)), CoinsKernel::DpParallel);
        assert_eq!(CoinsKernel::default_for(&params(1000, 3, 1_000_000_007)), CoinsKernel::Recurrence);
        assert_eq!(CoinsKernel::default_for(&params(1000, 3, 11_987)), CoinsKernel::DpParallel); // 11987 <= 12·1000
        let applicable = CoinsKernel::applicable(&params(1000, 3, 11_987));
        assert_eq!(applicable, [CoinsKernel::DpParallel, CoinsKernel::DpScalar, CoinsKernel::DpSimd]);
    }

    #[test]
    fn an_inapplicable_kernel_is_refused_naming_those_that_apply() {
        let composite = CoinsParams::new(9898, 2, 1_000_000_000).unwrap();
        let err = preflight(&composite, CoinsKernel::ClosedForm).unwrap_err().to_string();
        assert!(err.starts_with("coins: closed-form needs a prime modulus"), "{err}");
        assert!(err.ends_with("kernels that apply: dp-parallel, dp-scalar, dp-simd"), "{err}");
        assert!(!err.contains('\n'));
        let tall = CoinsParams::new(10, 3, 1_000_000_007).unwrap();
        let err = preflight(&tall, CoinsKernel::ClosedForm).unwrap_err().to_string();
        assert!(err.contains("two coins") && err.contains("recurrence, dp-scalar"), "{err}");
        let small_prime = CoinsParams::new(1000, 2, 3001).unwrap();
        assert!(preflight(&small_prime, CoinsKernel::Recurrence).unwrap_err().to_string().contains("above 4000"));
        assert!(preflight(&small_prime, CoinsKernel::ClosedForm).is_ok());
    }

    #[test]
    fn large_runs_are_refused_before_allocating() {
        let huge = CoinsParams::new(MAX_STACKS, MAX_HEIGHT, 7).unwrap();
        for kernel in [CoinsKernel::DpScalar, CoinsKernel::DpSimd, CoinsKernel::DpParallel] {
            let err = preflight(&huge, kernel).unwrap_err().to_string();
            assert!(err.contains("the DP band would take"), "{err}");
        }
    }
}
