//! The words family on the NEON backend: the full window in four `uint64x2_t` (eight
//! words, seven exact), the tail window in two.
//!
//! NEON has no funnel shift; a shift by a count in a register is `ushl`, which shifts
//! left for a positive count and right for a negative one, and gives zero once the count
//! reaches 64 either way, which is what a shift by 0 needs of the neighbour lane. So
//! `(v >> s) | (up << (64 - s))` is `ushl` by `-s` and by `64 - s` and an OR, and
//! `(v << s) | (down >> (64 - s))` is `ushl` by `s` and by `s - 64`. The neighbour
//! lanes are one `ext` per register (`vextq_u64::<1>` of a register and the next is
//! `[a1, b0]`). The lower neighbours of `load_funnel_up_ones` are left to the trait's
//! default: loaded one word before instead, as on AVX2, they took four `ldur` and an
//! `ins` (the ones in lane 0) for the four `ext`, and a spill, two instructions more.
//!
//! The full lanes are `cmeq` against all ones, narrowed to 16 bits a lane by three
//! `uzp1` (one for the tail window, to 32 bits), ANDed with the lane bits and summed by
//! `addv`: ten instructions with the move to a general register, where ANDing each
//! compare with its lane bits, ORing the four and `vaddvq_u64` would take thirteen. A
//! lane is read back through a store of the window (two `stp`) and one `ldr` with the
//! index scaled: NEON's lane moves (`vgetq_lane_u64`) take a constant lane, so a variable
//! one would be eight `umov` and a chain of selects.
//!
//! `wide::u64x4` is two `uint64x2_t` on aarch64, and LLVM compiles the portable windows'
//! funnels to the same `ushl` and `ext`; what the hand-written types change is the mask
//! and the lane index. The per-pair loop of `keyscan_diagonal` (the stones kernel at
//! L = 1000; release build, `aarch64-linux-gnu-objdump -d`), a static instruction count
//! and not a speed: 144 instructions per full window against 164 with the portable types,
//! 95 against 101 per tail window, with about as many vector instructions (84 against 84,
//! 44 against 42); the mask of the full lanes is 10 instructions against 24 (three compares, then seven
//! moves to general registers and scalar shifts, ANDs and ORs), the lane index 2 against 5.
//!
//! This code is tested under qemu-user (the lane-by-lane checks of `simd::words` and the
//! keyscan kernels against the portable backend) and has not been timed: there is no ARM
//! hardware here.

use crate::simd::Neon;
use crate::simd::words::{Block, Window, Words, assert_in_bounds};
use core::arch::aarch64::*;

/// `2 K` words in `K` registers: word `2 k + j` in lane `j` of register `k`.
#[derive(Clone, Copy, Debug)]
pub struct Pairs<const K: usize>([uint64x2_t; K]);

/// The full window: eight words, seven exact.
pub type Full = Pairs<4>;
/// The tail window: four words, three exact.
pub type Tail = Pairs<2>;

impl Words for Neon {
    type Full = Full;
    type Tail = Tail;
}

// SAFETY (every intrinsic below): a window exists only after one of its `unsafe` loads,
// whose caller guarantees that the CPU has this backend's instruction set (NEON, which
// every aarch64 target of this crate has besides; `crate::simd::words`); apart from the
// loads and the store of `lane`, the intrinsics touch registers only, and each load reads
// bytes that its caller guarantees lie inside the slice, checked in debug builds.

/// The two counts of one funnel for `ushl`: the lane's own and its neighbour's.
#[derive(Clone, Copy)]
struct Counts {
    own: int64x2_t,
    neighbour: int64x2_t,
}

impl Counts {
    /// `v >> s` and `up << (64 - s)`, `s < 64`: the neighbour's count is 64 for `s = 0`,
    /// which `ushl` turns into zero.
    #[inline(always)]
    fn right(s: u32) -> Self {
        let s = s as i64;
        // SAFETY: see above.
        unsafe { Counts { own: vdupq_n_s64(-s), neighbour: vdupq_n_s64(64 - s) } }
    }

    /// `v << s` and `down >> (64 - s)`, `s < 64`: the neighbour's count is -64 for
    /// `s = 0`, which `ushl` turns into zero.
    #[inline(always)]
    fn left(s: u32) -> Self {
        let s = s as i64;
        // SAFETY: see above.
        unsafe { Counts { own: vdupq_n_s64(s), neighbour: vdupq_n_s64(s - 64) } }
    }
}

/// `v` and `neighbour`, each shifted by its count, ORed.
#[inline(always)]
fn funnel(v: uint64x2_t, neighbour: uint64x2_t, counts: Counts) -> uint64x2_t {
    // SAFETY: see above.
    unsafe { vorrq_u64(vshlq_u64(v, counts.own), vshlq_u64(neighbour, counts.neighbour)) }
}

/// `[a1, b0]`: the upper neighbours of `a`'s lanes, or the lower ones of `b`'s.
#[inline(always)]
fn between(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    // SAFETY: see above.
    unsafe { vextq_u64::<1>(a, b) }
}

/// All ones in both lanes.
#[inline(always)]
fn ones() -> uint64x2_t {
    // SAFETY: see above.
    unsafe { vdupq_n_u64(u64::MAX) }
}

