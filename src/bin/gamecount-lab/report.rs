//! Regenerates `results/README.md` and `results/plots/*.svg` from the measurements.
//!
//! Everything in the README comes from the files the scripts write (`timings.csv`,
//! `roofline.csv`, `baselines.csv`, `backends/*.csv` with their `.roofline.csv`, `versus.csv`, `avx512-intel.csv`, `grundy.csv`, `grundy-scaling.csv`,
//! `criterion.csv` and the output of `verify --deep`): no text written by hand, and every
//! table says the machine and the commit its rows were measured on. What the figures
//! mean for each kernel's design is in `docs/design/`.

use crate::csv_split;
use crate::svg::{Chart, Line};
use gamecount::files::{Writer, replace_file};
use gamecount::kernels::powsum::PowerPlan;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

/// One row of timings.csv.
#[derive(Clone, Debug)]
pub struct Timing {
    pub machine: String,
    pub date: String,
    pub commit: String,
    pub problem: String,
    pub params: String,
    pub size: u64,
    pub kernel: String,
    pub threads: usize,
    pub repeats: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub wall: f64,
    pub answer: String,
}

/// One row of roofline.csv.
#[derive(Clone, Debug)]
pub struct Limit {
    pub quantity: String,
    pub threads: usize,
    pub value: f64,
    pub unit: String,
    pub how: String,
    pub machine: String,
    pub date: String,
    pub commit: String,
}

/// The problems in report order, with their Project Euler size and reference kernel.
pub const PROBLEMS: [(&str, u64, &str, &str); 4] = [
    ("kayles", 1000, "reference", "pins n"),
    ("stones", 1000, "naive", "limit L"),
    ("cards", 10_000_000, "scalar", "cards n = suits s"),
    ("coins", 9898, "dp-scalar", "stacks n"),
];

pub fn read_timings(path: &Path) -> Result<Vec<Timing>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e} (run scripts/bench.sh)", path.display()))?;
    let mut rows = Vec::new();
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let f = csv_split(line);
        if f.len() < 14 {
            return Err(format!("{}: short row: {line}", path.display()));
        }
        let num = |i: usize| f[i].parse::<f64>().map_err(|_| format!("bad number '{}' in {line}", f[i]));
        rows.push(Timing {
            machine: f[0].clone(),
            date: f[1].clone(),
            commit: f[2].clone(),
            problem: f[3].clone(),
            params: f[4].clone(),
            size: f[5].parse().map_err(|_| format!("bad size in {line}"))?,
            kernel: f[6].clone(),
            threads: f[7].parse().map_err(|_| format!("bad threads in {line}"))?,
            repeats: f[8].parse().map_err(|_| format!("bad repeats in {line}"))?,
            median: num(9)?,
            min: num(10)?,
            max: num(11)?,
            wall: num(12)?,
            answer: f[13].clone(),
        });
    }
    Ok(rows)
}

pub fn read_limits(path: &Path) -> Vec<Limit> {
    let Ok(text) = std::fs::read_to_string(path) else { return Vec::new() };
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let f = csv_split(line);
            (f.len() >= 5).then(|| Limit {
                quantity: f[0].clone(),
                threads: f[1].parse().unwrap_or(1),
                value: f[2].parse().unwrap_or(f64::NAN),
                unit: f[3].clone(),
                how: f[4].clone(),
                machine: f.get(5).cloned().unwrap_or_default(),
                date: f.get(6).cloned().unwrap_or_default(),
                commit: f.get(7).cloned().unwrap_or_default(),
            })
        })
        .collect()
}

/// Seconds in a readable unit.
pub fn fmt_seconds(s: f64) -> String {
    if s < 1e-3 {
        format!("{:.1} µs", s * 1e6)
    } else if s < 1.0 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

/// Where a table's rows were measured, from `(machine, date, commit, what)` per row:
/// "Measured on" each machine, with each commit and the dates of its rows (the first and
/// the last) and, when `what` names them, the parts of the table each covers.
pub fn provenance<'a>(rows: impl IntoIterator<Item = (&'a str, &'a str, &'a str, &'a str)>) -> String {
    format!("Measured on {}.", machines_and_commits(rows))
}

/// The body of [`provenance`]: `machine (what: commit, dates; ...)`, machines joined by "; on".
fn machines_and_commits<'a>(rows: impl IntoIterator<Item = (&'a str, &'a str, &'a str, &'a str)>) -> String {
    // (machine, [(commit, what, dates)]) in order of appearance.
    type Part<'a> = (&'a str, &'a str, Vec<&'a str>);
    let mut machines: Vec<(&str, Vec<Part>)> = Vec::new();
    for (machine, date, commit, what) in rows {
        let at = machines.iter().position(|(m, _)| *m == machine).unwrap_or_else(|| {
            machines.push((machine, Vec::new()));
            machines.len() - 1
        });
        let parts = &mut machines[at].1;
        let at = parts.iter().position(|(c, w, _)| *c == commit && *w == what).unwrap_or_else(|| {
            parts.push((commit, what, Vec::new()));
            parts.len() - 1
        });
        if !date.is_empty() && !parts[at].2.contains(&date) {
            parts[at].2.push(date);
        }
    }
    let or_unrecorded = |text: &'a str| if text.is_empty() { "unrecorded" } else { text };
    let machines: Vec<String> = machines
        .iter()
        .map(|(machine, parts)| {
            // Parts measured in the same run (same commit and dates) are named together.
            let mut runs: Vec<(&str, &Vec<&str>, Vec<&str>)> = Vec::new();
            for (commit, what, dates) in parts {
                match runs.iter_mut().find(|(c, d, _)| c == commit && *d == dates) {
                    Some(run) => run.2.push(what),
                    None => runs.push((commit, dates, vec![what])),
                }
            }
            let runs: Vec<String> = runs
                .iter()
                .map(|(commit, dates, whats)| {
                    let whats: Vec<&str> = whats.iter().copied().filter(|w| !w.is_empty()).collect();
                    let whats = if whats.is_empty() { String::new() } else { format!("{}: ", whats.join(", ")) };
                    let dates = match dates.as_slice() {
                        [] => "date unrecorded".to_string(),
                        [one] => one.to_string(),
                        [first, .., last] => format!("{first} to {last}"),
                    };
                    format!("{whats}commit `{}`, {dates}", or_unrecorded(commit))
                })
                .collect();
            format!("{} ({})", or_unrecorded(machine), runs.join("; "))
        })
        .collect();
    machines.join("; on ")
}

/// Field `i` of a CSV row, empty when the row is shorter.
fn field(row: &[String], i: usize) -> &str {
    row.get(i).map_or("", String::as_str)
}

