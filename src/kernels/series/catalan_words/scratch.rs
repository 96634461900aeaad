//! The rows the kernel works in: a buffer kept from call to call, and where the planes
//! of `x` and `T` sit in it.

use std::sync::{Mutex, MutexGuard, TryLockError};

use super::{R, XPath, x_doubles};
use crate::simd::dots::{PairRow, PairVec};

/// Rows for the kernel, reused from call to call.
///
/// Why: a first touch of a 4 KiB page costs about 1.5 µs (`gamecount-lab roofline`, the
/// first-write rows), so the 17 pages of the rows at 1000 pins are a fifth of a fresh
/// call; a bench or the checks call the kernel many times and should pay them once. The
/// buffer is kept for the next call up to [`Scratch::ROWS`]; a call that finds it busy
/// (another thread) or needs more uses a buffer of its own.
pub(super) struct Scratch;

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
    pub(super) fn lease(rows: usize, zeroed: usize) -> Lease {
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
pub(super) enum Lease {
    Kept(MutexGuard<'static, Vec<PairRow>>, usize),
    Own(Vec<PairRow>),
}

impl Lease {
    #[inline(always)]
    pub(super) fn rows(&mut self) -> &mut [PairRow] {
        match self {
            Lease::Kept(guard, rows) => &mut guard[..*rows],
            Lease::Own(rows) => rows,
        }
    }
}

/// Where the planes of `x` and `T` sit in the rows.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    /// Coefficients the `x` ring holds (a power of two, even).
    pub(super) x_ring: usize,
    /// Rows of one `x` plane (`x_ring / 2`), and the stride between `x` planes.
    pub(super) x_rows: usize,
    /// Whether each `x` plane holds its ring twice ([`Planes::new`](super::rows::Planes::new)): for the sliding
    /// windows of backends whose vector is several registers, which read runs of rows;
    /// elsewhere the copy would only be three more pages to touch.
    pub(super) x_mirrored: bool,
    pub(super) x_stride: usize,
    /// Rows before `T`'s planes: `x`'s three planes, or its `f64` rows
    /// ([`x_doubles::pair_rows`]).
    pub(super) x_region: usize,
    /// Rows of one `T` plane, and the stride between `T` planes.
    pub(super) t_rows: usize,
    pub(super) t_stride: usize,
    /// All rows.
    pub(super) rows: usize,
}

impl Layout {
    /// The layout for a recurrence of order `order` and `T_0..=T_m`, with `x`'s planes
    /// in the rows if `x_planes` (the [`XPath::Words`] path).
    ///
    /// The `x` ring must hold every coefficient still read: the blocked sums of a block
    /// at `k0` read `x_j` down to `j = k0 - order - 8` (see [`XRecurrence::block`](super::x_words::XRecurrence)) while
    /// it writes `x_{k0..k0+R}`, and `T` reads `x_{k0-R..k0}`: a span below
    /// `order + 2R + 8`. The ring also starts at `x_{-ring}`, so the coefficients below
    /// `x_0` that the first blocks read are its zero rows.
    pub(super) fn new(order: usize, m: usize, x_mirrored: bool, path: XPath) -> Self {
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
    pub(super) fn for_vectors<P: PairVec>(order: usize, m: usize, path: XPath) -> Self {
        Self::new(order, m, P::PARTS > 1, path)
    }

    /// The rows that must start zero: `x`'s (its coefficients below `x_0` are zero rows).
    pub(super) fn zeroed(&self) -> usize {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simd::dots::PAIR_LANES;

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
