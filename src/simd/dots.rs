//! 16-bit pair dot products and 64-bit ring lanes (the kayles series kernels, and the
//! lag marks of the Grundy kernels), and the byte compares of the Grundy search's
//! matching scan ([`Dots::chunk_matches_low_bytes`]).
//!
//! Three vector types per backend, named by [`Dots`]:
//!
//! * [`PairVec`]: sixteen `i32` lanes, one per Walsh character, each read either as one
//!   value or as a pair of signed 16-bit words; the pairwise dot product
//!   `acc + a.lo·b.lo + a.hi·b.hi` (AVX-512 VNNI `vpdpwssd`, `vpmaddwd` + `vpaddd` on
//!   AVX2, `pmaddwd` on SSE2) adds two convolution terms for sixteen characters.
//! * [`DoubleVec`]: sixteen `f64` lanes for the exact integer arithmetic between the dot
//!   products (every value an integer below `2^53` in size), and for whole recurrences
//!   whose coefficients are small (`catalan-words`' `x` where FMA beats two-instruction
//!   dot products), a register part ([`DoublePart`]) at a time.
//! * [`RingVec`]: eight `u64` lanes, wrapping, with the 32×32→64 product (`vpmuludq`):
//!   the factor rings of `catalan`.
//!
//! Every method of every implementation is `#[inline(always)]`: the kernels run them
//! inside [`multiversion!`](crate::multiversion) entry points, and only inlined code
//! gets the entry's instruction set.

use std::ops::{Add, Mul, Sub};

use super::Backend;

/// Lanes of a [`PairVec`]: one per Walsh character of partisan Kayles.
pub const PAIR_LANES: usize = 16;

/// One [`PairVec`] in memory, 64-byte aligned so that loads and stores never split a
/// cache line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct PairRow(pub [i32; PAIR_LANES]);

impl PairRow {
    /// All lanes zero.
    pub const ZERO: PairRow = PairRow([0; PAIR_LANES]);
}

/// Lanes of a [`RingVec`]: characters processed together by `catalan`.
pub const RING_LANES: usize = 8;

/// One [`RingVec`] in memory (64 bytes, 64-byte aligned).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Lanes(pub [u64; RING_LANES]);

impl Lanes {
    /// All lanes zero.
    pub const ZERO: Lanes = Lanes([0; RING_LANES]);
}

/// One [`DoubleVec`] in memory (128 bytes, 64-byte aligned).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(64))]
pub struct DoubleRow(pub [f64; PAIR_LANES]);

impl DoubleRow {
    /// All lanes zero.
    pub const ZERO: DoubleRow = DoubleRow([0.0; PAIR_LANES]);

    /// The memory of `rows` (an even number of them) as `f64` rows, two pair rows to
    /// one: so that a kernel's `f64` rows can share a buffer of pair rows, allocated and
    /// mapped once.
    ///
    /// # Panics
    /// If `rows` has an odd length.
    pub fn from_pair_rows(rows: &mut [PairRow]) -> &mut [DoubleRow] {
        const {
            assert!(size_of::<DoubleRow>() == 2 * size_of::<PairRow>());
            assert!(align_of::<DoubleRow>() == align_of::<PairRow>());
        }
        assert!(rows.len().is_multiple_of(2), "an even number of pair rows");
        // SAFETY: the `rows.len() / 2` rows of 128 bytes cover exactly the memory of
        // `rows` (checked sizes), which is aligned for `DoubleRow` (same alignment), and
        // every bit pattern is a valid `f64`; the result borrows `rows` mutably, so
        // nothing else reads or writes that memory as pair rows meanwhile.
        unsafe { std::slice::from_raw_parts_mut(rows.as_mut_ptr().cast::<DoubleRow>(), rows.len() / 2) }
    }
}

/// Pairs per chunk of [`Dots::chunk_matches_low_bytes`].
pub const MATCH_CHUNK: usize = 64;

