//! One prime's transforms: the root tables and the butterflies.
//!
//! The cyclic transform of length `n = 2^s` evaluates `a(X) mod X^n - 1` by halving:
//! a block holding `a mod X^{2h} - c` splits, with `r^2 = c`, into `lo + r·hi` (that is
//! `a mod X^h - r`) and `lo - r·hi` (`a mod X^h + r`). Starting from `c = 1`, block `b`
//! of every level uses `r_b = ω^{bitrev(b)}`, with `ω` a primitive `2^MAX`-th root and
//! `bitrev` over `MAX - 1` bits: the same table for every level and every length up to
//! `2^MAX` (a length-`n` transform reads its first `n/2` entries). The inverse undoes
//! each butterfly, `(u, v) -> (u + v, (u - v)·r_b^{-1})`, from the bottom level up, and
//! divides by `n` at the end.
//!
//! Arithmetic: the butterflies multiply by a root that is constant over a block, so they
//! use Shoup's method (the root with a precomputed `floor(r·2^32/p)`: two low and one
//! high 32-bit product, no Montgomery form), and keep every value in `[0, p)` with one
//! `min(x, x - p)` per result. Inputs enter through one Montgomery REDC (`a·R^{-1}`,
//! which reduces any `a < p·2^32` without a division), the pointwise product is a
//! Montgomery product (`a·b·R^{-1}`), and the final scaling by `n^{-1}·R^4` (through one
//! more REDC) removes the three factors `R^{-1}`.
//!
//! Backends: the arithmetic is scalar, written so that LLVM vectorises its loops (the
//! butterflies of a level, the pointwise products, the loads). Each loop runs inside a
//! [`multiversion!`](crate::simd::multiversion) entry point, so it is vectorised for the
//! run's level (16 lanes of `vpmuludq` with AVX-512, 8 with AVX2) instead of the build's
//! baseline (4 with SSE2); the code and the results are the same on every backend.

use super::traversal::{dif, dit};
use crate::arith::{Montgomery32, inv_mod, pow_mod};
use crate::simd::{Backend, Simd};

/// The root tables of one prime, for transforms up to `2^log_max`.
#[derive(Clone, Debug)]
pub struct NttPlan {
    mont: Montgomery32,
    p: u32,
    log_max: u32,
    /// `(r_b, floor(r_b·2^32/p))` for `b < 2^(log_max - 1)`: each root with its Shoup
    /// companion.
    roots: Vec<(u32, u32)>,
    /// The same for `r_b^{-1}`.
    inv_roots: Vec<(u32, u32)>,
}

/// `v·r mod p` in `[0, 2p)` for any `v < 2^32`, by Shoup's method with
/// `r_shoup = floor(r·2^32/p)`: the estimate `q = floor(v·r_shoup/2^32)` is
/// `floor(v·r/p)` or one less, so `v·r - q·p` (computed modulo 2^32) is in `[0, 2p)`.
#[inline(always)]
fn mul_shoup(v: u32, r: u32, r_shoup: u32, p: u32) -> u32 {
    let q = ((v as u64 * r_shoup as u64) >> 32) as u32;
    v.wrapping_mul(r).wrapping_sub(q.wrapping_mul(p))
}

/// `(ω^{bitrev(b)}, companion)` for `b < 2^(log_max - 1)`, with `bitrev` over
/// `log_max - 1` bits. Built without a gather: bit `k` of `b` becomes bit
/// `log_max - 2 - k` of `bitrev(b)`, so `table[2^k + c] = table[c]·ω^{2^(log_max-2-k)}`
/// for `c < 2^k`, one vectorisable pass per `k`.
fn bit_reversed_powers(omega: u32, p: u32, log_max: u32) -> Vec<(u32, u32)> {
    let half = if log_max == 0 { 0 } else { 1usize << (log_max - 1) };
    let mut values = vec![0u32; half];
    if half > 0 {
        values[0] = 1;
    }
    for k in 0..log_max.saturating_sub(1) {
        let z = pow_mod(omega as u64, 1 << (log_max - 2 - k), p as u64) as u32;
        let z_shoup = shoup_companion(z, p);
        let (done, next) = values.split_at_mut(1 << k);
        for (target, &source) in next[..1 << k].iter_mut().zip(done.iter()) {
            *target = reduce_once(mul_shoup(source, z, z_shoup, p), p);
        }
    }
    values.into_iter().map(|r| (r, shoup_companion(r, p))).collect()
}

