//! Collects a `cargo bench` run from criterion's own records
//! (`target/criterion/<group>/<function>/<parameter>/new/{benchmark,estimates}.json`)
//! into `results/criterion.csv`: per group and parameter, every variant's median with
//! its confidence interval, when criterion wrote it, and the group's reference, so that
//! the report can show every ratio between variants from one side-by-side run, not from
//! figures typed in. Each group's rows are its last run's, with the commit they were
//! measured at; the groups a `cargo bench` did not run keep their rows ([`run`]).

use crate::{Provenance, csv_field, csv_split};
use gamecount::files::{AtomicFile, Writer};
use serde_json::Value;
use std::collections::BTreeMap;
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

/// Records of one group further apart than this belong to different runs: `cargo bench`
/// writes a group's records one after the other, seconds to a few minutes apart.
const RUN_GAP_SECONDS: u64 = 600;

/// The records of `entries`' last run: the newest and every record before it that
/// follows the next one within [`RUN_GAP_SECONDS`]. Older ones (a variant since renamed,
/// or one a filtered `cargo bench` did not run) are left out, so that the speed-ups the
/// report computes within a group always compare variants timed side by side.
fn last_run(mut entries: Vec<Entry>) -> (Vec<Entry>, usize) {
    entries.sort_by_key(|e| std::cmp::Reverse(e.written));
    let mut kept = entries.len();
    for (i, pair) in entries.windows(2).enumerate() {
        if pair[0].written - pair[1].written > RUN_GAP_SECONDS {
            kept = i + 1;
            break;
        }
    }
    let older = entries.len() - kept;
    entries.truncate(kept);
    (entries, older)
}

/// A group's records in the order of the summary: by parameter, then by variant, so that
/// two collections of the same records write the same file whatever order the
/// directory listing gave.
fn in_file_order(mut entries: Vec<Entry>) -> Vec<Entry> {
    entries.sort_by(|a, b| {
        parameter_key(&a.parameter).cmp(&parameter_key(&b.parameter)).then_with(|| a.function.cmp(&b.function))
    });
    entries
}

/// The rows of an existing summary, by group (column 0), as lines.
fn existing_rows(out: &Path) -> BTreeMap<String, Vec<String>> {
    let mut rows: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let Ok(text) = std::fs::read_to_string(out) else { return rows };
    for line in text.lines().skip(1).filter(|l| !l.is_empty()) {
        let fields = csv_split(line);
        if fields.len() >= 11 {
            rows.entry(fields[0].clone()).or_default().push(line.to_string());
        }
    }
    rows
}

