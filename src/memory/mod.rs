//! Memory: needs are checked before allocating (a request that cannot fit is refused
//! with the number of bytes it needs and the number available), and the large arrays
//! live in [`AlignedBuffer`]s (`buffer.rs`).

mod buffer;

pub use buffer::{AlignedBuffer, populate};

use crate::games::{InputError, ProblemId};

/// The least headroom kept beyond what the kernel reports as its need, for the allocator
/// and the rest of the process.
const HEADROOM_BYTES: u64 = 64 << 20;

/// The headroom grows with the request: a tenth of it (allocators round large requests
/// up, and the kernels' small per-thread buffers grow with the sizes), at least
/// 64 MiB.
pub fn headroom(needed: u64) -> u64 {
    (needed / 10).max(HEADROOM_BYTES)
}

/// Address space each worker thread takes besides the tables: its stack (2 MiB) and the
/// C library's per-thread malloc arena (64 MiB reserved), counted against `RLIMIT_AS`
/// only, since the arena is reserved, not used.
const ADDRESS_SPACE_PER_THREAD: u64 = 66 << 20;

/// One limit on the memory the process may still take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    /// What imposes it, as the refusal names it.
    pub name: &'static str,
    /// Bytes the process may still take under it.
    pub bytes: u64,
}

/// What the limits are read from: each `None` where it is absent or unreadable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sources {
    /// `MemAvailable` of `/proc/meminfo`.
    pub mem_available: Option<u64>,
    /// `RLIMIT_AS` (`ulimit -v`) and the address space the process maps (`VmSize`).
    pub rlimit_as: Option<(u64, u64)>,
    /// `RLIMIT_DATA` (`ulimit -d`) and the process's data mappings (`VmData`).
    pub rlimit_data: Option<(u64, u64)>,
    /// The tightest cgroup: `memory.max` and `memory.current` (v2), or
    /// `memory.limit_in_bytes` and `memory.usage_in_bytes` (v1), and which.
    pub cgroup: Option<(u64, u64, &'static str)>,
    /// Worker threads the run may start (66 MiB of address space each).
    pub threads: u64,
}

impl Sources {
    /// Reads every source of this process.
    pub fn read() -> Self {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let status_bytes = |key: &str| proc_kib(&status, key);
        Self {
            mem_available: available_bytes(),
            rlimit_as: rlimit(Resource::As).zip(status_bytes("VmSize:")),
            rlimit_data: rlimit(Resource::Data).zip(status_bytes("VmData:")),
            cgroup: cgroup_room(),
            threads: crate::sched::Scheduler::available_cores() as u64,
        }
    }

    /// The tightest of the limits, or `None` when none could be read.
    pub fn tightest(&self) -> Option<Limit> {
        let threads = self.threads.saturating_mul(ADDRESS_SPACE_PER_THREAD);
        let candidates = [
            self.mem_available.map(|bytes| Limit { name: "the system's available memory (MemAvailable)", bytes }),
            self.rlimit_as.map(|(limit, used)| Limit {
                name: "the address-space limit (RLIMIT_AS, ulimit -v)",
                bytes: limit.saturating_sub(used).saturating_sub(threads),
            }),
            self.rlimit_data.map(|(limit, used)| Limit {
                name: "the data-segment limit (RLIMIT_DATA, ulimit -d)",
                bytes: limit.saturating_sub(used),
            }),
            self.cgroup.map(|(max, current, name)| Limit { name, bytes: max.saturating_sub(current) }),
        ];
        candidates.into_iter().flatten().min_by_key(|l| l.bytes)
    }
}

/// `key`'s value in kB in a `/proc` file (`VmSize:   3896 kB`), in bytes.
fn proc_kib(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// The resource limits read.
#[derive(Clone, Copy)]
enum Resource {
    As,
    Data,
}

/// The soft limit of `resource`, `None` when unlimited or unreadable.
fn rlimit(resource: Resource) -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        let resource = match resource {
            Resource::As => libc::RLIMIT_AS,
            Resource::Data => libc::RLIMIT_DATA,
        };
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: `limit` is a valid, writable rlimit.
        if unsafe { libc::getrlimit(resource, &mut limit) } != 0 || limit.rlim_cur == libc::RLIM_INFINITY {
            return None;
        }
        Some(limit.rlim_cur)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = resource;
        None
    }
}

