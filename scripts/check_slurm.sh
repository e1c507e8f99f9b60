#!/usr/bin/env bash
# dcukit slurm-check under a real Slurm on this machine: munged, slurmctld and slurmd started in a
# folder of their own (own ports, own munge socket), one node (this host). Checked: srun runs
# dcukit; a planted finding (a 4-card capture with 5 cards expected) drains the node with a
# "dcukit:" reason that sinfo -R shows, and the node resumes when the finding is gone; slurmd's own
# HealthCheckProgram (contrib/slurm/dcukit-healthcheck) drains and resumes it the same way; a
# reason set by hand is never touched; the prolog tier runs stress level 1; the job-mapping
# Prolog/Epilog (contrib/slurm/dcukit-job-mapping) keeps the exporter's folder.
# Usage: check_slurm.sh BIN_DIR SOURCE_DIR. Exit 77 (skipped) where Slurm or munge is not installed.
set -euo pipefail
bin=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
for p in munged slurmctld slurmd scontrol sinfo srun; do
  if ! command -v "$p" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$p" ]; then
    echo "SKIP: $p not found: install slurm-wlm and munge (scripts/setup.sh --tests does)"
    exit 77
  fi
done
export PATH="$PATH:/usr/sbin"
dcukit="$bin/dcukit"
capture="$src/tests/fixtures/telemetry/public/hy-smi-plain-hcu-4card-k100ai-400w-dtk25.04.2-with-trailing-cmds.txt"
d=$(mktemp -d "${TMPDIR:-/tmp}/dcukit-slurm.XXXXXX")
node=$(hostname -s)
stop() {
  for f in slurmd slurmctld munge/munged; do
    [ -f "$d/$f.pid" ] && kill "$(cat "$d/$f.pid")" 2>/dev/null || true
  done
  sleep 1
  for f in slurmd slurmctld munge/munged; do
    [ -f "$d/$f.pid" ] && kill -9 "$(cat "$d/$f.pid")" 2>/dev/null || true
  done
  rm -rf "$d"
}
trap stop EXIT
fail() {
  echo "FAIL: $*"
  echo "--- slurmctld.log"; tail -n 20 "$d/log/slurmctld.log" 2>/dev/null || true
  echo "--- slurmd.log"; tail -n 20 "$d/log/slurmd.log" 2>/dev/null || true
  exit 1
}
mkdir -p "$d/state" "$d/spool" "$d/log" "$d/munge/run"
dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$d/munge/munge.key"
munged --key-file="$d/munge/munge.key" --socket="$d/munge/run/munge.socket" --pid-file="$d/munge/munged.pid" \
  --log-file="$d/munge/munged.log" --seed-file="$d/munge/seed" -f
port=$((20000 + RANDOM % 20000))
# What slurmd's periodic health check judges: a file the test writes (slurm.conf's program takes
# no arguments). Until its own part of the test the file is absent and the check does nothing, so
# that it cannot resume a node the checks run by hand drained, between their run and sinfo.
# slurmd runs it with an environment of its own: this cluster's slurm.conf is named here (a real
# node reads /etc/slurm/slurm.conf).
cat > "$d/healthcheck" <<HC
#!/bin/sh
[ -f "$d/patrol-args" ] || exit 0
SLURM_CONF="$d/slurm.conf" PATH="\$PATH:/usr/bin:/usr/sbin" DCUKIT="$dcukit" DCUKIT_DEFAULTS=/dev/null DCUKIT_PATROL_ARGS="\$(cat "$d/patrol-args")" \
  exec "$src/contrib/slurm/dcukit-healthcheck"
HC
chmod +x "$d/healthcheck"
cat > "$d/slurm.conf" <<CONF
ClusterName=dcukit-check
SlurmctldHost=$node
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/run/munge.socket
CryptoType=crypto/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/builtin
SelectType=select/linear
ReturnToService=2
MpiDefault=none
HealthCheckProgram=$d/healthcheck
HealthCheckInterval=2
NodeName=$node CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=check Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$d/slurm.conf"
slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" || fail "slurmd did not start"

state() { sinfo -h -n "$node" -o '%T' 2>/dev/null | head -n 1; }
reason() { sinfo -h -R -n "$node" -o '%E' 2>/dev/null | head -n 1; }
wait_for() {  # wait_for SECONDS COMMAND...: until the command succeeds
  local until=$((SECONDS + $1)); shift
  until "$@"; do [ "$SECONDS" -ge "$until" ] && return 1; sleep 0.5; done
}
is_idle() { [ "$(state)" = idle ]; }
drained_by_dcukit() { reason | grep '^dcukit: devices count: 4 devices found, 5 expected' >/dev/null; }
not_drained() { ! state | grep drain >/dev/null; }