/// Writes the summary of the criterion records under `from` to `out`.
///
/// Each group's rows come from its last run ([`last_run`]). A row collected before, the
/// same record (group, parameter, variant and time written), keeps the machine, date and
/// commit it was collected with; a new one gets this checkout's. Groups with no record
/// here (a filtered `cargo bench`, another checkout), or only records older than their
/// rows in `out`, keep those rows as they are.
pub fn run(from: &Path, out: &Path) -> Result<(), String> {
    let mut dirs = Vec::new();
    records(from, &mut dirs);
    if dirs.is_empty() {
        return Err(format!("no criterion records under {} (run `cargo bench` first)", from.display()));
    }
    let mut by_group: BTreeMap<String, Vec<Entry>> = BTreeMap::new();
    for dir in &dirs {
        let (group, entry) = entry(dir)?;
        by_group.entry(group).or_default().push(entry);
    }
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    // Before `out` is read: what is refused (a FIFO would block the read) is refused here.
    let mut file = AtomicFile::create_as(out, Writer::Tool("criterion"), "--out").map_err(|e| e.to_string())?;
    // Every group's lines, those of `out` first; a group collected here replaces its own.
    let mut lines = existing_rows(out);
    let provenance = Provenance::here();
    let mut collected = 0;
    for (group, entries) in by_group {
        let (entries, older) = last_run(entries);
        if older > 0 {
            eprintln!("{group}: {older} records of earlier runs left out");
        }
        let before = lines.remove(&group).unwrap_or_default();
        // Records older than the rows collected before are leftovers of an earlier run in
        // this target directory (a later run happened elsewhere, or was filtered to other
        // groups): the rows stay, and the records do not get this checkout's commit.
        let newest_record = entries.iter().map(|e| utc_minute(e.written)).max().unwrap_or_default();
        let newest_row = before.iter().map(|line| csv_split(line)[7].clone()).max();
        if newest_row.is_some_and(|row| row > newest_record) {
            eprintln!("{group}: records older than the rows collected before ({newest_record}); rows kept");
            lines.insert(group, before);
            continue;
        }
        // The provenance of each record already collected, by its identity.
        let collected_before: BTreeMap<(String, String, String), (String, String, String)> = before
            .iter()
            .map(|line| csv_split(line))
            .map(|f| ((f[2].clone(), f[3].clone(), f[7].clone()), (f[8].clone(), f[9].clone(), f[10].clone())))
            .collect();
        let reference = REFERENCES.iter().find(|(g, _)| *g == group).map_or("", |&(_, r)| r);
        let entries = in_file_order(entries);
        let mut rows = Vec::with_capacity(entries.len());
        for e in &entries {
            let written = utc_minute(e.written);
            let key = (e.parameter.clone(), e.function.clone(), written.clone());
            let (machine, date, commit) = collected_before
                .get(&key)
                .cloned()
                .unwrap_or_else(|| (provenance.machine.clone(), provenance.date.clone(), provenance.commit.clone()));
            rows.push(format!(
                "{},{},{},{},{:e},{:e},{:e},{},{},{},{}",
                csv_field(&group),
                csv_field(reference),
                csv_field(&e.parameter),
                csv_field(&e.function),
                e.median,
                e.low,
                e.high,
                written,
                csv_field(&machine),
                date,
                commit
            ));
            collected += 1;
        }
        lines.insert(group, rows);
    }
    let mut csv = String::from("group,reference,parameter,variant,median_s,low_s,high_s,written,machine,date,commit\n");
    for line in lines.into_values().flatten() {
        csv += &line;
        csv.push('\n');
    }
    file.push_bytes(csv.as_bytes());
    file.commit().map_err(|e| e.to_string())?;
    eprintln!("wrote {} ({collected} benchmarks collected)", out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(written: u64) -> Entry {
        Entry { function: format!("v{written}"), parameter: "1".into(), median: 1.0, low: 1.0, high: 1.0, written }
    }

    #[test]
    fn rows_are_ordered_by_parameter_then_variant() {
        let entry = |parameter: &str, function: &str| Entry {
            function: function.into(),
            parameter: parameter.into(),
            median: 1.0,
            low: 1.0,
            high: 1.0,
            written: 0,
        };
        let listed = [entry("2^10", "b"), entry("1000", "c"), entry("2^10", "a"), entry("1000", "a")];
        let ordered: Vec<_> = in_file_order(listed.into()).into_iter().map(|e| (e.parameter, e.function)).collect();
        let expected = [("1000", "a"), ("1000", "c"), ("2^10", "a"), ("2^10", "b")];
        assert_eq!(ordered, expected.map(|(p, f)| (p.to_string(), f.to_string())));
    }

    #[test]
    fn a_group_keeps_only_its_last_run() {
        let (kept, older) = last_run([1000, 1100, 1200, 5000, 5100, 5700].map(at).into());
        assert_eq!(kept.iter().map(|e| e.written).collect::<Vec<_>>(), [5700, 5100, 5000]);
        assert_eq!(older, 3);
        let (kept, older) = last_run([10, 20].map(at).into());
        assert_eq!((kept.len(), older), (2, 0));
    }

    /// A criterion record of `group/variant/parameter`, its estimates written at `written`.
    fn record(from: &Path, group: &str, variant: &str, parameter: &str, median_ns: f64, written: u64) {
        let dir = from.join(group).join(variant).join(parameter).join("new");
        std::fs::create_dir_all(&dir).unwrap();
        let benchmark = format!(r#"{{"group_id":"{group}","function_id":"{variant}","value_str":"{parameter}"}}"#);
        std::fs::write(dir.join("benchmark.json"), benchmark).unwrap();
        let estimates = format!(
            r#"{{"median":{{"point_estimate":{median_ns},"confidence_interval":{{"lower_bound":{median_ns},"upper_bound":{median_ns}}}}}}}"#
        );
        std::fs::write(dir.join("estimates.json"), estimates).unwrap();
        let file = std::fs::File::options().write(true).open(dir.join("estimates.json")).unwrap();
        file.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(written)).unwrap();
    }

    #[test]
    fn collecting_keeps_each_rows_commit_and_the_groups_not_run() {
        let dir = std::env::temp_dir().join(format!("gamecount-lab-criterion-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let from = dir.join("records");
        let t = 1_796_083_260; // 2026-12-01 00:01 UTC
        // wht: collected before, unchanged since; powsum: a new run, and a variant of an
        // older run; ntt: no record here; series: a record older than its rows.
        record(&from, "wht", "scalar", "1024", 1000.0, t);
        record(&from, "powsum", "montgomery", "1024", 2000.0, t + 7200);
        record(&from, "powsum", "old-name", "1024", 3000.0, t);
        record(&from, "series", "stale", "1000", 4000.0, t - 86_400);
        let out = dir.join("criterion.csv");
        let header = "group,reference,parameter,variant,median_s,low_s,high_s,written,machine,date,commit\n";
        let before = format!(
            "{header}ntt,reference,4096,reference,1e-6,1e-6,1e-6,2026-11-30 10:00,m0,d0,aaaaaaa\n\
             powsum,montgomery,1024,old-name,3e-6,3e-6,3e-6,2026-12-01 00:01,m1,d1,bbbbbbb\n\
             series,catalan-scalar,1000,catalan,1e-6,1e-6,1e-6,2026-12-01 00:01,m3,d3,ddddddd\n\
             wht,scalar,1024,scalar,1e-6,1e-6,1e-6,2026-12-01 00:01,m2,d2,ccccccc\n"
        );
        std::fs::write(&out, before).unwrap();
        run(&from, &out).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        let rows: Vec<Vec<String>> = text.lines().skip(1).map(csv_split).collect();
        let groups: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(groups, ["ntt", "powsum", "series", "wht"], "{text}");
        assert_eq!(rows[0][10], "aaaaaaa", "a group not run keeps its row");
        assert_eq!((rows[1][3].as_str(), rows[1][7].as_str()), ("montgomery", "2026-12-01 02:01"));
        assert_eq!(rows[1][10], Provenance::here().commit, "a new record gets this checkout's commit");
        assert_eq!((rows[2][3].as_str(), rows[2][10].as_str()), ("catalan", "ddddddd"), "older records leave rows");
        assert_eq!((rows[3][3].as_str(), rows[3][10].as_str()), ("scalar", "ccccccc"), "a record collected before");
        std::fs::remove_dir_all(dir).unwrap();
    }

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
