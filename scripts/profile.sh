#!/usr/bin/env bash
# Profiles one `gamecount solve` run with perf and writes a flame graph.
#
#   scripts/profile.sh PROBLEM [solve options...]
#   scripts/profile.sh cards                                  # the Project Euler instance
#   scripts/profile.sh stones --limit 5000 --threads 1
#
# Writes into results/profiles/:
#   PROBLEM.svg       flame graph (inferno) of the folded stacks
#   PROBLEM.folded    the folded stacks themselves
#   PROBLEM.top.txt   the top of `perf report` (self time, by symbol)
#
# Hardware counters are usually unavailable in virtual machines like ours, so samples
# come from the software event cpu-clock; the script says which it could use.
# Environment: PROFILE_FREQ (samples per second, default 4999).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

problem=${1:-}
if [[ -z "$problem" || "$problem" == -h || "$problem" == --help ]]; then
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
shift
if [[ $# -eq 0 ]]; then
    case "$problem" in
        kayles) set -- --pins 1000 ;;
        stones) set -- --limit 1000 ;;
        cards) set -- --cards 10000000 --suits 10000000 ;;
        coins) set -- --stacks 9898 ;;
        *) echo "error: unknown problem '$problem' (kayles, stones, cards, coins)" >&2; exit 2 ;;
    esac
fi

# --- tools: perf from the distribution, inferno from crates.io -----------------------
if ! command -v perf >/dev/null 2>&1; then
    echo "perf is missing; installing Debian's linux-perf" >&2
    if ! { apt-get install -y linux-perf >/dev/null 2>&1 || sudo apt-get install -y linux-perf >/dev/null 2>&1; }; then
        echo "error: could not install perf: install the package linux-perf (Debian) and rerun" >&2
        exit 1
    fi
fi
export PATH="$HOME/.cargo/bin:$PATH"
if ! command -v inferno-flamegraph >/dev/null 2>&1; then
    echo "inferno (flame graphs) is missing; installing it from crates.io" >&2
    cargo install --locked inferno >/dev/null 2>&1 || {
        echo "error: 'cargo install inferno' failed: install inferno (crates.io) and rerun" >&2
        exit 1
    }
fi

# --- build with full debug info, same optimisation as release --------------------------
cargo build --profile profiling --quiet
binary=target/profiling/gamecount

event=cpu-clock
if perf stat -e cycles -x, true 2>&1 | grep -qiE "not supported|not counted|<not"; then
    echo "hardware counters are not available here (virtual machine): sampling the software event cpu-clock" >&2
else
    echo "hardware counters are available, but cpu-clock is used for comparable profiles across machines" >&2
fi

out=results/profiles
mkdir -p "$out"
for name in folded svg top.txt; do check_output "$out/$problem.$name" >/dev/null; done
data=
at_exit '[[ -z $data ]] || rm -f -- "$data" "$data.old"'
data=$(mktemp /tmp/gamecount-perf.XXXXXX)

freq=${PROFILE_FREQ:-4999}
echo "perf record -e $event -F $freq: $binary solve $problem $*" >&2
perf record -q -e "$event" -F "$freq" --call-graph dwarf,16384 -o "$data" -- "$binary" solve "$problem" "$@"

# Each file is replaced whole (scripts/lib.sh, begin_output).
begin_output "$out/$problem.folded"
perf script -i "$data" 2>/dev/null | inferno-collapse-perf > "$output_temp"
commit_output
begin_output "$out/$problem.svg"
inferno-flamegraph --title "gamecount solve $problem $*" < "$out/$problem.folded" > "$output_temp"
commit_output
begin_output "$out/$problem.top.txt"
{
    echo "# gamecount solve $problem $*"
    echo "# $("$binary" --version) · $(git rev-parse --short HEAD 2>/dev/null || echo unknown) · $(date -u +%Y-%m-%dT%H:%MZ) · event $event"
    perf report -i "$data" --stdio --no-children -g none --percent-limit 0.5 --sort symbol 2>/dev/null \
        | grep -v "^$" | grep -v "^#" | grep "%" | sed "s/ *- *- *$//" | head -40
} > "$output_temp"
commit_output

echo "wrote $out/$problem.svg, $out/$problem.folded, $out/$problem.top.txt" >&2
