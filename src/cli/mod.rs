//! The command-line interface: argument parsing, output formats and exit codes.
//! `main.rs` only installs the allocator and calls [`run`].
//!
//! Exit codes: 0 success; 1 a `verify` check failed; 2 the input was refused (one line
//! on stderr naming the problem and the reason), or writing stdout failed; 141 stdout's
//! reader went away (see `cli/output.rs`); 129, 130, 143 a listing ended by SIGHUP, SIGINT,
//! SIGTERM (see [`crate::files`]).

mod estimate;
mod numbers;
mod output;
pub use numbers::{parse_count, parse_count_up_to};
pub use output::{allocation_failed, record_stdout_state};

use crate::files;
use crate::games::{self, Answer, InputError, ProblemId, Request, cards, coins, kayles, octal, stones};
use crate::platform;
use crate::sched::{MAX_THREADS, Scheduler};
use crate::simd::Simd;
use clap::error::ErrorKind;
use clap::{Args, CommandFactory, Parser, Subcommand};
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
1 a verify check failed, 2 the input was refused or stdout failed (one line on stderr),
141 stdout's reader went away, 129/130/143 a listing ended by SIGHUP/SIGINT/SIGTERM.";

/// `value_parser` of an option whose largest accepted value is `max`: a number beyond
/// `u64` is refused with `max`; one within `u64` but above `max` is left to the
/// parameters' validation, which refuses it with the same `max`.
fn up_to(max: u64) -> impl Fn(&str) -> Result<u64, String> + Clone + Send + Sync + 'static {
    move |text| parse_count_up_to(text, max)
}

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
        /// Worker threads, 1 to 1024 (default: all cores).
        #[arg(long, value_name = "T", value_parser = up_to(MAX_THREADS as u64), allow_hyphen_values = true)]
        threads: Option<u64>,
        /// SIMD level of the kernels: auto (the best this CPU has), portable, avx2, avx2-vnni,
        /// avx512 or neon; a level the CPU lacks is refused. Default: GAMECOUNT_SIMD, else auto.
        #[arg(long, value_name = "LEVEL")]
        simd: Option<String>,
    },
    /// List each problem's kernel variants, the default first.
    Kernels,
    /// Grundy values G(0..=N) of an octal game (or Grundy's game): the largest value, the
    /// certified period, the sparse space and the number of zeros, in one line.
    Grundy {
        /// The game: an octal code (0.07, .137, 4.07; digits 0-7, at most 32 after the
        /// point) or grundy (Grundy's game).
        #[arg(value_name = "GAME")]
        game: String,
        /// Compute G(0..=N), N from 0 to 4294967294 (the start with --until-periodic,
        /// default 1023).
        #[arg(long, value_name = "N", value_parser = up_to(octal::MAX_HEAPS), allow_hyphen_values = true)]
        heaps: Option<u64>,
        /// Double N until the period is certified (or --max-heaps, or memory, is reached).
        #[arg(long)]
        until_periodic: bool,
        /// The largest N --until-periodic may reach (default: what memory allows).
        #[arg(long, value_name = "M", value_parser = up_to(octal::MAX_HEAPS), allow_hyphen_values = true)]
        max_heaps: Option<u64>,
        /// Also write G(0), G(1), ... to FILE, one decimal a line (written beside it and
        /// renamed when complete). FILE must be a regular file, a symlink to one, or absent.
        #[arg(long, value_name = "FILE")]
        out: Option<std::path::PathBuf>,
        /// Compute every heap with the kernel. By default an octal game's table is
        /// certified as it doubles, and once a period is certified the heaps past it are
        /// copied from the period (the theorem makes them equal; JSON `copied_from` is
        /// the first heap copied). --until-periodic computes every heap in any case.
        #[arg(long)]
        every_heap: bool,
        #[command(flatten)]
        run: RunOptions,
    },
}

