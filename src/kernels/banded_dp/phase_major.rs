//! A window of DP cells stored phase-major, so that every neighbour is an aligned vector.
//!
//! Stored plainly, the neighbours `s ± o` of sixteen cells `s..s+16` are unaligned
//! 64-byte loads that split cache lines (4× slower on this machine, see
//! `machine-limits.md`). Phase-major, a window of `16·rows` cells keeps cell
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
//! then holds a cell above the window, taken as 0). So a step costs `2·reach` slow
//! rows and `rows - 2·reach` fast ones, and needs `rows > reach`.
//!
//! Below the window: when it starts at cell 0 of a symmetric band (`mirror`), the cell
//! `-s` is the cell `s` (`D_k(-s) = D_k(s)`); otherwise it is taken as 0, and the caller
//! accounts for the error that this lets in (it moves inwards `reach` cells per step).

use super::lanes::{LANES, Lanes, Reduction};

/// Two layers of a phase-major window: the current one and the scratch for the next.
#[derive(Clone, Debug, Default)]
pub struct PhaseMajor {
    rows: usize,
    mirror: bool,
    current: Vec<Lanes>,
    next: Vec<Lanes>,
}

impl PhaseMajor {
    /// The rows a window of at least `cells` cells needs for steps of reach `reach`.
    pub fn rows_for(cells: usize, reach: usize) -> usize {
        cells.div_ceil(LANES).max(reach + 1)
    }

    /// Bytes a window of `rows` rows takes (both layers).
    pub const fn bytes_for(rows: usize) -> usize {
        2 * rows * LANES * 4
    }

    /// Cells in the window: `16·rows`.
    pub fn capacity(&self) -> usize {
        self.rows * LANES
    }

    /// Fills a window of `rows` rows with `cell(i)` for `i` in `0..16·rows` (the
    /// window's own indices). `mirror`: the window starts at cell 0 of a symmetric band.
    pub fn load(&mut self, rows: usize, mirror: bool, cell: impl Fn(usize) -> u32) {
        self.rows = rows;
        self.mirror = mirror;
        self.current.clear();
        self.current
            .extend((0..rows).map(|j| Lanes::from(std::array::from_fn::<u32, LANES, _>(|l| cell(l * rows + j)))));
        self.next.resize(rows, Lanes::splat(0));
    }

    /// The cells of the window in plain order (`16·rows` of them).
    pub fn to_cells(&self) -> Vec<u32> {
        let mut cells = vec![0; self.capacity()];
        for (j, row) in self.current.iter().enumerate() {
            for (lane, &value) in row.to_array().iter().enumerate() {
                cells[lane * self.rows + j] = value;
            }
        }
        cells
    }

    /// Cell `i` of the window.
    pub fn cell(&self, i: usize) -> u32 {
        self.current[i % self.rows].to_array()[i / self.rows]
    }

    /// Re-lays the window out with `rows` rows, keeping its cells (those beyond the new
    /// capacity are dropped, new ones are 0).
    pub fn resize(&mut self, rows: usize) {
        let cells = self.to_cells();
        self.load(rows, self.mirror, |i| cells.get(i).copied().unwrap_or(0));
    }

    /// One DP step over the whole window: `next(s) = Σ_o c_o·(cur(s - o) + cur(s + o))`,
    /// for `steps` given as `(offset, multiplicity mod m)` by increasing offset.
    ///
    /// # Panics
    /// If the window has no more rows than the largest offset.
    pub fn step<R: Reduction>(&mut self, r: R, steps: &[(usize, u32)]) {
        let rows = self.rows;
        let reach = steps.last().map_or(0, |&(o, _)| o);
        assert!(rows > reach, "a window of {rows} rows cannot take steps of {reach}");
        let (current, next) = (&self.current[..rows], &mut self.next[..rows]);
        // Rows [fast_start, fast_end) find every neighbour inside the window.
        let fast_start = reach;
        let fast_end = rows.saturating_sub(reach).max(fast_start);
        let fast = &mut next[fast_start..fast_end];
        let units = steps.iter().all(|&(_, c)| c == 1);
        match steps.len() {
            1 if units => fast_rows::<R, 1>(r, steps, current, fast, fast_start),
            2 if units => fast_rows::<R, 2>(r, steps, current, fast, fast_start),
            4 if units => fast_rows::<R, 4>(r, steps, current, fast, fast_start),
            8 if units => fast_rows::<R, 8>(r, steps, current, fast, fast_start),
            _ => {
                for (i, out) in fast.iter_mut().enumerate() {
                    let j = fast_start + i;
                    *out = combine(r, steps, |o| (current[j - o], current[j + o]));
                }
            }
        }
        let mirror = self.mirror;
        for j in (0..fast_start).chain(fast_end..rows) {
            next[j] = combine(r, steps, |o| {
                (neighbour(current, mirror, j as isize - o as isize), neighbour(current, mirror, (j + o) as isize))
            });
        }
        std::mem::swap(&mut self.current, &mut self.next);
    }
}

/// The rows whose neighbours all lie inside the window, for `S` offsets of multiplicity 1
/// (every coin step set of height 1 to 4): the offsets are unrolled, and each neighbour
/// stream is a slice of exactly `out.len()` rows, so the loop has no bounds checks.
/// Row `out[i]` is row `start + i` of the window.
#[inline(always)]
fn fast_rows<R: Reduction, const S: usize>(
    r: R,
    steps: &[(usize, u32)],
    current: &[Lanes],
    out: &mut [Lanes],
    start: usize,
) {
    let len = out.len();
    if len == 0 {
        return; // a window of at most 2·reach rows has no fast row
    }
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

/// `Σ_o c_o·(lo_o + hi_o)` reduced to `[0, m)`, where `pair(o) = (lo_o, hi_o)`.
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

/// Row `q` of the window, for `q` in `(-rows, 2·rows)`: outside `[0, rows)` the row
/// wraps around with its lanes shifted by one (see the module documentation).
#[inline(never)]
fn neighbour(current: &[Lanes], mirror: bool, q: isize) -> Lanes {
    let rows = current.len() as isize;
    if q < 0 {
        let src = current[(q + rows) as usize].to_array();
        // Lane 0 is cell q < 0: its mirror image -q < rows sits in lane 0 of row -q.
        let below = if mirror { current[(-q) as usize].to_array()[0] } else { 0 };
        Lanes::from(std::array::from_fn::<u32, LANES, _>(|l| if l == 0 { below } else { src[l - 1] }))
    } else if q >= rows {
        let src = current[(q - rows) as usize].to_array();
        Lanes::from(std::array::from_fn::<u32, LANES, _>(|l| if l + 1 < LANES { src[l + 1] } else { 0 }))
    } else {
        current[q as usize]
    }
}
