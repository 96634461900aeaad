//! Partisan Kayles (Project Euler 1015): count the fair rows of `n` blue and red pins.
//!
//! Theory (`docs/theory/kayles.md`): a position is a sum of an integer (the lead
//! `d` = blue pins − red pins, free moves) and a nimber (Dawson's Kayles on the maximal
//! alternating blocks, where both players may knock over a mixed pair). So a row is fair
//! exactly when `d = 0` and the nim-sum `x` of its block values is 0 (§6).
//!
//! Counting: the block values are below 16, so `[x = 0] = (1/16)·Σ_h (-1)^{h·x}` over the
//! 16 Walsh characters `h` (§7). For each character the signed count of balanced
//! rows is a coefficient of `sqrt(((1+E)^2-O^2)/((1-E)^2-O^2))` (§8–9), computed
//! by the [`crate::kernels::series`] family modulo `16·M`; the 16 sums are divided by 16.

pub mod brute;
pub mod dawson;
pub mod tables;

use crate::games::{Answer, Check, InputError, ProblemId, parse_kernel};
use crate::kernels::series::rational::{LANES16, RationalLanes};
use crate::kernels::series::{BlockSigns, SERIES_MODULUS_LIMIT, SeriesVariant, catalan_words, newton};
use crate::kernels::variant_enum;
use crate::memory;
use crate::sched::Scheduler;
use crate::simd::{Level, Simd};

/// Block values are below `2^CHARACTER_BITS`, so `2^CHARACTER_BITS` characters suffice.
const CHARACTER_BITS: u32 = 4;
/// The number of Walsh characters summed.
pub const CHARACTERS: u64 = 1 << CHARACTER_BITS;

/// The largest modulus `M` accepted: the series run modulo `16·M`, below 2^62.
pub const MAX_MODULUS: u64 = SERIES_MODULUS_LIMIT / CHARACTERS - 1;
/// The most pins accepted: the most any kernel takes (`newton`, bounded by the 2-adic
/// order of its NTT primes), so every refusal of a size names this one maximum.
pub const MAX_PINS: u64 = 2 * newton::MAX_HALF_PINS as u64;

/// Validated parameters: `f(pins) mod modulus`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KaylesParams {
    /// Pins in the row.
    pub pins: u64,
    /// The answer is reported modulo this.
    pub modulus: u64,
}

impl KaylesParams {
    /// The default modulus, `10^9` (the last nine digits).
    pub const DEFAULT_MODULUS: u64 = 1_000_000_000;

    /// The Project Euler instance: `f(1000) mod 10^9`.
    pub fn instance() -> Self {
        Self { pins: 1000, modulus: Self::DEFAULT_MODULUS }
    }

    /// Validates `pins` and `modulus`.
    pub fn new(pins: u64, modulus: u64) -> Result<Self, InputError> {
        let err = |m: String| Err(InputError::new(ProblemId::Kayles, m));
        // pins = 0 is the empty row, which every kernel counts: f(0) = 1 (the first
        // player has no move and loses).
        if pins > MAX_PINS {
            return err(format!("--pins {pins} is above the supported maximum of {MAX_PINS}"));
        }
        if modulus < 2 {
            return err(format!("--modulus {modulus} must be at least 2"));
        }
        if modulus > MAX_MODULUS {
            return err(format!("--modulus {modulus} is above the supported maximum of {MAX_MODULUS} (2^58 - 1)"));
        }
        Ok(Self { pins, modulus })
    }
}

variant_enum! {
    /// How the character series are computed.
    pub enum KaylesKernel {
        /// Quotient and square root with the halving rule, O(n^2): docs/theory/kayles.md §11.
        Reference => "reference",
        /// `T + T^2 = x` with `x` from its recurrence, the convolution in lanes: O(n^2/16).
        Catalan => "catalan",
        /// The same in 16-bit words, all 16 characters in one vector, pair dot products:
        /// for moduli whose `8M = 2^a·q` has `a <= 16`, odd `q < 2^21` (10^9 among them).
        CatalanWords => "catalan-words",
        /// Newton's iteration for `T` with NTT products: O(n log n).
        Newton => "newton",
    }
}

