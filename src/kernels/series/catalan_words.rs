//! The Catalan form `T + T^2 = x` for sixteen characters at once, in 16-bit words:
//! every multiplication is a VNNI pairwise dot product (`vpdpwssd`) that adds two
//! convolution terms for all sixteen characters.
//!
//! Plain algorithm (one character, modulo `N = M'/2`), as in [`super::catalan`]:
//!
//! ```text
//! x_k = num_k - Σ_{1<=i<=d} den_i·x_{k-i}                         (d = deg den ≈ 88)
//! T_k = x_k - C_k,   C_k = Σ_{0<i<k} T_i·T_{k-i} = 2·Σ_{0<i<k/2} T_i·T_{k-i} + [k even]·T_{k/2}^2
//! ```
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
//!   with `s = v0 + v1`, `|s| <= 1536`. A limb product is below `1536^2 < 2^21.2`, so a
//!   lane adds 400 of them (200 dot products) before `i32` could overflow.
//!
//! So a coefficient of `T` is four words per character (planes `2^a`, `v0`, `v1`, and `s`
//! computed on the fly), and the `x` recurrence needs three (its coefficients `den_i`
//! are small integers, one word, no limbs). Between the dot products, values are
//! exact integers in `f64` lanes ([`Doubles`]): sums, Karatsuba recombination, and the
//! reduction `v - q·round(v/q)`.
//!
//! Layout. In each plane, row `j` holds `(v_j, v_{j+1})` in the two words of every
//! lane. Then `swap(row[i])·row[k-1-i] = v_{i+1}·v_{k-1-i} + v_i·v_{k-i}`: two terms of
//! the convolution for output `k`, for sixteen characters, in one instruction.
//!
//! Optimisations, in order of effect:
//! 1. Sixteen characters × two terms per instruction, no reduction inside any sum.
//! 2. Register blocking: `R` consecutive outputs share each left operand and a sliding
//!    window of right operands (two new rows per step), so a step of `R` dot products
//!    costs three loads instead of `2R` (the plain loop is load-bound).
//! 3. A short dependency chain from one output to the next. Each output needs the one
//!    before it, so the time per output is bounded below by the latency of that path,
//!    not by its work. The few newest terms (`i <= NEW`, `T_i·T_{k-i}` with `T_1..T_NEW`
//!    fixed) are added last, in `f64`, to the fully reduced rest: the path from
//!    `T_{k-1}` to `T_k` is two fused multiply-adds and one reduction (about 20 cycles).
//!    The other terms read `T_{k-NEW-1}` and older, so their dot products, limb splits
//!    and reductions overlap the chain. The `x` recurrence does the same with
//!    `den_1, den_2`.
//! 4. Blocks of `R` outputs: only the terms `i <= LOW` are summed one output at a time;
//!    the bulk of each sum and `T`'s short undoubled middle stretch `L < i < k - L`
//!    (`C_k = 2·Σ_{i<=L} + Σ_{L<i<k-L}`, one `L` per block) are blocked. `LOW = 2R`, so a
//!    block's blocked part never reads the block just before it, and the two overlap.

use super::pairs::{Doubles, PAIR_LANES, PairRow, Pairs};
use super::rational::{LANES16, RationalLanes};
use super::split::SplitModulus;
use super::{BlockSigns, c_sum_from_t_sum, series_catalan};

/// Outputs computed together (accumulators in registers).
const R: usize = 8;
/// `T`'s terms `NEW < i <= LOW` are summed one output at a time, the others blocked.
/// `LOW = 2R` keeps the blocked part of a block from reading the block just before it,
/// so that the two can overlap in the out-of-order window.
const LOW: usize = R;
/// Dot-product steps of a blocked sum between conversions of the `i32` accumulators to
/// `f64`: each step adds at most `2·1536^2 < 2^22.2` to a lane, so 256 steps stay below
/// `2^30.2` (the `2^a` plane wraps by design and needs no bound).
const CHUNK_STEPS: usize = 256;
/// The limb radix: `v = v0 + LIMB·v1`.
const LIMB: f64 = 2048.0;

