//! Modular arithmetic in SIMD lanes: sixteen residues modulo one odd prime `p < 2^31`
//! held in one logical vector of a SIMD backend ([`Mont`]), with the same results as the
//! scalar forms lane by lane.
//!
//! | helper | inputs | output | scalar twin |
//! |---|---|---|---|
//! | [`ModLanes::add`], [`ModLanes::sub`], [`ModLanes::double`] | `[0, p)` | `[0, p)` | [`add_mod`](super::add_mod), [`sub_mod`](super::sub_mod) |
//! | [`ModLanes::half`] | `[0, p)` | `[0, p)`, `a·2^-1` | `a·(p+1)/2 mod p` |
//! | [`ModLanes::mul`] | `a·b < p·2^32` (e.g. both below `p`) | `[0, p)`, `a·b·2^-32` | [`Montgomery32::mul`] |
//! | [`ModLanes::pow`] | Montgomery forms in `[0, p)` | form of `x^e` in `[0, p)` | [`Montgomery32::pow`] |
//! | [`ModLanes::mul_unreduced`] | `a·b < p·2^32` | below `2p` | [`Montgomery32::mul`], mod `p` |
//! | [`ModLanes::mul_lazy`], [`ModLanes::pow_lazy`] | below `2p`, `p < 2^30` | below `2p` | the same, mod `p` |
//!
//! Every other result is fully reduced, so no caller has to track a lazy range. The branch-free
//! corrections all use one trick: for a wrapped `u32` value `r` that represents a number
//! in `(-p, p)`, `min(r, r + p)` is its residue (a negative number wraps above
//! `2^32 - p > p`, and adding `p` wraps it back below `p`), and for a sum `s < 2p`,
//! `min(s, s - p)` is its residue. Both need `2p <= 2^32`, hence `p < 2^31`.
//!
//! Montgomery products use `R = 2^32` and the *subtractive* REDC: with `t = a·b` and
//! `q = t·p^-1 mod R`, the low halves of `t` and `q·p` are equal, so
//! `(t - q·p)/R = hi(t) - hi(q·p)`, which lies in `(-p, p)` when `t < p·R`. That needs
//! only the high halves of two 32×32-bit products, and one `min` to finish.
//!
//! The lanes are those of a backend ([`Mont`], `crate::simd`): the helpers are written
//! once over its primitives, and each backend brings its own REDC (`vpmuludq` on even
//! and odd lanes with AVX2 and AVX-512, six per eight or sixteen lanes; `vmull` on NEON,
//! and `sqdmulh` for its lazy products; `wide`'s high and low products on the portable
//! backend), which all compute the same values. A kernel that builds a `ModLanes<B>`
//! must itself run inside a [`multiversion!`](crate::multiversion) entry point of `B`'s
//! level.
//!
//! The lazy product, for `p < 2^30` (the Project Euler prime is one), is the *additive*
//! REDC `(t + m·p)/R` with `m = -t·p^-1 mod R`: for inputs below `2p`, `t < 4p^2 <= p·R`,
//! so the result is below `2p` with no correction at all, one operation fewer per vector
//! than the subtractive form and two fewer than the reduced one.

use super::Montgomery32;
use crate::simd::Portable;
pub use crate::simd::mont::LANES;
use crate::simd::mont::Mont;

/// The constants of one modulus, splatted across the lanes of backend `B`.
#[derive(Clone, Copy, Debug)]
pub struct ModLanes<B: Mont = Portable> {
    p: B::V,
    /// `p^-1 mod 2^32` (the subtractive REDC uses `+p^-1`, not `-p^-1`).
    p_inv: B::V,
    /// `-p^-1 mod 2^32`, for the additive (lazy) REDC.
    neg_p_inv: B::V,
    /// `R^2 mod p`, to move residues into Montgomery form with one product.
    r2: B::V,
    scalar: Montgomery32,
}

