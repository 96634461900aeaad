#!/usr/bin/env bash
# Times this checkout against an earlier commit of the project, side by side: builds
# REV in a temporary worktree (with that commit's own build settings, e.g. the
# `target-cpu=native` of the commits before run-time dispatch), then runs the four
# Project Euler instances as fresh processes, the two binaries alternated within each
# round, and reports the median of the compute time each binary reports (`seconds`)
# and their ratio. Extra arguments go to this checkout's binary only (`--simd avx512`).
# GAMECOUNT_SIMD=LEVEL runs both binaries on that backend (the arguments column says so).
# SAME_ALLOCATOR=1 builds REV with this checkout's allocator line of Cargo.toml (its
# `mimalloc` features), so that the two differ in their code only: which pages the
# allocator's arena maps decides whether a kernel's scratch is paged in inside the timed
# region (docs/design/simd.md, "Against the pre-dispatch build"). The base column then reads `REV+allocator`.
# Writes results/versus.csv, every row naming the CPU and both commits.
#
#   scripts/versus.sh 019da5f                    # 11 rounds, 2 threads
#   ROUNDS=21 scripts/versus.sh 019da5f --simd avx512
set -euo pipefail
rev=${1:?usage: scripts/versus.sh REV [extra solve arguments for this checkout]}
shift
cd "$(dirname "$0")/.."
source scripts/lib.sh
rounds=${ROUNDS:-11}
threads=${THREADS:-2}
out=${OUT:-results/versus.csv}
# New rows are added to the file's own.
begin_output --append "$out"

cargo build --release --quiet --bin gamecount
ours=target/release/gamecount
scratch=$(mktemp -d)
at_exit 'git worktree remove --force "$scratch/tree" >/dev/null 2>&1 || true; rm -rf "$scratch"'
git worktree add --detach --quiet "$scratch/tree" "$rev"
base=$(git rev-parse --short "$rev")
if [[ "${SAME_ALLOCATOR:-0}" == 1 ]]; then
  allocator=$(grep -E '^mimalloc *=' Cargo.toml)
  sed -i "s|^mimalloc *=.*|$allocator|" "$scratch/tree/Cargo.toml"
  grep -qxF "$allocator" "$scratch/tree/Cargo.toml" || { echo "cannot set the allocator of $rev" >&2; exit 1; }
  base+="+allocator"
fi
(cd "$scratch/tree" && cargo build --release --quiet --bin gamecount)
theirs=$scratch/tree/target/release/gamecount

cpu="$(cpu_name)"
commit=$(git rev-parse --short HEAD)
seconds() { sed -n 's/.*"seconds":\([0-9.e-]*\).*/\1/p'; }
arguments="${GAMECOUNT_SIMD:+GAMECOUNT_SIMD=$GAMECOUNT_SIMD (both) }$*"

instances=(
  "kayles --pins 1000"
  "stones --limit 1000"
  "cards --cards 10000000 --suits 10000000"
  "coins --stacks 9898"
)

[[ -s "$output_temp" ]] || echo "instance,base_commit,base_median_s,commit,arguments,median_s,ratio,rounds,threads,cpu,date" > "$output_temp"
for instance in "${instances[@]}"; do
  old="" new=""
  for _ in $(seq "$rounds"); do
    # shellcheck disable=SC2086 # the instance and the arguments are words on purpose
    old+="$("$theirs" solve $instance --threads "$threads" --json 2>/dev/null | seconds) "
    # shellcheck disable=SC2086
    new+="$("$ours" solve $instance --threads "$threads" "$@" --json 2>/dev/null | seconds) "
  done
  o=$(tr ' ' '\n' <<<"$old" | grep . | median)
  n=$(tr ' ' '\n' <<<"$new" | grep . | median)
  ratio=$(echo "$n / $o" | bc -l)
  printf '%-42s %s %.6f s   %s %.6f s   ratio %.2f\n' "$instance" "$base" "$o" "$commit" "$n" "$ratio"
  echo "\"$instance\",$base,$o,$commit,\"$arguments\",$n,$(printf '%.3f' "$ratio"),$rounds,$threads,\"$cpu\",$(date -u +%FT%TZ)" >> "$output_temp"
done
commit_output
echo "wrote $out" >&2
