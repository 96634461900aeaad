#!/usr/bin/env bash
# Runs the program and its tests on a CPU with AVX2 but without AVX-512 or
# AVX-VNNI, as most x86 machines are, from any x86-64 machine: under valgrind, whose
# emulated CPU reports AVX2, FMA and BMI2 and none of the later sets, and stops at any
# instruction outside them. On an AVX-512 machine `--simd avx2` runs the AVX2 backend,
# but an AVX-512 instruction that leaked into it would run there too; here it is an
# illegal instruction. The run also checks the dispatch: `auto` must pick `avx2`.
#
#   scripts/avx2-only.sh        # installs valgrind (Debian) when it is missing
#
# Checked: `solve all` and a few octal games against the same binary run natively, the
# library tests (every backend the emulated CPU has against the portable one and the
# references, all answers, the kernels' cross-checks) and the command-line tests, `verify`
# among them. valgrind's `none` tool: about 10 minutes in all; nothing is timed.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(uname -m)" != x86_64 ]; then
  echo "avx2-only: nothing to do on $(uname -m)"
  exit 0
fi
if ! command -v valgrind >/dev/null; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq valgrind
fi
valgrind --version
emulate=(valgrind -q --tool=none --error-exitcode=3)

cargo build --release --quiet --bin gamecount
bin=target/release/gamecount

# The emulated CPU must be an AVX2-only one, or this run proves nothing.
levels=$("${emulate[@]}" "$bin" kernels | sed -n 's/^simd: \(.*\)$/\1/p')
echo "under valgrind: simd $levels"
case "$levels" in
  "avx2 (this CPU runs: portable, avx2)") ;;
  portable*)
    # valgrind shows the host's sets up to AVX2: a host without AVX2 has nothing to check.
    echo "avx2-only: this CPU has no AVX2; nothing to check"
    exit 0 ;;
  *) echo "error: valgrind's CPU is not AVX2-only here ($levels): nothing would be checked" >&2; exit 1 ;;
esac

# The same answers as the native run, on the emulated AVX2-only CPU: the JSON lines
# without the two fields that differ by design (the time and the backend that ran), and
# for the octal games every value, written with --out.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# The JSON answers of a run; its stderr (valgrind's report of an illegal instruction)
# is shown when it fails.
answers() {
  local json
  json=$("$@" --json 2>"$scratch/stderr") || { cat "$scratch/stderr" >&2; return 1; }
  sed -E 's/"(seconds|simd)":[^,}]*,?//g' <<<"$json"
}
# Fails unless the native and emulated answers of "$1" are the same (and not empty).
agree() {
  [ -n "$2" ] && [ "$2" = "$3" ] && return
  printf 'error: %s differs under valgrind:\n%s\nagainst native:\n%s\n' "$1" "$3" "$2" >&2
  exit 1
}
same_answers() {
  agree "$*" "$(answers "$bin" "$@")" "$(answers "${emulate[@]}" "$bin" "$@")"
  echo "ok   $*"
}
same_values() {
  agree "$*" "$(answers "$bin" "$@" --out "$scratch/native")" \
    "$(answers "${emulate[@]}" "$bin" "$@" --out "$scratch/emulated")"
  cmp -s "$scratch/native" "$scratch/emulated" || agree "$* --out" "the native values" "other values"
  echo "ok   $*: the $(wc -l < "$scratch/native") values agree"
}
same_answers solve all
same_values grundy 0.354 --heaps 100000
same_values grundy 0.16 --heaps 100000 --every-heap
same_values grundy grundy --heaps 20000
same_answers solve octal --game 0.137 --heaps 3000 --components 3

# The library tests, their binary started under valgrind. Two tests are left out, and
# both run natively in `cargo test`:
# - one compares `vfnmadd` results bit for bit, and valgrind's emulation gives -0.0
#   where the hardware's fused -(a·b) + c of equal products gives +0.0 (IEEE 754's sum
#   of opposite zeros);
# - one checks that two threads running at once share the octal pipeline's work, and
#   valgrind runs one thread at a time.
echo "== library tests under valgrind"
tests=$(cargo test --profile ci --lib --no-run --message-format=json 2>/dev/null \
  | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | head -n 1)
"${emulate[@]}" "$tests" -q --skip every_backend_matches_the_portable_pairs_and_doubles_lane_by_lane \
  --skip the_second_thread_hands_marks_over

# The command-line tests, which start the binary through GAMECOUNT_TEST_RUNNER: the
# contract on that CPU, and `verify` there (every kernel against the brute-force solvers).
echo "== command-line tests, the binary under valgrind"
GAMECOUNT_TEST_RUNNER="${emulate[*]}" cargo test --profile ci --test cli -q