/// Least-squares slope of log(time) against log(size) over the points above 1 ms (below
/// that, fixed costs dominate).
pub fn scaling_exponent(points: &[(f64, f64)]) -> Option<f64> {
    let usable: Vec<(f64, f64)> = points.iter().filter(|(_, t)| *t > 1e-3).map(|&(n, t)| (n.ln(), t.ln())).collect();
    if usable.len() < 3 {
        return None;
    }
    let k = usable.len() as f64;
    let (mx, my) = (usable.iter().map(|p| p.0).sum::<f64>() / k, usable.iter().map(|p| p.1).sum::<f64>() / k);
    let sxy: f64 = usable.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = usable.iter().map(|(x, _)| (x - mx).powi(2)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

/// Replaces `path` with `contents` (a page or a plot): renamed into place whole, so that
/// an interrupted report leaves every file as it was or as it is now, never cut short.
fn write(path: &Path, contents: String) -> Result<(), String> {
    replace_file(path, Writer::Tool("report"), "", contents.as_bytes()).map_err(|e| e.to_string())
}

pub fn run(dir: &Path) -> Result<(), String> {
    let timings = read_timings(&dir.join("timings.csv"))?;
    let limits = read_limits(&dir.join("roofline.csv"));
    let plots = dir.join("plots");
    std::fs::create_dir_all(&plots).map_err(|e| e.to_string())?;
    let mut md = String::new();
    if timings.is_empty() {
        return Err("timings.csv has no rows".into());
    }
    let of = |rows: &mut dyn Iterator<Item = &Timing>| {
        provenance(rows.map(|t| (t.machine.as_str(), t.date.as_str(), t.commit.as_str(), t.problem.as_str())))
    };
    let _ = writeln!(md, "# Results\n");
    let _ = writeln!(
        md,
        "Generated by `gamecount-lab report` (the last step of `scripts/bench.sh`) from the measurement \
         files of this folder; do not edit by hand. Each table says the machine and the commit its rows \
         come from. What the figures mean for each kernel, against its bound, with the ideas tried and \
         rejected, is in [docs/design/](../docs/design/README.md).\n"
    );
    let _ = writeln!(
        md,
        "Times are the compute time the binary reports (`seconds` in its JSON, excluding process start-up), \
         median of repeated runs of the release binary; `wall` is the median of the whole process. \
         The machines are shared and noisy: compare rows measured side by side, as ratios.\n"
    );

    // 1. The four answers.
    let _ = writeln!(md, "## The four answers\n");
    let at_instance = |t: &&Timing| PROBLEMS.iter().any(|&(p, size, _, _)| t.problem == p && t.size == size);
    let _ = writeln!(md, "{}\n", of(&mut timings.iter().filter(at_instance)));
    let _ = writeln!(md, "| problem | parameters | answer | kernel | 1 thread | 2 threads | wall (2 threads) |");
    let _ = writeln!(md, "|---|---|---|---|---|---|---|");
    for (problem, size, _, _) in PROBLEMS {
        let at = |threads: usize| {
            timings
                .iter()
                .filter(|t| t.problem == problem && t.size == size && t.threads == threads)
                .min_by(|a, b| a.median.total_cmp(&b.median))
        };
        if let Some(best) = at(2).or_else(|| at(1)) {
            let one = at(1).map_or("–".into(), |t| format!("{} ({})", fmt_seconds(t.median), t.kernel));
            let _ = writeln!(
                md,
                "| {problem} | {} | {} | {} | {one} | {} | {} |",
                best.params,
                best.answer,
                best.kernel,
                at(2).map_or("–".into(), |t| fmt_seconds(t.median)),
                fmt_seconds(best.wall)
            );
        }
    }

    // 2. Kernels side by side at the Project Euler size.
    let _ = writeln!(md, "\n## Kernels side by side at the Project Euler size\n");
    let _ = writeln!(md, "Speed-up is against the problem's reference kernel on 1 thread, from the same ladder run.\n");
    let _ = writeln!(md, "{}\n", of(&mut timings.iter().filter(at_instance)));
    for (problem, size, reference, _) in PROBLEMS {
        let rows: Vec<&Timing> = timings.iter().filter(|t| t.problem == problem && t.size == size).collect();
        if rows.is_empty() {
            continue;
        }
        let base = rows.iter().find(|t| t.kernel == reference && t.threads == 1).map(|t| t.median);
        let _ = writeln!(md, "### {problem} ({})\n", rows[0].params);
        let _ = writeln!(md, "| kernel | threads | median | min | max | runs | speed-up |");
        let _ = writeln!(md, "|---|---|---|---|---|---|---|");
        let mut seen = std::collections::BTreeSet::new();
        for t in &rows {
            if !seen.insert((t.kernel.clone(), t.threads)) {
                continue;
            }
            let speedup = base.map_or("–".into(), |b| format!("{:.1}×", b / t.median));
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {speedup} |",
                t.kernel,
                t.threads,
                fmt_seconds(t.median),
                fmt_seconds(t.min),
                fmt_seconds(t.max),
                t.repeats
            );
        }
        let _ = writeln!(md);
    }

    // 3. Scaling ladders with plots.
    let _ = writeln!(md, "## Scaling\n");
    let _ = writeln!(md, "Exponent: least-squares slope of log time against log size over the points above 1 ms.\n");
    let _ = writeln!(md, "{}\n", of(&mut timings.iter()));
    for (problem, _, _, axis) in PROBLEMS {
        let mut series: BTreeMap<(String, usize), Vec<(f64, f64)>> = BTreeMap::new();
        for t in timings.iter().filter(|t| t.problem == problem) {
            series.entry((t.kernel.clone(), t.threads)).or_default().push((t.size as f64, t.median));
        }
        if series.is_empty() {
            continue;
        }
        let chart = Chart {
            title: format!("{problem}: compute time against size"),
            x_label: axis.to_string(),
            y_label: "median compute time".into(),
            lines: series
                .iter()
                .map(|((kernel, threads), points)| Line {
                    label: format!("{kernel} ×{threads}"),
                    points: points.clone(),
                })
                .collect(),
        };
        write(&plots.join(format!("{problem}.svg")), chart.render())?;
        let _ = writeln!(md, "### {problem}\n\n![{problem} scaling](plots/{problem}.svg)\n");
        let _ = writeln!(md, "| kernel | threads | sizes | largest size | time there | exponent |");
        let _ = writeln!(md, "|---|---|---|---|---|---|");
        for ((kernel, threads), points) in &series {
            let (n, t) = points.last().copied().unwrap_or((0.0, 0.0));
            let exponent = scaling_exponent(points).map_or("–".into(), |e| format!("{e:.2}"));
            let _ = writeln!(md, "| {kernel} | {threads} | {} | {n} | {} | {exponent} |", points.len(), fmt_seconds(t));
        }
        let _ = writeln!(md);
    }

    // 3a. Two threads against one: each kernel timed on both, at its largest such size.
    let mut pairs: BTreeMap<(&str, &str), (u64, f64, f64)> = BTreeMap::new();
    for one in timings.iter().filter(|t| t.threads == 1) {
        let two = timings
            .iter()
            .find(|t| t.threads == 2 && t.problem == one.problem && t.kernel == one.kernel && t.size == one.size);
        if let Some(two) = two {
            let entry = pairs.entry((one.problem.as_str(), one.kernel.as_str())).or_insert((0, 0.0, 0.0));
            if one.size >= entry.0 {
                *entry = (one.size, one.median, two.median);
            }
        }
    }
    if !pairs.is_empty() {
        let _ = writeln!(md, "## Two threads against one\n");
        let _ = writeln!(md, "At the largest size each kernel was timed on both (same ladder run).\n");
        let _ = writeln!(md, "{}\n", of(&mut timings.iter()));
        let _ = writeln!(md, "| problem | kernel | size | 1 thread | 2 threads | speed-up |");
        let _ = writeln!(md, "|---|---|---|---|---|---|");
        for ((problem, kernel), (size, one, two)) in pairs {
            let _ = writeln!(
                md,
                "| {problem} | {kernel} | {size} | {} | {} | {:.2}× |",
                fmt_seconds(one),
                fmt_seconds(two),
                one / two
            );
        }
        let _ = writeln!(md);
    }

    // 3b. Against the straightforward C++ programs (scripts/baselines.sh).
    if let Ok(text) = std::fs::read_to_string(dir.join("baselines.csv")) {
        let rows: Vec<Vec<String>> = text.lines().skip(1).map(csv_split).filter(|r| r.len() >= 7).collect();
        if !rows.is_empty() {
            let _ = writeln!(md, "## Against straightforward C++ (scripts/baselines.sh)\n");
            let _ = writeln!(
                md,
                "Whole processes, wall clock from start to exit, medians of alternated runs; both print the \
                 same answer (the script checks). The programs are in `scripts/baselines/`.\n"
            );
            let _ = writeln!(md, "{}\n", provenance(rows.iter().map(|r| (field(r, 7), field(r, 8), field(r, 9), ""))));
            let _ = writeln!(
                md,
                "`compute` is the time gamecount reports for its computation (`seconds`), and its ratio the \
                 C++ process against it; `simd` the backend gamecount was asked for (`auto`: the best of the \
                 CPU).\n"
            );
            let _ = writeln!(
                md,
                "| problem | parameters | C++ program | C++ | gamecount | faster by | simd | compute | faster by |"
            );
            let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|");
            for r in rows {
                let seconds = |s: &str| s.parse::<f64>().map_or("–".into(), fmt_seconds);
                // Rows from before the compute columns leave them empty.
                let (simd, compute, ratio) = match r.get(10..13) {
                    Some([simd, compute, ratio]) => (simd.clone(), seconds(compute), format!("{ratio}×")),
                    _ => ("–".into(), "–".into(), "–".into()),
                };
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} | {} | {}× | {simd} | {compute} | {ratio} |",
                    r[0],
                    r[1],
                    r[2],
                    seconds(&r[3]),
                    seconds(&r[4]),
                    r[5]
                );
            }
            let _ = writeln!(md);
        }
    }

    // 4. Distance from the machine's limits.
    if !limits.is_empty() {
        let _ = writeln!(md, "## Distance from the machine's limits\n");
        let _ = writeln!(
            md,
            "Each bound divides the least work of the kernel's method by the matching limit measured \
             below (`scripts/roofline.sh`), on the same thread count; ratio = measured median / bound. \
             The work models are stated with each row.\n"
        );
        let used = bounds(&timings, &limits);
        let _ = writeln!(
            md,
            "Times measured on {}; limits measured on {}.\n",
            machines_and_commits(
                used.iter().filter_map(|b| timing(&timings, b.problem, b.size, &b.kernel, b.threads)).map(|t| (
                    t.machine.as_str(),
                    t.date.as_str(),
                    t.commit.as_str(),
                    t.problem.as_str()
                ))
            ),
            machines_and_commits(limits.iter().map(|l| (l.machine.as_str(), l.date.as_str(), l.commit.as_str(), "")))
        );
        let _ = writeln!(md, "| problem | kernel | threads | size | measured | bound | ratio | work model |");
        let _ = writeln!(md, "|---|---|---|---|---|---|---|---|");
        for bound in used {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {:.1}× | {} |",
                bound.problem,
                bound.kernel,
                bound.threads,
                bound.size,
                fmt_seconds(bound.measured),
                fmt_seconds(bound.bound),
                bound.measured / bound.bound,
                bound.model
            );
        }
        let _ = writeln!(md);
    }

    // 5. Machine limits.
    if !limits.is_empty() {
        let _ = writeln!(md, "## Machine limits (scripts/roofline.sh)\n");
        let _ = writeln!(
            md,
            "{}\n",
            provenance(limits.iter().map(|l| (l.machine.as_str(), l.date.as_str(), l.commit.as_str(), "")))
        );
        let _ = writeln!(md, "| quantity | threads | value | how |");
        let _ = writeln!(md, "|---|---|---|---|");
        for l in &limits {
            let _ = writeln!(md, "| {} | {} | {:.2} {} | {} |", l.quantity, l.threads, l.value, l.unit, l.how);
        }
        let _ = writeln!(md);
    }

    // 6. Every backend on one machine, and the AVX-512 runs on an Intel core.
    backends(dir, &mut md);
    versus(dir, &mut md);
    grundy(dir, &mut md);
    grundy_scaling(dir, &plots, &mut md)?;
    avx512_intel(dir, &mut md);
    modeled_loops(dir, &mut md);

    // 7. The pre-release verification: its first line is the build header (version,
    // SIMD level and features, cores), which names the machine.
    if let Ok(text) = std::fs::read_to_string(dir.join("verify-deep.txt")) {
        let summary = text.lines().find(|l| l.contains("passed,")).unwrap_or("no summary line");
        let took = text.lines().find(|l| l.starts_with("verify took")).unwrap_or("");
        let header = text.lines().next().filter(|l| l.starts_with("gamecount ")).unwrap_or("not recorded");
        let _ = writeln!(md, "## Verification\n");
        let _ = writeln!(
            md,
            "`gamecount verify --deep` (brute force of the real games at the larger sizes): **{summary}**; {took}. \
             The run's header: `{header}` (the file does not record the commit). \
             Full output: [verify-deep.txt](verify-deep.txt).\n"
        );
    }

    // 8. The last `cargo bench` of each group, as `gamecount-lab criterion` collected it
    // from criterion's records.
    criterion(dir, &mut md);
    write(&dir.join("README.md"), md)?;
    eprintln!("wrote {}", dir.join("README.md").display());
    Ok(())
}

