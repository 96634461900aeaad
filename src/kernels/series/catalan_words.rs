//! The Catalan form `T + T^2 = x` for sixteen characters at once, in 16-bit words:
//! every multiplication is a VNNI pairwise dot product (`vpdpwssd`) that adds two
//! convolution terms for all sixteen characters.
//!
//! Plain algorithm (one character, modulo `N = M'/2`), as in [`super::catalan`]:
//!
//! ```text
//! x_k = num_k - Σ_{1<=i<=d} den_i·x_{k-i}              (d = deg den: 86 for Dawson's signs)
//! T_k = x_k - C_k,   C_k = Σ_{0<i<k} T_i·T_{k-i} = 2·Σ_{0<i<k/2} T_i·T_{k-i} + [k even]·T_{k/2}^2
//! ```
//!
//! The recurrence of each lane comes from [`RationalLanes::shared`]: one description of
//! the signs for all sixteen lanes (not each lane's lowest terms), built with vector
//! operations across the lanes; the order is the largest over the lanes either way.
//!
//! Representation. `N = 2^a·q` (`a <= 16`, odd `q < 2^21`; other moduli go to
//! [`super::catalan`]) is split by Chinese remainders into two rings:
//!
//! * `Z/2^a`: each value is one word (its residue modulo `2^16`). Products of words are
//!   exact in `i32` and the lane sums wrap modulo `2^32`; both are multiples of `2^16`
//!   apart from the true values, so the low `a` bits are right: no reduction at all.
//! * `Z/q`: each value is kept balanced, `|v| <= q/2 + 1 <= 2^20`, and split into two
//!   limbs `v = v0 + 2^11·v1` with `|v0| <= 1024`, `|v1| <= 512`. A product needs three
//!   limb convolutions (Karatsuba): `v·w = v0w0 + 2^11·(s·s' - v0w0 - v1w1) + 2^22·v1w1`
//!   with `s = v0 + v1`, `|s| <= 1536`. A limb product is below `1536^2 < 2^21.2`.
//!
//! So a coefficient of `T` is four words per character (planes `2^a`, `v0`, `v1`, and `s`
//! computed on the fly), and the `x` recurrence needs three (its coefficients `den_i`
//! are small integers, one word, no limbs). Between the dot products, values are
//! exact integers in `f64` lanes ([`DoubleVec`]): sums, Karatsuba recombination, and the
//! reduction `v - q·round(v/q)`.
//!
//! Where a dot product is two instructions or more and a fused multiply-add one (AVX2
//! without VNNI, and aarch64), `x` runs in `f64` lanes instead (`XPath::Doubles`, in
//! `catalan_words/x_doubles.rs`): one residue modulo `N` per coefficient and one exact
//! multiply-add per term, as its `den_i` are small. Fresh f(1000) on the Zen 4 with
//! `--simd avx2`: median 240 → 230 µs over 41 alternated processes (twice); the warm
//! kernel 161 → 150 µs (`docs/design/kayles.md`).
//!
//! Layout. A dot product wants, in every lane, two coefficients of one character:
//! `swap((v_i, v_{i+1}))·(v_{k-1-i}, v_{k-i}) = v_{i+1}·v_{k-1-i} + v_i·v_{k-i}`, two
//! terms of the convolution for output `k`. Each plane stores the pairs that start at
//! an even index, `(v_{2e}, v_{2e+1})`, and makes an odd one from two neighbours with
//! one shift (`P::between`); the blocked loops only start pairs at even indices.
//!
//! Optimisations, in order of effect:
//! 1. Sixteen characters × two terms per instruction, no reduction inside any sum.
//! 2. Memory: at 1000 pins the computation takes about 0.1 ms, and a first touch of
//!    memory costs about 1.5 µs per 4 KiB page (the first-write rows of `gamecount-lab
//!    roofline`). So `x` lives in a ring of 128 coefficients (stored twice, so that the
//!    window of a blocked sum is one run of rows even where it wraps), computed one block
//!    ahead of `T`; the rows hold each coefficient once (pairs from even indices only); and
//!    the rows come from a `Scratch` buffer reused from call to call: 66 KiB in all at
//!    1000 pins.
//! 3. Register blocking: `R` consecutive outputs share each left operand and a sliding
//!    window of right operands, and one level of Karatsuba on each 2×2 block of (two
//!    steps, two outputs) does 12 dot products for 16 (`karatsuba_dots`).
//! 4. A short dependency chain from one output to the next. Each output needs the one
//!    before it, so the time per output is bounded below by the latency of that path,
//!    not by its work. The newest terms (`i <= NEW`, `T_i·T_{k-i}` with `T_1..T_NEW`
//!    fixed) are added last, in `f64`, to the fully reduced rest: the path from
//!    `T_{k-1}` to `T_k` is two fused multiply-adds and one reduction (about 20 cycles).
//!    The other terms read `T_{k-NEW-1}` and older, so their dot products, limb splits
//!    and reductions overlap the chain. The `x` recurrence does the same with
//!    `den_1, den_2`, and runs in the same loop, so the two chains overlap too.
//! 5. Only the terms `i <= LOW`, and the last few of `T`'s half sum (from one `L` per
//!    block to `ceil(k/2) - 1`), are summed one output at a time; the bulk is blocked.
//! 6. Few conversions per output. Below `k = 2^11` the limb sums `lo`, `hi` and
//!    `middle = s - lo - hi` of `C_k` are exact `i32` values, so a block adds its
//!    blocked and per-output sums in `i32` (wrapping, harmless) and converts three sums
//!    per output to `f64` (`Kernel::t_block_words`; beyond, the chunked `f64` path).
//!    The lane sums of every `T_k` come from the rows in one pass at the end
//!    (`Kernel::lane_sums`), three reductions per two coefficients instead of three
//!    per coefficient in the loop (`cargo bench --bench series`, `catalan-words`).

mod x_doubles;

use std::sync::{Mutex, MutexGuard, TryLockError};

use self::x_doubles::XDoubles;

use super::catalan::series_catalan_generic;
use super::rational::{LANES16, RationalLanes};
use super::{BlockSigns, c_sum_from_t_sum};
use crate::arith::split::SplitModulus;
use crate::simd::Simd;
use crate::simd::dots::{Dots, DoubleVec, PAIR_LANES, PairPart, PairRow, PairVec};

/// Outputs computed together (accumulators in registers).
const R: usize = 8;
/// `T`'s terms `T_i·T_{k-i}`, `i <= NEW`, go through the short `f64` path
/// (optimisation 4).
const NEW: usize = 3;
/// `T`'s terms `NEW < i <= LOW` are summed one output at a time, the others blocked.
/// The blocked part of a block then reads `T_{k0-1}` and older only, and its pairs start
/// at even indices (`LOW + 1`).
const LOW: usize = R - 1;
/// `x`'s terms `den_i·x_{k-i}`, `i <= NEW_X`, go through the short `f64` path.
const NEW_X: usize = 2;
/// `x`'s terms `NEW_X < i <= LOW_X` are summed one output at a time, the others blocked.
const LOW_X: usize = R;
/// Dot-product steps of a blocked sum between conversions of the `i32` accumulators to
/// `f64`: each step adds at most `2·1536^2 < 2^22.2` to a lane's sum, so 256 steps stay
/// below `2^30.2` (the `2^a` plane wraps by design and needs no bound).
const CHUNK_STEPS: usize = 256;
/// The limb radix: `v = v0 + LIMB·v1`.
const LIMB: f64 = 2048.0;

/// The lanes of `p` as `f64` values.
#[inline(always)]
fn doubles<P: PairVec>(p: P) -> P::Doubles {
    p.to_doubles()
}

/// The moduli this variant takes: `N = 2^a·q` with `a <= 16` and odd `q < 2^21`.
#[derive(Clone, Copy, Debug)]
pub struct WordRing {
    split: SplitModulus,
    /// `2^a - 1`.
    mask: u32,
    q: f64,
    q_inverse: f64,
    /// `(2^a)^{-1} mod q`.
    inverse_of_pow2: f64,
}

impl WordRing {
    /// The largest power of two handled in words.
    pub const MAX_TWO_BITS: u32 = 16;
    /// The odd factor's bound: balanced values within `2^20`, limbs within `±1024`.
    pub const ODD_LIMIT: u64 = 1 << 21;

    /// The ring for `n = M'/2`, or `None` if `n` is outside the range of the words.
    pub fn new(n: u64) -> Option<Self> {
        let split = SplitModulus::new(n);
        if split.two_bits > Self::MAX_TWO_BITS || split.odd >= Self::ODD_LIMIT {
            return None;
        }
        let q = split.odd as f64;
        let inverse_of_pow2 = split.inverse_of_pow2() as f64;
        Some(Self { split, mask: ((1u64 << split.two_bits) - 1) as u32, q, q_inverse: 1.0 / q, inverse_of_pow2 })
    }

    /// `N = 2^a·q`.
    fn modulus(&self) -> u64 {
        self.split.odd << self.split.two_bits
    }

    /// `v - q·round(v/q)` for integers `|v| <= 2^52`: the result is an integer with
    /// `|r| <= q/2 + 1` (the quotient's estimate is off by at most `|v|·2^-52 / q + 1/2`
    /// from `v/q`), and exact (the fused multiply-add rounds once, to an integer that
    /// `f64` holds).
    #[inline(always)]
    fn balance<D: DoubleVec>(&self, v: D) -> D {
        (v * D::splat(self.q_inverse)).round().neg_mul_add(D::splat(self.q), v)
    }

    // The scalar forms: the reference for `combine_all` in the tests.
    #[cfg(test)]
    /// The residue in `[0, q)` of an integer `|v| < 2^52`, without branches (their
    /// outcomes are data: mispredicted half the time, they cost more than the rest).
    #[inline(always)]
    fn residue_odd(&self, v: f64) -> u64 {
        let q = self.split.odd as i64;
        // The estimate of v/q is off by less than 1/2: r is in (-q, 2q).
        let r = (-(v * self.q_inverse).floor()).mul_add(self.q, v) as i64;
        let r = r + ((r >> 63) & q);
        (r - (((q - 1 - r) >> 63) & q)) as u64
    }

    #[cfg(test)]
    /// The residue modulo `N` of `v2 mod 2^a` and `vq mod q` (Chinese remainders),
    /// `r = v2 + 2^a·((vq - v2)·(2^a)^{-1} mod q)`, with `f64` steps instead of divisions
    /// (every product below `2^42`).
    #[inline(always)]
    fn combine(&self, v2: u32, vq: f64) -> u64 {
        let v2 = (v2 & self.mask) as f64;
        let diff = self.residue_odd(self.residue_odd(vq) as f64 - v2);
        (v2 as u64) + (self.residue_odd(diff as f64 * self.inverse_of_pow2) << self.split.two_bits)
    }
}

impl WordRing {
    /// [`WordRing::combine`] on every packed lane sum of `slots` (low half: the `2^a`
    /// sum, wrapping; high half: the `Z/q` sum, an `i32`), in place.
    ///
    /// The same Chinese remainders, but every step an exact `f64` operation on a block
    /// of eight, so that the compiler vectorises it (the scalar form, with its integer
    /// conversions per step, cost as much as 20 outputs of the kernel at 1000 pins, by
    /// `cargo bench --bench series`). Exactness: `|vq| <= 16·(2^20 + 1) < 2^25` and
    /// `(q - 1)·(2^a)^{-1} mod q < 2^42` are integers far below `2^52`, so every product,
    /// quotient estimate and subtraction below is exact or off by less than one before
    /// the `floor`, and the corrections bring each residue into `[0, q)`. Inlined: inside
    /// an AVX2 or AVX-512 entry point `f64::mul_add` and `floor` are one instruction each,
    /// at the baseline library calls.
    #[inline(always)]
    fn combine_all(&self, slots: &mut [u64]) {
        const BLOCK: usize = 8;
        let mut chunks = slots.chunks_exact_mut(BLOCK);
        for chunk in &mut chunks {
            self.combine_block(chunk);
        }
        self.combine_block(chunks.into_remainder());
    }

