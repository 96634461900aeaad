//! `x = E/D` as a quotient of two integer polynomials, from eventually periodic signs.
//!
//! With `e_j = w(2j)` (`e_0 = 0`: there is no block of length 0) and `o_j = w(2j+1)`,
//! both sequences repeat with period `P` in `j` from `j0 = max(1, ceil(preperiod/2))` on, where
//! `P` is the sign period `p` when `p` is odd and `p/2` when it is even (`2P ≡ 0 mod p`).
//! So `A = E·(1-u^P)` and `B = Ô·(1-u^P)` are polynomials of degree below `j0 + P`, and
//! with `Z = 1 - u^P`:
//!
//! ```text
//! x = E / ((1-E)^2 - u·Ô^2) = A·Z / ((Z - A)^2 - u·B^2)
//! ```
//!
//! The denominator starts with 1 (`A_0 = 0`), so `x_k = num_k - Σ_{i>=1} den_i·x_{k-i}`:
//! a linear recurrence of order `deg den < 2(j0 + P)` with small integer coefficients
//! (`deg (Z - A)^2 <= 2(j0 + P - 1)`, `deg u·B^2 <= 2(j0 + P) - 1`). For the Dawson signs
//! (`j0 = 27`, `P = 17`) the bound is 88; the order measured is 86, the largest over the
//! 16 characters one by one and that of their shared form (`DAWSON_RATIONAL`).

use std::borrow::Cow;

use super::BlockSigns;
use crate::arith::split::SplitModulus;

/// `x = num / den` with `den[0] = 1`; exact integer coefficients.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RationalX {
    /// Numerator coefficients, lowest first.
    pub num: Vec<i64>,
    /// Denominator coefficients, lowest first; `den[0] = 1`.
    pub den: Vec<i64>,
}

impl RationalX {
    /// The rational form of `x` for the block signs `signs`.
    pub fn new(signs: &BlockSigns) -> Self {
        let p = signs.period();
        let period = if p.is_multiple_of(2) { p / 2 } else { p };
        // e_0 = 0 is never part of the periodic stretch: start it at j0 >= 1.
        let len = signs.preperiod().div_ceil(2).max(1) + period;
        let e = |j: usize| if j == 0 { 0 } else { signs.sign(2 * j) as i64 };
        let o = |j: usize| signs.sign(2 * j + 1) as i64;
        let times_z = |f: &dyn Fn(usize) -> i64| -> Vec<i64> {
            (0..len).map(|k| f(k) - if k >= period { f(k - period) } else { 0 }).collect()
        };
        let a = times_z(&e);
        let b = times_z(&o);
        debug_assert!((len..len + period).all(|k| e(k) == e(k - period) && o(k) == o(k - period)));

        let mut z = vec![0i64; period + 1];
        z[0] = 1;
        z[period] = -1;
        let num = trim(multiply(&a, &z));
        let z_minus_a = subtract(&z, &a);
        let mut shifted_b_sq = vec![0];
        shifted_b_sq.extend(multiply(&b, &b));
        let den = trim(subtract(&multiply(&z_minus_a, &z_minus_a), &shifted_b_sq));
        assert_eq!(den[0], 1);
        Self { num, den }
    }

    /// The order of the recurrence, `deg den`.
    pub fn order(&self) -> usize {
        self.den.len() - 1
    }

    /// `x_0..=x_m` exactly in `i128`, for tests (the values grow like `c^k`: small `m`
    /// only).
    pub fn coefficients_exact(&self, m: usize) -> Vec<i128> {
        let mut x = vec![0i128; m + 1];
        for k in 0..=m {
            let mut v = *self.num.get(k).unwrap_or(&0) as i128;
            for i in 1..self.den.len().min(k + 1) {
                v -= self.den[i] as i128 * x[k - i];
            }
            x[k] = v;
        }
        x
    }
}

