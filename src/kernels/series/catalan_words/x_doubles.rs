//! The `x` recurrence in `f64` lanes ([`XPath::Doubles`](super::XPath)): each
//! coefficient is one balanced residue modulo `N = 2^a·q`, and each term `den_i·x_{k-i}`
//! one fused multiply-add on it.
//!
//! Why it is exact: the residues are integers with `|x| <= N/2 + 2` (below), the
//! `den_i` small integers, so every product and every partial sum of
//! `num_k - Σ den_i·x_{k-i}` is an integer below `Σ|den_i|·(N/2 + 2) + |num_k|`, which
//! [`XDoubles::fits`] requires below `2^53`: `f64` holds each one, and a fused
//! multiply-add, which rounds once, gives it exactly. The reduction
//! `v - N·round(v/N)` misses the nearest multiple of `N` by at most the error of the
//! quotient's estimate, `|v/N|·2^-52 < 2/N`, so the result is within `N/2 + 2`.
//!
//! What `T` needs follows from the residue: the balanced value modulo `q` by the word
//! ring's reduction, and the word modulo `2^a` from the residue modulo `2^16`
//! (`2^a` divides both `N` and `2^16`).

use super::{Coefficient, LOW_X, NEW_X, R, WordRing, X_VALUES, XSeries, doubles, lane_weights};
use crate::kernels::series::rational::{LANES16, RationalLanes};
use crate::simd::dots::{DoublePart, DoubleRow, DoubleVec, PairRow, PairVec};

/// Coefficients written between two moves of the rows' last `look` to their start.
const SPAN: usize = 4 * R;
/// The words' radix: `T`'s `2^a` part is the residue modulo `2^16`.
const WORD: f64 = 65536.0;

/// Coefficients kept below the one being computed, for a recurrence of order `order`.
fn look(order: usize) -> usize {
    order.max(LOW_X)
}

/// The pair rows [`XDoubles::new`] takes for a recurrence of order `order`: `den_0..=look`
/// and the ring of `look + SPAN` coefficients, each row of `f64` lanes two pair rows.
pub(super) fn pair_rows(order: usize) -> usize {
    2 * ((look(order) + 1) + (look(order) + SPAN))
}

/// `x` computed in `f64` lanes, one block of `R` outputs at a time.
pub(super) struct XDoubles<'a, P: PairVec> {
    ring: &'a WordRing,
    num: &'a [[i32; LANES16]],
    /// The recurrence's order.
    order: usize,
    /// Coefficients kept below the one being computed: `max(order, LOW_X)`.
    look: usize,
    /// `den_i` for `i = 0..=look` (zero past the order).
    den: &'a [DoubleRow],
    /// Row `j + look - shift` holds `x_j`; the rows start zero (the coefficients below
    /// `x_0`).
    rows: &'a mut [DoubleRow],
    shift: usize,
    /// `N` and `1/N`.
    n: f64,
    n_inverse: f64,
    /// `x_{k-1}, x_{k-2}` (residues modulo `N`).
    last: [P::Doubles; NEW_X],
    /// `x_k` at `k % X_VALUES`, for `T`.
    values: [Coefficient<P>; X_VALUES],
}

impl<'a, P: PairVec> XDoubles<'a, P> {
    /// Whether every partial sum stays below `2^53` (see the module's comment).
    pub(super) fn fits(ring: &WordRing, rational: &RationalLanes) -> bool {
        let (weight, _) = lane_weights(rational.den.get(1..).unwrap_or_default());
        let num = rational.num.iter().flatten().map(|v| u128::from(v.unsigned_abs())).max().unwrap_or(0);
        // |x| <= N/2 + 2, rounded up for odd N.
        let bound = u128::from(ring.modulus()).div_ceil(2) + 2;
        weight.iter().all(|&w| u128::from(w) * bound + num < 1 << 53)
    }

