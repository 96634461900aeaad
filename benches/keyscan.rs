//! Every stone-game scan side by side, throughput in sorted triples per second.

#[path = "common.rs"]
mod common;

use criterion::{BenchmarkId, Throughput, criterion_group, criterion_main};
use gamecount::kernels::keyscan::KeyscanVariant;
use gamecount::sched::Scheduler;

const LIMITS: [u32; 2] = [300, 1000];

fn bench(c: &mut criterion::Criterion) {
    let sched = Scheduler::new(None).expect("scheduler");
    let mut group = c.benchmark_group("keyscan");
    for limit in LIMITS {
        let expected = KeyscanVariant::Naive.run(limit, &sched, &mut |_, _, _| {});
        let triples = (limit as u64 + 1) * (limit as u64 + 2) * (limit as u64 + 3) / 6;
        group.throughput(Throughput::Elements(triples));
        for &variant in KeyscanVariant::ALL {
            assert_eq!(variant.run(limit, &sched, &mut |_, _, _| {}), expected, "{variant} disagrees");
            group.bench_function(BenchmarkId::new(variant.name(), limit), |b| {
                b.iter(|| variant.run(limit, &sched, &mut |_, _, _| {}))
            });
        }
    }
    group.finish();
}

criterion_group! { name = benches; config = common::quick_criterion(); targets = bench }
criterion_main!(benches);
