#!/usr/bin/env bash
# Sets up a Debian 12 or Ubuntu 22.04/24.04 machine to build dcukit, then configures and
# builds it in ./build. Idempotent: installs only missing packages, reuses the build tree.
# Without arguments it builds what the main job runs: the binary and the GPU backends.
# `--tests` also builds the tests and installs what the test stages use (clang for the fuzz
# targets, shellcheck, Prometheus' promtool and server, systemd-analyze, the packaging tools,
# npm for the Kubernetes schema check, zsh for its completion's test, headless Chromium and tidy
# for the report's browser check, Slurm and munge for the health check's test under a real Slurm).
# The time taken by the installation and by the build is printed, each apart.
# GPU toolkits are not installed: the CUDA backend builds where nvcc is found (PATH or
# /usr/local/cuda), the HIP backend where hipcc is (Debian's `hipcc` package, or DTK/ROCm).
set -euo pipefail
cd "$(dirname "$0")/.."

required=(build-essential cmake ninja-build pkg-config libfmt-dev nlohmann-json3-dev libcli11-dev
          libcurl4-openssl-dev libopenblas-dev libnuma-dev libgtest-dev libcpp-httplib-dev libarchive-dev
          libpugixml-dev libre2-dev)
# Optional: Debian's HIP compiler (builds the HIP backend), ccache (rebuilds and other clones).
optional=(hipcc libamdhip64-dev ccache)
tests=OFF
if [ "${1:-}" = "--tests" ]; then
  tests=ON
  optional+=(clang libclang-rt-dev shellcheck prometheus systemd rpm dpkg-dev file zsh openmpi-bin libopenmpi-dev chromium tidy slurm-wlm munge)
  # npm from Debian only where no other node (e.g. NodeSource's, which bundles npm) is installed.
  command -v npm >/dev/null || optional+=(npm)
fi
start=$SECONDS

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${required[@]}" "${optional[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" >/dev/null || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if ! command -v apt-get >/dev/null; then
    echo "setup: apt-get not found; install the equivalents of: ${missing[*]}" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  installable=()
  for p in "${missing[@]}"; do
    if apt-cache show "$p" >/dev/null 2>&1; then installable+=("$p")
    elif printf '%s\n' "${required[@]}" | grep -x "$p" >/dev/null; then
      echo "setup: required package $p is not available from apt on this system" >&2; exit 1
    else echo "setup: optional package $p is not available here; continuing without it"; fi
  done
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${installable[@]}" >/dev/null
fi
# The Kubernetes and Grafana schema checks (scripts/check_k8s.sh, check_grafana.sh): npm packages
# pinned by contrib/check's lock.
if [ "$tests" = ON ]; then
  if command -v npm >/dev/null; then
    (cd contrib/check && timeout 600 npm ci --no-audit --no-fund --loglevel=error >/dev/null) ||
      echo "setup: npm ci in contrib/check failed; the Kubernetes schema check will be skipped"
  else
    echo "setup: npm not found (Debian: apt install npm); the Kubernetes schema check will be skipped"
  fi
fi
echo "setup: packages ready in $((SECONDS - start)) s"

# nvcc from the usual place when it is not on PATH.
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi

BUILD_DIR="${DCUKIT_BUILD_DIR:-build}"
# DCUKIT_CMAKE_ARGS holds several -D options: split on spaces on purpose.
read -r -a extra <<<"${DCUKIT_CMAKE_ARGS:-}"
start=$SECONDS
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="${DCUKIT_BUILD_TYPE:-RelWithDebInfo}" -DDCUKIT_TESTS="$tests" \
  "${extra[@]}" >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
echo "setup: configured and built $BUILD_DIR in $((SECONDS - start)) s (tests: $tests)"
