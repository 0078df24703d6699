#!/usr/bin/env bash
# kill -9 in the middle of a 1 GB run, then --resume (not run in CI; takes a few minutes).
#
#   scripts/kill-test.sh [NEARDUP_BINARY] [WORK_DIR]
#
# Generates a ~1 GB corpus (400,000 documents; kept between invocations in WORK_DIR), runs it
# once uninterrupted (the reference), then twice kills a run with SIGKILL: once while it reads
# and signs, once after its comparison started (dataset and signatures saved). After each
# kill it checks: PRAGMA integrity_check = ok, the project's earlier run unchanged, no output
# under its final name, the run reported "interrupted" once the project is opened, no lock
# or temporary file left; then `neardup run --resume` must write outputs byte-identical to
# the reference, and a plain new run too. Prints the times (full run vs. resume) and where a
# resumed read went on from its checkpoint (NEARDUP_CHECKPOINT_BYTES sets the interval).
# Environment: KILL_READ_AT (seconds after the run starts reading, default 40% of the
# reference's read + signatures time), KILL_LATE_AFTER (seconds after the comparison starts,
# default 1), THREADS (default 2), DOCS (default 400000).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(realpath "${1:-build/app/neardup}")"
work="${2:-build/kill-test}"
threads="${THREADS:-2}"
docs="${DOCS:-400000}"
mkdir -p "$work"
work="$(realpath "$work")"
command -v sqlite3 >/dev/null || { echo "kill-test: needs the sqlite3 command" >&2; exit 2; }

now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc -l | xargs printf '%.2f'; }
fail() { echo "kill-test: FAILED: $*" >&2; exit 1; }
sql() { sqlite3 "$1" "$2"; }

corpus="$work/corpus.jsonl"
if [[ ! -s "$corpus" ]]; then
  echo "generating $docs documents..."
  "$bin" gen --docs "$docs" --seed 3 --out "$corpus" --truth "$work/truth.json" >/dev/null
fi
echo "corpus: $(du -h "$corpus" | cut -f1) ($docs documents), $threads threads"
"$bin" gen --docs 500 --seed 4 --out "$work/small.jsonl" --truth "$work/small-truth.json" >/dev/null

run_args=(-q -j "$threads")
rm -rf "$work"/ref.ndw* "$work"/ref.jsonl "$work"/ref.clusters
t0=$(now)
"$bin" run "$corpus" -p "$work/ref.ndw" "${run_args[@]}" --out-jsonl "$work/ref.jsonl" \
  --out-clusters "$work/ref.clusters" --summary-json "$work/ref.json" >/dev/null
full=$(since "$t0")
read_s=$(python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['phases']; print(p['read']+p['signatures'])" "$work/ref.json" 2>/dev/null || echo 10)
echo "uninterrupted run: $full s (read + signatures $(printf '%.2f' "$read_s") s)"

earlier_sql="SELECT r.status, r.documents, r.removed, r.finished_at, (SELECT count(*) FROM pairs WHERE run_id = 1), (SELECT count(*) FROM cluster_members WHERE run_id = 1) FROM runs r WHERE id = 1"

# kill_case NAME WAIT_PATTERN DELAY
kill_case() {
  local name=$1 pattern=$2 delay=$3
  local p="$work/$name.ndw" out="$work/$name"
  rm -rf "$p" "$p.d" "$out".jsonl "$out".clusters
  "$bin" run "$work/small.jsonl" -p "$p" -q >/dev/null
  local earlier
  earlier=$(sql "$p" "$earlier_sql")
  local t0 pid
  t0=$(now)
  "$bin" run "$corpus" -p "$p" "${run_args[@]}" --out-jsonl "$out.jsonl" \
    --out-clusters "$out.clusters" >/dev/null &
  pid=$!
  until compgen -G "$p.d/$pattern" >/dev/null; do
    kill -0 "$pid" 2>/dev/null || fail "$name: the run ended before the kill"
    sleep 0.01
  done
  sleep "$delay"
  kill -0 "$pid" 2>/dev/null || fail "$name: the run ended before the kill"
  kill -9 "$pid"
  wait "$pid" 2>/dev/null || true
  echo "$name: SIGKILL $(since "$t0") s after the start"
  [[ "$(sql "$p" 'PRAGMA integrity_check')" == ok ]] || fail "$name: integrity_check"
  [[ "$(sql "$p" "$earlier_sql")" == "$earlier" ]] || fail "$name: the earlier run changed"
  [[ ! -e "$out.jsonl" && ! -e "$out.clusters" ]] || fail "$name: an output under its final name"
  # Opening the project (here: exporting the killed run's rejected lines) recovers the run.
  "$bin" export -p "$p" --rejected "$work/$name-rejected.jsonl" >/dev/null
  local status
  status=$(sql "$p" "SELECT status || ': ' || error FROM runs ORDER BY id DESC LIMIT 1")
  [[ "$status" == interrupted:* ]] || fail "$name: the killed run is '$status'"
  echo "$name: reported $status"
  if compgen -G "$p.d/run-*.lock" >/dev/null || compgen -G "$p.d/*.tmp.*" >/dev/null ||
    compgen -G "$p.d/work-*" >/dev/null; then
    fail "$name: lock or temporary files left in $p.d"
  fi
  t0=$(now)
  "$bin" run -p "$p" --resume -j "$threads" --out-jsonl "$out.jsonl" \
    --out-clusters "$out.clusters" --summary-json "$out.json" >/dev/null 2>"$work/$name-resume.err"
  local resumed
  resumed=$(since "$t0")
  grep -h "resuming the read from a checkpoint" "$work/$name-resume.err" | sed "s/^/$name: /" || true
  cmp -s "$out.jsonl" "$work/ref.jsonl" || fail "$name: resumed --out-jsonl differs"
  cmp -s "$out.clusters" "$work/ref.clusters" || fail "$name: resumed --out-clusters differs"
  local reused
  reused=$(grep -o '"signatures_reused": [a-z]*' "$out.json" | cut -d' ' -f2)
  echo "$name: --resume took $resumed s (full run $full s; signatures reused: $reused); outputs identical"
  rm -f "$out.jsonl" "$out.clusters"
  "$bin" run "$corpus" -p "$p" "${run_args[@]}" --out-jsonl "$out.jsonl" \
    --out-clusters "$out.clusters" >/dev/null
  cmp -s "$out.jsonl" "$work/ref.jsonl" || fail "$name: a new run's --out-jsonl differs"
  [[ "$(sql "$p" 'PRAGMA integrity_check')" == ok ]] || fail "$name: integrity_check at the end"
  [[ "$(sql "$p" "$earlier_sql")" == "$earlier" ]] || fail "$name: the earlier run changed at the end"
  echo "$name: a plain new run succeeded; runs: $(sql "$p" "SELECT group_concat(status, ', ') FROM runs")"
}

kill_case kill-read 'run-pending-*.lock' "${KILL_READ_AT:-$(echo "$read_s * 0.4" | bc -l)}"
kill_case kill-late 'run-[0-9]*.lock' "${KILL_LATE_AFTER:-1}"
echo "kill-test: passed"
