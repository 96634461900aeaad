//! The search of the sparse-space method (docs/theory/octal.md §4.2): the values that
//! still have to be shown to be options, looked for among all the split pairs.
//!
//! The scan stops as soon as every missing value has turned up, so its cost is that of
//! the pairs it reads: a coupon collector over the missing values, with the last few
//! taking most of the pairs. It runs in two modes, chunk by chunk of [`CHUNK`] pairs:
//!
//! - *marking*, while many values are missing: every pair's value is cleared from the
//!   missing bitset (one register accumulator per word, without branches, for sets of
//!   one, two, four or eight words: values below 512).
//! - *matching*, once at most [`TARGETS`] are left (a cheaper loop for eight or fewer):
//!   each pair's value is compared with the missing ones, lane by lane (`vpcmpeqw`),
//!   and only a chunk with a hit is read again to see which. A compare per pair and
//!   target is far cheaper than a variable shift and a select per word, and the tail is
//!   where the pairs are.
//!
//! The pairs of one removal `i` are `(a, rest - a)`, `rest = n - i`, for `a` up from 1:
//! two contiguous runs of the table, one read backwards, so a chunk is two loads, a
//! reversal and an xor in vector lanes on every backend.

use super::Rules;
use crate::simd::dots::{Dots, MATCH_CHUNK};

/// Pairs read between two looks at the missing values.
pub const CHUNK: usize = MATCH_CHUNK;
/// The most missing values the matching mode compares with.
pub const TARGETS: usize = 16;
/// Targets of the cheaper matching loop for the last few values.
const FEW_TARGETS: usize = 8;

crate::multiversion! {
    /// Clears from `missing` (bit `v`: value `v` not yet an option of heap `n`) the value
    /// `G(a) ^ G(b)` of every split `a + b = n - i`, `a <= b` (`a < b` in Grundy's game),
    /// reading the pairs in order and stopping when no bit is left. The pairs with `a` in
    /// `covered` (a range, empty for none) are passed over: their values were marked
    /// before `missing` was made, for every removal.
    pub(crate) fn search_pairs(rules: &Rules, g: &[u16], n: usize, missing: &mut [u64], narrow: bool, covered: (usize, usize)) => search_pairs_generic;
}

/// The plain loops below are what each backend's instruction set compiles, one copy per
/// width of the missing set; the matching mode's compares are the backend's when every
/// value of the game is below 256 (`narrow`: [`Dots::chunk_matches_low_bytes`]).
#[inline(always)]
fn search_pairs_generic<B: Dots>(
    rules: &Rules,
    g: &[u16],
    n: usize,
    missing: &mut [u64],
    narrow: bool,
    covered: (usize, usize),
) {
    // `narrow` as a type parameter: a copy of each loop per choice, so that a matching
    // scan broadcasts only the targets its compares use.
    match (missing.len(), narrow) {
        (1, true) => search_words::<B, 1, true>(rules, g, n, missing, covered),
        (2, true) => search_words::<B, 2, true>(rules, g, n, missing, covered),
        (4, true) => search_words::<B, 4, true>(rules, g, n, missing, covered),
        (1, false) => search_words::<B, 1, false>(rules, g, n, missing, covered),
        (2, false) => search_words::<B, 2, false>(rules, g, n, missing, covered),
        (4, false) => search_words::<B, 4, false>(rules, g, n, missing, covered),
        (8, _) => search_words::<B, 8, false>(rules, g, n, missing, covered),
        _ => search_words::<B, 0, false>(rules, g, n, missing, covered),
    }
}