/// `floor(r·2^32 / p)` for `r < p < 2^31`, without a division: the `f64` quotient is
/// within `2^-20` of the true one (below `2^32`, with 53 significant bits), so its floor
/// is off by at most one, which the exact remainder `r·2^32 - q·p` reveals.
fn shoup_companion(r: u32, p: u32) -> u32 {
    let numerator = (r as u64) << 32;
    // The quotient is below 2^32 and non-negative: the float-to-integer cast is exact
    // up to the floor.
    let mut q = (numerator as f64 / p as f64) as u64;
    // Fix the estimate so that 0 <= numerator - q·p < p.
    while q * p as u64 > numerator {
        q -= 1;
    }
    while numerator - q * p as u64 >= p as u64 {
        q += 1;
    }
    q as u32
}

/// `x mod p` for `x < 2p` (`p < 2^31`): the minimum of `x` and `x - p`, where the
/// subtraction wraps to a huge value exactly when `x < p` (one `vpminud` in lanes).
#[inline(always)]
fn reduce_once(x: u32, p: u32) -> u32 {
    x.min(x.wrapping_sub(p))
}

/// One forward butterfly with root `(r, r_shoup)`: `(u + r·v, u - r·v)`, all in `[0, p)`.
#[inline(always)]
fn forward_butterfly(u: &mut u32, v: &mut u32, r: u32, r_shoup: u32, p: u32) {
    let t = reduce_once(mul_shoup(*v, r, r_shoup, p), p);
    // u, t < p < 2^31: neither the sum nor u + p - t overflows.
    let (a, b) = (*u + t, *u + p - t);
    *u = reduce_once(a, p);
    *v = reduce_once(b, p);
}

/// One inverse butterfly with root `(r, r_shoup)` (an inverse root): `(u + v, (u - v)·r)`.
#[inline(always)]
fn inverse_butterfly(u: &mut u32, v: &mut u32, r: u32, r_shoup: u32, p: u32) {
    let (a, b) = (*u + *v, *u + p - *v);
    *u = reduce_once(a, p);
    *v = reduce_once(mul_shoup(b, r, r_shoup, p), p);
}

/// Applies `butterfly` to every block of `data` with half-size `HALF` (a compile-time
/// constant, so the short inner loop unrolls and the block loop can vectorise).
#[inline(always)]
fn small_level<const HALF: usize>(
    data: &mut [u32],
    roots: &[(u32, u32)],
    p: u32,
    butterfly: impl Fn(&mut u32, &mut u32, u32, u32, u32),
) {
    for (chunk, &(r, r_shoup)) in data.chunks_exact_mut(2 * HALF).zip(roots) {
        let (lo, hi) = chunk.split_at_mut(HALF);
        for (u, v) in lo.iter_mut().zip(hi.iter_mut()) {
            butterfly(u, v, r, r_shoup, p);
        }
    }
}

/// One level of butterflies over `data` (blocks of `2·half`, roots `roots[0..]` for the
/// blocks in order).
#[inline(always)]
fn apply_level(
    data: &mut [u32],
    half: usize,
    roots: &[(u32, u32)],
    p: u32,
    butterfly: impl Fn(&mut u32, &mut u32, u32, u32, u32) + Copy,
) {
    match half {
        1 => small_level::<1>(data, roots, p, butterfly),
        2 => small_level::<2>(data, roots, p, butterfly),
        4 => small_level::<4>(data, roots, p, butterfly),
        8 => small_level::<8>(data, roots, p, butterfly),
        _ => {
            for (chunk, &(r, r_shoup)) in data.chunks_exact_mut(2 * half).zip(roots) {
                let (lo, hi) = chunk.split_at_mut(half);
                for (u, v) in lo.iter_mut().zip(hi.iter_mut()) {
                    butterfly(u, v, r, r_shoup, p);
                }
            }
        }
    }
}

crate::simd::multiversion! {
    /// One level of forward butterflies (see [`apply_level`]) on `simd`'s backend.
    fn forward_level(data: &mut [u32], half: usize, roots: &[(u32, u32)], p: u32) => forward_level_generic;
}

crate::simd::multiversion! {
    /// One level of inverse butterflies (see [`apply_level`]) on `simd`'s backend.
    fn inverse_level(data: &mut [u32], half: usize, roots: &[(u32, u32)], p: u32) => inverse_level_generic;
}

crate::simd::multiversion! {
    /// `a = a·b·R^{-1}` pointwise on `simd`'s backend.
    fn pointwise_products(mont: Montgomery32, a: &mut [u32], b: &[u32]) => pointwise_generic;
}