    /// [`WordRing::combine_all`] on at most eight slots (a function, not a closure, so
    /// that it is inlined into the entry point and gets its instruction set).
    #[inline(always)]
    fn combine_block(&self, chunk: &mut [u64]) {
        let (inverse, pow2) = (self.inverse_of_pow2, (1u64 << self.split.two_bits) as f64);
        let mut out = [0f64; 8];
        for (o, &slot) in out.iter_mut().zip(chunk.iter()) {
            let v2 = ((slot as u32) & self.mask) as f64;
            let vq = (slot >> 32) as u32 as i32 as f64;
            let diff = self.residue(self.residue(vq) - v2);
            *o = self.residue(diff * inverse).mul_add(pow2, v2);
        }
        for (slot, &o) in chunk.iter_mut().zip(&out) {
            *slot = o as u64;
        }
    }

    /// A value `v` with `|v| < 2^52` to `[0, q)`: the estimate `floor(v/q)` is off by at
    /// most one either way.
    #[inline(always)]
    fn residue(&self, v: f64) -> f64 {
        let q = self.q;
        let r = (-(v * self.q_inverse).floor()).mul_add(q, v);
        let r = if r < 0.0 { r + q } else { r };
        if r >= q { r - q } else { r }
    }
}

crate::simd::multiversion! {
    /// `Σ_h c_h(0..=m) mod modulus` over `characters`, on `simd`'s backend (moduli or
    /// recurrences outside the words' range run `catalan` there).
    pub fn series_catalan_words(characters: &[BlockSigns], m: usize, modulus: u64) -> Vec<u64>
        => series_catalan_words_generic;
}

#[inline(always)]
fn series_catalan_words_generic<B: Dots>(characters: &[BlockSigns], m: usize, modulus: u64) -> Vec<u64> {
    let n = modulus / 2;
    let Some(ring) = WordRing::new(n) else {
        return series_catalan_generic::<B>(characters, m, modulus);
    };
    let mut t_sum: Option<Vec<u64>> = None;
    for group in characters.chunks(PAIR_LANES) {
        // A `match`, not `and_then`: the closure would hold the whole kernel, compiled at
        // the baseline.
        let group_sum = match RationalLanes::shared(group) {
            Some(rational) => group_t_sum::<B::Pairs>(&ring, &rational, m),
            None => None,
        };
        let Some(group_sum) = group_sum else {
            return series_catalan_generic::<B>(characters, m, modulus);
        };
        t_sum = Some(match t_sum {
            None => group_sum,
            Some(mut sum) => {
                for (s, v) in sum.iter_mut().zip(group_sum) {
                    // Both below n.
                    *s += v;
                    if *s >= n {
                        *s -= n;
                    }
                }
                sum
            }
        });
    }
    c_sum_from_t_sum(t_sum.unwrap_or_else(|| vec![0; m + 1]), characters.len(), modulus)
}

/// `Σ_h c_h(0..=m) mod modulus` over the first `characters` lanes of `rational` (a lane
/// group's shared form, as [`RationalLanes::shared`] or [`RationalLanes::from_sign_rows`]
/// builds it), or `None` if the modulus or the recurrence is outside the words' range
/// (the caller then runs another kernel). For callers that build the lanes' form
/// directly; [`series_catalan_words`] does the same from [`BlockSigns`].
///
/// # Panics
/// If `modulus` is odd, below 2 or not below [`super::SERIES_MODULUS_LIMIT`], or
/// `characters` is above [`PAIR_LANES`].
pub fn series_catalan_words_lanes(
    simd: Simd,
    rational: &RationalLanes,
    characters: usize,
    m: usize,
    modulus: u64,
) -> Option<Vec<u64>> {
    assert!(
        modulus >= 2 && modulus.is_multiple_of(2) && modulus < super::SERIES_MODULUS_LIMIT,
        "series modulus {modulus} must be even, at least 2 and below 2^62"
    );
    assert!(characters <= PAIR_LANES, "at most {PAIR_LANES} characters per lane group");
    let ring = WordRing::new(modulus / 2)?;
    let t_sum = group_t_sum_on(simd, &ring, rational, m)?;
    Some(c_sum_from_t_sum(t_sum, characters, modulus))
}

crate::simd::multiversion! {
    /// [`group_t_sum`] on `simd`'s backend.
    fn group_t_sum_on(ring: &WordRing, rational: &RationalLanes, m: usize) -> Option<Vec<u64>>
        => group_t_sum_backend;
}

#[inline(always)]
fn group_t_sum_backend<B: Dots>(ring: &WordRing, rational: &RationalLanes, m: usize) -> Option<Vec<u64>> {
    group_t_sum::<B::Pairs>(ring, rational, m)
}

/// `Σ_lanes T(0..=m) mod N` of one lane group, or `None` if its recurrence does not fit
/// the words ([`fits_words`]).
#[inline(always)]
fn group_t_sum<P: PairVec>(ring: &WordRing, rational: &RationalLanes, m: usize) -> Option<Vec<u64>> {
    if !fits_words(rational) {
        return None;
    }
    let path = XPath::for_vectors::<P>(ring, rational);
    let layout = Layout::for_vectors::<P>(rational.order(), m, path);
    // Only the x ring must start zero (its rows below x_0 are read as zeros); T's rows are
    // written before they are read.
    let mut lease = Scratch::lease(layout.rows, layout.zeroed());
    Some(run_kernel::<P>(ring, rational, m, path, layout, lease.rows()))
}

/// How `x` is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum XPath {
    /// In word planes, by pairwise dot products ([`XRecurrence`]).
    Words,
    /// In `f64` lanes, by fused multiply-adds ([`XDoubles`]).
    Doubles,
}

impl XPath {
    /// The path for the vectors `P`: `f64` lanes where a dot product is two instructions
    /// or more and a fused multiply-add one (AVX2 without VNNI; aarch64), when the recurrence's sums fit
    /// them. Why: `x`'s coefficients `den_i` are small, so a term is one exact `f64`
    /// multiply-add on the residue modulo `N` (four registers for sixteen lanes), where
    /// the words need three planes of pair dot products and their windows; with VNNI (or
    /// a 512-bit register) the words are fewer instructions, and without FMA the `f64`
    /// path is twice as many.
    fn for_vectors<P: PairVec>(ring: &WordRing, rational: &RationalLanes) -> Self {
        if !P::DOT_FUSED && <P::Doubles as DoubleVec>::FMA && XDoubles::<P>::fits(ring, rational) {
            XPath::Doubles
        } else {
            XPath::Words
        }
    }
}

/// The kernel on `rows` (laid out as `layout`, for `path`), `x` computed as `path` says.
#[inline(always)]
fn run_kernel<P: PairVec>(
    ring: &WordRing,
    rational: &RationalLanes,
    m: usize,
    path: XPath,
    layout: Layout,
    rows: &mut [PairRow],
) -> Vec<u64> {
    let (x_rows, t_rows) = rows.split_at_mut(layout.x_region);
    match path {
        XPath::Words => {
            let x_ring = if layout.x_mirrored { Ring::Mirrored(layout.x_rows) } else { Ring::Plain(layout.x_rows) };
            let x_planes = Planes::new(x_rows, layout.x_stride, layout.x_rows, x_ring);
            let x = XRecurrence::new(ring, rational, x_planes, layout.x_ring);
            Kernel::<P, _>::new(ring, m, x, layout, t_rows).run()
        }
        XPath::Doubles => {
            let x = XDoubles::new(ring, rational, x_rows);
            Kernel::<P, _>::new(ring, m, x, layout, t_rows).run()
        }
    }
}

/// The largest `Σ|den_i|` of a lane: the recurrence's sums then stay below
/// `2^20·1024 = 2^30` in `i32` without any chunking.
const DEN_WEIGHT_LIMIT: i64 = 1 << 20;
/// The largest `|den_i|`: the sum of two (in [`karatsuba_dots`]) is still one signed word.
const DEN_LIMIT: i32 = (1 << 14) - 1;

/// Whether the recurrence fits the words: every `|den_i| <= DEN_LIMIT` and the sums stay
/// in `i32` ([`DEN_WEIGHT_LIMIT`]).
fn fits_words(rational: &RationalLanes) -> bool {
    let (weight, largest) = lane_weights(&rational.den);
    weight.iter().all(|&w| w <= DEN_WEIGHT_LIMIT as u64) && largest.iter().all(|&d| d <= DEN_LIMIT as u32)
}

/// Per lane, `Σ|v|` and `max |v|` over `rows` (the `u64` sums of `i32` values cannot
/// overflow for any number of rows a recurrence has).
///
/// Row by row with the sixteen lanes side by side, so that the loop is one vector wide
/// (lane by lane over the rows, it is a scalar loop over every row of every lane).
fn lane_weights(rows: &[[i32; LANES16]]) -> ([u64; LANES16], [u32; LANES16]) {
    let mut weight = [0u64; LANES16];
    let mut largest = [0u32; LANES16];
    for row in rows {
        for ((w, m), &d) in weight.iter_mut().zip(&mut largest).zip(row) {
            *w += u64::from(d.unsigned_abs());
            *m = (*m).max(d.unsigned_abs());
        }
    }
    (weight, largest)
}

/// Rows for the kernel, reused from call to call.
///
/// Why: a first touch of a 4 KiB page costs about 1.5 µs (`gamecount-lab roofline`, the
/// first-write rows), so the 17 pages of the rows at 1000 pins are a fifth of a fresh
/// call; a bench or the checks call the kernel many times and should pay them once. The
/// buffer is kept for the next call up to [`Scratch::ROWS`]; a call that finds it busy
/// (another thread) or needs more uses a buffer of its own.
struct Scratch;

/// The kept rows (empty until the first call; grown, never shrunk, up to 1 MiB).
static SCRATCH: Mutex<Vec<PairRow>> = Mutex::new(Vec::new());

impl Scratch {
    /// The most rows kept between calls (1 MiB): larger requests are rare (tens of
    /// thousands of pins) and take long enough that their own allocation does not matter.
    const ROWS: usize = 1 << 14;

    /// Runs `f` on `rows` rows of which the first `zeroed` are zero (see [`Scratch::lease`]).
    #[cfg(test)]
    fn with<T>(rows: usize, zeroed: usize, f: impl FnOnce(&mut [PairRow]) -> T) -> T {
        f(Self::lease(rows, zeroed).rows())
    }

    /// `rows` rows of which the first `zeroed` are zero (the others hold what an earlier
    /// call left: zeroing them would cost a pass over memory the kernel overwrites before
    /// it reads). A lease and not a closure: a closure would be compiled apart from the
    /// kernel's entry point, at the baseline, with every vector operation in it.
    fn lease(rows: usize, zeroed: usize) -> Lease {
        let guard = match SCRATCH.try_lock() {
            Ok(guard) => Some(guard),
            // A panic elsewhere left the rows in some state: as good as any other.
            Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
            Err(TryLockError::WouldBlock) => None,
        };
        match guard {
            Some(mut guard) if rows <= Self::ROWS => {
                if guard.len() < rows {
                    // One allocation of the final size (growing by doubling would ask
                    // the allocator for each size class on the way).
                    *guard = Self::fresh_zero_rows(rows);
                }
                guard[..zeroed].fill(PairRow::ZERO);
                Lease::Kept(guard, rows)
            }
            _ => Lease::Own(Self::fresh_zero_rows(rows)),
        }
    }

