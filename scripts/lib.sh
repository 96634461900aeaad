# Shared by the measurement scripts (sourced from the repository root): the CPU and the
# commit that every result row names, and the median of a run's times.

# The CPU as the result rows name it: "MODEL NAME, family F model M".
cpu_name() {
  local name family model
  name=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
  family=$(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
  model=$(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
  echo "$name, family $family model $model"
}

# The short hash of HEAD, or "unknown" outside a git checkout.
short_commit() { git rev-parse --short HEAD 2>/dev/null || echo unknown; }

# The median of the numbers on stdin, one per line (the mean of the middle two for an
# even count).
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Seconds from START to END, two readings of $EPOCHREALTIME (bash's clock: reading it
# starts no process, where a `$(date ...)` around a timed command adds the start of
# `date`, a millisecond or more, to the time measured). Whole microseconds in bash's
# integers: no bc, no awk (mawk's %d stops at 2^31), and either decimal separator.
elapsed_us() { echo $(( ${2/[.,]/} - ${1/[.,]/} )); }
elapsed() { local us; us=$(elapsed_us "$1" "$2"); printf '%d.%06d\n' $((us / 1000000)) $((us % 1000000)); }