/// The tables of `backends/` (`scripts/backends.sh`), one per machine: each instance on
/// every backend of that CPU, side by side, against its bound on that backend from the
/// machine's own limits (`MACHINE.roofline.csv`, whose vector rates are measured per
/// backend) where there are both a model and a limit.
fn backends(dir: &Path, md: &mut String) {
    let Ok(entries) = std::fs::read_dir(dir.join("backends")) else { return };
    let mut machines: Vec<std::path::PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "csv") && !p.to_string_lossy().ends_with(".roofline.csv"))
        .collect();
    machines.sort();
    let mut heading = false;
    for path in machines {
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let rows: Vec<Vec<String>> = text.lines().skip(1).map(csv_split).filter(|r| r.len() >= 11).collect();
        if rows.is_empty() {
            continue;
        }
        if !heading {
            heading = true;
            let _ = writeln!(
                md,
                "## Every backend side by side, against its bound (scripts/backends.sh)
"
            );
            let _ = writeln!(
                md,
                "Fresh processes of the release binary, the backends alternated within each round, default \
                 kernels; compute time, median and fastest of the rounds. The bound is the model of the \
                 distance table above, priced at this machine's limits on that backend (its vector rates are \
                 measured per backend, `gamecount-lab roofline`); ratio = median / bound.\n"
            );
        }
        let stem = path.file_stem().map_or(String::new(), |s| s.to_string_lossy().into_owned());
        let limits = read_limits(&path.with_file_name(format!("{stem}.roofline.csv")));
        let _ = writeln!(md, "### {stem}\n");
        let _ = writeln!(md, "{}", provenance(rows.iter().map(|r| (field(r, 8), field(r, 9), field(r, 10), ""))));
        if limits.is_empty() {
            let _ = writeln!(md, "\nNo machine limits were measured with these runs: no bounds.");
        } else {
            let lim = limits.first().expect("not empty");
            let _ = writeln!(md, "\nLimits: `{stem}.roofline.csv`, {} at {}.", lim.date, lim.commit);
            if let Some(host) = host_state(&limits) {
                let _ = writeln!(md, "\n{host}");
            }
        }
        let _ = writeln!(md, "\n| instance | backend | threads | kernel | median | fastest | bound | ratio | answer |");
        let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|");
        let mut stones = None;
        let mut withheld = Vec::new();
        for r in &rows {
            let seconds = |s: &str| s.parse::<f64>().map_or("–".into(), fmt_seconds);
            let problem = r[0].split_whitespace().next().unwrap_or("");
            let threads: usize = r[2].parse().unwrap_or(1);
            let lim = |quantity: &str, threads: usize| limit_on(&limits, quantity, threads, &r[1]);
            let mut bound = instance_bound(problem, &r[3], threads, &lim, &mut stones).map(|(b, _)| b);
            if let Some(&(p, k, from, why)) = bound.and(model_withheld(problem, &r[3], &r[10])) {
                bound = None;
                let note = format!("{p} `{k}` measured before `{from}`, {why}");
                if !withheld.contains(&note) {
                    withheld.push(note);
                }
            }
            let ratio = bound.zip(r[4].parse::<f64>().ok()).map_or("–".into(), |(b, m)| format!("{:.1}×", m / b));
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} | {ratio} | {} |",
                r[0],
                r[1],
                r[2],
                r[3],
                seconds(&r[4]),
                seconds(&r[5]),
                bound.map_or("–".into(), fmt_seconds),
                r[7]
            );
        }
        for note in withheld {
            let _ = writeln!(md, "\nNo bound for {note}: the model describes the kernel as it is now.");
        }
        let _ = writeln!(md);
    }
}

