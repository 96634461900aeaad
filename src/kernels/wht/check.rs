//! The one cross-check for every transform variant: same output as the scalar
//! reference on random and edge inputs, for every size from 1 to `2^max_log_len`.

use super::{WhtVariant, wht_reference, wht_scalar};
use crate::kernels::SplitMix64;
use crate::sched::Scheduler;
use crate::simd::Simd;

/// Runs `check` once per SIMD backend this CPU has, each time with a scheduler of
/// `sched`'s thread count on that backend; the first failure names its backend. (Shared
/// by the cards families' checks.)
pub fn on_every_backend(sched: &Scheduler, check: impl Fn(&Scheduler) -> Result<(), String>) -> Result<(), String> {
    for simd in Simd::tested() {
        let on = Scheduler::new(Some(sched.threads())).map_err(|e| e.to_string())?.with_simd(simd);
        check(&on).map_err(|e| format!("[{simd}] {e}"))?;
    }
    Ok(())
}

/// Moduli the checks use: the Project Euler prime, the largest prime below 2^31 (the top
/// of the supported range) and small primes where wrap-arounds are frequent.
pub const CHECK_MODULI: [u32; 4] = [1_000_000_007, 2_147_483_647, 998_244_353, 3];

/// Runs `variant` on inputs of length `2^0 ..= 2^max_log_len`: random residues, all 0,
/// all 1 and all `p - 1`, for each of [`CHECK_MODULI`] (above `2^16` only for the two
/// large primes), and compares with [`wht_scalar`], on every SIMD backend this CPU has.
/// Returns the first mismatch.
pub fn check_variant(variant: WhtVariant, max_log_len: u32, sched: &Scheduler) -> Result<(), String> {
    on_every_backend(sched, |sched| {
        check_with(&format!("wht {variant}"), max_log_len, &|data: &mut [u32], p| variant.run(data, p, sched))
    })
}

/// The same checks for any transform `f(data, p)` (a variant, or the tiled kernel with a
/// test tiling).
pub fn check_with(name: &str, max_log_len: u32, f: &dyn Fn(&mut [u32], u32)) -> Result<(), String> {
    let mut rng = SplitMix64(0x5EED_0000 + max_log_len as u64);
    for &p in &CHECK_MODULI {
        for log_len in 0..=max_log_len {
            if log_len > 16 && p < 1 << 29 {
                continue;
            }
            let len = 1usize << log_len;
            let random: Vec<u32> = (0..len).map(|_| rng.below(p as u64) as u32).collect();
            let mut expected = random.clone();
            wht_scalar(&mut expected, p);
            compare(name, p, log_len, "random", random, &expected, f)?;
            // A constant c transforms to (L·c, 0, 0, ...): no reference run needed.
            for (kind, c) in [("zeros", 0), ("ones", 1), ("p-1", p - 1)] {
                let mut expected = vec![0; len];
                expected[0] = (c as u64 * len as u64 % p as u64) as u32;
                compare(name, p, log_len, kind, vec![c; len], &expected, f)?;
            }
        }
    }
    Ok(())
}

fn compare(
    name: &str,
    p: u32,
    log_len: u32,
    kind: &str,
    mut data: Vec<u32>,
    expected: &[u32],
    f: &dyn Fn(&mut [u32], u32),
) -> Result<(), String> {
    f(&mut data, p);
    match (0..data.len()).find(|&i| data[i] != expected[i]) {
        None => Ok(()),
        Some(i) => Err(format!(
            "{name}: p={p} L=2^{log_len} {kind} input: index {i} is {} but the reference gives {}",
            data[i], expected[i]
        )),
    }
}