/// A backend's vector types for the series kernels, and the matching scan of the Grundy
/// search (`kernels::grundy::search`).
pub trait Dots: Backend {
    /// Sixteen `i32` lanes of word pairs.
    type Pairs: PairVec<Doubles = Self::Doubles>;
    /// Sixteen `f64` lanes.
    type Doubles: DoubleVec;
    /// Eight `u64` lanes.
    type Ring: RingVec;

    /// Whether some pair `(lo[j], hi[63 - j])` has a value `lo[j] ^ hi[63 - j]` whose
    /// low 8 bits are one of `targets`: for values below 256 (every value of the game,
    /// so the answer is exact), 64 byte lanes a compare where 16-bit lanes take 32.
    /// The default is the plain loop, which the compiler vectorises in 16-bit lanes.
    #[inline(always)]
    fn chunk_matches_low_bytes<const K: usize>(
        lo: &[u16; MATCH_CHUNK],
        hi: &[u16; MATCH_CHUNK],
        targets: &[u8; K],
    ) -> bool {
        let mut any = 0u16;
        for j in 0..MATCH_CHUNK {
            let v = (lo[j] ^ hi[MATCH_CHUNK - 1 - j]) & 0xFF;
            for &t in targets {
                any |= u16::from(v == t as u16);
            }
        }
        any != 0
    }
}

/// Sixteen `i32` lanes, each also a pair of signed 16-bit words (low word first).
/// `+`, `-`, `*` are lane-wise wrapping `i32` arithmetic.
pub trait PairVec: Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> {
    /// The `f64` lanes of the same backend.
    type Doubles: DoubleVec;
    /// One register's share of the lanes: the vector itself where it is one register.
    /// Register-blocked loops run once per part where the vector is several registers,
    /// so that their accumulators and windows fit the register file.
    type Part: PairPart;
    /// Registers per vector (a part covers `PAIR_LANES / PARTS` lanes).
    const PARTS: usize;
    /// Whether [`PairVec::dot_add`] is one instruction (VNNI's `vpdpwssd`); elsewhere it
    /// is a product of pairs and an addition.
    const DOT_FUSED: bool;
    /// Part `part` of a row.
    fn load_part(row: &PairRow, part: usize) -> Self::Part;
    /// Part `part` of the vector.
    fn part(self, part: usize) -> Self::Part;
    /// The vector with part `part` replaced by `value`.
    fn with_part(self, part: usize, value: Self::Part) -> Self;
    /// All lanes zero.
    fn zero() -> Self;
    /// Every lane `v`.
    fn splat(v: i32) -> Self;
    /// Loads a row.
    fn load(row: &PairRow) -> Self;
    /// Stores into a row.
    fn store(self, row: &mut PairRow);
    /// `self + a.lo·b.lo + a.hi·b.hi` in every lane: the words signed, the products
    /// exact, the sums wrapping modulo `2^32`.
    fn dot_add(self, a: Self, b: Self) -> Self;
    /// The two words of every lane exchanged.
    fn swap_words(self) -> Self;
    /// The lanes `(high word of a, low word of b)`: from rows `(v_0, v_1)` and
    /// `(v_2, v_3)`, the row `(v_1, v_2)`.
    fn between(a: Self, b: Self) -> Self;
    /// Word-wise wrapping sum (each of the two words of a lane on its own).
    fn add_words(self, other: Self) -> Self;
    /// Word-wise wrapping difference.
    fn sub_words(self, other: Self) -> Self;
    /// The low word of every lane, the high word cleared: as a dot-product operand it
    /// drops the second term of the pair.
    fn low_word_only(self) -> Self;
    /// The low word of every lane, sign-extended to the lane.
    fn low_word_value(self) -> Self;
    /// The lanes whose low word is the low word of `lo` and whose high word is the low
    /// word of `hi`.
    fn pack(lo: Self, hi: Self) -> Self;
    /// The wrapping sum of the lanes.
    fn sum_lanes(self) -> i32;
    /// The sums of the low words and of the high words of the lanes, each wrapping
    /// modulo `2^16`, as the low and the high word of the result.
    fn sum_words(self) -> i32;
    /// The lanes as `f64` values.
    fn to_doubles(self) -> Self::Doubles;
    /// The lanes of `d`, integers below `2^31` in size, as `i32` lanes.
    fn from_doubles(d: Self::Doubles) -> Self;
    /// The lanes as values.
    #[inline(always)]
    fn to_array(self) -> [i32; PAIR_LANES] {
        let mut row = PairRow::ZERO;
        self.store(&mut row);
        row.0
    }
    /// Lanes from values.
    #[inline(always)]
    fn from_array(values: [i32; PAIR_LANES]) -> Self {
        Self::load(&PairRow(values))
    }
}

