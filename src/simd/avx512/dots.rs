//! The dots family on AVX-512 (F, BW, DQ, VBMI2, VNNI): a row is one `zmm` register and
//! every pair dot product one `vpdpwssd`; sixteen `f64` lanes are two registers, eight
//! `u64` lanes one. Moved from the kernels' former compile-time paths without changing
//! their instructions (the level always has VBMI2 and DQ, so their paths are the ones
//! taken).
//!
//! SAFETY (every `unsafe` block in this file): these types are only used by kernels
//! that [`multiversion!`](crate::multiversion) instantiates for [`Avx512`] and runs
//! inside its AVX-512 entry point, which it enters only with a `Simd` token of a CPU
//! detected to have every feature of the level; the intrinsics have no other
//! precondition, except the aligned loads and stores, whose pointers come from
//! references to 64-byte, 64-byte aligned rows.

use core::arch::x86_64::*;

use crate::simd::Avx512;
use crate::simd::dots::{
    Dots, DoublePart, DoubleRow, DoubleVec, Lanes, MATCH_CHUNK, PAIR_LANES, PairPart, PairRow, PairVec, RING_LANES,
    RingVec, lane_operators,
};

impl Dots for Avx512 {
    type Pairs = Pairs;
    type Doubles = Doubles;
    type Ring = Ring;

    /// The 64 values in one register of bytes (`vpmovwb` truncates each 16-bit value to
    /// its low byte), one `vpcmpeqb` into a mask per target; the pairs' second halves
    /// reversed by `vpermw`.
    #[inline(always)]
    fn chunk_matches_low_bytes<const K: usize>(
        lo: &[u16; MATCH_CHUNK],
        hi: &[u16; MATCH_CHUNK],
        targets: &[u8; K],
    ) -> bool {
        const REVERSED: [u16; 32] = {
            let mut r = [0u16; 32];
            let mut i = 0;
            while i < 32 {
                r[i] = 31 - i as u16;
                i += 1;
            }
            r
        };
        // SAFETY: see the top of the file; the loads read the 64 values of `lo` and of
        // `hi` and the 32 of `REVERSED`.
        unsafe {
            let reversed = _mm512_loadu_si512(REVERSED.as_ptr().cast());
            let load = |p: *const u16| _mm512_loadu_si512(p.cast());
            let (lo0, lo1) = (load(lo.as_ptr()), load(lo.as_ptr().add(32)));
            let (hi0, hi1) = (load(hi.as_ptr()), load(hi.as_ptr().add(32)));
            // Pair j < 32 takes hi[63 - j], word 31 - j of the upper half.
            let v0 = _mm512_xor_si512(lo0, _mm512_permutexvar_epi16(reversed, hi1));
            let v1 = _mm512_xor_si512(lo1, _mm512_permutexvar_epi16(reversed, hi0));
            let bytes =
                _mm512_inserti64x4::<1>(_mm512_castsi256_si512(_mm512_cvtepi16_epi8(v0)), _mm512_cvtepi16_epi8(v1));
            let mut hits = 0u64;
            for &t in targets {
                hits |= _mm512_cmpeq_epi8_mask(bytes, _mm512_set1_epi8(t as i8));
            }
            hits != 0
        }
    }
}

/// Sixteen `i32` lanes in one register.
#[derive(Clone, Copy, Debug)]
pub struct Pairs(__m512i);

impl Pairs {
    #[inline(always)]
    fn add_lanes(self, other: Self) -> Self {
        Self(unsafe { _mm512_add_epi32(self.0, other.0) })
    }
    #[inline(always)]
    fn sub_lanes(self, other: Self) -> Self {
        Self(unsafe { _mm512_sub_epi32(self.0, other.0) })
    }
    /// `vpmulld`.
    #[inline(always)]
    fn mul_lanes(self, other: Self) -> Self {
        Self(unsafe { _mm512_mullo_epi32(self.0, other.0) })
    }
}

