//! Timed runs of the release binary over ladders of sizes.
//!
//! `scripts/ladder.csv` has one series per line: `problem,kernel,threads,sizes`, where
//! `kernel` may be `default` (no `--kernel`: the engine's own choice), `threads` is a
//! space-separated list, and `sizes` a space-separated list of `N` (the `--pins`,
//! `--limit`, `--cards`/`--suits` or `--stacks` value; `10^7` and `1e7` are accepted).
//! Each point runs `repeats` times (3 when a run takes over 5 s, 1 over 30 s), and a
//! series stops climbing once a run exceeds `max_seconds`.
//!
//! The runs of a point are spread out, not made back to back: a first pass climbs every
//! series once (which also decides where each stops), then each further round runs every
//! point that wants more runs once, in a shuffled order (a fixed seed per round). A
//! point's median then mixes runs made after different neighbours at different moments.
//! Run back to back, the five runs of a point all shared one state of the machine: right
//! after a heavy point or a build, a whole kayles point at n = 1000 read 30% high.

use crate::{Provenance, csv_field, csv_split, median};
use gamecount::cli::parse_count;
use gamecount::files::{AtomicFile, Writer};
use gamecount::kernels::SplitMix64;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// One line of the ladder file.
struct Series {
    problem: String,
    kernel: String,
    threads: Vec<usize>,
    sizes: Vec<u64>,
}

fn read_ladder(path: &Path) -> Result<Vec<Series>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut series = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let bad = |what: &str| format!("{}:{}: {what}: {line}", path.display(), number + 1);
        if fields.len() != 4 {
            return Err(bad("expected problem,kernel,threads,sizes"));
        }
        let threads = fields[2]
            .split_whitespace()
            .map(|t| t.parse().map_err(|_| bad("bad thread count")))
            .collect::<Result<_, _>>()?;
        let sizes =
            fields[3].split_whitespace().map(|s| parse_count(s).map_err(|e| bad(&e))).collect::<Result<_, _>>()?;
        series.push(Series { problem: fields[0].into(), kernel: fields[1].into(), threads, sizes });
    }
    Ok(series)
}

/// The `solve` arguments that set a problem's size to `n`.
fn size_args(problem: &str, n: u64) -> Result<Vec<String>, String> {
    let n = n.to_string();
    Ok(match problem {
        "kayles" => vec!["--pins".into(), n],
        "stones" => vec!["--limit".into(), n],
        "cards" => vec!["--cards".into(), n.clone(), "--suits".into(), n],
        "coins" => vec!["--stacks".into(), n],
        other => return Err(format!("unknown problem '{other}' in the ladder")),
    })
}

/// One run: (compute seconds from the JSON, process wall seconds, the JSON object).
fn run_once(binary: &Path, args: &[String]) -> Result<(f64, f64, serde_json::Value), String> {
    let start = Instant::now();
    let output = Command::new(binary).args(args).output().map_err(|e| format!("{}: {e}", binary.display()))?;
    let wall = start.elapsed().as_secs_f64();
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).lines().last().unwrap_or("failed").to_string());
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let json: serde_json::Value =
        serde_json::from_str(stdout.trim()).map_err(|e| format!("bad JSON ({e}): {stdout}"))?;
    let seconds = json["seconds"].as_f64().ok_or("no seconds in the JSON")?;
    Ok((seconds, wall, json))
}

/// One point of a series: its arguments and its runs so far.
struct Point<'a> {
    series: &'a Series,
    threads: usize,
    size: u64,
    args: Vec<String>,
    compute: Vec<f64>,
    wall: Vec<f64>,
    /// The JSON of the last run (the kernel, the parameters, the answer).
    last: Option<serde_json::Value>,
}

