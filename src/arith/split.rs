//! Arithmetic modulo `N = 2^k·q` (`q` odd) split into its two CRT factors, eight
//! characters at a time (one lane each).
//!
//! Why split: `N = 8M` is up to 61 bits, and a product of two such residues needs 122.
//! But `Z/N ≅ Z/2^k × Z/q`, and each factor has a cheap arithmetic of its own:
//!
//! * `Z/2^k`: plain wrapping machine arithmetic modulo `2^64` is a ring homomorphism
//!   onto `Z/2^k` for `k <= 64`, so sums of products are accumulated with wrapping
//!   adds and masked once at the end: no reduction at all. For `k <= 32` the operands
//!   fit 32 bits and one 32×32→64 multiply (`vpmuludq`) gives the product.
//! * `Z/q` with `q < 2^31`: products are below `2^62`, accumulated in `u64` lanes and
//!   folded by one conditional subtraction of `F` (the largest multiple of `q` below
//!   `2^63`) every `fold_every` products, so a dot product costs a multiply and an add per
//!   term. Larger `q` (up to `2^58`) accumulates in `u128` lanes, which is slower but
//!   rare (a modulus with a big odd part).
//!
//! The accumulators never see a reduction inside the hot loop except the fold; every
//! bound is argued where it is used.

use crate::simd::dots::RingVec;
pub use crate::simd::dots::{Lanes, RING_LANES as LANES};

/// A factor ring `Z/r` of the split modulus, with lane-wise dot products. Values live
/// in the ring's internal form (plain residues, or Montgomery forms for [`OddSmall`]);
/// [`LaneRing::encode`] and [`LaneRing::decode`] convert. The lanes are the backend's
/// `V` (eight `u64`s).
pub trait LaneRing<V: RingVec>: Sync {
    /// The dot-product accumulator of the lanes.
    type Acc: Copy;
    /// A zeroed (and folded) accumulator.
    fn zero(&self) -> Self::Acc;
    /// Products that may be added to a folded accumulator before it must be folded.
    fn fold_every(&self) -> usize;
    /// `acc += a·b` lane by lane (lazily: no reduction).
    fn mul_add(acc: &mut Self::Acc, a: &Lanes, b: &Lanes);
    /// Brings the accumulator back under its bound, keeping its class modulo `r`.
    fn fold(&self, acc: &mut Self::Acc);
    /// `acc = 2·acc` for a folded accumulator, leaving it folded.
    fn double(&self, acc: &mut Self::Acc);
    /// The values (internal form, reduced) of an accumulator that received at most
    /// [`LaneRing::fold_every`] products since it was last folded.
    fn finish(&self, acc: Self::Acc) -> Lanes;
    /// `a - b` lane by lane.
    fn sub(&self, a: &Lanes, b: &Lanes) -> Lanes;
    /// The internal form of `v mod r`.
    fn encode(&self, v: i64) -> u64;
    /// The residue in `[0, r)` of an internal form.
    fn decode(&self, v: u64) -> u64;
    /// `Σ lanes mod r`, as a residue in `[0, r)`.
    fn lane_sum(&self, v: &Lanes) -> u64;

    /// `acc += Σ_j a[j]·b[len-1-j]` lane by lane (a convolution term, `b` read
    /// backwards), folding every [`LaneRing::fold_every`] products and at the end.
    #[inline(always)]
    fn accumulate_reversed(&self, acc: &mut Self::Acc, a: &[Lanes], b: &[Lanes]) {
        assert_eq!(a.len(), b.len());
        let every = self.fold_every().min(a.len().max(1));
        for (block_a, block_b) in a.chunks(every).zip(b.rchunks(every)) {
            for (x, y) in block_a.iter().zip(block_b.iter().rev()) {
                Self::mul_add(acc, x, y);
            }
            self.fold(acc);
        }
    }

    /// `Σ_j a[j]·b[len-1-j]` lane by lane, reduced.
    #[inline(always)]
    fn dot_reversed(&self, a: &[Lanes], b: &[Lanes]) -> Lanes {
        let mut acc = self.zero();
        self.accumulate_reversed(&mut acc, a, b);
        self.finish(acc)
    }
}