/// Whether this build runs the dot products as AVX-512 VNNI instructions (otherwise
/// lane by lane, correct but slow: the games then prefer [`super::catalan`]).
pub const NATIVE: bool = cfg!(all(target_arch = "x86_64", target_feature = "avx512f", target_feature = "avx512vnni"));

/// The moduli this variant takes: `N = 2^a·q` with `a <= 16` and odd `q < 2^21`.
#[derive(Clone, Copy, Debug)]
pub struct WordRing {
    split: SplitModulus,
    /// `2^a - 1`.
    mask: u32,
    q: f64,
    q_inverse: f64,
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
        Some(Self { split, mask: ((1u64 << split.two_bits) - 1) as u32, q, q_inverse: 1.0 / q })
    }

    /// `v - q·round(v/q)` for integers `|v| <= 2^52`: the result is an integer with
    /// `|r| <= q/2 + 1` (the quotient's estimate is off by at most `|v|·2^-52 / q + 1/2`
    /// from `v/q`), and exact (the fused multiply-add rounds once, to an integer that
    /// `f64` holds).
    #[inline(always)]
    fn balance(&self, v: Doubles) -> Doubles {
        (v * Doubles::splat(self.q_inverse)).round().neg_mul_add(Doubles::splat(self.q), v)
    }

    /// The residue in `[0, q)` of an integer `|v| < 2^52`.
    fn residue_odd(&self, v: f64) -> u64 {
        let r = (-(v * self.q_inverse).floor()).mul_add(self.q, v);
        // r is within a unit of [0, q) (the estimate of v/q is off by less than 1/2).
        (if r < 0.0 {
            r + self.q
        } else if r >= self.q {
            r - self.q
        } else {
            r
        }) as u64
    }

    /// The residue modulo `N` of `v2 mod 2^a` and `vq mod q` (Chinese remainders),
    /// `r = v2 + 2^a·((vq - v2)·(2^a)^{-1} mod q)`, with `f64` steps instead of divisions
    /// (every product below `2^42`).
    fn combine(&self, v2: u32, vq: f64, inverse_of_pow2: f64) -> u64 {
        let v2 = (v2 & self.mask) as f64;
        let diff = self.residue_odd(self.residue_odd(vq) as f64 - v2);
        (v2 as u64) + (self.residue_odd(diff as f64 * inverse_of_pow2) << self.split.two_bits)
    }
}

