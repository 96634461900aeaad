//! Property tests: for every kernel family, random sizes, inputs and moduli, every
//! variant agrees with the family's reference; for every problem, every kernel gives
//! the same answer for random parameters and thread counts.
//!
//! Case counts are kept small so the suite stays fast; the deterministic edge-size
//! sweeps live in each family's `check.rs`.

use gamecount::arith::is_prime;
use gamecount::kernels::banded_dp::{
    BandedDpVariant, StepSet, banded_dp_scalar, check::constant_term_by_polynomial_powers,
};
use gamecount::kernels::keyscan::{KeyscanVariant, keyscan_naive};
use gamecount::kernels::nimber_freq::{NimberFreqVariant, nimber_freq_direct};
use gamecount::kernels::powsum::{PowsumVariant, powsum_scalar};
use gamecount::kernels::series::{BlockSigns, SeriesVariant, series_reference};
use gamecount::kernels::wht::{WhtVariant, wht_scalar};
use gamecount::sched::Scheduler;
use proptest::prelude::*;

/// The smallest prime at or above `start` (and below 2^31 for the callers here).
fn prime_at_or_above(start: u64) -> u64 {
    (start..).find(|&n| is_prime(n)).unwrap()
}

/// A prime for the 32-bit lane kernels: at least `floor`, below 2^31.
fn lane_prime(floor: u64) -> impl Strategy<Value = u64> {
    (floor.max(3)..(1u64 << 31) - 100).prop_map(prime_at_or_above).prop_filter("below 2^31", |&p| p < 1 << 31)
}

fn scheduler(threads: usize) -> Scheduler {
    Scheduler::new(Some(threads)).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn wht_variants_match_scalar(log_len in 0u32..15, p in lane_prime(3), seed in any::<u64>(), threads in 1usize..4) {
        let mut rng = gamecount::kernels::SplitMix64(seed);
        let input: Vec<u32> = (0..1usize << log_len).map(|_| rng.below(p) as u32).collect();
        let mut expected = input.clone();
        wht_scalar(&mut expected, p as u32);
        for &v in WhtVariant::ALL {
            let mut got = input.clone();
            v.run(&mut got, p as u32, &scheduler(threads));
            prop_assert_eq!(&got, &expected, "{} L=2^{} p={}", v, log_len, p);
        }
    }

    #[test]
    fn powsum_variants_match_scalar(len in 0usize..3000, p in lane_prime(3), s in 1u64.., seed in any::<u64>(), threads in 1usize..4) {
        let mut rng = gamecount::kernels::SplitMix64(seed);
        let values: Vec<u32> = (0..len).map(|_| rng.below(p) as u32).collect();
        let expected = powsum_scalar(&values, s, p as u32);
        for &v in PowsumVariant::ALL {
            prop_assert_eq!(v.run(&values, s, p as u32, &scheduler(threads)), expected, "{} len={} s={}", v, len, s);
        }
    }

    #[test]
    fn nimber_freq_variants_match_the_direct_formula(n in 1usize..=60, p in lane_prime(61), threads in 1usize..4) {
        let exact = nimber_freq_direct(n);
        for &v in NimberFreqVariant::ALL {
            let mut out = vec![7u32; n + 3];
            v.run(n, p as u32, &mut out, &scheduler(threads));
            let expected: Vec<u32> = (0..n + 3).map(|i| exact.get(i).map_or(0, |&f| (f % p as u128) as u32)).collect();
            prop_assert_eq!(&out, &expected, "{} n={} p={}", v, n, p);
        }
    }

    #[test]
    fn nimber_freq_variants_agree_and_sum_to_two_to_the_n(n in 61usize..20_000, p in lane_prime(20_001), threads in 1usize..4) {
        let mut first: Option<Vec<u32>> = None;
        for &v in NimberFreqVariant::ALL {
            let mut out = vec![0u32; n];
            v.run(n, p as u32, &mut out, &scheduler(threads));
            let total = out.iter().fold(0u64, |a, &f| (a + f as u64) % p);
            prop_assert_eq!(total, gamecount::arith::pow_mod(2, n as u64, p), "{} n={}", v, n);
            match &first {
                None => first = Some(out),
                Some(f) => prop_assert_eq!(&out, f, "{} n={}", v, n),
            }
        }
    }

    #[test]
    fn keyscan_variants_match_naive(limit in 0u32..160, threads in 1usize..4) {
        let mut expected = Vec::new();
        let expected_scan = keyscan_naive(limit, &mut |x, y, z| expected.push([x, y, z]));
        for &v in KeyscanVariant::ALL {
            let mut got = Vec::new();
            let scan = v.run(limit, &scheduler(threads), &mut |x, y, z| got.push([x, y, z]));
            prop_assert_eq!(scan, expected_scan, "{} L={}", v, limit);
            prop_assert_eq!(&got, &expected, "{} L={}", v, limit);
        }
    }

    #[test]
    fn banded_dp_variants_match_scalar(
        steps in prop::collection::btree_map(1u32..10, 1u64..6, 1..4),
        n in 0usize..80,
        modulus in 2u64..(1 << 32),
        threads in 1usize..4,
    ) {
        let steps = StepSet::new(steps.into_iter().collect());
        let expected = banded_dp_scalar(n, &steps, modulus as u32);
        for &v in BandedDpVariant::ALL {
            prop_assert_eq!(v.run(n, &steps, modulus as u32, &scheduler(threads)), expected, "{} n={} {:?}", v, n, steps);
        }
    }

    #[test]
    fn banded_dp_scalar_matches_polynomial_powers(
        steps in prop::collection::btree_map(1u32..6, 1u64..4, 1..3),
        n in 0usize..10,
        modulus in 2u64..(1 << 32),
    ) {
        let steps = StepSet::new(steps.into_iter().collect());
        let exact = constant_term_by_polynomial_powers(n, &steps);
        prop_assert_eq!(banded_dp_scalar(n, &steps, modulus as u32) as u128, exact % modulus as u128);
    }

    #[test]
    fn series_variants_match_reference(
        m in 0usize..120,
        half_modulus in 1u64..(1 << 61),
        characters in 1usize..10,
        seed in any::<u64>(),
    ) {
        let modulus = 2 * half_modulus;
        let mut rng = gamecount::kernels::SplitMix64(seed);
        let mut sign = || if rng.next_u64() & 1 == 0 { 1i8 } else { -1 };
        // Eventually periodic signs, as the Dawson values give, with random shapes; the
        // last character has no structure at all within the 2m + 2 signs read.
        let mut batch: Vec<BlockSigns> = (1..characters)
            .map(|i| {
                let (preperiod, period) = (i * 7 % 23, 1 + i * 5 % 37);
                BlockSigns::new((0..preperiod + period).map(|_| sign()).collect(), preperiod, period)
            })
            .collect();
        batch.push(BlockSigns::from_prefix(&(0..2 * m + 2).map(|_| sign()).collect::<Vec<_>>()));
        let mut expected = vec![0u64; m + 1];
        for signs in &batch {
            for (e, c) in expected.iter_mut().zip(series_reference(&signs.materialize(2 * m + 2), m, modulus)) {
                *e = ((*e as u128 + c as u128) % modulus as u128) as u64;
            }
        }
        for &v in SeriesVariant::ALL {
            prop_assert_eq!(v.run(&batch, m, modulus), expected.clone(), "{} m={} M'={}", v, m, modulus);
        }
    }
}

