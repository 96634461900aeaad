//! The portable backend's vector types: `wide` at the build's baseline.
//!
//! One file per vector family, each implementing that family's trait (`super::mont`,
//! `super::words`, `super::dots`) for this backend.

pub mod dots;
pub mod mont;
pub mod words;
