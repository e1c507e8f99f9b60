#!/usr/bin/env bash
# Builds dcukit's libFuzzer targets with clang in a separate build tree and runs each for a
# bounded time. CI calls this; locally: scripts/fuzz.sh [seconds per target, default 60].
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-${FUZZ_SECONDS:-60}}"
build="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
cc="${CC_FUZZ:-clang}"
cxx="${CXX_FUZZ:-clang++}"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
  -DDCUKIT_FUZZ=ON -DDCUKIT_CUDA=OFF -DDCUKIT_HIP=OFF >/dev/null
cmake --build "$build" --target fuzz_sse
work="$build/fuzz-work/sse"
mkdir -p "$work"
cp -n "$root"/tests/fuzz/corpus/sse/* "$work"/ 2>/dev/null || true
echo "fuzz_sse: running for ${seconds}s"
"$build/bin/fuzz_sse" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 "$work"