/// What the limits of a run say of the host during it, in a sentence, or `None` when they
/// lack both figures. Two signs of a host busy elsewhere, measured beside the times: the
/// L1 reads of all threads against as many times one thread's (near 1 when each vCPU has
/// its core to itself; a core shared with another guest's thread slows a
/// throughput-bound loop by about half), and the fastest first write to a fresh 2 MiB
/// page (a few hundred microseconds when the host has the memory at hand, milliseconds
/// when it must back it again). Both slow the short runs, and raise the bounds of the
/// same run.
fn host_state(limits: &[Limit]) -> Option<String> {
    let l1 = |threads: usize| {
        limits.iter().find(|l| l.quantity.starts_with("L1 reads") && l.threads == threads).map(|l| l.value)
    };
    let all = limits.iter().filter(|l| l.quantity.starts_with("L1 reads")).map(|l| l.threads).max().unwrap_or(1);
    let scaling = (all >= 2).then(|| l1(1).zip(l1(all))).flatten().map(|(one, many)| {
        format!(
            "L1 reads on {all} threads ran at {:.2} of {all} times one thread's rate (close to 1 when each \
             vCPU has its core to itself)",
            many / (one * all as f64)
        )
    });
    let page = limits.iter().find(|l| l.quantity == "first write to a fresh 2 MiB page" && l.unit == "µs").map(|l| {
        format!(
            "the first write to a fresh 2 MiB page took {} at best (a few hundred microseconds when the host \
             has the memory at hand)",
            fmt_seconds(l.value * 1e-6)
        )
    });
    let found: Vec<String> = scaling.into_iter().chain(page).collect();
    (!found.is_empty()).then(|| {
        format!(
            "The host during these runs: {}. A vCPU whose core is busy elsewhere, or memory the host must \
             back again, slows the short runs and raises the bounds measured with them.",
            found.join(", and ")
        )
    })
}

/// The rows of `dir/name` below its header that have at least `fields` fields: none when
/// the file is missing, so that its section is left out.
fn csv_rows(dir: &Path, name: &str, fields: usize) -> Vec<Vec<String>> {
    let Ok(text) = std::fs::read_to_string(dir.join(name)) else { return Vec::new() };
    text.lines().skip(1).map(csv_split).filter(|r| r.len() >= fields).collect()
}

/// The table of `versus.csv` (`scripts/versus.sh`): this project against an earlier
/// commit of itself, each row one instance of one side-by-side run.
fn versus(dir: &Path, md: &mut String) {
    let rows = csv_rows(dir, "versus.csv", 11);
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(md, "## Against an earlier commit (scripts/versus.sh)\n");
    let _ = writeln!(
        md,
        "Fresh processes of both binaries alternated within each round, each built with its own \
         commit's settings; compute time, median of the rounds; ratio = this commit / the earlier one.\n"
    );
    let _ = writeln!(
        md,
        "| instance | earlier commit | its median | commit | arguments | median | ratio | rounds | threads | CPU | date |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|---|");
    for r in &rows {
        let seconds = |s: &str| s.parse::<f64>().map_or("–".into(), fmt_seconds);
        let _ = writeln!(
            md,
            "| {} | `{}` | {} | `{}` | {} | {} | {}× | {} | {} | {} | {} |",
            r[0],
            r[1],
            seconds(&r[2]),
            r[3],
            if r[4].is_empty() { "–".to_string() } else { format!("`{}`", r[4]) },
            seconds(&r[5]),
            r[6],
            r[7],
            r[8],
            r[9],
            r[10]
        );
    }
    let _ = writeln!(md);
}

/// [`limit`] as measured on `backend`: a row of the quantity tagged `[backend]` if
/// there is one, else an untagged row (a limit no backend changes: DRAM, L1, scalar).
fn limit_on(limits: &[Limit], quantity: &str, threads: usize, backend: &str) -> Option<f64> {
    let tag = format!("[{backend}]");
    let rows = || limits.iter().filter(|l| l.quantity.starts_with(quantity) && l.threads == threads);
    rows()
        .find(|l| l.quantity.ends_with(&tag))
        .or_else(|| rows().find(|l| !l.quantity.contains('[')))
        .map(|l| l.value * 1e9)
}