    /// `rows` zero rows in a fresh allocation, their pages mapped in one call, not one
    /// fault each (3% of a fresh f(1000) on AVX2, 15 alternated processes). Asked of the
    /// allocator as zeroed memory, not written with zeros: fresh pages come zeroed from
    /// the kernel, and the allocator, which knows they are fresh, leaves them alone, where
    /// writing 78 KiB of zeros over them cost 3–4 µs of a fresh f(1000) (Zen 4, probe).
    fn fresh_zero_rows(rows: usize) -> Vec<PairRow> {
        if rows == 0 {
            return Vec::new();
        }
        let layout = std::alloc::Layout::array::<PairRow>(rows).expect("rows of a bounded request");
        // SAFETY: the layout's size is not zero (rows >= 1, a row is 64 bytes).
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<PairRow>();
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        // SAFETY: `ptr` comes from the global allocator with the layout of `rows` rows,
        // which is the layout a `Vec<PairRow>` of capacity `rows` frees it with, and its
        // `rows` rows are initialised: all-zero bytes are a valid `PairRow` (16 `i32`).
        let mut fresh = unsafe { Vec::from_raw_parts(ptr, rows, rows) };
        crate::memory::populate(&mut fresh[..]);
        fresh
    }
}

/// Rows from [`Scratch::lease`]: the kept buffer (its first `.1` rows) or one of its own.
enum Lease {
    Kept(MutexGuard<'static, Vec<PairRow>>, usize),
    Own(Vec<PairRow>),
}

impl Lease {
    #[inline(always)]
    fn rows(&mut self) -> &mut [PairRow] {
        match self {
            Lease::Kept(guard, rows) => &mut guard[..*rows],
            Lease::Own(rows) => rows,
        }
    }
}

/// Where the planes of `x` and `T` sit in the rows.
#[derive(Clone, Copy, Debug)]
struct Layout {
    /// Coefficients the `x` ring holds (a power of two, even).
    x_ring: usize,
    /// Rows of one `x` plane (`x_ring / 2`), and the stride between `x` planes.
    x_rows: usize,
    /// Whether each `x` plane holds its ring twice ([`Planes::new`]): for the sliding
    /// windows of backends whose vector is several registers, which read runs of rows;
    /// elsewhere the copy would only be three more pages to touch.
    x_mirrored: bool,
    x_stride: usize,
    /// Rows before `T`'s planes: `x`'s three planes, or its `f64` rows
    /// ([`x_doubles::pair_rows`]).
    x_region: usize,
    /// Rows of one `T` plane, and the stride between `T` planes.
    t_rows: usize,
    t_stride: usize,
    /// All rows.
    rows: usize,
}

impl Layout {
    /// The layout for a recurrence of order `order` and `T_0..=T_m`, with `x`'s planes
    /// in the rows if `x_planes` (the [`XPath::Words`] path).
    ///
    /// The `x` ring must hold every coefficient still read: the blocked sums of a block
    /// at `k0` read `x_j` down to `j = k0 - order - 8` (see [`XRecurrence::block`]) while
    /// it writes `x_{k0..k0+R}`, and `T` reads `x_{k0-R..k0}`: a span below
    /// `order + 2R + 8`. The ring also starts at `x_{-ring}`, so the coefficients below
    /// `x_0` that the first blocks read are its zero rows.
    fn new(order: usize, m: usize, x_mirrored: bool, path: XPath) -> Self {
        let x_ring = (order + 4 * R + 8).next_power_of_two();
        let (x_rows, t_rows) = (x_ring / 2, m / 2 + 2);
        let x_stored = if x_mirrored { 2 * x_rows } else { x_rows };
        let x_stride = Self::stride(x_stored);
        let x_region = match path {
            XPath::Words => 3 * x_stride,
            XPath::Doubles => Self::stride(x_doubles::pair_rows(order)),
        };
        let t_stride = Self::stride(t_rows);
        Self { x_ring, x_rows, x_mirrored, x_stride, x_region, t_rows, t_stride, rows: x_region + 3 * t_stride }
    }

    /// [`Layout::new`] for the vectors `P` and the path of `x`.
    fn for_vectors<P: PairVec>(order: usize, m: usize, path: XPath) -> Self {
        Self::new(order, m, P::PARTS > 1, path)
    }

    /// The rows that must start zero: `x`'s (its coefficients below `x_0` are zero rows).
    fn zeroed(&self) -> usize {
        self.x_region
    }

    /// Rows reserved for a plane of `len` rows: each plane starts 1 KiB past a multiple
    /// of 4 KiB from the one before, so that the same row of two planes (read together)
    /// never shares the low 12 address bits (4K aliasing stalls loads behind unrelated
    /// stores) or an L1 set.
    fn stride(len: usize) -> usize {
        len.next_multiple_of(64) + 16
    }
}

/// One coefficient of all sixteen characters: its `Z/2^a` word (as an `i32` lane, only the
/// low 16 bits matter) and its balanced `Z/q` value.
#[derive(Clone, Copy)]
struct Coefficient<P: PairVec> {
    two: P,
    odd: P::Doubles,
}

impl<P: PairVec> Coefficient<P> {
    #[inline(always)]
    fn zero() -> Self {
        Coefficient { two: P::zero(), odd: P::Doubles::zero() }
    }

    /// The words of the three planes, `[two, v0, v1]`: the limbs are `v1 = round(v / 2^11)`
    /// and `v0 = v - 2^11·v1`, so for `|v| <= 2^20`, `|v1| <= 512` and `|v0| <= 1024`.
    #[inline(always)]
    fn words(self) -> [P; 3] {
        let hi = (self.odd * P::Doubles::splat(1.0 / LIMB)).round();
        let lo = hi.neg_mul_add(P::Doubles::splat(LIMB), self.odd);
        [self.two, P::from_doubles(lo), P::from_doubles(hi)]
    }
}

/// One plane: row `e` holds the pair `(v_{2e}, v_{2e+1})`, at `e & mask` (a ring when
/// `mask + 1` is below the number of rows ever written).
#[derive(Clone, Copy)]
struct Plane<'a> {
    rows: &'a [PairRow],
    mask: usize,
}

/// Where the pairs of one plane come from: a stored [`Plane`], or (`s = v0 + v1`) the
/// word sums of two.
trait Rows: Copy {
    /// A stretch of consecutive rows in memory (see [`Rows::run`]).
    type Run: Rows;

    /// The stored pair `(v_{2e}, v_{2e+1})`.
    fn even<P: PairVec>(self, e: usize) -> P;

    /// Part `part` of [`Rows::even`].
    fn even_part<P: PairVec>(self, e: usize, part: usize) -> P::Part;

    /// The pair `(v_j, v_{j+1})` for any `j`.
    #[inline(always)]
    fn pair<P: PairVec>(self, j: usize) -> P {
        if j.is_multiple_of(2) { self.even(j / 2) } else { P::between(self.even(j / 2), self.even(j / 2 + 1)) }
    }

    /// Rows `lo..hi`, as rows `0..hi - lo` of a run, when they are consecutive in memory
    /// (a ring's rows are unless the range wraps). Loads from a run need no wrapping mask,
    /// and a loop over one has its bounds checked once: on AVX2 the masks and checks were
    /// 20 of the 51 instructions of [`sliding_parts`]'s loop (`perf annotate`).
    fn run(self, lo: usize, hi: usize) -> Option<Self::Run>;

    /// Asserts that rows `lo..hi` can be read (`lo` is `None` when the range starts below
    /// row 0): for a run, that they lie in its slice; a plane masks its indexes and
    /// accepts any range. Once before a loop, so that the loop's loads need no check
    /// ([`Rows::even_part_unchecked`]).
    fn assert_rows(self, lo: Option<usize>, hi: usize);

    /// [`Rows::even_part`] without a bounds check where the type has one: in
    /// [`window_part`] the checks were 6 of the 44 instructions per pair of steps on AVX2.
    ///
    /// # Safety
    ///
    /// Row `e` lies in a range that [`Rows::assert_rows`] accepted for `self`.
    #[inline(always)]
    unsafe fn even_part_unchecked<P: PairVec>(self, e: usize, part: usize) -> P::Part {
        self.even_part::<P>(e, part)
    }
}

impl<'a> Rows for Plane<'a> {
    type Run = Run<'a>;

    #[inline(always)]
    fn even<P: PairVec>(self, e: usize) -> P {
        P::load(&self.rows[e & self.mask])
    }
    #[inline(always)]
    fn even_part<P: PairVec>(self, e: usize, part: usize) -> P::Part {
        P::load_part(&self.rows[e & self.mask], part)
    }
    /// A mirrored ring's rows are stored twice in a row ([`Planes`]), so a run wraps only
    /// past the second copy; a plain ring has no run where the range wraps.
    #[inline(always)]
    fn run(self, lo: usize, hi: usize) -> Option<Run<'a>> {
        let start = lo & self.mask;
        Some(Run(self.rows.get(start..start + hi.saturating_sub(lo))?))
    }
    #[inline(always)]
    fn assert_rows(self, _: Option<usize>, _: usize) {}
}

/// Consecutive rows of a plane, from [`Rows::run`]: a type of its own, so that the loops
/// over runs are compiled apart from those over planes (with one type, LLVM merged the
/// two and kept the masks).
#[derive(Clone, Copy)]
struct Run<'a>(&'a [PairRow]);

impl<'a> Rows for Run<'a> {
    type Run = Self;

    #[inline(always)]
    fn even<P: PairVec>(self, e: usize) -> P {
        P::load(&self.0[e])
    }
    #[inline(always)]
    fn even_part<P: PairVec>(self, e: usize, part: usize) -> P::Part {
        P::load_part(&self.0[e], part)
    }
    #[inline(always)]
    fn run(self, lo: usize, hi: usize) -> Option<Self> {
        Some(Run(self.0.get(lo..hi.max(lo))?))
    }
    #[inline(always)]
    fn assert_rows(self, lo: Option<usize>, hi: usize) {
        let len = self.0.len();
        assert!(lo.is_some_and(|lo| lo <= hi) && hi <= len, "rows {lo:?}..{hi} of a run of {len}");
    }
    #[inline(always)]
    unsafe fn even_part_unchecked<P: PairVec>(self, e: usize, part: usize) -> P::Part {
        debug_assert!(e < self.0.len(), "row {e} of a run of {}", self.0.len());
        // SAFETY: `e < self.0.len()`, by the caller's `assert_rows`.
        P::load_part(unsafe { self.0.get_unchecked(e) }, part)
    }
}

/// The plane of `s = v0 + v1`, word by word from the two limb planes (or runs).
#[derive(Clone, Copy)]
struct SumRows<S: Rows>(S, S);

impl<S: Rows> Rows for SumRows<S> {
    type Run = SumRows<S::Run>;

