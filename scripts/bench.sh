#!/usr/bin/env bash
# Regenerates results/ from scratch on this machine:
#   1. builds the release binaries;
#   2. times the release binary over the size ladders of scripts/ladder.csv (repeated
#      runs, medians) into results/timings.csv;
#   3. measures the machine's limits into results/roofline.csv (scripts/roofline.sh),
#      runs `gamecount verify --deep` into results/verify-deep.txt and times the C++
#      baselines against the binary into results/baselines.csv (scripts/baselines.sh);
#   4. runs `cargo bench` (every kernel family side by side) and summarises it into
#      results/criterion.csv (skip with SKIP_CRITERION=1);
#   5. writes results/README.md and the SVG plots in results/plots/.
#
#   scripts/bench.sh                 # everything (about 30-40 minutes on 2 cores)
#   scripts/bench.sh --problem cards # one problem's ladders (keeps the other results)
#   REPEATS=3 scripts/bench.sh       # fewer runs per point
#
# The machine is shared and noisy: run it when nothing else is running.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

problem_args=()
if [[ "${1:-}" == "--problem" ]]; then
    problem_args=(--problem "${2:?--problem needs a name}")
fi

cargo build --release --quiet --bins
lab=target/release/gamecount-lab
mkdir -p results

# With --problem, the other problems' rows of timings.csv are kept.
"$lab" ladder --repeats "${REPEATS:-5}" --out results/timings.csv "${problem_args[@]}"

if [[ ! -f results/roofline.csv || ${#problem_args[@]} -eq 0 ]]; then
    scripts/roofline.sh
    # The pre-release verification, with its duration, for the report.
    begin_output results/verify-deep.txt
    target/release/gamecount verify --deep > "$output_temp" 2>&1
    commit_output
    # The whole process against straightforward C++ (skipped, with a note, without g++).
    scripts/baselines.sh || echo "note: C++ baselines not timed (see the error above)" >&2
fi
# Every kernel family side by side (criterion), collected into results/criterion.csv.
if [[ ${#problem_args[@]} -eq 0 && -z "${SKIP_CRITERION:-}" ]]; then
    echo "cargo bench (log: target/bench.log)" >&2
    cargo bench > target/bench.log 2>&1 || { tail -n 30 target/bench.log >&2; exit 1; }
    "$lab" criterion --out results/criterion.csv
fi
"$lab" report --dir results
