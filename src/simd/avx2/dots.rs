//! The dots family on AVX2: a 512-bit row is two `ymm` registers; the VNNI pair dot
//! product `vpdpwssd` becomes `vpmaddwd` + `vpaddd`, or, at the `avx2-vnni` level
//! (`VNNI = true`), AVX-VNNI's `vpdpwssd` on `ymm`: one instruction for the two, on Intel
//! cores from Alder Lake on that have no AVX-512; sixteen `f64` lanes are four registers;
//! eight `u64` lanes two, with `vpmuludq` products and the unsigned comparisons built from
//! signed ones.
//!
//! SAFETY (every `unsafe` block in this file): these types are only used by kernels
//! that [`multiversion!`](crate::multiversion) instantiates for [`Avx2`] and runs inside
//! its AVX2 entry point, which it enters only with a `Simd` token of a CPU detected to
//! have AVX2 and FMA; the intrinsics have no other precondition, except the loads and
//! stores, whose pointers come from references to rows of the right size. `vpdpwssd` is
//! only reached with `VNNI = true`, which only the `avx2-vnni` entry point instantiates,
//! after detecting AVX-VNNI as well, and in the library's tests an AVX2 entry point on
//! CPUs without AVX-VNNI, where `dot_add8` emulates it instead.

use core::arch::x86_64::*;

use crate::simd::Avx2;
use crate::simd::dots::{
    Dots, DoublePart, DoubleRow, DoubleVec, Lanes, MATCH_CHUNK, PAIR_LANES, PairPart, PairRow, PairVec, RING_LANES,
    RingVec, lane_operators,
};

impl<const VNNI: bool> Dots for Avx2<VNNI> {
    type Pairs = Pairs<VNNI>;
    type Doubles = Doubles;
    type Ring = Ring;

    /// The 64 values' low bytes in two registers (masked, then `vpackuswb`, whose lane
    /// order does not matter to "any"), two `vpcmpeqb` per target; the pairs' second
    /// halves reversed by `vpshufb` within the 128-bit halves and `vpermq` across them.
    #[inline(always)]
    fn chunk_matches_low_bytes<const K: usize>(
        lo: &[u16; MATCH_CHUNK],
        hi: &[u16; MATCH_CHUNK],
        targets: &[u8; K],
    ) -> bool {
        // SAFETY: see the top of the file; the loads read the 64 values of `lo` and of
        // `hi`, sixteen at a time.
        unsafe {
            let words_reversed = _mm256_setr_epi8(
                14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1, 14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3,
                0, 1,
            );
            let load = |p: *const u16, k: usize| _mm256_loadu_si256(p.add(16 * k).cast());
            let reverse = |v| _mm256_permute4x64_epi64::<0b01_00_11_10>(_mm256_shuffle_epi8(v, words_reversed));
            let low_byte = _mm256_set1_epi16(0xFF);
            // Pair 16 k + i takes hi[63 - 16 k - i], word 15 - i of quarter 3 - k.
            let value = |k: usize| {
                let v = _mm256_xor_si256(load(lo.as_ptr(), k), reverse(load(hi.as_ptr(), 3 - k)));
                _mm256_and_si256(v, low_byte)
            };
            let (a, b) = (_mm256_packus_epi16(value(0), value(1)), _mm256_packus_epi16(value(2), value(3)));
            let mut hits = _mm256_setzero_si256();
            for &t in targets {
                let t = _mm256_set1_epi8(t as i8);
                hits = _mm256_or_si256(hits, _mm256_or_si256(_mm256_cmpeq_epi8(a, t), _mm256_cmpeq_epi8(b, t)));
            }
            _mm256_testz_si256(hits, hits) == 0
        }
    }
}

/// Sixteen `i32` lanes in two registers (lanes 0–7, 8–15); `VNNI` chooses the pair dot
/// product's instructions.
#[derive(Clone, Copy, Debug)]
pub struct Pairs<const VNNI: bool>([__m256i; 2]);

