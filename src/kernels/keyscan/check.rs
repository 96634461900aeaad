//! The one cross-check for every scan variant: the same losing triples, in the same
//! order, and the same count and sum, as the naive reference.

use super::{KeyscanVariant, StoneScan};
use crate::sched::Scheduler;

/// The limits every variant is checked on: every `L <= 400` (tiny tiles, one and two
/// words per row, the edges of words, of the four- and eight-word search steps and of the
/// tile sides: `L + 1` a multiple of 64, 128, 256 and one off).
pub const CHECK_LIMITS: std::ops::RangeInclusive<u32> = 0..=400;

/// The losing triples and the summary from one variant.
pub fn losing_triples(variant: KeyscanVariant, limit: u32, sched: &Scheduler) -> (Vec<[u32; 3]>, StoneScan) {
    let mut triples = Vec::new();
    let scan = variant.run(limit, sched, &mut |x, y, z| triples.push([x, y, z]));
    (triples, scan)
}

/// The reference's losing triples up to one limit, and from them those of every smaller
/// limit.
///
/// Whether a triple loses depends only on the positions its moves reach, and none of
/// them has a pile larger than its `z` (docs/theory/stones.md §1–2), not on `L`: the triples
/// of a limit `l` are those of a larger limit with `z <= l`, in the same (lexicographic)
/// order. So one run of the O(L^3)
/// reference serves every limit up to its own; the test
/// `the_reference_of_a_smaller_limit_is_a_prefix` checks the identity on the reference
/// itself.
pub struct Reference {
    limit: u32,
    triples: Vec<[u32; 3]>,
}

impl Reference {
    /// Runs [`keyscan_naive`](super::keyscan_naive) once, at `limit`.
    pub fn new(limit: u32) -> Self {
        let (triples, _) = losing_triples(KeyscanVariant::Naive, limit, &Scheduler::sequential());
        Self { limit, triples }
    }

    /// The losing triples and the summary for `limit` (at most the reference's own).
    pub fn up_to(&self, limit: u32) -> (Vec<[u32; 3]>, StoneScan) {
        assert!(limit <= self.limit, "the reference was run to {}, not {limit}", self.limit);
        let triples: Vec<[u32; 3]> = self.triples.iter().copied().filter(|t| t[2] <= limit).collect();
        let mut scan = StoneScan::default();
        triples.iter().for_each(|&[x, y, z]| scan.record(x, y, z));
        (triples, scan)
    }
}

/// Compares `variant` with [`keyscan_naive`](super::keyscan_naive) for every limit in `limits`: the triples in
/// order, the summary, and the summary of [`KeyscanVariant::count`]. The reference runs
/// once, at the largest limit (see [`Reference`]).
pub fn check_variant(
    variant: KeyscanVariant,
    limits: impl IntoIterator<Item = u32> + Clone,
    sched: &Scheduler,
) -> Result<(), String> {
    let Some(largest) = limits.clone().into_iter().max() else { return Ok(()) };
    check_against(variant, &Reference::new(largest), limits, sched)
}

