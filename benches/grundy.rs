//! Every Grundy variant side by side on the same games (one group per game, ids
//! `grundy-<game>/<variant>/<heaps>`), throughput in heaps per second. The quadratic
//! variants are timed only where they finish in seconds; every variant's table is checked
//! against the sparse method's before it is timed.

#[path = "common.rs"]
mod common;

use criterion::{BenchmarkId, Throughput, criterion_group, criterion_main};
use gamecount::kernels::grundy::{GrundyVariant, Rules};
use gamecount::sched::Scheduler;

/// The games: 0.156 (checkpoint, sparse), 0.354 (long preperiod), Grundy's game.
fn games() -> [(&'static str, Rules); 3] {
    [("0.156", Rules::octal(&[0, 1, 5, 6])), ("0.354", Rules::octal(&[0, 3, 5, 4])), ("grundy", Rules::GRUNDY)]
}

const SIZES: [usize; 3] = [1 << 13, 1 << 16, 1 << 20];

/// Whether `variant` is timed at `heaps`: the O(N^2) ones up to 2^16 (naive to 2^13).
fn timed(variant: GrundyVariant, heaps: usize) -> bool {
    match variant {
        GrundyVariant::Naive => heaps <= 1 << 13,
        GrundyVariant::Bitset => heaps <= 1 << 16,
        GrundyVariant::Sparse | GrundyVariant::Parallel | GrundyVariant::Blocks => true,
    }
}

fn bench(c: &mut criterion::Criterion) {
    let sched = Scheduler::new(None).expect("scheduler");
    for (name, rules) in games() {
        let mut group = c.benchmark_group(format!("grundy-{name}"));
        for heaps in SIZES {
            let expected = GrundyVariant::Sparse.values(&rules, heaps, &sched).expect("fits");
            group.throughput(Throughput::Elements(heaps as u64 + 1));
            for &variant in GrundyVariant::ALL.iter().filter(|&&v| timed(v, heaps)) {
                assert_eq!(variant.values(&rules, heaps, &sched).expect("fits"), expected, "{variant} {name} {heaps}");
                group.bench_with_input(BenchmarkId::new(variant.to_string(), heaps), &heaps, |b, &heaps| {
                    b.iter(|| variant.values(&rules, heaps, &sched).expect("fits"))
                });
            }
        }
        group.finish();
    }
}

criterion_group! { name = benches; config = common::quick_criterion(); targets = bench }
criterion_main!(benches);
