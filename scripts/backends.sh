#!/usr/bin/env bash
# Times each Project Euler instance on every SIMD backend this CPU has, side by side:
# fresh `gamecount solve … --json` processes, the backends alternated within each round
# so that all of them see the same machine, and the median of the compute time the
# binary reports (`seconds`). Then measures the machine's limits, the vector rates on
# every backend (`gamecount-lab roofline`), so that the report can set each time against
# its bound on its backend, and times the whole process of `solve all` on each backend
# (wall clock, start to exit). Writes results/backends/MACHINE.csv and
# MACHINE.roofline.csv, MACHINE naming the CPU (model name, family and model); every
# row names the CPU too.
#
#   scripts/backends.sh              # 2 threads, 11 rounds
#   ROUNDS=21 THREADS=1 scripts/backends.sh
#   NO_ROOFLINE=1 scripts/backends.sh   # the times only
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
cargo build --release --quiet --bins
bin=target/release/gamecount
rounds=${ROUNDS:-11}
threads=${THREADS:-2}
family=$(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
model=$(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
machine=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/([^)]*)//g' | tr 'A-Z' 'a-z' | tr -cs 'a-z0-9' '-' | sed 's/^-//; s/-$//')
machine="$machine-f${family}m${model}"
out=${OUT:-results/backends/$machine.csv}
begin_output "$out"

levels=$($bin kernels | sed -n 's/^simd: .*(this CPU runs: \(.*\))$/\1/p' | tr -d ',')
cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), family $family model $model ($(lscpu | grep -o 'avx512[a-z_0-9]*\|avx2' | sort -u | tr '\n' ' ' | sed 's/ $//'))"
commit=$(short_commit)

instances=(
  "kayles --pins 1000"
  "stones --limit 1000"
  "cards --cards 10^7 --suits 10^7"
  "coins --stacks 9898"
)


echo "instance,simd,threads,kernel,median_s,min_s,rounds,answer,cpu,date,commit" > "$output_temp"
for instance in "${instances[@]}"; do
  declare -A times=() answers=() kernels=()
  for _ in $(seq "$rounds"); do
    for level in $levels; do
      # shellcheck disable=SC2086 # the instance is words on purpose
      line=$($bin solve $instance --threads "$threads" --simd "$level" --json 2>/dev/null)
      seconds=$(sed -n 's/.*"seconds":\([0-9.e-]*\).*/\1/p' <<<"$line")
      answers[$level]=$(sed -n 's/.*"answer":\([0-9]*\).*/\1/p' <<<"$line")
      kernels[$level]=$(sed -n 's/.*"kernel":"\([^"]*\)".*/\1/p' <<<"$line")
      times[$level]+="$seconds "
    done
  done
  for level in $levels; do
    med=$(tr ' ' '\n' <<<"${times[$level]}" | grep . | median)
    min=$(tr ' ' '\n' <<<"${times[$level]}" | grep . | sort -g | head -n 1)
    echo "\"$instance\",$level,$threads,${kernels[$level]},$med,$min,$rounds,${answers[$level]},\"$cpu\",$(date -u +%FT%TZ),$commit" >> "$output_temp"
    printf '%-34s %-9s %-14s median %10.6f s  min %10.6f s  answer %s\n' "$instance" "$level" "${kernels[$level]}" "$med" "$min" "${answers[$level]}"
  done
  unset times answers kernels
done

# The README's main command as a user sees it: the whole process of `solve all`, start to
# exit (wall clock, so the start-up, the four solves and the table are all in it).
declare -A walls=()
for _ in $(seq "$rounds"); do
  for level in $levels; do
    start=$EPOCHREALTIME
    $bin solve all --threads "$threads" --simd "$level" >/dev/null 2>&1
    end=$EPOCHREALTIME
    walls[$level]+="$(( $(elapsed_us "$start" "$end") * 1000 )) "
  done
done
for level in $levels; do
  med=$(tr ' ' '\n' <<<"${walls[$level]}" | grep . | median | awk '{ printf "%.6f", $1 / 1e9 }')
  min=$(tr ' ' '\n' <<<"${walls[$level]}" | grep . | sort -g | head -n 1 | awk '{ printf "%.6f", $1 / 1e9 }')
  echo "\"solve all (whole process)\",$level,$threads,default,$med,$min,$rounds,,\"$cpu\",$(date -u +%FT%TZ),$commit" >> "$output_temp"
  printf '%-34s %-9s %-14s median %10.6f s  min %10.6f s\n' "solve all (whole process)" "$level" default "$med" "$min"
done
commit_output

if [ -z "${NO_ROOFLINE:-}" ]; then
  target/release/gamecount-lab roofline --out "${out%.csv}.roofline.csv"
fi
