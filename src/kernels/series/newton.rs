//! Placeholder.
use super::BlockSigns;
/// The largest `m` newton supports.
pub const MAX_HALF_PINS: usize = 1 << 26;
/// Newton.
pub fn series_newton(characters: &[BlockSigns], m: usize, modulus: u64) -> Vec<u64> {
    super::series_catalan_scalar(characters, m, modulus)
}
/// Bytes.
pub fn memory_bytes(len: usize) -> u64 {
    len as u64 * 200
}
