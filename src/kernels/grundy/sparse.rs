//! The sparse-space method (docs/theory/octal.md §4).
//!
//! Label each heap `x` by its key `κ(x) = 2·G(x) + π(x)`, where the position bit `π(x)`
//! is the parity of `x` shifted by the parity of the split removals when they all share
//! one (then `π(a) ^ π(b) = π(n)` for every split of `n`), else 0. A mask `M` over keys
//! divides the heaps into *rare* ones, `popcount(κ(x) & M)` even, and *common* ones.
//! For heap `n`, call a value `v` common-type when `popcount((2v + π(n)) & M)` is odd:
//! a split reaches a common-type value only with one rare and one common heap, so
//! pairing every rare heap with its partner finds every common-type option, exactly. A
//! rare-type value comes from two rare heaps (found the same way) or two common ones; the
//! scan of all pairs runs only while some rare-type value below the least missing
//! common-type value is still unseen, and stops when the last one turns up.
//!
//! So a heap costs `O(R)` pairs plus a short search, instead of `O(n)`, when the mask
//! leaves few rare heaps. The mask that leaves the fewest is read off the Walsh–Hadamard
//! transform of the key counts (§4.3, [`best_mask`]): `(W[M] + n) / 2` heaps are rare
//! under `M`. It is re-derived when enough new rare heaps have appeared to suggest
//! another mask may now do better, and when the values outgrow their bits. The answer
//! never depends on the mask (any mask gives the exact mex); only the time does.

use super::search::search_pairs;
use super::{Overflow, Rules, SeenBits, store};
use crate::arith::inv_mod;
use crate::kernels::wht::wht_scalar;
use crate::simd::Simd;

/// The primes the key counts are transformed modulo. A transformed entry of `n` heaps
/// lies in `[-n, n]`: the first prime recovers it from its residue while `n < 2^30`;
/// longer tables (up to [`crate::games::octal::MAX_HEAPS`], below 2^32) take the second
/// transform too, and the entry is recovered from both residues (modulo their product,
/// above 2^61).
const WHT_PRIMES: [u32; 2] = [2_147_483_647, 2_147_483_629];

/// The rare/common division of a table of values by its best mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SparseSplit {
    /// The value bits of the mask (`M >> 1`).
    pub mask: u32,
    /// Whether the mask includes the position bit (`M & 1`).
    pub position_bit: bool,
    /// Heaps that are rare under the mask.
    pub rare_count: u64,
    /// The last rare heap (`None` when there is none).
    pub last_rare: Option<u64>,
}

/// The state of the method over a growing table.
pub(crate) struct Sparse {
    /// Whether keys carry the position bit, and the parity `q` it is shifted by.
    position_bit: bool,
    q: u32,
    /// Values of the table are below `2^bits`.
    bits: u32,
    /// How many heaps have each key.
    counts: Vec<u32>,
    /// The key mask in use.
    mask: u32,
    /// Rare heaps under `mask`, ascending.
    rare: Vec<u32>,
    /// Rare heaps when the mask was last derived.
    rare_at_derivation: usize,
    /// Bit `v` of `common[π]`: value `v` is common-type for heaps of position bit `π`.
    common: [Vec<u64>; 2],
    /// The backend of the search.
    simd: Simd,
}

impl Sparse {
    fn new(simd: Simd, rules: &Rules, g: &[u16]) -> Self {
        let (position_bit, q) = position_bit_of(rules);
        let max = g.iter().copied().max().unwrap_or(0) as u32;
        let bits = bits_for(max);
        let mut state = Sparse {
            position_bit,
            q,
            bits,
            counts: key_counts(g, position_bit, q, bits),
            mask: 0,
            rare: Vec::new(),
            rare_at_derivation: 0,
            common: [Vec::new(), Vec::new()],
            simd,
        };
        state.derive(g, true);
        state
    }

    #[inline(always)]
    fn position(&self, x: usize) -> u32 {
        if self.position_bit { (x as u32 ^ self.q) & 1 } else { 0 }
    }

    #[inline(always)]
    fn key(&self, g: &[u16], x: usize) -> u32 {
        ((g[x] as u32) << 1) | self.position(x)
    }

    #[inline(always)]
    fn is_rare(&self, key: u32) -> bool {
        (key & self.mask).count_ones().is_multiple_of(2)
    }

