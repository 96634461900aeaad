//! `F(n) = Σ_{3a + 5b = 4n} C(n, a)·C(n, b) mod p` for the two-coin stacks.
//!
//! `x^4 + x + x^-1 + x^-4 = x^-4·(1 + x^3)(1 + x^5)`, so `F(n) = [x^(4n)] (1+x^3)^n (1+x^5)^n`:
//! choose `a` factors `x^3` and `b` factors `x^5` with `3a + 5b = 4n`. Then
//! `3a ≡ 4n (mod 5)` gives `a ≡ 3n (mod 5)`, and `a = a0 + 5t`, `b = b0 - 3t` for `t >= 0`
//! while `a <= n` (`b` stays in `[0, n]` for every such `a`).
//!
//! Prime `p > n`: no table. Consecutive terms have the ratio
//! `T_{t+1}/T_t = [(n-a)···(n-a-4)·b(b-1)(b-2)] / [(a+1)···(a+5)·(n-b+1)(n-b+2)(n-b+3)]`,
//! whose factors all lie in `[1, n]`, so are invertible. The sum is kept as one fraction
//! `P/V` (relative to the first term) and inverted once at the end, `n/5` terms, O(1)
//! memory. With `a = a0 + 5t` and `b = b0 - 3t` the ratio's numerator and denominator
//! are polynomials of degree 8 in `t`, so they run by forward differences: 16 additions
//! and 3 products per term (there were 17 products when each ratio was multiplied out;
//! docs/theory/coins.md §7). For odd `p < 2^31` the terms run in sixteen runs, one per
//! lane, joined at the end, and the first term's binomials in sixteen lanes
//! ([`super::ratio_lanes`]).
//! Numerator and denominator of the sum take the same number of products, so Montgomery
//! products of plain residues (each a factor `2^-32` off) give the same fraction; they
//! replace Barrett's 128-bit multiply for odd `p < 2^31`.
//!
//! Prime `p <= n`: Lucas' theorem, `C(n, k) ≡ Π C(n_i, k_i)` over the base-`p` digits,
//! with factorial tables of `p` entries.

use super::ratio_lanes::{self, FACTORS, LinearFactor};
use crate::arith::{Barrett32, FactorialTable, LANES, Montgomery32, inv_mod};
use crate::simd::Simd;
use crate::simd::mont::Block;

/// `F(n) mod p` for a prime `p < 2^32` (primality is the caller's precondition), the
/// term ratios on `simd`'s backend for odd `p < 2^31` ([`ratio_lanes`]).
pub fn coins_closed_form(simd: Simd, n: usize, p: u32) -> u32 {
    let (n, p) = (n as u64, p as u64);
    let a0 = 3 * n % 5;
    if a0 > n {
        return 0; // no a <= n with 3a ≡ 4n (mod 5): only n = 1, 2 → a0 = 3, 1; n = 1 is empty
    }
    let b0 = (4 * n - 3 * a0) / 5;
    if n < p { sum_by_ratios(simd, n, p, a0, b0) } else { sum_by_lucas(n, p, a0, b0) }
}

/// A product modulo `p` up to a constant factor: `a·b·c mod p` for a fixed unit `c`.
/// The closed form only ever takes ratios of two quantities built with the same number
/// of products, so `c` cancels and any such product gives the same answer.
trait ScaledProduct: Copy {
    /// `a·b·c mod p` for `a, b < p`.
    fn mul(self, a: u64, b: u64) -> u64;
}

/// `c = 1`: a plain product, for any modulus below `2^32`.
impl ScaledProduct for Barrett32 {
    #[inline(always)]
    fn mul(self, a: u64, b: u64) -> u64 {
        Barrett32::mul(self, a, b)
    }
}

/// `c = 2^-32`: a Montgomery product of plain residues, for odd moduli below `2^31`.
/// About two thirds of the instructions of a Barrett product and no 128-bit multiply.
impl ScaledProduct for Montgomery32 {
    #[inline(always)]
    fn mul(self, a: u64, b: u64) -> u64 {
        Montgomery32::mul(&self, a as u32, b as u32) as u64
    }
}

/// `C(n, k)` as a fraction `(numerator, denominator)` of products of factors in `[1, n]`,
/// both scaled by `c^k`.
#[inline(always)]
fn binomial_fraction(n: u64, k: u64, mp: impl ScaledProduct) -> (u64, u64) {
    let k = k.min(n - k);
    (0..k).fold((1, 1), |(num, den), i| (mp.mul(num, n - i), mp.mul(den, i + 1)))
}