/// The table of `avx512-intel.csv`: its `#` lines say what was run, on which CPU and
/// which commit each build is; they are quoted as they stand.
fn avx512_intel(dir: &Path, md: &mut String) {
    let Ok(text) = std::fs::read_to_string(dir.join("avx512-intel.csv")) else { return };
    let comments: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix('#')).map(str::trim).collect();
    let rows: Vec<Vec<String>> =
        text.lines().filter(|l| !l.starts_with('#')).skip(1).map(csv_split).filter(|r| r.len() >= 8).collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(md, "## The AVX-512 backend on an Intel core (avx512-intel.csv)\n");
    for comment in comments {
        let _ = writeln!(md, "- {comment}");
    }
    let _ = writeln!(md, "\n| instance | build | backend | threads | rounds | median | fastest | slowest |");
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|");
    for r in &rows {
        let seconds = |s: &str| s.parse::<f64>().map_or("–".into(), fmt_seconds);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            r[0],
            r[1],
            r[2],
            r[3],
            r[4],
            seconds(&r[5]),
            seconds(&r[6]),
            seconds(&r[7])
        );
    }
    let _ = writeln!(md);
}

/// The tables of `mca.csv` (`scripts/mca.py`): llvm-mca's model of the hottest loops of
/// each profiled run, one table per run, a row per loop and core. A model, not a
/// measurement: the section says so, and where it was checked.
fn modeled_loops(dir: &Path, md: &mut String) {
    let rows = csv_rows(dir, "mca.csv", 15);
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(md, "## Modeled loops (scripts/mca.py)\n");
    let _ = writeln!(
        md,
        "Cycles per iteration of each run's hottest straight runs of code, by llvm-mca's model of \
         each core: every load an L1 hit, no clock. A model, not a time: on the Zen 4 it came within \
         7% of the power sum's and kayles' window loops, and 25% under a chain of two vpdpwssd \
         (docs/design/simd.md, \"Modeled loops\"). `share`: the loop's part of the run's \
         instructions; `bound`: the cycles its busiest units alone need.\n"
    );
    let mut runs: Vec<&str> = Vec::new();
    for r in &rows {
        if !runs.contains(&r[0].as_str()) {
            runs.push(&r[0]);
        }
    }
    for run in runs {
        let of_run: Vec<&Vec<String>> = rows.iter().filter(|r| r[0] == run).collect();
        let (arch, mca, commit, date) = (&of_run[0][1], &of_run[0][12], &of_run[0][13], &of_run[0][14]);
        let _ = writeln!(md, "### `{run}` ({arch})\n\n{mca}, commit `{commit}`, {date}.\n");
        let _ = writeln!(md, "| loop | instructions | runs | share | core | cycles | bound | busiest unit (cycles) |");
        let _ = writeln!(md, "|---|---|---|---|---|---|---|---|");
        for r in of_run {
            let iterations = if r[5] == "0" { "–".to_string() } else { r[5].clone() };
            let share =
                r[6].parse::<f64>().ok().filter(|&s| s > 0.0).map_or("–".into(), |s| format!("{:.1}%", 100.0 * s));
            let _ = writeln!(
                md,
                "| {} `{}` | {} | {} | {} | {} | {} | {} | {} |",
                r[2],
                r[3],
                r[4],
                iterations,
                share,
                r[8],
                r[9],
                r[10],
                r[11].replace(':', " ")
            );
        }
        let _ = writeln!(md);
    }
}

/// The table of `grundy.csv` (`scripts/grundy.sh`): the octal games of the README, each
/// row a game, its arguments and kernel, what the run found and its compute time.
fn grundy(dir: &Path, md: &mut String) {
    let rows = csv_rows(dir, "grundy.csv", 16);
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(md, "## Octal games (scripts/grundy.sh)\n");
    let _ = writeln!(
        md,
        "Fresh `gamecount grundy` processes, the rows alternated within each round; compute time, median and \
         fastest of the rounds. `preperiod` and `period` are certified (Guy–Smith) or `null`.\n"
    );
    let _ = writeln!(md, "{}\n", provenance(rows.iter().map(|r| (field(r, 13), field(r, 14), field(r, 15), ""))));
    let _ = writeln!(
        md,
        "| game | arguments | kernel | threads | N reached | preperiod | period | max (first at) | median | fastest | runs |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|---|");
    for r in &rows {
        let seconds = |s: &str| s.parse::<f64>().map_or("–".into(), fmt_seconds);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} ({}) | {} | {} | {} |",
            r[0],
            r[1],
            r[2],
            r[3],
            r[4],
            r[5],
            r[6],
            r[7],
            r[8],
            seconds(&r[9]),
            seconds(&r[10]),
            r[11]
        );
    }
    let _ = writeln!(md);
}

/// The plots of `grundy-scaling.csv` (`scripts/grundy-scaling.sh`): per game, every
/// Grundy variant's compute time against N, with the slope of each line.
fn grundy_scaling(dir: &Path, plots: &Path, md: &mut String) -> Result<(), String> {
    let rows = csv_rows(dir, "grundy-scaling.csv", 10);
    if rows.is_empty() {
        return Ok(());
    }
    let _ = writeln!(md, "## Grundy variants against N (scripts/grundy-scaling.sh)\n");
    let _ = writeln!(
        md,
        "Fresh `gamecount grundy GAME --heaps N --kernel VARIANT` processes, the variants of one size \
         alternated within each round; median compute time. Exponent: least-squares slope of log time against \
         log N over the points above 1 ms.\n"
    );
    let _ = writeln!(md, "{}\n", provenance(rows.iter().map(|r| (field(r, 7), field(r, 8), field(r, 9), ""))));
    let mut games: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    games.dedup();
    for game in games {
        let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
        for r in rows.iter().filter(|r| r[0] == game) {
            let (Ok(n), Ok(t)) = (r[2].parse::<f64>(), r[4].parse::<f64>()) else { continue };
            let label = format!("{} ×{} ({})", r[1], r[3], r[6]);
            match series.iter_mut().find(|(l, _)| *l == label) {
                Some((_, points)) => points.push((n, t)),
                None => series.push((label, vec![(n, t)])),
            }
        }
        let name = if game == "grundy" { "Grundy's game".to_string() } else { game.to_string() };
        let chart = Chart {
            title: format!("{name}: compute time against N"),
            x_label: "heaps N".into(),
            y_label: "median compute time".into(),
            lines: series.iter().map(|(label, points)| Line { label: label.clone(), points: points.clone() }).collect(),
        };
        let file = format!("grundy-{game}.svg");
        write(&plots.join(&file), chart.render())?;
        let _ = writeln!(md, "### {name}\n\n![{name}: time against N](plots/{file})\n");
        let _ = writeln!(md, "| variant | sizes | largest N | time there | exponent |");
        let _ = writeln!(md, "|---|---|---|---|---|");
        for (label, points) in &series {
            let (n, t) = points.last().copied().unwrap_or((0.0, 0.0));
            let exponent = scaling_exponent(points).map_or("–".into(), |e| format!("{e:.2}"));
            let _ = writeln!(md, "| {label} | {} | {n} | {} | {exponent} |", points.len(), fmt_seconds(t));
        }
        let _ = writeln!(md);
    }
    Ok(())
}

