//! Every Walsh–Hadamard variant on every SIMD backend this CPU has, side by side
//! (ids `wht/<variant>/<backend>/<size>`), throughput in elements per second.
//!
//! At 2^24 the group also times `stream-xK`: a plain in-place read+write pass over the
//! same 64 MiB array on the same threads as `parallel`, repeated as many times as the
//! tiled plan crosses memory (K). That is the memory-bound floor of the tiling, measured
//! in the same run.
//!
//! At 2^24 every entry runs on two kinds of buffer: a fresh `Vec` per iteration (4 KiB
//! pages, id `2^24`), and the 64-byte aligned buffer backed by 2 MiB pages that the
//! cards pipeline transforms (id `2^24-huge`, refilled before each timed run). Huge
//! pages speed up every entry, the stream bound included, so compare within one kind.

#[path = "common.rs"]
mod common;

use criterion::{BatchSize, BenchmarkId, Throughput, criterion_group, criterion_main};
use gamecount::kernels::SplitMix64;
use gamecount::kernels::wht::{Tiling, WhtVariant, wht_scalar};
use gamecount::memory::AlignedBuffer;
use gamecount::sched::Scheduler;
use gamecount::simd::Simd;
use std::time::{Duration, Instant};

const P: u32 = 1_000_000_007;
const LOG_SIZES: [u32; 3] = [12, 18, 24];
/// The size of the pipeline's transform, where the memory bound is measured.
const SHOWCASE: u32 = 24;

/// Elements per job of the stream pass: 4 MiB, like a stream job of the tiled plan.
const STREAM_JOB: usize = 1 << 20;

/// A named entry of the group: a variant, or the stream bound.
type Entry<'a> = (String, Box<dyn Fn(&mut [u32]) + 'a>);

/// `passes` in-place read+write sweeps over `data`, split in jobs over the scheduler.
fn stream(data: &mut [u32], passes: usize, sched: &Scheduler) {
    for _ in 0..passes {
        sched.for_each_chunk(data, STREAM_JOB, |_, chunk| chunk.iter_mut().for_each(|x| *x = x.wrapping_add(1)));
    }
}

fn bench(c: &mut criterion::Criterion) {
    let sched = Scheduler::new(None).expect("scheduler");
    eprintln!("parallel and stream use {} threads", sched.threads());
    // One scheduler per backend, each with the same threads.
    let backends: Vec<(Simd, Scheduler)> = Simd::available()
        .into_iter()
        .map(|simd| (simd, Scheduler::new(Some(sched.threads())).expect("scheduler").with_simd(simd)))
        .collect();
    let mut group = c.benchmark_group("wht");
    for log_len in LOG_SIZES {
        let len = 1usize << log_len;
        let mut rng = SplitMix64(log_len as u64);
        let input: Vec<u32> = (0..len).map(|_| rng.below(P as u64) as u32).collect();
        let mut expected = input.clone();
        wht_scalar(&mut expected, P);
        group.throughput(Throughput::Elements(len as u64));
        let passes = Tiling::detect().plan(log_len).len();
        let mut entries: Vec<Entry> = Vec::new();
        for &variant in WhtVariant::ALL {
            for (simd, sched) in &backends {
                // The scalar reference has no SIMD: one entry, under the portable level.
                if variant == WhtVariant::Scalar && *simd != Simd::portable() {
                    continue;
                }
                // Verify before timing: a fast wrong kernel must not produce a figure.
                let mut check = input.clone();
                variant.run(&mut check, P, sched);
                assert_eq!(check, expected, "{variant} on {simd} disagrees with the reference at 2^{log_len}");
                let run = Box::new(move |data: &mut [u32]| variant.run(data, P, sched)) as Box<_>;
                entries.push((format!("{variant}/{simd}"), run));
            }
        }
        if log_len == SHOWCASE {
            let sched = &sched;
            entries.push((format!("stream-x{passes}"), Box::new(move |data: &mut [u32]| stream(data, passes, sched))));
        }
        for (name, run) in &entries {
            let id = BenchmarkId::new(name, format!("2^{log_len}"));
            group.bench_with_input(id, &input, |b, input| {
                b.iter_batched_ref(|| input.clone(), |data| run(data), BatchSize::LargeInput)
            });
        }
        if log_len == SHOWCASE {
            let mut buffer = AlignedBuffer::zeroed(len);
            for (name, run) in &entries {
                let id = BenchmarkId::new(name, format!("2^{log_len}-huge"));
                group.bench_function(id, |b| {
                    b.iter_custom(|iters| {
                        let mut total = Duration::ZERO;
                        for _ in 0..iters {
                            buffer.as_mut_slice().copy_from_slice(&input);
                            let start = Instant::now();
                            run(buffer.as_mut_slice());
                            total += start.elapsed();
                        }
                        total
                    })
                });
            }
        }
    }
    group.finish();
}

criterion_group! { name = benches; config = common::quick_criterion(); targets = bench }
criterion_main!(benches);