    /// Re-derives the best mask from the counts; rebuilds the rare list if it changed
    /// (or `force`).
    fn derive(&mut self, g: &[u16], force: bool) {
        let (mask, _) = best_mask(&self.counts, g.len() as u64, self.position_bit);
        if mask != self.mask || force {
            self.mask = mask;
            self.rare = (0..g.len()).filter(|&x| self.is_rare(self.key(g, x))).map(|x| x as u32).collect();
        }
        self.rare_at_derivation = self.rare.len();
        let limit = self.seen_values();
        for (pos, words) in self.common.iter_mut().enumerate() {
            words.clear();
            words.resize(limit.div_ceil(64), 0);
            for v in 0..limit as u32 {
                if (((v << 1) | pos as u32) & self.mask).count_ones() % 2 == 1 {
                    words[(v >> 6) as usize] |= 1 << (v & 63);
                }
            }
        }
    }

    /// Values the seen set covers: the options (below `2^bits`) and the first missing
    /// common-type value (below `2^(bits+1)`).
    fn seen_values(&self) -> usize {
        2 << self.bits
    }

    /// Records `G(n)`, just pushed onto `g`.
    fn record(&mut self, g: &[u16], n: usize) {
        let value = g[n] as u32;
        let grew = value >> self.bits != 0;
        if grew {
            self.bits = bits_for(value);
            self.counts.resize(2 << self.bits, 0);
        }
        let key = self.key(g, n);
        self.counts[key as usize] += 1;
        if self.is_rare(key) {
            self.rare.push(n as u32);
        }
        // A mask's rare heaps only grow, so a common heap keeps the mask optimal; new
        // rare heaps (past a sixteenth more than at the last derivation) may not.
        if grew || self.rare.len() > self.rare_at_derivation + 1 + self.rare_at_derivation / 16 {
            self.derive(g, grew);
        }
    }
}

/// Whether keys carry the position bit (all split removals of one parity), and that parity.
fn position_bit_of(rules: &Rules) -> (bool, u32) {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    if rules.split & !EVEN == 0 {
        (true, 0)
    } else if rules.split & EVEN == 0 {
        (true, 1)
    } else {
        (false, 0)
    }
}

/// The least `b >= 1` with `max < 2^b`.
fn bits_for(max: u32) -> u32 {
    (32 - max.leading_zeros()).max(1)
}

/// The key mask with the fewest rare heaps, and their number, from the key counts of `n`
/// heaps (masks with the position bit only when keys carry it); the least such mask on
/// ties.
pub fn best_mask(counts: &[u32], n: u64, position_bit: bool) -> (u32, u64) {
    let w = transformed_counts(counts, n);
    let mut best = (0u32, n);
    for (m, &signed) in w.iter().enumerate() {
        if m & 1 == 1 && !position_bit {
            continue;
        }
        // W[M] = (#even) - (#odd); even parity is rare.
        let rare = ((signed + n as i64) / 2) as u64;
        if rare < best.1 {
            best = (m as u32, rare);
        }
    }
    best
}

/// The Walsh–Hadamard transform of the key counts of `n` heaps, exactly (§4.3).
fn transformed_counts(counts: &[u32], n: u64) -> Vec<i64> {
    let residues = |p: u32| {
        // The butterflies need entries below p.
        let mut w: Vec<u32> = counts.iter().map(|&c| c % p).collect();
        wht_scalar(&mut w, p);
        w
    };
    let [p1, p2] = WHT_PRIMES;
    let first = residues(p1);
    if n <= u64::from(p1 / 2) {
        return first.iter().map(|&r| if r > p1 / 2 { r as i64 - p1 as i64 } else { r as i64 }).collect();
    }
    // x = r1 (mod p1), x = r2 (mod p2): x = r1 + p1·t with t = (r2 - r1)/p1 (mod p2).
    let inverse = inv_mod(u64::from(p1 % p2), u64::from(p2)).expect("distinct primes");
    let product = i128::from(p1) * i128::from(p2);
    first
        .iter()
        .zip(residues(p2))
        .map(|(&r1, r2)| {
            let difference = (i64::from(r2) - i64::from(r1)).rem_euclid(i64::from(p2)) as u64;
            let t = difference * inverse % u64::from(p2);
            let x = i128::from(r1) + i128::from(p1) * i128::from(t);
            (if x > product / 2 { x - product } else { x }) as i64
        })
        .collect()
}

