//! Sixteen `i32` lanes, each read either as one value or as a pair of signed 16-bit
//! words, with the pairwise dot product of AVX-512 VNNI (`vpdpwssd`): one instruction
//! multiplies 32 word pairs and adds them two by two into 16 lanes.
//!
//! [`super::catalan_words`] keeps one Walsh character per lane and, in each lane, two
//! consecutive coefficients `(v_i, v_{i+1})` as its two words; a dot product of such
//! rows then adds two convolution terms per character at once.
//!
//! Without AVX-512 VNNI (or AVX-512F) in the build the same operations run on arrays,
//! lane by lane: slower, identical results.

/// Lanes per vector: one per Walsh character of partisan Kayles.
pub const PAIR_LANES: usize = 16;

/// One vector in memory, 64-byte aligned so that loads and stores never split a cache
/// line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct PairRow(pub [i32; PAIR_LANES]);

impl PairRow {
    /// All lanes zero.
    pub const ZERO: PairRow = PairRow([0; PAIR_LANES]);
}

/// A [`PairRow`] in a register.
#[derive(Clone, Copy)]
pub struct Pairs(
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx512f",
        target_feature = "avx512bw",
        target_feature = "avx512vnni"
    ))]
    core::arch::x86_64::__m512i,
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "avx512f",
        target_feature = "avx512bw",
        target_feature = "avx512vnni"
    )))]
    [i32; PAIR_LANES],
);

