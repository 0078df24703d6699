#!/usr/bin/env bash
# Runs every libFuzzer target for a bounded time (ASan + UBSan, clang).
#
#   scripts/fuzz.sh [SECONDS]     # total time, shared by the targets (default 120)
#
# Builds the targets in build-fuzz (or $BUILD_DIR) with CC=clang CXX=clang++ (installing clang
# when missing). Each target starts from its seeds (tests/fuzz/corpus/<name>) and the inputs
# that once crashed it (tests/fuzz/regressions/<name>); what it learns goes to a scratch corpus
# in the build directory, never into the repository. A crash, an invariant failure, a leak or a
# timeout fails the script and leaves the input under $BUILD_DIR/fuzz-artifacts/<name>/: copy
# it into tests/fuzz/regressions/<name>/, fix the bug, and CTest replays it from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
total="${1:-120}"
build_dir="${BUILD_DIR:-build-fuzz}"
targets=(jsonl_parser reader_stream normalize_shingle project_loader)

./scripts/install-deps.sh
if ! command -v clang++ >/dev/null 2>&1; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends clang
fi
export CC="${CC:-clang}" CXX="${CXX:-clang++}"

generator=()
if command -v ninja >/dev/null 2>&1 && [ ! -f "$build_dir/Makefile" ]; then generator=(-G Ninja); fi
# The same configuration as `NEARDUP_FUZZ=ON scripts/sanitize.sh address,undefined`, so
# both can share one build directory.
cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DNEARDUP_SANITIZE=address,undefined -DNEARDUP_FUZZ=ON \
  -DNEARDUP_CUDA=OFF -DNEARDUP_GUI=OFF -DNEARDUP_WERROR=OFF -DNEARDUP_PARQUET=OFF
cmake --build "$build_dir" --parallel "$(nproc)" --target "${targets[@]/#/fuzz_}"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
per=$(( total / ${#targets[@]} ))
[ "$per" -ge 1 ] || per=1
status=0
for name in "${targets[@]}"; do
  scratch="$build_dir/fuzz-corpus/$name"
  artifacts="$build_dir/fuzz-artifacts/$name/"
  mkdir -p "$scratch" "$artifacts"
  echo "fuzz: $name for ${per}s"
  # -timeout: a single input taking 10 s counts as a hang; -rss_limit_mb: as an out-of-memory.
  if ! "$build_dir/tests/fuzz/fuzz_$name" -max_total_time="$per" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$artifacts" \
      "$scratch" "$root/tests/fuzz/corpus/$name" "$root/tests/fuzz/regressions/$name" \
      > "$build_dir/fuzz-$name.log" 2>&1; then
    status=1
    tail -n 60 "$build_dir/fuzz-$name.log"
    echo "fuzz: $name FAILED; inputs in $artifacts"
  else
    grep -E "^stat::(number_of_executed_units|new_units_added)" "$build_dir/fuzz-$name.log" | tr '\n' ' '
    echo
  fi
done
exit "$status"