/// From this many pins on `newton` beats `catalan` at the baseline (SSE2, or NEON through
/// the same code): the CLI, Zen 4, two threads, `--simd portable`, five alternated
/// processes: catalan 8.8 ms against 9.6 ms at 4500 pins, 10.2 against 10.0 ms at 5000,
/// 15.8 against 11.9 ms at 6000 (at the baseline on Zen 3, two threads: 119 ms against
/// 66 ms at 10000).
pub const NEWTON_FROM_PINS: u64 = 5_000;

/// [`NEWTON_FROM_PINS`] with AVX2 or AVX-512, where both kernels run on the wide
/// backend (the CLI, Zen 4, two threads: catalan 14.1 ms against newton 16.6 ms at 8500
/// pins with `--simd avx2`, 19.4 against 18.2 ms at 10000; with `--simd avx512` 13.8
/// against 15.5 ms and 18.9 against 18.1 ms; one thread the same within 10%).
pub const NEWTON_FROM_PINS_WIDE: u64 = 9_000;

/// Below this many pins `catalan-words` beats `newton`, where it applies, with AVX-512
/// (the CLI, Zen 4, two threads: 43 ms against 52 ms at 30000 pins, 19 against 32 ms
/// at 20000; earlier, one thread: 147 ms against 134 ms at 60000).
pub const WORDS_UNTIL_PINS: u64 = 30_000;

/// [`WORDS_UNTIL_PINS`] with AVX2, whose words take twice the instructions of VNNI's
/// (the CLI, Zen 4, two threads, `--simd avx2`: 23.0 ms against newton's 24.2 ms at
/// 15000 pins, 54 against 38 ms at 20000).
pub const WORDS_UNTIL_PINS_AVX2: u64 = 16_000;

/// [`WORDS_UNTIL_PINS`] at the baseline (SSE2, or NEON through the same code). The two
/// CPUs measured disagree a little: on the Zen 4 (the CLI, two threads, `--simd portable`,
/// five alternated processes) 10.9 ms against `newton`'s 11.8 ms at 6000 pins, 16.4
/// against 16.1 ms at 7500, 22.2 against 19.0 ms at 9000; on the Zen 3, 63 ms against
/// 66 ms at 10000. Near the crossing the two are within a few percent either way.
pub const WORDS_UNTIL_PINS_PORTABLE: u64 = 8_000;

/// Below this many pins the whole computation takes well under a millisecond, less than
/// waking a parked worker can take here (about 4 ms): one job does every character.
pub const PARALLEL_FROM_PINS: u64 = 4_000;

impl KaylesKernel {
    /// The fastest kernel that applies to `params` on the widest SIMD level of this CPU.
    pub fn default_for(params: &KaylesParams) -> Self {
        Self::default_on(params, Simd::best())
    }

    /// The fastest kernel that applies to `params` on `simd`'s backend. `catalan-words`
    /// is the fastest quadratic kernel on every backend (1000 pins, Zen 3, two threads:
    /// 0.55 ms against catalan's 1.27 ms with AVX2, 1.96 ms against 2.41 ms at the
    /// baseline); only the sizes from which `newton` wins move.
    pub fn default_on(params: &KaylesParams, simd: Simd) -> Self {
        let (words_until, newton_from) = match simd.level() {
            Level::Avx512 => (WORDS_UNTIL_PINS, NEWTON_FROM_PINS_WIDE),
            Level::Avx2 | Level::Avx2Vnni => (WORDS_UNTIL_PINS_AVX2, NEWTON_FROM_PINS_WIDE),
            Level::Portable | Level::Neon => (WORDS_UNTIL_PINS_PORTABLE, NEWTON_FROM_PINS),
        };
        let words = catalan_words::WordRing::new(CHARACTERS / 2 * params.modulus).is_some();
        if words && params.pins < words_until {
            KaylesKernel::CatalanWords
        } else if params.pins >= newton_from {
            KaylesKernel::Newton
        } else {
            KaylesKernel::Catalan
        }
    }

    /// Parses `--kernel` (default: [`Self::default_for`]).
    pub fn parse(name: Option<&str>, params: &KaylesParams) -> Result<Self, InputError> {
        parse_kernel(ProblemId::Kayles, name, Self::default_for(params))
    }

