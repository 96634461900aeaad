//! Factorials and inverse factorials modulo a prime below 2^32, for binomial coefficients.

use super::inv_mod;

/// `k!` and `(k!)^-1` modulo a prime `p < 2^32` for `k <= n`; requires `n < p`, so that
/// no factorial in the table is divisible by `p`. Values are stored as `u32` (8 bytes per
/// entry for both tables) and multiplied in `u64`, which cannot overflow below 2^32.
#[derive(Clone, Debug)]
pub struct FactorialTable {
    p: u64,
    fact: Vec<u32>,
    inv_fact: Vec<u32>,
}

impl FactorialTable {
    /// Bytes the tables for `n` take, for memory estimates before allocating.
    pub const fn bytes_for(n: u64) -> u64 {
        8 * (n + 1)
    }

    /// Tables up to `n`, or `None` unless `n < p < 2^32`. Primality of `p` is the caller's
    /// precondition (validated at the problem's edge).
    pub fn new(n: usize, p: u64) -> Option<Self> {
        if n as u64 >= p || p >= 1 << 32 {
            return None;
        }
        let mut fact = Vec::with_capacity(n + 1);
        fact.push((1 % p) as u32);
        for k in 1..=n {
            fact.push((fact[k - 1] as u64 * k as u64 % p) as u32);
        }
        // One inversion, then (k-1)!^-1 = k!^-1 · k walks the table downwards.
        let mut inv_fact = vec![0u32; n + 1];
        inv_fact[n] = inv_mod(fact[n] as u64, p)? as u32;
        for k in (1..=n).rev() {
            inv_fact[k - 1] = (inv_fact[k] as u64 * k as u64 % p) as u32;
        }
        Some(Self { p, fact, inv_fact })
    }

    /// `C(a, b) mod p`, with the convention `C(a, b) = 0` when `b < 0`, `b > a` or `a < 0`
    /// (the card-frequency formulas reach such arguments at their edges).
    ///
    /// # Panics
    /// If `a` exceeds the table size `n`.
    #[inline]
    pub fn binom(&self, a: i64, b: i64) -> u64 {
        if a < 0 || b < 0 || b > a {
            return 0;
        }
        let (a, b) = (a as usize, b as usize);
        self.fact[a] as u64 * self.inv_fact[b] as u64 % self.p * self.inv_fact[a - b] as u64 % self.p
    }

    /// `k! mod p`.
    #[inline]
    pub fn factorial(&self, k: usize) -> u64 {
        self.fact[k] as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials_match_pascal_triangle() {
        for p in [1_000_000_007u64, 4_294_967_291] {
            let table = FactorialTable::new(60, p).unwrap();
            let mut row = vec![1u64];
            for a in 0..=60i64 {
                for b in -2..=a + 2 {
                    let expected = if (0..=a).contains(&b) { row[b as usize] } else { 0 };
                    assert_eq!(table.binom(a, b), expected, "C({a},{b}) mod {p}");
                }
                let mut next = vec![1u64; row.len() + 1];
                for i in 1..row.len() {
                    next[i] = (row[i - 1] + row[i]) % p;
                }
                row = next;
            }
            assert_eq!(table.binom(-1, 0), 0);
        }
        assert!(FactorialTable::new(7, 7).is_none());
        assert!(FactorialTable::new(3, 1 << 32).is_none());
        assert_eq!(FactorialTable::new(6, 7).unwrap().binom(6, 3), 20 % 7);
    }
}
