#!/usr/bin/env bash
# `dcukit stress` on a GPU, in two device-tool calls of under ten minutes each (PHASE=levels, then
# PHASE=compare). Expects .devcarry/stress/{bin/dcukit,lib/dcukit/libdcukit_cuda.so}, the host
# libraries dcukit links in .devcarry/libs.tar.xz, and gpu-burn's source in .devcarry/gpu-burn;
# writes $OUT/PHASE.tar.gz (the files of $OUT/r, which stay there when the call is cut short).
#   levels:  versions; bench's GEMM at the sizes and precisions stress runs; stress level 2; stress
#            level 3 for 200 s, each with its JSON and telemetry CSV.
#   compare: gpu-burn built here from its source, beside stress's GEMM at the same precision, size
#            and time, with dcukit telemetry watching gpu-burn; then stress's GEMM with telemetry
#            on and off, alternated, for the watch's cost.
set -uo pipefail
PHASE=${PHASE:-levels}
SECS=${SECS:-60}
TOP=${OUT:-/tmp/out}
OUT=$TOP/r
mkdir -p "$OUT" /tmp/devlibs
tar -xJf .devcarry/libs.tar.xz -C /tmp/devlibs
export LD_LIBRARY_PATH=/tmp/devlibs:${LD_LIBRARY_PATH:-}
B=.devcarry/stress/bin/dcukit
log() { echo "=== $* ($(date -u +%T))"; }

if [ "$PHASE" = levels ]; then
  log versions
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.max.sm,power.limit,temperature.gpu --format=csv
  nvcc --version | tail -1
  $B --version
  log "bench gemm"
  timeout 120 $B bench -q --only gemm --precisions bf16,tf32,fp32 --sizes 8192 --json "$OUT/bench-gemm.json" \
    > "$OUT/bench-gemm.txt" 2>&1
  echo "bench rc=$?"; grep -E "bf16|tf32|fp32" "$OUT/bench-gemm.txt" | head
  log "stress level 2"
  timeout 240 $B stress --level 2 --progress plain --json "$OUT/level2.json" --csv "$OUT/level2.csv" \
    > "$OUT/level2.txt" 2>&1
  echo "level 2 rc=$?"; cat "$OUT/level2.txt"
  log "stress level 3, 200 s"
  timeout 300 $B stress --level 3 --duration 200 --progress plain --json "$OUT/level3.json" --csv "$OUT/level3.csv" \
    > "$OUT/level3.txt" 2>&1
  echo "level 3 rc=$?"; cat "$OUT/level3.txt"
else
  log "build gpu-burn"
  cp -r .devcarry/gpu-burn /tmp/gpu-burn && make -s -C /tmp/gpu-burn COMPUTE=90 > "$OUT/gpu-burn-build.txt" 2>&1
  echo "gpu-burn build rc=$?"; tail -3 "$OUT/gpu-burn-build.txt"
  for mode in fp32 tf32; do
    flag=""; [ "$mode" = tf32 ] && flag="-tc"
    log "gpu-burn $flag $SECS s"
    $B telemetry --watch 1 --csv > "$OUT/gpu-burn-$mode-telemetry.csv" 2>/dev/null &
    TPID=$!
    (cd /tmp/gpu-burn && timeout $((SECS + 60)) ./gpu_burn $flag "$SECS") > "$OUT/gpu-burn-$mode.txt" 2>&1
    echo "gpu-burn rc=$?"
    kill -INT "$TPID"; wait "$TPID" 2>/dev/null
    tr '\r' '\n' < "$OUT/gpu-burn-$mode.txt" | grep -E "Gflop/s" | tail -2; tail -3 "$OUT/gpu-burn-$mode.txt"
    log "stress gemm $mode $SECS s"
    timeout $((SECS + 60)) $B stress --only gemm --precision "$mode" --duration "$SECS" --json "$OUT/stress-$mode.json" \
      --csv "$OUT/stress-$mode.csv" > "$OUT/stress-$mode.txt" 2>&1
    echo "stress rc=$?"; grep -E "gemm" "$OUT/stress-$mode.txt" | head -3
  done
  for round in 1 2; do
    for every in 1 0; do
      log "stress gemm bf16 ${WATCH_SECS:-35} s, --sample-every $every (round $round)"
      timeout 120 $B stress --only gemm --precision bf16 --duration "${WATCH_SECS:-35}" --sample-every "$every" \
        --json "$OUT/watch-$every-$round.json" > /dev/null 2>&1
      echo "rc=$?"
    done
  done
  log "stress level 3, ${LEVEL3_SECS:-110} s (memtest and GEMM as changed since the levels phase)"
  timeout 200 $B stress --level 3 --duration "${LEVEL3_SECS:-110}" --progress plain --json "$OUT/level3b.json" \
    --csv "$OUT/level3b.csv" > "$OUT/level3b.txt" 2>&1
  echo "level 3 rc=$?"; tail -14 "$OUT/level3b.txt"
  for f in "$OUT"/watch-*.json; do
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); c=d['devices'][0]['checks'][0]; print(sys.argv[1].split('/')[-1], c['rate'])" "$f"
  done
fi
log finished
tar -czf "$TOP/$PHASE.tar.gz" -C "$TOP" r && rm -rf "$OUT"
