//! Split pairs as vectorised xor scans (docs/theory/octal.md §2).
//!
//! The options of a split of `rest = n - i` tokens are `G(a) ^ G(rest - a)` for
//! `1 <= a <= rest / 2`. Reading `G(rest - a)` from a reversed copy of the table turns
//! the scan into two forward streams, which the compiler vectorises. While every value
//! is below 64 the seen set is a 64-bit word per lane, `acc |= 1 << (x ^ y)`
//! (`vpsllvq` on AVX2 and AVX-512), OR-reduced once per heap; past 64 the xors go through
//! a small buffer into a stamped table. The code is plain Rust, instantiated per SIMD
//! backend by [`multiversion!`](crate::multiversion) so each backend's entry point
//! compiles it with its own instruction set.

use super::{Overflow, Rules, Seen, store};
use crate::simd::Backend;

/// Lanes of the word accumulators: wide enough for eight 64-bit lanes per AVX-512
/// register, two registers on AVX2.
const LANES: usize = 8;
/// Xors buffered before they are stamped in the wide-value path.
const CHUNK: usize = 256;

crate::multiversion! {
    /// Extends `g` to heaps `0..=max_heap`, split pairs by vectorised scans.
    pub fn grundy_bitset(rules: &Rules, g: &mut Vec<u16>, max_heap: usize) -> Result<(), Overflow> => bitset_generic;
}

/// `B` only selects the entry point (and so the instruction set the plain loops are
/// compiled for); the code does not name it.
#[inline(always)]
#[allow(clippy::extra_unused_type_parameters)]
fn bitset_generic<B: Backend>(rules: &Rules, g: &mut Vec<u16>, max_heap: usize) -> Result<(), Overflow> {
    // rev[max_heap - x] = G(x): G(rest - a) = rev[max_heap - rest + a], ascending in a.
    let mut rev = vec![0u16; max_heap + 1];
    for (x, &v) in g.iter().enumerate() {
        rev[max_heap - x] = v;
    }
    let mut max_value = g.iter().copied().max().unwrap_or(0) as u32;
    let mut seen = Seen::new(1 << 16);
    let mut xors = [0u16; CHUNK];
    for n in g.len()..=max_heap {
        let mut word = 0u64;
        let narrow = max_value < 64;
        if !narrow {
            seen.clear(1 << 16);
        }
        rules.mark_simple_options(g, n, |v| {
            if narrow {
                word |= 1 << v;
            } else {
                seen.insert(v);
            }
        });
        for i in rules.split_removals() {
            if n < i + 2 {
                continue;
            }
            let rest = n - i;
            let mut last = rest / 2;
            if rules.unequal && rest.is_multiple_of(2) {
                last -= 1;
            }
            let lo = &g[1..=last];
            let hi = &rev[max_heap - rest + 1..=max_heap - rest + last];
            if narrow {
                word |= or_of_shifts(lo, hi);
            } else {
                for (lo, hi) in lo.chunks(CHUNK).zip(hi.chunks(CHUNK)) {
                    let xors = &mut xors[..lo.len()];
                    for ((x, &a), &b) in xors.iter_mut().zip(lo).zip(hi) {
                        *x = a ^ b;
                    }
                    for &x in xors.iter() {
                        seen.insert(x as u32);
                    }
                }
            }
        }
        let value = if narrow { word.trailing_ones() } else { seen.mex() };
        let value = store(value, n)?;
        max_value = max_value.max(value as u32);
        g.push(value);
        rev[max_heap - n] = value;
    }
    Ok(())
}

/// `OR of 1 << (lo[j] ^ hi[j])` (every value below 64).
#[inline(always)]
fn or_of_shifts(lo: &[u16], hi: &[u16]) -> u64 {
    let mut acc = [0u64; LANES];
    let (lo_body, lo_tail) = lo.split_at(lo.len() / LANES * LANES);
    let (hi_body, hi_tail) = hi.split_at(lo_body.len());
    for (l, h) in lo_body.chunks_exact(LANES).zip(hi_body.chunks_exact(LANES)) {
        for k in 0..LANES {
            acc[k] |= 1u64 << ((l[k] ^ h[k]) & 63);
        }
    }
    let mut word = acc.iter().fold(0, |w, &a| w | a);
    for (&l, &h) in lo_tail.iter().zip(hi_tail) {
        word |= 1u64 << ((l ^ h) & 63);
    }
    word
}
