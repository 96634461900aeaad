//! Every power-sum variant side by side, throughput in values per second.

#[path = "common.rs"]
mod common;

use criterion::{BenchmarkId, Throughput, criterion_group, criterion_main};
use gamecount::kernels::SplitMix64;
use gamecount::kernels::powsum::{PowsumVariant, powsum_scalar};
use gamecount::sched::Scheduler;

const P: u32 = 1_000_000_007;
const EXPONENT: u64 = 10_000_000;
const SIZES: [usize; 2] = [1 << 12, 1 << 20];

fn bench(c: &mut criterion::Criterion) {
    let sched = Scheduler::new(None).expect("scheduler");
    let mut group = c.benchmark_group("powsum");
    for len in SIZES {
        let mut rng = SplitMix64(len as u64);
        let values: Vec<u32> = (0..len).map(|_| rng.below(P as u64) as u32).collect();
        let expected = powsum_scalar(&values, EXPONENT, P);
        group.throughput(Throughput::Elements(len as u64));
        for &variant in PowsumVariant::ALL {
            assert_eq!(variant.run(&values, EXPONENT, P, &sched), expected, "{variant} disagrees");
            group.bench_with_input(BenchmarkId::new(variant.name(), len), &values, |b, values| {
                b.iter(|| variant.run(values, EXPONENT, P, &sched))
            });
        }
    }
    group.finish();
}

criterion_group! { name = benches; config = common::quick_criterion(); targets = bench }
criterion_main!(benches);