    #[inline(always)]
    fn even<P: PairVec>(self, e: usize) -> P {
        self.0.even::<P>(e).add_words(self.1.even(e))
    }
    #[inline(always)]
    fn even_part<P: PairVec>(self, e: usize, part: usize) -> P::Part {
        self.0.even_part::<P>(e, part).add_words(self.1.even_part::<P>(e, part))
    }
    #[inline(always)]
    fn run(self, lo: usize, hi: usize) -> Option<Self::Run> {
        Some(SumRows(self.0.run(lo, hi)?, self.1.run(lo, hi)?))
    }
    #[inline(always)]
    fn assert_rows(self, lo: Option<usize>, hi: usize) {
        self.0.assert_rows(lo, hi);
        self.1.assert_rows(lo, hi);
    }
    #[inline(always)]
    unsafe fn even_part_unchecked<P: PairVec>(self, e: usize, part: usize) -> P::Part {
        // SAFETY: `assert_rows` accepted the range for both planes.
        unsafe { self.0.even_part_unchecked::<P>(e, part).add_words(self.1.even_part_unchecked::<P>(e, part)) }
    }
}

/// The pairs `(v_j, v_{j+1})` of the three planes `[two, v0, v1]` (the parity of `j`
/// decided once).
#[inline(always)]
fn pairs3<P: PairVec>(planes: [Plane; 3], j: usize) -> [P; 3] {
    // Written out, as every array of vectors below: a closure (`map`, `from_fn`) is
    // compiled on its own, at the baseline, unless LLVM inlines it, which it does not do
    // for all of them.
    let e = j / 2;
    let [a, b, c] = planes;
    if j.is_multiple_of(2) {
        [a.even(e), b.even(e), c.even(e)]
    } else {
        [
            P::between(a.even(e), a.even(e + 1)),
            P::between(b.even(e), b.even(e + 1)),
            P::between(c.even(e), c.even(e + 1)),
        ]
    }
}

/// The three planes `[two, v0, v1]` of one series.
struct Planes<'a> {
    planes: [&'a mut [PairRow]; 3],
    mask: usize,
    /// Rows of a mirrored ring (0 otherwise): each row is also stored this many rows
    /// further on, so that any run of at most `ring` rows is consecutive in memory
    /// ([`Rows::run`]) even where it wraps.
    ring: usize,
}

/// How a set of planes stores its rows.
#[derive(Clone, Copy)]
enum Ring {
    /// Rows `0..len`, each at its index.
    None,
    /// A ring of that many rows (a power of two): row `e` at `e & (rows - 1)`.
    Plain(usize),
    /// A ring stored twice: row `e` at `e & (rows - 1)` and `rows` further on.
    Mirrored(usize),
}

impl<'a> Planes<'a> {
    /// Three planes of `len` rows, `stride` apart, at the start of `rows`, stored as
    /// `ring` says.
    #[inline(always)]
    fn new(rows: &'a mut [PairRow], stride: usize, len: usize, ring: Ring) -> Self {
        let (mask, ring, stored) = match ring {
            Ring::None => (usize::MAX, 0, len),
            Ring::Plain(ring) => (ring - 1, 0, ring),
            Ring::Mirrored(ring) => (ring - 1, ring, 2 * ring),
        };
        let (two, rest) = rows.split_at_mut(stride);
        let (lo, rest) = rest.split_at_mut(stride);
        Self { planes: [&mut two[..stored], &mut lo[..stored], &mut rest[..stored]], mask, ring }
    }

    /// Plane `p` for reading.
    #[inline(always)]
    fn plane(&self, p: usize) -> Plane<'_> {
        Plane { rows: self.planes[p], mask: self.mask }
    }

    /// All three planes for reading.
    #[inline(always)]
    fn all(&self) -> [Plane<'_>; 3] {
        std::array::from_fn(|p| self.plane(p))
    }

    /// Stores coefficient `j`, given as its words (`[two, v0, v1]`, see
    /// [`Coefficient::words`]) and those of coefficient `j - 1`: an even `j` starts a row
    /// (its high word comes with `j + 1`), an odd one completes it.
    #[inline(always)]
    fn store<P: PairVec>(&mut self, j: usize, prev: [P; 3], value: [P; 3]) {
        let row = (j / 2) & self.mask;
        // Indexed, not zipped: the zipped iterators' `next` was called out of line, at
        // the baseline, on AVX2.
        for p in 0..3 {
            let pair = if j.is_multiple_of(2) { P::pack(value[p], P::zero()) } else { P::pack(prev[p], value[p]) };
            pair.store(&mut self.planes[p][row]);
            if self.ring > 0 {
                pair.store(&mut self.planes[p][row + self.ring]);
            }
        }
    }
}

/// `acc[r] += Σ_{t < steps} swap(left.even(first + t)) · rows.pair(base + r - 2t)` for
/// `r < B`: the plain
/// sliding-window form (the right operands of consecutive outputs are consecutive pairs,
/// and one step later the same pairs serve the output two further on). The reference
/// for [`karatsuba_dots`].
#[cfg(test)]
#[inline(always)]
fn sliding_dots<const B: usize, P: PairVec, S: Rows>(
    acc: &mut [P; B],
    steps: usize,
    base: usize,
    (left, first): (S, usize),
    rows: S,
) {
    for t in 0..steps {
        let a = left.even::<P>(first + t).swap_words();
        for (r, sum) in acc.iter_mut().enumerate() {
            *sum = sum.dot_add(a, rows.pair(base + r - 2 * t));
        }
    }
}

/// `acc[r] += Σ_{t < steps} L_t · rows.pair(base + r - 2t)` for `r < 8`, `base` even, with
/// one level of Karatsuba: 12 dot products per two steps instead of 16.
///
/// Two steps `t, t+1` and two outputs `r, r+2` (whose pairs are two apart, like the
/// steps') form a 2×2 Toeplitz block: with `j = base - 2t`, `w = W[j+r]`, the
/// differences `Δ(i) = W[i] - W[i+2]` and `S = L_t + L_{t+1}`,
///
/// ```text
/// o_r   += L_t·W[j+r]   + L_{t+1}·W[j+r-2] = S·w + L_{t+1}·Δ(j+r-2)
/// o_r+2 += L_t·W[j+r+2] + L_{t+1}·W[j+r]   = S·w - L_t·Δ(j+r)
/// ```
///
/// so the three products `S·w`, `L_{t+1}·Δ`, `L_t·Δ` go to accumulators `M`, `P`, `Q`
/// of their own (`r = 0, 1, 4, 5`), recombined once at the end. Sums and differences
/// of words double their size (the callers' bounds allow it: every limb plane stays
/// below `2^12` in size, `|den_i| < 2^14`). The recombined sums are the plain sums
/// exactly, whatever the intermediate accumulators do: `i32` wrapping is exact modulo
/// `2^32`, and the plain sums fit.
///
/// The pairs at even indices are stored rows, the odd ones [`P::between`] two of
/// them. Reads pairs from `base - 2·steps - 6` to `base + 9`.
///
/// The left operands are `L_t = swap(left.even(first + t))`. Inlined like everything a
/// [`multiversion!`](crate::simd::multiversion) entry point calls (a call would compile
/// it, and every vector operation in it, at the baseline).
#[inline(always)]
fn karatsuba_dots<P: PairVec, S: Rows>(
    acc: &mut [P; 8],
    steps: usize,
    base: usize,
    (left, first): (S, usize),
    rows: S,
) {
    const FIRST: [usize; 4] = [0, 1, 4, 5];
    debug_assert!(base.is_multiple_of(2));
    if P::PARTS > 1 {
        return sliding_parts(acc, steps, base, (left, first), rows);
    }
    let (left_rows, left_first) = (left, first);
    let pairs = steps / 2;
    if pairs > 0 {
        let (mut m, mut p, mut q) = ([P::zero(); 4], [P::zero(); 4], [P::zero(); 4]);
        // w[i] = W[j - 2 + i], d[i] = Δ(j - 2 + i), for j = base - 2t; even i are rows
        // e = (j - 2)/2 + i/2.
        let mut e = base / 2 - 1;
        let mut even = [P::zero(); 6];
        for (i, v) in even.iter_mut().enumerate() {
            *v = rows.even(e + i);
        }
        let mut w = [P::zero(); 10];
        for i in 0..10 {
            w[i] = if i % 2 == 0 { even[i / 2] } else { P::between(even[i / 2], even[i / 2 + 1]) };
        }
        let mut d = [P::zero(); 8];
        for i in 0..8 {
            d[i] = w[i].sub_words(w[i + 2]);
        }
        for pair in 0..pairs {
            let t = 2 * pair;
            let (l0, l1): (P, P) = (left_rows.even(left_first + t), left_rows.even(left_first + t + 1));
            let (l0, l1) = (l0.swap_words(), l1.swap_words());
            let sum = l0.add_words(l1);
            for (i, &r) in FIRST.iter().enumerate() {
                m[i] = m[i].dot_add(sum, w[r + 2]);
                p[i] = p[i].dot_add(l1, d[r]);
                q[i] = q[i].dot_add(l0, d[r + 2]);
            }
            // Slide by four pairs (two rows): j -> j - 4.
            e -= 2;
            even = [rows.even(e), rows.even(e + 1), even[0], even[1], even[2], even[3]];
            for i in (4..8).rev() {
                w[i] = w[i - 4];
                d[i] = d[i - 4];
            }
            w[0] = even[0];
            w[1] = P::between(even[0], even[1]);
            w[2] = even[1];
            w[3] = P::between(even[1], even[2]);
            for i in 0..4 {
                d[i] = w[i].sub_words(w[i + 2]);
            }
        }
        for (i, &r) in FIRST.iter().enumerate() {
            acc[r] = acc[r] + m[i] + p[i];
            acc[r + 2] = acc[r + 2] + m[i] - q[i];
        }
    }
    if steps % 2 == 1 {
        let t = steps - 1;
        let a = left_rows.even::<P>(left_first + t).swap_words();
        for (r, sum) in acc.iter_mut().enumerate() {
            *sum = sum.dot_add(a, rows.pair(base + r - 2 * t));
        }
    }
}

/// [`karatsuba_dots`] where a vector is several registers (AVX2: two, the baseline:
/// four): the plain sliding window, one register part and four outputs at a time.
///
/// Why: the Karatsuba block holds 12 accumulators and a window of 18 vectors, which fits
/// the 32 registers of AVX-512 but, at two registers a vector, spilled every
/// accumulator to the stack on AVX2 (about 200 instructions per pair of steps for 24
/// `vpmaddwd`). One part and four outputs need 4 accumulators, a window of 4 and one
/// left operand; without AVX-512 a dot product is two instructions (`vpmaddwd`,
/// `vpaddd`), so the Karatsuba savings (a quarter of the dot products, for sums and
/// differences of words) would be small even where it fitted: written by hand for one
/// part and four outputs, its loop took 6.1–6.25 cycles an iteration against 5.75–5.9
/// for this one on the Zen 4, which runs its 22 vector operations on four pipes
/// (`docs/design/kayles.md`).
#[inline(always)]
fn sliding_parts<P: PairVec, S: Rows>(acc: &mut [P; 8], steps: usize, base: usize, (left, first): (S, usize), rows: S) {
    for part in 0..P::PARTS {
        for quarter in [0, 4] {
            let mut sums = [
                acc[quarter].part(part),
                acc[quarter + 1].part(part),
                acc[quarter + 2].part(part),
                acc[quarter + 3].part(part),
            ];
            // The window reads rows `e + 2` down to `e + 1 - steps` (to `e` for one step).
            let e = (base + quarter) / 2;
            let below = steps.max(1) - 1;
            let runs =
                e.checked_sub(below).and_then(|low| Some((left.run(first, first + steps)?, rows.run(low, e + 3)?)));
            match runs {
                Some((left, rows)) => window_part::<P, _>(&mut sums, steps, part, (left, 0), rows, below),
                None => window_part::<P, _>(&mut sums, steps, part, (left, first), rows, e),
            }
            for (r, sum) in sums.into_iter().enumerate() {
                acc[quarter + r] = acc[quarter + r].with_part(part, sum);
            }
        }
    }
}

