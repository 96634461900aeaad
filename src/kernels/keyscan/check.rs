//! The one cross-check for every scan variant: the same losing triples, in the same
//! order, and the same count and sum, as the naive reference.

use super::{KeyscanVariant, StoneScan, keyscan_naive};
use crate::sched::Scheduler;

/// The limits every variant is checked on: every `L <= 40` (tiny tiles, one and two words
/// per row), the edges of words, of the four- and eight-word search steps and of the tile
/// sides (`L + 1` a multiple of 64, 128, 256, 512 and one off), up to 400.
pub const CHECK_LIMITS: &[u32] = &[
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30,
    31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 62, 63, 64, 65, 127, 128, 129, 191, 254, 255, 256, 257, 383, 400,
];

/// The losing triples and the summary from one variant.
pub fn losing_triples(variant: KeyscanVariant, limit: u32, sched: &Scheduler) -> (Vec<[u32; 3]>, StoneScan) {
    let mut triples = Vec::new();
    let scan = variant.run(limit, sched, &mut |x, y, z| triples.push([x, y, z]));
    (triples, scan)
}

/// Compares `variant` with [`keyscan_naive`] for every limit in `limits`: the triples in
/// order, the summary, and the summary of [`KeyscanVariant::count`].
pub fn check_variant(variant: KeyscanVariant, limits: &[u32], sched: &Scheduler) -> Result<(), String> {
    for &limit in limits {
        let mut expected = Vec::new();
        let expected_scan = keyscan_naive(limit, &mut |x, y, z| expected.push([x, y, z]));
        let (got, got_scan) = losing_triples(variant, limit, sched);
        if got != expected || got_scan != expected_scan {
            let first = (0..expected.len().max(got.len())).find(|&i| expected.get(i) != got.get(i));
            return Err(format!(
                "keyscan {variant} ({} threads): L={limit}: {got_scan:?} vs reference {expected_scan:?}, first differing triple #{first:?}: {:?} vs {:?}",
                sched.threads(),
                first.and_then(|i| got.get(i)),
                first.and_then(|i| expected.get(i)),
            ));
        }
        let counted = variant.count(limit, sched);
        if counted != expected_scan {
            return Err(format!("keyscan {variant}: L={limit}: count() gives {counted:?}, run() {got_scan:?}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn naive_finds_the_worked_example() {
        let (triples, scan) = losing_triples(KeyscanVariant::Naive, 4, &Scheduler::sequential());
        assert_eq!(triples, vec![[0, 0, 0], [0, 1, 2], [1, 1, 4], [1, 3, 3], [3, 4, 4]]);
        assert_eq!(scan, StoneScan { losing: 5, sum: 27 });
    }

    #[test]
    fn every_variant_matches_the_reference() {
        for threads in [1, 2] {
            let sched = Scheduler::new(Some(threads)).unwrap();
            for &v in KeyscanVariant::ALL {
                check_variant(v, CHECK_LIMITS, &sched).unwrap();
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
            for threads in [1, 2] {
                let sched = Scheduler::new(Some(threads)).unwrap();
                for variant in [KeyscanVariant::Diagonal, KeyscanVariant::DiagonalTiles] {
                    let (got, scan) = losing_triples(variant, limit, &sched);
                    assert_eq!(scan, expected_scan, "{variant} L={limit} threads {threads}");
                    assert!(got == expected, "{variant} L={limit} threads {threads}: the triples differ");
                }
            }
        }
    }

    #[test]
    fn the_parallel_variant_matches_with_more_threads_than_cores() {
        for threads in [3, 8] {
            let sched = Scheduler::new(Some(threads)).unwrap();
            check_variant(KeyscanVariant::Wavefront, &[0, 1, 17, 63, 64, 130, 257], &sched).unwrap();
        }
    }
}