lane_operators!(Pairs: Add add add_lanes, Sub sub sub_lanes, Mul mul mul_lanes);

impl PairVec for Pairs {
    type Doubles = Doubles;
    type Part = Pairs;
    const PARTS: usize = 1;
    const DOT_FUSED: bool = true;
    #[inline(always)]
    fn load_part(row: &PairRow, _part: usize) -> Self {
        Self::load(row)
    }
    #[inline(always)]
    fn part(self, _part: usize) -> Self {
        self
    }
    #[inline(always)]
    fn with_part(self, _part: usize, value: Self) -> Self {
        value
    }
    #[inline(always)]
    fn zero() -> Self {
        Self(unsafe { _mm512_setzero_si512() })
    }
    #[inline(always)]
    fn splat(v: i32) -> Self {
        Self(unsafe { _mm512_set1_epi32(v) })
    }
    #[inline(always)]
    fn load(row: &PairRow) -> Self {
        Self(unsafe { _mm512_load_si512(row.0.as_ptr().cast()) })
    }
    #[inline(always)]
    fn store(self, row: &mut PairRow) {
        unsafe { _mm512_store_si512(row.0.as_mut_ptr().cast(), self.0) }
    }
    /// `vpdpwssd`, as an instruction of its own (`dot_add_512`).
    #[inline(always)]
    fn dot_add(self, a: Self, b: Self) -> Self {
        Self(unsafe { dot_add_512(self.0, a.0, b.0) })
    }
    /// A byte shuffle (`vpshufb`), not the rotation `vprold`: on Zen 4 the rotations and
    /// double shifts take the issue slots of `vpdpwssd` (measured: 12 dot products alone
    /// 12 cycles, with 2 rotations 14), the byte shuffles do not. In the Karatsuba loop of
    /// `catalan_words` (two swaps per 12 dot products) about 16.3 → 14.3 cycles per pair
    /// of steps, the summed planes 17.7 → 15.5; the warm kernel at 1000 pins
    /// 87.9 → 82.5 µs (best of 3000 calls).
    #[inline(always)]
    fn swap_words(self) -> Self {
        Self(unsafe { swap_words_512(self.0) })
    }
    /// Still the double shift `vpshrdd`, although it takes a slot of `vpdpwssd` (see
    /// [`PairVec::swap_words`]): the alternatives measured slower in the Karatsuba loop
    /// (two shifts and an `or`: three instructions; `vpermt2w`: slower too).
    #[inline(always)]
    fn between(a: Self, b: Self) -> Self {
        Self(unsafe { _mm512_shrdi_epi32::<16>(a.0, b.0) })
    }
    #[inline(always)]
    fn add_words(self, other: Self) -> Self {
        Self(unsafe { _mm512_add_epi16(self.0, other.0) })
    }
    #[inline(always)]
    fn sub_words(self, other: Self) -> Self {
        Self(unsafe { _mm512_sub_epi16(self.0, other.0) })
    }
    #[inline(always)]
    fn low_word_only(self) -> Self {
        Self(unsafe { _mm512_and_si512(self.0, _mm512_set1_epi32(0xFFFF)) })
    }
    #[inline(always)]
    fn low_word_value(self) -> Self {
        Self(unsafe { _mm512_srai_epi32::<16>(_mm512_slli_epi32::<16>(self.0)) })
    }
    #[inline(always)]
    fn pack(lo: Self, hi: Self) -> Self {
        // (hi << 16) | (lo & 0xFFFF): bit select with the mask 0xFFFF (imm 0xCA: a ? b : c
        // with a = mask, b = lo, c = hi << 16).
        let mask = Self::splat(0xFFFF).0;
        Self(unsafe { _mm512_ternarylogic_epi32::<0xCA>(mask, lo.0, _mm512_slli_epi32::<16>(hi.0)) })
    }
    #[inline(always)]
    fn sum_lanes(self) -> i32 {
        unsafe { _mm512_reduce_add_epi32(self.0) }
    }
    /// Two sums for the price of one reduction.
    #[inline(always)]
    fn sum_words(self) -> i32 {
        unsafe {
            let half = _mm256_add_epi16(_mm512_castsi512_si256(self.0), _mm512_extracti64x4_epi64::<1>(self.0));
            let quarter = _mm_add_epi16(_mm256_castsi256_si128(half), _mm256_extracti128_si256::<1>(half));
            let eighth = _mm_add_epi16(quarter, _mm_shuffle_epi32::<0b01_00_11_10>(quarter));
            _mm_cvtsi128_si32(_mm_add_epi16(eighth, _mm_shuffle_epi32::<0b00_00_00_01>(eighth)))
        }
    }
    #[inline(always)]
    fn to_doubles(self) -> Doubles {
        unsafe {
            Doubles([
                _mm512_cvtepi32_pd(_mm512_castsi512_si256(self.0)),
                _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64::<1>(self.0)),
            ])
        }
    }
    #[inline(always)]
    fn from_doubles(d: Doubles) -> Self {
        unsafe {
            let (low, high) = (_mm512_cvtpd_epi32(d.0[0]), _mm512_cvtpd_epi32(d.0[1]));
            Pairs(_mm512_inserti64x4::<1>(_mm512_castsi256_si512(low), high))
        }
    }
}

