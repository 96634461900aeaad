//! Card stacks (Project Euler 798): count the initial face-up sets of `s` suits of cards
//! `1..=n` that lose for the player to move.
//!
//! Theory (`docs/theory/cards.md`): suits are independent, so a set loses exactly when
//! the nim-sum of the suits' Grundy values is 0 (§2). The number of one-suit sets
//! with each nimber has a closed form ([`crate::kernels::nimber_freq`], §4–8).
//! The count of `s`-tuples with nim-sum 0 is the 0-th entry of the `s`-th xor-convolution
//! power, which the Walsh–Hadamard transform turns into pointwise powers (§9–10):
//!
//! ```text
//! C(n, s) = L^-1 · Σ_t wht(F_n)(t)^s  mod p,     L = 2^ceil(log2 n)
//! ```
//!
//! The pipeline ([`CardsKernel`]) runs one variant of each stage. `fused` runs the same
//! parallel stages but lets the last pass of the transform hand each finished tile to
//! the power sum, so the transformed array is never written back nor read again.

pub mod brute;
pub mod folded;

use crate::arith::{FactorialTable, LANES, Montgomery32, inv_mod, is_prime};
use crate::games::{Answer, Check, InputError, ProblemId, parse_kernel};
use crate::kernels::nimber_freq::lanes::Geometry;
use crate::kernels::nimber_freq::{NimberFreqVariant, nimber_freq_direct};
use crate::kernels::powsum::simd::{finish, plain_power_sum_lanes};
use crate::kernels::powsum::{PowerPlan, PowsumVariant};
use crate::kernels::variant_enum;
use crate::kernels::wht::{Tiling, WhtVariant, wht_tiled_then};
use crate::memory;
use crate::memory::AlignedBuffer;
use crate::sched::Scheduler;
use folded::{Fold, losing_sets_folded};

/// The most cards per suit: the transform length `L` is at most 2^30 (4 GiB of `u32`).
pub const MAX_CARDS: u64 = 1 << 30;
/// The modulus must be a prime below this (the lanes keep `2p` inside a `u32`).
pub const MODULUS_LIMIT: u64 = 1 << 31;

/// Validated parameters: `C(cards, suits) mod modulus`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CardsParams {
    /// Cards per suit, `n`.
    pub cards: u64,
    /// Number of suits, `s`.
    pub suits: u64,
    /// A prime `n < p < 2^31`.
    pub modulus: u64,
}

impl CardsParams {
    /// The default modulus, `10^9 + 7`.
    pub const DEFAULT_MODULUS: u64 = 1_000_000_007;

    /// The Project Euler instance: `C(10^7, 10^7) mod 10^9+7`.
    pub fn instance() -> Self {
        Self { cards: 10_000_000, suits: 10_000_000, modulus: Self::DEFAULT_MODULUS }
    }

    /// Validates the parameters.
    pub fn new(cards: u64, suits: u64, modulus: u64) -> Result<Self, InputError> {
        let err = |m: String| Err(InputError::new(ProblemId::Cards, m));
        // cards = 0 is answered by `solve` without the kernels: C(0, s) = 1.
        if suits == 0 {
            return err("--suits must be at least 1".into());
        }
        if cards > MAX_CARDS {
            return err(format!("--cards {cards} is above the supported maximum of 2^30 = {MAX_CARDS}"));
        }
        if !(3..MODULUS_LIMIT).contains(&modulus) {
            return err(format!("--modulus {modulus} must be an odd prime, at most {} (2^31 - 1)", MODULUS_LIMIT - 1));
        }
        if !is_prime(modulus) {
            return err(format!(
                "--modulus {modulus} is not prime; the method divides by 2 and by L = 2^k modulo it and needs Fermat's theorem"
            ));
        }
        if cards >= modulus {
            return err(format!(
                "--modulus {modulus} must exceed --cards {cards}: the binomial tables invert factorials up to n"
            ));
        }
        Ok(Self { cards, suits, modulus })
    }

    /// The transform length `L`: the least power of two `>= n`.
    pub fn transform_len(&self) -> u64 {
        self.cards.next_power_of_two()
    }
}