/// The lanes of one register of a [`PairVec`], with the operations of the blocked loops
/// (the same meaning as [`PairVec`]'s, on fewer lanes).
pub trait PairPart: Copy {
    /// Whether [`PairPart::swapped_between`] is one word blend, cheaper than
    /// [`PairPart::between`] (AVX2's `vpblendw` against two shifts and a blend); where it
    /// is not, it is `between` and a swap.
    const WORD_BLEND: bool = false;
    /// All lanes zero.
    fn zero() -> Self;
    /// `self + a.lo·b.lo + a.hi·b.hi` in every lane, wrapping.
    fn dot_add(self, a: Self, b: Self) -> Self;
    /// The two words of every lane exchanged.
    fn swap_words(self) -> Self;
    /// The lanes `(high word of a, low word of b)`.
    fn between(a: Self, b: Self) -> Self;
    /// [`PairPart::between`] with its words exchanged: `(low word of b, high word of a)`,
    /// one word blend where the backend has one ([`PairPart::WORD_BLEND`]).
    #[inline(always)]
    fn swapped_between(a: Self, b: Self) -> Self {
        Self::between(a, b).swap_words()
    }
    /// Word-wise wrapping sum.
    fn add_words(self, other: Self) -> Self;

    /// A running sum of pair dot products whose two products per lane may stay apart
    /// until [`PairPart::paired`] adds them: where a widening multiply-accumulate exists
    /// and a pairwise one does not (NEON's `smlal`, against `smull` + `smull2` + `addp` +
    /// `add` per dot product), a long sum then costs two instructions a term. Elsewhere
    /// the part itself.
    type Unpaired: Copy;
    /// `self` as the start of an unpaired sum.
    fn unpaired(self) -> Self::Unpaired;
    /// `sum + a.lo·b.lo + a.hi·b.hi` in every lane, wrapping, the two products perhaps
    /// kept apart.
    fn unpaired_dot_add(sum: Self::Unpaired, a: Self, b: Self) -> Self::Unpaired;
    /// `sum + a0·b0 + a1·b1`: two [`PairPart::unpaired_dot_add`] terms, in that order
    /// unless the backend adds the two products first, for a running sum that would
    /// otherwise wait on two fused multiply-adds in a row (AVX-VNNI, see
    /// `simd::avx2::dots`).
    #[inline(always)]
    fn unpaired_dot_add2(sum: Self::Unpaired, (a0, b0): (Self, Self), (a1, b1): (Self, Self)) -> Self::Unpaired {
        Self::unpaired_dot_add(Self::unpaired_dot_add(sum, a0, b0), a1, b1)
    }
    /// The sum in every lane: equal to the same [`PairPart::dot_add`] calls on the start.
    fn paired(sum: Self::Unpaired) -> Self;
}

