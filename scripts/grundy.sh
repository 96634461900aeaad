#!/usr/bin/env bash
# Times `gamecount grundy` on the games of the README: the four checkpoints and 0.354
# certified (`--until-periodic`), and 0.16, 0.354 and Grundy's game at fixed sizes, on each
# kernel that applies there (0.16 to 10^6 both with every heap computed and by default,
# which copies the heaps past its certified period); fresh processes, the runs of one row
# alternated with the other rows of its round, the median and the minimum of the compute
# time the binary reports. Writes results/grundy.csv, every row naming the CPU and the
# commit.
#
#   scripts/grundy.sh               # 2 threads, 7 rounds (3 for the long rows)
#   ROUNDS=11 scripts/grundy.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
cargo build --release --quiet --bin gamecount
bin=target/release/gamecount
rounds=${ROUNDS:-7}
long_rounds=${LONG_ROUNDS:-3}
threads=${THREADS:-2}
out=${OUT:-results/grundy.csv}
begin_output "$out"
cpu="$(cpu_name)"
commit=$(short_commit)

# game|arguments|kernels (empty: the default)|long
rows=(
  "0.07|--until-periodic||"
  "0.77|--until-periodic||"
  "0.137|--until-periodic||"
  "0.156|--until-periodic||"
  "0.16|--heaps 65536|bitset sparse parallel blocks|"
  "0.16|--heaps 1000000 --every-heap|sparse parallel blocks|long"
  "0.16|--heaps 1000000||long"
  "0.16|--until-periodic|sparse blocks|long"
  "0.354|--heaps 1000000|sparse parallel blocks|long"
  "0.354|--until-periodic||long"
  "grundy|--heaps 100000|sparse parallel blocks|long"
  "grundy|--heaps 1000000||long"
)

field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^,\"}]*\).*/\1/p"; }
stats() { sort -g | awk '{ v[NR] = $1 } END { printf "%s,%s", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[1] }'; }

declare -A times=() lines=()
keys=()
for row in "${rows[@]}"; do
  IFS='|' read -r game args kernels long <<<"$row"
  for kernel in ${kernels:-default}; do keys+=("$game|$args|$kernel|$long"); done
done
for round in $(seq "$rounds"); do
  for key in "${keys[@]}"; do
    IFS='|' read -r game args kernel long <<<"$key"
    if [ -n "$long" ] && [ "$round" -gt "$long_rounds" ]; then continue; fi
    choice=()
    [ "$kernel" = default ] || choice=(--kernel "$kernel")
    # shellcheck disable=SC2086 # the arguments are words on purpose
    line=$("$bin" grundy "$game" $args "${choice[@]}" --threads "$threads" --json 2>/dev/null)
    times[$key]+="$(field seconds <<<"$line") "
    lines[$key]=$line
  done
done

echo "game,arguments,kernel,threads,heaps,preperiod,period,max,max_at,median_s,min_s,rounds,simd,cpu,date,commit" > "$output_temp"
for key in "${keys[@]}"; do
  IFS='|' read -r game args kernel long <<<"$key"
  line=${lines[$key]}
  s=$(tr ' ' '\n' <<<"${times[$key]}" | grep . | stats)
  n=$(tr ' ' '\n' <<<"${times[$key]}" | grep -c .)
  echo "$game,$args,$(field kernel <<<"$line"),$threads,$(field heaps <<<"$line"),$(field preperiod <<<"$line"),$(field period <<<"$line"),$(field max <<<"$line"),$(field max_at <<<"$line"),$s,$n,$(field simd <<<"$line"),\"$cpu\",$(date -u +%FT%TZ),$commit" >> "$output_temp"
  printf '%-7s %-18s %-9s median,min %s s\n' "$game" "$args" "$(field kernel <<<"$line")" "$s"
done
commit_output