/// The best rare/common division of the values `g` under `rules` (for reports: it
/// depends only on the values, not on the variant that computed them).
pub fn sparse_split(rules: &Rules, g: &[u16]) -> SparseSplit {
    let (position_bit, q) = position_bit_of(rules);
    let max = g.iter().copied().max().unwrap_or(0) as u32;
    let counts = key_counts(g, position_bit, q, bits_for(max));
    let (mask, rare_count) = best_mask(&counts, g.len() as u64, position_bit);
    SparseSplit { mask: mask >> 1, position_bit: mask & 1 == 1, rare_count, last_rare: last_rare(g, q, mask) }
}

/// How many heaps of `g` have each key (values below `2^bits`). Four partial counts, so
/// that a run of equal values does not wait on each increment's store to load the next.
fn key_counts(g: &[u16], position_bit: bool, q: u32, bits: u32) -> Vec<u32> {
    let keys = 2usize << bits;
    let mut partial = vec![0u32; 4 * keys];
    let (parts, tail) = partial.split_at_mut(2 * keys);
    let (even_a, even_b) = parts.split_at_mut(keys);
    let (odd_a, odd_b) = tail.split_at_mut(keys);
    // π(x) for even and odd x (docs/theory/octal.md §4.1).
    let pi = |x: u32| if position_bit { ((x ^ q) & 1) as usize } else { 0 };
    let (even_pi, odd_pi) = (pi(0), pi(1));
    let mut quads = g.chunks_exact(4);
    for quad in &mut quads {
        even_a[(quad[0] as usize) << 1 | even_pi] += 1;
        odd_a[(quad[1] as usize) << 1 | odd_pi] += 1;
        even_b[(quad[2] as usize) << 1 | even_pi] += 1;
        odd_b[(quad[3] as usize) << 1 | odd_pi] += 1;
    }
    let base = g.len() - quads.remainder().len();
    for (x, &v) in (base..).zip(quads.remainder()) {
        even_a[(v as usize) << 1 | pi(x as u32)] += 1;
    }
    (0..keys).map(|key| even_a[key] + odd_a[key] + even_b[key] + odd_b[key]).collect()
}

/// The last heap rare under the key mask `mask` (`q`: the parity the position bit is
/// shifted by; bit 0 of the mask is set only when keys carry it), scanned from the end
/// a slice at a time, each checked whole first: rare heaps are few and mostly early.
fn last_rare(g: &[u16], q: u32, mask: u32) -> Option<u64> {
    // popcount(κ & M) = popcount(G & (M >> 1)) + (π & M & 1): rare (even) exactly when
    // the parity of G & (M >> 1) equals π & M & 1. Keys have at most 17 bits, so the
    // value part of the mask fits the values' 16.
    const SLICE: usize = 256;
    let value_mask = (mask >> 1) as u16;
    let position_mask = mask & 1;
    // For slices starting at a multiple of SLICE (even), lane i has π = (i ^ q) & 1.
    let expected: [u16; SLICE] = std::array::from_fn(|i| ((i as u32 ^ q) & position_mask) as u16);
    let parity = |v: u16| {
        let mut t = v & value_mask;
        t ^= t >> 8;
        t ^= t >> 4;
        t ^= t >> 2;
        t ^= t >> 1;
        t & 1
    };
    // 1 when rare.
    let rare = |v: u16, expected: u16| parity(v) ^ expected ^ 1;
    for start in (0..g.len()).step_by(SLICE).rev() {
        let slice = &g[start..(start + SLICE).min(g.len())];
        if slice.iter().zip(&expected).fold(0, |any, (&v, &e)| any | rare(v, e)) == 1 {
            let last = slice.iter().zip(&expected).rposition(|(&v, &e)| rare(v, e) == 1);
            return last.map(|i| (start + i) as u64);
        }
    }
    None
}

/// Extends `g` to heaps `0..=max_heap` by the sparse-space method.
pub fn grundy_sparse(simd: Simd, rules: &Rules, g: &mut Vec<u16>, max_heap: usize) -> Result<(), Overflow> {
    let mut state = Sparse::new(simd, rules, g);
    let mut seen = SeenBits::new(state.seen_values());
    for n in g.len()..=max_heap {
        seen.clear(state.seen_values());
        let value = store(sparse_value(rules, g, n, &state, &mut seen, 0, (0, 0)), n)?;
        g.push(value);
        state.record(g, n);
    }
    Ok(())
}