/// `Z/2^k` for `k <= 32`: residues below `2^32`, so one widening 32-bit multiply each.
#[derive(Clone, Copy, Debug)]
pub struct Pow2Narrow {
    mask: u64,
}

/// `Z/2^k` for `32 < k <= 64`: full wrapping 64-bit products.
#[derive(Clone, Copy, Debug)]
pub struct Pow2Wide {
    mask: u64,
}

fn pow2_mask(bits: u32) -> u64 {
    if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 }
}

macro_rules! pow2_ring_common {
    () => {
        type Acc = V;
        #[inline(always)]
        fn zero(&self) -> V {
            V::zero()
        }
        // Wrapping sums never need folding: arithmetic modulo 2^64 maps onto Z/2^k.
        #[inline(always)]
        fn fold_every(&self) -> usize {
            usize::MAX
        }
        #[inline(always)]
        fn fold(&self, _acc: &mut V) {}
        #[inline(always)]
        fn double(&self, acc: &mut V) {
            *acc = acc.add(*acc);
        }
        #[inline(always)]
        fn finish(&self, acc: V) -> Lanes {
            acc.and(V::splat(self.mask)).store()
        }
        #[inline(always)]
        fn sub(&self, a: &Lanes, b: &Lanes) -> Lanes {
            V::load(a).sub(V::load(b)).and(V::splat(self.mask)).store()
        }
        #[inline(always)]
        fn encode(&self, v: i64) -> u64 {
            (v as u64) & self.mask
        }
        #[inline(always)]
        fn decode(&self, v: u64) -> u64 {
            v
        }
        #[inline(always)]
        fn lane_sum(&self, v: &Lanes) -> u64 {
            v.0.iter().fold(0u64, |s, &x| s.wrapping_add(x)) & self.mask
        }
    };
}

impl<V: RingVec> LaneRing<V> for Pow2Narrow {
    pow2_ring_common!();
    #[inline(always)]
    fn mul_add(acc: &mut V, a: &Lanes, b: &Lanes) {
        // Residues are below 2^32: the 32×32→64 product is exact (vpmuludq).
        *acc = acc.add(V::load(a).mul_low32(V::load(b)));
    }
}

impl<V: RingVec> LaneRing<V> for Pow2Wide {
    pow2_ring_common!();
    #[inline(always)]
    fn mul_add(acc: &mut V, a: &Lanes, b: &Lanes) {
        *acc = acc.add(V::load(a).mul_wrapping(V::load(b)));
    }
}

/// `Z/q` for odd `3 <= q < 2^31`, in Montgomery form (`a` stored as `a·2^32 mod q`):
/// `u64` lane accumulators below `2F`, where `F` is the largest multiple of `q` not
/// above `2^63 - 1`, reduced at the end by a Montgomery REDC in the lanes.
///
/// With both factors in Montgomery form a sum of products is `(Σ a·b)·2^64`, and one
/// REDC (a division by `2^32` modulo `q`) leaves `(Σ a·b)·2^32`: the form of the result.
#[derive(Clone, Copy, Debug)]
pub struct OddSmall {
    q: u64,
    fold_at: u64,
    fold_every: usize,
    mont: crate::arith::Montgomery32,
    /// `2^32 mod q`, to fold a 64-bit accumulator below `q·2^32` before the REDC.
    r_mod_q: u64,
}

impl OddSmall {
    /// The largest odd factor (exclusive) handled with `u64` accumulators.
    pub const LIMIT: u64 = 1 << 31;

    /// The ring `Z/q`, for odd `3 <= q < 2^31`.
    pub fn new(q: u64) -> Self {
        assert!(q >= 3 && q % 2 == 1 && q < Self::LIMIT, "odd factor {q} out of range");
        let fold_at = ((1u64 << 63) - 1) / q * q;
        // Invariant: a folded accumulator is below F. A block adds at most K·(q-1)^2
        // with K = floor(F / (q-1)^2) >= 1 (q < 2^31 gives (q-1)^2 < 2^62 < F), so the
        // accumulator stays below F + K·(q-1)^2 <= 2F < 2^64: no overflow, and one
        // conditional subtraction of F folds it.
        let largest_product = (q - 1) * (q - 1);
        let fold_every = (fold_at / largest_product) as usize;
        let mont = crate::arith::Montgomery32::new(q).expect("odd 3 <= q < 2^31");
        Self { q, fold_at, fold_every, mont, r_mod_q: (1u64 << 32) % q }
    }

