//! The dots family on the portable backend: `wide`'s 16-lane vectors for the word pairs
//! (`i16x32::dot` is `pmaddwd` on SSE2, `vmull_s16` + `vpaddq_s32` on NEON), arrays
//! for the doubles (fused multiply-adds as `f64::mul_add`, exact by definition) and the
//! ring lanes (the compiler vectorises their loops at the baseline).

use wide::bytemuck::{cast, cast_ref};
use wide::{i16x8, i16x32, i32x4, i32x16, u32x4, u32x16};

use crate::simd::Portable;
use crate::simd::dots::{
    Dots, DoublePart, DoubleRow, DoubleVec, Lanes, PAIR_LANES, PairPart, PairRow, PairVec, RING_LANES, RingVec,
    lane_operators,
};

impl Dots for Portable {
    type Pairs = Pairs;
    type Doubles = Doubles;
    type Ring = Ring;
}

/// Sixteen `i32` lanes (`wide::i32x16`).
#[derive(Clone, Copy, Debug)]
pub struct Pairs(i32x16);

impl Pairs {
    #[inline(always)]
    fn words(self) -> i16x32 {
        cast(self.0)
    }
    #[inline(always)]
    fn from_words(w: i16x32) -> Self {
        Self(cast(w))
    }
    #[inline(always)]
    fn bits(self) -> u32x16 {
        cast(self.0)
    }
    #[inline(always)]
    fn from_bits(b: u32x16) -> Self {
        Self(cast(b))
    }
    #[inline(always)]
    fn add_lanes(self, other: Self) -> Self {
        Self(self.0 + other.0)
    }
    #[inline(always)]
    fn sub_lanes(self, other: Self) -> Self {
        Self(self.0 - other.0)
    }
    #[inline(always)]
    fn mul_lanes(self, other: Self) -> Self {
        Self(self.0 * other.0)
    }
}

lane_operators!(Pairs: Add add add_lanes, Sub sub sub_lanes, Mul mul mul_lanes);

impl PairVec for Pairs {
    type Doubles = Doubles;
    type Part = Quarter;
    const PARTS: usize = 4;
    const DOT_FUSED: bool = false;
    #[inline(always)]
    fn load_part(row: &PairRow, part: usize) -> Quarter {
        let lanes: &[[i32; 4]; 4] = cast_ref(&row.0);
        Quarter(i32x4::from(lanes[part]))
    }
    #[inline(always)]
    fn part(self, part: usize) -> Quarter {
        Quarter(cast::<i32x16, [i32x4; 4]>(self.0)[part])
    }
    #[inline(always)]
    fn with_part(self, part: usize, value: Quarter) -> Self {
        let mut parts = cast::<i32x16, [i32x4; 4]>(self.0);
        parts[part] = value.0;
        Self(cast(parts))
    }
    #[inline(always)]
    fn zero() -> Self {
        Self(i32x16::splat(0))
    }
    #[inline(always)]
    fn splat(v: i32) -> Self {
        Self(i32x16::splat(v))
    }
    #[inline(always)]
    fn load(row: &PairRow) -> Self {
        Self(i32x16::from(row.0))
    }
    #[inline(always)]
    fn store(self, row: &mut PairRow) {
        row.0 = self.0.to_array();
    }
    #[inline(always)]
    fn dot_add(self, a: Self, b: Self) -> Self {
        Self(self.0 + a.words().dot(b.words()))
    }
    #[inline(always)]
    fn swap_words(self) -> Self {
        let b = self.bits();
        Self::from_bits((b << 16u32) | (b >> 16u32))
    }
    #[inline(always)]
    fn between(a: Self, b: Self) -> Self {
        Self::from_bits((a.bits() >> 16u32) | (b.bits() << 16u32))
    }
    #[inline(always)]
    fn add_words(self, other: Self) -> Self {
        Self::from_words(self.words() + other.words())
    }
    #[inline(always)]
    fn sub_words(self, other: Self) -> Self {
        Self::from_words(self.words() - other.words())
    }
    #[inline(always)]
    fn low_word_only(self) -> Self {
        Self(self.0 & i32x16::splat(0xFFFF))
    }
    #[inline(always)]
    fn low_word_value(self) -> Self {
        Self(cast::<u32x16, i32x16>(self.bits() << 16u32) >> 16u32)
    }
    #[inline(always)]
    fn pack(lo: Self, hi: Self) -> Self {
        Self::from_bits((lo.bits() & u32x16::splat(0xFFFF)) | (hi.bits() << 16u32))
    }
    #[inline(always)]
    fn sum_lanes(self) -> i32 {
        self.0.to_array().iter().fold(0i32, |s, &v| s.wrapping_add(v))
    }
    #[inline(always)]
    fn sum_words(self) -> i32 {
        let (lo, hi) =
            self.0.to_array().iter().fold((0u16, 0u16), |(lo, hi), &v| {
                (lo.wrapping_add(v as u16), hi.wrapping_add((v as u32 >> 16) as u16))
            });
        (lo as u32 | (hi as u32) << 16) as i32
    }
    #[inline(always)]
    fn to_doubles(self) -> Doubles {
        let lanes = self.0.to_array();
        Doubles(each(|l| f64::from(lanes[l])))
    }
    #[inline(always)]
    fn from_doubles(d: Doubles) -> Self {
        Self(i32x16::from(each(|l| d.0[l] as i32)))
    }
}