/// `f` on each register of `a` (and `b`): macros, not closures, because a closure is
/// compiled on its own, at the baseline, unless LLVM happens to inline it (it does not
/// always: `std::array::from_fn` and `map` leave calls to each intrinsic).
macro_rules! each {
    ($t:ident, [0, 1], $f:ident $(::<$k:literal>)? ($($a:expr),+)) => {
        $t([unsafe { $f $(::<$k>)? ($($a.0[0]),+) }, unsafe { $f $(::<$k>)? ($($a.0[1]),+) }])
    };
    ($t:ident, [0, 1, 2, 3], $f:ident $(::<$k:literal>)? ($($a:expr),+)) => {
        $t([
            unsafe { $f $(::<$k>)? ($($a.0[0]),+) },
            unsafe { $f $(::<$k>)? ($($a.0[1]),+) },
            unsafe { $f $(::<$k>)? ($($a.0[2]),+) },
            unsafe { $f $(::<$k>)? ($($a.0[3]),+) },
        ])
    };
}

impl<const VNNI: bool> Pairs<VNNI> {
    #[inline(always)]
    fn add_lanes(self, other: Self) -> Self {
        each!(Self, [0, 1], _mm256_add_epi32(self, other))
    }
    #[inline(always)]
    fn sub_lanes(self, other: Self) -> Self {
        each!(Self, [0, 1], _mm256_sub_epi32(self, other))
    }
    #[inline(always)]
    fn mul_lanes(self, other: Self) -> Self {
        each!(Self, [0, 1], _mm256_mullo_epi32(self, other))
    }
}

lane_operators!(<const VNNI: bool> Pairs<VNNI>: Add add add_lanes, Sub sub sub_lanes, Mul mul mul_lanes);

/// `acc + a.lo·b.lo + a.hi·b.hi` in the eight lanes of one register: `vpdpwssd` with
/// AVX-VNNI, else `vpmaddwd` (the two exact word products of a lane summed, wrapping
/// only for (-2^15)^2·2, which the pair of i16::MIN alone reaches, as `vpdpwssd` does)
/// and a wrapping `vpaddd`.
#[inline(always)]
fn dot_add8<const VNNI: bool>(acc: __m256i, a: __m256i, b: __m256i) -> __m256i {
    if VNNI && !emulating_vnni() {
        // SAFETY: VNNI is true only in the avx2-vnni entry point, or in the tests' AVX2
        // one that emulates it, which the condition excludes (see the top of the file).
        unsafe { dot_add8_vnni(acc, a, b) }
    } else {
        unsafe { _mm256_add_epi32(acc, _mm256_madd_epi16(a, b)) }
    }
}

/// Whether the `avx2-vnni` level runs on a CPU without AVX-VNNI, which only the library's
/// tests do (`Simd::tested`): its `vpdpwssd` is then `vpmaddwd` + `vpaddd`, the same sum.
/// A constant false outside the tests.
#[inline(always)]
fn emulating_vnni() -> bool {
    cfg!(test) && !std::arch::is_x86_feature_detected!("avxvnni")
}