/// One register part of four outputs of [`sliding_parts`]: `sums[r] += Σ_{t < steps}
/// swap(left.even(first + t)) · W[2e + r - 2t]`, the pairs `W` from `rows` (rows `e + 2`
/// down to `e + 1 - steps`, or `e` for one step).
///
/// Where the backend blends words in one instruction ([`PairPart::WORD_BLEND`]: AVX2),
/// the window holds its pairs with their words exchanged and the left operands are used
/// as loaded: `swap(a)·w = a·swap(w)` (the same two products), and an exchanged odd pair
/// is one `vpblendw` where the pair itself is two shifts and a blend. Fresh f(1000) on
/// the Intel Xeon with `--simd avx2`, 25 alternated processes: 252 → 234 µs. Elsewhere
/// the left operands are swapped, as the exchanged pairs cost more there (the portable
/// backend ran 9% slower with them).
#[inline(always)]
fn window_part<P: PairVec, S: Rows>(
    sums: &mut [P::Part; 4],
    steps: usize,
    part: usize,
    (left, first): (S, usize),
    rows: S,
    e: usize,
) {
    // The reads below: left rows `first .. first + steps`, rows `e + 2` down to
    // `e + 1 - steps` (to `e` for one step or none). Asserted once, so that every load
    // may skip its check.
    left.assert_rows(Some(first), first + steps);
    rows.assert_rows((e + 1).checked_sub(steps.max(1)), e + 3);
    // SAFETY (every `even_part_unchecked` below): its row lies in the ranges just
    // asserted: `e ..= e + 2` first; in the loop `t + 1 < steps`, so the left rows
    // `first + t + 1 < first + steps` and the rows `e - 1 - t >= e + 1 - (steps - 1) - 1`,
    // and `e - 2 - t` only when `t + 2 < steps`; after it `first + t < first + steps`.
    let row = |e: usize| unsafe { rows.even_part_unchecked::<P>(e, part) };
    let left_row = |i: usize| unsafe { left.even_part_unchecked::<P>(i, part) };
    let (mut low, mut high) = (row(e), row(e + 1));
    let top = window_odd(high, row(e + 2));
    let mut w = [window_even(low), window_odd(low, high), window_even(high), top];
    // Two steps per iteration, so that the window slides without moves: step t reads
    // w[0..4], step t+1 the pairs two below, w[-2..2]. The sums unpaired in the loop
    // (NEON: two widening multiply-adds a term instead of four instructions), each taking
    // its two terms at once (AVX-VNNI adds their products before the sum).
    let dot2 = <P::Part as PairPart>::unpaired_dot_add2;
    // Element by element: `array::map` stayed a call on aarch64.
    let mut open = [sums[0].unpaired(), sums[1].unpaired(), sums[2].unpaired(), sums[3].unpaired()];
    let mut t = 0;
    // Two steps: the sums, and the pairs two below for the next two. `next` is the row
    // below the window after them, when there is one: `None` for the last two steps,
    // written after the loop, so that the loop has no branch for it. With the branch in
    // the loop, its two paths rotated the window through register moves: on AVX2 37
    // instructions for eight dot products, 33 without (callgrind).
    macro_rules! two_steps {
        ($next:expr) => {{
            let (a0, a1) = (window_left(left_row(first + t)), window_left(left_row(first + t + 1)));
            high = low;
            low = row(e - 1 - t);
            let low_in_window = window_even(low);
            let below = window_odd(low, high);
            open[0] = dot2(open[0], (a0, w[0]), (a1, low_in_window));
            open[1] = dot2(open[1], (a0, w[1]), (a1, below));
            open[2] = dot2(open[2], (a0, w[2]), (a1, w[0]));
            open[3] = dot2(open[3], (a0, w[3]), (a1, w[1]));
            high = low;
            if let Some(next) = $next {
                low = next;
            }
            w = [window_even(low), window_odd(low, high), low_in_window, below];
            t += 2;
        }};
    }
    while t + 2 < steps {
        two_steps!(Some(row(e - 2 - t)));
    }
    if t + 1 < steps {
        two_steps!(None::<P::Part>);
    }
    for (sum, open) in sums.iter_mut().zip(open) {
        *sum = PairPart::paired(open);
    }
    if t < steps {
        let a = window_left(left_row(first + t));
        for (sum, &pair) in sums.iter_mut().zip(&w) {
            *sum = sum.dot_add(a, pair);
        }
    }
}

/// A left operand of [`window_part`]: swapped, unless the window holds swapped pairs.
#[inline(always)]
fn window_left<Q: PairPart>(a: Q) -> Q {
    if Q::WORD_BLEND { a } else { a.swap_words() }
}

/// An even pair of [`window_part`]'s window (a row as stored), swapped where the window
/// holds swapped pairs.
#[inline(always)]
fn window_even<Q: PairPart>(row: Q) -> Q {
    if Q::WORD_BLEND { row.swap_words() } else { row }
}

/// An odd pair of [`window_part`]'s window, from the rows below and above it.
#[inline(always)]
fn window_odd<Q: PairPart>(low: Q, high: Q) -> Q {
    if Q::WORD_BLEND { Q::swapped_between(low, high) } else { Q::between(low, high) }
}

/// The coefficients of `x`, computed a block of `R` at a time, for `T`.
trait XSeries<P: PairVec> {
    /// Computes `x_{k0..k0+R}`, `k0` a multiple of `R`, after every earlier block.
    fn block(&mut self, k0: usize);
    /// `x_k` (computed, at most `X_VALUES` ago).
    fn value(&self, k: usize) -> Coefficient<P>;
}

/// The `x` recurrence, one block of `R` outputs at a time, into a ring of rows.
struct XRecurrence<'a, P: PairVec> {
    ring: &'a WordRing,
    num: &'a [[i32; LANES16]],
    /// `den_1, den_2` for the `f64` path.
    newest: [Coefficient<P>; NEW_X],
    /// `(den_i, den_{i+1})` for `i = NEW_X + 1, NEW_X + 3, ...`: swapped, with the pair
    /// `(x_{k-i-1}, x_{k-i})` the dot product adds both terms. The first `LOW_STEPS`
    /// are summed per output, the others blocked.
    den_pairs: Vec<PairRow>,
    /// Coefficient `j` is at index `j + offset` of the ring (so that `j < 0` reads the
    /// ring's zero rows).
    offset: usize,
    planes: Planes<'a>,
    /// `x_{k-1}, x_{k-2}` and the words of `x_{k-1}`.
    last: [Coefficient<P>; NEW_X],
    last_words: [P; 3],
    /// `x_k` at `k % X_VALUES`, for `T` (at most two blocks behind).
    values: [Coefficient<P>; X_VALUES],
}

/// The `x` coefficients kept as values for `T`, which runs at most `2R` behind.
const X_VALUES: usize = 4 * R;

impl<'a, P: PairVec> XRecurrence<'a, P> {
    /// Den pairs summed one output at a time: the terms `NEW_X < i <= LOW_X`.
    const LOW_STEPS: usize = (LOW_X - NEW_X) / 2;

    #[inline(always)]
    fn new(ring: &'a WordRing, rational: &'a RationalLanes, planes: Planes<'a>, x_ring: usize) -> Self {
        let den = |i: usize| rational.den.get(i).copied().unwrap_or([0; LANES16]);
        let mut newest = [Coefficient::zero(); NEW_X];
        for (j, c) in newest.iter_mut().enumerate() {
            let d = P::from_array(den(j + 1));
            *c = Coefficient { two: d, odd: doubles(d) };
        }
        let order = rational.order();
        let mut den_pairs = Vec::with_capacity(order / 2 + 1);
        for i in (NEW_X + 1..=order.max(LOW_X)).step_by(2) {
            let mut row = PairRow::ZERO;
            P::pack(P::from_array(den(i)), P::from_array(den(i + 1))).store(&mut row);
            den_pairs.push(row);
        }
        Self {
            ring,
            num: &rational.num,
            newest,
            den_pairs,
            offset: x_ring,
            planes,
            last: [Coefficient::zero(); NEW_X],
            last_words: [P::zero(); 3],
            values: [Coefficient::zero(); X_VALUES],
        }
    }

    /// `x_k` from the blocked sums of its older terms.
    #[inline(always)]
    fn finish(&mut self, k: usize, acc: [P; 3]) {
        let j = self.offset + k;
        // The low pairs, oldest first, so that the newest pair (x_{k-4}, x_{k-3}) joins
        // the sum last.
        let low = &self.den_pairs[..Self::LOW_STEPS];
        let mut sums = acc;
        for (p, sum) in sums.iter_mut().enumerate() {
            let plane = self.planes.plane(p);
            for (t, d) in low.iter().enumerate().rev() {
                *sum = sum.dot_add(P::load(d).swap_words(), plane.pair(j - NEW_X - 2 - 2 * t));
            }
        }
        let num = P::from_array(self.num.get(k).copied().unwrap_or([0; LANES16]));
        // Z/q: |Σ| <= 2^20·1024·(1 + 2^11) < 2^42, |num| small: exact in f64.
        let sum = doubles(sums[2]).mul_add(P::Doubles::splat(LIMB), doubles(sums[1]));
        let mut value = Coefficient { two: num - sums[0], odd: doubles(num) - sum };
        // The newest terms, x_{k-1} last: |den·x| <= 2^14·2^20.
        for (d, x) in self.newest.iter().zip(&self.last).rev() {
            value.two = value.two - d.two * x.two;
            value.odd = d.odd.neg_mul_add(x.odd, value.odd);
        }
        value.odd = self.ring.balance(value.odd);
        self.last = [value, self.last[0]];
        self.values[k % X_VALUES] = value;
        let words = value.words();
        self.planes.store(j, self.last_words, words);
        self.last_words = words;
    }
}

impl<P: PairVec> XSeries<P> for XRecurrence<'_, P> {
    /// The blocked sums read pairs from `base - 2·steps - 6 = k0 - LOW_X - 2·(pairs -
    /// LOW_STEPS) - 8 >= k0 - order - 8` up to `x_{k0-1}` (see [`Layout::new`]); the
    /// per-output ones up to `x_{k-3}`.
    #[inline(always)]
    fn block(&mut self, k0: usize) {
        // Pair t >= LOW_STEPS covers i = LOW_X + 1 + 2(t - LOW_STEPS), i + 1, with the
        // pair starting at k - i - 1 = k0 + r - LOW_X - 2 - 2(t - LOW_STEPS): base
        // k0 - LOW_X - 2 (even).
        let left = (Plane { rows: &self.den_pairs, mask: usize::MAX }, Self::LOW_STEPS);
        let steps = self.den_pairs.len() - Self::LOW_STEPS;
        let base = self.offset + k0 - LOW_X - 2;
        let mut acc = [[P::zero(); R]; 3];
        for (p, a) in acc.iter_mut().enumerate() {
            karatsuba_dots(a, steps, base, left, self.planes.plane(p));
        }
        for (r, ((&two, &lo), &hi)) in acc[0].iter().zip(&acc[1]).zip(&acc[2]).enumerate() {
            self.finish(k0 + r, [two, lo, hi]);
        }
    }

    #[inline(always)]
    fn value(&self, k: usize) -> Coefficient<P> {
        self.values[k % X_VALUES]
    }
}