/// A cgroup file's number; `None` for `max`, absurdly large values (v1's "no limit" is
/// about 2^63) and unreadable files.
fn cgroup_number(path: &std::path::Path) -> Option<u64> {
    let value: u64 = std::fs::read_to_string(path).ok()?.trim().parse().ok()?;
    (value < 1 << 60).then_some(value)
}

/// The least room left by the memory limits of the process's cgroup and its ancestors
/// (a limit on a parent binds its children): `(limit, usage, name)` of the tightest.
fn cgroup_room() -> Option<(u64, u64, &'static str)> {
    let membership = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mut tightest: Option<(u64, u64, &'static str)> = None;
    for line in membership.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) = (fields.next(), fields.next(), fields.next()) else { continue };
        let (root, files, name) = if id == "0" && controllers.is_empty() {
            ("/sys/fs/cgroup", ("memory.max", "memory.current"), "the cgroup memory limit (memory.max)")
        } else if controllers.split(',').any(|c| c == "memory") {
            (
                "/sys/fs/cgroup/memory",
                ("memory.limit_in_bytes", "memory.usage_in_bytes"),
                "the cgroup memory limit (memory.limit_in_bytes)",
            )
        } else {
            continue;
        };
        // With cgroup v1 also mounted, v2's files live under `unified`.
        let roots: &[&str] = if id == "0" { &[root, "/sys/fs/cgroup/unified"] } else { &[root] };
        for root in roots {
            let mut dir = std::path::PathBuf::from(root).join(path.trim_start_matches('/'));
            loop {
                if let (Some(limit), Some(usage)) =
                    (cgroup_number(&dir.join(files.0)), cgroup_number(&dir.join(files.1)))
                    && tightest.is_none_or(|(l, u, _)| limit.saturating_sub(usage) < l.saturating_sub(u))
                {
                    tightest = Some((limit, usage, name));
                }
                if dir.as_os_str().len() <= root.len() || !dir.pop() {
                    break;
                }
            }
        }
    }
    tightest
}

/// `MemAvailable` from `/proc/meminfo`, in bytes; `None` where it cannot be read.
pub fn available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    proc_kib(&text, "MemAvailable:")
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

/// Needs below this many bytes are accepted without reading `/proc` and `/sys`.
///
/// Every `solve` checks again inside its timed region (a library caller may not have
/// checked), and reading the files takes tens of microseconds on the project's VM: a
/// fifth of the default `coins` run (fresh `solve coins --stacks 9898` processes, as
/// `gamecount-lab ladder` runs them: 95 µs with the read, 75 µs without; docs/design/
/// coins.md), about 1% of `stones` at `L = 1000`.
/// A need this small is a quarter of the least headroom (`HEADROOM_BYTES`, 64 MiB) that
/// every check adds: the check would refuse it only on a system too short of memory to
/// run the process at all.
pub const CHECK_FROM_BYTES: u64 = HEADROOM_BYTES / 4;

/// Refuses `needed` bytes when they, with their [`headroom`], exceed the room left by the
/// tightest limit the process lives under (needs below [`CHECK_FROM_BYTES`] always pass).
pub fn ensure_fits(problem: ProblemId, what: &str, needed: u64) -> Result<(), InputError> {
    ensure_fits_with(problem, what, needed, || Sources::read().tightest())
}

/// [`ensure_fits`] with `limit` asked only for needs of [`CHECK_FROM_BYTES`] or more.
fn ensure_fits_with(
    problem: ProblemId,
    what: &str,
    needed: u64,
    limit: impl FnOnce() -> Option<Limit>,
) -> Result<(), InputError> {
    if needed < CHECK_FROM_BYTES {
        return Ok(());
    }
    ensure_fits_under(problem, what, needed, limit())
}

/// [`ensure_fits`] against an explicit amount of available memory (`None`: unknown, so
/// accept).
pub fn ensure_fits_in(problem: ProblemId, what: &str, needed: u64, available: Option<u64>) -> Result<(), InputError> {
    let limit = available.map(|bytes| Limit { name: "the system's available memory (MemAvailable)", bytes });
    ensure_fits_under(problem, what, needed, limit)
}