crate::simd::multiversion! {
    /// `x_0..=x_m mod n` (`2 <= n < 2^62`) from the recurrence, modulo each factor of
    /// `n = 2^k·q` ([`crate::arith::split`]) with machine arithmetic, then recombined:
    /// wrapping `u64` sums for `2^k`, exact `i64` sums for `q < 2^31`, `i128` for larger
    /// `q`. The lag sums are vectorised for `simd`'s level; the values are the same on
    /// every backend.
    pub fn x_coefficients(rational: &RationalX, m: usize, n: u64) -> Vec<u64> => x_coefficients_generic;
}

/// `B` only selects the entry point (and so the instruction set the lag sums are
/// vectorised for); the code does not name it.
#[inline(always)]
#[allow(clippy::extra_unused_type_parameters)]
fn x_coefficients_generic<B: crate::simd::Backend>(rational: &RationalX, m: usize, n: u64) -> Vec<u64> {
    let split = SplitModulus::new(n);
    let mask = if split.two_bits >= 64 { u64::MAX } else { (1u64 << split.two_bits) - 1 };
    let order = rational.order();
    // den_1..den_order reversed, so a lag window of x reads forwards.
    let den_reversed: Vec<i64> = rational.den[1..].iter().rev().copied().collect();
    let numerator = |k: usize| *rational.num.get(k).unwrap_or(&0);
    let window = |k: usize| (order - order.min(k), k - order.min(k)..k);

    let mut x2 = vec![0u64; m + 1];
    for k in 0..=m {
        let (skip, lags) = window(k);
        let sum = den_reversed[skip..]
            .iter()
            .zip(&x2[lags])
            .fold(0u64, |s, (&d, &x)| s.wrapping_add((d as u64).wrapping_mul(x)));
        x2[k] = (numerator(k) as u64).wrapping_sub(sum) & mask;
    }
    let q = split.odd;
    let mut xq = vec![0u64; m + 1];
    // |num_k - Σ den_i·x_{k-i}| <= max|num| + Σ|den_i|·(q - 1): exact in i64 when that
    // is below 2^63.
    let den_weight: u128 = rational.den.iter().map(|&d| d.unsigned_abs() as u128).sum();
    let num_max = rational.num.iter().map(|&c| c.unsigned_abs() as u128).max().unwrap_or(0);
    if q > 1 && num_max + den_weight * (q as u128) < 1 << 63 {
        for k in 0..=m {
            let (skip, lags) = window(k);
            let sum: i64 = den_reversed[skip..].iter().zip(&xq[lags]).map(|(&d, &x)| d * x as i64).sum();
            xq[k] = (numerator(k) - sum).rem_euclid(q as i64) as u64;
        }
    } else if q > 1 {
        for k in 0..=m {
            let (skip, lags) = window(k);
            let sum: i128 = den_reversed[skip..].iter().zip(&xq[lags]).map(|(&d, &x)| d as i128 * x as i128).sum();
            xq[k] = (numerator(k) as i128 - sum).rem_euclid(q as i128) as u64;
        }
    }
    let inverse = split.inverse_of_pow2();
    x2.iter().zip(&xq).map(|(&r2, &rq)| split.combine(r2, rq, inverse)).collect()
}

/// The rational forms `x = num/den` of up to [`LANES16`] characters at once, one per lane
/// (lanes without a character have `num = 0`, `den = 1`): the same polynomials as
/// [`RationalX::new`] gives for each, computed with lane-wise products, which is what
/// makes building all sixteen cost about as much as building one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RationalLanes {
    /// `num[k][lane]`, up to the last `k` where some lane is not zero.
    pub num: Cow<'static, [[i32; LANES16]]>,
    /// `den[k][lane]`, `den[0] = 1` in every lane, up to the highest degree of any lane.
    /// (Borrowed for the forms the compiler builds: `games::kayles::tables`.)
    pub den: Cow<'static, [[i32; LANES16]]>,
}

