//! The balanced-row power series of one Walsh character (PE 1015, seed sections 8–12).
//!
//! For a character `h` the block signs are `w(L) = (-1)^popcount(h & g(L))`, with `g` the
//! Dawson's Kayles values. In `u = t^2`, with `E = Σ_{j>=1} w(2j)·u^j` and
//! `O^2 = u·(Σ_{j>=0} w(2j+1)·u^j)^2`, the signed count of balanced rows of `2m` pins is
//!
//! ```text
//! c(m) = [u^m] sqrt( ((1+E)^2 - O^2) / ((1-E)^2 - O^2) )
//! ```
//!
//! Every variant returns `c(0..=m)` modulo an even modulus `M'` (the caller sums the 16
//! characters modulo `16·M` and divides by 16).

pub mod check;
pub mod reference;

pub use reference::series_reference;

use crate::kernels::variant_enum;

/// The largest modulus `M'` the series variants accept: the reference works modulo
/// `2·M'` in `u64` residues with `u128` products.
pub const SERIES_MODULUS_LIMIT: u64 = 1 << 62;

variant_enum! {
    /// The character-series implementations.
    pub enum SeriesVariant {
        /// Long division, then the square root with the halving rule: O(m^2), the reference.
        Reference => "reference",
    }
}

impl SeriesVariant {
    /// `c(0..=m) mod modulus` for the character whose block signs are `signs[L]`,
    /// `L = 0..=2m+1` (each `±1`).
    ///
    /// # Panics
    /// If `signs` is shorter than `2m + 2`, or `modulus` is odd, below 2 or not below
    /// [`SERIES_MODULUS_LIMIT`].
    pub fn run(self, signs: &[i8], m: usize, modulus: u64) -> Vec<u64> {
        assert!(signs.len() >= 2 * m + 2, "need block signs up to 2m+1 = {}", 2 * m + 1);
        assert!(
            modulus >= 2 && modulus.is_multiple_of(2) && modulus < SERIES_MODULUS_LIMIT,
            "series modulus {modulus} must be even, at least 2 and below 2^62"
        );
        match self {
            SeriesVariant::Reference => series_reference(signs, m, modulus),
        }
    }
}
