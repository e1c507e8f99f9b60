#!/usr/bin/env bash
# Set up, build (both GPU backends where their compilers exist), and run every test stage:
#   1. the ctest suite (unit, CLI, integration, backend exports)
#   2. the same tests under AddressSanitizer and UndefinedBehaviorSanitizer (scripts/sanitize.sh)
#   3. each libFuzzer target for a bounded time (scripts/fuzz.sh; FUZZ_SECONDS, default 45)
#   4. the packages, installed into fresh prefixes and run from there (scripts/package.sh)
# Each stage's wall time is printed at its end and again, all together, when the script stops
# (also when a stage failed), with the ten slowest build steps and tests of the first stage.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${DCUKIT_BUILD_DIR:-build}"
times=()
summary() {
  echo "== test: stage times (s)"
  printf '%s\n' "${times[@]}"
}
trap summary EXIT
stage() {  # stage NAME COMMAND...: runs the command and records its wall time
  local name=$1 start=$SECONDS
  shift
  echo "== test: $name"
  "$@"
  times+=("$(printf '%-12s %5d' "$name" $((SECONDS - start)))")
  echo "== test: $name took $((SECONDS - start)) s"
}
# -Werror; line tables only (-g1, the default): the tests' backtraces keep file and line.
stage setup env DCUKIT_CMAKE_ARGS="-DDCUKIT_WERROR=ON ${DCUKIT_CMAKE_ARGS:-}" scripts/setup.sh --tests
scripts/slowest.sh build "$build"
stage ctest ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 600
scripts/slowest.sh tests "$build"
stage sanitizers scripts/sanitize.sh
stage fuzz scripts/fuzz.sh "${FUZZ_SECONDS:-45}"
stage packages scripts/package.sh
echo "== test: all stages passed"