variant_enum! {
    /// The pipeline: frequencies, transform, power sum.
    pub enum CardsKernel {
        /// Linear frequencies, level-by-level transform, one power at a time: the reference.
        Scalar => "scalar",
        /// Lane frequencies, level-by-level lane transform, lane powers; one thread.
        Simd => "simd",
        /// Lane frequencies, cache-tiled transform, lane powers; one thread.
        Tiled => "tiled",
        /// The lane stages on the scheduler's threads.
        Parallel => "parallel",
        /// `parallel`, with the transform's last pass feeding the power sum directly.
        Fused => "fused",
        /// `parallel` on the folded layout: the short upper part of the frequencies
        /// transformed on its own, the array `L/2 + h` values long (`folded.rs`).
        Folded => "folded",
    }
}

impl CardsKernel {
    /// The fastest kernel that applies to `params`: `folded` wherever its layout exists
    /// (transform length 64 and up), else `fused`. Every kernel accepts every valid
    /// request; `folded` runs the `parallel` stages where it has no layout.
    pub fn default_for(params: &CardsParams) -> Self {
        if Fold::for_cards(params.cards).is_some() { CardsKernel::Folded } else { CardsKernel::Fused }
    }

    /// Parses `--kernel` (default: [`Self::default_for`]).
    pub fn parse(name: Option<&str>, params: &CardsParams) -> Result<Self, InputError> {
        parse_kernel(ProblemId::Cards, name, Self::default_for(params))
    }

    /// The kernel of each stage (for `fused`, the last two run together).
    pub fn stages(self) -> (NimberFreqVariant, WhtVariant, PowsumVariant) {
        match self {
            CardsKernel::Scalar => (NimberFreqVariant::Linear, WhtVariant::Scalar, PowsumVariant::Scalar),
            CardsKernel::Simd => (NimberFreqVariant::Lanes, WhtVariant::Simd, PowsumVariant::Simd),
            CardsKernel::Tiled => (NimberFreqVariant::Lanes, WhtVariant::Tiled, PowsumVariant::Simd),
            CardsKernel::Parallel | CardsKernel::Fused | CardsKernel::Folded => {
                (NimberFreqVariant::Parallel, WhtVariant::Parallel, PowsumVariant::Parallel)
            }
        }
    }

    /// Bytes the pipeline allocates: the transform array (64-byte aligned), and either
    /// the reference's full factorial tables (8 bytes per card) or the lane kernels'
    /// factorial checkpoints (4 bytes per 128 cards). Per-thread scratch, under 1 MiB a
    /// thread (a frequency chunk's tables, a 32 KiB transform scratch), is left to the
    /// allocator headroom of [`memory::ensure_fits`].
    pub fn memory_bytes(self, params: &CardsParams) -> u64 {
        let array = AlignedBuffer::bytes_for(self.array_len(params));
        match self.stages().0 {
            NimberFreqVariant::Linear => array + FactorialTable::bytes_for(params.cards),
            NimberFreqVariant::Lanes | NimberFreqVariant::Parallel => {
                array + Geometry::DEFAULT.checkpoint_bytes(params.cards as usize)
            }
        }
    }

    /// The folded layout this kernel runs `params` on, if any.
    pub fn fold(self, params: &CardsParams) -> Option<Fold> {
        if self == CardsKernel::Folded { Fold::for_cards(params.cards) } else { None }
    }

    /// Values of the transform array: `L`, or `L/2 + h` on the folded layout.
    pub fn array_len(self, params: &CardsParams) -> u64 {
        self.fold(params).map_or(params.transform_len(), |fold| fold.len() as u64)
    }
}

/// Refuses what would not fit in memory, before any work.
pub fn preflight(params: &CardsParams, kernel: CardsKernel) -> Result<(), InputError> {
    let what = format!("the transform array of {} values and its tables", kernel.array_len(params));
    memory::ensure_fits(ProblemId::Cards, &what, kernel.memory_bytes(params))
}

/// Computes `C(cards, suits) mod modulus`.
pub fn solve(params: &CardsParams, kernel: CardsKernel, sched: &Scheduler) -> Result<Answer, InputError> {
    preflight(params, kernel)?;
    // With no cards every suit has one starting set, the empty one, whose nimber is 0:
    // the one position of s empty suits leaves the first player without a move, so
    // C(0, s) = 1. The kernels start from n >= 1 (a transform of L = 2^ceil(log2 n)).
    let answer = if params.cards == 0 { 1 } else { losing_sets(params, kernel, sched) };
    Ok(Answer {
        problem: ProblemId::Cards,
        params: vec![("cards", params.cards), ("suits", params.suits), ("modulus", params.modulus)],
        answer,
        extra: vec![],
        kernel: kernel.name(),
    })
}

