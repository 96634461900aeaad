//! `T`'s recurrence `T_k = x_k - C_k`: the direct sums of the first outputs, the blocked
//! and per-output parts of `C_k`, and the loop that runs `x` one block ahead of `T`.

use super::rows::{Plane, Planes, Ring, Rows, SumRows, pairs3};
use super::scratch::Layout;
use super::windows::karatsuba_dots;
use super::{CHUNK_STEPS, Coefficient, LIMB, LOW, NEW, R, WordRing, XSeries, doubles};
use crate::simd::dots::{DoubleVec, PairRow, PairVec};

/// `C_k = Σ_{0<i<k} T_i·T_{k-i}` in one plane, directly (for small `k`): the half sum in
/// pairs of terms, a single last term if the half has odd length, doubled, plus
/// `T_{k/2}^2` for even `k`.
#[inline(always)]
fn t_direct<P: PairVec, S: Rows>(rows: S, k: usize) -> P {
    let h = k.div_ceil(2) - 1; // terms i = 1..=h of the half sum
    let mut acc = P::zero();
    let mut i = 1;
    while i < h {
        acc = acc.dot_add(rows.pair::<P>(i).swap_words(), rows.pair(k - 1 - i));
        i += 2;
    }
    if i == h {
        acc = acc.dot_add(rows.pair::<P>(h).low_word_only(), rows.pair(k - h));
    }
    acc = acc + acc;
    if k.is_multiple_of(2) {
        acc = acc.dot_add(rows.pair::<P>(k / 2).low_word_only(), rows.pair(k / 2));
    }
    acc
}

