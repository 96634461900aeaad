//! Buffers for the large arrays of the kernels: aligned to a cache line, zeroed lazily,
//! and backed by huge pages where the system allows.

use crate::sched::Scheduler;
use crate::simd::mont::LANES;

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
    /// `len` zeros, their huge pages mapped on the calling thread.
    pub fn zeroed(len: usize) -> Self {
        Self::zeroed_on(len, &Scheduler::sequential())
    }

    /// `len` zeros, their huge pages mapped on the scheduler's threads: each maps its own
    /// part one page after the other, and gives the rest of it 4 KiB pages after the
    /// first page that was slow to map (the host had taken its memory back).
    pub fn zeroed_on(len: usize, sched: &Scheduler) -> Self {
        let mut storage = vec![0u32; len + LANES - 1];
        back_with_huge_pages(&mut storage, sched);
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

/// Maps every whole page of `data` in one system call (`MADV_POPULATE_WRITE`, Linux 5.14
/// and later), for a fresh zeroed allocation the kernel will write all of: one call
/// instead of one page fault per 4 KiB page on first touch. The contents stay zero;
/// without the call (older kernels, other systems) the pages fault in as before.
pub fn populate<T: Copy>(data: &mut [T]) {
    const PAGE: usize = 4096;
    const MADV_POPULATE_WRITE: libc::c_int = 23;
    #[cfg(target_os = "linux")]
    {
        let start = data.as_ptr().addr();
        let begin = start.next_multiple_of(PAGE);
        let end = (start + std::mem::size_of_val(data)) / PAGE * PAGE;
        if end > begin {
            // SAFETY: [begin, end) lies inside `data`, which we borrow mutably; populating
            // maps the pages without changing what they hold, and a failure (an older
            // kernel) changes nothing.
            unsafe { libc::madvise(begin as *mut libc::c_void, end - begin, MADV_POPULATE_WRITE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (data, PAGE, MADV_POPULATE_WRITE);
}

/// Asks Linux to back `data` with 2 MiB pages where it can (transparent huge pages in
/// `madvise` mode, as on this machine), before anything touches it, and maps them: each
/// of the scheduler's threads its own part, one page after the other until one proves
/// dear; the rest of that part then gets 4 KiB pages.
///
/// Why 2 MiB pages: a fresh zeroed allocation is mapped lazily, one page fault per page on
/// first touch. For a 40 MiB transform buffer that is 10 240 faults with 4 KiB pages,
/// against 20 with 2 MiB pages; on a virtual machine a fault is dear (`gamecount-lab
/// roofline`, the rows "first write to a fresh page": about 1.3 µs per 4 KiB page, 0.2 ms
/// per 2 MiB page).
///
/// Why each huge page is mapped here, in turn and timed: a virtual machine that hands
/// free memory back to its host (free page reporting returns whole free 2 MiB blocks
/// after about two seconds) must have such a block backed afresh by its host when a huge
/// page lands on it: 5–7 ms a page on the Intel Xeon VM, 85 ms for 40 MiB, against
/// 7–11 ms with 4 KiB pages, which come from the small free blocks the host never took
/// back (docs/design/cards.md, "Fresh memory"). Which blocks the host took back cannot be
/// known in advance: the first slow page ([`SLOW_HUGE_PAGE`]) sends the rest of its part
/// back to 4 KiB pages. Only whole 2 MiB-aligned pages inside the range are affected;
/// failure is harmless.
fn back_with_huge_pages(data: &mut [u32], sched: &Scheduler) {
    const HUGE_PAGE: usize = 2 << 20;
    #[cfg(target_os = "linux")]
    if data.len() * 4 >= 2 * HUGE_PAGE {
        let start = data.as_ptr().addr();
        let begin = start.next_multiple_of(HUGE_PAGE);
        let end = (start + data.len() * 4) / HUGE_PAGE * HUGE_PAGE;
        if end > begin {
            // SAFETY: [begin, end) lies inside `data`, which we own mutably and which nothing
            // has read or written yet; MADV_HUGEPAGE changes only how the kernel backs the
            // range, never its contents, and a failure (e.g. THP disabled) changes nothing.
            unsafe { libc::madvise(begin as *mut libc::c_void, end - begin, libc::MADV_HUGEPAGE) };
            // The huge pages as whole elements of `data` (begin and end are multiples of 4
            // bytes from its start), split into one run of pages per thread.
            let pages = &mut data[(begin - start) / 4..(end - start) / 4];
            let page_len = HUGE_PAGE / 4;
            let per_thread = (pages.len() / page_len).div_ceil(sched.threads()) * page_len;
            sched.for_each_chunk(pages, per_thread, |_, part| map_until_slow(part, page_len, SLOW_HUGE_PAGE));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (data, sched, HUGE_PAGE);
}

/// Maps the whole pages of `page_len` elements at the start of `part` (which starts on a
/// page, advised huge) one after the other; after the first slower than `slow`
/// ([`SLOW_HUGE_PAGE`]), advises the rest of those pages back to 4 KiB pages and maps
/// nothing more.
#[cfg(target_os = "linux")]
fn map_until_slow(part: &mut [u32], page_len: usize, slow: std::time::Duration) {
    let pages = part.len() / page_len;
    for page in 0..pages {
        let clock = std::time::Instant::now();
        // Volatile, so the store of the zero the allocation already holds is not dropped;
        // writing it maps the page without changing the contents.
        // SAFETY: a valid, aligned `&mut u32` inside `part`.
        unsafe { std::ptr::write_volatile(&mut part[page * page_len], 0) };
        if clock.elapsed() > slow {
            let rest = &mut part[(page + 1) * page_len..pages * page_len];
            if !rest.is_empty() {
                // SAFETY: `rest` is a whole number of untouched pages inside `part`, which we
                // borrow mutably; MADV_NOHUGEPAGE changes only how the kernel backs them,
                // never their contents, and a failure (say, a start off a page boundary)
                // changes nothing.
                unsafe { libc::madvise(rest.as_mut_ptr().cast(), std::mem::size_of_val(rest), libc::MADV_NOHUGEPAGE) };
            }
            return;
        }
    }
}

/// A 2 MiB page slower than this to map was backed afresh by the host: four times a page
/// the guest had kept (0.2–0.26 ms), a fifth of one the host must back (5–7 ms).
const SLOW_HUGE_PAGE: std::time::Duration = std::time::Duration::from_millis(1);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn populated_memory_keeps_its_contents() {
        // Fresh zeroed buffers of many sizes and offsets (less than a page, pages cut at
        // both ends, many pages): still zero after populating, and writable everywhere.
        for len in [0usize, 1, 511, 512, 513, 4096, 100_000] {
            let mut words = vec![0u64; len + 1];
            for range in [0..len, 1..len + 1] {
                populate(&mut words[range.clone()]);
                assert!(words[range].iter().all(|&w| w == 0), "{len}");
            }
            words.iter_mut().enumerate().for_each(|(i, w)| *w = i as u64);
            populate(&mut words);
            assert!(words.iter().enumerate().all(|(i, &w)| w == i as u64), "{len}");
        }
        // The spare capacity of a vector, as the series kernels' scratch rows use it.
        let mut rows: Vec<[u32; 16]> = Vec::with_capacity(3000);
        populate(rows.spare_capacity_mut());
        rows.resize(3000, [7; 16]);
        assert!(rows.iter().all(|r| r == &[7; 16]));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn mapping_pages_until_a_slow_one_keeps_the_contents() {
        // Every page "slow" (the rest of the part goes back to 4 KiB pages after the
        // first), and none: either way the part stays zero and writable, whole pages and
        // a ragged tail alike.
        const PAGE: usize = (2 << 20) / 4;
        for slow in [std::time::Duration::ZERO, std::time::Duration::MAX] {
            for len in [PAGE, 3 * PAGE, 3 * PAGE + 7] {
                // A part that starts on a 2 MiB boundary, as the buffers' parts do.
                let mut storage = vec![0u32; len + PAGE];
                let skip = storage.as_ptr().addr().wrapping_neg() % (2 << 20) / 4;
                let part = &mut storage[skip..skip + len];
                map_until_slow(part, PAGE, slow);
                assert!(part.iter().all(|&x| x == 0), "{slow:?} {len}");
                part.iter_mut().enumerate().for_each(|(i, x)| *x = i as u32);
                assert!(part.iter().enumerate().all(|(i, &x)| x == i as u32), "{slow:?} {len}");
            }
        }
    }

    #[test]
    fn aligned_buffers_are_aligned_and_zero() {
        // The last two span whole 2 MiB pages, which are mapped one by one when made.
        for len in [0, 1, 15, 16, 17, 1000, 1 << 20, 3 << 20 | 5] {
            let mut buffer = AlignedBuffer::zeroed(len);
            assert_eq!(buffer.as_slice().len(), len);
            assert!(buffer.as_mut_slice().as_ptr().addr().is_multiple_of(64));
            assert!(buffer.as_slice().iter().all(|&x| x == 0));
        }
        // Huge pages mapped by two and by three threads, parts of unequal length included.
        for threads in [2, 3] {
            let sched = Scheduler::new(Some(threads)).unwrap();
            for len in [1 << 20, 3 << 20 | 5, 5 << 19] {
                let mut buffer = AlignedBuffer::zeroed_on(len, &sched);
                assert!(buffer.as_mut_slice().as_ptr().addr().is_multiple_of(64));
                assert!(buffer.as_slice().len() == len && buffer.as_slice().iter().all(|&x| x == 0));
                buffer.as_mut_slice().iter_mut().enumerate().for_each(|(i, x)| *x = i as u32);
                assert!(buffer.as_slice().iter().enumerate().all(|(i, &x)| x == i as u32));
            }
        }
    }
}
