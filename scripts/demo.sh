#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a deduplicated sample: installs what is
# needed, builds the two executables (not the test suite), and runs `neardup run` on the
# bundled sample dataset. JOBS sets the build's parallelism (default: every core).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
# A new build tree is configured without the tests (the demo needs neither them nor their
# configure time); an existing one keeps its setting, so a developer's tree keeps its tests
# (scripts/test.sh turns them on explicitly either way).
tests=()
if [ ! -f build/CMakeCache.txt ]; then tests=(-DNEARDUP_TESTS=OFF); fi
generator=()
if command -v ninja >/dev/null 2>&1 && [ ! -f build/Makefile ]; then generator=(-G Ninja); fi
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "${tests[@]}"
cmake --build build --parallel "${JOBS:-$(nproc)}" --target neardup neardup-workbench
out="${DEMO_DIR:-build/demo}"
mkdir -p "$out"
rm -rf "$out/sample.ndw" "$out/sample.ndw.d"
./build/app/neardup run resources/samples/sample.jsonl resources/samples/sample-bad-lines.jsonl --project "$out/sample.ndw" \
  --out-jsonl "$out/deduplicated.jsonl" --out-removed "$out/removed-ids.txt" \
  --out-clusters "$out/clusters.jsonl" --summary-json "$out/summary.json"
./build/app/neardup eval --truth resources/samples/sample.truth.json --clusters "$out/clusters.jsonl"
echo
echo "Outputs in $out: deduplicated.jsonl, removed-ids.txt, clusters.jsonl, summary.json, sample.ndw"
