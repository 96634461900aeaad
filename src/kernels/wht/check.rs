//! The one cross-check for every transform variant: same output as the scalar
//! reference on random and edge inputs, for every size from 1 to `2^max_log_len`.

use super::{WhtVariant, wht_reference, wht_scalar};
use crate::kernels::SplitMix64;
use crate::sched::Scheduler;

/// Moduli the checks use: the Project Euler prime, the largest prime below 2^31 (the top
/// of the supported range) and small primes where wrap-arounds are frequent.
pub const CHECK_MODULI: [u32; 4] = [1_000_000_007, 2_147_483_647, 998_244_353, 3];

/// Runs `variant` on inputs of length `2^0 ..= 2^max_log_len`: random residues, all 0,
/// all 1 and all `p - 1`, for each of [`CHECK_MODULI`], and compares with
/// [`wht_scalar`]. Returns a description of the first mismatch.
pub fn check_variant(variant: WhtVariant, max_log_len: u32, sched: &Scheduler) -> Result<(), String> {
    let mut rng = SplitMix64(0x5EED_0000 + max_log_len as u64);
    for &p in &CHECK_MODULI {
        for log_len in 0..=max_log_len {
            let len = 1usize << log_len;
            let inputs: [Vec<u32>; 4] =
                [(0..len).map(|_| rng.below(p as u64) as u32).collect(), vec![0; len], vec![1; len], vec![p - 1; len]];
            for (kind, input) in ["random", "zeros", "ones", "p-1"].iter().zip(inputs) {
                let mut expected = input.clone();
                wht_scalar(&mut expected, p);
                let mut got = input;
                variant.run(&mut got, p, sched);
                if let Some(i) = (0..len).find(|&i| got[i] != expected[i]) {
                    return Err(format!(
                        "wht {variant}: p={p} L=2^{log_len} {kind} input: index {i} is {} but the reference gives {}",
                        got[i], expected[i]
                    ));
                }
            }
        }
    }
    Ok(())
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

    #[test]
    fn every_variant_matches_the_reference() {
        for threads in [1, 2] {
            let sched = Scheduler::new(Some(threads)).unwrap();
            for &v in WhtVariant::ALL {
                check_variant(v, 14, &sched).unwrap();
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
