//! Every nimber-frequency variant on every SIMD backend this CPU has, side by side (ids
//! `nimber_freq/<variant>/<backend>/<size>`), throughput in frequencies per second.

#[path = "common.rs"]
mod common;

use criterion::{BenchmarkId, Throughput, criterion_group, criterion_main};
use gamecount::kernels::nimber_freq::{NimberFreqVariant, nimber_freq_linear};
use gamecount::memory::AlignedBuffer;
use gamecount::sched::Scheduler;
use gamecount::simd::Simd;

const P: u32 = 1_000_000_007;
const SIZES: [usize; 2] = [1 << 16, 10_000_000];

fn bench(c: &mut criterion::Criterion) {
    let sched = Scheduler::new(None).expect("scheduler");
    eprintln!("parallel uses {} threads", sched.threads());
    let mut group = c.benchmark_group("nimber_freq");
    for n in SIZES {
        // The pipeline's buffer: the transform length, 64-byte aligned.
        let mut out = AlignedBuffer::zeroed(n.next_power_of_two());
        let mut reference = vec![0u32; n.next_power_of_two()];
        nimber_freq_linear(n, P, &mut reference);
        group.throughput(Throughput::Elements(n as u64));
        for &variant in NimberFreqVariant::ALL {
            for simd in Simd::available() {
                // The linear reference uses no SIMD: one entry, under the portable level.
                if variant == NimberFreqVariant::Linear && simd != Simd::portable() {
                    continue;
                }
                let sched = Scheduler::new(Some(sched.threads())).expect("scheduler").with_simd(simd);
                variant.run(n, P, out.as_mut_slice(), &sched);
                assert!(out.as_slice() == reference, "{variant} on {simd} disagrees with the reference at N = {n}");
                group.bench_function(BenchmarkId::new(format!("{variant}/{simd}"), n), |b| {
                    b.iter(|| variant.run(n, P, out.as_mut_slice(), &sched))
                });
            }
        }
    }
    group.finish();
}

criterion_group! { name = benches; config = common::quick_criterion(); targets = bench }
criterion_main!(benches);
