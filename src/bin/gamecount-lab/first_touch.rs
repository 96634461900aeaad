//! What the first write to fresh memory costs here, per page.
//!
//! A fresh process gets every table from pages nobody has touched yet: the first write
//! to each page traps into the kernel, which zeroes it (and, in a virtual machine, the
//! host may have to back it first). A warm process reuses pages its allocator already
//! holds. This cost is what separates a fresh `solve` from a warm benchmark of the
//! same kernel (docs/design/README.md, "What the machines do to the figures"), so the
//! roofline reports it.

use std::time::Instant;

/// One page size to probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageKind {
    /// 4 KiB pages (`MADV_NOHUGEPAGE`).
    Small,
    /// 2 MiB transparent huge pages (`MADV_HUGEPAGE`).
    Huge,
}

impl PageKind {
    /// The page size as the roofline names it.
    pub fn label(self) -> &'static str {
        match self {
            PageKind::Small => "4 KiB",
            PageKind::Huge => "2 MiB",
        }
    }

    /// The `madvise` advice that asks the kernel for this page size.
    #[cfg(target_os = "linux")]
    fn advice(self) -> libc::c_int {
        match self {
            PageKind::Small => libc::MADV_NOHUGEPAGE,
            PageKind::Huge => libc::MADV_HUGEPAGE,
        }
    }

    /// The name of that advice, for the roofline's description.
    pub fn advice_name(self) -> &'static str {
        match self {
            PageKind::Small => "MADV_NOHUGEPAGE",
            PageKind::Huge => "MADV_HUGEPAGE",
        }
    }

    pub fn bytes(self) -> usize {
        match self {
            PageKind::Small => 4 << 10,
            PageKind::Huge => 2 << 20,
        }
    }
}

/// Microseconds per page for the first write to fresh pages of `kind`, one sample per
/// batch of `per_batch` pages (`batches` of them), sorted ascending. Huge pages are
/// timed one by one (`per_batch = 1`); small ones in batches, their faults being too
/// short to time alone. `Err` says why it could not be measured, e.g. when the kernel
/// did not give huge pages.
#[cfg(target_os = "linux")]
pub fn first_touch_micros(kind: PageKind, batches: usize, per_batch: usize) -> Result<Vec<f64>, String> {
    assert!(batches > 0 && per_batch > 0, "at least one page");
    let (page, huge) = (kind.bytes(), PageKind::Huge.bytes());
    let pages = batches * per_batch;
    // One huge page of slack, so that a huge-page-aligned range of `pages` pages fits.
    let mapped = pages * page + huge;
    // SAFETY: an anonymous private mapping at an address of the kernel's choosing
    // aliases nothing; the result is checked against MAP_FAILED before any use.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            mapped,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if base == libc::MAP_FAILED {
        return Err(format!("mmap of {mapped} bytes failed: {}", std::io::Error::last_os_error()));
    }
    let start = base.addr().next_multiple_of(huge);
    // SAFETY: [start, start + pages * page) lies inside the mapping (`mapped` has one huge
    // page of slack for the alignment) and nothing has touched it; the advice changes only
    // how the kernel backs it.
    let advised = unsafe { libc::madvise(start as *mut libc::c_void, pages * page, kind.advice()) } == 0;
    if !advised {
        let why = format!("madvise failed: {}", std::io::Error::last_os_error());
        // SAFETY: `base` is the mapping of `mapped` bytes made above, untouched.
        unsafe { libc::munmap(base, mapped) };
        return Err(why);
    }
    let huge_before = anon_huge_kib();
    let mut samples: Vec<f64> = (0..batches)
        .map(|batch| {
            let began = Instant::now();
            for p in batch * per_batch..(batch + 1) * per_batch {
                // SAFETY: `start + p * page` lies inside the mapping (p < pages), which
                // is readable and writable and referenced by nothing else.
                unsafe { std::ptr::write_volatile((start + p * page) as *mut u8, 1) }
            }
            began.elapsed().as_secs_f64() * 1e6 / per_batch as f64
        })
        .collect();
    let huge_after = anon_huge_kib();
    // SAFETY: `base` is the mapping of `mapped` bytes made above; no reference into it
    // outlives this function.
    unsafe { libc::munmap(base, mapped) };
    samples.sort_by(f64::total_cmp);
    match kind {
        PageKind::Huge => match (huge_before, huge_after) {
            (Some(before), Some(after)) if after >= before + (pages * page / 1024) as u64 => Ok(samples),
            (Some(_), Some(_)) => {
                Err("the kernel gave no transparent huge pages (THP off or memory fragmented)".into())
            }
            _ => Err("cannot read AnonHugePages from /proc/self/smaps_rollup".into()),
        },
        PageKind::Small => Ok(samples),
    }
}

#[cfg(not(target_os = "linux"))]
pub fn first_touch_micros(_kind: PageKind, _batches: usize, _per_batch: usize) -> Result<Vec<f64>, String> {
    Err("measured on Linux only".into())
}

/// The process's anonymous memory in transparent huge pages, in KiB.
#[cfg(target_os = "linux")]
fn anon_huge_kib() -> Option<u64> {
    let rollup = std::fs::read_to_string("/proc/self/smaps_rollup").ok()?;
    let line = rollup.lines().find(|l| l.starts_with("AnonHugePages:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn small_pages_cost_something_finite() {
        let micros = first_touch_micros(PageKind::Small, 4, 16).expect("4 KiB pages can always be probed on Linux");
        assert_eq!(micros.len(), 4);
        assert!(micros.is_sorted() && micros[0] > 0.0 && micros[3].is_finite(), "{micros:?}");
    }

    /// Where the kernel offers transparent huge pages on request, the probe must get them
    /// (two pages of 2 MiB on a machine with gigabytes free).
    #[test]
    fn huge_pages_are_measured_where_the_kernel_offers_them() {
        let mode = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
        if !(mode.contains("[always]") || mode.contains("[madvise]")) {
            eprintln!("transparent huge pages are off here ({}); nothing to check", mode.trim());
            return;
        }
        // A user-mode emulator (qemu-user running an aarch64 build on an x86-64 kernel) maps
        // guest memory itself and drops the advice: the host kernel's architecture differs.
        let kernel_arch = std::fs::read_to_string("/proc/sys/kernel/arch").unwrap_or_default();
        if !kernel_arch.trim().is_empty() && kernel_arch.trim() != std::env::consts::ARCH {
            eprintln!("running emulated on a {} kernel; huge-page advice does not reach it", kernel_arch.trim());
            return;
        }
        let micros = first_touch_micros(PageKind::Huge, 2, 1).expect("THP is on");
        assert!(micros.is_sorted() && micros[0] > 0.0 && micros[1].is_finite(), "{micros:?}");
    }
}
