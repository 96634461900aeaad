#!/usr/bin/env bash
# Measures this machine's limits with the project's own code: DRAM bandwidth (read, and
# the in-place read+write of a butterfly pass) and modular-multiplication throughput,
# for 1 thread and all threads, and what the first write to a fresh page costs. Writes
# results/roofline.csv; results/README.md (written by scripts/bench.sh) compares each
# kernel with these limits.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bins
target/release/gamecount-lab roofline --out results/roofline.csv
