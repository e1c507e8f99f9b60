#!/usr/bin/env bash
# Builds dcukit's libFuzzer targets (tests/fuzz/fuzz_<name>.cpp) with clang in a separate
# build tree and runs each for a bounded time from its corpus in tests/fuzz/corpus/<name>/.
# CI calls this; locally: scripts/fuzz.sh [seconds per target, default 60] [name...].
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-${FUZZ_SECONDS:-60}}"
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
for n in "${names[@]}"; do
  work="$build/fuzz-work/$n"
  mkdir -p "$work"
  if [ -d "$root/tests/fuzz/corpus/$n" ]; then cp -n "$root/tests/fuzz/corpus/$n"/* "$work"/ 2>/dev/null || true; fi
  echo "fuzz_$n: running for ${seconds}s"
  "$build/bin/fuzz_$n" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$work/" \
    -print_final_stats=1 "$work"
done