/// Where [`t_main`] adds its chunks: `i32` lanes (the `2^a` plane, wrapping) or `f64`.
enum Sums<'a, P: PairVec> {
    Words(&'a mut [P; R]),
    Doubles(&'a mut [P::Doubles; R]),
}

/// The blocked part of `C_k` for the outputs `k0 + r`, `r < R`, in one plane: terms
/// `i = LOW+1 ..= l` in steps of two, `chunk` called with the sums of every
/// [`CHUNK_STEPS`] steps (so that the limb planes never overflow `i32`) added to `sums`.
#[inline(always)]
fn t_main<P: PairVec, S: Rows>(rows: S, k0: usize, l: usize, mut sums: Sums<'_, P>) {
    let steps = (l - LOW) / 2;
    let mut done = 0;
    while done < steps {
        let n = (steps - done).min(CHUNK_STEPS);
        let mut acc = [P::zero(); R];
        // Step t pairs terms i = first + 2t (even), i + 1 with the pairs at k - 1 - i.
        let first = LOW + 1 + 2 * done;
        karatsuba_dots(&mut acc, n, k0 - first - 1, (rows, first / 2), rows);
        for (r, a) in acc.into_iter().enumerate() {
            match &mut sums {
                Sums::Words(s) => s[r] = s[r] + a,
                Sums::Doubles(s) => s[r] = s[r] + doubles(a),
            }
        }
        done += n;
    }
}

/// The rest of `C_k` in the four planes `[two, v0, v1, s]`, but for the newest terms
/// `i <= NEW`: `2·Σ_{NEW<i<=LOW}` (oldest first, so that the newest pair joins last), plus
/// `2·Σ_{l<i<=h}` (`h = ceil(k/2) - 1`, the end of the half sum: the blocked part stops at
/// one `l` for the whole block), plus `T_{k/2}^2` for even `k`. All planes at once: the
/// indices, parities and the limb pairs (for `s`) are shared.
#[inline(always)]
fn t_rest<P: PairVec>(planes: [Plane; 3], k: usize, l: usize) -> [P; 4] {
    let term = rest_term::<P>;
    let pair = |j| pairs3(planes, j);
    let mut half = [P::zero(); 4];
    for i in (NEW + 1..LOW).step_by(2).rev() {
        half = term(half, pair(i), pair(k - 1 - i), true);
    }
    let h = k.div_ceil(2) - 1;
    let mut i = l + 1;
    while i < h {
        half = term(half, pair(i), pair(k - 1 - i), true);
        i += 2;
    }
    if i == h {
        half = term(half, pair(h), pair(k - h), false);
    }
    let mut rest = [half[0] + half[0], half[1] + half[1], half[2] + half[2], half[3] + half[3]];
    if k.is_multiple_of(2) {
        rest = term(rest, pair(k / 2), pair(k / 2), false);
    }
    rest
}

/// `acc += prepare(left pairs) · right pairs` in the four planes `[two, v0, v1, s]`;
/// `prepare` swaps the words (`swap`) or keeps the low one (a flag, not a function
/// pointer: a pointer to a vector method would be its baseline instance).
#[inline(always)]
fn rest_term<P: PairVec>(acc: [P; 4], left: [P; 3], right: [P; 3], swap: bool) -> [P; 4] {
    let [left_two, left_lo, left_hi] = left;
    let [right_two, right_lo, right_hi] = right;
    let left_s = left_lo.add_words(left_hi);
    let [a, b, c, d] = if swap {
        [left_two.swap_words(), left_lo.swap_words(), left_hi.swap_words(), left_s.swap_words()]
    } else {
        [left_two.low_word_only(), left_lo.low_word_only(), left_hi.low_word_only(), left_s.low_word_only()]
    };
    [
        acc[0].dot_add(a, right_two),
        acc[1].dot_add(b, right_lo),
        acc[2].dot_add(c, right_hi),
        acc[3].dot_add(d, right_lo.add_words(right_hi)),
    ]
}

/// The first output of the first block; the outputs below it are summed directly.
///
/// Blocks start at odd `k0` (their Karatsuba windows start at even pairs, `k0 - 9`).
/// The first one needs `h(k0) = ceil(k0/2) - 1 >= LOW`: then its blocked stretch
/// `LOW+1 ..= l` is empty or whole steps, every per-output term `NEW < i <= LOW` lies in
/// the half sum (`i <= h(k)`), and the newest ones `i <= NEW` pair with `k - i > NEW`.
/// So `2·LOW + 1`; an earlier start would leave 16 more outputs to the direct sums, which
/// redo every pair for every output and convert every sum.
pub(super) const BLOCKED_FROM: usize = 2 * LOW + 1;

/// Below this `k`, `x_k - C_k` needs no reduction of its partial sums to stay exact.
pub(super) const UNREDUCED_BELOW: usize = 2048;

/// `x_k - C_k` from `C_k` (`c_two` wrapping, `c` = `[lo, hi, s]` exact), the `Z/q` part
/// not reduced: below `2^51.1` in size.
///
/// `Σ T_i·T_{k-i} = lo + 2^11·(s - lo - hi) + 2^22·hi` (Karatsuba, per term and so for
/// the sums). With `|v0| <= 2^10`, `|v1| <= 2^9`, `|s| <= 1536 < 2^10.6`, the sums of
/// `k - 1` terms give `|lo + 2^11·(s - lo - hi) + 2^22·hi| < (k-1)·(2^20 + 2^32.9 + 2^40)`,
/// below `2^51.03` for `k < 2^11`; from there on the middle and high sums are reduced
/// first (each then below `2^20 + 1`).
#[inline(always)]
fn t_from_sums<P: PairVec>(
    ring: &WordRing,
    k: usize,
    x: Coefficient<P>,
    c_two: P,
    c: [P::Doubles; 3],
) -> Coefficient<P> {
    let [c_lo, c_hi, c_s] = c;
    let (mut middle, mut high) = (c_s - c_lo - c_hi, c_hi);
    if k >= UNREDUCED_BELOW {
        (middle, high) = (ring.balance(middle), ring.balance(high));
    }
    let product = high.mul_add(P::Doubles::splat(LIMB * LIMB), middle.mul_add(P::Doubles::splat(LIMB), c_lo));
    Coefficient { two: x.two - c_two, odd: x.odd - product }
}

/// One character group's computation: `x` one block ahead of `T`, in one loop.
pub(super) struct Kernel<'a, P: PairVec, X: XSeries<P>> {
    ring: &'a WordRing,
    m: usize,
    x: X,
    /// `x` is computed for `k < x_done`.
    x_done: usize,
    planes: Planes<'a>,
    /// `T_1..T_NEW`, and `T_{k-1}..T_{k-NEW}`, and the words of `T_{k-1}`.
    first: [Coefficient<P>; NEW],
    last: [Coefficient<P>; NEW],
    last_words: [P; 3],
    /// `Σ_lanes T_k mod N` per coefficient (until the end of [`Kernel::run`], the lane
    /// sums of both rings, packed).
    sums: Vec<u64>,
}

impl<'a, P: PairVec, X: XSeries<P>> Kernel<'a, P, X> {
    /// The kernel with `x` from `x` and `T`'s planes in `t_rows` (laid out as `layout`).
    #[inline(always)]
    pub(super) fn new(ring: &'a WordRing, m: usize, x: X, layout: Layout, t_rows: &'a mut [PairRow]) -> Self {
        Self {
            ring,
            m,
            x,
            x_done: 0,
            planes: Planes::new(t_rows, layout.t_stride, layout.t_rows, Ring::None),
            first: [Coefficient::zero(); NEW],
            last: [Coefficient::zero(); NEW],
            last_words: [P::zero(); 3],
            sums: vec![0; m + 1],
        }
    }