    /// Parses `--kernel` for a run on `simd`'s backend (default: [`Self::default_on`]).
    pub fn parse_on(name: Option<&str>, params: &KaylesParams, simd: Simd) -> Result<Self, InputError> {
        parse_kernel(ProblemId::Kayles, name, Self::default_on(params, simd))
    }

    /// The series kernel this runs.
    pub fn series(self) -> SeriesVariant {
        match self {
            KaylesKernel::Reference => SeriesVariant::Reference,
            KaylesKernel::Catalan => SeriesVariant::Catalan,
            KaylesKernel::CatalanWords => SeriesVariant::CatalanWords,
            KaylesKernel::Newton => SeriesVariant::Newton,
        }
    }

    /// The most pins the kernel takes: the quadratic kernels would run for hours beyond
    /// their limit; `newton` is bounded by the 2-adic order of its NTT primes.
    pub fn max_pins(self) -> u64 {
        match self {
            KaylesKernel::Reference => 200_000,
            KaylesKernel::Catalan | KaylesKernel::CatalanWords => 2_000_000,
            KaylesKernel::Newton => 2 * newton::MAX_HALF_PINS as u64,
        }
    }

    /// Bytes the kernel allocates for `pins` with `threads` characters in flight: the
    /// per-character coefficient vectors of length `pins/2 + 1` and the sums.
    pub fn memory_bytes(self, pins: u64, threads: usize) -> u64 {
        let len = pins / 2 + 1;
        let per_job = match self {
            // Six i64 series (signs, squares, numerator, denominator), three u128 ones.
            KaylesKernel::Reference => len * (6 * 8 + 3 * 16),
            // x and T as 64-byte lane rows, per factor ring, and the sums.
            KaylesKernel::Catalan => len * (2 * 64 + 3 * 8),
            // Three planes of 64-byte rows for T, one row per two coefficients, the lane
            // sums and the results (about 128 bytes per coefficient), and the x ring.
            KaylesKernel::CatalanWords => (len + 512) * 128,
            KaylesKernel::Newton => newton::memory_bytes(len as usize),
        };
        let jobs = (CHARACTERS as usize / self.series().batch_width()).min(threads.max(1)) as u64;
        jobs * per_job + (CHARACTERS / self.series().batch_width() as u64 + 2) * len * 8
    }
}

/// Refuses what the kernel cannot do or what would not fit in memory, before any work,
/// assuming one character batch in flight per available core.
pub fn preflight(params: &KaylesParams, kernel: KaylesKernel) -> Result<(), InputError> {
    preflight_with_threads(params, kernel, Scheduler::available_cores())
}

/// [`preflight`] for `threads` batches in flight.
pub fn preflight_with_threads(params: &KaylesParams, kernel: KaylesKernel, threads: usize) -> Result<(), InputError> {
    if params.pins > kernel.max_pins() {
        let hint = if kernel == KaylesKernel::Newton { "" } else { "; use --kernel newton" };
        return Err(InputError::new(
            ProblemId::Kayles,
            format!("--pins {} is above the {} pins the {kernel} kernel takes{hint}", params.pins, kernel.max_pins()),
        ));
    }
    memory::ensure_fits(ProblemId::Kayles, "the character series", kernel.memory_bytes(params.pins, threads))
}

/// Computes `f(pins) mod modulus`.
pub fn solve(params: &KaylesParams, kernel: KaylesKernel, sched: &Scheduler) -> Result<Answer, InputError> {
    preflight_with_threads(params, kernel, sched.threads())?;
    let answer = if params.pins % 2 == 1 {
        0
    } else {
        *fair_even_row_counts(params.pins / 2, params.modulus, kernel, sched)?.last().expect("m + 1 counts")
    };
    Ok(Answer {
        problem: ProblemId::Kayles,
        params: vec![("pins", params.pins), ("modulus", params.modulus)],
        answer,
        extra: vec![],
        kernel: kernel.name(),
    })
}

/// `w_h(L) = (-1)^popcount(h & g(L))`: the sign character `h` gives a block of Dawson
/// value `value` (docs/theory/kayles.md §7). One definition for both layouts of the
/// signs below.
const fn character_sign(h: u8, value: u8) -> i8 {
    1 - 2 * ((h & value).count_ones() % 2) as i8
}

