//! Memory needs are checked before allocating: a request that cannot fit is refused
//! with the number of bytes it needs and the number available.

use crate::games::{InputError, ProblemId};

/// Bytes the kernel may use beyond what it reports as its need, for the allocator and
/// the rest of the process.
const HEADROOM_BYTES: u64 = 64 << 20;

/// `MemAvailable` from `/proc/meminfo`, in bytes; `None` where it cannot be read.
pub fn available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Human-readable byte count, e.g. `"4.00 GiB"`.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 { format!("{bytes} B") } else { format!("{value:.2} {}", UNITS[unit]) }
}

/// Needs below this many bytes are accepted without reading `/proc/meminfo`.
///
/// Every `solve` checks again inside its timed region (a library caller may not have
/// checked), and reading the file takes 15–35 µs on the project's VM: a fifth of the
/// default `coins` run (its median went from 95 to 75 µs without it), about 1% of
/// `stones` at `L = 1000`.
/// A need this small is a quarter of the headroom (`HEADROOM_BYTES`, 64 MiB) that every
/// check adds for the allocator and the rest of the process: the check would refuse it
/// only on a system too short of memory to run the process at all.
pub const CHECK_FROM_BYTES: u64 = HEADROOM_BYTES / 4;

/// Refuses `needed` bytes when they exceed what the system has available (needs below
/// [`CHECK_FROM_BYTES`] always pass).
pub fn ensure_fits(problem: ProblemId, what: &str, needed: u64) -> Result<(), InputError> {
    ensure_fits_with(problem, what, needed, available_bytes)
}

/// [`ensure_fits`] with `available` asked only for needs of [`CHECK_FROM_BYTES`] or more.
fn ensure_fits_with(
    problem: ProblemId,
    what: &str,
    needed: u64,
    available: impl FnOnce() -> Option<u64>,
) -> Result<(), InputError> {
    if needed < CHECK_FROM_BYTES {
        return Ok(());
    }
    ensure_fits_in(problem, what, needed, available())
}

/// [`ensure_fits`] against an explicit amount (`None`: unknown, so accept).
pub fn ensure_fits_in(problem: ProblemId, what: &str, needed: u64, available: Option<u64>) -> Result<(), InputError> {
    match available {
        Some(available) if needed.saturating_add(HEADROOM_BYTES) > available => Err(InputError::new(
            problem,
            format!(
                "{what} would take {} ({needed} bytes) but only {} is available",
                format_bytes(needed),
                format_bytes(available)
            ),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_does_not_fit_and_says_how_much() {
        let err = ensure_fits_in(ProblemId::Cards, "the transform", 8 << 30, Some(4 << 30)).unwrap_err();
        assert!(err.to_string().contains("8.00 GiB"), "{err}");
        assert!(err.to_string().contains("4.00 GiB"), "{err}");
        assert!(ensure_fits_in(ProblemId::Cards, "x", 1 << 20, Some(4 << 30)).is_ok());
        assert!(ensure_fits_in(ProblemId::Cards, "x", u64::MAX, None).is_ok());
        assert!(available_bytes().is_some_and(|b| b > 0));
    }

    #[test]
    fn small_needs_pass_without_reading_the_available_memory() {
        let unread = || -> Option<u64> { panic!("a small need read /proc/meminfo") };
        assert!(ensure_fits_with(ProblemId::Stones, "x", CHECK_FROM_BYTES - 1, unread).is_ok());
        // From the threshold on, the available memory decides.
        let err = ensure_fits_with(ProblemId::Stones, "x", CHECK_FROM_BYTES, || Some(CHECK_FROM_BYTES));
        assert!(err.unwrap_err().to_string().contains("16.00 MiB"));
        assert!(ensure_fits_with(ProblemId::Stones, "x", CHECK_FROM_BYTES, || Some(1 << 30)).is_ok());
    }
}