    /// Computes `x` up to at least `x_k`.
    #[inline(always)]
    fn need_x(&mut self, k: usize) {
        while self.x_done <= k {
            self.x.block(self.x_done);
            self.x_done += R;
        }
    }

    /// `Σ_lanes T_k mod N` for `k = 0..=m`.
    #[inline(always)]
    pub(super) fn run(mut self) -> Vec<u64> {
        // T_0 = x_0 = 0.
        let blocked_from = BLOCKED_FROM.min(self.m + 1);
        for k in 1..blocked_from {
            self.need_x(k);
            let c = |p| self.planes.plane(p);
            let (two, lo, hi) = (c(0), c(1), c(2));
            let c_two = t_direct(two, k);
            let c: [P; 3] = [t_direct(lo, k), t_direct(hi, k), t_direct(SumRows(lo, hi), k)];
            let c = [doubles(c[0]), doubles(c[1]), doubles(c[2])];
            let mut value = t_from_sums(self.ring, k, self.x.value(k), c_two, c);
            value.odd = self.ring.balance(value.odd);
            self.store(k, value);
        }
        let mut k0 = blocked_from;
        while k0 <= self.m {
            // x one block ahead: its chain overlaps T's.
            self.need_x((k0 + 2 * R - 1).min(self.m));
            self.t_block(k0);
            k0 += R;
        }
        self.lane_sums();
        self.ring.combine_all(&mut self.sums);
        self.sums
    }

    /// `sums[k]` = the lane sums of `T_k`, packed (low half: the `2^a` sum, wrapping;
    /// high half: the `Z/q` sum, an `i32`), for every `k <= m`, from the rows of `T`
    /// (every row up to `m/2` is written by then: row `e` with `T_{2e+1}`, and a last
    /// row `m/2` of even `m` with `T_m` and a zero high word).
    ///
    /// Why here and not as each `T_k` is stored: one pass over the rows does both
    /// coefficients of a row with three reductions (the `2^a` words of both in one, as
    /// 16-bit sums; the `Z/q` values `v0 + 2^11·v1` of each, built with two dot products
    /// against constant words), against three reductions per coefficient in the loop.
    /// Only the low `a <= 16` bits of the `2^a` sums matter, so 16-bit sums suffice; the
    /// `Z/q` values are below `2^20 + 1` in size, their sums below `2^25`: exact `i32`.
    #[inline(always)]
    fn lane_sums(&mut self) {
        let [two, lo, hi] = self.planes.all();
        let (low_one, low_limb) = (P::splat(1), P::splat(LIMB as i32));
        let (high_one, high_limb) = (P::splat(1 << 16), P::splat((LIMB as i32) << 16));
        for (e, sums) in self.sums.chunks_mut(2).enumerate() {
            let (v0, v1): (P, P) = (lo.even(e), hi.even(e));
            let twos = two.even::<P>(e).sum_words() as u32;
            let even = P::zero().dot_add(v0, low_one).dot_add(v1, low_limb).sum_lanes();
            let odd = P::zero().dot_add(v0, high_one).dot_add(v1, high_limb).sum_lanes();
            sums[0] = u64::from(twos & 0xFFFF) | u64::from(even as u32) << 32;
            if let Some(s) = sums.get_mut(1) {
                *s = u64::from(twos >> 16) | u64::from(odd as u32) << 32;
            }
        }
    }

    /// `T_{k0..k0+R}` (those up to `m`). A last, partial block is summed whole: its extra
    /// outputs read existing pairs (below `k0 - LOW`) and are dropped.
    #[inline(always)]
    fn t_block(&mut self, k0: usize) {
        // l: the blocked stretch is i = LOW+1 ..= l for the whole block, l <= h(k0) and
        // l - LOW even (whole steps); each output adds its own i = l+1 ..= h(k).
        let h0 = k0.div_ceil(2) - 1;
        let l = h0 - (h0 - LOW) % 2;
        if k0 + R <= UNREDUCED_BELOW {
            return self.t_block_words(k0, l);
        }
        let mut main_two = [P::zero(); R];
        let mut main = [[P::Doubles::zero(); R]; 3];
        let plane = |p| self.planes.plane(p);
        let (two, lo, hi) = (plane(0), plane(1), plane(2));
        t_main(two, k0, l, Sums::Words(&mut main_two));
        for (sums, rows) in main.iter_mut().zip([lo, hi]) {
            t_main(rows, k0, l, Sums::<P>::Doubles(sums));
        }
        t_main(SumRows(lo, hi), k0, l, Sums::<P>::Doubles(&mut main[2]));
        for r in 0..R.min(self.m + 1 - k0) {
            let k = k0 + r;
            let rest: [P; 4] = t_rest(self.planes.all(), k, l);
            let c_two = rest[0] + main_two[r] + main_two[r];
            let two = P::Doubles::splat(2.0);
            let c = [
                two.mul_add(main[0][r], doubles(rest[1])),
                two.mul_add(main[1][r], doubles(rest[2])),
                two.mul_add(main[2][r], doubles(rest[3])),
            ];
            let value = self.add_newest(t_from_sums(self.ring, k, self.x.value(k), c_two, c));
            self.store(k, value);
        }
    }