/// AVX-VNNI's `vpdpwssd` on one `ymm` register. In `asm!`, with the `{vex}` prefix that
/// selects AVX-VNNI's encoding (the EVEX one is AVX-512's), because LLVM's machine
/// combiner splits the intrinsic `_mm256_dpwssd_avx_epi32` into `vpmaddwd` + `vpaddd`
/// when the build's tuning does not mark `vpdpwssd` as fast, which the baseline's generic
/// tuning does not: the default build ran 235 of the kernels' 308 `vpdpwssd` of this
/// level as two instructions each (the same split cost the AVX-512 backend 10% of
/// f(1000), see `simd::avx512::dots`). Its own features, so that LLVM inlines it into the
/// `avx2-vnni` entry point, which has them.
///
/// # Safety
/// The CPU must have AVX2 and AVX-VNNI.
#[target_feature(enable = "avx2,avxvnni")]
#[inline]
unsafe fn dot_add8_vnni(acc: __m256i, a: __m256i, b: __m256i) -> __m256i {
    let mut sum = acc;
    // SAFETY: the VEX-encoded `vpdpwssd` on ymm registers is AVX-VNNI, which the caller
    // guarantees; the asm touches no memory, stack or flags.
    unsafe {
        core::arch::asm!(
            "{{vex}} vpdpwssd {sum}, {a}, {b}",
            sum = inout(ymm_reg) sum,
            a = in(ymm_reg) a,
            b = in(ymm_reg) b,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    sum
}

impl<const VNNI: bool> PairVec for Pairs<VNNI> {
    type Doubles = Doubles;
    type Part = Ymm<VNNI>;
    const PARTS: usize = 2;
    const DOT_FUSED: bool = VNNI;
    #[inline(always)]
    fn load_part(row: &PairRow, part: usize) -> Ymm<VNNI> {
        // Part 0 or 1 of a 64-byte aligned row: an aligned 32-byte load.
        debug_assert!(part < 2);
        Ymm(unsafe { _mm256_load_si256(row.0.as_ptr().cast::<__m256i>().add(part & 1)) })
    }
    #[inline(always)]
    fn part(self, part: usize) -> Ymm<VNNI> {
        Ymm(self.0[part])
    }
    #[inline(always)]
    fn with_part(mut self, part: usize, value: Ymm<VNNI>) -> Self {
        self.0[part] = value.0;
        self
    }
    #[inline(always)]
    fn zero() -> Self {
        let z = unsafe { _mm256_setzero_si256() };
        Self([z, z])
    }
    #[inline(always)]
    fn splat(v: i32) -> Self {
        let s = unsafe { _mm256_set1_epi32(v) };
        Self([s, s])
    }
    #[inline(always)]
    fn load(row: &PairRow) -> Self {
        // 64 bytes, 64-byte aligned: two aligned 32-byte loads.
        let p = row.0.as_ptr().cast::<__m256i>();
        unsafe { Self([_mm256_load_si256(p), _mm256_load_si256(p.add(1))]) }
    }
    #[inline(always)]
    fn store(self, row: &mut PairRow) {
        let p = row.0.as_mut_ptr().cast::<__m256i>();
        unsafe {
            _mm256_store_si256(p, self.0[0]);
            _mm256_store_si256(p.add(1), self.0[1]);
        }
    }
    #[inline(always)]
    fn dot_add(self, a: Self, b: Self) -> Self {
        Self([dot_add8::<VNNI>(self.0[0], a.0[0], b.0[0]), dot_add8::<VNNI>(self.0[1], a.0[1], b.0[1])])
    }
    #[inline(always)]
    fn swap_words(self) -> Self {
        // One byte shuffle per register (AVX2 has no 32-bit rotation).
        let order = unsafe {
            _mm256_set_epi8(
                13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, 2, 13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0,
                3, 2,
            )
        };
        let order = Self([order, order]);
        each!(Self, [0, 1], _mm256_shuffle_epi8(self, order))
    }
    #[inline(always)]
    fn between(a: Self, b: Self) -> Self {
        let (high, low) =
            (each!(Self, [0, 1], _mm256_srli_epi32::<16>(a)), each!(Self, [0, 1], _mm256_slli_epi32::<16>(b)));
        each!(Self, [0, 1], _mm256_or_si256(high, low))
    }
    #[inline(always)]
    fn add_words(self, other: Self) -> Self {
        each!(Self, [0, 1], _mm256_add_epi16(self, other))
    }
    #[inline(always)]
    fn sub_words(self, other: Self) -> Self {
        each!(Self, [0, 1], _mm256_sub_epi16(self, other))
    }
    #[inline(always)]
    fn low_word_only(self) -> Self {
        // Blend with zero: no mask constant to load.
        each!(Self, [0, 1], _mm256_blend_epi16::<0b1010_1010>(self, Self::zero()))
    }
    #[inline(always)]
    fn low_word_value(self) -> Self {
        let shifted = each!(Self, [0, 1], _mm256_slli_epi32::<16>(self));
        each!(Self, [0, 1], _mm256_srai_epi32::<16>(shifted))
    }
    #[inline(always)]
    fn pack(lo: Self, hi: Self) -> Self {
        let high = each!(Self, [0, 1], _mm256_slli_epi32::<16>(hi));
        each!(Self, [0, 1], _mm256_blend_epi16::<0b1010_1010>(lo, high))
    }
    #[inline(always)]
    fn sum_lanes(self) -> i32 {
        unsafe {
            let v = _mm256_add_epi32(self.0[0], self.0[1]);
            let q = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
            let q = _mm_add_epi32(q, _mm_shuffle_epi32::<0b01_00_11_10>(q));
            _mm_cvtsi128_si32(_mm_add_epi32(q, _mm_shuffle_epi32::<0b00_00_00_01>(q)))
        }
    }
    #[inline(always)]
    fn sum_words(self) -> i32 {
        unsafe {
            let v = _mm256_add_epi16(self.0[0], self.0[1]);
            let q = _mm_add_epi16(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
            let q = _mm_add_epi16(q, _mm_shuffle_epi32::<0b01_00_11_10>(q));
            _mm_cvtsi128_si32(_mm_add_epi16(q, _mm_shuffle_epi32::<0b00_00_00_01>(q)))
        }
    }
    #[inline(always)]
    fn to_doubles(self) -> Doubles {
        unsafe {
            let [a, b] = self.0;
            Doubles([
                _mm256_cvtepi32_pd(_mm256_castsi256_si128(a)),
                _mm256_cvtepi32_pd(_mm256_extracti128_si256::<1>(a)),
                _mm256_cvtepi32_pd(_mm256_castsi256_si128(b)),
                _mm256_cvtepi32_pd(_mm256_extracti128_si256::<1>(b)),
            ])
        }
    }
    #[inline(always)]
    fn from_doubles(d: Doubles) -> Self {
        unsafe {
            let q = [
                _mm256_cvtpd_epi32(d.0[0]),
                _mm256_cvtpd_epi32(d.0[1]),
                _mm256_cvtpd_epi32(d.0[2]),
                _mm256_cvtpd_epi32(d.0[3]),
            ];
            Self([_mm256_set_m128i(q[1], q[0]), _mm256_set_m128i(q[3], q[2])])
        }
    }
}

/// Eight `i32` lanes: one register of [`Pairs`].
#[derive(Clone, Copy, Debug)]
pub struct Ymm<const VNNI: bool>(__m256i);

impl<const VNNI: bool> PairPart for Ymm<VNNI> {
    const WORD_BLEND: bool = true;
    #[inline(always)]
    fn zero() -> Self {
        Self(unsafe { _mm256_setzero_si256() })
    }
    #[inline(always)]
    fn dot_add(self, a: Self, b: Self) -> Self {
        Self(dot_add8::<VNNI>(self.0, a.0, b.0))
    }
    #[inline(always)]
    fn swap_words(self) -> Self {
        Self(unsafe {
            _mm256_shuffle_epi8(
                self.0,
                _mm256_set_epi8(
                    13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, 2, 13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1,
                    0, 3, 2,
                ),
            )
        })
    }
    #[inline(always)]
    fn between(a: Self, b: Self) -> Self {
        Self(unsafe { _mm256_or_si256(_mm256_srli_epi32::<16>(a.0), _mm256_slli_epi32::<16>(b.0)) })
    }
    #[inline(always)]
    fn swapped_between(a: Self, b: Self) -> Self {
        // The even words (each lane's low word) from b, the odd ones from a: one vpblendw.
        Self(unsafe { _mm256_blend_epi16::<0b0101_0101>(a.0, b.0) })
    }
    #[inline(always)]
    fn add_words(self, other: Self) -> Self {
        Self(unsafe { _mm256_add_epi16(self.0, other.0) })
    }
    crate::simd::dots::unpaired_as_paired!();
    /// With AVX-VNNI, `sum + vpdpwssd(vpmaddwd(a0, b0), a1, b1)`: the running sum waits
    /// on one `vpaddd` per two terms instead of two `vpdpwssd` in a row (5 cycles each on
    /// Intel's cores with AVX-VNNI), and it is still one instruction fewer than two
    /// `vpmaddwd` + `vpaddd`. The sum wraps modulo `2^32` either way, so the result is
    /// the same.
    #[inline(always)]
    fn unpaired_dot_add2(sum: Self, (a0, b0): (Self, Self), (a1, b1): (Self, Self)) -> Self {
        if VNNI {
            let both = dot_add8::<VNNI>(unsafe { _mm256_madd_epi16(a0.0, b0.0) }, a1.0, b1.0);
            Self(unsafe { _mm256_add_epi32(sum.0, both) })
        } else {
            sum.dot_add(a0, b0).dot_add(a1, b1)
        }
    }
}

/// Sixteen `f64` lanes in four registers.
#[derive(Clone, Copy, Debug)]
pub struct Doubles([__m256d; 4]);

impl Doubles {
    #[inline(always)]
    fn add_lanes(self, other: Self) -> Self {
        each!(Self, [0, 1, 2, 3], _mm256_add_pd(self, other))
    }
    #[inline(always)]
    fn sub_lanes(self, other: Self) -> Self {
        each!(Self, [0, 1, 2, 3], _mm256_sub_pd(self, other))
    }
    #[inline(always)]
    fn mul_lanes(self, other: Self) -> Self {
        each!(Self, [0, 1, 2, 3], _mm256_mul_pd(self, other))
    }
}

lane_operators!(Doubles: Add add add_lanes, Sub sub sub_lanes, Mul mul mul_lanes);

impl DoubleVec for Doubles {
    type Part = DoubleYmm;
    const PARTS: usize = 4;
    const FMA: bool = true;
    #[inline(always)]
    fn load_part(row: &DoubleRow, part: usize) -> DoubleYmm {
        // Part 0..=3 of a 64-byte aligned row: an aligned 32-byte load.
        debug_assert!(part < 4);
        DoubleYmm(unsafe { _mm256_load_pd(row.0.as_ptr().add(4 * (part & 3))) })
    }
    #[inline(always)]
    fn with_part(mut self, part: usize, value: DoubleYmm) -> Self {
        self.0[part] = value.0;
        self
    }
    #[inline(always)]
    fn splat(v: f64) -> Self {
        Self([unsafe { _mm256_set1_pd(v) }; 4])
    }
    #[inline(always)]
    fn mul_add(self, a: Self, b: Self) -> Self {
        each!(Self, [0, 1, 2, 3], _mm256_fmadd_pd(self, a, b))
    }
    #[inline(always)]
    fn neg_mul_add(self, a: Self, b: Self) -> Self {
        each!(Self, [0, 1, 2, 3], _mm256_fnmadd_pd(self, a, b))
    }
    #[inline(always)]
    fn round(self) -> Self {
        // 0x08: round to nearest (even), exceptions suppressed.
        each!(Self, [0, 1, 2, 3], _mm256_round_pd::<0x08>(self))
    }
    #[inline(always)]
    fn sum(self) -> f64 {
        unsafe {
            let v = _mm256_add_pd(_mm256_add_pd(self.0[0], self.0[1]), _mm256_add_pd(self.0[2], self.0[3]));
            let h = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd::<1>(v));
            _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)))
        }
    }
    #[inline(always)]
    fn to_array(self) -> [f64; PAIR_LANES] {
        let mut out = [0.0; PAIR_LANES];
        // 16 writable f64s: four unaligned stores of four.
        unsafe {
            _mm256_storeu_pd(out.as_mut_ptr(), self.0[0]);
            _mm256_storeu_pd(out.as_mut_ptr().add(4), self.0[1]);
            _mm256_storeu_pd(out.as_mut_ptr().add(8), self.0[2]);
            _mm256_storeu_pd(out.as_mut_ptr().add(12), self.0[3]);
        }
        out
    }
    #[inline(always)]
    fn from_array(values: [f64; PAIR_LANES]) -> Self {
        let p = values.as_ptr();
        unsafe {
            Self([_mm256_loadu_pd(p), _mm256_loadu_pd(p.add(4)), _mm256_loadu_pd(p.add(8)), _mm256_loadu_pd(p.add(12))])
        }
    }
}

