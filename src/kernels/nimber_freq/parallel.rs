//! The lane chunks spread over the scheduler's threads.
//!
//! A chunk must see the true `A_(k0-1)` of the recurrence, which depends on every earlier
//! chunk. So each job (a run of consecutive chunks) starts from `A = 0` and reports its
//! final `A`; the true incoming values then follow job to job,
//! `A_in(j+1) = A_end(j) + A_in(j)·2^-K` (`K` values of `k` per job), and a second,
//! cheap pass subtracts `A_in·2^-(k - k_start + 1)` from `F(2k)` and twice that from
//! `F(2k-1)`: one product per sixteen outputs, where the first pass needs about ten.

use super::lanes::{Geometry, MIN_CARDS, Plan, run_chunks};
use crate::arith::{LANES, ModLanes, Montgomery32};
use crate::sched::Scheduler;
use crate::simd::mont::{Block, Mont};
use std::sync::atomic::{AtomicU32, Ordering};

/// Jobs the chunks are grouped into: enough for two threads to balance around other
/// processes on the machine, few enough that the second pass stays small.
const JOBS: usize = 16;

/// Writes `F_n(v) mod p` for `v < n` into `out` on the scheduler's threads and backend,
/// zeros after.
pub fn nimber_freq_parallel(n: usize, p: u32, out: &mut [u32], sched: &Scheduler) {
    nimber_freq_parallel_with(n, p, out, Geometry::DEFAULT, sched);
}

/// [`nimber_freq_parallel`] with an explicit chunk geometry.
pub fn nimber_freq_parallel_with(n: usize, p: u32, out: &mut [u32], geometry: Geometry, sched: &Scheduler) {
    if n < MIN_CARDS {
        return super::nimber_freq_linear(n, p, out);
    }
    let plan = Plan::new(n, p, geometry, sched);
    // The zero tail is up to half the buffer, and writing it is what first touches (and
    // faults in) its pages: spread it over the threads too.
    sched.for_each_chunk(&mut out[n..], 1 << 20, |_, zeros| zeros.fill(0));
    let per_job = plan.chunks().div_ceil(JOBS);
    let job_len = geometry.chunk_len() * per_job;
    let ends: Vec<AtomicU32> = (0..n.div_ceil(job_len)).map(|_| AtomicU32::new(0)).collect();
    let progress = sched.progress(n as u64, "frequencies");
    let simd = sched.simd();
    sched.for_each_chunk(&mut out[..n], job_len, |job, slice| {
        let a = run_chunks(simd, &plan, job * per_job, 0, slice, &progress);
        ends[job].store(a, Ordering::Relaxed);
    });
    out[0] = plan.first();
    // The true A entering each job.
    let mont = *plan.mont();
    let p = plan.modulus();
    let shift = mont.to_form(plan.half_pow((job_len / 2) as u64));
    let mut incoming = vec![0u32; ends.len()];
    for j in 1..ends.len() {
        let carried = mont.mul(incoming[j - 1], shift) + ends[j - 1].load(Ordering::Relaxed);
        incoming[j] = if carried >= p { carried - p } else { carried };
    }
    let half = plan.half_pow(1);
    sched.for_each_chunk(&mut out[..n], job_len, |job, slice| {
        if incoming[job] != 0 {
            subtract_carry(simd, &mont, half, incoming[job], slice);
        }
    });
}

crate::multiversion! {
    /// [`subtract_carry_generic`], one job of the second pass.
    fn subtract_carry(mont: &Montgomery32, half: u32, a_in: u32, out: &mut [u32]) => subtract_carry_generic;
}

/// For a slice starting at output `2·k_start`: subtracts `δ_q = a_in·2^-(q+1)` from
/// `out[2q]` (`F(2k)`, `k = k_start + q`) and `2·δ_(q+1)` from `out[2q + 1]`
/// (`F(2k+1)`); `half` is `2^-1 mod p`. Sixteen outputs per vector, each vector's `δ`
/// being the previous one's times `2^-8`.
#[inline(always)]
fn subtract_carry_generic<B: Mont>(mont: &Montgomery32, half: u32, a_in: u32, out: &mut [u32]) {
    let lanes = ModLanes::<B>::from_scalar(*mont);
    let p = mont.modulus() as u64;
    let deltas: Vec<u64> = (0..=LANES / 2)
        .scan(a_in as u64, |d, _| {
            *d = *d * half as u64 % p;
            Some(*d)
        })
        .collect();
    let pattern: Block =
        std::array::from_fn(|i| if i % 2 == 0 { deltas[i / 2] } else { 2 * deltas[i / 2 + 1] % p } as u32);
    let step8 = B::splat(mont.pow(mont.to_form(half), LANES as u64 / 2));
    let mut delta = B::load(&pattern);
    let (vectors, rest) = out.as_chunks_mut::<LANES>();
    for v in vectors {
        B::store(v, lanes.sub(B::load(v), delta));
        delta = lanes.mul(delta, step8);
    }
    for (x, &d) in rest.iter_mut().zip(&B::to_array(delta)) {
        *x = ((*x as u64 + p - d as u64) % p) as u32;
    }
}