/// The tables of `criterion.csv` (`gamecount-lab criterion`): per kernel family and size,
/// every variant's criterion median with its 95% interval and its speed-up over the
/// family's reference, all from one side-by-side run of the group.
fn criterion(dir: &Path, md: &mut String) {
    let rows = csv_rows(dir, "criterion.csv", 11);
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(md, "## Kernels side by side (cargo bench)\n");
    let _ = writeln!(
        md,
        "Criterion medians with their 95% intervals, from the last `cargo bench` of each group, \
         collected by `gamecount-lab criterion`. Each group times every variant of one kernel family on \
         the same inputs in one run; speed-up is against the reference named in the group's title. \
         Thread counts are in the benches' names or headers.\n"
    );
    let mut groups: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    groups.dedup();
    for group in groups {
        let of_group: Vec<&Vec<String>> = rows.iter().filter(|r| r[0] == group).collect();
        // A family benched on every backend names its reference without one: its
        // portable run is then the base, so each speed-up counts kernel and backend.
        let named = of_group[0][1].as_str();
        let on_portable = format!("{named}/portable");
        let reference =
            if !named.is_empty() && !of_group.iter().any(|r| r[3] == named) { on_portable.as_str() } else { named };
        let shown = if reference.is_empty() { "–" } else { reference };
        let _ = writeln!(md, "### {group} (speed-up against `{shown}`)\n");
        let written = of_group.iter().map(|r| r[7].as_str());
        let (first, last) = (written.clone().min().unwrap_or(""), written.max().unwrap_or(""));
        let on = machines_and_commits(of_group.iter().map(|r| (field(r, 8), field(r, 9), field(r, 10), "")));
        let _ = writeln!(md, "Run {first} – {last} UTC on {on}.\n");
        let _ = writeln!(md, "| size | variant | median | 95% interval | speed-up |");
        let _ = writeln!(md, "|---|---|---|---|---|");
        let mut parameters: Vec<&str> = of_group.iter().map(|r| r[2].as_str()).collect();
        parameters.sort_by_key(|p| crate::criterion::parameter_key(p));
        parameters.dedup();
        for parameter in parameters {
            let mut entries: Vec<(&str, f64, f64, f64)> = of_group
                .iter()
                .filter(|r| r[2] == parameter)
                .filter_map(|r| Some((r[3].as_str(), r[4].parse().ok()?, r[5].parse().ok()?, r[6].parse().ok()?)))
                .collect();
            let base = entries.iter().find(|e| e.0 == reference).map(|e| e.1);
            entries.sort_by(|a, b| b.1.total_cmp(&a.1));
            for (variant, median, low, high) in entries {
                let speedup = base.map_or("–".into(), |b: f64| format!("{:.2}×", b / median));
                let _ = writeln!(
                    md,
                    "| {parameter} | {variant} | {} | {} – {} | {speedup} |",
                    fmt_seconds(median),
                    fmt_seconds(low),
                    fmt_seconds(high)
                );
            }
        }
        let _ = writeln!(md);
    }
}

/// One row of the distance table.
pub struct Bound {
    pub problem: &'static str,
    pub kernel: String,
    pub threads: usize,
    pub size: u64,
    pub measured: f64,
    pub bound: f64,
    pub model: String,
}

/// The limit `quantity` measured on `threads` threads (the prefix of its name suffices).
fn limit(limits: &[Limit], quantity: &str, threads: usize) -> Option<f64> {
    limits.iter().find(|l| l.quantity.starts_with(quantity) && l.threads == threads).map(|l| l.value * 1e9)
}

/// The best (lowest median) timing of `kernel` for `problem` at `size` on `threads`.
fn timing<'a>(timings: &'a [Timing], problem: &str, size: u64, kernel: &str, threads: usize) -> Option<&'a Timing> {
    timings
        .iter()
        .filter(|t| t.problem == problem && t.size == size && t.kernel == kernel && t.threads == threads)
        .min_by(|a, b| a.median.total_cmp(&b.median))
}

/// The bound models, for the kernels and sizes measured in the ladder.
pub fn bounds(timings: &[Timing], limits: &[Limit]) -> Vec<Bound> {
    const MODELLED: [(&str, u64, &str, &[usize]); 9] = [
        ("cards", 10_000_000, "fused", &[1, 2]),
        ("cards", 10_000_000, "folded", &[1, 2]),
        ("coins", 9898, "dp-simd", &[1]),
        ("coins", 9898, "closed-form", &[1]),
        ("kayles", 1000, "catalan", &[1]),
        ("kayles", 1000, "catalan-words", &[1]),
        ("stones", 1000, "diagonal", &[1, 2]),
        ("stones", 1000, "diagonal-tiles", &[1, 2]),
        ("stones", 1000, "wavefront", &[1, 2]),
    ];
    let mut out = Vec::new();
    let mut stones = None;
    for (problem, size, kernel, threads) in MODELLED {
        for &threads in threads {
            let lim = |quantity: &str, threads: usize| limit(limits, quantity, threads);
            let (Some(t), Some((bound, model))) = (
                timing(timings, problem, size, kernel, threads),
                instance_bound(problem, kernel, threads, &lim, &mut stones),
            ) else {
                continue;
            };
            if !model_describes(problem, kernel, &t.commit) {
                continue;
            }
            out.push(Bound { problem, kernel: kernel.into(), threads, size, measured: t.median, bound, model });
        }
    }
    out
}

/// A model's start: problem, kernel, its first commit, and what the kernel was before.
type ModelStart = (&'static str, &'static str, &'static str, &'static str);

/// The commit from which each bound model describes its kernel, where the kernel kept
/// its name through a change of algorithm: a time measured before it ran other code, and
/// its ratio to the model would mean nothing. (coins `closed-form` was one scalar chain
/// of Barrett products before it walked sixteen runs in lanes.)
const MODEL_FROM: [ModelStart; 1] =
    [("coins", "closed-form", "1905ea7", "when it was one scalar chain of modular products")];

/// The [`MODEL_FROM`] entry of `problem`'s `kernel` when its bound model does not
/// describe the code measured at `commit`: only when git says `commit` comes before the
/// model's first commit. Without git, or for a commit git does not know, the model is
/// taken to apply (`None`).
fn model_withheld(problem: &str, kernel: &str, commit: &str) -> Option<&'static ModelStart> {
    let entry = MODEL_FROM.iter().find(|(p, k, _, _)| *p == problem && *k == kernel)?;
    // `abc1234+dirty`: the commit the build started from.
    let commit = commit.split('+').next().unwrap_or(commit);
    let status = std::process::Command::new("git")
        .args(["merge-base", "--is-ancestor", entry.2, commit])
        .stderr(std::process::Stdio::null())
        .status();
    // Exit status 1: `from` is not an ancestor of `commit` (0: it is; others: unknown).
    status.is_ok_and(|s| s.code() == Some(1)).then_some(entry)
}

