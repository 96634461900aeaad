//! The three-pile stone game (Project Euler 260): sum `x + y + z` over the losing
//! sorted triples `x <= y <= z <= L`.
//!
//! Theory (`docs/theory/stones.md`): each kind of move keeps a pair of numbers fixed (a
//! key); two losing positions never share a key, and a triple is losing exactly when none
//! of its seven keys belongs to an earlier losing triple in lexicographic order
//! (§3–5). The scan is the [`crate::kernels::keyscan`] family. Every pair of pile
//! sizes has exactly one losing partner (§8), so about `0.12·L^2` triples are losing.

pub mod brute;

use crate::files::AtomicFile;
use crate::games::{Answer, Check, InputError, ProblemId, parse_kernel};
use crate::kernels::keyscan::{KeyscanVariant, StoneScan, check};
use crate::kernels::variant_enum;
use crate::memory;
use crate::platform::Caches;
use crate::sched::Scheduler;

/// The largest limit accepted: the sum must fit `u64` (true below 2^20) and the
/// coordinates `u32`; memory is checked separately.
pub const MAX_LIMIT: u64 = 1_000_000;

// At most one losing triple per pair `x <= y` (docs/theory/stones.md §8), each summing to
// at most `3L`: the bound `StoneScan::sum` relies on, checked by the compiler at
// `MAX_LIMIT` in `u128`.
const _: () = {
    let l = MAX_LIMIT as u128;
    assert!(3 * l * (l + 1) * (l + 2) / 2 < u64::MAX as u128, "the stones sum must fit u64 at MAX_LIMIT");
};

/// Validated parameters: losing triples with `z <= limit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StonesParams {
    /// The largest pile size `L`.
    pub limit: u32,
}

impl StonesParams {
    /// The Project Euler instance, `L = 1000`.
    pub fn instance() -> Self {
        Self { limit: 1000 }
    }

    /// Validates `limit`.
    pub fn new(limit: u64) -> Result<Self, InputError> {
        // limit = 0 is the one triple (0, 0, 0), losing (no move), which every kernel
        // finds: the sum is 0 over 1 losing triple.
        match limit {
            l if l > MAX_LIMIT => Err(InputError::new(
                ProblemId::Stones,
                format!("--limit {l} is above the supported maximum of {MAX_LIMIT}"),
            )),
            l => Ok(Self { limit: l as u32 }),
        }
    }
}

variant_enum! {
    /// How the losing triples are scanned: the [`KeyscanVariant`]s, one for one, but
    /// listed fastest first, as `--kernel` and `gamecount kernels` show them. A game's
    /// kernel enum is the command line's vocabulary for that game, as for every problem
    /// (for cards each kernel is a pipeline of three families); the family's enum is the
    /// kernels' own, ordered from its reference.
    pub enum StonesKernel {
        /// Strips of pairs by anti-diagonals, all searches of one before its marks; the
        /// fastest on one thread.
        Diagonal => "diagonal",
        /// Tiles of pairs run in parallel, each by anti-diagonals; the fastest for large
        /// limits.
        DiagonalTiles => "diagonal-tiles",
        /// Tiles of pairs run in parallel, each in lexicographic order.
        Wavefront => "wavefront",
        /// Pairs in lexicographic order, the partner search four words per step.
        BitsetX4 => "bitset-x4",
        /// The same, eight words per step.
        BitsetX8 => "bitset-x8",
        /// The same, one word per step.
        Bitset => "bitset",
        /// Seven byte-table look-ups per triple, O(L^3): docs/theory/stones.md §5.
        Naive => "naive",
    }
}

/// From this limit on, with two or more threads, [`StonesKernel::DiagonalTiles`] is the
/// default; below it the sequential [`StonesKernel::Diagonal`]: starting the second
/// worker costs a fresh process about as much as it saves up to about 1650, from 1700
/// the tiles win (fresh `solve` processes on 2 threads, Zen 4, 15 alternated rounds,
/// `--simd avx2`: strips 5.0 against tiles 5.8 ms at 1250, 9.8 against 10.2 ms at 1600,
/// 11.1 against 9.7 ms at 1700, 18.6 against 15.6 ms at 2000; `--simd avx512` the same
/// within a few percent). The strips and the tiles search with the same windows on every
/// backend (`keyscan::diagonal::window`), so the crossover is kept for all of them.
pub const TILES_FROM: u32 = 1700;

