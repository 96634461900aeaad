//! The one cross-check for every Grundy variant: the same values as the naive
//! reference, for a spread of games (every kind of digit, `d0 = 4`, Grundy's game, games
//! with values past 64), on every size up to a bound, grown in one step and in several,
//! on every SIMD backend this CPU has.

use super::Checkpoints;
use super::blocks::{Layout, grundy_lag_blocks_in, grundy_lag_blocks_with};
use super::parallel::grundy_blocks;
use super::{GrundyVariant, Rules, grundy_naive};
use crate::kernels::SplitMix64;
use crate::kernels::wht::check::on_every_backend;
use crate::sched::Scheduler;

/// Named games of the checks: Dawson's Kayles, Kayles, Dawson's chess, 0.156, 0.354,
/// 0.16 (long preperiod), 4.07 (splits without removal), 0.7777 (values past 64 early),
/// 0.4 and 0.04 (split-only digits), and Grundy's game.
pub fn check_games() -> Vec<(String, Rules)> {
    let octal = |name: &str, digits: &[u8]| (name.to_string(), Rules::octal(digits));
    let mut games = vec![
        octal("0.07", &[0, 0, 7]),
        octal("0.77", &[0, 7, 7]),
        octal("0.137", &[0, 1, 3, 7]),
        octal("0.156", &[0, 1, 5, 6]),
        octal("0.354", &[0, 3, 5, 4]),
        octal("0.16", &[0, 1, 6]),
        octal("4.07", &[4, 0, 7]),
        octal("0.7777", &[0, 7, 7, 7, 7]),
        octal("0.4", &[0, 4]),
        octal("0.04", &[0, 0, 4]),
        ("grundy".to_string(), Rules::GRUNDY),
    ];
    // Random codes of one to four digits, d0 either way.
    let mut rng = SplitMix64(0x0C7A1);
    for _ in 0..12 {
        let len = 1 + rng.below(4) as usize;
        let mut digits = vec![if rng.below(3) == 0 { 4 } else { 0 }];
        digits.extend((0..len).map(|_| rng.below(8) as u8));
        *digits.last_mut().unwrap() |= 1 + rng.below(7) as u8;
        let name = format!("{}.{}", digits[0], digits[1..].iter().map(|d| d.to_string()).collect::<String>());
        games.push((name, Rules::octal(&digits)));
    }
    games
}

/// Runs `variant` against [`grundy_naive`] on every game of [`check_games`] up to heap
/// `max_heap` (in one step, and grown from every size below 40 and from a few larger
/// ones), on every SIMD backend, with the scheduler's threads. Returns the first mismatch.
pub fn check_variant(variant: GrundyVariant, max_heap: usize, sched: &Scheduler) -> Result<(), String> {
    on_every_backend(sched, |sched| {
        check_with(variant.name(), max_heap, 40, &|rules, g, to| {
            variant.extend(rules, g, to, sched).map_err(|e| e.to_string())
        })
    })
}

/// A way to extend a table: `f(rules, g, max_heap)`.
pub type Extend<'a> = dyn Fn(&Rules, &mut Vec<u16>, usize) -> Result<(), String> + 'a;

/// The checks of [`check_variant`] for any extension `f`, grown from each of the first
/// `small_starts` sizes and from a few larger ones.
pub fn check_with(name: &str, max_heap: usize, small_starts: usize, f: &Extend) -> Result<(), String> {
    for (game, rules) in check_games() {
        let mut expected = Vec::new();
        grundy_naive(&rules, &mut expected, max_heap).map_err(|e| e.to_string())?;
        let mut starts: Vec<usize> = (0..small_starts.min(max_heap)).collect();
        starts.extend([max_heap / 3, max_heap / 2 + 1, max_heap]);
        for start in starts {
            let mut got = expected[..start].to_vec();
            f(&rules, &mut got, max_heap)?;
            if let Some(n) = (0..=max_heap).find(|&n| got.get(n) != expected.get(n)) {
                return Err(format!(
                    "grundy {name}: game {game}, grown from {start} heaps to {max_heap}: G({n}) is {:?} but the reference gives {}",
                    got.get(n),
                    expected[n]
                ));
            }
        }
    }
    Ok(())
}

/// The parallel variant with short blocks (so that blocks, warm-up and mask changes
/// inside a block all occur at test sizes), against the reference.
pub fn check_short_blocks(max_heap: usize, sched: &Scheduler) -> Result<(), String> {
    on_every_backend(sched, |sched| {
        for block in [1, 7, 64] {
            check_with(&format!("parallel, blocks of {block}"), max_heap, 3, &|rules, g, to| {
                grundy_blocks(rules, g, to, sched, block).map_err(|e| e.to_string())
            })?;
        }
        Ok(())
    })
}