/// The block signs of the 16 Walsh characters, `w_h(L) = (-1)^popcount(h & g(L))`, as
/// eventually periodic sequences with the Dawson values' certified preperiod and period.
///
/// Not minimised here ([`BlockSigns::minimized`]): `catalan-words`, the default kernel,
/// shares one description over its sixteen lanes (the largest preperiod and the least
/// common multiple of the periods, the Dawson ones again), so minimising every character
/// at every solve would be work for nothing; the kernels that run a recurrence per
/// character minimise it themselves.
pub fn character_signs() -> Vec<BlockSigns> {
    let dawson = dawson::DawsonValues::certified();
    assert!((dawson.max_value() as u64) < CHARACTERS, "a Dawson value needs more than {CHARACTER_BITS} bits");
    (0..CHARACTERS as u8)
        .map(|h| {
            let head = dawson.table().iter().map(|&v| character_sign(h, v)).collect();
            BlockSigns::new(head, dawson.preperiod(), dawson.period())
        })
        .collect()
}

/// The signs of the 16 characters side by side, `rows[L][h] = (-1)^popcount(h & g(L))`,
/// for `L < 2·(j0 + P)`, and `P`: the rows [`RationalLanes::from_sign_rows`] takes, with
/// `P` the Dawson period in `u` and `j0 = max(1, ceil(preperiod / 2))` (so the signs
/// repeat with period `2P` from `L = 2·j0` on, as the certified values do from their
/// preperiod on). At run time, for the tests; the solves read [`tables`].
pub fn character_sign_rows(dawson: &dawson::DawsonValues) -> (Vec<[i32; LANES16]>, usize) {
    let (len, p) = tables::sign_rows_shape(dawson);
    let mut rows = vec![[0; LANES16]; len];
    tables::fill_sign_rows(dawson, &mut rows);
    (rows, p)
}

/// `catalan-words` on the 16 characters from the certified Dawson values directly: their
/// shared rational form, which the compiler built ([`tables::DAWSON_RATIONAL`]), without
/// the 16 per-character sign sequences of [`character_signs`] that [`SeriesVariant::run`]
/// would write out, transpose and turn into the same form at every solve. The same
/// series as `catalan-words` on [`character_signs`], which the tests check. `None` if the
/// modulus or the recurrence is outside the words' range.
fn words_from_dawson(simd: Simd, m: usize, wide_modulus: u64) -> Option<Vec<u64>> {
    catalan_words::WordRing::new(wide_modulus / 2)?;
    catalan_words::series_catalan_words_lanes(simd, &tables::DAWSON_RATIONAL, CHARACTERS as usize, m, wide_modulus)
}

/// `f(2k) mod modulus` for every `k <= m`.
pub fn fair_even_row_counts(
    m: u64,
    modulus: u64,
    kernel: KaylesKernel,
    sched: &Scheduler,
) -> Result<Vec<u64>, InputError> {
    let m = m as usize;
    let wide_modulus = CHARACTERS * modulus;
    // catalan-words takes all 16 characters in one lane group, one job on the calling
    // thread, whatever the size.
    let words =
        if kernel == KaylesKernel::CatalanWords { words_from_dawson(sched.simd(), m, wide_modulus) } else { None };
    let per_batch: Vec<Vec<u64>> = match words {
        Some(sums) => vec![sums],
        None => character_series(m, wide_modulus, kernel, sched),
    };
    // Filled in place, not collected through a `Result` (which grows the vector by
    // doubling: each new size touches fresh pages, about 1.5 µs each by `gamecount-lab
    // roofline`).
    let mut counts = Vec::with_capacity(m + 1);
    for k in 0..=m {
        // Batch sums below 16·M < 2^62: two of them add up below 2^63.
        let total = per_batch.iter().fold(0u64, |sum, c| {
            let sum = sum + c[k];
            if sum >= wide_modulus { sum - wide_modulus } else { sum }
        });
        // Σ_h c_h(k) = 16·f(2k) exactly, so the sum modulo 16·M is 16·(f(2k) mod M).
        if !total.is_multiple_of(CHARACTERS) {
            return Err(InputError::new(
                ProblemId::Kayles,
                format!("internal check failed: the character sum for {} pins is not divisible by 16", 2 * k),
            ));
        }
        counts.push(total / CHARACTERS);
    }
    Ok(counts)
}

