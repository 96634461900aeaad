//! The plain in-place transform: one level at a time over the whole array.

/// Walsh–Hadamard transform of `data` (length a power of two, residues below `p < 2^31`).
pub fn wht_scalar(data: &mut [u32], p: u32) {
    let n = data.len();
    let mut half = 1;
    while half < n {
        for block in data.chunks_exact_mut(2 * half) {
            let (lo, hi) = block.split_at_mut(half);
            for (u, v) in lo.iter_mut().zip(hi.iter_mut()) {
                // u + v < 2p <= 2^32: no overflow.
                let (a, b) = (*u, *v);
                let sum = a + b;
                *u = if sum >= p { sum - p } else { sum };
                *v = if a >= b { a - b } else { a + p - b };
            }
        }
        half *= 2;
    }
}
