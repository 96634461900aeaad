//! The NEON backend's vector types (`std::arch::aarch64`).
//!
//! One file per vector family, each implementing that family's trait (`super::mont`,
//! `super::words`, `super::dots`) for this backend.

pub mod dots;
pub mod mont;
pub mod words;
