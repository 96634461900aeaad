//! Modular sums in `u32x16` lanes for any modulus `2 <= m < 2^32`, without products.
//!
//! A DP cell is the sum of its `2S` neighbours (`S` step offsets, both signs), all
//! residues in `[0, m)`. How that sum is brought back to `[0, m)` depends on how much
//! headroom the modulus leaves in a 32-bit lane, so the choice is made once per run
//! ([`Strategy::choose`]) and the hot loop is monomorphised for it:
//!
//! | strategy | when | cost per neighbour pair |
//! |---|---|---|
//! | [`Lazy`] | `2^f·m <= 2^32` with `2^f >= 2S` | one add; `f` min-subtractions per cell at the end |
//! | [`Half`] | `2m <= 2^32` | add, then `min(t, t - m)` after every addition |
//! | [`Full`] | any `m < 2^32` | add, compare, masked subtract |
//!
//! The "min trick": for `t < 2M <= 2^32`, `min(t, t -% M)` is `t - M` when `t >= M` and
//! `t` otherwise, because a wrapped `t -% M = t - M + 2^32` exceeds `t`. On AVX-512
//! that is two instructions and no mask register.

use wide::u32x16;

/// The lane width every banded-DP vector uses (one 512-bit register with AVX-512, two
/// or four narrower ones otherwise: `wide` splits them, the code is the same).
pub const LANES: usize = 16;

/// Sixteen DP cells.
pub type Lanes = u32x16;

/// How a neighbour sum is accumulated and reduced. `sum` may leave its result
/// unreduced (the lazy strategy); `finish` brings an accumulated sum to `[0, m)`;
/// `add_mod` is always exact, for the multiplicities above one.
pub trait Reduction: Copy + Send + Sync {
    /// `a + b`, in whatever partial form the strategy accumulates.
    fn sum(self, a: Lanes, b: Lanes) -> Lanes;
    /// An accumulated sum of at most `2S` residues, reduced to `[0, m)`.
    fn finish(self, acc: Lanes) -> Lanes;
    /// `(a + b) mod m` for residues `a, b < m`.
    fn add_mod(self, a: Lanes, b: Lanes) -> Lanes;

    /// `(c·x) mod m` for residues `x` and a multiplier `c < m`, by doubling and adding
    /// (at most 64 exact additions; only step multiplicities above one need it).
    #[inline]
    fn scale(self, x: Lanes, c: u32) -> Lanes {
        let mut acc = Lanes::splat(0);
        for bit in (0..32 - c.leading_zeros()).rev() {
            acc = self.add_mod(acc, acc);
            if c >> bit & 1 == 1 {
                acc = self.add_mod(acc, x);
            }
        }
        acc
    }
}

/// Sums raw and reduces once per cell with `folds` min-subtractions of `2^i·m`,
/// `i = folds-1 .. 0`. Valid when every accumulated sum stays below `2^folds·m <= 2^32`.
#[derive(Clone, Copy, Debug)]
pub struct Lazy {
    m: u32,
    folds: u32,
}

/// Reduces after every addition: two residues sum to less than `2m <= 2^32`.
#[derive(Clone, Copy, Debug)]
pub struct Half {
    m: u32,
}

/// Any modulus below `2^32`: `a + b >= m` exactly when `a >= m - b`, a comparison that
/// cannot overflow; then `a + b - m` is computed with wrapping arithmetic.
#[derive(Clone, Copy, Debug)]
pub struct Full {
    m: u32,
}

#[inline]
fn add_mod_half(a: Lanes, b: Lanes, m: u32) -> Lanes {
    let t = a + b; // < 2m <= 2^32: no wrap
    t.min(t - Lanes::splat(m))
}

impl Reduction for Lazy {
    #[inline]
    fn sum(self, a: Lanes, b: Lanes) -> Lanes {
        a + b
    }
    #[inline]
    fn finish(self, mut acc: Lanes) -> Lanes {
        // acc < 2^folds·m; after the step with 2^i·m it is below 2^i·m.
        for i in (0..self.folds).rev() {
            acc = acc.min(acc - Lanes::splat(self.m << i));
        }
        acc
    }
    #[inline]
    fn add_mod(self, a: Lanes, b: Lanes) -> Lanes {
        // folds >= 1 gives 2m <= 2^32.
        add_mod_half(a, b, self.m)
    }
}

impl Reduction for Half {
    #[inline]
    fn sum(self, a: Lanes, b: Lanes) -> Lanes {
        add_mod_half(a, b, self.m)
    }
    #[inline]
    fn finish(self, acc: Lanes) -> Lanes {
        acc
    }
    #[inline]
    fn add_mod(self, a: Lanes, b: Lanes) -> Lanes {
        add_mod_half(a, b, self.m)
    }
}

