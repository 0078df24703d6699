#!/usr/bin/env bash
# Runs two neardup binaries on the same inputs with a set of parameter variants and compares
# every output byte for byte (kept, removed, clusters, deduplicated lines, summary without its
# timings), then exports each stored run again (`neardup export`, with --rejected) and compares
# those files and the export's messages too. For refactorings that promise "no behaviour change".
#   scripts/compare-outputs.sh OLD_NEARDUP NEW_NEARDUP [corpus.jsonl ...]
# Without corpora: the bundled sample and a generated corpus of 20,000 documents.
set -euo pipefail
old=$1 new=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
corpora=("$@")
if [ ${#corpora[@]} -eq 0 ]; then
  corpora=("$(dirname "$0")/../resources/samples/sample.jsonl")
  "$new" gen --docs 20000 --seed 7 --out "$work/gen.jsonl" --truth "$work/gen.truth.json" >/dev/null 2>&1
  corpora+=("$work/gen.jsonl")
fi
variants=(
  ""
  "--sketch oph"
  "--hash rolling --bucket-key sum -K auto"
  "--shingle word -k 3 -b 20 -r 5 -t 0.7"
  "--memory-budget 2M --workers 2 -j 2"
  "--verify exact -t 0.6 --keep longest"
)
failed=0
for corpus in "${corpora[@]}"; do
  for v in "${variants[@]}"; do
    for side in old new; do
      bin=$old; [ "$side" = new ] && bin=$new
      d="$work/$side"; rm -rf "$d"; mkdir -p "$d"
      # shellcheck disable=SC2086
      "$bin" run -q -p "$d/p.ndw" $v --out-kept "$d/kept" --out-removed "$d/removed" \
        --out-clusters "$d/clusters" --out-jsonl "$d/dedup.jsonl" --summary-json "$d/summary.json" \
        "$corpus" >"$d/stdout" 2>"$d/stderr" || echo "exit $?" >>"$d/stdout"
      # The stored run written again from the project.
      "$bin" export -p "$d/p.ndw" --out-kept "$d/x.kept" --out-removed "$d/x.removed" \
        --out-clusters "$d/x.clusters" --out-jsonl "$d/x.dedup.jsonl" \
        --summary-json "$d/x.summary.json" --rejected "$d/x.rejected" \
        >"$d/x.stdout" 2>"$d/x.stderr" || echo "exit $?" >>"$d/x.stdout"
      # Timings, dates, paths and the build's description differ by nature.
      for s in summary x.summary; do
        grep -vE '"(started_at|finished_at|memory_budget|peak_rss_bytes|phases|phase_details|worker_phases|spill_bytes)"' \
          "$d/$s.json" >"$d/$s.stable" 2>/dev/null || true
      done
    done
    same=yes
    for f in kept removed clusters dedup.jsonl stdout summary.stable x.kept x.removed x.clusters \
      x.dedup.jsonl x.summary.stable x.rejected x.stdout x.stderr; do
      cmp -s "$work/old/$f" "$work/new/$f" || { same=no; echo "  differs: $f"; }
    done
    printf '%-4s %s [%s] removed=%s\n' "$same" "$(basename "$corpus")" "${v:-defaults}" \
      "$(wc -l <"$work/new/removed" 2>/dev/null || echo none)"
    [ $same = yes ] || failed=1
  done
done
exit $failed
