//! The ring of the words: `N = 2^a·q` split by Chinese remainders, the balanced
//! reduction modulo `q`, and the lane sums of `T` brought back to residues modulo `N`.

use crate::arith::split::SplitModulus;
use crate::simd::dots::DoubleVec;

/// The moduli this variant takes: `N = 2^a·q` with `a <= 16` and odd `q < 2^21`.
#[derive(Clone, Copy, Debug)]
pub struct WordRing {
    split: SplitModulus,
    /// `2^a - 1`.
    mask: u32,
    q: f64,
    q_inverse: f64,
    /// `(2^a)^{-1} mod q`.
    inverse_of_pow2: f64,
}

impl WordRing {
    /// The largest power of two handled in words.
    pub const MAX_TWO_BITS: u32 = 16;
    /// The odd factor's bound: balanced values within `2^20`, limbs within `±1024`.
    pub const ODD_LIMIT: u64 = 1 << 21;

    /// The ring for `n = M'/2`, or `None` if `n` is outside the range of the words.
    pub fn new(n: u64) -> Option<Self> {
        let split = SplitModulus::new(n);
        if split.two_bits > Self::MAX_TWO_BITS || split.odd >= Self::ODD_LIMIT {
            return None;
        }
        let q = split.odd as f64;
        let inverse_of_pow2 = split.inverse_of_pow2() as f64;
        Some(Self { split, mask: ((1u64 << split.two_bits) - 1) as u32, q, q_inverse: 1.0 / q, inverse_of_pow2 })
    }

    /// `N = 2^a·q`.
    pub(super) fn modulus(&self) -> u64 {
        self.split.odd << self.split.two_bits
    }

    /// `v - q·round(v/q)` for integers `|v| <= 2^52`: the result is an integer with
    /// `|r| <= q/2 + 1` (the quotient's estimate is off by at most `|v|·2^-52 / q + 1/2`
    /// from `v/q`), and exact (the fused multiply-add rounds once, to an integer that
    /// `f64` holds).
    #[inline(always)]
    pub(super) fn balance<D: DoubleVec>(&self, v: D) -> D {
        (v * D::splat(self.q_inverse)).round().neg_mul_add(D::splat(self.q), v)
    }

    // The scalar forms: the reference for `combine_all` in the tests.
    #[cfg(test)]
    /// The residue in `[0, q)` of an integer `|v| < 2^52`, without branches (their
    /// outcomes are data: mispredicted half the time, they cost more than the rest).
    #[inline(always)]
    fn residue_odd(&self, v: f64) -> u64 {
        let q = self.split.odd as i64;
        // The estimate of v/q is off by less than 1/2: r is in (-q, 2q).
        let r = (-(v * self.q_inverse).floor()).mul_add(self.q, v) as i64;
        let r = r + ((r >> 63) & q);
        (r - (((q - 1 - r) >> 63) & q)) as u64
    }

    #[cfg(test)]
    /// The residue modulo `N` of `v2 mod 2^a` and `vq mod q` (Chinese remainders),
    /// `r = v2 + 2^a·((vq - v2)·(2^a)^{-1} mod q)`, with `f64` steps instead of divisions
    /// (every product below `2^42`).
    #[inline(always)]
    fn combine(&self, v2: u32, vq: f64) -> u64 {
        let v2 = (v2 & self.mask) as f64;
        let diff = self.residue_odd(self.residue_odd(vq) as f64 - v2);
        (v2 as u64) + (self.residue_odd(diff as f64 * self.inverse_of_pow2) << self.split.two_bits)
    }
}

