#!/usr/bin/env bash
# Decontamination on a small example: the bundled sample corpus as training data, three of
# benchmark.jsonl's twelve items leaked into it with small edits (one of them twice), and a run
# that removes every leaked copy and lists which benchmark items leaked and how often. (The run
# also removes the sample's own near-duplicates, as any run does.)
#
#   docs/examples/decontamination/run-example.sh [OUT_DIR]     (NEARDUP: the binary to use)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../../.."
neardup="${NEARDUP:-$root/build/app/neardup}"
out="${1:-$(mktemp -d)}"
mkdir -p "$out"

# The training data: the sample, then the leaks (a prefix added, a word changed).
cp "$root/resources/samples/sample.jsonl" "$out/train.jsonl"
leak() {  # leak ITEM NEW_ID SED_EDIT
  grep "\"id\": \"$1\"" "$here/benchmark.jsonl" |
    sed -e "s/\"id\": \"$1\"/\"id\": \"$2\"/" -e 's/"text": "/"text": "Homework help: /' -e "$3"
}
{
  leak bench-02 web-0001 's/strongly/much more strongly/'
  leak bench-06 web-0002 's/short table/small table/'
  leak bench-06 web-0003 's/Explain the reasoning/Explain your reasoning/'
  leak bench-09 web-0004 's/Mia/Lena/'
} >>"$out/train.jsonl"

# The decontamination preset: word 3-grams, a lower threshold for short items, every candidate
# judged by its exact Jaccard.
"$neardup" run "$out/train.jsonl" --reference "$here/benchmark.jsonl" -p "$out/decon.ndw" \
  --shingle word --ngram 3 --threshold 0.5 --verify exact \
  --out-jsonl "$out/train.clean.jsonl" --out-clusters "$out/clusters.jsonl" \
  --summary-json "$out/summary.json" --quiet
grep -o '"removed_for_reference": [0-9]*' "$out/summary.json"
grep -o '"matched": \[.*\]' "$out/summary.json"
