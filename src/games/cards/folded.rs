//! The `folded` pipeline: the frequencies above `L/2` are few, so their half of the
//! transform is folded onto the lower half (docs/theory/cards.md §10.1).
//!
//! With `F` supported on `0..n`, `L/2 < n <= L`, and `h` the least power of two (at
//! least one vector) holding the `r = n - L/2` upper frequencies:
//!
//! ```text
//! A = wht_{L/2}(F_lo + F_hi)      H = wht_h(F_hi)
//! wht_L(F)(t)         = A(t)
//! wht_L(F)(t + L/2)   = A(t) - 2·H(t mod h)         for t < L/2
//! ```
//!
//! So the array is `L/2 + h` values instead of `L` (40 MiB instead of 64 MiB for
//! `n = 10^7`), and the transforms do `(ℓ-1)·L/2 + log2(h)·h` butterflies instead of
//! `ℓ·L`. The power sum still raises all `L` values: each of `A` and `A - 2H`.

use super::CardsParams;
use crate::arith::{LANES, ModLanes, Montgomery32, inv_mod};
use crate::kernels::nimber_freq::NimberFreqVariant;
use crate::kernels::powsum::PowerPlan;
use crate::kernels::powsum::simd::{finish, paired_power_sum_lanes};
use crate::kernels::wht::WhtVariant;
use crate::memory::AlignedBuffer;
use crate::sched::Scheduler;
use crate::simd::mont::Mont;

/// Values per power-sum job: as the `parallel` power sum's jobs, each raising its piece
/// of `A` and of `A - 2H`.
const CHUNK_VALUES: usize = crate::kernels::powsum::parallel::CHUNK_VALUES;

/// Values per job of the fold `A += F_hi`: a memory-bound add, 4 MiB read and written.
const FOLD_VALUES: usize = 1 << 20;

/// The folded layout of a transform of length `L`: the lower half, then the short part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fold {
    /// `L/2`, the length of the main transform.
    pub half: usize,
    /// `h`: the least power of two `>= n - L/2`, and at least one vector.
    pub short: usize,
}

impl Fold {
    /// The layout for `n` cards, or `None` when the lower half is shorter than two
    /// vectors (there the plain layout is as small and the lane transforms need a vector).
    pub fn for_cards(n: u64) -> Option<Fold> {
        let len = usize::try_from(n.next_power_of_two()).ok()?;
        let half = len / 2;
        if half < 2 * LANES {
            return None;
        }
        // n > L/2 since L is the least power of two >= n, so r >= 1; and r <= L/2, so
        // h <= L/2 (both powers of two, L/2 >= LANES).
        let upper = n as usize - half;
        Some(Fold { half, short: upper.next_power_of_two().max(LANES) })
    }

    /// Values the buffer holds: `L/2 + h` (at least `n`, as the frequency stage writes `0..n`).
    pub fn len(&self) -> usize {
        self.half + self.short
    }

