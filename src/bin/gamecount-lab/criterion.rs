//! Collects a `cargo bench` run from criterion's own records
//! (`target/criterion/<group>/<function>/<parameter>/new/{benchmark,estimates}.json`)
//! into `results/criterion.csv`: per group and parameter, every variant's median with
//! its confidence interval, when criterion wrote it, and the group's reference, so that
//! the report can show every ratio between variants from one side-by-side run, not from
//! figures typed in.

use crate::{Provenance, csv_field};
use gamecount::games::stones::list::{Writer, replace_file};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// The variant each group's speed-ups are measured against: the family's plain variant,
/// which is its reference where that is fast enough to time at every size.
pub const REFERENCES: [(&str, &str); 14] = [
    ("cards", "parallel"),
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
    ("grundy-0.156", "naive"),
    ("grundy-0.354", "naive"),
    ("grundy-grundy", "naive"),
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
pub fn parameter_key(parameter: &str) -> (u64, String) {
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
    let mut csv = String::from("group,reference,parameter,variant,median_s,low_s,high_s,written,machine,date,commit\n");
    for (group, parameters) in &groups {
        let reference = REFERENCES.iter().find(|(g, _)| g == group).map_or("", |&(_, r)| r);
        for ((_, parameter), entries) in parameters {
            for e in entries {
                let _ = writeln!(
                    csv,
                    "{},{},{},{},{:e},{:e},{:e},{},{},{},{}",
                    csv_field(group),
                    csv_field(reference),
                    csv_field(parameter),
                    csv_field(&e.function),
                    e.median,
                    e.low,
                    e.high,
                    utc_minute(e.written),
                    csv_field(&provenance.machine),
                    provenance.date,
                    provenance.commit
                );
            }
        }
    }
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    replace_file(out, Writer::Tool("criterion"), "--out", csv.as_bytes()).map_err(|e| e.to_string())?;
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