// SAFETY (every `unsafe` in this impl): it exists only when the build enables AVX-512F,
// AVX-512BW and AVX-512 VNNI, so each instruction is available on the CPU the binary targets; the
// intrinsics have no precondition except the aligned load and store, whose pointers
// come from `PairRow` references (64 bytes, 64-byte aligned).
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx512f",
    target_feature = "avx512bw",
    target_feature = "avx512vnni"
))]
impl Pairs {
    /// All lanes zero.
    #[inline(always)]
    pub fn zero() -> Self {
        Self(unsafe { core::arch::x86_64::_mm512_setzero_si512() })
    }
    /// Every lane `v`.
    #[inline(always)]
    pub fn splat(v: i32) -> Self {
        Self(unsafe { core::arch::x86_64::_mm512_set1_epi32(v) })
    }
    /// Loads a row.
    #[inline(always)]
    pub fn load(row: &PairRow) -> Self {
        Self(unsafe { core::arch::x86_64::_mm512_load_si512(row.0.as_ptr().cast()) })
    }
    /// Stores into a row.
    #[inline(always)]
    pub fn store(self, row: &mut PairRow) {
        unsafe { core::arch::x86_64::_mm512_store_si512(row.0.as_mut_ptr().cast(), self.0) }
    }
    /// `self + a.lo·b.lo + a.hi·b.hi` in every lane: the words signed, the products exact,
    /// the sums wrapping modulo `2^32` (`vpdpwssd`).
    #[inline(always)]
    pub fn dot_add(self, a: Self, b: Self) -> Self {
        Self(unsafe { core::arch::x86_64::_mm512_dpwssd_epi32(self.0, a.0, b.0) })
    }
    /// The two words of every lane exchanged.
    ///
    /// A byte shuffle (`vpshufb`), not the rotation `vprold`: on Zen 4 the rotations and
    /// double shifts take the issue slots of `vpdpwssd` (measured: 12 dot products alone
    /// 12 cycles, with 2 rotations 14), the byte shuffles do not. In the Karatsuba loop of
    /// [`super::catalan_words`] (two swaps per 12 dot products) about 16.3 → 14.3 cycles
    /// per pair of steps, the summed planes 17.7 → 15.5; the warm kernel at 1000 pins
    /// 87.9 → 82.5 µs (best of 3000 calls).
    #[inline(always)]
    pub fn swap_words(self) -> Self {
        Self(swap_words_512(self.0))
    }
    /// The lanes `(high word of a, low word of b)`: from rows `(v_0, v_1)` and
    /// `(v_2, v_3)`, the row `(v_1, v_2)`.
    ///
    /// Still the double shift `vpshrdd`, although it takes a slot of `vpdpwssd` (see
    /// [`Pairs::swap_words`]): the alternatives measured slower in the Karatsuba loop
    /// (two shifts and an `or`: three instructions; `vpermt2w`: slower too).
    #[inline(always)]
    pub fn between(a: Self, b: Self) -> Self {
        #[cfg(target_feature = "avx512vbmi2")]
        return Self(unsafe { core::arch::x86_64::_mm512_shrdi_epi32::<16>(a.0, b.0) });
        #[cfg(not(target_feature = "avx512vbmi2"))]
        {
            use core::arch::x86_64::{_mm512_or_si512, _mm512_slli_epi32, _mm512_srli_epi32};
            Self(unsafe { _mm512_or_si512(_mm512_srli_epi32::<16>(a.0), _mm512_slli_epi32::<16>(b.0)) })
        }
    }
    /// Lane-wise wrapping sum.
    #[inline(always)]
    fn add_lanes(self, other: Self) -> Self {
        Self(unsafe { core::arch::x86_64::_mm512_add_epi32(self.0, other.0) })
    }
    /// Lane-wise wrapping difference.
    #[inline(always)]
    fn sub_lanes(self, other: Self) -> Self {
        Self(unsafe { core::arch::x86_64::_mm512_sub_epi32(self.0, other.0) })
    }
    /// Word-wise wrapping sum (each of the two words of a lane on its own).
    #[inline(always)]
    pub fn add_words(self, other: Self) -> Self {
        Self(unsafe { core::arch::x86_64::_mm512_add_epi16(self.0, other.0) })
    }
    /// Word-wise wrapping difference.
    #[inline(always)]
    pub fn sub_words(self, other: Self) -> Self {
        Self(unsafe { core::arch::x86_64::_mm512_sub_epi16(self.0, other.0) })
    }
    /// Lane-wise wrapping product (`vpmulld`).
    #[inline(always)]
    fn mul_lanes(self, other: Self) -> Self {
        Self(unsafe { core::arch::x86_64::_mm512_mullo_epi32(self.0, other.0) })
    }
    /// The low word of every lane, the high word cleared: as a dot-product operand it
    /// drops the second term of the pair.
    #[inline(always)]
    pub fn low_word_only(self) -> Self {
        Self(unsafe { core::arch::x86_64::_mm512_and_si512(self.0, core::arch::x86_64::_mm512_set1_epi32(0xFFFF)) })
    }
    /// The low word of every lane, sign-extended to the lane.
    #[inline(always)]
    pub fn low_word_value(self) -> Self {
        use core::arch::x86_64::{_mm512_slli_epi32, _mm512_srai_epi32};
        Self(unsafe { _mm512_srai_epi32::<16>(_mm512_slli_epi32::<16>(self.0)) })
    }
    /// The lanes whose low word is the low word of `lo` and whose high word is the low
    /// word of `hi`.
    #[inline(always)]
    pub fn pack(lo: Self, hi: Self) -> Self {
        use core::arch::x86_64::{_mm512_slli_epi32, _mm512_ternarylogic_epi32};
        // (hi << 16) | (lo & 0xFFFF): bit select with the mask 0xFFFF (imm 0xCA: a ? b : c
        // with a = mask, b = lo, c = hi << 16).
        let mask = Self::splat(0xFFFF).0;
        Self(unsafe { _mm512_ternarylogic_epi32::<0xCA>(mask, lo.0, _mm512_slli_epi32::<16>(hi.0)) })
    }
    /// The wrapping sum of the lanes.
    #[inline(always)]
    pub fn sum_lanes(self) -> i32 {
        unsafe { core::arch::x86_64::_mm512_reduce_add_epi32(self.0) }
    }
    /// The sums of the low words and of the high words of the lanes, each wrapping
    /// modulo `2^16`, as the low and the high word of the result: two sums for the price
    /// of one reduction.
    #[inline(always)]
    pub fn sum_words(self) -> i32 {
        use core::arch::x86_64::{
            _mm_add_epi16, _mm_cvtsi128_si32, _mm_shuffle_epi32, _mm256_add_epi16, _mm256_castsi256_si128,
            _mm256_extracti128_si256, _mm512_castsi512_si256, _mm512_extracti64x4_epi64,
        };
        unsafe {
            let half = _mm256_add_epi16(_mm512_castsi512_si256(self.0), _mm512_extracti64x4_epi64::<1>(self.0));
            let quarter = _mm_add_epi16(_mm256_castsi256_si128(half), _mm256_extracti128_si256::<1>(half));
            let eighth = _mm_add_epi16(quarter, _mm_shuffle_epi32::<0b01_00_11_10>(quarter));
            _mm_cvtsi128_si32(_mm_add_epi16(eighth, _mm_shuffle_epi32::<0b00_00_00_01>(eighth)))
        }
    }
    /// The lanes as values.
    #[inline(always)]
    pub fn to_array(self) -> [i32; PAIR_LANES] {
        let mut row = PairRow::ZERO;
        self.store(&mut row);
        row.0
    }
    /// Lanes from values.
    #[inline(always)]
    pub fn from_array(values: [i32; PAIR_LANES]) -> Self {
        Self::load(&PairRow(values))
    }
}