/// `G(n)` from `g[0..n]`. The pairs of a rare heap and a partner both below
/// `far_below` are taken as already marked in `seen` (the parallel variant marks them
/// beforehand; 0 here for none), and so are the pairs `(a, n - i - a)` of every removal
/// with `a` in the range `covered` (the search passes over them; `(0, 0)` for none).
#[inline]
pub(crate) fn sparse_value<M: Marks>(
    rules: &Rules,
    g: &[u16],
    n: usize,
    state: &Sparse,
    seen: &mut M,
    far_below: usize,
    covered: (usize, usize),
) -> u32 {
    rules.mark_simple_options(g, n, |v| {
        seen.insert(v);
    });
    for i in rules.split_removals() {
        if n < i + 2 {
            continue;
        }
        let rest = n - i;
        // Rare r in [1, rest): those with partner rest - r >= far_below (r <= rest -
        // far_below), then those not below far_below themselves.
        let rare = &state.rare;
        let first = usize::from(rare.first() == Some(&0));
        // Rare heaps at or past `rest`, and those not below `far_below`, are the last few
        // found: counted from the end, where a search would cost more than the scan.
        let end = last_below(rare, rest);
        let near_end = if far_below == 0 {
            end
        } else {
            first + count_below(&rare[first..end], (rest + 1).saturating_sub(far_below))
        };
        let far_end = if far_below == 0 { near_end } else { last_below(&rare[..end], far_below).max(near_end) };
        for range in [&rare[first..near_end], &rare[far_end..end]] {
            if rules.unequal && rest.is_multiple_of(2) {
                // Leave out the split into two equal heaps.
                let half = range.partition_point(|&r| (r as usize) < rest / 2);
                let skip = half + usize::from(range.get(half) == Some(&((rest / 2) as u32)));
                seen.mark_rare_pairs(g, rest, &range[..half]);
                seen.mark_rare_pairs(g, rest, &range[skip..]);
            } else {
                seen.mark_rare_pairs(g, rest, range);
            }
        }
    }
    seen.finish(rules, g, n, state, covered)
}

/// A heap's set of seen option values, as the per-heap step marks it (§4.2).
pub(crate) trait Marks {
    /// Marks `v`.
    fn insert(&mut self, v: u32);
    /// Marks `G(r) ^ G(rest - r)` for the rare heaps `r` of `rare` (each in `[1, rest)`).
    fn mark_rare_pairs(&mut self, g: &[u16], rest: usize, rare: &[u32]);
    /// `G(n)`: the mex, from the marked options and the search (§4.2), which passes over
    /// the pairs with `a` in `covered` (see [`sparse_value`]).
    fn finish(&mut self, rules: &Rules, g: &[u16], n: usize, state: &Sparse, covered: (usize, usize)) -> u32;
}

impl Marks for SeenBits {
    #[inline(always)]
    fn insert(&mut self, v: u32) {
        SeenBits::insert(self, v);
    }
    #[inline(always)]
    fn mark_rare_pairs(&mut self, g: &[u16], rest: usize, rare: &[u32]) {
        mark_rare_pairs(g, rest, rare, self);
    }
    #[inline(always)]
    fn finish(&mut self, rules: &Rules, g: &[u16], n: usize, state: &Sparse, covered: (usize, usize)) -> u32 {
        finish_value(rules, g, n, state, self, covered)
    }
}

/// The seen set of a game whose values are all below `64 W` (`Sparse::option_words() <=
/// W`), as `W` words the per-heap step keeps in registers: a set in memory chains every
/// mark to the previous one through a store and a load. Only options are marked, so the
/// words above them, which the candidate may reach (`Sparse::seen_values() <= 128 W`),
/// are empty and not kept: a mark selects among the option words only. `W` is 1, 2 or 4.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Words<const W: usize>(pub [u64; W]);

impl<const W: usize> Words<W> {
    /// The set holding the words of `marked` and of `more` (each at most `W`).
    #[inline(always)]
    pub(crate) fn from_marks(marked: &[u64], more: &[u64]) -> Self {
        Words(std::array::from_fn(|w| marked.get(w).copied().unwrap_or(0) | more.get(w).copied().unwrap_or(0)))
    }

