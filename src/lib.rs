//! gamecount: exact, fast counts of combinatorial-game positions.
//!
//! Four Project Euler problems, each reduced by its theory to a hot kernel:
//!
//! | problem | game | kernel families |
//! |---|---|---|
//! | [`games::kayles`] (PE 1015) | partisan Kayles | [`kernels::series`] |
//! | [`games::stones`] (PE 260) | three-pile stone game | [`kernels::keyscan`] |
//! | [`games::cards`] (PE 798) | card stacks | [`kernels::nimber_freq`], [`kernels::wht`], [`kernels::powsum`] |
//! | [`games::coins`] (PE 860) | coin stacks | [`kernels::banded_dp`] |
//!
//! Beside them, [`games::octal`]: the Grundy values of any octal game (and Grundy's
//! game) with a certified period, and the P-positions of their sums, through
//! [`kernels::grundy`], [`kernels::wht`] and [`kernels::powsum`].
//!
//! Layout: [`arith`] modular arithmetic; [`simd`] the one place that names instruction
//! sets; [`kernels`] one folder per kernel family (a reference, the oracle of its tests,
//! a plain variant and faster ones, a variant enum, a cross-check helper); [`games`] the
//! theory, parameter validation and brute-force solver of each game; [`sched`] the only
//! place that spawns parallel work; [`memory`] the memory preflight and the aligned
//! buffers of the large arrays; [`files`] the output files, replaced whole or not at all;
//! [`cli`] the command line.

pub mod arith;
pub mod cli;
pub mod files;
pub mod games;
pub mod kernels;
pub mod memory;
pub mod platform;
pub mod sched;
pub mod simd;
