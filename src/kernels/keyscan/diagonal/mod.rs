//! The anti-diagonal scan: strips of 64 pile sizes `x`, one after the other, and in each
//! strip the pairs `(x, y)` in order of `t = x + y`, each anti-diagonal in two passes:
//! all its partner searches first, then all its marks.
//!
//! ```text
//! for each strip s (x in 64 s .. 64 s + 64), for t from 128 s to 64 s + 63 + L:
//!     read f_x again for the pile 64 s + t mod 64          (exhausted.rs)
//!     pass 1: for each open pair (x, t - x) of the strip
//!             whose pile x is not exhausted:               z = partner(x, t - x); keep (x, z) if z <= L
//!     pass 2: for each kept (x, z):                        record (x, t - x, z); mark its keys
//! ```
//!
//! Why this order is allowed, and why it is fast:
//!
//! * It extends the product order of the pairs: if `x' <= x` and `y' <= y`, the strip of
//!   `x'` comes first, or it is the same strip and `t' <= t`. Any such order finds the
//!   losing triples of the lexicographic scan (the lemma in `lexicographic/wavefront.rs`).
//! * Two pairs of one anti-diagonal are incomparable, so neither needs a mark of the
//!   other: the searches of an anti-diagonal of a strip (at most 64) are independent.
//!   Running them all before any of their marks means no branch depends on whether a
//!   pair has a partner (about half do, at random), and consecutive searches overlap in
//!   the core instead of waiting for the previous pair's marks (the lexicographic scans
//!   lose most of their time there).
//! * Which pairs are open (`K1(x, y)` unmarked) is known before the anti-diagonal
//!   starts: a mark made on it lands on later anti-diagonals (see
//!   [`LineTables::mark`]). The open flags of a strip are one word per anti-diagonal, so
//!   pass 1 walks the set bits of one word.
//! * A strip reuses its 64 `x` groups throughout, and from one anti-diagonal to the next
//!   its `y` and `y - x` groups shift by one: its rows stay in the L1 and L2 caches, and
//!   the marks of pass 2 find the rows pass 1 just read. Whole anti-diagonals instead
//!   read every row of the tables each time (at `L = 10^4` that was twice as slow).
//! * A pair whose pile `x` is exhausted (every difference `0..=L - y` of `K2(., x)` is
//!   taken, `exhausted.rs`) has no partner, and is left out of pass 1 like a closed one:
//!   at `L = 1000` that is 76 377 of the 260 131 open pairs, at 3000 715 137 of 2 331 776
//!   (57% of those without a partner, most of which would read several windows).
//!
//! The searches use the one-window search of `window.rs`, or its half-width tail window
//! for the pairs whose rows end within three words (the low `x` of an anti-diagonal: pass
//! 1 walks them first, so that neither loop branches on which window a pair needs);
//! pass 2 sets seven key bits and two open flags per losing triple. Within a strip the
//! losing triples come out of order; when a sink wants them, each strip's are sorted and
//! handed out once the strip is done (at most `64 (L + 1)` at a time: one per pair,
//! docs/theory/stones.md §8).

pub mod exhausted;
pub mod tables;
pub mod tiles;
pub mod window;

use super::StoneScan;
use crate::sched::Scheduler;
use crate::simd::Simd;
use crate::simd::words::Words;
use exhausted::ExhaustedPiles;
use tables::LineTables;
use window::{DiagonalGroups, partner, partner_tail, search_pairs, tail_bits, tail_start};

