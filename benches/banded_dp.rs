//! Every banded-DP variant side by side, throughput in cell updates per second.

#[path = "common.rs"]
mod common;

use criterion::{BenchmarkId, Throughput, criterion_group, criterion_main};
use gamecount::kernels::banded_dp::{BandedDpVariant, StepSet};
use gamecount::sched::Scheduler;

const M: u32 = 989_898_989;
const SIZES: [usize; 2] = [1000, 9898];

fn bench(c: &mut criterion::Criterion) {
    let sched = Scheduler::new(None).expect("scheduler");
    let steps = StepSet::two_coin_stacks();
    let mut group = c.benchmark_group("banded_dp");
    for n in SIZES {
        let expected = BandedDpVariant::Scalar.run(n, &steps, M, &sched);
        // Σ_{k=1..n} (8k + 1) cells are updated.
        group.throughput(Throughput::Elements(4 * n as u64 * (n as u64 + 1) + n as u64));
        for &variant in BandedDpVariant::ALL {
            assert_eq!(variant.run(n, &steps, M, &sched), expected, "{variant} disagrees");
            group.bench_function(BenchmarkId::new(variant.name(), n), |b| b.iter(|| variant.run(n, &steps, M, &sched)));
        }
    }
    group.finish();
}

criterion_group! { name = benches; config = common::quick_criterion(); targets = bench }
criterion_main!(benches);
