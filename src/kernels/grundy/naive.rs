//! The reference: every option of every heap, straight from the definition
//! (docs/theory/octal.md §2). Each split is visited in both orders, `(a, b)` and
//! `(b, a)`, so no symmetry argument stands between the code and the rules.

use super::{Overflow, Rules, Seen, store};

/// Extends `g` to heaps `0..=max_heap` by the mex of every option. O(N^2) with split
/// moves.
pub fn grundy_naive(rules: &Rules, g: &mut Vec<u16>, max_heap: usize) -> Result<(), Overflow> {
    // Option values are xors of 16-bit values: below 2^16.
    let mut seen = Seen::new(1 << 16);
    for n in g.len()..=max_heap {
        seen.clear(1 << 16);
        rules.mark_simple_options(g, n, |v| {
            seen.insert(v);
        });
        for i in rules.split_removals() {
            if n < i + 2 {
                continue;
            }
            let rest = n - i;
            for a in 1..rest {
                let b = rest - a;
                if rules.unequal && a == b {
                    continue;
                }
                seen.insert((g[a] ^ g[b]) as u32);
            }
        }
        g.push(store(seen.mex(), n)?);
    }
    Ok(())
}

/// The same mex rule as a `const fn`, for tables the compiler builds (the Dawson values
/// of `games::kayles`): `g[n]` for every `n < g.len()`, values kept in a 64-bit set.
///
/// # Panics
/// If a value reaches 64 (at compile time, a build error).
pub const fn fill_small_values(rules: &Rules, g: &mut [u8]) {
    let mut n = 0;
    while n < g.len() {
        let mut seen = 0u64;
        if n < 64 && (rules.whole >> n) & 1 == 1 {
            seen |= 1;
        }
        let mut i = 0;
        while i < 64 {
            if i >= 1 && i < n && (rules.take >> i) & 1 == 1 {
                seen |= 1 << g[n - i];
            }
            if n >= i + 2 && (rules.split >> i) & 1 == 1 {
                let rest = n - i;
                let mut a = 1;
                // By symmetry a and rest - a give the same option: half the range.
                while a <= rest / 2 {
                    if !(rules.unequal && 2 * a == rest) {
                        seen |= 1 << (g[a] ^ g[rest - a]);
                    }
                    a += 1;
                }
            }
            i += 1;
        }
        let value = seen.trailing_ones();
        assert!(value < 64, "a value of 64 or more needs the full tables");
        g[n] = value as u8;
        n += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::grundy::check::check_games;

    #[test]
    fn the_const_rule_matches_the_reference_on_small_valued_games() {
        let mut compared = 0;
        for (game, rules) in check_games() {
            let mut expected = Vec::new();
            grundy_naive(&rules, &mut expected, 200).unwrap();
            if expected.iter().any(|&v| v >= 32) {
                continue;
            }
            let mut got = [0u8; 201];
            fill_small_values(&rules, &mut got);
            assert!(got.iter().zip(&expected).all(|(&a, &b)| a as u16 == b), "{game}");
            compared += 1;
        }
        assert!(compared >= 8, "only {compared} games compared");
    }
}