    /// Word `w` of the set, zero past the option words.
    #[inline(always)]
    fn word(&self, w: usize) -> u64 {
        self.0.get(w).copied().unwrap_or(0)
    }
}

impl<const W: usize> Marks for Words<W> {
    #[inline(always)]
    fn insert(&mut self, v: u32) {
        debug_assert!(v < 64 * W as u32);
        let bit = 1u64 << (v & 63);
        if W == 1 {
            self.0[0] |= bit;
        } else {
            // The word selected without a branch or an indexed store.
            for (w, word) in self.0.iter_mut().enumerate() {
                *word |= if v >> 6 == w as u32 { bit } else { 0 };
            }
        }
    }
    #[inline(always)]
    fn mark_rare_pairs(&mut self, g: &[u16], rest: usize, rare: &[u32]) {
        for &r in rare {
            self.insert((g[r as usize] ^ g[rest - r as usize]) as u32);
        }
    }
    #[inline(always)]
    fn finish(&mut self, rules: &Rules, g: &[u16], n: usize, state: &Sparse, covered: (usize, usize)) -> u32 {
        let limit = state.seen_values() as u32;
        debug_assert!(limit as usize <= 128 * W && state.option_words() <= W);
        let common = &state.common[state.position(n) as usize];
        // The least unseen common-type value, and the rare-type ones below it (§4.2).
        let mut candidate = limit;
        for (w, &common) in common.iter().enumerate() {
            let open = common & !self.word(w);
            if open != 0 {
                candidate = (64 * w as u32 + open.trailing_zeros()).min(limit);
                break;
            }
        }
        // The missing set spans the words below the candidate: at most `2 W`, padded to
        // a width the search is compiled for (1, 2, 4 or 8 words).
        let words = (candidate as usize).div_ceil(64).max(1);
        let mut missing = [0u64; 8];
        for (w, m) in missing.iter_mut().enumerate().take(words) {
            let below = candidate.saturating_sub(64 * w as u32).min(64);
            *m = !self.word(w) & if below == 64 { u64::MAX } else { (1u64 << below) - 1 };
        }
        if missing.iter().all(|&m| m == 0) {
            return candidate;
        }
        let missing = &mut missing[..words.next_power_of_two()];
        search_pairs(state.simd, rules, g, n, missing, state.bits <= 8, covered);
        match missing.iter().position(|&m| m != 0) {
            Some(w) => 64 * w as u32 + missing[w].trailing_zeros(),
            None => candidate,
        }
    }
}

/// The number of heaps of the ascending `rare` below `limit`: counted up from the start
/// for the first few (a block's partners reach only the small rare heaps), then searched.
#[inline(always)]
fn count_below(rare: &[u32], limit: usize) -> usize {
    const SCANNED: usize = 16;
    match rare.iter().take(SCANNED).position(|&r| r as usize >= limit) {
        Some(count) => count,
        None if rare.len() <= SCANNED => rare.len(),
        None => SCANNED + rare[SCANNED..].partition_point(|&r| (r as usize) < limit),
    }
}

/// The number of heaps of the ascending `rare` below `limit`, counted down from the end.
#[inline(always)]
fn last_below(rare: &[u32], limit: usize) -> usize {
    let mut end = rare.len();
    while end > 0 && rare[end - 1] as usize >= limit {
        end -= 1;
    }
    end
}

/// Marks `G(r) ^ G(rest - r)` for the rare heaps `r` of `rare` (each in `[1, rest)`).
///
/// While the seen set is at most four words, the marks go to a
/// [`Words`] accumulator held in registers, then to the set: a store to the seen words
/// for every pair would chain each pair to the previous one through memory.
#[inline]
fn mark_rare_pairs(g: &[u16], rest: usize, rare: &[u32], seen: &mut SeenBits) {
    match seen.words.len() {
        1 => mark_rare_pairs_in::<1>(g, rest, rare, seen),
        2 => mark_rare_pairs_in::<2>(g, rest, rare, seen),
        3 | 4 => mark_rare_pairs_in::<4>(g, rest, rare, seen),
        _ => {
            for &r in rare {
                seen.insert((g[r as usize] ^ g[rest - r as usize]) as u32);
            }
        }
    }
}

