//! The command-line contract, through the real binary: outputs, JSON fields, exit codes,
//! and one-line errors for bad input.

use std::process::{Command, Output};

/// The binary, started through `GAMECOUNT_TEST_RUNNER` when it is set (an emulator such
/// as `qemu-aarch64 -L /usr/aarch64-linux-gnu` for a cross build).
fn binary() -> Command {
    let runner = std::env::var("GAMECOUNT_TEST_RUNNER").unwrap_or_default();
    let mut words = runner.split_whitespace();
    match words.next() {
        Some(program) => {
            let mut command = Command::new(program);
            command.args(words).arg(env!("CARGO_BIN_EXE_gamecount"));
            command
        }
        None => Command::new(env!("CARGO_BIN_EXE_gamecount")),
    }
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
    assert_eq!(problems, ["kayles", "stones", "cards", "coins", "simd"]);
    assert!(text.lines().all(|l| l.split_once(": ").is_some_and(|(_, names)| !names.is_empty())));
}

/// Every bad input: exit code 2, exactly one line on stderr, naming the problem when
/// there is one, and never a panic.
#[test]
fn bad_input_gets_one_line_and_exit_code_two() {
    let cases: &[(&[&str], &str)] = &[
        (&["solve", "kayles", "--pins", "0"], "kayles"),
        (&["solve", "kayles", "--pins", "-5"], "kayles"),
        (&["solve", "kayles", "--pins", "abc"], "kayles"),
        (&["solve", "kayles", "--pins", "99999999999999999999"], "kayles"),
        (&["solve", "kayles", "--pins", "10", "--modulus", "1"], "kayles"),
        (&["solve", "kayles"], "kayles"),
        (&["solve", "stones", "--limit", "0"], "stones"),
        (&["solve", "stones", "--limit", "1000000"], "stones"),
        (&["solve", "stones", "--limit", "10", "--threads", "0"], "stones"),
        (&["solve", "stones", "--limit", "10", "--kernel", "no-such-kernel"], "stones"),
        (&["solve", "stones", "--limit", "10", "--bogus"], "stones"),
        (&["solve", "cards", "--cards", "10", "--suits", "3", "--modulus", "1000000006"], "cards"),
        (&["solve", "cards", "--cards", "10", "--suits", "0"], "cards"),
        (&["solve", "cards", "--cards", "0", "--suits", "1"], "cards"),
        (&["solve", "cards", "--cards", "100", "--suits", "3", "--modulus", "97"], "cards"),
        (&["solve", "cards", "--cards", "10", "--suits", "3", "--modulus", "4294967311"], "cards"),
        (&["solve", "cards", "--cards", "2000000000", "--suits", "3"], "cards"),
        (&["solve", "coins", "--stacks", "0"], "coins"),
        (&["solve", "coins", "--stacks", "5", "--modulus", "4294967296"], "coins"),
        (&["solve", "coins", "--stacks", "1e30"], "coins"),
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

#[test]
fn help_and_version_succeed() {
    for args in [&["--help"][..], &["--version"], &["solve", "cards", "--help"]] {
        let out = gamecount(args);
        assert!(out.status.success(), "{args:?}");
        assert!(!out.stdout.is_empty());
    }
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