/// Sixteen `f64` lanes: sums, products and fused multiply-adds whose exact results are
/// integers below `2^53` are exact. `+`, `-`, `*` are lane-wise.
pub trait DoubleVec: Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> {
    /// One register's share of the lanes, for register-blocked loops (as
    /// [`PairVec::Part`]).
    type Part: DoublePart;
    /// Registers per vector (a part covers `PAIR_LANES / PARTS` lanes).
    const PARTS: usize;
    /// Whether [`DoubleVec::mul_add`] is one instruction (FMA).
    const FMA: bool;
    /// Part `part` of a row.
    fn load_part(row: &DoubleRow, part: usize) -> Self::Part;
    /// The vector with part `part` replaced by `value`.
    fn with_part(self, part: usize, value: Self::Part) -> Self;
    /// The lanes of a row.
    #[inline(always)]
    fn load(row: &DoubleRow) -> Self {
        Self::from_array(row.0)
    }
    /// The lanes into a row.
    #[inline(always)]
    fn store(self, row: &mut DoubleRow) {
        row.0 = self.to_array();
    }
    /// All lanes zero.
    #[inline(always)]
    fn zero() -> Self {
        Self::splat(0.0)
    }
    /// Every lane `v`.
    fn splat(v: f64) -> Self;
    /// `self·a + b`, rounded once.
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// `b - self·a`, rounded once.
    fn neg_mul_add(self, a: Self, b: Self) -> Self;
    /// Each lane rounded to the nearest integer, ties to even.
    fn round(self) -> Self;
    /// The sum of the lanes (exact when the lanes and their sums are integers below 2^53).
    fn sum(self) -> f64;
    /// The lanes as values.
    fn to_array(self) -> [f64; PAIR_LANES];
    /// Lanes from values.
    fn from_array(values: [f64; PAIR_LANES]) -> Self;
}

/// The lanes of one register of a [`DoubleVec`].
pub trait DoublePart: Copy {
    /// All lanes zero.
    fn zero() -> Self;
    /// `self·a + b` in every lane, fused where the backend has FMA, otherwise a product
    /// and a sum: the same value when the operands, the product and the result are
    /// integers below `2^53`, the only use the kernels make of it.
    fn mul_add(self, a: Self, b: Self) -> Self;
}

/// Eight `u64` lanes, wrapping arithmetic.
pub trait RingVec: Copy {
    /// All lanes zero.
    fn zero() -> Self;
    /// Every lane `v`.
    fn splat(v: u64) -> Self;
    /// Loads a row.
    fn load(v: &Lanes) -> Self;
    /// The lanes as a row.
    fn store(self) -> Lanes;
    /// Lane-wise wrapping sum.
    fn add(self, other: Self) -> Self;
    /// Lane-wise wrapping difference.
    fn sub(self, other: Self) -> Self;
    /// Lane-wise unsigned minimum.
    fn min(self, other: Self) -> Self;
    /// The exact product of the low 32 bits of each lane (`vpmuludq`).
    fn mul_low32(self, other: Self) -> Self;
    /// Each lane shifted right by 32 bits.
    fn shr32(self) -> Self;
    /// Lane-wise and.
    fn and(self, other: Self) -> Self;
    /// The product modulo `2^64` of each lane.
    fn mul_wrapping(self, other: Self) -> Self;
    /// Lane-wise or.
    fn or(self, other: Self) -> Self;
    /// Each lane shifted left by the same lane of `counts`, and 0 where the count is 64
    /// or more (`vpsllvq`): `1 << (v - 64w)` is bit `v` of word `w` or nothing.
    fn shl_lanes(self, counts: Self) -> Self;
    /// Eight 16-bit values, zero-extended (`vpmovzxwq`).
    fn widen_u16(v: &[u16; RING_LANES]) -> Self;
    /// ORs bit `v mod 64` of each lane of `v` into the same lane of word `v / 64` of
    /// `words` (every lane below `64 W`): the option marks of the Grundy lag kernels.
    /// The default shifts once per word, `1 << (v - 64 w)`, which is nothing outside word
    /// `w` ([`RingVec::shl_lanes`]).
    #[inline(always)]
    fn mark_bits<const W: usize>(words: &mut [Self; W], v: Self) {
        let ones = Self::splat(1);
        for (w, word) in words.iter_mut().enumerate() {
            *word = word.or(ones.shl_lanes(v.sub(Self::splat(64 * w as u64))));
        }
    }
}

