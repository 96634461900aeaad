//! The coin-count kernels side by side: every banded-DP variant (throughput in the
//! reference's cell updates per second, so the figures compare as times do), the SIMD
//! ones on every backend the CPU has (`dp-simd/avx2/1t` beside `/avx512/1t` and
//! `/portable/1t`), and the O(n) formulas (throughput in stacks per second), the closed
//! form on every backend (`closed-form/avx2` beside `/avx512` and `/portable`). Each is
//! verified before timing.

#[path = "common.rs"]
mod common;

use criterion::{BenchmarkId, Throughput, criterion_group, criterion_main};
use gamecount::kernels::banded_dp::{BandedDpVariant, StepSet};
use gamecount::kernels::coin_formulas::CoinFormulaVariant;
use gamecount::sched::Scheduler;
use gamecount::simd::Simd;

const M: u32 = 989_898_989;
const DP_SIZES: [usize; 2] = [1000, 9898];
const FORMULA_SIZES: [usize; 3] = [9898, 1_000_000, 10_000_000];

fn banded_dp(c: &mut criterion::Criterion) {
    let steps = StepSet::two_coin_stacks();
    let mut group = c.benchmark_group("banded_dp");
    for n in DP_SIZES {
        let expected = BandedDpVariant::Scalar.run(n, &steps, M, &Scheduler::sequential());
        // Σ_{k=1..n} (8k + 1) cells: the reference's updates.
        group.throughput(Throughput::Elements(4 * n as u64 * (n as u64 + 1) + n as u64));
        for &variant in BandedDpVariant::ALL {
            // Only dp-parallel uses a second thread.
            let thread_counts: &[usize] = if variant == BandedDpVariant::Parallel { &[1, 2] } else { &[1] };
            // The reference is scalar: one entry. The others on every backend.
            let backends = if variant == BandedDpVariant::Scalar { vec![Simd::best()] } else { Simd::available() };
            for (&threads, simd) in thread_counts.iter().flat_map(|t| backends.iter().map(move |&s| (t, s))) {
                let sched = Scheduler::new(Some(threads)).expect("scheduler").with_simd(simd);
                assert_eq!(variant.run(n, &steps, M, &sched), expected, "{variant} on {simd} disagrees at n = {n}");
                let name = if variant == BandedDpVariant::Scalar {
                    format!("{variant}/{threads}t")
                } else {
                    format!("{variant}/{simd}/{threads}t")
                };
                group.bench_function(BenchmarkId::new(name, n), |b| b.iter(|| variant.run(n, &steps, M, &sched)));
            }
        }
    }
    group.finish();
}

fn coin_formulas(c: &mut criterion::Criterion) {
    let steps = StepSet::two_coin_stacks();
    let mut group = c.benchmark_group("coin_formulas");
    for n in FORMULA_SIZES {
        let expected = CoinFormulaVariant::ClosedForm.run(n, &steps, M);
        if n <= 9898 {
            assert_eq!(expected, BandedDpVariant::Simd.run(n, &steps, M, &Scheduler::sequential()));
        }
        group.throughput(Throughput::Elements(n as u64));
        for &variant in CoinFormulaVariant::ALL {
            // The recurrence is scalar: one entry. The closed form's runs are in lanes.
            let backends =
                if variant == CoinFormulaVariant::ClosedForm { Simd::available() } else { vec![Simd::best()] };
            for simd in backends {
                let sched = Scheduler::sequential().with_simd(simd);
                assert_eq!(variant.run_on(n, &steps, M, &sched), expected, "{variant} on {simd} disagrees at n = {n}");
                let name = if variant == CoinFormulaVariant::ClosedForm {
                    format!("{variant}/{simd}")
                } else {
                    variant.name().into()
                };
                group.bench_function(BenchmarkId::new(name, n), |b| b.iter(|| variant.run_on(n, &steps, M, &sched)));
            }
        }
    }
    group.finish();
}

criterion_group! { name = benches; config = common::quick_criterion(); targets = banded_dp, coin_formulas }
criterion_main!(benches);
