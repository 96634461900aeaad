//! The balanced-row power series of one Walsh character (PE 1015; the theory is
//! docs/theory/kayles.md §7–14).
//!
//! For a character `h` the block signs are `w(L) = (-1)^popcount(h & g(L))`, with `g` the
//! Dawson's Kayles values. In `u = t^2`, with `E = Σ_{j>=1} w(2j)·u^j` and
//! `O^2 = u·(Σ_{j>=0} w(2j+1)·u^j)^2`, the signed count of balanced rows of `2m` pins is
//!
//! ```text
//! c(m) = [u^m] sqrt( ((1+E)^2 - O^2) / ((1-E)^2 - O^2) )
//! ```
//!
//! Every variant returns `c(0..=m)` modulo an even modulus `M'` (the caller sums the 16
//! characters modulo `16·M` and divides by 16).
//!
//! # The forms the variants use
//!
//! * `reference` (docs/theory/kayles.md §11): the quotient by long division and the square
//!   root with the halving rule, modulo `2M'`. O(m^2).
//! * The Catalan form. Numerator minus denominator is exactly `4E`, so with `D` the
//!   denominator and `x = E/D` the series under the root is `1 + 4x`. Writing the root
//!   as `1 + 2T` gives `T + T^2 = x`, with `T_0 = 0` and
//!   `T_k = x_k - Σ_{0<i<k} T_i·T_{k-i}`: integer coefficients and no halving. Then
//!   `c(k) = 2·T_k` for `k >= 1`, so `T` modulo `M'/2` gives `c` modulo `M'`.
//! * `x` is rational. The signs are eventually periodic ([`BlockSigns`]), so with `P`
//!   their period in `u` both `E·(1-u^P)` and `Ô·(1-u^P)` are polynomials `A`, `B`, and
//!   `x = A·(1-u^P) / ((1-u^P-A)^2 - u·B^2)`, a quotient of two integer polynomials of
//!   degree below 100: its coefficients follow a linear recurrence ([`rational`]).
//! * `catalan-scalar`: the recurrence for `T` in `u128` modulo `M'/2`, O(m^2/4): the
//!   plain variant the benches measure against (`reference` is the tests' oracle).
//! * `catalan`: the same modulo each factor of `M'/2 = 2^k·q` ([`crate::arith::split`]): wrapping
//!   machine arithmetic for `2^k`, lazily reduced `u64` lanes for the odd `q`; the
//!   convolution as vectorised dot products. O(m^2/4).
//! * `newton`: `T <- T - (T^2 + T - x)/(2T + 1)` with the products by number-theoretic
//!   transforms ([`crate::kernels::ntt`]), O(m log m).

pub mod catalan;
pub mod catalan_scalar;
pub mod catalan_words;
pub mod check;
pub mod newton;
pub mod pairs;
pub mod rational;
pub mod reference;

pub use catalan::series_catalan;
pub use catalan_scalar::series_catalan_scalar;
pub use catalan_words::series_catalan_words;
pub use newton::series_newton;
pub use reference::series_reference;

use crate::kernels::variant_enum;
use crate::simd::Simd;

/// The largest modulus `M'` the series variants accept: the reference works modulo
/// `2·M'` in `u64` residues with `u128` products.
pub const SERIES_MODULUS_LIMIT: u64 = 1 << 62;

/// An eventually periodic sequence of block signs `w(L) = ±1`, `L >= 0`: explicit below
/// `preperiod`, then repeating with `period`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockSigns {
    /// `w(0 .. preperiod + period)`.
    head: Vec<i8>,
    preperiod: usize,
    period: usize,
}

impl BlockSigns {
    /// The signs `head[0..]` for `L < preperiod + period`, repeating with `period` from
    /// `preperiod` on.
    ///
    /// # Panics
    /// If `period` is 0, `head.len() != preperiod + period`, or a sign is not ±1.
    pub fn new(head: Vec<i8>, preperiod: usize, period: usize) -> Self {
        assert!(period > 0, "the period of the block signs must be positive");
        assert_eq!(head.len(), preperiod + period, "head must hold the preperiod and one period");
        assert!(head.iter().all(|&s| s == 1 || s == -1), "block signs must be ±1");
        Self { head, preperiod, period }
    }

