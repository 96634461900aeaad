//! Modular arithmetic in SIMD lanes: sixteen residues modulo one odd prime `p < 2^31`
//! held in a [`u32x16`], with the same results as the scalar forms lane by lane.
//!
//! | helper | inputs | output | scalar twin |
//! |---|---|---|---|
//! | [`ModLanes::add`], [`ModLanes::sub`], [`ModLanes::double`] | `[0, p)` | `[0, p)` | [`add_mod`](super::add_mod), [`sub_mod`](super::sub_mod) |
//! | [`ModLanes::half`] | `[0, p)` | `[0, p)`, `a·2^-1` | `a·(p+1)/2 mod p` |
//! | [`ModLanes::mul`] | `a·b < p·2^32` (e.g. both below `p`) | `[0, p)`, `a·b·2^-32` | [`Montgomery32::mul`] |
//! | [`ModLanes::pow`] | Montgomery forms in `[0, p)` | form of `x^e` in `[0, p)` | [`Montgomery32::pow`] |
//! | [`ModLanes::mul_lazy`], [`ModLanes::pow_lazy`] | below `2p`, `p < 2^30` | below `2p` | the same, mod `p` |
//!
//! Every result is fully reduced, so no caller has to track a lazy range. The branch-free
//! corrections all use one trick: for a wrapped `u32` value `r` that represents a number
//! in `(-p, p)`, `min(r, r + p)` is its residue (a negative number wraps above
//! `2^32 - p > p`, and adding `p` wraps it back below `p`), and for a sum `s < 2p`,
//! `min(s, s - p)` is its residue. Both need `2p <= 2^32`, hence `p < 2^31`.
//!
//! Montgomery products use `R = 2^32` and the *subtractive* REDC: with `t = a·b` and
//! `q = t·p^-1 mod R`, the low halves of `t` and `q·p` are equal, so
//! `(t - q·p)/R = hi(t) - hi(q·p)`, which lies in `(-p, p)` when `t < p·R`. That needs
//! only the high halves of two 32×32-bit products, and one `min` to finish.
//!
//! With AVX-512F the product uses `vpmuludq` directly (six per sixteen lanes); other
//! builds use `wide`'s portable high/low products, which compute the same values.
//!
//! The lazy product, for `p < 2^30` (the Project Euler prime is one), is the *additive*
//! REDC `(t + m·p)/R` with `m = -t·p^-1 mod R`: for inputs below `2p`, `t < 4p^2 <= p·R`,
//! so the result is below `2p` with no correction at all, one operation fewer per vector
//! than the subtractive form and two fewer than the reduced one.

use super::Montgomery32;
use wide::u32x16;

/// Lanes per vector.
pub const LANES: usize = 16;

/// The constants of one modulus, splatted across the lanes.
#[derive(Clone, Copy, Debug)]
pub struct ModLanes {
    p: u32x16,
    /// `p^-1 mod 2^32` (the subtractive REDC uses `+p^-1`, not `-p^-1`).
    p_inv: u32x16,
    /// `-p^-1 mod 2^32`, for the additive (lazy) REDC.
    neg_p_inv: u32x16,
    /// `R^2 mod p`, to move residues into Montgomery form with one product.
    r2: u32x16,
    scalar: Montgomery32,
}

impl ModLanes {
    /// Constants for `p`, or `None` unless `p` is odd with `3 <= p < 2^31`.
    pub fn new(p: u32) -> Option<Self> {
        let scalar = Montgomery32::new(p as u64)?;
        let r2 = scalar.to_form(scalar.one());
        Some(Self {
            p: u32x16::splat(p),
            p_inv: u32x16::splat(scalar.neg_p_inv().wrapping_neg()),
            neg_p_inv: u32x16::splat(scalar.neg_p_inv()),
            r2: u32x16::splat(r2),
            scalar,
        })
    }

