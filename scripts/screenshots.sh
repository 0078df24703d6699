#!/usr/bin/env bash
# Regenerates docs/screenshots/*.png from a real window under Xvfb at 1280x800, the smallest
# screen the workbench is laid out for: a generated
# corpus of 3,000 documents, three runs with different parameters, then the workbench's
# --screenshot mode on the clusters view, the buckets view (with a bucket's documents listed)
# and the diff of two runs. PNGs are quantized with pngquant when it is installed.
# Usage: scripts/screenshots.sh [build dir]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$build/app/neardup" gen --docs 3000 --mean-chars 700 --seed 3 --out "$work/corpus.jsonl" \
  --truth "$work/truth.json" >/dev/null
run() { "$build/app/neardup" run "$work/corpus.jsonl" --project "$work/corpus.ndw" "$@" >/dev/null; }
run --threshold 0.8
run --threshold 0.7 --bands 20 --rows 5
run --threshold 0.75 --bands 9 --rows 13 --verify exact --keep longest
shot() {
  xvfb-run -a -s "-screen 0 1280x800x24" "$build/app/workbench/neardup-workbench" \
    "$work/corpus.ndw" --screenshot "$@"
}
out=docs/screenshots
shot "$out/workbench-main.png"
shot "$out/workbench-buckets.png" --tab buckets --show-bucket
shot "$out/workbench-diff.png" --compare 2,3
if command -v pngquant >/dev/null 2>&1; then
  for f in "$out"/workbench-*.png; do pngquant --force --skip-if-larger --output "$f" 64 -- "$f" || true; done
fi
ls -l "$out"
