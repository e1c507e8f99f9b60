#!/usr/bin/env bash
# Where a build tree's time went: `slowest.sh build DIR` lists the ten slowest targets (the sum
# of their compile steps) and the ten slowest files of DIR's last Ninja build; `slowest.sh tests
# DIR` the ten slowest tests of DIR's last ctest run. Reads .ninja_log and CTestCostData.txt.
set -euo pipefail
what=${1:?usage: slowest.sh build|tests DIR}
dir=${2:?usage: slowest.sh build|tests DIR}
case "$what" in
  build)
    log="$dir/.ninja_log"
    [ -f "$log" ] || { echo "slowest: $log not found (not a Ninja build tree?)" >&2; exit 1; }
    # .ninja_log: start end mtime output hash, times in ms; a rebuilt output appears again (keep the last).
    echo "== slowest targets to build (s, CPU time summed over their steps)"
    awk -F'\t' 'NR > 1 { t[$4] = ($2 - $1) / 1000 }
      END { for (o in t) { n = o; if (match(o, /[^\/]*\.dir\//)) n = substr(o, RSTART, RLENGTH - 5); s[n] += t[o] }
            for (n in s) printf "%8.1f  %s\n", s[n], n }' "$log" | sort -rn | awk 'NR <= 10'
    echo "== slowest files to build (s)"
    awk -F'\t' 'NR > 1 { t[$4] = ($2 - $1) / 1000 } END { for (o in t) printf "%8.1f  %s\n", t[o], o }' "$log" |
      sort -rn | awk 'NR <= 10'
    ;;
  tests)
    cost="$dir/Testing/Temporary/CTestCostData.txt"
    [ -f "$cost" ] || { echo "slowest: $cost not found (no ctest run in $dir?)" >&2; exit 1; }
    # CTestCostData.txt: "name runs average-seconds" lines, then a "---" line and failed tests.
    echo "== slowest tests (s)"
    awk '$0 == "---" { exit } NF == 3 { printf "%8.2f  %s\n", $3, $1 }' "$cost" | sort -rn | awk 'NR <= 10'
    ;;
  *) echo "slowest: $what: use build or tests" >&2; exit 2 ;;
esac
