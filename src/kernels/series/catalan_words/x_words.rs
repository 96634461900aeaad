//! The `x` recurrence in word planes, by pairwise dot products ([`XPath::Words`](super::XPath)).

use super::rows::{Plane, Planes, Rows};
use super::windows::karatsuba_dots;
use super::{Coefficient, LIMB, LOW_X, NEW_X, R, WordRing, X_VALUES, XSeries, doubles};
use crate::kernels::series::rational::{LANES16, RationalLanes};
use crate::simd::dots::{DoubleVec, PairRow, PairVec};

/// The `x` recurrence, one block of `R` outputs at a time, into a ring of rows.
pub(super) struct XRecurrence<'a, P: PairVec> {
    ring: &'a WordRing,
    num: &'a [[i32; LANES16]],
    /// `den_1, den_2` for the `f64` path.
    newest: [Coefficient<P>; NEW_X],
    /// `(den_i, den_{i+1})` for `i = NEW_X + 1, NEW_X + 3, ...`: swapped, with the pair
    /// `(x_{k-i-1}, x_{k-i})` the dot product adds both terms. The first `LOW_STEPS`
    /// are summed per output, the others blocked.
    den_pairs: Vec<PairRow>,
    /// Coefficient `j` is at index `j + offset` of the ring (so that `j < 0` reads the
    /// ring's zero rows).
    offset: usize,
    planes: Planes<'a>,
    /// `x_{k-1}, x_{k-2}` and the words of `x_{k-1}`.
    last: [Coefficient<P>; NEW_X],
    last_words: [P; 3],
    /// `x_k` at `k % X_VALUES`, for `T` (at most two blocks behind).
    values: [Coefficient<P>; X_VALUES],
}

impl<'a, P: PairVec> XRecurrence<'a, P> {
    /// Den pairs summed one output at a time: the terms `NEW_X < i <= LOW_X`.
    const LOW_STEPS: usize = (LOW_X - NEW_X) / 2;

    #[inline(always)]
    pub(super) fn new(ring: &'a WordRing, rational: &'a RationalLanes, planes: Planes<'a>, x_ring: usize) -> Self {
        let den = |i: usize| rational.den.get(i).copied().unwrap_or([0; LANES16]);
        let mut newest = [Coefficient::zero(); NEW_X];
        for (j, c) in newest.iter_mut().enumerate() {
            let d = P::from_array(den(j + 1));
            *c = Coefficient { two: d, odd: doubles(d) };
        }
        let order = rational.order();
        let mut den_pairs = Vec::with_capacity(order / 2 + 1);
        for i in (NEW_X + 1..=order.max(LOW_X)).step_by(2) {
            let mut row = PairRow::ZERO;
            P::pack(P::from_array(den(i)), P::from_array(den(i + 1))).store(&mut row);
            den_pairs.push(row);
        }
        Self {
            ring,
            num: &rational.num,
            newest,
            den_pairs,
            offset: x_ring,
            planes,
            last: [Coefficient::zero(); NEW_X],
            last_words: [P::zero(); 3],
            values: [Coefficient::zero(); X_VALUES],
        }
    }

    /// `x_k` from the blocked sums of its older terms.
    #[inline(always)]
    fn finish(&mut self, k: usize, acc: [P; 3]) {
        let j = self.offset + k;
        // The low pairs, oldest first, so that the newest pair (x_{k-4}, x_{k-3}) joins
        // the sum last.
        let low = &self.den_pairs[..Self::LOW_STEPS];
        let mut sums = acc;
        for (p, sum) in sums.iter_mut().enumerate() {
            let plane = self.planes.plane(p);
            for (t, d) in low.iter().enumerate().rev() {
                *sum = sum.dot_add(P::load(d).swap_words(), plane.pair(j - NEW_X - 2 - 2 * t));
            }
        }
        let num = P::from_array(self.num.get(k).copied().unwrap_or([0; LANES16]));
        // Z/q: |Σ| <= 2^20·1024·(1 + 2^11) < 2^42, |num| small: exact in f64.
        let sum = doubles(sums[2]).mul_add(P::Doubles::splat(LIMB), doubles(sums[1]));
        let mut value = Coefficient { two: num - sums[0], odd: doubles(num) - sum };
        // The newest terms, x_{k-1} last: |den·x| <= 2^14·2^20.
        for (d, x) in self.newest.iter().zip(&self.last).rev() {
            value.two = value.two - d.two * x.two;
            value.odd = d.odd.neg_mul_add(x.odd, value.odd);
        }
        value.odd = self.ring.balance(value.odd);
        self.last = [value, self.last[0]];
        self.values[k % X_VALUES] = value;
        let words = value.words();
        self.planes.store(j, self.last_words, words);
        self.last_words = words;
    }
}

impl<P: PairVec> XSeries<P> for XRecurrence<'_, P> {
    /// The blocked sums read pairs from `base - 2·steps - 6 = k0 - LOW_X - 2·(pairs -
    /// LOW_STEPS) - 8 >= k0 - order - 8` up to `x_{k0-1}` (see [`Layout::new`](super::scratch::Layout::new)); the
    /// per-output ones up to `x_{k-3}`.
    #[inline(always)]
    fn block(&mut self, k0: usize) {
        // Pair t >= LOW_STEPS covers i = LOW_X + 1 + 2(t - LOW_STEPS), i + 1, with the
        // pair starting at k - i - 1 = k0 + r - LOW_X - 2 - 2(t - LOW_STEPS): base
        // k0 - LOW_X - 2 (even).
        let left = (Plane { rows: &self.den_pairs, mask: usize::MAX }, Self::LOW_STEPS);
        let steps = self.den_pairs.len() - Self::LOW_STEPS;
        let base = self.offset + k0 - LOW_X - 2;
        let mut acc = [[P::zero(); R]; 3];
        for (p, a) in acc.iter_mut().enumerate() {
            karatsuba_dots(a, steps, base, left, self.planes.plane(p));
        }
        for (r, ((&two, &lo), &hi)) in acc[0].iter().zip(&acc[1]).zip(&acc[2]).enumerate() {
            self.finish(k0 + r, [two, lo, hi]);
        }
    }

    #[inline(always)]
    fn value(&self, k: usize) -> Coefficient<P> {
        self.values[k % X_VALUES]
    }
}
