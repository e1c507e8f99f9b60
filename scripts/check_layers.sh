#!/usr/bin/env bash
# Checks the include rules of docs/architecture.md on a source tree (default: src/), so that a
# change that crosses a layer fails ctest instead of a review:
#   util/                              includes nothing of ours outside util/
#   core/                              util/ and core/ only
#   device/ serving/ telemetry/ stack/ util/ and core/; never each other, a capability or cli/
#   every other folder (a capability: bench plan load port doctor guard patrol exporter ...)
#                                      the layers below and itself; never another capability,
#                                      never flows/
#   flows/                             pipelines across capabilities (report, compare, up, tune):
#                                      the capabilities and every layer below; never cli/ or app/
#   cli/ app/                          anything (cli/ parses and renders, app/ holds main)
# Only quoted includes rooted at src/ ("folder/file.h") are ours; <...> includes are libraries.
# Usage: scripts/check_layers.sh [SRC_DIR]      (exit 0: clean, 1: violations listed)
#        scripts/check_layers.sh --self-test    (plants one violation of each kind in a
#                                                temporary tree and checks each is caught)
set -euo pipefail

middle=" device serving telemetry stack "
flows=" flows "
top=" cli app "

# Prints "FILE: includes "HEADER": WHY" for every include in FILE that its folder may not use.
check_file() {
  local src="$1" file="$2" folder="$3"
  local line target
  while IFS= read -r line; do
    target="${line#*\"}"
    target="${target%%\"*}"
    case "$target" in */*) ;; *) continue ;; esac
    local to="${target%%/*}"
    [ -d "$src/$to" ] || continue
    [ "$to" = "$folder" ] && continue
    local why=""
    if [ "$folder" = util ]; then
      why="util/ includes nothing of ours outside util/"
    elif [ "$folder" = core ]; then
      [ "$to" = util ] || why="core/ includes only util/ and core/"
    elif [[ "$top" == *" $to "* ]]; then
      [[ "$top" == *" $folder "* ]] || why="only app/ and cli/ include cli/ or app/"
    elif [[ "$top" == *" $folder "* ]]; then
      :
    elif [[ "$flows" == *" $folder "* ]]; then
      :  # the floor for pipelines: the capabilities and below (cli/ and app/ are refused above)
    elif [[ "$flows" == *" $to "* ]]; then
      why="only cli/ and app/ include flows/ (pipelines sit above the capabilities and shared services)"
    elif [[ "$middle" == *" $folder "* ]]; then
      [ "$to" = util ] || [ "$to" = core ] ||
        why="$folder/ includes only util/ and core/ (never another shared service, a capability or cli/)"
    else
      [ "$to" = util ] || [ "$to" = core ] || [[ "$middle" == *" $to "* ]] ||
        why="a capability never includes another capability's headers ($folder/ -> $to/)"
    fi
    [ -n "$why" ] && echo "${file#"$src"/}: includes \"$target\": $why"
  done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" || true)
}

# Checks every C/C++/CUDA/HIP file under SRC; prints the violations; returns 1 when there are any.
check_tree() {
  local src="$1" found=0 file rel folder out
  while IFS= read -r -d '' file; do
    rel="${file#"$src"/}"
    case "$rel" in */*) folder="${rel%%/*}" ;; *) continue ;; esac
    out="$(check_file "$src" "$file" "$folder")"
    if [ -n "$out" ]; then
      echo "$out"
      found=1
    fi
  done < <(find "$src" -type f \( -name '*.h' -o -name '*.hpp' -o -name '*.cpp' -o -name '*.cu' -o -name '*.hip' \) -print0 | sort -z)
  return "$found"
}

# Plants each kind of violation in a fresh tree and expects check_tree to name it.
self_test() {
  selftest_dir="$(mktemp -d "${TMPDIR:-/tmp}/check_layers.XXXXXX")"
  trap 'rm -rf "$selftest_dir"' EXIT
  local dir="$selftest_dir"
  mkdir -p "$dir"/{util,core,device,serving,telemetry,bench,plan,doctor,flows,cli}
  local f
  for f in util/result.h core/units.h device/backend.h serving/probe.h telemetry/collect.h \
    bench/run.h plan/run.h doctor/run.h flows/results.h cli/common.h; do
    echo '#pragma once' >"$dir/$f"
  done
  printf '#include "util/result.h"\n#include "core/units.h"\n#include "serving/probe.h"\n' >"$dir/doctor/ok.cpp"
  printf '#include "telemetry/collect.h"\n#include <vector>\n#include "run.h"\n' >>"$dir/doctor/ok.cpp"
  printf '#include "bench/run.h"\n#include "plan/run.h"\n#include "serving/probe.h"\n#include "core/units.h"\n' >"$dir/flows/ok.cpp"
  printf '#include "flows/results.h"\n' >"$dir/cli/ok.cpp"
  if ! check_tree "$dir" >/dev/null; then
    echo "check_layers: self-test: a clean tree was reported" >&2
    check_tree "$dir" >&2 || true
    return 1
  fi
  local cases=(
    'util/bad.h|#include "core/units.h"|util/ includes nothing'
    'core/bad.cpp|#include "device/backend.h"|core/ includes only'
    'core/bad2.cpp|#include "serving/probe.h"|core/ includes only'
    'core/bad3.cpp|#include "bench/run.h"|core/ includes only'
    'serving/bad.cpp|#include "plan/run.h"|includes only util/ and core/'
    'telemetry/bad.cpp|#include "device/backend.h"|includes only util/ and core/'
    'bench/bad.cpp|#include "plan/run.h"|(bench/ -> plan/)'
    'doctor/bad.cpp|  #  include "bench/run.h"|(doctor/ -> bench/)'
    'plan/bad.cpp|#include "cli/common.h"|only app/ and cli/'
    'bench/bad.cpp|#include "flows/results.h"|only cli/ and app/ include flows/'
    'telemetry/bad.cpp|#include "flows/results.h"|only cli/ and app/ include flows/'
    'flows/bad.cpp|#include "cli/common.h"|only app/ and cli/'
  )
  local c path text expect got failed=0
  for c in "${cases[@]}"; do
    IFS='|' read -r path text expect <<<"$c"
    echo "$text" >"$dir/$path"
    got="$(check_tree "$dir" || true)"
    if [[ "$got" != *"$path"*"$expect"* ]]; then
      echo "check_layers: self-test: '$text' in $path was not reported as '$expect'; got: $got" >&2
      failed=1
    fi
    rm "$dir/$path"
  done
  if [ "$failed" = 0 ]; then echo "check_layers: self-test passed (${#cases[@]} planted violations caught)"; fi
  return "$failed"
}

if [ "${1:-}" = "--self-test" ]; then
  self_test
  exit $?
fi
src="${1:-$(cd "$(dirname "$0")/.." && pwd)/src}"
if [ ! -d "$src" ]; then
  echo "check_layers: $src is not a folder; pass the source tree (src/)" >&2
  exit 2
fi
if check_tree "$src"; then
  echo "check_layers: $src keeps the layers"
else
  echo "check_layers: the includes above cross a layer; see docs/architecture.md for what each folder may include" >&2
  exit 1
fi
