//! The whole cards pipeline, C(10^7, 10^7) mod 10^9+7, per pipeline kernel on every SIMD
//! backend this CPU has, side by side (ids `cards/<kernel>/<backend>/<cards>`): `fused`
//! on the full transform of 2^24 values against `folded` on its 2^23 + 2^21 (the upper
//! frequencies transformed on their own, docs/theory/cards.md §10.1), and `parallel`,
//! the stages one after the other, as the plain multi-threaded pipeline.
//!
//! Each run allocates its array afresh as the binary does, so the figures include
//! mapping whatever memory the allocator does not keep between runs.

#[path = "common.rs"]
mod common;

use criterion::{BenchmarkId, criterion_group, criterion_main};
use gamecount::games::cards::{CardsKernel, CardsParams, losing_sets};
use gamecount::sched::Scheduler;
use gamecount::simd::Simd;

const KERNELS: [CardsKernel; 3] = [CardsKernel::Parallel, CardsKernel::Fused, CardsKernel::Folded];

fn bench(c: &mut criterion::Criterion) {
    let threads = Scheduler::new(None).expect("scheduler").threads();
    eprintln!("the pipelines use {threads} threads");
    let params = CardsParams::instance();
    let mut group = c.benchmark_group("cards");
    let mut expected = None;
    for kernel in KERNELS {
        for simd in Simd::available() {
            let sched = Scheduler::new(Some(threads)).expect("scheduler").with_simd(simd);
            let answer = losing_sets(&params, kernel, &sched);
            assert_eq!(*expected.get_or_insert(answer), answer, "{kernel} on {simd} disagrees");
            group.bench_with_input(BenchmarkId::new(format!("{kernel}/{simd}"), "10^7"), &params, |b, params| {
                b.iter(|| losing_sets(params, kernel, &sched))
            });
        }
    }
    group.finish();
}

criterion_group! { name = benches; config = common::quick_criterion(); targets = bench }
criterion_main!(benches);