#[derive(Subcommand, Debug)]
enum SolveCommand {
    /// PE 1015 partisan Kayles: f(N), the fair rows of N blue/red pins, mod M.
    /// Project Euler instance: --pins 1000 (mod 10^9).
    Kayles {
        /// Number of pins in the row, 0 to 16777214 (odd rows are never fair).
        #[arg(long, value_name = "N", value_parser = up_to(kayles::MAX_PINS), allow_hyphen_values = true)]
        pins: u64,
        /// Report f(N) modulo M, 2 to 288230376151711743 (2^58 - 1), prime or not.
        #[arg(long, value_name = "M", default_value = "1000000000", value_parser = up_to(kayles::MAX_MODULUS), allow_hyphen_values = true)]
        modulus: u64,
        #[command(flatten)]
        run: RunOptions,
    },
    /// PE 260 stone game: the sum of x+y+z over the losing triples x <= y <= z <= L.
    /// Project Euler instance: --limit 1000.
    Stones {
        /// The largest pile size L, 0 to 1000000 (and the tables must fit in memory).
        #[arg(long, value_name = "L", value_parser = up_to(stones::MAX_LIMIT), allow_hyphen_values = true)]
        limit: u64,
        /// Also write every losing triple to FILE as CSV lines x,y,z (lexicographic order;
        /// written to a temporary file beside it and renamed when complete). FILE must be
        /// a regular file, a symlink to one (which is replaced), or absent.
        #[arg(long, value_name = "FILE")]
        list: Option<std::path::PathBuf>,
        #[command(flatten)]
        run: RunOptions,
    },
    /// PE 798 card stacks: C(N, S), the losing initial sets of S suits of cards 1..N,
    /// mod a prime P. Project Euler instance: --cards 10^7 --suits 10^7.
    Cards {
        /// Cards per suit, N, 0 to 1073741824 (2^30).
        #[arg(long, value_name = "N", value_parser = up_to(cards::MAX_CARDS), allow_hyphen_values = true)]
        cards: u64,
        /// Number of suits, S, 1 to 18446744073709551615 (2^64 - 1).
        #[arg(long, value_name = "S", value_parser = parse_count, allow_hyphen_values = true)]
        suits: u64,
        /// A prime N < P, at most 2147483647 (2^31 - 1).
        #[arg(long, value_name = "P", default_value = "1000000007", value_parser = up_to(cards::MODULUS_LIMIT - 1), allow_hyphen_values = true)]
        modulus: u64,
        #[command(flatten)]
        run: RunOptions,
    },
    /// PE 860 coin stacks: F(N), the fair arrangements of N stacks of H coins, mod P.
    /// Project Euler instance: --stacks 9898 (mod 989898989, two coins per stack).
    Coins {
        /// Number of stacks, N, 0 to 1000000000.
        #[arg(long, value_name = "N", value_parser = up_to(coins::MAX_STACKS), allow_hyphen_values = true)]
        stacks: u64,
        /// Coins per stack, H, 1 to 16.
        #[arg(long, value_name = "H", default_value = "2", value_parser = up_to(coins::MAX_HEIGHT), allow_hyphen_values = true)]
        height: u64,
        /// Report F(N) modulo P, 2 to 4294967295 (2^32 - 1; the O(n) kernels need a prime).
        #[arg(long, value_name = "P", default_value = "989898989", value_parser = up_to(coins::MAX_MODULUS), allow_hyphen_values = true)]
        modulus: u64,
        #[command(flatten)]
        run: RunOptions,
    },
    /// Sums of heaps of an octal game: the ordered K-tuples of heap sizes 0..=N with
    /// nim-sum 0 (the positions the player to move loses), exact or modulo a prime P.
    Octal {
        /// The game: an octal code (0.07, .137, 4.07) or grundy.
        #[arg(long, value_name = "CODE")]
        game: String,
        /// The largest heap size N, 0 to 4294967294.
        #[arg(long, value_name = "N", value_parser = up_to(octal::MAX_HEAPS), allow_hyphen_values = true)]
        heaps: u64,
        /// The number of heaps K, 1 to 18446744073709551615.
        #[arg(long, value_name = "K", value_parser = parse_count, allow_hyphen_values = true)]
        components: u64,
        /// Report the count modulo this prime, 3 to 2147483647 (default: exact, refused
        /// when it does not fit in 128 bits).
        #[arg(long, value_name = "P", value_parser = up_to(octal::MODULUS_LIMIT - 1), allow_hyphen_values = true)]
        modulus: Option<u64>,
        /// Compute every heap's value with the kernel, where by default those past a
        /// certified period are copied from it (as in `gamecount grundy`).
        #[arg(long)]
        every_heap: bool,
        #[command(flatten)]
        run: RunOptions,
    },
    /// The four Project Euler instances with their default kernels, as a table.
    All {
        /// Worker threads, 1 to 1024 (default: all cores).
        #[arg(long, value_name = "T", value_parser = up_to(MAX_THREADS as u64), allow_hyphen_values = true)]
        threads: Option<u64>,
        /// One JSON object per answer, one per line, instead of the table.
        #[arg(long)]
        json: bool,
        /// Also print each answer's summary line on stderr as it is found.
        #[arg(long)]
        verbose: bool,
        /// SIMD level of the kernels: auto (the best this CPU has), portable, avx2, avx2-vnni,
        /// avx512 or neon; a level the CPU lacks is refused. Default: GAMECOUNT_SIMD, else auto.
        #[arg(long, value_name = "LEVEL")]
        simd: Option<String>,
    },
}

