#!/usr/bin/env bash
# Compares the default build (baseline x86-64 or aarch64, instruction set chosen at run
# time) with a build for this very CPU (`-C target-cpu=native`), side by side: fresh
# `gamecount solve … --json` processes alternated within each round, the median and the
# minimum of the compute time the binary reports. The run-time dispatch should make the
# two equal; writes results/native.csv, every row naming the CPU and the backend that ran.
#
#   scripts/native.sh               # 2 threads, 11 rounds
#   ROUNDS=21 scripts/native.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
cargo build --release --quiet --bin gamecount
native_dir=${NATIVE_TARGET_DIR:-target/native}
RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR="$native_dir" cargo build --release --quiet --bin gamecount
rounds=${ROUNDS:-11}
threads=${THREADS:-2}
out=${OUT:-results/native.csv}
begin_output "$out"
cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
declare -A bins=([baseline]=target/release/gamecount [native]="$native_dir/release/gamecount")

# The four Project Euler instances, then one larger or other case for each family whose
# default kernel changes with the size or the parameters (kayles' newton, stones' tiles,
# the coin DP on stacks of three coins).
instances=(
  "kayles --pins 1000"
  "stones --limit 1000"
  "cards --cards 10^7 --suits 10^7"
  "coins --stacks 9898"
  "kayles --pins 10^5"
  "stones --limit 5000"
  "coins --stacks 3000 --height 3 --modulus 10^9"
)

field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^,\"]*\).*/\1/p"; }
stats() { sort -g | awk '{ v[NR] = $1 } END { printf "%s,%s", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[1] }'; }

echo "instance,build,simd,threads,kernel,median_s,min_s,rounds,answer,cpu,date,commit" > "$output_temp"
for instance in "${instances[@]}"; do
  declare -A times=() answers=() kernels=() levels=()
  for _ in $(seq "$rounds"); do
    for build in baseline native; do
      # shellcheck disable=SC2086 # the instance is words on purpose
      line=$("${bins[$build]}" solve $instance --threads "$threads" --json 2>/dev/null)
      times[$build]+="$(field seconds <<<"$line") "
      answers[$build]=$(field answer <<<"$line")
      kernels[$build]=$(field kernel <<<"$line")
      levels[$build]=$(field simd <<<"$line")
    done
  done
  if [ "${answers[baseline]}" != "${answers[native]}" ]; then
    echo "error: $instance: the builds disagree (${answers[baseline]} vs ${answers[native]})" >&2
    exit 1
  fi
  for build in baseline native; do
    s=$(tr ' ' '\n' <<<"${times[$build]}" | grep . | stats)
    echo "\"$instance\",$build,${levels[$build]},$threads,${kernels[$build]},$s,$rounds,${answers[$build]},\"$cpu\",$(date -u +%FT%TZ),$commit" >> "$output_temp"
    printf '%-34s %-9s %-7s %-14s median,min %s s\n' "$instance" "$build" "${levels[$build]}" "${kernels[$build]}" "$s"
  done
  unset times answers kernels levels
done
commit_output