/// Four `i32` lanes: one SSE2 (or NEON) register of [`Pairs`].
#[derive(Clone, Copy, Debug)]
pub struct Quarter(i32x4);

impl PairPart for Quarter {
    #[inline(always)]
    fn zero() -> Self {
        Self(i32x4::splat(0))
    }
    #[inline(always)]
    fn dot_add(self, a: Self, b: Self) -> Self {
        Self(self.0 + cast::<i32x4, i16x8>(a.0).dot(cast(b.0)))
    }
    #[inline(always)]
    fn swap_words(self) -> Self {
        let b: u32x4 = cast(self.0);
        Self(cast((b << 16u32) | (b >> 16u32)))
    }
    #[inline(always)]
    fn between(a: Self, b: Self) -> Self {
        let (a, b): (u32x4, u32x4) = (cast(a.0), cast(b.0));
        Self(cast((a >> 16u32) | (b << 16u32)))
    }
    #[inline(always)]
    fn add_words(self, other: Self) -> Self {
        Self(cast(cast::<i32x4, i16x8>(self.0) + cast::<i32x4, i16x8>(other.0)))
    }

    // x86-64's baseline has the pairwise `pmaddwd` and no widening multiply-add: the
    // quarter itself.
    #[cfg(not(target_arch = "aarch64"))]
    crate::simd::dots::unpaired_as_paired!();

    // aarch64: the products apart, in widening multiply-accumulates.
    #[cfg(target_arch = "aarch64")]
    type Unpaired = WidenedSum;
    #[cfg(target_arch = "aarch64")]
    #[inline(always)]
    fn unpaired(self) -> WidenedSum {
        WidenedSum { start: self.0, low: i32x4::splat(0), high: i32x4::splat(0) }
    }
    #[cfg(target_arch = "aarch64")]
    #[inline(always)]
    fn unpaired_dot_add(sum: WidenedSum, a: Self, b: Self) -> WidenedSum {
        // Word w's product in lane w of the eight: words 0..4 (lanes 0 and 1 of the
        // quarter) in `low`, words 4..8 in `high`. `vmull_s16` of each half, which LLVM
        // merges with the sums into `smlal` and `smlal2`.
        let products: [i32x4; 2] = cast(cast::<i32x4, i16x8>(a.0).widening_mul(cast(b.0)));
        WidenedSum { start: sum.start, low: sum.low + products[0], high: sum.high + products[1] }
    }
    #[cfg(target_arch = "aarch64")]
    #[inline(always)]
    fn paired(sum: WidenedSum) -> Self {
        let (low, high) = (sum.low.to_array(), sum.high.to_array());
        let pairs = [
            low[0].wrapping_add(low[1]),
            low[2].wrapping_add(low[3]),
            high[0].wrapping_add(high[1]),
            high[2].wrapping_add(high[3]),
        ];
        Self(sum.start + i32x4::from(pairs))
    }
}