/// Scans every sorted pair by anti-diagonals; calls `sink` for each losing triple in
/// lexicographic order when given (`sched` gives the backend and draws the progress bar;
/// the scan is sequential).
pub fn keyscan_diagonal(limit: u32, sched: &Scheduler, mut sink: Option<&mut dyn FnMut(u32, u32, u32)>) -> StoneScan {
    let simd = sched.simd();
    let mut tables = LineTables::new(limit, simd);
    let mut scan = StoneScan::default();
    let mut kept = Vec::new();
    let mut exhausted = ExhaustedPiles::new(limit);
    let mut searches = Searches::default();
    let strips = (limit >> 6) + 1;
    let progress = sched.progress(strips as u64, "stones strips");
    for s in 0..strips {
        match sink.as_deref_mut() {
            None => scan.add(&scan_strip(simd, Sum, &mut tables, &mut exhausted, s, &mut kept, &mut searches)),
            Some(sink) => {
                scan.add(&scan_strip(simd, Keep, &mut tables, &mut exhausted, s, &mut kept, &mut searches));
                kept.sort_unstable();
                kept.drain(..).for_each(|[x, y, z]| sink(x, y, z));
            }
        }
        progress.inc(1);
    }
    scan
}

/// The open pairs of a scan, by what became of them (for the roofline's model of the
/// work, in the lab).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Searches {
    /// Searched with the wide window (and, when it found nothing, the later ones).
    pub wide: u64,
    /// Searched with the half-width tail window.
    pub tail: u64,
    /// Left out as exhausted (`exhausted.rs`): no partner, no search.
    pub settled: u64,
}

/// [`keyscan_diagonal`] without a sink, counting its searches (on the best backend).
pub fn count_searches(limit: u32) -> (StoneScan, Searches) {
    count_searches_on(limit, Simd::best())
}

/// [`count_searches`] on `simd`'s backend.
pub fn count_searches_on(limit: u32, simd: Simd) -> (StoneScan, Searches) {
    let mut tables = LineTables::new(limit, simd);
    let (mut scan, mut searches) = (StoneScan::default(), Searches::default());
    let mut exhausted = ExhaustedPiles::new(limit);
    for s in 0..(limit >> 6) + 1 {
        scan.add(&scan_strip(simd, Count, &mut tables, &mut exhausted, s, &mut Vec::new(), &mut searches));
    }
    (scan, searches)
}

/// Debug builds (and the tests): every pair left out as exhausted would have found no
/// partner.
#[inline(always)]
fn assert_settled_pairs_fail<B: Words>(settled: u64, x_lo: u32, t: u32, limit: u32, groups: &DiagonalGroups<'_>) {
    let mut found = [(0, 0); 64];
    let mut count = 0;
    search_pairs(settled, x_lo, t, limit, &mut found, &mut count, |x, y| partner::<B>(groups, x, y));
    assert_eq!(count, 0, "an exhausted pair has a partner: {:?}", found[0]);
}

/// What a strip scan does beside its searches and marks: keep its triples (`KEEP`),
/// count its searches (`COUNT`). A type per choice, so that each is compiled on its own
/// with the other branches gone.
trait StripMode: Copy {
    const KEEP: bool;
    const COUNT: bool;
}

/// The count and sum only.
#[derive(Clone, Copy)]
struct Sum;
/// The triples kept as well.
#[derive(Clone, Copy)]
struct Keep;
/// The searches counted as well.
#[derive(Clone, Copy)]
struct Count;

impl StripMode for Sum {
    const KEEP: bool = false;
    const COUNT: bool = false;
}
impl StripMode for Keep {
    const KEEP: bool = true;
    const COUNT: bool = false;
}
impl StripMode for Count {
    const KEEP: bool = false;
    const COUNT: bool = true;
}

/// `(KEEP, COUNT)` of a mode.
#[inline(always)]
fn flags<M: StripMode>(_: M) -> (bool, bool) {
    (M::KEEP, M::COUNT)
}

