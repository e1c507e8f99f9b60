#!/usr/bin/env bash
# Set up, build (both GPU backends where their compilers exist), and run every test: the
# ctest suite, then the SSE reader's fuzz target for a bounded time.
set -euo pipefail
cd "$(dirname "$0")/.."
DCUKIT_CMAKE_ARGS="-DDCUKIT_WERROR=ON ${DCUKIT_CMAKE_ARGS:-}" scripts/setup.sh
ctest --test-dir "${DCUKIT_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)" --timeout 600
if [ -x scripts/fuzz.sh ]; then scripts/fuzz.sh; fi