/// `Σ_h c_h(0..=m) mod modulus` over `characters`.
pub fn series_catalan_words(characters: &[BlockSigns], m: usize, modulus: u64) -> Vec<u64> {
    let n = modulus / 2;
    let Some(ring) = WordRing::new(n) else {
        return series_catalan(characters, m, modulus);
    };
    let mut t_sum: Option<Vec<u64>> = None;
    for group in characters.chunks(PAIR_LANES) {
        let Some(rational) = RationalLanes::new(group).filter(fits_words) else {
            return series_catalan(characters, m, modulus);
        };
        let group_sum = t_lane_sums(&ring, &rational, m);
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

/// The largest `Σ|den_i|` of a lane: the recurrence's sums then stay below
/// `2^20·1024 = 2^30` in `i32` without any chunking.
const DEN_WEIGHT_LIMIT: i64 = 1 << 20;

/// The largest `|den_i|`: the sum of two (in [`karatsuba_dots`]) is still one signed word.
const DEN_LIMIT: i32 = (1 << 14) - 1;

/// Whether the recurrence fits the words: every `|den_i| <= DEN_LIMIT` and the sums stay
/// in `i32` ([`DEN_WEIGHT_LIMIT`]).
fn fits_words(rational: &RationalLanes) -> bool {
    (0..LANES16).all(|lane| {
        let weight: i64 = rational.den.iter().map(|c| (c[lane] as i64).abs()).sum();
        weight <= DEN_WEIGHT_LIMIT && rational.den.iter().all(|c| c[lane].abs() <= DEN_LIMIT)
    })
}

/// One coefficient of all sixteen characters: its `Z/2^a` word (as an `i32` lane, only the
/// low 16 bits matter) and its balanced `Z/q` value.
#[derive(Clone, Copy)]
struct Coefficient {
    two: Pairs,
    odd: Doubles,
}

impl Coefficient {
    fn zero() -> Self {
        Coefficient { two: Pairs::zero(), odd: Doubles::zero() }
    }

    /// The words of the three planes, `[two, v0, v1]`: the limbs are `v1 = round(v / 2^11)`
    /// and `v0 = v - 2^11·v1`, so for `|v| <= 2^20`, `|v1| <= 512` and `|v0| <= 1024`.
    #[inline(always)]
    fn words(self) -> [Pairs; 3] {
        let hi = (self.odd * Doubles::splat(1.0 / LIMB)).round();
        let lo = hi.neg_mul_add(Doubles::splat(LIMB), self.odd);
        [self.two, lo.to_pairs(), hi.to_pairs()]
    }
}

/// The rows of one character group: in every plane, row `j` holds `(v_j, v_{j+1})`.
struct Planes<'a> {
    /// `v mod 2^16`, one word (the `Z/2^a` part).
    two: &'a mut [PairRow],
    /// The low limb `v0` of the balanced `Z/q` part.
    lo: &'a mut [PairRow],
    /// The high limb `v1`.
    hi: &'a mut [PairRow],
}

impl<'a> Planes<'a> {
    /// Rows to reserve for three planes of `len` rows each: each plane starts 1 KiB past a
    /// multiple of 4 KiB from the one before, so that the same row of two planes (read
    /// together) never shares an L1 set or the low 12 address bits (4K aliasing, which
    /// stalls loads behind unrelated stores).
    fn stride(len: usize) -> usize {
        len.next_multiple_of(64) + 16
    }

    /// Three planes of `len` rows at [`Self::stride`] in `rows` (zeroed).
    fn in_rows(rows: &'a mut [PairRow], len: usize) -> Self {
        let stride = Self::stride(len);
        let (two, rest) = rows.split_at_mut(stride);
        let (lo, hi) = rest.split_at_mut(stride);
        Self { two: &mut two[..len], lo: &mut lo[..len], hi: &mut hi[..len] }
    }

    /// Stores coefficient `j`, given as its words (`[two, v0, v1]`, see
    /// [`Coefficient::words`]) and those of coefficient `j - 1`: completes row `j - 1`
    /// and starts row `j` (its high word, `v_{j+1}`, comes with the next coefficient).
    #[inline(always)]
    fn push(&mut self, j: usize, prev: [Pairs; 3], value: [Pairs; 3]) {
        for ((plane, p), v) in [&mut *self.two, &mut *self.lo, &mut *self.hi].into_iter().zip(prev).zip(value) {
            Pairs::pack(p, v).store(&mut plane[j - 1]);
            Pairs::pack(v, Pairs::zero()).store(&mut plane[j]);
        }
    }

    /// Coefficient `j` (the low words of row `j`).
    #[inline(always)]
    fn value(&self, j: usize) -> Coefficient {
        let [two, lo, hi] = [&*self.two, &*self.lo, &*self.hi].map(|plane| Pairs::load(&plane[j]).low_word_value());
        Coefficient { two, odd: Doubles::from_pairs(hi).mul_add(Doubles::splat(LIMB), Doubles::from_pairs(lo)) }
    }
}

/// Where the rows of one plane come from: stored, or (`s = v0 + v1`) added on the fly.
trait Rows: Copy {
    fn row(self, j: usize) -> Pairs;
}

impl Rows for &[PairRow] {
    #[inline(always)]
    fn row(self, j: usize) -> Pairs {
        Pairs::load(&self[j])
    }
}

/// The plane of `s = v0 + v1`, word by word from the two limb planes.
#[derive(Clone, Copy)]
struct SumRows<'a>(&'a [PairRow], &'a [PairRow]);

impl Rows for SumRows<'_> {
    #[inline(always)]
    fn row(self, j: usize) -> Pairs {
        Pairs::load(&self.0[j]).add_words(Pairs::load(&self.1[j]))
    }
}