    /// The modulus.
    #[inline(always)]
    pub fn modulus(&self) -> u32 {
        self.scalar.modulus()
    }

    /// The scalar Montgomery constants of the same modulus.
    #[inline(always)]
    pub fn scalar(&self) -> &Montgomery32 {
        &self.scalar
    }

    /// `p` in every lane.
    #[inline(always)]
    pub fn p(&self) -> u32x16 {
        self.p
    }

    /// `(a + b) mod p` for `a, b < p`.
    #[inline(always)]
    pub fn add(&self, a: u32x16, b: u32x16) -> u32x16 {
        // a + b < 2p <= 2^32: no wrap; min picks s - p exactly when s >= p.
        let s = a + b;
        s.min(s - self.p)
    }

    /// `(a - b) mod p` for `a, b < p`.
    #[inline(always)]
    pub fn sub(&self, a: u32x16, b: u32x16) -> u32x16 {
        // a - b lies in (-p, p); when negative it wraps above 2^32 - p and d + p wraps back.
        let d = a - b;
        d.min(d + self.p)
    }

    /// `2a mod p` for `a < p`.
    #[inline(always)]
    pub fn double(&self, a: u32x16) -> u32x16 {
        self.add(a, a)
    }

    /// `a / 2 mod p` for `a < p`: `a/2` when `a` is even, `(a + p)/2` when odd (`p` odd,
    /// so the sum is even, and below `2p <= 2^32`).
    #[inline(always)]
    pub fn half(&self, a: u32x16) -> u32x16 {
        let one = u32x16::ONE;
        let odd = (a & one).simd_eq(one);
        (a + (self.p & odd)) >> 1
    }

    /// Montgomery product `a·b·2^-32 mod p` in `[0, p)`, for `a·b < p·2^32`.
    #[inline(always)]
    pub fn mul(&self, a: u32x16, b: u32x16) -> u32x16 {
        let r = self.redc_difference(a, b);
        r.min(r + self.p)
    }

    /// Whether the lazy products apply: `p < 2^30`.
    #[inline(always)]
    pub fn lazy_ok(&self) -> bool {
        self.modulus() < 1 << 30
    }

    /// Lazy Montgomery product: a value below `2p` congruent to `a·b·2^-32`, for `a, b < 2p`
    /// and `p < 2^30` (see [`ModLanes::lazy_ok`]).
    #[inline(always)]
    pub fn mul_lazy(&self, a: u32x16, b: u32x16) -> u32x16 {
        debug_assert!(self.lazy_ok());
        redc_additive(a, b, self.p, self.neg_p_inv)
    }

    /// `x mod p` for lanes below `2p`.
    #[inline(always)]
    pub fn reduce_2p(&self, x: u32x16) -> u32x16 {
        x.min(x - self.p)
    }

    /// [`ModLanes::pow`] with lazy products (`p < 2^30`): forms below `2p` in, a form
    /// below `2p` out (not reduced).
    #[inline(always)]
    pub fn pow_lazy<const G: usize>(&self, x: [u32x16; G], e: u64) -> [u32x16; G] {
        self.square_and_multiply(x, e, |a, b| self.mul_lazy(a, b))
    }

    /// `hi(a·b) - hi(q·p)` with `q = a·b·p^-1 mod 2^32`, per lane, wrapping: a number in
    /// `(-p, p)` congruent to `a·b·2^-32`.
    #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
    #[inline(always)]
    fn redc_difference(&self, a: u32x16, b: u32x16) -> u32x16 {
        // SAFETY: this item is compiled only when the build enables avx512f (the cfg
        // above), so the instructions exist on every CPU the binary may run on.
        unsafe { redc_difference_avx512(a, b, self.p, self.p_inv) }
    }

    /// The portable form of the same difference, through `wide`'s high and low products.
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
    #[inline(always)]
    fn redc_difference(&self, a: u32x16, b: u32x16) -> u32x16 {
        let t_low = a * b;
        let t_high = a.mul_keep_high(b);
        let q = t_low * self.p_inv;
        t_high - q.mul_keep_high(self.p)
    }