/// The search for a missing set of `W` words (`W = 0`: any number, marked one pair at a
/// time).
///
/// With several split removals the runs of pairs are read in step, a chunk of each at the
/// same `a` before the next `a`: a value that only the pairs of a later removal give
/// early is found there early, instead of after every pair of the removals before it
/// (0.354 at N = 10^6: 212 searches read all of the first removal's pairs, about
/// 250 000 each, for a value the second gave within a few hundred).
#[inline(always)]
fn search_words<B: Dots, const W: usize, const NARROW: bool>(
    rules: &Rules,
    g: &[u16],
    n: usize,
    missing: &mut [u64],
    covered: (usize, usize),
) {
    let mut left = count::<W>(missing);
    if left == 0 {
        return;
    }
    // The runs of pairs, one per split removal `i` with a pair: `(rest, last)`, the pairs
    // `(a, rest - a)` for `a` in `1..=last`.
    let mut runs = [(0usize, 0usize); MAX_RUNS];
    let mut len = 0;
    for i in rules.split_removals().filter(|&i| n >= i + 2) {
        let rest = n - i;
        let last = if rules.unequal && rest.is_multiple_of(2) { rest / 2 - 1 } else { rest / 2 };
        if last >= 1 {
            runs[len] = (rest, last);
            len += 1;
        }
    }
    match &runs[..len] {
        [] => {}
        &[(rest, last)] => search_run::<B, W, NARROW>(g, rest, last, missing, covered, left),
        runs => {
            let (mut a, mut r) = (1, 0);
            let reach = runs.iter().map(|&(_, last)| last).max().unwrap_or(0);
            let whole = runs.iter().map(|&(_, last)| last).min().unwrap_or(0);
            while a <= reach && left > 0 {
                if (covered.0..covered.1).contains(&a) {
                    a = covered.1;
                    continue;
                }
                // The positions where every run has a whole chunk, up to the covered pairs.
                let cap = if a < covered.0 { covered.0 - 1 } else { usize::MAX };
                let full_to = whole.min(cap);
                (a, r) = if a + CHUNK - 1 > full_to {
                    // A partial position: the rest of each run up to the cap, marked.
                    let stop = (a + CHUNK - 1).min(cap);
                    for &(rest, last) in &runs[r..] {
                        let end = stop.min(last);
                        if a <= end {
                            mark_chunk::<W>(&g[a..=end], &g[rest - end..=rest - a], missing);
                        }
                    }
                    (stop + 1, 0)
                } else if left as usize <= FEW_TARGETS {
                    match_runs::<B, W, FEW_TARGETS, NARROW>(g, runs, a, r, full_to, missing)
                } else if left as usize <= TARGETS {
                    match_runs::<B, W, TARGETS, NARROW>(g, runs, a, r, full_to, missing)
                } else {
                    let (lo, hi) = chunk_pair(g, runs[r].0, a);
                    mark_chunk::<W>(lo, hi, missing);
                    after(a, r, runs.len())
                };
                left = count::<W>(missing);
            }
        }
    }
}

/// The missing values left in `missing`, over a fixed array of `W` words when `W > 0`:
/// unrolled.
#[inline(always)]
fn count<const W: usize>(missing: &[u64]) -> u32 {
    match <&[u64; W]>::try_from(missing) {
        Ok(words) if W > 0 => words.iter().map(|w| w.count_ones()).sum(),
        _ => missing.iter().map(|w| w.count_ones()).sum(),
    }
}

/// The most runs of pairs a heap has: one per split removal (`Rules::split` is a
/// 64-bit set).
const MAX_RUNS: usize = 64;

/// The search over one run of pairs `(a, rest - a)`, `a` in `1..=last`, with `left`
/// values missing.
#[inline(always)]
fn search_run<B: Dots, const W: usize, const NARROW: bool>(
    g: &[u16],
    rest: usize,
    last: usize,
    missing: &mut [u64],
    covered: (usize, usize),
    mut left: u32,
) {
    let mut a = 1;
    while a <= last && left > 0 {
        if (covered.0..covered.1).contains(&a) {
            a = covered.1;
            continue;
        }
        // The run up to the covered pairs, or to the last pair.
        let end = if a < covered.0 { last.min(covered.0 - 1) } else { last };
        a = if left as usize <= FEW_TARGETS {
            match_chunks::<B, W, FEW_TARGETS, NARROW>(g, rest, a, end, missing)
        } else if left as usize <= TARGETS {
            match_chunks::<B, W, TARGETS, NARROW>(g, rest, a, end, missing)
        } else {
            let stop = (a + CHUNK - 1).min(end);
            mark_chunk::<W>(&g[a..=stop], &g[rest - stop..=rest - a], missing);
            stop + 1
        };
        left = count::<W>(missing);
    }
}

