#!/usr/bin/env bash
# `neardup run` under a real Slurm, as cluster users type it (not in the default test run: CTest
# test "slurm", registered with -DNEARDUP_SLURM_TESTS=ON; see docs/guide/scale.md).
#
#   scripts/slurm-check.sh [NEARDUP_BINARY]
#
# Installs nothing. With Debian's slurm-wlm and munge installed (apt-get install slurm-wlm
# munge), run as root, and a neardup built with MPI, it starts a one-node cluster by hand in a
# temporary folder (munged, slurmctld and slurmd with a generated slurm.conf, MpiDefault=none,
# ports of its own; nothing under /etc is read or written) and checks:
#   1. docs/examples/slurm/neardup-cpu.sbatch, submitted with 3 tasks (srun --mpi=pmix inside),
#      writes outputs byte-identical to a one-process run, and says "mpi (3 ranks on 1 host)";
#   2. a plain `srun -n 3 neardup run` (no --mpi) is refused on every task (exit 2, the line
#      naming srun --mpi=pmix) and creates no project; a plain `neardup run` in a batch script
#      of 3 tasks runs as one process;
#   3. kill -9 of rank 1 of a running `srun --mpi=pmix -n 3` job, then `--resume` in one
#      process: outputs identical to the one-process run;
#   4. scancel --signal=TERM of the sbatch example mid-run (what --signal=TERM@300 does before a
#      time limit): the run is recorded as stopped by SIGTERM, the job requeues itself and the
#      requeued job goes on with --resume to outputs identical to the one-process run.
# Exit 0 when all pass, 1 on a failure, 77 (skipped) when a prerequisite is missing.
# Environment: DOCS (corpus size for the kill and signal checks, default 40000),
# SLURM_CHECK_KEEP=1 keeps the temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
bin="$(realpath "${1:-build/app/neardup}")"
docs="${DOCS:-40000}"

skip() {
  echo "slurm-check: skipped: $*" >&2
  exit 77
}
fail() {
  echo "slurm-check: FAILED: $*" >&2
  exit 1
}
step() { echo "== $*"; }

[[ "$(id -u)" -eq 0 ]] || skip "needs root (the daemons run as root here)"
for tool in munged slurmctld slurmd srun sbatch scontrol scancel squeue sinfo; do
  command -v "$tool" >/dev/null || [[ -x "/usr/sbin/$tool" ]] ||
    skip "no $tool (apt-get install slurm-wlm munge)"
done
[[ -x "$bin" ]] || skip "no neardup binary at $bin"
"$bin" info | grep -q "mpi: compiled in" || skip "$bin has no MPI support compiled in"
srun_mpi_list() { srun --mpi=list 2>&1 || true; }

tmp="$(mktemp -d /tmp/slurm-check.XXXXXX)"
daemons=()
cleanup() {
  local pid
  if [[ -n "${SLURM_CONF:-}" ]]; then scancel --quiet --full --user=root 2>/dev/null || true; fi
  for pidfile in "${daemons[@]}"; do
    [[ -s "$pidfile" ]] || continue
    pid="$(cat "$pidfile")"
    kill "$pid" 2>/dev/null || true
  done
  sleep 1
  if [[ "${SLURM_CHECK_KEEP:-0}" != 1 ]]; then rm -rf "$tmp"; else echo "kept $tmp"; fi
}
trap cleanup EXIT

# --- a one-node cluster ------------------------------------------------------------------------
step "starting munged, slurmctld and slurmd in $tmp"
mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/bin" "$tmp/work"
chmod 700 "$tmp/munge"
head -c 1024 /dev/urandom >"$tmp/munge/munge.key"
chmod 400 "$tmp/munge/munge.key"
# --force: munged refuses a socket under the world-writable /tmp otherwise.
/usr/sbin/munged --force --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.sock" \
  --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/munged.log" \
  --seed-file="$tmp/munge/seed"
daemons+=("$tmp/munge/munged.pid")

host="$(hostname -s)"
cpus="$(nproc)"
((cpus >= 4)) || cpus=4 # 3 tasks of one CPU each, on a machine of 2 cores
port=$((20000 + $$ % 20000))
cat >"$tmp/slurm.conf" <<EOF
ClusterName=ndcheck
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.sock
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=10
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=check Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$tmp/slurm.conf"
/usr/sbin/slurmctld -f "$SLURM_CONF"
daemons+=("$tmp/slurmctld.pid")
/usr/sbin/slurmd -f "$SLURM_CONF"
daemons+=("$tmp/slurmd.pid")
for _ in $(seq 60); do
  sinfo -h -o %t 2>/dev/null | grep -q idle && break
  sleep 1
