//! Modular sums in sixteen 32-bit lanes for any modulus `2 <= m < 2^32`, without
//! products, on every backend of [`Mont`] (the lane primitives the cards kernels use).
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
//! | [`Full`] | any `m < 2^32` | add, unsigned compare (a minimum and an equality), masked subtract |
//!
//! The "min trick": for `t < 2M <= 2^32`, `min(t, t -% M)` is `t - M` when `t >= M` and
//! `t` otherwise, because a wrapped `t -% M = t - M + 2^32` exceeds `t`. It takes two
//! instructions and no mask register (`vpsubd`, `vpminud` with AVX2 and AVX-512); SSE2,
//! which has no unsigned minimum, emulates it (`wide`).

use crate::simd::mont::{Block, Mont};

/// The cells of one vector: sixteen lanes on every backend (one 512-bit register with
/// AVX-512, two 256-bit ones with AVX2, `wide`'s `u32x16` elsewhere).
pub const LANES: usize = crate::simd::mont::LANES;

/// Sixteen DP cells as stored: one aligned 64-byte row, so that every backend's load of a
/// row is one aligned access (two halves of one line with AVX2), never a line split.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Row(pub Block);

/// How a neighbour sum is accumulated and reduced. `sum` may leave its result
/// unreduced (the lazy strategy); `finish` brings an accumulated sum to `[0, m)`;
/// `add_mod` is always exact, for the multiplicities above one. Every method is
/// `#[inline(always)]`, so that it compiles with the features of the
/// [`multiversion!`](crate::multiversion) entry point it runs in.
pub trait Reduction: Copy + Send + Sync {
    /// `a + b`, in whatever partial form the strategy accumulates.
    fn sum<B: Mont>(self, a: B::V, b: B::V) -> B::V;
    /// An accumulated sum of at most `2S` residues, reduced to `[0, m)`.
    fn finish<B: Mont>(self, acc: B::V) -> B::V;
    /// `(a + b) mod m` for residues `a, b < m`.
    fn add_mod<B: Mont>(self, a: B::V, b: B::V) -> B::V;

    /// `(c·x) mod m` for residues `x` and a multiplier `c < m`, by doubling and adding
    /// (at most 64 exact additions; only step multiplicities above one need it).
    #[inline(always)]
    fn scale<B: Mont>(self, x: B::V, c: u32) -> B::V {
        let mut acc = B::splat(0);
        for bit in (0..32 - c.leading_zeros()).rev() {
            acc = self.add_mod::<B>(acc, acc);
            if c >> bit & 1 == 1 {
                acc = self.add_mod::<B>(acc, x);
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

#[inline(always)]
fn add_mod_half<B: Mont>(a: B::V, b: B::V, m: u32) -> B::V {
    let t = B::add(a, b); // < 2m <= 2^32: no wrap
    B::min(t, B::sub(t, B::splat(m)))
}

impl Reduction for Lazy {
    #[inline(always)]
    fn sum<B: Mont>(self, a: B::V, b: B::V) -> B::V {
        B::add(a, b)
    }
    #[inline(always)]
    fn finish<B: Mont>(self, mut acc: B::V) -> B::V {
        // acc < 2^folds·m; after the step with 2^i·m it is below 2^i·m.
        for i in (0..self.folds).rev() {
            acc = B::min(acc, B::sub(acc, B::splat(self.m << i)));
        }
        acc
    }
    #[inline(always)]
    fn add_mod<B: Mont>(self, a: B::V, b: B::V) -> B::V {
        // folds >= 1 gives 2m <= 2^32.
        add_mod_half::<B>(a, b, self.m)
    }
}

impl Reduction for Half {
    #[inline(always)]
    fn sum<B: Mont>(self, a: B::V, b: B::V) -> B::V {
        add_mod_half::<B>(a, b, self.m)
    }
    #[inline(always)]
    fn finish<B: Mont>(self, acc: B::V) -> B::V {
        acc
    }
    #[inline(always)]
    fn add_mod<B: Mont>(self, a: B::V, b: B::V) -> B::V {
        add_mod_half::<B>(a, b, self.m)
    }
}

impl Reduction for Full {
    #[inline(always)]
    fn sum<B: Mont>(self, a: B::V, b: B::V) -> B::V {
        self.add_mod::<B>(a, b)
    }
    #[inline(always)]
    fn finish<B: Mont>(self, acc: B::V) -> B::V {
        acc
    }
    #[inline(always)]
    fn add_mod<B: Mont>(self, a: B::V, b: B::V) -> B::V {
        let m = B::splat(self.m);
        // m - b in [1, m]: no wrap. a >= m - b (unsigned) exactly when the unsigned
        // minimum of the two is m - b.
        let room = B::sub(m, b);
        let wraps = B::eq(B::min(a, room), room);
        B::sub(B::add(a, b), B::and(wraps, m))
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
    #[inline(always)]
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
    use crate::simd::Simd;

    /// Residues that stress the edges: 0, 1, m-1, m-2, m/2 and random ones.
    fn edge_lanes(m: u32, rng: &mut SplitMix64) -> Block {
        let edges = [0, 1 % m, m - 1, m.saturating_sub(2), m / 2];
        std::array::from_fn(|i| if i < edges.len() { edges[i] } else { rng.below(m as u64) as u32 })
    }

    /// Sums the inputs with the strategy's partial sums, reduces, then scales by `.1`.
    struct SumOf<'a, B>(&'a [Block], u32, std::marker::PhantomData<B>);
    impl<B: Mont> WithReduction for SumOf<'_, B> {
        type Output = Block;
        #[inline(always)]
        fn call<R: Reduction>(self, r: R) -> Block {
            let mut acc = B::splat(0);
            for x in self.0 {
                acc = r.sum::<B>(acc, B::load(x));
            }
            B::to_array(r.scale::<B>(r.finish::<B>(acc), self.1))
        }
    }

    #[inline(always)]
    fn sum_of<B: Mont>(strategy: Strategy, m: u32, inputs: &[Block], c: u32) -> Block {
        strategy.with(m, SumOf::<B>(inputs, c, std::marker::PhantomData))
    }

    crate::multiversion! {
        fn sum_of_on(strategy: Strategy, m: u32, inputs: &[Block], c: u32) -> Block => sum_of;
    }

    #[test]
    fn every_strategy_matches_u64_arithmetic_lane_by_lane_on_every_backend() {
        let mut rng = SplitMix64(7);
        for m in [2u32, 3, 989_898_989, 1 << 28, (1 << 30) + 1, 1 << 31, (1 << 31) + 1, u32::MAX - 1, u32::MAX] {
            for offsets in [1usize, 2, 4, 8] {
                let strategy = Strategy::choose(m, offsets);
                for c in [1u32, 2, 3, m - 1, m / 2 + 1] {
                    let c = c % m;
                    for _ in 0..20 {
                        let inputs: Vec<Block> = (0..2 * offsets).map(|_| edge_lanes(m, &mut rng)).collect();
                        for simd in Simd::tested() {
                            let got = sum_of_on(simd, strategy, m, &inputs, c);
                            for (lane, &value) in got.iter().enumerate() {
                                let sum: u64 = inputs.iter().map(|v| v[lane] as u64).sum::<u64>() % m as u64;
                                let expected = (sum * c as u64 % m as u64) as u32;
                                assert_eq!(
                                    value, expected,
                                    "{simd:?} m={m} offsets={offsets} {strategy:?} c={c} lane={lane}"
                                );
                            }
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
