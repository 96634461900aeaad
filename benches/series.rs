//! Every character-series variant side by side, throughput in coefficients per second.

#[path = "common.rs"]
mod common;

use criterion::{BenchmarkId, Throughput, criterion_group, criterion_main};
use gamecount::games::kayles::dawson::dawson_values;
use gamecount::kernels::series::SeriesVariant;

const MODULUS: u64 = 16 * 1_000_000_000;
const HALF_SIZES: [usize; 2] = [500, 5000];

fn bench(c: &mut criterion::Criterion) {
    let mut group = c.benchmark_group("series");
    for m in HALF_SIZES {
        // Character h = 5: a typical mix of signs.
        let signs: Vec<i8> =
            dawson_values(2 * m + 1).iter().map(|&g| if (g & 5).count_ones() % 2 == 0 { 1 } else { -1 }).collect();
        let expected = SeriesVariant::Reference.run(&signs, m, MODULUS);
        group.throughput(Throughput::Elements(m as u64 + 1));
        for &variant in SeriesVariant::ALL {
            assert_eq!(variant.run(&signs, m, MODULUS), expected, "{variant} disagrees");
            group.bench_function(BenchmarkId::new(variant.name(), 2 * m), |b| {
                b.iter(|| variant.run(&signs, m, MODULUS))
            });
        }
    }
    group.finish();
}

criterion_group! { name = benches; config = common::quick_criterion(); targets = bench }
criterion_main!(benches);
