#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a deduplicated sample: installs what is
# needed, builds, and runs `neardup run` on the bundled sample dataset.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
out="${DEMO_DIR:-build/demo}"
mkdir -p "$out"
rm -rf "$out/sample.ndw" "$out/sample.ndw.d"
./build/app/neardup run resources/samples/sample.jsonl resources/samples/sample-bad-lines.jsonl --project "$out/sample.ndw" \
  --out-jsonl "$out/deduplicated.jsonl" --out-removed "$out/removed-ids.txt" \
  --out-clusters "$out/clusters.jsonl" --summary-json "$out/summary.json"
./build/app/neardup eval --truth resources/samples/sample.truth.json --clusters "$out/clusters.jsonl"
echo
echo "Outputs in $out: deduplicated.jsonl, removed-ids.txt, clusters.jsonl, summary.json, sample.ndw"
