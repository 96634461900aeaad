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
//! `x_doubles.rs`): one residue modulo `N` per coefficient and one exact
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
//! Files. This one holds the entry points, the choice of `x`'s path and the shared
//! constants; beside it:
//!
//! | file | what it holds |
//! |---|---|
//! | `ring.rs` | [`WordRing`]: the split `N = 2^a·q`, the balanced reduction, the Chinese remainders of the lane sums |
//! | `scratch.rs` | the rows reused from call to call, and where the planes of `x` and `T` sit in them |
//! | `rows.rs` | the planes of word pairs, runs of consecutive rows, the sum plane `s = v0 + v1` |
//! | `windows.rs` | the blocked sums: Karatsuba on 2×2 blocks, or sliding windows one register part at a time |
//! | `x_words.rs`, `x_doubles.rs` | `x`'s recurrence in word planes, or in `f64` lanes |
//! | `t_series.rs` | `T`'s recurrence: direct, blocked and per-output parts of `C_k`, and the loop over blocks |
//! | `tests.rs` | the fast paths against their plain forms and against `catalan`, on every backend |
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

mod ring;
mod rows;
mod scratch;
mod t_series;
#[cfg(test)]
mod tests;
mod windows;
mod x_doubles;
mod x_words;

pub use self::ring::WordRing;
use self::rows::{Planes, Ring};
use self::scratch::{Layout, Scratch};
use self::t_series::Kernel;
use self::x_doubles::XDoubles;
use self::x_words::XRecurrence;

use super::catalan::series_catalan_generic;
use super::rational::{LANES16, RationalLanes};
use super::{BlockSigns, c_sum_from_t_sum};
use crate::simd::Simd;
use crate::simd::dots::{Dots, DoubleVec, PAIR_LANES, PairRow, PairVec};

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
/// The largest `|den_i|`: the sum of two (in [`karatsuba_dots`](windows::karatsuba_dots)) is still one signed word.
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

/// The coefficients of `x`, computed a block of `R` at a time, for `T`.
trait XSeries<P: PairVec> {
    /// Computes `x_{k0..k0+R}`, `k0` a multiple of `R`, after every earlier block.
    fn block(&mut self, k0: usize);
    /// `x_k` (computed, at most `X_VALUES` ago).
    fn value(&self, k: usize) -> Coefficient<P>;
}

/// The `x` coefficients kept as values for `T`, which runs at most `2R` behind.
const X_VALUES: usize = 4 * R;
