#!/usr/bin/env bash
# Times `gamecount grundy GAME --heaps N` against the C++ sparse-space program of the
# public repository beling/tczajka-octal-games (`old/src/analyze_exec.cc` with game.cc,
# game_util.cc and hadamard.cc), side by side: whole processes, wall clock, the two
# programs alternated within each round, median of ROUNDS. The C++ program is not part
# of this project: build it beside it and pass its path, e.g.
#
#   g++ -O3 -std=c++11 -o analyze analyze_exec.cc game.cc game_util.cc hadamard.cc
#   scripts/octal-baseline.sh /path/to/analyze          # N = 10^6, 3 rounds
#
# `analyze GAME M` computes G(0..M-2), so it is given M = N + 2 to compute the same
# N + 1 values. gamecount runs twice a round: by default (an octal game's heaps past a
# certified period are copied from it) and with --every-heap (every heap computed, as the
# C++ program does). Writes results/octal-baseline.csv, every row naming the CPU and
# commit.
set -euo pipefail
analyze=${1:?usage: scripts/octal-baseline.sh PATH_TO_ANALYZE}
cd "$(dirname "$0")/.."
source scripts/lib.sh
cargo build --release --quiet --bin gamecount
bin=target/release/gamecount
rounds=${ROUNDS:-3}
heaps=${HEAPS:-1000000}
games=${GAMES:-"0.354 0.16 grundy"}
out=${OUT:-results/octal-baseline.csv}
begin_output "$out"
cpu="$(cpu_name)"
commit=$(short_commit)

wall() { local start end; start=$EPOCHREALTIME; "$@" >/dev/null 2>&1; end=$EPOCHREALTIME; elapsed "$start" "$end"; }

echo "game,heaps,cpp_median_s,gamecount_median_s,speedup,copied_from,every_heap_median_s,every_heap_speedup,gamecount_kernel,rounds,cpu,date,commit" > "$output_temp"
for game in $games; do
  cpp="" ours="" every=""
  for _ in $(seq "$rounds"); do
    cpp+="$(wall "$analyze" "$game" $((heaps + 2))) "
    ours+="$(wall "$bin" grundy "$game" --heaps "$heaps") "
    every+="$(wall "$bin" grundy "$game" --heaps "$heaps" --every-heap) "
  done
  c=$(tr ' ' '\n' <<<"$cpp" | grep . | median)
  g=$(tr ' ' '\n' <<<"$ours" | grep . | median)
  e=$(tr ' ' '\n' <<<"$every" | grep . | median)
  json=$("$bin" grundy "$game" --heaps "$heaps" --json 2>/dev/null)
  kernel=$(sed -n 's/.*"kernel":"\([^"]*\)".*/\1/p' <<<"$json")
  copied=$(sed -n 's/.*"copied_from":\([0-9a-z]*\).*/\1/p' <<<"$json")
  speedup=$(echo "$c / $g" | bc -l)
  every_speedup=$(echo "$c / $e" | bc -l)
  printf '%-7s N=%s  C++ %.3f s  gamecount %.3f s (%s, copied from heap %s)  ratio %.2f;  every heap %.3f s  ratio %.2f\n' \
    "$game" "$heaps" "$c" "$g" "$kernel" "$copied" "$speedup" "$e" "$every_speedup"
  echo "$game,$heaps,$c,$g,$(printf '%.2f' "$speedup"),$copied,$e,$(printf '%.2f' "$every_speedup"),$kernel,$rounds,\"$cpu\",$(date -u +%FT%TZ),$commit" >> "$output_temp"
done
commit_output