/// `acc[r] += Σ_{t < steps} left(t) · rows(base + r - 2t)` for `r < B`: the right operands
/// of consecutive outputs are consecutive rows, and one step later the same rows serve
/// the output two further on, so a step loads one left operand and two new rows.
/// Reads rows down to `base - 2·steps` (one step ahead).
#[inline(always)]
fn sliding_dots<const B: usize, S: Rows>(
    acc: &mut [Pairs; B],
    steps: usize,
    base: usize,
    left: impl Fn(usize) -> Pairs,
    rows: S,
) {
    if steps == 0 {
        return;
    }
    let mut window: [Pairs; B] = std::array::from_fn(|r| rows.row(base + r));
    for t in 0..steps {
        let a = left(t);
        for (sum, &right) in acc.iter_mut().zip(&window) {
            *sum = sum.dot_add(a, right);
        }
        for r in (2..B).rev() {
            window[r] = window[r - 2];
        }
        let next = base - 2 * t - 2;
        window[0] = rows.row(next);
        if B > 1 {
            window[1] = rows.row(next + 1);
        }
    }
}

/// [`sliding_dots`] for `R = 8` outputs with one level of Karatsuba, 12 dot products
/// per two steps instead of 16.
///
/// Two steps `t, t+1` and two outputs `r, r+2` (whose rows are two apart, like the
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
/// below `2^12` in size). The recombined sums are the plain sums exactly, whatever the
/// intermediate accumulators do: `i32` wrapping is exact modulo `2^32`, and the plain
/// sums fit.
#[inline(always)]
fn karatsuba_dots<S: Rows>(acc: &mut [Pairs; 8], steps: usize, base: usize, left: impl Fn(usize) -> Pairs, rows: S) {
    const FIRST: [usize; 4] = [0, 1, 4, 5];
    let pairs = steps / 2;
    if pairs > 0 {
        let (mut m, mut p, mut q) = ([Pairs::zero(); 4], [Pairs::zero(); 4], [Pairs::zero(); 4]);
        // w[i] = W[j - 2 + i], d[i] = Δ(j - 2 + i), for j = base - 2t.
        let mut w: [Pairs; 10] = std::array::from_fn(|i| rows.row(base + i - 2));
        let mut d: [Pairs; 8] = std::array::from_fn(|i| w[i].sub_words(w[i + 2]));
        for pair in 0..pairs {
            let t = 2 * pair;
            let (l0, l1) = (left(t), left(t + 1));
            let sum = l0.add_words(l1);
            for (i, &r) in FIRST.iter().enumerate() {
                m[i] = m[i].dot_add(sum, w[r + 2]);
                p[i] = p[i].dot_add(l1, d[r]);
                q[i] = q[i].dot_add(l0, d[r + 2]);
            }
            // Slide by four rows: j -> j - 4.
            let j = base - 2 * t;
            for i in (4..8).rev() {
                w[i] = w[i - 4];
                d[i] = d[i - 4];
            }
            for (i, row) in w.iter_mut().take(4).enumerate() {
                *row = rows.row(j - 6 + i);
            }
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
        let a = left(t);
        for (r, sum) in acc.iter_mut().enumerate() {
            *sum = sum.dot_add(a, rows.row(base + r - 2 * t));
        }
    }
}

/// `acc[r] += Σ_{t < steps} left(t) · rows(base + r - 2t)`, by [`karatsuba_dots`] for full
/// blocks and [`sliding_dots`] otherwise. Reads rows from `base - 2·steps - 4` to
/// `base + B + 1`.
#[inline(always)]
fn blocked_dots<const B: usize, S: Rows>(
    acc: &mut [Pairs; B],
    steps: usize,
    base: usize,
    left: impl Fn(usize) -> Pairs,
    rows: S,
) {
    match <&mut [Pairs; 8]>::try_from(&mut acc[..]) {
        Ok(eight) => karatsuba_dots(eight, steps, base, left, rows),
        Err(_) => sliding_dots(acc, steps, base, left, rows),
    }
}

/// `Σ_lanes T_k mod N` for `k = 0..=m`, for the characters of `rational`.
fn t_lane_sums(ring: &WordRing, rational: &RationalLanes, m: usize) -> Vec<u64> {
    // One allocation for all the rows (x first, then T).
    let (x_rows, t_rows) = (x_padding(rational.order()) + m + 2, m + 2);
    let mut rows = vec![PairRow::ZERO; 3 * (Planes::stride(x_rows) + Planes::stride(t_rows))];
    let (x_part, t_part) = rows.split_at_mut(3 * Planes::stride(x_rows));
    let x = x_planes(ring, rational, m, Planes::in_rows(x_part, x_rows));
    t_planes(ring, &x, m, Planes::in_rows(t_part, t_rows))
}

/// Terms `den_i·x_{k-i}`, `i <= NEW_X`, go through the short `f64` path (optimisation 3).
const NEW_X: usize = 2;
/// The other terms with `i <= LOW_X` are summed one output at a time, the rest blocked.
const LOW_X: usize = R;

/// Zero rows before `x_0` in the `x` planes, so that the recurrence reads zeros for
/// `x_{k-i}`, `i > k` (the blocked sums read down to `2R + 4` rows below `k - order`).
fn x_padding(order: usize) -> usize {
    order + 2 * R + 8
}

/// `x_0..=x_m` in the three planes; row `pad + j` holds `(x_j, x_{j+1})`, with
/// [`x_padding`] zero rows before `x_0`.
fn x_planes<'a>(ring: &WordRing, rational: &RationalLanes, m: usize, mut planes: Planes<'a>) -> Planes<'a> {
    let order = rational.order();
    let pad = x_padding(order);
    assert_eq!(planes.two.len(), pad + m + 2);
    let den = |i: usize| Pairs::from_array(rational.den.get(i).copied().unwrap_or([0; LANES16]));
    let newest: [Coefficient; NEW_X] = std::array::from_fn(|j| {
        let d = den(j + 1);
        Coefficient { two: d, odd: Doubles::from_pairs(d) }
    });
    // Pair t covers i = NEW_X+1+2t and i+1 as (den_{i+1}, den_i); with the row
    // (x_{k-i-1}, x_{k-i}), index pad + k - i - 1, the dot product adds both terms.
    let pairs: Vec<Pairs> = (NEW_X + 1..=order).step_by(2).map(|i| Pairs::pack(den(i + 1), den(i))).collect();
    let low_steps = ((LOW_X - NEW_X) / 2).min(pairs.len());
    let (low_pairs, main_pairs) = pairs.split_at(low_steps);
    let num = |k: usize| Pairs::from_array(rational.num.get(k).copied().unwrap_or([0; LANES16]));
    // x_{k-1}, x_{k-2}, and the words of x_{k-1}.
    let mut last = [Coefficient::zero(); NEW_X];
    let mut last_words = [Pairs::zero(); 3];

    // Output k from the blocked sums of its older terms.
    let mut finish = |planes: &mut Planes, k: usize, acc: [Pairs; 3]| {
        let row = pad + k - NEW_X - 2;
        // The low pairs, oldest first, so that the newest row (written by output k-3)
        // joins the sum last.
        let low = |acc: Pairs, rows: &[PairRow]| {
            low_pairs.iter().enumerate().rev().fold(acc, |a, (t, d)| a.dot_add(*d, rows.row(row - 2 * t)))
        };
        let [two, lo, hi] = [low(acc[0], planes.two), low(acc[1], planes.lo), low(acc[2], planes.hi)];
        // Z/q: |Σ| <= 2^20·1024·(1 + 2^11) < 2^42, |num| small: exact in f64.
        let older = Doubles::from_pairs(num(k))
            - Doubles::from_pairs(hi).mul_add(Doubles::splat(LIMB), Doubles::from_pairs(lo));
        let mut value = Coefficient { two: num(k) - two, odd: older };
        // The newest terms, x_{k-1} last: |den·x| <= 2^15·2^20.
        for (d, x) in newest.iter().zip(&last).rev() {
            value.two = value.two - d.two * x.two;
            value.odd = d.odd.neg_mul_add(x.odd, value.odd);
        }
        value.odd = ring.balance(value.odd);
        last.rotate_right(1);
        last[0] = value;
        let words = value.words();
        planes.push(pad + k, last_words, words);
        last_words = words;
    };
    // The blocked sums of B outputs from k0 on: pairs t >= low_steps.
    fn blocked<const B: usize>(planes: &Planes, main_pairs: &[Pairs], base: usize) -> [[Pairs; B]; 3] {
        let mut acc = [[Pairs::zero(); B]; 3];
        let left = |t: usize| main_pairs[t];
        blocked_dots(&mut acc[0], main_pairs.len(), base, left, &planes.two[..]);
        blocked_dots(&mut acc[1], main_pairs.len(), base, left, &planes.lo[..]);
        blocked_dots(&mut acc[2], main_pairs.len(), base, left, &planes.hi[..]);
        acc
    }

    // Blocks of R outputs; a last, partial block is summed whole (its extra outputs read
    // existing rows, below the block, and are dropped).
    for k0 in (0..=m).step_by(R) {
        let acc = blocked::<R>(&planes, main_pairs, pad + k0 - NEW_X - 2 - 2 * low_steps);
        for (r, ((&two, &lo), &hi)) in acc[0].iter().zip(&acc[1]).zip(&acc[2]).enumerate().take(m + 1 - k0) {
            finish(&mut planes, k0 + r, [two, lo, hi]);
        }
    }
    planes
}

