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
//! `P/V` (relative to the first term) and inverted once at the end: 17 products per
//! term, `n/5` terms, O(1) memory.
//!
//! Prime `p <= n`: Lucas' theorem, `C(n, k) ≡ Π C(n_i, k_i)` over the base-`p` digits,
//! with factorial tables of `p` entries.

use crate::arith::{FactorialTable, inv_mod};

/// `F(n) mod p` for a prime `p < 2^32` (primality is the caller's precondition).
pub fn coins_closed_form(n: usize, p: u32) -> u32 {
    let (n, p) = (n as u64, p as u64);
    let a0 = 3 * n % 5;
    if a0 > n {
        return 0; // no a <= n with 3a ≡ 4n (mod 5): only n = 1, 2 → a0 = 3, 1; n = 1 is empty
    }
    let b0 = (4 * n - 3 * a0) / 5;
    if n < p { sum_by_ratios(n, p, a0, b0) } else { sum_by_lucas(n, p, a0, b0) }
}

/// Residues below `p < 2^32` multiply in `u64` without overflow.
#[inline]
fn mul(a: u64, b: u64, p: u64) -> u64 {
    a * b % p
}

/// `C(n, k)` as a fraction `(numerator, denominator)` of products of factors in `[1, n]`.
fn binomial_fraction(n: u64, k: u64, p: u64) -> (u64, u64) {
    let k = k.min(n - k);
    (0..k).fold((1 % p, 1 % p), |(num, den), i| (mul(num, (n - i) % p, p), mul(den, (i + 1) % p, p)))
}

fn sum_by_ratios(n: u64, p: u64, a0: u64, b0: u64) -> u32 {
    let (na, da) = binomial_fraction(n, a0, p);
    let (nb, db) = binomial_fraction(n, b0, p);
    // Invariant: Σ_{u <= t} T_u / T_0 = sum / den, and T_t / T_0 = term / den.
    let (mut term, mut sum, mut den) = (1 % p, 1 % p, 1 % p);
    let (mut a, mut b) = (a0, b0);
    while a + 5 <= n {
        // a + 5 <= n keeps n - a - 4 >= 1; b_{t+1} = b - 3 >= 0 keeps b - 2 >= 1.
        let up = [n - a, n - a - 1, n - a - 2, n - a - 3, n - a - 4, b, b - 1, b - 2];
        let down = [a + 1, a + 2, a + 3, a + 4, a + 5, n - b + 1, n - b + 2, n - b + 3];
        let ratio_num = up.iter().fold(1, |acc, &f| mul(acc, f, p));
        let ratio_den = down.iter().fold(1, |acc, &f| mul(acc, f, p));
        term = mul(term, ratio_num, p);
        sum = (mul(sum, ratio_den, p) + term) % p;
        den = mul(den, ratio_den, p);
        a += 5;
        b -= 3;
    }
    let numerator = mul(mul(na, nb, p), sum, p);
    let denominator = mul(mul(da, db, p), den, p);
    let inverse = inv_mod(denominator, p).expect("every factor lies in [1, n] and n < p");
    mul(numerator, inverse, p) as u32
}

fn sum_by_lucas(n: u64, p: u64, a0: u64, b0: u64) -> u32 {
    let table = FactorialTable::new(p as usize - 1, p).expect("p - 1 < p < 2^32");
    let lucas = |mut top: u64, mut k: u64| {
        let mut product = 1 % p;
        while k > 0 && product != 0 {
            product = mul(product, table.binom((top % p) as i64, (k % p) as i64), p);
            (top, k) = (top / p, k / p);
        }
        product
    };
    let (mut a, mut b) = (a0, b0);
    let mut sum = 0;
    loop {
        sum = (sum + mul(lucas(n, a), lucas(n, b), p)) % p;
        if a + 5 > n {
            break;
        }
        a += 5;
        b -= 3;
    }
    sum as u32
}