impl PairPart for Pairs {
    #[inline(always)]
    fn zero() -> Self {
        <Self as PairVec>::zero()
    }
    #[inline(always)]
    fn dot_add(self, a: Self, b: Self) -> Self {
        <Self as PairVec>::dot_add(self, a, b)
    }
    #[inline(always)]
    fn swap_words(self) -> Self {
        <Self as PairVec>::swap_words(self)
    }
    #[inline(always)]
    fn between(a: Self, b: Self) -> Self {
        <Self as PairVec>::between(a, b)
    }
    #[inline(always)]
    fn add_words(self, other: Self) -> Self {
        <Self as PairVec>::add_words(self, other)
    }
    crate::simd::dots::unpaired_as_paired!();
}

/// [`PairVec::swap_words`] as `vpshufb`. Within each 128-bit lane, dword `p` takes the
/// bytes `4p+2, 4p+3, 4p, 4p+1`. In `asm!` because LLVM turns `_mm512_shuffle_epi8` with
/// this constant back into `vprold`, the instruction it is here to avoid. Its own
/// features (not inlined-always: a `zmm_reg` operand needs AVX-512F in the function that
/// holds the `asm!`); LLVM inlines it into the AVX-512 entry points, which have them.
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512BW.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn swap_words_512(v: __m512i) -> __m512i {
    let order = _mm512_set4_epi32(0x0D0C_0F0E, 0x0908_0B0A, 0x0504_0706, 0x0100_0302);
    let swapped;
    // SAFETY: `vpshufb` on zmm registers is AVX-512BW, which the caller guarantees; the
    // asm touches no memory, stack or flags.
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

/// `acc + a.lo·b.lo + a.hi·b.hi` in each 32-bit lane: one `vpdpwssd`. In `asm!` because
/// LLVM's machine combiner splits the intrinsic `_mm512_dpwssd_epi32` into `vpmaddwd` +
/// `vpaddd` when the build's tuning does not mark `vpdpwssd` as fast, which the
/// baseline's generic tuning does not: the entry points select instruction sets, not the
/// tuning. The default build then ran 147 of the kernels' 216 `vpdpwssd` as two
/// instructions each, and f(1000) took 149 µs against 132 µs for a `-C target-cpu=native`
/// build (Zen 4, 21 alternated processes). Its own features, as [`swap_words_512`].
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512 VNNI.
#[target_feature(enable = "avx512f,avx512vnni")]
#[inline]
unsafe fn dot_add_512(acc: __m512i, a: __m512i, b: __m512i) -> __m512i {
    let mut sum = acc;
    // SAFETY: `vpdpwssd` on zmm registers is AVX-512 VNNI, which the caller guarantees;
    // the asm touches no memory, stack or flags.
    unsafe {
        core::arch::asm!(
            "vpdpwssd {sum}, {a}, {b}",
            sum = inout(zmm_reg) sum,
            a = in(zmm_reg) a,
            b = in(zmm_reg) b,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    sum
}

/// Sixteen `f64` lanes in two registers.
#[derive(Clone, Copy, Debug)]
pub struct Doubles([__m512d; 2]);

/// `f` on both registers: a macro, not a closure (a closure is compiled on its own, at
/// the baseline, unless LLVM happens to inline it).
macro_rules! both {
    ($f:ident $(::<$k:literal>)?($($a:expr),+)) => {
        Self([unsafe { $f $(::<$k>)? ($($a.0[0]),+) }, unsafe { $f $(::<$k>)? ($($a.0[1]),+) }])
    };
}

impl Doubles {
    #[inline(always)]
    fn add_lanes(self, other: Self) -> Self {
        both!(_mm512_add_pd(self, other))
    }
    #[inline(always)]
    fn sub_lanes(self, other: Self) -> Self {
        both!(_mm512_sub_pd(self, other))
    }
    #[inline(always)]
    fn mul_lanes(self, other: Self) -> Self {
        both!(_mm512_mul_pd(self, other))
    }
}

lane_operators!(Doubles: Add add add_lanes, Sub sub sub_lanes, Mul mul mul_lanes);

impl DoubleVec for Doubles {
    type Part = DoubleZmm;
    const PARTS: usize = 2;
    const FMA: bool = true;
    #[inline(always)]
    fn load_part(row: &DoubleRow, part: usize) -> DoubleZmm {
        // Part 0 or 1 of a 64-byte aligned row: an aligned 64-byte load.
        debug_assert!(part < 2);
        DoubleZmm(unsafe { _mm512_load_pd(row.0.as_ptr().add(8 * (part & 1))) })
    }
    #[inline(always)]
    fn with_part(mut self, part: usize, value: DoubleZmm) -> Self {
        self.0[part] = value.0;
        self
    }
    #[inline(always)]
    fn splat(v: f64) -> Self {
        let v = unsafe { _mm512_set1_pd(v) };
        Self([v, v])
    }
    #[inline(always)]
    fn mul_add(self, a: Self, b: Self) -> Self {
        both!(_mm512_fmadd_pd(self, a, b))
    }
    #[inline(always)]
    fn neg_mul_add(self, a: Self, b: Self) -> Self {
        both!(_mm512_fnmadd_pd(self, a, b))
    }
    #[inline(always)]
    fn round(self) -> Self {
        // 0x08: round to nearest (even), exceptions suppressed.
        both!(_mm512_roundscale_pd::<0x08>(self))
    }
    #[inline(always)]
    fn sum(self) -> f64 {
        unsafe { _mm512_reduce_add_pd(_mm512_add_pd(self.0[0], self.0[1])) }
    }
    #[inline(always)]
    fn to_array(self) -> [f64; PAIR_LANES] {
        let mut out = [0.0; PAIR_LANES];
        unsafe {
            _mm512_storeu_pd(out.as_mut_ptr(), self.0[0]);
            _mm512_storeu_pd(out.as_mut_ptr().add(8), self.0[1]);
        }
        out
    }
    #[inline(always)]
    fn from_array(values: [f64; PAIR_LANES]) -> Self {
        unsafe { Self([_mm512_loadu_pd(values.as_ptr()), _mm512_loadu_pd(values.as_ptr().add(8))]) }
    }
}

/// Eight `f64` lanes: one register of [`Doubles`].
#[derive(Clone, Copy, Debug)]
pub struct DoubleZmm(__m512d);

impl DoublePart for DoubleZmm {
    #[inline(always)]
    fn zero() -> Self {
        Self(unsafe { _mm512_setzero_pd() })
    }
    #[inline(always)]
    fn mul_add(self, a: Self, b: Self) -> Self {
        Self(unsafe { _mm512_fmadd_pd(self.0, a.0, b.0) })
    }
}

/// Eight `u64` lanes in one register.
#[derive(Clone, Copy, Debug)]
pub struct Ring(__m512i);

impl RingVec for Ring {
    #[inline(always)]
    fn zero() -> Self {
        Self(unsafe { _mm512_setzero_si512() })
    }
    #[inline(always)]
    fn splat(v: u64) -> Self {
        Self(unsafe { _mm512_set1_epi64(v as i64) })
    }
    #[inline(always)]
    fn load(v: &Lanes) -> Self {
        Self(unsafe { _mm512_load_si512(v.0.as_ptr().cast()) })
    }
    #[inline(always)]
    fn store(self) -> Lanes {
        let mut out = Lanes::ZERO;
        unsafe { _mm512_store_si512(out.0.as_mut_ptr().cast(), self.0) };
        out
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        Self(unsafe { _mm512_add_epi64(self.0, other.0) })
    }
    #[inline(always)]
    fn sub(self, other: Self) -> Self {
        Self(unsafe { _mm512_sub_epi64(self.0, other.0) })
    }
    #[inline(always)]
    fn min(self, other: Self) -> Self {
        Self(unsafe { _mm512_min_epu64(self.0, other.0) })
    }
    #[inline(always)]
    fn mul_low32(self, other: Self) -> Self {
        Self(unsafe { _mm512_mul_epu32(self.0, other.0) })
    }
    #[inline(always)]
    fn shr32(self) -> Self {
        Self(unsafe { _mm512_srli_epi64::<32>(self.0) })
    }
    #[inline(always)]
    fn and(self, other: Self) -> Self {
        Self(unsafe { _mm512_and_si512(self.0, other.0) })
    }
    /// `vpmullq` (AVX-512DQ).
    #[inline(always)]
    fn mul_wrapping(self, other: Self) -> Self {
        Self(unsafe { _mm512_mullo_epi64(self.0, other.0) })
    }
    #[inline(always)]
    fn or(self, other: Self) -> Self {
        Self(unsafe { _mm512_or_si512(self.0, other.0) })
    }
    #[inline(always)]
    fn shl_lanes(self, counts: Self) -> Self {
        Self(unsafe { _mm512_sllv_epi64(self.0, counts.0) })
    }
    #[inline(always)]
    fn widen_u16(v: &[u16; RING_LANES]) -> Self {
        // SAFETY: `v` is 16 readable bytes.
        Self(unsafe { _mm512_cvtepu16_epi64(_mm_loadu_si128(v.as_ptr().cast())) })
    }
    /// One rotate makes the bit (`vprolvq`, where the default needs a shift per word on
    /// the same port), and a compare per word picks the lanes it goes to.
    #[inline(always)]
    fn mark_bits<const W: usize>(words: &mut [Self; W], v: Self) {
        unsafe {
            let bit = _mm512_rolv_epi64(_mm512_set1_epi64(1), v.0);
            if W == 1 {
                words[0].0 = _mm512_or_si512(words[0].0, bit);
                return;
            }
            if W == 2 {
                // Two compares of the value itself, no shift for the word.
                let low = _mm512_cmplt_epu64_mask(v.0, _mm512_set1_epi64(64));
                let high = _mm512_cmpge_epu64_mask(v.0, _mm512_set1_epi64(64));
                words[0].0 = _mm512_mask_or_epi64(words[0].0, low, words[0].0, bit);
                words[1].0 = _mm512_mask_or_epi64(words[1].0, high, words[1].0, bit);
                return;
            }
            let word = _mm512_srli_epi64::<6>(v.0);
            for (w, acc) in words.iter_mut().enumerate() {
                let lanes = _mm512_cmpeq_epi64_mask(word, _mm512_set1_epi64(w as i64));
                acc.0 = _mm512_mask_or_epi64(acc.0, lanes, acc.0, bit);
            }
        }
    }
}