impl Reduction for Full {
    #[inline]
    fn sum(self, a: Lanes, b: Lanes) -> Lanes {
        self.add_mod(a, b)
    }
    #[inline]
    fn finish(self, acc: Lanes) -> Lanes {
        acc
    }
    #[inline]
    fn add_mod(self, a: Lanes, b: Lanes) -> Lanes {
        let m = Lanes::splat(self.m);
        let wraps = a.simd_ge(m - b); // m - b in [1, m]: no wrap
        (a + b) - (wraps & m)
    }
}

/// The strategy for a run, chosen from the modulus and the number of step offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// [`Lazy`] with this many folds.
    Lazy(u32),
    /// [`Half`].
    Half,
    /// [`Full`].
    Full,
}

impl Strategy {
    /// The cheapest strategy that is exact for `2 <= m < 2^32` and `offsets` step offsets.
    pub fn choose(m: u32, offsets: usize) -> Self {
        // A cell accumulates 2·offsets residues: below 2·offsets·m <= 2^folds·m.
        let folds = (2 * offsets.max(1)).next_power_of_two().trailing_zeros();
        if (m as u64) << folds <= 1 << 32 {
            Strategy::Lazy(folds)
        } else if 2 * m as u64 <= 1 << 32 {
            Strategy::Half
        } else {
            Strategy::Full
        }
    }

    /// Calls `f` with the [`Reduction`] value of this strategy, so that the caller's
    /// loop is compiled once per strategy.
    pub fn with<T>(self, m: u32, f: impl WithReduction<Output = T>) -> T {
        match self {
            Strategy::Lazy(folds) => f.call(Lazy { m, folds }),
            Strategy::Half => f.call(Half { m }),
            Strategy::Full => f.call(Full { m }),
        }
    }
}

/// A computation generic over the reduction (a closure cannot be generic in Rust).
pub trait WithReduction {
    /// What the computation returns.
    type Output;
    /// Runs it with reduction `r`.
    fn call<R: Reduction>(self, r: R) -> Self::Output;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SplitMix64;

    /// Residues that stress the edges: 0, 1, m-1, m-2, m/2 and random ones.
    fn edge_lanes(m: u32, rng: &mut SplitMix64) -> Lanes {
        let edges = [0, 1 % m, m - 1, m.saturating_sub(2), m / 2];
        Lanes::from(std::array::from_fn::<u32, LANES, _>(|i| {
            if i < edges.len() { edges[i] } else { rng.below(m as u64) as u32 }
        }))
    }

    /// Sums the inputs with the strategy's partial sums, reduces, then scales by `.1`.
    struct SumOf<'a>(&'a [Lanes], u32);
    impl WithReduction for SumOf<'_> {
        type Output = Lanes;
        fn call<R: Reduction>(self, r: R) -> Lanes {
            let mut acc = Lanes::splat(0);
            for &x in self.0 {
                acc = r.sum(acc, x);
            }
            r.scale(r.finish(acc), self.1)
        }
    }

    #[test]
    fn every_strategy_matches_u64_arithmetic_lane_by_lane() {
        let mut rng = SplitMix64(7);
        for m in [2u32, 3, 989_898_989, 1 << 28, (1 << 30) + 1, 1 << 31, (1 << 31) + 1, u32::MAX - 1, u32::MAX] {
            for offsets in [1usize, 2, 4, 8] {
                let strategy = Strategy::choose(m, offsets);
                for c in [1u32, 2, 3, m - 1, m / 2 + 1] {
                    let c = c % m;
                    for _ in 0..20 {
                        let inputs: Vec<Lanes> = (0..2 * offsets).map(|_| edge_lanes(m, &mut rng)).collect();
                        let got = strategy.with(m, SumOf(&inputs, c)).to_array();
                        for (lane, &value) in got.iter().enumerate() {
                            let sum: u64 = inputs.iter().map(|v| v.to_array()[lane] as u64).sum::<u64>() % m as u64;
                            let expected = (sum * c as u64 % m as u64) as u32;
                            assert_eq!(value, expected, "m={m} offsets={offsets} {strategy:?} c={c} lane={lane}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_choice_follows_the_headroom() {
        assert_eq!(Strategy::choose(989_898_989, 2), Strategy::Lazy(2));
        assert_eq!(Strategy::choose(1 << 30, 2), Strategy::Lazy(2));
        assert_eq!(Strategy::choose((1 << 30) + 1, 2), Strategy::Half);
        assert_eq!(Strategy::choose(1 << 31, 1), Strategy::Lazy(1));
        assert_eq!(Strategy::choose((1 << 31) + 1, 1), Strategy::Full);
        assert_eq!(Strategy::choose(1 << 28, 8), Strategy::Lazy(4));
        assert_eq!(Strategy::choose(u32::MAX, 3), Strategy::Full);
    }
}