/// Options every `solve` problem takes.
#[derive(Args, Debug)]
struct RunOptions {
    /// Worker threads, 1 to 1024 (default: all cores).
    #[arg(long, value_name = "T", value_parser = up_to(MAX_THREADS as u64), allow_hyphen_values = true)]
    threads: Option<u64>,
    /// Kernel variant (see `gamecount kernels`; default: the fastest that applies).
    #[arg(long, value_name = "NAME")]
    kernel: Option<String>,
    /// Print one JSON object per answer instead of the bare answer.
    #[arg(long)]
    json: bool,
    /// SIMD level of the kernels: auto (the best this CPU has), portable, avx2, avx2-vnni,
    /// avx512 or neon; a level the CPU lacks is refused. Default: GAMECOUNT_SIMD, else auto.
    #[arg(long, value_name = "LEVEL")]
    simd: Option<String>,
}

/// A failure to report: the message (one line; empty for none) and the exit code.
struct Failure {
    message: String,
    code: u8,
}

impl From<InputError> for Failure {
    fn from(e: InputError) -> Self {
        Failure { message: e.to_string(), code: 2 }
    }
}

impl From<files::FileError> for Failure {
    fn from(e: files::FileError) -> Self {
        Failure { message: e.to_string(), code: 2 }
    }
}

/// Runs the CLI on `args` (the program name first) and returns the exit code.
pub fn run(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let args: Vec<OsString> = args.into_iter().collect();
    if !output::guard_standard_descriptors() {
        output::note("error: stdout is closed, so the answer could not be printed; nothing was run");
        return ExitCode::from(2);
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version: print as clap formats them, succeed (a reader that
            // has gone away loses nothing).
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let message = match e.kind() {
                ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    missing_command(&args)
                }
                _ => format!("{}{}", problem_prefix(&args), one_line(&e.render().to_string())),
            };
            output::note(&format!("error: {message}"));
            return ExitCode::from(2);
        }
    };
    match dispatch(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            if !failure.message.is_empty() {
                output::note(&format!("error: {}", failure.message));
            }
            ExitCode::from(failure.code)
        }
    }
}

/// What is missing when `gamecount` or `gamecount solve` comes alone, and the usage.
fn missing_command(args: &[OsString]) -> String {
    let command = Cli::command();
    let solve = args.iter().skip(1).any(|a| a == "solve");
    let what = if solve { "a problem" } else { "a command" };
    let level = if solve { command.find_subcommand("solve").unwrap_or(&command) } else { &command };
    let names: Vec<&str> = level.get_subcommands().map(|c| c.get_name()).filter(|&n| n != "help").collect();
    let (last, first) = names.split_last().map_or((&"", &[][..]), |(l, f)| (l, f));
    let usage = if solve { "gamecount solve <PROBLEM> [OPTIONS]" } else { "gamecount <COMMAND> [OPTIONS]" };
    let help = if solve { "gamecount solve --help" } else { "gamecount --help" };
    format!("{} needs {what}: {} or {last}; usage: {usage} ({help} for more)", level.get_name(), first.join(", "))
}

