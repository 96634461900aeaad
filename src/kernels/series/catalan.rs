//! The Catalan form `T + T^2 = x`, eight characters at a time (one per lane), modulo
//! each factor of `N = M'/2 = 2^k·q` ([`crate::arith::split`]).
//!
//! Plain algorithm (one character, modulo `N`):
//!
//! ```text
//! x_k = num_k - Σ_{1<=i<=deg den} den_i·x_{k-i}
//! T_k = x_k - 2·Σ_{0<i<k/2} T_i·T_{k-i} - [k even]·T_{k/2}^2
//! ```
//!
//! Optimisations:
//! 1. Lanes over characters: coefficient `k` of eight characters is one 64-byte row, so
//!    both sums are lane-wise dot products of whole rows, with no horizontal sums, no
//!    reversed copies and the same loop for every character.
//! 2. The modulus is split (`Z/N ≅ Z/2^k × Z/q`): wrapping arithmetic modulo `2^k`,
//!    lazily folded `u64` accumulators modulo `q` in Montgomery form (one multiply and
//!    one add per term, one REDC in the lanes per coefficient), and one
//!    Chinese-remainder step per coefficient, after the characters are summed.
//! 3. The convolution is halved by the symmetry `i <-> k-i`.

use super::rational::RationalX;
use super::{BlockSigns, c_sum_from_t_sum};
use crate::arith::split::{LANES, LaneRing, Lanes, OddLarge, OddSmall, Pow2Narrow, Pow2Wide, SplitModulus};
use crate::simd::dots::{Dots, RingVec};

crate::simd::multiversion! {
    /// `Σ_h c_h(0..=m) mod modulus` over `characters`, on `simd`'s backend.
    pub fn series_catalan(characters: &[BlockSigns], m: usize, modulus: u64) -> Vec<u64> => series_catalan_generic;
}

/// [`series_catalan`] on the backend `B` (also the fallback of `catalan-words`, inside
/// its entry point).
#[inline(always)]
pub(crate) fn series_catalan_generic<B: Dots>(characters: &[BlockSigns], m: usize, modulus: u64) -> Vec<u64> {
    let n = modulus / 2;
    let split = SplitModulus::new(n);
    let inverse = split.inverse_of_pow2();
    // Σ T over every character, modulo each factor; one Chinese-remainder step per
    // coefficient at the end.
    let (mut t2, mut tq) = (vec![0u64; m + 1], vec![0u64; m + 1]);
    let mask = if split.two_bits >= 64 { u64::MAX } else { (1u64 << split.two_bits) - 1 };
    for group in characters.chunks(LANES) {
        // Lowest terms first: the lane group runs the longest of their recurrences.
        let rationals: Vec<RationalX> = group.iter().map(|signs| RationalX::new(&signs.minimized())).collect();
        let group_t2 = match split.two_bits {
            0..=32 => t_lane_sums::<B::Ring, _>(&Pow2Narrow::new(split.two_bits), &rationals, m),
            bits => t_lane_sums::<B::Ring, _>(&Pow2Wide::new(bits), &rationals, m),
        };
        for (sum, v) in t2.iter_mut().zip(group_t2) {
            *sum = sum.wrapping_add(v) & mask;
        }
        let q = split.odd;
        let group_tq = match q {
            1 => continue,
            q if q < OddSmall::LIMIT => t_lane_sums::<B::Ring, _>(&OddSmall::new(q), &rationals, m),
            q => t_lane_sums::<B::Ring, _>(&OddLarge::new(q), &rationals, m),
        };
        for (sum, v) in tq.iter_mut().zip(group_tq) {
            // Residues below q < 2^61: the sum fits a u64.
            *sum += v;
            if *sum >= q {
                *sum -= q;
            }
        }
    }
    let t_sum: Vec<u64> = t2.iter().zip(&tq).map(|(&r2, &rq)| split.combine(r2, rq, inverse)).collect();
    debug_assert!(t_sum.iter().all(|&t| t < n.max(1)));
    c_sum_from_t_sum(t_sum, characters.len(), modulus)
}

/// `Σ_lanes T(0..=m)` in the ring, for up to [`LANES`] characters given by their
/// rational forms (unused lanes have `x = 0`, hence `T = 0`, and add nothing).
#[inline(always)]
fn t_lane_sums<V: RingVec, R: LaneRing<V>>(ring: &R, rationals: &[RationalX], m: usize) -> Vec<u64> {
    assert!(rationals.len() <= LANES);
    let lane_coefficients = |poly: fn(&RationalX) -> &[i64], len: usize| -> Vec<Lanes> {
        (0..len)
            .map(|i| {
                Lanes(std::array::from_fn(|l| {
                    rationals.get(l).and_then(|r| poly(r).get(i)).map_or(0, |&v| ring.encode(v))
                }))
            })
            .collect()
    };
    let order = rationals.iter().map(RationalX::order).max().unwrap_or(0);
    let num = lane_coefficients(|r| &r.num, (m + 1).min(rationals.iter().map(|r| r.num.len()).max().unwrap_or(0)));
    let den = lane_coefficients(|r| &r.den, order + 1);

    let mut x = vec![Lanes::ZERO; m + 1];
    for k in 0..=m {
        // x_k = num_k - Σ_{1<=i<=lags} den_i·x_{k-i}.
        let lags = order.min(k);
        let sum = ring.dot_reversed(&den[1..=lags], &x[k - lags..k]);
        x[k] = ring.sub(num.get(k).unwrap_or(&Lanes::ZERO), &sum);
    }

    let mut t = vec![Lanes::ZERO; m + 1];
    for k in 1..=m {
        // T_k = x_k - 2·Σ_{0<i<k/2} T_i·T_{k-i} - [k even]·T_{k/2}^2, one accumulator.
        let h = k.div_ceil(2) - 1;
        let mut acc = ring.zero();
        ring.accumulate_reversed(&mut acc, &t[1..=h], &t[k - h..k]);
        ring.double(&mut acc);
        if k % 2 == 0 {
            R::mul_add(&mut acc, &t[k / 2], &t[k / 2]);
        }
        t[k] = ring.sub(&x[k], &ring.finish(acc));
    }
    t.iter().map(|v| ring.lane_sum(v)).collect()
}
