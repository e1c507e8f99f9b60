#!/usr/bin/env bash
# Set up, build (both GPU backends where their compilers exist), and run every test stage:
#   1. the ctest suite (unit, CLI, integration, backend exports)
#   2. the same tests under AddressSanitizer and UndefinedBehaviorSanitizer (scripts/sanitize.sh)
#   3. each libFuzzer target for a bounded time (scripts/fuzz.sh; FUZZ_SECONDS, default 45)
#   4. the packages, installed into fresh prefixes and run from there (scripts/package.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
# Line tables only (-g1): the tests' backtraces keep file and line, and the build takes a quarter less.
DCUKIT_CMAKE_ARGS="-DDCUKIT_WERROR=ON -DDCUKIT_LINE_TABLES=ON ${DCUKIT_CMAKE_ARGS:-}" scripts/setup.sh --tests
echo "== test: ctest"
ctest --test-dir "${DCUKIT_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)" --timeout 600
echo "== test: sanitizers"
scripts/sanitize.sh
echo "== test: fuzz"
scripts/fuzz.sh "${FUZZ_SECONDS:-45}"
echo "== test: packages"
scripts/package.sh
echo "== test: all stages passed"