    /// Whether the layout is empty (never: `L/2 >= 2·LANES`).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `C(n, s) mod p` through the folded layout, every stage on the scheduler's threads.
pub fn losing_sets_folded(params: &CardsParams, fold: Fold, sched: &Scheduler) -> u64 {
    let p = params.modulus as u32;
    let mut buffer = AlignedBuffer::zeroed_on(fold.len(), sched);
    let values = buffer.as_mut_slice();
    NimberFreqVariant::Parallel.run(params.cards as usize, p, values, sched);
    // `upper` starts at L/2, a multiple of LANES, so it stays 64-byte aligned.
    let (lower, upper) = values.split_at_mut(fold.half);
    let simd = sched.simd();
    sched.for_each_chunk(&mut lower[..fold.short], FOLD_VALUES, |job, piece| {
        let at = job * FOLD_VALUES;
        add_assign_lanes(simd, piece, &upper[at..at + piece.len()], p);
    });
    WhtVariant::Parallel.run(lower, p, sched);
    WhtVariant::Parallel.run(upper, p, sched);
    let sum = paired_power_sum(lower, upper, params.suits, p, sched) as u64;
    let len = 2 * fold.half as u64;
    let inv_len = inv_mod(len % params.modulus, params.modulus).expect("L is a power of two and p an odd prime");
    sum * inv_len % params.modulus
}

/// `Σ_t A(t)^s + (A(t) - 2·H(t mod h))^s mod p` for residues below the odd prime
/// `p < 2^31`, `h = short.len()` a power of two dividing `A`'s length.
fn paired_power_sum(lower: &[u32], short: &[u32], s: u64, p: u32, sched: &Scheduler) -> u32 {
    let mont = Montgomery32::new(p as u64).expect("validated: an odd prime below 2^31");
    let plan = PowerPlan::for_power_mod(s, p);
    let simd = sched.simd();
    let progress = sched.progress(2 * lower.len() as u64, "power sum");
    let jobs = lower.len().div_ceil(CHUNK_VALUES);
    let partial = sched.map_collect(jobs, |job| {
        let at = job * CHUNK_VALUES;
        let piece = &lower[at..lower.len().min(at + CHUNK_VALUES)];
        // The piece's values of H: whole periods of `short` when the piece is longer, one
        // contiguous run otherwise (both lengths are powers of two, `at` a multiple of
        // the smaller). A sum below p per run: a u64 total cannot overflow.
        let period = short.len().min(piece.len());
        let sum = piece
            .chunks(period)
            .enumerate()
            .map(|(k, a)| {
                let from = (at + k * period) % short.len();
                paired_power_sum_lanes(simd, a, &short[from..from + a.len()], p, &plan) as u64
            })
            .sum::<u64>();
        progress.inc(2 * piece.len() as u64);
        sum
    });
    let total = partial.iter().sum::<u64>() % p as u64;
    finish(&mont, total as u32, &plan)
}

crate::multiversion! {
    /// `acc[i] = (acc[i] + other[i]) mod p` for residues below `p`.
    fn add_assign_lanes(acc: &mut [u32], other: &[u32], p: u32) => add_assign_generic;
}

#[inline(always)]
fn add_assign_generic<B: Mont>(acc: &mut [u32], other: &[u32], p: u32) {
    let lanes = ModLanes::<B>::new(p).expect("validated: an odd prime below 2^31");
    let (vectors, rest) = acc.as_chunks_mut::<LANES>();
    let (others, other_rest) = other.as_chunks::<LANES>();
    for (v, o) in vectors.iter_mut().zip(others) {
        B::store(v, lanes.add(B::load(v), B::load(o)));
    }
    for (x, &y) in rest.iter_mut().zip(other_rest) {
        *x = ((*x as u64 + y as u64) % p as u64) as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_holds_every_frequency_and_halves_the_transform() {
        // Below two vectors in the lower half: no fold.
        for n in [1, 2, 3, 32] {
            assert_eq!(Fold::for_cards(n), None, "{n}");
        }
        // One value above L/2, a power of two, and the instance.
        assert_eq!(Fold::for_cards(33), Some(Fold { half: 32, short: 16 }));
        assert_eq!(Fold::for_cards(64), Some(Fold { half: 32, short: 32 }));
        assert_eq!(Fold::for_cards(1 << 20), Some(Fold { half: 1 << 19, short: 1 << 19 }));
        assert_eq!(Fold::for_cards((1 << 20) + 1), Some(Fold { half: 1 << 20, short: 16 }));
        let instance = Fold::for_cards(10_000_000).unwrap();
        assert_eq!(instance, Fold { half: 1 << 23, short: 1 << 21 });
        for n in (33..5000).chain([(1 << 24) - 1, 1 << 24, 10_000_000]) {
            let fold = Fold::for_cards(n).unwrap();
            assert!(fold.len() as u64 >= n && fold.short <= fold.half, "{n}: {fold:?}");
            assert_eq!(2 * fold.half as u64, n.next_power_of_two(), "{n}");
        }
    }

    #[test]
    fn the_fold_matches_scalar_residues_on_every_backend() {
        let p = (1u32 << 31) - 1;
        for simd in crate::simd::Simd::tested() {
            for len in [0, 1, 15, 16, 17, 100] {
                let a: Vec<u32> = (0..len as u64).map(|i| ((i * 0x9e37_79b9 + 5) % p as u64) as u32).collect();
                let b: Vec<u32> = (0..len as u64).map(|i| (p as u64 - 1 - i * 7919 % p as u64) as u32).collect();
                let mut sum = a.clone();
                add_assign_lanes(simd, &mut sum, &b, p);
                for i in 0..len {
                    assert_eq!(sum[i] as u64, (a[i] as u64 + b[i] as u64) % p as u64, "{simd:?} add {i}");
                }
            }
        }
    }
}