mod problems {
    use super::*;
    use gamecount::games::{cards, coins, kayles, stones};

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(16))]

        #[test]
        fn kayles_kernels_agree(pins in 1u64..400, modulus in 2u64..=kayles::MAX_MODULUS, threads in 1usize..5) {
            let params = kayles::KaylesParams::new(pins, modulus).unwrap();
            let answers: Vec<u64> = kayles::KaylesKernel::ALL
                .iter()
                .filter(|&&k| kayles::preflight(&params, k).is_ok())
                .map(|&k| kayles::solve(&params, k, &scheduler(threads)).unwrap().answer)
                .collect();
            prop_assert!(!answers.is_empty());
            prop_assert!(answers.iter().all(|&a| a == answers[0] && a < modulus), "{:?}", answers);
        }

        #[test]
        fn stones_kernels_agree(limit in 1u64..150, threads in 1usize..5) {
            let params = stones::StonesParams::new(limit).unwrap();
            let answers: Vec<_> = stones::StonesKernel::ALL
                .iter()
                .map(|&k| { let a = stones::solve(&params, k, &scheduler(threads)).unwrap(); (a.answer, a.extra) })
                .collect();
            prop_assert!(answers.iter().all(|a| *a == answers[0]), "{:?}", answers);
        }

        #[test]
        fn cards_kernels_agree(cards_n in 1u64..5000, suits in 1u64.., seed in 5000u64..(1 << 31) - 100, threads in 1usize..5) {
            let p = prime_at_or_above(seed);
            prop_assume!(p < 1 << 31);
            let params = cards::CardsParams::new(cards_n, suits, p).unwrap();
            let answers: Vec<u64> = cards::CardsKernel::ALL
                .iter()
                .filter(|&&k| cards::preflight(&params, k).is_ok())
                .map(|&k| cards::solve(&params, k, &scheduler(threads)).unwrap().answer)
                .collect();
            prop_assert!(!answers.is_empty());
            prop_assert!(answers.iter().all(|&a| a == answers[0] && a < p), "{:?}", answers);
        }

        #[test]
        fn coins_kernels_agree(stacks in 1u64..600, height in 1u64..=4, modulus in 2u64..(1 << 32), threads in 1usize..5) {
            // Taller stacks widen the band by 2^(height-1): keep the DP reference quick.
            let stacks = stacks >> (2 * (height - 1));
            prop_assume!(stacks >= 1);
            let params = coins::CoinsParams::new(stacks, height, modulus).unwrap();
            let answers: Vec<u64> = coins::CoinsKernel::ALL
                .iter()
                .filter(|&&k| coins::preflight(&params, k).is_ok())
                .map(|&k| coins::solve(&params, k, &scheduler(threads)).unwrap().answer)
                .collect();
            prop_assert!(!answers.is_empty());
            prop_assert!(answers.iter().all(|&a| a == answers[0] && a < modulus), "{:?}", answers);
        }
    }
}
