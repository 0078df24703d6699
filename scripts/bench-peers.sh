#!/usr/bin/env bash
# NearDup beside the fastest MinHash on PyPI, side by side on one corpus and one core: the whole
# `neardup run` process on one thread (reading, normalizing, signatures, LSH, comparison,
# verification, project writes) against rensa's sketch + LSH alone, with rensa handed its
# tokens for free (the character 5-grams of the lowercased, whitespace-collapsed text are built
# before its clock starts). Runs alternate (neardup, rensa, neardup, ...) so that a neighbour's
# load falls on both; medians of REPEATS and the ratios are printed, for docs/performance.md.
#
# Usage: scripts/bench-peers.sh CORPUS.jsonl [REPEATS]        (default 5 repeats)
# Needs network access to PyPI once: rensa goes into a virtual environment of its own
# ($PEERS_VENV, default build/peers-venv). Never part of CI. NEARDUP=path picks the binary.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${1:?usage: scripts/bench-peers.sh CORPUS.jsonl [REPEATS]}"
repeats="${2:-5}"
neardup="${NEARDUP:-./build/app/neardup}"
venv="${PEERS_VENV:-build/peers-venv}"
[ -x "$neardup" ] || { echo "bench-peers: no $neardup (build first, or set NEARDUP)" >&2; exit 2; }
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "rensa==0.5.0"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$venv/bin/python" - "$corpus" "$repeats" "$neardup" "$work" <<'PY'
import json, os, resource, statistics, subprocess, sys, time
import rensa
from rensa import RMinHash, RMinHashLSH

corpus, repeats, neardup, work = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
size = os.path.getsize(corpus)
mb = size / 1e6

# rensa's input, built before its clock: the same text NearDup hashes (NFC is a no-op on
# this corpus's ASCII-and-Latin-1 text), as sets of character 5-grams.
def shingles(text, k=5):
    t = " ".join(text.lower().split())
    if len(t) <= k:
        return [t] if t else []
    return list({t[i:i + k] for i in range(len(t) - k + 1)})

with open(corpus, "rb") as f:
    tokens = [shingles(json.loads(line)["text"]) for line in f if line.strip()]

def children_cpu():
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime

def run_neardup(sketch):
    project = os.path.join(work, f"p-{sketch}.ndw")
    subprocess.run(["rm", "-rf", project, project + ".d"], check=True)
    c0, t0 = children_cpu(), time.perf_counter()
    subprocess.run([neardup, "run", corpus, "-p", project, "-j", "1", "--sketch", sketch, "-q"],
                   check=True)
    return time.perf_counter() - t0, children_cpu() - c0

def run_rensa_matrix():
    # The batch API: all digests in one call, then LSH's one-shot insert-and-query.
    t0 = time.process_time()
    matrix = RMinHash.digest_matrix_from_token_sets(tokens, 128, 42)
    lsh = RMinHashLSH(threshold=0.8, num_perm=128, num_bands=16)
    flags = lsh.insert_matrix_and_query_duplicate_flags(matrix)
    return time.process_time() - t0, sum(1 for f in flags if f)

def run_rensa_objects():
    # The documented per-document use: one RMinHash per document, insert, then query.
    t0 = time.process_time()
    lsh = RMinHashLSH(threshold=0.8, num_perm=128, num_bands=16)
    hashes = []
    for key, toks in enumerate(tokens):
        m = RMinHash(num_perm=128, seed=42)
        m.update(toks)
        lsh.insert(key, m)
        hashes.append(m)
    hits = sum(1 for key, m in enumerate(hashes) if len(lsh.query(m)) > 1)
    return time.process_time() - t0, hits

rows = {"neardup oph (whole process, 1 thread)": [], "neardup classic (whole process, 1 thread)": [],
        "rensa digest matrix + LSH (tokens given)": [], "rensa RMinHash objects + LSH (tokens given)": []}
for _ in range(repeats):
    rows["neardup oph (whole process, 1 thread)"].append(run_neardup("oph")[1])
    rows["rensa digest matrix + LSH (tokens given)"].append(run_rensa_matrix()[0])
    rows["neardup classic (whole process, 1 thread)"].append(run_neardup("classic")[1])
    rows["rensa RMinHash objects + LSH (tokens given)"].append(run_rensa_objects()[0])

med = {k: statistics.median(v) for k, v in rows.items()}
best_rensa = min(med["rensa digest matrix + LSH (tokens given)"],
                 med["rensa RMinHash objects + LSH (tokens given)"])
print(f"corpus {corpus}: {len(tokens)} documents, {mb:.1f} MB; rensa {getattr(rensa, '__version__', '0.5.0')}; "
      f"CPU seconds, medians of {repeats}")
print("| what | CPU s (median) | min | max | MB/s | rensa's best / this |")
print("|---|---:|---:|---:|---:|---:|")
for k, v in rows.items():
    print(f"| {k} | {med[k]:.3f} | {min(v):.3f} | {max(v):.3f} | {mb / med[k]:.1f} | {best_rensa / med[k]:.2f}x |")
print(json.dumps({"corpus": corpus, "bytes": size, "documents": len(tokens), "repeats": repeats,
                  "median_cpu_s": med}))
PY
