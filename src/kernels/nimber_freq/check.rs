//! The one cross-check for every frequency variant: against the exact direct formula
//! for every `N <= 60`, against the plain `linear` variant for sizes around the lane kernel's
//! threshold and chunk boundaries (under the largest prime, the Project Euler prime and
//! the smallest prime above `N`), and the checksum `Σ_v F_N(v) = 2^N` for larger `N`.

use super::{NimberFreqVariant, lanes::MIN_CARDS, nimber_freq_direct, nimber_freq_linear};
use crate::arith::{is_prime, pow_mod};
use crate::kernels::wht::check::on_every_backend;
use crate::sched::Scheduler;

/// Sizes where the lane kernels change shape: the threshold, small chunk counts, and
/// `N/2` around a multiple of a default chunk (16 lanes · 1024 steps) and of 128.
pub const BOUNDARY_SIZES: [usize; 12] = [
    MIN_CARDS,
    MIN_CARDS + 1,
    1000,
    1023,
    1024,
    1025,
    4097,
    2 * 16_384 - 2,
    2 * 16_384,
    2 * 16_384 + 1,
    2 * 16_384 + 3,
    3 * 2 * 16_384 + 257,
];

/// Compares `variant` with [`nimber_freq_direct`] for `1 <= n <= 60` under several primes
/// (padding `out` past `n` with garbage first), with the plain `linear` variant at
/// [`BOUNDARY_SIZES`], then checks the checksum for the sizes in `large_sizes`; all of
/// it on every SIMD backend this CPU has.
pub fn check_variant(variant: NimberFreqVariant, large_sizes: &[usize], sched: &Scheduler) -> Result<(), String> {
    on_every_backend(sched, |sched| check_on(variant, large_sizes, sched))
}

fn check_on(variant: NimberFreqVariant, large_sizes: &[usize], sched: &Scheduler) -> Result<(), String> {
    let run = |n: usize, p: u32, out: &mut [u32]| variant.run(n, p, out, sched);
    check_small(&format!("nimber_freq {variant}"), &run)?;
    check_against_linear(&format!("nimber_freq {variant}"), &BOUNDARY_SIZES, &run)?;
    let p = 1_000_000_007u32;
    for &n in large_sizes {
        let mut out = vec![0; n];
        run(n, p, &mut out);
        let total = out.iter().fold(0u64, |acc, &f| (acc + f as u64) % p as u64);
        if total != pow_mod(2, n as u64, p as u64) {
            return Err(format!("nimber_freq {variant}: N={n}: frequencies sum to {total}, not 2^N mod p"));
        }
    }
    Ok(())
}

/// `f` against the exact formula for every `n <= 60`.
pub fn check_small(name: &str, f: &dyn Fn(usize, u32, &mut [u32])) -> Result<(), String> {
    for p in [1_000_000_007u32, 2_147_483_647, 61, 101] {
        for n in (1..=60usize).filter(|&n| (n as u64) < p as u64) {
            let exact = nimber_freq_direct(n);
            let mut out = vec![u32::MAX; n + 5];
            f(n, p, &mut out);
            for (v, &got) in out.iter().enumerate() {
                let expected = exact.get(v).map_or(0, |&f| (f % p as u128) as u32);
                if got != expected {
                    return Err(format!("{name}: N={n} p={p}: F({v}) is {got}, the direct formula gives {expected}"));
                }
            }
        }
    }
    Ok(())
}

/// `f` against [`nimber_freq_linear`] at `sizes`, under `2^31 - 1`, `10^9 + 7` and the
/// least prime above each size, with `out` longer than `n` and dirty.
pub fn check_against_linear(name: &str, sizes: &[usize], f: &dyn Fn(usize, u32, &mut [u32])) -> Result<(), String> {
    for &n in sizes {
        let next_prime = (n as u64 + 1..).find(|&q| is_prime(q)).expect("primes are unbounded") as u32;
        for p in [2_147_483_647u32, 1_000_000_007, next_prime] {
            let len = n.next_power_of_two() + 3;
            let mut expected = vec![0; len];
            nimber_freq_linear(n, p, &mut expected);
            let mut got = vec![u32::MAX; len];
            f(n, p, &mut got);
            if let Some(v) = (0..len).find(|&v| got[v] != expected[v]) {
                return Err(format!("{name}: N={n} p={p}: F({v}) is {}, the reference gives {}", got[v], expected[v]));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::nimber_freq::lanes::Geometry;
    use crate::kernels::nimber_freq::{nimber_freq_lanes_with, nimber_freq_parallel_with};

    #[test]
    fn direct_formula_matches_the_theory_table() {
        // The table of docs/theory/cards.md §7.
        let table: [&[u128]; 6] =
            [&[2], &[3, 1], &[4, 3, 1], &[6, 6, 3, 1], &[10, 11, 6, 4, 1], &[18, 20, 11, 10, 4, 1]];
        for (i, row) in table.iter().enumerate() {
            assert_eq!(nimber_freq_direct(i + 1), row.to_vec(), "N = {}", i + 1);
        }
        for n in 1..=60 {
            assert_eq!(nimber_freq_direct(n).iter().sum::<u128>(), 1u128 << n, "N = {n}");
        }
    }

    #[test]
    fn every_variant_matches_the_direct_formula_and_the_reference() {
        let sched = Scheduler::sequential();
        for &v in NimberFreqVariant::ALL {
            check_variant(v, &[61, 65_537, 100_003], &sched).unwrap();
        }
    }

    #[test]
    fn small_chunks_cover_every_lane_and_chunk_edge() {
        // 8 steps and checkpoints every 4 make chunks of 128 values of k: every size
        // from the threshold to a few chunks past it meets every padding and lane edge.
        let sizes: Vec<usize> = (MIN_CARDS..MIN_CARDS + 300).chain([2000, 2047, 2048, 2049, 5000]).collect();
        for simd in crate::simd::Simd::tested() {
            for geometry in [Geometry { steps: 8, checkpoint_log: 2 }, Geometry { steps: 24, checkpoint_log: 5 }] {
                let lanes = |n: usize, p: u32, out: &mut [u32]| nimber_freq_lanes_with(simd, n, p, out, geometry);
                check_against_linear(&format!("{simd} lanes {geometry:?}"), &sizes, &lanes).unwrap();
                for threads in [1, 2, 3, 8] {
                    let sched = Scheduler::new(Some(threads)).unwrap().with_simd(simd);
                    let parallel =
                        |n: usize, p: u32, out: &mut [u32]| nimber_freq_parallel_with(n, p, out, geometry, &sched);
                    let name = format!("{simd} parallel {geometry:?} {threads} threads");
                    check_against_linear(&name, &[MIN_CARDS, 777, 2048, 2049, 5000, 40_001], &parallel).unwrap();
                }
            }
        }
    }

    #[test]
    fn parallel_answers_do_not_depend_on_the_thread_count() {
        for threads in [2, 3, 8] {
            let sched = Scheduler::new(Some(threads)).unwrap();
            check_variant(NimberFreqVariant::Parallel, &[], &sched).unwrap();
        }
    }
}
