//! The command-line contract, through the real binary: outputs, JSON fields, exit codes,
//! and one-line errors for bad input.

use std::process::{Command, Output};

/// `program`, started through `GAMECOUNT_TEST_RUNNER` when it is set (an emulator such
/// as `qemu-aarch64 -L /usr/aarch64-linux-gnu` for a cross build).
fn through_runner(program: &str) -> Command {
    let runner = std::env::var("GAMECOUNT_TEST_RUNNER").unwrap_or_default();
    let mut words = runner.split_whitespace();
    match words.next() {
        Some(emulator) => {
            let mut command = Command::new(emulator);
            command.args(words).arg(program);
            command
        }
        None => Command::new(program),
    }
}

/// The binary.
fn binary() -> Command {
    through_runner(env!("CARGO_BIN_EXE_gamecount"))
}

fn gamecount(args: &[&str]) -> Output {
    binary().args(args).output().expect("the binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn solve_prints_the_answer_alone_on_stdout() {
    let out = gamecount(&["solve", "kayles", "--pins", "20"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "49844\n");
    let out = gamecount(&["solve", "stones", "--limit", "100", "--threads", "1"]);
    assert_eq!(stdout(&out), "173895\n");
    let out = gamecount(&["solve", "cards", "--cards", "13", "--suits", "4"]);
    assert_eq!(stdout(&out), "540318329\n");
    let out = gamecount(&["solve", "coins", "--stacks", "10"]);
    assert_eq!(stdout(&out), "63594\n");
}

#[test]
fn json_has_the_documented_fields() {
    let out = gamecount(&["solve", "stones", "--limit", "100", "--json", "--threads", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    assert_eq!(lines.len(), 1);
    let value: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(value["problem"], "stones");
    assert_eq!(value["params"]["limit"], 100);
    assert_eq!(value["answer"], 173_895);
    assert_eq!(value["losing"], 1264);
    assert_eq!(value["threads"], 2);
    assert!(value["seconds"].as_f64().is_some_and(|s| s >= 0.0));
    assert!(value["kernel"].is_string());
}

#[test]
fn kernels_lists_one_line_per_problem() {
    let out = gamecount(&["kernels"]);
    assert!(out.status.success());
    let text = stdout(&out);
    let problems: Vec<&str> = text.lines().map(|l| l.split(':').next().unwrap()).collect();
    assert_eq!(problems, ["kayles", "stones", "cards", "coins", "grundy, octal", "simd"]);
    assert!(text.lines().all(|l| l.split_once(": ").is_some_and(|(_, names)| !names.is_empty())));
}

/// Every bad input: exit code 2, exactly one line on stderr, naming the problem when
/// there is one, and never a panic.
#[test]
fn bad_input_gets_one_line_and_exit_code_two() {
    let cases: &[(&[&str], &str)] = &[
        (&["solve", "kayles", "--pins", "-5"], "kayles"),
        (&["solve", "kayles", "--pins", "abc"], "kayles"),
        (&["solve", "kayles", "--pins", "99999999999999999999"], "kayles"),
        (&["solve", "kayles", "--pins", "10", "--modulus", "1"], "kayles"),
        (&["solve", "kayles"], "kayles"),
        (&["solve", "kayles", "--pins", "16777215"], "16777214"),
        (&["solve", "kayles", "--pins", "10^8"], "16777214"),
        (&["solve", "kayles", "--pins", "1e30"], "16777214"),
        (&["solve", "stones", "--limit", "1e30"], "1000000"),
        (&["solve", "cards", "--cards", "1e30", "--suits", "1"], "1073741824"),
        (&["solve", "cards", "--cards", "10", "--suits", "1", "--modulus", "1e30"], "2147483647"),
        (&["solve", "coins", "--stacks", "10", "--height", "1e30"], "16"),
        (&["solve", "coins", "--stacks", "10", "--modulus", "1e30"], "4294967295"),
        (&["solve", "stones", "--limit", "10", "--threads", "1e30"], "1024"),
        (&["solve", "cards", "--cards", "10", "--suits", "1e30"], "18446744073709551615"),
        (&["solve", "cards", "--cards", "0", "--suits", "0"], "cards"),
        (&["solve", "stones", "--limit", "1000000"], "stones"),
        (&["solve", "stones", "--limit", "10", "--threads", "0"], "stones"),
        (&["solve", "stones", "--limit", "10", "--kernel", "no-such-kernel"], "stones"),
        (&["solve", "stones", "--limit", "10", "--bogus"], "stones"),
        (&["solve", "cards", "--cards", "10", "--suits", "3", "--modulus", "1000000006"], "cards"),
        (&["solve", "cards", "--cards", "10", "--suits", "0"], "cards"),
        (&["solve", "cards", "--cards", "100", "--suits", "3", "--modulus", "97"], "cards"),
        (&["solve", "cards", "--cards", "10", "--suits", "3", "--modulus", "4294967311"], "cards"),
        (&["solve", "cards", "--cards", "2000000000", "--suits", "3"], "cards"),
        (&["solve", "coins", "--stacks", "5", "--modulus", "4294967296"], "coins"),
        (&["solve", "coins", "--stacks", "1e30"], "coins"),
        (&["solve", "coins", "--stacks", "1e30"], "1000000000"),
        (&["solve", "kayles", "--pins", "10", "--modulus", "1e30"], "288230376151711743"),
        (&["solve", "coins", "--stacks", "10", "--modulus", "1000000000", "--kernel", "closed-form"], "dp-simd"),
        (&["solve", "coins", "--stacks", "10", "--height", "0"], "coins"),
        (&["solve", "coins", "--stacks", "10", "--height", "17"], "coins"),
        (&["solve", "kayles", "--pins", "300000", "--kernel", "reference"], "newton"),
        (&["solve", "kayles", "--pins", "10", "--modulus", "1e30"], "kayles"),
        (&["solve", "stones", "--limit", "10", "--list", "/nonexistent-dir/triples.csv"], "stones"),
        (&["solve", "stones", "--limit", "10", "--threads", "100000"], "stones"),
        (&["solve", "cards", "--cards", "10", "--suits", "-1"], "cards"),
        (&["solve", "all", "--kernel", "naive"], ""),
        (&["verify", "--threads", "0"], ""),
        (&["solve", "nope"], ""),
        (&["frobnicate"], ""),
    ];
    for (args, problem) in cases {
        let out = gamecount(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?} printed {} lines: {err}", lines.len());
        assert!(lines[0].starts_with("error: "), "{args:?}: {err}");
        assert!(lines[0].contains(problem), "{args:?} does not name {problem}: {err}");
        assert!(out.stdout.is_empty(), "{args:?} wrote to stdout");
    }
}

/// The names a help text lists in its `heading` section ("Commands:" or "Options:"): the
/// first word of each command line, and every `--long` option.
fn listed<'a>(help: &'a str, heading: &str) -> Vec<&'a str> {
    let section = help.lines().skip_while(|l| *l != heading).skip(1).take_while(|l| l.starts_with(' '));
    if heading == "Commands:" {
        section.filter_map(|l| l.split_whitespace().next()).collect()
    } else {
        section
            .flat_map(str::split_whitespace)
            .filter(|w| w.starts_with("--"))
            .map(|w| w.trim_end_matches(','))
            .collect()
    }
}

#[test]
fn help_names_every_command_and_option_and_version_is_the_crates() {
    // Every subcommand and option of the command line (README, "Command line"), by the
    // help text that must list it.
    let common = ["--help", "--version"];
    let solve = ["--threads", "--kernel", "--simd", "--json"];
    let cases: [(&[&str], &[&str], &[&str]); 9] = [
        (&["--help"], &["solve", "verify", "kernels", "help"], &common),
        (&["solve", "--help"], &["kayles", "stones", "cards", "coins", "all", "help"], &common),
        (&["solve", "kayles", "--help"], &[], &["--pins", "--modulus"]),
        (&["solve", "stones", "--help"], &[], &["--limit", "--list"]),
        (&["solve", "cards", "--help"], &[], &["--cards", "--suits", "--modulus"]),
        (&["solve", "coins", "--help"], &[], &["--stacks", "--height", "--modulus"]),
        (&["solve", "all", "--help"], &[], &["--threads", "--simd", "--json", "--verbose"]),
        (&["verify", "--help"], &[], &["--deep", "--threads", "--simd"]),
        (&["kernels", "--help"], &[], &common),
    ];
    for (args, commands, options) in cases {
        let out = gamecount(args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let help = stdout(&out);
        let (have_commands, have_options) = (listed(&help, "Commands:"), listed(&help, "Options:"));
        let per_problem = if args.len() == 3 && args[1] != "all" { &solve[..] } else { &[] };
        for command in commands {
            assert!(have_commands.contains(command), "{args:?} does not list {command}: {have_commands:?}");
        }
        for option in options.iter().chain(per_problem).chain(&common) {
            assert!(have_options.contains(option), "{args:?} does not list {option}: {have_options:?}");
        }
    }
    let version = env!("CARGO_PKG_VERSION");
    let out = gamecount(&["--version"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), format!("gamecount {version}\n"));
    // Subcommands print the same version after their own name.
    let out = gamecount(&["solve", "kayles", "--version"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), format!("gamecount-solve-kayles {version}\n"));
}

#[test]
fn verify_passes_and_summarises() {
    let out = gamecount(&["verify"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}\n{}", stderr(&out));
    let last = text.lines().last().unwrap();
    assert!(last.ends_with("passed, 0 failed"), "{last}");
    assert!(text.lines().filter(|l| l.starts_with("ok ")).count() >= 8);
}

#[test]
fn list_writes_every_losing_triple_as_csv() {
    let dir = std::env::temp_dir().join(format!("gamecount-list-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("triples.csv");
    let out = gamecount(&["solve", "stones", "--limit", "100", "--list", file.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let value: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    let triples: Vec<Vec<u64>> = text.lines().map(|l| l.split(',').map(|v| v.parse().unwrap()).collect()).collect();
    assert_eq!(triples.len() as u64, value["losing"].as_u64().unwrap());
    assert_eq!(triples.iter().map(|t| t.iter().sum::<u64>()).sum::<u64>(), 173_895);
    assert_eq!(triples[..3], [vec![0, 0, 0], vec![0, 1, 2], vec![0, 3, 5]]);
    assert!(triples.windows(2).all(|w| w[0] < w[1]), "lexicographic order");
    // Nothing but the file itself is left in the directory (the temporary was renamed).
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn answers_do_not_depend_on_the_thread_count_through_the_binary() {
    for args in [
        &["solve", "kayles", "--pins", "2000"][..],
        &["solve", "stones", "--limit", "300"],
        &["solve", "cards", "--cards", "100000", "--suits", "77"],
        &["solve", "coins", "--stacks", "3000", "--kernel", "dp-parallel"],
    ] {
        let answers: Vec<String> = ["1", "2", "3", "8"]
            .iter()
            .map(|t| {
                let mut with_threads = args.to_vec();
                with_threads.extend(["--threads", t]);
                let out = gamecount(&with_threads);
                assert!(out.status.success(), "{with_threads:?}: {}", stderr(&out));
                stdout(&out)
            })
            .collect();
        assert!(answers.windows(2).all(|w| w[0] == w[1]), "{args:?}: {answers:?}");
    }
}

#[test]
fn size_zero_is_answered_by_every_kernel() {
    // f(0) = 1, the empty row; L = 0 has the one losing triple (0, 0, 0); C(0, s) = 1;
    // F(0) = 1, the empty arrangement.
    let kernels = stdout(&gamecount(&["kernels"]));
    for (problem, args, expected) in [
        ("kayles", &["--pins", "0"][..], "1"),
        ("stones", &["--limit", "0"], "0"),
        ("cards", &["--cards", "0", "--suits", "5"], "1"),
        ("coins", &["--stacks", "0"], "1"),
    ] {
        let line = kernels.lines().find(|l| l.starts_with(&format!("{problem}: "))).unwrap();
        for kernel in line.split_once(": ").unwrap().1.split(", ") {
            let mut full = vec!["solve", problem, "--kernel", kernel, "--json"];
            full.extend(args);
            let out = gamecount(&full);
            assert!(out.status.success(), "{full:?}: {}", stderr(&out));
            let value: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
            assert_eq!(value["answer"].to_string(), expected, "{full:?}");
            if problem == "stones" {
                assert_eq!(value["losing"], 1, "{full:?}");
            }
        }
    }
}

#[test]
fn every_option_states_its_one_maximum_in_help_and_refusals() {
    for (problem, option, max) in [
        ("kayles", "--pins", "16777214"),
        ("kayles", "--modulus", "288230376151711743"),
        ("stones", "--limit", "1000000"),
        ("cards", "--cards", "1073741824"),
        ("cards", "--modulus", "2147483647"),
        ("coins", "--stacks", "1000000000"),
        ("coins", "--height", "16"),
        ("coins", "--modulus", "4294967295"),
        ("stones", "--threads", "1024"),
    ] {
        let help = stdout(&gamecount(&["solve", problem, "--help"]));
        // The option's entry: from its last mention (the first is the usage line) to the
        // next option.
        let option_help = help.rsplit(&format!("{option} <")).next().unwrap_or_default();
        let option_help =
            option_help.split("\n  ").find(|l| !l.trim().is_empty() && !l.starts_with("  ")).unwrap_or_default();
        assert!(option_help.contains(max), "{problem} {option}: help does not say {max}: {option_help}");
        // Beyond u64 and just beyond the maximum: both refusals name the same maximum.
        let just_above = (max.parse::<u64>().unwrap() + 1).to_string();
        for value in ["1e30", just_above.as_str()] {
            let mut args = vec!["solve", problem, option, value];
            match problem {
                "kayles" if option != "--pins" => args.extend(["--pins", "10"]),
                "stones" if option != "--limit" => args.extend(["--limit", "10"]),
                "cards" => args.extend(if option == "--cards" {
                    &["--suits", "1"][..]
                } else {
                    &["--cards", "10", "--suits", "1"]
                }),
                "coins" if option != "--stacks" => args.extend(["--stacks", "10"]),
                _ => {}
            }
            let out = gamecount(&args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            assert!(err.contains(max), "{args:?} does not name the maximum {max}: {err}");
            assert!(!err.contains("18446744073709551615"), "{args:?} names the u64 limit: {err}");
        }
    }
}

#[test]
fn a_missing_command_or_problem_says_what_is_missing_and_the_usage() {
    for (args, missing, names) in [
        (&[][..], "needs a command", "solve, verify, kernels or grundy"),
        (&["solve"], "needs a problem", "kayles, stones, cards, coins, octal or all"),
    ] {
        let out = gamecount(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error: ") && err.contains(missing) && err.contains(names), "{args:?}: {err}");
        assert!(err.contains("usage: gamecount"), "{args:?}: {err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn solve_all_prints_the_table_once() {
    let out = gamecount(&["solve", "all"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 5, "a header and four rows");
    assert!(!stderr(&out).contains(" -> "), "no answer on stderr without --verbose: {}", stderr(&out));
    let out = gamecount(&["solve", "all", "--verbose"]);
    assert_eq!(stdout(&out).lines().count(), 5);
    assert_eq!(stderr(&out).lines().filter(|l| l.contains(" -> ")).count(), 4, "{}", stderr(&out));
}

#[test]
fn more_threads_than_cores_is_one_warning_and_the_same_answer() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = (cores + 1).to_string();
    let out = gamecount(&["solve", "stones", "--limit", "100", "--threads", &threads]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "173895\n");
    let warnings: Vec<&str> =
        std::str::from_utf8(&out.stderr).unwrap().lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(warnings.len(), 1, "{}", stderr(&out));
    assert!(warnings[0].contains(&format!("--threads {threads}")) && warnings[0].contains("cores"), "{}", warnings[0]);
    let out = gamecount(&["solve", "stones", "--limit", "100", "--threads", "1"]);
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
}

/// The process-level cases: listing targets, output streams, limits and signals, with
/// files made in a scratch directory (never under `/dev`).
#[cfg(target_os = "linux")]
mod process {
    use super::*;
    use std::ffi::CString;
    use std::fs;
    use std::io::{BufRead, BufReader};
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
    use std::os::unix::process::CommandExt;
    use std::path::{Path, PathBuf};
    use std::process::Stdio;

    /// A fresh, empty scratch directory.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("gamecount-cli-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The names in `dir`, sorted (hidden ones too: a temporary file would show).
    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    fn c_path(path: &Path) -> CString {
        CString::new(path.as_os_str().as_bytes()).unwrap()
    }

    /// A copy of the full device (1, 7) at `path`; false where the process may not make
    /// device nodes (not root).
    fn make_full_device(path: &Path) -> bool {
        // SAFETY: a valid NUL-terminated path.
        unsafe { libc::mknod(c_path(path).as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 7)) == 0 }
    }

    fn make_fifo(path: &Path) {
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c_path(path).as_ptr(), 0o644) }, 0);
    }

    /// A file that takes no writes: a full device made in `dir`, or where that is not
    /// allowed, the system's own opened for writing (writing to it changes nothing).
    fn full_output(dir: &Path) -> fs::File {
        let made = dir.join("full");
        let path = if make_full_device(&made) { made.as_path() } else { Path::new("/dev/full") };
        fs::OpenOptions::new().write(true).open(path).unwrap()
    }

    /// Sends `signal` to `child` once `dir` holds a temporary file (`.gc.…`, made before
    /// any work), waiting up to 20 s for it.
    fn signal_once_a_temporary_file_is_in(dir: &Path, child: &std::process::Child, signal: libc::c_int) {
        let start = std::time::Instant::now();
        while !entries(dir).iter().any(|e| e.starts_with(".gc.")) {
            assert!(start.elapsed().as_secs() < 20, "no temporary file appeared");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        // SAFETY: kill with the child's pid, which has not been waited for.
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
    }

    fn error_lines(out: &Output) -> Vec<String> {
        stderr(out).lines().filter(|l| l.starts_with("error")).map(str::to_string).collect()
    }

    #[test]
    fn list_refuses_what_is_not_a_regular_file_before_any_work_and_leaves_it_as_it_is() {
        let dir = scratch("list-kinds");
        let device = make_full_device(&dir.join("device"));
        make_fifo(&dir.join("fifo"));
        let _socket = std::os::unix::net::UnixListener::bind(dir.join("socket")).unwrap();
        fs::create_dir(dir.join("directory")).unwrap();
        std::os::unix::fs::symlink("fifo", dir.join("link-to-fifo")).unwrap();
        std::os::unix::fs::symlink("nothing", dir.join("dangling")).unwrap();
        let before = entries(&dir);
        let kinds: &[(&str, &str)] = &[
            ("device", "is a character device"),
            ("fifo", "is a FIFO"),
            ("socket", "is a socket"),
            ("directory", "is a directory"),
            ("link-to-fifo", "is a FIFO"),
            ("dangling", "does not exist"),
        ];
        for &(name, reason) in kinds {
            if name == "device" && !device {
                eprintln!("device node not made (not root): that case is skipped");
                continue;
            }
            let path = dir.join(name);
            let kind = fs::symlink_metadata(&path).unwrap().file_type();
            let out = binary().args(["solve", "stones", "--limit", "50", "--list"]).arg(&path).output().unwrap();
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{name}: {err}");
            assert_eq!(err.lines().count(), 1, "{name}: refused before any work, in one line: {err}");
            assert!(err.starts_with("error: stones: --list ") && err.contains(reason), "{name}: {err}");
            assert!(out.stdout.is_empty());
            let after = fs::symlink_metadata(&path).unwrap();
            assert_eq!(after.file_type(), kind, "{name} changed kind");
            if name == "device" {
                assert!(after.file_type().is_char_device() && after.rdev() == libc::makedev(1, 7));
            }
            assert_eq!(entries(&dir), before, "{name}: something was left behind");
        }
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn list_follows_a_symlink_and_replaces_its_target_keeping_its_mode() {
        let dir = scratch("list-link");
        let target = dir.join("target.csv");
        fs::write(&target, "old\n").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::symlink("target.csv", dir.join("link.csv")).unwrap();
        let out =
            binary().args(["solve", "stones", "--limit", "100", "--list"]).arg(dir.join("link.csv")).output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(fs::symlink_metadata(dir.join("link.csv")).unwrap().file_type().is_symlink(), "the link stays");
        let text = fs::read_to_string(&target).unwrap();
        assert_eq!(text.lines().count(), 1264);
        assert_eq!(fs::metadata(&target).unwrap().mode() & 0o7777, 0o600, "the mode of the file replaced");
        assert_eq!(entries(&dir), ["link.csv", "target.csv"]);
        // A plain mode-600 file keeps its mode too; a new file gets the usual one.
        let plain = dir.join("plain.csv");
        fs::write(&plain, "old\n").unwrap();
        fs::set_permissions(&plain, fs::Permissions::from_mode(0o600)).unwrap();
        let out = binary().args(["solve", "stones", "--limit", "10", "--list"]).arg(&plain).output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(fs::metadata(&plain).unwrap().mode() & 0o7777, 0o600);
        assert!(fs::read_to_string(&plain).unwrap().starts_with("0,0,0\n"));
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn list_takes_a_255_byte_name() {
        let dir = scratch("list-long");
        let name = "n".repeat(255);
        let out = binary().args(["solve", "stones", "--limit", "100", "--list"]).arg(dir.join(&name)).output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(fs::read_to_string(dir.join(&name)).unwrap().lines().count(), 1264);
        assert_eq!(entries(&dir), [name]);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_signal_mid_listing_removes_the_temporary_file_and_leaves_the_target() {
        let dir = scratch("list-signal");
        let keep = dir.join("keep.csv");
        for (signal, name, code) in
            [(libc::SIGINT, "SIGINT", 130), (libc::SIGTERM, "SIGTERM", 143), (libc::SIGHUP, "SIGHUP", 129)]
        {
            fs::write(&keep, "old\n").unwrap();
            let child = binary()
                .args(["solve", "stones", "--limit", "12000", "--threads", "1", "--kernel", "diagonal", "--list"])
                .arg(&keep)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            // The temporary file appears before the scan starts.
            signal_once_a_temporary_file_is_in(&dir, &child, signal);
            let out = child.wait_with_output().unwrap();
            assert_eq!(out.status.code(), Some(code), "{name}: {}", stderr(&out));
            assert_eq!(
                error_lines(&out),
                [format!("error: stones: interrupted by {name}; --list {} was left as it was", keep.display())]
            );
            assert!(out.stdout.is_empty());
            assert_eq!(fs::read_to_string(&keep).unwrap(), "old\n", "{name}: the target is untouched");
            assert_eq!(entries(&dir), ["keep.csv"], "{name}: the temporary file is gone");
        }
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_broken_pipe_ends_quietly_with_status_141() {
        for args in [&["solve", "all", "--json"][..], &["solve", "coins", "--stacks", "10"], &["kernels"], &["verify"]]
        {
            // A pipe whose reader has already gone: the first write fails with EPIPE.
            let mut fds = [0; 2];
            // SAFETY: `fds` has room for the two descriptors.
            assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
            // SAFETY: both descriptors were just opened and are owned here alone.
            let (reader, writer) = unsafe {
                use std::os::fd::FromRawFd;
                (std::os::fd::OwnedFd::from_raw_fd(fds[0]), std::os::fd::OwnedFd::from_raw_fd(fds[1]))
            };
            drop(reader);
            let out = binary().args(args).stdout(Stdio::from(writer)).stderr(Stdio::piped()).output().unwrap();
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(141), "{args:?}: {err}");
            assert!(error_lines(&out).is_empty() && !err.contains("panicked"), "{args:?}: {err}");
        }
    }

    #[test]
    fn a_full_stdout_is_one_line_and_status_two() {
        let dir = scratch("full-stdout");
        let list = dir.join("list.csv");
        let list_text = list.to_str().unwrap();
        for args in [
            &["solve", "kayles", "--pins", "6"][..],
            &["kernels"],
            &["solve", "all"],
            &["solve", "stones", "--limit", "50", "--list", list_text],
        ] {
            let out = binary().args(args).stdout(full_output(&dir)).stderr(Stdio::piped()).output().unwrap();
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert_eq!(error_lines(&out), ["error: stdout: No space left on device (os error 28)"], "{args:?}");
            assert!(!err.contains("panicked"));
            assert!(entries(&dir).iter().all(|e| !e.starts_with(".gc.")), "{args:?} left a temporary file");
        }
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_full_stderr_never_keeps_the_answer_back() {
        let dir = scratch("full-stderr");
        let out = binary().args(["solve", "kayles", "--pins", "6"]).stderr(full_output(&dir)).output().unwrap();
        assert_eq!((out.status.code(), stdout(&out).as_str()), (Some(0), "8\n"));
        let list = dir.join("list.csv");
        let out = binary()
            .args(["solve", "stones", "--limit", "100", "--list"])
            .arg(&list)
            .stderr(full_output(&dir))
            .output()
            .unwrap();
        assert_eq!((out.status.code(), stdout(&out).as_str()), (Some(0), "173895\n"));
        assert_eq!(fs::read_to_string(&list).unwrap().lines().count(), 1264);
        // A refusal still exits 2, its line lost.
        let out = binary().args(["solve", "kayles", "--pins", "-5"]).stderr(full_output(&dir)).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_closed_stdout_is_refused_before_any_work() {
        let dir = scratch("closed-stdout");
        let list = dir.join("list.csv");
        let mut command = binary();
        command.args(["solve", "stones", "--limit", "100", "--list"]).arg(&list).stderr(Stdio::piped());
        // SAFETY: close() is async-signal-safe; it runs after the standard descriptors
        // are set up, so the child starts with fd 1 closed.
        unsafe {
            command.pre_exec(|| {
                libc::close(1);
                Ok(())
            });
        }
        let out = command.output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(
            err.lines().collect::<Vec<_>>(),
            ["error: stdout is closed, so the answer could not be printed; nothing was run"]
        );
        assert!(entries(&dir).is_empty(), "nothing was written: {:?}", entries(&dir));
        fs::remove_dir_all(dir).unwrap();
    }

    /// Whether the binary runs under a user-mode emulator, which reserves the guest's
    /// address space itself: an address-space limit would stop the emulator, not test
    /// the program, so those tests say so and check nothing.
    fn emulated() -> bool {
        let emulated = std::env::var_os("GAMECOUNT_TEST_RUNNER").is_some();
        if emulated {
            eprintln!("skipped under an emulator: the limit would apply to the emulator");
        }
        emulated
    }

    /// Runs `args` under an address-space limit of `kib` KiB, set in the child.
    fn under_address_limit(args: &[&str], kib: u64) -> Output {
        let mut command = binary();
        command.args(args);
        // SAFETY: setrlimit is async-signal-safe and only touches the child.
        unsafe {
            command.pre_exec(move || {
                let limit = libc::rlimit { rlim_cur: kib * 1024, rlim_max: kib * 1024 };
                if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            });
        }
        command.output().unwrap()
    }

    #[test]
    fn an_address_space_limit_refuses_in_one_line_before_any_work() {
        if emulated() {
            return;
        }
        for (args, kib) in [
            (&["solve", "cards", "--cards", "2^28", "--suits", "5"][..], 2_000_000),
            (&["solve", "stones", "--limit", "30000"], 500_000),
            (&["solve", "coins", "--stacks", "10^8", "--kernel", "dp-scalar"], 2_000_000),
            (&["solve", "kayles", "--pins", "16777214"], 300_000),
        ] {
            let out = under_address_limit(args, kib);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            assert!(err.starts_with(&format!("error: {}: ", args[1])), "{args:?}: {err}");
            assert!(err.contains("would take") && err.contains("RLIMIT_AS"), "{args:?}: {err}");
        }
    }

    #[test]
    fn octal_runs_that_do_not_fit_are_refused_with_what_they_need() {
        if emulated() {
            return;
        }
        for args in [
            &["grundy", "0.07", "--heaps", "2^31"][..],
            &["solve", "octal", "--game", "0.07", "--heaps", "2^31", "--components", "2"],
        ] {
            let out = under_address_limit(args, 500_000);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            assert!(err.contains("would take 4.00 GiB") && err.contains("RLIMIT_AS"), "{args:?}: {err}");
        }
    }

    #[test]
    fn a_failed_allocation_is_one_line_and_leaves_nothing_behind() {
        // Tables under the size the preflight reads limits for (16 MiB), under a limit
        // too small for them: the allocation itself fails.
        if emulated() {
            return;
        }
        let dir = scratch("alloc");
        let keep = dir.join("keep.csv");
        fs::write(&keep, "old\n").unwrap();
        let list = keep.to_str().unwrap();
        let out =
            under_address_limit(&["solve", "stones", "--limit", "3000", "--threads", "1", "--list", list], 12_000);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        let errors = error_lines(&out);
        assert_eq!(errors.len(), 1, "{err}");
        assert!(errors[0].contains("memory allocation of") && errors[0].ends_with("leave too little"), "{err}");
        assert!(!err.contains("panicked"));
        assert_eq!(fs::read_to_string(&keep).unwrap(), "old\n");
        assert_eq!(entries(&dir), ["keep.csv"]);
        fs::remove_dir_all(dir).unwrap();
    }

    /// A long run on a terminal draws its progress bar, for every coins kernel that can
    /// take long (stones and kayles draw theirs the same way). The terminal is a pty made
    /// by util-linux `script`; the run is killed once its bar shows.
    #[test]
    fn long_coin_runs_draw_a_progress_bar_on_a_terminal() {
        let runner = std::env::var("GAMECOUNT_TEST_RUNNER").unwrap_or_default();
        let bin = env!("CARGO_BIN_EXE_gamecount");
        let cases: &[(&str, &str)] = &[
            ("--stacks 30000 --kernel dp-scalar --threads 1", "coins: DP ["),
            ("--stacks 200000 --kernel dp-simd --threads 1", "coins: DP ["),
            ("--stacks 200000 --kernel dp-parallel --threads 2", "coins: DP tiles ["),
            ("--stacks 30000000 --height 3 --kernel recurrence --modulus 1000000007", "coins: recurrence ["),
        ];
        for (args, bar) in cases {
            let command = format!("{runner} {bin} solve coins {args}");
            let mut child = Command::new("script")
                .args(["-qfec", &command, "/dev/null"])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .expect("util-linux script runs");
            // The bar redraws with carriage returns: read raw bytes, not lines.
            let mut seen = Vec::new();
            let mut reader = child.stdout.take().unwrap();
            let mut chunk = [0u8; 4096];
            while !String::from_utf8_lossy(&seen).contains(bar) {
                use std::io::Read;
                match reader.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(k) => seen.extend_from_slice(&chunk[..k]),
                }
            }
            child.kill().unwrap();
            child.wait().unwrap();
            let text = String::from_utf8_lossy(&seen);
            assert!(text.contains(bar), "{args}: no bar '{bar}' in {text:?}");
            assert!(text.contains("note: coins: this run should take about"), "{args}: {text:?}");
        }
    }

    #[test]
    fn a_long_run_says_so_before_it_starts() {
        let mut child = binary()
            .args(["solve", "coins", "--stacks", "200000", "--kernel", "dp-simd"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let note = lines.find_map(|l| l.ok().filter(|l| l.starts_with("note:")));
        child.kill().unwrap();
        child.wait().unwrap();
        let note = note.expect("a note before the work");
        assert!(note.starts_with("note: coins: this run should take about "), "{note}");
        assert!(note.contains("dp-simd") && note.contains("200000 stacks"), "{note}");
    }

    /// `gamecount-lab`, the measurement tool.
    fn lab() -> Command {
        through_runner(env!("CARGO_BIN_EXE_gamecount-lab"))
    }

    /// The output of `command`, which must end within `seconds`: a tool that blocks (on a
    /// FIFO, say) fails the test instead of holding up the suite.
    fn output_within(command: &mut Command, seconds: u64) -> Output {
        let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let start = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if start.elapsed().as_secs() >= seconds {
                let _ = child.kill();
                let _ = child.wait();
                panic!("still running after {seconds} s: {command:?}");
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        child.wait_with_output().unwrap()
    }

    /// One record of the kind `cargo bench` leaves under `target/criterion`.
    fn criterion_record(from: &Path) {
        let dir = from.join("wht/scalar/1024/new");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("benchmark.json"), r#"{"group_id":"wht","function_id":"scalar","value_str":"1024"}"#)
            .unwrap();
        let estimates =
            r#"{"median":{"point_estimate":1000.0,"confidence_interval":{"lower_bound":900.0,"upper_bound":1100.0}}}"#;
        fs::write(dir.join("estimates.json"), estimates).unwrap();
    }

    #[test]
    fn the_lab_replaces_only_regular_files_and_leaves_nothing_behind() {
        let dir = scratch("lab-kinds");
        let from = dir.join("records");
        criterion_record(&from);
        let ladder = dir.join("ladder.csv");
        fs::write(&ladder, "stones,default,1,100\n").unwrap();
        let outputs = dir.join("outputs");
        fs::create_dir(&outputs).unwrap();
        make_fifo(&outputs.join("fifo"));
        fs::create_dir(outputs.join("directory")).unwrap();
        std::os::unix::fs::symlink("fifo", outputs.join("link-to-fifo")).unwrap();
        std::os::unix::fs::symlink("nothing", outputs.join("dangling")).unwrap();
        let before = entries(&outputs);
        for (name, reason) in [
            ("fifo", "is a FIFO"),
            ("directory", "is a directory"),
            ("link-to-fifo", "is a FIFO"),
            ("dangling", "does not exist"),
        ] {
            let path = outputs.join(name);
            let kind = fs::symlink_metadata(&path).unwrap().file_type();
            let out = output_within(lab().arg("criterion").arg("--from").arg(&from).arg("--out").arg(&path), 60);
            let err = stderr(&out);
            assert!(!out.status.success(), "{name}: {err}");
            assert_eq!(err.lines().count(), 1, "{name}: one line: {err}");
            assert!(err.starts_with("error: criterion: --out ") && err.contains(reason), "{name}: {err}");
            // The ladder too, which reads the file it replaces when it keeps other rows.
            let ladder = output_within(
                lab()
                    .arg("ladder")
                    .arg("--ladder")
                    .arg(&ladder)
                    .arg("--binary")
                    .arg("/bin/true")
                    .arg("--out")
                    .arg(&path)
                    .args(["--problem", "stones"]),
                60,
            );
            let err = stderr(&ladder);
            assert!(!ladder.status.success(), "{name}: {err}");
            assert!(err.starts_with("error: ladder: --out ") && err.contains(reason), "{name}: {err}");
            assert_eq!(fs::symlink_metadata(&path).unwrap().file_type(), kind, "{name} changed kind");
            assert_eq!(entries(&outputs), before, "{name}: something was left behind");
        }
        // A symlink to a regular file: the file is replaced with its mode, the link stays.
        let target = outputs.join("target.csv");
        fs::write(&target, "old\n").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::symlink("target.csv", outputs.join("link.csv")).unwrap();
        let out = output_within(
            lab().arg("criterion").arg("--from").arg(&from).arg("--out").arg(outputs.join("link.csv")),
            60,
        );
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(fs::symlink_metadata(outputs.join("link.csv")).unwrap().file_type().is_symlink(), "the link stays");
        let text = fs::read_to_string(&target).unwrap();
        assert!(text.starts_with("group,reference,") && text.contains("\nwht,scalar,1024,scalar,"), "{text}");
        assert_eq!(fs::metadata(&target).unwrap().mode() & 0o7777, 0o600, "the mode of the file replaced");
        let mut expected = before.clone();
        expected.extend(["link.csv".to_string(), "target.csv".to_string()]);
        expected.sort();
        assert_eq!(entries(&outputs), expected);
        fs::remove_dir_all(dir).unwrap();
    }

    /// A measurement script in miniature: `scripts/lib.sh`'s output staging around one
    /// row, then `MODE`: `fail` (an error under `set -e`), `wait` (until a signal), or
    /// a commit.
    fn staged_script(out: &Path, mode: &str) -> Command {
        let script = r#"set -euo pipefail
source scripts/lib.sh
begin_output "$1"
echo new >> "$output_temp"
case $2 in fail) false ;; wait) sleep 5 </dev/null &>/dev/null & wait $! ;; esac
commit_output"#;
        let mut command = Command::new("bash");
        command.current_dir(env!("CARGO_MANIFEST_DIR")).args(["-c", script, "script"]).arg(out).arg(mode);
        command
    }

    #[test]
    fn the_measurement_scripts_replace_their_outputs_whole_or_not_at_all() {
        let dir = scratch("scripts");
        let out = dir.join("rows.csv");
        fs::write(&out, "old\n").unwrap();
        fs::set_permissions(&out, fs::Permissions::from_mode(0o600)).unwrap();
        let status = staged_script(&out, "fail").status().unwrap();
        assert!(!status.success());
        assert_eq!(fs::read_to_string(&out).unwrap(), "old\n", "a failed run leaves the file");
        assert_eq!(entries(&dir), ["rows.csv"], "and no temporary file");
        let child = staged_script(&out, "wait").spawn().unwrap();
        signal_once_a_temporary_file_is_in(&dir, &child, libc::SIGTERM);
        let output = child.wait_with_output().unwrap();
        assert_eq!(std::os::unix::process::ExitStatusExt::signal(&output.status), Some(libc::SIGTERM));
        assert_eq!(fs::read_to_string(&out).unwrap(), "old\n", "an interrupted run leaves the file");
        assert_eq!(entries(&dir), ["rows.csv"], "and no temporary file");
        assert!(staged_script(&out, "commit").status().unwrap().success());
        assert_eq!(fs::read_to_string(&out).unwrap(), "new\n");
        assert_eq!(fs::metadata(&out).unwrap().mode() & 0o7777, 0o600, "the mode of the file replaced");
        make_fifo(&dir.join("fifo"));
        let refused = staged_script(&dir.join("fifo"), "commit").output().unwrap();
        assert_eq!(refused.status.code(), Some(2));
        assert!(stderr(&refused).starts_with("error: ") && stderr(&refused).contains("is not a regular file"));
        assert!(fs::symlink_metadata(dir.join("fifo")).unwrap().file_type().is_fifo());
        assert_eq!(entries(&dir), ["fifo", "rows.csv"]);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_interrupted_ladder_leaves_the_old_timings_as_they_were() {
        let dir = scratch("lab-ladder");
        let ladder = dir.join("ladder.csv");
        fs::write(&ladder, "stones,default,1,100\n").unwrap();
        // A stand-in for the engine that takes long enough to be interrupted.
        let slow = dir.join("slow-engine");
        fs::write(&slow, "#!/bin/sh\nexec sleep 5\n").unwrap();
        fs::set_permissions(&slow, fs::Permissions::from_mode(0o755)).unwrap();
        let outputs = dir.join("outputs");
        fs::create_dir(&outputs).unwrap();
        let keep = outputs.join("timings.csv");
        fs::write(&keep, "old\n").unwrap();
        let child = lab()
            .arg("ladder")
            .arg("--ladder")
            .arg(&ladder)
            .arg("--binary")
            .arg(&slow)
            .arg("--out")
            .arg(&keep)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The temporary file appears before the first run.
        signal_once_a_temporary_file_is_in(&outputs, &child, libc::SIGINT);
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
        assert_eq!(
            error_lines(&out),
            [format!("error: ladder: interrupted by SIGINT; --out {} was left as it was", keep.display())]
        );
        assert_eq!(fs::read_to_string(&keep).unwrap(), "old\n", "the old timings are untouched");
        assert_eq!(entries(&outputs), ["timings.csv"], "the temporary file is gone");
        fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn grundy_certifies_the_checkpoints_of_winning_ways() {
    for (code, preperiod, period, max, max_at) in
        [("0.07", 53, 34, 9, 86), ("0.77", 71, 12, 8, 27), ("0.137", 52, 34, 9, 85), ("0.156", 3479, 349, 23, 1032)]
    {
        let out = gamecount(&["grundy", code, "--until-periodic", "--json"]);
        assert!(out.status.success(), "{code}: {}", stderr(&out));
        let value: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        assert_eq!(value["problem"], "grundy");
        assert_eq!((value["preperiod"].as_u64(), value["period"].as_u64()), (Some(preperiod), Some(period)), "{code}");
        assert_eq!((value["max"].as_u64(), value["max_at"].as_u64()), (Some(max), Some(max_at)), "{code}");
        assert_eq!(value["certified"], true);
        for field in ["heaps", "zeros", "seconds", "kernel", "threads", "simd", "rare_mask", "rare_count", "last_rare"]
        {
            assert!(value.get(field).is_some(), "{code}: {field}");
        }
    }
    // Without enough heaps: no certificate, said in the line.
    let out = gamecount(&["grundy", "0.156", "--heaps", "5000"]);
    assert!(stdout(&out).contains("no period certified up to 5000"), "{}", stdout(&out));
    let out = gamecount(&["grundy", "grundy", "--heaps", "1000", "--json"]);
    let value: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!((value["certified"].as_bool(), value["period"].is_null()), (Some(false), true));
}

#[test]
fn grundy_values_do_not_depend_on_the_kernel_threads_or_backend() {
    // Whole tables of 0.354 (values up to 113: the seen sets of two and four words) and
    // of 0.16 (below 32: one word) against naive, every kernel on the portable backend,
    // and the default on every backend this CPU runs, on one and two threads.
    let dir = std::env::temp_dir().join(format!("gamecount-grundy-kernels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let table = |game: &str, extra: &[&str]| {
        let path = dir.join("values.txt");
        let mut args = vec!["grundy", game, "--heaps", "40000", "--every-heap", "--out", path.to_str().unwrap()];
        args.extend_from_slice(extra);
        let out = gamecount(&args);
        assert!(out.status.success(), "{extra:?}: {}", stderr(&out));
        (stdout(&out), std::fs::read(&path).unwrap())
    };
    for game in ["0.354", "0.16"] {
        let base = table(game, &["--kernel", "naive", "--threads", "1"]);
        for threads in ["1", "2"] {
            for kernel in ["bitset", "sparse", "parallel", "blocks"] {
                let run = ["--kernel", kernel, "--threads", threads, "--simd", "portable"];
                assert!(table(game, &run) == base, "{game}: {kernel} on {threads} threads");
            }
            for level in detected_levels() {
                let run = ["--threads", threads, "--simd", level.as_str()];
                assert!(table(game, &run) == base, "{game}: the default on {level}, {threads} threads");
            }
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn grundy_out_writes_one_value_a_line() {
    let dir = std::env::temp_dir().join(format!("gamecount-octal-out-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("kayles.txt");
    let out = gamecount(&["grundy", "0.77", "--heaps", "11", "--out", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "0\n1\n2\n3\n1\n4\n3\n2\n1\n4\n2\n6\n");
    let out = gamecount(&["grundy", "0.77", "--heaps", "11", "--out", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("error: grundy: --out "), "{}", stderr(&out));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn grundy_copies_the_heaps_past_a_certified_period_as_computed_ones() {
    // 0.156 is certified at about 8000 heaps: the rest of 100 000 is copied by default,
    // and computed with --every-heap; the values written and the report agree.
    let dir = std::env::temp_dir().join(format!("gamecount-octal-period-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (copied, computed) = (dir.join("copied.txt"), dir.join("computed.txt"));
    let run = |path: &std::path::Path, extra: &[&str]| {
        let mut args = vec!["grundy", "0.156", "--heaps", "100000", "--json", "--out", path.to_str().unwrap()];
        args.extend_from_slice(extra);
        let out = gamecount(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        let mut value: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        let copied_from = value["copied_from"].as_u64();
        value.as_object_mut().unwrap().retain(|k, _| !matches!(k.as_str(), "seconds" | "copied_from"));
        (value, copied_from)
    };
    let (by_period, from) = run(&copied, &[]);
    let (every_heap, none) = run(&computed, &["--every-heap"]);
    assert_eq!((by_period["preperiod"].as_u64(), by_period["period"].as_u64()), (Some(3479), Some(349)));
    let from = from.expect("copied");
    assert!((7600..20_000).contains(&from), "{from}");
    assert_eq!(none, None);
    assert_eq!(by_period, every_heap);
    assert_eq!(std::fs::read(&copied).unwrap(), std::fs::read(&computed).unwrap());
    let line = stdout(&gamecount(&["grundy", "0.156", "--heaps", "100000"]));
    assert!(line.contains(&format!("G(n) for n >= {from} copied from the period")), "{line}");
    // --until-periodic computes every heap: nothing copied, and the line says nothing.
    let out = gamecount(&["grundy", "0.156", "--until-periodic", "--json"]);
    let value: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert!(value["copied_from"].is_null() && value["certified"] == true, "{value}");
    let line = stdout(&gamecount(&["grundy", "0.156", "--until-periodic"]));
    assert!(!line.contains("copied"), "{line}");
    // solve octal counts from the copied table what it counts from the computed one.
    let count = |extra: &[&str]| {
        let mut args = vec!["solve", "octal", "--game", "0.156", "--heaps", "100000", "--components", "3"];
        args.extend_from_slice(extra);
        let out = gamecount(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    assert_eq!(count(&[]), count(&["--every-heap"]));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn solve_octal_counts_exactly_or_modulo_a_prime() {
    // 0.07 with heaps 0..=3 (values 0 0 1 1): pairs with equal values, 2·2 + 2·2 = 8.
    let out = gamecount(&["solve", "octal", "--game", "0.07", "--heaps", "3", "--components", "2"]);
    assert_eq!(stdout(&out), "8\n", "{}", stderr(&out));
    let out = gamecount(&["solve", "octal", "--game", ".77", "--heaps", "1000", "--components", "12", "--json"]);
    let text = stdout(&out);
    assert!(text.starts_with("{\"problem\":\"octal\""), "{text}");
    let exact: u128 = text.split("\"answer\":").nth(1).unwrap().split(',').next().unwrap().parse().unwrap();
    assert!(exact > u64::MAX as u128, "{exact}");
    let out = gamecount(&[
        "solve",
        "octal",
        "--game",
        ".77",
        "--heaps",
        "1000",
        "--components",
        "12",
        "--modulus",
        "1000000007",
    ]);
    assert_eq!(stdout(&out).trim(), (exact % 1_000_000_007).to_string());
}

#[test]
fn bad_octal_input_gets_one_line_and_exit_code_two() {
    let too_long = format!("0.{}", "7".repeat(33));
    let cases: Vec<Vec<&str>> = vec![
        vec!["grundy", "0.08", "--heaps", "10"],
        vec!["grundy", "0.9", "--heaps", "10"],
        vec!["grundy", "077", "--heaps", "10"],
        vec!["grundy", "2.07", "--heaps", "10"],
        vec!["grundy", "0.000", "--heaps", "10"],
        vec!["grundy", &too_long, "--heaps", "10"],
        vec!["grundy", "0x3f", "--heaps", "10"],
        vec!["grundy", "0.07"],
        vec!["grundy", "0.07", "--heaps", "10", "--kernel", "fast"],
        vec!["solve", "octal", "--game", "0.07", "--heaps", "10", "--components", "0"],
        vec!["solve", "octal", "--game", "0.07", "--heaps", "10", "--components", "2", "--modulus", "1000000006"],
        vec!["solve", "octal", "--game", "0.07", "--heaps", "10", "--components", "2", "--modulus", "2"],
        vec!["solve", "octal", "--game", "0.07", "--heaps", "1000", "--components", "100"],
        vec!["solve", "octal", "--game", "0.8", "--heaps", "10", "--components", "2"],
    ];
    for args in cases {
        let out = gamecount(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        let problem = if args[0] == "grundy" { "grundy" } else { "octal" };
        assert!(err.starts_with(&format!("error: {problem}: ")), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// The levels `gamecount kernels` says this CPU runs, e.g. `["portable", "avx2"]`.
fn detected_levels() -> Vec<String> {
    let kernels = stdout(&gamecount(&["kernels"]));
    let line = kernels.lines().find(|l| l.starts_with("simd: ")).expect("a simd line");
    let list = line.split("(this CPU runs: ").nth(1).expect("the detected levels").trim_end_matches(')');
    list.split(", ").map(str::to_string).collect()
}

#[test]
fn every_problem_answers_the_same_on_every_level_the_cpu_runs() {
    let levels = detected_levels();
    assert!(levels.iter().any(|l| l == "portable"), "{levels:?}");
    let requests: [&[&str]; 5] = [
        &["solve", "kayles", "--pins", "300"],
        &["solve", "stones", "--limit", "120"],
        // 2^22 values: the transform's stream pass runs too, not only its local pass.
        &["solve", "cards", "--cards", "3000000", "--suits", "1000"],
        &["solve", "coins", "--stacks", "300"],
        // Past the bitset prefix: the blocks of lag marks run on the backend.
        &["grundy", "0.16", "--heaps", "20000"],
    ];
    for request in requests {
        let answer = |level: &str| {
            let mut args = request.to_vec();
            args.extend(["--simd", level, "--json"]);
            let out = gamecount(&args);
            assert!(out.status.success(), "{args:?}: {}", stderr(&out));
            let json = stdout(&out);
            // The backend that ran is the one asked for, not what the build targeted.
            assert!(json.contains(&format!("\"simd\":\"{level}\"")), "{args:?}: {json}");
            // Everything but the timing and the backend is the same.
            json.split(',')
                .filter(|f| !f.contains("\"seconds\"") && !f.contains("\"simd\""))
                .collect::<Vec<_>>()
                .join(",")
        };
        let portable = answer("portable");
        for level in &levels {
            assert_eq!(answer(level), portable, "{request:?} on {level}");
        }
    }
}

#[test]
fn a_level_the_cpu_lacks_is_refused_in_one_line() {
    let levels = detected_levels();
    let missing = ["neon", "avx512", "avx2-vnni", "avx2"].into_iter().find(|l| !levels.iter().any(|d| d == l));
    // Every x86 CPU lacks neon and every aarch64 CPU the x86 levels, so one is missing.
    let missing = missing.expect("some level is missing on any CPU");
    for (args, env) in [
        (vec!["solve", "kayles", "--pins", "20", "--simd", missing], None),
        (vec!["solve", "kayles", "--pins", "20"], Some(missing)),
    ] {
        let mut command = binary();
        command.args(&args);
        if let Some(level) = env {
            command.env("GAMECOUNT_SIMD", level);
        }
        let out = command.output().expect("the binary runs");
        assert_eq!(out.status.code(), Some(2), "{args:?} {env:?}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(&format!("cannot run SIMD level {missing}")), "{err}");
        assert!(stdout(&out).is_empty());
    }
}

#[test]
fn an_empty_simd_flag_is_refused_and_an_empty_variable_means_auto() {
    let out = binary().args(["solve", "coins", "--stacks", "10", "--simd", ""]).output().expect("the binary runs");
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("empty SIMD level") && err.contains("portable"), "{err}");
    assert!(stdout(&out).is_empty());

    let out = binary()
        .args(["solve", "coins", "--stacks", "10", "--json"])
        .env("GAMECOUNT_SIMD", "")
        .output()
        .expect("the binary runs");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let best = detected_levels().last().cloned().expect("portable at least");
    assert!(stdout(&out).contains(&format!("\"simd\":\"{best}\"")), "{}", stdout(&out));
}
