//! Products modulo any `N < 2^62` by radix-2 transforms modulo several primes.

use super::crt::Garner;
use super::plan::NttPlan;
use super::{MAX_LOG_LEN, PRIMES};
use crate::simd::Simd;

/// Transform tables for products whose transforms are at most `2^log_max` long, for
/// every prime of [`PRIMES`] (built on first use), and the SIMD level their loops run on.
#[derive(Debug)]
pub struct ProductPlan {
    simd: Simd,
    log_max: u32,
    plans: Vec<std::sync::OnceLock<NttPlan>>,
}

impl ProductPlan {
    /// Tables for products of total length (`la + lb - 1`) up to `max_product_len`, on
    /// `simd`'s backend.
    ///
    /// # Panics
    /// If that needs a transform longer than `2^MAX_LOG_LEN`.
    pub fn new(simd: Simd, max_product_len: usize) -> Self {
        let log_max = max_product_len.max(1).next_power_of_two().trailing_zeros();
        assert!(
            log_max <= MAX_LOG_LEN,
            "a product of length {max_product_len} needs a transform above 2^{MAX_LOG_LEN}"
        );
        Self { simd, log_max, plans: (0..PRIMES.len()).map(|_| std::sync::OnceLock::new()).collect() }
    }

    fn plan(&self, i: usize) -> &NttPlan {
        self.plans[i].get_or_init(|| NttPlan::new(PRIMES[i].0, PRIMES[i].1, self.log_max))
    }

    /// How many primes make their product exceed `min(la, lb)·(N-1)^2`, the largest
    /// exact coefficient: the sum of their `log2` must pass `log2` of the bound by a bit.
    pub fn primes_needed(shorter_len: usize, modulus: u64) -> usize {
        let bound_bits = (shorter_len.max(1) as f64).log2() + 2.0 * ((modulus - 1).max(1) as f64).log2() + 1.0;
        let mut bits = 0.0;
        for (count, &(p, _, _)) in PRIMES.iter().enumerate() {
            bits += (p as f64).log2();
            if bits > bound_bits {
                return count + 1;
            }
        }
        panic!("{} primes are not enough for products of length {shorter_len} modulo {modulus}", PRIMES.len());
    }

    /// The first `out_len` coefficients of `a·b` modulo `modulus` (inputs residues).
    pub fn multiply(&self, a: &[u64], b: &[u64], modulus: u64, out_len: usize) -> Vec<u64> {
        // Coefficients at or beyond out_len cannot contribute below it.
        let (a, b) = (&a[..a.len().min(out_len)], &b[..b.len().min(out_len)]);
        if a.is_empty() || b.is_empty() {
            return vec![0; out_len];
        }
        let full = a.len() + b.len() - 1;
        let mut out = self.convolve(a, b, modulus, full.next_power_of_two(), out_len.min(full));
        out.resize(out_len, 0);
        out
    }

    /// The cyclic product `a·b mod (X^len - 1)` modulo `modulus`, for `len` a power of two
    /// at least as long as both inputs: coefficient `j` is `Σ_{i+k ≡ j} a_i·b_k`. Half the
    /// transform length of [`Self::multiply`] when the caller knows, or does not need,
    /// the low coefficients that the high ones wrap onto.
    pub fn multiply_cyclic(&self, a: &[u64], b: &[u64], modulus: u64, len: usize) -> Vec<u64> {
        assert!(len.is_power_of_two() && a.len() <= len && b.len() <= len, "cyclic length {len} too short");
        if a.is_empty() || b.is_empty() {
            return vec![0; len];
        }
        self.convolve(a, b, modulus, len, len)
    }

    /// The first `kept` coefficients of the cyclic convolution of length `n` (a power of
    /// two, at least both input lengths). Each coefficient sums at most `min(la, lb)`
    /// products, whatever wraps, so the prime count of [`Self::primes_needed`] holds.
    fn convolve(&self, a: &[u64], b: &[u64], modulus: u64, n: usize, kept: usize) -> Vec<u64> {
        assert!(n <= 1 << self.log_max, "a transform of length {n} is longer than this plan's");
        let (simd, squaring) = (self.simd, std::ptr::eq(a, b));
        let primes = Self::primes_needed(a.len().min(b.len()), modulus);
        // residues[k·primes + i] = coefficient k modulo prime i.
        let mut residues = vec![0u32; kept * primes];
        // Two transform buffers reused for every prime (fresh pages cost the kernel a
        // zeroing pass each).
        let (mut fa, mut fb) = (vec![0u32; n], vec![0u32; if squaring { 0 } else { n }]);
        for i in 0..primes {
            let plan = self.plan(i);
            plan.load_into(simd, a, &mut fa);
            plan.forward(simd, &mut fa);
            if squaring {
                plan.square(simd, &mut fa);
            } else {
                plan.load_into(simd, b, &mut fb);
                plan.forward(simd, &mut fb);
                plan.pointwise(simd, &mut fa, &fb);
            }
            plan.inverse(simd, &mut fa);
            for (k, &v) in fa[..kept].iter().enumerate() {
                residues[k * primes + i] = v;
            }
        }
        let garner = Garner::new(&PRIMES[..primes].iter().map(|p| p.0).collect::<Vec<_>>(), modulus);
        residues.chunks_exact(primes).map(|r| garner.combine(r)).collect()
    }
}

/// The first `out_len` coefficients of `a·b` modulo `modulus`, with a plan made for
/// this one product, on `simd`'s backend.
pub fn ntt_radix2(simd: Simd, a: &[u64], b: &[u64], modulus: u64, out_len: usize) -> Vec<u64> {
    let full = (a.len().min(out_len) + b.len().min(out_len)).saturating_sub(1);
    ProductPlan::new(simd, full).multiply(a, b, modulus, out_len)
}
