//! The words family on the NEON backend: the portable windows.
//!
//! On aarch64 `wide::u64x4` is two NEON `uint64x2_t` registers already (NEON is the
//! baseline there), and the portable window's shifts, ORs and compares compile to NEON
//! (`ushl` with a negated count for the right shifts, `ext` for the neighbour lanes,
//! `cmeq`); the operations hand-written with intrinsics would be the same instructions,
//! so this backend delegates.

use crate::simd::Neon;
use crate::simd::portable::words::{Full, Tail};
use crate::simd::words::Words;

impl Words for Neon {
    type Full = Full;
    type Tail = Tail;
}
