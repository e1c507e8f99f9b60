#!/usr/bin/env bash
# One device-tool call on an H200: self-test, STREAM variants side by side, the full suite, the
# quick suite's wall time, and PyTorch's figures for comparison. Expects build-dev/ (bin, lib)
# and .devcarry/libs.tar.xz (the host libraries dcukit links) carried along; writes to $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT/r" /tmp/devlibs
tar -xJf .devcarry/libs.tar.xz -C /tmp/devlibs
export LD_LIBRARY_PATH=/tmp/devlibs:${LD_LIBRARY_PATH:-}
B=build-dev/bin/dcukit
log() { echo "=== $* ($(date -u +%T))"; }
{
  log versions
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id,pcie.link.gen.current,pcie.link.width.current,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  nvcc --version | tail -1; python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'
  ls /sys/bus/pci/devices/ | head -3; cat /sys/bus/pci/devices/*/current_link_speed 2>/dev/null | sort | uniq -c
  nproc; numactl -H 2>/dev/null | head -3
  $B bench --list-backends
} > "$OUT/r/env.txt" 2>&1
cat "$OUT/r/env.txt"
log torch; timeout 150 python3 scripts/device/torch_compare.py "$OUT/r/torch.json" > /dev/null 2> "$OUT/r/torch.err"; echo "torch rc=$?"; tail -3 "$OUT/r/torch.err"
log selftest; timeout 120 build-dev/bin/dcukit_gpu_selftest > "$OUT/r/selftest.txt" 2>&1; echo "selftest rc=$?"; tail -25 "$OUT/r/selftest.txt"
for v in ${VARIANTS:-plain nt unroll4 unroll4_plain l2pf flat}; do
  log "stream variant $v"
  DCUKIT_STREAM_VARIANT=$v timeout 90 $B bench -q --only memory --memory-sizes 4GiB --stream-types fp64,fp32 --iterations 50 --json "$OUT/r/mem-$v.json" > "$OUT/r/mem-$v.txt" 2>&1
  grep -E "^(d2d|copy|scale|add|triad|dot)" "$OUT/r/mem-$v.txt"
done
log "quick suite"; /usr/bin/time -f "quick suite wall %e s" timeout 200 $B bench -q --json "$OUT/r/h200-quick.json" > "$OUT/r/h200-quick.txt" 2>&1; tail -3 "$OUT/r/h200-quick.txt"
log "full suite"; timeout 300 $B bench -q --suite full --json "$OUT/r/h200.json" --markdown "$OUT/r/h200.md" > "$OUT/r/h200.txt" 2>&1; echo "full rc=$?"; cat "$OUT/r/h200.txt"
log "plan on this host's card"; timeout 60 $B plan --model tests/fixtures/models/qwen3-8b > "$OUT/r/plan.txt" 2>&1; echo "plan rc=$?"; head -30 "$OUT/r/plan.txt"
tar -czf "$OUT/results.tar.gz" -C "$OUT" r
log "done"