wait_for 60 is_idle || fail "the node never became idle (state: $(state))"
echo "ok: Slurm is up, node $node idle"

# srun runs dcukit, one task a node, each writing its own file (doctor exits 1 on a warning here)
timeout 60 srun -N 1 -n 1 "$dcukit" doctor -q --no-python --no-smoke --json "$d/doctor-{host}.json" >/dev/null || true
[ -s "$d/doctor-$node.json" ] || fail "srun's dcukit wrote no doctor-$node.json"
echo "ok: srun ran dcukit doctor, doctor-$node.json written"

# By hand: a failure drains with a dcukit: reason, a pass resumes
set +e
"$dcukit" slurm-check -q -- --from "$capture" --expect-devices 5; rc=$?
set -e
[ "$rc" = 1 ] || fail "a failed check exits 1, not $rc"
drained_by_dcukit || fail "sinfo -R shows no dcukit: reason (it shows: $(reason))"
echo "ok: the planted finding drained the node: $(reason)"
"$dcukit" slurm-check -q -- --from "$capture" --expect-devices 4 || fail "a passing check exits 0"
wait_for 10 not_drained || fail "the node was not resumed (state: $(state))"
echo "ok: the node resumed once the check passed"

# A reason set by hand is never touched
scontrol update NodeName="$node" State=DRAIN Reason="hand: cooling fan"
set +e
"$dcukit" slurm-check -q -- --from "$capture" --expect-devices 5; rc_fail=$?
"$dcukit" slurm-check -q -- --from "$capture" --expect-devices 4; rc_pass=$?
set -e
[ "$(reason)" = "hand: cooling fan" ] || fail "the hand-set reason became: $(reason)"
state | grep drain >/dev/null || fail "the node drained by hand was resumed"
[ "$rc_fail" = 1 ] && [ "$rc_pass" = 1 ] || fail "left drained by another's reason exits 1 (got $rc_fail, $rc_pass)"
scontrol update NodeName="$node" State=RESUME
wait_for 10 not_drained || fail "resume by hand"
echo "ok: a reason set by hand was left alone"

# slurmd's own HealthCheckProgram: the finding appears, the node drains; it goes, the node resumes
echo "--from $capture --expect-devices 5" > "$d/patrol-args"
wait_for 60 drained_by_dcukit || fail "slurmd's health check did not drain the node (reason: $(reason))"
echo "ok: slurmd's HealthCheckProgram drained the node: $(reason)"
echo "--from $capture --expect-devices 4" > "$d/patrol-args"
wait_for 60 not_drained || fail "slurmd's health check did not resume the node (state: $(state))"
rm -f "$d/patrol-args"
echo "ok: slurmd's HealthCheckProgram resumed the node"

# The prolog tier proves the card too (stress level 1; the CPU backend on a host without a GPU)
"$dcukit" slurm-check --tier prolog --json "$d/prolog.json" -- --from "$capture" --expect-devices 4 ||
  fail "the prolog tier on a healthy node: $(cat "$d/prolog.json")"
grep -q '"stress level 1: pass' "$d/prolog.json" || fail "the prolog ran no stress level 1: $(cat "$d/prolog.json")"
echo "ok: the prolog tier ran stress level 1"
# The exporter's job-mapping folder as the Prolog and Epilog keep it (two jobs share GPU 2)
jobs="$d/jobs"
DCUKIT_JOB_MAPPING_DIR="$jobs" SLURM_JOB_ID=77 SLURM_JOB_GPUS=0,2 "$src/contrib/slurm/dcukit-job-mapping" start
DCUKIT_JOB_MAPPING_DIR="$jobs" SLURM_JOB_ID=78 SLURM_JOB_GPUS=2 "$src/contrib/slurm/dcukit-job-mapping" start
[ "$(cat "$jobs/0")" = 77 ] && [ "$(tr '\n' , < "$jobs/2")" = "77,78," ] || fail "the prolog's job mapping: $(ls "$jobs")"
DCUKIT_JOB_MAPPING_DIR="$jobs" SLURM_JOB_ID=77 SLURM_JOB_GPUS=0,2 "$src/contrib/slurm/dcukit-job-mapping" stop
[ ! -e "$jobs/0" ] && [ "$(cat "$jobs/2")" = 78 ] || fail "the epilog's job mapping: $(ls "$jobs")"
echo "ok: the job-mapping Prolog and Epilog keep one file a GPU"
echo "slurm-check: all checks passed"