crate::simd::multiversion! {
    /// Scans strip `s` (pile sizes `x` in `64 s .. 64 s + 64`) by anti-diagonals on
    /// `simd`'s backend; pushes its losing triples to `kept` in the order found when the
    /// mode keeps them, and counts its searches in `searches` when it counts them.
    ///
    /// A function of its own, compiled once per mode and backend (the entry point of the
    /// backend, whose features the whole strip loop is compiled with), so that only the
    /// tables, the strip and the counts are live in the hot loop: with the sink, the
    /// progress bar and the strip loop around it, the loop ran out of registers and
    /// reloaded spilled addresses beside its six window loads, about 4% slower
    /// (`cargo bench --bench keyscan`, `diagonal`).
    fn scan_strip(
        mode: impl StripMode,
        tables: &mut LineTables,
        exhausted: &mut ExhaustedPiles,
        s: u32,
        kept: &mut Vec<[u32; 3]>,
        searches: &mut Searches,
    ) -> StoneScan => scan_strip_generic;
}

#[inline(always)]
fn scan_strip_generic<B: Words>(
    mode: impl StripMode,
    tables: &mut LineTables,
    exhausted: &mut ExhaustedPiles,
    s: u32,
    kept: &mut Vec<[u32; 3]>,
    searches: &mut Searches,
) -> StoneScan {
    let (keep, counting) = flags(mode);
    let limit = tables.limit();
    let mut scan = StoneScan::default();
    // Pairs with a partner among (at most) 64 of one anti-diagonal; pass 1 writes each
    // pair's slot before it knows whether to keep it (see `search_pairs`).
    let mut found = [(0u32, 0u32); 64];
    let (x_lo, x_hi) = (64 * s, (64 * s + 63).min(limit));
    let y_tail = tail_start(limit);
    exhausted.start(x_lo, x_hi, 2 * x_lo, |x, from| tables.k2t_first_clear(x, from));
    for t in 2 * x_lo..=x_hi + limit {
        // The pairs (x, t - x) of the strip: x from max(x_lo, t - L) to min(x_hi, t / 2).
        let (first, last) = (x_lo.max(t.saturating_sub(limit)), x_hi.min(t / 2));
        let in_range = (u64::MAX << (first & 63)) & (u64::MAX >> (63 - (last & 63)));
        let open = !tables.closed_flags(s, t) & in_range;
        exhausted.refresh(t, |x, from| tables.k2t_first_clear(x, from));
        let settled = open & exhausted.on_diagonal(t);
        let open = open & !settled;
        let tail = tail_bits(x_lo, t, y_tail);
        let mut count = 0;
        let groups = tables.diagonal_groups(x_lo, t);
        if cfg!(debug_assertions) {
            // Searched without the lower bound the exhausted piles give.
            assert_settled_pairs_fail::<B>(settled, x_lo, t, limit, &groups);
        }
        if counting {
            searches.wide += (open & !tail).count_ones() as u64;
            searches.tail += (open & tail).count_ones() as u64;
            searches.settled += settled.count_ones() as u64;
        }
        let groups = groups.with_exhausted(exhausted);
        search_pairs(open & tail, x_lo, t, limit, &mut found, &mut count, |x, y| partner_tail::<B>(&groups, x, y));
        search_pairs(open & !tail, x_lo, t, limit, &mut found, &mut count, |x, y| partner::<B>(&groups, x, y));
        // The sum of the anti-diagonal's triples is `count t` plus their `z`s: one add per
        // triple in the loop, which is short of registers.
        let mut z_sum = 0u64;
        for &(x, z) in &found[..count] {
            let y = t - x;
            z_sum += z as u64;
            tables.mark(x, y, z);
            if keep {
                kept.push([x, y, z]);
            }
        }
        scan.losing += count as u64;
        scan.sum += count as u64 * t as u64 + z_sum;
    }
    scan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::keyscan::KeyscanVariant;

    /// The counted searches against the open pairs found from the losing triples (a pair
    /// is closed when it is the `(y, z)` or `(x, z)` of a losing triple other than its
    /// own): every open pair is searched once or settled.
    #[test]
    fn every_open_pair_is_searched_or_settled() {
        for limit in [0, 1, 2, 100, 447, 448, 1000] {
            let side = limit as usize + 1;
            let mut closed = vec![false; side * side];
            let expected = KeyscanVariant::BitsetX8.run(limit, &Scheduler::sequential(), &mut |x, y, z| {
                for (a, b) in [(y, z), (x, z)] {
                    if (a, b) != (x, y) {
                        closed[a as usize * side + b as usize] = true;
                    }
                }
            });
            let open = (0..side).flat_map(|x| (x..side).map(move |y| (x, y))).filter(|&(x, y)| !closed[x * side + y]);
            let (scan, searches) = count_searches_on(limit, Simd::portable());
            assert_eq!(scan, expected, "L={limit}");
            assert_eq!(
                searches.wide + searches.tail + searches.settled,
                open.count() as u64,
                "L={limit}: {searches:?}"
            );
        }
    }

    /// The scan's counts against a replay of its order built from the losing triples
    /// of the `naive` reference alone: in each strip, the pairs by anti-diagonal; a
    /// losing triple `(x, y, z)` sets bit `z - y` of row `x` of `k2t`, `z - x` of row `y`
    /// and `y - x` of row `z` once its anti-diagonal is done; `f_x` (the least clear bit)
    /// is read for every pile when the strip starts and for pile `64 s + t mod 64` before
    /// anti-diagonal `t`; an open pair is settled when `t >= L + x + 1 - f_x` for the last
    /// `f_x` read (`exhausted.rs`), and searched otherwise, in the tail window when
    /// `y >= tail_start(L)`. Every backend must count the same.
    #[test]
    fn the_scan_settles_what_a_replay_counts() {
        for limit in [0u32, 100, 447, 1000] {
            let side = limit as usize + 1;
            let mut closed = vec![false; side * side];
            let mut triples = Vec::new();
            KeyscanVariant::Naive.run(limit, &Scheduler::sequential(), &mut |x, y, z| {
                triples.push([x, y, z]);
                for (a, b) in [(y, z), (x, z)] {
                    if (a, b) != (x, y) {
                        closed[a as usize * side + b as usize] = true;
                    }
                }
            });
            // The marks of each strip's anti-diagonals, in the scan's order.
            triples.sort_by_key(|&[x, y, _]| (x / 64, x + y));
            let mut marks = triples.iter().peekable();
            let mut k2t = vec![vec![false; side]; side];
            let least_clear = |row: &[bool]| row.iter().position(|&bit| !bit).unwrap_or(side) as u32;
            let mut expected = Searches::default();
            for s in 0..=limit / 64 {
                let (x_lo, x_hi) = (64 * s, (64 * s + 63).min(limit));
                let mut floor: Vec<u32> = (x_lo..=x_hi).map(|x| least_clear(&k2t[x as usize])).collect();
                for t in 2 * x_lo..=x_hi + limit {
                    let i = (t & 63) as usize;
                    if i < floor.len() {
                        floor[i] = least_clear(&k2t[x_lo as usize + i]);
                    }
                    for x in x_lo.max(t.saturating_sub(limit))..=x_hi.min(t / 2) {
                        let y = t - x;
                        if closed[x as usize * side + y as usize] {
                            continue;
                        }
                        if t >= limit + x + 1 - floor[(x - x_lo) as usize] {
                            expected.settled += 1;
                        } else if y >= tail_start(limit) {
                            expected.tail += 1;
                        } else {
                            expected.wide += 1;
                        }
                    }
                    while let Some(&[x, y, z]) = marks.next_if(|&&[x, y, _]| x / 64 == s && x + y == t) {
                        for (row, bit) in [(x, z - y), (y, z - x), (z, y - x)] {
                            k2t[row as usize][bit as usize] = true;
                        }
                    }
                }
            }
            assert!(marks.next().is_none(), "L={limit}: every triple marked");
            for simd in Simd::tested() {
                let (_, searches) = count_searches_on(limit, simd);
                assert_eq!(searches, expected, "L={limit} on {simd}");
            }
        }
    }
}
