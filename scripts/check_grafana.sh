#!/usr/bin/env bash
# Checks contrib/grafana/*.json against Grafana's own dashboard schema: the TypeScript types of
# the @grafana/schema npm package (pinned by contrib/check's lock), by compiling each dashboard as
# an object literal of type Dashboard with tsc --strict (unknown fields, wrong types and missing
# required fields are errors). A broken copy must then be refused, so that a check that cannot
# fail is caught. (Each panel's queries are run against a real Prometheus by the ops tests.)
# Exit 77 (ctest: skipped) where contrib/check/node_modules is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
check=$PWD/contrib/check
if [ ! -d "$check/node_modules/@grafana/schema" ] || ! command -v node >/dev/null; then
  echo "check_grafana: $check/node_modules/@grafana/schema missing (scripts/setup.sh --tests runs npm ci there); skipped"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$check/node_modules" "$work/node_modules"
compiles() {  # JSON_FILE: the dashboard is a Dashboard
  {
    echo 'import type { Dashboard } from "@grafana/schema";'
    printf 'export const dashboard: Dashboard = '
    cat "$1"
    echo ';'
  } > "$work/dashboard.ts"
  timeout 120 "$work/node_modules/.bin/tsc" --noEmit --strict --target es2020 --module esnext \
    --moduleResolution bundler --skipLibCheck "$work/dashboard.ts"
}
for f in contrib/grafana/*.json; do
  compiles "$f" || { echo "check_grafana: Grafana's schema refuses $f" >&2; exit 1; }
  echo "check_grafana: Grafana's schema accepts $f"
done
# A copy whose first panel has a grid position of the wrong type must be refused.
node -e 'const fs=require("fs");const d=JSON.parse(fs.readFileSync(process.argv[1]));d.panels[0].gridPos="top";
fs.writeFileSync(process.argv[2],JSON.stringify(d));' contrib/grafana/dcukit-fleet.json "$work/broken.json"
if compiles "$work/broken.json" > "$work/out" 2>&1; then
  echo "check_grafana: a broken dashboard was accepted; the check cannot fail" >&2
  exit 1
fi
echo "check_grafana: a broken copy is refused, as it must: $(head -n 1 "$work/out" | cut -c1-160)"
