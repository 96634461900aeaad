//! A window of DP cells stored phase-major, so that every neighbour is an aligned vector.
//!
//! Stored plainly, the neighbours `s ± o` of sixteen cells `s..s+16` are unaligned
//! 64-byte loads, most of which split cache lines. Phase-major, a window of `16·rows` cells keeps cell
//! `lane·rows + j` in lane `lane` of row vector `j`:
//!
//! ```text
//! row j   = [ c(j), c(rows + j), c(2·rows + j), ..., c(15·rows + j) ]
//! row j±o = the same sixteen cells shifted by ±o           (whole aligned vectors)
//! ```
//!
//! Only the `o` rows at each end need other data: row `j - o < 0` is row `rows + j - o`
//! with its lanes moved up by one (lane 0 then holds the cell `j - o` below the
//! window), and row `j + o >= rows` is row `j + o - rows` moved down by one (lane 15
//! then holds a cell above the window, taken as 0). Before each step these `2·pad`
//! shifted rows are written into halo rows on both sides of the window, so that every
//! row of the step is the same straight-line code over aligned vectors. That needs
//! `rows > pad >= reach`.
//!
//! Below the window: when it starts at cell 0 of a symmetric band (`mirror`), the cell
//! `-s` is the cell `s` (`D_k(-s) = D_k(s)`); otherwise it is taken as 0, and the caller
//! accounts for the error that this lets in (it moves inwards `reach` cells per step).

use super::lanes::{LANES, Reduction, Row, Strategy, WithReduction};
use crate::simd::Simd;
use crate::simd::mont::Mont;

/// Two layers of a phase-major window: the current one and the scratch for the next,
/// each with `pad` halo rows on both sides. The rows are plain aligned arrays, so one
/// window serves every backend: only [`PhaseMajor::step`] loads them into vectors.
#[derive(Clone, Debug, Default)]
pub struct PhaseMajor {
    rows: usize,
    pad: usize,
    mirror: bool,
    /// `pad` halo rows, the `rows` rows of the window, `pad` halo rows.
    current: Vec<Row>,
    next: Vec<Row>,
}

impl PhaseMajor {
    /// The rows a window of at least `cells` cells needs for steps of reach `reach`.
    pub fn rows_for(cells: usize, reach: usize) -> usize {
        cells.div_ceil(LANES).max(reach + 1)
    }

    /// Cells in the window: `16·rows`.
    pub fn capacity(&self) -> usize {
        self.rows * LANES
    }

    /// Fills a window of `rows > pad` rows with `cell(i)` for `i` in `0..16·rows` (the
    /// window's own indices), for steps of reach at most `pad`. `mirror`: the window
    /// starts at cell 0 of a symmetric band.
    ///
    /// # Panics
    /// If `rows <= pad`.
    pub fn load(&mut self, rows: usize, pad: usize, mirror: bool, cell: impl Fn(usize) -> u32) {
        assert!(rows > pad, "a window of {rows} rows cannot take steps of {pad}");
        (self.rows, self.pad, self.mirror) = (rows, pad, mirror);
        let zero = Row::default();
        self.current.clear();
        self.current.resize(pad, zero);
        self.current.extend((0..rows).map(|j| Row(std::array::from_fn(|l| cell(l * rows + j)))));
        self.current.resize(rows + 2 * pad, zero);
        self.next.clear();
        self.next.resize(rows + 2 * pad, zero);
    }

    /// The window's rows, without the halo.
    fn window(&self) -> &[Row] {
        &self.current[self.pad..self.pad + self.rows]
    }

    /// The cells of the window in plain order (`16·rows` of them).
    pub fn to_cells(&self) -> Vec<u32> {
        let mut cells = vec![0; self.capacity()];
        for (j, row) in self.window().iter().enumerate() {
            for (lane, &value) in row.0.iter().enumerate() {
                cells[lane * self.rows + j] = value;
            }
        }
        cells
    }

    /// Cell `i` of the window.
    pub fn cell(&self, i: usize) -> u32 {
        self.window()[i % self.rows].0[i / self.rows]
    }

    /// Re-lays the window out with `rows` rows, keeping its cells (those beyond the new
    /// capacity are dropped, new ones are 0).
    pub fn resize(&mut self, rows: usize) {
        let cells = self.to_cells();
        self.load(rows, self.pad, self.mirror, |i| cells.get(i).copied().unwrap_or(0));
    }

