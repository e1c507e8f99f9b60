#!/usr/bin/env bash
# One device-tool call for docs/results/load-overhead.md: scripts/load-overhead.sh on the device
# host, with dcukit's automatic event loops, then one loop at 2048 streams for comparison in the
# same run. Expects build-dev/bin (dcukit, dcukit_fake_server) and .devcarry/libs.tar.xz (the
# host libraries dcukit links, set only for dcukit: system curl must keep its own).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/devlibs /tmp/wb/bin
tar -xJf .devcarry/libs.tar.xz -C /tmp/devlibs
printf '#!/bin/sh\nLD_LIBRARY_PATH=/tmp/devlibs exec %s/build-dev/bin/dcukit "$@"\n' "$PWD" > /tmp/wb/bin/dcukit
chmod +x /tmp/wb/bin/dcukit
ln -sf "$PWD/build-dev/bin/dcukit_fake_server" /tmp/wb/bin/dcukit_fake_server
{
  echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; $(. /etc/os-release; echo "$PRETTY_NAME"); $(uname -r)"
  /tmp/wb/bin/dcukit --version
  echo "## auto loops, server 8 threads"
  SERVER_THREADS=8 scripts/load-overhead.sh /tmp/wb
  echo "## one loop (--threads 1), server 8 threads"
  SERVER_THREADS=8 CLIENT_THREADS=1 LEVELS="512 2048" scripts/load-overhead.sh /tmp/wb
  echo "## auto loops, server 4 threads, 4 rounds"
  SERVER_THREADS=4 ROUNDS=4 LEVELS="512 2048" scripts/load-overhead.sh /tmp/wb
  echo "## auto loops, server 8 threads, 4 rounds"
  SERVER_THREADS=8 ROUNDS=4 LEVELS="2048" scripts/load-overhead.sh /tmp/wb
} 2>&1 | tee "$OUT/load-overhead.txt"
