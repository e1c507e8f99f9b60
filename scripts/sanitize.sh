#!/usr/bin/env bash
# The sanitizer stage of CI: builds the host code with AddressSanitizer and
# UndefinedBehaviorSanitizer (float-cast-overflow included) in build-asan, runs the unit and
# integration tests, and fails on any report, also one from a child process (the dcukit binary
# the integration tests drive): each process writes its reports to a log file, and any such file
# fails the run. Warnings are not errors here: GCC's sanitizer builds warn falsely
# (-Wmaybe-uninitialized inside libstdc++); the -Werror build is the first stage.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${SANITIZE_BUILD_DIR:-build-asan}"
# -O0 and line tables only: reports keep file and line. With UBSan's checks the optimizer works
# hard: src/doctor/bundle.cpp compiled in 23 s at -Og and 16 s at -O0 (docs/results/ci-time.md).
flags="-O0 -g1 -DNDEBUG"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDCUKIT_SANITIZE=ON -DDCUKIT_WERROR=OFF \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" \
  -DDCUKIT_CUDA=OFF -DDCUKIT_HIP=OFF >/dev/null
cmake --build "$build" -j "$(nproc)"
scripts/slowest.sh build "$build"
logs=$(mktemp -d)
export ASAN_OPTIONS="log_path=$logs/asan:detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="log_path=$logs/ubsan:print_stacktrace=1:halt_on_error=1"
status=0
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 900 || status=$?
scripts/slowest.sh tests "$build" || true
if compgen -G "$logs/*" >/dev/null; then
  echo "sanitize: reports were written:" >&2
  for f in "$logs"/*; do echo "== $f" >&2; head -60 "$f" >&2; done
  status=1
fi
rm -rf "$logs"
exit $status