    /// Writes the halo rows of the current layer: row `q < 0` and row `q >= rows` of the
    /// window as the module documentation describes them.
    fn fill_halo(&mut self) {
        let (rows, pad) = (self.rows, self.pad);
        for q in 1..=pad {
            // Row -q: row rows - q moved up one lane; lane 0 is cell -q, the mirror image
            // of cell q (lane 0 of row q), or 0.
            let src = self.current[pad + rows - q].0;
            let below = if self.mirror { self.current[pad + q].0[0] } else { 0 };
            self.current[pad - q] = Row(std::array::from_fn(|l| if l == 0 { below } else { src[l - 1] }));
            // Row rows - 1 + q: row q - 1 moved down one lane; lane 15 lies above the window.
            let src = self.current[pad + q - 1].0;
            self.current[pad + rows - 1 + q] = Row(std::array::from_fn(|l| if l + 1 < LANES { src[l + 1] } else { 0 }));
        }
    }

    /// `layers` DP steps over the whole window on `simd`'s backend, the sums reduced by
    /// `strategy` (chosen for `modulus` and the number of offsets, see
    /// [`Strategy::choose`]); `steps` as in [`PhaseMajor::step`].
    pub fn steps(&mut self, simd: Simd, strategy: Strategy, modulus: u32, steps: &[(usize, u32)], layers: usize) {
        take_steps(simd, self, strategy, modulus, steps, layers);
    }

    /// One DP step over the whole window on backend `B`:
    /// `next(s) = Σ_o c_o·(cur(s - o) + cur(s + o))`, for `steps` given as
    /// `(offset, multiplicity mod m)` by increasing offset. Inlined into the caller's
    /// [`multiversion!`](crate::multiversion) entry point, whose features the loops need.
    ///
    /// # Panics
    /// If the largest offset exceeds the window's `pad`.
    #[inline(always)]
    pub fn step<B: Mont, R: Reduction>(&mut self, r: R, steps: &[(usize, u32)]) {
        let (rows, pad) = (self.rows, self.pad);
        assert!(steps.last().is_none_or(|&(o, _)| o <= pad), "steps reach beyond the halo of {pad} rows");
        self.fill_halo();
        let (current, out) = (&self.current[..], &mut self.next[pad..pad + rows]);
        let units = steps.iter().all(|&(_, c)| c == 1);
        match steps.len() {
            1 if units => fast_rows::<B, R, 1>(r, steps, current, out, pad),
            2 if units => fast_rows::<B, R, 2>(r, steps, current, out, pad),
            4 if units => fast_rows::<B, R, 4>(r, steps, current, out, pad),
            8 if units => fast_rows::<B, R, 8>(r, steps, current, out, pad),
            _ => {
                for (i, slot) in out.iter_mut().enumerate() {
                    B::store(&mut slot.0, combine::<B, R>(r, steps, current, pad + i));
                }
            }
        }
        std::mem::swap(&mut self.current, &mut self.next);
    }
}

crate::multiversion! {
    /// [`PhaseMajor::steps`].
    fn take_steps(
        window: &mut PhaseMajor,
        strategy: Strategy,
        modulus: u32,
        steps: &[(usize, u32)],
        layers: usize,
    ) => take_steps_generic;
}

#[inline(always)]
fn take_steps_generic<B: Mont>(
    window: &mut PhaseMajor,
    strategy: Strategy,
    modulus: u32,
    steps: &[(usize, u32)],
    layers: usize,
) {
    strategy.with(modulus, Layers::<B> { window, steps, layers, backend: std::marker::PhantomData });
}

/// `layers` steps of one window on backend `B`, compiled once per reduction.
struct Layers<'a, B> {
    window: &'a mut PhaseMajor,
    steps: &'a [(usize, u32)],
    layers: usize,
    backend: std::marker::PhantomData<B>,
}

impl<B: Mont> WithReduction for Layers<'_, B> {
    type Output = ();
    #[inline(always)]
    fn call<R: Reduction>(self, r: R) {
        for _ in 0..self.layers {
            self.window.step::<B, R>(r, self.steps);
        }
    }
}