fn sum_by_ratios(simd: Simd, n: u64, p: u64, a0: u64, b0: u64) -> u32 {
    // Factors are at most n < p, so both products take them unreduced.
    match Montgomery32::new(p) {
        Some(mont) => sum_by_ratio_lanes(simd, mont, n, p, a0, b0),
        None => sum_by_ratios_with(Barrett32::new(p), n, p, a0, b0),
    }
}

/// The factors of the ratio `T_{t+1}/T_t = N(t)/D(t)`, each linear in `t`: with
/// `a = a0 + 5t` and `b = b0 - 3t`, eight for `N` and eight for `D`.
fn ratio_factors(n: u64, a0: u64, b0: u64, t: i64) -> ([i64; 8], [i64; 8]) {
    let (n, a, b) = (n as i64, a0 as i64 + 5 * t, b0 as i64 - 3 * t);
    let up = [n - a, n - a - 1, n - a - 2, n - a - 3, n - a - 4, b, b - 1, b - 2];
    let down = [a + 1, a + 2, a + 3, a + 4, a + 5, n - b + 1, n - b + 2, n - b + 3];
    (up, down)
}

/// The product of `factors` modulo `p`: past the last term the factors may be negative,
/// and the polynomial is the same.
fn factor_product(factors: [i64; 8], plain: Barrett32, p: u64) -> u64 {
    factors.iter().fold(1 % p, |v, &x| plain.mul(v, x.rem_euclid(p as i64) as u64))
}

/// [`sum_by_ratios_with`] with the terms in sixteen runs, one per lane
/// ([`ratio_lanes`]): lane `i` walks terms `i·S + 1 ..= (i + 1)·S` (`S` = terms / 16)
/// relative to the term before its run, the last terms (fewer than sixteen) continue
/// the last lane's tables on the scalar chain, and the runs are joined in order with
/// plain products. Each run's `term`, `sum` and `den` carry one scale, so every fraction
/// the join forms has numerator and denominator scaled alike.
fn sum_by_ratio_lanes(simd: Simd, mont: Montgomery32, n: u64, p: u64, a0: u64, b0: u64) -> u32 {
    let terms = (n - a0) / 5;
    let steps = terms / LANES as u64;
    // Run starts are below terms <= n / 5 < p, as the lanes' arithmetic needs.
    let starts: Block = std::array::from_fn(|lane| (lane as u64 * steps) as u32);
    let factors = linear_factors(n, a0, b0, p);
    let tables = ratio_lanes::run_tables(simd, &mont, &factors, &starts);
    let runs = ratio_lanes::walk_runs(simd, &mont, &tables, steps);

    // The last lane's tables stand at t = 16·S, where the remaining terms begin.
    let last = LANES - 1;
    let column = |side: usize| Differences::from_table(std::array::from_fn(|k| runs.tables[side][k][last] as u64), p);
    let (mut num, mut den_ratio) = (column(0), column(1));
    let tail =
        Chain { term: 1, sum: 0, den: 1 }.walk(mont, p, (&mut num, &mut den_ratio), terms - LANES as u64 * steps);

    // Join: `before / before_den = T_start / T_0` for the next run's start, and
    // `total / total_den` the sum of the terms so far relative to T_0 (T_0 itself is 1).
    let plain = Barrett32::new(p);
    let (mut total, mut total_den, mut before, mut before_den) = (1, 1, 1, 1);
    let tail = std::iter::once((tail.term, tail.sum, tail.den));
    for (run_term, run_sum, run_den) in
        (0..LANES).map(|i| (runs.term[i] as u64, runs.sum[i] as u64, runs.den[i] as u64)).chain(tail)
    {
        let joint_den = plain.mul(before_den, run_den);
        let added = plain.mul(total_den, plain.mul(before, run_sum));
        total = plain.mul(total, joint_den) + added;
        if total >= p {
            total -= p;
        }
        total_den = plain.mul(total_den, joint_den);
        before = plain.mul(before, run_term);
        before_den = joint_den;
    }
    let binomial = |k: u64| {
        let (num, den) = ratio_lanes::binomial_fraction_lanes(simd, &mont, n as u32, k.min(n - k) as u32);
        (num as u64, den as u64)
    };
    fraction_value(mont, p, [binomial(a0), binomial(b0)], (total, total_den))
}

