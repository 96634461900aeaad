//! The planes of 16-bit word pairs and the ways of reading them: a stored plane (or ring),
//! a run of consecutive rows, and the sum plane `s = v0 + v1` made on the fly.

use crate::simd::dots::{PairPart, PairRow, PairVec};

/// One plane: row `e` holds the pair `(v_{2e}, v_{2e+1})`, at `e & mask` (a ring when
/// `mask + 1` is below the number of rows ever written).
#[derive(Clone, Copy)]
pub(super) struct Plane<'a> {
    pub(super) rows: &'a [PairRow],
    pub(super) mask: usize,
}

/// Where the pairs of one plane come from: a stored [`Plane`], or (`s = v0 + v1`) the
/// word sums of two.
pub(super) trait Rows: Copy {
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
    /// 20 of the 51 instructions of [`sliding_parts`](super::windows::sliding_parts)'s loop (`perf annotate`).
    fn run(self, lo: usize, hi: usize) -> Option<Self::Run>;

    /// Asserts that rows `lo..hi` can be read (`lo` is `None` when the range starts below
    /// row 0): for a run, that they lie in its slice; a plane masks its indexes and
    /// accepts any range. Once before a loop, so that the loop's loads need no check
    /// ([`Rows::even_part_unchecked`]).
    fn assert_rows(self, lo: Option<usize>, hi: usize);

    /// [`Rows::even_part`] without a bounds check where the type has one: in
    /// [`window_part`](super::windows::window_part) the checks were 6 of the 44 instructions per pair of steps on AVX2.
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
pub(super) struct Run<'a>(pub(super) &'a [PairRow]);

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
pub(super) struct SumRows<S: Rows>(pub(super) S, pub(super) S);

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
pub(super) fn pairs3<P: PairVec>(planes: [Plane; 3], j: usize) -> [P; 3] {
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
pub(super) struct Planes<'a> {
    planes: [&'a mut [PairRow]; 3],
    mask: usize,
    /// Rows of a mirrored ring (0 otherwise): each row is also stored this many rows
    /// further on, so that any run of at most `ring` rows is consecutive in memory
    /// ([`Rows::run`]) even where it wraps.
    ring: usize,
}

/// How a set of planes stores its rows.
#[derive(Clone, Copy)]
pub(super) enum Ring {
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
    pub(super) fn new(rows: &'a mut [PairRow], stride: usize, len: usize, ring: Ring) -> Self {
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
    pub(super) fn plane(&self, p: usize) -> Plane<'_> {
        Plane { rows: self.planes[p], mask: self.mask }
    }

    /// All three planes for reading.
    #[inline(always)]
    pub(super) fn all(&self) -> [Plane<'_>; 3] {
        std::array::from_fn(|p| self.plane(p))
    }

    /// Stores coefficient `j`, given as its words (`[two, v0, v1]`, see
    /// [`Coefficient::words`](super::Coefficient::words)) and those of coefficient `j - 1`: an even `j` starts a row
    /// (its high word comes with `j + 1`), an odd one completes it.
    #[inline(always)]
    pub(super) fn store<P: PairVec>(&mut self, j: usize, prev: [P; 3], value: [P; 3]) {
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
