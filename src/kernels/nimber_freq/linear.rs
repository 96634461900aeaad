//! Frequencies in O(N): factorial tables for the binomials and the tail recurrence
//! (docs/theory/cards.md §8). With `R = N - k - 2`,
//!
//! ```text
//! A_k = Σ_{i=0}^{k-2} C(R, i),   A_1 = 0,   2·A_k = A_{k-1} + 2·C(R, k-2) + C(R, k-3)
//! B_k = Σ_{i=0}^{k-2} C(R+1, i) = 2·A_k - C(R, k-2)            (Pascal's rule)
//! F(2k)   = 2^R     + C(R, k)     - A_k
//! F(2k-1) = 2^(R+1) + C(R+1, k)   - B_k
//! ```

use crate::arith::{FactorialTable, pow_mod};

/// Writes `F_n(v) mod p` into `out[v]` for `v < n`, zeros after; `n < p < 2^31`, `p` prime.
pub fn nimber_freq_linear(n: usize, p: u32, out: &mut [u32]) {
    let p64 = p as u64;
    out.fill(0);
    if n == 1 {
        out[0] = 2 % p;
        return;
    }
    let table = FactorialTable::new(n, p64).expect("n < p was checked by the caller");
    let c = |a: i64, b: i64| table.binom(a, b);
    let inv2 = p64.div_ceil(2); // (p + 1) / 2 is 2^-1 for odd p
    let n_i = n as i64;
    out[0] = ((pow_mod(2, n as u64 - 2, p64) + 2) % p64) as u32;

    // pow_r1 = 2^(R+1) = 2^(n-k-1), starting at k = 1 and halved at every step.
    let mut pow_r1 = pow_mod(2, n as u64 - 2, p64);
    let mut a_k = 0u64; // A_1
    let mut k = 1i64;
    while 2 * k - 1 < n_i {
        let r = n_i - k - 2;
        if k >= 2 {
            a_k = (a_k + 2 * c(r, k - 2) + c(r, k - 3)) % p64 * inv2 % p64;
        }
        let b_k = (2 * a_k + p64 - c(r, k - 2)) % p64;
        out[(2 * k - 1) as usize] = ((pow_r1 + c(r + 1, k) + p64 - b_k) % p64) as u32;
        if 2 * k < n_i {
            let pow_r = pow_r1 * inv2 % p64;
            out[(2 * k) as usize] = ((pow_r + c(r, k) + p64 - a_k) % p64) as u32;
        }
        pow_r1 = pow_r1 * inv2 % p64;
        k += 1;
    }
}