    /// The Montgomery form `a·2^32 mod p` of residues `a < p`.
    #[inline(always)]
    pub fn to_form(&self, a: u32x16) -> u32x16 {
        self.mul(a, self.r2)
    }

    /// The residues that Montgomery forms `a < p` stand for.
    #[inline(always)]
    pub fn from_form(&self, a: u32x16) -> u32x16 {
        self.mul(a, u32x16::ONE)
    }

    /// `x^e` for `G` vectors of Montgomery forms at once, as forms: one left-to-right
    /// square-and-multiply over the bits of `e` drives every lane, and the `G`
    /// independent vectors give the processor independent products to overlap.
    #[inline(always)]
    pub fn pow<const G: usize>(&self, x: [u32x16; G], e: u64) -> [u32x16; G] {
        self.square_and_multiply(x, e, |a, b| self.mul(a, b))
    }

    /// The exponent loop shared by [`ModLanes::pow`] and [`ModLanes::pow_lazy`], with
    /// their product (inlined: the closure is a direct call).
    #[inline(always)]
    fn square_and_multiply<const G: usize>(
        &self,
        x: [u32x16; G],
        e: u64,
        mul: impl Fn(u32x16, u32x16) -> u32x16,
    ) -> [u32x16; G] {
        if e == 0 {
            return [u32x16::splat(self.scalar.one()); G];
        }
        let mut acc = x;
        // The top bit is consumed by starting from x itself.
        for bit in (0..63 - e.leading_zeros()).rev() {
            for a in acc.iter_mut() {
                *a = mul(*a, *a);
            }
            if e >> bit & 1 == 1 {
                for (a, &b) in acc.iter_mut().zip(x.iter()) {
                    *a = mul(*a, b);
                }
            }
        }
        acc
    }

    /// `Σ lanes mod p` (lanes below `p`: sixteen of them sum below `2^35`, inside `u64`).
    #[inline]
    pub fn sum(&self, a: u32x16) -> u32 {
        let total: u64 = a.to_array().iter().map(|&x| x as u64).sum();
        (total % self.modulus() as u64) as u32
    }
}

/// A zeroed buffer of `u32` whose first element sits on a 64-byte boundary (a cache line,
/// and one AVX-512 vector), so that whole-line and streaming stores apply to it.
///
/// It is a `Vec<u32>` with up to 15 spare elements, used from its first aligned element.
/// The zeroed allocation itself is lazy (`calloc`-style), so no page is touched twice.
#[derive(Clone, Debug)]
pub struct AlignedBuffer {
    storage: Vec<u32>,
    start: usize,
    len: usize,
}

impl AlignedBuffer {
    /// `len` zeros.
    pub fn zeroed(len: usize) -> Self {
        let mut storage = vec![0u32; len + LANES - 1];
        advise_huge_pages(&mut storage);
        let start = storage.as_ptr().addr().wrapping_neg() % 64 / 4;
        Self { storage, start, len }
    }

    /// Bytes [`AlignedBuffer::zeroed`] allocates for `len` values.
    pub const fn bytes_for(len: u64) -> u64 {
        4 * (len + LANES as u64 - 1)
    }

    /// The values.
    pub fn as_slice(&self) -> &[u32] {
        &self.storage[self.start..self.start + self.len]
    }

    /// The values, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [u32] {
        &mut self.storage[self.start..self.start + self.len]
    }
}