/// `Σ_h c_h(0..=m) mod wide_modulus` per batch of characters, from [`character_signs`].
fn character_series(m: usize, wide_modulus: u64, kernel: KaylesKernel, sched: &Scheduler) -> Vec<Vec<u64>> {
    let characters = character_signs();
    let series = kernel.series();
    // One job per batch of characters (a lane group for `catalan`, one character for
    // the others); the batches come back in order and are summed exactly, so the answer
    // does not depend on how they are cut.
    let width = if 2 * (m as u64) < PARALLEL_FROM_PINS { characters.len() } else { series.batch_width() };
    let batches: Vec<&[BlockSigns]> = characters.chunks(width).collect();
    let progress = sched.progress(batches.len() as u64, "kayles: character series");
    let job = |b: usize| {
        let sums = series.run_on(sched.simd(), batches[b], m, wide_modulus);
        progress.inc(1);
        sums
    };
    // A single batch runs on the calling thread: handing it to a pool worker would only
    // add the worker's wake-up (tens of µs, sometimes a scheduler tick: src/sched/README.md).
    if batches.len() == 1 { vec![job(0)] } else { sched.map_collect(batches.len(), job) }
}

/// `f(n) mod modulus` for every `n <= max_pins` (0 for odd `n`; `f(0) = 1`).
pub fn fair_row_counts(
    max_pins: u64,
    modulus: u64,
    kernel: KaylesKernel,
    sched: &Scheduler,
) -> Result<Vec<u64>, InputError> {
    let even = fair_even_row_counts(max_pins / 2, modulus, kernel, sched)?;
    Ok((0..=max_pins as usize).map(|n| if n % 2 == 0 { even[n / 2] } else { 0 }).collect())
}

/// Moduli the cross-kernel checks use: the Project Euler one, primes, composites, the
/// smallest and the largest accepted.
pub const AGREEMENT_MODULI: [u64; 6] = [1_000_000_000, 1_000_000_007, 2, 1 << 32, 999_999_937, MAX_MODULUS];

/// Whether every kernel gives the same `f(n) mod M` for every `n <= max_pins` and every
/// modulus of [`AGREEMENT_MODULI`].
pub fn kernels_agree(max_pins: u64, sched: &Scheduler) -> Result<String, String> {
    for modulus in AGREEMENT_MODULI {
        let expected = fair_row_counts(max_pins, modulus, KaylesKernel::Reference, sched).map_err(|e| e.to_string())?;
        for &kernel in KaylesKernel::ALL {
            let got = fair_row_counts(max_pins, modulus, kernel, sched).map_err(|e| e.to_string())?;
            if let Some(n) = (0..got.len()).find(|&n| got[n] != expected[n]) {
                return Err(format!("{kernel} mod {modulus}: f({n}) = {}, reference gives {}", got[n], expected[n]));
            }
        }
    }
    Ok(format!("{} kernels, {} moduli", KaylesKernel::ALL.len(), AGREEMENT_MODULI.len()))
}