/// Lanes of a [`RationalLanes`].
pub const LANES16: usize = 16;

impl RationalLanes {
    /// The longest polynomial `A = E·(1-u^P)` accepted (`j0 + P` coefficients): every
    /// coefficient of `(Z-A)^2` and `B^2` is then below `(2 + 2·len)^2 < 2^31`, exact in
    /// `i32` lanes. The Dawson characters have 44; longer ones return `None`.
    pub const MAX_LEN: usize = 1 << 14;

    /// The rational forms of `characters` (at most [`LANES16`]), or `None` if some
    /// character needs polynomials longer than [`Self::MAX_LEN`].
    pub fn new(characters: &[BlockSigns]) -> Option<Self> {
        assert!(characters.len() <= LANES16, "at most {LANES16} characters per lane group");
        // Per lane, as in RationalX::new: P (the period in u), len = j0 + P, and the
        // signs written out far enough for e(j), o(j) with j < len.
        let period = |s: &BlockSigns| if s.period().is_multiple_of(2) { s.period() / 2 } else { s.period() };
        let len = |s: &BlockSigns| s.preperiod().div_ceil(2).max(1) + period(s);
        let max_len = characters.iter().map(len).max().unwrap_or(1);
        if max_len > Self::MAX_LEN {
            return None;
        }
        let max_period = characters.iter().map(period).max().unwrap_or(1);
        // A = E·Z and B = Ô·Z (max_len coefficients), and Z - A (z_len coefficients); lanes
        // without a character keep A = B = 0, Z - A = 1. (Few allocations: on a cold start
        // each new size class of allocation can cost a fresh page.)
        let z_len = max_len.max(max_period + 1);
        let mut a = vec![[0i32; LANES16]; max_len];
        let mut b = vec![[0i32; LANES16]; max_len];
        let mut z_minus_a = vec![[0i32; LANES16]; z_len];
        z_minus_a[0] = [1; LANES16];
        let mut num = vec![[0i32; LANES16]; max_len + max_period];
        let mut w = Vec::with_capacity(2 * max_len + 2);
        for (lane, signs) in characters.iter().enumerate() {
            let (p, n) = (period(signs), len(signs));
            signs.materialize_into(&mut w, 2 * n + 2);
            let e = |j: usize| if j == 0 { 0 } else { w[2 * j] as i32 };
            let o = |j: usize| w[2 * j + 1] as i32;
            for k in 0..n {
                a[k][lane] = e(k) - if k >= p { e(k - p) } else { 0 };
                b[k][lane] = o(k) - if k >= p { o(k - p) } else { 0 };
                z_minus_a[k][lane] -= a[k][lane];
            }
            z_minus_a[p][lane] -= 1;
            // num = A·Z = A - u^P·A.
            for k in 0..n + p {
                num[k][lane] =
                    if k < n { a[k][lane] } else { 0 } - if k >= p && k - p < n { a[k - p][lane] } else { 0 };
            }
        }
        // den = (Z - A)^2 - u·B^2, lane by lane.
        let mut den = vec![[0i32; LANES16]; (2 * z_len - 1).max(2 * max_len)];
        square_lanes(&z_minus_a, &mut den, 1);
        square_lanes(&b, &mut den[1..], -1);
        debug_assert!(den[0] == [1; LANES16]);
        let (num_len, den_len) = (nonzero_len(&num, num.len()), nonzero_len(&den, den.len()));
        num.truncate(num_len);
        den.truncate(den_len);
        Some(Self { num: Cow::Owned(num), den: Cow::Owned(den) })
    }

