//! `gamecount-lab`: the performance laboratory behind `scripts/`.
//!
//! - `ladder`: runs the release `gamecount` binary over a ladder of sizes for every
//!   problem, kernel and thread count in `scripts/ladder.csv`, repeated, and writes the
//!   medians to `results/timings.csv`.
//! - `roofline`: measures this machine's limits with the project's own code (memory
//!   bandwidth, modular multiplications, butterflies, the first write to a fresh page)
//!   into `results/roofline.csv`.
//! - `criterion`: collects the last `cargo bench` (criterion's records) into
//!   `results/criterion.csv`, which the report shows side by side, with speed-ups.
//! - `report`: regenerates `results/README.md` and the SVG plots from those files.
//!
//! Everything it reports is measured on the machine it runs on; nothing is typed in.

mod criterion;
mod first_touch;
mod ladder;
mod report;
mod roofline;
mod svg;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// The performance laboratory: ladders of timed runs, machine limits, and the report.
#[derive(Parser, Debug)]
#[command(name = "gamecount-lab", version, about)]
struct Lab {
    #[command(subcommand)]
    command: LabCommand,
}

#[derive(Subcommand, Debug)]
enum LabCommand {
    /// Time the release binary over the size ladders and write timings.csv.
    Ladder {
        /// The ladder definition.
        #[arg(long, default_value = "scripts/ladder.csv")]
        ladder: PathBuf,
        /// The gamecount binary to run.
        #[arg(long, default_value = "target/release/gamecount")]
        binary: PathBuf,
        /// Where to write the timings.
        #[arg(long, default_value = "results/timings.csv")]
        out: PathBuf,
        /// Runs per point (fewer for long runs, see `ladder.rs`).
        #[arg(long, default_value_t = 5)]
        repeats: usize,
        /// Stop climbing a series once a run takes longer than this many seconds.
        #[arg(long, default_value_t = 60.0)]
        max_seconds: f64,
        /// Only the series of this problem.
        #[arg(long)]
        problem: Option<String>,
    },
    /// Measure memory bandwidth and arithmetic throughput; write roofline.csv.
    Roofline {
        /// Where to write the limits.
        #[arg(long, default_value = "results/roofline.csv")]
        out: PathBuf,
    },
    /// Collect the last `cargo bench` into results/criterion.csv (the report's kernel tables).
    Criterion {
        /// Criterion's output folder.
        #[arg(long, default_value = "target/criterion")]
        from: PathBuf,
        /// Where to write the medians (results/README.md shows them).
        #[arg(long, default_value = "results/criterion.csv")]
        out: PathBuf,
    },
    /// Regenerate results/README.md and results/plots/ from the CSV files.
    Report {
        /// The results folder (reads its CSV files and verify-deep.txt).
        #[arg(long, default_value = "results")]
        dir: PathBuf,
    },
}

fn main() -> ExitCode {
    let lab = Lab::parse();
    let outcome = match lab.command {
        LabCommand::Ladder { ladder, binary, out, repeats, max_seconds, problem } => {
            ladder::run(&ladder, &binary, &out, repeats, max_seconds, problem.as_deref())
        }
        LabCommand::Roofline { out } => roofline::run(&out),
        LabCommand::Criterion { from, out } => criterion::run(&from, &out),
        LabCommand::Report { dir } => report::run(&dir),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// What every results file records about where it was measured.
pub struct Provenance {
    /// CPU model and core count.
    pub machine: String,
    /// UTC date and time.
    pub date: String,
    /// Short commit hash (with `+dirty` if the tree has changes outside `results/`, which
    /// the measurements themselves write).
    pub commit: String,
}

impl Provenance {
    /// Reads the CPU model, the clock and the git commit.
    pub fn here() -> Self {
        let model = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|t| {
                t.lines()
                    .find(|l| l.starts_with("model name"))
                    .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
            })
            .unwrap_or_else(|| "unknown CPU".into());
        let cores = gamecount::sched::Scheduler::available_cores();
        let run = |args: &[&str]| {
            std::process::Command::new(args[0])
                .args(&args[1..])
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        };
        let date = run(&["date", "-u", "+%Y-%m-%dT%H:%MZ"]).unwrap_or_default();
        let mut commit = run(&["git", "rev-parse", "--short", "HEAD"]).unwrap_or_else(|| "unknown".into());
        let changed = run(&["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)results"]);
        if changed.is_some_and(|s| !s.is_empty()) {
            commit.push_str("+dirty");
        }
        Self { machine: format!("{model}, {cores} cores, simd {}", gamecount::simd::Simd::best()), date, commit }
    }
}

/// Quotes a CSV field when it needs it.
pub fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) { format!("\"{}\"", text.replace('"', "\"\"")) } else { text.to_string() }
}

/// Splits one CSV line into fields (double-quoted fields may hold commas).
pub fn csv_split(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                fields.last_mut().unwrap().push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(String::new()),
            (c, _) => fields.last_mut().unwrap().push(c),
        }
    }
    fields
}

/// The median of a non-empty sample.
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 1 { sorted[mid] } else { (sorted[mid - 1] + sorted[mid]) / 2.0 }
}
