//! The command-line interface: argument parsing, output formats and exit codes.
//! `main.rs` only installs the allocator and calls [`run`].
//!
//! Exit codes: 0 success; 1 a `verify` check failed; 2 the input was refused (one line
//! on stderr naming the problem and the reason).

mod numbers;
pub use numbers::parse_count;

use crate::games::{self, Answer, InputError, ProblemId, Request, cards, coins, kayles, stones};
use crate::platform;
use crate::sched::Scheduler;
use crate::simd::Simd;
use clap::{Args, Parser, Subcommand};
use serde_json::json;
use std::ffi::OsString;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Instant;

/// Examples shown under `gamecount --help`: the Project Euler instances.
const EXAMPLES: &str = "Examples (the Project Euler instances):
  gamecount solve all                                   # the four answers, as a table
  gamecount solve kayles --pins 1000                    # f(1000) mod 10^9
  gamecount solve stones --limit 1000 --json            # sum and number of losing triples
  gamecount solve cards --cards 10^7 --suits 10^7       # C(10^7, 10^7) mod 10^9+7
  gamecount solve coins --stacks 9898 --kernel dp-simd  # F(9898) mod 989898989 by the DP
  gamecount verify --deep                               # brute force of the real games

Sizes may be written 10000000, 10_000_000, 10^7 or 1e7. Exit codes: 0 success,
1 a verify check failed, 2 the input was refused (one line on stderr).";

/// Counts the positions of combinatorial games exactly: four Project Euler problems,
/// each reduced by its theory to a hot kernel.
#[derive(Parser, Debug)]
#[command(name = "gamecount", version, about, long_about = None, propagate_version = true, after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Compute one problem's answer (or all four Project Euler instances).
    Solve {
        #[command(subcommand)]
        problem: SolveCommand,
    },
    /// Cross-check every kernel against brute-force solvers of the real games.
    Verify {
        /// Extend the brute-force comparisons to larger sizes (minutes).
        #[arg(long)]
        deep: bool,
        /// Worker threads (default: all cores).
        #[arg(long, value_name = "T", value_parser = parse_count, allow_hyphen_values = true)]
        threads: Option<u64>,
        /// SIMD level of the kernels: auto (the best this CPU has), portable, avx2,
        /// avx512 or neon; a level the CPU lacks is refused. Default: GAMECOUNT_SIMD, else auto.
        #[arg(long, value_name = "LEVEL")]
        simd: Option<String>,
    },
    /// List each problem's kernel variants, the default first.
    Kernels,
}

#[derive(Subcommand, Debug)]
enum SolveCommand {
    /// PE 1015 partisan Kayles: f(N), the fair rows of N blue/red pins, mod M.
    /// Project Euler instance: --pins 1000 (mod 10^9).
    Kayles {
        /// Number of pins in the row (odd rows are never fair).
        #[arg(long, value_name = "N", value_parser = parse_count, allow_hyphen_values = true)]
        pins: u64,
        /// Report f(N) modulo M (any M >= 2).
        #[arg(long, value_name = "M", default_value = "1000000000", value_parser = parse_count, allow_hyphen_values = true)]
        modulus: u64,
        #[command(flatten)]
        run: RunOptions,
    },
    /// PE 260 stone game: the sum of x+y+z over the losing triples x <= y <= z <= L.
    /// Project Euler instance: --limit 1000.
    Stones {
        /// The largest pile size L.
        #[arg(long, value_name = "L", value_parser = parse_count, allow_hyphen_values = true)]
        limit: u64,
        /// Also write every losing triple to FILE as CSV lines x,y,z (lexicographic order;
        /// written to a temporary file and renamed when complete).
        #[arg(long, value_name = "FILE")]
        list: Option<std::path::PathBuf>,
        #[command(flatten)]
        run: RunOptions,
    },
    /// PE 798 card stacks: C(N, S), the losing initial sets of S suits of cards 1..N,
    /// mod a prime P. Project Euler instance: --cards 10^7 --suits 10^7.
    Cards {
        /// Cards per suit, N.
        #[arg(long, value_name = "N", value_parser = parse_count, allow_hyphen_values = true)]
        cards: u64,
        /// Number of suits, S.
        #[arg(long, value_name = "S", value_parser = parse_count, allow_hyphen_values = true)]
        suits: u64,
        /// A prime N < P < 2^31.
        #[arg(long, value_name = "P", default_value = "1000000007", value_parser = parse_count, allow_hyphen_values = true)]
        modulus: u64,
        #[command(flatten)]
        run: RunOptions,
    },
    /// PE 860 coin stacks: F(N), the fair arrangements of N stacks of H coins, mod P.
    /// Project Euler instance: --stacks 9898 (mod 989898989, two coins per stack).
    Coins {
        /// Number of stacks, N.
        #[arg(long, value_name = "N", value_parser = parse_count, allow_hyphen_values = true)]
        stacks: u64,
        /// Coins per stack, H (1..=16).
        #[arg(long, value_name = "H", default_value = "2", value_parser = parse_count, allow_hyphen_values = true)]
        height: u64,
        /// Report F(N) modulo P (2 <= P < 2^32; the O(n) kernels need a prime).
        #[arg(long, value_name = "P", default_value = "989898989", value_parser = parse_count, allow_hyphen_values = true)]
        modulus: u64,
        #[command(flatten)]
        run: RunOptions,
    },
    /// The four Project Euler instances with their default kernels, as a table.
    All {
        /// Worker threads (default: all cores).
        #[arg(long, value_name = "T", value_parser = parse_count, allow_hyphen_values = true)]
        threads: Option<u64>,
        /// One JSON object per answer, one per line, instead of the table.
        #[arg(long)]
        json: bool,
        /// SIMD level of the kernels: auto (the best this CPU has), portable, avx2,
        /// avx512 or neon; a level the CPU lacks is refused. Default: GAMECOUNT_SIMD, else auto.
        #[arg(long, value_name = "LEVEL")]
        simd: Option<String>,
    },
}