/// `C_k = Σ_{0<i<k} T_i·T_{k-i}` in one plane, directly (for small `k`): the half sum in
/// pairs of terms, a single last term if the half has odd length, doubled, plus
/// `T_{k/2}^2` for even `k`.
#[inline(always)]
fn t_direct<S: Rows>(rows: S, k: usize) -> Pairs {
    let h = k.div_ceil(2) - 1; // terms i = 1..=h of the half sum
    let mut acc = Pairs::zero();
    let mut i = 1;
    while i < h {
        acc = acc.dot_add(rows.row(i).swap_words(), rows.row(k - 1 - i));
        i += 2;
    }
    if i == h {
        acc = acc.dot_add(rows.row(h).low_word_only(), rows.row(k - h));
    }
    acc = acc + acc;
    if k.is_multiple_of(2) {
        acc = acc.dot_add(rows.row(k / 2).low_word_only(), rows.row(k / 2));
    }
    acc
}

/// The blocked part of `C_k` for the outputs `k0 + r`, `r < B`, in one plane: terms
/// `i = LOW+1 ..= l` in steps of two, `chunk` called with the sums of every
/// [`CHUNK_STEPS`] steps (so that the limb planes never overflow `i32`).
#[inline(always)]
fn t_main<const B: usize, S: Rows>(rows: S, k0: usize, l: usize, mut chunk: impl FnMut(&[Pairs; B])) {
    let steps = (l - LOW) / 2;
    let mut done = 0;
    while done < steps {
        let n = (steps - done).min(CHUNK_STEPS);
        let mut acc = [Pairs::zero(); B];
        // Step t pairs terms i = first+2t, i+1 with rows k-1-i.
        let first = LOW + 1 + 2 * done;
        blocked_dots(&mut acc, n, k0 - first - 1, |t| rows.row(first + 2 * t).swap_words(), rows);
        chunk(&acc);
        done += n;
    }
}