/// The lag-blocks variant with short blocks (so that lane groups, rare heaps paired one
/// by one and mask changes inside a block all occur at test sizes), against the
/// reference.
pub fn check_short_lag_blocks(max_heap: usize, sched: &Scheduler) -> Result<(), String> {
    on_every_backend(sched, |sched| {
        for (block, bitset_heaps) in [(1, 0), (8, 0), (16, 0), (64, 0), (8, 50)] {
            check_with(&format!("blocks of {block} after {bitset_heaps} by bitset"), max_heap, 3, &|rules, g, to| {
                grundy_lag_blocks_with(rules, g, to, sched, block, bitset_heaps).map_err(|e| e.to_string())
            })?;
        }
        Ok(())
    })
}

/// The lag-blocks variant switching to its two-thread pipeline after its first block
/// (short blocks, every backend, the pairs of the first heaps marked by the second
/// thread or not), grown from several sizes, against the reference.
pub fn check_pipelined_lag_blocks(max_heap: usize, sched: &Scheduler) -> Result<(), String> {
    on_every_backend(sched, |sched| {
        // The last: a cover that may grow from 40 heaps to 400 and shrink again.
        for (block, cover_heaps, cover_max_heaps) in [(8, 0, 0), (8, 40, 40), (64, 160, 160), (8, 40, 400)] {
            let layout = Layout { block, bitset_heaps: 0, pipeline_heaps: 1, cover_heaps, cover_max_heaps };
            let name =
                format!("pipelined blocks of {block}, pairs of {cover_heaps} to {cover_max_heaps} heaps covered");
            check_with(&name, max_heap, 3, &|rules, g, to| {
                grundy_lag_blocks_in(rules, g, to, sched, layout, &mut Checkpoints::none()).map_err(|e| e.to_string())
            })?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn naive_matches_the_known_first_values() {
        // Kayles 0.77 and Dawson's Kayles 0.07 (Winning Ways ch. 4), Grundy's game.
        let kayles = [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7, 1, 4, 3, 2];
        let dawson = [0, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3];
        let grundy = [0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 3, 2, 1, 3, 2, 4, 3];
        let seq = Scheduler::sequential();
        assert_eq!(GrundyVariant::Naive.values(&Rules::octal(&[0, 7, 7]), 19, &seq).unwrap(), kayles);
        assert_eq!(GrundyVariant::Naive.values(&Rules::octal(&[0, 0, 7]), 19, &seq).unwrap(), dawson);
        assert_eq!(GrundyVariant::Naive.values(&Rules::GRUNDY, 19, &seq).unwrap(), grundy);
    }

    #[test]
    fn every_variant_matches_the_reference() {
        let sched = Scheduler::sequential();
        for &v in GrundyVariant::ALL {
            check_variant(v, 300, &sched).unwrap();
        }
    }

    #[test]
    fn parallel_matches_on_any_thread_count_and_block_length() {
        for threads in [2, 3] {
            let sched = Scheduler::new(Some(threads)).unwrap();
            check_variant(GrundyVariant::Parallel, 300, &sched).unwrap();
            check_short_blocks(160, &sched).unwrap();
        }
    }

    #[test]
    fn lag_blocks_match_on_any_block_length() {
        check_short_lag_blocks(200, &Scheduler::sequential()).unwrap();
    }

    #[test]
    fn pipelined_lag_blocks_match_on_two_and_three_threads() {
        for threads in [2, 3] {
            check_pipelined_lag_blocks(400, &Scheduler::new(Some(threads)).unwrap()).unwrap();
        }
    }

    #[test]
    fn variants_agree_past_the_parallel_warm_up() {
        // Sizes where the default blocks run: every fast variant against sparse.
        let sched = Scheduler::new(Some(2)).unwrap();
        for rules in [Rules::octal(&[0, 1, 5, 6]), Rules::GRUNDY, Rules::octal(&[0, 3, 5, 4])] {
            let sparse = GrundyVariant::Sparse.values(&rules, 9000, &sched).unwrap();
            assert_eq!(GrundyVariant::Parallel.values(&rules, 9000, &sched).unwrap(), sparse);
            assert_eq!(GrundyVariant::Bitset.values(&rules, 9000, &sched).unwrap(), sparse);
            assert_eq!(GrundyVariant::Blocks.values(&rules, 9000, &sched).unwrap(), sparse);
        }
    }

    #[test]
    fn octal_digits_map_to_their_moves() {
        let rules = Rules::octal(&[4, 1, 2, 4, 7]);
        assert_eq!((rules.whole, rules.take, rules.split), (0b1_0010, 0b1_0100, 0b1_1001));
        assert_eq!(rules.max_removed(), 4);
        assert_eq!(Rules::GRUNDY.max_removed(), 0);
    }
}