/// [`Pairs::swap_words`] as `vpshufb`. Within each 128-bit lane, dword `p` takes the
/// bytes `4p+2, 4p+3, 4p, 4p+1`. In `asm!` because LLVM turns `_mm512_shuffle_epi8` with
/// this constant back into `vprold`, the instruction it is here to avoid.
///
/// The native path needs AVX-512BW besides F and VNNI: `vpshufb` on zmm registers is a
/// BW instruction. There is no fallback for F and VNNI without BW: no CPU has that
/// combination, and `wide` itself does not build for AVX-512F without BW.
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx512f",
    target_feature = "avx512bw",
    target_feature = "avx512vnni"
))]
#[inline(always)]
fn swap_words_512(v: core::arch::x86_64::__m512i) -> core::arch::x86_64::__m512i {
    // SAFETY: `_mm512_set4_epi32` needs AVX-512F, `vpshufb` on zmm registers AVX-512BW,
    // both enabled by the build (this function exists only then); the asm touches no
    // memory, stack or flags.
    let order = unsafe { core::arch::x86_64::_mm512_set4_epi32(0x0D0C_0F0E, 0x0908_0B0A, 0x0504_0706, 0x0100_0302) };
    let swapped;
    unsafe {
        core::arch::asm!(
            "vpshufb {out}, {v}, {order}",
            out = lateout(zmm_reg) swapped,
            v = in(zmm_reg) v,
            order = in(zmm_reg) order,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    swapped
}

#[cfg(not(all(
    target_arch = "x86_64",
    target_feature = "avx512f",
    target_feature = "avx512bw",
    target_feature = "avx512vnni"
)))]
impl Pairs {
    /// All lanes zero.
    #[inline(always)]
    pub fn zero() -> Self {
        Self([0; PAIR_LANES])
    }
    /// Every lane `v`.
    #[inline(always)]
    pub fn splat(v: i32) -> Self {
        Self([v; PAIR_LANES])
    }
    /// Loads a row.
    #[inline(always)]
    pub fn load(row: &PairRow) -> Self {
        Self(row.0)
    }
    /// Stores into a row.
    #[inline(always)]
    pub fn store(self, row: &mut PairRow) {
        row.0 = self.0;
    }
    /// `self + a.lo·b.lo + a.hi·b.hi` in every lane: the words signed, the products exact,
    /// the sums wrapping modulo `2^32`.
    #[inline(always)]
    pub fn dot_add(self, a: Self, b: Self) -> Self {
        let words = |v: i32| (v as i16 as i32, (v >> 16) as i16 as i32);
        Self(std::array::from_fn(|l| {
            let ((a0, a1), (b0, b1)) = (words(a.0[l]), words(b.0[l]));
            self.0[l].wrapping_add(a0.wrapping_mul(b0)).wrapping_add(a1.wrapping_mul(b1))
        }))
    }
    /// The two words of every lane exchanged.
    #[inline(always)]
    pub fn swap_words(self) -> Self {
        Self(self.0.map(|v| v.rotate_left(16)))
    }
    /// The lanes `(high word of a, low word of b)`: from rows `(v_0, v_1)` and
    /// `(v_2, v_3)`, the row `(v_1, v_2)`.
    #[inline(always)]
    pub fn between(a: Self, b: Self) -> Self {
        Self(std::array::from_fn(|l| ((a.0[l] as u32 >> 16) | ((b.0[l] as u32) << 16)) as i32))
    }
    /// Lane-wise wrapping sum.
    #[inline(always)]
    fn add_lanes(self, other: Self) -> Self {
        Self(std::array::from_fn(|l| self.0[l].wrapping_add(other.0[l])))
    }
    /// Lane-wise wrapping difference.
    #[inline(always)]
    fn sub_lanes(self, other: Self) -> Self {
        Self(std::array::from_fn(|l| self.0[l].wrapping_sub(other.0[l])))
    }
    /// Lane-wise wrapping product.
    #[inline(always)]
    fn mul_lanes(self, other: Self) -> Self {
        Self(std::array::from_fn(|l| self.0[l].wrapping_mul(other.0[l])))
    }
    /// Word-wise wrapping difference.
    #[inline(always)]
    pub fn sub_words(self, other: Self) -> Self {
        let sub = |a: i32, b: i32, shift: u32| ((a >> shift) as u16).wrapping_sub((b >> shift) as u16) as u32;
        Self(std::array::from_fn(|l| (sub(self.0[l], other.0[l], 0) | (sub(self.0[l], other.0[l], 16) << 16)) as i32))
    }
    /// Word-wise wrapping sum (each of the two words of a lane on its own).
    #[inline(always)]
    pub fn add_words(self, other: Self) -> Self {
        let add = |a: i32, b: i32, shift: u32| ((a >> shift) as u16).wrapping_add((b >> shift) as u16) as u32;
        Self(std::array::from_fn(|l| (add(self.0[l], other.0[l], 0) | (add(self.0[l], other.0[l], 16) << 16)) as i32))
    }
    /// The low word of every lane, the high word cleared.
    #[inline(always)]
    pub fn low_word_only(self) -> Self {
        Self(self.0.map(|v| v & 0xFFFF))
    }
    /// The low word of every lane, sign-extended to the lane.
    #[inline(always)]
    pub fn low_word_value(self) -> Self {
        Self(self.0.map(|v| v as i16 as i32))
    }
    /// The lanes whose low word is the low word of `lo` and whose high word is the low
    /// word of `hi`.
    #[inline(always)]
    pub fn pack(lo: Self, hi: Self) -> Self {
        Self(std::array::from_fn(|l| (lo.0[l] & 0xFFFF) | (hi.0[l] << 16)))
    }
    /// The wrapping sum of the lanes.
    #[inline(always)]
    pub fn sum_lanes(self) -> i32 {
        self.0.iter().fold(0i32, |s, &v| s.wrapping_add(v))
    }
    /// The sums of the low words and of the high words of the lanes, each wrapping
    /// modulo `2^16`, as the low and the high word of the result.
    #[inline(always)]
    pub fn sum_words(self) -> i32 {
        let (lo, hi) = self
            .0
            .iter()
            .fold((0u16, 0u16), |(lo, hi), &v| (lo.wrapping_add(v as u16), hi.wrapping_add((v as u32 >> 16) as u16)));
        (lo as u32 | (hi as u32) << 16) as i32
    }
    /// The lanes as values.
    #[inline(always)]
    pub fn to_array(self) -> [i32; PAIR_LANES] {
        self.0
    }
    /// Lanes from values.
    #[inline(always)]
    pub fn from_array(values: [i32; PAIR_LANES]) -> Self {
        Self(values)
    }
}

