#!/usr/bin/env bash
# Configures and builds NearDup into ./build (or $BUILD_DIR). Extra arguments go to CMake,
# e.g. scripts/build.sh -DNEARDUP_CUDA=OFF -DNEARDUP_GUI=OFF
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${BUILD_DIR:-build}"
generator=()
if command -v ninja >/dev/null 2>&1 && [ ! -f "$build_dir/Makefile" ]; then generator=(-G Ninja); fi
cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" "$@"
cmake --build "$build_dir" --parallel "$(nproc)"
