//! What runs: the instruction-set level the kernels use (chosen at run time, see
//! [`crate::simd`]), the CPU's features, the features the build itself targets, and the
//! machine's caches.

use crate::simd::{Simd, build_target, cpu_features};

/// One header line for the CLI and the benches: the level that runs, what the CPU has
/// and what the build targets.
pub fn header(simd: Simd) -> String {
    format!(
        "gamecount {} · simd {} (cpu: {}; build: {}) · {} cores available",
        env!("CARGO_PKG_VERSION"),
        simd.name(),
        cpu_features(),
        build_target(),
        crate::sched::Scheduler::available_cores()
    )
}

/// The data caches of the CPU the process runs on, per core (L1d, L2) and shared (L3),
/// in bytes: the tile sizes and kernel crossovers derive from these, not from the
/// constants of one CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caches {
    /// Level-1 data cache of one core.
    pub l1d: usize,
    /// Level-2 cache of one core.
    pub l2: usize,
    /// Last-level cache (shared).
    pub l3: usize,
}

impl Caches {
    /// What is assumed where the sizes cannot be read: the smallest of the machines the
    /// project runs on (Zen 3: 32 KiB, 512 KiB, 32 MiB).
    pub const FALLBACK: Caches = Caches { l1d: 32 << 10, l2: 512 << 10, l3: 32 << 20 };

    /// The caches of this machine, read once from sysfs (Linux), else [`Caches::FALLBACK`].
    pub fn detect() -> Caches {
        static CACHES: std::sync::OnceLock<Caches> = std::sync::OnceLock::new();
        *CACHES.get_or_init(|| Self::from_sysfs(std::path::Path::new("/sys/devices/system/cpu/cpu0/cache")))
    }

    /// The sizes under `dir` (`index*/level`, `type`, `size` as Linux lays them out), each
    /// missing one taken from [`Caches::FALLBACK`].
    fn from_sysfs(dir: &std::path::Path) -> Caches {
        let mut caches = Self::FALLBACK;
        let Ok(entries) = std::fs::read_dir(dir) else { return caches };
        for entry in entries.flatten() {
            let read = |name: &str| std::fs::read_to_string(entry.path().join(name)).ok();
            let (Some(level), Some(kind), Some(size)) = (read("level"), read("type"), read("size")) else {
                continue;
            };
            let Some(bytes) = parse_cache_size(size.trim()) else { continue };
            match (level.trim(), kind.trim()) {
                ("1", "Data" | "Unified") => caches.l1d = bytes,
                ("2", "Unified" | "Data") => caches.l2 = bytes,
                ("3", "Unified" | "Data") => caches.l3 = bytes,
                _ => {}
            }
        }
        caches
    }
}

/// `"512K"`, `"32768K"`, `"1M"` or `"4096"` in bytes.
fn parse_cache_size(text: &str) -> Option<usize> {
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((at, _)) => text.split_at(at),
        None => (text, ""),
    };
    let value: usize = digits.parse().ok()?;
    let scale = match unit {
        "" => 1,
        "K" | "KB" | "KiB" => 1 << 10,
        "M" | "MB" | "MiB" => 1 << 20,
        _ => return None,
    };
    value.checked_mul(scale).filter(|&b| b > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_sizes_parse_as_sysfs_writes_them() {
        assert_eq!(parse_cache_size("512K"), Some(512 << 10));
        assert_eq!(parse_cache_size("32768K"), Some(32 << 20));
        assert_eq!(parse_cache_size("1M"), Some(1 << 20));
        assert_eq!(parse_cache_size("4096"), Some(4096));
        assert_eq!(parse_cache_size("0K"), None);
        assert_eq!(parse_cache_size("12X"), None);
    }

    #[test]
    fn caches_come_from_sysfs_with_fallbacks_for_what_is_missing() {
        let dir = std::env::temp_dir().join(format!("gamecount-caches-{}", std::process::id()));
        let write = |index: &str, level: &str, kind: &str, size: &str| {
            let d = dir.join(index);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("level"), format!("{level}\n")).unwrap();
            std::fs::write(d.join("type"), format!("{kind}\n")).unwrap();
            std::fs::write(d.join("size"), format!("{size}\n")).unwrap();
        };
        write("index0", "1", "Data", "48K");
        write("index1", "1", "Instruction", "32K");
        write("index2", "2", "Unified", "1024K");
        let caches = Caches::from_sysfs(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(caches, Caches { l1d: 48 << 10, l2: 1 << 20, l3: Caches::FALLBACK.l3 });
        assert_eq!(Caches::from_sysfs(std::path::Path::new("/no/such/dir")), Caches::FALLBACK);
        let here = Caches::detect();
        assert!(here.l1d >= 4096 && here.l2 >= here.l1d, "{here:?}");
    }
}
