//! The tiled transform with its blocks and column bands spread over the scheduler's
//! threads: one synchronisation per pass (two for 2^24), never one per level. It
//! relies on the scheduler pinning its workers to separate cores: two workers woken
//! onto one core ran the local pass at the pace of one thread until the next balancing
//! tick (see `crate::sched`, and the measurements in [`super::tiled`]).

use super::tiled::{Tiling, wht_tiled_with};
use crate::sched::Scheduler;

/// Walsh–Hadamard transform of `data` (length a power of two, residues below `p`) with
/// this machine's tiling, on all of the scheduler's threads and its backend.
pub fn wht_parallel(data: &mut [u32], p: u32, sched: &Scheduler) {
    wht_tiled_with(data, p, &Tiling::detect(), sched);
}
