//! Barrett reduction for a run-time modulus below 2^32.

/// Products modulo a run-time `2 <= p < 2^32` without a division: Barrett reduction
/// with `r = floor((2^64 - 1)/p)`. For `x < 2^64` the estimate `q = floor(x·r/2^64)`
/// falls short of `floor(x/p)` by at most 2 (`x·r/2^64 >= x/p - x/2^64 - 1`), so
/// `x - q·p < 3p < 2^34` and two conditional subtractions finish. A hardware division
/// by a run-time value costs three times as much here (`machine-limits.md`).
#[derive(Clone, Copy, Debug)]
pub struct Barrett32 {
    p: u64,
    r: u64,
}

impl Barrett32 {
    /// The reducer for `p`.
    ///
    /// # Panics
    /// Unless `2 <= p < 2^32`.
    pub fn new(p: u64) -> Self {
        assert!((2..1 << 32).contains(&p), "modulus {p} out of range");
        Self { p, r: u64::MAX / p }
    }

    /// `x mod p` for any `x < 2^64`.
    #[inline]
    pub fn reduce(self, x: u64) -> u64 {
        let q = ((x as u128 * self.r as u128) >> 64) as u64;
        let mut rem = x - q * self.p; // q <= x/p: no underflow; rem < 3p
        if rem >= self.p {
            rem -= self.p;
        }
        if rem >= self.p {
            rem -= self.p;
        }
        rem
    }

    /// `a·b mod p` for `a, b < 2^32` (residues, or factors below `2^32`).
    #[inline]
    pub fn mul(self, a: u64, b: u64) -> u64 {
        debug_assert!(a < 1 << 32 && b < 1 << 32);
        self.reduce(a * b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn barrett_products_match_u128_arithmetic_at_the_edges() {
        for p in [2u64, 3, 989_898_989, (1 << 31) - 1, 1 << 31, 4_294_967_291, u32::MAX as u64] {
            let mp = Barrett32::new(p);
            let edges = [0, 1, 2, p / 2, p - 2, p - 1, (1 << 32) - 1];
            for &a in &edges {
                for &b in &edges {
                    assert_eq!(mp.mul(a, b), (a as u128 * b as u128 % p as u128) as u64, "{a}·{b} mod {p}");
                }
            }
            for x in [u64::MAX, u64::MAX - 1, u64::MAX / p * p, u64::MAX / p * p - 1, 1 << 63] {
                assert_eq!(mp.reduce(x), x % p, "{x} mod {p}");
            }
        }
    }
}
