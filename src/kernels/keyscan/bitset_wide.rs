//! The sequential bitset scan with the row OR and the first-zero search done in `wide`
//! lanes: four words (256 candidates for `z`) or eight words (512) per step.

use super::StoneScan;
use super::bitset::keyscan_bitset_with;
use super::search::partner_lanes;
use crate::sched::Scheduler;
use wide::{u64x4, u64x8};

/// Scans every sorted pair in lexicographic order, four words at a time.
pub fn keyscan_bitset_x4(limit: u32, sched: &Scheduler, sink: &mut dyn FnMut(u32, u32, u32)) -> StoneScan {
    keyscan_bitset_with(limit, partner_lanes::<u64x4>, sched, sink)
}

/// Scans every sorted pair in lexicographic order, eight words at a time.
pub fn keyscan_bitset_x8(limit: u32, sched: &Scheduler, sink: &mut dyn FnMut(u32, u32, u32)) -> StoneScan {
    keyscan_bitset_with(limit, partner_lanes::<u64x8>, sched, sink)
}