/// The checks `gamecount verify` runs for this problem.
pub fn checks(deep: bool) -> Vec<Check> {
    let places = if deep { 16 } else { 12 };
    let agreement_pins = if deep { 2000 } else { 600 };
    vec![
        Check::new("kayles: the tables the compiler built equal a run-time rebuild", |_| {
            let dawson = dawson::DawsonValues::compute();
            let (rows, p) = character_sign_rows(&dawson);
            let rational = RationalLanes::from_sign_rows(&rows, p, CHARACTERS as usize);
            if dawson != *dawson::DawsonValues::certified() || rows != tables::SIGN_ROWS {
                return Err("the Dawson values or the sign rows differ".into());
            }
            if rational != tables::DAWSON_RATIONAL {
                return Err("the rational form differs".into());
            }
            Ok(format!(
                "preperiod {}, period {}, recurrence order {}",
                dawson.preperiod(),
                dawson.period(),
                rational.order()
            ))
        }),
        Check::new(
            format!("kayles: every kernel gives the same f(n) for every n <= {agreement_pins} under 6 moduli"),
            move |sched| kernels_agree(agreement_pins, sched),
        ),
        Check::new(
            format!(
                "kayles: winner rule (lead + Dawson nim-sum) on all 3^{places} positions of {places} places, both starters"
            ),
            move |_| {
                let dawson = dawson::dawson_values(places);
                let table = brute::outcomes(places);
                match (0..table.len())
                    .find(|&c| brute::predicted_outcome(&brute::decode(c, places), &dawson) != table[c])
                {
                    Some(code) => Err(format!("position {:?} disagrees", brute::decode(code, places))),
                    None => Ok(format!("{} positions agree", table.len())),
                }
            },
        ),
        Check::new(format!("kayles: f(n) for n <= {places} by minimax equals every kernel"), move |sched| {
            let table = brute::outcomes(places);
            let searched: Vec<u64> = (0..=places).map(|n| brute::fair_rows_by_search(n, &table)).collect();
            for &kernel in KaylesKernel::ALL {
                let counts = fair_row_counts(places as u64, 1_000_000_000, kernel, sched).map_err(|e| e.to_string())?;
                if counts != searched {
                    return Err(format!("{kernel}: {counts:?}, search gives {searched:?}"));
                }
            }
            Ok(format!("f(0..={places}) = {searched:?}"))
        }),
        Check::new("kayles: checkpoints f(6) = 8, f(20) = 49844 with every kernel", |sched| {
            for &kernel in KaylesKernel::ALL {
                let counts = fair_row_counts(20, 1_000_000_000, kernel, sched).map_err(|e| e.to_string())?;
                if counts[6] != 8 || counts[20] != 49844 {
                    return Err(format!("{kernel}: f(6) = {}, f(20) = {}", counts[6], counts[20]));
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
        assert_eq!(KaylesParams::new(0, 10).map(|p| p.pins), Ok(0));
        assert!(KaylesParams::new(10, 1).is_err());
        assert!(KaylesParams::new(10, MAX_MODULUS + 1).is_err());
        assert!(KaylesParams::new(MAX_PINS + 1, 10).is_err());
        assert!(KaylesParams::new(1, 2).is_ok());
        assert!(KaylesKernel::parse(Some("nope"), &KaylesParams::instance()).is_err());
    }

    #[test]
    fn search_and_series_agree_up_to_ten_pins_under_several_moduli() {
        let table = brute::outcomes(10);
        let searched: Vec<u64> = (0..=10).map(|n| brute::fair_rows_by_search(n, &table)).collect();
        for modulus in [2u64, 3, 7, 1_000_000_000, 1 << 32, MAX_MODULUS] {
            for &kernel in KaylesKernel::ALL {
                let counts = fair_row_counts(10, modulus, kernel, &Scheduler::sequential()).unwrap();
                let expected: Vec<u64> = searched.iter().map(|c| c % modulus).collect();
                assert_eq!(counts, expected, "{kernel} mod {modulus}");
            }
        }
    }

    #[test]
    fn the_empty_row_is_answered_by_every_kernel_as_the_search_does() {
        // f(0) = 1: the empty row leaves the first player without a move.
        let table = brute::outcomes(2);
        assert_eq!(brute::fair_rows_by_search(0, &table), 1);
        let params = KaylesParams::new(0, 1_000_000_000).unwrap();
        for &kernel in KaylesKernel::ALL {
            for threads in [1, 2] {
                let answer = solve(&params, kernel, &Scheduler::new(Some(threads)).unwrap()).unwrap().answer;
                assert_eq!(answer, 1, "{kernel} on {threads} threads");
            }
        }
    }

    #[test]
    fn every_kernel_agrees_for_every_even_n_up_to_600() {
        kernels_agree(600, &Scheduler::new(Some(2)).unwrap()).unwrap();
    }

    #[test]
    fn answers_do_not_depend_on_the_backend() {
        // Both sides of PARALLEL_FROM_PINS, moduli inside and outside catalan-words' range.
        for pins in [300, 5_000] {
            for modulus in [1_000_000_000, 1_000_000_007] {
                let params = KaylesParams::new(pins, modulus).unwrap();
                for &kernel in &[KaylesKernel::Catalan, KaylesKernel::CatalanWords] {
                    let answers: Vec<u64> = Simd::tested()
                        .into_iter()
                        .map(|simd| {
                            solve(&params, kernel, &Scheduler::new(Some(2)).unwrap().with_simd(simd)).unwrap().answer
                        })
                        .collect();
                    assert!(
                        answers.windows(2).all(|w| w[0] == w[1]),
                        "{kernel} at {pins} pins mod {modulus}: {answers:?}"
                    );
                }
            }
        }
        let instance = KaylesParams::instance();
        for simd in Simd::tested() {
            let sched = Scheduler::new(Some(2)).unwrap().with_simd(simd);
            assert_eq!(
                solve(&instance, KaylesKernel::default_for(&instance), &sched).unwrap().answer,
                713_895_400,
                "{simd}"
            );
        }
    }

    #[test]
    fn answers_do_not_depend_on_the_thread_count() {
        // 300 pins run in one job; 5000 and 20000 pins in one job per character batch.
        for (pins, kernels) in [
            (300, KaylesKernel::ALL),
            (5_000, &[KaylesKernel::Catalan, KaylesKernel::CatalanWords, KaylesKernel::Newton][..]),
            (20_000, &[KaylesKernel::Newton][..]),
        ] {
            let params = KaylesParams::new(pins, 1_000_000_007).unwrap();
            for &kernel in kernels {
                let answers: Vec<u64> = [1, 2, 3, 8]
                    .iter()
                    .map(|&t| solve(&params, kernel, &Scheduler::new(Some(t)).unwrap()).unwrap().answer)
                    .collect();
                assert!(answers.windows(2).all(|w| w[0] == w[1]), "{kernel} at {pins} pins: {answers:?}");
            }
        }
    }

    #[test]
    fn the_certified_dawson_values_give_the_fair_counts_of_the_plain_mex_table() {
        // The characters built from the certified periodic values against signs taken
        // straight from a mex table as long as the rows.
        let (m, modulus) = (400, 16 * 1_000_000_007u64);
        let g = dawson::dawson_values(2 * m + 2);
        let certified = character_signs();
        for (h, signs) in certified.iter().enumerate() {
            let plain: Vec<i8> =
                g.iter().map(|&v| if (h as u8 & v).count_ones().is_multiple_of(2) { 1 } else { -1 }).collect();
            assert_eq!(signs.materialize(plain.len()), plain, "character {h}");
            let plain_signs = BlockSigns::from_prefix(&plain);
            assert_eq!(
                SeriesVariant::Catalan.run(std::slice::from_ref(signs), m, modulus),
                SeriesVariant::Reference.run(&[plain_signs], m, modulus),
                "character {h}"
            );
        }
    }

    #[test]
    fn the_dawson_sign_rows_give_the_shared_form_of_the_characters() {
        // At run time, from the values computed at run time, against the generic path
        // and against the form the compiler built.
        let (rows, p) = character_sign_rows(&dawson::DawsonValues::compute());
        let direct = RationalLanes::from_sign_rows(&rows, p, CHARACTERS as usize);
        assert_eq!(Some(direct.clone()), RationalLanes::shared(&character_signs()));
        assert_eq!(direct, tables::DAWSON_RATIONAL);
        assert_eq!(rows, tables::SIGN_ROWS);
    }

    /// The direct path against `catalan-words` on the 16 sign sequences, on the sizes
    /// where the kernel's structure changes (direct outputs, the first blocks, partial
    /// last blocks, the x ring wrapping, the instance and beyond) and on moduli inside
    /// and outside the words' range (outside: no answer, the caller runs the others).
    #[test]
    fn words_from_dawson_match_catalan_words_on_the_character_signs() {
        let characters = character_signs();
        for m in [0usize, 1, 2, 3, 7, 8, 14, 15, 16, 22, 23, 24, 31, 32, 33, 63, 64, 65, 127, 128, 129, 300, 500, 701] {
            for modulus in [1_000_000_000u64, 2, 3, 1 << 12, 1953125, 999_999_937, 1_000_000_007, 1 << 32] {
                let wide = CHARACTERS * modulus;
                for simd in Simd::tested() {
                    let direct = words_from_dawson(simd, m, wide);
                    if catalan_words::WordRing::new(wide / 2).is_none() {
                        assert_eq!(direct, None, "m={m} M={modulus}");
                        continue;
                    }
                    let generic = SeriesVariant::CatalanWords.run_on(Simd::portable(), &characters, m, wide);
                    assert_eq!(direct, Some(generic), "{simd}: m={m} M={modulus}");
                }
            }
        }
    }

    #[test]
    fn refuses_kernels_beyond_their_sizes_before_any_work() {
        let big = KaylesParams::new(MAX_PINS, 10).unwrap();
        let err = preflight(&big, KaylesKernel::Reference).unwrap_err().to_string();
        assert!(err.contains("reference") && err.contains("--kernel newton"), "{err}");
        // One maximum: the option's is newton's, and beyond it the parameters refuse.
        assert_eq!(MAX_PINS, KaylesKernel::Newton.max_pins());
        let err = KaylesParams::new(MAX_PINS + 1, 10).unwrap_err().to_string();
        assert!(err.contains(&format!("maximum of {MAX_PINS}")), "{err}");
        let fine = KaylesParams::new(KaylesKernel::Newton.max_pins(), 10).unwrap();
        assert!(fine.pins <= MAX_PINS && preflight(&fine, KaylesKernel::Catalan).is_err());
        assert_eq!(KaylesKernel::default_for(&KaylesParams::instance()), KaylesKernel::CatalanWords);
        // 8·(10^9 + 7) has an odd factor beyond the words' range.
        assert_eq!(KaylesKernel::default_for(&KaylesParams::new(1000, 1_000_000_007).unwrap()), KaylesKernel::Catalan);
        // The instance's memory is far below the size that is worth reading /proc/meminfo.
        assert!(KaylesKernel::CatalanWords.memory_bytes(1000, 2) < memory::CHECK_FROM_BYTES);
        // With AVX-512 catalan-words stays the default up to WORDS_UNTIL_PINS, with AVX2
        // up to WORDS_UNTIL_PINS_AVX2, then newton.
        for (level, until) in [(Level::Avx512, WORDS_UNTIL_PINS), (Level::Avx2, WORDS_UNTIL_PINS_AVX2)] {
            if let Some(wide) = Simd::new(level) {
                let at = |pins| KaylesKernel::default_on(&KaylesParams::new(pins, 1_000_000_000).unwrap(), wide);
                assert_eq!(at(until - 2), KaylesKernel::CatalanWords, "{wide}");
                assert_eq!(at(until), KaylesKernel::Newton, "{wide}");
            }
        }
        assert_eq!(KaylesKernel::default_for(&KaylesParams::new(1_000_000, 10).unwrap()), KaylesKernel::Newton);
        // Per backend: the baseline hands over to newton sooner.
        let on = |pins, modulus, simd| KaylesKernel::default_on(&KaylesParams::new(pins, modulus).unwrap(), simd);
        let portable = Simd::portable();
        assert_eq!(on(1000, 1_000_000_000, portable), KaylesKernel::CatalanWords);
        assert_eq!(on(WORDS_UNTIL_PINS_PORTABLE - 2, 1_000_000_000, portable), KaylesKernel::CatalanWords);
        assert_eq!(on(WORDS_UNTIL_PINS_PORTABLE, 1_000_000_000, portable), KaylesKernel::Newton);
        assert_eq!(on(NEWTON_FROM_PINS - 2, 1_000_000_007, portable), KaylesKernel::Catalan);
        assert_eq!(on(NEWTON_FROM_PINS, 1_000_000_007, portable), KaylesKernel::Newton);
        for simd in Simd::tested() {
            assert_eq!(on(1000, 1_000_000_000, simd), KaylesKernel::CatalanWords, "{simd}");
            assert_eq!(on(1000, 1_000_000_007, simd), KaylesKernel::Catalan, "{simd}");
        }
        for wide in [Level::Avx2, Level::Avx512].into_iter().filter_map(Simd::new) {
            assert_eq!(on(NEWTON_FROM_PINS_WIDE - 2, 1_000_000_007, wide), KaylesKernel::Catalan, "{wide}");
            assert_eq!(on(NEWTON_FROM_PINS_WIDE, 1_000_000_007, wide), KaylesKernel::Newton, "{wide}");
        }
    }
}
