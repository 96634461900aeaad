//! Every character-series variant side by side on the 16 Walsh characters of partisan
//! Kayles, throughput in coefficients (`u^k` of one character) per second.

#[path = "common.rs"]
mod common;

use criterion::{BenchmarkId, Throughput, criterion_group, criterion_main};
use gamecount::games::kayles::{KaylesKernel, character_signs, fair_even_row_counts};
use gamecount::kernels::series::SeriesVariant;
use gamecount::sched::Scheduler;
use gamecount::simd::Simd;

/// `M' = 16·10^9`, the modulus of the Project Euler instance.
const MODULUS: u64 = 16 * 1_000_000_000;
/// Half the pin counts: `m = 500` is the Project Euler instance (1000 pins).
const HALF_SIZES: [usize; 3] = [500, 5_000, 50_000];

/// The variants timed at `m`: the quadratic ones only where they finish in seconds.
fn timed_at(variant: SeriesVariant, m: usize) -> bool {
    match variant {
        SeriesVariant::Reference => m <= 500,
        SeriesVariant::CatalanScalar | SeriesVariant::Catalan | SeriesVariant::CatalanWords => m <= 5_000,
        SeriesVariant::Newton => true,
    }
}

fn bench(c: &mut criterion::Criterion) {
    let characters = character_signs();
    let mut group = c.benchmark_group("series");
    for m in HALF_SIZES {
        // Verify before timing, against the slowest variant that is still quick at m
        // (catalan takes seconds at m = 50 000: run once, not timed).
        let oracle = if m <= 500 { SeriesVariant::Reference } else { SeriesVariant::Catalan };
        let expected = oracle.run(&characters, m, MODULUS);
        group.throughput(Throughput::Elements(characters.len() as u64 * (m as u64 + 1)));
        // Every backend of a variant side by side: ids series/<variant>/<backend>/<pins>.
        for &variant in SeriesVariant::ALL.iter().filter(|&&v| timed_at(v, m)) {
            for simd in Simd::available() {
                let run = || variant.run_on(simd, &characters, m, MODULUS);
                assert_eq!(run(), expected, "{variant} on {simd} disagrees at m={m}");
                group.bench_function(BenchmarkId::new(format!("{}/{simd}", variant.name()), 2 * m), |b| b.iter(run));
            }
        }
    }
    group.finish();
}

/// What `gamecount solve kayles --pins 1000 --threads 1` times, warm: every `--kernel`
/// through the game's whole path (for `catalan-words`, the shared rational form the
/// compiler built instead of the per-character signs the `series` group starts from).
fn solve(c: &mut criterion::Criterion) {
    const HALF: u64 = 500;
    let mut group = c.benchmark_group("kayles-solve");
    let expected =
        fair_even_row_counts(HALF, 1_000_000_000, KaylesKernel::Reference, &Scheduler::sequential()).unwrap();
    for &kernel in KaylesKernel::ALL {
        for simd in Simd::available() {
            let sched = Scheduler::new(Some(1)).expect("one thread").with_simd(simd);
            let run = || fair_even_row_counts(HALF, 1_000_000_000, kernel, &sched).unwrap();
            assert_eq!(run(), expected, "{kernel} on {simd} disagrees");
            group.bench_function(BenchmarkId::new(format!("{}/{simd}", kernel.name()), 2 * HALF), |b| b.iter(run));
        }
    }
    group.finish();
}

criterion_group! { name = benches; config = common::quick_criterion(); targets = bench, solve }
criterion_main!(benches);