    /// The same sequence with the shortest period and then the shortest preperiod that
    /// describe it (a character that ignores some bits of the Dawson values often repeats
    /// sooner than the values do, and a shorter description gives a shorter recurrence).
    pub fn minimized(&self) -> Self {
        // A period of the repeating tail must divide `self.period` (the tail is periodic
        // with both, hence with their gcd); take the smallest divisor that works, reading
        // the tail's one stored period cyclically. (The comparison first: it fails
        // within a few signs for most d, and is cheaper than the division.)
        let (p, pre) = (self.period, self.preperiod);
        let tail = &self.head[pre..];
        let period = if p <= 64 {
            // The tail as bits (bit l set: the sign at pre + l is -1), so that comparing
            // it with its rotation by d is one word operation: the 16 Dawson characters
            // (p = 34) are minimised at every solve.
            let mask = u64::MAX >> (64 - p);
            let bits = tail.iter().rev().fold(0u64, |bits, &s| bits << 1 | u64::from(s < 0));
            let rotated = |d: usize| if d == p { bits } else { (bits >> d | bits << (p - d)) & mask };
            (1..=p).find(|&d| rotated(d) == bits && p.is_multiple_of(d)).unwrap_or(p)
        } else {
            (1..=p)
                .find(|&d| {
                    (0..p).all(|l| tail[l] == tail[if l + d < p { l + d } else { l + d - p }]) && p.is_multiple_of(d)
                })
                .unwrap_or(p)
        };
        // Walk the preperiod back while the value one period later still agrees (all
        // indices below pre + p: the stored head).
        let mut preperiod = pre;
        while preperiod > 0 && self.head[preperiod - 1] == self.head[preperiod - 1 + period] {
            preperiod -= 1;
        }
        Self::new(self.head[..preperiod + period].to_vec(), preperiod, period)
    }

    /// The same sign for every block length.
    pub fn constant(sign: i8) -> Self {
        Self::new(vec![sign], 0, 1)
    }

    /// Signs with no periodic structure: `signs[L]` for `L < signs.len()`, then `+1`
    /// forever (series up to `u^m` only read `L <= 2m + 1`).
    pub fn from_prefix(signs: &[i8]) -> Self {
        let mut head = signs.to_vec();
        head.push(1);
        Self::new(head, signs.len(), 1)
    }

    /// `w(len)`.
    #[inline]
    pub fn sign(&self, len: usize) -> i8 {
        if len < self.head.len() {
            self.head[len]
        } else {
            self.head[self.preperiod + (len - self.preperiod) % self.period]
        }
    }

    /// `w(0..len)` as a vector: the head, then each sign copied from one period earlier
    /// (no division per sign, unlike [`BlockSigns::sign`]).
    pub fn materialize(&self, len: usize) -> Vec<i8> {
        let mut signs = Vec::with_capacity(len);
        self.materialize_into(&mut signs, len);
        signs
    }

    /// [`BlockSigns::materialize`] into `signs` (cleared first), reusing its memory.
    pub fn materialize_into(&self, signs: &mut Vec<i8>, len: usize) {
        signs.clear();
        signs.extend_from_slice(&self.head[..len.min(self.head.len())]);
        // From head.len() = preperiod + period on, L - period >= preperiod: w(L) = w(L - period).
        while signs.len() < len {
            signs.push(signs[signs.len() - self.period]);
        }
    }

    /// The first length from which the signs repeat.
    pub fn preperiod(&self) -> usize {
        self.preperiod
    }

    /// The period in block lengths.
    pub fn period(&self) -> usize {
        self.period
    }
}

variant_enum! {
    /// The character-series implementations.
    pub enum SeriesVariant {
        /// Long division, then the square root with the halving rule: O(m^2), the reference.
        Reference => "reference",
        /// `T + T^2 = x` with `x` from its recurrence, plain `u128` arithmetic: O(m^2/4).
        CatalanScalar => "catalan-scalar",
        /// `T + T^2 = x` modulo each factor `2^k`, `q` of the modulus, dot products in lanes.
        Catalan => "catalan",
        /// `T + T^2 = x` for 16 characters in 16-bit words and limbs, pair dot products
        /// (VNNI, or `vpmaddwd`), register-blocked (moduli `2^a·q`, `a <= 16`, `q < 2^21`; others run `catalan`).
        CatalanWords => "catalan-words",
        /// Newton's iteration for `T` with NTT products: O(m log m).
        Newton => "newton",
    }
}