/// [`mark_rare_pairs`] through a `W`-word accumulator (the seen set has at most `W`
/// words, so every value is below `64 W`).
#[inline(always)]
fn mark_rare_pairs_in<const W: usize>(g: &[u16], rest: usize, rare: &[u32], seen: &mut SeenBits) {
    let mut acc = Words([0u64; W]);
    acc.mark_rare_pairs(g, rest, rare);
    for (word, a) in seen.words.iter_mut().zip(acc.0) {
        *word |= a;
    }
}

/// The mex from the marked rare pairs: the least unseen common-type value, unless a
/// rare-type value below it stays unseen after the search of all pairs.
#[inline]
pub(crate) fn finish_value(
    rules: &Rules,
    g: &[u16],
    n: usize,
    state: &Sparse,
    seen: &mut SeenBits,
    covered: (usize, usize),
) -> u32 {
    // Options are below 2^bits; past it any common-type value is missing (none is when
    // the mask has no value bits: then every value is rare-type).
    let limit = state.seen_values() as u32;
    let candidate = seen.first_unseen_in(&state.common[state.position(n) as usize], limit);
    if seen.unseen_below(candidate) == 0 {
        return candidate;
    }
    // Every common-type value below the candidate is seen: the missing ones are
    // rare-type, and only common–common pairs can still give them.
    let words = (candidate as usize).div_ceil(64);
    let missing_word = |w: usize| {
        let below = candidate.saturating_sub(64 * w as u32).min(64);
        let range = if below == 64 { u64::MAX } else { (1u64 << below) - 1 };
        !seen.words[w] & range
    };
    let first_missing = |missing: &[u64]| match missing.iter().position(|&m| m != 0) {
        Some(w) => 64 * w as u32 + missing[w].trailing_zeros(),
        None => candidate,
    };
    // The search is compiled for missing sets of 1, 2, 4 and 8 words: pad up to one.
    let width = if words <= 8 { words.max(1).next_power_of_two() } else { words };
    let mut fixed = [0u64; 8];
    let mut wide = Vec::new();
    let missing = if width <= 8 {
        &mut fixed[..width]
    } else {
        wide.resize(width, 0);
        &mut wide[..]
    };
    for (w, m) in missing.iter_mut().enumerate().take(words) {
        *m = missing_word(w);
    }
    search_pairs(state.simd, rules, g, n, missing, state.bits <= 8, covered);
    first_missing(missing)
}

/// What the parallel variant needs of the method: the state and its per-heap steps.
pub(crate) mod steps {
    pub(crate) use super::Sparse as State;
    pub(crate) use super::{Marks, Words, sparse_value};