/// The sixteen factors of the ratio as `base + slope·t` modulo `p`: numerator `[0]`,
/// denominator `[1]`, from [`ratio_factors`] at `t = 0` and `t = 1`.
fn linear_factors(n: u64, a0: u64, b0: u64, p: u64) -> [[LinearFactor; FACTORS]; 2] {
    let (at0, at1) = (ratio_factors(n, a0, b0, 0), ratio_factors(n, a0, b0, 1));
    let side = |zero: [i64; 8], one: [i64; 8]| {
        std::array::from_fn(|f| LinearFactor {
            base: zero[f].rem_euclid(p as i64) as u32,
            slope: i8::try_from(one[f] - zero[f]).expect("slopes are ±3 and ±5"),
        })
    };
    [side(at0.0, at1.0), side(at0.1, at1.1)]
}

/// `F(n)`: the first term `C(n, a0)·C(n, b0)` (each binomial a fraction) times the sum of
/// the terms relative to it, `sum / den`, with `mp`'s scaled products. Numerator and
/// denominator take the same products, so the scales cancel in the one division.
fn fraction_value(mp: impl ScaledProduct, p: u64, binomials: [(u64, u64); 2], (sum, den): (u64, u64)) -> u32 {
    let [(na, da), (nb, db)] = binomials;
    let numerator = mp.mul(mp.mul(na, nb), sum);
    let denominator = mp.mul(mp.mul(da, db), den);
    let inverse = inv_mod(denominator, p).expect("every factor lies in [1, n] and n < p");
    // A plain product: the two scales have cancelled.
    Barrett32::new(p).mul(numerator, inverse) as u32
}

/// The sum of the terms as one fraction relative to the first term, with `mp`'s scaled
/// products: numerator and denominator take the same number of them, so the scale
/// cancels in the final division.
// Out of line: inlined beside the lane path its loop took 7 more instructions a term
// (callgrind, 10^6 stacks modulo 4294967291: 41.9 M against 39.9 M).
#[inline(never)]
fn sum_by_ratios_with(mp: impl ScaledProduct, n: u64, p: u64, a0: u64, b0: u64) -> u32 {
    // The ratio T_{t+1}/T_t = N(t)/D(t): with a = a0 + 5t and b = b0 - 3t each of N and D
    // is a product of eight factors linear in t, a polynomial of degree 8, so both run
    // by forward differences, eight additions a step instead of seven products.
    let factors = |t: i64| ratio_factors(n, a0, b0, t);
    let plain = Barrett32::new(p);
    let value = |f: [i64; 8]| factor_product(f, plain, p);
    let mut num = Differences::new(std::array::from_fn(|t| value(factors(t as i64).0)), p);
    let mut den_ratio = Differences::new(std::array::from_fn(|t| value(factors(t as i64).1)), p);
    // Invariant after t terms: Σ_{u <= t} T_u / T_0 = sum / den and T_t / T_0 = term / den,
    // where sum, term and den each carry the factor c^t of the scaled products.
    // Terms t = 1, 2, .. while a_t = a0 + 5t <= n; every factor then lies in [1, n].
    let chain = Chain { term: 1 % p, sum: 1 % p, den: 1 % p }.walk(mp, p, (&mut num, &mut den_ratio), (n - a0) / 5);
    fraction_value(mp, p, [binomial_fraction(n, a0, mp), binomial_fraction(n, b0, mp)], (chain.sum, chain.den))
}

/// The terms as one fraction, term by term (docs/theory/coins.md §7): after `t` steps from
/// `T_u`, `term / den = T_{u+t} / T_u` and `sum / den` is the sum of the terms so far
/// relative to `T_u`; all three carry the scale of `t` of the products.
#[derive(Clone, Copy)]
struct Chain {
    term: u64,
    sum: u64,
    den: u64,
}

impl Chain {
    /// `terms` more terms, their ratios `N(t) / D(t)` from the difference tables `ratio`,
    /// which it steps along.
    #[inline(always)]
    fn walk(self, mp: impl ScaledProduct, p: u64, ratio: (&mut Differences, &mut Differences), terms: u64) -> Self {
        let (num, den_ratio) = ratio;
        let Self { mut term, mut sum, mut den } = self;
        for _ in 0..terms {
            let (ratio_num, ratio_den) = (num.value(), den_ratio.value());
            term = mp.mul(term, ratio_num);
            // Both below p: one conditional subtraction.
            sum = mp.mul(sum, ratio_den) + term;
            if sum >= p {
                sum -= p;
            }
            den = mp.mul(den, ratio_den);
            num.step();
            den_ratio.step();
        }
        Self { term, sum, den }
    }
}

/// A polynomial of degree at most 8 at `t = 0, 1, 2, ..` modulo `p`, by its forward
/// differences `Δ^k P(t)`: each step adds `Δ^(k+1) P(t)` to `Δ^k P(t)`.
struct Differences {
    table: [u64; 9],
    p: u64,
}