/// The rows of a step for `S` offsets of multiplicity 1 (every coin step set of height 1
/// to 4): the offsets are unrolled, and each neighbour stream is a slice of exactly
/// `out.len()` rows, so the loop has no bounds checks. `out[i]` is row `start + i` of
/// `current`, and `start >= reach`, `start + out.len() + reach <= current.len()`.
#[inline(always)]
fn fast_rows<B: Mont, R: Reduction, const S: usize>(
    r: R,
    steps: &[(usize, u32)],
    current: &[Row],
    out: &mut [Row],
    start: usize,
) {
    let len = out.len();
    let below: [&[Row]; S] = std::array::from_fn(|k| &current[start - steps[k].0..][..len]);
    let above: [&[Row]; S] = std::array::from_fn(|k| &current[start + steps[k].0..][..len]);
    // No closure touches a vector here: a closure is compiled without the entry point's
    // features, so the backend's instructions in it would become calls.
    for (i, slot) in out.iter_mut().enumerate() {
        let mut acc = r.sum::<B>(B::load(&below[0][i].0), B::load(&above[0][i].0));
        for k in 1..S {
            acc = r.sum::<B>(acc, r.sum::<B>(B::load(&below[k][i].0), B::load(&above[k][i].0)));
        }
        B::store(&mut slot.0, r.finish::<B>(acc));
    }
}

/// `Σ_o c_o·(cur(j - o) + cur(j + o))` reduced to `[0, m)` for row `j` of `current`:
/// any step set.
///
/// Bound: every input is a residue. With unit multiplicities the accumulator holds at
/// most `2S` residues in the lazy form (below `2^folds·m <= 2^32` by the strategy's
/// choice); a scaled pair is first reduced, so it counts as one residue.
#[inline(always)]
fn combine<B: Mont, R: Reduction>(r: R, steps: &[(usize, u32)], current: &[Row], j: usize) -> B::V {
    let mut acc = term::<B, R>(r, steps[0], current, j);
    for &step in &steps[1..] {
        acc = r.sum::<B>(acc, term::<B, R>(r, step, current, j));
    }
    r.finish::<B>(acc)
}

/// One step's term of [`combine`]: `c·(cur(j - o) + cur(j + o))`, partial for `c = 1`.
#[inline(always)]
fn term<B: Mont, R: Reduction>(r: R, (o, c): (usize, u32), current: &[Row], j: usize) -> B::V {
    let (lo, hi) = (B::load(&current[j - o].0), B::load(&current[j + o].0));
    if c == 1 { r.sum::<B>(lo, hi) } else { r.scale::<B>(r.add_mod::<B>(lo, hi), c) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One step of a window against the plain definition, for every row count from the
    /// smallest (`reach + 1`) past twice the reach, with and without the mirror, on every
    /// backend.
    #[test]
    fn a_step_matches_the_definition_at_every_window_size_on_every_backend() {
        let m = 1_000_003u32;
        for steps in [vec![(1usize, 1u32), (4, 1)], vec![(1, 1), (2, 5), (3, 1)], vec![(5, 1)]] {
            let reach = steps.last().unwrap().0;
            for rows in reach + 1..=3 * reach + 2 {
                for (mirror, simd) in
                    [false, true].into_iter().flat_map(|m| Simd::tested().into_iter().map(move |s| (m, s)))
                {
                    let cells: Vec<u32> = (0..rows * LANES).map(|i| (i as u32 * 7919 + 13) % m).collect();
                    let at = |s: isize| -> u64 {
                        let s = if mirror { s.abs() } else { s };
                        if (0..cells.len() as isize).contains(&s) { cells[s as usize] as u64 } else { 0 }
                    };
                    let mut window = PhaseMajor::default();
                    window.load(rows, reach, mirror, |i| cells[i]);
                    window.steps(simd, Strategy::choose(m, steps.len()), m, &steps, 1);
                    for (s, &got) in window.to_cells().iter().enumerate() {
                        let s = s as isize;
                        let expected: u64 =
                            steps.iter().map(|&(o, c)| c as u64 * (at(s - o as isize) + at(s + o as isize))).sum();
                        assert_eq!(
                            got as u64,
                            expected % m as u64,
                            "{simd:?} steps {steps:?} rows {rows} mirror {mirror} s {s}"
                        );
                    }
                }
            }
        }
    }
}