impl<B: Mont> ModLanes<B> {
    /// Constants for `p`, or `None` unless `p` is odd with `3 <= p < 2^31`.
    #[inline(always)]
    pub fn new(p: u32) -> Option<Self> {
        Some(Self::from_scalar(Montgomery32::new(p as u64)?))
    }

    /// The lane constants of the same modulus as `scalar` (cheap: four broadcasts and one
    /// scalar product), for kernels handed the scalar constants.
    #[inline(always)]
    pub fn from_scalar(scalar: Montgomery32) -> Self {
        let r2 = scalar.to_form(scalar.one());
        Self {
            p: B::splat(scalar.modulus()),
            p_inv: B::splat(scalar.neg_p_inv().wrapping_neg()),
            neg_p_inv: B::splat(scalar.neg_p_inv()),
            r2: B::splat(r2),
            scalar,
        }
    }

    /// The modulus.
    #[inline(always)]
    pub fn modulus(&self) -> u32 {
        self.scalar.modulus()
    }

    /// The scalar Montgomery constants of the same modulus.
    #[inline(always)]
    pub fn scalar(&self) -> &Montgomery32 {
        &self.scalar
    }

    /// `p` in every lane.
    #[inline(always)]
    pub fn p(&self) -> B::V {
        self.p
    }

    /// `(a + b) mod p` for `a, b < p`.
    #[inline(always)]
    pub fn add(&self, a: B::V, b: B::V) -> B::V {
        // a + b < 2p <= 2^32: no wrap; min picks s - p exactly when s >= p.
        let s = B::add(a, b);
        B::min(s, B::sub(s, self.p))
    }

    /// `(a - b) mod p` for `a, b < p`.
    #[inline(always)]
    pub fn sub(&self, a: B::V, b: B::V) -> B::V {
        // a - b lies in (-p, p); when negative it wraps above 2^32 - p and d + p wraps back.
        let d = B::sub(a, b);
        B::min(d, B::add(d, self.p))
    }

    /// `2a mod p` for `a < p`.
    #[inline(always)]
    pub fn double(&self, a: B::V) -> B::V {
        self.add(a, a)
    }

    /// `a / 2 mod p` for `a < p`: `a/2` when `a` is even, `(a + p)/2` when odd (`p` odd,
    /// so the sum is even, and below `2p <= 2^32`).
    #[inline(always)]
    pub fn half(&self, a: B::V) -> B::V {
        let one = B::splat(1);
        let odd = B::eq(B::and(a, one), one);
        B::shr1(B::add(a, B::and(self.p, odd)))
    }

    /// Montgomery product `a·b·2^-32 mod p` in `[0, p)`, for `a·b < p·2^32`.
    #[inline(always)]
    pub fn mul(&self, a: B::V, b: B::V) -> B::V {
        let r = B::redc_difference(a, b, self.p, self.p_inv);
        B::min(r, B::add(r, self.p))
    }

    /// Whether the lazy products apply: `p < 2^30`.
    #[inline(always)]
    pub fn lazy_ok(&self) -> bool {
        self.modulus() < 1 << 30
    }

    /// Lazy Montgomery product: a value below `2p` congruent to `a·b·2^-32`, for `a, b < 2p`
    /// and `p < 2^30` (see [`ModLanes::lazy_ok`]), so that its results can be its inputs.
    #[inline(always)]
    pub fn mul_lazy(&self, a: B::V, b: B::V) -> B::V {
        debug_assert!(self.lazy_ok());
        // The inputs below 2p < 2^31 allow the backend's signed form of the same REDC.
        B::redc_lazy(a, b, self.p, self.neg_p_inv)
    }