/// On one thread the strips are the default up to here: 1–5% ahead of the tiles up to
/// 2·10^4, level from 2.5·10^4, where the strips' rows no longer stay in the L2 cache
/// (`gamecount-lab ladder`, fresh `solve` processes on 1 thread, Zen 4 with 1 MiB of L2
/// per core; docs/design/stones.md). See [`tiles_from_one_thread`] for other caches.
pub const TILES_FROM_ONE_THREAD: u32 = 25_000;

/// The L2 cache of the machine [`TILES_FROM_ONE_THREAD`] was measured on.
const MEASURED_L2: u64 = 1 << 20;

/// The one-thread crossover for a CPU with `caches`: where the strips' rows stop fitting
/// in L2. A pile group is two rows of `L / 64` words, so the groups a strip keeps hot take
/// bytes in proportion to `L`, and the crossover moves with the L2 size (12 500 on a Zen
/// 3's 512 KiB). Never below [`TILES_FROM`]: one thread does not make the tiles cheaper
/// than two.
pub fn tiles_from_one_thread(caches: Caches) -> u32 {
    let scaled = TILES_FROM_ONE_THREAD as u64 * caches.l2 as u64 / MEASURED_L2;
    scaled.clamp(TILES_FROM as u64 + 1, MAX_LIMIT) as u32
}

impl StonesKernel {
    /// The fastest kernel for `params` on `threads` threads (on every backend: see
    /// [`TILES_FROM`]), with the one-thread crossover from this CPU's L2.
    pub fn default_for(params: &StonesParams, threads: usize) -> Self {
        let from = if threads >= 2 { TILES_FROM } else { tiles_from_one_thread(Caches::detect()) };
        if params.limit >= from { StonesKernel::DiagonalTiles } else { StonesKernel::Diagonal }
    }

    /// Parses `--kernel` (default: [`Self::default_for`]).
    pub fn parse(name: Option<&str>, params: &StonesParams, threads: usize) -> Result<Self, InputError> {
        parse_kernel(ProblemId::Stones, name, Self::default_for(params, threads))
    }

    /// The scan kernel this runs.
    pub fn keyscan(self) -> KeyscanVariant {
        match self {
            StonesKernel::Naive => KeyscanVariant::Naive,
            StonesKernel::Bitset => KeyscanVariant::Bitset,
            StonesKernel::BitsetX4 => KeyscanVariant::BitsetX4,
            StonesKernel::BitsetX8 => KeyscanVariant::BitsetX8,
            StonesKernel::Wavefront => KeyscanVariant::Wavefront,
            StonesKernel::Diagonal => KeyscanVariant::Diagonal,
            StonesKernel::DiagonalTiles => KeyscanVariant::DiagonalTiles,
        }
    }
}

/// Refuses what would not fit in memory, before any work.
pub fn preflight(params: &StonesParams, kernel: StonesKernel) -> Result<(), InputError> {
    memory::ensure_fits(
        ProblemId::Stones,
        &format!("the key tables of --limit {} ({kernel})", params.limit),
        kernel.keyscan().memory_bytes(params.limit),
    )
}

/// Scans for `params`, handing each losing triple to `sink` in lexicographic order.
pub fn scan(
    params: &StonesParams,
    kernel: StonesKernel,
    sched: &Scheduler,
    sink: &mut dyn FnMut(u32, u32, u32),
) -> Result<StoneScan, InputError> {
    preflight(params, kernel)?;
    Ok(kernel.keyscan().run(params.limit, sched, sink))
}

/// The sum over the losing triples, with their number as `losing`.
pub fn solve(params: &StonesParams, kernel: StonesKernel, sched: &Scheduler) -> Result<Answer, InputError> {
    preflight(params, kernel)?;
    Ok(answer(params, kernel, kernel.keyscan().count(params.limit, sched)))
}