/// `C_k = Σ_{0<i<k} T_i·T_{k-i}` in one plane, directly (for small `k`): the half sum in
/// pairs of terms, a single last term if the half has odd length, doubled, plus
/// `T_{k/2}^2` for even `k`.
#[inline(always)]
fn t_direct<P: PairVec, S: Rows>(rows: S, k: usize) -> P {
    let h = k.div_ceil(2) - 1; // terms i = 1..=h of the half sum
    let mut acc = P::zero();
    let mut i = 1;
    while i < h {
        acc = acc.dot_add(rows.pair::<P>(i).swap_words(), rows.pair(k - 1 - i));
        i += 2;
    }
    if i == h {
        acc = acc.dot_add(rows.pair::<P>(h).low_word_only(), rows.pair(k - h));
    }
    acc = acc + acc;
    if k.is_multiple_of(2) {
        acc = acc.dot_add(rows.pair::<P>(k / 2).low_word_only(), rows.pair(k / 2));
    }
    acc
}

/// Where [`t_main`] adds its chunks: `i32` lanes (the `2^a` plane, wrapping) or `f64`.
enum Sums<'a, P: PairVec> {
    Words(&'a mut [P; R]),
    Doubles(&'a mut [P::Doubles; R]),
}

/// The blocked part of `C_k` for the outputs `k0 + r`, `r < R`, in one plane: terms
/// `i = LOW+1 ..= l` in steps of two, `chunk` called with the sums of every
/// [`CHUNK_STEPS`] steps (so that the limb planes never overflow `i32`) added to `sums`.
#[inline(always)]
fn t_main<P: PairVec, S: Rows>(rows: S, k0: usize, l: usize, mut sums: Sums<'_, P>) {
    let steps = (l - LOW) / 2;
    let mut done = 0;
    while done < steps {
        let n = (steps - done).min(CHUNK_STEPS);
        let mut acc = [P::zero(); R];
        // Step t pairs terms i = first + 2t (even), i + 1 with the pairs at k - 1 - i.
        let first = LOW + 1 + 2 * done;
        karatsuba_dots(&mut acc, n, k0 - first - 1, (rows, first / 2), rows);
        for (r, a) in acc.into_iter().enumerate() {
            match &mut sums {
                Sums::Words(s) => s[r] = s[r] + a,
                Sums::Doubles(s) => s[r] = s[r] + doubles(a),
            }
        }
        done += n;
    }
}

/// The rest of `C_k` in the four planes `[two, v0, v1, s]`, but for the newest terms
/// `i <= NEW`: `2·Σ_{NEW<i<=LOW}` (oldest first, so that the newest pair joins last), plus
/// `2·Σ_{l<i<=h}` (`h = ceil(k/2) - 1`, the end of the half sum: the blocked part stops at
/// one `l` for the whole block), plus `T_{k/2}^2` for even `k`. All planes at once: the
/// indices, parities and the limb pairs (for `s`) are shared.
#[inline(always)]
fn t_rest<P: PairVec>(planes: [Plane; 3], k: usize, l: usize) -> [P; 4] {
    let term = rest_term::<P>;
    let pair = |j| pairs3(planes, j);
    let mut half = [P::zero(); 4];
    for i in (NEW + 1..LOW).step_by(2).rev() {
        half = term(half, pair(i), pair(k - 1 - i), true);
    }
    let h = k.div_ceil(2) - 1;
    let mut i = l + 1;
    while i < h {
        half = term(half, pair(i), pair(k - 1 - i), true);
        i += 2;
    }
    if i == h {
        half = term(half, pair(h), pair(k - h), false);
    }
    let mut rest = [half[0] + half[0], half[1] + half[1], half[2] + half[2], half[3] + half[3]];
    if k.is_multiple_of(2) {
        rest = term(rest, pair(k / 2), pair(k / 2), false);
    }
    rest
}

/// `acc += prepare(left pairs) · right pairs` in the four planes `[two, v0, v1, s]`;
/// `prepare` swaps the words (`swap`) or keeps the low one (a flag, not a function
/// pointer: a pointer to a vector method would be its baseline instance).
#[inline(always)]
fn rest_term<P: PairVec>(acc: [P; 4], left: [P; 3], right: [P; 3], swap: bool) -> [P; 4] {
    let [left_two, left_lo, left_hi] = left;
    let [right_two, right_lo, right_hi] = right;
    let left_s = left_lo.add_words(left_hi);
    let [a, b, c, d] = if swap {
        [left_two.swap_words(), left_lo.swap_words(), left_hi.swap_words(), left_s.swap_words()]
    } else {
        [left_two.low_word_only(), left_lo.low_word_only(), left_hi.low_word_only(), left_s.low_word_only()]
    };
    [
        acc[0].dot_add(a, right_two),
        acc[1].dot_add(b, right_lo),
        acc[2].dot_add(c, right_hi),
        acc[3].dot_add(d, right_lo.add_words(right_hi)),
    ]
}

/// The first output of the first block; the outputs below it are summed directly.
///
/// Blocks start at odd `k0` (their Karatsuba windows start at even pairs, `k0 - 9`).
/// The first one needs `h(k0) = ceil(k0/2) - 1 >= LOW`: then its blocked stretch
/// `LOW+1 ..= l` is empty or whole steps, every per-output term `NEW < i <= LOW` lies in
/// the half sum (`i <= h(k)`), and the newest ones `i <= NEW` pair with `k - i > NEW`.
/// So `2·LOW + 1`; an earlier start would leave 16 more outputs to the direct sums, which
/// redo every pair for every output and convert every sum.
const BLOCKED_FROM: usize = 2 * LOW + 1;

/// Below this `k`, `x_k - C_k` needs no reduction of its partial sums to stay exact.
const UNREDUCED_BELOW: usize = 2048;

/// `x_k - C_k` from `C_k` (`c_two` wrapping, `c` = `[lo, hi, s]` exact), the `Z/q` part
/// not reduced: below `2^51.1` in size.
///
/// `Σ T_i·T_{k-i} = lo + 2^11·(s - lo - hi) + 2^22·hi` (Karatsuba, per term and so for
/// the sums). With `|v0| <= 2^10`, `|v1| <= 2^9`, `|s| <= 1536 < 2^10.6`, the sums of
/// `k - 1` terms give `|lo + 2^11·(s - lo - hi) + 2^22·hi| < (k-1)·(2^20 + 2^32.9 + 2^40)`,
/// below `2^51.03` for `k < 2^11`; from there on the middle and high sums are reduced
/// first (each then below `2^20 + 1`).
#[inline(always)]
fn t_from_sums<P: PairVec>(
    ring: &WordRing,
    k: usize,
    x: Coefficient<P>,
    c_two: P,
    c: [P::Doubles; 3],
) -> Coefficient<P> {
    let [c_lo, c_hi, c_s] = c;
    let (mut middle, mut high) = (c_s - c_lo - c_hi, c_hi);
    if k >= UNREDUCED_BELOW {
        (middle, high) = (ring.balance(middle), ring.balance(high));
    }
    let product = high.mul_add(P::Doubles::splat(LIMB * LIMB), middle.mul_add(P::Doubles::splat(LIMB), c_lo));
    Coefficient { two: x.two - c_two, odd: x.odd - product }
}

/// One character group's computation: `x` one block ahead of `T`, in one loop.
struct Kernel<'a, P: PairVec, X: XSeries<P>> {
    ring: &'a WordRing,
    m: usize,
    x: X,
    /// `x` is computed for `k < x_done`.
    x_done: usize,
    planes: Planes<'a>,
    /// `T_1..T_NEW`, and `T_{k-1}..T_{k-NEW}`, and the words of `T_{k-1}`.
    first: [Coefficient<P>; NEW],
    last: [Coefficient<P>; NEW],
    last_words: [P; 3],
    /// `Σ_lanes T_k mod N` per coefficient (until the end of [`Kernel::run`], the lane
    /// sums of both rings, packed).
    sums: Vec<u64>,
}

impl<'a, P: PairVec, X: XSeries<P>> Kernel<'a, P, X> {
    /// The kernel with `x` from `x` and `T`'s planes in `t_rows` (laid out as `layout`).
    #[inline(always)]
    fn new(ring: &'a WordRing, m: usize, x: X, layout: Layout, t_rows: &'a mut [PairRow]) -> Self {
        Self {
            ring,
            m,
            x,
            x_done: 0,
            planes: Planes::new(t_rows, layout.t_stride, layout.t_rows, Ring::None),
            first: [Coefficient::zero(); NEW],
            last: [Coefficient::zero(); NEW],
            last_words: [P::zero(); 3],
            sums: vec![0; m + 1],
        }
    }

    /// Computes `x` up to at least `x_k`.
    #[inline(always)]
    fn need_x(&mut self, k: usize) {
        while self.x_done <= k {
            self.x.block(self.x_done);
            self.x_done += R;
        }
    }

    /// `Σ_lanes T_k mod N` for `k = 0..=m`.
    #[inline(always)]
    fn run(mut self) -> Vec<u64> {
        // T_0 = x_0 = 0.
        let blocked_from = BLOCKED_FROM.min(self.m + 1);
        for k in 1..blocked_from {
            self.need_x(k);
            let c = |p| self.planes.plane(p);
            let (two, lo, hi) = (c(0), c(1), c(2));
            let c_two = t_direct(two, k);
            let c: [P; 3] = [t_direct(lo, k), t_direct(hi, k), t_direct(SumRows(lo, hi), k)];
            let c = [doubles(c[0]), doubles(c[1]), doubles(c[2])];
            let mut value = t_from_sums(self.ring, k, self.x.value(k), c_two, c);
            value.odd = self.ring.balance(value.odd);
            self.store(k, value);
        }
        let mut k0 = blocked_from;
        while k0 <= self.m {
            // x one block ahead: its chain overlaps T's.
            self.need_x((k0 + 2 * R - 1).min(self.m));
            self.t_block(k0);
            k0 += R;
        }
        self.lane_sums();
        self.ring.combine_all(&mut self.sums);
        self.sums
    }

    /// `sums[k]` = the lane sums of `T_k`, packed (low half: the `2^a` sum, wrapping;
    /// high half: the `Z/q` sum, an `i32`), for every `k <= m`, from the rows of `T`
    /// (every row up to `m/2` is written by then: row `e` with `T_{2e+1}`, and a last
    /// row `m/2` of even `m` with `T_m` and a zero high word).
    ///
    /// Why here and not as each `T_k` is stored: one pass over the rows does both
    /// coefficients of a row with three reductions (the `2^a` words of both in one, as
    /// 16-bit sums; the `Z/q` values `v0 + 2^11·v1` of each, built with two dot products
    /// against constant words), against three reductions per coefficient in the loop.
    /// Only the low `a <= 16` bits of the `2^a` sums matter, so 16-bit sums suffice; the
    /// `Z/q` values are below `2^20 + 1` in size, their sums below `2^25`: exact `i32`.
    #[inline(always)]
    fn lane_sums(&mut self) {
        let [two, lo, hi] = self.planes.all();
        let (low_one, low_limb) = (P::splat(1), P::splat(LIMB as i32));
        let (high_one, high_limb) = (P::splat(1 << 16), P::splat((LIMB as i32) << 16));
        for (e, sums) in self.sums.chunks_mut(2).enumerate() {
            let (v0, v1): (P, P) = (lo.even(e), hi.even(e));
            let twos = two.even::<P>(e).sum_words() as u32;
            let even = P::zero().dot_add(v0, low_one).dot_add(v1, low_limb).sum_lanes();
            let odd = P::zero().dot_add(v0, high_one).dot_add(v1, high_limb).sum_lanes();
            sums[0] = u64::from(twos & 0xFFFF) | u64::from(even as u32) << 32;
            if let Some(s) = sums.get_mut(1) {
                *s = u64::from(twos >> 16) | u64::from(odd as u32) << 32;
            }
        }
    }

