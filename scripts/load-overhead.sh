#!/usr/bin/env bash
# Client-overhead benchmark for `dcukit load` (docs/results/load-overhead.md): runs the fake
# server (tests/integration/fake_server.cpp) at a known TTFT and ITL on 127.0.0.1 and drives it
# with 1, 64, 512 and 2048 concurrent streams. For each level it prints the measured TTFT and
# ITL medians against the truth, the server's own lateness (so that a slow server is not blamed
# on the client) and the client's CPU time.
#
# Each level starts with a warm-up of as many requests as streams (left out of the figures),
# so that connections are open: TTFT then measures the request, not TCP connection setup.
#
#   scripts/load-overhead.sh [build-dir]      env: LEVELS="1 64 512 2048" TTFT_MS=100 ITL_MS=10
#                                                  TOKENS=100 ROUNDS=2 RT=1 (SCHED_FIFO via chrt)
#                                                  SERVER_THREADS=1 CLIENT_THREADS=0
#
# SERVER_THREADS is the fake server's --threads: how many event loops (one a thread, sharing the
# port) write the streams. One loop fell behind its schedule at 2048 streams at 10 ms ITL
# (204,800 SSE writes a second; mean lateness 150 ms on 16 cores): give it more where cores
# allow, and check the lateness column either way. CLIENT_THREADS is dcukit's --threads (0: one
# event loop for every 256 streams, at most half the CPUs); the loops column shows what it used.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build-load}"
dcukit="$build/bin/dcukit"
server="$build/bin/dcukit_fake_server"
levels="${LEVELS:-1 64 512 2048}"
ttft="${TTFT_MS:-100}"
itl="${ITL_MS:-10}"
tokens="${TOKENS:-100}"
rounds="${ROUNDS:-2}"
prio=()
if [[ "${RT:-0}" == 1 ]] && command -v chrt >/dev/null; then prio=(chrt -f 10); fi
[[ -x "$dcukit" && -x "$server" ]] || { echo "build $build first (targets dcukit, dcukit_fake_server)" >&2; exit 2; }
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

work="$(mktemp -d)"
"${prio[@]}" "$server" --ttft-ms "$ttft" --itl-ms "$itl" --threads "${SERVER_THREADS:-1}" >"$work/server.out" 2>&1 &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do grep -q PORT "$work/server.out" && break; sleep 0.05; done
port="$(awk '/PORT/{print $2}' "$work/server.out")"
url="http://127.0.0.1:$port"

lateness() { curl -s "$url/metrics" | awk '/^fake_emit_lateness_ms_(sum|count|max)/{print $2}' | paste -sd' '; }

echo "# dcukit load overhead: TTFT ${ttft} ms, ITL ${itl} ms, ${tokens} tokens a stream, ${rounds} rounds"
echo "# $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $(uname -r), $("$dcukit" --version)"
printf '| streams | loops | requests | ok | TTFT median (ms) | TTFT error (ms) | ITL median (ms) | ITL error (ms) | ITL p99 (ms) | server lateness mean / max (ms) | client CPU user+sys (s) | wall (s) | client CPU %% |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
for n in $levels; do
  requests=$((n * rounds)); ((requests < 10)) && requests=10
  read -r s0 c0 _ <<<"$(lateness)"
  /usr/bin/time -f "%U %S %e" -o "$work/time" "${prio[@]}" "$dcukit" load --url "$url" --model fake -c "$n" -n "$requests" \
    --input-len 16 --output-len "$tokens" --warmup "$n" --timeout 120 --threads "${CLIENT_THREADS:-0}" -q --json "$work/r$n.json" || true
  read -r s1 c1 m1 <<<"$(lateness)"
  read -r user sys wall <"$work/time"
  python3 - "$work/r$n.json" "$n" "$requests" "$ttft" "$itl" "$user" "$sys" "$wall" "$s0" "$c0" "$s1" "$c1" "$m1" <<'PY'
import json, sys
path, n, req, ttft, itl, user, sys_, wall, s0, c0, s1, c1, m1 = sys.argv[1:]
j = json.load(open(path))
late = (float(s1) - float(s0)) / max(1.0, float(c1) - float(c0))
cpu = float(user) + float(sys_)
print(f"| {n} | {j['client_event_loops']} | {req} | {j['completed']} | {j['median_ttft_ms']:.3f} | {j['median_ttft_ms'] - float(ttft):+.3f} | "
      f"{j['median_itl_ms']:.3f} | {j['median_itl_ms'] - float(itl):+.3f} | {j['p99_itl_ms']:.3f} | {late:.3f} / {float(m1):.1f} | "
      f"{cpu:.2f} | {float(wall):.2f} | {100 * cpu / float(wall):.0f} |")
PY
done