impl<const K: usize> Pairs<K> {
    #[inline(always)]
    fn map2(a: Self, b: Self, f: impl Fn(uint64x2_t, uint64x2_t) -> uint64x2_t) -> Self {
        Self(std::array::from_fn(|k| f(a.0[k], b.0[k])))
    }

    /// Lane `i` holds lane `i + 1` (the top lane holds lane `2 K - 2`: it is inexact
    /// anyway).
    #[inline(always)]
    fn upper_neighbours(self) -> Self {
        let r = self.0;
        Self(std::array::from_fn(|k| between(r[k], r[(k + 1).min(K - 1)])))
    }

    /// Lane `i` holds lane `i - 1`, and lane 0 all ones.
    #[inline(always)]
    fn lower_neighbours_ones(self) -> Self {
        let r = self.0;
        Self(std::array::from_fn(|k| between(if k == 0 { ones() } else { r[k - 1] }, r[k])))
    }

    /// Bit `i` set when lane `i` is all ones.
    ///
    /// The compares are narrowed to 16 bits a lane, 32 in the tail window (`uzp1` keeps
    /// the low half of each lane of two registers), so that one AND and one `addv` make
    /// the mask of all the lanes.
    #[inline(always)]
    fn full_lanes(self) -> u32 {
        const { assert!(K == 2 || K == 4, "a window of four or eight words") };
        // SAFETY: see above; the loads read the four or eight values of a local array.
        unsafe {
            let full = self.0.map(|v| vreinterpretq_u32_u64(vceqq_u64(v, ones())));
            match *full.as_slice() {
                [a, b] => {
                    let bits = vld1q_u32([1, 2, 4, 8].as_ptr());
                    vaddvq_u32(vandq_u32(vuzp1q_u32(a, b), bits))
                }
                [a, b, c, d] => {
                    let low = vreinterpretq_u16_u32(vuzp1q_u32(a, b));
                    let high = vreinterpretq_u16_u32(vuzp1q_u32(c, d));
                    let bits = vld1q_u16([1, 2, 4, 8, 16, 32, 64, 128].as_ptr());
                    u32::from(vaddvq_u16(vandq_u16(vuzp1q_u16(low, high), bits)))
                }
                _ => unreachable!(),
            }
        }
    }
}

impl<const K: usize> Window for Pairs<K> {
    const LANES: usize = 2 * K;

    #[inline(always)]
    unsafe fn load_bytes(words: &[u64], at: usize) -> Self {
        assert_in_bounds(words, at, 8 * Self::LANES);
        let p = words.as_ptr().cast::<u8>();
        // SAFETY: see above; bytes `at .. at + 16 K` lie inside `words`. Loaded as bytes,
        // whose pointer type asks no alignment, for a byte index that need not be a
        // multiple of 8 (an `ldr q` either way).
        Self(std::array::from_fn(|k| unsafe { vreinterpretq_u64_u8(vld1q_u8(p.add(at + 16 * k))) }))
    }

    #[inline(always)]
    unsafe fn load_words(words: &[u64], at: usize) -> Self {
        assert_in_bounds(words, 8 * at, 8 * Self::LANES);
        let p = words.as_ptr();
        // SAFETY: see above; words `at .. at + 2 K` lie inside `words`.
        Self(std::array::from_fn(|k| unsafe { vld1q_u64(p.add(at + 2 * k)) }))
    }

    #[inline(always)]
    fn or3(a: Self, b: Self, c: Self) -> Self {
        Self::or(Self::or(a, b), c)
    }

    #[inline(always)]
    fn or(a: Self, b: Self) -> Self {
        // SAFETY: see above.
        Self::map2(a, b, |a, b| unsafe { vorrq_u64(a, b) })
    }

    #[inline(always)]
    fn funnel_down(self, bits: isize) -> Self {
        let counts = Counts::right((bits & 7) as u32);
        Self::map2(self, self.upper_neighbours(), |v, up| funnel(v, up, counts))
    }

    #[inline(always)]
    fn funnel_up_ones(self, bits: u32) -> Self {
        let counts = Counts::left(bits & 63);
        Self::map2(self, self.lower_neighbours_ones(), |v, down| funnel(v, down, counts))
    }

    #[inline(always)]
    fn open_lanes(self) -> u32 {
        !self.full_lanes() & ((1 << (Self::LANES - 1)) - 1)
    }

    #[inline(always)]
    fn lane(self, lane: u32) -> u64 {
        let mut words = [[0u64; 2]; K];
        for (pair, &v) in words.iter_mut().zip(&self.0) {
            // SAFETY: see above; the store writes the two words of `pair`.
            unsafe { vst1q_u64(pair.as_mut_ptr(), v) };
        }
        words.as_flattened()[lane as usize % Self::LANES]
    }
}

impl<const K: usize> Block for Pairs<K> {
    #[inline(always)]
    fn funnel_pair(lo: Self, hi: Self, shift: u32) -> Self {
        let counts = Counts::right(shift);
        Self::map2(lo, hi, |lo, hi| funnel(lo, hi, counts))
    }

    #[inline(always)]
    fn open_words(self) -> u32 {
        !self.full_lanes() & ((1 << Self::LANES) - 1)
    }

    #[inline(always)]
    fn or_first_word(mut self, bits: u64) -> Self {
        // SAFETY: see above.
        self.0[0] = unsafe { vorrq_u64(self.0[0], vsetq_lane_u64::<0>(bits, vdupq_n_u64(0))) };
        self
    }
}