    impl State {
        pub(crate) fn start(simd: super::Simd, rules: &super::Rules, g: &[u16]) -> Self {
            Self::new(simd, rules, g)
        }
        pub(crate) fn push(&mut self, g: &[u16], n: usize) {
            self.record(g, n)
        }
        pub(crate) fn seen_len(&self) -> usize {
            self.seen_values()
        }
        /// Words of a seen set that hold every option value (below `2^bits`).
        pub(crate) fn option_words(&self) -> usize {
            (1usize << self.bits).div_ceil(64)
        }
        pub(crate) fn rare(&self) -> &[u32] {
            &self.rare
        }
        pub(crate) fn mask(&self) -> u32 {
            self.mask
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SplitMix64;
    use crate::kernels::grundy::grundy_naive;

    /// The transform of the key counts is exact for every table length up to the
    /// largest: one prime below 2^30 heaps, two above (each entry checked against the
    /// transform in 64-bit integers).
    #[test]
    fn key_counts_transform_exactly_for_tables_of_up_to_2_to_the_32_heaps() {
        assert!(WHT_PRIMES.iter().all(|&p| crate::arith::is_prime(p.into())));
        let mut rng = SplitMix64(0x3A5C);
        for total in [10u64, 1 << 29, (1 << 30) - 1, 1 << 30, 3 << 30, u32::MAX as u64 - 1] {
            for keys in [2usize, 8, 64] {
                // Counts summing to `total`, most of it on one key or spread.
                let mut counts = vec![0u32; keys];
                let mut left = total;
                for count in &mut counts[..keys - 1] {
                    let c = if rng.below(2) == 0 { rng.below(left + 1) } else { left / 2 };
                    *count = c as u32;
                    left -= c;
                }
                counts[keys - 1] = left as u32;
                let mut exact: Vec<i64> = counts.iter().map(|&c| i64::from(c)).collect();
                let mut half = 1;
                while half < keys {
                    for block in exact.chunks_exact_mut(2 * half) {
                        let (lo, hi) = block.split_at_mut(half);
                        for (u, v) in lo.iter_mut().zip(hi) {
                            (*u, *v) = (*u + *v, *u - *v);
                        }
                    }
                    half *= 2;
                }
                assert_eq!(transformed_counts(&counts, total), exact, "{total} heaps over {keys} keys");
            }
        }
    }

    /// The split reported for a whole table (counted in four parts, the last rare heap
    /// found by slices from the end) is the one the method's state derives, heap by heap,
    /// with and without the position bit, for tables of every length around the slices.
    #[test]
    fn the_split_of_a_table_is_the_one_the_method_derives() {
        let mut rng = SplitMix64(0x5B11);
        // 0.07 and 0.137 carry the position bit (shifted by 0 and by 1); the others not.
        let games = [Rules::octal(&[0, 0, 7]), Rules::octal(&[0, 1, 3, 7]), Rules::GRUNDY, Rules::octal(&[4, 0, 7])];
        for rules in games {
            for len in [1, 2, 3, 4, 5, 255, 256, 257, 511, 1000, 4099] {
                for bits in [1, 2, 4, 9, 16] {
                    // Mostly a few common values, some others anywhere.
                    let g: Vec<u16> = (0..len)
                        .map(|_| {
                            let v = if rng.below(10) == 0 { rng.below(1 << bits) } else { rng.below(3) << (bits - 1) };
                            v as u16
                        })
                        .collect();
                    let state = Sparse::new(Simd::portable(), &rules, &g);
                    let derived = SparseSplit {
                        mask: state.mask >> 1,
                        position_bit: state.mask & 1 == 1,
                        rare_count: state.rare.len() as u64,
                        last_rare: state.rare.last().map(|&r| r as u64),
                    };
                    assert_eq!(sparse_split(&rules, &g), derived, "{rules:?}, {len} values of {bits} bits");
                }
            }
        }
    }

    /// The per-heap step on arbitrary tables (the method's argument holds for any values,
    /// not only a game's): the seen set in memory and in register words both give the mex
    /// of every option, on every backend, for options of one to four words.
    #[test]
    fn register_and_memory_seen_sets_give_the_mex_of_any_table() {
        let mut rng = SplitMix64(0x5EE7);
        let games = [Rules::GRUNDY, Rules::octal(&[0, 3, 5, 4]), Rules::octal(&[0, 1, 6]), Rules::octal(&[4, 0, 7])];
        for simd in Simd::tested() {
            for rules in games {
                for bits in [3, 5, 6, 7, 8] {
                    for n in [3, 10, 64, 65, 200, 700] {
                        // Few distinct values or many, the largest one `2^bits - 1`.
                        let spread = 1 + rng.below(1 << bits) as u16;
                        let mut g: Vec<u16> =
                            (0..n).map(|_| (1 << bits) - 1 - rng.below(spread as u64) as u16).collect();
                        g[0] = 0;
                        let mut table = g.clone();
                        grundy_naive(&rules, &mut table, n).unwrap();
                        let expected = table[n] as u32;
                        let state = Sparse::new(simd, &rules, &g);
                        let mut seen = SeenBits::new(state.seen_values());
                        let in_memory = sparse_value(&rules, &g, n, &state, &mut seen, 0, (0, 0));
                        let in_registers = match state.option_words() {
                            1 => sparse_value(&rules, &g, n, &state, &mut Words([0; 1]), 0, (0, 0)),
                            2 => sparse_value(&rules, &g, n, &state, &mut Words([0; 2]), 0, (0, 0)),
                            4 => sparse_value(&rules, &g, n, &state, &mut Words([0; 4]), 0, (0, 0)),
                            words => panic!("{words} option words"),
                        };
                        let what = format!("{rules:?}, {bits} bits, heap {n}, {}", simd.name());
                        assert_eq!((in_memory, in_registers), (expected, expected), "{what}");
                    }
                }
            }
        }
    }
}