/// `C(n, s) mod p` through the three stages.
pub fn losing_sets(params: &CardsParams, kernel: CardsKernel, sched: &Scheduler) -> u64 {
    if let Some(fold) = kernel.fold(params) {
        return losing_sets_folded(params, fold, sched);
    }
    let (freq, wht, powsum) = kernel.stages();
    let p = params.modulus as u32;
    let len = params.transform_len();
    let mut buffer = AlignedBuffer::zeroed_on(len as usize, sched);
    let spectrum = buffer.as_mut_slice();
    freq.run(params.cards as usize, p, spectrum, sched);
    let sum = if kernel == CardsKernel::Fused && spectrum.len() >= LANES {
        transform_and_power_sum(spectrum, params.suits, p, sched)
    } else {
        wht.run(spectrum, p, sched);
        powsum.run(spectrum, params.suits, p, sched)
    } as u64;
    let inv_len = inv_mod(len % params.modulus, params.modulus).expect("L is a power of two and p an odd prime");
    sum * inv_len % params.modulus
}

/// `Σ_t wht(spectrum)(t)^s mod p` with the last pass of the tiled transform raising and
/// summing each tile while it is still in cache; `spectrum` is left partly transformed.
fn transform_and_power_sum(spectrum: &mut [u32], s: u64, p: u32, sched: &Scheduler) -> u32 {
    let mont = Montgomery32::new(p as u64).expect("validated: an odd prime below 2^31");
    let plan = PowerPlan::for_power_mod(s, p);
    let simd = sched.simd();
    // Each piece's sum is below p < 2^31 and a piece holds at least one vector of 16
    // values, so there are at most 2^30 / 16 pieces and the u64 total cannot overflow.
    // The piece runs on the transform's worker: the call enters the backend itself.
    let power_sum = |piece: &[u32]| plain_power_sum_lanes(simd, piece, p, &plan) as u64;
    // For the progress bar: a transform pass costs about as much as four products per
    // value (`cargo bench --bench wht` against `--bench powsum` at 2^24, one thread).
    let products = plan.products() as u64;
    let total = wht_tiled_then(spectrum, p, &Tiling::detect(), sched, false, &power_sum, 1 + products / 4);
    finish(&mont, (total % p as u64) as u32, &plan)
}

/// The checks `gamecount verify` runs for this problem.
pub fn checks(deep: bool) -> Vec<Check> {
    let max_n = if deep { 14 } else { 10 };
    vec![
        Check::new(
            format!("cards: one-suit nimbers by mex over real states, n <= {max_n}, match the frequency formula"),
            move |_| {
                for n in 1..=max_n {
                    let searched = brute::initial_distribution(n);
                    let formula: Vec<u64> = nimber_freq_direct(n).iter().map(|&f| f as u64).collect();
                    if searched != formula {
                        return Err(format!("n={n}: search {searched:?}, formula {formula:?}"));
                    }
                }
                Ok(format!("distributions for n = 1..={max_n} agree"))
            },
        ),
        Check::new(
            format!(
                "cards: C(n, s) by xor-convolution of searched distributions equals every kernel, n <= {max_n}, s <= 5"
            ),
            move |sched| {
                let p = CardsParams::DEFAULT_MODULUS;
                for n in 1..=max_n {
                    let distribution = brute::initial_distribution(n);
                    for s in 1..=5u32 {
                        let expected = brute::losing_sets_by_convolution(&distribution, s, p);
                        for &kernel in CardsKernel::ALL {
                            let params = CardsParams::new(n as u64, s as u64, p).map_err(|e| e.to_string())?;
                            let got = losing_sets(&params, kernel, sched);
                            if got != expected {
                                return Err(format!("{kernel}: C({n},{s}) = {got}, convolution gives {expected}"));
                            }
                        }
                    }
                }
                Ok(format!("{} cases agree", max_n * 5))
            },
        ),
        Check::new(
            format!(
                "cards: every kernel equals the scalar pipeline where the lane kernels run, n in {:?}",
                lane_check_sizes(deep)
            ),
            move |sched| {
                let mut cases = 0;
                for n in lane_check_sizes(deep) {
                    let next_prime = (n + 1..).find(|&q| is_prime(q)).expect("primes are unbounded");
                    for p in [CardsParams::DEFAULT_MODULUS, (1 << 31) - 1, next_prime] {
                        for s in [1, 2, 12_345, 1_000_000_000_000_000_000] {
                            let params = CardsParams::new(n, s, p).map_err(|e| e.to_string())?;
                            let expected = losing_sets(&params, CardsKernel::Scalar, sched);
                            for &kernel in &CardsKernel::ALL[1..] {
                                let got = losing_sets(&params, kernel, sched);
                                if got != expected {
                                    return Err(format!(
                                        "{kernel}: C({n},{s}) mod {p} = {got}, scalar gives {expected}"
                                    ));
                                }
                            }
                            cases += 1;
                        }
                    }
                }
                Ok(format!("{cases} cases agree"))
            },
        ),
        Check::new("cards: checkpoints C(3,2) = 26, C(13,4) = 540318329 with every kernel", |sched| {
            for &kernel in CardsKernel::ALL {
                let small = losing_sets(&CardsParams::new(3, 2, CardsParams::DEFAULT_MODULUS).unwrap(), kernel, sched);
                let large = losing_sets(&CardsParams::new(13, 4, CardsParams::DEFAULT_MODULUS).unwrap(), kernel, sched);
                if small != 26 || large != 540_318_329 {
                    return Err(format!("{kernel}: C(3,2) = {small}, C(13,4) = {large}"));
                }
            }
            Ok("both hold".into())
        }),
    ]
}

