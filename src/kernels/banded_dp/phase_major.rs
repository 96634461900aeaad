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

use super::lanes::{LANES, Lanes, Reduction};

/// Two layers of a phase-major window: the current one and the scratch for the next,
/// each with `pad` halo rows on both sides.
#[derive(Clone, Debug, Default)]
pub struct PhaseMajor {
    rows: usize,
    pad: usize,
    mirror: bool,
    /// `pad` halo rows, the `rows` rows of the window, `pad` halo rows.
    current: Vec<Lanes>,
    next: Vec<Lanes>,
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
        let zero = Lanes::splat(0);
        self.current.clear();
        self.current.resize(pad, zero);
        self.current
            .extend((0..rows).map(|j| Lanes::from(std::array::from_fn::<u32, LANES, _>(|l| cell(l * rows + j)))));
        self.current.resize(rows + 2 * pad, zero);
        self.next.clear();
        self.next.resize(rows + 2 * pad, zero);
    }

    /// The window's rows, without the halo.
    fn window(&self) -> &[Lanes] {
        &self.current[self.pad..self.pad + self.rows]
    }

    /// The cells of the window in plain order (`16·rows` of them).
    pub fn to_cells(&self) -> Vec<u32> {
        let mut cells = vec![0; self.capacity()];
        for (j, row) in self.window().iter().enumerate() {
            for (lane, &value) in row.to_array().iter().enumerate() {
                cells[lane * self.rows + j] = value;
            }
        }
        cells
    }

    /// Cell `i` of the window.
    pub fn cell(&self, i: usize) -> u32 {
        self.window()[i % self.rows].to_array()[i / self.rows]
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
            let src = self.current[pad + rows - q].to_array();
            let below = if self.mirror { self.current[pad + q].to_array()[0] } else { 0 };
            self.current[pad - q] =
                Lanes::from(std::array::from_fn::<u32, LANES, _>(|l| if l == 0 { below } else { src[l - 1] }));
            // Row rows - 1 + q: row q - 1 moved down one lane; lane 15 lies above the window.
            let src = self.current[pad + q - 1].to_array();
            self.current[pad + rows - 1 + q] =
                Lanes::from(std::array::from_fn::<u32, LANES, _>(|l| if l + 1 < LANES { src[l + 1] } else { 0 }));
        }
    }

    /// One DP step over the whole window: `next(s) = Σ_o c_o·(cur(s - o) + cur(s + o))`,
    /// for `steps` given as `(offset, multiplicity mod m)` by increasing offset.
    ///
    /// # Panics
    /// If the largest offset exceeds the window's `pad`.
    pub fn step<R: Reduction>(&mut self, r: R, steps: &[(usize, u32)]) {
        let (rows, pad) = (self.rows, self.pad);
        assert!(steps.last().is_none_or(|&(o, _)| o <= pad), "steps reach beyond the halo of {pad} rows");
        self.fill_halo();
        let (current, out) = (&self.current[..], &mut self.next[pad..pad + rows]);
        let units = steps.iter().all(|&(_, c)| c == 1);
        match steps.len() {
            1 if units => fast_rows::<R, 1>(r, steps, current, out, pad),
            2 if units => fast_rows::<R, 2>(r, steps, current, out, pad),
            4 if units => fast_rows::<R, 4>(r, steps, current, out, pad),
            8 if units => fast_rows::<R, 8>(r, steps, current, out, pad),
            _ => {
                for (i, slot) in out.iter_mut().enumerate() {
                    let j = pad + i;
                    *slot = combine(r, steps, |o| (current[j - o], current[j + o]));
                }
            }
        }
        std::mem::swap(&mut self.current, &mut self.next);
    }
}

/// The rows of a step for `S` offsets of multiplicity 1 (every coin step set of height 1
/// to 4): the offsets are unrolled, and each neighbour stream is a slice of exactly
/// `out.len()` rows, so the loop has no bounds checks. `out[i]` is row `start + i` of
/// `current`, and `start >= reach`, `start + out.len() + reach <= current.len()`.
#[inline(always)]
fn fast_rows<R: Reduction, const S: usize>(
    r: R,
    steps: &[(usize, u32)],
    current: &[Lanes],
    out: &mut [Lanes],
    start: usize,
) {
    let len = out.len();
    let below: [&[Lanes]; S] = std::array::from_fn(|k| &current[start - steps[k].0..][..len]);
    let above: [&[Lanes]; S] = std::array::from_fn(|k| &current[start + steps[k].0..][..len]);
    for (i, slot) in out.iter_mut().enumerate() {
        let mut acc = r.sum(below[0][i], above[0][i]);
        for k in 1..S {
            acc = r.sum(acc, r.sum(below[k][i], above[k][i]));
        }
        *slot = r.finish(acc);
    }
}

/// `Σ_o c_o·(lo_o + hi_o)` reduced to `[0, m)`, where `pair(o) = (lo_o, hi_o)`: any
/// step set.
///
/// Bound: every input is a residue. With unit multiplicities the accumulator holds at
/// most `2S` residues in the lazy form (below `2^folds·m <= 2^32` by the strategy's
/// choice); a scaled pair is first reduced, so it counts as one residue.
#[inline(always)]
fn combine<R: Reduction>(r: R, steps: &[(usize, u32)], mut pair: impl FnMut(usize) -> (Lanes, Lanes)) -> Lanes {
    let mut term = |(o, c): (usize, u32)| {
        let (lo, hi) = pair(o);
        if c == 1 { r.sum(lo, hi) } else { r.scale(r.add_mod(lo, hi), c) }
    };
    let mut acc = term(steps[0]);
    for &step in &steps[1..] {
        acc = r.sum(acc, term(step));
    }
    r.finish(acc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::banded_dp::lanes::{Strategy, WithReduction};

    struct Step<'a>(&'a mut PhaseMajor, &'a [(usize, u32)]);
    impl WithReduction for Step<'_> {
        type Output = ();
        fn call<R: Reduction>(self, r: R) {
            self.0.step(r, self.1)
        }
    }

    /// One step of a window against the plain definition, for every row count from the
    /// smallest (`reach + 1`) past twice the reach, with and without the mirror.
    #[test]
    fn a_step_matches_the_definition_at_every_window_size() {
        let m = 1_000_003u32;
        for steps in [vec![(1usize, 1u32), (4, 1)], vec![(1, 1), (2, 5), (3, 1)], vec![(5, 1)]] {
            let reach = steps.last().unwrap().0;
            for rows in reach + 1..=3 * reach + 2 {
                for mirror in [false, true] {
                    let cells: Vec<u32> = (0..rows * LANES).map(|i| (i as u32 * 7919 + 13) % m).collect();
                    let at = |s: isize| -> u64 {
                        let s = if mirror { s.abs() } else { s };
                        if (0..cells.len() as isize).contains(&s) { cells[s as usize] as u64 } else { 0 }
                    };
                    let mut window = PhaseMajor::default();
                    window.load(rows, reach, mirror, |i| cells[i]);
                    Strategy::choose(m, steps.len()).with(m, Step(&mut window, &steps));
                    for (s, &got) in window.to_cells().iter().enumerate() {
                        let s = s as isize;
                        let expected: u64 =
                            steps.iter().map(|&(o, c)| c as u64 * (at(s - o as isize) + at(s + o as isize))).sum();
                        assert_eq!(
                            got as u64,
                            expected % m as u64,
                            "steps {steps:?} rows {rows} mirror {mirror} s {s}"
                        );
                    }
                }
            }
        }
    }
}