/// Asks Linux to back `data` with 2 MiB pages where it can (transparent huge pages in
/// `madvise` mode, as on this machine), before anything touches it.
///
/// Why: a fresh zeroed allocation is mapped lazily, one page fault per page on first
/// touch. For the 64 MiB transform buffer that is 16384 faults with 4 KiB pages, which
/// measured 58 ms here (a virtual machine makes faults dear), against about 25 ms for
/// the frequency stage that touches it; with 2 MiB pages it is 32 faults. Only whole
/// 2 MiB-aligned pages inside the range are affected; failure is harmless.
fn advise_huge_pages(data: &mut [u32]) {
    const HUGE_PAGE: usize = 2 << 20;
    #[cfg(target_os = "linux")]
    if data.len() * 4 >= 2 * HUGE_PAGE {
        let begin = data.as_ptr().addr().next_multiple_of(HUGE_PAGE);
        let end = (data.as_ptr().addr() + data.len() * 4) / HUGE_PAGE * HUGE_PAGE;
        if end > begin {
            // SAFETY: [begin, end) lies inside `data`, which we own mutably and which nothing
            // has read or written yet; MADV_HUGEPAGE changes only how the kernel backs the
            // range, never its contents, and a failure (e.g. THP disabled) changes nothing.
            unsafe { libc::madvise(begin as *mut libc::c_void, end - begin, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (data, HUGE_PAGE);
}

/// Stores `v` into `dst`, bypassing the caches (a non-temporal store) when `dst` is
/// 64-byte aligned and the build has AVX-512, with an ordinary store otherwise.
///
/// For results written once and read back only after many megabytes of other traffic:
/// an ordinary store first reads the line it writes into (read for ownership), which
/// doubles the memory traffic. Call [`store_fence`] before other threads read `dst`.
#[inline(always)]
pub fn stream_store(dst: &mut [u32; LANES], v: u32x16) {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
    if (dst.as_ptr() as usize).is_multiple_of(64) {
        use core::arch::x86_64::{__m512i, _mm512_stream_si512};
        // SAFETY: `dst` is 64 bytes we borrow mutably and its address is a multiple of 64
        // (checked just above), as the instruction requires; avx512f is enabled for the
        // whole build (the cfg above).
        unsafe { _mm512_stream_si512((dst as *mut [u32; LANES]).cast::<__m512i>(), __m512i::from(v)) };
        return;
    }
    *dst = v.to_array();
}

/// Orders this thread's earlier non-temporal stores before its later stores, so that
/// the data is complete when the scheduler hands it to another thread.
#[inline]
pub fn store_fence() {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
    // SAFETY: sfence has no preconditions (std marks it unsafe only for historic reasons).
    unsafe {
        core::arch::x86_64::_mm_sfence()
    };
}

/// `(a·b + m·p) / 2^32` with `m = -a·b·p^-1 mod 2^32`, per lane: below `2p` when
/// `a·b < p·2^32`, exact (the low halves sum to a multiple of 2^32).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
#[inline(always)]
fn redc_additive(a: u32x16, b: u32x16, p: u32x16, neg_p_inv: u32x16) -> u32x16 {
    // SAFETY: compiled only when the build enables avx512f (the cfg above).
    unsafe { redc_additive_avx512(a, b, p, neg_p_inv) }
}

/// The AVX-512 body of [`redc_additive`]: as [`redc_difference_avx512`], with a 64-bit
/// sum instead of a difference (`t + m·p < 4p^2 + 2^32·p < 2^63` for `p < 2^30`).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
#[target_feature(enable = "avx512f")]
#[inline]
fn redc_additive_avx512(a: u32x16, b: u32x16, p: u32x16, neg_p_inv: u32x16) -> u32x16 {
    use core::arch::x86_64::{__m512i, _mm512_add_epi64, _mm512_mask_blend_epi32, _mm512_mul_epu32, _mm512_srli_epi64};
    let (a, b) = (__m512i::from(a), __m512i::from(b));
    let (p, neg_p_inv) = (__m512i::from(p), __m512i::from(neg_p_inv));
    let t_even = _mm512_mul_epu32(a, b);
    let t_odd = _mm512_mul_epu32(_mm512_srli_epi64::<32>(a), _mm512_srli_epi64::<32>(b));
    let s_even = _mm512_add_epi64(t_even, _mm512_mul_epu32(_mm512_mul_epu32(t_even, neg_p_inv), p));
    let s_odd = _mm512_add_epi64(t_odd, _mm512_mul_epu32(_mm512_mul_epu32(t_odd, neg_p_inv), p));
    u32x16::from(_mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64::<32>(s_even), s_odd))
}

/// The portable form of [`redc_additive`]: `hi(t) + hi(m·p)`, plus the carry out of the
/// low halves, which sum to 0 or 2^32 (1 exactly when `lo(t)` is not 0).
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
#[inline(always)]
fn redc_additive(a: u32x16, b: u32x16, p: u32x16, neg_p_inv: u32x16) -> u32x16 {
    let t_low = a * b;
    let m = t_low * neg_p_inv;
    let carry = !t_low.simd_eq(u32x16::ZERO) & u32x16::ONE;
    a.mul_keep_high(b) + m.mul_keep_high(p) + carry
}

/// The AVX-512 body of [`ModLanes::redc_difference`] (intrinsics are only safe to call
/// inside a function that names the feature).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
#[target_feature(enable = "avx512f")]
#[inline]
fn redc_difference_avx512(a: u32x16, b: u32x16, p: u32x16, p_inv: u32x16) -> u32x16 {
    use core::arch::x86_64::{__m512i, _mm512_mask_blend_epi32, _mm512_mul_epu32, _mm512_srli_epi64, _mm512_sub_epi64};
    let (a, b) = (__m512i::from(a), __m512i::from(b));
    let (p, p_inv) = (__m512i::from(p), __m512i::from(p_inv));
    // vpmuludq multiplies the even 32-bit lanes into 64-bit products; shifting each
    // 64-bit pair right by 32 brings the odd lanes into even position.
    let t_even = _mm512_mul_epu32(a, b);
    let t_odd = _mm512_mul_epu32(_mm512_srli_epi64::<32>(a), _mm512_srli_epi64::<32>(b));
    // Only the low 32 bits of q matter, and vpmuludq reads just those.
    let qp_even = _mm512_mul_epu32(_mm512_mul_epu32(t_even, p_inv), p);
    let qp_odd = _mm512_mul_epu32(_mm512_mul_epu32(t_odd, p_inv), p);
    // The low halves cancel exactly, so each 64-bit difference is (hi(t) - hi(qp))·2^32
    // mod 2^64: its high half is the wanted lane.
    let d_even = _mm512_sub_epi64(t_even, qp_even);
    let d_odd = _mm512_sub_epi64(t_odd, qp_odd);
    u32x16::from(_mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64::<32>(d_even), d_odd))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::{add_mod, mul_mod, sub_mod};
    use crate::kernels::SplitMix64;

    const PRIMES: [u32; 6] = [3, 5, 65_537, 998_244_353, 1_000_000_007, 2_147_483_647];

    /// Edge values then random residues, `16 * rounds` of them.
    fn operands(p: u32, rng: &mut SplitMix64, rounds: usize) -> Vec<u32x16> {
        let edges = [0, 1, 2, p / 2, p - 2, p - 1];
        let mut values: Vec<u32> = edges.iter().map(|&e| e % p).collect();
        values.extend((0..LANES * rounds).map(|_| rng.below(p as u64) as u32));
        values.chunks(LANES).map(|c| u32x16::from(std::array::from_fn::<u32, LANES, _>(|i| c[i % c.len()]))).collect()
    }

    /// Every pairing of edge values with each other, plus random pairs: `(a, b)` vectors.
    fn pairs(p: u32, seed: u64) -> Vec<(u32x16, u32x16)> {
        let mut rng = SplitMix64(seed);
        let edges = [0, 1, 2, p / 2, p - 2, p - 1].map(|e| e % p);
        // 36 edge pairs spread over three vectors, then random ones.
        let all: Vec<(u32, u32)> = edges.iter().flat_map(|&a| edges.iter().map(move |&b| (a, b))).collect();
        let mut out: Vec<(u32x16, u32x16)> = all
            .chunks(LANES)
            .map(|c| {
                let a = std::array::from_fn::<u32, LANES, _>(|i| c[i % c.len()].0);
                let b = std::array::from_fn::<u32, LANES, _>(|i| c[i % c.len()].1);
                (u32x16::from(a), u32x16::from(b))
            })
            .collect();
        let xs = operands(p, &mut rng, 64);
        let ys = operands(p, &mut rng, 64);
        out.extend(xs.into_iter().zip(ys));
        out
    }

    /// Asserts `lanes(a, b)[i] == scalar(a[i], b[i])` for every lane.
    fn lane_by_lane(name: &str, p: u32, lanes: impl Fn(u32x16, u32x16) -> u32x16, scalar: impl Fn(u32, u32) -> u32) {
        for (a, b) in pairs(p, p as u64) {
            let got = lanes(a, b).to_array();
            for (i, (&x, &y)) in a.to_array().iter().zip(&b.to_array()).enumerate() {
                assert_eq!(got[i], scalar(x, y), "{name}: p={p} lane {i}: a={x} b={y}");
            }
        }
    }

    #[test]
    fn add_sub_double_half_match_scalar() {
        for p in PRIMES {
            let m = ModLanes::new(p).unwrap();
            let p64 = p as u64;
            lane_by_lane("add", p, |a, b| m.add(a, b), |a, b| add_mod(a as u64, b as u64, p64) as u32);
            lane_by_lane("sub", p, |a, b| m.sub(a, b), |a, b| sub_mod(a as u64, b as u64, p64) as u32);
            lane_by_lane("double", p, |a, _| m.double(a), |a, _| add_mod(a as u64, a as u64, p64) as u32);
            let inv2 = p64.div_ceil(2);
            lane_by_lane("half", p, |a, _| m.half(a), |a, _| mul_mod(a as u64, inv2, p64) as u32);
        }
    }

    #[test]
    fn montgomery_products_match_scalar() {
        for p in PRIMES {
            let m = ModLanes::new(p).unwrap();
            let s = *m.scalar();
            lane_by_lane("mul", p, |a, b| m.mul(a, b), |a, b| s.mul(a, b));
            lane_by_lane("to_form", p, |a, _| m.to_form(a), |a, _| s.to_form(a));
            lane_by_lane("from_form", p, |a, _| m.from_form(a), |a, _| s.from_form(a));
        }
    }

    #[test]
    fn lazy_products_and_powers_stay_below_2p_and_agree_mod_p() {
        for p in [3u32, 5, 65_537, 998_244_353, 1_000_000_007, 1_073_741_789] {
            let m = ModLanes::new(p).unwrap();
            assert!(m.lazy_ok());
            let s = *m.scalar();
            let mut rng = SplitMix64(p as u64 + 1);
            let edges = [0, 1, 2, p - 1, p, p + 1, 2 * p - 2, 2 * p - 1];
            let mut values: Vec<u32> = edges.to_vec();
            values.extend((0..200).map(|_| rng.below(2 * p as u64) as u32));
            for chunk in values.chunks(LANES) {
                let a = u32x16::from(std::array::from_fn::<u32, LANES, _>(|i| chunk[i % chunk.len()]));
                for b in [a, u32x16::splat(2 * p - 1), u32x16::splat(p), a.shuffle(u32x16::splat(3))] {
                    let got = m.mul_lazy(a, b).to_array();
                    let reduced = m.reduce_2p(m.mul_lazy(a, b)).to_array();
                    for i in 0..LANES {
                        let (x, y) = (a.to_array()[i], b.to_array()[i]);
                        let expected = s.mul(x % p, y % p);
                        assert!(got[i] < 2 * p, "p={p} {x}·{y} gave {} >= 2p", got[i]);
                        assert_eq!(reduced[i], expected, "p={p} {x}·{y}");
                    }
                }
                for e in [1u64, 2, 10_000_000, p as u64 - 2, u64::MAX] {
                    let [got] = m.pow_lazy([a], e);
                    for (i, &g) in got.to_array().iter().enumerate() {
                        assert!(g < 2 * p);
                        assert_eq!(g % p, s.pow(a.to_array()[i] % p, e), "p={p} e={e}");
                    }
                }
            }
            assert!(!ModLanes::new(1_073_741_827).unwrap().lazy_ok()); // the first prime above 2^30
        }
    }

    #[test]
    fn products_accept_one_operand_up_to_the_documented_bound() {
        // a·b < p·2^32 is all REDC needs: a factor may exceed p when the other is small,
        // e.g. the largest u32 times 1 (used by from_form on any u32 value).
        for p in PRIMES {
            let m = ModLanes::new(p).unwrap();
            let s = *m.scalar();
            let a = u32x16::from(std::array::from_fn::<u32, LANES, _>(|i| u32::MAX - i as u32));
            let got = m.mul(a, u32x16::ONE).to_array();
            for (i, &g) in got.iter().enumerate() {
                assert_eq!(g, s.reduce((u32::MAX - i as u32) as u64), "p={p} lane {i}");
            }
        }
    }

    #[test]
    fn powers_match_scalar_for_every_group_size() {
        for p in PRIMES {
            let m = ModLanes::new(p).unwrap();
            let s = *m.scalar();
            let mut rng = SplitMix64(7 * p as u64);
            let forms: Vec<u32x16> = operands(p, &mut rng, 3).iter().map(|&x| m.to_form(x)).collect();
            for e in [0u64, 1, 2, 3, 10_000_000, p as u64 - 2, p as u64 - 1, u64::MAX] {
                let single = m.pow([forms[0]], e);
                let group = m.pow([forms[0], forms[1], forms[2], forms[3]], e);
                let results = single.iter().zip(&forms[..1]).chain(group.iter().zip(&forms[..4]));
                for (v, (got, x)) in results.enumerate() {
                    for i in 0..LANES {
                        let expected = s.pow(x.to_array()[i], e);
                        assert_eq!(got.to_array()[i], expected, "p={p} e={e} result {v} lane {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn streaming_stores_store_at_any_alignment() {
        let v = u32x16::from(std::array::from_fn::<u32, LANES, _>(|i| i as u32 + 1));
        let mut buffer = vec![0u32; 64];
        for offset in 0..LANES {
            buffer.fill(0);
            let dst: &mut [u32; LANES] = (&mut buffer[offset..offset + LANES]).try_into().unwrap();
            stream_store(dst, v);
            store_fence();
            assert_eq!(&buffer[offset..offset + LANES], &v.to_array(), "offset {offset}");
            assert_eq!(buffer.iter().filter(|&&x| x != 0).count(), LANES);
        }
    }

    #[test]
    fn aligned_buffers_are_aligned_and_zero() {
        for len in [0, 1, 15, 16, 17, 1000, 1 << 20] {
            let mut buffer = AlignedBuffer::zeroed(len);
            assert_eq!(buffer.as_slice().len(), len);
            assert!(buffer.as_mut_slice().as_ptr().addr().is_multiple_of(64));
            assert!(buffer.as_slice().iter().all(|&x| x == 0));
        }
    }

    #[test]
    fn sum_reduces_sixteen_large_lanes() {
        for p in PRIMES {
            let m = ModLanes::new(p).unwrap();
            let v = u32x16::splat(p - 1);
            assert_eq!(m.sum(v) as u64, 16 * (p as u64 - 1) % p as u64);
        }
        assert!(ModLanes::new(2).is_none() && ModLanes::new(1 << 31).is_none());
    }
}