impl SeriesVariant {
    /// `Σ_h c_h(0..=m) mod modulus` over the characters whose block signs are
    /// `characters` (the game sums all 16; the checks also run them one at a time).
    ///
    /// # Panics
    /// If `modulus` is odd, below 2 or not below [`SERIES_MODULUS_LIMIT`], or (`newton`)
    /// if `m` is beyond [`newton::MAX_HALF_PINS`].
    pub fn run(self, characters: &[BlockSigns], m: usize, modulus: u64) -> Vec<u64> {
        self.run_on(Simd::best(), characters, m, modulus)
    }

    /// [`SeriesVariant::run`] on `simd`'s backend (the answer is the same on every one).
    ///
    /// # Panics
    /// As [`SeriesVariant::run`].
    pub fn run_on(self, simd: Simd, characters: &[BlockSigns], m: usize, modulus: u64) -> Vec<u64> {
        assert!(
            modulus >= 2 && modulus.is_multiple_of(2) && modulus < SERIES_MODULUS_LIMIT,
            "series modulus {modulus} must be even, at least 2 and below 2^62"
        );
        match self {
            SeriesVariant::Reference => {
                let mut sum = vec![0u64; m + 1];
                for signs in characters {
                    let c = series_reference(&signs.materialize(2 * m + 2), m, modulus);
                    for (s, v) in sum.iter_mut().zip(c) {
                        *s = ((*s as u128 + v as u128) % modulus as u128) as u64;
                    }
                }
                sum
            }
            SeriesVariant::CatalanScalar => series_catalan_scalar(characters, m, modulus),
            SeriesVariant::Catalan => series_catalan(simd, characters, m, modulus),
            SeriesVariant::CatalanWords => series_catalan_words(simd, characters, m, modulus),
            SeriesVariant::Newton => series_newton(simd, characters, m, modulus),
        }
    }

    /// How many characters one call should get, so that the lanes are full: the game
    /// hands each job this many characters.
    pub fn batch_width(self) -> usize {
        match self {
            SeriesVariant::Catalan => crate::arith::split::LANES,
            SeriesVariant::CatalanWords => pairs::PAIR_LANES,
            _ => 1,
        }
    }
}

/// `Σ_h c_h(0..=m) mod modulus` from `Σ_h T_h(0..=m) mod modulus/2` over `characters`
/// characters: `c_h(0) = 1` and `c_h(k) = 2·T_h(k)` for `k >= 1`.
pub(crate) fn c_sum_from_t_sum(t_sum: Vec<u64>, characters: usize, modulus: u64) -> Vec<u64> {
    // Maps in place (same element type): no second allocation.
    t_sum
        .into_iter()
        .enumerate()
        .map(|(k, t)| {
            debug_assert!(t < modulus / 2);
            if k == 0 { (characters as u64) % modulus } else { 2 * t }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SplitMix64;

    #[test]
    fn minimized_signs_are_the_same_sequence_with_the_shortest_description() {
        let mut rng = SplitMix64(0x5E);
        // Periods on both sides of the 64 signs the bit path takes, built from shorter
        // true periods so that there is something to find.
        for (preperiod, true_period, copies) in [(0, 1, 1), (5, 1, 7), (53, 17, 2), (53, 34, 1), (3, 8, 8), (9, 33, 2)]
        {
            let tail: Vec<i8> = (0..true_period).map(|_| if rng.next_u64() & 1 == 0 { 1 } else { -1 }).collect();
            let mut head: Vec<i8> = (0..preperiod).map(|_| if rng.next_u64() & 1 == 0 { 1 } else { -1 }).collect();
            for _ in 0..copies {
                head.extend(&tail);
            }
            let signs = BlockSigns::new(head, preperiod, true_period * copies);
            let min = signs.minimized();
            let len = 4 * (preperiod + true_period * copies) + 8;
            assert_eq!(min.materialize(len), signs.materialize(len), "{preperiod}+{true_period}x{copies}");
            // The shortest period that the signs show (the random tail may repeat sooner).
            let shortest = (1..=true_period)
                .find(|&d| {
                    true_period.is_multiple_of(d) && (0..true_period).all(|l| tail[l] == tail[(l + d) % true_period])
                })
                .unwrap();
            assert_eq!(min.period(), shortest, "{preperiod}+{true_period}x{copies}");
            assert!(min.preperiod() <= preperiod);
        }
    }
}
