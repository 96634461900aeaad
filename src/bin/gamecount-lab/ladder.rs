//! Timed runs of the release binary over ladders of sizes.
//!
//! `scripts/ladder.csv` has one series per line: `problem,kernel,threads,sizes`, where
//! `kernel` may be `default` (no `--kernel`: the engine's own choice), `threads` is a
//! space-separated list, and `sizes` a space-separated list of `N` (the `--pins`,
//! `--limit`, `--cards`/`--suits` or `--stacks` value; `10^7` and `1e7` are accepted).
//! Each point runs `repeats` times (3 when a run takes over 5 s, 1 over 30 s), and a
//! series stops climbing once a run exceeds `max_seconds`.

use crate::{Provenance, csv_field, csv_split, median};
use gamecount::cli::parse_count;
use std::io::Write;
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
    let mut file = std::fs::File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
    writeln!(
        file,
        "machine,date,commit,problem,params,size,kernel,threads,repeats,median_s,min_s,max_s,wall_median_s,answer,simd"
    )
    .map_err(|e| e.to_string())?;
    for line in kept {
        writeln!(file, "{line}").map_err(|e| e.to_string())?;
    }
    for s in series.iter().filter(|s| only.is_none_or(|p| p == s.problem)) {
        for &threads in &s.threads {
            for &size in &s.sizes {
                let mut args: Vec<String> = vec!["solve".into(), s.problem.clone()];
                args.extend(size_args(&s.problem, size)?);
                args.extend(["--threads".into(), threads.to_string(), "--json".into()]);
                if s.kernel != "default" {
                    args.extend(["--kernel".into(), s.kernel.clone()]);
                }
                let (mut compute, mut wall, mut last) = (Vec::new(), Vec::new(), serde_json::Value::Null);
                let mut failure = None;
                while compute.len() < repeats {
                    match run_once(binary, &args) {
                        Ok((seconds, process, json)) => {
                            compute.push(seconds);
                            wall.push(process);
                            last = json;
                            // Long runs are repeated less: their noise is relatively small.
                            let cap = if seconds > 30.0 {
                                1
                            } else if seconds > 5.0 {
                                3
                            } else {
                                repeats
                            };
                            if compute.len() >= cap {
                                break;
                            }
                        }
                        Err(e) => {
                            failure = Some(e);
                            break;
                        }
                    }
                }
                if let Some(e) = failure {
                    eprintln!("{} {} n={size} t={threads}: {e}; stopping this series", s.problem, s.kernel);
                    break;
                }
                let med = median(&compute);
                let params: String = last["params"]
                    .as_object()
                    .map(|o| o.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" "))
                    .unwrap_or_default();
                let kernel = last["kernel"].as_str().unwrap_or(&s.kernel).to_string();
                let min = compute.iter().copied().fold(f64::INFINITY, f64::min);
                let max = compute.iter().copied().fold(0.0, f64::max);
                writeln!(
                    file,
                    "{},{},{},{},{},{size},{},{threads},{},{med:.6},{min:.6},{max:.6},{:.6},{},{}",
                    csv_field(&provenance.machine),
                    provenance.date,
                    provenance.commit,
                    s.problem,
                    csv_field(&params),
                    csv_field(&kernel),
                    compute.len(),
                    median(&wall),
                    last["answer"],
                    last["simd"].as_str().unwrap_or("")
                )
                .map_err(|e| e.to_string())?;
                file.flush().map_err(|e| e.to_string())?;
                eprintln!(
                    "{:<7} {:<12} t={threads} n={size:<10} median {med:.6} s (min {min:.6}, max {max:.6}, {} runs)",
                    s.problem,
                    kernel,
                    compute.len()
                );
                if med > max_seconds {
                    eprintln!("{} {}: {med:.1} s > {max_seconds} s; stopping this series", s.problem, s.kernel);
                    break;
                }
            }
        }
    }
    Ok(())
}