/// [`PairPart::Unpaired`] as the part itself, each term one [`PairPart::dot_add`]: for
/// the backends whose dot product is pairwise already (`vpdpwssd`, `vpmaddwd`,
/// `pmaddwd`), where nothing is gained by keeping the products apart. Inside an
/// `impl PairPart`. Every backend off aarch64 (there the portable one keeps them apart).
#[cfg(not(target_arch = "aarch64"))]
macro_rules! unpaired_as_paired {
    () => {
        type Unpaired = Self;
        #[inline(always)]
        fn unpaired(self) -> Self {
            self
        }
        #[inline(always)]
        fn unpaired_dot_add(sum: Self, a: Self, b: Self) -> Self {
            $crate::simd::dots::PairPart::dot_add(sum, a, b)
        }
        #[inline(always)]
        fn paired(sum: Self) -> Self {
            sum
        }
    };
}
#[cfg(not(target_arch = "aarch64"))]
pub(crate) use unpaired_as_paired;

/// `+`, `-`, `*` of a backend's vector type through its lane methods (for a type with a
/// `const` parameter, `<const P: bool> Type<P>: ...`).
macro_rules! lane_operators {
    (<const $param:ident: bool> $type:ty: $($trait:ident $method:ident $lanes:ident),+) => {
        $(impl<const $param: bool> std::ops::$trait for $type {
            type Output = $type;
            #[inline(always)]
            fn $method(self, other: $type) -> $type {
                self.$lanes(other)
            }
        })+
    };
    ($type:ty: $($trait:ident $method:ident $lanes:ident),+) => {
        $(impl std::ops::$trait for $type {
            type Output = $type;
            #[inline(always)]
            fn $method(self, other: $type) -> $type {
                self.$lanes(other)
            }
        })+
    };
}
pub(crate) use lane_operators;

#[cfg(test)]
mod tests {
    //! Every operation of every available backend, lane by lane, against the portable
    //! one (which the kernels' own tests check against scalar arithmetic); each run inside
    //! its level's entry point, so a level the CPU lacks is skipped, not faked.
    use super::*;
    use crate::kernels::SplitMix64;
    use crate::simd::{Simd, multiversion};

    /// Edge words first (0, ±1, i16::MIN, i16::MAX), then random bits.
    fn random_lanes(rng: &mut SplitMix64) -> [i32; PAIR_LANES] {
        // 0x8000_8000: both words -2^15, the one pair whose dot product wraps.
        const EDGES: [i32; 7] = [0, 1, -1, 0x7FFF, -0x8000, 0x7FFF_8000, 0x8000_8000_u32 as i32];
        std::array::from_fn(|l| if l < EDGES.len() { EDGES[l] } else { rng.next_u64() as i32 })
    }

    /// Integers up to 2^52 in size and some fractions, edges first.
    fn random_doubles(rng: &mut SplitMix64) -> [f64; PAIR_LANES] {
        let edges = [0.0, 1.0, -1.0, 2f64.powi(52), -(2f64.powi(52)), 0.5, -2.5, 3.5, 2.5, -0.5];
        std::array::from_fn(|l| {
            if l < edges.len() {
                edges[l]
            } else if l % 3 == 0 {
                (rng.next_u64() >> 20) as f64 / 1024.0 - 2f64.powi(33)
            } else {
                (rng.next_u64() >> 12) as i64 as f64 - 2f64.powi(51)
            }
        })
    }

