//! Products modulo any `N < 2^62` by radix-2 transforms modulo several primes.

use super::crt::Garner;
use super::plan::NttPlan;
use super::{MAX_LOG_LEN, PRIMES};

/// Transform tables for products whose transforms are at most `2^log_max` long, for
/// every prime of [`PRIMES`] (built on first use).
#[derive(Debug)]
pub struct ProductPlan {
    log_max: u32,
    plans: Vec<std::sync::OnceLock<NttPlan>>,
}

impl ProductPlan {
    /// Tables for products of total length (`la + lb - 1`) up to `max_product_len`.
    ///
    /// # Panics
    /// If that needs a transform longer than `2^MAX_LOG_LEN`.
    pub fn new(max_product_len: usize) -> Self {
        let log_max = max_product_len.max(1).next_power_of_two().trailing_zeros();
        assert!(
            log_max <= MAX_LOG_LEN,
            "a product of length {max_product_len} needs a transform above 2^{MAX_LOG_LEN}"
        );
        Self { log_max, plans: (0..PRIMES.len()).map(|_| std::sync::OnceLock::new()).collect() }
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
        let n = full.next_power_of_two();
        assert!(n <= 1 << self.log_max, "product of length {full} is longer than this plan's transforms");
        let squaring = std::ptr::eq(a, b);
        let primes = Self::primes_needed(a.len().min(b.len()), modulus);
        let kept = out_len.min(full);
        // residues[k·primes + i] = coefficient k modulo prime i.
        let mut residues = vec![0u32; kept * primes];
        // Two transform buffers reused for every prime (fresh pages cost the kernel a
        // zeroing pass each).
        let (mut fa, mut fb) = (vec![0u32; n], vec![0u32; if squaring { 0 } else { n }]);
        for i in 0..primes {
            let plan = self.plan(i);
            plan.load_into(a, &mut fa);
            plan.forward(&mut fa);
            if squaring {
                plan.square(&mut fa);
            } else {
                plan.load_into(b, &mut fb);
                plan.forward(&mut fb);
                plan.pointwise(&mut fa, &fb);
            }
            plan.inverse(&mut fa);
            for (k, &v) in fa[..kept].iter().enumerate() {
                residues[k * primes + i] = v;
            }
        }
        let garner = Garner::new(&PRIMES[..primes].iter().map(|p| p.0).collect::<Vec<_>>(), modulus);
        let mut out: Vec<u64> = residues.chunks_exact(primes).map(|r| garner.combine(r)).collect();
        out.resize(out_len, 0);
        out
    }
}

/// The first `out_len` coefficients of `a·b` modulo `modulus`, with a plan made for
/// this one product.
pub fn ntt_radix2(a: &[u64], b: &[u64], modulus: u64, out_len: usize) -> Vec<u64> {
    let full = (a.len().min(out_len) + b.len().min(out_len)).saturating_sub(1);
    ProductPlan::new(full).multiply(a, b, modulus, out_len)
}