/// [`PairPart::Unpaired`] of a [`Quarter`] on aarch64: the sum it started from, and the
/// products of the low and the high four words, each summed in its own `i32` lane
/// (wrapping: the pairs added at the end are the pairwise sums modulo `2^32`).
#[cfg(target_arch = "aarch64")]
#[derive(Clone, Copy, Debug)]
pub struct WidenedSum {
    start: i32x4,
    low: i32x4,
    high: i32x4,
}

/// `[f(0), …, f(N - 1)]` by a loop the compiler unrolls and vectorises in place, for
/// the `f64` lanes: their `std::array::from_fn` and `map` stayed calls, each a store and
/// a reload of sixteen lanes. f(1000), one thread, executed instructions: `neon` 6.21 M
/// → 5.92 M (qemu-user), `portable` on x86-64 11.67 M → 11.30 M (callgrind).
#[inline(always)]
fn each<T: Copy + Default, const N: usize>(f: impl Fn(usize) -> T) -> [T; N] {
    let mut out = [T::default(); N];
    for (l, o) in out.iter_mut().enumerate() {
        *o = f(l);
    }
    out
}

/// Whether `f64::mul_add` is one instruction at the baseline: on aarch64 (`fmadd`, and
/// `fmla` once vectorised), not on x86-64 (a library call). Where it is, the kayles
/// kernel runs `x` in these lanes: on NEON that took f(1000)'s kernel from 9.1 M to 7.4 M
/// executed instructions (counted under qemu-user; `docs/design/kayles.md`).
const FUSED: bool = cfg!(target_arch = "aarch64");

/// Whether `f64::round_ties_even` is one instruction at the baseline (`frintn` on
/// aarch64; a library call on x86-64 before SSE4.1).
const ROUNDS: bool = cfg!(target_arch = "aarch64");

/// Sixteen `f64` lanes, as an array.
#[derive(Clone, Copy, Debug)]
pub struct Doubles([f64; PAIR_LANES]);

impl Doubles {
    #[inline(always)]
    fn map2(self, other: Self, f: impl Fn(f64, f64) -> f64) -> Self {
        Self(each(|l| f(self.0[l], other.0[l])))
    }
    #[inline(always)]
    fn add_lanes(self, other: Self) -> Self {
        self.map2(other, |a, b| a + b)
    }
    #[inline(always)]
    fn sub_lanes(self, other: Self) -> Self {
        self.map2(other, |a, b| a - b)
    }
    #[inline(always)]
    fn mul_lanes(self, other: Self) -> Self {
        self.map2(other, |a, b| a * b)
    }
}

lane_operators!(Doubles: Add add add_lanes, Sub sub sub_lanes, Mul mul mul_lanes);

/// `v` rounded to the nearest integer, ties to even, with no library call (the baseline
/// has no rounding instruction): adding and removing `2^52` rounds in the default mode
/// for `|v| < 2^52`, and every larger `f64` is already an integer.
#[inline(always)]
fn round_ties_even(v: f64) -> f64 {
    if ROUNDS {
        return v.round_ties_even();
    }
    const BIG: f64 = 4_503_599_627_370_496.0;
    let big = BIG.copysign(v);
    if v.abs() < BIG { ((v + big) - big).copysign(v) } else { v }
}