/// The matching mode over several runs in step: from run `r` at `a`, reads whole chunks,
/// a chunk of each run at each position, while every run has one up to `full_to`, until
/// one has a pair whose value is among the (at most `K`) missing ones; then clears that
/// chunk's values from `missing`. Returns the next chunk to read: its position and run.
#[inline(always)]
fn match_runs<B: Dots, const W: usize, const K: usize, const NARROW: bool>(
    g: &[u16],
    runs: &[(usize, usize)],
    mut a: usize,
    mut r: usize,
    full_to: usize,
    missing: &mut [u64],
) -> (usize, usize) {
    let targets = targets::<K>(missing);
    let low_bytes = targets.map(|t| t as u8);
    while a + CHUNK - 1 <= full_to {
        while let Some(&(rest, _)) = runs.get(r) {
            let (lo, hi) = chunk_pair(g, rest, a);
            if chunk_hits::<B, K, NARROW>(lo, hi, &targets, &low_bytes) {
                mark_chunk::<W>(lo, hi, missing);
                return after(a, r, runs.len());
            }
            r += 1;
        }
        (a, r) = (a + CHUNK, 0);
    }
    (a, r)
}

/// The chunk of pairs `(a + j, rest - a - j)`, `j < CHUNK`: the values from `a` up, and
/// those down from `rest - a`, in ascending order (pair `j` is `lo[j]`, `hi[CHUNK - 1 - j]`).
#[inline(always)]
fn chunk_pair(g: &[u16], rest: usize, a: usize) -> (&[u16; CHUNK], &[u16; CHUNK]) {
    (g[a..a + CHUNK].try_into().unwrap(), g[rest + 1 - a - CHUNK..=rest - a].try_into().unwrap())
}

/// Whether a pair of the chunk has a value among `targets` (their low bytes
/// `low_bytes` when every value of the game is below 256, `NARROW`).
#[inline(always)]
fn chunk_hits<B: Dots, const K: usize, const NARROW: bool>(
    lo: &[u16; CHUNK],
    hi: &[u16; CHUNK],
    targets: &[u16; K],
    low_bytes: &[u8; K],
) -> bool {
    if NARROW { B::chunk_matches_low_bytes(lo, hi, low_bytes) } else { chunk_matches(lo, hi, targets) }
}

/// The chunk read after run `r` (of `runs`) at `a`: the next run at the same position,
/// or the first at the next.
#[inline(always)]
fn after(a: usize, r: usize, runs: usize) -> (usize, usize) {
    if r + 1 == runs { (a + CHUNK, 0) } else { (a, r + 1) }
}

/// The matching mode: reads whole chunks from `a` on until one has a pair whose value is
/// among the (at most `K`) missing ones, then clears that chunk's values from `missing`;
/// a last partial chunk is marked outright. Returns the first `a` not read.
#[inline(always)]
fn match_chunks<B: Dots, const W: usize, const K: usize, const NARROW: bool>(
    g: &[u16],
    rest: usize,
    mut a: usize,
    last: usize,
    missing: &mut [u64],
) -> usize {
    let targets = targets::<K>(missing);
    let low_bytes = targets.map(|t| t as u8);
    while a + CHUNK - 1 <= last {
        let (lo, hi) = chunk_pair(g, rest, a);
        a += CHUNK;
        if chunk_hits::<B, K, NARROW>(lo, hi, &targets, &low_bytes) {
            mark_chunk::<W>(lo, hi, missing);
            return a;
        }
    }
    if a <= last {
        mark_chunk::<W>(&g[a..=last], &g[rest - last..=rest - a], missing);
    }
    last + 1
}

/// The missing values (at most `K`, at least one), the list padded by repeating the
/// first.
#[inline(always)]
fn targets<const K: usize>(missing: &[u64]) -> [u16; K] {
    let mut out = [0u16; K];
    let mut k = 0;
    for (w, &word) in missing.iter().enumerate() {
        let mut word = word;
        while word != 0 && k < K {
            out[k] = (64 * w as u32 + word.trailing_zeros()) as u16;
            word &= word - 1;
            k += 1;
        }
    }
    for j in k..K {
        out[j] = out[0];
    }
    out
}