    /// The recurrence of `rational` in `region`, at least [`pair_rows`] rows of which the
    /// first `pair_rows` are zero (in a buffer the kernel shares, mapped once).
    #[inline(always)]
    pub(super) fn new(ring: &'a WordRing, rational: &'a RationalLanes, region: &'a mut [PairRow]) -> Self {
        let order = rational.order();
        let look = look(order);
        let (den, rows) = DoubleRow::from_pair_rows(&mut region[..pair_rows(order)]).split_at_mut(look + 1);
        for (i, row) in den.iter_mut().enumerate() {
            *row = DoubleRow(rational.den.get(i).copied().unwrap_or([0; LANES16]).map(f64::from));
        }
        let n = ring.modulus() as f64;
        Self {
            ring,
            num: &rational.num,
            order,
            look,
            den,
            rows,
            shift: 0,
            n,
            n_inverse: 1.0 / n,
            last: [P::Doubles::zero(); NEW_X],
            values: [Coefficient::zero(); X_VALUES],
        }
    }

    /// `x_k` from the sum of its terms `i > LOW_X`.
    #[inline(always)]
    fn finish(&mut self, k: usize, blocked: P::Doubles) {
        let at = k + self.look - self.shift;
        // The terms NEW_X < i <= LOW_X, oldest first; they read this block's outputs.
        let mut sum = blocked;
        for i in (NEW_X + 1..=LOW_X).rev() {
            sum = P::Doubles::load(&self.den[i]).mul_add(P::Doubles::load(&self.rows[at - i]), sum);
        }
        let num = doubles(P::from_array(self.num.get(k).copied().unwrap_or([0; LANES16])));
        let mut value = num - sum;
        // The newest terms, x_{k-1} last: the chain from one output to the next is this
        // multiply-add and the reduction.
        for i in (1..=NEW_X).rev() {
            value = P::Doubles::load(&self.den[i]).neg_mul_add(self.last[i - 1], value);
        }
        let residue = (value * P::Doubles::splat(self.n_inverse)).round().neg_mul_add(P::Doubles::splat(self.n), value);
        residue.store(&mut self.rows[at]);
        self.last = [residue, self.last[0]];
        let word = (residue * P::Doubles::splat(1.0 / WORD)).round().neg_mul_add(P::Doubles::splat(WORD), residue);
        self.values[k % X_VALUES] = Coefficient { two: P::from_doubles(word), odd: self.ring.balance(residue) };
    }
}

impl<P: PairVec> XSeries<P> for XDoubles<'_, P> {
    /// The blocked sums read `x_{k0-order..k0+R-LOW_X-1}`, every one computed before.
    /// One register part at a time, so that the `R` accumulators, the `den_i` part and
    /// the loads fit the register file.
    #[inline(always)]
    fn block(&mut self, k0: usize) {
        if k0 + R + self.look - self.shift > self.rows.len() {
            // Blocks from k0 on read x_{k0-look} and later: move them to the start.
            let from = k0 - self.shift;
            self.rows.copy_within(from..from + self.look, 0);
            self.shift = k0;
        }
        let at = k0 + self.look - self.shift;
        let mut sums = [P::Doubles::zero(); R];
        // Term i reads the R rows from at - i: the windows of the rows from at - order,
        // oldest first, meet the den_i from i = order down.
        let terms = (LOW_X + 1).min(self.order + 1)..self.order + 1;
        let (den, rows) = (&self.den[terms.clone()], &self.rows[at + 1 - terms.end..at + R - terms.start]);
        for part in 0..P::Doubles::PARTS {
            let mut acc = [<P::Doubles as DoubleVec>::Part::zero(); R];
            for (d, window) in den.iter().rev().zip(rows.windows(R)) {
                let d = P::Doubles::load_part(d, part);
                for (a, row) in acc.iter_mut().zip(window) {
                    *a = d.mul_add(P::Doubles::load_part(row, part), *a);
                }
            }
            for (sum, a) in sums.iter_mut().zip(acc) {
                *sum = sum.with_part(part, a);
            }
        }
        for (r, sum) in sums.into_iter().enumerate() {
            self.finish(k0 + r, sum);
        }
    }

    #[inline(always)]
    fn value(&self, k: usize) -> Coefficient<P> {
        self.values[k % X_VALUES]
    }
}
