#!/usr/bin/env bash
# Builds a self-contained, CLI-only `neardup` with the CUDA backend and copies it into DIR with
# every shared library it needs except glibc's own, so that it starts on another x86-64 Linux
# (a GPU machine with a newer glibc and none of our Debian packages). Each file's RUNPATH is
# $ORIGIN, so the bundle works from wherever it is unpacked. DIR/licences holds the licence of
# every file copied (scripts/bundle-binary.sh). Also copies scripts/gpu-check.sh, which runs the
# whole GPU check from the bundle.
#
#   scripts/gpu-bundle.sh DIR        (build dir: build-gpu-bundle, or $BUILD_DIR)
#
# Architectures: SASS for sm_75, 80, 86, 89 and 90 (H100/H200) plus compute_90 PTX, which the
# driver JIT-compiles for newer GPUs. MPI is left out: a bundle carries no MPI launcher.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
out="$1"
build_dir="${BUILD_DIR:-build-gpu-bundle}"

command -v nvcc >/dev/null || { echo "gpu-bundle: nvcc not found; the bundle needs CUDA" >&2; exit 1; }
./scripts/install-deps.sh >/dev/null

generator=()
if command -v ninja >/dev/null 2>&1 && [ ! -f "$build_dir/Makefile" ]; then generator=(-G Ninja); fi
cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DNEARDUP_GUI=OFF \
  -DNEARDUP_TESTS=OFF -DNEARDUP_CUDA=ON -DNEARDUP_MPI=OFF \
  "-DCMAKE_CUDA_ARCHITECTURES=75-real;80-real;86-real;89-real;90" >/dev/null
cmake --build "$build_dir" --parallel "$(nproc)" --target neardup

rm -rf "$out"
./scripts/bundle-binary.sh "$build_dir/app/neardup" "$out"
cp scripts/gpu-check.sh "$out/gpu-check.sh"