    /// The rational forms of `characters` (at most [`LANES16`]) from one description of
    /// the signs shared by every lane: the largest preperiod and the least common multiple
    /// of the periods (every lane's signs repeat with that period from that preperiod on,
    /// so the construction of [`RationalX::new`] holds for each, with `2P ≡ 0` modulo
    /// every lane's period). The lanes' `num/den` are then not in lowest terms, but each
    /// quotient is the lane's `x`, and every step is one vector operation across the
    /// lanes instead of a loop per lane: this is what the 16-lane kernel
    /// [`super::catalan_words`] runs on, whose recurrence order is the largest over the
    /// lanes anyway (86 for the Dawson characters either way, below the bound 88 of the
    /// module docs). `None` if the shared description needs polynomials longer than
    /// [`Self::MAX_LEN`].
    pub fn shared(characters: &[BlockSigns]) -> Option<Self> {
        assert!(characters.len() <= LANES16, "at most {LANES16} characters per lane group");
        let preperiod = characters.iter().map(BlockSigns::preperiod).max().unwrap_or(0);
        let period = characters.iter().try_fold(1usize, |lcm, s| {
            let lcm = lcm / gcd(lcm, s.period()) * s.period();
            (lcm <= 2 * Self::MAX_LEN).then_some(lcm)
        })?;
        // As in RationalX::new: P (the period in u) and len = j0 + P.
        let p = if period.is_multiple_of(2) { period / 2 } else { period };
        let len = preperiod.div_ceil(2).max(1) + p;
        if len > Self::MAX_LEN {
            return None;
        }
        // w[L] for L < 2·len, lanes without a character all zero (then A = B = 0). The
        // signs of each character are written out first, then read row by row: filled
        // column by column, the compiler made each column a scatter, about a microsecond.
        let mut columns = vec![0i8; LANES16 * 2 * len];
        let mut signs = Vec::with_capacity(2 * len);
        for (column, character) in columns.chunks_exact_mut(2 * len).zip(characters) {
            character.materialize_into(&mut signs, 2 * len);
            column.copy_from_slice(&signs);
        }
        let w: Vec<[i32; LANES16]> =
            (0..2 * len).map(|l| std::array::from_fn(|lane| columns[lane * 2 * len + l] as i32)).collect();
        Some(Self::from_sign_rows(&w, p, characters.len()))
    }

    /// The shared form of [`Self::shared`] from the signs written out as rows:
    /// `w[L][lane] = w_lane(L)` for `L < 2·len`, `len = j0 + P`, where every lane's signs
    /// repeat with period `2P` (in `L`) from `L = 2·j0` on, `j0 >= 1` (the caller's
    /// invariant, as in [`RationalX::new`]; lanes `>= used` are all zero). For callers that have the signs of all
    /// their lanes at hand without [`BlockSigns`] (the Dawson characters).
    ///
    /// # Panics
    /// As [`Self::fill_from_sign_rows`].
    pub fn from_sign_rows(w: &[[i32; LANES16]], p: usize, used: usize) -> Self {
        let (num_len, den_len, scratch_len) = Self::sign_rows_buffers(w.len(), p);
        let mut num = vec![[0i32; LANES16]; num_len];
        let mut den = vec![[0i32; LANES16]; den_len];
        let mut scratch = vec![[0i32; LANES16]; scratch_len];
        Self::fill_factors(w, p, used, &mut num, &mut scratch);
        // The squares with `wide` vectors (the `const fn` twin in fill_from_sign_rows is
        // scalar: at run time the compiler vectorised it across j, with gathers, 10x slower).
        let (z_minus_a, b) = scratch.split_at(den_len / 2);
        square_lanes(z_minus_a, &mut den, 1);
        square_lanes(b, &mut den[1..], -1);
        debug_assert!(den[0] == [1; LANES16]);
        let (num_len, den_len) = (nonzero_len(&num, num_len), nonzero_len(&den, den_len));
        num.truncate(num_len);
        den.truncate(den_len);
        Self { num: Cow::Owned(num), den: Cow::Owned(den) }
    }

