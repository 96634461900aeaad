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