    /// Montgomery product left unreduced: a value below `2p` congruent to `a·b·2^-32`, for
    /// any `a·b < p·2^32` (as [`ModLanes::mul`]; e.g. both below `p`, or one below `2p` and
    /// the other below `p`), since the additive REDC's `(a·b + m·p)/2^32` is below
    /// `a·b/2^32 + p`. For a product that only feeds another product.
    #[inline(always)]
    pub fn mul_unreduced(&self, a: B::V, b: B::V) -> B::V {
        B::redc_additive(a, b, self.p, self.neg_p_inv)
    }

    /// `x mod p` for lanes below `2p`.
    #[inline(always)]
    pub fn reduce_2p(&self, x: B::V) -> B::V {
        B::min(x, B::sub(x, self.p))
    }

    /// The Montgomery form `a·2^32 mod p` of residues `a < p`.
    #[inline(always)]
    pub fn to_form(&self, a: B::V) -> B::V {
        self.mul(a, self.r2)
    }

    /// The residues that Montgomery forms `a < p` stand for.
    #[inline(always)]
    pub fn from_form(&self, a: B::V) -> B::V {
        self.mul(a, B::splat(1))
    }

    /// `x^e` for `G` vectors of Montgomery forms at once, as forms: one left-to-right
    /// square-and-multiply over the bits of `e` drives every lane, and the `G`
    /// independent vectors give the processor independent products to overlap.
    #[inline(always)]
    pub fn pow<const G: usize>(&self, x: [B::V; G], e: u64) -> [B::V; G] {
        self.pow_with::<G, false>(x, e)
    }

    /// [`ModLanes::pow`] with lazy products (`p < 2^30`): forms below `2p` in, a form
    /// below `2p` out (not reduced).
    #[inline(always)]
    pub fn pow_lazy<const G: usize>(&self, x: [B::V; G], e: u64) -> [B::V; G] {
        self.pow_with::<G, true>(x, e)
    }

    /// The one loop of [`ModLanes::pow`] and [`ModLanes::pow_lazy`]. The product is chosen
    /// by a constant, not passed as a closure: a closure is not `#[inline(always)]`, and
    /// the products must inline into the caller's entry point.
    #[inline(always)]
    fn pow_with<const G: usize, const LAZY: bool>(&self, x: [B::V; G], e: u64) -> [B::V; G] {
        if e == 0 {
            return [B::splat(self.scalar.one()); G];
        }
        let mut acc = x;
        // The top bit is consumed by starting from x itself.
        for bit in (0..63 - e.leading_zeros()).rev() {
            for a in acc.iter_mut() {
                *a = self.mul_as::<LAZY>(*a, *a);
            }
            if e >> bit & 1 == 1 {
                for (a, &b) in acc.iter_mut().zip(x.iter()) {
                    *a = self.mul_as::<LAZY>(*a, b);
                }
            }
        }
        acc
    }

    /// [`ModLanes::mul_lazy`] if `LAZY`, else [`ModLanes::mul`]: for loops compiled once
    /// per kind of product.
    #[inline(always)]
    pub fn mul_as<const LAZY: bool>(&self, a: B::V, b: B::V) -> B::V {
        if LAZY { self.mul_lazy(a, b) } else { self.mul(a, b) }
    }

