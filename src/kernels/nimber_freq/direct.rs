//! The closed form evaluated term by term, tails summed afresh for each nimber: O(N^2)
//! with exact integers. The oracle for the linear variant; small `N` only.

/// Exact `F_n(v)` for `v < n` (n <= 60 keeps every value inside `u128`).
pub fn nimber_freq_direct(n: usize) -> Vec<u128> {
    assert!((1..=60).contains(&n), "the direct formula is for 1 <= n <= 60, got {n}");
    let binom = |a: i64, b: i64| -> u128 {
        if a < 0 || b < 0 || b > a {
            return 0;
        }
        (0..b as u128).fold(1u128, |acc, i| acc * (a as u128 - i) / (i + 1))
    };
    let mut freq = vec![0u128; n];
    freq[0] = if n == 1 { 2 } else { (1u128 << (n - 2)) + 2 };
    for (v, slot) in freq.iter_mut().enumerate().skip(1) {
        let k = v.div_ceil(2) as i64;
        let r = n as i64 - k - 1 - i64::from(v % 2 == 0);
        let tail: u128 = (0..=k - 2).map(|i| binom(r, i)).sum();
        // The formula is a count, so the subtraction cannot go negative.
        *slot = (1u128 << r) + binom(r, k) - tail;
    }
    freq
}
