#!/usr/bin/env bash
# One GPU, one device-tool call: `dcukit bench --only p2p` (copies, kernel reads and the pointer-
# chase latency of the device with itself), the collectives through the image's NCCL, the card's
# `nvidia-smi topo -m`, and stress's fp32 GEMM beside gpu-burn's for SECS seconds each.
# Expects .devcarry/stress/{bin/dcukit,lib/dcukit/libdcukit_cuda.so}, .devcarry/libs.tar.xz and
# gpu-burn's source in .devcarry/gpu-burn. Writes its files to $OUT/r.
set -uo pipefail
TOP=${OUT:-/tmp/out}
OUT=$TOP/r
SECS=${SECS:-50}
mkdir -p "$OUT" /tmp/devlibs
tar -xJf .devcarry/libs.tar.xz -C /tmp/devlibs
export LD_LIBRARY_PATH=/tmp/devlibs:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0  # never NVLink multicast on shared machines
B=.devcarry/stress/bin/dcukit
log() { echo "=== $* ($(date -u +%T))"; }

log versions
nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.max.sm,power.limit --format=csv
$B --version
nvidia-smi topo -m > "$OUT/topo-m.txt" 2>&1; cat "$OUT/topo-m.txt"
NCCL_LIB=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null)
export DCUKIT_NCCL_LIBRARY=$NCCL_LIB/libnccl.so.2

log "bench p2p"
timeout 200 $B bench -q --only p2p --json "$OUT/p2p.json" > "$OUT/p2p.txt" 2>&1
echo "p2p rc=$?"; cat "$OUT/p2p.txt"
log "bench collectives"
timeout 200 $B bench -q --only collectives --collective-sizes 1MiB:256MiB:16 --json "$OUT/coll.json" \
  > "$OUT/coll.txt" 2>&1
echo "collectives rc=$?"; grep -E "all_reduce|all_gather|busbw|average" "$OUT/coll.txt" | head -12
log "bench gemm fp32"
timeout 120 $B bench -q --only gemm --precisions fp32 --sizes 8192 --json "$OUT/gemm.json" > "$OUT/gemm.txt" 2>&1
echo "bench rc=$?"; grep -E "fp32" "$OUT/gemm.txt" | head -3
log "build gpu-burn"
cp -r .devcarry/gpu-burn /tmp/gpu-burn && make -s -C /tmp/gpu-burn COMPUTE=90 > "$OUT/gpu-burn-build.txt" 2>&1
echo "gpu-burn build rc=$?"
log "gpu-burn fp32 $SECS s"
(cd /tmp/gpu-burn && timeout $((SECS + 60)) ./gpu_burn "$SECS") > "$OUT/gpu-burn-fp32.txt" 2>&1
echo "gpu-burn rc=$?"; tr '\r' '\n' < "$OUT/gpu-burn-fp32.txt" | grep -E "Gflop/s" | tail -1
log "stress gemm fp32 $SECS s"
timeout $((SECS + 60)) $B stress --only gemm --precision fp32 --duration "$SECS" --json "$OUT/stress-fp32.json" \
  > "$OUT/stress-fp32.txt" 2>&1
echo "stress rc=$?"; grep -E "gemm" "$OUT/stress-fp32.txt" | head -3
log finished
