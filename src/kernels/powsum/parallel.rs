//! The lane variant over chunks of values spread across the scheduler's threads.

use super::PowerPlan;
use super::simd::{finish, plain_power_sum_lanes};
use crate::arith::Montgomery32;
use crate::sched::Scheduler;

/// Values per job: about 0.1–0.2 ms of work for a 24-bit exponent, far above the cost of
/// handing a job to another thread, and small enough to balance two busy cores.
pub const CHUNK_VALUES: usize = 1 << 15;

/// `Σ x^s mod p` for residues `x < p`, `p` an odd prime below 2^31, `s >= 1`, on the
/// scheduler's threads and backend.
pub fn powsum_parallel(values: &[u32], s: u64, p: u32, sched: &Scheduler) -> u32 {
    let mont = Montgomery32::new(p as u64).expect("the caller checked p");
    let plan = PowerPlan::for_power_mod(s, p);
    let simd = sched.simd();
    let progress = sched.progress(values.len() as u64, "power sum");
    let jobs = values.len().div_ceil(CHUNK_VALUES);
    let partial = sched.map_collect(jobs, |job| {
        let chunk = &values[job * CHUNK_VALUES..values.len().min((job + 1) * CHUNK_VALUES)];
        // The job calls the dispatcher itself: a closure runs at the build's baseline.
        let sum = plain_power_sum_lanes(simd, chunk, p, &plan);
        progress.inc(chunk.len() as u64);
        sum
    });
    // At most 2^30 / 2^15 partial sums below 2^31 each: far inside a u64.
    let total = partial.iter().map(|&x| x as u64).sum::<u64>() % p as u64;
    finish(&mont, total as u32, &plan)
}
