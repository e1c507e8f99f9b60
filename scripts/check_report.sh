#!/usr/bin/env bash
# `dcukit report` in a browser: the report of docs/results (every dcukit result there) must be
# valid HTML (Debian's tidy), and headless Chromium, opening it from a file with the network
# off (no host name resolves), must draw every
# chart's SVG (each has drawn elements in the DOM it built), take a screenshot, and see the page
# make no request. The request check is shown able to fail: a control page that loads one image
# must be caught. Exit 77 (skipped) where Chromium or tidy is absent (scripts/setup.sh --tests
# installs both).
# Usage: scripts/check_report.sh BIN_DIR SOURCE_DIR
set -uo pipefail
bin="$1/dcukit"
src="$2"
for tool in chromium tidy; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool not found (Debian: apt install chromium tidy); the report's browser check did not run"
    exit 77
  fi
done
work="$(mktemp -d "${TMPDIR:-/tmp}/dcukit-report.XXXXXX")"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" report "$src/docs/results" -o "$work/report.html" --markdown "$work/report.md" --json "$work/report.json" \
  || fail "dcukit report docs/results exited $?"
[ -s "$work/report.md" ] && [ -s "$work/report.json" ] || fail "no Markdown or JSON written"

# tidy: exit 2 is an error in the document (1: warnings only, which HTML5's inline SVG gives).
tidy -q -e "$work/report.html" > "$work/tidy.txt" 2>&1
rc=$?
[ "$rc" -le 1 ] || { cat "$work/tidy.txt"; fail "tidy found errors in the HTML (exit $rc)"; }

# Static: nothing in the page can reach out (no script, link, src or external url).
if grep -Eiq '<script|<link|<iframe|<img|src=|url\(|@import|href="(https?:|//)' "$work/report.html"; then
  fail "the HTML refers to something outside itself"
fi

browse() {  # PAGE NETLOG [EXTRA ARGS...]: the DOM Chromium built, on stdout
  local page="$1" netlog="$2"
  shift 2
  timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --host-resolver-rules="MAP * ~NOTFOUND" \
    --user-data-dir="$work/profile" --log-net-log="$netlog" "$@" \
    "file://$page" 2>/dev/null
}
# A request the page made carries the page's origin (file://, an opaque "null"); Chromium's own
# background requests carry "not an origin".
page_requests() { grep -oE '"initiator": ?"(null|file://[^"]*)"' "$1" | wc -l; }

printf '<!DOCTYPE html><html><head><title>control</title></head><body><img src="http://127.0.0.1:9/x.png" alt="x"></body></html>\n' \
  > "$work/control.html"
browse "$work/control.html" "$work/control-net.json" --dump-dom > /dev/null
[ "$(page_requests "$work/control-net.json")" -gt 0 ] ||
  fail "the request check is blind: a page loading an image showed no request in Chromium's net log"

browse "$work/report.html" "$work/net.json" --dump-dom > "$work/dom.html"
[ -s "$work/dom.html" ] || fail "Chromium produced no DOM for the report"
n=$(page_requests "$work/net.json")
[ "$n" -eq 0 ] || fail "the report made $n request(s) when opened"

# Every <svg> Chromium parsed has drawn elements.
svgs=$(grep -o '<svg' "$work/dom.html" | wc -l)
[ "$svgs" -gt 0 ] || fail "no chart in the report of docs/results"
empty=$(awk 'BEGIN{RS="<svg"} NR>1 { split($0, a, "</svg>"); if (a[1] !~ /<(rect|polyline|circle|line)/) n++ } END{print n+0}' \
  "$work/dom.html")
[ "$empty" -eq 0 ] || fail "$empty of $svgs chart(s) have nothing drawn"

browse "$work/report.html" "$work/net-shot.json" --window-size=1200,4000 --screenshot="$work/shot.png" > /dev/null
size=$(stat -c %s "$work/shot.png" 2>/dev/null || echo 0)
[ "$size" -gt 20000 ] || fail "the screenshot is missing or blank ($size bytes)"
echo "report: $svgs chart(s) drawn, no request, tidy clean, screenshot $size bytes"