    /// Every pair and double operation on one set of random inputs, as arrays.
    #[inline(always)]
    fn pair_ops_generic<B: Dots>(seed: u64) -> Vec<Vec<i64>> {
        let mut rng = SplitMix64(seed);
        let (acc, a, b) = (random_lanes(&mut rng), random_lanes(&mut rng), random_lanes(&mut rng));
        let (va, vb, vacc) = (B::Pairs::from_array(a), B::Pairs::from_array(b), B::Pairs::from_array(acc));
        let pairs = |v: B::Pairs| v.to_array().iter().map(|&x| x as i64).collect::<Vec<i64>>();
        let doubles = |v: B::Doubles| v.to_array().iter().map(|&x| x.to_bits() as i64).collect::<Vec<i64>>();
        let (da, db, dc) = (random_doubles(&mut rng), random_doubles(&mut rng), random_doubles(&mut rng));
        let (fa, fb, fc) = (B::Doubles::from_array(da), B::Doubles::from_array(db), B::Doubles::from_array(dc));
        let third = B::Doubles::splat(1.0 / 3.0);
        // The part operations, reassembled into whole vectors (the backends cut a vector
        // into different numbers of parts, the whole is comparable).
        let by_parts = |f: &dyn Fn(usize) -> <B::Pairs as PairVec>::Part| {
            (0..<B::Pairs as PairVec>::PARTS).fold(B::Pairs::zero(), |v, p| v.with_part(p, f(p)))
        };
        let row_a = PairRow(a);
        let parts = [
            by_parts(&|p| B::Pairs::load_part(&row_a, p)),
            by_parts(&|p| va.part(p)),
            by_parts(&|p| vacc.part(p).dot_add(va.part(p), vb.part(p))),
            by_parts(&|p| va.part(p).swap_words()),
            by_parts(&|p| PairPart::between(va.part(p), vb.part(p))),
            by_parts(&|p| va.part(p).add_words(vb.part(p))),
            by_parts(&|_| <<B::Pairs as PairVec>::Part as PairPart>::zero()),
            by_parts(&|p| PairPart::swapped_between(va.part(p), vb.part(p))),
            by_parts(&|p| {
                let (a, b) = (va.part(p), vb.part(p));
                let mut sum = vacc.part(p).unpaired();
                for (x, y) in [(a, b), (b, a), (a, a), (b, b)] {
                    sum = PairPart::unpaired_dot_add(sum, x, y);
                }
                PairPart::paired(sum)
            }),
            by_parts(&|p| {
                let (a, b) = (va.part(p), vb.part(p));
                let sum = PairPart::unpaired_dot_add2(vacc.part(p).unpaired(), (a, b), (b, a));
                PairPart::paired(PairPart::unpaired_dot_add2(sum, (a, a), (b, b)))
            }),
        ];
        // Each part operation is the whole one on its lanes.
        for (part, whole) in [
            (parts[0], va),
            (parts[1], va),
            (parts[2], vacc.dot_add(va, vb)),
            (parts[3], va.swap_words()),
            (parts[4], B::Pairs::between(va, vb)),
            (parts[5], va.add_words(vb)),
            (parts[6], B::Pairs::zero()),
            (parts[7], B::Pairs::between(va, vb).swap_words()),
            (parts[8], vacc.dot_add(va, vb).dot_add(vb, va).dot_add(va, va).dot_add(vb, vb)),
            (parts[9], vacc.dot_add(va, vb).dot_add(vb, va).dot_add(va, va).dot_add(vb, vb)),
        ] {
            assert_eq!(part.to_array(), whole.to_array(), "{}", B::LEVEL);
        }
        // The f64 parts, likewise; their multiply-add on integers whose products and
        // sums stay below 2^53 (where fused and unfused agree).
        let by_double_parts = |f: &dyn Fn(usize) -> <B::Doubles as DoubleVec>::Part| {
            (0..<B::Doubles as DoubleVec>::PARTS).fold(B::Doubles::zero(), |v, p| v.with_part(p, f(p)))
        };
        let small = |v: [f64; PAIR_LANES], bits: i32| v.map(|x| (x % 2f64.powi(bits)).trunc());
        let (ia, ib, ic) = (small(da, 26), small(db, 26), small(dc, 50));
        let (row_ia, row_ib, row_ic) = (DoubleRow(ia), DoubleRow(ib), DoubleRow(ic));
        let (fia, fib, fic) = (B::Doubles::load(&row_ia), B::Doubles::load(&row_ib), B::Doubles::load(&row_ic));
        let double_parts = [
            by_double_parts(&|p| B::Doubles::load_part(&row_ia, p)),
            by_double_parts(&|p| {
                B::Doubles::load_part(&row_ia, p)
                    .mul_add(B::Doubles::load_part(&row_ib, p), B::Doubles::load_part(&row_ic, p))
            }),
            by_double_parts(&|_| <<B::Doubles as DoubleVec>::Part as DoublePart>::zero()),
        ];
        for (part, whole) in
            [(double_parts[0], fia), (double_parts[1], fia.mul_add(fib, fic)), (double_parts[2], B::Doubles::zero())]
        {
            assert_eq!(part.to_array().map(f64::to_bits), whole.to_array().map(f64::to_bits), "{}", B::LEVEL);
        }
        let mut stored = DoubleRow::ZERO;
        fa.store(&mut stored);
        assert_eq!(stored.0.map(f64::to_bits), da.map(f64::to_bits), "{}", B::LEVEL);
        let mut out = vec![
            pairs(B::Pairs::zero()),
            pairs(B::Pairs::splat(a[7])),
            pairs(vacc.dot_add(va, vb)),
            pairs(va.swap_words()),
            pairs(B::Pairs::between(va, vb)),
            pairs(va + vb),
            pairs(va - vb),
            pairs(va * vb),
            pairs(va.add_words(vb)),
            pairs(va.sub_words(vb)),
            pairs(va.low_word_only()),
            pairs(va.low_word_value()),
            pairs(B::Pairs::pack(va, vb)),
            vec![va.sum_lanes() as i64, va.sum_words() as i64],
            doubles(va.to_doubles()),
            pairs(B::Pairs::from_doubles(va.to_doubles())),
            doubles(fa + fb),
            doubles(fa - fb),
            doubles(fa * third),
            doubles(fa.mul_add(third, fc)),
            doubles(fa.neg_mul_add(third, fc)),
            doubles(fa.round()),
            doubles(fb.round()),
            // Sums of integers (exact in any order: the backends add in different orders).
            vec![va.to_doubles().sum().to_bits() as i64, B::Doubles::zero().sum().to_bits() as i64],
        ];
        out.extend(parts.map(pairs));
        out.extend(double_parts.map(doubles));
        out
    }