impl WordRing {
    /// `WordRing::combine` on every packed lane sum of `slots` (low half: the `2^a`
    /// sum, wrapping; high half: the `Z/q` sum, an `i32`), in place.
    ///
    /// The same Chinese remainders, but every step an exact `f64` operation on a block
    /// of eight, so that the compiler vectorises it (the scalar form, with its integer
    /// conversions per step, cost as much as 20 outputs of the kernel at 1000 pins, by
    /// `cargo bench --bench series`). Exactness: `|vq| <= 16·(2^20 + 1) < 2^25` and
    /// `(q - 1)·(2^a)^{-1} mod q < 2^42` are integers far below `2^52`, so every product,
    /// quotient estimate and subtraction below is exact or off by less than one before
    /// the `floor`, and the corrections bring each residue into `[0, q)`. Inlined: inside
    /// an AVX2 or AVX-512 entry point `f64::mul_add` and `floor` are one instruction each,
    /// at the baseline library calls.
    #[inline(always)]
    pub(super) fn combine_all(&self, slots: &mut [u64]) {
        const BLOCK: usize = 8;
        let mut chunks = slots.chunks_exact_mut(BLOCK);
        for chunk in &mut chunks {
            self.combine_block(chunk);
        }
        self.combine_block(chunks.into_remainder());
    }

    /// [`WordRing::combine_all`] on at most eight slots (a function, not a closure, so
    /// that it is inlined into the entry point and gets its instruction set).
    #[inline(always)]
    fn combine_block(&self, chunk: &mut [u64]) {
        let (inverse, pow2) = (self.inverse_of_pow2, (1u64 << self.split.two_bits) as f64);
        let mut out = [0f64; 8];
        for (o, &slot) in out.iter_mut().zip(chunk.iter()) {
            let v2 = ((slot as u32) & self.mask) as f64;
            let vq = (slot >> 32) as u32 as i32 as f64;
            let diff = self.residue(self.residue(vq) - v2);
            *o = self.residue(diff * inverse).mul_add(pow2, v2);
        }
        for (slot, &o) in chunk.iter_mut().zip(&out) {
            *slot = o as u64;
        }
    }

    /// A value `v` with `|v| < 2^52` to `[0, q)`: the estimate `floor(v/q)` is off by at
    /// most one either way.
    #[inline(always)]
    fn residue(&self, v: f64) -> f64 {
        let q = self.q;
        let r = (-(v * self.q_inverse).floor()).mul_add(q, v);
        let r = if r < 0.0 { r + q } else { r };
        if r >= q { r - q } else { r }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SplitMix64;

    /// The vectorised Chinese remainders against the scalar ones, on the extremes of the
    /// packed sums (the `Z/q` sum up to `±16·(2^20 + 1)`, any `2^a` word) and random
    /// ones, for moduli across the words' range, with a length that leaves a remainder.
    #[test]
    fn combine_all_matches_combine() {
        let mut rng = SplitMix64(0xC0B1);
        let bound = 16 * ((1i64 << 20) + 1);
        for n in [8 * 1_000_000_000u64, (1 << 16) * ((1 << 21) - 1), 3, 1 << 16, 8 * 1953125, 5 * 7 * 11 * 13 * 17] {
            let ring = WordRing::new(n).unwrap();
            let mut slots: Vec<u64> = [-bound, -bound + 1, -1, 0, 1, bound - 1, bound, (ring.q as i64) / 2]
                .iter()
                .flat_map(|&vq| [0u32, 1, 0xFFFF, u32::MAX].map(move |v2| v2 as u64 | (vq as i32 as u32 as u64) << 32))
                .collect();
            slots.extend((0..203).map(|_| {
                let vq = rng.below(2 * bound as u64 + 1) as i64 - bound;
                rng.next_u64() as u32 as u64 | (vq as i32 as u32 as u64) << 32
            }));
            let expected: Vec<u64> =
                slots.iter().map(|&s| ring.combine(s as u32, (s >> 32) as u32 as i32 as f64)).collect();
            ring.combine_all(&mut slots);
            assert_eq!(slots, expected, "n = {n}");
        }
    }

    #[test]
    fn the_word_ring_takes_exactly_its_moduli() {
        for n in [1u64, 3, 8, 8 * 1_000_000_000, (1 << 16) * ((1 << 21) - 1), 1 << 16, (1 << 21) - 2] {
            assert!(WordRing::new(n).is_some(), "{n}");
        }
        for n in [1u64 << 17, 3 << 17, 8 * ((1 << 21) + 1), 8 * 1_000_000_007] {
            assert!(WordRing::new(n).is_none(), "{n}");
        }
    }
}
