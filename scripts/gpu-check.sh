#!/usr/bin/env bash
# The whole GPU check, run from a bundle made by scripts/gpu-bundle.sh on a machine with an
# NVIDIA GPU: device and driver, `neardup selftest --backend cuda` (several sizes, seeds, stress
# limits, two workers on one GPU), compute-sanitizer, and benchmarks of generated corpora on the
# GPU beside the CPU; `scaling` (not part of `all`: it runs the corpus once per thread count)
# measures the CPU backend at 1, 4, 8 and all the host's threads, each case with the serial share
# and Amdahl's projection the benchmark samples, so that the measured speed-ups stand beside the
# projection. Every result goes into OUT; OUT/summary.txt has one line per check.
#
#   gpu-check.sh OUT [correctness|sanitize|bench|spill|profile|scaling|all] [corpus sizes, e.g. 1G,4G]
#
# Each check is stopped after CHECK_TIMEOUT seconds (default 300) and then counts as failed.
# Exit 0 when every check passed.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
nd="$here/neardup"
out="${1:?usage: gpu-check.sh OUT [correctness|sanitize|bench|spill|profile|scaling|all] [sizes]}"
what="${2:-all}"
sizes="${3:-1G,4G}"
mkdir -p "$out"
summary="$out/summary.txt"
failed=0
work="${TMPDIR:-/tmp}/neardup-gpu-check"
mkdir -p "$work"

check() { # name, then the command; output to OUT/<name>.txt, one line in the summary
  local name="$1"; shift
  local t0=$SECONDS
  timeout "${CHECK_TIMEOUT:-300}" "$@" >"$out/$name.txt" 2>&1
  local rc=$?
  local verdict=passed
  if [ $rc -eq 124 ]; then verdict="TIMED OUT"; failed=1
  elif [ $rc -ne 0 ]; then verdict="FAILED (exit $rc)"; failed=1; fi
  printf '%-34s %-16s %4ds\n' "$name" "$verdict" $((SECONDS - t0)) | tee -a "$summary"
}

if [ "$what" = correctness ] || [ "$what" = all ]; then
  { date -u; uname -a; nvidia-smi; nvcc --version 2>/dev/null; } >"$out/device.txt" 2>&1
  check info "$nd" info
  for docs in 2000 20000 200000; do
    check "selftest-$docs" "$nd" selftest --backend cuda --docs "$docs"
  done
  check selftest-seed2-5000 "$nd" selftest --backend cuda --docs 5000 --seed 2
  check selftest-stress-2000 "$nd" selftest --backend cuda --docs 2000 --stress
  check selftest-stress-20000 "$nd" selftest --backend cuda --docs 20000 --stress
  check selftest-2workers-20000 "$nd" selftest --backend cuda --docs 20000 --workers 2
  check selftest-2workers-stress "$nd" selftest --backend cuda --docs 5000 --workers 2 --stress
fi

if [ "$what" = sanitize ] || [ "$what" = all ]; then
  cs="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
  for tool in memcheck racecheck synccheck initcheck; do
    check "sanitizer-$tool" "$cs" --tool "$tool" --error-exitcode 1 \
      "$nd" selftest --backend cuda --docs "${SANITIZE_DOCS:-400}" --stress
  done
  check sanitizer-memcheck-leaks "$cs" --tool memcheck --leak-check full --error-exitcode 1 \
    "$nd" selftest --backend cuda --docs 3000
fi

if [ "$what" = bench ] || [ "$what" = all ]; then
  threads="$(nproc)"
  for sketch in classic oph; do
    for backend in cuda cpu; do
      check "bench-$sketch-$backend" "$nd" bench --backend "$backend" --sizes "$sizes" \
        --sketch "$sketch" --threads "$threads" --verify none --no-kernels -q \
        --work-dir "$work" --json "$out/bench-$sketch-$backend.json"
    done
  done
  # Two workers on the one GPU (the multi-worker scheduler), on the largest generated corpus.
  corpus="$(ls -S "$work"/*.jsonl 2>/dev/null | head -1)"
  if [ -n "$corpus" ]; then
    for workers in 1 2; do
      check "run-classic-cuda-w$workers" "$nd" run "$corpus" -p "$work/w$workers.ndw" -q \
        --backend cuda --workers "$workers" --verify none --summary-json "$out/run-w$workers.json"
      rm -rf "$work/w$workers.ndw" "$work/w$workers.ndw.d"
    done
  fi
fi
if [ "$what" = spill ] || [ "$what" = all ]; then
  # Beyond memory: the largest generated corpus (bench makes it) with a host memory budget that
  # forces signatures and band keys to spill, and a device budget far below the data, so that
  # every phase streams; outputs must equal the CPU's byte for byte.
  corpus="$(ls -S "$work"/*.jsonl 2>/dev/null | head -1)"
  if [ -n "$corpus" ]; then
    for backend in cpu cuda; do
      rm -rf "$work/spill-$backend.ndw" "$work/spill-$backend.ndw.d"
      NEARDUP_CUDA_BUDGET_BYTES=$((256 << 20)) check "spill-$backend" "$nd" run "$corpus" \
        -p "$work/spill-$backend.ndw" -q --backend "$backend" --memory-budget 512M \
        --out-removed "$work/spill-$backend.removed" --out-clusters "$work/spill-$backend.clusters" \
        --summary-json "$out/spill-$backend.json"
      rm -rf "$work/spill-$backend.ndw" "$work/spill-$backend.ndw.d"
    done
    check spill-same-removed cmp "$work/spill-cpu.removed" "$work/spill-cuda.removed"
    check spill-same-clusters cmp "$work/spill-cpu.clusters" "$work/spill-cuda.clusters"
  fi
fi

if [ "$what" = scaling ]; then
  check scaling-cpu "$nd" bench --backend cpu --sizes "$sizes" --threads "1,4,8,$(nproc)" \
    --memory-budget "${SCALING_BUDGET:-512M}" --no-kernels -q --work-dir "$work" \
    --json "$out/scaling-cpu.json"
fi

if [ "$what" = profile ]; then
  # Where the time goes: a timeline summary (nsys) of whole runs and kernel metrics (ncu).
  corpus="$work/profile-$(echo "$sizes" | cut -d, -f1).jsonl"
  if [ ! -f "$corpus" ]; then
    bytes=$(numfmt --from=iec "$(echo "$sizes" | cut -d, -f1)")
    "$nd" gen --docs $((bytes / 2600)) --out "$corpus" --truth "$work/profile-truth.json" >/dev/null
  fi
  for sketch in classic oph; do
    if command -v nsys >/dev/null; then
      check "nsys-$sketch" nsys profile --stats=true --force-overwrite true \
        -o "$work/nsys-$sketch" "$nd" run "$corpus" -p "$work/prof-$sketch.ndw" --backend cuda \
        --sketch "$sketch" --verify none -q --summary-json "$out/profile-run-$sketch.json"
      rm -rf "$work/prof-$sketch.ndw" "$work/prof-$sketch.ndw.d"
    fi
  done
  if command -v ncu >/dev/null; then
    check ncu-kernels ncu --section SpeedOfLight --section Occupancy \
      --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section LaunchStats \
      --launch-skip 2 --launch-count 12 "$nd" selftest --backend cuda --docs 20000
  fi
fi
echo "summary: $([ $failed -eq 0 ] && echo all passed || echo some FAILED)" | tee -a "$summary"
exit $failed
