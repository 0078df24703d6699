#!/usr/bin/env bash
# Builds the engine, the CLI and the tests with sanitizers and runs the tests under them.
#
#   scripts/sanitize.sh address,undefined [CTEST_REGEX]   # ASan + UBSan; default: every test
#   scripts/sanitize.sh thread [CTEST_REGEX]              # TSan; default: the threaded modules
#
# Builds in build-asan or build-tsan (or $BUILD_DIR) without CUDA and the GUI, with the default
# compiler (GCC on Debian 12; CC/CXX may name clang). Undefined behaviour, a memory error, a leak
# or a data race fails the test that triggers it. Suppressions, each explained, live in
# scripts/sanitizers/. TSan runs against a TSan-instrumented oneTBB built from source (cloned
# from GitHub at the system's version, or NEARDUP_TBB_SOURCE=path/to/oneTBB).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

mode="${1:-address,undefined}"
case "$mode" in
  address,undefined|undefined,address|address|undefined)
    build_dir="${BUILD_DIR:-build-asan}"
    default_tests='.*'
    ;;
  thread)
    build_dir="${BUILD_DIR:-build-tsan}"
    # The modules that run threads: reading and signing (TBB pipeline), LSH and comparison,
    # spilling, and whole runs.
    default_tests='^(reader|pipeline|signatures|lsh|spill|memory_budget|bad_input)$'
    ;;
  *)
    echo "usage: $0 address,undefined|thread [CTEST_REGEX]" >&2
    exit 2
    ;;
esac
tests="${2:-$default_tests}"

./scripts/install-deps.sh
# clang's sanitizer and libFuzzer runtimes are only "recommended" by the clang package.
if [[ "${CXX:-}" == clang* ]] && { ! command -v "$CXX" >/dev/null 2>&1 ||
    ! dpkg-query -W -f='${Status}' libclang-rt-14-dev 2>/dev/null | grep -q "install ok installed"; }; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev
fi
generator=()
if command -v ninja >/dev/null 2>&1 && [ ! -f "$build_dir/Makefile" ]; then generator=(-G Ninja); fi
# Parquet off: Arrow comes as a prebuilt wheel (not instrumented, built by another compiler,
# with its own allocators), so the sanitized build covers the engine without it.
# -O1 -g1: quick to build, fast enough to run, line numbers in reports; asserts stay on.
# NEARDUP_FUZZ=ON (with CC=clang CXX=clang++) builds the fuzz targets in the same tree, so
# that scripts/fuzz.sh can reuse it (as .ci/run does).
cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DNEARDUP_SANITIZE="$mode" -DNEARDUP_FUZZ="${NEARDUP_FUZZ:-OFF}" \
  -DNEARDUP_CUDA=OFF -DNEARDUP_GUI=OFF -DNEARDUP_WERROR=OFF -DNEARDUP_PARQUET=OFF
cmake --build "$build_dir" --parallel "$(nproc)"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$root/scripts/sanitizers/lsan.supp:print_suppressions=0"
export TSAN_OPTIONS="suppressions=$root/scripts/sanitizers/tsan.supp:halt_on_error=1:second_deadlock_stack=1:print_suppressions=0"

if [ "$mode" = thread ]; then
  # TSan must see oneTBB's task hand-offs, or every parallel_for body "races" with its caller:
  # run against a TSan-instrumented build of the same oneTBB version as the system's (same
  # headers, same ABI), from NEARDUP_TBB_SOURCE (a oneTBB checkout) or cloned from GitHub.
  tbb_version="$(dpkg-query -W -f='${Version}' libtbb-dev | sed 's/-.*//')"
  tbb_src="${NEARDUP_TBB_SOURCE:-$build_dir/onetbb-src}"
  if [ ! -f "$tbb_src/CMakeLists.txt" ]; then
    git clone --quiet --depth 1 --branch "v$tbb_version" https://github.com/oneapi-src/oneTBB "$tbb_src" || {
      echo "sanitize.sh: need oneTBB v$tbb_version sources for TSan (set NEARDUP_TBB_SOURCE)" >&2
      exit 1
    }
  fi
  cmake -S "$tbb_src" -B "$build_dir/onetbb" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTBB_SANITIZE=thread -DTBB_TEST=OFF -DTBBMALLOC_BUILD=OFF -DTBB_EXAMPLES=OFF -DTBB_STRICT=OFF
  cmake --build "$build_dir/onetbb" --parallel "$(nproc)"
  tbb_lib="$(dirname "$(find "$(cd "$build_dir/onetbb" && pwd)" -name 'libtbb.so.12' | head -n 1)")"
  export LD_LIBRARY_PATH="$tbb_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

cd "$build_dir"
# Sanitized code runs several times slower: one test at a time per core, generous timeouts.
ctest --output-on-failure --parallel "$(nproc)" --timeout 1800 -R "$tests"