impl Point<'_> {
    /// One more run.
    fn run(&mut self, binary: &Path) -> Result<(), String> {
        let (seconds, process, json) = run_once(binary, &self.args)?;
        if let Some(last) = &self.last
            && last["answer"] != json["answer"]
        {
            return Err(format!("the answer changed between runs: {} then {}", last["answer"], json["answer"]));
        }
        self.compute.push(seconds);
        self.wall.push(process);
        self.last = Some(json);
        Ok(())
    }

    /// How many runs the point gets: long runs are repeated less (their noise is
    /// relatively small), judged by the first.
    fn cap(&self, repeats: usize) -> usize {
        match self.compute.first() {
            Some(&s) if s > 30.0 => 1,
            Some(&s) if s > 5.0 => 3.min(repeats),
            _ => repeats,
        }
    }

    /// The point's row of the CSV.
    fn csv_line(&self, provenance: &Provenance) -> String {
        let last = self.last.as_ref().expect("a point is kept only after a run");
        let params: String = last["params"]
            .as_object()
            .map(|o| o.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" "))
            .unwrap_or_default();
        let kernel = last["kernel"].as_str().unwrap_or(&self.series.kernel).to_string();
        let min = self.compute.iter().copied().fold(f64::INFINITY, f64::min);
        let max = self.compute.iter().copied().fold(0.0, f64::max);
        format!(
            "{},{},{},{},{},{},{},{},{},{:.6},{min:.6},{max:.6},{:.6},{},{}",
            csv_field(&provenance.machine),
            provenance.date,
            provenance.commit,
            self.series.problem,
            csv_field(&params),
            self.size,
            csv_field(&kernel),
            self.threads,
            self.compute.len(),
            median(&self.compute),
            median(&self.wall),
            last["answer"],
            last["simd"].as_str().unwrap_or("")
        )
    }
}

/// Runs every series and writes the CSV.
pub fn run(
    ladder: &Path,
    binary: &Path,
    out: &Path,
    repeats: usize,
    max_seconds: f64,
    only: Option<&str>,
) -> Result<(), String> {
    if !binary.exists() {
        return Err(format!("{} does not exist: build it with `cargo build --release`", binary.display()));
    }
    let provenance = Provenance::here();
    let series = read_ladder(ladder)?;
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    // Written beside `out` and renamed over it at the end: an interrupted or failed
    // ladder leaves the old file as it was (and an unwritable `out` is refused now,
    // before the runs; what is left at `out` is then a regular file or nothing, safe to
    // read).
    let mut file = AtomicFile::create_as(out, Writer::Tool("ladder"), "--out").map_err(|e| e.to_string())?;
    // With --problem, the other problems' rows of an existing file are kept.
    let kept: Vec<String> = match (only, std::fs::read_to_string(out)) {
        (Some(problem), Ok(text)) => text
            .lines()
            .skip(1)
            .filter(|line| csv_split(line).get(3).is_some_and(|p| p != problem))
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    let mut text = String::from(
        "machine,date,commit,problem,params,size,kernel,threads,repeats,median_s,min_s,max_s,wall_median_s,answer,simd\n",
    );
    for line in kept {
        text += &line;
        text.push('\n');
    }
    // Pass 1: every series climbs once, one run per point.
    let mut points: Vec<Point> = Vec::new();
    for s in series.iter().filter(|s| only.is_none_or(|p| p == s.problem)) {
        for &threads in &s.threads {
            for &size in &s.sizes {
                let mut args: Vec<String> = vec!["solve".into(), s.problem.clone()];
                args.extend(size_args(&s.problem, size)?);
                args.extend(["--threads".into(), threads.to_string(), "--json".into()]);
                if s.kernel != "default" {
                    args.extend(["--kernel".into(), s.kernel.clone()]);
                }
                let mut point = Point { series: s, threads, size, args, compute: vec![], wall: vec![], last: None };
                if let Err(e) = point.run(binary) {
                    eprintln!("{} {} n={size} t={threads}: {e}; stopping this series", s.problem, s.kernel);
                    break;
                }
                let seconds = point.compute[0];
                eprintln!("{:<7} {:<14} t={threads} n={size:<10} {seconds:.6} s", s.problem, s.kernel);
                points.push(point);
                if seconds > max_seconds {
                    eprintln!("{} {}: {seconds:.1} s > {max_seconds} s; stopping this series", s.problem, s.kernel);
                    break;
                }
            }
        }
    }
    // Further rounds: the points that want more runs, once each, in a shuffled order.
    for round in 1..repeats {
        let mut order: Vec<usize> =
            (0..points.len()).filter(|&i| points[i].compute.len() < points[i].cap(repeats)).collect();
        let mut rng = SplitMix64(0x1adde5 + round as u64);
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        eprintln!("round {} of {repeats}: {} points", round + 1, order.len());
        for i in order {
            let point = &mut points[i];
            if let Err(e) = point.run(binary) {
                return Err(format!(
                    "{} n={} t={}: {e} (its first run passed)",
                    point.series.problem, point.size, point.threads
                ));
            }
        }
    }
    for point in &points {
        text += &point.csv_line(&provenance);
        text.push('\n');
        eprintln!(
            "{:<7} {:<14} t={} n={:<10} median {:.6} s ({} runs)",
            point.series.problem,
            point.series.kernel,
            point.threads,
            point.size,
            median(&point.compute),
            point.compute.len()
        );
    }
    file.push_bytes(text.as_bytes());
    file.commit().map_err(|e| e.to_string())
}