/// Four `f64` lanes: one register of [`Doubles`].
#[derive(Clone, Copy, Debug)]
pub struct DoubleYmm(__m256d);

impl DoublePart for DoubleYmm {
    #[inline(always)]
    fn zero() -> Self {
        Self(unsafe { _mm256_setzero_pd() })
    }
    #[inline(always)]
    fn mul_add(self, a: Self, b: Self) -> Self {
        Self(unsafe { _mm256_fmadd_pd(self.0, a.0, b.0) })
    }
}

/// Eight `u64` lanes in two registers.
#[derive(Clone, Copy, Debug)]
pub struct Ring([__m256i; 2]);

impl RingVec for Ring {
    #[inline(always)]
    fn zero() -> Self {
        Self([unsafe { _mm256_setzero_si256() }; 2])
    }
    #[inline(always)]
    fn splat(v: u64) -> Self {
        Self([unsafe { _mm256_set1_epi64x(v as i64) }; 2])
    }
    #[inline(always)]
    fn load(v: &Lanes) -> Self {
        // 64 bytes, 64-byte aligned: two aligned 32-byte loads.
        let p = v.0.as_ptr().cast::<__m256i>();
        unsafe { Self([_mm256_load_si256(p), _mm256_load_si256(p.add(1))]) }
    }
    #[inline(always)]
    fn store(self) -> Lanes {
        let mut out = Lanes::ZERO;
        let p = out.0.as_mut_ptr().cast::<__m256i>();
        unsafe {
            _mm256_store_si256(p, self.0[0]);
            _mm256_store_si256(p.add(1), self.0[1]);
        }
        out
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        each!(Self, [0, 1], _mm256_add_epi64(self, other))
    }
    #[inline(always)]
    fn sub(self, other: Self) -> Self {
        each!(Self, [0, 1], _mm256_sub_epi64(self, other))
    }
    #[inline(always)]
    fn min(self, other: Self) -> Self {
        // Unsigned a > b as signed (a ^ 2^63) > (b ^ 2^63); take b where it holds.
        let bias = Self::splat(1 << 63);
        let (a, b) =
            (each!(Self, [0, 1], _mm256_xor_si256(self, bias)), each!(Self, [0, 1], _mm256_xor_si256(other, bias)));
        let greater = each!(Self, [0, 1], _mm256_cmpgt_epi64(a, b));
        each!(Self, [0, 1], _mm256_blendv_epi8(self, other, greater))
    }
    #[inline(always)]
    fn mul_low32(self, other: Self) -> Self {
        each!(Self, [0, 1], _mm256_mul_epu32(self, other))
    }
    #[inline(always)]
    fn shr32(self) -> Self {
        each!(Self, [0, 1], _mm256_srli_epi64::<32>(self))
    }
    #[inline(always)]
    fn and(self, other: Self) -> Self {
        each!(Self, [0, 1], _mm256_and_si256(self, other))
    }
    #[inline(always)]
    fn mul_wrapping(self, other: Self) -> Self {
        // a·b mod 2^64 = lo·lo + ((hi_a·lo_b + lo_a·hi_b) << 32): three vpmuludq.
        let low = self.mul_low32(other);
        let cross = self.shr32().mul_low32(other).add(self.mul_low32(other.shr32()));
        let cross = each!(Self, [0, 1], _mm256_slli_epi64::<32>(cross));
        low.add(cross)
    }
    #[inline(always)]
    fn or(self, other: Self) -> Self {
        each!(Self, [0, 1], _mm256_or_si256(self, other))
    }
    #[inline(always)]
    fn shl_lanes(self, counts: Self) -> Self {
        each!(Self, [0, 1], _mm256_sllv_epi64(self, counts))
    }
    #[inline(always)]
    fn widen_u16(v: &[u16; RING_LANES]) -> Self {
        // SAFETY: `v` is 16 readable bytes: two loads of eight.
        unsafe {
            let p = v.as_ptr();
            Self([
                _mm256_cvtepu16_epi64(_mm_loadl_epi64(p.cast())),
                _mm256_cvtepu16_epi64(_mm_loadl_epi64(p.add(4).cast())),
            ])
        }
    }
}
