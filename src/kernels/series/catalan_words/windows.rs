//! The blocked sums: `R` outputs at a time over sliding windows of pairs, by one level of
//! Karatsuba where the registers hold it (`karatsuba_dots`) and one register part at a
//! time where a vector is several registers (`sliding_parts`).

use super::rows::Rows;
use crate::simd::dots::{PairPart, PairVec};

/// `acc[r] += Σ_{t < steps} swap(left.even(first + t)) · rows.pair(base + r - 2t)` for
/// `r < B`: the plain sliding-window form (the right operands of consecutive outputs are
/// consecutive pairs, and one step later the same pairs serve the output two further
/// on). The reference for [`karatsuba_dots`].
#[cfg(test)]
#[inline(always)]
pub(super) fn sliding_dots<const B: usize, P: PairVec, S: Rows>(
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
/// The pairs at even indices are stored rows, the odd ones [`P::between`](PairVec::between) two of
/// them. Reads pairs from `base - 2·steps - 6` to `base + 9`.
///
/// The left operands are `L_t = swap(left.even(first + t))`. Inlined like everything a
/// [`multiversion!`](crate::simd::multiversion) entry point calls (a call would compile
/// it, and every vector operation in it, at the baseline).
#[inline(always)]
pub(super) fn karatsuba_dots<P: PairVec, S: Rows>(
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
pub(super) fn sliding_parts<P: PairVec, S: Rows>(
    acc: &mut [P; 8],
    steps: usize,
    base: usize,
    (left, first): (S, usize),
    rows: S,
) {
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
pub(super) fn window_part<P: PairVec, S: Rows>(
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