/// `"cards: "` when the arguments name a problem after `solve`, so a parse error says
/// which problem it is about.
fn problem_prefix(args: &[OsString]) -> String {
    let words: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    words
        .windows(2)
        .find(|w| w[0] == "solve")
        .and_then(|w| ProblemId::EVERY.iter().find(|p| p.name() == w[1]))
        .or_else(|| (words.get(1).map(String::as_str) == Some("grundy")).then_some(&ProblemId::Grundy))
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
                output::line(&format!("{problem}: {}", games::kernel_names(problem).join(", ")))?;
            }
            // The level `solve` would run here (GAMECOUNT_SIMD respected) and the others.
            let simd = Simd::from_flag_or_env(None).map_err(|e| Failure { message: e.to_string(), code: 2 })?;
            let default = crate::kernels::grundy::GrundyVariant::fastest();
            let grundy: Vec<&str> = std::iter::once(default)
                .chain(crate::kernels::grundy::GrundyVariant::ALL.iter().copied().filter(|&v| v != default))
                .map(|v| v.name())
                .collect();
            output::line(&format!(
                "grundy, octal: {} (the first starts with bitset scans for 4096 heaps per split removal)",
                grundy.join(", ")
            ))?;
            let available: Vec<&str> = Simd::available().iter().map(|s| s.name()).collect();
            output::line(&format!("simd: {simd} (this CPU runs: {})", available.join(", ")))?;
            Ok(())
        }
        Command::Verify { deep, threads, simd } => verify(deep, threads, simd.as_deref()),
        Command::Solve { problem } => solve(problem),
        Command::Grundy { game, heaps, until_periodic, max_heaps, out, every_heap, run } => {
            let reach = if every_heap { octal::Reach::EveryHeap } else { octal::Reach::ByPeriod };
            grundy(&game, heaps, until_periodic, max_heaps, out.as_deref(), reach, &run)
        }
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
    Ok(sched.with_simd(simd).with_progress(shows_progress(json)))
}

/// Whether a run draws progress bars: for humans, with stderr a terminal and no `--json`.
fn shows_progress(json: bool) -> bool {
    !json && std::io::stderr().is_terminal()
}

/// The lines every run starts with on stderr: the build header, and a warning when more
/// threads were asked for than there are cores.
fn header(sched: &Scheduler) {
    output::note(&format!("{} · {} threads", platform::header(sched.simd()), sched.threads()));
    let cores = Scheduler::available_cores();
    if sched.threads() > cores {
        output::note(&format!(
            "warning: --threads {} is more than the {cores} cores available: the answer is the same, but the \
             workers take turns on the cores and the run can be many times slower",
            sched.threads()
        ));
    }
}

fn solve(command: SolveCommand) -> Result<(), Failure> {
    let (request, run) = match command {
        SolveCommand::All { threads, json, verbose, simd } => {
            return solve_all(threads, simd.as_deref(), json, verbose);
        }
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
        SolveCommand::Octal { game, heaps, components, modulus, every_heap, run } => {
            let reach = if every_heap { octal::Reach::EveryHeap } else { octal::Reach::ByPeriod };
            return solve_octal(&game, heaps, components, modulus, reach, &run);
        }
        SolveCommand::Coins { stacks, height, modulus, run } => {
            let params = coins::CoinsParams::new(stacks, height, modulus)?;
            (Request::Coins(params, coins::CoinsKernel::parse(run.kernel.as_deref(), &params)?), run)
        }
    };
    let sched = scheduler(Some(request.problem()), run.threads, run.simd.as_deref(), run.json)?;
    solve_request(&request, run.json, &sched)
}