/// Whether the bound model of `problem`'s `kernel` describes the code measured at
/// `commit` (see [`model_withheld`]).
fn model_describes(problem: &str, kernel: &str, commit: &str) -> bool {
    model_withheld(problem, kernel, commit).is_none()
}

/// The lower bound of `kernel` on the Project Euler instance of `problem` with
/// `threads` threads, from the machine limits `limit(quantity, threads)` (G per second),
/// and the model it comes from; `None` without a model or a limit. `stones` caches the
/// stone scan's work, counted once by the library's own scan.
fn instance_bound(
    problem: &str,
    kernel: &str,
    threads: usize,
    limit: &dyn Fn(&str, usize) -> Option<f64>,
    stones: &mut Option<StonesWork>,
) -> Option<(f64, String)> {
    match (problem, kernel) {
        // cards: the power sum needs the products of the exponent's plan (28 for s = 10^7:
        // 21 squarings + 7 multiplies) for each of the 2^24 values. `fused` streams the 2^24-entry array through the transform
        // twice (read + write each time); `folded` (2^23 + 2^21 values) streams the lower
        // half twice and the short part once, then reads both for the power sum.
        ("cards", "fused" | "folded") => {
            let values = (1u64 << 24) as f64;
            let exponent: u64 = 10_000_000;
            let products_per_value = PowerPlan::new(exponent).products() as f64;
            let (bytes, traffic) = if kernel == "fused" {
                (2.0 * 8.0 * values, "2 in-place passes over 64 MiB at the DRAM read+write rate".to_string())
            } else {
                let fold = gamecount::games::cards::folded::Fold::for_cards(10_000_000)?;
                let (half, short) = (fold.half as f64, fold.short as f64);
                (
                    8.0 * (2.0 * half + short) + 4.0 * (half + short),
                    "two in-place passes over the 32 MiB lower half and one over the 8 MiB short part at the DRAM read+write rate, one read of both".to_string(),
                )
            };
            let wht = limit("DRAM in-place", threads).map(|bw| bytes / bw)?;
            let pow = limit("modmul u32x16", threads).map(|rate| products_per_value * values / rate)?;
            Some((
                wht + pow,
                format!("{traffic}, plus {products_per_value} Montgomery products per value at the 16-lane rate"),
            ))
        }
        // coins: the DP updates about n^2 cells of the diamond (reach 4, half band), 4 lane
        // additions each; the closed form walks its n/5 terms in sixteen lanes, 3 products
        // and 16 additions a term (its start, the binomials and tables, not counted).
        ("coins", "dp-simd") => limit("modadd u32x16", threads).map(|rate| {
            (
                4.0 * 9898f64 * 9898f64 / rate,
                "n^2 cells (the half band's diamond), 4 lane additions each, at the 16-lane add rate".into(),
            )
        }),
        // Its sixteen runs share one thread at the instance (a worker's wake-up costs more
        // than the whole sum), so it is priced on one thread whatever the run's count.
        ("coins", "closed-form") => {
            let terms = 9898f64 / 5.0;
            let products = limit("modmul u32x16", 1).map(|rate| 3.0 * terms / rate)?;
            let additions = limit("modadd u32x16", 1).map(|rate| 16.0 * terms / rate)?;
            Some((
                products + additions,
                "n/5 terms of 3 modular products and 16 modular additions each, at the 16-lane rates of one thread".into(),
            ))
        }
        // kayles: the T recurrence alone is 16 characters × m^2/4 products (m = n/2, the
        // half convolution); `catalan` does each as one 64-bit lane multiply-add,
        // `catalan-words` as 3 word products (4 word planes, Karatsuba on 2×2 blocks: 12
        // dot products for 16).
        ("kayles", "catalan") => limit("mac u64x8", threads).map(|rate| {
            (
                16.0 * 500f64 * 500f64 / 4.0 / rate,
                "16 characters × m²/4 multiply-adds (the half convolution, one modulus factor), at the 64-bit lane rate"
                    .into(),
            )
        }),
        ("kayles", "catalan-words") => limit("word dot", threads).map(|rate| {
            (
                3.0 * 16.0 * 500f64 * 500f64 / 4.0 / rate,
                "16 characters × m²/4 convolution terms × 3 word products, at the pairwise-dot rate; the x recurrence not counted"
                    .into(),
            )
        }),
        // stones: the data the scan of `keyscan/diagonal/window.rs` must move at least once. Every searched
        // pair (open: its K1 key still free when it comes up; and not settled as
        // exhausted) reads six windows of its rows, eight words each, four in the tail
        // window; every losing triple writes nine words.
        ("stones", "diagonal" | "diagonal-tiles" | "wavefront") => {
            let rate = limit("L1 reads", threads)?;
            let work = stones
                .get_or_insert_with(|| StonesWork::count(gamecount::games::stones::StonesParams::instance().limit));
            Some((
                work.words() / rate,
                format!(
                    "6 row windows per searched pair (8 words, 4 in the tail: {} and {} pairs; {} more settled without a search) and 9 words per losing triple ({}), at the L1 read rate",
                    work.wide, work.tail, work.settled, work.losing
                ),
            ))
        }
        _ => None,
    }
}

/// What the stones scan at `L` must touch: the pairs it searches (wide and tail windows)
/// and its losing triples; the pairs it settles without a search are counted, not
/// charged.
struct StonesWork {
    wide: u64,
    tail: u64,
    settled: u64,
    losing: u64,
}

impl StonesWork {
    /// Counted by the library's own scan (`diagonal`), which reports what it searched.
    fn count(limit: u32) -> Self {
        let (scan, searches) = gamecount::kernels::keyscan::diagonal::count_searches(limit);
        Self { wide: searches.wide, tail: searches.tail, settled: searches.settled, losing: scan.losing }
    }