    /// The buffers [`Self::fill_from_sign_rows`] needs for `rows` sign rows and the period
    /// `p`: `(num, den, scratch)` rows.
    pub const fn sign_rows_buffers(rows: usize, p: usize) -> (usize, usize, usize) {
        let len = rows / 2;
        let z_len = if len > p + 1 { len } else { p + 1 };
        (len + p, 2 * z_len, z_len + len)
    }

    /// [`Self::from_sign_rows`] into buffers of the sizes [`Self::sign_rows_buffers`] gives;
    /// returns the lengths of `num` and `den` with their zero tails dropped. A `const fn`,
    /// so that the compiler builds the Dawson characters' form with the code the tests
    /// run (`games::kayles::tables`).
    ///
    /// ```text
    /// e_j = w(2j) (e_0 = 0), o_j = w(2j+1); A = E·Z, B = Ô·Z below len; Z = 1 - u^P
    /// num = A·Z,   den = (Z - A)^2 - u·B^2
    /// ```
    ///
    /// Scalar, lane by lane: at run time [`Self::from_sign_rows`] shares the factors
    /// but squares with `wide` vectors (`square_lanes`).
    ///
    /// # Panics
    /// If `w` has an odd number of rows, `p` is 0 or not below `w.len() / 2`, `used` is
    /// above [`LANES16`], a row holds more than the signs ±1 (and 0 in unused lanes), or a
    /// buffer is shorter than [`Self::sign_rows_buffers`] says.
    pub const fn fill_from_sign_rows(
        w: &[[i32; LANES16]],
        p: usize,
        used: usize,
        num: &mut [[i32; LANES16]],
        den: &mut [[i32; LANES16]],
        scratch: &mut [[i32; LANES16]],
    ) -> (usize, usize) {
        let (num_len, den_len, _) = Self::sign_rows_buffers(w.len(), p);
        assert!(den.len() >= den_len, "short buffers");
        Self::fill_factors(w, p, used, num, scratch);
        let mut k = 0;
        while k < den_len {
            den[k] = [0; LANES16];
            k += 1;
        }
        let (z_minus_a, b) = scratch.split_at(den_len / 2);
        add_square_lanes(z_minus_a, den, 0, 1);
        add_square_lanes(b, den, 1, -1);
        let mut lane = 0;
        while lane < LANES16 {
            assert!(den[0][lane] == 1, "den_0 = 1");
            lane += 1;
        }
        (nonzero_len(num, num_len), nonzero_len(den, den_len))
    }

    /// `num = A·Z` into `num`, and the factors of `den`, `Z - A` then `B`, into `scratch`
    /// (`z_len` and `len` rows; sizes from [`Self::sign_rows_buffers`]).
    const fn fill_factors(
        w: &[[i32; LANES16]],
        p: usize,
        used: usize,
        num: &mut [[i32; LANES16]],
        scratch: &mut [[i32; LANES16]],
    ) {
        let len = w.len() / 2;
        assert!(w.len().is_multiple_of(2) && p > 0 && p < len && used <= LANES16, "bad shared sign rows");
        let (num_len, den_len, scratch_len) = Self::sign_rows_buffers(w.len(), p);
        assert!(num.len() >= num_len && scratch.len() >= scratch_len, "short buffers");
        let mut row = 0;
        while row < w.len() {
            let mut lane = 0;
            while lane < LANES16 {
                let s = w[row][lane];
                assert!(
                    if lane < used { s * s == 1 } else { s == 0 },
                    "sign rows must be ±1 in the used lanes and 0 in the others"
                );
                lane += 1;
            }
            row += 1;
        }
        let z_len = den_len / 2;
        let (z_minus_a, b) = scratch.split_at_mut(z_len);
        let mut k = 0;
        while k < z_len + p {
            let a_k = times_z(w, p, k, 0);
            if k < len {
                b[k] = times_z(w, p, k, 1);
            }
            let a_shifted = if k >= p { times_z(w, p, k - p, 0) } else { [0; LANES16] };
            let mut lane = 0;
            while lane < LANES16 {
                // Z - A; Z = 1 - u^P in the lanes with a character, 1 in the others.
                if k < z_len {
                    let z = if k == 0 {
                        1
                    } else if k == p && lane < used {
                        -1
                    } else {
                        0
                    };
                    z_minus_a[k][lane] = z - a_k[lane];
                }
                // num = A·Z = A - u^P·A.
                if k < num_len {
                    num[k][lane] = a_k[lane] - a_shifted[lane];
                }
                lane += 1;
            }
            k += 1;
        }
    }

