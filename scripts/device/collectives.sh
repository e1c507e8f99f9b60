#!/usr/bin/env bash
# `dcukit bench --only p2p,collectives` on one GPU beside nccl-tests built there from its source,
# with the same NCCL (the one the machine's Python image carries), in one device-tool call.
# Expects .devcarry/stress/{bin/dcukit,lib/dcukit/libdcukit_cuda.so}, the host libraries dcukit
# links in .devcarry/libs.tar.xz, and nccl-tests' source in .devcarry/nccl-tests. Writes its files
# to $OUT/r and $OUT/collectives.tar.gz.
set -uo pipefail
TOP=${OUT:-/tmp/out}
OUT=$TOP/r
SIZES=${SIZES:-8B:1GiB:4}
mkdir -p "$OUT" /tmp/devlibs
tar -xJf .devcarry/libs.tar.xz -C /tmp/devlibs
export LD_LIBRARY_PATH=/tmp/devlibs:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0  # never NVLink multicast on shared machines
B=.devcarry/stress/bin/dcukit
log() { echo "=== $* ($(date -u +%T))"; }
trap 'tar -czf "$TOP/collectives.tar.gz" -C "$OUT" .' EXIT

log versions
nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv
nvcc --version | tail -1
$B --version
NCCL_LIB=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null)
[ -f "$NCCL_LIB/libnccl.so.2" ] || NCCL_LIB=$(dirname "$(find / -name libnccl.so.2 -not -path '*/proc/*' 2>/dev/null | head -1)")
echo "NCCL: $NCCL_LIB"; ls -l "$NCCL_LIB"
export DCUKIT_NCCL_LIBRARY=$NCCL_LIB/libnccl.so.2

log "dcukit bench p2p + collectives"
timeout 400 $B bench -q --only p2p,collectives --collective-sizes "$SIZES" --json "$OUT/dcukit.json" \
  > "$OUT/dcukit.txt" 2>&1
echo "dcukit rc=$?"; cat "$OUT/dcukit.txt"

log "build nccl-tests"
mkdir -p /tmp/nccl/lib
ln -sf "$NCCL_LIB/libnccl.so.2" /tmp/nccl/lib/libnccl.so
ln -sfn "$(dirname "$NCCL_LIB")/include" /tmp/nccl/include
ls /tmp/nccl/include/
make -C .devcarry/nccl-tests -j16 MPI=0 CUDA_HOME="$(dirname "$(dirname "$(command -v nvcc)")")" \
  NCCL_HOME=/tmp/nccl NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" > "$OUT/nccl-tests-build.txt" 2>&1
echo "build rc=$?"; tail -3 "$OUT/nccl-tests-build.txt"
export LD_LIBRARY_PATH=$NCCL_LIB:$LD_LIBRARY_PATH
lo=8; hi=1G
for t in all_reduce all_gather reduce_scatter broadcast reduce alltoall sendrecv; do
  log "nccl-tests $t"
  timeout 120 .devcarry/nccl-tests/build/${t}_perf -b $lo -e $hi -f 4 -g 1 -c 1 -n 20 -w 5 \
    > "$OUT/nccl-$t.txt" 2>&1
  echo "$t rc=$?"; grep -vE "^#\s*$" "$OUT/nccl-$t.txt" | tail -20
done