/// Sizes for the lane-kernel check: the smallest the lane kernels take, odd sizes around
/// a power of two, and (deep) one past a whole number of default frequency chunks.
fn lane_check_sizes(deep: bool) -> Vec<u64> {
    let mut sizes = vec![512, 1000, 4097, 65_535];
    if deep {
        sizes.extend([3 * 32_768 + 1, 1_000_003]);
    }
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_parameters() {
        let p = CardsParams::DEFAULT_MODULUS;
        assert_eq!(CardsParams::new(0, 1, p).map(|c| c.cards), Ok(0));
        assert!(CardsParams::new(1, 0, p).is_err());
        assert!(CardsParams::new(10, 10, 1_000_000_006).is_err()); // composite
        assert!(CardsParams::new(10, 10, 2).is_err());
        assert!(CardsParams::new(10, 10, 7).is_err()); // p <= n
        assert!(CardsParams::new(10, 10, (1 << 31) + 11).is_err());
        assert!(CardsParams::new(MAX_CARDS + 1, 1, p).is_err());
        assert!(CardsParams::new(10, u64::MAX, 11).is_ok());
    }

    #[test]
    fn large_suit_counts_reduce_correctly() {
        // s and s + (p - 1) give the same answer for p prime (Fermat), and s = 1 counts the
        // one-suit sets with nimber 0.
        let p = 1_000_000_007;
        let base = CardsParams::new(20, 3, p).unwrap();
        let shifted = CardsParams::new(20, 3 + (p - 1) * 1000, p).unwrap();
        let sched = Scheduler::sequential();
        assert_eq!(losing_sets(&base, CardsKernel::Scalar, &sched), losing_sets(&shifted, CardsKernel::Scalar, &sched));
        let one = CardsParams::new(20, 1, p).unwrap();
        assert_eq!(losing_sets(&one, CardsKernel::Scalar, &sched), (1 << 18) + 2);
    }

    #[test]
    fn no_cards_is_one_losing_set_as_the_search_finds() {
        let sched = Scheduler::new(Some(2)).unwrap();
        for suits in [1, 2, 5, 10_000_000] {
            let searched = brute::losing_sets_by_convolution(&brute::initial_distribution(0), suits.min(5) as u32, 7);
            assert_eq!(searched, 1);
            let params = CardsParams::new(0, suits, CardsParams::DEFAULT_MODULUS).unwrap();
            for &kernel in CardsKernel::ALL {
                assert_eq!(solve(&params, kernel, &sched).unwrap().answer, 1, "{kernel}, {suits} suits");
            }
        }
    }

    #[test]
    fn memory_needs_state_the_real_allocation() {
        let largest = CardsParams::new(MAX_CARDS, 3, (1 << 31) - 1).unwrap();
        // 2^30 values of 4 bytes, plus checkpoints (4 bytes per 128 cards) for lane kernels,
        // plus full factorial tables (8 bytes per card) for the reference.
        let array = 4 * (1u64 << 30);
        let fused = CardsKernel::Fused.memory_bytes(&largest);
        assert!(fused > array && fused < array + (40 << 20), "{fused}");
        assert!(CardsKernel::Scalar.memory_bytes(&largest) > array + 8 * MAX_CARDS);
        let err = memory::ensure_fits_in(ProblemId::Cards, "x", fused, Some(2 << 30)).unwrap_err();
        assert!(err.to_string().contains("4.0"), "{err}");
        // The folded layout of the instance: 2^23 + 2^21 values, 40 MiB, not 64.
        let instance = CardsParams::instance();
        let folded = CardsKernel::Folded.memory_bytes(&instance);
        assert!(folded > 40 << 20 && folded < 41 << 20, "{folded}");
        assert!(CardsKernel::Fused.memory_bytes(&instance) > 64 << 20);
    }

    #[test]
    fn every_kernel_agrees_with_the_reference_pipeline() {
        let sched = Scheduler::new(Some(2)).unwrap();
        for (n, s, p) in [(5000, 12_345, (1 << 31) - 1), (70_000, 10_000_000, CardsParams::DEFAULT_MODULUS), (1, 5, 3)]
        {
            let params = CardsParams::new(n, s, p).unwrap();
            let expected = losing_sets(&params, CardsKernel::Scalar, &sched);
            for &kernel in CardsKernel::ALL {
                assert_eq!(losing_sets(&params, kernel, &sched), expected, "{kernel} n={n} s={s} p={p}");
            }
        }
    }

    #[test]
    fn folded_agrees_on_the_edges_of_its_layout() {
        // One value above L/2 (h is one vector), L/2 + 2^k (h fits within a power-sum
        // job, so a job wraps around H), n = L (h = L/2), and jobs shorter than h.
        let sizes = [33, 64, 65, 100, 1 << 10, (1 << 16) + 1, (1 << 17) - 1, (1 << 17) + 100, (1 << 17) + (1 << 15)];
        for simd in crate::simd::Simd::tested() {
            let sched = Scheduler::new(Some(2)).unwrap().with_simd(simd);
            for n in sizes {
                assert!(Fold::for_cards(n).is_some(), "{n}");
                for (s, p) in [(1, CardsParams::DEFAULT_MODULUS), (12_345, (1 << 31) - 1), (10_000_000, 1_000_003)] {
                    let params = CardsParams::new(n, s, p).unwrap();
                    let expected = losing_sets(&params, CardsKernel::Parallel, &sched);
                    let got = losing_sets(&params, CardsKernel::Folded, &sched);
                    assert_eq!(got, expected, "{simd}: n={n} s={s} p={p}");
                }
            }
        }
        let sched = Scheduler::new(Some(2)).unwrap();
        // Where the layout does not exist the kernel still answers, by the plain layout.
        let params = CardsParams::new(20, 3, CardsParams::DEFAULT_MODULUS).unwrap();
        assert_eq!(CardsKernel::default_for(&params), CardsKernel::Fused);
        assert_eq!(
            losing_sets(&params, CardsKernel::Folded, &sched),
            losing_sets(&params, CardsKernel::Scalar, &sched)
        );
        assert_eq!(CardsKernel::default_for(&CardsParams::instance()), CardsKernel::Folded);
    }

    #[test]
    fn fused_agrees_where_the_transform_ends_with_a_stream_pass() {
        // L = 2^22: the default tiling's last pass is a stream pass, whose pieces the fused
        // kernel raises to the power without writing them back.
        let sched = Scheduler::new(Some(2)).unwrap();
        let params = CardsParams::new((1 << 21) + 1, 10_000_000, CardsParams::DEFAULT_MODULUS).unwrap();
        let expected = losing_sets(&params, CardsKernel::Parallel, &sched);
        assert_eq!(losing_sets(&params, CardsKernel::Fused, &sched), expected);
    }

    #[test]
    fn answers_do_not_depend_on_the_thread_count() {
        let params = CardsParams::new(100_000, 12345, CardsParams::DEFAULT_MODULUS).unwrap();
        for &kernel in CardsKernel::ALL {
            let answers: Vec<u64> =
                [1, 2, 3, 8].iter().map(|&t| losing_sets(&params, kernel, &Scheduler::new(Some(t)).unwrap())).collect();
            assert!(answers.windows(2).all(|w| w[0] == w[1]), "{kernel}: {answers:?}");
        }
    }
}