/// Sixteen `f64` lanes (two vectors), for the exact integer arithmetic between the dot
/// products: every value they hold is an integer below `2^53` in size, so sums,
/// products and fused multiply-adds whose exact results stay below `2^53` are exact.
#[derive(Clone, Copy)]
pub struct Doubles(
    #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))] [core::arch::x86_64::__m512d; 2],
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))] [f64; PAIR_LANES],
);

// SAFETY (every `unsafe` in this impl): it exists only when the build enables AVX-512F
// (and FMA, which every AVX-512 CPU has; `mul_add` asks for it explicitly), so each
// instruction is available on the CPU the binary targets; none has a precondition.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
impl Doubles {
    /// All lanes zero.
    #[inline(always)]
    pub fn zero() -> Self {
        Self::splat(0.0)
    }
    /// Every lane `v`.
    #[inline(always)]
    pub fn splat(v: f64) -> Self {
        let v = unsafe { core::arch::x86_64::_mm512_set1_pd(v) };
        Self([v, v])
    }
    /// The lanes of `p` as values.
    #[inline(always)]
    pub fn from_pairs(p: Pairs) -> Self {
        use core::arch::x86_64::{_mm512_castsi512_si256, _mm512_cvtepi32_pd, _mm512_extracti64x4_epi64};
        unsafe {
            Self([
                _mm512_cvtepi32_pd(_mm512_castsi512_si256(p.0)),
                _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64::<1>(p.0)),
            ])
        }
    }
    /// The lanes, integers below `2^31` in size, as `i32` lanes.
    #[inline(always)]
    pub fn to_pairs(self) -> Pairs {
        use core::arch::x86_64::{_mm512_castsi256_si512, _mm512_cvtpd_epi32, _mm512_inserti64x4};
        unsafe {
            let (low, high) = (_mm512_cvtpd_epi32(self.0[0]), _mm512_cvtpd_epi32(self.0[1]));
            Pairs(_mm512_inserti64x4::<1>(_mm512_castsi256_si512(low), high))
        }
    }
    #[inline(always)]
    fn map2(
        self,
        other: Self,
        f: impl Fn(core::arch::x86_64::__m512d, core::arch::x86_64::__m512d) -> core::arch::x86_64::__m512d,
    ) -> Self {
        Self([f(self.0[0], other.0[0]), f(self.0[1], other.0[1])])
    }
    /// Lane-wise sum.
    #[inline(always)]
    fn add_lanes(self, other: Self) -> Self {
        self.map2(other, |a, b| unsafe { core::arch::x86_64::_mm512_add_pd(a, b) })
    }
    /// Lane-wise difference.
    #[inline(always)]
    fn sub_lanes(self, other: Self) -> Self {
        self.map2(other, |a, b| unsafe { core::arch::x86_64::_mm512_sub_pd(a, b) })
    }
    /// Lane-wise product.
    #[inline(always)]
    fn mul_lanes(self, other: Self) -> Self {
        self.map2(other, |a, b| unsafe { core::arch::x86_64::_mm512_mul_pd(a, b) })
    }
    /// `self·a + b`, rounded once.
    #[inline(always)]
    pub fn mul_add(self, a: Self, b: Self) -> Self {
        Self(std::array::from_fn(|i| unsafe { core::arch::x86_64::_mm512_fmadd_pd(self.0[i], a.0[i], b.0[i]) }))
    }
    /// `b - self·a`, rounded once.
    #[inline(always)]
    pub fn neg_mul_add(self, a: Self, b: Self) -> Self {
        Self(std::array::from_fn(|i| unsafe { core::arch::x86_64::_mm512_fnmadd_pd(self.0[i], a.0[i], b.0[i]) }))
    }
    /// Each lane rounded to the nearest integer, ties to even.
    #[inline(always)]
    pub fn round(self) -> Self {
        // 0x08: round to nearest (even), exceptions suppressed.
        Self(self.0.map(|v| unsafe { core::arch::x86_64::_mm512_roundscale_pd::<0x08>(v) }))
    }
    /// The sum of the lanes (exact when the lanes and their sums are integers below 2^53).
    #[inline(always)]
    pub fn sum(self) -> f64 {
        unsafe { core::arch::x86_64::_mm512_reduce_add_pd(core::arch::x86_64::_mm512_add_pd(self.0[0], self.0[1])) }
    }
    /// The lanes as values.
    pub fn to_array(self) -> [f64; PAIR_LANES] {
        let mut out = [0.0; PAIR_LANES];
        unsafe {
            core::arch::x86_64::_mm512_storeu_pd(out.as_mut_ptr(), self.0[0]);
            core::arch::x86_64::_mm512_storeu_pd(out.as_mut_ptr().add(8), self.0[1]);
        }
        out
    }
    /// Lanes from values.
    pub fn from_array(values: [f64; PAIR_LANES]) -> Self {
        unsafe {
            Self([
                core::arch::x86_64::_mm512_loadu_pd(values.as_ptr()),
                core::arch::x86_64::_mm512_loadu_pd(values.as_ptr().add(8)),
            ])
        }
    }
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
impl Doubles {
    /// All lanes zero.
    #[inline(always)]
    pub fn zero() -> Self {
        Self::splat(0.0)
    }
    /// Every lane `v`.
    #[inline(always)]
    pub fn splat(v: f64) -> Self {
        Self([v; PAIR_LANES])
    }
    /// The lanes of `p` as values.
    #[inline(always)]
    pub fn from_pairs(p: Pairs) -> Self {
        Self(p.to_array().map(f64::from))
    }
    /// The lanes, integers below `2^31` in size, as `i32` lanes.
    #[inline(always)]
    pub fn to_pairs(self) -> Pairs {
        Pairs::from_array(self.0.map(|v| v as i32))
    }
    #[inline(always)]
    fn map2(self, other: Self, f: impl Fn(f64, f64) -> f64) -> Self {
        Self(std::array::from_fn(|l| f(self.0[l], other.0[l])))
    }
    /// Lane-wise sum.
    #[inline(always)]
    fn add_lanes(self, other: Self) -> Self {
        self.map2(other, |a, b| a + b)
    }
    /// Lane-wise difference.
    #[inline(always)]
    fn sub_lanes(self, other: Self) -> Self {
        self.map2(other, |a, b| a - b)
    }
    /// Lane-wise product.
    #[inline(always)]
    fn mul_lanes(self, other: Self) -> Self {
        self.map2(other, |a, b| a * b)
    }
    /// `self·a + b`, rounded once.
    #[inline(always)]
    pub fn mul_add(self, a: Self, b: Self) -> Self {
        Self(std::array::from_fn(|l| self.0[l].mul_add(a.0[l], b.0[l])))
    }
    /// `b - self·a`, rounded once.
    #[inline(always)]
    pub fn neg_mul_add(self, a: Self, b: Self) -> Self {
        Self(std::array::from_fn(|l| (-self.0[l]).mul_add(a.0[l], b.0[l])))
    }
    /// Each lane rounded to the nearest integer, ties to even.
    #[inline(always)]
    pub fn round(self) -> Self {
        Self(self.0.map(f64::round_ties_even))
    }
    /// The sum of the lanes (exact when the lanes and their sums are integers below 2^53).
    #[inline(always)]
    pub fn sum(self) -> f64 {
        self.0.iter().sum()
    }
    /// The lanes as values.
    pub fn to_array(self) -> [f64; PAIR_LANES] {
        self.0
    }
    /// Lanes from values.
    pub fn from_array(values: [f64; PAIR_LANES]) -> Self {
        Self(values)
    }
}

