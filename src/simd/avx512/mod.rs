//! The AVX-512 backend's vector types (`std::arch::x86_64`, 512-bit registers).
//!
//! One file per vector family, each implementing that family's trait (`super::mont`,
//! `super::words`, `super::dots`) for this backend.

pub mod dots;
pub mod mont;
pub mod words;
