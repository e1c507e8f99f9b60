#!/usr/bin/env bash
# The main job: set up, build, and run `dcukit bench` (arguments are passed on), writing the
# JSON and Markdown reports to ./results/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
mkdir -p results
stamp=$(date -u +%Y%m%dT%H%M%SZ)
exec "${DCUKIT_BUILD_DIR:-build}/bin/dcukit" bench --json "results/bench-$stamp.json" --markdown "results/bench-$stamp.md" "$@"
