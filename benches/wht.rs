//! Every Walsh–Hadamard variant side by side, throughput in elements per second.
//!
//! At 2^24 the group also times `stream`: a plain in-place read+write pass over the same
//! 64 MiB array on the same threads as `parallel`, repeated as many times as the tiled
//! plan crosses memory. That is the memory-bound floor of the tiling, measured in the
//! same run.

#[path = "common.rs"]
mod common;

use criterion::{BatchSize, BenchmarkId, Throughput, criterion_group, criterion_main};
use gamecount::kernels::SplitMix64;
use gamecount::kernels::wht::{Tiling, WhtVariant, wht_scalar};
use gamecount::sched::Scheduler;

const P: u32 = 1_000_000_007;
const LOG_SIZES: [u32; 3] = [12, 18, 24];

/// Elements per job of the stream pass: 4 MiB, like a column job of the tiled plan.
const STREAM_JOB: usize = 1 << 20;

/// `passes` in-place read+write sweeps over `data`, split in jobs over the scheduler.
fn stream(data: &mut [u32], passes: usize, sched: &Scheduler) {
    for _ in 0..passes {
        sched.for_each_chunk(data, STREAM_JOB, |_, chunk| chunk.iter_mut().for_each(|x| *x = x.wrapping_add(1)));
    }
}

fn bench(c: &mut criterion::Criterion) {
    let sched = Scheduler::new(None).expect("scheduler");
    eprintln!("parallel and stream use {} threads", sched.threads());
    let mut group = c.benchmark_group("wht");
    for log_len in LOG_SIZES {
        let len = 1usize << log_len;
        let mut rng = SplitMix64(log_len as u64);
        let input: Vec<u32> = (0..len).map(|_| rng.below(P as u64) as u32).collect();
        let mut expected = input.clone();
        wht_scalar(&mut expected, P);
        group.throughput(Throughput::Elements(len as u64));
        for &variant in WhtVariant::ALL {
            // Verify before timing: a fast wrong kernel must not produce a figure.
            let mut check = input.clone();
            variant.run(&mut check, P, &sched);
            assert_eq!(check, expected, "{variant} disagrees with the reference at 2^{log_len}");
            group.bench_with_input(BenchmarkId::new(variant.name(), format!("2^{log_len}")), &input, |b, input| {
                b.iter_batched_ref(|| input.clone(), |data| variant.run(data, P, &sched), BatchSize::LargeInput)
            });
        }
        if log_len == 24 {
            let passes = Tiling::DEFAULT.plan(log_len).len();
            let id = BenchmarkId::new(format!("stream-x{passes}"), format!("2^{log_len}"));
            group.bench_with_input(id, &input, |b, input| {
                b.iter_batched_ref(|| input.clone(), |data| stream(data, passes, &sched), BatchSize::LargeInput)
            });
        }
    }
    group.finish();
}

criterion_group! { name = benches; config = common::quick_criterion(); targets = bench }
criterion_main!(benches);
