#!/usr/bin/env bash
# One device-tool call for the operations commands on an H200: `dcukit exporter` scraped once a
# second beside `nvidia-smi --query-gpu` while `dcukit bench` loads the card, `telemetry` beside
# nvidia-smi, `doctor` with the host's real PyTorch and its smoke test, and `patrol`. Expects
# .devcarry/ops/{bin/dcukit,lib/dcukit/libdcukit_cuda.so} and .devcarry/libs.tar.xz; writes $OUT/r.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT/r" /tmp/devlibs
tar -xJf .devcarry/libs.tar.xz -C /tmp/devlibs
export LD_LIBRARY_PATH=/tmp/devlibs:${LD_LIBRARY_PATH:-}
B=.devcarry/ops/bin/dcukit
R=$OUT/r
log() { echo "=== $* ($(date -u +%T))"; }
# One scrape with a deadline; python3 because the image may lack curl.
scrape() { python3 -c 'import sys,urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=3).read().decode())' "$1"; }

log "telemetry at rest"; timeout 30 $B telemetry > "$R/telemetry.txt" 2>&1; echo "telemetry rc=$?"; cat "$R/telemetry.txt"
nvidia-smi -q > "$R/nvidia-smi-q.txt" 2>&1
log "doctor"; timeout 120 $B doctor --json > "$R/doctor.json" 2> "$R/doctor.err"; echo "doctor rc=$?"
timeout 120 $B doctor > "$R/doctor.txt" 2>&1; echo "doctor (text) rc=$?"; cat "$R/doctor.txt"
log "patrol"; timeout 60 $B patrol -v > "$R/patrol.txt" 2>&1; echo "patrol rc=$?"; cat "$R/patrol.txt"

log "exporter beside nvidia-smi under load"
$B exporter --listen 127.0.0.1:9400 > "$R/exporter.log" 2>&1 &
EPID=$!
sleep 2
scrape http://127.0.0.1:9400/metrics > "$R/exporter-rest.prom"; echo "first scrape rc=$?"
timeout 200 $B telemetry --watch 1 --csv > "$R/telemetry-watch.csv" 2> "$R/telemetry.err" &
TPID=$!
timeout 200 nvidia-smi --query-gpu=timestamp,temperature.gpu,power.draw,power.limit,utilization.gpu,memory.used,memory.total,clocks.sm,pcie.link.gen.current,pcie.link.width.current --format=csv,nounits -lms 1000 > "$R/nvsmi-watch.csv" 2>&1 &
NPID=$!
(
  for _ in $(seq 1 150); do
    printf '### %s\n' "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)"
    scrape http://127.0.0.1:9400/metrics | grep -E '^dcukit_gpu_(temperature_celsius|power_watts|busy_ratio|memory_used_bytes|sclk_hz)\{' || echo "scrape failed"
    sleep 1
  done
) > "$R/exporter-scrapes.txt" &
SPID=$!
timeout 120 $B bench -q --only gemm,memory --json "$R/bench.json" > "$R/bench.txt" 2>&1; echo "bench rc=$?"
sleep 3
kill "$SPID" 2>/dev/null; kill -INT "$TPID" "$NPID" 2>/dev/null; wait "$TPID" "$NPID" 2>/dev/null
scrape http://127.0.0.1:9400/metrics > "$R/exporter-end.prom"
kill -TERM "$EPID"; wait "$EPID"; echo "exporter rc=$?"
echo "scrapes $(grep -c '^###' "$R/exporter-scrapes.txt"), failed $(grep -c 'scrape failed' "$R/exporter-scrapes.txt")"
grep -E '^dcukit_exporter|^dcukit_gpu_(temperature|power|memory)' "$R/exporter-end.prom" | head -20
tar -czf "$OUT/results.tar.gz" -C "$OUT" r
log "done"