/// Options every `solve` problem takes.
#[derive(Args, Debug)]
struct RunOptions {
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "T", value_parser = parse_count, allow_hyphen_values = true)]
    threads: Option<u64>,
    /// Kernel variant (see `gamecount kernels`; default: the fastest that applies).
    #[arg(long, value_name = "NAME")]
    kernel: Option<String>,
    /// Print one JSON object per answer instead of the bare answer.
    #[arg(long)]
    json: bool,
    /// SIMD level of the kernels: auto (the best this CPU has), portable, avx2,
    /// avx512 or neon; a level the CPU lacks is refused. Default: GAMECOUNT_SIMD, else auto.
    #[arg(long, value_name = "LEVEL")]
    simd: Option<String>,
}

/// A failure to report: the message (one line) and the exit code.
struct Failure {
    message: String,
    code: u8,
}

impl From<InputError> for Failure {
    fn from(e: InputError) -> Self {
        Failure { message: e.to_string(), code: 2 }
    }
}

/// Runs the CLI on `args` (the program name first) and returns the exit code.
pub fn run(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let args: Vec<OsString> = args.into_iter().collect();
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version: print as clap formats them, succeed.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("error: {}{}", problem_prefix(&args), one_line(&e.render().to_string()));
            return ExitCode::from(2);
        }
    };
    match dispatch(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("error: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}

/// `"cards: "` when the arguments name a problem after `solve`, so a parse error says
/// which problem it is about.
fn problem_prefix(args: &[OsString]) -> String {
    let words: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    words
        .windows(2)
        .find(|w| w[0] == "solve")
        .and_then(|w| ProblemId::ALL.iter().find(|p| p.name() == w[1]))
        .map_or(String::new(), |p| format!("{p}: "))
}

/// Clap's multi-line error as one line: the lines before `Usage:`, joined, without the
/// leading `error: `.
fn one_line(rendered: &str) -> String {
    rendered
        .lines()
        .take_while(|l| !l.trim_start().starts_with("Usage:"))
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("For more information"))
        .collect::<Vec<_>>()
        .join(" ")
        .trim_start_matches("error: ")
        .to_string()
}

fn dispatch(command: Command) -> Result<(), Failure> {
    match command {
        Command::Kernels => {
            for problem in ProblemId::ALL {
                println!("{problem}: {}", games::kernel_names(problem).join(", "));
            }
            // The level `solve` would run here (GAMECOUNT_SIMD respected) and the others.
            let simd = Simd::from_flag_or_env(None).map_err(|e| Failure { message: e.to_string(), code: 2 })?;
            let available: Vec<&str> = Simd::available().iter().map(|s| s.name()).collect();
            println!("simd: {simd} (this CPU runs: {})", available.join(", "));
            Ok(())
        }
        Command::Verify { deep, threads, simd } => verify(deep, threads, simd.as_deref()),
        Command::Solve { problem } => solve(problem),
    }
}

/// The run's scheduler; progress bars only for humans (stderr a terminal, no `--json`).
/// The SIMD level is `--simd`, else `GAMECOUNT_SIMD`, else the best this CPU has.
fn scheduler(
    problem: Option<ProblemId>,
    threads: Option<u64>,
    simd: Option<&str>,
    json: bool,
) -> Result<Scheduler, Failure> {
    let prefix = problem.map_or(String::new(), |p| format!("{p}: "));
    let simd = Simd::from_flag_or_env(simd).map_err(|e| Failure { message: format!("{prefix}{e}"), code: 2 })?;
    let threads = threads.map(|t| usize::try_from(t).unwrap_or(usize::MAX));
    let sched = Scheduler::new(threads).map_err(|e| Failure { message: prefix + &e.to_string(), code: 2 })?;
    Ok(sched.with_simd(simd).with_progress(!json && std::io::stderr().is_terminal()))
}

fn solve(command: SolveCommand) -> Result<(), Failure> {
    let (request, run) = match command {
        SolveCommand::All { threads, json, simd } => return solve_all(threads, simd.as_deref(), json),
        SolveCommand::Kayles { pins, modulus, run } => {
            let params = kayles::KaylesParams::new(pins, modulus)?;
            // The default kernel depends on the SIMD level: the scheduler's.
            let sched = scheduler(Some(ProblemId::Kayles), run.threads, run.simd.as_deref(), run.json)?;
            let kernel = kayles::KaylesKernel::parse_on(run.kernel.as_deref(), &params, sched.simd())?;
            return solve_request(&Request::Kayles(params, kernel), run.json, &sched);
        }
        SolveCommand::Stones { limit, list, run } => {
            let params = stones::StonesParams::new(limit)?;
            // The default kernel depends on the thread count: the scheduler's.
            let sched = scheduler(Some(ProblemId::Stones), run.threads, run.simd.as_deref(), run.json)?;
            let kernel = stones::StonesKernel::parse(run.kernel.as_deref(), &params, sched.threads())?;
            if let Some(path) = list {
                return solve_stones_listing(params, kernel, &path, run.json, &sched);
            }
            return solve_request(&Request::Stones(params, kernel), run.json, &sched);
        }
        SolveCommand::Cards { cards, suits, modulus, run } => {
            let params = cards::CardsParams::new(cards, suits, modulus)?;
            (Request::Cards(params, cards::CardsKernel::parse(run.kernel.as_deref(), &params)?), run)
        }
        SolveCommand::Coins { stacks, height, modulus, run } => {
            let params = coins::CoinsParams::new(stacks, height, modulus)?;
            (Request::Coins(params, coins::CoinsKernel::parse(run.kernel.as_deref(), &params)?), run)
        }
    };
    let sched = scheduler(Some(request.problem()), run.threads, run.simd.as_deref(), run.json)?;
    solve_request(&request, run.json, &sched)
}

/// Checks, solves, times and reports one request.
fn solve_request(request: &Request, json: bool, sched: &Scheduler) -> Result<(), Failure> {
    request.preflight()?;
    eprintln!("{} · {} threads", platform::header(sched.simd()), sched.threads());
    let (answer, seconds) = timed(request, sched)?;
    report(&answer, seconds, sched, json);
    Ok(())
}

/// Prints one answer as `solve` does: the answer or its JSON line on stdout, the summary
/// on stderr.
fn report(answer: &Answer, seconds: f64, sched: &Scheduler, json: bool) {
    if json {
        println!("{}", json_line(answer, seconds, sched));
    } else {
        println!("{}", answer.answer);
    }
    eprintln!("{}", summary_line(answer, seconds, sched.threads()));
}

/// `solve stones --list FILE`: the list file is created (or refused) before the scan and
/// renamed into place after it; `seconds` includes writing it.
fn solve_stones_listing(
    params: stones::StonesParams,
    kernel: stones::StonesKernel,
    path: &std::path::Path,
    json: bool,
    sched: &Scheduler,
) -> Result<(), Failure> {
    stones::preflight(&params, kernel)?;
    let mut list = stones::list::ListFile::create(path)?;
    eprintln!("{} · {} threads", platform::header(sched.simd()), sched.threads());
    let start = Instant::now();
    let answer = stones::solve_listing(&params, kernel, sched, &mut list)?;
    list.commit()?;
    report(&answer, start.elapsed().as_secs_f64(), sched, json);
    Ok(())
}

fn solve_all(threads: Option<u64>, simd: Option<&str>, json: bool) -> Result<(), Failure> {
    let sched = scheduler(None, threads, simd, json)?;
    eprintln!("{} · {} threads", platform::header(sched.simd()), sched.threads());
    let mut rows = Vec::new();
    for problem in ProblemId::ALL {
        let request = Request::instance(problem, sched.threads());
        let (answer, seconds) = timed(&request, &sched)?;
        eprintln!("{}", summary_line(&answer, seconds, sched.threads()));
        if json {
            println!("{}", json_line(&answer, seconds, &sched));
        }
        rows.push((answer, seconds));
    }
    if !json {
        let params_width = rows.iter().map(|(a, _)| a.params_text().len()).max().unwrap_or(0);
        println!("{:<8} {:<params_width$} {:>12} {:>10}", "problem", "parameters", "answer", "seconds");
        for (answer, seconds) in &rows {
            println!(
                "{:<8} {:<params_width$} {:>12} {:>10.6}",
                answer.problem.name(),
                answer.params_text(),
                answer.answer,
                seconds
            );
        }
    }
    Ok(())
}

fn timed(request: &Request, sched: &Scheduler) -> Result<(Answer, f64), Failure> {
    let start = Instant::now();
    let answer = request.solve(sched)?;
    Ok((answer, start.elapsed().as_secs_f64()))
}

/// The JSON object of one answer (the stable format documented in the README).
/// `simd` is the level the kernels ran on (not what the build targets).
pub fn json_line(answer: &Answer, seconds: f64, sched: &Scheduler) -> String {
    let mut object = json!({
        "problem": answer.problem.name(),
        "params": answer.params_json(),
        "answer": answer.answer,
        "seconds": seconds,
        "threads": sched.threads(),
        "kernel": answer.kernel,
        "simd": sched.simd().name(),
    });
    for &(key, value) in &answer.extra {
        object[key] = json!(value);
    }
    object.to_string()
}

fn summary_line(answer: &Answer, seconds: f64, threads: usize) -> String {
    let extra: String = answer.extra.iter().map(|(k, v)| format!(" {k}={v}")).collect();
    format!(
        "{} {} -> {}{extra} [{}, {threads} threads, {seconds:.6} s]",
        answer.problem,
        answer.params_text(),
        answer.answer,
        answer.kernel
    )
}

fn verify(deep: bool, threads: Option<u64>, simd: Option<&str>) -> Result<(), Failure> {
    let sched = scheduler(None, threads, simd, true)?;
    eprintln!("{} · {} threads", platform::header(sched.simd()), sched.threads());
    let (mut passed, mut failed) = (0, 0);
    let start = Instant::now();
    for check in games::all_checks(deep) {
        let check_start = Instant::now();
        // A panicking check is a bug: report it as a failure and go on with the others.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (check.run)(&sched)))
            .unwrap_or_else(|_| Err("the check panicked".into()));
        let seconds = check_start.elapsed().as_secs_f64();
        match outcome {
            Ok(detail) => {
                passed += 1;
                println!("ok   {} — {detail} ({seconds:.2} s)", check.name);
            }
            Err(reason) => {
                failed += 1;
                println!("FAIL {} — {reason} ({seconds:.2} s)", check.name);
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    eprintln!("verify took {:.1} s", start.elapsed().as_secs_f64());
    if failed > 0 { Err(Failure { message: format!("{failed} checks failed"), code: 1 }) } else { Ok(()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gamecount(args: &[&str]) -> ExitCode {
        run(std::iter::once("gamecount").chain(args.iter().copied()).map(OsString::from))
    }

    #[test]
    fn stones_list_writes_the_losing_triples_or_refuses_with_code_two() {
        let dir = std::env::temp_dir().join(format!("gamecount-cli-list-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("stones.csv");
        let path_text = path.to_str().unwrap();
        for kernel in ["wavefront", "bitset-x4", "naive"] {
            let code = gamecount(&["solve", "stones", "--limit", "100", "--kernel", kernel, "--list", path_text]);
            assert_eq!(code, ExitCode::SUCCESS, "{kernel}");
            let text = std::fs::read_to_string(&path).unwrap();
            assert_eq!(text.lines().count(), 1264, "{kernel}: the statement's L = 100 has 1264 losing triples");
            assert!(text.starts_with("0,0,0\n0,1,2\n0,3,5\n"), "{kernel}");
        }
        let missing = dir.join("no-such-dir").join("x.csv");
        assert_eq!(
            gamecount(&["solve", "stones", "--limit", "10", "--list", missing.to_str().unwrap()]),
            ExitCode::from(2)
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
