#!/usr/bin/env bash
# Counts the instructions an aarch64 build executes for one `solve`, under qemu-user: the
# NEON counterpart of `valgrind --tool=callgrind` for comparing two versions of a kernel
# when no ARM machine is at hand. Deterministic, and not a speed: qemu runs each
# instruction alone (`-singlestep`) and logs it (`-d exec,nochain`); the log is counted as
# it streams (about 1 GB for f(1000)), never written to disk.
#
#   scripts/aarch64-count.sh kayles --pins 1000 --simd neon --threads 1
#
# The count covers the whole process; subtracting the count of a tiny instance of the
# same problem (e.g. `--pins 40`) leaves the kernel's share. Installs the cross tools when
# they are missing (`scripts/aarch64-tools.sh`).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -eq 0 ]; then
  echo "usage: scripts/aarch64-count.sh PROBLEM [SOLVE OPTIONS...]" >&2
  exit 2
fi
bash scripts/aarch64-tools.sh >/dev/null
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
cargo build --release --quiet --target aarch64-unknown-linux-gnu --bin gamecount
bin=target/aarch64-unknown-linux-gnu/release/gamecount

# The answer on stdout; the header (which names the backend that ran) and qemu's log on
# stderr: the log's lines are counted, the program's own passed on.
answer=$(mktemp)
trap 'rm -f "$answer"' EXIT
count=$(qemu-aarch64 -cpu cortex-a53 -L /usr/aarch64-linux-gnu -singlestep -d exec,nochain \
  "$bin" solve "$@" 2>&1 >"$answer" | awk '/^Trace/ { n++; next } { print > "/dev/stderr" } END { print n + 0 }')
echo "solve $*: $(cat "$answer"), $count instructions executed"