done
sinfo -h -o %t | grep -q idle || fail "the node did not come up (see $tmp/slurmd.log)"
srun_mpi_list | grep -q pmix || skip "Slurm has no pmix plugin (srun --mpi=list)"

# The environment every job inherits (sbatch and srun export it): neardup on PATH, Open MPI
# allowed to run as root, on shared memory in a container, more ranks than cores.
ln -s "$bin" "$tmp/bin/neardup"
export PATH="$tmp/bin:$PATH"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
unset SLURM_JOB_ID SLURM_STEP_ID SLURM_STEPID SLURM_STEP_NUM_TASKS SLURM_NTASKS SLURM_PROCID

# --- corpora and one-process references ----------------------------------------------------------
step "corpora: 3000 and $docs documents"
"$bin" gen --docs 3000 --seed 5 --out "$tmp/small.jsonl" --truth "$tmp/small-truth.json" >/dev/null
"$bin" gen --docs "$docs" --seed 6 --out "$tmp/big.jsonl" --truth "$tmp/big-truth.json" >/dev/null
outputs() { # DIR: the output options of every run below
  echo --out-jsonl "$1/dedup.jsonl" --out-removed "$1/removed.txt" --out-clusters "$1/clusters.jsonl"
}
same_outputs() { # REFERENCE_DIR DIR WHAT
  local f
  for f in dedup.jsonl removed.txt clusters.jsonl; do
    [[ -s "$1/$f" ]] || fail "$3: reference $1/$f is empty"
    cmp -s "$1/$f" "$2/$f" || fail "$3: $2/$f differs from the one-process run's"
  done
}
mkdir -p "$tmp/ref-small" "$tmp/ref-big"
# shellcheck disable=SC2046
"$bin" run "$tmp/small.jsonl" -p "$tmp/ref-small.ndw" -q $(outputs "$tmp/ref-small")
start=$(date +%s%N)
# shellcheck disable=SC2046
"$bin" run "$tmp/big.jsonl" -p "$tmp/ref-big.ndw" -q -j 1 $(outputs "$tmp/ref-big")
big_ms=$((($(date +%s%N) - start) / 1000000))
echo "one process, -j 1: $big_ms ms for $docs documents"

# --- 1. the documented CPU sbatch example, 3 tasks ------------------------------------------------
step "1. sbatch docs/examples/slurm/neardup-cpu.sbatch with 3 tasks"
# The job inherits this environment (sbatch's --export=ALL): the example's paths.
NEARDUP_CORPUS="$tmp/small.jsonl" NEARDUP_PROJECT="$tmp/job1.ndw" NEARDUP_OUTPUTS="$tmp/job1" \
  NEARDUP_WORK_DIR="$tmp/work" \
  sbatch --wait --nodes=1 --ntasks-per-node=3 --cpus-per-task=1 --time=10 \
  --output="$tmp/job1.log" "$repo/docs/examples/slurm/neardup-cpu.sbatch" >/dev/null ||
  fail "the sbatch example failed: $(cat "$tmp/job1.log")"
grep -q "backend: mpi (3 ranks on 1 host)" "$tmp/job1.log" ||
  fail "no 'backend: mpi (3 ranks on 1 host)' in the job's log: $(cat "$tmp/job1.log")"
same_outputs "$tmp/ref-small" "$tmp/job1" "the sbatch example"
echo "ok: identical outputs, $(grep -o 'backend: mpi ([^)]*)' "$tmp/job1.log")"

# --- 2. srun without --mpi is refused; one process in a batch script runs -----------------------
step "2. plain srun -n 3 is refused; plain neardup run in a 3-task batch script runs"
rc=0
srun -n 3 --time=5 neardup run "$tmp/small.jsonl" -p "$tmp/refused.ndw" \
  --out-removed "$tmp/refused.txt" >"$tmp/refused.log" 2>&1 || rc=$?
[[ "$rc" -eq 2 ]] || fail "srun without --mpi: exit $rc, expected 2: $(cat "$tmp/refused.log")"
[[ "$(grep -c 'srun --mpi=pmix' "$tmp/refused.log")" -eq 3 ]] ||
  fail "srun without --mpi: expected the line on each of 3 tasks: $(cat "$tmp/refused.log")"
[[ ! -e "$tmp/refused.ndw" && ! -e "$tmp/refused.txt" ]] || fail "a refused task created files"
head -n 1 "$tmp/refused.log"
mkdir -p "$tmp/batch"
# shellcheck disable=SC2046
sbatch --wait -n 3 --time=5 --output="$tmp/batch.log" \
  --wrap "neardup run $tmp/small.jsonl -p $tmp/batch.ndw $(outputs "$tmp/batch")" >/dev/null ||
  fail "plain neardup run in a batch script: $(cat "$tmp/batch.log")"
