//! The anti-diagonal scan: the pairs `(x, y)` in order of `t = x + y`, each anti-diagonal
//! in runs of up to 64 candidate pairs (one word of open flags), each run in two passes:
//! all its partner searches first, then all its marks.
//!
//! ```text
//! for t in 0..=2L, for each word of the open flags of t:
//!     pass 1: for each open pair (x, t - x):  z = partner(x, t - x); keep (x, z) if z <= L
//!     pass 2: for each kept (x, z):           record (x, t - x, z); mark its keys
//! ```
//!
//! Why this order is allowed, and why it is fast:
//!
//! * The order by `t` extends the product order of the pairs (`x' <= x`, `y' <= y`
//!   implies `t' <= t`), and any such order finds the losing triples of the
//!   lexicographic scan (the lemma in `wavefront.rs`).
//! * Two pairs of one anti-diagonal are incomparable, so neither needs a mark of the
//!   other: the searches of an anti-diagonal are independent, and may be cut into runs
//!   in any way. Running a run's searches before any of its marks means no branch depends
//!   on whether a pair has a partner (about half do, at random), and consecutive searches
//!   overlap in the core instead of waiting for the previous pair's marks (the
//!   lexicographic scans lose most of their time there). Runs of one word keep the rows
//!   a run searched in the L1 cache for its marks.
//! * Which pairs are open (`K1(x, y)` unmarked) is known before the anti-diagonal
//!   starts: a mark made on it lands on later anti-diagonals (see
//!   [`LineTables::mark`]). The open flags are kept per anti-diagonal, so pass 1 walks
//!   the set bits of a word.
//!
//! The searches use the one-window search of `window.rs`; pass 2 sets seven key bits
//! and two open flags per losing triple. The losing triples come out of order; when a
//! sink wants them they are kept and sorted lexicographically at the end.
//!
//! Every anti-diagonal reads rows all over the tables, so this scan wants them in the
//! L2 cache: it is the fastest up to a few thousand (3.0–3.1 ms at `L = 1000`, one
//! thread, in-process), and far behind the tiled scans beyond (2.5 s at `L = 10^4`).

use super::StoneScan;
use super::window::LineTables;
use crate::sched::Scheduler;

/// Scans every sorted pair by anti-diagonals; calls `sink` for each losing triple in
/// lexicographic order when given (`sched` only draws the progress bar).
pub fn keyscan_diagonal(limit: u32, sched: &Scheduler, sink: Option<&mut dyn FnMut(u32, u32, u32)>) -> StoneScan {
    let mut tables = LineTables::new(limit);
    let mut scan = StoneScan::default();
    let mut kept = Vec::new();
    // Pairs with a partner among 64 of one anti-diagonal, plus the slot pass 1 writes
    // before it knows whether to keep it.
    let mut found = [(0u32, 0u32); 65];
    let progress = sched.progress(2 * limit as u64 + 1, "stones diagonals");
    for t in 0..=2 * limit {
        let lo = tables.diagonal_start(t);
        let last = t / 2 - lo; // flags 0..=last: the pairs (lo..=t/2, t - x)
        for w in 0..=last as usize >> 6 {
            let beyond = if w == last as usize >> 6 { u64::MAX << (last & 63) << 1 } else { 0 };
            let mut open = !tables.closed_flags(t)[w] & !beyond;
            let mut count = 0;
            while open != 0 {
                let x = lo + 64 * w as u32 + open.trailing_zeros();
                open &= open - 1;
                let z = tables.partner(x, t - x);
                found[count] = (x, z);
                count += (z <= limit) as usize;
            }
            for &(x, z) in &found[..count] {
                let y = t - x;
                scan.record(x, y, z);
                tables.mark(x, y, z);
                if sink.is_some() {
                    kept.push([x, y, z]);
                }
            }
        }
        progress.inc(1);
    }
    if let Some(sink) = sink {
        kept.sort_unstable();
        kept.iter().for_each(|&[x, y, z]| sink(x, y, z));
    }
    scan
}
