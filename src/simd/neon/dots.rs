//! The dots family on NEON: the portable types. On aarch64 `wide` compiles them to NEON
//! already (`i16x32::dot` is `vmull_s16` + `vmull_high_s16` + `vpaddq_s32` per quarter),
//! and the `f64` lanes' fused multiply-adds and rounding are `fmla` and `frintn` (both in
//! the aarch64 baseline, so the portable types say `FMA` there and the kayles kernel runs
//! `x` in them), so NEON intrinsics of our own would only repeat them.

use crate::simd::dots::Dots;
use crate::simd::{Neon, portable};

impl Dots for Neon {
    type Pairs = portable::dots::Pairs;
    type Doubles = portable::dots::Doubles;
    type Ring = portable::dots::Ring;
}