grep -q "backend: mpi" "$tmp/batch.log" && fail "the batch script's run started MPI"
same_outputs "$tmp/ref-small" "$tmp/batch" "the batch script's run"
echo "ok: refused on 3 tasks (exit 2, no project); the batch script's one process ran"

# --- 3. kill -9 of one rank, then --resume -------------------------------------------------------
# The neardup process of this check whose environment says PMIX_RANK=RANK, once it runs.
rank_pid() {
  local pid
  for pid in $(pgrep -x neardup || true); do
    tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "^$tmp/" || continue
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "PMIX_RANK=$1" && {
      echo "$pid"
      return
    }
  done
}
step "3. kill -9 of rank 1 mid-run, then --resume in one process"
mkdir -p "$tmp/killed"
# shellcheck disable=SC2046
srun --mpi=pmix -n 3 --time=10 neardup run "$tmp/big.jsonl" -p "$tmp/killed.ndw" -j 1 \
  $(outputs "$tmp/killed") >"$tmp/killed.log" 2>&1 &
srun_pid=$!
pid=""
for _ in $(seq 100); do
  pid="$(rank_pid 1)"
  [[ -n "$pid" ]] && break
  sleep 0.1
done
[[ -n "$pid" ]] || fail "rank 1 never started: $(cat "$tmp/killed.log")"
sleep "$(awk -v ms="$big_ms" 'BEGIN { s = ms * 0.3 / 1000; print (s < 0.5 ? 0.5 : s) }')"
kill -9 "$pid" 2>/dev/null || fail "rank 1 had already finished: make DOCS larger"
rc=0
wait "$srun_pid" || rc=$?
[[ "$rc" -ne 0 ]] || fail "the job survived the kill of rank 1"
echo "srun ended with exit $rc after the kill"
sqlite_check() { # PROJECT: integrity
  command -v sqlite3 >/dev/null || return 0
  [[ "$(sqlite3 "$1" 'PRAGMA integrity_check')" == ok ]] || fail "$1 is damaged"
}
sqlite_check "$tmp/killed.ndw"
rm -rf "$tmp/killed" && mkdir -p "$tmp/killed"
# shellcheck disable=SC2046
"$bin" run -p "$tmp/killed.ndw" --resume -q $(outputs "$tmp/killed") ||
  fail "--resume after the kill failed"
same_outputs "$tmp/ref-big" "$tmp/killed" "--resume after kill -9 of a rank"
echo "ok: --resume gave identical outputs"

# --- 4. SIGTERM before the time limit: recorded, requeued, resumed -------------------------------
step "4. scancel --signal=TERM of the sbatch example mid-run: requeued, resumed"
mkdir -p "$tmp/term"
job="$(NEARDUP_CORPUS="$tmp/big.jsonl" NEARDUP_PROJECT="$tmp/term.ndw" NEARDUP_OUTPUTS="$tmp/term" \
  NEARDUP_WORK_DIR="$tmp/work" \
  sbatch --parsable --nodes=1 --ntasks-per-node=3 --cpus-per-task=1 --time=10 \
  --output="$tmp/term.log" "$repo/docs/examples/slurm/neardup-cpu.sbatch")"
for _ in $(seq 100); do
  [[ -n "$(rank_pid 1)" ]] && break
  sleep 0.1
done
sleep "$(awk -v ms="$big_ms" 'BEGIN { s = ms * 0.3 / 1000; print (s < 0.5 ? 0.5 : s) }')"
scancel --signal=TERM "$job"
# The job requeues itself and runs again (--resume): wait until it has left the queue for good.
for _ in $(seq 600); do
  state="$(squeue -h -j "$job" -o %T 2>/dev/null || true)"
  [[ -z "$state" ]] && break
  sleep 1
done
[[ -z "$state" ]] || fail "job $job still $state after 10 minutes: $(cat "$tmp/term.log")"
grep -q "requeueing job $job" "$tmp/term.log" ||
  fail "the job did not requeue itself (was the run already finished?): $(cat "$tmp/term.log")"
grep -q "resuming run" "$tmp/term.log" || fail "the requeued job did not resume: $(cat "$tmp/term.log")"
if command -v sqlite3 >/dev/null; then
  sqlite_check "$tmp/term.ndw"
  stopped="$(sqlite3 "$tmp/term.ndw" "SELECT error FROM runs WHERE status = 'interrupted'")"
  [[ "$stopped" == "stopped by a signal (SIGTERM"* ]] ||
    fail "the stopped run is recorded as '$stopped'"
  echo "recorded: $stopped"
fi
same_outputs "$tmp/ref-big" "$tmp/term" "the requeued job's --resume"
echo "ok: stopped by SIGTERM, requeued, resumed to identical outputs"

step "all Slurm checks passed"