    /// The order of the recurrence: the highest degree of `den` over the lanes.
    pub fn order(&self) -> usize {
        self.den.len() - 1
    }
}

/// `A_k = e_k - e_{k-P}` (`parity` 0, `e_j = w(2j)`, `e_0 = 0`: no block has length 0)
/// or `B_k = o_k - o_{k-P}` (`parity` 1, `o_j = w(2j+1)`) in every lane, 0 from `k = len`
/// on.
const fn times_z(w: &[[i32; LANES16]], p: usize, k: usize, parity: usize) -> [i32; LANES16] {
    let zero = [0; LANES16];
    if k >= w.len() / 2 {
        return zero;
    }
    let sign = if k == 0 && parity == 0 { zero } else { w[2 * k + parity] };
    let earlier = if k < p || (k == p && parity == 0) { zero } else { w[2 * (k - p) + parity] };
    let mut out = zero;
    let mut lane = 0;
    while lane < LANES16 {
        out[lane] = sign[lane] - earlier[lane];
        lane += 1;
    }
    out
}

/// `out[shift..] += sign·p^2` lane by lane (`2·len - 1` coefficients): `p_i^2` at `2i`,
/// `2·p_i·p_j` at `i + j` for `i < j`. The `const fn` for the compiler; at run time,
/// [`square_lanes`].
const fn add_square_lanes(p: &[[i32; LANES16]], out: &mut [[i32; LANES16]], shift: usize, sign: i32) {
    let mut i = 0;
    while i < p.len() {
        let mut j = i;
        while j < p.len() {
            let factor = if i == j { sign } else { 2 * sign };
            let mut lane = 0;
            while lane < LANES16 {
                out[shift + i + j][lane] += factor * p[i][lane] * p[j][lane];
                lane += 1;
            }
            j += 1;
        }
        i += 1;
    }
}

/// `out += sign·p^2` lane by lane, as [`add_square_lanes`] with `shift` 0. In `wide`
/// vectors so that the compiler vectorises across the lanes, not across `j` (which it
/// does with gathers).
fn square_lanes(p: &[[i32; LANES16]], out: &mut [[i32; LANES16]], sign: i32) {
    use wide::i32x16;
    let lanes = |c: &[i32; LANES16]| i32x16::from(*c);
    for (i, pi) in p.iter().map(lanes).enumerate() {
        let (square, twice) = (pi * pi * i32x16::splat(sign), (pi + pi) * i32x16::splat(sign));
        out[2 * i] = (lanes(&out[2 * i]) + square).to_array();
        for (o, pj) in out[2 * i + 1..].iter_mut().zip(&p[i + 1..]) {
            *o = (lanes(o) + twice * lanes(pj)).to_array();
        }
    }
}

