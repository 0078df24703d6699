#!/usr/bin/env bash
# Removals per rule (--decide witness | components) on generated corpora with planted
# near-duplicates: the papers' metric (Jaccard of the duplicate-document sets, the same for both
# rules since clusters are the same), documents removed, chained removals, and removals that have
# no kept document with an exact Jaccard >= the threshold in the ground truth ("unvouched").
# Usage: scripts/measure-witness.sh [DOCS] [SEEDS...]   (defaults: 18000 docs, seeds 1 2 3)
set -euo pipefail
. "$(dirname "$0")/measure-common.sh" witness "$@"
threads="${THREADS:-2}"
printf '| seed | rule | doc-set Jaccard | precision | recall | removed | chained removals | unvouched removals | union s |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for seed in "${seeds[@]}"; do
  corpus_for "$seed"
  for rule in witness components; do
    tag="$seed-$rule"
    rm -rf "$work/$tag.ndw" "$work/$tag.ndw.d"
    "$neardup" run "$corpus" -p "$work/$tag.ndw" -q -j "$threads" --decide "$rule" \
      --out-clusters "$work/$tag.clusters.jsonl" --out-removed "$work/$tag.removed.txt" \
      --summary-json "$work/$tag.summary.json" >/dev/null
    "$neardup" eval --truth "$truth" --clusters "$work/$tag.clusters.jsonl" --json "$work/$tag.eval.json" >/dev/null
    python3 - "$work" "$tag" "$truth" "$seed" "$rule" <<'PY'
import json, sys
work, tag, truth_path, seed, rule = sys.argv[1:]
e = json.load(open(f"{work}/{tag}.eval.json"))
s = json.load(open(f"{work}/{tag}.summary.json"))
theta = s["parameters"]["threshold"]
removed = set(open(f"{work}/{tag}.removed.txt").read().split("\n")) - {""}
near = {}
for p in json.load(open(truth_path))["pairs"]:
    if p["jaccard"] >= theta:
        near.setdefault(p["a"], []).append(p["b"])
        near.setdefault(p["b"], []).append(p["a"])
unvouched = sum(1 for d in removed if not any(k not in removed for k in near.get(d, [])))
print(f"| {seed} | {rule} | {e['document_jaccard']:.4f} | {e['document_precision']:.4f} | "
      f"{e['document_recall']:.4f} | {len(removed)} | {s['chained_removals']} | {unvouched} | "
      f"{s['phases']['union']:.4f} |")
PY
  done
done
