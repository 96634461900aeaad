#!/usr/bin/env bash
# Times the straightforward C++ programs of scripts/baselines/ against the whole
# `gamecount solve` process on the same instance (wall clock, process start to exit,
# median of REPEATS runs each, alternated so both see the same machine load), checks
# that both print the same answer, and writes results/baselines.csv, which
# results/README.md reports as ratios: of the whole processes, and of the C++ process
# against the compute time gamecount reports (`seconds`). SIMD=LEVEL runs gamecount on
# that backend (`--simd`), e.g. SIMD=avx2 on an AVX-512 machine.
#
#   scripts/baselines.sh            # needs g++ (Debian: build-essential)
#   REPEATS=9 SIMD=avx2 scripts/baselines.sh
#   OUT=results/baselines-intel-avx2.csv SIMD=avx2 scripts/baselines.sh   # another machine's file
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

if ! command -v g++ >/dev/null 2>&1; then
    echo "error: g++ is missing: install build-essential (Debian) to time the C++ baselines" >&2
    exit 1
fi
cargo build --release --quiet --bins
build=$(mktemp -d)
at_exit 'rm -rf "$build"'
g++ -O2 -march=native -o "$build/cards" scripts/baselines/cards.cpp
g++ -O2 -march=native -o "$build/stones" scripts/baselines/stones.cpp

repeats=${REPEATS:-5}
simd=${SIMD:-auto}
gamecount=target/release/gamecount
out=${OUT:-results/baselines.csv}
begin_output "$out"

# One run of "$@": prints its wall seconds and the first field of its stdout.
run_timed() {
    local start end answer
    start=$EPOCHREALTIME
    answer=$("$@" 2>/dev/null | head -n 1 | cut -d' ' -f1)
    end=$EPOCHREALTIME
    echo "$(elapsed "$start" "$end") $answer"
}

# One `gamecount solve --json` run: prints its wall seconds, its answer and the compute
# seconds it reports.
run_ours() {
    local start end line
    start=$EPOCHREALTIME
    line=$("$gamecount" solve "$@" --simd "$simd" --json 2>/dev/null | head -n 1)
    end=$EPOCHREALTIME
    echo "$(elapsed "$start" "$end") $(sed -n 's/.*"answer":\([0-9]*\).*/\1/p' <<<"$line") $(sed -n 's/.*"seconds":\([0-9.e-]*\).*/\1/p' <<<"$line")"
}


machine="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), family $(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ') model $(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' '), $(nproc) vCPUs"
echo "problem,params,baseline,baseline_median_s,gamecount_median_s,speedup,answer,machine,date,commit,simd,gamecount_compute_median_s,compute_speedup" > "$output_temp"

# One comparison: name, params label, the gamecount arguments, then the baseline command.
compare() {
    local problem=$1 params=$2 baseline=$3 solve_args=$4
    shift 4
    local base_times=() ours_times=() compute_times=() base_answer ours_answer seconds compute
    for _ in $(seq "$repeats"); do
        read -r seconds base_answer < <(run_timed "$@")
        base_times+=("$seconds")
        # shellcheck disable=SC2086 # the solve arguments are words on purpose
        read -r seconds ours_answer compute < <(run_ours $solve_args)
        ours_times+=("$seconds")
        compute_times+=("$compute")
    done
    if [[ "$base_answer" != "$ours_answer" ]]; then
        echo "error: $problem $baseline answers $base_answer, gamecount $ours_answer" >&2
        exit 1
    fi
    local base ours computed
    base=$(printf '%s\n' "${base_times[@]}" | median)
    ours=$(printf '%s\n' "${ours_times[@]}" | median)
    computed=$(printf '%s\n' "${compute_times[@]}" | median)
    local ratio compute_ratio
    ratio=$(echo "$base / $ours" | bc -l)
    compute_ratio=$(echo "$base / $computed" | bc -l)
    printf '%s: %s %.3f s, gamecount %.4f s (compute %.4f s, simd %s), %.1fx (%.1fx)\n' "$problem" "$baseline" "$base" \
        "$ours" "$computed" "$simd" "$ratio" "$compute_ratio" >&2
    printf '%s,"%s",%s,%.6f,%.6f,%.2f,%s,"%s",%s,%s,%s,%.6f,%.2f\n' "$problem" "$params" "$baseline" "$base" "$ours" \
        "$ratio" "$ours_answer" "$machine" "$(date -u +%F)" "$(git rev-parse --short HEAD)" "$simd" "$computed" \
        "$compute_ratio" >> "$output_temp"
}

compare cards "n=10^7 s=10^7" scalar-cpp "cards --cards 10000000 --suits 10000000" \
    "$build/cards" 10000000 10000000
compare stones "L=1000" plain-scan-cpp "stones --limit 1000" "$build/stones" 1000 plain
compare stones "L=1000" shortcuts-scan-cpp "stones --limit 1000" "$build/stones" 1000 shortcuts
commit_output
echo "wrote $out" >&2
