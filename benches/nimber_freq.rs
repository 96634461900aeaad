//! Every nimber-frequency variant side by side, throughput in frequencies per second.

#[path = "common.rs"]
mod common;

use criterion::{BenchmarkId, Throughput, criterion_group, criterion_main};
use gamecount::kernels::nimber_freq::NimberFreqVariant;

const P: u32 = 1_000_000_007;
const SIZES: [usize; 2] = [1 << 16, 10_000_000];

fn bench(c: &mut criterion::Criterion) {
    let mut group = c.benchmark_group("nimber_freq");
    for n in SIZES {
        let mut out = vec![0u32; n.next_power_of_two()];
        let reference = {
            NimberFreqVariant::ALL[0].run(n, P, &mut out);
            out.clone()
        };
        group.throughput(Throughput::Elements(n as u64));
        for &variant in NimberFreqVariant::ALL {
            variant.run(n, P, &mut out);
            assert_eq!(out, reference, "{variant} disagrees");
            group.bench_function(BenchmarkId::new(variant.name(), n), |b| b.iter(|| variant.run(n, P, &mut out)));
        }
    }
    group.finish();
}

criterion_group! { name = benches; config = common::quick_criterion(); targets = bench }
criterion_main!(benches);