    /// `x mod q` for `x < 2q` in every lane.
    #[inline(always)]
    fn reduce_once<V: RingVec>(&self, x: V) -> V {
        x.min(x.sub(V::splat(self.q)))
    }
}

impl<V: RingVec> LaneRing<V> for OddSmall {
    type Acc = V;
    #[inline(always)]
    fn zero(&self) -> V {
        V::zero()
    }
    #[inline(always)]
    fn fold_every(&self) -> usize {
        self.fold_every
    }
    #[inline(always)]
    fn mul_add(acc: &mut V, a: &Lanes, b: &Lanes) {
        // a, b < q < 2^31: the product is below 2^62 and exact in one vpmuludq.
        *acc = acc.add(V::load(a).mul_low32(V::load(b)));
    }
    #[inline(always)]
    fn fold(&self, acc: &mut V) {
        // acc < 2F: subtract F when acc >= F (the min picks acc - F unless it wrapped).
        *acc = acc.min(acc.sub(V::splat(self.fold_at)));
    }
    #[inline(always)]
    fn double(&self, acc: &mut V) {
        // Folded, acc < F; doubled it is below 2F, and one fold brings it under F.
        *acc = acc.add(*acc);
        self.fold(acc);
    }
    #[inline(always)]
    fn finish(&self, acc: V) -> Lanes {
        // acc < 2F < 2^64. First t = hi·(2^32 mod q) + lo ≡ acc, with
        // t <= (2^32 - 1)(q - 1) + 2^32 - 1 < q·2^32, the range REDC needs.
        let low_mask = V::splat(u32::MAX as u64);
        let t = acc.shr32().mul_low32(V::splat(self.r_mod_q)).add(acc.and(low_mask));
        // REDC: m = t·(-q^-1) mod 2^32 makes t + m·q divisible by 2^32, and
        // (t + m·q)/2^32 < 2q (t + m·q < 2q·2^32 < 2^64): one conditional subtraction.
        let m = t.mul_low32(V::splat(self.mont.neg_p_inv() as u64));
        let u = t.add(m.mul_low32(V::splat(self.q))).shr32();
        self.reduce_once(u).store()
    }
    #[inline(always)]
    fn sub(&self, a: &Lanes, b: &Lanes) -> Lanes {
        // a + q - b < 2q for forms below q.
        self.reduce_once(V::load(a).add(V::splat(self.q)).sub(V::load(b))).store()
    }
    #[inline(always)]
    fn encode(&self, v: i64) -> u64 {
        self.mont.to_form(v.rem_euclid(self.q as i64) as u32) as u64
    }
    #[inline(always)]
    fn decode(&self, v: u64) -> u64 {
        self.mont.from_form(v as u32) as u64
    }
    #[inline(always)]
    fn lane_sum(&self, v: &Lanes) -> u64 {
        // Eight forms below 2^31: the sum is below 2^34 < q·2^32, a valid REDC input, and
        // REDC turns the form (Σ a)·2^32 into the plain Σ a.
        self.mont.reduce(v.0.iter().sum()) as u64
    }
}

/// `Z/q` for odd `2^31 <= q < 2^61`: plain residues, `u128` lane accumulators.
#[derive(Clone, Copy, Debug)]
pub struct OddLarge {
    q: u64,
}

impl OddLarge {
    /// The largest odd factor accepted: `8M` with `M <= 2^58 - 1` is below `2^61`.
    pub const LIMIT: u64 = 1 << 61;

    /// Products accumulated between folds: each is below `2^122` (`q < 2^61`), so 32 of
    /// them plus a folded value below `2q` stay below `2^127`.
    const FOLD_EVERY: usize = 32;

    /// The ring `Z/q` for odd `3 <= q < 2^61`.
    pub fn new(q: u64) -> Self {
        assert!(q >= 3 && q % 2 == 1 && q < Self::LIMIT, "odd factor {q} out of range");
        Self { q }
    }
}