    /// `Σ lanes mod p` (lanes below `p`: sixteen of them sum below `2^35`, inside `u64`).
    #[inline(always)]
    pub fn sum(&self, a: B::V) -> u32 {
        let total: u64 = B::to_array(a).iter().map(|&x| x as u64).sum();
        (total % self.modulus() as u64) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::{add_mod, mul_mod, sub_mod};
    use crate::kernels::SplitMix64;
    use crate::simd::Simd;
    use wide::u32x16;

    const PRIMES: [u32; 6] = [3, 5, 65_537, 998_244_353, 1_000_000_007, 2_147_483_647];

    /// Edge values then random residues, `16 * rounds` of them.
    fn operands(p: u32, rng: &mut SplitMix64, rounds: usize) -> Vec<u32x16> {
        let edges = [0, 1, 2, p / 2, p - 2, p - 1];
        let mut values: Vec<u32> = edges.iter().map(|&e| e % p).collect();
        values.extend((0..LANES * rounds).map(|_| rng.below(p as u64) as u32));
        values.chunks(LANES).map(|c| u32x16::from(std::array::from_fn::<u32, LANES, _>(|i| c[i % c.len()]))).collect()
    }

    /// Every pairing of edge values with each other, plus random pairs: `(a, b)` vectors.
    fn pairs(p: u32, seed: u64) -> Vec<(u32x16, u32x16)> {
        let mut rng = SplitMix64(seed);
        let edges = [0, 1, 2, p / 2, p - 2, p - 1].map(|e| e % p);
        // 36 edge pairs spread over three vectors, then random ones.
        let all: Vec<(u32, u32)> = edges.iter().flat_map(|&a| edges.iter().map(move |&b| (a, b))).collect();
        let mut out: Vec<(u32x16, u32x16)> = all
            .chunks(LANES)
            .map(|c| {
                let a = std::array::from_fn::<u32, LANES, _>(|i| c[i % c.len()].0);
                let b = std::array::from_fn::<u32, LANES, _>(|i| c[i % c.len()].1);
                (u32x16::from(a), u32x16::from(b))
            })
            .collect();
        let xs = operands(p, &mut rng, 64);
        let ys = operands(p, &mut rng, 64);
        out.extend(xs.into_iter().zip(ys));
        out
    }

    /// Asserts `lanes(a, b)[i] == scalar(a[i], b[i])` for every lane.
    fn lane_by_lane(name: &str, p: u32, lanes: impl Fn(u32x16, u32x16) -> u32x16, scalar: impl Fn(u32, u32) -> u32) {
        for (a, b) in pairs(p, p as u64) {
            let got = lanes(a, b).to_array();
            for (i, (&x, &y)) in a.to_array().iter().zip(&b.to_array()).enumerate() {
                assert_eq!(got[i], scalar(x, y), "{name}: p={p} lane {i}: a={x} b={y}");
            }
        }
    }

    #[test]
    fn add_sub_double_half_match_scalar() {
        for p in PRIMES {
            let m = ModLanes::<Portable>::new(p).unwrap();
            let p64 = p as u64;
            lane_by_lane("add", p, |a, b| m.add(a, b), |a, b| add_mod(a as u64, b as u64, p64) as u32);
            lane_by_lane("sub", p, |a, b| m.sub(a, b), |a, b| sub_mod(a as u64, b as u64, p64) as u32);
            lane_by_lane("double", p, |a, _| m.double(a), |a, _| add_mod(a as u64, a as u64, p64) as u32);
            let inv2 = p64.div_ceil(2);
            lane_by_lane("half", p, |a, _| m.half(a), |a, _| mul_mod(a as u64, inv2, p64) as u32);
        }
    }

    #[test]
    fn montgomery_products_match_scalar() {
        for p in PRIMES {
            let m = ModLanes::<Portable>::new(p).unwrap();
            let s = *m.scalar();
            lane_by_lane("mul", p, |a, b| m.mul(a, b), |a, b| s.mul(a, b));
            lane_by_lane("to_form", p, |a, _| m.to_form(a), |a, _| s.to_form(a));
            lane_by_lane("from_form", p, |a, _| m.from_form(a), |a, _| s.from_form(a));
        }
    }

    #[test]
    fn lazy_products_and_powers_stay_below_2p_and_agree_mod_p() {
        for p in [3u32, 5, 65_537, 998_244_353, 1_000_000_007, 1_073_741_789] {
            let m = ModLanes::<Portable>::new(p).unwrap();
            assert!(m.lazy_ok());
            let s = *m.scalar();
            let mut rng = SplitMix64(p as u64 + 1);
            let edges = [0, 1, 2, p - 1, p, p + 1, 2 * p - 2, 2 * p - 1];
            let mut values: Vec<u32> = edges.to_vec();
            values.extend((0..200).map(|_| rng.below(2 * p as u64) as u32));
            for chunk in values.chunks(LANES) {
                let a = u32x16::from(std::array::from_fn::<u32, LANES, _>(|i| chunk[i % chunk.len()]));
                for b in [a, u32x16::splat(2 * p - 1), u32x16::splat(p), a.shuffle(u32x16::splat(3))] {
                    let got = m.mul_lazy(a, b).to_array();
                    let reduced = m.reduce_2p(m.mul_lazy(a, b)).to_array();
                    for i in 0..LANES {
                        let (x, y) = (a.to_array()[i], b.to_array()[i]);
                        let expected = s.mul(x % p, y % p);
                        assert!(got[i] < 2 * p, "p={p} {x}·{y} gave {} >= 2p", got[i]);
                        assert_eq!(reduced[i], expected, "p={p} {x}·{y}");
                    }
                }
                for e in [1u64, 2, 10_000_000, p as u64 - 2, u64::MAX] {
                    let [got] = m.pow_lazy([a], e);
                    for (i, &g) in got.to_array().iter().enumerate() {
                        assert!(g < 2 * p);
                        assert_eq!(g % p, s.pow(a.to_array()[i] % p, e), "p={p} e={e}");
                    }
                }
            }
            assert!(!ModLanes::<Portable>::new(1_073_741_827).unwrap().lazy_ok()); // the first prime above 2^30
        }
    }

    #[test]
    fn unreduced_products_stay_below_2p_for_every_modulus() {
        // a·b < p·2^32 is the whole contract, up to p = 2^31 - 1: inputs below p, and one
        // below 2p times one below p (a lazy table entry times a reduced factor).
        for p in PRIMES {
            let m = ModLanes::<Portable>::new(p).unwrap();
            let s = *m.scalar();
            let mut rng = SplitMix64(p as u64 + 7);
            let edges = [0, 1, p / 2, p - 1];
            for round in 0..20 {
                let a: [u32; LANES] =
                    std::array::from_fn(|i| if round == 0 { edges[i % 4] } else { rng.below(2 * p as u64) as u32 });
                let b: [u32; LANES] =
                    std::array::from_fn(|i| if round == 0 { edges[i / 4] } else { rng.below(p as u64) as u32 });
                let got = m.mul_unreduced(u32x16::from(a), u32x16::from(b)).to_array();
                for i in 0..LANES {
                    assert!(got[i] < 2 * p, "p={p} {}·{} gave {} >= 2p", a[i], b[i], got[i]);
                    assert_eq!(got[i] % p, s.mul(a[i] % p, b[i]), "p={p} {}·{}", a[i], b[i]);
                }
            }
        }
    }

    #[test]
    fn products_accept_one_operand_up_to_the_documented_bound() {
        // a·b < p·2^32 is all REDC needs: a factor may exceed p when the other is small,
        // e.g. the largest u32 times 1 (used by from_form on any u32 value).
        for p in PRIMES {
            let m = ModLanes::<Portable>::new(p).unwrap();
            let s = *m.scalar();
            let a = u32x16::from(std::array::from_fn::<u32, LANES, _>(|i| u32::MAX - i as u32));
            let got = m.mul(a, u32x16::ONE).to_array();
            for (i, &g) in got.iter().enumerate() {
                assert_eq!(g, s.reduce((u32::MAX - i as u32) as u64), "p={p} lane {i}");
            }
        }
    }

    #[test]
    fn powers_match_scalar_for_every_group_size() {
        for p in PRIMES {
            let m = ModLanes::<Portable>::new(p).unwrap();
            let s = *m.scalar();
            let mut rng = SplitMix64(7 * p as u64);
            let forms: Vec<u32x16> = operands(p, &mut rng, 3).iter().map(|&x| m.to_form(x)).collect();
            for e in [0u64, 1, 2, 3, 10_000_000, p as u64 - 2, p as u64 - 1, u64::MAX] {
                let single = m.pow([forms[0]], e);
                let group = m.pow([forms[0], forms[1], forms[2], forms[3]], e);
                let results = single.iter().zip(&forms[..1]).chain(group.iter().zip(&forms[..4]));
                for (v, (got, x)) in results.enumerate() {
                    for i in 0..LANES {
                        let expected = s.pow(x.to_array()[i], e);
                        assert_eq!(got.to_array()[i], expected, "p={p} e={e} result {v} lane {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn streaming_stores_store_at_any_alignment() {
        let v = u32x16::from(std::array::from_fn::<u32, LANES, _>(|i| i as u32 + 1));
        let mut buffer = vec![0u32; 64];
        for offset in 0..LANES {
            buffer.fill(0);
            let dst: &mut [u32; LANES] = (&mut buffer[offset..offset + LANES]).try_into().unwrap();
            Portable::stream_store(dst, v);
            Portable::store_fence();
            assert_eq!(&buffer[offset..offset + LANES], &v.to_array(), "offset {offset}");
            assert_eq!(buffer.iter().filter(|&&x| x != 0).count(), LANES);
        }
    }

    #[test]
    fn sum_reduces_sixteen_large_lanes() {
        for p in PRIMES {
            let m = ModLanes::<Portable>::new(p).unwrap();
            let v = u32x16::splat(p - 1);
            assert_eq!(m.sum(v) as u64, 16 * (p as u64 - 1) % p as u64);
        }
        assert!(ModLanes::<Portable>::new(2).is_none() && ModLanes::<Portable>::new(1 << 31).is_none());
    }

    /// Every helper of `ModLanes<B>` on fixed inputs, in a fixed order.
    #[inline(always)]
    fn helpers_generic<B: Mont>(p: u32) -> Vec<[u32; LANES]> {
        let m = ModLanes::<B>::new(p).unwrap();
        let mut rng = SplitMix64(p as u64 ^ 0x1A2E5);
        let mut out = Vec::new();
        let edges = [0, 1, 2, p / 2, p - 2, p - 1];
        for round in 0..40 {
            let a: [u32; LANES] =
                std::array::from_fn(|i| if round < 6 { edges[(i + round) % 6] } else { rng.below(p as u64) as u32 });
            let b: [u32; LANES] =
                std::array::from_fn(|i| if round < 6 { edges[i % 6] } else { rng.below(p as u64) as u32 });
            let (x, y) = (B::load(&a), B::load(&b));
            for v in [m.add(x, y), m.sub(x, y), m.double(x), m.half(x), m.mul(x, y), m.to_form(x), m.from_form(x)] {
                out.push(B::to_array(v));
            }
            if m.lazy_ok() {
                let x2 = B::add(x, m.p());
                out.push(B::to_array(m.mul_lazy(x2, y)));
                out.push(B::to_array(m.reduce_2p(m.mul_lazy(x2, x2))));
                out.push(B::to_array(m.pow_lazy([x2, y], 10_000_000)[1]));
            }
            for e in [0, 1, 3, p as u64 - 2, u64::MAX] {
                let [u, v, w] = m.pow([x, y, m.to_form(x)], e);
                out.extend([u, v, w].map(|v| B::to_array(v)));
            }
            out.push([m.sum(x); LANES]);
        }
        out
    }

    crate::multiversion! {
        fn helpers(p: u32) -> Vec<[u32; LANES]> => helpers_generic;
    }

    #[test]
    fn every_backend_computes_what_the_portable_one_does() {
        for p in PRIMES.into_iter().chain([1_073_741_789]) {
            let expected = helpers_generic::<Portable>(p);
            for simd in Simd::tested() {
                assert!(helpers(simd, p) == expected, "{simd}: p={p}");
            }
        }
    }
}
