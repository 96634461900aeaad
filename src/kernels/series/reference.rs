//! The reference (docs/theory/kayles.md §11): numerator and denominator as exact integer
//! series, long division modulo `2M'`, then the square root with the halving rule.
//!
//! Halving: `2·r_k = s_k - Σ_{0<i<k} r_i·r_{k-i}` is known modulo `2M'`; its half is
//! `r_k` modulo `M'`. This is sound because the paired products `2·r_i·r_{k-i}` and the
//! middle square `r_{k/2}^2` modulo `2M'` depend only on the `r` modulo `M'` when `M'` is
//! even, and the true right-hand side is even (the `r_k` are integers).

/// `c(0..=m) mod modulus` (`modulus` even, `< 2^62`) from the block signs `signs[0..=2m+1]`.
pub fn series_reference(signs: &[i8], m: usize, modulus: u64) -> Vec<u64> {
    let len = m + 1;
    let e: Vec<i64> = (0..len).map(|j| if j == 0 { 0 } else { signs[2 * j] as i64 }).collect();
    let o: Vec<i64> = (0..len).map(|j| signs[2 * j + 1] as i64).collect();
    let e_sq = square_truncated(&e);
    let o_sq = square_truncated(&o);
    // Coefficients of (1 ± E)^2 - u·(Σ o_j u^j)^2; all bounded by 4(m+1) in size.
    let series = |sign: i64| -> Vec<i64> {
        (0..len)
            .map(|k| {
                let one = i64::from(k == 0);
                let shifted_o_sq = if k == 0 { 0 } else { o_sq[k - 1] };
                one + 2 * sign * e[k] + e_sq[k] - shifted_o_sq
            })
            .collect()
    };
    let (numerator, denominator) = (series(1), series(-1));
    debug_assert_eq!(denominator[0], 1);

    let two_m = 2 * modulus as u128; // < 2^63
    let residue = |v: i64| v.rem_euclid(two_m as i64) as u128;
    let den: Vec<u128> = denominator.iter().map(|&v| residue(v)).collect();
    // Long division: s_k = num_k - Σ_{i=1..k} den_i·s_{k-i}  (mod 2M').
    let mut quotient = vec![0u128; len];
    for k in 0..len {
        let mut acc = residue(numerator[k]);
        for i in 1..=k {
            // den_i < 2^63 and s < 2^63: the product fits u128; reduce before adding.
            acc = (acc + two_m - den[i] * quotient[k - i] % two_m) % two_m;
        }
        quotient[k] = acc;
    }
    // Square root with r_0 = 1, each r_k kept modulo M' = modulus.
    let mut root = vec![0u128; len];
    root[0] = 1 % modulus as u128;
    for k in 1..len {
        let mut twice = quotient[k];
        for i in 1..k {
            twice = (twice + two_m - root[i] * root[k - i] % two_m) % two_m;
        }
        assert!(twice.is_multiple_of(2), "halving rule violated at k={k}: the character series is not integral");
        root[k] = twice / 2;
    }
    root.into_iter().map(|r| r as u64).collect()
}

/// The first `a.len()` coefficients of `a^2`, exactly.
fn square_truncated(a: &[i64]) -> Vec<i64> {
    (0..a.len()).map(|k| (0..=k).map(|i| a[i] * a[k - i]).sum()).collect()
}