/// The rest of `C_k` in one plane, but for the newest terms `i <= NEW`:
/// `2·Σ_{NEW<i<=LOW}` (oldest first, so that the newest row joins last) plus the middle
/// stretch `Σ_{l<i<k-l}`, summed once.
#[inline(always)]
fn t_rest<S: Rows>(rows: S, k: usize, l: usize) -> Pairs {
    let mut low = Pairs::zero();
    for i in (NEW + 1..LOW).step_by(2).rev() {
        low = low.dot_add(rows.row(i).swap_words(), rows.row(k - 1 - i));
    }
    let mut middle = Pairs::zero();
    let mut i = l + 1;
    while i + 1 < k - l {
        middle = middle.dot_add(rows.row(i).swap_words(), rows.row(k - 1 - i));
        i += 2;
    }
    if i == k - l - 1 {
        middle = middle.dot_add(rows.row(i).low_word_only(), rows.row(l + 1));
    }
    low + low + middle
}

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
fn t_from_sums(ring: &WordRing, k: usize, x: Coefficient, c_two: Pairs, c: [Doubles; 3]) -> Coefficient {
    let [c_lo, c_hi, c_s] = c;
    let (mut middle, mut high) = (c_s - c_lo - c_hi, c_hi);
    if k >= UNREDUCED_BELOW {
        (middle, high) = (ring.balance(middle), ring.balance(high));
    }
    let product = high.mul_add(Doubles::splat(LIMB * LIMB), middle.mul_add(Doubles::splat(LIMB), c_lo));
    Coefficient { two: x.two - c_two, odd: x.odd - product }
}