    /// Words read and written.
    fn words(&self) -> f64 {
        (6 * 8 * self.wide + 6 * 4 * self.tail + 9 * self.losing) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bound_model_is_not_applied_to_code_measured_before_it() {
        // Needs the repository's history (a checkout, not a shallow clone or a tarball).
        let known = |commit: &str| {
            std::process::Command::new("git")
                .args(["cat-file", "-e", &format!("{commit}^{{commit}}")])
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        if !(known("c1b628a") && known("7ac781f")) {
            eprintln!("no git history here: the check of the model's first commit is skipped");
            return;
        }
        // The scalar chain before the lanes (c1b628a), the lanes after (7ac781f).
        assert!(!model_describes("coins", "closed-form", "c1b628a"));
        assert!(!model_describes("coins", "closed-form", "c1b628a+dirty"));
        assert!(model_describes("coins", "closed-form", "7ac781f"));
        assert!(model_describes("coins", "closed-form", "1905ea7"));
        // Other kernels and unknown commits keep their bound.
        assert!(model_describes("coins", "dp-simd", "c1b628a"));
        assert!(model_describes("coins", "closed-form", "unknown"));
    }

    /// The modeled loops come from `mca.csv` alone, one table per run in the file's order.
    #[test]
    fn modeled_loops_are_rendered_per_run() {
        let dir = std::env::temp_dir().join(format!("gamecount-lab-report-mca-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let row = |run: &str, loop_: u32, cpu: &str, cycles: &str| {
            format!(
                "\"{run}\",aarch64,{loop_},0x10,33,42480,0.264,1,{cpu},{cycles},16.00,N1UnitV0:16.01,\
                 llvm-mca 19.1.7,abc1234,2026-12-07T11:44Z\n"
            )
        };
        let csv = format!(
            "run,arch,loop,address,instructions,iterations,share,closed,cpu,cycles,throughput,busiest,mca,commit,date\n{}{}{}",
            row("kayles --pins 1000", 0, "neoverse-n1", "16.03"),
            row("cards --cards 10", 0, "apple-m1", "9.03"),
            row("kayles --pins 1000", 1, "apple-m1", "9.00"),
        );
        std::fs::write(dir.join("mca.csv"), csv).unwrap();
        let mut md = String::new();
        modeled_loops(&dir, &mut md);
        std::fs::remove_dir_all(&dir).unwrap();
        let kayles = md.find("### `kayles --pins 1000` (aarch64)").expect(&md);
        let cards = md.find("### `cards --cards 10` (aarch64)").expect(&md);
        assert!(kayles < cards, "{md}");
        let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| 0 ") || l.starts_with("| 1 ")).collect();
        assert_eq!(rows.len(), 3, "{md}");
        assert_eq!(rows[0], "| 0 `0x10` | 33 | 42480 | 26.4% | neoverse-n1 | 16.03 | 16.00 | N1UnitV0 16.01 |");
        assert!(rows[1].starts_with("| 1 `0x10` |") && rows[1].contains("| apple-m1 | 9.00 |"), "{md}");
        assert!(md.contains("llvm-mca 19.1.7, commit `abc1234`, 2026-12-07T11:44Z."), "{md}");
    }

    /// The criterion section rendered from `csv_rows` (after the header) in a directory
    /// of its own, `name` keeping tests that run at once apart.
    fn render_criterion(name: &str, csv_rows: &str) -> String {
        let dir = std::env::temp_dir().join(format!("gamecount-lab-report-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let header = "group,reference,parameter,variant,median_s,low_s,high_s,written,machine,date,commit\n";
        std::fs::write(dir.join("criterion.csv"), format!("{header}{csv_rows}")).unwrap();
        let mut md = String::new();
        criterion(&dir, &mut md);
        std::fs::remove_dir_all(&dir).unwrap();
        md
    }

    /// The criterion tables come from the CSV alone: sizes in numeric order, variants
    /// slowest first, speed-ups against the group's reference, the run's span and
    /// provenance.
    #[test]
    fn criterion_tables_are_rendered_from_the_csv() {
        let md = render_criterion(
            "plain",
            "wht,scalar,2^20,simd,1e-3,9e-4,1.1e-3,2026-11-29 22:10,\"CPU, 2 cores\",2026-11-30T12:15Z,abc1234\n\
             wht,scalar,2^20,scalar,4e-3,3.9e-3,4.1e-3,2026-11-29 22:09,\"CPU, 2 cores\",2026-11-30T12:15Z,abc1234\n\
             wht,scalar,2^8,simd,1e-6,9e-7,1.1e-6,2026-11-29 22:11,\"CPU, 2 cores\",2026-11-30T12:15Z,abc1234\n",
        );
        assert!(md.contains("### wht (speed-up against `scalar`)"), "{md}");
        assert!(md.contains("Run 2026-11-29 22:09 – 2026-11-29 22:11 UTC on CPU, 2 cores (commit `abc1234`"), "{md}");
        let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| 2^")).collect();
        assert_eq!(rows.len(), 3, "{md}");
        assert!(rows[0].starts_with("| 2^8 | simd |") && rows[0].ends_with("| – |"), "{}", rows[0]);
        assert!(rows[1].starts_with("| 2^20 | scalar |") && rows[1].ends_with("| 1.00× |"), "{}", rows[1]);
        assert!(rows[2].starts_with("| 2^20 | simd |") && rows[2].ends_with("| 4.00× |"), "{}", rows[2]);
    }

    /// The host's sentence reads the L1 scaling and the 2 MiB page from the limits, says
    /// what it has, and is left out when it has neither.
    #[test]
    fn the_host_state_comes_from_the_run_limits() {
        let limit = |quantity: &str, threads: usize, value: f64, unit: &str| Limit {
            quantity: quantity.into(),
            threads,
            value,
            unit: unit.into(),
            how: String::new(),
            machine: String::new(),
            date: String::new(),
            commit: String::new(),
        };
        let busy = [
            limit("L1 reads (u64 words)", 1, 13.6, "G/s"),
            limit("L1 reads (u64 words)", 2, 18.4, "G/s"),
            limit("first write to a fresh 2 MiB page", 1, 5907.5, "µs"),
            limit("first write to a fresh 4 KiB page", 1, 1.8, "µs"),
        ];
        let text = host_state(&busy).unwrap();
        assert!(text.contains("L1 reads on 2 threads ran at 0.68 of 2 times one thread's rate"), "{text}");
        assert!(text.contains("fresh 2 MiB page took 5.91 ms at best"), "{text}");
        let quiet = [limit("L1 reads (u64 words)", 1, 14.1, "G/s"), limit("L1 reads (u64 words)", 2, 28.0, "G/s")];
        let text = host_state(&quiet).unwrap();
        assert!(text.contains("at 0.99 of 2 times") && !text.contains("2 MiB"), "{text}");
        let one_thread = [limit("L1 reads (u64 words)", 1, 14.1, "G/s")];
        assert_eq!(host_state(&one_thread), None);
        assert_eq!(host_state(&[]), None);
    }

    /// A family benched per backend (`variant/backend`) is measured against its
    /// reference's portable run, and the title says so.
    #[test]
    fn per_backend_groups_take_the_portable_reference() {
        let md = render_criterion(
            "backends",
            "wht,scalar,2^20,scalar/portable,4e-3,3.9e-3,4.1e-3,2026-11-29 22:09,\"CPU\",2026-11-30T12:15Z,abc1234\n\
             wht,scalar,2^20,simd/avx2,1e-3,9e-4,1.1e-3,2026-11-29 22:10,\"CPU\",2026-11-30T12:15Z,abc1234\n",
        );
        assert!(md.contains("### wht (speed-up against `scalar/portable`)"), "{md}");
        let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| 2^")).collect();
        assert!(rows[0].starts_with("| 2^20 | scalar/portable |") && rows[0].ends_with("| 1.00× |"), "{}", rows[0]);
        assert!(rows[1].starts_with("| 2^20 | simd/avx2 |") && rows[1].ends_with("| 4.00× |"), "{}", rows[1]);
    }
}