/// The length of `v[..len]` without its trailing rows that are zero in every lane (at
/// least one).
const fn nonzero_len(v: &[[i32; LANES16]], mut len: usize) -> usize {
    while len > 1 {
        let mut lane = 0;
        while lane < LANES16 && v[len - 1][lane] == 0 {
            lane += 1;
        }
        if lane < LANES16 {
            break;
        }
        len -= 1;
    }
    len
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn multiply(a: &[i64], b: &[i64]) -> Vec<i64> {
    let mut out = vec![0i64; a.len() + b.len() - 1];
    for (i, &ai) in a.iter().enumerate() {
        for (j, &bj) in b.iter().enumerate() {
            out[i + j] += ai * bj;
        }
    }
    out
}

fn subtract(a: &[i64], b: &[i64]) -> Vec<i64> {
    (0..a.len().max(b.len())).map(|k| a.get(k).unwrap_or(&0) - b.get(k).unwrap_or(&0)).collect()
}

fn trim(mut v: Vec<i64>) -> Vec<i64> {
    while v.len() > 1 && *v.last().unwrap() == 0 {
        v.pop();
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SplitMix64;

    /// `x = E / D` by long division of the exact series, straight from the definitions.
    fn x_by_division(signs: &BlockSigns, m: usize) -> Vec<i128> {
        let e: Vec<i128> = (0..=m).map(|j| if j == 0 { 0 } else { signs.sign(2 * j) as i128 }).collect();
        let o: Vec<i128> = (0..=m).map(|j| signs.sign(2 * j + 1) as i128).collect();
        let d: Vec<i128> = (0..=m)
            .map(|k| {
                let one_minus_e_sq: i128 =
                    (0..=k).map(|i| (i128::from(i == 0) - e[i]) * (i128::from(k == i) - e[k - i])).sum();
                let o_sq: i128 = if k == 0 { 0 } else { (0..k).map(|i| o[i] * o[k - 1 - i]).sum() };
                one_minus_e_sq - o_sq
            })
            .collect();
        let mut x = vec![0i128; m + 1];
        for k in 0..=m {
            x[k] = e[k] - (1..=k).map(|i| d[i] * x[k - i]).sum::<i128>();
        }
        x
    }

    #[test]
    fn split_recurrence_matches_the_u128_one_on_every_backend() {
        use crate::kernels::series::catalan_scalar::x_coefficients_u128;
        let mut rng = SplitMix64(0xB8);
        for (preperiod, period) in [(0, 1), (53, 34), (7, 9)] {
            let head: Vec<i8> = (0..preperiod + period).map(|_| if rng.next_u64() & 1 == 0 { 1 } else { -1 }).collect();
            let rational = RationalX::new(&BlockSigns::new(head, preperiod, period));
            for n in [2u64, 3, 8_000_000_000, 8 * 1_000_000_007, 1 << 35, 8 * ((1 << 58) - 1), (1 << 61) + 3] {
                let want = x_coefficients_u128(&rational, 300, n);
                for simd in crate::simd::Simd::tested() {
                    assert_eq!(x_coefficients(simd, &rational, 300, n), want, "{simd:?} n={n}");
                }
            }
        }
    }

    #[test]
    fn lanes_give_each_character_its_own_rational_form() {
        let mut rng = SplitMix64(0xC4);
        let mut characters = vec![BlockSigns::constant(1), BlockSigns::constant(-1)];
        for (preperiod, period) in
            [(0, 1), (0, 2), (3, 1), (5, 4), (53, 34), (7, 9), (1, 3), (53, 17), (142, 1), (36, 34)]
        {
            let head: Vec<i8> = (0..preperiod + period).map(|_| if rng.next_u64() & 1 == 0 { 1 } else { -1 }).collect();
            characters.push(BlockSigns::new(head, preperiod, period));
        }
        for count in [0, 1, 5, characters.len()] {
            let lanes = RationalLanes::new(&characters[..count]).unwrap();
            for lane in 0..LANES16 {
                let column = |p: &[[i32; LANES16]]| trim(p.iter().map(|c| c[lane] as i64).collect());
                let expected =
                    characters[..count].get(lane).map_or(RationalX { num: vec![0], den: vec![1] }, RationalX::new);
                assert_eq!(column(&lanes.num), expected.num, "num, lane {lane} of {count}");
                assert_eq!(column(&lanes.den), expected.den, "den, lane {lane} of {count}");
            }
        }
    }

    /// The `const fn` the compiler builds the Dawson form with, run at run time, against
    /// the vectorised run-time path, on random shared sign rows of many shapes.
    #[test]
    fn the_const_form_matches_the_run_time_form() {
        let mut rng = SplitMix64(0xE7);
        for (len, p, used) in [(2, 1, 16), (3, 1, 1), (5, 4, 16), (44, 17, 16), (44, 17, 9), (10, 9, 3), (30, 2, 0)] {
            let rows: Vec<[i32; LANES16]> = (0..2 * len)
                .map(|_| std::array::from_fn(|lane| if lane >= used { 0 } else { 1 - 2 * (rng.next_u64() & 1) as i32 }))
                .collect();
            let (num_len, den_len, scratch_len) = RationalLanes::sign_rows_buffers(rows.len(), p);
            // Dirty buffers: the const fn must write every row it returns.
            let (mut num, mut den, mut scratch) =
                (vec![[7; LANES16]; num_len], vec![[-3; LANES16]; den_len], vec![[5; LANES16]; scratch_len]);
            let (n, d) = RationalLanes::fill_from_sign_rows(&rows, p, used, &mut num, &mut den, &mut scratch);
            let expected = RationalLanes::from_sign_rows(&rows, p, used);
            assert_eq!(
                (&num[..n], &den[..d]),
                (&expected.num[..], &expected.den[..]),
                "len {len}, P {p}, {used} lanes"
            );
        }
    }

    #[test]
    fn shared_lanes_give_each_character_its_x() {
        let mut rng = SplitMix64(0xD1);
        let mut characters = vec![BlockSigns::constant(1), BlockSigns::constant(-1)];
        for (preperiod, period) in
            [(0, 1), (0, 2), (3, 1), (5, 4), (53, 34), (7, 9), (1, 3), (53, 17), (36, 34), (2, 6), (0, 34)]
        {
            let head: Vec<i8> = (0..preperiod + period).map(|_| if rng.next_u64() & 1 == 0 { 1 } else { -1 }).collect();
            characters.push(BlockSigns::new(head, preperiod, period));
        }
        for group in [&characters[..0], &characters[..1], &characters[..5], &characters[8..12], &characters[2..]] {
            let lanes = RationalLanes::shared(group).unwrap();
            for lane in 0..LANES16 {
                let column = |p: &[[i32; LANES16]]| trim(p.iter().map(|c| c[lane] as i64).collect());
                let shared = RationalX { num: column(&lanes.num), den: column(&lanes.den) };
                assert_eq!(shared.den[0], 1, "lane {lane}");
                let expected = group.get(lane).map_or(RationalX { num: vec![0], den: vec![1] }, RationalX::new);
                // The same series (the values grow like 5^k: 40 terms stay inside i128).
                assert_eq!(shared.coefficients_exact(40), expected.coefficients_exact(40), "lane {lane}");
            }
        }
        // A period whose least common multiple is too long: no shared form.
        let long = |period: usize| BlockSigns::new(vec![1; period], 0, period);
        assert!(RationalLanes::shared(&[long(1 << 14), long((1 << 14) - 1)]).is_none());
    }

    #[test]
    fn recurrence_matches_long_division() {
        let mut rng = SplitMix64(0xA7);
        for (preperiod, period) in [(0, 1), (0, 2), (3, 1), (5, 4), (53, 34), (7, 9), (1, 3)] {
            let head: Vec<i8> = (0..preperiod + period).map(|_| if rng.next_u64() & 1 == 0 { 1 } else { -1 }).collect();
            let signs = BlockSigns::new(head, preperiod, period);
            let rational = RationalX::new(&signs);
            assert!(rational.order() <= 2 * (preperiod.div_ceil(2).max(1) + period));
            // Values grow at most like 5^k; 40 terms stay far inside i128.
            assert_eq!(rational.coefficients_exact(40), x_by_division(&signs, 40), "{preperiod}+{period}");
        }
    }
}
