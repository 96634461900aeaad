//! Every stone-game scan side by side on every SIMD backend this CPU has (ids
//! `keyscan/<variant>/<backend>/<L>`), throughput in sorted triples `x <= y <= z <= L` per
//! second (the naive scan's unit of work), and the parallel scans on one and two threads.

#[path = "common.rs"]
mod common;

use criterion::{BenchmarkId, Throughput, criterion_group, criterion_main};
use gamecount::kernels::keyscan::KeyscanVariant;
use gamecount::kernels::keyscan::check::check_variant;
use gamecount::sched::Scheduler;
use gamecount::simd::Simd;

const LIMITS: [u32; 2] = [300, 1000];

/// Sorted triples with `z <= limit`: `C(L + 3, 3)`.
fn triples(limit: u32) -> u64 {
    let l = limit as u64;
    (l + 1) * (l + 2) * (l + 3) / 6
}

fn variants(c: &mut criterion::Criterion) {
    let mut group = c.benchmark_group("keyscan");
    for limit in LIMITS {
        group.throughput(Throughput::Elements(triples(limit)));
        for &variant in KeyscanVariant::ALL {
            for simd in Simd::available() {
                let sched = Scheduler::new(None).expect("scheduler").with_simd(simd);
                // Verify before timing: a fast wrong kernel must not produce a figure.
                check_variant(variant, [limit], &sched).expect("the variant agrees with the reference");
                let id = BenchmarkId::new(format!("{}/{simd}", variant.name()), limit);
                group.bench_function(id, |b| b.iter(|| variant.count(limit, &sched)));
            }
        }
    }
    group.finish();
}

fn threads(c: &mut criterion::Criterion) {
    let mut group = c.benchmark_group("keyscan-threads");
    for limit in [1000, 3000] {
        group.throughput(Throughput::Elements(triples(limit)));
        let expected = KeyscanVariant::BitsetX4.count(limit, &Scheduler::sequential());
        for variant in [KeyscanVariant::Wavefront, KeyscanVariant::DiagonalTiles] {
            for simd in Simd::available() {
                for threads in [1, 2] {
                    let sched = Scheduler::new(Some(threads)).expect("scheduler").with_simd(simd);
                    assert_eq!(variant.count(limit, &sched), expected, "{variant} on {simd} disagrees");
                    let id = BenchmarkId::new(format!("{variant}-{threads}t/{simd}"), limit);
                    group.bench_function(id, |b| b.iter(|| variant.count(limit, &sched)));
                }
            }
        }
    }
    group.finish();
}

criterion_group! { name = benches; config = common::quick_criterion(); targets = variants, threads }
criterion_main!(benches);
