//! The schoolbook product: the definition, in `u128`.

/// The first `out_len` coefficients of `a·b` modulo `modulus` (< 2^62), O(la·lb).
pub fn ntt_reference(a: &[u64], b: &[u64], modulus: u64, out_len: usize) -> Vec<u64> {
    let m = modulus as u128;
    let mut out = vec![0u128; out_len];
    for (i, &ai) in a.iter().enumerate().take(out_len) {
        for (j, &bj) in b.iter().enumerate().take(out_len - i) {
            // Both factors are below 2^62: the product is below 2^124, the sum below 2^125.
            out[i + j] = (out[i + j] + ai as u128 * bj as u128) % m;
        }
    }
    out.into_iter().map(|v| v as u64).collect()
}