crate::simd::multiversion! {
    /// `a = a·a·R^{-1}` pointwise on `simd`'s backend.
    fn pointwise_squares(mont: Montgomery32, a: &mut [u32]) => squares_generic;
}

crate::simd::multiversion! {
    /// `a = a·s·R^{-1}` for one factor `s < p`, on `simd`'s backend.
    fn scaled(mont: Montgomery32, a: &mut [u32], s: u32) => scaled_generic;
}

crate::simd::multiversion! {
    /// `out = values·R^{-1}`, then zeros, on `simd`'s backend.
    fn reduce_into(mont: Montgomery32, values: &[u64], out: &mut [u32]) => reduce_into_generic;
}

// `B` only selects the entry point, and so the instruction set these plain loops are
// vectorised for; the code does not name it.
#[inline(always)]
#[allow(clippy::extra_unused_type_parameters)]
fn forward_level_generic<B: Backend>(data: &mut [u32], half: usize, roots: &[(u32, u32)], p: u32) {
    apply_level(data, half, roots, p, forward_butterfly);
}

#[inline(always)]
#[allow(clippy::extra_unused_type_parameters)]
fn inverse_level_generic<B: Backend>(data: &mut [u32], half: usize, roots: &[(u32, u32)], p: u32) {
    apply_level(data, half, roots, p, inverse_butterfly);
}

#[inline(always)]
#[allow(clippy::extra_unused_type_parameters)]
fn pointwise_generic<B: Backend>(mont: Montgomery32, a: &mut [u32], b: &[u32]) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x = mont.mul(*x, y);
    }
}

#[inline(always)]
#[allow(clippy::extra_unused_type_parameters)]
fn squares_generic<B: Backend>(mont: Montgomery32, a: &mut [u32]) {
    for x in a.iter_mut() {
        *x = mont.mul(*x, *x);
    }
}

#[inline(always)]
#[allow(clippy::extra_unused_type_parameters)]
fn scaled_generic<B: Backend>(mont: Montgomery32, a: &mut [u32], s: u32) {
    for x in a.iter_mut() {
        *x = mont.mul(*x, s);
    }
}

#[inline(always)]
#[allow(clippy::extra_unused_type_parameters)]
fn reduce_into_generic<B: Backend>(mont: Montgomery32, values: &[u64], out: &mut [u32]) {
    let (head, tail) = out.split_at_mut(values.len());
    for (o, &v) in head.iter_mut().zip(values) {
        // v < 2^62 < p·2^32 (p > 2^30), as REDC needs.
        *o = mont.reduce(v);
    }
    tail.fill(0);
}

impl NttPlan {
    /// Tables for the prime `p` with group generator `generator`, for lengths up to
    /// `2^log_max` (which must divide `p - 1`).
    pub fn new(p: u32, generator: u32, log_max: u32) -> Self {
        let mont = Montgomery32::new(p as u64).expect("NTT primes are odd and below 2^31");
        assert!(((p - 1) >> log_max) << log_max == p - 1, "2^{log_max} does not divide {p} - 1");
        let omega = pow_mod(generator as u64, ((p - 1) >> log_max) as u64, p as u64);
        let omega_inv = inv_mod(omega, p as u64).expect("a root of unity is invertible");
        let roots = bit_reversed_powers(omega as u32, p, log_max);
        let inv_roots = bit_reversed_powers(omega_inv as u32, p, log_max);
        Self { mont, p, log_max, roots, inv_roots }
    }

    /// The prime.
    pub fn prime(&self) -> u32 {
        self.p
    }

    /// The largest transform length, as a power of two.
    pub fn log_max(&self) -> u32 {
        self.log_max
    }

    /// Fills `out` with `a·R^{-1} mod p` for each `a < 2^62` of `values`, then zeros:
    /// the residues as they enter a transform.
    ///
    /// # Panics
    /// If `values` is longer than `out`.
    pub fn load_into(&self, simd: Simd, values: &[u64], out: &mut [u32]) {
        assert!(values.len() <= out.len(), "{} values do not fit {} slots", values.len(), out.len());
        reduce_into(simd, self.mont, values, out);
    }

    /// [`Self::load_into`] a new vector of length `len`.
    pub fn load(&self, simd: Simd, values: &[u64], len: usize) -> Vec<u32> {
        let mut out = vec![0u32; len];
        self.load_into(simd, values, &mut out);
        out
    }