impl Differences {
    /// From `P(0), .., P(8)`, residues below `p`.
    fn new(mut table: [u64; 9], p: u64) -> Self {
        for k in 1..9 {
            for i in (k..9).rev() {
                table[i] = (table[i] + p - table[i - 1]) % p;
            }
        }
        Self { table, p }
    }

    /// From its differences `Δ^k P(t)`, `k = 0..=8`, at some `t`: the table
    /// [`Self::new`] builds, or one stepped elsewhere.
    fn from_table(table: [u64; 9], p: u64) -> Self {
        Self { table, p }
    }

    /// `P(t)`.
    #[inline(always)]
    fn value(&self) -> u64 {
        self.table[0]
    }

    /// `t` to `t + 1`: in increasing `k`, so that each addition reads the old `Δ^(k+1)`.
    #[inline(always)]
    fn step(&mut self) {
        for k in 0..8 {
            let s = self.table[k] + self.table[k + 1];
            self.table[k] = if s >= self.p { s - self.p } else { s };
        }
    }
}

fn sum_by_lucas(n: u64, p: u64, a0: u64, b0: u64) -> u32 {
    let mp = Barrett32::new(p);
    let table = FactorialTable::new(p as usize - 1, p).expect("p - 1 < p < 2^32");
    let lucas = |mut top: u64, mut k: u64| {
        let mut product = 1 % p;
        while k > 0 && product != 0 {
            product = mp.mul(product, table.binom((top % p) as i64, (k % p) as i64));
            (top, k) = (top / p, k / p);
        }
        product
    };
    let (mut a, mut b) = (a0, b0);
    let mut sum = 0;
    loop {
        sum = mp.reduce(sum + mp.mul(lucas(n, a), lucas(n, b)));
        if a + 5 > n {
            break;
        }
        a += 5;
        b -= 3;
    }
    sum as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_follow_a_polynomial_of_degree_eight() {
        // P(t) = Π (t - r_i) for eight roots, some negative, modulo a small and a large
        // prime: the stepped values equal P evaluated afresh, past the roots too.
        for p in [101u64, 4_294_967_291] {
            let roots = [-7i64, -1, 0, 3, 3, 50, 120, 999];
            let eval = |t: i64| {
                roots.iter().fold(1u64, |v, &r| (v as u128 * (t - r).rem_euclid(p as i64) as u128 % p as u128) as u64)
            };
            let mut d = Differences::new(std::array::from_fn(|t| eval(t as i64)), p);
            for t in 0..2000 {
                assert_eq!(d.value(), eval(t), "t = {t}, p = {p}");
                d.step();
            }
        }
    }

    #[test]
    fn montgomery_and_plain_products_give_the_same_sums() {
        // The scale c = 2^-32 of the Montgomery products cancels: the same fraction as
        // with plain products, for every n up to 3000 and primes from small to near 2^31,
        // and the same again with the ratios and binomials in lanes on every backend.
        for p in [3u64, 101, 10_007, 989_898_989, 2_147_483_647] {
            let mont = Montgomery32::new(p).expect("an odd prime below 2^31");
            for n in 3..3000u64.min(p) {
                let a0 = 3 * n % 5;
                if a0 > n {
                    continue;
                }
                let b0 = (4 * n - 3 * a0) / 5;
                let plain = sum_by_ratios_with(Barrett32::new(p), n, p, a0, b0);
                assert_eq!(sum_by_ratios_with(mont, n, p, a0, b0), plain, "n = {n}, p = {p}");
                for simd in Simd::tested() {
                    let lanes = sum_by_ratio_lanes(simd, mont, n, p, a0, b0);
                    assert_eq!(lanes, plain, "n = {n}, p = {p}, lanes on {simd}");
                }
            }
        }
    }

    #[test]
    fn long_runs_in_lanes_give_the_scalar_chains_sum() {
        // Runs of thousands of terms each, every remainder below sixteen nearby.
        let p = 989_898_989u64;
        let mont = Montgomery32::new(p).expect("an odd prime below 2^31");
        for n in (0..20).map(|i| 400_000 + 41 * i).chain([999_999, 1_000_000]) {
            let a0 = 3 * n % 5;
            let b0 = (4 * n - 3 * a0) / 5;
            let scalar = sum_by_ratios_with(mont, n, p, a0, b0);
            for simd in Simd::tested() {
                assert_eq!(sum_by_ratio_lanes(simd, mont, n, p, a0, b0), scalar, "n = {n} on {simd}");
            }
        }
    }
}
