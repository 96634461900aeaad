//! Modular arithmetic: scalar helpers for any 64-bit modulus, Montgomery form for odd
//! moduli below 2^31 (scalar and in SIMD lanes), Barrett reduction for any modulus
//! below 2^32, the rings of a modulus split into its CRT factors `2^k` and `q` (`split`,
//! in `u64` lanes), primality, and binomial tables.
//!
//! Conventions: a "residue" is a value in `[0, m)` unless a function says otherwise
//! (the lazy SIMD forms keep values in `[0, 2p)` and say so).

pub mod barrett;
pub mod binomial;
pub mod lanes;
pub mod modp;
pub mod montgomery;
pub mod split;

pub use barrett::Barrett32;
pub use binomial::FactorialTable;
pub use lanes::{LANES, ModLanes};
pub use modp::{add_mod, inv_mod, is_prime, mul_mod, pow_mod, sub_mod};
pub use montgomery::Montgomery32;