/// [`ensure_fits`] against an explicit limit (`None`: unknown, so accept).
pub fn ensure_fits_under(problem: ProblemId, what: &str, needed: u64, limit: Option<Limit>) -> Result<(), InputError> {
    match limit {
        Some(limit) if needed.saturating_add(headroom(needed)) > limit.bytes => Err(InputError::new(
            problem,
            format!(
                "{what} would take {} ({needed} bytes) and {} of headroom, but only {} is available under {}",
                format_bytes(needed),
                format_bytes(headroom(needed)),
                format_bytes(limit.bytes),
                limit.name
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
        let unread = || -> Option<Limit> { panic!("a small need read /proc/meminfo") };
        assert!(ensure_fits_with(ProblemId::Stones, "x", CHECK_FROM_BYTES - 1, unread).is_ok());
        // From the threshold on, the available memory decides.
        let limit = |bytes| move || Some(Limit { name: "MemAvailable", bytes });
        let err = ensure_fits_with(ProblemId::Stones, "x", CHECK_FROM_BYTES, limit(CHECK_FROM_BYTES));
        assert!(err.unwrap_err().to_string().contains("16.00 MiB"));
        assert!(ensure_fits_with(ProblemId::Stones, "x", CHECK_FROM_BYTES, limit(1 << 30)).is_ok());
    }

    const GIB: u64 = 1 << 30;
    const MIB: u64 = 1 << 20;

    #[test]
    fn the_headroom_is_a_tenth_of_the_need_and_at_least_64_mib() {
        assert_eq!(headroom(0), 64 * MIB);
        assert_eq!(headroom(640 * MIB), 64 * MIB);
        assert_eq!(headroom(10 * GIB), GIB);
        // 21 GiB with 22.7 GiB available: refused (a tenth is 2.1 GiB), naming the limit.
        let limit = Limit { name: "the system's available memory (MemAvailable)", bytes: 227 * GIB / 10 };
        let err = ensure_fits_under(ProblemId::Cards, "x", 21 * GIB, Some(limit)).unwrap_err().to_string();
        assert!(
            err.contains("21.00 GiB") && err.contains("2.10 GiB of headroom") && err.contains("MemAvailable"),
            "{err}"
        );
        assert!(ensure_fits_under(ProblemId::Cards, "x", 20 * GIB, Some(limit)).is_ok());
    }

    #[test]
    fn the_tightest_limit_decides_and_is_named() {
        let plenty = Some(100 * GIB);
        let sources = Sources {
            mem_available: plenty,
            rlimit_as: Some((2 * GIB, GIB)),
            rlimit_data: Some((100 * GIB, 0)),
            cgroup: Some((50 * GIB, 10 * GIB, "the cgroup memory limit (memory.max)")),
            threads: 2,
        };
        // The address space: 2 GiB less the 1 GiB mapped and two threads' 66 MiB.
        let limit = sources.tightest().unwrap();
        assert_eq!(limit.bytes, GIB - 132 * MIB);
        assert!(limit.name.contains("RLIMIT_AS"));
        let err = ensure_fits_under(ProblemId::Cards, "the transform", GIB, Some(limit)).unwrap_err().to_string();
        assert!(err.contains("RLIMIT_AS") && err.contains("892.00 MiB"), "{err}");
        // Each source in turn is the tightest.
        let data = Sources { rlimit_data: Some((3 * GIB, 2 * GIB + GIB / 2)), ..sources };
        assert_eq!(data.tightest().unwrap(), Limit { name: data.tightest().unwrap().name, bytes: GIB / 2 });
        assert!(data.tightest().unwrap().name.contains("RLIMIT_DATA"));
        let cgroup = Sources { cgroup: Some((GIB, GIB - MIB, "the cgroup memory limit (memory.max)")), ..sources };
        assert_eq!(cgroup.tightest().unwrap().bytes, MIB);
        assert!(cgroup.tightest().unwrap().name.contains("memory.max"));
        let system = Sources { mem_available: Some(MIB / 2), ..sources };
        assert!(system.tightest().unwrap().name.contains("MemAvailable"));
        // Usage above the limit leaves nothing, not a wrapped-around amount.
        let over = Sources { rlimit_as: Some((GIB, 2 * GIB)), ..sources };
        assert_eq!(over.tightest().unwrap().bytes, 0);
        assert_eq!(Sources::default().tightest(), None);
    }

    #[test]
    fn the_process_limits_are_read() {
        let sources = Sources::read();
        assert!(sources.mem_available.is_some_and(|b| b > 0));
        assert!(sources.tightest().is_some_and(|l| l.bytes > 0));
    }
}