/// Terms `T_i·T_{k-i}`, `i <= NEW`, go through the short `f64` path (optimisation 3).
const NEW: usize = 4;

/// The coefficients of `T` computed so far, as far as later ones need them.
struct Outputs<'r> {
    ring: &'r WordRing,
    /// `(2^a)^{-1} mod q`, for the Chinese remainders.
    inverse: f64,
    /// `Σ_lanes T_k mod N` per coefficient.
    sums: Vec<u64>,
    /// `T_1..T_NEW`.
    first: [Coefficient; NEW],
    /// `T_{k-1}, ..., T_{k-NEW}`.
    last: [Coefficient; NEW],
    /// The words of `T_{k-1}`.
    last_words: [Pairs; 3],
}

impl Outputs<'_> {
    /// Records `T_k` (balanced) and stores it in the rows.
    #[inline(always)]
    fn store(&mut self, planes: &mut Planes, k: usize, value: Coefficient) {
        // The 2^a words wrap, and so does their sum; |Σ odd| <= 16·(2^20 + 1) is exact.
        let two = value.two.to_array().iter().fold(0i32, |s, &v| s.wrapping_add(v));
        self.sums[k] = self.ring.combine(two as u32, value.odd.sum(), self.inverse);
        if k <= NEW {
            self.first[k - 1] = value;
        }
        self.last.rotate_right(1);
        self.last[0] = value;
        let words = value.words();
        planes.push(k, self.last_words, words);
        self.last_words = words;
    }

    /// `T_k` from `value = x_k - (C_k without its newest terms)` (`Z/q` part below
    /// `2^51.1`): subtracts `2·Σ_{i<=NEW} T_i·T_{k-i}`, `T_1·T_{k-1}` last, and balances.
    /// `|2·Σ| <= 2·NEW·2^40 = 2^43`, so every value stays below `2^52`.
    #[inline(always)]
    fn add_newest(&self, ring: &WordRing, mut value: Coefficient) -> Coefficient {
        for (t, prev) in self.first.iter().zip(&self.last).rev() {
            value.two = value.two - (t.two + t.two) * prev.two;
            value.odd = (t.odd + t.odd).neg_mul_add(prev.odd, value.odd);
        }
        value.odd = ring.balance(value.odd);
        value
    }
}