    /// `T_{k0..k0+R}` (those up to `m`). A last, partial block is summed whole: its extra
    /// outputs read existing pairs (below `k0 - LOW`) and are dropped.
    #[inline(always)]
    fn t_block(&mut self, k0: usize) {
        // l: the blocked stretch is i = LOW+1 ..= l for the whole block, l <= h(k0) and
        // l - LOW even (whole steps); each output adds its own i = l+1 ..= h(k).
        let h0 = k0.div_ceil(2) - 1;
        let l = h0 - (h0 - LOW) % 2;
        if k0 + R <= UNREDUCED_BELOW {
            return self.t_block_words(k0, l);
        }
        let mut main_two = [P::zero(); R];
        let mut main = [[P::Doubles::zero(); R]; 3];
        let plane = |p| self.planes.plane(p);
        let (two, lo, hi) = (plane(0), plane(1), plane(2));
        t_main(two, k0, l, Sums::Words(&mut main_two));
        for (sums, rows) in main.iter_mut().zip([lo, hi]) {
            t_main(rows, k0, l, Sums::<P>::Doubles(sums));
        }
        t_main(SumRows(lo, hi), k0, l, Sums::<P>::Doubles(&mut main[2]));
        for r in 0..R.min(self.m + 1 - k0) {
            let k = k0 + r;
            let rest: [P; 4] = t_rest(self.planes.all(), k, l);
            let c_two = rest[0] + main_two[r] + main_two[r];
            let two = P::Doubles::splat(2.0);
            let c = [
                two.mul_add(main[0][r], doubles(rest[1])),
                two.mul_add(main[1][r], doubles(rest[2])),
                two.mul_add(main[2][r], doubles(rest[3])),
            ];
            let value = self.add_newest(t_from_sums(self.ring, k, self.x.value(k), c_two, c));
            self.store(k, value);
        }
    }

    /// [`Self::t_block`] for blocks below [`UNREDUCED_BELOW`]: every partial sum of
    /// `C_k` stays in `i32` lanes until the Karatsuba recombination, and only the three
    /// recombined limb sums are converted to `f64`.
    ///
    /// Why it is exact: for `k < 2^11` the true sums `lo = Σ v0·v0'`, `hi = Σ v1·v1'` and
    /// `middle = s - lo - hi = Σ (v0·v1' + v1·v0')` are below `(k-1)·2^20 < 2^31` in size
    /// (limbs `|v0| <= 2^10`, `|v1| <= 2^9`), so they are exact `i32` values; every sum on
    /// the way (the blocked part, doubled, plus the rest, and `s`, which may not fit) wraps
    /// modulo `2^32` (`vpdpwssd` does not saturate), which changes none of them. So no
    /// chunks of [`CHUNK_STEPS`] and half the conversions of the general path (whose
    /// `f64` accumulators, `3·R` pairs of vectors, did not fit in the registers either).
    #[inline(always)]
    fn t_block_words(&mut self, k0: usize, l: usize) {
        let steps = (l - LOW) / 2;
        let first = LOW + 1;
        let mut main = [[P::zero(); R]; 4];
        let plane = |p| self.planes.plane(p);
        let (two, lo, hi) = (plane(0), plane(1), plane(2));
        // Step t pairs terms i = first + 2t (even), i + 1 with the pairs at k - 1 - i.
        for (acc, rows) in main.iter_mut().zip([two, lo, hi]) {
            karatsuba_dots(acc, steps, k0 - first - 1, (rows, first / 2), rows);
        }
        karatsuba_dots(&mut main[3], steps, k0 - first - 1, (SumRows(lo, hi), first / 2), SumRows(lo, hi));
        for (k, r) in (k0..=self.m).zip(0..R) {
            let rest: [P; 4] = t_rest(self.planes.all(), k, l);
            let (c_two, c_lo) = (rest[0] + main[0][r] + main[0][r], rest[1] + main[1][r] + main[1][r]);
            let (c_hi, c_s) = (rest[2] + main[2][r] + main[2][r], rest[3] + main[3][r] + main[3][r]);
            let middle = c_s - c_lo - c_hi;
            let product = doubles(c_hi).mul_add(
                P::Doubles::splat(LIMB * LIMB),
                doubles(middle).mul_add(P::Doubles::splat(LIMB), doubles(c_lo)),
            );
            let x = self.x.value(k);
            let value = self.add_newest(Coefficient { two: x.two - c_two, odd: x.odd - product });
            self.store(k, value);
        }
    }

    /// `T_k` from `value = x_k - (C_k without its newest terms)` (`Z/q` part below
    /// `2^51.1`): subtracts `2·Σ_{i<=NEW} T_i·T_{k-i}`, `T_1·T_{k-1}` last, and balances.
    /// `|2·Σ| <= 2·NEW·2^40 < 2^43`, so every value stays below `2^52`.
    #[inline(always)]
    fn add_newest(&self, mut value: Coefficient<P>) -> Coefficient<P> {
        for (t, prev) in self.first.iter().zip(&self.last).rev() {
            value.two = value.two - (t.two + t.two) * prev.two;
            value.odd = (t.odd + t.odd).neg_mul_add(prev.odd, value.odd);
        }
        value.odd = self.ring.balance(value.odd);
        value
    }