impl<V: RingVec> LaneRing<V> for OddLarge {
    type Acc = [u128; LANES];
    #[inline(always)]
    fn zero(&self) -> [u128; LANES] {
        [0; LANES]
    }
    #[inline(always)]
    fn fold_every(&self) -> usize {
        Self::FOLD_EVERY
    }
    #[inline(always)]
    fn mul_add(acc: &mut [u128; LANES], a: &Lanes, b: &Lanes) {
        for ((sum, &x), &y) in acc.iter_mut().zip(&a.0).zip(&b.0) {
            *sum += x as u128 * y as u128;
        }
    }
    #[inline(always)]
    fn fold(&self, acc: &mut [u128; LANES]) {
        for v in acc.iter_mut() {
            *v %= self.q as u128;
        }
    }
    #[inline(always)]
    fn double(&self, acc: &mut [u128; LANES]) {
        // Folded values are below q: doubled, below 2q, which the next fold tolerates.
        for v in acc.iter_mut() {
            *v *= 2;
        }
    }
    #[inline(always)]
    fn finish(&self, acc: [u128; LANES]) -> Lanes {
        Lanes(acc.map(|v| (v % self.q as u128) as u64))
    }
    #[inline(always)]
    fn sub(&self, a: &Lanes, b: &Lanes) -> Lanes {
        Lanes(std::array::from_fn(|l| {
            let (x, y) = (a.0[l], b.0[l]);
            if x >= y { x - y } else { x + self.q - y }
        }))
    }
    #[inline(always)]
    fn encode(&self, v: i64) -> u64 {
        v.rem_euclid(self.q as i64) as u64
    }
    #[inline(always)]
    fn decode(&self, v: u64) -> u64 {
        v
    }
    #[inline(always)]
    fn lane_sum(&self, v: &Lanes) -> u64 {
        (v.0.iter().map(|&x| x as u128).sum::<u128>() % self.q as u128) as u64
    }
}

/// `N = 2^k·q` with `q` odd.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitModulus {
    /// `k`, the exponent of 2 in `N`.
    pub two_bits: u32,
    /// The odd part `q` (1 when `N` is a power of two).
    pub odd: u64,
}

impl SplitModulus {
    /// Splits `n >= 1`.
    pub fn new(n: u64) -> Self {
        assert!(n >= 1);
        let two_bits = n.trailing_zeros();
        Self { two_bits, odd: n >> two_bits }
    }

    /// The residue modulo `N` of `r2 mod 2^k` and `rq mod q` (Chinese remainders):
    /// `r = r2 + 2^k·((rq - r2)·(2^k)^{-1} mod q)`.
    pub fn combine(&self, r2: u64, rq: u64, inverse_of_pow2: u64) -> u64 {
        if self.odd == 1 {
            return r2;
        }
        if self.odd < 1 << 32 {
            // Everything below 2^64: operands below q < 2^32 multiply within u64.
            let q = self.odd;
            let diff = (rq + q - r2 % q) % q;
            return r2 + ((diff * inverse_of_pow2 % q) << self.two_bits);
        }
        let q = self.odd as u128;
        let diff = (rq as u128 + q - r2 as u128 % q) % q;
        let t = diff * inverse_of_pow2 as u128 % q;
        r2 + ((t as u64) << self.two_bits)
    }

    /// `(2^k)^{-1} mod q` (0 when `q = 1`).
    pub fn inverse_of_pow2(&self) -> u64 {
        if self.odd == 1 {
            return 0;
        }
        let pow2 = crate::arith::pow_mod(2, self.two_bits as u64, self.odd);
        crate::arith::inv_mod(pow2, self.odd).expect("2^k is invertible modulo an odd q")
    }
}

impl Pow2Narrow {
    /// `Z/2^k`, `k <= 32`.
    pub fn new(bits: u32) -> Self {
        assert!(bits <= 32);
        Self { mask: pow2_mask(bits) }
    }
}

