#!/usr/bin/env bash
# Times every Grundy variant against N: `gamecount grundy GAME --heaps N --kernel K` for
# N = 2^10, 2^12, ... on 0.354 and Grundy's game, each variant up to the size where it
# still finishes in seconds (naive to 2^14, bitset to 2^16, the sparse ones to 2^20).
# Fresh processes, the variants of one size alternated within each round; median of the
# compute time the binary reports. Writes results/grundy-scaling.csv, every row naming
# the CPU and the commit; `gamecount-lab report` draws results/plots/grundy-*.svg.
#
#   scripts/grundy-scaling.sh            # 2 threads, 3 rounds
#   ROUNDS=5 THREADS=1 scripts/grundy-scaling.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
cargo build --release --quiet --bin gamecount
bin=target/release/gamecount
rounds=${ROUNDS:-3}
threads=${THREADS:-2}
games=${GAMES:-"0.354 grundy"}
out=${OUT:-results/grundy-scaling.csv}
begin_output "$out"
cpu="$(cpu_name)"
commit=$(short_commit)

field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^,\"}]*\).*/\1/p"; }
# The largest log2 N each variant is timed at.
largest() { case $1 in naive) echo 14 ;; bitset) echo 16 ;; *) echo 20 ;; esac; }

echo "game,variant,heaps,threads,median_s,rounds,simd,cpu,date,commit" > "$output_temp"
for game in $games; do
  for log in 10 12 14 16 18 20; do
    heaps=$((1 << log))
    variants=()
    for v in naive bitset sparse parallel blocks; do
      [ "$log" -le "$(largest "$v")" ] && variants+=("$v")
    done
    declare -A times=()
    simd=""
    for _ in $(seq "$rounds"); do
      for v in "${variants[@]}"; do
        line=$("$bin" grundy "$game" --heaps "$heaps" --every-heap --kernel "$v" --threads "$threads" --json 2>/dev/null)
        times[$v]+="$(field seconds <<<"$line") "
        simd=$(field simd <<<"$line")
      done
    done
    for v in "${variants[@]}"; do
      m=$(tr ' ' '\n' <<<"${times[$v]}" | grep . | median)
      printf '%-7s %-9s N=2^%-3s %s s\n' "$game" "$v" "$log" "$m"
      echo "$game,$v,$heaps,$threads,$m,$rounds,$simd,\"$cpu\",$(date -u +%FT%TZ),$commit" >> "$output_temp"
    done
    unset times
  done
done
commit_output