/// `gamecount grundy`: the values, the report line (or JSON), and `--out`.
fn grundy(
    game: &str,
    heaps: Option<u64>,
    until_periodic: bool,
    max_heaps: Option<u64>,
    out: Option<&std::path::Path>,
    reach: octal::Reach,
    run: &RunOptions,
) -> Result<(), Failure> {
    let problem = ProblemId::Grundy;
    output::set_current_problem(Some(problem));
    let game = octal::Game::parse(game, problem)?;
    let err = |m: String| Failure::from(InputError::new(problem, m));
    let heaps = match (heaps, until_periodic) {
        (Some(n), _) => n,
        (None, true) => octal::DEFAULT_START_HEAPS,
        (None, false) => return Err(err("--heaps N is needed (or --until-periodic)".into())),
    };
    if heaps > octal::MAX_HEAPS {
        return Err(err(format!("--heaps {heaps} is above the supported maximum of {}", octal::MAX_HEAPS)));
    }
    if max_heaps.is_some() && !until_periodic {
        return Err(err("--max-heaps only applies with --until-periodic".into()));
    }
    let max_heaps = max_heaps.unwrap_or(octal::MAX_HEAPS);
    if max_heaps > octal::MAX_HEAPS {
        return Err(err(format!("--max-heaps {max_heaps} is above the supported maximum of {}", octal::MAX_HEAPS)));
    }
    let sched = scheduler(Some(problem), run.threads, run.simd.as_deref(), run.json)?;
    let variant = octal::parse_variant(run.kernel.as_deref(), problem)?;
    let what = format!("the values of {heaps} heaps ({variant})");
    crate::memory::ensure_fits(problem, &what, octal::table_bytes(heaps, variant))?;
    let mut list = match out {
        Some(path) => Some(files::AtomicFile::create_for(path, problem, "--out")?),
        None => None,
    };
    header(&sched);
    let start = Instant::now();
    let (g, computed) = if until_periodic {
        let g = octal::until_periodic(&game, heaps, max_heaps, variant, &sched)?;
        let computed = g.len();
        (g, computed)
    } else {
        let table = octal::values(&game, heaps, variant, reach, problem, &sched)?;
        (table.g, table.computed)
    };
    let report = octal::Report::of(&game, &g);
    let seconds = start.elapsed().as_secs_f64();
    if let Some(mut list) = list.take() {
        for &v in &g {
            list.push_value(v as u32);
        }
        list.commit()?;
    }
    if run.json {
        let (preperiod, period) = report.period.map_or((None, None), |p| (Some(p.preperiod), Some(p.period)));
        let object = json!({
            "problem": "grundy",
            "game": report.game,
            "heaps": report.heaps,
            "max": report.max,
            "max_at": report.max_at,
            "preperiod": preperiod,
            "period": period,
            "certified": report.period.is_some(),
            "rare_mask": report.sparse.map(|s| s.mask),
            "rare_position_bit": report.sparse.map(|s| s.position_bit),
            "rare_count": report.sparse.map(|s| s.rare_count),
            "last_rare": report.sparse.and_then(|s| s.last_rare),
            "zeros": report.zeros,
            "copied_from": (computed < g.len()).then_some(computed),
            "seconds": seconds,
            "kernel": variant.name(),
            "threads": sched.threads(),
            "simd": sched.simd().name(),
        });
        output::line(&object.to_string())?;
    } else if computed < g.len() {
        output::line(&format!("{}; G(n) for n >= {computed} copied from the period", report.line()))?;
    } else {
        output::line(&report.line())?;
    }
    output::note(&format!("grundy {} [{variant}, {} threads, {seconds:.6} s]", game.name, sched.threads()));
    Ok(())
}

