//! The Walsh–Hadamard transform as a matrix product, straight from the definition.
//! O(L^2): the oracle for small sizes, never used to compute answers.

/// `out[t] = Σ_x data[x]·(-1)^popcount(t & x) mod p`.
pub fn wht_reference(data: &[u32], p: u32) -> Vec<u32> {
    let p = p as u64;
    (0..data.len())
        .map(|t| {
            data.iter().enumerate().fold(0u64, |acc, (x, &value)| {
                let value = value as u64 % p;
                let term = if (t & x).count_ones() % 2 == 0 { value } else { (p - value) % p };
                (acc + term) % p
            }) as u32
        })
        .collect()
}