    /// [`Self::t_block`] for blocks below [`UNREDUCED_BELOW`]: every partial sum of
    /// `C_k` stays in `i32` lanes until the Karatsuba recombination, and only the three
    /// recombined limb sums are converted to `f64`.
    ///
    /// Why it is exact: for `k < 2^11` the true sums `lo = Σ v0·v0'`, `hi = Σ v1·v1'` and
    /// `middle = s - lo - hi = Σ (v0·v1' + v1·v0')` are below `(k-1)·2^20 < 2^31` in size
    /// (limbs `|v0| <= 2^10`, `|v1| <= 2^9`), so they are exact `i32` values; every sum on
    /// the way (the blocked part, doubled, plus the rest, and `s`, which may not fit) wraps
    /// modulo `2^32` (`vpdpwssd` does not saturate), which changes none of them. So no
    /// chunks of [`CHUNK_STEPS`] and half the conversions of the general path (whose
    /// `f64` accumulators, `3·R` pairs of vectors, did not fit in the registers either).
    #[inline(always)]
    fn t_block_words(&mut self, k0: usize, l: usize) {
        let steps = (l - LOW) / 2;
        let first = LOW + 1;
        let mut main = [[P::zero(); R]; 4];
        let plane = |p| self.planes.plane(p);
        let (two, lo, hi) = (plane(0), plane(1), plane(2));
        // Step t pairs terms i = first + 2t (even), i + 1 with the pairs at k - 1 - i.
        for (acc, rows) in main.iter_mut().zip([two, lo, hi]) {
            karatsuba_dots(acc, steps, k0 - first - 1, (rows, first / 2), rows);
        }
        karatsuba_dots(&mut main[3], steps, k0 - first - 1, (SumRows(lo, hi), first / 2), SumRows(lo, hi));
        for (k, r) in (k0..=self.m).zip(0..R) {
            let rest: [P; 4] = t_rest(self.planes.all(), k, l);
            let (c_two, c_lo) = (rest[0] + main[0][r] + main[0][r], rest[1] + main[1][r] + main[1][r]);
            let (c_hi, c_s) = (rest[2] + main[2][r] + main[2][r], rest[3] + main[3][r] + main[3][r]);
            let middle = c_s - c_lo - c_hi;
            let product = doubles(c_hi).mul_add(
                P::Doubles::splat(LIMB * LIMB),
                doubles(middle).mul_add(P::Doubles::splat(LIMB), doubles(c_lo)),
            );
            let x = self.x.value(k);
            let value = self.add_newest(Coefficient { two: x.two - c_two, odd: x.odd - product });
            self.store(k, value);
        }
    }

    /// `T_k` from `value = x_k - (C_k without its newest terms)` (`Z/q` part below
    /// `2^51.1`): subtracts `2·Σ_{i<=NEW} T_i·T_{k-i}`, `T_1·T_{k-1}` last, and balances.
    /// `|2·Σ| <= 2·NEW·2^40 < 2^43`, so every value stays below `2^52`.
    #[inline(always)]
    fn add_newest(&self, mut value: Coefficient<P>) -> Coefficient<P> {
        for (t, prev) in self.first.iter().zip(&self.last).rev() {
            value.two = value.two - (t.two + t.two) * prev.two;
            value.odd = (t.odd + t.odd).neg_mul_add(prev.odd, value.odd);
        }
        value.odd = self.ring.balance(value.odd);
        value
    }

    /// Records `T_k` (balanced): its words in the rows (its lane sums come from there at
    /// the end, [`Self::lane_sums`]).
    #[inline(always)]
    fn store(&mut self, k: usize, value: Coefficient<P>) {
        let words = value.words();
        if k <= NEW {
            self.first[k - 1] = value;
        }
        self.last = [value, self.last[0], self.last[1]];
        self.planes.store(k, self.last_words, words);
        self.last_words = words;
    }
}
