//! The sequential bitset scan: the sorted pairs `(x, y)` in lexicographic order, pairs
//! with `K1(x, y)` marked skipped, each open pair resolved by an OR of six table rows and
//! a first-zero search (see [`super::search`]), one `u64` word of candidates per step.

use super::search::{next_open_pair, partner_u64};
use crate::kernels::keyscan::StoneScan;
use crate::kernels::keyscan::tables::{KeyTables, Layout};
use crate::sched::Scheduler;

/// The scan in lexicographic order with the given partner search, called as `(pile group
/// y, pile group x, difference group y - x, layout, x, y)` (`sched` only draws the
/// progress bar: the scan is sequential).
#[inline(always)]
pub fn keyscan_bitset_with(
    limit: u32,
    search: impl Fn(&[u64], &[u64], &[u64], Layout, u32, u32) -> Option<u32>,
    sched: &Scheduler,
    sink: &mut dyn FnMut(u32, u32, u32),
) -> StoneScan {
    let mut t = KeyTables::new(limit);
    let layout = t.layout;
    let mut scan = StoneScan::default();
    let progress = sched.progress(limit as u64 + 1, "stones rows");
    for x in 0..=limit {
        progress.inc(1);
        let mut y = next_open_pair(t.pile_group(x), layout, x);
        while y <= limit {
            if let Some(z) = search(t.pile_group(y), t.pile_group(x), t.diff_group(y - x), layout, x, y) {
                scan.record(x, y, z);
                sink(x, y, z);
                t.mark(x, y, z);
            }
            y = next_open_pair(t.pile_group(x), layout, y + 1);
        }
    }
    scan
}

/// Scans every sorted pair in lexicographic order, one word at a time.
pub fn keyscan_bitset(limit: u32, sched: &Scheduler, sink: &mut dyn FnMut(u32, u32, u32)) -> StoneScan {
    keyscan_bitset_with(limit, partner_u64, sched, sink)
}