/// Checks the scalar reference itself against the matrix definition, up to `2^max_log_len`.
pub fn check_scalar_against_definition(max_log_len: u32) -> Result<(), String> {
    let mut rng = SplitMix64(0xD1F1);
    for &p in &CHECK_MODULI {
        for log_len in 0..=max_log_len {
            let input: Vec<u32> = (0..1usize << log_len).map(|_| rng.below(p as u64) as u32).collect();
            let mut got = input.clone();
            wht_scalar(&mut got, p);
            if got != wht_reference(&input, p) {
                return Err(format!("wht scalar differs from the matrix definition at p={p} L=2^{log_len}"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_matches_the_definition() {
        check_scalar_against_definition(9).unwrap();
    }

    use crate::kernels::wht::tiled::Stage;
    use crate::kernels::wht::{Tiling, wht_tiled_with};

    #[test]
    fn every_variant_matches_the_reference_up_to_2_pow_20() {
        let sched = Scheduler::sequential();
        for &v in WhtVariant::ALL {
            check_variant(v, 20, &sched).unwrap();
        }
    }

    #[test]
    fn parallel_answers_do_not_depend_on_the_thread_count() {
        for threads in [2, 3, 8] {
            check_variant(WhtVariant::Parallel, 20, &Scheduler::new(Some(threads)).unwrap()).unwrap();
        }
    }

    #[test]
    fn small_tilings_exercise_every_pass_shape() {
        // Tiny tiles put many stream passes, uneven pass sizes, jobs of one vector per row
        // and jobs of several finish pieces within reach of small transforms.
        let tilings = [
            Tiling {
                l1_log: 4,
                block_log: 4,
                region_log: 4,
                stream_levels: 1,
                job_log: 5,
                low_lanes: Stage::Region,
                high_lanes: Stage::Stream,
            },
            Tiling {
                l1_log: 4,
                block_log: 6,
                region_log: 7,
                stream_levels: 3,
                job_log: 9,
                low_lanes: Stage::Stream,
                high_lanes: Stage::Stream,
            },
            Tiling {
                l1_log: 5,
                block_log: 7,
                region_log: 9,
                stream_levels: 2,
                job_log: 12,
                low_lanes: Stage::SubBlock,
                high_lanes: Stage::SubBlock,
            },
            Tiling {
                l1_log: 8,
                block_log: 8,
                region_log: 8,
                stream_levels: 3,
                job_log: 7,
                low_lanes: Stage::Stream,
                high_lanes: Stage::Region,
            },
            Tiling {
                l1_log: 4,
                block_log: 5,
                region_log: 5,
                stream_levels: 1,
                job_log: 13,
                low_lanes: Stage::Region,
                high_lanes: Stage::SubBlock,
            },
        ];
        for threads in [1, 3] {
            let sched = Scheduler::new(Some(threads)).unwrap();
            on_every_backend(&sched, |sched| {
                for tiling in tilings {
                    let name = format!("wht tiled {tiling:?}");
                    check_with(&name, 13, &|data: &mut [u32], p| wht_tiled_with(data, p, &tiling, sched))?;
                }
                Ok(())
            })
            .unwrap();
        }
    }

    #[test]
    fn default_tiling_with_a_stream_pass_matches_the_reference() {
        // The default plan has a stream pass (and late in-vector levels) only above its
        // 2^21 regions: one size there, on one and on two threads.
        let p = 2_147_483_647u32;
        let mut rng = SplitMix64(22);
        let input: Vec<u32> = (0..1 << 22).map(|_| rng.below(p as u64) as u32).collect();
        let mut expected = input.clone();
        wht_scalar(&mut expected, p);
        for threads in [1, 2] {
            for simd in Simd::tested() {
                for tiling in [Tiling::DEFAULT, Tiling::detect()] {
                    let mut got = input.clone();
                    let sched = Scheduler::new(Some(threads)).unwrap().with_simd(simd);
                    wht_tiled_with(&mut got, p, &tiling, &sched);
                    assert!(
                        got == expected,
                        "{simd}: {tiling:?} differs from the reference at 2^22 on {threads} threads"
                    );
                }
            }
        }
    }

    #[test]
    fn applying_twice_multiplies_by_the_length() {
        let p = 1_000_000_007u32;
        let input: Vec<u32> = (0..256u32).map(|i| i * 7919 % p).collect();
        let mut twice = input.clone();
        wht_scalar(&mut twice, p);
        wht_scalar(&mut twice, p);
        let expected: Vec<u32> = input.iter().map(|&x| (x as u64 * 256 % p as u64) as u32).collect();
        assert_eq!(twice, expected);
    }
}
