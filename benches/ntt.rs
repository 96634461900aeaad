//! Every product variant side by side: two residue vectors of length `L` modulo
//! `N = 8·10^9` (the Kayles series modulus), the full product; throughput in input
//! coefficients per second.

#[path = "common.rs"]
mod common;

use criterion::{BenchmarkId, Throughput, criterion_group, criterion_main};
use gamecount::kernels::SplitMix64;
use gamecount::kernels::ntt::NttVariant;
use gamecount::simd::Simd;

const MODULUS: u64 = 8 * 1_000_000_000;
const LOG_LENS: [u32; 3] = [8, 12, 18];

fn bench(c: &mut criterion::Criterion) {
    let mut group = c.benchmark_group("ntt");
    for log_len in LOG_LENS {
        let len = 1usize << log_len;
        let mut rng = SplitMix64(log_len as u64);
        let a: Vec<u64> = (0..len).map(|_| rng.below(MODULUS)).collect();
        let b: Vec<u64> = (0..len).map(|_| rng.below(MODULUS)).collect();
        let out = 2 * len - 1;
        // Verify before timing: against the schoolbook product where it is quick, and
        // against a second, independent evaluation point otherwise (one coefficient).
        let expected = if log_len <= 12 {
            NttVariant::Reference.run(&a, &b, MODULUS, out)
        } else {
            NttVariant::Radix2.run_on(Simd::portable(), &a, &b, MODULUS, out)
        };
        let middle = (0..len).fold(0u128, |s, i| (s + a[i] as u128 * b[len - 1 - i] as u128) % MODULUS as u128) as u64;
        assert_eq!(expected[len - 1], middle, "the middle coefficient is wrong at 2^{log_len}");
        group.throughput(Throughput::Elements(len as u64));
        for &variant in NttVariant::ALL {
            if variant == NttVariant::Reference && log_len > 12 {
                continue;
            }
            // The reference is scalar `u128` arithmetic on every backend: timed once.
            // The transforms side by side on every backend: ids ntt/radix2/<backend>/2^k.
            let backends = if variant == NttVariant::Reference { vec![Simd::portable()] } else { Simd::available() };
            for simd in backends {
                let run = || variant.run_on(simd, &a, &b, MODULUS, out);
                assert_eq!(run(), expected, "{variant} on {simd} disagrees at 2^{log_len}");
                let id = if variant == NttVariant::Reference {
                    variant.name().to_string()
                } else {
                    format!("{}/{simd}", variant.name())
                };
                group.bench_function(BenchmarkId::new(id, format!("2^{log_len}")), |bench| bench.iter(run));
            }
        }
    }
    group.finish();
}

criterion_group! { name = benches; config = common::quick_criterion(); targets = bench }
criterion_main!(benches);