/// `+`, `-`, `*` lane by lane: wrapping `i32` arithmetic for [`Pairs`], `f64` for
/// [`Doubles`].
macro_rules! lane_operators {
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
lane_operators!(Pairs: Add add add_lanes, Sub sub sub_lanes, Mul mul mul_lanes);
lane_operators!(Doubles: Add add add_lanes, Sub sub sub_lanes, Mul mul mul_lanes);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SplitMix64;

    fn random_lanes(rng: &mut SplitMix64) -> [i32; PAIR_LANES] {
        // Edge words first (0, ±1, i16::MIN, i16::MAX), then random bits.
        const EDGES: [i32; 6] = [0, 1, -1, 0x7FFF, -0x8000, 0x7FFF_8000];
        std::array::from_fn(|l| if l < EDGES.len() { EDGES[l] } else { rng.next_u64() as i32 })
    }

    #[test]
    fn every_operation_matches_its_scalar_twin_lane_by_lane() {
        let mut rng = SplitMix64(0x9A125);
        let word = |v: i32, high: bool| (if high { v >> 16 } else { v }) as i16 as i32;
        for _ in 0..200 {
            let (acc, a, b) = (random_lanes(&mut rng), random_lanes(&mut rng), random_lanes(&mut rng));
            let (va, vb, vacc) = (Pairs::from_array(a), Pairs::from_array(b), Pairs::from_array(acc));
            let dot = vacc.dot_add(va, vb).to_array();
            let swapped = va.swap_words().to_array();
            let sum = (va + vb).to_array();
            let product = (va * vb).to_array();
            let diff = (va - vb).to_array();
            let word_sum = va.add_words(vb).to_array();
            let word_diff = va.sub_words(vb).to_array();
            let low_only = va.low_word_only().to_array();
            let low_value = va.low_word_value().to_array();
            let packed = Pairs::pack(va, vb).to_array();
            let between = Pairs::between(va, vb).to_array();
            for l in 0..PAIR_LANES {
                let products =
                    (word(a[l], false) * word(b[l], false)) as i64 + (word(a[l], true) * word(b[l], true)) as i64;
                assert_eq!(dot[l], (acc[l] as i64 + products) as i32, "dot lane {l}");
                assert_eq!(swapped[l], a[l].rotate_left(16));
                assert_eq!(sum[l], a[l].wrapping_add(b[l]));
                assert_eq!(diff[l], a[l].wrapping_sub(b[l]));
                assert_eq!(product[l], a[l].wrapping_mul(b[l]));
                for high in [false, true] {
                    assert_eq!(
                        word(word_sum[l], high),
                        (word(a[l], high) as i16).wrapping_add(word(b[l], high) as i16) as i32
                    );
                    assert_eq!(
                        word(word_diff[l], high),
                        (word(a[l], high) as i16).wrapping_sub(word(b[l], high) as i16) as i32
                    );
                }
                assert_eq!(low_only[l], a[l] & 0xFFFF);
                assert_eq!(low_value[l], word(a[l], false));
                assert_eq!((word(packed[l], false), word(packed[l], true)), (word(a[l], false), word(b[l], false)));
                assert_eq!((word(between[l], false), word(between[l], true)), (word(a[l], true), word(b[l], false)));
            }
        }
        assert_eq!(Pairs::splat(-7).to_array(), [-7; PAIR_LANES]);
        let big = Pairs::splat(i32::MAX);
        assert_eq!(big.sum_lanes(), i32::MAX.wrapping_mul(PAIR_LANES as i32));
    }

    #[test]
    fn doubles_match_scalar_f64_lane_by_lane() {
        let mut rng = SplitMix64(0xD0B);
        for _ in 0..200 {
            // Integers up to 2^52 in size (edges first), and i32 lanes for the conversions.
            let int = |rng: &mut SplitMix64, bits: u32| {
                (rng.next_u64() >> (64 - bits)) as i64 as f64 - (1u64 << (bits - 1)) as f64
            };
            let edges = [0.0, 1.0, -1.0, 2f64.powi(52), -(2f64.powi(52)), 0.5, -2.5, 3.5];
            let values = |rng: &mut SplitMix64| -> [f64; PAIR_LANES] {
                std::array::from_fn(|l| if l < edges.len() { edges[l] } else { int(rng, 52) })
            };
            let (a, b, c) = (values(&mut rng), values(&mut rng), values(&mut rng));
            let (va, vb, vc) = (Doubles::from_array(a), Doubles::from_array(b), Doubles::from_array(c));
            let scale = Doubles::splat(1.0 / 3.0);
            for l in 0..PAIR_LANES {
                assert_eq!((va + vb).to_array()[l], a[l] + b[l]);
                assert_eq!((va - vb).to_array()[l], a[l] - b[l]);
                assert_eq!((va * scale).to_array()[l], a[l] * (1.0 / 3.0));
                assert_eq!(va.mul_add(scale, vc).to_array()[l], a[l].mul_add(1.0 / 3.0, c[l]));
                assert_eq!(va.neg_mul_add(scale, vc).to_array()[l], (-a[l]).mul_add(1.0 / 3.0, c[l]));
                assert_eq!(va.round().to_array()[l], a[l].round_ties_even());
            }
            let small = random_lanes(&mut rng);
            let converted = Doubles::from_pairs(Pairs::from_array(small));
            assert_eq!(converted.to_array(), small.map(f64::from));
            assert_eq!(converted.to_pairs().to_array(), small);
            assert_eq!(converted.sum(), small.iter().map(|&v| v as f64).sum::<f64>());
        }
        assert_eq!(Pairs::zero().to_array(), [0; PAIR_LANES]);
    }
}
