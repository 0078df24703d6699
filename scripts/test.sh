#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a passing test suite: installs what is needed,
# builds with warnings as errors and the tests on (a tree scripts/demo.sh configured has them
# off), and runs every test (GPU tests skip without a device).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
BUILD_DIR="${BUILD_DIR:-build}" ./scripts/build.sh -DNEARDUP_WERROR=ON -DNEARDUP_TESTS=ON
cd "${BUILD_DIR:-build}"
ctest --output-on-failure --parallel "$(nproc)" --timeout 900