    multiversion! {
        fn pair_ops(seed: u64) -> Vec<Vec<i64>> => pair_ops_generic;
    }

    /// Two pair rows are one `f64` row, in order, and writes through the `f64` rows land
    /// in the pair rows' memory.
    #[test]
    fn pair_rows_hold_double_rows() {
        let mut rows = vec![PairRow::ZERO; 6];
        rows[2].0[0] = 1.5f64.to_bits() as i32;
        rows[2].0[1] = (1.5f64.to_bits() >> 32) as i32;
        let doubles = DoubleRow::from_pair_rows(&mut rows);
        assert_eq!(doubles.len(), 3);
        assert_eq!(doubles[1].0[0], 1.5);
        doubles[2].0[15] = -2.0;
        let bits = (-2f64).to_bits();
        assert_eq!((rows[5].0[14] as u32, rows[5].0[15] as u32), (bits as u32, (bits >> 32) as u32));
        assert!(std::panic::catch_unwind(|| DoubleRow::from_pair_rows(&mut [PairRow::ZERO; 3]).len()).is_err());
    }

    /// Every ring-lane operation on random inputs (edges first), as arrays.
    #[inline(always)]
    fn ring_ops_generic<B: Dots>(seed: u64) -> Vec<[u64; RING_LANES]> {
        let mut rng = SplitMix64(seed);
        const EDGES: [u64; 6] = [0, 1, u64::MAX, 1 << 63, u32::MAX as u64, 1 << 32];
        let mut lanes = |shift: usize| {
            Lanes(std::array::from_fn(|l| {
                if (l + shift) % 8 < EDGES.len() && shift < 2 { EDGES[(l + shift) % 8] } else { rng.next_u64() }
            }))
        };
        let (a, b) = (B::Ring::load(&lanes(0)), B::Ring::load(&lanes(1)));
        let c = B::Ring::load(&lanes(2));
        vec![
            B::Ring::zero().store().0,
            B::Ring::splat(0x1234_5678_9ABC_DEF0).store().0,
            a.store().0,
            a.add(b).store().0,
            a.sub(b).store().0,
            a.min(b).store().0,
            a.min(c).store().0,
            a.mul_low32(b).store().0,
            a.shr32().store().0,
            a.and(b).store().0,
            a.mul_wrapping(b).store().0,
            c.mul_wrapping(a).store().0,
            a.or(b).store().0,
            // Counts below 64, at 64 and past it, and wrapped below zero.
            a.shl_lanes(B::Ring::load(&Lanes(std::array::from_fn(|l| [0, 1, 63, 64, 65, 200, u64::MAX, 1 << 63][l]))))
                .store()
                .0,
            a.shl_lanes(b.and(B::Ring::splat(127))).store().0,
            B::Ring::widen_u16(&std::array::from_fn(|l| (c.store().0[l] >> (16 * (l % 4))) as u16)).store().0,
        ]
    }