/// `T_0..=T_m` from `x`; returns `Σ_lanes T_k mod N` per coefficient.
fn t_planes(ring: &WordRing, x: &Planes, m: usize, mut planes: Planes) -> Vec<u64> {
    let x_pad = x.two.len() - (m + 2);
    let mut done = Outputs {
        ring,
        inverse: ring.split.inverse_of_pow2() as f64,
        sums: vec![0; m + 1],
        first: [Coefficient::zero(); NEW],
        last: [Coefficient::zero(); NEW],
        last_words: [Pairs::zero(); 3],
    };

    // Small k: every sum directly.
    let blocked_from = (2 * LOW + 8).min(m + 1);
    for k in 1..blocked_from {
        let p = &planes;
        let c_two = t_direct(&p.two[..], k);
        let c = [t_direct(&p.lo[..], k), t_direct(&p.hi[..], k), t_direct(SumRows(p.lo, p.hi), k)];
        let mut value = t_from_sums(ring, k, x.value(x_pad + k), c_two, c.map(Doubles::from_pairs));
        value.odd = ring.balance(value.odd);
        done.store(&mut planes, k, value);
    }

    let mut k0 = blocked_from;
    while k0 <= m {
        let outputs = (m + 1 - k0).min(R);
        // l: the doubled stretch is i = 1..=l for the whole block, l <= h(k0) and l - LOW
        // even (whole steps); i = l+1 ..= k-l-1 is summed once.
        let h0 = k0.div_ceil(2) - 1;
        let l = h0 - (h0 - LOW) % 2;
        let mut main_two = [Pairs::zero(); R];
        let mut main = [[Doubles::zero(); R]; 3];
        {
            let p = &planes;
            // Chunk sums into the block's sums (from the output they belong to on).
            let add_two = |sums: &mut [Pairs], acc: &[Pairs]| {
                for (s, &a) in sums.iter_mut().zip(acc) {
                    *s = *s + a;
                }
            };
            let add_f64 = |sums: &mut [Doubles], acc: &[Pairs]| {
                for (s, &a) in sums.iter_mut().zip(acc) {
                    *s = *s + Doubles::from_pairs(a);
                }
            };
            let [main_lo, main_hi, main_s] = &mut main;
            // A last, partial block is summed whole: its extra outputs read existing rows
            // (below k0 - LOW) and are dropped.
            t_main::<R, _>(&p.two[..], k0, l, |acc| add_two(&mut main_two, acc));
            t_main::<R, _>(&p.lo[..], k0, l, |acc| add_f64(main_lo, acc));
            t_main::<R, _>(&p.hi[..], k0, l, |acc| add_f64(main_hi, acc));
            t_main::<R, _>(SumRows(p.lo, p.hi), k0, l, |acc| add_f64(main_s, acc));
        }
        for r in 0..outputs {
            let k = k0 + r;
            let p = &planes;
            let rest_two = t_rest(&p.two[..], k, l);
            let rest = [t_rest(&p.lo[..], k, l), t_rest(&p.hi[..], k, l), t_rest(SumRows(p.lo, p.hi), k, l)];
            let c_two = rest_two + main_two[r] + main_two[r];
            let c: [Doubles; 3] =
                std::array::from_fn(|i| Doubles::splat(2.0).mul_add(main[i][r], Doubles::from_pairs(rest[i])));
            let value = done.add_newest(ring, t_from_sums(ring, k, x.value(x_pad + k), c_two, c));
            done.store(&mut planes, k, value);
        }
        k0 += outputs;
    }
    done.sums
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SplitMix64;
    use crate::kernels::series::check::check_characters;

    #[test]
    fn the_word_ring_takes_exactly_its_moduli() {
        for n in [1u64, 3, 8, 8 * 1_000_000_000, (1 << 16) * ((1 << 21) - 1), 1 << 16, (1 << 21) - 2] {
            assert!(WordRing::new(n).is_some(), "{n}");
        }
        for n in [1u64 << 17, 3 << 17, 8 * ((1 << 21) + 1), 8 * 1_000_000_007] {
            assert!(WordRing::new(n).is_none(), "{n}");
        }
    }

    /// The word path itself (no fallback) against `catalan`, on the sizes where its
    /// structure changes: the direct small outputs, the first blocks, a partial last
    /// block, and more than one chunk of `CHUNK_STEPS` (m > 2·(LOW + 2·CHUNK_STEPS)).
    #[test]
    fn words_match_catalan_on_every_path() {
        let mut rng = SplitMix64(0x3C0);
        let chunked = 2 * (LOW + 2 * CHUNK_STEPS) + 3 * R + 5;
        let mut characters = check_characters(60, &mut rng);
        characters.extend(crate::games::kayles::character_signs().into_iter().take(16 - characters.len()));
        for (m, moduli) in [
            (0usize, &[16 * 1_000_000_000u64, 6][..]),
            (1, &[16 * 1_000_000_000]),
            (2 * LOW + 7, &[16 * 1_000_000_000, 2 * 3]),
            (2 * LOW + 8 + 3 * R - 1, &[16 * 1_000_000_000, 2 * (1 << 16) * ((1 << 21) - 1), 16]),
            (2 * LOW + 8 + 3 * R + 3, &[16 * 1_000_000_000, 2 * (1 << 16) * ((1 << 21) - 1), 2 * 1953125]),
            (chunked, &[16 * 1_000_000_000, 2 * (1 << 16) * ((1 << 21) - 1)]),
        ] {
            for &modulus in moduli {
                let ring = WordRing::new(modulus / 2).unwrap();
                let rational = RationalLanes::new(&characters).filter(fits_words).unwrap();
                let got = t_lane_sums(&ring, &rational, m);
                let expected = series_catalan(&characters, m, modulus);
                let got_c = c_sum_from_t_sum(got, characters.len(), modulus);
                assert_eq!(got_c, expected, "m={m} M'={modulus}");
            }
        }
    }
}