/// [`check_variant`] against a reference already run (to at least every limit).
pub fn check_against(
    variant: KeyscanVariant,
    reference: &Reference,
    limits: impl IntoIterator<Item = u32>,
    sched: &Scheduler,
) -> Result<(), String> {
    for limit in limits {
        let (expected, expected_scan) = reference.up_to(limit);
        let (got, got_scan) = losing_triples(variant, limit, sched);
        if got != expected || got_scan != expected_scan {
            let first = (0..expected.len().max(got.len())).find(|&i| expected.get(i) != got.get(i));
            return Err(format!(
                "keyscan {variant} ({} threads, {}): L={limit}: {got_scan:?} vs reference {expected_scan:?}, first differing triple #{first:?}: {:?} vs {:?}",
                sched.threads(),
                sched.simd(),
                first.and_then(|i| got.get(i)),
                first.and_then(|i| expected.get(i)),
            ));
        }
        let counted = variant.count(limit, sched);
        if counted != expected_scan {
            return Err(format!(
                "keyscan {variant} ({}): L={limit}: count() gives {counted:?}, run() {got_scan:?}",
                sched.simd()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simd::Simd;

    /// A scheduler of `threads` threads on `simd`'s backend.
    fn on(threads: usize, simd: Simd) -> Scheduler {
        Scheduler::new(Some(threads)).unwrap().with_simd(simd)
    }

    #[test]
    fn naive_finds_the_worked_example() {
        let (triples, scan) = losing_triples(KeyscanVariant::Naive, 4, &Scheduler::sequential());
        assert_eq!(triples, vec![[0, 0, 0], [0, 1, 2], [1, 1, 4], [1, 3, 3], [3, 4, 4]]);
        assert_eq!(scan, StoneScan { losing: 5, sum: 27 });
    }

    /// The identity [`Reference`] relies on, on the reference itself: run at a smaller
    /// limit, it finds the triples of the larger run with `z` up to that limit.
    #[test]
    fn the_reference_of_a_smaller_limit_is_a_prefix() {
        let reference = Reference::new(130);
        for limit in [0, 1, 2, 7, 40, 63, 64, 65, 129, 130] {
            let (triples, scan) = losing_triples(KeyscanVariant::Naive, limit, &Scheduler::sequential());
            assert_eq!((triples, scan), reference.up_to(limit), "L={limit}");
        }
    }

    /// Every variant, on one thread and on two, on every backend this CPU has, at every
    /// `L <= 400`. The reference ignores the scheduler, so it runs once, on one thread
    /// and the portable backend: at every limit it is most of the test's time (7.5 s of
    /// 9 s in the test profile, before the backends were added).
    #[test]
    fn every_variant_matches_the_reference() {
        let reference = Reference::new(*CHECK_LIMITS.end());
        for simd in Simd::tested() {
            for threads in [1, 2] {
                let sched = on(threads, simd);
                let first = threads == 1 && simd == Simd::portable();
                for &v in KeyscanVariant::ALL.iter().filter(|&&v| first || v != KeyscanVariant::Naive) {
                    check_against(v, &reference, CHECK_LIMITS, &sched).unwrap();
                }
            }
        }
    }

    /// Past one search window (`L >= 448`), where a search may continue beyond its
    /// first seven words and the exhausted piles' bound lets it skip some: the two
    /// anti-diagonal scans against the lexicographic bitset scan (a search of its own,
    /// checked against the reference above), triple by triple. The reference itself
    /// would take seconds here.
    #[test]
    fn the_diagonal_scans_agree_with_the_bitset_scan_beyond_one_window() {
        for limit in [447, 448, 511, 700, 1000, 1536, 2047] {
            let (expected, expected_scan) = losing_triples(KeyscanVariant::BitsetX8, limit, &Scheduler::sequential());
            for simd in Simd::tested() {
                for threads in [1, 2] {
                    let sched = on(threads, simd);
                    for variant in [KeyscanVariant::Diagonal, KeyscanVariant::DiagonalTiles] {
                        let (got, scan) = losing_triples(variant, limit, &sched);
                        assert_eq!(scan, expected_scan, "{variant} L={limit} threads {threads} {simd}");
                        assert!(got == expected, "{variant} L={limit} threads {threads} {simd}: the triples differ");
                    }
                }
            }
        }
    }

    /// The Project Euler instance: the same count and sum from every variant but the
    /// cubic reference, on every backend and thread count, and the known answer.
    #[test]
    fn results_do_not_depend_on_the_backend_or_the_thread_count() {
        let expected = StoneScan { losing: 121_060, sum: 167_542_057 };
        for simd in Simd::tested() {
            for threads in [1, 2, 3] {
                let sched = on(threads, simd);
                for &v in KeyscanVariant::ALL.iter().filter(|&&v| v != KeyscanVariant::Naive) {
                    assert_eq!(v.count(1000, &sched), expected, "{v} on {simd}, {threads} threads");
                }
            }
        }
    }

    #[test]
    fn the_parallel_variant_matches_with_more_threads_than_cores() {
        for threads in [3, 8] {
            let sched = Scheduler::new(Some(threads)).unwrap();
            check_variant(KeyscanVariant::Wavefront, [0, 1, 17, 63, 64, 130, 257], &sched).unwrap();
        }
    }
}