    /// Records `T_k` (balanced): its words in the rows (its lane sums come from there at
    /// the end, [`Self::lane_sums`]).
    #[inline(always)]
    fn store(&mut self, k: usize, value: Coefficient<P>) {
        let words = value.words();
        if k <= NEW {
            self.first[k - 1] = value;
        }
        self.last = [value, self.last[0], self.last[1]];
        self.planes.store(k, self.last_words, words);
        self.last_words = words;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SplitMix64;
    use crate::kernels::series::check::check_characters;
    use crate::kernels::series::series_catalan;

    /// The vectorised Chinese remainders against the scalar ones, on the extremes of the
    /// packed sums (the `Z/q` sum up to `±16·(2^20 + 1)`, any `2^a` word) and random
    /// ones, for moduli across the words' range, with a length that leaves a remainder.
    #[test]
    fn combine_all_matches_combine() {
        let mut rng = SplitMix64(0xC0B1);
        let bound = 16 * ((1i64 << 20) + 1);
        for n in [8 * 1_000_000_000u64, (1 << 16) * ((1 << 21) - 1), 3, 1 << 16, 8 * 1953125, 5 * 7 * 11 * 13 * 17] {
            let ring = WordRing::new(n).unwrap();
            let mut slots: Vec<u64> = [-bound, -bound + 1, -1, 0, 1, bound - 1, bound, (ring.q as i64) / 2]
                .iter()
                .flat_map(|&vq| [0u32, 1, 0xFFFF, u32::MAX].map(move |v2| v2 as u64 | (vq as i32 as u32 as u64) << 32))
                .collect();
            slots.extend((0..203).map(|_| {
                let vq = rng.below(2 * bound as u64 + 1) as i64 - bound;
                rng.next_u64() as u32 as u64 | (vq as i32 as u32 as u64) << 32
            }));
            let expected: Vec<u64> =
                slots.iter().map(|&s| ring.combine(s as u32, (s >> 32) as u32 as i32 as f64)).collect();
            ring.combine_all(&mut slots);
            assert_eq!(slots, expected, "n = {n}");
        }
    }

    #[test]
    fn the_word_ring_takes_exactly_its_moduli() {
        for n in [1u64, 3, 8, 8 * 1_000_000_000, (1 << 16) * ((1 << 21) - 1), 1 << 16, (1 << 21) - 2] {
            assert!(WordRing::new(n).is_some(), "{n}");
        }
        for n in [1u64 << 17, 3 << 17, 8 * ((1 << 21) + 1), 8 * 1_000_000_007] {
            assert!(WordRing::new(n).is_none(), "{n}");
        }
    }

    #[inline(always)]
    fn karatsuba_case_generic<B: Dots>(_unit: ()) {
        let mut rng = SplitMix64(0x4A2A);
        let word = |rng: &mut SplitMix64| (rng.below(2 * 1536 + 1) as i32 - 1536) & 0xFFFF;
        let rows: Vec<PairRow> =
            (0..64).map(|_| PairRow(std::array::from_fn(|_| word(&mut rng) | (word(&mut rng) << 16)))).collect();
        let other: Vec<PairRow> = rows.iter().rev().copied().collect();
        let (plane, second) = (Plane { rows: &rows, mask: usize::MAX }, Plane { rows: &other, mask: usize::MAX });
        let summed = SumRows(plane, second);
        for steps in [0, 1, 2, 3, 7, 8, 21] {
            let base = 2 * steps + 8;
            let (mut fast, mut plain) = ([B::Pairs::zero(); 8], [B::Pairs::zero(); 8]);
            karatsuba_dots(&mut fast, steps, base, (plane, 3), plane);
            sliding_dots(&mut plain, steps, base, (plane, 3), plane);
            assert_eq!(fast.map(B::Pairs::to_array), plain.map(B::Pairs::to_array), "{}: steps {steps}", B::LEVEL);
            karatsuba_dots(&mut fast, steps, base, (summed, 3), summed);
            sliding_dots(&mut plain, steps, base, (summed, 3), summed);
            assert_eq!(
                fast.map(B::Pairs::to_array),
                plain.map(B::Pairs::to_array),
                "{}: summed, steps {steps}",
                B::LEVEL
            );
        }
    }

    crate::simd::multiversion! {
        fn karatsuba_case(unit: ()) => karatsuba_case_generic;
    }

    /// The blocked Karatsuba sums against the plain ones, at the largest words the
    /// callers allow (limbs up to ±1536, their sums and differences up to ±3072), on
    /// every parity of steps and on stored and summed planes, on every backend.
    #[test]
    fn karatsuba_dots_match_the_plain_sums() {
        for simd in Simd::available() {
            karatsuba_case(simd, ());
        }
    }

    #[inline(always)]
    fn kernel_run_generic<B: Dots>(
        rational: &RationalLanes,
        ring: &WordRing,
        m: usize,
        path: XPath,
        rows: &mut [PairRow],
    ) -> Vec<u64> {
        let layout = Layout::for_vectors::<B::Pairs>(rational.order(), m, path);
        run_kernel::<B::Pairs>(ring, rational, m, path, layout, rows)
    }

    crate::simd::multiversion! {
        /// The kernel with `x` on `path`, whichever path the backend would choose.
        fn kernel_run(rational: &RationalLanes, ring: &WordRing, m: usize, path: XPath, rows: &mut [PairRow]) -> Vec<u64>
            => kernel_run_generic;
    }

    #[inline(always)]
    fn layout_generic<B: Dots>(order: usize, m: usize, path: XPath) -> Layout {
        Layout::for_vectors::<B::Pairs>(order, m, path)
    }

    crate::simd::multiversion! {
        /// The layout the kernel uses on `simd`'s backend with `x` on `path`.
        fn layout_on(order: usize, m: usize, path: XPath) -> Layout => layout_generic;
    }

    #[inline(always)]
    fn path_generic<B: Dots>(ring: &WordRing, rational: &RationalLanes) -> XPath {
        XPath::for_vectors::<B::Pairs>(ring, rational)
    }

    crate::simd::multiversion! {
        /// The path of `x` the kernel chooses on `simd`'s backend.
        fn path_on(ring: &WordRing, rational: &RationalLanes) -> XPath => path_generic;
    }

    /// `f64` lanes for `x` exactly where a dot product is several instructions and a
    /// fused multiply-add one (AVX2 without VNNI; every aarch64 level), and there for the
    /// instance's modulus; never where the sums could pass `2^53`.
    #[test]
    fn x_runs_in_doubles_where_a_dot_product_is_two_instructions() {
        let characters = crate::games::kayles::character_signs();
        let rational = RationalLanes::shared(&characters).filter(fits_words).unwrap();
        let ring = WordRing::new(8 * 1_000_000_000).unwrap();
        let doubles: &[&str] = if cfg!(target_arch = "aarch64") { &["neon", "portable"] } else { &["avx2"] };
        for simd in Simd::available() {
            let expected = if doubles.contains(&simd.name()) { XPath::Doubles } else { XPath::Words };
            assert_eq!(path_on(simd, &ring, &rational), expected, "{simd}");
        }
        // A recurrence as heavy as the words take (Σ|den_i| just below 2^20): its sums
        // fit below 2^53 for N = 8·10^9 (2^20·(N/2 + 2) < 2^52), not for the largest N of
        // the words' range (2^36·2^20).
        let widest = WordRing::new((1 << 16) * ((1 << 21) - 1)).unwrap();
        let mut heavy = rational.clone();
        for (i, row) in heavy.den.to_mut().iter_mut().enumerate().skip(1) {
            *row = [if i <= 64 { DEN_LIMIT } else { 0 }; LANES16];
        }
        assert!(fits_words(&heavy));
        let fits = XDoubles::<<crate::simd::Portable as Dots>::Pairs>::fits;
        assert!(fits(&ring, &rational) && fits(&ring, &heavy));
        assert!(!fits(&widest, &heavy));
    }

    /// The word path itself (no fallback) against `catalan`, on the sizes where its
    /// structure changes: the direct small outputs, the first blocks, a partial last
    /// block, an `x` ring that wraps several times, more than one chunk of `CHUNK_STEPS`
    /// (m > 2·(LOW + 2·CHUNK_STEPS)), and outputs from `UNREDUCED_BELOW` on; once with the
    /// scratch rows dirty; on every backend.
    #[test]
    fn words_match_catalan_on_every_path() {
        let mut rng = SplitMix64(0x3C0);
        let chunked = 2 * (LOW + 2 * CHUNK_STEPS) + 3 * R + 5;
        let mut characters = check_characters(60, &mut rng);
        characters.extend(crate::games::kayles::character_signs().into_iter().take(16 - characters.len()));
        let blocked_from = BLOCKED_FROM;
        for (m, moduli) in [
            (0usize, &[16 * 1_000_000_000u64, 6][..]),
            (1, &[16 * 1_000_000_000]),
            (blocked_from - 1, &[16 * 1_000_000_000, 2 * 3]),
            // The first block alone, partial and whole; the first block with blocked steps.
            (blocked_from, &[16 * 1_000_000_000, 2 * 3]),
            (blocked_from + 1, &[16 * 1_000_000_000, 2 * (1 << 16) * ((1 << 21) - 1)]),
            (blocked_from + R - 1, &[16 * 1_000_000_000, 2 * 1953125]),
            (blocked_from + R, &[16 * 1_000_000_000, 2 * 3]),
            (blocked_from + 2 * R + 1, &[16 * 1_000_000_000, 2 * (1 << 16) * ((1 << 21) - 1)]),
            (blocked_from + 3 * R - 1, &[16 * 1_000_000_000, 2 * (1 << 16) * ((1 << 21) - 1), 16]),
            (blocked_from + 3 * R + 3, &[16 * 1_000_000_000, 2 * (1 << 16) * ((1 << 21) - 1), 2 * 1953125]),
            (chunked, &[16 * 1_000_000_000, 2 * (1 << 16) * ((1 << 21) - 1)]),
            // The last blocks of i32 sums (t_block_words), then partial sums reduced
            // before the Karatsuba recombination.
            (UNREDUCED_BELOW - 2, &[2 * (1 << 16) * ((1 << 21) - 1), 16 * 1_000_000_000]),
            (UNREDUCED_BELOW + 3 * R, &[2 * (1 << 16) * ((1 << 21) - 1), 16 * 1_000_000_000, 2 * 1953125]),
        ] {
            for &modulus in moduli {
                let ring = WordRing::new(modulus / 2).unwrap();
                let rational = RationalLanes::shared(&characters).filter(fits_words).unwrap();
                let expected = series_catalan(Simd::portable(), &characters, m, modulus);
                let paths: &[XPath] = if XDoubles::<<crate::simd::Portable as Dots>::Pairs>::fits(&ring, &rational) {
                    &[XPath::Words, XPath::Doubles]
                } else {
                    &[XPath::Words]
                };
                for (simd, &path) in Simd::available().into_iter().flat_map(|s| paths.iter().map(move |p| (s, p))) {
                    let layout = layout_on(simd, rational.order(), m, path);
                    let rows = layout.rows;
                    let got = kernel_run(simd, &rational, &ring, m, path, &mut vec![PairRow::ZERO; rows]);
                    assert_eq!(
                        c_sum_from_t_sum(got, characters.len(), modulus),
                        expected,
                        "{simd}, {path:?}: m={m} M'={modulus}"
                    );
                    // Dirty rows: only x's rows must start at zero (Scratch::with zeroes
                    // everything; this checks that T never reads a row it did not write).
                    let mut dirty = vec![PairRow([0x5A5A_A5A5u32 as i32; PAIR_LANES]); rows];
                    dirty[..layout.zeroed()].fill(PairRow::ZERO);
                    let got = kernel_run(simd, &rational, &ring, m, path, &mut dirty);
                    assert_eq!(
                        c_sum_from_t_sum(got, characters.len(), modulus),
                        expected,
                        "{simd}, {path:?}: dirty, m={m}"
                    );
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

        /// Random moduli of the words' range (`M'/2 = 2^a·q`), random characters (sixteen
        /// lanes and fewer), against the reference.
        #[test]
        fn words_match_the_reference_on_their_moduli(
            m in 0usize..110,
            two_bits in 0u32..=16,
            odd_half in 0u64..(1 << 20),
            characters in 1usize..=16,
            seed in proptest::prelude::any::<u64>(),
        ) {
            let modulus = 2 * ((2 * odd_half + 1) << two_bits);
            let mut rng = SplitMix64(seed);
            let batch: Vec<BlockSigns> = (0..characters)
                .map(|i| {
                    let (preperiod, period) = (i * 7 % 23, 1 + i * 5 % 37);
                    let head = (0..preperiod + period).map(|_| if rng.next_u64() & 1 == 0 { 1 } else { -1 }).collect();
                    BlockSigns::new(head, preperiod, period)
                })
                .collect();
            let mut expected = vec![0u64; m + 1];
            for signs in &batch {
                let c = crate::kernels::series::series_reference(&signs.materialize(2 * m + 2), m, modulus);
                for (e, c) in expected.iter_mut().zip(c) {
                    *e = ((*e as u128 + c as u128) % modulus as u128) as u64;
                }
            }
            for simd in Simd::available() {
                proptest::prop_assert_eq!(series_catalan_words(simd, &batch, m, modulus), expected.clone(), "{}", simd);
            }
        }
    }

    /// A ring's rows are stored twice, so every run of up to a ring's rows, wrapping or
    /// not, reads what the masked reads give; a run past the stored rows is refused.
    #[test]
    fn runs_of_a_ring_read_the_same_rows_as_the_masked_plane() {
        const RING: usize = 8;
        let mut rows = vec![PairRow::ZERO; 3 * 2 * RING];
        let mut planes = Planes::new(&mut rows, 2 * RING, RING, Ring::Mirrored(RING));
        type Pairs = <crate::simd::Portable as Dots>::Pairs;
        let mut prev = [Pairs::zero(); 3];
        for j in 0..5 * RING {
            let value: [Pairs; 3] = std::array::from_fn(|p| Pairs::splat((100 * p + j) as i32));
            planes.store(j, prev, value);
            prev = value;
        }
        let plane = planes.plane(1);
        for lo in 0..3 * RING {
            for hi in lo..=lo + RING {
                let run = plane.run(lo, hi).expect("a run of at most a ring");
                for e in lo..hi {
                    let (a, b): (Pairs, Pairs) = (run.even(e - lo), plane.even(e));
                    assert_eq!(a.to_array(), b.to_array(), "run {lo}..{hi}, row {e}");
                }
            }
            assert!(plane.run(lo, lo + 2 * RING + 1).is_none());
        }
        // A plane that is not a ring: runs end with its rows.
        let flat = Plane { rows: &rows[..RING], mask: usize::MAX };
        assert!(flat.run(2, RING).is_some() && flat.run(2, RING + 1).is_none());
    }

    /// The check before the unchecked loads of [`window_part`]: a run accepts the ranges
    /// inside its slice and refuses every other, and the unchecked load reads what the
    /// checked one does.
    #[test]
    fn a_run_checks_the_rows_its_unchecked_loads_read() {
        type Pairs = <crate::simd::Portable as Dots>::Pairs;
        let rows: Vec<PairRow> = (0..6)
            .map(|i| {
                let mut row = PairRow::ZERO;
                Pairs::splat(i).store(&mut row);
                row
            })
            .collect();
        let run = Run(&rows[1..5]);
        let refused = |lo: Option<usize>, hi: usize| std::panic::catch_unwind(|| run.assert_rows(lo, hi)).is_err();
        for (lo, hi) in [(0, 0), (0, 4), (2, 3), (4, 4)] {
            assert!(!refused(Some(lo), hi), "{lo}..{hi}");
        }
        for (lo, hi) in [(None, 2), (Some(0), 5), (Some(3), 2), (Some(5), 5)] {
            assert!(refused(lo, hi), "{lo:?}..{hi}");
        }
        for e in 0..4 {
            // SAFETY: rows 0..4 of the run were accepted above.
            let unchecked = unsafe { run.even_part_unchecked::<Pairs>(e, 0) };
            let (a, b) =
                (Pairs::zero().with_part(0, unchecked), Pairs::zero().with_part(0, run.even_part::<Pairs>(e, 0)));
            assert_eq!(a.to_array(), b.to_array(), "row {e}");
        }
    }

    #[test]
    fn fresh_scratch_rows_are_zero_and_writable() {
        for rows in [0, 1, 2, 63, 64, 65, 1248, Scratch::ROWS] {
            let mut fresh = Scratch::fresh_zero_rows(rows);
            assert_eq!((fresh.len(), fresh.capacity()), (rows, rows));
            assert!(fresh.iter().all(|row| *row == PairRow::ZERO), "{rows}");
            assert!(fresh.as_ptr().addr().is_multiple_of(64), "{rows}: rows are 64-byte aligned");
            fresh.iter_mut().enumerate().for_each(|(i, row)| row.0 = [i as i32; PAIR_LANES]);
            assert!(fresh.iter().enumerate().all(|(i, row)| row.0 == [i as i32; PAIR_LANES]));
            // Grown and dropped through Vec's own paths: the layout must be Vec's.
            fresh.push(PairRow::ZERO);
            assert_eq!(fresh.len(), rows + 1);
        }
    }

    #[test]
    fn the_scratch_serves_small_and_large_requests() {
        for rows in [0, 1, 3, Scratch::ROWS, Scratch::ROWS + 1] {
            let zeroed = rows / 2;
            let len = Scratch::with(rows, zeroed, |r| {
                assert!(r[..zeroed].iter().all(|row| *row == PairRow::ZERO));
                r.iter_mut().for_each(|row| row.0[0] = 1);
                r.len()
            });
            assert_eq!(len, rows);
        }
    }
}
