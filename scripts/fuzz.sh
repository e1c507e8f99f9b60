#!/usr/bin/env bash
# Builds dcukit's libFuzzer targets (tests/fuzz/fuzz_<name>.cpp) with clang in a separate
# build tree and runs each for a bounded time from its corpus in tests/fuzz/corpus/<name>/.
# CI calls this; locally: scripts/fuzz.sh [seconds per target, default 60] [name...].
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-${FUZZ_SECONDS:-60}}"
# Inputs up to 256 KiB (FUZZ_MAX_LEN): long lines and deep nesting are what hostile text holds.
max_len="${FUZZ_MAX_LEN:-262144}"
shift || true
build="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
cc="${CC_FUZZ:-clang}"
cxx="${CXX_FUZZ:-clang++}"
if ! command -v "$cxx" >/dev/null; then
  echo "fuzz: $cxx not found; install clang and libclang-rt-dev (scripts/setup.sh --tests)" >&2
  exit 1
fi
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDCUKIT_LINE_TABLES=ON \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
  -DDCUKIT_FUZZ=ON -DDCUKIT_CUDA=OFF -DDCUKIT_HIP=OFF -DDCUKIT_TESTS=ON >/dev/null
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for src in "$root"/tests/fuzz/fuzz_*.cpp; do n=$(basename "$src" .cpp); names+=("${n#fuzz_}"); done
fi
targets=()
for n in "${names[@]}"; do targets+=("fuzz_$n"); done
cmake --build "$build" --target "${targets[@]}"
# The targets run side by side, FUZZ_JOBS at a time (default: one a core): each still gets its
# full time, and the stage takes about seconds x targets / jobs.
jobs="${FUZZ_JOBS:-$(nproc)}"
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
run_one() {  # $1: the target's name; its output goes to $logs/$1.log, its status to $logs/$1.rc
  local n=$1 work="$build/fuzz-work/$1" rc=0
  mkdir -p "$work"
  if [ -d "$root/tests/fuzz/corpus/$n" ]; then cp -n "$root/tests/fuzz/corpus/$n"/* "$work"/ 2>/dev/null || true; fi
  # Targets whose seeds are the tests' own fixtures, copied rather than kept twice.
  case "$n" in
    port_lexer) cp -n "$root"/tests/fixtures/port/*.cu "$work"/ 2>/dev/null || true ;;
    doctor_collect_env) cp -n "$root"/tests/fixtures/doctor/collect_env/*.txt "$work"/ 2>/dev/null || true ;;
  esac
  # Seeds past 64 KiB, made here: one long line (libstdc++'s std::regex once recursed per
  # character and crashed at 30 KB), deep nesting, and a long run of one token.
  head -c 200000 /dev/zero | tr '\0' 'x' >"$work/seed-long-line"
  head -c 100000 /dev/zero | tr '\0' '[' >"$work/seed-deep-brackets"
  { printf 'GPU 0: '; head -c 120000 /dev/zero | tr '\0' '1'; printf '\n'; } >"$work/seed-long-number"
  "$build/bin/fuzz_$n" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$work/" -print_final_stats=1 "$work" >"$logs/$n.log" 2>&1 || rc=$?
  echo "$rc" >"$logs/$n.rc"
}
status=0
report() {  # $1: the target's name, once it has finished
  local n=$1 rc
  rc=$(cat "$logs/$n.rc")
  if [ "$rc" -eq 0 ]; then
    echo "fuzz_$n: ${seconds}s, no crash ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$logs/$n.log" | grep -o '[0-9]*$' || echo '?') runs)"
  else
    echo "fuzz_$n: FAILED (exit $rc); its input is in $build/fuzz-work/$n/" >&2
    tail -80 "$logs/$n.log" >&2
    status=1
  fi
}
running=()
for n in "${names[@]}"; do
  echo "fuzz_$n: running for ${seconds}s"
  run_one "$n" &
  running+=("$n:$!")
  if [ "${#running[@]}" -ge "$jobs" ]; then
    wait "${running[0]#*:}" || true
    report "${running[0]%%:*}"
    running=("${running[@]:1}")
  fi
done
for r in "${running[@]}"; do
  wait "${r#*:}" || true
  report "${r%%:*}"
done
exit $status