impl DoubleVec for Doubles {
    type Part = DoubleQuarter;
    const PARTS: usize = 4;
    const FMA: bool = FUSED;
    #[inline(always)]
    fn load_part(row: &DoubleRow, part: usize) -> DoubleQuarter {
        let base = 4 * (part & 3);
        DoubleQuarter(each(|l| row.0[base + l]))
    }
    #[inline(always)]
    fn with_part(mut self, part: usize, value: DoubleQuarter) -> Self {
        let base = 4 * (part & 3);
        self.0[base..base + 4].copy_from_slice(&value.0);
        self
    }
    #[inline(always)]
    fn splat(v: f64) -> Self {
        Self([v; PAIR_LANES])
    }
    #[inline(always)]
    fn mul_add(self, a: Self, b: Self) -> Self {
        Self(each(|l| self.0[l].mul_add(a.0[l], b.0[l])))
    }
    #[inline(always)]
    fn neg_mul_add(self, a: Self, b: Self) -> Self {
        Self(each(|l| (-self.0[l]).mul_add(a.0[l], b.0[l])))
    }
    #[inline(always)]
    fn round(self) -> Self {
        Self(each(|l| round_ties_even(self.0[l])))
    }
    #[inline(always)]
    fn sum(self) -> f64 {
        self.0.iter().sum()
    }
    #[inline(always)]
    fn to_array(self) -> [f64; PAIR_LANES] {
        self.0
    }
    #[inline(always)]
    fn from_array(values: [f64; PAIR_LANES]) -> Self {
        Self(values)
    }
}

/// Four `f64` lanes: a quarter of [`Doubles`].
#[derive(Clone, Copy, Debug)]
pub struct DoubleQuarter([f64; 4]);

impl DoublePart for DoubleQuarter {
    #[inline(always)]
    fn zero() -> Self {
        Self([0.0; 4])
    }
    #[inline(always)]
    fn mul_add(self, a: Self, b: Self) -> Self {
        if FUSED {
            Self(each(|l| self.0[l].mul_add(a.0[l], b.0[l])))
        } else {
            // A product and a sum, not `f64::mul_add` (a library call at the baseline):
            // the same value on the exact integers it is used for.
            Self(each(|l| self.0[l] * a.0[l] + b.0[l]))
        }
    }
}

/// Eight `u64` lanes, as an array.
#[derive(Clone, Copy, Debug)]
pub struct Ring([u64; RING_LANES]);

impl RingVec for Ring {
    #[inline(always)]
    fn zero() -> Self {
        Self([0; RING_LANES])
    }
    #[inline(always)]
    fn splat(v: u64) -> Self {
        Self([v; RING_LANES])
    }
    #[inline(always)]
    fn load(v: &Lanes) -> Self {
        Self(v.0)
    }
    #[inline(always)]
    fn store(self) -> Lanes {
        Lanes(self.0)
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        Self(std::array::from_fn(|l| self.0[l].wrapping_add(other.0[l])))
    }
    #[inline(always)]
    fn sub(self, other: Self) -> Self {
        Self(std::array::from_fn(|l| self.0[l].wrapping_sub(other.0[l])))
    }
    #[inline(always)]
    fn min(self, other: Self) -> Self {
        Self(std::array::from_fn(|l| self.0[l].min(other.0[l])))
    }
    #[inline(always)]
    fn mul_low32(self, other: Self) -> Self {
        Self(std::array::from_fn(|l| (self.0[l] as u32 as u64) * (other.0[l] as u32 as u64)))
    }
    #[inline(always)]
    fn shr32(self) -> Self {
        Self(self.0.map(|v| v >> 32))
    }
    #[inline(always)]
    fn and(self, other: Self) -> Self {
        Self(std::array::from_fn(|l| self.0[l] & other.0[l]))
    }
    #[inline(always)]
    fn mul_wrapping(self, other: Self) -> Self {
        Self(std::array::from_fn(|l| self.0[l].wrapping_mul(other.0[l])))
    }
    #[inline(always)]
    fn or(self, other: Self) -> Self {
        Self(std::array::from_fn(|l| self.0[l] | other.0[l]))
    }
    #[inline(always)]
    fn shl_lanes(self, counts: Self) -> Self {
        Self(std::array::from_fn(|l| self.0[l].checked_shl(counts.0[l].min(64) as u32).unwrap_or(0)))
    }
    #[inline(always)]
    fn widen_u16(v: &[u16; RING_LANES]) -> Self {
        Self(v.map(u64::from))
    }
}
