//! Scalar modular arithmetic for any modulus `2 <= m < 2^64`, through `u128` products.
//!
//! These are the slow, obviously-correct forms: references and setup code use them;
//! hot loops use [`super::Montgomery32`] or the lane types of the kernels.

/// `(a + b) mod m` for residues `a, b < m`.
#[inline]
pub fn add_mod(a: u64, b: u64, m: u64) -> u64 {
    debug_assert!(a < m && b < m);
    // a + b may exceed 2^64 when m > 2^63; u128 keeps it exact.
    ((a as u128 + b as u128) % m as u128) as u64
}

/// `(a - b) mod m` for residues `a, b < m`.
#[inline]
pub fn sub_mod(a: u64, b: u64, m: u64) -> u64 {
    debug_assert!(a < m && b < m);
    if a >= b { a - b } else { m - (b - a) }
}

/// `(a * b) mod m`, exact for any operands (the product is formed in `u128`).
#[inline]
pub fn mul_mod(a: u64, b: u64, m: u64) -> u64 {
    ((a as u128 * b as u128) % m as u128) as u64
}

/// `base^exp mod m` by square-and-multiply. `0^0 = 1`, and `m = 1` gives 0.
pub fn pow_mod(base: u64, exp: u64, m: u64) -> u64 {
    power(base % m, exp, 1 % m, |x, y| mul_mod(x, y, m))
}

/// `base^exp` by right-to-left square-and-multiply under the product `mul`, whose unit
/// is `one`: one loop for every modular product the setup code uses.
#[inline(always)]
fn power(mut base: u64, mut exp: u64, one: u64, mul: impl Fn(u64, u64) -> u64) -> u64 {
    let mut result = one;
    while exp > 0 {
        if exp & 1 == 1 {
            result = mul(result, base);
        }
        base = mul(base, base);
        exp >>= 1;
    }
    result
}

/// The inverse of `a` modulo `m`, if `gcd(a, m) = 1`, by the extended Euclidean algorithm.
pub fn inv_mod(a: u64, m: u64) -> Option<u64> {
    // Invariant: old_r ≡ old_s·a and r ≡ s·a (mod m), with the s kept as signed i128.
    let (mut old_r, mut r) = (a as i128 % m as i128, m as i128);
    let (mut old_s, mut s) = (1i128, 0i128);
    while r != 0 {
        let q = old_r / r;
        (old_r, r) = (r, old_r - q * r);
        (old_s, s) = (s, old_s - q * s);
    }
    (old_r == 1 || m == 1).then(|| old_s.rem_euclid(m as i128) as u64)
}

/// Deterministic Miller–Rabin for all `n < 2^64`: the first twelve primes as bases are
/// enough below 3.3·10^24 (Sorenson and Webster, 2015), and 2, 7 and 61 below
/// 4 759 123 141 (Jaeschke, 1993), where the products also fit in a `u64`. The moduli
/// the kernels take are below 2^32, and their checks run inside the timed region: the
/// short form costs a tenth of the long one's 128-bit remainders.
pub fn is_prime(n: u64) -> bool {
    const BASES: [u64; 12] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];
    const BASES_BELOW_2_32: [u64; 3] = [2, 7, 61];
    if n < 2 {
        return false;
    }
    for &p in &BASES {
        if n.is_multiple_of(p) {
            return n == p;
        }
    }
    if n < 1 << 32 {
        // x, y < n < 2^32: the product fits in a u64.
        strong_probable_prime(n, &BASES_BELOW_2_32, |x, y| x * y % n)
    } else {
        strong_probable_prime(n, &BASES, |x, y| mul_mod(x, y, n))
    }
}

/// Whether odd `n > 37` passes the strong test to every base (a base that `n` divides
/// says nothing and is skipped), with `mul` the product modulo `n`.
#[inline(always)]
fn strong_probable_prime(n: u64, bases: &[u64], mul: impl Fn(u64, u64) -> u64) -> bool {
    let s = (n - 1).trailing_zeros();
    let d = (n - 1) >> s;
    'witness: for &a in bases {
        if a % n == 0 {
            continue;
        }
        let mut x = power(a % n, d, 1, &mul);
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = mul(x, x);
            if x == n - 1 {
                continue 'witness;
            }
        }
        return false;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_prime_by_trial_division(n: u64) -> bool {
        n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| !n.is_multiple_of(d))
    }

    #[test]
    fn primality_agrees_with_trial_division() {
        for n in 0..20_000 {
            assert_eq!(is_prime(n), is_prime_by_trial_division(n), "n = {n}");
        }
        for n in [1_000_000_007, 998_244_353, 989_898_989, 999_999_937, (1 << 31) - 1] {
            assert!(is_prime(n), "{n}");
        }
        // Strong pseudoprimes to several small bases, and a large semiprime.
        for n in [3_215_031_751, 341_550_071_728_321, 1_000_000_007 * 998_244_353] {
            assert!(!is_prime(n), "{n}");
        }
        assert!(is_prime(18_446_744_073_709_551_557)); // the largest prime below 2^64
    }

    #[test]
    fn three_bases_below_2_32_agree_with_twelve() {
        // The twelve-base test with 128-bit products, as it runs above 2^32.
        let twelve = |n: u64| {
            let small = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];
            if n < 2 || small.iter().any(|&p| n.is_multiple_of(p)) {
                return small.contains(&n);
            }
            strong_probable_prime(n, &small, |x, y| mul_mod(x, y, n))
        };
        // Strong pseudoprimes to base 2 (2047 and on), to 2, 3 and 5 (25326001), to 2 to
        // 7 (3215031751), the primes 61 and 2^32 - 5, and windows below 2^32.
        let special = [61, 2047, 3277, 4033, 4681, 8321, 15841, 29341, 25_326_001, 3_215_031_751, 4_294_967_291];
        let windows =
            [1_000_000_000..1_000_020_000, (1 << 31) - 10_000..(1 << 31) + 10_000, (1 << 32) - 20_000..1 << 32];
        for n in special.into_iter().chain(windows.into_iter().flatten()) {
            assert_eq!(is_prime(n), twelve(n), "n = {n}");
        }
    }

    #[test]
    fn inverse_and_power_agree() {
        for m in [2u64, 3, 10, 1_000_000_007, u64::MAX] {
            for a in [1u64, 2, 3, 7, 12345, m - 1] {
                let a = a % m;
                match inv_mod(a, m) {
                    Some(inv) => assert_eq!(mul_mod(a, inv, m), 1 % m, "a={a} m={m}"),
                    None => assert_ne!(gcd(a, m), 1, "a={a} m={m}"),
                }
            }
        }
        let p = 1_000_000_007;
        assert_eq!(pow_mod(3, p - 1, p), 1);
        assert_eq!(pow_mod(0, 0, p), 1);
        assert_eq!(pow_mod(5, 3, 1), 0);
        assert_eq!(add_mod(u64::MAX - 1, u64::MAX - 1, u64::MAX), u64::MAX - 2);
        assert_eq!(sub_mod(1, 2, 7), 6);
    }

    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 { a } else { gcd(b, a % b) }
    }
}
