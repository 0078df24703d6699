#!/usr/bin/env bash
# Reproduces the "Choosing bands and rows" table of docs/guide/parameters.md: generated corpora
# with planted near-duplicates, deduplicated at thresholds from 0.5 to 0.9 with the bands and
# rows NearDup chooses (no -b/-r) and with the old fixed 16 x 8, scored against exact Jaccard at the same
# threshold (the duplicate-document-set metric of the accuracy table).
# Usage: scripts/measure-recall.sh [DOCS] [SEEDS...]   (defaults: 18000 docs, seeds 1 2 3)
# THRESHOLDS="0.5 0.6" limits the thresholds (default: 0.5 0.6 0.7 0.8 0.9).
# SKETCHES="classic oph" compares the sketches (default: the run's default only);
# CHOICES="chosen" leaves out the fixed 16 x 8 runs; VERIFY=none scores the sketch alone.
set -euo pipefail
. "$(dirname "$0")/measure-common.sh" recall "$@"
read -r -a thresholds <<< "${THRESHOLDS:-0.5 0.6 0.7 0.8 0.9}"
read -r -a sketches <<< "${SKETCHES:-default}"
read -r -a choices <<< "${CHOICES:-chosen fixed}"
verify=()
[ -n "${VERIFY:-}" ] && verify=(--verify "$VERIFY")
printf '| seed | sketch | threshold | b x r | miss at threshold | doc-set Jaccard | precision | recall | seconds |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for seed in "${seeds[@]}"; do
  corpus_for "$seed"
  for sketch in "${sketches[@]}"; do
  sketchArg=()
  [ "$sketch" = default ] || sketchArg=(--sketch "$sketch")
  for threshold in "${thresholds[@]}"; do
    for choice in "${choices[@]}"; do
      tag="$seed-$sketch-$threshold-$choice"
      rm -rf "$work/$tag.ndw" "$work/$tag.ndw.d"
      lsh=()
      [ "$choice" = fixed ] && lsh=(-b 16 -r 8)
      start=$EPOCHREALTIME
      "$neardup" run "$corpus" -p "$work/$tag.ndw" -t "$threshold" "${lsh[@]}" "${sketchArg[@]}" "${verify[@]}" \
        --out-clusters "$work/$tag.clusters.jsonl" 2>"$work/$tag.log" >/dev/null
      end=$EPOCHREALTIME
      "$neardup" eval --truth "$truth" --clusters "$work/$tag.clusters.jsonl" -t "$threshold" \
        --json "$work/$tag.eval.json" >/dev/null
      note=$(grep -m1 '^bands x rows:' "$work/$tag.log")
      python3 - "$work/$tag.eval.json" "$seed" "$threshold" "$note" "$start" "$end" "$sketch" <<'PY'
import json, re, sys
e = json.load(open(sys.argv[1]))
m = re.match(r"bands x rows: (\d+) x (\d+).*missed: ([\d.]+) %", sys.argv[4])
print(f"| {sys.argv[2]} | {sys.argv[7]} | {sys.argv[3]} | {m.group(1)} x {m.group(2)} | {m.group(3)} % | "
      f"{e['document_jaccard']:.4f} | {e['document_precision']:.4f} | {e['document_recall']:.4f} | "
      f"{float(sys.argv[6]) - float(sys.argv[5]):.1f} |")
PY
    done
  done
  done
done
