#!/usr/bin/env bash
# The papers' CPU baseline, datasketch (as used by SlimPajama), on the same corpus and machine as
# `neardup bench`, one process on one core: 128 permutations, character 5-grams of the
# lowercased, whitespace-collapsed text, LSH with b=16 bands of r=8 rows. Prints its signature
# and LSH throughput in MB/s of JSONL input, for the side-by-side ratio in docs/performance.md.
#
# Usage: scripts/bench-baseline.sh CORPUS.jsonl [MAX_MB]   (default: the first 10 MB)
# Needs `pip install datasketch` (outside the project; never in CI).
set -euo pipefail
corpus="${1:?usage: scripts/bench-baseline.sh CORPUS.jsonl [MAX_MB]}"
max_mb="${2:-10}"
python3 - "$corpus" "$max_mb" <<'PY'
import json, sys, time
try:
    from datasketch import MinHash, MinHashLSH
    import datasketch
except ImportError:
    sys.exit("bench-baseline: datasketch is not installed (pip install datasketch)")

path, max_bytes = sys.argv[1], float(sys.argv[2]) * 1e6
lines, size = [], 0
with open(path, "rb") as f:
    for line in f:
        if size >= max_bytes:
            break
        lines.append(line)
        size += len(line)

def shingles(text, k=5):
    t = " ".join(text.lower().split())
    if len(t) <= k:
        return {t} if t else set()
    return {t[i:i + k] for i in range(len(t) - k + 1)}

# Signatures: JSON parse, normalization, shingling and MinHash, as the baseline does them.
t0, c0 = time.perf_counter(), time.process_time()
sigs = []
for line in lines:
    doc = json.loads(line)
    m = MinHash(num_perm=128, seed=1)
    m.update_batch([s.encode("utf-8") for s in shingles(doc["text"])])
    sigs.append((doc["id"], m))
wall_sig, cpu_sig = time.perf_counter() - t0, time.process_time() - c0

t0, c0 = time.perf_counter(), time.process_time()
lsh = MinHashLSH(num_perm=128, params=(16, 8))
candidates = 0
for key, m in sigs:
    candidates += len(lsh.query(m))
    lsh.insert(key, m)
wall_lsh, cpu_lsh = time.perf_counter() - t0, time.process_time() - c0

mb = size / 1e6
print(f"datasketch {datasketch.__version__}: {len(lines)} documents, {mb:.1f} MB of JSONL from {path}")
print(f"signatures (parse + normalize + 5-gram shingles + 128-permutation MinHash): "
      f"{mb / cpu_sig:.2f} MB/s CPU time, {mb / wall_sig:.2f} MB/s wall, {len(lines) / cpu_sig:.0f} docs/s")
print(f"LSH (b=16, r=8; query then insert): {mb / cpu_lsh:.2f} MB/s CPU time, {candidates} candidate hits")
print(f"signatures + LSH: {mb / (cpu_sig + cpu_lsh):.2f} MB/s CPU time")
print(json.dumps({"baseline": "datasketch", "version": datasketch.__version__, "documents": len(lines),
                  "bytes": size, "signature_mb_per_s": mb / cpu_sig, "lsh_mb_per_s": mb / cpu_lsh,
                  "total_mb_per_s": mb / (cpu_sig + cpu_lsh)}))
PY