/// [`solve`], writing every losing triple to `list` as well (which the caller then
/// commits with [`AtomicFile::commit`]).
pub fn solve_listing(
    params: &StonesParams,
    kernel: StonesKernel,
    sched: &Scheduler,
    list: &mut AtomicFile,
) -> Result<Answer, InputError> {
    let result = scan(params, kernel, sched, &mut |x, y, z| list.push_triple(x, y, z))?;
    Ok(answer(params, kernel, result))
}

fn answer(params: &StonesParams, kernel: StonesKernel, result: StoneScan) -> Answer {
    Answer {
        problem: ProblemId::Stones,
        params: vec![("limit", params.limit as u64)],
        answer: result.sum,
        extra: vec![("losing", result.losing)],
        kernel: kernel.name(),
    }
}

/// The checks `gamecount verify` runs for this problem.
pub fn checks(deep: bool) -> Vec<Check> {
    let brute_limit = if deep { 80 } else { 40 };
    vec![
        Check::new(
            format!("stones: real-move search for every L <= {brute_limit} equals every kernel (losing set and sum)"),
            move |sched| {
                let table = brute::StoneTable::solve(brute_limit);
                for limit in 0..=brute_limit {
                    let expected = table.losing_triples(limit);
                    let sum: u64 = expected.iter().map(|t| t.iter().map(|&v| v as u64).sum::<u64>()).sum();
                    for &kernel in StonesKernel::ALL {
                        let mut got = Vec::new();
                        let scan = kernel.keyscan().run(limit, sched, &mut |x, y, z| got.push([x, y, z]));
                        if got != expected || scan.sum != sum || scan.losing != expected.len() as u64 {
                            return Err(format!("{kernel} at L={limit}: {scan:?}, search finds sum {sum}"));
                        }
                    }
                }
                let examples_hold = [[0, 1, 2], [1, 3, 3]].iter().all(|&t| table.is_losing(t))
                    && [[0, 0, 13], [0, 11, 11], [5, 5, 5]].iter().all(|&t| !table.is_losing(t));
                if !examples_hold {
                    return Err("the statement's example positions are classified wrongly".into());
                }
                Ok(format!(
                    "{} losing triples up to L={brute_limit}; statement examples hold",
                    table.losing_triples(brute_limit).len()
                ))
            },
        ),
        Check::new(
            if deep {
                "stones: every kernel hands out the reference's triples in order, every L <= 400, and word edges to 1000"
            } else {
                "stones: every kernel hands out the reference's triples in order, every L <= 400"
            },
            move |sched| {
                let deep_limits: &[u32] = if deep { &[511, 512, 513, 1000] } else { &[] };
                let limits = check::CHECK_LIMITS.chain(deep_limits.iter().copied());
                // One run of the reference, at the largest limit, serves them all.
                let reference = check::Reference::new(limits.clone().max().unwrap_or(0));
                for &kernel in StonesKernel::ALL {
                    check::check_against(kernel.keyscan(), &reference, limits.clone(), sched)?;
                }
                let limits = limits.count();
                Ok(format!("{} kernels on {limits} limits, {} threads", StonesKernel::ALL.len(), sched.threads()))
            },
        ),
        Check::new("stones: checkpoint L = 100 gives 173895 with every kernel", |sched| {
            for &kernel in StonesKernel::ALL {
                let scan = kernel.keyscan().run(100, sched, &mut |_, _, _| {});
                if scan.sum != 173_895 || scan.losing != 1264 {
                    return Err(format!("{kernel}: {scan:?}"));
                }
            }
            Ok("sum 173895 over 1264 losing triples".into())
        }),
        Check::new("stones: with one empty pile the losing pairs are Wythoff's (floor(kφ), floor(kφ²))", |sched| {
            let limit = 1000;
            let mut zero_slice = Vec::new();
            let params = StonesParams { limit };
            scan(&params, StonesKernel::default_for(&params, sched.threads()), sched, &mut |x, y, z| {
                if x == 0 {
                    zero_slice.push((y, z));
                }
            })
            .map_err(|e| e.to_string())?;
            let phi = (1.0 + 5f64.sqrt()) / 2.0;
            let wythoff: Vec<(u32, u32)> = (0..)
                .map(|k: u32| ((k as f64 * phi).floor() as u32, (k as f64 * phi * phi).floor() as u32))
                .take_while(|&(_, b)| b <= limit)
                .collect();
            if zero_slice != wythoff {
                return Err(format!("{} pairs found, Wythoff gives {}", zero_slice.len(), wythoff.len()));
            }
            Ok(format!("{} pairs up to L = {limit}", wythoff.len()))
        }),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_kernel_is_tiled_from_a_limit_that_depends_on_the_threads() {
        let at = |limit: u32, threads| StonesKernel::default_for(&StonesParams::new(limit as u64).unwrap(), threads);
        assert_eq!(at(TILES_FROM - 1, 2), StonesKernel::Diagonal);
        assert_eq!(at(TILES_FROM, 2), StonesKernel::DiagonalTiles);
        assert_eq!(at(TILES_FROM, 8), StonesKernel::DiagonalTiles);
        assert_eq!(at(TILES_FROM, 1), StonesKernel::Diagonal);
        // The one-thread crossover of this CPU's caches (TILES_FROM_ONE_THREAD on the
        // Zen 4 where it was measured).
        let one_thread = tiles_from_one_thread(Caches::detect());
        assert_eq!(at(one_thread - 1, 1), StonesKernel::Diagonal);
        assert_eq!(at(one_thread, 1), StonesKernel::DiagonalTiles);
    }

    #[test]
    fn the_one_thread_crossover_follows_the_l2_cache() {
        let with_l2 = |l2: usize| tiles_from_one_thread(Caches { l2, ..Caches::FALLBACK });
        assert_eq!(with_l2(1 << 20), TILES_FROM_ONE_THREAD);
        assert_eq!(with_l2(512 << 10), TILES_FROM_ONE_THREAD / 2);
        assert_eq!(with_l2(1), TILES_FROM + 1);
    }

    #[test]
    fn rejects_bad_parameters() {
        assert_eq!(StonesParams::new(0).map(|p| p.limit), Ok(0));
        assert!(StonesParams::new(MAX_LIMIT + 1).is_err());
        assert!(StonesParams::new(1).is_ok());
    }

    #[test]
    fn brute_force_worked_example_and_kernels_agree_to_twenty() {
        let table = brute::StoneTable::solve(20);
        assert_eq!(table.losing_triples(4), vec![[0, 0, 0], [0, 1, 2], [1, 1, 4], [1, 3, 3], [3, 4, 4]]);
        for &kernel in StonesKernel::ALL {
            let mut got = Vec::new();
            kernel.keyscan().run(20, &Scheduler::sequential(), &mut |x, y, z| got.push([x, y, z]));
            assert_eq!(got, table.losing_triples(20), "{kernel}");
        }
    }

    #[test]
    fn limit_zero_has_one_losing_triple_and_sum_zero_as_the_search_finds() {
        let table = brute::StoneTable::solve(0);
        assert_eq!(table.losing_triples(0), vec![[0, 0, 0]]);
        let params = StonesParams::new(0).unwrap();
        for &kernel in StonesKernel::ALL {
            for threads in [1, 2] {
                let answer = solve(&params, kernel, &Scheduler::new(Some(threads)).unwrap()).unwrap();
                assert_eq!((answer.answer, answer.extra.clone()), (0, vec![("losing", 1)]), "{kernel}");
            }
        }
    }

    #[test]
    fn answers_do_not_depend_on_the_thread_count() {
        let params = StonesParams::new(150).unwrap();
        for &kernel in StonesKernel::ALL {
            let answers: Vec<Answer> = [1, 2, 3, 8]
                .iter()
                .map(|&t| solve(&params, kernel, &Scheduler::new(Some(t)).unwrap()).unwrap())
                .collect();
            assert!(answers.windows(2).all(|w| w[0] == w[1]), "{kernel}");
        }
    }
}