/// `solve octal`: the count of the losing sums, exact (a JSON number of up to 128 bits)
/// or modulo `--modulus`.
fn solve_octal(
    game: &str,
    heaps: u64,
    components: u64,
    modulus: Option<u64>,
    reach: octal::Reach,
    run: &RunOptions,
) -> Result<(), Failure> {
    let problem = ProblemId::Octal;
    output::set_current_problem(Some(problem));
    let params = octal::OctalParams::new(game, heaps, components, modulus)?;
    let sched = scheduler(Some(problem), run.threads, run.simd.as_deref(), run.json)?;
    let variant = octal::parse_variant(run.kernel.as_deref(), problem)?;
    let what = format!("the values of {heaps} heaps ({variant})");
    crate::memory::ensure_fits(problem, &what, octal::table_bytes(heaps, variant))?;
    header(&sched);
    let start = Instant::now();
    let count = octal::solve_octal(&params, variant, reach, &sched)?;
    let seconds = start.elapsed().as_secs_f64();
    let answer = match count {
        octal::Count::Exact(x) => x.to_string(),
        octal::Count::Residue(r) => r.to_string(),
    };
    if run.json {
        // Written by hand: the answer may exceed 64 bits, which serde_json's Value cannot hold.
        let params_json = json!({
            "game": params.game.name,
            "heaps": heaps,
            "components": components,
            "modulus": params.modulus,
        });
        let tail = json!({
            "seconds": seconds,
            "threads": sched.threads(),
            "kernel": variant.name(),
            "simd": sched.simd().name(),
        })
        .to_string();
        output::line(&format!("{{\"problem\":\"octal\",\"params\":{params_json},\"answer\":{answer},{}", &tail[1..]))?;
    } else {
        output::line(&answer)?;
    }
    output::note(&format!(
        "octal game={} heaps={heaps} components={components} -> {answer} [{variant}, {} threads, {seconds:.6} s]",
        params.game.name,
        sched.threads()
    ));
    Ok(())
}

/// Checks, solves, times and reports one request.
fn solve_request(request: &Request, json: bool, sched: &Scheduler) -> Result<(), Failure> {
    output::set_current_problem(Some(request.problem()));
    request.preflight()?;
    header(sched);
    estimate::announce(request, sched, shows_progress(json));
    let (answer, seconds) = timed(request, sched)?;
    report(&answer, seconds, sched, json)
}

/// Prints one answer as `solve` does: the answer or its JSON line on stdout, the summary
/// on stderr.
fn report(answer: &Answer, seconds: f64, sched: &Scheduler, json: bool) -> Result<(), Failure> {
    if json {
        output::line(&json_line(answer, seconds, sched))?;
    } else {
        output::line(&answer.answer.to_string())?;
    }
    output::note(&summary_line(answer, seconds, sched.threads()));
    Ok(())
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
    output::set_current_problem(Some(ProblemId::Stones));
    stones::preflight(&params, kernel)?;
    let mut list = files::AtomicFile::create_for(path, ProblemId::Stones, "--list")?;
    header(sched);
    estimate::announce(&Request::Stones(params, kernel), sched, shows_progress(json));
    let start = Instant::now();
    let answer = stones::solve_listing(&params, kernel, sched, &mut list)?;
    list.commit()?;
    report(&answer, start.elapsed().as_secs_f64(), sched, json)
}

fn solve_all(threads: Option<u64>, simd: Option<&str>, json: bool, verbose: bool) -> Result<(), Failure> {
    let sched = scheduler(None, threads, simd, json)?;
    header(&sched);
    let mut rows = Vec::new();
    for problem in ProblemId::ALL {
        output::set_current_problem(Some(problem));
        let request = Request::instance(problem, sched.threads());
        let (answer, seconds) = timed(&request, &sched)?;
        if verbose {
            output::note(&summary_line(&answer, seconds, sched.threads()));
        }
        if json {
            output::line(&json_line(&answer, seconds, &sched))?;
        }
        rows.push((answer, seconds));
    }
    if !json {
        let params_width = rows.iter().map(|(a, _)| a.params_text().len()).max().unwrap_or(0);
        let mut table = format!("{:<8} {:<params_width$} {:>12} {:>10}", "problem", "parameters", "answer", "seconds");
        for (answer, seconds) in &rows {
            table += &format!(
                "\n{:<8} {:<params_width$} {:>12} {:>10.6}",
                answer.problem.name(),
                answer.params_text(),
                answer.answer,
                seconds
            );
        }
        output::line(&table)?;
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
    header(&sched);
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
                output::line(&format!("ok   {} — {detail} ({seconds:.2} s)", check.name))?;
            }
            Err(reason) => {
                failed += 1;
                output::line(&format!("FAIL {} — {reason} ({seconds:.2} s)", check.name))?;
            }
        }
    }
    output::line(&format!("{passed} passed, {failed} failed"))?;
    output::note(&format!("verify took {:.1} s", start.elapsed().as_secs_f64()));
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
