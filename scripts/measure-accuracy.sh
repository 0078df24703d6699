#!/usr/bin/env bash
# Reproduces the accuracy table of docs/accuracy.md ("Measured accuracy"): generated corpora
# with planted near-duplicates, deduplicated with default parameters by each hash family,
# scored against exact Jaccard.
# Usage: scripts/measure-accuracy.sh [DOCS] [SEEDS...]   (defaults: 18000 docs, seeds 1 2 3)
set -euo pipefail
. "$(dirname "$0")/measure-common.sh" accuracy "$@"
printf '| seed | family | verify | truth docs | doc-set Jaccard | precision | recall | pair precision | pair recall |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for seed in "${seeds[@]}"; do
  corpus_for "$seed"
  for family in permute rolling; do
    for verify in none borderline exact; do
      tag="$seed-$family-$verify"
      rm -rf "$work/$tag.ndw" "$work/$tag.ndw.d"
      "$neardup" run "$corpus" -p "$work/$tag.ndw" -q --hash "$family" --verify "$verify" \
        --out-clusters "$work/$tag.clusters.jsonl" >/dev/null
      "$neardup" eval --truth "$truth" --clusters "$work/$tag.clusters.jsonl" --json "$work/$tag.eval.json" >/dev/null
      python3 - "$work/$tag.eval.json" "$seed" "$family" "$verify" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {e['truth_documents']} | {e['document_jaccard']:.4f} | "
      f"{e['document_precision']:.4f} | {e['document_recall']:.4f} | {e['pair_precision']:.4f} | {e['pair_recall']:.4f} |")
PY
    done
  done
done