    multiversion! {
        fn ring_ops(seed: u64) -> Vec<[u64; RING_LANES]> => ring_ops_generic;
    }

    #[test]
    fn every_backend_matches_the_portable_pairs_and_doubles_lane_by_lane() {
        for seed in 0..300 {
            let expected = pair_ops(Simd::portable(), seed);
            for simd in Simd::tested() {
                let got = pair_ops(simd, seed);
                for (op, (g, e)) in got.iter().zip(&expected).enumerate() {
                    assert_eq!(g, e, "{simd}: operation {op}, seed {seed}");
                }
            }
        }
    }

    #[test]
    fn every_backend_matches_the_portable_ring_lanes_lane_by_lane() {
        for seed in 0..300 {
            let expected = ring_ops(Simd::portable(), seed);
            for simd in Simd::tested() {
                assert_eq!(ring_ops(simd, seed), expected, "{simd}, seed {seed}");
            }
        }
    }

    #[test]
    fn the_portable_ring_lanes_match_scalar_u64_arithmetic() {
        for seed in 0..100 {
            let out = ring_ops(Simd::portable(), seed);
            // The second draw of ring_ops: replay its generator.
            let mut r = SplitMix64(seed);
            const EDGES: [u64; 6] = [0, 1, u64::MAX, 1 << 63, u32::MAX as u64, 1 << 32];
            let mut lanes = |shift: usize| -> [u64; RING_LANES] {
                std::array::from_fn(|l| {
                    if (l + shift) % 8 < EDGES.len() && shift < 2 { EDGES[(l + shift) % 8] } else { r.next_u64() }
                })
            };
            let (a, b) = (lanes(0), lanes(1));
            assert_eq!(out[2], a);
            for l in 0..RING_LANES {
                assert_eq!(out[3][l], a[l].wrapping_add(b[l]));
                assert_eq!(out[4][l], a[l].wrapping_sub(b[l]));
                assert_eq!(out[5][l], a[l].min(b[l]));
                assert_eq!(out[7][l], (a[l] as u32 as u64) * (b[l] as u32 as u64));
                assert_eq!(out[8][l], a[l] >> 32);
                assert_eq!(out[9][l], a[l] & b[l]);
                assert_eq!(out[10][l], a[l].wrapping_mul(b[l]));
            }
        }
    }
}
