//! The sequential bitset scan with the row OR and the first-zero search done in vector
//! blocks of the scheduler's SIMD backend: four words (256 candidates for `z`) or eight
//! words (512) per step.

use super::bitset::keyscan_bitset_with;
use super::search::{partner_x4, partner_x8};
use crate::kernels::keyscan::StoneScan;
use crate::sched::Scheduler;

/// Scans every sorted pair in lexicographic order, four words at a time.
pub fn keyscan_bitset_x4(limit: u32, sched: &Scheduler, sink: &mut dyn FnMut(u32, u32, u32)) -> StoneScan {
    let simd = sched.simd();
    keyscan_bitset_with(limit, |y, x, d, layout, a, b| partner_x4(simd, y, x, d, layout, a, b), sched, sink)
}

/// Scans every sorted pair in lexicographic order, eight words at a time.
pub fn keyscan_bitset_x8(limit: u32, sched: &Scheduler, sink: &mut dyn FnMut(u32, u32, u32)) -> StoneScan {
    let simd = sched.simd();
    keyscan_bitset_with(limit, |y, x, d, layout, a, b| partner_x8(simd, y, x, d, layout, a, b), sched, sink)
}