impl Pow2Wide {
    /// `Z/2^k`, `k <= 64`.
    pub fn new(bits: u32) -> Self {
        assert!(bits <= 64);
        Self { mask: pow2_mask(bits) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SplitMix64;
    use crate::simd::Simd;
    use crate::simd::dots::Dots;

    fn lanes(rng: &mut SplitMix64, r: u64) -> Lanes {
        Lanes(std::array::from_fn(|_| rng.below(r)))
    }

    /// Dot products, doubling and subtraction at the largest residues, long enough to
    /// fold many times, against u128 arithmetic.
    #[inline(always)]
    fn check_ring<V: RingVec, R: LaneRing<V>>(ring: &R, r: u64) {
        let mut rng = SplitMix64(r);
        let encode = |v: u64| ring.encode(v as i64);
        for len in [0usize, 1, 2, 7, 8, 9, 63, 64, 65, 300] {
            let plain = |rng: &mut SplitMix64, i: usize, every: usize| -> Lanes {
                if i.is_multiple_of(every) { Lanes([r - 1; LANES]) } else { lanes(rng, r) }
            };
            let a: Vec<Lanes> = (0..len).map(|i| plain(&mut rng, i, 3)).collect();
            let b: Vec<Lanes> = (0..len).map(|i| plain(&mut rng, i, 2)).collect();
            let forms = |v: &[Lanes]| -> Vec<Lanes> { v.iter().map(|x| Lanes(x.0.map(encode))).collect() };
            let (fa, fb) = (forms(&a), forms(&b));
            let mut acc = ring.zero();
            ring.accumulate_reversed(&mut acc, &fa, &fb);
            ring.double(&mut acc);
            if len > 0 {
                R::mul_add(&mut acc, &fa[0], &fb[0]);
            }
            let got = ring.finish(acc);
            for l in 0..LANES {
                let dot = a
                    .iter()
                    .zip(b.iter().rev())
                    .fold(0u128, |s, (x, y)| (s + x.0[l] as u128 * y.0[l] as u128) % r as u128);
                let extra = if len > 0 { a[0].0[l] as u128 * b[0].0[l] as u128 % r as u128 } else { 0 };
                assert_eq!(ring.decode(got.0[l]) as u128, (2 * dot + extra) % r as u128, "r={r} len={len} lane={l}");
            }
        }
        let (top, one) = (Lanes([encode(r - 1); LANES]), Lanes([encode(1); LANES]));
        assert_eq!(ring.decode(ring.sub(&Lanes([encode(0); LANES]), &top).0[0]), 1);
        assert_eq!(ring.decode(ring.sub(&top, &one).0[3]), r - 2);
        assert_eq!(ring.decode(ring.encode(-1)), r - 1);
        assert_eq!(ring.lane_sum(&top) as u128, 8 * (r as u128 - 1) % r as u128);
    }

    #[inline(always)]
    fn every_ring_generic<B: Dots>(_unit: ()) {
        for bits in [1u32, 3, 12, 31, 32] {
            check_ring::<B::Ring, _>(&Pow2Narrow { mask: pow2_mask(bits) }, 1 << bits);
        }
        for bits in [33u32, 40, 61] {
            check_ring::<B::Ring, _>(&Pow2Wide { mask: pow2_mask(bits) }, 1 << bits);
        }
        for q in [3u64, 5, 1_953_125, 999_999_937, 1_000_000_007, (1 << 31) - 1] {
            check_ring::<B::Ring, _>(&OddSmall::new(q), q);
        }
        for q in [(1u64 << 31) + 1, (1 << 58) - 1, (1 << 61) - 1] {
            check_ring::<B::Ring, _>(&OddLarge::new(q), q);
        }
    }

    crate::simd::multiversion! {
        fn every_ring(unit: ()) => every_ring_generic;
    }

    #[test]
    fn every_ring_matches_u128_arithmetic_at_its_edges() {
        for simd in Simd::tested() {
            every_ring(simd, ());
        }
    }

    #[test]
    fn chinese_remainders_recombine() {
        for n in [8u64, 6, 8_000_000_000, 8 * 1_000_000_007, 8 * ((1 << 58) - 1), 1 << 35] {
            let split = SplitModulus::new(n);
            let inv = split.inverse_of_pow2();
            for v in [0, 1, n / 3, n - 1] {
                let r2 = v & pow2_mask(split.two_bits);
                let got = split.combine(r2, v % split.odd, inv);
                assert_eq!(got, v, "n={n}");
            }
        }
    }
}
