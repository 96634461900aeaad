//! `[x^(nR)] Q(x)^n mod p` by the holonomic recurrence of a polynomial power.
//!
//! With `A = Q^n = Σ a_k x^k`, `A' = n·Q'·Q^(n-1)`, so `Q·A' = n·Q'·A`. The coefficient
//! of `x^(k-1)` on both sides gives, for `k >= 1`,
//!
//! ```text
//! q_0·k·a_k = Σ_{e=1..2R} q_e·((n+1)·e - k)·a_{k-e},      a_0 = q_0^n
//! ```
//!
//! (for the two-coin stacks `q_3 = q_5 = q_8 = q_0 = 1`, docs/theory/coins.md §8). Each `a_k`
//! needs the `2R` before it (a ring buffer) and `(q_0·k)^-1`, which exists when
//! `p > nR` and `q_0 ≢ 0`. The inverses come in blocks: one extended-Euclid inversion of
//! the block's product, then two products per element walking back (Montgomery's trick).

use crate::arith::Barrett32;
use crate::arith::{inv_mod, pow_mod};
use crate::kernels::banded_dp::StepSet;
use crate::sched::Progress;

/// Inverses computed per inversion.
pub const INVERSE_BLOCK: usize = 1024;

/// `D_n(0) mod p` for a prime `p > n·R` with `q_0 = c_R ≢ 0 (mod p)` (the caller's
/// precondition, see `CoinFormulaVariant::applicability`).
pub fn coins_recurrence(n: usize, steps: &StepSet, p: u32) -> u32 {
    coins_recurrence_reporting(n, steps, p, &Progress::hidden())
}

/// [`coins_recurrence`], advancing `progress` by one per coefficient (`n·R` in all).
pub fn coins_recurrence_reporting(n: usize, steps: &StepSet, p: u32, progress: &Progress) -> u32 {
    let (p, reach) = (p as u64, steps.max_offset() as usize);
    let mp = Barrett32::new(p);
    let target = n * reach;
    // q_e, e in [0, 2R]: Q = x^R·Σ_o c_o (x^o + x^-o).
    let mut q = vec![0u64; 2 * reach + 1];
    for &(o, c) in steps.steps() {
        q[reach - o as usize] = c % p;
        q[reach + o as usize] = c % p;
    }
    let q0 = q[0];
    // (e, q_e, ((n+1)·e - k) mod p) for the non-zero q_e, e >= 1; the last field is
    // kept for the current k and decremented as k grows.
    let mut terms: Vec<(usize, u64, u64)> = (1..=2 * reach)
        .filter(|&e| q[e] != 0)
        .map(|e| (e, q[e], ((n as u64 % p + 1) * e as u64 % p + p - 1) % p))
        .collect();
    let window = (2 * reach + 1).next_power_of_two();
    let mut a = vec![0u64; window];
    a[0] = pow_mod(q0, n as u64, p);
    let mut inverses = [0u64; INVERSE_BLOCK];
    let mut prefix = [0u64; INVERSE_BLOCK];
    for block_start in (1..=target).step_by(INVERSE_BLOCK) {
        let len = INVERSE_BLOCK.min(target + 1 - block_start);
        // prefix[i] = Π_{j <= i} q0·(block_start + j); every factor is non-zero mod p.
        let mut running = 1;
        for (i, slot) in prefix[..len].iter_mut().enumerate() {
            // k = block_start + i <= nR < p < 2^32: a valid factor for Barrett32::mul.
            running = mp.mul(running, mp.mul(q0, (block_start + i) as u64));
            *slot = running;
        }
        let mut inverse = inv_mod(running, p).expect("p is a prime above nR and q0 is not 0 mod p");
        for i in (0..len).rev() {
            let factor = mp.mul(q0, (block_start + i) as u64);
            inverses[i] = if i > 0 { mp.mul(inverse, prefix[i - 1]) } else { inverse };
            inverse = mp.mul(inverse, factor);
        }
        for (i, &inv) in inverses[..len].iter().enumerate() {
            let k = block_start + i;
            // Each product is reduced below p < 2^32; at most 2R of them sum below 2^64.
            let mut sum = 0u64;
            for (e, q_e, coefficient) in terms.iter_mut() {
                if *e <= k {
                    let product = mp.mul(*coefficient, a[(k - *e) & (window - 1)]);
                    sum += if *q_e == 1 { product } else { mp.mul(product, *q_e) };
                }
                *coefficient = if *coefficient == 0 { p - 1 } else { *coefficient - 1 };
            }
            a[k & (window - 1)] = mp.mul(mp.reduce(sum), inv);
        }
        progress.inc(len as u64);
    }
    a[target & (window - 1)] as u32
}
