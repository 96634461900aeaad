//! Every Walsh–Hadamard variant side by side, throughput in elements per second.

#[path = "common.rs"]
mod common;

use criterion::{BatchSize, BenchmarkId, Throughput, criterion_group, criterion_main};
use gamecount::kernels::SplitMix64;
use gamecount::kernels::wht::{WhtVariant, wht_scalar};
use gamecount::sched::Scheduler;

const P: u32 = 1_000_000_007;
const LOG_SIZES: [u32; 3] = [12, 18, 24];

fn bench(c: &mut criterion::Criterion) {
    let sched = Scheduler::new(None).expect("scheduler");
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
    }
    group.finish();
}

criterion_group! { name = benches; config = common::quick_criterion(); targets = bench }
criterion_main!(benches);
