//! The one cross-check for every scan variant: the same losing triples, in the same
//! order, as the naive reference.

use super::{KeyscanVariant, StoneScan, keyscan_naive};
use crate::sched::Scheduler;

/// The losing triples and the summary from one variant.
pub fn losing_triples(variant: KeyscanVariant, limit: u32, sched: &Scheduler) -> (Vec<[u32; 3]>, StoneScan) {
    let mut triples = Vec::new();
    let scan = variant.run(limit, sched, &mut |x, y, z| triples.push([x, y, z]));
    (triples, scan)
}

/// Compares `variant` with [`keyscan_naive`] for every limit in `limits`.
pub fn check_variant(variant: KeyscanVariant, limits: &[u32], sched: &Scheduler) -> Result<(), String> {
    for &limit in limits {
        let mut expected = Vec::new();
        let expected_scan = keyscan_naive(limit, &mut |x, y, z| expected.push([x, y, z]));
        let (got, got_scan) = losing_triples(variant, limit, sched);
        if got != expected || got_scan != expected_scan {
            let first = (0..expected.len().max(got.len())).find(|&i| expected.get(i) != got.get(i));
            return Err(format!(
                "keyscan {variant}: L={limit}: {got_scan:?} vs reference {expected_scan:?}, first differing triple #{first:?}"
            ));
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
        let limits: Vec<u32> = (0..=40).chain([63, 64, 65, 127, 128, 200]).collect();
        for threads in [1, 2] {
            let sched = Scheduler::new(Some(threads)).unwrap();
            for &v in KeyscanVariant::ALL {
                check_variant(v, &limits, &sched).unwrap();
            }
        }
    }
}
