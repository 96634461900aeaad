//! Every power-sum variant on every SIMD backend this CPU has, side by side (ids
//! `powsum/<variant>/<backend>/<size>`), throughput in values per second.
//!
//! At 2^24 values the `u128` reference would take about 20 s per run, so it is timed up
//! to 2^20 only, and at 2^24 each variant is checked against `montgomery`, itself checked
//! against the reference at the smaller sizes of the same run.

#[path = "common.rs"]
mod common;

use criterion::{BenchmarkId, Throughput, criterion_group, criterion_main};
use gamecount::kernels::SplitMix64;
use gamecount::kernels::powsum::{PowsumVariant, powsum_montgomery, powsum_scalar};
use gamecount::sched::Scheduler;
use gamecount::simd::Simd;

const P: u32 = 1_000_000_007;
/// The exponent of the Project Euler instance (s = 10^7 suits).
const EXPONENT: u64 = 10_000_000;
const SIZES: [usize; 3] = [1 << 12, 1 << 20, 1 << 24];
/// Above this size the reference is neither timed nor used to check.
const REFERENCE_LIMIT: usize = 1 << 20;

fn bench(c: &mut criterion::Criterion) {
    let sched = Scheduler::new(None).expect("scheduler");
    eprintln!("parallel uses {} threads", sched.threads());
    let mut group = c.benchmark_group("powsum");
    for len in SIZES {
        let mut rng = SplitMix64(len as u64);
        let values: Vec<u32> = (0..len).map(|_| rng.below(P as u64) as u32).collect();
        let expected = if len <= REFERENCE_LIMIT {
            powsum_scalar(&values, EXPONENT, P)
        } else {
            powsum_montgomery(&values, EXPONENT, P)
        };
        group.throughput(Throughput::Elements(len as u64));
        for &variant in PowsumVariant::ALL {
            if variant == PowsumVariant::Scalar && len > REFERENCE_LIMIT {
                continue;
            }
            for simd in Simd::available() {
                // The scalar variants use no SIMD: one entry each, under the portable level.
                let scalar = matches!(variant, PowsumVariant::Scalar | PowsumVariant::Montgomery);
                if scalar && simd != Simd::portable() {
                    continue;
                }
                let sched = Scheduler::new(Some(sched.threads())).expect("scheduler").with_simd(simd);
                assert_eq!(
                    variant.run(&values, EXPONENT, P, &sched),
                    expected,
                    "{variant} on {simd} disagrees at {len}"
                );
                group.bench_with_input(BenchmarkId::new(format!("{variant}/{simd}"), len), &values, |b, values| {
                    b.iter(|| variant.run(values, EXPONENT, P, &sched))
                });
            }
        }
    }
    group.finish();
}

criterion_group! { name = benches; config = common::quick_criterion(); targets = bench }
criterion_main!(benches);
