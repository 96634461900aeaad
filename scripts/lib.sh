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

# Cleanups that run however the script ends: at its exit, on an error under `set -e`, or
# on SIGINT, SIGTERM or SIGHUP (after which the script ends by that signal, so that its
# caller sees how it ended). `at_exit 'COMMAND'` adds one; they run in order.
_at_exit=()
at_exit() { _at_exit+=("$1"); }
_run_at_exit() {
  local command
  for command in "${_at_exit[@]}"; do eval "$command" || true; done
  _at_exit=()
}
trap _run_at_exit EXIT
for _signal in INT TERM HUP; do
  # shellcheck disable=SC2064 # the signal's name is meant to be expanded now
  trap "_run_at_exit; trap - $_signal; kill -$_signal \$\$" "$_signal"
done
unset _signal

# check_output FILE: refuses, with one line and status 2, a FILE that is neither missing,
# a regular file nor a symlink to one; prints the file to replace (where a symlink
# points, or FILE itself).
check_output() {
  local out=$1 target=$1
  if [[ -L $out ]] && ! target=$(readlink -e -- "$out"); then
    echo "error: $out is a symlink to a file that does not exist; it is left as it is" >&2
    exit 2
  fi
  if [[ -e $target && ! -f $target ]]; then
    echo "error: $out is not a regular file; it is left as it is" >&2
    exit 2
  fi
  printf '%s\n' "$target"
}

# begin_output [--append] FILE: the rows go to "$output_temp", a temporary file beside
# FILE, and commit_output renames it over FILE once they are all written. So an
# interrupted or failed run leaves FILE as it was and leaves no temporary file behind.
# FILE may be missing, a regular file or a symlink to one (the file it points to is
# replaced, keeping its mode); anything else is refused (check_output), before any
# measurement. --append starts from FILE's rows. One output at a time.
begin_output() {
  local append=0 target dir
  if [[ $1 == --append ]]; then append=1; shift; fi
  target=$(check_output "$1") || exit 2
  dir=$(dirname -- "$target")
  mkdir -p -- "$dir"
  output_target=$target
  output_temp=
  at_exit '[[ -z $output_temp ]] || rm -f -- "$output_temp"'
  output_temp=$(mktemp -- "$dir/.gc.XXXXXX.tmp")
  if [[ -f $target ]]; then
    chmod --reference="$target" -- "$output_temp"
    if ((append)); then cat -- "$target" >"$output_temp"; fi
  else
    chmod "$(printf '%o' $((0666 & ~$(umask))))" -- "$output_temp"
  fi
}

# Renames the rows of begin_output over its FILE.
commit_output() {
  mv -f -- "$output_temp" "$output_target"
  output_temp=
}