    /// Forward transform in place: natural order in, bit-reversed order out.
    pub fn forward(&self, simd: Simd, data: &mut [u32]) {
        assert!(data.len() <= 1 << self.log_max && (data.len().is_power_of_two() || data.is_empty()));
        let p = self.p;
        dif(data, 0, &|level: &mut [u32], half: usize, first: usize| {
            forward_level(simd, level, half, &self.roots[first..], p);
        });
    }

    /// Inverse transform in place: bit-reversed order in, natural order out, scaled so
    /// that `inverse(pointwise(forward(load(a)), forward(load(b))))` is `a·b mod p`.
    pub fn inverse(&self, simd: Simd, data: &mut [u32]) {
        let n = data.len();
        assert!(n <= 1 << self.log_max && (n.is_power_of_two() || n == 0));
        let (mont, p) = (self.mont, self.p);
        dit(data, 0, &|level: &mut [u32], half: usize, first: usize| {
            inverse_level(simd, level, half, &self.inv_roots[first..], p);
        });
        // Undo n, and the R^{-1} of both loads and of the pointwise product: the scaling
        // by s = n^{-1}·R^4 goes through one more REDC, so it multiplies by n^{-1}·R^3.
        let r_mod_p = (1u64 << 32) % p as u64;
        let n_inv = inv_mod(n.max(1) as u64 % p as u64, p as u64).expect("n is a power of two below p");
        let s = n_inv * pow_mod(r_mod_p, 4, p as u64) % p as u64;
        scaled(simd, mont, data, s as u32);
    }

    /// `a = a·a·R^{-1}` pointwise.
    pub fn square(&self, simd: Simd, a: &mut [u32]) {
        pointwise_squares(simd, self.mont, a);
    }

    /// `a = a·b·R^{-1}` pointwise (transforms of equal length).
    pub fn pointwise(&self, simd: Simd, a: &mut [u32], b: &[u32]) {
        assert_eq!(a.len(), b.len());
        pointwise_products(simd, self.mont, a, b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::ntt::PRIMES;

    #[test]
    fn shoup_companions_are_exact_and_products_land_below_2p() {
        for &(p, _, _) in &PRIMES {
            for r in [0, 1, 2, p / 2, p - 2, p - 1] {
                let companion = shoup_companion(r, p);
                assert_eq!(companion as u64, ((r as u64) << 32) / p as u64, "p={p} r={r}");
                for v in [0u32, 1, p - 1, 2 * p - 1, u32::MAX] {
                    let t = mul_shoup(v, r, companion, p);
                    assert!(t < 2 * p && t as u64 % p as u64 == v as u64 * r as u64 % p as u64, "p={p} r={r} v={v}");
                }
            }
        }
    }

    /// The transform against the definition: output `j` (bit-reversed position) is
    /// `a` evaluated at the root its block ends with.
    #[test]
    fn inverse_undoes_forward_and_products_are_cyclic_convolutions() {
        for simd in Simd::tested() {
            for &(p, g, _) in &PRIMES[..2] {
                let plan = NttPlan::new(p, g, 13);
                for log_n in 0..=13u32 {
                    let n = 1usize << log_n;
                    let a: Vec<u64> = (0..n as u64).map(|i| (i * 7919 + 13) % p as u64).collect();
                    let b: Vec<u64> = (0..n as u64).map(|i| (i * i + 5) % p as u64).collect();
                    let (mut fa, mut fb) = (plan.load(simd, &a, n), plan.load(simd, &b, n));
                    plan.forward(simd, &mut fa);
                    plan.forward(simd, &mut fb);
                    let mut squares = fa.clone();
                    plan.square(simd, &mut squares);
                    plan.pointwise(simd, &mut fa, &fb);
                    plan.inverse(simd, &mut fa);
                    plan.inverse(simd, &mut squares);
                    // Above 2^10 the quadratic definition is too slow for a unit test: the
                    // product is checked at a few positions there.
                    let positions: Vec<usize> = if n <= 1 << 10 { (0..n).collect() } else { vec![0, 1, n / 2, n - 1] };
                    for j in positions {
                        let at = |x: &[u64], y: &[u64]| {
                            (0..n).fold(0u64, |acc, i| (acc + x[i] * y[(j + n - i) % n] % p as u64) % p as u64)
                        };
                        assert_eq!(fa[j] as u64, at(&a, &b), "{simd:?} p={p} n={n} j={j}");
                        assert_eq!(squares[j] as u64, at(&a, &a), "{simd:?} p={p} n={n} j={j} (square)");
                    }
                }
            }
        }
    }
}
