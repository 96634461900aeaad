//! Summarises a `cargo bench` run from criterion's own records
//! (`target/criterion/<group>/<function>/<parameter>/new/{benchmark,estimates}.json`)
//! into `results/criterion.md`: per group and parameter, every variant's median with
//! its confidence interval and its speed-up over the group's reference, so that every
//! ratio between variants comes from one side-by-side run, not from figures typed in.

use crate::Provenance;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// The variant each group's speed-ups are measured against: the family's plain variant,
/// which is its reference where that is fast enough to time at every size.
const REFERENCES: [(&str, &str); 10] = [
    ("wht", "scalar"),
    ("powsum", "montgomery"),
    ("nimber_freq", "linear"),
    ("keyscan", "naive"),
    ("keyscan-threads", "wavefront-1t"),
    ("banded_dp", "dp-scalar/1t"),
    ("coin_formulas", "recurrence"),
    ("series", "catalan-scalar"),
    ("kayles-solve", "reference"),
    ("ntt", "reference"),
];

/// One timed benchmark.
struct Entry {
    function: String,
    parameter: String,
    /// Median seconds per iteration, with criterion's 95% interval.
    median: f64,
    low: f64,
    high: f64,
    /// When criterion wrote the record, in seconds since the Unix epoch.
    written: u64,
}

/// Every `new/benchmark.json` under `dir`, recursively.
fn records(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "new") && path.join("benchmark.json").is_file() {
                out.push(path);
            } else {
                records(&path, out);
            }
        }
    }
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads one record: (group, entry).
fn entry(dir: &Path) -> Result<(String, Entry), String> {
    let benchmark = read_json(&dir.join("benchmark.json"))?;
    let estimates = read_json(&dir.join("estimates.json"))?;
    let text = |v: &Value, key: &str| v[key].as_str().unwrap_or("").to_string();
    let written = std::fs::metadata(dir.join("estimates.json"))
        .and_then(|m| m.modified())
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let median = &estimates["median"];
    let ns = |v: &Value| v.as_f64().ok_or_else(|| format!("{}: no median", dir.display()));
    Ok((
        text(&benchmark, "group_id"),
        Entry {
            function: text(&benchmark, "function_id"),
            parameter: text(&benchmark, "value_str"),
            median: ns(&median["point_estimate"])? * 1e-9,
            low: ns(&median["confidence_interval"]["lower_bound"])? * 1e-9,
            high: ns(&median["confidence_interval"]["upper_bound"])? * 1e-9,
            written,
        },
    ))
}

/// `YYYY-MM-DD HH:MM` (UTC) of `secs` seconds after the Unix epoch.
fn utc_minute(secs: u64) -> String {
    // Days to a civil date (proleptic Gregorian), in eras of 400 years = 146 097 days
    // counted from 0000-03-01, so that the leap day ends a year.
    let (days, minute) = (secs / 86_400, secs % 86_400 / 60);
    let z = days + 719_468;
    let (era, day_of_era) = (z / 146_097, z % 146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 { shifted_month + 3 } else { shifted_month - 9 };
    let year = era * 400 + year_of_era + u64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}", minute / 60, minute % 60)
}

/// Orders parameters numerically where they are numbers (`2^24` as a power).
fn parameter_key(parameter: &str) -> (u64, String) {
    let value = gamecount::cli::parse_count(parameter).unwrap_or(u64::MAX);
    (value, parameter.to_string())
}

/// Writes the summary of the criterion records under `from` to `out`.
pub fn run(from: &Path, out: &Path) -> Result<(), String> {
    let mut dirs = Vec::new();
    records(from, &mut dirs);
    if dirs.is_empty() {
        return Err(format!("no criterion records under {} (run `cargo bench` first)", from.display()));
    }
    let mut groups: BTreeMap<String, BTreeMap<(u64, String), Vec<Entry>>> = BTreeMap::new();
    for dir in &dirs {
        let (group, entry) = entry(dir)?;
        groups.entry(group).or_default().entry(parameter_key(&entry.parameter)).or_default().push(entry);
    }
    let provenance = Provenance::here();
    let mut md = String::new();
    let _ = writeln!(md, "## Kernels side by side (cargo bench)\n");
    let _ = writeln!(
        md,
        "Criterion medians with their 95% intervals, from the last `cargo bench` of each group on this \
         machine ({}; summarised {} at commit `{}`). Each group times every variant of one kernel family \
         on the same inputs in one run, and says when its records were written (a group rerun on its own \
         is newer than the others); speed-up is against the reference named in the group's title. \
         Thread counts are in the benches' names or headers.\n",
        provenance.machine, provenance.date, provenance.commit
    );
    for (group, parameters) in &groups {
        let reference = REFERENCES.iter().find(|(g, _)| g == group).map(|&(_, r)| r);
        let _ = writeln!(md, "### {group} (speed-up against `{}`)\n", reference.unwrap_or("–"));
        let written = parameters.values().flatten().map(|e| e.written);
        let (first, last) = (written.clone().min().unwrap_or(0), written.max().unwrap_or(0));
        let (from, to) = (utc_minute(first), utc_minute(last));
        // The second date only when the group ran over midnight.
        let to = if to[..10] == from[..10] { &to[11..] } else { &to[..] };
        let _ = writeln!(md, "Measured {from} – {to} UTC.\n");
        let _ = writeln!(md, "| size | variant | median | 95% interval | speed-up |");
        let _ = writeln!(md, "|---|---|---|---|---|");
        for ((_, parameter), entries) in parameters {
            let base = entries.iter().find(|e| Some(e.function.as_str()) == reference).map(|e| e.median);
            let mut sorted: Vec<&Entry> = entries.iter().collect();
            sorted.sort_by(|a, b| b.median.total_cmp(&a.median));
            for e in sorted {
                let speedup = base.map_or("–".into(), |b| format!("{:.2}×", b / e.median));
                let _ = writeln!(
                    md,
                    "| {parameter} | {} | {} | {} – {} | {speedup} |",
                    e.function,
                    crate::report::fmt_seconds(e.median),
                    crate::report::fmt_seconds(e.low),
                    crate::report::fmt_seconds(e.high)
                );
            }
        }
        let _ = writeln!(md);
    }
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    std::fs::write(out, md).map_err(|e| format!("{}: {e}", out.display()))?;
    eprintln!("wrote {} ({} benchmarks)", out.display(), dirs.len());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::utc_minute;

    #[test]
    fn utc_minutes_match_the_calendar() {
        // Values from `date -u -d @secs`: the epoch, a leap day, month and year ends, and
        // 2100 (not a leap year).
        for (secs, text) in [
            (0, "1970-01-01 00:00"),
            (951_782_400, "2000-02-29 00:00"),
            (1_798_416_000, "2026-12-28 00:00"),
            (1_796_083_260, "2026-12-01 00:01"),
            (4_107_542_399, "2100-02-28 23:59"),
        ] {
            assert_eq!(utc_minute(secs), text, "{secs}");
        }
    }
}