/// Whether some pair `(lo[j], hi[CHUNK - 1 - j])` has a value among `targets`.
///
/// One OR-reduction of the compares, which vectorises to ORs of the lanes and a final
/// test: a per-pair array of hits compared with zeros afterwards became a call to
/// `memcmp` per chunk (Grundy's game to 10^5 heaps, `--simd avx2`: 2205 → 2029 M
/// instructions, callgrind).
#[inline(always)]
fn chunk_matches<const K: usize>(lo: &[u16; CHUNK], hi: &[u16; CHUNK], targets: &[u16; K]) -> bool {
    let mut any = 0u16;
    for j in 0..CHUNK {
        let v = lo[j] ^ hi[CHUNK - 1 - j];
        for &t in targets {
            any |= u16::from(v == t);
        }
    }
    any != 0
}

/// Clears from `missing` the value of every pair `(lo[j], hi[len - 1 - j])`. With
/// `W > 0` words, a whole chunk is one vector loop of `W` accumulators selected without
/// branches, with no store per pair; anything else goes pair by pair.
#[inline(always)]
fn mark_chunk<const W: usize>(lo: &[u16], hi: &[u16], missing: &mut [u64]) {
    if let (Ok(lo), Ok(hi), Ok(missing)) =
        (<&[u16; CHUNK]>::try_from(lo), <&[u16; CHUNK]>::try_from(hi), <&mut [u64; W]>::try_from(&mut *missing))
        && W > 0
    {
        let mut acc = [0u64; W];
        for j in 0..CHUNK {
            let v = (lo[j] ^ hi[CHUNK - 1 - j]) as u32;
            let bit = 1u64 << (v & 63);
            for (w, acc) in acc.iter_mut().enumerate() {
                *acc |= if v >> 6 == w as u32 { bit } else { 0 };
            }
        }
        for (m, acc) in missing.iter_mut().zip(acc) {
            *m &= !acc;
        }
    } else {
        for (&x, &y) in lo.iter().zip(hi.iter().rev()) {
            let v = (x ^ y) as usize;
            if let Some(word) = missing.get_mut(v >> 6) {
                *word &= !(1 << (v & 63));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SplitMix64;
    use crate::simd::Simd;

    /// The missing values left by the plain definition: every pair, one by one.
    fn reference(rules: &Rules, g: &[u16], n: usize, missing: &[u64]) -> Vec<u64> {
        let mut out = missing.to_vec();
        for i in rules.split_removals() {
            for a in 1..=n.saturating_sub(i) / 2 {
                let b = n - i - a;
                if rules.unequal && a == b {
                    continue;
                }
                let v = (g[a] ^ g[b]) as usize;
                if let Some(w) = out.get_mut(v >> 6) {
                    *w &= !(1 << (v & 63));
                }
            }
        }
        out
    }

    /// [`Dots::chunk_matches_low_bytes`] against its definition, on values of 16 bits
    /// too (only their low bytes count), with hits in every position and none.
    #[inline(always)]
    fn check_low_bytes<B: Dots>(seed: u64) -> Result<(), String> {
        let mut rng = SplitMix64(seed);
        for round in 0..400 {
            let bits = [6, 8, 10, 16][round % 4];
            let lo: [u16; CHUNK] = std::array::from_fn(|_| rng.below(1 << bits) as u16);
            let hi: [u16; CHUNK] = std::array::from_fn(|_| rng.below(1 << bits) as u16);
            let mut targets: [u8; 8] = std::array::from_fn(|_| rng.below(256) as u8);
            if round % 3 == 0 {
                // One pair, anywhere, hits the last target.
                let j = rng.below(CHUNK as u64) as usize;
                targets[7] = (lo[j] ^ hi[CHUNK - 1 - j]) as u8;
            }
            let expected = (0..CHUNK).any(|j| targets.contains(&((lo[j] ^ hi[CHUNK - 1 - j]) as u8)));
            let wide: [u8; 16] = std::array::from_fn(|k| targets[k % 8]);
            if B::chunk_matches_low_bytes(&lo, &hi, &targets) != expected
                || B::chunk_matches_low_bytes(&lo, &hi, &wide) != expected
            {
                return Err(format!("round {round}: expected {expected}"));
            }
        }
        Ok(())
    }

    crate::multiversion! {
        /// The check on `simd`'s backend.
        fn check_low_bytes_on(seed: u64) -> Result<(), String> => check_low_bytes;
    }

    #[test]
    fn every_backend_matches_low_bytes_as_defined() {
        for simd in Simd::tested() {
            check_low_bytes_on(simd, 0x10B7).unwrap_or_else(|e| panic!("{}: {e}", simd.name()));
        }
    }

    /// Pairs passed over as covered: the search clears what the plain definition
    /// clears once the covered pairs' values are taken out beforehand, for ranges
    /// anywhere, empty, and past the last pair, on every backend.
    #[test]
    fn every_backend_passes_over_covered_pairs_only() {
        let mut rng = SplitMix64(0xC0BE4);
        for simd in Simd::tested() {
            for &rules in &[Rules::GRUNDY, Rules::octal(&[0, 3, 5, 4]), Rules::octal(&[0, 1, 6])] {
                for n in [40, 200, 400, 1000] {
                    let bits = 5 + rng.below(4) as u32;
                    let g: Vec<u16> = (0..=n).map(|_| rng.below(1 << bits) as u16).collect();
                    let words = (2usize << bits).div_ceil(64).next_power_of_two();
                    for covered in [(0, 0), (65, 129), (65, 257), (10, 30), (1, 3), (300, 900)] {
                        let mut missing = vec![0u64; words];
                        for _ in 0..1 + rng.below(12) {
                            let v = rng.below(1 << bits) as usize;
                            missing[v >> 6] |= 1 << (v & 63);
                        }
                        let expected = reference(&rules, &g, n, &missing);
                        // The covered pairs' values, as the lag marks would have seen them.
                        for i in rules.split_removals().filter(|&i| n >= i + 2) {
                            for a in (covered.0..covered.1)
                                .filter(|&a| a >= 1 && 2 * a <= n - i && !(rules.unequal && 2 * a == n - i))
                            {
                                let v = (g[a] ^ g[n - i - a]) as usize;
                                missing[v >> 6] &= !(1 << (v & 63));
                            }
                        }
                        search_pairs(simd, &rules, &g, n, &mut missing, bits <= 8, covered);
                        let what = format!("{}: n {n}, covered {covered:?}", simd.name());
                        if missing.iter().any(|&w| w != 0) {
                            assert_eq!(missing, expected, "{what}");
                        } else {
                            assert!(expected.iter().all(|&w| w == 0), "{what}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn every_backend_clears_exactly_the_values_of_the_pairs() {
        let mut rng = SplitMix64(0x5EA4C4);
        let games = [Rules::GRUNDY, Rules::octal(&[0, 1, 5, 6]), Rules::octal(&[4, 0, 7]), Rules::octal(&[0, 4])];
        for simd in Simd::tested() {
            for &rules in &games {
                for n in (0..40).chain([63, 64, 65, 127, 128, 129, 130, 131, 300, 1000]) {
                    // Missing sets of one, two, four, eight and 32 words.
                    for bits in [3, 5, 6, 7, 8, 10] {
                        let g: Vec<u16> = (0..=n).map(|_| rng.below(1 << bits) as u16).collect();
                        let words = (2usize << bits).div_ceil(64);
                        // A few missing values (matching mode) and many (marking mode).
                        for count in [1, 2, 4, 5, 9, 12, 40] {
                            let mut missing = vec![0u64; words];
                            for _ in 0..count {
                                let v = rng.below(2 << bits) as usize;
                                missing[v >> 6] |= 1 << (v & 63);
                            }
                            let expected = reference(&rules, &g, n, &missing);
                            // The narrow compares only where every value is below 256.
                            search_pairs(simd, &rules, &g, n, &mut missing, bits <= 8, (0, 0));
                            // The search may stop early only once nothing is missing.
                            if missing.iter().any(|&w| w != 0) {
                                assert_eq!(missing, expected, "{}: n {n}, bits {bits}", simd.name());
                            } else {
                                assert!(expected.iter().all(|&w| w == 0), "{}: n {n}, bits {bits}", simd.name());
                            }
                        }
                    }
                }
            }
        }
    }
}
