//! The one cross-check for every power-sum variant against the scalar reference.

use super::{PowsumVariant, parallel::CHUNK_VALUES, powsum_scalar, simd::GROUPS};
use crate::arith::LANES;
use crate::kernels::SplitMix64;
use crate::kernels::wht::check::on_every_backend;
use crate::sched::Scheduler;

/// Exponents that exercise the reduction: 1, 2, small, `p - 1`, `p`, multiples of
/// `p - 1` plus one, and the largest `u64`; and the plans (see [`super::PowerPlan`]):
/// `10^7`, `999 999` and `3^19` split into several factors.
fn check_exponents(p: u32) -> Vec<u64> {
    let order = p as u64 - 1;
    vec![1, 2, 3, 10_000_000, 999_999, 1_162_261_467, order, order + 1, 3 * order + 1, u64::MAX]
}

/// Runs `variant` on value counts `0 ..= max_len` (every short length, to hit every
/// tail of a lane loop) with random residues and edge values, for several primes and
/// exponents; then on lengths around every backend's lane group and a parallel chunk
/// (±1, several chunks) for the largest primes. All of it on every SIMD backend this CPU
/// has, with the scheduler's thread count.
pub fn check_variant(variant: PowsumVariant, max_len: usize, sched: &Scheduler) -> Result<(), String> {
    on_every_backend(sched, |sched| check_on(variant, max_len, sched))
}

fn check_on(variant: PowsumVariant, max_len: usize, sched: &Scheduler) -> Result<(), String> {
    let mut rng = SplitMix64(0x9075);
    for p in [1_000_000_007u32, 2_147_483_647, 3, 65_537] {
        for s in check_exponents(p) {
            for len in (0..=max_len).filter(|&n| n <= 40 || n % 37 == 0 || n == max_len) {
                compare(variant, &values(&mut rng, p, len), s, p, sched)?;
            }
        }
    }
    let groups = GROUPS.iter().flat_map(|&g| [LANES * g - 1, LANES * g, LANES * g + 1]);
    let long: Vec<usize> = groups.chain([CHUNK_VALUES - 1, CHUNK_VALUES + 1, 3 * CHUNK_VALUES + 17]).collect();
    for p in [1_000_000_007u32, 2_147_483_647] {
        for s in [10_000_000, u64::MAX] {
            for &len in &long {
                compare(variant, &values(&mut rng, p, len), s, p, sched)?;
            }
        }
    }
    Ok(())
}

/// `len` residues: random ones interleaved with `p - 1`, 0 and 1.
fn values(rng: &mut SplitMix64, p: u32, len: usize) -> Vec<u32> {
    (0..len)
        .map(|i| match i % 5 {
            1 => p - 1,
            2 => 0,
            3 => 1,
            _ => rng.below(p as u64) as u32,
        })
        .collect()
}

fn compare(variant: PowsumVariant, values: &[u32], s: u64, p: u32, sched: &Scheduler) -> Result<(), String> {
    let expected = powsum_scalar(values, s, p);
    let got = variant.run(values, s, p, sched);
    if got != expected {
        return Err(format!(
            "powsum {variant} ({}): p={p} s={s} len={}: got {got}, the reference gives {expected}",
            sched.simd(),
            values.len()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::pow_mod;

    #[test]
    fn scalar_matches_direct_powers() {
        let p = 1_000_000_007u32;
        let values = [0u32, 1, 2, 3, p - 1, 123_456_789];
        for s in [1u64, 2, 5, p as u64 - 1, p as u64, u64::MAX] {
            let expected = values.iter().fold(0u64, |acc, &x| (acc + pow_mod(x as u64, s, p as u64)) % p as u64);
            assert_eq!(powsum_scalar(&values, s, p) as u64, expected, "s={s}");
        }
    }

    #[test]
    fn paired_sums_match_the_reference_on_every_backend() {
        // Σ x^e + (x - 2y)^e against the scalar reference on the pairs written out: every
        // short length (each tail of a group), lengths around every backend's group, edge
        // values (0, 1, p - 1 on either side), lazy and reduced products.
        use super::super::PowerPlan;
        use super::super::simd::{finish, paired_power_sum_lanes};
        use crate::arith::Montgomery32;
        let mut rng = SplitMix64(0x7a1e);
        let long = GROUPS.iter().flat_map(|&g| [LANES * g - 1, LANES * g, LANES * g + 1, 3 * LANES * g + 5]);
        let lengths: Vec<usize> = (0..=70).chain(long).collect();
        for simd in crate::simd::Simd::tested() {
            for p in [1_000_000_007u32, 2_147_483_647, 3, 65_537] {
                let mont = Montgomery32::new(p as u64).unwrap();
                for s in [1u64, 2, 10_000_000, 999_999, u64::MAX] {
                    let plan = PowerPlan::for_power_mod(s, p);
                    for &len in &lengths {
                        let (x, y) = (values(&mut rng, p, len), values(&mut rng, p, len));
                        let upper: Vec<u32> = x
                            .iter()
                            .zip(&y)
                            .map(|(&a, &b)| ((a as u64 + 2 * (p - b) as u64) % p as u64) as u32)
                            .collect();
                        let expected = (powsum_scalar(&x, s, p) as u64 + powsum_scalar(&upper, s, p) as u64) % p as u64;
                        let got = finish(&mont, paired_power_sum_lanes(simd, &x, &y, p, &plan), &plan);
                        assert_eq!(got as u64, expected, "{simd} p={p} s={s} len={len}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_variant_matches_the_reference() {
        let sched = Scheduler::sequential();
        for &v in PowsumVariant::ALL {
            check_variant(v, 300, &sched).unwrap();
        }
    }

    #[test]
    fn parallel_answers_do_not_depend_on_the_thread_count() {
        for threads in [2, 3, 8] {
            check_variant(PowsumVariant::Parallel, 40, &Scheduler::new(Some(threads)).unwrap()).unwrap();
        }
    }

    #[test]
    fn sums_of_the_largest_values_do_not_overflow() {
        // 2^17 copies of p - 1 with p = 2^31 - 1 and an odd exponent: every term is p - 1,
        // the largest residue, so every accumulator sees its largest possible sum.
        let p = 2_147_483_647u32;
        let values = vec![p - 1; 1 << 17];
        let expected = ((p as u64 - 1) * (1 << 17) % p as u64) as u32;
        for simd in crate::simd::Simd::tested() {
            let sched = Scheduler::new(Some(2)).unwrap().with_simd(simd);
            for &v in PowsumVariant::ALL {
                assert_eq!(v.run(&values, 3, p, &sched), expected, "{v} on {simd}");
            }
        }
    }
}
